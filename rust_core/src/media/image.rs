//! Images (PNG, JPEG, GIF's first frame, WebP) as a model can be shown them.
//!
//! The decoder is the `image` crate (image-rs) with only its png, jpeg (zune-jpeg), gif and
//! webp (image-webp) features: pure Rust, so there is no C library to build for the wheels or
//! to crash the server, the most used Rust image library, kept up by a team, and it has a
//! `Limits` API that caps the decoder's allocations.
//!
//! The pipeline, every step bounded:
//! 1. the file is opened through the boundary and read whole only when it is at most
//!    `max_source_bytes` (50 MB by default), else refused unread;
//! 2. the format is sniffed from the bytes (never the name); the decoder reads the header, and
//!    an image declaring more than `max_decode_pixels` pixels is refused before any pixel buffer
//!    exists (a 30000x30000 PNG bomb costs a few kilobytes); the decoder runs under
//!    [`image::Limits`] (width, height and allocations capped) inside `catch_unwind`, so a
//!    decoder panic becomes a refusal like a decoding error;
//! 3. an image within `max_edge` on its long side and `max_pixels` in all, whose file is within
//!    `max_bytes` and whose structure reaches its end intact ([`super::intact`]: the decoders
//!    forgive a cut file, a stricter reader does not), is passed through as its original bytes,
//!    untouched; a file cut short or damaged that still decoded is re-encoded from what decoded
//!    and marked `partial`, and one that did not decode is refused; a larger one is scaled
//!    down, aspect kept, with the area-averaging filter of `DynamicImage::thumbnail_exact` (each
//!    source pixel contributes to one target pixel: no aliasing on the large reductions this
//!    does, integer arithmetic, and no floating-point copy of the source in memory);
//! 4. a re-encoded image is PNG for lossless sources and JPEG for JPEG sources; when that is
//!    over `max_bytes`, lower JPEG qualities are tried, then a smaller scale, until it fits.

use std::ffi::OsString;
use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::record::Bytes;

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use super::{Refusal, intact, open, panic_message, read_capped, real_path};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::workspace::Workspace;

/// Shown images are at most this many pixels on their long edge.
pub const DEFAULT_MAX_EDGE: u64 = 1568;
/// Shown images have at most this many pixels (1.15 megapixels).
pub const DEFAULT_MAX_PIXELS: u64 = 1_150_000;
/// A shown image's encoded bytes are at most this many (3.75 MB).
pub const DEFAULT_MAX_BYTES: u64 = 3_750_000;
/// Image files larger than this are refused unread (50 MB).
pub const DEFAULT_MAX_SOURCE_BYTES: u64 = 50_000_000;
/// Images whose header declares more pixels than this are refused undecoded (25 megapixels:
/// a 6000x4000 photograph fits; its RGBA buffer is 100 MB).
pub const DEFAULT_MAX_DECODE_PIXELS: u64 = 25_000_000;
/// The decoder's allocations are capped at this many bytes per decodable pixel (RGBA with
/// 16-bit channels), plus [`DECODE_SLACK_BYTES`].
const DECODE_BYTES_PER_PIXEL: u64 = 8;
/// Room for a decoder's own tables and line buffers.
const DECODE_SLACK_BYTES: u64 = 16 << 20;
/// JPEG qualities tried, best first, when an encoding is over the byte budget.
const JPEG_QUALITIES: [u8; 3] = [85, 70, 50];
/// Each further scale-down step keeps this share of the edges.
const SHRINK_NUMERATOR: u64 = 3;
const SHRINK_DENOMINATOR: u64 = 4;
/// The most scale-down steps tried before giving up ([`Refusal::CannotFit`]).
const MAX_SHRINK_STEPS: u32 = 12;

/// The bounds of one image read; the defaults are the `image_*` entries of `LIMITS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageBounds {
    /// Long edge of a shown image, in pixels.
    pub max_edge: u64,
    /// Pixels of a shown image.
    pub max_pixels: u64,
    /// Encoded bytes of a shown image.
    pub max_bytes: u64,
    /// Bytes of the file read.
    pub max_source_bytes: u64,
    /// Pixels an image may declare to be decoded.
    pub max_decode_pixels: u64,
}

