//! Answering grep from the index: the regex planned into a trigram query ([`super::plan`]), the
//! query evaluated on the posting lists, and the candidates (with every file the index does not
//! describe) searched by the cold engine's per-file search; the other files of the table are
//! counted as searched without a match.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

use crate::budget::Deadline;
use crate::error::CoreError;
use crate::grep::{self, GrepOptions, GrepOutput, GrepWorker, OutputMode, Plan};
use crate::keyblock;
use crate::open::{Target, open_target};
use crate::walker::{WalkOptions, thread_count};
use crate::workspace::{SkipCounts, Workspace};

use super::accounting::{walk_accounting, within};
use super::live::Live;
use super::plan::{self, Query};
use super::postings::{Gram, Postings, intersect, union};
use super::source;
use super::table::{below, is_within, set_below};

/// `grep` answered from `live` (the table, which answers, and the index), or `None` when the
/// cold engine must answer. `deadline` and `started` were taken before `live` was locked.
pub(super) fn grep(
    workspace: &Workspace,
    live: MutexGuard<'_, Live>,
    options: &GrepOptions,
    deadline: Deadline,
    started: Instant,
) -> Option<Result<GrepOutput, CoreError>> {
    // The same opens and checks, in the same order, as the cold engine's.
    let target = match open_target(workspace, options.path.as_deref().unwrap_or_default()) {
        Ok((target, _)) => target,
        Err(error) => return Some(Err(error)),
    };
    let mut prepared = match grep::prepare(workspace, options) {
        Ok(prepared) => prepared,
        Err(error) => return Some(Err(error)),
    };
    let walk = WalkOptions::new(workspace, options.respect_ignore_files, options.max_depth);
    // A single file is searched cold (one open either way), and so is a call that sets the
    // workspace's ignore rules aside (the table holds only what they let through).
    let Target::Dir(start) = target else {
        return None;
    };
    if options.max_count == Some(0) {
        // Nothing is searched: the cold engine answers at once.
        return None;
    }
    if walk.respect_ignore_files != workspace.options().respect_ignore_files {
        return None;
    }
    let scope = String::from_utf8(start.relative).ok()?;
    if !live.table.answers_for(&scope) {
        return None;
    }
    prepared.select.start = scope.len();
    let (skipped, hidden_by) = walk_accounting(&live.table, &scope, options.max_depth)?;
    let select = &prepared.select;
    // An inverted search matches the lines without the pattern's trigrams: the index cannot
    // narrow it.
    let docs = match options.invert_match {
        true => None,
        false => {
            let query = plan::plan(&options.pattern, options.literal, options.case_insensitive);
            evaluate(&query, &live.data.postings, options.multiline)
        }
    };
    // Files that may hold a private-key block are searched whatever the pattern: the blocks
    // withheld are counted in every file searched (GrepOutput::withheld_key_files), and a file
    // the index proved match-free would be left out of the count, which would then depend on
    // the pattern.
    let docs = docs.and_then(|docs| {
        let keyed = live.data.key_documents(|postings| {
            let marker = String::from_utf8_lossy(keyblock::KEY_MARKER);
            evaluate(&plan::plan(&marker, true, false), postings, false)
        })?;
        Some(union(&docs, keyed))
    });
    if live.data.postings.damaged() {
        // A block of the lists failed its check: nothing they said is trusted (the next call
        // starts a rebuild).
        return None;
    }
    let data = Arc::clone(&live.data);
    let without_match = options.output_mode == OutputMode::FilesWithoutMatch;
    let mut candidates: Vec<String> = Vec::new();
    // Files the index proves match-free: counted as searched, or (files_without_match) the
    // entries themselves.
    let mut unread = 0u64;
    let mut unread_paths: Vec<String> = Vec::new();
    match &docs {
        Some(docs) if select.is_empty() && options.max_depth.is_none() && !without_match => {
            // Only the index's candidates and the files it does not describe.
            let mut in_scope = 0u64;
            for &doc in docs {
                let Some(path) = data.path(doc) else {
                    continue;
                };
                if !is_within(path, &scope) || path == scope {
                    continue;
                }
                if live
                    .table
                    .files
                    .get(path)
                    .is_some_and(|e| e.doc == Some(doc))
                {
                    candidates.push(path.to_string());
                    in_scope += 1;
                }
            }
            let mut unindexed = 0u64;
            for path in set_below(&live.table.unindexed, &scope) {
                candidates.push(path.clone());
                unindexed += 1;
            }
            if options.multiline {
                // A multiline search passes over a file this large as `too_large` even when
                // the index proves it match-free: it is searched, so it is counted alike.
                for (path, entry) in below(&live.table.files, &scope) {
                    if let Some(doc) = entry.doc
                        && entry.meta.size > grep::MAX_LINE_BYTES as u64
                        && docs.binary_search(&doc).is_err()
                    {
                        candidates.push(path.clone());
                        in_scope += 1;
                    }
                }
            }
            let files = if scope.is_empty() {
                live.table.files.len() as u64
            } else {
                below(&live.table.files, &scope).count() as u64
            };
            unread = files - unindexed - in_scope;
        }
        _ => {
            for (path, entry) in below(&live.table.files, &scope) {
                if !within(path, &scope, options.max_depth) {
                    continue;
                }
                let name = path.rsplit('/').next().unwrap_or(path);
                if !select.admits(path.as_bytes(), name.as_bytes()) {
                    continue;
                }
                let passed_over_anyway =
                    options.multiline && entry.meta.size > grep::MAX_LINE_BYTES as u64;
                match (entry.doc, &docs) {
                    (Some(doc), Some(docs))
                        if docs.binary_search(&doc).is_err() && !passed_over_anyway =>
                    {
                        if without_match {
                            unread_paths.push(path.clone());
                        } else {
                            unread += 1;
                        }
                    }
                    _ => candidates.push(path.clone()),
                }
            }
        }
    }
    drop(live);
    candidates.sort_unstable();
    let path_ignored_by = grep::path_ignored_by(workspace, walk, scope.as_bytes(), true);
    let plan = Plan::new(options, select, &deadline);
    let matcher = &prepared.matcher;
    let (mut workers, more_skipped, incomplete) =
        search_files(workspace, &plan, matcher, &deadline, &candidates);
    if let Some(worker) = workers.first_mut() {
        for path in &unread_paths {
            worker.searched_without_match(path.as_bytes());
        }
    }
    let mut skipped = skipped;
    skipped.add(&more_skipped);
    let walked = grep::Walked {
        skipped,
        hidden_by,
        path_ignored_by,
        unread_searched: unread,
        incomplete,
    };
    // The cold engine's page assembly: bounded text, far pages fetched again, and
    // `Cancelled` when the token was cancelled.
    Some(grep::finish(
        workspace, &plan, matcher, workers, walked, started,
    ))
}

