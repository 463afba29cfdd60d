//! Issue 28 item 5, a fresh user's findings: no token of the movetext is swallowed silently.
//! Castling written with zeros and no dashes (`00`, `000`) was read as a move number, so
//! `1. 000 1-0` was a resignation at ply 0 and `4. 00 Nf6` blamed the next move; a number that
//! no move follows was skipped; a word after checkmate counted as a ply. Each is now read with
//! a warning or refused with its cause, at its line:column.

use arbiter_pgn::verdict::{AdjudicationSettings, PgnWarning, adjudicate};
use arbiter_pgn::{ErrorKind, PgnError, RawGame, Reader, ReplayOptions, replay};
use arbiter_rules::{AnalysisBudget, GameResult, Termination};

fn read_all(input: &str) -> Vec<Result<RawGame, PgnError>> {
    Reader::new(input.as_bytes()).collect()
}

fn one(input: &str) -> RawGame {
    let mut games = read_all(input);
    assert_eq!(games.len(), 1, "{games:?}");
    games.remove(0).unwrap_or_else(|e| panic!("{e}"))
}

fn sans(game: &RawGame) -> Vec<&str> {
    game.moves.iter().map(|t| t.text.as_str()).collect()
}

fn settings() -> AdjudicationSettings {
    AdjudicationSettings {
        claim_draw: false,
        analysis: AnalysisBudget::Material,
        ..AdjudicationSettings::default()
    }
}

/// Code, ply, line and column of each warning.
fn places(warnings: &[PgnWarning]) -> Vec<(&'static str, u32, u32, u32)> {
    warnings
        .iter()
        .map(|w| (w.code(), w.ply, w.line, w.column))
        .collect()
}

/// The reader's error of a game, as a user reads it.
fn read_error(input: &str) -> String {
    let games = read_all(input);
    assert_eq!(games.len(), 1, "{games:?}");
    match &games[0] {
        Ok(game) => panic!("read: {:?}", sans(game)),
        Err(error) => error.to_string(),
    }
}

const MATE_IN_ONE_BY_CASTLING: &str =
    "[Event \"E\"]\n[FEN \"2rkr3/2p1p3/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[SetUp \"1\"]\n\n1. 000 1-0\n";

/// `1. 000 1-0`, castling that mates, was a resignation at ply 0 with no move: `000` is
/// castling on the a-side, read with a `castling_spelling` warning at its line:column (PGN
/// writes O-O-O, PGN standard 8.2.3.3; the FIDE Laws write 0-0-0), and the game is the
/// checkmate it is (FIDE Laws 5.1.1).
#[test]
fn r_castling_written_000_is_castling_not_a_move_number_issue_28() {
    let raw = one(MATE_IN_ONE_BY_CASTLING);
    assert_eq!(sans(&raw), ["000"]);
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    let outcome = verdict.verdict.outcome.expect("ended");
    assert_eq!(
        (
            outcome.result,
            outcome.termination,
            outcome.article(),
            outcome.ply
        ),
        (GameResult::WhiteWins, Termination::Checkmate, "5.1.1", 1)
    );
    assert_eq!(places(&verdict.warnings), [("castling_spelling", 1, 5, 4)]);
    assert_eq!(
        verdict.warnings[0].to_string(),
        "line 5:4: ply 1 (000): castling written without dashes, read as O-O-O (PGN writes O-O-O, standard 8.2.3.3, and the FIDE Laws 0-0-0, Appendix C)"
    );
}

/// `4. 00 Nf6` was refused at the next move ("ply 7 (Nf6): no white knight can move to f6"):
/// `00` is castling, with or without a check sign, marks or an evaluation glyph glued to it,
/// and so are `OO`, `oo` and O's mixed with zeros; `0-0`, `O-O`, `o-o` stay without warning.
#[test]
fn r_castling_written_00_in_mid_game_is_castling_with_a_warning_issue_28() {
    let opening = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4.";
    for (written, warned) in [
        ("00", true),
        ("00!", true),
        ("00+-", true),
        ("OO", true),
        ("oo", true),
        ("0-O", true),
        ("O-0", true),
        ("0-0", false),
        ("O-O", false),
        ("o-o", false),
    ] {
        let pgn = format!("[Event \"E\"]\n\n{opening} {written} Nf6 5. d3 *\n");
        let raw = one(&pgn);
        let verdict = adjudicate(&raw, None, &settings()).unwrap_or_else(|e| panic!("{e}"));
        let castling = verdict.game.moves()[6];
        assert!(
            castling.is_kingside_castle(),
            "{written}: {:?}",
            verdict.game.moves()
        );
        assert_eq!(verdict.game.moves().len(), 9, "{written}");
        let column = u32::try_from(opening.len() + 2).unwrap();
        let want: Vec<_> = if warned {
            vec![("castling_spelling", 7, 3, column)]
        } else {
            Vec::new()
        };
        assert_eq!(places(&verdict.warnings), want, "{written}");
    }
    // Three letters are the a-side; mixed letters are named so.
    let pgn = "[Event \"E\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. 0-O-0 oo *\n";
    let verdict = adjudicate(&one(pgn), None, &settings()).expect("replays");
    assert!(verdict.game.moves().iter().all(|m| m.is_castle()));
    assert_eq!(
        verdict
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "line 4:4: ply 1 (0-O-0): castling written with its letters mixed, read as O-O-O (PGN writes O-O-O, standard 8.2.3.3, and the FIDE Laws 0-0-0, Appendix C)",
            "line 4:10: ply 2 (oo): castling written without dashes, read as O-O (PGN writes O-O, standard 8.2.3.3, and the FIDE Laws 0-0, Appendix C)",
        ]
    );
}

