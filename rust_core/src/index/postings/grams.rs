//! Trigrams and what an index entry tells of each place of one: the 24-bit key of three
//! ASCII-lowercased bytes, the follow mask (hashed bits of the next byte and of the next two)
//! and the case bits. The build computes them for every place; a query asks for them.

/// The bits of the follow mask that a trigram followed by `next` and then `after` sets: one of
/// the low eight bits for `next` and one of the high eight for the pair (`next`, `after`). A
/// query wanting those bytes after the trigram asks for the same bits.
///
/// Most entries store the mask folded to one byte ([`narrow`]: four bits for the next byte,
/// four for the pair; measured against eight bits of either alone in benches/README.md); an
/// entry whose folded mask is nearly full keeps all sixteen bits (see [`super::encoding::WIDE_FROM_BITS`]).
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

/// The tables the build reads each place from: a key, a follow mask and case bits cost a few
/// table reads per byte instead of two multiplications and a dozen comparisons (on the Linux
/// tree the scan ran 2.1 times faster; see `Scratch::collect`). Built once from [`lower`],
/// [`follow_bits`] and [`case_bits`], which stay the definitions the queries use; a test checks
/// that [`for_each_place`] agrees with them at every place.
struct Tables {
    lower: [u8; 256],
    /// Bit 0: an ASCII uppercase letter; bit 1: a lowercase one.
    class: [u8; 256],
    /// `follow_bits(Some(next), Some(after))` at `next << 8 | after`.
    follow: Box<[u16; 1 << 16]>,
    /// The case bits of three bytes, shifted into a place's tag, by their classes packed two
    /// bits each (the first byte's highest).
    case: [u32; 64],
}

static TABLES: std::sync::LazyLock<Tables> = std::sync::LazyLock::new(|| {
    let mut follow = Box::new([0u16; 1 << 16]);
    for (at, slot) in follow.iter_mut().enumerate() {
        *slot = follow_bits(Some((at >> 8) as u8), Some(at as u8));
    }
    let class = std::array::from_fn(|b| {
        let b = b as u8;
        u8::from(b.is_ascii_uppercase()) | (u8::from(b.is_ascii_lowercase()) << 1)
    });
    // A byte of each class, to ask `case_bits` (the definition) about three of them.
    let of_class = [b'1', b'A', b'a', b'a'];
    let case = std::array::from_fn(|packed| {
        let byte = |shift: usize| of_class[(packed >> shift) & 3];
        u32::from(case_bits(byte(4), byte(2), byte(0))) << 16
    });
    Tables {
        lower: std::array::from_fn(|b| lower(b as u8)),
        class,
        follow,
        case,
    }
});

/// Calls `each(key, tag)` for every place (trigram start) in `range` of `content`: the
/// trigram's key, and its tag: the follow mask (low sixteen bits; it sees the bytes after
/// `range`, and the last places of `content` set fewer bits, as [`follow_bits`] says) and the
/// case bits shifted by sixteen. The key and the case classes roll from one place to the next.
#[inline]
pub(crate) fn for_each_place(
    content: &[u8],
    range: std::ops::Range<usize>,
    mut each: impl FnMut(u32, u32),
) {
    let t = &*TABLES;
    let end = range.end.min(content.len().saturating_sub(2));
    if range.start >= end {
        return;
    }
    let first = &content[range.start..range.start + 2];
    let mut key = (u32::from(t.lower[usize::from(first[0])]) << 8)
        | u32::from(t.lower[usize::from(first[1])]);
    let mut classes = (usize::from(t.class[usize::from(first[0])]) << 2)
        | usize::from(t.class[usize::from(first[1])]);
    let mut roll = |c: u8| {
        key = ((key << 8) | u32::from(t.lower[usize::from(c)])) & 0xff_ffff;
        classes = ((classes << 2) | usize::from(t.class[usize::from(c)])) & 0x3f;
        (key, t.case[classes])
    };
    // Places followed by two bytes: one table read gives the follow mask.
    let inner = end.min(content.len().saturating_sub(4)).max(range.start);
    if inner > range.start {
        for window in content[range.start..inner + 4].windows(5) {
            let (key, case) = roll(window[2]);
            let follow = t.follow[usize::from(window[3]) << 8 | usize::from(window[4])];
            each(key, u32::from(follow) | case);
        }
    }
    for at in inner..end {
        let (key, case) = roll(content[at + 2]);
        let follow = follow_bits(content.get(at + 3).copied(), content.get(at + 4).copied());
        each(key, u32::from(follow) | case);
    }
}

/// A trigram as a query asks for it: its key, and the follow and case bits some place of it
/// must have set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Gram {
    pub(crate) key: u32,
    pub(crate) follow: u16,
    pub(crate) case: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_tables_agree_with_the_definitions_at_every_place() {
        let mut text: Vec<u8> = (0..=255u8).collect();
        text.extend_from_slice(
            b"Hello, WORLD! pm_resume PM_RESUME Pm_Resume 123 \t\r\n\xe9t\xc3\xa9",
        );
        for b in 0..=255u8 {
            text.extend_from_slice(&[b, b'a', b'Z', b, b'0']);
        }
        for end in [0, 1, 2, 3, 4, 5, 6, 40, text.len()] {
            let content = &text[..end];
            for start in [0, 1, 3] {
                for stop in [start, start + 2, end / 2, end] {
                    let mut got = Vec::new();
                    for_each_place(content, start..stop, |key, tag| got.push((key, tag)));
                    let places = stop.min(content.len().saturating_sub(2));
                    let want: Vec<(u32, u32)> = (start..places)
                        .map(|at| {
                            let (a, b, c) = (content[at], content[at + 1], content[at + 2]);
                            let follow = follow_bits(
                                content.get(at + 3).copied(),
                                content.get(at + 4).copied(),
                            );
                            (
                                trigram(a, b, c),
                                u32::from(follow) | (u32::from(case_bits(a, b, c)) << 16),
                            )
                        })
                        .collect();
                    assert_eq!(got, want, "{start}..{stop} of {end}");
                }
            }
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
}
