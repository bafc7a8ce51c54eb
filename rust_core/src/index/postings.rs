//! The n-gram index of file contents: for every trigram of ASCII-lowercased bytes, the sorted
//! list of the sections of files holding it, delta- and varint-encoded in one byte vector. Each
//! entry also carries
//! - a mask of what follows the trigram there (hashed bits of the next byte and of the next
//!   two, in the spirit of Cursor's "3.5-gram" index): a query for `cassini` asks for `cas`
//!   followed by `s` and `si`, `ass` followed by `i` and `in`, and so on, which narrows almost as
//!   much as four- and five-grams. One byte, or two where one would be nearly full
//!   ([`WIDE_FROM_BITS`]); none in the lists of trigrams found in half the sections or more
//!   ([`BARE_FROM_PERCENT`]);
//! - two case bits, kept in the low bits of the delta: whether the trigram occurs there with its
//!   letters all lowercase, all uppercase (see [`case_bits`]). Keys over lowercased bytes let a
//!   case-insensitive query narrow as well as an exact one; the bits let `PM_RESUME` pass over
//!   the files that only say `pm_resume`.
//!
//! The entries are sections rather than files: a file is cut after the first line end at or
//! past every [`SECTION_BYTES`] bytes, and each section holds the trigrams that start in it
//! (their follow masks still see the bytes after the section's end). Most files are one section.
//! A large file is several, so its masks do not fill up, and a query whose matches lie within
//! one line (every search but a multiline one) asks for all its trigrams in one section: in the
//! Linux tree, a literal made of two common words used to select every multi-megabyte register
//! header holding both; now it selects none of them.
//!
//! The lists are built per thread over contiguous, path-ordered file ranges and concatenated,
//! so no merge sort is needed. Lookups binary-search the sorted trigram keys.

use std::io::Read;

use crate::grep::{BOMS, MAX_FILE_BYTES, MAX_LINE_BYTES};
use crate::limits::MAX_CONTEXT;

/// The bits of the follow mask that a trigram followed by `next` and then `after` sets: one of
/// the low eight bits for `next` and one of the high eight for the pair (`next`, `after`). A
/// query wanting those bytes after the trigram asks for the same bits.
///
/// Most entries store the mask folded to one byte ([`narrow`]: four bits for the next byte,
/// four for the pair; measured against eight bits of either alone in benches/README.md); an
/// entry whose folded mask is nearly full keeps all sixteen bits (see [`WIDE_FROM_BITS`]).
pub(crate) fn follow_bits(next: Option<u8>, after: Option<u8>) -> u16 {
    let Some(next) = next else {
        return 0;
    };
    let h1 = u32::from(lower(next)).wrapping_mul(0x9e37_79b9);
    let single = 1u16 << (h1 >> 29);
    match after {
        None => single,
        Some(after) => {
            let h2 = (h1 ^ u32::from(lower(after))).wrapping_mul(0x85eb_ca6b);
            single | (0x100 << (h2 >> 29))
        }
    }
}

/// A sixteen-bit follow mask folded to eight: bits 2i and 2i + 1 of each byte become bit i of
/// its nibble (the bucket of the top two hash bits instead of three). Folding keeps every bit a
/// place sets, so a folded entry passes every folded query the full one passes.
pub(crate) fn narrow(mask: u16) -> u8 {
    let fold = |byte: u16| {
        let pairs = (byte | (byte >> 1)) & 0x55;
        (pairs & 1) | ((pairs >> 1) & 2) | ((pairs >> 2) & 4) | ((pairs >> 3) & 8)
    };
    (fold(mask & 0xff) | (fold(mask >> 8) << 4)) as u8
}

/// An entry whose folded follow mask has at least this many of its eight bits set stores the
/// full sixteen: a trigram followed by many different bytes in one section (`pm_` in a file of
/// `pm_runtime`, `pm_ops` and `pm_qos`) would otherwise pass almost every query. (On the Linux
/// tree: `pm_resume` 739 candidate files with one-byte masks, 510 with this; 4 gives 482 for
/// 1.1% more of the bytes, past the memory budget's margin.)
pub(crate) const WIDE_FROM_BITS: u32 = 5;

