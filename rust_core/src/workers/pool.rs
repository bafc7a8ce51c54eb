//! Worker processes on the engine's side: started from a command, fed one request at a time,
//! waited for with a wall-clock deadline per job, killed when it passes.
//!
//! Why long-lived workers rather than a process per file: starting one (an interpreter that
//! loads the engine, or PDFium) costs tens of milliseconds, a warm one answers a small file in
//! well under one. A worker that answers goes back to the pool (at most
//! [`PoolOptions::max_idle`] wait there); one that overran its deadline, died or said something
//! malformed is killed and reaped, and the next request starts a fresh one. At most
//! [`PoolOptions::max_workers`] work at once; a request that finds them all busy waits for one
//! until its own deadline.
//!
//! The exchange is one thread's: both pipes are non-blocking and `poll` waits on whichever is
//! ready, so a worker that stops reading its input cannot block the engine, and the deadline
//! holds to the millisecond whatever the worker does.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::io::Errno;

use super::frame::LENGTH_BYTES;
use super::limits::WorkerLimits;
use crate::background;

/// Bytes moved per read or write of a pipe.
const CHUNK_BYTES: usize = 1 << 16;
/// After a kill, how long the engine waits to reap the process.
const REAP_TIME: Duration = Duration::from_secs(1);
/// The largest answer frame taken from a worker.
const MAX_ANSWER_BYTES: u64 = 256 << 20;

/// Why an exchange with a worker gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// No answer by the deadline: the worker was killed.
    Deadline,
    /// The worker ended (or broke the protocol) without an answer; its exit status when known
    /// (a negative number is the signal that ended it).
    Crashed(Option<i32>),
    /// Every worker stayed busy until the deadline.
    Busy,
    /// No worker could be started (the command failed, or the process never said it was
    /// ready).
    Unavailable(String),
}

/// How to start a worker, and how many to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    /// The program and its arguments.
    pub command: Vec<OsString>,
    /// Workers at work at once, at most.
    pub max_workers: usize,
    /// Workers kept waiting between requests, at most.
    pub max_idle: usize,
    /// Time a new worker has to say it is ready.
    pub start_time: Duration,
    /// The first bytes of a worker's first frame (its ready frame): a process that says
    /// anything else is not a worker of this pool.
    pub ready: &'static [u8],
    /// What each worker may use: given to it in its environment, applied by the worker.
    pub limits: WorkerLimits,
    /// Workers that serve background work: started with [`background::BACKGROUND_VARIABLE`],
    /// they lower their own priority before they serve.
    pub background: bool,
}

