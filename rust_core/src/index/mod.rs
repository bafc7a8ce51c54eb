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
//! The parts, bottom up: `postings` (the n-gram index) and `plan` (regex to trigram query);
//! `watch` (inotify), `source` (the walker and the opens), `table` (the live table); `live`
//! (the state calls share, and the watcher's changes applied to it), `persist` (the on-disk
//! copy), `build` (the first build and the re-index); `query` (grep from the index) and `list`
//! (glob from the table); this module, the [`WarmIndex`] that calls them.
//!
//! Threads: one builds the table and the index (the build itself uses the workspace's thread
//! count), one re-indexes in the background after many changes; a grep with many candidates
//! searches them on scoped threads. `close()` (or dropping the index) stops and joins them and
//! closes the watcher.

mod accounting;
mod build;
mod excludes;
mod list;
mod live;
mod persist;
mod plan;
mod postings;
mod query;
mod source;
mod table;
mod watch;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::CoreError;
use crate::glob::{self, GlobOptions, GlobOutput};
use crate::grep::{self, GrepOptions, GrepOutput};
use crate::workspace::Workspace;

pub use live::IndexState;
use live::{Data, Live, Shared, lock};
use table::Table;
use watch::Limits;

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

impl WarmIndex {
    /// Starts building the index of `workspace` in the background.
    pub fn start(workspace: &Workspace, options: IndexOptions) -> WarmIndex {
        let shared = Arc::new(Shared {
            workspace: workspace.clone(),
            live: Mutex::new(Live::building()),
            ready: Condvar::new(),
            stop: AtomicBool::new(false),
            revision: AtomicU64::new(1),
            limits: Limits::from_env(),
            warm_calls: AtomicU64::new(0),
            cold_calls: AtomicU64::new(0),
            index_dir: options.index_dir,
        });
        let index = WarmIndex {
            shared: Arc::clone(&shared),
            threads: Mutex::new(Vec::new()),
        };
        let spawned = std::thread::Builder::new()
            .name("ripsight-index".into())
            .spawn(move || build::build(&shared));
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
            .spawn(move || build::reindex(&shared));
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
        warm.unwrap_or_else(|| glob::glob(&self.shared.workspace, options))
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
        query::grep(workspace, live, options, deadline, started)
    }

    /// The warm answer, or `None` when the cold engine must answer.
    fn warm_glob(&self, options: &GlobOptions) -> Option<Result<GlobOutput, CoreError>> {
        let started = Instant::now();
        let workspace = &self.shared.workspace;
        let deadline = workspace.deadline_with(&options.cancel);
        let live = self.answering()?;
        list::glob(workspace, live, options, deadline, started)
    }
}

impl Drop for WarmIndex {
    fn drop(&mut self) {
        self.close();
    }
}