/// Candidates a search thread takes at a time.
const CHUNK_FILES: usize = 16;

/// Candidate files at or above this number are searched on the workspace's threads.
const PARALLEL_FROM_FILES: usize = 48;

/// Searches `candidates` with the cold engine's per-file search; returns the workers, the skips
/// they counted and whether the time budget ran out.
fn search_files<'a>(
    workspace: &Workspace,
    plan: &'a Plan<'a>,
    matcher: &'a grep_regex::RegexMatcher,
    deadline: &Deadline,
    candidates: &[String],
) -> (Vec<GrepWorker<'a>>, SkipCounts, bool) {
    let threads = if candidates.len() >= PARALLEL_FROM_FILES {
        thread_count(workspace).min(candidates.len()).max(1)
    } else {
        1
    };
    let next = AtomicUsize::new(0);
    let incomplete = AtomicBool::new(false);
    let run = || {
        let mut worker = GrepWorker::new(plan, matcher);
        let mut skipped = SkipCounts::default();
        let mut opener = source::Opener::default();
        'chunks: loop {
            // Runs of neighbours in path order, so that one thread's files share directories.
            let first = next.fetch_add(CHUNK_FILES, Ordering::Relaxed);
            let Some(chunk) = candidates.get(first..(first + CHUNK_FILES).min(candidates.len()))
            else {
                break;
            };
            if chunk.is_empty() {
                break;
            }
            for path in chunk {
                if deadline.expired() {
                    incomplete.store(true, Ordering::Relaxed);
                    break 'chunks;
                }
                if let Some((file, identity)) = opener.open_counted(workspace, path, &mut skipped) {
                    worker.search(file, identity.size, path.as_bytes(), &mut skipped);
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
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
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

/// The documents satisfying `query`, sorted; `None` for all. Unless a match may span lines
/// (`multiline`), one section of a document must satisfy the whole query (sections end at line
/// ends); with `multiline` the document as a whole must.
pub(super) fn evaluate(query: &Query, postings: &Postings, multiline: bool) -> Option<Vec<u32>> {
    // The entries holding `gram`, among the sorted `among` when given.
    let leaf = |gram: Gram, among: Option<&[u32]>| match multiline {
        true => {
            let documents = postings.documents_of(&postings.sections(gram));
            match among {
                Some(among) => intersect(among, &documents),
                None => documents,
            }
        }
        false => postings.sections_among(gram, among),
    };
    let found = satisfying(query, postings, &leaf)?;
    Some(match multiline {
        true => found,
        false => postings.documents_of(&found),
    })
}

/// The sorted entries (sections or documents) holding a trigram, among the sorted entries given.
type Leaf<'a> = dyn Fn(Gram, Option<&[u32]>) -> Vec<u32> + 'a;

/// The sorted entries `leaf` gives that satisfy `query`; `None` for all.
fn satisfying(query: &Query, postings: &Postings, leaf: &Leaf<'_>) -> Option<Vec<u32>> {
    /// Once this few candidates are left, further trigrams are not looked up: decoding their
    /// lists would cost more than searching the few files.
    const ENOUGH: usize = 8;
    /// With this many candidates or more, the lookups stop once [`IDLE`] trigrams in a row
    /// (taken rarest first) removed none: the rest are commoner still, their lists the longest.
    const MANY: usize = 256;
    /// See [`MANY`].
    const IDLE: usize = 2;
    match query {
        Query::All => None,
        Query::Nothing => Some(Vec::new()),
        Query::Trigram(gram) => Some(leaf(*gram, None)),
        Query::And(parts) => {
            let mut grams: Vec<Gram> = parts
                .iter()
                .filter_map(|p| match p {
                    Query::Trigram(gram) => Some(*gram),
                    _ => None,
                })
                .collect();
            grams.sort_unstable();
            grams.dedup();
            grams.sort_by_key(|g| postings.count(g.key));
            let mut acc: Option<Vec<u32>> = None;
            // Trigrams in a row that removed no candidate.
            let mut idle = 0;
            for gram in grams {
                let left = acc.as_ref().map(Vec::len);
                if left.is_some_and(|n| n <= ENOUGH || (n >= MANY && idle >= IDLE)) {
                    break;
                }
                let next = leaf(gram, acc.as_deref());
                idle = if Some(next.len()) == left {
                    idle + 1
                } else {
                    0
                };
                acc = Some(next);
            }
            for part in parts {
                if matches!(part, Query::Trigram(..)) {
                    continue;
                }
                if acc.as_ref().is_some_and(|a| a.is_empty()) {
                    break;
                }
                if let Some(list) = satisfying(part, postings, leaf) {
                    acc = Some(match acc {
                        None => list,
                        Some(a) => intersect(&a, &list),
                    });
                }
            }
            acc
        }
        Query::Or(parts) => {
            let mut acc = Vec::new();
            for part in parts {
                acc = union(&acc, &satisfying(part, postings, leaf)?);
            }
            Some(acc)
        }
    }
}
