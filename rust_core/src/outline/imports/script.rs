//! JavaScript's and TypeScript's imports: `import x from "m"`, `import { a as b } from "m"`,
//! `import * as ns from "m"`, `import "m"`, `import type …`, TypeScript's
//! `import x = require("m")`, `export { a } from "m"`, `export * from "m"`,
//! `export * as ns from "m"`, `require("m")` (bound to a name, destructured, or a property of
//! it taken; or the value of an object's property `{ name: require("m") }` or of
//! `exports.name`, the module bound to `name`), `module.exports = require("m")` (a re-export
//! of the whole module) and dynamic `import("m")`.

use tree_sitter::Node;

use super::{Form, Import, Visit, statement_import, text};

/// Reads `node`: pushes the import it is, if it is one, and says whether to look below it
/// (`require` and `import()` are calls, anywhere in an expression).
pub(super) fn statement(node: Node<'_>, source: &[u8], found: &mut Vec<Import>) -> Visit {
    match node.kind() {
        "import_statement" => {
            if let Some(import) = import_statement(node, source) {
                found.push(import);
            }
            Visit::Skip
        }
        "export_statement" => match node.child_by_field_name("source") {
            Some(from) => {
                found.push(reexport(node, from, source));
                Visit::Skip
            }
            None => Visit::Below,
        },
        "call_expression" => {
            if let Some(import) = call(node, source) {
                found.push(import);
            }
            Visit::Below
        }
        "comment" | "string" | "template_string" | "regex" | "number" => Visit::Skip,
        _ => Visit::Below,
    }
}

/// The module a string node names (its text without the quotes).
fn module(string: Node<'_>, source: &[u8]) -> String {
    let quoted = text(string, source);
    let mut chars = quoted.chars();
    chars.next();
    chars.next_back();
    chars.as_str().to_string()
}

/// `import … from "m"`, `import "m"`, `import x = require("m")`.
fn import_statement(node: Node<'_>, source: &[u8]) -> Option<Import> {
    let mut import = statement_import(node, Form::Script { reexport: false }, String::new());
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "import_clause" => clause(child, source, &mut import),
            "import_require_clause" => {
                let mut inner = child.walk();
                for part in child.named_children(&mut inner) {
                    if part.kind() == "identifier" && import.alias.is_none() {
                        import.alias = Some(text(part, source));
                    }
                }
                import.module = module(child.child_by_field_name("source")?, source);
            }
            _ => {}
        }
    }
    if let Some(from) = node.child_by_field_name("source") {
        import.module = module(from, source);
    }
    (!import.module.is_empty()).then_some(import)
}

