//! Private-key blocks inside any file: a PEM `-----BEGIN … PRIVATE KEY-----` line through its
//! `-----END … PRIVATE KEY-----` line (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … variants; the
//! label only has to hold `PRIVATE KEY`). `grep` and `read_file` withhold these lines (SPEC
//! §2.5): a block with no END line runs to the end of the file. Detection is line-based, so a
//! key written on one line (a JSON string with `\n` escapes) is one withheld line.
//!
//! Hand-written because no crate finds PEM armour in a stream of arbitrary text: the `pem`
//! crates parse whole, well-formed documents and reject the text around them.

use std::sync::LazyLock;

use memchr::memmem;

/// The bytes every key marker holds; a file without them has no key block (the cheap check).
pub(crate) const KEY_MARKER: &[u8] = b"PRIVATE KEY";

/// Longest label part on either side of `PRIVATE KEY` that still makes a marker.
const MAX_LABEL: usize = 32;
const BEGIN: &[u8] = b"-----BEGIN ";
const END: &[u8] = b"-----END ";
const DASHES: &[u8] = b"-----";

/// Bytes around a `PRIVATE KEY` occurrence that decide whether it is a marker.
const BEFORE: usize = BEGIN.len() + MAX_LABEL;
const AFTER: usize = KEY_MARKER.len() + MAX_LABEL + DASHES.len();

/// A BEGIN or an END marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Marker {
    Begin,
    End,
}

/// The searcher for [`KEY_MARKER`], built once: every file grep reads is scanned for it, and
/// `memmem::find` would build a new one (its prefilter included) for each.
static KEY_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(KEY_MARKER));

/// True when `bytes` may hold a key marker (they hold `PRIVATE KEY`).
pub(crate) fn may_hold_key(bytes: &[u8]) -> bool {
    KEY_FINDER.find(bytes).is_some()
}

fn label_byte(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' '
}

/// The marker whose `PRIVATE KEY` starts at `at` in `bytes`, if it is one: `-----BEGIN ` or
/// `-----END `, label bytes (`A-Z`, `0-9`, space), `PRIVATE KEY`, label bytes, `-----`.
fn marker_at(bytes: &[u8], at: usize) -> Option<Marker> {
    let head = &bytes[at.saturating_sub(BEFORE)..at];
    let begin = memmem::rfind(head, BEGIN).map(|i| (i + BEGIN.len(), Marker::Begin));
    let end = memmem::rfind(head, END).map(|i| (i + END.len(), Marker::End));
    let (label_start, kind) = begin.max(end)?;
    if !head[label_start..].iter().all(|b| label_byte(*b)) {
        return None;
    }
    let tail_start = at + KEY_MARKER.len();
    let tail = &bytes[tail_start..(tail_start + MAX_LABEL + DASHES.len()).min(bytes.len())];
    let trail = tail.iter().take_while(|b| label_byte(**b)).count();
    tail[trail..].starts_with(DASHES).then_some(kind)
}

/// The key markers in `bytes`, in order, with the offset of their `PRIVATE KEY`.
pub(crate) fn markers(bytes: &[u8]) -> impl Iterator<Item = (usize, Marker)> + '_ {
    KEY_FINDER
        .find_iter(bytes)
        .filter_map(|at| marker_at(bytes, at).map(|m| (at, m)))
}

/// Line-by-line tracking for a reader that sees every line once, in order (grep's sink).
#[derive(Debug, Default)]
pub(crate) struct LineBlocks {
    inside: bool,
    /// Blocks met (a BEGIN outside a block).
    pub(crate) blocks: u64,
    /// Lines withheld: from each BEGIN line through its END line.
    pub(crate) lines: u64,
}

impl LineBlocks {
    /// Takes the next line of the file; true when it is withheld (part of a key block).
    pub(crate) fn withheld(&mut self, line: &[u8]) -> bool {
        let mut withheld = self.inside;
        if may_hold_key(line) {
            for (_, marker) in markers(line) {
                match (self.inside, marker) {
                    (false, Marker::Begin) => {
                        self.inside = true;
                        self.blocks += 1;
                        withheld = true;
                    }
                    (true, Marker::End) => self.inside = false,
                    _ => {}
                }
            }
        }
        self.lines += u64::from(withheld);
        withheld
    }
}

/// Key blocks of a stream fed in chunks of any size (read_file's reader), as inclusive ranges
/// of 1-based line numbers; lines end at `terminator`.
#[derive(Debug)]
pub(crate) struct StreamBlocks {
    /// The last bytes fed (enough to decide a marker split across chunks).
    tail: Vec<u8>,
    /// Line number at the start of `tail`.
    tail_line: u64,
    /// `PRIVATE KEY` occurrences at `tail` offsets below this are decided.
    decided: usize,
    open: Option<u64>,
    /// Closed blocks, inclusive line ranges, in order.
    blocks: Vec<(u64, u64)>,
    scratch: Vec<u8>,
}

