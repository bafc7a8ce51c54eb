//! The live state: the table, its watcher and the index data that calls and the index's threads
//! share, and the watcher's changes applied to the table at the start of every call.
//!
//! A changed file loses its index document and is searched directly from then on; a new or
//! removed directory, or a changed ignore file (any of [`crate::ignore_rules::RULE_FILES`], or
//! a repository's `.git/info/exclude`, see `excludes`), re-walks that part of the tree; a queue overflow re-walks the whole tree and keeps only
//! documents whose file metadata did not change. A watch that cannot be added stops the table
//! from answering.

use std::collections::{BTreeMap, BTreeSet};
use std::io::ErrorKind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::ignore_rules::is_rule_file;
use crate::workspace::Workspace;

use super::excludes;
use super::postings::Postings;
use super::source;
use super::table::{FileEntry, Table, is_within, parent_of};
use super::watch::{Change, Drained, Limits, Watcher};

crate::choice! {
    /// Where the index is in its life.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum IndexState {
        /// The first walk or the content index is being built: the cold engine answers.
        Building = "building",
        /// The table and the index answer.
        Ready = "ready",
        /// Built, but the table cannot be kept fresh here (no file watcher, a watch limit):
        /// the cold engine answers (reported only; the live state stays `Ready`).
        Fallback = "fallback",
        /// Closed: the cold engine answers.
        Closed = "closed",
    }
}

/// What the calls and the index's threads share.
pub(super) struct Shared {
    pub(super) workspace: Workspace,
    pub(super) live: Mutex<Live>,
    /// Notified when the first build ends (or fails) and when the index closes.
    pub(super) ready: Condvar,
    /// Set by `close()`: the builds stop.
    pub(super) stop: AtomicBool,
    pub(super) revision: AtomicU64,
    pub(super) limits: Limits,
    pub(super) warm_calls: AtomicU64,
    pub(super) cold_calls: AtomicU64,
    /// Where the on-disk copy is kept, if anywhere (`IndexOptions::index_dir`).
    pub(super) index_dir: Option<PathBuf>,
}

/// The index data: postings and each document's path.
pub(super) struct Data {
    pub(super) postings: Postings,
    pub(super) paths: Vec<String>,
}

impl Data {
    /// No documents (before the first build, and after `close()`).
    pub(super) fn empty() -> Data {
        Data {
            postings: Postings::default(),
            paths: Vec::new(),
        }
    }

    pub(super) fn resident_bytes(&self) -> u64 {
        self.postings.resident_bytes()
            + self
                .paths
                .iter()
                .map(|p| (p.capacity() + std::mem::size_of::<String>()) as u64)
                .sum::<u64>()
    }
}

/// The table, its watcher and the index data, behind `Shared::live`.
pub(super) struct Live {
    pub(super) state: IndexState,
    pub(super) table: Table,
    pub(super) watcher: Option<Watcher>,
    pub(super) data: Arc<Data>,
    /// Why the table does not answer although it is built, if so.
    pub(super) fallback: Option<String>,
    pub(super) build_ms: Option<f64>,
    pub(super) rescans: u64,
    pub(super) reindexing: bool,
    /// Files the last build could not index (binary, too large): not changes.
    pub(super) unindexed_after_build: usize,
    pub(super) loaded: bool,
}

