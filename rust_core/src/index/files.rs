//! The index files a cache directory holds: listed with the tree each describes, and the stale
//! ones removed.
//!
//! A file is stale when its tree is gone (the root's path no longer names the directory whose
//! identity the key holds, so no workspace will ever load it), when another format version
//! wrote it (its magic differs: it would be rebuilt, never read), when it cannot be read as an
//! index file at all, when it was last used longer ago than the age limit, or when the files
//! used more recently already fill the size cap. "Last used" is the later of its modification
//! and access times: a file is written once, and every process that maps it touches its access
//! time (at the kernel's `relatime` grain, a day at most).
//!
//! Only the key is read (the header and the key section, a few hundred bytes), never the
//! posting lists. A file is removed under its writer's lock, taken without waiting, so a file
//! being rebuilt or merged is left alone (`busy`); its lock file and any temporary file a dead
//! writer left go with it. Every process that saves an index file prunes its directory with
//! the default policy ([`CachePolicy::default`]), so the directory stays within the cap and the
//! age limit without anyone asking.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::format::{Kind, MAGIC, le_u32, le_u64};
use super::store;
use crate::limits::{INDEX_CACHE_MAX_AGE, INDEX_CACHE_MAX_BYTES};

/// The first bytes every format version's file starts with (the version follows).
const FAMILY: &[u8] = b"RSIDX";
/// A key longer than this is no key this engine wrote (a root path is at most `PATH_MAX`).
const MAX_KEY_BYTES: u64 = 1 << 16;
/// The key section's kind in the header.
const KEY_KIND: u32 = Kind::Key as u32;

crate::choice! {
    /// Why an index file is stale.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Staleness {
        /// Its root no longer exists, or is another directory now.
        TreeGone = "tree_gone",
        /// Another format version wrote it.
        OtherFormat = "other_format",
        /// It cannot be read as an index file (damaged, truncated, not one).
        Unreadable = "unreadable",
        /// Last used longer ago than the age limit.
        TooOld = "too_old",
        /// The files used more recently fill the size cap.
        OverSizeCap = "over_size_cap",
    }
}

crate::choice! {
    /// What an index file holds (each tree has one of each).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum IndexContent {
        /// The n-gram index of the tree's contents (grep's and glob's candidates).
        Ngrams = "ngrams",
        /// The symbol index: definitions and references (the navigation tools).
        Symbols = "symbols",
    }
}

crate::record! {
    "IndexFile",
    /// One index file of a cache directory: the tree it describes, its size and age, and
    /// whether (and why) it is stale.
    #[derive(Clone, Debug, PartialEq)]
    pub struct IndexFile {
        /// The file's path.
        pub path: OsString,
        /// What it holds (ngrams, symbols).
        pub content: IndexContent,
        /// The root of the tree it describes (raw bytes); null when the key cannot be read.
        pub root: Option<OsString>,
        /// Its size in bytes.
        pub size_bytes: u64,
        /// When it was last used (the later of its modification and access times), in seconds
        /// since the Unix epoch.
        pub last_used: f64,
        /// Why it is stale (tree_gone, other_format, unreadable, too_old, over_size_cap); null
        /// when it is kept.
        pub stale: Option<Staleness>,
        /// True when it was removed (by a prune; a listing removes nothing).
        pub removed: bool,
        /// True when a stale file was left because a process was writing it (its lock was
        /// held).
        pub busy: bool,
    }
}

/// What a prune keeps: files used within `max_age`, newest first, up to `max_bytes` in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachePolicy {
    /// Files not used for longer are stale.
    pub max_age: Duration,
    /// The total size the kept files may reach, newest first.
    pub max_bytes: u64,
}

impl Default for CachePolicy {
    /// The engine's defaults ([`INDEX_CACHE_MAX_AGE`], [`INDEX_CACHE_MAX_BYTES`]).
    fn default() -> CachePolicy {
        CachePolicy {
            max_age: INDEX_CACHE_MAX_AGE,
            max_bytes: INDEX_CACHE_MAX_BYTES,
        }
    }
}

/// The directory index files are kept in by default (`None`: the platform has no cache
/// directory).
pub fn default_dir() -> Option<PathBuf> {
    store::default_dir()
}

