//! The engine thread a Python thread hands its calls to.
//!
//! A call runs off the calling thread so that thread can wait with the GIL released and still
//! answer Ctrl-C (only the main thread runs Python's signal handlers, and it must poll for
//! them). Starting a thread per call cost 35-50 µs against 12 µs for a whole small
//! `read_file` (measured on the development machine), so each Python thread keeps one
//! long-lived engine thread. Hand-written because a shared pool would make a quick call wait
//! behind a slow one of another Python thread; one thread per caller keeps calls from different
//! Python threads as concurrent as before. A caller whose engine thread is still busy (a call
//! it stopped waiting for after Ctrl-C) gets a new one; the old one ends after that call.

use std::cell::RefCell;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::Sender;

/// A call, ready to run.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

struct CallThread {
    jobs: Sender<Job>,
    /// True from the hand-over of a job until it has run.
    busy: Arc<AtomicBool>,
}

thread_local! {
    static CALL_THREAD: RefCell<Option<CallThread>> = const { RefCell::new(None) };
}

fn start() -> io::Result<CallThread> {
    let (jobs, queue) = crossbeam_channel::unbounded::<Job>();
    let busy = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&busy);
    std::thread::Builder::new()
        .name("ripsight-call".into())
        .spawn(move || {
            // Ends when the Python thread's handle is dropped (thread exit, or replaced).
            for job in queue {
                job();
                flag.store(false, Ordering::Release);
            }
        })?;
    Ok(CallThread { jobs, busy })
}

fn hand_over(thread: &CallThread, job: Job) -> io::Result<()> {
    thread.busy.store(true, Ordering::Release);
    thread
        .jobs
        .send(job)
        .map_err(|_| io::Error::other("the engine thread has ended"))
}

/// Runs `job` on this Python thread's engine thread (started on first use).
pub(crate) fn submit(job: Job) -> io::Result<()> {
    let mut job = Some(job);
    let handed = CALL_THREAD.try_with(|slot| -> io::Result<()> {
        let mut slot = slot.borrow_mut();
        let idle = slot
            .as_ref()
            .is_some_and(|thread| !thread.busy.load(Ordering::Acquire));
        if !idle {
            *slot = Some(start()?);
        }
        match (slot.as_ref(), job.take()) {
            (Some(thread), Some(job)) => hand_over(thread, job),
            _ => Err(io::Error::other("no engine thread")),
        }
    });
    match (handed, job) {
        (Ok(result), _) => result,
        // This thread is exiting (its thread-locals are gone): a thread for this call alone.
        (Err(_), Some(job)) => hand_over(&start()?, job),
        (Err(_), None) => Err(io::Error::other("no engine thread")),
    }
}
