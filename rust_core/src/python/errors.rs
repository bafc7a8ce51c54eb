//! The exception classes of `ripsight._core`, and the one conversion of engine errors to them.
//!
//! `RipsightError` is a `create_exception!` class. Each concrete class derives from it *and*
//! from the built-in that fits (`except FileNotFoundError` works as a Python programmer
//! expects); `create_exception!` takes one base only, so those are made with `type(name,
//! bases, namespace)` once, when the module loads. An engine error becomes an instance whose
//! attributes carry its facts (`reason`, `path`, `suggestions`, `rule`, `pattern`, `issue`...), from
//! which `ripsight.errors.model_text` builds what a model reads.

use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIsADirectoryError, PyNotADirectoryError, PyOSError,
    PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::error::CoreError;

pyo3::create_exception!(
    ripsight._core,
    RipsightError,
    PyException,
    "Base class of every ripsight error."
);

/// One concrete exception class.
struct ErrorClass {
    name: &'static str,
    /// A short stable name, the class attribute `kind`: the machine code of a tool call this
    /// error ends (`ripsight.codes` reads it; the README's table of codes lists it).
    kind: &'static str,
    doc: &'static str,
    builtin: fn(Python<'_>) -> PyResult<Bound<'_, PyType>>,
}

fn builtin<T: pyo3::PyTypeInfo>(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    Ok(py.get_type::<T>())
}

fn futures_cancelled(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    Ok(py
        .import("concurrent.futures")?
        .getattr("CancelledError")?
        .cast_into::<PyType>()?)
}

/// Indexes into [`CLASSES`].
#[derive(Clone, Copy)]
pub(crate) enum Class {
    PathNotFound,
    OutsideRoot,
    Denied,
    IsADirectory,
    NotADirectory,
    SpecialFile,
    Pattern,
    InvalidArgument,
    Unreadable,
    Cancelled,
    Engine,
}

const CLASSES: [ErrorClass; 11] = [
    ErrorClass {
        name: "PathNotFoundError",
        kind: "not_found",
        doc: "The path does not exist (`suggestions` holds close names).",
        builtin: builtin::<PyFileNotFoundError>,
    },
    ErrorClass {
        name: "OutsideRootError",
        kind: "outside_root",
        doc: "The path resolves (symlinks included) to a place outside the workspace root.",
        builtin: builtin::<PyPermissionError>,
    },
    ErrorClass {
        name: "DeniedError",
        kind: "denied",
        doc: "A deny rule (secrets policy) covers the path (`rule` names it).",
        builtin: builtin::<PyPermissionError>,
    },
    ErrorClass {
        name: "IsADirectoryPathError",
        kind: "is_a_directory",
        doc: "A file was expected, the path is a directory.",
        builtin: builtin::<PyIsADirectoryError>,
    },
    ErrorClass {
        name: "NotADirectoryPathError",
        kind: "not_a_directory",
        doc: "A directory was expected, the path is a file.",
        builtin: builtin::<PyNotADirectoryError>,
    },
    ErrorClass {
        name: "SpecialFileError",
        kind: "special_file",
        doc: "A FIFO, socket or device: never opened, since reading it could block forever.",
        builtin: builtin::<PyOSError>,
    },
    ErrorClass {
        name: "PatternError",
        kind: "invalid_pattern",
        doc: "A regex or glob that does not compile (`pattern`, `issue`, `detail`).",
        builtin: builtin::<PyValueError>,
    },
    ErrorClass {
        name: "InvalidArgumentError",
        kind: "invalid_arguments",
        doc: "An argument out of range or of the wrong kind (negative offset, unknown sort...).",
        builtin: builtin::<PyValueError>,
    },
    ErrorClass {
        name: "UnreadableError",
        kind: "permission_denied",
        doc: "The operating system refused access to the file.",
        builtin: builtin::<PyPermissionError>,
    },
    ErrorClass {
        name: "CancelledError",
        kind: "cancelled",
        doc: "The call's CancelToken was cancelled before it finished.",
        builtin: futures_cancelled,
    },
    ErrorClass {
        name: "EngineError",
        kind: "io_error",
        doc: "An I/O failure or an internal error (a Rust panic reaches Python as this).",
        builtin: builtin::<PyRuntimeError>,
    },
];

static TYPES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();

fn make_types(py: Python<'_>) -> PyResult<Vec<Py<PyType>>> {
    let base = py.get_type::<RipsightError>();
    base.setattr("kind", "error")?;
    let make_type = py.import("builtins")?.getattr("type")?;
    CLASSES
        .iter()
        .map(|class| {
            let namespace = PyDict::new(py);
            namespace.set_item("__doc__", class.doc)?;
            namespace.set_item("__module__", "ripsight._core")?;
            namespace.set_item("kind", class.kind)?;
            let bases = PyTuple::new(py, [base.as_any(), (class.builtin)(py)?.as_any()])?;
            Ok(make_type
                .call1((class.name, bases, namespace))?
                .cast_into::<PyType>()?
                .unbind())
        })
        .collect()
}

/// Adds `RipsightError` and every concrete class to the module.
pub(crate) fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RipsightError", py.get_type::<RipsightError>())?;
    let types = TYPES.get_or_try_init(py, || make_types(py))?;
    for (class, ty) in CLASSES.iter().zip(types) {
        m.add(class.name, ty.bind(py))?;
    }
    Ok(())
}

