//! The names a C macro's body uses: the grammar reads a `#define`'s value as one token of raw
//! text, so the names in it are no identifiers of the tree. [`body_names`] reads them: every
//! identifier of the text that is not in a comment, a string, a character or a number, and not
//! a keyword. The parse's references ([`super::refs`]) and the directive scanner
//! ([`super::defines`]) both give each one as a reference of role `other`.

/// Words that are C keywords (and `defined`, `__VA_ARGS__`): never a name in a macro's body,
/// and a macro named so is left to the parse.
const KEYWORDS: &[&[u8]] = &[
    b"_Alignas",
    b"_Alignof",
    b"_Atomic",
    b"_Bool",
    b"_Complex",
    b"_Generic",
    b"_Imaginary",
    b"_Noreturn",
    b"_Static_assert",
    b"_Thread_local",
    b"__VA_ARGS__",
    b"auto",
    b"break",
    b"case",
    b"char",
    b"const",
    b"continue",
    b"default",
    b"defined",
    b"do",
    b"double",
    b"else",
    b"enum",
    b"extern",
    b"float",
    b"for",
    b"goto",
    b"if",
    b"inline",
    b"int",
    b"long",
    b"register",
    b"restrict",
    b"return",
    b"short",
    b"signed",
    b"sizeof",
    b"static",
    b"struct",
    b"switch",
    b"typedef",
    b"union",
    b"unsigned",
    b"void",
    b"volatile",
    b"while",
];

pub(super) fn is_keyword(word: &[u8]) -> bool {
    KEYWORDS.binary_search(&word).is_ok()
}

pub(super) fn starts_name(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80
}

pub(super) fn continues_name(b: u8) -> bool {
    starts_name(b) || b.is_ascii_digit()
}

/// The byte ranges (in `text`, a macro's body) of the names it uses, in order.
pub(super) fn body_names(text: &[u8], found: &mut dyn FnMut(usize, usize)) {
    let at = |i: usize| text.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if starts_name(b) {
            let mut j = i + 1;
            while j < text.len() && continues_name(text[j]) {
                j += 1;
            }
            let word = &text[i..j];
            let prefix =
                matches!(word, b"L" | b"u" | b"U" | b"u8") && matches!(at(j), b'"' | b'\'');
            if !prefix && !is_keyword(word) {
                found(i, j);
            }
            i = j;
        } else if b.is_ascii_digit() || (b == b'.' && at(i + 1).is_ascii_digit()) {
            // A number, with its suffixes and exponents (`0x1fUL`, `1e+5`).
            i += 1;
            while i < text.len() {
                match text[i] {
                    b'e' | b'E' | b'p' | b'P' if matches!(at(i + 1), b'+' | b'-') => i += 2,
                    c if continues_name(c) || c == b'.' => i += 1,
                    _ => break,
                }
            }
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < text.len() && text[i] != b && text[i] != b'\n' {
                i += if text[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b == b'/' && at(i + 1) == b'/' {
            // A line comment runs to the end of the directive.
            return;
        } else if b == b'/' && at(i + 1) == b'*' {
            i = find(text, i + 2, b"*/").map_or(text.len(), |end| end + 2);
        } else {
            i += 1;
        }
    }
}

pub(super) fn find(text: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(text.get(from..)?, needle).map(|at| at + from)
}
