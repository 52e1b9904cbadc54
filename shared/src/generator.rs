//! The seeded generator: puzzles faithful to Eternity II
//! at any size.
//!
//! A generated puzzle is built solved. Every interior seam of the grid gets a
//! colour; each cell's four seam colours (grey on the outer frame) make its
//! piece, catalogued at rotation 0 as it sits in the solution; then piece ids
//! are relabelled by a seeded permutation so that no solver can walk the
//! identity placement.
//!
//! The recipe copies the official puzzle's structure:
//! - *border colours* appear only on frame seams (seams along the outer
//!   ring, joining two perimeter cells); *interior colours* on every other
//!   seam, including the inward face of edge pieces;
//! - within each class every colour is used equally often (±1), so no colour
//!   is rare enough to over-constrain;
//! - every piece is distinct up to rotation, so a hint names one piece;
//! - the number of colours keeps the per-colour multiplicity of the official
//!   puzzle: `total = round(seams*22/480)`, `border = round(total*5/22)`
//!   (at least 1), interior the rest: 5 + 17 at 16×16, 2 + 6 at 10×10.
//!
//! Everything random comes from [`Rng`] streams forked per step, so the same
//! `(size, colours, border colours, seed)` gives the same puzzle on any
//! machine and build; tests pin golden fingerprints.

use crate::error::{Error, Result};
use crate::layouts::{pinned_seam_floor, Layout};
use crate::model::{canonical_form, Board, Edges, Hint, Placement, Puzzle};
use crate::rng::Rng;
use std::collections::HashMap;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenSpec {
    pub width: usize,
    pub height: usize,
    /// Total colours (border + interior); `None` follows the recipe.
    pub colours: Option<u8>,
    /// Border colours; `None` follows the recipe.
    pub border_colours: Option<u8>,
    pub seed: u64,
    pub layout: Layout,
}

impl GenSpec {
    pub fn square(size: usize, seed: u64) -> Self {
        GenSpec {
            width: size,
            height: size,
            colours: None,
            border_colours: None,
            seed,
            layout: Layout::None,
        }
    }

    /// A `width`×`height` puzzle with `colours` in all, `border` of them on
    /// the frame, and no hints: the small test puzzles' usual shape.
    pub fn sized(width: usize, height: usize, colours: u8, border: u8, seed: u64) -> Self {
        GenSpec {
            width,
            height,
            colours: Some(colours),
            border_colours: Some(border),
            seed,
            layout: Layout::None,
        }
    }
}

/// A generated puzzle with its known solution.
#[derive(Debug, Clone)]
pub struct Generated {
    pub puzzle: Puzzle,
    pub solution: Board,
    pub border_colours: u8,
    pub interior_colours: u8,
    /// Interior seams with both ends pinned by the layout.
    pub pinned_seam_floor: u32,
    /// Pieces equal up to rotation to another piece: 0 unless the colour
    /// counts make distinctness impossible (see [`generate`]).
    pub duplicate_pieces: usize,
}

impl Generated {
    /// FNV-1a 64 over the size, colour count, every piece and every hint:
    /// the golden value tests pin to prove generation is frozen.
    pub fn fingerprint(&self) -> u64 {
        let p = &self.puzzle;
        let mut bytes = vec![p.width as u8, p.height as u8, p.num_colors];
        for piece in &p.pieces {
            bytes.extend_from_slice(piece);
        }
        for h in &p.hints {
            bytes.extend_from_slice(&(h.pos as u32).to_le_bytes());
            bytes.extend_from_slice(&(h.piece as u32).to_le_bytes());
            bytes.push(h.rot);
        }
        crate::formats::boarddoc::fnv1a64(bytes)
    }
}

/// The recipe's colour counts `(border, interior)` for a board.
pub fn recipe_colours(width: usize, height: usize) -> (u8, u8) {
    let seams = crate::score::max_score(width, height) as f64;
    let total = (seams * 22.0 / 480.0).round().max(2.0);
    let border = (total * 5.0 / 22.0).round().max(1.0);
    (border as u8, (total - border).max(1.0) as u8)
}

const STREAM_COLOURS: u64 = 1;
const STREAM_DISTINCT: u64 = 2;
const STREAM_RELABEL: u64 = 3;
/// How many colour swaps the generator tries to make every piece distinct.
const MAX_REPAIR_STEPS: usize = 200_000;

