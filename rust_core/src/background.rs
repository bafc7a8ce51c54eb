//! Background work gives way to calls (SPEC §2.9): index builds, symbol builds and merges run
//! at the lowest CPU priority the platform offers, and pause between files while a call runs.
//!
//! Two mechanisms, because neither is enough alone on a machine with few cores:
//! - **Priority.** A background thread lowers itself once, at its start ([`lower_this_thread`]);
//!   the threads it starts inherit it. On Linux that is `SCHED_IDLE`: the thread runs only on a
//!   core nothing else wants, and, with no I/O priority set explicitly, the kernel gives such a
//!   thread the idle I/O class as well. Elsewhere the platform's lowest thread priority. The
//!   `thread-priority` crate makes the calls (`pthread_setschedparam`, `setpriority`,
//!   `SetThreadPriority`), so this crate keeps its `unsafe` to one module (`index/memory.rs`).
//!   Worker processes that parse for a background build are started with [`BACKGROUND_VARIABLE`]
//!   in their environment and lower themselves the same way: a process cannot raise itself
//!   back out of `SCHED_IDLE` without privileges, so background parses have workers of their
//!   own, and a call's parses never wait behind an idle-priority process.
//! - **Giving way.** Priority does not stop a background thread from holding a core through a
//!   file's read or parse when a call starts, nor from filling the page cache and the memory
//!   bus. Every call marks itself running ([`call_started`]); background loops call
//!   [`give_way`] between files and wait while any call runs. A call therefore shares the
//!   machine with at most the files already in progress when it started.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// In a worker process's environment, set to `1`: the worker serves background work and lowers
/// its own priority before it serves.
pub const BACKGROUND_VARIABLE: &str = "RIPSIGHT_WORKER_BACKGROUND";

/// How often a waiting background thread looks at its stop condition.
const STOP_CHECK: Duration = Duration::from_millis(20);

/// The longest one wait lasts: calls that follow each other with no gap (a loop, several
/// clients) would otherwise hold a build back for ever. Past it the background thread goes on
/// with one more file, at its low priority, and waits again.
pub const MAX_WAIT: Duration = Duration::from_millis(500);

/// Calls running now, in this process.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
/// Woken when the last running call ends.
static QUIET: Condvar = Condvar::new();
static QUIET_LOCK: Mutex<()> = Mutex::new(());

/// A running call: background work waits while one lives.
#[derive(Debug)]
#[must_use = "the call counts as running only while its mark lives"]
pub struct CallMark(());

/// Marks a call as running until the mark is dropped.
pub fn call_started() -> CallMark {
    RUNNING.fetch_add(1, Ordering::SeqCst);
    CallMark(())
}

impl Drop for CallMark {
    fn drop(&mut self) {
        if RUNNING.fetch_sub(1, Ordering::SeqCst) == 1 {
            // Under the lock: a background thread between its look at `RUNNING` and its wait
            // holds it, so this wake-up cannot fall between the two.
            let _quiet = QUIET_LOCK.lock().unwrap_or_else(|e| e.into_inner());
            QUIET.notify_all();
        }
    }
}

/// How many calls are running now.
pub fn calls_running() -> usize {
    RUNNING.load(Ordering::SeqCst)
}

/// Waits while any call runs, at most [`MAX_WAIT`], or until `stopped` says so (looked at every
/// few milliseconds); returns at once when no call runs. Background loops call it between files.
pub fn give_way(stopped: &dyn Fn() -> bool) {
    if RUNNING.load(Ordering::SeqCst) == 0 {
        return;
    }
    let start = Instant::now();
    let mut quiet = QUIET_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    while RUNNING.load(Ordering::SeqCst) > 0 && !stopped() && start.elapsed() < MAX_WAIT {
        quiet = QUIET
            .wait_timeout(quiet, STOP_CHECK)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// Lowers the calling thread (and the threads it starts later) to the platform's lowest
/// priority; `false` when the system refused (the work then runs at the priority it had).
pub fn lower_this_thread() -> bool {
    use thread_priority::{ThreadPriority, set_current_thread_priority};
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id, thread_schedule_policy,
        };
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        // The nice value it also sets may be refused (a thread already nicer than the
        // policy's default): the policy is what counts, so it is read back.
        let _ = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle);
        if thread_schedule_policy().is_ok_and(|policy| policy == idle) {
            return true;
        }
    }
    set_current_thread_priority(ThreadPriority::Min).is_ok()
}

/// Lowers this process's priority when its environment asks ([`BACKGROUND_VARIABLE`]): a
/// worker calls it once, before it serves.
pub fn lower_if_asked() -> bool {
    std::env::var_os(BACKGROUND_VARIABLE).is_some_and(|v| v == "1") && lower_this_thread()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// `RUNNING` is the process's: the tests that hold marks run one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn give_way_waits_until_the_last_call_ends() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let first = call_started();
        let second = call_started();
        let (done, finished) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let started = Instant::now();
            give_way(&|| false);
            let _ = done.send((calls_running(), started.elapsed()));
        });
        std::thread::sleep(Duration::from_millis(100));
        drop(first);
        std::thread::sleep(Duration::from_millis(50));
        drop(second);
        let (running, elapsed) = finished
            .recv_timeout(Duration::from_secs(30))
            .expect("the waiter returns");
        waiter.join().expect("the waiter ends");
        // It returned once the last call ended (or, on a machine slow enough, at its bound):
        // never while a call still ran and its bound was not reached.
        assert!(running == 0 || elapsed >= MAX_WAIT, "{running} {elapsed:?}");
    }

    #[test]
    fn give_way_waits_no_longer_than_its_bound() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let _running = call_started();
        let started = Instant::now();
        give_way(&|| false);
        // Calls that never stop leave the background thread one file at a time, not none.
        assert!(started.elapsed() >= MAX_WAIT);
    }

    #[test]
    fn give_way_ends_when_stopped_and_at_once_when_idle() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        give_way(&|| panic!("no call runs: the stop condition is not even looked at"));
        let _running = call_started();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (done, finished) = mpsc::channel();
        let flag = std::sync::Arc::clone(&stop);
        let waiter = std::thread::spawn(move || {
            give_way(&|| flag.load(Ordering::SeqCst));
            let _ = done.send(());
        });
        assert!(finished.recv_timeout(Duration::from_millis(100)).is_err());
        stop.store(true, Ordering::SeqCst);
        assert_eq!(finished.recv_timeout(Duration::from_secs(30)), Ok(()));
        waiter.join().expect("the waiter ends");
    }

    /// The scheduling policy of the calling thread, from `/proc` (field 41 of its `stat`).
    #[cfg(target_os = "linux")]
    fn policy_of_this_thread() -> u32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("/proc is mounted");
        // The command name (field 2) is in parentheses and may hold spaces: count after it.
        let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
        after
            .split(' ')
            .nth(41 - 3)
            .and_then(|field| field.parse().ok())
            .expect("the policy field")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lowered_thread_and_its_threads_run_at_idle_policy() {
        const SCHED_OTHER: u32 = 0;
        const SCHED_IDLE: u32 = 5;
        let policies = std::thread::spawn(|| {
            let before = policy_of_this_thread();
            let lowered = lower_this_thread();
            let after = policy_of_this_thread();
            let child = std::thread::spawn(policy_of_this_thread)
                .join()
                .expect("the child ends");
            (before, lowered, after, child)
        })
        .join()
        .expect("the thread ends");
        assert_eq!(policies, (SCHED_OTHER, true, SCHED_IDLE, SCHED_IDLE));
        // The test's own thread is untouched.
        assert_eq!(policy_of_this_thread(), SCHED_OTHER);
    }
}
