//! The live table: the cold walk's answer kept in memory and kept true.
//!
//! It holds what a walk of the root lets through (files with their metadata, directories) and
//! what it passes over (with the path and reason), so the answer for any directory it entered
//! can be read from it: the files below, and the skip counts below. Each file also says whether
//! the n-gram index describes its current contents (`doc`); files it does not describe are kept
//! in `unindexed` and searched by every query.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use crate::boundary::FileIdentity;
use crate::walker::WalkSkip;
use crate::workspace::SkipCounts;

/// What one walk (`source`) saw below (and including) its start directory.
#[derive(Default, Debug)]
pub(crate) struct Scan {
    /// Files the walk lets through, relative to the root.
    pub(crate) files: Vec<(String, FileIdentity)>,
    /// Directories it listed (the start included; for a shallow scan, the start's
    /// subdirectories the rules let through, without their metadata), relative to the root.
    pub(crate) dirs: Vec<(String, DirMeta)>,
    /// Entries it passed over and counted, with the reason.
    pub(crate) skips: Vec<(String, WalkSkip)>,
    /// Skips the walker counted without reporting a path (its start could not be read).
    pub(crate) unattributed: SkipCounts,
    /// Entries whose name is not UTF-8: the table keys paths as `str`, so while there are any
    /// the cold engine answers.
    pub(crate) odd_names: u64,
    /// The start directory could not be opened (gone, or replaced by a link).
    pub(crate) missing: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct FileEntry {
    /// What identifies this version of the file: if any of it changes, so may its contents.
    pub(crate) meta: FileIdentity,
    /// The index document describing this file's contents, while that is still true.
    pub(crate) doc: Option<u32>,
    /// Bumped on every change, so a background re-index can tell what changed while it read.
    pub(crate) generation: u64,
    /// The change time was over a second old when the metadata was taken: a later change of
    /// the file shows in its metadata (change times are coarse, so a file changed again in the
    /// same tick as its last change may keep them).
    pub(crate) trusted: bool,
    /// A file with several hard links whose changes through any name are seen: its inode is
    /// watched, or its identity is re-checked at every call (see [`indexable`]).
    pub(crate) guarded: bool,
    /// Its changes are seen only by re-checking its identity (no event reports them): its
    /// document needs an identity old enough to vouch for it (see [`indexable`]).
    pub(crate) rechecked: bool,
}

/// A directory of the table, as it was when it was last listed.
#[derive(Clone, Debug, Default)]
pub(crate) struct DirMeta {
    /// Its identity (an entry added or removed changes its times).
    pub(crate) id: FileIdentity,
    /// Which of [`crate::ignore_rules::RULE_FILES`] it held (bit `i` for the `i`-th).
    pub(crate) rules: u8,
    /// Its times were old enough when taken that a later listing change shows in them.
    pub(crate) trusted: bool,
}

/// Change times within this many nanoseconds of "now" are not trusted (see `FileEntry::trusted`).
const TRUST_MARGIN_NS: i64 = 1_000_000_000;

/// Whether the index may describe a file's contents. A file with several hard links may change
/// under another name, which a directory's watch reports for that name only (or not at all,
/// outside the tree): it is indexable only when guarded (its inode watched, or its identity
/// re-checked at every call). A file whose changes are seen only by re-checking (every file,
/// where the table is re-checked rather than watched: `vouched`) must also have an identity old
/// enough to vouch for it: a change in the same tick as the last one would show in no
/// identity, and no event reports it.
pub(crate) fn indexable(entry: &FileEntry, vouched: bool) -> bool {
    (entry.meta.nlink <= 1 || entry.guarded) && (entry.trusted || !(vouched || entry.rechecked))
}

/// Whether an identity known to be current at `now` (nanoseconds since the epoch) vouches
/// for the contents: its change time is old enough that any later change shows in it.
pub(crate) fn vouches(meta: &FileIdentity, now: i64) -> bool {
    meta.ctime_ns < now - TRUST_MARGIN_NS
}

/// Now, in nanoseconds since the Unix epoch (the clock the change times are read against).
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

#[derive(Default)]
pub(crate) struct Table {
    pub(crate) files: BTreeMap<String, FileEntry>,
    /// Paths of `files` whose `doc` is `None`.
    pub(crate) unindexed: BTreeSet<String>,
    pub(crate) skips: BTreeMap<String, WalkSkip>,
    pub(crate) dirs: BTreeMap<String, DirMeta>,
    /// Files with several links whose inode could not be watched: their identity is re-checked
    /// at every call.
    pub(crate) linked: BTreeSet<String>,
    /// The table is re-checked against the tree at every call, not watched: a document needs
    /// an identity that vouches for it (see [`indexable`]), and every file is guarded.
    pub(crate) vouched: bool,
    /// Each repository's `.git/info` and `.git/info/exclude` (outside the table: the walk skips
    /// `.git`) with its identity when listed (`None`: missing), for re-checking them.
    pub(crate) excludes: BTreeMap<String, Option<FileIdentity>>,
    pub(crate) unattributed: SkipCounts,
    pub(crate) odd_names: u64,
    pub(crate) bytes: u64,
    next_generation: u64,
}

/// The keys of `map` strictly below directory `dir` ("" for the root: every key).
pub(crate) fn below<'m, V>(
    map: &'m BTreeMap<String, V>,
    dir: &str,
) -> Box<dyn Iterator<Item = (&'m String, &'m V)> + 'm> {
    if dir.is_empty() {
        return Box::new(map.iter());
    }
    // Every key starting with `dir/`: from `dir/` up to `dir0` ('0' follows '/').
    let start = format!("{dir}/");
    let end = format!("{dir}0");
    Box::new(map.range(start..end))
}

