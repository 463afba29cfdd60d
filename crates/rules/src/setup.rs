//! An unvalidated position between text and the rules: [`Setup`] holds what a FEN or a
//! structured board says; [`Position::from_setup`] checks it against the Laws (FIDE Laws 2, 3,
//! 9.2.3) and names what is wrong with a typed [`PositionError`].

use std::fmt;

use thiserror::Error;

use crate::attacks::tables;
use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Position};
use crate::types::{Color, File, Piece, Rank, Role, Square};

/// Largest halfmove clock accepted: far above the 75-move rule (150 plies, FIDE Laws 9.6.2).
/// Also the largest written: a clock that would pass it as moves are played stays at it.
pub const MAX_HALFMOVE_CLOCK: u32 = 10_000;
/// Largest fullmove number accepted, and written (it stays here as moves are played).
pub const MAX_FULLMOVE_NUMBER: u32 = 100_000;

/// A castling right as written (FEN castling field, the wire's castling flags), before the board
/// gives it a rook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingRight {
    /// `K`/`k`: castling on the h-side of the king. In standard chess the rook on h1/h8; in
    /// Chess960 (X-FEN) the outermost rook on that side.
    KingSide(Color),
    /// `Q`/`q`: castling on the a-side of the king. In standard chess the rook on a1/a8; in
    /// Chess960 (X-FEN) the outermost rook on that side.
    QueenSide(Color),
    /// A rook file letter (Shredder-FEN `HAha`, X-FEN for an inner rook): the rook on that file
    /// of the side's first rank.
    RookFile(Color, File),
}

impl CastlingRight {
    /// The side the right belongs to.
    #[must_use]
    pub const fn color(self) -> Color {
        match self {
            CastlingRight::KingSide(color)
            | CastlingRight::QueenSide(color)
            | CastlingRight::RookFile(color, _) => color,
        }
    }

    /// The letter of the FEN castling field: `K`, `Q`, `k`, `q` or a file letter, upper case for
    /// White.
    #[must_use]
    pub fn char(self) -> char {
        let letter = match self {
            CastlingRight::KingSide(_) => 'k',
            CastlingRight::QueenSide(_) => 'q',
            CastlingRight::RookFile(_, file) => file.char(),
        };
        match self.color() {
            Color::White => letter.to_ascii_uppercase(),
            Color::Black => letter,
        }
    }

    /// Reads one letter of a FEN castling field; `None` for anything but `KQkq`, `A-H`, `a-h`.
    #[must_use]
    pub fn from_char(c: char) -> Option<CastlingRight> {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match c.to_ascii_lowercase() {
            'k' => Some(CastlingRight::KingSide(color)),
            'q' => Some(CastlingRight::QueenSide(color)),
            lower @ 'a'..='h' => File::from_char(lower).map(|f| CastlingRight::RookFile(color, f)),
            _ => None,
        }
    }
}

impl fmt::Display for CastlingRight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// What a position says, not yet checked against the rules: pieces, side to move, castling
/// rights as written, en passant square and clocks. FEN text parses into one
/// ([`Setup::from_fen`], syntax errors per field); the wire's structured board converts into one
/// directly. [`Position::from_setup`] checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The piece on each square, indexed by [`Square::index`] (a1 = 0, h8 = 63).
    pub board: [Option<Piece>; 64],
    /// The side to move.
    pub turn: Color,
    /// The castling rights, in the order written (at most one per side of each king is valid).
    pub castling: Vec<CastlingRight>,
    /// The en passant target square as written (FIDE Laws 3.7.3.1), before the check that a
    /// pawn has just made the double step past it.
    pub ep_square: Option<Square>,
    /// Plies since the last capture or pawn move (FIDE Laws 9.3, 9.6.2).
    pub halfmove_clock: u32,
    /// The number of the move to be played, from 1.
    pub fullmove_number: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::empty()
    }
}