/// The list of a trigram found in at least this percentage of all sections keeps no follow
/// masks (its entries are the varints alone). Such trigrams (`int`, `ret`, ` = `) are followed
/// by nearly everything, so their masks remove few candidates, yet their lists are the longest.
/// On the Linux tree, at 50%: the index shrinks from 23.1% of the bytes to 21.7%, candidates
/// barely change (`pm_resume` 510 -> 523, `of_match` 4,736 -> 4,748, others equal) and queries
/// get faster (less to decode); at 25% `cassini` selects 7,615 files instead of 12.
pub(crate) const BARE_FROM_PERCENT: u64 = 50;

/// A trigram's letters are all lowercase at some place where it occurs.
pub(crate) const LOWER: u8 = 1;
/// A trigram's letters are all uppercase at some place where it occurs.
pub(crate) const UPPER: u8 = 2;

/// The case bits three bytes set where they occur: [`LOWER`] or [`UPPER`] when their ASCII
/// letters are all of one case, both when they hold no letter, none when the case is mixed. A
/// case-sensitive query asks for the bit of its trigram's case (see `plan`), so `PM_RESUME`
/// does not select the files that only hold `pm_resume`.
pub(crate) fn case_bits(a: u8, b: u8, c: u8) -> u8 {
    let has_lower = a.is_ascii_lowercase() || b.is_ascii_lowercase() || c.is_ascii_lowercase();
    let has_upper = a.is_ascii_uppercase() || b.is_ascii_uppercase() || c.is_ascii_uppercase();
    (u8::from(!has_upper) * LOWER) | (u8::from(!has_lower) * UPPER)
}

/// ASCII lowercasing of one byte (other bytes unchanged).
pub(crate) const fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// The 24-bit key of three (lowercased) bytes.
pub(crate) fn trigram(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(lower(a)) << 16) | (u32::from(lower(b)) << 8) | u32::from(lower(c))
}

/// Files larger than this are not indexed: they are searched on every query. Below the cold
/// search's `too_large` cap, so a file the index proves match-free is one the cold search reads.
pub(crate) const MAX_INDEXED_BYTES: u64 = if MAX_FILE_BYTES < 64 * 1024 * 1024 {
    MAX_FILE_BYTES
} else {
    64 * 1024 * 1024
};

/// A file with a line longer than this is not indexed. A search holds at most the line and
/// `MAX_CONTEXT` context lines on each side, so with lines this short it stays under half the
/// searcher's `MAX_LINE_BYTES` heap limit: a file the index proves match-free is one the cold
/// search would read to its end, never pass over as `line_too_long`. (A file over
/// `MAX_LINE_BYTES` is `too_large` for a multiline search; the query side searches those.)
pub(crate) const MAX_INDEXED_LINE_BYTES: usize = MAX_LINE_BYTES / 2 / (2 * MAX_CONTEXT + 1);

/// A file is cut into sections after the first line end at or past every this many bytes
/// (measured against 16 KiB and 256 KiB in benches/README.md).
pub(crate) const SECTION_BYTES: usize = 64 * 1024;

