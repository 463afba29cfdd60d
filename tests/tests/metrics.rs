//! `/metrics` of the real binary: exact counter values and labels after known calls, histogram
//! buckets, build info, domain counters, and the `x-request-id` echo.

use arbiter_e2e::{sample, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMovesRequest, Game, ListLegalMovesRequest, Position,
    ValidatePositionRequest, adjudicate_game_request, position,
};
use tonic::Code;

fn fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        ..Position::default()
    })
}

fn labels(method: &str) -> String {
    format!(
        "grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"{method}\""
    )
}

#[tokio::test]
async fn grpc_counters_are_exact() {
    let server = Server::start();
    let mut client = server.client().await;
    for _ in 0..3 {
        within(
            "ListLegalMoves",
            client.list_legal_moves(ListLegalMovesRequest {
                position: fen("startpos"),
                ..ListLegalMovesRequest::default()
            }),
        )
        .await
        .expect("ListLegalMoves");
    }
    let invalid = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("not a fen"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect_err("a bad FEN");
    assert_eq!(invalid.code(), Code::InvalidArgument);

    let text = server.scrape();
    let list = labels("ListLegalMoves");
    assert_eq!(
        sample(&text, &format!("grpc_server_started_total{{{list}}}")),
        Some(4.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handled_total{{{list},grpc_code=\"OK\"}}")
        ),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handled_total{{{list},grpc_code=\"InvalidArgument\"}}")
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, &format!("grpc_server_msg_received_total{{{list}}}")),
        Some(4.0)
    );
    assert_eq!(
        sample(&text, &format!("grpc_server_msg_sent_total{{{list}}}")),
        Some(3.0)
    );
    // A histogram, not a summary: buckets from 50 µs up, +Inf, count and sum.
    assert!(
        text.contains("# TYPE grpc_server_handling_seconds histogram"),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handling_seconds_bucket{{{list},le=\"+Inf\"}}")
        ),
        Some(4.0)
    );
    assert!(
        sample(
            &text,
            &format!("grpc_server_handling_seconds_bucket{{{list},le=\"0.00005\"}}")
        )
        .is_some()
    );
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handling_seconds_count{{{list}}}")
        ),
        Some(4.0)
    );
    assert_eq!(
        sample(
            &text,
            &format!(
                "arbiter_build_info{{version=\"{}\"}}",
                env!("CARGO_PKG_VERSION")
            )
        ),
        Some(1.0),
        "{text}"
    );
}

#[tokio::test]
async fn calls_no_handler_answers_are_counted() {
    let server = Server::start_with(&["--max-message-bytes", "2048"]);
    let channel = server.channel().await;
    // UNIMPLEMENTED: a method the server does not have, through the health client's codec.
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    within("ready", grpc.ready()).await.expect("ready");
    let unknown = within(
        "unknown method",
        grpc.unary::<_, tonic_health::pb::HealthCheckResponse, _>(
            tonic::Request::new(tonic_health::pb::HealthCheckRequest::default()),
            http::uri::PathAndQuery::from_static("/arbiter.v1.ArbiterService/NoSuchMethod"),
            tonic_prost::ProstCodec::default(),
        ),
    )
    .await
    .expect_err("no such method");
    assert_eq!(unknown.code(), Code::Unimplemented);

    // RESOURCE_EXHAUSTED: a request above --max-message-bytes.
    let mut client = arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(channel);
    let too_big = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position: None,
            moves: vec!["e4".to_owned(); 2000],
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect_err("too big");
    assert_eq!(too_big.code(), Code::ResourceExhausted);

    let text = server.scrape();
    assert_eq!(
        sample(
            &text,
            "grpc_server_handled_total{grpc_type=\"unary\",grpc_service=\"unknown\",grpc_method=\"unknown\",grpc_code=\"Unimplemented\"}"
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!(
                "grpc_server_handled_total{{{},grpc_code=\"ResourceExhausted\"}}",
                labels("ApplyMoves")
            )
        ),
        Some(1.0),
        "{text}"
    );
}

/// Calls a made-up `path` (any path tonic accepts) and expects `Unimplemented`.
async fn call_made_up_path(channel: tonic::transport::Channel, path: &'static str) {
    let mut grpc = tonic::client::Grpc::new(channel);
    within("ready", grpc.ready()).await.expect("ready");
    let status = within(
        path,
        grpc.unary::<_, tonic_health::pb::HealthCheckResponse, _>(
            tonic::Request::new(tonic_health::pb::HealthCheckRequest::default()),
            http::uri::PathAndQuery::from_static(path),
            tonic_prost::ProstCodec::default(),
        ),
    )
    .await
    .expect_err("a made-up path");
    assert_eq!(status.code(), Code::Unimplemented, "{path}");
}

