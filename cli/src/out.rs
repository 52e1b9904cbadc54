//! Standard output that a closed pipe cannot crash.
//!
//! `println!` panics when stdout is gone (`e2 status | head -1` closes it
//! after one line). A command's output is worth nothing once nobody reads
//! it, so [`outln!`] and [`out!`] end the process quietly with status 0 on
//! a broken pipe, as Unix tools do; any other write error is reported.
//! Where output carries something the user must not lose (the id of a job
//! just created), [`try_line`] lets the command say it on stderr instead.

use std::io::{self, Write};

/// Writes `text` to stdout and flushes it.
pub fn try_write(text: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// Writes one line to stdout.
pub fn try_line(text: &str) -> io::Result<()> {
    try_write(&format!("{text}\n"))
}

/// [`try_write`], exiting quietly when nobody reads stdout any more.
pub fn write(text: &str) {
    if let Err(e) = try_write(text) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(1);
    }
}

/// `println!` for command output: see the module comment.
#[macro_export]
macro_rules! outln {
    () => { $crate::out::write("\n") };
    ($($arg:tt)*) => { $crate::out::write(&format!("{}\n", format_args!($($arg)*))) };
}

/// `print!` for command output: see the module comment.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::out::write(&format!($($arg)*)) };
}
