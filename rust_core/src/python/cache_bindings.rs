//! The index files of a cache directory from Python: `index_files` lists them and
//! `prune_index_files` removes the stale ones ([`crate::index::files`]).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use pyo3::prelude::*;

use super::errors::{Class, invalid_argument, new_error};
use crate::index::files::{self, CachePolicy, IndexFile};

/// The directory (`dir`, or the default one) and the policy the arguments describe.
fn arguments(
    py: Python<'_>,
    dir: Option<PathBuf>,
    max_age_seconds: Option<f64>,
    max_bytes: Option<u64>,
) -> PyResult<(PathBuf, CachePolicy)> {
    let Some(dir) = dir.or_else(files::default_dir) else {
        return Err(invalid_argument(
            py,
            "this platform has no cache directory; name one with dir".to_string(),
        ));
    };
    let mut policy = CachePolicy::default();
    if let Some(seconds) = max_age_seconds {
        policy.max_age = Duration::try_from_secs_f64(seconds).map_err(|_| {
            invalid_argument(
                py,
                format!("max_age_seconds must be 0 or more, got {seconds}."),
            )
        })?;
    }
    if let Some(bytes) = max_bytes {
        policy.max_bytes = bytes;
    }
    Ok((dir, policy))
}

fn io_error(py: Python<'_>, dir: &std::path::Path, error: std::io::Error) -> PyErr {
    new_error(
        py,
        Class::Unreadable,
        format!("cannot list {}: {error}", dir.display()),
        &[],
    )
}

/// The default directory of index files (`ripsight/index/` in the user's cache directory), or
/// None where the platform has none.
#[pyfunction]
fn index_dir() -> Option<std::ffi::OsString> {
    files::default_dir().map(PathBuf::into_os_string)
}

/// Every index file in `dir` (default: `index_dir()`), most recently used first, each marked
/// with why it is stale under the age limit and the size cap (default: `LIMITS`'
/// `index_cache_max_age_seconds` and `index_cache_max_bytes`). Removes nothing.
#[pyfunction]
#[pyo3(signature = (dir = None, *, max_age_seconds = None, max_bytes = None))]
fn index_files(
    py: Python<'_>,
    dir: Option<PathBuf>,
    max_age_seconds: Option<f64>,
    max_bytes: Option<u64>,
) -> PyResult<Vec<IndexFile>> {
    let (dir, policy) = arguments(py, dir, max_age_seconds, max_bytes)?;
    py.detach(|| files::list(&dir, &policy, SystemTime::now()))
        .map_err(|error| io_error(py, &dir, error))
}

/// `index_files`, with every stale file removed (`removed`), except one a process is writing
/// (`busy`).
#[pyfunction]
#[pyo3(signature = (dir = None, *, max_age_seconds = None, max_bytes = None))]
fn prune_index_files(
    py: Python<'_>,
    dir: Option<PathBuf>,
    max_age_seconds: Option<f64>,
    max_bytes: Option<u64>,
) -> PyResult<Vec<IndexFile>> {
    let (dir, policy) = arguments(py, dir, max_age_seconds, max_bytes)?;
    py.detach(|| files::prune(&dir, &policy, SystemTime::now(), None))
        .map_err(|error| io_error(py, &dir, error))
}

pub(super) fn add_to_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(index_dir, m)?)?;
    m.add_function(wrap_pyfunction!(index_files, m)?)?;
    m.add_function(wrap_pyfunction!(prune_index_files, m)?)?;
    let names: Vec<String> = files::Staleness::NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    m.add("INDEX_STALENESS", names)?;
    Ok(())
}
