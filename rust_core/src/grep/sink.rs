//! The searcher's sink for one file: counts matching lines and keeps the text of those in a
//! window of match indices, with the context lines around them.

use std::collections::VecDeque;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use crate::budget::Deadline;
use crate::keyblock::LineBlocks;

/// When a line is cut and its match starts within the first `max_line_chars` minus this many
/// characters, the head of the line is shown; otherwise a window around the match.
const MATCH_ROOM: usize = 16;

/// The deadline is asked once per this many matching lines (a slice search has no buffer
/// refills to check it at; asking per line would cost a clock read each).
const DEADLINE_EVERY_MATCHES: u64 = 1024;

/// One stored line of a file with matches.
pub(super) struct StoredLine {
    pub(super) line: u64,
    pub(super) text: String,
    pub(super) cut: bool,
    pub(super) is_match: bool,
    /// False for a matching line past `max_count`, kept in the after-context of the last
    /// counted match: shown as a match (rg prints it so), counted in no total or page.
    pub(super) counted: bool,
}

/// Which matching lines of a file keep their text: indices `from .. to` (0-based, in line
/// order). `stop_after` ends the search at the first match past the window (a second search
/// of a page's file needs nothing beyond it).
#[derive(Clone, Copy)]
pub(super) struct Window {
    pub(super) from: u64,
    pub(super) to: u64,
    pub(super) stop_after: bool,
}

/// Counts matching lines and stores the text of those inside the window.
pub(super) struct FileSink<'a> {
    pub(super) matcher: &'a RegexMatcher,
    pub(super) deadline: &'a Deadline,
    /// `None`: count only.
    pub(super) window: Option<Window>,
    /// Context lines before and after each match.
    pub(super) before_context: u64,
    pub(super) after_context: u64,
    pub(super) max_chars: usize,
    pub(super) multiline: bool,
    /// Matching lines seen.
    pub(super) count: u64,
    /// Matching lines stored.
    pub(super) kept: u64,
    pub(super) last_kept_line: u64,
    pub(super) lines: Vec<StoredLine>,
    pub(super) binary: bool,
    /// The deadline passed mid-file: the counts cover the file's start only.
    pub(super) stopped: bool,
    /// Set for a file that may hold a private-key block: the searcher then passes every line
    /// (passthru), lines of a key block are neither counted nor stored, and the context lines
    /// the searcher would give are picked here (`before`).
    pub(super) keys: Option<LineBlocks>,
    /// Key mode: the last context lines that may precede the next stored match.
    before: VecDeque<StoredLine>,
    /// Matches counted at most (`rg -m`): one per searcher match event (a multiline match
    /// whose lines touch the next one's is one event, as rg counts them). Past it the sink
    /// keeps the after-context of the last counted match, keeping matching lines there as
    /// uncounted matches (rg prints them as matches and counts them nowhere: its regression
    /// test for issue 1380), and then ends the search; it stops the search itself where the
    /// searcher cannot (multiline, key mode).
    max_count: Option<u64>,
    /// The search's matches are the lines that do not match (`rg -v`).
    invert: bool,
    /// Match events counted.
    events: u64,
    /// The last line of the last counted match.
    last_match_line: u64,
}

