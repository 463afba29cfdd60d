//! Running a child process to completion with a time limit.

use std::{
    io::Read,
    process::{Child, Command, ExitStatus, Output, Stdio},
    thread,
    time::{Duration, Instant},
};

/// How often a running child is polled.
const POLL: Duration = Duration::from_millis(10);

/// Runs `command` (standard input closed, output captured) and waits at most `timeout` for it.
///
/// # Panics
///
/// Panics when the command cannot be started, or when it runs longer than `timeout` (it is then
/// killed).
#[must_use]
pub fn run(command: &mut Command, timeout: Duration) -> Output {
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {shown}: {error}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let Some(status) = wait(&mut child, timeout) else {
        // Not joining the readers: a grandchild may still hold the pipes open.
        panic!("{shown} did not finish within {timeout:?} and was killed");
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Waits at most `timeout` for `child` to exit; returns its status, or `None` after killing it
/// when it is still running at the deadline.
pub fn wait(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(POLL),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// Reads a pipe to its end on a thread of its own, so that a chatty child never blocks.
fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}
