//! `glob`: ignore-aware listing filtered by a glob, on the walker of [`crate::walker`].
//!
//! The walker's rules, in the order they apply to an entry (details in [`crate::walker`]):
//!
//! 1. ignore files (`.gitignore` and `.git/info/exclude` inside a git repository, `.ignore`,
//!    `.ripsightignore` last and highest), unless `WorkspaceOptions::respect_ignore_files` is
//!    false; hidden files are included;
//! 2. the skip set of directory names: pruned, counted `ignored`;
//! 3. deny rules (case-insensitive): counted `denied`;
//! 4. symlinks: never followed, counted `symlink` (an explicit `path` through an in-root link
//!    is resolved and walked under its real path);
//! 5. FIFOs, sockets and devices: never opened, counted `special`.
//!
//! Options narrow the listing as ripgrep's do for `rg --files`: `max_depth` (`--max-depth`),
//! `respect_ignore_files` (false is `--no-ignore`: ignore files do not apply; the skip set and
//! deny rules still do), `types` (`-t`: file names of these types). Several patterns apply in order, the
//! last that matches deciding, a leading `!` excluding (what lies below a directory it matches
//! too).
//!
//! When the workspace's time budget runs out the walk stops and the result is marked incomplete.
//!
//! One driver, [`list`], whichever lists the files: it asks its candidate source (the warm
//! index, [`crate::candidates`]) once for the files below the walked directory, and matches,
//! counts, sorts and pages them as it does a walk's (`listed` module); it walks when the
//! source cannot answer.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ffi::{OsStr, OsString};
use std::os::fd::AsFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::time::{Instant, SystemTime};

use ignore::types::Types;

mod listed;
use listed::list_listed;

use crate::candidates::{CandidateSource, GlobAsk};
use crate::error::CoreError;
use crate::open::{Target, display_relative, open_target};
use crate::pattern::{
    CompiledGlob, FileFilter, file_types, glob_name_key, literal_prefix, normalize_pattern,
    type_admits,
};
use crate::skip::{IgnoreRule, MAX_HIDING_RULES};
use crate::walker::{FileVisitor, GLOB_CROSSOVER, StartDir, WalkOptions, WalkedFile, walk_files};
use crate::workspace::{CancelToken, SkipCounts, Workspace};

/// Default number of paths a glob returns.
pub const DEFAULT_GLOB_LIMIT: usize = 200;

/// A slash-free pattern that found fewer than this many files gets the `**/` hint when the
/// `**/` form would find more.
pub const ANYWHERE_HINT_BELOW: u64 = 5;

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
    /// The glob, matched against the path relative to `path`; a leading `!` excludes.
    pub pattern: String,
    /// Further globs after `pattern`, in order: the last that matches a file decides, a leading
    /// `!` excludes (also below a directory it matches); with only `!` globs, every other file
    /// is listed.
    pub more_patterns: Vec<String>,
    /// Directory to search, relative to the root (default: the root).
    pub path: Option<OsString>,
    /// Only files of these types (ripgrep's built-in types, `rg -t`; `all`: any type).
    pub types: Vec<String>,
    /// Levels below `path` listed at most (`rg --max-depth`; 1: its own files).
    pub max_depth: Option<usize>,
    /// Whether ignore files apply, as far as the workspace's own `respect_ignore_files` lets
    /// them (false: what they hide is listed too, `rg --no-ignore`); the skip set and deny rules
    /// always apply.
    pub respect_ignore_files: bool,
    /// Paths returned at most; `None` returns every path (default 200).
    pub limit: Option<usize>,
    /// Paths skipped before the first one returned (default 0).
    pub offset: usize,
    /// Result order (default by path).
    pub sort: SortOrder,
    /// Stops the walk when cancelled (the call then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for GlobOptions {
    fn default() -> Self {
        GlobOptions {
            pattern: String::new(),
            more_patterns: Vec::new(),
            path: None,
            types: Vec::new(),
            max_depth: None,
            respect_ignore_files: true,
            limit: Some(DEFAULT_GLOB_LIMIT),
            offset: 0,
            sort: SortOrder::Path,
            cancel: CancelToken::default(),
        }
    }
}

