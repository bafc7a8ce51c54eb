//! Go's imports and package: `package x`, `import "p"`, grouped imports `import ( … )`, and
//! named ones: `import f "fmt"` (an alias), `import _ "p"` (bound to nothing),
//! `import . "p"` (every exported name of `p`, as a `*`).

use tree_sitter::Node;

use super::{Form, Import, Visit, statement_import, text};

/// Reads a top-level declaration of a Go file (and the specs of an import group).
pub(super) fn statement(node: Node<'_>, source: &[u8], found: &mut Vec<Import>) -> Visit {
    match node.kind() {
        "package_clause" => {
            let mut cursor = node.walk();
            let name = node
                .named_children(&mut cursor)
                .find(|n| n.kind() == "package_identifier");
            if let Some(name) = name {
                found.push(statement_import(node, Form::Package, text(name, source)));
            }
            Visit::Skip
        }
        "import_declaration" | "import_spec_list" => Visit::Below,
        "import_spec" => {
            let Some(path) = node.child_by_field_name("path") else {
                return Visit::Skip;
            };
            let quoted = text(path, source);
            let module = quoted.trim_matches(|c| c == '"' || c == '`').to_string();
            let mut import = statement_import(node, Form::Go, module);
            match node.child_by_field_name("name") {
                Some(name) if name.kind() == "dot" => {
                    import.names.push(("*".to_string(), "*".to_string()));
                }
                Some(name) => import.alias = Some(text(name, source)),
                None => {}
            }
            found.push(import);
            Visit::Skip
        }
        _ => Visit::Skip,
    }
}
