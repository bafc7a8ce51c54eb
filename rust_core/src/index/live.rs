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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::ignore_rules::is_rule_file;
use crate::workspace::Workspace;

pub(super) use super::base::Data;
use super::excludes;
use super::recheck;
use super::source;
use super::store::{FileId, Store};
use super::symbol_state::SymbolState;
use super::table::{FileEntry, Table, is_within, parent_of};
use super::unvouched::Unvouched;
use super::watch::{Change, Drained, Limits, Watcher};

crate::choice! {
    /// Where the index is in its life.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum IndexState {
        /// The first walk or the content index is being built: the cold engine answers.
        Building = "building",
        /// The table and the index answer.
        Ready = "ready",
        /// Built, but the table cannot be kept (a tree that kept changing under its walk, a
        /// thread that did not start, an index file that could not be written anywhere): the
        /// cold engine answers (reported only; the live state stays `Ready`).
        Fallback = "fallback",
        /// Closed: the cold engine answers.
        Closed = "closed",
    }
}

crate::choice! {
    /// How the table is kept fresh.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum IndexMode {
        /// A file watcher's events, drained at the start of every call.
        Watch = "watch",
        /// Every call re-checks the table against the tree (no watcher here, or a watch
        /// limit was reached): the identities of every directory and file are compared.
        Recheck = "recheck",
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
    /// Where the index file is kept.
    pub(super) store: Store,
    /// The outliner the symbol index parses with (`None`: no symbol index is kept).
    pub(super) outliner: Option<Arc<crate::outline::outliner::Outliner>>,
    /// Whether this process builds index files when there are none (`IndexOptions::build`).
    pub(super) build: bool,
    /// Files the symbol index's build has parsed, and is to parse.
    pub(super) symbol_parsed: AtomicU64,
    pub(super) symbol_total: AtomicU64,
}

/// The table, its watcher and the index data, behind `Shared::live`.
pub(super) struct Live {
    pub(super) state: IndexState,
    pub(super) table: Table,
    pub(super) watcher: Option<Watcher>,
    pub(super) data: Arc<Data>,
    /// The identity of the index file `data` maps, when it is on disk: when the file at its
    /// name is another, another process replaced it, and this one adopts it.
    pub(super) data_id: Option<FileId>,
    /// Why the table does not answer although it is built, if so.
    pub(super) fallback: Option<String>,
    pub(super) build_ms: Option<f64>,
    pub(super) rescans: u64,
    /// A background job (merge, rebuild, adoption) is running.
    pub(super) reindexing: bool,
    /// Index files this process wrote (merges and rebuilds after the first) and adopted from
    /// other processes.
    pub(super) merges: u64,
    pub(super) adoptions: u64,
    /// No background job starts before this (one could not run: see `upkeep::RETRY_AFTER`).
    pub(super) retry_after: Option<std::time::Instant>,
    /// Files the last build could not index (binary, too large): not changes.
    pub(super) unindexed_after_build: usize,
    /// Files the base records without vouching for them, searched directly: a merge is due
    /// for them (see `upkeep`).
    pub(super) unvouched: Unvouched,
    pub(super) loaded: bool,
    /// The symbol index (see `symbol_build`).
    pub(super) symbols: SymbolState,
}

