//! Issue 26, item 3: after a reader error in a game, reading resumes where the next game starts
//! (the game's termination marker, then movetext or a tag section), with or without tags. Every
//! game without tags after a bad one used to disappear up to the next tag section:
//! `1. e4 e5 *`, `1. e4 ) e5 *`, `1. d4 d5 *`, `1. c4 c5 *` gave 2 records and 2 stream answers
//! for 4 games. Each trigger of a reader error, through `arbiter adjudicate` at `-j 1` and
//! `-j 4` (the same records, byte for byte) and through the `AdjudicateGames` stream (the same
//! messages): 4 games in, 4 records out, the error naming the lines it skipped.

use std::{path::PathBuf, process::Command, time::Duration};

use arbiter_e2e::{binary, command, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGamesRequest, AdjudicateGamesResponse, GameError, adjudicate_games_request,
    adjudicate_games_response,
};
use tonic::codegen::tokio_stream;

const CLI_TIMEOUT: Duration = Duration::from_secs(120);

/// A reader error between a game before it and two games after it, none with tags.
struct Case {
    /// What triggers the error.
    name: &'static str,
    /// The bad game: lines 3 and 4 of the input.
    bad: String,
    /// The flags that set the limit the game passes, for the CLI.
    cli_flags: &'static [&'static str],
    /// The same for the server; `None` when the stream cannot meet the error (a game over the
    /// byte limit: the server's game limit is its message limit, which refuses the whole text).
    server_flags: Option<&'static [&'static str]>,
    /// `GameError` reason, line, column, skipped_first_line, skipped_last_line.
    error: (&'static str, u32, u32, u32, u32),
    /// `GameError.description`.
    description: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "a stray ')'",
            bad: "1. e4 ) e5 2. Nf3\nNc6 3. Bb5 *".to_owned(),
            cli_flags: &[],
            server_flags: Some(&[]),
            error: ("INVALID_PGN", 3, 7, 3, 4),
            description: "line 3:7: ')' closes no variation (PGN standard 8.2.5); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "$300",
            bad: "1. e4 $300 e5\n2. Nf3 *".to_owned(),
            cli_flags: &[],
            server_flags: Some(&[]),
            error: ("INVALID_PGN", 3, 7, 3, 4),
            description: "line 3:7: a NAG is '$' and a number from 0 to 255 (PGN standard 8.2.4); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "a token over 32 characters",
            bad: format!("1. e4 Nf3{} e5\n2. Nf3 *", "x".repeat(30)),
            cli_flags: &[],
            server_flags: Some(&[]),
            error: ("INVALID_PGN", 3, 7, 3, 4),
            description: "line 3:7: 'Nf3xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is longer than 32 characters: not a move; lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "more plies than the limit",
            bad: "1. e4 e5 2. Nf3 Nc6 3. Bb5\na6 *".to_owned(),
            cli_flags: &["--max-moves", "4"],
            server_flags: Some(&["--max-moves", "4"]),
            error: ("LIMIT_EXCEEDED", 3, 24, 3, 4),
            description: "line 3:24: number of plies exceeds the limit of 4 (--max-moves); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "a game over the byte limit",
            bad: "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n4. Ba4 Nf6 5. O-O Be7 *".to_owned(),
            cli_flags: &["--max-game-bytes", "40"],
            server_flags: None,
            error: ("LIMIT_EXCEEDED", 4, 1, 4, 4),
            description: "line 4:1: game size in bytes exceeds the limit of 40 (--max-game-bytes); line 4 skipped to the end of the game",
        },
        Case {
            name: "more tags than --max-tags",
            bad: "[Event \"x\"] [Site \"y\"]\n1. e4 *".to_owned(),
            cli_flags: &["--max-tags", "1"],
            server_flags: Some(&["--max-tags", "1"]),
            error: ("LIMIT_EXCEEDED", 3, 13, 3, 4),
            description: "line 3:13: number of tag pairs exceeds the limit of 1 (--max-tags); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "a tag value over --max-tag-value-bytes",
            bad: "[Event \"toolong\"]\n1. e4 *".to_owned(),
            cli_flags: &["--max-tag-value-bytes", "6"],
            server_flags: Some(&["--max-tag-value-bytes", "6"]),
            error: ("LIMIT_EXCEEDED", 3, 1, 3, 4),
            description: "line 3:1: tag value length in bytes exceeds the limit of 6 (--max-tag-value-bytes); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "nesting deeper than --max-variation-depth",
            bad: "1. e4 (1. d4 (1. c4 (1. Nf3))) e5\n2. Nf3 *".to_owned(),
            cli_flags: &["--max-variation-depth", "2"],
            server_flags: Some(&["--max-variation-depth", "2"]),
            error: ("LIMIT_EXCEEDED", 3, 21, 3, 4),
            description: "line 3:21: variation nesting depth exceeds the limit of 2 (--max-variation-depth); lines 3-4 skipped to the end of the game",
        },
        Case {
            name: "nesting deeper than 64",
            bad: format!("1. e4 {}1... d5\n{} e5 *", "(".repeat(65), ")".repeat(65)),
            cli_flags: &[],
            server_flags: Some(&[]),
            error: ("LIMIT_EXCEEDED", 3, 71, 3, 4),
            description: "line 3:71: variation nesting depth exceeds the limit of 64 (--max-variation-depth); lines 3-4 skipped to the end of the game",
        },
    ]
}

