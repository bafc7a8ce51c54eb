//! Page assembly: from the files with matches, in path order, to the entries of one page.

use std::ffi::OsString;

use super::sink::{StoredLine, Window};
use super::{FileCount, GrepLine};

/// A file with at least one match, kept for the page.
pub(super) struct FileHit {
    /// Path relative to the root (the page opens it again by this name to fetch its lines).
    pub(super) path: OsString,
    pub(super) count: u64,
    /// Page entries this file holds: its matching lines (at most `offset + limit`) in content
    /// mode, 1 in the file modes.
    pub(super) entries: u64,
    /// Index (among the file's matching lines) of the first stored matching line.
    pub(super) first_index: u64,
    /// Content mode: stored matching lines and the context lines around them, in line order.
    pub(super) lines: Vec<StoredLine>,
}

/// The page's range of entries, `first .. end`.
#[derive(Clone, Copy)]
pub(super) struct PageRange {
    pub(super) first: u64,
    pub(super) end: u64,
}

impl PageRange {
    pub(super) fn new(offset: usize, limit: Option<usize>) -> PageRange {
        let first = offset as u64;
        PageRange {
            first,
            end: limit.map_or(u64::MAX, |l| first.saturating_add(l as u64)),
        }
    }
}

/// For each file in path order that holds matches of the page, its index in `hits` and the
/// window of its own matching lines the page shows.
pub(super) fn content_windows(hits: &[FileHit], range: PageRange) -> Vec<(usize, Window)> {
    let mut out = Vec::new();
    let mut before = 0u64;
    for (index, hit) in hits.iter().enumerate() {
        let (file_start, file_end) = (before, before + hit.count);
        before = file_end;
        if file_end <= range.first {
            continue;
        }
        if file_start >= range.end {
            break;
        }
        out.push((
            index,
            Window {
                from: range.first.saturating_sub(file_start),
                to: range.end.min(file_end) - file_start,
                stop_after: true,
            },
        ));
    }
    out
}

/// Content mode: the matches of `range` (global order: path, then line) with the context lines
/// around them, and how many matches that is. A withheld match that falls in the context of a
/// shown one is left out rather than shown as context; a match past `max_count` in the
/// after-context of the last counted one is shown as a match that no page counts. `hits` are the kept files in path order:
/// every file before a file that reaches the page is among them.
pub(super) fn content_page(
    hits: &[FileHit],
    range: PageRange,
    (before, after): (u64, u64),
) -> (Vec<GrepLine>, u64) {
    let mut out = Vec::new();
    let mut shown = 0u64;
    for (index, window) in content_windows(hits, range) {
        let hit = &hits[index];
        // Line numbers of the selected matches, ascending.
        let mut selected = Vec::new();
        let mut match_index = hit.first_index;
        for stored in &hit.lines {
            if stored.counted {
                if match_index >= window.from && match_index < window.to {
                    selected.push(stored.line);
                }
                match_index += 1;
            }
        }
        shown += selected.len() as u64;
        let mut next = 0usize;
        match_index = hit.first_index;
        for stored in &hit.lines {
            // An uncounted match (past max_count) is shown where a context line would be.
            let show = if stored.counted {
                let chosen = match_index >= window.from && match_index < window.to;
                match_index += 1;
                chosen
            } else {
                // Windows are ascending: advance past those that end before this line.
                while next < selected.len() && selected[next].saturating_add(after) < stored.line {
                    next += 1;
                }
                next < selected.len() && selected[next].saturating_sub(before) <= stored.line
            };
            if show {
                out.push(GrepLine {
                    path: hit.path.clone(),
                    line: stored.line,
                    text: stored.text.clone(),
                    is_match: stored.is_match,
                    counted: stored.counted,
                    cut: stored.cut,
                });
            }
        }
    }
    (out, shown)
}

/// The file modes: the files of `range`, with their counts.
pub(super) fn files_page(hits: Vec<FileHit>, range: PageRange) -> Vec<FileCount> {
    let take = range.end.saturating_sub(range.first);
    hits.into_iter()
        .skip(usize::try_from(range.first).unwrap_or(usize::MAX))
        .take(usize::try_from(take).unwrap_or(usize::MAX))
        .map(|h| FileCount {
            path: h.path,
            count: h.count,
        })
        .collect()
}
