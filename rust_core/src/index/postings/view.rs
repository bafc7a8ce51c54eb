//! The index as queries read it: the posting sections of an index file (mapped, or in memory
//! when it is kept nowhere else), read in place. Every array is checked for its shape when the
//! view is made (sorted keys, offsets within the lists' bytes, documents in order) and every
//! access is bounds-checked, so a file that passed its checksums but is inconsistent gives
//! empty or wrong lists, never a panic; the lists' bytes are checked block by block as they are
//! first read ([`BlockCheck`]).

use std::ops::Range;
use std::sync::Arc;

use crate::index::format::{BlockCheck, Invalid, Kind, Sections, le_u32, le_u64, partition_point};

/// What an index file's bytes live in.
pub(crate) enum Backing {
    /// A mapped file (see `index::memory`).
    Map(crate::index::memory::Mapped),
    /// Bytes on the heap (tests, and platforms without an anonymous file to map).
    Heap(Vec<u8>),
}

impl Backing {
    /// Whether every byte can still be read: false once a mapped file was found truncated
    /// under the map (see `index::memory`), which must then not be read again.
    pub(crate) fn intact(&self) -> bool {
        match self {
            Backing::Map(map) => map.intact(),
            Backing::Heap(_) => true,
        }
    }
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Map(map) => map,
            Backing::Heap(bytes) => bytes,
        }
    }
}

/// The posting lists of an index file.
pub(crate) struct Postings {
    bytes: Arc<Backing>,
    keys: Range<usize>,
    counts: Range<usize>,
    offsets: Range<usize>,
    lasts: Range<usize>,
    bare: Range<usize>,
    documents: Range<usize>,
    section_starts: Range<usize>,
    data: Range<usize>,
    skips: Range<usize>,
    skip_starts: Range<usize>,
    check: BlockCheck,
}

impl Default for Postings {
    fn default() -> Postings {
        Postings {
            bytes: Arc::new(Backing::Heap(Vec::new())),
            keys: 0..0,
            counts: 0..0,
            offsets: 0..0,
            lasts: 0..0,
            bare: 0..0,
            documents: 0..0,
            section_starts: 0..0,
            data: 0..0,
            skips: 0..0,
            skip_starts: 0..0,
            check: BlockCheck::default(),
        }
    }
}

impl Postings {
    /// The posting sections of a checked file, if their shapes agree; `documents` is the number
    /// of documents the file describes (every section must name one of them).
    pub(crate) fn open(
        bytes: Arc<Backing>,
        sections: &Sections,
        documents: usize,
    ) -> Result<Postings, Invalid> {
        let postings = Postings {
            keys: sections.span(Kind::Keys),
            counts: sections.span(Kind::Counts),
            offsets: sections.span(Kind::Offsets),
            lasts: sections.span(Kind::Lasts),
            bare: sections.span(Kind::Bare),
            documents: sections.span(Kind::Documents),
            section_starts: sections.span(Kind::SectionStarts),
            data: sections.span(Kind::Data),
            skips: sections.span(Kind::Skips),
            skip_starts: sections.span(Kind::SkipStarts),
            check: BlockCheck::new(sections, Kind::Data),
            bytes,
        };
        let n = postings.keys_len();
        let shaped = postings.keys.len().is_multiple_of(4)
            && postings.counts.len() == n * 4
            && postings.lasts.len() == n * 4
            && postings.offsets.len() == (n + 1) * 8
            && postings.bare.len().is_multiple_of(4)
            && postings.documents.len().is_multiple_of(4)
            && postings.section_starts.len() == postings.documents.len()
            && postings.skips.len().is_multiple_of(8)
            && postings.skip_starts.len() == (n + 1) * 4;
        if !shaped {
            return Err(Invalid("posting arrays of different lengths"));
        }
        let sections_len = postings.sections_len() as u64;
        let mut previous_offset = 0;
        for i in 0..n {
            if i > 0 && postings.key(i - 1) >= postings.key(i) {
                return Err(Invalid("keys out of order"));
            }
            let offset = postings.offset(i);
            if offset < previous_offset || u64::from(postings.last(i)) >= sections_len {
                return Err(Invalid("lists out of order"));
            }
            previous_offset = offset;
        }
        if postings.offset(0) != 0 || postings.offset(n) != postings.data.len() as u64 {
            return Err(Invalid("lists and their bytes disagree"));
        }
        if postings.offset(n) < previous_offset {
            return Err(Invalid("lists out of order"));
        }
        let mut previous = 0;
        for s in 0..postings.sections_len() {
            let doc = postings.word(&postings.documents, s);
            if doc < previous || doc as usize >= documents {
                return Err(Invalid("sections out of order"));
            }
            // A document's first section starts its file, each later one after the one before.
            let start = postings.word(&postings.section_starts, s);
            let first = s == 0 || doc != previous;
            if (first && start != 0)
                || (!first && start <= postings.word(&postings.section_starts, s - 1))
            {
                return Err(Invalid("sections out of order"));
            }
            previous = doc;
        }
        // Each key's skip points lie within its list, in order of section and offset.
        let points = postings.skips.len() / 8;
        let mut previous_start = 0;
        for i in 0..=n {
            let start = postings.word(&postings.skip_starts, i) as usize;
            if start < previous_start || start > points || (i == n && start != points) {
                return Err(Invalid("skip points out of order"));
            }
            previous_start = start;
        }
        for i in 0..n {
            let list = postings.list(i).len() as u32;
            let mut previous: Option<(u32, u32)> = None;
            for (before, at) in postings.points(i) {
                if at >= list
                    || u64::from(before) >= sections_len
                    || previous.is_some_and(|(b, a)| b >= before || a >= at)
                {
                    return Err(Invalid("skip points out of order"));
                }
                previous = Some((before, at));
            }
        }
        let bare_len = postings.bare.len() / 4;
        for b in 0..bare_len {
            let index = postings.word(&postings.bare, b);
            if index as usize >= n || (b > 0 && postings.word(&postings.bare, b - 1) >= index) {
                return Err(Invalid("bare lists out of order"));
            }
        }
        Ok(postings)
    }

