//! The base: one index file of a tree, read in place. It holds the file table of the tree as it
//! was when the file was written (path, identity, whether that identity was old enough to vouch
//! for the contents, and the document describing them), each document's file, and the posting
//! lists. A process adopts a base's documents only for files whose identity it finds unchanged
//! (see `Table::adopt`); every other file is searched directly until a merge.
//!
//! A file record is 64 bytes: path start and length in the paths section (u32 each), size,
//! mtime, ctime, device, inode (u64 each), links and mode (u32 each), document (u32, `NONE`
//! for none) and flags (u32: bit 0, trusted). Records are sorted by path, byte order, as the
//! table is.

use std::io::{Seek, Write};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::boundary::FileIdentity;
use crate::pattern::name_key;

use super::format::{Invalid, Kind, Sections, TRIGRAMS, Writer, le_u32, le_u64, partition_point};
use super::postings::{Backing, Built, Contents, Postings, write_contents, write_postings};
use super::table::FileEntry;

pub(super) const RECORD: usize = 64;
const NONE: u32 = u32::MAX;
const TRUSTED: u32 = 1;

/// A file of the base's table.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BaseFile<'a> {
    pub(super) path: &'a str,
    pub(super) meta: FileIdentity,
    pub(super) trusted: bool,
    pub(super) doc: Option<u32>,
}

/// An index file, checked and read in place.
pub(super) struct Data {
    bytes: Arc<Backing>,
    pub(super) postings: Postings,
    /// The bytes of the small files (see `postings::contents`).
    pub(super) contents: Contents,
    files: Range<usize>,
    paths: Range<usize>,
    doc_files: Range<usize>,
    names: Range<usize>,
    name_starts: Range<usize>,
    name_files: Range<usize>,
    /// The documents that may hold a private-key marker (see `key_documents`), found once.
    key_documents: OnceLock<Option<Vec<u32>>>,
}

impl Data {
    /// The documents that may hold a private-key marker, as `find` gives them (`None`: every
    /// document), asked of the posting lists once per index file: every grep the index answers
    /// searches them (see `query::grep`).
    pub(super) fn key_documents(
        &self,
        find: impl FnOnce(&Postings) -> Option<Vec<u32>>,
    ) -> Option<&[u32]> {
        self.key_documents
            .get_or_init(|| find(&self.postings))
            .as_deref()
    }

    /// No documents (before the first build, and after `close()`).
    pub(super) fn empty() -> Data {
        Data {
            bytes: Arc::new(Backing::Heap(Vec::new())),
            postings: Postings::default(),
            contents: Contents::default(),
            files: 0..0,
            paths: 0..0,
            doc_files: 0..0,
            names: 0..0,
            name_starts: 0..0,
            name_files: 0..0,
            key_documents: OnceLock::new(),
        }
    }

    /// Checks `bytes` as the index file made for `key`: the container (see `format`), the key,
    /// and the shape of every table (sorted unique UTF-8 paths, documents and files naming each
    /// other both ways, posting arrays in order).
    pub(super) fn open(bytes: Arc<Backing>, key: &[u8]) -> Result<Data, Invalid> {
        let sections = Sections::check(&bytes, &TRIGRAMS)?;
        if bytes[sections.span(Kind::Key)] != *key {
            return Err(Invalid("made for another tree or other options"));
        }
        let files = sections.span(Kind::Files);
        let doc_files = sections.span(Kind::DocFiles);
        if !files.len().is_multiple_of(RECORD) || !doc_files.len().is_multiple_of(4) {
            return Err(Invalid("table sizes"));
        }
        let postings = Postings::open(Arc::clone(&bytes), &sections, doc_files.len() / 4)?;
        let contents = Contents::open(Arc::clone(&bytes), &sections, doc_files.len() / 4)?;
        let data = Data {
            postings,
            contents,
            files,
            paths: sections.span(Kind::Paths),
            doc_files,
            names: sections.span(Kind::Names),
            name_starts: sections.span(Kind::NameStarts),
            name_files: sections.span(Kind::NameFiles),
            bytes,
            key_documents: OnceLock::new(),
        };
        data.check_names()?;
        let mut previous: Option<&str> = None;
        for i in 0..data.files_len() {
            let path = data.record_path(i).ok_or(Invalid("a path"))?;
            if previous.is_some_and(|p| p >= path) {
                return Err(Invalid("paths out of order"));
            }
            previous = Some(path);
            let doc = le_u32(&data.bytes, data.files.start + i * RECORD + 56);
            if doc != NONE && data.doc_file(doc) != Some(i) {
                return Err(Invalid("a document and its file disagree"));
            }
        }
        for doc in 0..data.docs_len() as u32 {
            let file = le_u32(&data.bytes, data.doc_files.start + doc as usize * 4);
            if file != NONE
                && (file as usize >= data.files_len()
                    || le_u32(&data.bytes, data.files.start + file as usize * RECORD + 56) != doc)
            {
                return Err(Invalid("a file and its document disagree"));
            }
        }
        Ok(data)
    }

