//! The limits an outline worker starts with: what its pool hands the child process, and what
//! the child falls back on when it was started without them ([`super::worker::serve_stdio`]).

use super::{WORKER_CPU_SECONDS, WORKER_MEMORY_BYTES};
use crate::workers::limits::WorkerLimits;

/// What an outline worker may use.
pub fn worker_limits() -> WorkerLimits {
    WorkerLimits {
        memory_bytes: WORKER_MEMORY_BYTES,
        cpu_seconds: WORKER_CPU_SECONDS,
    }
}
