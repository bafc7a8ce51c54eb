//! Ignore-aware parallel walking and `glob`.
//!
//! `walk_files` is the one walker behind both `glob` and `grep`: it runs
//! `ignore::WalkBuilder::build_parallel` with ripsight's rules and hands every file that passes
//! them to a per-thread `FileVisitor`. The rules, in the order they apply to an entry:
//!
//! 1. ignore files, unless `WorkspaceOptions::respect_ignore_files` is false: `.gitignore` and
//!    `.git/info/exclude` only inside a git repository (as ripgrep: a stray `.gitignore` of `/*`
//!    outside git hides nothing), `.ignore` everywhere, ignore files of parent directories, and
//!    `.ripsightignore` with the highest precedence (its `!pattern` re-includes what `.gitignore`
//!    hides). The global git excludes file is never read, so results do not depend on the machine.
//!    Hidden files are included.
//! 2. the skip set of directory names ([`Workspace::is_excluded_dir`]): pruned, counted `ignored`;
//! 3. deny rules ([`Workspace::is_denied_entry`]; for a symlink also its target): counted
//!    `denied`, a denied directory is pruned;
//! 4. FIFOs, sockets and devices: never opened, counted `special`;
//! 5. symlinks are followed (the walker detects loops; a loop or a broken link counts as
//!    `unreadable`), except those resolving outside the root: not followed, counted `outside_root`.
//!    A symlinked directory's files are listed under the link's own path.
//!
//! `SkipCounts::ignored` therefore counts pruned skip-set directories only: entries hidden by
//! ignore files are dropped inside the `ignore` crate where counting them is not possible cheaply.
//! When the workspace's time budget runs out the walk stops and the result is marked incomplete.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use globset::{GlobBuilder, GlobMatcher};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::error::{CoreError, PatternIssue};
use crate::workspace::{
    CancelToken, Deadline, RIPSIGHT_IGNORE_FILENAME, SkipCounts, Workspace, normalize_lexically,
};

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
    pub path: Option<String>,
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
        /// This page of matching files, relative to the root, /-separated.
        pub paths: Vec<String>,
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
        pub searched: String,
        /// What the walk passed over, by reason.
        pub skipped: SkipCounts,
        /// True when the time budget ran out: the result and its totals cover only what was
        /// walked.
        pub incomplete: bool,
        /// Engine time in milliseconds.
        pub elapsed_ms: f64,
    }
}

// ==== The walker ====

/// One file the walk let through.
pub(crate) struct WalkedFile<'a> {
    /// The path as walked (absolute, under the root; through symlinks, not resolved).
    pub(crate) path: &'a Path,
    /// The path relative to the root, `/`-separated.
    pub(crate) relative: &'a str,
    /// The file name.
    pub(crate) name: &'a str,
    /// The walker's entry (file type, metadata).
    pub(crate) entry: &'a DirEntry,
}

/// Receives the files of one walker thread.
pub(crate) trait FileVisitor: Send {
    /// Handles one file; `skipped` is the thread's count of passed-over entries. Returns false to
    /// stop the whole walk.
    fn visit_file(&mut self, file: &WalkedFile<'_>, skipped: &mut SkipCounts) -> bool;
}

/// What [`walk_files`] leaves: every thread's visitor, the merged skip counts and whether the
/// time budget ran out.
pub(crate) struct WalkOutcome<V> {
    pub(crate) visitors: Vec<V>,
    pub(crate) skipped: SkipCounts,
    pub(crate) incomplete: bool,
}

/// Worker threads of a walk: the workspace option, or one per core.
pub(crate) fn thread_count(workspace: &Workspace) -> usize {
    match workspace.options().threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// `path` relative to `root`, `/`-separated, without allocating in the common case.
pub(crate) fn relative_to<'a>(root: &Path, path: &'a Path) -> Cow<'a, str> {
    #[cfg(unix)]
    {
        let root = root.as_os_str().as_encoded_bytes();
        let bytes = path.as_os_str().as_encoded_bytes();
        if let Some(rest) = bytes.strip_prefix(root) {
            let rest = if root.ends_with(b"/") || rest.is_empty() {
                rest
            } else if let Some(rest) = rest.strip_prefix(b"/") {
                rest
            } else {
                return Cow::Owned(String::new());
            };
            return String::from_utf8_lossy(rest);
        }
        Cow::Owned(String::new())
    }
    #[cfg(not(unix))]
    {
        let rest = path.strip_prefix(root).unwrap_or(Path::new(""));
        let parts: Vec<_> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        Cow::Owned(parts.join("/"))
    }
}

