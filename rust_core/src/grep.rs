//! Bounded regex search over the workspace's file set.
//!
//! The search runs inside the one parallel walk of [`crate::walk`] (as ripgrep's
//! `search_parallel`): every walker thread owns its `Searcher`s and its results. The threads
//! share the workspace's cached matcher rather than a clone each: a clone starts with empty
//! lazy-DFA caches, while the shared one keeps them from call to call (a Unicode `\w` pattern
//! repeated on a small repository costs a sixth less). At the end the per-thread results are
//! sorted by path, so the output is identical run to run.
//!
//! Exactness and memory: every file is searched to its end, so `total_matches` (matching lines)
//! and `total_files` are exact. Only what may reach the page is stored. Let `K = offset + limit`
//! entries (matching lines in content mode, files in the file modes). Each thread keeps the files
//! with matches in path order and drops the last of them while the ones before already hold `K`
//! entries: the global order is by path, so a dropped file's entries all come after the page, and
//! a file that reaches the page has every file before it kept (by some thread). A file also keeps
//! the text of its first `K` matches only, and a file that would be dropped right away is searched
//! without line numbers, context or text: the fastest mode of the searcher. Memory is thus
//! bounded by threads × `K` stored lines, whatever the number of matches.
//!
//! Skipped and counted: binary files (a NUL byte anywhere, detected while reading; a UTF-16 file
//! with a BOM is transcoded first and is text), files over [`MAX_FILE_BYTES`] (`too_large`),
//! files that fail to open or read (`unreadable`); plus everything the walk skips.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::time::Instant;

use globset::GlobMatcher;
use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use crate::error::CoreError;
use crate::walk::{
    FileVisitor, GREP_SEQUENTIAL_MAX_ENTRIES, Target, WalkedFile, cached_glob, open_target,
    walk_files,
};
use crate::workspace::{RegexKey, SkipCounts, Workspace};

/// Default number of matches returned.
pub const DEFAULT_GREP_LIMIT: usize = 50;
/// Each shown line is cut to this many characters (a window around the match when it lies further).
pub const DEFAULT_MAX_LINE_CHARS: usize = 120;
/// Files larger than this (256 MiB) are not searched; they are counted as `too_large`.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// When a line is cut and its match starts within the first `max_line_chars` minus this many
/// characters, the head of the line is shown; otherwise a window around the match.
const MATCH_ROOM: usize = 16;

/// What grep returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    /// Matching lines with context (default).
    #[default]
    Content,
    /// Paths of files with at least one match.
    FilesWithMatches,
    /// Matching-line count per file.
    Count,
}

/// What to search for.
#[derive(Clone, Debug)]
pub struct GrepOptions {
    /// Rust regex syntax, or a literal string when `literal` is set.
    pub pattern: String,
    /// File or directory to search, relative to the root (default: the root).
    pub path: Option<OsString>,
    /// File filter like `rg -g`: slash-free matches the file name at any depth, else the path
    /// relative to the root; a leading `!` excludes what matches. It only narrows: ignored and
    /// denied files stay out.
    pub glob: Option<String>,
    /// Treat the pattern as a literal string.
    pub literal: bool,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Lines of context before and after each match (content mode).
    pub context: usize,
    /// Let the pattern span lines (`.` does not match `\n` unless `(?s)`).
    pub multiline: bool,
    /// Output mode.
    pub output_mode: OutputMode,
    /// Entries returned (matches, files or counts per mode); `None` returns all (default 50).
    pub limit: Option<usize>,
    /// Entries skipped before the first returned.
    pub offset: usize,
    /// Shown line length cap in characters (default 120).
    pub max_line_chars: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions {
            pattern: String::new(),
            path: None,
            glob: None,
            literal: false,
            case_insensitive: false,
            context: 0,
            multiline: false,
            output_mode: OutputMode::Content,
            limit: Some(DEFAULT_GREP_LIMIT),
            offset: 0,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
        }
    }
}

