//! Where a name is defined: the definitions whose name matches, across the tree.
//!
//! Only files that contain the name can define it, so grep finds the candidates first
//! (`files_with_matches`, through the caller's search: the warm index's when the workspace has
//! one, which reads only the files that can match), and only those are parsed (or taken from the
//! outline cache). The grep pattern admits every file a match can be in: for an exact or prefix
//! name, its longest run without whitespace as literal text (a name's whitespace is normalized);
//! for a regex, the regex with its anchors and word boundaries taken out (they only narrow where
//! a match may be, so without them it matches wherever a name could).
//!
//! Candidates are parsed on [`MAX_WORKERS`](super::MAX_WORKERS) threads at most, each asking the
//! worker pool; the results are put back in grep's path order, so the answer is the same run to
//! run. The call's time budget covers the search and the parses: when it runs out, the
//! definitions found so far come back marked incomplete.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use regex::Regex;
use regex_syntax::hir::{Hir, HirKind};

use super::file::Page;
use super::lang::Language;
use super::outliner::{Failure, Outliner};
use super::parse::Parsed;
use super::source::{Prepared, Source, prepare};
use super::{DEFAULT_DEFINITIONS_LIMIT, MAX_WORKERS, Refusal, SymbolKind};
use crate::budget::{CancelToken, Deadline};
use crate::error::{CoreError, PatternIssue};
use crate::grep::{GrepOptions, GrepOutput, OutputMode};
use crate::skip::SkipCounts;
use crate::workspace::Workspace;

/// Files without an outline listed by name in a result, at most (all are counted).
pub const MAX_UNPARSED_LISTED: usize = 20;
/// The largest compiled name regex, in bytes.
const NAME_REGEX_BYTES: usize = 1 << 20;

crate::choice! {
    /// How a definition's name is matched.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum NameMatch {
        /// The whole name, exactly (case-sensitive).
        #[default]
        Exact = "exact",
        /// Names starting with the text.
        Prefix = "prefix",
        /// Names a regex matches anywhere (anchor it with ^ and $).
        Regex = "regex",
    }
}

crate::record! {
    "Definition",
    /// One definition found.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Definition {
        /// The file, relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// 1-based line of its name.
        pub line: u64,
        /// 1-based last line of the definition.
        pub end_line: u64,
        /// What it is.
        pub kind: SymbolKind,
        /// Its name.
        pub name: String,
        /// The name of the definition that directly encloses it (a method's class), or null.
        pub container: Option<String>,
        /// The language the file was parsed as.
        pub language: Language,
    }
}

crate::record! {
    "UnparsedFile",
    /// A candidate file that has no outline.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct UnparsedFile {
        /// The file, relative to the root (raw bytes).
        pub path: OsString,
        /// Why (too_large, minified, binary, timeout, crashed, deadline, busy, unavailable).
        pub refused: Refusal,
        /// The facts behind it.
        pub detail: String,
    }
}

crate::record! {
    "DefinitionsResult",
    /// The definitions whose name matches, one page.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct DefinitionsOutput {
        /// The name (or prefix, or regex) as given.
        pub name: String,
        /// How names were matched.
        pub matching: NameMatch,
        /// The grep pattern that picked the candidate files.
        pub prefilter: String,
        /// This page of definitions, by path then line.
        pub definitions: Vec<Definition>,
        /// Definitions skipped before this page.
        pub offset: u64,
        /// Definitions found (exact unless incomplete).
        pub total: u64,
        /// Definitions after this page.
        pub withheld: u64,
        /// The offset of the next page, when definitions follow this one.
        pub next_offset: Option<u64>,
        /// Files searched by the prefilter.
        pub files_searched: u64,
        /// Files that contain the text and have a parser: the candidates.
        pub candidate_files: u64,
        /// Candidates outlined (parsed now or taken from the cache).
        pub files_parsed: u64,
        /// Candidates whose outline came from the cache.
        pub files_cached: u64,
        /// Candidates without an outline (the first 20; unparsed_total counts all).
        pub unparsed: Vec<UnparsedFile>,
        /// Candidates without an outline.
        pub unparsed_total: u64,
        /// The time budget ran out: the definitions cover only part of the tree.
        pub incomplete: bool,
        /// What the prefilter's search passed over, by reason.
        pub skipped: SkipCounts,
    }
}

