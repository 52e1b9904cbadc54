//! Backups: a coordinator's whole store as one portable text file.
//!
//! Why a format of its own rather than a copy of the sled directory: sled's
//! files are tied to sled's version and must not be copied while a process
//! holds them, and a copy cut short opens as an older state without a word
//! (the witness file in [`crate::store`] exists for that reason). A backup
//! is instead the records themselves, one JSON value per line, which any
//! later e2 reads into an empty directory on any machine: a long count
//! stopped on one machine is resumed on another, and a store is kept safe
//! while its disk is replaced.
//!
//! The file, line by line:
//!
//! ```text
//! {"e2_backup":{"version":1,"incarnation":7}}
//! {"job":{...JobRecord...}}             one per job
//! {"task":{...TaskRecord...}}           one per task (with its checkpoint)
//! {"best":{"job":1,"score":455,"hash":...,"doc":"...BoardDoc JSON..."}}
//! {"end":{"jobs":1,"tasks":174,"best":0,"fnv1a64":"9f0c..."}}
//! ```
//!
//! The last line counts the records and carries the FNV-1a 64 hash of every
//! byte before it, so a file cut short, edited or mixed with another is
//! refused as a whole, with the line that gave it away, before anything is
//! written. A restore also checks what the ledger relies on: unique job and
//! task ids, every task and board belonging to a job in the file, each
//! job's puzzle passing the checks of a submission, and each count job's
//! total equal to the sum over its finished tasks. It fills only
//! an empty directory, in one transaction; the coordinator that opens it
//! next starts a new incarnation, so no lease from before the backup is
//! honoured.
//!
//! A running coordinator writes the same file on a [`Schedule`]: the
//! records read under the ledger's lock (one moment), the file replaced
//! whole ([`write_file`]).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::records::{BestEntry, JobId, JobRecord, Mode, TaskRecord, TaskState};
use crate::store::{Loaded, Store, StoreError};

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// No record comes near this (a 16×16 job with its puzzle is a few kB); a
/// longer line is refused rather than read into memory.
const MAX_LINE: u64 = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("backup line {line}: {reason}")]
    Line { line: usize, reason: String },
    #[error("backup: {0}")]
    Inconsistent(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "data directory {0}: no e2 store there (a directory an e2 coordinator or `e2 count \
         --data` wrote)"
    )]
    NoStore(String),
}

/// What a backup held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub jobs: usize,
    pub tasks: usize,
    pub best: usize,
}

