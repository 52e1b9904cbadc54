//! `cargo bench -p e2-local --bench cluster`: what the coordinator costs
//! and what workers buy.
//!
//! Two measurements over real gRPC on 127.0.0.1 and a real sled directory:
//! - *throughput*: many lightweight workers lease and complete tiny tasks
//!   (no engine work), so the figure is the coordinator's own ceiling in
//!   completed tasks per second, each completion flushed before its ack;
//! - *scaling*: the wall time of one real count with 1, 2, ... one-thread
//!   workers.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use e2_coordinator::ledger::{JobPlan, LedgerConfig};
use e2_coordinator::server::Running;
use e2_coordinator::service::{self, Shared};
use e2_proto::auth::BearerToken;
use e2_proto::pb::{self, worker_service_client::WorkerServiceClient};
use e2_shared::engine::Engine;
use e2_shared::Puzzle;
use e2_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Tiny tasks for the throughput run ...
    pub tiny_tasks: usize,
    /// ... and the concurrent lightweight workers completing them.
    pub tiny_workers: usize,
    /// Worker counts for the scaling run (one thread each).
    pub worker_counts: Vec<usize>,
    pub engine: Engine,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            tiny_tasks: 2_000,
            tiny_workers: 32,
            worker_counts: vec![1, 2],
            engine: Engine::Backtrack,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CountTiming {
    pub workers: usize,
    pub wall: Duration,
    pub solutions: u64,
    pub tasks: u64,
}

#[derive(Debug, Clone)]
pub struct BenchReport {
    pub puzzle: String,
    pub tiny_tasks: usize,
    pub tiny_workers: usize,
    pub tiny_wall: Duration,
    pub counts: Vec<CountTiming>,
}

impl BenchReport {
    pub fn tasks_per_sec(&self) -> f64 {
        self.tiny_tasks as f64 / self.tiny_wall.as_secs_f64()
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "coordinator throughput: {:.0} completed tasks/s ({} tiny tasks, {} concurrent workers, {:.2} s; every completion flushed before its ack)",
            self.tasks_per_sec(),
            self.tiny_tasks,
            self.tiny_workers,
            self.tiny_wall.as_secs_f64()
        )?;
        for c in &self.counts {
            writeln!(
                f,
                "count of {} with {} worker(s) x 1 thread: {:.2} s wall, {} solutions, {} tasks",
                self.puzzle,
                c.workers,
                c.wall.as_secs_f64(),
                c.solutions,
                c.tasks
            )?;
        }
        Ok(())
    }
}

/// Runs both measurements on `puzzle`.
pub async fn cluster(puzzle: &Puzzle, options: &BenchOptions) -> Result<BenchReport> {
    let tiny_wall = throughput(puzzle, options.tiny_tasks, options.tiny_workers).await?;
    let mut counts = Vec::new();
    for &workers in &options.worker_counts {
        counts.push(count_with(puzzle, options.engine, workers).await?);
    }
    Ok(BenchReport {
        puzzle: puzzle.name.clone(),
        tiny_tasks: options.tiny_tasks,
        tiny_workers: options.tiny_workers,
        tiny_wall,
        counts,
    })
}

/// A coordinator for a bench run, its heartbeat short so that a bench's
/// few-second counts are not padded by lease bookkeeping.
async fn coordinator(dir: &std::path::Path) -> Result<(Running, CancellationToken)> {
    let ledger = LedgerConfig {
        heartbeat: Duration::from_millis(500),
        ..LedgerConfig::default()
    };
    crate::cluster::start_loopback(dir.to_path_buf(), ledger, None).await
}

async fn throughput(puzzle: &Puzzle, tasks: usize, workers: usize) -> Result<Duration> {
    let dir = tempfile::tempdir()?;
    let (running, stop) = coordinator(dir.path()).await?;
    let plan = JobPlan {
        prefixes: vec![Vec::new(); tasks],
        ..JobPlan::count(puzzle, Engine::Backtrack)
    };
    let job = running
        .shared
        .apply(|l, clock| Ok(l.submit(plan, clock)))
        .await
        .map_err(|s| anyhow!("{}", s.message()))?;
    let started = Instant::now();
    let mut handles = Vec::new();
    for n in 0..workers {
        let url = running.url();
        handles.push(tokio::spawn(async move { tiny_worker(url, n).await }));
    }
    for h in handles {
        h.await.context("tiny worker")??;
    }
    let wall = started.elapsed();
    let status = running
        .shared
        .read(|l, clock| l.status(job, clock))
        .map_err(|s| anyhow!("{}", s.message()))?;
    anyhow::ensure!(
        status.tasks_done == tasks as u64,
        "throughput run finished {} of {tasks} tasks",
        status.tasks_done
    );
    stop.cancel();
    running.wait().await?;
    Ok(wall)
}

/// Leases one task at a time and completes it at once, until none is left.
async fn tiny_worker(url: String, n: usize) -> Result<()> {
    let channel = tonic::transport::Endpoint::from_shared(url)?
        .connect()
        .await?;
    let mut client = WorkerServiceClient::with_interceptor(channel, BearerToken::default());
    let worker_id = client
        .register(pb::RegisterRequest {
            protocol_version: e2_proto::PROTOCOL_VERSION,
            name: format!("tiny-{n}"),
            threads: 1,
        })
        .await?
        .into_inner()
        .worker_id;
    loop {
        let reply = client
            .lease(pb::LeaseRequest {
                worker_id: worker_id.clone(),
                max_tasks: 1,
            })
            .await?
            .into_inner();
        let Some(a) = reply.assignments.into_iter().next() else {
            return Ok(());
        };
        client
            .complete(pb::CompleteRequest {
                worker_id: worker_id.clone(),
                lease: a.lease,
                ..Default::default()
            })
            .await?;
    }
}

async fn count_with(puzzle: &Puzzle, engine: Engine, workers: usize) -> Result<CountTiming> {
    let dir = tempfile::tempdir()?;
    let (running, stop) = coordinator(dir.path()).await?;
    let shared: Arc<Shared> = Arc::clone(&running.shared);
    let started = Instant::now();
    let plan = JobPlan::count(puzzle, engine);
    let job = service::submit_plan(&shared, plan, workers)
        .await
        .map_err(|s| anyhow!("{}", s.message()))?;
    let stop_workers = CancellationToken::new();
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            tokio::spawn(e2_worker::run(
                WorkerConfig::new(running.url(), 1),
                stop_workers.clone(),
            ))
        })
        .collect();
    let mut last = None;
    let stopped = running.stopped();
    crate::embedded::wait_for_job(&shared, job, &CancellationToken::new(), &stopped, |s| {
        last = Some(s.clone())
    })
    .await?;
    let status = last.ok_or_else(|| anyhow!("job {job}: no status"))?;
    let wall = started.elapsed();
    stop_workers.cancel();
    for h in handles {
        h.await.context("worker")??;
    }
    stop.cancel();
    running.wait().await?;
    Ok(CountTiming {
        workers,
        wall,
        solutions: status.solutions,
        tasks: status.tasks_total,
    })
}
