//! Building the index: the first build (the table walked, the on-disk copy loaded or every file
//! read), the background re-index after many changes, and the on-disk copy written after each.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

use crate::walker::thread_count;

use super::live::{Data, IndexState, Live, Shared, lock, scan_subtree};
use super::persist;
use super::postings::{Indexed, Postings};
use super::source;
use super::table::Table;
use super::watch::Watcher;

/// The first build: walks the tree into a table (watching every directory), loads the on-disk
/// copy or reads every file into a new index, and hands both to the live state.
pub(super) fn build(shared: &Shared) {
    let started = Instant::now();
    let workspace = &shared.workspace;
    let mut table = Table::default();
    let fail = |reason: String| {
        let mut live = lock(&shared.live);
        if live.state == IndexState::Building {
            live.state = IndexState::Ready;
            live.fallback = Some(reason);
        }
        shared.ready.notify_all();
    };
    let mut watcher = match Watcher::new(shared.limits) {
        Ok(w) => w,
        Err(e) => return fail(format!("no file watcher: {e}")),
    };
    let saved = shared
        .index_dir
        .as_deref()
        .and_then(|dir| persist::load(dir, workspace));
    let loaded = saved.is_some();
    let (previous, saved_data) = match saved {
        Some(saved) => (saved.files, Some(saved.data)),
        None => (BTreeMap::new(), None),
    };
    let saved_unindexed = previous.values().filter(|e| e.doc.is_none()).count();
    // A loaded copy's documents are kept for files whose metadata proves them unchanged.
    if let Err(reason) = scan_subtree(
        workspace,
        &mut table,
        &mut watcher,
        "",
        &previous,
        &BTreeSet::new(),
        true,
    ) {
        return fail(reason);
    }
    drop(previous);
    let data = match saved_data {
        Some(data) => data,
        None => index_table(shared, &mut table),
    };
    let mut live = lock(&shared.live);
    if live.state != IndexState::Building {
        return;
    }
    live.unindexed_after_build = if loaded {
        saved_unindexed
    } else {
        table.unindexed.len()
    };
    live.table = table;
    live.watcher = Some(watcher);
    live.data = Arc::new(data);
    live.state = IndexState::Ready;
    live.loaded = loaded;
    live.build_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    shared.revision.fetch_add(1, Ordering::SeqCst);
    shared.ready.notify_all();
    if !loaded {
        save_copy(shared, live);
    }
}

/// Writes the on-disk copy when the workspace has an `index_dir`: of the table as it is after
/// every queued change is applied (so no document it holds is stale).
fn save_copy(shared: &Shared, mut live: MutexGuard<'_, Live>) {
    let Some(dir) = shared.index_dir.as_deref() else {
        return;
    };
    live.refresh(shared);
    if live.fallback.is_some() {
        return;
    }
    let files = live.table.files.clone();
    let data = Arc::clone(&live.data);
    drop(live);
    // A copy that cannot be written only costs the next process a rebuild.
    let _ = persist::save(dir, &shared.workspace, &files, &data);
}

/// What a build reads: the table's files (path, size) in path order, and their generations.
fn snapshot(table: &Table) -> (Vec<(String, u64)>, Vec<u64>) {
    table
        .files
        .iter()
        .map(|(p, e)| ((p.clone(), e.meta.size), e.generation))
        .unzip()
}

/// Reads `files` into a new index on the workspace's threads (stopped by `close()`).
fn read_postings(shared: &Shared, files: &[(String, u64)]) -> (Postings, Vec<Indexed>) {
    let workspace = &shared.workspace;
    let open = |p: &str| {
        source::open(workspace, p)
            .map(|(file, _)| file)
            .map_err(|_| std::io::Error::other("not a readable regular file"))
    };
    let stop = || shared.stop.load(Ordering::Relaxed);
    Postings::build(files, thread_count(workspace), &open, &stop)
}

/// Gives each file of a build its document (its place in `files`) when it was indexed, unless
/// its generation changed since the snapshot.
fn give_documents(
    table: &mut Table,
    files: &[(String, u64)],
    generations: &[u64],
    status: &[Indexed],
) {
    for (doc, (((path, _), generation), indexed)) in
        files.iter().zip(generations).zip(status).enumerate()
    {
        let doc = (*indexed == Indexed::Text).then_some(doc as u32);
        table.set_doc(path, *generation, doc);
    }
}

/// Reads every file of `table` into a new index and gives the table's entries their documents.
fn index_table(shared: &Shared, table: &mut Table) -> Data {
    let (files, generations) = snapshot(table);
    let (postings, status) = read_postings(shared, &files);
    give_documents(table, &files, &generations, &status);
    let paths = files.into_iter().map(|(p, _)| p).collect();
    Data { postings, paths }
}

/// Rebuilds the index from the table's current files in the background, then gives each file
/// its new document unless it changed meanwhile.
pub(super) fn reindex(shared: &Shared) {
    let (files, generations) = snapshot(&lock(&shared.live).table);
    let (postings, status) = read_postings(shared, &files);
    let mut live = lock(&shared.live);
    live.reindexing = false;
    if live.state != IndexState::Ready || shared.stop.load(Ordering::Relaxed) {
        return;
    }
    // Events that arrived while reading are applied first, so their files keep no document.
    live.refresh(shared);
    if live.fallback.is_some() {
        return;
    }
    let Live { table, data, .. } = &mut *live;
    give_documents(table, &files, &generations, &status);
    // Files whose document belongs to the old index lose it (their generation changed, or they
    // were added after the snapshot).
    let orphans: Vec<String> = table
        .files
        .iter()
        .filter(|(p, e)| {
            e.doc.is_some_and(|d| {
                let d = d as usize;
                files.get(d).is_none_or(|(sp, _)| sp != *p)
                    || generations.get(d) != Some(&e.generation)
            })
        })
        .map(|(p, _)| p.clone())
        .collect();
    for path in orphans {
        table.touch(&path);
    }
    *data = Arc::new(Data {
        postings,
        paths: files.into_iter().map(|(p, _)| p).collect(),
    });
    live.unindexed_after_build = live.table.unindexed.len();
    save_copy(shared, live);
}
