//! The position: placement, side to move, castling rights, en passant square and clocks
//! (FIDE Laws 2, 3 and 9.2.3), with legal move generation and making moves.

use std::fmt;

use arrayvec::ArrayVec;

use crate::attacks::{Tables, tables};
use crate::bitboard::Bitboard;
use crate::types::{Color, File, Piece, Rank, Role, Square};
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
/// the permissive FEN reader accepts unreachable positions with up to 271 moves.
pub const MAX_MOVES: usize = 320;

/// A list of moves with fixed capacity, stored inline on the stack (no heap allocation, no
/// initialization of unused slots).
#[derive(Clone)]
pub struct MoveList {
    moves: ArrayVec<Move, MAX_MOVES>,
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
    fn push(&mut self, m: Move) {
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
    pub(crate) halfmove_clock: u32,
    pub(crate) fullmove_number: u32,
    pub(crate) mode: CastlingMode,
    pub(crate) key: u64,
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
            halfmove_clock: 0,
            fullmove_number: 1,
            mode,
            key: 0,
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

    /// The pieces giving check to the side to move.
    #[inline]
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        match self.king_square(self.turn) {
            Some(k) => self.attackers(k, self.turn.other(), self.occupied()),
            None => Bitboard::EMPTY,
        }
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
        self.status() == Status::Checkmate
    }

    /// True when the side to move is stalemated (FIDE Laws 5.2.1).
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        self.status() == Status::Stalemate
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
        // Whether moving a piece from `from` to `to` leaves the own king unattacked.
        let safe = |from: Square| {
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
            key ^= self.castling_key_of(lost);
            self.castling &= !lost;
        }
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::en_passant(ep.file());
        }
        // Clocks saturate at the largest values the FEN reader accepts, so every position this
        // crate writes can be read back.
        self.halfmove_clock = (self.halfmove_clock + 1).min(crate::fen::MAX_HALFMOVE_CLOCK);
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
                self.halfmove_clock = 0;
            }
            MoveKind::Normal => {
                if let Some(captured) = m.capture {
                    self.remove(m.to, them, captured);
                    key ^= zobrist::piece_of(them, captured, m.to);
                    self.halfmove_clock = 0;
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
                    self.halfmove_clock = 0;
                }
            }
        }
        if us == Color::Black {
            self.fullmove_number = (self.fullmove_number + 1).min(crate::fen::MAX_FULLMOVE_NUMBER);
        }
        self.turn = them;
        if m.role == Role::Pawn && m.from.index().abs_diff(m.to.index()) == 16 {
            let skipped = Square::new_masked(((m.from.index() + m.to.index()) / 2) as u32);
            if self.has_legal_ep_capture(skipped) {
                self.ep_square = Some(skipped);
                key ^= zobrist::en_passant(skipped.file());
            }
        }
        self.key = key;
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

#[inline]
pub(crate) fn attackers_with(
    t: &Tables,
    pos: &Position,
    sq: Square,
    attacker: Color,
    occupied: Bitboard,
) -> Bitboard {
    let them = pos.by_color[attacker.index()];
    let queens = pos.by_role[Role::Queen.index()];
    ((t.rook(sq, occupied) & (pos.by_role[Role::Rook.index()] | queens))
        | (t.bishop(sq, occupied) & (pos.by_role[Role::Bishop.index()] | queens))
        | (t.knight(sq) & pos.by_role[Role::Knight.index()])
        | (t.king(sq) & pos.by_role[Role::King.index()])
        | (t.pawn(attacker.other(), sq) & pos.by_role[Role::Pawn.index()]))
        & them
}

