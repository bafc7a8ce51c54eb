//! Building the symbol file's tables in memory from the parses of files given in path order,
//! and writing them (the layout is in the parent module's doc).
//!
//! A merge ([`Builder::merging`]) builds a new file from an older one and the parses of the
//! files changed since: the older file's records of the files kept are copied as they are
//! (their definitions, their names' counts), and each name's run of references is written
//! again with the kept files renumbered and the new parses' references in their files' place.
//! Names keep the older file's ids while building; a name only dropped files used stays, with
//! no definition and no reference.

use std::collections::HashMap;
use std::io::{Seek, Write};
use std::sync::Arc;

use smallvec::SmallVec;

use crate::boundary::FileIdentity;
use crate::outline::SymbolKind;
use crate::outline::lang::Language;
use crate::outline::parse::Parsed;
use crate::outline::role::Role;

use super::super::base::{RECORD, push_record};
use super::super::bind::Binder;
use super::super::format::{Kind, SYMBOLS, Writer};
use super::calls::CallLists;
use super::links::{Linked, Strings, encode_imports, push_bound};
use super::varint::{push_varint, zigzag};

mod link;
use super::{DEFINITION, FILE_INFO, NONE, Status, StoredReference, Symbols, decode_run};

/// One file handed to [`build`].
pub(in crate::index) struct Input {
    pub(in crate::index) path: String,
    pub(in crate::index) meta: FileIdentity,
    pub(in crate::index) trusted: bool,
    pub(in crate::index) outcome: Outcome,
}

/// What one file's parse gave.
pub(in crate::index) enum Outcome {
    Parsed(Language, Arc<Parsed>),
    Unparsed,
    NoParser,
}

/// The position of a choice's name in its list: its code in the file.
fn code_of(name: &str, names: &[&str]) -> u8 {
    names.iter().position(|n| *n == name).unwrap_or(0) as u8
}

/// A name's references as they are encoded while building, with the file and line of the last
/// (a run is empty until its first). Most names have one or two references: their bytes stay in
/// place, without a heap block of their own.
#[derive(Default)]
struct Run {
    bytes: SmallVec<[u8; 16]>,
    file: u32,
    line: u32,
}

/// The older file a merge starts from, and where each of its files went in the new one.
struct Base {
    symbols: Arc<Symbols>,
    /// The new index of each of its files (`NONE`: not kept).
    files: Vec<u32>,
    /// Its names: their ids are theirs while building.
    names: u32,
}

impl Run {
    /// Appends a reference (in file order, then the file's own order).
    fn push(&mut self, file: u32, line: u32, column: u32, enclosing: Option<u32>, role: Role) {
        if self.bytes.is_empty() || self.file != file {
            push_varint(&mut self.bytes, u64::from(file - self.file));
            push_varint(&mut self.bytes, u64::from(line));
        } else {
            push_varint(&mut self.bytes, 0);
            let delta = i64::from(line) - i64::from(self.line);
            push_varint(&mut self.bytes, zigzag(delta));
        }
        self.file = file;
        self.line = line;
        push_varint(&mut self.bytes, u64::from(column));
        let enclosing = enclosing.map_or(0, |e| u64::from(e) + 1);
        push_varint(&mut self.bytes, enclosing << 3 | u64::from(role.code()));
    }
}

/// The tables of the symbol file, built in memory from files given in path order.
#[derive(Default)]
pub(in crate::index) struct Builder {
    files: Vec<(String, FileIdentity, bool, [u8; 4], u32, u32)>,
    base: Option<Base>,
    /// Every name met that the base does not hold, each once, with its build id (its place in
    /// `runs`, after the base's names).
    ids: HashMap<Box<str>, u32>,
    runs: Vec<Run>,
    /// Definition records with names as build ids.
    definitions: Vec<(u32, u32, u32, u32, u8, u16)>,
    file_names: Vec<Vec<(u32, u32)>>,
    /// Each definition's calls (`calls`).
    calls: CallLists,
    /// Each file's imports as written, encoded (`links`: no files named yet), and the strings
    /// they spell.
    imports: Vec<Vec<u8>>,
    strings: Strings,
    /// The tree's `package.json` and `go.mod` files by path, for the import resolvers.
    manifests: HashMap<String, String>,
}

impl Builder {
    /// The tree's manifests (`package.json`, `go.mod`) the import resolvers read.
    pub(in crate::index) fn set_manifests(&mut self, manifests: HashMap<String, String>) {
        self.manifests = manifests;
    }

