//! The walker: parallel, ignore-aware listing of a directory tree from directory descriptors.
//!
//! [`walk_files`] is the one walker behind `glob`, `grep` and the suggestions. It lists each
//! directory from a descriptor opened relative to its parent's descriptor (by bare name, with
//! `O_DIRECTORY | O_NOFOLLOW`, see [`crate::boundary`]) and reads entries with `getdents`
//! (`rustix::fs::Dir`), using the entry type the kernel reports so that no entry is `stat`ed
//! unless the file system leaves the type unknown. **Symlinks are never followed** (as ripgrep,
//! fd and git): a link met in a walk is counted as `symlink`, and a directory swapped for a link
//! mid-walk fails to open and is counted the same way, never entered.
//!
//! Every file that passes the rules is handed to a per-thread [`FileVisitor`] as a
//! [`WalkedFile`]: its path relative to the root (raw bytes and a display `str`), its name, and
//! [`WalkedFile::open`], which opens it relative to its parent directory's descriptor
//! (`O_NOFOLLOW | O_NONBLOCK`, then `fstat`: anything but a regular file is refused unread).
//!
//! The rules, in the order they apply to an entry (as ripgrep's `ignore` crate applies them;
//! its matchers do the matching, fed with the bytes of the ignore files read through the
//! descriptors):
//!
//! 1. ignore files, when both the workspace's and the call's `respect_ignore_files` say so
//!    ([`WalkOptions::respect_ignore_files`]), with ripgrep's precedence
//!    (see [`crate::ignore_rules`]): `.ripsightignore` > `.ignore` > `.gitignore` >
//!    `.git/info/exclude`, deeper over shallower, git files only inside a repository, parents
//!    above the root included, the global git excludes never. Hidden files are included.
//!    Entries hidden by ignore files are counted `ignored_by_rules` (a directory once, not
//!    entered) and the rule that hid each is tallied ([`WalkOutcome::hidden_by`]);
//! 2. the skip set of directory names ([`Workspace::is_excluded_dir`]): pruned, counted `ignored`;
//! 3. deny rules ([`Workspace::is_denied_entry`], case-insensitive): counted `denied`, a denied
//!    directory is pruned;
//! 4. symlinks: counted `symlink`, not followed;
//! 5. FIFOs, sockets and devices: never opened, counted `special`.
//!
//! With [`WalkOptions::max_depth`], entries deeper than that below the start are not met (as
//! `rg --max-depth`: 1 is the start's own entries; a directory at the last level is not entered).
//!
//! Work is shared by [`thread_count`] threads, the calling thread one of them (a small tree is
//! walked by the calling thread alone, see [`Crossover`]), through one stack of directories
//! (depth first, which keeps few descriptors open: a queued directory holds its parent's
//! descriptor only).
//! Visit order differs run to run; callers sort their results. When the deadline passes the walk
//! stops and the outcome is marked incomplete.

mod open;

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

pub(crate) use self::open::{Opener, WalkedFile, open_dir_relative, open_relative};
use crate::boundary::{self, Kind};
use crate::ignore_rules::{DirRules, Found, RuleLine, RuleTally, dir_rules};
use crate::workspace::{Deadline, SkipCounts, Workspace};

