//! Which files a Go import or `package` clause names: the `.go` files of one directory (a
//! package), without its `_test.go` files unless the importer is one.
//!
//! An import path names the directory found first by:
//! 1. a module of the tree: a `go.mod` whose `module` path is the import path or a prefix of it
//!    (the rest is a directory below the `go.mod`'s), read through the tree's reader
//!    (see [`Tree::reading`]);
//! 2. `vendor/<path>` in a directory above the importer (nearest first);
//! 3. the directories whose path ends with the whole import path (Go's own `src/`, a GOPATH
//!    layout), those under the root nearest the importer first;
//! 4. the directories whose path ends with the import path's last components, the longest such
//!    ending first, at least two components (a module whose `go.mod` the tree lacks, or that is
//!    unread).
//!
//! The file's own `package` clause names the other files of its directory; once every file's
//! clause is known, those of the same package only ([`same_package`]: a directory's
//! `package x_test` files are another package).

use std::collections::HashMap;

use crate::outline::imports::{Form, Import};
use crate::outline::lang::Language;

use super::Tree;
use super::lookup::{Lookup, ancestors, child, dir_of, name_of, nearest, root_of};

/// The files `import`, written in `from`, names (see the module's doc).
pub(super) fn targets(from: &str, import: &Import, tree: &Tree<'_>) -> Vec<u32> {
    let tests = from.ends_with("_test.go");
    let dirs: Vec<String> = match import.form {
        Form::Package => vec![dir_of(from).to_string()],
        Form::Go if !import.module.is_empty() => directories(tree, from, &import.module),
        _ => return Vec::new(),
    };
    let lookup = tree.lookup();
    let mut found: Vec<u32> = dirs
        .iter()
        .flat_map(|dir| lookup.in_dir(dir).iter().copied())
        .filter(|id| {
            let path = tree.path(*id);
            path.ends_with(".go") && (tests || !path.ends_with("_test.go"))
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The directories the import path `module` names (see the module's doc).
fn directories(tree: &Tree<'_>, from: &str, module: &str) -> Vec<String> {
    let lookup = tree.lookup();
    for (dir, path) in modules(lookup, tree) {
        let rest = if module == path {
            Some("")
        } else {
            module
                .strip_prefix(path.as_str())
                .and_then(|r| r.strip_prefix('/'))
        };
        if let Some(rest) = rest {
            let found = if rest.is_empty() {
                dir.to_string()
            } else {
                child(dir, rest)
            };
            if !lookup.in_dir(&found).is_empty() {
                return vec![found];
            }
        }
    }
    for dir in ancestors(dir_of(from)) {
        let vendored = child(&child(dir, "vendor"), module);
        if !lookup.in_dir(&vendored).is_empty() {
            return vec![vendored];
        }
    }
    let parts: Vec<&str> = module.split('/').collect();
    let shortest = parts.len().min(2);
    for take in (shortest..=parts.len()).rev() {
        let suffix = parts[parts.len() - take..].join("/");
        let dirs: Vec<&str> = lookup
            .dirs_ending(&suffix)
            .into_iter()
            .filter(|dir| !dir.split('/').any(|part| part == "testdata"))
            .collect();
        let found: Vec<(String, u32)> = (0u32..)
            .zip(&dirs)
            .map(|(i, dir)| (root_of(dir, &suffix), i))
            .collect();
        if !found.is_empty() {
            return nearest(from, found)
                .into_iter()
                .map(|i| dirs[i as usize].to_string())
                .collect();
        }
    }
    Vec::new()
}

/// The tree's Go modules: each `go.mod`'s directory and its `module` path, the deepest
/// directories first (a nested module owns its paths).
fn modules<'a, 'b>(lookup: &'b Lookup<'a>, tree: &Tree<'a>) -> &'b [(&'a str, String)] {
    lookup.go_modules.get_or_init(|| {
        let mut found: Vec<(&'a str, String)> = tree
            .manifests
            .iter()
            .filter(|path| name_of(path) == "go.mod")
            .filter_map(|&path| {
                let text = lookup.text(tree, path)?;
                let module = text.lines().find_map(|line| {
                    let rest = line.trim().strip_prefix("module")?;
                    rest.starts_with(char::is_whitespace)
                        .then(|| rest.trim().trim_matches('"').to_string())
                })?;
                Some((dir_of(path), module))
            })
            .collect();
        found.sort_by_key(|(dir, _)| {
            std::cmp::Reverse(dir.matches('/').count() + usize::from(!dir.is_empty()))
        });
        found
    })
}

/// Keeps, of each Go file's `package` import's files (its directory's), those whose own
/// `package` clause names the same package (`imports`: each file's imports with their files,
/// by file id; `languages`: each file's language).
pub(in crate::index) fn same_package(
    imports: &mut HashMap<u32, Vec<(Import, Vec<u32>)>>,
    languages: &[Option<Language>],
) {
    let package_of: HashMap<u32, String> = imports
        .iter()
        .filter(|(f, _)| languages.get(**f as usize) == Some(&Some(Language::Go)))
        .filter_map(|(f, list)| {
            let clause = list
                .iter()
                .find(|(import, _)| import.form == Form::Package)?;
            Some((*f, clause.0.module.clone()))
        })
        .collect();
    for (f, list) in imports.iter_mut() {
        let Some(own) = package_of.get(f) else {
            continue;
        };
        for (import, files) in list.iter_mut() {
            if import.form == Form::Package {
                files.retain(|t| package_of.get(t) == Some(own));
            }
        }
    }
}
