//! One file's outline, a page at a time.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use super::outliner::{Failure, Outliner};
use super::source::{Prepared, prepare};
use super::{OutlineOptions, OutlineOutput, Symbol};
use crate::error::CoreError;
use crate::read::open_to_read;
use crate::workspace::Workspace;

/// The outline of one file: its definitions in source order (those up to
/// `options.max_depth`), the page `options.offset` .. `+ options.limit`, with the exact total;
/// or, with no definitions, why (`refused`).
///
/// Errors are those of opening the file as `read_file` does (missing, with close names; outside
/// the root; denied; a directory or a special file), an I/O error, or `Cancelled`.
pub fn outline(
    workspace: &Workspace,
    outliner: &Outliner,
    options: &OutlineOptions,
) -> Result<OutlineOutput, CoreError> {
    let mut opened = open_to_read(workspace, &options.path)?;
    if options.cancel.is_cancelled() {
        return Err(CoreError::Cancelled);
    }
    let mut out = OutlineOutput {
        path: OsString::from_vec(opened.real.clone()),
        size_bytes: opened.identity.size,
        offset: options.offset as u64,
        ..OutlineOutput::default()
    };
    let source = match prepare(&mut opened)? {
        Prepared::Ready(source) => source,
        Prepared::Refused {
            language,
            refusal,
            detail,
        } => {
            out.language = language;
            out.refused = Some(refusal);
            out.detail = detail;
            return Ok(out);
        }
    };
    out.language = Some(source.language);
    if options.cancel.is_cancelled() {
        return Err(CoreError::Cancelled);
    }
    let (result, cached) = outliner.outline(&source);
    out.cached = cached;
    let parsed = match result {
        Ok(parsed) => parsed,
        Err(Failure { refusal, detail }) => {
            out.refused = Some(refusal);
            out.detail = detail;
            return Ok(out);
        }
    };
    out.has_errors = parsed.has_errors;
    let kept: Vec<&super::parse::Entry> = parsed
        .entries
        .iter()
        .filter(|e| {
            options
                .max_depth
                .is_none_or(|max| u64::from(e.depth) <= max)
        })
        .collect();
    let page = Page::of(kept.len(), options.offset, options.limit);
    out.total = page.total;
    out.withheld = page.withheld;
    out.next_offset = page.next_offset;
    out.symbols = kept[page.start..page.end]
        .iter()
        .map(|e| Symbol {
            kind: e.kind,
            name: e.name.clone(),
            line: e.line,
            end_line: e.end_line,
            depth: u64::from(e.depth),
        })
        .collect();
    Ok(out)
}

/// Where a page of `total` entries starts and ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Page {
    pub start: usize,
    pub end: usize,
    pub total: u64,
    pub withheld: u64,
    pub next_offset: Option<u64>,
}

impl Page {
    /// The page `offset` .. `offset + limit` (`None`: to the end) of `total` entries.
    pub fn of(total: usize, offset: usize, limit: Option<usize>) -> Page {
        let start = offset.min(total);
        let end = limit.map_or(total, |l| start.saturating_add(l).min(total));
        Page {
            start,
            end,
            total: total as u64,
            withheld: (total - end) as u64,
            next_offset: (end < total).then_some(end as u64),
        }
    }
}
