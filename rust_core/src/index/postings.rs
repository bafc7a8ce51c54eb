//! The n-gram index of file contents: for every trigram of ASCII-lowercased bytes, the sorted
//! list of documents (files) holding it, delta- and varint-encoded in one byte vector. Each
//! entry also carries a one-byte mask of what follows the trigram in that file (hashed bits of
//! the next byte and of the next two, in the spirit of Cursor's "3.5-gram" index): a query for
//! `cassini` then asks for `cas` followed by `s` and `si`, `ass` followed by `i` and `in`, and
//! so on, which narrows almost as much as four- and five-grams for one byte per entry.
//!
//! Trigrams over lowercased bytes let case-insensitive queries narrow as well as exact ones
//! (a case-sensitive query is looked up lowercased: a superset of its files). The lists are
//! built per thread over contiguous, path-ordered document ranges and concatenated, so no
//! merge sort is needed. Lookups binary-search the sorted trigram keys.

use std::io::Read;

use crate::grep::{BOMS, MAX_FILE_BYTES, MAX_LINE_BYTES};
use crate::limits::MAX_CONTEXT;

/// The bits of the follow mask that a trigram followed by `next` and then `after` sets: one of
/// the low four bits for `next` and one of the high four for the pair (`next`, `after`). A
/// query wanting those bytes after the trigram asks for the same bits. (Measured against one
/// byte of eight bits and a pair of eight bits in benches/README.md: this split narrows long
/// literals most without losing short ones.)
pub(crate) fn follow_bits(next: Option<u8>, after: Option<u8>) -> u8 {
    let Some(next) = next else {
        return 0;
    };
    let h1 = u32::from(lower(next)).wrapping_mul(0x9e37_79b9);
    let single = 1u8 << (h1 >> 30);
    match after {
        None => single,
        Some(after) => {
            let h2 = (h1 ^ u32::from(lower(after))).wrapping_mul(0x85eb_ca6b);
            single | (16 << (h2 >> 30))
        }
    }
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

fn put_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> u32 {
    let mut value = 0u32;
    let mut shift = 0;
    while let Some(&byte) = data.get(*at) {
        *at += 1;
        value |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
        shift += 7;
    }
    value
}

/// One trigram's list inside one thread's build.
struct PartialList {
    first: u32,
    first_mask: u8,
    last: u32,
    count: u32,
    /// Entries after `first`: delta varint, then the next-byte mask.
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

    fn push(&mut self, key: u32, doc: u32, mask: u8) {
        let block = self.blocks[(key >> 8) as usize].get_or_insert_with(|| Box::new([0; 256]));
        let slot = &mut block[(key & 0xff) as usize];
        if *slot == 0 {
            self.lists.push(PartialList {
                first: doc,
                first_mask: mask,
                last: doc,
                count: 1,
                rest: Vec::new(),
            });
            self.keys.push(key);
            *slot = self.lists.len() as u32;
            return;
        }
        let list = &mut self.lists[(*slot - 1) as usize];
        put_varint(&mut list.rest, doc - list.last);
        list.rest.push(mask);
        list.last = doc;
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

/// Per-thread scratch for one build: the distinct trigrams of the current file (`bits`, a set
/// over all 2^24 keys, and `seen`, its members in order of appearance) and the next-byte mask
/// of each (`masks`, indexed by trigram).
struct Scratch {
    bits: Vec<u64>,
    masks: Vec<u8>,
    seen: Vec<u32>,
    buffer: Vec<u8>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            bits: vec![0; (1 << 24) / 64],
            masks: vec![0; 1 << 24],
            seen: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Reads `reader` whole and collects its distinct trigrams (their masks are in `masks`);
    /// `None` when the file is not indexed (see [`Indexed::No`]).
    fn trigrams_of(&mut self, reader: &mut dyn Read, size_hint: u64) -> Option<usize> {
        self.buffer.clear();
        if size_hint > MAX_INDEXED_BYTES {
            return None;
        }
        let limit = MAX_INDEXED_BYTES + 1;
        reader.take(limit).read_to_end(&mut self.buffer).ok()?;
        let content = &self.buffer[..];
        if content.len() as u64 > MAX_INDEXED_BYTES
            || BOMS.iter().any(|b| content.starts_with(b))
            || memchr::memchr(0, content).is_some()
            || (content.len() > MAX_INDEXED_LINE_BYTES
                && longest_line(content) > MAX_INDEXED_LINE_BYTES)
        {
            return None;
        }
        for &t in &self.seen {
            self.bits[(t >> 6) as usize] &= !(1u64 << (t & 63));
            self.masks[t as usize] = 0;
        }
        self.seen.clear();
        let mut key = 0u32;
        for (i, &b) in content.iter().enumerate() {
            key = ((key << 8) | u32::from(lower(b))) & 0xff_ffff;
            if i < 2 {
                continue;
            }
            let word = &mut self.bits[(key >> 6) as usize];
            let bit = 1u64 << (key & 63);
            if *word & bit == 0 {
                *word |= bit;
                self.seen.push(key);
            }
            // The last trigram of the file has no next byte and sets no bit.
            self.masks[key as usize] |=
                follow_bits(content.get(i + 1).copied(), content.get(i + 2).copied());
        }
        Some(self.seen.len())
    }
}

/// The built index.
#[derive(Default)]
pub(crate) struct Postings {
    keys: Vec<u32>,
    counts: Vec<u32>,
    /// `offsets[i]..offsets[i + 1]` is the list of `keys[i]` in `data`.
    offsets: Vec<u64>,
    data: Vec<u8>,
}

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
        let threads = threads.max(1).min(files.len().max(1));
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
        let results: Vec<(Lists, Vec<Indexed>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|range| {
                    let range = range.clone();
                    scope.spawn(move || build_part(files, range, open, stop))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| (Lists::new(), Vec::new())))
                .collect()
        });
        let mut status = Vec::with_capacity(files.len());
        let mut keys: Vec<u32> = Vec::new();
        for (lists, part_status) in &results {
            keys.extend(&lists.keys);
            status.extend(part_status);
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
        };
        let bytes: usize = results
            .iter()
            .map(|(l, _)| l.lists.iter().map(|p| p.rest.len() + 3).sum::<usize>())
            .sum();
        out.data.reserve(bytes);
        out.offsets.push(0);
        for key in keys {
            let mut previous: Option<u32> = None;
            let mut count = 0u32;
            for (lists, _) in &results {
                if let Some(list) = lists.get(key) {
                    put_varint(&mut out.data, list.first - previous.unwrap_or(0));
                    out.data.push(list.first_mask);
                    out.data.extend_from_slice(&list.rest);
                    previous = Some(list.last);
                    count += list.count;
                }
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
            + self.data.capacity()) as u64
    }

    fn find(&self, key: u32) -> Option<usize> {
        self.keys.binary_search(&key).ok()
    }

    /// Documents holding `key`.
    pub(crate) fn count(&self, key: u32) -> u32 {
        self.find(key).map_or(0, |i| self.counts[i])
    }

    /// The raw parts, for the on-disk copy.
    pub(crate) fn parts(&self) -> (&[u32], &[u32], &[u64], &[u8]) {
        (&self.keys, &self.counts, &self.offsets, &self.data)
    }

    /// Rebuilds an index from the raw parts of an on-disk copy, if they are consistent.
    pub(crate) fn from_parts(
        keys: Vec<u32>,
        counts: Vec<u32>,
        offsets: Vec<u64>,
        data: Vec<u8>,
    ) -> Option<Postings> {
        let consistent = counts.len() == keys.len()
            && offsets.len() == keys.len() + 1
            && keys.windows(2).all(|w| w[0] < w[1])
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.first() == Some(&0)
            && offsets.last() == Some(&(data.len() as u64));
        consistent.then_some(Postings {
            keys,
            counts,
            offsets,
            data,
        })
    }

    /// The sorted documents holding `key`, and, when `next` is given, followed by that byte
    /// somewhere (as far as the mask tells: a document may pass without it, never fail with it).
    pub(crate) fn list(&self, key: u32, want: u8) -> Vec<u32> {
        let Some(i) = self.find(key) else {
            return Vec::new();
        };
        let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let data = &self.data[..end];
        let mut out = Vec::with_capacity(self.counts[i] as usize);
        let mut at = start;
        let mut doc = 0u32;
        while at < end {
            doc += get_varint(data, &mut at);
            let mask = data.get(at).copied().unwrap_or(0);
            at += 1;
            if mask & want == want {
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
) -> (Lists, Vec<Indexed>) {
    let mut lists = Lists::new();
    let mut scratch = Scratch::new();
    let mut status = Vec::with_capacity(range.len());
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
        match scratch.trigrams_of(&mut file, *size) {
            Some(_) => {
                for &t in &scratch.seen {
                    lists.push(t, doc as u32, scratch.masks[t as usize]);
                }
                status.push(Indexed::Text);
            }
            None => status.push(Indexed::No),
        }
    }
    (lists, status)
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
        let values = [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX];
        for v in values {
            put_varint(&mut out, v);
        }
        let mut at = 0;
        for v in values {
            assert_eq!(get_varint(&out, &mut at), v);
        }
        assert_eq!(at, out.len());
    }

    #[test]
    fn lists_are_the_documents_holding_each_trigram_in_any_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        let contents = [
            "Hello world",
            "say HELLO",
            "bin\0ary hello",
            "nothing",
            "hello",
        ];
        let mut files = Vec::new();
        for (i, text) in contents.iter().enumerate() {
            let name = format!("{i}.txt");
            std::fs::write(dir.path().join(&name), text).expect("write");
            files.push((name, text.len() as u64));
        }
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        for threads in [1, 2, 3, 8] {
            let (postings, status) = Postings::build(&files, threads, &open, &|| false);
            assert_eq!(status[2], Indexed::No, "binary");
            assert_eq!(status[0], Indexed::Text);
            let hel = trigram(b'h', b'e', b'l');
            assert_eq!(postings.list(hel, 0), vec![0, 1, 4]);
            assert_eq!(
                postings.list(hel, follow_bits(Some(b'L'), Some(b'o'))),
                vec![0, 1, 4]
            );
            assert_eq!(postings.count(trigram(b'L', b'L', b'O')), 3);
            // `llo` is followed by a space in 0.txt only, and ends 1.txt and 4.txt.
            let llo = trigram(b'l', b'l', b'o');
            assert_eq!(
                postings.list(llo, follow_bits(Some(b' '), Some(b'w'))),
                vec![0]
            );
            assert_eq!(
                postings.list(trigram(b'x', b'y', b'z'), 0),
                Vec::<u32>::new()
            );
        }
    }

    #[test]
    fn set_operations() {
        assert_eq!(intersect(&[1, 3, 5, 7], &[3, 4, 5]), vec![3, 5]);
        assert_eq!(union(&[1, 3], &[2, 3, 9]), vec![1, 2, 3, 9]);
    }
}
