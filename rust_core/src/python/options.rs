//! The engine calls' keyword arguments, each declared once: its Python name, the type it takes,
//! its check and where it goes in the engine's options struct.
//!
//! A call's keyword arguments cross the boundary as one dict (`**options`). The options start
//! from the engine's own `Default` (the one default of every option) and take each keyword
//! given, in the order of its table, after its one check. The checks are strict: a flag is a
//! `bool` (not `"false"`, not `1`), a count an `int` (not a `bool`) from its least value to 64
//! bits, a text a `str` without lone surrogates. A wrong value raises `InvalidArgumentError`
//! naming the argument and what it got, and changes nothing.
//!
//! Each option has one positive name inside the engine; the one keyword that speaks rg's
//! language the other way round (`include_ignored`, `--no-ignore`) is inverted here, once.
//! `KEYWORDS` hands Python every keyword's type and default (read back from the engine's
//! `Default`), for the typed API's signatures and the generated stub.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};

use super::invalid_argument;
use crate::glob::{GlobOptions, SortOrder};
use crate::grep::{GrepOptions, OutputMode};
use crate::index::IndexOptions;
use crate::limits::{MIN_LINE_CHARS, PDF_MAX_SOURCE_BYTES};
use crate::media::image::{ImageBounds, ImageOptions};
use crate::media::notebook::{DEFAULT_NOTEBOOK_MAX_BYTES, NotebookOptions};
use crate::media::pdf::PdfOptions;
use crate::outline::calls::CallsOptions;
use crate::outline::definitions::{DefinitionsOptions, NameMatch};
use crate::outline::map::{MIN_MAP_CHARS, RepoMapOptions};
use crate::outline::references::{Grouping, ReferencesOptions};
use crate::outline::refs::Role;
use crate::outline::{OutlineOptions, SymbolKind};
use crate::read::ReadOptions;
use crate::workspace::WorkspaceOptions;

/// One keyword argument of an engine call whose options are an `O`.
pub(super) struct Keyword<O> {
    /// The name Python gives it.
    name: &'static str,
    /// The Python type it takes, as the stub writes it.
    annotation: &'static str,
    /// Checks a given value and stores it in the options.
    set: fn(&mut O, &Bound<'_, PyAny>) -> PyResult<()>,
    /// Its default as Python sees it, read from `O::default()`.
    default: for<'py> fn(&O, Python<'py>) -> PyResult<Bound<'py, PyAny>>,
}

/// The options of one call: `O::default()`, then every keyword of `kwargs` that `keywords`
/// declares, checked and stored in the table's order. A name the table does not declare is a
/// `TypeError`, as Python's own calls raise.
pub(super) fn options<O: Default>(
    call: &str,
    keywords: &[Keyword<O>],
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<O> {
    let mut options = O::default();
    let Some(kwargs) = kwargs else {
        return Ok(options);
    };
    for (name, _) in kwargs.iter() {
        let name = name.str()?.to_string();
        if !keywords.iter().any(|k| k.name == name) {
            return Err(PyTypeError::new_err(format!(
                "{call}() got an unexpected keyword argument '{name}'"
            )));
        }
    }
    for keyword in keywords {
        if let Some(value) = kwargs.get_item(keyword.name)? {
            (keyword.set)(&mut options, &value)?;
        }
    }
    Ok(options)
}

/// `{name: (annotation, default)}` of a call's keywords, the defaults from `O::default()`.
fn described<'py, O: Default>(
    py: Python<'py>,
    keywords: &[Keyword<O>],
) -> PyResult<Bound<'py, PyDict>> {
    let defaults = O::default();
    let out = PyDict::new(py);
    for keyword in keywords {
        let default = (keyword.default)(&defaults, py)?;
        out.set_item(keyword.name, (keyword.annotation, default))?;
    }
    Ok(out)
}