pub fn generate(spec: &GenSpec) -> Result<Generated> {
    let (w, h) = (spec.width, spec.height);
    if !(2..=crate::model::MAX_SIDE).contains(&w) || !(2..=crate::model::MAX_SIDE).contains(&h) {
        return Err(Error::Invalid(format!(
            "board size {w}x{h} is out of range: sides must be 2..={}",
            crate::model::MAX_SIDE
        )));
    }
    let (recipe_border, recipe_interior) = recipe_colours(w, h);
    let border = spec.border_colours.unwrap_or(recipe_border);
    let total = spec.colours.unwrap_or(recipe_border + recipe_interior);
    if border == 0 || border >= total {
        return Err(Error::Invalid(format!(
            "{border} border colours of {total} in all: need at least 1 border and 1 interior colour"
        )));
    }
    if total > crate::model::MAX_COLOUR {
        return Err(Error::Invalid(format!(
            "{total} colours at {w}x{h}: the formats carry at most {} (pass --colors and --border-colors)",
            crate::model::MAX_COLOUR
        )));
    }
    let interior = total - border;
    let grid = SeamGrid::new(w, h);

    // Colour each class with balanced counts, then shuffle within the class.
    let mut rng = Rng::fork(spec.seed, STREAM_COLOURS);
    let mut colour = vec![0u8; grid.seams()];
    for (class, first, count) in [
        (&grid.frame, 1u8, border),
        (&grid.inner, border + 1, interior),
    ] {
        let mut palette: Vec<u8> = (0..class.len())
            .map(|i| first + (i % count as usize) as u8)
            .collect();
        rng.shuffle(&mut palette);
        for (&seam, c) in class.iter().zip(palette) {
            colour[seam] = c;
        }
    }
    let duplicate_pieces = make_pieces_distinct(&grid, &mut colour, spec.seed, border, interior)?;

    // Relabel: the piece at cell `pos` in the solution gets id `label[pos]`.
    let mut label: Vec<usize> = (0..w * h).collect();
    Rng::fork(spec.seed, STREAM_RELABEL).shuffle(&mut label);
    let mut pieces = vec![[0u8; 4]; w * h];
    for pos in 0..w * h {
        pieces[label[pos]] = grid.piece(pos, &colour);
    }
    let pinned = spec.layout.cells(w, h);
    let hints = pinned
        .iter()
        .map(|&pos| Hint {
            pos,
            piece: label[pos],
            rot: 0,
        })
        .collect();
    let name = format!(
        "e2gen_{w}x{h}_c{total}_b{border}_s{}_{}",
        spec.seed,
        spec.layout.name()
    );
    let puzzle = Puzzle {
        name,
        width: w,
        height: h,
        num_colors: total,
        pieces,
        hints,
    };
    if duplicate_pieces == 0 {
        puzzle.validate()?;
    } else {
        puzzle.validate_allowing_duplicates()?;
    }
    let solution = Board::from_placements(
        &puzzle,
        (0..w * h)
            .map(|pos| {
                Some(Placement {
                    piece: label[pos],
                    rot: 0,
                })
            })
            .collect(),
    );
    Ok(Generated {
        pinned_seam_floor: pinned_seam_floor(w, h, &pinned),
        puzzle,
        solution,
        border_colours: border,
        interior_colours: interior,
        duplicate_pieces,
    })
}

/// Swaps colours between seams of the same class (which keeps the counts
/// balanced), keeping a swap only when it does not add duplicates, until no
/// two pieces are equal up to rotation. Returns how many duplicates remain.
///
/// Small boards with the recipe's few colours cannot always be made
/// distinct (10×10 at 2 + 6 has 32 edge cells but only 2·6·2 = 24 edge
/// patterns): then the minimum is kept and reported, and it is an error only
/// when distinctness was possible and the repair still failed.
fn make_pieces_distinct(
    grid: &SeamGrid,
    colour: &mut [u8],
    seed: u64,
    border: u8,
    interior: u8,
) -> Result<usize> {
    let mut rng = Rng::fork(seed, STREAM_DISTINCT);
    let mut duplicates = duplicate_cells(grid, colour);
    for _ in 0..MAX_REPAIR_STEPS {
        if duplicates.is_empty() {
            return Ok(0);
        }
        let pos = duplicates[rng.below(duplicates.len() as u64) as usize];
        let seams: Vec<usize> = grid.cell_seams[pos].iter().flatten().copied().collect();
        let seam = seams[rng.below(seams.len() as u64) as usize];
        let class = if grid.is_frame[seam] {
            &grid.frame
        } else {
            &grid.inner
        };
        let other = class[rng.below(class.len() as u64) as usize];
        colour.swap(seam, other);
        let after = duplicate_cells(grid, colour);
        if after.len() <= duplicates.len() {
            duplicates = after;
        } else {
            colour.swap(seam, other);
        }
    }
    if distinct_is_possible(grid, border, interior) {
        return Err(Error::Invalid(format!(
            "could not make every piece distinct at {}x{} with {border} border + {interior} interior colours; use more colours",
            grid.width, grid.height
        )));
    }
    Ok(duplicates.len())
}

