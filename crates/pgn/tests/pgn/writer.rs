//! The writer: export format exactly, and read -> replay -> write -> read round trips.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use arbiter_pgn::{
    Declared, MAX_LINE_LEN, Reader, ReplayOptions, replay, write_game, write_game_cut,
    write_game_with, write_tag_section,
};
use arbiter_rules::{CastlingMode, FenOptions, GameResult, Position};

fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_string(), (*v).to_string()))
        .collect()
}

fn moves(start: &Position, sans: &[&str]) -> Vec<arbiter_rules::Move> {
    let mut pos = start.clone();
    sans.iter()
        .map(|s| {
            let m = pos.parse_move(s).unwrap();
            pos.play_in_place(&m);
            m
        })
        .collect()
}

#[test]
fn export_format_exactly() {
    let start = Position::startpos();
    let mv = moves(&start, &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    let mut out = Vec::new();
    write_game(
        &mut out,
        &tags(&[
            ("White", "Lasker, \"Emanuel\""),
            ("Result", "0-1"),
            ("Event", "C:\\cup"),
            ("ECO", "C60"),
            ("Annotator", "x"),
        ]),
        &start,
        &mv,
        Some(GameResult::WhiteWins),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "[Event \"C:\\\\cup\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"Lasker, \\\"Emanuel\\\"\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[Annotator \"x\"]\n\
         [ECO \"C60\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n\n"
    );
}

#[test]
fn black_to_move_start_and_setup_fen() {
    let start = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12").unwrap();
    let mv = moves(&start, &["Kd7", "e4", "Kc6"]);
    let mut out = Vec::new();
    write_game(&mut out, &[], &start, &mv, None).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.ends_with(
            "[Result \"*\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n[SetUp \"1\"]\n\n12... Kd7 13. e4 Kc6 *\n\n"
        ),
        "{text}"
    );
}

#[test]
fn chess960_writes_variant_setup_and_fen() {
    let options = FenOptions {
        mode: CastlingMode::Chess960,
        ..FenOptions::default()
    };
    let start = Position::from_fen_with("4k3/8/8/8/8/8/8/1R2K1R1 w KQ - 0 1", options).unwrap();
    let mv = moves(&start, &["O-O"]);
    let mut out = Vec::new();
    write_game(
        &mut out,
        &tags(&[("Variant", "chess 960")]),
        &start,
        &mv,
        None,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(
            "[FEN \"4k3/8/8/8/8/8/8/1R2K1R1 w KQ - 0 1\"]\n[SetUp \"1\"]\n[Variant \"Chess960\"]\n\n1. O-O *\n"
        ),
        "{text}"
    );
    let raw = Reader::new(text.as_bytes()).next().unwrap().unwrap();
    let again = replay(&raw, &ReplayOptions::default()).unwrap();
    assert_eq!(again.game.moves(), mv.as_slice());
}

#[test]
fn illegal_move_and_bad_tag_name_are_refused() {
    let start = Position::startpos();
    let other = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
    let mv = moves(&other, &["Kd2"]);
    let mut out = Vec::new();
    let err = write_game(&mut out, &[], &start, &mv, None).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(out.is_empty());
    let err = write_game(&mut out, &tags(&[("Bad Name", "x")]), &start, &[], None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tag name 'Bad Name' is not a PGN symbol (letters, digits, '_')"
    );
}

/// Every fixture game: read -> replay -> write -> read -> replay gives the same moves and tags,
/// and no movetext line is longer than 79 characters.
#[test]
fn round_trip_of_the_fixture_games() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/games/lichess-2025-05-sample.pgn");
    let reader = Reader::new(BufReader::new(File::open(&path).unwrap()));
    let options = ReplayOptions::default();
    let mut out = Vec::new();
    let mut originals = Vec::new();
    for raw in reader {
        let raw = raw.unwrap();
        let game = replay(&raw, &options).unwrap();
        let result = match raw.result.as_deref() {
            Some("1-0") => Some(GameResult::WhiteWins),
            Some("0-1") => Some(GameResult::BlackWins),
            Some("1/2-1/2") => Some(GameResult::Draw),
            _ => None,
        };
        write_game(
            &mut out,
            &raw.tags,
            game.game.start(),
            game.game.moves(),
            result,
        )
        .unwrap();
        originals.push((raw, game));
    }
    assert_eq!(originals.len(), 438);
    let text = String::from_utf8(out).unwrap();
    // Movetext lines are wrapped; a tag pair stays on its line whatever its length.
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('['))
            .all(|l| l.chars().count() <= MAX_LINE_LEN)
    );
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('['))
            .any(|l| l.len() > 70)
    );
    let again: Vec<_> = Reader::new(text.as_bytes()).map(Result::unwrap).collect();
    assert_eq!(again.len(), originals.len());
    for ((raw, game), back) in originals.iter().zip(&again) {
        let replayed = replay(back, &options).unwrap();
        assert_eq!(
            replayed.game.moves(),
            game.game.moves(),
            "game {}",
            raw.index
        );
        assert_eq!(back.result, raw.result);
        for (name, value) in &raw.tags {
            assert_eq!(
                back.tag(name),
                Some(value.as_str()),
                "game {} tag {name}",
                raw.index
            );
        }
    }
}

