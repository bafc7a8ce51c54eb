//! The warm index of one workspace ([`WarmIndex`]): it starts the builds, reports its state,
//! applies the watcher's changes at the start of every call and says whether it can answer
//! (starting the background jobs that are due), and answers from its tables: grep's and
//! glob's candidates ([`CandidateSource`]), and the navigation calls from the symbol index.
//! Which calls it answers is for `route` to ask: it answers, or says that the cold engine must.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::candidates::{CandidateSource, GlobAsk, GrepAsk, Listed, ListedFiles};
use crate::error::CoreError;
use crate::outline::calls::{CallsOptions, CallsResult};
use crate::outline::definitions::{DefinitionsOptions, DefinitionsOutput};
use crate::outline::map::MapGraph;
use crate::outline::outliner::Outliner;
use crate::outline::references::{ReferencesOptions, ReferencesOutput};
use crate::workspace::Workspace;

use super::build::{self, Job};
use super::live::{Data, IndexMode, IndexState, Live, Shared, lock};
use super::symbol_build::{self, SymbolJob};
use super::symbol_state::{self, SymbolPhase};
use super::table::Table;
use super::watch::Limits;
use super::{list, map_graph, navigate, overlay, query, store, symbols, upkeep};

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
        /// Size of the index file (posting lists, keys, the file table and its paths), mapped
        /// read-only: its pages are the page cache's, shared by every process on the tree.
        pub index_bytes: u64,
        /// Of `index_bytes`, the contents of the small files it holds: a search reads such a
        /// file from the map instead of opening it, while its identity is unchanged.
        pub content_bytes: u64,
        /// Files whose contents the index file holds (as written; a changed one is read from
        /// disk).
        pub content_files: u64,
        /// Where the index file is (`None`: memory only).
        pub index_path: Option<String>,
        /// Files whose current contents the index describes.
        pub indexed_files: u64,
        /// Files every query searches directly (changed since indexing, binary, too large).
        pub unindexed_files: u64,
        /// How the table is kept fresh: a watcher's events, or a re-check at every call.
        pub mode: IndexMode,
        /// Why the table is re-checked rather than watched, if it is.
        pub recheck_reason: Option<String>,
        /// Directories watched.
        pub watched_dirs: u64,
        /// Files with several hard links whose inode is watched (a write through any name is
        /// seen).
        pub watched_files: u64,
        /// Files with several hard links past the watch budget: re-checked at every call.
        pub rechecked_files: u64,
        /// Why the table does not answer although it is built (the cold engine answers), if so.
        pub fallback: Option<String>,
        /// Wall time of the last build in milliseconds.
        pub build_ms: Option<f64>,
        /// Re-walks forced by lost events (overflow) since the start.
        pub rescans: u64,
        /// The index file was loaded (written by an earlier or another process), not built.
        pub loaded: bool,
        /// Index files this process wrote after its first (merges of changed files, rebuilds).
        pub merges: u64,
        /// Index files written by other processes that this one took over.
        pub adoptions: u64,
        /// Calls whose files the table listed (and the index, for grep).
        pub warm_calls: u64,
        /// Calls whose files the walk listed (the table could not; a call that fails its
        /// checks is neither).
        pub cold_calls: u64,
        /// Where the symbol index (references and definitions) is in its life.
        pub symbols: SymbolPhase,
        /// Files its build has parsed so far (of `symbol_files_total`).
        pub symbol_files_parsed: u64,
        /// Files its build parses (every file of the table that may have a parser).
        pub symbol_files_total: u64,
        /// Size of the symbol file (mapped read-only, shared like the index file).
        pub symbol_bytes: u64,
        /// Files with a parser that the symbol file does not describe as they are now (changed
        /// or new since it was written, unparsable, or changed just before it was written):
        /// the navigation calls search them and parse the ones that hold the name directly.
        pub symbol_overlay_files: u64,
        /// The symbol file was loaded (written by an earlier or another process), not built.
        pub symbols_loaded: bool,
        /// Wall time of the symbol index's build (or load) in milliseconds.
        pub symbols_build_ms: Option<f64>,
        /// Why the symbol index could not be built, if so.
        pub symbols_failure: Option<String>,
        /// Symbol files this process wrote after its first (merges of the files changed since,
        /// rebuilds).
        pub symbol_merges: u64,
        /// Symbol files written by other processes that this one took over.
        pub symbol_adoptions: u64,
        /// A background job (a merge, rebuild or adoption of either index) is running.
        pub refreshing: bool,
    }
}

