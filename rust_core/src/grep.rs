//! Bounded regex search over the workspace's file set.
//!
//! The search runs inside the one parallel walk of [`crate::walker`] (as ripgrep's
//! `search_parallel`): every walker thread owns its `Searcher`s and its results. The threads
//! share the workspace's cached matcher rather than a clone each: a clone starts with empty
//! lazy-DFA caches, while the shared one keeps them from call to call (a Unicode `\w` pattern
//! repeated on a small repository costs a sixth less). At the end the per-thread results are
//! sorted by path, so the output is identical run to run.
//!
//! One driver, [`search`], whichever lists the files: it asks its candidate source (the warm
//! index, [`crate::candidates`]) once, and searches the files the source lists, in path order,
//! with the same per-file search (`listed` module), or walks when the source cannot answer.
//! Pages, totals and skip counts are assembled the same way from either.
//!
//! Exactness and memory: every file is searched to its end, so `total_matches` (matching lines)
//! and `total_files` are exact. Only what may reach the page is stored. Let `K = offset + limit`
//! entries (matching lines in content mode, files in the file modes). Each thread keeps the files
//! with matches in path order and drops the last of them while the ones before already hold `K`
//! entries: the global order is by path, so a dropped file's entries all come after the page, and
//! a file that reaches the page has every file before it kept (by some thread). When `K` is at
//! most [`TEXT_IN_PASS_MAX_ENTRIES`], a kept file also stores the text of its first `K` matches;
//! further pages keep only each file's path and count, and once the totals place the page the
//! few files it covers are searched again for its lines (`page` module). A file that cannot
//! reach the page is searched without line numbers, context or text: the fastest mode of the
//! searcher. Text memory is thus bounded by threads × `min(K, TEXT_IN_PASS_MAX_ENTRIES)` lines
//! whatever the offset, plus a path and a count per file with matches; a line is held whole
//! only up to [`MAX_LINE_BYTES`].
//!
//! Time: the walk asks the deadline per entry, the reader per buffer the searcher refills, the
//! sink every 1,024 matches, so a call ends soon after its budget even inside one large file,
//! with the matches found so far, marked incomplete. A cancelled [`GrepOptions::cancel`] ends it
//! the same way and makes it fail with `CoreError::Cancelled`.
//!
//! Options as ripgrep's long options: `invert_match` (`-v`: the lines that do not match are the
//! matches), `max_count` (`-m`: matches per file; the after-context of the last one is still
//! shown, and matches inside it appear as matches that are not counted, as rg prints them;
//! `max_count = 0` searches nothing, as `rg -m 0`), `types` / `types_not` (`-t` / `-T`,
//! after the `glob` filter as rg's overrides come first), `max_depth` (`--max-depth`),
//! `respect_ignore_files` (false is `--no-ignore`: ignore files do not apply; the skip set and
//! deny rules still do), and `OutputMode::FilesWithoutMatch` (`--files-without-match`: the files searched
//! without a match are the entries).
//!
//! Skipped and counted: binary files (a NUL byte anywhere, detected while reading; a UTF-16 file
//! with a BOM is transcoded first and is text), files over [`MAX_FILE_BYTES`] (`too_large`),
//! files with a line over [`MAX_LINE_BYTES`] (`line_too_long`), files that fail to open or read
//! (`unreadable`); plus everything the walk skips.

mod input;
mod listed;
mod matcher;
mod output;
mod page;
mod sink;
mod worker;

pub use crate::candidates::{MAX_CONTEXT, MAX_FILE_BYTES, MAX_LINE_BYTES};
pub use crate::pattern::file_type_definitions;
pub use output::{FileCount, GrepLine, GrepOutput, OutputMode};
use worker::{GrepWorker, Searched, Source};

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use grep_regex::RegexMatcher;

