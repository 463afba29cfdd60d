//! Chess960 (FIDE Laws, Guidelines on Chess960): the start-position numbering, castling in all
//! its edge cases, X-FEN and Shredder-FEN, UCI king-takes-rook, and Zobrist keys after castling.
//!
//! Castling in Chess960 (Guidelines on Chess960, and FIDE Laws 3.8.2): the king ends on the g-file
//! (h-side, `O-O`) or the c-file (a-side, `O-O-O`) and the castling rook on the f- or d-file.
//! Every square the king and the rook cross or land on must be empty except for these two pieces;
//! the king's start square, the squares it crosses and its destination must not be attacked (the
//! rook's may). Either piece may already stand on its destination and then does not move.

use arbiter_rules::{
    CastlingMode, CastlingRight, Color, FenError, FenOptions, MissingForCastling, Move, Position,
    PositionError, STARTING_FEN, Setup, SetupField, Square, Validation,
};

fn options960() -> FenOptions {
    FenOptions {
        mode: CastlingMode::Chess960,
        validation: arbiter_rules::Validation::STRICT,
    }
}

fn pos960(fen: &str) -> Position {
    Position::from_fen_with(fen, options960()).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sorted_uci(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.uci(m)).collect();
    v.sort();
    v
}

fn castles(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.is_castle())
        .map(|m| p.uci(m))
        .collect();
    v.sort();
    v
}

fn sq(name: &str) -> Square {
    Square::from_name(name).unwrap()
}

fn squares(b: arbiter_rules::Bitboard) -> Vec<String> {
    b.into_iter().map(|s| s.to_string()).collect()
}

/// Plays the castling move given as SAN; checks its SAN, its UCI, the incremental Zobrist key,
/// and returns the FEN after it.
fn castle(fen: &str, san: &str, uci: &str) -> String {
    let p = pos960(fen);
    let m = p
        .parse_move(san)
        .unwrap_or_else(|e| panic!("{fen} {san}: {e}"));
    assert!(m.is_castle(), "{fen} {san}");
    assert_eq!(p.uci(&m), uci, "{fen}");
    assert_eq!(p.san(&m), san, "{fen}");
    assert_eq!(p.parse_move(uci).unwrap(), m, "{fen} {uci}");
    let after = p.play(&m);
    assert_eq!(after.zobrist(), after.compute_key(), "{fen} {san}");
    after.to_fen()
}