/// The pool of one worker command.
#[derive(Debug)]
pub struct Pool {
    options: PoolOptions,
    state: Mutex<State>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    idle: Vec<Worker>,
    running: usize,
    /// Processes started since the pool was made (for the tests and the status).
    started: u64,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pool {
    /// A pool that starts workers with `options.command` when it needs them.
    pub fn new(options: PoolOptions) -> Pool {
        Pool {
            options,
            state: Mutex::new(State::default()),
            freed: Condvar::new(),
        }
    }

    /// The options it was made with.
    pub fn options(&self) -> &PoolOptions {
        &self.options
    }

    /// Worker processes started so far.
    pub fn started(&self) -> u64 {
        lock(&self.state).started
    }

    /// Sends `request` (one frame's payload) to a worker and returns its answer frame's
    /// payload. Waiting for a free worker ends at `deadline`; the answer is waited for
    /// `answer_time` from the moment the request goes to a ready worker (a new worker's start
    /// has its own time, [`PoolOptions::start_time`]).
    pub fn exchange(
        &self,
        request: &[u8],
        deadline: Instant,
        answer_time: Duration,
    ) -> Result<Vec<u8>, Stopped> {
        self.exchange_within(&[request], deadline, answer_time, None)
            .map_err(|(stopped, _)| stopped)
    }

    /// Sends one frame made of `request`'s parts (so that a large source is not copied into
    /// it) to a worker and returns its answer, the whole of it by `end`: waiting for a free
    /// worker, starting one (within [`PoolOptions::start_time`] too) and its answer. A start
    /// cut short by `end` is [`Stopped::Deadline`].
    pub fn exchange_by(&self, request: &[&[u8]], end: Instant) -> Result<Vec<u8>, Stopped> {
        self.exchange_measured(request, end)
            .map_err(|(stopped, _)| stopped)
    }

    /// [`Pool::exchange_by`], and when the worker gave no answer, its peak resident memory in
    /// bytes as it was when the engine killed it (Linux: `VmHWM`; `None` for a worker that
    /// ended by itself or never started, and elsewhere).
    pub fn exchange_measured(
        &self,
        request: &[&[u8]],
        end: Instant,
    ) -> Result<Vec<u8>, (Stopped, Option<u64>)> {
        let answer_time = end.saturating_duration_since(Instant::now());
        self.exchange_within(request, end, answer_time, Some(end))
    }

    /// Closes the idle workers (the next request starts a fresh one); benchmarks and tests use
    /// it to measure a start, or to reap every worker before they count.
    pub fn close_idle(&self) {
        let idle = std::mem::take(&mut lock(&self.state).idle);
        for worker in idle {
            worker.close();
        }
    }

    fn exchange_within(
        &self,
        request: &[&[u8]],
        deadline: Instant,
        answer_time: Duration,
        end: Option<Instant>,
    ) -> Result<Vec<u8>, (Stopped, Option<u64>)> {
        let idle = self
            .take_slot(deadline)
            .map_err(|stopped| (stopped, None))?;
        // Gives the slot back however the exchange ends (a panic included).
        let slot = Slot(self);
        let result = self.exchange_in_slot(idle, request, answer_time, end);
        let mut state = lock(&self.state);
        let (answer, surplus) = match result {
            Ok((answer, worker)) => {
                // A worker that answered waits for the next request, unless enough do.
                let surplus = if state.idle.len() < self.options.max_idle {
                    state.idle.push(worker);
                    None
                } else {
                    Some(worker)
                };
                (Ok(answer), surplus)
            }
            Err(stopped) => (Err(stopped), None),
        };
        drop(state);
        drop(slot);
        if let Some(worker) = surplus {
            worker.close();
        }
        answer
    }

    /// Waits (until `deadline`) for a slot; returns an idle worker when one is waiting.
    fn take_slot(&self, deadline: Instant) -> Result<Option<Worker>, Stopped> {
        let mut state = lock(&self.state);
        while state.running >= self.options.max_workers.max(1) {
            let now = Instant::now();
            if now >= deadline {
                return Err(Stopped::Busy);
            }
            state = self
                .freed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        state.running += 1;
        // An idle worker that ended meanwhile (killed from outside, out of memory) is passed
        // over: the request goes to a live one, or to a new one.
        while let Some(mut worker) = state.idle.pop() {
            if worker.is_alive() {
                return Ok(Some(worker));
            }
        }
        Ok(None)
    }

    /// One exchange in a held slot, with the worker that answered (a worker that did not is
    /// killed and reaped here).
    fn exchange_in_slot(
        &self,
        idle: Option<Worker>,
        request: &[&[u8]],
        answer_time: Duration,
        end: Option<Instant>,
    ) -> Result<(Vec<u8>, Worker), (Stopped, Option<u64>)> {
        let mut worker = match idle {
            Some(worker) => worker,
            None => {
                lock(&self.state).started += 1;
                Worker::start(&self.options, end).map_err(|stopped| (stopped, None))?
            }
        };
        let answer_by = Instant::now() + answer_time;
        match worker.exchange(request, end.map_or(answer_by, |end| end.min(answer_by))) {
            Ok(answer) => Ok((answer, worker)),
            Err(stopped) => {
                // Read before the kill: the process's memory is gone once it has ended.
                let peak = worker.peak_rss_bytes();
                Err((worker.stop(stopped), peak))
            }
        }
    }
}

/// A held place among the workers at work; dropping it frees the place.
struct Slot<'pool>(&'pool Pool);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).running -= 1;
        self.0.freed.notify_one();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close_idle();
    }
}

