//! The cold producer of a [`SymbolGraph`]: the source files of a subtree parsed with their
//! references in the workers, as `find_references` parses its candidates (or taken from the
//! outline cache), for a tree without a symbol index.
//!
//! Bounded twice: at most `max_files` files are parsed (the shallowest, in path order within a
//! depth; the graph then says it is capped), and the call's deadline stops the parses (the files
//! not reached are counted). A file that cannot be parsed costs its own definitions and
//! references, never the call. Markdown is left out: its headings are no code another file
//! uses.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use super::definitions::{MAX_UNPARSED_LISTED, Parsedness, UnparsedFile, outline_all};
use super::graph::{GraphDefinition, GraphFile, SymbolGraph};
use super::lang::Language;
use super::parse::Parsed;
use super::source::Source;
use crate::budget::Deadline;
use crate::workspace::Workspace;

use super::outliner::Outliner;

/// Source files a cold map parses at most (the rest are counted, not parsed).
pub const MAX_COLD_FILES: usize = 20_000;

/// A graph collected cold, and what it covers.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    /// The files parsed, their definitions and references.
    pub graph: SymbolGraph,
    /// Source files listed (those with a parser for code, before the cap).
    pub files_listed: u64,
    /// Files parsed (now or from the cache).
    pub files_parsed: u64,
    /// Files whose parse came from the cache.
    pub files_cached: u64,
    /// Files without a parse (the first 20; `unparsed_total` counts all).
    pub unparsed: Vec<UnparsedFile>,
    /// Files without a parse.
    pub unparsed_total: u64,
    /// Files left unparsed because the file cap was reached.
    pub files_over_cap: u64,
    /// Files left unparsed because the time budget ran out.
    pub files_not_reached: u64,
}

/// The `keep` files of `code` (in path order) a capped map parses: the shallowest first (a
/// tree's top directories before one deep corner of it), in path order within a depth; the
/// choice depends on the paths alone, never on time. Returned in path order.
fn capped(mut code: Vec<&OsString>, keep: usize) -> Vec<&OsString> {
    if code.len() > keep {
        let depth = |p: &OsString| p.as_encoded_bytes().iter().filter(|&&b| b == b'/').count();
        // Stable: path order within a depth.
        code.sort_by_key(|p| depth(p));
        code.truncate(keep);
        code.sort();
    }
    code
}

/// One file's part, as a worker's parse gives it: definitions and referenced names by text.
struct FileSymbols {
    definitions: Vec<(String, GraphDefinition)>,
    references: Vec<(String, u32)>,
}

/// Whether a cold map parses a file of this name: a language with code (Markdown has none).
pub fn is_code(path: &Path) -> bool {
    Language::from_path(path).is_some_and(Language::has_code)
}

/// Parses `files` (relative to the root, in path order; those [`is_code`] refuses are
/// passed over) until `deadline`, at most `max_files` of them, into a graph.
pub fn collect(
    workspace: &Workspace,
    outliner: &Outliner,
    files: &[OsString],
    deadline: &Deadline,
    max_files: usize,
) -> Collected {
    let code: Vec<&OsString> = files.iter().filter(|p| is_code(Path::new(p))).collect();
    let mut out = Collected {
        files_listed: code.len() as u64,
        ..Collected::default()
    };
    let parsed = code.len().min(max_files);
    out.files_over_cap = (code.len() - parsed) as u64;
    let candidates = &capped(code, parsed);
    let keep = |_: &Source, parsed: Arc<Parsed>| symbols(&parsed);
    let outcomes = outline_all(workspace, outliner, candidates, deadline, true, &keep);

    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut intern = |name: String| -> u32 {
        if let Some(&id) = ids.get(&name) {
            return id;
        }
        let id = names.len() as u32;
        names.push(name.clone());
        ids.insert(name, id);
        id
    };
    let mut graph_files = Vec::new();
    for (path, outcome) in candidates.iter().zip(outcomes) {
        match outcome {
            Parsedness::Outlined {
                kept,
                language,
                cached,
            } => {
                out.files_parsed += 1;
                out.files_cached += u64::from(cached);
                let definitions = kept
                    .definitions
                    .into_iter()
                    .map(|(name, definition)| GraphDefinition {
                        name: intern(name),
                        ..definition
                    })
                    .collect();
                let mut references: Vec<(u32, u32)> = kept
                    .references
                    .into_iter()
                    .map(|(name, times)| (intern(name), times))
                    .collect();
                references.sort_unstable();
                graph_files.push(GraphFile {
                    path: (*path).clone(),
                    language,
                    definitions,
                    references,
                    bound_start: Vec::new(),
                    bound: Vec::new(),
                });
            }
            Parsedness::Unparsed(refused, detail) => {
                out.unparsed_total += 1;
                if out.unparsed.len() < MAX_UNPARSED_LISTED {
                    out.unparsed.push(UnparsedFile {
                        path: (*path).clone(),
                        refused,
                        detail,
                    });
                }
            }
            Parsedness::Skipped => {}
            Parsedness::NotReached => out.files_not_reached += 1,
        }
    }
    out.graph = SymbolGraph {
        names,
        files: graph_files,
        bound: false,
    };
    out
}

/// What the graph keeps of one parse: every definition, and each name referenced as code
/// (declarations without a value, role `other`, are no use of anything) with how often.
fn symbols(parsed: &Parsed) -> FileSymbols {
    let definitions = parsed
        .entries
        .iter()
        .map(|entry| {
            let definition = GraphDefinition {
                name: 0,
                kind: entry.kind,
                line: u32::try_from(entry.line).unwrap_or(u32::MAX),
                end_line: u32::try_from(entry.end_line).unwrap_or(u32::MAX),
                depth: entry.depth,
            };
            (entry.name.clone(), definition)
        })
        .collect();
    let mut references = Vec::new();
    if let Some(all) = &parsed.references {
        let mut times = vec![0u32; all.names.len()];
        for reference in all.list.iter().filter(|r| r.role.links_files()) {
            if let Some(slot) = times.get_mut(reference.name as usize) {
                *slot = slot.saturating_add(1);
            }
        }
        references = all
            .names
            .iter()
            .zip(times)
            .filter(|&(_, times)| times > 0)
            .map(|(name, times)| (name.clone(), times))
            .collect();
    }
    FileSymbols {
        definitions,
        references,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_keeps_the_shallowest_files_in_path_order() {
        let paths: Vec<OsString> = ["a/b/c/deep.c", "a/b/mid.c", "b/x.c", "top.c", "z/y.c"]
            .iter()
            .map(OsString::from)
            .collect();
        let code: Vec<&OsString> = paths.iter().collect();
        let kept: Vec<&str> = capped(code.clone(), 3)
            .iter()
            .map(|p| p.to_str().unwrap())
            .collect();
        assert_eq!(kept, ["b/x.c", "top.c", "z/y.c"]);
        assert_eq!(
            capped(code.clone(), 9),
            code,
            "under the cap: every file, as given"
        );
    }
}
