//! The symbol file's numbers: LEB128 varints (7 bits a byte, low first) and zigzag for signed
//! deltas, written by the builder and the call lists, read by the queries.

pub(super) fn push_varint(out: &mut impl Extend<u8>, mut v: u64) {
    let mut bytes = [0u8; 10];
    let mut len = 0;
    while v >= 0x80 {
        bytes[len] = (v as u8) | 0x80;
        len += 1;
        v >>= 7;
    }
    bytes[len] = v as u8;
    out.extend(bytes[..=len].iter().copied());
}

pub(super) fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}
