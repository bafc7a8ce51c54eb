//! `find_references`, `find_definitions`, `find_calls` and the repository map's graph answered
//! from the symbol index (`symbols`) and the overlay, or `None` when the cold engine must
//! answer.
//!
//! The files a call covers are those of the table below its directory that its `glob` admits,
//! as grep would search them. Each is answered in one of two ways:
//! - from the symbol file, when the file's identity in the table is the one recorded and was
//!   old enough then to vouch for the contents (a write in the same tick would show in no
//!   identity), and the table's own trust allows it (`table::indexable`);
//! - otherwise (changed, new, not parsed when the file was written) it is in the overlay:
//!   searched for the name as grep would (`\bname\b`), and parsed cold if it holds it, exactly
//!   as the cold engine's candidates are.
//!
//! Both halves feed the cold engine's own assembly (`references::assemble`,
//! `definitions::assemble`), so the entries, totals and pages are the cold engine's; the line
//! texts of the page's entries (only those) are read from the files afterwards. What differs
//! is the search's accounting: `files_searched` counts the files of the overlay searched, and
//! the skip counts are the table's.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use crate::error::CoreError;
use crate::grep::{self, GrepOptions, OutputMode};
use crate::open::{Target, open_target};
use crate::outline::calls::{self, CallsOptions, CallsResult, FileCalls, file_calls};
use crate::outline::definitions::{
    self, DefinitionsOptions, DefinitionsOutput, Matcher, Parsedness, may_have_parser, outline_all,
};
use crate::outline::graph::{GraphDefinition, GraphFile, SymbolGraph};
use crate::outline::outliner::Outliner;
use crate::outline::parse::{Entry, Parsed};
use crate::outline::references::{
    self, FileReferences, Lines, ReferencesOptions, ReferencesOutput, of_file,
};
use crate::outline::refs::Reference;
use crate::outline::source::{Prepared, Source, prepare};
use crate::pattern::FileSelect;
use crate::workspace::Workspace;

use super::live::Live;
use super::plan::plan;
use super::query::evaluate;
use super::symbol_build::SymbolPhase;
use super::symbols::{NONE, Status, StoredFile, Symbols, body_calls};
use super::table::{below, indexable, is_within};

/// What a call may read from the symbol index, taken under the live state's lock.
struct Scope {
    /// The searched directory, relative to the root.
    dir: String,
    select: FileSelect,
    symbols: Arc<Symbols>,
    /// The overlay's files in the directory that the selection admits.
    overlay: Vec<String>,
}

impl Scope {
    fn admits(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        is_within(path, &self.dir)
            && path != self.dir
            && self.select.admits(path.as_bytes(), name.as_bytes())
    }
}

/// The scope of a call on `path` with `glob` when the symbol index can answer it; `None` for
/// the cold engine (not ready, a single file, a directory the table cannot answer for).
fn scope(
    workspace: &Workspace,
    live: &mut Live,
    revision: u64,
    (path, glob): (Option<&OsStr>, &[String]),
    prefilter: Option<(&str, bool)>,
) -> Option<Result<Scope, CoreError>> {
    if live.symbols.phase != SymbolPhase::Ready {
        return None;
    }
    let symbols = Arc::clone(live.symbols.data.as_ref()?);
    let target = match open_target(workspace, path.unwrap_or_default()) {
        Ok((target, _)) => target,
        Err(error) => return Some(Err(error)),
    };
    let Target::Dir(start) = target else {
        return None;
    };
    let grep_options = GrepOptions {
        pattern: "x".into(),
        glob: glob.to_vec(),
        ..GrepOptions::default()
    };
    let mut select = match grep::prepare(workspace, &grep_options) {
        Ok(prepared) => prepared.select,
        Err(error) => return Some(Err(error)),
    };
    let dir = String::from_utf8(start.relative).ok()?;
    if !live.table.answers_for(&dir) {
        return None;
    }
    select.start = dir.len();
    let overlay = overlay(live, revision, &symbols);
    // The n-gram index rules out the overlay's files it describes that lack a trigram every
    // match of the pattern needs (most of them: files changed since the symbol file, or that
    // it could not parse, such as files over the outline's size cap).
    let docs = prefilter.and_then(|(pattern, literal)| {
        if live.data.postings.damaged() {
            return None;
        }
        evaluate(&plan(pattern, literal, false), &live.data.postings, false)
    });
    let mut scope = Scope {
        dir,
        select,
        symbols,
        overlay: Vec::new(),
    };
    scope.overlay = overlay
        .iter()
        .filter(|p| scope.admits(p))
        .filter(|p| {
            let doc = live.table.files.get(p.as_str()).and_then(|e| e.doc);
            match (doc, &docs) {
                (Some(doc), Some(docs)) => docs.binary_search(&doc).is_ok(),
                _ => true,
            }
        })
        .cloned()
        .collect();
    if live.data.postings.damaged() {
        return None;
    }
    Some(Ok(scope))
}

