//! `/metrics` of the real binary: exact counter values and labels after known calls, histogram
//! buckets, build info, domain counters, the `x-request-id` echo, one `unknown` series for
//! made-up paths, the input series of the alert rules' promtool tests as the server writes
//! them, a HELP line for every family and fractional CPU seconds.

use std::collections::{BTreeMap, BTreeSet};

use arbiter_e2e::requests::fools_mate;
use arbiter_e2e::{sample, server::Server, within, workspace_root};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGamesRequest, ApplyMoveRequest, ApplyMovesRequest, Game,
    ListLegalMovesRequest, Position, ValidatePositionRequest, adjudicate_game_request,
    adjudicate_games_request, apply_move_request, position,
};
use tonic::{Code, codegen::tokio_stream};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

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

/// The promtool unit tests of the alert rules, whose input series must be what the server writes.
const RULES_TEST: &str = "deploy/prometheus/arbiter.rules.test.yaml";

/// Labels that Prometheus adds when it scrapes a target (job, instance, and the Kubernetes
/// metadata of the Prometheus Operator's ServiceMonitor), not written by the server.
const TARGET_LABELS: [&str; 7] = [
    "job",
    "instance",
    "namespace",
    "pod",
    "service",
    "container",
    "endpoint",
];

/// A series: metric name and labels.
type Series = (String, BTreeMap<String, String>);

/// Parses `name{label="value",...}` (the form of the exposition format and of promtool input
/// series) up to the closing brace; `None` for anything else. Values may hold `\"`, `\\`, `\n`.
fn parse_series(text: &str) -> Option<Series> {
    let text = text.trim();
    let Some((name, rest)) = text.split_once('{') else {
        let name = text.split_whitespace().next()?;
        return Some((name.to_owned(), BTreeMap::new()));
    };
    let mut labels = BTreeMap::new();
    let mut rest = rest.trim_start_matches([',', ' ']);
    while !rest.starts_with('}') {
        let (label, after) = rest.split_once("=\"")?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next()? {
                (at, '"') => break at,
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                (_, other) => value.push(other),
            }
        };
        labels.insert(label.trim().to_owned(), value);
        rest = after[end + 1..].trim_start_matches([',', ' ']);
    }
    Some((name.trim().to_owned(), labels))
}

/// The input series of the promtool test file: the quoted value of each `- series:` line.
fn rules_test_series() -> Vec<Series> {
    let path = workspace_root().join(RULES_TEST);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("- series:"))
        .map(|value| {
            let quoted = value.trim();
            let inner = quoted
                .strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .unwrap_or_else(|| panic!("{RULES_TEST}: keep series in single quotes: {quoted}"));
            parse_series(inner).unwrap_or_else(|| panic!("{RULES_TEST}: not a series: {inner}"))
        })
        .collect()
}

/// The value of `version` is the crate's, which the test file cannot follow: compared as
/// present, not by value.
fn comparable((name, mut labels): Series) -> Series {
    if let Some(version) = labels.get_mut("version") {
        "*".clone_into(version);
    }
    (name, labels)
}

