//! Rule cases of the FIDE Laws of Chess, each naming its article: piece moves (3.2-3.8), pawn
//! moves, en passant and promotion (3.7), castling (3.8.2), check and pins (3.9), checkmate (5.1.1),
//! stalemate (5.2.1), dead positions by insufficient material (5.2.2), repetitions and the 50- and
//! 75-move rules (9.2, 9.3, 9.6); FEN validation reasons, illegal-move explanations, SAN and UCI
//! notation (Appendix C) and Zobrist keys in the Polyglot layout.

use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, Claim, ClaimKind, FenError, FenOptions,
    FenSyntaxError, Game, GameOver, GameResult, Move, MoveError, NextMoveError, Position,
    STARTING_FEN, SanMode, Status, Termination, adjudicate,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn pos960(fen: &str) -> Position {
    Position::from_fen_with(
        fen,
        FenOptions {
            mode: CastlingMode::Chess960,
            validation: arbiter_rules::Validation::STRICT,
        },
    )
    .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The SAN of every legal move, sorted.
fn sans(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.san(m)).collect();
    v.sort();
    v
}

/// The UCI of every legal move, sorted.
fn ucis(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.uci(m)).collect();
    v.sort();
    v
}

/// The destination squares of the legal moves of the piece on `from`, sorted (deduplicated for
/// promotions; castling moves are left out).
fn targets(p: &Position, from: &str) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.from.to_string() == from && !m.is_castle())
        .map(|m| m.to.to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The SAN of the legal moves of the piece on `from`, sorted.
fn sans_from(p: &Position, from: &str) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.from.to_string() == from)
        .map(|m| p.san(m))
        .collect();
    v.sort();
    v
}

fn play(p: &Position, text: &str) -> Position {
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.to_fen()));
    p.play(&m)
}

fn play_all(fen: &str, moves: &[&str]) -> Position {
    moves.iter().fold(pos(fen), |p, m| play(&p, m))
}

fn reason(p: &Position, text: &str) -> String {
    match p.parse_move(text) {
        Ok(m) => panic!("{text} is legal in {}: {m:?}", p.to_fen()),
        Err(e) => e.reason(),
    }
}

fn fen_error(fen: &str) -> String {
    match Position::from_fen(fen) {
        Ok(p) => panic!("{fen} was accepted as {}", p.to_fen()),
        Err(e) => e.to_string(),
    }
}