/// Full check of an en passant capture: after it, is the own king attacked?
/// Covers the rank discovery where both pawns leave the king's rank (FIDE Laws 3.9.2).
fn ep_is_legal(t: &Tables, pos: &Position, from: Square, target: Square) -> bool {
    let us = pos.turn;
    let Some(king) = pos.king_square(us) else {
        return false;
    };
    let captured = Square::from_coords(target.file(), from.rank());
    let occupied = (pos.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured))
        | Bitboard::from_square(target);
    let them = pos.by_color[us.other().index()] & !Bitboard::from_square(captured);
    let queens = pos.by_role[Role::Queen.index()];
    let attackers = ((t.rook(king, occupied) & (pos.by_role[Role::Rook.index()] | queens))
        | (t.bishop(king, occupied) & (pos.by_role[Role::Bishop.index()] | queens))
        | (t.knight(king) & pos.by_role[Role::Knight.index()])
        | (t.pawn(us, king) & pos.by_role[Role::Pawn.index()]))
        & them;
    attackers.is_empty()
}

/// The castling path facts for a king and one of its rooks (FIDE Laws 3.8.2; Chess960 Guidelines).
pub(crate) struct CastlePath {
    pub king_to: Square,
    /// Squares that must be empty apart from the king and the castling rook.
    pub must_be_empty: Bitboard,
    /// Squares the king stands on, crosses or lands on: none may be attacked.
    pub king_path: Bitboard,
}

#[inline]
pub(crate) fn castle_path(t: &Tables, king: Square, rook: Square) -> CastlePath {
    let rank = king.rank();
    let kingside = rook.file() > king.file();
    let king_to = Square::from_coords(if kingside { File::G } else { File::C }, rank);
    let rook_to = Square::from_coords(if kingside { File::F } else { File::D }, rank);
    let king_span = t.between(king, king_to) | Bitboard::from_square(king_to);
    let rook_span = t.between(rook, rook_to) | Bitboard::from_square(rook_to);
    CastlePath {
        king_to,
        must_be_empty: (king_span | rook_span)
            & !Bitboard::from_square(king)
            & !Bitboard::from_square(rook),
        king_path: king_span | Bitboard::from_square(king),
    }
}

/// Whether castling with the rook on `rook` is legal now, assuming the right exists and the side
/// to move is not in check.
pub(crate) fn castle_is_legal(t: &Tables, pos: &Position, king: Square, rook: Square) -> bool {
    let path = castle_path(t, king, rook);
    if (pos.occupied() & path.must_be_empty).is_nonempty() {
        return false;
    }
    // Attacks are judged with king and castling rook lifted off the board (Chess960 Guidelines).
    let occupied = pos.occupied() ^ Bitboard::from_square(king) ^ Bitboard::from_square(rook);
    let them = pos.turn.other();
    path.king_path
        .into_iter()
        .all(|sq| attackers_with(t, pos, sq, them, occupied).is_empty())
}

/// The pieces of the side to move pinned against their own king.
pub(crate) fn pinned(t: &Tables, pos: &Position, king: Square) -> Bitboard {
    let us = pos.by_color[pos.turn.index()];
    let them = pos.by_color[pos.turn.other().index()];
    let queens = pos.by_role[Role::Queen.index()];
    let snipers = ((t.rook(king, Bitboard::EMPTY) & (pos.by_role[Role::Rook.index()] | queens))
        | (t.bishop(king, Bitboard::EMPTY) & (pos.by_role[Role::Bishop.index()] | queens)))
        & them;
    let occupied = pos.occupied();
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = t.between(king, sniper) & occupied;
        if !blockers.more_than_one() {
            pinned |= blockers & us;
        }
    }
    pinned
}

/// Receives generated moves. Pieces and pawns arrive as sets of destinations so that counting
/// (perft) needs no per-move work; [`MoveList`] expands them into [`Move`]s.
pub(crate) trait MoveSink {
    /// Moves of a non-pawn piece of `role` from `from` to each square of `targets`.
    fn piece(&mut self, pos: &Position, role: Role, from: Square, targets: Bitboard);
    /// Pawn moves to each square of `targets`, each from `to - delta` (promotions expanded to Q,
    /// R, B, N on the last rank).
    fn pawns(&mut self, pos: &Position, targets: Bitboard, delta: i32);
    /// One pawn move from `from` to `to` (for pinned pawns), promotions expanded.
    fn pawn(&mut self, pos: &Position, from: Square, to: Square);
    /// A special move (en passant, castling).
    fn special(&mut self, m: Move);
    /// True when the sink needs no more moves (generation may stop early).
    #[inline]
    fn done(&self) -> bool {
        false
    }
}

