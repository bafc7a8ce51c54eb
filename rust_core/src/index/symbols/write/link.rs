//! The builder's linking step, when the file is written: every file's imports resolved against
//! the new table (`resolve`), so a merge resolves the kept files' imports again too (a header
//! added or removed changes what an `#include` names), and the graph the binding rule reads
//! (`bind`), with names as build ids.

use std::collections::HashMap;

use crate::outline::SymbolKind;
use crate::outline::lang::Language;

use super::super::super::bind::Graph;
use super::super::super::resolve::{Tree, c_project, same_package, targets};
use super::super::links::{Linked, Strings, decode_imports, encode_imports};
use super::Builder;

/// The imports section's parts, and the graph to bind with.
pub(super) struct Links<'a> {
    pub(super) strings: Strings,
    pub(super) starts: Vec<u64>,
    pub(super) imports: Vec<u8>,
    pub(super) graph: Graph<'a>,
}

/// Whether `path` is named as a C or C++ header.
fn is_header(path: &str) -> bool {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        extension,
        "h" | "hh" | "hpp" | "hxx" | "h++" | "inl" | "ipp" | "tcc" | "inc"
    )
}

impl Builder {
    /// The language of file `f` as recorded.
    fn language(&self, f: usize) -> Option<Language> {
        let (.., info, _, _) = &self.files[f];
        (info[1] == 0)
            .then(|| Language::NAMES.get(usize::from(info[0])))
            .flatten()
            .and_then(|n| Language::from_name(n))
    }

    /// Resolves the imports of every file and sets up the binding graph.
    pub(super) fn link<'a>(&'a self, name_id: &'a dyn Fn(&str) -> Option<u32>) -> Links<'a> {
        let tree = Tree::new(self.files.iter().map(|f| f.0.as_str()).collect()).reading(
            self.manifests.keys().map(String::as_str).collect(),
            |path| self.manifests.get(path).cloned(),
        );
        let same = tree.len() == self.files.len();
        let mut out = Links {
            strings: Strings::default(),
            starts: Vec::with_capacity(self.files.len() + 1),
            imports: Vec::new(),
            graph: Graph {
                languages: Vec::with_capacity(self.files.len()),
                edges: Vec::with_capacity(self.files.len()),
                imports: HashMap::new(),
                own: Vec::with_capacity(self.files.len()),
                definer_start: Vec::new(),
                definers: Vec::new(),
                name_id,
                projects: Vec::with_capacity(self.files.len()),
                enclosing: Vec::new(),
                private: Vec::new(),
            },
        };
        // The names each file defines as functions (for the private files, below).
        let function = super::code_of(SymbolKind::Function.name(), SymbolKind::NAMES);
        let mut functions: Vec<Vec<u32>> = Vec::with_capacity(self.files.len());
        // The C projects, each interned once.
        let mut project_ids: HashMap<&str, u32> = HashMap::new();
        let mut project_names: Vec<&str> = Vec::new();
        for (f, (path, .., first, len)) in self.files.iter().enumerate() {
            let language = self.language(f);
            let raw = self.imports.get(f).map_or(&[][..], Vec::as_slice);
            let mut linked: Vec<Linked> =
                decode_imports(raw, |id| self.strings.list.get(id as usize).map(|s| &**s));
            let mut edges = Vec::new();
            if let (Some(language), true) = (language, same) {
                for (import, found) in &mut linked {
                    *found = targets(language, path, import, &tree);
                    found.sort_unstable();
                    found.dedup();
                    edges.extend_from_slice(found);
                }
            }
            edges.sort_unstable();
            edges.dedup();
            out.starts.push(out.imports.len() as u64);
            encode_imports(&linked, &mut out.strings, &mut out.imports);
            let own = &self.definitions[*first as usize..(*first + *len) as usize];
            let mut defined: Vec<u32> = own
                .iter()
                .filter(|d| d.4 == function)
                .map(|d| d.0)
                .collect();
            defined.sort_unstable();
            defined.dedup();
            functions.push(defined);
            let mut own: Vec<u32> = own.iter().map(|d| d.0).collect();
            own.sort_unstable();
            own.dedup();
            let project = match language {
                Some(Language::C | Language::Cpp) if same => c_project(&tree, path),
                _ => None,
            };
            out.graph.projects.push(project.map(|p| {
                *project_ids.entry(p).or_insert_with(|| {
                    project_names.push(p);
                    project_names.len() as u32 - 1
                })
            }));
            out.graph.languages.push(language);
            out.graph.edges.push(edges);
            out.graph.own.push(own);
            let imports_bind = language.is_some_and(|l| !matches!(l, Language::C | Language::Cpp));
            if imports_bind && !linked.is_empty() {
                out.graph.imports.insert(f as u32, linked);
            }
        }
        same_package(&mut out.graph.imports, &out.graph.languages);
        out.starts.push(out.imports.len() as u64);
        out.graph.index_definers(self.runs.len());
        // Private: a C or C++ source file no file includes.
        let mut included = vec![false; self.files.len()];
        for &t in out.graph.edges.iter().flatten() {
            if let Some(slot) = included.get_mut(t as usize) {
                *slot = true;
            }
        }
        out.graph.private = functions
            .into_iter()
            .enumerate()
            .map(|(f, defined)| {
                let source = matches!(self.language(f), Some(Language::C | Language::Cpp))
                    && !is_header(&self.files[f].0);
                (source && !included[f]).then_some(defined)
            })
            .collect();
        out.graph.enclosing = project_names
            .iter()
            .map(|p| {
                (0..project_names.len() as u32)
                    .filter(|&q| {
                        let q = project_names[q as usize];
                        q.is_empty() || q == *p || p.starts_with(&format!("{q}/"))
                    })
                    .collect()
            })
            .collect();
        out
    }
}
