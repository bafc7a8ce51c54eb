//! C's definitions without the tag query: what `queries/c.scm` matches, read off the nodes the
//! reference walk meets ([`super::roles`] reports the nodes of [`KINDS`]) and off the top level
//! of the file, so a C file parsed whole with its references is walked once. A query cursor
//! over the tag query cost as much as the whole reference walk; this costs a look at a few
//! fields of the nodes it is given.
//!
//! The patterns, in the query's order (the order is a definition's `pattern`):
//! 0. `(function_definition)`;
//! 1.–3. a struct, union or enum specifier with a name (`type_identifier`) and a body
//!    (`field_declaration_list`, `enumerator_list`);
//! 4. `(type_definition)`;
//! 5. a function-like macro with its name;
//! 6. at the top of the file, a call statement whose function is an identifier, followed by a
//!    block as the next named node (a function with a macro head, `SYSCALL_DEFINE3(...) {...}`).
//!
//! A test holds it to the query on every C file of a tree (`RIPSIGHT_DEFINES_TREE`), and the
//! engine's own tests of C outlines run through it.

use tree_sitter::{Node, Point};

use super::SymbolKind;

/// A definition node a query pattern matched.
pub(super) struct Found<'tree> {
    pub(super) node: Node<'tree>,
    /// Its first byte.
    pub(super) start: usize,
    /// Its end byte and position: the node's, or where the next part of the file's parse
    /// begins when the node runs past it ([`Part::cut`](super::recover::Part::cut)).
    pub(super) end: (usize, Point),
    pub(super) kind: SymbolKind,
    /// Its `@name` capture.
    pub(super) name: Option<Node<'tree>>,
    /// The pattern's place in the query: where two match one node, the first written wins
    /// (queries put the more telling kind first, as Go's struct before its plain type).
    pub(super) pattern: usize,
}

/// The node kinds the reference walk reports for this module, in the patterns' order.
pub(super) const KINDS: &[&str] = &[
    "function_definition",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "type_definition",
    "preproc_function_def",
];

/// The definitions among `nodes` (of [`KINDS`], from the walk of `root`'s tree) and at the top
/// of `root`, into `found`.
pub(super) fn definitions<'tree>(
    nodes: &[Node<'tree>],
    root: Node<'tree>,
    found: &mut Vec<Found<'tree>>,
) {
    let field = |node: Node<'tree>, name: &str, kind: &str| {
        node.child_by_field_name(name).filter(|c| c.kind() == kind)
    };
    for &node in nodes {
        let (pattern, kind, name) = match node.kind() {
            "function_definition" => (0, SymbolKind::Function, None),
            "type_definition" => (4, SymbolKind::Type, None),
            "preproc_function_def" => match field(node, "name", "identifier") {
                Some(name) => (5, SymbolKind::Macro, Some(name)),
                None => continue,
            },
            tagged => {
                let (pattern, kind, body) = match tagged {
                    "struct_specifier" => (1, SymbolKind::Struct, "field_declaration_list"),
                    "union_specifier" => (2, SymbolKind::Union, "field_declaration_list"),
                    "enum_specifier" => (3, SymbolKind::Enum, "enumerator_list"),
                    _ => continue,
                };
                match field(node, "name", "type_identifier") {
                    Some(name) if field(node, "body", body).is_some() => {
                        (pattern, kind, Some(name))
                    }
                    _ => continue,
                }
            }
        };
        found.push(Found {
            node,
            start: node.start_byte(),
            end: (node.end_byte(), node.end_position()),
            kind,
            name,
            pattern,
        });
    }
    if root.kind() != "translation_unit" {
        return;
    }
    // The top level's named nodes in order: a macro head, then its block.
    let mut cursor = root.walk();
    let mut head: Option<(Node<'tree>, Node<'tree>)> = None;
    if !cursor.goto_first_child() {
        return;
    }
    loop {
        let node = cursor.node();
        if node.is_named() {
            if let Some((statement, name)) = head.take()
                && node.kind() == "compound_statement"
            {
                let last = if node.end_byte() > statement.end_byte() {
                    node
                } else {
                    statement
                };
                found.push(Found {
                    node: statement,
                    start: statement.start_byte(),
                    end: (last.end_byte(), last.end_position()),
                    kind: SymbolKind::Function,
                    name: Some(name),
                    pattern: 6,
                });
            }
            head = macro_head(node).map(|name| (node, name));
        }
        if !cursor.goto_next_sibling() {
            break;
        }
    }
}

/// The name of the function `node` calls, when it is a statement that calls one by name.
fn macro_head(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() != "expression_statement" {
        return None;
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|child| child.kind() == "call_expression")
        .find_map(|call| {
            call.child_by_field_name("function")
                .filter(|f| f.kind() == "identifier")
        })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::lang::Language;
    use super::super::parse::{BY_QUERY, MAX_RESTARTS, Parsed, parse_restarting};

    /// The parse of `source` with references, its C definitions by this module and by the
    /// tag query.
    fn both(source: &[u8]) -> (Parsed, Parsed) {
        let parse = || {
            parse_restarting(
                Language::C,
                source,
                Duration::from_secs(60),
                true,
                MAX_RESTARTS,
            )
            .expect("parses")
        };
        let walked = parse();
        BY_QUERY.with(|q| q.set(true));
        let queried = parse();
        BY_QUERY.with(|q| q.set(false));
        (walked, queried)
    }

    #[test]
    fn every_pattern_gives_what_the_query_gives() {
        let source = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
            struct s { int x; struct inner { int y; } i; };\n\
            union u { int a; float b; };\n\
            enum e { A, B };\n\
            struct declared_only;\n\
            typedef struct s s_t;\n\
            static int *f(void) { struct local { int z; } l; return 0; }\n\
            SYSCALL_DEFINE1(open, int, x)\n{\n\treturn x;\n}\n\
            EXPORT_SYMBOL(f);\n\
            NOT_A_HEAD(x) /* a comment between */ { }\n\
            int after(void) { return MAX(1, 2); }\n";
        let (walked, queried) = both(source.as_bytes());
        assert_eq!(walked, queried);
        let names: Vec<&str> = walked.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "MAX",
                "s",
                "inner",
                "u",
                "e",
                "s_t",
                "f",
                "local",
                "SYSCALL_DEFINE1",
                // `NOT_A_HEAD(x) /* ... */ { }`: to the grammar, a function `x` of type
                // `NOT_A_HEAD` (a name in parentheses), to the query and the walk alike.
                "x",
                "after"
            ]
        );
    }

    /// Every C file of the tree (`RIPSIGHT_DEFINES_TREE`): the walk's definitions and the
    /// query's give one answer (`cargo test --release --lib cwalk -- --ignored`).
    #[test]
    #[ignore = "reads a whole tree; set RIPSIGHT_DEFINES_TREE"]
    fn the_walk_agrees_with_the_query_on_a_tree() {
        let (mut files, mut differ) = (0, Vec::new());
        let walked = crate::outline::defines::tests::each_c_file_of_tree(&mut |path, source| {
            files += 1;
            let (walked, queried) = both(&source);
            if walked != queried {
                differ.push(path);
            }
        });
        if !walked {
            return;
        }
        assert!(files > 0);
        assert!(
            differ.is_empty(),
            "{} of {files}: {:?}",
            differ.len(),
            &differ[..differ.len().min(20)]
        );
    }
}
