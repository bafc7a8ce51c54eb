//! The index file's container: a versioned header, checksummed sections, a footer.
//!
//! One container holds both contents of a tree's index: the n-gram postings ([`TRIGRAMS`]) and
//! the symbol tables ([`SYMBOLS`], see `symbols`). A [`Layout`] is the list of sections a
//! content's file holds, each kind once; a file is read only as the layout it was opened for
//! (another content's file fails the section table), so the two files of a tree share the
//! magic, the key, the store and the cache's pruning (`files`) and differ by their name
//! (`store::Content`) and their sections. One machine, two contents, as zoekt's shards hold
//! several sections behind one loader.
//!
//! ```text
//! 0   magic "RSIDX013" (the version: another magic is another format, rebuilt, never read)
//! 8   u32 number of sections, u32 CRC-32 of the header from offset 16 to its end
//! 16  u64 length of the whole file
//! 24  one entry per section: u32 kind, u32 CRC-32 of its bytes, u64 offset, u64 length
//! ..  the sections, each at an 8-byte aligned offset
//! end "RSIDXEND", u64 length of the whole file
//! ```
//! All integers are little-endian and read with `from_le_bytes` (no alignment is assumed).
//!
//! Checking: a file is trusted only when its magic, footer, length, header checksum and the
//! checksum of every section agree. Every section but the posting lists' bytes ([`Kind::Data`],
//! most of the file) is checked when the file is opened: a few tens of MB on the Linux tree, a
//! few ms. The posting bytes are checked lazily, per 1 MiB block ([`DATA_BLOCK`]), the first
//! time a query reads a list in that block ([`BlockCheck`]), against the block checksums of
//! [`Kind::DataCrcs`] (which is checked at open). A second process is ready without reading the
//! whole file, so a multi-GB index costs no more at load than the blocks its first queries touch;
//! a damaged block found later makes that call answer cold and the index rebuild.
//!
//! Why CRC-32 (crc32fast, several GB/s with the CPU's carry-less multiply): the checksums guard
//! against torn, truncated and damaged files, not against a forger (a forged file would also
//! need to pass the structural checks of `base`, and the files live in the user's own cache).

use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// The format's magic and version.
pub(crate) const MAGIC: &[u8; 8] = b"RSIDX013";
const END: &[u8; 8] = b"RSIDXEND";
const FIXED: usize = 24;
const ENTRY: usize = 24;
const FOOTER: usize = 16;

/// Posting bytes are checked in blocks of this size.
pub(crate) const DATA_BLOCK: usize = 1 << 20;

