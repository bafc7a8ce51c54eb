//! The PyO3 bindings: the only file that knows Python exists.
//!
//! Each method converts its arguments to owned Rust values, runs the engine inside one
//! `py.detach` (the GIL is released for all file work), then builds Python objects. Engine errors
//! and panics become the exception classes of `ripsight.errors`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::CoreError;
use crate::grep::{self, GrepOptions, OutputMode};
use crate::read::{self, ContentKind, ReadOptions};
use crate::truncate;
use crate::walk::{self, GlobOptions, SortOrder};
use crate::workspace::{SkipCounts, Workspace, WorkspaceOptions};

/// The smallest `max_line_chars` grep and read_file accept: a shorter cut shows too little of a
/// line to be worth reading.
pub const MIN_LINE_CHARS: usize = 20;

/// Raises a model-facing `InvalidArgumentError` when `max_line_chars` is below `MIN_LINE_CHARS`.
fn check_line_chars(py: Python<'_>, max_line_chars: usize, default: usize) -> PyResult<()> {
    if max_line_chars < MIN_LINE_CHARS {
        return Err(raise(
            py,
            "InvalidArgumentError",
            format!(
                "max_line_chars must be at least {MIN_LINE_CHARS} characters (default {default}), got {max_line_chars}; pass a larger number."
            ),
        ));
    }
    Ok(())
}

/// Raises the `ripsight.errors` class that fits the engine error.
fn to_pyerr(py: Python<'_>, error: CoreError) -> PyErr {
    let class_name = match &error {
        CoreError::NotFound { .. } => "PathNotFoundError",
        CoreError::OutsideRoot { .. } => "OutsideRootError",
        CoreError::Denied { .. } => "DeniedError",
        CoreError::IsADirectory { .. } => "IsADirectoryPathError",
        CoreError::NotADirectory { .. } => "NotADirectoryPathError",
        CoreError::SpecialFile { .. } => "SpecialFileError",
        CoreError::InvalidPattern { .. } => "PatternError",
        CoreError::InvalidArgument { .. } => "InvalidArgumentError",
        CoreError::PermissionDenied { .. } => "UnreadableError",
        CoreError::PathTooLong { .. } => "InvalidArgumentError",
        CoreError::LinkLoop { .. } => "UnreadableError",
        CoreError::Io { .. } => "EngineError",
    };
    raise(py, class_name, error.to_string())
}

fn raise(py: Python<'_>, class_name: &str, message: String) -> PyErr {
    let class = py
        .import("ripsight.errors")
        .and_then(|module| module.getattr(class_name))
        .and_then(|class| class.cast_into::<PyType>().map_err(PyErr::from));
    match class {
        Ok(class) => PyErr::from_type(class, message),
        Err(import_error) => import_error,
    }
}

/// Runs `work` with the GIL released, turning engine errors and panics into Python exceptions.
fn run_detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, CoreError> + Send,
{
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_pyerr(py, error)),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(raise(
                py,
                "EngineError",
                format!(
                    "internal error in the ripsight engine ({detail}); this is a bug. Try a narrower request."
                ),
            ))
        }
    }
}

/// What a walk or search passed over, by reason.
#[pyclass(frozen, get_all, module = "ripsight._core", name = "SkipCounts")]
pub struct PySkipCounts {
    ignored: u64,
    binary: u64,
    denied: u64,
    unreadable: u64,
    special: u64,
    too_large: u64,
    outside_root: u64,
    symlink: u64,
}

impl From<SkipCounts> for PySkipCounts {
    fn from(s: SkipCounts) -> Self {
        PySkipCounts {
            ignored: s.ignored,
            binary: s.binary,
            denied: s.denied,
            unreadable: s.unreadable,
            special: s.special,
            too_large: s.too_large,
            outside_root: s.outside_root,
            symlink: s.symlink,
        }
    }
}

#[pymethods]
impl PySkipCounts {
    fn __repr__(&self) -> String {
        format!(
            "SkipCounts(ignored={}, binary={}, denied={}, unreadable={}, special={}, too_large={}, outside_root={}, symlink={})",
            self.ignored,
            self.binary,
            self.denied,
            self.unreadable,
            self.special,
            self.too_large,
            self.outside_root,
            self.symlink
        )
    }
}

/// Result of `Engine.glob`.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct GlobResult {
    pattern: String,
    paths: Vec<OsString>,
    total: u64,
    offset: u64,
    withheld: u64,
    files_in_scope: Option<u64>,
    anywhere_pattern: Option<String>,
    anywhere_total: Option<u64>,
    searched: OsString,
    skipped: Py<PySkipCounts>,
    incomplete: bool,
    elapsed_ms: f64,
}

