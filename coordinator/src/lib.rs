//! # e2-coordinator: jobs, leases and the durable task ledger
//!
//! The coordinator accepts puzzles, cuts their search trees into prefix
//! tasks, leases the tasks to workers over gRPC and adds up what they
//! report, each task exactly once. sled holds everything that must survive
//! a restart, written in one transaction per change and flushed before the
//! change is acknowledged.
//!
//! - [`records`]: what is stored; [`store`]: the sled trees and batches;
//! - [`ledger`]: the state and the rules (leases, epochs, splits, counts),
//!   with one policy per kind of job (its first tasks, what a worker is
//!   told, what a finished task means);
//! - [`boards`]: re-scoring and checking reported boards;
//! - [`service`] and [`server`]: the gRPC services and their lifecycle;
//! - [`http`]: the operator endpoints (Prometheus metrics, status page);
//! - [`client`]: what the user-facing commands call;
//! - [`backup`]: the whole store as one portable, checked text file;
//!
//! The coordinator knows nothing of engine internals and does not depend on
//! the worker: prefixes and checkpoints are opaque serde values, and the
//! only engine calls it makes (capabilities at submission, prefix
//! enumeration when planning) go through the engine contract,
//! `e2_shared::engine`. The embedded single-process runner and the local
//! test cluster, which need both sides, live in the `e2-local` crate.

pub mod backup;
pub mod boards;
pub mod client;
pub mod http;
pub mod ledger;
pub mod puzzle_input;
pub mod records;
pub mod server;
pub mod service;
pub mod store;

pub use client::{Client, SubmitOptions};
pub use ledger::LedgerConfig;
pub use server::{start, CoordinatorConfig, CoordinatorError, OpsListeners, Running};
