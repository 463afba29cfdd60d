//! Zobrist keys in the Polyglot layout.
//!
//! Using the Polyglot constants and layout makes keys comparable with other implementations
//! (python-chess, shakmaty) and with Polyglot opening books. One deliberate difference from the
//! Polyglot book format: the en passant file is hashed only when an en passant capture is legal
//! (FIDE Laws 9.2.3: positions are the same when "the possible moves of all the pieces are the
//! same"), whereas Polyglot hashes it whenever a pawn stands next to the double-stepped pawn, even
//! a pinned one.

use crate::polyglot_keys::POLYGLOT_RANDOM;
use crate::types::{Color, File, Piece, Square};

/// Key of a piece on a square: index `64 * kind + square`, `kind = 2 * role + (1 if white)`.
#[inline]
pub(crate) fn piece(p: Piece, sq: Square) -> u64 {
    piece_of(p.color, p.role, sq)
}

/// Key of a piece of `color` and `role` on a square.
#[inline]
pub(crate) fn piece_of(color: Color, role: crate::types::Role, sq: Square) -> u64 {
    // `& 63` changes nothing (squares are below 64) but shows the index in range: no bounds
    // check, so a key nobody reads costs nothing (see `Position::play_for_movegen`).
    POLYGLOT_RANDOM
        [64 * (2 * role.index() + usize::from(color == Color::White)) + (sq.index() & 63)]
}

/// Key of one castling right: White h-side, White a-side, Black h-side, Black a-side.
#[inline]
pub(crate) fn castling(color: Color, kingside: bool) -> u64 {
    POLYGLOT_RANDOM[768 + 2 * color.index() + usize::from(!kingside)]
}

/// Key of the en passant file.
#[inline]
pub(crate) fn en_passant(file: File) -> u64 {
    POLYGLOT_RANDOM[772 + file.index() as usize]
}

/// Key XORed in when White is to move.
#[inline]
pub(crate) fn turn() -> u64 {
    POLYGLOT_RANDOM[780]
}
