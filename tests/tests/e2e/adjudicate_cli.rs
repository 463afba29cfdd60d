//! `arbiter adjudicate` (the CLI), the `AdjudicateGames` stream and `AdjudicateGame` with PGN:
//! the CLI's JSON lines and the stream's responses agree exactly, game by game, on the CC0
//! lichess samples; illegal moves and contradicting results give exit status 2 with their
//! line:column; the unary RPC answers PGN and rejects an illegal move with INVALID_ARGUMENT.

use std::{path::Path, process::Command, time::Duration};

use arbiter_e2e::{binary, command, data_dir, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGamesRequest, AdjudicateGamesResponse,
    adjudicate_game_request, adjudicate_games_request, adjudicate_games_response,
};
use serde_json::Value;
use tonic::{Code, codegen::tokio_stream};
use tonic_types::StatusExt as _;

const CLI_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `arbiter adjudicate FILE ARGS...`.
fn cli(file: &Path, args: &[&str]) -> std::process::Output {
    command::run(
        Command::new(binary::arbiter())
            .arg("adjudicate")
            .arg(file)
            .args(args),
        CLI_TIMEOUT,
    )
}

/// Sends `messages` on one AdjudicateGames stream and collects every response.
async fn stream(
    server: &Server,
    messages: Vec<AdjudicateGamesRequest>,
) -> Vec<AdjudicateGamesResponse> {
    let mut client = server.client().await;
    let mut responses = within(
        "AdjudicateGames",
        client.adjudicate_games(tokio_stream::iter(messages)),
    )
    .await
    .expect("AdjudicateGames")
    .into_inner();
    let mut all = Vec::new();
    while let Some(response) = within("AdjudicateGames response", responses.message())
        .await
        .expect("stream response")
    {
        all.push(response);
    }
    all
}

fn pgn_message(text: String) -> AdjudicateGamesRequest {
    AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Pgn(text)),
        ..AdjudicateGamesRequest::default()
    }
}

/// The CLI's JSON lines equal the stream's responses exactly, game by game, for every committed
/// game file (the whole file as one message, and the same file split into two messages).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_and_stream_give_the_same_verdicts() {
    let server = Server::start_with(&["--analysis", "fast"]);
    let mut files: Vec<_> = std::fs::read_dir(data_dir().join("games"))
        .expect("tests/data/games")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    files.push(data_dir().join("adjudicate/illegal-move.pgn"));
    files.push(data_dir().join("adjudicate/disagreement.pgn"));
    files.push(data_dir().join("adjudicate/imperfect-exports.pgn"));
    files.sort();
    for file in files {
        let output = cli(&file, &["--format", "jsonl", "--analysis", "fast"]);
        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
        let text = std::fs::read_to_string(&file).expect("read");
        let responses = stream(&server, vec![pgn_message(text)]).await;
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), responses.len(), "{}", file.display());
        assert!(!lines.is_empty(), "{}", file.display());
        for (i, (line, response)) in lines.iter().zip(&responses).enumerate() {
            assert_eq!(response.index as usize, i);
            // The record is the proto3 JSON of the very message the stream sent: read back as
            // that message it is equal, and written again it is the same line.
            let read: AdjudicateGamesResponse = serde_json::from_str(line).expect("proto3 JSON");
            assert_eq!(&read, response, "{} game {i}", file.display());
            assert_eq!(
                serde_json::to_string(response).expect("JSON"),
                *line,
                "{} game {i}",
                file.display()
            );
        }
        let errors = responses
            .iter()
            .filter(|r| matches!(r.result, Some(adjudicate_games_response::Result::Error(_))))
            .count();
        let clean = errors == 0
            && responses.iter().all(|r| {
                !matches!(&r.result, Some(adjudicate_games_response::Result::Verdict(v)) if v.disagreement)
            });
        assert_eq!(
            output.status.code(),
            Some(if clean { 0 } else { 2 }),
            "{}",
            file.display()
        );
    }
}

