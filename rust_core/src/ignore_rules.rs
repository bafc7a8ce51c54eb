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
//! Not reproduced: a `.git` file of a git worktree pointing at a git directory outside the root
//! (its `info/exclude` is not read: it lies outside the root), and ignore files that are
//! symlinks (not followed, as nothing in a walk is).

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::boundary::{self, Kind, RootDir};

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
/// A git repository's own excludes, below its `.git` directory.
const GIT_EXCLUDE: &str = ".git/info/exclude";

/// Every entry name whose presence or contents changes the ignore rules of its directory and
/// of everything below it: what a walk notes in each listing ([`Found::note`]), what is probed
/// in directories a walk does not list, and what the warm index re-derives a subtree for when
/// it changes (`.git/info/exclude` lies inside `.git`, so a change of `.git` covers it).
pub(crate) const RULE_FILES: [&str; 5] = [RIPSIGHT_IGNORE_FILENAME, DOT_IGNORE, GITIGNORE, GIT, JJ];

/// Whether a change of the entry `name` changes the ignore rules of its directory's subtree.
pub(crate) fn is_rule_file(name: &[u8]) -> bool {
    RULE_FILES.iter().any(|n| n.as_bytes() == name)
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
    matchers: [Option<Gitignore>; 4],
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

/// Builds a gitignore matcher rooted at `root` from the bytes of ignore files, line by line as
/// `ignore` reads them (a UTF-8 BOM on the first line dropped, invalid lines skipped).
fn matcher(root: &Path, sources: &[Vec<u8>]) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(root);
    let mut any = false;
    for bytes in sources {
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Ok(line) = std::str::from_utf8(line) else {
                continue;
            };
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            if builder.add_line(None, line).is_ok() {
                any = true;
            }
        }
    }
    let built = builder.build().ok()?;
    (any && !built.is_empty()).then_some(built)
}

impl DirRules {
    fn new(
        parent: Option<Arc<DirRules>>,
        above_root: bool,
        has_git: bool,
        matchers: [Option<Gitignore>; 4],
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
        if !self.any_rules {
            return false;
        }
        let any_git = self.any_git;
        let mut found: [Option<bool>; 4] = [None; 4];
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
                    match m.matched(path, is_dir) {
                        Match::None => {}
                        Match::Ignore(_) => *slot = Some(true),
                        Match::Whitelist(_) => *slot = Some(false),
                    }
                }
            }
            saw_git = saw_git || rules.has_git;
            node = rules.parent.as_ref();
        }
        found.iter().flatten().next().copied().unwrap_or(false)
    }
}

/// The rules of the directories above the root (ripgrep's `parents(true)`), read once by path
/// when the workspace opens: that path comes from the embedding application, not a model.
fn rules_above_root(root: &Path, respect: bool) -> Arc<DirRules> {
    let mut chain = Arc::new(DirRules::default());
    if !respect {
        return chain;
    }
    let ancestors: Vec<&Path> = root.ancestors().skip(1).collect();
    for dir in ancestors.into_iter().rev() {
        let read = |name: &str| std::fs::read(dir.join(name)).ok();
        let git = std::fs::metadata(dir.join(GIT)).ok();
        let has_git = git.is_some() || dir.join(JJ).exists();
        let exclude = match &git {
            Some(meta) if meta.is_dir() => read(GIT_EXCLUDE),
            _ => None,
        };
        let sources =
            |names: &[&str]| -> Vec<Vec<u8>> { names.iter().filter_map(|n| read(n)).collect() };
        let matchers = [
            matcher(dir, &sources(&[RIPSIGHT_IGNORE_FILENAME])),
            matcher(dir, &sources(&[DOT_IGNORE])),
            matcher(dir, &sources(&[GITIGNORE])),
            exclude.and_then(|e| matcher(dir, &[e])),
        ];
        chain = Arc::new(DirRules::new(Some(chain), true, has_git, matchers));
    }
    chain
}

/// The rules of the directory `fd` (relative path `relative`), whose listing showed `found`.
pub(crate) fn dir_rules(
    parent: &Arc<DirRules>,
    fd: BorrowedFd<'_>,
    relative: &[u8],
    found: &Found,
) -> Arc<DirRules> {
    if !found.any() {
        return DirRules::plain(parent);
    }
    let root = Path::new(OsStr::from_bytes(relative));
    let read = |present: bool, name: &[u8]| -> Vec<Vec<u8>> {
        if !present {
            return Vec::new();
        }
        boundary::read_child(fd, name, MAX_IGNORE_FILE_BYTES)
            .into_iter()
            .collect()
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
                    Some(bytes)
                })
        }
        _ => None,
    };
    let matchers = [
        matcher(
            root,
            &read(found.ripsightignore, RIPSIGHT_IGNORE_FILENAME.as_bytes()),
        ),
        matcher(root, &read(found.ignore, DOT_IGNORE.as_bytes())),
        matcher(root, &read(found.gitignore, GITIGNORE.as_bytes())),
        exclude.and_then(|e| matcher(root, &[e])),
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
    respect: bool,
}

impl TreeRules {
    /// The rules above `root` (its canonical path), or none when `respect` is false.
    pub(crate) fn new(root: &Path, respect: bool) -> TreeRules {
        TreeRules {
            above_root: rules_above_root(root, respect),
            respect,
        }
    }

    /// The rules that apply to the entries of the directories from the root down to
    /// `relative`, excluding `relative` itself: what a walk starting at `relative` inherits.
    pub(crate) fn down_to(&self, root: &RootDir, relative: &[u8]) -> io::Result<Arc<DirRules>> {
        let mut rules = Arc::clone(&self.above_root);
        if !self.respect {
            return Ok(rules);
        }
        let parts: Vec<&[u8]> = relative
            .split(|b| *b == b'/')
            .filter(|p| !p.is_empty())
            .collect();
        let mut current = boundary::open_beneath(root.fd(), b"", rustix::fs::OFlags::DIRECTORY)?;
        let mut path: Vec<u8> = Vec::new();
        for part in parts {
            let found = probe_ignore_files(current.as_fd());
            rules = dir_rules(&rules, current.as_fd(), &path, &found);
            current = boundary::open_child_dir(current.as_fd(), part)?;
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(part);
        }
        Ok(rules)
    }

    /// Whether a walk of the parent of `relative` would drop the directory `relative` by its
    /// ignore rules (used to prune a glob's walk to a literal leading directory only when that
    /// is exact).
    pub(crate) fn ignores_dir(&self, root: &RootDir, relative: &[u8]) -> bool {
        if !self.respect {
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
