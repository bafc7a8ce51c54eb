//! The outliner: the worker pool and the cache of one worker command, shared by every
//! workspace of the process that uses that command.

use std::ffi::OsString;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::cache::{Key, Outcome, OutlineCache};
use super::parse::{ParseFailure, Parsed};
use super::pool::{Pool, PoolOptions, Stopped};
use super::source::Source;
use super::worker::{self, Answer};
use super::worker_limits::worker_limits;
use super::{
    CACHE_BYTES, MAX_IDLE_WORKERS, MAX_WORKERS, PARSE_TIME, Refusal, WORKER_DEADLINE,
    WORKER_START_TIME,
};

/// The cache of a background outliner: a build parses each file once, so it keeps little.
const BACKGROUND_CACHE_BYTES: u64 = 1 << 20;

/// Why a parse gave no outline: the refusal and its facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub refusal: Refusal,
    /// The facts, as a clause.
    pub detail: String,
}

/// An outline, and whether it came from the cache.
pub type Outlined = (Result<Arc<Parsed>, Failure>, bool);

/// Parses files in worker processes, remembering what it parsed.
#[derive(Debug)]
pub struct Outliner {
    pool: Pool,
    cache: OutlineCache,
}

impl Outliner {
    /// An outliner whose workers run `command` (program and arguments).
    pub fn new(command: Vec<OsString>) -> Outliner {
        Outliner::with(command, false)
    }

    /// An outliner whose workers run `command`; `background`: for background work only, its
    /// workers at the lowest priority ([`crate::background`]) and its cache small (a build
    /// parses each file once).
    fn with(command: Vec<OsString>, background: bool) -> Outliner {
        Outliner {
            pool: Pool::new(PoolOptions {
                command,
                max_workers: MAX_WORKERS,
                max_idle: MAX_IDLE_WORKERS,
                start_time: WORKER_START_TIME,
                ready: worker::READY,
                limits: worker_limits(),
                background,
            }),
            cache: OutlineCache::new(if background {
                BACKGROUND_CACHE_BYTES
            } else {
                CACHE_BYTES
            }),
        }
    }

    /// The process's outliner for `command`: workspaces that give the same command share its
    /// workers and its cache.
    pub fn shared(command: Vec<OsString>) -> Arc<Outliner> {
        Outliner::shared_with(command, false)
    }

    /// The process's outliner for the background work of this one's command (the symbol
    /// index's builds and merges): workers of its own at the lowest priority, so that a
    /// call's parses never wait behind them.
    pub fn background(&self) -> Arc<Outliner> {
        Outliner::shared_with(self.pool.options().command.clone(), true)
    }

    fn shared_with(command: Vec<OsString>, background: bool) -> Arc<Outliner> {
        static SHARED: OnceLock<Mutex<Vec<Arc<Outliner>>>> = OnceLock::new();
        let mut all = SHARED
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(found) = all.iter().find(|o| {
            let options = o.pool.options();
            options.command == command && options.background == background
        }) {
            return Arc::clone(found);
        }
        let made = Arc::new(Outliner::with(command, background));
        all.push(Arc::clone(&made));
        made
    }

    /// Forgets every cached outline (the next call parses again).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// Worker processes started so far.
    pub fn workers_started(&self) -> u64 {
        self.pool.started()
    }

    /// Ends the idle workers (the next parse starts a fresh one).
    pub fn close_idle_workers(&self) {
        self.pool.close_idle();
    }

    /// The outline of `source`: from the cache when these bytes were parsed before, else from a
    /// worker.
    pub fn outline(&self, source: &Source) -> Outlined {
        self.parse(source, false)
    }

    /// The outline of `source` with its references ([`Parsed::references`]): from the cache
    /// when these bytes were parsed for them before, else from a worker (and the cached outline
    /// is replaced by the fuller one).
    pub fn references(&self, source: &Source) -> Outlined {
        self.parse(source, true)
    }