/// One shown line: a match or a context line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepLine {
    /// Path relative to the root (raw bytes: non-UTF-8 names round-trip).
    pub path: OsString,
    /// 1-based line number.
    pub line: u64,
    /// The line's text, lossily decoded, without the line terminator, cut to `max_line_chars`
    /// (cut parts are replaced by `…`).
    pub text: String,
    /// False for a context line.
    pub is_match: bool,
    /// True when `text` was cut.
    pub cut: bool,
}

/// A file and its number of matching lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCount {
    /// Path relative to the root (raw bytes).
    pub path: OsString,
    /// Matching lines in the file.
    pub count: u64,
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct GrepOutput {
    /// Content mode: the page of matches with their context lines, ordered by path then line,
    /// overlapping context merged (each line appears once).
    pub lines: Vec<GrepLine>,
    /// Files-with-matches mode: the page of paths. Count mode: the page of per-file counts.
    pub files: Vec<FileCount>,
    /// Exact number of matching lines.
    pub total_matches: u64,
    /// Exact number of files with a match.
    pub total_files: u64,
    /// The offset this page starts at.
    pub offset: u64,
    /// Entries (matches, files or counts per mode) after this page.
    pub withheld: u64,
    /// Files searched.
    pub files_searched: u64,
    /// What was passed over, by reason.
    pub skipped: SkipCounts,
    /// True when the time budget ran out: totals cover only what was searched.
    pub incomplete: bool,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
}

// ==== Setup shared by all threads ====

/// The `glob` option compiled: which files a search looks at.
struct FileFilter {
    matcher: GlobMatcher,
    /// Slash-free: match the file name; otherwise the path relative to the root.
    by_name: bool,
    /// A leading `!`: keep what does NOT match.
    negated: bool,
}

impl FileFilter {
    fn new(workspace: &Workspace, glob: &str) -> Result<FileFilter, CoreError> {
        let trimmed = glob.trim();
        let (negated, body) = match trimmed.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let body = body.strip_prefix("./").unwrap_or(body);
        let body = body.strip_prefix('/').unwrap_or(body);
        if body.is_empty() {
            return Err(CoreError::InvalidPattern {
                pattern: glob.to_string(),
                message: "the glob filter is empty; pass a file pattern such as `*.py` or \
                          `src/**/*.ts`, or leave glob out to search every file."
                    .into(),
            });
        }
        // `dir/` means the files below the directory.
        let body = if body.ends_with('/') {
            format!("{body}**")
        } else {
            body.to_string()
        };
        Ok(FileFilter {
            by_name: !body.contains('/'),
            matcher: cached_glob(workspace, &body, glob)?,
            negated,
        })
    }

    fn admits(&self, relative: &[u8], name: &[u8]) -> bool {
        let subject = if self.by_name { name } else { relative };
        self.matcher.is_match(Path::new(OsStr::from_bytes(subject))) != self.negated
    }
}

/// Builds the regex matcher, with model-facing errors.
fn build_matcher(options: &GrepOptions) -> Result<RegexMatcher, CoreError> {
    let mut builder = RegexMatcherBuilder::new();
    // As ripgrep: `^` and `$` match at line boundaries, also before a `\r\n` (CRLF mode).
    builder
        .case_insensitive(options.case_insensitive)
        .fixed_strings(options.literal)
        .multi_line(true)
        .crlf(true);
    if options.multiline {
        builder.line_terminator(None);
    }
    // Otherwise the CRLF line terminator stays: the matcher never matches across lines, which
    // lets the searcher look for matches in whole buffers rather than line by line.
    builder.build(&options.pattern).map_err(|error| {
        let detail = error.to_string();
        let hint = if detail.contains("line terminator") || detail.contains(r"\n") {
            "The pattern matches a line break: set multiline=true to match across lines."
        } else {
            "The pattern is a Rust regex: escape special characters such as ( ) [ ] { } . * + ? | \\ \
             with a backslash, or set literal=true to search for the text as written."
        };
        CoreError::InvalidPattern {
            pattern: options.pattern.clone(),
            message: format!("{detail}\n{hint}"),
        }
    })
}

