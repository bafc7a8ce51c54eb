//! The outline workers' pool: the engine's one pool of worker processes, which moved to
//! [`crate::workers`] when PDFs came to share it. Its names stay reachable from here.

pub use crate::workers::pool::{Pool, PoolOptions, Stopped};