impl Setup {
    /// An empty board, White to move, no castling rights, no en passant square, clocks 0 and 1.
    #[must_use]
    pub fn empty() -> Setup {
        Setup {
            board: [None; 64],
            turn: Color::White,
            castling: Vec::new(),
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// The setup of a position: its pieces and state, castling rights as rook files.
    #[must_use]
    pub fn from_position(position: &Position) -> Setup {
        let mut board = [None; 64];
        for square in Square::all() {
            board[square.index()] = position.piece_at(square);
        }
        Setup {
            board,
            turn: position.side_to_move(),
            castling: position
                .castling_rights()
                .into_iter()
                .filter_map(|rook| {
                    let color = position.piece_at(rook)?.color;
                    Some(CastlingRight::RookFile(color, rook.file()))
                })
                .collect(),
            ep_square: position.ep_square(),
            halfmove_clock: position.halfmove_clock(),
            fullmove_number: position.fullmove_number(),
        }
    }

    /// The piece on `square`.
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        self.board[square.index()]
    }

    /// The castling rules this setup is written for: [`CastlingMode::Chess960`] when a castling
    /// right cannot be a standard one (its king off e1/e8, or no rook on the corner it names: a
    /// rook letter other than a or h, an X-FEN `K`/`Q` for a rook off the corner), else standard
    /// chess. The one rule every reader without a variant of its own uses (a PGN game without a
    /// `Variant` tag, `arbiter perft`); see [`Position::from_setup_detecting_mode`].
    #[must_use]
    pub fn castling_mode(&self) -> CastlingMode {
        let standard = |right: CastlingRight| {
            let color = right.color();
            let back = color.back_rank();
            let corner = match right {
                CastlingRight::KingSide(_) => File::H,
                CastlingRight::QueenSide(_) => File::A,
                CastlingRight::RookFile(_, file) => file,
            };
            let on = |file: File, role: Role| {
                self.piece_at(Square::from_coords(file, back)) == Some(Piece { color, role })
            };
            matches!(corner, File::A | File::H) && on(File::E, Role::King) && on(corner, Role::Rook)
        };
        if self.castling.iter().all(|&right| standard(right)) {
            CastlingMode::Standard
        } else {
            CastlingMode::Chess960
        }
    }
}

/// Which checks [`Position::from_setup`] makes beyond those move generation needs (exactly one
/// king per side, no pawn on the first or last rank, the side not to move not in check, castling
/// and en passant rights that match the board). Strict ([`Validation::STRICT`], the default) for
/// anything a user sends; [`Validation::PERFT_SUITE`] for the positions of perft test suites,
/// which are playable but cannot arise in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Validation {
    /// Refuse more material than a game can produce: more than 16 pieces or 8 pawns a side, or
    /// more promoted pieces than pawns off the board (FIDE Laws 3.7.5).
    pub reachable_material: bool,
    /// Refuse checks no legal last move gives: more than two checkers, two checkers no single
    /// move uncovers, a check beside an en passant double step.
    pub possible_checks: bool,
}

impl Validation {
    /// Every check: a position that can arise in a game.
    pub const STRICT: Validation = Validation {
        reachable_material: true,
        possible_checks: true,
    };
    /// Only what move generation needs: the perft suites' impossible but playable positions.
    pub const PERFT_SUITE: Validation = Validation {
        reachable_material: false,
        possible_checks: false,
    };
}

impl Default for Validation {
    fn default() -> Validation {
        Validation::STRICT
    }
}

/// The part of a setup an error is about, for callers that map errors to their own fields (the
/// wire's structured board).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetupField {
    /// The pieces (FEN: piece placement).
    Board,
    /// The side to move.
    SideToMove,
    /// The castling rights.
    Castling,
    /// The en passant square.
    EnPassant,
    /// The halfmove clock.
    HalfmoveClock,
    /// The fullmove number.
    FullmoveNumber,
}

/// What a castling right lacks on the board (FIDE Laws 3.8.2.1: the king and the rook have not
/// moved, so both stand on their first rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingForCastling {
    /// The side's king is not on its first rank.
    KingOnFirstRank(Color),
    /// Standard chess: the king is not on e1/e8.
    KingOn(Color, Square),
    /// No rook of the side on this square.
    RookOn(Color, Square),
    /// Chess960: no rook of the side on the h-side (`king_side`) or a-side of its king.
    RookOnSide {
        /// The side.
        color: Color,
        /// The h-side (true) or the a-side.
        king_side: bool,
    },
    /// A rook file letter in standard chess other than a or h, or with the king off e: it needs
    /// Chess960 castling.
    Chess960Mode,
}

