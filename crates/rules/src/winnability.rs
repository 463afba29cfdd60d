//! "Can this side still checkmate by any series of legal moves?" (FIDE Laws 5.2.2 dead position,
//! 6.9 flag fall, 5.1.2 resignation, 7.5.5 second illegal move.)
//!
//! Our own material checks answer the simple cases first and explain them in words; the rest
//! goes to the Chess Unwinnability Analyzer (`chasolver`, MIT, by Miguel Ambrona), which either
//! finds a helpmate line (kept as evidence), proves that none exists, or gives up. Giving up is
//! reported as [`Winnability::Undetermined`] and is never turned into "cannot mate".

use std::str::FromStr;

use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Move, Position};
use crate::types::{Color, Role};

/// How much work the analysis may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AnalysisBudget {
    /// Material checks only (microseconds).
    Material,
    /// Material checks, then the analyzer's fast sound-but-incomplete unwinnability check (it may
    /// prove "cannot mate" but never finds a mating line).
    Fast,
    /// Material checks, then the analyzer's full helpmate search. The analyzer bounds its own
    /// search (1,000,000 positions per phase in chasolver 3.0), so every call ends; a service
    /// should still run it under a deadline.
    #[default]
    Full,
}

/// The answer to "can `side` still checkmate by some series of legal moves?".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Winnability {
    /// Yes: `line` is a series of legal moves from the position ending in checkmate by the side
    /// (a helpmate: both sides cooperate). Empty when the side has already mated.
    CanMate {
        /// The mating line, first move first.
        line: Vec<Move>,
    },
    /// No: proven. `reason` says why, e.g. "Black has only king and knight against a lone king".
    CannotMate {
        /// Why the side cannot mate.
        reason: String,
    },
    /// The analysis could not decide within its budget. Never to be read as "cannot mate".
    Undetermined,
}

fn material_words(pos: &Position, color: Color) -> String {
    let ours = pos.by_color(color);
    let mut parts = Vec::new();
    for role in [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ] {
        let n = (ours & pos.by_role(role)).count();
        if n == 1 {
            parts.push(role.name().to_string());
        } else if n > 1 {
            parts.push(format!("{n} {}s", role.name()));
        }
    }
    if parts.is_empty() {
        "a lone king".to_string()
    } else {
        format!("king and {}", parts.join(", "))
    }
}

/// Our own proofs that `side` cannot mate, from material alone.
fn material_reason(pos: &Position, side: Color) -> Option<String> {
    let ours = pos.by_color(side);
    let theirs = pos.by_color(side.other());
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if (ours & heavy).is_nonempty() {
        return None;
    }
    let knights = ours & pos.by_role(Role::Knight);
    let bishops = ours & pos.by_role(Role::Bishop);
    let them_words = material_words(pos, side.other());
    let lone_enemy_king = (theirs & !pos.by_role(Role::King)).is_empty();
    if (knights | bishops).is_empty() {
        return Some(format!("{side} has only the king (against {them_words})"));
    }
    if lone_enemy_king && (knights | bishops).count() == 1 {
        return Some(format!(
            "{side} has only {} against a lone king",
            material_words(pos, side)
        ));
    }
    if knights.is_empty() {
        // Bishops on one square colour only; the opponent can never block on the other colour
        // if it has nothing but a king and bishops of that same colour.
        let colour = if (bishops & Bitboard::LIGHT_SQUARES).is_empty() {
            Bitboard::DARK_SQUARES
        } else if (bishops & Bitboard::DARK_SQUARES).is_empty() {
            Bitboard::LIGHT_SQUARES
        } else {
            return None;
        };
        let their_others = theirs & !pos.by_role(Role::King);
        if (their_others & !(pos.by_role(Role::Bishop) & colour)).is_empty() {
            let name = if colour == Bitboard::LIGHT_SQUARES {
                "light"
            } else {
                "dark"
            };
            return Some(format!(
                "{side} has only {} on {name} squares, against {them_words} with nothing that can stand on a {} square",
                material_words(pos, side),
                if name == "light" { "dark" } else { "light" }
            ));
        }
    }
    None
}

