//! What a file says it takes from elsewhere: C's `#include`s, Python's imports, JavaScript's and
//! TypeScript's `import`/`require`/`export … from`, Java's `import`s and `package`, Go's imports
//! and `package`. They travel with a file's references ([`super::refs::References::imports`])
//! and let the index bind a reference to the definitions its file can see (`index::resolve`)
//! instead of to every definition spelled the same.
//!
//! An import here is what the text says, nothing resolved: which file it names is the index's
//! business, with the whole tree's file table at hand.

use serde::{Deserialize, Serialize};

/// One import statement (or one `#include`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// 1-based line of the statement.
    pub line: u32,
    /// How the module is named, which says how it is looked for.
    pub form: Form,
    /// The module as written, quotes and brackets removed: `linux/slab.h`, `json`, `os.path`,
    /// `./util`, `java.util.List`, `fmt`. For [`Form::Package`], the file's own package.
    pub module: String,
    /// The names taken from the module, each with the local name it is bound to
    /// (`from m import a as b`: `("a", "b")`; `import { x } from "m"`: `("x", "x")`;
    /// `export * from "m"` and `from m import *`: `("*", "*")`). Empty when the statement
    /// binds the module itself (`import m`, `#include`, `import x from "m"` binds `default`
    /// and lists it).
    pub names: Vec<(String, String)>,
    /// The local name the module itself is bound to, when it is (`import numpy as np`: `np`;
    /// `import a.b`: `a`; `import * as ns from "m"`: `ns`; `const m = require("m")`: `m`).
    pub alias: Option<String>,
}

/// How an import names what it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Form {
    /// `#include <…>`: looked for in the include directories.
    System,
    /// `#include "…"`: looked for beside the including file, then as `System`.
    Local,
    /// Python, with the number of leading dots (0: absolute).
    Python {
        /// `from ..m import x`: 2.
        level: u8,
    },
    /// JavaScript or TypeScript (`import`, `require`, dynamic `import()`, `export … from`).
    Script {
        /// `export … from`: the names are the importing module's own exports too.
        reexport: bool,
    },
    /// Java `import` (a class, `a.b.*` as names `("*", "*")`, `static`).
    Java,
    /// Go `import "path"`.
    Go,
    /// The file's own package (Java's `package a.b;`, Go's `package x`): files of one
    /// package see each other's top-level definitions.
    Package,
}

mod go;
mod java;
#[cfg(test)]
mod lang_tests;
mod python;
mod script;

use std::ops::Range;

use tree_sitter::Node;

use super::lang::Language;

/// The imports of a file of `language` in its parse `trees` (each with the bytes it gives the
/// references of, as [`super::refs`] walks them), in source order; empty for a language whose
/// imports nothing resolves yet.
pub(super) fn extract(
    language: Language,
    trees: &[(Node<'_>, Range<usize>)],
    source: &[u8],
) -> Vec<Import> {
    let read: fn(Node<'_>, &[u8], &mut Vec<Import>) -> Visit = match language {
        Language::Python => python::statement,
        Language::JavaScript | Language::TypeScript | Language::Tsx => script::statement,
        Language::Java => java::statement,
        Language::Go => go::statement,
        _ => return Vec::new(),
    };
    let mut found = Vec::new();
    for (root, window) in trees {
        visit(*root, window, source, read, &mut found);
    }
    found.sort_by_key(|import| import.line);
    if language == Language::Java {
        found.push(java::implicit(&found));
    }
    found
}

/// What a language's reader says of a node: go below it or not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// An import read, or a node no import can be under.
    Skip,
    /// A node that may hold imports (a block, a declaration, an expression).
    Below,
}

/// Walks `root`'s nodes that start in `window`, giving each to `read` (which pushes the
/// imports it finds) and going below those it says may hold more.
fn visit(
    root: Node<'_>,
    window: &Range<usize>,
    source: &[u8],
    read: fn(Node<'_>, &[u8], &mut Vec<Import>) -> Visit,
    found: &mut Vec<Import>,
) {
    let mut cursor = root.walk();
    let mut down = true;
    loop {
        let node = cursor.node();
        if down {
            let inside = node.end_byte() > window.start && node.start_byte() < window.end;
            let mut below = inside;
            if inside && node.start_byte() >= window.start && node.id() != root.id() {
                below = read(node, source, found) == Visit::Below;
            }
            if below && cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            down = true;
            continue;
        }
        if !cursor.goto_parent() {
            return;
        }
        down = false;
    }
}

/// The text of `node` (lossy UTF-8).
fn text(node: Node<'_>, source: &[u8]) -> String {
    String::from_utf8_lossy(&source[node.byte_range()]).into_owned()
}

/// The 1-based line `node` starts on.
fn line(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

/// A name with whitespace and comments between its parts left out (`a . b` is `a.b`).
fn dotted(node: Node<'_>, source: &[u8]) -> String {
    text(node, source)
        .split('.')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(".")
}

/// The import of the statement `node` naming `module` in `form`, binding nothing yet.
fn statement_import(node: Node<'_>, form: Form, module: String) -> Import {
    Import {
        line: line(node),
        form,
        module,
        names: Vec::new(),
        alias: None,
    }
}