fn game(fen: &str, moves: &[&str]) -> Game {
    let mut g = Game::new(pos(fen));
    for m in moves {
        g.push(m).unwrap_or_else(|e| panic!("{e}"));
    }
    g
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// Piece moves (FIDE Laws 3.2 - 3.6, 3.8.1)
// ---------------------------------------------------------------------------------------------

#[test]
fn bishop_moves_diagonally_until_blocked_fide_3_2() {
    let p = pos("4k3/8/1p6/8/3B4/8/5P2/4K3 w - - 0 1");
    assert_eq!(
        targets(&p, "d4"),
        strs(&["a1", "b2", "b6", "c3", "c5", "e3", "e5", "f6", "g7", "h8"])
    );
    assert!(sans_from(&p, "d4").contains(&"Bxb6".to_string()));
}

#[test]
fn rook_moves_along_file_and_rank_until_blocked_fide_3_3() {
    let p = pos("4k3/8/8/3p4/8/8/3R1P2/4K3 w - - 0 1");
    assert_eq!(
        targets(&p, "d2"),
        strs(&["a2", "b2", "c2", "d1", "d3", "d4", "d5", "e2"])
    );
}

#[test]
fn queen_combines_rook_and_bishop_moves_fide_3_4() {
    let p = pos("4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1");
    assert_eq!(
        targets(&p, "d4"),
        strs(&[
            "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6",
            "d7", "d8", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7", "h4", "h8",
        ])
    );
}

#[test]
fn sliding_pieces_may_not_jump_fide_3_5() {
    // The rook on a1 is boxed in by its own pawn and knight; the bishop on c1 by pawns.
    let p = pos("4k3/8/8/8/8/8/PPP5/RNB1K3 w - - 0 1");
    assert_eq!(targets(&p, "a1"), Vec::<String>::new());
    assert_eq!(targets(&p, "c1"), strs(&["d2", "e3", "f4", "g5", "h6"]));
    assert_eq!(
        reason(&p, "a1a3"),
        "the path from a1 to a3 is blocked by the white pawn on a2"
    );
}

#[test]
fn knight_jumps_to_the_nearest_squares_not_on_a_line_fide_3_6() {
    let p = pos("4k3/8/3p4/8/4N3/2P5/8/4K3 w - - 0 1");
    assert_eq!(
        targets(&p, "e4"),
        strs(&["c5", "d2", "d6", "f2", "f6", "g3", "g5"])
    );
    assert_eq!(
        sans_from(&p, "e4"),
        strs(&["Nc5", "Nd2", "Nf2", "Nf6+", "Ng3", "Ng5", "Nxd6+"])
    );
    // It passes over the pieces around it.
    let boxed = pos("4k3/8/8/8/8/8/PPP5/N3K3 w - - 0 1");
    assert_eq!(targets(&boxed, "a1"), strs(&["b3"]));
}

#[test]
fn king_moves_one_square_but_not_next_to_the_other_king_fide_3_8_1() {
    let p = pos("8/8/8/4k3/8/4K3/8/8 w - - 0 1");
    assert_eq!(targets(&p, "e3"), strs(&["d2", "d3", "e2", "f2", "f3"]));
}

#[test]
fn king_may_not_capture_a_protected_piece_fide_3_8_1_and_3_9_2() {
    let p = pos("4k3/8/8/8/5b2/8/3r4/4K3 w - - 0 1");
    assert_eq!(ucis(&p), strs(&["e1f1"]));
    assert_eq!(
        reason(&p, "Kxd2"),
        "the king would be in check on d2 from the bishop on f4 (FIDE Laws 3.9.2)"
    );
}

#[test]
fn a_piece_may_not_move_to_a_square_of_its_own_colour_fide_3_1() {
    let p = Position::startpos();
    assert_eq!(reason(&p, "d1d2"), "d2 is occupied by White's own pawn");
}

#[test]
fn moving_the_opponents_piece_is_illegal_fide_1_2() {
    let p = Position::startpos();
    assert_eq!(
        reason(&p, "e7e5"),
        "the piece on e7 is a black pawn, but it is White's move"
    );
}

// ---------------------------------------------------------------------------------------------
// Pawns (FIDE Laws 3.7)
// ---------------------------------------------------------------------------------------------

#[test]
fn pawn_single_and_double_step_from_start_fide_3_7_1_and_3_7_2() {
    let p = Position::startpos();
    assert_eq!(targets(&p, "e2"), strs(&["e3", "e4"]));
    let black = pos("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(targets(&black, "e7"), strs(&["e5", "e6"]));
}

#[test]
fn pawn_double_step_only_from_original_square_fide_3_7_2() {
    let p = pos("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1");
    assert_eq!(targets(&p, "e3"), strs(&["e4"]));
    assert_eq!(
        reason(&p, "e3e5"),
        "a pawn may advance two squares only from its original square (FIDE Laws 3.7.2); e3 is not"
    );
}

#[test]
fn pawn_double_step_needs_both_squares_empty_fide_3_7_2() {
    let jump = pos("4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1");
    assert_eq!(targets(&jump, "e2"), Vec::<String>::new());
    assert_eq!(
        reason(&jump, "e2e4"),
        "the pawn on e2 cannot jump over the piece on e3"
    );
    let far_blocked = pos("4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 1");
    assert_eq!(targets(&far_blocked, "e2"), strs(&["e3"]));
    assert_eq!(
        reason(&far_blocked, "e2e4"),
        "a pawn cannot capture straight ahead: e4 is occupied"
    );
}

#[test]
fn pawn_captures_diagonally_forward_only_fide_3_7_3() {
    let p = pos("4k3/8/8/3p1n2/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(sans_from(&p, "e4"), strs(&["e5", "exd5", "exf5"]));
    let blocked = pos("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(targets(&blocked, "e4"), Vec::<String>::new());
    assert_eq!(
        reason(&blocked, "e5"),
        "a pawn cannot capture straight ahead: e5 is occupied"
    );
    let empty = pos("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(
        reason(&empty, "e4d5"),
        "a pawn captures diagonally only, and d5 is empty"
    );
}

#[test]
fn en_passant_immediately_after_double_step_fide_3_7_3_1() {
    let p = play_all(STARTING_FEN, &["e4", "a6", "e5", "d5"]);
    assert_eq!(
        p.to_fen(),
        "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    assert_eq!(sans_from(&p, "e5"), strs(&["e6", "exd6"]));
    let m = p.parse_move("exd6").unwrap();
    assert!(m.is_en_passant());
    assert_eq!(p.uci(&m), "e5d6");
    assert_eq!(
        p.play(&m).to_fen(),
        "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );
}

#[test]
fn en_passant_only_immediately_after_double_step_fide_3_7_3_2() {
    let p = play_all(STARTING_FEN, &["e4", "a6", "e5", "d5", "a3", "h6"]);
    assert_eq!(p.ep_square(), None);
    assert_eq!(sans_from(&p, "e5"), strs(&["e6"]));
    assert_eq!(
        reason(&p, "exd6"),
        "en passant is only possible on the move right after the double step (FIDE Laws 3.7.3.2); d6 is empty"
    );
}

#[test]
fn en_passant_not_when_both_pawns_leave_the_kings_rank_fide_3_7_3_1_and_3_9_2() {
    // White king a5, pawns b5 (white) and c5 (black, just double-stepped), black rook h5:
    // bxc6 e.p. would empty b5 and c5 and put the king in check along the fifth rank.
    let p = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 2");
    assert_eq!(p.ep_square(), None);
    assert_eq!(p.to_fen(), "8/8/8/KPp4r/8/8/8/7k w - - 0 2");
    assert_eq!(targets(&p, "b5"), strs(&["b6"]));
    assert!(p.parse_move("bxc6").is_err());
    // The same position reached by a move.
    let q = play(&pos("8/2p5/8/KP5r/8/8/8/7k b - - 0 1"), "c5");
    assert_eq!(q, p);
    assert_eq!(q.ep_square(), None);
}

#[test]
fn en_passant_not_when_the_capturing_pawn_is_pinned_on_a_diagonal_fide_3_9_2() {
    // The pawn on b5 is pinned by the bishop on d3 against the king on a6; the pawn on d5 may
    // capture en passant.
    let p = pos("7k/8/K7/1PpP4/8/3b4/8/8 w - c6 0 2");
    assert_eq!(p.ep_square().map(|s| s.to_string()), Some("c6".to_string()));
    assert_eq!(sans(&p), strs(&["Ka5", "Ka7", "Kb6", "Kb7", "d6", "dxc6"]));
}

#[test]
fn en_passant_exposing_the_king_is_explained_fide_3_9_2() {
    let p = pos("7k/8/K7/1PpP4/8/3b4/8/8 w - c6 0 2");
    assert_eq!(
        reason(&p, "bxc6"),
        "the en passant capture would expose the king on a6 to the bishop on d3 (FIDE Laws 3.9.2)"
    );
}

/// Issue 12, a fresh reviewer's report (F1): an en passant capture right after the double step
/// that exposes the king along the rank was answered EN_PASSANT_EXPIRED (3.7.3.2) with a sentence
/// naming both causes, because the position keeps an en passant square only when a capture there
/// is legal (9.2.3). The position now remembers the double step itself: the cause is the
/// exposed king (3.9.2), whether the double step was played or written in the FEN, and a capture
/// one move late is still EN_PASSANT_EXPIRED.
#[test]
fn r_en_passant_exposing_the_king_on_its_rank_is_not_called_expired() {
    let exposed =
        "the en passant capture would expose the king on a5 to the rook on h5 (FIDE Laws 3.9.2)";
    let written = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 2");
    assert_eq!(reason(&written, "bxc6"), exposed);
    let before = pos("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1");
    let played = before.play(&before.parse_move("c5").expect("c5"));
    assert_eq!(
        played.ep_square(),
        None,
        "no legal capture: no en passant square (9.2.3)"
    );
    assert_eq!(reason(&played, "bxc6"), exposed);
    let cause = |position: &Position| {
        let error = position.parse_uci("b5c6").expect_err("illegal");
        let illegality = error.illegality().expect("typed");
        (illegality.cause(), illegality.article())
    };
    assert_eq!(cause(&played), ("EN_PASSANT_EXPOSES_KING", Some("3.9.2")));
    // One move later the double step is history: the capture came too late (3.7.3.2).
    let late = pos("7k/8/8/KPp4r/8/8/8/8 w - - 0 2");
    assert_eq!(cause(&late), ("EN_PASSANT_EXPIRED", Some("3.7.3.2")));
    assert_eq!(
        reason(&late, "bxc6"),
        "en passant is only possible on the move right after the double step (FIDE Laws 3.7.3.2); c6 is empty"
    );
}

#[test]
fn promotion_to_queen_rook_bishop_or_knight_fide_3_7_5() {
    let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        sans_from(&p, "a7"),
        strs(&["a8=B", "a8=N", "a8=Q+", "a8=R+"])
    );
    assert_eq!(play(&p, "a8=N").to_fen(), "N3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(play(&p, "a7a8r").to_fen(), "R3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    let capture = pos("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        sans_from(&capture, "a7"),
        strs(&[
            "a8=B", "a8=N", "a8=Q", "a8=R", "axb8=B", "axb8=N", "axb8=Q+", "axb8=R+"
        ])
    );
}

#[test]
fn promotion_is_mandatory_fide_3_7_5() {
    let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        reason(&p, "a8"),
        "a pawn that reaches the last rank must be promoted to a queen, rook, bishop or knight (FIDE Laws 3.7.5.1): add =Q, =R, =B or =N"
    );
    assert_eq!(
        reason(&p, "a7a8"),
        "a pawn that reaches the last rank must be promoted to a queen, rook, bishop or knight (FIDE Laws 3.7.5.1)"
    );
    assert_eq!(
        reason(&p, "a7a8k"),
        "a pawn promotes to a queen, rook, bishop or knight only (FIDE Laws 3.7.5.1)"
    );
    let early = pos("4k3/8/P7/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        reason(&early, "a6a7q"),
        "a pawn promotes only on the last rank; a7 is not"
    );
}

// ---------------------------------------------------------------------------------------------
// Castling (FIDE Laws 3.8.2)
// ---------------------------------------------------------------------------------------------

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn castling_both_sides_fide_3_8_2() {
    let p = pos(CASTLING);
    let mut castles: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.is_castle())
        .map(|m| p.uci(m))
        .collect();
    castles.sort();
    assert_eq!(castles, strs(&["e1c1", "e1g1"]));
    assert_eq!(
        play(&p, "O-O").to_fen(),
        "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    );
    assert_eq!(
        play(&p, "O-O-O").to_fen(),
        "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"
    );
    let black = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(
        play(&black, "O-O").to_fen(),
        "r4rk1/8/8/8/8/8/8/R3K2R w KQ - 1 2"
    );
    assert_eq!(
        play(&black, "O-O-O").to_fen(),
        "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2"
    );
}

#[test]
fn castling_right_lost_after_king_moves_fide_3_8_2_1() {
    let p = play_all(CASTLING, &["Kf1", "Kf8", "Ke1", "Ke8"]);
    assert_eq!(p.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3");
    assert_eq!(
        reason(&p, "O-O"),
        "White has no castling right on the h-side (O-O): the king or that rook has moved (FIDE Laws 3.8.2.1)"
    );
    assert_eq!(
        reason(&p, "e1c1"),
        "White has no castling right on the a-side (O-O-O): the king or that rook has moved (FIDE Laws 3.8.2.1)"
    );
}

#[test]
fn castling_right_lost_after_rook_moves_fide_3_8_2_1() {
    let p = play_all(CASTLING, &["Rh2", "Ra7", "Rh1", "Ra8"]);
    assert_eq!(p.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 4 3");
    assert!(p.parse_move("O-O").is_err());
    assert_eq!(
        play(&p, "O-O-O").to_fen(),
        "r3k2r/8/8/8/8/8/8/2KR3R b k - 5 3"
    );
}

#[test]
fn castling_right_lost_when_the_rook_is_captured_fide_3_8_2_1() {
    let p = play(&pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), "Rxh1+");
    assert_eq!(p.to_fen(), "r3k3/8/8/8/8/8/8/R3K2r w Qq - 0 2");
}

#[test]
fn castling_needs_empty_squares_between_king_and_rook_fide_3_8_2_2() {
    let p = pos("r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1");
    assert!(p.legal_moves().iter().all(|m| !m.is_castle()));
    assert_eq!(
        reason(&p, "O-O"),
        "castling needs the squares between king and rook empty, but g1 holds a white knight (FIDE Laws 3.8.2.2)"
    );
    assert_eq!(
        reason(&p, "O-O-O"),
        "castling needs the squares between king and rook empty, but b1 holds a white knight (FIDE Laws 3.8.2.2)"
    );
}

#[test]
fn castling_not_out_of_check_fide_3_8_2_2() {
    let p = pos("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(p.legal_moves().iter().all(|m| !m.is_castle()));
    assert_eq!(
        reason(&p, "O-O"),
        "castling is not allowed while in check (FIDE Laws 3.8.2.2): the rook on e7 gives check"
    );
    assert_eq!(
        reason(&p, "e1c1"),
        "castling is not allowed while in check (FIDE Laws 3.8.2.2): the rook on e7 gives check"
    );
}

#[test]
fn castling_not_through_an_attacked_square_fide_3_8_2_2() {
    let p = pos("4k3/8/8/8/2b5/8/8/R3K2R w KQ - 0 1");
    assert_eq!(
        reason(&p, "O-O"),
        "castling through the attacked square f1, attacked by the bishop on c4 (FIDE Laws 3.8.2.2)"
    );
    assert_eq!(
        reason(&p, "e1h1"),
        "castling through the attacked square f1, attacked by the bishop on c4 (FIDE Laws 3.8.2.2)"
    );
    // The a-side is not affected.
    assert_eq!(
        play(&p, "O-O-O").to_fen(),
        "4k3/8/8/8/2b5/8/8/2KR3R b - - 1 1"
    );
}

#[test]
fn castling_not_into_check_fide_3_8_2_2() {
    let p = pos("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(
        reason(&p, "O-O"),
        "castling into check: the king would land on g1, attacked by the rook on g8"
    );
    assert!(p.parse_move("O-O-O").is_ok());
}

#[test]
fn castling_with_an_attacked_rook_is_legal_fide_3_8_2_2() {
    let p = pos("4k2r/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(play(&p, "O-O").to_fen(), "4k2r/8/8/8/8/8/8/R4RK1 b - - 1 1");
}

#[test]
fn castling_long_with_b1_attacked_is_legal_fide_3_8_2_2() {
    // Only the king's squares (e1, d1, c1) must be safe; the rook crosses b1.
    let p = pos("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(
        play(&p, "O-O-O").to_fen(),
        "1r2k3/8/8/8/8/8/8/2KR3R b - - 1 1"
    );
}

// ---------------------------------------------------------------------------------------------
// Check, pins and evasions (FIDE Laws 3.9)
// ---------------------------------------------------------------------------------------------

#[test]
fn pinned_piece_may_move_only_along_the_pin_line_fide_3_9_2() {
    let rook = pos("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1");
    assert_eq!(targets(&rook, "e2"), strs(&["e3", "e4", "e5", "e6", "e7"]));
    let bishop = pos("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
    assert_eq!(targets(&bishop, "e2"), Vec::<String>::new());
    let pawn = pos("4k3/4r3/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(targets(&pawn, "e2"), strs(&["e3", "e4"]));
    let pawn_diagonal = pos("4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1");
    assert_eq!(sans_from(&pawn_diagonal, "d2"), strs(&["dxc3"]));
}

#[test]
fn a_pawn_push_that_leaves_the_king_in_check_names_the_check_only_fide_3_9_2() {
    // 1. e4 f6 2. Qh5+: b6 is a push of the b-pawn, not a capture by the a- or c-pawn.
    let p = pos("rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2");
    assert_eq!(
        reason(&p, "b6"),
        "Black is in check from the queen on h5, and this move does not parry it (FIDE Laws 3.9.2)"
    );
}

#[test]
fn pinned_knight_cannot_move_and_the_reason_names_the_pin_fide_3_9_2() {
    let p = pos("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1");
    assert_eq!(targets(&p, "d2"), Vec::<String>::new());
    assert_eq!(
        reason(&p, "Nf3"),
        "the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)"
    );
    assert_eq!(
        reason(&p, "d2f3"),
        "the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)"
    );
    let err = p.parse_move("Nf3").unwrap_err();
    assert_eq!(err.kind(), "illegal");
    assert_eq!(
        err.to_string(),
        "'Nf3' is illegal: the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)"
    );
}

#[test]
fn no_piece_on_the_from_square_fide_3_1() {
    let p = Position::startpos();
    assert_eq!(reason(&p, "e3e4"), "no piece on e3");
}

#[test]
fn king_may_not_move_into_check_fide_3_9_2() {
    let p = pos("4k3/8/8/8/8/8/r7/4K3 w - - 0 1");
    assert_eq!(
        reason(&p, "Ke2"),
        "the king would be in check on e2 from the rook on a2 (FIDE Laws 3.9.2)"
    );
    assert_eq!(targets(&p, "e1"), strs(&["d1", "f1"]));
}

#[test]
fn a_move_that_does_not_parry_check_is_illegal_fide_3_9_2() {
    let p = pos("4k3/4r3/8/8/8/8/P7/4K3 w - - 0 1");
    assert_eq!(
        reason(&p, "a3"),
        "White is in check from the rook on e7, and this move does not parry it (FIDE Laws 3.9.2)"
    );
}

#[test]
fn check_evasions_capture_block_or_king_move_fide_3_9_2() {
    // Rook e1 checks the king on h1: g1 is attacked, g2 and h2 are own pawns, so only the knight
    // capture, the knight block and the bishop block remain.
    let p = pos("4k3/8/8/8/8/3B1N2/6PP/4r2K w - - 0 1");
    assert!(p.is_check());
    assert_eq!(sans(&p), strs(&["Bf1", "Ng1", "Nxe1"]));
}

#[test]
fn double_check_allows_king_moves_only_fide_3_9() {
    // Rook e7 and knight d3 (discovered from e5) both check; the queen could take the knight.
    let p = pos("2k5/4r3/8/1Q6/8/3n4/8/R3K2R w KQ - 0 1");
    assert_eq!(p.checkers().count(), 2);
    assert_eq!(sans(&p), strs(&["Kd1", "Kd2", "Kf1"]));
    assert_eq!(
        reason(&p, "Qxd3"),
        "White is in check from the knight on d3, and this move does not parry it (FIDE Laws 3.9.2)"
    );
}

// ---------------------------------------------------------------------------------------------
// Checkmate, stalemate, dead position (FIDE Laws 5.1.1, 5.2.1, 5.2.2)
// ---------------------------------------------------------------------------------------------

#[test]
fn back_rank_checkmate_fide_5_1_1() {
    let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let m = p.parse_san("Ra8#", SanMode::Strict).unwrap();
    let after = p.play(&m);
    assert_eq!(after.status(), Status::Checkmate);
    assert!(after.is_checkmate());
    assert!(!after.is_stalemate());
    assert!(after.legal_moves().is_empty());
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &["Ra8#"]);
    let o = g.outcome().unwrap();
    assert_eq!(o.result, GameResult::WhiteWins);
    assert_eq!(o.termination, Termination::Checkmate);
    assert_eq!(o.article(), "5.1.1");
    assert_eq!(o.ply, 1);
}

#[test]
fn fools_mate_black_wins_fide_5_1_1() {
    let g = game(STARTING_FEN, &["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(
        g.position().to_fen(),
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::BlackWins, Termination::Checkmate, 4)
    );
    assert_eq!(o.result.as_pgn(), "0-1");
}

#[test]
fn stalemate_fide_5_2_1() {
    let p = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(p.status(), Status::Stalemate);
    assert!(!p.is_check());
    let g = Game::new(p);
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::Stalemate, 0)
    );
    assert_eq!(o.article(), "5.2.1");
    // Reached by a move: Qb6 leaves the king on a8 without a move and not in check.
    let g = game("k7/8/8/2Q5/8/8/8/1K6 w - - 0 1", &["Qb6"]);
    let o = g.outcome().unwrap();
    assert_eq!((o.termination, o.ply), (Termination::Stalemate, 1));
    assert_eq!(o.result.as_pgn(), "1/2-1/2");
}

#[test]
fn insufficient_material_king_against_king_fide_5_2_2() {
    assert!(pos("8/8/8/4k3/8/8/8/4K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn insufficient_material_king_and_bishop_against_king_fide_5_2_2() {
    assert!(pos("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1").is_insufficient_material());
    assert!(pos("8/8/8/4k3/8/8/8/4K3 w - - 0 1").is_insufficient_material());
    assert!(pos("8/8/8/4k3/8/8/8/b3K3 b - - 0 1").is_insufficient_material());
}

#[test]
fn insufficient_material_king_and_knight_against_king_fide_5_2_2() {
    assert!(pos("8/8/8/4k3/8/8/8/1N2K3 w - - 0 1").is_insufficient_material());
    assert!(pos("8/8/8/4k1n1/8/8/8/4K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn insufficient_material_bishops_all_on_one_colour_fide_5_2_2() {
    // c1 and f8 are both dark squares; so are e3 and b6.
    assert!(pos("5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1").is_insufficient_material());
    assert!(pos("5b2/8/1b6/4k3/8/4B3/8/2B1K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn sufficient_material_knight_against_knight_fide_5_2_2() {
    assert!(!pos("6n1/8/8/4k3/8/8/8/1N2K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn sufficient_material_bishops_on_opposite_colours_fide_5_2_2() {
    // c1 is dark, c8 is light.
    assert!(!pos("2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn sufficient_material_with_any_pawn_rook_or_queen_fide_5_2_2() {
    assert!(!pos("8/8/8/4k3/8/8/P7/4K3 w - - 0 1").is_insufficient_material());
    assert!(!pos("8/p7/8/4k3/8/8/8/4K3 w - - 0 1").is_insufficient_material());
    assert!(!pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1").is_insufficient_material());
    assert!(!pos("8/8/8/4k3/8/8/8/3QK3 w - - 0 1").is_insufficient_material());
    // Two knights can mate only with help, but mate is possible: not dead.
    assert!(!pos("8/8/8/4k3/8/8/8/1N2KN2 w - - 0 1").is_insufficient_material());
    assert!(!pos("8/8/8/4k3/8/8/8/1NB1K3 w - - 0 1").is_insufficient_material());
}

#[test]
fn dead_position_ends_the_game_fide_5_2_2() {
    let g = Game::new(pos("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1"));
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::InsufficientMaterial, 0)
    );
    assert_eq!(o.article(), "5.2.2");
    let g = game("8/8/8/4k3/8/8/3q4/4K3 w - - 0 1", &["Kxd2"]);
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.termination, o.ply),
        (Termination::InsufficientMaterial, 1)
    );
}

// ---------------------------------------------------------------------------------------------
// FEN validation: one case per FenError variant, with the exact reason
// ---------------------------------------------------------------------------------------------

#[test]
fn fen_too_long() {
    let fen = format!("{STARTING_FEN}{}", " ".repeat(10) + &"x".repeat(300));
    assert_eq!(
        fen_error(&fen),
        "FEN is 366 bytes long, more than the limit of 256"
    );
    assert!(matches!(
        Position::from_fen(&fen),
        Err(FenError::Syntax(FenSyntaxError::TooLong(366)))
    ));
}

#[test]
fn fen_field_count() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w"),
        "FEN has 2 fields, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra"),
        "FEN has 7 fields, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)"
    );
    // Four fields are accepted, with the clocks defaulting to 0 and 1.
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/4K3 b - -").to_fen(),
        "4k3/8/8/8/8/8/8/4K3 b - - 0 1"
    );
}

#[test]
fn fen_rank_count() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/4K3 w - - 0 1"),
        "piece placement has 7 ranks, expected 8"
    );
}

#[test]
fn fen_rank_length() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K4 w - - 0 1"),
        "rank 1 of the piece placement describes 9 squares, expected 8"
    );
    assert_eq!(
        fen_error("4k2/8/8/8/8/8/8/4K3 w - - 0 1"),
        "rank 8 of the piece placement describes 7 squares, expected 8"
    );
}

#[test]
fn fen_bad_piece_letter() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K2X w - - 0 1"),
        "bad piece letter 'X' in rank 1 of the piece placement"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K2x w - - 0 1"),
        "bad piece letter 'x' in rank 1 of the piece placement"
    );
}

#[test]
fn fen_bad_side_to_move() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 x - - 0 1"),
        "side to move is 'x', expected 'w' or 'b'"
    );
}

#[test]
fn fen_king_count_fide_2_2() {
    assert_eq!(
        fen_error("8/8/8/8/8/8/8/4K3 w - - 0 1"),
        "Black has 0 kings, expected exactly one"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/3KK3 w - - 0 1"),
        "White has 2 kings, expected exactly one"
    );
}

#[test]
fn fen_pawn_on_back_rank_fide_3_7() {
    assert_eq!(
        fen_error("4k2P/8/8/8/8/8/8/4K3 w - - 0 1"),
        "pawn on h8: pawns cannot stand on the first or last rank"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/p3K3 w - - 0 1"),
        "pawn on a1: pawns cannot stand on the first or last rank"
    );
}

#[test]
fn fen_too_many_pieces() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"),
        "White has too many pieces (10 pieces, 9 pawns) for a position reachable in a game"
    );
    // Eight pawns and two queens: one queen must be a promoted pawn.
    assert_eq!(
        fen_error("qq2k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1"),
        "Black's pieces need at least 1 promotion(s) (more than one queen, two rooks, two knights or one bishop per square colour), but only 0 of its pawns are off the board"
    );
    // Six dark-squared bishops need five promotions; four pawns are gone (a chasolver position).
    assert_eq!(
        fen_error("8/b7/1b5p/2b2p1P/3b1p1K/4bPp1/6P1/5kb1 b - - 0 1"),
        "Black's pieces need at least 5 promotion(s) (more than one queen, two rooks, two knights or one bishop per square colour), but only 4 of its pawns are off the board"
    );
    // Permissive reading accepts it (perft suites).
    assert!(
        Position::from_fen_with(
            "qq2k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1",
            FenOptions {
                mode: CastlingMode::Standard,
                validation: arbiter_rules::Validation::PERFT_SUITE
            }
        )
        .is_ok()
    );
}

