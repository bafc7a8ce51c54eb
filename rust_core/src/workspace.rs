//! The workspace: one root directory, the path boundary around it, the deny policy and the time
//! budget that every tool shares.
//!
//! A requested path is resolved (symlinks included) and must stay inside the root. The check is
//! component-wise, so a sibling `/repo-old` is not inside `/repo`; string checks for `..` are not
//! the criterion.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use grep_regex::RegexMatcher;

pub use crate::budget::{CancelToken, Deadline};
use crate::error::{CoreError, PatternIssue};
pub use crate::skip::SkipCounts;

/// Directories skipped by every walk unless the embedding application changes the list.
pub const DEFAULT_EXCLUDE_DIRS: &[&str] =
    &[".git", ".hg", ".svn", "node_modules", "dist", "__pycache__"];

/// Files that are never listed, searched or read (secrets), unless the application changes the list.
pub const DEFAULT_DENY_GLOBS: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_ed25519*",
    ".netrc",
    ".git-credentials",
];

/// Default time budget of one walk or search: 10 seconds.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(10);

/// Name of ripsight's own ignore file (gitignore syntax, read after the others, may re-include).
pub const RIPSIGHT_IGNORE_FILENAME: &str = ".ripsightignore";

/// How a workspace behaves. `Default` gives the documented defaults.
#[derive(Clone, Debug)]
pub struct WorkspaceOptions {
    /// Directory names skipped at any depth (default [`DEFAULT_EXCLUDE_DIRS`]).
    pub exclude_dirs: Vec<String>,
    /// Deny globs (default [`DEFAULT_DENY_GLOBS`]). A slash-free glob matches any path component
    /// (a file or a directory name at any depth); a glob with a slash matches the relative path.
    pub deny_globs: Vec<String>,
    /// Time budget of one walk or search (default 10 s).
    pub time_budget: Duration,
    /// Worker threads for walking and searching; 0 means one per core.
    pub threads: usize,
    /// Whether ignore files (`.gitignore` in a git repository, `.ignore`, `.ripsightignore`) apply
    /// (default true).
    pub respect_ignore_files: bool,
}

impl Default for WorkspaceOptions {
    fn default() -> Self {
        WorkspaceOptions {
            exclude_dirs: DEFAULT_EXCLUDE_DIRS.iter().map(|s| s.to_string()).collect(),
            deny_globs: DEFAULT_DENY_GLOBS.iter().map(|s| s.to_string()).collect(),
            time_budget: DEFAULT_TIME_BUDGET,
            threads: 0,
            respect_ignore_files: true,
        }
    }
}

/// A path that passed the boundary check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The canonical absolute path (symlinks resolved).
    pub absolute: PathBuf,
    /// The path relative to the root, `/`-separated; empty for the root itself.
    pub relative: String,
}

/// One root directory with its options. Cheap to clone and to share between threads (`Sync`);
/// clones share the root, the rules and the caches.
#[derive(Clone, Debug)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    options: WorkspaceOptions,
    deny_names: GlobSet,
    deny_paths: GlobSet,
    deny_name_rules: Vec<String>,
    deny_path_rules: Vec<String>,
    memo: Memo,
}

/// Compiled regex matchers kept per workspace (paging repeats a pattern; agents repeat them).
pub const REGEX_CACHE_ENTRIES: usize = 32;
/// Compiled globs kept per workspace.
pub const GLOB_CACHE_ENTRIES: usize = 64;
/// Walked directories whose size (entries seen by the last walk) is remembered.
pub const WALK_SIZE_ENTRIES: usize = 256;

/// What makes two regex matchers the same: the pattern and every flag that changes how it is
/// compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RegexKey {
    pub(crate) pattern: String,
    pub(crate) literal: bool,
    pub(crate) case_insensitive: bool,
    pub(crate) multiline: bool,
}

/// A small least-recently-used map. A lookup moves its entry to the front; an insert beyond the
/// capacity drops the least recently used entry. Linear scans: meant for a few dozen entries.
#[derive(Debug)]
pub(crate) struct Lru<K, V> {
    capacity: usize,
    entries: VecDeque<(K, V)>,
}