impl Live {
    /// The state of an index whose first build has not ended.
    pub(super) fn building() -> Live {
        Live {
            state: IndexState::Building,
            table: Table::default(),
            watcher: None,
            data: Arc::new(Data::empty()),
            fallback: None,
            build_ms: None,
            rescans: 0,
            reindexing: false,
            unindexed_after_build: 0,
            loaded: false,
        }
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Live {
    /// Applies every queued change to the table.
    pub(super) fn refresh(&mut self, shared: &Shared) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let drained = watcher.drain();
        let result = match drained {
            Drained::Changes(changes) if changes.is_empty() => return,
            Drained::Changes(changes) => self.apply(&shared.workspace, changes),
            Drained::Overflow => {
                self.rescans += 1;
                self.rescan(&shared.workspace, "", &BTreeSet::new(), true)
            }
        };
        shared.revision.fetch_add(1, Ordering::SeqCst);
        if let Err(reason) = result {
            self.fallback = Some(reason);
            self.watcher = None;
        }
    }

    fn apply(&mut self, workspace: &Workspace, changes: Vec<Change>) -> Result<(), String> {
        let mut subtrees: BTreeSet<String> = BTreeSet::new();
        let mut relist: BTreeSet<String> = BTreeSet::new();
        let mut stale: BTreeSet<String> = BTreeSet::new();
        for change in changes {
            // A repository's excludes lie in its `.git`, outside the table.
            let named = change.name.as_ref().map(|n| n.to_string_lossy());
            if let Some(repository) = excludes::repository_of(&change.dir, named.as_deref()) {
                subtrees.insert(repository);
                continue;
            }
            let Some(name) = change.name else {
                subtrees.insert(change.dir);
                continue;
            };
            let name = name.to_string_lossy();
            let path = if change.dir.is_empty() {
                name.to_string()
            } else {
                format!("{}/{name}", change.dir)
            };
            // A rule file re-derives the ignore status of its directory's subtree.
            if is_rule_file(name.as_bytes()) {
                subtrees.insert(change.dir);
            } else if change.is_dir {
                subtrees.insert(path);
            } else {
                relist.insert(change.dir);
                stale.insert(path);
            }
        }
        // Outermost subtrees only.
        let mut outer: Vec<String> = Vec::new();
        for dir in subtrees {
            if !outer.iter().any(|o| is_within(&dir, o)) {
                outer.retain(|o| !is_within(o, &dir));
                outer.push(dir);
            }
        }
        for dir in &outer {
            self.rescan(workspace, dir, &stale, false)?;
        }
        for dir in relist {
            if !outer.iter().any(|o| is_within(&dir, o)) {
                self.relist(workspace, &dir, &stale, &BTreeMap::new())?;
            }
        }
        Ok(())
    }

    /// Forgets everything within `dir` and walks it again (through its parent's listing, which
    /// says whether `dir` is still a directory the walk enters).
    fn rescan(
        &mut self,
        workspace: &Workspace,
        dir: &str,
        stale: &BTreeSet<String>,
        require_trusted: bool,
    ) -> Result<(), String> {
        let Some(watcher) = self.watcher.as_mut() else {
            return Ok(());
        };
        let previous = self.table.remove_below(dir);
        self.table.dirs.remove(dir);
        watcher.unwatch_within(dir);
        if dir.is_empty() {
            return scan_subtree(
                workspace,
                &mut self.table,
                watcher,
                "",
                &previous,
                stale,
                require_trusted,
            );
        }
        // The parent may itself be gone or outside the table: then its own change covers it.
        let parent = parent_of(dir).to_string();
        self.relist(workspace, &parent, stale, &previous)
    }

    /// Lists `dir`'s direct entries again and reconciles them with the table.
    fn relist(
        &mut self,
        workspace: &Workspace,
        dir: &str,
        stale: &BTreeSet<String>,
        previous: &BTreeMap<String, FileEntry>,
    ) -> Result<(), String> {
        if !self.table.dirs.contains(dir) {
            return Ok(());
        }
        let Some(watcher) = self.watcher.as_mut() else {
            return Ok(());
        };
        let mut scan = source::scan(workspace, dir, true);
        if scan.missing {
            // Gone: forget it (its parent's change re-lists the parent).
            self.table.remove_below(dir);
            self.table.dirs.remove(dir);
            watcher.unwatch_within(dir);
            return Ok(());
        }
        let mut before = self.table.remove_direct(dir);
        before.extend(previous.iter().map(|(k, v)| (k.clone(), v.clone())));
        let listed: BTreeSet<String> = scan.dirs.drain(..).filter(|d| d != dir).collect();
        for child in self.table.child_dirs(dir) {
            if !listed.contains(&child) {
                self.table.remove_below(&child);
                self.table.dirs.remove(&child);
                watcher.unwatch_within(&child);
            }
        }
        self.table.add_scan(scan, &before, stale, false);
        for child in listed {
            if !self.table.dirs.contains(&child) {
                scan_subtree(
                    workspace,
                    &mut self.table,
                    watcher,
                    &child,
                    &before,
                    stale,
                    false,
                )?;
            }
        }
        Ok(())
    }
}

/// Walks `dir` into `table` and watches every directory it enters. The walk is repeated until
/// it finds no directory that was not watched before it started, so nothing created between a
/// listing and its watch is missed. Errors when a watch cannot be added.
pub(super) fn scan_subtree(
    workspace: &Workspace,
    table: &mut Table,
    watcher: &mut Watcher,
    dir: &str,
    previous: &BTreeMap<String, FileEntry>,
    stale: &BTreeSet<String>,
    require_trusted: bool,
) -> Result<(), String> {
    // A directory that vanished before its watch was added is left out: the change that
    // removed it is queued for its parent.
    let watch = |watcher: &mut Watcher, d: &str| match watcher
        .watch(&source::absolute(workspace, d), d)
    {
        Ok(()) => Ok(true),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(false),
        Err(e) => Err(format!("cannot watch {d:?}: {e}")),
    };
    if !watch(watcher, dir)? {
        return Ok(());
    }
    // Directories that could not be watched because they are gone (or are not directories).
    let mut gone: BTreeSet<String> = BTreeSet::new();
    for _ in 0..MAX_SCAN_ROUNDS {
        let scan = source::scan(workspace, dir, false);
        if scan.missing {
            // Gone again: the change that removed it is queued for its parent.
            return Ok(());
        }
        let unwatched: Vec<String> = scan
            .dirs
            .iter()
            .filter(|d| !watcher.is_watched(d) && !gone.contains(*d))
            .cloned()
            .collect();
        if unwatched.is_empty() {
            for git in excludes::git_dirs(&scan.skips) {
                watch(watcher, &git)?;
            }
            table.add_scan(scan, previous, stale, require_trusted);
            return Ok(());
        }
        for d in unwatched {
            if !watch(watcher, &d)? {
                gone.insert(d);
            }
        }
    }
    Err(format!("{dir:?} kept changing while it was walked"))
}

/// Walks of one directory before a tree that keeps changing under the walk is given up on.
const MAX_SCAN_ROUNDS: usize = 16;
