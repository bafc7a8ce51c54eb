//! One file's definitions out of its bytes: the pure part of an outline, run inside the outline
//! worker's child process (tree-sitter and its grammars are C, see [`super::worker`]).
//!
//! The grammar parses the bytes into a tree, the language's tag query ([`super::lang`]) picks
//! the definition nodes and their names, and the definitions are put in source order with
//! their nesting worked out from how their byte ranges contain each other. Both the parse and
//! the query ask a progress callback, which stops them once the parsing thread has used `time`
//! of CPU ([`super::cap`], [`ParseFailure::Timeout`]): a file built to make the parser work for
//! long costs that much and no more.

use std::ops::Range;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, QueryCursor, QueryCursorOptions, StreamingIterator};

use super::SymbolKind;
use super::cap::{Budget, MATCH_LIMIT};
pub use super::cap::{MAX_NAME_CHARS, ParseFailure};
use super::cwalk::{self, Found};
use super::lang::Language;
use super::naming::{clean_name, declared_name};
use super::recover::{Part, parse_range, recover};
use super::refs::{self, References, Spans};
use super::tags::{Tags, tags};

/// One definition as the parse found it (the engine's [`super::Symbol`] is made from it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What it is.
    #[serde(with = "kind_code")]
    pub kind: SymbolKind,
    /// Its name, whitespace runs made one space, cut to [`MAX_NAME_CHARS`].
    pub name: String,
    /// 1-based line of its name (of its first line when it has no name node).
    pub line: u64,
    /// 1-based line of its last line.
    pub end_line: u64,
    /// How many definitions enclose it (0: at the top of the file).
    pub depth: u32,
    /// The index (in the outline) of the definition that directly encloses it.
    pub parent: Option<u32>,
}

/// A file's definitions, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed {
    /// The definitions, by position (an enclosing one before what it encloses).
    pub entries: Vec<Entry>,
    /// The grammar met text it could not parse (the outline covers what it could).
    pub has_errors: bool,
    /// The file's references, when they were asked for and its language has a reference
    /// query.
    #[serde(default)]
    pub references: Option<References>,
    /// Whether references were asked for (an outline parse leaves them out).
    #[serde(default)]
    pub with_references: bool,
}

/// The serde form of a kind: its name.
mod kind_code {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::SymbolKind;