impl fmt::Display for MissingForCastling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MissingForCastling::KingOnFirstRank(color) => {
                write!(f, "the {} king on its first rank", color.name())
            }
            MissingForCastling::KingOn(color, square) => {
                write!(f, "the {} king on {square}", color.name())
            }
            MissingForCastling::RookOn(color, square) => {
                write!(f, "a {} rook on {square}", color.name())
            }
            MissingForCastling::RookOnSide { color, king_side } => write!(
                f,
                "a {} rook on the {}-side of the king",
                color.name(),
                if king_side { 'h' } else { 'a' }
            ),
            MissingForCastling::Chess960Mode => f.write_str(
                "Chess960 mode (rook file letters in standard chess must be a or h with the king on e)",
            ),
        }
    }
}

/// Why a check cannot have been given by a legal last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpossibleCheck {
    /// The en passant square says the last move was a double step to `pawn`, but `checker` (a
    /// `role`) gives check neither from that pawn nor through the square it left.
    BesideDoubleStep {
        /// The checking piece's square.
        checker: Square,
        /// Its role.
        role: Role,
        /// The square the double-stepping pawn reached.
        pawn: Square,
    },
    /// Two checkers on one line through the king.
    AlignedCheckers(Square, Square),
    /// Two checkers that no single move uncovers.
    NoSingleMove(Square, Square),
}

impl fmt::Display for ImpossibleCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ImpossibleCheck::BesideDoubleStep {
                checker,
                role,
                pawn,
            } => write!(
                f,
                "the {} on {checker} gives check, but the last move was the double step to {pawn}",
                role.name()
            ),
            ImpossibleCheck::AlignedCheckers(a, b) => {
                write!(f, "{a} and {b} check along the same line")
            }
            ImpossibleCheck::NoSingleMove(a, b) => {
                write!(f, "no single move gives double check from {a} and {b}")
            }
        }
    }
}

/// Why a setup is not a legal position. `Display` names the reason;
/// [`PositionError::field`] the part of the setup at fault, [`PositionError::cause`] a stable
/// code.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PositionError {
    /// A side has no king or more than one (FIDE Laws 2.2).
    #[error("{color} has {count} kings, expected exactly one")]
    KingCount {
        /// The side.
        color: Color,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn on rank 1 or 8 (FIDE Laws 3.7).
    #[error("pawn on {0}: pawns cannot stand on the first or last rank")]
    PawnOnBackRank(Square),
    /// More than 16 pieces or more than 8 pawns.
    #[error(
        "{color} has too many pieces ({pieces} pieces, {pawns} pawns) for a position reachable in a game"
    )]
    TooManyPieces {
        /// The side.
        color: Color,
        /// Its number of pieces, king included.
        pieces: u32,
        /// Its number of pawns.
        pawns: u32,
    },
    /// More pieces beyond the initial set (one queen, two rooks, two knights, one bishop per
    /// square colour) than pawns have left the board to promote (FIDE Laws 3.7.5).
    #[error(
        "{color}'s pieces need at least {promoted} promotion(s) (more than one queen, two rooks, two knights or one bishop per square colour), but only {missing_pawns} of its pawns are off the board"
    )]
    TooManyPromotions {
        /// The side.
        color: Color,
        /// The fewest of its pieces that must be promoted pawns.
        promoted: u32,
        /// How many of its 8 pawns are no longer on the board.
        missing_pawns: u32,
    },
    /// The side that just moved is in check (FIDE Laws 3.9: its last move was illegal).
    #[error("{0} is not to move but is in check")]
    OppositeCheck(Color),
    /// More than two pieces give check.
    #[error("{0} pieces give check; at most two can")]
    TooManyCheckers(u32),
    /// A check that no legal last move can produce.
    #[error("impossible check: {0}")]
    ImpossibleCheck(ImpossibleCheck),
    /// A castling right without the king and the rook on their squares (FIDE Laws 3.8.2.1).
    #[error("castling right '{right}' needs {missing}")]
    CastlingWithoutPieces {
        /// The right as written.
        right: CastlingRight,
        /// What is missing.
        missing: MissingForCastling,
    },
    /// Two castling rights of one side for the same side of its king (at most one each, FIDE
    /// Laws 3.8.2.1), or the same right twice.
    #[error("castling rights '{first}' and '{second}' are both on the {}-side of the {} king", if *king_side { 'h' } else { 'a' }, first.color().name())]
    CastlingRightsOnOneSide {
        /// The first right.
        first: CastlingRight,
        /// The second right, for the same rook side.
        second: CastlingRight,
        /// The h-side (true) or the a-side.
        king_side: bool,
    },
    /// The en passant square is not on the rank behind a pawn of the side not to move that may
    /// have just double-stepped (rank 6 with White to move, rank 3 with Black).
    #[error("bad en passant field '{0}'")]
    EnPassantRank(Square),
    /// The en passant square is not behind a pawn that just made a double step (FIDE Laws
    /// 3.7.3.1).
    #[error("en passant square {0} is not behind a pawn that just made a double step")]
    EnPassantWithoutDoubleStep(Square),
    /// A clock out of range.
    #[error("{field} is '{value}', expected a whole number from {min} to {max}")]
    ClockOutOfRange {
        /// `halfmove clock` or `fullmove number`.
        field: &'static str,
        /// The value given.
        value: u32,
        /// The smallest value accepted.
        min: u32,
        /// The largest value accepted.
        max: u32,
    },
}

