//! Conversions between wire messages and the `e2_shared` model.
//!
//! Both ends of every RPC call these, so a field is mapped one way in one
//! place. Decoding never panics: a peer's bytes are input, and a bad one is a
//! [`WireError`] naming the field.

use e2_shared::engine::{BestLease, BestSearch, Engine};
use e2_shared::order::FillOrder;
use e2_shared::search::{Checkpoint, Prefix};
use e2_shared::{Hint, Puzzle};

use crate::pb;

/// A wire value that does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("wire: field \"{field}\": {reason}")]
pub struct WireError {
    pub field: &'static str,
    pub reason: String,
}

impl WireError {
    fn new(field: &'static str, reason: impl ToString) -> Self {
        WireError {
            field,
            reason: reason.to_string(),
        }
    }
}

pub fn puzzle_to_wire(puzzle: &Puzzle) -> pb::Puzzle {
    pb::Puzzle {
        name: puzzle.name.clone(),
        width: puzzle.width as u32,
        height: puzzle.height as u32,
        num_colors: puzzle.num_colors as u32,
        edges: puzzle
            .pieces
            .iter()
            .flat_map(|p| p.iter().map(|&c| c as u32))
            .collect(),
        hints: puzzle
            .hints
            .iter()
            .map(|h| pb::Hint {
                pos: h.pos as u32,
                piece: h.piece as u32,
                rot: h.rot as u32,
            })
            .collect(),
    }
}

/// The puzzle of a wire message, checked with the same rules as a Puzzle
/// JSON file (pieces may repeat up to rotation, as in the clue puzzles).
pub fn puzzle_from_wire(wire: &pb::Puzzle) -> Result<Puzzle, WireError> {
    if !wire.edges.len().is_multiple_of(4) {
        return Err(WireError::new(
            "puzzle.edges",
            format!("{} colours is not four per piece", wire.edges.len()),
        ));
    }
    let colour = |c: u32| {
        u8::try_from(c)
            .map_err(|_| WireError::new("puzzle.edges", format!("colour {c} is out of range")))
    };
    let mut pieces = Vec::with_capacity(wire.edges.len() / 4);
    for quad in wire.edges.chunks(4) {
        pieces.push([
            colour(quad[0])?,
            colour(quad[1])?,
            colour(quad[2])?,
            colour(quad[3])?,
        ]);
    }
    let num_colors = u8::try_from(wire.num_colors).map_err(|_| {
        WireError::new(
            "puzzle.num_colors",
            format!("{} is out of range", wire.num_colors),
        )
    })?;
    let hints = wire
        .hints
        .iter()
        .map(|h| {
            Ok(Hint {
                pos: h.pos as usize,
                piece: h.piece as usize,
                rot: u8::try_from(h.rot).map_err(|_| {
                    WireError::new("puzzle.hints", format!("rot {} is out of range", h.rot))
                })?,
            })
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    let puzzle = Puzzle {
        name: wire.name.clone(),
        width: wire.width as usize,
        height: wire.height as usize,
        num_colors,
        pieces,
        hints,
    };
    puzzle
        .validate_allowing_duplicates()
        .map_err(|e| WireError::new("puzzle", e))?;
    Ok(puzzle)
}

pub fn encode_prefix(prefix: &Prefix) -> Vec<u8> {
    serde_json::to_vec(prefix).expect("a prefix always serialises")
}

pub fn decode_prefix(bytes: &[u8]) -> Result<Prefix, WireError> {
    serde_json::from_slice(bytes).map_err(|e| WireError::new("prefix", e))
}

pub fn encode_checkpoint(checkpoint: Option<&Checkpoint>) -> Vec<u8> {
    checkpoint
        .map(|c| serde_json::to_vec(c).expect("a checkpoint always serialises"))
        .unwrap_or_default()
}

/// Empty bytes mean "no checkpoint".
pub fn decode_checkpoint(bytes: &[u8]) -> Result<Option<Checkpoint>, WireError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    serde_json::from_slice(bytes)
        .map(Some)
        .map_err(|e| WireError::new("checkpoint", e))
}

pub fn engine_to_wire(engine: Engine) -> pb::Engine {
    match engine {
        Engine::Backtrack => pb::Engine::Backtrack,
        Engine::Dlx => pb::Engine::Dlx,
    }
}

/// The engine a wire value names. `ENGINE_UNSPECIFIED` (proto3's zero, what
/// a request that leaves the field out carries) is the default engine, and
/// this is the one place that says so; an unknown number is refused.
pub fn engine_from_wire(value: i32) -> Result<Engine, WireError> {
    match pb::Engine::try_from(value) {
        Ok(pb::Engine::Unspecified) => Ok(Engine::default()),
        Ok(pb::Engine::Backtrack) => Ok(Engine::Backtrack),
        Ok(pb::Engine::Dlx) => Ok(Engine::Dlx),
        Err(_) => Err(WireError::new(
            "engine",
            format!("{value} is not an engine; expected 1 (backtrack) or 2 (dlx)"),
        )),
    }
}

/// A best job's settings from the wire; an unknown order is an error naming
/// the field and listing the valid names.
pub fn search_from_wire(wire: &pb::SearchSettings) -> Result<BestSearch, WireError> {
    let order = if wire.order.is_empty() {
        BestSearch::default().order
    } else {
        wire.order
            .parse()
            .map_err(|e| WireError::new("search.order", e))?
    };
    Ok(BestSearch {
        order,
        max_breaks: wire.max_breaks,
        whole_tree: wire.whole_tree,
        total_node_budget: wire.total_node_budget,
    })
}

pub fn search_to_wire(search: &BestSearch) -> pb::SearchSettings {
    pb::SearchSettings {
        order: search.order.name().to_string(),
        max_breaks: search.max_breaks,
        whole_tree: search.whole_tree,
        total_node_budget: search.total_node_budget,
    }
}

/// An [`pb::Assignment`], decoded and checked: what a worker runs.
#[derive(Debug, Clone)]
pub struct Work {
    pub lease: pb::Lease,
    pub engine: Engine,
    pub puzzle: Puzzle,
    pub prefix: Prefix,
    pub kind: TaskKind,
}

/// What only one kind of job means by its task.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskKind {
    /// Count the subtree, resuming from `checkpoint` when there is one.
    Count {
        checkpoint: Option<Checkpoint>,
        split_seq: u32,
        /// The job's fill order.
        order: FillOrder,
        /// DLX: Knuth's most-constrained rule instead of the order.
        most_constrained: bool,
    },
    /// One round of best-score search.
    Best {
        lease: BestLease,
        search: BestSearch,
    },
}

