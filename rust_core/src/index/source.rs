//! The index's one view of the file system: which files a walk lets through (with their
//! metadata), what it skips (with the path and the reason), and how one file is opened.
//!
//! Everything else in `index` goes through this module, so the file access underneath (today
//! the `ignore` walker with ripsight's rules from `walk.rs`) can change without touching the
//! table, the watcher or the search.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, WalkState};

use crate::walk::{entry_skip_reason, relative_to, rules_for, thread_count};
use crate::workspace::{SkipCounts, SkipReason, Workspace};

/// What identifies one version of a file: if any of this changed, so may have its contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct FileMeta {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) ctime_ns: i128,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
}

impl FileMeta {
    pub(crate) fn of(meta: &std::fs::Metadata) -> FileMeta {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileMeta {
                size: meta.len(),
                mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                dev: meta.dev(),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let ns = |t: std::io::Result<std::time::SystemTime>| {
                t.ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as i128)
            };
            FileMeta {
                size: meta.len(),
                mtime_ns: ns(meta.modified()),
                ctime_ns: ns(meta.created()),
                dev: 0,
                ino: 0,
            }
        }
    }

    /// The modification time, for `glob(sort="mtime")`.
    pub(crate) fn mtime(&self) -> std::time::SystemTime {
        let ns = self.mtime_ns;
        if ns >= 0 {
            let ns = ns as u128;
            std::time::UNIX_EPOCH
                + std::time::Duration::new((ns / 1_000_000_000) as u64, (ns % 1_000_000_000) as u32)
        } else {
            std::time::UNIX_EPOCH
        }
    }
}

/// What one walk saw below (and including) its start directory.
#[derive(Default, Debug)]
pub(crate) struct Scan {
    /// Files the walk lets through, relative to the root.
    pub(crate) files: Vec<(String, FileMeta)>,
    /// Directories it entered (the start included), relative to the root.
    pub(crate) dirs: Vec<String>,
    /// Entries it passed over, with the reason.
    pub(crate) skips: Vec<(String, SkipReason)>,
    /// Skips whose path the walker does not report.
    pub(crate) unattributed: SkipCounts,
    /// Entries reached through a symbolic link. The table cannot follow links (a change below
    /// a link's target is reported for the target's path only), so while there are any the
    /// index answers nothing and the cold engine answers everything.
    pub(crate) through_links: u64,
}

/// Walks `dir` (relative to the root, "" for the root) with the cold engine's rules: the whole
/// subtree, or only its direct entries when `shallow`.
pub(crate) fn scan(workspace: &Workspace, dir: &str, shallow: bool) -> Scan {
    let start = absolute(workspace, dir);
    let mut builder = rules_for(workspace, &start);
    if shallow {
        builder.max_depth(Some(1));
    }
    let collected = Mutex::new(Scan::default());
    // The filter sees every entry before the walker descends: the skips are recorded there.
    let skips: Arc<Mutex<Vec<(String, SkipReason)>>> = Arc::default();
    {
        let workspace = workspace.clone();
        let skips = Arc::clone(&skips);
        builder.filter_entry(move |entry| match entry_skip_reason(&workspace, entry) {
            None => true,
            Some(reason) => {
                let relative = relative_to(workspace.root(), entry.path()).into_owned();
                lock(&skips).push((relative, reason));
                false
            }
        });
    }
    builder.threads(if shallow { 1 } else { thread_count(workspace) });
    let root = workspace.root();
    builder.build_parallel().run(|| {
        let mut flush = Flush {
            into: &collected,
            part: Scan::default(),
        };
        Box::new(move |entry| {
            record(root, &mut flush.part, entry);
            WalkState::Continue
        })
    });
    lock(&collected)
        .skips
        .extend(std::mem::take(&mut *lock(&skips)));
    let mut scan = collected.into_inner().unwrap_or_else(|e| e.into_inner());
    scan.files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    scan.dirs.sort_unstable();
    scan.skips.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    scan
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn merge(into: &Mutex<Scan>, part: Scan) {
    let mut scan = lock(into);
    scan.files.extend(part.files);
    scan.dirs.extend(part.dirs);
    scan.skips.extend(part.skips);
    scan.unattributed.add(&part.unattributed);
    scan.through_links += part.through_links;
}

fn record(root: &Path, scan: &mut Scan, entry: Result<DirEntry, ignore::Error>) {
    let entry = match entry {
        Ok(entry) => entry,
        Err(error) => {
            // As the cold walk: soft errors (a malformed ignore line) hide nothing.
            if !error.is_partial() {
                scan.unattributed.unreadable += 1;
            }
            return;
        }
    };
    if entry.path_is_symlink() {
        scan.through_links += 1;
    }
    let relative = relative_to(root, entry.path()).into_owned();
    match entry.file_type() {
        Some(t) if t.is_dir() => scan.dirs.push(relative),
        Some(_) => match entry.metadata() {
            Ok(meta) => scan.files.push((relative, FileMeta::of(&meta))),
            Err(_) => scan.unattributed.unreadable += 1,
        },
        None => {}
    }
}

/// Flushes a thread's part of a scan when the walker drops its closure.
struct Flush<'a> {
    into: &'a Mutex<Scan>,
    part: Scan,
}

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        merge(self.into, std::mem::take(&mut self.part));
    }
}

/// `dir` (relative to the root) as an absolute path.
pub(crate) fn absolute(workspace: &Workspace, relative: &str) -> PathBuf {
    if relative.is_empty() {
        workspace.root().to_path_buf()
    } else {
        workspace.root().join(relative)
    }
}

/// Opens one file of the table for reading (the index build reads contents through this).
pub(crate) fn open(workspace: &Workspace, relative: &str) -> std::io::Result<File> {
    File::open(absolute(workspace, relative))
}
