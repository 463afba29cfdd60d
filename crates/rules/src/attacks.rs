//! Precomputed attack tables: leaper attacks, magic-bitboard slider attacks, and the `between` /
//! `line` tables used for pins and check masks.
//!
//! The tables are built once per process (a few milliseconds) on first use. Magic multipliers are
//! found by a deterministic search seeded with a fixed value, so every run builds the same tables.

use std::sync::LazyLock;

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

use crate::magic_search::{BISHOP_DIRS, ROOK_DIRS, relevant_mask, slow_slider, subsets};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/magics.rs"));
}

const KNIGHT_DELTAS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// One square's entry of a fancy magic table.
#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

/// All precomputed tables. Reached through [`tables`].
pub(crate) struct Tables {
    knight: [Bitboard; 64],
    king: [Bitboard; 64],
    pawn: [[Bitboard; 64]; 2],
    rook_rays: [Bitboard; 64],
    bishop_rays: [Bitboard; 64],
    rook_magics: [Magic; 64],
    bishop_magics: [Magic; 64],
    slider: Vec<Bitboard>,
    between: Vec<Bitboard>,
    line: Vec<Bitboard>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// The process-wide attack tables, built on first use.
#[inline]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}

fn square_at(file: i32, rank: i32) -> Option<Square> {
    crate::magic_search::square_at(file, rank).and_then(Square::new)
}

fn leaper(sq: Square, deltas: &[(i32, i32)]) -> Bitboard {
    let (f, r) = (sq.file().index() as i32, sq.rank().index() as i32);
    deltas
        .iter()
        .filter_map(|&(df, dr)| square_at(f + df, r + dr))
        .collect()
}

/// Fills the fancy-magic table of one slider kind from the build-time multipliers.
fn fill_magics(
    dirs: &[(i32, i32); 4],
    multipliers: &[u64; 64],
    magics: &mut [Magic; 64],
    table: &mut Vec<Bitboard>,
) {
    for sq in 0..64u32 {
        let mask = relevant_mask(sq, dirs);
        let shift = 64 - mask.count_ones();
        let magic = multipliers[sq as usize];
        let offset = table.len();
        table.resize(offset + (1 << mask.count_ones()), Bitboard::EMPTY);
        for occ in subsets(mask) {
            table[offset + (occ.wrapping_mul(magic) >> shift) as usize] =
                Bitboard(slow_slider(sq, occ, dirs));
        }
        magics[sq as usize] = Magic {
            mask,
            magic,
            shift,
            offset,
        };
    }
}

impl Tables {
    fn build() -> Tables {
        let mut knight = [Bitboard::EMPTY; 64];
        let mut king = [Bitboard::EMPTY; 64];
        let mut pawn = [[Bitboard::EMPTY; 64]; 2];
        let mut rook_rays = [Bitboard::EMPTY; 64];
        let mut bishop_rays = [Bitboard::EMPTY; 64];
        for sq in Square::all() {
            rook_rays[sq.index()] = Bitboard(slow_slider(sq.index() as u32, 0, &ROOK_DIRS));
            bishop_rays[sq.index()] = Bitboard(slow_slider(sq.index() as u32, 0, &BISHOP_DIRS));
            knight[sq.index()] = leaper(sq, &KNIGHT_DELTAS);
            king[sq.index()] = leaper(sq, &KING_DELTAS);
            pawn[0][sq.index()] = leaper(sq, &[(-1, 1), (1, 1)]);
            pawn[1][sq.index()] = leaper(sq, &[(-1, -1), (1, -1)]);
        }
        let mut slider = Vec::with_capacity(107_648);
        let mut rook_magics = [Magic::default(); 64];
        let mut bishop_magics = [Magic::default(); 64];
        fill_magics(
            &ROOK_DIRS,
            &generated::ROOK_MAGICS,
            &mut rook_magics,
            &mut slider,
        );
        fill_magics(
            &BISHOP_DIRS,
            &generated::BISHOP_MAGICS,
            &mut bishop_magics,
            &mut slider,
        );

        let mut between = vec![Bitboard::EMPTY; 64 * 64];
        let mut line = vec![Bitboard::EMPTY; 64 * 64];
        for a in Square::all() {
            for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
                for b in Bitboard(slow_slider(a.index() as u32, 0, dirs)) {
                    // The full line through a and b: both of a's rays along the direction to b.
                    let mut through = 0u64;
                    for &(df, dr) in dirs {
                        let ray_a = ray(a, df, dr);
                        if ray_a & (1 << b.index()) != 0 {
                            through = ray_a | ray(a, -df, -dr) | (1 << a.index());
                        }
                    }
                    line[a.index() * 64 + b.index()] = Bitboard(through);
                    between[a.index() * 64 + b.index()] = Bitboard(
                        slow_slider(a.index() as u32, 1 << b.index(), dirs)
                            & slow_slider(b.index() as u32, 1 << a.index(), dirs),
                    );
                }
            }
        }
        Tables {
            knight,
            king,
            pawn,
            rook_rays,
            bishop_rays,
            rook_magics,
            bishop_magics,
            slider,
            between,
            line,
        }
    }