/// Adds `KEYWORDS` (call name -> keyword name -> (annotation, default)) to the module.
pub(super) fn add_to_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let all = PyDict::new(py);
    all.set_item("Engine", described(py, ENGINE)?)?;
    all.set_item("glob", described(py, GLOB)?)?;
    all.set_item("grep", described(py, GREP)?)?;
    all.set_item("read_file", described(py, READ_FILE)?)?;
    all.set_item("outline", described(py, OUTLINE)?)?;
    all.set_item("definitions", described(py, DEFINITIONS)?)?;
    all.set_item("references", described(py, REFERENCES)?)?;
    all.set_item("calls", described(py, CALLS)?)?;
    all.set_item("repo_map", described(py, REPO_MAP)?)?;
    all.set_item("read_image", described(py, READ_IMAGE)?)?;
    all.set_item("read_notebook", described(py, READ_NOTEBOOK)?)?;
    all.set_item("read_notebook_images", described(py, READ_NOTEBOOK_IMAGES)?)?;
    all.set_item("read_bytes", described(py, READ_BYTES)?)?;
    all.set_item("read_pdf", described(py, READ_PDF)?)?;
    m.add("KEYWORDS", all)?;
    Ok(())
}

// ==== The checks, one per kind of value ====

/// How a value is named in a message: its type and a repr cut to a readable length.
fn got(value: &Bound<'_, PyAny>) -> PyResult<String> {
    const SHOWN: usize = 100;
    let repr = value.repr()?.to_string();
    let repr = match repr.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}...", &repr[..cut]),
        None => repr,
    };
    Ok(format!("{} {repr}", value.get_type().name()?))
}

/// The largest integer the engine takes (its counts and offsets are 64-bit).
const MAX_COUNT: u64 = u64::MAX;

/// A `bool`, and nothing else (`"false"` and `1` are refused).
pub(super) fn flag(name: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    match value.cast::<PyBool>() {
        Ok(flag) => Ok(flag.is_true()),
        Err(_) => Err(invalid_argument(
            value.py(),
            format!(
                "{name} must be a boolean (True or False), got {}",
                got(value)?
            ),
        )),
    }
}

/// An `int` (not a `bool`) from `least` to 64 bits.
pub(super) fn count(name: &str, value: &Bound<'_, PyAny>, least: u64) -> PyResult<u64> {
    let py = value.py();
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(invalid_argument(
            py,
            format!("{name} must be an integer, got {}", got(value)?),
        ));
    }
    let number = match value.extract::<u64>() {
        Ok(number) => number,
        Err(_) if value.lt(0)? => {
            return Err(invalid_argument(
                py,
                format!("{name} must be at least {least}, got {}", value.str()?),
            ));
        }
        Err(_) => {
            // Not echoed: such a number can have thousands of digits.
            let bits: u64 = value.call_method0("bit_length")?.extract()?;
            return Err(invalid_argument(
                py,
                format!("{name} must be at most {MAX_COUNT} (64 bits), got a {bits}-bit number"),
            ));
        }
    };
    if number < least {
        return Err(invalid_argument(
            py,
            format!("{name} must be at least {least}, got {number}"),
        ));
    }
    Ok(number)
}

/// [`count`] as a `usize`.
fn size(name: &str, value: &Bound<'_, PyAny>, least: u64) -> PyResult<usize> {
    let number = count(name, value, least)?;
    usize::try_from(number).map_err(|_| {
        invalid_argument(
            value.py(),
            format!("{name} must be at most {}, got {number}", usize::MAX),
        )
    })
}

/// `None`, or what `take` makes of the value.
fn optional<T>(
    value: &Bound<'_, PyAny>,
    take: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    match value.is_none() {
        true => Ok(None),
        false => take(value).map(Some),
    }
}

/// A `str` that is Unicode text the engine can take: no lone surrogate (a path may hold the
/// surrogate escapes of a non-UTF-8 name; a pattern is text to match).
pub(super) fn text(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = value.py();
    let Ok(string) = value.cast::<PyString>() else {
        return Err(invalid_argument(
            py,
            format!("{name} must be a string, got {}", got(value)?),
        ));
    };
    match string.to_str() {
        Ok(text) => Ok(text.to_string()),
        Err(error) => {
            let start: usize = error.value(py).getattr("start")?.extract()?;
            // A lone surrogate is no Rust `char`: Python says which it is.
            let ord = py.import("builtins")?.getattr("ord")?;
            let code: u32 = ord.call1((string.get_item(start)?,))?.extract()?;
            Err(invalid_argument(
                py,
                format!(
                    "{name} holds a lone surrogate (U+{code:04X}) at character {}; it must be \
                     valid Unicode text",
                    start + 1
                ),
            ))
        }
    }
}

