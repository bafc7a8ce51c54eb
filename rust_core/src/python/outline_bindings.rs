//! The bodies of `Engine`'s outline methods that the engine's index module does not route (the
//! methods, in `python.rs`'s one `#[pymethods]` block, hand over to these; their options are
//! checked in `options.rs`), and the outline worker's entry point.

use std::sync::Arc;

use pyo3::prelude::*;

use super::{invalid_argument, run_detached};
use crate::budget::CancelToken;
use crate::outline::references::Grouping;
use crate::outline::role::Role;
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
