//! The coordinator's disk: four sled trees and one way to write them.
//!
//! - `jobs`: [`JobRecord`] by job id;
//! - `tasks`: [`TaskRecord`] by job id ++ task id (the task ledger, with
//!   each count task's checkpoint);
//! - `best`: BoardDoc JSON by job id ++ score descending ++ board hash;
//! - `meta`: the incarnation counter.
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

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::records::{
    best_key, job_key, parse_best_key, task_key, BestEntry, JobId, JobRecord, TaskRecord,
};
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("data directory: {0}")]
    Sled(#[from] sled::Error),
    #[error("data directory: record {key}: {reason}")]
    Corrupt { key: String, reason: String },
}

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
}

const INCARNATION: &[u8] = b"incarnation";

impl Store {
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        let db = sled::Config::new().path(dir).open()?;
        Ok(Store {
            gate: Arc::default(),
            committed: Arc::default(),
            flushed: Arc::default(),
            flushing: Arc::default(),
            jobs: db.open_tree("jobs")?,
            tasks: db.open_tree("tasks")?,
            best: db.open_tree("best")?,
            meta: db.open_tree("meta")?,
            db,
        })
    }

    /// Reads everything and starts a new incarnation (flushed before
    /// returning), so lease epochs issued from now on are above any issued
    /// before the restart.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        let incarnation = self
            .meta
            .get(INCARNATION)?
            .map(|v| decode::<u64>(INCARNATION, &v))
            .transpose()?
            .unwrap_or(0)
            + 1;
        self.meta.insert(
            INCARNATION,
            serde_json::to_vec(&incarnation).expect("u64 serialises"),
        )?;
        self.db.flush()?;
        let mut loaded = Loaded {
            incarnation,
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
                TransactionError::Storage(e) => StoreError::Sled(e),
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
        self.db.flush()?;
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
    use crate::records::{JobState, Mode, StoredPuzzle};

    fn job(id: JobId) -> JobRecord {
        JobRecord {
            id,
            mode: Mode::Count,
            engine: e2_shared::engine::Engine::Dlx,
            puzzle: StoredPuzzle {
                name: "p".into(),
                width: 1,
                height: 1,
                num_colors: 0,
                pieces: vec![[0, 0, 0, 0]],
                hints: vec![],
            },
            state: JobState::Running,
            created_unix_ms: 1,
            finished_unix_ms: None,
            tasks_total: 1,
            tasks_done: 0,
            solutions: 0,
            nodes_done: 0,
            next_task_id: 1,
            deadline_unix_ms: None,
            target_score: None,
            top_k: 3,
            best_score: None,
            error: None,
            search: Default::default(),
        }
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
}
