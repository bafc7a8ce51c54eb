//! The reference queries (`queries/references/*.scm`) matched by one walk of the parse tree,
//! for [`super::refs`].
//!
//! The queries are written in tree-sitter's query language, in the part of it a role needs:
//! nested nodes (`(kind ...)`, or `(_)` for any named node), field names (`field: (kind)`), one
//! capture per pattern (`@reference.ROLE`), an anchor (`.`) before the first child or after the
//! last, and comments (`;`). Children are matched in the order written, each a direct child of
//! its parent (with the field, when one is named; its first or last named child, when
//! anchored).
//!
//! A query cursor over them reports every identifier once per pattern it matches (the
//! catch-alls at the end of each query match them all), and that was most of a C file's
//! reference time. This walk visits each node once and tries on it, in the order written, only
//! the patterns that capture a node of its kind, each checked upwards along the node's
//! ancestors: the first that matches gives the node its role, as the query's first pattern
//! written does.

use std::num::NonZeroU16;
use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::{Node, TreeCursor};

use super::cap::{Budget, ParseFailure};
use super::lang::Language;
use super::role::Role;

/// Nodes visited between two looks at the budget.
const NODES_PER_CHECK: usize = 4096;

/// The pattern index [`RolePatterns::walk`] reports a macro's body under (C and C++'s
/// `preproc_arg` as a `#define`'s value: raw text, whose names [`super::defines`] reads).
pub(super) const MACRO_BODY: usize = usize::MAX;

/// The pattern index [`RolePatterns::walk`] reports a node of a kind C's definitions are under
/// (see [`super::cwalk`]): the tag query's work, done in the same walk.
pub(super) const DEFINITION_NODE: usize = usize::MAX - 1;

/// The compiled reference patterns of `language` (`None`: the language has none, as Markdown),
/// compiled once per process.
pub(super) fn role_patterns(
    language: Language,
) -> Result<Option<&'static RolePatterns>, ParseFailure> {
    const LANGUAGES: usize = Language::NAMES.len();
    static PATTERNS: [OnceLock<Result<Option<RolePatterns>, String>>; LANGUAGES] =
        [const { OnceLock::new() }; LANGUAGES];
    let Some(slot) = PATTERNS.get(usize::from(language.code())) else {
        return Err(ParseFailure::Grammar(format!(
            "no reference query for {}",
            language.name()
        )));
    };
    let compiled = slot.get_or_init(|| {
        language
            .reference_query_source()
            .map(|source| {
                RolePatterns::compile(language, source).map_err(|e| {
                    format!(
                        "the {} reference query does not compile: {e}",
                        language.name()
                    )
                })
            })
            .transpose()
    });
    match compiled {
        Ok(patterns) => Ok(patterns.as_ref()),
        Err(error) => Err(ParseFailure::Grammar(error.clone())),
    }
}

/// One node of a pattern.
struct Step {
    /// Its kind; `None` for `(_)`, any named node.
    kind: Option<u16>,
    /// The field its parent holds it in, when the pattern names one.
    field: Option<NonZeroU16>,
    /// Anchored (`.`) before it as its parent's first child step: its parent's first named child.
    first: bool,
    /// Anchored after it as its parent's last child step: its parent's last named child.
    last: bool,
    parent: Option<usize>,
    children: Vec<usize>,
}

/// One pattern: its steps (the outermost first), the one it captures and the role it gives.
struct Pattern {
    steps: Vec<Step>,
    captured: usize,
    role: Role,
}

/// A language's reference patterns, compiled against its grammar.
pub(super) struct RolePatterns {
    patterns: Vec<Pattern>,
    /// For each node kind, the patterns that capture a node of it, in the order written.
    by_kind: Vec<Vec<usize>>,
    /// The kind of a macro's raw body and the field a `#define` holds it in (C and C++).
    body: Option<(u16, NonZeroU16)>,
    /// By node kind, whether it is reported as [`DEFINITION_NODE`] (C's definitions).
    definitions: Vec<bool>,
}