    /// Squares a knight on `sq` attacks.
    #[inline]
    pub(crate) fn knight(&self, sq: Square) -> Bitboard {
        self.knight[sq.index()]
    }

    /// Squares a king on `sq` attacks.
    #[inline]
    pub(crate) fn king(&self, sq: Square) -> Bitboard {
        self.king[sq.index()]
    }

    /// Squares a pawn of `color` on `sq` attacks (diagonally forward).
    #[inline]
    pub(crate) fn pawn(&self, color: Color, sq: Square) -> Bitboard {
        self.pawn[color.index()][sq.index()]
    }

    /// Squares a rook on `sq` attacks on an empty board: a plain lookup, cheaper than
    /// [`Tables::rook`], to tell whether a rook could reach a square at all.
    #[inline]
    pub(crate) fn rook_rays(&self, sq: Square) -> Bitboard {
        self.rook_rays[sq.index()]
    }

    /// Squares a bishop on `sq` attacks on an empty board (see [`Tables::rook_rays`]).
    #[inline]
    pub(crate) fn bishop_rays(&self, sq: Square) -> Bitboard {
        self.bishop_rays[sq.index()]
    }

    /// Squares a rook on `sq` attacks given the occupied squares.
    #[inline]
    pub(crate) fn rook(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let m = &self.rook_magics[sq.index()];
        self.slider[m.offset + ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize]
    }

    /// Squares a bishop on `sq` attacks given the occupied squares.
    #[inline]
    pub(crate) fn bishop(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let m = &self.bishop_magics[sq.index()];
        self.slider[m.offset + ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize]
    }

    /// Squares a queen on `sq` attacks given the occupied squares.
    #[inline]
    pub(crate) fn queen(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.rook(sq, occupied) | self.bishop(sq, occupied)
    }

    /// Squares strictly between `a` and `b` when they share a rank, file or diagonal; else empty.
    #[inline]
    pub(crate) fn between(&self, a: Square, b: Square) -> Bitboard {
        self.between[a.index() * 64 + b.index()]
    }

    /// The whole line (edge to edge) through `a` and `b` when they are aligned; else empty.
    #[inline]
    pub(crate) fn line(&self, a: Square, b: Square) -> Bitboard {
        self.line[a.index() * 64 + b.index()]
    }
}

fn ray(sq: Square, df: i32, dr: i32) -> u64 {
    let (mut f, mut r) = (sq.file().index() as i32 + df, sq.rank().index() as i32 + dr);
    let mut result = 0;
    while let Some(s) = square_at(f, r) {
        result |= 1 << s.index();
        f += df;
        r += dr;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_lookups_match_ray_walks() {
        let t = tables();
        let mut state = 12345u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for sq in Square::all() {
            for _ in 0..200 {
                let occ = next() & next();
                let i = sq.index() as u32;
                assert_eq!(t.rook(sq, Bitboard(occ)).0, slow_slider(i, occ, &ROOK_DIRS));
                assert_eq!(
                    t.bishop(sq, Bitboard(occ)).0,
                    slow_slider(i, occ, &BISHOP_DIRS)
                );
            }
            assert_eq!(t.rook_rays(sq), t.rook(sq, Bitboard::EMPTY));
            assert_eq!(t.bishop_rays(sq), t.bishop(sq, Bitboard::EMPTY));
        }
    }

    #[test]
    fn between_and_line() {
        let t = tables();
        let a1 = Square::from_name("a1").unwrap();
        let h8 = Square::from_name("h8").unwrap();
        let d4 = Square::from_name("d4").unwrap();
        let b3 = Square::from_name("b3").unwrap();
        let d5 = Square::from_name("d5").unwrap();
        assert_eq!(t.between(a1, h8).count(), 6);
        assert!(t.between(a1, h8).contains(d4));
        assert!(t.line(b3, d5).contains(Square::from_name("g8").unwrap()));
        assert!(t.line(b3, d5).contains(Square::from_name("a2").unwrap()));
        assert!(!t.line(b3, d5).contains(a1));
        assert!(t.line(a1, b3).is_empty());
        assert_eq!(t.knight(a1).count(), 2);
        assert_eq!(t.king(d4).count(), 8);
    }
}