    /// Checks the table of names: sorted distinct keys, each with its files' records in order,
    /// every record once.
    fn check_names(&self) -> Result<(), Invalid> {
        let keys = self.names.len() / 8;
        let records = self.name_files.len() / 4;
        if !self.names.len().is_multiple_of(8)
            || self.name_starts.len() != (keys + 1) * 4
            || records != self.files_len()
        {
            return Err(Invalid("name table sizes"));
        }
        let b = &self.bytes;
        let mut seen = vec![false; records];
        for k in 0..keys {
            let (start, end) = self.name_span(k);
            if (k > 0 && le_u64(b, self.names.start + (k - 1) * 8) >= self.name(k))
                || start > end
                || end > records
                || (k == 0 && start != 0)
                || (k + 1 == keys && end != records)
            {
                return Err(Invalid("name table out of order"));
            }
            let mut previous = None;
            for at in start..end {
                let record = le_u32(b, self.name_files.start + at * 4) as usize;
                if record >= records || seen[record] || previous.is_some_and(|p| p >= record) {
                    return Err(Invalid("name table out of order"));
                }
                seen[record] = true;
                previous = Some(record);
            }
        }
        Ok(())
    }

    fn name(&self, k: usize) -> u64 {
        le_u64(&self.bytes, self.names.start + k * 8)
    }

    /// The range of `NameFiles` holding the files of the `k`-th name key.
    fn name_span(&self, k: usize) -> (usize, usize) {
        let at = self.name_starts.start + k * 4;
        (
            le_u32(&self.bytes, at) as usize,
            le_u32(&self.bytes, at + 4) as usize,
        )
    }

