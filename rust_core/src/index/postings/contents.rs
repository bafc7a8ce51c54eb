//! The contents the index file holds: the bytes of every indexed file up to [`MAX_HELD_BYTES`]
//! but those that may hold a private key (never copied; read from disk in key mode),
//! as the build read them, so that a search of a file the index vouches for (its identity
//! unchanged since) reads them from the mapped index file instead of opening the file: no
//! `open`, `fstat`, `read`, `close` and no copy out of the page cache, for the nine files in
//! ten of the Linux tree that are that small. Larger files are read from disk as before (their
//! own bytes dominate their cost; holding them would double the file).
//!
//! Layout: [`Kind::Content`], every held document's bytes one after another (checked lazily,
//! per 1 MiB block, like the posting lists), and [`Kind::ContentStarts`], where each document's
//! bytes start (u64, one more than the documents; a document holds none when its range is
//! empty: not indexed, too large, empty, or dead). A merge copies the base's live documents'
//! bytes and appends the new ones; dead documents keep an empty range.

use std::io::{Seek, Write};
use std::ops::Range;
use std::sync::Arc;

use crate::index::format::{BlockCheck, Invalid, Kind, Sections, Writer, le_u64};

use super::view::Backing;

/// Files up to this size (40 KiB) keep their bytes in the index file: on the Linux tree, 94% of
/// the files and 39% of the bytes, so that the index file (62% of the source) and the symbol
/// file (31%) together stay under the size of the source with some room (48 KiB made them 97%;
/// at 32 KiB, 34%, a broad search still read more than half of its candidates' bytes from
/// disk).
pub(crate) const MAX_HELD_BYTES: usize = 40 * 1024;

/// The bytes a build holds in one heap block at most (a document is never split).
const BLOCK_BYTES: usize = 8 << 20;

/// One build thread's held contents: for each of its documents, in order, where its bytes are
/// (block, start, length; length 0 for none).
#[derive(Default)]
pub(crate) struct HeldPart {
    blocks: Vec<Vec<u8>>,
    docs: Vec<(u32, u32, u32)>,
}

impl HeldPart {
    /// Holds `bytes` (the whole file) as the next document, or nothing when it is larger than
    /// [`MAX_HELD_BYTES`] or `None` (not indexed).
    pub(crate) fn push(&mut self, bytes: Option<&[u8]>) {
        let Some(bytes) = bytes.filter(|b| !b.is_empty() && b.len() <= MAX_HELD_BYTES) else {
            self.docs.push((0, 0, 0));
            return;
        };
        if self
            .blocks
            .last()
            .is_none_or(|b| b.len() + bytes.len() > BLOCK_BYTES)
        {
            self.blocks.push(Vec::with_capacity(BLOCK_BYTES));
        }
        let index = self.blocks.len() - 1;
        let block = &mut self.blocks[index];
        self.docs
            .push((index as u32, block.len() as u32, bytes.len() as u32));
        block.extend_from_slice(bytes);
    }

    fn get(&self, i: usize) -> &[u8] {
        match self.docs.get(i) {
            Some(&(block, start, len)) if len > 0 => {
                let (start, len) = (start as usize, len as usize);
                self.blocks
                    .get(block as usize)
                    .and_then(|b| b.get(start..start + len))
                    .unwrap_or_default()
            }
            _ => &[],
        }
    }
}

/// The contents a build read, per thread part, each part with the first document it holds.
#[derive(Default)]
pub(crate) struct Held {
    parts: Vec<(usize, HeldPart)>,
}

impl Held {
    pub(crate) fn new(parts: Vec<(usize, HeldPart)>) -> Held {
        Held { parts }
    }

    /// The bytes held for the build's `doc`-th document (empty: none).
    fn get(&self, doc: usize) -> &[u8] {
        let at = self.parts.partition_point(|(first, _)| *first <= doc);
        match at.checked_sub(1).and_then(|at| self.parts.get(at)) {
            Some((first, part)) => part.get(doc - first),
            None => &[],
        }
    }
}

/// The contents section of an index file, read in place.
pub(crate) struct Contents {
    bytes: Arc<Backing>,
    data: Range<usize>,
    starts: Range<usize>,
    check: BlockCheck,
    /// Documents holding contents.
    held: usize,
}

impl Default for Contents {
    fn default() -> Contents {
        Contents {
            bytes: Arc::new(Backing::Heap(Vec::new())),
            data: 0..0,
            starts: 0..0,
            check: BlockCheck::default(),
            held: 0,
        }
    }
}