/// An exception of `class` with `message` and the given attributes.
pub(crate) fn new_error(
    py: Python<'_>,
    class: Class,
    message: String,
    attributes: &[(&str, Bound<'_, PyAny>)],
) -> PyErr {
    let made = TYPES
        .get_or_try_init(py, || make_types(py))
        .and_then(|types| {
            let instance = types[class as usize].bind(py).call1((message,))?;
            for (name, value) in attributes {
                instance.setattr(*name, value)?;
            }
            Ok(PyErr::from_value(instance))
        });
    made.unwrap_or_else(|error| error)
}

/// An `InvalidArgumentError` with `message`.
pub(crate) fn invalid_argument(py: Python<'_>, message: String) -> PyErr {
    new_error(py, Class::InvalidArgument, message, &[])
}

impl From<CoreError> for PyErr {
    fn from(error: CoreError) -> PyErr {
        Python::attach(|py| {
            let message = error.to_string();
            let text = |s: &str| s.into_pyobject(py).map(|o| o.into_any()).ok();
            // `reason`: the engine's own name of what went wrong (finer than the class).
            let mut attributes: Vec<(&str, Option<Bound<'_, PyAny>>)> =
                vec![("reason", text(error.kind()))];
            let class = match &error {
                CoreError::NotFound { path, suggestions } => {
                    attributes.push(("path", text(path)));
                    attributes.push((
                        "suggestions",
                        suggestions.into_pyobject(py).map(|o| o.into_any()).ok(),
                    ));
                    Class::PathNotFound
                }
                CoreError::OutsideRoot { path } => {
                    attributes.push(("path", text(path)));
                    Class::OutsideRoot
                }
                CoreError::Denied { path, rule } => {
                    attributes.push(("path", text(path)));
                    attributes.push(("rule", text(rule)));
                    Class::Denied
                }
                CoreError::IsADirectory { path } => {
                    attributes.push(("path", text(path)));
                    Class::IsADirectory
                }
                CoreError::NotADirectory { path } => {
                    attributes.push(("path", text(path)));
                    Class::NotADirectory
                }
                CoreError::SpecialFile { path, kind } => {
                    attributes.push(("path", text(path)));
                    attributes.push(("file_kind", text(kind)));
                    Class::SpecialFile
                }
                CoreError::InvalidPattern {
                    pattern,
                    issue,
                    message,
                } => {
                    attributes.push(("pattern", text(pattern)));
                    attributes.push(("issue", text(issue.name())));
                    attributes.push(("detail", text(message)));
                    Class::Pattern
                }
                CoreError::InvalidArgument { .. } => Class::InvalidArgument,
                CoreError::PathTooLong { path } => {
                    attributes.push(("path", text(path)));
                    Class::InvalidArgument
                }
                CoreError::LinkLoop { path } => {
                    attributes.push(("path", text(path)));
                    Class::Unreadable
                }
                CoreError::PermissionDenied { path } => {
                    attributes.push(("path", text(path)));
                    Class::Unreadable
                }
                CoreError::Cancelled => Class::Cancelled,
                CoreError::Io { path, .. } => {
                    attributes.push(("path", text(path)));
                    Class::Engine
                }
            };
            let attributes: Vec<(&str, Bound<'_, PyAny>)> = attributes
                .into_iter()
                .filter_map(|(name, value)| value.map(|v| (name, v)))
                .collect();
            new_error(py, class, message, &attributes)
        })
    }
}
