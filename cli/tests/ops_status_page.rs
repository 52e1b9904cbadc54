//! The coordinator's status page, seen by a real browser: a best job runs
//! on a real cluster until it has a board, then headless Chromium loads the
//! page; its DOM must hold the board's SVG and the eternity2.dev link, and
//! its screenshot is kept (target/status-page.png) for people to look at.
//!
//! Needs the `chromium` binary (Debian package `chromium`). Without it the
//! test skips with a notice, except under `CI=true`, where it fails: CI
//! installs Chromium (.ci/run) so that this check always runs there.

mod cluster_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cluster_support::{free_port, generated_puzzle, http_get, run_bounded, Cluster};

const CHROMIUM: &str = "chromium";

fn chromium_present() -> bool {
    Command::new(CHROMIUM)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs headless Chromium on `url` with `action` (`--dump-dom` or
/// `--screenshot=...`), in a fresh profile, with everything that would
/// reach beyond 127.0.0.1 turned off; its stdout.
fn chromium(profile: &Path, action: &str, url: &str) -> String {
    let mut cmd = Command::new(CHROMIUM);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1200,1000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(action)
    .arg(url);
    let out = run_bounded(cmd, Duration::from_secs(90));
    assert!(
        out.status.success(),
        "chromium {action} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `target/` of this workspace, where the screenshot is left for people.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

#[test]
fn the_status_page_shows_the_best_board_in_a_browser() {
    if !chromium_present() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            !ci,
            "chromium is missing under CI=true; .ci/run installs it"
        );
        eprintln!("skipping: `{CHROMIUM}` is not installed (apt-get install chromium)");
        return;
    }
    let mut cluster = Cluster::new();
    let puzzle = generated_puzzle(cluster.dir.path());
    let port = free_port();
    let http = format!("127.0.0.1:{port}");
    // A small budget per lease, so boards are reported within moments.
    cluster.start_coordinator(&["--http", &http, "--best-budget", "3000"]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "best", "--time", "5"]);
    // Once the job's 5 s are over its best board no longer changes, so the
    // page can be checked against `e2 status` exactly.
    let status = cluster.wait_done(job, Duration::from_secs(60));
    assert_eq!(status["state"], "done", "{status}");
    let best_score = status["best_score"]
        .as_u64()
        .unwrap_or_else(|| panic!("no board after 5 s: {status}"));
    let max_score = status["max_score"].as_u64().unwrap();

    let (code, page) = http_get(port, "/");
    assert_eq!(code, 200, "{page}");
    assert!(page.contains(&format!("id=\"job-{job}\"")), "{page}");

    let url = format!("http://127.0.0.1:{port}/");
    let profile = tempfile::tempdir().unwrap();
    let dom = chromium(profile.path(), "--dump-dom", &url);
    assert!(
        dom.contains("<svg") && dom.contains("class=\"e2-board\""),
        "the DOM holds the board's SVG:\n{dom}"
    );
    assert!(
        dom.contains("href=\"https://eternity2.dev/"),
        "the DOM holds the eternity2.dev link:\n{dom}"
    );
    assert!(dom.contains(&format!("id=\"best-{job}\"")), "{dom}");
    assert!(
        dom.contains(&format!("score {best_score} / {max_score}")),
        "the board's score as `e2 status` gives it:\n{dom}"
    );

    let shot = cluster.dir.path().join("status-page.png");
    let profile = tempfile::tempdir().unwrap();
    chromium(
        profile.path(),
        &format!("--screenshot={}", shot.display()),
        &url,
    );
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG file");
    // A blank 1200×1000 page compresses to a few kilobytes; a drawn board
    // with its coloured triangles does not.
    assert!(png.len() > 20_000, "screenshot is only {} bytes", png.len());
    let kept = target_dir().join("status-page.png");
    if std::fs::copy(&shot, &kept).is_ok() {
        eprintln!("screenshot: {}", kept.display());
    }
}
