//! Calls the index's builds give way to (issue 37, item 8): while a call that the cold engine
//! answers runs during a build, the build's threads wait between two directories (the walk),
//! two files (the n-gram reads) or two parses (the symbol index), so the call has the machine
//! a cold call would have had and answers as completely within its time budget.
//!
//! The count is the process's: every index of the process gives way to any such call (an MCP
//! server with several roots builds them all on the same cores).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Calls running that the builds give way to.
static HOLDS: AtomicUsize = AtomicUsize::new(0);

/// How often a build that gives way looks again.
const LOOK_AGAIN: Duration = Duration::from_millis(5);

/// A call's hold on the builds; dropping it lets them go on.
pub struct IndexHold(());

impl IndexHold {
    pub(super) fn take() -> IndexHold {
        HOLDS.fetch_add(1, Ordering::SeqCst);
        IndexHold(())
    }
}

impl Drop for IndexHold {
    fn drop(&mut self) {
        HOLDS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits while a call holds the builds, or until `stop` is set (`None`: a walk, which is not
/// stopped halfway).
pub(super) fn give_way(stop: Option<&AtomicBool>) {
    while HOLDS.load(Ordering::Relaxed) > 0 && !stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        std::thread::sleep(LOOK_AGAIN);
    }
}
