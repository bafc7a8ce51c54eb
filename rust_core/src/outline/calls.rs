//! What a definition calls: the names called inside the body of each definition of a name,
//! each callee once with its number of calls and its first call.
//!
//! The answer to "what does X do" beside [`super::references`]' "who calls X": the candidates
//! are the files grep finds the name in as a whole word. Their outlines (from the cache, or a
//! worker) tell which define X; only those are parsed with their references. In each, the
//! references of role `call` whose enclosing definition is a definition of X, or lies within
//! one (a closure, a nested function, a method of a class X), are counted by the name they
//! call. Calls are found **by name**, as references are: `obj.close()`
//! calls `close`, whichever `close` that is.
//!
//! With a symbol index (`index::navigate::calls`), the files defining X are looked up in it and
//! the calls of those definitions read from its per-definition call lists; only the files it
//! does not describe as they are now are searched and parsed here. Both feed the same assembly
//! ([`assemble`]) through [`file_calls`], so the answers are the same.
//!
//! Each callee says where the same file defines a name spelled as it, when it does (a lookup in
//! the outline at hand). How many places define it across the tree is left out: that is one
//! definitions search per callee (a grep and the parse of its candidates), tens of them for one
//! body, until a symbol index answers it as a lookup.

use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::Arc;

use super::definitions::outline_all;
use super::definitions::{Definition, MAX_UNPARSED_LISTED, Parsedness, UnparsedFile};
use super::file::Page;
use super::lang::Language;
use super::outliner::Outliner;
use super::parse::{Entry, Parsed};
use super::references::{Lines, MAX_DEFINITIONS_LISTED, check_name, word_candidates};
use super::role::Role;
use super::source::Source;
use super::{DEFAULT_CALLS_LIMIT, SymbolKind};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::grep::{GrepOptions, GrepOutput};
use crate::skip::SkipCounts;
use crate::workspace::Workspace;

crate::record! {
    "Callee",
    /// One name called inside a definition's body, once, with how often.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Callee {
        /// The file of the calling definition, relative to the root (raw bytes).
        pub path: OsString,
        /// The calling definition's line (one of the result's definitions).
        pub caller_line: u64,
        /// The name called.
        pub name: String,
        /// Calls to it in the body (nested definitions included).
        pub count: u64,
        /// The line of the first of them.
        pub first_line: u64,
        /// Its 1-based column, in characters.
        pub first_column: u64,
        /// That line's text, cut to 160 characters.
        pub text: String,
        /// The line where the same file defines a name spelled as the callee (the first
        /// such definition); null when the file defines none.
        pub defined_line: Option<u64>,
    }
}

crate::record! {
    "CallingDefinition",
    /// One definition of the name whose body is searched, with what it holds.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct CallingDefinition {
        /// The definition.
        pub definition: Definition,
        /// Calls in its body (nested definitions included).
        pub calls: u64,
        /// Distinct names called there.
        pub callees: u64,
    }
}

crate::record! {
    "CallsResult",
    /// What the definitions of a name call, one page of callees (found by name: no type
    /// resolution).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct CallsResult {
        /// The name as given.
        pub name: String,
        /// This page of callees, by path, then definition, then first call.
        pub calls: Vec<Callee>,
        /// The definitions of the name searched (the first 20; definitions_total counts all).
        pub definitions: Vec<CallingDefinition>,
        /// Definitions of the name in the candidates (after kind).
        pub definitions_total: u64,
        /// Call sites in all of those bodies, exact unless incomplete.
        pub calls_total: u64,
        /// Callees listed over all pages (each once per definition), exact unless incomplete.
        pub total: u64,
        /// Callees skipped before this page.
        pub offset: u64,
        /// Callees after this page.
        pub withheld: u64,
        /// The offset of the next page, when callees follow this one.
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
        /// The time budget ran out: the definitions cover only part of the tree.
        pub incomplete: bool,
        /// What the prefilter's search passed over, by reason.
        pub skipped: SkipCounts,
    }
}

/// Which definitions to look into.
#[derive(Clone, Debug)]
pub struct CallsOptions {
    /// The name of the definitions (an identifier, matched whole and case-sensitively).
    pub name: String,
    /// File or directory to search (default: the root).
    pub path: Option<OsString>,
    /// grep's file filter (rg -g, several allowed).
    pub glob: Vec<String>,
    /// Only definitions of these kinds (empty: every kind).
    pub kinds: Vec<SymbolKind>,
    /// Callees returned at most (`None`: all).
    pub limit: Option<usize>,
    /// Callees skipped before the page.
    pub offset: usize,
    /// Stops the call (it then fails with `CoreError::Cancelled`).
    pub cancel: CancelToken,
}