/// What to look for.
#[derive(Clone, Debug)]
pub struct DefinitionsOptions {
    /// The name, prefix or regex.
    pub name: String,
    /// How it is matched.
    pub matching: NameMatch,
    /// File or directory to search (default: the root).
    pub path: Option<OsString>,
    /// grep's file filter (rg -g, several allowed).
    pub glob: Vec<String>,
    /// Only these kinds (empty: every kind).
    pub kinds: Vec<SymbolKind>,
    /// Definitions returned at most (`None`: all).
    pub limit: Option<usize>,
    /// Definitions skipped before the page.
    pub offset: usize,
    /// Stops the call (it then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for DefinitionsOptions {
    fn default() -> Self {
        DefinitionsOptions {
            name: String::new(),
            matching: NameMatch::Exact,
            path: None,
            glob: Vec::new(),
            kinds: Vec::new(),
            limit: Some(DEFAULT_DEFINITIONS_LIMIT),
            offset: 0,
            cancel: CancelToken::default(),
        }
    }
}

/// A name test.
pub(crate) enum Matcher {
    Exact(String),
    Prefix(String),
    Regex(Regex),
}

impl Matcher {
    pub(crate) fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::Exact(wanted) => name == wanted,
            Matcher::Prefix(prefix) => name.starts_with(prefix.as_str()),
            Matcher::Regex(regex) => regex.is_match(name),
        }
    }
}

/// The name test and the grep pattern (with its `literal` flag) of `options`.
pub(crate) fn plan(options: &DefinitionsOptions) -> Result<(Matcher, String, bool), CoreError> {
    let name = options.name.as_str();
    match options.matching {
        NameMatch::Exact | NameMatch::Prefix => {
            let piece = name
                .split_whitespace()
                .max_by_key(|piece| piece.len())
                .ok_or_else(|| CoreError::InvalidArgument {
                    message: "the name is empty (or only whitespace).".into(),
                })?
                .to_string();
            let normalized = name.split_whitespace().collect::<Vec<_>>().join(" ");
            let matcher = if options.matching == NameMatch::Exact {
                Matcher::Exact(normalized)
            } else {
                Matcher::Prefix(normalized)
            };
            Ok((matcher, piece, true))
        }
        NameMatch::Regex => {
            let invalid = |message: String| CoreError::InvalidPattern {
                pattern: name.to_string(),
                issue: PatternIssue::Regex,
                message,
            };
            let regex = regex::RegexBuilder::new(name)
                .size_limit(NAME_REGEX_BYTES)
                .build()
                .map_err(|e| invalid(e.to_string()))?;
            let hir = regex_syntax::parse(name).map_err(|e| invalid(e.to_string()))?;
            Ok((Matcher::Regex(regex), without_looks(hir).to_string(), false))
        }
    }
}

/// `hir` with every look-around assertion (anchors, word boundaries) made empty: it then
/// matches wherever `hir` matched, and more.
fn without_looks(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(_) | HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Class(class) => Hir::class(class),
        HirKind::Repetition(mut repetition) => {
            repetition.sub = Box::new(without_looks(*repetition.sub));
            Hir::repetition(repetition)
        }
        HirKind::Capture(mut capture) => {
            capture.sub = Box::new(without_looks(*capture.sub));
            Hir::capture(capture)
        }
        HirKind::Concat(parts) => Hir::concat(parts.into_iter().map(without_looks).collect()),
        HirKind::Alternation(parts) => {
            Hir::alternation(parts.into_iter().map(without_looks).collect())
        }
    }
}

/// One candidate's fate; `T` is what was kept of its parse.
pub(crate) enum Parsedness<T> {
    /// Outlined (from the cache or not).
    Outlined {
        kept: T,
        language: Language,
        cached: bool,
    },
    /// No outline, for a reason worth telling.
    Unparsed(Refusal, String),
    /// Not a file with a parser after all (an extensionless file without a `#!` line), or gone.
    Skipped,
    /// Not reached before the deadline.
    NotReached,
}

