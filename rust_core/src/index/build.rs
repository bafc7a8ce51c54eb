//! Building and keeping the base: the first build (the table walked, then the index file loaded,
//! waited for, or built under the lock), and the background jobs that follow: a merge of the
//! files changed since the base into a new base, a full rebuild, and the adoption of a base
//! another process wrote.
//!
//! Which documents a table entry may take:
//! - from a build or merge of this process: the document of the file as it read it, unless the
//!   entry changed since the snapshot the read started from (its generation; the watcher was
//!   watching all along, so every change after the walk shows as one);
//! - from a base it did not read (loaded at start, or written by another process): the
//!   record's, only when the record's identity is the file's now and was old enough when taken
//!   to vouch for its contents ([`Data::vouched`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::walker::thread_count;

use super::files;
use super::live::{Data, IndexState, Live, ScanRules, Shared, lock, scan_subtree};
use super::memory;
use super::postings::{Built, Indexed, Postings};
use super::source;
use super::store::{FileId, Lock};
use super::table::{FileEntry, Table, now_ns, vouches};
use super::unvouched::Unvouched;
use super::upkeep::{self, REBUILD_FROM_PERCENT, RETRY_AFTER, wait_until_vouched};
use super::watch::Watcher;

/// How often a process waiting for another's build looks for the file.
const WAIT_FOR_BUILDER: Duration = Duration::from_millis(50);

/// The first build: walks the tree into a table (watching every directory), then takes the
/// base: the index file on disk when there is a valid one; else, under the writer's lock, one
/// it builds; else (another process is building) it waits for that one, the cold engine
/// answering meanwhile.
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
    let mut watcher = Watcher::new(shared.limits);
    if let Err(reason) = scan_subtree(
        workspace,
        &mut table,
        &mut watcher,
        "",
        &BTreeMap::new(),
        &BTreeSet::new(),
        ScanRules {
            give_way: true,
            ..ScanRules::default()
        },
    ) {
        return fail(reason);
    }
    let loaded = loop {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        if let Some((data, id)) = shared.store.load() {
            table.set_docs(data.vouched());
            go_live(shared, table, watcher, Some((data, id)));
            break true;
        }
        if !shared.build {
            return fail(
                "there is no valid index file for this tree (and no build was asked for)".into(),
            );
        }
        if let Some(writer) = shared.store.try_lock() {
            // Another process may have finished between the look and the lock.
            if let Some((data, id)) = shared.store.load() {
                table.set_docs(data.vouched());
                go_live(shared, table, watcher, Some((data, id)));
                break true;
            }
            let (read, generations) = snapshot(table.files.iter());
            let (built, status) = read_postings(shared, &read);
            give_documents(&mut table, &read, &generations, &status, 0);
            go_live(shared, table, watcher, None);
            let base = Data::empty();
            let lists = Read {
                files: &read,
                generations: &generations,
                status: &status,
                built: &built,
            };
            match write_current(shared, &writer, &base, &lists) {
                Some(Ok((data, id))) => {
                    let mut live = lock(&shared.live);
                    keep_named_documents(&mut live.table, &data);
                    live.data = Arc::new(data);
                    live.data_id = id;
                }
                Some(Err(e)) => return fail(format!("the index could not be written: {e}")),
                None => return,
            }
            break false;
        }
        std::thread::sleep(WAIT_FOR_BUILDER);
    };
    // The build's scratch goes back to the system before anyone is told the index is ready.
    memory::release_free_memory();
    let mut live = lock(&shared.live);
    if live.state != IndexState::Building {
        return;
    }
    took_base(&mut live);
    live.state = IndexState::Ready;
    live.loaded = loaded;
    live.build_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    shared.revision.fetch_add(1, Ordering::SeqCst);
    shared.ready.notify_all();
}

/// What the index keeps of the base it now answers from (built, loaded, merged or adopted):
/// the files it could not index, and those it records without vouching for them that this
/// process searches directly (a merge reads them again, see `upkeep`).
fn took_base(live: &mut Live) {
    live.unindexed_after_build = unindexable(live);
    let data = Arc::clone(&live.data);
    let records = (0..data.files_len())
        .filter_map(|i| data.file(i))
        .map(|f| (f.path, f.meta, f.trusted));
    let table = &live.table;
    live.unvouched = Unvouched::of(records, table, |path| table.unindexed.contains(path));
}

/// Files searched directly that are not changes (see `REINDEX_AFTER_CHANGED_FILES`): those
/// the base could not index (binary, too large). Files it does not vouch for, or whose identity
/// was too recent to vouch for a document, are changes: a merge reads them again.
fn unindexable(live: &Live) -> usize {
    live.data.undocumented().min(live.table.unindexed.len())
}

