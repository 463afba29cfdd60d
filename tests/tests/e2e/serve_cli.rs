//! `arbiter serve` as an operator meets it (issue 27 items 7 and 8): its command line (host names
//! in the address flags, compound durations in the duration flags and their variables, refused
//! values named by their flag or variable) and its log lines.

use std::{
    io::{BufRead as _, BufReader},
    net::SocketAddr,
    process::{Command, Stdio},
    time::Duration,
};

use arbiter_e2e::{binary, command};

const TIMEOUT: Duration = Duration::from_secs(30);

/// `arbiter serve` with `args` and the variables `env`, run to its end (it must refuse to start).
fn refused(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .arg("serve")
            .args(args)
            .envs(env.iter().copied()),
        TIMEOUT,
    );
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `serve`'s flags for the gRPC port only, on a free port of 127.0.0.1, logging JSON lines.
const GRPC_ONLY_JSON: [&str; 8] = [
    "--grpc-addr",
    "127.0.0.1:0",
    "--health-addr",
    "off",
    "--metrics-addr",
    "off",
    "--log-format",
    "json",
];

/// A running `arbiter serve` with its log lines, killed when dropped.
struct Started {
    child: std::process::Child,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Started {
    /// Starts `arbiter serve` with `args` and the variables `env` (RUST_LOG unset unless given).
    fn new(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(binary::arbiter())
            .arg("serve")
            .args(args)
            .env_remove("RUST_LOG")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arbiter serve");
        let stderr = lines(child.stderr.take().expect("stderr"));
        Self { child, stderr }
    }

    /// The log lines, each read as JSON, up to the first whose message starts with `message`,
    /// that one included.
    fn log_until(&self, message: &str) -> Vec<serde_json::Value> {
        let mut records = Vec::new();
        while let Ok(line) = self.stderr.recv_timeout(TIMEOUT) {
            let record: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("not a JSON log line ({error}): {line}"));
            let done = record["message"]
                .as_str()
                .is_some_and(|text| text.starts_with(message));
            records.push(record);
            if done {
                return records;
            }
        }
        panic!("no {message:?} log line within {TIMEOUT:?}: {records:?}");
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines `pipe` gives, on a channel fed by a thread of its own.
fn lines(pipe: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Whether this host can listen on `[::1]` (the server leaves it out, with a warning, where
/// it cannot).
fn ipv6_loopback() -> bool {
    std::net::TcpListener::bind("[::1]:0").is_ok()
}

/// The addresses a field of the listening log line names: `127.0.0.1:P, [::1]:P`.
fn addresses(text: &str) -> Option<Vec<SocketAddr>> {
    text.split(", ")
        .map(|addr| addr.trim().parse().ok())
        .collect()
}

/// Issue 27 item 8: `--grpc-addr localhost:PORT` was refused ("invalid socket address syntax").
/// localhost now stands for 127.0.0.1 and [::1], and the server listens on both, on every port
/// (port 0: one free port, the same for both), so a client reaches it whichever of the two its
/// resolver gives first.
#[test]
fn r_localhost_listens_on_both_loopback_addresses() {
    let server = Started::new(
        &[
            "--grpc-addr",
            "localhost:0",
            "--health-addr",
            "localhost:0",
            "--metrics-addr",
            "localhost:0",
            "--log-format",
            "json",
        ],
        &[],
    );
    let logged = server.log_until("arbiter listening");
    let record = logged.last().expect("the listening line");
    let find = |name: &str| {
        record
            .get(name)
            .or_else(|| record.get("fields").and_then(|fields| fields.get(name)))
            .and_then(serde_json::Value::as_str)
            .and_then(addresses)
            .unwrap_or_else(|| panic!("no {name} addresses in {record}"))
    };
    let ports = [find("grpc_addr"), find("health_addr"), find("metrics_addr")];
    let printed = record;
    for addrs in &ports {
        let port = addrs[0].port();
        assert_ne!(port, 0);
        let mut wanted = vec![SocketAddr::from(([127, 0, 0, 1], port))];
        if ipv6_loopback() {
            wanted.push(SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port)));
        }
        assert_eq!(addrs, &wanted, "{printed:?}");
    }
    // Each address of the gRPC and health ports answers a health check; the metrics port a
    // connection.
    for addr in ports[0].iter().chain(&ports[1]) {
        let output = command::run(
            Command::new(binary::arbiter()).args(["health-check", "--addr", &addr.to_string()]),
            TIMEOUT,
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            "SERVING",
            "health-check --addr {addr}: {output:?}"
        );
    }
    for addr in &ports[2] {
        std::net::TcpStream::connect_timeout(addr, TIMEOUT)
            .unwrap_or_else(|error| panic!("connect to /metrics on {addr}: {error}"));
    }
}

/// A value that cannot be used names its flag, or its variable when it came from one, and is a
/// command line error (64): durations with no unit after a number, addresses without a port or
/// whose name does not resolve.
#[test]
fn a_refused_value_names_its_flag_or_its_variable() {
    let (code, stderr) = refused(&["--request-timeout", "1m30"], &[]);
    assert_eq!(code, Some(64), "{stderr}");
    assert!(
        stderr.contains("invalid value '1m30' for '--request-timeout"),
        "{stderr}"
    );
    assert!(!stderr.contains("ARBITER_"), "{stderr}");

    let (code, stderr) = refused(&[], &[("ARBITER_LAME_DUCK", "5x")]);
    assert_eq!(code, Some(64), "{stderr}");
    assert!(stderr.contains("for '--lame-duck"), "{stderr}");
    assert!(
        stderr
            .contains("arbiter: that value comes from the environment variable ARBITER_LAME_DUCK"),
        "{stderr}"
    );

    let (code, stderr) = refused(&["--grpc-addr", "localhost"], &[]);
    assert_eq!(code, Some(64), "{stderr}");
    assert!(stderr.contains("for '--grpc-addr"), "{stderr}");
    assert!(stderr.contains("has no port"), "{stderr}");

    let (code, stderr) = refused(&[], &[("ARBITER_METRICS_ADDR", "nowhere.invalid:9090")]);
    assert_eq!(code, Some(64), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "arbiter: --metrics-addr (ARBITER_METRICS_ADDR) nowhere.invalid:9090: cannot resolve \
         \"nowhere.invalid\": names under .invalid never resolve (RFC 6761)"
    );
}

/// Issue 27 item 8: `--request-timeout 1m30s` was refused. Compound durations are read from
/// flags and variables alike: the lame duck asked (1m30s) is capped at half the drain timeout
/// (ARBITER_DRAIN_TIMEOUT=1m30s, so 45 s), and the warning says so in milliseconds.
#[test]
fn r_compound_durations_are_read_from_flags_and_variables() {
    let server = Started::new(
        &[
            &GRPC_ONLY_JSON[..],
            &["--lame-duck", "1m30s", "--request-timeout", "1h 30m"],
        ]
        .concat(),
        &[("ARBITER_DRAIN_TIMEOUT", "1m30s")],
    );
    let capped = server
        .log_until("--lame-duck is capped")
        .pop()
        .expect("the warning");
    assert_eq!(
        capped["lame_duck_ms"],
        serde_json::json!(45_000),
        "{capped}"
    );
    assert_eq!(capped["asked_ms"], serde_json::json!(90_000), "{capped}");
}

/// Issue 27 item 7: the JSON log wrote `"lame_duck_ms":"2000"`: `Duration::as_millis` is a
/// `u128`, which tracing records through `Debug`, as a string. Every number a line carries is
/// now a JSON number: over a whole run (startup, a call in the access log, a drain), no field but
/// the request id (which may happen to be all digits) holds a string of digits.
#[tokio::test]
async fn r_numbers_in_json_log_lines_are_json_numbers() {
    let mut server = arbiter_e2e::server::Server::start_with(&[
        "--lame-duck",
        "300ms",
        "--drain-timeout",
        "5s",
        "--access-log",
        "all",
    ]);
    let mut client = server.client().await;
    client
        .list_legal_moves(arbiter_proto::v1::ListLegalMovesRequest {
            position: Some(arbiter_proto::v1::Position {
                kind: Some(arbiter_proto::v1::position::Kind::Fen(
                    "startpos".to_owned(),
                )),
                ..arbiter_proto::v1::Position::default()
            }),
            ..arbiter_proto::v1::ListLegalMovesRequest::default()
        })
        .await
        .expect("ListLegalMoves of the start position");
    drop(client);
    server.signal("TERM");
    assert!(
        server.exited(TIMEOUT).await.success(),
        "{}",
        server.stderr_tail()
    );
    let records: Vec<serde_json::Value> = server
        .stderr_tail()
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not a JSON log line ({error}): {line}"))
        })
        .collect();
    let field = |message: &str, name: &str| {
        records
            .iter()
            .find(|record| record["message"] == message)
            .map(|record| record[name].clone())
            .unwrap_or_else(|| panic!("no {message:?} line: {records:?}"))
    };
    assert_eq!(
        field(
            "shutdown requested: health NOT_SERVING, draining",
            "lame_duck_ms"
        ),
        serde_json::json!(300)
    );
    assert_eq!(field("call finished", "grpc_status"), "OK");
    assert!(field("call finished", "elapsed_us").is_u64(), "{records:?}");
    let digits_as_text: Vec<(String, String)> = records
        .iter()
        .flat_map(|record| record.as_object().into_iter().flatten())
        .filter(|(name, _)| *name != "request_id")
        .filter_map(|(name, value)| {
            let text = value.as_str()?;
            (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| (name.clone(), text.to_owned()))
        })
        .collect();
    assert_eq!(digits_as_text, [], "numbers written as strings");
}

