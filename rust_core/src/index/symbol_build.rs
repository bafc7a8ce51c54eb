//! The symbol index's life: after the first build of the table (and the n-gram index), the
//! symbol file on disk is loaded when there is a valid one; else, under its writer's lock, this
//! process parses every file with a parser in the outline workers (on the workspace's threads)
//! and writes it; else (another process holds the lock) it waits for that one. Until it is
//! ready, and for every directory it cannot answer, `find_references` and `find_definitions`
//! parse their candidates cold.
//!
//! A damaged, truncated, foreign or other-version file fails its checks at load (every section
//! is checksummed, and checked at open) and is rebuilt, never read; a builder killed midway
//! leaves only a temporary file, which the next holder of the lock deletes (`store`).
//!
//! Afterwards it is kept as the n-gram base is (`build`), by background jobs that calls start
//! (`WarmIndex::symbols_answering`), one at a time, with the same store, lock and atomic
//! replacement:
//! - a merge, once the overlay has grown by [`super::REFRESH_SYMBOLS_AFTER_CHANGED_FILES`]
//!   files since the file was taken: the files changed since are parsed, and a new file is
//!   written from the old file's records of the others and the new parses (`symbols::write`);
//!   past [`super::upkeep::REBUILD_FROM_PERCENT`] of the files, every file is parsed again;
//! - an adoption, when another process replaced the file: it is mapped in place of this one's.
//!
//! Meanwhile the calls answer from the old file and the overlay; the new file replaces it under
//! the live state's lock, and each of its records answers only while fresh, as any file's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::outline::definitions::{Parsedness, may_have_parser, outline_one};
use crate::outline::outliner::Outliner;
use crate::outline::parse::Parsed;
use crate::walker::thread_count;

use super::live::{Live, Shared, lock};
use super::overlay::overlay;
use super::store::{FileId, Lock};
use super::symbol_state::SymbolPhase;
use super::symbols::{self, Builder, Input, Outcome, Status, Symbols};
use super::table::{now_ns, vouches};
use super::unvouched::Unvouched;
use super::upkeep::{self, REBUILD_FROM_PERCENT, RETRY_AFTER, wait_until_vouched};

/// Set to `0` in the environment, no symbol index is kept (references and definitions parse
/// their candidates cold): for a host that wants the n-gram index's memory alone.
pub const SYMBOLS_ENV: &str = "RIPSIGHT_SYMBOLS";

/// Whether the environment leaves the symbol index on.
pub fn symbols_enabled() -> bool {
    std::env::var_os(SYMBOLS_ENV).is_none_or(|v| v != "0")
}

/// Files parsed between two checks of `stop` (and folded into the tables in path order, while
/// the next ones parse).
const BUILD_CHUNK_FILES: usize = 256;

/// How often a process waiting for another's symbol build looks for the file.
const WAIT_FOR_BUILDER: Duration = Duration::from_millis(100);

/// What a background job of the symbol index does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SymbolJob {
    /// Parses the files changed since the file and writes a new one (see the module doc).
    Merge,
    /// Maps the file another process wrote.
    Adopt,
}

/// Puts `data` (with the identity of its file) in place of the symbol file `live` answers from,
/// counts the files of the overlay it could not parse, and notes those it records without
/// vouching for them (a merge parses them again, see `upkeep`).
fn install(shared: &Shared, live: &mut Live, data: Symbols, id: Option<FileId>) {
    let data = Arc::new(data);
    live.symbols.data = Some(Arc::clone(&data));
    live.symbols.id = id;
    live.symbols.phase = SymbolPhase::Ready;
    live.symbols.overlay = None;
    live.symbols.maps.clear();
    let revision = shared.revision.load(Ordering::SeqCst);
    let paths = overlay(live, revision, &data);
    live.symbols.overlay_after = paths
        .iter()
        .filter(|path| {
            let stored = data.file_index(path).and_then(|k| data.file(k));
            let meta = live.table.files.get(path.as_str()).map(|e| e.meta);
            stored.is_some_and(|f| f.status == Status::Unparsed && Some(f.meta) == meta)
        })
        .count();
    let records = (0..data.files_len())
        .filter_map(|k| data.file(k))
        .map(|f| (f.path, f.meta, f.trusted));
    let parsed = |path: &str| may_have_parser(std::ffi::OsStr::new(path));
    live.symbols.unvouched = Unvouched::of(records, &live.table, parsed);
}

