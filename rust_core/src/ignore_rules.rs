//! Ignore rules of the walker, ripgrep's way, fed through directory descriptors.
//!
//! `ignore`'s gitignore matcher does the matching; this module decides which files feed it and
//! in which order the matchers are asked, as ripgrep's `ignore::dir` does (read there to learn
//! the order, written anew here because `ignore` reads ignore files by path):
//!
//! - for each kind of ignore file, the nearest directory with a matching rule decides (a deeper
//!   directory overrides a shallower one);
//! - the kinds rank, highest first: `.ripsightignore` (ripsight's custom ignore file), `.ignore`,
//!   `.gitignore`, `.git/info/exclude`;
//! - `.gitignore` and `.git/info/exclude` count only inside a git (or jj) repository: when a
//!   `.git` is in the directory or an ancestor, and not above the nearest repository root;
//! - directories above the workspace root are read once by path ([`rules_above_root`]), as
//!   ripgrep's `parents(true)`; everything below the root through descriptors ([`dir_rules`]).
//!
//! The names that carry rules are listed once, in [`RULE_FILES`]: the walker notes them in its
//! listings and the warm index re-derives a subtree when one of them changes.
//!
//! Each rule keeps where it was written (the ignore file, its line), so a walk can say which
//! rules hid what ([`RuleLine`], tallied by [`RuleTally`]).
//!
//! A `.git` *file* (a linked worktree) leads to the main repository's `info/exclude` when that
//! lies inside the root (`gitdir`). Not reproduced: a worktree of a repository outside the
//! root (its `info/exclude` is not read: it lies outside the root), and ignore files that are
//! symlinks (not followed, as nothing in a walk is).

mod gitdir;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::boundary::{self, Kind, RootDir};
use crate::skip::IgnoreRule;

/// Bytes read at most from one ignore file.
const MAX_IGNORE_FILE_BYTES: u64 = 16 << 20;

/// Name of ripsight's own ignore file (gitignore syntax, read after the others, may re-include).
pub const RIPSIGHT_IGNORE_FILENAME: &str = ".ripsightignore";
/// ripgrep's own ignore file, which applies in and out of a git repository.
const DOT_IGNORE: &str = ".ignore";
/// git's per-directory ignore file (inside a repository only).
const GITIGNORE: &str = ".gitignore";
/// A git repository's root (a directory, or a file in a worktree).
const GIT: &str = ".git";
/// A jj repository's root: its `.gitignore` files apply as in a git repository.
const JJ: &str = ".jj";
/// A git repository's own excludes, below its `.git` directory (the warm index watches the
/// directories on the way to it: they lie in the skip set).
pub(crate) const GIT_EXCLUDE: &str = ".git/info/exclude";

/// Every entry name whose presence or contents changes the ignore rules of its directory and
/// of everything below it: what a walk notes in each listing ([`Found::note`]), what is probed
/// in directories a walk does not list, and what the warm index re-derives a subtree for when
/// it changes (`.git/info/exclude` lies inside `.git`, so a change of `.git` covers it).
pub(crate) const RULE_FILES: [&str; 5] = [RIPSIGHT_IGNORE_FILENAME, DOT_IGNORE, GITIGNORE, GIT, JJ];

/// Whether a change of the entry `name` changes the ignore rules of its directory's subtree.
pub(crate) fn is_rule_file(name: &[u8]) -> bool {
    RULE_FILES.iter().any(|n| n.as_bytes() == name)
}

/// One rule of an ignore file: what hid an entry from a walk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RuleLine {
    /// The ignore file relative to the root (`../` steps above it).
    pub(crate) file: Arc<str>,
    /// 1-based line number.
    pub(crate) line: u64,
    /// The rule as written.
    pub(crate) rule: Box<str>,
}

impl RuleLine {
    /// The rule as a result states it, with the entries it hid.
    pub(crate) fn stated(&self, hidden: u64) -> IgnoreRule {
        IgnoreRule {
            file: self.file.to_string(),
            line: self.line,
            rule: self.rule.to_string(),
            hidden,
        }
    }
}

