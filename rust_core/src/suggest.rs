//! "Did you mean": existing paths close to a missing one, found through the root descriptor.
//!
//! Directories are listed from descriptors opened beneath the root (never by path), the
//! same-name search runs on the walker (ignore-aware, links not followed), and every candidate
//! passes the boundary and deny checks before it is offered. Nothing here can panic on odd names:
//! names are bytes, compared after a lossy conversion.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Arc;

use rustix::fs::OFlags;

use crate::boundary::{self, Kind, ResolveError};
use crate::walker::{FileVisitor, StartDir, WalkMode, WalkedFile, walk_files_with};
use crate::workspace::{SkipCounts, Workspace};

/// Entries of one directory looked at when suggesting close names.
const SUGGEST_DIR_ENTRIES: usize = 10_000;
/// Files a suggestion walk visits at most (split between the nearby directory and the root).
const SUGGEST_WALK_ENTRIES: usize = 20_000;
/// Candidates kept per path component while correcting a path.
const SUGGEST_BEAM: usize = 4;
/// Names less similar than this (0..1) are not offered.
const SUGGEST_MIN_SIMILARITY: f64 = 0.6;

impl Workspace {
    /// Existing paths close to `requested` (a path that does not exist), best first, at most `max`,
    /// relative to the root. Used for "did you mean" when a path is missing.
    ///
    /// Three sources, in this order: each missing component corrected against its directory's
    /// entries (typos, letter case, another extension: `scr/mian.rs` finds `src/main.rs`); then
    /// files with the same name (ignoring case) elsewhere, searched first below the deepest
    /// existing directory of the request and then from the root, ignore-aware and skipping the
    /// excluded directories. Work is bounded: at most 10,000 entries per directory listing and
    /// 20,000 walked files. Denied paths and paths resolving outside the root are never offered.
    pub fn suggest(&self, requested: &str, max: usize) -> Vec<String> {
        let trimmed = requested.trim();
        if trimmed.is_empty() || max == 0 || trimmed.contains('\0') {
            return Vec::new();
        }
        let (existing, missing) = match self.root_dir().resolve(OsStr::new(trimmed)) {
            Err(ResolveError::Missing {
                existing, missing, ..
            }) => (existing, missing),
            _ => return Vec::new(),
        };
        let missing: Vec<String> = missing
            .iter()
            .filter(|p| p.as_slice() != b"..")
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        let Some(last) = missing.last() else {
            return Vec::new();
        };
        let Ok(dir) = boundary::open_beneath(self.root_dir().fd(), &existing, OFlags::DIRECTORY)
        else {
            return Vec::new();
        };
        let base = String::from_utf8_lossy(&existing).into_owned();

        let mut found: Vec<String> = Vec::new();
        // 1. Correct each missing component against what its directory holds.
        let mut frontier = vec![(1.0f64, base.clone(), Arc::new(dir))];
        for (index, want) in missing.iter().enumerate() {
            let is_last = index + 1 == missing.len();
            let mut next = Vec::new();
            for (score, rel, fd) in &frontier {
                for (name, is_dir) in list_names(fd.as_fd(), SUGGEST_DIR_ENTRIES) {
                    if !is_last && !is_dir {
                        continue;
                    }
                    let similarity = name_similarity(want, &name);
                    if similarity < SUGGEST_MIN_SIMILARITY {
                        continue;
                    }
                    let child = join_relative(rel, &name);
                    if self.denied_by(&child).is_some() {
                        continue;
                    }
                    next.push((score * similarity, child, name, Arc::clone(fd)));
                }
            }
            next.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            next.truncate(SUGGEST_BEAM);
            frontier = next
                .into_iter()
                .filter_map(|(score, child, name, parent)| {
                    let fd = if is_last {
                        parent
                    } else {
                        Arc::new(boundary::open_child_dir(parent.as_fd(), name.as_bytes()).ok()?)
                    };
                    Some((score, child, fd))
                })
                .collect();
        }
        found.extend(frontier.into_iter().map(|(_, rel, _)| rel));

        // 2. The same file name elsewhere: nearby first, then anywhere.
        let name = last.to_lowercase();
        let mut same_name = Vec::new();
        if !existing.is_empty() {
            self.find_named(&existing, &name, SUGGEST_WALK_ENTRIES / 2, &mut same_name);
        }
        if same_name.is_empty() {
            self.find_named(b"", &name, SUGGEST_WALK_ENTRIES, &mut same_name);
        }
        let wanted: Vec<String> = base
            .split('/')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .chain(missing[..missing.len() - 1].iter().cloned())
            .collect();
        same_name.sort_by_key(|path| {
            let shared = path
                .split('/')
                .zip(&wanted)
                .take_while(|(a, b)| a == b)
                .count();
            (
                std::cmp::Reverse(shared),
                path.matches('/').count(),
                path.clone(),
            )
        });
        found.extend(same_name);

        let mut out: Vec<String> = Vec::new();
        for candidate in found {
            if out.len() == max {
                break;
            }
            if out.contains(&candidate) || candidate.is_empty() {
                continue;
            }
            // The full check: inside the root once symlinks are resolved, and not denied.
            if self.check_path(OsStr::new(&candidate)).is_ok() {
                out.push(candidate);
            }
        }
        out
    }