    pub fn serialize<S: Serializer>(kind: &SymbolKind, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SymbolKind, D::Error> {
        let name = <&str>::deserialize(deserializer)?;
        SymbolKind::from_name(name).ok_or_else(|| D::Error::custom(format!("no kind {name:?}")))
    }
}

/// The definitions in `source` (UTF-8, as far as it is valid) read as `language`, parse and
/// query stopped once `time` has passed.
pub fn parse(language: Language, source: &[u8], time: Duration) -> Result<Parsed, ParseFailure> {
    parse_with(language, source, time, false)
}

/// The definitions in `source` and, when `references` is set, its references
/// ([`refs`](super::refs)); the parse, the query and the references' walk stopped once `time`
/// has passed.
///
/// A construct the grammar cannot parse (a macro where C wants `while`, a brace an `#ifdef`
/// leaves unbalanced) can make it give up on the rest of the file: everything after it is one
/// ERROR node with no definition in it. The parse then starts again at the first line after
/// the broken construct where a definition can start ([`super::recover`]), and names the broken
/// definition from its head alone where it can: at most [`MAX_RESTARTS`] times, in a quarter
/// of the time left after the first parse.
pub fn parse_with(
    language: Language,
    source: &[u8],
    time: Duration,
    references: bool,
) -> Result<Parsed, ParseFailure> {
    parse_restarting(language, source, time, references, MAX_RESTARTS)
}

/// Restarts after a broken construct one parse makes at most: each parses the rest of the file
/// again, so a file of broken constructs costs at most this many more parses (and no more
/// than the time the budget has left).
pub const MAX_RESTARTS: usize = 8;

/// [`parse_with`], starting again after broken constructs at most `restarts` times.
pub(super) fn parse_restarting(
    language: Language,
    source: &[u8],
    time: Duration,
    references: bool,
    restarts: usize,
) -> Result<Parsed, ParseFailure> {
    let tags = tags(language)?;
    let budget = Budget::start(time);
    let mut parser = Parser::new();
    parser
        .set_language(&language.grammar())
        .map_err(|e| ParseFailure::Grammar(e.to_string()))?;
    let tree = parse_range(&mut parser, source, None, &budget).ok_or(ParseFailure::Timeout)?;
    let has_errors = tree.root_node().has_error();
    let parts = recover(&mut parser, tags, source, tree, &budget, restarts);

    // C's references and definitions in one walk of a file parsed whole (see `cwalk`); else
    // the tag query finds the definitions, and the references walk follows.
    let mut walked = None;
    let mut found: Vec<Found<'_>> = Vec::new();
    if language == Language::C && references && parts.len() == 1 && !by_query() {
        let root = parts[0].tree.root_node();
        walked = refs::walk(
            language,
            &[(root, parts[0].window.clone())],
            source,
            &budget,
        )?;
        if let Some(walked) = &walked {
            cwalk::definitions(&walked.definitions, root, &mut found);
        }
    } else {
        query_definitions(tags, &parts, source, &budget, &mut found);
    }
    if budget.spent() {
        return Err(ParseFailure::Timeout);
    }
    let (entries, spans) = arrange(found, source, language);
    let extracted = if let Some(walked) = walked {
        Some(refs::finish(language, walked, source, &spans))
    } else if references {
        let trees: Vec<(Node<'_>, Range<usize>)> = parts
            .iter()
            .filter(|part| !part.head)
            .map(|part| (part.tree.root_node(), part.window.clone()))
            .collect();
        refs::extract(language, &trees, source, &spans, &budget)?
    } else {
        None
    };
    Ok(Parsed {
        entries,
        has_errors,
        references: extracted,
        with_references: references,
    })
}

/// The definitions the tag query finds in `parts` (see `parse_with`), into `found`.
fn query_definitions<'tree>(
    tags: &Tags,
    parts: &'tree [Part],
    source: &[u8],
    budget: &Budget,
    found: &mut Vec<Found<'tree>>,
) {
    let mut query_in_time = |_: &tree_sitter::QueryCursorState| budget.go_on();
    // The parts that parse the file (and give its references) first: a head's definition is
    // kept only where they have none starting at the same byte.
    for heads in [false, true] {
        let whole = found.len();
        for part in parts.iter().filter(|part| part.head == heads) {
            let mut cursor = QueryCursor::new();
            cursor.set_match_limit(MATCH_LIMIT);
            cursor.set_byte_range(part.window.clone());
            let mut matches = cursor.matches_with_options(
                &tags.query,
                part.tree.root_node(),
                source,
                QueryCursorOptions::new().progress_callback(&mut query_in_time),
            );
            while let Some(found_match) = matches.next() {
                let mut definition = None;
                let mut name = None;
                let mut body = None;
                for capture in found_match.captures {
                    if Some(capture.index) == tags.name {
                        name = Some(capture.node);
                    } else if Some(capture.index) == tags.body {
                        body = Some(capture.node);
                    } else if let Some(Some(kind)) = tags.kinds.get(capture.index as usize) {
                        definition = Some((capture.node, *kind));
                    }
                }
                let Some((node, kind)) = definition else {
                    continue;
                };
                // The definition's last node: its own, or a body the query captured apart.
                let last = body
                    .filter(|b| b.end_byte() > node.end_byte())
                    .unwrap_or(node);
                if !part.window.contains(&node.start_byte())
                    || (heads && found[..whole].iter().any(|f| f.start == node.start_byte()))
                {
                    continue;
                }
                let end = match part.cut {
                    Some(cut) if heads || last.end_byte() > cut.0 => cut,
                    _ => (last.end_byte(), last.end_position()),
                };
                found.push(Found {
                    node,
                    start: node.start_byte(),
                    end,
                    kind,
                    name,
                    pattern: found_match.pattern_index,
                });
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Set in a test: C's definitions come from the tag query, as for every other language
    /// (the oracle of `cwalk`).
    pub(super) static BY_QUERY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn by_query() -> bool {
    #[cfg(test)]
    return BY_QUERY.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Puts the matches in source order, drops repeats of one node, names them and nests them;
/// with the entries, their byte ranges and where their names start (for the references).
fn arrange(mut found: Vec<Found<'_>>, source: &[u8], language: Language) -> (Vec<Entry>, Spans) {
    // Enclosing before enclosed: by start, then the longer first.
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end.0), f.node.id(), f.pattern));
    found.dedup_by_key(|f| f.node.id());
    let mut out: Vec<Entry> = Vec::with_capacity(found.len());
    let mut spans = Spans {
        ranges: Vec::with_capacity(found.len()),
        names: Vec::with_capacity(found.len()),
    };
    // Indices (in `out`) of the definitions enclosing the current one, innermost last, with
    // their end bytes.
    let mut open: Vec<(u32, usize)> = Vec::new();
    for Found {
        node,
        start,
        end: (end_byte, end),
        kind,
        name: name_node,
        ..
    } in found
    {
        let name_node = name_node.or_else(|| declared_name(node));
        let Some(name) = name_node.map(|n| clean_name(&source[n.byte_range()], language)) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        while open.last().is_some_and(|(_, end)| *end <= start) {
            open.pop();
        }
        let parent = open.last().map(|(index, _)| *index);
        let in_function = parent
            .and_then(|p| out.get(p as usize))
            .is_some_and(|p| matches!(p.kind, SymbolKind::Function | SymbolKind::Method));
        if in_function && is_macro_loop(language, node) {
            continue;
        }
        let kind = match (kind, parent.and_then(|p| out.get(p as usize))) {
            (SymbolKind::Function, Some(container)) if container.kind.holds_methods() => {
                SymbolKind::Method
            }
            _ => kind,
        };
        let line =
            name_node.map_or(node.start_position().row, |n| n.start_position().row) as u64 + 1;
        // A node that ends at the start of a line (a section ending before the next heading)
        // ends on the line before.
        let end_row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        };
        let Ok(index) = u32::try_from(out.len()) else {
            break;
        };
        out.push(Entry {
            kind,
            name,
            line,
            end_line: (end_row as u64 + 1).max(line),
            depth: u32::try_from(open.len()).unwrap_or(u32::MAX),
            parent,
        });
        open.push((index, end_byte));
        spans.ranges.push((start, end_byte));
        if let Some(name_node) = name_node {
            spans.names.push(name_node.start_byte());
        }
    }
    spans.names.sort_unstable();
    (out, spans)
}

/// Whether `node`, inside a function's body, is a loop macro the C or C++ grammar reads as a
/// function definition: `for_each_possible_cpu(cpu) { ... }` is, to C's, a definition of `cpu`
/// of type `for_each_possible_cpu` (a name in parentheses, no function declarator: no function
/// at all), and to C++'s one of `for_each_possible_cpu` without a type. A function in a body
/// with a function declarator stays (GNU C's nested functions, and the functions a broken
/// parse nests in the one before them); at the top of a file the same shape is a function with
/// a macro head (`SYSCALL_DEFINE0(pause) { ... }`), which is not in a body and stays.
fn is_macro_loop(language: Language, node: Node<'_>) -> bool {
    if node.kind() != "function_definition" {
        return false;
    }
    let declarator = node.child_by_field_name("declarator");
    match language {
        Language::C => declarator.is_some_and(|d| d.kind() == "parenthesized_declarator"),
        Language::Cpp => {
            node.child_by_field_name("type").is_none()
                && declarator.is_some_and(|d| {
                    d.kind() == "function_declarator"
                        && d.child_by_field_name("declarator")
                            .is_some_and(|name| name.kind() == "identifier")
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(language: Language, source: &str) -> Vec<String> {
        let parsed = parse(language, source.as_bytes(), Duration::from_secs(10)).expect("parses");
        parsed
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{}{} {}",
                    "  ".repeat(e.depth as usize),
                    e.kind.name(),
                    e.name
                )
            })
            .collect()
    }

    #[test]
    fn javascript_definitions_by_assignment_have_ctags_names_and_kinds() {
        // ctags (universal-ctags 5.9) tags each of these at its line with this name: a method
        // when given to a prototype or to `this`, a function when given to another object. In
        // a chain `a = b = function` ctags tags the first; the outline lists both (the second
        // inside the first, as its node is). An existing function given to a prototype is a
        // method there (ctags lists it); given to another object it is no definition.
        let source = "function C() { this.t = function () {}; }\n\
                      C.prototype.m = function () {};\n\
                      C.prototype.a = C.prototype.b = function () {};\n\
                      C.prototype.alias = other;\n\
                      C.prototype.x = C.prototype.y = other.y;\n\
                      obj.plain = other;\n\
                      module.exports.f = function () {};\n\
                      exports.g = () => 1;\n\
                      obj.h = async function () {};\n\
                      const o = { 'quoted': function () {}, plain: () => 2 };\n\
                      class K { field = () => {}; value = 3; }\n";
        let expected = [
            "function C",
            "  method t",
            "method m",
            "method a",
            "  method b",
            "method alias",
            "method x",
            "  method y",
            "function f",
            "function g",
            "function h",
            "method quoted",
            "method plain",
            "class K",
            "  method field",
        ];
        assert_eq!(outline(Language::JavaScript, source), expected);
        assert_eq!(outline(Language::TypeScript, source), expected);
    }

    #[test]
    fn each_language_names_its_definitions() {
        let cases: &[(Language, &str, &[&str])] = &[
            (
                Language::JavaScript,
                "class W { #p() {} m() {} }\nfunction f() {}\nconst g = () => 1;\nx.y = function () {};\nconst o = { k() {}, 'q'() {} };\n",
                &[
                    "class W",
                    "  method p",
                    "  method m",
                    "function f",
                    "function g",
                    "function y",
                    "method k",
                    "method q",
                ],
            ),
            (
                Language::TypeScript,
                "interface I { a(): void }\ntype T = string;\nenum E { A }\nnamespace N { export function f() {} }\nabstract class B { abstract r(): void }\n",
                &[
                    "interface I",
                    "  method a",
                    "type T",
                    "enum E",
                    "module N",
                    "  function f",
                    "class B",
                    "  method r",
                ],
            ),
            (
                Language::Tsx,
                "const App = () => <div/>;\n",
                &["function App"],
            ),
            (
                Language::Rust,
                "mod m { fn f() {} }\nstruct S;\nenum E {}\ntrait T { fn t(&self); }\nimpl<X> S<X> { fn new() {} }\nmacro_rules! mac { () => {} }\ntype A = u8;\nunion U { a: u8 }\n",
                &[
                    "module m",
                    "  function f",
                    "struct S",
                    "enum E",
                    "trait T",
                    "  method t",
                    "impl S",
                    "  method new",
                    "macro mac",
                    "type A",
                    "union U",
                ],
            ),
            (
                Language::Go,
                "package p\nfunc F() {}\nfunc (r *R) M() {}\ntype S struct{}\ntype I interface{}\ntype N int\n",
                &[
                    "function F",
                    "method M",
                    "struct S",
                    "interface I",
                    "type N",
                ],
            ),
            (
                Language::C,
                "#define MAX(a, b) a\nstruct s { int x; };\nstatic int *\nf(void) { return 0; }\ntypedef int t;\nSYSCALL_DEFINE1(open, int, x)\n{\n}\n",
                &[
                    "macro MAX",
                    "struct s",
                    "function f",
                    "type t",
                    "function SYSCALL_DEFINE1",
                ],
            ),
            (
                Language::Cpp,
                "namespace n { class C { void m() {} }; }\nint n::C::k() { return 0; }\n",
                &["module n", "  class C", "    method m", "function k"],
            ),
            (
                Language::Java,
                "class A { A() {} void m() {} @interface N { String value(); } enum E { X } }\n",
                &[
                    "class A",
                    "  method A",
                    "  method m",
                    "  interface N",
                    "    method value",
                    "  enum E",
                ],
            ),
            (
                Language::CSharp,
                "namespace N { class C { void M() { int L() => 1; } } struct S {} }\n",
                &[
                    "module N",
                    "  class C",
                    "    method M",
                    "      function L",
                    "  struct S",
                ],
            ),
            (
                Language::Ruby,
                "module M\n  class C\n    def m; end\n    def self.s; end\n  end\nend\n",
                &["module M", "  class C", "    method m", "    method s"],
            ),
            (
                Language::Php,
                "<?php\nnamespace A;\nclass C { function m() {} }\ntrait T {}\nfunction f() {}\n",
                &["module A", "class C", "  method m", "trait T", "function f"],
            ),
            (
                Language::Bash,
                "f() { :; }\nfunction g { :; }\n",
                &["function f", "function g"],
            ),
            (
                Language::Markdown,
                "# A\n\ntext\n\n## B\n\nSetext\n------\n",
                &["heading A", "  heading B", "    heading Setext"],
            ),
            (
                Language::Kotlin,
                "interface I {\n    fun a()\n}\n\nobject O {\n    fun b() {}\n}\n\nfun c() = 1\n",
                &[
                    "interface I",
                    "  method a",
                    "class O",
                    "  method b",
                    "function c",
                ],
            ),
            (
                Language::Swift,
                "protocol P { func p() }\nstruct S { func m() {} }\nextension S { func e() {} }\nfunc f() {}\n",
                &[
                    "trait P",
                    "  method p",
                    "struct S",
                    "  method m",
                    "impl S",
                    "  method e",
                    "function f",
                ],
            ),
        ];
        for (language, source, expected) in cases {
            assert_eq!(&outline(*language, source), expected, "{}", language.name());
        }
    }

    #[test]
    fn a_definition_spans_from_its_name_to_its_last_line() {
        let parsed = parse(
            Language::Python,
            b"@decorator\ndef f(\n    a,\n):\n    return a\n",
            Duration::from_secs(10),
        )
        .expect("parses");
        let f = &parsed.entries[0];
        assert_eq!((f.line, f.end_line), (2, 5));
        // A C function whose head is a macro ends with the block after it.
        let parsed = parse(
            Language::C,
            b"SYSCALL_DEFINE1(open, int, x)\n{\n\treturn x;\n}\nint g;\n",
            Duration::from_secs(10),
        )
        .expect("parses");
        let f = &parsed.entries[0];
        assert_eq!(
            (f.name.as_str(), f.line, f.end_line),
            ("SYSCALL_DEFINE1", 1, 4)
        );
    }

    #[test]
    fn a_loop_macro_in_a_body_is_no_definition() {
        // The grammar reads `for_each_possible_cpu(cpu) { ... }` as a function `cpu` nested in
        // `f`; at the top of the file the same shape is a function with a macro head.
        let source = "void f(void)\n{\n\tint cpu;\n\tfor_each_possible_cpu(cpu) {\n\t\tg(cpu);\n\t}\n\
                      #ifdef X\n\tfor_each_online_cpu(cpu) {\n\t\tg(cpu);\n\t}\n#endif\n}\n\
                      SYSCALL_DEFINE0(pause)\n{\n\treturn 0;\n}\n";
        assert_eq!(
            outline(Language::C, source),
            ["function f", "function pause"]
        );
        // C++'s grammar reads the macro head as a function's declarator, named by the macro.
        assert_eq!(
            outline(Language::Cpp, source),
            ["function f", "function SYSCALL_DEFINE0"]
        );
        // GNU C's nested functions have a function declarator: they stay.
        let nested = "int f(void)\n{\n\tint inner(int x) { return x; }\n\treturn inner(1);\n}\n";
        assert_eq!(
            outline(Language::C, nested),
            ["function f", "  function inner"]
        );
    }

    /// Inputs built to make a parser work: each comes back within its time cap (an outline or
    /// `Timeout`), whatever the grammar.
    #[test]
    fn hostile_inputs_are_bounded_by_the_time_cap() {
        let parens = "(".repeat(50_000);
        let nested = format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let braces = format!(
            "function f() {}{}\n",
            "{".repeat(30_000),
            "}".repeat(30_000)
        );
        let mut invalid = b"def f():\n    return '".to_vec();
        invalid.extend((0..20_000u32).map(|i| (i % 64 + 0x80) as u8));
        invalid.extend_from_slice(b"'\nclass After:\n    pass\n");
        let inputs: Vec<Vec<u8>> = vec![
            parens.into_bytes(),
            nested.into_bytes(),
            braces.into_bytes(),
            invalid,
        ];
        let cap = Duration::from_millis(300);
        for name in Language::NAMES {
            let Some(language) = Language::from_name(name) else {
                continue;
            };
            for input in &inputs {
                // The cap is CPU time: a loaded machine stretches the wall time, not this.
                let spent = Budget::start(cap * 10);
                let result = parse(language, input, cap);
                assert!(
                    matches!(result, Ok(_) | Err(ParseFailure::Timeout)),
                    "{name}: {result:?}"
                );
                // The cap plus one progress check's worth of work (debug builds are slow).
                assert!(!spent.spent(), "{name}: over ten times its cap");
            }
        }
        let parsed = parse(Language::Python, &inputs[3], Duration::from_secs(10)).expect("parses");
        assert!(parsed.entries.iter().any(|e| e.name == "After"));
    }

    #[test]
    fn a_time_cap_of_zero_stops_the_parse() {
        let source = "def f():\n    pass\n".repeat(5_000);
        assert_eq!(
            parse(Language::Python, source.as_bytes(), Duration::ZERO),
            Err(ParseFailure::Timeout)
        );
    }
}
