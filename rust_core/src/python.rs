//! The PyO3 bindings: the only code that knows Python exists.
//!
//! The engine's result structs are the Python classes (`python/records.rs` adds their methods);
//! engine errors become the exception classes of `python/errors.rs`. Each method takes its
//! keyword arguments as one dict and makes them the engine's options struct once
//! (`python/options.rs`: one default and one check per option), runs the engine on an engine thread while the calling thread
//! waits with the GIL released and answers Ctrl-C (see [`run_detached`]), then hands the result
//! struct to Python as it is.

mod cache_bindings;
mod call_thread;
mod cancel;
mod errors;
mod options;
mod outline_bindings;
mod path_rules;
mod records;

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::budget::CancelToken;
use crate::candidates::CandidateSource;
use crate::error::CoreError;
use crate::glob::{self, GlobOutput};
use crate::grep::{self, GrepOptions, GrepOutput};
use crate::index::{IndexOptions, IndexState, IndexStatus, WarmIndex};
use crate::limits::{LIMITS, Limit};
use crate::media::image::{self, ImageOptions, ImageOutput};
use crate::media::notebook::{self, NotebookImages, NotebookOptions, NotebookOutput};
use crate::media::pdf::{PdfRead, PdfReader};
use crate::outline::calls::{CallsOptions, CallsResult};
use crate::outline::definitions::{DefinitionsOptions, DefinitionsOutput};
use crate::outline::map::{RepoMapOptions, RepoMapOutput};
use crate::outline::references::{ReferencesOptions, ReferencesOutput};
use crate::outline::{OutlineOptions, OutlineOutput, Outliner};
use crate::raw::{self, FileBytes};
use crate::read::{self, Identified, ReadOptions, ReadOutput};
use crate::truncate;
use crate::workspace::Workspace;
use cancel::call_token;
use errors::{Class, new_error};
use options::{BytesOptions, EngineOptions, NotebookImagesOptions};

/// An `InvalidArgumentError` with `message`.
fn invalid_argument(py: Python<'_>, message: String) -> PyErr {
    new_error(py, Class::InvalidArgument, message, &[])
}

/// How often a waiting call looks for Python signals (Ctrl-C): well under the 100 ms a
/// `KeyboardInterrupt` may take, and rare enough to cost nothing measurable.
const SIGNAL_POLL: Duration = Duration::from_millis(20);
/// After a signal, how long the call waits for the engine to notice its cancelled token before
/// raising anyway (the engine's threads then stop on their own).
const STOP_WAIT: Duration = Duration::from_millis(40);

