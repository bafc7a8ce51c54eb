//! The index's one view of the file system: which files a walk lets through (with their
//! metadata), what it skips (with the path and the reason), and how one file is opened.
//!
//! Everything else in `index` goes through this module. It walks with the cold engine's own
//! walker ([`crate::walker`]: directory descriptors, never following a link) through the
//! visitor hooks that report every listed directory and every counted skip, and it opens files
//! beneath the root descriptor refusing every symlink ([`crate::boundary::open_beneath`]:
//! `openat2` with `RESOLVE_BENEATH`), then `fstat`s them: what the index reads is what a
//! search would read.

use std::os::fd::BorrowedFd;
use std::time::Duration;

use rustix::fs::OFlags;

use crate::boundary::{self, FileIdentity};
use crate::ignore_rules::RULE_FILES;

use super::table::{DirMeta, Scan, now_ns, vouches};
use super::watch::Adder;
use crate::walker::{FileVisitor, StartDir, WalkMode, WalkSkip, WalkedFile, walk_files_with};
pub(crate) use crate::walker::{open_dir_relative as open_dir, open_relative as open};
use crate::workspace::{Deadline, SkipCounts, Workspace};

/// Collects one walker thread's part of a [`Scan`].
struct Collector<'a> {
    shallow: bool,
    scan: Scan,
    /// Watches each directory before it is listed.
    adder: Option<&'a Adder>,
    workspace: &'a Workspace,
    /// Gives way to calls between two directories (see `ScanRules::give_way`).
    give_way: bool,
}

impl Collector<'_> {
    fn name(&mut self, relative: &[u8]) -> Option<String> {
        match std::str::from_utf8(relative) {
            Ok(name) => Some(name.to_string()),
            Err(_) => {
                self.scan.odd_names += 1;
                None
            }
        }
    }
}

impl FileVisitor for Collector<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        if let Some(path) = self.name(file.relative_bytes) {
            // A file that vanished since it was listed keeps no metadata (and so no document):
            // the change that removed it is queued.
            let meta = file.identity().unwrap_or_default();
            self.scan.files.push((path, meta));
        }
        true
    }

    fn visit_dir(&mut self, relative: &[u8], dir: BorrowedFd<'_>) -> bool {
        if self.give_way {
            crate::background::give_way(&|| false);
        }
        if let Some(path) = self.name(relative) {
            self.scan.dirs.push((path, dir_meta(dir)));
        }
        true
    }

    fn skipped_entry(&mut self, relative: &[u8], reason: WalkSkip) {
        if let Some(path) = self.name(relative) {
            self.scan.skips.push((path, reason));
        }
    }

    fn enter_dir(&mut self, relative: &[u8]) -> bool {
        if self.shallow {
            if let Some(path) = self.name(relative) {
                self.scan.dirs.push((path, DirMeta::default()));
            }
            return false;
        }
        if let Some(adder) = self.adder
            && let Ok(dir) = std::str::from_utf8(relative)
        {
            adder.watch(&absolute(self.workspace, dir), dir);
        }
        true
    }
}

/// Walks `dir` (relative to the root, "" for the root) with the cold engine's rules: the whole
/// subtree, or only its direct entries when `shallow`. `adder` watches every directory below
/// `dir` the walk enters, before listing it. `give_way`: between two directories, wait while a
/// call runs (the first build's walk only).
pub(crate) fn scan(
    workspace: &Workspace,
    dir: &str,
    shallow: bool,
    adder: Option<&Adder>,
    give_way: bool,
) -> Scan {
    let fd = match boundary::open_beneath(
        workspace.root_dir().fd(),
        dir.as_bytes(),
        OFlags::DIRECTORY,
    ) {
        Ok(fd) => fd,
        Err(_) => {
            return Scan {
                missing: true,
                ..Scan::default()
            };
        }
    };
    let start = StartDir {
        fd,
        relative: dir.as_bytes().to_vec(),
    };
    let mode = if shallow {
        WalkMode::Sequential
    } else {
        WalkMode::Parallel
    };
    // The table must be complete: no time budget (closing the index does not wait for this
    // walk any longer than one walk of the tree).
    let deadline = Deadline::start(Duration::from_secs(365 * 24 * 3600));
    let outcome = walk_files_with(workspace, start, deadline, mode, || Collector {
        shallow,
        scan: Scan::default(),
        adder,
        workspace,
        give_way,
    });
    let mut scan = Scan::default();
    let mut reported = SkipCounts::default();
    for collector in outcome.visitors {
        let part = collector.scan;
        scan.files.extend(part.files);
        scan.dirs.extend(part.dirs);
        for (_, reason) in &part.skips {
            reason.count(&mut reported);
        }
        scan.skips.extend(part.skips);
        scan.odd_names += part.odd_names;
    }
    scan.unattributed = difference(&outcome.skipped, &reported);
    scan.files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    scan.dirs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    scan.skips.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    scan
}

/// What the table keeps of a listed directory: its identity (taken after the listing, so an
/// entry added in between shows as times too recent to be trusted, and the directory is listed
/// again), and which rule files it holds (so a re-check that lists it again can tell when its
/// subtree's rules changed).
fn dir_meta(dir: BorrowedFd<'_>) -> DirMeta {
    let id = boundary::stat_child(dir, b".").unwrap_or_default();
    let mut rules = 0u8;
    for (i, name) in RULE_FILES.iter().enumerate() {
        if boundary::stat_child(dir, name.as_bytes()).is_ok() {
            rules |= 1 << i;
        }
    }
    DirMeta {
        trusted: vouches(&id, now_ns()),
        id,
        rules,
    }
}

/// The identity of `relative` (a file or directory of the table) now, without following a
/// final link; for re-checking only (nothing is read or listed from what it names).
pub(crate) fn stat(workspace: &Workspace, relative: &str) -> Option<FileIdentity> {
    let path = if relative.is_empty() { "." } else { relative };
    boundary::stat_child(workspace.root_dir().fd(), path.as_bytes()).ok()
}

/// `all - reported`, field by field.
fn difference(all: &SkipCounts, reported: &SkipCounts) -> SkipCounts {
    SkipCounts {
        ignored: all.ignored.saturating_sub(reported.ignored),
        ignored_by_rules: all
            .ignored_by_rules
            .saturating_sub(reported.ignored_by_rules),
        binary: all.binary.saturating_sub(reported.binary),
        denied: all.denied.saturating_sub(reported.denied),
        unreadable: all.unreadable.saturating_sub(reported.unreadable),
        special: all.special.saturating_sub(reported.special),
        too_large: all.too_large.saturating_sub(reported.too_large),
        line_too_long: all.line_too_long.saturating_sub(reported.line_too_long),
        outside_root: all.outside_root.saturating_sub(reported.outside_root),
        symlink: all.symlink.saturating_sub(reported.symlink),
    }
}

/// `relative` as an absolute path, for the file watcher (inotify watches by path).
pub(crate) fn absolute(workspace: &Workspace, relative: &str) -> std::path::PathBuf {
    if relative.is_empty() {
        workspace.root().to_path_buf()
    } else {
        workspace.root().join(relative)
    }
}
