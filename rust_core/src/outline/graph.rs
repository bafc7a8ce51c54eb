//! The symbols of many files at once, as the repository map ranks them: every name interned
//! once, each file's definitions, and the names each file references with how often.
//!
//! Two producers fill it: a cold collection (the files of a subtree parsed in workers, for a
//! tree without a symbol index) and the symbol index (read from its tables). One consumer
//! reads it: the map's ranking. Neither side knows the other; this is the contract between
//! them.

use std::ffi::OsString;

use super::SymbolKind;
use super::lang::Language;

/// Names and files; a name id is an index into `names`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolGraph {
    /// Every name that a file defines or references, each once.
    pub names: Vec<String>,
    /// The files, in path order (byte order), each once.
    pub files: Vec<GraphFile>,
    /// Whether the producer bound the references (`GraphFile::bound_start`).
    pub bound: bool,
}

/// One file's part of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphFile {
    /// The file, relative to the root.
    pub path: OsString,
    /// The language it was parsed as.
    pub language: Language,
    /// Its definitions in source order.
    pub definitions: Vec<GraphDefinition>,
    /// The names it references as code, each once, sorted by name id, with how many times.
    pub references: Vec<(u32, u32)>,
    /// Where the uses of each of `references` lead when the producer bound them (through the
    /// file's includes or imports): `bound[bound_start[k]..bound_start[k + 1]]` are the files
    /// (indices into the graph's `files`) whose definitions the uses of `references[k]` bind
    /// to, none when they are found by name. A leading [`NOWHERE`] marks uses found by name
    /// among these files only (the definitions the file can mean): with none of them in the
    /// graph they lead nowhere. Both empty when the producer does not bind.
    pub bound_start: Vec<u32>,
    /// See `bound_start`.
    pub bound: Vec<u32>,
}

/// See [`GraphFile::bound_start`].
pub const NOWHERE: u32 = u32::MAX;

impl GraphFile {
    /// The files the uses of `references[k]` bind to (empty: found by name).
    pub fn bound(&self, k: usize) -> &[u32] {
        match (self.bound_start.get(k), self.bound_start.get(k + 1)) {
            (Some(&a), Some(&b)) => self.bound.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// One definition of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphDefinition {
    /// Its name's id.
    pub name: u32,
    /// What it is.
    pub kind: SymbolKind,
    /// 1-based first line.
    pub line: u32,
    /// 1-based last line.
    pub end_line: u32,
    /// How deep it is nested in other definitions (0 at the top of the file).
    pub depth: u32,
}
