//! The repository map (SPEC §2.4c): the files of a tree ranked by how much the rest of the
//! tree uses them ([`super::rank`]), each with its most-used definitions and their lines, cut to
//! a character budget.
//!
//! The symbols come from a producer that fills a [`SymbolGraph`]; the ranking knows nothing of
//! where they came from. Here the producer is the cold one ([`super::collect`]): the source
//! files under `path` listed by the workspace's glob (the warm index's when it has one) and
//! parsed in the workers within the call's time budget and [`MAX_COLD_FILES`]; a map of a part
//! of the tree says which part and why.
//!
//! The budget counts the map's listing as the records print it (`str()` of a [`MapFile`] and a
//! [`MapDefinition`]): a file's line is its path, a definition's line `  L<line> <kind> <name>`,
//! each with its newline. Files come in rank order, each with up to `definitions_per_file` of
//! its most-used definitions shown in line order; the listing stops at the first file whose
//! lines do not all fit, which keeps the definitions that do. A file no other file uses shows
//! its first top-level definitions.

use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;

use super::SymbolKind;
pub use super::collect::MAX_COLD_FILES;
use super::collect::{self, Collected};
use super::definitions::UnparsedFile;
use super::graph::SymbolGraph;
use super::lang::Language;
use super::outliner::Outliner;
use super::rank::{self, Focus, Prepared, Ranking};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::glob::{GlobOptions, GlobOutput};
use crate::skip::SkipCounts;
use crate::workspace::Workspace;

/// Characters of listing a map holds unless the call asks otherwise.
pub const DEFAULT_MAP_CHARS: usize = 6_000;
/// The smallest budget a map takes: a file or two with the sentences around them.
pub const MIN_MAP_CHARS: usize = 500;
/// Definitions shown per file at most, unless the call asks otherwise.
pub const DEFAULT_MAP_DEFINITIONS: usize = 8;
/// Focus paths and names a call takes, at most (each).
pub const MAX_FOCUS: usize = 100;

crate::record! {
    "MapDefinition",
    /// One definition of a file of the map.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct MapDefinition {
        /// Its name.
        pub name: String,
        /// What it is.
        pub kind: SymbolKind,
        /// 1-based line of its name.
        pub line: u64,
        /// 1-based last line.
        pub end_line: u64,
        /// References to it from other files of the map: bound to it, or found by name.
        pub references: u64,
    }
}

crate::record! {
    "MapFile",
    /// One file of the map, in rank order.
    #[derive(Clone, Debug, PartialEq)]
    pub struct MapFile {
        /// The file, relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// The language it was parsed as.
        pub language: Language,
        /// Its rank (the ranks of all files ranked sum to 1).
        pub rank: f64,
        /// Its most-used definitions shown, in line order.
        pub definitions: Vec<MapDefinition>,
        /// Its definitions other files use (those shown among them).
        pub used_definitions: u64,
    }
}

