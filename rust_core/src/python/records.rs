//! What the engine's result structs get as Python classes, derived from their one declaration
//! ([`crate::record!`]): `FIELDS`, `SCHEMA` (JSON Schema, descriptions from the doc comments),
//! `to_dict()` and a repr. Equality comes from `#[pyclass(eq)]`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::error::PatternIssue;
use crate::glob::GlobOutput;
use crate::grep::{FileCount, GrepLine, GrepOutput, OutputMode};
use crate::index::files::{IndexContent, IndexFile, Staleness};
use crate::index::{IndexMode, IndexState, IndexStatus, SymbolPhase};
use crate::media::Refusal;
use crate::media::image::ImageOutput;
use crate::media::notebook::{
    CellKind, CellOutput, NotebookCell, NotebookImage, NotebookImages, NotebookOutput, OutputKind,
};
use crate::media::pdf::{PdfFailure, PdfRead, PdfReadPage};
use crate::outline::calls::{Callee, CallingDefinition, CallsResult};
use crate::outline::definitions::{Definition, DefinitionsOutput, NameMatch, UnparsedFile};
use crate::outline::map::{MapDefinition, MapFile, RepoMapOutput};
use crate::outline::references::{
    Binding, Caller, FoundReference, Grouping, ReferencesOutput, RoleTotals,
};
use crate::outline::role::Role;
use crate::outline::{Language, OutlineOutput, Refusal as OutlineRefusal, Symbol, SymbolKind};
use crate::raw::FileBytes;
use crate::read::{ContentKind, Identified, ReadLine, ReadOutput};
use crate::record::{Bytes, Field, Record, Shape};
use crate::skip::{IgnoreRule, SkipCounts};

/// The string enums of the results reach Python as their names.
macro_rules! choice_to_python {
    ($($choice:ty),*) => {$(
        impl<'py> IntoPyObject<'py> for $choice {
            type Target = PyString;
            type Output = Bound<'py, PyString>;
            type Error = std::convert::Infallible;

            fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
                Ok(PyString::intern(py, self.name()))
            }
        }
    )*};
}

choice_to_python!(
    OutputMode,
    ContentKind,
    PatternIssue,
    IndexState,
    IndexMode,
    SymbolPhase,
    Refusal,
    CellKind,
    OutputKind,
    SymbolKind,
    OutlineRefusal,
    Language,
    NameMatch,
    Staleness,
    IndexContent,
    Role,
    Grouping,
    Binding,
    PdfFailure
);

/// Fields whose values appear in `to_dict()` and the JSON Schema (bytes do not).
fn plain_fields(fields: &[Field]) -> impl Iterator<Item = &Field> {
    fields
        .iter()
        .filter(|f| !matches!((f.shape)(), Shape::Bytes))
}

/// A bytes field reaches Python as `bytes` (one copy).
impl<'py> IntoPyObject<'py> for &Bytes {
    type Target = PyBytes;
    type Output = Bound<'py, PyBytes>;
    type Error = std::convert::Infallible;

    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        Ok(PyBytes::new(py, &self.0))
    }
}

/// The JSON Schema of a value of `shape`.
fn schema<'py>(py: Python<'py>, shape: Shape) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    match shape {
        Shape::Text => out.set_item("type", "string")?,
        Shape::Count => {
            out.set_item("type", "integer")?;
            out.set_item("minimum", 0)?;
        }
        Shape::Integer => out.set_item("type", "integer")?,
        Shape::Number => {
            out.set_item("type", "number")?;
            out.set_item("minimum", 0)?;
        }
        Shape::Flag => out.set_item("type", "boolean")?,
        Shape::Optional(inner) => {
            let inner = schema(py, inner())?;
            if let Some(kind) = inner.get_item("type")? {
                inner.set_item(
                    "type",
                    PyList::new(py, [kind.as_any(), &"null".into_pyobject(py)?.into_any()])?,
                )?;
            }
            // An optional choice: null is one of its values too.
            if let Some(names) = inner.get_item("enum")? {
                let names = names.cast_into::<PyList>()?;
                names.append(py.None())?;
            }
            return Ok(inner);
        }
        Shape::List(inner) => {
            out.set_item("type", "array")?;
            out.set_item("items", schema(py, inner())?)?;
        }
        Shape::Record { fields, .. } => {
            let properties = PyDict::new(py);
            for field in plain_fields(fields) {
                let property = schema(py, (field.shape)())?;
                property.set_item("description", field.description())?;
                properties.set_item(field.name, property)?;
            }
            out.set_item("type", "object")?;
            out.set_item("properties", properties)?;
            out.set_item(
                "required",
                PyList::new(py, plain_fields(fields).map(|f| f.name))?,
            )?;
        }
        Shape::Choice(names) => {
            out.set_item("type", "string")?;
            out.set_item("enum", PyList::new(py, names)?)?;
        }
        Shape::Bytes => {
            out.set_item("type", "string")?;
            out.set_item("contentEncoding", "base64")?;
        }
    }
    Ok(out)
}

