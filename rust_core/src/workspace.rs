//! The workspace: one root directory (opened once, see [`crate::boundary`]), the deny policy
//! and the time budget that every tool shares.
//!
//! A requested path is resolved by hand beneath the root descriptor and opened in one step that
//! cannot leave it (`Workspace::open_path`, in `open`); no path string is checked and then
//! opened later.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use grep_regex::RegexMatcher;

use crate::boundary::RootDir;
pub use crate::budget::{CancelToken, Deadline};
use crate::error::{CoreError, PatternIssue};
use crate::ignore_rules::{DirRules, RuleLine, TreeRules};
use crate::path_rules::PathRules;
use crate::pattern::{CompiledGlob, compile_glob};
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
    "id_ecdsa*",
    "id_dsa*",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    ".pgpass",
    ".pypirc",
    ".npmrc",
    ".envrc",
    // Credential files known by their directory: `**/` so they are denied at any depth (a
    // rule with a slash matches the path relative to the root, SPEC §2.5).
    "**/.aws/credentials",
    "**/.docker/config.json",
    "**/.kube/config",
];

/// Default time budget of one walk or search: 10 seconds.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(10);

pub use crate::ignore_rules::RIPSIGHT_IGNORE_FILENAME;

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

/// One root directory with its options. Cheap to clone and to share between threads (`Sync`);
/// clones share the root, the rules and the caches.
#[derive(Clone, Debug)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: RootDir,
    /// Where the ignore rules start: the directories above the root, read once.
    rules: TreeRules,
    options: WorkspaceOptions,
    deny: PathRules,
    memo: Memo,
}

