//! Issue 28 item 5: castling written as the king's move is read as the castling it names where
//! that castling is legal, and no move is ever refused with a cause that is not the reason
//! (`Ke1g1` was refused with `CASTLING_IMPOSSIBLE`, article 3.8.2, where castling was legal).

use arbiter_rules::{
    CastlingMode, FenOptions, Illegality, MoveError, Position, Role, Square, Validation,
};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn pos960(fen: &str) -> Position {
    Position::from_fen_with(
        fen,
        FenOptions {
            mode: CastlingMode::Chess960,
            validation: Validation::STRICT,
        },
    )
    .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The UCI of the move `text` reads as, and whether it is castling.
fn read(p: &Position, text: &str) -> (String, bool) {
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.to_fen()));
    (p.uci(&m), m.is_castle())
}

/// The cause and article of the refusal of `text`.
fn refusal(p: &Position, text: &str) -> (&'static str, Option<&'static str>, String) {
    match p.parse_move(text) {
        Ok(m) => panic!("{text} is legal in {}: {m:?}", p.to_fen()),
        Err(error) => {
            let reason = error.reason();
            let illegality = error
                .illegality()
                .unwrap_or_else(|| panic!("{text}: not an illegal move: {error}"));
            (illegality.cause(), illegality.article(), reason)
        }
    }
}

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

/// Every way of writing castling as the king's move reads as that castling where it is legal
/// (as `O-O` and UCI's `e1g1` always did), for both sides of both colours.
#[test]
fn r_castling_written_as_a_king_move_is_the_castling_where_legal_issue_28() {
    let white = pos(CASTLING);
    for text in [
        "O-O", "Ke1g1", "Ke1-g1", "e1-g1", "Kg1", "Ke1h1", "Ke1-h1", "e1g1", "e1h1", "Ke1g1+",
    ] {
        assert_eq!(read(&white, text), ("e1g1".to_owned(), true), "{text}");
    }
    for text in [
        "O-O-O", "Ke1c1", "Ke1-c1", "e1-c1", "Kc1", "Ke1a1", "Ke1-a1", "e1c1", "e1a1",
    ] {
        assert_eq!(read(&white, text), ("e1c1".to_owned(), true), "{text}");
    }
    let black = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    for (text, uci) in [
        ("Ke8g8", "e8g8"),
        ("e8-g8", "e8g8"),
        ("Kg8", "e8g8"),
        ("Ke8-c8", "e8c8"),
        ("e8c8", "e8c8"),
        ("Kc8", "e8c8"),
    ] {
        assert_eq!(read(&black, text), (uci.to_owned(), true), "{text}");
    }
}

/// Where the castling a king move names is not legal, the refusal says why castling is not:
/// the cause and the article of castling, never `CASTLING_IMPOSSIBLE` (which no legal-or-not
/// castling reaches any more).
#[test]
fn r_castling_written_as_a_king_move_is_refused_for_the_castling_reason_issue_28() {
    for (fen, text, cause, article) in [
        (
            "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1",
            "Ke1g1",
            "CASTLING_PATH_BLOCKED",
            "3.8.2.2",
        ),
        (
            "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1",
            "e1-c1",
            "CASTLING_PATH_BLOCKED",
            "3.8.2.2",
        ),
        (
            "4k3/8/8/8/2b5/8/8/R3K2R w KQ - 0 1",
            "Ke1-g1",
            "CASTLING_THROUGH_ATTACK",
            "3.8.2.2",
        ),
        (
            "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "Ke1g1",
            "CASTLING_INTO_CHECK",
            "3.8.2.2",
        ),
        (
            "4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1",
            "e1-g1",
            "CASTLING_IN_CHECK",
            "3.8.2.2",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "Ke1g1",
            "NO_CASTLING_RIGHT",
            "3.8.2.1",
        ),
    ] {
        let p = pos(fen);
        let (got_cause, got_article, reason) = refusal(&p, text);
        assert_eq!(
            (got_cause, got_article),
            (cause, Some(article)),
            "{text} in {fen}: {reason}"
        );
    }
    // A promotion letter on castling written as UCI is the promotion's fault, not castling's.
    let p = pos(CASTLING);
    let (cause, article, _) = refusal(&p, "e1g1q");
    assert_eq!((cause, article), ("PROMOTION_NOT_A_PAWN", Some("3.7.5.1")));
}

