//! Where a name is used: its references across the tree, who calls it, and what a definition
//! calls.
//!
//! References are found **by name**, as tags-based tools find them: every identifier spelled
//! as the name, used as code (not in a comment or a string), whatever it resolves to. Two
//! functions of one name in two files share their references; the answer says how many
//! definitions the name has.
//!
//! The candidates are the files grep finds the name in as a whole word (through the warm
//! index when the workspace has one, as for [`super::definitions`]); each is parsed with its
//! references in a worker ([`super::refs`]) or taken from the outline cache, and the matching
//! references are kept with their line's text while the file's bytes are at hand. The results
//! are in grep's path order, then by position, so the answer is the same run to run.

use std::ffi::OsString;
use std::sync::Arc;

use super::definitions::{Definition, MAX_UNPARSED_LISTED, Parsedness, UnparsedFile};
use super::definitions::{candidate_files, outline_all};
use super::file::Page;
use super::lang::Language;
use super::outliner::Outliner;
use super::parse::{Entry, Parsed};
use super::refs::Reference;
use super::role::Role;
use super::source::Source;
use super::{DEFAULT_REFERENCES_LIMIT, SymbolKind};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::grep::{GrepOptions, GrepOutput};
use crate::skip::SkipCounts;
use crate::workspace::Workspace;

/// Definitions of the name listed in a result, at most (all are counted).
pub const MAX_DEFINITIONS_LISTED: usize = 20;
/// A reference's line is shown cut to this many characters.
pub const REFERENCE_LINE_CHARS: usize = 160;
/// The longest name a references call takes, in bytes.
pub const MAX_REFERENCE_NAME_BYTES: usize = 200;

crate::choice! {
    /// How a references result lists what it found.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Grouping {
        /// Each reference on its own.
        #[default]
        Reference = "reference",
        /// One entry per enclosing definition (with role "call": who calls the name).
        Caller = "caller",
    }
}

crate::choice! {
    /// How a reference was tied to the definition asked for.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Binding {
        /// Found by name: its file's includes or imports reach no definition of the name (or
        /// no definition was asked for), so it may mean any of them.
        #[default]
        ByName = "by_name",
        /// Bound through its file's includes or imports (or its own definitions) to the
        /// definition asked for.
        Resolved = "resolved",
    }
}

crate::record! {
    "Reference",
    /// One reference to the name.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct FoundReference {
        /// The file, relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// 1-based line.
        pub line: u64,
        /// 1-based column, in characters.
        pub column: u64,
        /// How it uses the name (call, import, type, write, read, other).
        pub role: Role,
        /// The name of the innermost definition holding it; null at the top of the file.
        pub enclosing: Option<String>,
        /// That definition's kind.
        pub enclosing_kind: Option<SymbolKind>,
        /// That definition's line.
        pub enclosing_line: Option<u64>,
        /// The line's text, cut to 160 characters.
        pub text: String,
        /// The language the file was parsed as.
        pub language: Language,
        /// Whether it was bound to the definition asked for or found by name (by_name when
        /// none was asked for).
        pub binding: Binding,
    }
}

crate::record! {
    "Caller",
    /// One definition that uses the name (grouped by caller), with how often.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Caller {
        /// The file, relative to the root (raw bytes).
        pub path: OsString,
        /// The enclosing definition's name; null for the top of the file.
        pub name: Option<String>,
        /// Its kind.
        pub kind: Option<SymbolKind>,
        /// Its line (of the top of the file: null).
        pub line: Option<u64>,
        /// References inside it (calls, with role "call").
        pub count: u64,
        /// The line of the first of them.
        pub first_line: u64,
        /// That line's text, cut to 160 characters.
        pub text: String,
        /// Of `count`, those bound to the definition asked for (the rest found by name).
        pub resolved: u64,
    }
}