/// How many entries each rule hid. A walk meets one rule as one `Arc` (its matcher's), so
/// entries are counted by the `Arc`'s address, in a short list looked up from the rule last
/// counted (hidden entries come in runs: a directory's `*.o` files); the same rule met as
/// several `Arc`s (the warm index's table holds the rules of several walks) is added up by its
/// text in [`RuleTally::top`].
#[derive(Debug, Default)]
pub(crate) struct RuleTally {
    counts: Vec<(Arc<RuleLine>, u64)>,
    last: usize,
}

impl RuleTally {
    /// Counts one entry hidden by `rule`.
    pub(crate) fn add(&mut self, rule: &Arc<RuleLine>) {
        let same = |(counted, _): &(Arc<RuleLine>, u64)| Arc::ptr_eq(counted, rule);
        if !self.counts.get(self.last).is_some_and(same) {
            self.last = match self.counts.iter().position(same) {
                Some(at) => at,
                None => {
                    self.counts.push((Arc::clone(rule), 0));
                    self.counts.len() - 1
                }
            };
        }
        self.counts[self.last].1 += 1;
    }

    /// Adds another tally into this one.
    pub(crate) fn merge(&mut self, other: RuleTally) {
        for (rule, count) in other.counts {
            match self.counts.iter_mut().find(|(c, _)| Arc::ptr_eq(c, &rule)) {
                Some((_, total)) => *total += count,
                None => self.counts.push((rule, count)),
            }
        }
    }

    /// The `n` rules that hid the most, most first (ties by file, then line).
    pub(crate) fn top(&self, n: usize) -> Vec<IgnoreRule> {
        let mut by_rule: HashMap<&RuleLine, u64> = HashMap::new();
        for (rule, count) in &self.counts {
            *by_rule.entry(rule).or_default() += count;
        }
        let mut rules: Vec<(&RuleLine, u64)> = by_rule.into_iter().collect();
        rules.sort_unstable_by(|a, b| (b.1, &a.0.file, a.0.line).cmp(&(a.1, &b.0.file, b.0.line)));
        rules
            .into_iter()
            .take(n)
            .map(|(r, c)| r.stated(c))
            .collect()
    }
}

/// One ignore file's matcher. Each glob's `from` holds its line number (this module builds a
/// matcher from one file, whose path `file` keeps), so a match names its rule; the rule is made
/// once, by the first entry it hides (`rules`, one slot per line).
#[derive(Debug)]
struct Matcher {
    globs: Gitignore,
    file: Arc<str>,
    rules: Box<[OnceLock<Arc<RuleLine>>]>,
}

/// The ignore rules of one directory, linked to its parent's.
#[derive(Debug, Default)]
pub(crate) struct DirRules {
    parent: Option<Arc<DirRules>>,
    /// True for directories above the workspace root: their matchers take absolute paths.
    above_root: bool,
    /// A `.git` (or `.jj`) is in this directory.
    has_git: bool,
    /// A `.git`/`.jj` is here or in an ancestor (ripgrep's `any_git`).
    any_git: bool,
    /// Some directory of the chain has a rule (else matching is skipped).
    any_rules: bool,
    /// `.ripsightignore`, `.ignore`, `.gitignore`, `.git/info/exclude`, in rank order.
    matchers: [Option<Matcher>; 4],
}

/// Which ignore-file names a directory listing holds.
#[derive(Default)]
pub(crate) struct Found {
    ripsightignore: bool,
    ignore: bool,
    gitignore: bool,
    git: Option<Kind>,
    jj: bool,
}

impl Found {
    /// Notes the entry `name` of a listing (one of [`RULE_FILES`], or nothing to note).
    pub(crate) fn note(&mut self, name: &[u8], kind: Kind) {
        // Patterns rather than a scan of RULE_FILES: this runs for every entry of every walk.
        const RIPSIGHTIGNORE_BYTES: &[u8] = RIPSIGHT_IGNORE_FILENAME.as_bytes();
        const DOT_IGNORE_BYTES: &[u8] = DOT_IGNORE.as_bytes();
        const GITIGNORE_BYTES: &[u8] = GITIGNORE.as_bytes();
        const GIT_BYTES: &[u8] = GIT.as_bytes();
        const JJ_BYTES: &[u8] = JJ.as_bytes();
        match name {
            RIPSIGHTIGNORE_BYTES => self.ripsightignore = true,
            DOT_IGNORE_BYTES => self.ignore = true,
            GITIGNORE_BYTES => self.gitignore = true,
            GIT_BYTES => self.git = Some(kind),
            JJ_BYTES => self.jj = true,
            _ => {}
        }
    }