/// Receives the files of one walker thread.
pub(crate) trait FileVisitor: Send {
    /// Handles one file; `skipped` is the thread's count of passed-over entries. Returns false to
    /// stop the whole walk.
    fn visit_file(&mut self, file: &WalkedFile<'_>, skipped: &mut SkipCounts) -> bool;

    /// Called once per directory the walk lists (the start included), before its entries, with
    /// its real path relative to the root and its descriptor (`fstat` it for the directory's
    /// identity and mtime, e.g. to notice later changes). Returns false to stop the whole walk.
    /// The default does nothing and costs nothing.
    fn visit_dir(&mut self, _relative: &[u8], _dir: BorrowedFd<'_>) -> bool {
        true
    }

    /// Called for every entry the walk passes over and counts, with its path relative to the
    /// root; the count is already in the thread's `SkipCounts`. The default does nothing.
    fn skipped_entry(&mut self, _relative: &[u8], _reason: WalkSkip) {}

    /// Called for every directory the rules let through, before it is queued; false leaves it
    /// out of the walk (not listed, not entered, not counted as skipped): the warm index lists
    /// one directory's entries at a time this way. The default enters every directory.
    fn enter_dir(&mut self, _relative: &[u8]) -> bool {
        true
    }
}

/// Why the walk passed over an entry (each reason is also a field of [`SkipCounts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WalkSkip {
    /// A directory of the skip set (`SkipCounts::ignored`).
    Ignored,
    /// Hidden by this ignore-file rule (`ignored_by_rules`).
    Hidden(Arc<RuleLine>),
    /// Covered by a deny rule (`denied`).
    Denied,
    /// A symlink, or a directory swapped for one before it was opened (`symlink`).
    Symlink,
    /// A FIFO, socket or device (`special`).
    Special,
    /// Vanished, refused by the operating system, or of no known type (`unreadable`).
    Unreadable,
}

impl WalkSkip {
    pub(crate) fn count(&self, skipped: &mut SkipCounts) {
        match self {
            WalkSkip::Ignored => skipped.ignored += 1,
            WalkSkip::Hidden(_) => skipped.ignored_by_rules += 1,
            WalkSkip::Denied => skipped.denied += 1,
            WalkSkip::Symlink => skipped.symlink += 1,
            WalkSkip::Special => skipped.special += 1,
            WalkSkip::Unreadable => skipped.unreadable += 1,
        }
    }
}

/// Counts `reason` for the entry `relative` and tells the visitor.
fn skip<V: FileVisitor>(
    visitor: &mut V,
    skipped: &mut SkipCounts,
    relative: &[u8],
    reason: WalkSkip,
) {
    reason.count(skipped);
    visitor.skipped_entry(relative, reason);
}

/// What [`walk_files`] leaves: every thread's visitor, the merged skip counts, the rules that
/// hid entries and whether the time budget ran out.
pub(crate) struct WalkOutcome<V> {
    pub(crate) visitors: Vec<V>,
    pub(crate) skipped: SkipCounts,
    /// How many entries each ignore-file rule hid.
    pub(crate) hidden_by: RuleTally,
    pub(crate) incomplete: bool,
}

/// What one walk lets through, beside the workspace's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WalkOptions {
    /// Whether ignore files apply: the workspace's `respect_ignore_files` and the call's (the
    /// skip set and deny rules always apply).
    pub(crate) respect_ignore_files: bool,
    /// Levels below the start met at most (`rg --max-depth`); `None`: all.
    pub(crate) max_depth: Option<usize>,
}

impl WalkOptions {
    /// A walk of `workspace` where ignore files apply when both its options and the call's
    /// `respect_ignore_files` say so.
    pub(crate) fn new(
        workspace: &Workspace,
        respect_ignore_files: bool,
        max_depth: Option<usize>,
    ) -> WalkOptions {
        WalkOptions {
            respect_ignore_files: workspace.options().respect_ignore_files && respect_ignore_files,
            max_depth,
        }
    }

    /// Every entry the workspace's rules let through.
    pub(crate) fn full(workspace: &Workspace) -> WalkOptions {
        WalkOptions::new(workspace, true, None)
    }
}

/// Worker threads of a walk: the workspace option, or one per core.
pub(crate) fn thread_count(workspace: &Workspace) -> usize {
    match workspace.options().threads {
        0 => cores(),
        n => n,
    }
}

