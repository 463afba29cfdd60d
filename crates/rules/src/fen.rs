//! FEN (Forsyth-Edwards Notation) reading and writing, with X-FEN and Shredder-FEN castling fields
//! for Chess960, and the validation that names the reason a position is rejected.

use std::fmt::Write as _;

use thiserror::Error;

use crate::attacks::tables;
use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Position};
use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The FEN of the standard start position (FIDE Laws 2.3).
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Largest halfmove clock accepted: far above the 75-move rule (150 plies, FIDE Laws 9.6.2).
pub const MAX_HALFMOVE_CLOCK: u32 = 10_000;
/// Largest fullmove number accepted.
pub const MAX_FULLMOVE_NUMBER: u32 = 100_000;
/// Longest FEN text accepted, in bytes.
pub const MAX_FEN_LEN: usize = 256;

/// How strictly to read a FEN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FenOptions {
    /// How castling rights are read and written (`KQkq` or rook files).
    pub mode: CastlingMode,
    /// Accept positions that cannot arise in a game (impossible checks, more than 16 pieces of a
    /// side, ...) as long as move generation is well defined: exactly one king per side, no pawn on
    /// the back ranks, the side not to move not in check. Meant for perft test suites; user input
    /// should be read strictly (the default).
    pub permissive: bool,
}

/// Why a FEN was rejected. The `Display` text names the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// The text is longer than [`MAX_FEN_LEN`].
    #[error("FEN is {0} bytes long, more than the limit of {MAX_FEN_LEN}")]
    TooLong(usize),
    /// Not 4 to 6 space-separated fields (placement, side, castling, en passant[, clocks]).
    #[error(
        "FEN has {0} fields, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)"
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
    ImpossibleCheck(String),
    /// The castling field is malformed.
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    /// A castling right without the king and the rook on their squares (FIDE Laws 3.8.2.1).
    #[error("castling right '{right}' needs {reason}")]
    CastlingWithoutPieces {
        /// The right as written in the FEN.
        right: char,
        /// What is missing.
        reason: String,
    },
    /// The en passant field is not `-` or a square on rank 3 or 6.
    #[error("bad en passant field '{0}'")]
    BadEnPassant(String),
    /// The en passant square is not behind a pawn that just made a double step (FIDE Laws 3.7.3.1).
    #[error("en passant square {0} is not behind a pawn that just made a double step")]
    EnPassantWithoutDoubleStep(Square),
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

