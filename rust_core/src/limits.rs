//! The tools' parameter defaults and bounds, declared once.
//!
//! The engine's own defaults live with the operations ([`crate::glob::DEFAULT_GLOB_LIMIT`],
//! [`crate::grep::DEFAULT_GREP_LIMIT`], ...); this table gathers them with the bounds a caller
//! may ask for, so the Python layer's schemas, argument checks and CLI take every number from
//! here (`ripsight._core.LIMITS`) instead of keeping copies.

use std::time::Duration;

use crate::media::{image, notebook};
use crate::{glob, grep, outline, read, truncate, workspace};

/// The smallest `max_line_chars` grep and read_file accept: a shorter cut shows too little of a
/// line to be worth reading.
pub const MIN_LINE_CHARS: usize = 20;
/// The largest `limit` a glob call may ask for by default (raised when the default is larger).
pub const MAX_GLOB_LIMIT: usize = 1000;
/// The largest `limit` a grep call may ask for by default.
pub const MAX_GREP_LIMIT: usize = 500;
/// The largest `limit` a read_file call may ask for by default.
pub const MAX_READ_LIMIT: usize = 2000;
/// The largest `limit` (cells) a read of a notebook may ask for by default.
pub const MAX_NOTEBOOK_LIMIT: usize = 200;
/// The largest `offset` a call may give (a page past any real total).
pub const MAX_OFFSET: u64 = 1_000_000_000_000;
/// The largest `max_depth` a grep or glob call may give (deeper than any real tree).
pub const MAX_DEPTH: usize = 1_000;
/// The smallest budget of one result's text: room for a head, a tail and the truncation note.
pub const MIN_RESULT_CHARS: usize = 200;
/// The time budget of a walk or search in an MCP server, beside the library's
/// [`workspace::DEFAULT_TIME_BUDGET`]: common MCP clients give up on a call after 5 seconds, and
/// a partial answer marked incomplete within that serves better than a client-side timeout.
pub const MCP_TIME_BUDGET: Duration = Duration::from_secs(4);
/// How long an MCP tool call runs before the server starts sending `notifications/progress`
/// (to a client that gave a progress token), and then the interval between them.
pub const MCP_PROGRESS_AFTER: Duration = Duration::from_millis(500);
/// How long an MCP tool call waits for the client's answer to `roots/list` (a server started
/// without a root serves the client's roots) before it is answered with the roots it had.
pub const MCP_ROOTS_WAIT: Duration = Duration::from_secs(5);
/// How long a call that needs a person's approval waits for the answer before it is refused
/// (two minutes: time to read the question and decide, shorter than the patience of the clients
/// that can ask, which wait minutes for a call).
pub const APPROVAL_DEADLINE: Duration = Duration::from_secs(120);

pub use crate::media::pdf::{
    PDF_DEADLINE_MS, PDF_MAX_PAGES, PDF_MAX_SOURCE_BYTES, PDF_MAX_WORKERS, PDF_PAGE_CHARS,
    PDF_WORKER_CPU_SECONDS, PDF_WORKER_MEMORY_BYTES,
};

/// Index files not used for this long (30 days) are stale, and removed by the next prune of
/// their directory (`index::files`): every index file written prunes it.
pub const INDEX_CACHE_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
/// The index files of one directory kept at most, in bytes (4 GiB), most recently used first;
/// the Linux tree's file is about 290 MB.
pub const INDEX_CACHE_MAX_BYTES: u64 = 4 << 30;

/// The largest `limit` an outline call may ask for by default.
pub const MAX_OUTLINE_LIMIT: usize = 1000;
/// The largest `limit` a definitions call may ask for by default.
pub const MAX_DEFINITIONS_LIMIT: usize = 500;
/// The largest `limit` a references call may ask for by default.
pub const MAX_REFERENCES_LIMIT: usize = 500;
/// The largest `limit` a calls call may ask for by default.
pub const MAX_CALLS_LIMIT: usize = 500;
/// The share of one result's budget a `read_file` page that stops before the end of a file
/// gives the file's outline (the lines get the rest).
pub const READ_OUTLINE_SHARE: f64 = 0.3;

