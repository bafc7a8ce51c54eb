//! Lists while they are built: each build thread's lists in memory ([`Lists`]), and the whole
//! build ([`Built`]: the threads' lists side by side), which the writer streams into the index
//! file key by key, concatenating the threads' pieces of each list as it goes. Nothing is
//! copied into one vector first: on three copies of the Linux tree that copy took 2.8 s and
//! 800 MB before the file was written.
//!
//! Every [`SKIP_EVERY`] entries a list also gets a skip point: the section of the entry before
//! it and where it starts. A query that wants a few sections of a long list jumps from point to
//! point instead of decoding every entry (see `Postings::sections_among`): on three copies of
//! the Linux tree, `PM_RESUME` decoded 630,000 entries of seven lists for 39 matching files.

use super::contents::Held;
use super::encoding::{Tag, put_entry, put_varint, rewrite_bare};

/// A list gets a skip point before every this many entries (on the Linux tree: 930,000
/// points, 7 MB, 2.7% of the lists' bytes; a jump decodes 64 entries on average).
pub(crate) const SKIP_EVERY: u32 = 128;

/// A skip point of a list being built, in its `rest`.
struct Point {
    /// The section of the entry before the point.
    before: u32,
    /// The point's offset in `rest`.
    at: u32,
    /// Mask bytes in `rest` before the point (a bare list's offset is `at - masks`).
    masks: u32,
    /// The list's next point (its index in `Lists::points`, plus one; 0: none).
    next: u32,
}

/// One trigram's list inside one thread's build.
struct PartialList {
    first: u32,
    first_tag: Tag,
    last: u32,
    count: u32,
    /// Entries after `first`, encoded (see [`put_entry`]).
    rest: Vec<u8>,
    /// Mask bytes in `rest`.
    masks: u32,
    /// The list's first and last points in `Lists::points` (indices plus one; 0: none).
    first_point: u32,
    last_point: u32,
}

/// One thread's lists: a two-level table from a 24-bit trigram to its list (65,536 lazily
/// allocated blocks of 256 slots, so a thread's build costs memory only for the trigrams it
/// meets), the lists, their keys in order of first appearance, and the skip points of every
/// list, chained per list in one vector: one small vector per list left the heap fragmented
/// after the build (a 200 MB tree's builder kept 9 to 20 MB of it resident, not 4 to 6 MB).
pub(super) struct Lists {
    blocks: Vec<Option<Box<[u32; 256]>>>,
    lists: Vec<PartialList>,
    keys: Vec<u32>,
    points: Vec<Point>,
    /// The keys, sorted, with their lists (after [`Lists::finish`]).
    sorted: Vec<(u32, u32)>,
}

impl Lists {
    pub(super) fn new() -> Lists {
        Lists {
            blocks: (0..1 << 16).map(|_| None).collect(),
            lists: Vec::new(),
            keys: Vec::new(),
            points: Vec::new(),
            sorted: Vec::new(),
        }
    }

    /// Adds `section` (with its tag) to the list of `key`; sections come in increasing order.
    pub(super) fn push(&mut self, key: u32, section: u32, tag: Tag) {
        let block = self.blocks[(key >> 8) as usize].get_or_insert_with(|| Box::new([0; 256]));
        let slot = &mut block[(key & 0xff) as usize];
        if *slot == 0 {
            self.lists.push(PartialList {
                first: section,
                first_tag: tag,
                last: section,
                count: 1,
                rest: Vec::new(),
                masks: 0,
                first_point: 0,
                last_point: 0,
            });
            self.keys.push(key);
            *slot = self.lists.len() as u32;
            return;
        }
        let list = &mut self.lists[(*slot - 1) as usize];
        if list.count.is_multiple_of(SKIP_EVERY) {
            self.points.push(Point {
                before: list.last,
                at: list.rest.len() as u32,
                masks: list.masks,
                next: 0,
            });
            let added = self.points.len() as u32;
            match list.last_point {
                0 => list.first_point = added,
                last => self.points[(last - 1) as usize].next = added,
            }
            list.last_point = added;
        }
        list.masks += put_entry(&mut list.rest, section - list.last, tag);
        list.last = section;
        list.count += 1;
    }

