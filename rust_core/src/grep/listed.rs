//! The search of files a candidate source listed ([`crate::candidates`]) in place of a walk:
//! the same per-file search as the walk's, over the list in path order, on the workspace's
//! threads when the list is long.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_regex::RegexMatcher;

use crate::budget::Deadline;
use crate::candidates::{Listed, NOT_HELD};
use crate::walker::{Opener, thread_count};
use crate::workspace::{SkipCounts, Workspace};

use super::Plan;
use super::worker::GrepWorker;

/// Listed files a search thread takes at a time.
const CHUNK_FILES: usize = 16;

/// Lists of this many files or more are searched on the workspace's threads.
const PARALLEL_FROM_FILES: usize = 48;

/// Searches the listed paths (relative to the root, in path order), from the bytes the source
/// holds for a file when it holds them, else from the file; returns the workers, the skips they
/// counted and whether the time budget ran out.
pub(super) fn search_listed<'a>(
    workspace: &Workspace,
    plan: &'a Plan<'a>,
    matcher: &'a RegexMatcher,
    deadline: &Deadline,
    listed: &Listed,
) -> (Vec<GrepWorker<'a>>, SkipCounts, bool) {
    let paths = &listed.paths;
    let held = |i: usize| {
        let id = listed.held.get(i).copied().unwrap_or(NOT_HELD);
        let contents = listed.contents.as_deref();
        contents.filter(|_| id != NOT_HELD)?.contents(id)
    };
    let threads = if paths.len() >= PARALLEL_FROM_FILES {
        thread_count(workspace).min(paths.len()).max(1)
    } else {
        1
    };
    let next = AtomicUsize::new(0);
    let incomplete = AtomicBool::new(false);
    let run = || {
        let mut worker = GrepWorker::new(plan, matcher);
        let mut skipped = SkipCounts::default();
        let mut opener = Opener::default();
        'chunks: loop {
            // Runs of neighbours in path order, so that one thread's files share directories.
            let first = next.fetch_add(CHUNK_FILES, Ordering::Relaxed);
            let Some(chunk) = paths.get(first..(first + CHUNK_FILES).min(paths.len())) else {
                break;
            };
            if chunk.is_empty() {
                break;
            }
            for (i, path) in (first..).zip(chunk) {
                if deadline.expired() {
                    incomplete.store(true, Ordering::Relaxed);
                    break 'chunks;
                }
                if let Some(bytes) = held(i) {
                    worker.search_held(bytes, path.as_bytes(), &mut skipped);
                } else if let Some((file, identity)) =
                    opener.open_counted(workspace, path, &mut skipped)
                {
                    let (size, relative) = (identity.size, path.as_bytes());
                    match listed.parts.get(i).and_then(Option::as_ref) {
                        Some(parts) => {
                            worker.search_parts(file, size, parts, relative, &mut skipped)
                        }
                        None => worker.search(file, size, relative, &mut skipped),
                    }
                }
                if worker.stopped() {
                    // The deadline passed (or the call was cancelled) inside this file.
                    incomplete.store(true, Ordering::Relaxed);
                    break 'chunks;
                }
            }
        }
        (worker, skipped)
    };
    let results: Vec<(GrepWorker<'a>, SkipCounts)> = if threads == 1 {
        vec![run()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| crate::threads::spawn_or_run(scope, run))
                .collect();
            // A worker that panicked took its files' answers with it: the call fails (the
            // binding reports an internal error) rather than answer without them.
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    };
    let mut skipped = SkipCounts::default();
    let mut workers = Vec::new();
    for (worker, s) in results {
        skipped.add(&s);
        workers.push(worker);
    }
    (workers, skipped, incomplete.into_inner())
}
