//! Which files a Java `import` or `package` names.
//!
//! A class `a.b.C` is the file `a/b/C.java` under any source root: any file of the tree whose
//! path ends with those components (the package's path under whatever root the tree keeps its
//! sources in, as the package declarations lay them out). A nested class (`a.b.C.Inner`, a
//! static import's `a.b.C`) is its outermost class's file: components are dropped from the end
//! until a file is found. When several roots have the file, those under the root nearest the
//! importer win (see `lookup::nearest`).
//!
//! `a.b.*` names every `.java` file of the directories ending with `a/b` (a package spread over
//! source roots, as `main` and `test`); a static `a.b.C.*`, the class's file. The file's own
//! `package a.b;` names the files of its package the same way, and those of its own directory.

use crate::outline::imports::{Form, Import};

use super::Tree;
use super::lookup::{dir_of, nearest, root_of};

/// The files `import`, written in `from`, names (see the module's doc).
pub(super) fn targets(from: &str, import: &Import, tree: &Tree<'_>) -> Vec<u32> {
    let path = import.module.replace('.', "/");
    if path.is_empty() {
        return Vec::new();
    }
    let every = import.names.iter().any(|(orig, _)| orig == "*");
    let mut found = match import.form {
        Form::Package => {
            let mut files = package(tree, &path);
            files.extend(java_files(tree, dir_of(from)));
            files
        }
        Form::Java if every => {
            let files = package(tree, &path);
            if files.is_empty() {
                class(tree, from, &path)
            } else {
                files
            }
        }
        Form::Java => class(tree, from, &path),
        _ => Vec::new(),
    };
    found.sort_unstable();
    found.dedup();
    found
}

/// The `.java` files directly in `dir`.
fn java_files(tree: &Tree<'_>, dir: &str) -> Vec<u32> {
    let lookup = tree.lookup();
    lookup
        .in_dir(dir)
        .iter()
        .copied()
        .filter(|id| tree.path(*id).ends_with(".java"))
        .collect()
}

/// The `.java` files of the package at `path` (`a/b`), under every source root.
fn package(tree: &Tree<'_>, path: &str) -> Vec<u32> {
    let lookup = tree.lookup();
    lookup
        .dirs_ending(path)
        .into_iter()
        .flat_map(|dir| java_files(tree, dir))
        .collect()
}

/// The file of the class at `path` (`a/b/C`, or a nested class's `a/b/C/Inner`).
fn class(tree: &Tree<'_>, from: &str, path: &str) -> Vec<u32> {
    let lookup = tree.lookup();
    let mut path = path;
    loop {
        let suffix = format!("{path}.java");
        let found: Vec<(String, u32)> = lookup
            .files_ending(tree, &suffix)
            .into_iter()
            .map(|id| (root_of(tree.path(id), &suffix), id))
            .collect();
        if !found.is_empty() {
            return nearest(from, found);
        }
        match path.rsplit_once('/') {
            Some((outer, _)) => path = outer,
            None => return Vec::new(),
        }
    }
}