/// A directory or file a caller asked for, as it will be walked or searched.
pub(crate) struct Target {
    /// Absolute path under the root (not necessarily canonical).
    pub(crate) path: PathBuf,
    /// `path` relative to the root, `/`-separated.
    pub(crate) relative: String,
}

/// Resolves `requested` (boundary and deny checks by [`Workspace::resolve`]) and keeps the path
/// as the caller wrote it when it names the same place inside the root, so the files below a
/// symlinked directory keep the link's path; otherwise the canonical path.
pub(crate) fn resolve_target(workspace: &Workspace, requested: &str) -> Result<Target, CoreError> {
    let resolved = workspace.resolve(requested)?;
    let trimmed = requested.trim();
    if !trimmed.is_empty() && trimmed != "." {
        let joined = if Path::new(trimmed).is_absolute() {
            PathBuf::from(trimmed)
        } else {
            workspace.root().join(trimmed)
        };
        let lexical = normalize_lexically(&joined);
        if lexical != resolved.absolute
            && workspace.contains(&lexical)
            && std::fs::canonicalize(&lexical).is_ok_and(|c| c == resolved.absolute)
            && let Some(relative) = workspace.relative(&lexical)
        {
            return Ok(Target {
                path: lexical,
                relative,
            });
        }
    }
    Ok(Target {
        path: resolved.absolute,
        relative: resolved.relative,
    })
}

/// The path to hand the walker for directory `dir`: a symlink gets a trailing `/`, so the walker
/// descends into it (it does not follow a root that is a link) and names entries below the link.
fn walk_root(dir: &Path) -> PathBuf {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        let mut with_slash = dir.as_os_str().to_os_string();
        with_slash.push(std::path::MAIN_SEPARATOR_STR);
        return PathBuf::from(with_slash);
    }
    dir.to_path_buf()
}

/// A `WalkBuilder` rooted at `start` with ripsight's ignore-file rules (no entry filter).
fn ignore_rules(workspace: &Workspace, start: &Path) -> WalkBuilder {
    let respect = workspace.options().respect_ignore_files;
    let mut builder = WalkBuilder::new(start);
    builder
        .hidden(false)
        .parents(respect)
        .ignore(respect)
        .git_ignore(respect)
        .git_exclude(respect)
        .git_global(false)
        .require_git(true)
        .follow_links(true);
    if respect {
        builder.add_custom_ignore_filename(RIPSIGHT_IGNORE_FILENAME);
    }
    builder
}

/// Counts kept by the entry filter, shared by all walker threads.
#[derive(Default)]
struct FilterCounts {
    ignored: AtomicU64,
    denied: AtomicU64,
    special: AtomicU64,
    outside_root: AtomicU64,
    unreadable: AtomicU64,
}

impl FilterCounts {
    fn bump(counter: &AtomicU64) -> bool {
        counter.fetch_add(1, AtomicOrdering::Relaxed);
        false
    }

    fn add_to(&self, skipped: &mut SkipCounts) {
        skipped.ignored += self.ignored.load(AtomicOrdering::Relaxed);
        skipped.denied += self.denied.load(AtomicOrdering::Relaxed);
        skipped.special += self.special.load(AtomicOrdering::Relaxed);
        skipped.outside_root += self.outside_root.load(AtomicOrdering::Relaxed);
        skipped.unreadable += self.unreadable.load(AtomicOrdering::Relaxed);
    }
}

