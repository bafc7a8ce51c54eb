//! Where a search's files come from: the walk of the searched directory, or a source that can
//! list them without walking (the warm index, [`crate::index`]).
//!
//! The drivers of grep ([`crate::grep::search`]) and glob ([`crate::glob::list`]) do everything
//! else, the same way whichever lists: the opens, the boundary checks, the per-file search or
//! the match, the budget, the ordering and the page. Each asks its [`CandidateSource`] once, in
//! the engine; the source lists the files that may match (and, for grep, counts those it proves
//! match-free) or says that it cannot, and then the walk answers. A source knows nothing of the
//! searcher, and the searcher nothing of the source.

use crate::boundary::FileIdentity;
use crate::pattern::FileSelect;
use crate::skip::IgnoreRule;
use crate::workspace::SkipCounts;

// ==== What the searcher reads: the bounds a source's proofs rest on ====
//
// A source may count a file as searched without a match unread only when the searcher would
// read it to its end as text; these are the searcher's bounds it checks that against.

/// The most lines of context shown on either side of a match (the warm index's longest
/// indexed line is sized so that a match with this much context fits one searcher buffer).
pub const MAX_CONTEXT: usize = 20;
/// Files larger than this (256 MiB) are not searched; they are counted as `too_large`.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The longest line a search holds in memory (16 MiB, the searcher's heap limit): a file with a
/// longer line is passed over and counted as `line_too_long`. In multiline mode, where the
/// whole file is held, the largest file searched; larger ones count as `too_large`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// The byte order marks a file may start with (UTF-8, UTF-16 LE and BE): the searcher
/// transcodes a UTF-16 file before searching it.
pub(crate) const BOMS: [&[u8]; 3] = [b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF"];

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
    /// Every line of a matching file matters, not only the matching ones: content mode (line
    /// numbers), context lines, `max_count` (matches counted from the file's start).
    pub(crate) whole_files: bool,
}

/// Contents a candidate source holds for files it lists: the bytes of a file as the source read
/// them, for a file whose identity is unchanged since, which the searcher takes instead of
/// opening and reading the file (the warm index's held contents). Held bytes are text the
/// searcher takes as it is: no NUL byte, no byte-order mark, no private-key marker (a file
/// that may hold one is opened and searched in key mode).
pub trait HeldContents: Send + Sync {
    /// The bytes of the file listed with `id` (see [`Listed::held`]), or `None`: the file is
    /// opened and read.
    fn contents(&self, id: u32) -> Option<&[u8]>;
}

/// The parts of a listed file a search reads, when the source proves that no line outside them
/// matches: byte ranges in order, each starting a line and ending after a line end (or at the
/// end). They describe the file as it was when it had `size` bytes: a file of another size now
/// is read whole.
pub struct ReadParts {
    pub(crate) size: u64,
    pub(crate) ranges: Vec<std::ops::Range<u64>>,
}

/// The `Listed::held` of a file whose contents the source does not hold.
pub const NOT_HELD: u32 = u32::MAX;

/// The files a candidate source lists in place of a walk, and what that walk would have
/// counted beside them.
#[derive(Default)]
pub struct Listed {
    /// The files to read, relative to the root, in path order.
    pub(crate) paths: Vec<String>,
    /// For each of `paths`, the id under which `contents` holds its bytes ([`NOT_HELD`]: none).
    pub(crate) held: Vec<u32>,
    /// The contents the source holds for some of `paths`.
    pub(crate) contents: Option<std::sync::Arc<dyn HeldContents>>,
    /// For each of `paths`, the parts of it to read (`None`: all of it).
    pub(crate) parts: Vec<Option<ReadParts>>,
    /// Files the source proves match-free, counted as searched without a match unread.
    pub(crate) unread: u64,
    /// The same, by path, in `files_without_match` mode (where they are the entries).
    pub(crate) unread_paths: Vec<String>,
    /// What the walk passes over, by reason.
    pub(crate) skipped: SkipCounts,
    /// The rules that hide the most entries from the walk.
    pub(crate) hidden_by: Vec<IgnoreRule>,
}

/// What a glob asks its candidate source: the files below `walked` that it must match.
pub struct GlobAsk<'a> {
    /// The directory searched, relative to the root (real path).
    pub(crate) search: &'a [u8],
    /// The directory walked: `search`, or the pattern's literal leading directory below it.
    pub(crate) walked: &'a [u8],
    /// Levels below `walked` listed at most.
    pub(crate) max_depth: Option<usize>,
    /// Whether the call's walk applies ignore files.
    pub(crate) respect_ignore_files: bool,
    /// The [`crate::pattern::name_key`]s of the names every listed file may have, when the
    /// patterns tell (`None`: any name).
    pub(crate) name_keys: Option<&'a [u64]>,
}

/// One file a source lists for a glob.
pub struct ListedFile<'a> {
    /// Its path, relative to the root.
    pub(crate) path: &'a String,
    /// Its identity when the source last saw it (its modification time sorts a listing
    /// newest first).
    pub(crate) identity: &'a FileIdentity,
}

/// The files a candidate source lists for a glob in place of a walk, borrowed from it while
/// the glob matches them, and what that walk would have counted beside them.
pub struct ListedFiles<'a> {
    /// The files within the walk's reach, in path order: every one, or only those with the
    /// names the glob asked for.
    pub(crate) files: Vec<ListedFile<'a>>,
    /// When `files` holds only the files with the names asked for: the number of files in
    /// the walk's reach, counted when asked (a listing that lists nothing reports it).
    pub(crate) in_scope: Option<&'a dyn Fn() -> u64>,
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

    /// Hands the files the glob `ask` describes must match to `list`, and says whether it did
    /// (false: this source cannot tell, and the walk answers).
    fn glob_candidates(&self, ask: &GlobAsk<'_>, list: &mut dyn FnMut(ListedFiles<'_>)) -> bool;
}

#[cfg(test)]
mod tests;
