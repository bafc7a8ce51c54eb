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

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::outline::definitions::{Parsedness, may_have_parser, outline_one};
use crate::outline::outliner::Outliner;
use crate::outline::parse::Parsed;
use crate::walker::thread_count;

use super::live::{Shared, lock};
use super::store::FileId;
use super::symbols::{Builder, Input, Outcome, Symbols};
use super::table::{now_ns, vouches};

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

crate::choice! {
    /// Where the symbol index is in its life.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum SymbolPhase {
        /// No symbol index is kept (the workspace has no outliner for it).
        #[default]
        Off = "off",
        /// Waiting for the table (and the n-gram index), or for another process's build: cold
        /// parsing answers.
        Waiting = "waiting",
        /// Parsing the tree's files: cold parsing answers meanwhile.
        Building = "building",
        /// Built or loaded: references and definitions are answered from it.
        Ready = "ready",
        /// It could not be built or written: cold parsing answers.
        Failed = "failed",
    }
}

/// The symbol index's state, behind `Shared::live`.
#[derive(Default)]
pub(super) struct SymbolState {
    pub(super) phase: SymbolPhase,
    pub(super) data: Option<Arc<Symbols>>,
    pub(super) id: Option<FileId>,
    /// Loaded from disk (written by an earlier or another process), not built here.
    pub(super) loaded: bool,
    pub(super) build_ms: Option<f64>,
    pub(super) failure: Option<String>,
    /// The overlay as last computed, with the table's revision and trust it was computed for.
    pub(super) overlay: Option<Overlay>,
}

/// The overlay's paths, with the table's revision and trust they were computed for.
pub(super) type Overlay = ((u64, bool), Arc<Vec<String>>);

/// Builds or loads the symbol index of `shared`'s tree (in the index's build thread, once the
/// table is ready).
pub(super) fn build(shared: &Shared, outliner: &Outliner) {
    let started = Instant::now();
    let store = shared.store.symbols();
    lock(&shared.live).symbols.phase = SymbolPhase::Waiting;
    let set = |data: Symbols, id: Option<FileId>, loaded: bool| {
        let mut live = lock(&shared.live);
        live.symbols.data = Some(Arc::new(data));
        live.symbols.id = id;
        live.symbols.loaded = loaded;
        live.symbols.phase = SymbolPhase::Ready;
        live.symbols.overlay = None;
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
        if let Some(writer) = store.try_lock() {
            if let Some((data, id)) = store.load_as::<Symbols>() {
                return set(data, Some(id), true);
            }
            lock(&shared.live).symbols.phase = SymbolPhase::Building;
            let Some(builder) = parse_all(shared, outliner) else {
                return;
            };
            let key = store.key().to_vec();
            let write = |out: &mut dyn super::store::Sink| builder.write(out, &key).map(|_| ());
            match store.save_as::<Symbols>(&writer, &write) {
                Ok((data, id)) => return set(data, id, false),
                Err(e) => return fail(format!("the symbol index could not be written: {e}")),
            }
        }
        std::thread::sleep(WAIT_FOR_BUILDER);
    }
}

/// Parses every file of the table that may have a parser, in path order; `None` when the index
/// was closed meanwhile.
fn parse_all(shared: &Shared, outliner: &Outliner) -> Option<Builder> {
    let workspace = &shared.workspace;
    let now = now_ns();
    let files: Vec<(String, crate::boundary::FileIdentity, bool)> = {
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
    let threads = thread_count(workspace).max(1);
    let mut builder = Builder::default();
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
                scope.spawn(work);
            }
            std::mem::take(&mut parsed)
                .into_iter()
                .for_each(|input| builder.add(input));
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
    parsed.into_iter().for_each(|input| builder.add(input));
    Some(builder)
}
