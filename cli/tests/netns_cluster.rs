//! A cluster across real network links: the coordinator and two workers
//! each in a network namespace of their own, joined by veth pairs on a
//! bridge, speaking TLS with a CA made at test time. One worker's link is
//! cut for longer than its lease lives, then healed: the count still
//! equals the single-process count, the cut-off worker's late report is
//! refused, and no task is counted twice.
//!
//! Why namespaces rather than 127.0.0.1: on loopback a "partition" can only
//! be faked by killing or pausing a process. Here the processes keep
//! running, their TCP connections stay open, and only the link goes away,
//! as when a cable or a switch fails: the worker goes on counting and
//! reports late, which is exactly the case a lease must handle.
//!
//! It needs root (CAP_NET_ADMIN, to create namespaces and links) and
//! iproute2, so it is `#[ignore]`d with that reason: whether it can run is
//! a property of the machine and the user at run time, which a build
//! script cannot know. Run it with
//! `cargo test -p e2 --test netns_cluster -- --ignored`; run so without
//! the privileges, it fails, saying what is missing. Everything it makes
//! (namespaces `e2t-<pid>-*`, the links inside them, the processes) is
//! removed by a guard when it ends, passed or failed. Nothing is set up in
//! the host's own namespace: traffic never leaves the three namespaces.

mod cluster_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use cluster_support::{run_bounded, Gen, E2};
use serde_json::Value;

/// 6×6, 6 colours (2 on the border), a block of hints: tens of thousands
/// of boards, some tens of seconds on two one-thread workers.
const PUZZLE: Gen = Gen::new(6, 6, 2, 2).hints("block");
/// The coordinator's address, on the bridge in its namespace.
const COORDINATOR_IP: &str = "10.231.0.1";
const PORT: u16 = 7450;
const TOKEN: &str = "netns-t0k3n";
/// Short leases, so that a cut longer than one is quick to make.
const LEASE_TTL: Duration = Duration::from_millis(2000);
const HEARTBEAT_MS: &str = "250";
/// Longer than the test: the count is never sliced, so what a cut-off
/// worker sends late is its keep-alive or its completion, whose refusals
/// it logs.
const CHECKPOINT_MS: &str = "600000";
const JOB_TIME: Duration = Duration::from_secs(240);

/// Three namespaces and the processes started in them; all removed on drop.
struct Lab {
    pid: u32,
    dir: tempfile::TempDir,
    namespaces: Vec<String>,
    procs: Vec<Child>,
}

impl Lab {
    fn ns(&self, role: &str) -> String {
        format!("e2t-{}-{role}", self.pid)
    }

    /// The coordinator's namespace with a bridge at 10.231.0.1/24, and one
    /// namespace per worker, each with a veth pair into the bridge.
    fn new(workers: usize) -> Lab {
        let mut lab = Lab {
            pid: std::process::id(),
            dir: tempfile::tempdir().unwrap(),
            namespaces: Vec::new(),
            procs: Vec::new(),
        };
        let c = lab.ns("c");
        lab.add_namespace(&c);
        ip(&["-n", &c, "link", "add", "br0", "type", "bridge"]);
        ip(&[
            "-n",
            &c,
            "addr",
            "add",
            &format!("{COORDINATOR_IP}/24"),
            "dev",
            "br0",
        ]);
        ip(&["-n", &c, "link", "set", "br0", "up"]);
        for n in 1..=workers {
            let w = lab.ns(&format!("w{n}"));
            lab.add_namespace(&w);
            // Made inside the namespaces: neither end is ever in the host's.
            let port = format!("v{n}");
            ip(&[
                "-n", &c, "link", "add", &port, "type", "veth", "peer", "name", "eth0", "netns", &w,
            ]);
            ip(&["-n", &c, "link", "set", &port, "master", "br0", "up"]);
            let addr = format!("10.231.0.{}/24", n + 1);
            ip(&["-n", &w, "addr", "add", &addr, "dev", "eth0"]);
            ip(&["-n", &w, "link", "set", "eth0", "up"]);
        }
        lab
    }