    /// Paths (relative to the root) below `start` whose file name equals `name` ignoring case,
    /// from a walk that stops after `limit` files.
    fn find_named(&self, start: &[u8], name: &str, limit: usize, found: &mut Vec<String>) {
        let Ok(fd) = boundary::open_beneath(self.root_dir().fd(), start, OFlags::DIRECTORY) else {
            return;
        };
        let start = StartDir {
            fd,
            relative: start.to_vec(),
        };
        let outcome = walk_files_with(self, start, self.deadline(), WalkMode::Sequential, || {
            Named {
                name,
                budget: limit,
                found: Vec::new(),
            }
        });
        for visitor in outcome.visitors {
            for path in visitor.found {
                if !found.contains(&path) {
                    found.push(path);
                }
            }
        }
    }
}

/// Collects the files named like the wanted name, up to a budget of visited files.
struct Named<'a> {
    name: &'a str,
    budget: usize,
    found: Vec<String>,
}

impl FileVisitor for Named<'_> {
    fn visit_file(&mut self, file: &WalkedFile<'_>, _skipped: &mut SkipCounts) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        if file.name.to_lowercase() == self.name {
            self.found.push(file.relative.to_string());
        }
        true
    }
}

/// `(name, is_dir)` for up to `limit` entries of the directory `fd`, sorted by name; links are
/// not followed (a link to a directory is not a directory here). Names that are not UTF-8 are
/// left out: they cannot be typed back.
fn list_names(fd: BorrowedFd<'_>, limit: usize) -> Vec<(String, bool)> {
    let Ok(dir) = rustix::fs::Dir::read_from(fd) else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = dir
        .take(limit)
        .flatten()
        .filter_map(|entry| {
            let bytes = entry.file_name().to_bytes();
            if bytes == b"." || bytes == b".." {
                return None;
            }
            let name = std::str::from_utf8(bytes).ok()?.to_string();
            let is_dir = match boundary::kind_of(entry.file_type()) {
                Kind::Dir => true,
                Kind::Unknown => {
                    boundary::stat_child(fd, bytes).is_ok_and(|i| i.kind() == Kind::Dir)
                }
                _ => false,
            };
            Some((name, is_dir))
        })
        .collect();
    out.sort();
    out
}

fn join_relative(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}/{name}")
    }
}

/// How alike two file names are, 0..=1: letter case and a differing or missing extension count
/// little; otherwise the normalised Damerau-Levenshtein similarity.
fn name_similarity(want: &str, have: &str) -> f64 {
    if want == have {
        return 1.0;
    }
    let want = want.to_lowercase();
    let have = have.to_lowercase();
    if want == have {
        return 0.98;
    }
    let stem = |s: &str| -> String {
        match s.rfind('.') {
            Some(i) if i > 0 => s[..i].to_string(),
            _ => s.to_string(),
        }
    };
    if stem(&want) == stem(&have) {
        return 0.9;
    }
    strsim::normalized_damerau_levenshtein(&want, &have)
}
