//! Parsed outlines kept by file identity, so a file read again costs a lookup.
//!
//! The key is what an edit changes: the device, inode, size, modification and status change
//! times of the file the engine opened (with the language it was parsed as). Any write, replace or rename gives
//! a new key, so an entry is never stale; old entries age out (least recently used first) once
//! the cache holds [`CACHE_BYTES`](super::CACHE_BYTES) of outlines.
//!
//! One hole remains, the one git calls "racily clean": a file written twice within the
//! granularity of its file system's clock, to the same size, keeps its times. So an outline is
//! cached only when the file's status change time (which every write moves) lies at least
//! [`SETTLE_TIME`] in the past: a later write then necessarily changes it. A file being edited right now is parsed
//! again on each call until it settles.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::Refusal;
use super::lang::Language;
use super::parse::Parsed;

/// How old a file's modification time must be for its outline to be cached (2 s: the coarsest
/// clock of a common file system, FAT's).
pub const SETTLE_TIME: Duration = Duration::from_secs(2);

/// What identifies one version of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status change time, nanoseconds since the Unix epoch: every write moves it, and no
    /// program can set it back (as `touch -d` and `cp -p` set the modification time).
    pub ctime_ns: i64,
    /// The language it was parsed as.
    pub language: Language,
    /// Parsed for its references too (a parse that ran out of time doing so may still give an
    /// outline alone).
    pub references: bool,
}

/// A cached outcome: the outline, or the refusal a parse of these bytes ends in again (a
/// timeout or a crash: a hostile file is not parsed again until it changes).
pub type Outcome = Result<Arc<Parsed>, Refusal>;

#[derive(Clone)]
struct Size;

impl Weighter<Key, Outcome> for Size {
    fn weight(&self, _key: &Key, value: &Outcome) -> u64 {
        let held = match value {
            Ok(parsed) => {
                parsed
                    .entries
                    .iter()
                    .map(|d| d.name.len() + std::mem::size_of_val(d))
                    .sum::<usize>()
                    + parsed.references.as_ref().map_or(0, |r| r.weight())
            }
            Err(_) => 0,
        };
        (held + 128) as u64
    }
}

/// The cache.
pub struct OutlineCache {
    entries: Cache<Key, Outcome, Size>,
}

impl std::fmt::Debug for OutlineCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OutlineCache({} entries)", self.entries.len())
    }
}

impl OutlineCache {
    /// A cache holding at most `bytes` of outlines.
    pub fn new(bytes: u64) -> OutlineCache {
        // quick_cache sizes its tables from an estimate of the entry count.
        let estimated = usize::try_from(bytes / 4096).unwrap_or(1024).max(16);
        OutlineCache {
            entries: Cache::with_weighter(estimated, bytes, Size),
        }
    }

    /// The outcome cached for `key`.
    pub fn get(&self, key: &Key) -> Option<Outcome> {
        self.entries.get(key)
    }

    /// Forgets every outline.
    pub fn clear(&self) {
        self.entries.clear();
    }

    /// Keeps `outcome` for `key` when the file has settled (see the module's note); returns
    /// whether it was kept.
    pub fn put(&self, key: Key, outcome: Outcome) -> bool {
        if !settled(key.ctime_ns, SystemTime::now()) {
            return false;
        }
        self.entries.insert(key, outcome);
        true
    }
}

/// Whether a file last changed at `changed_ns` cannot change again, at `now`, without that time
/// moving.
fn settled(changed_ns: i64, now: SystemTime) -> bool {
    let Ok(now) = now.duration_since(UNIX_EPOCH) else {
        return false;
    };
    let now_ns = i64::try_from(now.as_nanos()).unwrap_or(i64::MAX);
    let settle = i64::try_from(SETTLE_TIME.as_nanos()).unwrap_or(i64::MAX);
    changed_ns <= now_ns.saturating_sub(settle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(changed_ns: i64) -> Key {
        Key {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: changed_ns,
            ctime_ns: changed_ns,
            language: Language::Python,
            references: false,
        }
    }

    #[test]
    fn a_file_modified_just_now_is_not_kept() {
        let cache = OutlineCache::new(1 << 20);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        assert!(!cache.put(key(now), Err(Refusal::Timeout)));
        assert!(cache.get(&key(now)).is_none());
        let old = now - 10_000_000_000;
        assert!(cache.put(key(old), Err(Refusal::Timeout)));
        assert_eq!(cache.get(&key(old)), Some(Err(Refusal::Timeout)));
        // A future modification time (a clock set back) is never settled.
        assert!(!cache.put(key(now + 60_000_000_000), Err(Refusal::Timeout)));
    }

    #[test]
    fn another_size_or_time_is_another_file() {
        let cache = OutlineCache::new(1 << 20);
        assert!(cache.put(key(1), Ok(Arc::new(Parsed::default()))));
        assert!(cache.get(&key(2)).is_none());
        assert!(cache.get(&Key { size: 4, ..key(1) }).is_none());
        assert!(cache.get(&key(1)).is_some());
    }
}