/// How the index is kept.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// The directory of the index file (default: the user's cache directory, see `store`).
    pub index_dir: Option<std::path::PathBuf>,
    /// Keep the index file on disk, shared with every process on the tree (default true);
    /// false keeps it in this process's memory only (unless `index_dir` is given).
    pub persist: bool,
    /// The outliner whose workers parse the tree for the symbol index, built after the table
    /// (`None`: no symbol index; references and definitions parse their candidates cold).
    pub outliner: Option<Arc<Outliner>>,
    /// Build (and merge into) the index files when there are no valid ones (default true);
    /// false only loads the files already there, for a process that is not to spend a build:
    /// without one, calls are answered cold (the index is a fallback, the symbol index failed),
    /// and no merge or rebuild runs in the background.
    pub build: bool,
}

impl Default for IndexOptions {
    fn default() -> IndexOptions {
        IndexOptions {
            index_dir: None,
            persist: true,
            outliner: None,
            build: true,
        }
    }
}

/// The warm index of one workspace.
pub struct WarmIndex {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl WarmIndex {
    /// Starts building the index of `workspace` in the background.
    pub fn start(workspace: &Workspace, options: IndexOptions) -> WarmIndex {
        let mut live = Live::building();
        if options.outliner.is_some() {
            // Its build follows the table's.
            live.symbols.phase = SymbolPhase::Waiting;
        }
        let shared = Arc::new(Shared {
            workspace: workspace.clone(),
            live: Mutex::new(live),
            ready: Condvar::new(),
            stop: AtomicBool::new(false),
            revision: AtomicU64::new(1),
            limits: Limits::from_env(),
            warm_calls: AtomicU64::new(0),
            cold_calls: AtomicU64::new(0),
            store: store::Store::new(workspace, options.index_dir.as_deref(), options.persist),
            outliner: options.outliner,
            build: options.build,
            symbol_parsed: AtomicU64::new(0),
            symbol_total: AtomicU64::new(0),
        });
        let index = WarmIndex {
            shared: Arc::clone(&shared),
            threads: Mutex::new(Vec::new()),
        };
        let spawned = std::thread::Builder::new()
            .name("ripsight-index".into())
            .spawn(move || {
                crate::background::lower_this_thread();
                build::build(&shared);
                if let Some(outliner) = shared.outliner.as_deref().map(Outliner::background) {
                    symbol_build::build(&shared, &outliner);
                }
            });
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
        let mut live = lock(&self.shared.live);
        let revision = self.shared.revision.load(Ordering::SeqCst);
        let symbol_overlay_files = match live.symbols.data.clone() {
            Some(data) => overlay::overlay(&mut live, revision, &data).len() as u64,
            None => 0,
        };
        let state = match live.state {
            IndexState::Ready if live.fallback.is_some() => IndexState::Fallback,
            state => state,
        };
        IndexStatus {
            state,
            files: live.table.files.len() as u64,
            bytes: live.table.bytes,
            index_bytes: live.data.file_bytes(),
            content_bytes: live.data.contents.bytes_len(),
            content_files: live.data.contents.held() as u64,
            index_path: self
                .shared
                .store
                .path()
                .filter(|_| live.data_id.is_some())
                .map(|p| p.display().to_string()),
            indexed_files: (live.table.files.len() - live.table.unindexed.len()) as u64,
            unindexed_files: live.table.unindexed.len() as u64,
            mode: match live.watcher.as_ref().and_then(|w| w.recheck_reason()) {
                Some(_) => IndexMode::Recheck,
                None => IndexMode::Watch,
            },
            recheck_reason: live
                .watcher
                .as_ref()
                .and_then(|w| w.recheck_reason())
                .map(str::to_string),
            watched_dirs: live.watcher.as_ref().map_or(0, |w| w.watches() as u64),
            watched_files: live.watcher.as_ref().map_or(0, |w| w.file_watches() as u64),
            rechecked_files: live.table.linked.len() as u64,
            fallback: live.fallback.clone(),
            build_ms: live.build_ms,
            rescans: live.rescans,
            loaded: live.loaded,
            merges: live.merges,
            adoptions: live.adoptions,
            warm_calls: self.shared.warm_calls.load(Ordering::Relaxed),
            cold_calls: self.shared.cold_calls.load(Ordering::Relaxed),
            symbols: live.symbols.phase,
            symbol_files_parsed: self.shared.symbol_parsed.load(Ordering::Relaxed),
            symbol_files_total: self.shared.symbol_total.load(Ordering::Relaxed),
            symbol_bytes: live.symbols.data.as_ref().map_or(0, |d| d.file_bytes()),
            symbol_overlay_files,
            symbols_loaded: live.symbols.loaded,
            symbols_build_ms: live.symbols.build_ms,
            symbols_failure: live.symbols.failure.clone(),
            symbol_merges: live.symbols.merges,
            symbol_adoptions: live.symbols.adoptions,
            refreshing: live.reindexing || live.symbols.refreshing,
        }
    }

