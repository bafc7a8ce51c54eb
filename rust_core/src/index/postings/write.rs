//! Writing posting lists into an index file: the lists of a base (an index file already written,
//! or none) with the lists of newly read files appended.
//!
//! Appending is what makes a merge cheap: the new files' sections are numbered after the
//! base's, so each list of the base is copied byte for byte and the new entries follow it, only
//! the first of them re-encoded (its distance is from the base list's last section, which the
//! file keeps per key in [`Kind::Lasts`]). The base's documents of files that changed since are
//! left in place, unreferenced (dead): the file table no longer names them, so no query uses
//! them; a merge that would leave too many of them rebuilds instead (see `index::merge`).

use std::io::{Seek, Write};

use crate::index::format::{Kind, Writer};

use super::encoding::BARE_FROM_PERCENT;
use super::lists::Built;
use super::view::Postings;

/// Writes the posting sections: `base`'s lists with `new`'s appended after them (`new`'s
/// sections numbered after `base`'s, its documents shifted by `doc_shift`).
pub(crate) fn write_postings<W: Write + Seek>(
    w: &mut Writer<W>,
    base: &Postings,
    new: &Built,
    doc_shift: u32,
) -> std::io::Result<()> {
    let base_sections = base.sections_len() as u64;
    let total = base_sections + new.documents.len() as u64;
    if total > u64::from(u32::MAX) {
        return Err(std::io::Error::other("too many index sections"));
    }
    let is_bare = |i: Option<usize>, j: Option<usize>| match (i, j) {
        (Some(i), _) => base.is_bare(i),
        (None, Some(j)) => u64::from(new.count(j)) * 100 >= total * BARE_FROM_PERCENT,
        (None, None) => false,
    };
    write_skips(w, base, new, &is_bare)?;
    let capacity = base.keys_len().max(new.keys().len());
    let mut keys = Vec::with_capacity(capacity);
    let mut counts = Vec::with_capacity(capacity);
    let mut lasts = Vec::with_capacity(capacity);
    let mut offsets = Vec::with_capacity(capacity + 1);
    let mut bare = Vec::new();
    let mut written = 0u64;
    offsets.push(0);
    let mut encoded = Vec::new();
    let mut no_points = Vec::new();
    w.begin(Kind::Data)?;
    for (key, i, j) in merged(base, new) {
        let mut count = 0u32;
        let mut previous: Option<u64> = None;
        let list_bare = is_bare(i, j);
        if let Some(i) = i {
            let bytes = base
                .checked(base.list(i))
                .ok_or_else(|| std::io::Error::other("a damaged block in the base"))?;
            w.write(bytes)?;
            written += bytes.len() as u64;
            count += base.count_at(i);
            previous = Some(u64::from(base.last(i)));
        }
        if let Some(j) = j {
            encoded.clear();
            no_points.clear();
            let last = new.encode(
                j,
                base_sections,
                previous.unwrap_or(0),
                list_bare,
                &mut encoded,
                &mut no_points,
            );
            w.write(&encoded)?;
            written += encoded.len() as u64;
            count += new.count(j);
            previous = Some(last);
        }
        if list_bare {
            bare.push(keys.len() as u32);
        }
        keys.push(key);
        counts.push(count);
        lasts.push(previous.unwrap_or(0) as u32);
        offsets.push(written);
    }
    w.end()?;
    let arrays: [(Kind, &[u32]); 4] = [
        (Kind::Keys, &keys),
        (Kind::Counts, &counts),
        (Kind::Lasts, &lasts),
        (Kind::Bare, &bare),
    ];
    for (kind, values) in arrays {
        w.begin(kind)?;
        w.u32s(values)?;
        w.end()?;
    }
    w.begin(Kind::Offsets)?;
    w.u64s(&offsets)?;
    w.end()?;
    w.begin(Kind::Documents)?;
    w.write(base.documents_bytes())?;
    let shifted: Vec<u32> = new.documents.iter().map(|d| d + doc_shift).collect();
    w.u32s(&shifted)?;
    w.end()?;
    w.begin(Kind::SectionStarts)?;
    w.write(base.section_starts_bytes())?;
    w.u32s(&new.section_starts)?;
    w.end()
}

