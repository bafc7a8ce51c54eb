//! The outline worker: the child process that runs tree-sitter, and the wire both sides speak.
//!
//! The engine starts it from a command the embedding program gives (the Python package's is
//! `python -I ripsight/_outline_worker.py`, which calls [`serve_stdio`]) and feeds it requests
//! over its standard input; it answers on its standard output. Before serving, it limits its
//! own address space (`RLIMIT_AS`, [`WORKER_MEMORY_BYTES`](super::WORKER_MEMORY_BYTES), as its
//! pool says: [`crate::workers::limits`]) and turns core dumps off; before each request it sets
//! its CPU limit (`RLIMIT_CPU`) to what it has used plus
//! [`WORKER_CPU_SECONDS`](super::WORKER_CPU_SECONDS), so the kernel ends a parse that spins
//! past everything else. A parse stops itself at its time cap
//! ([`parse::parse`]); the engine's wall-clock deadline and kill cover what is left (a parse
//! stuck in C code, a blocked process). It serves until its standard input closes.
//!
//! Frames, both ways: the workers' wire ([`crate::workers::frame`], the PDF worker's too). The
//! worker's first frame is [`READY`] followed by the engine's version. A request
//! is one frame: an operation byte ([`PARSE`], or [`PARSE_REFERENCES`] for the references as
//! well), the language's wire code, the parse time cap in milliseconds (4 bytes,
//! little-endian), then the file's bytes. The answer is one frame of JSON ([`Answer`]). The
//! operations other than these two exist for the tests that prove a
//! crashing, looping, sleeping or memory-hungry worker costs its caller nothing: the engine
//! sends them only from `_core._outline_worker_fault`.

use std::io::{self, Read, Write};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::workers::frame::{LENGTH_BYTES, read_frame, write_frame};
use crate::workers::limits::{self, WorkerLimits};

use super::lang::Language;
use super::parse::{self, ParseFailure, Parsed};
use super::worker_limits::worker_limits;

/// The first bytes of the worker's first frame.
pub const READY: &[u8] = b"ripsight-outline-worker ";
/// Parse the bytes.
pub const PARSE: u8 = b'P';
/// Parse the bytes, and extract their references too.
pub const PARSE_REFERENCES: u8 = b'R';
/// Test fault: abort (as a crash in C code does).
pub const FAULT_ABORT: u8 = b'A';
/// Test fault: spin on the CPU forever.
pub const FAULT_SPIN: u8 = b'L';
/// Test fault: block forever without using the CPU.
pub const FAULT_SLEEP: u8 = b'S';
/// Test fault: allocate memory until an allocation fails.
pub const FAULT_MEMORY: u8 = b'M';
/// Test fault: exit at once, without an answer.
pub const FAULT_EXIT: u8 = b'X';
/// The largest request frame a worker takes (the source cap plus room).
pub const MAX_REQUEST_BYTES: u64 = super::MAX_SOURCE_BYTES * 4 + 64;

/// The answer to one parse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// The file's definitions.
    Parsed(Parsed),
    /// Why there are none.
    Failed(ParseFailure),
}

/// A parse request's frame.
pub fn request(operation: u8, language: Language, time: Duration, source: &[u8]) -> Vec<u8> {
    let millis = u32::try_from(time.as_millis()).unwrap_or(u32::MAX);
    let mut frame = Vec::with_capacity(source.len() + 6);
    frame.push(operation);
    frame.push(language.code());
    frame.extend_from_slice(&millis.to_le_bytes());
    frame.extend_from_slice(source);
    frame
}