/// Can `side` still checkmate by some series of legal moves from `pos`? See [`Winnability`].
///
/// Already checkmated positions answer directly (the mated side cannot mate; the other side has
/// mated with an empty line). In a Chess960 position whose castling rights the analyzer cannot
/// represent, a "cannot mate" from it is reported as [`Winnability::Undetermined`] (sound).
#[must_use]
pub fn winnability(pos: &Position, side: Color, budget: AnalysisBudget) -> Winnability {
    if pos.is_checkmate() {
        return if pos.side_to_move() == side {
            Winnability::CannotMate {
                reason: format!("{side} is checkmated"),
            }
        } else {
            Winnability::CanMate { line: Vec::new() }
        };
    }
    if let Some(reason) = material_reason(pos, side) {
        return Winnability::CannotMate { reason };
    }
    if budget == AnalysisBudget::Material {
        return Winnability::Undetermined;
    }
    // The analyzer reads standard FEN; castling rights it cannot express are dropped, and a
    // "cannot mate" proof is then not trusted (fewer moves could only hide a mate).
    let (fen, exact) = analyzer_fen(pos);
    let Ok(board) = chess::Board::from_str(&fen) else {
        return Winnability::Undetermined;
    };
    let winner = match side {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    };
    // Each analyzer run holds a slot of the process-wide bound (its memory is its own), and
    // work whose call has ended stops here.
    let Some(_slot) = crate::interrupt::analysis_slot() else {
        return Winnability::Undetermined;
    };
    let cannot = || Winnability::CannotMate {
        reason: format!(
            "no series of legal moves lets {side} checkmate ({} against {}; proved by the Chess Unwinnability Analyzer)",
            material_words(pos, side),
            material_words(pos, side.other())
        ),
    };
    match budget {
        AnalysisBudget::Material => Winnability::Undetermined,
        AnalysisBudget::Fast => {
            if exact && chasolver::is_unwinnable_fast(&board, winner) {
                cannot()
            } else {
                Winnability::Undetermined
            }
        }
        AnalysisBudget::Full => match chasolver::winnability(&board, winner) {
            Some(chasolver::Winnability::Unwinnable) if exact => cannot(),
            Some(chasolver::Winnability::Winnable { helpmate }) => {
                let mut line = Vec::with_capacity(helpmate.len());
                let mut cur = pos.clone();
                for mv in helpmate {
                    let Some(m) = from_analyzer(&cur, mv) else {
                        return Winnability::Undetermined;
                    };
                    cur.play_in_place(&m);
                    line.push(m);
                }
                if cur.is_checkmate() && cur.side_to_move() != side {
                    Winnability::CanMate { line }
                } else {
                    Winnability::Undetermined
                }
            }
            _ => Winnability::Undetermined,
        },
    }
}

/// A move of the analyzer's line as the legal move of `pos` it stands for, in either castling
/// mode. The analyzer plays standard chess and writes castling as the king's two-square move
/// (`e1c1`); arbiter's Chess960 mode moves the king onto its own rook (`e1a1`). The analyzer only
/// castles in the positions [`analyzer_fen`] gives it with their rights, where the king starts on
/// the e-file and the rook on the a- or h-file, so both spellings name the same move.
fn from_analyzer(pos: &Position, mv: chess::ChessMove) -> Option<Move> {
    let square = |sq: chess::Square| crate::types::Square::new(u32::from(sq.to_int()));
    let (from, to) = (square(mv.get_source())?, square(mv.get_dest())?);
    let promotion = match mv.get_promotion() {
        None => None,
        Some(chess::Piece::Queen) => Some(Role::Queen),
        Some(chess::Piece::Rook) => Some(Role::Rook),
        Some(chess::Piece::Bishop) => Some(Role::Bishop),
        Some(chess::Piece::Knight) => Some(Role::Knight),
        Some(_) => return None,
    };
    let legal = pos.legal_moves();
    legal
        .iter()
        .find(|m| {
            m.from == from
                && m.promotion == promotion
                && if m.is_castle() {
                    m.king_destination() == to && m.from.file() == crate::types::File::E
                } else {
                    m.to == to
                }
        })
        .copied()
}

