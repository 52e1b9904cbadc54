//! One module per group of subcommands; each is a thin layer over a library.

pub mod boards;
pub mod dlx;
pub mod experiment;
pub mod generate;
pub mod run;
