//! The binding rule: which definitions a reference can mean, given what its file includes or
//! imports. One rule, used by the symbol build (each file's referenced names bound once, stored)
//! and at query time (the files changed since, bound against the stored graph).
//!
//! For a reference to the name `N` in the file `F` of language `L`, the files whose definitions
//! of `N` it binds to:
//! - C and C++: `F` itself and every file of its include closure (the files its `#include`s
//!   name, theirs, and so on: `resolve`) that define `N`. When none does, the reference is
//!   found by name among the definitions of `F`'s project and the projects enclosing it (a
//!   project: the nearest directory above a file that owns an include directory, see
//!   `resolve::c`), never among a nested project's: a file of the Linux kernel never means a
//!   definition of `tools/`, which is userspace built apart, while a file of `tools/perf` may
//!   mean one of `tools/lib` or of the kernel. And of a source file no file includes (a
//!   *private* file: a `.c`), only its functions, which the linker joins: its structures,
//!   types and macros are its own. That can leave no definition at all.
//! - Languages with imports (Python, JavaScript and TypeScript, Java, Go): (a) `F` itself when it
//!   defines `N`; else (b) for an import of `F` that binds `N` as a local name (`from m import
//!   orig as N`, `import { orig as N }`, and `*` imports), the files it names that define
//!   `orig`, and for an import binding the module itself to `N` (`import copy`, `const send =
//!   require("send")`), those that define `N`, following their own imports of it (re-exports:
//!   `__init__.py`, `export … from`, `*`, a module bound to the name) up to
//!   [`REEXPORT_DEPTH`] files deep; else, for an import that takes `N` under another local name
//!   (`from m import N as other`: the `N` the statement spells), the files it names that
//!   define `N`, re-exports followed the same way; else (c) the files named by `F`'s
//!   whole-module imports and its package (Java: same package, Go: same directory) that define
//!   `N` or re-export it. In JavaScript and TypeScript (a) comes after (b): a name a module
//!   imports is a constant there, so a definition of it in the file is another thing (a
//!   property, a method). In Java the `*` imports (and the implicit `java.lang.*`) come after
//!   the package, which hides what they bring.
//! - Other languages: nothing binds.
//!
//! When nothing binds, the reference is found by name: every definition of `N` (the answers
//! say so), but for C's narrowing above.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use crate::outline::imports::{Form, Import};
use crate::outline::lang::Language;

/// How many files deep a re-export is followed.
pub(super) const REEXPORT_DEPTH: u32 = 4;

/// Where a file's references to a name lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// Found by name: every definition of the name.
    ByName,
    /// Bound to the definitions of these files (sorted).
    Resolved(Vec<u32>),
    /// Found by name among the definitions of these files only (C: those of the file's project
    /// and the projects enclosing it); none: no definition it can mean.
    Within(Vec<u32>),
}

impl Bound {
    /// The files it leads to, and its code in the symbol file (`symbols::links`).
    pub(super) fn parts(&self) -> (&[u32], u8) {
        match self {
            Bound::ByName => (&[], 0),
            Bound::Resolved(files) => (files, 1),
            Bound::Within(files) => (files, 2),
        }
    }

    /// The binding of `files` with code `code`.
    pub(super) fn of(code: u8, files: Vec<u32>) -> Bound {
        match code {
            1 => Bound::Resolved(files),
            2 => Bound::Within(files),
            _ => Bound::ByName,
        }
    }
}

/// What the rule reads of a tree (files by id, names by id).
pub(super) struct Graph<'a> {
    /// Each file's language.
    pub(super) languages: Vec<Option<Language>>,
    /// Each file's direct include or import targets, all imports together, sorted.
    pub(super) edges: Vec<Vec<u32>>,
    /// The imports of the files in a language with imports, each with the files it names.
    pub(super) imports: HashMap<u32, Vec<(Import, Vec<u32>)>>,
    /// Each file's defined names, sorted, each once.
    pub(super) own: Vec<Vec<u32>>,
    /// The files defining each name (sorted): `definers[definer_start[n]..definer_start[n+1]]`.
    pub(super) definer_start: Vec<u32>,
    pub(super) definers: Vec<u32>,
    /// The id of a name (`None`: no file defines or references it).
    pub(super) name_id: &'a dyn Fn(&str) -> Option<u32>,
    /// Each file's C project (an index into `enclosing`; `None`: none).
    pub(super) projects: Vec<Option<u32>>,
    /// For each project, the projects enclosing it, itself included (sorted).
    pub(super) enclosing: Vec<Vec<u32>>,
    /// Each private file's names defined as functions (sorted), `None` for a file another
    /// includes or a header (see the module doc).
    pub(super) private: Vec<Option<Vec<u32>>>,
}