impl Default for ImageBounds {
    fn default() -> Self {
        ImageBounds {
            max_edge: DEFAULT_MAX_EDGE,
            max_pixels: DEFAULT_MAX_PIXELS,
            max_bytes: DEFAULT_MAX_BYTES,
            max_source_bytes: DEFAULT_MAX_SOURCE_BYTES,
            max_decode_pixels: DEFAULT_MAX_DECODE_PIXELS,
        }
    }
}

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct ImageOptions {
    /// File path, relative to the root or absolute inside it.
    pub path: OsString,
    /// The bounds.
    pub bounds: ImageBounds,
    /// Checked before and after decoding (the call then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

crate::record! {
    "ImageResult",
    /// An image as it is shown, or why it is not.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct ImageOutput {
        /// The file, relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// Media type of the shown bytes ("image/png", "image/jpeg", "image/gif",
        /// "image/webp"); empty when nothing is shown.
        pub media_type: String,
        /// Media type of the file as its bytes declare it; empty when not an image format
        /// this reader knows.
        pub source_media_type: String,
        /// Width of the image in the file, in pixels (0 when its header was not read).
        pub width: u64,
        /// Height of the image in the file, in pixels (0 when its header was not read).
        pub height: u64,
        /// Width of the shown image (0 when nothing is shown).
        pub shown_width: u64,
        /// Height of the shown image (0 when nothing is shown).
        pub shown_height: u64,
        /// The shown image's encoded bytes (left out of to_dict(): see byte_size).
        pub data: Bytes,
        /// Size of the shown bytes.
        pub byte_size: u64,
        /// Size of the file.
        pub source_bytes: u64,
        /// True when the image was scaled down to fit the bounds.
        pub downscaled: bool,
        /// True when the shown bytes were encoded here rather than passed through from the file.
        pub reencoded: bool,
        /// True when the file's data is cut short or damaged (its structure does not reach its
        /// end intact) and the decoder still made an image of it: what is shown is re-encoded
        /// from that, and part of it may be missing (a cut JPEG's last rows are grey); the
        /// detail says what is wrong.
        pub partial: bool,
        /// Why nothing is shown (too_large, too_many_pixels, unsupported, undecodable,
        /// cannot_fit, no_such_cell); null when the image is shown.
        pub refused: Option<Refusal>,
        /// The facts behind a refusal (the decoder's message, the declared size...) or a
        /// partial image (where its data ends); empty when the image is shown whole.
        pub detail: String,
    }
}

impl ImageOutput {
    fn refuse(mut self, refusal: Refusal, detail: String) -> ImageOutput {
        self.refused = Some(refusal);
        self.partial = false;
        self.detail = detail;
        self
    }
}

/// Reads one image file and prepares it within `options.bounds`.
///
/// Errors are the boundary's (missing, outside the root, denied, a directory or a special
/// file) and I/O; everything about the content is data in the result (`refused`).
pub fn read_image(workspace: &Workspace, options: &ImageOptions) -> Result<ImageOutput, CoreError> {
    check_bounds(&options.bounds)?;
    let mut opened = open(workspace, &options.path)?;
    let out = ImageOutput {
        path: real_path(&opened),
        source_bytes: opened.identity.size,
        ..ImageOutput::default()
    };
    let Some(bytes) = read_capped(&mut opened, options.bounds.max_source_bytes)? else {
        let detail = format!(
            "the file has {} bytes; the limit is {} bytes",
            opened.identity.size, options.bounds.max_source_bytes
        );
        return Ok(out.refuse(Refusal::TooLarge, detail));
    };
    if options.cancel.is_cancelled() {
        return Err(CoreError::Cancelled);
    }
    let prepared = prepare(bytes, &options.bounds, out);
    if options.cancel.is_cancelled() {
        return Err(CoreError::Cancelled);
    }
    Ok(prepared)
}

/// Checks that every bound is usable.
pub(crate) fn check_bounds(bounds: &ImageBounds) -> Result<(), CoreError> {
    let named = [
        ("max_edge", bounds.max_edge),
        ("max_pixels", bounds.max_pixels),
        ("max_bytes", bounds.max_bytes),
        ("max_source_bytes", bounds.max_source_bytes),
        ("max_decode_pixels", bounds.max_decode_pixels),
    ];
    for (name, value) in named {
        if value == 0 {
            return Err(CoreError::InvalidArgument {
                message: format!("image bound {name} must be at least 1."),
            });
        }
    }
    if bounds.max_edge > u64::from(u32::MAX) {
        return Err(CoreError::InvalidArgument {
            message: format!("image bound max_edge must be at most {}.", u32::MAX),
        });
    }
    Ok(())
}