/// Compiled regex matchers kept (paging repeats a pattern; agents repeat them).
pub const REGEX_CACHE_ENTRIES: usize = 32;
/// Compiled globs kept.
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
    pub(crate) const fn new(capacity: usize) -> Self {
        Lru {
            capacity: if capacity == 0 { 1 } else { capacity },
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

/// Caches. They only save work: every cached value is what a fresh computation would give
/// (compiled matchers), or only steers how a walk runs (sizes), never what it finds.
///
/// Compiled matchers are kept for the whole process: one depends only on its key (the pattern
/// and the flags that change how it compiles), not on the workspace, and a program that opens
/// a workspace per call (a script, a server with one per session, `Roots` across several)
/// would otherwise compile its pattern at every call (a Unicode `\w` regex: about 2 ms).
static REGEXES: Mutex<Lru<RegexKey, Arc<RegexMatcher>>> = Mutex::new(Lru::new(REGEX_CACHE_ENTRIES));
static GLOBS: Mutex<Lru<String, CompiledGlob>> = Mutex::new(Lru::new(GLOB_CACHE_ENTRIES));

/// What a workspace remembers of its own tree: the sizes of its walks.
#[derive(Debug)]
struct Memo {
    walk_sizes: Mutex<Lru<String, u64>>,
}

impl Memo {
    fn new() -> Memo {
        Memo {
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
        let root = RootDir::open(given).map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) {
                CoreError::NotADirectory {
                    path: shown.clone(),
                }
            } else {
                CoreError::from_io(&shown, e)
            }
        })?;
        let rules = TreeRules::new(root.path(), options.respect_ignore_files);
        let deny = PathRules::new(&options.deny_globs, PatternIssue::DenyRule)?;
        Ok(Workspace {
            inner: Arc::new(Inner {
                root,
                rules,
                deny,
                options,
                memo: Memo::new(),
            }),
        })
    }

    /// The regex matcher for `key`, compiled by `build` unless the process compiled it recently
    /// (the last [`REGEX_CACHE_ENTRIES`] distinct keys are kept).
    pub(crate) fn cached_regex<E>(
        &self,
        key: RegexKey,
        build: impl FnOnce() -> Result<RegexMatcher, E>,
    ) -> Result<Arc<RegexMatcher>, E> {
        memoize(&REGEXES, key, || build().map(Arc::new))
    }

    /// The glob matcher for `pattern` ([`compile_glob`]; `shown` is the pattern as the caller
    /// wrote it, for the error), unless kept from a recent call in the process (the last
    /// [`GLOB_CACHE_ENTRIES`] distinct patterns).
    pub(crate) fn cached_glob(
        &self,
        pattern: &str,
        shown: &str,
    ) -> Result<CompiledGlob, CoreError> {
        memoize(&GLOBS, pattern.to_string(), || compile_glob(pattern, shown))
    }

    /// Entries the last walk of `dir` saw, if it is remembered.
    pub(crate) fn walk_size(&self, dir: &str) -> Option<u64> {
        let mut sizes = self
            .inner
            .memo
            .walk_sizes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sizes.get(&dir.to_string())
    }

    /// Remembers how many entries a complete walk of `dir` saw.
    pub(crate) fn record_walk_size(&self, dir: &str, entries: u64) {
        let mut sizes = self
            .inner
            .memo
            .walk_sizes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sizes.insert(dir.to_string(), entries);
    }

    #[cfg(test)]
    pub(crate) fn cache_sizes(&self) -> (usize, usize, usize) {
        (
            REGEXES.lock().map(|l| l.len()).unwrap_or(0),
            GLOBS.lock().map(|l| l.len()).unwrap_or(0),
            self.inner
                .memo
                .walk_sizes
                .lock()
                .map(|l| l.len())
                .unwrap_or(0),
        )
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        self.inner.root.path()
    }

    /// The root, opened: every open of every tool starts from its descriptor.
    pub(crate) fn root_dir(&self) -> &RootDir {
        &self.inner.root
    }

    /// The ignore rules that apply to the entries of the directories from the root down to
    /// `relative`, excluding `relative` itself: what a walk starting at `relative` inherits.
    pub(crate) fn rules_down_to(&self, relative: &[u8]) -> std::io::Result<Arc<DirRules>> {
        self.inner.rules.down_to(&self.inner.root, relative)
    }

    /// Whether a walk of the parent of `relative` would drop the directory `relative` by its
    /// ignore rules.
    pub(crate) fn ignores_dir(&self, relative: &[u8]) -> bool {
        self.inner.rules.ignores_dir(&self.inner.root, relative)
    }

    /// The ignore rule that keeps a walk of the root from reaching `relative` (`is_dir`:
    /// whether it is a directory): the rule hiding it or the outermost directory above it.
    pub(crate) fn hiding(&self, relative: &[u8], is_dir: bool) -> Option<Arc<RuleLine>> {
        self.inner.rules.hiding(&self.inner.root, relative, is_dir)
    }

    /// The options this workspace was opened with.
    pub fn options(&self) -> &WorkspaceOptions {
        &self.inner.options
    }

    /// A deadline starting now with the workspace's time budget.
    pub fn deadline(&self) -> Deadline {
        Deadline::start(self.inner.options.time_budget)
    }

    /// A deadline with the workspace's time budget, starting now (or when `cancel`'s clock
    /// started, [`CancelToken::start_clock`]), that also expires once `cancel` is cancelled.
    pub fn deadline_with(&self, cancel: &CancelToken) -> Deadline {
        Deadline::on_clock_of(self.inner.options.time_budget, cancel)
    }

    /// True when `name` is one of the skipped directory names.
    pub fn is_excluded_dir(&self, name: impl AsRef<[u8]>) -> bool {
        let name = name.as_ref();
        self.inner
            .options
            .exclude_dirs
            .iter()
            .any(|d| d.as_bytes() == name)
    }

    /// The deny rule covering `relative` (a `/`-separated path relative to the root), if any.
    pub fn denied_by(&self, relative: impl AsRef<[u8]>) -> Option<&str> {
        self.inner.deny.covering(relative.as_ref())
    }

    /// The deny check for a walk: is the entry named `name` at `relative` denied?
    /// Faster than [`Workspace::denied_by`] because ancestors were already checked.
    pub fn is_denied_entry(&self, relative: &[u8], name: &[u8]) -> bool {
        self.inner.deny.covers_entry(relative, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::new(dir, WorkspaceOptions::default()).expect("workspace opens")
    }

    #[test]
    fn credential_files_are_denied_at_any_depth() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = workspace(dir.path());
        for denied in [
            "id_ecdsa",
            "home/.ssh/id_ecdsa.pub",
            "id_dsa",
            "certs/client.p12",
            "certs/CLIENT.PFX",
            "android/release.jks",
            "app.keystore",
            ".pgpass",
            "pkg/.pypirc",
            "web/.npmrc",
            ".envrc",
            ".aws/credentials",
            "sub/.aws/credentials",
            "a/b/.AWS/Credentials",
            ".docker/config.json",
            "ci/.docker/config.json",
            ".kube/config",
            "ops/.kube/config",
        ] {
            assert!(ws.denied_by(denied).is_some(), "{denied} should be denied");
            let name = denied.rsplit('/').next().unwrap_or(denied);
            assert!(
                ws.is_denied_entry(denied.as_bytes(), name.as_bytes()),
                "{denied} should be denied in a walk"
            );
        }
        for allowed in [
            "aws/credentials",
            ".aws/config",
            "docs/credentials.md",
            "docker/config.json",
            ".kube/config.d/readme",
            "src/keystore.rs",
            "npmrc.txt",
        ] {
            assert_eq!(
                ws.denied_by(allowed),
                None,
                "{allowed} should not be denied"
            );
        }
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
    fn a_compiled_regex_is_shared_by_every_workspace_of_the_process() {
        let (one, two) = (
            tempfile::tempdir().expect("a"),
            tempfile::tempdir().expect("b"),
        );
        let (first, second) = (workspace(one.path()), workspace(two.path()));
        let key = RegexKey {
            pattern: r"shared_\w+_across_workspaces".into(),
            literal: false,
            case_insensitive: true,
            multiline: false,
        };
        // Other tests of this process fill the same cache: a few tries, so one of them evicting
        // the key between the two lookups cannot fail this test.
        let shared = (0..3).any(|_| {
            let compiled = first.cached_regex(key.clone(), || RegexMatcher::new(&key.pattern));
            let mut built = false;
            let again = second.cached_regex(key.clone(), || {
                built = true;
                RegexMatcher::new(&key.pattern)
            });
            match (compiled, again) {
                (Ok(a), Ok(b)) => !built && Arc::ptr_eq(&a, &b),
                _ => false,
            }
        });
        assert!(shared, "the second workspace compiled the pattern again");
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
            let built = ws.cached_glob(&glob, &glob);
            assert!(built.is_ok());
            ws.record_walk_size(&i.to_string(), i as u64);
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
