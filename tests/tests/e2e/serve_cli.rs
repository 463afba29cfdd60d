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

/// Whether this host can listen on `[::1]` (the server leaves it out, with a warning, where
/// it cannot).
fn ipv6_loopback() -> bool {
    std::net::TcpListener::bind("[::1]:0").is_ok()
}

/// The addresses after `prefix` on a startup line: `127.0.0.1:P, [::1]:P`.
fn addresses(line: &str, prefix: &str) -> Option<Vec<SocketAddr>> {
    line.strip_prefix(prefix)?
        .split(", ")
        .map(|addr| addr.trim().parse().ok())
        .collect()
}

/// Issue 27 item 8: `--grpc-addr localhost:PORT` was refused ("invalid socket address syntax").
/// localhost now stands for 127.0.0.1 and [::1], and the server listens on both, on every port
/// (port 0: one free port, the same for both), so a client reaches it whichever of the two its
/// resolver gives first.
#[test]
fn r_localhost_listens_on_both_loopback_addresses() {
    let mut child = Command::new(binary::arbiter())
        .args([
            "serve",
            "--grpc-addr",
            "localhost:0",
            "--health-addr",
            "localhost:0",
            "--metrics-addr",
            "localhost:0",
            "--log-format",
            "json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start arbiter serve");
    let stdout = child.stdout.take().expect("stdout");
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut printed = Vec::new();
    while let Ok(line) = lines_rx.recv_timeout(TIMEOUT) {
        let done = line.starts_with("arbiter listening on ");
        printed.push(line);
        if done {
            break;
        }
    }
    let find = |prefix: &str| {
        printed
            .iter()
            .find_map(|line| addresses(line, prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in {printed:?}"))
    };
    let ports = [
        find("arbiter listening on "),
        find("arbiter health on "),
        find("arbiter metrics on "),
    ];
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
    let _ = child.kill();
    let _ = child.wait();
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