/// Everything the threads share read-only.
struct Plan<'a> {
    options: &'a GrepOptions,
    filter: Option<&'a FileFilter>,
    /// Entries that can reach the page (`offset + limit`), `None` for all: matching lines in
    /// content mode, files in the file modes.
    keep: Option<u64>,
    /// Content mode: the text of matching lines is stored.
    text: bool,
}

// ==== Per-thread search ====

/// One stored line of a file with matches.
struct StoredLine {
    line: u64,
    text: String,
    cut: bool,
    is_match: bool,
}

/// A file with at least one match, kept for the page.
struct FileHit {
    path: OsString,
    count: u64,
    /// Page entries this file holds: its kept matching lines in content mode, 1 in file modes.
    entries: u64,
    /// Content mode: the kept matching lines and the context lines around them, in line order.
    lines: Vec<StoredLine>,
}

/// The sink for one file: counts matching lines and stores the text of the first `keep` of them.
struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    count: u64,
    keep: u64,
    kept: u64,
    store: bool,
    lines: Vec<StoredLine>,
    last_kept_line: u64,
    context: u64,
    max_chars: usize,
    multiline: bool,
    binary: bool,
}

impl FileSink<'_> {
    fn store_line(&mut self, line: u64, bytes: &[u8], match_start: Option<usize>, is_match: bool) {
        let (text, cut) = shown_text(bytes, match_start, self.max_chars);
        self.lines.push(StoredLine {
            line,
            text,
            cut,
            is_match,
        });
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _searcher: &Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, Self::Error> {
        if !self.multiline {
            self.count += 1;
            if self.store && self.kept < self.keep {
                let line = found.line_number().unwrap_or(0);
                let bytes = found.bytes();
                let start = self.matcher.find(bytes).ok().flatten().map(|m| m.start());
                self.store_line(line, bytes, start, true);
                self.kept += 1;
                self.last_kept_line = line;
            }
            return Ok(true);
        }
        let first_line = found.line_number().unwrap_or(0);
        let first_start = if self.store && self.kept < self.keep {
            self.matcher
                .find(found.bytes())
                .ok()
                .flatten()
                .map(|m| m.start())
        } else {
            None
        };
        for (i, bytes) in found.lines().enumerate() {
            self.count += 1;
            if self.store && self.kept < self.keep {
                let line = first_line + i as u64;
                let start = if i == 0 {
                    first_start.filter(|s| *s < bytes.len())
                } else {
                    Some(0)
                };
                self.store_line(line, bytes, start, true);
                self.kept += 1;
                self.last_kept_line = line;
            }
        }
        Ok(true)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if !self.store {
            return Ok(true);
        }
        let line = context.line_number().unwrap_or(0);
        // Before-context leads to the next match, which is kept while the file is under its
        // bound; after-context belongs to the last kept match.
        let wanted = self.kept < self.keep
            || (self.kept > 0 && line <= self.last_kept_line.saturating_add(self.context));
        if wanted {
            self.store_line(line, context.bytes(), None, false);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// The text shown for one line: terminator removed, lossily decoded, cut to `max_chars`
/// characters (ellipses included). A line whose match lies beyond the head is shown as a window
/// around the match. Never splits a character.
fn shown_text(bytes: &[u8], match_start: Option<usize>, max_chars: usize) -> (String, bool) {
    let mut end = bytes.len();
    if end > 0 && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > 0 && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    let bytes = &bytes[..end];
    let text = String::from_utf8_lossy(bytes);
    let total = text.chars().count();
    let max_chars = max_chars.max(8);
    if total <= max_chars {
        return (text.into_owned(), false);
    }
    let match_char = match_start
        .filter(|s| *s <= bytes.len())
        .map(|s| String::from_utf8_lossy(&bytes[..s]).chars().count())
        .unwrap_or(0);
    // Byte index of the `n`-th character (or the end).
    let at = |n: usize| text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    if match_char + MATCH_ROOM.min(max_chars / 2) < max_chars {
        let mut out = String::with_capacity(at(max_chars - 1) + 3);
        out.push_str(&text[..at(max_chars - 1)]);
        out.push('…');
        return (out, true);
    }
    // A window: about a third of the room before the match.
    let mut start = match_char.saturating_sub(max_chars / 3);
    let mut out = String::new();
    if start + (max_chars - 1) >= total {
        start = total - (max_chars - 1);
        out.push('…');
        out.push_str(&text[at(start)..]);
    } else {
        out.push('…');
        out.push_str(&text[at(start)..at(start + max_chars - 2)]);
        out.push('…');
    }
    (out, true)
}

/// Bytes of a file read before its size is looked at: smaller files (nearly all) cost no `fstat`.
const SIZE_CHECK_AFTER: u64 = 1 << 20;

/// Reads a file for the streaming searcher and stops the search once the file proves larger
/// than [`MAX_FILE_BYTES`]. The size is asked for only when [`SIZE_CHECK_AFTER`] bytes were
/// read, so a file is skipped as `too_large` exactly when an up-front size check would skip it.
struct SizeGuard<'f> {
    file: &'f File,
    read: u64,
    size_checked: bool,
    too_large: bool,
}

impl SizeGuard<'_> {
    /// Checks the size now unless already done: true when the file is too large.
    fn proves_too_large(&mut self) -> bool {
        if !self.size_checked {
            self.size_checked = true;
            self.too_large = self.file.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES);
        }
        self.too_large
    }
}

