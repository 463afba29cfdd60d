//! Core chess vocabulary: colors, roles, pieces, files, ranks and squares (FIDE Laws, Article 2).

use std::fmt;

/// One of the two sides (FIDE Laws 2.1: "White" and "Black").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first (FIDE Laws 1.2).
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colors, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The opposite color.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Index 0 for White, 1 for Black, for tables.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN side-to-move letter: `w` or `b`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The back rank of this side: rank 1 for White, rank 8 for Black.
    #[inline]
    #[must_use]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    /// The name in lower case: `"white"` or `"black"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// The kind of a piece, without its color (FIDE Laws 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Pawn (FIDE Laws 3.7).
    Pawn = 0,
    /// Knight (FIDE Laws 3.6).
    Knight = 1,
    /// Bishop (FIDE Laws 3.2).
    Bishop = 2,
    /// Rook (FIDE Laws 3.3).
    Rook = 3,
    /// Queen (FIDE Laws 3.4).
    Queen = 4,
    /// King (FIDE Laws 3.8).
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The roles a pawn may promote to (FIDE Laws 3.7.5.1), queen first.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// Index 0 (pawn) to 5 (king), for tables.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lower-case English letter used in FEN and UCI: `p n b r q k`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// The upper-case English letter used in SAN: `P N B R Q K`.
    #[must_use]
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// The role of an English piece letter, either case (`n`/`N` is a knight); `None` otherwise.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }

    /// The English name in lower case, e.g. `"knight"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: a role of a color.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: upper case for White (`N`), lower case for Black (`n`).
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece of a FEN letter (`K` white king, `q` black queen); `None` for other characters.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => Some(Piece {
                color: if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                },
                role,
            }),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color.name(), self.role.name())
    }
}

/// A file (column) of the board, `a` to `h` (FIDE Laws 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    /// The eight files, `a` first.
    pub const ALL: [File; 8] = [
        File::A,
        File::B,
        File::C,
        File::D,
        File::E,
        File::F,
        File::G,
        File::H,
    ];

    /// The file with index 0 (`a`) to 7 (`h`); indices are taken modulo 8.
    #[inline]
    #[must_use]
    pub const fn new(index: u32) -> File {
        File::ALL[(index & 7) as usize]
    }

    /// Index 0 (`a`) to 7 (`h`).
    #[inline]
    #[must_use]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The file letter `a`..`h`.
    #[must_use]
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// The file of a letter `a`..`h` (lower case only); `None` otherwise.
    #[must_use]
    pub const fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => Some(File::new(c as u32 - 'a' as u32)),
            _ => None,
        }
    }
}

/// A rank (row) of the board, `1` to `8` (FIDE Laws 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    /// The eight ranks, the first first.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with index 0 (rank 1) to 7 (rank 8); indices are taken modulo 8.
    #[inline]
    #[must_use]
    pub const fn new(index: u32) -> Rank {
        Rank::ALL[(index & 7) as usize]
    }

    /// Index 0 (rank 1) to 7 (rank 8).
    #[inline]
    #[must_use]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The digit `1`..`8`.
    #[must_use]
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// The rank of a digit `1`..`8`; `None` otherwise.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Some(Rank::new(c as u32 - '1' as u32)),
            _ => None,
        }
    }

    /// The same rank seen from the given side: rank 2 for White is rank 7 for Black.
    #[inline]
    #[must_use]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::new(7 - self as u32),
        }
    }
}

/// A square of the board, 0 = a1, 1 = b1, ..., 7 = h1, 8 = a2, ..., 63 = h8 (FIDE Laws 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// a1, the first square.
    pub const A1: Square = Square(0);

    /// The square's name, file letter then rank digit (`"e4"`), from a table: no formatting.
    #[inline]
    #[must_use]
    pub const fn name(self) -> &'static str {
        SQUARE_NAMES[self.0 as usize]
    }
    /// e1, White's king start square in standard chess.
    pub const E1: Square = Square(4);
    /// e8, Black's king start square in standard chess.
    pub const E8: Square = Square(60);

    /// The square with index 0 (a1) to 63 (h8); `None` for larger indices.
    #[inline]
    #[must_use]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with index `index & 63`, for indices known to be in range.
    #[inline]
    #[must_use]
    pub const fn new_masked(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The square at a file and a rank.
    #[inline]
    #[must_use]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square((rank as u8) * 8 + file as u8)
    }

    /// Parses a square name such as `e4` (file letter in lower case, then rank digit).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Square> {
        let mut chars = name.chars();
        let file = File::from_char(chars.next()?)?;
        let rank = Rank::from_char(chars.next()?)?;
        if chars.next().is_some() {
            return None;
        }
        Some(Square::from_coords(file, rank))
    }

    /// Index 0 (a1) to 63 (h8).
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file of the square.
    #[inline]
    #[must_use]
    pub const fn file(self) -> File {
        File::new(self.0 as u32 & 7)
    }

    /// The rank of the square.
    #[inline]
    #[must_use]
    pub const fn rank(self) -> Rank {
        Rank::new(self.0 as u32 >> 3)
    }

    /// The square offset by `delta` indices, if it stays on the board (no wrap check on files).
    #[inline]
    #[must_use]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// The same file on another rank.
    #[inline]
    #[must_use]
    pub const fn with_rank(self, rank: Rank) -> Square {
        Square::from_coords(self.file(), rank)
    }

    /// True for the light squares (h1 is light, FIDE Laws 2.1).
    #[inline]
    #[must_use]
    pub const fn is_light(self) -> bool {
        (self.file() as u32 + self.rank() as u32) % 2 == 1
    }

    /// The square mirrored top to bottom (a1 <-> a8).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Iterates over all 64 squares, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0u8..64).map(Square)
    }
}

/// The names of the 64 squares, by index (a1 = 0, ..., h8 = 63).
const SQUARE_NAMES: [&str; 64] = [
    "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2",
    "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4",
    "a5", "b5", "c5", "d5", "e5", "f5", "g5", "h5", "a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6",
    "a7", "b7", "c7", "d7", "e7", "f7", "g7", "h7", "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8",
];

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name table is the file letter and rank digit of every square, and `Display` (which
    /// reads it) still honours width and alignment.
    #[test]
    fn square_names_are_file_then_rank_for_all_64_squares() {
        for index in 0..64 {
            let square = Square::new(index).expect("a square");
            let expected: String = [square.file().char(), square.rank().char()]
                .iter()
                .collect();
            assert_eq!(square.name(), expected);
            assert_eq!(square.to_string(), expected);
            assert_eq!(Square::from_name(square.name()), Some(square));
        }
        let e4 = Square::from_name("e4").expect("e4");
        assert_eq!(format!("[{e4:>4}]"), "[  e4]");
    }
}