/// Decodes an assignment; any field that does not decode is an error
/// naming it (the worker then fails the task with that message).
pub fn decode_assignment(a: &pb::Assignment) -> Result<Work, WireError> {
    let lease = a.lease.ok_or_else(|| WireError::new("lease", "missing"))?;
    let puzzle = puzzle_from_wire(
        a.puzzle
            .as_ref()
            .ok_or_else(|| WireError::new("puzzle", "missing"))?,
    )?;
    let kind = match &a.kind {
        Some(pb::assignment::Kind::Count(c)) => TaskKind::Count {
            checkpoint: decode_checkpoint(&c.checkpoint)?,
            split_seq: c.split_seq,
            order: if c.order.is_empty() {
                FillOrder::RowMajor
            } else {
                c.order
                    .parse()
                    .map_err(|e| WireError::new("count.order", e))?
            },
            most_constrained: c.most_constrained,
        },
        Some(pb::assignment::Kind::Best(b)) => TaskKind::Best {
            lease: BestLease {
                seed: b.seed,
                budget: b.node_budget,
                beat: b.beat,
            },
            search: match &b.search {
                Some(wire) => search_from_wire(wire)?,
                None => BestSearch::default(),
            },
        },
        None => return Err(WireError::new("kind", "missing: neither count nor best")),
    };
    Ok(Work {
        lease,
        engine: engine_from_wire(a.engine)?,
        puzzle,
        prefix: decode_prefix(&a.prefix)?,
        kind,
    })
}

