//! `arbiter adjudicate`'s logic ([`arbiter_server::adjudicate_cli::run`]) in-process on inline
//! PGN: one PGN game is one game (never two merged, never one split), and nothing read is
//! silently lost (Windows-1252 names, annotation glyphs, the identity of a game in error, empty
//! FEN tags). Each test fails on the reader before these fixes.

use arbiter_server::adjudicate::Settings;
use arbiter_server::adjudicate_cli::{Summary, run};
use arbiter_server::cli::OutputFormat;
use serde_json::Value;

fn jsonl(input: &[u8]) -> (Summary, Vec<Value>) {
    let mut out = Vec::new();
    let summary = run(input, &mut out, OutputFormat::Jsonl, &Settings::default()).expect("run");
    let records = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    (summary, records)
}

fn output(input: &[u8], format: OutputFormat) -> String {
    let mut out = Vec::new();
    run(input, &mut out, format, &Settings::default()).expect("run");
    String::from_utf8(out).expect("UTF-8")
}

/// The file: R1's tag section has no movetext; R2's 0-1 must not be credited to R1's
/// players. Two records: an error for R1 (start line 1, its tags, counted: exit status 2), the
/// checkmate for R2.
#[test]
fn tag_section_after_a_blank_line_is_a_game_without_movetext_not_merged_into_the_next() {
    let input = b"[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
[Event \"R2\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let (summary, records) = jsonl(input);
    assert_eq!((summary.games, summary.errors), (2, 1));
    assert!(!summary.clean(), "exit status 2, as for other read errors");
    let r1 = &records[0];
    assert_eq!(
        (r1["index"].as_u64(), r1["line"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(
        (
            r1["tags"]["event"].as_str(),
            r1["tags"]["white"].as_str(),
            r1["tags"]["black"].as_str()
        ),
        (Some("R1"), Some("A"), Some("B"))
    );
    assert_eq!(r1["error"]["reason"], "INVALID_PGN");
    assert_eq!(
        r1["error"]["description"],
        "line 1:1: the tag section has no movetext (not even a game termination marker, PGN standard 8.2): a new game starts at line 6"
    );
    let r2 = &records[1];
    assert_eq!(
        (r2["index"].as_u64(), r2["line"].as_u64()),
        (Some(1), Some(6))
    );
    assert_eq!(
        (
            r2["tags"]["event"].as_str(),
            r2["tags"]["white"].as_str(),
            r2["tags"]["black"].as_str()
        ),
        (Some("R2"), Some("C"), Some("D"))
    );
    assert_eq!(
        (
            r2["verdict"]["outcome"]["result_text"].as_str(),
            r2["verdict"]["outcome"]["fide_article"].as_str(),
            r2.get("error").is_none()
        ),
        (Some("0-1"), Some("5.1.1"), true)
    );
    assert_eq!(
        summary.error_list,
        [
            "game 1 (A - B): line 1:1: the tag section has no movetext (not even a game termination marker, PGN standard 8.2): a new game starts at line 6"
        ]
    );
}

/// ’ (0x92) and Š (0x8A) in a file that is not UTF-8 are Windows-1252, in the table, the JSON
/// lines and `--format pgn` alike (they used to be U+0092/U+008A in JSON and spaces in PGN).
#[test]
fn windows_1252_bytes_keep_their_characters_in_every_output_format() {
    let input = b"[Event \"Open\"]\n[White \"O\x92Player, \x8Aample\"]\n[Black \"Z\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let name = "O\u{2019}Player, \u{160}ample";
    let (summary, records) = jsonl(input);
    assert_eq!((summary.games, summary.errors), (1, 0));
    assert_eq!(records[0]["tags"]["white"], name);
    assert!(output(input, OutputFormat::Pgn).contains(&format!("[White \"{name}\"]\n")));
    let table = output(input, OutputFormat::Table);
    assert!(
        table
            .lines()
            .any(|line| line.starts_with("1 ") && line.contains(name)),
        "{table}"
    );
}

/// `1. e4?? ∓ {BLUNDER} 1... e5 *` used to be refused ("unexpected '∓' in the movetext"): an
/// annotation never costs a game its verdict.
#[test]
fn annotation_glyphs_never_cost_a_game_its_verdict() {
    let input = "[Result \"0-1\"]\n\n1. f3?? ∓ {BLUNDER} 1... e5 ⩱ 2. g4 −+ Qh4# +/- 0-1\n";
    let (summary, records) = jsonl(input.as_bytes());
    assert_eq!((summary.games, summary.errors), (1, 0));
    assert_eq!(
        (
            records[0]["verdict"]["outcome"]["result_text"].as_str(),
            records[0]["verdict"]["outcome"]["fide_article"].as_str(),
            records[0]["verdict"]["ply_count"].as_u64()
        ),
        (Some("0-1"), Some("5.1.1"), Some(4))
    );
}

/// Every error record carries the game's start line and tags: a variation nested too deep
/// used to report the error's line as the game's and drop the tags.
#[test]
fn error_records_keep_the_game_start_line_and_tags_for_every_error_kind() {
    let deep = format!("1. e4 {} *\n", "(".repeat(65));
    for (movetext, reason, error_line) in [
        (deep.as_str(), "LIMIT_EXCEEDED", 9),
        ("1. e4 e5 )\n", "INVALID_PGN", 9),
        ("1. e4 {open\n", "INVALID_PGN", 9),
        ("1. e4 (1. d4\n", "INVALID_PGN", 9),
        ("1. e4 e5 2. Ke3 *\n", "ILLEGAL_MOVE", 9),
    ] {
        let input = format!(
            "[Event \"E0\"]\n\n1. d4 *\n\n[Event \"E1\"]\n[White \"W\"]\n[Black \"B\"]\n\n{movetext}"
        );
        let (summary, records) = jsonl(input.as_bytes());
        assert_eq!((summary.games, summary.errors), (2, 1), "{movetext}");
        let record = &records[1];
        assert_eq!(record["line"].as_u64(), Some(5), "{movetext}");
        assert_eq!(
            (
                record["tags"]["event"].as_str(),
                record["tags"]["white"].as_str(),
                record["tags"]["black"].as_str()
            ),
            (Some("E1"), Some("W"), Some("B")),
            "{movetext}"
        );
        assert_eq!(record["error"]["reason"], reason, "{movetext}");
        assert_eq!(
            record["error"]["line"].as_u64(),
            Some(error_line),
            "{movetext}"
        );
    }
}

/// "A bad FEN tag fails": an empty one too, with or without a Chess960 `Variant` tag (it used to
/// start silently from the standard array).
#[test]
fn empty_fen_tag_fails_as_a_bad_fen_tag() {
    for tags in [
        "[Variant \"Chess960\"]\n[FEN \"\"]\n",
        "[FEN \"\"]\n[Variant \"Standard\"]\n",
    ] {
        let input = format!("[Event \"x\"]\n{tags}[Result \"1-0\"]\n\n1. e4 e5 1-0\n");
        let (summary, records) = jsonl(input.as_bytes());
        assert_eq!((summary.games, summary.errors), (1, 1));
        assert_eq!(records[0]["error"]["reason"], "INVALID_POSITION");
        assert!(
            records[0]["error"]["description"]
                .as_str()
                .is_some_and(|d| d.contains(": bad FEN tag: FEN has 0 fields")),
            "{}",
            records[0]
        );
        assert_eq!(records[0]["tags"]["event"], "x");
    }
}

/// Issue 11 item 4, a fresh user's finding: a Chess960 game without a `FEN` tag was adjudicated
/// from the standard start position without a word. Like an empty FEN tag, it is an error record
/// (`INVALID_POSITION`, at the `Variant` tag's line) with its tags.
#[test]
fn r_chess960_game_without_a_fen_tag_is_an_error_record_not_the_standard_start() {
    let input = "[Event \"x\"]\n[Variant \"Chess960\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let (summary, records) = jsonl(input.as_bytes());
    assert_eq!((summary.games, summary.errors), (1, 1));
    assert_eq!(records[0]["error"]["reason"], "INVALID_POSITION");
    assert_eq!(records[0]["error"]["line"].as_u64(), Some(2));
    assert!(
        records[0]["error"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("the Variant tag says the game starts from a set-up position (Chess960) but there is no FEN tag")),
        "{}",
        records[0]
    );
    assert_eq!(records[0]["tags"]["event"], "x");
}
