//! The coordinator's disk: four sled trees and one way to write them.
//!
//! - `jobs`: [`JobRecord`] by job id;
//! - `tasks`: [`TaskRecord`] by job id ++ task id (the task ledger, with
//!   each count task's checkpoint);
//! - `best`: BoardDoc JSON by job id ++ score descending ++ board hash;
//! - `meta`: the incarnation counter and the flush generation.
//!
//! Damage is refused, never papered over. sled recovers a damaged log to
//! a consistent *prefix*, which is right for a torn last write and wrong
//! for a file cut in half or overwritten: the store would open without a
//! word, holding an older state, and a count would silently start again.
//! So each flush bumps a generation counter inside sled, and a small
//! *witness* file beside it (`e2-witness.json`, written by rename at most
//! once a second, at start and at shutdown) records the last generation
//! flushed. A store whose generation is below its witness's lost changes
//! it had acknowledged, and opening it is an error naming the directory
//! and what to do; so is a store sled cannot read, or that makes it panic.
//!
//! Every change is a [`Writes`] batch applied in one multi-tree sled
//! transaction, so a task's completion and the job total it adds to are
//! never apart on disk. A batch marked durable must be flushed
//! ([`Store::flush_upto`]) before anyone is told it happened.
//!
//! Commits and flushes never overlap, and one flush runs at a time. The
//! first design called `flush_async` from every completion while other
//! completions ran transactions; under 32 concurrent completions sled 0.34
//! deadlocked (every sled I/O thread waiting for the shared lock behind a
//! transaction's exclusive request, while a flush holding the shared lock
//! waited for I/O). Here a gate keeps transactions out while a flush runs,
//! and flushes are coalesced: a commit is acknowledged once a flush that
//! started after it has finished, so concurrent completions share one sync.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::records::{
    best_key, job_key, parse_best_key, task_key, BestEntry, JobId, JobRecord, TaskRecord,
};
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "data directory {dir}: in use by another e2 process (a coordinator or an e2 count); \
         stop it first, or use another directory"
    )]
    InUse { dir: PathBuf },
    #[error(
        "data directory {dir} is damaged ({reason}); nothing was changed: restore it from a \
         backup, or move it aside to start afresh"
    )]
    Damaged { dir: PathBuf, reason: String },
    #[error("data directory: {0}")]
    Sled(String),
    #[error(
        "data directory {dir} already holds jobs; a backup is restored only into an empty \
         directory (a new path, or move this one aside)"
    )]
    NotEmpty { dir: PathBuf },
    #[error("data directory: record {key}: {reason}")]
    Corrupt { key: String, reason: String },
}

impl From<sled::Error> for StoreError {
    fn from(e: sled::Error) -> Self {
        StoreError::Sled(match e {
            // sled 0.34 re-wraps a failed write as a custom I/O error whose
            // text is the original's debug form; its kind reads better
            // ("no storage space", "file too large").
            sled::Error::Io(io) if io.raw_os_error().is_none() => io.kind().to_string(),
            other => other.to_string(),
        })
    }
}

/// The witness file's name, beside sled's own files.
pub const WITNESS: &str = "e2-witness.json";
/// How often a flush also rewrites the witness.
const WITNESS_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Witness {
    /// The last flush generation known to be on disk.
    generation: u64,
}

/// Runs `f`, turning a panic inside sled into an error (with the panic
/// message, and without the default hook printing it as a crash).
///
/// The panic hook is process-wide, so swapping it around `f` would also
/// silence any other thread that panicked meanwhile (in the test harness,
/// another test's failure would lose its message). Instead one hook,
/// installed once, stays quiet only for the thread that is inside `f`.
fn without_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    thread_local! {
        static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    out.map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "sled panicked".to_string())
    })
}