/// The checked `name`, the pattern of it as a word, and the scope of a call asking for it
/// (`find_references`, `find_calls`): the overlay's files left are those that may hold it.
fn name_scope<'n>(
    workspace: &Workspace,
    live: &mut Live,
    revision: u64,
    name: &'n str,
    files: (Option<&OsStr>, &[String]),
) -> Option<Result<(&'n str, String, Scope), CoreError>> {
    let name = match references::check_name(name) {
        Ok(name) => name,
        Err(error) => return Some(Err(error)),
    };
    let pattern = references::word_pattern(name);
    let scope = scope(workspace, live, revision, files, Some((&pattern, false)))?;
    Some(scope.map(|scope| (name, pattern, scope)))
}

/// Whether the symbol file's record `file` still describes the table's file.
fn fresh(live: &Live, file: &StoredFile<'_>) -> bool {
    file.trusted
        && file.status != Status::Unparsed
        && live
            .table
            .files
            .get(file.path)
            .is_some_and(|e| e.meta == file.meta && indexable(e, live.table.vouched))
}

/// The files of the table with a parser that the symbol file does not describe as they are
/// now: computed by one walk of both sorted lists, kept until the table changes.
pub(super) fn overlay(live: &mut Live, revision: u64, symbols: &Symbols) -> Arc<Vec<String>> {
    let stamp = (revision, live.table.vouched);
    if let Some((at, overlay)) = &live.symbols.overlay
        && *at == stamp
    {
        return Arc::clone(overlay);
    }
    let mut out = Vec::new();
    let mut k = 0u32;
    for (path, entry) in &live.table.files {
        while symbols.file(k).is_some_and(|f| f.path < path.as_str()) {
            k += 1;
        }
        let stored = symbols.file(k).filter(|f| f.path == path.as_str());
        let answered = stored.is_some_and(|f| {
            f.trusted
                && f.status != Status::Unparsed
                && f.meta == entry.meta
                && indexable(entry, live.table.vouched)
        });
        if !answered && may_have_parser(OsStr::new(path.as_str())) {
            out.push(path.clone());
        }
    }
    let out = Arc::new(out);
    live.symbols.overlay = Some((stamp, Arc::clone(&out)));
    out
}

/// The entry of definition `index` of a stored file.
fn entry(symbols: &Symbols, file: &StoredFile<'_>, index: u32) -> Option<Entry> {
    let d = symbols.definition(file.definitions.start.checked_add(index)?)?;
    if file.definitions.start + index >= file.definitions.end {
        return None;
    }
    Some(Entry {
        kind: d.kind,
        name: symbols.name(d.name)?.to_string(),
        line: u64::from(d.line),
        end_line: u64::from(d.end_line),
        depth: d.depth,
        parent: d.parent,
    })
}

/// What the overlay's files are searched for (as grep would) and how they are parsed.
struct Prefilter<'a> {
    pattern: &'a str,
    literal: bool,
    /// Parse them with their references.
    references: bool,
}

/// The overlay's files that hold the pattern, and what parsing each gave.
type Found<T> = (Vec<OsString>, Vec<Parsedness<T>>);

/// The overlay's files that hold `prefilter.pattern` as grep would find it, parsed cold with
/// `keep`; `None` for the cold engine (a pattern the byte regex cannot take).
fn overlay_outcomes<T: Send>(
    workspace: &Workspace,
    outliner: &Outliner,
    scope: &Scope,
    prefilter: Prefilter<'_>,
    cancel: &crate::budget::CancelToken,
    keep: &(dyn Fn(&Source, Arc<Parsed>) -> T + Sync),
) -> Option<Result<Found<T>, CoreError>> {
    let Prefilter {
        pattern,
        literal,
        references,
    } = prefilter;
    let regex = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    let regex = regex::bytes::Regex::new(&regex).ok()?;
    let deadline = workspace.deadline_with(cancel);
    let mut candidates: Vec<OsString> = Vec::new();
    for path in &scope.overlay {
        let os = OsStr::new(path.as_str());
        let Ok(mut opened) = workspace.open_file(os) else {
            continue;
        };
        let holds = match prepare(&mut opened) {
            Ok(Prepared::Ready(source)) => regex.is_match(&source.bytes),
            Ok(Prepared::Refused {
                refusal: crate::outline::Refusal::NoParser,
                ..
            })
            | Err(_) => false,
            // Refused for its size or contents: the cold engine lists it as unparsed when grep
            // finds the name in it; grep decides here too.
            Ok(Prepared::Refused { .. }) => {
                let found = grep::grep(
                    workspace,
                    &GrepOptions {
                        pattern: pattern.to_string(),
                        literal,
                        path: Some(os.to_os_string()),
                        output_mode: OutputMode::FilesWithMatches,
                        limit: None,
                        ..GrepOptions::default()
                    },
                );
                match found {
                    Ok(found) => !found.files.is_empty(),
                    Err(error) => return Some(Err(error)),
                }
            }
        };
        if holds {
            candidates.push(os.to_os_string());
        }
    }
    let refs: Vec<&OsString> = candidates.iter().collect();
    let outcomes = outline_all(workspace, outliner, &refs, &deadline, references, keep);
    if deadline.cancelled() {
        return Some(Err(CoreError::Cancelled));
    }
    Some(Ok((candidates, outcomes)))
}

