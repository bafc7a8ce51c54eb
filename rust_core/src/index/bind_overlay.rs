//! The binding rule for a file the symbol file does not describe as it is now (changed since,
//! or new: the overlay, parsed at query time), against the stored graph: its own includes or
//! imports, parsed and resolved now against the stored file table, then the stored includes,
//! imports and definitions of every other file.
//!
//! - C and C++: the file itself and the files of its include closure that define the name.
//! - Languages with imports: the same rule as the symbol build ([`Imported`], over [`Now`]:
//!   the symbol file with this one file as it is now, its imports resolved with the tree's
//!   manifests, `package.json` and `go.mod`, read now), so a changed file binds as it will
//!   once the symbol file is written again.
//!
//! What a changed file does to the files that import or include it: their stored bindings
//! stay as written (they were computed with its imports and definitions as they were) until
//! the next merge binds every file again; a definition it gained meanwhile binds none of them,
//! one it lost leaves their uses leading to it (the map then drops a bound file that no longer
//! defines the name, and those uses go by name). Other changed files are read as stored.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::outline::imports::{Form, Import};
use crate::outline::lang::Language;

use super::bind::{Imported, Tables};
use super::resolve::{Tree, targets};
use super::symbols::{Linked, Status, Symbols};

/// Binds overlay files' references against one symbol file (the file table resolved once).
pub(in crate::index) struct OverlayBinder<'s> {
    symbols: &'s Symbols,
    tree: Tree<'s>,
}

/// Binds one overlay file's references (see [`OverlayBinder::file`]).
pub(in crate::index) enum FileBinder<'s> {
    /// C and C++: the files of its include closure (without itself), its own id in the
    /// symbol file, and the names it defines (ids, sorted).
    Included {
        symbols: &'s Symbols,
        closure: HashSet<u32>,
        own: Option<u32>,
        defined: Vec<u32>,
    },
    /// A language with imports.
    Imports(Imported<Now<'s>>),
}

impl<'s> OverlayBinder<'s> {
    /// `manifests`: the tree's `package.json` and `go.mod` files, read with `read` when a
    /// resolver asks (as the build reads them).
    pub(in crate::index) fn new(
        symbols: &'s Symbols,
        manifests: &'s [String],
        read: impl Fn(&str) -> Option<String> + Send + Sync + 's,
    ) -> Option<OverlayBinder<'s>> {
        // The tree's ids must be the symbol file's (the stored edges name files by them), as
        // the build's are (`symbols::write::link`): every path read, none merged away.
        let paths: Vec<&str> = (0..symbols.files_len())
            .map(|f| symbols.path(f))
            .collect::<Option<_>>()?;
        let tree = Tree::new(paths).reading(manifests.iter().map(String::as_str).collect(), read);
        (tree.len() == symbols.files_len() as usize).then_some(OverlayBinder { symbols, tree })
    }

    /// The binder of the file at `path` (of `language`, with `imports`, defining the names
    /// `defined`); `None` for a language bound by name.
    pub(in crate::index) fn file<'n>(
        &self,
        path: &str,
        language: Language,
        imports: &[Import],
        defined: impl IntoIterator<Item = &'n str>,
    ) -> Option<FileBinder<'s>> {
        let symbols = self.symbols;
        let mut defined: Vec<u32> = defined
            .into_iter()
            .filter_map(|n| symbols.name_id(n))
            .collect();
        defined.sort_unstable();
        defined.dedup();
        let own = symbols.file_index(path);
        let resolved = |import: &Import| {
            let mut found = targets(language, path, import, &self.tree);
            found.sort_unstable();
            found.dedup();
            found
        };
        match language {
            Language::C | Language::Cpp => {
                let mut closure: HashSet<u32> = HashSet::new();
                let mut stack: Vec<u32> = imports.iter().flat_map(resolved).collect();
                while let Some(f) = stack.pop() {
                    if Some(f) == own || !closure.insert(f) {
                        continue;
                    }
                    stack.extend(symbols.edges(f));
                }
                Some(FileBinder::Included {
                    symbols,
                    closure,
                    own,
                    defined,
                })
            }
            Language::Python
            | Language::JavaScript
            | Language::TypeScript
            | Language::Tsx
            | Language::Java
            | Language::Go => {
                let mut linked: Vec<Linked> = imports
                    .iter()
                    .map(|import| (import.clone(), resolved(import)))
                    .collect();
                if language == Language::Go {
                    same_package(symbols, &mut linked);
                }
                Some(FileBinder::Imports(Imported::new(Now {
                    symbols,
                    // A new file: an id past the table's.
                    file: own.unwrap_or(symbols.files_len()),
                    language,
                    imports: linked,
                    defined,
                })))
            }
            _ => None,
        }
    }
}