    /// The records of the files whose name has `key` (see `pattern::name_key`), in path order.
    pub(super) fn named(&self, key: u64) -> impl ExactSizeIterator<Item = usize> + '_ {
        let keys = self.names.len() / 8;
        let lo = partition_point(keys, |k| self.name(k) < key);
        let span = match lo < keys && self.name(lo) == key {
            true => self.name_span(lo),
            false => (0, 0),
        };
        (span.0..span.1).map(|at| le_u32(&self.bytes, self.name_files.start + at * 4) as usize)
    }

    /// Files in the base's table.
    pub(super) fn files_len(&self) -> usize {
        self.files.len() / RECORD
    }

    /// Documents (live or dead) in the base.
    pub(super) fn docs_len(&self) -> usize {
        self.doc_files.len() / 4
    }

    /// The path of the `i`-th file of the table.
    pub(super) fn record_path(&self, i: usize) -> Option<&str> {
        record_path_in(&self.bytes, &self.paths, self.files.start + i * RECORD)
    }

    /// The `i`-th file of the table.
    pub(super) fn file(&self, i: usize) -> Option<BaseFile<'_>> {
        if i >= self.files_len() {
            return None;
        }
        let at = self.files.start + i * RECORD;
        let (meta, doc, trusted) = read_record(&self.bytes, at);
        Some(BaseFile {
            path: self.record_path(i)?,
            meta,
            trusted,
            doc: (doc != NONE).then_some(doc),
        })
    }

    /// The record of the file `doc` describes, if it is live.
    fn doc_file(&self, doc: u32) -> Option<usize> {
        if doc as usize >= self.docs_len() {
            return None;
        }
        let file = le_u32(&self.bytes, self.doc_files.start + doc as usize * 4);
        (file != NONE).then_some(file as usize)
    }

    /// The path of the file `doc` describes, if it is live.
    pub(super) fn path(&self, doc: u32) -> Option<&str> {
        self.record_path(self.doc_file(doc)?)
    }

    /// Files of the table without a document (binary, too large, unreadable when written).
    pub(super) fn undocumented(&self) -> usize {
        (0..self.files_len())
            .filter(|&i| le_u32(&self.bytes, self.files.start + i * RECORD + 56) == NONE)
            .count()
    }

    /// Sections of documents no file names any more (left by merges).
    pub(super) fn dead_sections(&self) -> usize {
        (0..self.postings.sections_len() as u32)
            .filter(|&s| {
                self.postings
                    .document(s)
                    .is_none_or(|d| self.doc_file(d).is_none())
            })
            .count()
    }

    /// The document this base vouches for, for each file of a table (to be called in path
    /// order): the record's, when the record's identity is the file's now and was old enough
    /// when it was taken to prove that any later change would show in it (`trusted`).
    pub(super) fn vouched(&self) -> impl FnMut(&str, &FileEntry) -> Option<u32> + '_ {
        let mut at = 0;
        move |path, entry| {
            while self.file(at).is_some_and(|f| f.path < path) {
                at += 1;
            }
            let record = self.file(at)?;
            (record.path == path && record.trusted && record.meta == entry.meta)
                .then_some(record.doc)
                .flatten()
        }
    }

    /// A block of the posting lists or of the contents failed its check: nothing read from
    /// this file may be trusted any more.
    pub(super) fn damaged(&self) -> bool {
        self.postings.damaged() || self.contents.damaged()
    }

    /// The contents of the file `doc` describes as the index file holds them, if it holds them
    /// and they are intact.
    pub(super) fn held(&self, doc: u32) -> Option<&[u8]> {
        self.contents.get(doc)
    }

    /// The size of the index file.
    pub(super) fn file_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Writes an index file for `key`: the table `files` (each entry's document numbered as in
    /// the file being written), and the lists of `self` with `new`'s appended (`new`'s
    /// documents numbered from `self.docs_len()`). `between` runs after the posting lists are
    /// written (a test hook for a writer stopped midway).
    pub(super) fn write<'f, W: Write + Seek>(
        &self,
        out: W,
        key: &[u8],
        files: impl Iterator<Item = (&'f String, &'f FileEntry)> + Clone,
        new: &Built,
        between: &dyn Fn(),
    ) -> std::io::Result<W> {
        let mut w = Writer::new(out, &TRIGRAMS)?;
        w.section(Kind::Key, key)?;
        let doc_shift = u32::try_from(self.docs_len())
            .map_err(|_| std::io::Error::other("too many documents"))?;
        write_postings(&mut w, &self.postings, new, doc_shift)?;
        between();
        let docs = self.docs_len() + new.docs;
        let mut doc_files = vec![NONE; docs];
        let mut records = Vec::new();
        let mut path_at = 0usize;
        for (i, (path, entry)) in files.clone().enumerate() {
            let doc = entry.doc.filter(|&d| (d as usize) < docs);
            if let Some(d) = doc {
                doc_files[d as usize] = u32::try_from(i).unwrap_or(NONE);
            }
            push_record(
                &mut records,
                (path_at, path.len()),
                &entry.meta,
                doc.unwrap_or(NONE),
                entry.trusted,
            )?;
            path_at += path.len();
        }
        w.section(Kind::Files, &records)?;
        drop(records);
        w.begin(Kind::Paths)?;
        for (path, _) in files.clone() {
            w.write(path.as_bytes())?;
        }
        w.end()?;
        w.begin(Kind::DocFiles)?;
        w.u32s(&doc_files)?;
        w.end()?;
        let live = |doc: usize| doc_files.get(doc).is_some_and(|&f| f != NONE);
        write_contents(
            &mut w,
            (&self.contents, self.docs_len()),
            (&new.contents, new.docs),
            &live,
        )?;
        write_names(&mut w, files.map(|(path, _)| path))?;
        w.finish()
    }
}