/// A king move that cannot be castling is refused as the king move it is: the king is not on
/// e1 (`Kd1-f1`), a Chess960 king's two-square step to a file other than c or g, a king onto
/// its own rook beside it without a castling right.
#[test]
fn r_a_king_move_that_cannot_be_castling_is_refused_as_a_king_move_issue_28() {
    for (p, text, cause) in [
        (
            pos("4k3/8/8/8/8/8/8/R2K3R w - - 0 1"),
            "Kd1-f1",
            "PIECE_PATTERN",
        ),
        (
            pos("4k3/8/8/8/8/8/8/R2K3R w - - 0 1"),
            "Kd1-b1",
            "PIECE_PATTERN",
        ),
        (
            pos("4k3/8/8/8/8/8/8/4KR2 w - - 0 1"),
            "Ke1f1",
            "OWN_PIECE_ON_TARGET",
        ),
        // Chess960: the king on d1 with castling rights on both sides; f1 is no castling square.
        (
            pos960("1r1k2r1/8/8/8/8/8/8/1R1K2R1 w GBgb - 0 1"),
            "Kd1-f1",
            "PIECE_PATTERN",
        ),
    ] {
        let (got, _, reason) = refusal(&p, text);
        assert_eq!(got, cause, "{text} in {}: {reason}", p.to_fen());
    }
}

/// Chess960: a king move the king can make is that move, even where castling would take the
/// king to the same square; a king move to the c- or g-file that only castling makes is the
/// castling, as is the king taking its own rook.
#[test]
fn r_chess960_king_moves_and_castling_are_told_apart_issue_28() {
    // King on f1, rook on h1: `Kf1g1` is the king's step, castling is `O-O`.
    let p = pos960("5k1r/8/8/8/8/8/8/5K1R w Hh - 0 1");
    assert_eq!(read(&p, "Kf1g1"), ("f1g1".to_owned(), false));
    assert_eq!(read(&p, "Kg1"), ("f1g1".to_owned(), false));
    assert_eq!(read(&p, "O-O"), ("f1h1".to_owned(), true));
    assert_eq!(read(&p, "Kf1h1"), ("f1h1".to_owned(), true));
    // King on b1, rooks on a1 and h1: g1 and c1 are castling's only.
    let p = pos960("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1");
    assert_eq!(read(&p, "Kb1g1"), ("b1h1".to_owned(), true));
    assert_eq!(read(&p, "Kb1-g1"), ("b1h1".to_owned(), true));
    assert_eq!(read(&p, "Kg1"), ("b1h1".to_owned(), true));
    // c1 is one step away: the king's step (legal), not O-O-O.
    assert_eq!(read(&p, "Kb1c1"), ("b1c1".to_owned(), false));
    assert_eq!(read(&p, "O-O-O"), ("b1a1".to_owned(), true));
    // UCI's king destination is refused by the UCI reader with the notation's cause (the PGN
    // reader reads it, with a warning).
    let error = p
        .parse_move("b1g1")
        .expect_err("Chess960 UCI castles king takes rook");
    assert!(matches!(
        error,
        MoveError::Illegal {
            reason: Illegality::Chess960CastlingNotation { .. },
            ..
        }
    ));
}

