//! The symbol index: every definition and every reference of a tree's source files, in one file
//! of the index's container (`format::SYMBOLS`), written once, mapped by every process on the
//! tree and read in place.
//!
//! Why a second file in the same machine rather than new sections in the n-gram file: the two
//! contents are built at different speeds (the n-gram index in seconds, the symbols by parsing
//! every file in workers, a minute or more on a large tree), so each is written, replaced and
//! adopted on its own; they share the container, the checks, the key, the place, the lock's
//! protocol, the atomic replacement and the cache's pruning (`format`, `store`, `files`), and
//! the file table's records (`base::push_record`), and differ only in their sections.
//!
//! Sections (all integers little-endian; `NONE` is `u32::MAX`):
//! - `Files`, `Paths`: the file table as the n-gram base keeps it (64-byte records sorted by
//!   path, with the identity each file had when it was parsed, and whether it vouched for the
//!   contents), every file that may have a parser.
//! - `SymFiles`: per file 12 bytes: language code, status (parsed, unparsed, no parser), cut
//!   (more references than a file's answer holds), a pad byte, the file's first definition
//!   (u32) and its number of definitions (u32).
//! - `SymNames`, `SymNameBytes`: every name defined or referenced, once, sorted (byte order):
//!   a name's id is its rank.
//! - `SymDefinitions`: 20-byte records, file after file, in source order: name id, line, end
//!   line, parent (index within the file, or `NONE`), kind code (u8), a pad byte, depth (u16).
//! - `SymDefinitionStarts`, `SymDefinitionsByName`: each name's definitions (their indices).
//! - `SymReferenceStarts`, `SymReferences`: each name's references, one contiguous run of
//!   LEB128 varints per name, by file (path order) then in the file's own order: the file's
//!   delta from the previous reference's, the line (absolute at a new file, else the zig-zag
//!   delta), the column, and `(enclosing + 1) << 3 | role` (enclosing: index within the file).
//!   One name's references, with their totals by role, are one read of a few bytes each.
//! - `SymFileNameStarts`, `SymFileNames`: per file, the names it references with how often (the
//!   name id's delta and the count, varints), the repository map's graph precomputed.
//! - `SymCallStarts`, `SymCalls`: per file, each definition's calls (the name, line and
//!   column of each reference of role call it is the innermost definition of), what
//!   `find_calls` reads (see `calls`).
//! - `SymStrings` to `SymBinds`: each file's imports (or `#include`s) with the files they
//!   name, and each name it references with the files its references bind to (see `links`).
//!
//! `SymFileNames` lists every name a file references; the count is of the uses that link
//! files (`Role::links_files`), 0 for a name used only otherwise.
//!
//! A file of the table is answered from here only while its identity is the one recorded and
//! was old enough to vouch for the contents (`fresh`); every other file with a parser (changed,
//! new, or not parsed when written) is the overlay, parsed cold at query time (`navigate`).

use std::ops::Range;
use std::sync::Arc;

use crate::boundary::FileIdentity;
use crate::outline::SymbolKind;
use crate::outline::lang::Language;
use crate::outline::role::Role;

use super::base::{RECORD, read_record, record_path_in};
use super::format::{Invalid, Kind, SYMBOLS, Sections, le_u32, le_u64, partition_point};
use super::postings::Backing;
use super::store::Content;

mod calls;
mod fresh;
mod links;
mod varint;
mod write;

pub(super) use calls::body_calls;
pub(super) use links::Linked;
#[cfg(test)]
use varint::zigzag;
use varint::{read_varint, unzigzag};
pub(super) use write::{Builder, Input, Outcome};

pub(super) const NONE: u32 = u32::MAX;

/// What a symbol file's records hold, in its key: a file of another (an older engine's,
/// without the names in macro bodies) is rebuilt, never read.
pub(super) const CONTENT: &[u8] = b"\0symbols: macro bodies, bindings";
const FILE_INFO: usize = 12;
const DEFINITION: usize = 20;