/// One string or a list (or tuple) of strings, as rg's repeated `-g` and `-t`; `None`: none.
fn texts(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    if value.is_instance_of::<PyString>() {
        return Ok(vec![text(name, value)?]);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        if items.iter().all(|item| item.is_instance_of::<PyString>()) {
            return items.iter().map(|item| text(name, item)).collect();
        }
    }
    Err(invalid_argument(
        value.py(),
        format!(
            "{name} must be a string or a list of strings, got {}",
            got(value)?
        ),
    ))
}

/// What [`texts`] gives back: `None` for none.
fn texts_value<'py>(py: Python<'py>, values: &[String]) -> PyResult<Bound<'py, PyAny>> {
    match values.is_empty() {
        true => Ok(py.None().into_bound(py)),
        false => Ok(PyList::new(py, values)?.into_any()),
    }
}

/// A path: a `str` or an `os.PathLike` (a name that is not UTF-8 arrives as the surrogate
/// escapes `os.fsdecode` makes, and goes back to its bytes).
pub(super) fn path(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    match value.extract::<PathBuf>() {
        Ok(path) => Ok(path.into_os_string()),
        Err(_) => Err(invalid_argument(
            value.py(),
            format!(
                "{name} must be a path (str or os.PathLike), got {}",
                got(value)?
            ),
        )),
    }
}

/// One of `names`, by name.
fn choice<T>(
    name: &str,
    value: &Bound<'_, PyAny>,
    names: &[&str],
    from_name: fn(&str) -> Option<T>,
) -> PyResult<T> {
    let given = text(name, value)?;
    from_name(&given).ok_or_else(|| {
        invalid_argument(
            value.py(),
            format!("{name} must be one of {}, not {given:?}.", names.join(", ")),
        )
    })
}

/// Names from any iterable of values (each taken as its `str()`), as the workspace's lists of
/// directory names and deny globs.
fn names(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_instance_of::<PyString>() {
        return Err(invalid_argument(
            value.py(),
            format!(
                "{name} must be a list of strings, not one string {}",
                got(value)?
            ),
        ));
    }
    let Ok(items) = value.try_iter() else {
        return Err(invalid_argument(
            value.py(),
            format!("{name} must be a list of strings, got {}", got(value)?),
        ));
    };
    items
        .map(|item| text(name, item?.str()?.as_any()))
        .collect()
}

/// A positive, finite number of seconds.
fn seconds(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let number = match value.is_instance_of::<PyBool>() {
        true => None,
        false => value.extract::<f64>().ok(),
    };
    match number {
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => {
            Ok(Duration::from_secs_f64(seconds))
        }
        Some(seconds) => Err(invalid_argument(
            value.py(),
            format!("{name} must be a positive number of seconds, got {seconds}"),
        )),
        None => Err(invalid_argument(
            value.py(),
            format!("{name} must be a number of seconds, got {}", got(value)?),
        )),
    }
}

/// A value as Python sees it.
fn py_value<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: T) -> PyResult<Bound<'py, PyAny>> {
    value.into_bound_py_any(py)
}

// ==== The tables ====

/// A keyword whose value goes to one field of the options as the check makes it.
/// `kind` is one of: `flag`, `count` (a `u64` at least `least`), `size` (a `usize`), `optional
/// count` / `optional size` (the same or `None`), `texts`, `path` (an optional path).
macro_rules! keyword {
    ($name:literal, flag => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "bool",
            set: |o, v| {
                o.$($field).+ = flag($name, v)?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+),
        }
    };
    ($name:literal, count >= $least:expr => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "int",
            set: |o, v| {
                o.$($field).+ = count($name, v, $least as u64)?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+),
        }
    };
    ($name:literal, size >= $least:expr => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "int",
            set: |o, v| {
                o.$($field).+ = size($name, v, $least as u64)?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+),
        }
    };
    ($name:literal, optional count >= $least:expr => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "int | None",
            set: |o, v| {
                o.$($field).+ = optional(v, |v| count($name, v, $least as u64))?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+),
        }
    };
    ($name:literal, optional size >= $least:expr => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "int | None",
            set: |o, v| {
                o.$($field).+ = optional(v, |v| size($name, v, $least as u64))?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+),
        }
    };
    ($name:literal, names of $kind:ty => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "str | Sequence[str] | None",
            set: |o, v| {
                o.$($field).+ = named($name, v, <$kind>::NAMES, <$kind>::from_name)?;
                Ok(())
            },
            default: |o, py| {
                let names: Vec<String> =
                    o.$($field).+.iter().map(|one| one.name().to_string()).collect();
                texts_value(py, &names)
            },
        }
    };
    ($name:literal, texts => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "str | Sequence[str] | None",
            set: |o, v| {
                o.$($field).+ = texts($name, v)?;
                Ok(())
            },
            default: |o, py| texts_value(py, &o.$($field).+),
        }
    };
    ($name:literal, path => $($field:ident).+) => {
        Keyword {
            name: $name,
            annotation: "str | os.PathLike[str] | None",
            set: |o, v| {
                o.$($field).+ = optional(v, |v| path($name, v))?;
                Ok(())
            },
            default: |o, py| py_value(py, o.$($field).+.as_deref()),
        }
    };
}

