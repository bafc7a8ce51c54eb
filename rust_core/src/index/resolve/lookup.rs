//! The tree's files as the import resolvers of Python, JavaScript/TypeScript, Java and Go look
//! them up: by file name, by directory, and by a path's trailing components (a Java package or
//! a Go import path matches the end of a directory's path, wherever the source root is); and the
//! small files that say how a package is laid out (`package.json`, `go.mod`), read once.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

use super::Tree;
pub(super) use super::c::join;

/// A tree's files by name and by directory, built once when a resolver first asks.
pub(super) struct Lookup<'a> {
    /// File ids by file name (the last component).
    files: HashMap<&'a str, Vec<u32>>,
    /// The files directly in each directory that holds one (`""`: the root).
    dirs: HashMap<&'a str, Vec<u32>>,
    /// The directories holding a file, by their last component (the root is not listed).
    dir_names: HashMap<&'a str, Vec<&'a str>>,
    /// Small files already read (a manifest), by path.
    read: Mutex<HashMap<String, Option<String>>>,
    /// Python's package roots (see `python`), found when first asked for.
    pub(super) python_roots: OnceLock<HashSet<&'a str>>,
    /// Go's modules: each `go.mod`'s directory and module path, found when first asked for.
    pub(super) go_modules: OnceLock<Vec<(&'a str, String)>>,
}

/// The directory of a relative path (`""` at the root).
pub(super) fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

/// The last component of a relative path.
pub(super) fn name_of(path: &str) -> &str {
    path.rfind('/').map_or(path, |at| &path[at + 1..])
}

/// `dir/name`, or `name` at the root.
pub(super) fn child(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The root `path` is under when it ends with `suffix` (`a/b/c.py` ending `b/c.py`: `a`).
pub(super) fn root_of(path: &str, suffix: &str) -> String {
    let root = &path[..path.len().saturating_sub(suffix.len())];
    root.strip_suffix('/').unwrap_or(root).to_string()
}

/// Whether `path` is `suffix` or ends with `/suffix`.
fn ends_with_components(path: &str, suffix: &str) -> bool {
    path == suffix
        || (path.len() > suffix.len()
            && path.ends_with(suffix)
            && path.as_bytes()[path.len() - suffix.len() - 1] == b'/')
}

/// The directories from `dir` up to the root, nearest first (`dir` itself, …, `""`).
pub(super) fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let here = next?;
        next = (!here.is_empty()).then(|| dir_of(here));
        Some(here)
    })
}

impl<'a> Lookup<'a> {
    /// The lookup tables of `tree`.
    pub(super) fn of(tree: &Tree<'a>) -> Lookup<'a> {
        let mut files: HashMap<&'a str, Vec<u32>> = HashMap::new();
        let mut dirs: HashMap<&'a str, Vec<u32>> = HashMap::new();
        for id in 0..tree.len() as u32 {
            let path = tree.path(id);
            files.entry(name_of(path)).or_default().push(id);
            dirs.entry(dir_of(path)).or_default().push(id);
        }
        let mut dir_names: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
        for dir in dirs.keys().filter(|d| !d.is_empty()) {
            dir_names.entry(name_of(dir)).or_default().push(dir);
        }
        for list in dir_names.values_mut() {
            list.sort_unstable();
        }
        Lookup {
            files,
            dirs,
            dir_names,
            read: Mutex::new(HashMap::new()),
            python_roots: OnceLock::new(),
            go_modules: OnceLock::new(),
        }
    }

    /// The ids of the files named `name` (a last component), in path order.
    pub(super) fn named(&self, name: &str) -> &[u32] {
        self.files.get(name).map_or(&[], Vec::as_slice)
    }

    /// The files directly in `dir`, in path order.
    pub(super) fn in_dir(&self, dir: &str) -> &[u32] {
        self.dirs.get(dir).map_or(&[], Vec::as_slice)
    }

    /// The files whose path is `suffix` or ends with `/suffix` (`suffix` a relative path).
    pub(super) fn files_ending(&self, tree: &Tree<'_>, suffix: &str) -> Vec<u32> {
        self.named(name_of(suffix))
            .iter()
            .copied()
            .filter(|id| ends_with_components(tree.path(*id), suffix))
            .collect()
    }

    /// The directories holding a file, named `name` (a last component).
    pub(super) fn dirs_named(&self, name: &str) -> &[&'a str] {
        self.dir_names.get(name).map_or(&[], Vec::as_slice)
    }

    /// The directories holding a file whose path is `suffix` or ends with `/suffix`.
    pub(super) fn dirs_ending(&self, suffix: &str) -> Vec<&'a str> {
        self.dir_names
            .get(name_of(suffix))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|dir| ends_with_components(dir, suffix))
            .collect()
    }

    /// The text of the file at `path` (a manifest such as `package.json`, which the tree of
    /// source files need not list), read once through the tree's reader; `None` when the tree
    /// has no reader or the file cannot be read.
    pub(super) fn text(&self, tree: &Tree<'_>, path: &str) -> Option<String> {
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        read.entry(path.to_string())
            .or_insert_with(|| tree.read_small(path))
            .clone()
    }
}

