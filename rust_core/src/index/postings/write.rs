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
    let new_keys = new.keys();
    let capacity = base.keys_len().max(new_keys.len());
    let mut keys = Vec::with_capacity(capacity);
    let mut counts = Vec::with_capacity(capacity);
    let mut lasts = Vec::with_capacity(capacity);
    let mut offsets = Vec::with_capacity(capacity + 1);
    let mut bare = Vec::new();
    let mut written = 0u64;
    offsets.push(0);
    let mut encoded = Vec::new();
    // Skip points (section before, offset in the list) and where each key's start.
    let mut points: Vec<(u32, u32)> = Vec::new();
    let mut point_starts: Vec<u32> = Vec::with_capacity(capacity + 1);
    w.begin(Kind::Data)?;
    let (mut i, mut j) = (0, 0);
    let base_keys = base.keys_len();
    while i < base_keys || j < new_keys.len() {
        let key = match (i < base_keys, j < new_keys.len()) {
            (true, true) => base.key(i).min(new_keys[j]),
            (true, false) => base.key(i),
            _ => new_keys[j],
        };
        let in_base = i < base_keys && base.key(i) == key;
        let in_new = j < new_keys.len() && new_keys[j] == key;
        let mut count = 0u32;
        let mut previous: Option<u64> = None;
        let mut list_bytes = 0u64;
        point_starts.push(u32::try_from(points.len()).map_err(|_| too_many())?);
        let new_count = if in_new { new.count(j) } else { 0 };
        let is_bare = if in_base {
            base.is_bare(i)
        } else {
            u64::from(new_count) * 100 >= total * BARE_FROM_PERCENT
        };
        if in_base {
            let range = base.list(i);
            let bytes = base
                .checked(range.clone())
                .ok_or_else(|| std::io::Error::other("a damaged block in the base"))?;
            w.write(bytes)?;
            written += bytes.len() as u64;
            list_bytes = bytes.len() as u64;
            points.extend(base.points(i));
            count += base.count_at(i);
            previous = Some(u64::from(base.last(i)));
            i += 1;
        }
        if in_new {
            encoded.clear();
            let first_point = points.len();
            let last = new.encode(
                j,
                base_sections,
                previous.unwrap_or(0),
                is_bare,
                &mut encoded,
                &mut points,
            );
            for point in &mut points[first_point..] {
                point.1 = u32::try_from(list_bytes + u64::from(point.1)).map_err(|_| too_many())?;
            }
            w.write(&encoded)?;
            written += encoded.len() as u64;
            count += new_count;
            previous = Some(last);
            j += 1;
        }
        if is_bare {
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
    point_starts.push(u32::try_from(points.len()).map_err(|_| too_many())?);
    w.begin(Kind::Skips)?;
    for chunk in points.chunks(4096) {
        let flat: Vec<u32> = chunk.iter().flat_map(|&(s, at)| [s, at]).collect();
        w.u32s(&flat)?;
    }
    w.end()?;
    drop(points);
    w.begin(Kind::SkipStarts)?;
    w.u32s(&point_starts)?;
    w.end()?;
    w.begin(Kind::Offsets)?;
    w.u64s(&offsets)?;
    w.end()?;
    w.begin(Kind::Documents)?;
    w.write(base.documents_bytes())?;
    let shifted: Vec<u32> = new.documents.iter().map(|d| d + doc_shift).collect();
    w.u32s(&shifted)?;
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
        let mut w = Writer::new(std::io::Cursor::new(Vec::new())).expect("writer");
        let others = [
            Kind::Key,
            Kind::Files,
            Kind::Paths,
            Kind::DocFiles,
            Kind::Names,
            Kind::NameStarts,
            Kind::NameFiles,
        ];
        for kind in others {
            w.section(kind, &[]).expect("section");
        }
        write_postings(&mut w, base, new, doc_shift).expect("write");
        let bytes = w.finish().expect("finish").into_inner();
        let sections = Sections::check(&bytes).expect("valid");
        Postings::open(Arc::new(Backing::Heap(bytes)), &sections, usize::MAX).expect("consistent")
    }
}
