//! The checks of the engine calls' keyword arguments, one per kind of value: each takes the
//! Python value and the argument's name, and gives the engine's value or an
//! `InvalidArgumentError` naming the argument and what it got (see [`super`] for the rules).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString, PyTuple};

use crate::python::errors::invalid_argument;

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
pub(crate) fn count(name: &str, value: &Bound<'_, PyAny>, least: u64) -> PyResult<u64> {
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
pub(super) fn size(name: &str, value: &Bound<'_, PyAny>, least: u64) -> PyResult<usize> {
    let number = count(name, value, least)?;
    usize::try_from(number).map_err(|_| {
        invalid_argument(
            value.py(),
            format!("{name} must be at most {}, got {number}", usize::MAX),
        )
    })
}

/// `None`, or what `take` makes of the value.
pub(super) fn optional<T>(
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
pub(crate) fn text(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
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
pub(super) fn texts(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
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
pub(super) fn texts_value<'py>(py: Python<'py>, values: &[String]) -> PyResult<Bound<'py, PyAny>> {
    match values.is_empty() {
        true => Ok(py.None().into_bound(py)),
        false => Ok(PyList::new(py, values)?.into_any()),
    }
}

/// A path: a `str` or an `os.PathLike` (a name that is not UTF-8 arrives as the surrogate
/// escapes `os.fsdecode` makes, and goes back to its bytes).
pub(crate) fn path(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
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
pub(super) fn choice<T>(
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
pub(super) fn names(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
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
pub(super) fn seconds(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
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
pub(super) fn py_value<'py, T: IntoPyObject<'py>>(
    py: Python<'py>,
    value: T,
) -> PyResult<Bound<'py, PyAny>> {
    value.into_bound_py_any(py)
}

/// One name or a list of them (`kind`, `role`), each one of `names` (`parse` gives its value).
pub(super) fn named<T>(
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

/// Paths from one path or a list (or tuple) of them; `None`: none.
pub(super) fn paths(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<OsString>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value.try_iter()?.map(|item| path(name, &item?)).collect();
    }
    Ok(vec![path(name, value)?])
}