    /// The skip points of `list`, in order.
    fn points_of<'l>(&'l self, list: &PartialList) -> impl Iterator<Item = &'l Point> + 'l {
        let mut next = list.first_point;
        std::iter::from_fn(move || {
            let point = self.points.get(next.checked_sub(1)? as usize)?;
            next = point.next;
            Some(point)
        })
    }

    /// Ends the build of these lists, in the thread that built them: the table from key to
    /// list gives way to the keys sorted. Its many small blocks are freed here, before anything
    /// larger: glibc raises its trim threshold when a large block is freed, and a thread's
    /// arena keeps what is freed after that resident (kept until the file was written, the
    /// blocks left 75 MB of heap resident after a build of the Linux tree).
    pub(super) fn finish(&mut self) {
        self.blocks = Vec::new();
        let mut sorted: Vec<(u32, u32)> = self
            .keys
            .iter()
            .enumerate()
            .map(|(slot, &key)| (key, slot as u32))
            .collect();
        sorted.sort_unstable();
        self.sorted = sorted;
    }

    /// The list of `key` (after [`Lists::finish`]).
    fn get(&self, key: u32) -> Option<&PartialList> {
        let at = self.sorted.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        self.lists.get(self.sorted[at].1 as usize)
    }
}

/// Lists built in memory (by `Postings::build`): each thread's lists, its sections numbered
/// after the previous thread's. Every list keeps its follow masks: which lists are bare is
/// decided when they are written, against the whole index's sections.
#[derive(Default)]
pub(crate) struct Built {
    parts: Vec<Lists>,
    /// The first section of each part.
    bases: Vec<u32>,
    /// Every part's keys, sorted, once each.
    keys: Vec<u32>,
    /// The document of each section (numbered from 0).
    pub(crate) documents: Vec<u32>,
    /// Documents (files read, with sections or not).
    pub(crate) docs: usize,
    /// The contents held for them (see `contents`).
    pub(crate) contents: Held,
    /// Where each section starts in its file.
    pub(crate) section_starts: Vec<u32>,
}

impl Built {
    /// The build of `docs` documents from `parts` (each thread's lists and the document of each
    /// of its sections, in order).
    pub(super) fn new(parts: Vec<(Lists, Vec<u32>)>, docs: usize) -> Built {
        let mut built = Built {
            docs,
            ..Built::default()
        };
        for (lists, documents) in parts {
            built.bases.push(built.documents.len() as u32);
            built.documents.extend(documents);
            built.keys.extend(&lists.keys);
            built.parts.push(lists);
        }
        built.keys.sort_unstable();
        built.keys.dedup();
        built
    }

    /// The keys of the lists, sorted.
    pub(crate) fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The pieces of the `j`-th key's list, one per part holding it, with the part's first
    /// section.
    fn pieces(&self, j: usize) -> impl Iterator<Item = (u32, &Lists, &PartialList)> {
        let key = self.keys[j];
        self.parts
            .iter()
            .zip(&self.bases)
            .filter_map(move |(lists, &base)| lists.get(key).map(|list| (base, lists, list)))
    }

    /// Sections holding the `j`-th key.
    pub(crate) fn count(&self, j: usize) -> u32 {
        self.pieces(j).map(|(_, _, list)| list.count).sum()
    }

    /// Appends the `j`-th key's list to `out`, its sections numbered from `shift`, the first
    /// entry's distance counted from `previous`; without follow masks when `bare`. Its skip
    /// points go to `points` (the section before each, and its offset from where the list
    /// starts in `out`). Returns the last section (numbered from `shift`).
    pub(crate) fn encode(
        &self,
        j: usize,
        shift: u64,
        mut previous: u64,
        bare: bool,
        out: &mut Vec<u8>,
        points: &mut Vec<(u32, u32)>,
    ) -> u64 {
        let start = out.len();
        for (base, lists, list) in self.pieces(j) {
            let first = shift + u64::from(base + list.first);
            // Sections fit in u32 (the writer checks the total), so does their distance.
            let delta = (first - previous) as u32;
            if bare {
                put_varint(
                    out,
                    (u64::from(delta) << 3) | u64::from(list.first_tag >> 16),
                );
            } else {
                put_entry(out, delta, list.first_tag);
            }
            let rest_at = out.len() - start;
            for point in lists.points_of(list) {
                let at = if bare {
                    point.at - point.masks
                } else {
                    point.at
                };
                let before = shift + u64::from(base + point.before);
                points.push((before as u32, (rest_at + at as usize) as u32));
            }
            if bare {
                rewrite_bare(out, &list.rest);
            } else {
                out.extend_from_slice(&list.rest);
            }
            previous = shift + u64::from(base + list.last);
        }
        previous
    }
}