/// The entry filter: skip set, deny rules, special files, symlinks leaving the root.
fn keep_entry(workspace: &Workspace, counts: &FilterCounts, entry: &DirEntry) -> bool {
    let Some(file_type) = entry.file_type() else {
        return true;
    };
    let name = entry.file_name().to_string_lossy();
    if file_type.is_dir() && workspace.is_excluded_dir(&name) {
        return FilterCounts::bump(&counts.ignored);
    }
    let relative = relative_to(workspace.root(), entry.path());
    if workspace.is_denied_entry(&relative, &name) {
        return FilterCounts::bump(&counts.denied);
    }
    if !file_type.is_file() && !file_type.is_dir() {
        // With links followed, the type is the target's: a FIFO, socket or device.
        return FilterCounts::bump(&counts.special);
    }
    if entry.path_is_symlink() {
        let Ok(target) = std::fs::canonicalize(entry.path()) else {
            return FilterCounts::bump(&counts.unreadable);
        };
        if !workspace.contains(&target) {
            return FilterCounts::bump(&counts.outside_root);
        }
        // A link named `notes.txt` pointing at `.env` is as secret as `.env`.
        let target_relative = workspace.relative(&target).unwrap_or_default();
        if workspace.denied_by(&target_relative).is_some() {
            return FilterCounts::bump(&counts.denied);
        }
    }
    true
}

/// A glob of a directory whose last walk saw at most this many entries (files and
/// directories) runs on one worker thread: on small trees starting, feeding and joining more
/// threads costs more than it saves, and concurrent calls do not oversubscribe the cores.
/// Measured crossover on 2 cores: between 1,100 and 2,800 entries.
pub const GLOB_SEQUENTIAL_MAX_ENTRIES: u64 = 2_000;
/// The same for grep, which spends more time per file (open, read): crossover measured between
/// 430 and 1,100 entries.
pub const GREP_SEQUENTIAL_MAX_ENTRIES: u64 = 700;

/// How [`walk_files_with`] runs the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WalkMode {
    /// Sequential when the workspace has one thread or the last complete walk of the
    /// directory saw at most `sequential_max` entries; parallel otherwise (and the first time).
    Auto {
        /// Largest remembered walk size walked sequentially.
        sequential_max: u64,
    },
    /// On one worker thread.
    Sequential,
    /// On the workspace's worker threads.
    Parallel,
}

/// Walks `start` (an existing directory inside the root), calling the visitors made by `make`
/// for every file that passes the rules in the module docs. Stops when `deadline` expires or a
/// visitor asks to. Trees whose last walk saw at most `sequential_max` entries are walked by
/// one thread, others in parallel (see [`WalkMode::Auto`]); both give the same files and counts.
pub(crate) fn walk_files<V, F>(
    workspace: &Workspace,
    start: &Path,
    deadline: Deadline,
    sequential_max: u64,
    make: F,
) -> WalkOutcome<V>
where
    V: FileVisitor,
    F: FnMut() -> V,
{
    let mode = WalkMode::Auto { sequential_max };
    walk_files_with(workspace, start, deadline, mode, make)
}