impl Graph<'_> {
    /// Sets up `definer_start`/`definers` from `own` for `names` name ids.
    pub(super) fn index_definers(&mut self, names: usize) {
        let mut starts = vec![0u32; names + 1];
        for own in &self.own {
            for &n in own {
                if let Some(s) = starts.get_mut(n as usize + 1) {
                    *s += 1;
                }
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut definers = vec![0u32; starts[names] as usize];
        for (file, own) in self.own.iter().enumerate() {
            for &n in own {
                if let Some(at) = next.get_mut(n as usize) {
                    definers[*at as usize] = file as u32;
                    *at += 1;
                }
            }
        }
        self.definer_start = starts;
        self.definers = definers;
    }

    fn definers_of(&self, name: u32) -> &[u32] {
        let n = name as usize;
        match (self.definer_start.get(n), self.definer_start.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.definers[a as usize..b as usize],
            _ => &[],
        }
    }

    fn defines(&self, file: u32, name: u32) -> bool {
        self.own
            .get(file as usize)
            .is_some_and(|own| own.binary_search(&name).is_ok())
    }
}

/// What the rule for languages with imports reads of a tree: the build's [`Graph`], or the
/// symbol file with a file of the overlay as it is now (`overlay`): one rule for both.
pub(super) trait Tables {
    /// File `file`'s language.
    fn language(&self, file: u32) -> Option<Language>;
    /// File `file`'s imports (of a language with imports), each with the files it names.
    fn imports(&self, file: u32) -> Cow<'_, [(Import, Vec<u32>)]>;
    /// Whether file `file` defines name `name`.
    fn defines(&self, file: u32, name: u32) -> bool;
    /// The files defining name `name`.
    fn definers(&self, name: u32) -> Cow<'_, [u32]>;
    /// The id of a name.
    fn name_id(&self, name: &str) -> Option<u32>;
}

impl Tables for Graph<'_> {
    fn language(&self, file: u32) -> Option<Language> {
        self.languages.get(file as usize).copied().flatten()
    }

    fn imports(&self, file: u32) -> Cow<'_, [(Import, Vec<u32>)]> {
        Cow::Borrowed(self.imports.get(&file).map_or(&[][..], Vec::as_slice))
    }

    fn defines(&self, file: u32, name: u32) -> bool {
        Graph::defines(self, file, name)
    }

    fn definers(&self, name: u32) -> Cow<'_, [u32]> {
        Cow::Borrowed(self.definers_of(name))
    }

    fn name_id(&self, name: &str) -> Option<u32> {
        (self.name_id)(name)
    }
}

impl<T: Tables + ?Sized> Tables for &T {
    fn language(&self, file: u32) -> Option<Language> {
        (**self).language(file)
    }

    fn imports(&self, file: u32) -> Cow<'_, [(Import, Vec<u32>)]> {
        (**self).imports(file)
    }

    fn defines(&self, file: u32, name: u32) -> bool {
        (**self).defines(file, name)
    }

    fn definers(&self, name: u32) -> Cow<'_, [u32]> {
        (**self).definers(name)
    }

    fn name_id(&self, name: &str) -> Option<u32> {
        (**self).name_id(name)
    }
}

/// Binds the references of files, reusing its buffers from file to file.
pub(super) struct Binder<'g, 'a> {
    graph: &'g Graph<'a>,
    /// `seen[f] == round`: file `f` is in the closure being computed.
    seen: Vec<u32>,
    round: u32,
    stack: Vec<u32>,
    /// The rule for languages with imports.
    imported: Imported<&'g Graph<'a>>,
}

/// Binds references by the rule for languages with imports, over `tables`, keeping what each
/// file's imports bring once read.
pub(super) struct Imported<T> {
    pub(super) tables: T,
    taken: HashMap<u32, Rc<Taken>>,
}

impl<'g, 'a> Binder<'g, 'a> {
    pub(super) fn new(graph: &'g Graph<'a>) -> Binder<'g, 'a> {
        Binder {
            graph,
            seen: vec![0; graph.languages.len()],
            round: 0,
            stack: Vec::new(),
            imported: Imported::new(graph),
        }
    }

