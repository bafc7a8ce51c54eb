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
//! The remaining hazard, another program truncating the file while it is mapped, is the one
//! every memory-mapped index shares (zoekt's shards, ayg's index); the files live in the user's
//! own cache directory.

use std::fs::File;

/// Maps `file` read-only.
pub(crate) fn map(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: see the module's documentation: a read-only map of a file that ripsight never
    // writes again once it is in place, whose every byte is checked before it is used.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file) }?;
    Ok(map)
}

/// Returns the heap memory the allocator keeps free to the system, after a build or a merge
/// freed its scratch (hundreds of MB in many small lists): glibc keeps freed chunks of its
/// per-thread arenas resident until told, which on the Linux tree left 62 MiB of a finished
/// build's heap resident (5.0% of the indexed bytes) against 42 MiB after the trim (3.4%).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn release_free_memory() {
    // SAFETY: `malloc_trim` only releases memory the allocator holds free; it takes no pointer
    // and is safe to call from any thread at any time.
    #[allow(unsafe_code)]
    unsafe {
        libc::malloc_trim(0);
    }
}

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
