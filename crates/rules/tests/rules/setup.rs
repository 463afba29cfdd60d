//! Issue 12 item 1: the unvalidated setup between text and a position. FEN text parses into a
//! [`Setup`] with syntax errors per field; [`Position::from_setup`] checks legality with typed
//! kinds, each with its field, a stable cause and the FIDE article; [`Validation`] names the
//! perft suites' opt-outs.

use arbiter_rules::{
    CastlingMode, CastlingRight, Color, FenError, FenSyntaxError, ImpossibleCheck,
    MissingForCastling, Piece, Position, PositionError, Role, STARTING_FEN, Setup, SetupField,
    Square, Validation,
};

fn sq(name: &str) -> Square {
    Square::from_name(name).expect("square")
}

fn position_error(fen: &str) -> PositionError {
    let setup = Setup::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    Position::from_setup(&setup, CastlingMode::Standard, Validation::STRICT)
        .expect_err("an invalid position")
}

#[test]
fn fen_syntax_errors_name_their_field_before_any_rule_is_checked() {
    for (fen, field, error) in [
        (
            "8/8/8 w - - 0 1",
            SetupField::Board,
            FenSyntaxError::RankCount(3),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            SetupField::SideToMove,
            FenSyntaxError::BadSideToMove("x".to_string()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w KX - 0 1",
            SetupField::Castling,
            FenSyntaxError::BadCastling("KX".to_string()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - z9 0 1",
            SetupField::EnPassant,
            FenSyntaxError::BadEnPassant("z9".to_string()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - x 1",
            SetupField::HalfmoveClock,
            FenSyntaxError::BadClock {
                field: "halfmove clock",
                value: "x".to_string(),
                min: 0,
                max: 10_000,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 0",
            SetupField::FullmoveNumber,
            FenSyntaxError::BadClock {
                field: "fullmove number",
                value: "0".to_string(),
                min: 1,
                max: 100_000,
            },
        ),
    ] {
        assert_eq!(Setup::from_fen(fen).as_ref(), Err(&error), "{fen}");
        assert_eq!(error.field(), field, "{fen}");
        assert_eq!(
            Position::from_fen(fen).map(|_| ()),
            Err(FenError::Syntax(error)),
            "{fen}"
        );
    }
    // No kings is syntax enough: the setup reads, the position does not.
    let setup = Setup::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").expect("syntax");
    assert_eq!(setup.board, [None; 64]);
}

#[test]
fn invalid_positions_are_typed_kinds_with_their_field_cause_and_article() {
    let cases = [
        (
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            PositionError::KingCount {
                color: Color::Black,
                count: 0,
            },
            SetupField::Board,
            "KING_COUNT",
            Some("2.2"),
        ),
        (
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            PositionError::PawnOnBackRank(sq("a1")),
            SetupField::Board,
            "PAWN_ON_BACK_RANK",
            Some("3.7"),
        ),
        (
            "4k3/8/8/8/8/8/8/4K2r b - - 0 1",
            PositionError::OppositeCheck(Color::White),
            SetupField::Board,
            "OPPOSITE_CHECK",
            Some("3.9"),
        ),
        (
            "4k3/8/8/4p3/8/8/8/r3K3 w - e6 0 1",
            PositionError::ImpossibleCheck(ImpossibleCheck::BesideDoubleStep {
                checker: sq("a1"),
                role: Role::Rook,
                pawn: sq("e5"),
            }),
            SetupField::Board,
            "IMPOSSIBLE_CHECK",
            Some("3.9"),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            PositionError::CastlingWithoutPieces {
                right: CastlingRight::KingSide(Color::White),
                missing: MissingForCastling::RookOn(Color::White, sq("h1")),
            },
            SetupField::Castling,
            "CASTLING_WITHOUT_PIECES",
            Some("3.8.2.1"),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e4 0 1",
            PositionError::EnPassantRank(sq("e4")),
            SetupField::EnPassant,
            "EN_PASSANT_RANK",
            Some("3.7.3.1"),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
            PositionError::EnPassantWithoutDoubleStep(sq("e6")),
            SetupField::EnPassant,
            "EN_PASSANT_WITHOUT_DOUBLE_STEP",
            Some("3.7.3.1"),
        ),
    ];
    for (fen, error, field, cause, article) in cases {
        assert_eq!(position_error(fen), error, "{fen}");
        assert_eq!(
            (error.field(), error.cause(), error.article()),
            (field, cause, article),
            "{fen}"
        );
    }
    // Display keeps the sentences the FEN reader always wrote.
    assert_eq!(
        position_error("4k3/8/8/8/8/8/8/4K3 w K - 0 1").to_string(),
        "castling right 'K' needs a white rook on h1"
    );
    assert_eq!(
        position_error("4k3/8/8/4p3/8/8/8/r3K3 w - e6 0 1").to_string(),
        "impossible check: the rook on a1 gives check, but the last move was the double step to e5"
    );
}

/// The wire's structured board builds a setup square by square: no FEN text between.
#[test]
fn a_setup_built_square_by_square_is_the_position_its_fen_reads() {
    let mut setup = Setup::empty();
    let put = |setup: &mut Setup, name: &str, color, role| {
        setup.board[sq(name).index()] = Some(Piece { color, role });
    };
    put(&mut setup, "e1", Color::White, Role::King);
    put(&mut setup, "h1", Color::White, Role::Rook);
    put(&mut setup, "e8", Color::Black, Role::King);
    put(&mut setup, "d4", Color::Black, Role::Pawn);
    put(&mut setup, "e4", Color::White, Role::Pawn);
    setup.turn = Color::Black;
    setup.castling = vec![CastlingRight::KingSide(Color::White)];
    setup.ep_square = Some(sq("e3"));
    setup.halfmove_clock = 0;
    setup.fullmove_number = 30;
    let built =
        Position::from_setup(&setup, CastlingMode::Standard, Validation::STRICT).expect("legal");
    let fen = "4k3/8/8/8/3pP3/8/8/4K2R b K e3 0 30";
    assert_eq!(built, Position::from_fen(fen).expect("legal"));
    assert_eq!(built.to_fen(), fen);
    assert_eq!(Setup::from_fen(fen).expect("syntax"), setup);
    // The setup of a position reads back as the position (castling rights as rook files).
    let again = Setup::from_position(&built);
    assert_eq!(
        Position::from_setup(&again, CastlingMode::Standard, Validation::STRICT),
        Ok(built)
    );
}

/// The perft suites hold positions no game reaches (nine queens, impossible checks); their
/// opt-out is named, and strict reading refuses them.
#[test]
fn the_perft_suite_validation_accepts_unreachable_positions_that_strict_refuses() {
    let eleven_knights = "7k/8/8/8/8/N7/NNNNN3/NNNNN2K w - - 0 1";
    let setup = Setup::from_fen(eleven_knights).expect("syntax");
    assert_eq!(
        Position::from_setup(&setup, CastlingMode::Standard, Validation::STRICT),
        Err(PositionError::TooManyPromotions {
            color: Color::White,
            promoted: 9,
            missing_pawns: 8
        })
    );
    assert!(Position::from_setup(&setup, CastlingMode::Standard, Validation::PERFT_SUITE).is_ok());
    // What move generation needs is never opted out of.
    let no_king = Setup::from_fen("8/8/8/8/8/8/8/k7 w - - 0 1").expect("syntax");
    assert!(matches!(
        Position::from_setup(&no_king, CastlingMode::Standard, Validation::PERFT_SUITE),
        Err(PositionError::KingCount { .. })
    ));
}

/// A start position in a mode has its own constructor (no `"startpos"` text inside the crate).
#[test]
fn the_start_position_of_each_mode_has_its_own_constructor() {
    let standard = Position::start(CastlingMode::Standard);
    assert_eq!(standard, Position::from_fen(STARTING_FEN).expect("start"));
    let chess960 = Position::start(CastlingMode::Chess960);
    assert_eq!(chess960.castling_mode(), CastlingMode::Chess960);
    assert_eq!(chess960.chess960_number(), Some(518));
    assert_eq!(Position::chess960(518), Some(chess960));
}

/// Issue 26 item 5: FEN counters beyond the clamp were written clamped without a word. The
/// halfmove clock stops at 10,000 and the fullmove number at 100,000 (`MAX_HALFMOVE_CLOCK`,
/// `MAX_FULLMOVE_NUMBER`: the largest values the FEN reader accepts, so that every position
/// written reads back). Nothing the Laws use is lost: every halfmove clock from 150 ends the
/// game alike (9.6.2), and no game played from the initial position under the 75-move rule
/// comes near 100,000 moves. The exact FEN at each step: reaching the bound, then staying there.
#[test]
fn r_fen_counters_stop_at_the_largest_values_the_reader_accepts() {
    assert_eq!(
        (
            arbiter_rules::MAX_HALFMOVE_CLOCK,
            arbiter_rules::MAX_FULLMOVE_NUMBER
        ),
        (10_000, 100_000)
    );
    let mut position = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 9999 99999").expect("FEN");
    for (uci, fen) in [
        // The clock reaches its bound; White's move leaves the move number.
        ("a1a2", "4k3/8/8/8/8/8/R7/4K3 b - - 10000 99999"),
        // The clock stays at its bound; Black's move makes the move number reach its own.
        ("e8d7", "8/3k4/8/8/8/8/R7/4K3 w - - 10000 100000"),
        ("a2a3", "8/3k4/8/8/8/R7/8/4K3 b - - 10000 100000"),
        // Both stay: 10,001 plies and move 100,001 are written as the bounds.
        ("d7d6", "8/8/3k4/8/8/R7/8/4K3 w - - 10000 100000"),
    ] {
        let m = position.parse_uci(uci).expect("a legal move");
        position = position.play(&m);
        assert_eq!(position.to_fen(), fen, "after {uci}");
        assert_eq!(
            (position.halfmove_clock(), position.fullmove_number()),
            (10_000, if uci == "a1a2" { 99_999 } else { 100_000 })
        );
        assert_eq!(
            Position::from_fen(fen).map(|read| read.to_fen()).as_deref(),
            Ok(fen),
            "reads back"
        );
    }
    // A pawn move still resets the clock from its bound.
    let position = Position::from_fen("8/8/3k4/8/8/8/P7/4K3 w - - 10000 100000").expect("FEN");
    let m = position.parse_uci("a2a4").expect("legal");
    assert_eq!(
        position.play(&m).to_fen(),
        "8/8/3k4/8/P7/8/8/4K3 b - - 0 100000"
    );
}

/// Issue 28 item 6: a run of empty squares is one digit (PGN standard 16.1.3.1), as every FEN
/// writer writes it and other libraries require; two digits in a row (`17`, `11111111`) were
/// accepted and written back as one. They are refused, the rank and the digits named, in
/// standard FEN, X-FEN and Shredder-FEN alike.
#[test]
fn r_a_run_of_empty_squares_written_as_two_digits_is_refused_issue_28() {
    for (fen, rank, digits) in [
        (
            "rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            6,
            "17",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/11111111/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            3,
            "11111111",
        ),
        ("4k3/8/8/8/8/8/8/K12p3 w - - 0 1", 1, "12"),
        // X-FEN and Shredder-FEN castling: the placement is read the same way.
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            0,
            "",
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
                .replace("3ppn2", "12ppn2")
                .leak(),
            6,
            "12",
        ),
    ] {
        if digits.is_empty() {
            assert!(Setup::from_fen(fen).is_ok(), "{fen}");
            continue;
        }
        let error = FenSyntaxError::AdjacentDigits {
            rank,
            digits: digits.to_owned(),
        };
        assert_eq!(Setup::from_fen(fen).as_ref(), Err(&error), "{fen}");
        assert_eq!(error.field(), SetupField::Board);
        for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
            assert_eq!(
                Position::from_fen_with(
                    fen,
                    arbiter_rules::FenOptions {
                        mode,
                        validation: Validation::STRICT
                    }
                )
                .map(|_| ()),
                Err(FenError::Syntax(error.clone())),
                "{fen}"
            );
        }
    }
    assert_eq!(
        Position::from_fen("rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .map(|_| ())
            .unwrap_err()
            .to_string(),
        "rank 6 of the piece placement writes a run of empty squares as the digits '17' in a row: each run of empty squares is one digit from 1 to 8 (PGN standard 16.1.3.1)"
    );
    // One digit per run, a piece between runs: read as before.
    assert!(Setup::from_fen("4k3/8/8/8/8/8/8/1K1p1p2 w - - 0 1").is_ok());
}

/// Issue 28 (a fresh user's finding): a FEN with `0` or `9` in the piece placement said "bad
/// piece letter '9'", though the writer meant a digit and no piece. A digit counts the empty
/// squares of a run, from 1 to 8 (PGN standard 16.1.3.1): the refusal says so and names the
/// rank.
#[test]
fn r_a_digit_0_or_9_in_the_placement_is_refused_as_a_digit_issue_28() {
    for (fen, digit, rank) in [
        ("4k3/8/8/8/8/8/8/4K2R0 w - - 0 1", '0', 1),
        ("4k3/8/9/8/8/8/8/4K3 w - - 0 1", '9', 6),
        ("4k3/8/8/8/0p7/8/8/4K3 w - - 0 1", '0', 4),
        // `10` for ten squares: the 0 is the digit at fault.
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1".replace("4K3", "10").leak(),
            '0',
            1,
        ),
    ] {
        let error = FenSyntaxError::BadDigit { digit, rank };
        assert_eq!(Setup::from_fen(fen).as_ref(), Err(&error), "{fen}");
        assert_eq!(error.field(), SetupField::Board);
    }
    assert_eq!(
        Position::from_fen("4k3/8/9/8/8/8/8/4K3 w - - 0 1")
            .map(|_| ())
            .unwrap_err()
            .to_string(),
        "rank 6 of the piece placement has the digit '9': a digit counts the empty squares of a run, from 1 to 8 (0 and 9 are not) (PGN standard 16.1.3.1)"
    );
    // A letter that is no piece is still a bad piece letter.
    assert_eq!(
        Setup::from_fen("4k3/8/8/8/8/8/8/4K2X w - - 0 1"),
        Err(FenSyntaxError::BadPiece {
            letter: 'X',
            rank: 1
        })
    );
}
