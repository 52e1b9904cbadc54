//! `e2 backup` and `e2 restore`: a store as one portable file, and back.
//!
//! A week-long count outlives machines: its data directory can be backed up
//! (with its coordinator or `e2 count` stopped), carried to another machine
//! and restored into a new directory, where the same `e2 count --data DIR`
//! (or `e2 coordinator --data DIR`) resumes it. A running `e2 count` or
//! coordinator also writes the same file on its own with `--backup FILE`
//! ([`schedule`]). The file and its checks are `e2_coordinator::backup`'s;
//! this is the command line around them.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use e2_coordinator::backup;

/// The schedule of `--backup FILE --backup-every S`, checked at once: a
/// path that cannot be written is an error before the count starts, not a
/// warning an hour into it.
pub fn schedule(path: Option<&Path>, every_s: u64) -> Result<Option<backup::Schedule>> {
    let Some(path) = path else {
        return Ok(None);
    };
    if path.is_dir() {
        anyhow::bail!("--backup {}: is a directory; name a file", path.display());
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&partial)
        .with_context(|| format!("--backup {}: cannot write beside it", path.display()))?;
    let _ = std::fs::remove_file(&partial);
    Ok(Some(backup::Schedule {
        path: path.to_path_buf(),
        every: std::time::Duration::from_secs(every_s),
    }))
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The data directory of a stopped coordinator or `e2 count --data`
    /// (stop it first: a directory in use is refused).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Write the backup here (replaced only once it is complete). Default:
    /// standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A new or empty directory to fill; then `e2 count --data DIR` with the
    /// count's arguments, or `e2 coordinator --data DIR`, resumes.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The backup `e2 backup` wrote. It is checked whole (its checksum,
    /// record counts and each count's total) before anything is written.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn backup(args: BackupArgs) -> Result<()> {
    match &args.out {
        None => {
            let stdout = std::io::stdout();
            let summary = backup::backup(&args.data, &mut BufWriter::new(stdout.lock()))?;
            eprintln!("{}", serde_json::to_string(&summary)?);
        }
        Some(out) => {
            // Written beside the target and renamed, so an existing backup
            // is never replaced by half a file.
            let name = out
                .file_name()
                .with_context(|| format!("--out {}: not a file name", out.display()))?;
            let tmp = out.with_file_name(format!(".{}.partial", name.to_string_lossy()));
            let file = File::create(&tmp)
                .with_context(|| format!("--out {}: cannot create it", tmp.display()))?;
            let mut writer = BufWriter::new(file);
            let written = backup::backup(&args.data, &mut writer).and_then(|s| {
                writer.flush()?;
                writer.get_ref().sync_all()?;
                Ok(s)
            });
            let summary = match written {
                Ok(s) => s,
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e.into());
                }
            };
            std::fs::rename(&tmp, out)
                .with_context(|| format!("--out {}: cannot write it", out.display()))?;
            println!("{}", serde_json::to_string(&summary)?);
        }
    }
    Ok(())
}

pub fn restore(args: RestoreArgs) -> Result<()> {
    let file = File::open(&args.file)
        .with_context(|| format!("{}: cannot open it", args.file.display()))?;
    let summary = backup::restore(&args.data, &mut BufReader::new(file))
        .with_context(|| format!("restoring {}", args.file.display()))?;
    println!("{}", serde_json::to_string(&summary)?);
    Ok(())
}