/// Keeps, of the files a Go file's package clause names (its directory's), those whose stored
/// clause names the same package (as `resolve::same_package` does at the build).
fn same_package(symbols: &Symbols, linked: &mut [Linked]) {
    for (import, files) in linked.iter_mut() {
        if import.form == Form::Package {
            files.retain(|&t| {
                symbols
                    .imports(t)
                    .iter()
                    .any(|(i, _)| i.form == Form::Package && i.module == import.module)
            });
        }
    }
}

impl FileBinder<'_> {
    /// The files of the symbol file whose definitions of name `name` (its id) the file's
    /// references bind to. Empty: found by name.
    pub(in crate::index) fn bound(&mut self, name: u32) -> Vec<u32> {
        match self {
            FileBinder::Included {
                symbols,
                closure,
                own,
                defined,
            } => {
                let mut out: Vec<u32> = symbols
                    .definitions_of(name)
                    .filter_map(|d| symbols.file_of_definition(d))
                    .filter(|f| closure.contains(f))
                    .collect();
                if let Some(own) = own
                    && defined.binary_search(&name).is_ok()
                {
                    out.push(*own);
                }
                out.sort_unstable();
                out.dedup();
                out
            }
            FileBinder::Imports(imported) => {
                let file = imported.tables.file;
                let mut out = imported.bind(file, name);
                // A new file is not in the table: its own definitions are not the stored ones.
                out.retain(|&f| f < imported.tables.symbols.files_len());
                out
            }
        }
    }
}

/// The symbol file, with one file (`file`) as it is now.
pub(in crate::index) struct Now<'s> {
    symbols: &'s Symbols,
    file: u32,
    language: Language,
    imports: Vec<Linked>,
    /// The names it defines now (ids, sorted).
    defined: Vec<u32>,
}

impl Tables for Now<'_> {
    fn language(&self, file: u32) -> Option<Language> {
        if file == self.file {
            return Some(self.language);
        }
        let stored = self.symbols.file(file)?;
        if stored.status == Status::Parsed {
            stored.language
        } else {
            None
        }
    }

    fn imports(&self, file: u32) -> Cow<'_, [(Import, Vec<u32>)]> {
        if file == self.file {
            return Cow::Borrowed(&self.imports);
        }
        match self.language(file) {
            // The build keeps the imports of languages with imports only.
            Some(Language::C | Language::Cpp) | None => Cow::Borrowed(&[]),
            Some(_) => Cow::Owned(self.symbols.imports(file)),
        }
    }

    fn defines(&self, file: u32, name: u32) -> bool {
        if file == self.file {
            return self.defined.binary_search(&name).is_ok();
        }
        let Some(stored) = self.symbols.file(file) else {
            return false;
        };
        self.symbols
            .definitions_of(name)
            .any(|d| stored.definitions.contains(&d))
    }

    fn definers(&self, name: u32) -> Cow<'_, [u32]> {
        let symbols = self.symbols;
        let mut out: Vec<u32> = symbols
            .definitions_of(name)
            .filter_map(|d| symbols.file_of_definition(d))
            .filter(|&f| f != self.file)
            .collect();
        if self.defined.binary_search(&name).is_ok() {
            out.push(self.file);
        }
        out.sort_unstable();
        out.dedup();
        Cow::Owned(out)
    }

    fn name_id(&self, name: &str) -> Option<u32> {
        self.symbols.name_id(name)
    }
}

#[cfg(test)]
mod tests;
