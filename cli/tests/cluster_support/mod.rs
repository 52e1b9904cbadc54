//! Harness for the cluster tests: real `e2` processes on 127.0.0.1, real
//! sled directories in temp dirs, every wait bounded, every child killed
//! when its guard drops.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const E2: &str = env!("CARGO_BIN_EXE_e2");

/// A file of the community data beside the repository (`../shared/data`).
/// Tests that call this carry `#[cfg_attr(e2_no_data, ignore = ...)]`
/// (`cli/build.rs`), so they run only where the data is: there, a missing
/// file is a failure.
pub fn data(rel: &str) -> PathBuf {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data")).join(rel);
    assert!(
        p.exists(),
        "{} is absent: this test needs the community data",
        p.display()
    );
    p
}

pub fn read_puzzle(path: &Path) -> e2_shared::Puzzle {
    e2_coordinator::puzzle_input::read(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The single-process engine count, for comparison.
pub fn engine_count(path: &Path, engine: e2_shared::engine::Engine) -> u64 {
    engine_count_in(path, engine, e2_shared::engine::COUNT_ORDER)
}

/// The single-process engine count under a chosen fill order (a count's
/// total does not depend on the order; its time can, by orders of
/// magnitude).
pub fn engine_count_in(
    path: &Path,
    engine: e2_shared::engine::Engine,
    order: e2_shared::order::FillOrder,
) -> u64 {
    let puzzle = read_puzzle(path);
    let root = Vec::new();
    let subtree = e2_shared::engine::Subtree::new(&puzzle, &root).with_order(order);
    let run = engine
        .count(&subtree, None, &Default::default(), |_| {})
        .unwrap();
    assert_eq!(run.end, e2_shared::search::RunEnd::Finished);
    run.solutions
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `e2 restore --data DATA FILE`, which must succeed.
pub fn restore(data: &Path, file: &Path) {
    let out = Command::new(E2)
        .args(["restore", "--data"])
        .arg(data)
        .arg(file)
        .output()
        .expect("run e2 restore");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A child process killed (SIGKILL) when dropped.
pub struct Proc {
    pub child: Child,
    pub log: PathBuf,
}

impl Proc {
    pub fn sigkill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then the exit status (bounded wait).
    pub fn sigterm(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.wait_exit(within)
    }

    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < within {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Short leases and checkpoints so that failures are noticed in a test's time.
pub const FAST: &[&str] = &[
    "--lease-ttl-ms",
    "1500",
    "--heartbeat-ms",
    "200",
    "--checkpoint-ms",
    "400",
    "--split-after-ms",
    "300",
];

pub struct Cluster {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub coordinator: Option<Proc>,
    pub workers: Vec<Proc>,
    pub token: Option<String>,
    spawned: usize,
}

impl Cluster {
    pub fn new() -> Self {
        Cluster {
            dir: tempfile::tempdir().unwrap(),
            port: free_port(),
            coordinator: None,
            workers: Vec::new(),
            token: None,
            spawned: 0,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn spawn(&mut self, args: &[&str]) -> Proc {
        self.spawned += 1;
        let log = self.dir.path().join(format!("proc{}.log", self.spawned));
        let mut cmd = Command::new(E2);
        cmd.args(args)
            .env_remove("E2_TOKEN")
            .env_remove("E2_COORDINATOR")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(log.with_extension("err")).unwrap());
        Proc {
            child: cmd.spawn().unwrap(),
            log: log.with_extension("err"),
        }
    }

    /// Starts the coordinator and waits until it answers.
    pub fn start_coordinator(&mut self, extra: &[&str]) {
        let listen = format!("127.0.0.1:{}", self.port);
        let data = self.data_dir().to_string_lossy().into_owned();
        let mut args = vec!["coordinator", "--listen", &listen, "--data", &data];
        // The fast defaults, except those `extra` sets itself.
        for pair in FAST.chunks(2) {
            if !extra.contains(&pair[0]) {
                args.extend_from_slice(pair);
            }
        }
        args.extend_from_slice(extra);
        let token;
        if let Some(t) = &self.token {
            token = t.clone();
            args.extend_from_slice(&["--token", &token]);
        }
        let p = self.spawn(&args);
        self.coordinator = Some(p);
        let start = Instant::now();
        loop {
            let out = self.client(&["status"]);
            if out.status.success() {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "coordinator did not come up: {}",
                self.coordinator.as_ref().unwrap().log_text()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn start_worker(&mut self, threads: usize, extra: &[&str]) {
        let url = self.url();
        let threads = threads.to_string();
        let mut args = vec!["worker", "--coordinator", &url, "--threads", &threads];
        args.extend_from_slice(extra);
        let token;
        if let Some(t) = &self.token {
            token = t.clone();
            args.extend_from_slice(&["--token", &token]);
        }
        let p = self.spawn(&args);
        self.workers.push(p);
    }

    /// Runs a client command (bounded to 30 s) against this cluster.
    pub fn client(&self, args: &[&str]) -> Output {
        self.client_with_token(args, self.token.as_deref())
    }

    pub fn client_with_token(&self, args: &[&str], token: Option<&str>) -> Output {
        let mut cmd = Command::new(E2);
        cmd.args(args)
            .env("E2_COORDINATOR", self.url())
            .env_remove("E2_TOKEN");
        if let Some(t) = token {
            cmd.env("E2_TOKEN", t);
        }
        run_bounded(cmd, Duration::from_secs(30))
    }

    pub fn submit(&self, puzzle: &Path, extra: &[&str]) -> u64 {
        let p = puzzle.to_string_lossy().into_owned();
        let mut args = vec!["submit", "--puzzle", &p];
        args.extend_from_slice(extra);
        let out = self.client(&args);
        assert!(
            out.status.success(),
            "submit failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("submit printed {text:?}, not a job id"))
    }

    pub fn status(&self, job: u64) -> Value {
        let out = self.client(&["status", &job.to_string()]);
        assert!(
            out.status.success(),
            "status failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The status, or `None` while the coordinator does not answer.
    pub fn try_status(&self, job: u64) -> Option<Value> {
        let out = self.client(&["status", &job.to_string()]);
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).unwrap())
    }

    pub fn ledger(&self, job: u64) -> Vec<Value> {
        let out = self.client(&["status", &job.to_string(), "--ledger"]);
        assert!(
            out.status.success(),
            "ledger failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// Polls until `pred` holds on the status (bounded).
    pub fn wait_until(&self, job: u64, within: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            if let Some(s) = self.try_status(job) {
                if pred(&s) {
                    return s;
                }
                assert!(start.elapsed() < within, "timed out; last status {s}");
            } else {
                assert!(
                    start.elapsed() < within,
                    "timed out; coordinator not answering"
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn wait_done(&self, job: u64, within: Duration) -> Value {
        self.wait_until(job, within, |s| {
            s["state"] != "queued" && s["state"] != "running"
        })
    }
}

/// Runs a command to completion, killing it after `within`.
pub fn run_bounded(mut cmd: Command, within: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(within) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            unsafe {
                libc::kill(id as i32, libc::SIGKILL);
            }
            panic!("command timed out after {within:?}");
        }
    }
}

/// `GET path` from `127.0.0.1:port` over a plain socket (the operator
/// endpoints speak HTTP/1.1 and close after each answer): status and body.
pub fn http_get(port: u16, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {response:?}"));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line in {head:?}"));
    (status, body.to_string())
}

/// A square puzzle made by `e2 generate`: `colours` in all, `border` of
/// them on the frame, hints laid out as `hints` (a layout name) if given.
/// Generated from a solution, it has at least one board.
#[derive(Debug, Clone, Copy)]
pub struct Gen {
    pub size: usize,
    pub colours: u8,
    pub border: u8,
    pub seed: u64,
    pub hints: Option<&'static str>,
}

impl Gen {
    pub const fn new(size: usize, colours: u8, border: u8, seed: u64) -> Self {
        Gen {
            size,
            colours,
            border,
            seed,
            hints: None,
        }
    }

    pub const fn hints(self, layout: &'static str) -> Self {
        Gen {
            hints: Some(layout),
            ..self
        }
    }

    /// Writes the puzzle into `dir` and returns its path.
    pub fn write(self, dir: &Path) -> PathBuf {
        let Gen {
            size,
            colours,
            border,
            seed,
            hints,
        } = self;
        let path = dir.join(format!(
            "gen-{size}x{size}-c{colours}-b{border}-s{seed}-{}.json",
            hints.unwrap_or("none")
        ));
        let mut cmd = Command::new(E2);
        cmd.arg("generate")
            .args(["--size", &size.to_string()])
            .args(["--colors", &colours.to_string()])
            .args(["--border-colors", &border.to_string()])
            .args(["--seed", &seed.to_string()]);
        if let Some(layout) = hints {
            cmd.args(["--hints", layout]);
        }
        cmd.arg("-o").arg(&path);
        let out = run_bounded(cmd, Duration::from_secs(30));
        assert!(
            out.status.success(),
            "e2 generate failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        path
    }
}

/// A small generated puzzle (5×5, 8 colours, 3 on the border) in `dir`:
/// it has solutions and counts in moments.
pub fn generated_puzzle(dir: &Path) -> PathBuf {
    Gen::new(5, 8, 3, 1).write(dir)
}

/// A certificate authority made on the spot, and a server certificate it
/// signed for `names` (IP addresses or host names): writes ca.pem,
/// cert.pem and key.pem into `dir` and returns their paths in that order.
pub fn tls_certificates(dir: &Path, names: &[&str]) -> (PathBuf, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let server_key = KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let server_cert = CertificateParams::new(names)
        .unwrap()
        .signed_by(&server_key, &issuer)
        .unwrap();
    let (ca, cert, key) = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    std::fs::write(&ca, ca_cert.pem()).unwrap();
    std::fs::write(&cert, server_cert.pem()).unwrap();
    std::fs::write(&key, server_key.serialize_pem()).unwrap();
    (ca, cert, key)
}
