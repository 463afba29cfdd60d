//! FEN (Forsyth-Edwards Notation) reading and writing, with X-FEN and Shredder-FEN castling fields
//! for Chess960, and the validation that names the reason a position is rejected.

use std::fmt::Write as _;

use thiserror::Error;

use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Position};
use crate::setup::{
    CastlingRight, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK, PositionError, Setup, SetupField,
    Validation,
};
use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The FEN of the standard start position (FIDE Laws 2.3).
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Longest FEN text accepted, in bytes.
pub const MAX_FEN_LEN: usize = 256;

/// How to read a FEN into a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FenOptions {
    /// How castling rights are read and written (`KQkq` or rook files).
    pub mode: CastlingMode,
    /// Which checks beyond those move generation needs ([`Validation::STRICT`], the default, for
    /// user input; [`Validation::PERFT_SUITE`] for the perft suites' impossible positions).
    pub validation: Validation,
}

/// Why FEN text is not a FEN, field by field (the text's syntax, before the rules look at it).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FenSyntaxError {
    /// The text is longer than [`MAX_FEN_LEN`].
    #[error("FEN is {0} bytes long, more than the limit of {MAX_FEN_LEN}")]
    TooLong(usize),
    /// Not 4 to 6 space-separated fields (placement, side, castling, en passant[, clocks]).
    #[error(
        "FEN has {0} {fields}, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)",
        fields = if *.0 == 1 { "field" } else { "fields" }
    )]
    FieldCount(usize),
    /// The placement does not have 8 ranks separated by `/`.
    #[error("piece placement has {0} ranks, expected 8")]
    RankCount(usize),
    /// A rank does not describe exactly 8 squares.
    #[error("rank {rank} of the piece placement describes {squares} squares, expected 8")]
    RankLength {
        /// The rank, 1 to 8.
        rank: u32,
        /// The number of squares described.
        squares: u32,
    },
    /// Two digits in a row in a rank (`17`, `11111111`): each run of empty squares is one digit
    /// (PGN standard 16.1.3.1), as every FEN writer writes it and other readers require.
    #[error(
        "rank {rank} of the piece placement writes a run of empty squares as the digits '{digits}' in a row: each run of empty squares is one digit from 1 to 8 (PGN standard 16.1.3.1)"
    )]
    AdjacentDigits {
        /// The rank, 1 to 8.
        rank: u32,
        /// The digits as written, in a row (at most 8 of them are quoted).
        digits: String,
    },
    /// The digit `0` or `9` in a rank: a digit counts the empty squares of a run, from 1 to 8
    /// (PGN standard 16.1.3.1).
    #[error(
        "rank {rank} of the piece placement has the digit '{digit}': a digit counts the empty squares of a run, from 1 to 8 (0 and 9 are not) (PGN standard 16.1.3.1)"
    )]
    BadDigit {
        /// The digit as written, `0` or `9`.
        digit: char,
        /// The rank, 1 to 8.
        rank: u32,
    },
    /// A character that is neither a piece letter nor a digit 1-8.
    #[error("bad piece letter '{letter}' in rank {rank} of the piece placement")]
    BadPiece {
        /// The offending character.
        letter: char,
        /// The rank, 1 to 8.
        rank: u32,
    },
    /// The side to move is not `w` or `b`.
    #[error("side to move is '{0}', expected 'w' or 'b'")]
    BadSideToMove(String),
    /// The castling field is not `-` or one to four letters of `KQkq`, `A-H`, `a-h`, each once.
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    /// The en passant field is not `-` or a square name.
    #[error("bad en passant field '{0}'")]
    BadEnPassant(String),
    /// A clock field is not a number or out of range.
    #[error("{field} is '{value}', expected a whole number from {min} to {max}")]
    BadClock {
        /// `halfmove clock` or `fullmove number`.
        field: &'static str,
        /// The text given.
        value: String,
        /// The smallest value accepted.
        min: u32,
        /// The largest value accepted.
        max: u32,
    },
}

impl FenSyntaxError {
    /// The field of the FEN at fault.
    #[must_use]
    pub fn field(&self) -> SetupField {
        match self {
            FenSyntaxError::TooLong(_)
            | FenSyntaxError::FieldCount(_)
            | FenSyntaxError::RankCount(_)
            | FenSyntaxError::RankLength { .. }
            | FenSyntaxError::AdjacentDigits { .. }
            | FenSyntaxError::BadDigit { .. }
            | FenSyntaxError::BadPiece { .. } => SetupField::Board,
            FenSyntaxError::BadSideToMove(_) => SetupField::SideToMove,
            FenSyntaxError::BadCastling(_) => SetupField::Castling,
            FenSyntaxError::BadEnPassant(_) => SetupField::EnPassant,
            FenSyntaxError::BadClock { field, .. } if field.starts_with("halfmove") => {
                SetupField::HalfmoveClock
            }
            FenSyntaxError::BadClock { .. } => SetupField::FullmoveNumber,
        }
    }
}