    fn parse(&self, source: &Source, references: bool) -> Outlined {
        // A parse with references is kept under its own key: one that ran out of time keeps
        // the outline's own entry (a shorter parse that may succeed) apart.
        let key = Key {
            references,
            ..source.key
        };
        let fuller = Key {
            references: true,
            ..source.key
        };
        let cached = self.cache.get(&key).or_else(|| {
            // An outline can come from a parse with references.
            self.cache.get(&fuller).filter(Result::is_ok)
        });
        if let Some(outcome) = cached {
            return (
                outcome.map_err(|refusal| Failure {
                    refusal,
                    detail: cached_detail(refusal),
                }),
                true,
            );
        }
        // A header of directives alone needs no worker: the line scanner gives what the parse
        // would (to the byte), in a fraction of its time, and is pure Rust.
        if let Some(parsed) = super::defines::scan(source.language, &source.bytes, references) {
            return (Ok(Arc::new(parsed)), false);
        }
        let operation = if references {
            worker::PARSE_REFERENCES
        } else {
            worker::PARSE
        };
        let request = worker::request(operation, source.language, PARSE_TIME, &source.bytes);
        let result = self.ask(&request).and_then(|answer| match answer {
            Answer::Parsed(parsed) => Ok(Arc::new(parsed)),
            Answer::Failed(ParseFailure::Timeout) => Err(Failure {
                refusal: Refusal::Timeout,
                detail: cached_detail(Refusal::Timeout),
            }),
            Answer::Failed(ParseFailure::Grammar(detail)) => Err(Failure {
                refusal: Refusal::Unavailable,
                detail,
            }),
        });
        let outcome: Option<Outcome> = match &result {
            Ok(parsed) => Some(Ok(Arc::clone(parsed))),
            // The same bytes would stop the parser again: not worth another try until the file
            // changes. A deadline, a busy pool or a failed start may be the machine's load.
            Err(failure) if matches!(failure.refusal, Refusal::Timeout | Refusal::Crashed) => {
                Some(Err(failure.refusal))
            }
            Err(_) => None,
        };
        if let Some(outcome) = outcome {
            self.cache.put(key, outcome);
        }
        (result, false)
    }

    /// Sends a test fault (`worker::FAULT_*`) to a worker: the answer, or how it stopped.
    pub fn fault(&self, operation: u8) -> Result<Answer, Failure> {
        let request = worker::request(operation, super::Language::Python, PARSE_TIME, b"");
        self.ask(&request)
    }

    /// One request to a worker, its answer decoded.
    fn ask(&self, request: &[u8]) -> Result<Answer, Failure> {
        let answer = self
            .pool
            .exchange(request, Instant::now() + WORKER_DEADLINE, WORKER_DEADLINE)
            .map_err(stopped_failure)?;
        serde_json::from_slice(&answer).map_err(|e| Failure {
            refusal: Refusal::Crashed,
            detail: format!("the parser's process answered something unreadable ({e})"),
        })
    }
}

/// The facts of a refusal that carries no others.
fn cached_detail(refusal: Refusal) -> String {
    match refusal {
        Refusal::Timeout => format!(
            "the parse ran past its {} ms and was stopped",
            PARSE_TIME.as_millis()
        ),
        Refusal::Crashed => "the parser's process ended without an answer on this file".into(),
        _ => String::new(),
    }
}

fn stopped_failure(stopped: Stopped) -> Failure {
    match stopped {
        Stopped::Deadline => Failure {
            refusal: Refusal::Deadline,
            detail: format!(
                "the parser's process did not answer within {} ms and was stopped",
                WORKER_DEADLINE.as_millis()
            ),
        },
        Stopped::Crashed(status) => Failure {
            refusal: Refusal::Crashed,
            detail: match status {
                Some(code) if code < 0 => {
                    format!("the parser's process was ended by signal {}", -code)
                }
                Some(code) => format!("the parser's process exited with status {code}"),
                None => "the parser's process ended without an answer".into(),
            },
        },
        Stopped::Busy => Failure {
            refusal: Refusal::Busy,
            detail: format!(
                "all {MAX_WORKERS} parser processes stayed busy for {} ms",
                WORKER_DEADLINE.as_millis()
            ),
        },
        Stopped::Unavailable(detail) => Failure {
            refusal: Refusal::Unavailable,
            detail,
        },
    }
}
