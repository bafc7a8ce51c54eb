//! Line-range reads with memory bounded by what is shown.
//!
//! The file is streamed once through a fixed 64 KiB buffer. Chunks that hold no byte of a shown
//! line are only counted: line breaks with SIMD byte counting (`bytecount`), CRLF pairs with
//! `memchr`, UTF-8 validity with SIMD validation (`simdutf8`); in the chunks around the shown
//! lines breaks are found one at a time with `memchr`. Only the shown lines are kept, each at
//! most `max_line_chars` characters (a longer line is counted, not stored), so reading line
//! 5,000,000 of a 500 MB file costs one pass and a few hundred kilobytes.
//!
//! Definitions (they match ripgrep's line numbers, so a `grep` hit at line N is line N here):
//! - A line ends at `\n`; a `\r` right before it belongs to the terminator and is stripped.
//!   A lone `\r` elsewhere is part of the text. Exception: a file whose first 64 KiB hold a `\r`
//!   but no `\n` is read as classic-Mac text, with lines ending at `\r` (`\r\n` still one break).
//! - `total_lines` is the number of line terminators, plus one when bytes follow the last one (a
//!   final line without a newline counts). `"a\nb"` and `"a\nb\n"` both have 2 lines; `"\n"` has 1.
//! - Files up to [`EXACT_COUNT_LIMIT`] bytes (1 GiB) are read to the end: `total_lines` is exact,
//!   and `encoding` and `line_ending` describe the whole file. Above it, reading stops once the
//!   shown lines are collected and at least [`ESTIMATE_SAMPLE_BYTES`] were read: `total_lines` is
//!   extrapolated from the bytes per line seen so far and marked as an estimate, and `encoding`
//!   and `line_ending` describe the bytes read (the start of the file through the shown lines).
//!   A read that reaches the end of the file anyway (an offset near or past the end) is exact.

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStringExt;
use std::rc::Rc;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};
use encoding_rs_io::DecodeReaderBytesBuilder;
use memchr::memchr;

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::keyblock::StreamBlocks;
use crate::open::OpenedFile;
use crate::open::display_relative;
use crate::workspace::Workspace;

/// Default number of lines returned.
pub const DEFAULT_READ_LIMIT: usize = 400;
/// Lines longer than this many characters are cut.
pub const DEFAULT_MAX_LINE_CHARS: usize = 500;
/// Files up to this size get an exact line count; larger ones an estimate.
pub const EXACT_COUNT_LIMIT: u64 = 1 << 30;
/// A NUL byte within this many leading bytes makes a file binary.
pub const BINARY_SNIFF_BYTES: usize = 8192;
/// Above the exact-count limit, at least this much of the file is read to estimate the line total
/// (capped at the exact-count limit itself).
pub const ESTIMATE_SAMPLE_BYTES: u64 = 1 << 20;
/// Close names offered when the file does not exist.
pub const MAX_SUGGESTIONS: usize = 5;

mod lines;

use lines::{CHUNK_BYTES, Scanner};

/// What to read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// File path, relative to the root or absolute inside it.
    pub path: OsString,
    /// 1-based first line (default 1).
    pub offset: u64,
    /// Lines returned at most (default 400).
    pub limit: usize,
    /// Line length cap in characters (default 500).
    pub max_line_chars: usize,
    /// Files up to this many bytes are counted exactly (default [`EXACT_COUNT_LIMIT`], 1 GiB).
    pub exact_count_limit: u64,
    /// Stops the read when cancelled (checked per 64 KiB chunk; the call then fails with
    /// `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            path: OsString::new(),
            offset: 1,
            limit: DEFAULT_READ_LIMIT,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            exact_count_limit: EXACT_COUNT_LIMIT,
            cancel: CancelToken::default(),
        }
    }
}

crate::record! {
    "ReadLine",
    /// One shown line.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ReadLine {
        /// 1-based line number.
        pub number: u64,
        /// The line without its terminator, cut to max_line_chars characters.
        pub text: String,
        /// The line's full length in characters when it was cut (invalid bytes count as the
        /// replacement characters they are shown as).
        pub cut_from: Option<u64>,
    }
}

crate::choice! {
    /// What kind of content the file holds.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum ContentKind {
        /// Text: lines are returned.
        #[default]
        Text = "text",
        /// Zero bytes, or nothing but a byte-order mark.
        Empty = "empty",
        /// A NUL byte in the first 8 KiB, or a recognised binary format whose first 8 KiB are
        /// not UTF-8: nothing is dumped.
        Binary = "binary",
    }
}