/// Cells whose piece equals another cell's piece up to rotation (all but
/// the first of each group).
fn duplicate_cells(grid: &SeamGrid, colour: &[u8]) -> Vec<usize> {
    let mut seen: HashMap<Edges, usize> = HashMap::new();
    (0..grid.width * grid.height)
        .filter(|&pos| {
            seen.insert(canonical_form(grid.piece(pos, colour)), pos)
                .is_some()
        })
        .collect()
}

/// Pigeonhole bound: enough corner, edge and interior patterns for the cells.
fn distinct_is_possible(grid: &SeamGrid, border: u8, interior: u8) -> bool {
    let (w, h) = (grid.width, grid.height);
    let (b, i) = (border as u64, interior as u64);
    let corners = 4u64;
    let edges = (2 * (w.saturating_sub(2) + h.saturating_sub(2))) as u64;
    let inner = (w.saturating_sub(2) * h.saturating_sub(2)) as u64;
    // Necklaces of 4 beads in i colours under rotation.
    let inner_patterns = (i.pow(4) + i.pow(2) + 2 * i) / 4;
    w >= 3 && h >= 3 && b * b >= corners && b * b * i >= edges && inner_patterns >= inner
}

/// Seam numbering of a grid: horizontal neighbours first, then vertical.
struct SeamGrid {
    width: usize,
    height: usize,
    /// For each cell, its URDL seams (`None` on the outer frame).
    cell_seams: Vec<[Option<usize>; 4]>,
    is_frame: Vec<bool>,
    frame: Vec<usize>,
    inner: Vec<usize>,
}

impl SeamGrid {
    fn new(width: usize, height: usize) -> Self {
        let horizontal = |r: usize, c: usize| r * (width - 1) + c; // between (r,c) and (r,c+1)
        let vertical = |r: usize, c: usize| height * (width - 1) + r * width + c; // (r,c)-(r+1,c)
        let seams = crate::score::max_score(width, height) as usize;
        let mut cell_seams = vec![[None; 4]; width * height];
        let mut is_frame = vec![false; seams];
        for r in 0..height {
            for c in 0..width {
                let s = &mut cell_seams[r * width + c];
                s[0] = (r > 0).then(|| vertical(r - 1, c));
                s[1] = (c + 1 < width).then(|| horizontal(r, c));
                s[2] = (r + 1 < height).then(|| vertical(r, c));
                s[3] = (c > 0).then(|| horizontal(r, c - 1));
                if c + 1 < width && (r == 0 || r + 1 == height) {
                    is_frame[horizontal(r, c)] = true;
                }
                if r + 1 < height && (c == 0 || c + 1 == width) {
                    is_frame[vertical(r, c)] = true;
                }
            }
        }
        let frame = (0..seams).filter(|&s| is_frame[s]).collect();
        let inner = (0..seams).filter(|&s| !is_frame[s]).collect();
        SeamGrid {
            width,
            height,
            cell_seams,
            is_frame,
            frame,
            inner,
        }
    }

    fn seams(&self) -> usize {
        self.is_frame.len()
    }

