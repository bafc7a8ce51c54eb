//! The overlay: the files of the table with a parser that the symbol file does not describe as
//! they are now (changed, new, not parsed when it was written). A navigation call searches
//! those in its scope for the name as grep would, and parses cold the ones that hold it,
//! exactly as the cold engine parses its candidates; a symbol merge parses them into a new file.

use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::grep::{self, GrepOptions, OutputMode};
use crate::outline::Refusal;
use crate::outline::definitions::{Parsedness, may_have_parser, outline_all};
use crate::outline::outliner::Outliner;
use crate::outline::parse::Parsed;
use crate::outline::source::{Prepared, Source, prepare};
use crate::workspace::Workspace;

use super::live::Live;
use super::symbols::{Status, Symbols};
use super::table::indexable;

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

/// What the overlay's files are searched for (as grep would) and how they are parsed.
pub(super) struct Prefilter<'a> {
    pub(super) pattern: &'a str,
    pub(super) literal: bool,
    /// Parse them with their references.
    pub(super) references: bool,
}

/// The overlay's files that hold the pattern, and what parsing each gave.
pub(super) type Found<T> = (Vec<OsString>, Vec<Parsedness<T>>);

/// The overlay's files that hold `prefilter.pattern` as grep would find it, parsed cold with
/// `keep`; `None` for the cold engine (a pattern the byte regex cannot take).
pub(super) fn overlay_outcomes<T: Send>(
    workspace: &Workspace,
    outliner: &Outliner,
    overlay: &[String],
    prefilter: Prefilter<'_>,
    cancel: &CancelToken,
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
    for path in overlay {
        let os = OsStr::new(path.as_str());
        let Ok(mut opened) = workspace.open_file(os) else {
            continue;
        };
        let holds = match prepare(&mut opened) {
            Ok(Prepared::Ready(source)) => regex.is_match(&source.bytes),
            Ok(Prepared::Refused {
                refusal: Refusal::NoParser,
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