/// Why a FEN was rejected: its text ([`FenSyntaxError`]) or the position it describes
/// ([`PositionError`]). The `Display` text names the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// The text is not a FEN.
    #[error(transparent)]
    Syntax(#[from] FenSyntaxError),
    /// The text is a FEN of a position the rules refuse.
    #[error(transparent)]
    Position(#[from] PositionError),
}

impl FenError {
    /// The part of the FEN at fault.
    #[must_use]
    pub fn field(&self) -> SetupField {
        match self {
            FenError::Syntax(error) => error.field(),
            FenError::Position(error) => error.field(),
        }
    }
}

impl Setup {
    /// Reads FEN text (6 fields; the two clock fields may be omitted and then default to `0 1`)
    /// into a setup, checking only its syntax: 8 ranks of 8 squares of piece letters and digits
    /// (each run of empty squares one digit, PGN standard 16.1.3.1),
    /// `w` or `b`, a castling field of `-` or up to four distinct letters of `KQkq`/`A-H`/`a-h`,
    /// `-` or a square name, clocks that are whole numbers in range. `startpos` reads as the
    /// standard start position.
    ///
    /// # Errors
    /// A [`FenSyntaxError`] naming the field and the reason.
    pub fn from_fen(fen: &str) -> Result<Setup, FenSyntaxError> {
        let fen = fen.trim();
        if fen.len() > MAX_FEN_LEN {
            return Err(FenSyntaxError::TooLong(fen.len()));
        }
        if fen == "startpos" {
            return Ok(Setup::from_position(&Position::startpos()));
        }
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenSyntaxError::FieldCount(fields.len()));
        }
        let mut setup = Setup::empty();
        read_placement(&mut setup, fields[0])?;
        setup.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenSyntaxError::BadSideToMove(other.to_string())),
        };
        setup.castling = read_castling(fields[2])?;
        setup.ep_square = match fields[3] {
            "-" => None,
            field => Some(
                Square::from_name(field)
                    .ok_or_else(|| FenSyntaxError::BadEnPassant(field.to_string()))?,
            ),
        };
        if let Some(v) = fields.get(4) {
            setup.halfmove_clock = read_clock(v, "halfmove clock", 0, MAX_HALFMOVE_CLOCK)?;
        }
        if let Some(v) = fields.get(5) {
            setup.fullmove_number = read_clock(v, "fullmove number", 1, MAX_FULLMOVE_NUMBER)?;
        }
        Ok(setup)
    }
}