impl RolePatterns {
    /// Compiles `source` (a reference query) for `language`'s grammar; an error names what is
    /// wrong (an unknown kind, field or role, or what the walk does not match).
    pub(super) fn compile(language: Language, source: &str) -> Result<RolePatterns, String> {
        let grammar = language.grammar();
        let mut reader = Reader {
            text: source.as_bytes(),
            at: 0,
        };
        let mut patterns = Vec::new();
        while reader.skip_space() {
            let mut steps = Vec::new();
            let mut captured = None;
            reader.node(&grammar, None, None, &mut steps, &mut captured)?;
            let (captured, role) =
                captured.ok_or_else(|| reader.error("a pattern captures nothing"))?;
            patterns.push(Pattern {
                steps,
                captured,
                role,
            });
        }
        let mut by_kind = vec![Vec::new(); grammar.node_kind_count()];
        for (i, pattern) in patterns.iter().enumerate() {
            match pattern.steps[pattern.captured].kind {
                Some(kind) => {
                    if let Some(list) = by_kind.get_mut(usize::from(kind)) {
                        list.push(i);
                    }
                }
                // `(_)`: a candidate on a node of any kind.
                None => by_kind.iter_mut().for_each(|list| list.push(i)),
            }
        }
        let body = match language {
            Language::C | Language::Cpp => grammar
                .field_id_for_name("value")
                .map(|field| (grammar.id_for_node_kind("preproc_arg", true), field)),
            _ => None,
        };
        let mut definitions = vec![false; grammar.node_kind_count()];
        if language == Language::C {
            for kind in super::cwalk::KINDS {
                if let Some(slot) =
                    definitions.get_mut(usize::from(grammar.id_for_node_kind(kind, true)))
                {
                    *slot = true;
                }
            }
        }
        Ok(RolePatterns {
            patterns,
            by_kind,
            body,
            definitions,
        })
    }

