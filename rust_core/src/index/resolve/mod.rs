//! Which files an import names: a file's `#include`s and imports ([`Import`]) looked up in the
//! tree's file table, language by language. What is resolved here is the file (or files: a
//! Python package, a Go package's directory) an import statement names; which definitions a
//! reference then binds to is the symbol index's business.

use std::ops::Range;
use std::sync::OnceLock;

use crate::outline::imports::Import;
use crate::outline::lang::Language;

mod c;
mod go;
pub(in crate::index) use go::same_package;
mod java;
#[cfg(test)]
mod lang_tests;
mod lookup;
mod python;
mod script;

/// The tree's files as the resolvers look them up: relative paths with `/` separators, sorted
/// by bytes; a file's id is its position.
pub(in crate::index) struct Tree<'a> {
    paths: Vec<&'a str>,
    /// C's include directories, found when first asked for.
    c: OnceLock<c::Dirs>,
    /// The files by name and directory (Python, JavaScript, Java, Go), built when first asked for.
    lookup: OnceLock<lookup::Lookup<'a>>,
    /// Reads a small file of the tree (`package.json`, `go.mod`) by its path, when the tree's
    /// owner gives a way to.
    reader: Option<Reader<'a>>,
    /// The paths of the manifests the reader reads (the tree's paths are its source files).
    manifests: Vec<&'a str>,
}

/// How a [`Tree`] reads one of its small files (see [`Tree::reading`]).
type Reader<'a> = Box<dyn Fn(&str) -> Option<String> + Send + Sync + 'a>;

impl<'a> Tree<'a> {
    /// The tree of these paths (sorted here).
    pub(in crate::index) fn new(mut paths: Vec<&'a str>) -> Tree<'a> {
        paths.sort_unstable();
        paths.dedup();
        Tree {
            paths,
            c: OnceLock::new(),
            lookup: OnceLock::new(),
            reader: None,
            manifests: Vec::new(),
        }
    }

    /// This tree, with its manifests (`package.json`, `go.mod`: how a JavaScript package or a
    /// Go module names its files) at `manifests`, read with `read` (a path -> its text, `None`
    /// when it cannot be read). Without them, the resolvers go by the file names alone.
    pub(in crate::index) fn reading(
        mut self,
        mut manifests: Vec<&'a str>,
        read: impl Fn(&str) -> Option<String> + Send + Sync + 'a,
    ) -> Tree<'a> {
        manifests.sort_unstable();
        self.manifests = manifests;
        self.reader = Some(Box::new(read));
        self
    }

    /// The text of the small file `path`, through the reader (see [`Tree::reading`]).
    fn read_small(&self, path: &str) -> Option<String> {
        self.reader.as_ref().and_then(|read| read(path))
    }

    /// The lookup tables of the resolvers of Python, JavaScript, Java and Go.
    fn lookup(&self) -> &lookup::Lookup<'a> {
        self.lookup.get_or_init(|| lookup::Lookup::of(self))
    }

    /// The id of the file at `path`, if the tree has it.
    pub(in crate::index) fn find(&self, path: &str) -> Option<u32> {
        self.paths
            .binary_search(&path)
            .ok()
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The ids of the files below the directory `dir` (`""`: the whole tree), at any depth.
    pub(in crate::index) fn under(&self, dir: &str) -> Range<u32> {
        if dir.is_empty() {
            return 0..self.paths.len() as u32;
        }
        let prefix = format!("{dir}/");
        let start = self
            .paths
            .partition_point(|p| p.as_bytes() < prefix.as_bytes());
        let end = start + self.paths[start..].partition_point(|p| p.starts_with(&prefix));
        start as u32..end as u32
    }

    /// The path of the file `id`.
    pub(in crate::index) fn path(&self, id: u32) -> &'a str {
        self.paths[id as usize]
    }

    /// How many files the tree has.
    pub(in crate::index) fn len(&self) -> usize {
        self.paths.len()
    }
}

/// The files `import`, written in the file `from` (a path of the tree) of `language`, names;
/// empty when none of the tree's files is it (a library outside the tree, a typo).
pub(in crate::index) fn targets(
    language: Language,
    from: &str,
    import: &Import,
    tree: &Tree<'_>,
) -> Vec<u32> {
    match language {
        Language::C | Language::Cpp => tree
            .c
            .get_or_init(|| c::Dirs::of(tree))
            .targets(from, import, tree),
        Language::Python => python::targets(from, import, tree),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            script::targets(from, import, tree)
        }
        Language::Java => java::targets(from, import, tree),
        Language::Go => go::targets(from, import, tree),
        _ => Vec::new(),
    }
}

/// The C project of the file at `path` (see `c::Dirs::project`): the nearest directory above
/// it owning an include directory; `None` when none does.
pub(in crate::index) fn c_project<'t>(tree: &'t Tree<'_>, path: &'t str) -> Option<&'t str> {
    tree.c.get_or_init(|| c::Dirs::of(tree)).project(path)
}

#[cfg(test)]
mod oracle_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_holds_the_files_below_it_and_no_sibling_with_its_prefix() {
        let tree = Tree::new(vec!["a/b.c", "a/c/d.h", "a-b/x.c", "a.c", "ab/y.c", "b.c"]);
        let names = |r: Range<u32>| r.map(|i| tree.path(i)).collect::<Vec<_>>();
        assert_eq!(names(tree.under("a")), ["a/b.c", "a/c/d.h"]);
        assert_eq!(names(tree.under("a/c")), ["a/c/d.h"]);
        assert_eq!(names(tree.under("ab")), ["ab/y.c"]);
        assert!(tree.under("zz").is_empty());
        assert_eq!(tree.under("").len(), tree.len());
        assert_eq!(tree.find("a.c").map(|i| tree.path(i)), Some("a.c"));
        assert_eq!(tree.find("a"), None);
    }
}