#[test]
fn fen_side_not_to_move_in_check_fide_3_9() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
        "Black is not to move but is in check"
    );
}

#[test]
fn fen_too_many_checkers() {
    assert_eq!(
        fen_error("4k3/8/8/8/7b/3n4/8/r3K3 w - - 0 1"),
        "3 pieces give check; at most two can"
    );
}

#[test]
fn fen_impossible_double_check() {
    assert_eq!(
        fen_error("4k3/8/8/8/7b/8/8/r3K3 w - - 0 1"),
        "impossible check: no single move gives double check from a1 and h4"
    );
}

#[test]
fn fen_impossible_check_after_double_step() {
    // The last move was e7-e5, yet the rook on a1 checks along the first rank.
    assert_eq!(
        fen_error("4k3/8/8/4p3/8/8/8/r3K3 w - e6 0 1"),
        "impossible check: the rook on a1 gives check, but the last move was the double step to e5"
    );
}

#[test]
fn fen_bad_castling_field() {
    assert_eq!(
        fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1"),
        "bad castling field 'KQkx'"
    );
    assert_eq!(
        fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1"),
        "bad castling field 'KK'"
    );
    assert_eq!(
        fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1"),
        "bad castling field 'KQkqK'"
    );
}

#[test]
fn fen_castling_right_without_king_and_rook_fide_3_8_2_1() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
        "castling right 'K' needs a white rook on h1"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/3K3R w K - 0 1"),
        "castling right 'K' needs the white king on e1"
    );
    assert_eq!(
        fen_error("4k2r/8/8/8/8/8/8/4K3 w q - 0 1"),
        "castling right 'q' needs a black rook on a8"
    );
}