/// The formats this reader decodes.
fn supported(format: ImageFormat) -> bool {
    matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
    )
}

/// Prepares the encoded image `bytes` (already read, within the source cap) for showing: the
/// steps 2 to 4 of the module comment. `out` carries the path and source size.
pub(crate) fn prepare(bytes: Vec<u8>, bounds: &ImageBounds, out: ImageOutput) -> ImageOutput {
    let format = match image::guess_format(&bytes) {
        Ok(format) if supported(format) => format,
        Ok(format) => {
            let detail = format!("{format:?} images are not shown; PNG, JPEG, GIF and WebP are");
            return out.refuse(Refusal::Unsupported, detail);
        }
        Err(_) => {
            let detail = "the bytes are not a PNG, JPEG, GIF or WebP image".to_string();
            return out.refuse(Refusal::Unsupported, detail);
        }
    };
    let mut out = out;
    out.source_media_type = format.to_mime_type().to_string();
    match catch_unwind(AssertUnwindSafe(|| {
        prepare_known(bytes, format, bounds, out.clone())
    })) {
        Ok(prepared) => prepared,
        Err(panic) => {
            let detail = format!("the decoder panicked: {}", panic_message(panic.as_ref()));
            out.refuse(Refusal::Undecodable, detail)
        }
    }
}

fn decoder_limits(bounds: &ImageBounds) -> Limits {
    let edge = u32::try_from(bounds.max_decode_pixels).unwrap_or(u32::MAX);
    let mut limits = Limits::default();
    limits.max_image_width = Some(edge);
    limits.max_image_height = Some(edge);
    limits.max_alloc = Some(
        bounds
            .max_decode_pixels
            .saturating_mul(DECODE_BYTES_PER_PIXEL)
            .saturating_add(DECODE_SLACK_BYTES),
    );
    limits
}

fn prepare_known(
    bytes: Vec<u8>,
    format: ImageFormat,
    bounds: &ImageBounds,
    mut out: ImageOutput,
) -> ImageOutput {
    let mut reader = ImageReader::with_format(Cursor::new(bytes.as_slice()), format);
    reader.limits(decoder_limits(bounds));
    let decoder = match reader.into_decoder() {
        Ok(decoder) => decoder,
        Err(error) => {
            return out.refuse(Refusal::Undecodable, format!("the header: {error}"));
        }
    };
    let (width, height) = decoder.dimensions();
    out.width = u64::from(width);
    out.height = u64::from(height);
    let pixels = out.width * out.height;
    if pixels > bounds.max_decode_pixels {
        let detail = format!(
            "the header declares {width}x{height} ({pixels} pixels); the decode limit is {} pixels",
            bounds.max_decode_pixels
        );
        return out.refuse(Refusal::TooManyPixels, detail);
    }
    if pixels == 0 {
        return out.refuse(
            Refusal::Undecodable,
            format!("the header declares {width}x{height}"),
        );
    }
    let decoded = match DynamicImage::from_decoder(decoder) {
        Ok(decoded) => decoded,
        Err(error) => return out.refuse(Refusal::Undecodable, error.to_string()),
    };
    if let Err(detail) = intact::check(&bytes, format) {
        out.partial = true;
        out.detail = detail;
    }
    let (target_w, target_h) = fit(out.width, out.height, bounds);
    let fits = (target_w, target_h) == (out.width, out.height);
    if fits && !out.partial && bytes.len() as u64 <= bounds.max_bytes {
        out.media_type = out.source_media_type.clone();
        out.shown_width = out.width;
        out.shown_height = out.height;
        out.byte_size = bytes.len() as u64;
        out.data = Bytes(bytes);
        return out;
    }
    drop(bytes);
    let mut shown = if fits {
        decoded
    } else {
        out.downscaled = true;
        decoded.thumbnail_exact(target_w as u32, target_h as u32)
    };
    for _ in 0..=MAX_SHRINK_STEPS {
        if let Some((data, format)) = encode_within(&shown, format, bounds.max_bytes) {
            out.media_type = format.to_mime_type().to_string();
            out.shown_width = u64::from(shown.width());
            out.shown_height = u64::from(shown.height());
            out.byte_size = data.len() as u64;
            out.data = Bytes(data);
            out.reencoded = true;
            return out;
        }
        let w = (u64::from(shown.width()) * SHRINK_NUMERATOR / SHRINK_DENOMINATOR).max(1);
        let h = (u64::from(shown.height()) * SHRINK_NUMERATOR / SHRINK_DENOMINATOR).max(1);
        out.downscaled = true;
        shown = shown.thumbnail_exact(w as u32, h as u32);
    }
    let detail = format!(
        "no encoding of the image fits in {} bytes",
        bounds.max_bytes
    );
    out.refuse(Refusal::CannotFit, detail)
}

