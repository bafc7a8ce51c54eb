//! Java's imports and package: `package a.b;`, `import a.b.C;`, `import a.b.*;`,
//! `import static a.b.C.m;` and `import static a.b.C.*;` (top-level declarations only), and
//! the import every compilation unit has without writing it, `import java.lang.*;`.

use tree_sitter::Node;

use super::{Form, Import, Visit, dotted, line};

/// Reads a top-level declaration of a Java file.
pub(super) fn statement(node: Node<'_>, source: &[u8], found: &mut Vec<Import>) -> Visit {
    let form = match node.kind() {
        "package_declaration" => Form::Package,
        "import_declaration" => Form::Java,
        _ => return Visit::Skip,
    };
    let mut cursor = node.walk();
    let mut name = None;
    let (mut every, mut fixed) = (false, false);
    for child in node.children(&mut cursor) {
        match child.kind() {
            "identifier" | "scoped_identifier" => name = Some(dotted(child, source)),
            "asterisk" => every = true,
            "static" => fixed = true,
            _ => {}
        }
    }
    let Some(name) = name else {
        return Visit::Skip;
    };
    let (module, names) = match (form, every) {
        (Form::Package, _) => (name, Vec::new()),
        (_, true) => (name, vec![("*".to_string(), "*".to_string())]),
        (_, false) => {
            // `a.b.C` takes `C` (a class) from `a.b`'s file `C.java`; `static a.b.C.m` takes
            // the member `m` of that class: its module is the class, `a.b.C`.
            let last = name.rsplit('.').next().unwrap_or_default().to_string();
            let module = match (fixed, name.rsplit_once('.')) {
                (true, Some((class, _))) => class.to_string(),
                _ => name.clone(),
            };
            (module, vec![(last.clone(), last)])
        }
    };
    found.push(Import {
        line: line(node),
        form,
        module,
        names,
        alias: None,
    });
    Visit::Skip
}

/// `import java.lang.*;`, which every Java file has (JLS 7.3), on the line of its package
/// declaration (or its first import, or line 1).
pub(super) fn implicit(found: &[Import]) -> Import {
    Import {
        line: found.first().map_or(1, |import| import.line),
        form: Form::Java,
        module: "java.lang".to_string(),
        names: vec![("*".to_string(), "*".to_string())],
        alias: None,
    }
}
