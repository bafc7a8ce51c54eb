//! C's preprocessor lines without a parse: the names in a macro's body, and a line scanner that
//! gives a header made only of directives (`#define` register lists, include guards, includes)
//! the outline and the references its parse would give, without the grammar.
//!
//! **Macro bodies.** The grammar reads a `#define`'s value as one token of raw text, so the
//! names in it are no identifiers of the tree. [`super::macro_body::body_names`] reads them:
//! every identifier of the text that is not in a comment, a string, a character or a number,
//! and not a keyword. Both the parse's references ([`super::refs`]) and the scanner give each
//! one as a reference of role `other`, inside the function-like macro whose body holds it.
//!
//! **The scanner.** [`scan`] takes a C file whose every line is blank, a comment, or one of the
//! directives `#define`, `#undef`, `#pragma`, `#include <…>` / `"…"`, `#ifdef`, `#ifndef` and
//! `#endif` (balanced), written in the plain forms it knows; for anything else (code, `#if`, a
//! comment inside a directive's name, a carriage return …) it gives up at once and the file
//! is parsed. What it gives is what the parse gives for such a file, to the byte: function-like
//! macros as definitions, the names of object-like macros, the parameters of function-like
//! ones and the names of `#ifdef`/`#ifndef` as references (`other`, `other`, `read`), and the
//! names in macro bodies as above. A test checks that on every header of a tree it is pointed
//! at (`RIPSIGHT_DEFINES_TREE`), against the parse.

use super::SymbolKind;
use super::lang::Language;
use super::macro_body::{find, is_keyword};
use super::naming::clean_name;
use super::parse::{Entry, Parsed};
use super::refs::{self, MAX_FILE_REFERENCES, Spans, Spot};
use super::role::Role;

/// The outline (and, when `references` is set, the references) of `source` read as
/// `language`, when it is a C file the scanner reads whole (see the module doc); `None` sends
/// it to the parse.
pub(super) fn scan(language: Language, source: &[u8], references: bool) -> Option<Parsed> {
    if language != Language::C {
        return None;
    }
    let mut scanner = Scanner {
        s: source,
        at: 0,
        row: 0,
        line_start: 0,
        depth: 0,
        entries: Vec::new(),
        spans: Spans {
            ranges: Vec::new(),
            names: Vec::new(),
        },
        spots: Vec::new(),
        counted: 0,
    };
    scanner.file()?;
    let Scanner {
        entries,
        spans,
        spots,
        ..
    } = scanner;
    let references = references.then(|| refs::arrange(language, &spots, source, &spans, false));
    Some(Parsed {
        entries,
        has_errors: false,
        with_references: references.is_some(),
        references,
    })
}

struct Scanner<'a> {
    s: &'a [u8],
    at: usize,
    /// The 0-based line of `at`, and where it starts.
    row: usize,
    line_start: usize,
    /// `#ifdef`s open.
    depth: usize,
    entries: Vec<Entry>,
    spans: Spans,
    spots: Vec<Spot>,
    /// Identifiers the parse would meet (the macros' own names too): past the cap the parse
    /// cuts its references, which the scanner leaves to it.
    counted: usize,
}

