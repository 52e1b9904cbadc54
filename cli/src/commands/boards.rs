//! `e2 convert`, `e2 score`, `e2 render`: boards in, notations out.
//!
//! All the knowledge of notations lives in `e2_shared::formats`; these
//! commands only read arguments, call it, and print.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use e2_shared::formats::{self, BoardInput, Decoded, Duplicates, OutputFormat, Pin, Strictness};
use e2_shared::{render, score, Puzzle};

use crate::input::{read_arg, read_puzzle, write_out};

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The input: a path, a literal string, or `-` for stdin. Any of: an
    /// eternity2.dev or e2.bucas.name URL, a bare parameter block
    /// (`board_edges=...&hints=...`), a bare board_edges string,
    /// e2pieces.txt text, a BoardDoc, a Puzzle JSON or a Puzzle CSV.
    pub input: String,
    /// The piece set (Puzzle JSON or CSV) used to recover each cell's piece
    /// and rotation. Without it, outputs that need identities say so.
    #[arg(long, value_name = "P")]
    pub puzzle: Option<String>,
    /// Print only this format: board-edges, hints, board-pieces, e2pieces,
    /// boarddoc, url, bucas-url, puzzle-json, puzzle-csv.
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<OutputFormat>,
    /// Decode what can be decoded; undecodable cells become empty and are
    /// reported on stderr. Also accepts puzzles whose pieces repeat.
    #[arg(long)]
    pub lenient: bool,
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// The board: a path, a literal string or `-` (any board notation).
    pub board: String,
    /// The puzzle whose clues the board should honour (Puzzle JSON or CSV).
    #[arg(long, value_name = "P")]
    pub puzzle: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The board: a path, a literal string or `-` (any board notation).
    pub board: String,
    /// The puzzle whose hint cells to mark (Puzzle JSON or CSV).
    #[arg(long, value_name = "P")]
    pub puzzle: Option<String>,
    /// Where to write the SVG (`-` for stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE.svg")]
    pub output: PathBuf,
}

fn strictness(lenient: bool) -> Strictness {
    if lenient {
        Strictness::Lenient
    } else {
        Strictness::Strict
    }
}

/// Reads a board argument; a puzzle given where a board is expected is an error.
fn read_board(arg: &str, lenient: bool) -> Result<BoardInput> {
    let input = read_arg(arg)?;
    let detected = formats::detect(&input.text, input.name_hint.as_deref(), strictness(lenient))
        .with_context(|| format!("{}: cannot read the board", input.origin))?;
    for problem in &detected.problems {
        eprintln!("warning: {problem}");
    }
    match detected.decoded {
        Decoded::Board(board) => Ok(board),
        Decoded::Puzzle(p) => bail!(
            "{}: this is a puzzle (\"{}\"), not a board: pass it with --puzzle",
            input.origin,
            p.name
        ),
    }
}

pub fn convert(args: ConvertArgs) -> Result<()> {
    let input = read_arg(&args.input)?;
    let detected = formats::detect(
        &input.text,
        input.name_hint.as_deref(),
        strictness(args.lenient),
    )
    .with_context(|| format!("{}: cannot read the input", input.origin))?;
    for problem in &detected.problems {
        eprintln!("warning: {problem}");
    }
    let set = args
        .puzzle
        .as_deref()
        .map(|p| read_puzzle(p, Duplicates::Allow))
        .transpose()?;
    let conversion = formats::convert(&detected.decoded, set.as_ref())?;
    match args.to {
        Some(format) => match conversion.get(format).text() {
            Ok(text) => {
                crate::outln!("{}", text.trim_end_matches('\n'));
                Ok(())
            }
            Err(message) => bail!(message),
        },
        None => {
            crate::outln!("input: {}", detected.kind);
            crate::out!("{}", conversion.report());
            Ok(())
        }
    }
}

