//! Beam search for the best-score problem: the board built one cell of the
//! fill order at a time, keeping at each cell the `width` best-scoring
//! partial boards instead of one.
//!
//! Depth-first search commits to its first rows and spends its budget on
//! one basin at a time; a beam keeps many thousands of first rows alive and
//! lets the later cells decide which of them were good. Each kept board
//! (a *member*) offers, for the next cell, its candidates of the best gain
//! it can still make: the exact run of the cell's table when a free piece
//! is in it, else the one-break run, else (rarely, near the end, when both
//! runs are used up) every free piece that fits the cell's frame, ranked by
//! the seams it matches. Up to `fanout` of them, drawn at random, become
//! children; the children are ranked by score and the best `width` kept,
//! ties drawn at random. No cell is ever left empty, so the beam always
//! ends in full boards.
//!
//! Storage is what keeps a wide beam cheap. A member is not a board: each
//! layer stores one `(parent, word)` pair per member, and the full board is
//! rebuilt only for the one member that wins, by walking the parents back.
//! To find its neighbours' colours a member carries a small ring of the
//! words its last placements put down (as many as the farthest neighbour
//! of the order is levels back: 16 on a 16-wide row scan) and a bit per
//! piece it has used: one bit per copy of a piece class, copies taken
//! lowest first, so a set with repeated pieces (the clue puzzles) costs
//! no more than one whose pieces are all distinct. Keys come from the
//! same tables and the same key terms as the depth-first walks, so the beam
//! sees the candidate runs the depth-first search sees. Member state lives
//! in flat arrays, two sets of them swapped from layer to layer; only the
//! per-layer `(parent, word)` record is allocated as the beam goes.

use super::candidate::{class_of, colour_of, pack, Candidate};
use super::classes::PieceClasses;
use super::plan::{neighbour, Plan, Purpose};
use super::{Backtracker, BestReport};
use crate::error::Result;
use crate::rng::Rng;
use crate::score::score;
use crate::search::{Control, RunEnd};

/// How a beam search runs.
#[derive(Debug, Clone)]
pub struct BeamConfig {
    /// Members kept per cell.
    pub width: usize,
    /// Most children one member offers per cell.
    pub fanout: usize,
    pub seed: u64,
}

/// A side of a searched cell that faces a cell placed before it.
#[derive(Debug, Clone, Copy)]
struct Facing {
    /// The neighbour's cell.
    cell: u32,
    /// Levels back to the neighbour's placement; 0 for a pinned neighbour.
    hop: u32,
    /// This cell's side (URDL) on the seam.
    side: u8,
    /// The neighbour's colour when it is pinned.
    pinned: u8,
}

/// One child of a layer: the member it extends, the word it places, its score.
#[derive(Debug, Clone, Copy)]
struct Child {
    parent: u32,
    word: Candidate,
    score: u32,
}

/// Per searched cell, what a member needs to expand there.
struct Cell {
    facing: Vec<Facing>,
    /// Every candidate that fits the cell's frame, for members whose
    /// exact and one-break runs are used up.
    fitting: Vec<Candidate>,
}