use crate::budget::{CancelToken, Deadline};
use crate::candidates::{CandidateSource, GrepAsk};
use crate::error::CoreError;
use crate::open::{Target, open_target};
use crate::pattern::FileSelect;
use crate::skip::{IgnoreRule, MAX_HIDING_RULES};
use crate::walker::{GREP_CROSSOVER, WalkOptions, walk_files};
use crate::workspace::{RegexKey, SkipCounts, Workspace};

use input::open_again;
use listed::search_listed;
use matcher::build_matcher;
use page::{PageRange, content_page, content_windows, files_page};

/// Default number of matches returned.
pub const DEFAULT_GREP_LIMIT: usize = 50;
/// Each shown line is cut to this many characters (a window around the match when it lies further).
pub const DEFAULT_MAX_LINE_CHARS: usize = 120;
/// Content-mode pages ending within this many matches (`offset + limit`) keep their lines'
/// text during the search; pages further on keep counts only and search their few files again
/// for the text, so memory follows the page, not the offset.
pub const TEXT_IN_PASS_MAX_ENTRIES: u64 = 1000;

/// What to search for.
#[derive(Clone, Debug)]
pub struct GrepOptions {
    /// Rust regex syntax, or a literal string when `literal` is set.
    pub pattern: String,
    /// File or directory to search, relative to the root (default: the root).
    pub path: Option<OsString>,
    /// File filter like `rg -g`, one glob or several (the last that matches decides; a leading
    /// `!` excludes, also the directories it matches below `path`; see `FileFilter`). Empty:
    /// every file. It only narrows: ignored and denied files stay out. A file given as `path`
    /// is searched whatever this and the types say, as rg searches a path it is given.
    pub glob: Vec<String>,
    /// Only files of these types (ripgrep's built-in types, `rg -t`; `all`: any type). A file
    /// the `glob` filter names is searched whatever its type, as in rg.
    pub types: Vec<String>,
    /// Not files of these types (`rg -T`; applied after `types`).
    pub types_not: Vec<String>,
    /// Matching lines (matches, in multiline mode) searched for per file at most (`rg -m`);
    /// 0 searches nothing, as `rg -m 0` does.
    pub max_count: Option<u64>,
    /// The lines that do not match are the matches (`rg -v`).
    pub invert_match: bool,
    /// Levels below `path` searched at most (`rg --max-depth`; 1: its own files).
    pub max_depth: Option<usize>,
    /// Whether ignore files apply, as far as the workspace's own `respect_ignore_files` lets
    /// them (false: what they hide is searched too, `rg --no-ignore`); the skip set and deny
    /// rules always apply.
    pub respect_ignore_files: bool,
    /// Treat the pattern as a literal string.
    pub literal: bool,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Lines of context before each match (content mode; rg -B).
    pub before_context: usize,
    /// Lines of context after each match (content mode; rg -A).
    pub after_context: usize,
    /// Let the pattern span lines (`.` does not match `\n` unless `(?s)`).
    pub multiline: bool,
    /// Output mode.
    pub output_mode: OutputMode,
    /// Entries returned (matches, files or counts per mode); `None` returns all (default 50).
    pub limit: Option<usize>,
    /// Entries skipped before the first returned.
    pub offset: usize,
    /// Shown line length cap in characters (default 120).
    pub max_line_chars: usize,
    /// Stops the search when cancelled (the call then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl GrepOptions {
    /// Sets the context before and after each match to `lines` (rg -C).
    pub fn set_context(&mut self, lines: usize) {
        self.before_context = lines;
        self.after_context = lines;
    }
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions {
            pattern: String::new(),
            path: None,
            glob: Vec::new(),
            types: Vec::new(),
            types_not: Vec::new(),
            max_count: None,
            invert_match: false,
            max_depth: None,
            respect_ignore_files: true,
            literal: false,
            case_insensitive: false,
            before_context: 0,
            after_context: 0,
            multiline: false,
            output_mode: OutputMode::Content,
            limit: Some(DEFAULT_GREP_LIMIT),
            offset: 0,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            cancel: CancelToken::default(),
        }
    }
}