/// The moves of a non-pawn piece of `role` from `from` to each square of `targets`, to `push`.
#[inline]
fn expand_piece(
    pos: &Position,
    role: Role,
    from: Square,
    targets: Bitboard,
    mut push: impl FnMut(Move),
) {
    let theirs = pos.by_color[pos.turn.other().index()];
    for to in targets {
        push(Move {
            from,
            to,
            role,
            capture: if theirs.contains(to) {
                pos.role_at(to)
            } else {
                None
            },
            promotion: None,
            kind: MoveKind::Normal,
        });
    }
}

/// The pawn move from `from` to `to`, as four moves (Q, R, B, N) on the last rank, to `push`.
#[inline]
fn expand_pawn(pos: &Position, from: Square, to: Square, mut push: impl FnMut(Move)) {
    let capture = if pos.occupied().contains(to) {
        pos.role_at(to)
    } else {
        None
    };
    if Bitboard::BACK_RANKS.contains(to) {
        for promotion in Role::PROMOTIONS {
            push(Move {
                from,
                to,
                role: Role::Pawn,
                capture,
                promotion: Some(promotion),
                kind: MoveKind::Normal,
            });
        }
    } else {
        push(Move {
            from,
            to,
            role: Role::Pawn,
            capture,
            promotion: None,
            kind: MoveKind::Normal,
        });
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn piece(&mut self, pos: &Position, role: Role, from: Square, targets: Bitboard) {
        expand_piece(pos, role, from, targets, |m| self.push(m));
    }

    #[inline]
    fn pawns(&mut self, pos: &Position, targets: Bitboard, delta: i32) {
        for to in targets {
            let from = Square::new_masked((to.index() as i32 - delta) as u32);
            self.pawn(pos, from, to);
        }
    }

    #[inline]
    fn pawn(&mut self, pos: &Position, from: Square, to: Square) {
        expand_pawn(pos, from, to, |m| self.push(m));
    }

    #[inline]
    fn special(&mut self, m: Move) {
        self.push(m);
    }
}

/// Most legal moves of one role to one square: 8 knights, or sliders from 8 directions, or 3
/// pawns times 4 promotions plus 2 en passant captures. The list leaves room to spare.
const MAX_MOVES_TO_SQUARE: usize = 32;

/// The legal moves of one role to one square (see [`Position::legal_moves_to_square`]), small
/// enough to pass around by value.
#[derive(Clone, Debug, Default)]
pub(crate) struct SquareMoves {
    moves: ArrayVec<Move, MAX_MOVES_TO_SQUARE>,
}

impl SquareMoves {
    #[inline]
    fn push(&mut self, m: Move) {
        // Never full (see MAX_MOVES_TO_SQUARE); stay panic-free anyway.
        let _ = self.moves.try_push(m);
    }

    /// Keeps only the moves for which `keep` returns true, in order.
    #[inline]
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        self.moves.retain(|m| keep(m));
    }
}

impl std::ops::Deref for SquareMoves {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves
    }
}

/// Builds only the moves of one role to a set of squares (for reading SAN).
struct FilteredList<'a> {
    role: Role,
    to: Bitboard,
    list: &'a mut MoveList,
}

impl MoveSink for FilteredList<'_> {
    #[inline]
    fn piece(&mut self, pos: &Position, role: Role, from: Square, targets: Bitboard) {
        if role == self.role {
            self.list.piece(pos, role, from, targets & self.to);
        }
    }

    #[inline]
    fn pawns(&mut self, pos: &Position, targets: Bitboard, delta: i32) {
        if self.role == Role::Pawn {
            self.list.pawns(pos, targets & self.to, delta);
        }
    }

    #[inline]
    fn pawn(&mut self, pos: &Position, from: Square, to: Square) {
        if self.role == Role::Pawn && self.to.contains(to) {
            self.list.pawn(pos, from, to);
        }
    }

    #[inline]
    fn special(&mut self, m: Move) {
        if m.role == self.role && self.to.contains(m.to) {
            self.list.push(m);
        }
    }
}