/// Builds or loads the symbol index of `shared`'s tree (in the index's build thread, once the
/// table is ready).
pub(super) fn build(shared: &Shared, outliner: &Outliner) {
    let started = Instant::now();
    let store = shared.store.symbols(symbols::CONTENT);
    lock(&shared.live).symbols.phase = SymbolPhase::Waiting;
    let set = |data: Symbols, id: Option<FileId>, loaded: bool| {
        let mut live = lock(&shared.live);
        install(shared, &mut live, data, id);
        live.symbols.loaded = loaded;
        live.symbols.build_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    };
    let fail = |reason: String| {
        let mut live = lock(&shared.live);
        live.symbols.phase = SymbolPhase::Failed;
        live.symbols.failure = Some(reason);
    };
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        if let Some((data, id)) = store.load_as::<Symbols>() {
            return set(data, Some(id), true);
        }
        if !shared.build {
            return fail(
                "there is no valid symbol file for this tree (and no build was asked for)".into(),
            );
        }
        if let Some(writer) = store.try_lock() {
            if let Some((data, id)) = store.load_as::<Symbols>() {
                return set(data, Some(id), true);
            }
            lock(&shared.live).symbols.phase = SymbolPhase::Building;
            let Some(builder) = parse_all(shared, outliner) else {
                return;
            };
            match save(shared, &writer, &builder) {
                Ok((data, id)) => return set(data, id, false),
                Err(e) => return fail(format!("the symbol index could not be written: {e}")),
            }
        }
        std::thread::sleep(WAIT_FOR_BUILDER);
    }
}

/// Writes `builder`'s file under `writer` and maps it (the writer's stall, a test limit,
/// comes first: see `watch::Limits`).
fn save(
    shared: &Shared,
    writer: &Lock,
    builder: &Builder,
) -> std::io::Result<(Symbols, Option<FileId>)> {
    let store = shared.store.symbols(symbols::CONTENT);
    let key = store.key().to_vec();
    let stall = shared.limits.stall_write_ms;
    let write = |out: &mut dyn super::store::Sink| {
        let out = builder.write(out, &key)?;
        if let Some(ms) = stall {
            std::thread::sleep(Duration::from_millis(ms));
        }
        std::io::Write::flush(out)
    };
    store.save_as::<Symbols>(writer, &write)
}

/// A file to parse: its path, its identity in the table, and whether that vouched for its
/// contents when taken.
type ToParse = (String, crate::boundary::FileIdentity, bool);

/// Parses every file of the table that may have a parser, in path order; `None` when the index
/// was closed meanwhile.
fn parse_all(shared: &Shared, outliner: &Outliner) -> Option<Builder> {
    let now = now_ns();
    let files: Vec<ToParse> = {
        let live = lock(&shared.live);
        live.table
            .files
            .iter()
            .filter(|(path, _)| may_have_parser(std::ffi::OsStr::new(path.as_str())))
            .map(|(path, entry)| (path.clone(), entry.meta, vouches(&entry.meta, now)))
            .collect()
    };
    shared
        .symbol_total
        .store(files.len() as u64, Ordering::Relaxed);
    shared.symbol_parsed.store(0, Ordering::Relaxed);
    let mut builder = Builder::default();
    parse(shared, outliner, &files, &mut |input| builder.add(input))?;
    builder.set_manifests(manifests(shared));
    Some(builder)
}

/// A manifest's bytes read at most (a `package.json` or `go.mod` past it is left unread).
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;

/// The tree's manifests, by path: the `package.json` and `go.mod` files that say which file a
/// JavaScript package or a Go module's import names (`resolve`), each read whole when it holds
/// at most [`MAX_MANIFEST_BYTES`] of UTF-8.
fn manifests(shared: &Shared) -> std::collections::HashMap<String, String> {
    let paths = manifest_paths(&lock(&shared.live));
    paths
        .into_iter()
        .filter_map(|path| read_manifest(&shared.workspace, &path).map(|text| (path, text)))
        .collect()
}

