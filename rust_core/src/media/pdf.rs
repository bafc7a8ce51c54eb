//! PDFs as text, page by page, parsed where a hostile file cannot hurt the caller.
//!
//! The engine reads the file's bytes through the boundary ([`raw::read_bytes`]: the root, the
//! deny rules, at most [`PDF_MAX_SOURCE_BYTES`]) and hands them to a PDF worker from its pool
//! ([`crate::workers`]): a child process the embedding program names (the Python package's is
//! `python -I ripsight/_pdf_worker.py`, which parses with PDFium) that limits its own address
//! space to [`PDF_WORKER_MEMORY_BYTES`] and its CPU time to [`PDF_WORKER_CPU_SECONDS`] a
//! request, as its pool tells it ([`crate::workers::limits`]). The engine waits for the answer at
//! most [`PDF_DEADLINE_MS`], a new worker's start included, and kills the process when that
//! passes: a parser that crashes, spins, sleeps or runs out of memory costs this one call (a
//! [`PdfFailure`] in the record), never the caller.
//!
//! The wire: the workers' frames. The worker's first frame starts with [`READY`]. A request is
//! one frame: a line of JSON (`first`, `last`, `budget`, `page_chars`), a newline, then the
//! PDF's bytes. The answer is one frame of JSON: `{"ok": true, "page_count",
//! "pages": [{"number", "text", "chars"}], "peak_rss_bytes"}` or `{"ok": false, "error":
//! "encrypted" | "memory" | "unreadable", "detail", "peak_rss_bytes"}`.

use std::ffi::{OsStr, OsString};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::raw;
use crate::workers::{Pool, PoolOptions, Stopped, WorkerLimits};
use crate::workspace::Workspace;

/// The largest PDF read_file takes, in bytes (50 MiB): its bytes are read whole and handed to
/// the parser's child process.
pub const PDF_MAX_SOURCE_BYTES: u64 = 50 << 20;
/// The most pages of a PDF one read_file call shows.
pub const PDF_MAX_PAGES: usize = 20;
/// Characters of one PDF page's text the parser hands back at most (the rest is counted).
pub const PDF_PAGE_CHARS: usize = 100_000;
/// Address space of the PDF parser's child process, in bytes (`RLIMIT_AS`, where the system
/// enforces it; 256 MiB: the interpreter with PDFium loaded maps under 30 MB, a 50 MiB source
/// held twice leaves room for the parse, and the process's memory stays under 300 MB whatever
/// the file).
pub const PDF_WORKER_MEMORY_BYTES: u64 = 256 << 20;
/// CPU seconds one PDF call may use in the parser's child process (`RLIMIT_CPU`, set afresh
/// for each call).
pub const PDF_WORKER_CPU_SECONDS: u64 = 3;
/// Wall-clock milliseconds one PDF call waits for the parser's child process before killing it
/// (under the 5 s that common MCP clients wait).
pub const PDF_DEADLINE_MS: u64 = 3_500;
/// PDF parser processes at work at once, at most (each may take [`PDF_WORKER_MEMORY_BYTES`]).
pub const PDF_MAX_WORKERS: usize = 4;
/// PDF parser processes kept waiting between calls.
pub const PDF_MAX_IDLE_WORKERS: usize = 2;
/// The first bytes of a PDF worker's first frame.
pub const READY: &[u8] = b"ripsight-pdf-worker ";
/// Time a new PDF worker has to say it is ready (the call's deadline cuts it shorter).
const START_TIME: Duration = Duration::from_secs(10);
/// The longest `detail` kept from a worker's answer, in characters.
const MAX_DETAIL_CHARS: usize = 300;

