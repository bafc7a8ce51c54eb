//! What a navigation call may read from the symbol index, taken under the live state's lock
//! (its [`Scope`]): the files of the table below the call's directory that its `glob` admits,
//! as grep would search them; the symbol file's records of them that still describe them
//! (`fresh`); and the overlay's files among them, less those the n-gram index rules out. And
//! how a stored record reads as a parse (`entry`, `stored_parse`).

use std::ffi::OsStr;
use std::sync::Arc;

use crate::error::CoreError;
use crate::open::{Target, open_target};
use crate::outline::parse::{Entry, Parsed};
use crate::outline::references;
use crate::pattern::FileSelect;
use crate::workspace::Workspace;

use super::live::Live;
use super::overlay::overlay;
use super::plan::plan;
use super::query::evaluate;
use super::symbol_state::SymbolPhase;
use super::symbols::{Status, StoredFile, Symbols};
use super::table::{indexable, is_within};

/// What a call may read from the symbol index, taken under the live state's lock.
pub(super) struct Scope {
    /// The searched directory, relative to the root.
    pub(super) dir: String,
    pub(super) select: FileSelect,
    pub(super) symbols: Arc<Symbols>,
    /// The overlay's files in the directory that the selection admits.
    pub(super) overlay: Vec<String>,
}

impl Scope {
    pub(super) fn admits(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        is_within(path, &self.dir)
            && path != self.dir
            && self.select.admits(path.as_bytes(), name.as_bytes())
    }
}

/// The scope of a call on `path` with `glob` when the symbol index can answer it; `None` for
/// the cold engine (not ready, a single file, a directory the table cannot answer for).
pub(super) fn scope(
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
    let compile = |body: &str, glob: &str| workspace.cached_glob(body, glob);
    let mut select = match FileSelect::new(glob, (&[], &[]), compile) {
        Ok(select) => select,
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
pub(super) fn name_scope<'n>(
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
pub(super) fn fresh(live: &Live, file: &StoredFile<'_>) -> bool {
    file.trusted
        && file.status != Status::Unparsed
        && live
            .table
            .files
            .get(file.path)
            .is_some_and(|e| e.meta == file.meta && indexable(e, live.table.vouched))
}

/// The entry of definition `index` of a stored file.
pub(super) fn entry(symbols: &Symbols, file: &StoredFile<'_>, index: u32) -> Option<Entry> {
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

/// A stored file's outline, as a parse gives it (definitions only).
pub(super) fn stored_parse(symbols: &Symbols, file: &StoredFile<'_>) -> Parsed {
    let count = file.definitions.end - file.definitions.start;
    Parsed {
        entries: (0..count).filter_map(|i| entry(symbols, file, i)).collect(),
        has_errors: false,
        references: None,
        with_references: false,
    }
}
