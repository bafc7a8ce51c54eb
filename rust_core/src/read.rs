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
use std::ffi::OsString;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStringExt;
use std::rc::Rc;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};
use encoding_rs_io::DecodeReaderBytesBuilder;
use memchr::memchr;

use crate::boundary::FileIdentity;
use crate::error::CoreError;
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

const CHUNK_BYTES: usize = 64 * 1024;

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
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            path: OsString::new(),
            offset: 1,
            limit: DEFAULT_READ_LIMIT,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            exact_count_limit: EXACT_COUNT_LIMIT,
        }
    }
}

/// One shown line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadLine {
    /// 1-based line number.
    pub number: u64,
    /// Text without the line terminator, cut to `max_line_chars`.
    pub text: String,
    /// The line's full length in characters when it was cut (invalid bytes count as the
    /// replacement characters they are shown as).
    pub cut_from: Option<u64>,
}

/// What kind of content the file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContentKind {
    /// Text: lines are returned.
    #[default]
    Text,
    /// Zero bytes, or nothing but a byte-order mark.
    Empty,
    /// A NUL byte in the first 8 KiB, or a recognised binary format whose first 8 KiB are not
    /// UTF-8: nothing is dumped.
    Binary,
}

/// What a read returned.
#[derive(Clone, Debug, Default)]
pub struct ReadOutput {
    /// Path relative to the root.
    pub path: OsString,
    /// Text, empty or binary.
    pub kind: ContentKind,
    /// For binary files: a type guess such as "PNG image (image/png)", "PDF document
    /// (application/pdf)", "ELF executable (application/x-executable)"; `None` when unknown.
    pub binary_type: Option<String>,
    /// File size in bytes.
    pub size_bytes: u64,
    /// Device, inode, size and mtime of the file that was read (what the read state keys on).
    pub identity: FileIdentity,
    /// The shown lines (empty when `offset` lies past the end).
    pub lines: Vec<ReadLine>,
    /// The requested first line.
    pub offset: u64,
    /// Lines in the file (exact up to 1 GiB, else an estimate; see the module docs).
    pub total_lines: u64,
    /// True when `total_lines` is an estimate.
    pub total_lines_estimated: bool,
    /// Where to read on (`offset` of the next page) when more lines follow.
    pub next_offset: Option<u64>,
    /// "utf-8", "utf-8-bom", "utf-16le", "utf-16be", or "utf-8-lossy" when invalid bytes were
    /// replaced (with or without a BOM); "binary" for binary files.
    pub encoding: String,
    /// "LF", "CRLF", "mixed" (both LF and CRLF, or CR and CRLF), "CR" or "none" (no line break).
    pub line_ending: String,
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
    // Opened beneath the root in one step, non-blocking, refused unread unless a regular file
    // (see `crate::boundary`); a file used as a directory on the way is a missing path too.
    let opened = match workspace.open_file(&options.path) {
        Ok(opened) => opened,
        Err(CoreError::NotFound { path, .. }) => {
            return Err(CoreError::NotFound {
                suggestions: workspace.suggest(&options.path.to_string_lossy(), MAX_SUGGESTIONS),
                path,
            });
        }
        Err(error) => return Err(error),
    };
    let shown = display_relative(&opened.relative);
    let mut file = opened.file;
    let size = opened.identity.size;

    let io_err = |e: io::Error| CoreError::from_io(&shown, e);
    let mut head = vec![0u8; BINARY_SNIFF_BYTES];
    let got = read_full(&mut file, &mut head).map_err(io_err)?;
    head.truncate(got);