/// Appends a file record (see the module's doc) to `records`: its path's place in the paths
/// section, its identity, a number for the content (the base's document, the symbol index's
/// nothing) and whether the identity vouched for the contents. The symbol index keeps its
/// file table in these records too.
pub(super) fn push_record(
    records: &mut Vec<u8>,
    (path_at, path_len): (usize, usize),
    m: &FileIdentity,
    number: u32,
    trusted: bool,
) -> std::io::Result<()> {
    let start = u32::try_from(path_at).map_err(|_| std::io::Error::other("paths"))?;
    let len = u32::try_from(path_len).map_err(|_| std::io::Error::other("paths"))?;
    records.extend_from_slice(&start.to_le_bytes());
    records.extend_from_slice(&len.to_le_bytes());
    for v in [m.size, m.mtime_ns as u64, m.ctime_ns as u64, m.dev, m.ino] {
        records.extend_from_slice(&v.to_le_bytes());
    }
    let nlink = u32::try_from(m.nlink).unwrap_or(u32::MAX);
    records.extend_from_slice(&nlink.to_le_bytes());
    records.extend_from_slice(&m.mode.to_le_bytes());
    records.extend_from_slice(&number.to_le_bytes());
    let flags = if trusted { TRUSTED } else { 0 };
    records.extend_from_slice(&flags.to_le_bytes());
    Ok(())
}

/// The identity, number and trust of the record at `at` in `b`.
pub(super) fn read_record(b: &[u8], at: usize) -> (FileIdentity, u32, bool) {
    let meta = FileIdentity {
        size: le_u64(b, at + 8),
        mtime_ns: le_u64(b, at + 16) as i64,
        ctime_ns: le_u64(b, at + 24) as i64,
        dev: le_u64(b, at + 32),
        ino: le_u64(b, at + 40),
        nlink: u64::from(le_u32(b, at + 48)),
        mode: le_u32(b, at + 52),
    };
    (meta, le_u32(b, at + 56), le_u32(b, at + 60) & TRUSTED != 0)
}

/// The path of the record at `at` in `b`, read from the paths section `paths`.
pub(super) fn record_path_in<'b>(b: &'b [u8], paths: &Range<usize>, at: usize) -> Option<&'b str> {
    let start = paths.start + le_u32(b, at) as usize;
    let len = le_u32(b, at + 4) as usize;
    let end = start.checked_add(len)?;
    if end > paths.end {
        return None;
    }
    std::str::from_utf8(b.get(start..end)?).ok()
}

/// Writes the table of names: the records of the files `paths` (in record order) grouped by
/// their name's key (see `pattern::name_key`).
fn write_names<'f, W: Write + Seek>(
    w: &mut Writer<W>,
    paths: impl Iterator<Item = &'f String>,
) -> std::io::Result<()> {
    let mut named: Vec<(u64, u32)> = paths
        .enumerate()
        .map(|(i, path)| {
            let name = path.rsplit('/').next().unwrap_or(path);
            (name_key(name.as_bytes()), i as u32)
        })
        .collect();
    named.sort_unstable();
    let mut keys: Vec<u64> = Vec::new();
    let mut starts: Vec<u32> = Vec::new();
    for (at, (key, _)) in named.iter().enumerate() {
        if keys.last() != Some(key) {
            keys.push(*key);
            starts.push(at as u32);
        }
    }
    starts.push(named.len() as u32);
    w.begin(Kind::Names)?;
    w.u64s(&keys)?;
    w.end()?;
    w.begin(Kind::NameStarts)?;
    w.u32s(&starts)?;
    w.end()?;
    let records: Vec<u32> = named.iter().map(|&(_, record)| record).collect();
    w.begin(Kind::NameFiles)?;
    w.u32s(&records)?;
    w.end()
}

