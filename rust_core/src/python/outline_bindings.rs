//! The bodies of `Engine`'s outline methods (the methods, in `python.rs`'s one `#[pymethods]`
//! block, hand over to these), their argument checks, and the outline worker's entry point.

use std::ffi::OsString;
use std::sync::Arc;

use pyo3::prelude::*;

use super::{invalid_argument, run_detached};
use crate::budget::CancelToken;
use crate::grep::{self, GrepOptions};
use crate::index::WarmIndex;
use crate::outline::definitions::{self, DefinitionsOptions, DefinitionsOutput, NameMatch};
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

/// `Engine.definitions`: the definitions whose name matches, on an engine thread; the
/// candidates come from the engine's own grep (the warm index's when there is one).
pub(super) fn definitions(
    py: Python<'_>,
    (workspace, index, outliner): (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    arguments: DefinitionsArguments,
    cancel: CancelToken,
) -> PyResult<DefinitionsOutput> {
    let options = definitions_options(py, arguments, &cancel)?;
    let workspace = Arc::clone(workspace);
    let index = index.clone();
    let outliner = Arc::clone(outliner);
    run_detached(py, &cancel, move || {
        let search = |grep_options: &GrepOptions| match &index {
            Some(index) => index.grep(grep_options),
            None => grep::grep(&workspace, grep_options),
        };
        definitions::definitions(&workspace, &outliner, &options, &search)
    })
}

/// `Engine.references`: the references to a name, on an engine thread; the candidates come
/// from the engine's own grep (the warm index's when there is one).
pub(super) fn references(
    py: Python<'_>,
    (workspace, index, outliner): (&Arc<Workspace>, &Option<Arc<WarmIndex>>, &Arc<Outliner>),
    arguments: ReferencesArguments,
    cancel: CancelToken,
) -> PyResult<ReferencesOutput> {
    let options = references_options(py, arguments, &cancel)?;
    let workspace = Arc::clone(workspace);
    let index = index.clone();
    let outliner = Arc::clone(outliner);
    run_detached(py, &cancel, move || {
        let search = |grep_options: &GrepOptions| match &index {
            Some(index) => index.grep(grep_options),
            None => grep::grep(&workspace, grep_options),
        };
        references::references(&workspace, &outliner, &options, &search)
    })
}

/// `Engine.references`' arguments as Python gave them.
pub(super) struct ReferencesArguments {
    pub name: String,
    pub path: Option<OsString>,
    pub glob: Option<Vec<String>>,
    pub roles: Vec<String>,
    pub kinds: Vec<String>,
    pub group_by: String,
    pub limit: Option<usize>,
    pub offset: usize,
}

/// The engine's options for `arguments`; an unknown role, kind or grouping is an
/// `InvalidArgumentError` naming the choices.
fn references_options(
    py: Python<'_>,
    arguments: ReferencesArguments,
    cancel: &CancelToken,
) -> PyResult<ReferencesOptions> {
    let Some(group_by) = Grouping::from_name(&arguments.group_by) else {
        return Err(invalid_argument(
            py,
            format!(
                "group_by must be one of {}, not {:?}.",
                Grouping::NAMES.join(", "),
                arguments.group_by
            ),
        ));
    };
    let roles = arguments
        .roles
        .iter()
        .map(|role| {
            Role::from_name(role).ok_or_else(|| {
                invalid_argument(
                    py,
                    format!(
                        "role must be one of {}, not {role:?}.",
                        Role::NAMES.join(", ")
                    ),
                )
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(ReferencesOptions {
        name: arguments.name,
        path: arguments.path,
        glob: arguments.glob.unwrap_or_default(),
        roles,
        kinds: kinds_of(py, &arguments.kinds)?,
        group_by,
        limit: arguments.limit,
        offset: arguments.offset,
        cancel: cancel.clone(),
    })
}

/// The kinds named in `kinds`; an unknown one is an `InvalidArgumentError` naming the choices.
fn kinds_of(py: Python<'_>, kinds: &[String]) -> PyResult<Vec<SymbolKind>> {
    kinds
        .iter()
        .map(|kind| {
            SymbolKind::from_name(kind).ok_or_else(|| {
                invalid_argument(
                    py,
                    format!(
                        "kind must be one of {}, not {kind:?}.",
                        SymbolKind::NAMES.join(", ")
                    ),
                )
            })
        })
        .collect()
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

/// `Engine.definitions`' arguments as Python gave them.
pub(super) struct DefinitionsArguments {
    pub name: String,
    pub matching: String,
    pub path: Option<OsString>,
    pub glob: Option<Vec<String>>,
    pub kinds: Vec<String>,
    pub limit: Option<usize>,
    pub offset: usize,
}

/// The engine's options for `arguments`; an unknown `matching` or kind is an
/// `InvalidArgumentError` naming the choices.
fn definitions_options(
    py: Python<'_>,
    arguments: DefinitionsArguments,
    cancel: &CancelToken,
) -> PyResult<DefinitionsOptions> {
    let Some(matching) = NameMatch::from_name(&arguments.matching) else {
        return Err(invalid_argument(
            py,
            format!(
                "matching must be one of {}, not {:?}.",
                NameMatch::NAMES.join(", "),
                arguments.matching
            ),
        ));
    };
    let kinds = kinds_of(py, &arguments.kinds)?;
    Ok(DefinitionsOptions {
        name: arguments.name,
        matching,
        path: arguments.path,
        glob: arguments.glob.unwrap_or_default(),
        kinds,
        limit: arguments.limit,
        offset: arguments.offset,
        cancel: cancel.clone(),
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
