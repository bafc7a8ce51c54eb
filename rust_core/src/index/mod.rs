//! The warm workspace (SPEC §2.8): a live table of the walk and an n-gram index of contents,
//! built in the background, kept fresh by a file watcher drained at the start of every call.
//!
//! How a call is answered:
//! 1. The watcher's queue is read without blocking and every change is applied to the table
//!    (a changed file loses its index document and is searched directly from then on; a new or
//!    removed directory, or an edited ignore file, re-walks that part of the tree). A queue
//!    overflow re-walks the whole tree and keeps only documents whose file metadata did not
//!    change. A watch that cannot be added stops the table from answering.
//! 2. If the table cannot answer for the requested directory (still building, a watch failed,
//!    a directory the root walk never entered (ignored, or an explicit path whose real path is
//!    outside the table), a single file, a tree with non-UTF-8 names), the cold engine answers.
//! 3. Otherwise the regex is planned into a trigram query ([`plan`]), the index gives the files
//!    that can match, and exactly those (plus every file the index does not describe) are
//!    searched by the cold engine's per-file search ([`crate::grep`]); the others are counted as
//!    searched without a match, which is what reading them would give: they are text files whose
//!    contents lack a trigram every match needs. Skip counts come from the table.
//!
//! Answers are therefore the cold engine's, which the tests check on generated trees and the
//! Linux tree (`tests/test_index.py`).
//!
//! Threads: one builds the table and the index (the build itself uses the workspace's thread
//! count), one re-indexes in the background after many changes; a grep with many candidates
//! searches them on scoped threads. `close()` (or dropping the index) stops and joins them and
//! closes the watcher.

mod persist;
mod plan;
mod postings;
mod source;
mod table;
mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::ErrorKind;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crate::budget::Deadline;
use crate::error::CoreError;
use crate::grep::{self, GrepOptions, GrepOutput, GrepWorker, Plan};
use crate::ignore_rules::is_rule_file;
use crate::walk::{
    self, GlobCounts, GlobOptions, GlobOutput, GlobSetup, SortOrder, Target, open_target,
};
use crate::walker::thread_count;
use crate::workspace::{SkipCounts, Workspace};

use plan::Query;
use postings::{Gram, Indexed, Postings, intersect, union};
use table::{FileEntry, Table, below, is_within, parent_of, set_below};
use watch::{Change, Drained, Limits, Watcher};

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

crate::record! {
    "IndexStatus",
    /// What `index_status()` reports.
    #[derive(Clone, Debug, PartialEq)]
    pub struct IndexStatus {
        /// Where the index is in its life.
        pub state: IndexState,
        /// Files in the live table.
        pub files: u64,
        /// Their bytes.
        pub bytes: u64,
        /// Resident size of the n-gram index (posting lists, keys and the document paths).
        pub index_bytes: u64,
        /// Files whose current contents the index describes.
        pub indexed_files: u64,
        /// Files every query searches directly (changed since indexing, binary, too large).
        pub unindexed_files: u64,
        /// Directories watched.
        pub watched_dirs: u64,
        /// Why the table does not answer although it is built (the cold engine answers), if so.
        pub fallback: Option<String>,
        /// Wall time of the last build in milliseconds.
        pub build_ms: Option<f64>,
        /// Re-walks forced by lost events (overflow) since the start.
        pub rescans: u64,
        /// The index was loaded from index_dir (not built).
        pub loaded: bool,
        /// Calls answered from the table (and the index, for grep).
        pub warm_calls: u64,
        /// Calls the cold engine answered.
        pub cold_calls: u64,
    }
}

/// Files a re-index is started for: when this many files have changed since the last build,
/// the next call starts a background re-index.
pub const REINDEX_AFTER_CHANGED_FILES: usize = 512;

/// How the index is kept.
#[derive(Clone, Debug, Default)]
pub struct IndexOptions {
    /// A directory for the on-disk copy: loaded (and checked against the tree) instead of a
    /// rebuild, written after every build.
    pub index_dir: Option<std::path::PathBuf>,
}

