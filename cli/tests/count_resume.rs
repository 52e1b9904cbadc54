//! `e2 count --data DIR` as a user runs it: Ctrl-C (SIGINT) part way keeps
//! what was counted, and the same command resumes to the whole count.
//!
//! The puzzle is generated, with a lattice of hints and few colours, so
//! that DLX takes tens of seconds on it: an interruption after two seconds
//! lands in the middle even on a host several times faster (the test
//! checks the first run did not finish). A data test does the same on
//! Brendan Owen's set 1 6×6 against its published count.

mod cluster_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use cluster_support::{data, engine_count, engine_count_in, restore, Gen, E2};

fn count(
    puzzle: &str,
    extra: &[&str],
    data: &Path,
    interrupt_after: Option<Duration>,
) -> (serde_json::Value, i32) {
    let child = Command::new(E2)
        .args([
            "count",
            "--puzzle",
            puzzle,
            "--engine",
            "dlx",
            "--threads",
            "2",
        ])
        .args(extra)
        .arg("--data")
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start e2 count");
    if let Some(after) = interrupt_after {
        std::thread::sleep(after);
        // SAFETY: plain kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    }
    let out = child.wait_with_output().expect("wait for e2 count");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (json, out.status.code().unwrap_or(-1))
}

/// 7×7, 8 colours (2 on the border), a block of hints in the middle:
/// 2 525 boards, 12.7 M DLX nodes, about 6 s of DLX on two threads of the
/// test build (the backtracker, which gives the reference count, a quarter
/// of a second). Used where the count need not outlast an interruption.
const COUNT_RESUME_PUZZLE: Gen = Gen::new(7, 8, 2, 3).hints("block");

/// 6×6, 6 colours (3 on the border), a lattice of hints: 2 249 836
/// boards, 198 M DLX nodes in the spiral-in order the count picks, about
/// 40 s on two threads of the test build, so an interruption after 2 s
/// comes early on any host up to twenty times faster. (The 7×7 above,
/// 6 s, left a margin of three.) The reference count is the
/// backtracker's in the same order, a few seconds.
const INTERRUPTED_PUZZLE: Gen = Gen::new(6, 6, 3, 7).hints("lattice");

fn interrupted_puzzle_count(puzzle: &Path) -> u64 {
    engine_count_in(
        puzzle,
        e2_shared::engine::Engine::Backtrack,
        e2_shared::order::FillOrder::SpiralIn,
    )
}

/// Interrupts a DLX count of `puzzle` (with `extra` arguments) after
/// `after`, then resumes it to the end with the same command: the total is
/// `expected`.
fn interrupt_then_resume(puzzle: &Path, extra: &[&str], after: Duration, expected: u64) {
    let puzzle = puzzle.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("count");

    let first = interrupted(&puzzle, extra, &data, after);
    assert_eq!(first["resumed"], false, "{first}");
    // The hand-back on Ctrl-C stores each running task's checkpoint, and the
    // summary counts it: a second of DLX is a million nodes and more.
    let kept = first["nodes"].as_u64().unwrap();
    assert!(kept > 1_000_000, "{first}");

    let (last, code) = count(&puzzle, extra, &data, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["resumed"], true, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
    assert!(last["nodes"].as_u64().unwrap() >= kept, "{last}");
}

#[test]
fn an_interrupted_count_keeps_its_progress_and_resumes_to_the_same_total() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let expected = interrupted_puzzle_count(&puzzle);
    interrupt_then_resume(&puzzle, &[], Duration::from_secs(2), expected);
}

/// Brendan Owen's set 1 6×6 has 260 boards (every board, whole-board
/// rotations separately). The whole tree (`--no-symmetry`), 56.7 M DLX
/// nodes, about 23 s on two threads of the test build, so that the
/// interruption after 2 s comes early (with the symmetry, 7 s).
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn an_interrupted_count_resumes_to_the_published_total() {
    interrupt_then_resume(
        &data("brendan/s1_06x06.json"),
        &["--no-symmetry"],
        Duration::from_secs(2),
        260,
    );
}

/// A count that writes its own backups (`--backup FILE --backup-every 1`)
/// outlives its machine: killed with SIGKILL, its data directory left
/// behind as if the machine were gone, the last backup file restored into
/// a new directory resumes there to the whole total (the backtracker's).
#[test]
fn a_count_writing_backups_outlives_its_machine() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let expected = interrupted_puzzle_count(&puzzle);
    let puzzle = puzzle.to_string_lossy().into_owned();
    let (lost, there) = (dir.path().join("lost"), dir.path().join("there"));
    let file = dir.path().join("count.e2backup");
    let mut child = Command::new(E2)
        .args(["count", "--puzzle", &puzzle, "--engine", "dlx"])
        .args(["--threads", "2", "--backup-every", "1", "--data"])
        .arg(&lost)
        .arg("--backup")
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start e2 count");
    // Until a backup holds a finished task (the first comes within a
    // second or two of the start, the count lasts tens of seconds).
    let since = std::time::Instant::now();
    while !std::fs::read_to_string(&file).is_ok_and(|t| t.contains("\"state\":\"done\"")) {
        assert!(
            since.elapsed() < Duration::from_secs(120),
            "no backup with a finished task after two minutes"
        );
        assert!(child.try_wait().unwrap().is_none(), "the count ended first");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the count finished before the kill");

    from_backup_to_the_end(&puzzle, &there, &file, expected);
}

/// Resumes the count in `data` to the end: the whole total, `expected`.
/// Restores the backup `file` into the new directory `there` and resumes
/// the count there to the end: its summary, of `expected` boards.
fn from_backup_to_the_end(
    puzzle: &str,
    there: &Path,
    file: &Path,
    expected: u64,
) -> serde_json::Value {
    restore(there, file);
    resume_to_the_end(puzzle, there, expected)
}

/// A DLX count of `puzzle` stopped with Ctrl-C after `after`: its summary,
/// checked to be of an unfinished count that exited with 130 (a count
/// that finished first would make the caller's test prove nothing).
fn interrupted(puzzle: &str, extra: &[&str], data: &Path, after: Duration) -> serde_json::Value {
    let (first, code) = count(puzzle, extra, data, Some(after));
    assert_eq!(
        first["complete"], false,
        "the count finished before the interrupt; the test proves nothing: {first}"
    );
    assert_eq!(code, 130, "{first}");
    first
}

fn resume_to_the_end(puzzle: &str, data: &Path, expected: u64) -> serde_json::Value {
    let (last, code) = count(puzzle, &[], data, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["resumed"], true, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
    last
}

/// A clean stop (Ctrl-C) writes one last backup, whatever the interval:
/// the file then holds what the directory holds, and resumes elsewhere to
/// the whole total.
#[test]
fn a_count_stopped_with_ctrl_c_leaves_a_current_backup() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let expected = interrupted_puzzle_count(&puzzle);
    let puzzle = puzzle.to_string_lossy().into_owned();
    let file = dir.path().join("count.e2backup");
    let file_arg = file.to_string_lossy().into_owned();
    let extra = ["--backup", file_arg.as_str(), "--backup-every", "3600"];
    let first = interrupted(
        &puzzle,
        &extra,
        &dir.path().join("here"),
        Duration::from_secs(2),
    );
    let text = std::fs::read_to_string(&file).expect("a backup written at the stop");
    assert!(text.contains("\"state\":\"done\""), "{text}");
    let there = dir.path().join("there");
    let last = from_backup_to_the_end(&puzzle, &there, &file, expected);
    assert!(last["nodes"].as_u64() >= first["nodes"].as_u64(), "{last}");
}

/// A large count planned by an e2 from before tasks had their own
/// estimates (made here by rewriting a backup: the job's tree estimate
/// raised past the threshold, its tasks without estimates) has its planned
/// tasks estimated when it is resumed, and still counts to the whole total.
#[test]
fn a_count_planned_without_task_estimates_gets_them_when_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let expected = interrupted_puzzle_count(&puzzle);
    let puzzle = puzzle.to_string_lossy().into_owned();
    let (here, there) = (dir.path().join("here"), dir.path().join("there"));
    let (file, after) = (
        dir.path().join("old.e2backup"),
        dir.path().join("new.e2backup"),
    );
    interrupted(&puzzle, &[], &here, Duration::from_secs(2));
    backup(&here, &file);

    // Rewrite it as an older e2 with a larger tree would have left it.
    let mut lines: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut text = String::new();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let end = lines.pop().unwrap();
    for line in &mut lines {
        if let Some(count) = line.pointer_mut("/job/count") {
            count["estimate"] = serde_json::json!(20_000_000_000u64);
        }
        if let Some(task) = line.get_mut("task") {
            assert!(
                task["estimate"].is_null(),
                "a small count estimated a task: {task}"
            );
            task.as_object_mut().unwrap().remove("estimate");
        }
        let bytes = format!("{line}\n");
        for &b in bytes.as_bytes() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        text += &bytes;
    }
    let mut end = end;
    end["end"]["fnv1a64"] = serde_json::json!(format!("{hash:016x}"));
    text += &format!("{end}\n");
    std::fs::write(&file, text).unwrap();

    restore(&there, &file);
    let after_arg = after.to_string_lossy().into_owned();
    let extra = ["--backup", after_arg.as_str(), "--backup-every", "3600"];
    let (last, code) = count(&puzzle, &extra, &there, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
    let text = std::fs::read_to_string(&after).expect("the last backup");
    let planned: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|l| l.get("task").cloned())
        .filter(|t| t["parent"].is_null())
        .collect();
    assert!(planned.len() > 1, "{} planned tasks", planned.len());
    for task in &planned {
        assert!(
            task["estimate"].is_u64(),
            "a planned task left unestimated: {task}"
        );
    }
}