impl Default for CallsOptions {
    fn default() -> Self {
        CallsOptions {
            name: String::new(),
            path: None,
            glob: Vec::new(),
            kinds: Vec::new(),
            limit: Some(DEFAULT_CALLS_LIMIT),
            offset: 0,
            cancel: CancelToken::default(),
        }
    }
}

/// One definition of the name in a file and what its body calls.
#[derive(Debug, PartialEq, Eq)]
struct Body {
    entry: Entry,
    container: Option<String>,
    calls: u64,
    /// Callees in the order of their first call: name, count, first line and column, the
    /// line's text, the line of a definition of that name in the file.
    callees: Vec<FileCallee>,
}

#[derive(Debug, PartialEq, Eq)]
struct FileCallee {
    name: String,
    count: u64,
    line: u32,
    column: u32,
    text: String,
    defined_line: Option<u64>,
}

/// What one file gave: the bodies of its definitions of the name.
pub(crate) struct FileCalls {
    bodies: Vec<Body>,
    cut: bool,
}

/// What the definitions named `name` (of `kinds`, when given) in a parse of `bytes` call.
pub(crate) fn file_calls(
    bytes: &[u8],
    parsed: &Parsed,
    name: &str,
    kinds: &[SymbolKind],
) -> FileCalls {
    FileCalls {
        bodies: bodies(bytes, parsed, name, kinds),
        cut: parsed.references.as_ref().is_some_and(|r| r.cut),
    }
}

/// What the definitions named `options.name` call. `search` is the workspace's grep (the warm
/// index's, when it has one): it picks the candidate files.
///
/// Errors: a name that is empty, too long or holds whitespace, the errors of grep's `path` and
/// `glob`, or `Cancelled`.
pub fn calls(
    workspace: &Workspace,
    outliner: &Outliner,
    options: &CallsOptions,
    search: &(dyn Fn(&GrepOptions) -> Result<GrepOutput, CoreError> + Sync),
) -> Result<CallsResult, CoreError> {
    let name = check_name(&options.name)?;
    let deadline = workspace.deadline_with(&options.cancel);
    let found = word_candidates(search, name, &options.path, &options.glob, &options.cancel)?;
    let candidates: Vec<&OsString> = found.files.iter().map(|f| &f.path).collect();
    let kinds = &options.kinds;
    let defines =
        |entry: &Entry| entry.name == name && (kinds.is_empty() || kinds.contains(&entry.kind));
    // First the outlines (cached with find_definitions' and answered by a parse with
    // references): they tell which candidates define the name. Only those are parsed for
    // their references, so a name used in thousands of files and defined in two costs two
    // parses with references.
    let has_definition = |_: &Source, parsed: Arc<Parsed>| parsed.entries.iter().any(defines);
    let outlines = outline_all(
        workspace,
        outliner,
        &candidates,
        &deadline,
        false,
        &has_definition,
    );
    let mut out = CallsResult {
        name: options.name.clone(),
        files_searched: found.files_searched,
        skipped: found.skipped,
        incomplete: found.incomplete,
        offset: options.offset as u64,
        ..CallsResult::default()
    };
    let mut defining: Vec<&OsString> = Vec::new();
    for (path, outcome) in candidates.iter().zip(outlines) {
        if let Some((true, _)) = tally(&mut out, path, outcome, true) {
            defining.push(path);
        }
    }
    let keep =
        |source: &Source, parsed: Arc<Parsed>| file_calls(&source.bytes, &parsed, name, kinds);
    let outcomes = outline_all(workspace, outliner, &defining, &deadline, true, &keep);
    if deadline.cancelled() {
        return Err(CoreError::Cancelled);
    }
    let files = defining.into_iter().cloned().zip(outcomes).collect();
    Ok(assemble(options, out, files))
}