#[pymethods]
impl GlobResult {
    fn __repr__(&self) -> String {
        format!(
            "GlobResult(pattern={:?}, shown={}, total={}, offset={}, withheld={}, incomplete={})",
            self.pattern,
            self.paths.len(),
            self.total,
            self.offset,
            self.withheld,
            self.incomplete
        )
    }
}

/// One shown line of a grep result.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct GrepLine {
    path: OsString,
    line: u64,
    text: String,
    is_match: bool,
    cut: bool,
}

#[pymethods]
impl GrepLine {
    fn __repr__(&self) -> String {
        let sep = if self.is_match { ':' } else { '-' };
        format!(
            "GrepLine({}{sep}{}{sep}{:?})",
            self.path.to_string_lossy(),
            self.line,
            self.text
        )
    }
}

/// A file and its number of matching lines.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct FileCount {
    path: OsString,
    count: u64,
}

#[pymethods]
impl FileCount {
    fn __repr__(&self) -> String {
        format!("FileCount({:?}, {})", self.path, self.count)
    }
}

/// Result of `Engine.grep`.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct GrepResult {
    pattern: String,
    output_mode: String,
    lines: Vec<Py<GrepLine>>,
    files: Vec<Py<FileCount>>,
    total_matches: u64,
    total_files: u64,
    offset: u64,
    withheld: u64,
    files_searched: u64,
    skipped: Py<PySkipCounts>,
    incomplete: bool,
    elapsed_ms: f64,
}

#[pymethods]
impl GrepResult {
    /// The matching lines of the page (context lines left out).
    #[getter]
    fn matches(&self, py: Python<'_>) -> Vec<Py<GrepLine>> {
        self.lines
            .iter()
            .filter(|l| l.get().is_match)
            .map(|l| l.clone_ref(py))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "GrepResult(pattern={:?}, mode={}, total_matches={}, total_files={}, withheld={}, incomplete={})",
            self.pattern,
            self.output_mode,
            self.total_matches,
            self.total_files,
            self.withheld,
            self.incomplete
        )
    }
}

/// One shown line of a read.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct ReadLine {
    number: u64,
    text: String,
    cut_from: Option<u64>,
}

#[pymethods]
impl ReadLine {
    fn __repr__(&self) -> String {
        format!("ReadLine({}, {:?})", self.number, self.text)
    }
}

/// Result of `Engine.read_file`.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct ReadResult {
    path: OsString,
    kind: String,
    binary_type: Option<String>,
    size_bytes: u64,
    dev: u64,
    inode: u64,
    mtime_ns: i64,
    lines: Vec<Py<ReadLine>>,
    offset: u64,
    total_lines: u64,
    total_lines_estimated: bool,
    next_offset: Option<u64>,
    encoding: String,
    line_ending: String,
}

#[pymethods]
impl ReadResult {
    fn __repr__(&self) -> String {
        format!(
            "ReadResult(path={:?}, kind={}, offset={}, shown={}, total_lines={}, next_offset={:?})",
            self.path,
            self.kind,
            self.offset,
            self.lines.len(),
            self.total_lines,
            self.next_offset
        )
    }
}

/// What `Engine.identify` found: the identity of the file a path opens (`fstat` of the
/// descriptor the engine opened beneath the root) and its real path relative to the root.
#[pyclass(frozen, get_all, module = "ripsight._core")]
pub struct FileIdentity {
    path: OsString,
    dev: u64,
    inode: u64,
    size: u64,
    mtime_ns: i64,
}

#[pymethods]
impl FileIdentity {
    fn __repr__(&self) -> String {
        format!(
            "FileIdentity(path={:?}, dev={}, inode={}, size={}, mtime_ns={})",
            self.path, self.dev, self.inode, self.size, self.mtime_ns
        )
    }
}