crate::record! {
    "ReadResult",
    /// What a read returned.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct ReadOutput {
        /// The file, relative to the root (its real path, raw bytes: a non-UTF-8 name
        /// round-trips, as a str with surrogate escapes in Python).
        pub path: OsString,
        /// text, empty, or binary (content not shown).
        pub kind: ContentKind,
        /// For a binary file: a type guess such as "PNG image (image/png)" or "ELF executable
        /// (application/x-executable)"; null when unknown.
        pub binary_type: Option<String>,
        /// File size in bytes.
        pub size_bytes: u64,
        /// Device number of the file that was read (with inode and mtime_ns, what the read
        /// state keys on).
        pub dev: u64,
        /// Inode number of the file that was read.
        pub inode: u64,
        /// Modification time of the file that was read, in nanoseconds since the Unix epoch.
        pub mtime_ns: i64,
        /// The lines read (none when offset lies past the end).
        pub lines: Vec<ReadLine>,
        /// 1-based first line requested.
        pub offset: u64,
        /// Lines in the file (exact up to 1 GiB, else an estimate, see total_lines_estimated).
        pub total_lines: u64,
        /// True when total_lines is estimated from the size.
        pub total_lines_estimated: bool,
        /// The offset that reads on, when more lines follow.
        pub next_offset: Option<u64>,
        /// "utf-8", "utf-8-bom", "utf-16le", "utf-16be", or "utf-8-lossy" when invalid bytes
        /// were replaced (with or without a BOM); "binary" for binary files.
        pub encoding: String,
        /// "LF", "CRLF", "mixed" (both LF and CRLF, or CR and CRLF), "CR" or "none" (no line
        /// break).
        pub line_ending: String,
        /// Numbers of this page's lines that lie in a private-key block (PEM BEGIN ... PRIVATE
        /// KEY through its END line, or to the end of the file): their text is withheld (empty).
        pub withheld_key_lines: Vec<u64>,
    }
}

crate::record! {
    "FileIdentity",
    /// What `identify` found: the identity of the file a path opens and its real path.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct Identified {
        /// The file's real path relative to the root (raw bytes).
        pub path: OsString,
        /// Device number.
        pub dev: u64,
        /// Inode number.
        pub inode: u64,
        /// Size in bytes.
        pub size: u64,
        /// Modification time in nanoseconds since the Unix epoch.
        pub mtime_ns: i64,
    }
}

/// Opens `path` as [`read_file`] would (boundary, deny rules, regular files only) and returns
/// the opened file's identity (`fstat` of the descriptor) without reading it.
pub fn identify(workspace: &Workspace, path: &OsStr) -> Result<Identified, CoreError> {
    let opened = workspace.open_file(path)?;
    Ok(Identified {
        path: OsString::from_vec(opened.real),
        dev: opened.identity.dev,
        inode: opened.identity.ino,
        size: opened.identity.size,
        mtime_ns: opened.identity.mtime_ns,
    })
}

