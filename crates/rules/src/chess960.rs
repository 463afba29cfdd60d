//! The 960 start positions of Chess960 (FIDE Laws, Guidelines on Chess960), numbered 0 to 959
//! in the standard (Scharnagl) numbering, where 518 is the standard chess start position.

use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Position};
use crate::types::{Color, File, Rank, Role, Square};

/// Number of Chess960 start positions.
pub const CHESS960_POSITIONS: u32 = 960;

/// The knight placements among the five squares left after the bishops and the queen, in the
/// order of the standard numbering.
const KNIGHTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// The back-rank arrangement of start position `number` (0-959), a-file first.
fn arrangement(number: u32) -> Option<[Role; 8]> {
    if number >= CHESS960_POSITIONS {
        return None;
    }
    let mut rank: [Option<Role>; 8] = [None; 8];
    let mut n = number as usize;
    rank[2 * (n % 4) + 1] = Some(Role::Bishop); // light-squared bishop: b, d, f or h
    n /= 4;
    rank[2 * (n % 4)] = Some(Role::Bishop); // dark-squared bishop: a, c, e or g
    n /= 4;
    let nth_free = |rank: &[Option<Role>; 8], k: usize| {
        rank.iter()
            .enumerate()
            .filter(|(_, r)| r.is_none())
            .nth(k)
            .map(|(i, _)| i)
    };
    let q = nth_free(&rank, n % 6)?;
    rank[q] = Some(Role::Queen);
    n /= 6;
    let (k1, k2) = KNIGHTS[n];
    let (a, b) = (nth_free(&rank, k1)?, nth_free(&rank, k2)?);
    rank[a] = Some(Role::Knight);
    rank[b] = Some(Role::Knight);
    // Rook, king, rook on the three squares left, in that order.
    for role in [Role::Rook, Role::King, Role::Rook] {
        let i = nth_free(&rank, 0)?;
        rank[i] = Some(role);
    }
    let mut out = [Role::Pawn; 8];
    for (o, r) in out.iter_mut().zip(rank) {
        *o = r?;
    }
    Some(out)
}

impl Position {
    /// Chess960 start position number `number` (0-959, standard numbering: 518 is the standard
    /// chess arrangement), White to move, all four castling rights, in Chess960 mode. `None` for
    /// numbers of 960 and above.
    #[must_use]
    pub fn chess960(number: u32) -> Option<Position> {
        let back = arrangement(number)?;
        let mut p = Position::empty(CastlingMode::Chess960);
        for (i, &role) in back.iter().enumerate() {
            let file = File::new(i as u32);
            p.put(Square::from_coords(file, Rank::First), Color::White, role);
            p.put(Square::from_coords(file, Rank::Eighth), Color::Black, role);
            p.put(
                Square::from_coords(file, Rank::Second),
                Color::White,
                Role::Pawn,
            );
            p.put(
                Square::from_coords(file, Rank::Seventh),
                Color::Black,
                Role::Pawn,
            );
        }
        p.castling = p.by_role(Role::Rook)
            & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
        p.key = p.compute_key();
        p.refresh_checkers();
        Some(p)
    }

    /// The Chess960 number (0-959) of this position's arrangement if it is a Chess960 start
    /// position (pieces on their start squares, all castling rights, White to move, no moves
    /// played yet); `None` otherwise.
    #[must_use]
    pub fn chess960_number(&self) -> Option<u32> {
        (0..CHESS960_POSITIONS).find(|&n| {
            Position::chess960(n).is_some_and(|p| {
                p.by_role == self.by_role
                    && p.by_color == self.by_color
                    && p.turn == self.turn
                    && p.castling == self.castling
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_arrangement_is_number_518() {
        let p = Position::chess960(518).unwrap();
        assert_eq!(p.board_fen(), Position::startpos().board_fen());
        assert_eq!(p.zobrist(), Position::startpos().zobrist());
        assert_eq!(p.chess960_number(), Some(518));
        assert!(Position::chess960(960).is_none());
    }

    #[test]
    fn numbers_give_960_distinct_legal_arrangements() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let p = Position::chess960(n).unwrap();
            // King between the rooks, bishops on opposite colours.
            let back = p.by_color(Color::White) & Bitboard::from_rank(Rank::First);
            let rooks: Vec<Square> = (back & p.by_role(Role::Rook)).collect();
            let king = p.king_square(Color::White).unwrap();
            assert!(rooks[0] < king && king < rooks[1], "{n}");
            let bishops: Vec<Square> = (back & p.by_role(Role::Bishop)).collect();
            assert_ne!(bishops[0].is_light(), bishops[1].is_light(), "{n}");
            assert_eq!(p.legal_moves().len(), p.count_legal_moves());
            assert!(seen.insert(p.board_fen()));
        }
        // Number 0 is BBQNNRKR (standard numbering).
        assert_eq!(
            Position::chess960(0).unwrap().board_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR"
        );
    }
}