crate::record! {
    "RepoMapResult",
    /// The files of a tree ranked by how much the rest uses them, cut to a character budget.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct RepoMapOutput {
        /// The files shown, most important first.
        pub files: Vec<MapFile>,
        /// Files ranked (every file parsed under path).
        pub files_ranked: u64,
        /// Ranked files left out by the budget.
        pub files_left: u64,
        /// Used definitions of the files shown that were left out (by the budget or the
        /// per-file cap).
        pub definitions_left: u64,
        /// Characters of the listing (each file's and definition's line with its newline).
        pub chars: u64,
        /// The budget of the listing, in characters.
        pub max_chars: u64,
        /// Source files with a parser for code under path.
        pub files_listed: u64,
        /// Files parsed (now or from the cache).
        pub files_parsed: u64,
        /// Files whose parse came from the cache.
        pub files_cached: u64,
        /// Files without a parse (the first 20; unparsed_total counts all).
        pub unparsed: Vec<UnparsedFile>,
        /// Files without a parse.
        pub unparsed_total: u64,
        /// Source files not parsed because there were more than the cap (the shallowest were
        /// parsed, in path order within a depth).
        pub files_over_cap: u64,
        /// The cap on files parsed.
        pub max_files: u64,
        /// Source files not parsed because the time budget ran out.
        pub files_not_reached: u64,
        /// The map covers only part of the tree (over the cap, out of time, or the listing's
        /// walk stopped early).
        pub partial: bool,
        /// Focus paths that are no ranked file and hold none.
        pub focus_unmatched: Vec<OsString>,
        /// Focus names that no ranked file defines.
        pub names_undefined: Vec<String>,
        /// Iterations of the ranking.
        pub iterations: u64,
        /// The references were bound through includes and imports where they reach a
        /// definition (the symbol index's graph), else found by name; false: all by name.
        pub bound: bool,
        /// What the listing's walk passed over, by reason.
        pub skipped: SkipCounts,
        /// Engine time in milliseconds.
        pub elapsed_ms: f64,
    }
}

/// What to map.
#[derive(Clone, Debug)]
pub struct RepoMapOptions {
    /// The directory to map (default: the root).
    pub path: Option<OsString>,
    /// Focus: files (or directories) the conversation is about.
    pub paths: Vec<OsString>,
    /// Focus: identifiers the conversation is about.
    pub names: Vec<String>,
    /// Characters of listing at most.
    pub max_chars: usize,
    /// Definitions shown per file at most.
    pub definitions_per_file: usize,
    /// Source files parsed at most.
    pub max_files: usize,
    /// Stops the call (it then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for RepoMapOptions {
    fn default() -> Self {
        RepoMapOptions {
            path: None,
            paths: Vec::new(),
            names: Vec::new(),
            max_chars: DEFAULT_MAP_CHARS,
            definitions_per_file: DEFAULT_MAP_DEFINITIONS,
            max_files: MAX_COLD_FILES,
            cancel: CancelToken::default(),
        }
    }
}

/// Characters of a file's line in the listing: its path and a newline.
pub fn file_line_chars(path: &OsString) -> usize {
    path.to_string_lossy().chars().count() + 1
}

/// Characters of a definition's line in the listing: `  L<line> <kind> <name>` and a newline.
pub fn definition_line_chars(definition: &MapDefinition) -> usize {
    3 + digits(definition.line)
        + 1
        + definition.kind.name().len()
        + 1
        + definition.name.chars().count()
        + 1
}

fn digits(mut number: u64) -> usize {
    let mut count = 1;
    while number >= 10 {
        number /= 10;
        count += 1;
    }
    count
}

/// The map of `options.path`, cold: its source files listed by `list` (the workspace's glob,
/// the warm index's when it has one), parsed, ranked and cut to the budget.
///
/// Errors: those of glob's `path` (missing, not a directory, outside the root, denied), a
/// focus list longer than [`MAX_FOCUS`], or `Cancelled`.
pub fn repo_map(
    workspace: &Workspace,
    outliner: &Outliner,
    options: &RepoMapOptions,
    list: &(dyn Fn(&GlobOptions) -> Result<GlobOutput, CoreError> + Sync),
) -> Result<RepoMapOutput, CoreError> {
    let started = std::time::Instant::now();
    check_focus(options)?;
    let deadline = workspace.deadline_with(&options.cancel);
    let listed = list(&GlobOptions {
        pattern: "**/*".into(),
        path: options.path.clone(),
        limit: None,
        cancel: options.cancel.clone(),
        ..GlobOptions::default()
    })?;
    let collected = collect::collect(
        workspace,
        outliner,
        &listed.paths,
        &deadline,
        options.max_files,
    );
    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }
    let mut out = map_of(&collected.graph, None, options);
    let Collected {
        files_listed,
        files_parsed,
        files_cached,
        unparsed,
        unparsed_total,
        files_over_cap,
        files_not_reached,
        ..
    } = collected;
    out.files_listed = files_listed;
    out.files_parsed = files_parsed;
    out.files_cached = files_cached;
    out.unparsed = unparsed;
    out.unparsed_total = unparsed_total;
    out.files_over_cap = files_over_cap;
    out.files_not_reached = files_not_reached;
    out.max_files = options.max_files as u64;
    out.partial = files_over_cap > 0 || files_not_reached > 0 || listed.incomplete;
    out.skipped = listed.skipped;
    out.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(out)
}

