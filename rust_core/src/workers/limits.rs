//! The limits of a worker process: its pool's to give, the worker's to apply.
//!
//! A pool starts every worker with its [`WorkerLimits`] in the environment
//! ([`MEMORY_VARIABLE`], [`CPU_VARIABLE`]). The worker caps its own address space
//! (`RLIMIT_AS`) and turns core dumps off before it loads its parser, so the parser's C code runs
//! under the cap from its first allocation (the engine cannot set it for the child: a `pre_exec`
//! hook is unsafe code, and `preexec_fn` is unsafe in a threaded Python server), and before each
//! request it sets its CPU limit (`RLIMIT_CPU`, soft) to what it has used plus the request's
//! seconds: the kernel's SIGXCPU ends a parse that spins. The pool's wall-clock deadline covers
//! the rest. A worker written in Rust applies them with [`apply_memory_limit`] and
//! [`renew_cpu_limit`]; `_pdf_worker.py` does the same with Python's `resource`.

use std::io;

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use rustix::time::{ClockId, clock_gettime};

/// The environment variable that gives a worker its address space, in bytes.
pub const MEMORY_VARIABLE: &str = "RIPSIGHT_WORKER_MEMORY_BYTES";
/// The environment variable that gives a worker its CPU seconds a request.
pub const CPU_VARIABLE: &str = "RIPSIGHT_WORKER_CPU_SECONDS";

/// What a worker may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerLimits {
    /// Address space of the process, in bytes (`RLIMIT_AS`).
    pub memory_bytes: u64,
    /// CPU seconds one request may use (`RLIMIT_CPU`, set afresh for each).
    pub cpu_seconds: u64,
}

impl WorkerLimits {
    /// The environment a worker is started with that gives it these limits.
    pub fn environment(&self) -> [(&'static str, String); 2] {
        [
            (MEMORY_VARIABLE, self.memory_bytes.to_string()),
            (CPU_VARIABLE, self.cpu_seconds.to_string()),
        ]
    }

    /// The limits this process was started with, each one missing or unreadable taken from
    /// `otherwise` (a worker run by hand, outside a pool).
    pub fn from_environment(otherwise: WorkerLimits) -> WorkerLimits {
        let read = |name: &str| std::env::var(name).ok()?.parse::<u64>().ok();
        WorkerLimits {
            memory_bytes: read(MEMORY_VARIABLE).unwrap_or(otherwise.memory_bytes),
            cpu_seconds: read(CPU_VARIABLE).unwrap_or(otherwise.cpu_seconds),
        }
    }
}

/// Caps this process's address space and turns core dumps off. Not every system enforces
/// `RLIMIT_AS` (macOS does not): there the deadline still holds.
pub fn apply_memory_limit(memory_bytes: u64) -> io::Result<()> {
    let _ = setrlimit(
        Resource::As,
        Rlimit {
            current: Some(memory_bytes),
            maximum: Some(memory_bytes),
        },
    );
    setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )
    .map_err(io::Error::from)
}

/// Lets the coming request use `cpu_seconds` more CPU seconds (soft limit: the kernel's SIGXCPU
/// ends the process past it).
pub fn renew_cpu_limit(cpu_seconds: u64) {
    let used = clock_gettime(ClockId::ProcessCPUTime);
    let used = u64::try_from(used.tv_sec).unwrap_or(0) + 1;
    let current = getrlimit(Resource::Cpu);
    let mut soft = used + cpu_seconds;
    if let Some(hard) = current.maximum {
        soft = soft.min(hard);
    }
    let _ = setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(soft),
            maximum: current.maximum,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_go_through_the_environment_and_fall_back_one_by_one() {
        let given = WorkerLimits {
            memory_bytes: 5 << 20,
            cpu_seconds: 7,
        };
        let names: Vec<&str> = given.environment().iter().map(|(name, _)| *name).collect();
        assert_eq!(names, [MEMORY_VARIABLE, CPU_VARIABLE]);
        assert_eq!(given.environment()[0].1, "5242880");
        // The test process has neither variable (no pool started it).
        assert_eq!(WorkerLimits::from_environment(given), given);
    }
}