/// How long [`Store::open`] waits for sled's file lock before calling the
/// directory in use. sled 0.34 releases the lock from its flusher thread
/// some milliseconds after the last handle is dropped, so a store closed
/// and reopened at once (a restart, a test) finds it still held; another
/// process holding it is still refused, a moment later.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// A batch of upserts and removals, applied all or nothing.
#[derive(Debug, Default)]
pub struct Writes {
    pub jobs: Vec<JobRecord>,
    pub tasks: Vec<TaskRecord>,
    pub best_put: Vec<BestEntry>,
    pub best_remove: Vec<(JobId, u32, u64)>,
    /// Must reach disk before the change is acknowledged.
    pub durable: bool,
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
            && self.tasks.is_empty()
            && self.best_put.is_empty()
            && self.best_remove.is_empty()
    }

    pub fn merge(&mut self, other: Writes) {
        self.jobs.extend(other.jobs);
        self.tasks.extend(other.tasks);
        self.best_put.extend(other.best_put);
        self.best_remove.extend(other.best_remove);
        self.durable |= other.durable;
    }
}

/// Everything on disk, as loaded at start.
#[derive(Debug, Default)]
pub struct Loaded {
    pub jobs: Vec<JobRecord>,
    pub tasks: Vec<TaskRecord>,
    pub best: Vec<BestEntry>,
    pub incarnation: u64,
}

#[derive(Clone)]
pub struct Store {
    /// Held by a commit's transaction or a flush, never both at once.
    gate: Arc<Mutex<()>>,
    /// Sequence number of the last commit, and of the last commit known
    /// to be flushed.
    committed: Arc<AtomicU64>,
    flushed: Arc<AtomicU64>,
    /// One flush at a time; later callers often find their commit flushed.
    flushing: Arc<tokio::sync::Mutex<()>>,
    db: sled::Db,
    jobs: sled::Tree,
    tasks: sled::Tree,
    best: sled::Tree,
    meta: sled::Tree,
    dir: PathBuf,
    /// The flush generation last written into `meta`.
    generation: Arc<AtomicU64>,
    /// When the witness was last written.
    witnessed: Arc<Mutex<Option<Instant>>>,
}

const INCARNATION: &[u8] = b"incarnation";
const GENERATION: &[u8] = b"generation";

