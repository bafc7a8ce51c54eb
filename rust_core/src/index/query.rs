//! Grep's candidates from the index: the regex planned into a trigram query ([`super::plan`]),
//! the query evaluated on the posting lists, and the candidates (with every file the index does
//! not describe) listed for the grep driver ([`crate::candidates`]) to search; the other files
//! of the table are counted as searched without a match.

use std::sync::{Arc, MutexGuard};

use crate::candidates::{GrepAsk, HeldContents, Listed, MAX_LINE_BYTES, NOT_HELD, ReadParts};
use crate::keyblock;

use super::accounting::{walk_accounting, within};
use super::base::Data;
use super::format::partition_point;
use super::live::Live;
use super::plan::{self, Query};
use super::postings::{Gram, MAX_HELD_BYTES, Postings, intersect, union};
use super::table::{FileEntry, below, is_within, set_below};

/// With at least one candidate document per this many files of the table, the candidates are
/// found by walking the table rather than by a lookup per document.
const WALK_FROM_FRACTION: usize = 16;

/// The files a grep of `ask` must read, from `live` (the table, which answers, and the index),
/// or `None` when the walk must answer.
pub(super) fn candidates(
    workspace_respects_ignore_files: bool,
    live: MutexGuard<'_, Live>,
    ask: &GrepAsk<'_>,
) -> Option<Listed> {
    // A single file is searched by its path (one open either way), and a call that sets the
    // workspace's ignore rules aside walks (the table holds only what they let through).
    let dir = ask.dir?;
    if ask.respect_ignore_files != workspace_respects_ignore_files {
        return None;
    }
    let scope = std::str::from_utf8(dir).ok()?;
    if !live.table.answers_for(scope) {
        return None;
    }
    let (skipped, hidden_by) = walk_accounting(&live.table, scope, ask.max_depth)?;
    let select = ask.select;
    // An inverted search matches the lines without the pattern's trigrams: the index cannot
    // narrow it.
    let postings = &live.data.postings;
    // The candidate sections too, where a match lies within a line.
    let (docs, found) = match (ask.invert_match, ask.multiline) {
        (true, _) => (None, None),
        (false, true) => {
            let query = plan::plan(ask.pattern, ask.literal, ask.case_insensitive);
            (evaluate(&query, postings, true), None)
        }
        (false, false) => {
            let query = plan::plan(ask.pattern, ask.literal, ask.case_insensitive);
            let found = candidate_sections(&query, postings);
            (found.as_ref().map(|f| postings.documents_of(f)), found)
        }
    };
    // Files that may hold a private-key block are searched whatever the pattern: the blocks
    // withheld are counted in every file searched (GrepOutput::withheld_key_files), and a file
    // the index proved match-free would be left out of the count, which would then depend on
    // the pattern.
    let keyed = live.data.key_documents(|postings| {
        let marker = String::from_utf8_lossy(keyblock::KEY_MARKER);
        evaluate(&plan::plan(&marker, true, false), postings, false)
    });
    let docs = docs.and_then(|docs| Some(union(&docs, keyed?)));
    if live.data.damaged() {
        // A block of the lists (or of the contents) failed its check: nothing they said is
        // trusted (the next call starts a rebuild).
        return None;
    }
    let data = Arc::clone(&live.data);
    let without_match = ask.files_without_match;
    // A multiline search passes over a file this large as `too_large` even when the index
    // proves it match-free: it is searched, so it is counted alike.
    let too_large = |size: u64| ask.multiline && size > MAX_LINE_BYTES as u64;
    let mut listed = Listed {
        skipped,
        hidden_by,
        ..Listed::default()
    };
    // The files to read, each with the document whose held contents stand for it, or the
    // parts of it to read.
    let mut paths: Vec<(String, u32, Option<ReadParts>)> = Vec::new();
    // How a candidate is searched: from its held bytes, when the index holds them whole; else
    // only the parts of it that can match (see `read_parts`; none for a search that needs whole
    // files); else whole. A file that may hold a key block is always read whole from disk and
    // searched in key mode: held bytes are handed out only for documents without the key
    // marker's trigrams, so the searcher takes them as key-free (see `HeldContents`).
    let found = found.filter(|_| !ask.whole_files);
    let item = |path: String, entry: &FileEntry| {
        let size = entry.meta.size;
        match (entry.doc, keyed) {
            (Some(doc), Some(keyed)) if keyed.binary_search(&doc).is_err() => {
                if (1..=MAX_HELD_BYTES as u64).contains(&size) && data.contents.len(doc) == size {
                    (path, doc, None)
                } else {
                    let parts = found
                        .as_deref()
                        .and_then(|found| read_parts(&data.postings, found, doc, size));
                    (path, NOT_HELD, parts)
                }
            }
            _ => (path, NOT_HELD, None),
        }
    };
    match &docs {
        Some(docs) if select.is_empty() && ask.max_depth.is_none() && !without_match => {
            // Only the index's candidates and the files it does not describe.
            let mut in_scope = 0u64;
            if docs.len() * WALK_FROM_FRACTION >= live.table.files.len() {
                // Many candidates: the table in path order, each entry's document looked up in
                // a mark per document, costs less than a table lookup per candidate.
                let mut wanted = vec![false; data.docs_len()];
                for &doc in docs {
                    if let Some(mark) = wanted.get_mut(doc as usize) {
                        *mark = true;
                    }
                }
                for (path, entry) in below(&live.table.files, scope) {
                    let Some(doc) = entry.doc else {
                        continue;
                    };
                    if wanted.get(doc as usize) == Some(&true)
                        && path != scope
                        && data.path(doc) == Some(path.as_str())
                    {
                        paths.push(item(path.clone(), entry));
                        in_scope += 1;
                    }
                }
            } else {
                for &doc in docs {
                    let Some(path) = data.path(doc) else {
                        continue;
                    };
                    if !is_within(path, scope) || path == scope {
                        continue;
                    }
                    if let Some(entry) = live.table.files.get(path).filter(|e| e.doc == Some(doc)) {
                        paths.push(item(path.to_string(), entry));
                        in_scope += 1;
                    }
                }
            }
            let mut unindexed = 0u64;
            for path in set_below(&live.table.unindexed, scope) {
                paths.push((path.clone(), NOT_HELD, None));
                unindexed += 1;
            }
            if ask.multiline {
                for (path, entry) in below(&live.table.files, scope) {
                    if let Some(doc) = entry.doc
                        && too_large(entry.meta.size)
                        && docs.binary_search(&doc).is_err()
                    {
                        paths.push(item(path.clone(), entry));
                        in_scope += 1;
                    }
                }
            }
            let files = if scope.is_empty() {
                live.table.files.len() as u64
            } else {
                below(&live.table.files, scope).count() as u64
            };
            listed.unread = files - unindexed - in_scope;
        }
        _ => {
            for (path, entry) in below(&live.table.files, scope) {
                if !within(path, scope, ask.max_depth) {
                    continue;
                }
                let name = path.rsplit('/').next().unwrap_or(path);
                if !select.admits(path.as_bytes(), name.as_bytes()) {
                    continue;
                }
                match (entry.doc, &docs) {
                    (Some(doc), Some(docs))
                        if docs.binary_search(&doc).is_err() && !too_large(entry.meta.size) =>
                    {
                        if without_match {
                            listed.unread_paths.push(path.clone());
                        } else {
                            listed.unread += 1;
                        }
                    }
                    _ => paths.push(item(path.clone(), entry)),
                }
            }
        }
    }
    drop(live);
    // A stable sort merges the sorted runs pushed above (the table's, the unindexed files')
    // in one pass.
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    listed.paths.reserve(paths.len());
    listed.held.reserve(paths.len());
    listed.parts.reserve(paths.len());
    for (path, held, parts) in paths {
        listed.paths.push(path);
        listed.held.push(held);
        listed.parts.push(parts);
    }
    if listed.held.iter().any(|&id| id != NOT_HELD) {
        listed.contents = Some(data);
    }
    Some(listed)
}

