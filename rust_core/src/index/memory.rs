//! The one place ripsight uses `unsafe`: mapping an index file into memory (memmap2), and
//! handing the memory a build freed back to the system (glibc's `malloc_trim` and `mallopt`).
//!
//! Why a map and not a read: the pages of a mapped file belong to the page cache, so every
//! process that opens the same tree shares one copy of its index, and none of it is counted as
//! the process's heap (SPEC §2.8; issue 17). Why `unsafe`: a mapping is memory that another
//! program could change or shrink under the process (a truncated file makes a read of its lost
//! pages fault). `memmap2::Mmap::map` is therefore `unsafe` to call, and no safe wrapper can
//! prove what other programs do.
//!
//! What makes it sound here:
//! - the file is opened read-only and mapped read-only (`Mmap`, never `MmapMut`);
//! - ripsight never writes to an index file after it has been renamed to its final name: a new
//!   index is written to a temporary file, synced and renamed over the old name, so the old
//!   inode a process has mapped stays as it was until the last mapping of it goes;
//! - everything read from the map is checked (checksums, then bounds on every access) before it
//!   is trusted, so a file changed by someone else gives wrong bytes, never undefined reads
//!   within the mapping's length.
//!
//! The remaining hazard is another program truncating the file in place while it is mapped (a
//! user's `truncate`, a tool that rewrites files in place): a read of a page past the new end
//! faults (SIGBUS), which would end the process. A [`Mapped`] file therefore keeps its open
//! file, and every call that is about to read a map asks [`Mapped::intact`] first: one `fstat`
//! of that file, whose size must still cover the mapping. A map found short is never read
//! again (the caller answers without it and rebuilds the index). What remains is a truncation
//! made between that check and the reads of the same call.

use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};

/// A file mapped read-only, with the open file it maps (to see it shrink).
pub(crate) struct Mapped {
    map: memmap2::Mmap,
    file: File,
    /// Set once the file was found shorter than the map: stays set.
    short: AtomicBool,
}

impl Mapped {
    /// Whether the file still covers every mapped byte (one `fstat`); once it did not, never
    /// again. A file that cannot be asked counts as short.
    pub(crate) fn intact(&self) -> bool {
        if self.short.load(Ordering::Relaxed) {
            return false;
        }
        let covers = self
            .file
            .metadata()
            .is_ok_and(|meta| meta.len() >= self.map.len() as u64);
        if !covers {
            self.short.store(true, Ordering::Relaxed);
        }
        covers
    }
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

/// Maps `file` read-only, keeping it open.
pub(crate) fn map(file: File) -> std::io::Result<Mapped> {
    // SAFETY: see the module's documentation: a read-only map of a file that ripsight never
    // writes again once it is in place, whose every byte is checked before it is used, and
    // whose size is checked before each call reads it.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(Mapped {
        map,
        file,
        short: AtomicBool::new(false),
    })
}

/// Returns the heap memory the allocator keeps free to the system, after a build or a merge
/// freed its scratch (hundreds of MB in many small lists). glibc keeps freed memory in two
/// places, and each needs its own call:
/// - free chunks inside an arena: `malloc_trim` returns their pages;
/// - the top of the arena of a thread other than the main one, which `malloc_trim` leaves
///   alone: glibc shrinks it only when a chunk of 64 KiB or more is freed in that arena. A
///   build's threads have ended by now, so their arenas wait on glibc's list of free arenas,
///   from which a new thread takes one. [`ARENAS_VISITED`] threads each allocate one such
///   chunk, wait until all hold one (so that each took a different arena), and free it.
///
/// On the Linux tree the builder's heap right after a build was 49 to 60 MiB with `malloc_trim`
/// alone (up to 4.9% of the indexed bytes, where the goal is 5%), and 28 to 29 MiB with the
/// visits too (2.2%): without them, it went down only once some query's threads happened to
/// take those arenas.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn release_free_memory() {
    // SAFETY: `malloc_trim` only releases memory the allocator holds free; it takes no pointer
    // and is safe to call from any thread at any time.
    #[allow(unsafe_code)]
    unsafe {
        libc::malloc_trim(0);
    }
    // Each thread takes its arena with its chunk, then waits until every thread started has
    // one, so that no two share an arena; a thread the system refuses is simply not counted.
    let gate = (
        std::sync::Mutex::new((0usize, false)),
        std::sync::Condvar::new(),
    );
    let visit = || {
        // Above 64 KiB (glibc's FASTBIN_CONSOLIDATION_THRESHOLD), under the 128 KiB from which
        // a block is mapped on its own (`steady_allocator`).
        let chunk: Vec<u8> = std::hint::black_box(Vec::with_capacity(96 * 1024));
        let (lock, changed) = &gate;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        state.0 += 1;
        changed.notify_all();
        while !state.1 {
            state = changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        drop(state);
        drop(chunk);
    };
    std::thread::scope(|scope| {
        let started = (0..ARENAS_VISITED)
            .filter(|_| {
                std::thread::Builder::new()
                    .name("ripsight-trim".into())
                    .spawn_scoped(scope, visit)
                    .is_ok()
            })
            .count();
        let (lock, changed) = &gate;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        while state.0 < started {
            state = changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.1 = true;
        changed.notify_all();
    });
}

/// Threads that visit the free arenas in [`release_free_memory`]: as many as a build uses at
/// most (`postings::build`), whose threads freed the memory.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENAS_VISITED: usize = 8;

/// Before a process's first build: fixes glibc's thresholds at their defaults (128 KiB).
/// glibc raises them whenever a block it mapped is freed (up to 32 MiB and twice that), and a
/// thread's arena then keeps up to the raised trim threshold of freed memory resident, which
/// `malloc_trim` does not return for arenas other than the main one. A build frees hundreds of
/// MB of small lists after larger blocks (the file's tables): with the raised thresholds a
/// 200 MB tree's builder kept 10 to 14% of the indexed bytes as heap, against 2 to 3% with
/// the fixed ones (the goal is 5%). Large blocks are then always mapped and unmapped.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn steady_allocator() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const DEFAULT: libc::c_int = 128 * 1024;
        // SAFETY: `mallopt` only changes two of the allocator's tuning numbers; it takes no
        // pointer and is safe to call from any thread at any time.
        #[allow(unsafe_code)]
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, DEFAULT);
            libc::mallopt(libc::M_TRIM_THRESHOLD, DEFAULT);
        }
    });
}

/// Other allocators keep no such thresholds.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn steady_allocator() {}

/// Other allocators return freed memory by themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn release_free_memory() {}
