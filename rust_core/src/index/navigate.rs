//! `find_references`, `find_definitions` and `find_calls` answered from the symbol index
//! (`symbols`) and the overlay, or `None` when the cold engine must answer (the repository
//! map's graph is `map_graph`'s).
//!
//! The files a call covers are those of the table below its directory that its `glob` admits,
//! as grep would search them (its `scope`). Each is answered in one of two ways:
//! - from the symbol file, when the file's identity in the table is the one recorded and was
//!   old enough then to vouch for the contents (a write in the same tick would show in no
//!   identity), and the table's own trust allows it (`table::indexable`);
//! - otherwise (changed, new, not parsed when the file was written) it is in the overlay:
//!   searched for the name as grep would (`\bname\b`), and parsed cold if it holds it, exactly
//!   as the cold engine's candidates are (`overlay`).
//!
//! Both halves feed the cold engine's own assembly (`references::assemble`,
//! `definitions::assemble`), so the entries, totals and pages are the cold engine's; the line
//! texts of the page's entries (only those) are read from the files afterwards. What differs
//! is the search's accounting: `files_searched` counts the files of the overlay searched, and
//! the skip counts are the table's.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::{Arc, MutexGuard};

use crate::error::CoreError;
use crate::outline::calls::{self, CallsOptions, CallsResult, FileCalls, file_calls};
use crate::outline::definitions::{
    self, DefinitionsOptions, DefinitionsOutput, Matcher, Parsedness,
};
use crate::outline::lang::Language;
use crate::outline::outliner::Outliner;
use crate::outline::parse::Parsed;
use crate::outline::references::{
    self, FileBinding, FileReferences, Lines, ReferencesOptions, ReferencesOutput, of_file,
};
use crate::outline::refs::Reference;
use crate::outline::source::{Prepared, Source, prepare};
use crate::workspace::Workspace;

use super::bind::Bound;
use super::bind_overlay::OverlayBinder;
use super::live::Live;
use super::overlay::{Prefilter, overlay, overlay_outcomes};
use super::scope::{entry, fresh, name_scope, scope, stored_parse};
use super::symbol_build::{manifest_paths, read_manifest};
use super::symbols::{NONE, Symbols, body_calls};

