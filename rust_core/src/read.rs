//! Line-range reads with memory bounded by what is shown.

use crate::error::CoreError;
use crate::workspace::Workspace;

/// Default number of lines returned.
pub const DEFAULT_READ_LIMIT: usize = 400;
/// Lines longer than this many characters are cut.
pub const DEFAULT_MAX_LINE_CHARS: usize = 500;
/// Files up to this size get an exact line count; larger ones an estimate.
pub const EXACT_COUNT_LIMIT: u64 = 1 << 30;
/// A NUL byte within this many leading bytes makes a file binary.
pub const BINARY_SNIFF_BYTES: usize = 8192;

/// What to read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// File path, relative to the root or absolute inside it.
    pub path: String,
    /// 1-based first line (default 1).
    pub offset: u64,
    /// Lines returned at most (default 400).
    pub limit: usize,
    /// Line length cap in characters (default 500).
    pub max_line_chars: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            path: String::new(),
            offset: 1,
            limit: DEFAULT_READ_LIMIT,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
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
    /// The line's full length in characters when it was cut.
    pub cut_from: Option<u64>,
}

/// What kind of content the file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContentKind {
    /// Text: lines are returned.
    #[default]
    Text,
    /// Zero bytes.
    Empty,
    /// A NUL byte in the first 8 KiB: nothing is dumped.
    Binary,
}

/// What a read returned.
#[derive(Clone, Debug, Default)]
pub struct ReadOutput {
    /// Path relative to the root.
    pub path: String,
    /// Text, empty or binary.
    pub kind: ContentKind,
    /// For binary files: a type guess such as "PNG image", "PDF document", "ELF executable".
    pub binary_type: Option<String>,
    /// File size in bytes.
    pub size_bytes: u64,
    /// The shown lines (empty when `offset` lies past the end).
    pub lines: Vec<ReadLine>,
    /// The requested first line.
    pub offset: u64,
    /// Lines in the file (exact up to 1 GiB, else an estimate).
    pub total_lines: u64,
    /// True when `total_lines` is an estimate.
    pub total_lines_estimated: bool,
    /// Where to read on (`offset` of the next page) when more lines follow.
    pub next_offset: Option<u64>,
    /// "utf-8", "utf-8-bom", "utf-16le", "utf-16be", or "utf-8-lossy" when invalid bytes were replaced.
    pub encoding: String,
    /// "LF", "CRLF", "mixed", "CR" or "none" (no line break at all).
    pub line_ending: String,
}

/// Reads a range of lines from one file.
pub fn read_file(workspace: &Workspace, options: &ReadOptions) -> Result<ReadOutput, CoreError> {
    let _ = (workspace, options);
    Err(CoreError::InvalidArgument {
        message: "read_file is not built yet".into(),
    })
}
