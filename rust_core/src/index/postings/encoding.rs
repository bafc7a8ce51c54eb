//! How the index is laid out: the sorted trigram keys, and for each its list of entries in one
//! byte vector. An entry is a varint of the section's distance from the previous entry's,
//! shifted left by three to hold a bit saying the follow mask is wide and the two case bits;
//! then the follow mask, folded to one byte or whole in two, unless the list is bare (see
//! [`BARE_FROM_PERCENT`]). Written by [`put_entry`], read by [`read_entry`]. Lists
//! are built in memory ([`super::lists::Built`]), written into the index file
//! ([`super::write::write_postings`]) and read from it ([`super::view::Postings`]).

use super::grams::narrow;

/// The list of a trigram found in at least this percentage of all sections keeps no follow
/// masks (its entries are the varints alone). Such trigrams (`int`, `ret`, ` = `) are followed
/// by nearly everything, so their masks remove few candidates, yet their lists are the longest.
/// On the Linux tree, at 50%: the index shrinks from 23.1% of the bytes to 21.7%, candidates
/// barely change (`pm_resume` 510 -> 523, `of_match` 4,736 -> 4,748, others equal) and queries
/// get faster (less to decode); at 25% `cassini` selects 7,615 files instead of 12.
pub(crate) const BARE_FROM_PERCENT: u64 = 50;

/// An entry whose folded follow mask has at least this many of its eight bits set stores the
/// full sixteen: a trigram followed by many different bytes in one section (`pm_` in a file of
/// `pm_runtime`, `pm_ops` and `pm_qos`) would otherwise pass almost every query. (On the Linux
/// tree: `pm_resume` 739 candidate files with one-byte masks, 510 with this; 4 gives 482 for
/// 1.1% more of the bytes, past the memory budget's margin.)
pub(crate) const WIDE_FROM_BITS: u32 = 5;

/// What the places of a trigram in one section tell: their follow mask (low sixteen bits) and
/// case bits.
pub(super) type Tag = u32;

/// Appends one list entry: a varint of the section's distance from the previous one, shifted
/// to make room for a bit saying the mask is wide and the two case bits; then the follow mask,
/// folded to one byte or whole in two. Returns the bytes of the mask (1 or 2).
pub(super) fn put_entry(out: &mut Vec<u8>, delta: u32, tag: Tag) -> u32 {
    let mask = tag as u16;
    let folded = narrow(mask);
    let wide = folded.count_ones() >= WIDE_FROM_BITS;
    put_varint(
        out,
        (u64::from(delta) << 3) | (u64::from(wide) << 2) | u64::from(tag >> 16),
    );
    if wide {
        out.extend_from_slice(&mask.to_le_bytes());
        2
    } else {
        out.push(folded);
        1
    }
}

/// Appends the entries of `encoded` (as [`put_entry`] wrote them) without their masks.
pub(super) fn rewrite_bare(out: &mut Vec<u8>, encoded: &[u8]) {
    let mut at = 0;
    while at < encoded.len() {
        let value = get_varint(encoded, &mut at);
        at += if value & 4 == 0 { 1 } else { 2 };
        put_varint(out, value & !4);
    }
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(super) fn get_varint(data: &[u8], at: &mut usize) -> u64 {
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

/// One entry of a list, as [`read_entry`] decodes it.
pub(super) struct Entry {
    /// The section's distance from the previous entry's.
    pub(super) delta: u64,
    /// The case bits ([`super::grams::LOWER`], [`super::grams::UPPER`]).
    pub(super) case: u8,
    /// The entry of a list that keeps no follow masks.
    bare: bool,
    /// The follow mask is whole (two bytes), not folded (one).
    wide: bool,
    /// Where the follow mask starts in the list's bytes.
    mask_at: usize,
}

impl Entry {
    /// Whether the entry's follow mask holds every bit of `follow` (`folded`: `follow` folded
    /// by [`narrow`]); an entry of a bare list holds them all.
    #[inline]
    pub(super) fn follows(&self, data: &[u8], follow: u16, folded: u8) -> bool {
        let byte = |k: usize| data.get(self.mask_at + k).copied().unwrap_or(0);
        if self.bare {
            true
        } else if self.wide {
            let mask = u16::from_le_bytes([byte(0), byte(1)]);
            mask & follow == follow
        } else {
            byte(0) & folded == folded
        }
    }
}

/// Decodes the entry at `*at` of a list (`bare`: one that keeps no follow masks) and moves
/// `*at` past it.
#[inline]
pub(super) fn read_entry(data: &[u8], at: &mut usize, bare: bool) -> Entry {
    let value = get_varint(data, at);
    let wide = value & 4 != 0;
    let mask_at = *at;
    *at += if bare {
        0
    } else if wide {
        2
    } else {
        1
    };
    Entry {
        delta: value >> 3,
        case: value as u8 & 3,
        bare,
        wide,
        mask_at,
    }
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
}
