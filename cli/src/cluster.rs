//! The cluster commands: run a coordinator or a worker, and talk to a
//! coordinator as a user (submit, status, best, watch, cancel).
//!
//! Each command parses its flags and calls one function of
//! `e2_coordinator` or `e2_worker`; all logic lives there. The coordinator
//! address and token default to `$E2_COORDINATOR` and `$E2_TOKEN`, so a
//! shell configured once needs neither flag.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use e2_coordinator::client::{self, Client, SubmitOptions};
use e2_coordinator::{CoordinatorConfig, LedgerConfig, OpsListeners};
use e2_shared::engine::{Ask, Engine};
use e2_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Run a coordinator: it stores jobs in --data and serves workers and clients.
    Coordinator(CoordinatorArgs),
    /// Run a worker: lease tasks from a coordinator and run the engines.
    Worker(WorkerArgs),
    /// Submit a puzzle; prints the job id alone on stdout.
    Submit(SubmitArgs),
    /// Print a job's status as JSON (every job without JOB).
    Status(StatusArgs),
    /// Print a best job's best boards as BoardDoc JSON documents, best first.
    Best(BestArgs),
    /// Show a live progress line until the job is over.
    Watch(JobArgs),
    /// Cancel a job; prints its final status as JSON.
    Cancel(JobArgs),
}

/// Where the coordinator is and how to be let in: what clients and
/// workers both need.
#[derive(Debug, Args)]
pub struct Dial {
    /// Coordinator URL, e.g. http://10.0.0.5:7450 (https:// for TLS).
    #[arg(long, env = "E2_COORDINATOR")]
    coordinator: String,
    /// Bearer token the coordinator was started with.
    #[arg(long, env = "E2_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// CA certificate (PEM) that signed an https:// coordinator's
    /// certificate. Default: the system's roots.
    #[arg(long, env = "E2_TLS_CA", value_name = "CA.pem")]
    tls_ca: Option<PathBuf>,
}

impl Dial {
    fn url(&self) -> String {
        with_scheme(&self.coordinator)
    }

    fn tls(&self) -> e2_proto::tls::ClientTls {
        e2_proto::tls::ClientTls {
            ca: self.tls_ca.clone(),
        }
    }
}

#[derive(Debug, Args)]
pub struct Connection {
    #[command(flatten)]
    dial: Dial,
    /// Seconds to wait for the coordinator: to connect, and for each answer.
    #[arg(long, env = "E2_TIMEOUT", value_name = "SECS", default_value_t = 30.0)]
    timeout: f64,
}

impl Connection {
    fn url(&self) -> String {
        self.dial.url()
    }

    async fn client(&self) -> Result<Client> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= 86_400.0) {
            bail!(
                "--timeout: {} is not a number of seconds in (0, 86400]",
                self.timeout
            );
        }
        let wait = Duration::from_secs_f64(self.timeout);
        let timeouts = client::Timeouts {
            connect: wait.min(Duration::from_secs(10)),
            request: wait,
        };
        let url = self.url();
        warn_if_cleartext(&url, self.dial.token.is_some());
        Client::connect_tls(&url, self.dial.token.as_deref(), timeouts, &self.dial.tls()).await
    }
}

/// Says once, on stderr, when a token is about to cross a network in clear.
fn warn_if_cleartext(url: &str, has_token: bool) {
    if has_token && e2_proto::tls::cleartext_to_remote(url) {
        eprintln!(
            "warning: {url} is plaintext: the token travels in clear text; \
             serve TLS (--tls-cert/--tls-key) and use https://"
        );
    }
}

/// `host:port` is taken to mean `http://host:port`.
pub(crate) fn with_scheme(address: &str) -> String {
    if address.contains("://") {
        address.to_string()
    } else {
        format!("http://{address}")
    }
}