/// One workspace root with its policy; all methods release the GIL.
#[pyclass(frozen, module = "ripsight._core")]
pub struct Engine {
    workspace: Arc<Workspace>,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (root, /, *, exclude_dirs, deny, time_budget, threads, respect_ignore_files))]
    fn new(
        py: Python<'_>,
        root: String,
        exclude_dirs: Vec<String>,
        deny: Vec<String>,
        time_budget: f64,
        threads: usize,
        respect_ignore_files: bool,
    ) -> PyResult<Self> {
        if !(time_budget.is_finite() && time_budget > 0.0) {
            return Err(PyValueError::new_err(format!(
                "time_budget must be a positive number of seconds, got {time_budget}"
            )));
        }
        let options = WorkspaceOptions {
            exclude_dirs,
            deny_globs: deny,
            time_budget: Duration::from_secs_f64(time_budget),
            threads,
            respect_ignore_files,
        };
        let workspace = run_detached(py, move || Workspace::new(&root, options))?;
        Ok(Engine {
            workspace: Arc::new(workspace),
        })
    }

    /// The canonical root directory.
    #[getter]
    fn root(&self) -> String {
        self.workspace.root().display().to_string()
    }

    #[pyo3(signature = (pattern, /, *, path, limit, offset, sort))]
    fn glob(
        &self,
        py: Python<'_>,
        pattern: String,
        path: Option<OsString>,
        limit: Option<usize>,
        offset: usize,
        sort: &str,
    ) -> PyResult<GlobResult> {
        let sort = match sort {
            "path" => SortOrder::Path,
            "mtime" | "modified" => SortOrder::Modified,
            other => {
                return Err(raise(
                    py,
                    "InvalidArgumentError",
                    format!("sort must be \"path\" or \"mtime\", not {other:?}"),
                ));
            }
        };
        let options = GlobOptions {
            pattern: pattern.clone(),
            path,
            limit,
            offset,
            sort,
        };
        let workspace = Arc::clone(&self.workspace);
        let out = run_detached(py, move || walk::glob(&workspace, &options))?;
        let (anywhere_pattern, anywhere_total) = match out.anywhere_hint {
            Some((p, n)) => (Some(p), Some(n)),
            None => (None, None),
        };
        Ok(GlobResult {
            pattern,
            paths: out.paths,
            total: out.total,
            offset: out.offset,
            withheld: out.withheld,
            files_in_scope: out.files_in_scope,
            anywhere_pattern,
            anywhere_total,
            searched: out.searched,
            skipped: Py::new(py, PySkipCounts::from(out.skipped))?,
            incomplete: out.incomplete,
            elapsed_ms: out.elapsed_ms,
        })
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "mirrors the grep tool's keyword arguments"
    )]
    #[pyo3(signature = (pattern, /, *, path, glob, literal, case_insensitive, context, multiline, output_mode, limit, offset, max_line_chars = grep::DEFAULT_MAX_LINE_CHARS))]
    fn grep(
        &self,
        py: Python<'_>,
        pattern: String,
        path: Option<OsString>,
        glob: Option<String>,
        literal: bool,
        case_insensitive: bool,
        context: usize,
        multiline: bool,
        output_mode: &str,
        limit: Option<usize>,
        offset: usize,
        max_line_chars: usize,
    ) -> PyResult<GrepResult> {
        check_line_chars(py, max_line_chars, grep::DEFAULT_MAX_LINE_CHARS)?;
        let mode = match output_mode {
            "content" => OutputMode::Content,
            "files_with_matches" => OutputMode::FilesWithMatches,
            "count" => OutputMode::Count,
            other => {
                return Err(raise(
                    py,
                    "InvalidArgumentError",
                    format!(
                        "output_mode must be \"content\", \"files_with_matches\" or \"count\", not {other:?}"
                    ),
                ));
            }
        };
        let mut options = GrepOptions {
            pattern: pattern.clone(),
            path,
            glob,
            literal,
            case_insensitive,
            context,
            multiline,
            output_mode: mode,
            limit,
            offset,
            ..GrepOptions::default()
        };
        // Assigned after the literal so that fields added to GrepOptions keep their defaults.
        options.max_line_chars = max_line_chars;
        let workspace = Arc::clone(&self.workspace);
        let out = run_detached(py, move || grep::grep(&workspace, &options))?;
        let lines = out
            .lines
            .into_iter()
            .map(|l| {
                Py::new(
                    py,
                    GrepLine {
                        path: l.path,
                        line: l.line,
                        text: l.text,
                        is_match: l.is_match,
                        cut: l.cut,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        let files = out
            .files
            .into_iter()
            .map(|f| {
                Py::new(
                    py,
                    FileCount {
                        path: f.path,
                        count: f.count,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(GrepResult {
            pattern,
            output_mode: output_mode.to_string(),
            lines,
            files,
            total_matches: out.total_matches,
            total_files: out.total_files,
            offset: out.offset,
            withheld: out.withheld,
            files_searched: out.files_searched,
            skipped: Py::new(py, PySkipCounts::from(out.skipped))?,
            incomplete: out.incomplete,
            elapsed_ms: out.elapsed_ms,
        })
    }

    /// Opens `path` as `read_file` would (boundary, deny rules, regular files only) and returns
    /// the opened file's identity without reading it.
    #[pyo3(signature = (path, /))]
    fn identify(&self, py: Python<'_>, path: OsString) -> PyResult<FileIdentity> {
        let workspace = Arc::clone(&self.workspace);
        let opened = run_detached(py, move || workspace.open_file(&path))?;
        Ok(FileIdentity {
            path: OsString::from_vec(opened.real),
            dev: opened.identity.dev,
            inode: opened.identity.ino,
            size: opened.identity.size,
            mtime_ns: opened.identity.mtime_ns,
        })
    }

    #[pyo3(signature = (path, /, *, offset, limit, max_line_chars = read::DEFAULT_MAX_LINE_CHARS))]
    fn read_file(
        &self,
        py: Python<'_>,
        path: OsString,
        offset: u64,
        limit: usize,
        max_line_chars: usize,
    ) -> PyResult<ReadResult> {
        check_line_chars(py, max_line_chars, read::DEFAULT_MAX_LINE_CHARS)?;
        let options = ReadOptions {
            path,
            offset,
            limit,
            max_line_chars,
            ..ReadOptions::default()
        };
        let workspace = Arc::clone(&self.workspace);
        let out = run_detached(py, move || read::read_file(&workspace, &options))?;
        let lines = out
            .lines
            .into_iter()
            .map(|l| {
                Py::new(
                    py,
                    ReadLine {
                        number: l.number,
                        text: l.text,
                        cut_from: l.cut_from,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        let kind = match out.kind {
            ContentKind::Text => "text",
            ContentKind::Empty => "empty",
            ContentKind::Binary => "binary",
        };
        Ok(ReadResult {
            path: out.path,
            kind: kind.to_string(),
            binary_type: out.binary_type,
            size_bytes: out.size_bytes,
            dev: out.identity.dev,
            inode: out.identity.ino,
            mtime_ns: out.identity.mtime_ns,
            lines,
            offset: out.offset,
            total_lines: out.total_lines,
            total_lines_estimated: out.total_lines_estimated,
            next_offset: out.next_offset,
            encoding: out.encoding,
            line_ending: out.line_ending,
        })
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?})", self.workspace.root().display().to_string())
    }
}

/// Middle truncation; returns `(text, cut_chars, total_chars)`.
#[pyfunction]
#[pyo3(signature = (text, /, max_chars = truncate::DEFAULT_MAX_CHARS, head_ratio = truncate::DEFAULT_HEAD_RATIO))]
fn truncate_middle(
    py: Python<'_>,
    text: &str,
    max_chars: usize,
    head_ratio: f64,
) -> PyResult<(String, usize, usize)> {
    if !(0.0..=1.0).contains(&head_ratio) {
        return Err(raise(
            py,
            "InvalidArgumentError",
            format!("head_ratio must lie between 0 and 1, got {head_ratio}"),
        ));
    }
    let text = text.to_owned();
    let out = run_detached(py, move || {
        Ok(truncate::truncate_middle(&text, max_chars, head_ratio))
    })?;
    Ok((out.text, out.cut_chars, out.total_chars))
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
    // The default limits (SPEC section 5), so `ripsight.limits.ToolLimits` has one source.
    m.add("DEFAULT_GLOB_LIMIT", walk::DEFAULT_GLOB_LIMIT)?;
    m.add("DEFAULT_GREP_LIMIT", grep::DEFAULT_GREP_LIMIT)?;
    m.add("DEFAULT_GREP_LINE_CHARS", grep::DEFAULT_MAX_LINE_CHARS)?;
    m.add("DEFAULT_READ_LIMIT", read::DEFAULT_READ_LIMIT)?;
    m.add("DEFAULT_READ_LINE_CHARS", read::DEFAULT_MAX_LINE_CHARS)?;
    m.add("DEFAULT_MAX_RESULT_CHARS", truncate::DEFAULT_MAX_CHARS)?;
    m.add("DEFAULT_HEAD_RATIO", truncate::DEFAULT_HEAD_RATIO)?;
    m.add("MIN_LINE_CHARS", MIN_LINE_CHARS)?;
    m.add_class::<Engine>()?;
    m.add_class::<FileIdentity>()?;
    m.add_class::<GlobResult>()?;
    m.add_class::<GrepResult>()?;
    m.add_class::<GrepLine>()?;
    m.add_class::<FileCount>()?;
    m.add_class::<ReadResult>()?;
    m.add_class::<ReadLine>()?;
    m.add_class::<PySkipCounts>()?;
    m.add_function(wrap_pyfunction!(truncate_middle, m)?)?;
    Ok(())
}
