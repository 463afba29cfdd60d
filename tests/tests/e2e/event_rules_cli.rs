//! `arbiter adjudicate --rules` and `--regulation` (issue 29): Armageddon's event result beside
//! the Laws' result in the table, JSON lines, PGN and the HTML report, and the usage errors of
//! the two flags.

use std::{path::PathBuf, process::Command, time::Duration};

use arbiter_e2e::{binary, command, data_dir};
use serde_json::Value;

const CLI_TIMEOUT: Duration = Duration::from_secs(120);
const REGULATION: &str = "Regulation 7.3";

fn fixture() -> PathBuf {
    data_dir().join("adjudicate/armageddon.pgn")
}

/// Runs `arbiter adjudicate armageddon.pgn ARGS...`: (exit status, stdout, stderr).
fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .arg("adjudicate")
            .arg(fixture())
            .args(args),
        CLI_TIMEOUT,
    );
    (
        output.status.code(),
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
    )
}

/// Armageddon (issue 29): the table's head names the rules and the regulation, each row gives
/// the Laws' result and the event's (a stalemate, FIDE Laws 5.2.1, counts 0-1), the Result tag
/// may state either, and the summary counts the event's results. Under standard play the same
/// file's 0-1 for a stalemate is a disagreement.
#[test]
fn armageddon_table_shows_the_laws_and_the_event_result() {
    let (status, stdout, stderr) = cli(&["--rules", "armageddon", "--regulation", REGULATION]);
    assert_eq!(status, Some(2), "game 4's 1-0 contradicts both: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "verdicts under the FIDE Laws of Chess, 2023, rules blitz,armageddon: blitz (FIDE Laws Appendix B), Armageddon: Black has draw odds, a draw counts as a win for Black (Regulation 7.3), analysis full"
    );
    let tail = |line: &str| {
        line.split_whitespace()
            .skip(9)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        tail(lines[2]),
        "1/2-1/2 stalemate 5.2.1 1 0 event result 0-1"
    );
    assert_eq!(
        tail(lines[3]),
        "1/2-1/2 agreed draw 5.2.3 4 0 event result 0-1"
    );
    assert_eq!(tail(lines[4]), "1-0 checkmate 5.1.1 7 0 event result 1-0");
    assert_eq!(
        tail(lines[5]),
        "1/2-1/2 stalemate 5.2.1 1 0 event result 0-1; the Result tag says 1-0, but the rules say 1/2-1/2: stalemate at ply 1 (FIDE Laws 5.2.1)"
    );
    assert_eq!(
        lines[6],
        "summary: 4 games; agreed draw 1, checkmate 1, stalemate 2; for the event (Regulation 7.3): 0-1 3, 1-0 1; 1 disagreement; 0 errors; 0 games with warnings"
    );
    let (status, stdout, _) = cli(&[]);
    assert_eq!(status, Some(2));
    assert!(
        stdout
            .contains("summary: 4 games; agreed draw 1, checkmate 1, stalemate 2; 2 disagreements"),
        "{stdout}"
    );
    assert!(!stdout.contains("event result"), "{stdout}");
}

/// Armageddon (issue 29): each JSON record's verdict carries `event_result` with the result,
/// its text, the regulation and why; without draw odds there is none.
#[test]
fn armageddon_json_lines_carry_the_event_result() {
    let (_, stdout, _) = cli(&[
        "--rules",
        "armageddon",
        "--regulation",
        REGULATION,
        "--format",
        "jsonl",
    ]);
    let records: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(records.len(), 4);
    let event = &records[0]["verdict"]["event_result"];
    assert_eq!(event["result"], "RESULT_BLACK_WINS");
    assert_eq!(event["result_text"], "0-1");
    assert_eq!(event["regulation"], REGULATION);
    assert_eq!(
        event["explanation"],
        "drawn under the Laws; Black has draw odds, so the draw counts as a win for Black (Regulation 7.3)"
    );
    assert_eq!(records[0]["verdict"]["outcome"]["result_text"], "1/2-1/2");
    assert_eq!(records[0]["verdict"]["disagreement"], false);
    assert_eq!(records[2]["verdict"]["event_result"]["result_text"], "1-0");
    let (_, stdout, _) = cli(&["--format", "jsonl"]);
    let first: Value = serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
    assert!(first["verdict"]["event_result"].is_null(), "{first}");
}