#[test]
fn fen_bad_en_passant_field() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w - e4 0 1"),
        "bad en passant field 'e4'"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w - z9 0 1"),
        "bad en passant field 'z9'"
    );
}

#[test]
fn fen_en_passant_without_double_step_fide_3_7_3_1() {
    assert_eq!(
        fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1"),
        "en passant square e6 is not behind a pawn that just made a double step"
    );
}

#[test]
fn fen_bad_clock() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w - - -1 1"),
        "halfmove clock is '-1', expected a whole number from 0 to 10000"
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/4K3 w - - 0 0"),
        "fullmove number is '0', expected a whole number from 1 to 100000"
    );
}

#[test]
fn fen_en_passant_square_is_written_only_when_a_capture_is_legal_fide_9_2_3() {
    let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(
        p.to_fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(p.ep_square(), None);
}

// ---------------------------------------------------------------------------------------------
// SAN output (FIDE Laws Appendix C)
// ---------------------------------------------------------------------------------------------

#[test]
fn san_disambiguates_by_file_fide_appendix_c() {
    let p = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    assert_eq!(
        sans(&p)
            .into_iter()
            .filter(|s| s.contains("d2"))
            .collect::<Vec<_>>(),
        strs(&["Kd2", "Nbd2", "Nfd2"])
    );
}

#[test]
fn san_disambiguates_by_rank_fide_appendix_c() {
    let p = pos("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    let to_a3: Vec<String> = sans(&p).into_iter().filter(|s| s.ends_with("a3")).collect();
    assert_eq!(to_a3, strs(&["R1a3", "R5a3"]));
}

#[test]
fn san_disambiguates_by_file_and_rank_fide_appendix_c() {
    let p = pos("6k1/8/8/8/8/Q7/8/Q1Q4K w - - 0 1");
    let to_b2: Vec<String> = sans(&p).into_iter().filter(|s| s.ends_with("b2")).collect();
    assert_eq!(to_b2, strs(&["Q3b2", "Qa1b2", "Qcb2"]));
    for san in ["Q3b2", "Qa1b2", "Qcb2"] {
        let m = p.parse_san(san, SanMode::Strict).unwrap();
        assert_eq!(p.san(&m), san);
    }
}

#[test]
fn san_pinned_knight_does_not_force_disambiguation_fide_appendix_c() {
    let p = pos("4k3/8/8/8/1b6/8/3N4/4K1N1 w - - 0 1");
    let m = p.parse_move("g1f3").unwrap();
    assert_eq!(p.san(&m), "Nf3");
    assert_eq!(p.parse_san("Ngf3", SanMode::Tolerant).unwrap(), m);
    assert_eq!(
        p.parse_san("Ngf3", SanMode::Strict).unwrap_err(),
        MoveError::NotStrict {
            text: "Ngf3".to_string(),
            canonical: "Nf3".to_string()
        }
    );
}

#[test]
fn san_check_mate_promotion_and_castling_suffixes_fide_appendix_c() {
    let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert!(sans(&p).contains(&"Ra8#".to_string()));
    let q = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert!(sans(&q).contains(&"a8=Q+".to_string()));
    let c = pos(CASTLING);
    let castles: Vec<String> = sans(&c)
        .into_iter()
        .filter(|s| s.starts_with('O'))
        .collect();
    assert_eq!(castles, strs(&["O-O", "O-O-O"]));
    // Castling that gives check.
    let check = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert!(sans(&check).contains(&"O-O+".to_string()));
}

#[test]
fn san_startpos_moves() {
    assert_eq!(
        sans(&Position::startpos()),
        strs(&[
            "Na3", "Nc3", "Nf3", "Nh3", "a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4",
            "f3", "f4", "g3", "g4", "h3", "h4"
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// SAN input: tolerant and strict
// ---------------------------------------------------------------------------------------------

fn uci_of(p: &Position, text: &str, mode: SanMode) -> String {
    let m = p
        .parse_san(text, mode)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    p.uci(&m)
}

fn not_strict(p: &Position, text: &str) -> String {
    match p.parse_san(text, SanMode::Strict) {
        Err(e @ MoveError::NotStrict { .. }) => e.reason(),
        other => panic!("{text}: expected NotStrict, got {other:?}"),
    }
}

#[test]
fn san_tolerant_castling_with_zeros() {
    let p = pos(CASTLING);
    assert_eq!(uci_of(&p, "0-0", SanMode::Tolerant), "e1g1");
    assert_eq!(uci_of(&p, "0-0-0", SanMode::Tolerant), "e1c1");
    assert_eq!(uci_of(&p, "O-O", SanMode::Strict), "e1g1");
    assert_eq!(not_strict(&p, "0-0"), "not strict SAN: write 'O-O'");
    assert_eq!(not_strict(&p, "0-0-0"), "not strict SAN: write 'O-O-O'");
}

#[test]
fn san_tolerant_promotion_spellings_fide_3_7_5() {
    let p = pos("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    for text in ["e8=Q", "e8Q", "e8/Q", "e8(Q)"] {
        assert_eq!(uci_of(&p, text, SanMode::Tolerant), "e7e8q", "{text}");
    }
    assert_eq!(uci_of(&p, "e8=N", SanMode::Tolerant), "e7e8n");
    assert_eq!(uci_of(&p, "e8N", SanMode::Tolerant), "e7e8n");
    assert_eq!(uci_of(&p, "e8=Q", SanMode::Strict), "e7e8q");
    assert_eq!(not_strict(&p, "e8Q"), "not strict SAN: write 'e8=Q'");
}

#[test]
fn san_tolerant_check_and_mate_suffixes() {
    let p = play_all(STARTING_FEN, &["f3", "e5", "g4"]);
    for text in ["Qh4#", "Qh4", "Qh4+", "Qh4#!", "Qd8h4#"] {
        assert_eq!(uci_of(&p, text, SanMode::Tolerant), "d8h4", "{text}");
    }
    assert_eq!(uci_of(&p, "Qh4#", SanMode::Strict), "d8h4");
    assert_eq!(not_strict(&p, "Qh4"), "not strict SAN: write 'Qh4#'");
    assert_eq!(not_strict(&p, "Qh4+"), "not strict SAN: write 'Qh4#'");
    let s = Position::startpos();
    assert_eq!(uci_of(&s, "e4+", SanMode::Tolerant), "e2e4");
    assert_eq!(not_strict(&s, "e4+"), "not strict SAN: write 'e4'");
}

#[test]
fn san_tolerant_long_algebraic_and_annotations() {
    let s = Position::startpos();
    for text in ["Nf3", "Ng1f3", "Ng1-f3", "Nf3!?", "Nf3!", "Ngf3", "N1f3"] {
        assert_eq!(uci_of(&s, text, SanMode::Tolerant), "g1f3", "{text}");
    }
    assert_eq!(not_strict(&s, "Ng1f3"), "not strict SAN: write 'Nf3'");
    assert_eq!(not_strict(&s, "Ng1-f3"), "not strict SAN: write 'Nf3'");
    assert_eq!(not_strict(&s, "Nf3!?"), "not strict SAN: write 'Nf3'");
}

#[test]
fn san_tolerant_en_passant_marker_fide_3_7_3_1() {
    let p = play_all(STARTING_FEN, &["e4", "a6", "e5", "d5"]);
    for text in ["exd6", "exd6 e.p.", "exd6e.p.", "exd6ep", "ed6", "e5d6"] {
        assert_eq!(uci_of(&p, text, SanMode::Tolerant), "e5d6", "{text}");
    }
    assert_eq!(not_strict(&p, "exd6 e.p."), "not strict SAN: write 'exd6'");
}

#[test]
fn san_ambiguous_is_an_error_fide_appendix_c() {
    let p = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    let err = p.parse_san("Nd2", SanMode::Tolerant).unwrap_err();
    assert_eq!(err.kind(), "ambiguous");
    assert_eq!(err.reason(), "ambiguous: it fits Nbd2, Nfd2");
    assert_eq!(err.to_string(), "'Nd2' is ambiguous: it fits Nbd2, Nfd2");
    assert!(p.parse_san("Nd2", SanMode::Strict).is_err());
}

#[test]
fn san_syntax_errors() {
    let s = Position::startpos();
    let err = s.parse_move("Zf3").unwrap_err();
    assert_eq!(err.kind(), "syntax");
    assert_eq!(err.reason(), "'Z' is not a piece letter (K Q R B N)");
    let err = s.parse_move("").unwrap_err();
    assert_eq!(err.reason(), "empty move");
    let err = s.parse_move("0000").unwrap_err();
    assert_eq!(err.reason(), "the null move 0000 is not a legal move");
}

// ---------------------------------------------------------------------------------------------
// UCI
// ---------------------------------------------------------------------------------------------

#[test]
fn uci_standard_castling_accepts_king_two_squares_and_king_takes_rook_fide_3_8_2() {
    let p = pos(CASTLING);
    let a = p.parse_uci("e1g1").unwrap();
    let b = p.parse_uci("e1h1").unwrap();
    assert_eq!(a, b);
    assert!(a.is_castle());
    assert_eq!(p.uci(&a), "e1g1");
    let c = p.parse_uci("e1c1").unwrap();
    assert_eq!(c, p.parse_uci("e1a1").unwrap());
    assert_eq!(p.uci(&c), "e1c1");
    assert_eq!(p.san(&c), "O-O-O");
}

#[test]
fn uci_chess960_castling_is_king_takes_rook_fide_3_8_2() {
    let p = pos960(CASTLING);
    let m = p.parse_uci("e1h1").unwrap();
    assert!(m.is_castle());
    assert_eq!(p.uci(&m), "e1h1");
    assert_eq!(p.san(&m), "O-O");
    assert!(p.parse_uci("e1g1").is_err());
    assert_eq!(p.play(&m).to_fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    // A Chess960 start position: king b1, rooks a1 and c1 (king and rook swap on the a-side).
    let q = pos960("1rk1qbnr/pppppppp/8/8/8/8/PPPPPPPP/1RK1QBNR w KQkq - 0 1");
    let long = q.parse_san("O-O-O", SanMode::Strict).unwrap();
    assert_eq!(q.uci(&long), "c1b1");
    assert_eq!(
        q.play(&long).to_fen(),
        "1rk1qbnr/pppppppp/8/8/8/8/PPPPPPPP/2KRQBNR b kq - 1 1"
    );
}

#[test]
fn uci_promotion_and_round_trip() {
    let p = pos("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let m = p.parse_uci("a7b8n").unwrap();
    assert_eq!(m.promotion, Some(arbiter_rules::Role::Knight));
    assert_eq!(p.san(&m), "axb8=N");
    assert_eq!(p.uci(&m), "a7b8n");
    let err = p.parse_uci("a7b8Q").unwrap_err();
    assert_eq!(err.kind(), "syntax");
}

// ---------------------------------------------------------------------------------------------
// Zobrist keys (Polyglot layout; en passant only when legal, FIDE Laws 9.2.3)
// ---------------------------------------------------------------------------------------------

/// Keys published in the Polyglot book format specification (book_format.html, "test keys").
#[test]
fn zobrist_polyglot_published_keys_fide_9_2_3() {
    let mut p = Position::startpos();
    assert_eq!(p.zobrist(), 0x463b_9618_1691_fc9c);
    let expected: [(&str, u64); 6] = [
        ("e2e4", 0x823c_9b50_fd11_4196),
        ("d7d5", 0x0756_b944_61c5_0fb0),
        ("e4e5", 0x662f_afb9_65db_29d4),
        ("f7f5", 0x22a4_8b5a_8e47_ff78),
        ("e1e2", 0x652a_607c_a3f2_42c1),
        ("e8f7", 0x00fd_d303_c946_bdd9),
    ];
    for (uci, key) in expected {
        p = play(&p, uci);
        assert_eq!(p.zobrist(), key, "after {uci}");
        assert_eq!(p.compute_key(), key, "after {uci} (from scratch)");
    }
    let mut p = Position::startpos();
    for uci in ["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"] {
        p = play(&p, uci);
    }
    assert_eq!(p.zobrist(), 0x3c81_23ea_7b06_7637);
    for uci in ["b4c3", "a1a3"] {
        p = play(&p, uci);
    }
    assert_eq!(p.zobrist(), 0x5c3f_9b82_9b27_9560);
}

#[test]
fn zobrist_published_keys_from_fen() {
    let cases: [(&str, u64); 4] = [
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            0x823c_9b50_fd11_4196,
        ),
        (
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            0x22a4_8b5a_8e47_ff78,
        ),
        (
            "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
            0x3c81_23ea_7b06_7637,
        ),
        (
            "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
            0x5c3f_9b82_9b27_9560,
        ),
    ];
    for (fen, key) in cases {
        assert_eq!(pos(fen).zobrist(), key, "{fen}");
    }
}

#[test]
fn zobrist_omits_en_passant_when_the_capture_is_illegal_fide_9_2_3() {
    // Polyglot (and python-chess 1.11.2's zobrist_hash) would hash the c-file here, giving
    // 0xf008b0d4b67d65ee; the capture bxc6 exposes the king, so our key has no en passant part.
    let with_ep = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 2");
    let without = pos("8/8/8/KPp4r/8/8/8/7k w - - 0 2");
    assert_eq!(with_ep.zobrist(), 0xf032_230c_04fd_0c8c);
    assert_eq!(with_ep.zobrist(), without.zobrist());
    assert_ne!(with_ep.zobrist(), 0xf008_b0d4_b67d_65ee);
    // And when the double step is played.
    let played = play(&pos("8/2p5/8/KP5r/8/8/8/7k b - - 0 1"), "c5");
    assert_eq!(played.zobrist(), 0xf032_230c_04fd_0c8c);
    assert_eq!(played.compute_key(), played.zobrist());
}

// ---------------------------------------------------------------------------------------------
// Game: repetitions, claims, the 50- and 75-move rules (FIDE Laws 9.2, 9.3, 9.6)
// ---------------------------------------------------------------------------------------------

const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

fn shuffles(n: usize) -> Vec<&'static str> {
    SHUFFLE.iter().copied().cycle().take(n).collect()
}

#[test]
fn fivefold_repetition_ends_the_game_fide_9_6_1() {
    let g = game(STARTING_FEN, &shuffles(15));
    assert_eq!(g.outcome(), None);
    let g = game(STARTING_FEN, &shuffles(16));
    assert_eq!(g.repetitions(), 5);
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::FivefoldRepetition, 16)
    );
    assert_eq!(o.article(), "9.6.1");
    assert!(g.claims().is_empty());
    // Moves after the end are still recorded.
    let mut g = g;
    g.push("e4").unwrap();
    assert_eq!(g.plies_after_end(), 1);
    assert_eq!(g.outcome().unwrap().ply, 16);
}

#[test]
fn moves_after_the_end_are_counted_in_the_verdict_fide_9_6_1() {
    let request = AdjudicationRequest {
        event: None,
        claim_draw: false,
        budget: AnalysisBudget::Material,
    };
    let mut g = game(STARTING_FEN, &shuffles(16));
    g.push("e4").unwrap();
    let verdict = adjudicate(&g, &request);
    assert_eq!(verdict.plies_after_end, 1);
    assert_eq!(
        verdict.explanation,
        "fivefold repetition at ply 16 (FIDE Laws 9.6.1); 1 ply was played after the end of the game"
    );
    g.push("e5").unwrap();
    let verdict = adjudicate(&g, &request);
    assert_eq!(verdict.plies_after_end, 2);
    assert!(
        verdict
            .explanation
            .ends_with("; 2 plies were played after the end of the game"),
        "{}",
        verdict.explanation
    );
}

#[test]
fn threefold_repetition_claimable_now_fide_9_2_1_2() {
    let g = game(STARTING_FEN, &shuffles(8));
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), None);
    assert_eq!(
        g.claims().first(),
        Some(&Claim {
            kind: ClaimKind::ThreefoldRepetition,
            by_move: None
        })
    );
    let o = g.claim_draw().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::ThreefoldRepetition, 8)
    );
    assert_eq!(o.article(), "9.2");
    // Not yet after one repetition.
    let g = game(STARTING_FEN, &shuffles(4));
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.claim_draw(), None);
}