    /// A builder whose files are added in path order, each either from `base` (its record as it
    /// is, [`Builder::add_stored`]) or parsed ([`Builder::add`]).
    pub(in crate::index) fn merging(base: Arc<Symbols>) -> Builder {
        let names = base.names_len();
        let mut runs = Vec::new();
        runs.resize_with(names as usize, Run::default);
        Builder {
            base: Some(Base {
                files: vec![NONE; base.files_len() as usize],
                symbols: base,
                names,
            }),
            runs,
            ..Builder::default()
        }
    }

    fn id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.base.as_ref().and_then(|b| b.symbols.name_id(name)) {
            return id;
        }
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.runs.len() as u32;
        self.ids.insert(name.into(), id);
        self.runs.push(Run::default());
        id
    }

    /// Every name by its build id: the base's, then those met since.
    fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = vec![""; self.runs.len()];
        if let Some(base) = &self.base {
            for (id, name) in names.iter_mut().enumerate().take(base.names as usize) {
                *name = base.symbols.name(id as u32).unwrap_or_default();
            }
        }
        for (name, &id) in &self.ids {
            names[id as usize] = name;
        }
        names
    }

    /// Adds the base's file `old` as it is recorded (files come in path order); false when the
    /// base has no such file.
    pub(in crate::index) fn add_stored(&mut self, old: u32) -> bool {
        let Some(base) = &self.base else {
            return false;
        };
        let symbols = Arc::clone(&base.symbols);
        let Some(stored) = symbols.file(old) else {
            return false;
        };
        let file = self.files.len() as u32;
        let first = self.definitions.len() as u32;
        let mut info = [0u8; 4];
        info[0] = stored
            .language
            .map_or(0, |l| code_of(l.name(), Language::NAMES));
        info[1] = stored.status as u8;
        info[2] = u8::from(stored.cut);
        for d in stored.definitions.clone() {
            let Some(d) = symbols.definition(d) else {
                continue;
            };
            self.definitions.push((
                d.name,
                d.line,
                d.end_line,
                d.parent.unwrap_or(NONE),
                code_of(d.kind.name(), SymbolKind::NAMES),
                u16::try_from(d.depth).unwrap_or(u16::MAX),
            ));
        }
        let len = self.definitions.len() as u32 - first;
        self.files.push((
            stored.path.to_string(),
            stored.meta,
            stored.trusted,
            info,
            first,
            len,
        ));
        self.file_names.push(symbols.file_names(old));
        let imports: Vec<Linked> = symbols
            .imports(old)
            .into_iter()
            .map(|(import, _)| (import, Vec::new()))
            .collect();
        self.push_imports(&imports);
        self.calls.add_stored(&symbols, old);
        if let Some(base) = &mut self.base
            && let Some(slot) = base.files.get_mut(old as usize)
        {
            *slot = file;
        }
        true
    }

    /// The run of name `id` to write: the one built, or in a merge, the base's (its kept files
    /// renumbered) and the one built, in file order.
    fn run_of(&self, id: u32) -> std::borrow::Cow<'_, [u8]> {
        let built = &self.runs[id as usize].bytes;
        let Some(base) = self.base.as_ref().filter(|b| id < b.names) else {
            return std::borrow::Cow::Borrowed(built.as_slice());
        };
        let mut all: Vec<StoredReference> = base
            .symbols
            .references_of(id)
            .into_iter()
            .filter_map(|mut r| {
                r.file = *base.files.get(r.file as usize).filter(|&&f| f != NONE)?;
                Some(r)
            })
            .collect();
        all.extend(decode_run(built));
        // Each file's references come from one side, in its own order: a stable sort by file.
        all.sort_by_key(|r| r.file);
        let mut run = Run::default();
        for r in &all {
            run.push(r.file, r.line, r.column, r.enclosing, r.role);
        }
        std::borrow::Cow::Owned(run.bytes.into_vec())
    }

    /// Adds the next file (files come in path order).
    pub(in crate::index) fn add(&mut self, input: Input) {
        let file = self.files.len() as u32;
        let first = self.definitions.len() as u32;
        let mut info = [0u8; 4];
        let mut counts: Vec<(u32, u32)> = Vec::new();
        match &input.outcome {
            Outcome::Parsed(language, parsed) => {
                info[0] = code_of(language.name(), Language::NAMES);
                info[1] = Status::Parsed as u8;
                for entry in &parsed.entries {
                    let name = self.id(&entry.name);
                    self.definitions.push((
                        name,
                        u32::try_from(entry.line).unwrap_or(u32::MAX),
                        u32::try_from(entry.end_line).unwrap_or(u32::MAX),
                        entry.parent.unwrap_or(NONE),
                        code_of(entry.kind.name(), SymbolKind::NAMES),
                        u16::try_from(entry.depth).unwrap_or(u16::MAX),
                    ));
                }
                if let Some(references) = &parsed.references {
                    info[2] = u8::from(references.cut);
                    let local: Vec<u32> = references.names.iter().map(|n| self.id(n)).collect();
                    let mut per_name: HashMap<u32, u32> = HashMap::new();
                    for r in &references.list {
                        let Some(&name) = local.get(r.name as usize) else {
                            continue;
                        };
                        // Every name, with the uses that link files (`Role::links_files`): what
                        // the map's graph counts.
                        *per_name.entry(name).or_default() += u32::from(r.role.links_files());
                        self.runs[name as usize].push(file, r.line, r.column, r.enclosing, r.role);
                    }
                    counts = per_name.into_iter().collect();
                    let imports: Vec<Linked> = references
                        .imports
                        .iter()
                        .map(|i| (i.clone(), Vec::new()))
                        .collect();
                    self.push_imports(&imports);
                    self.calls
                        .add_parsed(&parsed.entries, &references.list, &local);
                } else {
                    self.calls.add_empty(parsed.entries.len() as u32);
                }
            }
            Outcome::Unparsed => info[1] = Status::Unparsed as u8,
            Outcome::NoParser => info[1] = Status::NoParser as u8,
        }
        if !matches!(input.outcome, Outcome::Parsed(..)) {
            self.calls.add_empty(0);
        }
        // A file without references (or not parsed) has no imports.
        if self.imports.len() == self.files.len() {
            self.push_imports(&[]);
        }
        let len = self.definitions.len() as u32 - first;
        self.files
            .push((input.path, input.meta, input.trusted, info, first, len));
        self.file_names.push(counts);
    }

    /// Records the next file's imports (as written).
    fn push_imports(&mut self, imports: &[Linked]) {
        let mut raw = Vec::new();
        encode_imports(imports, &mut self.strings, &mut raw);
        self.imports.push(raw);
    }

    /// The build id of `name`, if the builder has met it.
    fn known(&self, name: &str) -> Option<u32> {
        self.base
            .as_ref()
            .and_then(|b| b.symbols.name_id(name))
            .or_else(|| self.ids.get(name).copied())
    }

    /// Writes the symbol file for `key`.
    pub(in crate::index) fn write<W: Write + Seek>(
        &self,
        out: W,
        key: &[u8],
    ) -> std::io::Result<W> {
        // Names sorted: a build id's rank is its id in the file.
        let names = self.names();
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| names[a as usize].cmp(names[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let mut w = Writer::new(out, &SYMBOLS)?;
        w.section(Kind::Key, key)?;
        let mut records = Vec::with_capacity(self.files.len() * RECORD);
        let mut infos = Vec::with_capacity(self.files.len() * FILE_INFO);
        let mut path_at = 0usize;
        for (path, meta, trusted, info, first, len) in &self.files {
            push_record(&mut records, (path_at, path.len()), meta, NONE, *trusted)?;
            path_at += path.len();
            infos.extend_from_slice(info);
            infos.extend_from_slice(&first.to_le_bytes());
            infos.extend_from_slice(&len.to_le_bytes());
        }
        w.section(Kind::Files, &records)?;
        drop(records);
        w.begin(Kind::Paths)?;
        for file in &self.files {
            w.write(file.0.as_bytes())?;
        }
        w.end()?;
        w.section(Kind::SymFiles, &infos)?;
        drop(infos);
        let mut starts = Vec::with_capacity(order.len() + 1);
        let mut at = 0u32;
        for &id in &order {
            starts.push(at);
            at = u32::try_from(at as usize + names[id as usize].len())
                .map_err(|_| std::io::Error::other("names"))?;
        }
        starts.push(at);
        w.begin(Kind::SymNames)?;
        w.u32s(&starts)?;
        w.end()?;
        w.begin(Kind::SymNameBytes)?;
        for &id in &order {
            w.write(names[id as usize].as_bytes())?;
        }
        w.end()?;
        let mut definitions = Vec::with_capacity(self.definitions.len() * DEFINITION);
        // Each name's definitions: counted, then placed (in definition order within a name).
        let mut starts = vec![0u32; order.len() + 1];
        for &(name, ..) in &self.definitions {
            starts[rank[name as usize] as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut listed = vec![0u32; self.definitions.len()];
        let mut next = starts.clone();
        for (i, &(name, line, end, parent, kind, depth)) in self.definitions.iter().enumerate() {
            let name = rank[name as usize];
            listed[next[name as usize] as usize] = i as u32;
            next[name as usize] += 1;
            for v in [name, line, end, parent] {
                definitions.extend_from_slice(&v.to_le_bytes());
            }
            definitions.extend_from_slice(&[kind, 0]);
            definitions.extend_from_slice(&depth.to_le_bytes());
        }
        w.section(Kind::SymDefinitions, &definitions)?;
        drop(definitions);
        drop(next);
        w.begin(Kind::SymDefinitionStarts)?;
        w.u32s(&starts)?;
        w.end()?;
        w.begin(Kind::SymDefinitionsByName)?;
        w.u32s(&listed)?;
        w.end()?;
        // The runs before their starts (a merge knows a run's length once it is written again).
        let mut offsets = Vec::with_capacity(order.len() + 1);
        let mut at = 0u64;
        w.begin(Kind::SymReferences)?;
        for &id in &order {
            offsets.push(at);
            let run = self.run_of(id);
            at += run.len() as u64;
            w.write(&run)?;
        }
        w.end()?;
        offsets.push(at);
        w.begin(Kind::SymReferenceStarts)?;
        w.u64s(&offsets)?;
        w.end()?;
        let mut offsets = Vec::with_capacity(self.files.len() + 1);
        let mut encoded = Vec::new();
        let known = |name: &str| self.known(name);
        let links = self.link(&known);
        let mut binder = Binder::new(&links.graph);
        let mut bind_starts = Vec::with_capacity(self.files.len() + 1);
        let mut binds = Vec::new();
        for (f, counts) in self.file_names.iter().enumerate() {
            offsets.push(encoded.len() as u64);
            bind_starts.push(binds.len() as u64);
            let mut ranked: Vec<(u32, u32)> =
                counts.iter().map(|&(n, c)| (rank[n as usize], c)).collect();
            ranked.sort_unstable();
            let mut previous = 0u32;
            for &(name, count) in &ranked {
                push_varint(&mut encoded, u64::from(name - previous));
                push_varint(&mut encoded, u64::from(count));
                previous = name;
            }
            let ids: Vec<u32> = ranked.iter().map(|&(r, _)| order[r as usize]).collect();
            for bound in binder.bind(f as u32, &ids) {
                push_bound(&mut binds, &bound);
            }
        }
        offsets.push(encoded.len() as u64);
        bind_starts.push(binds.len() as u64);
        w.begin(Kind::SymFileNameStarts)?;
        w.u64s(&offsets)?;
        w.end()?;
        w.section(Kind::SymFileNames, &encoded)?;
        drop(encoded);
        self.calls.write(&mut w, &rank, |f| {
            let (.., first, len) = self.files[f];
            self.definitions[first as usize..(first + len) as usize]
                .iter()
                .map(|d| d.1)
                .collect()
        })?;
        let mut starts = Vec::with_capacity(links.strings.list.len() + 1);
        let mut at = 0u32;
        for string in &links.strings.list {
            starts.push(at);
            at = u32::try_from(at as usize + string.len())
                .map_err(|_| std::io::Error::other("import strings"))?;
        }
        starts.push(at);
        w.begin(Kind::SymStrings)?;
        w.u32s(&starts)?;
        w.end()?;
        w.begin(Kind::SymStringBytes)?;
        for string in &links.strings.list {
            w.write(string.as_bytes())?;
        }
        w.end()?;
        w.begin(Kind::SymImportStarts)?;
        w.u64s(&links.starts)?;
        w.end()?;
        w.section(Kind::SymImports, &links.imports)?;
        w.begin(Kind::SymBindStarts)?;
        w.u64s(&bind_starts)?;
        w.end()?;
        w.section(Kind::SymBinds, &binds)?;
        w.finish()
    }
}
