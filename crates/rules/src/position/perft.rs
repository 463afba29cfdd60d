//! Perft: counting the legal move paths of a given depth, the standard test of a move generator.

use super::{Move, MoveList, Position, generate};

/// Counts the legal move paths of `depth` plies from `pos` (perft). Depth 0 counts 1.
///
/// The last ply is counted without playing the moves (bulk counting).
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            // Filled in place: `legal_moves` would return the list by value, a copy of its whole
            // capacity (about 2 KB) per position.
            let mut moves = MoveList::new();
            generate(pos, &mut moves);
            let mut nodes = 0;
            for m in moves.iter() {
                let mut child = pos.clone();
                child.play_for_movegen(m);
                // The last ply is counted here rather than in a call per child.
                nodes += if depth == 2 {
                    child.count_legal_moves() as u64
                } else {
                    perft(&child, depth - 1)
                };
            }
            nodes
        }
    }
}

/// Perft split by first move ("divide"): each legal move with the node count below it, in move
/// generation order. The counts add up to `perft(pos, depth)` for `depth >= 1`.
#[must_use]
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|m| (*m, perft(&pos.play(m), depth.saturating_sub(1))))
        .collect()
}