crate::record! {
    "RoleTotals",
    /// References counted by role.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct RoleTotals {
        /// Calls.
        pub calls: u64,
        /// Imports.
        pub imports: u64,
        /// Uses as a type.
        pub types: u64,
        /// Writes.
        pub writes: u64,
        /// Reads.
        pub reads: u64,
        /// Declarations without a value.
        pub others: u64,
    }
}

impl RoleTotals {
    fn add(&mut self, role: Role) {
        let slot = match role {
            Role::Call => &mut self.calls,
            Role::Import => &mut self.imports,
            Role::Type => &mut self.types,
            Role::Write => &mut self.writes,
            Role::Read => &mut self.reads,
            Role::Other => &mut self.others,
        };
        *slot += 1;
    }
}

crate::record! {
    "ReferencesResult",
    /// The references to a name, one page (found by name: no type resolution).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct ReferencesOutput {
        /// The name as given.
        pub name: String,
        /// How the page lists them (reference, caller).
        pub group_by: Grouping,
        /// This page of references, by path then position (group_by reference).
        pub references: Vec<FoundReference>,
        /// This page of callers, by path then line (group_by caller).
        pub callers: Vec<Caller>,
        /// Where the name is defined (the first 20; definitions_total counts all).
        pub definitions: Vec<Definition>,
        /// Definitions of the name in the candidates.
        pub definitions_total: u64,
        /// References by role, exact (after path, glob and kind; before role).
        pub totals: RoleTotals,
        /// Entries of the listing (references, or callers), exact unless incomplete.
        pub total: u64,
        /// Entries skipped before this page.
        pub offset: u64,
        /// Entries after this page.
        pub withheld: u64,
        /// The offset of the next page, when entries follow this one.
        pub next_offset: Option<u64>,
        /// Files searched by the prefilter.
        pub files_searched: u64,
        /// Files that contain the name as a word and have a parser: the candidates.
        pub candidate_files: u64,
        /// Candidates parsed (now or from the cache).
        pub files_parsed: u64,
        /// Candidates whose parse came from the cache.
        pub files_cached: u64,
        /// Files with more references than a file's answer holds (the rest are not counted).
        pub files_cut: u64,
        /// Candidates without a parse (the first 20; unparsed_total counts all).
        pub unparsed: Vec<UnparsedFile>,
        /// Candidates without a parse.
        pub unparsed_total: u64,
        /// The time budget ran out: the references cover only part of the tree.
        pub incomplete: bool,
        /// What the prefilter's search passed over, by reason.
        pub skipped: SkipCounts,
        /// The definition asked for (`definition`), when one was.
        pub definition: Option<Definition>,
        /// References bound to it (counted as the totals are).
        pub resolved: u64,
        /// References found by name (all of them when no definition was asked for).
        pub by_name: u64,
        /// References left out because they cannot mean it: their file binds the name to
        /// another definition, or (C) the definition is in a project their file does not see.
        pub bound_elsewhere: u64,
    }
}

/// What to look for.
#[derive(Clone, Debug)]
pub struct ReferencesOptions {
    /// The name (an identifier, matched whole and case-sensitively).
    pub name: String,
    /// File or directory to search (default: the root).
    pub path: Option<OsString>,
    /// grep's file filter (rg -g, several allowed).
    pub glob: Vec<String>,
    /// Only references of these roles (empty: every role).
    pub roles: Vec<Role>,
    /// Only references inside a definition of these kinds (empty: anywhere).
    pub kinds: Vec<SymbolKind>,
    /// How to list them.
    pub group_by: Grouping,
    /// Entries returned at most (`None`: all).
    pub limit: Option<usize>,
    /// Entries skipped before the page.
    pub offset: usize,
    /// Only the references of the definition of the name that covers this line of this file
    /// (relative to the root), bound through includes and imports, and those found by name.
    pub definition: Option<(OsString, u64)>,
    /// Stops the call (it then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for ReferencesOptions {
    fn default() -> Self {
        ReferencesOptions {
            name: String::new(),
            path: None,
            glob: Vec::new(),
            roles: Vec::new(),
            kinds: Vec::new(),
            group_by: Grouping::Reference,
            limit: Some(DEFAULT_REFERENCES_LIMIT),
            offset: 0,
            definition: None,
            cancel: CancelToken::default(),
        }
    }
}

