//! Change notification for the live table: one inotify watch per directory of the table, and
//! one per file with several hard links (its inode: a write through any of its names is
//! reported), read without blocking at the start of every call (the `inotify` crate; the
//! descriptor is non-blocking, so a drain never waits).
//!
//! What a drain reports is a list of [`Change`]s; a queue overflow (or more events than the
//! injectable test limit) is reported as [`Drained::Overflow`], which the caller answers by
//! re-walking the whole tree. Where there is no notification (other platforms, or
//! `RIPSIGHT_PORTABLE=1`), or once a directory's watch cannot be added (the per-user watch
//! limit, or the injectable test limit), the watcher is *re-checking*: it reports nothing, and
//! the table is re-checked against the tree at every call instead (`recheck`). A file's watch
//! that cannot be added (past its budget) leaves that file to be re-checked at every call.

use std::collections::HashMap;

use crate::index::table::{is_within, parent_of};
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
/// sleeps this long halfway through, and one of the symbol file once it is written, before it
/// is put in place, so a test can kill it there).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    pub(crate) max_watches: Option<usize>,
    pub(crate) max_events: Option<usize>,
    pub(crate) stall_write_ms: Option<u64>,
    /// Watches of files (hard-linked ones) at most: `RIPSIGHT_INDEX_MAX_FILE_WATCHES`, else a
    /// quarter of the system's per-user limit (the rest stays for directories and for other
    /// programs).
    pub(crate) max_file_watches: Option<usize>,
}

impl Limits {
    pub(crate) fn from_env() -> Limits {
        let read = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        Limits {
            max_watches: read("RIPSIGHT_INDEX_MAX_WATCHES"),
            max_events: read("RIPSIGHT_INDEX_MAX_EVENTS"),
            stall_write_ms: read("RIPSIGHT_INDEX_STALL_WRITE_MS").map(|v: usize| v as u64),
            max_file_watches: read("RIPSIGHT_INDEX_MAX_FILE_WATCHES").or_else(|| {
                let system = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches");
                system.ok()?.trim().parse::<usize>().ok().map(|n| n / 4)
            }),
        }
    }
}

/// The table's watcher: notification where there is one, else re-checking.
pub(crate) struct Watcher {
    notify: Option<Notify>,
    /// Why the table is re-checked rather than watched, when it is.
    reason: Option<String>,
}

impl Watcher {
    /// A watcher, notifying unless the platform (or `RIPSIGHT_PORTABLE=1`) has no notification.
    pub(crate) fn new(limits: Limits) -> Watcher {
        if crate::boundary::portable_mode() {
            return Watcher::rechecking("RIPSIGHT_PORTABLE=1: no file watcher".into());
        }
        match Notify::new(limits) {
            Ok(notify) => Watcher {
                notify: Some(notify),
                reason: None,
            },
            Err(e) => Watcher::rechecking(format!("no file watcher: {e}")),
        }
    }

    fn rechecking(reason: String) -> Watcher {
        Watcher {
            notify: None,
            reason: Some(reason),
        }
    }

    /// Why the table is re-checked at every call, if it is.
    pub(crate) fn recheck_reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Stops notifying (a watch could not be added): the table is re-checked from now on.
    pub(crate) fn give_up(&mut self, reason: String) {
        self.notify = None;
        self.reason.get_or_insert(reason);
    }

    /// Directories watched.
    pub(crate) fn watches(&self) -> usize {
        self.notify.as_ref().map_or(0, Notify::watches)
    }

    /// Files (with several links) watched.
    pub(crate) fn file_watches(&self) -> usize {
        self.notify.as_ref().map_or(0, Notify::file_watches)
    }

    pub(crate) fn is_watched(&self, dir: &str) -> bool {
        self.notify.as_ref().is_none_or(|n| n.is_watched(dir))
    }

    /// Watches directory `dir` (relative to the root, at `absolute`); nothing to do when
    /// re-checking.
    pub(crate) fn watch(&mut self, absolute: &Path, dir: &str) -> std::io::Result<()> {
        match &mut self.notify {
            Some(notify) => notify.watch(absolute, dir),
            None => Ok(()),
        }
    }

    /// A handle that watches directories from the walk's threads, each before it is listed (see
    /// [`Adder`]); `None` when re-checking.
    pub(crate) fn adder(&self) -> Option<Adder> {
        self.notify.as_ref().map(Notify::adder)
    }