/// The map of a graph the symbol index filled (every source file under `path` it describes,
/// plus the files changed since, parsed cold): the same ranking and budget as [`repo_map`],
/// with nothing left unparsed for want of time or the file cap.
pub fn repo_map_of_graph(
    graph: &MapGraph,
    options: &RepoMapOptions,
    started: std::time::Instant,
) -> Result<RepoMapOutput, CoreError> {
    check_focus(options)?;
    let mut out = graph.map(options);
    let graph = &graph.graph;
    out.files_listed = graph.files.len() as u64;
    out.files_parsed = graph.files.len() as u64;
    out.max_files = options.max_files as u64;
    out.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(out)
}

/// A focus list too long is refused (each focus entry costs a pass over the graph).
fn check_focus(options: &RepoMapOptions) -> Result<(), CoreError> {
    for (what, count) in [
        ("paths", options.paths.len()),
        ("names", options.names.len()),
    ] {
        if count > MAX_FOCUS {
            return Err(CoreError::InvalidArgument {
                message: format!("{what} holds {count} entries, over the {MAX_FOCUS} allowed."),
            });
        }
    }
    if let Some(name) = options.names.iter().find(|n| n.is_empty()) {
        return Err(CoreError::InvalidArgument {
            message: format!("names holds an empty name ({name:?})."),
        });
    }
    Ok(())
}

/// The map of a graph (its files under `within`, all when `None`), ranked toward the focus of
/// `options` and cut to its budget: what any producer's graph becomes.
pub fn map_of(
    graph: &SymbolGraph,
    within: Option<&OsString>,
    options: &RepoMapOptions,
) -> RepoMapOutput {
    let focus = focus_of(options);
    let ranking = rank::rank(graph, within.map(|w| w.as_os_str()), &focus);
    map_ranked(graph, &ranking, options)
}

/// The focus of `options` as the ranking takes it.
fn focus_of(options: &RepoMapOptions) -> Focus {
    Focus {
        paths: options.paths.iter().map(trimmed).collect(),
        names: options.names.clone(),
    }
}

/// The map of a graph ranked: the ranking's figures and the files fitted to the budget.
fn map_ranked(graph: &SymbolGraph, ranking: &Ranking, options: &RepoMapOptions) -> RepoMapOutput {
    let mut out = RepoMapOutput {
        files_ranked: ranking.files.len() as u64,
        max_chars: options.max_chars as u64,
        focus_unmatched: ranking.focus_unmatched.clone(),
        names_undefined: ranking.names_undefined.clone(),
        iterations: u64::from(ranking.iterations),
        bound: graph.bound,
        ..RepoMapOutput::default()
    };
    fit(graph, ranking, options, &mut out);
    out
}

/// A graph the map is drawn from call after call (the symbol index keeps one while the tree
/// and its symbol file are unchanged), with the ranking's tables for a focus without names,
/// built at the first such map and kept: a focus on paths only changes where the ranking
/// starts afresh, so those calls only iterate. The ranking without any focus is kept too.
pub struct MapGraph {
    /// The graph.
    pub graph: SymbolGraph,
    /// The tables of all its files without focus names, once a map needed them.
    unnamed: OnceLock<Prepared>,
    /// The ranking without a focus, once a map needed it.
    unfocused: OnceLock<Ranking>,
}

