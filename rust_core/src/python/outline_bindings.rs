//! The bodies of `Engine`'s outline methods (the methods, in `python.rs`'s one `#[pymethods]`
//! block, hand over to these; their options are checked in `options.rs`), and the outline
//! worker's entry point.

use std::sync::Arc;

use pyo3::prelude::*;

use super::{candidate_source, invalid_argument, run_detached};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::glob::{self, GlobOptions};
use crate::grep::{self, GrepOptions};
use crate::index::WarmIndex;
use crate::outline::calls::{self, CallsOptions, CallsResult};
use crate::outline::definitions::{self, DefinitionsOptions, DefinitionsOutput};
use crate::outline::map::{self, RepoMapOptions, RepoMapOutput};
use crate::outline::references::{self, Grouping, ReferencesOptions, ReferencesOutput};
use crate::outline::refs::Role;
use crate::outline::{self, OutlineOptions, OutlineOutput, Outliner, SymbolKind, worker};
use crate::workspace::Workspace;

/// `Engine.outline`: one file's outline, on an engine thread.
pub(super) fn outline(
    py: Python<'_>,
    workspace: &Arc<Workspace>,
    outliner: &Arc<Outliner>,
    options: OutlineOptions,
) -> PyResult<OutlineOutput> {
    let cancel = options.cancel.clone();
    let workspace = Arc::clone(workspace);
    let outliner = Arc::clone(outliner);
    run_detached(py, &cancel, move || {
        outline::outline(&workspace, &outliner, &options)
    })
}

/// The engine's own grep, as a search over its candidates takes it.
type Grep<'a> = &'a (dyn Fn(&GrepOptions) -> Result<grep::GrepOutput, CoreError> + Sync);
/// A search over the files grep finds (`definitions::definitions`, `references::references`).
type CandidateSearch<O, T> = fn(&Workspace, &Outliner, &O, Grep<'_>) -> Result<T, CoreError>;

/// The same search answered by the symbol index (`None`: the cold engine answers).
type IndexedSearch<O, T> = fn(&WarmIndex, &O) -> Option<Result<T, CoreError>>;

/// Runs a search on an engine thread: from the warm index's symbol index when it answers, else
/// over the files the engine's own grep finds (the warm index's when there is one):
/// `definitions` and `references` pick their candidates so.
fn with_candidates<O, T>(
    py: Python<'_>,
    (workspace, index, outliner): (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    options: O,
    cancel: CancelToken,
    search: CandidateSearch<O, T>,
    indexed: IndexedSearch<O, T>,
) -> PyResult<T>
where
    O: Send + 'static,
    T: Send + 'static,
{
    let workspace = Arc::clone(workspace);
    let index = index.clone();
    let outliner = Arc::clone(outliner);
    run_detached(py, &cancel, move || {
        if let Some(answer) = index.as_deref().and_then(|index| indexed(index, &options)) {
            return answer;
        }
        let grep = |grep_options: &GrepOptions| {
            grep::search(&workspace, grep_options, candidate_source(&index))
        };
        search(&workspace, &outliner, &options, &grep)
    })
}

/// `Engine.definitions`: the definitions whose name matches, from the symbol index when it
/// answers, else in the grep's candidates.
pub(super) fn definitions(
    py: Python<'_>,
    sources: (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    options: DefinitionsOptions,
) -> PyResult<DefinitionsOutput> {
    let cancel = options.cancel.clone();
    let (cold, warm) = (definitions::definitions, WarmIndex::definitions);
    with_candidates(py, sources, options, cancel, cold, warm)
}

/// `Engine.references`: the references to a name, from the symbol index when it answers, else
/// in the grep's candidates.
pub(super) fn references(
    py: Python<'_>,
    sources: (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    options: ReferencesOptions,
) -> PyResult<ReferencesOutput> {
    let cancel = options.cancel.clone();
    let (cold, warm) = (references::references, WarmIndex::references);
    with_candidates(py, sources, options, cancel, cold, warm)
}

/// `Engine.calls`: what the definitions of a name call, from the symbol index when it answers,
/// else in the grep's candidates.
pub(super) fn calls(
    py: Python<'_>,
    sources: (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    options: CallsOptions,
) -> PyResult<CallsResult> {
    let cancel = options.cancel.clone();
    with_candidates(py, sources, options, cancel, calls::calls, WarmIndex::calls)
}

/// `Engine.repo_map`: the map of a subtree, its files listed by the engine's own glob (the
/// warm index's when there is one) and parsed cold, on an engine thread.
pub(super) fn repo_map(
    py: Python<'_>,
    (workspace, index, outliner): (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    options: RepoMapOptions,
) -> PyResult<RepoMapOutput> {
    let cancel = options.cancel.clone();
    let workspace = Arc::clone(workspace);
    let index = index.clone();
    let outliner = Arc::clone(outliner);
    run_detached(py, &cancel, move || {
        let started = std::time::Instant::now();
        let indexed = index
            .as_deref()
            .and_then(|index| index.symbol_graph(options.path.as_deref()));
        if let Some(graph) = indexed {
            return map::repo_map_of_graph(&*graph?, &options, started);
        }
        let list = |glob_options: &GlobOptions| {
            glob::list(&workspace, glob_options, candidate_source(&index))
        };
        map::repo_map(&workspace, &outliner, &options, &list)
    })
}

/// `Engine._outline_fault`: a fault request to a worker, and how it ended ("answered", or the
/// refusal a parse would get).
pub(super) fn fault(py: Python<'_>, outliner: &Arc<Outliner>, fault: &str) -> PyResult<String> {
    let operation = fault_operation(py, fault)?;
    let outliner = Arc::clone(outliner);
    run_detached(py, &CancelToken::new(), move || {
        Ok(match outliner.fault(operation) {
            Ok(_) => "answered".to_string(),
            Err(failure) => failure.refusal.name().to_string(),
        })
    })
}

/// The worker operation of a test fault's name.
fn fault_operation(py: Python<'_>, fault: &str) -> PyResult<u8> {
    match fault {
        "abort" => Ok(worker::FAULT_ABORT),
        "spin" => Ok(worker::FAULT_SPIN),
        "sleep" => Ok(worker::FAULT_SLEEP),
        "memory" => Ok(worker::FAULT_MEMORY),
        "exit" => Ok(worker::FAULT_EXIT),
        other => Err(invalid_argument(
            py,
            format!("no fault {other:?}: abort, spin, sleep, memory or exit."),
        )),
    }
}

/// Adds the worker's entry point and the names of kinds and languages to the module.
pub(super) fn add_to_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(serve_outline_worker, m)?)?;
    let names = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    m.add("SYMBOL_KINDS", names(SymbolKind::NAMES))?;
    m.add("OUTLINE_LANGUAGES", names(outline::Language::NAMES))?;
    m.add("REFERENCE_ROLES", names(Role::NAMES))?;
    m.add("REFERENCE_GROUPINGS", names(Grouping::NAMES))?;
    Ok(())
}

/// The outline worker's main (`python -I ripsight/_outline_worker.py` calls it): limits this
/// process, then answers parse requests on standard input until it closes. Returns the exit
/// status.
#[pyfunction]
fn serve_outline_worker(py: Python<'_>) -> i32 {
    match py.detach(worker::serve_stdio) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