impl Position {
    /// Reads a FEN strictly in standard chess mode (`KQkq`). The shorthand `startpos` is accepted.
    ///
    /// # Errors
    /// A [`FenError`] naming the field and the reason (see [`Position::from_fen_with`]).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, FenOptions::default())
    }

    /// Reads `fen` in standard chess, or in Chess960 when its castling field is valid only
    /// there ([`Setup::castling_mode`]): the one rule every reader without a variant of its own
    /// uses to choose the castling mode (the PGN reader for a game without a `Variant` tag,
    /// `arbiter perft`). When the Chess960 reading fails too, the error is the standard one's.
    ///
    /// # Errors
    /// A [`FenError`] (see [`Position::from_setup_detecting_mode`]).
    pub fn from_fen_detecting_mode(
        fen: &str,
        validation: Validation,
    ) -> Result<Position, FenError> {
        let setup = Setup::from_fen(fen)?;
        Ok(Position::from_setup_detecting_mode(&setup, validation)?)
    }

    /// Reads a FEN (6 fields; the two clock fields may be omitted and then default to `0 1`):
    /// [`Setup::from_fen`], then [`Position::from_setup`] in `options.mode` with
    /// `options.validation`.
    ///
    /// Castling field: `KQkq` letters (X-FEN in Chess960 mode: the outermost rook on that side),
    /// or rook file letters (Shredder-FEN, `HAha`), or `-`. `startpos` reads as the standard
    /// start position. The en passant square is kept only when a legal en passant capture
    /// exists (FIDE Laws 9.2.3), so [`Position::to_fen`] may write `-` where the input named a
    /// square.
    ///
    /// # Errors
    /// A [`FenError`] naming the field and the reason.
    pub fn from_fen_with(fen: &str, options: FenOptions) -> Result<Position, FenError> {
        if fen.trim() == "startpos" {
            return Ok(Position::start(options.mode));
        }
        let setup = Setup::from_fen(fen)?;
        Ok(Position::from_setup(
            &setup,
            options.mode,
            options.validation,
        )?)
    }

    /// Writes the position as FEN, with castling rights as `KQkq` in standard mode and as X-FEN in
    /// Chess960 mode (`KQkq` where that names the outermost rook, the rook's file letter where not).
    ///
    /// The counters are written as the position holds them, and [`Position::play`] stops them
    /// at the largest values the reader accepts ([`MAX_HALFMOVE_CLOCK`] plies, move
    /// [`MAX_FULLMOVE_NUMBER`]), so that every FEN written reads back: after Black's move from
    /// `8/3k4/8/8/8/R7/8/4K3 b - - 10000 100000` the FEN still ends `10000 100000`. The Laws
    /// lose nothing by it: every halfmove clock from 150 ends the game alike (FIDE Laws 9.6.2),
    /// and no game played from the initial position under the 75-move rule comes near 100,000
    /// moves.
    #[must_use]
    pub fn to_fen(&self) -> String {
        self.to_fen_with(false)
    }

    /// Writes the position as FEN; with `shredder` true, castling rights are always rook file
    /// letters (Shredder-FEN, e.g. `HAha`), the form used for Chess960 by some programs.
    #[must_use]
    pub fn to_fen_with(&self, shredder: bool) -> String {
        let mut s = self.board_fen();
        let _ = write!(
            s,
            " {} {} ",
            self.turn.char(),
            self.castling_field(shredder)
        );
        match self.ep_square {
            Some(sq) => {
                let _ = write!(s, "{sq}");
            }
            None => s.push('-'),
        }
        let _ = write!(s, " {} {}", self.halfmove_clock, self.fullmove_number);
        s
    }

    /// The piece placement field of the FEN.
    #[must_use]
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(72);
        for rank in Rank::ALL.iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                match self.piece_at(Square::from_coords(file, *rank)) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if *rank != Rank::First {
                s.push('/');
            }
        }
        s
    }

    fn castling_field(&self, shredder: bool) -> String {
        let mut s = String::new();
        for color in Color::ALL {
            let back = Bitboard::from_rank(color.back_rank());
            let rooks = self.castling & back;
            let Some(king) = self.king_square(color) else {
                continue;
            };
            let our_rooks = self.by_piece(Piece {
                color,
                role: Role::Rook,
            }) & back;
            // h-side first, then a-side, as in KQkq.
            let mut sorted: Vec<Square> = rooks.collect();
            sorted.sort_by_key(|sq| std::cmp::Reverse(sq.file()));
            for rook in sorted {
                let kingside = rook.file() > king.file();
                let outermost = if kingside {
                    our_rooks.last()
                } else {
                    our_rooks.first()
                };
                let letter = if shredder
                    || (self.mode == CastlingMode::Chess960 && outermost != Some(rook))
                {
                    rook.file().char()
                } else if kingside {
                    'k'
                } else {
                    'q'
                };
                s.push(match color {
                    Color::White => letter.to_ascii_uppercase(),
                    Color::Black => letter,
                });
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}

fn read_placement(setup: &mut Setup, field: &str) -> Result<(), FenSyntaxError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenSyntaxError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0u32;
        let mut after_digit = false;
        for (at, c) in text.char_indices() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                if after_digit {
                    // The whole run of digits, as written: `17`, `11111111`.
                    let start = text[..at]
                        .rfind(|c: char| !c.is_ascii_digit())
                        .map_or(0, |i| i + 1);
                    let digits = text[start..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .take(8)
                        .collect();
                    return Err(FenSyntaxError::AdjacentDigits {
                        rank: rank.index() + 1,
                        digits,
                    });
                }
                after_digit = true;
                file += d;
            } else if let Some(piece) = Piece::from_char(c) {
                if file < 8 {
                    setup.board[Square::from_coords(File::new(file), rank).index()] = Some(piece);
                }
                after_digit = false;
                file += 1;
            } else if c.is_ascii_digit() {
                return Err(FenSyntaxError::BadDigit {
                    digit: c,
                    rank: rank.index() + 1,
                });
            } else {
                return Err(FenSyntaxError::BadPiece {
                    letter: c,
                    rank: rank.index() + 1,
                });
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(FenSyntaxError::RankLength {
                rank: rank.index() + 1,
                squares: file.max(text.chars().count() as u32).min(file),
            });
        }
    }
    Ok(())
}

fn read_castling(field: &str) -> Result<Vec<CastlingRight>, FenSyntaxError> {
    if field == "-" {
        return Ok(Vec::new());
    }
    let bad = || FenSyntaxError::BadCastling(field.to_string());
    if field.is_empty() || field.len() > 4 {
        return Err(bad());
    }
    let mut rights = Vec::with_capacity(4);
    for c in field.chars() {
        let right = CastlingRight::from_char(c).ok_or_else(bad)?;
        if rights.contains(&right) {
            return Err(bad());
        }
        rights.push(right);
    }
    Ok(rights)
}

fn read_clock(value: &str, field: &'static str, min: u32, max: u32) -> Result<u32, FenSyntaxError> {
    value
        .parse::<u32>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| FenSyntaxError::BadClock {
            field,
            value: value.chars().take(32).collect(),
            min,
            max,
        })
}