/// A pawn move names its file, and the refusal says so: `bc4` fits no b-pawn move, while the
/// c-pawn can go to c4 (it said "no white pawn can move to c4"); `e5` fits no push, while a
/// capture dxe5 may be legal.
#[test]
fn r_a_refusal_names_the_file_the_move_names_issue_28() {
    let p = pos("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    let (cause, article, reason) = refusal(&p, "bc4");
    assert_eq!(
        (cause, article, reason.as_str()),
        (
            "NO_PIECE_REACHES",
            None,
            "no white pawn on the b-file can move to c4"
        )
    );
    let p = pos("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1");
    let (_, _, reason) = refusal(&p, "e5");
    assert_eq!(reason, "White has no pawn on the e-file that fits");
    assert!(p.parse_move("dxe5").is_ok());
    let (_, _, reason) = refusal(&pos(CASTLING), "R2a5");
    assert_eq!(reason, "White has no rook on rank 2 that fits");
}

/// No move is refused with a cause that is not the reason: in positions with castling (both
/// modes), checks and pins, every move from a square of the side to move to any other square
/// that is not legal (as a UCI move, promotions aside) is explained with neither `LEGAL` nor
/// `CASTLING_IMPOSSIBLE`, and every legal move written in long algebraic (`Ng1-f3`, castling
/// as the king's move to its destination where no king step goes there) reads as itself.
#[test]
fn r_no_move_is_refused_with_a_cause_that_is_not_the_reason_issue_28() {
    let positions = [
        pos(CASTLING),
        pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        pos("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1"),
        pos("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1"),
        pos("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"),
        pos960("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
        pos960("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1"),
        pos960("5k1r/8/8/8/8/8/8/5K1R w Hh - 0 1"),
        pos960("2r1kr2/8/8/8/8/8/8/2R1KR2 w FCfc - 0 1"),
    ];
    for p in positions {
        let legal = p.legal_moves();
        for from in Square::all() {
            let Some(piece) = p.piece_at(from) else {
                continue;
            };
            if piece.color != p.side_to_move() {
                continue;
            }
            for to in Square::all().filter(|&to| to != from) {
                let promotion = (piece.role == Role::Pawn && matches!(to.rank().index(), 0 | 7))
                    .then_some(Role::Queen);
                let named = legal.iter().find(|m| {
                    m.from == from
                        && m.promotion == promotion
                        && (m.to == to || (m.is_castle() && m.king_destination() == to))
                });
                if named.is_some() {
                    continue;
                }
                let why = p.explain_illegal(from, to, promotion);
                assert!(
                    !matches!(why, Illegality::Legal | Illegality::CastlingImpossible),
                    "{from}{to} in {}: {why:?}",
                    p.to_fen()
                );
            }
        }
        for m in legal.iter() {
            let letter = match m.role {
                Role::Pawn => String::new(),
                role => role.upper_char().to_string(),
            };
            let to = if m.is_castle() {
                m.king_destination()
            } else {
                m.to
            };
            let promotion = m
                .promotion
                .map_or(String::new(), |r| format!("={}", r.upper_char()));
            let text = format!("{letter}{}-{to}{promotion}", m.from);
            // In Chess960 a king step may go where castling takes the king: that is the step.
            let step_there = m.is_castle()
                && legal
                    .iter()
                    .any(|o| !o.is_castle() && o.from == m.from && o.to == to);
            if step_there {
                continue;
            }
            let read = p
                .parse_move(&text)
                .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.to_fen()));
            assert_eq!(read, *m, "{text} in {}", p.to_fen());
        }
    }
}