impl Live {
    /// The state of an index whose first build has not ended.
    pub(super) fn building() -> Live {
        Live {
            state: IndexState::Building,
            table: Table::default(),
            watcher: None,
            data: Arc::new(Data::empty()),
            data_id: None,
            fallback: None,
            build_ms: None,
            rescans: 0,
            reindexing: false,
            merges: 0,
            adoptions: 0,
            retry_after: None,
            unindexed_after_build: 0,
            unvouched: Unvouched::default(),
            loaded: false,
            symbols: SymbolState::default(),
        }
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Live {
    /// Applies every change since the last call to the table: the watcher's queue (and a
    /// re-check of the hard-linked files it could not watch), or, when re-checking, a re-check
    /// of the whole table.
    pub(super) fn refresh(&mut self, shared: &Shared) {
        let workspace = &shared.workspace;
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let result = if watcher.recheck_reason().is_some() {
            self.table.require_vouched();
            let found = recheck::everything(workspace, &self.table);
            for path in &found.vouched {
                self.table.vouch(path);
            }
            if found.is_empty() {
                return;
            }
            // Directories listed again only because they are recent change the revision only
            // when their listing did.
            let changed = found.changed();
            let signature = |table: &Table| {
                let direct = found.recent.iter().map(|d| table.listing(d, false));
                let below = found.recent_rules.iter().map(|d| table.listing(d, true));
                direct.chain(below).collect::<Vec<u64>>()
            };
            let before = signature(&self.table);
            let (subtrees, relist, stale) = (
                found.subtrees.clone(),
                found.relist.clone(),
                found.stale.clone(),
            );
            let result = self.reconcile(workspace, subtrees, relist, stale);
            if result.is_ok() && !changed && signature(&self.table) == before {
                return;
            }
            result
        } else {
            let mut result = match watcher.drain() {
                Drained::Changes(changes) if changes.is_empty() => Ok(false),
                Drained::Changes(changes) => self.apply(workspace, changes).map(|()| true),
                Drained::Overflow => {
                    self.rescans += 1;
                    self.rescan(workspace, "", &BTreeSet::new(), true)
                        .map(|()| true)
                }
            };
            if result.is_ok() && !self.table.linked.is_empty() {
                let found = recheck::files(workspace, &self.table, self.table.linked.iter());
                for path in &found.vouched {
                    self.table.vouch(path);
                }
                if !found.is_empty() {
                    result = self
                        .reconcile(workspace, found.subtrees, found.relist, found.stale)
                        .map(|()| true);
                }
            }
            match result {
                Ok(false) => return,
                Ok(true) => Ok(()),
                Err(e) => Err(e),
            }
        };
        shared.revision.fetch_add(1, Ordering::SeqCst);
        if let Err(reason) = result {
            self.fallback = Some(reason);
            self.watcher = None;
            return;
        }
        // A watch could not be added while applying: from now on the table is re-checked,
        // starting with everything (events the watcher held are gone with it).
        if self
            .watcher
            .as_ref()
            .is_some_and(|w| w.recheck_reason().is_some())
            && !self.table.vouched
        {
            self.refresh(shared);
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
        self.reconcile(workspace, subtrees, relist, stale)
    }

    /// Walks `subtrees` again (the outermost of them), then lists `relist` again (those not
    /// within them); `stale` files keep no document.
    fn reconcile(
        &mut self,
        workspace: &Workspace,
        subtrees: BTreeSet<String>,
        relist: BTreeSet<String>,
        stale: BTreeSet<String>,
    ) -> Result<(), String> {
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
                ScanRules {
                    require_trusted,
                    give_way: false,
                },
            );
        }
        // The parent may itself be gone or outside the table: then its own change covers it.
        let parent = parent_of(dir).to_string();
        self.relist(workspace, &parent, stale, &previous)
    }

    /// Lists `dir`'s direct entries again and reconciles them with the table; walks it again
    /// whole when the rule files it holds changed.
    fn relist(
        &mut self,
        workspace: &Workspace,
        dir: &str,
        stale: &BTreeSet<String>,
        previous: &BTreeMap<String, FileEntry>,
    ) -> Result<(), String> {
        let Some(rules_before) = self.table.dirs.get(dir).map(|m| m.rules) else {
            return Ok(());
        };
        let Some(watcher) = self.watcher.as_mut() else {
            return Ok(());
        };
        let mut scan = source::scan(workspace, dir, true, None, false);
        if scan.missing {
            // Gone: forget it (its parent's change re-lists the parent).
            self.table.remove_below(dir);
            self.table.dirs.remove(dir);
            watcher.unwatch_within(dir);
            return Ok(());
        }
        let mut before = self.table.remove_direct(dir);
        before.extend(previous.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut listed: BTreeSet<String> = BTreeSet::new();
        let mut rules_after = rules_before;
        for (d, meta) in scan.dirs.drain(..) {
            if d == dir {
                rules_after = meta.rules;
                self.table.dirs.insert(d, meta);
            } else {
                listed.insert(d);
            }
        }
        if rules_after != rules_before {
            return self.rescan(workspace, dir, stale, false);
        }
        for child in self.table.child_dirs(dir) {
            if !listed.contains(&child) {
                self.table.remove_below(&child);
                self.table.dirs.remove(&child);
                watcher.unwatch_within(&child);
            }
        }
        let linked = self.table.add_scan(scan, &before, stale, false);
        guard_links(workspace, &mut self.table, watcher, linked);
        for child in listed {
            if !self.table.dirs.contains_key(&child) {
                scan_subtree(
                    workspace,
                    &mut self.table,
                    watcher,
                    &child,
                    &before,
                    stale,
                    ScanRules::default(),
                )?;
            }
        }
        Ok(())
    }
}

/// Watches the inode of each of `linked` (files with several links) and takes its identity
/// again once watched (a change before the watch shows in it); past the watch budget, the
/// file is re-checked at every call. Either way it may be indexed.
fn guard_links(
    workspace: &Workspace,
    table: &mut Table,
    watcher: &mut Watcher,
    linked: Vec<String>,
) {
    for path in linked {
        if watcher.watch_file(&source::absolute(workspace, &path), &path) {
            let now = source::stat(workspace, &path);
            if now.is_some_and(|id| table.files.get(&path).is_some_and(|e| e.meta != id))
                && let Some(id) = now
            {
                table.put_file(path.clone(), id, None);
            }
            table.guard(&path, false);
        } else {
            table.guard(&path, true);
        }
    }
}

/// How [`scan_subtree`] walks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ScanRules {
    /// A file keeps its document only when its old metadata was trusted (see
    /// `Table::add_scan`).
    pub(super) require_trusted: bool,
    /// The first build's walk, on its background thread, with no lock held: it gives way to
    /// calls between two directories ([`crate::background::give_way`]), so a call made while
    /// the index starts has the machine a cold call would have had. Never a rescan: those run
    /// under the live table's lock, which a call may be waiting for.
    pub(super) give_way: bool,
}

/// Walks `dir` into `table` and watches every directory it enters, before listing it (so
/// nothing created in it after its listing is missed). The walk is repeated while it finds a
/// directory that is not watched (none, unless one vanished meanwhile). A watch that cannot be
/// added turns the watcher to re-checking (and the table with it).
pub(super) fn scan_subtree(
    workspace: &Workspace,
    table: &mut Table,
    watcher: &mut Watcher,
    dir: &str,
    previous: &BTreeMap<String, FileEntry>,
    stale: &BTreeSet<String>,
    rules: ScanRules,
) -> Result<(), String> {
    // A directory that vanished before its watch was added is left out: the change that
    // removed it is queued for its parent.
    let watch =
        |watcher: &mut Watcher, d: &str| match watcher.watch(&source::absolute(workspace, d), d) {
            Ok(()) => true,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => false,
            Err(e) => {
                watcher.give_up(format!("cannot watch {d:?}: {e}"));
                true
            }
        };
    if !watch(watcher, dir) {
        return Ok(());
    }
    // Directories that could not be watched because they are gone (or are not directories).
    let mut gone: BTreeSet<String> = BTreeSet::new();
    for _ in 0..MAX_SCAN_ROUNDS {
        let adder = watcher.adder();
        let scan = source::scan(workspace, dir, false, adder.as_ref(), rules.give_way);
        if let Some(adder) = adder {
            watcher.register(adder);
        }
        if scan.missing {
            // Gone again: the change that removed it is queued for its parent.
            return Ok(());
        }
        let unwatched: Vec<String> = scan
            .dirs
            .iter()
            .map(|(d, _)| d)
            .filter(|d| !watcher.is_watched(d) && !gone.contains(*d))
            .cloned()
            .collect();
        if unwatched.is_empty() {
            for git in excludes::git_dirs(&scan.skips) {
                watch(watcher, &git);
                // Without a watcher the excludes are re-checked by identity.
                if let Some(info) = excludes::info_of(&git) {
                    let exclude = format!("{info}/{}", excludes::EXCLUDE);
                    table
                        .excludes
                        .insert(info.clone(), source::stat(workspace, &info));
                    table
                        .excludes
                        .insert(exclude.clone(), source::stat(workspace, &exclude));
                }
            }
            if watcher.recheck_reason().is_some() {
                table.require_vouched();
            }
            let linked = table.add_scan(scan, previous, stale, rules.require_trusted);
            guard_links(workspace, table, watcher, linked);
            return Ok(());
        }
        for d in unwatched {
            if !watch(watcher, &d) {
                gone.insert(d);
            }
        }
    }
    Err(format!("{dir:?} kept changing while it was walked"))
}

/// Walks of one directory before a tree that keeps changing under the walk is given up on.
const MAX_SCAN_ROUNDS: usize = 16;