    let mut out = ReadOutput {
        path: OsString::from_vec(opened.real),
        identity: opened.identity,
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
        size,
        exact: size <= options.exact_count_limit,
        sample: ESTIMATE_SAMPLE_BYTES.min(options.exact_count_limit.max(1)),
    };
    let consumed = Rc::new(Cell::new(0u64));
    let (scanner, reached_end) = match source {
        Source::Utf8 { bom } => {
            let skip = if bom { 3 } else { 0 };
            file.seek(SeekFrom::Start(skip)).map_err(io_err)?;
            consumed.set(skip);
            let mut reader = Counted {
                inner: file,
                count: Rc::clone(&consumed),
            };
            let scanner = Scanner::new(options, true);
            scan(scanner, &mut reader, &consumed, &plan).map_err(io_err)?
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
            scan(scanner, &mut reader, &consumed, &plan).map_err(io_err)?
        }
    };

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

#[derive(Clone, Copy)]
enum Source {
    Utf8 { bom: bool },
    Utf16(&'static Encoding),
}

struct Plan {
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

/// Streams the reader through the scanner. Returns the scanner and whether the end was reached.
fn scan(
    mut scanner: Scanner,
    reader: &mut impl Read,
    consumed: &Cell<u64>,
    plan: &Plan,
) -> io::Result<(Scanner, bool)> {
    let mut buf = vec![0u8; CHUNK_BYTES];
    loop {
        if !plan.exact
            && scanner.collected_all()
            && consumed.get() >= plan.sample
            && consumed.get() < plan.size
        {
            return Ok((scanner, false));
        }
        let n = read_full(reader, &mut buf)?;
        if n == 0 {
            scanner.finish();
            return Ok((scanner, true));
        }
        scanner.feed(&buf[..n]);
    }
}

/// The line splitter: counts every line, keeps the shown ones.
struct Scanner {
    first: u64,
    end: u64,
    max_chars: usize,
    /// Decided on the first chunk: lines end at `\r` instead of `\n`.
    cr_mode: Option<bool>,
    terminators: u64,
    /// Bytes follow the last terminator.
    partial: bool,
    lf: u64,
    crlf: u64,
    cr: u64,
    prev: Option<u8>,
    /// CR mode: a `\n` at the start of the next chunk belongs to the last `\r`.
    skip_lf: bool,
    line: LineBuffer,
    lines: Vec<ReadLine>,
    utf8: Option<Utf8Check>,
    /// Count chunks outside the window in bulk (off only to test it against the per-line loop).
    bulk: bool,
}

impl Scanner {
    fn new(options: &ReadOptions, check_utf8: bool) -> Scanner {
        Scanner {
            first: options.offset,
            end: options.offset.saturating_add(options.limit as u64),
            max_chars: options.max_line_chars,
            cr_mode: None,
            terminators: 0,
            partial: false,
            lf: 0,
            crlf: 0,
            cr: 0,
            prev: None,
            skip_lf: false,
            line: LineBuffer::new(options.max_line_chars),
            lines: Vec::with_capacity(options.limit.min(1024)),
            utf8: check_utf8.then(Utf8Check::default),
            bulk: true,
        }
    }

    fn line_number(&self) -> u64 {
        self.terminators + 1
    }

    fn collecting(&self) -> bool {
        let n = self.line_number();
        n >= self.first && n < self.end
    }

    fn collected_all(&self) -> bool {
        self.line_number() >= self.end
    }

    fn invalid_utf8(&self) -> bool {
        self.utf8.as_ref().is_some_and(|c| c.invalid)
    }

    fn line_ending(&self) -> &'static str {
        if self.cr_mode == Some(true) {
            return if self.crlf > 0 { "mixed" } else { "CR" };
        }
        match (self.lf > 0, self.crlf > 0) {
            (true, true) => "mixed",
            (false, true) => "CRLF",
            (true, false) => "LF",
            (false, false) => "none",
        }
    }