impl Backtracker {
    /// Runs one beam search under `config` and returns its best board
    /// (full unless the beam could not go on, which needs a set whose
    /// pieces cannot fill the frame). `nodes` counts the children made.
    pub fn beam(&self, config: &BeamConfig, control: Option<&Control>) -> Result<BestReport> {
        let puzzle = &self.puzzle;
        let plan = Plan::new(
            puzzle,
            self.plan.order,
            &self.plan.prefix,
            Purpose::Best { breaks: true },
        )?;
        let width = config.width.max(1);
        let fanout = config.fanout.max(1);
        let cells = self.plan_cells(&plan);
        let levels = plan.levels.len();
        let mut rng = Rng::new(config.seed);
        let pinned_board = &plan.pinned_board;
        let ring = cells
            .iter()
            .flat_map(|c| c.facing.iter().map(|f| f.hop as usize + 1))
            .max()
            .unwrap_or(1)
            .next_power_of_two();
        // One used bit per copy of a class, the copies of class `c` at
        // bits first[c]..first[c] + stock[c], taken lowest first: the class
        // is free while its last copy's bit is clear.
        let mut first = Vec::with_capacity(plan.stock.len());
        let mut copies = 0usize;
        for &s in &plan.stock {
            first.push(copies);
            copies += usize::from(s);
        }
        let last_copy: Vec<usize> = (0..plan.stock.len())
            .map(|c| match plan.stock[c] {
                0 => usize::MAX,
                s => first[c] + usize::from(s) - 1,
            })
            .collect();
        let used_words = copies.div_ceil(64).max(1);
        let offsets = plan.tables.offsets();
        let candidates = plan.tables.candidates();

        // The live members: ring, used classes, score, and index in the last layer.
        let mut rings: Vec<Candidate> = vec![0; ring];
        let mut used: Vec<u64> = vec![0; used_words];
        let mut scores: Vec<u32> = vec![0];
        // The next layer's members are written here, then swapped in.
        let mut next_rings: Vec<Candidate> = Vec::new();
        let mut next_used: Vec<u64> = Vec::new();
        let mut next_scores: Vec<u32> = Vec::new();
        let mut parents_layers: Vec<Vec<u32>> = Vec::with_capacity(levels);
        let mut words_layers: Vec<Vec<Candidate>> = Vec::with_capacity(levels);
        let mut scratch = pinned_board.clone();
        let mut children: Vec<Child> = Vec::new();
        let mut picks: Vec<Candidate> = Vec::new();
        let mut nodes = 0u64;
        let mut end = RunEnd::Finished;

        for (l, level) in plan.levels.iter().enumerate() {
            if control.is_some_and(|c| c.is_stopped()) {
                end = RunEnd::Stopped;
                break;
            }
            let cell = &cells[l];
            children.clear();
            let members = scores.len();
            for m in 0..members {
                let member_ring = &rings[m * ring..(m + 1) * ring];
                let member_used = &used[m * used_words..(m + 1) * used_words];
                let is_free = |word: Candidate| {
                    let bit = last_copy[class_of(word)];
                    bit != usize::MAX && member_used[bit >> 6] & (1u64 << (bit & 63)) == 0
                };
                for f in cell.facing.iter().filter(|f| f.hop > 0) {
                    scratch[f.cell as usize] = member_ring[(l - f.hop as usize) & (ring - 1)];
                }
                let k = plan.key_index(level, &scratch);
                let (a, mid, b) = (
                    offsets[k] as usize,
                    offsets[k + 1] as usize,
                    offsets[k + 2] as usize,
                );
                picks.clear();
                let mut gain = level.seams;
                picks.extend(candidates[a..mid].iter().copied().filter(|&c| is_free(c)));
                if picks.is_empty() {
                    gain = level.seams.saturating_sub(1);
                    picks.extend(candidates[mid..b].iter().copied().filter(|&c| is_free(c)));
                }
                if picks.is_empty() {
                    // Both runs used up: rank every free fitting piece.
                    let matched = |word: Candidate| {
                        cell.facing
                            .iter()
                            .filter(|f| {
                                let theirs = if f.hop == 0 {
                                    f.pinned
                                } else {
                                    colour_of(
                                        member_ring[(l - f.hop as usize) & (ring - 1)],
                                        (usize::from(f.side) + 2) % 4,
                                    )
                                };
                                colour_of(word, usize::from(f.side)) == theirs
                            })
                            .count() as u32
                    };
                    let best = cell
                        .fitting
                        .iter()
                        .copied()
                        .filter(|&c| is_free(c))
                        .map(matched)
                        .max();
                    if let Some(best) = best {
                        gain = best;
                        picks.extend(
                            cell.fitting
                                .iter()
                                .copied()
                                .filter(|&c| is_free(c) && matched(c) == best),
                        );
                    }
                }
                if picks.len() > fanout {
                    for i in 0..fanout {
                        let j = i + rng.below((picks.len() - i) as u64) as usize;
                        picks.swap(i, j);
                    }
                    picks.truncate(fanout);
                }
                let s = scores[m] + gain;
                children.extend(picks.iter().map(|&word| Child {
                    parent: m as u32,
                    word,
                    score: s,
                }));
            }
            nodes += children.len() as u64;
            if children.is_empty() {
                break;
            }
            keep_best(&mut children, width, &mut rng);

            // The next live members.
            let n = children.len();
            next_rings.resize(n * ring, 0);
            next_used.resize(n * used_words, 0);
            next_scores.clear();
            let mut parents = Vec::with_capacity(n);
            let mut words = Vec::with_capacity(n);
            for (i, c) in children.iter().enumerate() {
                let p = c.parent as usize;
                let r = &mut next_rings[i * ring..(i + 1) * ring];
                r.copy_from_slice(&rings[p * ring..(p + 1) * ring]);
                r[l & (ring - 1)] = c.word;
                let u = &mut next_used[i * used_words..(i + 1) * used_words];
                u.copy_from_slice(&used[p * used_words..(p + 1) * used_words]);
                let class = class_of(c.word);
                let mut bit = first[class];
                while u[bit >> 6] & (1u64 << (bit & 63)) != 0 {
                    bit += 1;
                }
                u[bit >> 6] |= 1u64 << (bit & 63);
                next_scores.push(c.score);
                parents.push(c.parent);
                words.push(c.word);
            }
            std::mem::swap(&mut rings, &mut next_rings);
            std::mem::swap(&mut used, &mut next_used);
            std::mem::swap(&mut scores, &mut next_scores);
            parents_layers.push(parents);
            words_layers.push(words);
        }

        // The winner: the best member of the last layer, its words read back.
        let placed = words_layers.len();
        let mut board_words = pinned_board.clone();
        if placed > 0 {
            let mut m = (0..scores.len()).max_by_key(|&m| scores[m]).unwrap_or(0);
            for l in (0..placed).rev() {
                board_words[plan.levels[l].pos as usize] = words_layers[l][m];
                m = parents_layers[l][m] as usize;
            }
        }
        let board = plan.board(puzzle, &board_words, placed);
        Ok(BestReport {
            score: score(&board),
            board: Some(board),
            nodes,
            runs: 1,
            end,
        })
    }