    fn add_namespace(&mut self, name: &str) {
        // Recorded first, so that a half-made namespace is removed too.
        self.namespaces.push(name.to_string());
        ip(&["netns", "add", name]);
        ip(&["-n", name, "link", "set", "lo", "up"]);
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    /// `e2 ARGS` inside namespace `ns`, stderr to `log` (RUST_LOG=info).
    fn spawn(&mut self, ns: &str, args: &[&str], log: &str) {
        let child = Command::new("ip")
            .args(["netns", "exec", ns, E2])
            .args(args)
            .env("RUST_LOG", "info")
            .env_remove("E2_TOKEN")
            .env_remove("E2_COORDINATOR")
            .env_remove("E2_TLS_CA")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.path(log)).unwrap())
            .spawn()
            .unwrap();
        self.procs.push(child);
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    /// A client command in the coordinator's namespace, over TLS.
    fn client(&self, args: &[&str]) -> Output {
        let (url, ca) = (self.url(), self.path("ca.pem"));
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.ns("c"), E2])
            .args(args)
            .args(["--coordinator", &url, "--token", TOKEN, "--tls-ca", &ca])
            .env_remove("E2_TOKEN")
            .env_remove("E2_COORDINATOR")
            .env_remove("E2_TLS_CA");
        run_bounded(cmd, Duration::from_secs(30))
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.client(args);
        assert!(
            out.status.success(),
            "e2 {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn url(&self) -> String {
        format!("https://{COORDINATOR_IP}:{PORT}")
    }

    /// Polls `cond` every 100 ms for at most `within`.
    fn wait(&self, what: &str, within: Duration, mut cond: impl FnMut() -> bool) {
        let start = Instant::now();
        while !cond() {
            assert!(
                start.elapsed() < within,
                "timed out after {within:?} waiting for {what}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Every process log, for failure messages.
    fn logs(&self) -> String {
        ["coordinator.err", "w1.err", "w2.err"]
            .iter()
            .map(|n| {
                let text = self.log(n);
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                format!("--- {n} (last lines)\n{}", tail.join("\n"))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for c in &mut self.procs {
            let _ = c.kill();
            let _ = c.wait();
        }
        for ns in &self.namespaces {
            // Anything else still running in a namespace of ours was
            // started from it: end it before removing the namespace.
            if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
                for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    if let Ok(pid) = pid.parse::<i32>() {
                        unsafe {
                            libc::kill(pid, libc::SIGKILL);
                        }
                    }
                }
            }
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Runs `ip ARGS`, failing with its stderr.
fn ip(args: &[&str]) {
    let mut cmd = Command::new("ip");
    cmd.args(args);
    let out = run_bounded(cmd, Duration::from_secs(20));
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

/// Why this machine cannot run the test, if it cannot.
fn missing_privileges() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root: network namespaces need CAP_NET_ADMIN".into());
    }
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => None,
        _ => Some("`ip` (iproute2) is not on PATH".into()),
    }
}

fn namespaces_left(pid: u32) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(&format!("e2t-{pid}-")))
        .map(str::to_string)
        .collect()
}

/// `task=N` on a log line.
fn task_of(line: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix("task="))
        .and_then(|n| n.parse().ok())
}