impl Read for SizeGuard<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.size_checked && self.read >= SIZE_CHECK_AFTER {
            self.size_checked = true;
            let meta = self.file.metadata()?;
            if meta.len() > MAX_FILE_BYTES {
                self.too_large = true;
                return Err(std::io::Error::other("file too large to search"));
            }
        }
        if self.too_large {
            return Err(std::io::Error::other("file too large to search"));
        }
        let n = self.file.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

const BOMS: [&[u8]; 3] = [b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF"];

/// Files up to this size are read with one call and searched as a slice (64 KiB: the window in
/// which the searcher's slice mode looks for NUL bytes).
const WHOLE_FILE_BYTES: usize = 64 * 1024;

/// Reads the start of `file` into `head` (whose length is [`WHOLE_FILE_BYTES`] + 1) and returns
/// how many bytes it holds, and whether that is the whole file: a file of at most
/// [`WHOLE_FILE_BYTES`] bytes costs one read plus the one that sees its end.
fn read_head(file: &mut File, head: &mut [u8]) -> std::io::Result<(usize, bool)> {
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => return Ok((filled, true)),
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok((filled, false))
}

/// One thread's searcher state and results.
struct GrepWorker<'a> {
    plan: &'a Plan<'a>,
    matcher: &'a RegexMatcher,
    /// No line numbers, no context: for files whose text is not needed.
    counting: Searcher,
    /// Line numbers and context: for files whose text may be shown.
    showing: Searcher,
    /// Whole-file buffer of multiline searches.
    buffer: Vec<u8>,
    /// The start of the file being searched (see [`read_head`]).
    head: Box<[u8]>,
    /// Files kept for the page, by path.
    kept: BTreeMap<OsString, FileHit>,
    /// Page entries the kept files hold.
    kept_entries: u64,
    total_matches: u64,
    total_files: u64,
    files_searched: u64,
}