/// The sections of `content`: ranges ending after a line end (or at the end).
fn sections(content: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < content.len() {
        let end = match content.get(start + SECTION_BYTES..) {
            Some(rest) => {
                memchr::memchr(b'\n', rest).map_or(content.len(), |i| start + SECTION_BYTES + i + 1)
            }
            None => content.len(),
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// The length of the longest line of `content`, terminator included.
fn longest_line(content: &[u8]) -> usize {
    let mut longest = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', content) {
        longest = longest.max(end + 1 - start);
        start = end + 1;
    }
    longest.max(content.len() - start)
}

/// What the places of a trigram in one section tell: their follow mask (low sixteen bits) and
/// case bits.
type Tag = u32;

/// Appends one list entry: a varint of the section's distance from the previous one, shifted
/// to make room for a bit saying the mask is wide and the two case bits; then the follow mask,
/// folded to one byte or whole in two.
fn put_entry(out: &mut Vec<u8>, delta: u32, tag: Tag) {
    let mask = tag as u16;
    let folded = narrow(mask);
    let wide = folded.count_ones() >= WIDE_FROM_BITS;
    put_varint(
        out,
        (u64::from(delta) << 3) | (u64::from(wide) << 2) | u64::from(tag >> 16),
    );
    if wide {
        out.extend_from_slice(&mask.to_le_bytes());
    } else {
        out.push(folded);
    }
}

/// Appends one entry of a list that keeps no follow masks: the varint alone.
fn put_bare_entry(out: &mut Vec<u8>, delta: u32, tag: Tag) {
    put_varint(out, (u64::from(delta) << 3) | u64::from(tag >> 16));
}

/// Appends the entries of `encoded` (as [`put_entry`] wrote them) without their masks.
fn rewrite_bare(out: &mut Vec<u8>, encoded: &[u8]) {
    let mut at = 0;
    while at < encoded.len() {
        let value = get_varint(encoded, &mut at);
        at += if value & 4 == 0 { 1 } else { 2 };
        put_varint(out, value & !4);
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    while let Some(&byte) = data.get(*at) {
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 || shift > 56 {
            break;
        }
        shift += 7;
    }
    value
}

/// A trigram as a query asks for it: its key, and the follow and case bits some place of it
/// must have set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Gram {
    pub(crate) key: u32,
    pub(crate) follow: u16,
    pub(crate) case: u8,
}

/// One trigram's list inside one thread's build.
struct PartialList {
    first: u32,
    first_tag: Tag,
    last: u32,
    count: u32,
    /// Entries after `first`, encoded (see [`put_entry`]).
    rest: Vec<u8>,
}

/// Two-level table from a 24-bit trigram to its list: 65,536 lazily allocated blocks of 256
/// slots, so a thread's build costs memory only for the trigrams it meets.
struct Lists {
    blocks: Vec<Option<Box<[u32; 256]>>>,
    lists: Vec<PartialList>,
    keys: Vec<u32>,
}

impl Lists {
    fn new() -> Lists {
        Lists {
            blocks: (0..1 << 16).map(|_| None).collect(),
            lists: Vec::new(),
            keys: Vec::new(),
        }
    }

    fn push(&mut self, key: u32, section: u32, tag: Tag) {
        let block = self.blocks[(key >> 8) as usize].get_or_insert_with(|| Box::new([0; 256]));
        let slot = &mut block[(key & 0xff) as usize];
        if *slot == 0 {
            self.lists.push(PartialList {
                first: section,
                first_tag: tag,
                last: section,
                count: 1,
                rest: Vec::new(),
            });
            self.keys.push(key);
            *slot = self.lists.len() as u32;
            return;
        }
        let list = &mut self.lists[(*slot - 1) as usize];
        put_entry(&mut list.rest, section - list.last, tag);
        list.last = section;
        list.count += 1;
    }

    fn get(&self, key: u32) -> Option<&PartialList> {
        let block = self.blocks[(key >> 8) as usize].as_ref()?;
        let slot = block[(key & 0xff) as usize];
        (slot != 0).then(|| &self.lists[(slot - 1) as usize])
    }
}

/// Whether a document's contents went into the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Indexed {
    /// Text: its trigrams are in the index, and a search that finds no match in it reads it
    /// to the end without skipping it.
    Text,
    /// Not indexed (binary, a BOM, too large, unreadable, or the build was stopped): always
    /// searched.
    No,
}

/// Per-thread scratch for one build: the file's contents, and the distinct trigrams of the
/// current section (`bits`, a set over all 2^24 keys, and `seen`, its members in order of
/// appearance) with the tag of each (`tags`, indexed by trigram).
struct Scratch {
    bits: Vec<u64>,
    tags: Vec<Tag>,
    seen: Vec<u32>,
    buffer: Vec<u8>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            bits: vec![0; (1 << 24) / 64],
            tags: vec![0; 1 << 24],
            seen: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Reads `reader` whole into the buffer; false when the file is not indexed (see
    /// [`Indexed::No`]).
    fn load(&mut self, reader: &mut dyn Read, size_hint: u64) -> bool {
        self.buffer.clear();
        if size_hint > MAX_INDEXED_BYTES {
            return false;
        }
        let limit = MAX_INDEXED_BYTES + 1;
        if reader.take(limit).read_to_end(&mut self.buffer).is_err() {
            return false;
        }
        let content = &self.buffer[..];
        !(content.len() as u64 > MAX_INDEXED_BYTES
            || BOMS.iter().any(|b| content.starts_with(b))
            || memchr::memchr(0, content).is_some()
            || (content.len() > MAX_INDEXED_LINE_BYTES
                && longest_line(content) > MAX_INDEXED_LINE_BYTES))
    }

    /// Collects the distinct trigrams starting in `section` of the loaded contents into `seen`
    /// (their tags are in `tags`).
    fn collect(&mut self, section: std::ops::Range<usize>) {
        for &t in &self.seen {
            self.bits[(t >> 6) as usize] &= !(1u64 << (t & 63));
            self.tags[t as usize] = 0;
        }
        self.seen.clear();
        let content = &self.buffer[..];
        let end = section.end.min(content.len().saturating_sub(2));
        for at in section.start..end {
            let key = trigram(content[at], content[at + 1], content[at + 2]);
            let word = &mut self.bits[(key >> 6) as usize];
            let bit = 1u64 << (key & 63);
            if *word & bit == 0 {
                *word |= bit;
                self.seen.push(key);
            }
            // The last trigram of the file has no next byte and sets no follow bit.
            let follow = follow_bits(content.get(at + 3).copied(), content.get(at + 4).copied());
            let case = case_bits(content[at], content[at + 1], content[at + 2]);
            self.tags[key as usize] |= Tag::from(follow) | (Tag::from(case) << 16);
        }
    }
}

/// The built index.
#[derive(Default)]
pub(crate) struct Postings {
    keys: Vec<u32>,
    /// Sections holding each key.
    counts: Vec<u32>,
    /// `offsets[i]..offsets[i + 1]` is the list of `keys[i]` in `data`: section numbers.
    offsets: Vec<u64>,
    data: Vec<u8>,
    /// The document (file) of each section, in order: a document's sections are consecutive.
    documents: Vec<u32>,
    /// Sorted indices of the keys whose lists keep no follow masks (see
    /// [`BARE_FROM_PERCENT`]).
    bare: Vec<u32>,
}

/// The raw arrays of an index (see [`Postings`]).
pub(crate) struct Parts<'a> {
    pub(crate) keys: &'a [u32],
    pub(crate) counts: &'a [u32],
    pub(crate) offsets: &'a [u64],
    pub(crate) data: &'a [u8],
    pub(crate) documents: &'a [u32],
    pub(crate) bare: &'a [u32],
}

/// Threads a build uses at most: each holds a 66 MiB scratch (a tag for every possible
/// trigram, see `Scratch`), and reading files stops scaling well before this many.
const MAX_BUILD_THREADS: usize = 8;

/// One thread's build: its lists, its files' statuses, and the document of each of its
/// sections (numbered from 0 within the thread).
type Part = (Lists, Vec<Indexed>, Vec<u32>);

impl Postings {
    /// Builds the index of `files` (path, size) split into `parts` ranges, one thread each.
    /// `open` opens a file by path; `stop` is polled between files (a stopped build leaves the
    /// remaining documents unindexed). Returns the index and each document's status.
    pub(crate) fn build(
        files: &[(String, u64)],
        threads: usize,
        open: &(dyn Fn(&str) -> std::io::Result<std::fs::File> + Sync),
        stop: &(dyn Fn() -> bool + Sync),
    ) -> (Postings, Vec<Indexed>) {
        let threads = threads.clamp(1, MAX_BUILD_THREADS).min(files.len().max(1));
        let total: u64 = files.iter().map(|f| f.1.min(MAX_INDEXED_BYTES)).sum();
        // Contiguous ranges of about equal bytes.
        let mut parts = Vec::new();
        let mut start = 0usize;
        let mut acc = 0u64;
        for (i, file) in files.iter().enumerate() {
            acc += file.1.min(MAX_INDEXED_BYTES);
            let boundary = total * (parts.len() as u64 + 1) / threads as u64;
            if acc >= boundary && parts.len() + 1 < threads {
                parts.push(start..i + 1);
                start = i + 1;
            }
        }
        parts.push(start..files.len());
        let results: Vec<Part> = std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|range| {
                    let range = range.clone();
                    scope.spawn(move || build_part(files, range, open, stop))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| (Lists::new(), Vec::new(), Vec::new()))
                })
                .collect()
        });
        let mut status = Vec::with_capacity(files.len());
        let mut keys: Vec<u32> = Vec::new();
        let mut documents = Vec::new();
        // The first section number of each part.
        let mut bases = Vec::with_capacity(results.len());
        for (lists, part_status, part_documents) in &results {
            keys.extend(&lists.keys);
            status.extend(part_status);
            bases.push(documents.len() as u32);
            documents.extend(part_documents);
        }
        // A thread that panicked left no statuses: its files are not indexed.
        status.resize(files.len(), Indexed::No);
        keys.sort_unstable();
        keys.dedup();
        let mut out = Postings {
            keys: Vec::with_capacity(keys.len()),
            counts: Vec::with_capacity(keys.len()),
            offsets: Vec::with_capacity(keys.len() + 1),
            data: Vec::new(),
            documents,
            bare: Vec::new(),
        };
        let bytes: usize = results
            .iter()
            .map(|(l, _, _)| l.lists.iter().map(|p| p.rest.len() + 3).sum::<usize>())
            .sum();
        out.data.reserve(bytes);
        out.offsets.push(0);
        let sections = out.documents.len() as u64;
        for key in keys {
            let count: u32 = results
                .iter()
                .filter_map(|(lists, _, _)| lists.get(key).map(|l| l.count))
                .sum();
            let bare = u64::from(count) * 100 >= sections * BARE_FROM_PERCENT;
            let mut previous: Option<u32> = None;
            for ((lists, _, _), base) in results.iter().zip(&bases) {
                if let Some(list) = lists.get(key) {
                    let first = base + list.first - previous.unwrap_or(0);
                    if bare {
                        put_bare_entry(&mut out.data, first, list.first_tag);
                        rewrite_bare(&mut out.data, &list.rest);
                    } else {
                        put_entry(&mut out.data, first, list.first_tag);
                        out.data.extend_from_slice(&list.rest);
                    }
                    previous = Some(base + list.last);
                }
            }
            if bare {
                out.bare.push(out.keys.len() as u32);
            }
            out.keys.push(key);
            out.counts.push(count);
            out.offsets.push(out.data.len() as u64);
        }
        out.data.shrink_to_fit();
        (out, status)
    }

    /// Bytes this index holds in memory.
    pub(crate) fn resident_bytes(&self) -> u64 {
        (self.keys.capacity() * 4
            + self.counts.capacity() * 4
            + self.offsets.capacity() * 8
            + self.data.capacity()
            + self.documents.capacity() * 4
            + self.bare.capacity() * 4) as u64
    }

    fn find(&self, key: u32) -> Option<usize> {
        self.keys.binary_search(&key).ok()
    }

    /// Sections holding `key`.
    pub(crate) fn count(&self, key: u32) -> u32 {
        self.find(key).map_or(0, |i| self.counts[i])
    }

    /// The raw arrays, for the on-disk copy.
    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts {
            keys: &self.keys,
            counts: &self.counts,
            offsets: &self.offsets,
            data: &self.data,
            documents: &self.documents,
            bare: &self.bare,
        }
    }

    /// Rebuilds an index from the raw parts of an on-disk copy, if they are consistent.
    pub(crate) fn from_parts(
        keys: Vec<u32>,
        counts: Vec<u32>,
        offsets: Vec<u64>,
        data: Vec<u8>,
        documents: Vec<u32>,
        bare: Vec<u32>,
    ) -> Option<Postings> {
        let consistent = counts.len() == keys.len()
            && offsets.len() == keys.len() + 1
            && keys.windows(2).all(|w| w[0] < w[1])
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.first() == Some(&0)
            && offsets.last() == Some(&(data.len() as u64))
            && documents.windows(2).all(|w| w[0] <= w[1])
            && bare.windows(2).all(|w| w[0] < w[1])
            && bare.last().is_none_or(|&b| (b as usize) < keys.len());
        consistent.then_some(Postings {
            keys,
            counts,
            offsets,
            data,
            documents,
            bare,
        })
    }

    /// The sorted sections holding `gram`'s trigram with its follow and case bits (as far as
    /// the bits tell: a section may pass without the bytes they stand for, never fail with them).
    pub(crate) fn sections(&self, gram: Gram) -> Vec<u32> {
        self.sections_among(gram, None)
    }

    /// [`Postings::sections`], kept to those in the sorted `among` when given: the list is
    /// decoded once, without collecting the entries that `among` does not hold.
    pub(crate) fn sections_among(&self, gram: Gram, among: Option<&[u32]>) -> Vec<u32> {
        let Some(i) = self.find(gram.key) else {
            return Vec::new();
        };
        let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let data = &self.data[..end];
        let capacity = among.map_or(self.counts[i] as usize, <[u32]>::len);
        let mut out = Vec::with_capacity(capacity);
        let mut at = start;
        let mut section = 0u64;
        let mut next = 0usize;
        let folded = narrow(gram.follow);
        let bare = self.bare.binary_search(&(i as u32)).is_ok();
        while at < end {
            let value = get_varint(data, &mut at);
            section += value >> 3;
            let wide = value & 4 != 0;
            let mask_at = at;
            at += if bare {
                0
            } else if wide {
                2
            } else {
                1
            };
            if let Some(among) = among {
                while among.get(next).is_some_and(|&s| u64::from(s) < section) {
                    next += 1;
                }
                match among.get(next) {
                    None => break,
                    Some(&s) if u64::from(s) != section => continue,
                    Some(_) => {}
                }
            }
            let byte = |k: usize| data.get(mask_at + k).copied().unwrap_or(0);
            let follows = if bare {
                true
            } else if wide {
                let mask = u16::from_le_bytes([byte(0), byte(1)]);
                mask & gram.follow == gram.follow
            } else {
                byte(0) & folded == folded
            };
            if follows && value as u8 & 3 & gram.case == gram.case {
                out.push(section as u32);
            }
        }
        out
    }

    /// The sorted documents of sorted `sections` (a section the index does not know names none).
    pub(crate) fn documents_of(&self, sections: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(sections.len());
        for &section in sections {
            if let Some(&doc) = self.documents.get(section as usize)
                && out.last() != Some(&doc)
            {
                out.push(doc);
            }
        }
        out
    }
}

