//! Each definition's calls, in the symbol file (`SymCallStarts`, `SymCalls`): what
//! `find_calls` reads, so a definition's calls are one read of its file's few bytes rather
//! than the runs of every name its file references.
//!
//! Layout: `SymCallStarts` holds where each file's part of `SymCalls` starts (u64, one more
//! than the files). A file's part is, for each of its definitions in source order, the byte
//! length of that definition's list (a varint), then the lists one after another. A list holds
//! the references of role call whose innermost enclosing definition is that one, in source
//! order, each as three varints: the name's id, the line (the zig-zag delta from the previous
//! call's, the first from the definition's own line) and the column. A call outside every
//! definition is in no list (no body holds it).
//!
//! While building, a list's names are build ids; [`CallLists::write`] writes them as ids of
//! the file (their ranks). A merge copies a kept file's part as it is: the older file's ids
//! are the merge's build ids.

use std::io::{Seek, Write};

use crate::outline::SymbolKind;
use crate::outline::parse::Entry;
use crate::outline::refs::{Reference, References};
use crate::outline::role::Role;

use super::super::format::{Invalid, Kind, Writer, le_u64};
use super::varint::{push_varint, read_varint, unzigzag, zigzag};
use super::{StoredFile, Symbols};

/// The lists of the files added so far, with build ids.
#[derive(Default)]
pub(super) struct CallLists {
    bytes: Vec<u8>,
    /// Where each file's part starts in `bytes` (one more than the files once one is added).
    starts: Vec<u64>,
}

/// One call of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StoredCall {
    pub(super) name: u32,
    pub(super) line: u32,
    pub(super) column: u32,
}

/// Appends `calls`' encoded list (see the module doc) to `out`, lines counted from `line`.
fn encode(out: &mut Vec<u8>, mut line: u32, calls: &[StoredCall]) {
    for call in calls {
        push_varint(out, u64::from(call.name));
        push_varint(out, zigzag(i64::from(call.line) - i64::from(line)));
        push_varint(out, u64::from(call.column));
        line = call.line;
    }
}

/// Decodes one list whose definition is on `line`; `None` when it does not decode.
fn decode(list: &[u8], mut line: u32) -> Option<Vec<StoredCall>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < list.len() {
        let name = u32::try_from(read_varint(list, &mut at)?).ok()?;
        let delta = unzigzag(read_varint(list, &mut at)?);
        line = u32::try_from(i64::from(line).checked_add(delta)?).ok()?;
        let column = u32::try_from(read_varint(list, &mut at)?).ok()?;
        out.push(StoredCall { name, line, column });
    }
    Some(out)
}

/// Splits a file's part into its definitions' lists (`count` of them); `None` when it does not
/// decode.
fn lists(part: &[u8], count: usize) -> Option<Vec<&[u8]>> {
    let mut at = 0;
    let mut lengths = Vec::with_capacity(count);
    for _ in 0..count {
        lengths.push(usize::try_from(read_varint(part, &mut at)?).ok()?);
    }
    let mut out = Vec::with_capacity(count);
    for len in lengths {
        out.push(part.get(at..at.checked_add(len)?)?);
        at += len;
    }
    (at == part.len()).then_some(out)
}

/// Encodes a file's part from its definitions' lists.
fn part(lines: &[u32], calls: &[Vec<StoredCall>]) -> Vec<u8> {
    let mut encoded: Vec<Vec<u8>> = Vec::with_capacity(calls.len());
    for (list, &line) in calls.iter().zip(lines) {
        let mut bytes = Vec::new();
        encode(&mut bytes, line, list);
        encoded.push(bytes);
    }
    let mut out = Vec::new();
    for list in &encoded {
        push_varint(&mut out, list.len() as u64);
    }
    for list in encoded {
        out.extend_from_slice(&list);
    }
    out
}

impl CallLists {
    fn open_file(&mut self) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
    }

    fn close_file(&mut self) {
        self.starts.push(self.bytes.len() as u64);
    }

    /// Adds the next file from its parse: `entries` its definitions, `list` its references,
    /// `local` the build id of each of the parse's names.
    pub(super) fn add_parsed(&mut self, entries: &[Entry], list: &[Reference], local: &[u32]) {
        self.open_file();
        let mut calls: Vec<Vec<StoredCall>> = vec![Vec::new(); entries.len()];
        for r in list.iter().filter(|r| r.role == Role::Call) {
            let (Some(slot), Some(&name)) = (
                r.enclosing.and_then(|e| calls.get_mut(e as usize)),
                local.get(r.name as usize),
            ) else {
                continue;
            };
            slot.push(StoredCall {
                name,
                line: r.line,
                column: r.column,
            });
        }
        let lines: Vec<u32> = entries
            .iter()
            .map(|e| u32::try_from(e.line).unwrap_or(u32::MAX))
            .collect();
        let encoded = part(&lines, &calls);
        self.bytes.extend_from_slice(&encoded);
        self.close_file();
    }

    /// Adds the next file with `definitions` definitions and no call in any.
    pub(super) fn add_empty(&mut self, definitions: u32) {
        self.open_file();
        self.bytes
            .extend(std::iter::repeat_n(0u8, definitions as usize));
        self.close_file();
    }

    /// Adds the next file as `symbols` (the base of a merge, whose ids are the build's)
    /// records its file `old`.
    pub(super) fn add_stored(&mut self, symbols: &Symbols, old: u32) {
        self.open_file();
        self.bytes.extend_from_slice(symbols.call_part(old));
        self.close_file();
    }

    /// Writes the two sections, each file's lists with its names' ids in the file (`rank` of
    /// each build id); `files` gives each file's definitions' lines, in file order.
    pub(super) fn write<W: Write + Seek>(
        &self,
        w: &mut Writer<W>,
        rank: &[u32],
        mut lines_of: impl FnMut(usize) -> Vec<u32>,
    ) -> std::io::Result<()> {
        let bad = || std::io::Error::other("a call list");
        let mut offsets = Vec::with_capacity(self.starts.len().max(1));
        offsets.push(0u64);
        w.begin(Kind::SymCalls)?;
        for (f, bounds) in self.starts.windows(2).enumerate() {
            let built = &self.bytes[bounds[0] as usize..bounds[1] as usize];
            let lines = lines_of(f);
            let mut calls = Vec::with_capacity(lines.len());
            for (list, &line) in lists(built, lines.len())
                .ok_or_else(bad)?
                .iter()
                .zip(&lines)
            {
                let mut list = decode(list, line).ok_or_else(bad)?;
                for call in &mut list {
                    call.name = *rank.get(call.name as usize).ok_or_else(bad)?;
                }
                calls.push(list);
            }
            let encoded = part(&lines, &calls);
            w.write(&encoded)?;
            offsets.push(offsets[f] + encoded.len() as u64);
        }
        w.end()?;
        w.begin(Kind::SymCallStarts)?;
        w.u64s(&offsets)?;
        w.end()
    }
}