    /// For each of `names` (name ids) that file `file` references, the files whose definitions
    /// it binds to (empty: found by name).
    pub(super) fn bind(&mut self, file: u32, names: &[u32]) -> Vec<Bound> {
        let graph = self.graph;
        match graph.languages.get(file as usize).copied().flatten() {
            Some(Language::C | Language::Cpp) => {
                self.closure(file);
                let project = graph.projects.get(file as usize).copied().flatten();
                let enclosing = project.and_then(|p| graph.enclosing.get(p as usize));
                names
                    .iter()
                    .map(|&n| {
                        let definers = graph.definers_of(n);
                        let visible: Vec<u32> = definers
                            .iter()
                            .copied()
                            .filter(|&d| self.seen.get(d as usize) == Some(&self.round))
                            .collect();
                        if !visible.is_empty() {
                            return Bound::Resolved(visible);
                        }
                        let Some(enclosing) = enclosing else {
                            return Bound::ByName;
                        };
                        let within: Vec<u32> = definers
                            .iter()
                            .copied()
                            .filter(|&d| {
                                graph
                                    .projects
                                    .get(d as usize)
                                    .copied()
                                    .flatten()
                                    .is_some_and(|p| enclosing.binary_search(&p).is_ok())
                                    && graph.private.get(d as usize).is_none_or(|functions| {
                                        functions
                                            .as_ref()
                                            .is_none_or(|f| f.binary_search(&n).is_ok())
                                    })
                            })
                            .collect();
                        if within.len() == definers.len() {
                            Bound::ByName
                        } else {
                            Bound::Within(within)
                        }
                    })
                    .collect()
            }
            Some(
                Language::Python
                | Language::JavaScript
                | Language::TypeScript
                | Language::Tsx
                | Language::Java
                | Language::Go,
            ) => names
                .iter()
                .map(|&n| match self.imported.bind(file, n) {
                    found if found.is_empty() => Bound::ByName,
                    found => Bound::Resolved(found),
                })
                .collect(),
            _ => vec![Bound::ByName; names.len()],
        }
    }

    /// Marks `file` and its include closure with a new round.
    fn closure(&mut self, file: u32) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.round = 1;
        }
        let Some(slot) = self.seen.get_mut(file as usize) else {
            return;
        };
        *slot = self.round;
        self.stack.clear();
        self.stack.push(file);
        while let Some(f) = self.stack.pop() {
            for &t in self.graph.edges.get(f as usize).into_iter().flatten() {
                if let Some(s) = self.seen.get_mut(t as usize)
                    && *s != self.round
                {
                    *s = self.round;
                    self.stack.push(t);
                }
            }
        }
    }
}

impl<T: Tables> Imported<T> {
    pub(super) fn new(tables: T) -> Imported<T> {
        Imported {
            tables,
            taken: HashMap::new(),
        }
    }

    /// What file `file`'s imports bring, names as ids (read once per file).
    fn taken(&mut self, file: u32) -> Rc<Taken> {
        if let Some(taken) = self.taken.get(&file) {
            return Rc::clone(taken);
        }
        let graph = &self.tables;
        let mut taken = Taken::default();
        for (k, (import, targets)) in graph.imports(file).iter().enumerate() {
            taken.targets.push(targets.clone());
            let k = k as u32;
            if import.names.is_empty() || import.form == Form::Package {
                taken.modules.push(k);
            }
            if let Some(alias) = import.alias.as_deref().and_then(|a| graph.name_id(a)) {
                taken.aliases.push((alias, k));
            }
            for (orig, local) in &import.names {
                if orig == "*" {
                    taken.stars.push(k);
                } else if let (Some(local_id), Some(orig_id)) =
                    (graph.name_id(local), graph.name_id(orig))
                {
                    taken.named.push((local_id, orig_id, k));
                    if orig != local {
                        taken.spelled.push((orig_id, k));
                    }
                }
            }
        }
        taken.named.sort_unstable();
        taken.aliases.sort_unstable();
        taken.spelled.sort_unstable();
        let taken = Rc::new(taken);
        self.taken.insert(file, Rc::clone(&taken));
        taken
    }

