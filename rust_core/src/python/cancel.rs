//! `CancelToken` as Python sees it, and the token each call runs with.

use pyo3::prelude::*;

use crate::budget::CancelToken;

/// The token of one call: the caller's, or a fresh one (still cancelled by Ctrl-C).
pub(super) fn call_token(cancel: Option<&CancelToken>) -> CancelToken {
    cancel.cloned().unwrap_or_default()
}

#[pymethods]
impl CancelToken {
    #[new]
    fn py_new() -> CancelToken {
        CancelToken::new()
    }

    /// Stops every call made with this token (it then raises `CancelledError`).
    #[pyo3(name = "cancel")]
    fn py_cancel(&self) {
        self.cancel();
    }

    /// True once `cancel()` was called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.is_cancelled()
    }

    /// Files searched so far by the calls made with this token (readable while they run).
    #[getter(files_searched)]
    fn py_files_searched(&self) -> u64 {
        CancelToken::files_searched(self)
    }

    /// A token sharing this one's cancellation and count whose calls count their time budget
    /// from now: calls made with it one after the other share one budget.
    #[pyo3(name = "start_clock")]
    fn py_start_clock(&self) -> CancelToken {
        self.start_clock()
    }

    fn __repr__(&self) -> String {
        format!("CancelToken(cancelled={})", self.is_cancelled())
    }
}