crate::record! {
    "GlobResult",
    /// What a glob found.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct GlobOutput {
        /// The glob pattern as given.
        pub pattern: String,
        /// The further patterns as given.
        pub more_patterns: Vec<String>,
        /// This page of matching files, relative to the root, /-separated (raw bytes: a
        /// non-UTF-8 name round-trips, as a str with surrogate escapes in Python).
        pub paths: Vec<OsString>,
        /// Exact number of matching files across all pages.
        pub total: u64,
        /// Matching files skipped before this page.
        pub offset: u64,
        /// Matching files after this page.
        pub withheld: u64,
        /// The offset of the next page, when matching files follow this one.
        pub next_offset: Option<u64>,
        /// Files the searched directory holds (after ignore and deny rules), counted when
        /// nothing matched.
        pub files_in_scope: Option<u64>,
        /// For a slash-free pattern that found fewer than ANYWHERE_HINT_BELOW files: the
        /// "**/" form, when that finds more.
        pub anywhere_pattern: Option<String>,
        /// Files the anywhere_pattern matches.
        pub anywhere_total: Option<u64>,
        /// The walked directory relative to the root ("" for the root): the path asked for, or
        /// the pattern's literal leading directory below it when the walk was pruned to it
        /// (src/**/*.rs walks src); files_in_scope counts this directory's files.
        pub searched: OsString,
        /// What the walk passed over, by reason.
        pub skipped: SkipCounts,
        /// The ignore rules that hid the most files and directories from the walk, most first
        /// (at most 3).
        pub hidden_by: Vec<IgnoreRule>,
        /// The rule hiding the requested path (or a directory above it) from a walk of the
        /// root, when one does: it was listed anyway, as rg searches a path it is given.
        pub path_ignored_by: Option<IgnoreRule>,
        /// True when the time budget ran out: the result and its totals cover only what was
        /// walked.
        pub incomplete: bool,
        /// Engine time in milliseconds.
        pub elapsed_ms: f64,
    }
}

/// The directory to walk for `pattern`: the literal leading directory when walking it alone
/// lists exactly what a walk of `search` would (a real directory, not a link, not in the skip
/// set, not denied, not ignored, within `walk.max_depth`, which then counts from it);
/// otherwise `search`.
fn pruned_start(
    workspace: &Workspace,
    search: StartDir,
    pattern: &str,
    walk: &mut WalkOptions,
) -> StartDir {
    let prefix = literal_prefix(pattern);
    if prefix.is_empty() || walk.max_depth.is_some_and(|max| max <= prefix.len()) {
        return search;
    }
    let mut relative = search.relative.clone();
    let mut fd: Option<std::os::fd::OwnedFd> = None;
    for part in &prefix {
        if workspace.is_excluded_dir(part) {
            return search;
        }
        if !relative.is_empty() {
            relative.push(b'/');
        }
        relative.extend_from_slice(part.as_bytes());
        if workspace.denied_by(&relative).is_some()
            || (walk.respect_ignore_files && workspace.ignores_dir(&relative))
        {
            return search;
        }
        // One component, `O_NOFOLLOW`: a link (or a file) here means "walk `search`".
        let parent = fd.as_ref().map_or(search.fd.as_fd(), |fd| fd.as_fd());
        match crate::boundary::open_child_dir(parent, part.as_bytes()) {
            Ok(next) => fd = Some(next),
            Err(_) => return search,
        }
    }
    match fd {
        Some(fd) => {
            walk.max_depth = walk.max_depth.map(|max| max - prefix.len());
            StartDir { fd, relative }
        }
        None => search,
    }
}

/// Sort key of a listed file: newest first (a constant in path order), then path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct GlobKey {
    newest_first: Reverse<SystemTime>,
    path: OsString,
}

/// Keeps the `cap` smallest keys seen (all of them when `cap` is `None`).
struct Smallest<T: Ord> {
    cap: Option<usize>,
    heap: BinaryHeap<T>,
    all: Vec<T>,
}