impl<'a> FileSink<'a> {
    pub(super) fn new(
        matcher: &'a RegexMatcher,
        deadline: &'a Deadline,
        window: Option<Window>,
        (before_context, after_context): (u64, u64),
        max_chars: usize,
        multiline: bool,
    ) -> FileSink<'a> {
        FileSink {
            matcher,
            deadline,
            window,
            before_context,
            after_context,
            max_chars,
            multiline,
            count: 0,
            kept: 0,
            last_kept_line: 0,
            lines: Vec::new(),
            binary: false,
            stopped: false,
            keys: None,
            before: VecDeque::new(),
            max_count: None,
            invert: false,
            events: 0,
            last_match_line: 0,
        }
    }

    /// Counts at most `max_count` matches (see the field); `invert`: the search's matches are
    /// the lines that do not match (`rg -v`).
    pub(super) fn with_max_count(mut self, max_count: Option<u64>, invert: bool) -> Self {
        self.max_count = max_count;
        self.invert = invert;
        self
    }

    /// Whether `max_count` matches were counted.
    fn limit_reached(&self) -> bool {
        self.max_count.is_some_and(|max| self.events >= max)
    }

    /// Past the limit: whether `line` lies beyond the after-context of the last counted match.
    fn past_last_context(&self, line: u64) -> bool {
        self.limit_reached() && line > self.last_match_line.saturating_add(self.after_context)
    }

    /// A match event past the limit: its lines inside the last counted match's after-context
    /// are kept (see [`FileSink::keep_trailing`]); false (end the search) once a line lies
    /// beyond it.
    fn trailing(&mut self, found: &SinkMatch<'_>) -> bool {
        let first_line = found.line_number().unwrap_or(0);
        for (i, bytes) in found.lines().enumerate() {
            let line = first_line + i as u64;
            if self.past_last_context(line) {
                return false;
            }
            if self.withheld(bytes) {
                continue;
            }
            self.keep_trailing(line, bytes, true);
        }
        true
    }

    /// A line past the limit, inside the after-context of the last kept match: kept, as a
    /// match that is not counted when it matches (rg prints it with ':' and counts it nowhere),
    /// else as context. Whether it matches is asked of the line without its terminator, as rg
    /// 14 asks: the searcher asks with it, where `^$` matches at the end of any line. In a
    /// multiline search the searcher's word stands (`from_match`).
    fn keep_trailing(&mut self, line: u64, bytes: &[u8], from_match: bool) {
        if self.window.is_none()
            || self.kept == 0
            || line > self.last_kept_line.saturating_add(self.after_context)
        {
            return;
        }
        let found = self.matcher.find(without_terminator(bytes)).ok().flatten();
        let is_match = if self.multiline {
            from_match
        } else {
            found.is_some() != self.invert
        };
        let start = found.filter(|_| is_match).map(|m| m.start());
        let (text, cut) = shown_text(bytes, start, self.max_chars);
        self.lines.push(StoredLine {
            line,
            text,
            cut,
            is_match,
            counted: false,
        });
    }

    /// Key mode: the searcher passes every line, lines of key blocks are withheld.
    pub(super) fn withholding_keys(mut self) -> Self {
        self.keys = Some(LineBlocks::default());
        self
    }

    /// Key mode: whether this line (the next of the file) lies in a key block.
    fn withheld(&mut self, bytes: &[u8]) -> bool {
        self.keys.as_mut().is_some_and(|k| k.withheld(bytes))
    }

    /// Whether the match with index `index` keeps its text.
    fn in_window(&self, index: u64) -> bool {
        self.window.is_some_and(|w| index >= w.from && index < w.to)
    }

    /// Whether a search that stops after the window is done at a match with index `index` on
    /// line `line`: past the window, and past the after-context of the last kept match (the
    /// context lines after this withheld match may still be shown as that match's context).
    fn done(&self, index: u64, line: u64) -> bool {
        self.window.is_some_and(|w| {
            w.stop_after
                && index >= w.to
                && line > self.last_kept_line.saturating_add(self.after_context)
        })
    }

    /// Whether a context line arriving now may be shown: it may lead to a match of the window
    /// (one at most `before_context` matches ahead, as they lie between it and that match) or
    /// follow the last kept match. The page drops those it does not show.
    fn context_wanted(&self, line: u64) -> bool {
        let Some(window) = self.window else {
            return false;
        };
        let ahead = self.count.saturating_add(self.before_context);
        (ahead >= window.from && self.count < window.to)
            || (self.kept > 0 && line <= self.last_kept_line.saturating_add(self.after_context))
    }

    fn store_line(&mut self, line: u64, bytes: &[u8], match_start: Option<usize>, is_match: bool) {
        if is_match && self.keys.is_some() {
            // The context lines that precede this match (within `before_context` lines of it).
            let first = line.saturating_sub(self.before_context);
            for stored in self.before.drain(..) {
                if stored.line >= first && stored.line > self.last_kept_line {
                    self.lines.push(stored);
                }
            }
        }
        let (text, cut) = shown_text(bytes, match_start, self.max_chars);
        self.lines.push(StoredLine {
            line,
            text,
            cut,
            is_match,
            counted: is_match,
        });
    }

    /// The lines of one match (several in multiline mode), each counted and stored in the
    /// window unless it lies in a key block (key mode); false when the search should end.
    fn matched_lines(&mut self, found: &SinkMatch<'_>) -> bool {
        let first_line = found.line_number().unwrap_or(0);
        let mut go_on = true;
        for (i, bytes) in found.lines().enumerate() {
            if self.withheld(bytes) {
                continue;
            }
            let line = first_line + i as u64;
            self.last_match_line = line;
            if self.in_window(self.count) {
                let start = if i == 0 {
                    let found = self.matcher.find(found.bytes()).ok().flatten();
                    found.map(|m| m.start()).filter(|s| *s < bytes.len())
                } else {
                    Some(0)
                };
                self.store_line(line, bytes, start, true);
                self.kept += 1;
                self.last_kept_line = line;
            }
            go_on &= self.count_one();
        }
        go_on
    }

    /// Counts one matching line; false when the search should end.
    fn count_one(&mut self) -> bool {
        self.count += 1;
        if self.count.is_multiple_of(DEADLINE_EVERY_MATCHES) && self.deadline.expired() {
            self.stopped = true;
            return false;
        }
        true
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _searcher: &Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, Self::Error> {
        if self.limit_reached() {
            return Ok(self.trailing(found));
        }
        if self.done(self.count, found.line_number().unwrap_or(0)) {
            return Ok(false);
        }
        let counted_before = self.count;
        let go_on = if self.keys.is_some() || self.multiline {
            self.matched_lines(found)
        } else {
            let line = found.line_number().unwrap_or(0);
            if self.in_window(self.count) {
                let bytes = found.bytes();
                let start = self.matcher.find(bytes).ok().flatten().map(|m| m.start());
                self.store_line(line, bytes, start, true);
                self.kept += 1;
                self.last_kept_line = line;
            }
            self.last_match_line = line;
            self.count_one()
        };
        if self.count > counted_before {
            self.events += 1;
            // Nothing follows the last match when no context does.
            if self.limit_reached() && self.after_context == 0 {
                return Ok(false);
            }
        }
        Ok(go_on)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        let line = context.line_number().unwrap_or(0);
        if self.past_last_context(line) {
            return Ok(false);
        }
        if self.keys.is_some() {
            // Passthru: every line that is not a match arrives here.
            if self.withheld(context.bytes()) || self.window.is_none() {
                return Ok(true);
            }
            if self.limit_reached() {
                self.keep_trailing(line, context.bytes(), false);
                return Ok(true);
            }
            if self.kept > 0 && line <= self.last_kept_line.saturating_add(self.after_context) {
                self.store_line(line, context.bytes(), None, false);
            } else if self.before_context > 0 {
                let (text, cut) = shown_text(context.bytes(), None, self.max_chars);
                if self.before.len() as u64 >= self.before_context {
                    self.before.pop_front();
                }
                self.before.push_back(StoredLine {
                    line,
                    text,
                    cut,
                    is_match: false,
                    counted: false,
                });
            }
            return Ok(true);
        }
        if self.limit_reached() {
            self.keep_trailing(line, context.bytes(), false);
        } else if self.context_wanted(line) {
            self.store_line(line, context.bytes(), None, false);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// `bytes` without its line terminator (`\n` or `\r\n`).
fn without_terminator(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// The text shown for one line: terminator removed, lossily decoded, cut to `max_chars`
/// characters (ellipses included). A line whose match lies beyond the head is shown as a window
/// around the match. Never splits a character.
pub(super) fn shown_text(
    bytes: &[u8],
    match_start: Option<usize>,
    max_chars: usize,
) -> (String, bool) {
    let mut end = bytes.len();
    if end > 0 && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > 0 && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    let bytes = &bytes[..end];
    let text = String::from_utf8_lossy(bytes);
    let total = text.chars().count();
    let max_chars = max_chars.max(8);
    if total <= max_chars {
        return (text.into_owned(), false);
    }
    let match_char = match_start
        .filter(|s| *s <= bytes.len())
        .map(|s| String::from_utf8_lossy(&bytes[..s]).chars().count())
        .unwrap_or(0);
    // Byte index of the `n`-th character (or the end).
    let at = |n: usize| text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    if match_char + MATCH_ROOM.min(max_chars / 2) < max_chars {
        let mut out = String::with_capacity(at(max_chars - 1) + 3);
        out.push_str(&text[..at(max_chars - 1)]);
        out.push('…');
        return (out, true);
    }
    // A window: about a third of the room before the match.
    let mut start = match_char.saturating_sub(max_chars / 3);
    let mut out = String::new();
    if start + (max_chars - 1) >= total {
        start = total - (max_chars - 1);
        out.push('…');
        out.push_str(&text[at(start)..]);
    } else {
        out.push('…');
        out.push_str(&text[at(start)..at(start + max_chars - 2)]);
        out.push('…');
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_whole() {
        assert_eq!(shown_text(b"abc\r\n", Some(0), 120), ("abc".into(), false));
    }

    #[test]
    fn long_line_with_early_match_shows_head() {
        let line = "x".repeat(300);
        let (text, cut) = shown_text(line.as_bytes(), Some(3), 120);
        assert!(cut);
        assert_eq!(text.chars().count(), 120);
        assert!(text.ends_with('…'));
    }

    #[test]
    fn late_match_shows_window_without_splitting_chars() {
        let mut line = "é".repeat(5000);
        line.push_str("NEEDLE");
        line.push_str(&"ü".repeat(5000));
        let start = line.find("NEEDLE").unwrap();
        let (text, cut) = shown_text(line.as_bytes(), Some(start), 120);
        assert!(cut);
        assert!(text.contains("NEEDLE"));
        assert!(text.starts_with('…') && text.ends_with('…'));
        assert!(text.chars().count() <= 120);
    }

    #[test]
    fn match_near_the_end_window_reaches_the_end() {
        let mut line = "a".repeat(1000);
        line.push_str("END");
        let (text, _) = shown_text(line.as_bytes(), Some(1000), 120);
        assert!(text.ends_with("END"));
        assert_eq!(text.chars().count(), 120);
    }
}
