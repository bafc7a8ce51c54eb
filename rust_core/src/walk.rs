//! Ignore-aware parallel walking and `glob`.

use crate::error::CoreError;
use crate::workspace::{SkipCounts, Workspace};

/// Default number of paths a glob returns.
pub const DEFAULT_GLOB_LIMIT: usize = 200;

/// Order of glob results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortOrder {
    /// By relative path, bytewise (default).
    #[default]
    Path,
    /// By modification time, newest first; ties by path.
    Modified,
}

/// What to list.
#[derive(Clone, Debug)]
pub struct GlobOptions {
    /// The glob, matched against the path relative to `path`.
    pub pattern: String,
    /// Directory to search, relative to the root (default: the root).
    pub path: Option<String>,
    /// Paths returned at most; `None` returns every path (default 200).
    pub limit: Option<usize>,
    /// Paths skipped before the first one returned (default 0).
    pub offset: usize,
    /// Result order (default by path).
    pub sort: SortOrder,
}

impl Default for GlobOptions {
    fn default() -> Self {
        GlobOptions {
            pattern: String::new(),
            path: None,
            limit: Some(DEFAULT_GLOB_LIMIT),
            offset: 0,
            sort: SortOrder::Path,
        }
    }
}

/// What a glob found.
#[derive(Clone, Debug, Default)]
pub struct GlobOutput {
    /// The page of matching file paths, relative to the root, `/`-separated.
    pub paths: Vec<String>,
    /// Exact number of matching files (all pages).
    pub total: u64,
    /// The offset this page starts at.
    pub offset: u64,
    /// Matching files after this page (withheld); the next page starts at `offset + paths.len()`.
    pub withheld: u64,
    /// Files the searched directory holds (after ignore and deny rules), counted when nothing matched.
    pub files_in_scope: Option<u64>,
    /// For a slash-free pattern that found little: the `**/` form and how many files it matches.
    pub anywhere_hint: Option<(String, u64)>,
    /// The searched directory relative to the root ("" for the root).
    pub searched: String,
    /// What was passed over, by reason.
    pub skipped: SkipCounts,
    /// True when the time budget ran out: the totals cover only what was walked.
    pub incomplete: bool,
    /// Wall time of the walk in milliseconds.
    pub elapsed_ms: f64,
}

/// Lists files under `options.path` whose path matches `options.pattern`.
pub fn glob(workspace: &Workspace, options: &GlobOptions) -> Result<GlobOutput, CoreError> {
    let _ = (workspace, options);
    Err(CoreError::InvalidArgument {
        message: "glob is not built yet".into(),
    })
}