impl Store {
    /// Opens (or creates) the store in `dir`. A directory another process
    /// holds, or that sled cannot read, is an error saying so.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        let damaged = |reason: String| StoreError::Damaged {
            dir: dir.to_path_buf(),
            reason,
        };
        let open = || {
            without_panics(|| -> Result<_, sled::Error> {
                let db = sled::Config::new().path(dir).open()?;
                let trees = (
                    db.open_tree("jobs")?,
                    db.open_tree("tasks")?,
                    db.open_tree("best")?,
                    db.open_tree("meta")?,
                );
                Ok((db, trees))
            })
            .map_err(|panic| damaged(format!("sled cannot open it: {panic}")))
        };
        // sled words its file-lock failure as an I/O error of its own.
        let locked = |e: &sled::Error| {
            matches!(e, sled::Error::Io(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.to_string().contains("could not acquire lock"))
        };
        let since = Instant::now();
        let mut opened = open()?;
        while opened.as_ref().is_err_and(locked) && since.elapsed() < LOCK_WAIT {
            std::thread::sleep(Duration::from_millis(20));
            opened = open()?;
        }
        let (db, (jobs, tasks, best, meta)) = match opened {
            Ok(o) => o,
            Err(e) if locked(&e) => {
                return Err(StoreError::InUse {
                    dir: dir.to_path_buf(),
                })
            }
            Err(sled::Error::Corruption { .. }) => {
                return Err(damaged("sled found corrupted data in its log".into()))
            }
            Err(e) => return Err(StoreError::Sled(format!("{}: {e}", dir.display()))),
        };
        Ok(Store {
            gate: Arc::default(),
            committed: Arc::default(),
            flushed: Arc::default(),
            flushing: Arc::default(),
            jobs,
            tasks,
            best,
            meta,
            db,
            dir: dir.to_path_buf(),
            generation: Arc::default(),
            witnessed: Arc::default(),
        })
    }

    fn damaged(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Damaged {
            dir: self.dir.clone(),
            reason: reason.into(),
        }
    }

    /// The generation the witness file records (0 when there is none yet:
    /// a new directory, or one written before witnesses existed).
    fn witnessed_generation(&self) -> Result<u64, StoreError> {
        match std::fs::read(self.dir.join(WITNESS)) {
            Ok(bytes) => serde_json::from_slice::<Witness>(&bytes)
                .map(|w| w.generation)
                .map_err(|e| self.damaged(format!("{WITNESS} does not read: {e}"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(StoreError::Sled(format!("{}: {e}", self.dir.display()))),
        }
    }

    /// Rewrites the witness (by rename, so it is never half written).
    fn write_witness(&self, generation: u64) -> Result<(), StoreError> {
        let tmp = self.dir.join(format!("{WITNESS}.tmp"));
        let text = serde_json::to_vec(&Witness { generation }).expect("witness serialises");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, self.dir.join(WITNESS)))
            .map_err(|e| StoreError::Sled(format!("{}: {WITNESS}: {e}", self.dir.display())))?;
        *self.witnessed.lock().expect("witness lock") = Some(Instant::now());
        Ok(())
    }

    /// Reads everything and starts a new incarnation (flushed before
    /// returning), so lease epochs issued from now on are above any issued
    /// before the restart.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        self.reading(|| self.load_checked())
    }

    /// Runs a read of the whole store, turning a record that does not
    /// decode, a sled error or a panic inside sled into [`StoreError::Damaged`].
    fn reading(
        &self,
        read: impl FnOnce() -> Result<Loaded, StoreError>,
    ) -> Result<Loaded, StoreError> {
        match without_panics(read) {
            Ok(Ok(loaded)) => Ok(loaded),
            Ok(Err(StoreError::Corrupt { key, reason })) => {
                Err(self.damaged(format!("record {key} does not read: {reason}")))
            }
            Ok(Err(StoreError::Sled(e))) => Err(self.damaged(format!("sled cannot read it: {e}"))),
            Ok(Err(e)) => Err(e),
            Err(panic) => Err(self.damaged(format!("sled cannot read it: {panic}"))),
        }
    }

    fn load_checked(&self) -> Result<Loaded, StoreError> {
        self.check_generation()?;
        let incarnation = self.incarnation()? + 1;
        self.set_incarnation(incarnation)?;
        self.flush_generation(true)?;
        let mut loaded = self.read_all()?;
        loaded.incarnation = incarnation;
        Ok(loaded)
    }

    /// Refuses a store whose log holds fewer flushes than its witness
    /// recorded; otherwise carries on from its generation.
    fn check_generation(&self) -> Result<(), StoreError> {
        let on_disk = self
            .meta
            .get(GENERATION)?
            .map(|v| decode::<u64>(GENERATION, &v))
            .transpose()?
            .unwrap_or(0);
        let witnessed = self.witnessed_generation()?;
        if on_disk < witnessed {
            return Err(self.damaged(format!(
                "it holds fewer changes than it had acknowledged: flush generation {on_disk} \
                 on disk, {witnessed} recorded in {WITNESS}; its log was cut short or overwritten"
            )));
        }
        self.generation.store(on_disk, Ordering::Release);
        Ok(())
    }

    /// The incarnation last started (0 for a new store).
    fn incarnation(&self) -> Result<u64, StoreError> {
        Ok(self
            .meta
            .get(INCARNATION)?
            .map(|v| decode::<u64>(INCARNATION, &v))
            .transpose()?
            .unwrap_or(0))
    }

    fn set_incarnation(&self, incarnation: u64) -> Result<(), StoreError> {
        let value = serde_json::to_vec(&incarnation).expect("u64 serialises");
        self.meta.insert(INCARNATION, value)?;
        Ok(())
    }

    /// Every record, and the incarnation last started, changing nothing.
    fn read_all(&self) -> Result<Loaded, StoreError> {
        let mut loaded = Loaded {
            incarnation: self.incarnation()?,
            ..Loaded::default()
        };
        for kv in self.jobs.iter() {
            let (k, v) = kv?;
            loaded.jobs.push(decode(&k, &v)?);
        }
        for kv in self.tasks.iter() {
            let (k, v) = kv?;
            loaded.tasks.push(decode(&k, &v)?);
        }
        for kv in self.best.iter() {
            let (k, v) = kv?;
            let (job, score, hash) = parse_best_key(&k).ok_or_else(|| StoreError::Corrupt {
                key: format!("{k:?}"),
                reason: "not a best-board key".into(),
            })?;
            let doc = String::from_utf8(v.to_vec()).map_err(|e| StoreError::Corrupt {
                key: format!("{k:?}"),
                reason: e.to_string(),
            })?;
            loaded.best.push(BestEntry {
                job,
                score,
                hash,
                doc,
            });
        }
        Ok(loaded)
    }

    /// Everything on disk, as [`Store::load`] reads it, but without
    /// starting an incarnation or writing anything: what a backup copies.
    pub fn snapshot(&self) -> Result<Loaded, StoreError> {
        self.reading(|| {
            self.check_generation()?;
            self.read_all()
        })
    }

    /// Everything in the store, read while it is in use. The caller keeps
    /// commits out while it reads (see `Shared::snapshot`), so the records
    /// are those of one moment.
    pub fn read_live(&self) -> Result<Loaded, StoreError> {
        self.reading(|| self.read_all())
    }

    /// Whether the store holds no job, task or best board.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty() && self.tasks.is_empty() && self.best.is_empty()
    }

    /// Fills an empty store with `loaded` (a restored backup) in one
    /// transaction, with its incarnation, and flushes it with a witness,
    /// so the next [`Store::load`] starts the incarnation after it.
    pub fn fill(&self, loaded: &Loaded) -> Result<(), StoreError> {
        if !self.is_empty() {
            return Err(StoreError::NotEmpty {
                dir: self.dir.clone(),
            });
        }
        self.check_generation()?;
        self.set_incarnation(loaded.incarnation)?;
        self.commit(&Writes {
            jobs: loaded.jobs.clone(),
            tasks: loaded.tasks.clone(),
            best_put: loaded.best.clone(),
            best_remove: Vec::new(),
            durable: true,
        })?;
        self.close()
    }

    /// Applies a batch in one transaction over the three data trees;
    /// returns the commit's sequence number for [`Store::flush_upto`].
    pub fn commit(&self, writes: &Writes) -> Result<u64, StoreError> {
        if writes.is_empty() {
            return Ok(self.committed.load(Ordering::Acquire));
        }
        // Serialise outside the transaction: sled may run the closure twice.
        let jobs: Vec<_> = writes
            .jobs
            .iter()
            .map(|j| {
                (
                    job_key(j.id),
                    serde_json::to_vec(j).expect("job serialises"),
                )
            })
            .collect();
        let tasks: Vec<_> = writes
            .tasks
            .iter()
            .map(|t| {
                (
                    task_key(t.job, t.id),
                    serde_json::to_vec(t).expect("task serialises"),
                )
            })
            .collect();
        let best_put: Vec<_> = writes
            .best_put
            .iter()
            .map(|b| (best_key(b.job, b.score, b.hash), b.doc.as_bytes().to_vec()))
            .collect();
        let best_remove: Vec<_> = writes
            .best_remove
            .iter()
            .map(|&(job, score, hash)| best_key(job, score, hash))
            .collect();
        let _gate = self.gate.lock().expect("store gate");
        (&self.jobs, &self.tasks, &self.best)
            .transaction(|(j, t, b)| {
                for (k, v) in &jobs {
                    j.insert(&k[..], &v[..])?;
                }
                for (k, v) in &tasks {
                    t.insert(&k[..], &v[..])?;
                }
                for k in &best_remove {
                    b.remove(&k[..])?;
                }
                for (k, v) in &best_put {
                    b.insert(&k[..], &v[..])?;
                }
                Ok::<(), ConflictableTransactionError<()>>(())
            })
            .map_err(|e| match e {
                TransactionError::Storage(e) => StoreError::from(e),
                TransactionError::Abort(()) => unreachable!("the transaction never aborts"),
            })?;
        Ok(self.committed.fetch_add(1, Ordering::AcqRel) + 1)
    }

    /// Returns once commit `seq` (and every one before it) is flushed.
    pub async fn flush_upto(&self, seq: u64) -> Result<(), StoreError> {
        if self.flushed.load(Ordering::Acquire) >= seq {
            return Ok(());
        }
        let _one_at_a_time = self.flushing.lock().await;
        if self.flushed.load(Ordering::Acquire) >= seq {
            return Ok(());
        }
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.flush_blocking())
            .await
            .expect("flushing does not panic")
    }

    /// Flushes every commit made so far.
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.flush_upto(self.committed.load(Ordering::Acquire))
            .await
    }

    /// Writes every buffered change and syncs it to the file.
    pub fn flush_blocking(&self) -> Result<(), StoreError> {
        let _gate = self.gate.lock().expect("store gate");
        let upto = self.committed.load(Ordering::Acquire);
        self.flush_generation(false)?;
        self.flushed.fetch_max(upto, Ordering::AcqRel);
        Ok(())
    }

    /// Flushes with the next generation, then (at most once a second, or
    /// when `witness_now`) records that generation in the witness file.
    /// Called with the gate held, or before anyone commits.
    fn flush_generation(&self, witness_now: bool) -> Result<(), StoreError> {
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        self.meta.insert(
            GENERATION,
            serde_json::to_vec(&generation).expect("u64 serialises"),
        )?;
        self.db.flush()?;
        let due = self
            .witnessed
            .lock()
            .expect("witness lock")
            .is_none_or(|t| t.elapsed() >= WITNESS_EVERY);
        if witness_now || due {
            self.write_witness(generation)?;
        }
        Ok(())
    }

    /// The last flush of a clean stop: everything on disk, witness included.
    pub fn close(&self) -> Result<(), StoreError> {
        let _gate = self.gate.lock().expect("store gate");
        let upto = self.committed.load(Ordering::Acquire);
        self.flush_generation(true)?;
        self.flushed.fetch_max(upto, Ordering::AcqRel);
        Ok(())
    }
}

