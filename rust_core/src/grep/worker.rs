//! One thread's search: the files it is handed, searched one at a time with the searcher the
//! file needs, and the matches it keeps for the page (see the module docs of `grep`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::FileExt;

use grep_matcher::LineTerminator;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};

use crate::budget::Deadline;
use crate::keyblock;
use crate::walker::{FileVisitor, WalkedFile};
use crate::workspace::SkipCounts;

use super::input::{Input, WHOLE_FILE_BYTES, read_head};
use super::page::FileHit;
use super::sink::{FileSink, StoredLine, Window};
use super::{MAX_LINE_BYTES, Plan};
use crate::candidates::{BOMS, ReadParts};

/// How one file's search ended.
pub(super) enum Searched {
    /// Searched (to its end, or to the deadline when `sink.stopped`).
    Done {
        count: u64,
        kept: u64,
        lines: Vec<StoredLine>,
        /// Private-key blocks met, and their lines (withheld: neither counted nor stored).
        key_blocks: u64,
        key_lines: u64,
    },
    /// Passed over, counted in the skip counts.
    Skipped,
}

/// One thread's searcher state and results.
pub(crate) struct GrepWorker<'a> {
    plan: &'a Plan<'a>,
    matcher: &'a RegexMatcher,
    searchers: Searchers,
    /// Whole-file buffer of multiline searches.
    buffer: Vec<u8>,
    /// The start of the file being searched (see [`read_head`]).
    head: Box<[u8]>,
    /// Files kept for the page, by path.
    pub(super) kept: BTreeMap<OsString, FileHit>,
    /// Page entries the kept files hold.
    kept_entries: u64,
    pub(super) total_matches: u64,
    pub(super) total_files: u64,
    pub(super) files_searched: u64,
    /// Key blocks (their lines, the files holding them) withheld from the files searched.
    pub(super) key_blocks: u64,
    pub(super) key_lines: u64,
    pub(super) key_files: u64,
    /// The deadline passed (or the call was cancelled) while this thread searched a file.
    pub(super) stopped: bool,
}

