//! The wire every worker speaks, both ways: an 8-byte big-endian length, then that many bytes.
//!
//! A worker's first frame says it is ready: it starts with the bytes its pool expects
//! ([`PoolOptions::ready`](super::PoolOptions::ready)). Then each request is one frame and each
//! answer one frame, in turn, until the worker's standard input closes.

use std::io::{self, Read, Write};

/// The length prefix of a frame.
pub const LENGTH_BYTES: usize = 8;

/// Writes one frame.
pub fn write_frame(output: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    output.write_all(&(payload.len() as u64).to_be_bytes())?;
    output.write_all(payload)?;
    output.flush()
}

/// Reads one frame of at most `max_bytes`; `None` at the end of the input.
pub fn read_frame(input: &mut impl Read, max_bytes: u64) -> io::Result<Option<Vec<u8>>> {
    let mut length = [0u8; LENGTH_BYTES];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u64::from_be_bytes(length);
    if length > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {length} bytes is over the {max_bytes} allowed"),
        ));
    }
    let mut payload = Vec::new();
    input.take(length).read_to_end(&mut payload)?;
    if payload.len() as u64 != length {
        return Ok(None);
    }
    Ok(Some(payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_as_written_and_an_oversized_one_is_refused() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"one").expect("frame");
        write_frame(&mut wire, b"").expect("frame");
        let mut input = wire.as_slice();
        assert_eq!(
            read_frame(&mut input, 3).expect("read"),
            Some(b"one".to_vec())
        );
        assert_eq!(read_frame(&mut input, 3).expect("read"), Some(Vec::new()));
        assert_eq!(read_frame(&mut input, 3).expect("read"), None);
        assert!(read_frame(&mut wire.as_slice(), 2).is_err());
        // A frame cut short is the end of the input, not a frame.
        assert_eq!(read_frame(&mut &wire[..10], 3).expect("read"), None);
    }
}