    /// Takes the watches `adder` added; a watch it could not add turns to re-checking.
    pub(crate) fn register(&mut self, adder: Adder) {
        let failed = adder.failed.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(notify) = &mut self.notify {
            notify.register(adder.added.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
        if let Some(reason) = failed {
            self.give_up(reason);
        }
    }

    /// Watches the inode of the file `path` (at `absolute`); false when it is not watched (no
    /// notification, or past the budget of file watches).
    pub(crate) fn watch_file(&mut self, absolute: &Path, path: &str) -> bool {
        self.notify
            .as_mut()
            .is_some_and(|n| n.watch_file(absolute, path).is_ok())
    }

    /// Stops watching `dir` and every directory and file below it.
    pub(crate) fn unwatch_within(&mut self, dir: &str) {
        if let Some(notify) = &mut self.notify {
            notify.unwatch_within(dir);
        }
    }

    /// Reads every queued change without waiting (none when re-checking).
    pub(crate) fn drain(&mut self) -> Drained {
        match &mut self.notify {
            Some(notify) => notify.drain(),
            None => Drained::Changes(Vec::new()),
        }
    }
}

/// Adds the watches of directories as a walk enters them (before listing them), from the
/// walk's threads: one walk then both lists and watches the tree, and nothing created in a
/// directory after its watch is missed. The watches are registered with the watcher when the
/// walk is done, before anything drains its queue.
pub(crate) struct Adder {
    #[cfg(target_os = "linux")]
    watches: inotify::Watches,
    added: std::sync::Mutex<Vec<(String, WatchId)>>,
    count: std::sync::atomic::AtomicUsize,
    max: Option<usize>,
    failed: std::sync::Mutex<Option<String>>,
}

#[cfg(target_os = "linux")]
type WatchId = inotify::WatchDescriptor;
#[cfg(not(target_os = "linux"))]
type WatchId = ();

impl Adder {
    /// Watches directory `dir` (at `absolute`); a failure other than the directory being gone
    /// is kept for [`Watcher::register`].
    pub(crate) fn watch(&self, absolute: &Path, dir: &str) {
        use std::sync::atomic::Ordering;
        fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
            m.lock().unwrap_or_else(|e| e.into_inner())
        }
        if self
            .max
            .is_some_and(|max| self.count.fetch_add(1, Ordering::Relaxed) >= max)
        {
            lock(&self.failed).get_or_insert(format!("cannot watch {dir:?}: watch limit reached"));
            return;
        }
        #[cfg(target_os = "linux")]
        match self.watches.clone().add(absolute, linux::DIR_MASK) {
            Ok(wd) => lock(&self.added).push((dir.to_string(), wd)),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) => {}
            Err(e) => {
                lock(&self.failed).get_or_insert(format!("cannot watch {dir:?}: {e}"));
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (absolute, lock(&self.added));
    }
}

/// The change a file's own watch reports, as its directory's watch would for its name.
fn file_change(path: &str) -> Change {
    let dir = parent_of(path);
    let name = if dir.is_empty() {
        path
    } else {
        &path[dir.len() + 1..]
    };
    Change {
        dir: dir.to_string(),
        name: Some(name.into()),
        is_dir: false,
    }
}

#[cfg(target_os = "linux")]
use linux::Notify;

#[cfg(target_os = "linux")]
mod linux {
    use super::*;
    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

    /// What one watch descriptor stands for: a directory, or the names of one inode.
    enum Watched {
        Dir(String),
        Files(Vec<String>),
    }

    /// What a directory's watch reports.
    pub(crate) const DIR_MASK: WatchMask = WatchMask::CREATE
        .union(WatchMask::DELETE)
        .union(WatchMask::MODIFY)
        .union(WatchMask::ATTRIB)
        .union(WatchMask::CLOSE_WRITE)
        .union(WatchMask::MOVED_FROM)
        .union(WatchMask::MOVED_TO)
        .union(WatchMask::DELETE_SELF)
        .union(WatchMask::MOVE_SELF)
        .union(WatchMask::ONLYDIR)
        .union(WatchMask::DONT_FOLLOW)
        .union(WatchMask::EXCL_UNLINK);

    pub(crate) struct Notify {
        inotify: Inotify,
        by_wd: HashMap<WatchDescriptor, Watched>,
        by_dir: HashMap<String, WatchDescriptor>,
        by_file: HashMap<String, WatchDescriptor>,
        limits: Limits,
        buffer: Vec<u8>,
    }

    impl Notify {
        pub(crate) fn new(limits: Limits) -> std::io::Result<Notify> {
            Ok(Notify {
                inotify: Inotify::init()?,
                by_wd: HashMap::new(),
                by_dir: HashMap::new(),
                by_file: HashMap::new(),
                limits,
                buffer: vec![0; 64 * 1024],
            })
        }

        pub(crate) fn watches(&self) -> usize {
            self.by_dir.len()
        }

        pub(crate) fn file_watches(&self) -> usize {
            self.by_file.len()
        }

        pub(crate) fn is_watched(&self, dir: &str) -> bool {
            self.by_dir.contains_key(dir)
        }

        pub(crate) fn watch(&mut self, absolute: &Path, dir: &str) -> std::io::Result<()> {
            if self.by_dir.contains_key(dir) {
                return Ok(());
            }
            // Added first, so that a directory that is gone fails as gone, not as one too many.
            let wd = self.inotify.watches().add(absolute, DIR_MASK)?;
            if self
                .limits
                .max_watches
                .is_some_and(|max| self.by_dir.len() >= max)
                && !self.by_wd.contains_key(&wd)
            {
                let _ = self.inotify.watches().remove(wd);
                return Err(std::io::Error::other("watch limit reached"));
            }
            self.insert_dir(dir.to_string(), wd);
            Ok(())
        }

        fn insert_dir(&mut self, dir: String, wd: WatchDescriptor) {
            // The same directory under another name (it was moved): the new name wins.
            if let Some(Watched::Dir(old)) =
                self.by_wd.insert(wd.clone(), Watched::Dir(dir.clone()))
                && old != dir
            {
                self.by_dir.remove(&old);
            }
            self.by_dir.insert(dir, wd);
        }

        pub(crate) fn adder(&self) -> Adder {
            Adder {
                watches: self.inotify.watches(),
                added: std::sync::Mutex::new(Vec::new()),
                count: std::sync::atomic::AtomicUsize::new(self.by_dir.len()),
                max: self.limits.max_watches,
                failed: std::sync::Mutex::new(None),
            }
        }

        pub(crate) fn register(&mut self, added: Vec<(String, WatchDescriptor)>) {
            for (dir, wd) in added {
                self.insert_dir(dir, wd);
            }
        }

        pub(crate) fn watch_file(&mut self, absolute: &Path, path: &str) -> std::io::Result<()> {
            if self.by_file.contains_key(path) {
                return Ok(());
            }
            if self
                .limits
                .max_file_watches
                .is_some_and(|max| self.by_file.len() >= max)
            {
                return Err(std::io::Error::other("file watch budget spent"));
            }
            let mask = WatchMask::MODIFY
                | WatchMask::ATTRIB
                | WatchMask::CLOSE_WRITE
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF
                | WatchMask::DONT_FOLLOW;
            let wd = self.inotify.watches().add(absolute, mask)?;
            // Names of one inode share its watch.
            match self
                .by_wd
                .entry(wd.clone())
                .or_insert(Watched::Files(Vec::new()))
            {
                Watched::Files(paths) => paths.push(path.to_string()),
                Watched::Dir(_) => return Err(std::io::Error::other("a directory's watch")),
            }
            self.by_file.insert(path.to_string(), wd);
            Ok(())
        }

        pub(crate) fn unwatch_within(&mut self, dir: &str) {
            let gone: Vec<String> = self
                .by_dir
                .keys()
                .filter(|d| is_within(d, dir))
                .cloned()
                .collect();
            for d in gone {
                if let Some(wd) = self.by_dir.remove(&d) {
                    self.by_wd.remove(&wd);
                    // Fails harmlessly when the kernel already dropped the watch.
                    let _ = self.inotify.watches().remove(wd);
                }
            }
            let files: Vec<String> = self
                .by_file
                .keys()
                .filter(|f| is_within(f, dir))
                .cloned()
                .collect();
            for f in files {
                let Some(wd) = self.by_file.remove(&f) else {
                    continue;
                };
                let empty = match self.by_wd.get_mut(&wd) {
                    Some(Watched::Files(paths)) => {
                        paths.retain(|p| *p != f);
                        paths.is_empty()
                    }
                    _ => false,
                };
                if empty {
                    self.by_wd.remove(&wd);
                    let _ = self.inotify.watches().remove(wd);
                }
            }
        }

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
                        // The kernel dropped the watch (its directory or inode is gone).
                        match self.by_wd.remove(&event.wd) {
                            Some(Watched::Dir(dir)) if self.by_dir.get(&dir) == Some(&event.wd) => {
                                self.by_dir.remove(&dir);
                            }
                            Some(Watched::Files(paths)) => {
                                for path in paths {
                                    self.by_file.remove(&path);
                                    changes.push(file_change(&path));
                                }
                            }
                            _ => {}
                        }
                        continue;
                    }
                    match self.by_wd.get(&event.wd) {
                        Some(Watched::Dir(dir)) => changes.push(Change {
                            dir: dir.clone(),
                            name: event.name.map(|n| n.to_os_string()),
                            is_dir: event.mask.contains(EventMask::ISDIR),
                        }),
                        Some(Watched::Files(paths)) => {
                            changes.extend(paths.iter().map(|p| file_change(p)));
                        }
                        None => {}
                    }
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

        /// Empties the queue after an overflow: those events are covered by the re-walk.
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

/// Elsewhere there is no notification: the watcher re-checks.
#[cfg(not(target_os = "linux"))]
enum Notify {}

#[cfg(not(target_os = "linux"))]
impl Notify {
    fn new(_limits: Limits) -> std::io::Result<Notify> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "no file change notification on this platform",
        ))
    }
    fn watches(&self) -> usize {
        match *self {}
    }
    fn adder(&self) -> Adder {
        match *self {}
    }
    fn register(&mut self, _added: Vec<(String, WatchId)>) {
        match *self {}
    }
    fn file_watches(&self) -> usize {
        match *self {}
    }
    fn is_watched(&self, _dir: &str) -> bool {
        match *self {}
    }
    fn watch(&mut self, _absolute: &Path, _dir: &str) -> std::io::Result<()> {
        match *self {}
    }
    fn watch_file(&mut self, _absolute: &Path, _path: &str) -> std::io::Result<()> {
        match *self {}
    }
    fn unwatch_within(&mut self, _dir: &str) {
        match *self {}
    }
    fn drain(&mut self) -> Drained {
        match *self {}
    }
}
