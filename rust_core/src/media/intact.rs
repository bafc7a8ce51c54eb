//! Whether an image file's data reaches its end intact, read from its container structure.
//!
//! The decoders behind [`super::image`] forgive: zune-jpeg fills the part of a JPEG cut
//! mid-scan with grey, image-webp reads past a cut VP8 frame as zeros, and the png crate does
//! not check chunk CRCs. That is right for showing what arrived, and wrong for passing the
//! file's own bytes on: a stricter reader (libjpeg, libwebp, a provider's image service) refuses
//! them. So before a file is passed through untouched its structure is walked to its end marker,
//! with every declared length inside the data:
//!
//! - JPEG: the marker segments by their lengths and the entropy-coded scans (byte stuffing and
//!   restart markers skipped) until the end-of-image marker;
//! - PNG: every chunk by its length, with its CRC-32, until `IEND`;
//! - GIF: the blocks and their sub-blocks until the trailer;
//! - WebP: the RIFF size against the file's, and every chunk inside it.
//!
//! The walks read each byte at most once (`memchr` through the scans), with no allocation.

use image::ImageFormat;
use memchr::memchr;

/// `Ok` when the structure of `bytes` (an image of `format`) reaches its end intact, else the
/// fact that shows it does not ("the data ends inside a scan, before the end-of-image marker").
pub(crate) fn check(bytes: &[u8], format: ImageFormat) -> Result<(), String> {
    match format {
        ImageFormat::Jpeg => jpeg(bytes),
        ImageFormat::Png => png(bytes),
        ImageFormat::Gif => gif(bytes),
        ImageFormat::WebP => webp(bytes),
        _ => Ok(()),
    }
}

/// The JPEG data ends before its end-of-image marker.
const JPEG_CUT: &str = "the JPEG data ends before its end-of-image marker";

fn jpeg(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err("the JPEG data does not start with a start-of-image marker".to_string());
    }
    let mut at = 2;
    loop {
        // Bytes between segments are skipped, as decoders do (with a warning), up to the next
        // marker; any run of 0xFF before a marker code is fill.
        let Some(found) = memchr(0xFF, &bytes[at..]) else {
            return Err(JPEG_CUT.to_string());
        };
        at += found;
        while bytes.get(at) == Some(&0xFF) {
            at += 1;
        }
        let Some(&marker) = bytes.get(at) else {
            return Err(JPEG_CUT.to_string());
        };
        at += 1;
        match marker {
            0xD9 => return Ok(()),
            // Standalone markers (restart, TEM) and a stray stuffed zero carry no length.
            0x00 | 0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let Some(length) = bytes.get(at..at + 2) else {
            return Err(JPEG_CUT.to_string());
        };
        let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
        if length < 2 {
            return Err(format!(
                "a JPEG segment (marker 0x{marker:02X}) declares a length of {length}"
            ));
        }
        at += length;
        if at > bytes.len() {
            return Err(format!(
                "the JPEG data ends inside a segment (marker 0x{marker:02X}), before its \
                 end-of-image marker"
            ));
        }
        if marker == 0xDA {
            at = jpeg_scan_end(bytes, at)?;
        }
    }
}

/// The offset of the marker that ends the entropy-coded scan starting at `at`.
fn jpeg_scan_end(bytes: &[u8], mut at: usize) -> Result<usize, String> {
    loop {
        let Some(found) = memchr(0xFF, &bytes[at..]) else {
            return Err("the JPEG data ends inside a scan, before its end-of-image marker".into());
        };
        let marker_at = at + found;
        let mut next = marker_at + 1;
        while bytes.get(next) == Some(&0xFF) {
            next += 1;
        }
        match bytes.get(next) {
            None => {
                return Err(
                    "the JPEG data ends inside a scan, before its end-of-image marker".into(),
                );
            }
            // A stuffed zero or a restart marker: the scan goes on.
            Some(0x00 | 0xD0..=0xD7) => at = next + 1,
            Some(_) => return Ok(marker_at),
        }
    }
}

fn png(bytes: &[u8]) -> Result<(), String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if !bytes.starts_with(SIGNATURE) {
        return Err("the PNG data does not start with the PNG signature".to_string());
    }
    let mut at = SIGNATURE.len();
    loop {
        let Some(head) = bytes.get(at..at + 8) else {
            return Err("the PNG data ends before its IEND chunk".to_string());
        };
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind = String::from_utf8_lossy(&head[4..8]).into_owned();
        let body_end = at.saturating_add(8).saturating_add(length);
        let Some(stored) = bytes.get(body_end..body_end.saturating_add(4)) else {
            return Err(format!(
                "the PNG data ends inside a {kind} chunk, before its IEND chunk"
            ));
        };
        let stored = u32::from_be_bytes([stored[0], stored[1], stored[2], stored[3]]);
        if crc32fast::hash(&bytes[at + 4..body_end]) != stored {
            return Err(format!("the CRC of a {kind} chunk does not match its data"));
        }
        if &head[4..8] == b"IEND" {
            return Ok(());
        }
        at = body_end + 4;
    }
}