/// One worker process.
#[derive(Debug)]
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

impl Worker {
    /// Starts a worker and waits for its ready frame (at most its start time, and not past
    /// `end`).
    fn start(options: &PoolOptions, end: Option<Instant>) -> Result<Worker, Stopped> {
        let Some((program, arguments)) = options.command.split_first() else {
            return Err(Stopped::Unavailable("the worker command is empty".into()));
        };
        let mut child = Command::new(program)
            .args(arguments)
            .envs(options.limits.environment())
            .envs(
                options
                    .background
                    .then_some((background::BACKGROUND_VARIABLE, "1")),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own process group: a Ctrl-C meant for the caller's terminal does not reach it.
            .process_group(0)
            .spawn()
            .map_err(|e| {
                Stopped::Unavailable(format!(
                    "{} could not be started: {e}",
                    program.to_string_lossy()
                ))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Stopped::Unavailable(
                "the worker's pipes were not made".into(),
            ));
        };
        let mut worker = Worker {
            child,
            stdin: Some(stdin),
            stdout,
        };
        let ready_by = Instant::now() + options.start_time;
        let cut = end.filter(|end| *end < ready_by);
        let ready = worker
            .set_nonblocking()
            .map_err(|e| Stopped::Unavailable(format!("the worker's pipes: {e}")))
            .and_then(|()| worker.transfer(&[], cut.unwrap_or(ready_by)));
        match ready {
            Ok(frame) if frame.starts_with(options.ready) => Ok(worker),
            Ok(_) => {
                worker.stop(Stopped::Crashed(None));
                Err(Stopped::Unavailable(format!(
                    "the worker command did not start a worker that says {:?}",
                    String::from_utf8_lossy(options.ready).trim_end()
                )))
            }
            // The job's own deadline passed while the worker started.
            Err(Stopped::Deadline) if cut.is_some() => Err(worker.stop(Stopped::Deadline)),
            Err(stopped) => {
                let stopped = worker.stop(stopped);
                Err(Stopped::Unavailable(format!(
                    "the worker did not start: {}",
                    match stopped {
                        Stopped::Deadline => format!(
                            "it was not ready within {} s",
                            options.start_time.as_secs_f64()
                        ),
                        Stopped::Crashed(Some(code)) => format!("it exited with status {code}"),
                        other => format!("{other:?}"),
                    }
                )))
            }
        }
    }

    /// The process's peak resident memory in bytes (`VmHWM` in `/proc/<pid>/status`), while it
    /// runs; `None` once it has ended (a zombie keeps no memory figures), or off Linux.
    fn peak_rss_bytes(&self) -> Option<u64> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// Whether the process still runs (one that ended is reaped here).
    fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn set_nonblocking(&self) -> io::Result<()> {
        for fd in [
            self.stdin.as_ref().map(AsFd::as_fd),
            Some(self.stdout.as_fd()),
        ]
        .into_iter()
        .flatten()
        {
            let flags = fcntl_getfl(fd)?;
            fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
        }
        Ok(())
    }

    /// Sends one frame (its payload in parts) and reads one, by `deadline`.
    fn exchange(&mut self, request: &[&[u8]], deadline: Instant) -> Result<Vec<u8>, Stopped> {
        let total: usize = request.iter().map(|part| part.len()).sum();
        let length = (total as u64).to_be_bytes();
        let mut parts: Vec<&[u8]> = vec![&length];
        parts.extend_from_slice(request);
        self.transfer(&parts, deadline)
    }

    /// Writes `parts` and reads one frame, both by `deadline`.
    fn transfer(&mut self, parts: &[&[u8]], deadline: Instant) -> Result<Vec<u8>, Stopped> {
        let mut parts: Vec<&[u8]> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
        let mut received: Vec<u8> = Vec::new();
        let mut expected: Option<usize> = None;
        let mut buffer = vec![0u8; CHUNK_BYTES];
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(Stopped::Deadline);
            }
            let left = Timespec::try_from(deadline - now).unwrap_or(Timespec {
                tv_sec: 1,
                tv_nsec: 0,
            });
            let stdin = self.stdin.as_ref().map(AsFd::as_fd);
            let (writable, readable) = wait(
                stdin.filter(|_| !parts.is_empty()),
                self.stdout.as_fd(),
                &left,
            )?;
            if writable && let Some(stdin) = stdin {
                match rustix::io::write(stdin, &parts[0][..parts[0].len().min(CHUNK_BYTES)]) {
                    Ok(written) => {
                        parts[0] = &parts[0][written..];
                        if parts[0].is_empty() {
                            parts.remove(0);
                        }
                    }
                    Err(Errno::AGAIN | Errno::INTR) => {}
                    Err(_) => return Err(Stopped::Crashed(None)),
                }
            }
            if readable {
                match rustix::io::read(self.stdout.as_fd(), &mut buffer) {
                    Ok(0) => return Err(Stopped::Crashed(None)),
                    Ok(n) => received.extend_from_slice(&buffer[..n]),
                    Err(Errno::AGAIN | Errno::INTR) => {}
                    Err(_) => return Err(Stopped::Crashed(None)),
                }
                if expected.is_none() && received.len() >= LENGTH_BYTES {
                    let mut length = [0u8; LENGTH_BYTES];
                    length.copy_from_slice(&received[..LENGTH_BYTES]);
                    let length = u64::from_be_bytes(length);
                    if length > MAX_ANSWER_BYTES {
                        return Err(Stopped::Crashed(None));
                    }
                    expected = usize::try_from(length).ok().map(|l| l + LENGTH_BYTES);
                }
                if let Some(total) = expected
                    && received.len() >= total
                {
                    if received.len() > total || !parts.is_empty() {
                        // More than one frame, or an answer before the request was read:
                        // not a worker this engine can trust.
                        return Err(Stopped::Crashed(None));
                    }
                    received.drain(..LENGTH_BYTES);
                    return Ok(received);
                }
            }
        }
    }

    /// Kills the process, reaps it (waiting at most [`REAP_TIME`]), and returns what to report:
    /// a worker that died by itself reports its exit status, and one ended by the kernel's CPU
    /// limit (SIGXCPU) is reported as past its deadline.
    fn stop(mut self, stopped: Stopped) -> Stopped {
        let _ = self.child.kill();
        self.stdin = None;
        let until = Instant::now() + REAP_TIME;
        let mut status = None;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(exit)) => {
                    status = exit.code().or_else(|| exit.signal().map(|s| -s));
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        match (stopped, status) {
            (Stopped::Crashed(_), Some(code))
                if code == -(rustix::process::Signal::XCPU.as_raw()) =>
            {
                Stopped::Deadline
            }
            (Stopped::Crashed(_), status) => Stopped::Crashed(status),
            (other, _) => other,
        }
    }

    /// Closes its input (an idle worker then exits by itself) and reaps it, killing it when it
    /// has not ended within [`REAP_TIME`].
    fn close(mut self) {
        self.stdin = None;
        let until = Instant::now() + REAP_TIME;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.try_wait();
    }
}

/// Waits for `stdin` to take bytes (when given) or `stdout` to have some, at most `left`.
fn wait(
    stdin: Option<BorrowedFd<'_>>,
    stdout: BorrowedFd<'_>,
    left: &Timespec,
) -> Result<(bool, bool), Stopped> {
    let mut fds = vec![PollFd::new(&stdout, PollFlags::IN)];
    if let Some(stdin) = &stdin {
        fds.push(PollFd::new(stdin, PollFlags::OUT));
    }
    match poll(&mut fds, Some(left)) {
        Ok(_) => {}
        Err(Errno::INTR) => return Ok((false, false)),
        Err(_) => return Err(Stopped::Crashed(None)),
    }
    let out = fds[0].revents();
    let readable = out.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR);
    let writable = fds.get(1).is_some_and(|fd| {
        fd.revents()
            .intersects(PollFlags::OUT | PollFlags::HUP | PollFlags::ERR)
    });
    Ok((writable, readable))
}
