//! Where a tree's index file lives, and how the processes on one tree share it.
//!
//! - Place: by default the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache` on Linux,
//!   `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows, as the `dirs` crate says), under
//!   `ripsight/index/`; or the workspace's `index_dir`; or, with `persist=False`, memory only
//!   (an anonymous file on Linux, mapped like any other; the heap elsewhere).
//! - Name: a hash of the key, which holds the root's path and identity (device, inode), the
//!   walk's options and the format's version; the key itself is inside the file and checked at
//!   load, so another tree's file (or another version's) is never read.
//! - Sharing: a file, once at its final name, is never written again. A new one is written to a
//!   temporary name, synced, and renamed over the old (then the directory is synced), so every
//!   reader maps either the old file or the new one, whole. Writers take an exclusive `flock`
//!   on a lock file beside it (rustix); a process that cannot take it is not the builder and
//!   waits for the file instead, answering cold. The kernel drops the lock of a process that
//!   dies, and the next holder deletes the temporary files it left: nothing half-written ever
//!   has the final name.
//! - Contents: a tree has two files, the n-gram index (`<hash>.rsidx`) and the symbol index
//!   (`<hash>-symbols.rssym`, see `symbols`), each with its own lock and temporaries (its
//!   name's stem is theirs: `<hash>-symbols.lock`), both made for the same key, read through
//!   the same [`Content`] path and pruned alike (`files`).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::base::Data;
use super::format::{Invalid, MAGIC};
use super::memory;
use super::postings::Backing;
use crate::workspace::Workspace;

/// What an index file holds, read in place from its bytes, once checked for `key`.
pub(super) trait Content: Sized {
    fn open(bytes: Arc<Backing>, key: &[u8]) -> Result<Self, Invalid>;
}

impl Content for Data {
    fn open(bytes: Arc<Backing>, key: &[u8]) -> Result<Data, Invalid> {
        Data::open(bytes, key)
    }
}

/// The identity (device, inode) of an index file, to tell when it was replaced.
pub(super) type FileId = (u64, u64);

/// An output the index file is written to.
pub(super) trait Sink: std::io::Write + std::io::Seek {}
impl<T: std::io::Write + std::io::Seek> Sink for T {}

/// Where this workspace's index file is kept.
#[derive(Clone)]
pub(super) struct Store {
    key: Vec<u8>,
    /// The directory, the file's name (without extension); `None`: memory only.
    disk: Option<(PathBuf, String)>,
    /// The file's extension (the content's: [`EXTENSION`] or [`SYMBOLS_EXTENSION`]).
    extension: &'static str,
}

/// The writer's lock: held while the file is built or merged, released when dropped (or when
/// the process dies).
pub(super) struct Lock {
    _file: Option<File>,
}

/// The ending of an index file's name (`<hash of the key>.rsidx`; its lock file is
/// `<hash>.lock`, a file being written `<hash>.tmp.<pid>.<n>`).
pub(super) const EXTENSION: &str = "rsidx";

/// The ending of a symbol file's name (`<hash>-symbols.rssym`).
pub(super) const SYMBOLS_EXTENSION: &str = "rssym";

/// The directory index files are kept in by default: `ripsight/index/` in the user's cache
/// directory.
pub(super) fn default_dir() -> Option<PathBuf> {
    dirs::cache_dir().map(|c| c.join("ripsight").join("index"))
}

/// Removes the index file at `path` with its lock file and the temporary files a dead writer
/// left, under its writer's lock taken without waiting; `Ok(false)`, removing nothing, when a
/// writer holds the lock.
pub(super) fn remove_unlocked(path: &Path) -> std::io::Result<bool> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_stem()) else {
        return Ok(false);
    };
    let name = name.to_string_lossy();
    let lock_path = dir.join(format!("{name}.lock"));
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)?;
    if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
        return Ok(false);
    }
    std::fs::remove_file(path)?;
    remove_temporaries(dir, &name);
    let _ = std::fs::remove_file(&lock_path);
    Ok(true)
}

