//! `e2`: the one user-facing binary.
//!
//! A thin layer: it parses arguments with clap and calls the libraries
//! (`e2_shared` for boards, formats and engines; `e2_coordinator` and
//! `e2_worker` for the cluster). Errors reach the user as one line each via
//! anyhow, never as a panic.

mod cluster;
mod commands;
mod input;
mod out;
mod signals;

use clap::{Parser, Subcommand};

use commands::{backup, bench, boards, dlx, estimate, experiment, generate, run};

/// e2: a distributed Eternity II solver.
///
/// Start here:
///   e2 solve                         best-score search on the bundled puzzle
///   e2 count --puzzle P.json         count every solution of a small puzzle
///   e2 estimate --puzzle P.json      how many nodes (and seconds) that count takes
///   e2 convert URL-or-FILE           read a board in any notation, print all
#[derive(Debug, Parser)]
#[command(name = "e2", version, about, long_about, verbatim_doc_comment)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Best-score search, embedded coordinator and workers on every core;
    /// prints the best board as a BoardDoc.
    Solve(run::SolveArgs),
    /// Count every solution of a puzzle (distinct boards honouring its
    /// hints), embedded coordinator and workers; prints JSON.
    Count(run::CountArgs),
    /// Estimate the size of a count's tree (Knuth's random probes) under
    /// every fill order, and its time at this machine's node rate; prints JSON.
    Estimate(estimate::EstimateArgs),
    /// Read a board or puzzle in any notation and print it in every other
    /// (or only `--to FORMAT`), with its score.
    Convert(boards::ConvertArgs),
    /// Score a board (matched interior seams, max, breaks) and check it
    /// against a puzzle's clues.
    Score(boards::ScoreArgs),
    /// Draw a board as SVG: coloured edge triangles, hint cells outlined,
    /// unmatched seams in red.
    Render(boards::RenderArgs),
    /// Generate a seeded puzzle faithful to Eternity II's colour recipe,
    /// with its known solution.
    Generate(generate::GenerateArgs),
    /// Count an exact cover problem with colours in Knuth's dlx1/dlx2 text
    /// format, with the DLX engine (Algorithm C).
    Dlx(dlx::DlxArgs),
    /// Reproducible studies run on a cluster (or an embedded one):
    /// `hint-study` is the hint study's grid of fill orders × hint layouts.
    Experiment(experiment::ExperimentArgs),
    /// Measure an engine: nodes/s (strict, count) or best score in a time;
    /// with --against, beside an anchor engine, as a ratio.
    Bench(bench::BenchArgs),
    #[command(flatten)]
    Cluster(cluster::ClusterCommand),
    /// Write a stopped count's or coordinator's data directory as one
    /// portable, checksummed file (to resume on another machine).
    Backup(backup::BackupArgs),
    /// Fill a new directory from `e2 backup`'s file; the same `e2 count
    /// --data DIR` (or `e2 coordinator --data DIR`) then resumes there.
    Restore(backup::RestoreArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => run::solve(args),
        Command::Count(args) => run::count(args),
        Command::Estimate(args) => estimate::run(args),
        Command::Convert(args) => boards::convert(args),
        Command::Score(args) => boards::score(args),
        Command::Render(args) => boards::render(args),
        Command::Generate(args) => generate::run(args),
        Command::Dlx(args) => dlx::run(args),
        Command::Experiment(args) => experiment::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Cluster(c) => cluster::run(c),
        Command::Backup(args) => backup::backup(args),
        Command::Restore(args) => backup::restore(args),
    };
    if let Err(error) = result {
        eprintln!("error: {error:#}");
        std::process::exit(1);
    }
}
