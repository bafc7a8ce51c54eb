//! Looking up the index: the sections whose entries hold a trigram with the follow and case
//! bits a query asks for, their documents, and sorted set operations on such lists.

use super::encoding::read_entry;
use super::grams::{Gram, narrow};
use super::view::Postings;

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
    /// decoded once, without collecting the entries that `among` does not hold. A list whose
    /// bytes fail their check gives nothing and marks the index damaged ([`Postings::damaged`]:
    /// the caller then answers without the index).
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
        while at < end {
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

    #[test]
    fn set_operations() {
        assert_eq!(intersect(&[1, 3, 5, 7], &[3, 4, 5]), vec![3, 5]);
        assert_eq!(union(&[1, 3], &[2, 3, 9]), vec![1, 2, 3, 9]);
    }
}