/// Castling written with zeros that is not legal is refused for the reason castling is not,
/// and text of O's and zeros that is no castling (`0-0-0-0`) is refused as the castling it is
/// not, at its ply (it was "expected a destination square").
#[test]
fn r_castling_shaped_text_is_refused_for_its_reason_issue_28() {
    let pgn = "[Event \"E\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. 00 *\n";
    let error = replay(&one(pgn), &ReplayOptions::default()).expect_err("no rook");
    assert_eq!(
        error.to_string(),
        "line 4:4: ply 1 (00): White has no rook on h1 to castle with on the h-side (O-O): castling is a move of the king and a rook (FIDE Laws 3.8.2)"
    );
    let pgn = "[Event \"E\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. 0-0-0-0 *\n";
    let error = replay(&one(pgn), &ReplayOptions::default()).expect_err("no castling");
    assert_eq!(
        error.to_string(),
        "line 4:4: ply 1 (0-0-0-0): castling is written O-O (h-side) or O-O-O (a-side), with two or three O's or zeros, and this has 4 (PGN standard 8.2.3.3)"
    );
    // The null move stays the null move.
    let pgn = "[Event \"E\"]\n\n1. e4 0000 *\n";
    let error = replay(&one(pgn), &ReplayOptions::default()).expect_err("null move");
    assert!(
        matches!(error.kind, ErrorKind::NullMove { ply: 2, .. }),
        "{error}"
    );
}