/// The warm index of one workspace.
pub struct WarmIndex {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

struct Shared {
    workspace: Workspace,
    live: Mutex<Live>,
    ready: Condvar,
    stop: AtomicBool,
    revision: AtomicU64,
    limits: Limits,
    warm_calls: AtomicU64,
    cold_calls: AtomicU64,
    options: IndexOptions,
}

/// The index data: postings and each document's path.
struct Data {
    postings: Postings,
    paths: Vec<String>,
}

impl Data {
    fn resident_bytes(&self) -> u64 {
        self.postings.resident_bytes()
            + self
                .paths
                .iter()
                .map(|p| (p.capacity() + std::mem::size_of::<String>()) as u64)
                .sum::<u64>()
    }
}

struct Live {
    state: IndexState,
    table: Table,
    watcher: Option<Watcher>,
    data: Arc<Data>,
    fallback: Option<String>,
    build_ms: Option<f64>,
    rescans: u64,
    reindexing: bool,
    /// Files the last build could not index (binary, too large): not changes.
    unindexed_after_build: usize,
    loaded: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

impl WarmIndex {
    /// Starts building the index of `workspace` in the background.
    pub fn start(workspace: &Workspace, options: IndexOptions) -> WarmIndex {
        let shared = Arc::new(Shared {
            workspace: workspace.clone(),
            live: Mutex::new(Live {
                state: IndexState::Building,
                table: Table::default(),
                watcher: None,
                data: Arc::new(Data {
                    postings: Postings::default(),
                    paths: Vec::new(),
                }),
                fallback: None,
                build_ms: None,
                rescans: 0,
                reindexing: false,
                unindexed_after_build: 0,
                loaded: false,
            }),
            ready: Condvar::new(),
            stop: AtomicBool::new(false),
            revision: AtomicU64::new(1),
            limits: Limits::from_env(),
            warm_calls: AtomicU64::new(0),
            cold_calls: AtomicU64::new(0),
            options,
        });
        let index = WarmIndex {
            shared: Arc::clone(&shared),
            threads: Mutex::new(Vec::new()),
        };
        let spawned = std::thread::Builder::new()
            .name("ripsight-index".into())
            .spawn(move || build(&shared));
        match spawned {
            Ok(handle) => lock(&index.threads).push(handle),
            Err(error) => {
                let mut live = lock(&index.shared.live);
                live.state = IndexState::Ready;
                live.fallback = Some(format!("the index thread did not start: {error}"));
                index.shared.ready.notify_all();
            }
        }
        index
    }

    /// What the index holds now.
    pub fn status(&self) -> IndexStatus {
        let live = lock(&self.shared.live);
        let state = match live.state {
            IndexState::Ready if live.fallback.is_some() => IndexState::Fallback,
            state => state,
        };
        IndexStatus {
            state,
            files: live.table.files.len() as u64,
            bytes: live.table.bytes,
            index_bytes: live.data.resident_bytes(),
            indexed_files: (live.table.files.len() - live.table.unindexed.len()) as u64,
            unindexed_files: live.table.unindexed.len() as u64,
            watched_dirs: live.watcher.as_ref().map_or(0, |w| w.watches() as u64),
            fallback: live.fallback.clone(),
            build_ms: live.build_ms,
            rescans: live.rescans,
            loaded: live.loaded,
            warm_calls: self.shared.warm_calls.load(Ordering::Relaxed),
            cold_calls: self.shared.cold_calls.load(Ordering::Relaxed),
        }
    }