    /// Calls `found(pattern, role, node)` for each node that starts in `window` and that a
    /// pattern matches, with the first such pattern in the order written (its index, as the
    /// query's), and `found(MACRO_BODY, Role::Other, node)` for each macro body. Nodes outside
    /// `window` are not visited. `false` when `budget` ran out first.
    pub(super) fn walk<'tree>(
        &self,
        root: Node<'tree>,
        window: &Range<usize>,
        budget: &Budget,
        found: &mut dyn FnMut(usize, Role, Node<'tree>),
    ) -> bool {
        let within =
            |node: Node<'_>| node.start_byte() < window.end && node.end_byte() >= window.start;
        let mut cursor = root.walk();
        // The current node's ancestors and itself, each with the field its parent holds it in.
        let mut path: Vec<(Node<'tree>, Option<NonZeroU16>)> = vec![(root, None)];
        let mut visited = 0usize;
        loop {
            visited += 1;
            if visited.is_multiple_of(NODES_PER_CHECK) && budget.spent() {
                return false;
            }
            if let Some(&(node, _)) = path.last()
                && self.definitions.get(usize::from(node.kind_id())) == Some(&true)
                && window.contains(&node.start_byte())
            {
                found(DEFINITION_NODE, Role::Other, node);
            }
            if let Some(&(node, field)) = path.last()
                && let Some((kind, value)) = self.body
                && node.kind_id() == kind
                && field == Some(value)
                && window.contains(&node.start_byte())
            {
                found(MACRO_BODY, Role::Other, node);
            } else if let Some(&(node, _)) = path.last()
                && window.contains(&node.start_byte())
                && let Some(candidates) = self.by_kind.get(usize::from(node.kind_id()))
                && let Some(&first) = candidates.iter().find(|&&i| self.matches(i, &path))
            {
                found(first, self.patterns[first].role, node);
            }
            // On to the next node in the window, depth first.
            if cursor.goto_first_child() {
                if first_within(&mut cursor, &within) {
                    path.push((cursor.node(), cursor.field_id()));
                    continue;
                }
                cursor.goto_parent();
            }
            loop {
                if path.len() <= 1 {
                    return true;
                }
                if cursor.goto_next_sibling() && first_within(&mut cursor, &within) {
                    if let Some(last) = path.last_mut() {
                        *last = (cursor.node(), cursor.field_id());
                    }
                    break;
                }
                cursor.goto_parent();
                path.pop();
            }
        }
    }

    /// Whether pattern `index` matches with its captured step on the last node of `path`.
    fn matches(&self, index: usize, path: &[(Node<'_>, Option<NonZeroU16>)]) -> bool {
        let pattern = &self.patterns[index];
        let mut step = pattern.captured;
        let mut depth = path.len();
        loop {
            let Some(below) = depth.checked_sub(1) else {
                return false;
            };
            depth = below;
            let (node, field) = path[depth];
            let at = &pattern.steps[step];
            if !fits(at, node, field) {
                return false;
            }
            let Some(parent) = at.parent else {
                return true;
            };
            let Some(&(above, _)) = depth.checked_sub(1).and_then(|up| path.get(up)) else {
                return false;
            };
            let children = &pattern.steps[parent].children;
            if children.len() > 1 && !siblings_fit(pattern, children, step, above, node) {
                return false;
            }
            step = parent;
        }
    }
}

/// Moves `cursor` along its siblings to the first (from where it is) that `within` keeps;
/// `false` (on the last sibling) when none does.
fn first_within(cursor: &mut TreeCursor<'_>, within: &dyn Fn(Node<'_>) -> bool) -> bool {
    loop {
        if within(cursor.node()) {
            return true;
        }
        if !cursor.goto_next_sibling() {
            return false;
        }
    }
}

/// Whether `step` matches `node` (held in `field`), its children apart.
fn fits(step: &Step, node: Node<'_>, field: Option<NonZeroU16>) -> bool {
    let kind = match step.kind {
        Some(kind) => node.kind_id() == kind,
        None => node.is_named(),
    };
    kind && (step.field.is_none() || step.field == field)
        && (!step.first || node.prev_named_sibling().is_none())
        && (!step.last || node.next_named_sibling().is_none())
}

/// The children of `node`, each with the field it holds it in.
fn children_of<'tree>(node: Node<'tree>) -> Vec<(Node<'tree>, Option<NonZeroU16>)> {
    let mut cursor = node.walk();
    let mut children = Vec::new();
    if cursor.goto_first_child() {
        loop {
            children.push((cursor.node(), cursor.field_id()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    children
}

/// Whether the steps `children` of one pattern node match the children of `parent`, in order,
/// with step `fixed` on its child `node`.
fn siblings_fit(
    pattern: &Pattern,
    children: &[usize],
    fixed: usize,
    parent: Node<'_>,
    node: Node<'_>,
) -> bool {
    let actual = children_of(parent);
    let (Some(at), Some(place)) = (
        children.iter().position(|&c| c == fixed),
        actual.iter().position(|(child, _)| *child == node),
    ) else {
        return false;
    };
    in_order(pattern, &children[..at], &actual[..place])
        && in_order(pattern, &children[at + 1..], &actual[place + 1..])
}

/// Whether the steps match distinct nodes of `actual`, in order.
fn in_order(pattern: &Pattern, steps: &[usize], actual: &[(Node<'_>, Option<NonZeroU16>)]) -> bool {
    let mut rest = actual.iter();
    steps
        .iter()
        .all(|&step| rest.any(|&(node, field)| fits_down(pattern, step, node, field)))
}

/// Whether step `step` and the steps under it match `node` (held in `field`) and its children.
fn fits_down(pattern: &Pattern, step: usize, node: Node<'_>, field: Option<NonZeroU16>) -> bool {
    let at = &pattern.steps[step];
    fits(at, node, field)
        && (at.children.is_empty() || in_order(pattern, &at.children, &children_of(node)))
}

/// Reads a query's text.
struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} (at byte {})", self.at)
    }

    /// Skips white space and comments; `false` at the end.
    fn skip_space(&mut self) -> bool {
        while let Some(&b) = self.text.get(self.at) {
            if b == b';' {
                while self.text.get(self.at).is_some_and(|&b| b != b'\n') {
                    self.at += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.at += 1;
            } else {
                return true;
            }
        }
        false
    }

    fn word(&mut self) -> &str {
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at]).unwrap_or("")
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_space();
        if self.text.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("`{}` expected", byte as char)))
        }
    }