// ==== Setup shared by all threads ====

/// Everything the threads share read-only.
struct Plan<'a> {
    options: &'a GrepOptions,
    select: &'a FileSelect,
    deadline: &'a Deadline,
    /// Entries that can reach the page (`offset + limit`), `None` for all: matching lines in
    /// content mode, files in the file modes.
    keep: Option<u64>,
    /// Content mode.
    content: bool,
    /// The files searched without a match are the entries (`files_without_match`).
    without_match: bool,
    /// Content mode with a page close to the start: the text of matching lines is stored during
    /// the search. Otherwise only counts are kept and the page's lines are fetched afterwards.
    text_in_pass: bool,
}

/// A page entry's lines are fetched after the search is this much time at least, even when the
/// budget is spent (the page's files are a few; an empty page for a found match is no answer).
const FETCH_GRACE: Duration = Duration::from_millis(250);

/// Searches the workspace: `options.path` (a directory, walked with the ignore, skip and deny
/// rules, or a single file) for `options.pattern`.
///
/// Errors: `NotFound` / `OutsideRoot` / `Denied` / `SpecialFile` for a bad `path`,
/// `InvalidPattern` for a regex or glob that does not compile, `Cancelled` when
/// `options.cancel` was cancelled.
pub fn grep(workspace: &Workspace, options: &GrepOptions) -> Result<GrepOutput, CoreError> {
    search(workspace, options, None)
}

/// The one grep driver: [`grep`], its files listed by `source` (the warm index) when it can
/// list them, else by the walk. Whichever lists them, the opens, the checks, the per-file
/// search, the budget and the page are the same, and so is the answer.
pub fn search(
    workspace: &Workspace,
    options: &GrepOptions,
    source: Option<&dyn CandidateSource>,
) -> Result<GrepOutput, CoreError> {
    let started = Instant::now();
    let deadline = workspace.deadline_with(&options.cancel);
    let (target, _) = open_target(workspace, options.path.as_deref().unwrap_or_default())?;
    let mut prepared = prepare(workspace, options)?;
    if let Target::Dir(start) = &target {
        prepared.select.start = start.relative.len();
    }
    let plan = Plan::new(options, &prepared.select, &deadline);
    let walk = WalkOptions::new(workspace, options.respect_ignore_files, options.max_depth);
    let matcher = &prepared.matcher;
    let listed = source.and_then(|source| {
        source.grep_candidates(&GrepAsk {
            dir: match &target {
                Target::Dir(start) if options.max_count != Some(0) => Some(&start.relative),
                _ => None,
            },
            select: &prepared.select,
            max_depth: options.max_depth,
            respect_ignore_files: walk.respect_ignore_files,
            pattern: &options.pattern,
            literal: options.literal,
            case_insensitive: options.case_insensitive,
            multiline: options.multiline,
            invert_match: options.invert_match,
            files_without_match: plan.without_match,
            whole_files: plan.content
                || options.before_context > 0
                || options.after_context > 0
                || options.max_count.is_some(),
        })
    });
    if options.max_count == Some(0) {
        // rg -m 0 searches nothing (rg 14 exits at once, status 1); the pattern and the path
        // were checked above, so a bad one is still an error here.
        return finish(
            workspace,
            &plan,
            matcher,
            Vec::new(),
            Walked::default(),
            started,
        );
    }

    let (workers, walked) = match (target, listed) {
        (Target::Dir(start), Some(listed)) => {
            let path_ignored_by = path_ignored_by(workspace, walk, &start.relative, true);
            let (mut workers, more_skipped, incomplete) =
                search_listed(workspace, &plan, matcher, &deadline, &listed);
            if let Some(worker) = workers.first_mut() {
                for path in &listed.unread_paths {
                    worker.searched_without_match(path.as_bytes());
                }
            }
            let mut skipped = listed.skipped;
            skipped.add(&more_skipped);
            let walked = Walked {
                skipped,
                hidden_by: listed.hidden_by,
                path_ignored_by,
                unread_searched: listed.unread,
                incomplete,
            };
            (workers, walked)
        }
        (Target::Dir(start), None) => {
            let path_ignored_by = path_ignored_by(workspace, walk, &start.relative, true);
            let outcome = walk_files(
                workspace,
                start,
                walk,
                deadline.clone(),
                GREP_CROSSOVER,
                || GrepWorker::new(&plan, matcher),
            );
            let walked = Walked {
                skipped: outcome.skipped,
                hidden_by: outcome.hidden_by.top(MAX_HIDING_RULES),
                path_ignored_by,
                unread_searched: 0,
                incomplete: outcome.incomplete,
            };
            (outcome.visitors, walked)
        }
        (Target::File(opened), _) => {
            // A file the caller names is searched whatever the glob and types say, as rg
            // searches a path it is given.
            let mut worker = GrepWorker::new(&plan, matcher);
            let mut skipped = SkipCounts::default();
            let real = &opened.real;
            let path_ignored_by = path_ignored_by(workspace, walk, real, false);
            worker.search(opened.file, opened.identity.size, real, &mut skipped);
            let walked = Walked {
                skipped,
                path_ignored_by,
                ..Walked::default()
            };
            (vec![worker], walked)
        }
    };

    finish(workspace, &plan, matcher, workers, walked, started)
}