/// One named number of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// A count of lines, characters, entries...
    Count(u64),
    /// A ratio.
    Ratio(f64),
    /// A duration, in seconds.
    Seconds(f64),
}

/// Every default and bound by name (the names `ripsight.limits` uses).
pub const LIMITS: &[(&str, Limit)] = &[
    ("glob_limit", Limit::Count(glob::DEFAULT_GLOB_LIMIT as u64)),
    ("glob_max_limit", Limit::Count(MAX_GLOB_LIMIT as u64)),
    ("grep_limit", Limit::Count(grep::DEFAULT_GREP_LIMIT as u64)),
    ("grep_max_limit", Limit::Count(MAX_GREP_LIMIT as u64)),
    (
        "grep_line_chars",
        Limit::Count(grep::DEFAULT_MAX_LINE_CHARS as u64),
    ),
    ("grep_max_context", Limit::Count(grep::MAX_CONTEXT as u64)),
    ("max_depth", Limit::Count(MAX_DEPTH as u64)),
    (
        "hiding_rules",
        Limit::Count(crate::skip::MAX_HIDING_RULES as u64),
    ),
    ("read_limit", Limit::Count(read::DEFAULT_READ_LIMIT as u64)),
    ("read_max_limit", Limit::Count(MAX_READ_LIMIT as u64)),
    (
        "read_line_chars",
        Limit::Count(read::DEFAULT_MAX_LINE_CHARS as u64),
    ),
    ("min_line_chars", Limit::Count(MIN_LINE_CHARS as u64)),
    ("max_offset", Limit::Count(MAX_OFFSET)),
    (
        "max_result_chars",
        Limit::Count(truncate::DEFAULT_MAX_CHARS as u64),
    ),
    ("min_result_chars", Limit::Count(MIN_RESULT_CHARS as u64)),
    ("head_ratio", Limit::Ratio(truncate::DEFAULT_HEAD_RATIO)),
    ("pdf_max_source_bytes", Limit::Count(PDF_MAX_SOURCE_BYTES)),
    ("pdf_max_pages", Limit::Count(PDF_MAX_PAGES as u64)),
    ("pdf_page_chars", Limit::Count(PDF_PAGE_CHARS as u64)),
    (
        "pdf_worker_memory_bytes",
        Limit::Count(PDF_WORKER_MEMORY_BYTES),
    ),
    (
        "pdf_worker_cpu_seconds",
        Limit::Count(PDF_WORKER_CPU_SECONDS),
    ),
    ("pdf_deadline_ms", Limit::Count(PDF_DEADLINE_MS)),
    ("pdf_workers", Limit::Count(PDF_MAX_WORKERS as u64)),
    (
        "time_budget_seconds",
        Limit::Seconds(workspace::DEFAULT_TIME_BUDGET.as_secs_f64()),
    ),
    (
        "mcp_time_budget_seconds",
        Limit::Seconds(MCP_TIME_BUDGET.as_secs_f64()),
    ),
    (
        "mcp_progress_after_seconds",
        Limit::Seconds(MCP_PROGRESS_AFTER.as_secs_f64()),
    ),
    (
        "mcp_roots_wait_seconds",
        Limit::Seconds(MCP_ROOTS_WAIT.as_secs_f64()),
    ),
    (
        "approval_deadline_seconds",
        Limit::Seconds(APPROVAL_DEADLINE.as_secs_f64()),
    ),
    (
        "index_cache_max_age_seconds",
        Limit::Seconds(INDEX_CACHE_MAX_AGE.as_secs_f64()),
    ),
    ("index_cache_max_bytes", Limit::Count(INDEX_CACHE_MAX_BYTES)),
    // Images and notebooks (crate::media).
    ("image_max_edge", Limit::Count(image::DEFAULT_MAX_EDGE)),
    ("image_max_pixels", Limit::Count(image::DEFAULT_MAX_PIXELS)),
    ("image_max_bytes", Limit::Count(image::DEFAULT_MAX_BYTES)),
    (
        "image_max_source_bytes",
        Limit::Count(image::DEFAULT_MAX_SOURCE_BYTES),
    ),
    (
        "image_max_decode_pixels",
        Limit::Count(image::DEFAULT_MAX_DECODE_PIXELS),
    ),
    (
        "notebook_limit",
        Limit::Count(notebook::DEFAULT_NOTEBOOK_LIMIT as u64),
    ),
    (
        "notebook_max_limit",
        Limit::Count(MAX_NOTEBOOK_LIMIT as u64),
    ),
    (
        "notebook_output_chars",
        Limit::Count(notebook::DEFAULT_OUTPUT_CHARS as u64),
    ),
    (
        "notebook_max_bytes",
        Limit::Count(notebook::DEFAULT_NOTEBOOK_MAX_BYTES),
    ),
    // Outlines and definitions (crate::outline).
    (
        "outline_limit",
        Limit::Count(outline::DEFAULT_OUTLINE_LIMIT as u64),
    ),
    ("outline_max_limit", Limit::Count(MAX_OUTLINE_LIMIT as u64)),
    (
        "definitions_limit",
        Limit::Count(outline::DEFAULT_DEFINITIONS_LIMIT as u64),
    ),
    (
        "definitions_max_limit",
        Limit::Count(MAX_DEFINITIONS_LIMIT as u64),
    ),
    // References and callers (crate::outline::references).
    (
        "references_limit",
        Limit::Count(outline::DEFAULT_REFERENCES_LIMIT as u64),
    ),
    (
        "references_max_limit",
        Limit::Count(MAX_REFERENCES_LIMIT as u64),
    ),
    (
        "references_per_file",
        Limit::Count(outline::refs::MAX_FILE_REFERENCES as u64),
    ),
    (
        "references_line_chars",
        Limit::Count(outline::references::REFERENCE_LINE_CHARS as u64),
    ),
    // What a definition calls (crate::outline::calls).
    (
        "calls_limit",
        Limit::Count(outline::DEFAULT_CALLS_LIMIT as u64),
    ),
    ("calls_max_limit", Limit::Count(MAX_CALLS_LIMIT as u64)),
    (
        "references_definitions_listed",
        Limit::Count(outline::references::MAX_DEFINITIONS_LISTED as u64),
    ),
    // The repository map (crate::outline::map).
    (
        "repo_map_chars",
        Limit::Count(outline::map::DEFAULT_MAP_CHARS as u64),
    ),
    (
        "repo_map_min_chars",
        Limit::Count(outline::map::MIN_MAP_CHARS as u64),
    ),
    (
        "repo_map_definitions",
        Limit::Count(outline::map::DEFAULT_MAP_DEFINITIONS as u64),
    ),
    (
        "repo_map_max_files",
        Limit::Count(outline::map::MAX_COLD_FILES as u64),
    ),
    (
        "repo_map_focus",
        Limit::Count(outline::map::MAX_FOCUS as u64),
    ),
    ("outline_max_bytes", Limit::Count(outline::MAX_SOURCE_BYTES)),
    (
        "outline_max_line_bytes",
        Limit::Count(outline::MAX_LINE_BYTES as u64),
    ),
    (
        "outline_parse_seconds",
        Limit::Seconds(outline::PARSE_TIME.as_secs_f64()),
    ),
    (
        "outline_deadline_seconds",
        Limit::Seconds(outline::WORKER_DEADLINE.as_secs_f64()),
    ),
    (
        "outline_worker_memory_bytes",
        Limit::Count(outline::WORKER_MEMORY_BYTES),
    ),
    (
        "outline_worker_cpu_seconds",
        Limit::Count(outline::WORKER_CPU_SECONDS),
    ),
    ("outline_workers", Limit::Count(outline::MAX_WORKERS as u64)),
    ("outline_cache_bytes", Limit::Count(outline::CACHE_BYTES)),
    ("read_outline_share", Limit::Ratio(READ_OUTLINE_SHARE)),
];
