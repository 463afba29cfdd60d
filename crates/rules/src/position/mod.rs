//! The position: placement, side to move, castling rights, en passant square and clocks
//! (FIDE Laws 2, 3 and 9.2.3), with legal move generation and making moves.
//!
//! Split by concern: the moves and move lists ([`moves`]), legal move generation
//! ([`movegen`]), perft ([`perft`]); this file holds the position itself.

mod movegen;
mod moves;
mod perft;

pub(crate) use movegen::*;
pub use moves::{MAX_MOVES, Move, MoveKind, MoveList};
pub use perft::{perft, perft_divide};

use crate::attacks::tables;
use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, Rank, Role, Square};
use crate::zobrist;

/// How castling rights are written and castling moves are spelled.
///
/// The rules are the same code path for both (castling rights are stored by rook square):
/// only notation differs. Standard chess writes `KQkq` and UCI `e1g1`; Chess960 (FIDE Laws,
/// Guidelines III on Chess960) writes the rook files (Shredder-FEN or X-FEN) and UCI king-takes-rook
/// (`e1h1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CastlingMode {
    /// Standard chess: king on the e-file, rooks on the a- and h-files.
    #[default]
    Standard,
    /// Chess960 (Fischer random chess).
    Chess960,
}

/// The state of a position with respect to its legal moves (FIDE Laws 5.1.1, 5.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has at least one legal move.
    Ongoing,
    /// The side to move is in check and has no legal move (FIDE Laws 5.1.1).
    Checkmate,
    /// The side to move is not in check and has no legal move (FIDE Laws 5.2.1).
    Stalemate,
}

/// A chess position: piece placement, side to move, castling rights, en passant square, halfmove
/// clock and fullmove number, plus its Zobrist key.
///
/// Positions are values (about 100 bytes): [`Position::play`] returns a new one.
#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) turn: Color,
    /// Squares of the rooks that still have castling rights (FIDE Laws 3.8.2.1).
    pub(crate) castling: Bitboard,
    /// The en passant square, kept only when an en passant capture is legal (FIDE Laws 9.2.3).
    pub(crate) ep_square: Option<Square>,
    /// The square a pawn skipped with a double step on the last move (or the FEN's en passant
    /// square), whether or not an en passant capture is legal: it tells an illegal capture
    /// that exposes the king (3.9.2) from one that came too late (3.7.3.2). Not part of the
    /// position under 9.2.3: neither compared nor hashed.
    pub(crate) double_step: Option<Square>,
    pub(crate) halfmove_clock: u32,
    pub(crate) fullmove_number: u32,
    pub(crate) mode: CastlingMode,
    pub(crate) key: u64,
    /// The pieces giving check to the side to move: derived from the placement and the side to
    /// move, kept up to date by [`Position::play_in_place`] and set when a position is built
    /// (`refresh_checkers`), so that asking whether a side is in check costs nothing.
    pub(crate) checkers: Bitboard,
}

impl PartialEq for Position {
    /// Same placement, side to move, castling rights, en passant square, clocks and mode.
    fn eq(&self, other: &Position) -> bool {
        self.by_role == other.by_role
            && self.by_color == other.by_color
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep_square == other.ep_square
            && self.halfmove_clock == other.halfmove_clock
            && self.fullmove_number == other.fullmove_number
            && self.mode == other.mode
    }
}

