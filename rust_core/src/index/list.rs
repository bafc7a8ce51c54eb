//! Listing from the table: a glob matched against the table's paths below the searched
//! directory (on several threads for a large table), paged and sorted as the cold glob does.
//! A listing with other ignore rules than the workspace's (`respect_ignore_files` false) is the
//! cold engine's: the table holds only what the workspace's rules let through.

use std::ffi::OsString;
use std::sync::MutexGuard;
use std::time::Instant;

use crate::budget::Deadline;
use crate::error::CoreError;
use crate::glob::{GlobCounts, GlobOptions, GlobOutput, GlobSetup, SortOrder};
use crate::walker::thread_count;
use crate::workspace::Workspace;

use super::accounting::{walk_accounting, within};
use super::live::Live;
use super::table::{FileEntry, below, set_below};
use crate::pattern::name_key;

/// `glob` answered from the table in `live` (which answers), or `None` when the cold engine
/// must answer. `deadline` and `started` were taken before `live` was locked.
pub(super) fn glob(
    workspace: &Workspace,
    live: MutexGuard<'_, Live>,
    options: &GlobOptions,
    deadline: Deadline,
    started: Instant,
) -> Option<Result<GlobOutput, CoreError>> {
    let setup = match GlobSetup::new(workspace, options) {
        Ok((setup, _start)) => setup,
        Err(error) => return Some(Err(error)),
    };
    // The table holds what the workspace's ignore rules let through: a call that sets them
    // aside is answered cold.
    if setup.walk.respect_ignore_files != workspace.options().respect_ignore_files {
        return None;
    }
    let scope = std::str::from_utf8(&setup.search).ok()?;
    let start_rel = std::str::from_utf8(&setup.searched).ok()?.to_string();
    if !live.table.answers_for(scope) || !live.table.answers_for(&start_rel) {
        return None;
    }
    let max_depth = setup.walk.max_depth;
    let accounting = walk_accounting(&live.table, &start_rel, max_depth)?;
    let in_scope = |(path, _): &(&String, &FileEntry)| within(path, &start_rel, max_depth);
    // Only the files whose names the patterns allow, when they tell and are few; else every
    // file in scope.
    let few = |keys: &Vec<u64>| {
        let named: usize = keys.iter().map(|&key| live.data.named(key).len()).sum();
        (named + live.table.unindexed.len()) * FEW_NAMED_PER_FILES <= live.table.files.len()
    };
    let by_name = setup.name_keys.as_ref().filter(|k| few(k));
    let entries: Vec<(&String, &FileEntry)> = match by_name {
        Some(keys) => named(&live, keys, &start_rel).filter(in_scope).collect(),
        None => below(&live.table.files, &start_rel)
            .filter(in_scope)
            .collect(),
    };
    let threads = if entries.len() >= PARALLEL_GLOB_FROM_ENTRIES {
        thread_count(workspace).clamp(1, MAX_GLOB_THREADS)
    } else {
        1
    };
    // Contiguous runs of the table, one per thread; their matches are merged in order.
    let run_length = entries.len().div_ceil(threads).max(1);
    let parts: Vec<GlobPart> = if threads == 1 {
        vec![match_entries(&entries, &setup, &deadline)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = entries
                .chunks(run_length)
                .map(|run| scope.spawn(|| match_entries(run, &setup, &deadline)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or(GlobPart {
                        incomplete: true,
                        ..GlobPart::default()
                    })
                })
                .collect()
        })
    };
    let mut counts = GlobCounts::default();
    let limit = options.limit.unwrap_or(usize::MAX);
    let mut paths = Vec::new();
    let mut by_time = Vec::new();
    let mut incomplete = false;
    for (number, part) in parts.iter().enumerate() {
        counts.in_scope += part.in_scope;
        counts.anywhere_total += part.anywhere;
        incomplete |= part.incomplete;
        for &at in &part.matched {
            let (path, entry) = entries[number * run_length + at];
            counts.total += 1;
            match options.sort {
                SortOrder::Path => {
                    if counts.total > options.offset as u64 && paths.len() < limit {
                        paths.push(OsString::from(path));
                    }
                }
                SortOrder::Modified => {
                    by_time.push((std::cmp::Reverse(entry.meta.modified()), path));
                }
            }
        }
    }
    if by_name.is_some() && counts.total == 0 {
        // The files in scope are reported when none is listed: the table counts them.
        counts.in_scope = match start_rel.is_empty() && max_depth.is_none() {
            true => live.table.files.len() as u64,
            false => below(&live.table.files, &start_rel)
                .filter(in_scope)
                .count() as u64,
        };
    }
    if options.sort == SortOrder::Modified {
        by_time.sort_unstable();
        paths = by_time
            .into_iter()
            .skip(options.offset)
            .take(limit)
            .map(|(_, p)| OsString::from(p))
            .collect();
    }
    drop(live);
    if deadline.cancelled() {
        return Some(Err(CoreError::Cancelled));
    }
    Some(Ok(setup.output(
        options, paths, counts, accounting, incomplete, started,
    )))
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

/// A warm glob looks at the deadline once per this many table entries.
const DEADLINE_EVERY_ENTRIES: usize = 1024;

/// A warm glob over at least this many table entries matches them on the workspace's threads
/// (a thread costs tens of µs to start; matching 4,096 paths about 150 µs).
const PARALLEL_GLOB_FROM_ENTRIES: usize = 4096;

/// Threads a warm glob uses at most.
const MAX_GLOB_THREADS: usize = 8;

/// What one thread of a warm glob found in its run of table entries.
#[derive(Default)]
struct GlobPart {
    /// Entries looked at.
    in_scope: u64,
    /// Entries the slash-free pattern matches anywhere.
    anywhere: u64,
    /// Indices (within the run) of the entries the pattern matches, in order.
    matched: Vec<usize>,
    /// The deadline passed before the run's end.
    incomplete: bool,
}

/// Matches `entries` against the glob of `setup`.
fn match_entries(
    entries: &[(&String, &FileEntry)],
    setup: &GlobSetup,
    deadline: &Deadline,
) -> GlobPart {
    let mut part = GlobPart::default();
    for (at, (path, _)) in entries.iter().enumerate() {
        // The clock and the token are read once per this many entries (a few µs of work).
        if at % DEADLINE_EVERY_ENTRIES == 0 && deadline.expired() {
            part.incomplete = true;
            break;
        }
        part.in_scope += 1;
        let in_search = &path.as_bytes()[setup.search_prefix..];
        let name = in_search.rsplit(|b| *b == b'/').next().unwrap_or_default();
        if setup.anywhere_admits(in_search, name) {
            part.anywhere += 1;
        }
        if setup.admits(in_search, name) {
            part.matched.push(at);
        }
    }
    part
}