/// The rule hiding the searched path `real` from a walk of the root, when ignore files apply
/// to this search (see `GrepOutput::path_ignored_by`).
fn path_ignored_by(
    workspace: &Workspace,
    walk: WalkOptions,
    real: &[u8],
    is_dir: bool,
) -> Option<IgnoreRule> {
    match walk.respect_ignore_files && !real.is_empty() {
        true => workspace.hiding(real, is_dir).map(|rule| rule.stated(1)),
        false => None,
    }
}

/// What a search compiles once: the regex (through the workspace's cache) and which files it
/// looks at (`glob`, `types`, `types_not`).
pub(crate) struct Prepared {
    pub(crate) matcher: Arc<RegexMatcher>,
    pub(crate) select: FileSelect,
}

/// Compiles the pattern and the file selection of a search.
pub(crate) fn prepare(workspace: &Workspace, options: &GrepOptions) -> Result<Prepared, CoreError> {
    for (name, lines) in [
        ("before_context", options.before_context),
        ("after_context", options.after_context),
    ] {
        if lines > MAX_CONTEXT {
            return Err(CoreError::InvalidArgument {
                message: format!("{name} is {lines} lines; at most {MAX_CONTEXT} are shown."),
            });
        }
    }
    let key = RegexKey {
        pattern: options.pattern.clone(),
        literal: options.literal,
        case_insensitive: options.case_insensitive,
        multiline: options.multiline,
    };
    let matcher = workspace.cached_regex(key, || build_matcher(options))?;
    let types = (options.types.as_slice(), options.types_not.as_slice());
    let select = FileSelect::new(&options.glob, types, |body, glob| {
        workspace.cached_glob(body, glob)
    })?;
    Ok(Prepared { matcher, select })
}

