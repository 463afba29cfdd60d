//! Legal move generation (FIDE Laws 3): attack and pin masks, castling paths, en passant
//! legality, and the move sinks that collect, filter or count the generated moves.

use std::sync::LazyLock;

use arrayvec::ArrayVec;

use super::{Move, MoveKind, MoveList, Position};
use crate::attacks::{Tables, tables};
use crate::bitboard::Bitboard;
use crate::types::{Color, File, Rank, Role, Square};

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

/// True when a piece of `attacker` attacks `sq`, given the occupied squares `occupied`: the
/// answer of [`attackers_with`], found with fewer lookups (a slider attack lookup only when some
/// slider stands on a line through the square, and none once an attacker is found).
#[inline]
fn is_attacked(
    t: &Tables,
    pos: &Position,
    sq: Square,
    attacker: Color,
    occupied: Bitboard,
) -> bool {
    let them = pos.by_color[attacker.index()];
    let leapers = (t.knight(sq) & pos.by_role[Role::Knight.index()])
        | (t.king(sq) & pos.by_role[Role::King.index()])
        | (t.pawn(attacker.other(), sq) & pos.by_role[Role::Pawn.index()]);
    if (leapers & them).is_nonempty() {
        return true;
    }
    let queens = pos.by_role[Role::Queen.index()];
    let rook_like = (pos.by_role[Role::Rook.index()] | queens) & them & t.rook_rays(sq);
    let bishop_like = (pos.by_role[Role::Bishop.index()] | queens) & them & t.bishop_rays(sq);
    (rook_like.is_nonempty() && (t.rook(sq, occupied) & rook_like).is_nonempty())
        || (bishop_like.is_nonempty() && (t.bishop(sq, occupied) & bishop_like).is_nonempty())
}

/// Full check of an en passant capture: after it, is the own king attacked?
/// Covers the rank discovery where both pawns leave the king's rank (FIDE Laws 3.9.2).
pub(super) fn ep_is_legal(t: &Tables, pos: &Position, from: Square, target: Square) -> bool {
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

/// [`castle_path`] for each king square and file of the rook (on the king's rank), built once:
/// move generation looks a path up for every castling right of every position.
static CASTLE_PATHS: LazyLock<Box<[[CastlePath; 8]; 64]>> = LazyLock::new(|| {
    let t = tables();
    Box::new(std::array::from_fn(|king| {
        let king = Square::new_masked(king as u32);
        std::array::from_fn(|file| {
            castle_path(
                t,
                king,
                Square::from_coords(File::new(file as u32), king.rank()),
            )
        })
    }))
});

/// Whether castling with the rook on `rook` is legal now, assuming the right exists and the side
/// to move is not in check.
#[inline]
pub(crate) fn castle_is_legal(t: &Tables, pos: &Position, king: Square, rook: Square) -> bool {
    let path = &CASTLE_PATHS[king.index()][rook.file().index() as usize];
    // Most positions are settled by the empty squares, checked here where it costs no call.
    (pos.occupied() & path.must_be_empty).is_empty() && king_path_is_safe(t, pos, king, rook, path)
}

/// True when no square of `path.king_path` is attacked, with king and castling rook lifted off
/// the board (Chess960 Guidelines).
// Out of line: rarely reached, and inlined into the generator it would crowd its registers.
#[inline(never)]
fn king_path_is_safe(
    t: &Tables,
    pos: &Position,
    king: Square,
    rook: Square,
    path: &CastlePath,
) -> bool {
    let occupied = pos.occupied() ^ Bitboard::from_square(king) ^ Bitboard::from_square(rook);
    let them = pos.turn.other();
    path.king_path
        .into_iter()
        .all(|sq| !is_attacked(t, pos, sq, them, occupied))
}

/// The enemy pieces giving check to the king of `color` on `king`, and the pieces of `color`
/// pinned against it: one pass over the enemy sliders on the king's lines, each a checker when
/// nothing stands between, a pinner when one piece of `color` does.
pub(crate) fn checkers_and_pinned(
    t: &Tables,
    pos: &Position,
    color: Color,
    king: Square,
) -> (Bitboard, Bitboard) {
    let us = pos.by_color[color.index()];
    let them = pos.by_color[color.other().index()];
    let queens = pos.by_role[Role::Queen.index()];
    let snipers = ((t.rook_rays(king) & (pos.by_role[Role::Rook.index()] | queens))
        | (t.bishop_rays(king) & (pos.by_role[Role::Bishop.index()] | queens)))
        & them;
    let mut checkers = ((t.knight(king) & pos.by_role[Role::Knight.index()])
        | (t.pawn(color, king) & pos.by_role[Role::Pawn.index()]))
        & them;
    let occupied = pos.occupied();
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = t.between(king, sniper) & occupied;
        if blockers.is_empty() {
            checkers |= Bitboard::from_square(sniper);
        } else if !blockers.more_than_one() {
            pinned |= blockers & us;
        }
    }
    (checkers, pinned)
}