/// Issue 28 items 5, 6 and 8, through the CLI and the stream alike: the imperfect exports of
/// the fixture (a ChessBase blank line in a tag section, an en dash result, `O‑O` with a
/// non-breaking hyphen, no-break spaces and a figurine copied from a web page, castling written
/// as the king's move, `1:0`, a zero-width space, piece letters in lower case) are read with
/// their warnings; a null move and a FEN rank written `17` stay refused, each with its error.
#[tokio::test]
async fn imperfect_exports_are_read_with_warnings_and_null_moves_refused_issue_28() {
    let file = data_dir().join("adjudicate/imperfect-exports.pgn");
    let output = cli(&file, &["--format", "jsonl", "--analysis", "material"]);
    assert_eq!(output.status.code(), Some(2), "two errors");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let records: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    let summary = |record: &Value| -> (String, Vec<String>) {
        match (&record["verdict"], &record["error"]) {
            (Value::Object(verdict), _) => (
                verdict["outcome"]["result_text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
                verdict["warnings"]
                    .as_array()
                    .expect("warnings")
                    .iter()
                    .map(|w| format!("{} {}:{}", w["code"].as_str().unwrap(), w["ply"], w["line"]))
                    .collect(),
            ),
            (_, error) => (
                format!(
                    "{} {}",
                    error["reason"].as_str().unwrap(),
                    error["description"].as_str().unwrap()
                ),
                Vec::new(),
            ),
        }
    };
    let got: Vec<(String, Vec<String>)> = records.iter().map(summary).collect();
    let want: Vec<(&str, Vec<&str>)> = vec![
        (
            "1-0",
            vec![
                "blank_line_in_tags 0:3",
                "unicode_dash 7:8",
                "unicode_dash 10:8",
            ],
        ),
        (
            "0-1",
            vec!["unicode_space 0:15", "figurine 4:15", "unicode_dash 4:15"],
        ),
        ("*", vec!["castling_as_king_move 7:22"]),
        (
            "1-0",
            vec!["invisible_character 6:29", "nonstandard_result 7:29"],
        ),
        (
            "*",
            vec![
                "lowercase_piece_letter 3:36",
                "lowercase_piece_letter 4:36",
                "lowercase_piece_letter 5:36",
            ],
        ),
        (
            "ILLEGAL_MOVE line 43:7: null move at ply 2 (Z0): a null move is not a legal move",
            vec![],
        ),
        (
            "INVALID_POSITION line 49:1: bad FEN tag: rank 7 of the piece placement writes a run of empty squares as the digits '17' in a row: each run of empty squares is one digit from 1 to 8 (PGN standard 16.1.3.1)",
            vec![],
        ),
    ];
    let got_ref: Vec<(&str, Vec<&str>)> = got
        .iter()
        .map(|(result, codes)| (result.as_str(), codes.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(got_ref, want, "{stdout}");
    // The ChessBase game keeps its Event.
    assert_eq!(
        records[0]["tags"]["event"],
        "Imperfect export 1: ChessBase, a blank line in the tag section"
    );
    // The stream answers the same records (the other test compares them byte for byte).
    let server = Server::start();
    let text = std::fs::read_to_string(&file).expect("read");
    let responses = stream(&server, vec![pgn_message(text)]).await;
    assert_eq!(responses.len(), records.len());
}

/// Two messages on one stream: indexes run on across messages, game_index restarts, a game
/// message and an in-band error in the middle do not end the stream.
#[tokio::test]
async fn stream_numbers_games_across_messages_and_reports_errors_in_band() {
    let server = Server::start();
    let fixture =
        std::fs::read_to_string(data_dir().join("adjudicate/illegal-move.pgn")).expect("fixture");
    let game = arbiter_e2e::requests::fools_mate_message();
    let bad_game = AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Game(
            arbiter_proto::v1::Game {
                start: None,
                moves: ["e4", "e4"].map(String::from).to_vec(),
            },
        )),
        ..AdjudicateGamesRequest::default()
    };
    let responses = stream(
        &server,
        vec![
            pgn_message(fixture.clone()),
            bad_game,
            game,
            pgn_message(fixture),
        ],
    )
    .await;
    let summary: Vec<(u32, u32, u32, &str)> = responses
        .iter()
        .map(|r| {
            let what = match &r.result {
                Some(adjudicate_games_response::Result::Verdict(v)) => {
                    v.outcome.as_ref().map_or("", |o| o.fide_article.as_str())
                }
                Some(adjudicate_games_response::Result::Error(e)) => e.reason.as_str(),
                None => "",
            };
            (r.index, r.request_index, r.game_index, what)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, 0, 0, "5.1.1"),
            (1, 0, 1, "ILLEGAL_MOVE"),
            (2, 1, 0, "ILLEGAL_MOVE"),
            (3, 2, 0, "5.1.1"),
            (4, 3, 0, "5.1.1"),
            (5, 3, 1, "ILLEGAL_MOVE"),
        ]
    );
    // Issue 28, item 2: beside the 0-based index, the number people use: the games have no
    // Round tag (nor the games given as moves), so their place in the stream counted from 1.
    let numbers: Vec<&str> = responses.iter().map(|r| r.number.as_str()).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6"]);
    let Some(adjudicate_games_response::Result::Error(error)) = &responses[1].result else {
        panic!("expected an error");
    };
    assert_eq!(error.field, "pgn");
    assert_eq!((error.line, error.column, error.ply), (13, 13, 3));
    assert_eq!(error.r#move, "Ke3");
    assert_eq!(
        error.description,
        "line 13:13: ply 3 (Ke3): no white king can move to e3"
    );
    let Some(adjudicate_games_response::Result::Error(error)) = &responses[2].result else {
        panic!("expected an error");
    };
    assert_eq!(error.field, "game.moves[1]");
    assert_eq!(error.ply, 2);
}

/// More games than `--max-games-per-stream`: the games within the limit are answered, then the
/// stream ends with RESOURCE_EXHAUSTED.
#[tokio::test]
async fn stream_stops_at_the_games_limit() {
    let server = Server::start_with(&["--max-games-per-stream", "1"]);
    let fixture =
        std::fs::read_to_string(data_dir().join("adjudicate/illegal-move.pgn")).expect("fixture");
    let mut client = server.client().await;
    let mut responses = within(
        "AdjudicateGames",
        client.adjudicate_games(tokio_stream::iter(vec![pgn_message(fixture)])),
    )
    .await
    .expect("AdjudicateGames")
    .into_inner();
    let first = within("first", responses.message()).await.expect("first");
    assert_eq!(first.map(|r| r.index), Some(0));
    let status = within("second", responses.message())
        .await
        .expect_err("the limit ends the stream");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
}

/// The CLI on a file with an illegal move: exit status 2, the error names line:column and ply.
#[test]
fn cli_exit_status_names_the_illegal_move() {
    let output = cli(&data_dir().join("adjudicate/illegal-move.pgn"), &[]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "error: game 2 (C - D): line 13:13: ply 3 (Ke3): no white king can move to e3"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("summary: 2 games; checkmate 1; 0 disagreements; 1 error"),
        "{stdout}"
    );

    let output = cli(
        &data_dir().join("adjudicate/disagreement.pgn"),
        &["--format", "jsonl"],
    );
    assert_eq!(output.status.code(), Some(2));
    let record: Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    let verdict = &record["verdict"];
    assert_eq!(verdict["outcome"]["result_text"], "1/2-1/2");
    assert_eq!(verdict["outcome"]["termination"], "TERMINATION_STALEMATE");
    assert_eq!(verdict["disagreement"], true);
    assert_eq!(
        verdict["disagreement_reason"],
        "the Result tag says 1-0, but the rules say 1/2-1/2: stalemate at ply 1 (FIDE Laws 5.2.1)"
    );

    // --format pgn writes the adjudicated result; standard input works as "-".
    let output = cli(
        &data_dir().join("games/lichess-2025-05-sample.pgn"),
        &["--format", "pgn"],
    );
    assert_eq!(output.status.code(), Some(0));
    let pgn = String::from_utf8_lossy(&output.stdout);
    assert_eq!(pgn.matches("[Event ").count(), 438);
}

/// AdjudicateGame with `pgn`: the event comes from the tags; an illegal move is INVALID_ARGUMENT
/// on field "pgn" with line:column and ply; two games are refused.
#[tokio::test]
async fn unary_adjudicate_game_reads_pgn() {
    let server = Server::start();
    let mut client = server.client().await;
    let request = |pgn: &str| AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Pgn(pgn.to_owned())),
        ..AdjudicateGameRequest::default()
    };
    // Black's flag fell, but White has only a king: a draw (FIDE 6.9), not the 1-0 of the tag.
    let pgn = "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n[SetUp \"1\"]\n\
               [FEN \"4k3/8/8/8/8/8/4p3/K7 w - - 0 1\"]\n\n1. Kb1 Kd7 1-0\n";
    let verdict = within("AdjudicateGame", client.adjudicate_game(request(pgn)))
        .await
        .expect("AdjudicateGame")
        .into_inner();
    let outcome = verdict.outcome.expect("outcome");
    assert_eq!(outcome.result_text, "1/2-1/2");
    assert_eq!(outcome.fide_article, "6.9");
    assert_eq!(verdict.declared_result, "1-0");
    assert!(verdict.disagreement);
    assert!(
        verdict.explanation.contains("White cannot checkmate"),
        "{}",
        verdict.explanation
    );

    let status = within(
        "AdjudicateGame",
        client.adjudicate_game(request("1. e4 e5 2. Ke3 *")),
    )
    .await
    .expect_err("illegal move");
    assert_eq!(status.code(), Code::InvalidArgument);
    let details = status.get_error_details();
    let violation = &details.bad_request().expect("BadRequest").field_violations[0];
    assert_eq!(violation.field, "pgn");
    assert_eq!(violation.reason, "ILLEGAL_MOVE");
    assert_eq!(
        violation.description,
        "line 1:13: ply 3 (Ke3): no white king can move to e3"
    );
    let info = details.error_info().expect("ErrorInfo");
    assert_eq!(info.metadata.get("ply").map(String::as_str), Some("3"));
    assert_eq!(info.metadata.get("column").map(String::as_str), Some("13"));

    let status = within(
        "AdjudicateGame",
        client.adjudicate_game(request("1. e4 e5 *\n\n1. d4 d5 *\n")),
    )
    .await
    .expect_err("two games");
    assert_eq!(status.code(), Code::InvalidArgument);
}

