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
