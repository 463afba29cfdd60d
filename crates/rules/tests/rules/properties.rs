//! Property tests over random games: random legal move sequences (chosen by index into
//! `legal_moves`) from the start position, from perft-suite positions and from Chess960 positions.
//!
//! Checked after every move: FEN round trip; every legal move's SAN (strict and tolerant) and
//! UCI read back to the same move; the incremental Zobrist key equals the key computed from
//! scratch; the en passant square is kept exactly when an en passant capture is legal (FIDE Laws
//! 9.2.3); `+`/`#` match the position after the move (Appendix C); and `perft_divide` adds up to
//! `perft`.

use arbiter_rules::{
    CastlingMode, FenOptions, Position, STARTING_FEN, SanMode, perft, perft_divide,
};
use proptest::prelude::*;

/// Standard positions (perft suites, `tests/data/perft/named.epd`) and Chess960 ones
/// (`tests/data/perft/chess960.epd`).
const STANDARD: [&str; 6] = [
    STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

const CHESS960: [&str; 4] = [
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
    "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
];

fn options(chess960: bool) -> FenOptions {
    FenOptions {
        mode: if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        },
        validation: arbiter_rules::Validation::STRICT,
    }
}

fn start(chess960: bool, index: usize) -> Position {
    let fen = if chess960 {
        CHESS960[index % CHESS960.len()]
    } else {
        STANDARD[index % STANDARD.len()]
    };
    Position::from_fen_with(fen, options(chess960)).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The positions of a random game: the start and the position after each move.
fn random_game(chess960: bool, index: usize, choices: &[u16]) -> Vec<Position> {
    let mut pos = start(chess960, index);
    let mut out = vec![pos.clone()];
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[usize::from(c) % moves.len()];
        pos = pos.play(&m);
        out.push(pos.clone());
    }
    out
}

fn game_strategy() -> impl Strategy<Value = (bool, usize, Vec<u16>)> {
    (
        prop::bool::weighted(0.25),
        0usize..16,
        prop::collection::vec(any::<u16>(), 0..120),
    )
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// `Position::from_fen(p.to_fen())` gives back the same position and the same FEN text.
    #[test]
    fn fen_round_trip((chess960, index, choices) in game_strategy()) {
        for p in random_game(chess960, index, &choices) {
            let fen = p.to_fen();
            let q = Position::from_fen_with(&fen, options(chess960))
                .map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
            prop_assert_eq!(&q, &p, "{}", fen);
            prop_assert_eq!(q.to_fen(), fen.clone());
            prop_assert_eq!(q.zobrist(), p.zobrist(), "{}", fen);
            // Shredder-FEN writes the same position.
            let shredder = p.to_fen_with(true);
            let r = Position::from_fen_with(&shredder, options(true))
                .map_err(|e| TestCaseError::fail(format!("{shredder}: {e}")))?;
            prop_assert_eq!(r.board_fen(), p.board_fen());
            prop_assert_eq!(r.castling_rights(), p.castling_rights(), "{}", shredder);
            prop_assert_eq!(r.zobrist(), p.zobrist(), "{}", shredder);
        }
    }

    /// The incremental key equals the key from scratch after every move (Polyglot layout, en
    /// passant only when legal: FIDE Laws 9.2.3), and the en passant square is kept exactly when
    /// an en passant capture is legal.
    #[test]
    fn incremental_zobrist_equals_recomputed((chess960, index, choices) in game_strategy()) {
        for p in random_game(chess960, index, &choices) {
            prop_assert_eq!(p.zobrist(), p.compute_key(), "{}", p.to_fen());
            let ep_legal = p.legal_moves().iter().any(|m| m.is_en_passant());
            prop_assert_eq!(p.ep_square().is_some(), ep_legal, "{}", p.to_fen());
        }
    }

    /// Every legal move's SAN reads back (strict and tolerant) to the same move, and its UCI
    /// too; `+` and `#` match the position after the move (FIDE Laws Appendix C).
    #[test]
    fn san_and_uci_read_back((chess960, index, choices) in game_strategy()) {
        for p in random_game(chess960, index, &choices).iter().step_by(3) {
            for m in p.legal_moves().iter() {
                let san = p.san(m);
                let fen = p.to_fen();
                let strict = p.parse_san(&san, SanMode::Strict)
                    .map_err(|e| TestCaseError::fail(format!("{fen} {san}: {e}")))?;
                prop_assert_eq!(&strict, m, "{} {}", fen, san);
                let tolerant = p.parse_san(&san, SanMode::Tolerant)
                    .map_err(|e| TestCaseError::fail(format!("{fen} {san}: {e}")))?;
                prop_assert_eq!(&tolerant, m, "{} {}", fen, san);
                let uci = p.uci(m);
                let back = p.parse_uci(&uci)
                    .map_err(|e| TestCaseError::fail(format!("{fen} {uci}: {e}")))?;
                prop_assert_eq!(&back, m, "{} {}", fen, uci);
                prop_assert_eq!(&p.parse_move(&uci).unwrap(), m);
                let after = p.play(m);
                let suffix = if after.is_checkmate() {
                    Some('#')
                } else if after.is_check() {
                    Some('+')
                } else {
                    None
                };
                prop_assert_eq!(san.chars().last().filter(|c| *c == '+' || *c == '#'), suffix,
                    "{} {}", fen, san);
                prop_assert_eq!(p.san_without_suffix(m), san.trim_end_matches(['+', '#']));
            }
        }
    }

    /// `perft_divide` lists every legal move once, and its counts add up to `perft`.
    #[test]
    fn perft_divide_sums_to_perft((chess960, index, choices) in game_strategy()) {
        let game = random_game(chess960, index, &choices);
        let p = game.last().unwrap();
        for depth in 1..=2 {
            let divide = perft_divide(p, depth);
            prop_assert_eq!(divide.len(), p.legal_moves().len());
            let total: u64 = divide.iter().map(|(_, n)| n).sum();
            prop_assert_eq!(total, perft(p, depth), "{} depth {}", p.to_fen(), depth);
            for (m, n) in &divide {
                prop_assert_eq!(*n, perft(&p.play(m), depth - 1));
            }
        }
    }
}