/// Issue 28 item 5 (a fresh user's finding): `Qd3` in the initial position was refused with
/// `NO_PIECE_REACHES` ("no white queen can move to d3", no article) while `Qd1-d3` gave
/// `PATH_BLOCKED` (FIDE Laws 3.5). A piece whose move pattern goes to the square past a piece
/// in its way is the piece the move means: the short form names the blocking piece as the
/// long form does, and so do several such pieces (each its own path).
#[test]
fn r_a_san_move_over_a_blocked_path_is_refused_as_path_blocked_issue_28() {
    let start = pos(arbiter_rules::STARTING_FEN);
    for (short, long, reason) in [
        (
            "Qd3",
            "Qd1-d3",
            "the path from d1 to d3 is blocked by the white pawn on d2",
        ),
        (
            "Bb5",
            "Bf1-b5",
            "the path from f1 to b5 is blocked by the white pawn on e2",
        ),
        (
            "Ra3",
            "Ra1-a3",
            "the path from a1 to a3 is blocked by the white pawn on a2",
        ),
        (
            "Qxd7",
            "Qd1xd7",
            "the path from d1 to d7 is blocked by the white pawn on d2",
        ),
    ] {
        let got = refusal(&start, short);
        assert_eq!(
            (got.0, got.1, got.2.as_str()),
            ("PATH_BLOCKED", Some("3.5"), reason),
            "{short}"
        );
        assert_eq!(refusal(&start, long), got, "{long} and {short}");
    }
    // Both rooks could go to d1 along the first rank, and each is blocked.
    let p = pos("4k3/8/8/8/8/8/8/RN2K1NR w - - 0 1");
    let (cause, article, reason) = refusal(&p, "Rd1");
    assert_eq!(
        (cause, article, reason.as_str()),
        (
            "SEVERAL",
            Some("3.5"),
            "the path from a1 to d1 is blocked by the white knight on b1; the path from h1 to d1 is blocked by the white king on e1"
        )
    );
    // The round-30 fixture's `7. Qxd8` (tests/data/adjudicate/round-30.pgn): the queen on d1
    // cannot pass the pawn on d5.
    let mut p = start.clone();
    for text in [
        "d4", "d5", "Nc3", "Nf6", "Bf4", "Nc6", "Nb5", "e5", "Bxe5", "Nxe5", "dxe5", "Nd7",
    ] {
        let m = p.parse_move(text).expect(text);
        p = p.play(&m);
    }
    let (cause, article, reason) = refusal(&p, "Qxd8");
    assert_eq!(
        (cause, article, reason.as_str()),
        (
            "PATH_BLOCKED",
            Some("3.5"),
            "the path from d1 to d8 is blocked by the black pawn on d5"
        )
    );
    // A piece no pattern takes there keeps the general refusal.
    let (cause, _, reason) = refusal(&start, "Qd5");
    assert_eq!(
        (cause, reason.as_str()),
        (
            "PATH_BLOCKED",
            "the path from d1 to d5 is blocked by the white pawn on d2"
        )
    );
    let (cause, _, reason) = refusal(&start, "Qe4");
    assert_eq!(
        (cause, reason.as_str()),
        ("NO_PIECE_REACHES", "no white queen can move to e4")
    );
}

/// The square a piece's move pattern takes it to from `from` on an empty board (FIDE Laws
/// 3.2-3.8; a pawn's push, double step from its original rank, and diagonal captures).
fn pattern_reaches(p: &Position, from: Square, role: Role, to: Square) -> bool {
    let (df, dr) = (
        i32::try_from(to.file().index()).unwrap() - i32::try_from(from.file().index()).unwrap(),
        i32::try_from(to.rank().index()).unwrap() - i32::try_from(from.rank().index()).unwrap(),
    );
    let line = df == 0 || dr == 0;
    let diagonal = df.abs() == dr.abs();
    match role {
        Role::Knight => df.abs() * dr.abs() == 2,
        Role::Bishop => diagonal,
        Role::Rook => line,
        Role::Queen => line || diagonal,
        Role::King => df.abs() <= 1 && dr.abs() <= 1,
        Role::Pawn => {
            let forward = if p.side_to_move() == arbiter_rules::Color::White {
                1
            } else {
                -1
            };
            let second = if forward == 1 { 1 } else { 6 };
            (df == 0 && dr == forward)
                || (df == 0 && dr == 2 * forward && from.rank().index() == second)
                || (df.abs() == 1 && dr == forward)
        }
    }
}