/// Of `found` (files a name may mean, each with the root it was found under), those under the
/// root nearest `from` (the root the importer is in, or its nearest ancestor that is one); all
/// of them when none is an ancestor of `from`.
pub(super) fn nearest(from: &str, found: Vec<(String, u32)>) -> Vec<u32> {
    let depth = |root: &str| {
        if root.is_empty() {
            Some(0)
        } else if from.starts_with(root) && from.as_bytes().get(root.len()) == Some(&b'/') {
            Some(root.matches('/').count() + 1)
        } else {
            None
        }
    };
    let best = found.iter().filter_map(|(root, _)| depth(root)).max();
    let mut ids: Vec<u32> = found
        .iter()
        .filter(|(root, _)| best.is_none() || depth(root) == best)
        .map(|(_, id)| *id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_and_join() {
        assert_eq!(dir_of("a/b/c.py"), "a/b");
        assert_eq!(dir_of("c.py"), "");
        assert_eq!(name_of("a/b/c.py"), "c.py");
        assert_eq!(join("a/b", "../c/./d").as_deref(), Some("a/c/d"));
        assert_eq!(join("a", "../../x"), None);
        assert_eq!(child("", "x"), "x");
        assert_eq!(ancestors("a/b").collect::<Vec<_>>(), ["a/b", "a", ""]);
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
        assert!(ends_with_components("src/a/b", "a/b"));
        assert!(ends_with_components("a/b", "a/b"));
        assert!(!ends_with_components("xa/b", "a/b"));
    }

    #[test]
    fn files_and_directories_are_found_by_their_trailing_components() {
        let tree = Tree::new(vec![
            "m1/src/org/x/A.java",
            "m2/src/org/x/A.java",
            "m2/src/borg/x/A.java",
            "top.py",
        ]);
        let lookup = Lookup::of(&tree);
        let paths = |ids: Vec<u32>| ids.iter().map(|i| tree.path(*i)).collect::<Vec<_>>();
        assert_eq!(
            paths(lookup.files_ending(&tree, "org/x/A.java")),
            ["m1/src/org/x/A.java", "m2/src/org/x/A.java"]
        );
        assert_eq!(
            lookup.dirs_ending("org/x"),
            ["m1/src/org/x", "m2/src/org/x"]
        );
        assert_eq!(paths(lookup.in_dir("").to_vec()), ["top.py"]);
        let found = lookup
            .files_ending(&tree, "org/x/A.java")
            .into_iter()
            .map(|id| (dir_of(tree.path(id)).replace("/org/x", ""), id))
            .collect();
        assert_eq!(
            paths(nearest("m2/src/org/y/B.java", found)),
            ["m2/src/org/x/A.java"]
        );
    }
}