/// The members of `set` strictly below directory `dir`.
pub(crate) fn set_below<'s>(
    set: &'s BTreeSet<String>,
    dir: &str,
) -> Box<dyn Iterator<Item = &'s String> + 's> {
    if dir.is_empty() {
        return Box::new(set.iter());
    }
    let start = format!("{dir}/");
    let end = format!("{dir}0");
    Box::new(set.range(start..end))
}

/// True when `path` is `dir` or lies below it.
pub(crate) fn is_within(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path == dir
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

/// The directory holding `path` ("" for a top-level entry).
pub(crate) fn parent_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

impl Table {
    fn bump(&mut self) -> u64 {
        self.next_generation += 1;
        self.next_generation
    }

    /// Adds or replaces a file. `kept` is its previous entry when the caller proved the file
    /// unchanged since (same identity, no event naming it): its document, generation and trust
    /// carry over; otherwise the file is new to the table.
    pub(crate) fn put_file(&mut self, path: String, meta: FileIdentity, kept: Option<&FileEntry>) {
        let mut entry = match kept {
            Some(old) => FileEntry {
                meta,
                doc: None,
                generation: old.generation,
                trusted: old.trusted,
                guarded: old.guarded || self.vouched,
                rechecked: old.rechecked || self.vouched,
            },
            None => FileEntry {
                trusted: vouches(&meta, now_ns()),
                meta,
                doc: None,
                generation: self.bump(),
                guarded: self.vouched,
                rechecked: self.vouched,
            },
        };
        entry.doc = kept
            .and_then(|k| k.doc)
            .filter(|_| indexable(&entry, self.vouched));
        if entry.doc.is_none() {
            self.unindexed.insert(path.clone());
        } else {
            self.unindexed.remove(&path);
        }
        self.bytes += entry.meta.size;
        if let Some(old) = self.files.insert(path, entry) {
            self.bytes -= old.meta.size;
        }
    }

    /// Marks a file with several links as guarded (its inode watched, or re-checked: `linked`).
    pub(crate) fn guard(&mut self, path: &str, rechecked: bool) {
        if let Some(entry) = self.files.get_mut(path) {
            entry.guarded = true;
            entry.rechecked |= rechecked;
            if rechecked {
                self.linked.insert(path.to_string());
                if !entry.trusted && entry.doc.take().is_some() {
                    self.unindexed.insert(path.to_string());
                }
            }
        }
    }

    /// A file's identity, unchanged, is old enough now to vouch for its contents. A file
    /// without a document moves its generation on: a read that started before now may have
    /// seen contents changed in the tick the identity could not tell apart, so it gives the
    /// file no document. (One with a document keeps it, and its generation: the document was
    /// given under a watch, or when its identity already vouched for it.)
    pub(crate) fn vouch(&mut self, path: &str) {
        let generation = self.bump();
        if let Some(entry) = self.files.get_mut(path) {
            entry.trusted = true;
            if entry.doc.is_none() {
                entry.generation = generation;
            }
        }
    }

    /// From now on the table is re-checked, not watched: documents need a vouching identity.
    pub(crate) fn require_vouched(&mut self) {
        if self.vouched {
            return;
        }
        self.vouched = true;
        for entry in self.files.values_mut() {
            entry.guarded = true;
            entry.rechecked = true;
        }
        self.set_docs(|_, entry| entry.doc);
    }

    pub(crate) fn remove_file(&mut self, path: &str) -> Option<FileEntry> {
        let old = self.files.remove(path)?;
        self.unindexed.remove(path);
        self.linked.remove(path);
        self.bytes -= old.meta.size;
        Some(old)
    }

    /// Sets a file's document when the file did not change since `generation`.
    pub(crate) fn set_doc(&mut self, path: &str, generation: u64, doc: Option<u32>) {
        if let Some(entry) = self.files.get_mut(path)
            && entry.generation == generation
        {
            let doc = doc.filter(|_| indexable(entry, self.vouched));
            entry.doc = doc;
            if doc.is_some() {
                self.unindexed.remove(path);
            } else {
                self.unindexed.insert(path.to_string());
            }
        }
    }

    /// Gives every file the document `doc_of` says (called in path order), bumping no
    /// generation: the caller proved each document describes the file's current contents.
    pub(crate) fn set_docs(&mut self, mut doc_of: impl FnMut(&str, &FileEntry) -> Option<u32>) {
        self.unindexed.clear();
        for (path, entry) in self.files.iter_mut() {
            entry.doc = doc_of(path, entry).filter(|_| indexable(entry, self.vouched));
            if entry.doc.is_none() {
                self.unindexed.insert(path.clone());
            }
        }
    }

    /// Removes everything strictly below `dir` and returns the files removed.
    pub(crate) fn remove_below(&mut self, dir: &str) -> BTreeMap<String, FileEntry> {
        let files: Vec<String> = below(&self.files, dir).map(|(k, _)| k.clone()).collect();
        let mut removed = BTreeMap::new();
        for path in files {
            if let Some(entry) = self.remove_file(&path) {
                removed.insert(path, entry);
            }
        }
        let skips: Vec<String> = below(&self.skips, dir).map(|(k, _)| k.clone()).collect();
        for path in skips {
            self.skips.remove(&path);
        }
        let excludes: Vec<String> = below(&self.excludes, dir).map(|(d, _)| d.clone()).collect();
        for path in excludes {
            self.excludes.remove(&path);
        }
        let dirs: Vec<String> = below(&self.dirs, dir).map(|(d, _)| d.clone()).collect();
        for path in dirs {
            self.dirs.remove(&path);
        }
        if dir.is_empty() {
            self.unattributed = SkipCounts::default();
            self.odd_names = 0;
        }
        removed
    }

    /// Removes the direct entries of `dir` (files and skips; directories are left to the
    /// caller) and returns the files removed.
    pub(crate) fn remove_direct(&mut self, dir: &str) -> BTreeMap<String, FileEntry> {
        let direct =
            |p: &String| !p[if dir.is_empty() { 0 } else { dir.len() + 1 }..].contains('/');
        let files: Vec<String> = below(&self.files, dir)
            .map(|(k, _)| k)
            .filter(|k| direct(k))
            .cloned()
            .collect();
        let mut removed = BTreeMap::new();
        for path in files {
            if let Some(entry) = self.remove_file(&path) {
                removed.insert(path, entry);
            }
        }
        let skips: Vec<String> = below(&self.skips, dir)
            .map(|(k, _)| k)
            .filter(|k| direct(k))
            .cloned()
            .collect();
        for path in skips {
            self.skips.remove(&path);
        }
        removed
    }

    /// The direct subdirectories of `dir` in the table.
    pub(crate) fn child_dirs(&self, dir: &str) -> Vec<String> {
        let skip = if dir.is_empty() { 0 } else { dir.len() + 1 };
        below(&self.dirs, dir)
            .map(|(d, _)| d)
            .filter(|d| d.len() > skip && !d[skip..].contains('/'))
            .cloned()
            .collect()
    }

    /// Adds what a scan found. A file whose metadata equals its entry in `previous` keeps that
    /// entry's document, unless `stale` says the file changed (an event named it) or, when
    /// `require_trusted` (no event stream vouches for the time between), the old metadata was
    /// too recent to prove anything. Returns the files with several links, to be guarded.
    pub(crate) fn add_scan(
        &mut self,
        scan: Scan,
        previous: &BTreeMap<String, FileEntry>,
        stale: &BTreeSet<String>,
        require_trusted: bool,
    ) -> Vec<String> {
        let mut linked = Vec::new();
        for (path, meta) in scan.files {
            if meta.nlink > 1 && !self.vouched {
                linked.push(path.clone());
            }
            let kept = previous.get(&path).filter(|old| {
                old.meta == meta && (old.trusted || !require_trusted) && !stale.contains(&path)
            });
            self.put_file(path, meta, kept);
        }
        self.dirs.extend(scan.dirs);
        self.skips.extend(scan.skips);
        self.unattributed.add(&scan.unattributed);
        self.odd_names += scan.odd_names;
        linked
    }

    /// A hash of what the table lists in `dir` (files with their identities, skips,
    /// subdirectories): directly in it, or everywhere below it when `whole`; to tell whether
    /// reading it again changed anything.
    pub(crate) fn listing(&self, dir: &str, whole: bool) -> u64 {
        use std::hash::{Hash, Hasher};
        let skip = if dir.is_empty() { 0 } else { dir.len() + 1 };
        let direct = |p: &&String| whole || (p.len() > skip && !p[skip..].contains('/'));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (path, entry) in below(&self.files, dir).filter(|(p, _)| direct(p)) {
            (path, &entry.meta).hash(&mut hasher);
        }
        for (path, reason) in below(&self.skips, dir).filter(|(p, _)| direct(p)) {
            (path, format!("{reason:?}")).hash(&mut hasher);
        }
        for (path, _) in below(&self.dirs, dir).filter(|(p, _)| direct(p)) {
            path.hash(&mut hasher);
        }
        hasher.finish()
    }

    /// Walk-level skip counts strictly below `dir`.
    pub(crate) fn skips_below(&self, dir: &str) -> SkipCounts {
        let mut counts = SkipCounts::default();
        for (_, reason) in below(&self.skips, dir) {
            reason.count(&mut counts);
        }
        if dir.is_empty() {
            counts.add(&self.unattributed);
        }
        counts
    }

    /// True when a walk of `dir` would list exactly the table's entries below it.
    pub(crate) fn answers_for(&self, dir: &str) -> bool {
        self.odd_names == 0
            && self.dirs.contains_key(dir)
            && (dir.is_empty() || self.unattributed == SkipCounts::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linked(ctime_ns: i64) -> FileIdentity {
        FileIdentity {
            nlink: 2,
            ctime_ns,
            size: 3,
            ..FileIdentity::default()
        }
    }

    #[test]
    fn a_rechecked_file_takes_a_document_only_once_its_identity_vouches() {
        let mut table = Table::default();
        let recent = now_ns();
        table.put_file("a".into(), linked(recent), None);
        table.put_file("b".into(), linked(recent), None);
        table.guard("a", true); // past the watch budget: re-checked
        table.guard("b", false); // its inode watched
        let (ga, gb) = (table.files["a"].generation, table.files["b"].generation);
        table.set_doc("a", ga, Some(0));
        table.set_doc("b", gb, Some(1));
        assert_eq!(
            table.files["a"].doc, None,
            "a same-tick change would go unseen"
        );
        assert_eq!(
            table.files["b"].doc,
            Some(1),
            "the inode's watch reports every change"
        );
        // Vouched later: a read that started before gives it nothing; a later one may.
        table.vouch("a");
        assert_ne!(table.files["a"].generation, ga);
        table.set_doc("a", ga, Some(0));
        assert_eq!(table.files["a"].doc, None);
        let ga = table.files["a"].generation;
        table.set_doc("a", ga, Some(0));
        assert_eq!(table.files["a"].doc, Some(0));
        // Vouching a file that has its document keeps the document and the generation (the
        // written file names the document for that generation).
        table.vouch("a");
        assert_eq!(
            (table.files["a"].doc, table.files["a"].generation),
            (Some(0), ga)
        );
        assert!(table.unindexed.contains("a") == table.files["a"].doc.is_none());
    }

    #[test]
    fn modification_times_round_trip() {
        let meta = crate::boundary::FileIdentity {
            mtime_ns: 1_500_000_000_123,
            ..Default::default()
        };
        let back = meta
            .modified()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        assert_eq!(back, 1_500_000_000_123);
        assert!(now_ns() > 0);
    }
}