/// Drops every document the new base does not name for the same file. None should be left
/// (a file's document and its record come from the same read, under the same generation), but
/// a file keeping a document its base does not name would never be searched: this is cheap
/// (one lookup per file, once per file written) and makes that impossible.
fn keep_named_documents(table: &mut Table, data: &Data) {
    table.set_docs(|path, entry| entry.doc.filter(|&d| data.path(d) == Some(path)));
}

/// Hands the table and its watcher (and the base, if there is one yet) to the live state; the
/// index is not ready until `build` says so.
fn go_live(shared: &Shared, table: Table, watcher: Watcher, base: Option<(Data, FileId)>) {
    let mut live = lock(&shared.live);
    live.table = table;
    live.watcher = Some(watcher);
    if let Some((data, id)) = base {
        live.data = Arc::new(data);
        live.data_id = Some(id);
    }
}

/// What a build or merge read: the files (path, size) in path order with their generations at
/// the snapshot, how each was indexed, and the lists.
struct Read<'a> {
    files: &'a [(String, u64)],
    generations: &'a [u64],
    status: &'a [Indexed],
    built: &'a Built,
}

/// Writes `base` with the lists of `read` appended (their documents numbered after the
/// base's), and the live table as it is now: queued changes are applied first, so the
/// identities written are the files' now, each trusted when it is old enough now (the watcher
/// vouches for the time since the walk); a file read gets its document unless it changed since
/// the snapshot. `None` when the index closed meanwhile.
fn write_current(
    shared: &Shared,
    writer: &Lock,
    base: &Data,
    read: &Read<'_>,
) -> Option<std::io::Result<(Data, Option<FileId>)>> {
    let mut files = {
        let mut live = lock(&shared.live);
        if live.state == IndexState::Closed || shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        live.refresh(shared);
        if let Some(reason) = &live.fallback {
            return Some(Err(std::io::Error::other(reason.clone())));
        }
        live.table.files.clone()
    };
    let now = now_ns();
    let shift = base.docs_len() as u32;
    for entry in files.values_mut() {
        entry.trusted = vouches(&entry.meta, now);
        if shift == 0 {
            // A new base: documents of any older one mean nothing in it.
            entry.doc = None;
        }
    }
    let lists = read.files.iter().zip(read.generations).zip(read.status);
    for (doc, (((path, _), generation), indexed)) in lists.enumerate() {
        if let Some(entry) = files.get_mut(path) {
            entry.doc = (entry.generation == *generation && *indexed == Indexed::Text)
                .then_some(shift + doc as u32);
        }
    }
    Some(write_base(shared, writer, base, &files, read.built))
}

/// Writes `base` with `built` appended and the table `files`, under `writer`; maps it.
fn write_base(
    shared: &Shared,
    writer: &Lock,
    base: &Data,
    files: &BTreeMap<String, FileEntry>,
    built: &Built,
) -> std::io::Result<(Data, Option<FileId>)> {
    let stall = shared.limits.stall_write_ms;
    let between = || {
        if let Some(ms) = stall {
            std::thread::sleep(Duration::from_millis(ms));
        }
    };
    let key = shared.store.key();
    let saved = shared.store.save(writer, &|sink| {
        base.write(sink, key, files.iter(), built, &between)
            .map(|_| ())
    })?;
    // The cap and the age limit apply by default: whoever writes a file prunes its directory.
    if saved.1.is_some()
        && let Some(path) = shared.store.path()
        && let Some(dir) = path.parent()
    {
        let policy = files::CachePolicy::default();
        let _ = files::prune(dir, &policy, std::time::SystemTime::now(), Some(&path));
    }
    Ok(saved)
}

/// What a build reads: files (path, size) in path order, and their generations.
fn snapshot<'a>(
    entries: impl Iterator<Item = (&'a String, &'a FileEntry)>,
) -> (Vec<(String, u64)>, Vec<u64>) {
    entries
        .map(|(p, e)| ((p.clone(), e.meta.size), e.generation))
        .unzip()
}

/// Reads `files` into new lists on the workspace's threads (stopped by `close()`), giving way
/// to calls between files.
fn read_postings(shared: &Shared, files: &[(String, u64)]) -> (Built, Vec<Indexed>) {
    memory::steady_allocator();
    let workspace = &shared.workspace;
    let open = |p: &str| {
        source::open(workspace, p)
            .map(|(file, _)| file)
            .map_err(|_| std::io::Error::other("not a readable regular file"))
    };
    let stopped = || shared.stop.load(Ordering::Relaxed);
    let stop = || {
        crate::background::give_way(&stopped);
        stopped()
    };
    Postings::build(files, thread_count(workspace), &open, &stop)
}

/// Gives each file read its document (`shift` plus its place in `files`) when it was indexed,
/// unless its generation changed since the snapshot.
fn give_documents(
    table: &mut Table,
    files: &[(String, u64)],
    generations: &[u64],
    status: &[Indexed],
    shift: u32,
) {
    for (doc, (((path, _), generation), indexed)) in
        files.iter().zip(generations).zip(status).enumerate()
    {
        let doc = (*indexed == Indexed::Text).then_some(shift + doc as u32);
        table.set_doc(path, *generation, doc);
    }
}

