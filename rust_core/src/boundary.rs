//! Capability-based file access: the one module that opens files and directories.
//!
//! A [`Workspace`](crate::workspace::Workspace) opens its root directory once and keeps the
//! descriptor ([`RootDir`]). Every later open of every tool happens relative to a descriptor, in
//! one step that the operating system guarantees cannot leave the root:
//!
//! - a path below the root is opened with Linux `openat2(root, path, RESOLVE_BENEATH |
//!   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`. Where `openat2` is missing (`ENOSYS`: Linux
//!   before 5.6, or a non-Linux Unix) the path is opened one component at a time with
//!   `openat(…, O_NOFOLLOW)`, each component relative to the descriptor of the one before;
//! - a walk opens each directory and file by its bare name relative to its parent's descriptor
//!   with `O_NOFOLLOW` (see [`open_child_dir`], [`open_child_file`]): a name holds no `/` and a
//!   link is refused, so the open cannot leave the parent.
//!
//! Symlinks inside the root are followed only for paths a caller names (`read_file`, an explicit
//! `path`): [`RootDir::resolve`] resolves them by hand, beneath the root (`readlinkat` on each
//! link, at most [`MAX_LINK_HOPS`] hops, `..` never above the root), which gives the real path;
//! the real path is then opened with symlinks refused. A link swapped in after the resolution
//! makes that open fail instead of leading elsewhere, and the resolution is tried again
//! ([`OPEN_ATTEMPTS`] times). Nothing is ever resolved in one step and opened by path in another.
//!
//! Every open is `O_NONBLOCK | O_CLOEXEC | O_NOCTTY` and is followed by `fstat` of the
//! descriptor: what is not a regular file (or a directory where one is wanted) is refused before
//! a byte is read, so a FIFO swapped in can never block a call.
//!
//! The system calls come from the `rustix` crate: it wraps `openat2`, `openat`, `readlinkat`,
//! `fstat` and `getdents` in safe functions, so the crate keeps `unsafe_code = "forbid"`
//! (`cap-std` offers the same guarantees but hides the descriptors and walks behind its own
//! `Dir` type, and its `read_dir` stats each entry; the walker needs the raw `d_type`).
//!
//! Renaming a directory out of the root while it is walked is not defended against: it moves
//! content that was inside the root, which an attacker able to do so could as well move in.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(any(target_os = "linux", target_os = "android"))]
use rustix::fs::ResolveFlags;
use rustix::fs::{FileType, Mode, OFlags, Stat};

/// Symlinks followed at most while resolving one requested path (Linux's own limit is 40).
pub const MAX_LINK_HOPS: usize = 40;
/// Times a requested path is resolved and opened before a path that keeps changing is reported.
pub const OPEN_ATTEMPTS: usize = 4;

/// What the opened file is, from `fstat` of its descriptor: the identity the Python layer keys
/// its read state on (it never stats a model-given path itself).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// `st_mode` (type and permission bits).
    pub mode: u32,
    /// Status change time in nanoseconds since the Unix epoch (the warm index trusts an
    /// unchanged file only when this is old enough).
    pub ctime_ns: i64,
    /// Hard links to the file (the warm index never trusts a file with more than one: a write
    /// through another name is reported for that name only).
    pub nlink: u64,
}

impl FileIdentity {
    /// The modification time (the epoch for a time before it).
    pub fn modified(&self) -> std::time::SystemTime {
        let nanos = u64::try_from(self.mtime_ns).unwrap_or(0);
        std::time::UNIX_EPOCH + std::time::Duration::from_nanos(nanos)
    }

    // The `stat` field types differ between platforms (`st_dev` is `i32` on macOS).
    #[allow(clippy::unnecessary_cast)]
    fn from_stat(st: &Stat) -> FileIdentity {
        FileIdentity {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size.max(0) as u64,
            mtime_ns: (st.st_mtime as i64)
                .saturating_mul(1_000_000_000)
                .saturating_add(st.st_mtime_nsec as i64),
            mode: st.st_mode as u32,
            ctime_ns: (st.st_ctime as i64)
                .saturating_mul(1_000_000_000)
                .saturating_add(st.st_ctime_nsec as i64),
            nlink: st.st_nlink as u64,
        }
    }

    /// The kind of file.
    pub fn kind(&self) -> Kind {
        kind_of(FileType::from_raw_mode(self.mode as _))
    }
}

/// The kind of an entry, as far as the tools care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (seen by a walk, never followed by it).
    Symlink,
    /// A FIFO, socket or device: never read. The name says which.
    Special(&'static str),
    /// The file system did not say (`DT_UNKNOWN`); `fstatat` tells.
    Unknown,
}

