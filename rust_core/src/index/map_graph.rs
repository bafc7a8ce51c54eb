//! The repository map's symbol graph of a subtree answered from the symbol index: each fresh
//! stored file's definitions and referenced names with their counts (precomputed at build), the
//! overlay's files parsed cold and counted as the cold producer counts them; `None` when the
//! cold engine must answer.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::{Arc, MutexGuard};

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::outline::collect::is_code;
use crate::outline::definitions::{Parsedness, outline_all};
use crate::outline::graph::{GraphDefinition, GraphFile, NOWHERE, SymbolGraph};
use crate::outline::outliner::Outliner;
use crate::outline::parse::Parsed;
use crate::outline::source::Source;
use crate::workspace::Workspace;

use super::bind::Bound;
use super::bind_overlay::OverlayBinder;
use super::live::Live;
use super::scope::{fresh, scope};
use super::symbol_build::{manifest_paths, read_manifest};
use super::symbols::Status;
use super::table::below;

/// The symbol graph of the files below `path` from the symbol index, the overlay parsed cold;
/// `None` for the cold engine.
pub(super) fn graph(
    workspace: &Workspace,
    mut live: MutexGuard<'_, Live>,
    revision: u64,
    outliner: &Outliner,
    path: Option<&OsStr>,
) -> Option<Result<SymbolGraph, CoreError>> {
    let scope = match scope(workspace, &mut live, revision, (path, &[]), None)? {
        Ok(scope) => scope,
        Err(error) => return Some(Err(error)),
    };
    let symbols = &scope.symbols;
    let mut graph = SymbolGraph::default();
    let mut ids: Vec<u32> = vec![u32::MAX; symbols.names_len() as usize];
    let mut extra: HashMap<String, u32> = HashMap::new();
    let mut stored: Vec<GraphFile> = Vec::new();
    {
        let mut intern = |names: &mut Vec<String>, id: u32| -> u32 {
            let slot = &mut ids[id as usize];
            if *slot == u32::MAX {
                *slot = names.len() as u32;
                names.push(symbols.name(id).unwrap_or_default().to_string());
            }
            *slot
        };
        for (path, _) in below(&live.table.files, &scope.dir) {
            if !scope.admits(path) {
                continue;
            }
            let Some(f) = symbols.file_index(path) else {
                continue;
            };
            let Some(file) = symbols.file(f) else {
                continue;
            };
            let (Some(language), true) = (file.language, fresh(&live, &file)) else {
                continue;
            };
            // As the cold map (`collect::is_code`): Markdown's headings are no code to rank.
            if file.status != Status::Parsed || !language.has_code() {
                continue;
            }
            let definitions = (file.definitions.start..file.definitions.end)
                .filter_map(|d| symbols.definition(d))
                .map(|d| GraphDefinition {
                    name: intern(&mut graph.names, d.name),
                    kind: d.kind,
                    line: d.line,
                    end_line: d.end_line,
                    depth: d.depth,
                })
                .collect();
            // The uses that link files (a name used only otherwise counts 0), each with the
            // files it binds to (symbol file ids until the graph's files are placed).
            let mut references: Vec<(u32, u32, Bound)> = symbols
                .bound_names(f)
                .into_iter()
                .filter(|(id, count, _)| *id < symbols.names_len() && *count > 0)
                .map(|(id, count, bound)| (intern(&mut graph.names, id), count, bound))
                .collect();
            references.sort_unstable_by_key(|r| r.0);
            let mut file = GraphFile {
                path: OsString::from(path.as_str()),
                language,
                definitions,
                references: Vec::with_capacity(references.len()),
                bound_start: vec![0],
                bound: Vec::new(),
            };
            for (name, count, bound) in references {
                file.references.push((name, count));
                match bound {
                    Bound::ByName => {}
                    Bound::Resolved(files) => file.bound.extend(files),
                    Bound::Within(files) => {
                        file.bound.push(NOWHERE);
                        file.bound.extend(files);
                    }
                }
                file.bound_start.push(file.bound.len() as u32);
            }
            stored.push(file);
        }
    }
    // The tree's manifests, for the overlay's imports (as the build resolves them).
    let manifests = if scope.overlay.is_empty() {
        Vec::new()
    } else {
        manifest_paths(&live)
    };
    drop(live);
    let paths: Vec<OsString> = scope
        .overlay
        .iter()
        .map(OsString::from)
        .filter(|p| is_code(Path::new(p)))
        .collect();
    let refs: Vec<&OsString> = paths.iter().collect();
    let deadline = workspace.deadline_with(&CancelToken::default());
    let keep = |_: &Source, parsed: Arc<Parsed>| parsed;
    let outcomes = outline_all(workspace, outliner, &refs, &deadline, true, &keep);
    // Made when a file of the overlay is first bound (it reads the whole file table).
    let binder = std::cell::OnceCell::new();
    let binder = || {
        binder.get_or_init(|| {
            OverlayBinder::new(symbols, &manifests, |p| read_manifest(workspace, p))
        })
    };
    let mut intern_name = |graph: &mut SymbolGraph, name: &str| -> u32 {
        if let Some(id) = symbols.name_id(name)
            && (id as usize) < ids.len()
        {
            let slot = &mut ids[id as usize];
            if *slot == u32::MAX {
                *slot = graph.names.len() as u32;
                graph.names.push(name.to_string());
            }
            return *slot;
        }
        *extra.entry(name.to_string()).or_insert_with(|| {
            graph.names.push(name.to_string());
            graph.names.len() as u32 - 1
        })
    };
    for (path, outcome) in paths.into_iter().zip(outcomes) {
        let Parsedness::Outlined { kept, language, .. } = outcome else {
            continue;
        };
        let definitions = kept
            .entries
            .iter()
            .map(|e| GraphDefinition {
                name: intern_name(&mut graph, &e.name),
                kind: e.kind,
                line: u32::try_from(e.line).unwrap_or(u32::MAX),
                end_line: u32::try_from(e.end_line).unwrap_or(u32::MAX),
                depth: e.depth,
            })
            .collect();
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        // The symbol file's ids of the names it references, to bind them against the stored
        // include graph (`bind_overlay`).
        let mut symbol_ids: HashMap<u32, u32> = HashMap::new();
        let mut file_binder = kept.references.as_ref().and_then(|all| {
            binder().as_ref()?.file(
                path.to_str()?,
                language,
                &all.imports,
                kept.entries.iter().map(|e| e.name.as_str()),
            )
        });
        if let Some(all) = &kept.references {
            let local: Vec<u32> = all
                .names
                .iter()
                .map(|n| intern_name(&mut graph, n))
                .collect();
            // The uses that link files, as the index counts them (`symbols::write`) and the
            // cold producer.
            for r in all.list.iter().filter(|r| r.role.links_files()) {
                if let Some(&id) = local.get(r.name as usize) {
                    *counts.entry(id).or_default() += 1;
                    if file_binder.is_some()
                        && let Some(stored) = all
                            .names
                            .get(r.name as usize)
                            .and_then(|n| symbols.name_id(n))
                    {
                        symbol_ids.insert(id, stored);
                    }
                }
            }
        }
        let (mut bound_start, mut bound) = (Vec::new(), Vec::new());
        if let Some(file_binder) = &mut file_binder {
            bound_start.push(0);
            for &id in counts.keys() {
                if let Some(&stored) = symbol_ids.get(&id) {
                    bound.extend(file_binder.bound(stored));
                }
                bound_start.push(bound.len() as u32);
            }
        }
        stored.push(GraphFile {
            path,
            language,
            definitions,
            references: counts.into_iter().collect(),
            bound_start,
            bound,
        });
    }
    stored.sort_by(|a, b| a.path.cmp(&b.path));
    // The bound files, from the symbol file's ids to the graph's (a file the graph lacks, out
    // of the scope or unparsed now, is dropped: its uses then go by name).
    let mut to_graph = vec![u32::MAX; symbols.files_len() as usize];
    for (i, file) in stored.iter().enumerate() {
        if let Some(id) = file.path.to_str().and_then(|p| symbols.file_index(p)) {
            to_graph[id as usize] = i as u32;
        }
    }
    for file in &mut stored {
        if file.bound.is_empty() {
            continue;
        }
        let mut bound = Vec::with_capacity(file.bound.len());
        let mut starts = vec![0u32];
        for k in 0..file.references.len() {
            for &t in file.bound(k) {
                match t {
                    NOWHERE => bound.push(NOWHERE),
                    t => bound.extend(to_graph.get(t as usize).filter(|&&g| g != u32::MAX)),
                }
            }
            starts.push(bound.len() as u32);
        }
        file.bound = bound;
        file.bound_start = starts;
    }
    graph.files = stored;
    graph.bound = true;
    Some(Ok(graph))
}