/// The GIF data ends before its trailer.
const GIF_CUT: &str = "the GIF data ends before its trailer";

fn gif(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 13 || !(bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) {
        return Err(GIF_CUT.to_string());
    }
    let mut at = 13 + color_table_bytes(bytes[10]);
    loop {
        match bytes.get(at) {
            None => return Err(GIF_CUT.to_string()),
            Some(0x3B) => return Ok(()),
            // An extension: its label, then its sub-blocks.
            Some(0x21) => at = gif_sub_blocks(bytes, at + 2)?,
            // An image: its descriptor, local color table, LZW code size, then its data.
            Some(0x2C) => {
                let Some(&packed) = bytes.get(at + 9) else {
                    return Err(GIF_CUT.to_string());
                };
                at = gif_sub_blocks(bytes, at + 10 + color_table_bytes(packed) + 1)?;
            }
            Some(other) => {
                return Err(format!(
                    "the GIF data holds an unknown block (0x{other:02X}) before its trailer"
                ));
            }
        }
    }
}

/// The bytes of the color table a GIF descriptor's packed field declares.
fn color_table_bytes(packed: u8) -> usize {
    if packed & 0x80 == 0 {
        0
    } else {
        3 << ((packed & 0x07) + 1)
    }
}

/// The offset after the sub-blocks starting at `at` (each a length byte and that many bytes,
/// ended by a zero length).
fn gif_sub_blocks(bytes: &[u8], mut at: usize) -> Result<usize, String> {
    loop {
        let Some(&size) = bytes.get(at) else {
            return Err(GIF_CUT.to_string());
        };
        at += 1;
        if size == 0 {
            return Ok(at);
        }
        at += usize::from(size);
    }
}

fn webp(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 12 || &bytes[..4] != b"RIFF" || &bytes[8..12] != b"WEBP" {
        return Err("the WebP data does not start with a RIFF WEBP header".to_string());
    }
    let declared = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let end = declared.saturating_add(8);
    if end > bytes.len() {
        return Err(format!(
            "the WebP data ends at byte {} of the {end} its RIFF header declares",
            bytes.len()
        ));
    }
    let mut at = 12;
    while at < end {
        let Some(head) = bytes.get(at..at + 8).filter(|_| at + 8 <= end) else {
            return Err("the WebP data ends inside a chunk header".to_string());
        };
        let length = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let kind = String::from_utf8_lossy(&head[..4]).into_owned();
        // Chunks are padded to an even length.
        at = at.saturating_add(8).saturating_add(length + (length & 1));
        if at > end {
            return Err(format!("the WebP data ends inside a {kind} chunk"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{DynamicImage, RgbImage};
    use std::io::Cursor;

    fn encoded(format: ImageFormat) -> Vec<u8> {
        let image = DynamicImage::ImageRgb8(RgbImage::from_fn(120, 80, |x, y| {
            image::Rgb([(x * 2) as u8, (y * 3) as u8, (x ^ y) as u8])
        }));
        let mut out = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut out), format)
            .expect("encode");
        out
    }

    #[test]
    fn whole_encodes_are_intact_and_every_cut_is_not() {
        for format in [
            ImageFormat::Jpeg,
            ImageFormat::Png,
            ImageFormat::Gif,
            ImageFormat::WebP,
        ] {
            let bytes = encoded(format);
            assert_eq!(check(&bytes, format), Ok(()), "{format:?}");
            for cut in 1..bytes.len() {
                assert!(
                    check(&bytes[..cut], format).is_err(),
                    "{format:?} cut at {cut} of {}",
                    bytes.len()
                );
            }
        }
    }

    #[test]
    fn a_png_chunk_whose_crc_does_not_match_is_found() {
        let mut bytes = encoded(ImageFormat::Png);
        let last_data = bytes.len() - 20;
        bytes[last_data] ^= 0x10;
        let found = check(&bytes, ImageFormat::Png);
        assert!(
            found.as_ref().is_err_and(|e| e.contains("CRC")),
            "{found:?}"
        );
    }
}