impl Summary {
    fn of(loaded: &Loaded) -> Self {
        Summary {
            jobs: loaded.jobs.len(),
            tasks: loaded.tasks.len(),
            best: loaded.best.len(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    version: u32,
    incarnation: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct End {
    jobs: usize,
    tasks: usize,
    best: usize,
    fnv1a64: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    E2Backup(Header),
    Job(Box<JobRecord>),
    Task(Box<TaskRecord>),
    Best(BestEntry),
    End(End),
}

/// FNV-1a, 64 bits: a checksum against accidents, not against an adversary
/// (whoever can write the backup can write the store).
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Writes `loaded` as a backup.
pub fn write(loaded: &Loaded, out: &mut impl Write) -> Result<Summary, BackupError> {
    let mut hash = Fnv::new();
    let mut put = |line: &Line, hash: &mut Fnv| -> Result<(), BackupError> {
        let mut bytes = serde_json::to_vec(line).expect("records serialise");
        bytes.push(b'\n');
        hash.add(&bytes);
        out.write_all(&bytes)?;
        Ok(())
    };
    put(
        &Line::E2Backup(Header {
            version: VERSION,
            incarnation: loaded.incarnation,
        }),
        &mut hash,
    )?;
    for job in &loaded.jobs {
        put(&Line::Job(Box::new(job.clone())), &mut hash)?;
    }
    for task in &loaded.tasks {
        put(&Line::Task(Box::new(task.clone())), &mut hash)?;
    }
    for best in &loaded.best {
        put(&Line::Best(best.clone()), &mut hash)?;
    }
    let summary = Summary::of(loaded);
    let end = Line::End(End {
        jobs: summary.jobs,
        tasks: summary.tasks,
        best: summary.best,
        fnv1a64: hash.hex(),
    });
    put(&end, &mut hash)?;
    out.flush()?;
    Ok(summary)
}

/// Reads and checks a whole backup (see the module docs); nothing is
/// returned unless every line and every cross-check holds.
pub fn read(input: &mut impl BufRead) -> Result<Loaded, BackupError> {
    let mut loaded = Loaded::default();
    let mut hash = Fnv::new();
    let mut header = false;
    let mut end: Option<(usize, End)> = None;
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut buf)?;
        if read == 0 {
            break;
        }
        n += 1;
        let at = |reason: String| BackupError::Line { line: n, reason };
        if read as u64 > MAX_LINE {
            return Err(at(format!("longer than {MAX_LINE} bytes")));
        }
        if let Some((line, _)) = end {
            return Err(at(format!("text after the end line (line {line})")));
        }
        if buf.last() != Some(&b'\n') {
            return Err(at("the file ends inside this line (cut short?)".into()));
        }
        let line: Line = serde_json::from_slice(&buf[..buf.len() - 1])
            .map_err(|e| at(format!("not a backup record: {e}")))?;
        match line {
            Line::E2Backup(h) => {
                if n != 1 {
                    return Err(at("a second header".into()));
                }
                if h.version != VERSION {
                    return Err(at(format!(
                        "format version {} (this e2 reads version {VERSION})",
                        h.version
                    )));
                }
                loaded.incarnation = h.incarnation;
                header = true;
            }
            _ if !header => {
                return Err(at(
                    "not an e2 backup: the first line must be its header".into()
                ))
            }
            Line::Job(job) => loaded.jobs.push(*job),
            Line::Task(task) => loaded.tasks.push(*task),
            Line::Best(best) => loaded.best.push(best),
            Line::End(e) => {
                if e.fnv1a64 != hash.hex() {
                    return Err(at(format!(
                        "checksum {} does not match the lines before it ({}): the file was \
                         changed or mixed with another",
                        e.fnv1a64,
                        hash.hex()
                    )));
                }
                end = Some((n, e));
            }
        }
        hash.add(&buf);
    }
    let Some((line, end)) = end else {
        return Err(if n == 0 {
            BackupError::Inconsistent("the file is empty: not an e2 backup".into())
        } else {
            BackupError::Line {
                line: n,
                reason: "no end line: the file was cut short".into(),
            }
        });
    };
    let held = (loaded.jobs.len(), loaded.tasks.len(), loaded.best.len());
    if held != (end.jobs, end.tasks, end.best) {
        return Err(BackupError::Line {
            line,
            reason: format!(
                "the end line counts {} jobs, {} tasks, {} boards; the file holds {}, {}, {}",
                end.jobs, end.tasks, end.best, held.0, held.1, held.2
            ),
        });
    }
    check(&loaded)?;
    Ok(loaded)
}

/// What the ledger relies on when it loads a store.
fn check(loaded: &Loaded) -> Result<(), BackupError> {
    let bad = |s: String| Err(BackupError::Inconsistent(s));
    let mut jobs: HashMap<JobId, &JobRecord> = HashMap::new();
    for job in &loaded.jobs {
        if jobs.insert(job.id, job).is_some() {
            return bad(format!("job {} appears twice", job.id));
        }
        // The same rules as a submission: the coordinator plans with it.
        if let Err(e) = job.puzzle.to_puzzle().validate_allowing_duplicates() {
            return bad(format!("job {}: its puzzle: {e}", job.id));
        }
    }
    let mut seen = HashSet::new();
    let mut tally: HashMap<JobId, (u64, u64)> = HashMap::new();
    for task in &loaded.tasks {
        let Some(job) = jobs.get(&task.job) else {
            return bad(format!(
                "task {} belongs to job {}, which is not in the backup",
                task.id, task.job
            ));
        };
        if !seen.insert((task.job, task.id)) {
            return bad(format!(
                "task {} of job {} appears twice",
                task.id, task.job
            ));
        }
        if task.id >= job.next_task_id {
            return bad(format!(
                "task {} of job {} is beyond the job's next task id {}",
                task.id, task.job, job.next_task_id
            ));
        }
        if task.state == TaskState::Done && task.recount.is_none() {
            let t = tally.entry(task.job).or_default();
            t.0 += 1;
            t.1 = t.1.saturating_add(task.solutions);
        }
    }
    for b in &loaded.best {
        if !jobs.contains_key(&b.job) {
            return bad(format!(
                "a best board belongs to job {}, which is not in the backup",
                b.job
            ));
        }
    }
    // A verified count's total moves with its votes; any other count's
    // total is exactly the sum over its finished tasks.
    for job in &loaded.jobs {
        if job.mode != Mode::Count || job.verify.is_some() {
            continue;
        }
        let (done, solutions) = tally.get(&job.id).copied().unwrap_or_default();
        if (done, solutions) != (job.tasks_done, job.solutions) {
            return bad(format!(
                "job {}: {} tasks done with {} solutions in all, but the job records {} and {}",
                job.id, done, solutions, job.tasks_done, job.solutions
            ));
        }
    }
    Ok(())
}

/// Where and how often a running coordinator writes its own backup
/// (`e2 count --backup`, `e2 coordinator --backup`): a long count then
/// survives the loss of its machine, not only of its process, when the
/// file is on another disk or copied off the machine.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub path: std::path::PathBuf,
    pub every: std::time::Duration,
}

/// Writes `loaded` to `path` whole or not at all: into `PATH.partial`,
/// synced to disk, then renamed over `path`, so a crash mid-write leaves
/// the previous backup in place. A new file is readable by its owner only
/// (it holds the jobs' puzzles and results).
pub fn write_file(loaded: &Loaded, path: &Path) -> Result<Summary, BackupError> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let file = open.open(&partial)?;
    let mut out = std::io::BufWriter::new(file);
    let summary = write(loaded, &mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    std::fs::rename(&partial, path)?;
    Ok(summary)
}

/// Writes a backup of the store in `dir`, which no process may hold.
pub fn backup(dir: &Path, out: &mut impl Write) -> Result<Summary, BackupError> {
    if !dir.join("conf").is_file() {
        return Err(BackupError::NoStore(dir.display().to_string()));
    }
    let store = Store::open(dir)?;
    let loaded = store.snapshot()?;
    write(&loaded, out)
}

/// Reads and checks a backup, then fills the empty (or new) directory
/// `dir` with it.
pub fn restore(dir: &Path, input: &mut impl BufRead) -> Result<Summary, BackupError> {
    let loaded = read(input)?;
    let holds_other_files = std::fs::read_dir(dir)
        .map(|mut entries| entries.next().is_some())
        .unwrap_or(false);
    if holds_other_files && !dir.join("conf").is_file() {
        return Err(BackupError::Inconsistent(format!(
            "{} holds files that are not an e2 store; restore into a new or empty directory",
            dir.display()
        )));
    }
    let store = Store::open(dir)?;
    store.fill(&loaded)?;
    Ok(Summary::of(&loaded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::TaskRecord;
    use crate::store::Writes;

    /// A count job with three tasks, two done (3 and 4 solutions, the job's
    /// total 7), one with a checkpoint; and a best job with one board.
    fn records() -> Loaded {
        let mut count = JobRecord::sample(1);
        count.tasks_total = 3;
        count.next_task_id = 3;
        count.tasks_done = 2;
        count.solutions = 7;
        let mut tasks: Vec<TaskRecord> = (0..3)
            .map(|t| TaskRecord::new(1, t, None, vec![]))
            .collect();
        for (task, found) in tasks.iter_mut().zip([3, 4]) {
            task.state = TaskState::Done;
            task.solutions = found;
            task.nodes = 100 * found;
        }
        let mut best = JobRecord::sample(2);
        best.mode = Mode::Best;
        Loaded {
            jobs: vec![count, best],
            tasks,
            best: vec![BestEntry {
                job: 2,
                score: 11,
                hash: 99,
                doc: "{\"board\":\"x\"}".into(),
            }],
            incarnation: 5,
        }
    }

    /// A store in `dir` holding `loaded`, closed.
    fn store_with(dir: &Path, loaded: &Loaded) {
        let store = Store::open(dir).unwrap();
        store.load().unwrap();
        store
            .commit(&Writes {
                jobs: loaded.jobs.clone(),
                tasks: loaded.tasks.clone(),
                best_put: loaded.best.clone(),
                best_remove: vec![],
                durable: true,
            })
            .unwrap();
        store.close().unwrap();
    }

    fn text(loaded: &Loaded) -> Vec<u8> {
        let mut out = Vec::new();
        write(loaded, &mut out).unwrap();
        out
    }

    fn same_records(a: &Loaded, b: &Loaded) {
        assert_eq!(a.jobs, b.jobs);
        assert_eq!(a.tasks, b.tasks);
        assert_eq!(a.best, b.best);
    }

    #[test]
    fn a_store_backed_up_and_restored_elsewhere_holds_the_same_records() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        store_with(&from, &records());
        let mut file = Vec::new();
        let summary = backup(&from, &mut file).unwrap();
        assert_eq!(
            summary,
            Summary {
                jobs: 2,
                tasks: 3,
                best: 1
            }
        );
        restore(&to, &mut &file[..]).unwrap();
        let (a, b) = (Store::open(&from).unwrap(), Store::open(&to).unwrap());
        let (a, b) = (a.snapshot().unwrap(), b.load().unwrap());
        same_records(&a, &b);
        // The restored store's next start is past every incarnation the
        // backed-up store had started, so no old lease epoch is honoured.
        assert_eq!(b.incarnation, a.incarnation + 1);
    }

    #[test]
    fn a_backup_leaves_the_store_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        store_with(dir.path(), &records());
        let before = Store::open(dir.path()).unwrap().snapshot().unwrap();
        backup(dir.path(), &mut Vec::new()).unwrap();
        let after = Store::open(dir.path()).unwrap().snapshot().unwrap();
        same_records(&before, &after);
        assert_eq!(before.incarnation, after.incarnation);
    }

    #[test]
    fn a_file_cut_anywhere_is_refused() {
        let file = text(&records());
        for cut in 0..file.len() {
            let err = read(&mut &file[..cut]).unwrap_err().to_string();
            assert!(
                err.contains("cut short") || (cut == 0 && err.contains("empty")),
                "cut at {cut}: {err}"
            );
        }
        assert!(read(&mut &file[..]).is_ok());
    }

    #[test]
    fn a_changed_figure_is_refused_by_its_checksum() {
        let file = String::from_utf8(text(&records())).unwrap();
        let changed = file.replacen("\"solutions\":4", "\"solutions\":5", 1);
        assert_ne!(changed, file);
        let err = read(&mut changed.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        // The checksum is on the last line: it cannot tell which line changed.
        assert!(err.starts_with("backup line 8:"), "{err}");
    }

    #[test]
    fn a_total_that_is_not_the_sum_of_its_tasks_is_refused() {
        let mut loaded = records();
        loaded.jobs[0].solutions = 8;
        let err = read(&mut &text(&loaded)[..]).unwrap_err().to_string();
        assert!(
            err.contains("job 1: 2 tasks done with 7 solutions"),
            "{err}"
        );
        let mut loaded = records();
        loaded.tasks[2].job = 9;
        let err = read(&mut &text(&loaded)[..]).unwrap_err().to_string();
        assert!(err.contains("job 9, which is not in the backup"), "{err}");
        let mut loaded = records();
        loaded.jobs[1].puzzle.width = 0;
        let err = read(&mut &text(&loaded)[..]).unwrap_err().to_string();
        assert!(err.contains("job 2: its puzzle:"), "{err}");
        let mut loaded = records();
        loaded.tasks.push(loaded.tasks[0].clone());
        let err = read(&mut &text(&loaded)[..]).unwrap_err().to_string();
        assert!(err.contains("task 0 of job 1 appears twice"), "{err}");
    }

    #[test]
    fn text_that_is_not_a_backup_is_refused_on_its_first_line() {
        for bad in [
            "hello\n",
            "{\"job\":1}\n",
            "{\"e2_backup\":{\"version\":2,\"incarnation\":1}}\n",
        ] {
            let err = read(&mut bad.as_bytes()).unwrap_err().to_string();
            assert!(err.starts_with("backup line 1:"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_restore_refuses_a_directory_that_holds_jobs_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut other = records();
        other.jobs.truncate(1);
        other.jobs[0].id = 1;
        other.best.clear();
        store_with(dir.path(), &other);
        let before = Store::open(dir.path()).unwrap().snapshot().unwrap();
        let err = restore(dir.path(), &mut &text(&records())[..]).unwrap_err();
        assert!(err.to_string().contains("already holds jobs"), "{err}");
        let after = Store::open(dir.path()).unwrap().snapshot().unwrap();
        same_records(&before, &after);
    }

    #[test]
    fn a_restore_refuses_a_directory_of_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = restore(dir.path(), &mut &text(&records())[..]).unwrap_err();
        assert!(err.to_string().contains("not an e2 store"), "{err}");
        assert!(!dir.path().join("conf").exists());
    }

    #[test]
    fn a_backup_of_a_store_in_use_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        store_with(dir.path(), &records());
        let _held = Store::open(dir.path()).unwrap();
        let err = backup(dir.path(), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("in use"), "{err}");
    }
}
