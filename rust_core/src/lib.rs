//! ripsight-core: the engine behind ripsight's read-only tools for LLM coding agents.
//!
//! Three bounded operations on one [`workspace::Workspace`] root:
//! - [`glob::glob`]: ignore-aware parallel listing filtered by a glob (default 200 entries shown);
//! - [`grep::grep`]: regex search over the same file set (default 50 matches, lines cut to 120 chars);
//! - [`read::read_file`]: a numbered line range of one file (default 400 lines, lines cut to 500 chars),
//!   with memory bounded by what is shown.
//!
//! - [`media::image::read_image`] and [`media::notebook::read_notebook`]: images prepared for a
//!   model (downscaled within a pixel and byte budget, bombs refused from their header) and
//!   notebooks as numbered cells with their outputs;
//!
//! plus [`truncate::truncate_middle`] for any text, and the warm index ([`index::WarmIndex`])
//! that lists glob's and grep's files from a live table. Every result is deterministic, states exact
//! totals and what was withheld, and counts what was skipped by reason. Nothing here knows about
//! language models; the Python layer turns results into model-facing text.
//!
//! The modules stack without cycles; each imports only from those below it:
//! 1. [`boundary`]: every open, beneath a directory descriptor;
//! 2. `ignore_rules`: ripgrep's ignore files, and the one list of their names;
//! 3. `pattern`: globs compiled and normalized (grep's `glob` filter too), and [`path_rules`]:
//!    the globs that cover paths (deny rules, the MCP server's ask rules);
//! 4. [`workspace`]: the root, its options, deny rules and caches;
//! 5. [`walker`]: the one parallel walk from directory descriptors, and [`candidates`]: where a
//!    search's files come from (the walk, or a source that lists them: the warm index);
//! 6. [`open`]: requested paths opened, and the targets the tools walk or search;
//! 7. [`workers`]: the one pool of worker processes that run untrusted parsers (tree-sitter,
//!    PDFium) under limits and a deadline per job, and the frames they speak;
//! 8. the tools: [`glob`], [`grep`], [`read`], `suggest` ("did you mean"), [`raw`] (a file's
//!    bytes) and [`media`] (images, notebooks, and PDFs through a worker, read by `raw`);
//! 9. [`outline`]: outlines and definitions (tree-sitter in a worker process; a definitions
//!    search takes its candidates from the grep it is given, so it needs no floor above);
//! 10. [`limits`] (every default and bound by name), then [`index`] (the warm index);
//! 11. `python`, the PyO3 binding (feature `python`).
//!
//! Beside them, used from any floor: [`error`], [`budget`], [`background`] (background work
//! at the lowest priority, giving way to calls), [`skip`], [`record`](mod@record),
//! [`truncate`], `keyblock` (private-key blocks withheld from what is shown), and `threads`
//! (a thread the system refuses becomes work done on the calling thread).
//!
//! ```no_run
//! use ripsight_core::workspace::{Workspace, WorkspaceOptions};
//! use ripsight_core::glob::{glob, GlobOptions};
//!
//! let ws = Workspace::new(".", WorkspaceOptions::default())?;
//! let out = glob(&ws, &GlobOptions { pattern: "**/*.rs".into(), ..GlobOptions::default() })?;
//! assert!(out.paths.len() as u64 <= out.total);
//! # Ok::<(), ripsight_core::error::CoreError>(())
//! ```
#![warn(missing_docs)]

pub mod background;
pub mod boundary;
pub mod budget;
pub mod candidates;
pub mod error;
pub mod glob;
pub mod grep;
mod ignore_rules;
pub mod index;
mod keyblock;
pub mod limits;
pub mod media;
pub mod open;
pub mod outline;
pub mod path_rules;
mod pattern;
pub mod raw;
pub mod read;
pub mod record;
pub mod skip;
mod suggest;
mod threads;
pub mod truncate;
pub mod walker;
pub mod workers;
pub mod workspace;

#[cfg(feature = "python")]
mod python;