impl PositionError {
    /// The part of the setup at fault.
    #[must_use]
    pub fn field(&self) -> SetupField {
        match self {
            PositionError::CastlingWithoutPieces { .. }
            | PositionError::CastlingRightsOnOneSide { .. } => SetupField::Castling,
            PositionError::EnPassantRank(_) | PositionError::EnPassantWithoutDoubleStep(_) => {
                SetupField::EnPassant
            }
            PositionError::ClockOutOfRange { field, .. } if field.starts_with("halfmove") => {
                SetupField::HalfmoveClock
            }
            PositionError::ClockOutOfRange { .. } => SetupField::FullmoveNumber,
            _ => SetupField::Board,
        }
    }

    /// A stable, machine-readable name of the cause, e.g. `KING_COUNT`, `OPPOSITE_CHECK`,
    /// `CASTLING_WITHOUT_PIECES`.
    #[must_use]
    pub fn cause(&self) -> &'static str {
        match self {
            PositionError::KingCount { .. } => "KING_COUNT",
            PositionError::PawnOnBackRank(_) => "PAWN_ON_BACK_RANK",
            PositionError::TooManyPieces { .. } => "TOO_MANY_PIECES",
            PositionError::TooManyPromotions { .. } => "TOO_MANY_PROMOTIONS",
            PositionError::OppositeCheck(_) => "OPPOSITE_CHECK",
            PositionError::TooManyCheckers(_) => "TOO_MANY_CHECKERS",
            PositionError::ImpossibleCheck(_) => "IMPOSSIBLE_CHECK",
            PositionError::CastlingWithoutPieces { .. } => "CASTLING_WITHOUT_PIECES",
            PositionError::CastlingRightsOnOneSide { .. } => "CASTLING_RIGHTS_ON_ONE_SIDE",
            PositionError::EnPassantRank(_) => "EN_PASSANT_RANK",
            PositionError::EnPassantWithoutDoubleStep(_) => "EN_PASSANT_WITHOUT_DOUBLE_STEP",
            PositionError::ClockOutOfRange { .. } => "CLOCK_OUT_OF_RANGE",
        }
    }

    /// The article of the FIDE Laws of Chess (2023) the position breaks, where one does:
    /// `2.2` (kings), `3.7` (pawns on the back ranks), `3.7.5` (promotions), `3.9` (the side not
    /// to move in check, impossible checks), `3.8.2.1` (castling), `3.7.3.1` (en passant).
    #[must_use]
    pub fn article(&self) -> Option<&'static str> {
        match self {
            PositionError::KingCount { .. } => Some("2.2"),
            PositionError::PawnOnBackRank(_) => Some("3.7"),
            PositionError::TooManyPieces { .. } | PositionError::TooManyPromotions { .. } => {
                Some("3.7.5")
            }
            PositionError::OppositeCheck(_)
            | PositionError::TooManyCheckers(_)
            | PositionError::ImpossibleCheck(_) => Some("3.9"),
            PositionError::CastlingWithoutPieces { .. }
            | PositionError::CastlingRightsOnOneSide { .. } => Some("3.8.2.1"),
            PositionError::EnPassantRank(_) | PositionError::EnPassantWithoutDoubleStep(_) => {
                Some("3.7.3.1")
            }
            PositionError::ClockOutOfRange { .. } => None,
        }
    }
}

