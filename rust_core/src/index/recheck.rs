//! Re-checking the table against the tree where nothing notifies of changes (SPEC §2.8: no
//! watcher here, `RIPSIGHT_PORTABLE=1`, a watch limit reached), and for files with several
//! links whose inode could not be watched.
//!
//! At the start of a call every directory and file of the table (or only those files) is
//! `stat`ed again and compared with the identity the table keeps:
//! - a file whose identity changed (or that is gone) is stale: its directory is listed again
//!   and its document dropped; a changed rule file (`.gitignore`, ...) re-walks its directory;
//! - a directory whose identity changed (an entry added, removed or renamed changes its times)
//!   is listed again, and re-walked when the rule files it holds changed (see `Live::relist`);
//!   a directory whose times were too recent to vouch for its listing is listed again until
//!   they are old enough;
//! - a directory that is gone, or no longer a directory, is dropped through its parent.
//!
//! What this cannot see, a change in the same clock tick as the previous one, is covered by
//! trust: only a file whose identity was old enough when taken keeps its document, and only a
//! directory whose times were old enough is not listed again (see `FileEntry::trusted`).
//!
//! Directories are `stat`ed by their path from the root (`fstatat` relative to the root's
//! descriptor, not following a final link); an intermediate directory swapped for a link would
//! be followed, which is harmless here: only the identity is compared, and any difference is
//! answered by listing again through the boundary's own opens. Files are `stat`ed by name in
//! their directory, opened beneath the root as every open is (a directory that cannot be
//! opened so makes its files count as changed). Nothing is read from what a `stat` names.

use std::collections::BTreeSet;

use crate::boundary::FileIdentity;
use crate::ignore_rules::is_rule_file;
use crate::walker::thread_count;
use crate::workspace::Workspace;

use super::excludes;
use super::source;
use super::table::{DirMeta, FileEntry, Table, now_ns, parent_of, vouches};

/// What a re-check found changed.
#[derive(Default, Debug)]
pub(crate) struct Found {
    /// Directories to list again.
    pub(crate) relist: BTreeSet<String>,
    /// Of those, the ones listed again only because their times are too recent to vouch for
    /// their listing (they may well be unchanged).
    pub(crate) recent: BTreeSet<String>,
    /// Of the subtrees, the ones walked again only because a rule file's identity is too
    /// recent to vouch for its rules (they may well be unchanged).
    pub(crate) recent_rules: BTreeSet<String>,
    /// Files whose contents may have changed.
    pub(crate) stale: BTreeSet<String>,
    /// Directories whose rules changed: walked again whole.
    pub(crate) subtrees: BTreeSet<String>,
    /// Unchanged files whose identity is now old enough to vouch for them.
    pub(crate) vouched: Vec<String>,
}

impl Found {
    /// Nothing changed (files that became vouched change no answer).
    pub(crate) fn is_empty(&self) -> bool {
        self.relist.is_empty() && self.stale.is_empty() && self.subtrees.is_empty()
    }

    /// Something surely changed (not only recent directories or rules to read again).
    pub(crate) fn changed(&self) -> bool {
        self.relist.len() > self.recent.len()
            || !self.stale.is_empty()
            || self.subtrees.len() > self.recent_rules.len()
    }

    fn add(&mut self, other: Found) {
        self.relist.extend(other.relist);
        self.recent.extend(other.recent);
        self.recent_rules.extend(other.recent_rules);
        self.stale.extend(other.stale);
        self.subtrees.extend(other.subtrees);
        self.vouched.extend(other.vouched);
    }
}

/// One thing to re-check.
enum Item<'t> {
    Dir(&'t String, &'t DirMeta),
    File(&'t String, &'t FileEntry),
    /// A repository's `.git/info` or `.git/info/exclude`, outside the table.
    Exclude(&'t String, &'t Option<FileIdentity>),
}

/// Items at or above this number are re-checked on the workspace's threads.
const PARALLEL_FROM: usize = 4096;

/// Re-checks every directory and file of `table`.
pub(crate) fn everything(workspace: &Workspace, table: &Table) -> Found {
    let items: Vec<Item<'_>> = table
        .dirs
        .iter()
        .map(|(d, m)| Item::Dir(d, m))
        .chain(table.files.iter().map(|(p, e)| Item::File(p, e)))
        .chain(table.excludes.iter().map(|(p, id)| Item::Exclude(p, id)))
        .collect();
    check(workspace, &items)
}