#[derive(Debug, Args)]
pub struct CoordinatorArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7450")]
    listen: SocketAddr,
    /// Data directory (sled); restarting on the same one resumes every job.
    #[arg(long)]
    data: PathBuf,
    /// Refuse every RPC without `authorization: Bearer <token>`.
    #[arg(long, env = "E2_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// While running, write a backup of the data directory to this file
    /// every --backup-every seconds (what `e2 backup` writes, without
    /// stopping): each is written whole beside it, then renamed over it, so
    /// the file is always a complete backup. `e2 restore --data NEW FILE`
    /// brings the job back on any machine; keep the file on another disk,
    /// or copy it off the machine, so that a long count outlives its host.
    /// A clean stop (SIGTERM, Ctrl-C) writes a last one.
    #[arg(long, value_name = "FILE", env = "E2_BACKUP")]
    backup: Option<PathBuf>,
    /// Seconds between two backups of --backup.
    #[arg(long, value_name = "S", default_value_t = 600, requires = "backup", env = "E2_BACKUP_EVERY",
          value_parser = clap::value_parser!(u64).range(1..))]
    backup_every: u64,

    /// A lease not renewed for this long is re-queued.
    #[arg(long, default_value_t = 30_000, hide = true)]
    lease_ttl_ms: u64,
    #[arg(long, default_value_t = 5_000, hide = true)]
    heartbeat_ms: u64,
    /// How often workers checkpoint a count.
    #[arg(long, default_value_t = 20_000, hide = true)]
    checkpoint_ms: u64,
    /// Count tasks leased this long may be split for idle workers.
    #[arg(long, default_value_t = 2_000, hide = true)]
    split_after_ms: u64,
    /// Nodes per lease of a best task.
    #[arg(long, default_value_t = 20_000_000, hide = true)]
    best_budget: u64,
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 0.0.0.0:9090).
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
    /// Serve the HTML status page (jobs, progress, best boards) at http://ADDR/
    /// (e.g. 0.0.0.0:8080).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Serve gRPC over TLS with this certificate chain (PEM); clients and
    /// workers then dial https:// (README: "Securing a cluster").
    #[arg(
        long,
        env = "E2_TLS_CERT",
        value_name = "CERT.pem",
        requires = "tls_key"
    )]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(
        long,
        env = "E2_TLS_KEY",
        value_name = "KEY.pem",
        requires = "tls_cert"
    )]
    tls_key: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    dial: Dial,
    /// Engine threads (default: every core).
    #[arg(long, value_name = "N", value_parser = crate::commands::threads_arg)]
    threads: Option<usize>,
    /// Name shown in the coordinator's log (default: host-pid).
    #[arg(long, env = "E2_WORKER_NAME")]
    name: Option<String>,
    /// Announce another protocol version (to test the refusal).
    #[arg(long, hide = true)]
    protocol_version: Option<u32>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Count,
    Best,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    connection: Connection,
    /// Puzzle JSON file.
    #[arg(long)]
    puzzle: PathBuf,
    #[arg(long, value_enum)]
    mode: ModeArg,
    /// backtrack (counts and best-score search) or dlx (counts only: DLX
    /// cannot score partial boards). See docs/engines.md.
    #[arg(long, default_value = "backtrack", value_name = "ENGINE")]
    engine: Engine,
    /// Best jobs: stop after this many seconds.
    #[arg(long)]
    time: Option<u64>,
    /// Best jobs: stop once this score is reached (default: the maximum).
    #[arg(long)]
    target_score: Option<u32>,
    /// Best jobs: how many boards to keep.
    #[arg(long)]
    top: Option<u32>,
    /// Best jobs: fill order, e.g. spiral-in. Default: row-major.
    #[arg(long, value_name = "ORDER")]
    order: Option<String>,
    /// Best jobs: 0 = strict DFS, K = a flat cap of K breaks. Default: the
    /// tuned break-tolerant search.
    #[arg(long, value_name = "K")]
    max_breaks: Option<u32>,
    /// Count jobs: recount this share of the finished tasks (e.g. 0.1) on
    /// other workers, with the other engine where it is quick, and settle
    /// any difference by vote; a worker found wrong is named in `e2
    /// status`, leased nothing more in the job, and all its tasks are
    /// recounted. Costs about FRACTION more work; needs at least two
    /// workers (three to settle a disagreement). See docs/security.md.
    #[arg(long, value_name = "FRACTION")]
    verify: Option<f64>,
    /// Count jobs: the fill order of the tree (default: the smallest
    /// estimated tree; see `e2 count --help`).
    #[arg(long = "count-order", value_name = "ORDER")]
    count_order: Option<String>,
    /// Count jobs: count the whole tree, without the rotation reduction.
    #[arg(long)]
    no_symmetry: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    connection: Connection,
    job: Option<u64>,
    /// List every task with its lease and completion counts.
    #[arg(long, requires = "job")]
    ledger: bool,
}