/// Armageddon in PGN output (issue 29): `ArbiterEventResult` and `ArbiterRegulation` beside the
/// other verdict tags; with `--fix-result` the `Result` tag takes the Laws' result and the
/// event's stays in `ArbiterEventResult`.
#[test]
fn armageddon_pgn_output_writes_the_event_result_tags() {
    let (_, stdout, _) = cli(&[
        "--rules",
        "armageddon",
        "--regulation",
        REGULATION,
        "--format",
        "pgn",
    ]);
    let first = stdout.split("[Event").nth(1).expect("a game");
    assert!(first.contains("[Result \"0-1\"]\n[ArbiterResult \"1/2-1/2\"]\n[ArbiterTermination \"stalemate\"]\n[ArbiterArticle \"5.2.1\"]\n[ArbiterEventResult \"0-1\"]\n[ArbiterRegulation \"Regulation 7.3\"]\n"), "{first}");
    let (_, stdout, _) = cli(&[
        "--rules",
        "armageddon",
        "--regulation",
        REGULATION,
        "--format",
        "pgn",
        "--fix-result",
    ]);
    let first = stdout.split("[Event").nth(1).expect("a game");
    assert!(
        first.contains("[Result \"1/2-1/2\"]\n[ArbiterEventResult \"0-1\"]\n[ArbiterRegulation \"Regulation 7.3\"]\n"),
        "{first}"
    );
    assert!(first.contains("1. Qf7 1/2-1/2"), "{first}");
}

/// Armageddon in the HTML report (issue 29): the head names the rule set, a game card gives the
/// event's result with the regulation, the compact rows give both results, and the summary
/// counts the games by the event's result.
#[test]
fn armageddon_html_report_names_the_rules_and_both_results() {
    let (_, page, _) = cli(&[
        "--rules",
        "armageddon",
        "--regulation",
        REGULATION,
        "--format",
        "html",
        "--report-date",
        "2026-01-10",
    ]);
    assert!(
        page.contains("<dt>Rules</dt><dd id=\"rules\">blitz (FIDE Laws Appendix B), Armageddon: Black has draw odds, a draw counts as a win for Black (Regulation 7.3)</dd>"),
        "{page}"
    );
    // Game 4 needs a look (its 1-0 contradicts both results): its card.
    assert!(
        page.contains("<dt>Event result</dt><dd class=\"event-result\" data-result=\"0-1\"><strong>0-1</strong>: drawn under the Laws; Black has draw odds, so the draw counts as a win for Black (Regulation 7.3)</dd>"),
        "{page}"
    );
    assert_eq!(
        page.matches("<td>1/2-1/2; event 0-1</td>").count(),
        2,
        "{page}"
    );
    assert_eq!(page.matches("<td>1-0; event 1-0</td>").count(), 1, "{page}");
    assert!(
        page.contains("<caption>Results for the event (Regulation 7.3)</caption><thead><tr><th>1-0</th><th>0-1</th><th>*</th></tr></thead><tbody><tr><td class=\"n\" data-event-result=\"1-0\">1</td><td class=\"n\" data-event-result=\"0-1\">3</td><td class=\"n\" data-event-result=\"*\">0</td>"),
        "{page}"
    );
    let (_, page, _) = cli(&["--format", "html", "--report-date", "2026-01-10"]);
    assert!(
        page.contains("<dd id=\"rules\">standard play</dd>"),
        "{page}"
    );
    assert!(!page.contains("event-result"), "{page}");
}

/// The usage errors of `--rules` and `--regulation` (issue 29): exit 64, naming the word or the
/// flag that is wrong.
#[test]
fn bad_rules_and_regulation_are_usage_errors_64() {
    for (args, said) in [
        (vec!["--rules", "bullet"], "unknown rule 'bullet'"),
        (
            vec!["--rules", "rapid,blitz"],
            "'rapid' and 'blitz' cannot both be given",
        ),
        (
            vec!["--rules", "standard,unsupervised"],
            "'unsupervised' (FIDE Laws A.5, B.3) applies to rapid and blitz only",
        ),
        (
            vec!["--rules", "rapid", "--regulation", "R"],
            "--regulation names the regulation giving Black draw odds: it needs --rules with armageddon (got --rules rapid)",
        ),
        (
            vec!["--rules", "armageddon", "--regulation", " "],
            "--regulation: the regulation giving Black draw odds must be named: 1 to 200 bytes, not only spaces (got 1)",
        ),
    ] {
        let (status, stdout, stderr) = cli(&args);
        assert_eq!(status, Some(64), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}
