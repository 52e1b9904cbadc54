//! `e2 generate`: a seeded puzzle and its known solution.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use e2_shared::formats::{boarddoc, puzzle_json, Pin};
use e2_shared::generator::{generate, recipe_colours, GenSpec};
use e2_shared::layouts::Layout;

use crate::input::write_out;

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Board side: the puzzle is N×N.
    #[arg(long, value_name = "N")]
    pub size: usize,
    /// Total colours, border + interior. Default: the recipe,
    /// round(seams*22/480) (22 at 16×16, 8 at 10×10).
    #[arg(long = "colors", value_name = "C")]
    pub colors: Option<u8>,
    /// Border colours, only ever on frame seams. Default: the recipe,
    /// round(C*5/22), at least 1 (5 at 16×16, 2 at 10×10).
    #[arg(long = "border-colors", value_name = "B")]
    pub border_colors: Option<u8>,
    /// Seed: the same (size, colours, border colours, seed) gives the same
    /// puzzle on any machine and any build.
    #[arg(long, value_name = "S")]
    pub seed: u64,
    /// Hint layout: none, official5 (the official clue cells, scaled),
    /// block, blocks5, lattice.
    #[arg(long = "hints", value_name = "LAYOUT", default_value = "none")]
    pub hints: Layout,
    /// Where to write the Puzzle JSON (default: stdout).
    #[arg(short = 'o', long = "output", value_name = "PUZZLE.json")]
    pub output: Option<PathBuf>,
    /// Also write the known solution as a BoardDoc.
    #[arg(long, value_name = "BOARD.json")]
    pub solution: Option<PathBuf>,
}

pub fn run(args: GenerateArgs) -> Result<()> {
    let spec = GenSpec {
        width: args.size,
        height: args.size,
        colours: args.colors,
        border_colours: args.border_colors,
        seed: args.seed,
        layout: args.hints,
    };
    let generated = generate(&spec)?;
    let puzzle = &generated.puzzle;
    write_out(args.output.as_deref(), &puzzle_json::write(puzzle))?;
    if let Some(path) = &args.solution {
        let pins: Vec<Pin> = puzzle
            .hints
            .iter()
            .map(|h| Pin {
                pos: h.pos,
                rot: h.rot,
            })
            .collect();
        let mut doc = boarddoc::write(&puzzle.name, &generated.solution, &pins)?;
        if !doc.ends_with('\n') {
            doc.push('\n');
        }
        write_out(Some(path), &doc)?;
    }
    let (recipe_b, recipe_i) = recipe_colours(args.size, args.size);
    eprintln!(
        "generated {} : {} border + {} interior colours (recipe {recipe_b} + {recipe_i}), {} hints, pinned-seam floor {}",
        puzzle.name,
        generated.border_colours,
        generated.interior_colours,
        puzzle.hints.len(),
        generated.pinned_seam_floor
    );
    if generated.duplicate_pieces > 0 {
        eprintln!(
            "warning: {} pieces repeat another up to rotation: {} colours cannot make every piece distinct at {}x{} \
             (pass more --colors for a distinct set)",
            generated.duplicate_pieces, puzzle.num_colors, args.size, args.size
        );
    }
    Ok(())
}