#[derive(Debug, Args)]
pub struct BestArgs {
    #[command(flatten)]
    connection: Connection,
    job: u64,
    #[arg(long, default_value_t = 1)]
    top: u32,
}

#[derive(Debug, Args)]
pub struct JobArgs {
    #[command(flatten)]
    connection: Connection,
    job: u64,
}

pub fn run(command: ClusterCommand) -> Result<()> {
    let server_side = matches!(
        command,
        ClusterCommand::Coordinator(_) | ClusterCommand::Worker(_)
    );
    init_logging(if server_side { "info" } else { "warn" });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        match command {
            ClusterCommand::Coordinator(a) => coordinator(a).await,
            ClusterCommand::Worker(a) => worker(a).await,
            ClusterCommand::Submit(a) => submit(a).await,
            ClusterCommand::Status(a) => status(a).await,
            ClusterCommand::Best(a) => best(a).await,
            ClusterCommand::Watch(a) => watch(a).await,
            ClusterCommand::Cancel(a) => cancel(a).await,
        }
    })
}

fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// A token cancelled by SIGTERM or Ctrl-C.
fn on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        crate::signals::terminated().await;
        tracing::info!("stopping");
        cancel.cancel();
    });
    token
}

async fn coordinator(a: CoordinatorArgs) -> Result<()> {
    let ms = Duration::from_millis;
    let config = CoordinatorConfig {
        data_dir: a.data,
        token: a.token,
        ledger: LedgerConfig {
            lease_ttl: ms(a.lease_ttl_ms),
            heartbeat: ms(a.heartbeat_ms),
            checkpoint: ms(a.checkpoint_ms),
            split_after: ms(a.split_after_ms),
            best_node_budget: a.best_budget,
            ..LedgerConfig::default()
        },
        ops: OpsListeners {
            metrics: a.metrics,
            status_page: a.http,
        },
        tls: match (&a.tls_cert, &a.tls_key) {
            (Some(cert), Some(key)) => Some(e2_proto::tls::ServerIdentity::read(cert, key)?),
            _ => None,
        },
        backup: crate::commands::backup::schedule(a.backup.as_deref(), a.backup_every)?,
    };
    let running = e2_coordinator::start(config, a.listen, on_signal()).await?;
    tracing::info!("coordinator listening on {}", running.addr);
    running.wait().await?;
    Ok(())
}

async fn worker(a: WorkerArgs) -> Result<()> {
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut config = WorkerConfig::new(a.dial.url(), threads);
    warn_if_cleartext(&config.coordinator, a.dial.token.is_some());
    config.tls = a.dial.tls();
    config.token = a.dial.token;
    if let Some(name) = a.name {
        config.name = name;
    }
    if let Some(v) = a.protocol_version {
        config.protocol_version = v;
    }
    let summary = e2_worker::run(config, on_signal()).await?;
    tracing::info!(
        completed = summary.tasks_completed,
        released = summary.tasks_released,
        abandoned = summary.tasks_abandoned,
        "worker stopped"
    );
    Ok(())
}