/// Reads a range of lines from one file.
///
/// Resolves `options.path` inside the root (deny rules refuse; ignore rules do not), refuses
/// directories and special files without opening them, and reports binary and empty files as
/// such. A missing file gives `NotFound` with up to [`MAX_SUGGESTIONS`] close names. An offset
/// past the end is not an error: the result has no lines and the exact total.
pub fn read_file(workspace: &Workspace, options: &ReadOptions) -> Result<ReadOutput, CoreError> {
    if options.offset == 0 {
        return Err(CoreError::InvalidArgument {
            message: "offset is 1-based: the first line is offset 1, not 0.".into(),
        });
    }
    if options.limit == 0 {
        return Err(CoreError::InvalidArgument {
            message: format!("limit must be at least 1 line (default {DEFAULT_READ_LIMIT})."),
        });
    }
    if options.max_line_chars == 0 {
        return Err(CoreError::InvalidArgument {
            message: format!(
                "max_line_chars must be at least 1 (default {DEFAULT_MAX_LINE_CHARS})."
            ),
        });
    }
    let opened = open_to_read(workspace, &options.path)?;
    let shown = display_relative(&opened.relative);
    let mut file = opened.file;
    let size = opened.identity.size;

    let io_err = |e: io::Error| CoreError::from_io(&shown, e);
    let mut head = vec![0u8; BINARY_SNIFF_BYTES];
    let got = read_full(&mut file, &mut head).map_err(io_err)?;
    head.truncate(got);

    let mut out = ReadOutput {
        path: OsString::from_vec(opened.real),
        dev: opened.identity.dev,
        inode: opened.identity.ino,
        mtime_ns: opened.identity.mtime_ns,
        size_bytes: size,
        offset: options.offset,
        line_ending: "none".into(),
        ..ReadOutput::default()
    };
    if head.is_empty() {
        out.kind = ContentKind::Empty;
        out.encoding = "utf-8".into();
        return Ok(out);
    }

    let source = if head.starts_with(&[0xFF, 0xFE]) {
        Source::Utf16(UTF_16LE)
    } else if head.starts_with(&[0xFE, 0xFF]) {
        Source::Utf16(UTF_16BE)
    } else {
        let bom = head.starts_with(&[0xEF, 0xBB, 0xBF]);
        let body = if bom { &head[3..] } else { &head[..] };
        if let Some(guess) = sniff_binary(body) {
            out.kind = ContentKind::Binary;
            out.binary_type = guess;
            out.encoding = "binary".into();
            return Ok(out);
        }
        Source::Utf8 { bom }
    };

    let plan = Plan {
        cancel: &options.cancel,
        size,
        exact: size <= options.exact_count_limit,
        sample: ESTIMATE_SAMPLE_BYTES.min(options.exact_count_limit.max(1)),
    };
    let consumed = Rc::new(Cell::new(0u64));
    let (scanner, blocks, reached_end) = match source {
        Source::Utf8 { bom } => {
            let skip = if bom { 3 } else { 0 };
            file.seek(SeekFrom::Start(skip)).map_err(io_err)?;
            consumed.set(skip);
            let mut reader = Counted {
                inner: file,
                count: Rc::clone(&consumed),
            };
            let scanner = Scanner::new(options, true);
            scan(scanner, &mut reader, &consumed, &plan)
        }
        Source::Utf16(encoding) => {
            file.seek(SeekFrom::Start(0)).map_err(io_err)?;
            let counted = Counted {
                inner: file,
                count: Rc::clone(&consumed),
            };
            let mut reader = DecodeReaderBytesBuilder::new()
                .encoding(Some(encoding))
                .strip_bom(true)
                .build(counted);
            let scanner = Scanner::new(options, false);
            scan(scanner, &mut reader, &consumed, &plan)
        }
    }
    .map_err(|e| match e {
        Stop::Cancelled => CoreError::Cancelled,
        Stop::Io(e) => io_err(e),
    })?;

    let terminated = scanner.terminators;
    let (total, estimated) = if reached_end {
        (terminated + u64::from(scanner.partial), false)
    } else {
        let read = consumed.get().max(1);
        let guess = (terminated as f64 * size as f64 / read as f64).round() as u64;
        (guess.max(terminated + 1), true)
    };
    out.encoding = match source {
        Source::Utf16(e) if e == UTF_16LE => "utf-16le".into(),
        Source::Utf16(_) => "utf-16be".into(),
        Source::Utf8 { .. } if scanner.invalid_utf8() => "utf-8-lossy".into(),
        Source::Utf8 { bom: true } => "utf-8-bom".into(),
        Source::Utf8 { bom: false } => "utf-8".into(),
    };
    out.line_ending = scanner.line_ending().into();
    if total == 0 {
        // Only a byte-order mark.
        out.kind = ContentKind::Empty;
        return Ok(out);
    }
    out.lines = scanner.lines;
    withhold_keys(&mut out, &blocks);
    let shown_lines = out.lines.len() as u64;
    if shown_lines > 0 {
        let last = options.offset + shown_lines - 1;
        if !reached_end || last < total {
            out.next_offset = Some(last + 1);
        }
    }
    out.total_lines = total;
    out.total_lines_estimated = estimated;
    Ok(out)
}

/// Opens `path` to read it whole or in part: beneath the root in one step, non-blocking,
/// refused unread unless a regular file (see `crate::boundary`); a missing path (a file used as
/// a directory on the way is one too) comes with up to [`MAX_SUGGESTIONS`] close names.
pub(crate) fn open_to_read(workspace: &Workspace, path: &OsStr) -> Result<OpenedFile, CoreError> {
    match workspace.open_file(path) {
        Err(CoreError::NotFound { path: shown, .. }) => Err(CoreError::NotFound {
            suggestions: workspace.suggest(&path.to_string_lossy(), MAX_SUGGESTIONS),
            path: shown,
        }),
        other => other,
    }
}