/// What a background job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Job {
    /// Reads the files changed since the base and writes a new base with their lists appended
    /// (or rebuilds, when too much of it would be dead).
    Merge,
    /// Reads every file into a new base (the old one was found damaged).
    Rebuild,
    /// Maps the base another process wrote and takes the documents it vouches for.
    Adopt,
}

/// Runs `job` in the background; clears `Live::reindexing` when done.
pub(super) fn background(shared: &Shared, job: Job) {
    let done = match job {
        Job::Adopt => adopt(shared),
        Job::Merge | Job::Rebuild => match shared.store.try_lock() {
            Some(writer) => merge(shared, &writer, job == Job::Rebuild),
            None => false,
        },
    };
    let mut live = lock(&shared.live);
    live.reindexing = false;
    live.retry_after = (!done).then(|| Instant::now() + RETRY_AFTER);
    drop(live);
    memory::release_free_memory();
}

/// True when the base was adopted.
fn adopt(shared: &Shared) -> bool {
    let Some((data, id)) = shared.store.load() else {
        return false;
    };
    let mut live = lock(&shared.live);
    if live.state != IndexState::Ready || shared.stop.load(Ordering::Relaxed) {
        return true;
    }
    // Changes queued until now are applied first: the identities compared are the files' now.
    live.refresh(shared);
    if live.fallback.is_some() {
        return true;
    }
    live.table.set_docs(data.vouched());
    live.data = Arc::new(data);
    live.data_id = Some(id);
    live.adoptions += 1;
    took_base(&mut live);
    shared.revision.fetch_add(1, Ordering::SeqCst);
    true
}

/// A merge (or a rebuild) under the writer's lock; false when it could not run.
fn merge(shared: &Shared, writer: &Lock, rebuild: bool) -> bool {
    // A file changed within the trust margin is not vouched for by its identity, so other
    // processes would not take its document: wait (briefly) until the changed files are older.
    let newest = {
        let live = lock(&shared.live);
        let table = &live.table;
        table
            .unindexed
            .iter()
            .filter_map(|p| table.files.get(p))
            .map(|e| e.meta.ctime_ns)
            .max()
    };
    wait_until_vouched(shared, newest);
    let (base, files, generations) = {
        let mut live = lock(&shared.live);
        if live.state != IndexState::Ready || live.fallback.is_some() {
            return true;
        }
        // The file on disk is newer than this process's base: adopt it first (the next call
        // starts that); a damaged base is removed so that no process loads it again.
        if live.data_id.is_some() && shared.store.on_disk() != live.data_id && !rebuild {
            return false;
        }
        if rebuild && let Some(id) = live.data_id {
            shared.store.discard(writer, id);
        }
        live.refresh(shared);
        if live.fallback.is_some() {
            return true;
        }
        let base = Arc::clone(&live.data);
        // Started for files that were not old enough: none left to read as vouched for.
        if !rebuild && !base.damaged() && !upkeep::merge_still_due(&mut live) {
            return true;
        }
        let changed = live.table.unindexed.len();
        let total = base.postings.sections_len().max(1);
        let rebuild = rebuild
            || base.damaged()
            || (base.dead_sections() + changed) * 100 >= total * REBUILD_FROM_PERCENT;
        let table = &live.table;
        let (files, generations) = if rebuild {
            snapshot(table.files.iter())
        } else {
            snapshot(
                table
                    .unindexed
                    .iter()
                    .filter_map(|p| table.files.get_key_value(p)),
            )
        };
        let base = if rebuild {
            Arc::new(Data::empty())
        } else {
            base
        };
        (base, files, generations)
    };
    let (built, status) = read_postings(shared, &files);
    if shared.stop.load(Ordering::Relaxed) {
        return true;
    }
    let shift = base.docs_len() as u32;
    let read = Read {
        files: &files,
        generations: &generations,
        status: &status,
        built: &built,
    };
    let Some(Ok((data, id))) = write_current(shared, writer, &base, &read) else {
        return false;
    };
    drop(built);
    let mut live = lock(&shared.live);
    if live.state != IndexState::Ready || shared.stop.load(Ordering::Relaxed) {
        return true;
    }
    // Events that arrived while reading are applied first, so their files keep no document.
    live.refresh(shared);
    if live.fallback.is_some() {
        return true;
    }
    let Live { table, .. } = &mut *live;
    if shift == 0 {
        // A rebuild: documents of the old base mean nothing in the new one.
        table.set_docs(|_, _| None);
    }
    give_documents(table, &files, &generations, &status, shift);
    keep_named_documents(table, &data);
    live.data = Arc::new(data);
    live.data_id = id;
    live.merges += 1;
    took_base(&mut live);
    shared.revision.fetch_add(1, Ordering::SeqCst);
    true
}