impl<T: Ord> Smallest<T> {
    fn new(cap: Option<usize>) -> Self {
        Smallest {
            cap,
            heap: BinaryHeap::new(),
            all: Vec::new(),
        }
    }

    /// Whether a key that compares to the current largest kept key as `below_worst` says would be
    /// kept; lets callers skip building keys that would be thrown away.
    fn admits(&self, below_worst: impl FnOnce(&T) -> bool) -> bool {
        match self.cap {
            None => true,
            Some(cap) => {
                cap > 0 && (self.heap.len() < cap || self.heap.peek().is_some_and(below_worst))
            }
        }
    }

    fn push(&mut self, item: T) {
        match self.cap {
            None => self.all.push(item),
            Some(cap) => {
                self.heap.push(item);
                if self.heap.len() > cap {
                    self.heap.pop();
                }
            }
        }
    }

    fn into_vec(self) -> Vec<T> {
        let mut out = self.all;
        out.extend(self.heap);
        out
    }
}

struct GlobVisitor<'a> {
    setup: &'a GlobSetup,
    sort: SortOrder,
    matched: u64,
    anywhere_matched: u64,
    in_scope: u64,
    page: Smallest<GlobKey>,
}

impl FileVisitor for GlobVisitor<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        self.in_scope += 1;
        let setup = self.setup;
        let in_search = file
            .relative_bytes
            .get(setup.search_prefix..)
            .unwrap_or_default();
        if setup.anywhere_admits(in_search, file.name_bytes) {
            self.anywhere_matched += 1;
        }
        if !setup.admits(in_search, file.name_bytes) {
            return true;
        }
        self.matched += 1;
        let newest_first = match self.sort {
            SortOrder::Path => Reverse(SystemTime::UNIX_EPOCH),
            SortOrder::Modified => Reverse(
                file.identity()
                    .map_or(SystemTime::UNIX_EPOCH, |i| i.modified()),
            ),
        };
        let admitted = self.page.admits(|worst| {
            (&newest_first, file.relative_bytes).cmp(&(&worst.newest_first, worst.path.as_bytes()))
                == Ordering::Less
        });
        if admitted {
            self.page.push(GlobKey {
                newest_first,
                path: OsString::from_vec(file.relative_bytes.to_vec()),
            });
        }
        true
    }
}

/// Lists files under `options.path` whose path relative to it matches `options.pattern` (and
/// `more_patterns`, `types`, `max_depth`; see the module docs).
///
/// The pattern uses glob syntax with `*` and `?` confined to one directory level, `**` across;
/// a literal leading directory prunes the walk. Results are sorted (by path, or newest first),
/// paged by `offset`/`limit` with exact totals. Errors: `NotFound` / `NotADirectory` /
/// `OutsideRoot` / `Denied` for a bad `path`, `InvalidPattern` for a bad glob,
/// `InvalidArgument` for an unknown file type.
pub fn glob(workspace: &Workspace, options: &GlobOptions) -> Result<GlobOutput, CoreError> {
    list(workspace, options, None)
}