/// Re-checks the files of `table` named in `paths`.
pub(crate) fn files<'t>(
    workspace: &Workspace,
    table: &'t Table,
    paths: impl Iterator<Item = &'t String>,
) -> Found {
    let items: Vec<Item<'t>> = paths
        .filter_map(|p| table.files.get_key_value(p))
        .map(|(p, e)| Item::File(p, e))
        .collect();
    check(workspace, &items)
}

fn check(workspace: &Workspace, items: &[Item<'_>]) -> Found {
    let now = now_ns();
    let threads = if items.len() >= PARALLEL_FROM {
        thread_count(workspace).max(1)
    } else {
        1
    };
    let run = |part: &[Item<'_>]| {
        let mut found = Found::default();
        let mut stat = Stat::default();
        for item in part {
            match item {
                Item::Dir(dir, meta) => check_dir(workspace, dir, meta, &mut found),
                Item::File(path, entry) => {
                    check_file(workspace, &mut stat, path, entry, now, &mut found);
                }
                Item::Exclude(path, id) => {
                    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
                    // A recent identity cannot tell a same-tick edit: re-read until it can.
                    let recent = id.is_some_and(|i| !vouches(&i, now));
                    let changed = source::stat(workspace, path) != **id;
                    if (recent || changed)
                        && let Some(repository) = excludes::repository_of(dir, Some(name))
                    {
                        if !changed {
                            found.recent_rules.insert(repository.clone());
                        }
                        found.subtrees.insert(repository);
                    }
                }
            }
        }
        found
    };
    if threads == 1 {
        return run(items);
    }
    let mut found = Found::default();
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| crate::threads::spawn_or_run(scope, move || run(part)))
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(part) => found.add(part),
                // A thread that failed leaves its part unchecked: list everything again.
                Err(_) => {
                    found.subtrees.insert(String::new());
                }
            }
        }
    });
    found
}

fn is_dir(id: &FileIdentity) -> bool {
    id.mode & 0o170_000 == 0o040_000
}

fn check_dir(workspace: &Workspace, dir: &str, meta: &DirMeta, found: &mut Found) {
    match source::stat(workspace, dir) {
        Some(id) if is_dir(&id) => {
            if id != meta.id {
                found.relist.insert(dir.to_string());
            } else if !meta.trusted {
                found.relist.insert(dir.to_string());
                found.recent.insert(dir.to_string());
            }
        }
        _ if dir.is_empty() => {
            found.subtrees.insert(String::new());
        }
        _ => {
            found.relist.insert(parent_of(dir).to_string());
        }
    }
}

/// `stat`s files one after another keeping the descriptor of the last directory (files in path
/// order mostly share it): a name looked up in an open directory costs less than a whole path
/// resolved from the root, which on the Linux tree halves a re-check.
#[derive(Default)]
struct Stat {
    dir: String,
    fd: Option<std::os::fd::OwnedFd>,
}

impl Stat {
    fn file(&mut self, workspace: &Workspace, path: &str) -> Option<FileIdentity> {
        let dir = parent_of(path);
        let name = if dir.is_empty() {
            path
        } else {
            &path[dir.len() + 1..]
        };
        if self.fd.is_none() || self.dir != dir {
            self.dir = dir.to_string();
            self.fd = source::open_dir(workspace, dir);
        }
        match &self.fd {
            Some(fd) => {
                crate::boundary::stat_child(std::os::fd::AsFd::as_fd(fd), name.as_bytes()).ok()
            }
            None => None,
        }
    }
}

fn check_file(
    workspace: &Workspace,
    stat: &mut Stat,
    path: &str,
    entry: &FileEntry,
    now: i64,
    found: &mut Found,
) {
    match stat.file(workspace, path) {
        Some(id) if id == entry.meta => {
            if !entry.trusted && vouches(&id, now) {
                found.vouched.push(path.to_string());
            } else if !entry.trusted {
                // A rule file edited again in the same tick shows in no identity: its
                // directory's rules are read again until its identity vouches for it.
                let name = path.rsplit('/').next().unwrap_or(path);
                if is_rule_file(name.as_bytes()) {
                    found.subtrees.insert(parent_of(path).to_string());
                    found.recent_rules.insert(parent_of(path).to_string());
                }
            }
        }
        _ => {
            let dir = parent_of(path);
            let name = path.rsplit('/').next().unwrap_or(path);
            if is_rule_file(name.as_bytes()) {
                found.subtrees.insert(dir.to_string());
            }
            found.relist.insert(dir.to_string());
            found.stale.insert(path.to_string());
        }
    }
}