/// What the parse of a file gave, as the index keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Outlined with its references.
    Parsed = 0,
    /// Refused or failed (too large, a timeout, a crash): parsed cold whenever asked.
    Unparsed = 1,
    /// No parser after all (an extensionless file without a `#!` line).
    NoParser = 2,
}

/// One name's run of references decoded (see the module doc); a run that does not decode ends
/// early.
pub(super) fn decode_run(run: &[u8]) -> Vec<StoredReference> {
    let mut out = Vec::new();
    each_in_run(run, NONE, &mut |r| out.push(r));
    out
}

/// Hands each reference of a run in files up to `last` to `each` (the run is in file order).
fn each_in_run(run: &[u8], last: u32, each: &mut dyn FnMut(StoredReference)) {
    let mut first = true;
    let mut at = 0;
    let (mut file, mut line) = (0u64, 0i64);
    while at < run.len() {
        let Some(step) = read_varint(run, &mut at) else {
            break;
        };
        let Some(l) = read_varint(run, &mut at) else {
            break;
        };
        if step > 0 || first {
            first = false;
            file += step;
            line = l as i64;
        } else {
            line += unzigzag(l);
        }
        if file > u64::from(last) {
            break;
        }
        let (Some(column), Some(packed)) = (read_varint(run, &mut at), read_varint(run, &mut at))
        else {
            break;
        };
        let Some(role) = Role::from_code((packed & 7) as u8) else {
            break;
        };
        let enclosing = packed >> 3;
        each(StoredReference {
            file: u32::try_from(file).unwrap_or(NONE),
            line: u32::try_from(line).unwrap_or(0),
            column: u32::try_from(column).unwrap_or(0),
            role,
            enclosing: (enclosing > 0).then(|| u32::try_from(enclosing - 1).unwrap_or(NONE)),
        });
    }
}

/// One definition of the file, as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StoredDefinition {
    pub(super) name: u32,
    pub(super) line: u32,
    pub(super) end_line: u32,
    pub(super) parent: Option<u32>,
    pub(super) kind: SymbolKind,
    pub(super) depth: u32,
}

/// One reference, as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StoredReference {
    pub(super) file: u32,
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) role: Role,
    /// The enclosing definition's index within its file.
    pub(super) enclosing: Option<u32>,
}

/// A file of the symbol file's table.
#[derive(Clone, Debug)]
pub(super) struct StoredFile<'a> {
    pub(super) path: &'a str,
    pub(super) meta: FileIdentity,
    pub(super) trusted: bool,
    pub(super) language: Option<Language>,
    pub(super) status: Status,
    pub(super) cut: bool,
    /// The index of its first definition, and how many it has.
    pub(super) definitions: Range<u32>,
}

/// A symbol file, checked and read in place.
pub(super) struct Symbols {
    bytes: Arc<Backing>,
    files: Range<usize>,
    paths: Range<usize>,
    infos: Range<usize>,
    names: Range<usize>,
    name_bytes: Range<usize>,
    definitions: Range<usize>,
    definition_starts: Range<usize>,
    by_name: Range<usize>,
    reference_starts: Range<usize>,
    references: Range<usize>,
    file_name_starts: Range<usize>,
    file_names: Range<usize>,
    call_starts: Range<usize>,
    calls: Range<usize>,
    strings: Range<usize>,
    string_bytes: Range<usize>,
    import_starts: Range<usize>,
    imports: Range<usize>,
    bind_starts: Range<usize>,
    binds: Range<usize>,
    /// Which records are fresh, for the overlay in use (`fresh`).
    memo: fresh::Memo,
}

impl Content for Symbols {
    fn open(bytes: Arc<Backing>, key: &[u8]) -> Result<Symbols, Invalid> {
        Symbols::open(bytes, key)
    }
}