#[cfg(test)]
#[path = "base_contents_tests.rs"]
mod contents_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::format::reseal;
    use crate::index::postings::{Gram, Indexed, trigram};
    use std::collections::BTreeMap;

    const KEY: &[u8] = b"a tree";

    /// The files named in `table` whose documents hold the first trigram of `word`.
    fn holding(data: &Data, word: &str) -> Vec<String> {
        let b = word.as_bytes();
        let gram = Gram {
            key: trigram(b[0], b[1], b[2]),
            follow: 0,
            case: 0,
        };
        let docs = data.postings.documents_of(&data.postings.sections(gram));
        let mut paths: Vec<String> = docs
            .iter()
            .filter_map(|&d| data.path(d).map(str::to_string))
            .collect();
        paths.sort();
        paths
    }

    /// Builds the lists of `contents` (as `0.txt`, `1.txt`, ... in `dir`); the table's
    /// entries get documents from `shift`.
    pub(super) fn read(
        dir: &std::path::Path,
        contents: &[(&str, &str)],
        table: &mut BTreeMap<String, FileEntry>,
        shift: u32,
    ) -> Built {
        let mut files = Vec::new();
        for (name, text) in contents {
            std::fs::write(dir.join(name), text).expect("write");
            files.push((name.to_string(), text.len() as u64));
        }
        let open = |p: &str| std::fs::File::open(dir.join(p));
        let (built, status) = Postings::build(&files, 2, &open, &|| false);
        for (i, ((name, size), indexed)) in files.iter().zip(&status).enumerate() {
            let meta = FileIdentity {
                size: *size,
                ino: 1000 + i as u64 + u64::from(shift),
                ..FileIdentity::default()
            };
            let doc = (*indexed == Indexed::Text).then_some(shift + i as u32);
            table.insert(
                name.clone(),
                FileEntry {
                    meta,
                    doc,
                    generation: 0,
                    trusted: i % 2 == 0,
                    guarded: false,
                    rechecked: false,
                },
            );
        }
        built
    }

    pub(super) fn write(
        base: &Data,
        table: &BTreeMap<String, FileEntry>,
        built: &Built,
    ) -> Vec<u8> {
        base.write(
            std::io::Cursor::new(Vec::new()),
            KEY,
            table.iter(),
            built,
            &|| {},
        )
        .expect("write")
        .into_inner()
    }

    pub(super) fn open(bytes: Vec<u8>) -> Result<Data, Invalid> {
        Data::open(Arc::new(Backing::Heap(bytes)), KEY)
    }

    pub(super) fn sample() -> (tempfile::TempDir, BTreeMap<String, FileEntry>, Vec<u8>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut table = BTreeMap::new();
        let contents = [
            ("a.txt", "alpha beta"),
            ("b.txt", "beta gamma"),
            ("c.bin", "gamma\0binary"),
            ("d.txt", ""),
            ("e.txt", "delta alpha"),
        ];
        let built = read(dir.path(), &contents, &mut table, 0);
        let bytes = write(&Data::empty(), &table, &built);
        (dir, table, bytes)
    }

    #[test]
    fn a_written_base_reads_back_as_it_was_written() {
        let (_dir, table, bytes) = sample();
        let data = open(bytes).expect("valid");
        assert_eq!(data.files_len(), 5);
        assert_eq!(data.docs_len(), 5);
        for (i, (path, entry)) in table.iter().enumerate() {
            let record = data.file(i).expect("record");
            assert_eq!(record.path, path);
            assert_eq!(record.meta, entry.meta);
            assert_eq!(record.trusted, entry.trusted);
            assert_eq!(record.doc, entry.doc);
        }
        assert_eq!(holding(&data, "alpha"), ["a.txt", "e.txt"]);
        assert_eq!(holding(&data, "gamma"), ["b.txt"]);
        assert_eq!(data.path(2), None, "the binary file has no live document");
        assert_eq!(data.dead_sections(), 0);
        // A table takes the documents of trusted records whose identity is its file's.
        let mut vouched = data.vouched();
        let mut changed = table["e.txt"].clone();
        assert_eq!(vouched("a.txt", &table["a.txt"]), Some(0));
        assert_eq!(vouched("b.txt", &table["b.txt"]), None, "untrusted");
        changed.meta.size += 1;
        assert_eq!(vouched("e.txt", &changed), None, "changed");
        assert_eq!(vouched("f.txt", &table["a.txt"]), None, "not in the base");
    }

    /// `sample` with b.txt changed and f.txt added, merged into it.
    pub(super) fn merged_sample() -> (tempfile::TempDir, BTreeMap<String, FileEntry>, Data) {
        let (dir, mut table, bytes) = sample();
        let base = open(bytes).expect("valid");
        let built = read(
            dir.path(),
            &[("b.txt", "omega alpha"), ("f.txt", "beta")],
            &mut table,
            5,
        );
        let merged = open(write(&base, &table, &built)).expect("valid");
        (dir, table, merged)
    }

    #[test]
    fn a_merge_appends_the_changed_files_and_kills_their_old_documents() {
        let (dir, mut table, merged) = merged_sample();
        assert_eq!(merged.docs_len(), 7);
        assert_eq!(holding(&merged, "alpha"), ["a.txt", "b.txt", "e.txt"]);
        assert_eq!(holding(&merged, "omega"), ["b.txt"]);
        assert_eq!(holding(&merged, "beta"), ["a.txt", "f.txt"]);
        assert_eq!(holding(&merged, "gamma"), Vec::<String>::new());
        assert_eq!(merged.dead_sections(), 1, "b.txt's old section");
        // Merging again on top keeps every list in order.
        let built = read(dir.path(), &[("a.txt", "gamma")], &mut table, 7);
        let again = open(write(&merged, &table, &built)).expect("valid");
        assert_eq!(holding(&again, "gamma"), ["a.txt"]);
        assert_eq!(holding(&again, "alpha"), ["b.txt", "e.txt"]);
    }

    /// What queries read from `data` (they must not panic, whatever it holds).
    pub(super) fn exercise(data: &Data) -> Vec<String> {
        let mut seen = Vec::new();
        for word in ["alpha", "beta", "gamma", "delta", "omega", "zzz"] {
            seen.push(format!("{word}: {:?}", holding(data, word)));
        }
        for i in 0..data.files_len().min(64) {
            seen.push(format!("{:?}", data.file(i)));
        }
        seen.push(data.dead_sections().to_string());
        for doc in 0..data.docs_len() as u32 {
            seen.push(format!("{:?}", data.held(doc)));
        }
        seen
    }

    #[test]
    fn damaged_truncated_foreign_and_other_version_files_are_never_trusted() {
        let (_dir, _table, bytes) = sample();
        assert!(open(bytes.clone()).is_ok());
        for cut in 0..bytes.len() {
            assert!(open(bytes[..cut].to_vec()).is_err(), "cut at {cut}");
        }
        assert!(Data::open(Arc::new(Backing::Heap(bytes.clone())), b"another tree").is_err());
        let mut version = bytes.clone();
        version[..8].copy_from_slice(b"RSIDX006");
        assert!(open(version).is_err());
        // Every single-bit flip: refused at open, or (in the lists' or the contents' bytes)
        // found by the block check before anything of that block is used, or (in the padding
        // between sections, which nothing reads) harmless.
        let expected = exercise(&open(bytes.clone()).expect("valid"));
        for at in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut bad = bytes.clone();
                bad[at] ^= 1 << bit;
                if let Ok(data) = open(bad) {
                    let seen = exercise(&data);
                    assert!(
                        data.damaged() || seen == expected,
                        "flip at {at} went unseen"
                    );
                }
            }
        }
    }

    #[test]
    fn resealed_damage_never_panics() {
        // Changes whose checksums were made to agree reach the structural checks: each file
        // is refused or read without a panic.
        let (_dir, _table, bytes) = sample();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for _ in 0..3000 {
            let mut bad = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % bad.len() as u64) as usize;
                bad[at] = next() as u8;
            }
            reseal(&mut bad, &TRIGRAMS);
            if let Ok(data) = open(bad) {
                let _ = exercise(&data);
            }
        }
    }
}