/// Receives generated moves. Pieces and pawns arrive as sets of destinations so that counting
/// (perft) needs no per-move work; [`MoveList`] expands them into [`Move`]s.
pub(crate) trait MoveSink {
    /// Moves of a non-pawn piece of `role` from `from` to each square of `targets`.
    fn piece(&mut self, pos: &Position, role: Role, from: Square, targets: Bitboard);
    /// Pawn moves to each square of `targets`, each from `to - delta` (promotions expanded to Q,
    /// R, B, N on the last rank).
    fn pawns(&mut self, pos: &Position, targets: Bitboard, delta: i32);
    /// The moves of the pawns that are not pinned, all at once; by default each set goes to
    /// [`MoveSink::pawns`] in turn (pushes, double pushes, captures towards the h-file, then
    /// towards the a-file).
    #[inline]
    fn free_pawns(&mut self, pos: &Position, moves: &FreePawnMoves) {
        self.pawns(pos, moves.pushes, moves.forward);
        self.pawns(pos, moves.double_pushes, 2 * moves.forward);
        self.pawns(pos, moves.captures_h_side, moves.forward + 1);
        self.pawns(pos, moves.captures_a_side, moves.forward - 1);
    }
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

/// The destinations of the moves of the pawns that are not pinned, by kind of move.
///
/// Pushes and double pushes land on empty squares and captures on enemy pieces, and a double push
/// needs the square a single push would come from to be empty: only the two capture sets can share
/// a square (two pawns taking the same piece).
pub(crate) struct FreePawnMoves {
    /// One step forward, from `to - forward`.
    pub pushes: Bitboard,
    /// Two steps forward from the pawn's start rank, from `to - 2 * forward`.
    pub double_pushes: Bitboard,
    /// Captures towards the h-file, from `to - (forward + 1)`.
    pub captures_h_side: Bitboard,
    /// Captures towards the a-file, from `to - (forward - 1)`.
    pub captures_a_side: Bitboard,
    /// One rank forward for the side to move, in square indices: 8 for White, -8 for Black.
    pub forward: i32,
}

/// The moves of a non-pawn piece of `role` from `from` to each square of `targets`, to `push`.
#[inline]
pub(super) fn expand_piece(
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
pub(super) fn expand_pawn(pos: &Position, from: Square, to: Square, mut push: impl FnMut(Move)) {
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
pub(super) const MAX_MOVES_TO_SQUARE: usize = 32;

/// The legal moves of one role to one square (see [`Position::legal_moves_to_square`]), small
/// enough to pass around by value.
#[derive(Clone, Debug, Default)]
pub(crate) struct SquareMoves {
    moves: ArrayVec<Move, MAX_MOVES_TO_SQUARE>,
}

impl SquareMoves {
    #[inline]
    pub(super) fn push(&mut self, m: Move) {
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
pub(super) struct FilteredList<'a> {
    pub(super) role: Role,
    pub(super) to: Bitboard,
    pub(super) list: &'a mut MoveList,
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
pub(super) struct AnyMove(pub(super) bool);

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
        self.0 += u64::from(targets.count());
        let promotions = targets & Bitboard::BACK_RANKS;
        if promotions.is_nonempty() {
            self.0 += 3 * u64::from(promotions.count());
        }
    }

    #[inline]
    fn free_pawns(&mut self, pos: &Position, moves: &FreePawnMoves) {
        // The sets other than one capture set are disjoint (see FreePawnMoves): two counts.
        let disjoint = moves.pushes | moves.double_pushes | moves.captures_h_side;
        self.pawns(pos, disjoint, 0);
        self.pawns(pos, moves.captures_a_side, 0);
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

/// Counts moves without building them until there are more than `limit`, then stops the
/// generation.
pub(crate) struct CountBeyond {
    pub counter: MoveCounter,
    pub limit: u64,
}

impl MoveSink for CountBeyond {
    #[inline]
    fn piece(&mut self, pos: &Position, role: Role, from: Square, targets: Bitboard) {
        self.counter.piece(pos, role, from, targets);
    }

    #[inline]
    fn pawns(&mut self, pos: &Position, targets: Bitboard, delta: i32) {
        self.counter.pawns(pos, targets, delta);
    }

    #[inline]
    fn free_pawns(&mut self, pos: &Position, moves: &FreePawnMoves) {
        self.counter.free_pawns(pos, moves);
    }

    #[inline]
    fn pawn(&mut self, pos: &Position, from: Square, to: Square) {
        self.counter.pawn(pos, from, to);
    }

    #[inline]
    fn special(&mut self, m: Move) {
        self.counter.special(m);
    }

    #[inline]
    fn done(&self) -> bool {
        self.counter.0 > self.limit
    }
}

#[inline]
pub(super) fn shift(b: Bitboard, delta: i32) -> Bitboard {
    if delta >= 0 {
        Bitboard(b.0 << delta)
    } else {
        Bitboard(b.0 >> -delta)
    }
}

/// Generates the legal moves of the side to move into `sink`.
pub(crate) fn generate<S: MoveSink>(pos: &Position, sink: &mut S) {
    // One copy of the generator per side to move: pawn directions and ranks become constants.
    match pos.turn {
        Color::White => generate_for::<S, true>(pos, sink),
        Color::Black => generate_for::<S, false>(pos, sink),
    }
}

/// [`generate`] for the side to move White (`WHITE`) or Black.
#[inline]
fn generate_for<S: MoveSink, const WHITE: bool>(pos: &Position, sink: &mut S) {
    let t = tables();
    let us = if WHITE { Color::White } else { Color::Black };
    let them = us.other();
    let Some(king) = pos.king_square(us) else {
        return;
    };
    let ours = pos.by_color[us.index()];
    let theirs = pos.by_color[them.index()];
    let occupied = ours | theirs;
    // Found here rather than read from the position: perft's positions do not keep them.
    let (checkers, pinned) = checkers_and_pinned(t, pos, us, king);

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
        // The empty-board rays rule out most squares before a slider attack lookup.
        for to in king_targets {
            if ((t.rook_rays(to) & rook_like).is_nonempty()
                && (t.rook(to, without_king) & rook_like).is_nonempty())
                || ((t.bishop_rays(to) & bishop_like).is_nonempty()
                    && (t.bishop(to, without_king) & bishop_like).is_nonempty())
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
    let movable = !ours & target;
    let our = |role: Role| pos.by_role[role.index()] & ours;

    // Knights: a pinned knight can never move.
    for from in our(Role::Knight) & !pinned {
        sink.piece(pos, Role::Knight, from, t.knight(from) & movable);
    }
    if sink.done() {
        return;
    }
    // Sliders: a pinned slider may move along the pin line only.
    let queens = our(Role::Queen);
    for from in our(Role::Bishop) | queens {
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
    for from in our(Role::Rook) {
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
    let pawns = our(Role::Pawn);
    let forward: i32 = if us == Color::White { 8 } else { -8 };
    let empty = !occupied;
    let third = Bitboard::from_rank(Rank::Third.relative_to(us));
    let free = pawns & !pinned;
    let single = shift(free, forward) & empty;
    let double = shift(single & third, forward) & empty & target;
    let (not_a, not_h) = (!Bitboard::from_file(File::A), !Bitboard::from_file(File::H));
    sink.free_pawns(
        pos,
        &FreePawnMoves {
            pushes: single & target,
            double_pushes: double,
            // Captures towards the h-file come from pawns not on the h-file, and vice versa.
            captures_h_side: shift(free & not_h, forward + 1) & theirs & target,
            captures_a_side: shift(free & not_a, forward - 1) & theirs & target,
            forward,
        },
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