/// How a file's references to the name bind, given the definition asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FileBinding {
    /// Nothing binds them (or no binding is known for the file).
    #[default]
    ByName,
    /// To the definition asked for.
    Resolved,
    /// To another definition of the name.
    Elsewhere,
}

/// What one file gave: its definitions of the name and its references to it (all roles,
/// path/glob/kind filters applied by the caller), each with its line's text (empty when the
/// symbol index answers: it reads the texts of the page's entries only).
pub(crate) struct FileReferences {
    pub(crate) definitions: Vec<(Entry, Option<String>)>,
    pub(crate) references: Vec<(Reference, Option<Entry>, String)>,
    pub(crate) cut: bool,
    /// How its references bind (`ByName` when no definition was asked for).
    pub(crate) binding: FileBinding,
}

/// The references to `options.name`. `search` is the workspace's grep (the warm index's, when
/// it has one): it picks the candidate files.
///
/// Errors: a name that is empty, too long or holds whitespace, the errors of grep's `path` and
/// `glob`, or `Cancelled`.
pub fn references(
    workspace: &Workspace,
    outliner: &Outliner,
    options: &ReferencesOptions,
    search: &(dyn Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync),
) -> Result<ReferencesOutput, CoreError> {
    let name = check_name(&options.name)?;
    let deadline = workspace.deadline_with(&options.cancel);
    let found = word_candidates(search, name, &options.path, &options.glob, &options.cancel)?;
    let candidates: Vec<&OsString> = found.files.iter().map(|f| &f.path).collect();
    let keep = |source: &Source, parsed: Arc<Parsed>| of_file(source, &parsed, name);
    let outcomes = outline_all(workspace, outliner, &candidates, &deadline, true, &keep);
    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }
    let out = ReferencesOutput {
        files_searched: found.files_searched,
        skipped: found.skipped,
        incomplete: found.incomplete,
        ..ReferencesOutput::default()
    };
    let files = candidates.into_iter().cloned().zip(outcomes);
    asked(options, assemble(options, out, files))
}

/// `out`, or the error for a definition asked for that the answer does not hold.
pub(crate) fn asked(
    options: &ReferencesOptions,
    out: ReferencesOutput,
) -> Result<ReferencesOutput, CoreError> {
    match &options.definition {
        Some((path, line)) if out.definition.is_none() => Err(CoreError::InvalidArgument {
            message: format!(
                "no definition of {} covers line {line} of {} in the files searched.",
                options.name,
                path.to_string_lossy()
            ),
        }),
        _ => Ok(out),
    }
}

