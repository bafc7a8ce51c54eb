//! The on-disk copy of an index (`index_dir`): the table's files with their metadata and
//! documents, and the posting lists. A restarted process loads it and checks it against a fresh
//! walk: a file keeps its document only when its metadata (size, times, device, inode) is
//! unchanged and was old enough to prove it (see `FileEntry::trusted`); every other file is
//! searched directly until a re-index.
//!
//! The format is a private little-endian layout written by hand (a few integers and byte
//! strings; no serialization dependency is worth it), versioned by its magic, written to a
//! temporary file and renamed into place.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::live::Data;
use super::postings::Postings;
use super::table::FileEntry;
use crate::boundary::FileIdentity;
use crate::workspace::Workspace;

const MAGIC: &[u8; 8] = b"RSIDX006";

/// The file holding the copy for `workspace` inside `dir`.
fn file_for(dir: &Path, workspace: &Workspace) -> PathBuf {
    // One directory may hold the copies of several roots: name each by a hash of its key.
    let key = key_of(workspace);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.as_bytes() {
        hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    dir.join(format!("ripsight-index-{hash:016x}.bin"))
}

/// What the copy must agree on with the workspace loading it.
fn key_of(workspace: &Workspace) -> String {
    let options = workspace.options();
    format!(
        "{}\n{:?}\n{:?}\n{}",
        workspace.root().display(),
        options.exclude_dirs,
        options.deny_globs,
        options.respect_ignore_files
    )
}

/// A loaded copy.
pub(crate) struct Saved {
    pub(crate) files: BTreeMap<String, FileEntry>,
    pub(crate) data: Data,
}

struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.u64(b.len() as u64)?;
        self.out.write_all(b)
    }
    fn u64(&mut self, v: u64) -> std::io::Result<()> {
        self.out.write_all(&v.to_le_bytes())
    }
    fn u32s(&mut self, v: &[u32]) -> std::io::Result<()> {
        self.u64(v.len() as u64)?;
        for x in v {
            self.out.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    }
    fn u64s(&mut self, v: &[u64]) -> std::io::Result<()> {
        self.u64(v.len() as u64)?;
        for x in v {
            self.out.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    }
}

struct Reader<R: Read> {
    input: R,
    /// Bytes the file has: no length read from it may ask for more.
    left: u64,
}

impl<R: Read> Reader<R> {
    fn take(&mut self, n: u64) -> std::io::Result<Vec<u8>> {
        if n > self.left {
            return Err(std::io::Error::other("truncated index file"));
        }
        self.left -= n;
        let mut buf = vec![0; n as usize];
        self.input.read_exact(&mut buf)?;
        Ok(buf)
    }
    fn array<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let v = self.take(N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(&v);
        Ok(out)
    }
    fn u64(&mut self) -> std::io::Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn bytes(&mut self) -> std::io::Result<Vec<u8>> {
        let n = self.u64()?;
        self.take(n)
    }
    fn string(&mut self) -> std::io::Result<String> {
        String::from_utf8(self.bytes()?).map_err(std::io::Error::other)
    }
    fn u32s(&mut self) -> std::io::Result<Vec<u32>> {
        let n = self.u64()?;
        let raw = self.take(n.saturating_mul(4))?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    fn u64s(&mut self) -> std::io::Result<Vec<u64>> {
        let n = self.u64()?;
        let raw = self.take(n.saturating_mul(8))?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect())
    }
}

/// Writes the copy of `files` and `data` for `workspace` into `dir`.
pub(crate) fn save(
    dir: &Path,
    workspace: &Workspace,
    files: &BTreeMap<String, FileEntry>,
    data: &Data,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let target = file_for(dir, workspace);
    let temporary = target.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut w = Writer {
            out: BufWriter::new(File::create(&temporary)?),
        };
        w.out.write_all(MAGIC)?;
        w.bytes(key_of(workspace).as_bytes())?;
        w.u64(files.len() as u64)?;
        for (path, entry) in files {
            w.bytes(path.as_bytes())?;
            let m = &entry.meta;
            w.u64(m.size)?;
            w.u64(m.mtime_ns as u64)?;
            w.u64(m.ctime_ns as u64)?;
            w.u64(m.dev)?;
            w.u64(m.ino)?;
            w.u64(m.nlink)?;
            w.u64(u64::from(m.mode))?;
            w.u64(u64::from(entry.trusted))?;
            w.u64(entry.doc.map_or(u64::MAX, u64::from))?;
        }
        w.u64(data.paths.len() as u64)?;
        for path in &data.paths {
            w.bytes(path.as_bytes())?;
        }
        let parts = data.postings.parts();
        w.u32s(parts.keys)?;
        w.u32s(parts.counts)?;
        w.u64s(parts.offsets)?;
        w.bytes(parts.data)?;
        w.u32s(parts.documents)?;
        w.u32s(parts.bare)?;
        w.out.flush()?;
    }
    std::fs::rename(&temporary, &target)
}

/// Loads the copy for `workspace` from `dir`, if there is a valid one.
pub(crate) fn load(dir: &Path, workspace: &Workspace) -> Option<Saved> {
    let path = file_for(dir, workspace);
    let file = File::open(path).ok()?;
    let left = file.metadata().ok()?.len();
    let mut r = Reader {
        input: BufReader::new(file),
        left,
    };
    let read = |r: &mut Reader<BufReader<File>>| -> std::io::Result<Option<Saved>> {
        if &r.array::<8>()? != MAGIC || r.string()? != key_of(workspace) {
            return Ok(None);
        }
        let n = r.u64()?;
        let mut files = BTreeMap::new();
        for _ in 0..n {
            let path = r.string()?;
            let meta = FileIdentity {
                size: r.u64()?,
                mtime_ns: r.u64()? as i64,
                ctime_ns: r.u64()? as i64,
                dev: r.u64()?,
                ino: r.u64()?,
                nlink: r.u64()?,
                mode: r.u64()? as u32,
            };
            let trusted = r.u64()? == 1;
            let doc = u32::try_from(r.u64()?).ok();
            files.insert(
                path,
                FileEntry {
                    meta,
                    doc,
                    generation: 0,
                    trusted,
                },
            );
        }
        let n = r.u64()?;
        let mut paths = Vec::new();
        for _ in 0..n {
            paths.push(r.string()?);
        }
        let keys = r.u32s()?;
        let counts = r.u32s()?;
        let offsets = r.u64s()?;
        let bytes = r.bytes()?;
        let documents = r.u32s()?;
        let bare = r.u32s()?;
        let Some(postings) = Postings::from_parts(keys, counts, offsets, bytes, documents, bare)
        else {
            return Ok(None);
        };
        // Every document must name a path of the copy.
        if files
            .values()
            .any(|e| e.doc.is_some_and(|d| d as usize >= paths.len()))
        {
            return Ok(None);
        }
        Ok(Some(Saved {
            files,
            data: Data { postings, paths },
        }))
    };
    read(&mut r).ok().flatten()
}
