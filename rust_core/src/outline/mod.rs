//! Outlines and definitions (SPEC §2.4b): a file's definitions in source order, and where a
//! name is defined across the tree.
//!
//! - [`outline::outline`](fn@outline): one file's definitions (kind, name, line range, nesting),
//!   a page at a time with the exact total;
//! - [`definitions::definitions`]: the definitions whose name matches, across the files grep's
//!   prefilter names as candidates (the warm index's when the workspace has one).
//!
//! tree-sitter and its grammars are C, and they parse untrusted bytes, so they never run in
//! the caller's process: the engine reads the file through the boundary, and a child process
//! (`worker`, started from a command the embedding program gives, see [`pool`]) parses the
//! bytes under memory and CPU limits and a per-file time cap, while the engine waits for it
//! with a wall-clock deadline and kills it when that passes. A parser that crashes, loops or
//! runs out of memory costs that file its outline (a [`Refusal`]), never the call.
//!
//! Bounded before anything is parsed: a file over [`MAX_SOURCE_BYTES`] or with a line over
//! [`MAX_LINE_BYTES`] (minified) is refused, unparsed. Parses are cached by the bytes they
//! were parsed from (a keyed hash, see `cache`), so a file read again costs a read and a hash.

pub mod cache;
pub mod calls;
mod cap;
pub mod collect;
mod cwalk;
mod defines;
pub mod definitions;
mod file;
pub mod graph;
pub mod imports;
pub(crate) mod includes;
pub mod lang;
mod macro_body;
pub mod map;
mod naming;
pub mod outliner;
pub mod parse;
pub mod pool;
pub mod rank;
mod recover;
pub mod references;
pub mod refs;
pub mod role;
mod roles;
pub mod source;
pub mod tags;
pub mod worker;
pub mod worker_limits;

use std::ffi::OsString;
use std::time::Duration;

pub use file::outline;
pub use lang::Language;
pub use outliner::Outliner;

use crate::budget::CancelToken;

/// Definitions one outline call returns unless it asks otherwise.
pub const DEFAULT_OUTLINE_LIMIT: usize = 200;
/// Definitions one definitions call returns unless it asks otherwise.
pub const DEFAULT_DEFINITIONS_LIMIT: usize = 50;
/// References (or callers) one references call returns unless it asks otherwise.
pub const DEFAULT_REFERENCES_LIMIT: usize = 50;
/// Callees one calls call returns unless it asks otherwise.
pub const DEFAULT_CALLS_LIMIT: usize = 100;
/// Files larger than this (1 MiB) get no outline: they are refused unread.
pub const MAX_SOURCE_BYTES: u64 = 1 << 20;
/// A file with a line longer than this many bytes is taken for minified (or generated) and
/// gets no outline: its definitions would all sit on one line.
pub const MAX_LINE_BYTES: usize = 10_000;
/// Time the worker gives one file's parse and query before it stops them.
pub const PARSE_TIME: Duration = Duration::from_millis(1_000);
/// Wall-clock time the engine waits for the worker's answer on one file before killing it
/// (the parse cap plus room for a loaded machine).
pub const WORKER_DEADLINE: Duration = Duration::from_millis(2_500);
/// Wall-clock time a new worker process has to start and say it is ready.
pub const WORKER_START_TIME: Duration = Duration::from_millis(10_000);
/// Address space of a worker process (`RLIMIT_AS`): the interpreter, the engine and a parse of
/// the largest file fit well within it.
pub const WORKER_MEMORY_BYTES: u64 = 1 << 30;
/// CPU seconds a worker may use on one request (`RLIMIT_CPU`, set afresh for each).
pub const WORKER_CPU_SECONDS: u64 = 3;
/// Worker processes parsing at once, at most (each may take [`WORKER_MEMORY_BYTES`]).
pub const MAX_WORKERS: usize = 4;
/// Worker processes kept waiting between calls.
pub const MAX_IDLE_WORKERS: usize = 2;
/// Bytes of parsed outlines the cache keeps (beyond it the least recently used go).
pub const CACHE_BYTES: u64 = 64 << 20;