impl<'a> GrepWorker<'a> {
    fn new(plan: &'a Plan<'a>, matcher: &'a RegexMatcher) -> GrepWorker<'a> {
        let options = plan.options;
        let mut builder = SearcherBuilder::new();
        builder
            .line_terminator(LineTerminator::crlf())
            .multi_line(options.multiline)
            .binary_detection(BinaryDetection::quit(0))
            .bom_sniffing(true)
            .line_number(false);
        let counting = builder.build();
        builder
            .line_number(true)
            .before_context(options.context)
            .after_context(options.context);
        let showing = builder.build();
        GrepWorker {
            plan,
            matcher,
            counting,
            showing,
            buffer: Vec::new(),
            head: vec![0; WHOLE_FILE_BYTES + 1].into_boxed_slice(),
            kept: BTreeMap::new(),
            kept_entries: 0,
            total_matches: 0,
            total_files: 0,
            files_searched: 0,
        }
    }

    /// Whether `relative`'s entries may reach the page (see the module docs).
    fn may_reach_page(&self, relative: &[u8]) -> bool {
        match self.plan.keep {
            None => true,
            Some(0) => false,
            Some(keep) => {
                self.kept_entries < keep
                    || self
                        .kept
                        .last_key_value()
                        .is_some_and(|(last, _)| relative < last.as_bytes())
            }
        }
    }

    /// Keeps `hit` for the page, then drops the last files in path order while the files before
    /// them hold `keep` entries.
    fn keep_hit(&mut self, hit: FileHit) {
        self.kept_entries += hit.entries;
        self.kept.insert(hit.path.clone(), hit);
        let Some(keep) = self.plan.keep else {
            return;
        };
        while let Some((_, last)) = self.kept.last_key_value() {
            if self.kept_entries - last.entries < keep {
                break;
            }
            self.kept_entries -= last.entries;
            self.kept.pop_last();
        }
    }

    /// Searches one file the walk found to be a regular file (or the file the caller named,
    /// checked by [`grep`]).
    fn search(&mut self, mut file: File, relative: &[u8], skipped: &mut SkipCounts) {
        let options = self.plan.options;
        if options.multiline {
            // The whole file is read into memory: look at its size first.
            match file.metadata() {
                Ok(meta) if !meta.is_file() => {
                    skipped.special += 1;
                    return;
                }
                Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                    skipped.too_large += 1;
                    return;
                }
                Ok(_) => {}
                Err(_) => {
                    skipped.unreadable += 1;
                    return;
                }
            }
        }
        let may_reach_page = self.may_reach_page(relative);
        let store = self.plan.text && may_reach_page;
        let mut sink = FileSink {
            matcher: self.matcher,
            count: 0,
            keep: self.plan.keep.unwrap_or(u64::MAX),
            kept: 0,
            store,
            lines: Vec::new(),
            last_kept_line: 0,
            context: options.context as u64,
            max_chars: options.max_line_chars,
            multiline: options.multiline,
            binary: false,
        };
        let searcher = if store {
            &mut self.showing
        } else {
            &mut self.counting
        };
        let result = if options.multiline {
            // The whole file is in memory anyway; checking all of it for NUL makes binary
            // detection as complete as in the streaming mode (the searcher checks 64 KiB).
            self.buffer.clear();
            match file.read_to_end(&mut self.buffer) {
                Ok(_) => {
                    let has_bom = BOMS.iter().any(|b| self.buffer.starts_with(b));
                    if !has_bom && memchr::memchr(0, &self.buffer).is_some() {
                        skipped.binary += 1;
                        return;
                    }
                    searcher.search_slice(self.matcher, &self.buffer, &mut sink)
                }
                Err(error) => Err(error),
            }
        } else {
            // Most source files fit in one read: search them as a slice, which saves the
            // searcher's small BOM-sniffing read per file. The slice path checks the first
            // 64 KiB for NUL bytes, exactly the whole of such a file.
            let (filled, whole) = match read_head(&mut file, &mut self.head) {
                Ok(read) => read,
                Err(_) => {
                    skipped.unreadable += 1;
                    return;
                }
            };
            let mut guarded = SizeGuard {
                file: &file,
                read: filled as u64,
                size_checked: false,
                too_large: false,
            };
            let head = &self.head[..filled];
            let result = if whole {
                searcher.search_slice(self.matcher, head, &mut sink)
            } else {
                searcher.search_reader(self.matcher, head.chain(&mut guarded), &mut sink)
            };
            // A binary file is too large first, as if the size had been looked at up front.
            if guarded.too_large || (sink.binary && guarded.proves_too_large()) {
                skipped.too_large += 1;
                return;
            }
            result
        };
        if result.is_err() {
            skipped.unreadable += 1;
            return;
        }
        if sink.binary {
            skipped.binary += 1;
            return;
        }
        self.files_searched += 1;
        if sink.count == 0 {
            return;
        }
        self.total_matches += sink.count;
        self.total_files += 1;
        if may_reach_page {
            let entries = if self.plan.text { sink.kept } else { 1 };
            self.keep_hit(FileHit {
                path: OsString::from_vec(relative.to_vec()),
                count: sink.count,
                entries,
                lines: sink.lines,
            });
        }
    }
}