/// Exit statuses apart from the games: 1 when the input cannot be read (a directory), 64 for a
/// wrong command line (2 is kept for games that break the rules), and 0, quietly, when standard
/// output and standard error are closed pipes (a reader that stopped early, issue 27; pipes.rs
/// has the rest).
#[test]
fn cli_exit_status_for_input_output_and_usage_errors() {
    let output = cli(&data_dir(), &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is a directory"),
        "{output:?}"
    );
    let output = cli(
        &data_dir().join("adjudicate/illegal-move.pgn"),
        &["--bogus"],
    );
    assert_eq!(output.status.code(), Some(64), "{output:?}");
    // Standard output and standard error both closed before the first record is written.
    let mut child = Command::new(binary::arbiter())
        .arg("adjudicate")
        .arg(data_dir().join("games/lichess-2016-05-first-1000.pgn"))
        .args(["--analysis", "material"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = command::wait(&mut child, CLI_TIMEOUT).expect("exits");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// Issue 27 fresh-user finding: an empty file (an export cut before its first game) exited 0
/// with "summary: 0 games", the status of a clean round. A file without a game is now said on
/// standard error and is an error finding (2 by default; `--fail-on none` keeps 0); the same for
/// a file of whitespace and comments only, and for standard input.
#[test]
fn a_file_without_a_game_is_named_and_fails_as_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in [
        ("empty.pgn", ""),
        ("comments.pgn", "\n  {a comment}\n; a line comment\n\n"),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("write");
        let output = cli(&file, &["--format", "jsonl"]);
        assert_eq!(output.status.code(), Some(2), "{name}: {output:?}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "", "{name}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "arbiter: {} holds no PGN game ({} bytes read): nothing was adjudicated",
                file.display(),
                text.len()
            )),
            "{name}: {stderr}"
        );
        let output = cli(&file, &["--fail-on", "none"]);
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("holds no PGN game"));
    }
    let output = command::run(
        Command::new(binary::arbiter())
            .args(["adjudicate", "-"])
            .stdin(std::process::Stdio::null()),
        CLI_TIMEOUT,
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("arbiter: standard input holds no PGN game (0 bytes read)"),
        "{output:?}"
    );
}