    fn feed(&mut self, buf: &[u8]) {
        if let Some(check) = &mut self.utf8 {
            check.feed(buf);
        }
        // Classic-Mac text: the first chunk has a `\r` but no `\n`. A `\r` that is the last byte
        // of a full chunk may be half of a CRLF, so it alone does not decide.
        let cr_mode = *self.cr_mode.get_or_insert_with(|| {
            memchr(b'\n', buf).is_none()
                && memchr(b'\r', buf).is_some_and(|i| i + 1 < buf.len() || buf.len() < CHUNK_BYTES)
        });
        if !cr_mode && self.bulk && self.feed_outside_window(buf) {
            return;
        }
        let term = if cr_mode { b'\r' } else { b'\n' };
        let mut i = 0;
        if self.skip_lf {
            self.skip_lf = false;
            if buf.first() == Some(&b'\n') {
                self.cr -= 1;
                self.crlf += 1;
                i = 1;
            }
        }
        while i < buf.len() {
            let collecting = self.collecting();
            let Some(k) = memchr(term, &buf[i..]) else {
                if collecting {
                    self.line.push(&buf[i..]);
                }
                self.partial = true;
                break;
            };
            let p = i + k;
            if cr_mode {
                self.cr += 1;
            } else {
                let before = if p > 0 { Some(buf[p - 1]) } else { self.prev };
                if before == Some(b'\r') {
                    self.crlf += 1;
                } else {
                    self.lf += 1;
                }
            }
            if collecting {
                self.line.push(&buf[i..p]);
                let number = self.line_number();
                self.lines
                    .push(self.line.finish(number, !cr_mode, self.max_chars));
            }
            self.terminators += 1;
            self.partial = false;
            i = p + 1;
            if cr_mode {
                if i < buf.len() {
                    if buf[i] == b'\n' {
                        self.cr -= 1;
                        self.crlf += 1;
                        i += 1;
                    }
                } else {
                    self.skip_lf = true;
                }
            }
        }
        self.prev = buf.last().copied();
    }

    /// LF mode: when no byte of `buf` belongs to a shown line, counts its line breaks with
    /// SIMD counting instead of finding them one at a time, and returns true. Same bookkeeping
    /// as the per-line loop: terminators, LF vs CRLF, whether bytes follow the last break.
    fn feed_outside_window(&mut self, buf: &[u8]) -> bool {
        let Some(&last) = buf.last() else {
            return true;
        };
        let line = self.line_number();
        if line >= self.first && line < self.end {
            return false;
        }
        // `bytecount` measured 1.4x faster than `memchr_iter(..).count()` here (69 vs 49 GB/s).
        let newlines = bytecount::count(buf, b'\n') as u64;
        // Before the window, the line the chunk ends in must still lie before it.
        if line < self.first && line.saturating_add(newlines) >= self.first {
            return false;
        }
        let mut crlf = 0;
        if memchr(b'\r', buf).is_some() {
            crlf = memchr::memmem::find_iter(buf, b"\r\n").count() as u64;
        }
        if self.prev == Some(b'\r') && buf[0] == b'\n' {
            crlf += 1;
        }
        self.crlf += crlf;
        self.lf += newlines - crlf;
        self.terminators += newlines;
        self.partial = last != b'\n';
        self.prev = Some(last);
        true
    }