impl<'a> Plan<'a> {
    /// What the workers of one search share; they stop when `deadline` passes.
    fn new(options: &'a GrepOptions, select: &'a FileSelect, deadline: &'a Deadline) -> Plan<'a> {
        let content = options.output_mode == OutputMode::Content;
        let keep = options
            .limit
            .map(|l| (l as u64).saturating_add(options.offset as u64));
        Plan {
            options,
            select,
            deadline,
            keep,
            content,
            without_match: options.output_mode == OutputMode::FilesWithoutMatch,
            text_in_pass: content && keep.is_none_or(|k| k <= TEXT_IN_PASS_MAX_ENTRIES),
        }
    }
}

/// What a search's walk (or the candidate source standing in for it) adds to its result beside the
/// workers' findings.
#[derive(Default)]
struct Walked {
    /// What the walk passed over, by reason.
    skipped: SkipCounts,
    /// The rules that hid the most entries.
    hidden_by: Vec<IgnoreRule>,
    /// The rule hiding the searched path itself.
    path_ignored_by: Option<IgnoreRule>,
    /// Files known to be searched without a match that no worker read (for callers that can
    /// prove them match-free; never in `files_without_match` mode, whose entries they are).
    unread_searched: u64,
    /// The time budget ran out during the walk.
    incomplete: bool,
}

/// Merges the workers of one search into its result, fetching the page's lines when the search
/// kept counts only.
fn finish(
    workspace: &Workspace,
    plan: &Plan<'_>,
    matcher: &RegexMatcher,
    workers: Vec<GrepWorker<'_>>,
    walked: Walked,
    started: Instant,
) -> Result<GrepOutput, CoreError> {
    let options = plan.options;
    let deadline = plan.deadline;
    let content = plan.content;
    let mut incomplete = walked.incomplete;

    let (mut files_searched, mut total_matches, mut total_files) = (walked.unread_searched, 0, 0);
    let (mut withheld_key_blocks, mut withheld_key_lines, mut withheld_key_files) = (0, 0, 0);
    let mut hits = Vec::new();
    for worker in workers {
        files_searched += worker.files_searched;
        withheld_key_blocks += worker.key_blocks;
        withheld_key_lines += worker.key_lines;
        withheld_key_files += worker.key_files;
        total_matches += worker.total_matches;
        total_files += worker.total_files;
        incomplete |= worker.stopped;
        hits.extend(worker.kept.into_values());
    }
    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }
    hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let range = PageRange::new(options.offset, options.limit);

    let (lines, files, shown) = if content {
        if !plan.text_in_pass {
            // Only counts were kept: search the page's files again for their lines.
            let fetch_deadline = deadline.extended(FETCH_GRACE);
            let mut worker = GrepWorker::new(plan, matcher);
            let mut fetch_skipped = SkipCounts::default();
            for (index, window) in content_windows(&hits, range) {
                let hit = &mut hits[index];
                let Some((file, size)) = open_again(workspace, hit.path.as_bytes()) else {
                    continue;
                };
                if let Searched::Done { lines, .. } = worker.search_file(
                    Source::File(file, size),
                    Some(window),
                    &fetch_deadline,
                    &mut fetch_skipped,
                ) {
                    hit.lines = lines;
                    hit.first_index = window.from;
                }
            }
            incomplete |= worker.stopped;
            if deadline.cancelled() {
                return Err(CoreError::Cancelled);
            }
        }
        let context = (options.before_context as u64, options.after_context as u64);
        let (lines, shown) = content_page(&hits, range, context);
        (lines, Vec::new(), shown)
    } else {
        let files = files_page(hits, range);
        let shown = files.len() as u64;
        (Vec::new(), files, shown)
    };
    let entries = if content {
        total_matches
    } else if plan.without_match {
        files_searched - total_files
    } else {
        total_files
    };
    let shown_end = range.first.saturating_add(shown);
    let withheld = entries.saturating_sub(shown_end);
    Ok(GrepOutput {
        pattern: options.pattern.clone(),
        output_mode: options.output_mode,
        lines,
        files,
        total_matches,
        total_files,
        offset: range.first,
        withheld,
        next_offset: (withheld > 0 && shown > 0).then_some(shown_end),
        files_searched,
        skipped: walked.skipped,
        hidden_by: walked.hidden_by,
        path_ignored_by: walked.path_ignored_by,
        withheld_key_blocks,
        withheld_key_lines,
        withheld_key_files,
        incomplete,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}
