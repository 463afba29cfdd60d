//! A fast path for the common shapes of SAN (`e4`, `exd5`, `e8=Q`, `Nf3`, `Nbd2`, `R1xe2`):
//! the move is found from the destination square with the attack sets of the rules crate, without
//! generating every legal move. Anything else, and any move that is not exactly one legal move,
//! returns `None` so that the caller falls back to `Position::parse_san`, which gives the precise
//! reason. Tests check that both agree on every move of the fixture games.

use arbiter_rules::{Bitboard, Color, File, Move, MoveKind, Piece, Position, Rank, Role, Square};

fn square(file: u8, rank: u8) -> Option<Square> {
    if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
        return None;
    }
    Some(Square::from_coords(
        File::new(u32::from(file - b'a')),
        Rank::new(u32::from(rank - b'1')),
    ))
}

/// The legal move `text` denotes when it is plain SAN and fits exactly one legal move.
pub(crate) fn fast_san(pos: &Position, text: &str) -> Option<Move> {
    let mut b = text.as_bytes();
    while let Some((&last, init)) = b.split_last() {
        if last == b'+' || last == b'#' {
            b = init;
        } else {
            break;
        }
    }
    match *b.first()? {
        b'a'..=b'h' => pawn_move(pos, b),
        b'N' | b'B' | b'R' | b'Q' | b'K' => piece_move(pos, b),
        _ => None,
    }
}

fn piece_move(pos: &Position, b: &[u8]) -> Option<Move> {
    let role = Role::from_char(char::from(b[0]))?;
    if b.len() < 3 {
        return None;
    }
    let to = square(b[b.len() - 2], b[b.len() - 1])?;
    let mut hint = &b[1..b.len() - 2];
    if let Some((&b'x', init)) = hint.split_last() {
        hint = init;
    }
    let (mut file, mut rank) = (None, None);
    for &c in hint {
        match c {
            b'a'..=b'h' if file.is_none() && rank.is_none() => {
                file = Some(File::new(u32::from(c - b'a')));
            }
            b'1'..=b'8' if rank.is_none() => rank = Some(Rank::new(u32::from(c - b'1'))),
            _ => return None,
        }
    }
    let us = pos.side_to_move();
    if pos.by_color(us).contains(to) {
        return None;
    }
    let occupied = pos.occupied();
    let mut from_set = pos.attackers(to, us, occupied) & pos.by_piece(Piece { color: us, role });
    if let Some(f) = file {
        from_set &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        from_set &= Bitboard::from_rank(r);
    }
    let capture = pos.role_at(to);
    let mut found = None;
    for from in from_set {
        let m = Move {
            from,
            to,
            role,
            capture,
            promotion: None,
            kind: MoveKind::Normal,
        };
        if is_legal(pos, &m) {
            if found.is_some() {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

fn pawn_move(pos: &Position, b: &[u8]) -> Option<Move> {
    let us = pos.side_to_move();
    let (body, promotion) = match b {
        [body @ .., b'=', p] => (body, Some(Role::from_char(char::from(*p))?)),
        _ => (b, None),
    };
    if matches!(promotion, Some(Role::King | Role::Pawn)) {
        return None;
    }
    let (from_file, to) = match *body {
        [f, r] => (None, square(f, r)?),
        [ff, b'x', f, r] if (b'a'..=b'h').contains(&ff) => {
            (Some(File::new(u32::from(ff - b'a'))), square(f, r)?)
        }
        _ => return None,
    };
    let last = to.rank() == Rank::Eighth.relative_to(us);
    if last != promotion.is_some() {
        return None;
    }
    let forward: i32 = if us == Color::White { 8 } else { -8 };
    let pawns = pos.by_piece(Piece {
        color: us,
        role: Role::Pawn,
    });
    let occupied = pos.occupied();
    let m = match from_file {
        None => {
            if occupied.contains(to) {
                return None;
            }
            let one = to.offset(-forward)?;
            let from = if pawns.contains(one) {
                one
            } else if !occupied.contains(one) && to.rank() == Rank::Fourth.relative_to(us) {
                let two = one.offset(-forward)?;
                if !pawns.contains(two) {
                    return None;
                }
                two
            } else {
                return None;
            };
            Move {
                from,
                to,
                role: Role::Pawn,
                capture: None,
                promotion,
                kind: MoveKind::Normal,
            }
        }
        Some(file) => {
            if file.index().abs_diff(to.file().index()) != 1 {
                return None;
            }
            let from = Square::from_coords(file, to.rank()).offset(-forward)?;
            if !pawns.contains(from) {
                return None;
            }
            if pos.by_color(us.other()).contains(to) {
                Move {
                    from,
                    to,
                    role: Role::Pawn,
                    capture: pos.role_at(to),
                    promotion,
                    kind: MoveKind::Normal,
                }
            } else if pos.ep_square() == Some(to) {
                Move {
                    from,
                    to,
                    role: Role::Pawn,
                    capture: Some(Role::Pawn),
                    promotion: None,
                    kind: MoveKind::EnPassant,
                }
            } else {
                return None;
            }
        }
    };
    is_legal(pos, &m).then_some(m)
}

/// Whether a move that fits its piece's movement (and does not land on an own piece) leaves the
/// own king safe (FIDE Laws 3.9.2). Castling never comes here.
fn is_legal(pos: &Position, m: &Move) -> bool {
    let us = pos.side_to_move();
    let them = us.other();
    let Some(king) = pos.king_square(us) else {
        return false;
    };
    if matches!(m.capture, Some(Role::King)) {
        return false;
    }
    let mut occupied = pos.occupied().without(m.from).with(m.to);
    let mut removed = Bitboard::from_square(m.to);
    if m.kind == MoveKind::EnPassant {
        let captured = Square::from_coords(m.to.file(), m.from.rank());
        occupied = occupied.without(captured);
        removed = removed.with(captured);
    }
    let target = if m.role == Role::King { m.to } else { king };
    (pos.attackers(target, them, occupied) & !removed).is_empty()
}