    fn any(&self) -> bool {
        self.ripsightignore || self.ignore || self.gitignore || self.git.is_some() || self.jj
    }
}

/// Builds the matcher of one ignore file (`file`, its path as results name it) rooted at
/// `root` from its bytes, line by line as `ignore` reads them (a UTF-8 BOM on the first line
/// dropped, invalid lines skipped); `None` when it holds no rule.
fn matcher(root: &Path, file: String, bytes: &[u8]) -> Option<Matcher> {
    let mut builder = GitignoreBuilder::new(root);
    let mut any = false;
    let mut lines = 0;
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        lines = i + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let number = PathBuf::from((i + 1).to_string());
        if builder.add_line(Some(number), line).is_ok() {
            any = true;
        }
    }
    let globs = builder.build().ok()?;
    (any && !globs.is_empty()).then(|| Matcher {
        globs,
        file: file.into(),
        rules: (0..lines).map(|_| OnceLock::new()).collect(),
    })
}

/// The rule of `glob`, a glob of `matcher`.
fn rule_of(matcher: &Matcher, glob: &ignore::gitignore::Glob) -> Arc<RuleLine> {
    let line: usize = glob
        .from()
        .and_then(|p| p.to_str())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let make = || {
        Arc::new(RuleLine {
            file: Arc::clone(&matcher.file),
            line: line as u64,
            rule: glob.original().into(),
        })
    };
    match line.checked_sub(1).and_then(|i| matcher.rules.get(i)) {
        Some(slot) => Arc::clone(slot.get_or_init(make)),
        None => make(),
    }
}

/// `name` in the directory `dir` (relative to the root), as results name an ignore file.
fn file_in(dir: &[u8], name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{}/{name}", String::from_utf8_lossy(dir))
    }
}

impl DirRules {
    fn new(
        parent: Option<Arc<DirRules>>,
        above_root: bool,
        has_git: bool,
        matchers: [Option<Matcher>; 4],
    ) -> DirRules {
        let inherited_git = parent.as_ref().is_some_and(|p| p.any_git);
        let inherited_rules = parent.as_ref().is_some_and(|p| p.any_rules);
        DirRules {
            any_git: has_git || inherited_git,
            any_rules: inherited_rules || matchers.iter().any(Option::is_some),
            parent,
            above_root,
            has_git,
            matchers,
        }
    }

    /// A child of `parent` with no rules of its own.
    fn plain(parent: &Arc<DirRules>) -> Arc<DirRules> {
        if parent.has_git || parent.matchers.iter().any(Option::is_some) {
            Arc::new(DirRules::new(
                Some(Arc::clone(parent)),
                false,
                false,
                Default::default(),
            ))
        } else {
            // Nothing of its own: the parent's rules decide alone.
            Arc::clone(parent)
        }
    }

    /// Whether `relative` (relative to the root; `root` is the root's absolute path, for the
    /// rules of directories above it) is ignored, ripgrep's way (see the module docs).
    pub(crate) fn is_ignored(self: &Arc<Self>, root: &Path, relative: &Path, is_dir: bool) -> bool {
        self.hidden_by(root, relative, is_dir).is_some()
    }