impl<'a> GrepWorker<'a> {
    pub(crate) fn new(plan: &'a Plan<'a>, matcher: &'a RegexMatcher) -> GrepWorker<'a> {
        let options = plan.options;
        let mut builder = SearcherBuilder::new();
        builder
            .line_terminator(LineTerminator::crlf())
            .multi_line(options.multiline)
            .invert_match(options.invert_match)
            .binary_detection(BinaryDetection::quit(0))
            .bom_sniffing(true)
            .heap_limit(Some(MAX_LINE_BYTES))
            .line_number(false);
        // The searcher stops after `max_count` matches itself where its count is the sink's
        // (one line per match); in multiline mode, where it counts the regex's matches, and
        // for files holding keys, the sink counts and stops (see `FileSink::max_count`).
        if !options.multiline {
            builder.max_matches(options.max_count);
        }
        let counting = builder.build();
        builder
            .line_number(true)
            .before_context(options.before_context)
            .after_context(options.after_context);
        let showing = builder.build();
        builder
            .before_context(0)
            .after_context(0)
            .passthru(true)
            .max_matches(None);
        let keyed = builder.build();
        GrepWorker {
            plan,
            matcher,
            searchers: Searchers {
                counting,
                showing,
                keyed,
            },
            buffer: Vec::new(),
            head: vec![0; WHOLE_FILE_BYTES + 1].into_boxed_slice(),
            kept: BTreeMap::new(),
            kept_entries: 0,
            total_matches: 0,
            total_files: 0,
            files_searched: 0,
            key_blocks: 0,
            key_lines: 0,
            key_files: 0,
            stopped: false,
        }
    }

    /// The deadline passed (or the call was cancelled) while this worker searched a file.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether `relative`'s entries may reach the page (see the module docs).
    fn may_reach_page(&self, relative: &[u8]) -> bool {
        match self.plan.keep {
            None => true,
            Some(0) => false,
            Some(keep) => {
                self.kept_entries < keep
                    || self
                        .kept
                        .last_key_value()
                        .is_some_and(|(last, _)| relative < last.as_bytes())
            }
        }
    }

    /// Keeps `hit` for the page, then drops the last files in path order while the files before
    /// them hold `keep` entries.
    fn keep_hit(&mut self, hit: FileHit) {
        self.kept_entries += hit.entries;
        self.kept.insert(hit.path.clone(), hit);
        let Some(keep) = self.plan.keep else {
            return;
        };
        while let Some((_, last)) = self.kept.last_key_value() {
            if self.kept_entries - last.entries < keep {
                break;
            }
            self.kept_entries -= last.entries;
            self.kept.pop_last();
        }
    }

    /// Searches one opened file the walk found to be a regular file (or the file the caller
    /// named, checked by [`grep`]) and adds it to this thread's totals and page. `size`: its
    /// size when it was opened (the `fstat` that checked it).
    pub(crate) fn search(
        &mut self,
        file: File,
        size: u64,
        relative: &[u8],
        skipped: &mut SkipCounts,
    ) {
        self.search_source(Source::File(file, size), relative, skipped);
    }

    /// [`GrepWorker::search`] of a listed file whose bytes its candidate source holds (see
    /// [`crate::candidates::HeldContents`]): searched as a file holding them is.
    pub(crate) fn search_held(&mut self, bytes: &[u8], relative: &[u8], skipped: &mut SkipCounts) {
        self.search_source(Source::Held(bytes), relative, skipped);
    }

    /// [`GrepWorker::search`] of a listed file of which only `parts` can hold a matching line
    /// (see [`crate::candidates::ReadParts`]): only they are read and searched, unless the
    /// file's size (`size`, when it was opened) is no longer theirs.
    pub(crate) fn search_parts(
        &mut self,
        file: File,
        size: u64,
        parts: &ReadParts,
        relative: &[u8],
        skipped: &mut SkipCounts,
    ) {
        self.search_source(Source::Parts(file, size, parts), relative, skipped);
    }

    fn search_source(&mut self, source: Source<'_>, relative: &[u8], skipped: &mut SkipCounts) {
        let may_reach_page = self.may_reach_page(relative);
        let window = (self.plan.text_in_pass && may_reach_page).then(|| Window {
            from: 0,
            to: self.plan.keep.unwrap_or(u64::MAX),
            stop_after: false,
        });
        let Searched::Done {
            count,
            kept,
            lines,
            key_blocks,
            key_lines,
        } = self.search_file(source, window, self.plan.deadline, skipped)
        else {
            return;
        };
        // Counted in every file searched, with or without matches: the counts are the file's
        // (its BEGIN and END lines), the same for every pattern, so they tell nothing of the
        // key's bytes, and a search for text inside a key learns that it was not searched.
        if key_blocks > 0 {
            self.key_files += 1;
            self.key_blocks += key_blocks;
            self.key_lines += key_lines;
        }
        if count == 0 {
            self.searched_without_match(relative);
            return;
        }
        self.files_searched += 1;
        self.plan.deadline.count_searched();
        self.total_matches += count;
        self.total_files += 1;
        if self.plan.without_match {
            return;
        }
        if may_reach_page {
            let entries = match (self.plan.content, self.plan.text_in_pass) {
                (false, _) => 1,
                (true, true) => kept,
                (true, false) => count,
            };
            self.keep_hit(FileHit {
                path: OsString::from_vec(relative.to_vec()),
                count,
                entries,
                first_index: 0,
                lines,
            });
        }
    }

    /// Counts `relative` as searched without a match: in `files_without_match` mode, one of
    /// the entries (also for a file the warm index proves match-free without reading it).
    pub(crate) fn searched_without_match(&mut self, relative: &[u8]) {
        self.files_searched += 1;
        self.plan.deadline.count_searched();
        if self.plan.without_match && self.may_reach_page(relative) {
            self.keep_hit(FileHit {
                path: OsString::from_vec(relative.to_vec()),
                count: 0,
                entries: 1,
                first_index: 0,
                lines: Vec::new(),
            });
        }
    }

    /// Searches `file`, storing the text of the matching lines in `window` (none: count only).
    /// Sets `self.stopped` when `deadline` passes mid-file. A file that may hold a private-key
    /// block (its bytes hold `PRIVATE KEY`, or it is UTF-16 and transcoded) is searched with
    /// every line passed to the sink, which withholds the blocks' lines (`crate::keyblock`).
    pub(super) fn search_file(
        &mut self,
        source: Source<'_>,
        window: Option<Window>,
        deadline: &Deadline,
        skipped: &mut SkipCounts,
    ) -> Searched {
        let (mut file, size) = match source {
            Source::File(file, size) => (file, size),
            Source::Held(bytes) => return self.search_bytes(bytes, window, deadline, skipped),
            Source::Parts(file, size, parts) => match window {
                None if size == parts.size => match self.search_parts_of(&file, parts, deadline) {
                    Some(searched) => return searched,
                    None => (file, size),
                },
                _ => (file, size),
            },
        };
        let options = self.plan.options;
        if options.multiline {
            // The whole file is read into memory: look at its size first.
            match file.metadata() {
                Ok(meta) if !meta.is_file() => {
                    skipped.special += 1;
                    return Searched::Skipped;
                }
                Ok(meta) if meta.len() > MAX_LINE_BYTES as u64 => {
                    skipped.too_large += 1;
                    return Searched::Skipped;
                }
                Ok(meta) => {
                    self.buffer.clear();
                    self.buffer
                        .reserve(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
                }
                Err(_) => {
                    skipped.unreadable += 1;
                    return Searched::Skipped;
                }
            }
        }
        let (plan, matcher) = (self.plan, self.matcher);
        let new_sink = |keyed: bool| new_sink(plan, matcher, keyed, window, deadline);
        let (result, sink) = if options.multiline {
            // The whole file is in memory anyway; checking all of it for NUL makes binary
            // detection as complete as in the streaming mode (the searcher checks 64 KiB).
            let mut input = Input::new(&file, deadline, 0);
            let read = (&mut input)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_to_end(&mut self.buffer);
            if input.stopped {
                self.stopped = true;
                return Searched::Skipped;
            }
            if read.is_err() {
                skipped.unreadable += 1;
                return Searched::Skipped;
            }
            if self.buffer.len() > MAX_LINE_BYTES {
                // It grew since its size was looked at.
                skipped.too_large += 1;
                return Searched::Skipped;
            }
            let has_bom = BOMS.iter().any(|b| self.buffer.starts_with(b));
            if !has_bom && memchr::memchr(0, &self.buffer).is_some() {
                skipped.binary += 1;
                return Searched::Skipped;
            }
            let keyed = may_hold_keys(&self.buffer);
            let mut sink = new_sink(keyed);
            let searcher = self.searchers.pick(keyed, window);
            (
                searcher.search_slice(self.matcher, &self.buffer, &mut sink),
                sink,
            )
        } else {
            // Most source files fit in one read: search them as a slice, which saves the
            // searcher's small BOM-sniffing read per file. The slice path checks the first
            // 64 KiB for NUL bytes, exactly the whole of such a file.
            let (mut filled, mut whole) = match read_head(&mut file, &mut self.head, size) {
                Ok(read) => read,
                Err(_) => {
                    skipped.unreadable += 1;
                    return Searched::Skipped;
                }
            };
            let mut keyed = may_hold_keys(&self.head[..filled]);
            loop {
                let mut sink = new_sink(keyed);
                let searcher = self.searchers.pick(keyed, window);
                let mut input = Input::new(&file, deadline, filled as u64);
                input.watch_keys = !keyed;
                let head = &self.head[..filled];
                let result = if whole {
                    searcher.search_slice(self.matcher, head, &mut sink)
                } else {
                    searcher.search_reader(self.matcher, head.chain(&mut input), &mut sink)
                };
                if input.saw_key {
                    // A key marker past the head: search again, withholding the blocks (the
                    // first search's counts may include their lines).
                    keyed = true;
                    let again = file
                        .seek(SeekFrom::Start(0))
                        .and_then(|_| read_head(&mut file, &mut self.head, size));
                    match again {
                        Ok(read) => (filled, whole) = read,
                        Err(_) => {
                            skipped.unreadable += 1;
                            return Searched::Skipped;
                        }
                    }
                    continue;
                }
                // A binary file is too large first, as if the size had been looked at up front;
                // one read whole in the head is far below the limit (no `fstat` to ask again).
                if input.too_large || (sink.binary && !whole && input.proves_too_large()) {
                    skipped.too_large += 1;
                    return Searched::Skipped;
                }
                if input.stopped {
                    sink.stopped = true;
                } else if input.failed {
                    skipped.unreadable += 1;
                    return Searched::Skipped;
                } else if result.is_err() && !input.ended_search() {
                    // Not the reader's error: the searcher's heap limit, a line over
                    // MAX_LINE_BYTES.
                    skipped.line_too_long += 1;
                    return Searched::Skipped;
                }
                break (result, sink);
            }
        };
        self.searched(result.is_err(), sink, skipped)
    }

    /// How a search that ended (`failed`: with an error) counts.
    fn searched(
        &mut self,
        failed: bool,
        mut sink: FileSink<'_>,
        skipped: &mut SkipCounts,
    ) -> Searched {
        if sink.stopped {
            // The deadline passed: what was found so far counts, the file is not searched.
            self.stopped = true;
        } else if failed {
            skipped.unreadable += 1;
            return Searched::Skipped;
        }
        if sink.binary {
            skipped.binary += 1;
            return Searched::Skipped;
        }
        let keys = sink.keys.take().unwrap_or_default();
        Searched::Done {
            count: sink.count,
            kept: sink.kept,
            lines: sink.lines,
            key_blocks: keys.blocks,
            key_lines: keys.lines,
        }
    }

    /// [`GrepWorker::search_file`] of a file's whole bytes held by the candidate source. They
    /// hold no key marker, byte-order mark or NUL byte ([`crate::candidates::HeldContents`]),
    /// and are far under any line or file limit: no scan for any of them, the searcher's
    /// binary detection off.
    fn search_bytes(
        &mut self,
        bytes: &[u8],
        window: Option<Window>,
        deadline: &Deadline,
        skipped: &mut SkipCounts,
    ) -> Searched {
        debug_assert!(!may_hold_keys(bytes) && memchr::memchr(0, bytes).is_none());
        debug_assert!(bytes.len() <= MAX_LINE_BYTES);
        let (failed, sink) = self.search_text(bytes, window, deadline);
        if failed && !self.plan.options.multiline {
            // As for a file read whole: the searcher's heap limit, a line too long.
            skipped.line_too_long += 1;
            return Searched::Skipped;
        }
        self.searched(failed, sink, skipped)
    }

    /// Searches `bytes` known to hold no NUL byte and no key marker (its caller looked, or the
    /// candidate source vouches) as a slice, without the searcher's binary detection, which
    /// would look for NUL bytes again; returns whether the search failed, and its sink.
    fn search_text<'s>(
        &mut self,
        bytes: &[u8],
        window: Option<Window>,
        deadline: &'s Deadline,
    ) -> (bool, FileSink<'s>)
    where
        'a: 's,
    {
        let mut sink = new_sink(self.plan, self.matcher, false, window, deadline);
        let searcher = self.searchers.pick(false, window);
        searcher.set_binary_detection(BinaryDetection::none());
        let result = searcher.search_slice(self.matcher, bytes, &mut sink);
        searcher.set_binary_detection(BinaryDetection::quit(0));
        (result.is_err(), sink)
    }
}

impl GrepWorker<'_> {
    /// Counts the matching lines of `parts` of `file`, each read with one `pread` and searched
    /// as a slice by the counting searcher; `None` when the file must be searched whole after
    /// all: a part that cannot be read, or that shows what the index would not have held (a
    /// NUL byte, a private-key marker: the file changed), or a search error.
    fn search_parts_of(
        &mut self,
        file: &File,
        parts: &ReadParts,
        deadline: &Deadline,
    ) -> Option<Searched> {
        let mut count = 0;
        for range in &parts.ranges {
            let len = usize::try_from(range.end - range.start).ok()?;
            self.buffer.clear();
            self.buffer.resize(len, 0);
            file.read_exact_at(&mut self.buffer, range.start).ok()?;
            if may_hold_keys(&self.buffer) || memchr::memchr(0, &self.buffer).is_some() {
                return None;
            }
            let buffer = std::mem::take(&mut self.buffer);
            let (failed, sink) = self.search_text(&buffer, None, deadline);
            self.buffer = buffer;
            if failed {
                return None;
            }
            count += sink.count;
            if sink.stopped {
                // The deadline passed: what was found so far counts.
                self.stopped = true;
                break;
            }
        }
        Some(Searched::Done {
            count,
            kept: 0,
            lines: Vec::new(),
            key_blocks: 0,
            key_lines: 0,
        })
    }
}

/// A new sink for one file's search (`keyed`: withholding private-key blocks).
fn new_sink<'s>(
    plan: &Plan<'_>,
    matcher: &'s RegexMatcher,
    keyed: bool,
    window: Option<Window>,
    deadline: &'s Deadline,
) -> FileSink<'s> {
    let options = plan.options;
    let sink = FileSink::new(
        matcher,
        deadline,
        window,
        (options.before_context as u64, options.after_context as u64),
        options.max_line_chars,
        options.multiline,
    )
    .with_max_count(options.max_count, options.invert_match);
    if keyed { sink.withholding_keys() } else { sink }
}