impl Symbols {
    /// Checks `bytes` as the symbol file made for `key`: the container, the key, and the shape
    /// of every table (sizes, sorted paths and names, monotone starts within their sections).
    /// The varint runs are read with bounds checks, so no byte of a file that passed can make a
    /// read go out of bounds.
    pub(super) fn open(bytes: Arc<Backing>, key: &[u8]) -> Result<Symbols, Invalid> {
        let sections = Sections::check(&bytes, &SYMBOLS)?;
        if bytes[sections.span(Kind::Key)] != *key {
            return Err(Invalid("made for another tree or other options"));
        }
        let s = Symbols {
            files: sections.span(Kind::Files),
            paths: sections.span(Kind::Paths),
            infos: sections.span(Kind::SymFiles),
            names: sections.span(Kind::SymNames),
            name_bytes: sections.span(Kind::SymNameBytes),
            definitions: sections.span(Kind::SymDefinitions),
            definition_starts: sections.span(Kind::SymDefinitionStarts),
            by_name: sections.span(Kind::SymDefinitionsByName),
            reference_starts: sections.span(Kind::SymReferenceStarts),
            references: sections.span(Kind::SymReferences),
            file_name_starts: sections.span(Kind::SymFileNameStarts),
            file_names: sections.span(Kind::SymFileNames),
            call_starts: sections.span(Kind::SymCallStarts),
            calls: sections.span(Kind::SymCalls),
            strings: sections.span(Kind::SymStrings),
            string_bytes: sections.span(Kind::SymStringBytes),
            import_starts: sections.span(Kind::SymImportStarts),
            imports: sections.span(Kind::SymImports),
            bind_starts: sections.span(Kind::SymBindStarts),
            binds: sections.span(Kind::SymBinds),
            memo: fresh::Memo::default(),
            bytes,
        };
        let files = s.files.len() / RECORD;
        let names = (s.names.len() / 4).saturating_sub(1);
        let definitions = s.definitions.len() / DEFINITION;
        if !s.files.len().is_multiple_of(RECORD)
            || s.infos.len() != files * FILE_INFO
            || s.names.len() != (names + 1) * 4
            || !s.definitions.len().is_multiple_of(DEFINITION)
            || s.definition_starts.len() != (names + 1) * 4
            || s.by_name.len() != definitions * 4
            || s.reference_starts.len() != (names + 1) * 8
            || s.file_name_starts.len() != (files + 1) * 8
        {
            return Err(Invalid("table sizes"));
        }
        let monotone = |range: &Range<usize>, width: usize, end: usize| {
            let value = |k: usize| match width {
                4 => le_u32(&s.bytes, range.start + k * 4) as usize,
                _ => le_u64(&s.bytes, range.start + k * 8) as usize,
            };
            let n = range.len() / width;
            (0..n).all(|k| k == 0 || value(k - 1) <= value(k)) && (n == 0 || value(n - 1) == end)
        };
        if !monotone(&s.names, 4, s.name_bytes.len())
            || !monotone(&s.definition_starts, 4, definitions)
            || !monotone(&s.reference_starts, 8, s.references.len())
            || !monotone(&s.file_name_starts, 8, s.file_names.len())
        {
            return Err(Invalid("starts out of order"));
        }
        let mut previous: Option<&str> = None;
        for k in 0..names {
            let name = s.name(k as u32).ok_or(Invalid("a name"))?;
            if previous.is_some_and(|p| p >= name) {
                return Err(Invalid("names out of order"));
            }
            previous = Some(name);
        }
        let mut previous: Option<&str> = None;
        let mut next_definition = 0u32;
        for i in 0..files {
            let file = s.file(i as u32).ok_or(Invalid("a file"))?;
            if previous.is_some_and(|p| p >= file.path) {
                return Err(Invalid("paths out of order"));
            }
            previous = Some(file.path);
            if file.definitions.start != next_definition {
                return Err(Invalid("definitions of a file"));
            }
            next_definition = file.definitions.end;
        }
        if next_definition as usize != definitions {
            return Err(Invalid("definitions of a file"));
        }
        s.check_calls()?;
        s.check_links()?;
        for i in 0..definitions {
            let at = s.by_name.start + i * 4;
            if le_u32(&s.bytes, at) as usize >= definitions
                || s.definition(i as u32)
                    .is_none_or(|d| d.name as usize >= names)
            {
                return Err(Invalid("a definition"));
            }
        }
        Ok(s)
    }