/// The names an `import_clause` binds, into `import`.
fn clause(node: Node<'_>, source: &[u8], import: &mut Import) {
    let mut cursor = node.walk();
    for part in node.named_children(&mut cursor) {
        match part.kind() {
            "identifier" => import
                .names
                .push(("default".to_string(), text(part, source))),
            "namespace_import" => {
                let mut inner = part.walk();
                import.alias = part
                    .named_children(&mut inner)
                    .find(|n| n.kind() == "identifier")
                    .map(|n| text(n, source));
            }
            "named_imports" => {
                let mut inner = part.walk();
                for specifier in part.named_children(&mut inner) {
                    if specifier.kind() != "import_specifier" {
                        continue;
                    }
                    if let Some(pair) = specifier_names(specifier, source) {
                        import.names.push(pair);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `(name, alias)` of an import or export specifier (the alias is the name when there is none).
fn specifier_names(specifier: Node<'_>, source: &[u8]) -> Option<(String, String)> {
    let spelled = |n: Node<'_>| match n.kind() {
        "string" => module(n, source),
        _ => text(n, source),
    };
    let name = spelled(specifier.child_by_field_name("name")?);
    let alias = specifier
        .child_by_field_name("alias")
        .map_or_else(|| name.clone(), spelled);
    Some((name, alias))
}

/// `export { a, b as c } from "m"`, `export * from "m"`, `export * as ns from "m"`.
fn reexport(node: Node<'_>, from: Node<'_>, source: &[u8]) -> Import {
    let mut import = statement_import(node, Form::Script { reexport: true }, module(from, source));
    let mut cursor = node.walk();
    let mut named = false;
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "export_clause" => {
                named = true;
                let mut inner = child.walk();
                for specifier in child.named_children(&mut inner) {
                    if specifier.kind() != "export_specifier" {
                        continue;
                    }
                    if let Some(pair) = specifier_names(specifier, source) {
                        import.names.push(pair);
                    }
                }
            }
            "namespace_export" => {
                named = true;
                let mut inner = child.walk();
                import.alias = child
                    .named_children(&mut inner)
                    .last()
                    .map(|n| match n.kind() {
                        "string" => module(n, source),
                        _ => text(n, source),
                    });
            }
            _ => {}
        }
    }
    if !named {
        import.names.push(("*".to_string(), "*".to_string()));
    }
    import
}

/// `require("m")` or `import("m")` with one string argument, and what it is bound to.
fn call(node: Node<'_>, source: &[u8]) -> Option<Import> {
    let function = node.child_by_field_name("function")?;
    let dynamic = match function.kind() {
        "import" => true,
        "identifier" if &source[function.byte_range()] == b"require" => false,
        _ => return None,
    };
    let arguments = node.child_by_field_name("arguments")?;
    if arguments.named_child_count() != 1 {
        return None;
    }
    let argument = arguments.named_child(0)?;
    if argument.kind() != "string" {
        return None;
    }
    let mut import = statement_import(
        node,
        Form::Script { reexport: false },
        module(argument, source),
    );
    // What the module (or one property of it) is bound to.
    let mut value = node;
    let mut property = None;
    let mut parent = node.parent()?;
    if dynamic && parent.kind() == "await_expression" {
        value = parent;
        parent = parent.parent()?;
    }
    if parent.kind() == "member_expression"
        && parent.child_by_field_name("object").map(|o| o.id()) == Some(value.id())
    {
        property = parent
            .child_by_field_name("property")
            .map(|p| text(p, source));
        value = parent;
        parent = parent.parent()?;
    }
    let target = match parent.kind() {
        "variable_declarator"
            if parent.child_by_field_name("value").map(|v| v.id()) == Some(value.id()) =>
        {
            parent.child_by_field_name("name")
        }
        "assignment_expression"
            if parent.child_by_field_name("right").map(|v| v.id()) == Some(value.id()) =>
        {
            parent.child_by_field_name("left")
        }
        // `{ clean: require("./clean") }`: the module as a property of an object (of
        // `module.exports`, a re-export under that name).
        "pair" if parent.child_by_field_name("value").map(|v| v.id()) == Some(value.id()) => {
            parent.child_by_field_name("key")
        }
        _ => None,
    };
    let Some(target) = target else {
        return Some(import);
    };
    // `exports.clean = require("./clean")`: a re-export under that name.
    let exported = (target.kind() == "member_expression")
        .then(|| {
            let object = target.child_by_field_name("object")?;
            let spelled = text(object, source).replace(char::is_whitespace, "");
            (spelled == "exports" || spelled == "module.exports")
                .then(|| target.child_by_field_name("property"))
                .flatten()
        })
        .flatten();
    let target = exported.unwrap_or(target);
    match (target.kind(), property) {
        ("identifier" | "property_identifier", None) => {
            import.alias = Some(text(target, source));
        }
        ("identifier" | "property_identifier", Some(property)) => {
            import.names.push((property, text(target, source)));
        }
        ("object_pattern", None) => destructured(target, source, &mut import.names),
        ("member_expression", None)
            if text(target, source).replace(char::is_whitespace, "") == "module.exports" =>
        {
            import.form = Form::Script { reexport: true };
            import.names.push(("*".to_string(), "*".to_string()));
        }
        _ => {}
    }
    Some(import)
}

/// The names `const { a, b: c } = require("m")` binds: `(a, a)`, `(b, c)`.
fn destructured(pattern: Node<'_>, source: &[u8], names: &mut Vec<(String, String)>) {
    let mut cursor = pattern.walk();
    for part in pattern.named_children(&mut cursor) {
        match part.kind() {
            "shorthand_property_identifier_pattern" => {
                let name = text(part, source);
                names.push((name.clone(), name));
            }
            "pair_pattern" => {
                let key = part.child_by_field_name("key");
                let value = part.child_by_field_name("value");
                if let (Some(key), Some(value)) = (key, value)
                    && value.kind() == "identifier"
                {
                    names.push((text(key, source), text(value, source)));
                }
            }
            "object_assignment_pattern" => {
                // `{ a = 1 }`: the left side is the name.
                if let Some(left) = part.child_by_field_name("left")
                    && left.kind() == "shorthand_property_identifier_pattern"
                {
                    let name = text(left, source);
                    names.push((name.clone(), name));
                }
            }
            _ => {}
        }
    }
}