pub(crate) fn kind_of(file_type: FileType) -> Kind {
    match file_type {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        FileType::Fifo => Kind::Special("FIFO"),
        FileType::Socket => Kind::Special("socket"),
        FileType::CharacterDevice => Kind::Special("character device"),
        FileType::BlockDevice => Kind::Special("block device"),
        FileType::Unknown => Kind::Unknown,
    }
}

/// Flags of every open: never blocks (FIFOs), never leaks into children, never becomes a
/// controlling terminal, never follows a final symlink.
fn base_flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW
}

/// Whether `openat2` works here: 0 not yet known, 1 yes, 2 no (fall back to component-wise).
static OPENAT2: AtomicU8 = AtomicU8::new(0);

/// The environment variable that makes this process behave as on a Unix without Linux's extras:
/// opens go component by component (no `openat2`) and the warm index has no inotify watcher (it
/// re-checks instead). A test switch, so that CI on Linux runs the code macOS runs.
pub const PORTABLE_ENV: &str = "RIPSIGHT_PORTABLE";

/// Whether [`PORTABLE_ENV`] is set to `1` (read once per process).
pub fn portable_mode() -> bool {
    static PORTABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PORTABLE.get_or_init(|| std::env::var_os(PORTABLE_ENV).is_some_and(|v| v == "1"))
}

/// Makes every later open use the component-wise `openat` fallback, as on systems without
/// `openat2`; for tests of the fallback. Both ways open the same files.
#[doc(hidden)]
pub fn force_component_wise_opens(yes: bool) {
    OPENAT2.store(if yes { 2 } else { 0 }, Ordering::Relaxed);
}

/// Whether opens go component by component (no `openat2` here, or forced by a test or by
/// [`portable_mode`]).
pub fn opens_component_wise() -> bool {
    !cfg!(any(target_os = "linux", target_os = "android"))
        || portable_mode()
        || OPENAT2.load(Ordering::Relaxed) == 2
}

/// Opens `path` (relative, `/`-separated, no `..`; empty for `dir` itself) beneath `dir`,
/// refusing every symlink on the way and at the end. `extra` adds flags (`O_DIRECTORY`).
pub(crate) fn open_beneath(dir: BorrowedFd<'_>, path: &[u8], extra: OFlags) -> io::Result<OwnedFd> {
    let flags = base_flags() | extra;
    let path = if path.is_empty() { b"." as &[u8] } else { path };
    if path.starts_with(b"/") || path.split(|b| *b == b'/').any(|c| c == b"..") {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if !opens_component_wise() {
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(dir, OsStr::from_bytes(path), flags, Mode::empty(), resolve) {
            Err(rustix::io::Errno::NOSYS) => OPENAT2.store(2, Ordering::Relaxed),
            // EAGAIN: the kernel asks to retry a lookup raced by a rename. EPERM: a seccomp
            // filter refusing the system call (some container runtimes do).
            Err(rustix::io::Errno::AGAIN) | Err(rustix::io::Errno::PERM) => {
                return open_beneath_by_component(dir, path, flags);
            }
            other => {
                OPENAT2.store(1, Ordering::Relaxed);
                return other.map_err(io::Error::from);
            }
        }
    }
    open_beneath_by_component(dir, path, flags)
}

/// The fallback of [`open_beneath`]: one `openat(…, O_NOFOLLOW)` per component, each relative
/// to the descriptor of the directory before it.
fn open_beneath_by_component(
    dir: BorrowedFd<'_>,
    path: &[u8],
    flags: OFlags,
) -> io::Result<OwnedFd> {
    let parts: Vec<&[u8]> = path
        .split(|b| *b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .collect();
    let Some((last, middle)) = parts.split_last() else {
        return Ok(rustix::fs::openat(dir, ".", flags, Mode::empty())?);
    };
    let mut current: Option<OwnedFd> = None;
    for part in middle {
        let at = current.as_ref().map_or(dir, |fd| fd.as_fd());
        let next = rustix::fs::openat(
            at,
            OsStr::from_bytes(part),
            base_flags() | OFlags::DIRECTORY,
            Mode::empty(),
        )?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir, |fd| fd.as_fd());
    Ok(rustix::fs::openat(
        at,
        OsStr::from_bytes(last),
        flags,
        Mode::empty(),
    )?)
}

/// Opens the directory `name` (one component) of `parent` for listing; a symlink (swapped in or
/// not) fails with `ELOOP`/`ENOTDIR`.
pub(crate) fn open_child_dir(parent: BorrowedFd<'_>, name: &[u8]) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        parent,
        OsStr::from_bytes(name),
        base_flags() | OFlags::DIRECTORY,
        Mode::empty(),
    )?)
}

