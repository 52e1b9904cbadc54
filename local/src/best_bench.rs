//! `cargo bench -p e2-local --bench best`: what a best job scores on a
//! cluster after given times.
//!
//! The best-score search has no end, so its benchmark is a score at time
//! marks (1, 10 and 60 minutes by default), read while one job runs: a
//! coordinator over a real sled directory on 127.0.0.1 and `workers`
//! one-thread workers dialling it over gRPC, as `e2 coordinator` and
//! `e2 worker` would run on separate machines. The reading at a mark is the
//! coordinator's own best board, the one `e2 best` would return, re-scored
//! here by the canonical scorer so a figure cannot come from a report
//! alone. The anchor side (the same times for another engine) belongs to
//! the bench binary, which knows where the anchors live.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use e2_coordinator::ledger::{JobPlan, LedgerConfig};
use e2_coordinator::records::Mode;
use e2_coordinator::service::{self, Shared};
use e2_shared::engine::Engine;
use e2_shared::formats::boarddoc::BoardDoc;
use e2_shared::{score, Puzzle};
use e2_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

use crate::cluster::start_loopback;

/// The job's best board at one time mark.
#[derive(Debug, Clone)]
pub struct MarkReading {
    /// The mark, from the job's submission.
    pub at: Duration,
    /// The canonical score of the coordinator's best board (`None`: no board
    /// reported yet).
    pub score: Option<u32>,
    /// Nodes the job's workers had reported by then.
    pub nodes: u64,
    /// The board, as BoardDoc JSON.
    pub board: Option<String>,
}

/// Runs one best job of `puzzle` on `workers` one-thread workers and reads
/// its best board at each of `marks` (ascending), then stops it.
/// `on_mark` hears each reading as it is taken.
pub async fn best_at_marks(
    puzzle: &Puzzle,
    workers: usize,
    marks: &[Duration],
    mut on_mark: impl FnMut(&MarkReading),
) -> Result<Vec<MarkReading>> {
    if marks.is_empty() || marks.windows(2).any(|w| w[0] >= w[1]) {
        bail!("the time marks must be given in ascending order, at least one");
    }
    let last = *marks.last().expect("checked non-empty");
    let dir = tempfile::tempdir().context("cannot create a temporary data directory")?;
    let (running, stop) =
        start_loopback(dir.path().to_path_buf(), LedgerConfig::default(), None).await?;
    let shared: Arc<Shared> = Arc::clone(&running.shared);
    let plan = JobPlan {
        mode: Mode::Best,
        // A little past the last mark, so the job is still running when it
        // is read.
        time_limit: Some(last + Duration::from_secs(5)),
        top_k: Some(1),
        ..JobPlan::count(puzzle, Engine::Backtrack)
    };
    let job = service::submit_plan(&shared, plan, workers)
        .await
        .map_err(|s| anyhow!("{}", s.message()))?;
    let started = Instant::now();
    let stop_workers = CancellationToken::new();
    let handles: Vec<_> = (0..workers.max(1))
        .map(|_| {
            tokio::spawn(e2_worker::run(
                WorkerConfig::new(running.url(), 1),
                stop_workers.clone(),
            ))
        })
        .collect();

    let mut readings = Vec::with_capacity(marks.len());
    for &at in marks {
        tokio::time::sleep_until((started + at).into()).await;
        let reading = read_mark(&shared, job, puzzle, at)?;
        on_mark(&reading);
        readings.push(reading);
    }

    stop_workers.cancel();
    for h in handles {
        h.await.context("worker task")??;
    }
    stop.cancel();
    drop(shared);
    running.wait().await?;
    Ok(readings)
}

fn read_mark(shared: &Shared, job: u64, puzzle: &Puzzle, at: Duration) -> Result<MarkReading> {
    let status = shared
        .read(|l, clock| l.status(job, clock))
        .map_err(|s| anyhow!("{}", s.message()))?;
    if !status.error.is_empty() {
        bail!("job {job} failed: {}", status.error);
    }
    let board = shared
        .read(|l, _| l.best(job, 1))
        .map_err(|s| anyhow!("{}", s.message()))?
        .into_iter()
        .next();
    let score = match &board {
        None => None,
        Some(doc) => {
            let input = BoardDoc::parse(doc)?.to_input()?;
            let board = input.board;
            if board.width != puzzle.width || board.height != puzzle.height {
                bail!("job {job}: the kept board is not {}", puzzle.name);
            }
            Some(score::score(&board))
        }
    };
    if let (Some(canonical), Some(reported)) = (score, status.best_score) {
        if canonical != reported {
            bail!("job {job}: the best board scores {canonical}, the job reports {reported}");
        }
    }
    Ok(MarkReading {
        at,
        score,
        nodes: status.nodes,
        board,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use e2_shared::generator::{generate, GenSpec};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_small_puzzle_is_read_at_each_mark_and_solved_by_the_last() {
        let puzzle = generate(&GenSpec::square(6, 3)).unwrap().puzzle;
        let marks = [Duration::from_millis(300), Duration::from_secs(2)];
        let mut heard = Vec::new();
        let readings = best_at_marks(&puzzle, 2, &marks, |r| heard.push(r.at))
            .await
            .unwrap();
        assert_eq!(heard, marks);
        assert_eq!(readings.len(), 2);
        let last = &readings[1];
        // A generated 6x6 is solved in milliseconds: by the last mark the
        // job holds a perfect board, re-scored from its BoardDoc.
        assert_eq!(last.score, Some(score::max_score(6, 6)));
        let doc: serde_json::Value = serde_json::from_str(last.board.as_ref().unwrap()).unwrap();
        assert_eq!(doc["score"], score::max_score(6, 6));
        assert!(last.nodes > 0);
        assert!(readings[0].score <= last.score);
    }

    #[tokio::test]
    async fn marks_out_of_order_are_refused_before_anything_starts() {
        let puzzle = generate(&GenSpec::square(4, 1)).unwrap().puzzle;
        let marks = [Duration::from_secs(2), Duration::from_secs(1)];
        let e = best_at_marks(&puzzle, 1, &marks, |_| {}).await.unwrap_err();
        assert!(e.to_string().contains("ascending"), "{e}");
        let e = best_at_marks(&puzzle, 1, &[], |_| {}).await.unwrap_err();
        assert!(e.to_string().contains("at least one"), "{e}");
    }
}
