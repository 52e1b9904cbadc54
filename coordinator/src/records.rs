//! What the coordinator writes to disk: one record per job, one per task.
//!
//! Records are serde JSON values in sled. They hold only what must survive a
//! restart: who leases what, and until when, lives in memory, because after
//! a restart every lease is void anyway and its task resumes from the
//! checkpoint stored here. Prefixes and checkpoints are kept as the engines
//! wrote them; the coordinator never looks inside.

use e2_proto::pb;
use e2_shared::engine::{BestSearch, Engine};
use e2_shared::search::{Checkpoint, Prefix};
use e2_shared::{Hint, Puzzle};
use serde::{Deserialize, Serialize};

pub type JobId = u64;
pub type TaskId = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Count,
    Best,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// No task has been leased yet.
    Queued,
    Running,
    Done,
    Cancelled,
    Failed,
}

impl JobState {
    pub fn is_over(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Cancelled | JobState::Failed
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Cancelled => "cancelled",
            JobState::Failed => "failed",
        }
    }
}

/// A puzzle in a form serde can store (the model type has no serde).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPuzzle {
    pub name: String,
    pub width: usize,
    pub height: usize,
    pub num_colors: u8,
    pub pieces: Vec<[u8; 4]>,
    /// `(pos, piece, rot)`.
    pub hints: Vec<(usize, usize, u8)>,
}

impl From<&Puzzle> for StoredPuzzle {
    fn from(p: &Puzzle) -> Self {
        StoredPuzzle {
            name: p.name.clone(),
            width: p.width,
            height: p.height,
            num_colors: p.num_colors,
            pieces: p.pieces.clone(),
            hints: p.hints.iter().map(|h| (h.pos, h.piece, h.rot)).collect(),
        }
    }
}

impl StoredPuzzle {
    pub fn to_puzzle(&self) -> Puzzle {
        Puzzle {
            name: self.name.clone(),
            width: self.width,
            height: self.height,
            num_colors: self.num_colors,
            pieces: self.pieces.clone(),
            hints: self
                .hints
                .iter()
                .map(|&(pos, piece, rot)| Hint { pos, piece, rot })
                .collect(),
        }
    }

    /// FNV-1a over the puzzle's content: how the embedded runner recognises
    /// "the same count again" in a data directory.
    pub fn fingerprint(&self) -> u64 {
        let bytes = serde_json::to_vec(self).expect("a puzzle always serialises");
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        })
    }
}

/// A best job's search settings (`SearchSettings`), checked at submission
/// and kept as sent: workers decode them again from the assignment.
/// Records written before settings existed read as the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSearch {
    /// A fill order name; empty = row-major.
    pub order: String,
    pub max_breaks: Option<u32>,
    pub whole_tree: bool,
    pub total_node_budget: u64,
}

impl From<&BestSearch> for StoredSearch {
    fn from(s: &BestSearch) -> Self {
        StoredSearch {
            order: s.order.name().to_string(),
            max_breaks: s.max_breaks,
            whole_tree: s.whole_tree,
            total_node_budget: s.total_node_budget,
        }
    }
}