impl FileVisitor for GrepWorker<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, skipped: &mut SkipCounts) -> bool {
        if let Some(filter) = self.plan.filter
            && !filter.admits(file.relative_bytes, file.name_bytes)
        {
            return true;
        }
        if let Some((opened, _)) = file.open_counted(skipped) {
            self.search(opened, file.relative_bytes, skipped);
        }
        true
    }
}

// ==== The page ====

/// Content mode: the matches `offset .. offset + limit` (global order: path, then line) with the
/// context lines around them. A withheld match that falls in the context of a shown one is left
/// out rather than shown as context. `hits` are the kept files in path order: every file before a
/// file that reaches the page is among them (see the module docs).
fn content_page(hits: &[FileHit], options: &GrepOptions) -> (Vec<GrepLine>, u64) {
    let first = options.offset as u64;
    let end = options
        .limit
        .map_or(u64::MAX, |l| first.saturating_add(l as u64));
    let context = options.context as u64;
    let mut out = Vec::new();
    let mut shown = 0u64;
    let mut before = 0u64;
    for hit in hits {
        let (file_start, file_end) = (before, before + hit.count);
        before = file_end;
        if file_end <= first {
            continue;
        }
        if file_start >= end {
            break;
        }
        let from = first.saturating_sub(file_start);
        let to = end.min(file_end) - file_start;
        // Line numbers of the selected matches, ascending.
        let mut selected = Vec::new();
        let mut index = 0u64;
        for stored in &hit.lines {
            if stored.is_match {
                if index >= from && index < to {
                    selected.push(stored.line);
                }
                index += 1;
            }
        }
        shown += selected.len() as u64;
        let mut next = 0usize;
        index = 0;
        for stored in &hit.lines {
            let show = if stored.is_match {
                let chosen = index >= from && index < to;
                index += 1;
                chosen
            } else {
                // Windows are ascending: advance past those that end before this line.
                while next < selected.len() && selected[next].saturating_add(context) < stored.line
                {
                    next += 1;
                }
                next < selected.len() && selected[next].saturating_sub(context) <= stored.line
            };
            if show {
                out.push(GrepLine {
                    path: hit.path.clone(),
                    line: stored.line,
                    text: stored.text.clone(),
                    is_match: stored.is_match,
                    cut: stored.cut,
                });
            }
        }
    }
    (out, shown)
}