/// Where a file's bytes come from.
pub(super) enum Source<'b> {
    /// The opened file, with its size when it was opened.
    File(File, u64),
    /// Its bytes, held by the candidate source (the file is not opened).
    Held(&'b [u8]),
    /// The opened file with its size when it was opened, of which only the parts can match.
    Parts(File, u64, &'b ReadParts),
}

/// Whether a file starting with `head` (or held whole in it) may hold a private-key block:
/// its bytes hold the marker, or it is UTF-16 (transcoded by the searcher, so its bytes do not
/// show the marker).
fn may_hold_keys(head: &[u8]) -> bool {
    head.starts_with(BOMS[1]) || head.starts_with(BOMS[2]) || keyblock::may_hold_key(head)
}

/// One thread's searchers, one per way a file is searched.
struct Searchers {
    /// No line numbers, no context: for files whose text is not needed.
    counting: Searcher,
    /// Line numbers and context: for files whose text may be shown.
    showing: Searcher,
    /// Every line passed to the sink (passthru), for files that may hold a private-key block.
    keyed: Searcher,
}

impl Searchers {
    /// The searcher for a file: every line in key mode, else with or without line numbers and
    /// context as the page needs.
    fn pick(&mut self, keyed: bool, window: Option<Window>) -> &mut Searcher {
        if keyed {
            &mut self.keyed
        } else if window.is_some() {
            &mut self.showing
        } else {
            &mut self.counting
        }
    }
}

impl FileVisitor for GrepWorker<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, skipped: &mut SkipCounts) -> bool {
        if !self
            .plan
            .select
            .admits(file.relative_bytes, file.name_bytes)
        {
            return true;
        }
        if let Some((opened, identity)) = file.open_counted(skipped) {
            self.search(opened, identity.size, file.relative_bytes, skipped);
        }
        !self.stopped
    }
}