/// A number without a period is a move number only when a move follows it (`1 e4 e5 2 Nf3`,
/// a comment or a NAG between allowed); one that a result, another number, a move number, a
/// variation's bracket or the game's end follows is refused at its line:column (PGN standard
/// 8.2.2), never skipped; the next game is read. Move numbers with periods are as before.
#[test]
fn r_a_number_no_move_follows_is_refused_not_skipped_issue_28() {
    let raw = one("[Event \"E\"]\n\n1 e4 e5 2 {a comment} Nf3 $1 Nc6 3\nBb5 *\n");
    assert_eq!(sans(&raw), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    let raw = one("[Event \"E\"]\n\n1. e4 1... e5 12. Nf3 2. *\n");
    assert_eq!(sans(&raw), ["e4", "e5", "Nf3"]);
    for (movetext, message) in [
        (
            "1. e4 e5 2. Nf3 Nc6 3 1-0",
            "line 3:21: '3' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 3 skipped to the end of the game",
        ),
        (
            "1. e4 e5 7 2. Nf3 *",
            "line 3:10: '7' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 3 skipped to the end of the game",
        ),
        (
            "1. e4 e5 2 3 Nf3 *",
            "line 3:10: '2' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 3 skipped to the end of the game",
        ),
        (
            "1. e4 e5 2 ( 2. d4 ) *",
            "line 3:10: '2' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 3 skipped to the end of the game",
        ),
        (
            "1. e4 e5 2",
            "line 3:10: '2' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); line 3 skipped to the end of the game",
        ),
    ] {
        let input = format!("[Event \"E\"]\n\n{movetext}\n");
        assert_eq!(read_error(&input), message, "{movetext}");
    }
    // Over two lines: the number's line is where the skip starts.
    let games = read_all("[Event \"A\"]\n\n1. e4 e5 2\n1-0\n\n[Event \"B\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 2);
    let error = games[0].as_ref().expect_err("a number no move follows");
    assert_eq!(
        error.to_string(),
        "line 3:10: '2' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2); lines 3-4 skipped to the end of the game"
    );
    assert_eq!(sans(games[1].as_ref().expect("the next game")), ["d4"]);
}

/// `4. Qxf7# mate 1-0` warned that "1 ply was recorded after the game ended": a word is no
/// move. After the rules ended the game, text that is no move at all is named by a
/// `not_a_move_after_end` warning at its line:column and not counted as a ply (a move there
/// still is, `moves_after_end`); before the end such text is an error, as any unreadable move.
#[test]
fn r_a_word_after_checkmate_is_not_counted_as_a_ply_issue_28() {
    let pgn = "[Event \"E\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# mate 1-0\n";
    let verdict = adjudicate(&one(pgn), None, &settings()).expect("replays");
    assert_eq!(verdict.verdict.plies_after_end, 0);
    assert_eq!(verdict.game.recorded_plies(), 7);
    assert_eq!(
        places(&verdict.warnings),
        [("not_a_move_after_end", 7, 3, 41)]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "line 3:41: 'mate' after the game ended at ply 7 (checkmate, FIDE Laws 5.1.1) is not a move: it is not counted as a ply"
    );
    // A move after the end is counted, a word beside it is not.
    let pgn = "[Event \"E\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# Kxf7 resigns 1-0\n";
    let verdict = adjudicate(&one(pgn), None, &settings()).expect("replays");
    assert_eq!(verdict.verdict.plies_after_end, 1);
    assert_eq!(
        verdict
            .warnings
            .iter()
            .map(|w| (w.code(), w.ply))
            .collect::<Vec<_>>(),
        [("not_a_move_after_end", 8), ("moves_after_end", 8)]
    );
    // Before the end, a word is refused as the move it is not.
    let pgn = "[Event \"E\"]\n\n1. e4 mate 2. Nf3 *\n";
    let error = adjudicate(&one(pgn), None, &settings()).expect_err("no move");
    assert_eq!(
        error.to_string(),
        "line 3:7: ply 2 (mate): expected a destination square at the end"
    );
}

/// The king taking its own rook is read in standard chess with or without its square of
/// origin (`Kxh1` as `Ke1h1`), with the `castling_as_king_move` warning; and the warnings of a
/// move name its line:column first, as errors do (they named a line only).
#[test]
fn r_king_takes_own_rook_and_move_warnings_name_their_column_issue_28() {
    let pgn = "[Event \"E\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. Kxh1 Ke8xa8 2. Kg2+ *\n";
    let verdict = adjudicate(&one(pgn), None, &settings()).expect("replays");
    assert!(verdict.game.moves()[..2].iter().all(|m| m.is_castle()));
    assert_eq!(
        places(&verdict.warnings),
        [
            ("castling_as_king_move", 1, 4, 4),
            ("castling_as_king_move", 2, 4, 9),
            ("wrong_check_suffix", 3, 4, 19),
        ]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "line 4:4: ply 1 (Kxh1): castling written as the king's move, read as O-O, which is legal here (PGN writes castling O-O, standard 8.2.3.3)"
    );
    assert_eq!(
        verdict.warnings[2].to_string(),
        "line 4:19: ply 3 (Kg2+): the move gives no check, so it should have no suffix, not '+'; the move was read without it"
    );
}

/// `!!!` and `?!?` after a move, which no NAG stands for, were dropped without a word: a
/// `skipped_glyph` warning names them at their line:column and ply, as an annotation symbol
/// without a NAG; `!?` is still $5.
#[test]
fn r_marks_without_a_nag_are_warned_not_dropped_issue_28() {
    let raw = one("[Event \"E\"]\n\n1. e4!!! e5 ?!? 2. Nf3!? *\n");
    assert_eq!(sans(&raw), ["e4", "e5", "Nf3"]);
    assert_eq!(
        raw.nags
            .iter()
            .map(|n| (n.ply, n.value))
            .collect::<Vec<_>>(),
        [(3, 5)]
    );
    assert_eq!(
        raw.warnings
            .iter()
            .map(|w| (w.kind.code(), w.line, w.column, w.ply, w.to_string()))
            .collect::<Vec<_>>(),
        [
            (
                "skipped_glyph",
                3,
                6,
                1,
                "line 3:6: annotation marks '!!!' have no NAG (PGN standard 10 numbers !, ?, !!, ??, !? and ?!): skipped".to_owned()
            ),
            (
                "skipped_glyph",
                3,
                13,
                2,
                "line 3:13: annotation marks '?!?' have no NAG (PGN standard 10 numbers !, ?, !!, ??, !? and ?!): skipped".to_owned()
            ),
        ]
    );
}

/// A second fresh user's finding on issue 28: `12. Nf3 Nf6 13. d4 d5 1/2-1/2` in a game with
/// tags and no `FEN` tag was an agreed draw without a word, its moves played from the initial
/// position (PGN standard 9.7.2) though the moves before move 12 are missing. It is read so,
/// with a `movetext_starts_later` warning at the first move; with a `FEN` tag there is none, and
/// without any tag it stays an error (the rest of the game before).
#[test]
fn movetext_that_starts_later_without_a_fen_tag_is_warned_about() {
    let game = one("[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n12. Nf3 Nf6 13. d4 d5 1/2-1/2\n");
    let verdict = adjudicate(&game, None, &settings()).expect("replays from the initial position");
    assert_eq!(
        places(&verdict.warnings),
        [("movetext_starts_later", 0, 4, 5)]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "the movetext starts at move 12, but the game has no FEN tag: its moves are played from the initial position (PGN standard 9.7.2), and the moves before move 12 may be missing"
    );
    let set_up = one(
        "[Event \"y\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 12\"]\n\n12. Nf3 *\n",
    );
    assert!(set_up.warnings.is_empty(), "{:?}", set_up.warnings);
    let from_one = one("[Event \"z\"]\n\n1. e4 e5 *\n");
    assert!(from_one.warnings.is_empty(), "{:?}", from_one.warnings);
}