impl Position {
    /// The start position of `mode`: the standard array (Chess960 arrangement 518), White to
    /// move, every castling right.
    #[must_use]
    pub fn start(mode: CastlingMode) -> Position {
        let mut p = Position::startpos();
        p.mode = mode;
        p
    }

    /// Checks `setup` against the Laws and builds the position, castling rights read under
    /// `mode` (`K`/`Q` are the corner rooks in standard chess, the outermost rooks in Chess960).
    ///
    /// Always refused: not exactly one king a side, a pawn on the first or last rank, the side
    /// not to move in check, a castling right without its king and rook on the first rank (and,
    /// in standard chess, on e and a/h), two rights for one side of a king, an en passant square
    /// on the wrong rank or not behind a pawn that just double-stepped, clocks out of range.
    /// `validation` adds the checks of material and checks a game can produce. The en passant
    /// square is kept only when a legal en passant capture exists (FIDE Laws 9.2.3).
    ///
    /// # Errors
    /// The first [`PositionError`] in the order above.
    pub fn from_setup(
        setup: &Setup,
        mode: CastlingMode,
        validation: Validation,
    ) -> Result<Position, PositionError> {
        let mut pos = Position::empty(mode);
        for square in Square::all() {
            if let Some(piece) = setup.board[square.index()] {
                pos.put(square, piece.color, piece.role);
            }
        }
        pos.turn = setup.turn;
        pos.refresh_checkers();
        for color in Color::ALL {
            let count = pos
                .by_piece(Piece {
                    color,
                    role: Role::King,
                })
                .count();
            if count != 1 {
                return Err(PositionError::KingCount { color, count });
            }
        }
        if let Some(sq) = (pos.by_role(Role::Pawn) & Bitboard::BACK_RANKS).first() {
            return Err(PositionError::PawnOnBackRank(sq));
        }
        if validation.reachable_material {
            for color in Color::ALL {
                let ours = pos.by_color(color);
                let pawns = (ours & pos.by_role(Role::Pawn)).count();
                let pieces = ours.count();
                let promoted = promoted_minimum(&pos, color);
                if pieces > 16 || pawns > 8 {
                    return Err(PositionError::TooManyPieces {
                        color,
                        pieces,
                        pawns,
                    });
                }
                if pawns + promoted > 8 {
                    return Err(PositionError::TooManyPromotions {
                        color,
                        promoted,
                        missing_pawns: 8 - pawns,
                    });
                }
            }
        }
        let them = pos.turn.other();
        if let Some(k) = pos.king_square(them)
            && pos.attackers(k, pos.turn, pos.occupied()).is_nonempty()
        {
            return Err(PositionError::OppositeCheck(them));
        }
        pos.castling = castling_rooks(&pos, &setup.castling, mode)?;
        let ep = match setup.ep_square {
            Some(sq) => Some(check_en_passant(&pos, sq)?),
            None => None,
        };
        if validation.possible_checks {
            validate_checkers(&pos, ep)?;
        }
        pos.halfmove_clock = check_clock(
            setup.halfmove_clock,
            "halfmove clock",
            0,
            MAX_HALFMOVE_CLOCK,
        )?;
        pos.fullmove_number = check_clock(
            setup.fullmove_number,
            "fullmove number",
            1,
            MAX_FULLMOVE_NUMBER,
        )?;
        pos.double_step = ep;
        if let Some(ep) = ep
            && pos.has_legal_ep_capture(ep)
        {
            pos.ep_square = Some(ep);
        }
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// Checks `setup` under the castling rules it is written for ([`Setup::castling_mode`]).
    /// When a Chess960 reading fails, the error is the standard reading's.
    ///
    /// # Errors
    /// As [`Position::from_setup`].
    pub fn from_setup_detecting_mode(
        setup: &Setup,
        validation: Validation,
    ) -> Result<Position, PositionError> {
        match setup.castling_mode() {
            CastlingMode::Standard => {
                Position::from_setup(setup, CastlingMode::Standard, validation)
            }
            CastlingMode::Chess960 => {
                Position::from_setup(setup, CastlingMode::Chess960, validation)
                    .or_else(|_| Position::from_setup(setup, CastlingMode::Standard, validation))
            }
        }
    }
}

fn check_clock(value: u32, field: &'static str, min: u32, max: u32) -> Result<u32, PositionError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(PositionError::ClockOutOfRange {
            field,
            value,
            min,
            max,
        })
    }
}