crate::choice! {
    /// Why a PDF read has no pages.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PdfFailure {
        /// The parser could not read the file (damaged, truncated, not a PDF).
        Unreadable = "unreadable",
        /// The PDF needs a password.
        Encrypted = "encrypted",
        /// The parser ran out of its address space and said so.
        Memory = "memory",
        /// The parser overran its wall-clock deadline or its CPU limit and was stopped.
        Deadline = "deadline",
        /// The parser's process ended without an answer (a crash, a failed allocation).
        Crashed = "crashed",
        /// Every parser process stayed busy with other calls until the deadline.
        Busy = "busy",
        /// No parser process could be started (the worker command failed).
        Unavailable = "unavailable",
    }
}

crate::record! {
    "PdfReadPage",
    /// One page's text as the parser read it.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
    pub struct PdfReadPage {
        /// Page number (1-based).
        pub number: u64,
        /// The page's text, cut to pdf_page_chars characters (empty: no text layer).
        pub text: String,
        /// The length of the page's whole text, in characters.
        pub chars: u64,
    }
}

crate::record! {
    "PdfRead",
    /// A PDF's pages as its parser read them, or why it could not.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct PdfRead {
        /// The file's real path relative to the root (raw bytes).
        pub path: OsString,
        /// File size in bytes.
        pub size_bytes: u64,
        /// True when the file is over pdf_max_source_bytes: it was neither read nor parsed.
        pub too_large: bool,
        /// Pages in the document (0 when it could not be read).
        pub page_count: u64,
        /// The pages read, in order.
        pub pages: Vec<PdfReadPage>,
        /// Why there are no pages (unreadable, encrypted, memory, deadline, crashed, busy,
        /// unavailable); null when the parser answered with pages.
        pub failure: Option<PdfFailure>,
        /// The facts behind a failure (the parser's own words for an unreadable file); empty
        /// otherwise.
        pub detail: String,
        /// The exit status of a parser process that ended without an answer, when known (a
        /// negative number is the signal that ended it).
        pub exit_status: Option<i64>,
        /// The parser process's peak resident memory so far, in bytes: as it said in its
        /// answer, or as it was when the engine killed it (its deadline passed; Linux).
        pub peak_rss_bytes: Option<u64>,
        /// The wall-clock deadline the parse had, in milliseconds.
        pub deadline_ms: u64,
    }
}

/// Which pages to read, and the time to read them in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdfOptions {
    /// The first page (1-based).
    pub first: u64,
    /// The last page (inclusive; past the document's end reads to its end).
    pub last: u64,
    /// With a budget (characters), pages stop once their text reaches it (at least one is
    /// read); 0: every page asked for.
    pub budget: u64,
    /// Wall-clock milliseconds the parse may take, a worker's start included.
    pub deadline_ms: u64,
}

impl Default for PdfOptions {
    fn default() -> Self {
        PdfOptions {
            first: 1,
            last: PDF_MAX_PAGES as u64,
            budget: 0,
            deadline_ms: PDF_DEADLINE_MS,
        }
    }
}

/// The PDF workers of one worker command.
#[derive(Debug)]
pub struct PdfReader {
    pool: Pool,
}

impl PdfReader {
    /// A reader whose workers run `command` (program and arguments).
    pub fn new(command: Vec<OsString>) -> PdfReader {
        PdfReader {
            pool: Pool::new(PoolOptions {
                command,
                max_workers: PDF_MAX_WORKERS,
                max_idle: PDF_MAX_IDLE_WORKERS,
                start_time: START_TIME,
                ready: READY,
                limits: WorkerLimits {
                    memory_bytes: PDF_WORKER_MEMORY_BYTES,
                    cpu_seconds: PDF_WORKER_CPU_SECONDS,
                },
                background: false,
            }),
        }
    }

    /// The process's reader for `command`: workspaces that give the same command share its
    /// workers.
    pub fn shared(command: Vec<OsString>) -> Arc<PdfReader> {
        static SHARED: OnceLock<Mutex<Vec<Arc<PdfReader>>>> = OnceLock::new();
        let mut all = SHARED
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(found) = all
            .iter()
            .find(|reader| reader.pool.options().command == command)
        {
            return Arc::clone(found);
        }
        let made = Arc::new(PdfReader::new(command));
        all.push(Arc::clone(&made));
        made
    }