#[test]
fn threefold_repetition_claimable_by_announcing_the_move_fide_9_2_1_1() {
    let g = game(STARTING_FEN, &shuffles(7));
    let ng8 = g.position().parse_move("Ng8").unwrap();
    assert_eq!(
        g.claims(),
        vec![Claim {
            kind: ClaimKind::ThreefoldRepetition,
            by_move: Some(ng8)
        }]
    );
    assert_eq!(g.claim_draw(), None);
}

#[test]
fn fifty_move_rule_claim_fide_9_3() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 99 80";
    let g = Game::new(pos(fen));
    let claims = g.claims();
    assert!(claims.iter().all(|c| c.by_move.is_some()));
    let ra2 = g.position().parse_move("Ra2").unwrap();
    assert!(claims.contains(&Claim {
        kind: ClaimKind::FiftyMoveRule,
        by_move: Some(ra2)
    }));
    assert_eq!(g.claim_draw(), None);
    let g = game(fen, &["Ra2"]);
    assert_eq!(g.position().halfmove_clock(), 100);
    assert_eq!(
        g.claims().first(),
        Some(&Claim {
            kind: ClaimKind::FiftyMoveRule,
            by_move: None
        })
    );
    let o = g.claim_draw().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::FiftyMoveRule, 1)
    );
    assert_eq!(o.article(), "9.3");
}