/// Records whether any legal move exists, stopping generation at the first one.
struct AnyMove(bool);

impl MoveSink for AnyMove {
    #[inline]
    fn piece(&mut self, _: &Position, _: Role, _: Square, targets: Bitboard) {
        self.0 |= targets.is_nonempty();
    }

    #[inline]
    fn pawns(&mut self, _: &Position, targets: Bitboard, _: i32) {
        self.0 |= targets.is_nonempty();
    }

    #[inline]
    fn pawn(&mut self, _: &Position, _: Square, _: Square) {
        self.0 = true;
    }

    #[inline]
    fn special(&mut self, _: Move) {
        self.0 = true;
    }

    #[inline]
    fn done(&self) -> bool {
        self.0
    }
}

/// Counts moves without building them (bulk counting for perft).
pub(crate) struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn piece(&mut self, _: &Position, _: Role, _: Square, targets: Bitboard) {
        self.0 += u64::from(targets.count());
    }

    #[inline]
    fn pawns(&mut self, _: &Position, targets: Bitboard, _: i32) {
        self.0 += u64::from((targets & !Bitboard::BACK_RANKS).count())
            + 4 * u64::from((targets & Bitboard::BACK_RANKS).count());
    }

    #[inline]
    fn pawn(&mut self, _: &Position, _: Square, to: Square) {
        self.0 += if Bitboard::BACK_RANKS.contains(to) {
            4
        } else {
            1
        };
    }

    #[inline]
    fn special(&mut self, _: Move) {
        self.0 += 1;
    }
}

#[inline]
fn shift(b: Bitboard, delta: i32) -> Bitboard {
    if delta >= 0 {
        Bitboard(b.0 << delta)
    } else {
        Bitboard(b.0 >> -delta)
    }
}

