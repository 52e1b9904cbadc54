//! One module per group of subcommands; each is a thin layer over a library.

pub mod backup;
pub mod bench;
pub mod boards;
pub mod dlx;
pub mod estimate;
pub mod experiment;
pub mod generate;
pub mod run;

/// The most engine threads one process runs: far above any machine's
/// cores, and low enough that a typo (`--threads 100000`) is an error
/// rather than a hundred thousand threads.
pub const MAX_THREADS: usize = 1024;

/// Parses `--threads N`: 1 to [`MAX_THREADS`].
pub fn threads_arg(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("\"{s}\" is not a number of threads"))?;
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(format!("{n} is out of range 1..={MAX_THREADS}"));
    }
    Ok(n)
}