impl Default for StreamBlocks {
    fn default() -> Self {
        StreamBlocks {
            tail: Vec::new(),
            tail_line: 1,
            decided: 0,
            open: None,
            blocks: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl StreamBlocks {
    /// Takes the next chunk of the stream.
    pub(crate) fn feed(&mut self, chunk: &[u8], terminator: u8) {
        self.scan(chunk, terminator, false);
    }

    /// The stream ended: decides what the last bytes hold.
    pub(crate) fn finish(&mut self, terminator: u8) {
        self.scan(&[], terminator, true);
    }

    fn scan(&mut self, chunk: &[u8], terminator: u8, end: bool) {
        const KEEP: usize = BEFORE + AFTER;
        let undecided = &self.tail[self.decided.min(self.tail.len())..];
        let quick = !end && chunk.len() >= KEEP && !may_hold_key(chunk) && {
            // An occurrence still undecided in the tail, or split between tail and chunk.
            self.scratch.clear();
            self.scratch.extend_from_slice(undecided);
            self.scratch.extend_from_slice(&chunk[..KEY_MARKER.len()]);
            !may_hold_key(&self.scratch)
        };
        if quick {
            // Nothing to decide: count lines and keep the chunk's end as the tail.
            let keep_from = chunk.len() - KEEP;
            self.tail_line +=
                count(&self.tail, terminator) + count(&chunk[..keep_from], terminator);
            self.tail.clear();
            self.tail.extend_from_slice(&chunk[keep_from..]);
            self.decided = 0;
            return;
        }
        let mut data = std::mem::take(&mut self.scratch);
        data.clear();
        data.extend_from_slice(&self.tail);
        data.extend_from_slice(chunk);
        for at in memmem::find_iter(&data, KEY_MARKER) {
            if at < self.decided {
                continue;
            }
            if !end && at + AFTER > data.len() {
                break;
            }
            self.decided = at + 1;
            let Some(marker) = marker_at(&data, at) else {
                continue;
            };
            let line = self.tail_line + count(&data[..at], terminator);
            match (self.open, marker) {
                (None, Marker::Begin) => self.open = Some(line),
                (Some(first), Marker::End) => {
                    self.blocks.push((first, line));
                    self.open = None;
                }
                _ => {}
            }
        }
        // An undecided occurrence lies in the last AFTER bytes: keep the bytes before it too.
        let keep_from = data.len().saturating_sub(KEEP);
        self.tail_line += count(&data[..keep_from], terminator);
        self.tail.clear();
        self.tail.extend_from_slice(&data[keep_from..]);
        self.decided = self.decided.saturating_sub(keep_from);
        self.scratch = data;
    }

    /// Whether line `number` lies in a key block (after [`StreamBlocks::finish`], or for lines
    /// up to where the stream was read: an unclosed block runs on).
    pub(crate) fn covers(&self, number: u64) -> bool {
        self.open.is_some_and(|first| number >= first)
            || self
                .blocks
                .iter()
                .any(|(first, last)| number >= *first && number <= *last)
    }
}

impl StreamBlocks {
    /// Blocks that hold at least one of the lines `first ..= last`.
    pub(crate) fn within(&self, first: u64, last: u64) -> u64 {
        let closed = self
            .blocks
            .iter()
            .filter(|(from, to)| *from <= last && *to >= first)
            .count() as u64;
        closed + u64::from(self.open.is_some_and(|from| from <= last))
    }
}

fn count(bytes: &[u8], terminator: u8) -> u64 {
    bytecount::count(bytes, terminator) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\n";

    #[test]
    fn markers_of_every_variant() {
        for label in [
            "PRIVATE KEY",
            "RSA PRIVATE KEY",
            "EC PRIVATE KEY",
            "DSA PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        ] {
            let begin = format!("  key = \"-----BEGIN {label}-----\"");
            let end = format!("-----END {label}-----");
            assert_eq!(
                markers(begin.as_bytes()).map(|m| m.1).collect::<Vec<_>>(),
                [Marker::Begin],
                "{label}"
            );
            assert_eq!(
                markers(end.as_bytes()).map(|m| m.1).collect::<Vec<_>>(),
                [Marker::End],
                "{label}"
            );
        }
        for not in [
            "-----BEGIN PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----",
            "the PRIVATE KEY is elsewhere",
            "-----BEGIN PRIVATE KEY",
            "-----BEGIN private key-----",
            "BEGIN RSA PRIVATE KEY-----",
        ] {
            assert_eq!(markers(not.as_bytes()).count(), 0, "{not}");
        }
    }

    #[test]
    fn lines_of_a_block_are_withheld() {
        let text = format!("before\n{KEY}after\n");
        let mut blocks = LineBlocks::default();
        let withheld: Vec<bool> = text
            .split_inclusive('\n')
            .map(|l| blocks.withheld(l.as_bytes()))
            .collect();
        assert_eq!(withheld, [false, true, true, true, true, false]);
        assert_eq!((blocks.blocks, blocks.lines), (1, 4));
        // One line holding the whole key (a JSON string).
        let mut blocks = LineBlocks::default();
        let json = br#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", "x": 1}"#;
        assert!(blocks.withheld(json));
        assert!(!blocks.withheld(b"next\n"));
    }

    fn stream_covers(text: &[u8], chunk: usize) -> Vec<u64> {
        let mut blocks = StreamBlocks::default();
        for piece in text.chunks(chunk) {
            blocks.feed(piece, b'\n');
        }
        blocks.finish(b'\n');
        let lines = text.split(|b| *b == b'\n').count() as u64;
        (1..=lines).filter(|n| blocks.covers(*n)).collect()
    }

    #[test]
    fn stream_blocks_agree_with_lines_whatever_the_chunking() {
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!("line {i} with some words\n"));
            if i % 50 == 7 {
                text.push_str(KEY);
            }
        }
        text.push_str("tail\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\ncut");
        let mut expected = Vec::new();
        let mut blocks = LineBlocks::default();
        for (i, line) in text.split('\n').enumerate() {
            if blocks.withheld(line.as_bytes()) {
                expected.push(i as u64 + 1);
            }
        }
        assert_eq!(blocks.blocks, 5);
        for chunk in [1, 2, 3, 7, 11, 13, 64, 65, 100, 4096, 1 << 20] {
            assert_eq!(
                stream_covers(text.as_bytes(), chunk),
                expected,
                "chunk {chunk}"
            );
        }
    }
}