#[test]
fn fifty_move_claim_not_by_a_capture_or_pawn_move_fide_9_3() {
    let g = Game::new(pos("4k3/8/8/8/8/1n6/P7/R3K3 w - - 99 80"));
    let axb3 = g.position().parse_move("axb3").unwrap();
    let a3 = g.position().parse_move("a3").unwrap();
    let claims = g.claims();
    assert!(!claims.iter().any(|c| c.by_move == Some(axb3)));
    assert!(!claims.iter().any(|c| c.by_move == Some(a3)));
    let kf1 = g.position().parse_move("Kf1").unwrap();
    assert!(claims.contains(&Claim {
        kind: ClaimKind::FiftyMoveRule,
        by_move: Some(kf1)
    }));
}

#[test]
fn seventy_five_move_rule_ends_the_game_fide_9_6_2() {
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100", &["Rb1"]);
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::Draw, Termination::SeventyFiveMoveRule, 1)
    );
    assert_eq!(o.article(), "9.6.2");
}

#[test]
fn seventy_five_move_rule_yields_to_checkmate_on_the_last_move_fide_9_6_2() {
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100", &["Ra8#"]);
    assert_eq!(g.position().halfmove_clock(), 150);
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.termination, o.ply),
        (GameResult::WhiteWins, Termination::Checkmate, 1)
    );
}