async fn submit(a: SubmitArgs) -> Result<()> {
    let text = crate::input::read_file(&a.puzzle, crate::input::MAX_INPUT_BYTES)?;
    let mut options = match a.mode {
        ModeArg::Count => SubmitOptions::count(a.engine),
        ModeArg::Best => SubmitOptions::best(a.engine),
    };
    if matches!(a.mode, ModeArg::Best) {
        a.engine.require(Ask::Best)?;
    }
    if matches!(a.mode, ModeArg::Count)
        && (a.time.is_some()
            || a.target_score.is_some()
            || a.top.is_some()
            || a.order.is_some()
            || a.max_breaks.is_some())
    {
        bail!("--time, --target-score, --top, --order and --max-breaks apply to --mode best only");
    }
    if let Some(f) = a.verify {
        if !matches!(a.mode, ModeArg::Count) {
            bail!(
                "--verify applies to --mode count only (a best job's boards are re-scored anyway)"
            );
        }
        if !(f > 0.0 && f <= 1.0) {
            bail!("--verify {f}: expected a share of the tasks, above 0 and at most 1 (e.g. 0.1)");
        }
        options.verify = Some(f);
    }
    if !matches!(a.mode, ModeArg::Count) && (a.count_order.is_some() || a.no_symmetry) {
        bail!(
            "--count-order and --no-symmetry apply to --mode count only (a best job takes --order)"
        );
    }
    options.no_symmetry = a.no_symmetry;
    options.count_order = a.count_order.clone();
    if a.order.is_some() || a.max_breaks.is_some() {
        let search = crate::commands::run::search_settings(a.order.as_deref(), a.max_breaks)?;
        options.search = Some(e2_proto::search_to_wire(&search));
    }
    options.time_limit = a.time.map(Duration::from_secs);
    options.target_score = a.target_score;
    options.top_k = a.top;
    let job = a
        .connection
        .client()
        .await?
        .submit(&text, &options)
        .await
        .with_context(|| format!("{} was not submitted", a.puzzle.display()))?;
    // The job exists now: if stdout is closed, say its id where it can be read.
    if crate::out::try_line(&job.to_string()).is_err() {
        eprintln!("job {job} submitted (standard output is closed, so its id is printed here)");
    }
    Ok(())
}

async fn status(a: StatusArgs) -> Result<()> {
    let mut c = a.connection.client().await?;
    let value = match (a.job, a.ledger) {
        (Some(job), true) => client::ledger_json(&c.ledger(job).await?),
        (Some(job), false) => client::status_json(&c.status(job).await?),
        (None, _) => {
            serde_json::Value::Array(c.list().await?.iter().map(client::status_json).collect())
        }
    };
    crate::outln!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}

async fn best(a: BestArgs) -> Result<()> {
    let docs = a
        .connection
        .client()
        .await?
        .best(a.job, a.top.max(1))
        .await?;
    if docs.is_empty() {
        bail!("job {} has no board yet", a.job);
    }
    for doc in docs {
        crate::outln!("{doc}");
    }
    Ok(())
}

async fn watch(a: JobArgs) -> Result<()> {
    use std::io::{IsTerminal, Write};
    let mut stream = a.connection.client().await?.watch(a.job).await?;
    let tty = std::io::stdout().is_terminal();
    let mut last = None;
    while let Some(status) = stream.message().await? {
        let line = client::progress_line(&status);
        if tty {
            crate::out!("\r\x1b[2K{line}");
            std::io::stdout().flush()?;
        } else {
            crate::outln!("{line}");
        }
        last = Some(status);
    }
    if tty {
        crate::outln!();
    }
    match last {
        Some(s) if client::state_name(&s) == "failed" => {
            bail!("job {} failed: {}", s.job_id, s.error)
        }
        _ => Ok(()),
    }
}

async fn cancel(a: JobArgs) -> Result<()> {
    let status = a.connection.client().await?.cancel(a.job).await?;
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(&client::status_json(&status))?
    );
    Ok(())
}