impl StoredSearch {
    pub fn to_wire(&self) -> pb::SearchSettings {
        pb::SearchSettings {
            order: self.order.clone(),
            max_breaks: self.max_breaks,
            whole_tree: self.whole_tree,
            total_node_budget: self.total_node_budget,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    pub id: JobId,
    pub mode: Mode,
    /// Stored by name, `"backtrack"` or `"dlx"`.
    pub engine: Engine,
    pub puzzle: StoredPuzzle,
    pub state: JobState,
    pub created_unix_ms: u64,
    pub finished_unix_ms: Option<u64>,
    /// Tasks ever created (splits add to it).
    pub tasks_total: u64,
    /// Count jobs: finished tasks. Best jobs: finished rounds.
    pub tasks_done: u64,
    /// Count jobs: the sum over finished tasks, each added exactly once.
    pub solutions: u64,
    /// Nodes of finished tasks (rounds).
    pub nodes_done: u64,
    pub next_task_id: TaskId,
    /// Best jobs: stop at this time ...
    pub deadline_unix_ms: Option<u64>,
    /// ... or at this score.
    pub target_score: Option<u32>,
    pub top_k: u32,
    pub best_score: Option<u32>,
    pub error: Option<String>,
    /// Best jobs: how to search.
    #[serde(default)]
    pub search: StoredSearch,
    /// Count jobs submitted with a verify fraction: the sample and its tally.
    #[serde(default)]
    pub verify: Option<VerifyRecord>,
    /// Count jobs: the planned tree and order (absent in records written
    /// before plans existed: the whole tree, row-major).
    #[serde(default)]
    pub count: Option<StoredCount>,
}

#[cfg(test)]
impl JobRecord {
    /// A running DLX count of a 1×1 puzzle with nothing counted yet: the
    /// record tests build on.
    pub(crate) fn sample(id: JobId) -> Self {
        JobRecord {
            id,
            mode: Mode::Count,
            engine: Engine::Dlx,
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
            verify: None,
            count: None,
        }
    }
}

/// How a count job was planned (`e2_shared::count_plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredCount {
    /// The fill order every task walks, by name.
    pub order: String,
    /// Whether it was chosen by estimate rather than asked for.
    pub order_chosen: bool,
    /// The rotation reduction: the corner pinned in each part, as
    /// `(pos, piece, rot)` (none: one part, the puzzle itself) ...
    pub pins: Vec<(usize, usize, u8)>,
    /// ... what the parts' sum is multiplied by, and why, in words.
    pub factor: u64,
    pub symmetry: String,
    /// The tree's estimated nodes when planned.
    pub estimate: Option<u64>,
    /// Whether the reduction was asked for (it may still be "none").
    #[serde(default)]
    pub asked_symmetry: bool,
    /// Nodes of the tree above the first tasks' prefixes, which no task
    /// visits: the job's node total starts from them (0 in records
    /// written before they were kept).
    #[serde(default)]
    pub cut_nodes: u64,
    /// DLX counts: whether the tasks branch on the order's next empty cell
    /// (every count planned since DLX took fill orders) rather than on
    /// Knuth's most-constrained item (records written before: absent, so
    /// false, and their checkpoints resume in the tree that took them).
    #[serde(default)]
    pub dlx_by_order: bool,
}

impl StoredCount {
    /// The puzzle of each part: `puzzle` with that part's pin as a hint.
    pub fn parts(&self, puzzle: &Puzzle) -> Vec<Puzzle> {
        if self.pins.is_empty() {
            return vec![puzzle.clone()];
        }
        self.pins
            .iter()
            .map(|&(pos, piece, rot)| {
                let mut part = puzzle.clone();
                part.hints.push(Hint { pos, piece, rot });
                part
            })
            .collect()
    }
}

/// A worker as the ledger remembers it: its registration id (unique per
/// coordinator start) and the name it gave (unique per worker process).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerRef {
    pub id: String,
    pub name: String,
}

impl WorkerRef {
    /// Whether `other` is (or claims to be) the same worker: same
    /// registration, or same name, so that re-registering does not make a
    /// worker "different" from itself.
    pub fn same(&self, other: &WorkerRef) -> bool {
        self.id == other.id || (!self.name.is_empty() && self.name == other.name)
    }
}

/// The checks of a verified count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyRecord {
    /// The share of finished tasks sampled, in millionths.
    pub ppm: u32,
    /// Seeds the sample; never sent to workers, so none can tell whether
    /// its task will be checked.
    pub seed: u64,
    pub sampled: u64,
    pub agreed: u64,
    pub corrected: u64,
    pub recounts: u64,
    pub recount_nodes: u64,
    /// Workers found wrong, in the order found.
    pub wrong: Vec<WrongWorker>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrongWorker {
    pub worker: WorkerRef,
    /// The first task on which its figure lost the vote.
    pub task: TaskId,
    pub said: u64,
    pub found: u64,
}

impl VerifyRecord {
    /// A fresh tally sampling `ppm` millionths of the tasks with `seed`.
    pub fn new(ppm: u32, seed: u64) -> Self {
        VerifyRecord {
            ppm,
            seed,
            sampled: 0,
            agreed: 0,
            corrected: 0,
            recounts: 0,
            recount_nodes: 0,
            wrong: Vec::new(),
        }
    }

    /// Whether `w` was found wrong in this job (its reports are no longer
    /// taken and it is leased nothing more).
    pub fn is_wrong(&self, w: &WorkerRef) -> bool {
        self.wrong.iter().any(|x| x.worker.same(w))
    }
}

/// A recount task: which task it checks, on which engine, and which
/// workers may not run it (those who already counted that subtree).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recount {
    pub of: TaskId,
    pub engine: Engine,
    pub avoid: Vec<WorkerRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckState {
    /// A recount is under way.
    Pending,
    /// Two counts agreed with the first.
    Agreed,
    /// The first count lost the vote and was replaced.
    Corrected,
}