/// The keys of `base` and `new` in order, each once, with its index in either.
fn merged<'a>(
    base: &'a Postings,
    new: &'a Built,
) -> impl Iterator<Item = (u32, Option<usize>, Option<usize>)> + 'a {
    let new_keys = new.keys();
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let key = match (i < base.keys_len(), j < new_keys.len()) {
            (true, true) => base.key(i).min(new_keys[j]),
            (true, false) => base.key(i),
            (false, true) => new_keys[j],
            (false, false) => return None,
        };
        let in_base = (i < base.keys_len() && base.key(i) == key).then_some(i);
        let in_new = (j < new_keys.len() && new_keys[j] == key).then_some(j);
        i += usize::from(in_base.is_some());
        j += usize::from(in_new.is_some());
        Some((key, in_base, in_new))
    })
}

/// Writes the skip points of every list (sections Skips and SkipStarts), before the lists:
/// `base`'s points as they are, then those of `new`'s pieces, found by encoding each list as
/// [`write_postings`] will. Streamed key by key instead of gathered: a freed vector of them
/// (a few MB) raised glibc's trim threshold before the build's lists were freed, which then
/// stayed resident (a 200 MB tree's builder kept 9 to 28 MB of heap instead of 4 to 6).
fn write_skips<W: Write + Seek>(
    w: &mut Writer<W>,
    base: &Postings,
    new: &Built,
    is_bare: &dyn Fn(Option<usize>, Option<usize>) -> bool,
) -> std::io::Result<()> {
    let base_sections = base.sections_len() as u64;
    let mut starts: Vec<u32> = Vec::with_capacity(base.keys_len().max(new.keys().len()) + 1);
    let mut written = 0u32;
    let mut encoded = Vec::new();
    let mut points: Vec<(u32, u32)> = Vec::new();
    let mut flat: Vec<u32> = Vec::new();
    w.begin(Kind::Skips)?;
    for (_, i, j) in merged(base, new) {
        starts.push(written);
        flat.clear();
        let mut list_bytes = 0u64;
        let mut previous = 0u64;
        if let Some(at_base) = i {
            flat.extend(base.points(at_base).flat_map(|(before, at)| [before, at]));
            list_bytes = base.list(at_base).len() as u64;
            previous = u64::from(base.last(at_base));
        }
        if let Some(at_new) = j {
            encoded.clear();
            points.clear();
            new.encode(
                at_new,
                base_sections,
                previous,
                is_bare(i, j),
                &mut encoded,
                &mut points,
            );
            for &(before, at) in &points {
                let at = u32::try_from(list_bytes + u64::from(at)).map_err(|_| too_many())?;
                flat.extend([before, at]);
            }
        }
        if !flat.is_empty() {
            w.u32s(&flat)?;
            written = u32::try_from(written as usize + flat.len() / 2).map_err(|_| too_many())?;
        }
    }
    starts.push(written);
    w.end()?;
    w.begin(Kind::SkipStarts)?;
    w.u32s(&starts)?;
    w.end()
}

fn too_many() -> std::io::Error {
    std::io::Error::other("too many skip points or too long a list")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::index::format::Sections;
    use crate::index::postings::view::Backing;
    use std::sync::Arc;

    /// `base` with `new` appended, as a view over an in-memory file (documents: `documents`).
    pub(crate) fn view(base: &Postings, new: &Built, doc_shift: u32) -> Postings {
        let mut w = Writer::new(
            std::io::Cursor::new(Vec::new()),
            &crate::index::format::TRIGRAMS,
        )
        .expect("writer");
        let others = [
            Kind::Key,
            Kind::Files,
            Kind::Paths,
            Kind::DocFiles,
            Kind::Names,
            Kind::NameStarts,
            Kind::NameFiles,
            Kind::Content,
            Kind::ContentStarts,
        ];
        for kind in others {
            w.section(kind, &[]).expect("section");
        }
        write_postings(&mut w, base, new, doc_shift).expect("write");
        let bytes = w.finish().expect("finish").into_inner();
        let sections = Sections::check(&bytes, &crate::index::format::TRIGRAMS).expect("valid");
        Postings::open(Arc::new(Backing::Heap(bytes)), &sections, usize::MAX).expect("consistent")
    }
}
