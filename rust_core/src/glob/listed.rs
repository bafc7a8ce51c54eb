//! The listing of files a candidate source gave in place of a walk ([`crate::candidates`]):
//! each matched against the glob (on several threads for a long list), then paged and sorted as
//! the walk's listing is.

use std::cmp::Reverse;
use std::ffi::OsString;

use crate::budget::Deadline;
use crate::candidates::{ListedFile, ListedFiles};
use crate::walker::thread_count;
use crate::workspace::Workspace;

use super::{GlobCounts, GlobOptions, GlobSetup, SortOrder};

/// A listing looks at the deadline once per this many files.
const DEADLINE_EVERY_ENTRIES: usize = 1024;

/// A listing of at least this many files matches them on the workspace's threads (a thread
/// costs tens of µs to start; matching 4,096 paths about 150 µs).
const PARALLEL_GLOB_FROM_ENTRIES: usize = 4096;

/// Threads a listing uses at most.
const MAX_GLOB_THREADS: usize = 8;

/// What one thread of a listing found in its run of files.
#[derive(Default)]
struct GlobPart {
    /// Files looked at.
    in_scope: u64,
    /// Files the slash-free pattern matches anywhere.
    anywhere: u64,
    /// Indices (within the run) of the files the pattern matches, in order.
    matched: Vec<usize>,
    /// The deadline passed before the run's end.
    incomplete: bool,
}

/// The page of `listed` the glob of `setup` lists, its counts, and whether the deadline passed.
pub(super) fn list_listed(
    workspace: &Workspace,
    setup: &GlobSetup,
    options: &GlobOptions,
    listed: &ListedFiles<'_>,
    deadline: &Deadline,
) -> (Vec<OsString>, GlobCounts, bool) {
    let files = &listed.files;
    let threads = if files.len() >= PARALLEL_GLOB_FROM_ENTRIES {
        thread_count(workspace).clamp(1, MAX_GLOB_THREADS)
    } else {
        1
    };
    // Contiguous runs of the list, one per thread; their matches are merged in order.
    let run_length = files.len().div_ceil(threads).max(1);
    let parts: Vec<GlobPart> = if threads == 1 {
        vec![match_files(files, setup, deadline)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = files
                .chunks(run_length)
                .map(|run| {
                    crate::threads::spawn_or_run(scope, move || match_files(run, setup, deadline))
                })
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
            let file = &files[number * run_length + at];
            counts.total += 1;
            match options.sort {
                SortOrder::Path => {
                    if counts.total > options.offset as u64 && paths.len() < limit {
                        paths.push(OsString::from(file.path.as_str()));
                    }
                }
                SortOrder::Modified => {
                    by_time.push((Reverse(file.identity.modified()), file.path));
                }
            }
        }
    }
    if let Some(in_scope) = listed.in_scope
        && counts.total == 0
    {
        // The files in scope are reported when none is listed: the source counts them.
        counts.in_scope = in_scope();
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
    (paths, counts, incomplete)
}

/// Matches `files` against the glob of `setup`.
fn match_files(files: &[ListedFile<'_>], setup: &GlobSetup, deadline: &Deadline) -> GlobPart {
    let mut part = GlobPart::default();
    for (at, file) in files.iter().enumerate() {
        // The clock and the token are read once per this many files (a few µs of work).
        if at % DEADLINE_EVERY_ENTRIES == 0 && deadline.expired() {
            part.incomplete = true;
            break;
        }
        part.in_scope += 1;
        let in_search = &file.path.as_bytes()[setup.search_prefix..];
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