/// The message of a Rust panic caught at the binding.
fn panic_detail(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

type Outcome<T> = std::thread::Result<Result<T, CoreError>>;

/// The engine's candidate source for a search, its warm index when it has one (the search
/// asks it which files to read, and walks when it cannot tell).
fn candidate_source(index: &Option<Arc<WarmIndex>>) -> Option<&dyn CandidateSource> {
    index.as_deref().map(|index| index as &dyn CandidateSource)
}

/// Runs `work` on this thread's engine thread (see `call_thread`) while this thread, with the GIL released, waits for it and
/// looks for Python signals every [`SIGNAL_POLL`]. A signal whose handler raises (Ctrl-C:
/// `KeyboardInterrupt`) cancels `cancel`, so every loop of the engine stops, and the exception
/// is raised at once; a `cancel` cancelled by another thread raises `CancelledError` as soon.
/// Engine errors and panics become Python exceptions.
fn run_detached<T, F>(py: Python<'_>, cancel: &CancelToken, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, CoreError> + Send + 'static,
{
    let (sender, receiver) = crossbeam_channel::bounded::<Outcome<T>>(1);
    let spawned = call_thread::submit(Box::new(move || {
        let outcome = catch_unwind(AssertUnwindSafe(work));
        // The caller may have gone (interrupted): nothing to deliver then.
        let _ = sender.send(outcome);
    }));
    if let Err(error) = spawned {
        return Err(new_error(
            py,
            Class::Engine,
            format!("could not start an engine thread: {error}"),
            &[],
        ));
    }
    let outcome = loop {
        match py.detach(|| receiver.recv_timeout(SIGNAL_POLL)) {
            Ok(outcome) => break outcome,
            Err(RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    cancel.cancel();
                    let _ = py.detach(|| receiver.recv_timeout(STOP_WAIT));
                    return Err(signal);
                }
                if cancel.is_cancelled() {
                    // Cancelled by another thread: the engine stops at its next check, but one
                    // regex search of one file cannot be interrupted. Answer now unless it
                    // finishes at once; the engine thread ends on its own.
                    match py.detach(|| receiver.recv_timeout(STOP_WAIT)) {
                        Ok(outcome) => break outcome,
                        Err(_) => return Err(PyErr::from(CoreError::Cancelled)),
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                break Err(Box::new("the engine thread ended without an answer"));
            }
        }
    };
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(PyErr::from(error)),
        Err(panic) => Err(new_error(
            py,
            Class::Engine,
            format!(
                "internal error in the ripsight engine ({}); this is a bug.",
                panic_detail(panic)
            ),
            &[],
        )),
    }
}

/// One workspace root with its policy; all methods release the GIL.
#[pyclass(frozen, module = "ripsight._core")]
pub struct Engine {
    workspace: Arc<Workspace>,
    /// The warm index (SPEC §2.8), when asked for.
    index: Option<Arc<WarmIndex>>,
    /// The outline workers and cache of the worker command given (shared by every engine of
    /// the process that gives the same command).
    outliner: Arc<Outliner>,
    /// The PDF workers of the worker command given (shared as the outliner is).
    pdfs: Arc<PdfReader>,
}

#[pymethods]
impl Engine {
    /// `options`: the workspace's and the index's (see `options::ENGINE`).
    #[new]
    #[pyo3(signature = (root, /, *, outline_worker = None, pdf_worker = None, **options))]
    fn new(
        py: Python<'_>,
        root: OsString,
        outline_worker: Option<Vec<OsString>>,
        pdf_worker: Option<Vec<OsString>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let EngineOptions {
            workspace: workspace_options,
            index,
            index_options,
        } = options::options("Engine", options::ENGINE, options)?;
        let workspace = run_detached(py, &CancelToken::new(), move || {
            Workspace::new(&root, workspace_options)
        })?;
        let outliner = Outliner::shared(outline_worker.clone().unwrap_or_default());
        // The symbol index parses in the outline workers: kept when there are workers to run
        // (and the environment does not turn it off).
        let index_options = IndexOptions {
            outliner: outline_worker
                .is_some_and(|command| !command.is_empty() && crate::index::symbols_enabled())
                .then(|| Arc::clone(&outliner)),
            ..index_options
        };
        let index = index.then(|| Arc::new(WarmIndex::start(&workspace, index_options)));
        Ok(Engine {
            workspace: Arc::new(workspace),
            index,
            outliner,
            pdfs: PdfReader::shared(pdf_worker.unwrap_or_default()),
        })
    }

    /// The warm index's state, `None` without one.
    fn index_status(&self, py: Python<'_>) -> Option<IndexStatus> {
        let index = Arc::clone(self.index.as_ref()?);
        Some(py.detach(move || index.status()))
    }

    /// Waits for the first build (at most `timeout` seconds); true when the index is ready.
    #[pyo3(signature = (timeout = None))]
    fn wait_index(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let Some(index) = &self.index else {
            return Ok(false);
        };
        let timeout = match timeout {
            Some(t) if t.is_finite() && t >= 0.0 => Some(Duration::from_secs_f64(t)),
            Some(t) => {
                return Err(invalid_argument(
                    py,
                    format!("timeout must be a non-negative number of seconds or None, got {t}"),
                ));
            }
            None => None,
        };
        let started = std::time::Instant::now();
        loop {
            // Waits in slices so that Ctrl-C is seen as quickly as by the other calls.
            let wait = timeout.map_or(SIGNAL_POLL, |t| {
                t.saturating_sub(started.elapsed()).min(SIGNAL_POLL)
            });
            let waiting = Arc::clone(index);
            if py.detach(move || waiting.wait(Some(wait))) {
                return Ok(true);
            }
            if timeout.is_some_and(|t| started.elapsed() >= t) {
                return Ok(false);
            }
            py.check_signals()?;
            if index.status().state == IndexState::Closed {
                return Ok(false);
            }
        }
    }

    /// Changes whenever the tree does; `None` without an index.
    #[getter]
    fn revision(&self, py: Python<'_>) -> Option<u64> {
        let index = Arc::clone(self.index.as_ref()?);
        Some(py.detach(move || index.revision()))
    }

    /// Stops the index's threads and watcher; the engine answers cold from then on.
    fn close(&self, py: Python<'_>) {
        if let Some(index) = &self.index {
            let index = Arc::clone(index);
            py.detach(move || index.close());
        }
    }

    /// The canonical root directory.
    #[getter]
    fn root(&self) -> String {
        self.workspace.root().display().to_string()
    }

    /// `pattern`: one glob or several; `options`: see `options::GLOB`.
    #[pyo3(signature = (pattern, /, *, cancel = None, **options))]
    fn glob(
        &self,
        py: Python<'_>,
        pattern: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<GlobOutput> {
        let cancel = call_token(cancel);
        let mut options = options::options("glob", options::GLOB, options)?;
        options::glob_patterns(&mut options, pattern)?;
        options.cancel = cancel.clone();
        let workspace = Arc::clone(&self.workspace);
        let index = self.index.clone();
        run_detached(py, &cancel, move || {
            glob::list(&workspace, &options, candidate_source(&index))
        })
    }

    /// `options`: see `options::GREP`.
    #[pyo3(signature = (pattern, /, *, cancel = None, **options))]
    fn grep(
        &self,
        py: Python<'_>,
        pattern: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<GrepOutput> {
        let cancel = call_token(cancel);
        let options = GrepOptions {
            pattern: options::text("pattern", pattern)?,
            cancel: cancel.clone(),
            ..options::options("grep", options::GREP, options)?
        };
        let workspace = Arc::clone(&self.workspace);
        let index = self.index.clone();
        run_detached(py, &cancel, move || {
            grep::search(&workspace, &options, candidate_source(&index))
        })
    }

    /// Opens `path` as `read_file` would (boundary, deny rules, regular files only) and returns
    /// the opened file's identity without reading it.
    #[pyo3(signature = (path, /, *, cancel = None))]
    fn identify(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
    ) -> PyResult<Identified> {
        let path = options::path("path", path)?;
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || read::identify(&workspace, &path))
    }

    /// `options`: see `options::READ_FILE`.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn read_file(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ReadOutput> {
        let cancel = call_token(cancel);
        let options = ReadOptions {
            path: options::path("path", path)?,
            cancel: cancel.clone(),
            ..options::options("read_file", options::READ_FILE, options)?
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || read::read_file(&workspace, &options))
    }

    // -- outlines and definitions (crate::outline) ---------------------------------------------

    /// `options`: see `options::OUTLINE`.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn outline(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<OutlineOutput> {
        let options = OutlineOptions {
            path: options::path("path", path)?,
            cancel: call_token(cancel),
            ..options::options("outline", options::OUTLINE, options)?
        };
        outline_bindings::outline(py, &self.workspace, &self.outliner, options)
    }

    /// `options`: see `options::DEFINITIONS`.
    #[pyo3(signature = (name, /, *, cancel = None, **options))]
    fn definitions(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<DefinitionsOutput> {
        let options = DefinitionsOptions {
            name: options::text("name", name)?,
            cancel: call_token(cancel),
            ..options::options("definitions", options::DEFINITIONS, options)?
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::definitions(py, sources, options)
    }

    #[pyo3(signature = (name, /, *, cancel = None, **options))]
    fn references(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ReferencesOutput> {
        let options = ReferencesOptions {
            name: options::text("name", name)?,
            cancel: call_token(cancel),
            ..options::options("references", options::REFERENCES, options)?
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::references(py, sources, options)
    }

    #[pyo3(signature = (name, /, *, cancel = None, **options))]
    fn calls(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<CallsResult> {
        let options = CallsOptions {
            name: options::text("name", name)?,
            cancel: call_token(cancel),
            ..options::options("calls", options::CALLS, options)?
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::calls(py, sources, options)
    }

    /// `options`: see `options::REPO_MAP`.
    #[pyo3(signature = (*, cancel = None, **options))]
    fn repo_map(
        &self,
        py: Python<'_>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<RepoMapOutput> {
        let options = RepoMapOptions {
            cancel: call_token(cancel),
            ..options::options("repo_map", options::REPO_MAP, options)?
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::repo_map(py, sources, options)
    }

    /// Test hook: sends a fault request ("abort", "spin", "sleep", "memory", "exit") to an
    /// outline worker of this engine's pool and says how it ended ("answered", or the refusal
    /// a parse would get: "crashed", "deadline"...). The tests use it to prove that a worker
    /// that crashes, loops or runs out of memory costs its caller one answer.
    fn _outline_fault(&self, py: Python<'_>, fault: &str) -> PyResult<String> {
        outline_bindings::fault(py, &self.outliner, fault)
    }

    /// Forgets the cached outlines of this engine's worker command (benchmarks measure
    /// uncached calls with it).
    fn clear_outline_cache(&self, py: Python<'_>) {
        let outliner = Arc::clone(&self.outliner);
        py.detach(move || outliner.clear_cache());
    }

    /// Outline worker processes this engine's pool has started.
    #[getter]
    fn outline_workers_started(&self) -> u64 {
        self.outliner.workers_started()
    }

    // -- images and notebooks (crate::media) ---------------------------------------------------

    /// `options`: the bounds, see `options::READ_IMAGE`.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn read_image(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ImageOutput> {
        let cancel = call_token(cancel);
        let options = ImageOptions {
            path: options::path("path", path)?,
            cancel: cancel.clone(),
            ..options::options("read_image", options::READ_IMAGE, options)?
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || image::read_image(&workspace, &options))
    }

    /// `options`: see `options::READ_NOTEBOOK`.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn read_notebook(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NotebookOutput> {
        let cancel = call_token(cancel);
        let options = NotebookOptions {
            path: options::path("path", path)?,
            cancel: cancel.clone(),
            ..options::options("read_notebook", options::READ_NOTEBOOK, options)?
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || {
            notebook::read_notebook(&workspace, &options)
        })
    }

    /// The images of cell `cell` (1-based); `options`: see `options::READ_NOTEBOOK_IMAGES`.
    #[pyo3(signature = (path, cell, /, *, cancel = None, **options))]
    fn read_notebook_images(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cell: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NotebookImages> {
        let path = options::path("path", path)?;
        let cell = options::count("cell", cell, 1)?;
        let NotebookImagesOptions { max_bytes, bounds } = options::options(
            "read_notebook_images",
            options::READ_NOTEBOOK_IMAGES,
            options,
        )?;
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || {
            notebook::notebook_images(&workspace, &path, cell, max_bytes, &bounds)
        })
    }

    // -- end of images and notebooks ------------------------------------------------------------

    /// The whole of `path`'s bytes when it holds at most `max_bytes` (else `too_large`, unread);
    /// `options`: see `options::READ_BYTES`.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn read_bytes(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<FileBytes> {
        let path = options::path("path", path)?;
        let BytesOptions { max_bytes } =
            options::options("read_bytes", options::READ_BYTES, options)?;
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        let token = cancel.clone();
        run_detached(py, &cancel, move || {
            raw::read_bytes(&workspace, &path, max_bytes, &token)
        })
    }

    /// The pages of the PDF at `path` (read through the boundary, parsed by a PDF worker);
    /// `options`: see `options::READ_PDF`. What the parser could not do is the record's
    /// `failure`, not an exception.
    #[pyo3(signature = (path, /, *, cancel = None, **options))]
    fn read_pdf(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        cancel: Option<&CancelToken>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PdfRead> {
        let path = options::path("path", path)?;
        let options = options::options("read_pdf", options::READ_PDF, options)?;
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        let pdfs = Arc::clone(&self.pdfs);
        let token = cancel.clone();
        run_detached(py, &cancel, move || {
            pdfs.read(&workspace, &path, &options, &token)
        })
    }

    /// PDF worker processes this engine's pool has started.
    #[getter]
    fn pdf_workers_started(&self) -> u64 {
        self.pdfs.workers_started()
    }

    /// Ends the idle outline and PDF workers of this engine's commands, so that every worker
    /// the process started has ended (tests count their memory) or the next call starts one
    /// (benchmarks time a start).
    fn _close_idle_workers(&self, py: Python<'_>) {
        let (outliner, pdfs) = (Arc::clone(&self.outliner), Arc::clone(&self.pdfs));
        py.detach(move || {
            outliner.close_idle_workers();
            pdfs.close_idle();
        });
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?})", self.workspace.root().display().to_string())
    }
}

/// Middle truncation; returns `(text, cut_chars, total_chars)`.
#[pyfunction]
#[pyo3(signature = (text, /, max_chars = None, head_ratio = None))]
fn truncate_middle(
    py: Python<'_>,
    text: &str,
    max_chars: Option<usize>,
    head_ratio: Option<f64>,
) -> PyResult<(String, usize, usize)> {
    let max_chars = max_chars.unwrap_or(truncate::DEFAULT_MAX_CHARS);
    let head_ratio = head_ratio.unwrap_or(truncate::DEFAULT_HEAD_RATIO);
    if !(0.0..=1.0).contains(&head_ratio) {
        return Err(invalid_argument(
            py,
            format!("head_ratio must lie between 0 and 1, got {head_ratio}."),
        ));
    }
    // Linear in the text and quick: no engine thread, just the GIL released.
    let out = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            truncate::truncate_middle(text, max_chars, head_ratio)
        }))
    });
    match out {
        Ok(out) => Ok((out.text, out.cut_chars, out.total_chars)),
        Err(panic) => Err(new_error(
            py,
            Class::Engine,
            format!(
                "internal error in truncate_middle ({})",
                panic_detail(panic)
            ),
            &[],
        )),
    }
}

