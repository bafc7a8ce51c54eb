//! A file's bytes made ready for the parser, or the reason it gets no outline, decided before
//! any parse: no parser for its language, binary, over the size cap, minified.
//!
//! The bytes are the engine's read of the opened file (the boundary, the deny rules), at most
//! [`MAX_SOURCE_BYTES`] of them; a UTF-16 file with a byte-order mark is transcoded to UTF-8 and
//! a UTF-8 mark is dropped, which keeps every line where it was.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use encoding_rs::{UTF_16BE, UTF_16LE};

use super::cache::Key;
use super::lang::Language;
use super::{MAX_LINE_BYTES, MAX_SOURCE_BYTES, Refusal};
use crate::error::CoreError;
use crate::media::read_capped;
use crate::open::OpenedFile;
use crate::read::BINARY_SNIFF_BYTES;

/// Bytes ready to parse.
#[derive(Debug)]
pub struct Source {
    /// The language they are parsed as.
    pub language: Language,
    /// UTF-8 (as far as the file is valid), without a byte-order mark.
    pub bytes: Vec<u8>,
    /// The file's identity, the cache key.
    pub key: Key,
}

/// What became of a file.
#[derive(Debug)]
pub enum Prepared {
    /// Ready to parse.
    Ready(Source),
    /// No outline, for this reason (with its facts as a clause).
    Refused {
        /// The language, when one was told.
        language: Option<Language>,
        /// Why.
        refusal: Refusal,
        /// The facts behind it.
        detail: String,
    },
}

fn refused(language: Option<Language>, refusal: Refusal, detail: String) -> Prepared {
    Prepared::Refused {
        language,
        refusal,
        detail,
    }
}

/// Reads `opened` (at most [`MAX_SOURCE_BYTES`]) and prepares it for the parser.
pub fn prepare(opened: &mut OpenedFile) -> Result<Prepared, CoreError> {
    let real_bytes = opened.real.clone();
    let real = Path::new(OsStr::from_bytes(&real_bytes));
    let by_name = Language::from_path(real);
    let identity = opened.identity;
    if identity.size > MAX_SOURCE_BYTES {
        return Ok(refused(
            by_name,
            Refusal::TooLarge,
            format!(
                "the file has {} bytes; files over {} bytes get no outline",
                identity.size, MAX_SOURCE_BYTES
            ),
        ));
    }
    let Some(bytes) = read_capped(opened, MAX_SOURCE_BYTES)? else {
        return Ok(refused(
            by_name,
            Refusal::TooLarge,
            format!("the file grew past {MAX_SOURCE_BYTES} bytes while it was read"),
        ));
    };
    let Some(language) = Language::detect(real, &bytes) else {
        return Ok(refused(
            None,
            Refusal::NoParser,
            "no parser reads this kind of file".to_string(),
        ));
    };
    let bytes = match as_utf8(bytes) {
        Ok(bytes) => bytes,
        Err(offset) => {
            return Ok(refused(
                Some(language),
                Refusal::Binary,
                format!("a NUL byte at offset {offset}"),
            ));
        }
    };
    if let Some((line, length)) = longest_line_over(&bytes, MAX_LINE_BYTES) {
        return Ok(refused(
            Some(language),
            Refusal::Minified,
            format!("line {line} is {length} bytes long, over the {MAX_LINE_BYTES}-byte cap"),
        ));
    }
    Ok(Prepared::Ready(Source {
        language,
        bytes,
        key: Key {
            dev: identity.dev,
            ino: identity.ino,
            size: identity.size,
            mtime_ns: identity.mtime_ns,
            ctime_ns: identity.ctime_ns,
            language,
            references: false,
        },
    }))
}

/// `bytes` as UTF-8 without a byte-order mark (UTF-16 with a mark transcoded); `Err` with the
/// offset of a NUL byte in the first [`BINARY_SNIFF_BYTES`] of a file that is not UTF-16.
fn as_utf8(mut bytes: Vec<u8>) -> Result<Vec<u8>, usize> {
    for (mark, encoding) in [(&[0xFF, 0xFE][..], UTF_16LE), (&[0xFE, 0xFF][..], UTF_16BE)] {
        if bytes.starts_with(mark) {
            let (text, _) = encoding.decode_without_bom_handling(&bytes[2..]);
            return Ok(text.into_owned().into_bytes());
        }
    }
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if let Some(offset) = memchr::memchr(0, head) {
        return Err(offset);
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    Ok(bytes)
}

/// The first line longer than `max` bytes, as (1-based number, length).
fn longest_line_over(bytes: &[u8], max: usize) -> Option<(u64, usize)> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for (number, end) in (1u64..).zip(ends) {
        if end - start > max {
            return Some((number, end - start));
        }
        start = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_is_transcoded_and_boms_dropped() {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("def f():\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(as_utf8(utf16), Ok(b"def f():\n".to_vec()));
        assert_eq!(as_utf8(b"\xEF\xBB\xBFx\n".to_vec()), Ok(b"x\n".to_vec()));
        assert_eq!(as_utf8(b"ab\0c".to_vec()), Err(2));
    }

    #[test]
    fn the_first_long_line_is_found() {
        assert_eq!(longest_line_over(b"a\nbbbb\nc", 3), Some((2, 4)));
        assert_eq!(longest_line_over(b"a\nbbb\ncccc", 3), Some((3, 4)));
        assert_eq!(longest_line_over(b"a\nbbb\n", 3), None);
    }
}
