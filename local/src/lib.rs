//! # e2-local: e2 on one machine
//!
//! The coordinator and the worker are separate crates that never depend on
//! each other; only this crate (and the binary above it) puts both in one
//! process:
//!
//! - [`embedded`]: `e2 count` and `e2 solve`, a real coordinator on
//!   127.0.0.1 with a worker dialling it, so a local count takes the same
//!   ledger, checkpoint and exactly-once path as a cluster's;
//! - [`cluster`]: a coordinator and a worker over a temporary directory,
//!   for commands that speak to a cluster when the user has none;
//! - [`bench`]: what the coordinator costs and what workers buy;
//! - [`best_bench`]: what a best job on a cluster scores after given times.
//!
//! Nothing here owns a runtime, a signal or a terminal: callers run these
//! inside their runtime, stop them with a token, and display progress from
//! a callback.

pub mod bench;
pub mod best_bench;
pub mod cluster;
pub mod embedded;

pub use cluster::LocalCluster;
pub use embedded::{best, count, BestOptions, BestOutcome, CountOutcome};
