//! The binding rule for a file the symbol file does not describe as it is now (changed since,
//! or new: the overlay, parsed at query time), against the stored graph: its own includes,
//! resolved now, then the stored includes of the files they name. C and C++ only; a file of
//! another language is found by name until the symbol file is written again.
//!
//! What a changed header does to the files that include it: their stored bindings stay as
//! written (they were computed with the header's includes and definitions as they were) until
//! the next merge binds every file again; a definition the header gained meanwhile binds none
//! of them, one it lost leaves their uses leading to it (the map then drops a bound file that
//! no longer defines the name, and those uses go by name).

use std::collections::HashSet;

use crate::outline::imports::Import;
use crate::outline::lang::Language;

use super::super::resolve::{Tree, targets};
use super::super::symbols::Symbols;

/// Binds overlay files' references against one symbol file (the file table resolved once).
pub(in crate::index) struct OverlayBinder<'s> {
    symbols: &'s Symbols,
    tree: Tree<'s>,
}

impl<'s> OverlayBinder<'s> {
    pub(in crate::index) fn new(symbols: &'s Symbols) -> OverlayBinder<'s> {
        let paths = (0..symbols.files_len())
            .filter_map(|f| symbols.path(f))
            .collect();
        OverlayBinder {
            symbols,
            tree: Tree::new(paths),
        }
    }

    /// The files of the symbol file the file at `path` (of `language`, with `imports`)
    /// includes, at any depth (without itself); `None` for a language bound by name here.
    pub(in crate::index) fn closure(
        &self,
        path: &str,
        language: Language,
        imports: &[Import],
    ) -> Option<HashSet<u32>> {
        if !matches!(language, Language::C | Language::Cpp) {
            return None;
        }
        let own = self.symbols.file_index(path);
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack: Vec<u32> = imports
            .iter()
            .flat_map(|import| targets(language, path, import, &self.tree))
            .collect();
        while let Some(f) = stack.pop() {
            if Some(f) == own || !seen.insert(f) {
                continue;
            }
            stack.extend(self.symbols.edges(f));
        }
        Some(seen)
    }

    /// The files of the symbol file whose definitions of name `name` (its id) the references
    /// of the file at `path` bind to, given its `closure`; `defines`: whether it defines the
    /// name itself. Empty: found by name.
    pub(in crate::index) fn bound(
        &self,
        path: &str,
        closure: &HashSet<u32>,
        name: u32,
        defines: bool,
    ) -> Vec<u32> {
        let symbols = self.symbols;
        let mut out: Vec<u32> = symbols
            .definitions_of(name)
            .filter_map(|d| symbols.file_of_definition(d))
            .filter(|f| closure.contains(f))
            .collect();
        if defines && let Some(own) = symbols.file_index(path) {
            out.push(own);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
