//! The two gRPC services over one shared ledger.
//!
//! Every RPC that changes anything goes through [`Shared::apply`]: lock the
//! ledger, let it decide, commit its writes to sled under the same lock,
//! release the lock, flush if the change must be durable, and only then
//! answer. So an acknowledged completion, split or checkpoint is on disk,
//! and the disk sees changes in the order the ledger made them.
//!
//! A failed disk write leaves memory ahead of disk, which nothing can
//! repair in place: the coordinator then stops (crash-only), and a restart
//! reloads the last consistent state from sled.

use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use e2_proto::pb::client_service_server::ClientService;
use e2_proto::pb::worker_service_server::WorkerService;
use e2_proto::pb::{self, JobStatus};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

use crate::ledger::{self, Clock, JobPlan, Ledger};
use crate::puzzle_input;
use crate::records::{JobId, Mode};
use crate::store::{Store, Writes};
use e2_shared::order::FillOrder;

pub struct Shared {
    ledger: Mutex<Ledger>,
    store: Store,
    /// Bumped after every change, for `Watch` streams.
    changes: watch::Sender<u64>,
    /// Cancelled when the coordinator must stop (disk failure, shutdown).
    stop: CancellationToken,
    /// The storage failure that stopped it, if one did.
    failure: OnceLock<String>,
}