impl MapGraph {
    /// A graph, no tables yet.
    pub fn new(graph: SymbolGraph) -> Self {
        Self {
            graph,
            unnamed: OnceLock::new(),
            unfocused: OnceLock::new(),
        }
    }

    /// The map of all its files toward the focus of `options`: the same answer as
    /// [`map_of`] of the graph.
    pub fn map(&self, options: &RepoMapOptions) -> RepoMapOutput {
        let focus = focus_of(options);
        let prepared = || {
            self.unnamed
                .get_or_init(|| rank::prepare(&self.graph, None, &[]))
        };
        if focus.paths.is_empty() && focus.names.is_empty() {
            let ranking = self
                .unfocused
                .get_or_init(|| rank::rank_prepared(&self.graph, prepared(), &focus));
            return map_ranked(&self.graph, ranking, options);
        }
        let ranking = if focus.names.is_empty() {
            rank::rank_prepared(&self.graph, prepared(), &focus)
        } else {
            rank::rank(&self.graph, None, &focus)
        };
        map_ranked(&self.graph, &ranking, options)
    }
}

/// A focus path as the graph spells paths: without `./` in front or `/` behind.
fn trimmed(path: &OsString) -> OsString {
    let text = Path::new(path);
    let text = text.strip_prefix("./").unwrap_or(text);
    text.as_os_str().to_os_string()
}