/// Deletes the temporary files of `name` in `dir` (under its writer's lock: a dead writer's).
fn remove_temporaries(dir: &Path, name: &str) {
    let prefix = format!("{name}.tmp.");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Temporary files written by this process get distinct names.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// The store of `workspace`: in `index_dir`, or the user's cache directory, or (without
    /// `persist`, or without a cache directory) memory only.
    pub(super) fn new(workspace: &Workspace, index_dir: Option<&Path>, persist: bool) -> Store {
        let key = key_of(workspace);
        let dir = match index_dir {
            Some(dir) => Some(dir.to_path_buf()),
            None if persist => default_dir(),
            None => None,
        };
        let disk = dir.filter(|_| persist || index_dir.is_some()).map(|dir| {
            // FNV-1a of the key: a name, not a check (the key inside the file is checked).
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for b in &key {
                hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
            (dir, format!("{hash:016x}"))
        });
        Store {
            key,
            disk,
            extension: EXTENSION,
        }
    }

    pub(super) fn key(&self) -> &[u8] {
        &self.key
    }

    /// The store of the same tree's symbol index: the same place and key (with `content`, what
    /// its records hold: `symbols::CONTENT`), its own name.
    pub(super) fn symbols(&self, content: &[u8]) -> Store {
        Store {
            key: [self.key.as_slice(), content].concat(),
            disk: self
                .disk
                .as_ref()
                .map(|(dir, name)| (dir.clone(), format!("{name}-symbols"))),
            extension: SYMBOLS_EXTENSION,
        }
    }

    /// The index file's path, when it is kept on disk.
    pub(super) fn path(&self) -> Option<PathBuf> {
        self.disk
            .as_ref()
            .map(|(dir, name)| dir.join(format!("{name}.{}", self.extension)))
    }

    /// The identity of the file now at the final name, if any.
    pub(super) fn on_disk(&self) -> Option<FileId> {
        let meta = std::fs::metadata(self.path()?).ok()?;
        Some(id_of(&meta))
    }

    /// The file at the final name, mapped and checked; `None` when there is none or it is not
    /// one to trust (damaged, truncated, another version's or another tree's).
    pub(super) fn load(&self) -> Option<(Data, FileId)> {
        self.load_as()
    }

    /// [`Store::load`] for any content.
    pub(super) fn load_as<T: Content>(&self) -> Option<(T, FileId)> {
        let file = File::open(self.path()?).ok()?;
        let id = id_of(&file.metadata().ok()?);
        let map = memory::map(file).ok()?;
        let data = T::open(Arc::new(Backing::Map(map)), &self.key).ok()?;
        Some((data, id))
    }

    /// Takes the writer's lock without waiting; `None` when another process holds it. Memory
    /// only: always granted (nothing is shared). The holder deletes the temporary files a dead
    /// writer left.
    pub(super) fn try_lock(&self) -> Option<Lock> {
        let Some((dir, name)) = &self.disk else {
            return Some(Lock { _file: None });
        };
        make_private_dir(dir).ok()?;
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("{name}.lock")))
            .ok()?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).ok()?;
        remove_temporaries(dir, name);
        Some(Lock { _file: Some(file) })
    }

    /// Writes a new index file with `write` and puts it in place (under `_lock`): on disk, to a
    /// temporary file that is synced and renamed over the final name; in memory, to an
    /// anonymous file. Returns it mapped and checked. When the disk refuses, it is kept in
    /// memory instead.
    pub(super) fn save(
        &self,
        lock: &Lock,
        write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
    ) -> std::io::Result<(Data, Option<FileId>)> {
        self.save_as(lock, write)
    }

    /// [`Store::save`] for any content.
    pub(super) fn save_as<T: Content>(
        &self,
        _lock: &Lock,
        write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
    ) -> std::io::Result<(T, Option<FileId>)> {
        if let Some((dir, name)) = &self.disk {
            match self.save_to_disk(dir, name, write) {
                Ok(saved) => return Ok(saved),
                Err(_) => return self.save_in_memory(write).map(|data| (data, None)),
            }
        }
        self.save_in_memory(write).map(|data| (data, None))
    }

    fn save_to_disk<T: Content>(
        &self,
        dir: &Path,
        name: &str,
        write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
    ) -> std::io::Result<(T, Option<FileId>)> {
        make_private_dir(dir)?;
        let n = TEMPORARY.fetch_add(1, Ordering::Relaxed);
        let temporary = dir.join(format!("{name}.tmp.{}.{n}", std::process::id()));
        let result = (|| {
            let mut file = File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&temporary)?;
            {
                let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut file);
                write(&mut out)?;
                std::io::Write::flush(&mut out)?;
            }
            file.sync_all()?;
            let extension = self.extension;
            std::fs::rename(&temporary, dir.join(format!("{name}.{extension}")))?;
            // The rename itself is durable once the directory is synced.
            File::open(dir)?.sync_all()?;
            let id = id_of(&file.metadata()?);
            let map = memory::map(file)?;
            let data = T::open(Arc::new(Backing::Map(map)), &self.key)
                .map_err(|e| std::io::Error::other(e.0))?;
            Ok((data, Some(id)))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        result
    }

    fn save_in_memory<T: Content>(
        &self,
        write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
    ) -> std::io::Result<T> {
        let backing = memory_backing(write)?;
        T::open(Arc::new(backing), &self.key).map_err(|e| std::io::Error::other(e.0))
    }

    /// Removes the file at the final name if it is still `id` (found damaged), under the lock.
    pub(super) fn discard(&self, _lock: &Lock, id: FileId) {
        if self.on_disk() == Some(id)
            && let Some(path) = self.path()
        {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// An anonymous file (Linux: `memfd_create`), written and mapped: its pages are shared memory,
/// not the process's heap.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn memory_backing(
    write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
) -> std::io::Result<Backing> {
    use rustix::fs::{MemfdFlags, memfd_create};
    let fd = memfd_create("ripsight-index", MemfdFlags::CLOEXEC)?;
    let mut file = File::from(fd);
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut file);
        write(&mut out)?;
        std::io::Write::flush(&mut out)?;
    }
    Ok(Backing::Map(memory::map(file)?))
}

/// Elsewhere: the heap.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn memory_backing(
    write: &dyn Fn(&mut dyn Sink) -> std::io::Result<()>,
) -> std::io::Result<Backing> {
    let mut out = std::io::Cursor::new(Vec::new());
    write(&mut out)?;
    Ok(Backing::Heap(out.into_inner()))
}

fn id_of(meta: &std::fs::Metadata) -> FileId {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        (meta.len(), 0)
    }
}

/// Creates `dir` (and its parents); the index's own directory readable by its owner only (the
/// file names the tree's paths).
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// What the index file must agree on with the workspace loading it: the format, the root (path
/// and identity) and the options that decide what a walk lists.
fn key_of(workspace: &Workspace) -> Vec<u8> {
    let options = workspace.options();
    let root = crate::boundary::stat_child(workspace.root_dir().fd(), b".").unwrap_or_default();
    let mut key = MAGIC.to_vec();
    key.extend_from_slice(workspace.root().as_os_str().as_encoded_bytes());
    key.extend_from_slice(
        format!(
            "\n{}:{}\n{:?}\n{:?}\n{}",
            root.dev,
            root.ino,
            options.exclude_dirs,
            options.deny_globs,
            options.respect_ignore_files
        )
        .as_bytes(),
    );
    key
}
