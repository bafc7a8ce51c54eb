//! The PyO3 bindings: the only code that knows Python exists.
//!
//! The engine's result structs are the Python classes (`python/records.rs` adds their methods);
//! engine errors become the exception classes of `python/errors.rs`. Each method converts its
//! arguments to owned Rust values, runs the engine on an engine thread while the calling thread
//! waits with the GIL released and answers Ctrl-C (see [`run_detached`]), then hands the result
//! struct to Python as it is.

mod call_thread;
mod cancel;
mod errors;
mod outline_bindings;
mod records;

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::glob::{self, GlobOptions, GlobOutput, SortOrder};
use crate::grep::{self, GrepOptions, GrepOutput, OutputMode};
use crate::index::{IndexOptions, IndexState, IndexStatus, WarmIndex};
use crate::limits::{LIMITS, Limit, MIN_LINE_CHARS};
use crate::media::image::{self, ImageBounds, ImageOptions, ImageOutput};
use crate::media::notebook::{self, NotebookImages, NotebookOptions, NotebookOutput};
use crate::outline::definitions::DefinitionsOutput;
use crate::outline::references::ReferencesOutput;
use crate::outline::{OutlineOptions, OutlineOutput, Outliner};
use crate::raw::{self, FileBytes};
use crate::read::{self, Identified, ReadOptions, ReadOutput};
use crate::truncate;
use crate::workspace::{Workspace, WorkspaceOptions};
use cancel::call_token;
use errors::{Class, new_error};

/// An `InvalidArgumentError` with `message`.
fn invalid_argument(py: Python<'_>, message: String) -> PyErr {
    new_error(py, Class::InvalidArgument, message, &[])
}

/// Raises `InvalidArgumentError` when `max_line_chars` is below [`MIN_LINE_CHARS`].
fn check_line_chars(py: Python<'_>, max_line_chars: usize) -> PyResult<()> {
    if max_line_chars < MIN_LINE_CHARS {
        return Err(invalid_argument(
            py,
            format!(
                "max_line_chars must be at least {MIN_LINE_CHARS} characters, got {max_line_chars}."
            ),
        ));
    }
    Ok(())
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
}

