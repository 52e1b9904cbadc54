//! # e2-coordinator: jobs, leases and the durable task ledger
//!
//! The coordinator accepts puzzles, cuts their search trees into prefix
//! tasks, leases the tasks to workers over gRPC and adds up what they
//! report, each task exactly once. sled holds everything that must survive
//! a restart, written in one transaction per change and flushed before the
//! change is acknowledged.
//!
//! - [`records`]: what is stored; [`store`]: the sled trees and batches;
//! - [`ledger`]: the state and the rules (leases, epochs, splits, counts);
//! - [`plan`]: cutting a new job into its first tasks;
//! - [`boards`]: re-scoring and checking reported boards;
//! - [`service`] and [`server`]: the gRPC services and their lifecycle;
//! - [`http`]: the operator endpoints (Prometheus metrics, status page);
//! - [`client`]: what the user-facing commands call;
//! - [`embedded`]: coordinator and workers in one process (`e2 count`,
//!   `e2 solve`);
//! - [`bench`]: throughput and scaling measurements.
//!
//! The coordinator knows nothing of engine internals: prefixes and
//! checkpoints are opaque serde values, and the only engine call it makes
//! (prefix enumeration, when planning) goes through `e2_worker::engines`.

pub mod bench;
pub mod boards;
pub mod client;
pub mod embedded;
pub mod http;
pub mod ledger;
pub mod plan;
pub mod puzzle_input;
pub mod records;
pub mod server;
pub mod service;
pub mod signals;
pub mod store;

pub use client::{Client, SubmitOptions};
pub use e2_worker::engines::BestSearch;
pub use e2_worker::engines::Engine;
pub use embedded::{run_best, run_count, BestOptions, BestOutcome, CountOutcome, LocalCluster};
pub use ledger::LedgerConfig;
pub use server::{start, CoordinatorConfig, CoordinatorError, OpsListeners, Running};
