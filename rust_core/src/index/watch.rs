//! Change notification for the live table: one inotify watch per directory of the table, read
//! without blocking at the start of every call (the `inotify` crate; the descriptor is
//! non-blocking, so a drain never waits).
//!
//! What a drain reports is a list of [`Change`]s; a queue overflow (or more events than the
//! injectable test limit) is reported as [`Drained::Overflow`], which the caller answers by
//! re-checking the whole tree. A watch that cannot be added (the per-user watch limit, or the
//! injectable test limit) makes [`Watcher::watch`] fail; the caller then stops trusting the
//! table. Other platforms have no watcher: [`Watcher::new`] fails and the cold engine answers.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;

/// One thing that happened in a watched directory.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    /// The watched directory, relative to the root.
    pub(crate) dir: String,
    /// The entry it concerns, or `None` for the directory itself (deleted or moved).
    pub(crate) name: Option<OsString>,
    /// The entry is a directory.
    pub(crate) is_dir: bool,
}

/// The result of one drain.
pub(crate) enum Drained {
    Changes(Vec<Change>),
    /// Events were lost: nothing can be concluded from what was read.
    Overflow,
}

/// Test limits, read from the environment once per index:
/// `RIPSIGHT_INDEX_MAX_WATCHES` (watches beyond it fail as if the system limit was hit),
/// `RIPSIGHT_INDEX_MAX_EVENTS` (a drain reading more events than this reports an overflow, as
/// a full kernel queue does) and `RIPSIGHT_INDEX_STALL_WRITE_MS` (a writer of the index file
/// sleeps this long halfway through, so a test can kill it there).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    pub(crate) max_watches: Option<usize>,
    pub(crate) max_events: Option<usize>,
    pub(crate) stall_write_ms: Option<u64>,
}

impl Limits {
    pub(crate) fn from_env() -> Limits {
        let read = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        Limits {
            max_watches: read("RIPSIGHT_INDEX_MAX_WATCHES"),
            max_events: read("RIPSIGHT_INDEX_MAX_EVENTS"),
            stall_write_ms: read("RIPSIGHT_INDEX_STALL_WRITE_MS").map(|v: usize| v as u64),
        }
    }
}

#[cfg(target_os = "linux")]
pub(crate) use linux::Watcher;

#[cfg(target_os = "linux")]
mod linux {
    use super::*;
    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

    pub(crate) struct Watcher {
        inotify: Inotify,
        by_wd: HashMap<WatchDescriptor, String>,
        by_dir: HashMap<String, WatchDescriptor>,
        limits: Limits,
        buffer: Vec<u8>,
    }

    impl Watcher {
        pub(crate) fn new(limits: Limits) -> std::io::Result<Watcher> {
            Ok(Watcher {
                inotify: Inotify::init()?,
                by_wd: HashMap::new(),
                by_dir: HashMap::new(),
                limits,
                buffer: vec![0; 64 * 1024],
            })
        }

        pub(crate) fn watches(&self) -> usize {
            self.by_dir.len()
        }

        pub(crate) fn is_watched(&self, dir: &str) -> bool {
            self.by_dir.contains_key(dir)
        }

        /// Watches directory `dir` (relative to the root, at `absolute`).
        pub(crate) fn watch(&mut self, absolute: &Path, dir: &str) -> std::io::Result<()> {
            if self.by_dir.contains_key(dir) {
                return Ok(());
            }
            if self
                .limits
                .max_watches
                .is_some_and(|max| self.by_dir.len() >= max)
            {
                return Err(std::io::Error::other("watch limit reached"));
            }
            let mask = WatchMask::CREATE
                | WatchMask::DELETE
                | WatchMask::MODIFY
                | WatchMask::ATTRIB
                | WatchMask::CLOSE_WRITE
                | WatchMask::MOVED_FROM
                | WatchMask::MOVED_TO
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF
                | WatchMask::ONLYDIR
                | WatchMask::DONT_FOLLOW
                | WatchMask::EXCL_UNLINK;
            let wd = self.inotify.watches().add(absolute, mask)?;
            // The same directory under another name (it was moved): the new name wins.
            if let Some(old) = self.by_wd.insert(wd.clone(), dir.to_string()) {
                self.by_dir.remove(&old);
            }
            self.by_dir.insert(dir.to_string(), wd);
            Ok(())
        }

        /// Stops watching `dir` and every directory below it.
        pub(crate) fn unwatch_within(&mut self, dir: &str) {
            let gone: Vec<String> = self
                .by_dir
                .keys()
                .filter(|d| crate::index::table::is_within(d, dir))
                .cloned()
                .collect();
            for d in gone {
                if let Some(wd) = self.by_dir.remove(&d) {
                    self.by_wd.remove(&wd);
                    // Fails harmlessly when the kernel already dropped the watch.
                    let _ = self.inotify.watches().remove(wd);
                }
            }
        }

        /// Reads every queued event without waiting.
        pub(crate) fn drain(&mut self) -> Drained {
            let mut changes = Vec::new();
            let mut read = 0usize;
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return Drained::Overflow,
                };
                let mut any = false;
                for event in events {
                    any = true;
                    read += 1;
                    if event.mask.contains(EventMask::Q_OVERFLOW) {
                        return self.overflow();
                    }
                    if event.mask.contains(EventMask::IGNORED) {
                        // The kernel dropped the watch (its directory is gone).
                        if let Some(dir) = self.by_wd.remove(&event.wd)
                            && self.by_dir.get(&dir) == Some(&event.wd)
                        {
                            self.by_dir.remove(&dir);
                        }
                        continue;
                    }
                    let Some(dir) = self.by_wd.get(&event.wd) else {
                        continue;
                    };
                    changes.push(Change {
                        dir: dir.clone(),
                        name: event.name.map(|n| n.to_os_string()),
                        is_dir: event.mask.contains(EventMask::ISDIR),
                    });
                }
                if !any {
                    break;
                }
                if self.limits.max_events.is_some_and(|max| read > max) {
                    return self.overflow();
                }
            }
            Drained::Changes(changes)
        }

        /// Empties the queue after an overflow: those events are covered by the re-check.
        fn overflow(&mut self) -> Drained {
            while let Ok(events) = self.inotify.read_events(&mut self.buffer) {
                if events.count() == 0 {
                    break;
                }
            }
            Drained::Overflow
        }
    }
}

/// Without inotify there is no watcher: the index is not used (the cold engine answers).
#[cfg(not(target_os = "linux"))]
pub(crate) struct Watcher;

#[cfg(not(target_os = "linux"))]
impl Watcher {
    pub(crate) fn new(_limits: Limits) -> std::io::Result<Watcher> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "no file change notification on this platform",
        ))
    }
    pub(crate) fn watches(&self) -> usize {
        0
    }
    pub(crate) fn is_watched(&self, _dir: &str) -> bool {
        false
    }
    pub(crate) fn watch(&mut self, _absolute: &Path, _dir: &str) -> std::io::Result<()> {
        Err(std::io::Error::other("unsupported"))
    }
    pub(crate) fn unwatch_within(&mut self, _dir: &str) {}
    pub(crate) fn drain(&mut self) -> Drained {
        Drained::Overflow
    }
}