impl Scanner<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.s.get(self.at + ahead).copied().unwrap_or(0)
    }

    /// Moves over `count` bytes, counting lines.
    fn bump(&mut self, count: usize) {
        for _ in 0..count {
            if self.s.get(self.at) == Some(&b'\n') {
                self.row += 1;
                self.line_start = self.at + 1;
            }
            self.at += 1;
        }
    }

    fn spaces(&mut self) {
        while matches!(self.peek(0), b' ' | b'\t') {
            self.at += 1;
        }
    }

    /// A block comment at `at`, to its end; `None` when it is not closed, or (`one_line`)
    /// holds a line break.
    fn block_comment(&mut self, one_line: bool) -> Option<()> {
        let end = find(self.s, self.at + 2, b"*/")?;
        if one_line && memchr::memchr(b'\n', &self.s[self.at..end]).is_some() {
            return None;
        }
        self.bump(end + 2 - self.at);
        Some(())
    }

    /// A line comment at `at`, to (not through) its line's end; `None` when it holds a
    /// backslash (it could go on to the next line).
    fn line_comment(&mut self) -> Option<()> {
        let end = memchr::memchr(b'\n', &self.s[self.at..]).map_or(self.s.len(), |e| self.at + e);
        if memchr::memchr(b'\\', &self.s[self.at..end]).is_some() {
            return None;
        }
        self.at = end;
        Some(())
    }

    /// The rest of a directive's line: spaces and comments, then its line break (consumed).
    fn line_end(&mut self) -> Option<()> {
        loop {
            self.spaces();
            match (self.peek(0), self.peek(1)) {
                (b'\n', _) => {
                    self.bump(1);
                    return Some(());
                }
                (b'/', b'*') => self.block_comment(true)?,
                (b'/', b'/') => self.line_comment()?,
                _ => return None,
            }
        }
    }

    /// A name at `at` (ASCII, not a keyword, not followed by what could continue it).
    fn name(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        if !(self.peek(0).is_ascii_alphabetic() || self.peek(0) == b'_') {
            return None;
        }
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.at += 1;
        }
        let next = self.peek(0);
        if next == b'$' || next == b'\\' || next >= 0x80 || is_keyword(&self.s[start..self.at]) {
            return None;
        }
        Some((start, self.at))
    }

    fn spot(&mut self, (start, end): (usize, usize), role: Role) {
        self.spots.push(Spot {
            start,
            end,
            role,
            row: self.row,
            column: start - self.line_start,
        });
    }

    fn file(&mut self) -> Option<()> {
        if self.s.iter().any(|&b| matches!(b, b'\r' | 0 | 0x0b | 0x0c)) {
            return None;
        }
        loop {
            match (self.peek(0), self.peek(1)) {
                (b' ' | b'\t' | b'\n', _) => self.bump(1),
                (b'/', b'*') => self.block_comment(false)?,
                (b'/', b'/') => self.line_comment()?,
                (b'#', _) => self.directive()?,
                _ if self.at >= self.s.len() => break,
                _ => return None,
            }
            if self.counted >= MAX_FILE_REFERENCES {
                return None;
            }
        }
        (self.depth == 0).then_some(())
    }

    fn directive(&mut self) -> Option<()> {
        let start = self.at;
        self.at += 1;
        self.spaces();
        let word_start = self.at;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.at += 1;
        }
        let word = &self.s[word_start..self.at];
        match word {
            b"define" => self.define(start),
            b"ifdef" | b"ifndef" => {
                if !matches!(self.peek(0), b' ' | b'\t') {
                    return None;
                }
                self.spaces();
                let name = self.name()?;
                self.counted += 1;
                self.spot(name, Role::Read);
                self.depth += 1;
                self.line_end()
            }
            b"endif" => {
                self.depth = self.depth.checked_sub(1)?;
                self.line_end()
            }
            b"include" => {
                self.spaces();
                let close = match self.peek(0) {
                    b'<' => b'>',
                    b'"' => b'"',
                    _ => return None,
                };
                let end = memchr::memchr2(close, b'\n', &self.s[self.at + 1..])?;
                let inside = &self.s[self.at + 1..self.at + 1 + end];
                if self.s[self.at + 1 + end] != close || inside.contains(&b'\\') {
                    return None;
                }
                self.at += end + 2;
                self.line_end()
            }
            b"undef" | b"pragma" => self.value().map(|_| ()),
            _ => None,
        }
    }

    /// A directive's value, from after its name (or parameters) through its line break: the
    /// byte range of the grammar's `preproc_arg` token, if there is one, and its line and
    /// column.
    fn value(&mut self) -> Option<Option<(std::ops::Range<usize>, usize, usize)>> {
        // Spaces, comments and continued lines before the value.
        loop {
            self.spaces();
            match (self.peek(0), self.peek(1)) {
                (b'\\', b'\n') => self.bump(2),
                (b'/', b'*') => self.block_comment(true)?,
                (b'/', _) => return None,
                (b'\n', _) => {
                    self.bump(1);
                    return Some(None);
                }
                (0, _) if self.at >= self.s.len() => return None,
                _ => break,
            }
        }
        let (start, row, column) = (self.at, self.row, self.at - self.line_start);
        // The token: up to a line break that no backslash continues, or a block comment.
        loop {
            match (self.peek(0), self.peek(1)) {
                (b'\n', _) => break,
                (b'\\', b'\n') => self.bump(2),
                (b'/', b'*') => break,
                (b'/', _) if self.at + 1 < self.s.len() => self.bump(2),
                (b'/', _) => return None,
                _ if self.at >= self.s.len() => return None,
                _ => self.bump(1),
            }
        }
        let end = self.at;
        self.line_end()?;
        Some(Some((start..end, row, column)))
    }

    fn define(&mut self, start: usize) -> Option<()> {
        if !matches!(self.peek(0), b' ' | b'\t') {
            return None;
        }
        self.spaces();
        let name = self.name()?;
        let name_row = self.row;
        self.counted += 1;
        let function = self.peek(0) == b'(';
        if function {
            self.at += 1;
            // `F()`, or parameters each followed by `,` or the `)`.
            while self.peek(0) != b')' {
                self.spaces();
                if self.s[self.at..].starts_with(b"...") {
                    self.at += 3;
                } else {
                    let parameter = self.name()?;
                    self.counted += 1;
                    self.spot(parameter, Role::Other);
                }
                self.spaces();
                match self.peek(0) {
                    b',' if self.peek(1) != b')' => self.at += 1,
                    b')' => break,
                    _ => return None,
                }
            }
            self.at += 1;
        } else {
            self.spot(name, Role::Other);
        }
        let value = self.value()?;
        if let Some((range, row, column)) = value {
            let (spots, counted) = (&mut self.spots, &mut self.counted);
            refs::body_spots(self.s, range, row, column, &mut |spot| {
                *counted += 1;
                spots.push(spot);
            });
        }
        if function {
            // The definition ends with its line break: on the line before the next.
            self.entries.push(Entry {
                kind: SymbolKind::Macro,
                name: clean_name(&self.s[name.0..name.1], Language::C),
                line: name_row as u64 + 1,
                end_line: self.row as u64,
                depth: 0,
                parent: None,
            });
            self.spans.ranges.push((start, self.at));
            self.spans.names.push(name.0);
        }
        Some(())
    }
}

#[cfg(test)]
#[path = "defines_tests.rs"]
pub(super) mod tests;
