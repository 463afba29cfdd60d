//! Replay: start positions from the tags, variants, and errors with line, column, ply and reason.

use arbiter_pgn::verdict::{AdjudicationSettings, adjudicate};
use arbiter_pgn::{RawGame, Reader, ReplayOptions, Variant, replay, replay_moves};
use arbiter_rules::SanMode;

fn raw(text: &str) -> RawGame {
    Reader::new(text.as_bytes()).next().unwrap().unwrap()
}

fn replay_err(text: &str) -> String {
    replay(&raw(text), &ReplayOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn illegal_move_names_line_column_ply_and_reason() {
    let err = replay_err(
        "[Event \"pin\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/1b6/8/3N4/4K3 b - - 0 1\"]\n\n1... Kd8 2. Nf3 *\n",
    );
    assert_eq!(
        err,
        "line 5:13: ply 2 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)"
    );
}

#[test]
fn error_kinds() {
    let g = raw("1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Ke7 1-0");
    let err = replay(&g, &ReplayOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1:30: ply 6 (Ke7): the king would be in check on e7 from the queen on f7 (FIDE Laws 3.9.2)"
    );
    assert_eq!(err.kind.name(), "move_illegal");
    assert_eq!((err.line, err.column, err.game), (1, 30, 0));
    let err = replay(&raw("1. Nd2 *"), &ReplayOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1:4: ply 1 (Nd2): d2 is occupied by White's own pawn"
    );
    let err = replay(&raw("1. e4 e5 2. Q *"), &ReplayOptions::default()).unwrap_err();
    assert_eq!(err.kind.name(), "move_syntax", "{err}");
}

/// Issue 12 item 4: `replay` refused a move listed after checkmate, where the server's readers
/// counted it as played after the end (FIDE Laws 5.1.1); every reader records moves through
/// `Game::record` now. A null move stays an error even there.
#[test]
fn a_move_listed_after_checkmate_is_counted_after_the_end() {
    let g = raw("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# Ke7 1-0");
    let replayed = replay(&g, &ReplayOptions::default()).expect("counted, not refused");
    assert_eq!(replayed.game.ply(), 7);
    assert_eq!(replayed.game.plies_after_end(), 1);
    assert_eq!(replayed.game.recorded_plies(), 8);
    let err = replay(
        &raw("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# -- 1-0"),
        &ReplayOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind.name(), "null_move");
}

/// Issue 27 item 9: a move after mate in a PGN is not "illegal, does not parry the check": the
/// game ended at the mate (FIDE Laws 5.1.1), and the verdict names that ending, at its ply, in
/// its explanation and its `moves_after_end` warning (with the move's line); the result stands.
#[test]
fn r_a_move_after_mate_in_pgn_is_named_after_the_ending_fide_5_1_1() {
    let g = raw("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 3. Ke2 0-1\n");
    let verdict = adjudicate(&g, None, &AdjudicationSettings::default()).expect("a verdict");
    let outcome = verdict.verdict.outcome.expect("the game ended");
    assert_eq!((outcome.ply, outcome.article()), (4, "5.1.1"));
    assert_eq!(verdict.verdict.plies_after_end, 1);
    assert_eq!(
        verdict.verdict.explanation,
        "checkmate at ply 4 (FIDE Laws 5.1.1); 1 ply was played after the end of the game"
    );
    let warnings: Vec<(&str, u32, String)> = verdict
        .warnings
        .iter()
        .map(|w| (w.code(), w.line, w.to_string()))
        .collect();
    assert_eq!(
        warnings,
        [(
            "moves_after_end",
            3,
            "1 ply was recorded after the game ended at ply 4 (checkmate, FIDE Laws 5.1.1), from ply 5: it is not part of the game".to_owned()
        )]
    );
    assert_eq!(verdict.disagreement, None);
}

/// Issue 27 item 9: the replay that keeps no game (`replay_moves`, the bulk fast path) refuses
/// a move after checkmate or stalemate naming the ending and its article (kind
/// `move_game_over`), not why the move fails in the final position ("does not parry it").
#[test]
fn r_replay_moves_names_the_ending_a_move_follows_fide_5_1_1_and_5_2_1() {
    let mut moves = Vec::new();
    let err = replay_moves(
        &raw("1. f3 e5 2. g4 Qh4# 3. Ke2 0-1"),
        &ReplayOptions::default(),
        &mut moves,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1:24: ply 5 (Ke2): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
    );
    assert_eq!(err.kind.name(), "move_game_over");
    let err = replay_moves(
        &raw("[SetUp \"1\"]\n[FEN \"7k/8/6K1/5Q2/8/8/8/8 w - - 0 1\"]\n\n1. Qf7 Kh7 1/2-1/2\n"),
        &ReplayOptions::default(),
        &mut moves,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 4:8: ply 2 (Kh7): the game ended at ply 1 (stalemate, FIDE Laws 5.2.1)"
    );
    // A move that fails in a position with a legal move keeps its own reason.
    let err = replay_moves(
        &raw("1. e4 e5 2. Ke3 *"),
        &ReplayOptions::default(),
        &mut moves,
    )
    .unwrap_err();
    assert_eq!(err.kind.name(), "move_illegal", "{err}");
}

#[test]
fn null_move_is_an_error_with_its_position() {
    let err = replay(
        &raw("[Event \"x\"]\n\n1. e4 -- 2. d4 *\n"),
        &ReplayOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 3:7: null move at ply 2 (--): a null move is not a legal move"
    );
    assert_eq!(err.kind.name(), "null_move");
}

#[test]
fn start_from_the_fen_tag_with_or_without_setup() {
    for tags in [
        "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n",
        "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n",
    ] {
        let g = replay(
            &raw(&format!("{tags}\n12... Kd7 13. e4 *\n")),
            &ReplayOptions::default(),
        )
        .unwrap();
        assert_eq!(g.variant, Variant::Standard);
        assert_eq!(g.game.ply(), 2);
        assert_eq!(
            g.game.position().to_fen(),
            "8/3k4/8/8/4P3/8/8/4K3 b - - 0 13"
        );
    }
}

/// The contract: a bad FEN tag fails. An empty one is a bad one (it used to be read as the
/// standard start position, so a Chess960 game with `[FEN ""]` started from the wrong array).
#[test]
fn empty_fen_tag_is_a_bad_fen_tag_with_or_without_a_variant() {
    for (tags, line) in [
        ("[SetUp \"1\"]\n[FEN \"\"]\n", 2),
        ("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"\"]\n", 3),
        ("[Variant \"Chess960\"]\n[FEN \"  \"]\n", 2),
    ] {
        let err = replay(&raw(&format!("{tags}\n1. e4 *")), &ReplayOptions::default()).unwrap_err();
        assert_eq!(err.kind.name(), "fen");
        assert_eq!(
            err.to_string(),
            format!(
                "line {line}:1: bad FEN tag: FEN has 0 fields, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)"
            )
        );
    }
}

#[test]
fn bad_fen_tag() {
    let err = replay_err("[Event \"x\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w\"]\n\n*\n");
    assert_eq!(
        err,
        "line 2:1: bad FEN tag: FEN has 2 fields, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)"
    );
}

#[test]
fn chess960_variant_spellings_and_xfen_castling() {
    for spelling in [
        "Chess960",
        "Chess 960",
        "chess 960",
        "fischerandom",
        "Fischerandom",
        "Fischer Random",
    ] {
        let text = format!(
            "[Variant \"{spelling}\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/1R2K1R1 w KQ - 0 1\"]\n\n1. O-O Kd7 2. O-O-O *\n"
        );
        let err = replay(&raw(&text), &ReplayOptions::default()).unwrap_err();
        // After O-O the king has no castling right left: the second castling is refused.
        assert_eq!(err.kind.name(), "move_illegal", "{spelling}");
        assert_eq!((err.line, err.column), (5, 15));
        let text = text.replace(" 2. O-O-O", "");
        let g = replay(&raw(&text), &ReplayOptions::default()).unwrap();
        assert_eq!(g.variant, Variant::Chess960, "{spelling}");
        assert_eq!(g.game.position().board_fen(), "8/3k4/8/8/8/8/8/1R3RK1");
    }
}

/// Issue 11 item 4, a fresh user's finding: a Chess960 game without a `FEN` tag was replayed
/// from the standard start position without a word, though 959 of the 960 start positions
/// differ from it. It fails with `missing_fen` at the `Variant` tag's line, like an empty FEN
/// tag; the start position of such a game is not known.
#[test]
fn r_a_chess960_game_without_a_fen_tag_fails_not_the_standard_start() {
    for movetext in ["1. e4 e5 *", "1. e4 e5 2. O-O *"] {
        let error = replay(
            &raw(&format!(
                "[Event \"x\"]\n[Variant \"Chess960\"]\n\n{movetext}"
            )),
            &ReplayOptions::default(),
        )
        .expect_err("no start position");
        assert_eq!((error.line, error.kind.name()), (2, "missing_fen"));
        assert_eq!(
            error.to_string(),
            "line 2:1: the Variant tag says the game starts from a set-up position (Chess960) but there is no FEN tag: the start position is unknown (PGN standard 9.7.1, 9.7.2; write the start position, even the standard one, in a FEN tag)"
        );
    }
    // A fresh user's report (issue 11, review of 00676e2): `[SetUp "1"]` without a FEN tag
    // started silently from the standard position.
    let error = replay(
        &raw("[Event \"x\"]\n[SetUp \"1\"]\n\n1. e4 e5 *"),
        &ReplayOptions::default(),
    )
    .expect_err("no start position");
    assert_eq!((error.line, error.kind.name()), (2, "missing_fen"));
    assert!(
        error
            .to_string()
            .contains("the SetUp tag says the game starts from a set-up position (SetUp \"1\") but there is no FEN tag"),
        "{error}"
    );
    // `[SetUp "0"]` is the standard start.
    let g = replay(
        &raw("[SetUp \"0\"]\n\n1. e4 e5 *"),
        &ReplayOptions::default(),
    )
    .expect("standard start");
    assert_eq!(g.game.ply(), 2);
    // The standard start written in a FEN tag is a Chess960 start (position 518).
    let g = replay(
        &raw("[Variant \"Chess960\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. e4 e5 *"),
        &ReplayOptions::default(),
    )
    .unwrap();
    assert_eq!(g.variant, Variant::Chess960);
    // No Variant tag, but castling rights in Shredder-FEN: read as Chess960.
    let g = replay(
        &raw("[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. g3 *"),
        &ReplayOptions::default(),
    )
    .unwrap();
    assert_eq!(g.variant, Variant::Chess960);
}

#[test]
fn unsupported_variant() {
    assert_eq!(
        replay_err("[Event \"x\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 *"),
        "line 2:1: unsupported variant 'Crazyhouse'"
    );
    for standard in ["Standard", "From Position", "normal", ""] {
        assert_eq!(
            Variant::from_tag(standard),
            Some(Variant::Standard),
            "{standard}"
        );
    }
}

#[test]
fn uci_movetext_and_tolerant_san() {
    let g = replay(
        &raw("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 *"),
        &ReplayOptions::default(),
    )
    .unwrap();
    assert_eq!(g.game.ply(), 6);
    let g = replay(
        &raw("1. e4 d5 2. exd5 Qxd5 3. Ng1-f3 Bg4 4. Bf1-e2 Nc6 5. 0-0 *"),
        &ReplayOptions::default(),
    );
    assert_eq!(g.unwrap().game.ply(), 9);
    let strict = ReplayOptions {
        san_mode: SanMode::Strict,
        accept_uci: false,
        ..ReplayOptions::default()
    };
    let err = replay(&raw("1. e4 e5 2. Ng1f3 *"), &strict).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1:13: ply 3 (Ng1f3): not strict SAN: write 'Nf3'"
    );
    assert_eq!(err.kind.name(), "move_not_strict");
}

#[test]
fn en_passant_promotion_and_disambiguation() {
    let g = replay(
        &raw("[FEN \"r3k2r/1P6/8/3pP3/8/8/8/R3K1NR w KQkq d6 0 2\"]\n\n2. exd6 Kd7 3. bxa8=N Kxd6 4. Nf3 Ke7 5. Nd2 Rh2 6. Nf1 Ke8 7. O-O-O *"),
        &ReplayOptions::default(),
    )
    .unwrap();
    assert_eq!(g.game.ply(), 11);
    let err = replay_err("[FEN \"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n\n1. Kf2 Kd7 2. R1e1 *");
    assert_eq!(
        err,
        "line 3:15: ply 3 (R1e1): ambiguous: it fits Rae1, Rhe1"
    );
}