/// `find_references` from the symbol index, or `None` for the cold engine.
pub(super) fn references(
    workspace: &Workspace,
    mut live: std::sync::MutexGuard<'_, Live>,
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
    let mut languages: BTreeMap<u32, crate::outline::lang::Language> = BTreeMap::new();
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
    drop(live);
    let keep = |source: &Source, parsed: Arc<Parsed>| of_file(source, &parsed, name);
    let (paths, outcomes) = match overlay_outcomes(
        workspace,
        outliner,
        &scope,
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
    files.extend(paths.into_iter().zip(outcomes));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let out = ReferencesOutput {
        files_searched: scope.overlay.len() as u64,
        ..ReferencesOutput::default()
    };
    let mut out = references::assemble(options, out, files);
    fill_texts(workspace, &mut out);
    Some(Ok(out))
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

/// A stored file's outline, as a parse gives it (definitions only).
fn stored_parse(symbols: &Symbols, file: &StoredFile<'_>) -> Parsed {
    let count = file.definitions.end - file.definitions.start;
    Parsed {
        entries: (0..count).filter_map(|i| entry(symbols, file, i)).collect(),
        has_errors: false,
        references: None,
        with_references: false,
    }
}

/// `find_definitions` from the symbol index, or `None` for the cold engine.
pub(super) fn definitions(
    workspace: &Workspace,
    mut live: std::sync::MutexGuard<'_, Live>,
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
        &scope,
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
    mut live: std::sync::MutexGuard<'_, Live>,
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
    let mut defining: Vec<(u32, crate::outline::lang::Language)> = Vec::new();
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
    // [find_calls: freshness remembered while the overlay is the same]
    let current = overlay(&mut live, revision, symbols);
    let mut memo = symbols.fresh_memo(&current);
    holding.retain(|&f| {
        symbols.path(f).is_some_and(|path| scope.admits(path))
            && memo.fresh(f, || {
                symbols.file(f).is_some_and(|file| fresh(&live, &file))
            })
    });
    drop(memo);
    // [/find_calls]
    drop(live);
    // [find_calls: each definition's calls, from the symbol file's call lists]
    let mut found: Vec<(OsString, Parsedness<FileCalls>)> = Vec::new();
    for (f, language) in defining {
        let file = symbols.file(f)?;
        let mut parsed = stored_parse(symbols, &file);
        parsed.references = Some(body_calls(symbols, f, name, kinds)?);
        parsed.with_references = true;
        // [/find_calls]
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
        &scope,
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

/// The symbol graph of the files below `path` from the symbol index, the overlay parsed cold;
/// `None` for the cold engine.
pub(super) fn graph(
    workspace: &Workspace,
    mut live: std::sync::MutexGuard<'_, Live>,
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
    let mut extra: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
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
            let mut references: Vec<(u32, u32)> = symbols
                .file_names(f)
                .into_iter()
                .filter(|(id, _)| *id < symbols.names_len())
                .map(|(id, count)| (intern(&mut graph.names, id), count))
                .collect();
            references.sort_unstable();
            stored.push(GraphFile {
                path: OsString::from(path.as_str()),
                language,
                definitions,
                references,
            });
        }
    }
    drop(live);
    let paths: Vec<OsString> = scope
        .overlay
        .iter()
        .map(OsString::from)
        .filter(|p| crate::outline::collect::is_code(std::path::Path::new(p)))
        .collect();
    let refs: Vec<&OsString> = paths.iter().collect();
    let deadline = workspace.deadline_with(&crate::budget::CancelToken::default());
    let keep = |_: &Source, parsed: Arc<Parsed>| parsed;
    let outcomes = outline_all(workspace, outliner, &refs, &deadline, true, &keep);
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
                }
            }
        }
        stored.push(GraphFile {
            path,
            language,
            definitions,
            references: counts.into_iter().collect(),
        });
    }
    stored.sort_by(|a, b| a.path.cmp(&b.path));
    graph.files = stored;
    Some(Ok(graph))
}