/// The paths of the tree's manifests (`package.json`, `go.mod`) in the table.
pub(super) fn manifest_paths(live: &Live) -> Vec<String> {
    live.table
        .files
        .keys()
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or_default();
            name == "package.json" || name == "go.mod"
        })
        .cloned()
        .collect()
}

/// The text of the manifest at `path`, when it holds at most [`MAX_MANIFEST_BYTES`] of UTF-8.
pub(super) fn read_manifest(workspace: &crate::workspace::Workspace, path: &str) -> Option<String> {
    let cancel = crate::budget::CancelToken::new();
    let read = crate::raw::read_bytes(
        workspace,
        std::ffi::OsStr::new(path),
        MAX_MANIFEST_BYTES,
        &cancel,
    )
    .ok()?;
    if read.too_large {
        return None;
    }
    String::from_utf8(read.data.0).ok()
}

/// Parses `files` on the workspace's threads, handing each one's outcome to `each` in their
/// order; `None` when the index was closed meanwhile.
fn parse(
    shared: &Shared,
    outliner: &Outliner,
    files: &[ToParse],
    each: &mut dyn FnMut(Input),
) -> Option<()> {
    let workspace = &shared.workspace;
    let threads = thread_count(workspace).max(1);
    let keep = |_: &crate::outline::source::Source, parsed: Arc<Parsed>| parsed;
    // The chunk parsed last, folded into the tables while the next one parses.
    let mut parsed: Vec<Input> = Vec::new();
    for chunk in files.chunks(BUILD_CHUNK_FILES) {
        if shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        let next = AtomicUsize::new(0);
        let slots: Vec<std::sync::Mutex<Option<Parsedness<Arc<Parsed>>>>> =
            chunk.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, _, _)) = chunk.get(i) else {
                    break;
                };
                crate::background::give_way(&|| shared.stop.load(Ordering::Relaxed));
                let path = std::ffi::OsStr::new(path.as_str());
                let outcome = outline_one(workspace, outliner, path, true, &keep);
                *lock(&slots[i]) = Some(outcome);
                shared.symbol_parsed.fetch_add(1, Ordering::Relaxed);
            }
        };
        // The fold runs on this thread, which holds the tables (their memory stays in one
        // allocator arena).
        std::thread::scope(|scope| {
            for _ in 0..threads.min(chunk.len()) {
                crate::threads::spawn_or_run(scope, work);
            }
            std::mem::take(&mut parsed).into_iter().for_each(&mut *each);
        });
        parsed = chunk
            .iter()
            .zip(slots)
            .map(|((path, meta, trusted), slot)| Input {
                path: path.clone(),
                meta: *meta,
                trusted: *trusted,
                outcome: match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    Some(Parsedness::Outlined { kept, language, .. }) => {
                        Outcome::Parsed(language, kept)
                    }
                    Some(Parsedness::Skipped) => Outcome::NoParser,
                    Some(Parsedness::Unparsed(..)) | Some(Parsedness::NotReached) | None => {
                        Outcome::Unparsed
                    }
                },
            })
            .collect();
    }
    parsed.into_iter().for_each(&mut *each);
    Some(())
}

/// Runs `job` in the background; clears `SymbolState::refreshing` when done.
pub(super) fn background(shared: &Shared, outliner: &Outliner, job: SymbolJob) {
    let done = match job {
        SymbolJob::Adopt => adopt(shared),
        SymbolJob::Merge => match shared.store.symbols(symbols::CONTENT).try_lock() {
            Some(writer) => merge(shared, outliner, &writer),
            None => false,
        },
    };
    let mut live = lock(&shared.live);
    live.symbols.refreshing = false;
    live.symbols.retry_after = (!done).then(|| Instant::now() + RETRY_AFTER);
}

/// True when the file another process wrote was adopted (or there is nothing left to do).
fn adopt(shared: &Shared) -> bool {
    let Some((data, id)) = shared.store.symbols(symbols::CONTENT).load_as::<Symbols>() else {
        return false;
    };
    let mut live = lock(&shared.live);
    if live.symbols.phase != SymbolPhase::Ready || shared.stop.load(Ordering::Relaxed) {
        return true;
    }
    install(shared, &mut live, data, Some(id));
    live.symbols.adoptions += 1;
    true
}