/// Issue 27 item 7: one log format per process. An unreadable `RUST_LOG` was reported as a plain
/// line before the JSON lines (and a panic as the standard library's plain text): it is now a
/// WARN line of the log, and the server runs with the default filter.
#[test]
fn r_an_unreadable_rust_log_is_a_line_of_the_log() {
    let server = Started::new(&GRPC_ONLY_JSON, &[("RUST_LOG", "arbiter=loudest")]);
    let records = server.log_until("arbiter listening");
    let warning = records
        .iter()
        .find(|record| record["message"] == "RUST_LOG is not a valid log filter: using the default")
        .unwrap_or_else(|| panic!("no warning about RUST_LOG: {records:?}"));
    assert_eq!(warning["level"], "WARN");
    assert_eq!(warning["rust_log"], "arbiter=loudest");
    assert_eq!(warning["default"], "info,h2=error,rustls=error");
}

/// Issue 27 item 7: one log format per process. The error that stops `serve` after its log
/// started (here: the gRPC port is taken) was a plain `arbiter: ...` line after JSON lines; it
/// is an ERROR line of the log, and the exit status stays 1.
#[test]
fn r_the_error_that_stops_serve_is_a_line_of_the_log() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to take");
    let addr = taken.local_addr().expect("its address").to_string();
    let output = command::run(
        Command::new(binary::arbiter())
            .args(["serve", "--grpc-addr", &addr, "--health-addr", "off"])
            .args(["--metrics-addr", "off", "--log-format", "json"])
            .env_remove("RUST_LOG"),
        TIMEOUT,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let records: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not a JSON log line ({error}): {line}"))
        })
        .collect();
    let last = records.last().expect("a log line");
    assert_eq!(last["level"], "ERROR", "{stderr}");
    assert_eq!(last["message"], "arbiter stopped on an error", "{stderr}");
    let error = last["error"].as_str().expect("the error");
    assert!(
        error.starts_with(&format!("cannot listen on {addr}: ")),
        "{error}"
    );
}

