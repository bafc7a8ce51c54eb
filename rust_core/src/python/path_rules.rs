//! `PathRules` as Python sees it: globs read the way the deny policy reads them, for the Python
//! layer's own list of them (the ask rules of `ripsight mcp --ask`).

use pyo3::prelude::*;

use crate::error::PatternIssue;
use crate::path_rules::PathRules;

#[pymethods]
impl PathRules {
    /// Compiles `globs`; one that does not compile raises `PatternError` (issue `ask_rule`).
    #[new]
    fn py_new(globs: Vec<String>) -> PyResult<PathRules> {
        Ok(PathRules::new(&globs, PatternIssue::AskRule)?)
    }

    /// The rule covering `path` (relative to the root, `/`-separated), or None.
    #[pyo3(name = "covering")]
    fn py_covering(&self, path: &str) -> Option<String> {
        self.covering(path.as_bytes()).map(str::to_string)
    }

    fn __repr__(&self) -> String {
        format!("PathRules({} rules)", self.len())
    }
}