/// The short form and the long form give the same cause: in positions with pins, checks,
/// blocked lines, own pieces on the target and pawns, every SAN move that names one piece by its
/// pattern alone (the only piece of its kind, on the file a pawn move names, whose move pattern
/// goes there) and is refused, is refused for the reason the long form is.
#[test]
fn r_a_san_refusal_gives_the_cause_of_the_long_form_issue_28() {
    let positions = [
        pos(arbiter_rules::STARTING_FEN),
        pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        pos("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"),
        pos("4k3/4r3/8/8/8/8/3PB3/R3K2R w KQ - 0 1"),
        pos("4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2"),
        pos("4k3/8/8/2pP4/8/8/8/4K3 w - - 0 2"),
        pos("r1bqk2r/ppp2ppp/2n2n2/3P4/1b6/2N2N2/PP3PPP/R1BQKB1R w KQkq - 1 7"),
        pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"),
        pos("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 1 2"),
    ];
    let mut compared = 0;
    for p in positions {
        let us = p.side_to_move();
        for from in Square::all() {
            let Some(piece) = p.piece_at(from).filter(|piece| piece.color == us) else {
                continue;
            };
            for to in Square::all().filter(|&to| to != from) {
                if !pattern_reaches(&p, from, piece.role, to) {
                    continue;
                }
                // The other pieces the short form may mean: of the same kind (a pawn: on the
                // file the move names), whose pattern goes there too.
                let capture = piece.role == Role::Pawn && from.file() != to.file();
                let others = Square::all().filter(|&o| {
                    o != from
                        && p.piece_at(o) == Some(piece)
                        && (piece.role != Role::Pawn || o.file() == from.file())
                        && pattern_reaches(&p, o, piece.role, to)
                });
                if others.count() > 0 {
                    continue;
                }
                let promotion = (piece.role == Role::Pawn && matches!(to.rank().index(), 0 | 7))
                    .then_some(Role::Queen);
                let suffix = if promotion.is_some() { "=Q" } else { "" };
                let short = match piece.role {
                    Role::Pawn if capture => format!("{}x{to}{suffix}", from.file().char()),
                    Role::Pawn => format!("{to}{suffix}"),
                    role => format!("{}{to}", role.upper_char()),
                };
                let Err(error) = p.parse_move(&short) else {
                    continue;
                };
                let long = p.explain_illegal(from, to, promotion);
                let got = error
                    .illegality()
                    .unwrap_or_else(|| panic!("{short} in {}: {error}", p.to_fen()));
                assert_eq!(
                    (got.cause(), got.article(), got.to_string()),
                    (long.cause(), long.article(), long.to_string()),
                    "{short} ({from}{to}) in {}",
                    p.to_fen()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 150, "{compared} refusals compared");
}

/// Issue 28 item 5 (a fresh user's finding): `Ke1g1` with no rook on the board said "no
/// castling right ... the king or that rook has moved". Castling is a move of the king and a
/// rook (FIDE Laws 3.8.2): without a rook on its square the refusal says so, for every way of
/// writing the castling; a rook on its square without the right keeps `NO_CASTLING_RIGHT`,
/// and a king that has left e1 has moved.
#[test]
fn r_castling_without_a_rook_is_refused_as_no_rook_issue_28() {
    let bare = pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    for text in ["Ke1g1", "Ke1-g1", "e1g1", "Kg1", "O-O", "00"] {
        let got = refusal(&bare, text);
        assert_eq!(
            (got.0, got.1, got.2.as_str()),
            (
                "NO_CASTLING_ROOK",
                Some("3.8.2"),
                "White has no rook on h1 to castle with on the h-side (O-O): castling is a move of the king and a rook (FIDE Laws 3.8.2)"
            ),
            "{text}"
        );
    }
    let got = refusal(&pos("4k3/8/8/8/8/8/8/4K3 b - - 0 1"), "O-O-O");
    assert_eq!(
        got.2,
        "Black has no rook on a8 to castle with on the a-side (O-O-O): castling is a move of the king and a rook (FIDE Laws 3.8.2)"
    );
    // The rook on h1, no right: the king or the rook has moved.
    let got = refusal(&pos("4k3/8/8/8/8/8/8/4K2R w - - 0 1"), "Ke1g1");
    assert_eq!((got.0, got.1), ("NO_CASTLING_RIGHT", Some("3.8.2.1")));
    // The king on f1 has moved, rook or not.
    let got = refusal(&pos("4k3/8/8/8/8/8/8/5K2 w - - 0 1"), "O-O");
    assert_eq!((got.0, got.1), ("NO_CASTLING_RIGHT", Some("3.8.2.1")));
    // Chess960: no rook on the first rank on that side of the king.
    let p = pos960("1k6/8/8/8/8/8/8/RK6 w A - 0 1");
    let got = refusal(&p, "O-O");
    assert_eq!(
        (got.0, got.1, got.2.as_str()),
        (
            "NO_CASTLING_ROOK",
            Some("3.8.2"),
            "White has no rook on its first rank on the h-side (O-O) of the king to castle with: castling is a move of the king and a rook (FIDE Laws 3.8.2)"
        )
    );
}

/// Issue 28 item 5 (a fresh user's finding): castling written with zeros and no dashes (`00`,
/// `000`) was not read. The tolerant reader reads castling as two or three `O`s, `o`s or zeros,
/// written together or with a dash between each, mixed letters too; other text of these
/// characters is refused as the castling it is not, with the reason, never as a move to a
/// square ("expected a destination square").
#[test]
fn r_castling_with_zeros_and_no_dashes_is_read_issue_28() {
    let p = pos(CASTLING);
    for text in ["00", "OO", "oo", "0-O", "O-0", "00+", "00#", "OO!"] {
        assert_eq!(read(&p, text), ("e1g1".to_owned(), true), "{text}");
    }
    for text in ["000", "OOO", "0-O-0", "O-0-O", "000+", "o-O-o"] {
        assert_eq!(read(&p, text), ("e1c1".to_owned(), true), "{text}");
    }
    for (text, why) in [
        (
            "0-0-0-0",
            "castling is written O-O (h-side) or O-O-O (a-side), with two or three O's or zeros, and this has 4 (PGN standard 8.2.3.3)",
        ),
        (
            "OOOO",
            "castling is written O-O (h-side) or O-O-O (a-side), with two or three O's or zeros, and this has 4 (PGN standard 8.2.3.3)",
        ),
        (
            "O--O",
            "castling is written O-O (h-side) or O-O-O (a-side), with a dash between each two O's or zeros or none (PGN standard 8.2.3.3)",
        ),
        (
            "OO-O",
            "castling is written O-O (h-side) or O-O-O (a-side), with a dash between each two O's or zeros or none (PGN standard 8.2.3.3)",
        ),
        (
            "-O-O",
            "castling is written O-O (h-side) or O-O-O (a-side), with a dash between each two O's or zeros or none (PGN standard 8.2.3.3)",
        ),
    ] {
        let error = p.parse_move(text).expect_err(text);
        assert_eq!(
            error,
            MoveError::Syntax {
                text: text.to_owned(),
                why: why.to_owned()
            },
            "{text}"
        );
    }
    // The null move stays the null move.
    assert_eq!(
        p.parse_move("0000").expect_err("null").reason(),
        "the null move 0000 is not a legal move"
    );
    // Castling that is not legal is refused for its reason, however it is written.
    let blocked = pos("r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1");
    for text in ["00", "000", "OO"] {
        let (cause, article, _) = refusal(&blocked, text);
        assert_eq!((cause, article), ("CASTLING_PATH_BLOCKED", Some("3.8.2.2")));
    }
}

/// Issue 28 item 5 (a fresh user's finding): `Ke1h1` (the king takes its own rook, as Chess960
/// writes castling) was read in standard chess and `Kxh1` was not. Both are read alike, with
/// or without the square of origin and the capture sign (no king move goes onto its own rook),
/// and `Kg1`, `Kxh1` where that castling is not legal are refused for the reason castling is
/// not, as `Ke1g1` is (they said "no white king can move to g1").
#[test]
fn r_king_takes_own_rook_is_read_with_or_without_its_origin_issue_28() {
    let p = pos(CASTLING);
    for text in ["Kxh1", "Kh1", "Ke1xh1", "Ke1h1"] {
        assert_eq!(read(&p, text), ("e1g1".to_owned(), true), "{text}");
    }
    for text in ["Kxa1", "Ka1"] {
        assert_eq!(read(&p, text), ("e1c1".to_owned(), true), "{text}");
    }
    let blocked = pos("r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1");
    for text in ["Kxh1", "Kh1", "Kg1", "Kc1", "Kxa1"] {
        let (cause, article, _) = refusal(&blocked, text);
        assert_eq!(
            (cause, article),
            ("CASTLING_PATH_BLOCKED", Some("3.8.2.2")),
            "{text}"
        );
    }
    let no_right = pos("4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
    for text in ["Kg1", "Kxh1", "Kc1"] {
        let (cause, article, _) = refusal(&no_right, text);
        assert_eq!(
            (cause, article),
            ("NO_CASTLING_RIGHT", Some("3.8.2.1")),
            "{text}"
        );
    }
    // A king move that is no castling keeps the king's refusal.
    let (cause, _, reason) = refusal(&no_right, "Ke3");
    assert_eq!(
        (cause, reason.as_str()),
        ("NO_PIECE_REACHES", "no white king can move to e3")
    );
}