/// `--backup` is checked before the count starts: a file that cannot be
/// written is a one-line error, and `--backup-every` needs `--backup`.
#[test]
fn a_backup_path_that_cannot_be_written_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let missing = dir.path().join("no/such/dir/count.e2backup");
    for args in [
        vec!["--backup".to_string(), missing.display().to_string()],
        vec!["--backup".to_string(), dir.path().display().to_string()],
        vec!["--backup-every".to_string(), "5".to_string()],
    ] {
        let out = Command::new(E2)
            .args(["count", "--puzzle"])
            .arg(&puzzle)
            .args(&args)
            .output()
            .unwrap();
        // clap's usage errors exit with 2, e2's own with 1.
        let want = if args[0] == "--backup-every" { 2 } else { 1 };
        assert_eq!(out.status.code(), Some(want), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--backup"), "{args:?}: {err}");
        assert!(!dir.path().join("no").exists());
    }
}

fn e2(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(E2).args(args).output().expect("run e2")
}

/// `e2 backup --data DATA --out FILE`, which must succeed: its summary.
fn backup(data: &Path, file: &Path) -> serde_json::Value {
    let out = e2(&[
        "backup".as_ref(),
        "--data".as_ref(),
        data.as_os_str(),
        "--out".as_ref(),
        file.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A count stopped on one machine resumes on another: `e2 backup` writes
/// the stopped count's directory as one file, `e2 restore` fills a new
/// directory with it, and the same `e2 count` there resumes to the whole
/// total. A damaged copy of the file is refused without creating a store.
#[test]
fn an_interrupted_count_moves_by_backup_and_resumes_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = INTERRUPTED_PUZZLE.write(dir.path());
    let expected = interrupted_puzzle_count(&puzzle);
    let puzzle = puzzle.to_string_lossy().into_owned();
    let (here, there) = (dir.path().join("here"), dir.path().join("there"));
    let file = dir.path().join("count.e2backup");

    let first = interrupted(&puzzle, &[], &here, Duration::from_secs(2));

    let summary = backup(&here, &file);
    assert_eq!(summary["jobs"], 1, "{summary}");

    // One changed digit anywhere in a task line: refused, nothing created.
    let text = std::fs::read_to_string(&file).unwrap();
    let damaged = dir.path().join("damaged.e2backup");
    let at = text.find("\"nodes\":").unwrap() + "\"nodes\":".len();
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&damaged, bytes).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    let out = e2(&[
        "restore".as_ref(),
        "--data".as_ref(),
        elsewhere.as_os_str(),
        damaged.as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("checksum"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        !elsewhere.exists(),
        "a refused restore created {}",
        elsewhere.display()
    );

    let last = from_backup_to_the_end(&puzzle, &there, &file, expected);
    assert!(last["nodes"].as_u64() >= first["nodes"].as_u64(), "{last}");
}

/// A data directory that stops taking writes part way through a count (a
/// file-size limit on the process stands in for a full disk: writes past it
/// fail with EFBIG, as they would with ENOSPC): the count stops within
/// seconds with one line naming the failed write, instead of waiting forever
/// on a coordinator that can no longer record anything. Once the disk takes
/// writes again, the same command resumes to the exact total.
#[test]
fn a_count_whose_disk_fills_stops_with_one_line_and_resumes_exactly() {
    use std::os::unix::process::CommandExt;
    use std::time::Instant;

    let dir = tempfile::tempdir().unwrap();
    let puzzle = COUNT_RESUME_PUZZLE.write(dir.path());
    let expected = engine_count(&puzzle, e2_shared::engine::Engine::Backtrack);
    let data = dir.path().join("count");
    let run = |limit: Option<u64>| {
        let mut cmd = Command::new(E2);
        cmd.args(["count", "--threads", "2", "--puzzle"])
            .arg(&puzzle)
            .arg("--data")
            .arg(&data)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(bytes) = limit {
            // SAFETY: between fork and exec the closure makes two plain
            // system calls and allocates nothing.
            unsafe {
                cmd.pre_exec(move || {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let lim = libc::rlimit {
                        rlim_cur: bytes,
                        rlim_max: bytes,
                    };
                    if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().expect("start e2 count");
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("e2 count still running after 60 s: it hangs on the failed write");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    };

    // 32 KiB: sled's file passes it a few writes into the count.
    let full = run(Some(32 * 1024));
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert_eq!(full.status.code(), Some(1), "{stderr}");
    let errors: Vec<_> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let error = errors[0].to_lowercase();
    assert!(
        error.contains("failed write") && error.contains("file too large"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let last = run(None);
    let stdout = String::from_utf8_lossy(&last.stdout);
    let resumed_err = String::from_utf8_lossy(&last.stderr);
    assert_eq!(
        last.status.code(),
        Some(0),
        "{stdout}\n{resumed_err}\nthe first run said: {stderr}"
    );
    let last: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(last["resumed"], true, "the job was not kept: {last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
}
