//! The symbol index's state as the calls and its builds share it, behind the live state's lock:
//! where it is in its life ([`SymbolPhase`]), the symbol file it answers from, the overlay as
//! last computed, the repository map's graphs kept between calls, and its background jobs'
//! bookkeeping. The builds that change it are `symbol_build`'s; the calls that read it, the
//! navigation queries (`navigate`, `map_graph`).

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Instant;

use crate::outline::map::MapGraph;

use super::store::FileId;
use super::symbols::Symbols;
use super::unvouched::Unvouched;

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
    /// The files of the overlay when the file was taken that it recorded as unparsable (too
    /// large, a timeout): they stay in the overlay after any merge, so a merge is due when the
    /// overlay holds that many more than these.
    pub(super) overlay_after: usize,
    /// Files of the overlay the symbol file records without vouching for them: a merge is due
    /// for them (see `upkeep`).
    pub(super) unvouched: Unvouched,
    /// A background job (merge, adoption) is running.
    pub(super) refreshing: bool,
    /// Symbol files this process wrote after its first (merges, rebuilds), and adopted from
    /// other processes.
    pub(super) merges: u64,
    pub(super) adoptions: u64,
    /// No background job starts before this (one could not run).
    pub(super) retry_after: Option<Instant>,
    /// The repository map's graphs last drawn from `data`, the latest last (at most
    /// [`KEPT_MAP_GRAPHS`]).
    pub(super) maps: Vec<KeptMap>,
}

/// The graphs of the repository map kept between calls: the tree's and the last subtree's.
pub(super) const KEPT_MAP_GRAPHS: usize = 2;

/// A graph of the repository map, with the directory it is of and the table's revision and
/// trust it was drawn at (any change to the tree moves the revision, so an edited file is in
/// the next call's graph).
pub(super) type KeptMap = ((u64, bool, OsString), Arc<MapGraph>);

/// The overlay's paths, with the table's revision and trust they were computed for.
pub(super) type Overlay = ((u64, bool), Arc<Vec<String>>);