impl FenError {
    /// Whether this error of a standard-chess reading is one a Chess960 reading may not have:
    /// the castling field (Shredder-FEN letters, a right whose king or rook is off its standard
    /// square). See [`Position::from_fen_detecting_mode`].
    #[must_use]
    pub fn is_chess960_only(&self) -> bool {
        matches!(
            self,
            FenError::BadCastling(_) | FenError::CastlingWithoutPieces { .. }
        )
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
    /// there (Shredder-FEN letters of rooks off the corners, a king off its standard square): the
    /// one rule every reader without a variant of its own uses to choose the castling mode (the
    /// PGN reader for a game without a `Variant` tag, `arbiter perft`). Any other error is the
    /// standard reading's; so is the error when the Chess960 reading fails too.
    ///
    /// # Errors
    /// The [`FenError`] of the standard reading.
    pub fn from_fen_detecting_mode(fen: &str, permissive: bool) -> Result<Position, FenError> {
        let read = |mode| Position::from_fen_with(fen, FenOptions { mode, permissive });
        match read(CastlingMode::Standard) {
            Err(error) if error.is_chess960_only() => {
                read(CastlingMode::Chess960).map_err(|_| error)
            }
            read => read,
        }
    }

    /// Reads a FEN (6 fields; the two clock fields may be omitted and then default to `0 1`).
    ///
    /// Strict validation (the default) rejects, with a specific reason: wrong field count, bad piece
    /// letter, a rank that is not 8 squares, not exactly one king per side, a pawn on rank 1 or 8,
    /// more pieces than a game can produce, the side not to move in check, more than two checkers or
    /// an impossible double check, a castling right without king and rook on their squares, an en
    /// passant square not behind a pawn that just double-stepped, clocks out of range. The en
    /// passant square is kept only when a legal en passant capture exists (FIDE Laws 9.2.3), so
    /// [`Position::to_fen`] may write `-` where the input named a square.
    ///
    /// Castling field: `KQkq` letters (X-FEN in Chess960 mode: the outermost rook on that side),
    /// or rook file letters (Shredder-FEN, `HAha`), or `-`. `startpos` reads as the standard
    /// start position.
    ///
    /// # Errors
    /// A [`FenError`] naming the field and the reason.
    pub fn from_fen_with(fen: &str, options: FenOptions) -> Result<Position, FenError> {
        let fen = fen.trim();
        if fen.len() > MAX_FEN_LEN {
            return Err(FenError::TooLong(fen.len()));
        }
        if fen == "startpos" {
            let mut p = Position::startpos();
            p.mode = options.mode;
            return Ok(p);
        }
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty(options.mode);
        read_placement(&mut pos, fields[0])?;
        pos.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };
        for color in Color::ALL {
            let count = pos
                .by_piece(Piece {
                    color,
                    role: Role::King,
                })
                .count();
            if count != 1 {
                return Err(FenError::KingCount { color, count });
            }
        }
        if let Some(sq) = (pos.by_role(Role::Pawn) & Bitboard::BACK_RANKS).first() {
            return Err(FenError::PawnOnBackRank(sq));
        }
        if !options.permissive {
            for color in Color::ALL {
                let ours = pos.by_color(color);
                let pawns = (ours & pos.by_role(Role::Pawn)).count();
                let pieces = ours.count();
                let promoted = promoted_minimum(&pos, color);
                if pieces > 16 || pawns > 8 {
                    return Err(FenError::TooManyPieces {
                        color,
                        pieces,
                        pawns,
                    });
                }
                if pawns + promoted > 8 {
                    return Err(FenError::TooManyPromotions {
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
            return Err(FenError::OppositeCheck(them));
        }
        pos.castling = read_castling(&pos, fields[2], options.mode)?;
        let ep = read_en_passant(&pos, fields[3])?;
        if !options.permissive {
            validate_checkers(&pos, ep)?;
        }
        pos.halfmove_clock = match fields.get(4) {
            Some(v) => read_clock(v, "halfmove clock", 0, MAX_HALFMOVE_CLOCK)?,
            None => 0,
        };
        pos.fullmove_number = match fields.get(5) {
            Some(v) => read_clock(v, "fullmove number", 1, MAX_FULLMOVE_NUMBER)?,
            None => 1,
        };
        if let Some(ep) = ep
            && pos.has_legal_ep_capture(ep)
        {
            pos.ep_square = Some(ep);
        }
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// Writes the position as FEN, with castling rights as `KQkq` in standard mode and as X-FEN in
    /// Chess960 mode (`KQkq` where that names the outermost rook, the rook's file letter where not).
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

fn read_placement(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0u32;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d;
            } else if let Some(piece) = Piece::from_char(c) {
                if file < 8 {
                    pos.put(
                        Square::from_coords(File::new(file), rank),
                        piece.color,
                        piece.role,
                    );
                }
                file += 1;
            } else {
                return Err(FenError::BadPiece {
                    letter: c,
                    rank: rank.index() + 1,
                });
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(FenError::RankLength {
                rank: rank.index() + 1,
                squares: file.max(text.chars().count() as u32).min(file),
            });
        }
    }
    Ok(())
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

fn read_castling(pos: &Position, field: &str, mode: CastlingMode) -> Result<Bitboard, FenError> {
    if field == "-" {
        return Ok(Bitboard::EMPTY);
    }
    if field.is_empty() || field.len() > 4 {
        return Err(FenError::BadCastling(field.to_string()));
    }
    let mut rights = Bitboard::EMPTY;
    for c in field.chars() {
        if !matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h') {
            return Err(FenError::BadCastling(field.to_string()));
        }
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let back = color.back_rank();
        let missing = |reason: String| FenError::CastlingWithoutPieces { right: c, reason };
        let king = pos
            .king_square(color)
            .filter(|k| k.rank() == back)
            .ok_or_else(|| missing(format!("the {} king on its first rank", color.name())))?;
        let rooks = pos.by_piece(Piece {
            color,
            role: Role::Rook,
        }) & Bitboard::from_rank(back);
        let lower = c.to_ascii_lowercase();
        let rook = match (lower, mode) {
            ('k' | 'q', CastlingMode::Standard) => {
                let file = if lower == 'k' { File::H } else { File::A };
                let sq = Square::from_coords(file, back);
                if king != Square::from_coords(File::E, back) {
                    return Err(missing(format!(
                        "the {} king on {}",
                        color.name(),
                        Square::from_coords(File::E, back)
                    )));
                }
                if !rooks.contains(sq) {
                    return Err(missing(format!("a {} rook on {sq}", color.name())));
                }
                sq
            }
            ('k', CastlingMode::Chess960) => {
                (rooks & !files_up_to(king.file())).last().ok_or_else(|| {
                    missing(format!("a {} rook on the h-side of the king", color.name()))
                })?
            }
            ('q', CastlingMode::Chess960) => (rooks & files_up_to(king.file()))
                .first()
                .filter(|r| r.file() < king.file())
                .ok_or_else(|| {
                    missing(format!("a {} rook on the a-side of the king", color.name()))
                })?,
            ('a'..='h', _) => {
                let sq = Square::from_coords(File::from_char(lower).unwrap_or(File::A), back);
                if !rooks.contains(sq) {
                    return Err(missing(format!("a {} rook on {sq}", color.name())));
                }
                if mode == CastlingMode::Standard
                    && (king != Square::from_coords(File::E, back)
                        || !matches!(sq.file(), File::A | File::H))
                {
                    return Err(missing(
                        "Chess960 mode (rook file letters in standard chess must be a or h with the king on e)"
                            .to_string(),
                    ));
                }
                // A king on the a- or h-file castles towards its one rook, as the X-FEN `K`/`Q`
                // branch above reads it (chess960-extra.epd line 20): the Shredder-FEN that
                // `to_fen_with(true)` writes for such a position must read back.
                sq
            }
            _ => return Err(FenError::BadCastling(field.to_string())),
        };
        if rights.contains(rook) {
            return Err(FenError::BadCastling(field.to_string()));
        }
        // At most one right per side of the king.
        let kingside = rook.file() > king.file();
        let same_side = (rights & Bitboard::from_rank(back))
            .into_iter()
            .any(|r| (r.file() > king.file()) == kingside);
        if same_side {
            return Err(FenError::BadCastling(field.to_string()));
        }
        rights |= Bitboard::from_square(rook);
    }
    Ok(rights)
}

/// Files a..=`file` on every rank.
fn files_up_to(file: File) -> Bitboard {
    File::ALL
        .into_iter()
        .filter(|f| *f <= file)
        .fold(Bitboard::EMPTY, |b, f| b | Bitboard::from_file(f))
}

fn read_en_passant(pos: &Position, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let sq = Square::from_name(field).ok_or_else(|| FenError::BadEnPassant(field.to_string()))?;
    let us = pos.turn;
    if sq.rank() != Rank::Sixth.relative_to(us) {
        return Err(FenError::BadEnPassant(field.to_string()));
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
        return Err(FenError::EnPassantWithoutDoubleStep(sq));
    }
    Ok(Some(sq))
}

fn read_clock(value: &str, field: &'static str, min: u32, max: u32) -> Result<u32, FenError> {
    value
        .parse::<u32>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| FenError::BadClock {
            field,
            value: value.chars().take(32).collect(),
            min,
            max,
        })
}

/// Rejects check configurations that no legal last move produces.
fn validate_checkers(pos: &Position, ep: Option<Square>) -> Result<(), FenError> {
    let t = tables();
    let Some(king) = pos.king_square(pos.turn) else {
        return Ok(());
    };
    let them = pos.turn.other();
    let checkers = pos.checkers();
    let n = checkers.count();
    if n > 2 {
        return Err(FenError::TooManyCheckers(n));
    }
    let impossible = |why: String| Err(FenError::ImpossibleCheck(why));
    if let Some(ep) = ep {
        // The last move was the double step: every check comes from that pawn or is discovered
        // through the square it left.
        let forward: i32 = if them == Color::White { 8 } else { -8 };
        let pawn = ep.offset(forward).unwrap_or(ep);
        let origin = ep.offset(-forward).unwrap_or(ep);
        for c in checkers {
            if c != pawn && !t.between(c, king).contains(origin) {
                return impossible(format!(
                    "the {} on {c} gives check, but the last move was the double step to {pawn}",
                    pos.role_at(c).map_or("piece", Role::name)
                ));
            }
        }
    }
    if n == 2 {
        let mut it = checkers;
        let (a, b) = (it.next().unwrap_or(king), it.next().unwrap_or(king));
        if t.line(a, b).contains(king) && t.line(a, king).contains(b) {
            return impossible(format!("{a} and {b} check along the same line"));
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
            return impossible(format!(
                "no single move gives double check from {a} and {b}"
            ));
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