#[pymodule(gil_used = false)]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "DEFAULT_EXCLUDE_DIRS",
        crate::workspace::DEFAULT_EXCLUDE_DIRS
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    )?;
    m.add(
        "DEFAULT_DENY_GLOBS",
        crate::workspace::DEFAULT_DENY_GLOBS
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    )?;
    // Every default and bound of the tools' parameters (SPEC section 5), so the Python
    // layer's schemas, checks and CLI have one source.
    let limits = PyDict::new(m.py());
    for (name, value) in LIMITS {
        match value {
            Limit::Count(n) => limits.set_item(name, n)?,
            Limit::Ratio(r) | Limit::Seconds(r) => limits.set_item(name, r)?,
        }
    }
    m.add("LIMITS", limits)?;
    // ripgrep's built-in file types (`grep`'s and `glob`'s `type`), name -> globs.
    let types = PyDict::new(m.py());
    for (name, globs) in grep::file_type_definitions() {
        types.set_item(name, globs)?;
    }
    m.add("FILE_TYPES", types)?;
    m.add_class::<Engine>()?;
    m.add_class::<CancelToken>()?;
    m.add_class::<crate::path_rules::PathRules>()?;
    records::add_classes(m)?;
    errors::add_classes(m)?;
    m.add_function(wrap_pyfunction!(truncate_middle, m)?)?;
    outline_bindings::add_to_module(m)?;
    options::add_to_module(m)?;
    cache_bindings::add_to_module(m)?;
    Ok(())
}