    /// Worker processes started so far.
    pub fn workers_started(&self) -> u64 {
        self.pool.started()
    }

    /// Ends the idle workers (the next call starts a fresh one).
    pub fn close_idle(&self) {
        self.pool.close_idle();
    }

    /// The pages `options` names of the PDF at `path`.
    ///
    /// Errors are those of [`raw::read_bytes`] (not found, outside the root, denied...,
    /// `Cancelled`) and `InvalidArgument` (pages out of order); what the parser could not do is
    /// the record's [`PdfRead::failure`].
    pub fn read(
        &self,
        workspace: &Workspace,
        path: &OsStr,
        options: &PdfOptions,
        cancel: &CancelToken,
    ) -> Result<PdfRead, CoreError> {
        if options.first == 0 || options.last < options.first {
            return Err(CoreError::InvalidArgument {
                message: format!(
                    "pages {}-{} are not a range of pages: the first is at least 1 and at most \
                     the last",
                    options.first, options.last
                ),
            });
        }
        let file = raw::read_bytes(workspace, path, PDF_MAX_SOURCE_BYTES, cancel)?;
        let mut out = PdfRead {
            path: file.path,
            size_bytes: file.size_bytes,
            too_large: file.too_large,
            deadline_ms: options.deadline_ms,
            ..PdfRead::default()
        };
        if file.too_large {
            return Ok(out);
        }
        if cancel.is_cancelled() {
            return Err(CoreError::Cancelled);
        }
        let header = serde_json::json!({
            "first": options.first,
            "last": options.last,
            "budget": options.budget,
            "page_chars": PDF_PAGE_CHARS,
        })
        .to_string();
        let end = Instant::now() + Duration::from_millis(options.deadline_ms);
        let asked = options.last - options.first + 1;
        match self
            .pool
            .exchange_measured(&[header.as_bytes(), b"\n", &file.data.0], end)
        {
            Ok(answer) => take_answer(&mut out, &answer, asked),
            Err((stopped, peak)) => {
                // A worker the engine killed still tells what it took.
                out.peak_rss_bytes = peak;
                take_stopped(&mut out, stopped);
            }
        }
        Ok(out)
    }
}

/// A worker's answer, as it comes.
#[derive(Deserialize)]
struct Answer {
    ok: bool,
    #[serde(default)]
    page_count: u64,
    #[serde(default)]
    pages: Vec<PdfReadPage>,
    #[serde(default)]
    error: String,
    #[serde(default)]
    detail: String,
    #[serde(default)]
    peak_rss_bytes: Option<u64>,
}

/// Fills `out` from a worker's answer; an answer that breaks the protocol or the bounds (more
/// pages than asked, a page's text over its cap) is taken for a crashed parser.
fn take_answer(out: &mut PdfRead, answer: &[u8], asked: u64) {
    let answer: Answer = match serde_json::from_slice(answer) {
        Ok(answer) => answer,
        Err(e) => {
            out.failure = Some(PdfFailure::Crashed);
            out.detail = format!("the parser's process answered something unreadable ({e})");
            return;
        }
    };
    out.peak_rss_bytes = answer.peak_rss_bytes;
    if !answer.ok {
        out.failure = Some(match answer.error.as_str() {
            "encrypted" => PdfFailure::Encrypted,
            "memory" => PdfFailure::Memory,
            _ => PdfFailure::Unreadable,
        });
        out.detail = answer.detail.chars().take(MAX_DETAIL_CHARS).collect();
        return;
    }
    let in_bounds = answer.pages.len() as u64 <= asked
        && answer
            .pages
            .iter()
            .all(|page| page.number >= 1 && page.number <= answer.page_count)
        && answer
            .pages
            .iter()
            .all(|page| page.text.chars().count() <= PDF_PAGE_CHARS);
    if !in_bounds {
        out.failure = Some(PdfFailure::Crashed);
        out.detail = "the parser's process answered pages out of bounds".into();
        return;
    }
    out.page_count = answer.page_count;
    out.pages = answer.pages;
}