#[pymethods]
impl Engine {
    #[new]
    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the Workspace's keyword arguments"
    )]
    #[pyo3(signature = (root, /, *, exclude_dirs, deny, time_budget, threads, respect_ignore_files, index = false, index_dir = None, persist = true, outline_worker = None))]
    fn new(
        py: Python<'_>,
        root: String,
        exclude_dirs: Vec<String>,
        deny: Vec<String>,
        time_budget: f64,
        threads: usize,
        respect_ignore_files: bool,
        index: bool,
        index_dir: Option<std::path::PathBuf>,
        persist: bool,
        outline_worker: Option<Vec<OsString>>,
    ) -> PyResult<Self> {
        if !(time_budget.is_finite() && time_budget > 0.0) {
            return Err(invalid_argument(
                py,
                format!("time_budget must be a positive number of seconds, got {time_budget}"),
            ));
        }
        let options = WorkspaceOptions {
            exclude_dirs,
            deny_globs: deny,
            time_budget: Duration::from_secs_f64(time_budget),
            threads,
            respect_ignore_files,
        };
        let workspace = run_detached(py, &CancelToken::new(), move || {
            Workspace::new(&root, options)
        })?;
        let index = index.then(|| {
            Arc::new(WarmIndex::start(
                &workspace,
                IndexOptions { index_dir, persist },
            ))
        });
        Ok(Engine {
            workspace: Arc::new(workspace),
            index,
            outliner: Outliner::shared(outline_worker.unwrap_or_default()),
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

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the glob tool's keyword arguments"
    )]
    #[pyo3(signature = (pattern, /, *, path, limit, offset, sort, cancel = None, more_patterns = None, types = None, max_depth = None, include_ignored = false))]
    fn glob(
        &self,
        py: Python<'_>,
        pattern: String,
        path: Option<OsString>,
        limit: Option<usize>,
        offset: usize,
        sort: &str,
        cancel: Option<&CancelToken>,
        more_patterns: Option<Vec<String>>,
        types: Option<Vec<String>>,
        max_depth: Option<usize>,
        include_ignored: bool,
    ) -> PyResult<GlobOutput> {
        let cancel = call_token(cancel);
        let sort = match sort {
            "path" => SortOrder::Path,
            "mtime" | "modified" => SortOrder::Modified,
            other => {
                return Err(invalid_argument(
                    py,
                    format!("sort must be \"path\" or \"mtime\", not {other:?}."),
                ));
            }
        };
        let options = GlobOptions {
            pattern,
            more_patterns: more_patterns.unwrap_or_default(),
            path,
            types: types.unwrap_or_default(),
            max_depth,
            include_ignored,
            limit,
            offset,
            sort,
            cancel: cancel.clone(),
        };
        let workspace = Arc::clone(&self.workspace);
        let index = self.index.clone();
        run_detached(py, &cancel, move || match &index {
            Some(index) => index.glob(&options),
            None => glob::glob(&workspace, &options),
        })
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the grep tool's keyword arguments"
    )]
    #[pyo3(signature = (pattern, /, *, path, glob, literal, case_insensitive, context, multiline, output_mode, limit, offset, max_line_chars = None, cancel = None, before_context = None, after_context = None, types = None, types_not = None, max_count = None, invert_match = false, max_depth = None, include_ignored = false))]
    fn grep(
        &self,
        py: Python<'_>,
        pattern: String,
        path: Option<OsString>,
        glob: Option<Vec<String>>,
        literal: bool,
        case_insensitive: bool,
        context: usize,
        multiline: bool,
        output_mode: &str,
        limit: Option<usize>,
        offset: usize,
        max_line_chars: Option<usize>,
        cancel: Option<&CancelToken>,
        before_context: Option<usize>,
        after_context: Option<usize>,
        types: Option<Vec<String>>,
        types_not: Option<Vec<String>>,
        max_count: Option<u64>,
        invert_match: bool,
        max_depth: Option<usize>,
        include_ignored: bool,
    ) -> PyResult<GrepOutput> {
        let cancel = call_token(cancel);
        let max_line_chars = max_line_chars.unwrap_or(grep::DEFAULT_MAX_LINE_CHARS);
        check_line_chars(py, max_line_chars)?;
        let Some(output_mode) = OutputMode::from_name(output_mode) else {
            return Err(invalid_argument(
                py,
                format!(
                    "output_mode must be one of {}, not {output_mode:?}.",
                    OutputMode::NAMES.join(", ")
                ),
            ));
        };
        let options = GrepOptions {
            pattern,
            path,
            glob: glob.unwrap_or_default(),
            types: types.unwrap_or_default(),
            types_not: types_not.unwrap_or_default(),
            max_count,
            invert_match,
            max_depth,
            include_ignored,
            literal,
            case_insensitive,
            // As rg: -A and -B override their side of -C.
            before_context: before_context.unwrap_or(context),
            after_context: after_context.unwrap_or(context),
            multiline,
            output_mode,
            limit,
            offset,
            max_line_chars,
            cancel: cancel.clone(),
        };
        let workspace = Arc::clone(&self.workspace);
        let index = self.index.clone();
        run_detached(py, &cancel, move || match &index {
            Some(index) => index.grep(&options),
            None => grep::grep(&workspace, &options),
        })
    }

    /// Opens `path` as `read_file` would (boundary, deny rules, regular files only) and returns
    /// the opened file's identity without reading it.
    #[pyo3(signature = (path, /, *, cancel = None))]
    fn identify(
        &self,
        py: Python<'_>,
        path: OsString,
        cancel: Option<&CancelToken>,
    ) -> PyResult<Identified> {
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || read::identify(&workspace, &path))
    }

    #[pyo3(signature = (path, /, *, offset, limit, max_line_chars = None, cancel = None))]
    fn read_file(
        &self,
        py: Python<'_>,
        path: OsString,
        offset: u64,
        limit: usize,
        max_line_chars: Option<usize>,
        cancel: Option<&CancelToken>,
    ) -> PyResult<ReadOutput> {
        let cancel = call_token(cancel);
        let max_line_chars = max_line_chars.unwrap_or(read::DEFAULT_MAX_LINE_CHARS);
        check_line_chars(py, max_line_chars)?;
        let options = ReadOptions {
            path,
            offset,
            limit,
            max_line_chars,
            cancel: cancel.clone(),
            ..ReadOptions::default()
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || read::read_file(&workspace, &options))
    }

    // -- outlines and definitions (crate::outline) ---------------------------------------------

    #[pyo3(signature = (path, /, *, offset, limit, max_depth = None, cancel = None))]
    fn outline(
        &self,
        py: Python<'_>,
        path: OsString,
        offset: usize,
        limit: Option<usize>,
        max_depth: Option<u64>,
        cancel: Option<&CancelToken>,
    ) -> PyResult<OutlineOutput> {
        let options = OutlineOptions {
            path,
            offset,
            limit,
            max_depth,
            cancel: call_token(cancel),
        };
        outline_bindings::outline(py, &self.workspace, &self.outliner, options)
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the definitions tool's keyword arguments"
    )]
    #[pyo3(signature = (name, /, *, matching, path, glob, kinds, limit, offset, cancel = None))]
    fn definitions(
        &self,
        py: Python<'_>,
        name: String,
        matching: &str,
        path: Option<OsString>,
        glob: Option<Vec<String>>,
        kinds: Vec<String>,
        limit: Option<usize>,
        offset: usize,
        cancel: Option<&CancelToken>,
    ) -> PyResult<DefinitionsOutput> {
        let arguments = outline_bindings::DefinitionsArguments {
            name,
            matching: matching.to_string(),
            path,
            glob,
            kinds,
            limit,
            offset,
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::definitions(py, sources, arguments, call_token(cancel))
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the find_references tool's keyword arguments"
    )]
    #[pyo3(signature = (name, /, *, path, glob, roles, kinds, group_by, limit, offset, cancel = None))]
    fn references(
        &self,
        py: Python<'_>,
        name: String,
        path: Option<OsString>,
        glob: Option<Vec<String>>,
        roles: Vec<String>,
        kinds: Vec<String>,
        group_by: String,
        limit: Option<usize>,
        offset: usize,
        cancel: Option<&CancelToken>,
    ) -> PyResult<ReferencesOutput> {
        let arguments = outline_bindings::ReferencesArguments {
            name,
            path,
            glob,
            roles,
            kinds,
            group_by,
            limit,
            offset,
        };
        let sources = (&self.workspace, &self.index, &self.outliner);
        outline_bindings::references(py, sources, arguments, call_token(cancel))
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

    #[expect(
        clippy::too_many_arguments,
        reason = "one keyword argument per image bound"
    )]
    #[pyo3(signature = (path, /, *, max_edge, max_pixels, max_bytes, max_source_bytes, max_decode_pixels, cancel = None))]
    fn read_image(
        &self,
        py: Python<'_>,
        path: OsString,
        max_edge: u64,
        max_pixels: u64,
        max_bytes: u64,
        max_source_bytes: u64,
        max_decode_pixels: u64,
        cancel: Option<&CancelToken>,
    ) -> PyResult<ImageOutput> {
        let cancel = call_token(cancel);
        let options = ImageOptions {
            path,
            bounds: ImageBounds {
                max_edge,
                max_pixels,
                max_bytes,
                max_source_bytes,
                max_decode_pixels,
            },
            cancel: cancel.clone(),
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || image::read_image(&workspace, &options))
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the notebook read's keyword arguments"
    )]
    #[pyo3(signature = (path, /, *, offset, limit, max_output_chars, max_bytes, cancel = None))]
    fn read_notebook(
        &self,
        py: Python<'_>,
        path: OsString,
        offset: u64,
        limit: usize,
        max_output_chars: usize,
        max_bytes: u64,
        cancel: Option<&CancelToken>,
    ) -> PyResult<NotebookOutput> {
        let cancel = call_token(cancel);
        let options = NotebookOptions {
            path,
            offset,
            limit,
            max_output_chars,
            max_bytes,
            cancel: cancel.clone(),
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || {
            notebook::read_notebook(&workspace, &options)
        })
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the cell, the notebook cap and one keyword argument per image bound"
    )]
    #[pyo3(signature = (path, /, *, cell, max_bytes, max_edge, max_pixels, max_image_bytes, max_source_bytes, max_decode_pixels, cancel = None))]
    fn read_notebook_images(
        &self,
        py: Python<'_>,
        path: OsString,
        cell: u64,
        max_bytes: u64,
        max_edge: u64,
        max_pixels: u64,
        max_image_bytes: u64,
        max_source_bytes: u64,
        max_decode_pixels: u64,
        cancel: Option<&CancelToken>,
    ) -> PyResult<NotebookImages> {
        let cancel = call_token(cancel);
        let bounds = ImageBounds {
            max_edge,
            max_pixels,
            max_bytes: max_image_bytes,
            max_source_bytes,
            max_decode_pixels,
        };
        let workspace = Arc::clone(&self.workspace);
        run_detached(py, &cancel, move || {
            notebook::notebook_images(&workspace, &path, cell, max_bytes, &bounds)
        })
    }

    // -- end of images and notebooks ------------------------------------------------------------

    /// The whole of `path`'s bytes when it holds at most `max_bytes` (else `too_large`, unread).
    #[pyo3(signature = (path, /, *, max_bytes, cancel = None))]
    fn read_bytes(
        &self,
        py: Python<'_>,
        path: OsString,
        max_bytes: u64,
        cancel: Option<&CancelToken>,
    ) -> PyResult<FileBytes> {
        let cancel = call_token(cancel);
        let workspace = Arc::clone(&self.workspace);
        let token = cancel.clone();
        run_detached(py, &cancel, move || {
            raw::read_bytes(&workspace, &path, max_bytes, &token)
        })
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
    records::add_classes(m)?;
    errors::add_classes(m)?;
    m.add_function(wrap_pyfunction!(truncate_middle, m)?)?;
    outline_bindings::add_to_module(m)?;
    Ok(())
}
