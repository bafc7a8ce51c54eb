//! What the index's background jobs share, the n-gram index's (`build`) and the symbol
//! index's (`symbol_build`) alike: when a merge becomes a rebuild, how long a job that could not
//! run waits before the next try, and the wait for the files a merge reads to be old enough to
//! be vouched for by their identities.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::live::Shared;
use super::table::{now_ns, vouches};

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