/// Why a file could not be opened for reading.
#[derive(Debug)]
pub enum OpenFileError {
    /// The entry is not a regular file (a directory, FIFO, socket, device or, in a walk, a
    /// symlink swapped in): nothing was read.
    NotRegular(Kind),
    /// The operating system refused or failed.
    Io(io::Error),
}

impl From<io::Error> for OpenFileError {
    fn from(error: io::Error) -> Self {
        // O_NOFOLLOW on a symlink fails with ELOOP.
        if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            return OpenFileError::NotRegular(Kind::Symlink);
        }
        if is_special_open_error(&error) {
            return OpenFileError::NotRegular(Kind::Special("special file"));
        }
        OpenFileError::Io(error)
    }
}

/// `fstat` of an opened descriptor; a regular file becomes a `File` with its identity.
pub(crate) fn regular_file(fd: OwnedFd) -> Result<(File, FileIdentity), OpenFileError> {
    let st = rustix::fs::fstat(&fd).map_err(io::Error::from)?;
    let identity = FileIdentity::from_stat(&st);
    match identity.kind() {
        Kind::File => Ok((File::from(fd), identity)),
        other => Err(OpenFileError::NotRegular(other)),
    }
}

/// Opens the regular file `name` (one component) of `parent`: never follows a link, never
/// blocks, refuses anything else after `fstat`.
pub(crate) fn open_child_file(
    parent: BorrowedFd<'_>,
    name: &[u8],
) -> Result<(File, FileIdentity), OpenFileError> {
    let fd = match rustix::fs::openat(parent, OsStr::from_bytes(name), base_flags(), Mode::empty())
    {
        Ok(fd) => fd,
        Err(errno) => {
            let error = io::Error::from(errno);
            if is_special_open_error(&error) {
                // A socket (or a device without a driver) cannot be opened at all: say which.
                let kind =
                    stat_child(parent, name).map_or(Kind::Special("special file"), |i| i.kind());
                return Err(OpenFileError::NotRegular(kind));
            }
            return Err(error.into());
        }
    };
    regular_file(fd)
}

/// `fstatat(parent, name, AT_SYMLINK_NOFOLLOW)`: the entry itself, never a link's target.
pub(crate) fn stat_child(parent: BorrowedFd<'_>, name: &[u8]) -> io::Result<FileIdentity> {
    let st = rustix::fs::statat(
        parent,
        OsStr::from_bytes(name),
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
    )?;
    Ok(FileIdentity::from_stat(&st))
}

