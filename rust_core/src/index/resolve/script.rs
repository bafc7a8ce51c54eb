//! Which file a JavaScript or TypeScript import names (`import … from "m"`, `require("m")`,
//! `export … from "m"`, `import("m")`).
//!
//! **A relative specifier** (`./x`, `../x`, `/x` from the tree's root) names, the first that
//! the tree has: the file itself; the file with an extension added (`.ts .tsx .d.ts .js .mjs
//! .cjs .jsx` from TypeScript, `.js .mjs .cjs .jsx .ts .tsx .d.ts` from JavaScript); for a
//! `.js`-style name written in TypeScript, its TypeScript source (`./x.js` -> `./x.ts`); a
//! directory's `package.json` entry (below) or its `index` with those extensions.
//!
//! **A bare specifier** (`pkg`, `pkg/sub`, `@scope/pkg/sub`) names the package directory found
//! first in the `node_modules` directories above the importer (nearest first), else the
//! directory `pkg` at the tree's root when it holds a `package.json` (the layout of a global
//! folder on `NODE_PATH`, as Debian's `/usr/share/nodejs`). A subpath is then resolved in the
//! package as a relative one; the package itself by its `package.json`: `types` (or
//! `typings`) from TypeScript, the `exports` entry for `.` in its string forms (a string, or
//! `require`/`import`/`default`/`types` conditions holding strings), `main`, then `index`.
//! Without a reader for `package.json` (see [`Tree::reading`]) only `index` is tried. Node's
//! built-in modules (`fs`) and packages outside the tree name nothing.

use crate::outline::imports::{Form, Import};

use super::Tree;
use super::lookup::{ancestors, child, dir_of, join};

/// Extensions tried for a TypeScript importer, in order.
const FROM_TYPESCRIPT: &[&str] = &[".ts", ".tsx", ".d.ts", ".js", ".mjs", ".cjs", ".jsx"];
/// Extensions tried for a JavaScript importer, in order.
const FROM_JAVASCRIPT: &[&str] = &[".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".d.ts"];

/// The file `import`, written in `from`, names (see the module's doc).
pub(super) fn targets(from: &str, import: &Import, tree: &Tree<'_>) -> Vec<u32> {
    if !matches!(import.form, Form::Script { .. }) || import.module.is_empty() {
        return Vec::new();
    }
    let typescript = [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| from.ends_with(e));
    let spec = import.module.as_str();
    let found = if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".."
    {
        join(dir_of(from), spec).and_then(|path| file_or_dir(tree, &path, typescript))
    } else if let Some(rooted) = spec.strip_prefix('/') {
        join("", rooted).and_then(|path| file_or_dir(tree, &path, typescript))
    } else {
        bare(tree, from, spec, typescript)
    };
    found.into_iter().collect()
}

/// The file `path` names as a file (with an extension added) or a directory.
fn file_or_dir(tree: &Tree<'_>, path: &str, typescript: bool) -> Option<u32> {
    file(tree, path, typescript).or_else(|| dir(tree, path, typescript))
}

/// `path` itself, with an extension added, or the TypeScript source of a `.js`-style name.
fn file(tree: &Tree<'_>, path: &str, typescript: bool) -> Option<u32> {
    if path.is_empty() {
        return None;
    }
    let extensions = if typescript {
        FROM_TYPESCRIPT
    } else {
        FROM_JAVASCRIPT
    };
    if typescript {
        // `./x.js` in TypeScript names the source `./x.ts` it is compiled from.
        for (written, sources) in [
            (".js", &[".ts", ".tsx", ".d.ts"][..]),
            (".jsx", &[".tsx"][..]),
            (".mjs", &[".mts", ".d.mts"][..]),
            (".cjs", &[".cts", ".d.cts"][..]),
        ] {
            if let Some(stem) = path.strip_suffix(written)
                && let Some(id) = sources
                    .iter()
                    .find_map(|e| tree.find(&format!("{stem}{e}")))
            {
                return Some(id);
            }
        }
    }
    tree.find(path).or_else(|| {
        extensions
            .iter()
            .find_map(|e| tree.find(&format!("{path}{e}")))
    })
}

/// The file a directory names: its `package.json`'s entry, else its `index`.
fn dir(tree: &Tree<'_>, path: &str, typescript: bool) -> Option<u32> {
    entry(tree, path, typescript).or_else(|| file(tree, &child(path, "index"), typescript))
}

/// The entry point a package directory's `package.json` names (see the module's doc).
fn entry(tree: &Tree<'_>, dir: &str, typescript: bool) -> Option<u32> {
    let text = tree.lookup().text(tree, &child(dir, "package.json"))?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let mut fields: Vec<&serde_json::Value> = Vec::new();
    if typescript {
        fields.extend(manifest.get("types"));
        fields.extend(manifest.get("typings"));
    }
    if let Some(exports) = manifest.get("exports") {
        let dot = exports.get(".").unwrap_or(exports);
        match dot {
            serde_json::Value::String(_) => fields.push(dot),
            serde_json::Value::Object(conditions) => {
                let order: &[&str] = if typescript {
                    &["types", "import", "require", "default"]
                } else {
                    &["require", "import", "default", "types"]
                };
                fields.extend(order.iter().filter_map(|c| conditions.get(*c)));
            }
            _ => {}
        }
    }
    fields.extend(manifest.get("main"));
    fields
        .iter()
        .filter_map(|field| field.as_str())
        .find_map(|named| {
            let path = join(dir, named)?;
            file(tree, &path, typescript).or_else(|| file(tree, &child(&path, "index"), typescript))
        })
}

/// A bare specifier: the package found above the importer, or at the tree's root.
fn bare(tree: &Tree<'_>, from: &str, spec: &str, typescript: bool) -> Option<u32> {
    let mut parts = spec.splitn(if spec.starts_with('@') { 3 } else { 2 }, '/');
    let package = if spec.starts_with('@') {
        format!("{}/{}", parts.next()?, parts.next()?)
    } else {
        parts.next()?.to_string()
    };
    let subpath = parts.next();
    let mut homes: Vec<String> = ancestors(dir_of(from))
        .map(|dir| child(&child(dir, "node_modules"), &package))
        .collect();
    let manifest = child(&package, "package.json");
    if tree.find(&manifest).is_some() || tree.lookup().text(tree, &manifest).is_some() {
        homes.push(package.clone());
    }
    homes.into_iter().find_map(|home| {
        if tree.under(&home).is_empty() {
            return None;
        }
        match subpath {
            Some(rest) => file_or_dir(tree, &join(&home, rest)?, typescript),
            None => dir(tree, &home, typescript),
        }
    })
}