/// The largest size within the bounds with the aspect of `width` x `height` (the size itself
/// when it is within them).
pub fn fit(width: u64, height: u64, bounds: &ImageBounds) -> (u64, u64) {
    let long = width.max(height);
    if long <= bounds.max_edge && width * height <= bounds.max_pixels {
        return (width, height);
    }
    let by_edge = bounds.max_edge as f64 / long as f64;
    let by_area = (bounds.max_pixels as f64 / (width as f64 * height as f64)).sqrt();
    let scale = by_edge.min(by_area).min(1.0);
    let mut w = ((width as f64 * scale).floor() as u64).clamp(1, width);
    let mut h = ((height as f64 * scale).floor() as u64).clamp(1, height);
    // Floating-point rounding must never leave the result over a bound.
    while w.max(h) > bounds.max_edge || w * h > bounds.max_pixels {
        if w >= h && w > 1 {
            w -= 1;
        } else if h > 1 {
            h -= 1;
        } else {
            break;
        }
    }
    (w, h)
}

/// The first encoding of `image` within `max_bytes`: PNG (lossless sources) then JPEG at
/// falling qualities; JPEG only for JPEG sources.
fn encode_within(
    image: &DynamicImage,
    source: ImageFormat,
    max_bytes: u64,
) -> Option<(Vec<u8>, ImageFormat)> {
    if source != ImageFormat::Jpeg {
        let mut png = Vec::new();
        if image
            .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
            .is_ok()
            && png.len() as u64 <= max_bytes
        {
            return Some((png, ImageFormat::Png));
        }
    }
    // JPEG has no alpha channel and 8-bit samples only.
    let flat = match image {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) => None,
        other => Some(DynamicImage::ImageRgb8(other.to_rgb8())),
    };
    let flat = flat.as_ref().unwrap_or(image);
    for quality in JPEG_QUALITIES {
        let mut jpeg = Vec::new();
        let encoder = JpegEncoder::new_with_quality(&mut jpeg, quality);
        if flat.write_with_encoder(encoder).is_ok() && jpeg.len() as u64 <= max_bytes {
            return Some((jpeg, ImageFormat::Jpeg));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8])
        }));
        let mut out = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .expect("encode");
        out
    }

    #[test]
    fn fit_keeps_small_images_and_bounds_large_ones() {
        let bounds = ImageBounds::default();
        assert_eq!(fit(800, 600, &bounds), (800, 600));
        let (w, h) = fit(4000, 3000, &bounds);
        assert!(w.max(h) <= 1568 && w * h <= 1_150_000, "{w}x{h}");
        assert!((w as f64 / h as f64 - 4.0 / 3.0).abs() < 0.01);
        let (w, h) = fit(100_000, 10, &bounds);
        assert_eq!((w, h), (1568, 1));
    }

    #[test]
    fn small_images_pass_through_untouched() {
        let bytes = png(64, 48);
        let out = prepare(
            bytes.clone(),
            &ImageBounds::default(),
            ImageOutput::default(),
        );
        assert_eq!(out.refused, None, "{}", out.detail);
        assert_eq!(out.data.0, bytes);
        assert_eq!(
            (out.width, out.height, out.shown_width, out.shown_height),
            (64, 48, 64, 48)
        );
        assert!(!out.downscaled && !out.reencoded);
        assert_eq!(out.media_type, "image/png");
    }

    #[test]
    fn large_images_are_scaled_down_within_every_bound() {
        let bounds = ImageBounds {
            max_edge: 100,
            max_pixels: 5000,
            ..ImageBounds::default()
        };
        let out = prepare(png(400, 200), &bounds, ImageOutput::default());
        assert_eq!(out.refused, None, "{}", out.detail);
        assert!(out.downscaled && out.reencoded);
        assert_eq!((out.width, out.height), (400, 200));
        assert!(out.shown_width <= 100 && out.shown_width * out.shown_height <= 5000);
        let decoded = image::load_from_memory(&out.data.0).expect("decodes");
        assert_eq!(
            (u64::from(decoded.width()), u64::from(decoded.height())),
            (out.shown_width, out.shown_height)
        );
    }

    #[test]
    fn an_encoding_over_the_byte_budget_is_made_smaller() {
        let bounds = ImageBounds {
            max_bytes: 2000,
            ..ImageBounds::default()
        };
        let out = prepare(png(300, 300), &bounds, ImageOutput::default());
        assert_eq!(out.refused, None, "{}", out.detail);
        assert!(out.byte_size <= 2000 && out.data.0.len() as u64 == out.byte_size);
        assert!(out.reencoded);
    }

    #[test]
    fn a_declared_bomb_is_refused_from_its_header() {
        // An IHDR of 30000x30000 and a few bytes of pixel data: the header alone is refused.
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&30000u32.to_be_bytes());
        ihdr.extend_from_slice(&30000u32.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        bytes.extend_from_slice(&13u32.to_be_bytes());
        bytes.extend_from_slice(&ihdr);
        bytes.extend_from_slice(&crc32(&ihdr).to_be_bytes());
        // One IDAT chunk of a deflate stream of zeros: enough to start decoding.
        let mut idat = b"IDAT".to_vec();
        idat.extend_from_slice(&[0x78, 0x9c, 0x63, 0x60, 0x18, 0x05, 0x00]);
        bytes.extend_from_slice(&((idat.len() - 4) as u32).to_be_bytes());
        bytes.extend_from_slice(&idat);
        bytes.extend_from_slice(&crc32(&idat).to_be_bytes());
        let out = prepare(bytes, &ImageBounds::default(), ImageOutput::default());
        assert_eq!(out.refused, Some(Refusal::TooManyPixels), "{}", out.detail);
        assert_eq!((out.width, out.height), (30000, 30000));
        assert!(out.data.0.is_empty());
    }

    #[test]
    fn truncated_and_foreign_bytes_are_refused() {
        let bytes = png(200, 200);
        let out = prepare(
            bytes[..bytes.len() / 2].to_vec(),
            &ImageBounds::default(),
            ImageOutput::default(),
        );
        assert_eq!(out.refused, Some(Refusal::Undecodable), "{}", out.detail);
        let out = prepare(
            b"just text".to_vec(),
            &ImageBounds::default(),
            ImageOutput::default(),
        );
        assert_eq!(out.refused, Some(Refusal::Unsupported));
    }

    #[test]
    fn a_jpeg_cut_mid_scan_is_reencoded_from_what_decoded_and_marked_partial() {
        let image = DynamicImage::ImageRgb8(image::RgbImage::from_fn(200, 150, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 256) as u8])
        }));
        let mut bytes = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Jpeg)
            .expect("encode");
        let out = prepare(
            bytes[..bytes.len() * 2 / 3].to_vec(),
            &ImageBounds::default(),
            ImageOutput::default(),
        );
        assert_eq!(out.refused, None, "{}", out.detail);
        assert!(out.partial && out.reencoded && !out.downscaled);
        assert!(out.detail.contains("end-of-image marker"), "{}", out.detail);
        assert_eq!((out.shown_width, out.shown_height), (200, 150));
        let whole = prepare(
            bytes.clone(),
            &ImageBounds::default(),
            ImageOutput::default(),
        );
        assert!(!whole.partial && !whole.reencoded && whole.detail.is_empty());
        assert_eq!(whole.data.0, bytes);
    }

    /// CRC-32 (IEEE) for the hand-made PNG chunk of the bomb test.
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