    /// Reads one node (its parenthesised form and any capture after it) into `steps`.
    fn node(
        &mut self,
        grammar: &tree_sitter::Language,
        parent: Option<usize>,
        field: Option<NonZeroU16>,
        steps: &mut Vec<Step>,
        captured: &mut Option<(usize, Role)>,
    ) -> Result<(), String> {
        self.expect(b'(')?;
        self.skip_space();
        let name = self.word().to_string();
        let kind = match name.as_str() {
            "_" => None,
            "" => return Err(self.error("a node kind expected")),
            name => match grammar.id_for_node_kind(name, true) {
                0 => return Err(self.error(&format!("no node kind `{name}`"))),
                kind => Some(kind),
            },
        };
        let index = steps.len();
        steps.push(Step {
            kind,
            field,
            first: false,
            last: false,
            parent,
            children: Vec::new(),
        });
        if let Some(parent) = parent {
            steps[parent].children.push(index);
        }
        let mut anchored = false;
        loop {
            self.skip_space();
            if anchored
                && self.text.get(self.at) != Some(&b')')
                && !steps[index].children.is_empty()
            {
                return Err(self.error("an anchor between children (the walk matches none)"));
            }
            let before = steps[index].children.len();
            match self.text.get(self.at) {
                Some(b')') => {
                    self.at += 1;
                    if anchored && let Some(&child) = steps[index].children.last() {
                        steps[child].last = true;
                    }
                    break;
                }
                Some(b'.') => {
                    self.at += 1;
                    anchored = true;
                    continue;
                }
                Some(b'(') => self.node(grammar, Some(index), None, steps, captured)?,
                Some(_) => {
                    let name = self.word().to_string();
                    let field = grammar
                        .field_id_for_name(&name)
                        .ok_or_else(|| self.error(&format!("no field `{name}`")))?;
                    self.expect(b':')?;
                    self.node(grammar, Some(index), Some(field), steps, captured)?;
                }
                None => return Err(self.error("`)` expected")),
            }
            if anchored
                && before == 0
                && let Some(&child) = steps[index].children.first()
            {
                steps[child].first = true;
            }
            anchored = false;
        }
        self.skip_space();
        if self.text.get(self.at) == Some(&b'@') {
            self.at += 1;
            let capture = self.word().to_string();
            let role = capture
                .strip_prefix("reference.")
                .and_then(Role::from_name)
                .ok_or_else(|| self.error(&format!("an unknown role @{capture}")))?;
            if captured.replace((index, role)).is_some() {
                return Err(self.error("a pattern captures twice"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use tree_sitter::{Query, QueryCursor, StreamingIterator};

    use super::*;

    /// Node start byte -> (pattern, role) of the references of `source`'s bytes in `window`,
    /// by tree-sitter's query cursor over the reference query: the matcher the walk replaced,
    /// kept here as the walk's oracle.
    fn query_roles(
        language: Language,
        root: Node<'_>,
        source: &[u8],
        window: &Range<usize>,
    ) -> BTreeMap<usize, (usize, Role)> {
        let text = language.reference_query_source().expect("a query");
        let query = Query::new(&language.grammar(), text).expect("compiles");
        let roles: Vec<Option<Role>> = query
            .capture_names()
            .iter()
            .map(|c| c.strip_prefix("reference.").and_then(Role::from_name))
            .collect();
        let mut out: BTreeMap<usize, (usize, Role)> = BTreeMap::new();
        let mut cursor = QueryCursor::new();
        cursor.set_byte_range(window.clone());
        let mut matches = cursor.matches(&query, root, source);
        while let Some(found) = matches.next() {
            for capture in found.captures {
                let start = capture.node.start_byte();
                let Some(Some(role)) = roles.get(capture.index as usize) else {
                    continue;
                };
                if !window.contains(&start) {
                    continue;
                }
                let held = out.entry(start).or_insert((found.pattern_index, *role));
                if found.pattern_index < held.0 {
                    *held = (found.pattern_index, *role);
                }
            }
        }
        out
    }

    /// The same by the walk.
    fn walked_roles(
        language: Language,
        root: Node<'_>,
        window: &Range<usize>,
    ) -> BTreeMap<usize, (usize, Role)> {
        let patterns = role_patterns(language).expect("compiles").expect("a query");
        let mut out: BTreeMap<usize, (usize, Role)> = BTreeMap::new();
        let budget = Budget::start(Duration::from_secs(600));
        let walked = patterns.walk(root, window, &budget, &mut |pattern, role, node| {
            if pattern == MACRO_BODY || pattern == DEFINITION_NODE {
                return;
            }
            let held = out.entry(node.start_byte()).or_insert((pattern, role));
            if pattern < held.0 {
                *held = (pattern, role);
            }
        });
        assert!(walked);
        out
    }

    /// Whether the walk and the query give every node of `source` the same role, on the whole
    /// file and on a window in its middle (as a restarted parse gives).
    fn walk_agrees(language: Language, source: &[u8]) -> Result<usize, String> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar()).expect("grammar");
        let tree = parser.parse(source, None).expect("parses");
        let third = source.len() / 3;
        let mut count = 0;
        for window in [0..source.len(), third..2 * third] {
            let queried = query_roles(language, tree.root_node(), source, &window);
            let walked = walked_roles(language, tree.root_node(), &window);
            if queried != walked {
                let first = queried
                    .iter()
                    .zip(&walked)
                    .find(|(q, w)| q != w)
                    .map(|(q, w)| format!("query {q:?}, walk {w:?}"));
                return Err(format!(
                    "{} {window:?}: {} vs {} references, first difference {first:?}",
                    language.name(),
                    queried.len(),
                    walked.len()
                ));
            }
            count += walked.len();
        }
        Ok(count)
    }

    /// A few lines of every language with a reference query, each of its roles used, a broken
    /// construct among them.
    const CORPUS: &[(Language, &str)] = &[
        (
            Language::C,
            "#include <a.h>\n#define N 4\n#define F(x, y) ((x) + (y))\nstruct s { int a, *b, c[N]; int (*op)(int); };\n\
             enum e { A, B = 2 };\ntypedef struct s s_t;\nstatic int g = 1, *h, k[2] = {0};\nint p(int q, char *r);\n\
             int (*fp)(void);\nint main(int argc, char **argv) {\n\tstruct s v = {0}; s_t *w = &v;\n\
             \tv.a = argc; w->c[0]++; --g; (f)(1); w->op(2); sizeof(s_t); (int)g;\n\
             \tlist_for_each_entry(pos, head, member) { x += y; }\n\tdo { h = 0; } while_each(t, u);\n\
             \tfor (int i = 0; i < N; i++) v.b = &i;\n\treturn F(g, k[1]) ? p(1, 0) : 0;\n}\nint broken( {\n",
        ),
        (
            Language::Cpp,
            "#include <v>\nnamespace n { class A : public B { public: A(); int m(int x) const; int f; }; }\n\
             using n::A;\ntemplate <typename T> T g(T t) { return t; }\n\
             int A::m(int x) const { auto *p = new A(); std::vector<int> v; v.push_back(g<int>(x)); \
             n::h(); p->t<int>(); f = x; f++; return this->f; }\n",
        ),
        (
            Language::Python,
            "import os.path as p, sys\nfrom .m import (a, b as c)\nfrom x.y import z\n@deco\n@mod.deco(1)\n\
             class A(Base, mod.Mixin):\n    f: int = 1\n    def m(self, x: list[int] = 1, *a, **k) -> Optional[str] | None:\n\
             \x20       global G\n        y, (z, w) = loads(x), 2\n        self.q += p.join(k['a'], key=1)\n\
             \x20       for i, j in items(): print(i)\n        with open(x) as fh: pass\n\
             \x20       lam = lambda u, v=2: u + v\n        return [t for t in y if (n := t)]\n    def broken(:\n",
        ),
        (
            Language::Rust,
            "use std::io::{self, Read as R};\nuse a::b;\nstruct S { f: u8 }\nenum E { A, B(u8) }\n\
             fn f<T: Tr>(x: &mut S, y: T) -> Vec<T> {\n    let a = x.f; let b; let mut c: u8 = 1;\n\
             \x20   x.f = 2; c += 1; b = g(a); h::<u8>(); m::n(); x.m(); x.g::<T>(); m::k::<T>(); v!(a); s::v!();\n\
             \x20   vec![y]\n}\nimpl Tr for S { fn t(&self) {} }\nfn broken( {\n",
        ),
        (
            Language::Go,
            "package p\nimport (\n\tf \"fmt\"\n\t\"os\"\n)\nconst C = 1\nvar v int\nvar w = 2\ntype T struct { A int }\n\
             func (t *T) M(a int, b ...string) (int, error) {\n\tx, y := 1, 2\n\tt.A = x; t.A++; y--; v++\n\
             \tfor i := range b { f.Println(i) }\n\tz := g[int](a)\n\treturn os.Exit(z), nil\n}\n",
        ),
        (
            Language::Java,
            "import a.b.C;\nclass A<T> extends B implements I {\n  int f = 1; static C g;\n\
             \x20 A(int x) { super(x); this.f = x; }\n  <U> U m(T t, U... us) { int y = 2; y++; f += y;\n\
             \x20   g.h(new C()); C.s(); return (U) us[0]; }\n  enum E { X, Y }\n}\n",
        ),
        (
            Language::JavaScript,
            "import d, { a as b, c } from 'm';\nconst x = require('y');\nclass A extends B {\n  #p = 1;\n\
             \x20 m(u, v = 2, ...w) { this.#p = u; this.q += 1; x.f(v); new A(); g?.(); let [e, f] = w; return e; }\n}\n\
             function h() { for (const k of list) k++; }\nexport default h;\n",
        ),
        (
            Language::TypeScript,
            "import { A, type B } from './m';\ninterface I { f: number; m(x: string): void }\n\
             type T = A | B<I>;\nenum E { X }\nclass C<U> implements I { f = 1; private g: U;\n\
             \x20 m(x: string): void { this.f = x.length; h<U>(x); new C<number>(); } }\n\
             function k(a: T, b?: number): a is A { return (a as A).z(); }\n",
        ),
        (
            Language::Tsx,
            "import R from 'react';\nconst F = ({ a }: P) => { const [s, set] = useState(0); \
             return <div onClick={() => set(s + 1)}>{a.b(s)}</div>; };\nexport default F;\n",
        ),
        (
            Language::CSharp,
            "using System.IO;\nnamespace N { class A : B, I { int f = 1; public int P { get; set; }\n\
             \x20 void M(int x, ref int y) { var z = x; f = z; y++; G(z); this.H(); new A(); N.K.S(); }\n\
             \x20 enum E { X } } }\n",
        ),
        (
            Language::Ruby,
            "require 'x'\nmodule M\n  class A < B\n    attr_reader :a\n    def m(x, y = 1, *z)\n\
             \x20     @v = x; w = y; w += 1; g(x); x.h; A.new; self.k = 2\n    end\n  end\nend\n",
        ),
        (
            Language::Php,
            "<?php\nnamespace N;\nuse A\\B;\nclass C extends D { private $p = 1;\n\
             \x20 function m($x, int $y = 2) { $z = $x; $this->p = $z; $z++; f($z); $this->g(); C::h(); new C(); } }\n",
        ),
        (
            Language::Bash,
            "#!/bin/sh\nf() { local a=1; b=$a; g \"$b\"; echo ${c:-d}; }\nf; x=$(h 1)\n",
        ),
        (
            Language::Kotlin,
            "package p\nimport a.B\nclass C(val x: Int) : D() { var y = 1\n\
             \x20 fun m(z: String): Int { val w = z.length; y = w; y++; g(w); x.h(); return C(1).x } }\n",
        ),
        (
            Language::Swift,
            "import Foundation\nclass C: D { var x = 1\n  func m(y: Int) -> Int { let z = y; x = z; g(z); \
             self.h(); return C().x } }\n",
        ),
    ];

    #[test]
    fn the_walk_gives_every_node_the_role_the_query_gives() {
        for (language, source) in CORPUS {
            let count = walk_agrees(*language, source.as_bytes());
            assert!(count.as_ref().is_ok_and(|n| *n > 5), "{count:?}");
        }
        // The engine's own sources: the outline's Rust files and the package's Python ones.
        let repository = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = 0;
        for (directory, language, extension) in [
            ("rust_core/src/outline", Language::Rust, "rs"),
            ("python/ripsight", Language::Python, "py"),
        ] {
            let mut pending = vec![repository.join(directory)];
            while let Some(directory) = pending.pop() {
                for entry in std::fs::read_dir(&directory).expect("reads").flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        pending.push(path);
                    } else if path.extension().is_some_and(|e| e == extension) {
                        let source = std::fs::read(&path).expect("reads");
                        assert_eq!(
                            walk_agrees(language, &source).map(|_| ()),
                            Ok(()),
                            "{path:?}"
                        );
                        files += 1;
                    }
                }
            }
        }
        assert!(files > 40, "{files}");
    }
}