pub(crate) fn walk_files_with<V, F>(
    workspace: &Workspace,
    start: &Path,
    deadline: Deadline,
    mode: WalkMode,
    mut make: F,
) -> WalkOutcome<V>
where
    V: FileVisitor,
    F: FnMut() -> V,
{
    let threads = thread_count(workspace);
    let mode = match mode {
        WalkMode::Auto { sequential_max }
            if threads <= 1
                || workspace
                    .walk_size(start)
                    .is_some_and(|n| n <= sequential_max) =>
        {
            WalkMode::Sequential
        }
        WalkMode::Auto { .. } => WalkMode::Parallel,
        forced => forced,
    };
    let counts = Arc::new(FilterCounts::default());
    let mut builder = ignore_rules(workspace, &walk_root(start));
    {
        let workspace = workspace.clone();
        let counts = Arc::clone(&counts);
        builder.filter_entry(move |entry| keep_entry(&workspace, &counts, entry));
    }
    let incomplete = AtomicBool::new(false);
    let entries = AtomicU64::new(0);
    let finished: Mutex<Vec<(V, SkipCounts)>> = Mutex::new(Vec::new());
    let shared = Shared {
        root: workspace.root(),
        deadline,
        incomplete: &incomplete,
        entries: &entries,
        finished: &finished,
    };
    // `ignore`'s sequential `Walk` would avoid the one thread start, but it looks up every
    // ignore-file name with a `stat` per directory (it does not have the directory's listing at
    // hand as the parallel walker does): measured slower on a 300-file tree (1.37 vs 0.84 ms
    // per glob). One worker thread of the parallel walker is the cheaper "sequential" walk, and
    // it runs the very same code as the parallel one.
    let workers = if mode == WalkMode::Sequential {
        1
    } else {
        threads
    };
    builder.threads(workers);
    let mut threads = ThreadBuilder {
        make: &mut make,
        shared: &shared,
    };
    builder.build_parallel().visit(&mut threads);

    let incomplete = incomplete.into_inner();
    if !incomplete {
        workspace.record_walk_size(start, entries.into_inner());
    }
    let mut skipped = SkipCounts::default();
    counts.add_to(&mut skipped);
    let mut visitors = Vec::new();
    for (visitor, thread_skipped) in finished.into_inner().unwrap_or_else(|e| e.into_inner()) {
        skipped.add(&thread_skipped);
        visitors.push(visitor);
    }
    WalkOutcome {
        visitors,
        skipped,
        incomplete,
    }
}

/// What every visitor of one walk shares.
struct Shared<'s, V> {
    root: &'s Path,
    deadline: Deadline,
    incomplete: &'s AtomicBool,
    /// Entries (files and directories) the walk let through.
    entries: &'s AtomicU64,
    finished: &'s Mutex<Vec<(V, SkipCounts)>>,
}

struct ThreadBuilder<'s, 'm, V, F> {
    make: &'m mut F,
    shared: &'s Shared<'s, V>,
}

impl<'s, V, F> ParallelVisitorBuilder<'s> for ThreadBuilder<'s, '_, V, F>
where
    V: FileVisitor + 's,
    F: FnMut() -> V,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(ThreadVisitor::new((self.make)(), self.shared))
    }
}

struct ThreadVisitor<'s, V> {
    visitor: Option<V>,
    skipped: SkipCounts,
    entries: u64,
    shared: &'s Shared<'s, V>,
}

impl<'s, V: FileVisitor> ThreadVisitor<'s, V> {
    fn new(visitor: V, shared: &'s Shared<'s, V>) -> Self {
        ThreadVisitor {
            visitor: Some(visitor),
            skipped: SkipCounts::default(),
            entries: 0,
            shared,
        }
    }

    fn visit_entry(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.shared.deadline.expired() {
            self.shared.incomplete.store(true, AtomicOrdering::Relaxed);
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                // Soft errors (a malformed line in an ignore file) do not hide any file.
                if !error.is_partial() {
                    self.skipped.unreadable += 1;
                }
                return WalkState::Continue;
            }
        };
        self.entries += 1;
        if entry.file_type().is_none_or(|t| t.is_dir()) {
            return WalkState::Continue;
        }
        let Some(visitor) = self.visitor.as_mut() else {
            return WalkState::Quit;
        };
        let relative = relative_to(self.shared.root, entry.path());
        let name = entry.file_name().to_string_lossy();
        let file = WalkedFile {
            path: entry.path(),
            relative: &relative,
            name: &name,
            entry: &entry,
        };
        if visitor.visit_file(&file, &mut self.skipped) {
            WalkState::Continue
        } else {
            WalkState::Quit
        }
    }
}

impl<V: FileVisitor> ParallelVisitor for ThreadVisitor<'_, V> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        self.visit_entry(entry)
    }
}

impl<V> Drop for ThreadVisitor<'_, V> {
    fn drop(&mut self) {
        self.shared
            .entries
            .fetch_add(self.entries, AtomicOrdering::Relaxed);
        if let Some(visitor) = self.visitor.take() {
            let mut finished = self
                .shared
                .finished
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            finished.push((visitor, self.skipped));
        }
    }
}

// ==== glob ====

/// Characters that make a pattern component a glob rather than a literal name.
const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\', '!'];