    /// Waits until the symbol index is ready (or failed, or off, or `timeout` passes); true
    /// when it answers.
    pub fn wait_symbols(&self, timeout: Duration) -> bool {
        if self.shared.outliner.is_none() {
            return false;
        }
        let deadline = Instant::now() + timeout;
        loop {
            match lock(&self.shared.live).symbols.phase {
                SymbolPhase::Ready => return true,
                SymbolPhase::Failed => return false,
                SymbolPhase::Off | SymbolPhase::Waiting | SymbolPhase::Building => {}
            }
            if Instant::now() >= deadline || self.shared.stop.load(Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `find_references` from the symbol index (the overlay parsed cold) when it can answer
    /// for the call's directory; `None` for the cold engine.
    pub fn references(
        &self,
        options: &ReferencesOptions,
    ) -> Option<Result<ReferencesOutput, CoreError>> {
        let outliner = self.shared.outliner.clone()?;
        let (live, revision) = self.symbols_answering()?;
        let answer =
            navigate::references(&self.shared.workspace, live, revision, &outliner, options);
        if answer.is_some() {
            // Otherwise the cold search's grep (this index's) counts itself.
            self.count(true);
        }
        answer
    }

    /// `find_calls` from the symbol index (the files defining the name read from it, the
    /// overlay's parsed cold), as [`WarmIndex::references`].
    pub fn calls(&self, options: &CallsOptions) -> Option<Result<CallsResult, CoreError>> {
        let outliner = self.shared.outliner.clone()?;
        let (live, revision) = self.symbols_answering()?;
        let answer = navigate::calls(&self.shared.workspace, live, revision, &outliner, options);
        if answer.is_some() {
            self.count(true);
        }
        answer
    }

    /// `find_definitions` from the symbol index, as [`WarmIndex::references`].
    pub fn definitions(
        &self,
        options: &DefinitionsOptions,
    ) -> Option<Result<DefinitionsOutput, CoreError>> {
        let outliner = self.shared.outliner.clone()?;
        let (live, revision) = self.symbols_answering()?;
        let answer =
            navigate::definitions(&self.shared.workspace, live, revision, &outliner, options);
        if answer.is_some() {
            // Otherwise the cold search's grep (this index's) counts itself.
            self.count(true);
        }
        answer
    }

    /// The symbol graph of the files below `path` (the root by default) for the repository
    /// map: read from the symbol index's tables (each file's definitions and referenced names
    /// with their counts, precomputed at build), the overlay's files parsed cold; `None` when
    /// the symbol index cannot answer (not ready, a single file, a directory the table cannot
    /// answer for). The graph is kept until the tree or the symbol file changes (the last
    /// [`symbol_state::KEPT_MAP_GRAPHS`] directories' graphs), so a warm map draws on it again.
    pub fn symbol_graph(&self, path: Option<&OsStr>) -> Option<Result<Arc<MapGraph>, CoreError>> {
        let outliner = self.shared.outliner.clone()?;
        let (mut live, revision) = self.symbols_answering()?;
        let key = (
            revision,
            live.table.vouched,
            path.unwrap_or_default().to_os_string(),
        );
        let symbols = live.symbols.data.clone();
        if let Some(at) = live.symbols.maps.iter().position(|(k, _)| *k == key) {
            let kept = live.symbols.maps.remove(at);
            let graph = Arc::clone(&kept.1);
            live.symbols.maps.push(kept);
            return Some(Ok(graph));
        }
        let graph = match map_graph::graph(&self.shared.workspace, live, revision, &outliner, path)?
        {
            Ok(graph) => Arc::new(MapGraph::new(graph)),
            Err(error) => return Some(Err(error)),
        };
        let mut live = lock(&self.shared.live);
        // Kept only when drawn from the symbol file still in use (a graph of a replaced one is
        // answered, not kept).
        let same = match (&symbols, &live.symbols.data) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if same {
            let maps = &mut live.symbols.maps;
            maps.retain(|(k, _)| k.0 == revision && k.1 == key.1);
            if maps.len() >= symbol_state::KEPT_MAP_GRAPHS {
                maps.remove(0);
            }
            maps.push((key, Arc::clone(&graph)));
        }
        Some(Ok(graph))
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
        live.data = Arc::new(Data::empty());
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
        // A file truncated under its map is never read again: it counts as damaged (cold
        // answers, and a rebuild replaces it).
        let damaged = live.data.damaged() || !live.data.postings.intact();
        let due = live.retry_after.is_none_or(|t| Instant::now() >= t);
        if self.shared.build && !live.reindexing && due {
            let on_disk = self.shared.store.on_disk();
            if damaged {
                self.start_job(&mut live, Job::Rebuild);
            } else if on_disk.is_some() && on_disk != live.data_id {
                self.start_job(&mut live, Job::Adopt);
            } else if upkeep::merge_due(&mut live) {
                self.start_job(&mut live, Job::Merge);
            }
        }
        if damaged {
            return None;
        }
        Some(live)
    }

    /// [`WarmIndex::answering`] for the symbol index's calls, with the revision (read under the
    /// lock, after the changes were applied: every bump is made under it); starts the symbol
    /// index's background job when one is due: adopting the file another process wrote, or
    /// merging the overlay (see `upkeep::symbol_merge_due`).
    fn symbols_answering(&self) -> Option<(MutexGuard<'_, Live>, u64)> {
        let mut live = self.answering()?;
        if live.symbols.data.as_ref().is_some_and(|d| !d.intact()) {
            self.rebuild_symbols(&mut live);
        }
        let revision = self.shared.revision.load(Ordering::SeqCst);
        let symbols = &live.symbols;
        let idle = symbols.phase == SymbolPhase::Ready
            && !symbols.refreshing
            && symbols.retry_after.is_none_or(|t| Instant::now() >= t);
        if let (true, Some(data)) = (idle, symbols.data.clone()) {
            let on_disk = self.shared.store.symbols(symbols::CONTENT).on_disk();
            let job = if on_disk.is_some() && on_disk != live.symbols.id {
                Some(SymbolJob::Adopt)
            } else if !self.shared.build {
                None
            } else {
                let grown = overlay::overlay(&mut live, revision, &data).len();
                upkeep::symbol_merge_due(&mut live, grown).then_some(SymbolJob::Merge)
            };
            let outliner = self.shared.outliner.as_deref().map(Outliner::background);
            if let (Some(job), Some(outliner)) = (job, outliner) {
                let shared = Arc::clone(&self.shared);
                let spawned = std::thread::Builder::new()
                    .name("ripsight-symbols".into())
                    .spawn(move || {
                        crate::background::lower_this_thread();
                        symbol_build::background(&shared, &outliner, job)
                    });
                if let Ok(handle) = spawned {
                    live.symbols.refreshing = true;
                    let mut threads = lock(&self.threads);
                    threads.retain(|h| !h.is_finished());
                    threads.push(handle);
                }
            }
        }
        Some((live, revision))
    }

    /// The symbol file was truncated under its map: it is dropped unread (the cold engine
    /// answers) and the symbol index is built again in the background, as at the start (the
    /// file on disk, if another process replaced it, or a new one).
    fn rebuild_symbols(&self, live: &mut Live) {
        let Some(outliner) = self.shared.outliner.as_deref().map(Outliner::background) else {
            return;
        };
        let symbols = &mut live.symbols;
        symbols.data = None;
        symbols.id = None;
        symbols.overlay = None;
        symbols.maps.clear();
        if !self.shared.build {
            // A process that only loads (index_build=False) answers cold from now on.
            symbols.phase = SymbolPhase::Failed;
            symbols.failure = Some("the symbol file was truncated under its map".into());
            return;
        }
        symbols.phase = SymbolPhase::Waiting;
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("ripsight-symbols".into())
            .spawn(move || {
                crate::background::lower_this_thread();
                symbol_build::build(&shared, &outliner)
            });
        match spawned {
            Ok(handle) => {
                let mut threads = lock(&self.threads);
                threads.retain(|h| !h.is_finished());
                threads.push(handle);
            }
            Err(error) => {
                symbols.phase = SymbolPhase::Failed;
                symbols.failure = Some(format!("the symbol index could not be rebuilt: {error}"));
            }
        }
    }

    fn start_job(&self, live: &mut Live, job: Job) {
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("ripsight-reindex".into())
            .spawn(move || {
                crate::background::lower_this_thread();
                build::background(&shared, job)
            });
        if let Ok(handle) = spawned {
            live.reindexing = true;
            let mut threads = lock(&self.threads);
            threads.retain(|h| !h.is_finished());
            threads.push(handle);
        }
    }

    fn count(&self, warm: bool) {
        let counter = if warm {
            &self.shared.warm_calls
        } else {
            &self.shared.cold_calls
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// The drivers of grep ([`crate::grep::search`]) and glob ([`crate::glob::list`]) ask the index
/// which files to read or match: its candidates when the table answers for the searched
/// directory; otherwise the walk answers.
impl CandidateSource for WarmIndex {
    fn grep_candidates(&self, ask: &GrepAsk<'_>) -> Option<Listed> {
        let listed = match ask.dir {
            Some(_) => self.answering().and_then(|live| {
                let respects = self.shared.workspace.options().respect_ignore_files;
                query::candidates(respects, live, ask)
            }),
            None => None,
        };
        self.count(listed.is_some());
        listed
    }

    fn glob_candidates(&self, ask: &GlobAsk<'_>, take: &mut dyn FnMut(ListedFiles<'_>)) -> bool {
        let listed = self.answering().is_some_and(|live| {
            let respects = self.shared.workspace.options().respect_ignore_files;
            list::candidates(respects, live, ask, take)
        });
        self.count(listed);
        listed
    }
}

impl Drop for WarmIndex {
    fn drop(&mut self) {
        self.close();
    }
}
