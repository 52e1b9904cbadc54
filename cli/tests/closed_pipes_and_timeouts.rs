//! What an unlucky operator meets at the command line: a reader that
//! closes stdout early (`| head -1`), a coordinator address that accepts
//! and never answers, and an address that cannot be one. Each ends
//! promptly with a clear line (or quietly, for the closed pipe), never with
//! a panic or a hang.

mod cluster_support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cluster_support::{run_bounded, Cluster, E2};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A pipe whose buffer holds one page only, so that a command writing
/// more than that is certainly still writing when the reader goes away.
fn small_pipe() -> (std::fs::File, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let page = 4096;
    assert!(unsafe { libc::fcntl(fds[0], libc::F_SETPIPE_SZ, page) } >= page);
    unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    }
}

/// Runs `e2 ARGS`, reads one byte of its stdout and closes the pipe (as
/// `| head -c1` does), and returns how the process ended and what it said
/// on stderr.
fn closed_stdout(args: &[&str], env: &[(&str, String)]) -> (i32, String) {
    let (mut reader, writer) = small_pipe();
    let mut cmd = Command::new(E2);
    cmd.args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .env_remove("E2_TOKEN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    reader.read_exact(&mut [0u8; 1]).unwrap();
    drop(reader);
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "e2 {args:?} did not end after its stdout closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), err)
}

#[test]
fn a_closed_stdout_ends_a_command_quietly() {
    let (code, err) = closed_stdout(&["generate", "--size", "16", "--seed", "3"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    let puzzle = cluster_support::generated_puzzle(cluster.dir.path());
    // `e2 status` of every job: more than the pipe holds.
    for _ in 0..12 {
        cluster.submit(&puzzle, &["--mode", "count"]);
    }
    let (code, err) = closed_stdout(&["status"], &[("E2_COORDINATOR", cluster.url())]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_coordinator_that_never_answers_is_an_error_within_the_timeout() {
    // Accepts connections and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let hold = std::thread::spawn(move || {
        let mut held = Vec::new();
        silent.set_nonblocking(true).unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            if let Ok((s, _)) = silent.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    for args in [
        vec!["status"],
        vec!["cancel", "1"],
        vec!["best", "1", "--top", "1"],
    ] {
        let started = Instant::now();
        let mut cmd = Command::new(E2);
        cmd.args(&args)
            .args(["--coordinator", &url, "--timeout", "1"])
            .env_remove("E2_TOKEN");
        let out = run_bounded(cmd, Duration::from_secs(15));
        let took = started.elapsed();
        assert!(
            !out.status.success(),
            "{args:?} succeeded against a silent peer"
        );
        assert!(took < Duration::from_secs(8), "{args:?} took {took:?}");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err:?}");
        assert!(
            err.contains("no answer") || err.contains("in time"),
            "{args:?}: {err}"
        );
    }
    drop(hold);
}

#[test]
fn an_impossible_address_is_named_as_such() {
    let mut cmd = Command::new(E2);
    cmd.args(["status", "--coordinator", "127.0.0.1:99999"])
        .env_remove("E2_TOKEN");
    let out = run_bounded(cmd, Duration::from_secs(15));
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("port 99999 is out of range"), "{err}");
}

#[test]
fn a_worker_waiting_on_a_silent_coordinator_says_so_and_stops_promptly() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let hold = std::thread::spawn(move || {
        let mut held = Vec::new();
        silent.set_nonblocking(true).unwrap();
        let until = Instant::now() + Duration::from_secs(15);
        while Instant::now() < until {
            if let Ok((s, _)) = silent.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(E2)
        .args(["worker", "--coordinator", &url, "--threads", "1"])
        .env_remove("E2_TOKEN")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let said = std::fs::read_to_string(log.path()).unwrap();
    assert!(said.contains("registering"), "nothing logged: {said:?}");
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let stopped = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if stopped.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the worker took over 10 s to stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        stopped.elapsed() < Duration::from_secs(3),
        "{:?}",
        stopped.elapsed()
    );
    assert!(status.success(), "{status:?}");
    drop(hold);
}