pub fn score(args: ScoreArgs) -> Result<()> {
    let input = read_board(&args.board, false)?;
    let puzzle = args
        .puzzle
        .as_deref()
        .map(|p| read_puzzle(p, Duplicates::Allow))
        .transpose()?;
    let s = score::evaluate(&input.board);
    let clues = puzzle
        .as_ref()
        .map(|p| clue_report(&input, p))
        .transpose()?;
    if args.json {
        let mut obj = serde_json::json!({
            "name": input.name, "score": s.score, "max": s.max, "breaks": s.breaks,
            "filled": input.board.filled(), "cells": input.board.len(),
        });
        if let Some(c) = &clues {
            obj["clues_honoured"] = serde_json::json!(c.honoured);
            obj["clues_broken"] = serde_json::json!(c.broken);
        }
        crate::outln!("{obj}");
        return Ok(());
    }
    crate::outln!("score: {} / {} (breaks {})", s.score, s.max, s.breaks);
    crate::outln!(
        "filled: {} of {} cells",
        input.board.filled(),
        input.board.len()
    );
    match clues {
        Some(c) => {
            let total = c.honoured.len() + c.broken.len();
            crate::outln!("clues: {} of {total} honoured", c.honoured.len());
            for line in c.lines {
                crate::outln!("  {line}");
            }
        }
        None => crate::outln!("clues: pass --puzzle to check the board against a puzzle's clues"),
    }
    Ok(())
}

struct Clues {
    honoured: Vec<String>,
    broken: Vec<String>,
    lines: Vec<String>,
}

fn clue_report(input: &BoardInput, puzzle: &Puzzle) -> Result<Clues> {
    if (input.board.width, input.board.height) != (puzzle.width, puzzle.height) {
        bail!(
            "the board is {}x{} but the puzzle \"{}\" is {}x{}",
            input.board.width,
            input.board.height,
            puzzle.name,
            puzzle.width,
            puzzle.height
        );
    }
    let (honoured, broken) = input.board.check_hints(puzzle);
    let describe = |k: usize| {
        let h = puzzle.hints[k];
        format!("{}.{}", h.pos, h.rot)
    };
    let mut lines = vec![];
    for &k in &honoured {
        let h = puzzle.hints[k];
        lines.push(format!(
            "{} honoured: piece {} at cell {} rot {}",
            describe(k),
            h.piece,
            h.pos,
            h.rot
        ));
    }
    for &k in &broken {
        let h = puzzle.hints[k];
        let found = match input.board.cells[h.pos] {
            Some(e) => format!("the board has edges {e:?}"),
            None => "the cell is empty".into(),
        };
        lines.push(format!(
            "{} BROKEN: expects piece {} {:?} at cell {}; {found}",
            describe(k),
            h.piece,
            puzzle.hint_edges(&h),
            h.pos
        ));
    }
    Ok(Clues {
        honoured: honoured.into_iter().map(describe).collect(),
        broken: broken.into_iter().map(describe).collect(),
        lines,
    })
}

pub fn render(args: RenderArgs) -> Result<()> {
    let input = read_board(&args.board, false)?;
    let puzzle = args
        .puzzle
        .as_deref()
        .map(|p| read_puzzle(p, Duplicates::Allow))
        .transpose()?;
    let mut hint_cells: Vec<usize> = input.hints.iter().map(|p: &Pin| p.pos).collect();
    if let Some(p) = &puzzle {
        hint_cells.extend(p.hints.iter().map(|h| h.pos));
    }
    hint_cells.sort_unstable();
    hint_cells.dedup();
    let svg = render::svg(&input.board, &hint_cells, &input.name);
    write_out(Some(&args.output), &svg)?;
    if args.output.as_os_str() != "-" {
        let s = score::evaluate(&input.board);
        eprintln!(
            "wrote {} (score {} / {}, {} hint cells)",
            args.output.display(),
            s.score,
            s.max,
            hint_cells.len()
        );
    }
    Ok(())
}