/// `include_ignored` (rg's `--no-ignore`): the one place the engine's `respect_ignore_files`
/// is inverted.
macro_rules! include_ignored {
    () => {
        Keyword {
            name: "include_ignored",
            annotation: "bool",
            set: |o, v| {
                o.respect_ignore_files = !flag("include_ignored", v)?;
                Ok(())
            },
            default: |o, py| py_value(py, !o.respect_ignore_files),
        }
    };
}

/// The options of a new engine: its workspace's, and its warm index's.
#[derive(Default)]
pub(super) struct EngineOptions {
    pub(super) workspace: WorkspaceOptions,
    /// Keep a warm index (SPEC §2.8).
    pub(super) index: bool,
    pub(super) index_options: IndexOptions,
}

/// `Engine(root, **options)`.
pub(super) const ENGINE: &[Keyword<EngineOptions>] = &[
    Keyword {
        name: "exclude_dirs",
        annotation: "Iterable[str]",
        set: |o, v| {
            o.workspace.exclude_dirs = names("exclude_dirs", v)?;
            Ok(())
        },
        default: |o, py| py_value(py, &o.workspace.exclude_dirs),
    },
    Keyword {
        name: "deny",
        annotation: "Iterable[str]",
        set: |o, v| {
            o.workspace.deny_globs = names("deny", v)?;
            Ok(())
        },
        default: |o, py| py_value(py, &o.workspace.deny_globs),
    },
    Keyword {
        name: "time_budget",
        annotation: "float",
        set: |o, v| {
            o.workspace.time_budget = seconds("time_budget", v)?;
            Ok(())
        },
        default: |o, py| py_value(py, o.workspace.time_budget.as_secs_f64()),
    },
    keyword!("threads", size >= 0 => workspace.threads),
    keyword!("respect_ignore_files", flag => workspace.respect_ignore_files),
    keyword!("index", flag => index),
    Keyword {
        name: "index_dir",
        annotation: "str | os.PathLike[str] | None",
        set: |o, v| {
            o.index_options.index_dir = optional(v, |v| path("index_dir", v))?.map(PathBuf::from);
            Ok(())
        },
        default: |o, py| py_value(py, o.index_options.index_dir.as_deref()),
    },
    keyword!("persist", flag => index_options.persist),
    keyword!("index_build", flag => index_options.build),
];

/// `Engine.glob(pattern, **options)` (the pattern, one glob or several, is positional).
pub(super) const GLOB: &[Keyword<GlobOptions>] = &[
    keyword!("path", path => path),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
    Keyword {
        name: "sort",
        annotation: "Literal['path', 'mtime']",
        set: |o, v| {
            o.sort = match text("sort", v)?.as_str() {
                "path" => SortOrder::Path,
                "mtime" | "modified" => SortOrder::Modified,
                other => {
                    return Err(invalid_argument(
                        v.py(),
                        format!("sort must be \"path\" or \"mtime\", not {other:?}."),
                    ));
                }
            };
            Ok(())
        },
        default: |o, py| {
            py_value(
                py,
                match o.sort {
                    SortOrder::Path => "path",
                    SortOrder::Modified => "mtime",
                },
            )
        },
    },
    keyword!("type", texts => types),
    keyword!("max_depth", optional size >= 0 => max_depth),
    include_ignored!(),
];

/// `pattern` of `Engine.glob`: one glob or several, the first the options' `pattern`.
pub(super) fn glob_patterns(options: &mut GlobOptions, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let mut patterns = texts("pattern", value)?.into_iter();
    let Some(first) = patterns.next() else {
        return Err(invalid_argument(
            value.py(),
            "pattern must name at least one glob".to_string(),
        ));
    };
    options.pattern = first;
    options.more_patterns = patterns.collect();
    Ok(())
}