    /// Per searched cell, its facing sides and fitting candidates.
    fn plan_cells(&self, plan: &Plan) -> Vec<Cell> {
        let (w, h) = (plan.width, plan.height);
        let classes = PieceClasses::new(&self.puzzle.pieces);
        let mut level_of = vec![usize::MAX; w * h];
        for (l, level) in plan.levels.iter().enumerate() {
            level_of[level.pos as usize] = l;
        }
        plan.levels
            .iter()
            .enumerate()
            .map(|(l, level)| {
                let pos = level.pos as usize;
                let mut facing = Vec::new();
                let frame: [bool; 4] =
                    std::array::from_fn(|side| neighbour(pos, side, w, h).is_none());
                for side in 0..4 {
                    let Some(n) = neighbour(pos, side, w, h) else {
                        continue;
                    };
                    if plan.pinned[n].is_some() {
                        facing.push(Facing {
                            cell: n as u32,
                            hop: 0,
                            side: side as u8,
                            pinned: colour_of(plan.pinned_board[n], (side + 2) % 4),
                        });
                    } else if level_of[n] < l {
                        facing.push(Facing {
                            cell: n as u32,
                            hop: (l - level_of[n]) as u32,
                            side: side as u8,
                            pinned: 0,
                        });
                    }
                }
                let fitting = (0..classes.len())
                    .filter(|&c| plan.stock[c] > 0)
                    .flat_map(|c| {
                        classes
                            .distinct_rotations(c)
                            .into_iter()
                            .map(move |(rot, edges)| pack(c, rot, edges))
                    })
                    .filter(|&word| (0..4).all(|s| (colour_of(word, s) == 0) == frame[s]))
                    .collect();
                Cell { facing, fitting }
            })
            .collect()
    }
}

