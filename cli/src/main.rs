//! Minimal entry point for the `dist` branch: the lead's main.rs replaces it.
use clap::Parser;

mod cluster;

#[derive(Parser)]
#[command(name = "e2")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    #[command(flatten)]
    Cluster(cluster::ClusterCommand),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Cluster(c) => cluster::run(c),
    }
}