/// Compiles a glob with ripsight's semantics: `*` and `?` never cross `/`, `**` does.
pub(crate) fn compile_glob(pattern: &str, shown: &str) -> Result<GlobMatcher, CoreError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| CoreError::InvalidPattern {
            pattern: shown.to_string(),
            issue: PatternIssue::Glob,
            message: e.kind().to_string(),
        })
}

/// [`compile_glob`] through the workspace's cache of compiled globs.
pub(crate) fn cached_glob(
    workspace: &Workspace,
    pattern: &str,
    shown: &str,
) -> Result<GlobMatcher, CoreError> {
    workspace.cached_glob(pattern, || compile_glob(pattern, shown))
}

/// The pattern as matched against paths relative to the search directory: an absolute pattern
/// under the search directory loses that prefix, and a leading `./` or `/` is dropped.
fn normalize_pattern(pattern: &str, search_abs: &Path) -> Result<String, CoreError> {
    let trimmed = pattern.trim();
    let mut rest = trimmed;
    let search = search_abs.to_string_lossy();
    if let Some(inner) = rest.strip_prefix(search.as_ref())
        && (inner.is_empty() || inner.starts_with('/'))
    {
        rest = inner;
    } else if rest.starts_with('/') {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::AbsoluteGlob,
            message: format!(
                "the pattern is an absolute path outside the searched directory ({search})"
            ),
        });
    }
    if rest.split('/').any(|part| part == "..") {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::ParentGlob,
            message: "a pattern cannot contain `..`: it matches paths below `path` and never \
                      leaves the workspace root"
                .into(),
        });
    }
    loop {
        if let Some(inner) = rest.strip_prefix("./") {
            rest = inner;
        } else if let Some(inner) = rest.strip_prefix('/') {
            rest = inner;
        } else {
            break;
        }
    }
    if rest.is_empty() || rest == "." {
        return Err(CoreError::InvalidPattern {
            pattern: pattern.to_string(),
            issue: PatternIssue::EmptyPattern,
            message: "the pattern is empty".into(),
        });
    }
    // `dir/` means what lies below the directory.
    if rest.ends_with('/') {
        return Ok(format!("{rest}**"));
    }
    // `**.rs` (a common slip for `**/*.rs`) would mean `*.rs` to globset: say what was meant.
    let parts: Vec<String> = rest
        .split('/')
        .map(|part| match part.strip_prefix("**") {
            Some(tail) if !tail.is_empty() && !tail.starts_with('*') => format!("**/*{tail}"),
            _ => part.to_string(),
        })
        .collect();
    Ok(parts.join("/"))
}

/// The pattern's leading directory components that hold no glob syntax (never the last one).
fn literal_prefix(pattern: &str) -> Vec<&str> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut prefix = Vec::new();
    for part in &parts[..parts.len().saturating_sub(1)] {
        if part.is_empty() || *part == "." || *part == ".." || part.contains(GLOB_META) {
            break;
        }
        prefix.push(*part);
    }
    prefix
}

/// The directory to walk for `pattern`: the literal leading directory when walking it alone
/// lists exactly what a walk of `search_abs` would (a real directory, not a link, not in the
/// skip set, not denied, not ignored); otherwise `search_abs`.
fn pruned_start(workspace: &Workspace, search_abs: &Path, pattern: &str) -> PathBuf {
    let prefix = literal_prefix(pattern);
    if prefix.is_empty() {
        return search_abs.to_path_buf();
    }
    let mut dir = search_abs.to_path_buf();
    for part in &prefix {
        dir.push(part);
        let is_real_dir = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_dir());
        if !is_real_dir || workspace.is_excluded_dir(part) {
            return search_abs.to_path_buf();
        }
    }
    let relative = workspace.relative(&dir).unwrap_or_default();
    if workspace.denied_by(&relative).is_some() {
        return search_abs.to_path_buf();
    }
    if workspace.options().respect_ignore_files {
        let rules = ignore_rules(workspace, search_abs);
        let mut matchers = rules.build_matchers();
        if let Some(matcher) = matchers.first_mut()
            && matcher.matched(prefix.join("/"), true).is_ignore()
        {
            return search_abs.to_path_buf();
        }
    }
    dir
}