/// Searches the workspace: `options.path` (a directory, walked with the ignore, skip and deny
/// rules, or a single file) for `options.pattern`.
///
/// Errors: `NotFound` / `OutsideRoot` / `Denied` / `SpecialFile` for a bad `path`,
/// `InvalidPattern` for a regex or glob that does not compile.
pub fn grep(workspace: &Workspace, options: &GrepOptions) -> Result<GrepOutput, CoreError> {
    let started = Instant::now();
    let deadline = workspace.deadline();
    let (target, _) = open_target(workspace, options.path.as_deref().unwrap_or_default())?;
    let key = RegexKey {
        pattern: options.pattern.clone(),
        literal: options.literal,
        case_insensitive: options.case_insensitive,
        multiline: options.multiline,
    };
    let matcher = workspace.cached_regex(key, || build_matcher(options))?;
    let filter = options
        .glob
        .as_deref()
        .map(|g| FileFilter::new(workspace, g))
        .transpose()?;
    let plan = Plan {
        options,
        filter: filter.as_ref(),
        keep: options
            .limit
            .map(|l| (l as u64).saturating_add(options.offset as u64)),
        text: options.output_mode == OutputMode::Content,
    };

    let (workers, skipped, incomplete) = match target {
        Target::Dir(start) => {
            let sequential_max = GREP_SEQUENTIAL_MAX_ENTRIES;
            let outcome = walk_files(workspace, start, deadline, sequential_max, || {
                GrepWorker::new(&plan, &matcher)
            });
            (outcome.visitors, outcome.skipped, outcome.incomplete)
        }
        Target::File(opened) => {
            let mut worker = GrepWorker::new(&plan, &matcher);
            let mut skipped = SkipCounts::default();
            let real = &opened.real;
            let name = real.rsplit(|b| *b == b'/').next().unwrap_or_default();
            if filter.as_ref().is_none_or(|f| f.admits(real, name)) {
                worker.search(opened.file, real, &mut skipped);
            }
            (vec![worker], skipped, false)
        }
    };

    let (mut files_searched, mut total_matches, mut total_files) = (0, 0, 0);
    let mut hits = Vec::new();
    for worker in workers {
        files_searched += worker.files_searched;
        total_matches += worker.total_matches;
        total_files += worker.total_files;
        hits.extend(worker.kept.into_values());
    }
    hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let offset = options.offset as u64;

    let (lines, files, withheld) = match options.output_mode {
        OutputMode::Content => {
            let (lines, shown) = content_page(&hits, options);
            (
                lines,
                Vec::new(),
                total_matches.saturating_sub(offset + shown),
            )
        }
        OutputMode::FilesWithMatches | OutputMode::Count => {
            let files: Vec<FileCount> = hits
                .into_iter()
                .skip(options.offset)
                .take(options.limit.unwrap_or(usize::MAX))
                .map(|h| FileCount {
                    path: h.path,
                    count: h.count,
                })
                .collect();
            let withheld = total_files.saturating_sub(offset + files.len() as u64);
            (Vec::new(), files, withheld)
        }
    };
    Ok(GrepOutput {
        lines,
        files,
        total_matches,
        total_files,
        offset,
        withheld,
        files_searched,
        skipped,
        incomplete,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_whole() {
        assert_eq!(shown_text(b"abc\r\n", Some(0), 120), ("abc".into(), false));
    }

    #[test]
    fn long_line_with_early_match_shows_head() {
        let line = "x".repeat(300);
        let (text, cut) = shown_text(line.as_bytes(), Some(3), 120);
        assert!(cut);
        assert_eq!(text.chars().count(), 120);
        assert!(text.ends_with('…'));
    }

    #[test]
    fn late_match_shows_window_without_splitting_chars() {
        let mut line = "é".repeat(5000);
        line.push_str("NEEDLE");
        line.push_str(&"ü".repeat(5000));
        let start = line.find("NEEDLE").unwrap();
        let (text, cut) = shown_text(line.as_bytes(), Some(start), 120);
        assert!(cut);
        assert!(text.contains("NEEDLE"));
        assert!(text.starts_with('…') && text.ends_with('…'));
        assert!(text.chars().count() <= 120);
    }

    #[test]
    fn match_near_the_end_window_reaches_the_end() {
        let mut line = "a".repeat(1000);
        line.push_str("END");
        let (text, _) = shown_text(line.as_bytes(), Some(1000), 120);
        assert!(text.ends_with("END"));
        assert_eq!(text.chars().count(), 120);
    }
}