pub(crate) fn generate<S: MoveSink>(pos: &Position, sink: &mut S) {
    let t = tables();
    let us = pos.turn;
    let them = us.other();
    let Some(king) = pos.king_square(us) else {
        return;
    };
    let ours = pos.by_color[us.index()];
    let theirs = pos.by_color[them.index()];
    let occupied = ours | theirs;
    let checkers = attackers_with(t, pos, king, them, occupied);

    // King moves: the destination must not be attacked with the king lifted off the board.
    // Leaper attacks are computed once for the whole board; sliders only for the squares left.
    let without_king = occupied ^ Bitboard::from_square(king);
    let their_pawns = theirs & pos.by_role[Role::Pawn.index()];
    let back: i32 = if us == Color::White { -8 } else { 8 };
    let mut danger = shift(their_pawns & !Bitboard::from_file(File::A), back - 1)
        | shift(their_pawns & !Bitboard::from_file(File::H), back + 1);
    for knight in theirs & pos.by_role[Role::Knight.index()] {
        danger |= t.knight(knight);
    }
    if let Some(their_king) = (theirs & pos.by_role[Role::King.index()]).first() {
        danger |= t.king(their_king);
    }
    let mut king_targets = t.king(king) & !ours & !danger;
    let queens = pos.by_role[Role::Queen.index()];
    let rook_like = theirs & (pos.by_role[Role::Rook.index()] | queens);
    let bishop_like = theirs & (pos.by_role[Role::Bishop.index()] | queens);
    if (rook_like | bishop_like).is_nonempty() {
        for to in king_targets {
            if (t.rook(to, without_king) & rook_like).is_nonempty()
                || (t.bishop(to, without_king) & bishop_like).is_nonempty()
            {
                king_targets ^= Bitboard::from_square(to);
            }
        }
    }
    sink.piece(pos, Role::King, king, king_targets);
    if checkers.more_than_one() || sink.done() {
        return; // double check: only the king may move (FIDE Laws 3.9)
    }
    let target = match checkers.first() {
        Some(checker) => t.between(king, checker) | checkers,
        None => Bitboard::FULL,
    };
    let pinned = pinned(t, pos, king);
    let movable = !ours & target;

    // Knights: a pinned knight can never move.
    for from in pos.our(Role::Knight) & !pinned {
        sink.piece(pos, Role::Knight, from, t.knight(from) & movable);
    }
    if sink.done() {
        return;
    }
    // Sliders: a pinned slider may move along the pin line only.
    let queens = pos.our(Role::Queen);
    for from in pos.our(Role::Bishop) | queens {
        let role = if queens.contains(from) {
            Role::Queen
        } else {
            Role::Bishop
        };
        let mut targets = t.bishop(from, occupied) & movable;
        if pinned.contains(from) {
            targets &= t.line(king, from);
        }
        if role == Role::Bishop {
            sink.piece(pos, role, from, targets);
        } else {
            let mut rook = t.rook(from, occupied) & movable;
            if pinned.contains(from) {
                rook &= t.line(king, from);
            }
            sink.piece(pos, role, from, targets | rook);
        }
    }
    for from in pos.our(Role::Rook) {
        let mut targets = t.rook(from, occupied) & movable;
        if pinned.contains(from) {
            targets &= t.line(king, from);
        }
        sink.piece(pos, Role::Rook, from, targets);
    }
    if sink.done() {
        return;
    }
    // Pawns: unpinned pawns set-wise, pinned pawns one by one along their pin line.
    let pawns = pos.our(Role::Pawn);
    let forward: i32 = if us == Color::White { 8 } else { -8 };
    let empty = !occupied;
    let third = Bitboard::from_rank(Rank::Third.relative_to(us));
    let free = pawns & !pinned;
    let single = shift(free, forward) & empty;
    let double = shift(single & third, forward) & empty & target;
    sink.pawns(pos, single & target, forward);
    sink.pawns(pos, double, 2 * forward);
    let (not_a, not_h) = (!Bitboard::from_file(File::A), !Bitboard::from_file(File::H));
    // Captures towards the h-file come from pawns not on the h-file, and vice versa.
    sink.pawns(
        pos,
        shift(free & not_h, forward + 1) & theirs & target,
        forward + 1,
    );
    sink.pawns(
        pos,
        shift(free & not_a, forward - 1) & theirs & target,
        forward - 1,
    );
    for from in pawns & pinned {
        let line = t.line(king, from);
        let one = shift(Bitboard::from_square(from), forward) & empty;
        let mut targets = one | (shift(one & third, forward) & empty);
        targets |= t.pawn(us, from) & theirs;
        for to in targets & target & line {
            sink.pawn(pos, from, to);
        }
    }
    if let Some(ep) = pos.ep_square {
        // The square is kept only when some capture there is legal: with one candidate, that is it.
        let candidates = t.pawn(them, ep) & pawns;
        let single = !candidates.more_than_one();
        for from in candidates {
            if single || ep_is_legal(t, pos, from, ep) {
                sink.special(Move {
                    from,
                    to: ep,
                    role: Role::Pawn,
                    capture: Some(Role::Pawn),
                    promotion: None,
                    kind: MoveKind::EnPassant,
                });
            }
        }
    }
    // Castling: never out of check (FIDE Laws 3.8.2.2).
    if checkers.is_empty() {
        for rook in pos.castling & ours & Bitboard::from_rank(us.back_rank()) {
            if castle_is_legal(t, pos, king, rook) {
                sink.special(Move {
                    from: king,
                    to: rook,
                    role: Role::King,
                    capture: None,
                    promotion: None,
                    kind: MoveKind::Castle,
                });
            }
        }
    }
}

/// Counts the legal move paths of `depth` plies from `pos` (perft). Depth 0 counts 1.
///
/// The last ply is counted without playing the moves (bulk counting).
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_moves() as u64;
    }
    pos.legal_moves()
        .iter()
        .map(|m| perft(&pos.play(m), depth - 1))
        .sum()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::FenOptions;

    /// Walks every line to `depth` and checks the incremental key against a recomputation.
    fn walk(pos: &Position, depth: u32) {
        assert_eq!(pos.zobrist(), pos.compute_key(), "{}", pos.to_fen());
        assert_eq!(pos.count_legal_moves(), pos.legal_moves().len());
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
    fn incremental_zobrist_matches_recomputation() {
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