    fn piece(&self, pos: usize, colour: &[u8]) -> Edges {
        self.cell_seams[pos].map(|s| s.map_or(0, |s| colour[s]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{max_score, score};

    #[test]
    fn recipe_gives_the_two_published_data_points() {
        assert_eq!(recipe_colours(16, 16), (5, 17));
        assert_eq!(recipe_colours(10, 10), (2, 6));
    }

    #[test]
    fn default_16x16_has_5_border_and_17_interior_colours() {
        let g = generate(&GenSpec::square(16, 1)).unwrap();
        assert_eq!((g.border_colours, g.interior_colours), (5, 17));
        assert_eq!(g.puzzle.num_colors, 22);
        let g = generate(&GenSpec::square(10, 1)).unwrap();
        assert_eq!((g.border_colours, g.interior_colours), (2, 6));
    }

    #[test]
    fn the_solution_is_perfect_and_honours_its_hints() {
        for (size, layout) in [
            (4, Layout::Official5),
            (7, Layout::Block),
            (12, Layout::Blocks5),
            (16, Layout::Lattice),
        ] {
            let spec = GenSpec {
                layout,
                colours: Some(10),
                border_colours: Some(3),
                ..GenSpec::square(size, 9)
            };
            let g = generate(&spec).unwrap();
            assert_eq!(score(&g.solution), max_score(size, size), "{size}");
            let (_, broken) = g.solution.check_hints(&g.puzzle);
            assert!(broken.is_empty());
            assert_eq!(g.puzzle.hints.len(), layout.cells(size, size).len());
        }
    }

    #[test]
    fn border_colours_only_on_frame_seams_and_counts_balanced() {
        let g = generate(&GenSpec::square(16, 3)).unwrap();
        let b = &g.solution;
        let mut frame_counts: HashMap<u8, usize> = HashMap::new();
        let mut inner_counts: HashMap<u8, usize> = HashMap::new();
        for r in 0..16 {
            for c in 0..16 {
                let e = b.cells[r * 16 + c].unwrap();
                if c < 15 {
                    let frame = r == 0 || r == 15;
                    let counts = if frame {
                        &mut frame_counts
                    } else {
                        &mut inner_counts
                    };
                    *counts.entry(e[1]).or_default() += 1;
                }
                if r < 15 {
                    let frame = c == 0 || c == 15;
                    let counts = if frame {
                        &mut frame_counts
                    } else {
                        &mut inner_counts
                    };
                    *counts.entry(e[2]).or_default() += 1;
                }
            }
        }
        assert!(
            frame_counts.keys().all(|&c| (1..=5).contains(&c)),
            "{frame_counts:?}"
        );
        assert!(
            inner_counts.keys().all(|&c| (6..=22).contains(&c)),
            "{inner_counts:?}"
        );
        assert_eq!((frame_counts.len(), inner_counts.len()), (5, 17));
        let spread = |m: &HashMap<u8, usize>| m.values().max().unwrap() - m.values().min().unwrap();
        assert!(spread(&frame_counts) <= 1 && spread(&inner_counts) <= 1);
        assert_eq!(frame_counts.values().sum::<usize>(), 60);
    }

    #[test]
    fn pieces_are_relabelled() {
        let g = generate(&GenSpec {
            colours: Some(8),
            border_colours: Some(3),
            ..GenSpec::square(8, 5)
        })
        .unwrap();
        let codes = g.solution.codes().unwrap();
        let identity: Vec<i32> = (0..64).map(|p| p * 4).collect();
        assert_ne!(codes, identity);
    }

    #[test]
    fn same_spec_same_puzzle_and_golden_fingerprints() {
        let a = generate(&GenSpec::square(16, 42)).unwrap();
        let b = generate(&GenSpec::square(16, 42)).unwrap();
        assert_eq!(a.puzzle, b.puzzle);
        assert_ne!(
            a.fingerprint(),
            generate(&GenSpec::square(16, 43)).unwrap().fingerprint()
        );
        // Golden values: a change here means generated puzzles changed for
        // every user; bump them only on purpose and say so in the changelog.
        let golden = [
            (GenSpec::square(16, 42), GOLDEN_16_42),
            (GenSpec::square(10, 7), GOLDEN_10_7),
            (
                GenSpec {
                    layout: Layout::Official5,
                    ..GenSpec::square(6, 1)
                },
                GOLDEN_6_1_OFFICIAL5,
            ),
        ];
        for (spec, want) in golden {
            assert_eq!(generate(&spec).unwrap().fingerprint(), want, "{spec:?}");
        }
    }

    const GOLDEN_16_42: u64 = 8075706121106931077;
    const GOLDEN_10_7: u64 = 11434738447546980283;
    const GOLDEN_6_1_OFFICIAL5: u64 = 13328622241623926504;

    #[test]
    fn too_few_colours_keeps_duplicates_minimal_and_says_so() {
        let g = generate(&GenSpec {
            colours: Some(2),
            border_colours: Some(1),
            ..GenSpec::square(5, 1)
        })
        .unwrap();
        assert!(g.duplicate_pieces > 0);
        assert!(g.puzzle.validate().is_err());
        g.puzzle.validate_allowing_duplicates().unwrap();
        // 10x10 at the recipe's 2 + 6: 32 edge cells, 24 edge patterns.
        let g = generate(&GenSpec::square(10, 1)).unwrap();
        assert!(g.duplicate_pieces >= 8, "{}", g.duplicate_pieces);
        // 16x16 at 5 + 17 is always distinct.
        assert_eq!(
            generate(&GenSpec::square(16, 1)).unwrap().duplicate_pieces,
            0
        );
    }

    #[test]
    fn small_boards_with_enough_colours_are_distinct() {
        for size in 3..=8 {
            for seed in 0..5 {
                let spec = GenSpec {
                    colours: Some(8),
                    border_colours: Some(3),
                    ..GenSpec::square(size, seed)
                };
                let g = generate(&spec).unwrap();
                assert_eq!(g.duplicate_pieces, 0, "{size} {seed}");
                g.puzzle.validate().unwrap();
            }
        }
    }
}