fn build_part(
    files: &[(String, u64)],
    range: std::ops::Range<usize>,
    open: &(dyn Fn(&str) -> std::io::Result<std::fs::File> + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Part {
    let mut lists = Lists::new();
    let mut scratch = Scratch::new();
    let mut status = Vec::with_capacity(range.len());
    let mut documents = Vec::with_capacity(range.len());
    for doc in range {
        let (path, size) = &files[doc];
        if stop() {
            status.push(Indexed::No);
            continue;
        }
        let Ok(mut file) = open(path) else {
            status.push(Indexed::No);
            continue;
        };
        if !scratch.load(&mut file, *size) {
            status.push(Indexed::No);
            continue;
        }
        for section in sections(&scratch.buffer) {
            scratch.collect(section);
            let number = documents.len() as u32;
            for &t in &scratch.seen {
                lists.push(t, number, scratch.tags[t as usize]);
            }
            documents.push(doc as u32);
        }
        status.push(Indexed::Text);
    }
    (lists, status, documents)
}

/// Sorted intersection.
pub(crate) fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Sorted union.
pub(crate) fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut out = Vec::new();
        let values = [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            (u64::from(u32::MAX) << 3) | 7,
        ];
        for v in values {
            put_varint(&mut out, v);
        }
        let mut at = 0;
        for v in values {
            assert_eq!(get_varint(&out, &mut at), v);
        }
        assert_eq!(at, out.len());
    }

    fn gram(key: u32, follow: u16) -> Gram {
        Gram {
            key,
            follow,
            case: 0,
        }
    }

    /// The documents whose sections hold `key` with the follow bits `want`.
    fn docs(postings: &Postings, key: u32, want: u16) -> Vec<u32> {
        postings.documents_of(&postings.sections(gram(key, want)))
    }

    /// Writes `contents` as `0.txt`, `1.txt`, ... into `dir`; returns their (name, size).
    fn write_files(dir: &std::path::Path, contents: &[&str]) -> Vec<(String, u64)> {
        let mut files = Vec::new();
        for (i, text) in contents.iter().enumerate() {
            let name = format!("{i}.txt");
            std::fs::write(dir.join(&name), text).expect("write");
            files.push((name, text.len() as u64));
        }
        files
    }

    #[test]
    fn lists_are_the_documents_holding_each_trigram_in_any_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Three files without `hel` keep its list under half the sections, so it keeps masks.
        let contents = [
            "Hello world",
            "say HELLO",
            "bin\0ary hello",
            "nothing",
            "hello",
            "filler one",
            "filler two",
            "filler three",
        ];
        let files = write_files(dir.path(), &contents);
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        for threads in [1, 2, 3, 8] {
            let (postings, status) = Postings::build(&files, threads, &open, &|| false);
            assert_eq!(status[2], Indexed::No, "binary");
            assert_eq!(status[0], Indexed::Text);
            let hel = trigram(b'h', b'e', b'l');
            assert_eq!(docs(&postings, hel, 0), vec![0, 1, 4]);
            assert_eq!(
                docs(&postings, hel, follow_bits(Some(b'L'), Some(b'o'))),
                vec![0, 1, 4]
            );
            assert_eq!(postings.count(trigram(b'L', b'L', b'O')), 3);
            // `llo` is followed by a space in 0.txt only, and ends 1.txt and 4.txt.
            let llo = trigram(b'l', b'l', b'o');
            assert_eq!(
                docs(&postings, llo, follow_bits(Some(b' '), Some(b'w'))),
                vec![0]
            );
            assert_eq!(
                docs(&postings, trigram(b'x', b'y', b'z'), 0),
                Vec::<u32>::new()
            );
        }
    }

    #[test]
    fn folding_keeps_every_bit() {
        for mask in 0..=u16::MAX {
            let bits = (0..16).filter(|b| mask & (1 << b) != 0);
            let each = bits.fold(0u8, |acc, b| acc | narrow(1 << b));
            assert_eq!(narrow(mask), each, "{mask:#x}");
        }
        assert_eq!(narrow(0x0003), 0x01);
        assert_eq!(narrow(0x8000), 0x80);
    }

    #[test]
    fn a_trigram_with_many_followers_keeps_its_whole_mask() {
        // Two followers of `pm_` whose folded bits are the same but whose full bits differ.
        let letters: Vec<u8> = (b'a'..=b'z').collect();
        let pairs: Vec<(u8, u8)> = letters
            .iter()
            .flat_map(|&a| letters.iter().map(move |&b| (a, b)))
            .collect();
        let (absent, present) = pairs
            .iter()
            .flat_map(|&x| pairs.iter().map(move |&y| (x, y)))
            .find(|&(x, y)| {
                let (fx, fy) = (
                    follow_bits(Some(x.0), Some(x.1)),
                    follow_bits(Some(y.0), Some(y.1)),
                );
                fx != fy && narrow(fx) == narrow(fy) && fx & fy == 0
            })
            .expect("two followers that fold alike");
        // `pm_` followed by `present` and by enough others to fill its folded mask.
        let mut text = format!("pm_{}{} ", present.0 as char, present.1 as char);
        let mut folded = narrow(follow_bits(Some(present.0), Some(present.1)));
        let mut full = follow_bits(Some(present.0), Some(present.1));
        for &(a, b) in &pairs {
            let bits = follow_bits(Some(a), Some(b));
            let merged = full | bits;
            if folded.count_ones() >= WIDE_FROM_BITS {
                break;
            }
            if merged & follow_bits(Some(absent.0), Some(absent.1))
                == follow_bits(Some(absent.0), Some(absent.1))
            {
                continue;
            }
            full = merged;
            folded = narrow(full);
            text.push_str(&format!("pm_{}{} ", a as char, b as char));
        }
        assert!(folded.count_ones() >= WIDE_FROM_BITS, "{text}");
        let dir = tempfile::tempdir().expect("tempdir");
        // Files without `pm_` keep its list under half the sections, so it keeps masks.
        let files = write_files(dir.path(), &[&text, "filler", "filler", "filler"]);
        let (postings, _) = Postings::build(
            &files,
            1,
            &|p: &str| std::fs::File::open(dir.path().join(p)),
            &|| false,
        );
        let key = trigram(b'p', b'm', b'_');
        assert_eq!(
            docs(
                &postings,
                key,
                follow_bits(Some(present.0), Some(present.1))
            ),
            vec![0]
        );
        // The folded mask alone would let `absent` pass.
        assert_eq!(
            narrow(follow_bits(Some(absent.0), Some(absent.1))) & folded,
            narrow(follow_bits(Some(absent.0), Some(absent.1)))
        );
        assert_eq!(
            docs(&postings, key, follow_bits(Some(absent.0), Some(absent.1))),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn lists_of_half_the_sections_keep_no_masks_but_keep_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = write_files(dir.path(), &["int a", "INT b", "int c", "x"]);
        let (postings, _) = Postings::build(
            &files,
            2,
            &|p: &str| std::fs::File::open(dir.path().join(p)),
            &|| false,
        );
        let key = trigram(b'i', b'n', b't');
        // `int` is in 3 of 4 sections: a query for any follower passes them all...
        let any =
            |follow, case| postings.documents_of(&postings.sections(Gram { key, follow, case }));
        assert_eq!(any(follow_bits(Some(b'q'), Some(b'q')), 0), vec![0, 1, 2]);
        // ...but the case bits still tell.
        assert_eq!(any(0, UPPER), vec![1]);
        assert_eq!(any(0, LOWER), vec![0, 2]);
        // Exactly the lists of at least half the 4 sections are bare.
        assert_eq!(
            postings.parts().bare.len(),
            postings
                .parts()
                .keys
                .iter()
                .filter(|&&k| postings.count(k) * 2 >= 4)
                .count()
        );
    }

    #[test]
    fn case_bits_tell_which_cases_a_trigram_occurs_in() {
        assert_eq!(case_bits(b'p', b'm', b'_'), LOWER);
        assert_eq!(case_bits(b'P', b'M', b'_'), UPPER);
        assert_eq!(case_bits(b'P', b'm', b'_'), 0);
        assert_eq!(case_bits(b'1', b'-', b'>'), LOWER | UPPER);
        let dir = tempfile::tempdir().expect("tempdir");
        let contents = ["PM_RESUME", "pm_resume", "Pm_Resume", "pm_resume PM_RESUME"];
        let files = write_files(dir.path(), &contents);
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        let (postings, _) = Postings::build(&files, 2, &open, &|| false);
        let key = trigram(b'p', b'm', b'_');
        let with = |case| {
            postings.documents_of(&postings.sections(Gram {
                key,
                follow: 0,
                case,
            }))
        };
        assert_eq!(with(0), vec![0, 1, 2, 3]);
        assert_eq!(with(UPPER), vec![0, 3]);
        assert_eq!(with(LOWER), vec![1, 3]);
    }

    #[test]
    fn large_files_are_cut_into_sections_after_line_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Two sections: `alpha` in the first, `omega` in the second, and a line that crosses
        // the section size (the cut comes after it).
        let filler = "x\n".repeat(SECTION_BYTES / 2 - 8);
        let long_line = "zeta ends the first section\n";
        let big = format!("alpha\n{filler}{long_line}{filler}omega\n");
        let cuts = sections(big.as_bytes());
        assert_eq!(cuts.len(), 2, "{cuts:?}");
        let zeta = big.find("zeta").expect("zeta");
        assert!(zeta < SECTION_BYTES && zeta + long_line.len() > SECTION_BYTES);
        assert_eq!(
            cuts[0],
            0..zeta + long_line.len(),
            "a line stays in one section"
        );
        assert_eq!(cuts[1].end, big.len());
        std::fs::write(dir.path().join("big.txt"), &big).expect("write");
        std::fs::write(dir.path().join("small.txt"), "omega alpha").expect("write");
        let files = vec![
            ("big.txt".to_string(), big.len() as u64),
            ("small.txt".to_string(), 11),
        ];
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        for threads in [1, 2] {
            let (postings, _) = Postings::build(&files, threads, &open, &|| false);
            let alp = postings.sections(gram(trigram(b'a', b'l', b'p'), 0));
            let ome = postings.sections(gram(trigram(b'o', b'm', b'e'), 0));
            assert_eq!(alp, vec![0, 2]);
            assert_eq!(ome, vec![1, 2]);
            // Both words are in the big file, but in no one section of it.
            assert_eq!(intersect(&alp, &ome), vec![2]);
            assert_eq!(postings.documents_of(&alp), vec![0, 1]);
            assert_eq!(postings.documents_of(&union(&alp, &ome)), vec![0, 1]);
            // The mask of the section's last trigram sees the next section's first bytes.
            let on = trigram(b'o', b'n', b'\n');
            assert_eq!(
                postings.sections(gram(on, follow_bits(Some(b'x'), Some(b'\n')))),
                vec![0]
            );
        }
    }

    #[test]
    fn set_operations() {
        assert_eq!(intersect(&[1, 3, 5, 7], &[3, 4, 5]), vec![3, 5]);
        assert_eq!(union(&[1, 3], &[2, 3, 9]), vec![1, 2, 3, 9]);
    }
}