/// Issue 27 item 9: no move follows the end of a game. Checkmate, stalemate and a dead position
/// "immediately end the game" (FIDE Laws 5.1.1, 5.2.1, 5.2.2), fivefold repetition and the
/// 75-move rule draw it (9.6.1, 9.6.2): `Game::play_next` refuses the next move, legal or not,
/// naming the ending (cause GAME_OVER, the ending's article), where a move after mate was
/// refused as "does not parry the check". The game is left as it was.
#[test]
fn r_no_move_follows_the_end_of_the_game_fide_5_1_1_5_2_1_5_2_2_9_6_1_9_6_2() {
    let shuffle16 = shuffles(16);
    // (start, moves, budget, next move, the refusal, article, ply of the ending)
    type Case<'a> = (
        &'a str,
        &'a [&'a str],
        AnalysisBudget,
        &'a str,
        &'a str,
        &'a str,
        usize,
    );
    let cases: [Case; 8] = [
        (
            STARTING_FEN,
            &["f3", "e5", "g4", "Qh4#"],
            AnalysisBudget::Material,
            "Ke2",
            "the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)",
            "5.1.1",
            4,
        ),
        (
            "7k/8/6K1/5Q2/8/8/8/8 w - - 0 1",
            &["Qf7"],
            AnalysisBudget::Material,
            "Kh7",
            "the game ended at ply 1 (stalemate, FIDE Laws 5.2.1)",
            "5.2.1",
            1,
        ),
        (
            "8/8/8/4k3/8/8/3q4/4K3 w - - 0 1",
            &["Kxd2"],
            AnalysisBudget::Material,
            "Ke6",
            "the game ended at ply 1 (dead position (insufficient material), FIDE Laws 5.2.2)",
            "5.2.2",
            1,
        ),
        // Black's only move Kxh7 leaves two kings: dead at ply 1, and Kxh7 is refused.
        (
            "5K1k/7P/8/8/8/8/8/8 w - - 0 1",
            &["f8f7"],
            AnalysisBudget::Full,
            "Kxh7",
            "the game ended at ply 1 (dead position, FIDE Laws 5.2.2)",
            "5.2.2",
            1,
        ),
        (
            STARTING_FEN,
            &shuffle16,
            AnalysisBudget::Material,
            "e4",
            "the game ended at ply 16 (fivefold repetition, FIDE Laws 9.6.1)",
            "9.6.1",
            16,
        ),
        (
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100",
            &["Rb1"],
            AnalysisBudget::Material,
            "Kf8",
            "the game ended at ply 1 (75-move rule, FIDE Laws 9.6.2)",
            "9.6.2",
            1,
        ),
        (
            "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
            &[],
            AnalysisBudget::Material,
            "Kd2",
            "the game is over in its start position (dead position (insufficient material), FIDE Laws 5.2.2)",
            "5.2.2",
            0,
        ),
        (
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 150 100",
            &[],
            AnalysisBudget::Material,
            "Rb1",
            "the game is over in its start position (75-move rule, FIDE Laws 9.6.2)",
            "9.6.2",
            0,
        ),
    ];
    for (fen, moves, budget, next, refusal, article, ply) in cases {
        let mut g = Game::with_dead_position_analysis(pos(fen), budget);
        for m in moves {
            let parsed = g.position().parse_move(m);
            g.play_next(parsed)
                .unwrap_or_else(|e| panic!("{fen} {m}: {e}"));
        }
        let before = g.position().clone();
        let parsed = g.position().parse_move(next);
        let error = g.play_next(parsed).expect_err(refusal);
        assert_eq!(error.to_string(), refusal, "{fen} {next}");
        let NextMoveError::GameOver(over) = error else {
            panic!("{fen} {next}: {error:?}")
        };
        assert_eq!(
            (GameOver::CAUSE, over.article(), over.outcome.ply),
            ("GAME_OVER", article, ply),
            "{fen} {next}"
        );
        assert_eq!(Some(over.outcome), g.outcome());
        assert_eq!((g.position(), g.ply()), (&before, moves.len()));
    }
    // While the game goes on, an illegal move is refused for its own reason.
    let mut g = Game::new(pos(STARTING_FEN));
    let parsed = g.position().parse_move("Ke2");
    assert!(matches!(
        g.play_next(parsed),
        Err(NextMoveError::Move(MoveError::Illegal { .. }))
    ));
}

#[test]
fn repetition_requires_the_same_castling_rights_fide_9_2_3() {
    // Rook out and back: the placement returns, but both sides have lost their h-side right.
    let cycle = ["Rh2", "Rh7", "Rh1", "Rh8"];
    let moves: Vec<&str> = cycle.iter().copied().cycle().take(8).collect();
    let g = game(CASTLING, &moves);
    assert_eq!(g.position().board_fen(), pos(CASTLING).board_fen());
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.claim_draw(), None);
    let moves: Vec<&str> = cycle.iter().copied().cycle().take(12).collect();
    let g = game(CASTLING, &moves);
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.claim_draw().map(|o| o.termination),
        Some(Termination::ThreefoldRepetition)
    );
}

#[test]
fn repetition_requires_the_same_en_passant_possibility_fide_9_2_3() {
    // After 2...d5 White may capture en passant; after the knight shuffles the same placement
    // returns without that possibility, so it is a different position.
    let mut moves = vec!["e4", "Nf6", "e5", "d5"];
    let cycle = ["Nf3", "Nc6", "Ng1", "Nb8"];
    moves.extend(cycle.iter().copied().cycle().take(8));
    let g = game(STARTING_FEN, &moves);
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.claim_draw(), None);
    moves.extend(cycle);
    let g = game(STARTING_FEN, &moves);
    assert_eq!(g.repetitions(), 3);
    assert!(g.claim_draw().is_some());
}

#[test]
fn repetition_ignores_an_illegal_en_passant_fide_9_2_3() {
    // c7-c5 next to the pawn on b5 which may not capture (the king on a5 would be exposed): the
    // position after c5 is the same as after the knight shuffles bring it back.
    let moves = ["c5", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let g = game("6n1/2p5/8/KP5r/8/8/8/6Nk b - - 0 1", &moves);
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.claim_draw().map(|o| o.termination),
        Some(Termination::ThreefoldRepetition)
    );
}