/// Keeps the `width` best children by score, ties drawn at random.
fn keep_best(children: &mut Vec<Child>, width: usize, rng: &mut Rng) {
    if children.len() <= width {
        return;
    }
    // The score of the last child kept: the highest `t` with at least
    // `width` children scoring `t` or more.
    let top = children.iter().map(|c| c.score).max().unwrap_or(0) as usize;
    let mut count = vec![0usize; top + 1];
    for c in children.iter() {
        count[c.score as usize] += 1;
    }
    let mut above = 0;
    let mut t = top;
    while above + count[t] < width {
        above += count[t];
        t -= 1;
    }
    let threshold = t as u32;
    let mut tied: Vec<Child> = Vec::with_capacity(count[t]);
    children.retain(|c| {
        if c.score == threshold {
            tied.push(*c);
        }
        c.score > threshold
    });
    let need = width - above;
    for i in 0..need {
        let j = i + rng.below((tied.len() - i) as u64) as usize;
        tied.swap(i, j);
    }
    children.extend_from_slice(&tied[..need]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{generate, GenSpec};
    use crate::layouts::Layout;
    use crate::order::FillOrder;
    use crate::score::max_score;
    use crate::search::Forced;

    fn beam(
        puzzle: &crate::model::Puzzle,
        prefix: &[Forced],
        width: usize,
        seed: u64,
    ) -> BestReport {
        Backtracker::new(puzzle, FillOrder::RowMajor, &prefix.to_vec())
            .unwrap()
            .beam(
                &BeamConfig {
                    width,
                    fanout: 8,
                    seed,
                },
                None,
            )
            .unwrap()
    }

    #[test]
    fn every_beam_ends_in_a_full_board_scored_by_the_canonical_scorer() {
        for (size, layout, seed) in [
            (5, Layout::None, 1),
            (7, Layout::Official5, 2),
            (8, Layout::None, 3),
            (10, Layout::Official5, 4),
        ] {
            let g = generate(&GenSpec {
                layout,
                ..GenSpec::square(size, seed)
            })
            .unwrap();
            for width in [1, 16, 300] {
                let r = beam(&g.puzzle, &[], width, seed);
                let board = r.board.as_ref().unwrap();
                assert!(board.is_full(), "{size}x{size} width {width}");
                assert_eq!(r.score, score(board));
                assert!(r.score <= max_score(size, size));
                let (_, broken) = board.check_hints(&g.puzzle);
                assert!(broken.is_empty(), "hints {broken:?}");
                assert!(board.placements.is_some());
            }
        }
    }

    #[test]
    fn a_wide_beam_solves_a_small_board_and_the_seed_decides_the_board() {
        let g = generate(&GenSpec::square(5, 7)).unwrap();
        let r = beam(&g.puzzle, &[], 20_000, 1);
        assert_eq!(
            r.score,
            max_score(5, 5),
            "a 5x5 is within a 20 000-wide beam"
        );
        let a = beam(&g.puzzle, &[], 50, 3);
        let b = beam(&g.puzzle, &[], 50, 3);
        assert_eq!(a.board, b.board);
        // Width 1 is a greedy walk: never better than a wide beam here.
        assert!(beam(&g.puzzle, &[], 1, 3).score <= r.score);
    }

    #[test]
    fn the_prefix_is_kept() {
        let g = generate(&GenSpec::square(6, 5)).unwrap();
        let solution = g.solution.placements.as_ref().unwrap();
        let prefix: Vec<Forced> = (0..8)
            .map(|pos| {
                let p = solution[pos].unwrap();
                Forced {
                    pos,
                    piece: p.piece,
                    rot: p.rot,
                }
            })
            .collect();
        let r = beam(&g.puzzle, &prefix, 40, 9);
        let placements = r.board.as_ref().unwrap().placements.as_ref().unwrap();
        for f in &prefix {
            let p = placements[f.pos].unwrap();
            assert_eq!((p.piece, p.rot), (f.piece, f.rot));
        }
    }

    #[test]
    fn repeated_pieces_are_each_placed_once() {
        // Two colours on a 5x5: many pieces come in several copies.
        let g = generate(&GenSpec::square(5, 7)).unwrap();
        let classes = PieceClasses::new(&g.puzzle.pieces);
        assert!(classes.len() < g.puzzle.pieces.len(), "the set has repeats");
        for (width, seed) in [(1, 1), (30, 2), (20_000, 3)] {
            let r = beam(&g.puzzle, &[], width, seed);
            let placements = r.board.as_ref().unwrap().placements.as_ref().unwrap();
            let mut pieces: Vec<usize> = placements.iter().map(|p| p.unwrap().piece).collect();
            pieces.sort_unstable();
            assert_eq!(pieces, (0..25).collect::<Vec<_>>(), "width {width}");
            assert_eq!(r.score, score(r.board.as_ref().unwrap()));
        }
    }

    #[test]
    fn keep_best_keeps_the_top_and_draws_the_ties() {
        let mut rng = Rng::new(5);
        let scores = [5, 3, 9, 3, 3, 7, 3, 1, 3];
        for width in 0..=scores.len() + 1 {
            let mut children: Vec<Child> = scores
                .iter()
                .enumerate()
                .map(|(i, &s)| Child {
                    parent: i as u32,
                    word: 0,
                    score: s,
                })
                .collect();
            keep_best(&mut children, width.max(1), &mut rng);
            let mut kept: Vec<u32> = children.iter().map(|c| c.score).collect();
            kept.sort_unstable_by(|a, b| b.cmp(a));
            let mut all = scores.to_vec();
            all.sort_unstable_by(|a, b| b.cmp(a));
            all.truncate(width.max(1));
            assert_eq!(kept, all, "width {width}");
            let mut parents: Vec<u32> = children.iter().map(|c| c.parent).collect();
            parents.sort_unstable();
            parents.dedup();
            assert_eq!(parents.len(), children.len(), "no child twice");
        }
    }
}