/// The answer to `options` from what each candidate gave, in path order (`out` holds the
/// search's counts): the cold engine's and the symbol index's one assembly.
pub(crate) fn assemble(
    options: &ReferencesOptions,
    mut out: ReferencesOutput,
    files: impl IntoIterator<Item = (OsString, Parsedness<FileReferences>)>,
) -> ReferencesOutput {
    out.name = options.name.clone();
    out.group_by = options.group_by;
    out.offset = options.offset as u64;
    let mut listed: Vec<FoundReference> = Vec::new();
    let mut callers: Vec<Caller> = Vec::new();
    for (path, outcome) in files {
        let path = &path;
        let (file, language) = match outcome {
            Parsedness::Outlined {
                kept,
                language,
                cached,
            } => {
                out.candidate_files += 1;
                out.files_parsed += 1;
                out.files_cached += u64::from(cached);
                (kept, language)
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
                continue;
            }
            Parsedness::Skipped => continue,
            Parsedness::NotReached => {
                out.candidate_files += 1;
                out.incomplete = true;
                continue;
            }
        };
        out.files_cut += u64::from(file.cut);
        for (entry, container) in file.definitions {
            out.definitions_total += 1;
            let definition = Definition {
                path: path.clone(),
                line: entry.line,
                end_line: entry.end_line,
                kind: entry.kind,
                name: entry.name,
                container,
                language,
            };
            if out.definition.is_none()
                && options.definition.as_ref().is_some_and(|(p, line)| {
                    p == path && (entry.line..=entry.end_line.max(entry.line)).contains(line)
                })
            {
                out.definition = Some(definition.clone());
            }
            if out.definitions.len() < MAX_DEFINITIONS_LISTED {
                out.definitions.push(definition);
            }
        }
        let binding = match file.binding {
            FileBinding::Resolved => Binding::Resolved,
            FileBinding::ByName => Binding::ByName,
            FileBinding::Elsewhere => {
                out.bound_elsewhere += file.references.len() as u64;
                continue;
            }
        };
        // Callers of this file, by enclosing definition (its index in the file; none: top).
        let mut file_callers: Vec<(Option<u32>, Caller)> = Vec::new();
        for (reference, enclosing, text) in file.references {
            if !(options.kinds.is_empty()
                || enclosing
                    .as_ref()
                    .is_some_and(|e| options.kinds.contains(&e.kind)))
            {
                continue;
            }
            out.totals.add(reference.role);
            match binding {
                Binding::Resolved => out.resolved += 1,
                Binding::ByName => out.by_name += 1,
            }
            if !(options.roles.is_empty() || options.roles.contains(&reference.role)) {
                continue;
            }
            match options.group_by {
                Grouping::Reference => listed.push(FoundReference {
                    path: path.clone(),
                    line: u64::from(reference.line),
                    column: u64::from(reference.column),
                    role: reference.role,
                    enclosing: enclosing.as_ref().map(|e| e.name.clone()),
                    enclosing_kind: enclosing.as_ref().map(|e| e.kind),
                    enclosing_line: enclosing.as_ref().map(|e| e.line),
                    text,
                    language,
                    binding,
                }),
                Grouping::Caller => {
                    match file_callers
                        .iter_mut()
                        .find(|(index, _)| *index == reference.enclosing)
                    {
                        Some((_, caller)) => {
                            caller.count += 1;
                            caller.resolved += u64::from(binding == Binding::Resolved);
                        }
                        None => file_callers.push((
                            reference.enclosing,
                            Caller {
                                path: path.clone(),
                                name: enclosing.as_ref().map(|e| e.name.clone()),
                                kind: enclosing.as_ref().map(|e| e.kind),
                                line: enclosing.as_ref().map(|e| e.line),
                                count: 1,
                                first_line: u64::from(reference.line),
                                text,
                                resolved: u64::from(binding == Binding::Resolved),
                            },
                        )),
                    }
                }
            }
        }
        // Callers in the order of their definitions (the top of the file first).
        file_callers.sort_by_key(|(index, _)| index.map_or(0, |i| u64::from(i) + 1));
        callers.extend(file_callers.into_iter().map(|(_, caller)| caller));
    }
    let entries = match options.group_by {
        Grouping::Reference => listed.len(),
        Grouping::Caller => callers.len(),
    };
    let page = Page::of(entries, options.offset, options.limit);
    out.total = page.total;
    out.withheld = page.withheld;
    out.next_offset = page.next_offset;
    match options.group_by {
        Grouping::Reference => out.references = listed.drain(page.start..page.end).collect(),
        Grouping::Caller => out.callers = callers.drain(page.start..page.end).collect(),
    }
    out
}