impl Contents {
    /// The contents of a checked file describing `documents` documents, if their shape agrees.
    pub(crate) fn open(
        bytes: Arc<Backing>,
        sections: &Sections,
        documents: usize,
    ) -> Result<Contents, Invalid> {
        let mut contents = Contents {
            data: sections.span(Kind::Content),
            starts: sections.span(Kind::ContentStarts),
            check: BlockCheck::new(sections, Kind::Content),
            bytes,
            held: 0,
        };
        if contents.starts.len() != (documents + 1) * 8 {
            return Err(Invalid("contents and documents disagree"));
        }
        let mut previous = 0;
        for doc in 0..=documents {
            let start = contents.start(doc);
            if start < previous || (doc == 0 && start != 0) {
                return Err(Invalid("contents out of order"));
            }
            contents.held += usize::from(doc > 0 && start > previous);
            previous = start;
        }
        if previous != contents.data.len() as u64 {
            return Err(Invalid("contents and their bytes disagree"));
        }
        Ok(contents)
    }

    fn start(&self, doc: usize) -> u64 {
        le_u64(&self.bytes, self.starts.start + doc * 8)
    }

    /// Where `doc`'s bytes lie in the contents section (empty: none held).
    fn range(&self, doc: u32) -> Range<usize> {
        let doc = doc as usize;
        if (doc + 2) * 8 > self.starts.len() {
            return 0..0;
        }
        let (start, end) = (self.start(doc), self.start(doc + 1));
        if start >= end || end > self.data.len() as u64 {
            return 0..0;
        }
        start as usize..end as usize
    }

    /// How many bytes `doc` holds (0: none), without reading them.
    pub(crate) fn len(&self, doc: u32) -> u64 {
        self.range(doc).len() as u64
    }

    /// The bytes of `doc` as the build read them, when it holds them and their blocks pass
    /// their checksums (a failed block marks the file damaged: see [`Contents::damaged`]).
    pub(crate) fn get(&self, doc: u32) -> Option<&[u8]> {
        let range = self.range(doc);
        if range.is_empty() || !self.check.intact(&self.bytes, range.clone()) {
            return None;
        }
        self.bytes
            .get(self.data.start + range.start..self.data.start + range.end)
    }

    /// A block of the contents failed its check: the file is damaged.
    pub(crate) fn damaged(&self) -> bool {
        self.check.damaged()
    }

    /// The size of the contents section.
    pub(crate) fn bytes_len(&self) -> u64 {
        self.data.len() as u64
    }

    /// Documents holding contents (live or dead).
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}

/// Writes the contents sections: those of `base`'s first `base_docs` documents for which
/// `live` holds, then those of `new`'s `new_docs` documents (numbered from `base_docs`) for
/// which it holds; every other document holds none.
pub(crate) fn write_contents<W: Write + Seek>(
    w: &mut Writer<W>,
    (base, base_docs): (&Contents, usize),
    (new, new_docs): (&Held, usize),
    live: &dyn Fn(usize) -> bool,
) -> std::io::Result<()> {
    let mut starts = Vec::with_capacity(base_docs + new_docs + 1);
    let mut at = 0u64;
    starts.push(at);
    w.begin(Kind::Content)?;
    for doc in 0..base_docs {
        if live(doc) && base.len(doc as u32) > 0 {
            let bytes = base
                .get(doc as u32)
                .ok_or_else(|| std::io::Error::other("a damaged block in the base"))?;
            w.write(bytes)?;
            at += bytes.len() as u64;
        }
        starts.push(at);
    }
    for j in 0..new_docs {
        if live(base_docs + j) {
            let bytes = new.get(j);
            w.write(bytes)?;
            at += bytes.len() as u64;
        }
        starts.push(at);
    }
    w.end()?;
    w.begin(Kind::ContentStarts)?;
    w.u64s(&starts)?;
    w.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_parts_keep_small_documents_in_order() {
        let mut a = HeldPart::default();
        a.push(Some(b"one"));
        a.push(None);
        a.push(Some(&vec![b'x'; MAX_HELD_BYTES + 1]));
        a.push(Some(b""));
        let mut b = HeldPart::default();
        let big = vec![b'y'; MAX_HELD_BYTES];
        for _ in 0..(2 * BLOCK_BYTES / MAX_HELD_BYTES + 1) {
            b.push(Some(&big));
        }
        b.push(Some(b"last"));
        assert!(
            b.blocks.len() >= 3,
            "documents spread over blocks, never split"
        );
        let held = Held::new(vec![(0, a), (4, b)]);
        assert_eq!(held.get(0), b"one");
        assert_eq!(held.get(1), b"");
        assert_eq!(held.get(2), b"", "too large");
        assert_eq!(held.get(3), b"");
        assert_eq!(held.get(4), &big[..]);
        let last = 4 + 2 * BLOCK_BYTES / MAX_HELD_BYTES + 1;
        assert_eq!(held.get(last), b"last");
        assert_eq!(held.get(last + 1), b"", "past the end");
    }
}