impl Shared {
    pub fn new(ledger: Ledger, store: Store, stop: CancellationToken) -> Arc<Self> {
        Arc::new(Shared {
            ledger: Mutex::new(ledger),
            store,
            changes: watch::channel(0).0,
            stop,
            failure: OnceLock::new(),
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The storage failure that stopped this coordinator, if one did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.get().map(String::as_str)
    }

    /// A write did not reach the disk: memory is now ahead of it, so stop
    /// (a restart reloads the last consistent state), and say why.
    fn fail(&self, e: &crate::store::StoreError) -> Status {
        tracing::error!("{e}; stopping so that a restart reloads a consistent state");
        let _ = self.failure.set(e.to_string());
        self.stop.cancel();
        Status::unavailable(format!("coordinator storage failed: {e}"))
    }

    /// Everything in the store as of one moment: commits are made under the
    /// ledger's lock, so holding it while reading leaves none half seen
    /// (a count's total always equals the sum over its finished tasks, as
    /// a restore checks).
    pub fn snapshot(&self) -> Result<crate::store::Loaded, crate::store::StoreError> {
        let _ledger = self.ledger.lock().expect("ledger lock");
        self.store.read_live()
    }

    /// Reads the ledger without changing it.
    pub fn read<R>(&self, f: impl FnOnce(&Ledger, Clock) -> R) -> R {
        let ledger = self.ledger.lock().expect("ledger lock");
        f(&ledger, Clock::now())
    }

    /// Runs one change: decide, commit, flush if durable, then return.
    pub async fn apply<R>(
        &self,
        f: impl FnOnce(&mut Ledger, Clock) -> Result<(R, Writes), Status>,
    ) -> Result<R, Status> {
        let (result, durable) = {
            let mut ledger = self.ledger.lock().expect("ledger lock");
            let (result, writes) = f(&mut ledger, Clock::now())?;
            match self.store.commit(&writes) {
                Ok(seq) => (
                    result,
                    (writes.durable && !writes.is_empty()).then_some(seq),
                ),
                Err(e) => return Err(self.fail(&e)),
            }
        };
        if let Some(seq) = durable {
            if let Err(e) = self.store.flush_upto(seq).await {
                return Err(self.fail(&e));
            }
        }
        self.changes.send_modify(|v| *v += 1);
        Ok(result)
    }

    /// The periodic sweep: lapsed leases, best jobs past their time.
    pub async fn sweep(&self) -> Result<(), Status> {
        self.apply(|l, clock| Ok(((), l.expire(clock)))).await
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }
}

pub struct Workers(pub Arc<Shared>);

#[tonic::async_trait]
impl WorkerService for Workers {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterReply>, Status> {
        let req = request.into_inner();
        self.0
            .apply(|l, clock| Ok((l.register(&req, clock)?, Writes::default())))
            .await
            .map(Response::new)
    }

    async fn lease(
        &self,
        request: Request<pb::LeaseRequest>,
    ) -> Result<Response<pb::LeaseReply>, Status> {
        let req = request.into_inner();
        self.0
            .apply(|l, clock| l.lease(&req.worker_id, req.max_tasks, clock))
            .await
            .map(Response::new)
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatReply>, Status> {
        let req = request.into_inner();
        self.0
            .apply(|l, clock| l.heartbeat(&req, clock))
            .await
            .map(Response::new)
    }

    async fn complete(
        &self,
        request: Request<pb::CompleteRequest>,
    ) -> Result<Response<pb::CompleteReply>, Status> {
        let req = request.into_inner();
        self.0
            .apply(|l, clock| l.complete(&req, clock))
            .await
            .map(Response::new)
    }
}

pub struct Clients(pub Arc<Shared>);

/// The longest time limit a best job keeps (a century); larger ones are
/// taken as this, so deadline arithmetic never wraps.
pub const MAX_TIME_LIMIT_SECS: u64 = 100 * 365 * 24 * 3600;

/// The verify fraction of a submission: 0 is none; counts only.
fn verify_fraction(mode: Mode, fraction: f64) -> Result<Option<f64>, Status> {
    if fraction == 0.0 {
        return Ok(None);
    }
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(Status::invalid_argument(format!(
            "verify fraction {fraction}: expected a share of the tasks, above 0 and at most 1"
        )));
    }
    if mode != Mode::Count {
        return Err(Status::invalid_argument(
            "verify fraction: only count jobs are verified (a best job's boards are re-scored anyway)",
        ));
    }
    Ok(Some(fraction))
}

/// The fill order a count asked for: none (choose by estimate), or a
/// known order's name; counts only.
fn count_order(mode: Mode, name: &str) -> Result<Option<FillOrder>, Status> {
    if name.is_empty() {
        return Ok(None);
    }
    if mode != Mode::Count {
        return Err(Status::invalid_argument(
            "count_order: applies to count jobs (a best job's order is in its search settings)",
        ));
    }
    name.parse()
        .map(Some)
        .map_err(|e: e2_shared::Error| Status::invalid_argument(format!("count_order: {e}")))
}

/// Validates and plans a submission, then creates the job.
pub async fn submit(shared: &Shared, req: pb::SubmitRequest) -> Result<JobId, Status> {
    let puzzle = puzzle_input::read(&req.puzzle_json)
        .map_err(|e| Status::invalid_argument(e.to_string()))?;
    let mode = ledger::mode_from_wire(req.mode)
        .ok_or_else(|| Status::invalid_argument("mode: expected count or best"))?;
    let engine = e2_proto::engine_from_wire(req.engine)
        .map_err(|e| Status::invalid_argument(e.to_string()))?;
    let search = ledger::admit(mode, engine, req.search.as_ref())?;
    let job = JobPlan {
        puzzle,
        mode,
        engine,
        prefixes: Vec::new(),
        // Saturating: a limit beyond a century is no limit worth counting to.
        time_limit: (req.time_limit_secs > 0)
            .then(|| Duration::from_secs(req.time_limit_secs.min(MAX_TIME_LIMIT_SECS))),
        target_score: req.target_score,
        top_k: (req.top_k > 0).then_some(req.top_k),
        search,
        verify: verify_fraction(mode, req.verify_fraction)?,
        symmetry: !req.no_symmetry,
        count_order: count_order(mode, &req.count_order)?,
        parts: Vec::new(),
        estimates: Vec::new(),
        count: None,
    };
    let threads = shared.read(|l, _| l.worker_threads());
    submit_plan(shared, job, threads).await
}

/// Plans the first tasks of `job` for `threads` worker threads (the
/// engine's prefix enumeration runs on a blocking thread), then creates it.
/// The puzzle must be valid already.
pub async fn submit_plan(
    shared: &Shared,
    mut job: JobPlan,
    threads: usize,
) -> Result<JobId, Status> {
    // A verified count's tasks are never split, so it starts finer.
    let threads = if job.verify.is_some() {
        threads.max(1).saturating_mul(4)
    } else {
        threads
    };
    let ask = ledger::PlanAsk {
        threads,
        symmetry: job.symmetry,
        count_order: job.count_order,
        fine: job.verify.is_some(),
    };
    let planned = {
        let (puzzle, mode, engine, search) = (job.puzzle.clone(), job.mode, job.engine, job.search);
        tokio::task::spawn_blocking(move || {
            ledger::first_tasks(&puzzle, mode, engine, &search, &ask)
        })
        .await
        .map_err(|e| Status::internal(format!("planning failed: {e}")))?
        .map_err(|e| Status::invalid_argument(e.to_string()))?
    };
    job.prefixes = planned.prefixes;
    job.parts = planned.parts;
    job.estimates = planned.estimates;
    job.count = planned.count;
    shared.apply(|l, clock| Ok(l.submit(job, clock))).await
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<JobStatus, Status>> + Send>>;

#[tonic::async_trait]
impl ClientService for Clients {
    async fn submit(
        &self,
        request: Request<pb::SubmitRequest>,
    ) -> Result<Response<pb::SubmitReply>, Status> {
        let job_id = submit(&self.0, request.into_inner()).await?;
        Ok(Response::new(pb::SubmitReply { job_id }))
    }

    async fn status(
        &self,
        request: Request<pb::StatusRequest>,
    ) -> Result<Response<JobStatus>, Status> {
        let id = request.into_inner().job_id;
        self.0
            .read(|l, clock| l.status(id, clock))
            .map(Response::new)
    }

    async fn list_jobs(
        &self,
        _: Request<pb::ListJobsRequest>,
    ) -> Result<Response<pb::ListJobsReply>, Status> {
        let jobs = self.0.read(|l, clock| l.list(clock));
        Ok(Response::new(pb::ListJobsReply { jobs }))
    }

    async fn best(
        &self,
        request: Request<pb::BestRequest>,
    ) -> Result<Response<pb::BestReply>, Status> {
        let req = request.into_inner();
        let top = if req.top == 0 { 1 } else { req.top as usize };
        let board_docs = self.0.read(|l, _| l.best(req.job_id, top))?;
        Ok(Response::new(pb::BestReply { board_docs }))
    }

    async fn cancel(
        &self,
        request: Request<pb::CancelRequest>,
    ) -> Result<Response<JobStatus>, Status> {
        let id = request.into_inner().job_id;
        self.0
            .apply(|l, clock| Ok(((), l.cancel(id, clock)?)))
            .await?;
        self.0
            .read(|l, clock| l.status(id, clock))
            .map(Response::new)
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<pb::WatchRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let id = request.into_inner().job_id;
        let first = self.0.read(|l, clock| l.status(id, clock))?;
        let (tx, rx) = mpsc::channel(4);
        let shared = Arc::clone(&self.0);
        tokio::spawn(async move {
            let mut changes = shared.subscribe();
            let mut status = first;
            loop {
                let over = pb::JobState::try_from(status.state).is_ok_and(|s| {
                    matches!(
                        s,
                        pb::JobState::Done | pb::JobState::Cancelled | pb::JobState::Failed
                    )
                });
                if tx.send(Ok(status)).await.is_err() || over {
                    return;
                }
                // At most a few updates a second, and one a second even
                // without changes so the rate stays fresh.
                tokio::time::sleep(Duration::from_millis(250)).await;
                tokio::select! {
                    _ = changes.changed() => {}
                    _ = tokio::time::sleep(Duration::from_millis(750)) => {}
                    _ = shared.stop.cancelled() => return,
                }
                status = match shared.read(|l, clock| l.status(id, clock)) {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                };
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn ledger(
        &self,
        request: Request<pb::LedgerRequest>,
    ) -> Result<Response<pb::LedgerReply>, Status> {
        let id = request.into_inner().job_id;
        // Everything in memory was committed before this snapshot; flushing
        // afterwards makes the answer a statement about the disk.
        let tasks = self.0.read(|l, _| l.ledger(id))?;
        self.0
            .store
            .flush()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        Ok(Response::new(pb::LedgerReply { tasks }))
    }
}