/// Issue 27, item 8: `--fail-on` chooses the findings that make the exit status 2 (by default
/// errors and disagreements, as before the flag). The fixture has a clean game and one game per
/// finding: an error, a disagreement, a warning and a loss unproven at `--analysis material`.
/// Each game alone, and the whole round, under each value.
#[test]
fn fail_on_chooses_the_findings_that_exit_2() {
    let fixture = data_dir().join("adjudicate/findings.pgn");
    let text = std::fs::read_to_string(&fixture).expect("fixture");
    let games: Vec<String> = text
        .split("\n\n[Event")
        .enumerate()
        .map(|(i, game)| {
            if i == 0 {
                game.to_owned()
            } else {
                format!("[Event{game}")
            }
        })
        .collect();
    let kinds = ["clean", "error", "disagreement", "warning", "unproven"];
    assert_eq!(games.len(), kinds.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let files: Vec<_> = games
        .iter()
        .zip(kinds)
        .map(|(game, kind)| {
            let path = dir.join(format!("{kind}.pgn"));
            std::fs::write(&path, game).expect("write");
            path
        })
        .collect();
    let all = ["error", "disagreement", "warning", "unproven"];
    let values: [(Option<&str>, &[&str]); 9] = [
        (None, &["error", "disagreement"]),
        (Some("error,disagreement"), &["error", "disagreement"]),
        (Some("none"), &[]),
        (Some("any"), &all),
        (Some("error"), &["error"]),
        (Some("disagreement"), &["disagreement"]),
        (Some("warning"), &["warning"]),
        (Some("unproven"), &["unproven"]),
        (Some(" warning , unproven"), &["warning", "unproven"]),
    ];
    for (value, failing) in values {
        let mut args = vec!["--analysis", "material"];
        if let Some(value) = value {
            args.extend(["--fail-on", value]);
        }
        for (file, kind) in files.iter().zip(kinds) {
            let output = cli(file, &args);
            let expected = if failing.contains(&kind) { 2 } else { 0 };
            assert_eq!(
                output.status.code(),
                Some(expected),
                "--fail-on {value:?}, the {kind} game: {output:?}"
            );
        }
        let output = cli(&fixture, &args);
        let expected = if failing.is_empty() { 0 } else { 2 };
        assert_eq!(
            output.status.code(),
            Some(expected),
            "--fail-on {value:?}, the round: {output:?}"
        );
    }
    // A wrong value is a usage error (64) naming the word; `none` does not hide an unreadable
    // input (1).
    let output = cli(&fixture, &["--fail-on", "errors"]);
    assert_eq!(output.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "unknown finding \"errors\": use error, disagreement, warning, unproven, any or none"
        ),
        "{stderr}"
    );
    let output = cli(&data_dir(), &["--fail-on", "none"]);
    assert_eq!(output.status.code(), Some(1));
}