    /// Waits until the first build is done (or `timeout` passes); true when ready.
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut live = lock(&self.shared.live);
        loop {
            match live.state {
                IndexState::Ready | IndexState::Fallback => return true,
                IndexState::Closed => return false,
                IndexState::Building => {}
            }
            live = match deadline {
                None => self
                    .shared
                    .ready
                    .wait(live)
                    .unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    self.shared
                        .ready
                        .wait_timeout(live, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }

    /// A number that changes whenever the tree does. While the table cannot tell (building,
    /// fallback), every read returns a new number.
    pub fn revision(&self) -> u64 {
        let mut live = lock(&self.shared.live);
        if live.state == IndexState::Ready && live.fallback.is_none() {
            live.refresh(&self.shared);
            if live.fallback.is_none() {
                return self.shared.revision.load(Ordering::SeqCst);
            }
        }
        self.shared.revision.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Stops the background threads and the watcher. Later calls use the cold engine.
    pub fn close(&self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let handles: Vec<JoinHandle<()>> = lock(&self.threads).drain(..).collect();
        for handle in handles {
            let _ = handle.join();
        }
        let mut live = lock(&self.shared.live);
        live.state = IndexState::Closed;
        live.watcher = None;
        live.table = Table::default();
        live.data = Arc::new(Data {
            postings: Postings::default(),
            paths: Vec::new(),
        });
        self.shared.ready.notify_all();
    }

    /// Locks the live state, applies pending changes, and returns it when it can answer.
    fn answering(&self) -> Option<MutexGuard<'_, Live>> {
        let mut live = lock(&self.shared.live);
        if live.state != IndexState::Ready || live.fallback.is_some() {
            return None;
        }
        live.refresh(&self.shared);
        if live.fallback.is_some() {
            return None;
        }
        if live.table.unindexed.len() >= live.unindexed_after_build + REINDEX_AFTER_CHANGED_FILES
            && !live.reindexing
        {
            self.start_reindex(&mut live);
        }
        Some(live)
    }

    fn start_reindex(&self, live: &mut Live) {
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("ripsight-reindex".into())
            .spawn(move || reindex(&shared));
        if let Ok(handle) = spawned {
            live.reindexing = true;
            let mut threads = lock(&self.threads);
            threads.retain(|h| !h.is_finished());
            threads.push(handle);
        }
    }

    /// `grep` answered from the table and the index when they can, else by the cold engine.
    pub fn grep(&self, options: &GrepOptions) -> Result<GrepOutput, CoreError> {
        let warm = self.warm_grep(options);
        self.count(warm.is_some());
        warm.unwrap_or_else(|| grep::grep(&self.shared.workspace, options))
    }

    /// `glob` answered from the table when it can, else by the cold engine.
    pub fn glob(&self, options: &GlobOptions) -> Result<GlobOutput, CoreError> {
        let warm = self.warm_glob(options);
        self.count(warm.is_some());
        warm.unwrap_or_else(|| walk::glob(&self.shared.workspace, options))
    }

    fn count(&self, warm: bool) {
        let counter = if warm {
            &self.shared.warm_calls
        } else {
            &self.shared.cold_calls
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The warm answer, or `None` when the cold engine must answer.
    fn warm_grep(&self, options: &GrepOptions) -> Option<Result<GrepOutput, CoreError>> {
        let started = Instant::now();
        let workspace = &self.shared.workspace;
        let deadline = workspace.deadline_with(&options.cancel);
        let live = self.answering()?;
        // The same opens and checks, in the same order, as the cold engine's.
        let target = match open_target(workspace, options.path.as_deref().unwrap_or_default()) {
            Ok((target, _)) => target,
            Err(error) => return Some(Err(error)),
        };
        let (matcher, filter) = match grep::prepare(workspace, options) {
            Ok(prepared) => prepared,
            Err(error) => return Some(Err(error)),
        };
        // A single file is searched cold (one open either way).
        let Target::Dir(start) = target else {
            return None;
        };
        let scope = String::from_utf8(start.relative).ok()?;
        if !live.table.answers_for(&scope) {
            return None;
        }
        let query = plan::plan(&options.pattern, options.literal, options.case_insensitive);
        let data = Arc::clone(&live.data);
        let docs = evaluate(&query, &data.postings, !options.multiline);
        let mut candidates: Vec<String> = Vec::new();
        let mut unread = 0u64;
        match (&docs, &filter) {
            (Some(docs), None) => {
                // Only the index's candidates and the files it does not describe.
                let mut in_scope = 0u64;
                for &doc in docs {
                    let Some(path) = data.paths.get(doc as usize) else {
                        continue;
                    };
                    if !is_within(path, &scope) || path == &scope {
                        continue;
                    }
                    if live
                        .table
                        .files
                        .get(path)
                        .is_some_and(|e| e.doc == Some(doc))
                    {
                        candidates.push(path.clone());
                        in_scope += 1;
                    }
                }
                let mut unindexed = 0u64;
                for path in set_below(&live.table.unindexed, &scope) {
                    candidates.push(path.clone());
                    unindexed += 1;
                }
                if options.multiline {
                    // A multiline search passes over a file this large as `too_large` even when
                    // the index proves it match-free: it is searched, so it is counted alike.
                    for (path, entry) in below(&live.table.files, &scope) {
                        if let Some(doc) = entry.doc
                            && entry.meta.size > grep::MAX_LINE_BYTES as u64
                            && docs.binary_search(&doc).is_err()
                        {
                            candidates.push(path.clone());
                            in_scope += 1;
                        }
                    }
                }
                let files = if scope.is_empty() {
                    live.table.files.len() as u64
                } else {
                    below(&live.table.files, &scope).count() as u64
                };
                unread = files - unindexed - in_scope;
            }
            _ => {
                for (path, entry) in below(&live.table.files, &scope) {
                    if let Some(filter) = &filter {
                        let name = path.rsplit('/').next().unwrap_or(path);
                        if !filter.admits(path.as_bytes(), name.as_bytes()) {
                            continue;
                        }
                    }
                    let passed_over_anyway =
                        options.multiline && entry.meta.size > grep::MAX_LINE_BYTES as u64;
                    match (entry.doc, &docs) {
                        (Some(doc), Some(docs))
                            if docs.binary_search(&doc).is_err() && !passed_over_anyway =>
                        {
                            unread += 1;
                        }
                        _ => candidates.push(path.clone()),
                    }
                }
            }
        }
        let skipped = live.table.skips_below(&scope);
        drop(live);
        candidates.sort_unstable();
        let plan = Plan::new(options, filter.as_ref(), &deadline);
        let (workers, more_skipped, incomplete) =
            search_files(workspace, &plan, &matcher, &deadline, &candidates);
        let mut skipped = skipped;
        skipped.add(&more_skipped);
        // The cold engine's page assembly: bounded text, far pages fetched again, and
        // `Cancelled` when the token was cancelled.
        Some(grep::finish(
            workspace, &plan, &matcher, workers, skipped, unread, incomplete, started,
        ))
    }

    /// The warm answer, or `None` when the cold engine must answer.
    fn warm_glob(&self, options: &GlobOptions) -> Option<Result<GlobOutput, CoreError>> {
        let started = Instant::now();
        let workspace = &self.shared.workspace;
        let deadline = workspace.deadline_with(&options.cancel);
        let live = self.answering()?;
        let setup = match GlobSetup::new(workspace, options) {
            Ok((setup, _start)) => setup,
            Err(error) => return Some(Err(error)),
        };
        let scope = std::str::from_utf8(&setup.search).ok()?;
        let start_rel = std::str::from_utf8(&setup.searched).ok()?.to_string();
        if !live.table.answers_for(scope) || !live.table.answers_for(&start_rel) {
            return None;
        }
        let entries: Vec<(&String, &FileEntry)> = below(&live.table.files, &start_rel).collect();
        let threads = if entries.len() >= PARALLEL_GLOB_FROM_ENTRIES {
            thread_count(workspace).clamp(1, MAX_GLOB_THREADS)
        } else {
            1
        };
        // Contiguous runs of the table, one per thread; their matches are merged in order.
        let run_length = entries.len().div_ceil(threads).max(1);
        let parts: Vec<GlobPart> = if threads == 1 {
            vec![match_entries(&entries, &setup, &deadline)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = entries
                    .chunks(run_length)
                    .map(|run| scope.spawn(|| match_entries(run, &setup, &deadline)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or(GlobPart {
                            incomplete: true,
                            ..GlobPart::default()
                        })
                    })
                    .collect()
            })
        };
        let mut counts = GlobCounts::default();
        let limit = options.limit.unwrap_or(usize::MAX);
        let mut paths = Vec::new();
        let mut by_time = Vec::new();
        let mut incomplete = false;
        for (number, part) in parts.iter().enumerate() {
            counts.in_scope += part.in_scope;
            counts.anywhere_total += part.anywhere;
            incomplete |= part.incomplete;
            for &at in &part.matched {
                let (path, entry) = entries[number * run_length + at];
                counts.total += 1;
                match options.sort {
                    SortOrder::Path => {
                        if counts.total > options.offset as u64 && paths.len() < limit {
                            paths.push(OsString::from(path));
                        }
                    }
                    SortOrder::Modified => {
                        by_time.push((std::cmp::Reverse(entry.meta.modified()), path));
                    }
                }
            }
        }
        if options.sort == SortOrder::Modified {
            by_time.sort_unstable();
            paths = by_time
                .into_iter()
                .skip(options.offset)
                .take(limit)
                .map(|(_, p)| OsString::from(p))
                .collect();
        }
        let skipped = live.table.skips_below(&start_rel);
        drop(live);
        if deadline.cancelled() {
            return Some(Err(CoreError::Cancelled));
        }
        Some(Ok(setup.output(
            options, paths, counts, skipped, incomplete, started,
        )))
    }
}

impl Drop for WarmIndex {
    fn drop(&mut self) {
        self.close();
    }
}

/// A warm glob looks at the deadline once per this many table entries.
const DEADLINE_EVERY_ENTRIES: usize = 1024;

/// A warm glob over at least this many table entries matches them on the workspace's threads
/// (a thread costs tens of µs to start; matching 4,096 paths about 150 µs).
const PARALLEL_GLOB_FROM_ENTRIES: usize = 4096;

/// Threads a warm glob uses at most.
const MAX_GLOB_THREADS: usize = 8;

/// What one thread of a warm glob found in its run of table entries.
#[derive(Default)]
struct GlobPart {
    /// Entries looked at.
    in_scope: u64,
    /// Entries the slash-free pattern matches anywhere.
    anywhere: u64,
    /// Indices (within the run) of the entries the pattern matches, in order.
    matched: Vec<usize>,
    /// The deadline passed before the run's end.
    incomplete: bool,
}

/// Matches `entries` against the glob of `setup`.
fn match_entries(
    entries: &[(&String, &FileEntry)],
    setup: &GlobSetup,
    deadline: &Deadline,
) -> GlobPart {
    let mut part = GlobPart::default();
    for (at, (path, _)) in entries.iter().enumerate() {
        // The clock and the token are read once per this many entries (a few µs of work).
        if at % DEADLINE_EVERY_ENTRIES == 0 && deadline.expired() {
            part.incomplete = true;
            break;
        }
        part.in_scope += 1;
        let in_search = &path[setup.search_prefix..];
        if let Some(anywhere) = &setup.anywhere
            && anywhere.is_match(in_search)
        {
            part.anywhere += 1;
        }
        if setup.matcher.is_match(in_search) {
            part.matched.push(at);
        }
    }
    part
}

/// Candidates a search thread takes at a time.
const CHUNK_FILES: usize = 16;

/// Candidate files at or above this number are searched on the workspace's threads.
const PARALLEL_FROM_FILES: usize = 48;

/// Searches `candidates` with the cold engine's per-file search; returns the workers, the skips
/// they counted and whether the time budget ran out.
fn search_files<'a>(
    workspace: &Workspace,
    plan: &'a Plan<'a>,
    matcher: &'a grep_regex::RegexMatcher,
    deadline: &Deadline,
    candidates: &[String],
) -> (Vec<GrepWorker<'a>>, SkipCounts, bool) {
    let threads = if candidates.len() >= PARALLEL_FROM_FILES {
        thread_count(workspace).min(candidates.len()).max(1)
    } else {
        1
    };
    let next = AtomicUsize::new(0);
    let incomplete = AtomicBool::new(false);
    let run = || {
        let mut worker = GrepWorker::new(plan, matcher);
        let mut skipped = SkipCounts::default();
        let mut opener = source::Opener::default();
        'chunks: loop {
            // Runs of neighbours in path order, so that one thread's files share directories.
            let first = next.fetch_add(CHUNK_FILES, Ordering::Relaxed);
            let Some(chunk) = candidates.get(first..(first + CHUNK_FILES).min(candidates.len()))
            else {
                break;
            };
            if chunk.is_empty() {
                break;
            }
            for path in chunk {
                if deadline.expired() {
                    incomplete.store(true, Ordering::Relaxed);
                    break 'chunks;
                }
                if let Some(file) = opener.open_counted(workspace, path, &mut skipped) {
                    worker.search(file, path.as_bytes(), &mut skipped);
                }
                if worker.stopped() {
                    // The deadline passed (or the call was cancelled) inside this file.
                    incomplete.store(true, Ordering::Relaxed);
                    break 'chunks;
                }
            }
        }
        (worker, skipped)
    };
    let results: Vec<(GrepWorker<'a>, SkipCounts)> = if threads == 1 {
        vec![run()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        })
    };
    let mut skipped = SkipCounts::default();
    let mut workers = Vec::new();
    for (worker, s) in results {
        skipped.add(&s);
        workers.push(worker);
    }
    (workers, skipped, incomplete.into_inner())
}

/// The documents satisfying `query`, sorted; `None` for all. When every match lies within one
/// line (`within_lines`), one section of a document must satisfy the whole query (sections end
/// at line ends); otherwise the document as a whole must.
fn evaluate(query: &Query, postings: &Postings, within_lines: bool) -> Option<Vec<u32>> {
    // The entries holding `gram`, among the sorted `among` when given.
    let leaf = |gram: Gram, among: Option<&[u32]>| {
        if within_lines {
            postings.sections_among(gram, among)
        } else {
            let documents = postings.documents_of(&postings.sections(gram));
            match among {
                Some(among) => intersect(among, &documents),
                None => documents,
            }
        }
    };
    let found = satisfying(query, postings, &leaf)?;
    Some(if within_lines {
        postings.documents_of(&found)
    } else {
        found
    })
}

/// The sorted entries (sections or documents) holding a trigram, among the sorted entries given.
type Leaf<'a> = dyn Fn(Gram, Option<&[u32]>) -> Vec<u32> + 'a;

/// The sorted entries `leaf` gives that satisfy `query`; `None` for all.
fn satisfying(query: &Query, postings: &Postings, leaf: &Leaf<'_>) -> Option<Vec<u32>> {
    /// Once this few candidates are left, further trigrams are not looked up: decoding their
    /// lists would cost more than searching the few files.
    const ENOUGH: usize = 8;
    match query {
        Query::All => None,
        Query::Nothing => Some(Vec::new()),
        Query::Trigram(gram) => Some(leaf(*gram, None)),
        Query::And(parts) => {
            let mut grams: Vec<Gram> = parts
                .iter()
                .filter_map(|p| match p {
                    Query::Trigram(gram) => Some(*gram),
                    _ => None,
                })
                .collect();
            grams.sort_unstable();
            grams.dedup();
            grams.sort_by_key(|g| postings.count(g.key));
            let mut acc: Option<Vec<u32>> = None;
            for gram in grams {
                if acc.as_ref().is_some_and(|a| a.len() <= ENOUGH) {
                    break;
                }
                acc = Some(leaf(gram, acc.as_deref()));
            }
            for part in parts {
                if matches!(part, Query::Trigram(..)) {
                    continue;
                }
                if acc.as_ref().is_some_and(|a| a.is_empty()) {
                    break;
                }
                if let Some(list) = satisfying(part, postings, leaf) {
                    acc = Some(match acc {
                        None => list,
                        Some(a) => intersect(&a, &list),
                    });
                }
            }
            acc
        }
        Query::Or(parts) => {
            let mut acc = Vec::new();
            for part in parts {
                acc = union(&acc, &satisfying(part, postings, leaf)?);
            }
            Some(acc)
        }
    }
}

// ==== Building and keeping the table fresh ====

/// Walks `dir` into `table` and watches every directory it enters. The walk is repeated until
/// it finds no directory that was not watched before it started, so nothing created between a
/// listing and its watch is missed. Errors when a watch cannot be added.
fn scan_subtree(
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

fn build(shared: &Shared) {
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
        .options
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
    let Some(dir) = shared.options.index_dir.as_deref() else {
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
fn reindex(shared: &Shared) {
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

impl Live {
    /// Applies every queued change to the table.
    fn refresh(&mut self, shared: &Shared) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modification_times_round_trip() {
        let meta = crate::boundary::FileIdentity {
            mtime_ns: 1_500_000_000_123,
            ..Default::default()
        };
        let back = meta
            .modified()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        assert_eq!(back, 1_500_000_000_123);
        assert!(now_ns() > 0);
    }
}
