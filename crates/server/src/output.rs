//! What the commands write on standard output and standard error, and what a failed write means
//! for their exit status.
//!
//! Rust's runtime ignores `SIGPIPE` (it sets it to `SIG_IGN` before `main`, and arbiter leaves it
//! so), so writing to a pipe whose reader has gone fails with [`io::ErrorKind::BrokenPipe`]
//! instead of killing the process. A reader that stops early (`arbiter adjudicate
//! a-thousand-games.pgn | head -1`) has what it asked for: every command then stops writing and
//! ends quietly, with exit status 0 and nothing on standard error ([`write_failed`]). (Output
//! that fits in the pipe's buffer is written whole before the reader goes: the command then ends
//! as it would have anyway.) `println!` and `eprintln!` would
//! panic there instead (exit status 101 and a panic message), so the commands never use them.
//! A server writes nothing on standard output (its addresses are a log line on standard error).

use std::fmt;
use std::io::{self, Write as _};
use std::process::ExitCode;

/// Whether `error` is a write to a pipe (or socket) whose reader has gone.
#[must_use]
pub fn closed_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}

/// Writes `text` and a newline to standard output.
///
/// # Errors
/// The write's error: [`io::ErrorKind::BrokenPipe`] when the reader has gone (see
/// [`write_failed`]).
pub fn line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()
}

/// The exit status after an error writing standard output: 0, quietly, when the reader has gone
/// ([`closed_pipe`]); otherwise 1, with `arbiter: cannot write the output: ...` on standard
/// error (a full disk, a closed descriptor).
#[must_use]
pub fn write_failed(error: &io::Error) -> ExitCode {
    if closed_pipe(error) {
        return ExitCode::SUCCESS;
    }
    report(format_args!("cannot write the output: {error}"));
    ExitCode::FAILURE
}

/// Writes `arbiter: {message}` and a newline to standard error, ignoring failure: standard
/// error may be a closed pipe too (`arbiter adjudicate ... 2>&1 | head`), and the exit status
/// still tells.
pub fn report(message: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "arbiter: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_pipe_is_a_closed_pipe() {
        assert!(closed_pipe(&io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(!closed_pipe(&io::Error::from(io::ErrorKind::StorageFull)));
        assert_eq!(
            write_failed(&io::Error::from(io::ErrorKind::BrokenPipe)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            write_failed(&io::Error::from(io::ErrorKind::StorageFull)),
            ExitCode::FAILURE
        );
    }
}