/// The cores this process may use, asked once: `available_parallelism` reads the cgroup's CPU
/// quota from `/proc` and `/sys` (about twenty system calls), which a small tree's whole walk
/// costs only a hundred times over.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Up to which size (entries, files and directories, of the directory's last complete walk) a
/// walk runs on the calling thread alone. Below `alone`, starting, feeding and joining another
/// thread costs more than it saves. Up to `busy`, a walk also stays on one thread while another
/// call runs in the process: the cores are taken, and one thread per call lets concurrent calls
/// scale where a parallel walk per call would oversubscribe them. Larger walks, and the first
/// walk of a directory, run on all the workspace's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossover {
    /// Largest walk size walked on one thread.
    pub alone: u64,
    /// Largest walk size walked on one thread while another call runs.
    pub busy: u64,
}

/// Glob's crossover, measured on 2 cores with the calling thread as one of the workers
/// (`bench.small_repo(N)`, medians of 300 calls): 150 files 0.28 ms on two threads against
/// 0.36 ms on one, 60 files equal. `busy` keeps the sizes every walk took one thread up to
/// before (measured then as the point where two threads began to pay), so concurrent calls on
/// trees of that size behave as they did.
pub const GLOB_CROSSOVER: Crossover = Crossover {
    alone: 150,
    busy: 2_000,
};
/// The same for grep, which spends more time per file (open, read): 100 files 0.46 ms on two
/// threads against 0.61 ms, 300 files 1.09 against 1.89 ms, 60 files equal.
pub const GREP_CROSSOVER: Crossover = Crossover {
    alone: 100,
    busy: 700,
};

/// How [`walk_files_with`] runs the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WalkMode {
    /// Sequential when the workspace has one thread or the last complete walk of the
    /// directory was small by `crossover`; parallel otherwise (and the first time).
    Auto {
        /// Which remembered walk sizes are walked sequentially.
        crossover: Crossover,
    },
    /// On the calling thread.
    Sequential,
    /// On the workspace's worker threads.
    #[cfg_attr(not(test), allow(dead_code))]
    Parallel,
}

/// A directory to walk: its descriptor (opened beneath the root, e.g. by `Workspace::open_path`)
/// and its real path relative to the root (empty for the root).
pub(crate) struct StartDir {
    pub(crate) fd: OwnedFd,
    pub(crate) relative: Vec<u8>,
}

// ==== The walk ====

/// Where a queued directory is opened from.
enum Source {
    /// Already opened (the start of the walk).
    Opened(OwnedFd),
    /// The entry `name` of the directory `parent`.
    Child {
        parent: Arc<rustix::fs::Dir>,
        name: Vec<u8>,
    },
}

struct Work {
    source: Source,
    relative: Vec<u8>,
    /// The rules of the parent directory (this directory adds its own when it is listed).
    rules: Arc<DirRules>,
    /// Levels below the start (0 for the start).
    depth: usize,
}

struct Queue {
    stack: Vec<Work>,
    /// Threads processing a directory (they may queue more).
    busy: usize,
    /// Threads waiting on `Shared::ready`: with none (always so in a sequential walk), a change
    /// needs no wake-up, and a `notify_all` would still cost a system call per directory.
    waiting: usize,
}

/// What every thread of one walk shares.
struct Shared<'w> {
    workspace: &'w Workspace,
    options: WalkOptions,
    deadline: Deadline,
    queue: Mutex<Queue>,
    ready: Condvar,
    quit: AtomicBool,
    incomplete: AtomicBool,
    /// Entries (files and directories) the walk let through.
    entries: AtomicU64,
}

/// Walks `start` (an opened directory inside the root), calling the visitors made by `make`
/// for every file that passes the rules in the module docs and `options`. Stops when
/// `deadline` expires or a visitor asks to. Trees whose last walk was small by `crossover` are
/// walked by one thread, others in parallel (see [`WalkMode::Auto`]); both give the same files
/// and counts.
pub(crate) fn walk_files<V, F>(
    workspace: &Workspace,
    start: StartDir,
    options: WalkOptions,
    deadline: Deadline,
    crossover: Crossover,
    make: F,
) -> WalkOutcome<V>
where
    V: FileVisitor,
    F: FnMut() -> V,
{
    let mode = WalkMode::Auto { crossover };
    walk(workspace, start, options, deadline, mode, make)
}