/// A document's held contents are the bytes of its file as the index read them: the table
/// gives a file its document only while its identity is the one read (see `build`), and
/// `candidates` lists them only when their length is the file's size too.
impl HeldContents for Data {
    fn contents(&self, id: u32) -> Option<&[u8]> {
        self.held(id)
    }
}

/// The documents satisfying `query`, sorted; `None` for all. Unless a match may span lines
/// (`multiline`), one section of a document must satisfy the whole query (sections end at line
/// ends); with `multiline` the document as a whole must.
pub(super) fn evaluate(query: &Query, postings: &Postings, multiline: bool) -> Option<Vec<u32>> {
    if !multiline {
        return candidate_sections(query, postings).map(|found| postings.documents_of(&found));
    }
    // The documents holding `gram`, among the sorted `among` when given.
    let leaf = |gram: Gram, among: Option<&[u32]>| {
        let documents = postings.documents_of(&postings.sections(gram));
        match among {
            Some(among) => intersect(among, &documents),
            None => documents,
        }
    };
    satisfying(query, postings, &leaf)
}

/// The sections satisfying `query` for a search whose matches lie within a line, sorted; `None`
/// for all.
fn candidate_sections(query: &Query, postings: &Postings) -> Option<Vec<u32>> {
    satisfying(query, postings, &|gram, among| {
        postings.sections_among(gram, among)
    })
}

/// The parts of `doc`'s file (of `size` bytes, as the index read it) that a search whose matches
/// lie within a line must read: its sections among the candidate sections `found`, merged where
/// they touch. No line outside them holds every trigram the pattern needs, so no line there
/// matches: counting the lines of these parts counts the file's. `None` (read it whole) for a
/// file of one section, or when every section is a candidate.
fn read_parts(postings: &Postings, found: &[u32], doc: u32, size: u64) -> Option<ReadParts> {
    let sections = postings.sections_len();
    let document = |s: usize| postings.document(s as u32).unwrap_or(u32::MAX);
    let first = partition_point(sections, |s| document(s) < doc);
    let end = partition_point(sections, |s| document(s) <= doc);
    if end - first <= 1 {
        return None;
    }
    let lo = found.partition_point(|&s| (s as usize) < first);
    let hi = found.partition_point(|&s| (s as usize) < end);
    if hi - lo == end - first {
        return None;
    }
    let mut ranges: Vec<std::ops::Range<u64>> = Vec::new();
    for &section in &found[lo..hi] {
        let (start, next) = postings.section_span(section)?;
        let stop = next.unwrap_or(size);
        if start >= stop || stop > size {
            return None;
        }
        match ranges.last_mut() {
            Some(last) if last.end == start => last.end = stop,
            _ => ranges.push(start..stop),
        }
    }
    Some(ReadParts { size, ranges })
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
