//! A one-shot channel for the answer of one call, from the thread that runs it to the thread
//! that waits for it (the binding's engine thread and its Python caller).
//!
//! The answer sits behind a mutex and a condition variable, so the waiting thread parks in the
//! kernel (a futex) until it is there. A channel's blocking receive (crossbeam's, and the
//! standard library's, which is crossbeam's) spins and then yields the processor a few times
//! before it parks; on a loaded machine each `sched_yield` gave the core to another process for
//! a scheduler slice (435 µs a yield, about 25 yields a small-repository grep, under a load of
//! 12 on two cores: `strace -c`), and the woken thread then waited behind them.

// Only the binding (the `python` feature) waits on answers.
#![cfg_attr(not(feature = "python"), allow(dead_code))]

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub(crate) use crossbeam_channel::RecvTimeoutError;

/// The shared state of one answer.
struct Slot<T> {
    /// The answer once sent, and whether the sender is gone.
    state: Mutex<(Option<T>, bool)>,
    ready: Condvar,
}

/// The engine thread's end of an [`answer`].
pub(crate) struct AnswerSender<T>(Arc<Slot<T>>);

/// The caller's end of an [`answer`].
pub(crate) struct AnswerReceiver<T>(Arc<Slot<T>>);

/// A one-shot channel for a call's answer.
pub(crate) fn answer<T>() -> (AnswerSender<T>, AnswerReceiver<T>) {
    let slot = Arc::new(Slot {
        state: Mutex::new((None, false)),
        ready: Condvar::new(),
    });
    (AnswerSender(Arc::clone(&slot)), AnswerReceiver(slot))
}

impl<T> Slot<T> {
    fn lock(&self) -> MutexGuard<'_, (Option<T>, bool)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> AnswerSender<T> {
    /// Hands `value` to the receiver (kept if it has stopped waiting, then dropped with it).
    pub(crate) fn send(self, value: T) {
        self.0.lock().0 = Some(value);
        self.0.ready.notify_one();
    }
}

impl<T> Drop for AnswerSender<T> {
    fn drop(&mut self) {
        self.0.lock().1 = true;
        self.0.ready.notify_one();
    }
}

impl<T> AnswerReceiver<T> {
    /// The answer, waiting at most `timeout`; `Disconnected` when the sender went without one.
    pub(crate) fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        let mut state = self.0.lock();
        loop {
            if let Some(value) = state.0.take() {
                return Ok(value);
            }
            if state.1 {
                return Err(RecvTimeoutError::Disconnected);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(RecvTimeoutError::Timeout);
            }
            state = match self.0.ready.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_arrives_times_out_or_is_missed() {
        let (sender, receiver) = answer::<u32>();
        assert_eq!(
            receiver.recv_timeout(Duration::from_millis(1)),
            Err(RecvTimeoutError::Timeout)
        );
        let thread = std::thread::spawn(move || sender.send(7));
        assert_eq!(receiver.recv_timeout(Duration::from_secs(10)), Ok(7));
        thread.join().expect("the sender thread");
        let (sender, receiver) = answer::<u32>();
        drop(sender);
        assert_eq!(
            receiver.recv_timeout(Duration::from_secs(10)),
            Err(RecvTimeoutError::Disconnected)
        );
    }
}