/// Fills `out.files` in rank order within the budget.
fn fit(graph: &SymbolGraph, ranking: &Ranking, options: &RepoMapOptions, out: &mut RepoMapOutput) {
    let mut left = options.max_chars;
    let mut shown = 0usize;
    for ranked in &ranking.files {
        let file = &graph.files[ranked.file];
        let head = file_line_chars(&file.path);
        if head > left {
            break;
        }
        let used = ranking.used(graph, ranked.file);
        // The most-used definitions, or when none is used elsewhere the first top-level ones.
        let picks: Vec<(usize, u64)> = if used.is_empty() {
            file.definitions
                .iter()
                .enumerate()
                .filter(|(_, d)| d.depth == 0)
                .map(|(i, _)| (i, 0))
                .take(options.definitions_per_file)
                .collect()
        } else {
            used.iter()
                .copied()
                .take(options.definitions_per_file)
                .collect()
        };
        let mut room = left - head;
        let mut taken: Vec<MapDefinition> = Vec::new();
        let mut complete = true;
        for (index, references) in picks {
            let definition = &file.definitions[index];
            let shown_definition = MapDefinition {
                name: graph.names[definition.name as usize].clone(),
                kind: definition.kind,
                line: u64::from(definition.line),
                end_line: u64::from(definition.end_line),
                references,
            };
            let cost = definition_line_chars(&shown_definition);
            if cost > room {
                complete = false;
                break;
            }
            room -= cost;
            taken.push(shown_definition);
        }
        if !complete && taken.is_empty() {
            break;
        }
        out.definitions_left += (used.len() - taken.len().min(used.len())) as u64;
        taken.sort_by_key(|d| d.line);
        left = room;
        shown += 1;
        out.files.push(MapFile {
            path: file.path.clone(),
            language: file.language,
            rank: ranked.rank,
            definitions: taken,
            used_definitions: used.len() as u64,
        });
        if !complete {
            break;
        }
    }
    out.files_left = (ranking.files.len() - shown) as u64;
    out.chars = (options.max_chars - left) as u64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::rank::tests::tree;

    fn listing_chars(out: &RepoMapOutput) -> usize {
        out.files
            .iter()
            .map(|f| {
                file_line_chars(&f.path)
                    + f.definitions
                        .iter()
                        .map(definition_line_chars)
                        .sum::<usize>()
            })
            .sum()
    }

    #[test]
    fn the_budget_is_kept_exactly() {
        let graph = tree();
        let all = map_of(
            &graph,
            None,
            &RepoMapOptions {
                max_chars: 10_000,
                ..RepoMapOptions::default()
            },
        );
        assert_eq!(all.files_left, 0);
        assert_eq!(all.definitions_left, 0);
        let whole = listing_chars(&all);
        assert_eq!(all.chars as usize, whole);
        for max_chars in 0..=whole + 5 {
            let options = RepoMapOptions {
                max_chars,
                ..RepoMapOptions::default()
            };
            let out = map_of(&graph, None, &options);
            let used = listing_chars(&out);
            assert_eq!(out.chars as usize, used, "budget {max_chars}");
            assert!(used <= max_chars, "{used} > {max_chars}");
            assert_eq!(out.files_ranked, 5);
            assert_eq!(out.files.len() as u64 + out.files_left, 5);
            // A prefix of the whole map: the same files in the same order, and when something
            // was left out the next line would not have fit.
            for (part, whole) in out.files.iter().zip(&all.files) {
                assert_eq!(part.path, whole.path);
            }
            if max_chars < whole {
                assert!(
                    out.files_left > 0 || out.definitions_left > 0,
                    "{max_chars}"
                );
            } else {
                assert_eq!(out.files, all.files);
            }
        }
    }

    #[test]
    fn a_file_lists_its_most_used_definitions_in_line_order() {
        let graph = tree();
        let out = map_of(&graph, None, &RepoMapOptions::default());
        let hub = &out.files[0];
        assert_eq!(hub.path, OsString::from("include/alloc.h"));
        let shown: Vec<(&str, u64, u64)> = hub
            .definitions
            .iter()
            .map(|d| (d.name.as_str(), d.line, d.references))
            .collect();
        assert_eq!(shown, [("kmalloc", 10, 5), ("kfree", 20, 3)]);
        assert_eq!(hub.used_definitions, 2);

        let one = map_of(
            &graph,
            None,
            &RepoMapOptions {
                definitions_per_file: 1,
                ..RepoMapOptions::default()
            },
        );
        assert_eq!(one.files[0].definitions[0].name, "kmalloc");
        assert_eq!(one.files[0].definitions.len(), 1);
        assert!(one.definitions_left >= 1);
        // A file no other file uses shows its first top-level definitions, unreferenced.
        let tty = out
            .files
            .iter()
            .find(|f| f.path == "drivers/tty.c")
            .expect("listed");
        assert_eq!(tty.definitions[0].name, "tty_open");
        assert_eq!(tty.definitions[0].references, 0);
        assert_eq!(tty.used_definitions, 0);
    }

    #[test]
    fn a_kept_graph_maps_as_a_fresh_one_whatever_the_focus() {
        let kept = MapGraph::new(tree());
        let focuses = [
            (vec![], vec![]),
            (vec!["drivers/tty.c".into()], vec![]),
            (vec![], vec!["kfree".to_string()]),
            (vec!["drivers".into()], vec!["tty_open".to_string()]),
            (vec![], vec![]),
            (vec!["mm".into(), "nowhere".into()], vec![]),
        ];
        let mut maps = Vec::new();
        for (paths, names) in focuses {
            let options = RepoMapOptions {
                paths,
                names,
                ..RepoMapOptions::default()
            };
            let fresh = map_of(&tree(), None, &options);
            // Twice: the tables the first map built serve the second.
            assert_eq!(kept.map(&options), fresh);
            assert_eq!(kept.map(&options), fresh);
            maps.push(fresh.files);
        }
        // Not the same map whatever the focus: the focus moves it.
        assert_ne!(maps[0], maps[1]);
        assert_ne!(maps[0], maps[2]);
    }

    #[test]
    fn the_listing_line_lengths() {
        let definition = MapDefinition {
            name: "kmalloc".into(),
            kind: SymbolKind::Function,
            line: 120,
            end_line: 130,
            references: 0,
        };
        assert_eq!(
            definition_line_chars(&definition),
            "  L120 function kmalloc\n".len()
        );
        assert_eq!(file_line_chars(&"mm/slab.c".into()), "mm/slab.c\n".len());
    }
}