    /// Whether the symbol file still holds every mapped byte (one `fstat`, see
    /// `Backing::intact`): asked before a call reads it.
    pub(super) fn intact(&self) -> bool {
        self.bytes.intact()
    }

    pub(super) fn file_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }

    pub(super) fn files_len(&self) -> u32 {
        (self.files.len() / RECORD) as u32
    }

    pub(super) fn names_len(&self) -> u32 {
        (self.names.len() / 4).saturating_sub(1) as u32
    }

    /// The `i`-th file of the table.
    pub(super) fn file(&self, i: u32) -> Option<StoredFile<'_>> {
        if i >= self.files_len() {
            return None;
        }
        let at = self.files.start + i as usize * RECORD;
        let (meta, _, trusted) = read_record(&self.bytes, at);
        let info = self.infos.start + i as usize * FILE_INFO;
        let b = &self.bytes;
        let status = match b.get(info + 1)? {
            0 => Status::Parsed,
            1 => Status::Unparsed,
            _ => Status::NoParser,
        };
        let first = le_u32(b, info + 4);
        Some(StoredFile {
            path: record_path_in(b, &self.paths, at)?,
            meta,
            trusted,
            language: Language::NAMES
                .get(*b.get(info)? as usize)
                .and_then(|n| Language::from_name(n)),
            status,
            cut: *b.get(info + 2)? != 0,
            definitions: first..first.checked_add(le_u32(b, info + 8))?,
        })
    }

    /// The path of the `i`-th file of the table (without the rest of its record).
    pub(super) fn path(&self, i: u32) -> Option<&str> {
        if i >= self.files_len() {
            return None;
        }
        record_path_in(
            &self.bytes,
            &self.paths,
            self.files.start + i as usize * RECORD,
        )
    }

    /// The index of the file at `path`.
    pub(super) fn file_index(&self, path: &str) -> Option<u32> {
        let n = self.files_len() as usize;
        let at = partition_point(n, |i| self.file(i as u32).is_some_and(|f| f.path < path));
        self.file(at as u32)
            .filter(|f| f.path == path)
            .map(|_| at as u32)
    }

    /// The name of id `id`.
    pub(super) fn name(&self, id: u32) -> Option<&str> {
        if id >= self.names_len() {
            return None;
        }
        let start = le_u32(&self.bytes, self.names.start + id as usize * 4) as usize;
        let end = le_u32(&self.bytes, self.names.start + id as usize * 4 + 4) as usize;
        let bytes = self
            .bytes
            .get(self.name_bytes.start + start..self.name_bytes.start + end)?;
        std::str::from_utf8(bytes).ok()
    }

    /// The id of `name`, if the index holds it.
    pub(super) fn name_id(&self, name: &str) -> Option<u32> {
        let at = partition_point(self.names_len() as usize, |k| {
            self.name(k as u32).is_some_and(|n| n < name)
        }) as u32;
        (self.name(at) == Some(name)).then_some(at)
    }

    /// The ids of the names starting with `prefix` (a range: names are sorted).
    pub(super) fn prefixed(&self, prefix: &str) -> Range<u32> {
        let start = partition_point(self.names_len() as usize, |k| {
            self.name(k as u32).is_some_and(|n| n < prefix)
        });
        let end = start
            + partition_point(self.names_len() as usize - start, |k| {
                self.name((start + k) as u32)
                    .is_some_and(|n| n.starts_with(prefix))
            });
        start as u32..end as u32
    }

    /// The `i`-th definition.
    pub(super) fn definition(&self, i: u32) -> Option<StoredDefinition> {
        let at = self.definitions.start + i as usize * DEFINITION;
        if at + DEFINITION > self.definitions.end {
            return None;
        }
        let b = &self.bytes;
        let parent = le_u32(b, at + 12);
        Some(StoredDefinition {
            name: le_u32(b, at),
            line: le_u32(b, at + 4),
            end_line: le_u32(b, at + 8),
            parent: (parent != NONE).then_some(parent),
            kind: SymbolKind::NAMES
                .get(*b.get(at + 16)? as usize)
                .and_then(|n| SymbolKind::from_name(n))?,
            depth: u32::from(u16::from_le_bytes([*b.get(at + 18)?, *b.get(at + 19)?])),
        })
    }

    /// The definitions of name `id`, in file then source order.
    pub(super) fn definitions_of(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let starts = self.definition_starts.start + id as usize * 4;
        let (start, end) = if id < self.names_len() {
            (le_u32(&self.bytes, starts), le_u32(&self.bytes, starts + 4))
        } else {
            (0, 0)
        };
        (start..end).map(move |k| le_u32(&self.bytes, self.by_name.start + k as usize * 4))
    }

    /// The file holding definition `i`.
    pub(super) fn file_of_definition(&self, i: u32) -> Option<u32> {
        let n = self.files_len() as usize;
        let at = partition_point(n, |f| {
            self.file(f as u32).is_some_and(|f| f.definitions.end <= i)
        });
        (at < n).then_some(at as u32)
    }

    /// The references to name `id`, by file then in the file's order. A run that does not
    /// decode ends early (the checksums make that a forged file's only).
    pub(super) fn references_of(&self, id: u32) -> Vec<StoredReference> {
        decode_run(self.reference_run(id))
    }

    /// Hands each reference to name `id` in the files up to `last` to `each`, in the order of
    /// [`Symbols::references_of`].
    pub(super) fn each_reference_to(
        &self,
        id: u32,
        last: u32,
        each: &mut dyn FnMut(StoredReference),
    ) {
        each_in_run(self.reference_run(id), last, each);
    }

    /// The encoded references to name `id` (see the module doc).
    fn reference_run(&self, id: u32) -> &[u8] {
        if id >= self.names_len() {
            return &[];
        }
        let starts = self.reference_starts.start + id as usize * 8;
        let start = le_u64(&self.bytes, starts) as usize;
        let end = le_u64(&self.bytes, starts + 8) as usize;
        self.bytes
            .get(self.references.start + start..self.references.start + end)
            .unwrap_or_default()
    }

    /// The names file `i` references, with how often (sorted by name id).
    pub(super) fn file_names(&self, i: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        self.each_file_name(i, &mut |name, count| {
            out.push((name, count));
            true
        });
        out
    }

    /// Hands the names file `i` references, with how often, to `each` in name order, while it
    /// returns true.
    pub(super) fn each_file_name(&self, i: u32, each: &mut dyn FnMut(u32, u32) -> bool) {
        if i >= self.files_len() {
            return;
        }
        let starts = self.file_name_starts.start + i as usize * 8;
        let start = le_u64(&self.bytes, starts) as usize;
        let end = le_u64(&self.bytes, starts + 8) as usize;
        let Some(run) = self
            .bytes
            .get(self.file_names.start + start..self.file_names.start + end)
        else {
            return;
        };
        let (mut at, mut name) = (0, 0u64);
        while at < run.len() {
            let (Some(delta), Some(count)) = (read_varint(run, &mut at), read_varint(run, &mut at))
            else {
                break;
            };
            name += delta;
            if !each(name as u32, count as u32) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests;