/// A walk of everything the workspace's rules let through, in the mode chosen by the caller.
pub(crate) fn walk_files_with<V, F>(
    workspace: &Workspace,
    start: StartDir,
    deadline: Deadline,
    mode: WalkMode,
    make: F,
) -> WalkOutcome<V>
where
    V: FileVisitor,
    F: FnMut() -> V,
{
    let options = WalkOptions::full(workspace);
    walk(workspace, start, options, deadline, mode, make)
}

fn walk<V, F>(
    workspace: &Workspace,
    start: StartDir,
    options: WalkOptions,
    deadline: Deadline,
    mode: WalkMode,
    mut make: F,
) -> WalkOutcome<V>
where
    V: FileVisitor,
    F: FnMut() -> V,
{
    let threads = thread_count(workspace);
    let size_key = String::from_utf8_lossy(&start.relative).into_owned();
    let sequential = match mode {
        WalkMode::Auto { crossover } => {
            threads <= 1
                || workspace.walk_size(&size_key).is_some_and(|n| {
                    n <= crossover.alone
                        || (n <= crossover.busy && crate::background::calls_running() > 1)
                })
        }
        WalkMode::Sequential => true,
        WalkMode::Parallel => false,
    };
    let mut skipped = SkipCounts::default();
    let rules = if options.respect_ignore_files {
        workspace.rules_down_to(&start.relative)
    } else {
        Ok(Arc::new(DirRules::default()))
    };
    let rules = match rules {
        Ok(rules) => rules,
        Err(_) => {
            skipped.unreadable += 1;
            return WalkOutcome {
                visitors: vec![make()],
                skipped,
                hidden_by: RuleTally::default(),
                incomplete: false,
            };
        }
    };
    // `--max-depth 0`: the start itself, no entry of it.
    let stack = if options.max_depth == Some(0) {
        Vec::new()
    } else {
        vec![Work {
            source: Source::Opened(start.fd),
            relative: start.relative,
            rules,
            depth: 0,
        }]
    };
    let shared = Shared {
        workspace,
        options,
        deadline,
        queue: Mutex::new(Queue {
            stack,
            busy: 0,
            waiting: 0,
        }),
        ready: Condvar::new(),
        quit: AtomicBool::new(false),
        incomplete: AtomicBool::new(false),
        entries: AtomicU64::new(0),
    };
    let mut finished: Vec<(V, Counts)> = Vec::new();
    if sequential {
        let mut visitor = make();
        let counts = run_worker(&shared, &mut visitor);
        finished.push((visitor, counts));
    } else {
        // The calling thread is one of the workers: a thread start fewer per walk.
        let mut own = make();
        let others: Vec<V> = (1..threads).map(|_| make()).collect();
        std::thread::scope(|scope| {
            // A thread the system refuses runs its worker here first: it empties the shared
            // queue, and this thread's own worker then finds nothing left.
            let handles: Vec<_> = others
                .into_iter()
                .map(|mut visitor| {
                    let shared = &shared;
                    crate::threads::spawn_or_run(scope, move || {
                        let counts = run_worker(shared, &mut visitor);
                        (visitor, counts)
                    })
                })
                .collect();
            let counts = run_worker(&shared, &mut own);
            finished.push((own, counts));
            for handle in handles {
                match handle.join() {
                    Ok(done) => finished.push(done),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    let incomplete = shared.incomplete.load(Ordering::Relaxed);
    // Only a whole walk tells how large the directory is (not one cut by depth, nor one that
    // entered what ignore files hide).
    let whole = options == WalkOptions::full(workspace);
    if whole && !incomplete && !shared.quit.load(Ordering::Relaxed) {
        workspace.record_walk_size(&size_key, shared.entries.load(Ordering::Relaxed));
    }
    let mut visitors = Vec::with_capacity(finished.len());
    let mut hidden_by = RuleTally::default();
    for (visitor, counts) in finished {
        skipped.add(&counts.skipped);
        hidden_by.merge(counts.hidden);
        visitors.push(visitor);
    }
    WalkOutcome {
        visitors,
        skipped,
        hidden_by,
        incomplete,
    }
}

/// What one thread of a walk counted.
#[derive(Default)]
struct Counts {
    skipped: SkipCounts,
    hidden: RuleTally,
    /// Entries (files and directories) let through.
    entries: u64,
}

fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

/// One thread's loop: take a directory, list it, queue its subdirectories, visit its files.
fn run_worker<V: FileVisitor>(shared: &Shared<'_>, visitor: &mut V) -> Counts {
    let mut counts = Counts::default();
    loop {
        let work = {
            let mut queue = lock(&shared.queue);
            loop {
                if shared.quit.load(Ordering::Relaxed)
                    || (queue.stack.is_empty() && queue.busy == 0)
                {
                    if queue.waiting > 0 {
                        shared.ready.notify_all();
                    }
                    shared.entries.fetch_add(counts.entries, Ordering::Relaxed);
                    return counts;
                }
                if let Some(work) = queue.stack.pop() {
                    queue.busy += 1;
                    break work;
                }
                queue.waiting += 1;
                queue = shared.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
                queue.waiting -= 1;
            }
        };
        let guard = PanicGuard(shared);
        let children = list_dir(shared, work, visitor, &mut counts);
        std::mem::forget(guard);
        let mut queue = lock(&shared.queue);
        queue.busy -= 1;
        // Read under the lock: a thread about to wait counts itself in `waiting` under it, so
        // none can miss this change.
        let woke = (!children.is_empty() || queue.busy == 0) && queue.waiting > 0;
        queue.stack.extend(children);
        drop(queue);
        if woke {
            shared.ready.notify_all();
        }
    }
}

/// Armed while a thread lists a directory: if a visitor panics there, the other threads are told
/// to stop (they would otherwise wait forever for the directory to be finished) and the panic
/// reaches the caller when the threads are joined.
struct PanicGuard<'s, 'w>(&'s Shared<'w>);

impl Drop for PanicGuard<'_, '_> {
    fn drop(&mut self) {
        self.0.quit.store(true, Ordering::Relaxed);
        let _queue = lock(&self.0.queue);
        self.0.ready.notify_all();
    }
}

fn stop(shared: &Shared<'_>, incomplete: bool) {
    if incomplete {
        shared.incomplete.store(true, Ordering::Relaxed);
    }
    shared.quit.store(true, Ordering::Relaxed);
}

/// Lists one directory: visits its files and returns its subdirectories to queue.
fn list_dir<V: FileVisitor>(
    shared: &Shared<'_>,
    work: Work,
    visitor: &mut V,
    counts: &mut Counts,
) -> Vec<Work> {
    let Counts {
        skipped,
        hidden,
        entries,
    } = counts;
    if shared.deadline.expired() {
        stop(shared, true);
        return Vec::new();
    }
    let fd = match work.source {
        Source::Opened(fd) => fd,
        Source::Child { parent, name } => match parent
            .fd()
            .map_err(io::Error::from)
            .and_then(|at| boundary::open_child_dir(at, &name))
        {
            Ok(fd) => fd,
            Err(error) => {
                // A directory swapped for a link since it was listed is not entered.
                let reason = match error.raw_os_error() {
                    Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => {
                        WalkSkip::Symlink
                    }
                    _ => WalkSkip::Unreadable,
                };
                skip(visitor, skipped, &work.relative, reason);
                return Vec::new();
            }
        },
    };
    let (dir, names) = match read_entries(fd) {
        Ok(read) => read,
        Err(_) => {
            skip(visitor, skipped, &work.relative, WalkSkip::Unreadable);
            return Vec::new();
        }
    };
    let workspace = shared.workspace;
    let Ok(dir_fd) = dir.fd() else {
        skip(visitor, skipped, &work.relative, WalkSkip::Unreadable);
        return Vec::new();
    };
    if !visitor.visit_dir(&work.relative, dir_fd) {
        stop(shared, false);
        return Vec::new();
    }
    let rules = if shared.options.respect_ignore_files {
        let mut found = Found::default();
        for (name, kind) in &names {
            found.note(name, *kind);
        }
        dir_rules(
            workspace.root_dir(),
            &work.rules,
            dir_fd,
            &work.relative,
            &found,
        )
    } else {
        work.rules
    };
    // The entries' level below the start; directories at the last level are not entered.
    let depth = work.depth + 1;
    let enter = shared.options.max_depth.is_none_or(|max| depth < max);
    let root = workspace.root();
    let mut children = Vec::new();
    let mut relative = work.relative;
    let base_len = relative.len();
    for (name, kind) in names {
        relative.truncate(base_len);
        if base_len > 0 {
            relative.push(b'/');
        }
        relative.extend_from_slice(&name);
        let kind = match kind {
            Kind::Unknown => match boundary::stat_child(dir_fd, &name) {
                Ok(identity) => identity.kind(),
                Err(_) => {
                    skip(visitor, skipped, &relative, WalkSkip::Unreadable);
                    continue;
                }
            },
            known => known,
        };
        let is_dir = kind == Kind::Dir;
        if let Some(rule) = rules.hidden_by(root, Path::new(OsStr::from_bytes(&relative)), is_dir) {
            hidden.add(&rule);
            skip(visitor, skipped, &relative, WalkSkip::Hidden(rule));
            continue;
        }
        if is_dir && workspace.is_excluded_dir(&name) {
            skip(visitor, skipped, &relative, WalkSkip::Ignored);
            continue;
        }
        if workspace.is_denied_entry(&relative, &name) {
            skip(visitor, skipped, &relative, WalkSkip::Denied);
            continue;
        }
        match kind {
            Kind::Dir => {
                *entries += 1;
                if !enter || !visitor.enter_dir(&relative) {
                    continue;
                }
                children.push(Work {
                    source: Source::Child {
                        parent: Arc::clone(&dir),
                        name,
                    },
                    relative: relative.clone(),
                    rules: Arc::clone(&rules),
                    depth,
                });
            }
            Kind::File => {
                *entries += 1;
                if shared.deadline.expired() {
                    stop(shared, true);
                    return Vec::new();
                }
                let shown: Cow<'_, str> = String::from_utf8_lossy(&relative);
                let shown_name = String::from_utf8_lossy(&name);
                let file = WalkedFile {
                    relative_bytes: &relative,
                    relative: &shown,
                    name: &shown_name,
                    name_bytes: &name,
                    parent: dir_fd,
                };
                if !visitor.visit_file(&file, skipped) {
                    stop(shared, false);
                    return Vec::new();
                }
            }
            Kind::Symlink => skip(visitor, skipped, &relative, WalkSkip::Symlink),
            Kind::Special(_) => skip(visitor, skipped, &relative, WalkSkip::Special),
            Kind::Unknown => skip(visitor, skipped, &relative, WalkSkip::Unreadable),
        }
    }
    children
}

/// The entries of a directory (without `.` and `..`) with the type the kernel reports, and the
/// directory stream, whose descriptor opens the entries (children hold it until they are listed).
#[allow(clippy::type_complexity)]
fn read_entries(fd: OwnedFd) -> io::Result<(Arc<rustix::fs::Dir>, Vec<(Vec<u8>, Kind)>)> {
    let mut dir = rustix::fs::Dir::new(fd)?;
    let mut out = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        out.push((name.to_vec(), boundary::kind_of(entry.file_type())));
    }
    Ok((Arc::new(dir), out))
}

#[cfg(test)]
mod tests;
