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
//! When the workspace's time budget runs out the walk stops and the result is marked incomplete.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ffi::{OsStr, OsString};
use std::os::fd::AsFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::time::{Instant, SystemTime};

use globset::GlobSet;

use crate::boundary::Opened;
use crate::error::CoreError;
use crate::open::display_relative;
use crate::pattern::{CompiledGlob, literal_prefix, normalize_pattern};
use crate::workspace::{CancelToken, OpenedFile, SkipCounts, Workspace};

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
    /// The glob, matched against the path relative to `path`.
    pub pattern: String,
    /// Directory to search, relative to the root (default: the root).
    pub path: Option<OsString>,
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
            path: None,
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
        /// True when the time budget ran out: the result and its totals cover only what was
        /// walked.
        pub incomplete: bool,
        /// Engine time in milliseconds.
        pub elapsed_ms: f64,
    }
}

// ==== What a tool walks or searches ====

pub(crate) use crate::walker::{FileVisitor, StartDir, WalkedFile, walk_files};
pub use crate::walker::{GLOB_SEQUENTIAL_MAX_ENTRIES, GREP_SEQUENTIAL_MAX_ENTRIES};

/// A path a caller asked to walk or search, opened beneath the root.
pub(crate) enum Target {
    /// A directory, ready to walk.
    Dir(StartDir),
    /// A regular file.
    File(OpenedFile),
}

/// Opens `requested` with [`Workspace::open_path`] (boundary, deny rules, special files) for a
/// walk or a search. Returns it with its real path relative to the root, for display.
pub(crate) fn open_target(
    workspace: &Workspace,
    requested: &OsStr,
) -> Result<(Target, String), CoreError> {
    let opened = workspace.open_path(requested)?;
    let relative = opened.relative;
    let target = match opened.opened {
        Opened::Dir(fd) => Target::Dir(StartDir {
            fd,
            relative: opened.real,
        }),
        Opened::File(file, identity) => Target::File(OpenedFile {
            file,
            identity,
            real: opened.real,
            relative: relative.clone(),
        }),
    };
    Ok((target, relative))
}

// ==== glob ====

/// The directory to walk for `pattern`: the literal leading directory when walking it alone
/// lists exactly what a walk of `search` would (a real directory, not a link, not in the skip
/// set, not denied, not ignored); otherwise `search`.
fn pruned_start(workspace: &Workspace, search: StartDir, pattern: &str) -> StartDir {
    let prefix = literal_prefix(pattern);
    if prefix.is_empty() {
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
        if workspace.denied_by(&relative).is_some() || workspace.ignores_dir(&relative) {
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
        Some(fd) => StartDir { fd, relative },
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
    matcher: &'a GlobSet,
    anywhere: Option<&'a GlobSet>,
    /// Length of the searched directory's relative path plus its `/` (0 for the root).
    search_prefix: usize,
    sort: SortOrder,
    matched: u64,
    anywhere_matched: u64,
    in_scope: u64,
    page: Smallest<GlobKey>,
}

impl FileVisitor for GlobVisitor<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        self.in_scope += 1;
        let in_search = Path::new(OsStr::from_bytes(
            file.relative_bytes
                .get(self.search_prefix..)
                .unwrap_or_default(),
        ));
        if let Some(anywhere) = self.anywhere
            && anywhere.is_match(in_search)
        {
            self.anywhere_matched += 1;
        }
        if !self.matcher.is_match(in_search) {
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

/// Lists files under `options.path` whose path relative to it matches `options.pattern`.
///
/// The pattern uses glob syntax with `*` and `?` confined to one directory level, `**` across;
/// a literal leading directory prunes the walk. Results are sorted (by path, or newest first),
/// paged by `offset`/`limit` with exact totals. Errors: `NotFound` / `NotADirectory` /
/// `OutsideRoot` / `Denied` for a bad `path`, `InvalidPattern` for a bad glob.
pub fn glob(workspace: &Workspace, options: &GlobOptions) -> Result<GlobOutput, CoreError> {
    let started = Instant::now();
    let deadline = workspace.deadline_with(&options.cancel);
    let (setup, start) = GlobSetup::new(workspace, options)?;
    let cap = options.limit.map(|l| l.saturating_add(options.offset));

    let outcome = walk_files(
        workspace,
        start,
        deadline.clone(),
        GLOB_SEQUENTIAL_MAX_ENTRIES,
        || GlobVisitor {
            matcher: &setup.matcher,
            anywhere: setup.anywhere.as_deref(),
            search_prefix: setup.search_prefix,
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
    Ok(setup.output(
        options,
        paths,
        counts,
        outcome.skipped,
        outcome.incomplete,
        started,
    ))
}

/// What a glob compiles before it lists anything (shared with the warm index's listing).
pub(crate) struct GlobSetup {
    /// The pattern's matcher (against paths relative to the searched directory).
    pub(crate) matcher: CompiledGlob,
    /// For a slash-free pattern: `**/pattern`, and its matcher.
    pub(crate) anywhere_pattern: Option<String>,
    pub(crate) anywhere: Option<CompiledGlob>,
    /// Bytes of a listed path before its part relative to the searched directory.
    pub(crate) search_prefix: usize,
    /// The searched directory, relative to the root (real path).
    pub(crate) search: Vec<u8>,
    /// The directory walked: `search`, or the pattern's literal leading directory below it.
    pub(crate) searched: Vec<u8>,
}

/// A glob's counts over the walked directory.
#[derive(Default)]
pub(crate) struct GlobCounts {
    pub(crate) total: u64,
    pub(crate) anywhere_total: u64,
    pub(crate) in_scope: u64,
}

impl GlobSetup {
    /// Opens the searched directory, compiles the pattern and picks the directory to walk.
    pub(crate) fn new(
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
        let pattern = normalize_pattern(&options.pattern, &search_abs)?;
        let matcher = workspace.cached_glob(&pattern, &options.pattern)?;
        let anywhere_pattern = (!pattern.contains('/')).then(|| format!("**/{pattern}"));
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
        let start = pruned_start(workspace, search, &pattern);
        let setup = GlobSetup {
            matcher,
            anywhere_pattern,
            anywhere,
            search_prefix,
            search: search_real,
            searched: start.relative.clone(),
        };
        Ok((setup, start))
    }

    /// The result for one page of `paths`.
    pub(crate) fn output(
        &self,
        options: &GlobOptions,
        paths: Vec<OsString>,
        counts: GlobCounts,
        skipped: SkipCounts,
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
            incomplete,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }
}