/// The single-process count, `e2 count`.
fn single_process_count(puzzle: &Path) -> u64 {
    let mut cmd = Command::new(E2);
    cmd.arg("count").arg("--puzzle").arg(puzzle);
    let out = run_bounded(cmd, Duration::from_secs(300));
    assert!(
        out.status.success(),
        "e2 count: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["complete"], true, "{v}");
    v["solutions"].as_u64().unwrap()
}

#[test]
#[ignore = "needs root and iproute2 (network namespaces): cargo test -p e2 --test netns_cluster -- --ignored"]
fn a_worker_cut_off_past_its_lease_is_refused_and_the_count_is_exact() {
    if let Some(why) = missing_privileges() {
        panic!("cannot run: {why}");
    }
    let mut lab = Lab::new(2);
    let pid = lab.pid;
    let puzzle: PathBuf = PUZZLE.write(lab.dir.path());
    let expected = single_process_count(&puzzle);

    cluster_support::tls_certificates(lab.dir.path(), &[COORDINATOR_IP]);
    let (cert, key, data) = (lab.path("cert.pem"), lab.path("key.pem"), lab.path("data"));
    let listen = format!("{COORDINATOR_IP}:{PORT}");
    let ttl = LEASE_TTL.as_millis().to_string();
    let c = lab.ns("c");
    lab.spawn(
        &c,
        &[
            "coordinator",
            "--listen",
            &listen,
            "--data",
            &data,
            "--token",
            TOKEN,
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--lease-ttl-ms",
            &ttl,
            "--heartbeat-ms",
            HEARTBEAT_MS,
            "--checkpoint-ms",
            CHECKPOINT_MS,
        ],
        "coordinator.err",
    );
    lab.wait("the coordinator", Duration::from_secs(20), || {
        lab.client(&["status"]).status.success()
    });
    let (url, ca) = (lab.url(), lab.path("ca.pem"));
    for n in 1..=2 {
        let (ns, name) = (lab.ns(&format!("w{n}")), format!("w{n}"));
        lab.spawn(
            &ns,
            &[
                "worker",
                "--coordinator",
                &url,
                "--token",
                TOKEN,
                "--tls-ca",
                &ca,
                "--threads",
                "1",
                "--name",
                &name,
            ],
            &format!("{name}.err"),
        );
    }
    let p = puzzle.to_string_lossy().into_owned();
    // DLX: many times the backtracker's time per node, so the count is
    // cut into many tasks and runs for tens of seconds (the backtracker
    // counts a quarter of this tree in under one).
    let out = lab.client(&[
        "submit", "--puzzle", &p, "--mode", "count", "--engine", "dlx",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let job = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let status = || lab.json(&["status", &job]);
    // Both workers hold a lease: w1 is cut off in the middle of a task.
    lab.wait("both workers at work", Duration::from_secs(60), || {
        status()["tasks_running"] == 2
    });
    std::thread::sleep(Duration::from_millis(500));

    let w1 = lab.ns("w1");
    ip(&["-n", &w1, "link", "set", "eth0", "down"]);
    let cut = Instant::now();
    lab.wait(
        "the coordinator to expire w1's lease",
        Duration::from_secs(30),
        || lab.log("coordinator.err").contains("lease expired"),
    );
    // Well past the TTL: the task is back in line, perhaps re-issued.
    while cut.elapsed() < LEASE_TTL * 3 {
        std::thread::sleep(Duration::from_millis(100));
    }
    let before_heal = status();
    assert_eq!(
        before_heal["state"], "running",
        "the job ended while w1 was cut off: the puzzle is too small for this test"
    );
    ip(&["-n", &w1, "link", "set", "eth0", "up"]);
    let healed = cut.elapsed();

    // w1's late report (a keep-alive or a completion, sent while cut off)
    // arrives now; the coordinator must refuse it.
    let refused = |log: &str| {
        log.lines()
            .find(|l| l.contains("lease lost: stale lease") || l.contains("completion ignored: "))
            .map(str::to_string)
    };
    lab.wait(
        "w1 to be told its lease is gone",
        Duration::from_secs(60),
        || refused(&lab.log("w1.err")).is_some(),
    );
    let refusal = refused(&lab.log("w1.err")).unwrap();
    let task = task_of(&refusal);
    let still_running = status()["state"] == "running";

    let start = Instant::now();
    let done = loop {
        let s = status();
        if s["state"] != "queued" && s["state"] != "running" {
            break s;
        }
        assert!(
            start.elapsed() < JOB_TIME,
            "the job did not finish: {s}\n{}",
            lab.logs()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    let ledger = lab.json(&["status", &job, "--ledger"]);
    let ledger = ledger.as_array().unwrap();
    let coordinator_log = lab.log("coordinator.err");
    let context = format!(
        "cut for {healed:?}; w1's refusal: {refusal}\nstatus: {done}\n{}",
        lab.logs()
    );

    assert_eq!(done["state"], "done", "{context}");
    assert_eq!(done["solutions"].as_u64(), Some(expected), "{context}");
    assert!(
        still_running,
        "the job was over before w1's late report came: {context}"
    );
    // Counted once each: a late report accepted would make a second
    // completion of some task (or add its count twice).
    for t in ledger {
        assert!(t["completions"].as_u64().unwrap() <= 1, "{t}\n{context}");
        if t["state"] == "done" {
            assert_eq!(t["completions"], 1, "{t}\n{context}");
        }
    }
    assert_eq!(
        ledger.iter().filter(|t| t["state"] == "done").count(),
        ledger.len(),
        "{context}"
    );
    // The task w1 lost: its lease expired at the coordinator, it was leased
    // again, and counted once, by the new lease.
    // The worker names the task on a lost lease; on an ignored completion
    // the coordinator does.
    let task = task
        .or_else(|| {
            coordinator_log
                .lines()
                .filter(|l| l.contains("completion ignored"))
                .find_map(task_of)
        })
        .unwrap_or_else(|| panic!("no task named by {refusal:?}: {context}"));
    assert!(
        coordinator_log
            .lines()
            .any(|l| l.contains("lease expired") && task_of(l) == Some(task)),
        "the coordinator never expired task {task}: {context}"
    );
    let entry = ledger
        .iter()
        .find(|t| t["task"] == task)
        .unwrap_or_else(|| panic!("task {task} not in the ledger: {context}"));
    assert!(
        entry["leases"].as_u64().unwrap() >= 2,
        "task {task} was never leased again: {entry}\n{context}"
    );
    assert_eq!(entry["completions"], 1, "{entry}\n{context}");
    if refusal.contains("completion ignored") {
        assert!(
            entry["ignored_completions"].as_u64().unwrap() >= 1,
            "{entry}\n{context}"
        );
    }
    eprintln!("w1 cut off for {healed:?}; refused: {refusal}; {expected} boards, task {task} counted once");
    drop(lab);
    assert_eq!(
        namespaces_left(pid),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}
