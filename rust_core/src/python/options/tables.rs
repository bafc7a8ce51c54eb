//! The keyword arguments of each engine call, one table per call, in the order they are taken.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::checks::{
    choice, count, flag, named, names, optional, path, paths, py_value, seconds, size, text, texts,
    texts_value,
};
use super::keyword::Keyword;
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
use crate::outline::role::Role;
use crate::outline::{OutlineOptions, SymbolKind};
use crate::python::errors::invalid_argument;
use crate::read::ReadOptions;
use crate::workspace::WorkspaceOptions;

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
pub(crate) struct EngineOptions {
    pub(crate) workspace: WorkspaceOptions,
    /// Keep a warm index (SPEC §2.8).
    pub(crate) index: bool,
    pub(crate) index_options: IndexOptions,
}

/// `Engine(root, **options)`.
pub(crate) const ENGINE: &[Keyword<EngineOptions>] = &[
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
pub(crate) const GLOB: &[Keyword<GlobOptions>] = &[
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
pub(crate) fn glob_patterns(options: &mut GlobOptions, value: &Bound<'_, PyAny>) -> PyResult<()> {
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
pub(crate) const GREP: &[Keyword<GrepOptions>] = &[
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
pub(crate) const READ_FILE: &[Keyword<ReadOptions>] = &[
    keyword!("offset", count >= 1 => offset),
    keyword!("limit", size >= 1 => limit),
    keyword!("max_line_chars", size >= MIN_LINE_CHARS => max_line_chars),
];

/// `Engine.outline(path, **options)`.
pub(crate) const OUTLINE: &[Keyword<OutlineOptions>] = &[
    keyword!("offset", size >= 0 => offset),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("max_depth", optional count >= 0 => max_depth),
];

/// `Engine.definitions(name, **options)`.
pub(crate) const DEFINITIONS: &[Keyword<DefinitionsOptions>] = &[
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

/// `Engine.references(name, **options)`.
pub(crate) const REFERENCES: &[Keyword<ReferencesOptions>] = &[
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
    Keyword {
        name: "definition",
        annotation: "str | None",
        set: |o, v| {
            o.definition = optional(v, |v| definition_at(&text("definition", v)?, v.py()))?;
            Ok(())
        },
        default: |o, py| {
            let at = o
                .definition
                .as_ref()
                .map(|(path, line)| format!("{}:{line}", path.to_string_lossy()));
            py_value(py, at)
        },
    },
];

/// A definition named by `PATH:LINE` (the line a positive integer).
fn definition_at(at: &str, py: Python<'_>) -> PyResult<(std::ffi::OsString, u64)> {
    let parsed = at
        .rsplit_once(':')
        .and_then(|(path, line)| Some((path, line.parse::<u64>().ok()?)))
        .filter(|(path, line)| !path.is_empty() && *line >= 1);
    match parsed {
        Some((path, line)) => Ok((path.into(), line)),
        None => Err(invalid_argument(
            py,
            format!("definition must be PATH:LINE with a line of 1 or more, got {at:?}"),
        )),
    }
}

/// `Engine.calls(name, **options)`.
pub(crate) const CALLS: &[Keyword<CallsOptions>] = &[
    keyword!("path", path => path),
    keyword!("glob", texts => glob),
    keyword!("kind", names of SymbolKind => kinds),
    keyword!("limit", optional size >= 1 => limit),
    keyword!("offset", size >= 0 => offset),
];

/// `Engine.repo_map(**options)`.
pub(crate) const REPO_MAP: &[Keyword<RepoMapOptions>] = &[
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
pub(crate) const READ_IMAGE: &[Keyword<ImageOptions>] = &[
    keyword!("max_edge", count >= 1 => bounds.max_edge),
    keyword!("max_pixels", count >= 1 => bounds.max_pixels),
    keyword!("max_bytes", count >= 1 => bounds.max_bytes),
    keyword!("max_source_bytes", count >= 1 => bounds.max_source_bytes),
    keyword!("max_decode_pixels", count >= 1 => bounds.max_decode_pixels),
];

/// `Engine.read_notebook(path, **options)`.
pub(crate) const READ_NOTEBOOK: &[Keyword<NotebookOptions>] = &[
    keyword!("offset", count >= 1 => offset),
    keyword!("limit", size >= 1 => limit),
    keyword!("max_output_chars", size >= 0 => max_output_chars),
    keyword!("max_bytes", count >= 1 => max_bytes),
];

/// The options of `Engine.read_notebook_images`: the notebook's cap, and the bounds of each
/// image (`max_image_bytes` is their `max_bytes`).
pub(crate) struct NotebookImagesOptions {
    pub(crate) max_bytes: u64,
    pub(crate) bounds: ImageBounds,
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
pub(crate) const READ_NOTEBOOK_IMAGES: &[Keyword<NotebookImagesOptions>] = &[
    keyword!("max_bytes", count >= 1 => max_bytes),
    keyword!("max_edge", count >= 1 => bounds.max_edge),
    keyword!("max_pixels", count >= 1 => bounds.max_pixels),
    keyword!("max_image_bytes", count >= 1 => bounds.max_bytes),
    keyword!("max_source_bytes", count >= 1 => bounds.max_source_bytes),
    keyword!("max_decode_pixels", count >= 1 => bounds.max_decode_pixels),
];

/// The options of `Engine.read_bytes`: the most bytes read whole (default: the largest PDF).
pub(crate) struct BytesOptions {
    pub(crate) max_bytes: u64,
}

impl Default for BytesOptions {
    fn default() -> Self {
        BytesOptions {
            max_bytes: PDF_MAX_SOURCE_BYTES,
        }
    }
}

/// `Engine.read_bytes(path, **options)`.
pub(crate) const READ_BYTES: &[Keyword<BytesOptions>] =
    &[keyword!("max_bytes", count >= 0 => max_bytes)];

/// `Engine.read_pdf(path, **options)`: the pages (`first` to `last`), the budget that stops
/// them early (0: none), and the parse's deadline (tests and benchmarks shorten it).
pub(crate) const READ_PDF: &[Keyword<PdfOptions>] = &[
    keyword!("first", count >= 1 => first),
    keyword!("last", count >= 1 => last),
    keyword!("budget", count >= 0 => budget),
    keyword!("deadline_ms", count >= 1 => deadline_ms),
];