#[test]
fn series_parse_as_prometheus_writes_them() {
    let (name, labels) = parse_series(r#"m{a="x",b="q\"uo\\te",le="+Inf"} 3"#).expect("parses");
    assert_eq!(name, "m");
    assert_eq!(labels["a"], "x");
    assert_eq!(labels["b"], r#"q"uo\te"#);
    assert_eq!(labels["le"], "+Inf");
    assert_eq!(
        parse_series("arbiter_up 1").expect("parses").0,
        "arbiter_up"
    );
}

/// The codes ArbiterHighErrorRatio counts, as go-grpc-prometheus writes them; the server never
/// answers them on request, so the alert tests may use them with the labels of another code.
const SERVER_FAULT_CODES: [&str; 4] = ["Unknown", "Internal", "Unavailable", "DataLoss"];

/// The alert tests prove the alerts right only for the series they are fed: a label the server
/// spells differently (`RESOURCE_EXHAUSTED`, a bucket bound it does not have, a missing label)
/// would make them pass while the real alerts never fire. After the calls that produce every
/// code the alerts look at, each input series of the test file, less the labels Prometheus adds,
/// must be a series the server exports.
#[tokio::test]
async fn alert_test_series_are_the_series_the_server_emits() {
    let wanted = rules_test_series();
    assert!(wanted.len() >= 10, "{RULES_TEST}: {wanted:?}");
    let server = Server::start_with(&["--max-message-bytes", "2048", "--request-timeout", "1s"]);
    let channel = server.channel().await;
    let mut client =
        arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(channel.clone());
    let list = |text: &str| ListLegalMovesRequest {
        position: fen(text),
        ..ListLegalMovesRequest::default()
    };
    // OK, InvalidArgument, and ResourceExhausted (a request above --max-message-bytes).
    within("OK", client.list_legal_moves(list("startpos")))
        .await
        .expect("OK");
    for (request, code) in [
        (list("not a fen"), Code::InvalidArgument),
        (list(&"8/".repeat(2000)), Code::ResourceExhausted),
    ] {
        let status = within("ListLegalMoves", client.list_legal_moves(request))
            .await
            .expect_err("an error");
        assert_eq!(status.code(), code, "{status:?}");
    }
    // DeadlineExceeded: the request message never comes, and --request-timeout passes (a
    // client deadline would end the call on the client's side as well, as Cancelled).
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    within("ready", grpc.ready()).await.expect("ready");
    let stalled =
        tonic::Request::new(tonic::codegen::tokio_stream::pending::<ListLegalMovesRequest>());
    let status = within(
        "stalled ListLegalMoves",
        grpc.client_streaming::<_, _, arbiter_proto::v1::ListLegalMovesResponse, _>(
            stalled,
            http::uri::PathAndQuery::from_static("/arbiter.v1.ArbiterService/ListLegalMoves"),
            tonic_prost::ProstCodec::default(),
        ),
    )
    .await
    .expect_err("past the deadline");
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    // Unimplemented: a method the server does not have, and a request compressed with an
    // encoding the server does not accept (counted under the real method, and no error for
    // ArbiterHighErrorRatio); ApplyMove answers OK uncompressed.
    call_made_up_path(channel.clone(), "/arbiter.v1.ArbiterService/NoSuchMethod").await;
    let apply = || ApplyMoveRequest {
        subject: fen("startpos").map(apply_move_request::Subject::Position),
        r#move: "e4".to_owned(),
        ..ApplyMoveRequest::default()
    };
    within("ApplyMove", client.apply_move(apply()))
        .await
        .expect("OK");
    let mut gzip = tonic::Request::new(apply());
    gzip.metadata_mut().insert(
        "grpc-encoding",
        tonic::metadata::MetadataValue::from_static("gzip"),
    );
    let status = within("gzip ApplyMove", client.apply_move(gzip))
        .await
        .expect_err("gzip is not accepted");
    assert_eq!(status.code(), Code::Unimplemented, "{status:?}");
    // Issue 27: the streams the latency alert must not judge, and unary calls beside them: a
    // health Check and Watch (ended by its client after its first message), an AdjudicateGame
    // and an AdjudicateGames stream of one game.
    let mut health = HealthClient::new(channel.clone());
    within("Health/Check", health.check(HealthCheckRequest::default()))
        .await
        .expect("Check");
    let mut watch = within("Health/Watch", health.watch(HealthCheckRequest::default()))
        .await
        .expect("Watch")
        .into_inner();
    within("the first Watch message", watch.message())
        .await
        .expect("a Watch message")
        .expect("a status");
    drop(watch);
    let game = || Game {
        start: None,
        moves: vec!["e4".to_owned()],
    };
    within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(game())),
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect("AdjudicateGame");
    let request = AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Game(game())),
        ..AdjudicateGamesRequest::default()
    };
    let mut games = within(
        "AdjudicateGames",
        client.adjudicate_games(tokio_stream::iter(vec![request])),
    )
    .await
    .expect("AdjudicateGames")
    .into_inner();
    while within("AdjudicateGames response", games.message())
        .await
        .expect("a response")
        .is_some()
    {}
    // The Watch is counted when the server sees its reset: wait for it (10 s at most; the
    // comparison below names the series if it never comes).
    let watch_ended = "grpc_server_handled_total{grpc_type=\"server_stream\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Watch\"";
    for _ in 0..200 {
        if server.scrape().contains(watch_ended) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let text = server.scrape();
    let emitted: BTreeSet<Series> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(parse_series)
        .map(comparable)
        .collect();
    for (name, mut labels) in wanted {
        for target in TARGET_LABELS {
            labels.remove(target);
        }
        let series = comparable((name, labels));
        // A server-fault code (Internal, Unavailable, ...) cannot be produced on demand: such a
        // series must be spelled as go-grpc-prometheus spells codes and otherwise match a
        // series the server writes for another code.
        let with_another_code = series.1.get("grpc_code").is_some_and(|code| {
            SERVER_FAULT_CODES.contains(&code.as_str())
                && emitted.iter().any(|(name, labels)| {
                    *name == series.0
                        && labels.len() == series.1.len()
                        && labels.iter().all(|(key, value)| {
                            key == "grpc_code" || series.1.get(key) == Some(value)
                        })
                })
        });
        assert!(
            emitted.contains(&series) || with_another_code,
            "{RULES_TEST} feeds the alerts {series:?}, which the server does not write:\n{text}"
        );
    }
}

