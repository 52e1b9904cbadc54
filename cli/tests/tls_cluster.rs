//! A cluster over TLS, with a certificate authority made at test time: a
//! coordinator serving `--tls-cert/--tls-key`, two workers and a client
//! dialling `https://` with `--tls-ca`, and the count equals the
//! single-process count. A client without the CA is refused, and an
//! `https://` address to a plaintext coordinator fails with a clear line
//! instead of falling back to plaintext.

mod cluster_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cluster_support::{engine_count, free_port, run_bounded, E2};
use e2_shared::engine::Engine;

/// ca.pem, cert.pem and key.pem for 127.0.0.1 in `dir`.
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    cluster_support::tls_certificates(dir, &["127.0.0.1", "localhost"])
}

struct Killed(Vec<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(args: &[&str], log: &Path) -> Child {
    Command::new(E2)
        .args(args)
        .env_remove("E2_TOKEN")
        .env_remove("E2_COORDINATOR")
        .env_remove("E2_TLS_CA")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

fn client(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(E2);
    cmd.args(args)
        .env_remove("E2_TOKEN")
        .env_remove("E2_COORDINATOR")
        .env_remove("E2_TLS_CA");
    run_bounded(cmd, Duration::from_secs(30))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_count_over_tls_equals_the_single_process_count() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let (ca, cert, key) = (
        ca.to_string_lossy().into_owned(),
        cert.to_string_lossy().into_owned(),
        key.to_string_lossy().into_owned(),
    );
    let puzzle = cluster_support::generated_puzzle(dir.path());
    let expected = engine_count(&puzzle, Engine::Backtrack);
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("https://127.0.0.1:{port}");
    let data = dir.path().join("data").to_string_lossy().into_owned();
    let mut procs = Killed(vec![spawn(
        &[
            "coordinator",
            "--listen",
            &listen,
            "--data",
            &data,
            "--token",
            "t0k3n",
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
        ],
        &dir.path().join("coordinator.err"),
    )]);
    let with_ca = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--coordinator", &url, "--token", "t0k3n", "--tls-ca", &ca]);
        client(&all)
    };
    let started = Instant::now();
    while !with_ca(&["status"]).status.success() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the TLS coordinator did not come up: {}",
            std::fs::read_to_string(dir.path().join("coordinator.err")).unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Without the CA the certificate is unknown: refused, in one line.
    let out = client(&["status", "--coordinator", &url, "--token", "t0k3n"]);
    assert!(
        !out.status.success(),
        "trusted a certificate of an unknown CA"
    );
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err:?}");
    assert!(err.contains("TLS") || err.contains("certificate"), "{err}");
    // Plaintext to a TLS coordinator does not get through either.
    let plain = format!("http://127.0.0.1:{port}");
    let out = client(&["status", "--coordinator", &plain, "--token", "t0k3n"]);
    assert!(!out.status.success(), "plaintext reached a TLS coordinator");

    for n in 0..2 {
        procs.0.push(spawn(
            &[
                "worker",
                "--coordinator",
                &url,
                "--token",
                "t0k3n",
                "--tls-ca",
                &ca,
                "--threads",
                "1",
            ],
            &dir.path().join(format!("worker{n}.err")),
        ));
    }
    let p = puzzle.to_string_lossy().into_owned();
    let out = with_ca(&["submit", "--puzzle", &p, "--mode", "count"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let job = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let started = Instant::now();
    let status = loop {
        let out = with_ca(&["status", &job]);
        assert!(out.status.success(), "{}", stderr(&out));
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if status["state"] == "done" {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the TLS count did not finish: {status}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(status["solutions"].as_u64(), Some(expected), "{status}");
}

#[test]
fn https_to_a_plaintext_coordinator_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, _, _) = certificates(dir.path());
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let data = dir.path().join("data").to_string_lossy().into_owned();
    let _procs = Killed(vec![spawn(
        &["coordinator", "--listen", &listen, "--data", &data],
        &dir.path().join("coordinator.err"),
    )]);
    let plain = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    while !client(&["status", "--coordinator", &plain])
        .status
        .success()
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no coordinator"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let url = format!("https://127.0.0.1:{port}");
    let ca = ca.to_string_lossy().into_owned();
    let out = client(&["status", "--coordinator", &url, "--tls-ca", &ca]);
    assert!(!out.status.success(), "https:// fell back to plaintext");
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err:?}");
    assert!(err.contains("TLS"), "{err}");
}
