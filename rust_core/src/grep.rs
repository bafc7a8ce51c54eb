//! Bounded regex search over the workspace's file set.

use crate::error::CoreError;
use crate::workspace::{SkipCounts, Workspace};

/// Default number of matches returned.
pub const DEFAULT_GREP_LIMIT: usize = 50;
/// Each shown line is cut to this many characters (a window around the match when it lies further).
pub const DEFAULT_MAX_LINE_CHARS: usize = 120;

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
    pub path: Option<String>,
    /// File filter like `rg -g`: slash-free matches the file name at any depth, else the path.
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
    /// Path relative to the root.
    pub path: String,
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
    /// Path relative to the root.
    pub path: String,
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

/// Searches the workspace.
pub fn grep(workspace: &Workspace, options: &GrepOptions) -> Result<GrepOutput, CoreError> {
    let _ = (workspace, options);
    Err(CoreError::InvalidArgument {
        message: "grep is not built yet".into(),
    })
}