    fn finish(&mut self) {
        if let Some(check) = &mut self.utf8 {
            check.finish();
        }
        if self.partial && self.collecting() {
            let number = self.line_number();
            let strip = self.cr_mode != Some(true);
            self.lines
                .push(self.line.finish(number, strip, self.max_chars));
        }
    }
}

/// The bytes of the line being collected: its head is kept (enough for `max_chars` characters),
/// the rest only counted.
struct LineBuffer {
    kept: Vec<u8>,
    cap: usize,
    overflow: Option<LossyCounter>,
    last: Option<u8>,
}

impl LineBuffer {
    fn new(max_chars: usize) -> LineBuffer {
        // Every character takes at most 4 bytes, so this many bytes hold more than `max_chars`.
        let cap = max_chars.saturating_add(1).saturating_mul(4);
        LineBuffer {
            kept: Vec::new(),
            cap,
            overflow: None,
            last: None,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        self.last = Some(last);
        if let Some(counter) = &mut self.overflow {
            counter.feed(bytes);
            return;
        }
        let room = self.cap - self.kept.len();
        if bytes.len() <= room {
            self.kept.extend_from_slice(bytes);
        } else {
            self.kept.extend_from_slice(&bytes[..room]);
            let mut counter = LossyCounter::default();
            counter.feed(&self.kept);
            counter.feed(&bytes[room..]);
            self.overflow = Some(counter);
        }
    }

    fn finish(&mut self, number: u64, strip_cr: bool, max_chars: usize) -> ReadLine {
        let ends_cr = strip_cr && self.last == Some(b'\r');
        let line = match self.overflow.take() {
            None => {
                if ends_cr {
                    self.kept.pop();
                }
                let text = String::from_utf8_lossy(&self.kept);
                let (shown, total) = cut_chars(&text, max_chars);
                ReadLine {
                    number,
                    text: shown,
                    cut_from: (total > max_chars as u64).then_some(total),
                }
            }
            Some(counter) => {
                let total = counter.finish() - u64::from(ends_cr);
                let text = String::from_utf8_lossy(&self.kept);
                let (shown, _) = cut_chars(&text, max_chars);
                ReadLine {
                    number,
                    text: shown,
                    cut_from: Some(total),
                }
            }
        };
        self.kept.clear();
        self.last = None;
        line
    }
}

/// The first `max` characters of `text` and its character count.
fn cut_chars(text: &str, max: usize) -> (String, u64) {
    match text.char_indices().nth(max) {
        None => (text.to_string(), text.chars().count() as u64),
        Some((end, _)) => (
            text[..end].to_string(),
            (max + text[end..].chars().count()) as u64,
        ),
    }
}

/// Counts the characters `String::from_utf8_lossy` would produce from a byte stream fed in pieces
/// (each maximal invalid sequence is one replacement character).
#[derive(Default)]
struct LossyCounter {
    chars: u64,
    carry: [u8; 4],
    carry_len: usize,
}

impl LossyCounter {
    fn feed(&mut self, mut bytes: &[u8]) {
        // Complete a sequence split across pieces, one byte at a time.
        while self.carry_len > 0 && !bytes.is_empty() {
            self.carry[self.carry_len] = bytes[0];
            self.carry_len += 1;
            bytes = &bytes[1..];
            match std::str::from_utf8(&self.carry[..self.carry_len]) {
                Ok(_) => {
                    self.chars += 1;
                    self.carry_len = 0;
                }
                Err(e) => match e.error_len() {
                    None => {}
                    Some(bad) => {
                        self.chars += 1;
                        let rest = self.carry;
                        let rest_len = self.carry_len;
                        self.carry_len = 0;
                        self.feed(&rest[bad..rest_len]);
                    }
                },
            }
        }
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.chars += text.chars().count() as u64;
                    return;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    self.chars += count_utf8_chars(&bytes[..valid]);
                    match e.error_len() {
                        Some(bad) => {
                            self.chars += 1;
                            bytes = &bytes[valid + bad..];
                        }
                        None => {
                            let rest = &bytes[valid..];
                            self.carry[..rest.len()].copy_from_slice(rest);
                            self.carry_len = rest.len();
                            return;
                        }
                    }
                }
            }
        }
    }

    fn finish(mut self) -> u64 {
        if self.carry_len > 0 {
            self.chars += 1;
            self.carry_len = 0;
        }
        self.chars
    }
}