/// `find_references` from the symbol index, or `None` for the cold engine.
pub(super) fn references(
    workspace: &Workspace,
    mut live: MutexGuard<'_, Live>,
    revision: u64,
    outliner: &Outliner,
    options: &ReferencesOptions,
) -> Option<Result<ReferencesOutput, CoreError>> {
    let files = (options.path.as_deref(), options.glob.as_slice());
    let (name, pattern, scope) =
        match name_scope(workspace, &mut live, revision, &options.name, files)? {
            Ok(found) => found,
            Err(error) => return Some(Err(error)),
        };
    let symbols = &scope.symbols;
    // The stored part, under the lock (the table says which records are fresh).
    let mut stored: BTreeMap<u32, FileReferences> = BTreeMap::new();
    let mut languages: BTreeMap<u32, Language> = BTreeMap::new();
    // The file of the definition asked for, as the symbol file numbers it.
    let asked = options.definition.as_ref().map(|(path, _)| {
        path.to_str()
            .and_then(|p| symbols.file_index(p.trim_start_matches("./")))
    });
    if let Some(id) = symbols.name_id(name) {
        let mut usable = |f: u32, stored: &mut BTreeMap<u32, FileReferences>| -> bool {
            if stored.contains_key(&f) {
                return true;
            }
            let Some(file) = symbols.file(f) else {
                return false;
            };
            if !(scope.admits(file.path) && fresh(&live, &file)) {
                return false;
            }
            let Some(language) = file.language else {
                return false;
            };
            languages.insert(f, language);
            stored.insert(
                f,
                FileReferences {
                    definitions: Vec::new(),
                    references: Vec::new(),
                    cut: file.cut,
                    binding: asked.map_or(FileBinding::ByName, |g| binding(symbols, f, id, g)),
                },
            );
            true
        };
        for d in symbols.definitions_of(id) {
            let Some(f) = symbols.file_of_definition(d) else {
                continue;
            };
            if !usable(f, &mut stored) {
                continue;
            }
            let Some(file) = symbols.file(f) else {
                continue;
            };
            let Some(e) = entry(symbols, &file, d - file.definitions.start) else {
                continue;
            };
            let container = e
                .parent
                .and_then(|p| entry(symbols, &file, p))
                .map(|p| p.name);
            if let Some(slot) = stored.get_mut(&f) {
                slot.definitions.push((e, container));
            }
        }
        for r in symbols.references_of(id) {
            if !usable(r.file, &mut stored) {
                continue;
            }
            let Some(file) = symbols.file(r.file) else {
                continue;
            };
            let enclosing = r.enclosing.and_then(|e| entry(symbols, &file, e));
            let reference = Reference {
                name: 0,
                line: r.line,
                column: r.column,
                role: r.role,
                enclosing: r.enclosing,
            };
            if let Some(slot) = stored.get_mut(&r.file) {
                slot.references.push((reference, enclosing, String::new()));
            }
        }
    }
    // With a definition asked for, each overlay file's includes come too, to bind it (with
    // the tree's manifests, as the build resolves imports).
    let binds = options.definition.is_some();
    let manifests = if binds && !scope.overlay.is_empty() {
        manifest_paths(&live)
    } else {
        Vec::new()
    };
    drop(live);
    let keep = |source: &Source, parsed: Arc<Parsed>| {
        let (imports, defined) = match (&parsed.references, binds) {
            (Some(all), true) => (
                all.imports.clone(),
                parsed.entries.iter().map(|e| e.name.clone()).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        (of_file(source, &parsed, name), (imports, defined))
    };
    let (paths, outcomes) = match overlay_outcomes(
        workspace,
        outliner,
        &scope.overlay,
        Prefilter {
            pattern: &pattern,
            literal: false,
            references: true,
        },
        &options.cancel,
        &keep,
    )? {
        Ok(found) => found,
        Err(error) => return Some(Err(error)),
    };
    let mut files: Vec<(OsString, Parsedness<FileReferences>)> = stored
        .into_iter()
        .filter_map(|(f, kept)| {
            let path = OsString::from(symbols.file(f)?.path);
            let language = *languages.get(&f)?;
            Some((
                path,
                Parsedness::Outlined {
                    kept,
                    language,
                    cached: true,
                },
            ))
        })
        .collect();
    // Made when an overlay file is first bound (it resolves the whole file table), as the map
    // makes it: a call whose overlay holds no use of the name never pays for it.
    let binder = std::cell::OnceCell::new();
    let binder = || {
        binder
            .get_or_init(|| {
                OverlayBinder::new(symbols, &manifests, |p| read_manifest(workspace, p))
            })
            .as_ref()
    };
    let id = symbols.name_id(name).filter(|_| binds);
    for (path, outcome) in paths.into_iter().zip(outcomes) {
        let outcome = match outcome {
            Parsedness::Outlined {
                kept: (mut kept, (imports, defined)),
                language,
                cached,
            } => {
                if let (Some(id), Some(p)) = (id, path.to_str())
                    && let Some(binder) = binder()
                    && let Some(mut file) =
                        binder.file(p, language, &imports, defined.iter().map(String::as_str))
                {
                    let bound = file.bound(id);
                    kept.binding = if bound.is_empty() {
                        FileBinding::ByName
                    } else {
                        binding_of(Bound::Resolved(bound), asked.flatten())
                    };
                }
                Parsedness::Outlined {
                    kept,
                    language,
                    cached,
                }
            }
            Parsedness::Unparsed(refused, detail) => Parsedness::Unparsed(refused, detail),
            Parsedness::Skipped => Parsedness::Skipped,
            Parsedness::NotReached => Parsedness::NotReached,
        };
        files.push((path, outcome));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let out = ReferencesOutput {
        files_searched: scope.overlay.len() as u64,
        ..ReferencesOutput::default()
    };
    let mut out = match references::asked(options, references::assemble(options, out, files)) {
        Ok(out) => out,
        Err(error) => return Some(Err(error)),
    };
    fill_texts(workspace, &mut out);
    Some(Ok(out))
}

/// How the stored file `f`'s references to name `id` bind, given the file `asked` of the
/// definition asked for (`None`: a file the symbol file does not hold).
fn binding(symbols: &Symbols, f: u32, id: u32, asked: Option<u32>) -> FileBinding {
    binding_of(symbols.bound(f, id), asked)
}

/// How references leading to `bound` bind, given the file `asked` of the definition asked for.
fn binding_of(bound: Bound, asked: Option<u32>) -> FileBinding {
    let has = |files: &[u32]| asked.is_some_and(|g| files.binary_search(&g).is_ok());
    match bound {
        Bound::ByName => FileBinding::ByName,
        Bound::Resolved(files) if has(&files) => FileBinding::Resolved,
        Bound::Within(files) if has(&files) => FileBinding::ByName,
        Bound::Resolved(_) | Bound::Within(_) => FileBinding::Elsewhere,
    }
}

/// Reads the line texts of the page's entries that the symbol index left empty.
fn fill_texts(workspace: &Workspace, out: &mut ReferencesOutput) {
    let mut wanted: BTreeMap<OsString, BTreeMap<u32, String>> = BTreeMap::new();
    for r in out.references.iter().filter(|r| r.text.is_empty()) {
        wanted
            .entry(r.path.clone())
            .or_default()
            .insert(r.line as u32, String::new());
    }
    for c in out.callers.iter().filter(|c| c.text.is_empty()) {
        wanted
            .entry(c.path.clone())
            .or_default()
            .insert(c.first_line as u32, String::new());
    }
    for (path, lines) in &mut wanted {
        let Ok(mut opened) = workspace.open_file(path) else {
            continue;
        };
        let Ok(Prepared::Ready(source)) = prepare(&mut opened) else {
            continue;
        };
        let mut reader = Lines::new(&source.bytes);
        for (number, text) in lines.iter_mut() {
            *text = reader.text(*number);
        }
    }
    let text = |path: &OsString, line: u64| {
        wanted
            .get(path)
            .and_then(|l| l.get(&(line as u32)))
            .cloned()
            .unwrap_or_default()
    };
    for r in out.references.iter_mut().filter(|r| r.text.is_empty()) {
        r.text = text(&r.path, r.line);
    }
    for c in out.callers.iter_mut().filter(|c| c.text.is_empty()) {
        c.text = text(&c.path, c.first_line);
    }
}

/// `find_definitions` from the symbol index, or `None` for the cold engine.
pub(super) fn definitions(
    workspace: &Workspace,
    mut live: MutexGuard<'_, Live>,
    revision: u64,
    outliner: &Outliner,
    options: &DefinitionsOptions,
) -> Option<Result<DefinitionsOutput, CoreError>> {
    let (matcher, pattern, literal) = match definitions::plan(options) {
        Ok(plan) => plan,
        Err(error) => return Some(Err(error)),
    };
    let files = (options.path.as_deref(), options.glob.as_slice());
    let scope = match scope(
        workspace,
        &mut live,
        revision,
        files,
        Some((&pattern, literal)),
    )? {
        Ok(scope) => scope,
        Err(error) => return Some(Err(error)),
    };
    let symbols = &scope.symbols;
    let ids: Vec<u32> = match &matcher {
        Matcher::Exact(name) => symbols.name_id(name).into_iter().collect(),
        Matcher::Prefix(prefix) => symbols.prefixed(prefix).collect(),
        Matcher::Regex(regex) => (0..symbols.names_len())
            .filter(|&k| symbols.name(k).is_some_and(|n| regex.is_match(n)))
            .collect(),
    };
    let mut files: Vec<u32> = ids
        .iter()
        .flat_map(|&id| symbols.definitions_of(id))
        .filter_map(|d| symbols.file_of_definition(d))
        .collect();
    files.sort_unstable();
    files.dedup();
    let mut stored: Vec<(OsString, Parsedness<Arc<Parsed>>)> = Vec::new();
    for f in files {
        let Some(file) = symbols.file(f) else {
            continue;
        };
        let Some(language) = file.language else {
            continue;
        };
        if scope.admits(file.path) && fresh(&live, &file) {
            stored.push((
                OsString::from(file.path),
                Parsedness::Outlined {
                    kept: Arc::new(stored_parse(symbols, &file)),
                    language,
                    cached: true,
                },
            ));
        }
    }
    drop(live);
    let keep = |_: &Source, parsed: Arc<Parsed>| parsed;
    let (paths, outcomes) = match overlay_outcomes(
        workspace,
        outliner,
        &scope.overlay,
        Prefilter {
            pattern: &pattern,
            literal,
            references: false,
        },
        &options.cancel,
        &keep,
    )? {
        Ok(found) => found,
        Err(error) => return Some(Err(error)),
    };
    stored.extend(paths.into_iter().zip(outcomes));
    stored.sort_by(|a, b| a.0.cmp(&b.0));
    let out = DefinitionsOutput {
        prefilter: pattern,
        files_searched: scope.overlay.len() as u64,
        ..DefinitionsOutput::default()
    };
    Some(Ok(definitions::assemble(options, &matcher, out, stored)))
}

/// `find_calls` from the symbol index, or `None` for the cold engine: the stored files defining
/// the name are looked up, and the calls of those definitions' bodies read from their call
/// lists (`symbols::body_calls`); the overlay's files that hold the name are parsed cold.
pub(super) fn calls(
    workspace: &Workspace,
    mut live: MutexGuard<'_, Live>,
    revision: u64,
    outliner: &Outliner,
    options: &CallsOptions,
) -> Option<Result<CallsResult, CoreError>> {
    let files = (options.path.as_deref(), options.glob.as_slice());
    let (name, pattern, scope) =
        match name_scope(workspace, &mut live, revision, &options.name, files)? {
            Ok(found) => found,
            Err(error) => return Some(Err(error)),
        };
    let symbols = &scope.symbols;
    let kinds = &options.kinds;
    // The stored files defining the name (by a definition of the kinds asked), fresh and in
    // the call's scope; a name's definitions come file after file.
    let mut defining: Vec<(u32, Language)> = Vec::new();
    for d in symbols
        .name_id(name)
        .into_iter()
        .flat_map(|id| symbols.definitions_of(id))
    {
        let (Some(f), Some(definition)) = (symbols.file_of_definition(d), symbols.definition(d))
        else {
            continue;
        };
        if !kinds.is_empty() && !kinds.contains(&definition.kind)
            || defining.last().is_some_and(|(g, _)| *g == f)
        {
            continue;
        }
        let Some(file) = symbols.file(f) else {
            continue;
        };
        if let (Some(language), true) = (
            file.language,
            scope.admits(file.path) && fresh(&live, &file),
        ) {
            defining.push((f, language));
        }
    }
    // The stored files that hold the name as code (define or reference it), for the counts a
    // cold search gives of its candidates.
    let mut holding: Vec<u32> = defining.iter().map(|&(f, _)| f).collect();
    if let Some(id) = symbols.name_id(name) {
        let mut last = NONE;
        symbols.each_reference_to(id, NONE, &mut |r| {
            if r.file != last {
                last = r.file;
                holding.push(r.file);
            }
        });
    }
    holding.sort_unstable();
    holding.dedup();
    // Each file's freshness is remembered while the overlay is the same.
    let current = overlay(&mut live, revision, symbols);
    let mut memo = symbols.fresh_memo(&current);
    holding.retain(|&f| {
        symbols.path(f).is_some_and(|path| scope.admits(path))
            && memo.fresh(f, || {
                symbols.file(f).is_some_and(|file| fresh(&live, &file))
            })
    });
    drop(memo);
    drop(live);
    // Each definition's calls, from the symbol file's call lists.
    let mut found: Vec<(OsString, Parsedness<FileCalls>)> = Vec::new();
    for (f, language) in defining {
        let file = symbols.file(f)?;
        let mut parsed = stored_parse(symbols, &file);
        parsed.references = Some(body_calls(symbols, f, name, kinds)?);
        parsed.with_references = true;
        // The line texts are the file's (its identity is the one recorded): when it cannot be
        // read now, the cold engine answers.
        let mut opened = workspace.open_file(OsStr::new(file.path)).ok()?;
        let Ok(Prepared::Ready(source)) = prepare(&mut opened) else {
            return None;
        };
        let kept = file_calls(&source.bytes, &parsed, name, kinds);
        found.push((
            OsString::from(file.path),
            Parsedness::Outlined {
                kept,
                language,
                cached: true,
            },
        ));
    }
    let keep =
        |source: &Source, parsed: Arc<Parsed>| file_calls(&source.bytes, &parsed, name, kinds);
    let (paths, outcomes) = match overlay_outcomes(
        workspace,
        outliner,
        &scope.overlay,
        Prefilter {
            pattern: &pattern,
            literal: false,
            references: true,
        },
        &options.cancel,
        &keep,
    )? {
        Ok(found) => found,
        Err(error) => return Some(Err(error)),
    };
    let stored = holding.len() as u64;
    let mut out = CallsResult {
        name: options.name.clone(),
        offset: options.offset as u64,
        files_searched: scope.overlay.len() as u64,
        candidate_files: stored,
        files_parsed: stored,
        files_cached: stored,
        ..CallsResult::default()
    };
    for outcome in &outcomes {
        match outcome {
            Parsedness::Outlined { cached, .. } => {
                out.candidate_files += 1;
                out.files_parsed += 1;
                out.files_cached += u64::from(*cached);
            }
            Parsedness::Unparsed(..) | Parsedness::NotReached => out.candidate_files += 1,
            Parsedness::Skipped => {}
        }
    }
    found.extend(paths.into_iter().zip(outcomes));
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Some(Ok(calls::assemble(options, out, found)))
}
