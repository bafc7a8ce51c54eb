//! What a search returns: the page of lines or files, exact totals, and what was skipped.

use std::ffi::OsString;

use crate::skip::{IgnoreRule, SkipCounts};

crate::choice! {
    /// What grep returns.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum OutputMode {
        /// Matching lines with context (default).
        #[default]
        Content = "content",
        /// Paths of files with at least one match.
        FilesWithMatches = "files_with_matches",
        /// Matching-line count per file.
        Count = "count",
        /// Paths of files searched without a match.
        FilesWithoutMatch = "files_without_match",
    }
}

crate::record! {
    "GrepLine",
    /// One shown line: a match or a context line.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct GrepLine {
        /// File path relative to the root (raw bytes: a non-UTF-8 name round-trips, as a str
        /// with surrogate escapes in Python).
        pub path: OsString,
        /// 1-based line number.
        pub line: u64,
        /// The line's text, lossily decoded, without the line terminator, cut to
        /// max_line_chars characters around the match (cut parts are replaced by …).
        pub text: String,
        /// False for a context line. A matching line past max_count that falls in the
        /// after-context of the last counted match is a match (rg prints it as one) that is
        /// not counted.
        pub is_match: bool,
        /// True for a match that totals and pages count: false for context lines and for
        /// those matches past max_count.
        pub counted: bool,
        /// True when the text was cut.
        pub cut: bool,
    }
}

crate::record! {
    "FileCount",
    /// A file and its number of matching lines.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct FileCount {
        /// File path relative to the root (raw bytes).
        pub path: OsString,
        /// Matching lines in the file.
        pub count: u64,
    }
}

crate::record! {
    "GrepResult",
    /// What a search found.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct GrepOutput {
        /// The regex (or literal text) as given.
        pub pattern: String,
        /// The output mode of the call.
        pub output_mode: OutputMode,
        /// content mode: this page's matching lines with their context lines, by path then
        /// line, overlapping context merged (each line appears once).
        pub lines: Vec<GrepLine>,
        /// files_with_matches, count and files_without_match modes: this page of files with
        /// their counts (0 in files_without_match).
        pub files: Vec<FileCount>,
        /// Exact number of matching lines.
        pub total_matches: u64,
        /// Exact number of files with a match.
        pub total_files: u64,
        /// Entries (matches, or files in the file modes: in files_without_match, the files
        /// searched without a match, files_searched - total_files) skipped before this page.
        pub offset: u64,
        /// Entries after this page.
        pub withheld: u64,
        /// The offset of the next page, when entries follow this one.
        pub next_offset: Option<u64>,
        /// Files searched.
        pub files_searched: u64,
        /// What the search passed over, by reason.
        pub skipped: SkipCounts,
        /// The ignore rules that hid the most files and directories from the walk, most first
        /// (at most 3).
        pub hidden_by: Vec<IgnoreRule>,
        /// The rule hiding the requested path (or a directory above it) from a walk of the
        /// root, when one does: it was searched anyway, as rg searches a path it is given.
        pub path_ignored_by: Option<IgnoreRule>,
        /// Private-key blocks (PEM BEGIN ... PRIVATE KEY through its END line) in the files
        /// searched, with or without matches: their lines are withheld, neither searched,
        /// counted nor shown. The counts are the files' own, the same for every pattern. A
        /// search that stops early in a file (max_count, files_with_matches) counts the blocks
        /// it met.
        pub withheld_key_blocks: u64,
        /// Lines of those blocks.
        pub withheld_key_lines: u64,
        /// Files holding those blocks.
        pub withheld_key_files: u64,
        /// True when the time budget ran out: the result and its totals cover only what was
        /// searched.
        pub incomplete: bool,
        /// Engine time in milliseconds.
        pub elapsed_ms: f64,
    }
}
