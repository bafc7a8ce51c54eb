//! What the index's background jobs share, the n-gram index's (`build`) and the symbol
//! index's (`symbol_build`) alike: when a merge is due (the one place that decides it, asked
//! by the call that starts one and by the merge itself once its files are old enough), when it
//! becomes a rebuild, how long a job that could not run waits before the next try, and the
//! wait for the files a merge reads to be old enough to be vouched for by their identities.
//!
//! A merge is due for two reasons:
//! - enough files changed since the file was written ([`REINDEX_AFTER_CHANGED_FILES`],
//!   [`REFRESH_SYMBOLS_AFTER_CHANGED_FILES`]);
//! - the file in use records files it does not vouch for (changed within the trust margin
//!   before it was written) that are still as recorded (`unvouched`): no process can take
//!   their records, so each searches or parses them directly at every call until a merge reads
//!   them again, now old enough to be recorded as vouched for. Without this, an index built on
//!   a tree written the moment before never became complete, however often it was loaded.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::live::{Live, Shared};
use super::table::{now_ns, vouches};

/// Files a merge is started for: when this many files have changed since the base, the next
/// call starts a background merge of them into a new base.
pub const REINDEX_AFTER_CHANGED_FILES: usize = 512;

/// Files a symbol merge is started for: when the symbol index's overlay (files with a parser
/// changed or new since its file, parsed cold by the calls that need them) has grown by this
/// many, the next call on it starts a background merge of them into a new symbol file.
pub const REFRESH_SYMBOLS_AFTER_CHANGED_FILES: usize = 256;

/// A merge rebuilds instead when this share (percent) of the new base's sections would belong
/// to files that changed since (dead documents and the files read again).
pub(super) const REBUILD_FROM_PERCENT: usize = 30;

/// After a job that could not run (another process holds the lock, or the file on disk could
/// not be loaded), no job starts for this long.
pub(super) const RETRY_AFTER: Duration = Duration::from_millis(500);

/// The longest a merge waits for the files it reads to be old enough to be vouched for.
const MAX_AGING_WAIT: Duration = Duration::from_secs(3);

/// Waits (at most [`MAX_AGING_WAIT`], or until the index stops) until a file changed at
/// `newest` is older than the trust margin, so that its identity vouches for it and a merge
/// records it as other processes can take it (the n-gram merge and the symbol merge).
pub(super) fn wait_until_vouched(shared: &Shared, newest: Option<i64>) {
    let waited = Instant::now();
    while newest.is_some_and(|ctime| !vouches_ctime(ctime))
        && waited.elapsed() < MAX_AGING_WAIT
        && !shared.stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether a change time is old enough now to vouch for the contents (see `vouches`).
fn vouches_ctime(ctime_ns: i64) -> bool {
    vouches(
        &crate::boundary::FileIdentity {
            ctime_ns,
            ..Default::default()
        },
        now_ns(),
    )
}

/// Whether the n-gram index's merge is due (see the module's doc); at a call.
pub(super) fn merge_due(live: &mut Live) -> bool {
    changed_enough(live) || live.unvouched.pending(&live.table)
}

/// Whether the n-gram merge that was due still has work once its files are old enough; takes
/// the unvouched files (see `Unvouched::take_ready`).
pub(super) fn merge_still_due(live: &mut Live) -> bool {
    let ready = live.unvouched.take_ready(&live.table);
    ready || changed_enough(live)
}

fn changed_enough(live: &Live) -> bool {
    live.table.unindexed.len() >= live.unindexed_after_build + REINDEX_AFTER_CHANGED_FILES
}

/// Whether the symbol index's merge is due, its overlay holding `overlay` files; at a call.
pub(super) fn symbol_merge_due(live: &mut Live, overlay: usize) -> bool {
    symbols_changed_enough(live, overlay) || live.symbols.unvouched.pending(&live.table)
}

/// [`merge_still_due`] for the symbol index.
pub(super) fn symbol_merge_still_due(live: &mut Live, overlay: usize) -> bool {
    let ready = live.symbols.unvouched.take_ready(&live.table);
    ready || symbols_changed_enough(live, overlay)
}

fn symbols_changed_enough(live: &Live, overlay: usize) -> bool {
    overlay >= live.symbols.overlay_after + REFRESH_SYMBOLS_AFTER_CHANGED_FILES
}
