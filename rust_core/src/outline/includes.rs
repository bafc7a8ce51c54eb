//! C's and C++'s `#include`s, read from the source's lines (the preprocessor is line-based, so
//! no parse is needed): both the parse and the directive scanner (`defines`) hand a C file's
//! references the same list.
//!
//! What is read: a line whose first non-blank character is `#`, then (blanks allowed) `include`
//! or `include_next`, then `<…>` (a [`Form::System`] include) or `"…"` ([`Form::Local`]);
//! whatever follows the closing bracket (a comment) is ignored. Left out: lines inside a block
//! comment, lines inside `#if 0` (up to its `#else`, `#elif` or `#endif`, nested conditionals
//! counted): code switched off by hand names nothing the build sees. Every other conditional is
//! taken as both ways (which configuration is built is unknown), and a computed include
//! (`#include MACRO`) names nothing here.

use super::imports::{Form, Import};
use super::lang::Language;

/// The `#include`s of `source` in source order; empty for a language other than C and C++.
pub(crate) fn includes(language: Language, source: &[u8]) -> Vec<Import> {
    if !matches!(language, Language::C | Language::Cpp) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut in_comment = false;
    // Conditionals open inside an `#if 0` (its own included), when in one.
    let mut off: Option<u32> = None;
    for (row, line) in source.split(|&b| b == b'\n').enumerate() {
        let starts_in_comment = in_comment;
        in_comment = ends_in_comment(line, in_comment);
        if starts_in_comment {
            continue;
        }
        let Some(rest) = trim(line).strip_prefix(b"#") else {
            continue;
        };
        let rest = trim(rest);
        let word_end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(rest.len());
        let (word, rest) = rest.split_at(word_end);
        if let Some(depth) = off.as_mut() {
            match word {
                b"if" | b"ifdef" | b"ifndef" => *depth += 1,
                b"endif" if *depth == 1 => off = None,
                b"endif" => *depth -= 1,
                b"else" | b"elif" | b"elifdef" | b"elifndef" if *depth == 1 => off = None,
                _ => {}
            }
            continue;
        }
        match word {
            b"if" if is_zero(rest) => off = Some(1),
            b"include" | b"include_next" => {
                if let Some((form, module)) = target(trim(rest)) {
                    out.push(Import {
                        line: u32::try_from(row + 1).unwrap_or(u32::MAX),
                        form,
                        module,
                        names: Vec::new(),
                        alias: None,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// `line` without leading blanks.
fn trim(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b'))
        .unwrap_or(line.len());
    &line[start..]
}

/// Whether `#if`'s condition is the literal `0` (a comment may follow).
fn is_zero(condition: &[u8]) -> bool {
    let condition = trim(condition);
    let Some(rest) = condition.strip_prefix(b"0") else {
        return false;
    };
    let rest = trim(rest);
    rest.is_empty()
        || rest.starts_with(b"/*")
        || rest.starts_with(b"//")
        || rest.iter().all(|b| b.is_ascii_whitespace())
}

/// The form and the name of an include's target (`<a/b.h>`, `"c.h"`).
fn target(rest: &[u8]) -> Option<(Form, String)> {
    let (form, close) = match rest.first()? {
        b'<' => (Form::System, b'>'),
        b'"' => (Form::Local, b'"'),
        _ => return None,
    };
    let end = rest[1..].iter().position(|&b| b == close)?;
    let name = std::str::from_utf8(&rest[1..1 + end]).ok()?.trim();
    (!name.is_empty()).then(|| (form, name.to_string()))
}

/// Whether a block comment is open at the end of `line`, given whether one was at its start
/// (strings and `//` comments are honoured, approximately: an escaped quote is skipped).
fn ends_in_comment(line: &[u8], mut open: bool) -> bool {
    let mut at = 0;
    let mut quote: Option<u8> = None;
    while at < line.len() {
        let b = line[at];
        let next = line.get(at + 1).copied();
        if open {
            if b == b'*' && next == Some(b'/') {
                open = false;
                at += 2;
                continue;
            }
        } else if let Some(q) = quote {
            if b == b'\\' {
                at += 2;
                continue;
            }
            if b == q {
                quote = None;
            }
        } else {
            match (b, next) {
                (b'/', Some(b'*')) => {
                    open = true;
                    at += 2;
                    continue;
                }
                (b'/', Some(b'/')) => return false,
                (b'"' | b'\'', _) => quote = Some(b),
                _ => {}
            }
        }
        at += 1;
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules(source: &str) -> Vec<(u32, Form, String)> {
        includes(Language::C, source.as_bytes())
            .into_iter()
            .map(|i| (i.line, i.form, i.module))
            .collect()
    }

    #[test]
    fn both_forms_with_blanks_and_comments_after() {
        let source = "#include <linux/types.h>\n  #  include \"local.h\" /* why */\n\
                      #include_next <limits.h> // next\n#define X 1\n#include MACRO\n\
                      #include <>\n#include <unterminated.h\n";
        assert_eq!(
            modules(source),
            [
                (1, Form::System, "linux/types.h".to_string()),
                (2, Form::Local, "local.h".to_string()),
                (3, Form::System, "limits.h".to_string()),
            ]
        );
    }

    #[test]
    fn comments_and_if_zero_hide_includes_and_other_conditionals_do_not() {
        let source = "/* a comment\n#include <hidden.h>\n*/\n#include <after_comment.h>\n\
                      #if 0\n#include <off.h>\n#ifdef X\n#include <off2.h>\n#endif\n\
                      #else\n#include <on_else.h>\n#endif\n#ifdef CONFIG_X\n#include <on.h>\n\
                      #endif\n#if 0 /* old */\n#include <off3.h>\n#endif\n\
                      const char *s = \"/*\";\n#include <after_string.h>\n";
        let names: Vec<String> = modules(source).into_iter().map(|m| m.2).collect();
        assert_eq!(
            names,
            ["after_comment.h", "on_else.h", "on.h", "after_string.h"]
        );
        assert!(includes(Language::Python, b"#include <x.h>\n").is_empty());
        assert_eq!(includes(Language::Cpp, b"#include <vector>\n").len(), 1);
    }
}