/// Issue 27: the PGN reader's bounds on tags, tag values and variation depth (fixed defaults
/// before) are flags of both commands, `--max-tags`, `--max-tag-value-bytes` and
/// `--max-variation-depth`. Under each, a game at the limit is read and a game one past it is an
/// error of its own (LIMIT_EXCEEDED) naming the flag and the line:column; the CLI's records are
/// the stream's answers; at the defaults every game is read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgn_reader_bounds_are_flags_that_pass_a_game_at_their_limit() {
    let games = [
        // Three tags, then four.
        "[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n\n1. e4 e5 *\n\n",
        "[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n[D \"4\"]\n\n1. e4 e5 *\n\n",
        // A value of five bytes, then six.
        "[Event \"12345\"]\n\n1. e4 e5 *\n\n",
        "[Event \"123456\"]\n\n1. e4 e5 *\n\n",
        // Variations two deep, then three.
        "[Event \"V\"]\n\n1. e4 (1. d4 (1. c4)) e5 *\n\n",
        "[Event \"V\"]\n\n1. e4 (1. d4 (1. c4 (1. Nf3))) e5 *\n",
    ]
    .concat();
    let flags = [
        "--max-tags",
        "3",
        "--max-tag-value-bytes",
        "5",
        "--max-variation-depth",
        "2",
    ];
    let expected = [
        None,
        Some(
            "line 10:1: number of tag pairs exceeds the limit of 3 (--max-tags); lines 10-12 skipped to the end of the game",
        ),
        None,
        Some(
            "line 18:1: tag value length in bytes exceeds the limit of 5 (--max-tag-value-bytes); lines 18-20 skipped to the end of the game",
        ),
        None,
        Some(
            "line 28:21: variation nesting depth exceeds the limit of 2 (--max-variation-depth); line 28 skipped to the end of the game",
        ),
    ];
    let errors = |responses: &[AdjudicateGamesResponse]| -> Vec<Option<(String, String)>> {
        responses
            .iter()
            .map(|response| match &response.result {
                Some(adjudicate_games_response::Result::Error(error)) => {
                    Some((error.reason.clone(), error.description.clone()))
                }
                _ => None,
            })
            .collect()
    };
    let expected: Vec<Option<(String, String)>> = expected
        .iter()
        .map(|description| description.map(|d| ("LIMIT_EXCEEDED".to_owned(), d.to_owned())))
        .collect();

    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let file = dir.join("bounds.pgn");
    std::fs::write(&file, &games).expect("write");
    let output = cli(&file, &[&flags[..], &["--format", "jsonl"]].concat());
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let records: Vec<AdjudicateGamesResponse> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("proto3 JSON"))
        .collect();
    assert_eq!(errors(&records), expected);
    let defaults = cli(&file, &[]);
    assert_eq!(defaults.status.code(), Some(0), "{defaults:?}");

    let server = Server::start_with(&flags);
    let responses = stream(&server, vec![pgn_message(games.clone())]).await;
    assert_eq!(responses, records, "the stream answers as the CLI writes");
    let server = Server::start();
    let responses = stream(&server, vec![pgn_message(games)]).await;
    assert_eq!(
        errors(&responses),
        vec![None; 6],
        "the defaults read every game"
    );
}