/// Issue 28 item 7: the written Result tag and termination marker are the ones given, the
/// added tags follow the Seven Tag Roster in their order and replace tags of the same name.
#[test]
fn declared_result_and_added_tags_are_written_as_given() {
    let start = Position::startpos();
    let mv = moves(&start, &["f3", "e5", "g4", "Qh4#"]);
    let mut out = Vec::new();
    write_game_with(
        &mut out,
        &tags(&[
            ("Result", "1-0"),
            ("ECO", "A00"),
            ("ArbiterResult", "stale"),
        ]),
        &start,
        &mv,
        Declared::kept(Some("1-0"), Some("1-0")),
        &[("ArbiterResult", "0-1"), ("ArbiterArticle", "5.1.1")],
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
         [Black \"?\"]\n[Result \"1-0\"]\n[ArbiterResult \"0-1\"]\n[ArbiterArticle \"5.1.1\"]\n\
         [ECO \"A00\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n"
    );
}

/// Issue 28 item 7: what a game declares, kept: a missing tag is the marker's text, a missing
/// marker the tag's result (`1:0` is `1-0`), or `*` when the tag is no result.
#[test]
fn kept_result_fills_a_missing_tag_or_marker_from_the_other() {
    let kept = |tag, marker| {
        let Declared { tag, marker } = Declared::kept(tag, marker);
        (tag, marker)
    };
    assert_eq!(kept(Some("1-0"), Some("0-1")), ("1-0", "0-1"));
    assert_eq!(kept(None, Some("1/2-1/2")), ("1/2-1/2", "1/2-1/2"));
    // Export format's four values (a fresh user's finding on issue 28: `1–0` was kept).
    assert_eq!(kept(Some("1:0"), None), ("1-0", "1-0"));
    assert_eq!(kept(Some("1\u{2013}0"), Some("1-0")), ("1-0", "1-0"));
    assert_eq!(
        kept(Some("\u{bd}\u{2013}\u{bd}"), None),
        ("1/2-1/2", "1/2-1/2")
    );
    assert_eq!(kept(Some("won on time"), None), ("won on time", "*"));
    assert_eq!(kept(None, None), ("*", "*"));
    assert_eq!(
        kept(Some("*"), None),
        ("*", "*"),
        "an unfinished game's tag and marker"
    );
}

/// A termination marker that PGN does not have is refused before anything is written.
#[test]
fn a_marker_that_is_no_termination_marker_is_refused() {
    let start = Position::startpos();
    let mut out = Vec::new();
    let error = write_game_with(
        &mut out,
        &[],
        &start,
        &[],
        Declared {
            tag: "1-0",
            marker: "1:0",
        },
        &[],
    )
    .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(
        error.to_string(),
        "'1:0' is not a game termination marker: 1-0, 0-1, 1/2-1/2 or * (PGN standard 8.2.6)"
    );
    assert!(out.is_empty());
}

/// A fresh user's finding on issue 28 (`--format pgn` left out a game with an illegal move):
/// the moves played, then the refused move and those after it as read, numbered on as if
/// played (`1. e4 Ke3 2. Nf6`; from a Black start `5... Kd7`); a token that could break the
/// movetext is refused; a game with no known start writes its tags as read and its marker.
#[test]
fn a_cut_game_writes_the_refused_moves_as_read_numbered_on() {
    let start = Position::startpos();
    let played = moves(&start, &["e4"]);
    let declared = Declared::kept(Some("1-0"), Some("1-0"));
    let mut out = Vec::new();
    write_game_cut(
        &mut out,
        &tags(&[]),
        &start,
        &played,
        &["Ke3", "Nf6", "Qh5"],
        declared,
        &[("ArbiterError", "ply 2")],
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.ends_with("[ArbiterError \"ply 2\"]\n\n1. e4 Ke3 2. Nf6 Qh5 1-0\n\n"),
        "{text}"
    );
    let black = Position::from_fen("4k3/8/8/8/8/8/8/4K2R b K - 3 5").unwrap();
    let mut out = Vec::new();
    write_game_cut(
        &mut out,
        &tags(&[]),
        &black,
        &[],
        &["Kd7", "O-O"],
        declared,
        &[],
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("\n\n5... Kd7 6. O-O 1-0\n\n"), "{text}");
    for token in ["a b", "{x", "", "é"] {
        let error = write_game_cut(
            &mut Vec::new(),
            &tags(&[]),
            &start,
            &[],
            &[token],
            declared,
            &[],
        )
        .unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{token:?}");
    }
    let mut out = Vec::new();
    write_tag_section(
        &mut out,
        &tags(&[
            ("Event", "E"),
            ("FEN", "8/8/8/8/8/8/8/8 w - - 0 1"),
            ("Annotator", "A"),
        ]),
        declared,
        &[("ArbiterError", "bad FEN")],
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "[Event \"E\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[ArbiterError \"bad FEN\"]\n[Annotator \"A\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1-0\n\n"
    );
}