/// Answers one request frame (`None` for a malformed one).
fn answer(frame: &[u8]) -> Option<Answer> {
    let (&operation, rest) = frame.split_first()?;
    let (&language, rest) = rest.split_first()?;
    let millis = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
    let source = rest.get(4..)?;
    match operation {
        PARSE | PARSE_REFERENCES => {
            let language = Language::from_code(language)?;
            let time = Duration::from_millis(u64::from(millis));
            let references = operation == PARSE_REFERENCES;
            Some(
                match parse::parse_with(language, source, time, references) {
                    Ok(parsed) => Answer::Parsed(parsed),
                    Err(failure) => Answer::Failed(failure),
                },
            )
        }
        FAULT_ABORT => std::process::abort(),
        FAULT_SPIN => spin(),
        FAULT_SLEEP => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        FAULT_MEMORY => exhaust_memory(),
        FAULT_EXIT => std::process::exit(0),
        _ => None,
    }
}

/// Spins on the CPU until the process is stopped.
fn spin() -> ! {
    let mut counter: u64 = 0;
    loop {
        counter = std::hint::black_box(counter.wrapping_add(1));
    }
}

/// Allocates and touches memory until an allocation fails (the process then aborts).
fn exhaust_memory() -> ! {
    let mut held: Vec<Vec<u8>> = Vec::new();
    loop {
        held.push(vec![1u8; 64 << 20]);
        std::hint::black_box(&held);
    }
}

/// Serves requests from `input` until it ends: the worker's loop, apart from its limits.
/// `before_each` runs before every request (the CPU limit is set there).
pub fn serve(
    input: &mut impl Read,
    output: &mut impl Write,
    mut before_each: impl FnMut(),
) -> io::Result<()> {
    let mut ready = READY.to_vec();
    ready.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    write_frame(output, &ready)?;
    while let Some(frame) = read_frame(input, MAX_REQUEST_BYTES)? {
        before_each();
        let Some(answer) = answer(&frame) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a malformed request",
            ));
        };
        drop(frame);
        let encoded = serde_json::to_vec(&answer).map_err(io::Error::other)?;
        write_frame(output, &encoded)?;
    }
    Ok(())
}

/// The worker process's main: limits itself (with the limits its pool gave it, else
/// [`WORKER_MEMORY_BYTES`](super::WORKER_MEMORY_BYTES) and
/// [`WORKER_CPU_SECONDS`](super::WORKER_CPU_SECONDS)), then serves its standard input and
/// output. A worker of background work lowers its priority first.
pub fn serve_stdio() -> io::Result<()> {
    crate::background::lower_if_asked();
    let given = WorkerLimits::from_environment(worker_limits());
    limits::apply_memory_limit(given.memory_bytes)?;
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    serve(&mut input, &mut output, || {
        limits::renew_cpu_limit(given.cpu_seconds)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_says_it_is_ready_then_answers_each_request() {
        let mut input = Vec::new();
        for source in ["def f():\n    pass\n", "class C:\n    pass\n"] {
            let frame = request(
                PARSE,
                Language::Python,
                Duration::from_secs(5),
                source.as_bytes(),
            );
            write_frame(&mut input, &frame).expect("frame");
        }
        let mut output = Vec::new();
        let mut requests = 0;
        serve(&mut input.as_slice(), &mut output, || requests += 1).expect("serves");
        assert_eq!(requests, 2);
        let mut answers = output.as_slice();
        let ready = read_frame(&mut answers, 1 << 20)
            .expect("read")
            .expect("frame");
        assert!(ready.starts_with(READY));
        let names: Vec<String> = std::iter::from_fn(|| read_frame(&mut answers, 1 << 20).ok()?)
            .map(|frame| match serde_json::from_slice::<Answer>(&frame) {
                Ok(Answer::Parsed(parsed)) => parsed.entries[0].name.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(names, ["f", "C"]);
    }

    #[test]
    fn a_malformed_request_ends_the_worker() {
        let mut input = Vec::new();
        write_frame(&mut input, b"?").expect("frame");
        let mut output = Vec::new();
        assert!(serve(&mut input.as_slice(), &mut output, || {}).is_err());
        let mut oversized = Vec::new();
        oversized.extend_from_slice(&(MAX_REQUEST_BYTES + 1).to_be_bytes());
        assert!(serve(&mut oversized.as_slice(), &mut Vec::new(), || {}).is_err());
    }
}
