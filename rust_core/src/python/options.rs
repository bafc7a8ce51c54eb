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
//!
//! In three parts: [`keyword`] (a keyword argument, and a call's dict made its options),
//! [`checks`] (one check per kind of value) and [`tables`] (one table per call).

mod checks;
mod keyword;
mod tables;

use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) use self::checks::{count, path, text};
use self::keyword::described;
pub(super) use self::keyword::options;
pub(super) use self::tables::{
    BytesOptions, CALLS, DEFINITIONS, ENGINE, EngineOptions, GLOB, GREP, NotebookImagesOptions,
    OUTLINE, READ_BYTES, READ_FILE, READ_IMAGE, READ_NOTEBOOK, READ_NOTEBOOK_IMAGES, READ_PDF,
    REFERENCES, REPO_MAP, glob_patterns,
};

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