/// Every index file in `dir`, most recently used first, each with its staleness under
/// `policy` (computed as of `now`). Removes nothing. A missing directory holds no files.
pub fn list(dir: &Path, policy: &CachePolicy, now: SystemTime) -> std::io::Result<Vec<IndexFile>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut files: Vec<IndexFile> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let content = match path.extension().and_then(|e| e.to_str()) {
            Some(store::EXTENSION) => IndexContent::Ngrams,
            Some(store::SYMBOLS_EXTENSION) => IndexContent::Symbols,
            _ => continue,
        };
        // Not following links: the directory holds the files themselves.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let (root, stale) = match read_key(&path) {
            Ok(Some(key)) => {
                let (root, gone) = describe(&key);
                (root, gone.then_some(Staleness::TreeGone))
            }
            Ok(None) => (None, Some(Staleness::OtherFormat)),
            Err(_) => (None, Some(Staleness::Unreadable)),
        };
        files.push(IndexFile {
            path: path.into_os_string(),
            content,
            root,
            size_bytes: meta.len(),
            last_used: last_used(&meta),
            stale,
            removed: false,
            busy: false,
        });
    }
    files.sort_by(|a, b| {
        b.last_used
            .total_cmp(&a.last_used)
            .then_with(|| a.path.cmp(&b.path))
    });
    let now = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let oldest = now.saturating_sub(policy.max_age).as_secs_f64();
    let mut kept_bytes: u64 = 0;
    for file in files.iter_mut().filter(|f| f.stale.is_none()) {
        if file.last_used < oldest {
            file.stale = Some(Staleness::TooOld);
        } else if kept_bytes.saturating_add(file.size_bytes) > policy.max_bytes {
            file.stale = Some(Staleness::OverSizeCap);
        } else {
            kept_bytes += file.size_bytes;
        }
    }
    Ok(files)
}

/// Lists `dir` as [`list`] does and removes every stale file but `keep` (each under its
/// writer's lock, with its lock file and leftover temporary files); returns the listing, each
/// file marked `removed` or `busy`.
pub fn prune(
    dir: &Path,
    policy: &CachePolicy,
    now: SystemTime,
    keep: Option<&Path>,
) -> std::io::Result<Vec<IndexFile>> {
    let mut files = list(dir, policy, now)?;
    for file in files.iter_mut().filter(|f| f.stale.is_some()) {
        let path = Path::new(&file.path);
        if keep == Some(path) {
            continue;
        }
        match store::remove_unlocked(path) {
            Ok(true) => file.removed = true,
            Ok(false) => file.busy = true,
            // Gone already (another process pruned it), or refused: not removed.
            Err(_) => {}
        }
    }
    Ok(files)
}

/// The key inside the index file at `path`: `Ok(None)` for another format version's file, an
/// error for one that is no index file or is damaged where the key lies.
fn read_key(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let mut file = File::open(path)?;
    let length = file.metadata()?.len();
    // The magic first: another version's header may be laid out otherwise.
    let mut fixed = [0u8; 24];
    file.read_exact(&mut fixed[..8])?;
    if !fixed.starts_with(FAMILY) {
        return Err(invalid("not an index file"));
    }
    if fixed[..8] != MAGIC[..] {
        return Ok(None);
    }
    file.read_exact(&mut fixed[8..])?;
    let sections = u64::from(le_u32(&fixed, 8));
    if sections > 64 {
        return Err(invalid("too many sections"));
    }
    let mut entries = vec![0u8; (sections * 24) as usize];
    file.read_exact(&mut entries)?;
    let entry = entries
        .chunks_exact(24)
        .find(|e| le_u32(e, 0) == KEY_KIND)
        .ok_or_else(|| invalid("no key section"))?;
    let (offset, len) = (le_u64(entry, 8), le_u64(entry, 16));
    if len > MAX_KEY_BYTES || offset.saturating_add(len) > length {
        return Err(invalid("key section out of bounds"));
    }
    let mut key = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(&mut key)?;
    if !key.starts_with(MAGIC) {
        return Err(invalid("damaged key"));
    }
    Ok(Some(key))
}

