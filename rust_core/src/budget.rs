//! When a call must stop: its time budget and its cancellation token.
//!
//! Every loop of the engine that can run long (the walk, per entry; a search, per buffer the
//! searcher refills; a read, per chunk) asks [`Deadline::expired`]. A spent budget ends the call
//! with the results so far, marked incomplete; a cancelled token ends it with
//! [`crate::error::CoreError::Cancelled`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A flag another thread sets to stop a running call (Ctrl-C in Python, a client's
/// `notifications/cancelled` in the MCP server). Clones share the flag.
#[cfg_attr(
    feature = "python",
    pyo3::pyclass(frozen, skip_from_py_object, module = "ripsight._core")
)]
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    /// Files the searches holding this token have searched so far (read while they run).
    searched: Arc<AtomicU64>,
    /// Set by [`CancelToken::start_clock`]: the calls' budgets run from here.
    since: Option<Instant>,
}

impl CancelToken {
    /// A token nobody has cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Asks every call holding this token to stop. Cannot be undone.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// True once [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// Counts one more file searched by a call holding this token.
    pub fn count_searched(&self) {
        self.searched.fetch_add(1, Ordering::Relaxed);
    }

    /// Files searched so far by the calls holding this token (another thread may read it
    /// while they run: a progress report).
    pub fn files_searched(&self) -> u64 {
        self.searched.load(Ordering::Relaxed)
    }

    /// A token sharing this one's flag and count whose calls count their time budget from now
    /// rather than from their own start: calls made one after the other (the roots of one
    /// search) share one budget.
    pub fn start_clock(&self) -> CancelToken {
        CancelToken {
            since: Some(Instant::now()),
            ..self.clone()
        }
    }

    /// When the calls holding this token count their time budget from, if not their start.
    pub fn clock_started(&self) -> Option<Instant> {
        self.since
    }
}

/// A point in time after which a walk or search stops and returns what it has, marked
/// incomplete, plus the call's cancellation token.
#[derive(Clone, Debug)]
pub struct Deadline {
    start: Instant,
    budget: Duration,
    cancel: CancelToken,
}

impl Deadline {
    /// Starts the clock now, with a token nobody else holds.
    pub fn start(budget: Duration) -> Deadline {
        Deadline::with_cancel(budget, CancelToken::new())
    }

    /// Starts the clock when `cancel`'s clock started ([`CancelToken::start_clock`]), else
    /// now; the call also stops once `cancel` is cancelled.
    pub fn on_clock_of(budget: Duration, cancel: &CancelToken) -> Deadline {
        Deadline {
            start: cancel.clock_started().unwrap_or_else(Instant::now),
            budget,
            cancel: cancel.clone(),
        }
    }

    /// Starts the clock now; the call also stops once `cancel` is cancelled.
    pub fn with_cancel(budget: Duration, cancel: CancelToken) -> Deadline {
        Deadline {
            start: Instant::now(),
            budget,
            cancel,
        }
    }

    /// True once the budget is spent or the call was cancelled.
    pub fn expired(&self) -> bool {
        self.cancel.is_cancelled() || self.start.elapsed() >= self.budget
    }

    /// True when the call was cancelled (rather than out of time).
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Counts one more file searched on the call's token ([`CancelToken::files_searched`]).
    pub fn count_searched(&self) {
        self.cancel.count_searched();
    }

    /// A deadline with the same token that ends at the later of this one's end and `at_least`
    /// from now.
    pub fn extended(&self, at_least: Duration) -> Deadline {
        let left = self.budget.saturating_sub(self.start.elapsed());
        Deadline::with_cancel(left.max(at_least), self.cancel.clone())
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_clone_expires_the_deadline() {
        let token = CancelToken::new();
        let deadline = Deadline::with_cancel(Duration::from_secs(3600), token.clone());
        assert!(!deadline.expired() && !deadline.cancelled());
        token.cancel();
        assert!(deadline.expired() && deadline.cancelled());
    }

    #[test]
    fn a_spent_budget_expires_without_cancelling() {
        let deadline = Deadline::start(Duration::ZERO);
        assert!(deadline.expired() && !deadline.cancelled());
    }
}