/// The one glob driver: [`glob`], its files listed by `source` (the warm index) when it can
/// list them, else by the walk. Whichever lists them, the match, the counts, the order and the
/// page are the same, and so is the answer.
pub fn list(
    workspace: &Workspace,
    options: &GlobOptions,
    source: Option<&dyn CandidateSource>,
) -> Result<GlobOutput, CoreError> {
    let started = Instant::now();
    let deadline = workspace.deadline_with(&options.cancel);
    let (setup, start) = GlobSetup::new(workspace, options)?;
    if let Some(source) = source {
        let ask = GlobAsk {
            search: &setup.search,
            walked: &setup.searched,
            max_depth: setup.walk.max_depth,
            respect_ignore_files: setup.walk.respect_ignore_files,
            name_keys: setup.name_keys.as_deref(),
        };
        let mut answer = None;
        source.glob_candidates(&ask, &mut |listed| {
            let (paths, counts, incomplete) =
                list_listed(workspace, &setup, options, &listed, &deadline);
            answer = Some((
                paths,
                counts,
                (listed.skipped, listed.hidden_by),
                incomplete,
            ));
        });
        if let Some((paths, counts, accounting, incomplete)) = answer {
            if deadline.cancelled() {
                return Err(CoreError::Cancelled);
            }
            return Ok(setup.output(options, paths, counts, accounting, incomplete, started));
        }
    }
    let cap = options.limit.map(|l| l.saturating_add(options.offset));

    let outcome = walk_files(
        workspace,
        start,
        setup.walk,
        deadline.clone(),
        GLOB_CROSSOVER,
        || GlobVisitor {
            setup: &setup,
            sort: options.sort,
            matched: 0,
            anywhere_matched: 0,
            in_scope: 0,
            page: Smallest::new(cap),
        },
    );

    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }
    let mut counts = GlobCounts::default();
    let mut keys = Vec::new();
    for visitor in outcome.visitors {
        counts.total += visitor.matched;
        counts.anywhere_total += visitor.anywhere_matched;
        counts.in_scope += visitor.in_scope;
        keys.extend(visitor.page.into_vec());
    }
    keys.sort_unstable();
    let paths: Vec<OsString> = keys
        .into_iter()
        .skip(options.offset)
        .take(options.limit.unwrap_or(usize::MAX))
        .map(|k| k.path)
        .collect();
    let hidden_by = outcome.hidden_by.top(MAX_HIDING_RULES);
    Ok(setup.output(
        options,
        paths,
        counts,
        (outcome.skipped, hidden_by),
        outcome.incomplete,
        started,
    ))
}

/// What a glob compiles before it lists anything, whichever lists its files.
struct GlobSetup {
    /// The patterns (against paths relative to the searched directory).
    filter: FileFilter,
    /// The file types asked for.
    types: Option<Types>,
    /// The [`name_key`]s of the names every listed file may have (the keys of the patterns
    /// that are not negated, when each has one): the warm index lists only the files of the
    /// table with those keys (see `index::list`). `None`: any name may be listed.
    name_keys: Option<Vec<u64>>,
    /// For one slash-free pattern: `**/pattern`, and its matcher.
    anywhere_pattern: Option<String>,
    anywhere: Option<CompiledGlob>,
    /// Bytes of a listed path before its part relative to the searched directory.
    search_prefix: usize,
    /// The searched directory, relative to the root (real path).
    search: Vec<u8>,
    /// The directory walked: `search`, or the pattern's literal leading directory below it.
    searched: Vec<u8>,
    /// How `searched` is walked (its `max_depth` counts from `searched`).
    walk: WalkOptions,
    /// The rule hiding the searched directory, if one does.
    path_ignored_by: Option<IgnoreRule>,
}

/// A glob's counts over the walked directory.
#[derive(Default)]
struct GlobCounts {
    total: u64,
    anywhere_total: u64,
    in_scope: u64,
}