#[derive(Clone, Copy)]
enum Source {
    Utf8 { bom: bool },
    Utf16(&'static Encoding),
}

struct Plan<'a> {
    cancel: &'a CancelToken,
    size: u64,
    exact: bool,
    sample: u64,
}

fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// `Some(type guess)` when the head of a file says binary, `None` for text.
fn sniff_binary(head: &[u8]) -> Option<Option<String>> {
    let guess = infer::get(head).filter(|t| t.matcher_type() != infer::MatcherType::Text);
    if memchr(0, head).is_some() {
        return Some(guess.map(describe));
    }
    // A recognised format without NUL (a PDF's first kilobytes, say) is binary too, unless the
    // head is valid UTF-8 (a text file that happens to start with "%PDF" or "MZ").
    let guess = guess?;
    match std::str::from_utf8(head) {
        Err(e) if e.error_len().is_some() => Some(Some(describe(guess))),
        _ => None,
    }
}

fn describe(kind: infer::Type) -> String {
    use infer::MatcherType;
    let name = match kind.extension() {
        "png" => "PNG image".to_string(),
        "jpg" => "JPEG image".to_string(),
        "gif" => "GIF image".to_string(),
        "webp" => "WebP image".to_string(),
        "pdf" => "PDF document".to_string(),
        "zip" => "ZIP archive".to_string(),
        "gz" => "gzip-compressed data".to_string(),
        "tar" => "tar archive".to_string(),
        "elf" => "ELF executable".to_string(),
        "mach" => "Mach-O executable".to_string(),
        "exe" | "dll" => "Windows PE executable".to_string(),
        "wasm" => "WebAssembly module".to_string(),
        "sqlite" => "SQLite database".to_string(),
        "class" => "Java class file".to_string(),
        other => {
            let noun = match kind.matcher_type() {
                MatcherType::App => "binary",
                MatcherType::Archive => "archive",
                MatcherType::Audio => "audio",
                MatcherType::Book => "e-book",
                MatcherType::Doc => "document",
                MatcherType::Font => "font",
                MatcherType::Image => "image",
                MatcherType::Video => "video",
                MatcherType::Text | MatcherType::Custom => "file",
            };
            format!("{} {noun}", other.to_uppercase())
        }
    };
    format!("{name} ({})", kind.mime_type())
}

/// A reader that counts the bytes it hands out (the source bytes, before any transcoding).
struct Counted<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Why [`scan`] stopped before the end.
enum Stop {
    Cancelled,
    Io(io::Error),
}

/// Streams the reader through the scanner and the key-block finder. Returns both and whether
/// the end was reached.
fn scan(
    mut scanner: Scanner,
    reader: &mut impl Read,
    consumed: &Cell<u64>,
    plan: &Plan<'_>,
) -> Result<(Scanner, StreamBlocks, bool), Stop> {
    let mut buf = vec![0u8; CHUNK_BYTES];
    let mut blocks = StreamBlocks::default();
    loop {
        if plan.cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        if !plan.exact
            && scanner.collected_all()
            && consumed.get() >= plan.sample
            && consumed.get() < plan.size
        {
            blocks.finish(scanner.terminator());
            return Ok((scanner, blocks, false));
        }
        let n = read_full(reader, &mut buf).map_err(Stop::Io)?;
        if n == 0 {
            scanner.finish();
            blocks.finish(scanner.terminator());
            return Ok((scanner, blocks, true));
        }
        scanner.feed(&buf[..n]);
        blocks.feed(&buf[..n], scanner.terminator());
    }
}

/// Withholds the shown lines that lie in a private-key block (SPEC §2.5) and counts them.
fn withhold_keys(out: &mut ReadOutput, blocks: &StreamBlocks) {
    let (Some(first), Some(last)) = (out.lines.first(), out.lines.last()) else {
        return;
    };
    if blocks.within(first.number, last.number) == 0 {
        return;
    }
    for line in &mut out.lines {
        if blocks.covers(line.number) {
            line.text.clear();
            line.cut_from = None;
            out.withheld_key_lines.push(line.number);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_sniffing() {
        assert!(sniff_binary(b"plain text\n").is_none());
        assert!(sniff_binary(b"%PDF-1.7 about pdfs, all text\n").is_none());
        let pdf = sniff_binary(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n").expect("binary");
        assert!(pdf.expect("type").starts_with("PDF document"));
        let png = sniff_binary(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").expect("binary");
        assert!(png.expect("type").starts_with("PNG image"));
        assert_eq!(sniff_binary(b"abc\0def"), Some(None));
    }
}