/// The answer from what each file defining the name gave (in path order): its definitions,
/// totals and the page of callees, counted into `out` (whose search counts are the caller's).
pub(crate) fn assemble(
    options: &CallsOptions,
    mut out: CallsResult,
    files: Vec<(OsString, Parsedness<FileCalls>)>,
) -> CallsResult {
    let mut listed: Vec<Callee> = Vec::new();
    for (path, outcome) in files {
        let path = &path;
        let Some((file, language)) = tally(&mut out, path, outcome, false) else {
            continue;
        };
        out.files_cut += u64::from(file.cut);
        for body in file.bodies {
            out.definitions_total += 1;
            out.calls_total += body.calls;
            if out.definitions.len() < MAX_DEFINITIONS_LISTED {
                out.definitions.push(CallingDefinition {
                    definition: Definition {
                        path: (*path).clone(),
                        line: body.entry.line,
                        end_line: body.entry.end_line,
                        kind: body.entry.kind,
                        name: body.entry.name.clone(),
                        container: body.container.clone(),
                        language,
                    },
                    calls: body.calls,
                    callees: body.callees.len() as u64,
                });
            }
            listed.extend(body.callees.into_iter().map(|callee| Callee {
                path: (*path).clone(),
                caller_line: body.entry.line,
                name: callee.name,
                count: callee.count,
                first_line: u64::from(callee.line),
                first_column: u64::from(callee.column),
                text: callee.text,
                defined_line: callee.defined_line,
            }));
        }
    }
    let page = Page::of(listed.len(), options.offset, options.limit);
    out.total = page.total;
    out.withheld = page.withheld;
    out.next_offset = page.next_offset;
    out.calls = listed.drain(page.start..page.end).collect();
    out
}

/// Counts one file's outcome into `out` (as a candidate when `candidate`, the first pass; the
/// second pass counts only its failures) and gives what was kept of its parse and its language.
fn tally<T>(
    out: &mut CallsResult,
    path: &OsString,
    outcome: Parsedness<T>,
    candidate: bool,
) -> Option<(T, Language)> {
    let counted = u64::from(candidate);
    match outcome {
        Parsedness::Outlined {
            kept,
            language,
            cached,
        } => {
            out.candidate_files += counted;
            out.files_parsed += counted;
            out.files_cached += u64::from(cached) * counted;
            Some((kept, language))
        }
        Parsedness::Unparsed(refused, detail) => {
            out.candidate_files += counted;
            out.unparsed_total += 1;
            if out.unparsed.len() < MAX_UNPARSED_LISTED {
                out.unparsed.push(UnparsedFile {
                    path: path.clone(),
                    refused,
                    detail,
                });
            }
            None
        }
        Parsedness::Skipped => None,
        Parsedness::NotReached => {
            out.candidate_files += counted;
            out.incomplete = true;
            None
        }
    }
}

