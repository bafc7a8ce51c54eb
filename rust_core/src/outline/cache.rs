//! Parsed outlines kept by the bytes they were parsed from, so a file read again costs a read
//! and a hash.
//!
//! The key is the content itself, hashed: its length, a 64-bit SipHash of the bytes under a key
//! drawn at random for the process (so no file can be written to collide with another), and the
//! language they were parsed as. An outline depends on nothing else, so an entry is never stale
//! whatever happens to the file's times: a file edited a moment ago (in the same clock tick, to
//! the same size) is another key, and a file parsed a moment ago is cached at once (keyed by its
//! identity and times, a file changed within the last 2 s could not be: git's "racily clean"
//! case). Copies of one file share an entry. Old entries age out (least recently used first)
//! once the cache holds [`CACHE_BYTES`](super::CACHE_BYTES) of outlines.

use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, OnceLock};

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::Refusal;
use super::lang::Language;
use super::parse::Parsed;

/// What identifies the bytes of one parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Length of the bytes.
    pub len: u64,
    /// SipHash-1-3 of the bytes, keyed at random once per process.
    pub hash: u64,
    /// The language they were parsed as.
    pub language: Language,
    /// Parsed for its references too (a parse that ran out of time doing so may still give an
    /// outline alone).
    pub references: bool,
}

impl Key {
    /// The key of `bytes` parsed as `language`.
    pub fn of(bytes: &[u8], language: Language) -> Key {
        static SEED: OnceLock<RandomState> = OnceLock::new();
        Key {
            len: bytes.len() as u64,
            hash: SEED.get_or_init(RandomState::new).hash_one(bytes),
            language,
            references: false,
        }
    }
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

    /// Keeps `outcome` for `key`.
    pub fn put(&self, key: Key, outcome: Outcome) {
        self.entries.insert(key, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_bytes_or_another_language_is_another_key() {
        let cache = OutlineCache::new(1 << 20);
        let key = Key::of(b"def one():\n    pass\n", Language::Python);
        cache.put(key, Err(Refusal::Timeout));
        assert_eq!(
            cache.get(&Key::of(b"def one():\n    pass\n", Language::Python)),
            Some(Err(Refusal::Timeout))
        );
        // Same length, one byte apart.
        assert!(
            cache
                .get(&Key::of(b"def two():\n    pass\n", Language::Python))
                .is_none()
        );
        assert!(
            cache
                .get(&Key::of(b"def one():\n    pass\n", Language::Ruby))
                .is_none()
        );
        assert!(
            cache
                .get(&Key::of(b"def one():\n    pass\n\n", Language::Python))
                .is_none()
        );
    }
}