impl Symbols {
    /// Checks the call sections' shape against the file table (`starts` as `open` checks
    /// every table's).
    pub(super) fn check_calls(&self) -> Result<(), Invalid> {
        let files = self.files_len() as usize;
        if self.call_starts.len() != (files + 1) * 8 {
            return Err(Invalid("table sizes"));
        }
        let start = |k: usize| le_u64(&self.bytes, self.call_starts.start + k * 8);
        if (0..files).any(|k| start(k) > start(k + 1)) || start(files) != self.calls.len() as u64 {
            return Err(Invalid("starts out of order"));
        }
        Ok(())
    }

    /// File `f`'s part of `SymCalls` (empty for no such file).
    fn call_part(&self, f: u32) -> &[u8] {
        if f >= self.files_len() {
            return &[];
        }
        let at = self.call_starts.start + f as usize * 8;
        let (start, end) = (le_u64(&self.bytes, at), le_u64(&self.bytes, at + 8));
        self.bytes
            .get(self.calls.start + start as usize..self.calls.start + end as usize)
            .unwrap_or_default()
    }

    /// The calls of each definition of file `f` that `wanted` (given the definition's index in
    /// the file) keeps, as `(index, calls in source order)`; `None` when the file's part does
    /// not decode (the checksums make that a forged file's only).
    pub(super) fn definition_calls(
        &self,
        f: u32,
        file: &StoredFile<'_>,
        wanted: &dyn Fn(u32) -> bool,
    ) -> Option<Vec<(u32, Vec<StoredCall>)>> {
        let count = file.definitions.end - file.definitions.start;
        let mut out = Vec::new();
        for (k, list) in lists(self.call_part(f), count as usize)?
            .into_iter()
            .enumerate()
        {
            let k = k as u32;
            if list.is_empty() || !wanted(k) {
                continue;
            }
            let line = self.definition(file.definitions.start + k)?.line;
            out.push((k, decode(list, line)?));
        }
        Some(out)
    }
}

/// The calls made in the bodies of file `f`'s definitions named `name` (of `kinds`, when any),
/// their nested definitions' included, as the references of a parse (role call, source order,
/// names numbered within the list): what `outline::calls::file_calls` reads of a parse, so the
/// answer is the one a parse of the file gives. `None` when the file's records do not read.
pub(in crate::index) fn body_calls(
    symbols: &Symbols,
    f: u32,
    name: &str,
    kinds: &[SymbolKind],
) -> Option<References> {
    let file = symbols.file(f)?;
    let definitions: Vec<_> = file
        .definitions
        .clone()
        .map(|d| symbols.definition(d))
        .collect::<Option<_>>()?;
    let target = symbols.name_id(name);
    let is_target = |k: usize| {
        definitions.get(k).is_some_and(|d| {
            Some(d.name) == target && (kinds.is_empty() || kinds.contains(&d.kind))
        })
    };
    // A definition is looked into when it or one enclosing it is a target (a parent comes
    // before its child; the step limit only guards against a malformed record).
    let within = |k: u32| {
        let mut at = Some(k as usize);
        let mut steps = definitions.len();
        while let Some(k) = at {
            if is_target(k) {
                return true;
            }
            if steps == 0 {
                break;
            }
            steps -= 1;
            at = definitions
                .get(k)
                .and_then(|d| d.parent)
                .map(|p| p as usize);
        }
        false
    };
    let mut names: Vec<String> = Vec::new();
    let mut local: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut list: Vec<Reference> = Vec::new();
    for (k, calls) in symbols.definition_calls(f, &file, &within)? {
        for call in calls {
            let id = match local.get(&call.name) {
                Some(&id) => id,
                None => {
                    names.push(symbols.name(call.name)?.to_string());
                    let id = names.len() as u32 - 1;
                    local.insert(call.name, id);
                    id
                }
            };
            list.push(Reference {
                name: id,
                line: call.line,
                column: call.column,
                role: Role::Call,
                enclosing: Some(k),
            });
        }
    }
    // Source order, as a parse lists them (a stable sort: each list is in order already).
    list.sort_by_key(|r| (r.line, r.column));
    Some(References {
        names,
        list,
        cut: file.cut,
        imports: Vec::new(),
    })
}
