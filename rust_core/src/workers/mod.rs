//! Worker processes for untrusted parsers: one pool, whatever the parser.
//!
//! tree-sitter's grammars (for outlines and references) and PDFium (for PDFs) are C, and they
//! parse bytes an agent can choose, so they never run in the caller's process. Each runs in a
//! child process started from a command the embedding program gives; the engine reads the file
//! through the boundary, hands its bytes over a pipe ([`frame`]), and waits for the answer with
//! a wall-clock deadline per job, killing the process when it passes ([`pool`]). The worker
//! limits itself with the limits its pool gives it ([`limits`]: its address space, and its CPU
//! time per request): a parser that crashes, loops, sleeps or runs out of memory costs its
//! process and that one job, never the caller.
//!
//! The pool knows nothing of what its workers parse: `outline` and `media::pdf` each keep a
//! pool of their own command, and say what a request and an answer hold.

pub mod frame;
pub mod limits;
pub mod pool;

pub use limits::WorkerLimits;
pub use pool::{Pool, PoolOptions, Stopped};
