//! Looking up the index: the sections whose entries hold a trigram with the follow and case
//! bits a query asks for, their documents, and sorted set operations on such lists.

use super::encoding::read_entry;
use super::grams::{Gram, narrow};
use super::lists::SKIP_EVERY;
use super::view::Postings;
use crate::index::format::partition_point;

impl Postings {
    /// Sections holding `key`.
    pub(crate) fn count(&self, key: u32) -> u32 {
        self.find(key).map_or(0, |i| self.count_at(i))
    }

    /// The sorted sections holding `gram`'s trigram with its follow and case bits (as far as
    /// the bits tell: a section may pass without the bytes they stand for, never fail with them).
    pub(crate) fn sections(&self, gram: Gram) -> Vec<u32> {
        self.sections_among(gram, None)
    }

    /// [`Postings::sections`], kept to those in the sorted `among` when given: the list is
    /// decoded once, without collecting the entries that `among` does not hold, and where
    /// `among` is sparse against it, from skip point to skip point (only the blocks that may
    /// hold a section of `among` are decoded). A list whose bytes fail their check gives
    /// nothing and marks the index damaged ([`Postings::damaged`]: the caller then answers
    /// without the index).
    pub(crate) fn sections_among(&self, gram: Gram, among: Option<&[u32]>) -> Vec<u32> {
        let Some(i) = self.find(gram.key) else {
            return Vec::new();
        };
        let Some(data) = self.checked(self.list(i)) else {
            return Vec::new();
        };
        let end = data.len();
        let capacity = among.map_or(self.count_at(i) as usize, <[u32]>::len);
        let mut out = Vec::with_capacity(capacity.min(self.sections_len()));
        let mut at = 0;
        let mut section = 0u64;
        let mut next = 0usize;
        let folded = narrow(gram.follow);
        let bare = self.is_bare(i);
        // Skip points ahead of `at` (`points.start`), when jumping pays.
        let mut points = self.point_range(i);
        let sparse = among.is_some_and(|a| {
            (a.len() as u64) * u64::from(SKIP_EVERY) < u64::from(self.count_at(i))
        });
        if !sparse {
            points = points.end..points.end;
        }
        // The section before the next point (`u64::MAX`: none).
        let mut ahead = self.before_point(&points);
        while at < end {
            if let Some(among) = among {
                let Some(&want) = among.get(next) else {
                    break;
                };
                if u64::from(want) > ahead {
                    // Jump to the last point before `want`.
                    let k = points.start + self.points_before(points.clone(), want);
                    let (before, offset) = self.point(k - 1);
                    if offset as usize > at {
                        at = offset as usize;
                        section = u64::from(before);
                    }
                    points.start = k;
                    ahead = self.before_point(&points);
                }
            }
            let entry = read_entry(data, &mut at, bare);
            section = section.saturating_add(entry.delta);
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
            if entry.follows(data, gram.follow, folded) && entry.case & gram.case == gram.case {
                out.push(section as u32);
            }
        }
        out
    }

    /// The section before the first of `points` (`u64::MAX` when there is none).
    fn before_point(&self, points: &std::ops::Range<usize>) -> u64 {
        if points.is_empty() {
            u64::MAX
        } else {
            u64::from(self.point(points.start).0)
        }
    }

    /// How many of `points` (whose sections before them increase) have a section before them
    /// under `want`.
    fn points_before(&self, points: std::ops::Range<usize>, want: u32) -> usize {
        partition_point(points.len(), |k| self.point(points.start + k).0 < want)
    }

    /// The sorted documents of sorted `sections` (a section the index does not know names none).
    pub(crate) fn documents_of(&self, sections: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(sections.len());
        for &section in sections {
            if let Some(doc) = self.document(section)
                && out.last() != Some(&doc)
            {
                out.push(doc);
            }
        }
        out
    }
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
    use crate::index::postings::grams::UPPER;

    use crate::index::postings::grams::{follow_bits, trigram};
    use crate::index::postings::write::tests::view;

    /// Builds the lists of `contents` (written to files in `dir`, named from `first`).
    fn build(dir: &std::path::Path, first: usize, contents: &[String]) -> super::super::Built {
        let mut files = Vec::new();
        for (i, text) in contents.iter().enumerate() {
            let name = format!("{}.txt", first + i);
            std::fs::write(dir.join(&name), text).expect("write");
            files.push((name, text.len() as u64));
        }
        let open = |p: &str| std::fs::File::open(dir.join(p));
        Postings::build(&files, 2, &open, &|| false).0
    }

    #[test]
    fn skipping_through_long_lists_finds_what_decoding_them_finds() {
        // `abc` in every file, followed by `d` in every third, in capitals in every fifth: long
        // lists with skip points, masks and case bits that vary; built in two parts, then a
        // merge appends more files (whose skip points follow the base's).
        let text = |i: usize| {
            let word = if i.is_multiple_of(5) { "ABC" } else { "abc" };
            let next = if i.is_multiple_of(3) { "d" } else { "x" };
            format!("{word}{next} filler {i}\n")
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let first: Vec<String> = (0..3000).map(text).collect();
        let more: Vec<String> = (3000..4500).map(text).collect();
        let base = view(&Postings::default(), &build(dir.path(), 0, &first), 0);
        let merged = view(&base, &build(dir.path(), 3000, &more), 3000);
        for postings in [&base, &merged] {
            let key = trigram(b'a', b'b', b'c');
            let i = postings.find(key).expect("abc");
            assert!(
                postings.point_range(i).len() >= 20,
                "long lists have skip points"
            );
            let grams = [
                Gram {
                    key,
                    follow: 0,
                    case: 0,
                },
                Gram {
                    key,
                    follow: follow_bits(Some(b'd'), Some(b' ')),
                    case: 0,
                },
                Gram {
                    key,
                    follow: 0,
                    case: UPPER,
                },
            ];
            let sections = postings.sections_len() as u32;
            let amongs: Vec<Vec<u32>> = vec![
                vec![],
                vec![0],
                vec![sections - 1],
                vec![5, 6, 7, 129, 130, 1000, 2999],
                (0..sections).step_by(97).collect(),
                (0..sections)
                    .step_by(641)
                    .map(|s| s + 3)
                    .filter(|&s| s < sections)
                    .collect(),
                (0..sections).collect(),
            ];
            for gram in grams {
                let all = postings.sections(gram);
                for among in &amongs {
                    assert_eq!(
                        postings.sections_among(gram, Some(among)),
                        intersect(&all, among),
                        "{gram:?} among {} sections",
                        among.len()
                    );
                }
            }
        }
    }

    #[test]
    fn set_operations() {
        assert_eq!(intersect(&[1, 3, 5, 7], &[3, 4, 5]), vec![3, 5]);
        assert_eq!(union(&[1, 3], &[2, 3, 9]), vec![1, 2, 3, 9]);
    }
}