/// The FEN the analyzer reads, and whether it represents the position exactly.
fn analyzer_fen(pos: &Position) -> (String, bool) {
    let mut p = pos.clone();
    let standard = p.castling_rights().into_iter().all(|sq| {
        matches!(sq.file(), crate::types::File::A | crate::types::File::H)
            && p.king_square(if sq.rank() == crate::types::Rank::First {
                Color::White
            } else {
                Color::Black
            })
            .is_some_and(|k| k.file() == crate::types::File::E)
    });
    if !standard {
        p.castling = Bitboard::EMPTY;
    }
    p.mode = CastlingMode::Standard;
    (p.to_fen(), standard)
}

/// Is the position dead (FIDE Laws 5.2.2): can neither side checkmate by any series of legal
/// moves? `Some(reason)` when proven, `None` when not dead or not decided.
#[must_use]
pub fn dead_position(pos: &Position, budget: AnalysisBudget) -> Option<String> {
    if pos.is_insufficient_material() {
        return Some(format!(
            "insufficient material: White has {}, Black has {}",
            material_words(pos, Color::White),
            material_words(pos, Color::Black)
        ));
    }
    let white = winnability(pos, Color::White, budget);
    let Winnability::CannotMate { reason: w } = white else {
        return None;
    };
    let Winnability::CannotMate { reason: b } = winnability(pos, Color::Black, budget) else {
        return None;
    };
    Some(format!("{w}; {b}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::FenOptions;

    fn position(fen: &str, mode: CastlingMode) -> Position {
        Position::from_fen_with(
            fen,
            FenOptions {
                mode,
                permissive: false,
            },
        )
        .expect("valid FEN")
    }

    fn analyzer_move(text: &str) -> chess::ChessMove {
        chess::ChessMove::from_str(text).expect("UCI")
    }

    /// Both crossings between the notations (FIDE Laws 3.8.2, Chess960 castling): arbiter's
    /// Chess960 position goes to the analyzer with standard castling rights when they mean the
    /// same moves, and the analyzer's `e1c1` / `e8g8` come back as king-takes-rook castling.
    #[test]
    fn analyzer_castling_e1c1_is_king_takes_rook_in_chess960_and_e1c1_in_standard() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for mode in [CastlingMode::Chess960, CastlingMode::Standard] {
            let pos = position(fen, mode);
            assert_eq!(analyzer_fen(&pos), (fen.to_string(), true));
            let long = from_analyzer(&pos, analyzer_move("e1c1")).expect("castling");
            assert!(long.is_castle());
            let expected = if mode == CastlingMode::Chess960 {
                "e1a1"
            } else {
                "e1c1"
            };
            assert_eq!(pos.uci(&long), expected);
            let black = pos.play(&from_analyzer(&pos, analyzer_move("a1a2")).expect("rook"));
            let short = from_analyzer(&black, analyzer_move("e8g8")).expect("castling");
            assert!(short.is_castle());
            assert_eq!(black.san(&short), "O-O");
            // A king move of one square is not castling.
            let step = from_analyzer(&black, analyzer_move("e8f8")).expect("king move");
            assert!(!step.is_castle());
        }
    }

    /// Chess960 castling rights the analyzer cannot write (the king not on the e-file) are
    /// dropped, and its "cannot mate" is then not trusted (FIDE Laws 5.2.2).
    #[test]
    fn chess960_rights_the_analyzer_cannot_write_are_dropped_and_marked_inexact() {
        let pos = position(
            "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
            CastlingMode::Chess960,
        );
        assert_eq!(
            analyzer_fen(&pos),
            ("1r4kr/8/8/8/8/8/8/1R4KR w - - 0 1".to_string(), false)
        );
    }
}