fn reason(p: &Position, text: &str) -> String {
    p.parse_move(text)
        .map(|m| panic!("{text} parsed as {m:?}"))
        .unwrap_err()
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// (1) Numbering.
// ---------------------------------------------------------------------------------------------

fn back_rank(n: u32) -> String {
    let fen = Position::chess960(n).unwrap().board_fen();
    fen.rsplit('/').next().unwrap().to_string()
}

/// Number 518 is the standard start position (Scharnagl numbering, Wikipedia "Fischer random
/// chess numbering scheme": SP-518 = King's Table 512 `RNQKNR` + Bishop's Table 6 `--B--B--`).
#[test]
fn number_518_is_the_standard_start_position() {
    let p = Position::chess960(518).unwrap();
    assert_eq!(p.to_fen(), STARTING_FEN);
    assert_eq!(
        p.to_fen_with(true),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    );
    assert_eq!(p.castling_mode(), CastlingMode::Chess960);
    assert_eq!(p.zobrist(), 0x463b_9618_1691_fc9c);
    assert_eq!(p.legal_moves().len(), 20);
    assert_eq!(Position::startpos().chess960_number(), Some(518));
}

/// Published numbers. Sources: Rosetta Code task "Find Chess960 starting position identifier"
/// (QNRBBNKR = 105, RNBQKBNR = 518, RQNBBKRN = 601, RNQBBKRN = 617); number 0 (BBQNNRKR) and
/// 959 (RKRNNQBB) by the direct derivation of Wikipedia "Fischer random chess numbering scheme"
/// (light bishop b/d/f/h by N mod 4, dark bishop a/c/e/g, queen, knights by the N5N table, then
/// R K R).
#[test]
fn published_numbers() {
    for (n, rank) in [
        (0, "BBQNNRKR"),
        (1, "BQNBNRKR"),
        (105, "QNRBBNKR"),
        (518, "RNBQKBNR"),
        (601, "RQNBBKRN"),
        (617, "RNQBBKRN"),
        (959, "RKRNNQBB"),
    ] {
        assert_eq!(back_rank(n), rank, "SP-{n}");
        let p = Position::chess960(n).unwrap();
        assert_eq!(
            p.board_fen(),
            format!(
                "{}/pppppppp/8/8/8/8/PPPPPPPP/{rank}",
                rank.to_ascii_lowercase()
            )
        );
    }
    assert!(Position::chess960(960).is_none());
    assert!(Position::chess960(u32::MAX).is_none());
}

#[test]
fn all_960_distinct_and_number_round_trip() {
    let mut seen = std::collections::HashSet::new();
    for n in 0..960 {
        let p = Position::chess960(n).unwrap();
        assert!(seen.insert(back_rank(n)), "SP-{n} repeats");
        assert_eq!(p.chess960_number(), Some(n));
        // Read back from both FEN forms: still start position n.
        let x = pos960(&p.to_fen());
        assert_eq!(x.chess960_number(), Some(n));
        let s = pos960(&p.to_fen_with(true));
        assert_eq!(s.chess960_number(), Some(n));
        // All four rights on the outermost rooks, so X-FEN says KQkq.
        assert!(p.to_fen().ends_with(" w KQkq - 0 1"), "{}", p.to_fen());
        // After a move, it is no longer a start position; without castling rights neither.
        let m = p.legal_moves()[0];
        assert_eq!(p.play(&m).chess960_number(), None);
        let fen = p.to_fen().replace("KQkq", "-");
        assert_eq!(pos960(&fen).chess960_number(), None);
    }
    assert_eq!(seen.len(), 960);
}

// ---------------------------------------------------------------------------------------------
// (2) Castling edge cases.
// ---------------------------------------------------------------------------------------------

/// King already on its destination g1: castling h-side only moves the rook h1 -> f1.
#[test]
fn king_already_on_g1_only_rook_moves() {
    let fen = "4k3/8/8/8/8/8/8/6KR w K - 0 1";
    let p = pos960(fen);
    assert_eq!(
        sorted_uci(&p),
        [
            "g1f1", "g1f2", "g1g2", "g1h1", "g1h2", "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7",
            "h1h8"
        ]
    );
    assert_eq!(castles(&p), ["g1h1"]);
    assert_eq!(castle(fen, "O-O", "g1h1"), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
}

/// Rook already on its destination f1: only the king moves (e1 -> g1 over f1).
#[test]
fn rook_already_on_f1_king_on_e1() {
    let fen = "4k3/8/8/8/8/8/8/4KR2 w K - 0 1";
    let p = pos960(fen);
    assert_eq!(
        sorted_uci(&p),
        [
            "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "f1f2", "f1f3", "f1f4", "f1f5", "f1f6", "f1f7",
            "f1f8", "f1g1", "f1h1"
        ]
    );
    assert_eq!(castles(&p), ["e1f1"]);
    assert_eq!(castle(fen, "O-O", "e1f1"), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
}

/// Rook on f1, king on b1: the king crosses c1, d1, e1, the rook's square f1, and lands on g1.
#[test]
fn rook_already_on_f1_king_on_b1() {
    let fen = "4k3/8/8/8/8/8/8/1K3R2 w K - 0 1";
    let p = pos960(fen);
    assert_eq!(castles(&p), ["b1f1"]);
    assert_eq!(castle(fen, "O-O", "b1f1"), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // A piece on a square the king crosses (d1) blocks it.
    let blocked = pos960("4k3/8/8/8/8/8/8/1K1N1R2 w K - 0 1");
    assert_eq!(castles(&blocked), Vec::<String>::new());
    assert_eq!(
        reason(&blocked, "O-O"),
        "'O-O' is illegal: castling needs the squares between king and rook empty, but d1 holds a white knight (FIDE Laws 3.8.2.2)"
    );
}

/// King f1 and rook g1 swap squares: king -> g1, rook -> f1.
#[test]
fn king_and_rook_swap_squares() {
    let fen = "4k3/8/8/8/8/8/8/5KR1 w K - 0 1";
    let p = pos960(fen);
    assert_eq!(
        sorted_uci(&p),
        [
            "f1e1", "f1e2", "f1f2", "f1g1", "f1g2", "g1g2", "g1g3", "g1g4", "g1g5", "g1g6", "g1g7",
            "g1g8", "g1h1"
        ]
    );
    assert_eq!(castles(&p), ["f1g1"]);
    assert_eq!(castle(fen, "O-O", "f1g1"), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
}

/// King on c1 (its a-side destination), rook a1: the rook crosses b1 and lands on d1. An own
/// knight on b1, a square only the rook crosses, blocks castling.
#[test]
fn own_piece_on_a_square_only_the_rook_crosses_blocks() {
    let fen = "4k3/8/8/8/8/8/8/R1K5 w Q - 0 1";
    assert_eq!(castles(&pos960(fen)), ["c1a1"]);
    assert_eq!(
        castle(fen, "O-O-O", "c1a1"),
        "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"
    );
    let blocked = pos960("4k3/8/8/8/8/8/8/RNK5 w Q - 0 1");
    assert_eq!(castles(&blocked), Vec::<String>::new());
    assert_eq!(
        reason(&blocked, "O-O-O"),
        "'O-O-O' is illegal: castling needs the squares between king and rook empty, but b1 holds a white knight (FIDE Laws 3.8.2.2)"
    );
    assert_eq!(
        reason(&blocked, "c1a1"),
        "'c1a1' is illegal: castling needs the squares between king and rook empty, but b1 holds a white knight (FIDE Laws 3.8.2.2)"
    );
}

/// A piece (own or the opponent's) on the king's destination g1 blocks castling; castling never
/// captures.
#[test]
fn piece_on_the_kings_destination_blocks() {
    for (fen, piece) in [
        ("4k3/8/8/8/8/8/8/4KRN1 w K - 0 1", "white knight"),
        ("4k3/8/8/8/8/8/8/4KRb1 w K - 0 1", "black bishop"),
    ] {
        let p = pos960(fen);
        assert_eq!(castles(&p), Vec::<String>::new(), "{fen}");
        assert_eq!(
            reason(&p, "O-O"),
            format!(
                "'O-O' is illegal: castling needs the squares between king and rook empty, but g1 holds a {piece} (FIDE Laws 3.8.2.2)"
            )
        );
    }
}

/// A square the king crosses (d1) is attacked: no h-side castling. The a-side castling is legal
/// although the rook lands on the attacked d1 (the rook may be attacked).
#[test]
fn king_path_attacked_but_rook_destination_may_be() {
    let fen = "3rk3/8/8/8/8/8/8/RK5R w KQ - 0 1";
    let p = pos960(fen);
    assert_eq!(castles(&p), ["b1a1"]);
    assert_eq!(
        reason(&p, "O-O"),
        "'O-O' is illegal: castling through the attacked square d1, attacked by the rook on d8 (FIDE Laws 3.8.2.2)"
    );
    assert_eq!(
        castle(fen, "O-O-O", "b1a1"),
        "3rk3/8/8/8/8/8/8/2KR3R b - - 1 1"
    );
}

/// No castling out of check (FIDE Laws 3.8.2.2), even when the king would end on a safe square.
#[test]
fn no_castling_in_check() {
    let p = pos960("4kr2/8/8/8/8/8/8/5KR1 w K - 0 1");
    assert!(p.is_check());
    assert_eq!(sorted_uci(&p), ["f1e1", "f1e2", "f1g2"]);
    let why =
        "castling is not allowed while in check (FIDE Laws 3.8.2.2): the rook on f8 gives check";
    assert_eq!(reason(&p, "O-O"), format!("'O-O' is illegal: {why}"));
    assert_eq!(reason(&p, "f1g1"), format!("'f1g1' is illegal: {why}"));
}

/// The rook's start square and a square only the rook crosses may be attacked.
#[test]
fn rook_may_be_attacked() {
    // h1 attacked by the rook on h8.
    let fen = "4k2r/8/8/8/8/8/8/5K1R w K - 0 1";
    assert_eq!(castles(&pos960(fen)), ["f1h1"]);
    assert_eq!(
        castle(fen, "O-O", "f1h1"),
        "4k2r/8/8/8/8/8/8/5RK1 b - - 1 1"
    );
    // King on c1 does not move; the rook crosses b1, attacked by the rook on b8.
    let fen = "1r2k3/8/8/8/8/8/8/R1K5 w Q - 0 1";
    assert_eq!(castles(&pos960(fen)), ["c1a1"]);
    assert_eq!(
        castle(fen, "O-O-O", "c1a1"),
        "1r2k3/8/8/8/8/8/8/2KR4 b - - 1 1"
    );
}

/// Standard-like a-side castling with b1 attacked: the king (e1 -> c1) does not cross b1, so it is
/// legal, in Chess960 mode (UCI e1a1) and in standard mode (UCI e1c1).
#[test]
fn queen_side_with_b1_attacked() {
    let fen = "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1";
    let p = pos960(fen);
    assert_eq!(castles(&p), ["e1a1"]);
    assert_eq!(
        castle(fen, "O-O-O", "e1a1"),
        "1r2k3/8/8/8/8/8/8/2KR4 b - - 1 1"
    );
    let standard = Position::from_fen(fen).unwrap();
    assert_eq!(castles(&standard), ["e1c1"]);
    let m = standard.parse_move("O-O-O").unwrap();
    assert_eq!(standard.uci(&m), "e1c1");
    assert_eq!(standard.parse_move("e1a1").unwrap(), m);
}

/// An attacker on a1 behind the castling rook on b1: once the rook has left b1, the king on c1
/// would be in check, so castling is illegal (attacks are judged without the castling rook).
#[test]
fn attacker_behind_the_castling_rook_x_rays_the_destination() {
    // King e1 -> c1, rook b1 -> d1, black rook on a1.
    let p = pos960("4k3/8/8/8/8/8/8/rR2K3 w Q - 0 1");
    assert!(!p.is_check());
    assert_eq!(castles(&p), Vec::<String>::new());
    assert_eq!(
        reason(&p, "O-O-O"),
        "'O-O-O' is illegal: castling into check: the king would land on c1, attacked by the rook on a1"
    );
    // King already on c1, rook b1 shields it from the queen on a1.
    let p = pos960("4k3/8/8/8/8/8/8/qRK5 w Q - 0 1");
    assert!(!p.is_check());
    assert_eq!(castles(&p), Vec::<String>::new());
    assert_eq!(
        reason(&p, "c1b1"),
        "'c1b1' is illegal: castling into check: the king would land on c1, attacked by the queen on a1"
    );
    // The same without the attacker: legal.
    assert_eq!(
        castles(&pos960("4k3/8/8/8/8/8/q7/1RK5 w Q - 0 1")),
        ["c1b1"]
    );
}

/// At most one castling right per side of the king: two h-side rights are rejected.
#[test]
fn two_rights_on_the_same_side_are_rejected() {
    for (fen, field) in [
        ("4k3/8/8/8/8/8/8/4K1RR w GH - 0 1", "GH"),
        ("4k3/8/8/8/8/8/8/4K1RR w KG - 0 1", "KG"),
        ("4k3/8/8/8/8/8/8/RR2K3 w AB - 0 1", "AB"),
        ("rr2k3/8/8/8/8/8/8/4K3 w qb - 0 1", "qb"),
    ] {
        let error = Position::from_fen_with(fen, options960()).unwrap_err();
        let FenError::Position(PositionError::CastlingRightsOnOneSide { first, second, .. }) =
            error
        else {
            panic!("{fen}: {error:?}");
        };
        assert_eq!(format!("{first}{second}"), field, "{fen}");
        assert_eq!(error.field(), SetupField::Castling);
        assert_eq!(
            error.to_string(),
            format!(
                "castling rights '{first}' and '{second}' are both on the {}-side of the {} king",
                if field == "AB" || field == "qb" {
                    'a'
                } else {
                    'h'
                },
                first.color().name()
            )
        );
    }
}

/// X-FEN `KQkq` means the outermost rook on each side; an inner rook is written with its file.
#[test]
fn x_fen_kqkq_is_the_outermost_rook_and_inner_rooks_use_file_letters() {
    let p = pos960("rk4rr/6p1/8/8/8/8/6P1/RK4RR w KQkq - 0 1");
    assert_eq!(squares(p.castling_rights()), ["a1", "h1", "a8", "h8"]);
    assert_eq!(p.to_fen(), "rk4rr/6p1/8/8/8/8/6P1/RK4RR w KQkq - 0 1");
    assert_eq!(
        p.to_fen_with(true),
        "rk4rr/6p1/8/8/8/8/6P1/RK4RR w HAha - 0 1"
    );
    // The h1 rook cannot castle: the rook on g1 stands on the king's destination.
    assert_eq!(castles(&p), ["b1a1"]);

    let fen = "rk4rr/6p1/8/8/8/8/6P1/RK4RR w Gg - 0 1";
    let p = pos960(fen);
    assert_eq!(squares(p.castling_rights()), ["g1", "g8"]);
    assert_eq!(p.to_fen(), fen);
    assert_eq!(p.to_fen_with(true), fen);
    assert_eq!(castles(&p), ["b1g1"]);
    assert_eq!(
        castle(fen, "O-O", "b1g1"),
        "rk4rr/6p1/8/8/8/8/6P1/R4RKR b g - 1 1"
    );
    // Mixed: outermost a-side (Q) and inner h-side (G).
    let p = pos960("rk4rr/6p1/8/8/8/8/6P1/RK4RR w GQ - 0 1");
    assert_eq!(squares(p.castling_rights()), ["a1", "g1"]);
    assert_eq!(p.to_fen(), "rk4rr/6p1/8/8/8/8/6P1/RK4RR w GQ - 0 1");
    assert_eq!(
        p.to_fen_with(true),
        "rk4rr/6p1/8/8/8/8/6P1/RK4RR w GA - 0 1"
    );
    assert_eq!(castles(&p), ["b1a1", "b1g1"]);
    // A file letter naming the outermost rook is read and written back as K/Q.
    let p = pos960("rk4rr/6p1/8/8/8/8/6P1/RK4RR w HAha - 0 1");
    assert_eq!(p.to_fen(), "rk4rr/6p1/8/8/8/8/6P1/RK4RR w KQkq - 0 1");
}

/// Shredder-FEN `HAha` reads in Chess960 mode; both writers round-trip.
#[test]
fn shredder_fen() {
    let p = pos960("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
    assert_eq!(p.chess960_number(), Some(0));
    assert_eq!(p, Position::chess960(0).unwrap());
    assert_eq!(
        p.to_fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
    );
    let p = pos960("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
    assert_eq!(p, Position::chess960(518).unwrap());
    assert_eq!(squares(p.castling_rights()), ["a1", "h1", "a8", "h8"]);
}

/// Found by fuzzing (the `fen` target): a Chess960 king on the h-file with its a-side right
/// (chess960-extra.epd line 20) reads in X-FEN, and its Shredder-FEN, which the writer gives,
/// was refused ("needs a king between its rooks"). Both spellings name the same position.
#[test]
fn shredder_fen_castling_of_a_king_on_an_edge_file_reads_like_its_x_fen() {
    for (x_fen, shredder) in [
        (
            "r2r3k/p7/3p4/8/8/P6P/8/R3K2R b KQq - 0 1",
            "r2r3k/p7/3p4/8/8/P6P/8/R3K2R b HAa - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/K5R1 w K - 0 1",
            "4k3/8/8/8/8/8/8/K5R1 w G - 0 1",
        ),
    ] {
        let p = pos960(x_fen);
        assert_eq!(p.to_fen_with(true), shredder);
        let q = Position::from_fen_with(shredder, options960())
            .unwrap_or_else(|e| panic!("{shredder}: {e}"));
        assert_eq!(q, p, "{shredder}");
        assert_eq!(q.to_fen(), x_fen);
    }
}

/// Castling rights are lost when the rook moves or is captured, and when the king moves
/// (FIDE Laws 3.8.2.1).
#[test]
fn castling_rights_lost() {
    // Pawns close the g-file, so the g-rooks do not attack g1/g8.
    let fen = "1r2k1r1/6p1/8/8/8/8/6P1/1R2K1R1 w KQkq - 0 1";
    let p = pos960(fen);
    assert_eq!(squares(p.castling_rights()), ["b1", "g1", "b8", "g8"]);
    assert_eq!(
        p.to_fen_with(true),
        "1r2k1r1/6p1/8/8/8/8/6P1/1R2K1R1 w GBgb - 0 1"
    );
    for (mv, after, shredder_castling) in [
        // The g1 rook moves.
        ("g1f1", "1r2k1r1/6p1/8/8/8/8/6P1/1R2KR2 b Qkq - 1 1", "Bgb"),
        // The king moves.
        ("e1d1", "1r2k1r1/6p1/8/8/8/8/6P1/1R1K2R1 b kq - 1 1", "gb"),
        // The b1 rook captures the b8 rook: both lose the a-side right.
        ("b1b8", "1R2k1r1/6p1/8/8/8/8/6P1/4K1R1 b Kk - 0 1", "Gg"),
        // Castling: both white rights go; in UCI the king takes its rook (g1, b1).
        ("e1g1", "1r2k1r1/6p1/8/8/8/8/6P1/1R3RK1 b kq - 1 1", "gb"),
        ("e1b1", "1r2k1r1/6p1/8/8/8/8/6P1/2KR2R1 b kq - 1 1", "gb"),
    ] {
        let m = p.parse_move(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
        let q = p.play(&m);
        assert_eq!(q.to_fen(), after, "{mv}");
        assert_eq!(q.zobrist(), q.compute_key(), "{mv}");
        let shredder = q.to_fen_with(true);
        assert_eq!(
            shredder.split(' ').nth(2),
            Some(shredder_castling),
            "{mv}: {shredder}"
        );
        assert_eq!(pos960(after), q, "{mv}");
    }
    assert_eq!(p.san(&p.parse_move("e1g1").unwrap()), "O-O");
    assert_eq!(p.san(&p.parse_move("e1b1").unwrap()), "O-O-O");
    // A rook captured by another piece loses its right too.
    let p = pos960("r3k3/8/1N6/8/8/8/8/4K3 w q - 0 1");
    let q = p.play(&p.parse_move("Nxa8").unwrap());
    assert_eq!(q.to_fen(), "N3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(q.zobrist(), q.compute_key());
    // A rook that moves away and back keeps no right.
    let q = pos960(fen);
    let q = q.play(&q.parse_move("g1f1").unwrap());
    let q = q.play(&q.parse_move("g8f8").unwrap());
    let q = q.play(&q.parse_move("f1g1").unwrap());
    assert_eq!(q.to_fen(), "1r2kr2/6p1/8/8/8/8/6P1/1R2K1R1 b Qq - 3 2");
}

/// `parse_move` with `O-O` and with king-takes-rook UCI in Chess960 mode; the standard king
/// two-step `e1g1` is refused there with the king-takes-rook spelling.
#[test]
fn parse_move_castling_in_chess960_mode() {
    let fen = "rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQK2R w KQkq - 0 1";
    let p = pos960(fen);
    let oo = p.parse_move("O-O").unwrap();
    assert!(oo.is_castle());
    assert_eq!((oo.from, oo.to), (sq("e1"), sq("h1")));
    assert_eq!(oo.king_destination(), sq("g1"));
    assert_eq!(oo.rook_destination(), Some(sq("f1")));
    assert_eq!(p.uci(&oo), "e1h1");
    assert_eq!(p.san(&oo), "O-O");
    assert_eq!(p.parse_move("e1h1").unwrap(), oo);
    assert_eq!(p.parse_move("0-0").unwrap(), oo);
    assert_eq!(
        reason(&p, "e1g1"),
        "'e1g1' is illegal: in Chess960 UCI writes castling as the king taking its own rook: e1h1"
    );
    assert_eq!(
        p.play(&oo).to_fen(),
        "rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1RK1 b kq - 1 1"
    );
    // The same position in standard mode: e1g1 and e1h1 both castle; UCI writes e1g1.
    let s = Position::from_fen(fen).unwrap();
    let m = s.parse_move("e1g1").unwrap();
    assert_eq!(s.uci(&m), "e1g1");
    assert_eq!(s.parse_move("e1h1").unwrap(), m);
    assert_eq!(s.parse_move("O-O").unwrap(), m);
    // Black, Chess960 mode.
    let b = pos960("rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1RK1 b kq - 1 1");
    let m = b.parse_move("O-O").unwrap();
    assert_eq!(b.uci(&m), "e8h8");
    assert_eq!(
        reason(&b, "e8g8"),
        "'e8g8' is illegal: in Chess960 UCI writes castling as the king taking its own rook: e8h8"
    );
}

/// SAN marks a castling that gives check (the rook on f1 checks the king on f8).
#[test]
fn castling_with_check() {
    let fen = "5k2/8/8/8/8/8/8/4K2R w K - 0 1";
    assert_eq!(
        castle(fen, "O-O+", "e1h1"),
        "5k2/8/8/8/8/8/8/5RK1 b - - 1 1"
    );
}

/// Castling moves of every Chess960 start position once the back rank between king and rooks
/// is cleared: h-side and a-side, king-takes-rook UCI, SAN, and the pieces on g1/f1 or c1/d1.
#[test]
fn castling_from_every_start_arrangement() {
    let mut blocked = 0;
    for n in 0..960 {
        let start = Position::chess960(n).unwrap();
        let back = back_rank(n);
        let king = back.find('K').unwrap();
        let a_rook = back.find('R').unwrap();
        let h_rook = back.rfind('R').unwrap();
        // Keep only kings and rooks on the back ranks.
        let keep: String = back
            .chars()
            .map(|c| if c == 'K' || c == 'R' { c } else { '1' })
            .collect();
        let rank = compress(&keep);
        let fen = format!(
            "{}/pppppppp/8/8/8/8/PPPPPPPP/{rank} w KQkq - 0 1",
            rank.to_ascii_lowercase()
        );
        let p = pos960(&fen);
        let files = "abcdefgh".as_bytes();
        let uci = |rook: usize| format!("{}1{}1", char::from(files[king]), char::from(files[rook]));
        let mut expected = Vec::new();
        let mut sides = Vec::new();
        if free(&keep, king, h_rook, 6, 5) {
            expected.push(uci(h_rook));
            sides.push(("O-O", h_rook, rank_after(&keep, king, h_rook, 6, 5)));
        }
        if free(&keep, king, a_rook, 2, 3) {
            expected.push(uci(a_rook));
            sides.push(("O-O-O", a_rook, rank_after(&keep, king, a_rook, 2, 3)));
        }
        expected.sort();
        assert_eq!(castles(&p), expected, "SP-{n} {fen}");
        if !free(&keep, king, a_rook, 2, 3) || !free(&keep, king, h_rook, 6, 5) {
            blocked += 1;
        }
        for (san, rook, expect_rank) in sides {
            let after = castle(&fen, san, &uci(rook));
            assert_eq!(
                after.split('/').nth(7).unwrap().split(' ').next().unwrap(),
                expect_rank,
                "SP-{n} {san}"
            );
            assert!(after.ends_with(" b kq - 1 1"), "SP-{n} {san}: {after}");
        }
        assert_eq!(start.chess960_number(), Some(n));
    }
    // Arrangements such as RKR at a-c (SP-959: the h-side rook stands on c1, the king's
    // a-side destination) or RKR at f-h block one castling.
    assert_eq!(blocked, BLOCKED_ARRANGEMENTS);
}

/// Start arrangements where the other rook stands in the way of one castling: R K R on a-b-c,
/// a-b-d, a-c-d, b-c-d (a-side: the h-side rook on c1 or d1) and f-g-h (h-side: the a-side rook
/// on f1). Each set of three squares leaves 18 arrangements of the other pieces (light squares
/// times dark squares for the bishops, times 3 for the queen): 5 x 18 = 90.
const BLOCKED_ARRANGEMENTS: u32 = 90;

/// Whether the squares the king (king..=king_to) and the rook (rook..=rook_to) cross or land on
/// hold nothing but these two pieces, on a back rank of only kings and rooks.
fn free(keep: &str, king: usize, rook: usize, king_to: usize, rook_to: usize) -> bool {
    let b = keep.as_bytes();
    let span = |x: usize, y: usize| x.min(y)..=x.max(y);
    span(king, king_to)
        .chain(span(rook, rook_to))
        .all(|i| i == king || i == rook || b[i] == b'1')
}

fn compress(rank: &str) -> String {
    let mut out = String::new();
    let mut empty = 0;
    for c in rank.chars() {
        if c == '1' {
            empty += 1;
        } else {
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            out.push(c);
        }
    }
    if empty > 0 {
        out.push(char::from(b'0' + empty));
    }
    out
}

fn rank_after(keep: &str, king: usize, rook: usize, king_to: usize, rook_to: usize) -> String {
    let mut squares: Vec<char> = keep.chars().collect();
    squares[king] = '1';
    squares[rook] = '1';
    squares[king_to] = 'K';
    squares[rook_to] = 'R';
    compress(&squares.into_iter().collect::<String>())
}

// ---------------------------------------------------------------------------------------------
// (3) X-FEN and Shredder-FEN round trips; (4) Zobrist keys.
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The castling field X-FEN must write, computed independently: per colour, the h-side right
/// before the a-side one; `K`/`Q` when the right's rook is the outermost rook of that side on the
/// back rank, its file letter otherwise.
fn expected_x_fen_castling(p: &Position) -> String {
    let fen = p.to_fen_with(true);
    let board: Vec<&str> = fen.split(' ').next().unwrap().split('/').collect();
    let expand = |rank: &str| -> Vec<char> {
        let mut v = Vec::new();
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(d) => v.extend(std::iter::repeat_n('.', d as usize)),
                None => v.push(c),
            }
        }
        v
    };
    let mut out = String::new();
    for (rank_index, rank_char, rook, king) in [(7, '1', 'R', 'K'), (0, '8', 'r', 'k')] {
        let squares = expand(board[rank_index]);
        let rights: Vec<usize> = p
            .castling_rights()
            .into_iter()
            .map(|s| s.to_string())
            .filter(|s| s.ends_with(rank_char))
            .map(|s| usize::from(s.as_bytes()[0] - b'a'))
            .collect();
        let Some(k) = squares.iter().position(|&c| c == king) else {
            continue;
        };
        let rooks: Vec<usize> = (0..8).filter(|&i| squares[i] == rook).collect();
        let mut sorted = rights.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        for r in sorted {
            let outermost = if r > k {
                rooks.iter().max() == Some(&r)
            } else {
                rooks.iter().min() == Some(&r)
            };
            let letter = match (outermost, r > k) {
                (true, true) => 'k',
                (true, false) => 'q',
                (false, _) => char::from(b'a' + r as u8),
            };
            out.push(if rook == 'R' {
                letter.to_ascii_uppercase()
            } else {
                letter
            });
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

fn check_round_trips(p: &Position, context: &str) {
    let x = p.to_fen();
    let q =
        Position::from_fen_with(&x, options960()).unwrap_or_else(|e| panic!("{context} {x}: {e}"));
    assert_eq!(&q, p, "{context} {x}");
    assert_eq!(q.to_fen(), x, "{context}");
    assert_eq!(q.zobrist(), p.zobrist(), "{context} {x}");
    assert_eq!(
        x.split(' ').nth(2).unwrap(),
        expected_x_fen_castling(p),
        "{context} {x}"
    );
    let s = p.to_fen_with(true);
    let r =
        Position::from_fen_with(&s, options960()).unwrap_or_else(|e| panic!("{context} {s}: {e}"));
    assert_eq!(&r, p, "{context} {s}");
    assert_eq!(r.to_fen_with(true), s, "{context}");
    // Shredder-FEN castling field: file letters only.
    let field = s.split(' ').nth(2).unwrap();
    assert!(
        field == "-" || field.chars().all(|c| matches!(c, 'A'..='H' | 'a'..='h')),
        "{context} {s}"
    );
    assert_eq!(p.zobrist(), p.compute_key(), "{context} {x}");
}

#[test]
fn fen_round_trips_for_all_960_start_positions() {
    for n in 0..960 {
        let p = Position::chess960(n).unwrap();
        check_round_trips(&p, &format!("SP-{n}"));
        let back = back_rank(n);
        let a = char::from(b'a' + back.find('R').unwrap() as u8);
        let h = char::from(b'a' + back.rfind('R').unwrap() as u8);
        assert_eq!(
            p.to_fen_with(true).split(' ').nth(2).unwrap(),
            format!("{}{}{h}{a}", h.to_ascii_uppercase(), a.to_ascii_uppercase()),
            "SP-{n}"
        );
    }
}

/// Random games from every start position: after every move the X-FEN and Shredder-FEN read back
/// equal, X-FEN writes KQkq exactly where the right's rook is the outermost, and the incremental
/// Zobrist key equals the key computed from scratch (castling included).
#[test]
fn fen_round_trips_and_zobrist_in_random_chess960_games() {
    let mut castled = 0;
    for n in 0..960u32 {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(n + 1));
        let mut p = Position::chess960(n).unwrap();
        for ply in 0..80 {
            check_round_trips(&p, &format!("SP-{n} ply {ply}"));
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer castling when available, so that many games castle.
            let castle: Vec<Move> = moves.iter().filter(|m| m.is_castle()).copied().collect();
            let m = if !castle.is_empty() && rng.next().is_multiple_of(2) {
                castled += 1;
                castle[(rng.next() % castle.len() as u64) as usize]
            } else {
                moves[(rng.next() % moves.len() as u64) as usize]
            };
            let uci = p.uci(&m);
            assert_eq!(p.parse_uci(&uci).unwrap(), m, "SP-{n} ply {ply} {uci}");
            let san = p.san(&m);
            assert_eq!(p.parse_move(&san).unwrap(), m, "SP-{n} ply {ply} {san}");
            p = p.play(&m);
        }
    }
    // The games really castle. (Inner-rook X-FEN letters hardly arise in random games; they
    // are covered by `x_fen_kqkq_is_the_outermost_rook_and_inner_rooks_use_file_letters`.)
    assert!(castled > 500, "{castled}");
}

/// Zobrist keys after castling equal the keys computed from scratch, and match the same position
/// reached without castling (keys depend on the position, not the path).
#[test]
fn zobrist_after_chess960_castling() {
    // King f1 rook g1 swap; then compare with a position set up directly.
    let p = pos960("4k3/8/8/8/8/8/8/5KR1 w K - 0 1");
    let after = p.play(&p.parse_move("O-O").unwrap());
    assert_eq!(after.zobrist(), after.compute_key());
    assert_eq!(
        after.zobrist(),
        pos960("4k3/8/8/8/8/8/8/5RK1 b - - 1 1").zobrist()
    );
    // The same castled placement with and without rights differs.
    let with_right = pos960("4k3/8/8/8/8/8/8/5KR1 w K - 0 1");
    let without = pos960("4k3/8/8/8/8/8/8/5KR1 w - - 0 1");
    assert_ne!(with_right.zobrist(), without.zobrist());
    // Every castling of every start arrangement with the back rank cleared is checked in
    // `castling_from_every_start_arrangement` (through `castle`).
}

/// When a normal king step and castling end on the same square, `Kg1`/`f1g1` is the step and
/// `O-O`/`f1h1` the castling (UCI king-takes-rook keeps them apart).
#[test]
fn king_step_and_castling_to_the_same_square() {
    let p = pos960("4k3/8/8/8/8/8/8/5K1R w K - 0 1");
    let step = p.parse_move("Kg1").unwrap();
    assert!(!step.is_castle());
    assert_eq!(p.uci(&step), "f1g1");
    assert_eq!(p.parse_move("f1g1").unwrap(), step);
    assert_eq!(p.san(&step), "Kg1");
    let oo = p.parse_move("O-O").unwrap();
    assert_eq!(p.uci(&oo), "f1h1");
    assert_eq!(p.parse_move("f1h1").unwrap(), oo);
    assert_eq!(p.play(&step).to_fen(), "4k3/8/8/8/8/8/8/6KR b - - 1 1");
    assert_eq!(p.play(&oo).to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // a-side: king b1, rook a1: b1c1 is the step, b1a1 the castling; both end with the king on c1.
    let p = pos960("4k3/8/8/8/8/8/8/RK6 w Q - 0 1");
    let step = p.parse_move("b1c1").unwrap();
    assert!(!step.is_castle());
    assert_eq!(p.san(&step), "Kc1");
    let ooo = p.parse_move("b1a1").unwrap();
    assert!(ooo.is_castle());
    assert_eq!(p.san(&ooo), "O-O-O");
    assert_eq!(p.play(&step).to_fen(), "4k3/8/8/8/8/8/8/R1K5 b - - 1 1");
    assert_eq!(p.play(&ooo).to_fen(), "4k3/8/8/8/8/8/8/2KR4 b - - 1 1");
}

/// Issue 12 item 4: the PGN reader (no `Variant` tag), `arbiter perft` and the wire's hint each
/// decided "standard, else Chess960" their own way (perft fell back on any error). One rule
/// now: Chess960 only when the standard reading fails on the castling field and the Chess960
/// reading succeeds; any other error is the standard reading's.
#[test]
fn the_castling_mode_of_a_fen_without_a_variant_is_decided_once() {
    let standard =
        Position::from_fen_detecting_mode(STARTING_FEN, Validation::STRICT).expect("standard");
    assert_eq!(standard.castling_mode(), CastlingMode::Standard);
    // Shredder-FEN letters of a Chess960 start (number 0: bbqnnrkr).
    let shredder = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";
    let detected =
        Position::from_fen_detecting_mode(shredder, Validation::STRICT).expect("Chess960");
    assert_eq!(detected.castling_mode(), CastlingMode::Chess960);
    assert_eq!(detected, pos960(shredder));
    // X-FEN rights of a king off e1: only Chess960 has them.
    let xfen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
    assert_eq!(
        Position::from_fen_detecting_mode(xfen, Validation::STRICT)
            .expect("Chess960")
            .castling_mode(),
        CastlingMode::Chess960
    );
    // An error that is not the castling field's stays the standard reading's.
    let error = Position::from_fen_detecting_mode("8/8/8/8/8/8/8/8 w - - 0 1", Validation::STRICT)
        .expect_err("no kings");
    assert_eq!(
        error,
        FenError::Position(PositionError::KingCount {
            color: Color::White,
            count: 0
        })
    );
    // Castling rights valid in neither mode: the standard reading's error.
    let neither = "4k3/8/8/8/8/8/8/4K3 w KQ - 0 1";
    let error =
        Position::from_fen_detecting_mode(neither, Validation::STRICT).expect_err("no rooks");
    assert_eq!(
        error,
        FenError::Position(PositionError::CastlingWithoutPieces {
            right: CastlingRight::KingSide(Color::White),
            missing: MissingForCastling::RookOn(Color::White, Square::from_name("h1").unwrap()),
        })
    );
    // The decision is the setup's own (issue 12 item 1).
    let setup = Setup::from_fen(shredder).expect("syntax");
    assert_eq!(setup.castling_mode(), CastlingMode::Chess960);
    assert_eq!(
        Setup::from_fen(STARTING_FEN)
            .expect("syntax")
            .castling_mode(),
        CastlingMode::Standard
    );
}
