//! gRPC health (`grpc.health.v1`, Check and Watch), the `arbiter health-check` subcommand, and
//! graceful shutdown on SIGTERM: health turns NOT_SERVING while calls are still answered, then the
//! process exits with code 0 within the drain timeout.

use std::{
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter_e2e::{binary, command, server::Server, within};
use arbiter_proto::v1::{ListLegalMovesRequest, Position, position};
use tonic::{Code, Streaming, transport::Channel};
use tonic_health::pb::{
    HealthCheckRequest, HealthCheckResponse, health_check_response::ServingStatus,
    health_client::HealthClient,
};

/// Long enough for a message that was going to come to arrive.
const QUIET: Duration = Duration::from_millis(300);

/// Asks for the health of `service` ("" is the whole server).
async fn check(client: &mut HealthClient<Channel>, service: &str) -> Result<ServingStatus, Code> {
    within(
        "Health/Check",
        client.check(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .map(|response| response.into_inner().status())
    .map_err(|status| status.code())
}

/// Starts a Watch of `service`.
async fn watch(
    client: &mut HealthClient<Channel>,
    service: &str,
) -> Streaming<HealthCheckResponse> {
    within(
        "Health/Watch",
        client.watch(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .unwrap_or_else(|status| panic!("Watch {service:?} is accepted: {status:?}"))
    .into_inner()
}

/// The next message of a Watch: `Ok(Some(status))`, `Ok(None)` when the call ended with OK, or the
/// code it ended with.
async fn next(stream: &mut Streaming<HealthCheckResponse>) -> Result<Option<ServingStatus>, Code> {
    within("the next Watch message", stream.message())
        .await
        .map(|message| message.map(|response| response.status()))
        .map_err(|status| status.code())
}

/// Runs `arbiter health-check --addr URL ARGS...` and returns (exit code, stdout).
fn health_check_command(url: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .args(["health-check", "--addr", url, "--timeout", "3s"])
            .args(args),
        Duration::from_secs(20),
    );
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[tokio::test]
async fn health_reports_serving() {
    let server = Server::start();
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "arbiter.v1.ArbiterService", "liveness", "readiness"] {
        assert_eq!(
            check(&mut health, service).await,
            Ok(ServingStatus::Serving),
            "{service:?}"
        );
    }
    // A name that was never registered is NOT_FOUND, not SERVING.
    assert_eq!(
        check(&mut health, "arbiter.v1.NoSuchService").await,
        Err(Code::NotFound)
    );
}

#[tokio::test]
async fn health_check_subcommand() {
    let server = Server::start();
    let url = server.url();
    assert_eq!(
        health_check_command(&url, &[]),
        (Some(0), "SERVING\n".to_owned())
    );
    assert_eq!(
        health_check_command(&url, &["--service", "arbiter.v1.ArbiterService"]),
        (Some(0), "SERVING\n".to_owned())
    );
    let (code, stdout) = health_check_command(&url, &["--service", "arbiter.v1.NoSuchService"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
}

#[tokio::test]
async fn sigterm_drains_then_exits_zero() {
    // Lame duck 1 s inside a drain timeout of 5 s.
    let drain_timeout = Duration::from_secs(5);
    let mut server = Server::start_with(&["--lame-duck", "1s", "--drain-timeout", "5s"]);
    let url = server.url();
    let channel = server.channel().await;
    let mut health = HealthClient::new(channel.clone());
    let mut client = arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(channel);
    assert_eq!(check(&mut health, "").await, Ok(ServingStatus::Serving));

    let signalled = Instant::now();
    server.signal("TERM");

    // Readiness turns NOT_SERVING at once; liveness stays SERVING so that a liveness probe does
    // not kill a process that is shutting down cleanly.
    let deadline = signalled + Duration::from_millis(900);
    loop {
        match check(&mut health, "").await {
            Ok(ServingStatus::NotServing) => break,
            Ok(ServingStatus::Serving) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => panic!(
                "health \"\" is {other:?} {:?} after SIGTERM",
                signalled.elapsed()
            ),
        }
    }
    assert_eq!(
        check(&mut health, "arbiter.v1.ArbiterService").await,
        Ok(ServingStatus::NotServing)
    );
    assert_eq!(
        check(&mut health, "readiness").await,
        Ok(ServingStatus::NotServing)
    );
    assert_eq!(
        check(&mut health, "liveness").await,
        Ok(ServingStatus::Serving)
    );
    // The health-check subcommand (a new connection) sees NOT_SERVING and exits 1.
    assert_eq!(health_check_command(&url, &[]).0, Some(1));

    // Calls are still answered during the lame-duck period.
    let answer = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: Some(Position {
                kind: Some(position::Kind::Fen("startpos".to_owned())),
                ..Position::default()
            }),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("calls are answered while draining");
    assert_eq!(answer.into_inner().moves.len(), 20);
    assert!(
        signalled.elapsed() < Duration::from_secs(1),
        "the checks above ran inside the lame-duck period ({:?})",
        signalled.elapsed()
    );
    drop(client);
    drop(health);

    let status = server.exited(drain_timeout + Duration::from_secs(3)).await;
    let took = signalled.elapsed();
    assert_eq!(
        status.code(),
        Some(0),
        "exit status {status}\n{}",
        server.stderr_tail()
    );
    assert!(
        took >= Duration::from_secs(1),
        "exited after {took:?}, before the lame-duck period ended"
    );
    assert!(took < drain_timeout, "exited after {took:?}");

    // Gone: the subcommand now fails (connection refused).
    assert_eq!(health_check_command(&url, &[]).0, Some(1));
}

#[tokio::test]
async fn sigint_also_stops_the_server() {
    let mut server = Server::start_with(&["--lame-duck", "0s", "--drain-timeout", "5s"]);
    // Serving, so the signal handlers are installed (they are not yet when the address is
    // printed: a signal right after the "listening" line kills the process by default action).
    let mut health = HealthClient::new(server.channel().await);
    assert_eq!(check(&mut health, "").await, Ok(ServingStatus::Serving));
    drop(health);
    server.signal("INT");
    let status = server.exited(Duration::from_secs(8)).await;
    assert_eq!(
        status.code(),
        Some(0),
        "exit status {status}\n{}",
        server.stderr_tail()
    );
}

// gRPC health-checking protocol: Watch of an unknown service sends SERVICE_UNKNOWN and keeps the
// call open (tonic-health's own service ended it with NOT_FOUND).
#[tokio::test]
async fn watch_of_unknown_service_sends_service_unknown_and_stays_open() {
    let server = Server::start();
    let mut health = HealthClient::new(server.channel().await);
    let mut stream = watch(&mut health, "no.such.Service").await;
    assert_eq!(
        next(&mut stream).await,
        Ok(Some(ServingStatus::ServiceUnknown))
    );
    let after = tokio::time::timeout(QUIET, stream.message()).await;
    assert!(
        after.is_err(),
        "expected no message and no end within {QUIET:?}, got {after:?}"
    );
}

// gRPC health-checking protocol: Check of an unknown service is NOT_FOUND, also while a Watch of
// that name (which must stay open) is in progress.
#[tokio::test]
async fn check_of_unknown_service_is_not_found_even_while_watched() {
    let server = Server::start();
    let mut health = HealthClient::new(server.channel().await);
    assert_eq!(
        check(&mut health, "no.such.Service").await,
        Err(Code::NotFound)
    );
    let mut stream = watch(&mut health, "no.such.Service").await;
    assert_eq!(
        next(&mut stream).await,
        Ok(Some(ServingStatus::ServiceUnknown))
    );
    assert_eq!(
        check(&mut health, "no.such.Service").await,
        Err(Code::NotFound)
    );
}

// gRPC health-checking protocol: Watch sends the current status, then each change. A Watch call
// lasts until ended, and a graceful drain waits for every call: the server must end it when the
// lame-duck period is over, or every shutdown with a watcher would last the whole drain timeout.
#[tokio::test]
async fn watch_of_readiness_turns_not_serving_on_sigterm_and_does_not_hold_the_drain() {
    let drain_timeout = Duration::from_secs(10);
    let mut server = Server::start_with(&["--lame-duck", "1s", "--drain-timeout", "10s"]);
    let mut health = HealthClient::new(server.channel().await);
    let mut readiness = watch(&mut health, "readiness").await;
    let mut liveness = watch(&mut health, "liveness").await;
    assert_eq!(next(&mut readiness).await, Ok(Some(ServingStatus::Serving)));
    assert_eq!(next(&mut liveness).await, Ok(Some(ServingStatus::Serving)));

    let signalled = Instant::now();
    server.signal("TERM");
    assert_eq!(
        next(&mut readiness).await,
        Ok(Some(ServingStatus::NotServing))
    );
    assert!(
        signalled.elapsed() < Duration::from_secs(1),
        "NOT_SERVING came {:?} after SIGTERM, after the lame-duck period",
        signalled.elapsed()
    );
    // Liveness stays SERVING: no change to send until the server ends the calls.
    for stream in [&mut readiness, &mut liveness] {
        assert_eq!(next(stream).await, Err(Code::Unavailable));
    }
    assert!(
        signalled.elapsed() >= Duration::from_secs(1),
        "the Watch calls ended {:?} after SIGTERM, inside the lame-duck period",
        signalled.elapsed()
    );

    // The client keeps its channel open: the server alone must finish the drain.
    let status = server.exited(drain_timeout + Duration::from_secs(3)).await;
    let took = signalled.elapsed();
    assert_eq!(
        status.code(),
        Some(0),
        "exit status {status}\n{}",
        server.stderr_tail()
    );
    assert!(
        took < drain_timeout / 2,
        "exited after {took:?}: the drain waited for the Watch calls\n{}",
        server.stderr_tail()
    );
    drop(health);
}

/// Issue 10 fresh-user finding: `arbiter health-check --addr 127.0.0.1:50052` (the way probes
/// and `--grpc-addr` write addresses) failed with "transport error" and nothing more. A
/// `host:port` address is plaintext HTTP/2, and a failure names its cause.
#[tokio::test]
async fn r_health_check_takes_host_port_and_names_why_it_failed() {
    let server = Server::start();
    let health = server.health_addr().expect("a health listener").to_string();
    assert_eq!(
        health_check_command(&health, &[]),
        (Some(0), "SERVING\n".to_owned())
    );
    // A port nobody listens on (bound, then closed again).
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").to_string()
    };
    let output = command::run(
        Command::new(binary::arbiter()).args([
            "health-check",
            "--addr",
            &closed,
            "--timeout",
            "3s",
        ]),
        Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot connect to {closed}")) && stderr.contains("refused"),
        "{stderr}"
    );
    // Issue 27 fresh-user finding: a name the server does not know was reported as "failed
    // with Some requested entity was not found" (tonic's description of the code); the code is
    // named as the metrics and logs name it.
    let output = command::run(
        Command::new(binary::arbiter()).args([
            "health-check",
            "--addr",
            &health,
            "--service",
            "nope",
        ]),
        Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "arbiter: the health check call failed with NotFound: service not registered"
    );
}

/// The loopback address the attacks below come from: the server sees it as another source
/// than the probes' 127.0.0.1, as it sees another pod and the kubelet (the pod's node).
const ATTACKER: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

/// Fresh liveness probes made during an attack, one connection each, as the kubelet makes them.
const PROBES: usize = 100;

/// A TCP connection to `to` from the address `from`.
async fn connect_from(
    from: std::net::IpAddr,
    to: std::net::SocketAddr,
) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(std::net::SocketAddr::new(from, 0))?;
    socket.connect(to).await
}

/// `Health/Check("liveness")` on a fresh connection to `health`: `Ok(status)`, or the failure
/// (connection refused or closed, a status other than OK) as text.
async fn fresh_liveness_check(health: std::net::SocketAddr) -> Result<ServingStatus, String> {
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{health}"))
        .map_err(|error| error.to_string())?
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(10));
    let channel = endpoint
        .connect()
        .await
        .map_err(|error| format!("connect: {error:?}"))?;
    HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: "liveness".to_owned(),
        })
        .await
        .map(|response| response.into_inner().status())
        .map_err(|status| format!("Check: {status:?}"))
}

/// Makes [`PROBES`] fresh liveness checks, one after the other, and returns how many were
/// answered SERVING (and the first failure, if any).
async fn probe_liveness(health: std::net::SocketAddr) -> (usize, Option<String>) {
    let (mut serving, mut failure) = (0, None);
    for _ in 0..PROBES {
        match within("a fresh liveness Check", fresh_liveness_check(health)).await {
            Ok(ServingStatus::Serving) => serving += 1,
            other => {
                failure.get_or_insert(format!("{other:?}"));
            }
        }
    }
    (serving, failure)
}

/// One of the attacker's connections, from [`ATTACKER`], reopened as soon as it is closed:
/// an HTTP/2 connection that stays idle, or (with `watch`) holds a `Health/Watch("liveness")`
/// that never ends. `held` counts the connections established (and, with `watch`, whose Watch
/// has sent its first status) and not yet closed.
async fn hold_reopening(health: std::net::SocketAddr, watch: bool, held: Arc<AtomicUsize>) {
    loop {
        let Ok(tcp) = connect_from(ATTACKER, health).await else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let Ok((send, connection)) = h2::client::handshake(tcp).await else {
            continue;
        };
        let connection = tokio::spawn(connection);
        let mut open_call = None;
        if watch {
            let request =
                http::Request::post(format!("http://{health}/grpc.health.v1.Health/Watch"))
                    .header("content-type", "application/grpc")
                    .header("te", "trailers")
                    .body(())
                    .expect("a valid request");
            let call = async {
                let mut send = send.ready().await.ok()?;
                let (response, mut body) = send.send_request(request, false).ok()?;
                let message = prost::Message::encode_to_vec(&HealthCheckRequest {
                    service: "liveness".to_owned(),
                });
                let mut framed = vec![0];
                framed.extend_from_slice(&u32::try_from(message.len()).ok()?.to_be_bytes());
                framed.extend_from_slice(&message);
                body.send_data(bytes::Bytes::from(framed), true).ok()?;
                let mut answer = response.await.ok()?.into_body();
                // The first status: the Watch is established and held from here on.
                answer.data().await?.ok()?;
                Some((body, answer))
            };
            match call.await {
                Some(call) => open_call = Some(call),
                None => {
                    connection.abort();
                    continue;
                }
            }
        }
        held.fetch_add(1, Ordering::SeqCst);
        // Until the server closes it (evicted, idle, ...).
        let _ = connection.await;
        held.fetch_sub(1, Ordering::SeqCst);
        drop(open_call);
    }
}

/// Starts `count` of [`hold_reopening`]'s connections and waits until all are held.
async fn attack(
    server: &Server,
    count: usize,
    watch: bool,
) -> (Vec<tokio::task::JoinHandle<()>>, Arc<AtomicUsize>) {
    let health = server.health_addr().expect("a health listener");
    let held = Arc::new(AtomicUsize::new(0));
    let tasks = (0..count)
        .map(|_| tokio::spawn(hold_reopening(health, watch, Arc::clone(&held))))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(20);
    while held.load(Ordering::SeqCst) < count {
        assert!(
            Instant::now() < deadline,
            "only {} of {count} attacking connections held\n{}",
            held.load(Ordering::SeqCst),
            server.stderr_tail()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (tasks, held)
}

/// `arbiter_connections_closed_total{listener="health",reason}` now.
fn health_closed(server: &Server, reason: &str) -> f64 {
    arbiter_e2e::sample(
        &server.scrape(),
        &format!("arbiter_connections_closed_total{{listener=\"health\",reason=\"{reason}\"}}"),
    )
    .unwrap_or_else(|| panic!("the series of reason {reason} exists"))
}

/// Issue 26 item 2: 32 connections to the health port, each holding a
/// `Health/Watch("liveness")`, refused every fresh liveness Check (305 of 306 failed) for as
/// long as they stayed, and the kubelet restarted the pod. A full health port now evicts the
/// oldest connection of the busiest source instead of refusing the newest: with 32 Watch
/// connections held (and reopened when evicted) by another address, every fresh Check is
/// answered, and the evictions are counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_watch_connections_cannot_hold_the_probe_port_shut() {
    let server = Server::start();
    let health = server.health_addr().expect("a health listener");
    let (attackers, held) = attack(&server, 32, true).await;
    assert_eq!(
        health_closed(&server, "evicted"),
        0.0,
        "not full before the probes"
    );
    let (serving, failure) = probe_liveness(health).await;
    for attacker in &attackers {
        attacker.abort();
    }
    assert_eq!(serving, PROBES, "first failure: {failure:?}");
    assert!(
        health_closed(&server, "evicted") >= 1.0,
        "the first probe found the port full and evicted a Watch"
    );
    assert_eq!(health_closed(&server, "limit"), 0.0, "no probe refused");
    assert!(held.load(Ordering::SeqCst) > 0, "the attack went on");
}

/// Issue 26 item 2: 32 idle connections to the health port, reopened as soon as they were
/// closed, kept out 299 of 306 fresh liveness Checks (the health port's 10 s idle timeout
/// closed them, but they came back at once). With a full port evicting the busiest source's
/// oldest connection, every fresh Check is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_idle_connections_reopened_at_once_cannot_hold_the_probe_port_shut() {
    let server = Server::start();
    let health = server.health_addr().expect("a health listener");
    let (attackers, held) = attack(&server, 32, false).await;
    let (serving, failure) = probe_liveness(health).await;
    for attacker in &attackers {
        attacker.abort();
    }
    assert_eq!(serving, PROBES, "first failure: {failure:?}");
    assert!(health_closed(&server, "evicted") >= 1.0);
    assert_eq!(health_closed(&server, "limit"), 0.0, "no probe refused");
    assert!(held.load(Ordering::SeqCst) > 0, "the attack went on");
}
