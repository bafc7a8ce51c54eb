//! Which files a Python import names.
//!
//! **Package roots** (the directories absolute imports are looked up from, as `sys.path` would
//! hold them), found from the tree: the tree's root; the parent of every top-level package
//! (a directory with an `__init__.py` or `__init__.pyi` whose parent has none); every
//! directory named `src`, `lib` or `Lib` (the src layout, CPython's `Lib/`); and the importing
//! file's own directory when it is no package (a script imports its siblings; a package's
//! module does not: Python 3 has no implicit relative imports).
//!
//! **A module** `a.b` under a root `R` is `R/a/b.py` (or `.pyi` when there is no `.py`) or the
//! package `R/a/b/__init__.py` (`.pyi`). When several roots have it, those under the root
//! nearest the importer win (its own root, else the nearest enclosing one); when none of them
//! encloses the importer, every one is kept.
//!
//! **Relative imports** (`from ..m import x`) start from the importer's package: its directory,
//! and one directory up per dot after the first.
//!
//! **`from m import a, b`** names `m`; the extractor gives it as the imports of the modules
//! `m.a` and `m.b` too, which name the submodules `m/a.py`, `m/a/__init__.py` when `m` has them
//! (and nothing when `a` is a name `m` defines). `import a.b` names `a.b`.

use std::collections::HashSet;

use crate::outline::imports::{Form, Import};

use super::Tree;
use super::lookup::{Lookup, ancestors, child, dir_of, nearest, root_of};

/// The files `import`, written in `from`, names (see the module's doc).
pub(super) fn targets(from: &str, import: &Import, tree: &Tree<'_>) -> Vec<u32> {
    let Form::Python { level } = import.form else {
        return Vec::new();
    };
    let lookup = tree.lookup();
    let base = if level == 0 {
        None
    } else {
        let mut base = dir_of(from);
        for _ in 1..level {
            if base.is_empty() {
                return Vec::new();
            }
            base = dir_of(base);
        }
        Some(base)
    };
    let mut found = module(lookup, tree, from, base, &import.module);
    found.sort_unstable();
    found.dedup();
    found
}

/// The files of the module `name` (dotted; `""`: the package `base` itself), relative to the
/// package directory `base`, or absolute (`base` `None`) from the roots.
fn module<'a>(
    lookup: &Lookup<'a>,
    tree: &Tree<'a>,
    from: &str,
    base: Option<&str>,
    name: &str,
) -> Vec<u32> {
    let relative = name.replace('.', "/");
    if let Some(base) = base {
        let path = if relative.is_empty() {
            base.to_string()
        } else {
            child(base, &relative)
        };
        return at(tree, &path, !relative.is_empty());
    }
    if relative.is_empty() {
        return Vec::new();
    }
    let roots = roots(lookup, tree);
    // A script (a file in no package) imports its siblings; a module of a package does not
    // (no implicit relative imports).
    let own = dir_of(from);
    let own = (!package(tree, own)).then_some(own);
    let mut found: Vec<(String, u32)> = Vec::new();
    let mut keep = |path: &str, suffix: &str, id: u32| {
        let root = root_of(path, suffix);
        if roots.contains(root.as_str()) || Some(root.as_str()) == own {
            found.push((root, id));
        }
    };
    for extension in [".py", ".pyi"] {
        let suffix = format!("{relative}{extension}");
        for id in lookup.files_ending(tree, &suffix) {
            keep(tree.path(id), &suffix, id);
        }
    }
    for dir in lookup.dirs_ending(&relative) {
        for id in at(tree, dir, false) {
            keep(dir, &relative, id);
        }
    }
    // A module with both a `.py` and a `.pyi` under one root: the source.
    let sources: HashSet<String> = found
        .iter()
        .map(|(_, id)| tree.path(*id))
        .filter(|p| p.ends_with(".py"))
        .map(|p| p.to_string())
        .collect();
    found.retain(|(_, id)| {
        let path = tree.path(*id);
        !path
            .strip_suffix(".pyi")
            .is_some_and(|stem| sources.contains(&format!("{stem}.py")))
    });
    nearest(from, found)
}

/// The module at `path` (without extension): `path.py` / `path.pyi` when `file` is set, or the
/// package `path/__init__.py` / `.pyi`; a source before its stub.
fn at(tree: &Tree<'_>, path: &str, file: bool) -> Vec<u32> {
    let mut candidates = Vec::new();
    if file {
        candidates.push(format!("{path}.py"));
        candidates.push(format!("{path}.pyi"));
    }
    candidates.push(child(path, "__init__.py"));
    candidates.push(child(path, "__init__.pyi"));
    let mut found = Vec::new();
    for pair in candidates.chunks(2) {
        if let Some(id) = pair.iter().find_map(|p| tree.find(p)) {
            found.push(id);
        }
    }
    found
}

/// Whether `dir` is a package (holds an `__init__.py` or `__init__.pyi`).
fn package(tree: &Tree<'_>, dir: &str) -> bool {
    tree.find(&child(dir, "__init__.py")).is_some()
        || tree.find(&child(dir, "__init__.pyi")).is_some()
}

/// The package roots of the tree (see the module's doc).
fn roots<'a, 'b>(lookup: &'b Lookup<'a>, tree: &Tree<'a>) -> &'b HashSet<&'a str> {
    lookup.python_roots.get_or_init(|| {
        let mut roots: HashSet<&'a str> = HashSet::from([""]);
        for name in ["__init__.py", "__init__.pyi"] {
            for id in lookup.named(name) {
                let dir = dir_of(tree.path(*id));
                if dir.is_empty() {
                    continue;
                }
                // The first directory up from this package that is none.
                if let Some(root) = ancestors(dir).skip(1).find(|d| !package(tree, d)) {
                    roots.insert(root);
                }
            }
        }
        for name in ["src", "lib", "Lib"] {
            roots.extend(lookup.dirs_named(name).iter().copied());
        }
        roots
    })
}
