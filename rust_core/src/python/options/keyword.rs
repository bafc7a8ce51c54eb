//! One keyword argument of an engine call ([`Keyword`]), and what becomes of a call's dict of
//! them: the call's options ([`options`]), or the keywords' types and defaults as Python reads
//! them ([`described`], for `KEYWORDS`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One keyword argument of an engine call whose options are an `O`.
pub(crate) struct Keyword<O> {
    /// The name Python gives it.
    pub(super) name: &'static str,
    /// The Python type it takes, as the stub writes it.
    pub(super) annotation: &'static str,
    /// Checks a given value and stores it in the options.
    pub(super) set: fn(&mut O, &Bound<'_, PyAny>) -> PyResult<()>,
    /// Its default as Python sees it, read from `O::default()`.
    pub(super) default: for<'py> fn(&O, Python<'py>) -> PyResult<Bound<'py, PyAny>>,
}

/// The options of one call: `O::default()`, then every keyword of `kwargs` that `keywords`
/// declares, checked and stored in the table's order. A name the table does not declare is a
/// `TypeError`, as Python's own calls raise.
pub(crate) fn options<O: Default>(
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
pub(super) fn described<'py, O: Default>(
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