/// Fills `out` from how an exchange with a worker stopped.
fn take_stopped(out: &mut PdfRead, stopped: Stopped) {
    let (failure, detail) = match stopped {
        Stopped::Deadline => (PdfFailure::Deadline, String::new()),
        Stopped::Crashed(status) => {
            out.exit_status = status.map(i64::from);
            (PdfFailure::Crashed, String::new())
        }
        Stopped::Busy => (PdfFailure::Busy, String::new()),
        Stopped::Unavailable(detail) => (PdfFailure::Unavailable, detail),
    };
    out.failure = Some(failure);
    out.detail = detail;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(answer: &str, asked: u64) -> PdfRead {
        let mut out = PdfRead::default();
        take_answer(&mut out, answer.as_bytes(), asked);
        out
    }

    #[test]
    fn a_worker_answer_becomes_pages_or_a_failure() {
        let read = answered(
            r#"{"ok": true, "page_count": 3, "pages": [{"number": 2, "text": "two", "chars": 3}],
                "peak_rss_bytes": 1000}"#,
            1,
        );
        assert_eq!(
            (read.failure, read.page_count, read.peak_rss_bytes),
            (None, 3, Some(1000))
        );
        assert_eq!(read.pages[0].text, "two");
        let locked = answered(r#"{"ok": false, "error": "encrypted", "detail": "x"}"#, 1);
        assert_eq!(locked.failure, Some(PdfFailure::Encrypted));
        let memory = answered(r#"{"ok": false, "error": "memory"}"#, 1);
        assert_eq!(memory.failure, Some(PdfFailure::Memory));
        let long = "d".repeat(1000);
        let bad = answered(
            &format!(r#"{{"ok": false, "error": "x", "detail": "{long}"}}"#),
            1,
        );
        assert_eq!(bad.failure, Some(PdfFailure::Unreadable));
        assert_eq!(bad.detail.len(), MAX_DETAIL_CHARS);
    }

    #[test]
    fn an_answer_out_of_bounds_is_taken_for_a_crash() {
        let page = r#"{"number": 1, "text": "", "chars": 0}"#;
        for answer in [
            "not json".to_string(),
            // More pages than asked for.
            format!(r#"{{"ok": true, "page_count": 5, "pages": [{page}, {page}]}}"#),
            // A page past the document's end.
            r#"{"ok": true, "page_count": 1, "pages": [{"number": 2, "text": "", "chars": 0}]}"#
                .to_string(),
            // A page's text over its cap.
            format!(
                r#"{{"ok": true, "page_count": 1, "pages": [{{"number": 1, "text": "{}",
                    "chars": 1}}]}}"#,
                "x".repeat(PDF_PAGE_CHARS + 1)
            ),
        ] {
            let read = answered(&answer, 1);
            assert_eq!(read.failure, Some(PdfFailure::Crashed), "{answer:.80}");
            assert!(read.pages.is_empty());
        }
    }

    #[test]
    fn how_a_worker_stopped_is_the_failure() {
        let mut out = PdfRead::default();
        take_stopped(&mut out, Stopped::Crashed(Some(-9)));
        assert_eq!(
            (out.failure, out.exit_status),
            (Some(PdfFailure::Crashed), Some(-9))
        );
        let mut out = PdfRead::default();
        take_stopped(&mut out, Stopped::Unavailable("no such program".into()));
        assert_eq!(
            (out.failure, out.detail.as_str()),
            (Some(PdfFailure::Unavailable), "no such program")
        );
        for (stopped, failure) in [
            (Stopped::Deadline, PdfFailure::Deadline),
            (Stopped::Busy, PdfFailure::Busy),
        ] {
            let mut out = PdfRead::default();
            take_stopped(&mut out, stopped);
            assert_eq!(out.failure, Some(failure));
        }
    }
}