/// The bodies of the definitions named `name` (of `kinds`, when any are given) in a parse of
/// `bytes`: for each, the references of role call inside it (its own or a nested definition's),
/// counted by callee in the order of their first call.
fn bodies(bytes: &[u8], parsed: &Parsed, name: &str, kinds: &[SymbolKind]) -> Vec<Body> {
    let entries = &parsed.entries;
    // The definitions looked into, by their index in the outline.
    let targets: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.name == name && (kinds.is_empty() || kinds.contains(&e.kind)))
        .map(|(i, _)| i)
        .collect();
    let mut bodies: Vec<Body> = targets
        .iter()
        .map(|&i| Body {
            entry: entries[i].clone(),
            container: entries[i]
                .parent
                .and_then(|p| entries.get(p as usize))
                .map(|p| p.name.clone()),
            calls: 0,
            callees: Vec::new(),
        })
        .collect();
    let Some(all) = parsed.references.as_ref().filter(|_| !targets.is_empty()) else {
        return bodies;
    };
    // Per body, each callee's place in its list, by the callee's index among the file's names.
    let mut places: Vec<HashMap<u32, usize>> = vec![HashMap::new(); bodies.len()];
    // The first definition of each name in the file, asked for once per name.
    let mut defined: HashMap<u32, Option<u64>> = HashMap::new();
    let mut lines = Lines::new(bytes);
    for reference in all.list.iter().filter(|r| r.role == Role::Call) {
        // Walk out from the innermost enclosing definition; each target met holds the call.
        let mut enclosing = reference.enclosing.map(|e| e as usize);
        let mut text: Option<String> = None;
        // The chain is as long as the nesting; a parent always comes before its child, so a
        // step limit of the outline's length only guards against a malformed answer.
        let mut steps = entries.len();
        while let Some(at) = enclosing {
            if steps == 0 {
                break;
            }
            steps -= 1;
            if let Ok(body) = targets.binary_search(&at) {
                let slot = &mut bodies[body];
                slot.calls += 1;
                match places[body].get(&reference.name) {
                    Some(&place) => slot.callees[place].count += 1,
                    None => {
                        let callee_name = all
                            .names
                            .get(reference.name as usize)
                            .cloned()
                            .unwrap_or_default();
                        let defined_line = *defined.entry(reference.name).or_insert_with(|| {
                            entries
                                .iter()
                                .find(|e| e.name == callee_name)
                                .map(|e| e.line)
                        });
                        let line_text = text.get_or_insert_with(|| lines.text(reference.line));
                        places[body].insert(reference.name, slot.callees.len());
                        slot.callees.push(FileCallee {
                            name: callee_name,
                            count: 1,
                            line: reference.line,
                            column: reference.column,
                            text: line_text.clone(),
                            defined_line,
                        });
                    }
                }
            }
            enclosing = entries.get(at).and_then(|e| e.parent).map(|p| p as usize);
        }
    }
    bodies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::refs::{Reference, References};

    fn entry(kind: SymbolKind, name: &str, line: u64, end_line: u64, parent: Option<u32>) -> Entry {
        Entry {
            kind,
            name: name.to_string(),
            line,
            end_line,
            depth: parent.map_or(0, |_| 1),
            parent,
        }
    }

    fn reference(name: u32, line: u32, column: u32, role: Role, enclosing: u32) -> Reference {
        Reference {
            name,
            line,
            column,
            role,
            enclosing: Some(enclosing),
        }
    }

    /// A parse of:
    /// ```text
    /// 1 def helper():
    /// 2     pass
    /// 3 class Job:
    /// 4     def run(self):
    /// 5         helper(); log(x)
    /// 6         def inner():
    /// 7             helper()
    /// 8 def run():
    /// 9     log(run)
    /// ```
    fn parsed() -> (Vec<u8>, Parsed) {
        let source = "def helper():\n    pass\nclass Job:\n    def run(self):\n        \
                      helper(); log(x)\n        def inner():\n            helper()\ndef run():\n    \
                      log(run)\n";
        let entries = vec![
            entry(SymbolKind::Function, "helper", 1, 2, None),
            entry(SymbolKind::Class, "Job", 3, 7, None),
            entry(SymbolKind::Method, "run", 4, 7, Some(1)),
            entry(SymbolKind::Function, "inner", 6, 7, Some(2)),
            entry(SymbolKind::Function, "run", 8, 9, None),
        ];
        let names = ["helper", "log", "x", "run"].map(String::from).to_vec();
        let list = vec![
            reference(0, 5, 9, Role::Call, 2),
            reference(1, 5, 19, Role::Call, 2),
            reference(2, 5, 23, Role::Read, 2),
            reference(0, 7, 13, Role::Call, 3),
            reference(1, 9, 5, Role::Call, 4),
            reference(3, 9, 9, Role::Read, 4),
        ];
        let parsed = Parsed {
            entries,
            has_errors: false,
            references: Some(References {
                names,
                list,
                cut: false,
                imports: Vec::new(),
            }),
            with_references: true,
        };
        (source.as_bytes().to_vec(), parsed)
    }

    #[test]
    fn each_definition_counts_its_own_calls_and_its_nested_ones() {
        let (bytes, parsed) = parsed();
        let found = bodies(&bytes, &parsed, "run", &[]);
        assert_eq!(found.len(), 2);
        let method = &found[0];
        assert_eq!(
            (method.entry.line, method.container.as_deref()),
            (4, Some("Job"))
        );
        assert_eq!(method.calls, 3);
        let callees: Vec<(&str, u64, u32, u32, Option<u64>)> = method
            .callees
            .iter()
            .map(|c| (c.name.as_str(), c.count, c.line, c.column, c.defined_line))
            .collect();
        assert_eq!(
            callees,
            [("helper", 2, 5, 9, Some(1)), ("log", 1, 5, 19, None)]
        );
        assert_eq!(method.callees[0].text, "        helper(); log(x)");
        let function = &found[1];
        assert_eq!(
            (function.entry.line, function.container.as_deref()),
            (8, None)
        );
        assert_eq!(function.calls, 1);
        assert_eq!(function.callees[0].name, "log");
        assert_eq!(function.callees[0].text, "    log(run)");
    }

    #[test]
    fn kinds_narrow_the_definitions_and_reads_are_not_calls() {
        let (bytes, parsed) = parsed();
        let found = bodies(&bytes, &parsed, "run", &[SymbolKind::Function]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].entry.line, 8);
        // `run` is read on line 9, not called: it is not its own callee.
        assert!(found[0].callees.iter().all(|c| c.name != "run"));
        assert!(bodies(&bytes, &parsed, "Job", &[SymbolKind::Method]).is_empty());
    }

    #[test]
    fn a_class_holds_the_calls_of_its_methods_and_an_uncalled_body_is_listed_empty() {
        let (bytes, parsed) = parsed();
        let class = bodies(&bytes, &parsed, "Job", &[]);
        assert_eq!(class.len(), 1);
        assert_eq!(class[0].calls, 3);
        let helper = bodies(&bytes, &parsed, "helper", &[]);
        assert_eq!(helper.len(), 1);
        assert_eq!((helper[0].calls, helper[0].callees.len()), (0, 0));
        assert!(bodies(&bytes, &parsed, "absent", &[]).is_empty());
    }
}
