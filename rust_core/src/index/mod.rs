//! The warm workspace (SPEC §2.8): a live table of the walk and an n-gram index of contents,
//! built in the background, kept fresh by a file watcher drained at the start of every call.
//!
//! The index is one file per tree (`store`: the user's cache directory by default), written by
//! one process under a lock and memory-mapped by every process on the tree (`format`, `memory`,
//! `base`): its pages are the page cache's, not any process's heap. Each process keeps its own
//! table and watcher; the files changed since the file was written (its overlay) are searched
//! directly until a background merge writes a new file with their lists appended, which every
//! process then takes over (`build`).
//!
//! How a call is answered:
//! 1. The watcher's queue is read without blocking and every change is applied to the table
//!    (a changed file loses its index document and is searched directly from then on; a new or
//!    removed directory, or an edited ignore file, re-walks that part of the tree). A queue
//!    overflow re-walks the whole tree and keeps only documents whose file metadata did not
//!    change. Where no watcher exists, or once a watch cannot be added, the table is re-checked
//!    against the tree instead (`recheck`). Files with several hard links are watched by inode
//!    (or re-checked, past the watch budget).
//! 2. If the table cannot answer for the requested directory (still building, a directory the
//!    root walk never entered (ignored, or an explicit path whose real path is outside the
//!    table), a single file, a tree with non-UTF-8 names), the cold engine answers.
//! 3. Otherwise the regex is planned into a trigram query ([`plan`]), the index gives the files
//!    that can match, and exactly those (plus every file the index does not describe) are
//!    listed to the grep driver ([`crate::grep::search`], through [`crate::candidates`]), which
//!    searches them as it searches a walk's; the others are counted as searched without a
//!    match, which is what reading them would give: they are text files whose contents lack a
//!    trigram every match needs. Skip counts come from the table.
//!
//! Answers are therefore the cold engine's, which the tests check on generated trees and the
//! Linux tree (`tests/test_index_answers.py`), and across processes (`tests/test_index_shared.py`).
//!
//! The parts, bottom up: `postings` (the n-gram index: built in memory, written, read in place)
//! and `plan` (regex to trigram query); `format` (the file's checksummed container), `memory`
//! (the map: the one `unsafe` call); `watch` (inotify), `source` (the walker and the opens),
//! `table` (the live table), `recheck` (the table against the tree, without a watcher),
//! `unvouched` (the files an index file records without vouching for them); `base`
//! (an index file read in place), `store` (where it lives, the lock, atomic replacement);
//! `symbol_state` (the symbol index's part of it), `live` (the state calls share, and the
//! changes applied to it); `upkeep` (what the background jobs share), `overlay` (the files the
//! symbol file does not describe as they are now), `build` (the first build, merges, rebuilds,
//! adoption) and `symbol_build` (the same for the symbol index); `query` (grep's candidates
//! from the index) and `list` (glob's from the table); `scope` (what a navigation call may read
//! from the symbol index), `navigate` (`find_references`, `find_definitions`, `find_calls` from
//! it) and `map_graph` (the repository map's graph from it); `warm`, the [`WarmIndex`] that
//! calls them; and `route`, the one place that chooses whether the warm index or the cold
//! engine answers a call ([`references`] and the others).
//!
//! Threads: one builds the table and the index (the build itself uses the workspace's thread
//! count), one merges, rebuilds or adopts in the background; a grep with many candidates
//! searches them on scoped threads. `close()` (or dropping the index) stops and joins them and
//! closes the watcher.

mod accounting;
mod base;
mod bind;
mod bind_overlay;
mod build;
mod excludes;
pub mod files;
mod format;
mod list;
mod live;
mod map_graph;
mod memory;
mod navigate;
mod overlay;
mod plan;
mod postings;
mod query;
mod recheck;
mod resolve;
mod route;
mod scope;
mod source;
mod store;
mod symbol_build;
mod symbol_state;
mod symbols;
mod table;
mod unvouched;
mod upkeep;
mod warm;
mod watch;

pub use live::{IndexMode, IndexState};
pub use route::{calls, candidates, definitions, glob, grep, references, repo_map};
pub use symbol_build::{SYMBOLS_ENV, symbols_enabled};
pub use symbol_state::SymbolPhase;
pub use upkeep::{REFRESH_SYMBOLS_AFTER_CHANGED_FILES, REINDEX_AFTER_CHANGED_FILES};
pub use warm::{IndexOptions, IndexStatus, WarmIndex};