/// The fewest pieces of `color` that must be promoted pawns: pieces beyond the initial set
/// (1 queen, 2 rooks, 2 knights, one bishop per square colour).
fn promoted_minimum(pos: &Position, color: Color) -> u32 {
    let ours = pos.by_color(color);
    let count = |role: Role| (ours & pos.by_role(role)).count();
    let bishops = ours & pos.by_role(Role::Bishop);
    count(Role::Queen).saturating_sub(1)
        + count(Role::Rook).saturating_sub(2)
        + count(Role::Knight).saturating_sub(2)
        + (bishops & Bitboard::LIGHT_SQUARES)
            .count()
            .saturating_sub(1)
        + (bishops & Bitboard::DARK_SQUARES).count().saturating_sub(1)
}

/// The rook squares of the castling rights `rights` under `mode`.
fn castling_rooks(
    pos: &Position,
    rights: &[CastlingRight],
    mode: CastlingMode,
) -> Result<Bitboard, PositionError> {
    let mut rooks_with_rights = Bitboard::EMPTY;
    let mut taken: Vec<(CastlingRight, Color, bool)> = Vec::with_capacity(4);
    for &right in rights {
        let color = right.color();
        let back = color.back_rank();
        let missing = |missing| PositionError::CastlingWithoutPieces { right, missing };
        let king = pos
            .king_square(color)
            .filter(|k| k.rank() == back)
            .ok_or_else(|| missing(MissingForCastling::KingOnFirstRank(color)))?;
        let rooks = pos.by_piece(Piece {
            color,
            role: Role::Rook,
        }) & Bitboard::from_rank(back);
        let e_square = Square::from_coords(File::E, back);
        let rook = match (right, mode) {
            (CastlingRight::KingSide(_) | CastlingRight::QueenSide(_), CastlingMode::Standard) => {
                let file = if matches!(right, CastlingRight::KingSide(_)) {
                    File::H
                } else {
                    File::A
                };
                let sq = Square::from_coords(file, back);
                if king != e_square {
                    return Err(missing(MissingForCastling::KingOn(color, e_square)));
                }
                if !rooks.contains(sq) {
                    return Err(missing(MissingForCastling::RookOn(color, sq)));
                }
                sq
            }
            (CastlingRight::KingSide(_), CastlingMode::Chess960) => {
                (rooks & !files_up_to(king.file())).last().ok_or_else(|| {
                    missing(MissingForCastling::RookOnSide {
                        color,
                        king_side: true,
                    })
                })?
            }
            (CastlingRight::QueenSide(_), CastlingMode::Chess960) => (rooks
                & files_up_to(king.file()))
            .first()
            .filter(|r| r.file() < king.file())
            .ok_or_else(|| {
                missing(MissingForCastling::RookOnSide {
                    color,
                    king_side: false,
                })
            })?,
            (CastlingRight::RookFile(_, file), _) => {
                let sq = Square::from_coords(file, back);
                if !rooks.contains(sq) {
                    return Err(missing(MissingForCastling::RookOn(color, sq)));
                }
                if mode == CastlingMode::Standard
                    && (king != e_square || !matches!(sq.file(), File::A | File::H))
                {
                    return Err(missing(MissingForCastling::Chess960Mode));
                }
                // A king on the a- or h-file castles towards its one rook, as the X-FEN `K`/`Q`
                // branch above reads it (chess960-extra.epd line 20): the Shredder-FEN that
                // `to_fen_with(true)` writes for such a position must read back.
                sq
            }
        };
        // At most one right per side of the king.
        let king_side = rook.file() > king.file();
        if let Some(&(first, _, _)) = taken
            .iter()
            .find(|&&(_, c, side)| c == color && side == king_side)
        {
            return Err(PositionError::CastlingRightsOnOneSide {
                first,
                second: right,
                king_side,
            });
        }
        taken.push((right, color, king_side));
        rooks_with_rights |= Bitboard::from_square(rook);
    }
    Ok(rooks_with_rights)
}

/// Files a..=`file` on every rank.
fn files_up_to(file: File) -> Bitboard {
    File::ALL
        .into_iter()
        .filter(|f| *f <= file)
        .fold(Bitboard::EMPTY, |b, f| b | Bitboard::from_file(f))
}