/// `value` as plain data: records through their `to_dict()`, lists element by element.
fn plain<'py>(value: Bound<'py, PyAny>, shape: Shape) -> PyResult<Bound<'py, PyAny>> {
    match shape {
        Shape::Record { fields, .. } => Ok(to_dict(&value, fields)?.into_any()),
        Shape::List(inner) => {
            let inner = inner();
            let items = value
                .try_iter()?
                .map(|item| plain(item?, inner))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(value.py(), items)?.into_any())
        }
        Shape::Optional(inner) if !value.is_none() => plain(value, inner()),
        _ => Ok(value),
    }
}

pub(crate) fn to_dict<'py>(
    record: &Bound<'py, PyAny>,
    fields: &[Field],
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(record.py());
    for field in plain_fields(fields) {
        out.set_item(
            field.name,
            plain(record.getattr(field.name)?, (field.shape)())?,
        )?;
    }
    Ok(out)
}

/// `Name(field=repr, ...)`; lists are summarised by their length.
pub(crate) fn repr(record: &Bound<'_, PyAny>, name: &str, fields: &[Field]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for field in fields {
        let value = record.getattr(field.name)?;
        let shown = match (field.shape)() {
            Shape::List(_) => format!("[{} items]", value.len()?),
            Shape::Bytes => format!("<{} bytes>", value.len()?),
            _ => value.repr()?.to_string(),
        };
        parts.push(format!("{}={shown}", field.name));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

pub(crate) fn field_names<'py>(py: Python<'py>, fields: &[Field]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, fields.iter().map(|f| f.name))
}

pub(crate) fn record_schema<'py, R: Record>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    schema(
        py,
        Shape::Record {
            name: R::PY_NAME,
            fields: R::FIELDS,
        },
    )
}

/// The Python methods of a record; extra methods go inside the braces.
macro_rules! record_methods {
    ($record:ty { $($extra:tt)* }) => {
        #[pymethods]
        impl $record {
            /// The field names, in declaration order.
            #[classattr]
            #[pyo3(name = "FIELDS")]
            fn py_fields(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                Ok(field_names(py, <$record as Record>::FIELDS)?.unbind())
            }

            /// The JSON Schema of `to_dict()`, with each field's description.
            #[classattr]
            #[pyo3(name = "SCHEMA")]
            fn py_schema(py: Python<'_>) -> PyResult<Py<PyDict>> {
                Ok(record_schema::<$record>(py)?.unbind())
            }

            /// The result as plain data (dicts, lists, strings, numbers), field by field.
            #[pyo3(name = "to_dict")]
            fn py_to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
                to_dict(slf.as_any(), <$record as Record>::FIELDS)
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                repr(
                    slf.as_any(),
                    <$record as Record>::PY_NAME,
                    <$record as Record>::FIELDS,
                )
            }

            $($extra)*
        }
    };
}