/// Issue 27 item 8: `serve -h` was 93 lines of one list, up to 606 columns wide. The binary
/// prints its flags under headings, one line each within 100 columns; `--help` the details.
#[test]
fn r_serve_short_help_is_grouped_one_line_per_flag() {
    let output = command::run(
        Command::new(binary::arbiter()).args(["serve", "-h"]),
        TIMEOUT,
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let short = String::from_utf8_lossy(&output.stdout);
    let flags = short
        .lines()
        .filter(|line| line.starts_with("      --"))
        .count();
    let headings = short
        .lines()
        .filter(|line| line.ends_with(':') && !line.starts_with(' '))
        .count();
    // Each flag on one line; a heading and a blank line per heading ("Options" and ten of
    // flags), the about and usage lines and their blanks, `-h`, the three lines at the end.
    assert_eq!(short.lines().count(), flags + 2 * headings + 8, "{short}");
    assert_eq!(headings, 11, "{short}");
    let widest = short.lines().map(|line| line.chars().count()).max();
    assert!(
        widest.is_some_and(|columns| columns <= 100),
        "{widest:?}: {short}"
    );
    assert!(
        short.contains(
            "Listeners:\n      --grpc-addr <ADDR>     Address of the gRPC API (and gRPC-Web)\n"
        ),
        "{short}"
    );
    let output = command::run(
        Command::new(binary::arbiter()).args(["serve", "--help"]),
        TIMEOUT,
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let full = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        full.matches("[env: ARBITER_").count(),
        flags,
        "one -h line per flag"
    );
    assert!(
        full.contains("[env: ARBITER_GRPC_ADDR=]\n          [default: [::]:50051]"),
        "{full}"
    );
}
