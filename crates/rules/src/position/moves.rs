//! Moves and move lists: what a legal move is made of (FIDE Laws 3), and the fixed-capacity
//! list move generation fills.

use std::fmt;

use arrayvec::ArrayVec;

use crate::types::{File, Role, Square};

/// What kind of move a [`Move`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move that is neither en passant nor castling (promotions included).
    Normal,
    /// An en passant capture (FIDE Laws 3.7.3.1): `to` is the square the pawn moves to.
    EnPassant,
    /// Castling (FIDE Laws 3.8.2): `from` is the king's square and `to` the castling rook's square.
    Castle,
}

/// A move in a specific position.
///
/// Castling is stored as "king takes own rook" (`to` is the rook's square), which is unambiguous in
/// Chess960 as well; [`Move::king_destination`] gives the king's target square (c- or g-file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the moving piece leaves.
    pub from: Square,
    /// The destination; for castling, the castling rook's square.
    pub to: Square,
    /// The role of the moving piece (the pawn for promotions, the king for castling).
    pub role: Role,
    /// The role of the captured piece, if any (a pawn for en passant).
    pub capture: Option<Role>,
    /// The promotion role (FIDE Laws 3.7.5.1), if the move promotes.
    pub promotion: Option<Role>,
    /// Normal, en passant or castling.
    pub kind: MoveKind,
}

impl Move {
    /// True for castling.
    #[inline]
    #[must_use]
    pub const fn is_castle(&self) -> bool {
        matches!(self.kind, MoveKind::Castle)
    }

    /// True for an en passant capture.
    #[inline]
    #[must_use]
    pub const fn is_en_passant(&self) -> bool {
        matches!(self.kind, MoveKind::EnPassant)
    }

    /// True when the move captures (en passant included).
    #[inline]
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        self.capture.is_some()
    }

    /// For castling: true when castling on the h-side ("kingside", `O-O`).
    #[inline]
    #[must_use]
    pub fn is_kingside_castle(&self) -> bool {
        self.is_castle() && self.to.file() > self.from.file()
    }

    /// The square the king ends on when castling (g- or c-file of the back rank), else `to`.
    #[inline]
    #[must_use]
    pub fn king_destination(&self) -> Square {
        if self.is_castle() {
            let file = if self.to.file() > self.from.file() {
                File::G
            } else {
                File::C
            };
            Square::from_coords(file, self.from.rank())
        } else {
            self.to
        }
    }

    /// For castling, the square the rook ends on (f- or d-file).
    #[inline]
    #[must_use]
    pub fn rook_destination(&self) -> Option<Square> {
        if self.is_castle() {
            let file = if self.to.file() > self.from.file() {
                File::F
            } else {
                File::D
            };
            Some(Square::from_coords(file, self.from.rank()))
        } else {
            None
        }
    }
}

/// Capacity of a [`MoveList`]. The known maximum of legal moves in a reachable position is 218;
/// `Validation::PERFT_SUITE` accepts unreachable positions with up to 271 moves.
pub const MAX_MOVES: usize = 320;

/// A list of moves with fixed capacity, stored inline on the stack (no heap allocation, no
/// initialization of unused slots).
#[derive(Clone)]
pub struct MoveList {
    pub(super) moves: ArrayVec<Move, MAX_MOVES>,
}

impl MoveList {
    /// An empty list.
    #[inline]
    #[must_use]
    pub fn new() -> MoveList {
        MoveList {
            moves: ArrayVec::new(),
        }
    }

    #[inline]
    pub(super) fn push(&mut self, m: Move) {
        // The capacity exceeds the number of legal moves of any position with one king per side
        // on 64 squares, so this never fails; stay panic-free anyway.
        let _ = self.moves.try_push(m);
    }

    /// Keeps only the moves for which `keep` returns true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        self.moves.retain(|m| keep(m));
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