record_methods!(SkipCounts {});
record_methods!(IgnoreRule {});
record_methods!(GlobOutput {});
record_methods!(FileCount {});
record_methods!(ReadLine {});
record_methods!(ReadOutput {});
record_methods!(Identified {});
record_methods!(IndexStatus {});
record_methods!(IndexFile {});
record_methods!(ImageOutput {});
record_methods!(NotebookImage {});
record_methods!(CellOutput {});
record_methods!(NotebookCell {});
record_methods!(NotebookOutput {});
record_methods!(NotebookImages {});
record_methods!(FileBytes {});
record_methods!(PdfReadPage {});
record_methods!(PdfRead {});
record_methods!(Symbol {});
record_methods!(OutlineOutput {});
record_methods!(Definition {
    fn __str__(&self) -> String {
        format!(
            "{}:{} {} {}",
            self.path.to_string_lossy(),
            self.line,
            self.kind.name(),
            self.name
        )
    }
});
record_methods!(UnparsedFile {});
record_methods!(DefinitionsOutput {});
record_methods!(FoundReference {
    fn __str__(&self) -> String {
        let within = match &self.enclosing {
            Some(name) => format!("in {name}"),
            None => "at top level".to_string(),
        };
        format!(
            "{}:{}:{} {} \u{2014} {within}",
            self.path.to_string_lossy(),
            self.line,
            self.column,
            self.role.name(),
        )
    }
});
record_methods!(Caller {});
record_methods!(RoleTotals {});
record_methods!(ReferencesOutput {});
record_methods!(Callee {
    fn __str__(&self) -> String {
        format!(
            "{}:{}:{} {} ({} calls)",
            self.path.to_string_lossy(),
            self.first_line,
            self.first_column,
            self.name,
            self.count,
        )
    }
});
record_methods!(CallingDefinition {});
record_methods!(CallsResult {});
record_methods!(MapDefinition {
    /// The definition as the map lists it, indented under its file (`L120 function kmalloc`;
    /// `map::definition_line_chars` counts the line).
    fn __str__(&self) -> String {
        format!("L{} {} {}", self.line, self.kind.name(), self.name)
    }
});
record_methods!(MapFile {});
record_methods!(RepoMapOutput {});

record_methods!(GrepLine {
    fn __str__(&self) -> String {
        let sep = if self.is_match { ':' } else { '-' };
        format!(
            "{}{sep}{}{sep}{}",
            self.path.to_string_lossy(),
            self.line,
            self.text
        )
    }
});

record_methods!(GrepOutput {
    /// The matching lines of the page (context lines left out).
    #[getter]
    fn matches(&self) -> Vec<GrepLine> {
        self.lines.iter().filter(|l| l.is_match).cloned().collect()
    }
});

/// Adds every result class to the module.
pub(crate) fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SkipCounts>()?;
    m.add_class::<IgnoreRule>()?;
    m.add_class::<GlobOutput>()?;
    m.add_class::<GrepLine>()?;
    m.add_class::<FileCount>()?;
    m.add_class::<GrepOutput>()?;
    m.add_class::<ReadLine>()?;
    m.add_class::<ReadOutput>()?;
    m.add_class::<Identified>()?;
    m.add_class::<IndexStatus>()?;
    m.add_class::<IndexFile>()?;
    m.add_class::<ImageOutput>()?;
    m.add_class::<NotebookImage>()?;
    m.add_class::<CellOutput>()?;
    m.add_class::<NotebookCell>()?;
    m.add_class::<NotebookOutput>()?;
    m.add_class::<NotebookImages>()?;
    m.add_class::<FileBytes>()?;
    m.add_class::<PdfReadPage>()?;
    m.add_class::<PdfRead>()?;
    m.add_class::<Symbol>()?;
    m.add_class::<OutlineOutput>()?;
    m.add_class::<Definition>()?;
    m.add_class::<UnparsedFile>()?;
    m.add_class::<DefinitionsOutput>()?;
    m.add_class::<FoundReference>()?;
    m.add_class::<Caller>()?;
    m.add_class::<RoleTotals>()?;
    m.add_class::<ReferencesOutput>()?;
    m.add_class::<Callee>()?;
    m.add_class::<CallingDefinition>()?;
    m.add_class::<CallsResult>()?;
    m.add_class::<MapDefinition>()?;
    m.add_class::<MapFile>()?;
    m.add_class::<RepoMapOutput>()?;
    Ok(())
}
