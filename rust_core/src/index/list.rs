//! Glob's candidates from the table: the files below the walked directory (only those with
//! the names the glob asks for, through the index's table of names, when they are few), listed
//! for the glob driver ([`crate::glob::list`]) to match, page and sort. A listing with other
//! ignore rules than the workspace's (`respect_ignore_files` false) walks: the table holds only
//! what the workspace's rules let through.

use std::sync::MutexGuard;

use crate::candidates::{GlobAsk, ListedFile, ListedFiles};
use crate::pattern::name_key;

use super::accounting::{walk_accounting, within};
use super::live::Live;
use super::table::{FileEntry, below, set_below};

/// Hands the files a glob of `ask` must match, from `live` (the table, which answers), to
/// `list`; false when the walk must answer.
pub(super) fn candidates(
    workspace_respects_ignore_files: bool,
    live: MutexGuard<'_, Live>,
    ask: &GlobAsk<'_>,
    list: &mut dyn FnMut(ListedFiles<'_>),
) -> bool {
    // The table holds what the workspace's ignore rules let through: a call that sets them
    // aside walks.
    if ask.respect_ignore_files != workspace_respects_ignore_files {
        return false;
    }
    let (Ok(scope), Ok(start_rel)) = (
        std::str::from_utf8(ask.search),
        std::str::from_utf8(ask.walked),
    ) else {
        return false;
    };
    if !live.table.answers_for(scope) || !live.table.answers_for(start_rel) {
        return false;
    }
    let max_depth = ask.max_depth;
    let Some((skipped, hidden_by)) = walk_accounting(&live.table, start_rel, max_depth) else {
        return false;
    };
    let in_scope = |(path, _): &(&String, &FileEntry)| within(path, start_rel, max_depth);
    // Only the files whose names the patterns allow, when they tell and are few; else every
    // file in scope.
    let few = |keys: &&[u64]| {
        let named: usize = keys.iter().map(|&key| live.data.named(key).len()).sum();
        (named + live.table.unindexed.len()) * FEW_NAMED_PER_FILES <= live.table.files.len()
    };
    let by_name = ask.name_keys.filter(few);
    let files: Vec<ListedFile<'_>> = match by_name {
        Some(keys) => named(&live, keys, start_rel)
            .filter(in_scope)
            .map(listed)
            .collect(),
        None => below(&live.table.files, start_rel)
            .filter(in_scope)
            .map(listed)
            .collect(),
    };
    // Counted only when the glob lists nothing.
    let files_in_scope = || match start_rel.is_empty() && max_depth.is_none() {
        true => live.table.files.len() as u64,
        false => below(&live.table.files, start_rel).filter(in_scope).count() as u64,
    };
    list(ListedFiles {
        files,
        in_scope: by_name
            .is_some()
            .then_some(&files_in_scope as &dyn Fn() -> u64),
        skipped,
        hidden_by,
    });
    true
}

/// The files of the table below `scope` whose names have one of `keys` (see
/// `pattern::name_key`), in path order: those holding a document of the base, found through
/// its table of names, and those it does not describe (`Table::unindexed`), which every file
/// without a document is.
fn named<'t>(
    live: &'t Live,
    keys: &[u64],
    scope: &str,
) -> impl Iterator<Item = (&'t String, &'t FileEntry)> {
    let table = &live.table;
    let data = &live.data;
    let mut found: Vec<(&String, &FileEntry)> = Vec::new();
    for &key in keys {
        for record in data.named(key) {
            let Some(file) = data.file(record) else {
                continue;
            };
            if file.doc.is_none() || !is_below(file.path, scope) {
                continue;
            }
            if let Some((path, entry)) = table.files.get_key_value(file.path)
                && entry.doc == file.doc
            {
                found.push((path, entry));
            }
        }
    }
    for path in set_below(&table.unindexed, scope) {
        let name = path.rsplit('/').next().unwrap_or(path);
        if keys.contains(&name_key(name.as_bytes()))
            && let Some(found_entry) = table.files.get_key_value(path.as_str())
        {
            found.push(found_entry);
        }
    }
    found.sort_unstable_by(|a, b| a.0.cmp(b.0));
    found.into_iter()
}

/// A file of the table as a glob's candidate.
fn listed<'t>((path, entry): (&'t String, &'t FileEntry)) -> ListedFile<'t> {
    ListedFile {
        path,
        identity: &entry.meta,
    }
}

/// Whether `path` lies strictly below directory `dir` ("" for the root: every path).
fn is_below(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

/// A glob lists through the table of names only when the files with its names (and those the
/// base does not describe) are at most one in this many of the table: each costs a lookup in
/// the table (about 250 ns on the Linux tree, against about 50 ns to match a path of a whole
/// scan), so `**/*.dts` (2,618 of 78,577 files) lists in 0.6 ms instead of 3.9 ms, and `**/*.c`
/// (32,004) keeps the scan (3.7 ms; 8.5 ms through the names).
const FEW_NAMED_PER_FILES: usize = 8;