crate::choice! {
    /// What a definition is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum SymbolKind {
        /// A class (an `object` in Kotlin, a record in Java and C#).
        Class = "class",
        /// An interface (Java, C#, TypeScript, Go, PHP).
        Interface = "interface",
        /// A trait (Rust, PHP) or a protocol (Swift).
        Trait = "trait",
        /// A struct (C, C++, Rust, Go, C#, Swift).
        Struct = "struct",
        /// A union (C, C++, Rust).
        Union = "union",
        /// An enumeration.
        Enum = "enum",
        /// A type alias or other named type.
        Type = "type",
        /// A Rust `impl` block or a Swift or Kotlin extension (named by its type).
        Impl = "impl",
        /// A module or namespace.
        Module = "module",
        /// A function.
        Function = "function",
        /// A function defined in a class, struct, interface, trait or impl (or a Go method).
        Method = "method",
        /// A macro (C and C++ function-like `#define`s, Rust `macro_rules!`).
        Macro = "macro",
        /// A Markdown heading (its section is its line range).
        Heading = "heading",
    }
}

impl SymbolKind {
    /// Whether a function directly inside a definition of this kind is a method.
    pub fn holds_methods(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Trait
                | SymbolKind::Struct
                | SymbolKind::Union
                | SymbolKind::Enum
                | SymbolKind::Impl
        )
    }
}

crate::choice! {
    /// Why a file has no outline.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Refusal {
        /// No parser for its language (or none could be told from its name).
        NoParser = "no_parser",
        /// A binary file (a NUL byte in its first 8 KiB).
        Binary = "binary",
        /// Larger than the size cap; not read.
        TooLarge = "too_large",
        /// A line longer than the line cap: minified or generated.
        Minified = "minified",
        /// The parse or its query ran past the per-file time cap and was stopped.
        Timeout = "timeout",
        /// The parser's process ended without an answer (a crash, or out of memory).
        Crashed = "crashed",
        /// The parser's process did not answer within its deadline and was killed.
        Deadline = "deadline",
        /// Every parser process stayed busy with other calls until the deadline.
        Busy = "busy",
        /// No parser process could be started (the worker command failed).
        Unavailable = "unavailable",
    }
}

crate::record! {
    "OutlineSymbol",
    /// One definition of an outline.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Symbol {
        /// What it is (class, function, method, struct, heading...).
        pub kind: SymbolKind,
        /// Its name (whitespace runs made one space, cut to 200 characters).
        pub name: String,
        /// 1-based line of its name (read_file's line numbers).
        pub line: u64,
        /// 1-based last line of its definition (of a heading: of its section).
        pub end_line: u64,
        /// How many definitions enclose it (0: at the top of the file).
        pub depth: u64,
    }
}

crate::record! {
    "OutlineResult",
    /// One page of a file's outline, or why it has none.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct OutlineOutput {
        /// The file's real path relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// The language it was parsed as (python, rust, markdown...); null when it has no
        /// parser.
        pub language: Option<Language>,
        /// File size in bytes.
        pub size_bytes: u64,
        /// The page of definitions, in source order.
        pub symbols: Vec<Symbol>,
        /// Definitions skipped before the page.
        pub offset: u64,
        /// Definitions in the file (those up to max_depth, when given): exact.
        pub total: u64,
        /// Definitions after the page.
        pub withheld: u64,
        /// The offset of the next page, or null when this page reaches the end.
        pub next_offset: Option<u64>,
        /// Why the file has no outline (no_parser, binary, too_large, minified, timeout,
        /// crashed, deadline, busy, unavailable); null when it has one.
        pub refused: Option<Refusal>,
        /// The facts behind a refusal (the size and the cap, the longest line...); empty
        /// otherwise.
        pub detail: String,
        /// The parser met text it could not parse; the outline covers what it could.
        pub has_errors: bool,
        /// The outline came from the cache (these bytes were parsed before).
        pub cached: bool,
    }
}

/// What to outline.
#[derive(Clone, Debug)]
pub struct OutlineOptions {
    /// File path, relative to the root or absolute inside it.
    pub path: OsString,
    /// Definitions skipped before the page.
    pub offset: usize,
    /// Definitions returned at most (`None`: all).
    pub limit: Option<usize>,
    /// Leave out definitions nested deeper than this (0: only those at the top of the file).
    pub max_depth: Option<u64>,
    /// Checked before the parse (the call then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions {
            path: OsString::new(),
            offset: 0,
            limit: Some(DEFAULT_OUTLINE_LIMIT),
            max_depth: None,
            cancel: CancelToken::default(),
        }
    }
}