/// The definitions matching `options.name`. `search` is the workspace's grep (the warm
/// index's, when it has one): it picks the candidate files.
///
/// Errors: an empty name, an invalid regex, the errors of grep's `path` and `glob`, or
/// `Cancelled`.
pub fn definitions(
    workspace: &Workspace,
    outliner: &Outliner,
    options: &DefinitionsOptions,
    search: &(dyn Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync),
) -> Result<DefinitionsOutput, CoreError> {
    let deadline = workspace.deadline_with(&options.cancel);
    let (matcher, pattern, literal) = plan(options)?;
    let found = candidate_files(
        search,
        GrepOptions {
            pattern: pattern.clone(),
            path: options.path.clone(),
            glob: options.glob.clone(),
            literal,
            cancel: options.cancel.clone(),
            ..GrepOptions::default()
        },
    )?;
    let candidates: Vec<&OsString> = found.files.iter().map(|f| &f.path).collect();
    let keep = |_: &Source, parsed: Arc<Parsed>| parsed;
    let outcomes = outline_all(workspace, outliner, &candidates, &deadline, false, &keep);
    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }

    let out = DefinitionsOutput {
        prefilter: pattern,
        files_searched: found.files_searched,
        skipped: found.skipped,
        incomplete: found.incomplete,
        ..DefinitionsOutput::default()
    };
    let files = candidates.into_iter().cloned().zip(outcomes);
    Ok(assemble(options, &matcher, out, files))
}

/// The answer to `options` from what each candidate gave, in path order (`out` holds the
/// search's counts): the cold engine's and the symbol index's one assembly.
pub(crate) fn assemble(
    options: &DefinitionsOptions,
    matcher: &Matcher,
    mut out: DefinitionsOutput,
    files: impl IntoIterator<Item = (OsString, Parsedness<Arc<Parsed>>)>,
) -> DefinitionsOutput {
    out.name = options.name.clone();
    out.matching = options.matching;
    out.offset = options.offset as u64;
    let mut matching = Vec::new();
    for (path, outcome) in files {
        let path = &path;
        match outcome {
            Parsedness::Outlined {
                kept: parsed,
                language,
                cached,
            } => {
                out.candidate_files += 1;
                out.files_parsed += 1;
                out.files_cached += u64::from(cached);
                for entry in &parsed.entries {
                    if !matcher.matches(&entry.name)
                        || !(options.kinds.is_empty() || options.kinds.contains(&entry.kind))
                    {
                        continue;
                    }
                    let container = entry
                        .parent
                        .and_then(|p| parsed.entries.get(p as usize))
                        .map(|p| p.name.clone());
                    matching.push(Definition {
                        path: path.clone(),
                        line: entry.line,
                        end_line: entry.end_line,
                        kind: entry.kind,
                        name: entry.name.clone(),
                        container,
                        language,
                    });
                }
            }
            Parsedness::Unparsed(refused, detail) => {
                out.candidate_files += 1;
                out.unparsed_total += 1;
                if out.unparsed.len() < MAX_UNPARSED_LISTED {
                    out.unparsed.push(UnparsedFile {
                        path: path.clone(),
                        refused,
                        detail,
                    });
                }
            }
            Parsedness::Skipped => {}
            Parsedness::NotReached => {
                out.candidate_files += 1;
                out.incomplete = true;
            }
        }
    }
    let page = Page::of(matching.len(), options.offset, options.limit);
    out.total = page.total;
    out.withheld = page.withheld;
    out.next_offset = page.next_offset;
    out.definitions = matching.drain(page.start..page.end).collect();
    out
}

/// The candidates of a search by name (find_definitions, find_references, find_calls): the
/// files grep finds `query` in (its pattern, path, glob and cancel; listed by file), those
/// without a parser left out, with grep's counts.
pub(crate) fn candidate_files(
    search: &(dyn Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync),
    query: GrepOptions,
) -> Result<GrepOutput, CoreError> {
    let mut found = search(&GrepOptions {
        output_mode: OutputMode::FilesWithMatches,
        limit: None,
        ..query
    })?;
    found.files.retain(|f| may_have_parser(&f.path));
    Ok(found)
}