impl Eq for Position {}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    /// The initial position of standard chess (FIDE Laws 2.3): Chess960 arrangement 518 with
    /// standard castling notation.
    #[must_use]
    pub fn startpos() -> Position {
        let mut p =
            Position::chess960(518).unwrap_or_else(|| Position::empty(CastlingMode::Standard));
        p.mode = CastlingMode::Standard;
        p
    }

    /// An empty board, White to move, no rights, clocks 0 and 1. Not a legal position by itself.
    pub(crate) fn empty(mode: CastlingMode) -> Position {
        Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
            double_step: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            mode,
            key: 0,
            checkers: Bitboard::EMPTY,
        }
    }

    #[inline]
    pub(crate) fn put(&mut self, sq: Square, color: Color, role: Role) {
        let b = Bitboard::from_square(sq);
        self.by_role[role.index()] |= b;
        self.by_color[color.index()] |= b;
    }

    #[inline]
    fn remove(&mut self, sq: Square, color: Color, role: Role) {
        let b = !Bitboard::from_square(sq);
        self.by_role[role.index()] &= b;
        self.by_color[color.index()] &= b;
    }

    /// The side to move.
    #[inline]
    #[must_use]
    pub fn side_to_move(&self) -> Color {
        self.turn
    }

    /// The castling notation mode this position was read or created with.
    #[inline]
    #[must_use]
    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// The squares of the rooks that still have castling rights, both colors (FIDE Laws 3.8.2.1:
    /// rights, not the momentary possibility of castling).
    #[inline]
    #[must_use]
    pub fn castling_rights(&self) -> Bitboard {
        self.castling
    }

    /// The en passant square: the square a pawn skipped with a double step on the last move, present
    /// only when the side to move has a legal en passant capture there (FIDE Laws 3.7.3.1, 9.2.3).
    #[inline]
    #[must_use]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Halfmoves (plies) since the last capture or pawn move (FIDE Laws 9.3, 9.6.2).
    #[inline]
    #[must_use]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The fullmove number: 1 at the start, incremented after each Black move.
    #[inline]
    #[must_use]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// The Zobrist key of the position, in the Polyglot layout (start position
    /// `0x463b96181691fc9c`), with the en passant part present only when an en passant capture is
    /// legal (FIDE Laws 9.2.3). Equal keys mean "the same position" for repetition (with the usual
    /// 64-bit hashing caveat). Maintained incrementally by [`Position::play`].
    #[inline]
    #[must_use]
    pub fn zobrist(&self) -> u64 {
        self.key
    }

    /// All occupied squares.
    #[inline]
    #[must_use]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares occupied by pieces of `color`.
    #[inline]
    #[must_use]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The squares occupied by pieces of `role`, both colors.
    #[inline]
    #[must_use]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares occupied by `piece`.
    #[inline]
    #[must_use]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role[piece.role.index()] & self.by_color[piece.color.index()]
    }

    /// The role on a square, if any.
    #[inline]
    #[must_use]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Role::ALL
            .into_iter()
            .find(|r| self.by_role[r.index()].contains(sq))
    }

    /// The piece on a square, if any.
    #[inline]
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }

    /// The king square of `color`. Positions built by this crate always have exactly one king of
    /// each color; `None` is returned only for malformed internal states.
    #[inline]
    #[must_use]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        (self.by_role[Role::King.index()] & self.by_color[color.index()]).first()
    }

    #[inline]
    fn our(&self, role: Role) -> Bitboard {
        self.by_role[role.index()] & self.by_color[self.turn.index()]
    }

    /// Pieces of `attacker` that attack `sq`, given the occupied squares `occupied`.
    #[inline]
    #[must_use]
    pub fn attackers(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        attackers_with(tables(), self, sq, attacker, occupied)
    }

    /// The pieces giving check to the side to move (empty when it has no king).
    #[inline]
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// The pieces giving check to the side to move, found from the board.
    pub(crate) fn compute_checkers(&self) -> Bitboard {
        match self.king_square(self.turn) {
            Some(k) => self.attackers(k, self.turn.other(), self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Sets the kept checkers after the placement or the side to move changed.
    #[inline]
    pub(crate) fn refresh_checkers(&mut self) {
        self.checkers = self.compute_checkers();
    }

    /// True when the side to move is in check (FIDE Laws 3.9.1).
    #[inline]
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.checkers().is_nonempty()
    }

    /// Checkmate, stalemate or ongoing (FIDE Laws 5.1.1, 5.2.1).
    #[must_use]
    pub fn status(&self) -> Status {
        if self.has_legal_move() {
            Status::Ongoing
        } else if self.is_check() {
            Status::Checkmate
        } else {
            Status::Stalemate
        }
    }

    /// True when the side to move is checkmated (FIDE Laws 5.1.1).
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        // The checkers are kept with the position: out of check, no move generation is needed.
        self.is_check() && !self.has_legal_move()
    }

    /// True when the side to move is stalemated (FIDE Laws 5.2.1).
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// True when the side to move has at least one legal move.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        let mut any = AnyMove(false);
        generate(self, &mut any);
        any.0
    }

    /// The number of legal moves of the side to move, counted without building the moves.
    #[must_use]
    pub fn count_legal_moves(&self) -> usize {
        let mut counter = MoveCounter(0);
        generate(self, &mut counter);
        counter.0 as usize
    }

    /// True when the side to move has more than `limit` legal moves: counted without building
    /// them, and the count stops once past `limit`.
    #[must_use]
    pub fn has_more_legal_moves_than(&self, limit: usize) -> bool {
        let mut counter = CountBeyond {
            counter: MoveCounter(0),
            limit: limit as u64,
        };
        generate(self, &mut counter);
        counter.done()
    }

    /// True when neither side has material to checkmate by any series of legal moves in the simple
    /// cases the FIDE Laws name (5.2.2 dead position): king against king, king and bishop against
    /// king, king and knight against king, and kings with any number of bishops that all stand on
    /// squares of one colour.
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.by_role(Role::Pawn) | self.by_role(Role::Rook) | self.by_role(Role::Queen);
        if heavy.is_nonempty() {
            return false;
        }
        let knights = self.by_role(Role::Knight);
        let bishops = self.by_role(Role::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true; // K v K, K+N v K, K+B v K
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & Bitboard::DARK_SQUARES).is_empty())
    }

    /// Rebuilds the Zobrist key from scratch (used when reading a FEN and in tests).
    #[must_use]
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            if let Some(p) = self.piece_at(sq) {
                key ^= zobrist::piece(p, sq);
            }
        }
        key ^= self.castling_key();
        if let Some(ep) = self.ep_square {
            key ^= zobrist::en_passant(ep.file());
        }
        if self.turn == Color::White {
            key ^= zobrist::turn();
        }
        key
    }

    /// The castling part of the Zobrist key: one Polyglot key per (color, side) right.
    fn castling_key(&self) -> u64 {
        self.castling_key_of(self.castling)
    }

    /// The Zobrist keys of the castling rights of the rooks on `rights`, XORed together.
    fn castling_key_of(&self, rights: Bitboard) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            let rooks = rights & Bitboard::from_rank(color.back_rank());
            if rooks.is_empty() {
                continue;
            }
            let Some(king) = self.king_square(color) else {
                continue;
            };
            for rook in rooks {
                key ^= zobrist::castling(color, rook.file() > king.file());
            }
        }
        key
    }

    /// All legal moves of the side to move (FIDE Laws 3), generated with precomputed attack
    /// tables, pin and check masks.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        generate(self, &mut list);
        list
    }

    /// The legal moves of pieces of `role` that land on a square of `to` (castling moves are
    /// included for the king when the castling rook's square is in `to`).
    ///
    /// For one destination square (the case of reading or writing SAN) the moves are found from
    /// that square backwards, without generating the other moves of the position; the list is the
    /// same set of moves as the general generation gives (an order is not promised).
    #[must_use]
    pub fn legal_moves_to(&self, role: Role, to: Bitboard) -> MoveList {
        let mut list = MoveList::new();
        if let Some(square) = to.first()
            && !to.more_than_one()
            && !(role == Role::King && self.castling.contains(square))
        {
            for m in self.legal_moves_to_square(role, square).iter() {
                list.push(*m);
            }
            return list;
        }
        generate(
            self,
            &mut FilteredList {
                role,
                to,
                list: &mut list,
            },
        );
        list
    }

    /// The legal moves of pieces of `role` to `to`, found backwards from `to` (castling excepted:
    /// the caller leaves it to [`generate`]). A move is legal when no enemy piece attacks the own
    /// king after it (FIDE Laws 3.9): for a king, on its destination with the king lifted; for
    /// another piece, on the king's square with the piece moved and a captured piece removed,
    /// which covers pins and checks at once.
    pub(crate) fn legal_moves_to_square(&self, role: Role, to: Square) -> SquareMoves {
        let mut list = SquareMoves::default();
        let t = tables();
        let us = self.turn;
        let them = us.other();
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[them.index()];
        let occupied = ours | theirs;
        let Some(king) = self.king_square(us) else {
            return list;
        };
        if ours.contains(to) {
            return list;
        }
        let to_bb = Bitboard::from_square(to);
        let in_check = self.checkers.is_nonempty();
        let queens = self.by_role[Role::Queen.index()];
        let sliders = theirs
            & (self.by_role[Role::Rook.index()] | self.by_role[Role::Bishop.index()] | queens);
        // Whether moving a piece from `from` to `to` leaves the own king unattacked.
        let safe = |from: Square| {
            // Out of check, a move can only uncover an attack along the line through the king
            // and `from`: without an enemy slider on it, the move is safe.
            if !in_check && (t.line(king, from) & sliders).is_empty() {
                return true;
            }
            let after = (occupied ^ Bitboard::from_square(from)) | to_bb;
            (attackers_with(t, self, king, them, after) & !to_bb).is_empty()
        };
        let pieces = self.our(role);
        match role {
            Role::King => {
                if t.king(king).contains(to)
                    && attackers_with(t, self, to, them, occupied ^ Bitboard::from_square(king))
                        .is_empty()
                {
                    expand_piece(self, Role::King, king, to_bb, |m| list.push(m));
                }
            }
            Role::Pawn => {
                let forward: i32 = if us == Color::White { 8 } else { -8 };
                let origins = if theirs.contains(to) {
                    t.pawn(them, to) & pieces
                } else if occupied.contains(to) {
                    Bitboard::EMPTY
                } else {
                    let behind = shift(to_bb, -forward);
                    let mut origins = behind & pieces;
                    if to.rank() == Rank::Fourth.relative_to(us) && (behind & occupied).is_empty() {
                        origins |= shift(behind, -forward) & pieces;
                    }
                    if self.ep_square == Some(to) {
                        for from in t.pawn(them, to) & pieces {
                            if ep_is_legal(t, self, from, to) {
                                list.push(Move {
                                    from,
                                    to,
                                    role: Role::Pawn,
                                    capture: Some(Role::Pawn),
                                    promotion: None,
                                    kind: MoveKind::EnPassant,
                                });
                            }
                        }
                    }
                    origins
                };
                for from in origins {
                    if safe(from) {
                        expand_pawn(self, from, to, |m| list.push(m));
                    }
                }
            }
            Role::Knight | Role::Bishop | Role::Rook | Role::Queen => {
                let reach = match role {
                    Role::Knight => t.knight(to),
                    Role::Bishop => t.bishop(to, occupied),
                    Role::Rook => t.rook(to, occupied),
                    _ => t.bishop(to, occupied) | t.rook(to, occupied),
                };
                for from in reach & pieces {
                    if safe(from) {
                        expand_piece(self, role, from, to_bb, |m| list.push(m));
                    }
                }
            }
        }
        list
    }

    /// Plays a move and returns the new position. The move must be legal in this position (one
    /// of [`Position::legal_moves`], or the result of a parse function of this crate): for other
    /// moves the result is unspecified (never a panic or unsafety). Updates the Zobrist key
    /// incrementally, the clocks (FIDE Laws 9.3) and the castling rights.
    #[must_use]
    pub fn play(&self, m: &Move) -> Position {
        let mut p = self.clone();
        p.play_in_place(m);
        p
    }

    /// Plays a legal move in place; see [`Position::play`].
    pub fn play_in_place(&mut self, m: &Move) {
        self.play_keeping::<true>(m);
    }

    /// Plays a legal move in place keeping only what move generation reads (placement, side to
    /// move, castling rights, en passant square): the Zobrist key, the clocks and the checkers
    /// are left stale. For positions that never leave the crate's own searches (perft).
    pub(crate) fn play_for_movegen(&mut self, m: &Move) {
        self.play_keeping::<false>(m);
    }

    /// [`Position::play_in_place`], with the Zobrist key, the clocks and the checkers updated
    /// only when `KEY_CLOCKS_CHECKERS` is set.
    #[inline(always)]
    fn play_keeping<const KEY_CLOCKS_CHECKERS: bool>(&mut self, m: &Move) {
        let us = self.turn;
        let them = us.other();
        let mut key = self.key ^ zobrist::turn();
        // Castling rights lost by this move: the king's, or a rook's leaving or being captured.
        // Their keys are removed here, relative to the king squares before the move.
        let mut touched = Bitboard::from_square(m.from) | Bitboard::from_square(m.to);
        if m.role == Role::King {
            touched |= Bitboard::from_rank(us.back_rank());
        }
        let lost = self.castling & touched;
        if lost.is_nonempty() {
            if KEY_CLOCKS_CHECKERS {
                key ^= self.castling_key_of(lost);
            }
            self.castling &= !lost;
        }
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::en_passant(ep.file());
        }
        // Clocks saturate at the largest values the FEN reader accepts, so every position this
        // crate writes can be read back.
        let mut halfmove_clock = (self.halfmove_clock + 1).min(crate::setup::MAX_HALFMOVE_CLOCK);
        match m.kind {
            MoveKind::Castle => {
                let king_to = m.king_destination();
                let rook_to = m.rook_destination().unwrap_or(m.to);
                self.remove(m.from, us, Role::King);
                self.remove(m.to, us, Role::Rook);
                self.put(king_to, us, Role::King);
                self.put(rook_to, us, Role::Rook);
                key ^= zobrist::piece_of(us, Role::King, m.from)
                    ^ zobrist::piece_of(us, Role::King, king_to)
                    ^ zobrist::piece_of(us, Role::Rook, m.to)
                    ^ zobrist::piece_of(us, Role::Rook, rook_to);
            }
            MoveKind::EnPassant => {
                let captured = Square::from_coords(m.to.file(), m.from.rank());
                self.remove(captured, them, Role::Pawn);
                self.remove(m.from, us, Role::Pawn);
                self.put(m.to, us, Role::Pawn);
                key ^= zobrist::piece_of(them, Role::Pawn, captured)
                    ^ zobrist::piece_of(us, Role::Pawn, m.from)
                    ^ zobrist::piece_of(us, Role::Pawn, m.to);
                halfmove_clock = 0;
            }
            MoveKind::Normal => {
                if let Some(captured) = m.capture {
                    self.remove(m.to, them, captured);
                    key ^= zobrist::piece_of(them, captured, m.to);
                    halfmove_clock = 0;
                }
                let placed = m.promotion.unwrap_or(m.role);
                self.remove(m.from, us, m.role);
                self.put(m.to, us, placed);
                key ^= zobrist::piece(
                    Piece {
                        color: us,
                        role: m.role,
                    },
                    m.from,
                ) ^ zobrist::piece_of(us, placed, m.to);
                if m.role == Role::Pawn {
                    halfmove_clock = 0;
                }
            }
        }
        if KEY_CLOCKS_CHECKERS && us == Color::Black {
            self.fullmove_number =
                (self.fullmove_number + 1).min(crate::setup::MAX_FULLMOVE_NUMBER);
        }
        self.turn = them;
        if KEY_CLOCKS_CHECKERS {
            self.refresh_checkers();
        }
        self.double_step = None;
        if m.role == Role::Pawn && m.from.index().abs_diff(m.to.index()) == 16 {
            let skipped = Square::new_masked(((m.from.index() + m.to.index()) / 2) as u32);
            self.double_step = Some(skipped);
            if self.has_legal_ep_capture(skipped) {
                self.ep_square = Some(skipped);
                key ^= zobrist::en_passant(skipped.file());
            }
        }
        if KEY_CLOCKS_CHECKERS {
            self.key = key;
            self.halfmove_clock = halfmove_clock;
        }
    }

    /// True when the side to move can legally capture en passant on `target` (the skipped square).
    pub(crate) fn has_legal_ep_capture(&self, target: Square) -> bool {
        let t = tables();
        let us = self.turn;
        let candidates = t.pawn(us.other(), target) & self.our(Role::Pawn);
        candidates
            .into_iter()
            .any(|from| ep_is_legal(t, self, from, target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::FenOptions;

    /// Walks every line to `depth` and checks what is kept incrementally (key, checkers) and the
    /// counting generators against a recomputation and the full generation.
    fn walk(pos: &Position, depth: u32) {
        assert_eq!(pos.zobrist(), pos.compute_key(), "{}", pos.to_fen());
        assert_eq!(pos.checkers(), pos.compute_checkers(), "{}", pos.to_fen());
        assert_eq!(pos.count_legal_moves(), pos.legal_moves().len());
        for limit in [0, 2, 30] {
            assert_eq!(
                pos.has_more_legal_moves_than(limit),
                pos.legal_moves().len() > limit,
                "{}",
                pos.to_fen()
            );
        }
        if depth == 0 {
            return;
        }
        for m in pos.legal_moves().iter() {
            walk(&pos.play(m), depth - 1);
        }
    }

    /// The moves of every role to every single square, found backwards, as sorted UCI.
    fn backwards(pos: &Position, role: Role, to: Square) -> Vec<String> {
        let mut moves: Vec<String> = pos
            .legal_moves_to(role, Bitboard::from_square(to))
            .iter()
            .map(|m| format!("{}{}{:?}{:?}", m.from, m.to, m.promotion, m.kind))
            .collect();
        moves.sort();
        moves
    }

    /// The same moves taken from the full generation.
    fn forwards(pos: &Position, role: Role, to: Square) -> Vec<String> {
        let mut moves: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| m.role == role && m.to == to)
            .map(|m| format!("{}{}{:?}{:?}", m.from, m.to, m.promotion, m.kind))
            .collect();
        moves.sort();
        moves
    }

    /// Walks every line to `depth` and checks the backward search of each role and square against
    /// the full generation (pins, checks, double checks, en passant, promotions, castling).
    fn walk_backwards(pos: &Position, depth: u32) {
        for role in Role::ALL {
            for to in Bitboard::FULL {
                assert_eq!(
                    backwards(pos, role, to),
                    forwards(pos, role, to),
                    "{role:?} to {to} in {}",
                    pos.to_fen()
                );
            }
        }
        if depth > 0 {
            for m in pos.legal_moves().iter() {
                walk_backwards(&pos.play(m), depth - 1);
            }
        }
    }

    #[test]
    fn moves_to_one_square_match_the_full_generation() {
        for (fen, depth) in [
            // Kiwipete: castling both ways, pins, en passant after double pushes.
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                2,
            ),
            // Rank pin of an en passant capture, checks by pawns.
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3),
            // Promotions with capture, checks and pinned pieces.
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                2,
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                2,
            ),
            // An en passant capture that answers the check of the pawn it takes.
            ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 3),
            ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 2),
        ] {
            let pos = Position::from_fen_with(fen, FenOptions::default()).unwrap();
            walk_backwards(&pos, depth);
        }
    }

    #[test]
    fn incremental_key_and_checkers_match_recomputation() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let pos = Position::from_fen_with(fen, FenOptions::default()).unwrap();
            walk(&pos, 3);
        }
    }
}