/// The four games of a case.
fn four_games(bad: &str) -> String {
    format!("1. e4 e5 *\n\n{bad}\n\n1. d4 d5 *\n\n1. c4 c5 *\n")
}

/// A PGN file in a temporary directory of its own, removed with it when the value is dropped.
struct PgnFile {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl std::ops::Deref for PgnFile {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

/// Writes `text` to a file named `name` in a temporary directory of its own.
fn pgn_file(name: &str, text: &str) -> PgnFile {
    let dir = tempfile::Builder::new()
        .prefix("arbiter-e2e-resync-")
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write PGN");
    PgnFile { _dir: dir, path }
}

/// `arbiter adjudicate FILE --analysis material ARGS...`: exit status, standard output and
/// standard error.
fn cli(file: &PathBuf, args: &[&str]) -> (Option<i32>, String, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .arg("adjudicate")
            .arg(file)
            .args(["--analysis", "material"])
            .args(args),
        CLI_TIMEOUT,
    );
    (
        output.status.code(),
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
    )
}

/// The JSON lines of `file` at `-j 1`, checked to be those of `-j 4` byte for byte.
fn jsonl_at_one_and_four_jobs(file: &PathBuf, flags: &[&str]) -> (Option<i32>, String) {
    let args = |jobs| [flags, &["--format", "jsonl", "-j", jobs]].concat();
    let (status, one, _) = cli(file, &args("1"));
    let (status_of_four, four, _) = cli(file, &args("4"));
    assert!(one == four, "-j 1 and -j 4 differ:\n{one}\n{four}");
    assert_eq!(status_of_four, status);
    (status, one)
}

/// One AdjudicateGames stream of one PGN message: every response.
async fn stream(server: &Server, text: String) -> Vec<AdjudicateGamesResponse> {
    let mut client = server.client().await;
    let message = AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Pgn(text)),
        ..AdjudicateGamesRequest::default()
    };
    let mut responses = within(
        "AdjudicateGames",
        client.adjudicate_games(tokio_stream::iter(vec![message])),
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

/// Each record's line, and its error when it is one.
fn outline(responses: &[AdjudicateGamesResponse]) -> Vec<(u32, u32, Option<&GameError>)> {
    responses
        .iter()
        .map(|r| {
            let error = match &r.result {
                Some(adjudicate_games_response::Result::Error(error)) => Some(error),
                _ => None,
            };
            (r.index, r.line, error)
        })
        .collect()
}

fn parse(jsonl: &str) -> Vec<AdjudicateGamesResponse> {
    jsonl
        .lines()
        .map(|line| serde_json::from_str(line).expect("proto3 JSON of AdjudicateGamesResponse"))
        .collect()
}

/// The four records of a case: three verdicts and the bad game's error, with its fields.
fn assert_four_records(case: &Case, responses: &[AdjudicateGamesResponse]) {
    let name = case.name;
    let outline = outline(responses);
    assert_eq!(
        outline
            .iter()
            .map(|(index, line, error)| (*index, *line, error.is_some()))
            .collect::<Vec<_>>(),
        [(0, 1, false), (1, 3, true), (2, 6, false), (3, 8, false)],
        "{name}: 4 games in, 4 records out"
    );
    let error = outline[1].2.expect("the bad game's error");
    assert_eq!(
        (
            error.reason.as_str(),
            error.line,
            error.column,
            error.skipped_first_line,
            error.skipped_last_line
        ),
        case.error,
        "{name}"
    );
    assert_eq!(error.description, case.description, "{name}");
    assert_eq!(error.field, "pgn", "{name}");
}

#[test]
fn r_each_reader_error_costs_only_its_own_game_in_the_cli_at_any_jobs() {
    for (i, case) in cases().iter().enumerate() {
        let file = pgn_file(&format!("case-{i}.pgn"), &four_games(&case.bad));
        let (status, jsonl) = jsonl_at_one_and_four_jobs(&file, case.cli_flags);
        assert_eq!(status, Some(2), "{}: an error", case.name);
        assert_four_records(case, &parse(&jsonl));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_each_reader_error_costs_only_its_own_game_in_the_stream() {
    for (i, case) in cases().iter().enumerate() {
        let Some(server_flags) = case.server_flags else {
            continue;
        };
        let server = Server::start_with(&[server_flags, &["--analysis", "material"]].concat());
        let text = four_games(&case.bad);
        let responses = stream(&server, text.clone()).await;
        assert_four_records(case, &responses);
        // The stream's answers are the CLI's records.
        let file = pgn_file(&format!("stream-{i}.pgn"), &text);
        let (_, jsonl, _) = cli(&file, &[case.cli_flags, &["--format", "jsonl"]].concat());
        assert_eq!(parse(&jsonl), responses, "{}", case.name);
    }
}

/// A record's index and line, and for an error its line and the lines it skipped.
type Outlined = (u32, u32, Option<(u32, u32, u32)>);

/// Tagged games, and games with and without tags mixed (an error in a tag section among them):
/// each bad game costs only itself, in the CLI at `-j 1` and `-j 4` and in the stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_bad_games_with_and_without_tags_cost_only_themselves() {
    let tagged = "[Event \"A\"]\n\n1. e4 e5 *\n\n[Event \"B\"]\n[White \"W\"]\n\n1. e4 ) e5\n2. Nf3 *\n[Event \"C\"]\n\n1. d4 d5 *\n\n[Event \"D\"]\n\n1. c4 c5 *\n";
    let mixed = "[Event \"A\"]\n\n1. e4 ) e5 *\n\n1. d4 d5 *\n\n[Event \"C\"]\n\n1. c4 c5 *\n\n1. Nf3 $300 Nf6 *\n\n1. g3 g6 *\n\n[Event \"F\"]\n[Bad tag\n\n1. b3 b6 *\n\n1. f4 f5 *\n";
    let server = Server::start_with(&["--analysis", "material"]);
    for (name, text, expected) in [
        (
            "tagged",
            tagged,
            vec![
                (0, 1, None),
                (1, 5, Some((8, 8, 9))),
                (2, 10, None),
                (3, 14, None),
            ],
        ),
        (
            "mixed",
            mixed,
            vec![
                (0, 1, Some((3, 3, 3))),
                (1, 5, None),
                (2, 7, None),
                (3, 11, Some((11, 11, 11))),
                (4, 13, None),
                (5, 15, Some((16, 16, 18))),
                (6, 20, None),
            ],
        ),
    ] {
        let file = pgn_file(&format!("{name}.pgn"), text);
        let (status, jsonl) = jsonl_at_one_and_four_jobs(&file, &[]);
        assert_eq!(status, Some(2), "{name}");
        let records = parse(&jsonl);
        let got: Vec<Outlined> = outline(&records)
            .into_iter()
            .map(|(index, line, error)| {
                (
                    index,
                    line,
                    error.map(|e| (e.line, e.skipped_first_line, e.skipped_last_line)),
                )
            })
            .collect();
        assert_eq!(got, expected, "{name}");
        assert_eq!(stream(&server, text.to_owned()).await, records, "{name}");
    }
}

/// The lines skipped are in every output of `arbiter adjudicate`: the table row and the summary,
/// `--format pgn` (its `ArbiterError` tag) and its summary, and the HTML report.
#[test]
fn r_every_cli_format_names_the_lines_skipped() {
    let file = pgn_file(
        "formats.pgn",
        "1. e4 e5 *\n\n1. e4 ) e5 *\n\n1. d4 d5 *\n\n1. c4 c5 *\n",
    );
    let said = "line 3:7: ')' closes no variation (PGN standard 8.2.5); line 3 skipped to the end of the game";
    let (status, table, _) = cli(&file, &[]);
    assert_eq!(status, Some(2));
    // The row: the game number (the second game, no Round tag), four empty tag columns, the
    // error.
    assert!(
        table.contains(&format!("\n2{} error: {said}\n", " ".repeat(78))),
        "{table}"
    );
    assert!(
        table.contains(&format!("error: game 2: {said}\n")),
        "{table}"
    );
    assert!(table.contains("summary: 4 games;"), "{table}");
    let (status, pgn, summary) = cli(&file, &["--format", "pgn"]);
    assert_eq!(status, Some(2));
    // Every game is written, the one with the error with it.
    assert_eq!(pgn.matches("[Event ").count(), 4, "{pgn}");
    assert!(
        pgn.contains(&format!("[ArbiterError \"{said}\"]\n\n1. e4 *\n")),
        "{pgn}"
    );
    assert!(
        summary.contains(&format!("error: game 2: {said}\n")),
        "{summary}"
    );
    let (status, html, _) = cli(&file, &["--format", "html"]);
    assert_eq!(status, Some(2));
    let document = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .expect("well-formed XML");
    let skipped: Vec<&str> = document
        .descendants()
        .filter(|node| node.attribute("class") == Some("error-skipped"))
        .filter_map(|node| node.text())
        .collect();
    assert_eq!(
        skipped,
        ["line 3 skipped to the end of the game; reading resumed at the next game"]
    );
}

/// `-j 4` cuts a large input into chunks at tag lines; the records are those of `-j 1` byte for
/// byte with reader errors of every kind and games without tags after them, around the cuts.
#[test]
fn r_many_chunks_with_reader_errors_read_as_one_reader_reads_them() {
    let mut text = String::new();
    let cases = cases();
    for i in 0..3_000 {
        let case = &cases[i % cases.len()];
        text.push_str(&format!("[Event \"{i}\"]\n\n1. Nf3 Nf6 *\n\n"));
        text.push_str(&four_games(&case.bad));
        text.push('\n');
    }
    let file = pgn_file("chunks.pgn", &text);
    // The bounds of every case at once (the blocks' own games, one tag of at most 4 bytes and no
    // variation, are within them).
    let (status, jsonl) = jsonl_at_one_and_four_jobs(
        &file,
        &[
            "--max-moves",
            "4",
            "--max-game-bytes",
            "64",
            "--max-tags",
            "1",
            "--max-tag-value-bytes",
            "6",
            "--max-variation-depth",
            "2",
        ],
    );
    assert_eq!(status, Some(2));
    let records = parse(&jsonl);
    assert_eq!(records.len(), 3_000 * 5);
    let errors = outline(&records)
        .iter()
        .filter(|(_, _, error)| error.is_some())
        .count();
    assert_eq!(errors, 3_000, "one error per block of five games");
}
