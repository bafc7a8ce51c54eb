//! Threads a call or a build starts for itself, and what happens when the system refuses one.
//!
//! A process or its cgroup at its thread limit (`pids.max`, `RLIMIT_NPROC`) makes thread
//! creation fail with `EAGAIN`, and `std::thread::Scope::spawn` then panics: a search would end
//! as an internal error. [`spawn_or_run`] runs the work on the calling thread instead, a worker
//! fewer and the same answer.

use std::any::Any;
use std::sync::{Arc, Mutex};
use std::thread::{Scope, ScopedJoinHandle};

/// Work handed to [`spawn_or_run`]: running on a thread of its own, or done on the caller's.
pub(crate) enum Started<'scope, T> {
    Thread(ScopedJoinHandle<'scope, Option<T>>),
    Here(Option<T>),
}

impl<T> Started<'_, T> {
    /// Waits for the work: its result, or the panic that ended its thread.
    pub(crate) fn join(self) -> std::thread::Result<T> {
        let done = match self {
            Started::Thread(handle) => handle.join()?,
            Started::Here(done) => done,
        };
        // The work is taken once, by the thread or (its spawn refused) by the caller: always
        // there for whichever side ran.
        done.ok_or_else(|| Box::new("the work was not found") as Box<dyn Any + Send>)
    }
}

/// Runs `work` on a new thread of `scope`, or, when the system refuses the thread, here and now.
pub(crate) fn spawn_or_run<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    work: F,
) -> Started<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    // A refused spawn drops the closure it was given: the work waits in a slot both sides
    // reach, so the caller can still run it.
    let slot = Arc::new(Mutex::new(Some(work)));
    let theirs = Arc::clone(&slot);
    let take = |slot: &Mutex<Option<F>>| slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    match std::thread::Builder::new().spawn_scoped(scope, move || take(&theirs).map(|w| w())) {
        Ok(handle) => Started::Thread(handle),
        Err(_) => Started::Here(take(&slot).map(|work| work())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_once_and_its_result_comes_back() {
        let results: Vec<usize> = std::thread::scope(|scope| {
            let started: Vec<_> = (0..4)
                .map(|i| spawn_or_run(scope, move || i * 10))
                .collect();
            started.into_iter().filter_map(|s| s.join().ok()).collect()
        });
        assert_eq!(results, vec![0, 10, 20, 30]);
    }

    #[test]
    fn a_panic_in_the_work_comes_back_from_join() {
        std::thread::scope(|scope| {
            let started = spawn_or_run(scope, || -> usize { panic!("the work failed") });
            assert!(started.join().is_err());
        });
    }
}