    /// The rule that hides `relative` (see [`DirRules::is_ignored`]), if one does.
    pub(crate) fn hidden_by(
        self: &Arc<Self>,
        root: &Path,
        relative: &Path,
        is_dir: bool,
    ) -> Option<Arc<RuleLine>> {
        if !self.any_rules {
            return None;
        }
        let any_git = self.any_git;
        // Per kind: `Some(Some(..))` ignored by that rule, `Some(None)` re-included.
        type Decided<'a> = Option<Option<(&'a Matcher, &'a ignore::gitignore::Glob)>>;
        let mut found: [Decided<'_>; 4] = [None; 4];
        let mut saw_git = false;
        let mut absolute: Option<PathBuf> = None;
        let mut node = Some(self);
        while let Some(rules) = node {
            if !rules.any_rules {
                break;
            }
            let path: &Path = if rules.above_root {
                absolute.get_or_insert_with(|| root.join(relative))
            } else {
                relative
            };
            for (kind, slot) in found.iter_mut().enumerate() {
                let git_kind = kind >= 2;
                if slot.is_some() || (git_kind && (!any_git || saw_git)) {
                    continue;
                }
                if let Some(m) = &rules.matchers[kind] {
                    match m.globs.matched(path, is_dir) {
                        Match::None => {}
                        Match::Ignore(glob) => *slot = Some(Some((m, glob))),
                        Match::Whitelist(_) => *slot = Some(None),
                    }
                }
            }
            saw_git = saw_git || rules.has_git;
            node = rules.parent.as_ref();
        }
        let (matcher, glob) = found.into_iter().flatten().next()??;
        Some(rule_of(matcher, glob))
    }
}

/// The rules of the directories above the root (ripgrep's `parents(true)`), read once by path
/// when the workspace opens: that path comes from the embedding application, not a model.
fn rules_above_root(root: &Path, respect_ignore_files: bool) -> Arc<DirRules> {
    let mut chain = Arc::new(DirRules::default());
    if !respect_ignore_files {
        return chain;
    }
    let ancestors: Vec<&Path> = root.ancestors().skip(1).collect();
    let levels = ancestors.len();
    for (depth, dir) in ancestors.into_iter().rev().enumerate() {
        // Named from the root: one `../` per level up.
        let up = "../".repeat(levels - depth);
        let load = |name: &str| {
            let bytes = std::fs::read(dir.join(name)).ok()?;
            matcher(dir, format!("{up}{name}"), &bytes)
        };
        let git = std::fs::metadata(dir.join(GIT)).ok();
        let has_git = git.is_some() || dir.join(JJ).exists();
        let exclude = match &git {
            Some(meta) if meta.is_dir() => load(GIT_EXCLUDE),
            _ => None,
        };
        let matchers = [
            load(RIPSIGHT_IGNORE_FILENAME),
            load(DOT_IGNORE),
            load(GITIGNORE),
            exclude,
        ];
        chain = Arc::new(DirRules::new(Some(chain), true, has_git, matchers));
    }
    chain
}

/// The rules of the directory `fd` (relative path `relative` beneath `root`), whose listing
/// showed `found`.
pub(crate) fn dir_rules(
    root: &RootDir,
    parent: &Arc<DirRules>,
    fd: BorrowedFd<'_>,
    relative: &[u8],
    found: &Found,
) -> Arc<DirRules> {
    if !found.any() {
        return DirRules::plain(parent);
    }
    let base = Path::new(OsStr::from_bytes(relative));
    let load = |present: bool, name: &str| {
        if !present {
            return None;
        }
        let bytes = boundary::read_child(fd, name.as_bytes(), MAX_IGNORE_FILE_BYTES)?;
        matcher(base, file_in(relative, name), &bytes)
    };
    let exclude = match found.git {
        Some(Kind::Dir) | Some(Kind::Unknown) => {
            boundary::open_beneath(fd, GIT_EXCLUDE.as_bytes(), rustix::fs::OFlags::empty())
                .ok()
                .and_then(|fd| boundary::regular_file(fd).ok())
                .and_then(|(file, _)| {
                    use std::io::Read;
                    let mut bytes = Vec::new();
                    file.take(MAX_IGNORE_FILE_BYTES)
                        .read_to_end(&mut bytes)
                        .ok()?;
                    matcher(base, file_in(relative, GIT_EXCLUDE), &bytes)
                })
        }
        // A linked worktree: the main repository's excludes, when they lie inside the root.
        Some(Kind::File) => gitdir::worktree_exclude(root, fd, relative, MAX_IGNORE_FILE_BYTES)
            .and_then(|(path, bytes)| {
                matcher(base, String::from_utf8_lossy(&path).into_owned(), &bytes)
            }),
        _ => None,
    };
    let matchers = [
        load(found.ripsightignore, RIPSIGHT_IGNORE_FILENAME),
        load(found.ignore, DOT_IGNORE),
        load(found.gitignore, GITIGNORE),
        exclude,
    ];
    let has_git = found.git.is_some() || found.jj;
    Arc::new(DirRules::new(
        Some(Arc::clone(parent)),
        false,
        has_git,
        matchers,
    ))
}

/// Where the ignore rules of a workspace's tree start: the rules of the directories above its
/// root (read once, when the workspace opens) and whether ignore files apply at all.
#[derive(Debug)]
pub(crate) struct TreeRules {
    above_root: Arc<DirRules>,
    respect_ignore_files: bool,
}

impl TreeRules {
    /// The rules above `root` (its canonical path), or none when `respect_ignore_files` is
    /// false.
    pub(crate) fn new(root: &Path, respect_ignore_files: bool) -> TreeRules {
        TreeRules {
            above_root: rules_above_root(root, respect_ignore_files),
            respect_ignore_files,
        }
    }

