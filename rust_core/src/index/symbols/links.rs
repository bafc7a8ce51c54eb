//! What links the files of a symbol file: each file's imports (or `#include`s) as written with
//! the files each names in the table, and each referenced name's binding (the files whose
//! definitions the file's references to it bind to, `bind`), written by the builder and read by
//! the map and `find_references`.
//!
//! Sections:
//! - `SymStrings`, `SymStringBytes`: the modules and names imports spell, each once (u32
//!   offsets, one more, then the bytes).
//! - `SymImportStarts`, `SymImports`: per file (u64 offsets, one more), varints: the number of
//!   imports, then each: line, form code, form detail (Python's level, whether a script import
//!   re-exports), the module's string, the alias's string + 1 (0: none), the number of names
//!   and each name's two strings (original, local), the number of files it names and each
//!   one's delta from the previous (sorted).
//! - `SymBindStarts`, `SymBinds`: per file (u64 offsets, one more), one entry per entry of the
//!   file's `SymFileNames`, in its order: `files << 2 | how` (how: 0 by name, 1 resolved, 2
//!   by name within those files, see `bind::Bound`), then each file's delta from the previous
//!   (sorted).

use std::collections::HashMap;

use crate::outline::imports::{Form, Import};

use super::super::bind::Bound;
use super::super::format::{Invalid, le_u32, le_u64};
use super::Symbols;
use super::varint::{push_varint, read_varint};

/// An import with the files of the table it names.
pub(in crate::index) type Linked = (Import, Vec<u32>);

/// The strings imports spell, each once, by id.
#[derive(Default)]
pub(super) struct Strings {
    ids: HashMap<Box<str>, u32>,
    pub(super) list: Vec<Box<str>>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.list.len() as u32;
        self.ids.insert(s.into(), id);
        self.list.push(s.into());
        id
    }
}

fn form_code(form: Form) -> (u64, u64) {
    match form {
        Form::System => (0, 0),
        Form::Local => (1, 0),
        Form::Python { level } => (2, u64::from(level)),
        Form::Script { reexport } => (3, u64::from(reexport)),
        Form::Java => (4, 0),
        Form::Go => (5, 0),
        Form::Package => (6, 0),
    }
}

fn form_of(code: u64, detail: u64) -> Option<Form> {
    Some(match code {
        0 => Form::System,
        1 => Form::Local,
        2 => Form::Python {
            level: u8::try_from(detail).ok()?,
        },
        3 => Form::Script {
            reexport: detail != 0,
        },
        4 => Form::Java,
        5 => Form::Go,
        6 => Form::Package,
        _ => return None,
    })
}

/// Appends `imports` (each with the files it names) to `out` as `SymImports` holds a file's.
pub(super) fn encode_imports(imports: &[Linked], strings: &mut Strings, out: &mut Vec<u8>) {
    push_varint(out, imports.len() as u64);
    for (import, targets) in imports {
        let (code, detail) = form_code(import.form);
        push_varint(out, u64::from(import.line));
        push_varint(out, code);
        push_varint(out, detail);
        push_varint(out, u64::from(strings.id(&import.module)));
        let alias = import.alias.as_deref().map_or(0, |a| strings.id(a) + 1);
        push_varint(out, u64::from(alias));
        push_varint(out, import.names.len() as u64);
        for (orig, local) in &import.names {
            push_varint(out, u64::from(strings.id(orig)));
            push_varint(out, u64::from(strings.id(local)));
        }
        push_targets(out, targets);
    }
}

/// Appends a sorted list of files: its length, then each one's delta from the previous.
fn push_targets(out: &mut Vec<u8>, targets: &[u32]) {
    push_varint(out, targets.len() as u64);
    let mut previous = 0;
    for &t in targets {
        push_varint(out, u64::from(t - previous));
        previous = t;
    }
}

/// Appends a binding: `files << 2 | how`, then the files' deltas.
pub(super) fn push_bound(out: &mut Vec<u8>, bound: &Bound) {
    let (files, how) = bound.parts();
    push_varint(out, (files.len() as u64) << 2 | u64::from(how));
    let mut previous = 0;
    for &t in files {
        push_varint(out, u64::from(t - previous));
        previous = t;
    }
}

fn read_bound(run: &[u8], at: &mut usize) -> Option<Bound> {
    let head = read_varint(run, at)?;
    let files = read_files(run, at, head >> 2)?;
    Some(Bound::of((head & 3) as u8, files))
}

/// Steps over a binding.
fn skip_bound(run: &[u8], at: &mut usize) -> Option<()> {
    let head = read_varint(run, at)?;
    for _ in 0..head >> 2 {
        read_varint(run, at)?;
    }
    Some(())
}

fn read_targets(run: &[u8], at: &mut usize) -> Option<Vec<u32>> {
    let count = read_varint(run, at)?;
    read_files(run, at, count)
}

fn read_files(run: &[u8], at: &mut usize, count: u64) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(count.min(64) as usize);
    let mut file = 0u64;
    for _ in 0..count {
        file += read_varint(run, at)?;
        out.push(u32::try_from(file).ok()?);
    }
    Some(out)
}