/// Characters in bytes known to be valid UTF-8: every byte that is not a continuation byte.
fn count_utf8_chars(valid: &[u8]) -> u64 {
    valid.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

/// Notices invalid UTF-8 in a byte stream fed in pieces.
#[derive(Default)]
struct Utf8Check {
    carry: Vec<u8>,
    invalid: bool,
}

impl Utf8Check {
    fn feed(&mut self, mut bytes: &[u8]) {
        if self.invalid {
            return;
        }
        while !self.carry.is_empty() && !bytes.is_empty() {
            self.carry.push(bytes[0]);
            bytes = &bytes[1..];
            match std::str::from_utf8(&self.carry) {
                Ok(_) => self.carry.clear(),
                Err(e) if e.error_len().is_none() => {}
                Err(_) => {
                    self.invalid = true;
                    return;
                }
            }
        }
        // SIMD validation: the whole file is checked, so the header can say "utf-8-lossy".
        if let Err(e) = simdutf8::compat::from_utf8(bytes) {
            match e.error_len() {
                Some(_) => self.invalid = true,
                None => self.carry = bytes[e.valid_up_to()..].to_vec(),
            }
        }
    }

    fn finish(&mut self) {
        if !self.carry.is_empty() {
            self.invalid = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_counter_matches_from_utf8_lossy_for_any_split() {
        let samples: Vec<Vec<u8>> = vec![
            "héllo wörld 中文 🎉".as_bytes().to_vec(),
            b"ab\xffcd\xe2\x82ef\xf0\x9f\x8e".to_vec(),
            b"\x80\x80\x80\xe2\x82\xac\xc3".to_vec(),
            b"\xed\xa0\x80x\xf4\x90\x80\x80y".to_vec(),
        ];
        for bytes in samples {
            let expected = String::from_utf8_lossy(&bytes).chars().count() as u64;
            for split_a in 0..=bytes.len() {
                for split_b in split_a..=bytes.len() {
                    let mut counter = LossyCounter::default();
                    counter.feed(&bytes[..split_a]);
                    counter.feed(&bytes[split_a..split_b]);
                    counter.feed(&bytes[split_b..]);
                    assert_eq!(
                        counter.finish(),
                        expected,
                        "{bytes:?} at {split_a}/{split_b}"
                    );
                }
            }
        }
    }

    #[test]
    fn utf8_check_finds_invalid_bytes_across_splits() {
        let valid = "aé中🎉z".as_bytes();
        for split in 0..=valid.len() {
            let mut check = Utf8Check::default();
            check.feed(&valid[..split]);
            check.feed(&valid[split..]);
            check.finish();
            assert!(!check.invalid, "split {split}");
        }
        let invalid = b"a\xe4\xb8z";
        for split in 0..=invalid.len() {
            let mut check = Utf8Check::default();
            check.feed(&invalid[..split]);
            check.feed(&invalid[split..]);
            check.finish();
            assert!(check.invalid, "split {split}");
        }
        let mut truncated = Utf8Check::default();
        truncated.feed(b"ok\xe4\xb8");
        truncated.finish();
        assert!(truncated.invalid);
    }

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

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }
    }

    fn scan_all(bytes: &[u8], options: &ReadOptions, bulk: bool, splits: &[usize]) -> String {
        let mut scanner = Scanner::new(options, true);
        scanner.bulk = bulk;
        let mut at = 0;
        for &split in splits.iter().chain([bytes.len()].iter()) {
            let split = split.clamp(at, bytes.len());
            if split > at {
                scanner.feed(&bytes[at..split]);
            }
            at = split;
        }
        scanner.finish();
        format!(
            "{:?} t={} p={} lf={} crlf={} cr={} ending={} invalid={}",
            scanner.lines,
            scanner.terminators,
            scanner.partial,
            scanner.lf,
            scanner.crlf,
            scanner.cr,
            scanner.line_ending(),
            scanner.invalid_utf8()
        )
    }

    #[test]
    fn bulk_counting_outside_the_window_matches_the_per_line_loop() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let pieces: [&[u8]; 8] = [
            b"a",
            b"word ",
            b"\n",
            b"\r\n",
            b"\r",
            "é中".as_bytes(),
            b"\xff",
            b"\xe4\xb8",
        ];
        for case in 0..40 {
            let len = 1 + rng.below(200_000);
            let mut bytes = Vec::with_capacity(len + 8);
            // Some files LF only, some with CRLF, some with invalid bytes.
            let allowed = [3, 4, 6, 8][case % 4];
            while bytes.len() < len {
                bytes.extend_from_slice(pieces[rng.below(allowed as u64)]);
            }
            let lines = bytes.iter().filter(|&&b| b == b'\n').count();
            for offset in [1, 2, lines / 3 + 1, lines / 2, lines, lines + 1, lines + 5] {
                let options = ReadOptions {
                    offset: offset.max(1) as u64,
                    limit: 1 + rng.below(50),
                    max_line_chars: 5 + rng.below(100),
                    ..ReadOptions::default()
                };
                // Chunks as `scan` feeds them, and odd splits (inside CRLF pairs, characters).
                let full: Vec<usize> = (1..=bytes.len() / CHUNK_BYTES)
                    .map(|i| i * CHUNK_BYTES)
                    .collect();
                let mut odd: Vec<usize> =
                    (0..6).map(|_| rng.below(bytes.len() as u64 + 1)).collect();
                odd.sort_unstable();
                for splits in [&full, &odd] {
                    assert_eq!(
                        scan_all(&bytes, &options, true, splits),
                        scan_all(&bytes, &options, false, splits),
                        "case {case}, offset {offset}, splits {splits:?}"
                    );
                }
            }
        }
    }
}