impl<K: PartialEq, V: Clone> Lru<K, V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Lru {
            capacity: capacity.max(1),
            entries: VecDeque::new(),
        }
    }

    pub(crate) fn get(&mut self, key: &K) -> Option<V> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        let entry = self.entries.remove(index)?;
        let value = entry.1.clone();
        self.entries.push_front(entry);
        Some(value)
    }

    pub(crate) fn insert(&mut self, key: K, value: V) {
        if let Some(index) = self.entries.iter().position(|(k, _)| *k == key) {
            self.entries.remove(index);
        }
        self.entries.push_front((key, value));
        self.entries.truncate(self.capacity);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Per-workspace caches. They only save work: every cached value is what a fresh computation
/// would give (compiled matchers), or only steers how a walk runs (sizes), never what it finds.
#[derive(Debug)]
struct Memo {
    regexes: Mutex<Lru<RegexKey, Arc<RegexMatcher>>>,
    globs: Mutex<Lru<String, GlobMatcher>>,
    walk_sizes: Mutex<Lru<PathBuf, u64>>,
}

impl Memo {
    fn new() -> Memo {
        Memo {
            regexes: Mutex::new(Lru::new(REGEX_CACHE_ENTRIES)),
            globs: Mutex::new(Lru::new(GLOB_CACHE_ENTRIES)),
            walk_sizes: Mutex::new(Lru::new(WALK_SIZE_ENTRIES)),
        }
    }
}

/// Looks `key` up in `cache`, or builds the value (outside the lock, so a slow build does not
/// stall other threads) and keeps it. Errors are not kept.
fn memoize<K: PartialEq, V: Clone, E>(
    cache: &Mutex<Lru<K, V>>,
    key: K,
    build: impl FnOnce() -> Result<V, E>,
) -> Result<V, E> {
    let lock = || cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(value) = lock().get(&key) {
        return Ok(value);
    }
    let value = build()?;
    lock().insert(key, value.clone());
    Ok(value)
}

impl Workspace {
    /// Opens a workspace on `root`, which must be an existing directory.
    pub fn new(root: impl AsRef<Path>, options: WorkspaceOptions) -> Result<Workspace, CoreError> {
        let given = root.as_ref();
        let shown = given.display().to_string();
        let root = std::fs::canonicalize(given).map_err(|e| CoreError::from_io(&shown, e))?;
        if !root.is_dir() {
            return Err(CoreError::NotADirectory { path: shown });
        }
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut deny_name_rules = Vec::new();
        let mut deny_path_rules = Vec::new();
        for rule in &options.deny_globs {
            let trimmed = rule.trim_matches('/');
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .build()
                .map_err(|e| CoreError::InvalidPattern {
                    pattern: rule.clone(),
                    issue: PatternIssue::DenyRule,
                    message: e.kind().to_string(),
                })?;
            if trimmed.contains('/') {
                paths.add(glob);
                deny_path_rules.push(rule.clone());
            } else {
                names.add(glob);
                deny_name_rules.push(rule.clone());
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| CoreError::InvalidPattern {
                pattern: options.deny_globs.join(", "),
                issue: PatternIssue::DenyRule,
                message: e.to_string(),
            })
        };
        Ok(Workspace {
            inner: Arc::new(Inner {
                root,
                deny_names: build(names)?,
                deny_paths: build(paths)?,
                deny_name_rules,
                deny_path_rules,
                options,
                memo: Memo::new(),
            }),
        })
    }

    /// The regex matcher for `key`, compiled by `build` unless this workspace compiled it
    /// recently (the last [`REGEX_CACHE_ENTRIES`] distinct keys are kept).
    pub(crate) fn cached_regex<E>(
        &self,
        key: RegexKey,
        build: impl FnOnce() -> Result<RegexMatcher, E>,
    ) -> Result<Arc<RegexMatcher>, E> {
        memoize(&self.inner.memo.regexes, key, || build().map(Arc::new))
    }

    /// The glob matcher for `pattern`, compiled by `build` unless kept from a recent call (the
    /// last [`GLOB_CACHE_ENTRIES`] distinct patterns).
    pub(crate) fn cached_glob<E>(
        &self,
        pattern: &str,
        build: impl FnOnce() -> Result<GlobMatcher, E>,
    ) -> Result<GlobMatcher, E> {
        memoize(&self.inner.memo.globs, pattern.to_string(), build)
    }

    /// Entries the last walk of `dir` saw, if it is remembered.
    pub(crate) fn walk_size(&self, dir: &Path) -> Option<u64> {
        let mut sizes = self
            .inner
            .memo
            .walk_sizes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sizes.get(&dir.to_path_buf())
    }

    /// Remembers how many entries a complete walk of `dir` saw.
    pub(crate) fn record_walk_size(&self, dir: &Path, entries: u64) {
        let mut sizes = self
            .inner
            .memo
            .walk_sizes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sizes.insert(dir.to_path_buf(), entries);
    }

    #[cfg(test)]
    pub(crate) fn cache_sizes(&self) -> (usize, usize, usize) {
        let memo = &self.inner.memo;
        (
            memo.regexes.lock().map(|l| l.len()).unwrap_or(0),
            memo.globs.lock().map(|l| l.len()).unwrap_or(0),
            memo.walk_sizes.lock().map(|l| l.len()).unwrap_or(0),
        )
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The options this workspace was opened with.
    pub fn options(&self) -> &WorkspaceOptions {
        &self.inner.options
    }

    /// A deadline starting now with the workspace's time budget.
    pub fn deadline(&self) -> Deadline {
        Deadline::start(self.inner.options.time_budget)
    }

    /// A deadline starting now with the workspace's time budget, that also expires once
    /// `cancel` is cancelled.
    pub fn deadline_with(&self, cancel: &CancelToken) -> Deadline {
        Deadline::with_cancel(self.inner.options.time_budget, cancel.clone())
    }

    /// True when `name` is one of the skipped directory names.
    pub fn is_excluded_dir(&self, name: &str) -> bool {
        self.inner.options.exclude_dirs.iter().any(|d| d == name)
    }

    /// The deny rule covering `relative` (a `/`-separated path relative to the root), if any.
    pub fn denied_by(&self, relative: &str) -> Option<&str> {
        if relative.is_empty() {
            return None;
        }
        for component in relative.split('/') {
            if let Some(i) = self.inner.deny_names.matches(component).first() {
                return Some(&self.inner.deny_name_rules[*i]);
            }
        }
        if !self.inner.deny_paths.is_empty() {
            let mut end = 0;
            // Every prefix: a rule like `secrets/**` or `config/prod` covers what lies below it.
            loop {
                let next = relative[end..]
                    .find('/')
                    .map(|i| end + i)
                    .unwrap_or(relative.len());
                if let Some(i) = self.inner.deny_paths.matches(&relative[..next]).first() {
                    return Some(&self.inner.deny_path_rules[*i]);
                }
                if next == relative.len() {
                    break;
                }
                end = next + 1;
            }
        }
        None
    }

    /// The deny check for a walk: is the entry named `name` at `relative` denied?
    /// Faster than [`Workspace::denied_by`] because ancestors were already checked.
    pub fn is_denied_entry(&self, relative: &str, name: &str) -> bool {
        self.inner.deny_names.is_match(name)
            || (!self.inner.deny_paths.is_empty() && self.inner.deny_paths.is_match(relative))
    }

    /// `absolute` relative to the root, `/`-separated, or `None` when it lies outside.
    pub fn relative(&self, absolute: &Path) -> Option<String> {
        let rest = absolute.strip_prefix(&self.inner.root).ok()?;
        let mut out = String::new();
        for component in rest.components() {
            if let Component::Normal(part) = component {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(&part.to_string_lossy());
            }
        }
        Some(out)
    }

    /// True when `absolute` (already canonical) is the root or lies below it. Component-wise,
    /// so `/repo-old` is not inside `/repo`.
    pub fn contains(&self, absolute: &Path) -> bool {
        absolute.starts_with(&self.inner.root)
    }

    /// Resolves a path the caller gave (relative to the root, or absolute) and checks the
    /// boundary and the deny rules. The path need not exist: a missing path inside the root
    /// gives `NotFound`, a missing path outside gives `OutsideRoot`.
    pub fn resolve(&self, requested: &str) -> Result<ResolvedPath, CoreError> {
        if requested.contains('\0') {
            return Err(CoreError::InvalidArgument {
                message: "the path contains a NUL character; pass a plain relative path such as \"src/main.rs\".".into(),
            });
        }
        let trimmed = requested.trim();
        let joined = if trimmed.is_empty() || trimmed == "." {
            self.inner.root.clone()
        } else if Path::new(trimmed).is_absolute() {
            PathBuf::from(trimmed)
        } else {
            self.inner.root.join(trimmed)
        };
        let shown = if trimmed.is_empty() { "." } else { trimmed };
        let absolute = match std::fs::canonicalize(&joined) {
            Ok(path) => path,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                // Decide outside/inside for a missing path from its nearest existing ancestor.
                let probable = resolve_missing(&joined);
                if !self.contains(&probable) {
                    return Err(CoreError::OutsideRoot {
                        path: shown.to_string(),
                    });
                }
                let relative = self.relative(&probable).unwrap_or_default();
                if let Some(rule) = self.denied_by(&relative) {
                    return Err(CoreError::Denied {
                        path: relative,
                        rule: rule.to_string(),
                    });
                }
                return Err(CoreError::NotFound {
                    path: shown.to_string(),
                    suggestions: Vec::new(),
                });
            }
            Err(error) => return Err(CoreError::from_io(shown, error)),
        };
        if !self.contains(&absolute) {
            return Err(CoreError::OutsideRoot {
                path: shown.to_string(),
            });
        }
        let relative = self.relative(&absolute).unwrap_or_default();
        // Both the name the caller used and the file it resolves to must pass the deny rules,
        // so a link named `notes.txt` pointing at `.env` is refused too.
        if let Some(rule) = self.denied_by(&relative) {
            return Err(CoreError::Denied {
                path: relative,
                rule: rule.to_string(),
            });
        }
        if let Some(lexical) = self.relative(&normalize_lexically(&joined))
            && let Some(rule) = self.denied_by(&lexical)
        {
            return Err(CoreError::Denied {
                path: lexical,
                rule: rule.to_string(),
            });
        }
        Ok(ResolvedPath { absolute, relative })
    }
}

/// Entries of one directory looked at when suggesting close names.
const SUGGEST_DIR_ENTRIES: usize = 10_000;
/// Entries a suggestion walk visits at most (split between the nearby directory and the root).
const SUGGEST_WALK_ENTRIES: usize = 20_000;
/// Candidates kept per path component while correcting a path.
const SUGGEST_BEAM: usize = 4;
/// Names less similar than this (0..1) are not offered.
const SUGGEST_MIN_SIMILARITY: f64 = 0.6;

impl Workspace {
    /// Existing paths close to `requested` (a path that does not exist), best first, at most `max`,
    /// relative to the root. Used for "did you mean" when a path is missing.
    ///
    /// Three sources, in this order: each missing component corrected against its directory's
    /// entries (typos, letter case, another extension: `scr/mian.rs` finds `src/main.rs`); then
    /// files with the same name (ignoring case) elsewhere, searched first below the deepest
    /// existing directory of the request and then from the root, ignore-aware and skipping the
    /// excluded directories. Work is bounded: at most 10,000 entries per directory listing and
    /// 20,000 walked entries. Denied paths and paths resolving outside the root are never offered.
    pub fn suggest(&self, requested: &str, max: usize) -> Vec<String> {
        let trimmed = requested.trim();
        if trimmed.is_empty() || max == 0 || trimmed.contains('\0') {
            return Vec::new();
        }
        let joined = if Path::new(trimmed).is_absolute() {
            PathBuf::from(trimmed)
        } else {
            self.inner.root.join(trimmed)
        };
        let probable = resolve_missing(&joined);
        let Some(relative) = self.relative(&probable) else {
            return Vec::new();
        };
        let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
        let mut depth = 0;
        let mut dir = self.inner.root.clone();
        while depth < parts.len() && dir.join(parts[depth]).is_dir() {
            dir.push(parts[depth]);
            depth += 1;
        }
        if depth == parts.len() {
            return Vec::new();
        }
        let missing = &parts[depth..];
        let base = parts[..depth].join("/");

        let mut found: Vec<String> = Vec::new();
        // 1. Correct each missing component against what its directory holds.
        let mut frontier = vec![(1.0f64, base.clone(), dir.clone())];
        for (index, want) in missing.iter().enumerate() {
            let last = index + 1 == missing.len();
            let mut next = Vec::new();
            for (score, rel, abs) in &frontier {
                for (name, is_dir) in list_dir(abs, SUGGEST_DIR_ENTRIES) {
                    if !last && !is_dir {
                        continue;
                    }
                    let similarity = name_similarity(want, &name);
                    if similarity < SUGGEST_MIN_SIMILARITY {
                        continue;
                    }
                    let child = join_relative(rel, &name);
                    if self.denied_by(&child).is_some() {
                        continue;
                    }
                    next.push((score * similarity, child, abs.join(&name)));
                }
            }
            next.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            next.truncate(SUGGEST_BEAM);
            frontier = next;
        }
        found.extend(frontier.into_iter().map(|(_, rel, _)| rel));

        // 2. The same file name elsewhere: nearby first, then anywhere.
        let name = missing[missing.len() - 1].to_lowercase();
        let mut budget = SUGGEST_WALK_ENTRIES;
        let mut same_name = Vec::new();
        if depth > 0 {
            self.find_named(
                &dir,
                &name,
                SUGGEST_WALK_ENTRIES / 2,
                &mut budget,
                &mut same_name,
            );
        }
        if same_name.is_empty() {
            self.find_named(&self.inner.root, &name, budget, &mut budget, &mut same_name);
        }
        let wanted_dirs: Vec<&str> = parts[..parts.len() - 1].to_vec();
        same_name.sort_by_key(|path| {
            let shared = path
                .split('/')
                .zip(&wanted_dirs)
                .take_while(|(a, b)| a == *b)
                .count();
            (
                std::cmp::Reverse(shared),
                path.matches('/').count(),
                path.clone(),
            )
        });
        found.extend(same_name);

        let mut out: Vec<String> = Vec::new();
        for candidate in found {
            if out.len() == max {
                break;
            }
            if out.contains(&candidate) || candidate.is_empty() {
                continue;
            }
            // The full check: inside the root once symlinks are resolved, and not denied.
            if self.resolve(&candidate).is_ok() {
                out.push(candidate);
            }
        }
        out
    }

    /// Paths (relative to the root) below `start` whose file name equals `name` ignoring case.
    fn find_named(
        &self,
        start: &Path,
        name: &str,
        limit: usize,
        budget: &mut usize,
        found: &mut Vec<String>,
    ) {
        let respect = self.inner.options.respect_ignore_files;
        let excluded = self.inner.options.exclude_dirs.clone();
        let mut builder = ignore::WalkBuilder::new(start);
        builder
            .standard_filters(respect)
            .hidden(false)
            .follow_links(false)
            .max_depth(Some(32))
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                !(entry.file_type().is_some_and(|t| t.is_dir())
                    && entry.depth() > 0
                    && excluded.iter().any(|d| entry.file_name() == d.as_str()))
            });
        if respect {
            builder.add_custom_ignore_filename(RIPSIGHT_IGNORE_FILENAME);
        }
        for (seen, entry) in builder.build().flatten().enumerate() {
            if seen >= limit || *budget == 0 {
                break;
            }
            *budget -= 1;
            if entry.depth() == 0 || entry.file_name().to_string_lossy().to_lowercase() != name {
                continue;
            }
            if let Some(rel) = self.relative(entry.path())
                && self.denied_by(&rel).is_none()
                && !found.contains(&rel)
            {
                found.push(rel);
            }
        }
    }
}