/// Whether a file of this name may have a parser: a known extension or name, or no extension
/// at all (a script whose `#!` line names its language).
pub(crate) fn may_have_parser(path: &OsStr) -> bool {
    let path = Path::new(path);
    Language::from_path(path).is_some()
        || path
            .file_name()
            .is_some_and(|name| !name.as_bytes().contains(&b'.'))
}

/// Outlines every candidate (with its references when `references` is set), on up to
/// [`MAX_WORKERS`] threads, stopping at `deadline`; `keep` takes what the caller needs of each
/// parse while the file's bytes are at hand. The outcomes in the candidates' order.
pub(crate) fn outline_all<T: Send>(
    workspace: &Workspace,
    outliner: &Outliner,
    candidates: &[&OsString],
    deadline: &Deadline,
    references: bool,
    keep: &(dyn Fn(&Source, Arc<Parsed>) -> T + Sync),
) -> Vec<Parsedness<T>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS)
        .min(candidates.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Parsedness<T>>>> =
        Mutex::new((0..candidates.len()).map(|_| None).collect());
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = candidates.get(index) else {
                break;
            };
            let outcome = if deadline.expired() {
                Parsedness::NotReached
            } else {
                outline_one(workspace, outliner, path, references, keep)
            };
            if let Some(slot) = outcomes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_mut(index)
            {
                *slot = Some(outcome);
            }
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                crate::threads::spawn_or_run(scope, work);
            }
        });
    }
    outcomes
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|o| o.unwrap_or(Parsedness::NotReached))
        .collect()
}

/// One candidate, opened again through the boundary (grep named it by its real path) and
/// outlined.
pub(crate) fn outline_one<T>(
    workspace: &Workspace,
    outliner: &Outliner,
    path: &OsStr,
    references: bool,
    keep: &(dyn Fn(&Source, Arc<Parsed>) -> T + Sync),
) -> Parsedness<T> {
    let Ok(mut opened) = workspace.open_file(path) else {
        // Gone, or changed into something else, since grep read it.
        return Parsedness::Skipped;
    };
    let source = match prepare(&mut opened) {
        Ok(Prepared::Ready(source)) => source,
        Ok(Prepared::Refused {
            refusal: Refusal::NoParser,
            ..
        })
        | Err(_) => return Parsedness::Skipped,
        Ok(Prepared::Refused {
            refusal, detail, ..
        }) => return Parsedness::Unparsed(refusal, detail),
    };
    let outlined = if references {
        outliner.references(&source)
    } else {
        outliner.outline(&source)
    };
    match outlined {
        (Ok(parsed), cached) => Parsedness::Outlined {
            kept: keep(&source, parsed),
            language: source.language,
            cached,
        },
        (Err(Failure { refusal, detail }), _) => Parsedness::Unparsed(refusal, detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefilter(name: &str, matching: NameMatch) -> String {
        let options = DefinitionsOptions {
            name: name.into(),
            matching,
            ..DefinitionsOptions::default()
        };
        plan(&options)
            .map(|(_, pattern, _)| pattern)
            .unwrap_or_default()
    }

    #[test]
    fn a_regex_prefilter_drops_anchors_and_boundaries() {
        let pattern = prefilter(r"^get_\w+_user$", NameMatch::Regex);
        assert!(
            !pattern.contains('^') && !pattern.contains('$'),
            "{pattern}"
        );
        let grep = Regex::new(&pattern).expect("compiles");
        assert!(grep.is_match("    def get_the_user(self):"));
        let pattern = prefilter(r"\bparse(_args)?\b", NameMatch::Regex);
        assert!(
            Regex::new(&pattern)
                .expect("compiles")
                .is_match("fn parse_args()")
        );
    }

    #[test]
    fn a_name_prefilter_is_its_longest_piece() {
        assert_eq!(
            prefilter("Getting  Started guide", NameMatch::Exact),
            "Started"
        );
        assert_eq!(prefilter("parse_args", NameMatch::Prefix), "parse_args");
    }
}
