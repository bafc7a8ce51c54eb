//! The bounds every parse of the outline worker shares: the longest name kept, why a parse
//! gave nothing, and the CPU-time budget that stops a parse and its queries. Below both
//! [`super::parse`] (definitions) and [`super::refs`] (references).

use std::cell::Cell;
use std::ops::ControlFlow;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The longest name kept, in characters (a C++ operator or a Markdown heading can be long).
pub const MAX_NAME_CHARS: usize = 200;
/// Matches a query cursor keeps in flight at most (tree-sitter's own bound on its memory).
pub(super) const MATCH_LIMIT: u32 = 1 << 12;

/// Why a parse gave no outline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParseFailure {
    /// The parse or the query ran past its time and was stopped.
    Timeout,
    /// The grammar or its query could not be loaded (a bug: the tests load every one).
    Grammar(String),
}

/// The time a parse may take, counted in the CPU time of the thread that parses: on a machine
/// busy with other work a parse keeps its whole share (the engine's wall-clock deadline, which
/// kills the worker, bounds the waiting).
pub(super) struct Budget {
    started: Duration,
    time: Duration,
    /// tree-sitter's progress calls since the clock was last read.
    calls: Cell<u32>,
}

/// tree-sitter's progress calls (one per hundred steps of a parse or a query) per reading of
/// the thread's clock, a system call that cost a few percent of a parse when made at each.
const CALLS_PER_CLOCK: u32 = 16;

impl Budget {
    /// A budget of `time` from now.
    pub(super) fn start(time: Duration) -> Budget {
        Budget {
            started: thread_time(),
            time,
            calls: Cell::new(0),
        }
    }

    /// Whether the budget is spent.
    pub(super) fn spent(&self) -> bool {
        thread_time().saturating_sub(self.started) >= self.time
    }

    /// The time left (zero once spent).
    pub(super) fn left(&self) -> Duration {
        self.time
            .saturating_sub(thread_time().saturating_sub(self.started))
    }

    /// tree-sitter's progress answer: go on while the budget lasts, stop once it is spent (a
    /// parse or query stopped so is told by `spent` afterwards: time only grows). The clock is
    /// read at every [`CALLS_PER_CLOCK`]th call.
    pub(super) fn go_on(&self) -> ControlFlow<()> {
        let calls = self.calls.get() + 1;
        self.calls.set(calls % CALLS_PER_CLOCK);
        if calls == CALLS_PER_CLOCK && self.spent() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// The CPU time this thread has used.
pub(super) fn thread_time() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}