/// Checks that `sq` is an en passant square of this position: on the side to move's sixth
/// rank, behind a pawn of the other side that can have just double-stepped past it.
fn check_en_passant(pos: &Position, sq: Square) -> Result<Square, PositionError> {
    let us = pos.turn;
    if sq.rank() != Rank::Sixth.relative_to(us) {
        return Err(PositionError::EnPassantRank(sq));
    }
    let forward: i32 = if us == Color::White { 8 } else { -8 };
    // The pawn that moved stands one rank beyond the square (towards the side to move's pawns);
    // the square itself and the pawn's origin are empty.
    let pawn_sq = sq.offset(-forward);
    let origin = sq.offset(forward);
    let them = us.other();
    let ok = pawn_sq.is_some_and(|p| {
        pos.piece_at(p)
            == Some(Piece {
                color: them,
                role: Role::Pawn,
            })
    }) && origin.is_some_and(|o| !pos.occupied().contains(o))
        && !pos.occupied().contains(sq);
    if !ok {
        return Err(PositionError::EnPassantWithoutDoubleStep(sq));
    }
    Ok(sq)
}

/// Rejects check configurations that no legal last move produces.
fn validate_checkers(pos: &Position, ep: Option<Square>) -> Result<(), PositionError> {
    let t = tables();
    let Some(king) = pos.king_square(pos.turn) else {
        return Ok(());
    };
    let them = pos.turn.other();
    let checkers = pos.checkers();
    let n = checkers.count();
    if n > 2 {
        return Err(PositionError::TooManyCheckers(n));
    }
    let impossible = |why| Err(PositionError::ImpossibleCheck(why));
    if let Some(ep) = ep {
        // The last move was the double step: every check comes from that pawn or is discovered
        // through the square it left.
        let forward: i32 = if them == Color::White { 8 } else { -8 };
        let pawn = ep.offset(forward).unwrap_or(ep);
        let origin = ep.offset(-forward).unwrap_or(ep);
        for c in checkers {
            if c != pawn && !t.between(c, king).contains(origin) {
                return impossible(ImpossibleCheck::BesideDoubleStep {
                    checker: c,
                    role: pos.role_at(c).unwrap_or(Role::Pawn),
                    pawn,
                });
            }
        }
    }
    if n == 2 {
        let mut it = checkers;
        let (a, b) = (it.next().unwrap_or(king), it.next().unwrap_or(king));
        if t.line(a, b).contains(king) && t.line(a, king).contains(b) {
            return impossible(ImpossibleCheck::AlignedCheckers(a, b));
        }
        let can_discover = |x: Square, y: Square| -> bool {
            // x is the discovered slider; y moved from a square between x and the king.
            let Some(xr) = pos.role_at(x) else {
                return false;
            };
            let Some(yr) = pos.role_at(y) else {
                return false;
            };
            if !matches!(xr, Role::Bishop | Role::Rook | Role::Queen) {
                return false;
            }
            let gap = t.between(x, king);
            let occ = pos.occupied();
            let mut origins = match yr {
                Role::Knight => t.knight(y),
                Role::Bishop => t.bishop(y, occ),
                Role::Rook => t.rook(y, occ),
                Role::Queen => t.queen(y, occ),
                Role::King => Bitboard::EMPTY,
                Role::Pawn => pawn_origins(t, them, y),
            };
            if yr != Role::Pawn && y.rank() == Rank::Eighth.relative_to(them) {
                origins |= pawn_origins(t, them, y); // a promotion
            }
            (origins & gap).is_nonempty()
        };
        if !can_discover(a, b) && !can_discover(b, a) {
            return impossible(ImpossibleCheck::NoSingleMove(a, b));
        }
    }
    Ok(())
}

/// Squares from which a pawn of `color` reaches `to` in one move (push, double step or capture).
fn pawn_origins(t: &crate::attacks::Tables, color: Color, to: Square) -> Bitboard {
    let back: i32 = if color == Color::White { -8 } else { 8 };
    let mut b = t.pawn(color.other(), to);
    if let Some(s) = to.offset(back) {
        b |= Bitboard::from_square(s);
        if to.rank() == Rank::Fourth.relative_to(color)
            && let Some(s2) = s.offset(back)
        {
            b |= Bitboard::from_square(s2);
        }
    }
    b
}