/// Sort key of a listed file: newest first (a constant in path order), then path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct GlobKey {
    newest_first: Reverse<SystemTime>,
    path: String,
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
    matcher: &'a GlobMatcher,
    anywhere: Option<&'a GlobMatcher>,
    search_abs: &'a Path,
    sort: SortOrder,
    matched: u64,
    anywhere_matched: u64,
    in_scope: u64,
    page: Smallest<GlobKey>,
}

impl FileVisitor for GlobVisitor<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        self.in_scope += 1;
        let in_search = relative_to(self.search_abs, file.path);
        if let Some(anywhere) = self.anywhere
            && anywhere.is_match(in_search.as_ref())
        {
            self.anywhere_matched += 1;
        }
        if !self.matcher.is_match(in_search.as_ref()) {
            return true;
        }
        self.matched += 1;
        let newest_first = match self.sort {
            SortOrder::Path => Reverse(SystemTime::UNIX_EPOCH),
            SortOrder::Modified => Reverse(
                file.entry
                    .metadata()
                    .and_then(|m| m.modified().map_err(ignore::Error::from))
                    .unwrap_or(SystemTime::UNIX_EPOCH),
            ),
        };
        let admitted = self.page.admits(|worst| {
            (&newest_first, file.relative).cmp(&(&worst.newest_first, worst.path.as_str()))
                == Ordering::Less
        });
        if admitted {
            self.page.push(GlobKey {
                newest_first,
                path: file.relative.to_string(),
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
    let search = resolve_target(workspace, options.path.as_deref().unwrap_or(""))?;
    if !search.path.is_dir() {
        return Err(CoreError::NotADirectory {
            path: search.relative,
        });
    }
    let pattern = normalize_pattern(&options.pattern, &search.path)?;
    let matcher = cached_glob(workspace, &pattern, &options.pattern)?;
    let anywhere_pattern = (!pattern.contains('/')).then(|| format!("**/{pattern}"));
    let anywhere = match &anywhere_pattern {
        Some(p) => Some(cached_glob(workspace, p, p)?),
        None => None,
    };
    let start = pruned_start(workspace, &search.path, &pattern);
    let cap = options.limit.map(|l| l.saturating_add(options.offset));

    let outcome = walk_files(
        workspace,
        &start,
        deadline.clone(),
        GLOB_SEQUENTIAL_MAX_ENTRIES,
        || GlobVisitor {
            matcher: &matcher,
            anywhere: anywhere.as_ref(),
            search_abs: &search.path,
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
    let (mut total, mut anywhere_total, mut in_scope) = (0u64, 0u64, 0u64);
    let mut keys = Vec::new();
    for visitor in outcome.visitors {
        total += visitor.matched;
        anywhere_total += visitor.anywhere_matched;
        in_scope += visitor.in_scope;
        keys.extend(visitor.page.into_vec());
    }
    keys.sort_unstable();
    let paths: Vec<String> = keys
        .into_iter()
        .skip(options.offset)
        .take(options.limit.unwrap_or(usize::MAX))
        .map(|k| k.path)
        .collect();
    let shown_end = (options.offset as u64).saturating_add(paths.len() as u64);
    let (anywhere_pattern, anywhere_total) = match anywhere_pattern {
        Some(p) if total < ANYWHERE_HINT_BELOW && anywhere_total > total => {
            (Some(p), Some(anywhere_total))
        }
        _ => (None, None),
    };
    let withheld = total.saturating_sub(shown_end);
    Ok(GlobOutput {
        pattern: options.pattern.clone(),
        next_offset: (withheld > 0 && !paths.is_empty()).then_some(shown_end),
        paths,
        total,
        offset: options.offset as u64,
        withheld,
        files_in_scope: (total == 0).then_some(in_scope),
        anywhere_pattern,
        anywhere_total,
        searched: workspace.relative(&start).unwrap_or_default(),
        skipped: outcome.skipped,
        incomplete: outcome.incomplete,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_prefix_stops_at_glob_syntax() {
        assert_eq!(literal_prefix("src/**/*.rs"), vec!["src"]);
        assert_eq!(literal_prefix("a/b/c.txt"), vec!["a", "b"]);
        assert_eq!(literal_prefix("*.rs"), Vec::<&str>::new());
        assert_eq!(literal_prefix("a/{b,c}/d"), vec!["a"]);
        assert_eq!(literal_prefix("../x/y"), Vec::<&str>::new());
    }

    #[test]
    fn relative_to_strips_root() {
        let root = Path::new("/repo");
        assert_eq!(relative_to(root, Path::new("/repo/a/b.rs")), "a/b.rs");
        assert_eq!(relative_to(root, Path::new("/repo")), "");
        assert_eq!(relative_to(Path::new("/"), Path::new("/a")), "a");
    }

    #[test]
    fn normalize_pattern_drops_leading_noise() {
        let search = Path::new("/repo");
        assert_eq!(normalize_pattern("./src/*.rs", search).unwrap(), "src/*.rs");
        assert_eq!(
            normalize_pattern("/repo/src/*.rs", search).unwrap(),
            "src/*.rs"
        );
        assert_eq!(normalize_pattern("src/", search).unwrap(), "src/**");
        assert_eq!(normalize_pattern("**.rs", search).unwrap(), "**/*.rs");
        assert_eq!(
            normalize_pattern("src/**.rs", search).unwrap(),
            "src/**/*.rs"
        );
        assert_eq!(normalize_pattern("a/**/b", search).unwrap(), "a/**/b");
        assert!(normalize_pattern("  ", search).is_err());
    }

    #[test]
    fn normalize_pattern_refuses_leaving_the_search_directory() {
        let search = Path::new("/repo");
        for pattern in ["../*", "../**/*.rs", "src/../../x", "/etc/*", "/repo-old/*"] {
            let error = normalize_pattern(pattern, search).expect_err(pattern);
            assert_eq!(error.kind(), "invalid_pattern", "{pattern}");
        }
        assert_eq!(normalize_pattern("/repo/a/*", search).unwrap(), "a/*");
    }
}

#[cfg(test)]
mod walk_mode_tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    struct Collect(Vec<String>);

    impl FileVisitor for Collect {
        fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
            self.0.push(file.relative.to_string());
            true
        }
    }

    fn walk(ws: &Workspace, start: &Path, mode: WalkMode) -> (Vec<String>, SkipCounts, bool) {
        let outcome = walk_files_with(ws, start, ws.deadline(), mode, || Collect(Vec::new()));
        let mut paths: Vec<String> = outcome.visitors.into_iter().flat_map(|c| c.0).collect();
        paths.sort();
        (paths, outcome.skipped, outcome.incomplete)
    }

    fn write(root: &Path, relative: &str, content: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }

    /// A tree with every rule the walker applies: ignore files, the skip set, deny rules,
    /// symlinks in and out of the root, loops, broken links and a FIFO.
    fn edge_tree() -> (tempfile::TempDir, PathBuf) {
        let parent = tempfile::tempdir().expect("tempdir");
        let root = parent.path().join("repo");
        let outside = parent.path().join("outside");
        write(&outside, "secret.txt", "s\n");
        std::fs::create_dir_all(root.join(".git")).expect("git");
        write(&root, ".gitignore", "build/\n*.log\n!keep.log\n");
        write(&root, "a.txt", "a\n");
        write(&root, "keep.log", "k\n");
        write(&root, "drop.log", "d\n");
        write(&root, "build/out.txt", "o\n");
        write(&root, ".ripsightignore", "!drop.log\n");
        write(&root, "other.log", "o\n");
        write(&root, "src/.ignore", "gen_*\n");
        write(&root, "src/gen_x.rs", "g\n");
        write(&root, "src/main.rs", "m\n");
        write(&root, "src/deep/lib.rs", "l\n");
        write(&root, "node_modules/pkg/index.js", "n\n");
        write(&root, ".env", "SECRET=1\n");
        write(&root, "secrets/key.pem", "k\n");
        write(&root, ".github/workflows/ci.yml", "c\n");
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, root.join(name)).expect("symlink");
        };
        link(&root.join("src"), "src_link");
        link(&root.join("a.txt"), "a_link.txt");
        link(&outside, "out_dir");
        link(&outside.join("secret.txt"), "out_file.txt");
        link(&root, "src/deep/loop");
        link(parent.path(), "up");
        link(&root.join(".env"), "notes.txt");
        link(&root.join("missing"), "broken.txt");
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("pipe"))
            .status();
        assert!(status.is_ok_and(|s| s.success()), "mkfifo");
        (parent, root)
    }

    #[test]
    fn sequential_and_parallel_walks_agree() {
        let (_keep, root) = edge_tree();
        for threads in [1, 2, 4] {
            let options = WorkspaceOptions {
                threads,
                ..WorkspaceOptions::default()
            };
            let ws = Workspace::new(&root, options).expect("workspace");
            let start = ws.root().to_path_buf();
            let sequential = walk(&ws, &start, WalkMode::Sequential);
            let parallel = walk(&ws, &start, WalkMode::Parallel);
            assert_eq!(sequential, parallel, "threads={threads}");
            assert!(sequential.0.contains(&"src_link/deep/lib.rs".to_string()));
            assert!(sequential.0.contains(&"drop.log".to_string()));
            assert!(!sequential.0.contains(&"other.log".to_string()));
            // .git and node_modules; out_dir, out_file.txt; .env, secrets/, notes.txt; pipe;
            // the loop (twice: also through src_link), up (a loop above the root), broken.txt.
            let skipped = sequential.1;
            assert_eq!(
                (skipped.ignored, skipped.outside_root, skipped.denied),
                (2, 2, 3),
                "{sequential:?}"
            );
            assert_eq!(
                (skipped.special, skipped.unreadable),
                (1, 4),
                "{sequential:?}"
            );
            assert!(!sequential.0.iter().any(|p| p.contains("secret")));
            for sub in ["src", "src_link", "src/deep"] {
                let start = ws.root().join(sub);
                assert_eq!(
                    walk(&ws, &start, WalkMode::Sequential),
                    walk(&ws, &start, WalkMode::Parallel),
                    "{sub}"
                );
            }
        }
    }

    #[test]
    fn auto_mode_remembers_tree_sizes_and_both_modes_agree() {
        let (_keep, root) = edge_tree();
        let ws = Workspace::new(&root, WorkspaceOptions::default()).expect("workspace");
        let start = ws.root().to_path_buf();
        assert_eq!(ws.walk_size(&start), None);
        let auto = WalkMode::Auto {
            sequential_max: 1_000,
        };
        let first = walk(&ws, &start, auto);
        let seen = ws.walk_size(&start).expect("size remembered");
        assert!(seen > 10 && seen <= 1_000, "{seen}");
        let second = walk(&ws, &start, auto);
        assert_eq!(first, second);
        assert_eq!(first, walk(&ws, &start, WalkMode::Parallel));
        // Sequential and parallel walks count the same entries.
        walk(&ws, &start, WalkMode::Parallel);
        let parallel_seen = ws.walk_size(&start);
        walk(&ws, &start, WalkMode::Sequential);
        assert_eq!(ws.walk_size(&start), parallel_seen);
    }

    #[test]
    fn an_expired_budget_stops_both_modes_and_is_not_remembered_as_a_size() {
        let (_keep, root) = edge_tree();
        let ws = Workspace::new(&root, WorkspaceOptions::default()).expect("workspace");
        let start = ws.root().to_path_buf();
        for mode in [WalkMode::Sequential, WalkMode::Parallel] {
            let expired = Deadline::start(std::time::Duration::ZERO);
            let outcome = walk_files_with(&ws, &start, expired, mode, || Collect(Vec::new()));
            assert!(outcome.incomplete, "{mode:?}");
            let found: usize = outcome.visitors.iter().map(|c| c.0.len()).sum();
            assert_eq!(found, 0, "{mode:?}");
            assert_eq!(ws.walk_size(&start), None, "{mode:?}");
        }
    }
}