fn decode<T: serde::de::DeserializeOwned>(key: &[u8], value: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(value).map_err(|e| StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: JobId) -> JobRecord {
        JobRecord::sample(id)
    }

    /// The load that hung the first design (32 completions at once, each
    /// committed then flushed before its ack, flushes via concurrent
    /// `flush_async`) must finish: every commit is flushed and readable.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_commits_and_flushes_finish() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.load().unwrap();
        let mut handles = Vec::new();
        for n in 0..32u64 {
            let store = store.clone();
            handles.push(tokio::spawn(async move {
                for i in 0..20u64 {
                    let mut w = Writes::default();
                    w.tasks.push(TaskRecord::new(n, i, None, vec![]));
                    let seq = store.commit(&w).unwrap();
                    store.flush_upto(seq).await.unwrap();
                }
            }));
        }
        let all = async {
            for h in handles {
                h.await.unwrap();
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), all)
            .await
            .expect("commits and flushes deadlocked");
        assert_eq!(store.load().unwrap().tasks.len(), 32 * 20);
    }

    #[test]
    fn committed_batches_survive_reopening_and_bump_the_incarnation() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            assert_eq!(store.load().unwrap().incarnation, 1);
            let mut w = Writes::default();
            w.jobs.push(job(7));
            w.tasks.push(TaskRecord::new(7, 0, None, vec![]));
            w.best_put.push(BestEntry {
                job: 7,
                score: 4,
                hash: 9,
                doc: "{}".into(),
            });
            store.commit(&w).unwrap();
            store.flush_blocking().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        let loaded = store.load().unwrap();
        assert_eq!(loaded.incarnation, 2);
        assert_eq!(loaded.jobs, vec![job(7)]);
        assert_eq!(loaded.tasks.len(), 1);
        assert_eq!(loaded.best[0].score, 4);
        let mut w = Writes::default();
        w.best_remove.push((7, 4, 9));
        store.commit(&w).unwrap();
        assert!(store.load().unwrap().best.is_empty());
    }

    /// A store with `jobs` jobs, each its own flushed commit, closed cleanly.
    fn filled(dir: &Path, jobs: u64) {
        let store = Store::open(dir).unwrap();
        store.load().unwrap();
        for id in 0..jobs {
            let mut w = Writes::default();
            w.jobs.push(job(id));
            for t in 0..20 {
                w.tasks.push(TaskRecord::new(id, t, None, vec![]));
            }
            store.commit(&w).unwrap();
            store.flush_blocking().unwrap();
        }
        store.close().unwrap();
    }

    fn one_line(e: &StoreError, dir: &Path) -> String {
        let text = e.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.contains(&dir.display().to_string()), "{text}");
        text
    }

    #[test]
    fn a_store_cut_short_is_refused_not_reopened_older() {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path(), 40);
        let db = dir.path().join("db");
        let len = std::fs::metadata(&db).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        file.set_len(len / 2).unwrap();
        drop(file);
        let err = match Store::open(dir.path()).and_then(|s| s.load()) {
            Ok(loaded) => panic!("opened a store cut in half: {} jobs", loaded.jobs.len()),
            Err(e) => e,
        };
        let text = one_line(&err, dir.path());
        assert!(matches!(err, StoreError::Damaged { .. }), "{text}");
        assert!(text.contains("move it aside"), "{text}");
    }

    #[test]
    fn a_store_with_flipped_bytes_is_refused_or_reads_whole() {
        for at in [1, 3, 5, 7] {
            let dir = tempfile::tempdir().unwrap();
            filled(dir.path(), 40);
            let db = dir.path().join("db");
            let mut bytes = std::fs::read(&db).unwrap();
            let from = bytes.len() * at / 8;
            for b in &mut bytes[from..from + 64] {
                *b ^= 0xa5;
            }
            std::fs::write(&db, bytes).unwrap();
            match Store::open(dir.path()).and_then(|s| s.load()) {
                Ok(loaded) => {
                    // Only bytes nothing live depended on were hit.
                    assert_eq!(loaded.jobs.len(), 40, "flip at {at}/8 lost jobs silently");
                    assert_eq!(loaded.tasks.len(), 40 * 20, "flip at {at}/8 lost tasks");
                }
                Err(e) => {
                    let text = one_line(&e, dir.path());
                    assert!(matches!(e, StoreError::Damaged { .. }), "{text}");
                }
            }
        }
    }

    /// sled lets go of its file lock a moment after the last handle is
    /// dropped; reopening at once must wait for it, not call the
    /// directory in use.
    #[test]
    fn a_store_reopened_at_once_after_a_drop_opens() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..30u64 {
            let store = Store::open(dir.path()).unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(store.load().unwrap().incarnation, round + 1);
            let mut w = Writes::default();
            w.jobs.push(job(round));
            store.commit(&w).unwrap();
            store.flush_blocking().unwrap();
        }
    }

    #[test]
    fn a_store_in_use_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Store::open(dir.path()).unwrap();
        let err = match Store::open(dir.path()) {
            Ok(_) => panic!("two stores opened one directory"),
            Err(e) => e,
        };
        let text = one_line(&err, dir.path());
        assert!(matches!(err, StoreError::InUse { .. }), "{text}");
    }
}