/// `name`, checked: not empty, no whitespace, not too long.
pub(crate) fn check_name(name: &str) -> Result<&str, CoreError> {
    let invalid = |message: String| Err(CoreError::InvalidArgument { message });
    if name.is_empty() {
        return invalid("the name is empty.".into());
    }
    if name.len() > MAX_REFERENCE_NAME_BYTES {
        return invalid(format!(
            "the name is {} bytes long, over the {MAX_REFERENCE_NAME_BYTES} allowed.",
            name.len()
        ));
    }
    if name.chars().any(char::is_whitespace) {
        return invalid(format!(
            "the name {name:?} holds whitespace; references are to one identifier."
        ));
    }
    Ok(name)
}

/// The files under `path` and `glob` that hold `name` as a word and may have a parser: the
/// candidates `find_references` and `find_calls` parse.
pub(crate) fn word_candidates(
    search: &(dyn Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync),
    name: &str,
    path: &Option<OsString>,
    glob: &[String],
    cancel: &CancelToken,
) -> Result<GrepOutput, CoreError> {
    candidate_files(
        search,
        GrepOptions {
            pattern: word_pattern(name),
            path: path.clone(),
            glob: glob.to_vec(),
            cancel: cancel.clone(),
            ..GrepOptions::default()
        },
    )
}

/// grep's pattern for the files that hold `name` as a word: a word boundary on each side that
/// ends in a word character. A name that starts or ends otherwise (JavaScript's `$`, `$el`,
/// `constructor$`) has no boundary there, since `\b` after `$` would ask for a word character
/// next; the parse decides what is a reference, so the prefilter may find more.
pub(crate) fn word_pattern(name: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let edge = |at: bool| if at { r"\b" } else { "" };
    format!(
        "{}{}{}",
        edge(word(name.chars().next())),
        regex::escape(name),
        edge(word(name.chars().next_back()))
    )
}

/// What `parsed` holds about `name`, with each reference's line text out of `source`.
pub(crate) fn of_file(source: &Source, parsed: &Parsed, name: &str) -> FileReferences {
    let entries = &parsed.entries;
    let definitions = entries
        .iter()
        .filter(|e| e.name == name)
        .map(|e| {
            let container = e
                .parent
                .and_then(|p| entries.get(p as usize))
                .map(|p| p.name.clone());
            (e.clone(), container)
        })
        .collect();
    let Some(all) = &parsed.references else {
        return FileReferences {
            definitions,
            references: Vec::new(),
            cut: false,
            binding: FileBinding::ByName,
        };
    };
    let mut references = Vec::new();
    if let Some(index) = all.name_index(name) {
        let mut lines = Lines::new(&source.bytes);
        for reference in all.list.iter().filter(|r| r.name == index) {
            let enclosing = reference
                .enclosing
                .and_then(|e| entries.get(e as usize))
                .cloned();
            let text = lines.text(reference.line);
            references.push((*reference, enclosing, text));
        }
    }
    FileReferences {
        definitions,
        references,
        cut: all.cut,
        binding: FileBinding::ByName,
    }
}

/// A file's lines, visited in increasing order.
pub(crate) struct Lines<'a> {
    rest: &'a [u8],
    /// The 1-based number of the line `rest` starts with.
    number: u32,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            rest: bytes,
            number: 1,
        }
    }

    /// Line `number`'s text, cut to [`REFERENCE_LINE_CHARS`] (lines asked for in order).
    pub(crate) fn text(&mut self, number: u32) -> String {
        while self.number < number {
            match memchr::memchr(b'\n', self.rest) {
                Some(end) => self.rest = &self.rest[end + 1..],
                None => self.rest = &[],
            }
            self.number += 1;
        }
        let end = memchr::memchr(b'\n', self.rest).unwrap_or(self.rest.len());
        let line = String::from_utf8_lossy(&self.rest[..end]);
        let line = line.trim_end_matches('\r');
        match line.char_indices().nth(REFERENCE_LINE_CHARS) {
            Some((cut, _)) => line[..cut].to_string(),
            None => line.to_string(),
        }
    }
}