/// A file's imports from its part of `SymImports` (`string` gives a string by id); what does
/// not decode ends the list.
pub(super) fn decode_imports<'s>(
    run: &[u8],
    string: impl Fn(u32) -> Option<&'s str>,
) -> Vec<Linked> {
    let mut out = Vec::new();
    let mut at = 0;
    let Some(count) = read_varint(run, &mut at) else {
        return out;
    };
    let mut read = || -> Option<Linked> {
        let line = u32::try_from(read_varint(run, &mut at)?).ok()?;
        let code = read_varint(run, &mut at)?;
        let form = form_of(code, read_varint(run, &mut at)?)?;
        let s = |v: u64| string(u32::try_from(v).ok()?).map(str::to_string);
        let module = s(read_varint(run, &mut at)?)?;
        let alias = match read_varint(run, &mut at)? {
            0 => None,
            a => Some(s(a - 1)?),
        };
        let names = read_varint(run, &mut at)?;
        let mut pairs = Vec::with_capacity(names.min(64) as usize);
        for _ in 0..names {
            let orig = s(read_varint(run, &mut at)?)?;
            pairs.push((orig, s(read_varint(run, &mut at)?)?));
        }
        let targets = read_targets(run, &mut at)?;
        let import = Import {
            line,
            form,
            module,
            names: pairs,
            alias,
        };
        Some((import, targets))
    };
    for _ in 0..count {
        match read() {
            Some(linked) => out.push(linked),
            None => break,
        }
    }
    out
}

impl Symbols {
    /// Checks the shapes of the linking sections (sizes and monotone starts).
    pub(super) fn check_links(&self) -> Result<(), Invalid> {
        let files = self.files_len() as usize;
        let strings = (self.strings.len() / 4).saturating_sub(1);
        if self.import_starts.len() != (files + 1) * 8
            || self.bind_starts.len() != (files + 1) * 8
            || self.strings.len() != (strings + 1) * 4
        {
            return Err(Invalid("table sizes"));
        }
        let b = &self.bytes;
        let monotone64 = |starts: &std::ops::Range<usize>, end: usize| {
            let at = |k: usize| le_u64(b, starts.start + k * 8);
            (0..files).all(|k| at(k) <= at(k + 1)) && at(files) == end as u64
        };
        let at32 = |k: usize| le_u32(b, self.strings.start + k * 4);
        if !monotone64(&self.import_starts, self.imports.len())
            || !monotone64(&self.bind_starts, self.binds.len())
            || !(0..strings).all(|k| at32(k) <= at32(k + 1))
            || at32(strings) as usize != self.string_bytes.len()
        {
            return Err(Invalid("starts out of order"));
        }
        Ok(())
    }

    fn part(
        &self,
        starts: &std::ops::Range<usize>,
        data: &std::ops::Range<usize>,
        f: u32,
    ) -> &[u8] {
        if f >= self.files_len() {
            return &[];
        }
        let at = starts.start + f as usize * 8;
        let (start, end) = (le_u64(&self.bytes, at), le_u64(&self.bytes, at + 8));
        self.bytes
            .get(data.start + start as usize..data.start + end as usize)
            .unwrap_or_default()
    }

    fn string(&self, id: u32) -> Option<&str> {
        let at = self.strings.start + id as usize * 4;
        if at + 8 > self.strings.end {
            return None;
        }
        let (start, end) = (le_u32(&self.bytes, at), le_u32(&self.bytes, at + 4));
        let base = self.string_bytes.start;
        let bytes = self.bytes.get(base + start as usize..base + end as usize)?;
        std::str::from_utf8(bytes).ok()
    }

    /// File `f`'s imports, each with the files of the table it names.
    pub(in crate::index) fn imports(&self, f: u32) -> Vec<Linked> {
        decode_imports(self.part(&self.import_starts, &self.imports, f), |id| {
            self.string(id)
        })
    }

    /// The files file `f`'s imports name, sorted, each once.
    pub(in crate::index) fn edges(&self, f: u32) -> Vec<u32> {
        let mut out: Vec<u32> = self.imports(f).into_iter().flat_map(|(_, t)| t).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The names file `f` references (as [`Symbols::file_names`]), each with where its
    /// references lead.
    pub(in crate::index) fn bound_names(&self, f: u32) -> Vec<(u32, u32, Bound)> {
        let names = self.file_names(f);
        let run = self.part(&self.bind_starts, &self.binds, f);
        let mut at = 0;
        names
            .into_iter()
            .map(|(name, count)| {
                let bound = read_bound(run, &mut at).unwrap_or(Bound::ByName);
                (name, count, bound)
            })
            .collect()
    }

    /// Where file `f`'s references to name `name` lead (by name when `f` does not reference
    /// it).
    pub(in crate::index) fn bound(&self, f: u32, name: u32) -> Bound {
        // The name's place among the file's (in name order), read up to it.
        let (mut k, mut found) = (0usize, false);
        self.each_file_name(f, &mut |n, _| {
            found = n == name;
            if n < name {
                k += 1;
            }
            n < name
        });
        if !found {
            return Bound::ByName;
        }
        let run = self.part(&self.bind_starts, &self.binds, f);
        let mut at = 0;
        for _ in 0..k {
            if skip_bound(run, &mut at).is_none() {
                return Bound::ByName;
            }
        }
        read_bound(run, &mut at).unwrap_or(Bound::ByName)
    }
}