/// `Engine.grep(pattern, **options)`. `context` comes before `before_context` and
/// `after_context`, which override its sides (as rg's -B and -A override -C).
pub(super) const GREP: &[Keyword<GrepOptions>] = &[
    keyword!("path", path => path),
    keyword!("glob", texts => glob),
    keyword!("literal", flag => literal),
    keyword!("case_insensitive", flag => case_insensitive),
    Keyword {
        name: "context",
        annotation: "int",
        set: |o, v| {
            o.set_context(size("context", v, 0)?);
            Ok(())
        },
        default: |o, py| py_value(py, o.before_context),
    },
    keyword!("multiline", flag => multiline),
    Keyword {
        name: "output_mode",
        annotation: "Literal['content', 'files_with_matches', 'count', 'files_without_match']",
        set: |o, v| {
            o.output_mode = choice("output_mode", v, OutputMode::NAMES, OutputMode::from_name)?;
            Ok(())
        },
        default: |o, py| py_value(py, o.output_mode.name()),
    },
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
    keyword!("max_line_chars", size >= MIN_LINE_CHARS => max_line_chars),
    Keyword {
        name: "before_context",
        annotation: "int | None",
        set: |o, v| {
            if let Some(lines) = optional(v, |v| size("before_context", v, 0))? {
                o.before_context = lines;
            }
            Ok(())
        },
        default: |_, py| Ok(py.None().into_bound(py)),
    },
    Keyword {
        name: "after_context",
        annotation: "int | None",
        set: |o, v| {
            if let Some(lines) = optional(v, |v| size("after_context", v, 0))? {
                o.after_context = lines;
            }
            Ok(())
        },
        default: |_, py| Ok(py.None().into_bound(py)),
    },
    keyword!("type", texts => types),
    keyword!("type_not", texts => types_not),
    keyword!("max_count", optional count >= 0 => max_count),
    keyword!("invert_match", flag => invert_match),
    keyword!("max_depth", optional size >= 0 => max_depth),
    include_ignored!(),
];

/// `Engine.read_file(path, **options)`.
pub(super) const READ_FILE: &[Keyword<ReadOptions>] = &[
    keyword!("offset", count >= 1 => offset),
    keyword!("limit", size >= 1 => limit),
    keyword!("max_line_chars", size >= MIN_LINE_CHARS => max_line_chars),
];

/// `Engine.outline(path, **options)`.
pub(super) const OUTLINE: &[Keyword<OutlineOptions>] = &[
    keyword!("offset", size >= 0 => offset),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("max_depth", optional count >= 0 => max_depth),
];

/// `Engine.definitions(name, **options)`.
pub(super) const DEFINITIONS: &[Keyword<DefinitionsOptions>] = &[
    Keyword {
        name: "match",
        annotation: "Literal['exact', 'prefix', 'regex']",
        set: |o, v| {
            o.matching = choice("match", v, NameMatch::NAMES, NameMatch::from_name)?;
            Ok(())
        },
        default: |o, py| py_value(py, o.matching.name()),
    },
    keyword!("path", path => path),
    keyword!("glob", texts => glob),
    keyword!("kind", names of SymbolKind => kinds),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
];

/// One name or a list of them (`kind`, `role`), each one of `names` (`parse` gives its value).
fn named<T>(
    name: &str,
    value: &Bound<'_, PyAny>,
    names: &[&str],
    parse: fn(&str) -> Option<T>,
) -> PyResult<Vec<T>> {
    texts(name, value)?
        .iter()
        .map(|one| {
            parse(one).ok_or_else(|| {
                invalid_argument(
                    value.py(),
                    format!("{name} must be one of {}, not {one:?}.", names.join(", ")),
                )
            })
        })
        .collect()
}

/// `Engine.references(name, **options)`.
pub(super) const REFERENCES: &[Keyword<ReferencesOptions>] = &[
    keyword!("path", path => path),
    keyword!("glob", texts => glob),
    keyword!("role", names of Role => roles),
    keyword!("kind", names of SymbolKind => kinds),
    Keyword {
        name: "group_by",
        annotation: "Literal['reference', 'caller']",
        set: |o, v| {
            o.group_by = choice("group_by", v, Grouping::NAMES, Grouping::from_name)?;
            Ok(())
        },
        default: |o, py| py_value(py, o.group_by.name()),
    },
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
];