#[tokio::test]
async fn domain_counters_are_exact() {
    let server = Server::start();
    let mut client = server.client().await;
    // Fool's mate: 0-1 by checkmate, twice.
    for _ in 0..2 {
        within("AdjudicateGame", client.adjudicate_game(fools_mate()))
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
    // Issue 27 item 9: a move after the mate, refused as game_over.
    let status = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position: None,
            moves: ["f3", "e5", "g4", "Qh4#", "a3"].map(str::to_owned).to_vec(),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect_err("a move after the end");
    assert_eq!(status.code(), Code::InvalidArgument);
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
        sample(&text, "arbiter_moves_rejected_total{reason=\"game_over\"}"),
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
    let server = Server::start_with(&["--access-log", "all"]);
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

/// Issue 10 item 5: access logs are a setting, off by default, so that a loaded server does not
/// write a line per call; sampled logs one call in N.
#[tokio::test]
async fn access_log_is_off_by_default_and_sampled_when_asked() {
    async fn calls(server: &Server, count: usize) {
        let mut client = server.client().await;
        for _ in 0..count {
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
    }
    let count_lines = |server: &Server| {
        server
            .stderr_tail()
            .lines()
            .filter(|line| line.contains("call finished"))
            .count()
    };
    let quiet = Server::start();
    calls(&quiet, 20).await;
    let sampled = Server::start_with(&["--access-log", "sampled", "--access-log-sample", "5"]);
    calls(&sampled, 20).await;
    // Wait until the sampled server's lines are written: 20 calls, one in 5 logged.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while count_lines(&sampled) < 4 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(count_lines(&sampled), 4, "{}", sampled.stderr_tail());
    assert_eq!(count_lines(&quiet), 0, "{}", quiet.stderr_tail());
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

/// Issue 27: each listener was announced twice, a plain line on standard output and a log line
/// on standard error, so a container's output mixed two formats and `make run` showed every
/// address twice. One JSON log line names the three addresses, and standard output stays empty
/// from start to exit.
#[tokio::test]
async fn r_one_log_line_names_every_address_and_nothing_goes_to_stdout() {
    let mut server = Server::start();
    let tail = server.stderr_tail();
    let lines: Vec<&str> = tail.lines().filter(|line| line.contains("_addr")).collect();
    assert_eq!(lines.len(), 1, "{tail}");
    let line: serde_json::Value = serde_json::from_str(lines[0]).expect("a JSON log line");
    assert_eq!(line["message"], "arbiter listening");
    assert_eq!(line["level"], "INFO");
    let metrics = server.metrics_addr().expect("metrics on");
    let health = server.health_addr().expect("health on");
    assert_eq!(line["grpc_addr"], server.addr().to_string());
    assert_eq!(line["metrics_addr"], metrics.to_string());
    assert_eq!(line["health_addr"], health.to_string());
    // Three listeners on three different ports, each answering what it serves.
    assert_ne!(metrics.port(), server.addr().port());
    assert_ne!(health.port(), server.addr().port());
    assert!(server.scrape().contains("arbiter_build_info"));
    server.signal("TERM");
    let status = server.exited(std::time::Duration::from_secs(30)).await;
    assert_eq!(status.code(), Some(0), "{}", server.stderr_tail());
    assert_eq!(server.stdout_after_exit(), "");
}

/// Issue 27: a listener turned off is named `off` in the listening line, not left out.
#[tokio::test]
async fn r_the_listening_line_names_a_listener_turned_off() {
    let server = Server::start_with(&["--health-addr", "off"]);
    let tail = server.stderr_tail();
    let line = tail
        .lines()
        .find(|line| line.contains("arbiter listening"))
        .expect("the listening line");
    let line: serde_json::Value = serde_json::from_str(line).expect("a JSON log line");
    assert_eq!(line["health_addr"], "off");
    assert_eq!(server.health_addr(), None);
    assert!(server.metrics_addr().is_some());
}

/// Issue 10 fresh-user finding: `--log-format text` wrote terminal colour codes into log files.
/// Written to a pipe (as here, and as to a file), text logs are plain.
#[tokio::test]
async fn r_text_logs_written_to_a_pipe_have_no_colour_codes() {
    let server = Server::start_with(&["--log-format", "text"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while server.log_count("arbiter listening") == 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let tail = server.stderr_tail();
    assert!(tail.contains("INFO"), "text log lines: {tail}");
    assert!(!tail.contains('\u{1b}'), "an escape sequence in {tail:?}");
}

/// Issue 10 fresh-user finding: a request that is not valid protobuf was answered `INTERNAL`
/// (tonic's habit), which counts as a server error and feeds the error-ratio alert, so any
/// client could page the operator. It is the client's fault: `INVALID_ARGUMENT`, counted so.
#[tokio::test]
async fn r_undecodable_requests_are_invalid_argument_not_internal() {
    let server = Server::start();
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    within("ready", grpc.ready()).await.expect("ready");
    // HealthCheckResponse's field 1 is a varint; ListLegalMovesRequest's field 1 is a message.
    let status = within(
        "ListLegalMoves",
        grpc.unary::<_, tonic_health::pb::HealthCheckResponse, _>(
            tonic::Request::new(tonic_health::pb::HealthCheckResponse { status: 1 }),
            http::uri::PathAndQuery::from_static("/arbiter.v1.ArbiterService/ListLegalMoves"),
            tonic_prost::ProstCodec::default(),
        ),
    )
    .await
    .expect_err("not a ListLegalMovesRequest");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status
            .message()
            .contains("failed to decode Protobuf message"),
        "{status:?}"
    );
    let text = server.scrape();
    let count = |code: &str| {
        sample(
            &text,
            &format!(
                "grpc_server_handled_total{{{},grpc_code=\"{code}\"}}",
                labels("ListLegalMoves")
            ),
        )
    };
    assert_eq!(count("InvalidArgument"), Some(1.0), "{text}");
    assert_eq!(count("Internal"), None, "{text}");
}

/// `GET /metrics` on a new connection, `None` when the server closes it without an answer.
fn try_scrape(server: &Server) -> Option<String> {
    use std::io::{Read as _, Write as _};
    let addr = server.metrics_addr()?;
    let mut stream =
        std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5)).ok()?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response
        .starts_with("HTTP/1.1 200")
        .then(|| {
            response
                .split_once("\r\n\r\n")
                .map(|(_, body)| body.to_owned())
        })
        .flatten()
}

/// The loopback address the held and attacking connections below come from: the server sees
/// it as another source than the scrapes' 127.0.0.1, as it sees another pod and Prometheus.
const ATTACKER: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

/// A blocking TCP connection to `to` from [`ATTACKER`], with a 5 s read timeout (outside an
/// async runtime: it makes its own to bind before connecting).
fn connect_from_attacker(to: std::net::SocketAddr) -> std::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(std::net::SocketAddr::new(ATTACKER, 0))
        .expect("bind 127.0.0.2");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let stream = runtime
        .block_on(socket.connect(to))
        .expect("the kernel accepts it")
        .into_std()
        .expect("a std socket");
    stream.set_nonblocking(false).expect("blocking");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("read timeout");
    stream
}

/// `arbiter_connections_closed_total{listener="metrics",reason}` in `text`.
fn metrics_closed(text: &str, reason: &str) -> Option<f64> {
    sample(
        text,
        &format!("arbiter_connections_closed_total{{listener=\"metrics\",reason=\"{reason}\"}}"),
    )
}

/// Issue 10 fresh-user finding: the metrics port took any number of connections. It holds at
/// most `--metrics-max-connections`; issue 26 item 2: refusing the newest connection let the
/// held ones keep every scrape out, so a full metrics port now closes the oldest connection of
/// the source holding the most. Beyond the cap of 3, each new connection from the address that
/// holds them all evicts its oldest, in order; a scrape from another address gets in at once,
/// and every eviction is counted.
#[test]
fn r_metrics_connections_beyond_the_cap_evict_the_busiest_sources_oldest() {
    use std::io::Read as _;
    let server = Server::start_with(&["--metrics-max-connections", "3"]);
    let addr = server.metrics_addr().expect("metrics on");
    let mut held: Vec<_> = (0..3).map(|_| connect_from_attacker(addr)).collect();
    // Give the server time to accept the three held connections before the others.
    std::thread::sleep(std::time::Duration::from_millis(200));
    for _ in 0..4 {
        let newer = connect_from_attacker(addr);
        let mut oldest = held.remove(0);
        let mut byte = [0u8; 1];
        assert_eq!(
            oldest.read(&mut byte).ok(),
            Some(0),
            "the oldest held connection is closed without a byte"
        );
        held.push(newer);
    }
    let text = try_scrape(&server).expect("a scrape from another address gets in");
    assert_eq!(
        metrics_closed(&text, "evicted"),
        Some(5.0),
        "4 newer connections, then the scrape: {text}"
    );
    assert_eq!(metrics_closed(&text, "limit"), Some(0.0), "{text}");
    assert_eq!(
        sample(
            &text,
            "arbiter_connections_accepted_total{listener=\"metrics\"}"
        ),
        Some(8.0),
        "the three held, four newer and this scrape: {text}"
    );
    assert_eq!(
        sample(&text, "arbiter_connections_open{listener=\"metrics\"}"),
        Some(3.0),
        "never more than the cap: two held and this scrape: {text}"
    );
}

/// One of the attacker's connections to the metrics port, reopened as soon as it is closed:
/// `slow`, a request's headers trickled a byte every 200 ms (closed by the header timeout, or
/// evicted); otherwise a kept-alive connection that scrapes once and holds. Runs until `stop`.
fn hold_metrics_connection(
    addr: std::net::SocketAddr,
    slow: bool,
    held: &std::sync::atomic::AtomicUsize,
    stop: &std::sync::atomic::AtomicBool,
) {
    use std::io::{Read as _, Write as _};
    use std::sync::atomic::Ordering;
    while !stop.load(Ordering::SeqCst) {
        let mut stream = connect_from_attacker(addr);
        held.fetch_add(1, Ordering::SeqCst);
        if slow {
            for byte in b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nX-Slow: "
                .iter()
                .cycle()
            {
                if stop.load(Ordering::SeqCst) || stream.write_all(&[*byte]).is_err() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        } else {
            let _ = stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\n\r\n");
            let mut buffer = [0u8; 16 * 1024];
            // Reads the answer, then waits on the kept-alive connection until it is closed.
            while !stop.load(Ordering::SeqCst) {
                match stream.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(error) if error.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => break,
                }
            }
        }
        held.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Issue 26 item 2: 16 kept-alive or slow connections to the metrics port, reopened as soon as
/// they were closed, refused 38 of 39 scrapes. With 8 kept-alive and 8 trickling headers held
/// from another address, every fresh scrape is answered, and the evictions are counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_kept_alive_and_slow_connections_cannot_keep_scrapes_out() {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    };
    let server = Server::start();
    let addr = server.metrics_addr().expect("metrics on");
    let held = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let attackers: Vec<_> = (0..16)
        .map(|index| {
            let (held, stop) = (Arc::clone(&held), Arc::clone(&stop));
            std::thread::spawn(move || hold_metrics_connection(addr, index % 2 == 1, &held, &stop))
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while held.load(Ordering::SeqCst) < 16 {
        assert!(std::time::Instant::now() < deadline, "the attack holds 16");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Accepted by the server, not only by the kernel.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let scrapes: Vec<_> = (0..20).map(|_| try_scrape(&server)).collect();
    stop.store(true, Ordering::SeqCst);
    let answered = scrapes.iter().filter(|scrape| scrape.is_some()).count();
    assert_eq!(answered, 20, "{}", server.stderr_tail());
    let last = scrapes.last().and_then(Option::as_ref).expect("answered");
    assert!(
        metrics_closed(last, "evicted").is_some_and(|count| count >= 1.0),
        "{last}"
    );
    assert_eq!(metrics_closed(last, "limit"), Some(0.0), "{last}");
    for attacker in attackers {
        attacker.join().expect("the attacker's thread");
    }
}

/// Issue 26 item 2: a scraper that never reads its answer held its connection (and the
/// rendered text) for as long as it liked: no timeout ran while an answer was being written.
/// A client that pipelines many scrapes and reads none, with a small receive buffer, fills the
/// socket; its connection is closed 10 s (`METRICS_ANSWER_TIMEOUT`) after the answer it does
/// not take (`reason="slow_reader"`), and scrapes from elsewhere are answered meanwhile. A
/// kept-alive connection that took its answer is not a slow reader: it is closed as idle.
#[tokio::test]
async fn r_a_scraper_that_never_reads_is_closed() {
    use std::io::{Read as _, Write as _};
    let server = Server::start();
    let addr = server.metrics_addr().expect("metrics on");
    // Kept alive after reading its whole answer (as Prometheus keeps its connection).
    let mut kept = std::net::TcpStream::connect(addr).expect("connect");
    kept.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("read timeout");
    kept.write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\n\r\n")
        .expect("the request sent");
    let mut answer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let complete = |answer: &[u8]| {
        let text = String::from_utf8_lossy(answer);
        let (head, body) = text.split_once("\r\n\r\n")?;
        let length: usize = head
            .lines()
            .find_map(|line| {
                line.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().to_owned())
            })?
            .parse()
            .ok()?;
        (body.len() >= length).then_some(())
    };
    while complete(&answer).is_none() {
        let read = kept.read(&mut chunk).expect("the answer");
        assert_ne!(read, 0, "closed before the whole answer");
        answer.extend_from_slice(&chunk[..read]);
    }
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .set_recv_buffer_size(4096)
        .expect("a small receive buffer");
    socket
        .bind(std::net::SocketAddr::new(ATTACKER, 0))
        .expect("bind 127.0.0.2");
    let mut stream = socket
        .connect(addr)
        .await
        .expect("connect")
        .into_std()
        .expect("a std socket");
    stream.set_nonblocking(false).expect("blocking");
    let requests = b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\n\r\n".repeat(2000);
    stream.write_all(&requests).expect("the requests sent");
    let started = std::time::Instant::now();
    let closed = loop {
        let text = try_scrape(&server).expect("scrapes from elsewhere are answered");
        if metrics_closed(&text, "slow_reader") == Some(1.0)
            && metrics_closed(&text, "idle") == Some(1.0)
        {
            break text;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(40),
            "not closed as a slow reader, and the kept-alive one as idle: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    };
    // Only the one that did not read; the kept-alive one as idle.
    assert_eq!(
        metrics_closed(&closed, "slow_reader"),
        Some(1.0),
        "{closed}"
    );
    assert_eq!(metrics_closed(&closed, "idle"), Some(1.0), "{closed}");
    assert_eq!(
        kept.read(&mut chunk).ok(),
        Some(0),
        "the kept-alive one is closed"
    );
    // The server closed it: what the socket still holds, then the end (or a reset).
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("read timeout");
    let mut sink = Vec::new();
    let end = stream.read_to_end(&mut sink);
    assert!(
        end.is_ok()
            || end
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "{end:?}"
    );
}

/// A fresh user's review of issue 10: the shed and connection counters did not exist until
/// their first event, so `rate()` and the alert rules on them had nothing to read on a healthy
/// server. Every reason's series is there, at 0, as soon as the server serves.
#[test]
fn r_shed_and_connection_counters_exist_at_zero_before_any_event() {
    let server = Server::start();
    let text = server.scrape();
    for reason in [
        "concurrency_limit",
        "queue_timeout",
        "stream_limit",
        "request_bytes",
        "analysis_queue",
    ] {
        let series = format!("arbiter_calls_shed_total{{reason=\"{reason}\"}}");
        assert_eq!(sample(&text, &series), Some(0.0), "{series} in\n{text}");
    }
    for reason in [
        "limit",
        "evicted",
        "handshake_timeout",
        "tls_error",
        "idle",
        "max_age",
        "shutdown",
        "keepalive_timeout",
        "flood_guard",
        "protocol_error",
        "client",
    ] {
        let series =
            format!("arbiter_connections_closed_total{{listener=\"grpc\",reason=\"{reason}\"}}");
        assert_eq!(sample(&text, &series), Some(0.0), "{series} in\n{text}");
    }
    for reason in [
        "limit",
        "evicted",
        "handshake_timeout",
        "idle",
        "slow_reader",
        "client",
    ] {
        let series =
            format!("arbiter_connections_closed_total{{listener=\"metrics\",reason=\"{reason}\"}}");
        assert_eq!(sample(&text, &series), Some(0.0), "{series} in\n{text}");
    }
    for listener in ["grpc", "metrics"] {
        let series = format!("arbiter_connections_open{{listener=\"{listener}\"}}");
        assert!(sample(&text, &series).is_some(), "{series} in\n{text}");
    }
    for gauge in ["arbiter_analyses_running", "arbiter_analysis_calls_away"] {
        assert_eq!(sample(&text, gauge), Some(0.0), "{gauge} in\n{text}");
    }
}

/// The metric families of one scrape: `(# TYPE names, # HELP names with their texts)`.
fn families(text: &str) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let mut types = BTreeSet::new();
    let mut helps = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            types.insert(rest.split(' ').next().unwrap_or_default().to_owned());
        } else if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            helps.insert(name.to_owned(), help.trim().to_owned());
        }
    }
    (types, helps)
}

/// Issue 27 item 7: most families had no HELP line (`arbiter_calls_shed_total`, the connection
/// families, `grpc_server_*`, the domain counters, ...). After one call of each kind (unary OK
/// and refused, a rejected move, an adjudication, a validation, an AdjudicateGames stream, a
/// health check), every family the server writes has a HELP line with a text.
#[tokio::test]
async fn r_every_metric_family_has_help() {
    let server = Server::start();
    let channel = server.channel().await;
    let mut client =
        arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(channel.clone());
    within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("startpos"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("OK");
    let status = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            moves: vec!["e4".to_owned(), "Ke3".to_owned()],
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect_err("an illegal move");
    assert_eq!(status.code(), Code::InvalidArgument);
    within("AdjudicateGame", client.adjudicate_game(fools_mate()))
        .await
        .expect("AdjudicateGame");
    within(
        "ValidatePosition",
        client.validate_position(ValidatePositionRequest {
            position: fen("startpos"),
            ..ValidatePositionRequest::default()
        }),
    )
    .await
    .expect("ValidatePosition");
    let game = "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n".to_owned();
    let mut answers = within(
        "AdjudicateGames",
        client.adjudicate_games(tonic::codegen::tokio_stream::iter([
            arbiter_proto::v1::AdjudicateGamesRequest {
                source: Some(arbiter_proto::v1::adjudicate_games_request::Source::Pgn(
                    game,
                )),
                ..arbiter_proto::v1::AdjudicateGamesRequest::default()
            },
        ])),
    )
    .await
    .expect("AdjudicateGames")
    .into_inner();
    while within("AdjudicateGames answer", answers.message())
        .await
        .expect("an answer")
        .is_some()
    {}
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    within(
        "Check",
        health.check(tonic_health::pb::HealthCheckRequest::default()),
    )
    .await
    .expect("SERVING");

    let text = server.scrape();
    let (types, helps) = families(&text);
    for family in [
        "grpc_server_started_total",
        "grpc_server_handled_total",
        "grpc_server_handling_seconds",
        "grpc_server_msg_received_total",
        "grpc_server_msg_sent_total",
        "arbiter_games_adjudicated_total",
        "arbiter_moves_rejected_total",
        "arbiter_positions_validated_total",
        "arbiter_calls_shed_total",
        "arbiter_connections_open",
        "arbiter_connections_accepted_total",
        "arbiter_connections_closed_total",
        "arbiter_request_bytes_in_flight",
        "arbiter_answer_bytes_in_flight",
        "arbiter_build_info",
        "process_cpu_seconds_total",
    ] {
        assert!(types.contains(family), "no family {family}:\n{text}");
    }
    let without_help: Vec<&String> = types
        .iter()
        .filter(|family| helps.get(*family).is_none_or(String::is_empty))
        .collect();
    assert_eq!(
        without_help,
        Vec::<&String>::new(),
        "families without HELP:\n{text}"
    );
    assert_eq!(
        helps.keys().collect::<BTreeSet<_>>(),
        types.iter().collect::<BTreeSet<_>>(),
        "a HELP line for a family that has no TYPE line"
    );
}

/// The server's CPU time so far in clock ticks (utime + stime of `/proc/PID/stat`), and the
/// ticks per second.
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("(comm)")
        .1
        .split_whitespace()
        .collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let ticks =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    let output = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf CLK_TCK");
    let per_second = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("ticks per second");
    (ticks, per_second)
}

/// Issue 27 item 7: `process_cpu_seconds_total` moved in whole seconds (0 after 0.19 s of CPU):
/// the `metrics` crate's counters are whole numbers. It is now the kernel's CPU time to the
/// tick, between the server's ticks read before and after the scrape.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn r_process_cpu_seconds_are_fractional() {
    let server = Server::start();
    let mut client = server.client().await;
    // Some CPU time that is not a whole number of seconds (a tick is 10 ms).
    let mut before = cpu_ticks(server.pid());
    for _ in 0..200 {
        if before.0 > 0 && !before.0.is_multiple_of(before.1) {
            break;
        }
        within(
            "ListLegalMoves",
            client.list_legal_moves(ListLegalMovesRequest {
                position: fen("startpos"),
                ..ListLegalMovesRequest::default()
            }),
        )
        .await
        .expect("OK");
        before = cpu_ticks(server.pid());
    }
    let (ticks_before, per_second) = before;
    assert_ne!(
        ticks_before % per_second,
        0,
        "no fractional CPU time to measure"
    );
    let text = server.scrape();
    let (ticks_after, _) = cpu_ticks(server.pid());
    let seconds = sample(&text, "process_cpu_seconds_total").expect("process_cpu_seconds_total");
    #[allow(clippy::cast_precision_loss)]
    let (low, high) = (
        ticks_before as f64 / per_second as f64,
        ticks_after as f64 / per_second as f64,
    );
    assert!(
        (low - 1e-9..=high + 1e-9).contains(&seconds),
        "{seconds} s not within [{low}, {high}]"
    );
    assert_ne!(seconds.fract(), 0.0, "{seconds}");
}