impl GlobSetup {
    /// Opens the searched directory, compiles the patterns and picks the directory to walk.
    fn new(
        workspace: &Workspace,
        options: &GlobOptions,
    ) -> Result<(GlobSetup, StartDir), CoreError> {
        let (search, search_relative) =
            match open_target(workspace, options.path.as_deref().unwrap_or_default())? {
                (Target::Dir(dir), relative) => (dir, relative),
                (Target::File(_), relative) => {
                    return Err(CoreError::NotADirectory {
                        path: display_relative(&relative),
                    });
                }
            };
        let search_abs = if search_relative.is_empty() {
            workspace.root().to_path_buf()
        } else {
            workspace.root().join(&search_relative)
        };
        let mut patterns = Vec::with_capacity(1 + options.more_patterns.len());
        for given in std::iter::once(&options.pattern).chain(&options.more_patterns) {
            let trimmed = given.trim();
            let (negated, body) = match trimmed.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, trimmed),
            };
            let normalized = normalize_pattern(body, &search_abs).map_err(|e| match e {
                // The pattern as the caller wrote it, `!` included.
                CoreError::InvalidPattern { issue, message, .. } => CoreError::InvalidPattern {
                    pattern: given.clone(),
                    issue,
                    message,
                },
                other => other,
            })?;
            patterns.push((negated, normalized, given.as_str()));
        }
        let filter = FileFilter::paths(&patterns, |p, shown| workspace.cached_glob(p, shown))?;
        // A file is listed only when a pattern that is not negated matches it.
        let mut name_keys: Option<Vec<u64>> = patterns
            .iter()
            .filter(|(negated, _, _)| !negated)
            .map(|(_, pattern, _)| glob_name_key(pattern))
            .collect();
        if let Some(keys) = &mut name_keys {
            keys.sort_unstable();
            keys.dedup();
        }
        let name_keys = name_keys.filter(|keys| !keys.is_empty());
        let types = file_types(&options.types, &[])?;
        // One pattern that lists by its own name: the hint of what `**/` would list, and the
        // walk pruned to its literal leading directory.
        let single = match patterns.as_slice() {
            [(false, pattern, _)] => Some(pattern.as_str()),
            _ => None,
        };
        let anywhere_pattern = single
            .filter(|p| !p.contains('/'))
            .map(|p| format!("**/{p}"));
        let anywhere = match &anywhere_pattern {
            Some(p) => Some(workspace.cached_glob(p, p)?),
            None => None,
        };
        let search_prefix = if search.relative.is_empty() {
            0
        } else {
            search.relative.len() + 1
        };
        let search_real = search.relative.clone();
        let mut walk = WalkOptions::new(workspace, options.respect_ignore_files, options.max_depth);
        let path_ignored_by = match walk.respect_ignore_files && !search_real.is_empty() {
            true => workspace.hiding(&search_real, true).map(|r| r.stated(1)),
            false => None,
        };
        let start = match single {
            Some(pattern) => pruned_start(workspace, search, pattern, &mut walk),
            None => search,
        };
        let setup = GlobSetup {
            filter,
            types,
            name_keys,
            anywhere_pattern,
            anywhere,
            search_prefix,
            search: search_real,
            searched: start.relative.clone(),
            walk,
            path_ignored_by,
        };
        Ok((setup, start))
    }

    /// Whether the file at `in_search` (relative to the searched directory) named `name` is
    /// listed.
    fn admits(&self, in_search: &[u8], name: &[u8]) -> bool {
        self.filter.admits(in_search, name) && type_admits(self.types.as_ref(), name)
    }

    /// Whether the `**/` form of a slash-free pattern lists that file.
    fn anywhere_admits(&self, in_search: &[u8], name: &[u8]) -> bool {
        self.anywhere.as_ref().is_some_and(|anywhere| {
            anywhere.is_match(Path::new(OsStr::from_bytes(in_search)))
                && type_admits(self.types.as_ref(), name)
        })
    }

    /// The result for one page of `paths`; `skipped` holds the skip counts and the rules that
    /// hid the most.
    fn output(
        &self,
        options: &GlobOptions,
        paths: Vec<OsString>,
        counts: GlobCounts,
        (skipped, hidden_by): (SkipCounts, Vec<IgnoreRule>),
        incomplete: bool,
        started: Instant,
    ) -> GlobOutput {
        let total = counts.total;
        let shown_end = (options.offset as u64).saturating_add(paths.len() as u64);
        let (anywhere_pattern, anywhere_total) = match &self.anywhere_pattern {
            Some(p) if total < ANYWHERE_HINT_BELOW && counts.anywhere_total > total => {
                (Some(p.clone()), Some(counts.anywhere_total))
            }
            _ => (None, None),
        };
        let withheld = total.saturating_sub(shown_end);
        GlobOutput {
            pattern: options.pattern.clone(),
            more_patterns: options.more_patterns.clone(),
            next_offset: (withheld > 0 && !paths.is_empty()).then_some(shown_end),
            paths,
            total,
            offset: options.offset as u64,
            withheld,
            files_in_scope: (total == 0).then_some(counts.in_scope),
            anywhere_pattern,
            anywhere_total,
            searched: OsString::from_vec(self.searched.clone()),
            skipped,
            hidden_by,
            path_ignored_by: self.path_ignored_by.clone(),
            incomplete,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }
}