    /// The rules that apply to the entries of the directories from the root down to
    /// `relative`, excluding `relative` itself: what a walk starting at `relative` inherits.
    pub(crate) fn down_to(&self, root: &RootDir, relative: &[u8]) -> io::Result<Arc<DirRules>> {
        let mut rules = Arc::clone(&self.above_root);
        if self.respect_ignore_files {
            self.descend(root, relative, |chain, _, _| {
                rules = Arc::clone(chain);
                false
            })?;
        }
        Ok(rules)
    }

    /// The rule that hides `relative` (`is_dir`: whether it is a directory) or a directory on
    /// the way to it from the root, the outermost first: why a walk from the root does not
    /// reach it. `None` when nothing hides it.
    pub(crate) fn hiding(
        &self,
        root: &RootDir,
        relative: &[u8],
        is_dir: bool,
    ) -> Option<Arc<RuleLine>> {
        if !self.respect_ignore_files {
            return None;
        }
        let mut hidden = None;
        let _ = self.descend(root, relative, |chain, path, last| {
            hidden = chain.hidden_by(
                root.path(),
                Path::new(OsStr::from_bytes(path)),
                !last || is_dir,
            );
            hidden.is_some()
        });
        hidden
    }

    /// Walks from the root down to `relative`, one component at a time: for each component,
    /// calls `each` with the rules its parent's entries get, its path and whether it is the
    /// last; stops when `each` returns true.
    fn descend(
        &self,
        root: &RootDir,
        relative: &[u8],
        mut each: impl FnMut(&Arc<DirRules>, &[u8], bool) -> bool,
    ) -> io::Result<()> {
        let parts: Vec<&[u8]> = relative
            .split(|b| *b == b'/')
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            // The root's own rules come from its listing; nothing above it to open.
            return Ok(());
        }
        let mut rules = Arc::clone(&self.above_root);
        let mut current = boundary::open_beneath(root.fd(), b"", rustix::fs::OFlags::DIRECTORY)?;
        let mut path: Vec<u8> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let found = probe_ignore_files(current.as_fd());
            rules = dir_rules(root, &rules, current.as_fd(), &path, &found);
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(part);
            if each(&rules, &path, i + 1 == parts.len()) {
                return Ok(());
            }
            if i + 1 < parts.len() {
                current = boundary::open_child_dir(current.as_fd(), part)?;
            }
        }
        Ok(())
    }

    /// Whether a walk of the parent of `relative` would drop the directory `relative` by its
    /// ignore rules (used to prune a glob's walk to a literal leading directory only when that
    /// is exact).
    pub(crate) fn ignores_dir(&self, root: &RootDir, relative: &[u8]) -> bool {
        if !self.respect_ignore_files {
            return false;
        }
        // The chain down to `relative` (excluded) holds its parent's rules and theirs.
        match self.down_to(root, relative) {
            Ok(rules) => {
                rules.is_ignored(root.path(), Path::new(OsStr::from_bytes(relative)), true)
            }
            Err(_) => true,
        }
    }
}

/// Which ignore files a directory holds, by `fstatat` (for directories not listed by a walk).
fn probe_ignore_files(fd: BorrowedFd<'_>) -> Found {
    let mut found = Found::default();
    for name in RULE_FILES {
        if let Ok(identity) = boundary::stat_child(fd, name.as_bytes()) {
            found.note(name.as_bytes(), identity.kind());
        }
    }
    found
}