/// The root a key names, and whether its tree is gone: the key is the magic, the root's path,
/// then `\n` and `dev:ino`, the exclude list, the deny list and the ignore-file switch, each on
/// a line of its own (Debug-formatted lists hold no raw newline, so the root is everything
/// before the fourth newline from the end).
fn describe(key: &[u8]) -> (Option<OsString>, bool) {
    let body = &key[MAGIC.len()..];
    let breaks: Vec<usize> = body
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let Some(&cut) = breaks.len().checked_sub(4).and_then(|i| breaks.get(i)) else {
        return (None, false);
    };
    let root = os_string(&body[..cut]);
    let identity = std::str::from_utf8(&body[cut + 1..breaks[breaks.len() - 3]]).unwrap_or("");
    let gone = match std::fs::metadata(&root) {
        Ok(meta) => !meta.is_dir() || identity != identity_of(&meta),
        Err(_) => true,
    };
    (Some(root), gone)
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
fn os_string(bytes: &[u8]) -> OsString {
    OsString::from(String::from_utf8_lossy(bytes).into_owned())
}

/// `dev:ino`, as the key writes the root's identity.
fn identity_of(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("{}:{}", meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        String::new()
    }
}

fn last_used(meta: &std::fs::Metadata) -> f64 {
    let seconds = |t: std::io::Result<SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0.0, |d| d.as_secs_f64())
    };
    seconds(meta.modified()).max(seconds(meta.accessed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with the current magic and a key section (all the listing reads).
    fn write_index(path: &Path, key: &[u8]) {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&((48 + key.len()) as u64).to_le_bytes());
        bytes.extend_from_slice(&KEY_KIND.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&48u64.to_le_bytes());
        bytes.extend_from_slice(&(key.len() as u64).to_le_bytes());
        bytes.extend_from_slice(key);
        std::fs::write(path, bytes).unwrap();
    }

    fn key_for(root: &Path) -> Vec<u8> {
        let meta = std::fs::metadata(root).unwrap();
        let mut key = MAGIC.to_vec();
        key.extend_from_slice(root.as_os_str().as_encoded_bytes());
        key.extend_from_slice(format!("\n{}\n[]\n[]\ntrue", identity_of(&meta)).as_bytes());
        key
    }

    #[test]
    fn lists_the_tree_and_finds_each_kind_of_stale_file() {
        let cache = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        let gone = tempfile::tempdir().unwrap();
        let gone_key = key_for(gone.path());
        drop(gone);
        write_index(&cache.path().join("a.rsidx"), &key_for(tree.path()));
        write_index(&cache.path().join("b.rsidx"), &gone_key);
        std::fs::write(cache.path().join("c.rsidx"), b"RSIDX001 an old format").unwrap();
        std::fs::write(cache.path().join("d.rsidx"), b"something else entirely....").unwrap();
        std::fs::write(cache.path().join("a.lock"), b"").unwrap();
        let files = list(cache.path(), &CachePolicy::default(), SystemTime::now()).unwrap();
        let by_name = |name: &str| {
            files
                .iter()
                .find(|f| Path::new(&f.path).file_name().unwrap() == name)
                .unwrap()
                .clone()
        };
        assert_eq!(files.len(), 4);
        assert_eq!(
            by_name("a.rsidx").root.as_deref(),
            Some(tree.path().as_os_str())
        );
        assert_eq!(by_name("a.rsidx").stale, None);
        assert_eq!(by_name("b.rsidx").stale, Some(Staleness::TreeGone));
        assert_eq!(by_name("c.rsidx").stale, Some(Staleness::OtherFormat));
        assert_eq!(by_name("d.rsidx").stale, Some(Staleness::Unreadable));

        // The size cap counts the files kept, most recently used first: a's alone fits its
        // own size, and nothing fits 0 bytes. The stale ones never count.
        let size = by_name("a.rsidx").size_bytes;
        let stale_of_a = |policy: CachePolicy, now: SystemTime| {
            list(cache.path(), &policy, now)
                .unwrap()
                .into_iter()
                .find(|f| Path::new(&f.path).file_name().unwrap() == "a.rsidx")
                .unwrap()
                .stale
        };
        let hour = Duration::from_secs(3600);
        let fits = CachePolicy {
            max_age: hour,
            max_bytes: size,
        };
        assert_eq!(stale_of_a(fits, SystemTime::now()), None);
        let full = CachePolicy {
            max_age: hour,
            max_bytes: size - 1,
        };
        assert_eq!(
            stale_of_a(full, SystemTime::now()),
            Some(Staleness::OverSizeCap)
        );
        // Two hours on, a file last used now is over the one-hour age limit.
        let later = SystemTime::now() + 2 * hour;
        assert_eq!(stale_of_a(fits, later), Some(Staleness::TooOld));

        let pruned = prune(
            cache.path(),
            &CachePolicy::default(),
            SystemTime::now(),
            None,
        )
        .unwrap();
        assert_eq!(pruned.iter().filter(|f| f.removed).count(), 3);
        let left: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }

    #[test]
    fn a_missing_directory_holds_no_files() {
        let cache = tempfile::tempdir().unwrap();
        let missing = cache.path().join("nothing");
        assert!(
            list(&missing, &CachePolicy::default(), SystemTime::now())
                .unwrap()
                .is_empty()
        );
    }
}