    fn word(&self, span: &Range<usize>, i: usize) -> u32 {
        le_u32(&self.bytes, span.start + i * 4)
    }

    pub(crate) fn keys_len(&self) -> usize {
        self.keys.len() / 4
    }

    pub(crate) fn key(&self, i: usize) -> u32 {
        self.word(&self.keys, i)
    }

    /// Sections holding the `i`-th key.
    pub(crate) fn count_at(&self, i: usize) -> u32 {
        self.word(&self.counts, i)
    }

    /// The last section of the `i`-th key's list.
    pub(crate) fn last(&self, i: usize) -> u32 {
        self.word(&self.lasts, i)
    }

    pub(crate) fn offset(&self, i: usize) -> u64 {
        le_u64(&self.bytes, self.offsets.start + i * 8)
    }

    /// Where the `i`-th key's list lies in [`Postings::data`].
    pub(crate) fn list(&self, i: usize) -> Range<usize> {
        let end = self.data.len();
        (self.offset(i) as usize).min(end)..(self.offset(i + 1) as usize).min(end)
    }

    /// The skip points of the `i`-th key's list: the section of the entry before each, and
    /// its offset in the list.
    pub(crate) fn points(&self, i: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.point_range(i);
        range.map(|k| self.point(k))
    }

    /// The indices of the `i`-th key's skip points (for [`Postings::point`]).
    pub(crate) fn point_range(&self, i: usize) -> Range<usize> {
        let points = self.skips.len() / 8;
        let start = (self.word(&self.skip_starts, i) as usize).min(points);
        let end = (self.word(&self.skip_starts, i + 1) as usize).clamp(start, points);
        start..end
    }

    /// The `k`-th skip point: the section before it, and its offset in its list.
    pub(crate) fn point(&self, k: usize) -> (u32, u32) {
        (
            self.word(&self.skips, 2 * k),
            self.word(&self.skips, 2 * k + 1),
        )
    }

    /// Whether the `i`-th key's list keeps no follow masks.
    pub(crate) fn is_bare(&self, i: usize) -> bool {
        let (len, i) = (self.bare.len() / 4, i as u32);
        let at = partition_point(len, |k| self.word(&self.bare, k) < i);
        at < len && self.word(&self.bare, at) == i
    }

    /// The lists' bytes.
    pub(crate) fn data(&self) -> &[u8] {
        &self.bytes[self.data.clone()]
    }

    /// The lists' bytes in `range` of [`Postings::data`], when their blocks are intact.
    pub(crate) fn checked(&self, range: Range<usize>) -> Option<&[u8]> {
        self.check
            .intact(&self.bytes, range.clone())
            .then(|| self.data().get(range))
            .flatten()
    }

    /// A block of the lists failed its check: answers from this index cannot be trusted.
    pub(crate) fn damaged(&self) -> bool {
        self.check.damaged()
    }

    /// Whether the file under the lists still holds every mapped byte (one `fstat`, see
    /// [`Backing::intact`]): asked before a call reads them.
    pub(crate) fn intact(&self) -> bool {
        self.bytes.intact()
    }

    /// Sections in the index.
    pub(crate) fn sections_len(&self) -> usize {
        self.documents.len() / 4
    }

    /// The document of `section`.
    pub(crate) fn document(&self, section: u32) -> Option<u32> {
        ((section as usize) < self.sections_len())
            .then(|| self.word(&self.documents, section as usize))
    }

    /// Where `section` starts in its file, and where the next section of the same file starts
    /// (`None`: it ends the file).
    pub(crate) fn section_span(&self, section: u32) -> Option<(u64, Option<u64>)> {
        let doc = self.document(section)?;
        let start = self.word(&self.section_starts, section as usize);
        let next = section + 1;
        let end = (self.document(next) == Some(doc))
            .then(|| u64::from(self.word(&self.section_starts, next as usize)));
        Some((u64::from(start), end))
    }

    /// The raw bytes of the section starts array (for appending to it).
    pub(crate) fn section_starts_bytes(&self) -> &[u8] {
        &self.bytes[self.section_starts.clone()]
    }

    /// The raw bytes of the documents array (for appending to it).
    pub(crate) fn documents_bytes(&self) -> &[u8] {
        &self.bytes[self.documents.clone()]
    }

    /// The place of `key` among the sorted keys.
    pub(crate) fn find(&self, key: u32) -> Option<usize> {
        let len = self.keys_len();
        let at = partition_point(len, |k| self.key(k) < key);
        (at < len && self.key(at) == key).then_some(at)
    }
}