/// The sections of an index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// What the file was made for (the root's identity and the walk's options).
    Key = 1,
    /// The file table: fixed-size records, sorted by path (see `base`).
    Files = 2,
    /// The paths of the file table, concatenated.
    Paths = 3,
    /// For each document, the record of the file it describes (or none: a dead document).
    DocFiles = 4,
    /// The sorted trigram keys (u32).
    Keys = 5,
    /// Sections holding each key (u32).
    Counts = 6,
    /// Where each key's list starts in `Data` (u64, one more than the keys).
    Offsets = 7,
    /// The last section of each key's list (u32), for appending to it.
    Lasts = 8,
    /// Sorted indices of the keys whose lists keep no follow masks (u32).
    Bare = 9,
    /// The document of each section (u32, non-decreasing).
    Documents = 10,
    /// The posting lists.
    Data = 11,
    /// The CRC-32 of each `DATA_BLOCK` of `Data` (u32).
    DataCrcs = 12,
    /// Skip points into the lists: for each, the section of the entry before it and its byte
    /// offset in its list (u32 pairs; see `postings::lists`).
    Skips = 13,
    /// Where each key's skip points start in `Skips` (u32, one more than the keys).
    SkipStarts = 14,
    /// The distinct name keys of the file table's names, sorted (u64; see
    /// `pattern::name_key`).
    Names = 15,
    /// Where each name key's files start in `NameFiles` (u32, one more than the keys).
    NameStarts = 16,
    /// The records of the files of each name key, in path order (u32).
    NameFiles = 17,
    /// Symbols: what each file gave (see `symbols` for the layouts of 18 to 29).
    SymFiles = 18,
    /// Symbols: the offsets of the sorted distinct names in `SymNameBytes` (u32, one more).
    SymNames = 19,
    /// Symbols: the names' bytes, concatenated.
    SymNameBytes = 20,
    /// Symbols: every definition, file after file, in source order (fixed records).
    SymDefinitions = 21,
    /// Symbols: where each name's definitions start in `SymDefinitionsByName` (u32, one more).
    SymDefinitionStarts = 22,
    /// Symbols: the definitions of each name (u32 indices into `SymDefinitions`).
    SymDefinitionsByName = 23,
    /// Symbols: where each name's references start in `SymReferences` (u64, one more).
    SymReferenceStarts = 24,
    /// Symbols: each name's references, delta-encoded varints, by file then position.
    SymReferences = 25,
    /// Symbols: where each file's referenced names start in `SymFileNames` (u64, one more).
    SymFileNameStarts = 26,
    /// Symbols: each file's referenced names with their counts (varints).
    SymFileNames = 27,
    /// Symbols: where each file's call lists start in `SymCalls` (u64, one more).
    SymCallStarts = 28,
    /// Symbols: each definition's calls, file after file (varints; see `symbols::calls`).
    SymCalls = 29,
    /// Symbols: where each string imports spell starts in `SymStringBytes` (u32, one more).
    SymStrings = 30,
    /// Symbols: the strings' bytes (see `symbols::links` for 30 to 35).
    SymStringBytes = 31,
    /// Symbols: where each file's imports start in `SymImports` (u64, one more).
    SymImportStarts = 32,
    /// Symbols: each file's imports with the files they name (varints).
    SymImports = 33,
    /// Symbols: where each file's bindings start in `SymBinds` (u64, one more).
    SymBindStarts = 34,
    /// Symbols: each referenced name's binding, file after file (varints).
    SymBinds = 35,
}

/// The sections of each kind, by kind number.
const ALL_KINDS: usize = 35;

/// The sections one content's file holds, each once, in the order they are written.
#[derive(Debug)]
pub(crate) struct Layout {
    kinds: &'static [Kind],
}

/// The n-gram index's file.
pub(crate) const TRIGRAMS: Layout = Layout { kinds: &KINDS };

/// The symbol index's file.
pub(crate) const SYMBOLS: Layout = Layout {
    kinds: &[
        Kind::Key,
        Kind::Files,
        Kind::Paths,
        Kind::SymFiles,
        Kind::SymNames,
        Kind::SymNameBytes,
        Kind::SymDefinitions,
        Kind::SymDefinitionStarts,
        Kind::SymDefinitionsByName,
        Kind::SymReferenceStarts,
        Kind::SymReferences,
        Kind::SymFileNameStarts,
        Kind::SymFileNames,
        Kind::SymCallStarts,
        Kind::SymCalls,
        Kind::SymStrings,
        Kind::SymStringBytes,
        Kind::SymImportStarts,
        Kind::SymImports,
        Kind::SymBindStarts,
        Kind::SymBinds,
    ],
};

const KINDS: [Kind; 17] = [
    Kind::Key,
    Kind::Files,
    Kind::Paths,
    Kind::DocFiles,
    Kind::Keys,
    Kind::Counts,
    Kind::Offsets,
    Kind::Lasts,
    Kind::Bare,
    Kind::Documents,
    Kind::Data,
    Kind::DataCrcs,
    Kind::Skips,
    Kind::SkipStarts,
    Kind::Names,
    Kind::NameStarts,
    Kind::NameFiles,
];

