//! Issue 27, item 8: a closed pipe ends a command quietly with exit status 0. Every subcommand
//! that writes to standard output is run with standard output a real pipe whose reader has gone:
//! `arbiter adjudicate` of a thousand games `| head -1` exited 1 (and `println!` panics there,
//! status 101). Rust ignores SIGPIPE, so the write fails with EPIPE and the command must end on
//! its own.

use std::{
    io::{BufRead as _, BufReader, Read as _},
    net::TcpListener,
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use arbiter_e2e::{binary, command, data_dir, server::Server};

const TIMEOUT: Duration = Duration::from_secs(120);

/// Default capacity of a Linux pipe: output beyond it cannot wait in the pipe, so a writer
/// whose reader has gone meets EPIPE.
const PIPE_BUFFER: usize = 64 * 1024;

/// What a command did with its standard output closed.
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    stderr: String,
}

/// Runs `arbiter ARGS` with standard output a pipe whose read end is closed before the command
/// starts: its first write fails with EPIPE.
fn closed_from_the_start(args: &[&str]) -> Ended {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(binary::arbiter())
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    finish(&mut child)
}

/// Runs `arbiter ARGS` as `arbiter ARGS | head -1` does: the first line is read, then the read
/// end is closed. Returns the first line too.
fn closed_after_one_line(args: &[&str]) -> (String, Ended) {
    let mut child = Command::new(binary::arbiter())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    {
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        stdout.read_line(&mut first).expect("first line");
    }
    (first, finish(&mut child))
}

fn finish(child: &mut std::process::Child) -> Ended {
    let mut stderr = child.stderr.take().expect("stderr");
    let drained = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let status = command::wait(child, TIMEOUT).expect("the command ends");
    Ended {
        code: status.code(),
        stderr: drained.join().expect("stderr"),
    }
}

/// The length of everything `arbiter ARGS` writes when read to its end.
fn full_output_len(args: &[&str]) -> usize {
    let output = command::run(Command::new(binary::arbiter()).args(args), TIMEOUT);
    output.stdout.len()
}

/// `arbiter adjudicate` in each format on 1,000 games, each writing far more than a pipe holds:
/// read one line and close (as `| head -1`), or closed before it starts. Status 0, nothing on
/// standard error. Before: status 1.
#[test]
fn adjudicate_ends_quietly_with_0_when_its_reader_closes_the_pipe() {
    let file = data_dir().join("games/lichess-2016-05-first-1000.pgn");
    let file = file.to_str().expect("UTF-8 path");
    for format in ["table", "jsonl", "pgn", "html"] {
        let args = [
            "adjudicate",
            file,
            "--analysis",
            "material",
            "--format",
            format,
        ];
        let whole = full_output_len(&args);
        assert!(
            whole > 2 * PIPE_BUFFER,
            "--format {format}: {whole} bytes fit in the pipe"
        );
        let (first, ended) = closed_after_one_line(&args);
        assert!(!first.is_empty(), "--format {format}");
        assert_eq!(
            (ended.code, ended.stderr.as_str()),
            (Some(0), ""),
            "--format {format} | head -1"
        );
        for jobs in ["1", "2"] {
            let mut args = args.to_vec();
            args.extend(["-j", jobs]);
            let ended = closed_from_the_start(&args);
            assert_eq!(
                (ended.code, ended.stderr.as_str()),
                (Some(0), ""),
                "--format {format} -j {jobs}, closed from the start"
            );
        }
    }
}

/// The findings do not matter once the reader has gone: a file with an illegal move (exit
/// status 2 when read whole) also ends with 0.
#[test]
fn a_closed_pipe_ends_adjudicate_with_0_whatever_the_games() {
    let file = data_dir().join("adjudicate/illegal-move.pgn");
    let args = ["adjudicate", file.to_str().expect("UTF-8 path")];
    let whole = command::run(Command::new(binary::arbiter()).args(args), TIMEOUT);
    assert_eq!(whole.status.code(), Some(2));
    let ended = closed_from_the_start(&args);
    assert_eq!((ended.code, ended.stderr.as_str()), (Some(0), ""));
}

/// `perft --divide`, `perft`, `board`, `--help` and `--version`: the same.
#[test]
fn the_tools_end_quietly_with_0_when_standard_output_is_closed() {
    for args in [
        &["perft", "--depth", "3", "--divide"][..],
        &["perft", "--depth", "2"],
        &["board", "startpos"],
        &["serve", "--help"],
        &["adjudicate", "--help"],
        &["--version"],
    ] {
        let ended = closed_from_the_start(args);
        assert_eq!(
            (ended.code, ended.stderr.as_str()),
            (Some(0), ""),
            "{args:?}"
        );
    }
}

/// `health-check` prints SERVING: its status (0, SERVING) stands when nobody reads it.
#[test]
fn health_check_ends_with_0_when_standard_output_is_closed() {
    let server = Server::start();
    let addr = format!("http://{}", server.addr());
    let ended = closed_from_the_start(&["health-check", "--addr", &addr]);
    assert_eq!((ended.code, ended.stderr.as_str()), (Some(0), ""));
}

/// A free port of 127.0.0.1 (another process may take it before the server: the test then
/// fails at the server's start, it does not pass wrongly).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// `serve` writes its addresses on standard output: with standard output closed it serves all
/// the same (a panic of `println!` killed it before it listened), and stops with 0 on SIGTERM.
#[test]
fn serve_serves_with_standard_output_closed() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let addr = format!("127.0.0.1:{}", free_port());
    let mut child = Command::new(binary::arbiter())
        .args([
            "serve",
            "--grpc-addr",
            &addr,
            "--metrics-addr",
            "off",
            "--health-addr",
            "off",
            "--lame-duck",
            "0s",
        ])
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let url = format!("http://{addr}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let check = command::run(
            Command::new(binary::arbiter()).args(["health-check", "--addr", &url]),
            TIMEOUT,
        );
        if check.status.success() {
            assert_eq!(String::from_utf8_lossy(&check.stdout), "SERVING\n");
            break;
        }
        assert!(
            Instant::now() < deadline && child.try_wait().expect("try_wait").is_none(),
            "the server never served: {:?}",
            child.try_wait()
        );
        thread::sleep(Duration::from_millis(50));
    }
    let killed = command::run(
        Command::new("kill").args(["-TERM", &child.id().to_string()]),
        TIMEOUT,
    );
    assert!(killed.status.success());
    let ended = finish(&mut child);
    assert_eq!(ended.code, Some(0), "{}", ended.stderr);
    assert!(!ended.stderr.contains("panicked"), "{}", ended.stderr);
}