/// What a merge does with one file of the table, in path order.
enum Step {
    /// Copies the old file's record `k`.
    Keep(u32),
    /// Adds the next file parsed.
    Parse,
}

/// A merge (or a rebuild) under the symbol file's writer lock; false when it could not run.
fn merge(shared: &Shared, outliner: &Outliner, writer: &Lock) -> bool {
    // Files changed within the trust margin would be recorded as not vouched for, and stay in
    // the overlay: wait (briefly) until they are older, as the n-gram merge does.
    let newest = {
        let mut live = lock(&shared.live);
        let Some(data) = live.symbols.data.clone() else {
            return true;
        };
        let revision = shared.revision.load(Ordering::SeqCst);
        let paths = overlay(&mut live, revision, &data);
        paths
            .iter()
            .filter_map(|p| live.table.files.get(p))
            .map(|e| e.meta.ctime_ns)
            .max()
    };
    wait_until_vouched(shared, newest);
    let (base, steps, files) = {
        let mut live = lock(&shared.live);
        if live.symbols.phase != SymbolPhase::Ready || live.fallback.is_some() {
            return true;
        }
        // Another process replaced the file: adopt it first (the next call starts that).
        if live.symbols.id.is_some()
            && shared.store.symbols(symbols::CONTENT).on_disk() != live.symbols.id
        {
            return false;
        }
        live.refresh(shared);
        if live.fallback.is_some() {
            return true;
        }
        let Some(base) = live.symbols.data.clone() else {
            return true;
        };
        let revision = shared.revision.load(Ordering::SeqCst);
        let grown = overlay(&mut live, revision, &base).len();
        // Started for files that were not old enough: none left to parse as vouched for.
        if !upkeep::symbol_merge_still_due(&mut live, grown) {
            return true;
        }
        let (steps, files) = plan(&live, &base);
        (base, steps, files)
    };
    let total = steps.len().max(1);
    let builder = if files.len() * 100 >= total * REBUILD_FROM_PERCENT {
        parse_all(shared, outliner)
    } else {
        let mut parsed = Vec::with_capacity(files.len());
        let done = parse(shared, outliner, &files, &mut |input| parsed.push(input));
        done.map(|()| {
            let mut builder = Builder::merging(base);
            let mut parsed = parsed.into_iter();
            for step in steps {
                match step {
                    Step::Keep(k) => {
                        builder.add_stored(k);
                    }
                    Step::Parse => {
                        if let Some(input) = parsed.next() {
                            builder.add(input);
                        }
                    }
                }
            }
            builder.set_manifests(manifests(shared));
            builder
        })
    };
    let Some(builder) = builder else {
        return true;
    };
    let Ok((data, id)) = save(shared, writer, &builder) else {
        return false;
    };
    drop(builder);
    let mut live = lock(&shared.live);
    if live.symbols.phase != SymbolPhase::Ready || shared.stop.load(Ordering::Relaxed) {
        return true;
    }
    install(shared, &mut live, data, id);
    live.symbols.merges += 1;
    true
}

/// Which files of the table a merge keeps from `base` (recorded with their identity now, and
/// vouched for then) and which it parses, in path order.
fn plan(live: &Live, base: &Symbols) -> (Vec<Step>, Vec<ToParse>) {
    let now = now_ns();
    let (mut steps, mut files) = (Vec::new(), Vec::new());
    let mut k = 0u32;
    for (path, entry) in &live.table.files {
        if !may_have_parser(std::ffi::OsStr::new(path.as_str())) {
            continue;
        }
        while base.file(k).is_some_and(|f| f.path < path.as_str()) {
            k += 1;
        }
        let kept = base.file(k).is_some_and(|f| {
            // A file it could not parse is kept so too: it stays in the overlay either way.
            f.path == path.as_str() && f.meta == entry.meta && f.trusted
        });
        if kept {
            steps.push(Step::Keep(k));
        } else {
            steps.push(Step::Parse);
            files.push((path.clone(), entry.meta, vouches(&entry.meta, now)));
        }
    }
    (steps, files)
}