/// Clients choose the paths they call: if each made-up service or method became label values,
/// any client could create series without bound. They all land in one `unknown` series.
#[tokio::test]
async fn made_up_paths_create_no_series() {
    let server = Server::start();
    let channel = server.channel().await;
    let made_up = [
        "/evil.Svc1/Method1",
        "/arbiter.v1.ArbiterService/NoSuchMethod7",
        "/garbage-path-9",
    ];
    for path in made_up {
        call_made_up_path(channel.clone(), path).await;
    }
    let text = server.scrape();
    for name in ["evil", "Svc1", "Method1", "NoSuchMethod7", "garbage"] {
        assert!(
            !text.contains(name),
            "{name} made it into the metrics:\n{text}"
        );
    }
    let unknown = "grpc_type=\"unary\",grpc_service=\"unknown\",grpc_method=\"unknown\"";
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handled_total{{{unknown},grpc_code=\"Unimplemented\"}}")
        ),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, &format!("grpc_server_started_total{{{unknown}}}")),
        Some(3.0),
        "{text}"
    );
}

#[tokio::test]
async fn domain_counters_are_exact() {
    let server = Server::start();
    let mut client = server.client().await;
    // Fool's mate: 0-1 by checkmate, twice.
    for _ in 0..2 {
        within(
            "AdjudicateGame",
            client.adjudicate_game(AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Game(Game {
                    start: None,
                    moves: ["f3", "e5", "g4", "Qh4#"].map(str::to_owned).to_vec(),
                })),
                ..AdjudicateGameRequest::default()
            }),
        )
        .await
        .expect("AdjudicateGame");
    }
    // One illegal move and one unreadable move.
    for bad in ["Ke3", "e9"] {
        let status = within(
            "ApplyMoves",
            client.apply_moves(ApplyMovesRequest {
                position: None,
                moves: vec!["e4".to_owned(), bad.to_owned()],
                ..ApplyMovesRequest::default()
            }),
        )
        .await
        .expect_err("a rejected move");
        assert_eq!(status.code(), Code::InvalidArgument);
    }
    for text in ["startpos", "8/8/8/8/8/8/8/8 w - - 0 1"] {
        within(
            "ValidatePosition",
            client.validate_position(ValidatePositionRequest {
                position: fen(text),
                ..ValidatePositionRequest::default()
            }),
        )
        .await
        .expect("ValidatePosition");
    }

    let text = server.scrape();
    assert_eq!(
        sample(
            &text,
            "arbiter_games_adjudicated_total{result=\"0-1\",termination=\"checkmate\"}"
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "arbiter_moves_rejected_total{reason=\"illegal\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "arbiter_moves_rejected_total{reason=\"syntax\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "arbiter_positions_validated_total{valid=\"true\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "arbiter_positions_validated_total{valid=\"false\"}"),
        Some(1.0),
        "{text}"
    );
}

#[tokio::test]
async fn request_ids_are_echoed_and_logged() {
    let server = Server::start();
    let mut client = server.client().await;
    let mut request = tonic::Request::new(ListLegalMovesRequest {
        position: fen("startpos"),
        ..ListLegalMovesRequest::default()
    });
    request
        .metadata_mut()
        .insert("x-request-id", "e2e-request-7".parse().expect("ascii"));
    let response = within("ListLegalMoves", client.list_legal_moves(request))
        .await
        .expect("ListLegalMoves");
    assert_eq!(
        response
            .metadata()
            .get("x-request-id")
            .and_then(|value| value.to_str().ok()),
        Some("e2e-request-7")
    );
    // Without one, the server makes one up.
    let response = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("startpos"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves");
    let made = response
        .metadata()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .expect("an id");
    assert_eq!(made.len(), 16);
    // The log line of the call carries the id, method, peer and status (wait for the writer).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let logs = server.stderr_tail();
        if let Some(line) = logs
            .lines()
            .find(|line| line.contains("e2e-request-7") && line.contains("call finished"))
        {
            assert!(
                line.contains("/arbiter.v1.ArbiterService/ListLegalMoves"),
                "{line}"
            );
            assert!(line.contains("127.0.0.1:"), "{line}");
            assert!(line.contains("\"grpc_status\":\"OK\""), "{line}");
            assert!(
                !line.contains("startpos"),
                "no request body at info: {line}"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no log line:\n{logs}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn metrics_can_be_turned_off() {
    let server = Server::start_with(&["--metrics-addr", "off"]);
    assert_eq!(server.metrics_addr(), None);
}

/// The process metrics of the Prometheus conventions, read from /proc at each scrape: the
/// resident memory and CPU time a dashboard or an alert on memory growth needs.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn process_metrics_are_exported() {
    let server = Server::start();
    let text = server.scrape();
    assert!(
        text.contains("# TYPE process_cpu_seconds_total counter"),
        "{text}"
    );
    let value = |name: &str| sample(&text, name).unwrap_or_else(|| panic!("{name}: {text}"));
    assert!(value("process_cpu_seconds_total") >= 0.0);
    // More than 1 MB resident, less than the 2 GiB a fresh server has no reason to hold.
    let resident = value("process_resident_memory_bytes");
    assert!(
        (1e6..2.0 * 1024.0 * 1024.0 * 1024.0).contains(&resident),
        "{resident}"
    );
    assert!(value("process_threads") >= 2.0, "{text}");
    // stdin, stdout, stderr and the two listening sockets at least.
    assert!(value("process_open_fds") >= 5.0, "{text}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let started = value("process_start_time_seconds");
    assert!(
        (now - 600.0..=now + 5.0).contains(&started),
        "{started} vs {now}"
    );
    // The server's own pid is the one measured.
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let threads: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap();
    assert!(
        (value("process_threads") - threads).abs() <= 4.0,
        "{threads}"
    );
}