/// `(name, is_dir)` for up to `limit` entries of `dir`, sorted by name (symlinks followed for the
/// directory test).
fn list_dir(dir: &Path, limit: usize) -> Vec<(String, bool)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = entries
        .flatten()
        .take(limit)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_symlink() => entry.path().is_dir(),
                Ok(t) => t.is_dir(),
                Err(_) => false,
            };
            Some((name, is_dir))
        })
        .collect();
    out.sort();
    out
}

fn join_relative(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}/{name}")
    }
}

/// How alike two file names are, 0..=1: letter case and a differing or missing extension count
/// little; otherwise the normalised Damerau-Levenshtein similarity.
fn name_similarity(want: &str, have: &str) -> f64 {
    if want == have {
        return 1.0;
    }
    let want = want.to_lowercase();
    let have = have.to_lowercase();
    if want == have {
        return 0.98;
    }
    let stem = |s: &str| -> String {
        match s.rfind('.') {
            Some(i) if i > 0 => s[..i].to_string(),
            _ => s.to_string(),
        }
    };
    if stem(&want) == stem(&have) {
        return 0.9;
    }
    strsim::normalized_damerau_levenshtein(&want, &have)
}

/// Removes `.` and folds `..` without touching the file system.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where a missing path would be: its longest existing ancestor canonicalized (symlinks resolved),
/// with the missing rest applied lexically.
fn resolve_missing(path: &Path) -> PathBuf {
    let normalized = normalize_lexically(path);
    let mut existing = normalized.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let mut out = canonical;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return normalized,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::new(dir, WorkspaceOptions::default()).expect("workspace opens")
    }

    #[test]
    fn sibling_sharing_prefix_is_outside() {
        let parent = tempfile::tempdir().expect("tempdir");
        let root = parent.path().join("repo");
        let sibling = parent.path().join("repo-old");
        std::fs::create_dir_all(&root).expect("mkdir");
        std::fs::create_dir_all(&sibling).expect("mkdir");
        std::fs::write(sibling.join("a.txt"), "x").expect("write");
        let ws = workspace(&root);
        let err = ws.resolve("../repo-old/a.txt").expect_err("outside");
        assert_eq!(err.kind(), "outside_root");
        let err = ws
            .resolve(&sibling.join("a.txt").display().to_string())
            .expect_err("outside");
        assert_eq!(err.kind(), "outside_root");
    }

    #[test]
    fn missing_paths_inside_and_outside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = workspace(dir.path());
        assert_eq!(
            ws.resolve("nope/x.rs").expect_err("missing").kind(),
            "not_found"
        );
        assert_eq!(
            ws.resolve("../../nope").expect_err("outside").kind(),
            "outside_root"
        );
        assert_eq!(
            ws.resolve("a/../../nope").expect_err("outside").kind(),
            "outside_root"
        );
    }

    #[test]
    fn deny_rules_cover_names_and_links() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(".env"), "SECRET=1").expect("write");
        std::fs::create_dir(dir.path().join("cfg")).expect("mkdir");
        std::fs::write(dir.path().join("cfg/server.pem"), "x").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("notes.txt"))
            .expect("link");
        let ws = workspace(dir.path());
        assert_eq!(ws.resolve(".env").expect_err("denied").kind(), "denied");
        assert_eq!(
            ws.resolve("cfg/server.pem").expect_err("denied").kind(),
            "denied"
        );
        #[cfg(unix)]
        assert_eq!(
            ws.resolve("notes.txt").expect_err("denied").kind(),
            "denied"
        );
        assert_eq!(ws.denied_by("a/.env.local"), Some(".env.*"));
        assert_eq!(ws.denied_by("src/main.rs"), None);
    }

    #[test]
    fn absolute_path_inside_root_is_accepted() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "x").expect("write");
        let ws = workspace(dir.path());
        let abs = dir.path().join("src/lib.rs").display().to_string();
        assert_eq!(ws.resolve(&abs).expect("inside").relative, "src/lib.rs");
        assert_eq!(ws.resolve("").expect("root").relative, "");
    }

    #[test]
    fn lru_keeps_the_most_recently_used_within_capacity() {
        let mut lru = Lru::new(3);
        for i in 0..10 {
            lru.insert(i, i * 10);
        }
        assert_eq!(lru.len(), 3);
        assert_eq!(lru.get(&9), Some(90));
        assert_eq!(lru.get(&6), None);
        // 7 becomes the most recent, so inserting 10 drops 8.
        assert_eq!(lru.get(&7), Some(70));
        lru.insert(10, 100);
        assert_eq!(lru.get(&8), None);
        assert_eq!(lru.get(&7), Some(70));
        lru.insert(7, 71);
        assert_eq!((lru.len(), lru.get(&7)), (3, Some(71)));
    }

    #[test]
    fn caches_stay_bounded_and_are_shared_by_clones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = workspace(dir.path());
        let clone = ws.clone();
        for i in 0..(REGEX_CACHE_ENTRIES + GLOB_CACHE_ENTRIES + WALK_SIZE_ENTRIES) * 2 {
            let key = RegexKey {
                pattern: format!("p{i}"),
                literal: i % 2 == 0,
                case_insensitive: false,
                multiline: false,
            };
            let built = ws.cached_regex(key.clone(), || RegexMatcher::new(&key.pattern));
            assert!(built.is_ok());
            let glob = format!("*.e{i}");
            let built = ws.cached_glob(&glob, || {
                GlobBuilder::new(&glob).build().map(|g| g.compile_matcher())
            });
            assert!(built.is_ok());
            ws.record_walk_size(&dir.path().join(i.to_string()), i as u64);
        }
        assert_eq!(
            clone.cache_sizes(),
            (REGEX_CACHE_ENTRIES, GLOB_CACHE_ENTRIES, WALK_SIZE_ENTRIES)
        );
        // A failed build is not kept.
        let bad = RegexKey {
            pattern: "(".into(),
            literal: false,
            case_insensitive: false,
            multiline: false,
        };
        assert!(
            ws.cached_regex(bad.clone(), || RegexMatcher::new("("))
                .is_err()
        );
        let mut built = false;
        let again = ws.cached_regex(bad, || {
            built = true;
            RegexMatcher::new("(")
        });
        assert!(again.is_err() && built);
    }
}