/// `Engine.calls(name, **options)`.
pub(super) const CALLS: &[Keyword<CallsOptions>] = &[
    keyword!("path", path => path),
    keyword!("glob", texts => glob),
    keyword!("kind", names of SymbolKind => kinds),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
];

/// Paths from one path or a list (or tuple) of them; `None`: none.
fn paths(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<OsString>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value.try_iter()?.map(|item| path(name, &item?)).collect();
    }
    Ok(vec![path(name, value)?])
}

/// `Engine.repo_map(**options)`.
pub(super) const REPO_MAP: &[Keyword<RepoMapOptions>] = &[
    keyword!("path", path => path),
    Keyword {
        name: "paths",
        annotation: "str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None",
        set: |o, v| {
            o.paths = paths("paths", v)?;
            Ok(())
        },
        default: |o, py| {
            let paths: Vec<String> = o
                .paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            texts_value(py, &paths)
        },
    },
    keyword!("names", texts => names),
    keyword!("max_chars", size >= MIN_MAP_CHARS => max_chars),
    keyword!("definitions_per_file", size >= 1 => definitions_per_file),
    keyword!("max_files", size >= 1 => max_files),
];

/// `Engine.read_image(path, **options)`.
pub(super) const READ_IMAGE: &[Keyword<ImageOptions>] = &[
    keyword!("max_edge", count >= 1 => bounds.max_edge),
    keyword!("max_pixels", count >= 1 => bounds.max_pixels),
    keyword!("max_bytes", count >= 1 => bounds.max_bytes),
    keyword!("max_source_bytes", count >= 1 => bounds.max_source_bytes),
    keyword!("max_decode_pixels", count >= 1 => bounds.max_decode_pixels),
];

/// `Engine.read_notebook(path, **options)`.
pub(super) const READ_NOTEBOOK: &[Keyword<NotebookOptions>] = &[
    keyword!("offset", count >= 1 => offset),
    keyword!("limit", size >= 1 => limit),
    keyword!("max_output_chars", size >= 0 => max_output_chars),
    keyword!("max_bytes", count >= 1 => max_bytes),
];

/// The options of `Engine.read_notebook_images`: the notebook's cap, and the bounds of each
/// image (`max_image_bytes` is their `max_bytes`).
pub(super) struct NotebookImagesOptions {
    pub(super) max_bytes: u64,
    pub(super) bounds: ImageBounds,
}

impl Default for NotebookImagesOptions {
    fn default() -> Self {
        NotebookImagesOptions {
            max_bytes: DEFAULT_NOTEBOOK_MAX_BYTES,
            bounds: ImageBounds::default(),
        }
    }
}

/// `Engine.read_notebook_images(path, cell, **options)`.
pub(super) const READ_NOTEBOOK_IMAGES: &[Keyword<NotebookImagesOptions>] = &[
    keyword!("max_bytes", count >= 1 => max_bytes),
    keyword!("max_edge", count >= 1 => bounds.max_edge),
    keyword!("max_pixels", count >= 1 => bounds.max_pixels),
    keyword!("max_image_bytes", count >= 1 => bounds.max_bytes),
    keyword!("max_source_bytes", count >= 1 => bounds.max_source_bytes),
    keyword!("max_decode_pixels", count >= 1 => bounds.max_decode_pixels),
];

/// The options of `Engine.read_bytes`: the most bytes read whole (default: the largest PDF).
pub(super) struct BytesOptions {
    pub(super) max_bytes: u64,
}

impl Default for BytesOptions {
    fn default() -> Self {
        BytesOptions {
            max_bytes: PDF_MAX_SOURCE_BYTES,
        }
    }
}

/// `Engine.read_bytes(path, **options)`.
pub(super) const READ_BYTES: &[Keyword<BytesOptions>] =
    &[keyword!("max_bytes", count >= 0 => max_bytes)];

/// `Engine.read_pdf(path, **options)`: the pages (`first` to `last`), the budget that stops
/// them early (0: none), and the parse's deadline (tests and benchmarks shorten it).
pub(super) const READ_PDF: &[Keyword<PdfOptions>] = &[
    keyword!("first", count >= 1 => first),
    keyword!("last", count >= 1 => last),
    keyword!("budget", count >= 0 => budget),
    keyword!("deadline_ms", count >= 1 => deadline_ms),
];