impl Layout {
    fn header_len(&self) -> usize {
        (FIXED + ENTRY * self.kinds.len()).next_multiple_of(8)
    }

    fn holds(&self, kind: usize) -> bool {
        self.kinds.iter().any(|k| *k as usize == kind)
    }

    /// Whether the file's posting bytes are checked lazily (the n-gram layout).
    fn lazy(&self) -> bool {
        self.holds(Kind::Data as usize)
    }
}

/// Why a file was not trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invalid(pub(crate) &'static str);

/// How many of the first `len` entries of a sorted array (read from a mapped file, where no
/// slice of typed values exists to call `partition_point` on) come before the first for which
/// `before` is false: a binary search.
pub(crate) fn partition_point(len: usize, mut before: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

pub(crate) fn le_u32(bytes: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = bytes.get(at..at + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}

pub(crate) fn le_u64(bytes: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = bytes.get(at..at + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

/// Writes an index file: sections one after another (each streamed through [`Writer::write`]
/// between [`Writer::begin`] and [`Writer::end`]), then the header and the footer.
pub(crate) struct Writer<W: Write + Seek> {
    layout: &'static Layout,
    out: W,
    at: u64,
    entries: Vec<(Kind, u32, u64, u64)>,
    current: Option<(Kind, crc32fast::Hasher, u64)>,
    /// Block checksums of the `Data` section being written, and the open block's.
    blocks: Vec<u32>,
    block: crc32fast::Hasher,
    block_len: usize,
}

impl<W: Write + Seek> Writer<W> {
    pub(crate) fn new(mut out: W, layout: &'static Layout) -> std::io::Result<Writer<W>> {
        out.write_all(&vec![0u8; layout.header_len()])?;
        Ok(Writer {
            layout,
            out,
            at: layout.header_len() as u64,
            entries: Vec::new(),
            current: None,
            blocks: Vec::new(),
            block: crc32fast::Hasher::new(),
            block_len: 0,
        })
    }

    pub(crate) fn begin(&mut self, kind: Kind) -> std::io::Result<()> {
        let pad = (self.at.next_multiple_of(8) - self.at) as usize;
        self.out.write_all(&[0u8; 8][..pad])?;
        self.at += pad as u64;
        self.current = Some((kind, crc32fast::Hasher::new(), self.at));
        Ok(())
    }

    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        let Some((kind, hasher, _)) = &mut self.current else {
            return Err(std::io::Error::other("no section begun"));
        };
        self.out.write_all(bytes)?;
        self.at += bytes.len() as u64;
        if *kind != Kind::Data {
            hasher.update(bytes);
            return Ok(());
        }
        while !bytes.is_empty() {
            let take = (DATA_BLOCK - self.block_len).min(bytes.len());
            self.block.update(&bytes[..take]);
            self.block_len += take;
            bytes = &bytes[take..];
            if self.block_len == DATA_BLOCK {
                let full = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
                self.blocks.push(full.finalize());
                self.block_len = 0;
            }
        }
        Ok(())
    }

    pub(crate) fn u32s(&mut self, values: &[u32]) -> std::io::Result<()> {
        for chunk in values.chunks(8192) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.write(&bytes)?;
        }
        Ok(())
    }

    pub(crate) fn u64s(&mut self, values: &[u64]) -> std::io::Result<()> {
        for chunk in values.chunks(8192) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.write(&bytes)?;
        }
        Ok(())
    }

    pub(crate) fn end(&mut self) -> std::io::Result<()> {
        let Some((kind, hasher, start)) = self.current.take() else {
            return Err(std::io::Error::other("no section begun"));
        };
        // The posting bytes carry block checksums instead (checked lazily).
        let crc = if kind == Kind::Data {
            if self.block_len > 0 {
                let last = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
                self.blocks.push(last.finalize());
                self.block_len = 0;
            }
            0
        } else {
            hasher.finalize()
        };
        self.entries.push((kind, crc, start, self.at - start));
        if kind == Kind::Data {
            let blocks = std::mem::take(&mut self.blocks);
            self.begin(Kind::DataCrcs)?;
            self.u32s(&blocks)?;
            self.end()?;
        }
        Ok(())
    }

    /// A whole section at once.
    pub(crate) fn section(&mut self, kind: Kind, bytes: &[u8]) -> std::io::Result<()> {
        self.begin(kind)?;
        self.write(bytes)?;
        self.end()
    }

    /// Writes the footer and the header; returns the output (not yet synced).
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        let mut kinds: Vec<u32> = self.entries.iter().map(|e| e.0 as u32).collect();
        let mut wanted: Vec<u32> = self.layout.kinds.iter().map(|k| *k as u32).collect();
        kinds.sort_unstable();
        wanted.sort_unstable();
        if kinds != wanted || self.current.is_some() {
            return Err(std::io::Error::other("an index file needs every section"));
        }
        let header_len = self.layout.header_len();
        let length = self.at + FOOTER as u64;
        self.out.write_all(END)?;
        self.out.write_all(&length.to_le_bytes())?;
        let mut header = vec![0u8; header_len];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&(self.entries.len() as u32).to_le_bytes());
        header[16..24].copy_from_slice(&length.to_le_bytes());
        for (i, (kind, crc, offset, len)) in self.entries.iter().enumerate() {
            let at = FIXED + i * ENTRY;
            header[at..at + 4].copy_from_slice(&(*kind as u32).to_le_bytes());
            header[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
            header[at + 8..at + 16].copy_from_slice(&offset.to_le_bytes());
            header[at + 16..at + 24].copy_from_slice(&len.to_le_bytes());
        }
        let crc = crc32fast::hash(&header[16..]);
        header[12..16].copy_from_slice(&crc.to_le_bytes());
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&header)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Where each section lies in a checked file.
#[derive(Clone, Debug)]
pub(crate) struct Sections {
    spans: [Range<usize>; ALL_KINDS],
}

impl Default for Sections {
    fn default() -> Sections {
        Sections {
            spans: std::array::from_fn(|_| 0..0),
        }
    }
}

impl Sections {
    pub(crate) fn span(&self, kind: Kind) -> Range<usize> {
        self.spans[kind as usize - 1].clone()
    }

    /// Checks `bytes` as an index file: magic, footer, header checksum, section bounds and the
    /// checksum of every section but the posting bytes (see [`BlockCheck`]).
    pub(crate) fn check(bytes: &[u8], layout: &Layout) -> Result<Sections, Invalid> {
        let header = layout.header_len();
        if bytes.len() < header + FOOTER {
            return Err(Invalid("shorter than a header"));
        }
        if &bytes[..8] != MAGIC {
            return Err(Invalid("another format or version"));
        }
        let length = bytes.len() as u64;
        let footer = &bytes[bytes.len() - FOOTER..];
        if &footer[..8] != END || le_u64(footer, 8) != length || le_u64(bytes, 16) != length {
            return Err(Invalid("truncated or extended"));
        }
        if crc32fast::hash(&bytes[16..header]) != le_u32(bytes, 12) {
            return Err(Invalid("damaged header"));
        }
        if le_u32(bytes, 8) as usize != layout.kinds.len() {
            return Err(Invalid("wrong number of sections"));
        }
        let mut sections = Sections::default();
        let mut seen = [false; ALL_KINDS];
        let body = header as u64..length - FOOTER as u64;
        for i in 0..layout.kinds.len() {
            let at = FIXED + i * ENTRY;
            let kind = le_u32(bytes, at) as usize;
            let (offset, len) = (le_u64(bytes, at + 8), le_u64(bytes, at + 16));
            let end = offset.checked_add(len).ok_or(Invalid("section bounds"))?;
            if !layout.holds(kind) || seen[kind - 1] || offset < body.start || end > body.end {
                return Err(Invalid("section table"));
            }
            seen[kind - 1] = true;
            let span = offset as usize..end as usize;
            if kind != Kind::Data as usize
                && crc32fast::hash(&bytes[span.clone()]) != le_u32(bytes, at + 4)
            {
                return Err(Invalid("damaged section"));
            }
            sections.spans[kind - 1] = span;
        }
        let data = sections.span(Kind::Data).len();
        if layout.lazy() && sections.span(Kind::DataCrcs).len() != data.div_ceil(DATA_BLOCK) * 4 {
            return Err(Invalid("block checksums"));
        }
        Ok(sections)
    }
}

/// The lazy check of the posting bytes: each block is checked against its checksum the first
/// time a read covers it; a failed block marks the whole file damaged.
#[derive(Debug, Default)]
pub(crate) struct BlockCheck {
    data: Range<usize>,
    crcs: Range<usize>,
    checked: Vec<AtomicBool>,
    damaged: AtomicBool,
}

impl BlockCheck {
    pub(crate) fn new(sections: &Sections) -> BlockCheck {
        let data = sections.span(Kind::Data);
        let blocks = data.len().div_ceil(DATA_BLOCK);
        BlockCheck {
            data,
            crcs: sections.span(Kind::DataCrcs),
            checked: (0..blocks).map(|_| AtomicBool::new(false)).collect(),
            damaged: AtomicBool::new(false),
        }
    }

    /// Whether `range` of the posting bytes (relative to the section) is intact, checking the
    /// blocks it covers that were not checked yet.
    pub(crate) fn intact(&self, file: &[u8], range: Range<usize>) -> bool {
        if range.is_empty() {
            return !self.damaged();
        }
        let first = range.start / DATA_BLOCK;
        let last = (range.end - 1) / DATA_BLOCK;
        for block in first..=last {
            let Some(flag) = self.checked.get(block) else {
                self.damaged.store(true, Ordering::Relaxed);
                return false;
            };
            if flag.load(Ordering::Acquire) {
                continue;
            }
            let start = self.data.start + block * DATA_BLOCK;
            let end = (start + DATA_BLOCK).min(self.data.end);
            let expected = le_u32(file, self.crcs.start + block * 4);
            match file.get(start..end) {
                Some(bytes) if crc32fast::hash(bytes) == expected => {
                    flag.store(true, Ordering::Release);
                }
                _ => {
                    self.damaged.store(true, Ordering::Relaxed);
                    return false;
                }
            }
        }
        !self.damaged()
    }

    /// A block failed its check: nothing read from this file may be trusted any more.
    pub(crate) fn damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }
}