/// Issue 28 item 5, a fresh user's findings through the CLI: `1. 000 1-0` was a resignation at
/// ply 0 and `--format pgn` wrote no move; `4. 00 Nf6` was refused at Nf6; `mate` after
/// checkmate counted as a ply; a number no move follows was skipped; `Qd3` behind its pawn said
/// NO_PIECE_REACHES. Each is read with its warning at its line:column or refused with its cause.
#[test]
fn adjudicate_swallows_no_token_and_refuses_with_the_cause_issue_28() {
    let file = data_dir().join("adjudicate/never-silent.pgn");
    let output = cli(&file, &["--format", "jsonl", "--analysis", "material"]);
    assert_eq!(output.status.code(), Some(2), "two errors");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let records: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    let summary: Vec<String> = records
        .iter()
        .map(|record| match (&record["verdict"], &record["error"]) {
            (Value::Object(verdict), _) => format!(
                "{} {} ply {} [{}]",
                verdict["outcome"]["description"].as_str().unwrap_or(""),
                verdict["outcome"]["fide_article"].as_str().unwrap_or(""),
                verdict["ply_count"],
                verdict["warnings"]
                    .as_array()
                    .expect("warnings")
                    .iter()
                    .map(|w| w["message"].as_str().unwrap().to_owned())
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            (_, error) => format!(
                "{} {} {}",
                error["cause"].as_str().unwrap(),
                error["article"].as_str().unwrap(),
                error["description"].as_str().unwrap()
            ),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "checkmate 5.1.1 ply 1 [line 8:4: ply 1 (000): castling written without dashes, read as O-O-O (PGN writes O-O-O, standard 8.2.3.3, and the FIDE Laws 0-0-0, Appendix C)]",
            "  ply 8 [line 15:35: ply 7 (00): castling written without dashes, read as O-O (PGN writes O-O, standard 8.2.3.3, and the FIDE Laws 0-0, Appendix C)]",
            "checkmate 5.1.1 ply 7 [line 22:41: 'mate' after the game ended at ply 7 (checkmate, FIDE Laws 5.1.1) is not a move: it is not counted as a ply]",
            "  line 29:21: '3' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 29 skipped to the end of the game",
            "PATH_BLOCKED 3.5 line 36:4: ply 1 (Qd3): the path from d1 to d3 is blocked by the white pawn on d2",
        ],
        "{stdout}"
    );
    assert_eq!(records[2]["verdict"]["plies_after_end"], 0);
    // The PGN output writes the castling as PGN does.
    let pgn = cli(&file, &["--format", "pgn", "--analysis", "material"]);
    let text = String::from_utf8(pgn.stdout).expect("UTF-8");
    assert!(
        text.contains("[ArbiterTermination \"checkmate\"]")
            && text.contains("\n\n1. O-O-O# 1-0\n")
            && text.contains("4. O-O Nf6 *"),
        "{text}"
    );
}