/// Where the check of one finished task stands: every figure counted for
/// its subtree, the first one being the figure in the job total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub state: CheckState,
    pub results: Vec<(WorkerRef, u64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    /// Waiting for (or under) a lease.
    Ready,
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub job: JobId,
    pub id: TaskId,
    /// The task whose split created this one.
    pub parent: Option<TaskId>,
    pub prefix: Prefix,
    /// Where to resume; its prefix supersedes `prefix` after a split.
    pub checkpoint: Option<Checkpoint>,
    pub state: TaskState,
    /// Times leased.
    pub leases: u32,
    /// Completions counted: 0, then 1, never more.
    pub completions: u32,
    /// Completions refused as stale or repeated.
    pub ignored: u32,
    /// The last split applied (splits are applied once each, in order).
    pub split_seq: u32,
    /// Count: the final count once done. Best: unused.
    pub solutions: u64,
    pub nodes: u64,
    /// Best jobs: rounds run on this prefix (the seed of the next round).
    pub round: u64,
    /// Count jobs: the worker whose completion was counted.
    #[serde(default)]
    pub done_by: Option<WorkerRef>,
    /// Verified counts: set on a recount task ...
    #[serde(default)]
    pub recount: Option<Recount>,
    /// ... and on a finished task once it is chosen for a check.
    #[serde(default)]
    pub check: Option<Check>,
    /// Count jobs: which part of a reduced count it belongs to.
    #[serde(default)]
    pub part: u32,
    /// Count jobs: the estimated nodes of the planned task's subtree, for
    /// the time left (see `ledger::count`); `None` on tasks split off
    /// another, and on every task of a count too small to estimate them.
    #[serde(default)]
    pub estimate: Option<u64>,
}

impl TaskRecord {
    pub fn new(job: JobId, id: TaskId, parent: Option<TaskId>, prefix: Prefix) -> Self {
        TaskRecord {
            job,
            id,
            parent,
            prefix,
            checkpoint: None,
            state: TaskState::Ready,
            leases: 0,
            completions: 0,
            ignored: 0,
            split_seq: 0,
            solutions: 0,
            nodes: 0,
            round: 0,
            done_by: None,
            recount: None,
            check: None,
            part: 0,
            estimate: None,
        }
    }
}

/// One kept board of a best job, its sled key ordering it best first
/// (serde only for backups: sled keeps the doc under the key's parts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestEntry {
    pub job: JobId,
    pub score: u32,
    pub hash: u64,
    /// BoardDoc JSON.
    pub doc: String,
}

pub fn job_key(job: JobId) -> [u8; 8] {
    job.to_be_bytes()
}

pub fn task_key(job: JobId, task: TaskId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&job.to_be_bytes());
    k[8..].copy_from_slice(&task.to_be_bytes());
    k
}

/// `job ++ (u32::MAX - score) ++ hash`, big-endian: a scan of one job's
/// prefix yields its boards best first.
pub fn best_key(job: JobId, score: u32, hash: u64) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..8].copy_from_slice(&job.to_be_bytes());
    k[8..12].copy_from_slice(&(u32::MAX - score).to_be_bytes());
    k[12..].copy_from_slice(&hash.to_be_bytes());
    k
}

pub fn parse_best_key(key: &[u8]) -> Option<(JobId, u32, u64)> {
    if key.len() != 20 {
        return None;
    }
    let job = u64::from_be_bytes(key[..8].try_into().ok()?);
    let score = u32::MAX - u32::from_be_bytes(key[8..12].try_into().ok()?);
    let hash = u64::from_be_bytes(key[12..].try_into().ok()?);
    Some((job, score, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_keys_sort_best_first() {
        let mut keys = [
            best_key(1, 10, 5),
            best_key(1, 30, 9),
            best_key(1, 20, 1),
            best_key(0, 1, 1),
        ];
        keys.sort();
        let order: Vec<_> = keys.iter().map(|k| parse_best_key(k).unwrap()).collect();
        assert_eq!(order, vec![(0, 1, 1), (1, 30, 9), (1, 20, 1), (1, 10, 5)]);
    }

    #[test]
    fn task_keys_group_by_job_in_task_order() {
        assert!(task_key(1, 300) < task_key(2, 0));
        assert!(task_key(1, 2) < task_key(1, 256));
    }
}