/// Recomputes every checksum of `bytes` (a file whose contents a test changed on purpose, to
/// reach the checks behind the checksums).
#[cfg(test)]
pub(crate) fn reseal(bytes: &mut [u8], layout: &Layout) {
    let header = layout.header_len();
    if bytes.len() < header + FOOTER {
        return;
    }
    let mut data = None;
    for i in 0..layout.kinds.len() {
        let at = FIXED + i * ENTRY;
        let kind = le_u32(bytes, at) as usize;
        let (offset, len) = (
            le_u64(bytes, at + 8) as usize,
            le_u64(bytes, at + 16) as usize,
        );
        let Some(section) = bytes.get(offset..offset.saturating_add(len)) else {
            continue;
        };
        if kind == Kind::Data as usize {
            data = Some(offset..offset + len);
        } else {
            let crc = crc32fast::hash(section);
            bytes[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
        }
    }
    if let Some(data) = data {
        let crcs: Vec<u32> = bytes[data]
            .chunks(DATA_BLOCK)
            .map(crc32fast::hash)
            .collect();
        for i in 0..layout.kinds.len() {
            let at = FIXED + i * ENTRY;
            if le_u32(bytes, at) as usize == Kind::DataCrcs as usize {
                let offset = le_u64(bytes, at + 8) as usize;
                for (k, crc) in crcs.iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(offset + k * 4..offset + k * 4 + 4) {
                        slot.copy_from_slice(&crc.to_le_bytes());
                    }
                }
                let len = le_u64(bytes, at + 16) as usize;
                if let Some(section) = bytes.get(offset..offset + len) {
                    let crc = crc32fast::hash(section);
                    bytes[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
                }
            }
        }
    }
    let crc = crc32fast::hash(&bytes[16..header]);
    bytes[12..16].copy_from_slice(&crc.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_point_is_the_slices() {
        let sorted = [1u32, 3, 3, 3, 7, 9, 9, 12];
        for len in 0..=sorted.len() {
            for want in 0..14 {
                assert_eq!(
                    partition_point(len, |k| sorted[k] < want),
                    sorted[..len].partition_point(|&v| v < want),
                    "{want} in the first {len}"
                );
            }
        }
    }

    fn sample(data: &[u8]) -> Vec<u8> {
        let mut w = Writer::new(std::io::Cursor::new(Vec::new()), &TRIGRAMS).expect("writer");
        for kind in KINDS {
            match kind {
                Kind::DataCrcs => {}
                Kind::Data => {
                    w.begin(kind).expect("begin");
                    for chunk in data.chunks(777) {
                        w.write(chunk).expect("write");
                    }
                    w.end().expect("end");
                }
                _ => w.section(kind, &[kind as u8; 5]).expect("section"),
            }
        }
        w.finish().expect("finish").into_inner()
    }

    #[test]
    fn a_written_file_checks_and_its_sections_read_back() {
        let data: Vec<u8> = (0..(DATA_BLOCK * 2 + 100)).map(|i| i as u8).collect();
        let file = sample(&data);
        let sections = Sections::check(&file, &TRIGRAMS).expect("valid");
        assert_eq!(&file[sections.span(Kind::Data)], &data[..]);
        assert_eq!(&file[sections.span(Kind::Lasts)], &[8u8; 5]);
        let check = BlockCheck::new(&sections);
        assert!(check.intact(&file, 0..data.len()));
    }

    #[test]
    fn every_damage_is_found() {
        let data: Vec<u8> = (0..(DATA_BLOCK + 10)).map(|i| (i * 7) as u8).collect();
        let file = sample(&data);
        let sections = Sections::check(&file, &TRIGRAMS).expect("valid");
        let data_span = sections.span(Kind::Data);
        // Truncation at every length short of the whole file.
        for cut in [0, 1, 8, 100, file.len() / 2, file.len() - 1] {
            assert!(
                Sections::check(&file[..cut], &TRIGRAMS).is_err(),
                "cut {cut}"
            );
        }
        let mut longer = file.clone();
        longer.push(0);
        assert!(Sections::check(&longer, &TRIGRAMS).is_err());
        // A flipped bit anywhere outside the posting bytes fails the open; inside them, the
        // block that holds it.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..400 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let at = (rng % file.len() as u64) as usize;
            let mut bad = file.clone();
            bad[at] ^= 1 << (rng >> 61);
            match Sections::check(&bad, &TRIGRAMS) {
                Err(_) => assert!(!data_span.contains(&at), "{at}"),
                Ok(s) => {
                    assert!(data_span.contains(&at), "{at}");
                    let check = BlockCheck::new(&s);
                    let block = (at - data_span.start) / DATA_BLOCK;
                    let other = if block == 0 { 1 } else { 0 };
                    assert!(check.intact(&bad, other * DATA_BLOCK..other * DATA_BLOCK + 1));
                    assert!(!check.intact(&bad, at - data_span.start..at - data_span.start + 1));
                    assert!(check.damaged());
                }
            }
        }
        let mut other_version = file.clone();
        other_version[7] = b'6';
        assert_eq!(
            Sections::check(&other_version, &TRIGRAMS).err(),
            Some(Invalid("another format or version"))
        );
    }
}