/// Reads at most `limit` bytes of the regular file `name` of `parent` (ignore files); `None` when
/// it is missing, not a regular file or unreadable.
pub(crate) fn read_child(parent: BorrowedFd<'_>, name: &[u8], limit: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let (file, identity) = open_child_file(parent, name).ok()?;
    let mut bytes = Vec::with_capacity(identity.size.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The workspace root, opened once.
#[derive(Debug)]
pub struct RootDir {
    fd: OwnedFd,
    /// The canonical absolute path (for display and for absolute requested paths).
    path: PathBuf,
    /// The path as the embedding application gave it, made absolute (it may hold symlinks).
    given: PathBuf,
}

/// A requested path resolved beneath the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The real path: relative to the root, `/`-separated, no symlinks; empty for the root.
    pub real: Vec<u8>,
    /// The requested path made relative to the root with `.` and `..` folded by name (what a
    /// deny rule on the requested name is checked against); `None` when it names a place above
    /// the root.
    pub lexical: Option<Vec<u8>>,
}

/// Why a requested path could not be resolved.
#[derive(Debug)]
pub enum ResolveError {
    /// The path, or a link on the way, leads out of the root.
    OutsideRoot,
    /// A component does not exist: `existing` is the real path of the deepest existing
    /// directory, `missing` the components from there on (the first one is missing).
    Missing {
        /// Real path (relative) of the deepest existing directory.
        existing: Vec<u8>,
        /// The components that could not be found, in order.
        missing: Vec<Vec<u8>>,
        /// Where the path would be: `existing` with `missing` applied by name.
        probable: Vec<u8>,
    },
    /// More than [`MAX_LINK_HOPS`] links (a loop).
    LinkLoop,
    /// A name or the whole path is longer than the system allows.
    TooLong,
    /// Any other failure.
    Io(io::Error),
}

impl From<io::Error> for ResolveError {
    fn from(error: io::Error) -> Self {
        match error.raw_os_error() {
            Some(code) if code == rustix::io::Errno::NAMETOOLONG.raw_os_error() => {
                ResolveError::TooLong
            }
            Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => ResolveError::LinkLoop,
            _ => ResolveError::Io(error),
        }
    }
}

impl From<rustix::io::Errno> for ResolveError {
    fn from(error: rustix::io::Errno) -> Self {
        ResolveError::from(io::Error::from(error))
    }
}

/// What a successful open of a requested path gave.
#[derive(Debug)]
pub enum Opened {
    /// A regular file, with its identity.
    File(File, FileIdentity),
    /// A directory (its descriptor, for walking).
    Dir(OwnedFd),
}

/// Splits a `/`-separated byte path into components (empty ones dropped).
fn components(path: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> {
    path.split(|b| *b == b'/').filter(|c| !c.is_empty())
}

fn join(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.join(&b'/')
}

impl RootDir {
    /// Opens the root directory `root` (canonicalized; this is the one open by path, of a path
    /// the embedding application chose, never a model).
    pub fn open(root: &Path) -> io::Result<RootDir> {
        let given = std::path::absolute(root)?;
        let path = std::fs::canonicalize(root)?;
        let fd = rustix::fs::open(
            &path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )?;
        Ok(RootDir { fd, path, given })
    }

    /// The canonical root path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// `absolute` (a path outside the root's namespace as the caller wrote it) relative to the
    /// root, with `.`/`..` folded by name; `None` when it is not below the root.
    pub(crate) fn strip_root(&self, absolute: &Path) -> Option<Vec<u8>> {
        let normalized = normalize_lexically(absolute);
        for root in [&self.path, &self.given] {
            if let Ok(rest) = normalized.strip_prefix(root) {
                let parts: Vec<Vec<u8>> = rest
                    .components()
                    .filter_map(|c| match c {
                        Component::Normal(p) => Some(p.as_bytes().to_vec()),
                        _ => None,
                    })
                    .collect();
                return Some(join(&parts));
            }
        }
        None
    }

    /// The requested path as components relative to the root (`.`/`..` kept), or `OutsideRoot`
    /// for an absolute path not below the root.
    fn requested_parts(&self, requested: &OsStr) -> Result<Vec<Vec<u8>>, ResolveError> {
        let path = Path::new(requested);
        let relative = if path.is_absolute() {
            self.strip_root(path).ok_or(ResolveError::OutsideRoot)?
        } else {
            requested.as_bytes().to_vec()
        };
        Ok(components(&relative).map(|c| c.to_vec()).collect())
    }

    /// The requested path relative to the root with `.`/`..` folded by name, `None` above it.
    fn lexical(parts: &[Vec<u8>]) -> Option<Vec<u8>> {
        let mut out: Vec<&[u8]> = Vec::new();
        for part in parts {
            match part.as_slice() {
                b"." => {}
                b".." => {
                    out.pop()?;
                }
                other => out.push(other),
            }
        }
        Some(out.join(&b'/'))
    }

    /// Resolves `requested` (relative to the root, or absolute below it) by hand beneath the
    /// root: in-root symlinks are followed (absolute targets must lie below the root), `..`
    /// never climbs above the root. Reads link targets only; opens directories only, relative
    /// to descriptors beneath the root.
    pub fn resolve(&self, requested: &OsStr) -> Result<Resolved, ResolveError> {
        let parts = self.requested_parts(requested)?;
        let lexical = Self::lexical(&parts);
        let mut queue: std::collections::VecDeque<Vec<u8>> = parts.into_iter().collect();
        let mut real: Vec<Vec<u8>> = Vec::new();
        // Descriptor of the directory `real` names (None: the root).
        let mut current: Option<OwnedFd> = None;
        let mut hops = 0;
        while let Some(part) = queue.pop_front() {
            match part.as_slice() {
                b"" | b"." => continue,
                b".." => {
                    if real.pop().is_none() {
                        return Err(ResolveError::OutsideRoot);
                    }
                    current = if real.is_empty() {
                        None
                    } else {
                        Some(open_beneath(self.fd(), &join(&real), OFlags::DIRECTORY)?)
                    };
                    continue;
                }
                _ => {}
            }
            let at = current.as_ref().map_or(self.fd(), |fd| fd.as_fd());
            match rustix::fs::readlinkat(at, OsStr::from_bytes(&part), Vec::new()) {
                Ok(target) => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(ResolveError::LinkLoop);
                    }
                    let target = target.into_bytes();
                    let target_path = Path::new(OsStr::from_bytes(&target));
                    let relative = if target_path.is_absolute() {
                        real.clear();
                        current = None;
                        self.strip_root(target_path)
                            .ok_or(ResolveError::OutsideRoot)?
                    } else {
                        target
                    };
                    for piece in components(&relative).rev() {
                        queue.push_front(piece.to_vec());
                    }
                }
                Err(rustix::io::Errno::INVAL) => {
                    // Not a link: a real component. Open it when more follow (`a/.` is `a`:
                    // whether it must be a directory is the opener's to say).
                    if queue.iter().any(|p| !matches!(p.as_slice(), b"" | b".")) {
                        match open_child_dir(at, &part) {
                            Ok(fd) => current = Some(fd),
                            Err(e)
                                if e.raw_os_error()
                                    == Some(rustix::io::Errno::NOTDIR.raw_os_error()) =>
                            {
                                // A file used as a directory: what follows does not exist.
                                let mut missing = vec![part];
                                missing.extend(queue);
                                return Err(missing_error(real, missing));
                            }
                            Err(e) => return Err(e.into()),
                        }
                    }
                    real.push(part);
                }
                Err(rustix::io::Errno::NOENT) => {
                    let mut missing = vec![part];
                    missing.extend(queue);
                    return Err(missing_error(real, missing));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Resolved {
            real: join(&real),
            lexical,
        })
    }

    /// Opens the real path `real` (from [`RootDir::resolve`]) beneath the root, symlinks
    /// refused, and looks at what was opened.
    pub fn open_real(&self, real: &[u8]) -> io::Result<Opened> {
        let fd = match open_beneath(self.fd(), real, OFlags::empty()) {
            Ok(fd) => fd,
            Err(error) if is_special_open_error(&error) => {
                // Nothing was opened; the entry's type (not following links) names the refusal.
                let path = if real.is_empty() { b"." as &[u8] } else { real };
                let kind = rustix::fs::statat(
                    self.fd(),
                    OsStr::from_bytes(path),
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                )
                .map(|st| FileIdentity::from_stat(&st).kind());
                let name = match kind {
                    Ok(Kind::Special(name)) => name,
                    _ => "special file",
                };
                return Err(io::Error::other(SpecialKind(name)));
            }
            Err(error) => return Err(error),
        };
        let st = rustix::fs::fstat(&fd)?;
        let identity = FileIdentity::from_stat(&st);
        Ok(match identity.kind() {
            Kind::Dir => Opened::Dir(fd),
            Kind::File => Opened::File(File::from(fd), identity),
            other => {
                return Err(io::Error::other(SpecialKind(match other {
                    Kind::Special(kind) => kind,
                    _ => "special file",
                })));
            }
        })
    }
}

/// Removes `.` and folds `..` without touching the file system.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `Missing` for the real components `real` followed by the missing `rest`, or `OutsideRoot`
/// when `rest` climbs above the root (missing components cannot be links: `..` folds by name).
fn missing_error(real: Vec<Vec<u8>>, mut rest: Vec<Vec<u8>>) -> ResolveError {
    rest.retain(|p| !p.is_empty() && p != b".");
    let mut probable = real.clone();
    for part in &rest {
        if part.as_slice() == b".." {
            if probable.pop().is_none() {
                return ResolveError::OutsideRoot;
            }
        } else {
            probable.push(part.clone());
        }
    }
    ResolveError::Missing {
        existing: join(&real),
        missing: rest,
        probable: join(&probable),
    }
}

/// The error payload of [`RootDir::open_real`] for a FIFO, socket or device.
#[derive(Debug)]
pub(crate) struct SpecialKind(pub(crate) &'static str);

impl std::fmt::Display for SpecialKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {}", self.0)
    }
}

impl std::error::Error for SpecialKind {}

/// `ENXIO`/`ENODEV`: what opening a socket or a device without a driver gives.
fn is_special_open_error(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(code) if code == rustix::io::Errno::NXIO.raw_os_error()
            || code == rustix::io::Errno::NODEV.raw_os_error()
    )
}

/// Whether an open of a resolved path failed because the path changed after the resolution (a
/// symlink or something else swapped in): worth resolving again.
pub(crate) fn changed_under_us(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error()
            || code == rustix::io::Errno::XDEV.raw_os_error()
            || code == rustix::io::Errno::NOENT.raw_os_error()
            || code == rustix::io::Errno::NOTDIR.raw_os_error()
            || code == rustix::io::Errno::AGAIN.raw_os_error()
    )
}