    /// Rules (a) to (c) of the module doc for a file with imports.
    pub(super) fn bind(&mut self, file: u32, name: u32) -> Vec<u32> {
        let language = self.tables.language(file);
        // JavaScript's imported names are constants of the module (`import`, `const x =
        // require()`): a definition of the same name in the file is another thing (a property,
        // a method), so the imports come first there.
        let script = matches!(
            language,
            Some(Language::JavaScript | Language::TypeScript | Language::Tsx)
        );
        if !script && self.tables.defines(file, name) {
            return vec![file];
        }
        // Java's and Go's imports re-export nothing.
        let reexporting = !matches!(language, Some(Language::Java | Language::Go));
        // Java: a class of the file's own package hides one an `a.b.*` import (or
        // `java.lang`) brings (JLS 6.4.1): those come after the package.
        let java = language == Some(Language::Java);
        let taken = self.taken(file);
        let targets = &taken.targets;
        let mut out = Vec::new();
        let mut seen = HashMap::new();
        // The module itself bound to the name (`const send = require("send")`, `import copy`):
        // the module's own definition of the name.
        for &(_, k) in with_key(&taken.aliases, name) {
            self.follow(reexporting, &targets[k as usize], name, &mut seen, &mut out);
        }
        let from = taken.named.partition_point(|e| e.0 < name);
        for &(_, orig, k) in taken.named[from..].iter().take_while(|e| e.0 == name) {
            self.follow(reexporting, &targets[k as usize], orig, &mut seen, &mut out);
        }
        if !java {
            for &k in &taken.stars {
                self.follow(reexporting, &targets[k as usize], name, &mut seen, &mut out);
            }
        }
        if out.is_empty() {
            // The name as the import statement spells what it takes (`itemgetter` in `from
            // operator import itemgetter as _getter`, `a` in `import { a as b }`): the
            // definition it takes.
            for &(_, k) in with_key(&taken.spelled, name) {
                self.follow(reexporting, &targets[k as usize], name, &mut seen, &mut out);
            }
        }
        if script && out.is_empty() && self.tables.defines(file, name) {
            return vec![file];
        }
        if out.is_empty() {
            for &k in &taken.modules {
                self.follow(reexporting, &targets[k as usize], name, &mut seen, &mut out);
            }
        }
        if out.is_empty() && java {
            for &k in &taken.stars {
                self.follow(reexporting, &targets[k as usize], name, &mut seen, &mut out);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The files of `targets` (sorted) giving `name`: with `reexporting`, as each exports it
    /// (`exported`); else (Java, Go: a file gives only what it defines) those of the name's
    /// definers that are targets, found from the definers (an import of a package names all
    /// its files, and Java's `java.lang.*` is every file's).
    fn follow(
        &mut self,
        reexporting: bool,
        targets: &[u32],
        name: u32,
        seen: &mut HashMap<(u32, u32), u32>,
        out: &mut Vec<u32>,
    ) {
        if reexporting {
            for &t in targets {
                self.exported(t, name, REEXPORT_DEPTH, seen, out);
            }
        } else {
            let definers = self.tables.definers(name);
            out.extend(definers.iter().filter(|d| targets.binary_search(d).is_ok()));
        }
    }

    /// The files defining `name` as file `file` exports it: itself, or through its own imports
    /// (Java's and Go's never re-export). `seen`: the files and names already followed, with
    /// the depth left then, so that each is followed once.
    fn exported(
        &mut self,
        file: u32,
        name: u32,
        depth: u32,
        seen: &mut HashMap<(u32, u32), u32>,
        out: &mut Vec<u32>,
    ) {
        if seen
            .get(&(file, name))
            .is_some_and(|&before| before >= depth)
        {
            return;
        }
        seen.insert((file, name), depth);
        if self.tables.defines(file, name) {
            out.push(file);
            return;
        }
        let reexports = !matches!(
            self.tables.language(file),
            Some(Language::Java | Language::Go)
        );
        if depth == 0 || !reexports {
            return;
        }
        let taken = self.taken(file);
        let mut next: Vec<(u32, u32)> = Vec::new();
        for &(_, k) in with_key(&taken.aliases, name) {
            next.push((name, k));
        }
        let from = taken.named.partition_point(|e| e.0 < name);
        for &(_, orig, k) in taken.named[from..].iter().take_while(|e| e.0 == name) {
            next.push((orig, k));
        }
        for &k in &taken.stars {
            next.push((name, k));
        }
        for (wanted, k) in next {
            for &t in &taken.targets[k as usize] {
                if t != file {
                    self.exported(t, wanted, depth - 1, seen, out);
                }
            }
        }
    }
}

/// The entries of `sorted` (by their first field) whose first field is `key`.
fn with_key(sorted: &[(u32, u32)], key: u32) -> &[(u32, u32)] {
    let from = sorted.partition_point(|e| e.0 < key);
    let to = from + sorted[from..].partition_point(|e| e.0 == key);
    &sorted[from..to]
}

/// What a file's imports bring, names as ids.
#[derive(Default)]
struct Taken {
    /// (local name, original name, import index), sorted.
    named: Vec<(u32, u32, u32)>,
    /// (original name, import index) of the names taken under another local name, sorted.
    spelled: Vec<(u32, u32)>,
    /// (the name a module is bound to, import index), sorted.
    aliases: Vec<(u32, u32)>,
    /// The imports of `*`.
    stars: Vec<u32>,
    /// The whole-module imports and the package.
    modules: Vec<u32>,
    /// The files each import names.
    targets: Vec<Vec<u32>>,
}

#[cfg(test)]
mod tests;