pub fn parse_mode(name: &str) -> Result<pb::Mode, WireError> {
    match name {
        "count" => Ok(pb::Mode::Count),
        "best" => Ok(pb::Mode::Best),
        other => Err(WireError::new(
            "mode",
            format!("\"{other}\" is not a mode; expected count or best"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use e2_shared::search::Forced;

    fn puzzle() -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: 2,
            height: 1,
            num_colors: 2,
            pieces: vec![[0, 1, 0, 0], [0, 0, 2, 1]],
            hints: vec![Hint {
                pos: 1,
                piece: 1,
                rot: 0,
            }],
        }
    }

    #[test]
    fn a_puzzle_survives_the_wire() {
        let p = puzzle();
        assert_eq!(puzzle_from_wire(&puzzle_to_wire(&p)).unwrap(), p);
    }

    #[test]
    fn a_ragged_edge_list_is_refused_by_name() {
        let mut w = puzzle_to_wire(&puzzle());
        w.edges.pop();
        let e = puzzle_from_wire(&w).unwrap_err();
        assert_eq!(e.field, "puzzle.edges");
    }

    #[test]
    fn prefixes_and_checkpoints_round_trip() {
        let prefix = vec![Forced {
            pos: 3,
            piece: 7,
            rot: 2,
        }];
        assert_eq!(decode_prefix(&encode_prefix(&prefix)).unwrap(), prefix);
        let cp = Checkpoint {
            engine: Engine::Dlx,
            prefix,
            path: vec![1, 0, 4],
            solutions: 9,
            nodes: 100,
        };
        assert_eq!(
            decode_checkpoint(&encode_checkpoint(Some(&cp))).unwrap(),
            Some(cp)
        );
        assert_eq!(decode_checkpoint(&[]).unwrap(), None);
        assert!(decode_checkpoint(b"{").is_err());
    }

    #[test]
    fn engines_map_one_way_and_unknown_numbers_are_refused() {
        for e in Engine::ALL {
            assert_eq!(engine_from_wire(engine_to_wire(e) as i32).unwrap(), e);
        }
        assert_eq!(engine_from_wire(0).unwrap(), Engine::default());
        let err = engine_from_wire(99).unwrap_err();
        assert_eq!(err.field, "engine");
    }

    #[test]
    fn search_settings_round_trip_and_an_unknown_order_is_named() {
        let wire = pb::SearchSettings {
            order: "zigzag".into(),
            ..Default::default()
        };
        let e = search_from_wire(&wire).unwrap_err().to_string();
        assert!(e.contains("search.order") && e.contains("spiral-in"), "{e}");
        let round = BestSearch {
            order: e2_shared::order::FillOrder::BorderFirst,
            max_breaks: Some(3),
            ..BestSearch::default()
        };
        assert_eq!(search_from_wire(&search_to_wire(&round)).unwrap(), round);
    }

    /// An assignment of `puzzle()` at the empty prefix.
    fn assignment(kind: Option<pb::assignment::Kind>) -> pb::Assignment {
        pb::Assignment {
            lease: Some(pb::Lease::default()),
            puzzle: Some(puzzle_to_wire(&puzzle())),
            prefix: encode_prefix(&Vec::new()),
            kind,
            ..Default::default()
        }
    }

    #[test]
    fn an_assignment_without_a_kind_is_refused_by_name() {
        let a = assignment(None);
        assert_eq!(decode_assignment(&a).unwrap_err().field, "kind");
        let a = assignment(Some(pb::assignment::Kind::Count(pb::CountTask::default())));
        let work = decode_assignment(&a).unwrap();
        assert_eq!(
            work.kind,
            TaskKind::Count {
                checkpoint: None,
                split_seq: 0,
                order: FillOrder::RowMajor,
                most_constrained: false,
            }
        );
    }

    #[test]
    fn a_best_assignment_carries_its_seed_budget_and_score_to_beat() {
        let a = assignment(Some(pb::assignment::Kind::Best(pb::BestTask {
            node_budget: 500,
            seed: 7,
            search: None,
            beat: 431,
        })));
        assert_eq!(
            decode_assignment(&a).unwrap().kind,
            TaskKind::Best {
                lease: BestLease {
                    seed: 7,
                    budget: 500,
                    beat: 431,
                },
                search: BestSearch::default(),
            }
        );
    }
}
