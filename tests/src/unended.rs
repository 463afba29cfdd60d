//! A long legal game that no rule ends: the workload of the tests (and `scripts/bench-answers.py`)
//! that need ApplyMoves calls of thousands of plies answered in full.
//!
//! ApplyMoves plays its moves as a game and refuses a move after the game's end (issue 27 item
//! 9): checkmate, stalemate, a dead position, fivefold repetition (FIDE Laws 9.6.1, so knights
//! shuffled out and back end the game at ply 16) and the 75-move rule (9.6.2, 150 plies without
//! a pawn move or capture). The game of `tests/data/unended-game.txt` avoids them all: between
//! two pawn moves its pieces walk through positions not seen since the last pawn move, and a
//! pawn moves before 140 plies have passed. It gives no check, captures nothing and promotes
//! nothing, so neither side's material changes. Without captures the pawns meet on their files
//! after 32 single steps (a double step spends two), which bounds the game to about 33 × 140
//! plies; the walk reaches 4,520, of which the file keeps [`UNENDED_PLIES`].
//!
//! [`generate`] makes it; the file is its output, one SAN move per line (`cargo test -p
//! arbiter-e2e --lib unended` checks that they agree and that the rules end the game nowhere).

use std::collections::HashMap;

use arbiter_rules::{Move, Position, Role};

/// The committed game, one SAN move per line.
const GAME: &str = include_str!("../data/unended-game.txt");

/// The plies of the committed game: every prefix of it is a game that has not ended.
pub const UNENDED_PLIES: usize = 4_500;

/// Plies after a pawn move by which the next pawn move is played (the 75-move rule ends the game
/// at 150).
const PAWN_MOVE_BY: u32 = 140;

/// Plies after a pawn move past which no piece moves: a side without a pawn move by then ends
/// the walk before the 75-move rule would end the game.
const LAST_PIECE_MOVE: u32 = 148;

/// The first `plies` moves (SAN) of the committed unended game, a legal game from the initial
/// position that no rule ends at any ply.
///
/// # Panics
///
/// When `plies` is more than [`UNENDED_PLIES`].
#[must_use]
pub fn unended_game(plies: usize) -> Vec<String> {
    assert!(
        plies <= UNENDED_PLIES,
        "the unended game has {UNENDED_PLIES} plies, not {plies}"
    );
    GAME.lines().take(plies).map(str::to_owned).collect()
}

/// A move the walk may play in `position`: no capture, no promotion, no check, and the
/// opponent keeps a legal move (no stalemate).
fn quiet(position: &Position, mv: &Move) -> Option<Position> {
    if mv.capture.is_some() || mv.promotion.is_some() {
        return None;
    }
    let after = position.play(mv);
    (!after.is_check() && after.has_legal_move()).then_some(after)
}

/// Generates the unended game: `plies` moves from the initial position (fewer when the pawns
/// can no longer move). Each ply plays, among the quiet moves of pieces (not pawns) that lead
/// to a position not seen since the last pawn move, the one at a rotating index of the list in
/// UCI order; once 140 plies have passed since the last pawn move, or when no piece move leads
/// somewhere new, a quiet pawn move (a single step first, as a double step spends two of the
/// pawn's moves). A side without a pawn move then goes on with its pieces, up to 148 plies
/// after the last pawn move, where the walk ends.
#[must_use]
pub fn generate(plies: usize) -> Vec<String> {
    let mut position = Position::startpos();
    let mut seen: HashMap<u64, u32> = HashMap::from([(position.zobrist(), 1)]);
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies {
        let mut legal: Vec<Move> = position.legal_moves().iter().copied().collect();
        legal.sort_by_key(|mv| position.uci(mv));
        let fresh: Vec<(Move, Position)> = legal
            .iter()
            .filter(|mv| mv.role != Role::Pawn)
            .filter_map(|mv| quiet(&position, mv).map(|after| (*mv, after)))
            .filter(|(_, after)| !seen.contains_key(&after.zobrist()))
            .collect();
        let pawn = || {
            legal
                .iter()
                .filter(|mv| mv.role == Role::Pawn)
                .filter_map(|mv| quiet(&position, mv).map(|after| (*mv, after)))
                // Single steps first: a double step spends two of the pawn's moves at once.
                .min_by_key(|(mv, _)| mv.from.rank().index().abs_diff(mv.to.rank().index()))
        };
        let piece = || {
            (!fresh.is_empty() && position.halfmove_clock() < LAST_PIECE_MOVE)
                .then(|| fresh[(moves.len() * 7) % fresh.len()].clone())
        };
        let step = if position.halfmove_clock() < PAWN_MOVE_BY {
            piece().or_else(pawn)
        } else {
            pawn().or_else(piece)
        };
        let Some((mv, after)) = step else {
            break;
        };
        if mv.role == Role::Pawn {
            seen.clear();
        }
        moves.push(position.san(&mv));
        *seen.entry(after.zobrist()).or_insert(0) += 1;
        position = after;
    }
    moves
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{AnalysisBudget, Game};

    use super::*;

    /// Issue 27 item 9: the committed file is what the generator makes.
    #[test]
    fn the_committed_unended_game_is_the_generated_one() {
        let committed: Vec<&str> = GAME.lines().collect();
        assert_eq!(committed.len(), UNENDED_PLIES);
        assert_eq!(generate(UNENDED_PLIES), committed);
    }

    /// Issue 27 item 9: the rules end the unended game at no ply (dead positions looked for with
    /// the full analysis, as the server does by default), so every prefix of it is an ApplyMoves
    /// call answered in full.
    #[test]
    fn no_rule_ends_the_unended_game() {
        let mut game =
            Game::with_dead_position_analysis(Position::startpos(), AnalysisBudget::Full);
        for (index, san) in unended_game(UNENDED_PLIES).iter().enumerate() {
            let parsed = game.position().parse_move(san);
            game.play_next(parsed)
                .unwrap_or_else(|error| panic!("ply {}: {san}: {error}", index + 1));
        }
        assert_eq!(game.outcome(), None);
        assert_eq!(game.ply(), UNENDED_PLIES);
    }
}