#[test]
fn game_push_reports_the_ply_of_an_illegal_move() {
    let mut g = Game::new(Position::startpos());
    g.push("e4").unwrap();
    let err = g.push("e4").unwrap_err();
    assert_eq!(err.ply, 2);
    assert_eq!(err.error.kind(), "illegal");
    assert_eq!(err.to_string(), format!("ply 2 (e4): {}", err.error));
    assert_eq!(g.ply(), 1);
}

#[test]
fn moves_are_values_fide_3_10() {
    // Sanity of Move fields for a capture.
    let p = play_all(STARTING_FEN, &["e4", "d5"]);
    let m: Move = p.parse_move("exd5").unwrap();
    assert_eq!(m.from.to_string(), "e4");
    assert_eq!(m.to.to_string(), "d5");
    assert_eq!(m.capture, Some(arbiter_rules::Role::Pawn));
    assert!(m.is_capture() && !m.is_castle() && !m.is_en_passant());
}

// ---------------------------------------------------------------------------------------------
// Cases that currently fail because of bugs in src (see the report)
// ---------------------------------------------------------------------------------------------

#[test]
fn san_pawn_push_is_not_read_as_a_capture_fide_appendix_c() {
    // After 1.e4 d5 no white pawn can move straight to d5; "d5" must not silently become exd5
    // (Appendix C: a pawn capture names the file of departure).
    let p = play_all(STARTING_FEN, &["e4", "d5"]);
    let err = p.parse_san("d5", SanMode::Tolerant).unwrap_err();
    assert_eq!(err.kind(), "illegal");
    // The same with a promotion: "f8=Q" is not exf8=Q.
    let q = pos("5n1k/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(uci_of(&q, "exf8=Q", SanMode::Tolerant), "e7f8q");
    let err = q.parse_san("f8=Q", SanMode::Tolerant).unwrap_err();
    assert_eq!(err.kind(), "illegal");
}

#[test]
fn fen_malformed_castling_letter_is_a_bad_castling_field() {
    assert_eq!(
        fen_error("8/4k3/8/8/8/8/8/4K3 w 1 - 0 1"),
        "bad castling field '1'"
    );
}

#[test]
fn fen_written_after_a_move_reads_back_at_the_clock_limits() {
    let p = play(&pos("4k3/8/8/8/8/8/8/R3K3 b - - 10000 100000"), "Kd7");
    let fen = p.to_fen();
    assert_eq!(Position::from_fen(&fen).map(|q| q.to_fen()), Ok(fen));
}

/// One move per cause of an illegal move: position, from, to, promotion, cause, article. Shared
/// by the test of the causes and the golden file of their sentences.
pub(crate) type IllegalityCase = (
    &'static str,
    &'static str,
    &'static str,
    Option<arbiter_rules::Role>,
    &'static str,
    Option<&'static str>,
);

pub(crate) const ILLEGALITY_CASES: &[IllegalityCase] = &[
    (STARTING_FEN, "e3", "e4", None, "NO_PIECE", None),
    (
        STARTING_FEN,
        "e7",
        "e5",
        None,
        "NOT_YOUR_PIECE",
        Some("1.2"),
    ),
    (
        STARTING_FEN,
        "d1",
        "d2",
        None,
        "OWN_PIECE_ON_TARGET",
        Some("3.1.1"),
    ),
    (STARTING_FEN, "g1", "g3", None, "PIECE_PATTERN", Some("3.6")),
    (STARTING_FEN, "c1", "e3", None, "PATH_BLOCKED", Some("3.5")),
    (
        STARTING_FEN,
        "e2",
        "d3",
        None,
        "PAWN_CAPTURES_DIAGONALLY",
        Some("3.7.3"),
    ),
    (STARTING_FEN, "e2", "e5", None, "PAWN_PATTERN", Some("3.7")),
    (
        "4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1",
        "e2",
        "e3",
        None,
        "PAWN_BLOCKED",
        Some("3.7.1"),
    ),
    (
        "4k3/8/8/8/8/4P3/8/4K3 w - - 0 1",
        "e3",
        "e5",
        None,
        "PAWN_DOUBLE_STEP",
        Some("3.7.2"),
    ),
    (
        "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1",
        "e2",
        "e4",
        None,
        "PAWN_JUMPS",
        Some("3.7.2"),
    ),
    (
        "k7/4P3/8/8/8/8/8/4K3 w - - 0 1",
        "e7",
        "e8",
        None,
        "PROMOTION_REQUIRED",
        Some("3.7.5.1"),
    ),
    (
        "k7/4P3/8/8/8/8/8/4K3 w - - 0 1",
        "e7",
        "e8",
        Some(arbiter_rules::Role::King),
        "PROMOTION_PIECE",
        Some("3.7.5.1"),
    ),
    (
        "k7/8/4P3/8/8/8/8/4K3 w - - 0 1",
        "e6",
        "e7",
        Some(arbiter_rules::Role::Queen),
        "PROMOTION_NOT_ON_LAST_RANK",
        Some("3.7.5.1"),
    ),
    (
        "1k6/8/8/8/8/8/8/R3K3 w - - 0 1",
        "a1",
        "a2",
        Some(arbiter_rules::Role::Queen),
        "PROMOTION_NOT_A_PAWN",
        Some("3.7.5.1"),
    ),
    (
        "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
        "d2",
        "f3",
        None,
        "PINNED",
        Some("3.9.2"),
    ),
    (
        "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1",
        "e1",
        "d1",
        None,
        "KING_INTO_CHECK",
        Some("3.9.2"),
    ),
    (
        "4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1",
        "a1",
        "a2",
        None,
        "CHECK_NOT_PARRIED",
        Some("3.9.2"),
    ),
    (
        "4k3/8/8/8/8/8/8/R3K2R w - - 0 1",
        "e1",
        "g1",
        None,
        "NO_CASTLING_RIGHT",
        Some("3.8.2.1"),
    ),
    (
        "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1",
        "e1",
        "g1",
        None,
        "CASTLING_IN_CHECK",
        Some("3.8.2.2"),
    ),
    (
        "4k3/8/8/8/8/8/8/R3KB1R w KQ - 0 1",
        "e1",
        "g1",
        None,
        "CASTLING_PATH_BLOCKED",
        Some("3.8.2.2"),
    ),
    (
        "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "e1",
        "g1",
        None,
        "CASTLING_THROUGH_ATTACK",
        Some("3.8.2.2"),
    ),
    (
        "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "e1",
        "g1",
        None,
        "CASTLING_INTO_CHECK",
        Some("3.8.2.2"),
    ),
    (
        "7k/8/8/KPp4r/8/8/8/8 w - - 0 2",
        "b5",
        "c6",
        None,
        "EN_PASSANT_EXPIRED",
        Some("3.7.3.2"),
    ),
    (
        "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
        "b5",
        "c6",
        None,
        "EN_PASSANT_EXPOSES_KING",
        Some("3.9.2"),
    ),
    (STARTING_FEN, "e2", "e4", None, "LEGAL", None),
];

/// Issue 12 item 2: every cause of an illegal move is a value with a stable cause and its FIDE
/// article (the sentences are checked elsewhere). One case per cause that a move between two
/// squares can have.
#[test]
fn illegal_moves_have_typed_causes_with_their_articles() {
    use arbiter_rules::{Illegality, Role, Square};
    let sq = |name: &str| Square::from_name(name).expect("a square");
    for &(fen, from, to, promotion, cause, article) in ILLEGALITY_CASES {
        let position = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let why: Illegality = position.explain_illegal(sq(from), sq(to), promotion);
        assert_eq!(
            (why.cause(), why.article()),
            (cause, article),
            "{fen} {from}{to}: {why}"
        );
    }
    // Through the SAN reader: the reason is the same value.
    let position = Position::from_fen("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1").expect("valid");
    let error = position.parse_move("Nf3").expect_err("pinned");
    let why = error.illegality().expect("illegal, not a syntax error");
    assert!(
        matches!(
            why,
            Illegality::Pinned {
                role: Role::Knight,
                ..
            }
        ),
        "{why:?}"
    );
    assert_eq!(why.article(), Some("3.9.2"));
}
