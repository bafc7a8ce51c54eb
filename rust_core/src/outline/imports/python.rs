//! Python's imports: `import a.b`, `import a as b`, `from . import x`,
//! `from ..m import (a, b as c)`, `from m import *`, at any depth of statements (an import in
//! a function or under `try:` binds as well as one at the top). `from m import a as b` is
//! also read as the import of the module `m.a` bound to `b`, which it is when `m` has a
//! submodule `a` (the resolver finds whether it has).

use tree_sitter::Node;

use super::{Form, Import, Visit, dotted, line, text};

/// Reads `node` as a Python statement: pushes its imports, and says whether statements can be
/// below it (blocks and compound statements; never an expression).
pub(super) fn statement(node: Node<'_>, source: &[u8], found: &mut Vec<Import>) -> Visit {
    match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                let (module, alias) = match name.kind() {
                    "aliased_import" => {
                        let Some(module) = name.child_by_field_name("name") else {
                            continue;
                        };
                        let alias = name.child_by_field_name("alias").map(|a| text(a, source));
                        (dotted(module, source), alias)
                    }
                    _ => {
                        // `import a.b` binds `a` (and loads `a.b`).
                        let module = dotted(name, source);
                        let first = module.split('.').next().unwrap_or_default().to_string();
                        (module, Some(first))
                    }
                };
                found.push(Import {
                    line: line(node),
                    form: Form::Python { level: 0 },
                    module,
                    names: Vec::new(),
                    alias,
                });
            }
            Visit::Skip
        }
        "import_from_statement" => {
            let Some(from) = node.child_by_field_name("module_name") else {
                return Visit::Skip;
            };
            let (level, module) = match from.kind() {
                "relative_import" => {
                    let mut cursor = from.walk();
                    let mut level = 0u8;
                    let mut module = String::new();
                    for part in from.named_children(&mut cursor) {
                        match part.kind() {
                            "import_prefix" => {
                                let dots = text(part, source).matches('.').count();
                                level = u8::try_from(dots).unwrap_or(u8::MAX);
                            }
                            "dotted_name" => module = dotted(part, source),
                            _ => {}
                        }
                    }
                    (level, module)
                }
                _ => (0, dotted(from, source)),
            };
            let mut names = Vec::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if child.kind() == "wildcard_import" {
                    names.push(("*".to_string(), "*".to_string()));
                }
            }
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind() {
                    "aliased_import" => {
                        let (Some(orig), Some(alias)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) else {
                            continue;
                        };
                        names.push((dotted(orig, source), text(alias, source)));
                    }
                    _ => {
                        let orig = dotted(name, source);
                        names.push((orig.clone(), orig));
                    }
                }
            }
            // `from m import a` binds `a` to the submodule `m.a` when `m` has one (Python
            // tries it when `m` defines no `a`): each name is that import too.
            let submodules: Vec<Import> = names
                .iter()
                .filter(|(orig, _)| orig != "*")
                .map(|(orig, local)| Import {
                    line: line(node),
                    form: Form::Python { level },
                    module: if module.is_empty() {
                        orig.clone()
                    } else {
                        format!("{module}.{orig}")
                    },
                    names: Vec::new(),
                    alias: Some(local.clone()),
                })
                .collect();
            found.push(Import {
                line: line(node),
                form: Form::Python { level },
                module,
                names,
                alias: None,
            });
            found.extend(submodules);
            Visit::Skip
        }
        "module"
        | "block"
        | "function_definition"
        | "class_definition"
        | "decorated_definition"
        | "if_statement"
        | "elif_clause"
        | "else_clause"
        | "try_statement"
        | "except_clause"
        | "except_group_clause"
        | "finally_clause"
        | "with_statement"
        | "for_statement"
        | "while_statement"
        | "match_statement"
        | "case_clause"
        | "ERROR" => Visit::Below,
        _ => Visit::Skip,
    }
}
