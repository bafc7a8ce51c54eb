//! Where a search's files come from: the walk of the searched directory, or a source that can
//! list them without walking (the warm index, [`crate::index`]).
//!
//! The grep driver ([`crate::grep::search`]) does everything else, the same way whichever
//! answers: the opens, the boundary checks, the per-file search, the budget, the ordering and
//! the page. It asks its [`CandidateSource`] once, in the engine; the source says which files
//! may match (and which files it proves match-free) or that it cannot answer, and then the walk
//! answers. A source knows nothing of the searcher, and the searcher nothing of the source.

use crate::pattern::FileSelect;
use crate::skip::IgnoreRule;
use crate::workspace::SkipCounts;

/// What a grep asks its candidate source: the files of `dir` that it must read.
pub struct GrepAsk<'a> {
    /// The directory searched, relative to the root; `None` when the search walks no directory
    /// (a single file, or `max_count` 0: nothing is searched), which no source lists.
    pub(crate) dir: Option<&'a [u8]>,
    /// The files of the walk that are searched (the call's `glob`, `types`, `types_not`).
    pub(crate) select: &'a FileSelect,
    /// Levels below `dir` searched at most.
    pub(crate) max_depth: Option<usize>,
    /// Whether the call's walk applies ignore files.
    pub(crate) respect_ignore_files: bool,
    /// The regex (or literal string) searched for, and how.
    pub(crate) pattern: &'a str,
    /// The pattern is a literal string.
    pub(crate) literal: bool,
    /// It matches case-insensitively.
    pub(crate) case_insensitive: bool,
    /// A match may span lines.
    pub(crate) multiline: bool,
    /// The lines without a match are the matches.
    pub(crate) invert_match: bool,
    /// The files searched without a match are the entries (`files_without_match`).
    pub(crate) files_without_match: bool,
    /// Files larger than this are passed over as `too_large` by a multiline search whatever
    /// they hold: they must be listed to be counted so.
    pub(crate) multiline_max_bytes: u64,
}

/// The files a candidate source lists in place of a walk, and what that walk would have
/// counted beside them.
#[derive(Default)]
pub struct Listed {
    /// The files to read, relative to the root, in path order.
    pub(crate) paths: Vec<String>,
    /// Files the source proves match-free, counted as searched without a match unread.
    pub(crate) unread: u64,
    /// The same, by path, in `files_without_match` mode (where they are the entries).
    pub(crate) unread_paths: Vec<String>,
    /// What the walk passes over, by reason.
    pub(crate) skipped: SkipCounts,
    /// The rules that hide the most entries from the walk.
    pub(crate) hidden_by: Vec<IgnoreRule>,
}

/// A source of candidate files that can stand in for the walk (the warm index).
pub trait CandidateSource {
    /// The files the search `ask` describes must read, or `None` when this source cannot tell
    /// (the walk answers).
    fn grep_candidates(&self, ask: &GrepAsk<'_>) -> Option<Listed>;
}
