//! Conversions between the wire messages of [`crate::v1`] and the types of `arbiter-rules`.
//!
//! Reading is where wire errors are made: every function that reads a request part takes the
//! field path of that part (for example `"position"` or `"game.start"`) and returns a
//! [`ConvertError`] naming the offending field (`"position.fen"`, `"moves[3]"`,
//! `"position.board.pieces[\"z9\"]"`) and the reason. [`ConvertError`] turns into an
//! `INVALID_ARGUMENT` [`tonic::Status`] with `google.rpc.BadRequest` and `google.rpc.ErrorInfo`
//! details.

use std::{collections::HashMap, fmt::Write as _};

use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, Claim, ClaimKind, Color, FenError,
    FenOptions, Game, GameEvent, GameResult, Move, MoveError, MoveKind, Outcome, Piece, PlyError,
    Position, Role, SanLanguage, SanMode, Square, Status, Termination,
};
use tonic::Code;
use tonic_types::{ErrorDetails, FieldViolation, StatusExt as _};

use crate::v1;

/// The `google.rpc.ErrorInfo` domain of errors made by this crate.
pub const ERROR_DOMAIN: &str = "arbiter.v1";

/// Machine-readable category of a [`ConvertError`], sent as the `google.rpc.ErrorInfo` reason and
/// the field violation reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorReason {
    /// A required field is absent or empty.
    MissingField,
    /// A field has a value outside its domain (unknown enum value, bad square name, ...).
    InvalidValue,
    /// A position is not a legal chess position (bad FEN or board).
    InvalidPosition,
    /// A move is not legal, or not a move at all, in the position it is played in.
    IllegalMove,
    /// A size limit is exceeded (too many moves, too long a text).
    LimitExceeded,
    /// A PGN text is not PGN (syntax), or names a variant that is not supported.
    InvalidPgn,
}

impl ErrorReason {
    /// The SCREAMING_SNAKE_CASE name sent on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorReason::MissingField => "MISSING_FIELD",
            ErrorReason::InvalidValue => "INVALID_VALUE",
            ErrorReason::InvalidPosition => "INVALID_POSITION",
            ErrorReason::IllegalMove => "ILLEGAL_MOVE",
            ErrorReason::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorReason::InvalidPgn => "INVALID_PGN",
        }
    }
}

/// A request field that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ConvertError {
    /// Path of the offending field in the request, e.g. `moves[3]` or `position.fen`.
    pub field: String,
    /// Why the field cannot be used, e.g. `ply 4 (Nf3): no knight can move to f3`.
    pub reason: String,
    /// Machine-readable category.
    pub kind: ErrorReason,
    /// Extra facts for `google.rpc.ErrorInfo` metadata (e.g. `ply`, `index`, `move`).
    pub metadata: Vec<(String, String)>,
}

impl ConvertError {
    /// An error of `kind` on `field`.
    #[must_use]
    pub fn new(field: impl Into<String>, kind: ErrorReason, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
            kind,
            metadata: Vec::new(),
        }
    }

    /// A required field that is absent.
    #[must_use]
    pub fn missing(field: impl Into<String>, what: &str) -> Self {
        Self::new(
            field,
            ErrorReason::MissingField,
            format!("{what} is required"),
        )
    }

    /// Adds a metadata entry for `google.rpc.ErrorInfo`.
    #[must_use]
    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> Self {
        self.metadata.push((key.to_owned(), value.into()));
        self
    }

    /// The `INVALID_ARGUMENT` status: message `"<field>: <reason>"`, a `google.rpc.BadRequest`
    /// with one field violation, and a `google.rpc.ErrorInfo` with the reason and metadata.
    #[must_use]
    pub fn to_status(&self) -> tonic::Status {
        let mut violation = FieldViolation::new(self.field.clone(), self.reason.clone());
        violation.reason = self.kind.as_str().to_owned();
        let mut details = ErrorDetails::with_bad_request(vec![violation]);
        let mut metadata: HashMap<String, String> = self.metadata.iter().cloned().collect();
        metadata.insert("field".to_owned(), self.field.clone());
        details.set_error_info(self.kind.as_str(), ERROR_DOMAIN, metadata);
        tonic::Status::with_error_details(Code::InvalidArgument, self.to_string(), details)
    }
}

impl From<ConvertError> for tonic::Status {
    fn from(error: ConvertError) -> Self {
        error.to_status()
    }
}

/// Joins a parent field path and a child field name: `join("game", "start")` is `game.start`,
/// `join("", "moves")` is `moves`.
#[must_use]
pub fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

// ---------------------------------------------------------------------------------------------
// Enums and small types
// ---------------------------------------------------------------------------------------------

/// The wire color of a rules color.
#[must_use]
pub fn color_to_wire(color: Color) -> v1::Color {
    match color {
        Color::White => v1::Color::White,
        Color::Black => v1::Color::Black,
    }
}

/// The wire role of a rules role.
#[must_use]
pub fn role_to_wire(role: Role) -> v1::Role {
    match role {
        Role::Pawn => v1::Role::Pawn,
        Role::Knight => v1::Role::Knight,
        Role::Bishop => v1::Role::Bishop,
        Role::Rook => v1::Role::Rook,
        Role::Queen => v1::Role::Queen,
        Role::King => v1::Role::King,
    }
}

/// The wire piece of a rules piece.
#[must_use]
pub fn piece_to_wire(piece: Piece) -> v1::Piece {
    v1::Piece {
        color: color_to_wire(piece.color).into(),
        role: role_to_wire(piece.role).into(),
    }
}

/// Reads a wire color (an `i32` enum value) at `field`; unset and unknown values are errors.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for `COLOR_UNSPECIFIED`, [`ErrorReason::InvalidValue`] for a
/// number that is no `Color`.
pub fn color_from_wire(value: i32, field: &str) -> Result<Color, ConvertError> {
    match v1::Color::try_from(value) {
        Ok(v1::Color::White) => Ok(Color::White),
        Ok(v1::Color::Black) => Ok(Color::Black),
        Ok(v1::Color::Unspecified) => Err(ConvertError::missing(field, "a color")),
        Err(_) => Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!("{value} is not a Color value"),
        )),
    }
}

/// Reads a wire role (an `i32` enum value) at `field`; unset and unknown values are errors.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for `ROLE_UNSPECIFIED`, [`ErrorReason::InvalidValue`] for a
/// number that is no `Role`.
pub fn role_from_wire(value: i32, field: &str) -> Result<Role, ConvertError> {
    match v1::Role::try_from(value) {
        Ok(v1::Role::Pawn) => Ok(Role::Pawn),
        Ok(v1::Role::Knight) => Ok(Role::Knight),
        Ok(v1::Role::Bishop) => Ok(Role::Bishop),
        Ok(v1::Role::Rook) => Ok(Role::Rook),
        Ok(v1::Role::Queen) => Ok(Role::Queen),
        Ok(v1::Role::King) => Ok(Role::King),
        Ok(v1::Role::Unspecified) => Err(ConvertError::missing(field, "a role")),
        Err(_) => Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!("{value} is not a Role value"),
        )),
    }
}

/// Reads a wire variant at `field`: unset is standard chess.
///
/// # Errors
///
/// [`ErrorReason::InvalidValue`] for a number that is no `Variant`.
pub fn variant_from_wire(value: i32, field: &str) -> Result<CastlingMode, ConvertError> {
    match v1::Variant::try_from(value) {
        Ok(v1::Variant::Unspecified | v1::Variant::Standard) => Ok(CastlingMode::Standard),
        Ok(v1::Variant::Chess960) => Ok(CastlingMode::Chess960),
        Err(_) => Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!("{value} is not a Variant value"),
        )),
    }
}

/// The wire variant of a castling mode.
#[must_use]
pub fn variant_to_wire(mode: CastlingMode) -> v1::Variant {
    match mode {
        CastlingMode::Standard => v1::Variant::Standard,
        CastlingMode::Chess960 => v1::Variant::Chess960,
    }
}

/// Reads a wire SAN language at `field`: unset is English.
///
/// # Errors
///
/// [`ErrorReason::InvalidValue`] for a number that is no `SanLanguage`.
pub fn san_language_from_wire(value: i32, field: &str) -> Result<SanLanguage, ConvertError> {
    Ok(match v1::SanLanguage::try_from(value) {
        Ok(v1::SanLanguage::Unspecified | v1::SanLanguage::English) => SanLanguage::English,
        Ok(v1::SanLanguage::Spanish) => SanLanguage::Spanish,
        Ok(v1::SanLanguage::German) => SanLanguage::German,
        Ok(v1::SanLanguage::French) => SanLanguage::French,
        Ok(v1::SanLanguage::Italian) => SanLanguage::Italian,
        Ok(v1::SanLanguage::Dutch) => SanLanguage::Dutch,
        Ok(v1::SanLanguage::Figurine) => SanLanguage::Figurine,
        Err(_) => {
            return Err(ConvertError::new(
                field,
                ErrorReason::InvalidValue,
                format!("{value} is not a SanLanguage value"),
            ));
        }
    })
}

/// The wire SAN language of a rules SAN language.
#[must_use]
pub fn san_language_to_wire(language: SanLanguage) -> v1::SanLanguage {
    match language {
        SanLanguage::English => v1::SanLanguage::English,
        SanLanguage::Spanish => v1::SanLanguage::Spanish,
        SanLanguage::German => v1::SanLanguage::German,
        SanLanguage::French => v1::SanLanguage::French,
        SanLanguage::Italian => v1::SanLanguage::Italian,
        SanLanguage::Dutch => v1::SanLanguage::Dutch,
        SanLanguage::Figurine => v1::SanLanguage::Figurine,
    }
}

/// How an answer writes moves and positions: the request's `san_language` and
/// `castling_notation`. The default is English SAN and X-FEN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notation {
    /// The piece letters of SAN, read and written.
    pub language: SanLanguage,
    /// Chess960 castling rights in FEN as Shredder-FEN file letters instead of X-FEN.
    pub shredder: bool,
}

impl Notation {
    /// Reads the request options `san_language` and `castling_notation` (wire enum values);
    /// `prefix` is the path of the message holding them (`""` for the request itself).
    ///
    /// # Errors
    ///
    /// [`ErrorReason::InvalidValue`] naming the option with a number outside its enum.
    pub fn from_wire(
        san_language: i32,
        castling_notation: i32,
        prefix: &str,
    ) -> Result<Notation, ConvertError> {
        let language = san_language_from_wire(san_language, &join(prefix, "san_language"))?;
        let shredder = match v1::CastlingNotation::try_from(castling_notation) {
            Ok(v1::CastlingNotation::Unspecified | v1::CastlingNotation::XFen) => false,
            Ok(v1::CastlingNotation::ShredderFen) => true,
            Err(_) => {
                return Err(ConvertError::new(
                    join(prefix, "castling_notation"),
                    ErrorReason::InvalidValue,
                    format!("{castling_notation} is not a CastlingNotation value"),
                ));
            }
        };
        Ok(Notation { language, shredder })
    }

    /// The FEN of `position`: plain FEN in standard chess; in Chess960 X-FEN, or Shredder-FEN
    /// when asked for.
    #[must_use]
    pub fn fen(&self, position: &Position) -> String {
        position.to_fen_with(self.shredder && position.castling_mode() == CastlingMode::Chess960)
    }
}

// ---------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------

/// Reads a required position at `field` (e.g. `"position"`).
///
/// # Errors
///
/// A [`ConvertError`] when the position is absent, or its FEN or board is invalid; the field
/// names the part at fault (`position.fen`, `position.board.side_to_move`, ...).
pub fn position_from_wire(
    position: Option<&v1::Position>,
    field: &str,
) -> Result<Position, ConvertError> {
    let Some((kind, variant)) = position.and_then(|p| p.kind.as_ref().map(|k| (k, p.variant)))
    else {
        return Err(ConvertError::missing(
            field,
            "a position (fen, board or chess960_number; fen \"startpos\" for the initial position)",
        ));
    };
    let variant_field = join(field, "variant");
    let mode = variant_from_wire(variant, &variant_field)?;
    match kind {
        v1::position::Kind::Fen(fen) => {
            let fen_field = join(field, "fen");
            if fen.trim().is_empty() {
                return Err(ConvertError::missing(
                    fen_field,
                    "a FEN string (or \"startpos\")",
                ));
            }
            let options = FenOptions {
                mode,
                permissive: false,
            };
            Position::from_fen_with(fen, options).map_err(|error| {
                let mut reason = error.to_string();
                // The wire has a variant field: a FEN valid only in Chess960 is not read so
                // silently, the error says how to ask for it.
                if mode == CastlingMode::Standard
                    && Position::from_fen_detecting_mode(fen, false)
                        .is_ok_and(|position| position.castling_mode() == CastlingMode::Chess960)
                {
                    let _ = write!(
                        reason,
                        " (the position is valid in Chess960: set {variant_field} to VARIANT_CHESS960)"
                    );
                }
                ConvertError::new(fen_field, ErrorReason::InvalidPosition, reason)
            })
        }
        v1::position::Kind::Board(board) => board_from_wire_in(board, &join(field, "board"), mode),
        v1::position::Kind::Chess960Number(number) => {
            if variant == i32::from(v1::Variant::Standard) {
                return Err(ConvertError::new(
                    variant_field,
                    ErrorReason::InvalidValue,
                    "VARIANT_STANDARD contradicts chess960_number: leave the variant unset or set \
                     VARIANT_CHESS960",
                ));
            }
            Position::chess960(*number).ok_or_else(|| {
                ConvertError::new(
                    join(field, "chess960_number"),
                    ErrorReason::InvalidValue,
                    format!(
                        "{number} is out of range: Chess960 start positions are numbered 0 to 959"
                    ),
                )
            })
        }
    }
}

/// Reads an optional position at `field`: absent means the standard initial position.
///
/// # Errors
///
/// As [`position_from_wire`], except that an absent position is no error.
pub fn optional_position_from_wire(
    position: Option<&v1::Position>,
    field: &str,
) -> Result<Position, ConvertError> {
    match position {
        None => Ok(Position::startpos()),
        Some(wire) if wire.kind.is_none() => {
            let mode = variant_from_wire(wire.variant, &join(field, "variant"))?;
            let options = FenOptions {
                mode,
                permissive: false,
            };
            Position::from_fen_with("startpos", options).map_err(|error| {
                ConvertError::new(field, ErrorReason::InvalidPosition, error.to_string())
            })
        }
        Some(_) => position_from_wire(position, field),
    }
}

/// Reads a structured board at `field` (e.g. `"position.board"`) under the castling rules of
/// `mode`: the board is written as FEN (castling rook files as Shredder-FEN letters) and read
/// with the same strict validation as a FEN string, so both forms accept exactly the same
/// positions.
///
/// # Errors
///
/// A [`ConvertError`] naming the board field at fault.
pub fn board_from_wire_in(
    board: &v1::Board,
    field: &str,
    mode: CastlingMode,
) -> Result<Position, ConvertError> {
    let pieces_field = join(field, "pieces");
    if board.pieces.len() > 64 {
        return Err(ConvertError::new(
            pieces_field,
            ErrorReason::LimitExceeded,
            format!("{} entries; a board has 64 squares", board.pieces.len()),
        ));
    }
    let mut squares: [Option<Piece>; 64] = [None; 64];
    for (name, piece) in &board.pieces {
        let entry_field = format!("{pieces_field}[{name:?}]");
        let square = Square::from_name(name).ok_or_else(|| {
            ConvertError::new(
                entry_field.clone(),
                ErrorReason::InvalidValue,
                format!(
                    "{:?} is not a square name (\"a1\" to \"h8\")",
                    clip(name, 8)
                ),
            )
        })?;
        let color = color_from_wire(piece.color, &format!("{entry_field}.color"))?;
        let role = role_from_wire(piece.role, &format!("{entry_field}.role"))?;
        squares[square.index()] = Some(Piece { color, role });
    }

    let mut fen = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for file in 0..8 {
            match squares[rank * 8 + file] {
                Some(piece) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(piece.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }

    let side = color_from_wire(board.side_to_move, &join(field, "side_to_move"))?;
    fen.push(' ');
    fen.push(side.char());

    fen.push(' ');
    let castling = board.castling.clone().unwrap_or_default();
    let castling_field = join(field, "castling");
    let before = fen.len();
    for (allowed, file, name, color, king_side) in [
        (
            castling.white_king_side,
            &castling.white_king_side_rook_file,
            "white_king_side_rook_file",
            Color::White,
            true,
        ),
        (
            castling.white_queen_side,
            &castling.white_queen_side_rook_file,
            "white_queen_side_rook_file",
            Color::White,
            false,
        ),
        (
            castling.black_king_side,
            &castling.black_king_side_rook_file,
            "black_king_side_rook_file",
            Color::Black,
            true,
        ),
        (
            castling.black_queen_side,
            &castling.black_queen_side_rook_file,
            "black_queen_side_rook_file",
            Color::Black,
            false,
        ),
    ] {
        let letter = if file.trim().is_empty() {
            if !allowed {
                continue;
            }
            if king_side { 'k' } else { 'q' }
        } else {
            rook_file_letter(
                &squares,
                file,
                color,
                king_side,
                &join(&castling_field, name),
            )?
        };
        fen.push(match color {
            Color::White => letter.to_ascii_uppercase(),
            Color::Black => letter,
        });
    }
    if fen.len() == before {
        fen.push('-');
    }

    fen.push(' ');
    let ep = board.en_passant_square.trim();
    if ep.is_empty() {
        fen.push('-');
    } else {
        let square = Square::from_name(ep).ok_or_else(|| {
            ConvertError::new(
                join(field, "en_passant_square"),
                ErrorReason::InvalidValue,
                format!("{:?} is not a square name (\"a1\" to \"h8\")", clip(ep, 8)),
            )
        })?;
        let _ = write!(fen, "{square}");
    }
    let fullmove = board.fullmove_number.max(1);
    let _ = write!(fen, " {} {fullmove}", board.halfmove_clock);

    let options = FenOptions {
        mode,
        permissive: false,
    };
    Position::from_fen_with(&fen, options).map_err(|error| {
        let part = match &error {
            FenError::BadCastling(_) | FenError::CastlingWithoutPieces { .. } => "castling",
            FenError::BadEnPassant(_) | FenError::EnPassantWithoutDoubleStep(_) => {
                "en_passant_square"
            }
            FenError::BadClock { field, .. } if field.starts_with("halfmove") => "halfmove_clock",
            FenError::BadClock { .. } => "fullmove_number",
            FenError::BadSideToMove(_) => "side_to_move",
            _ => "pieces",
        };
        ConvertError::new(
            join(field, part),
            ErrorReason::InvalidPosition,
            error.to_string(),
        )
    })
}

/// Reads a castling rook file (`"a"` to `"h"`) at `field`, checking that it lies on the side of
/// the king the right is for; the FEN reader checks the rook itself.
fn rook_file_letter(
    squares: &[Option<Piece>; 64],
    file: &str,
    color: Color,
    king_side: bool,
    field: &str,
) -> Result<char, ConvertError> {
    let file = file.trim();
    let letter = match file.as_bytes() {
        [letter @ b'a'..=b'h'] => char::from(*letter),
        _ => {
            return Err(ConvertError::new(
                field,
                ErrorReason::InvalidValue,
                format!("{:?} is not a file (\"a\" to \"h\")", clip(file, 8)),
            ));
        }
    };
    let rank_start = if color == Color::White { 0 } else { 56 };
    let king = Piece {
        color,
        role: Role::King,
    };
    let king_file = (0..8).find(|f| squares[rank_start + f] == Some(king));
    let rook_file = usize::from(letter as u8 - b'a');
    if let Some(king_file) = king_file
        && (rook_file > king_file) != king_side
    {
        return Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!(
                "the {letter}-file is on the {} side of the {} king",
                if king_side { "queen" } else { "king" },
                color.name()
            ),
        ));
    }
    Ok(letter)
}

/// The structured board of a position; in Chess960 the castling rights also name their rook
/// files.
#[must_use]
pub fn board_to_wire(position: &Position) -> v1::Board {
    let pieces = Square::all()
        .filter_map(|square| {
            position
                .piece_at(square)
                .map(|piece| (square.to_string(), piece_to_wire(piece)))
        })
        .collect();
    let mut castling = v1::CastlingRights::default();
    for rook in position.castling_rights() {
        let Some(color) = position.piece_at(rook).map(|piece| piece.color) else {
            continue;
        };
        let king_file = position.king_square(color).map(|king| king.file());
        let king_side = king_file.is_some_and(|king| rook.file() > king);
        let (right, file) = match (color, king_side) {
            (Color::White, true) => (
                &mut castling.white_king_side,
                &mut castling.white_king_side_rook_file,
            ),
            (Color::White, false) => (
                &mut castling.white_queen_side,
                &mut castling.white_queen_side_rook_file,
            ),
            (Color::Black, true) => (
                &mut castling.black_king_side,
                &mut castling.black_king_side_rook_file,
            ),
            (Color::Black, false) => (
                &mut castling.black_queen_side,
                &mut castling.black_queen_side_rook_file,
            ),
        };
        *right = true;
        if position.castling_mode() == CastlingMode::Chess960 {
            *file = rook.file().char().to_string();
        }
    }
    v1::Board {
        pieces,
        side_to_move: color_to_wire(position.side_to_move()).into(),
        castling: Some(castling),
        en_passant_square: position
            .ep_square()
            .map(|square| square.to_string())
            .unwrap_or_default(),
        halfmove_clock: position.halfmove_clock(),
        fullmove_number: position.fullmove_number(),
    }
}

/// The status of a position, history aside.
#[must_use]
pub fn status_to_wire(position: &Position) -> v1::PositionStatus {
    let moves = position.legal_moves();
    let status = position.status();
    v1::PositionStatus {
        side_to_move: color_to_wire(position.side_to_move()).into(),
        is_check: position.is_check(),
        is_checkmate: status == Status::Checkmate,
        is_stalemate: status == Status::Stalemate,
        is_insufficient_material: position.is_insufficient_material(),
        legal_move_count: u32::try_from(moves.len()).unwrap_or(u32::MAX),
        halfmove_clock: position.halfmove_clock(),
        fullmove_number: position.fullmove_number(),
    }
}

// ---------------------------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------------------------

/// Describes the legal move `mv` of `before` for the wire with SAN in `language` (UCI is
/// king-takes-rook castling when `before` is a Chess960 position); also returns the position
/// after it.
#[must_use]
pub fn move_to_wire_in(
    before: &Position,
    mv: &Move,
    language: SanLanguage,
) -> (v1::Move, Position) {
    let after = before.play(mv);
    let piece = Piece {
        color: before.side_to_move(),
        role: mv.role,
    };
    let wire = v1::Move {
        uci: before.uci(mv),
        san: before.san_in(mv, language),
        from: mv.from.to_string(),
        to: mv.king_destination().to_string(),
        piece: Some(piece_to_wire(piece)),
        captured: mv
            .capture
            .map_or(v1::Role::Unspecified, role_to_wire)
            .into(),
        promotion: mv
            .promotion
            .map_or(v1::Role::Unspecified, role_to_wire)
            .into(),
        is_check: after.is_check(),
        is_checkmate: after.is_checkmate(),
        is_castle: mv.kind == MoveKind::Castle,
        is_en_passant: mv.kind == MoveKind::EnPassant,
    };
    (wire, after)
}

/// Every legal move of `position` for the wire, sorted by UCI string, SAN in `language`.
#[must_use]
pub fn legal_moves_to_wire_in(position: &Position, language: SanLanguage) -> Vec<v1::Move> {
    let mut moves: Vec<v1::Move> = position
        .legal_moves()
        .iter()
        .map(|mv| move_to_wire_in(position, mv, language).0)
        .collect();
    moves.sort_unstable_by(|a, b| a.uci.cmp(&b.uci));
    moves
}

/// Reads one move text (SAN in `language`, or UCI) at `field`.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for an empty text, [`ErrorReason::IllegalMove`] with the rules'
/// reason otherwise.
pub fn move_from_wire_in(
    position: &Position,
    text: &str,
    field: &str,
    language: SanLanguage,
) -> Result<Move, ConvertError> {
    if text.trim().is_empty() {
        return Err(ConvertError::missing(field, "a move in SAN or UCI"));
    }
    parse_move_in(position, text, language).map_err(|error| move_error(field, &error, text, None))
}

/// Reads a move in UCI or in SAN with the piece letters of `language`, the notation detected
/// for the move on its own: UCI when the text is `<square><square>[promotion letter]` (or the
/// null move `0000`, which is rejected), SAN (tolerant) otherwise. Figurine SAN reads English
/// letters and figurine symbols; figurines are read in every language.
///
/// # Errors
///
/// The rules' [`MoveError`].
pub fn parse_move_in(
    position: &Position,
    text: &str,
    language: SanLanguage,
) -> Result<Move, MoveError> {
    let text = text.trim();
    if language == SanLanguage::English || arbiter_rules::looks_like_uci(text) {
        position.parse_move(text)
    } else {
        position.parse_san_in(text, SanMode::Tolerant, language)
    }
}

/// The [`ConvertError`] for move text `text` at `field` that the rules rejected; `ply` is the
/// 1-based ply within a move list, if the move is part of one. Its `ErrorInfo` metadata: `move`,
/// `move_error` (`syntax`, `illegal`, ...), for an illegal move `cause` (a stable name such as
/// `PINNED`, [`arbiter_rules::Illegality::cause`]) and `article` (the FIDE article, e.g.
/// `3.9.2`, when one applies), and in a list `ply` and `index`.
#[must_use]
pub fn move_error(field: &str, error: &MoveError, text: &str, ply: Option<usize>) -> ConvertError {
    let shown = clip(text.trim(), 32);
    let reason = match ply {
        Some(ply) => format!("ply {ply} ({shown}): {}", error.reason()),
        None => format!("{shown}: {}", error.reason()),
    };
    let mut converted = ConvertError::new(field, ErrorReason::IllegalMove, reason)
        .with_metadata("move", shown)
        .with_metadata("move_error", error.kind());
    if let Some(illegality) = error.illegality() {
        converted = converted.with_metadata("cause", illegality.cause());
        if let Some(article) = illegality.article() {
            converted = converted.with_metadata("article", article);
        }
    }
    if let Some(ply) = ply {
        converted = converted
            .with_metadata("ply", ply.to_string())
            .with_metadata("index", (ply - 1).to_string());
    }
    converted
}

/// Checks a move list against the `max_moves` limit; `field` is the list's path.
///
/// # Errors
///
/// [`ErrorReason::LimitExceeded`] when the list is longer than `max_moves`.
pub fn check_move_count(count: usize, max_moves: usize, field: &str) -> Result<(), ConvertError> {
    if count > max_moves {
        return Err(ConvertError::new(
            field,
            ErrorReason::LimitExceeded,
            format!("{count} moves, more than the limit of {max_moves}"),
        )
        .with_metadata("limit", max_moves.to_string()));
    }
    Ok(())
}

/// Plays `moves` (SAN in `language`, or UCI) from `start`, with SAN written in `language`.
///
/// # Errors
///
/// A [`ConvertError`] for the first bad move, or when there are more than `max_moves` moves.
pub fn play_moves_in(
    start: Position,
    moves: &[String],
    field: &str,
    max_moves: usize,
    language: SanLanguage,
) -> Result<(Position, Vec<v1::Move>), ConvertError> {
    check_move_count(moves.len(), max_moves, field)?;
    let mut position = start;
    let mut played = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        let item = format!("{field}[{index}]");
        if text.trim().is_empty() {
            return Err(ConvertError::missing(item, "a move in SAN or UCI"));
        }
        let mv = parse_move_in(&position, text, language)
            .map_err(|error| move_error(&item, &error, text, Some(index + 1)))?;
        let (wire, after) = move_to_wire_in(&position, &mv, language);
        played.push(wire);
        position = after;
    }
    Ok((position, played))
}

// ---------------------------------------------------------------------------------------------
// Games and adjudication
// ---------------------------------------------------------------------------------------------

/// Reads a game at `field` (its start position and moves), with SAN read in `language`. The game's variant is its start
/// position's.
///
/// # Errors
///
/// A [`ConvertError`] for a bad start position, a bad move, or more than `max_moves` moves.
pub fn game_from_wire_in(
    game: &v1::Game,
    field: &str,
    max_moves: usize,
    budget: AnalysisBudget,
    language: SanLanguage,
) -> Result<Game, ConvertError> {
    let moves_field = join(field, "moves");
    check_move_count(game.moves.len(), max_moves, &moves_field)?;
    let start = optional_position_from_wire(game.start.as_ref(), &join(field, "start"))?;
    let mut played = Game::with_dead_position_analysis(start, budget);
    for (index, text) in game.moves.iter().enumerate() {
        let item = format!("{moves_field}[{index}]");
        if text.trim().is_empty() {
            return Err(ConvertError::missing(item, "a move in SAN or UCI"));
        }
        // Moves listed after checkmate or stalemate count as played after the end.
        let parsed = parse_move_in(played.position(), text, language);
        played
            .record(parsed)
            .map_err(|error| move_error(&item, &error, text, Some(index + 1)))?;
    }
    Ok(played)
}

/// The [`ConvertError`] for a game move the rules rejected, at `field`.
#[must_use]
pub fn ply_error(field: &str, error: &PlyError) -> ConvertError {
    move_error(field, &error.error, &error.text, Some(error.ply))
}

/// The wire result of a rules result.
#[must_use]
pub fn result_to_wire(result: GameResult) -> v1::Result {
    match result {
        GameResult::WhiteWins => v1::Result::WhiteWins,
        GameResult::BlackWins => v1::Result::BlackWins,
        GameResult::Draw => v1::Result::Draw,
    }
}

/// The wire termination of a rules termination. Insufficient material is reported as a dead
/// position (FIDE 5.2.2), its simple case; the outcome description says which.
#[must_use]
pub fn termination_to_wire(termination: Termination) -> v1::Termination {
    match termination {
        Termination::Checkmate => v1::Termination::Checkmate,
        Termination::Stalemate => v1::Termination::Stalemate,
        Termination::InsufficientMaterial => v1::Termination::DeadPosition,
        Termination::FivefoldRepetition => v1::Termination::FivefoldRepetition,
        Termination::SeventyFiveMoveRule => v1::Termination::SeventyFiveMoveRule,
        Termination::ThreefoldRepetition => v1::Termination::ThreefoldRepetition,
        Termination::FiftyMoveRule => v1::Termination::FiftyMoveRule,
        Termination::DeadPosition => v1::Termination::DeadPosition,
        Termination::FlagFall => v1::Termination::FlagFall,
        Termination::Resignation => v1::Termination::Resignation,
        Termination::SecondIllegalMove => v1::Termination::SecondIllegalMove,
        Termination::AgreedDraw => v1::Termination::AgreedDraw,
        Termination::Forfeit => v1::Termination::Forfeit,
    }
}

/// The wire outcome of a game that ended.
#[must_use]
pub fn outcome_to_wire(outcome: &Outcome) -> v1::Outcome {
    v1::Outcome {
        result: result_to_wire(outcome.result).into(),
        result_text: outcome.result.as_pgn().to_owned(),
        termination: termination_to_wire(outcome.termination).into(),
        fide_article: outcome.article().to_owned(),
        ply: u32::try_from(outcome.ply).unwrap_or(u32::MAX),
        description: outcome.termination.description().to_owned(),
    }
}

/// The wire outcome of a game that has not ended after `ply` plies.
#[must_use]
pub fn ongoing_to_wire(ply: usize) -> v1::Outcome {
    v1::Outcome {
        result: v1::Result::Ongoing.into(),
        result_text: "*".to_owned(),
        termination: v1::Termination::Unspecified.into(),
        fide_article: String::new(),
        ply: u32::try_from(ply).unwrap_or(u32::MAX),
        description: String::new(),
    }
}

/// The wire claim kind of a rules claim kind.
#[must_use]
pub fn claim_kind_to_wire(kind: ClaimKind) -> v1::ClaimKind {
    match kind {
        ClaimKind::ThreefoldRepetition => v1::ClaimKind::ThreefoldRepetition,
        ClaimKind::FiftyMoveRule => v1::ClaimKind::FiftyMoveRule,
    }
}

/// The wire form of a claim available in `position`: its article and, when it is made by
/// announcing a move, that move described in full, its SAN in `language`.
#[must_use]
pub fn claim_to_wire_in(position: &Position, claim: &Claim, language: SanLanguage) -> v1::Claim {
    v1::Claim {
        kind: claim_kind_to_wire(claim.kind).into(),
        fide_article: claim.kind.article().to_owned(),
        claimable_now: claim.by_move.is_none(),
        r#move: claim
            .by_move
            .map(|mv| move_to_wire_in(position, &mv, language).0),
    }
}

/// The wire claims of a game at its current position, SAN in `language`.
#[must_use]
pub fn claims_to_wire_in(game: &Game, language: SanLanguage) -> Vec<v1::Claim> {
    game.claims()
        .iter()
        .map(|claim| claim_to_wire_in(game.position(), claim, language))
        .collect()
}

/// Reads the optional end-of-game event at `field` (e.g. `"event"`).
///
/// # Errors
///
/// A [`ConvertError`] for an unknown kind, or a missing or unknown side where the kind needs one.
pub fn event_from_wire(
    event: Option<&v1::GameEvent>,
    field: &str,
) -> Result<Option<GameEvent>, ConvertError> {
    let Some(event) = event else {
        return Ok(None);
    };
    let kind = v1::GameEventKind::try_from(event.kind).map_err(|_| {
        ConvertError::new(
            join(field, "kind"),
            ErrorReason::InvalidValue,
            format!("{} is not a GameEventKind value", event.kind),
        )
    })?;
    let side = || color_from_wire(event.side, &join(field, "side"));
    Ok(match kind {
        v1::GameEventKind::Unspecified => None,
        v1::GameEventKind::FlagFall => Some(GameEvent::FlagFall(side()?)),
        v1::GameEventKind::Resignation => Some(GameEvent::Resignation(side()?)),
        v1::GameEventKind::SecondIllegalMove => Some(GameEvent::SecondIllegalMove(side()?)),
        v1::GameEventKind::AgreedDraw => Some(GameEvent::AgreedDraw),
        v1::GameEventKind::Forfeit => Some(GameEvent::Forfeit(side()?)),
    })
}

/// Describes a series of legal moves from `start` for the wire, SAN in `language`.
#[must_use]
pub fn line_to_wire_in(start: &Position, line: &[Move], language: SanLanguage) -> Vec<v1::Move> {
    let mut position = start.clone();
    line.iter()
        .map(|mv| {
            let (wire, after) = move_to_wire_in(&position, mv, language);
            position = after;
            wire
        })
        .collect()
}

/// Adjudicates a game under the FIDE Laws: the rules' automatic endings first, then the event,
/// then a dead position found by analysis, then (with `request.claim_draw`) a draw claim valid
/// now; otherwise the game is ongoing and the claims available are listed.
#[must_use]
pub fn adjudicate(game: &Game, request: &AdjudicationRequest) -> v1::AdjudicateGameResponse {
    adjudicate_with(game, request, Notation::default())
}

/// As [`adjudicate`], with SAN and FEN written as `notation` says.
#[must_use]
pub fn adjudicate_with(
    game: &Game,
    request: &AdjudicationRequest,
    notation: Notation,
) -> v1::AdjudicateGameResponse {
    let verdict = arbiter_rules::adjudicate(game, request);
    let position = game.position();
    v1::AdjudicateGameResponse {
        outcome: Some(
            verdict
                .outcome
                .map_or_else(|| ongoing_to_wire(game.ply()), |o| outcome_to_wire(&o)),
        ),
        claims: verdict
            .claims
            .iter()
            .map(|claim| claim_to_wire_in(position, claim, notation.language))
            .collect(),
        fen: notation.fen(position),
        status: Some(status_to_wire(position)),
        ply_count: u32::try_from(game.recorded_plies()).unwrap_or(u32::MAX),
        explanation: verdict.explanation,
        evidence: line_to_wire_in(position, &verdict.evidence, notation.language),
        plies_after_end: u32::try_from(verdict.plies_after_end).unwrap_or(u32::MAX),
        undetermined: verdict.undetermined,
        warnings: verdict.warnings.iter().map(warning_to_wire).collect(),
        laws: arbiter_rules::LAWS_EDITION.to_owned(),
        ..v1::AdjudicateGameResponse::default()
    }
}

/// Most warnings one verdict lists (`AdjudicateGameResponse.warnings`); the rest are counted.
pub const MAX_WARNINGS: usize = 32;

/// The wire form of a warning of the rules (no line: the game was not read from PGN).
#[must_use]
pub fn warning_to_wire(warning: &arbiter_rules::VerdictWarning) -> v1::Warning {
    v1::Warning {
        code: warning.code.as_str().to_owned(),
        ply: u32::try_from(warning.ply).unwrap_or(u32::MAX),
        line: 0,
        message: warning.message.clone(),
    }
}

/// Keeps the first [`MAX_WARNINGS`] warnings of `response` and counts the others in
/// `warnings_omitted`.
pub fn bound_warnings(response: &mut v1::AdjudicateGameResponse) {
    if response.warnings.len() > MAX_WARNINGS {
        let omitted = response.warnings.len() - MAX_WARNINGS;
        response.warnings.truncate(MAX_WARNINGS);
        response.warnings_omitted = response
            .warnings_omitted
            .saturating_add(u32::try_from(omitted).unwrap_or(u32::MAX));
    }
}

/// At most `max` characters of `text`, for echoing caller input in messages.
fn clip(text: &str, max: usize) -> String {
    let mut clipped: String = text.chars().take(max).collect();
    if text.chars().nth(max).is_some() {
        clipped.push('…');
    }
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> v1::Position {
        v1::Position {
            kind: Some(v1::position::Kind::Fen(text.to_owned())),
            ..v1::Position::default()
        }
    }

    #[test]
    fn missing_position_names_the_field() {
        let error = position_from_wire(None, "position").unwrap_err();
        assert_eq!(error.field, "position");
        assert_eq!(error.kind, ErrorReason::MissingField);
    }

    #[test]
    fn bad_fen_names_the_fen_field() {
        let error =
            position_from_wire(Some(&fen("8/8/8/8/8/8/8/8 w - - 0 1")), "position").unwrap_err();
        assert_eq!(error.field, "position.fen");
        assert_eq!(error.kind, ErrorReason::InvalidPosition);
        assert!(error.reason.contains("king"), "{}", error.reason);
    }

    #[test]
    fn startpos_shorthand_and_board_round_trip() {
        let position = position_from_wire(Some(&fen("startpos")), "position").unwrap();
        let board = board_to_wire(&position);
        assert_eq!(board.pieces.len(), 32);
        let castling = board.castling.clone().unwrap();
        assert!(castling.white_king_side && castling.black_queen_side);
        let again = board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap();
        assert_eq!(again.to_fen(), position.to_fen());
    }

    #[test]
    fn board_errors_name_the_entry() {
        let mut board = board_to_wire(&Position::startpos());
        board.pieces.insert(
            "z9".to_owned(),
            v1::Piece {
                color: v1::Color::White.into(),
                role: v1::Role::Queen.into(),
            },
        );
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.pieces[\"z9\"]");

        let mut board = board_to_wire(&Position::startpos());
        board.side_to_move = 0;
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.side_to_move");

        let mut board = board_to_wire(&Position::startpos());
        board.pieces.remove("h1");
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.castling");
    }

    #[test]
    fn moves_carry_every_notation() {
        let start = Position::startpos();
        let moves = legal_moves_to_wire_in(&start, SanLanguage::English);
        assert_eq!(moves.len(), 20);
        assert!(moves.windows(2).all(|pair| pair[0].uci < pair[1].uci));
        let e4 = moves.iter().find(|mv| mv.uci == "e2e4").unwrap();
        assert_eq!(e4.san, "e4");
        assert_eq!((e4.from.as_str(), e4.to.as_str()), ("e2", "e4"));
        assert_eq!(e4.piece.unwrap().role, i32::from(v1::Role::Pawn));
    }

    #[test]
    fn illegal_ply_is_pinpointed() {
        let moves: Vec<String> = ["e4", "e5", "Nf3", "Nf3"]
            .iter()
            .map(|m| (*m).to_owned())
            .collect();
        let error = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[3]");
        assert!(
            error.reason.starts_with("ply 4 (Nf3): "),
            "{}",
            error.reason
        );
        let status = error.to_status();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("ply 4"));
        let details = status.get_error_details();
        let violation = &details.bad_request().unwrap().field_violations[0];
        assert_eq!(violation.field, "moves[3]");
        assert_eq!(violation.reason, "ILLEGAL_MOVE");
        let info = details.error_info().unwrap();
        assert_eq!(info.metadata.get("ply").map(String::as_str), Some("4"));
    }

    #[test]
    fn scholars_mate_is_checkmate() {
        let moves: Vec<String> = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7"]
            .iter()
            .map(|m| (*m).to_owned())
            .collect();
        let (position, played) = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            SanLanguage::English,
        )
        .unwrap();
        let last = played.last().unwrap();
        assert_eq!(last.san, "Qxf7#");
        assert!(last.is_checkmate && last.is_check);
        assert_eq!(last.captured, i32::from(v1::Role::Pawn));
        assert!(status_to_wire(&position).is_checkmate);
    }

    #[test]
    fn move_limit_is_enforced() {
        let moves = vec!["e4".to_owned(); 3];
        let error = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            2,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves");
        assert_eq!(error.kind, ErrorReason::LimitExceeded);
    }

    const BUDGET: AnalysisBudget = AnalysisBudget::Fast;

    fn claim() -> AdjudicationRequest {
        AdjudicationRequest {
            claim_draw: true,
            ..AdjudicationRequest::default()
        }
    }

    fn game(moves: &[&str]) -> v1::Game {
        v1::Game {
            start: None,
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    #[test]
    fn fools_mate_is_adjudicated() {
        let played = game_from_wire_in(
            &game(&["f3", "e7e5", "g4", "Qh4#"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap();
        let response = adjudicate(&played, &AdjudicationRequest::default());
        let outcome = response.outcome.unwrap();
        assert_eq!(outcome.result, i32::from(v1::Result::BlackWins));
        assert_eq!(outcome.termination, i32::from(v1::Termination::Checkmate));
        assert_eq!(outcome.fide_article, "5.1.1");
        assert_eq!(outcome.ply, 4);
        assert_eq!(outcome.result_text, "0-1");
        // FIDE 5.1.1: a move listed after the mate is counted as played after the end.
        let played = game_from_wire_in(
            &game(&["f3", "e7e5", "g4", "Qh4#", "a3"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap();
        let response = adjudicate(&played, &AdjudicationRequest::default());
        assert_eq!(response.outcome.unwrap().ply, 4);
        assert_eq!((response.ply_count, response.plies_after_end), (5, 1));
    }

    #[test]
    fn game_move_errors_name_the_ply() {
        let error = game_from_wire_in(
            &game(&["e4", "e5", "Ke3"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "game.moves[2]");
        assert!(
            error.reason.starts_with("ply 3 (Ke3): "),
            "{}",
            error.reason
        );
    }

    #[test]
    fn threefold_claim_is_offered_and_applied() {
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
        let played =
            game_from_wire_in(&game(&moves), "game", 100, BUDGET, SanLanguage::English).unwrap();
        let open = adjudicate(&played, &AdjudicationRequest::default());
        assert_eq!(open.outcome.unwrap().result, i32::from(v1::Result::Ongoing));
        assert!(open.claims.iter().any(|c| c.claimable_now
            && c.kind == i32::from(v1::ClaimKind::ThreefoldRepetition)
            && c.fide_article == "9.2"));
        let claimed = adjudicate(&played, &claim()).outcome.unwrap();
        assert_eq!(claimed.result, i32::from(v1::Result::Draw));
        assert_eq!(
            claimed.termination,
            i32::from(v1::Termination::ThreefoldRepetition)
        );
    }

    #[test]
    fn claim_by_move_names_the_move() {
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
        let played =
            game_from_wire_in(&game(&moves), "game", 100, BUDGET, SanLanguage::English).unwrap();
        let response = adjudicate(&played, &claim());
        assert_eq!(
            response.outcome.unwrap().result,
            i32::from(v1::Result::Ongoing)
        );
        let by_move = response
            .claims
            .iter()
            .find(|c| !c.claimable_now)
            .and_then(|c| c.r#move.as_ref())
            .unwrap();
        assert_eq!(by_move.san, "Ng8");
    }

    #[test]
    fn flag_fall_against_a_lone_king_is_a_draw() {
        let start = fen("8/8/4k3/8/8/4K3/8/q7 w - - 0 1");
        let game = v1::Game {
            start: Some(start),
            moves: Vec::new(),
        };
        let played = game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::English).unwrap();
        let event = event_from_wire(
            Some(&v1::GameEvent {
                kind: v1::GameEventKind::FlagFall.into(),
                side: v1::Color::Black.into(),
            }),
            "event",
        )
        .unwrap();
        let request = AdjudicationRequest {
            event,
            ..AdjudicationRequest::default()
        };
        let response = adjudicate(&played, &request);
        let outcome = response.outcome.unwrap();
        assert_eq!(
            outcome.result,
            i32::from(v1::Result::Draw),
            "{}",
            response.explanation
        );
        assert_eq!(outcome.termination, i32::from(v1::Termination::FlagFall));
        assert_eq!(outcome.fide_article, "6.9");
    }

    fn chess960(kind: v1::position::Kind) -> v1::Position {
        v1::Position {
            kind: Some(kind),
            variant: v1::Variant::Chess960.into(),
        }
    }

    fn texts(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| (*m).to_owned()).collect()
    }

    const SHREDDER: Notation = Notation {
        language: SanLanguage::English,
        shredder: true,
    };

    #[test]
    fn chess960_start_positions_by_number() {
        let number = |n: u32, variant: v1::Variant| v1::Position {
            kind: Some(v1::position::Kind::Chess960Number(n)),
            variant: variant.into(),
        };
        let zero =
            position_from_wire(Some(&number(0, v1::Variant::Unspecified)), "position").unwrap();
        assert_eq!(zero.castling_mode(), CastlingMode::Chess960);
        assert_eq!(
            zero.to_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(
            SHREDDER.fen(&zero),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"
        );
        let standard = position_from_wire(Some(&number(518, v1::Variant::Chess960)), "p").unwrap();
        assert_eq!(
            standard.to_fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(standard.chess960_number(), Some(518));

        let error = position_from_wire(Some(&number(960, v1::Variant::Unspecified)), "game.start")
            .unwrap_err();
        assert_eq!(error.field, "game.start.chess960_number");
        assert_eq!(error.kind, ErrorReason::InvalidValue);
        assert!(error.reason.contains("0 to 959"), "{}", error.reason);

        let error =
            position_from_wire(Some(&number(5, v1::Variant::Standard)), "position").unwrap_err();
        assert_eq!(error.field, "position.variant");
        let bad_variant = v1::Position {
            kind: Some(v1::position::Kind::Fen("startpos".to_owned())),
            variant: 9,
        };
        let error = position_from_wire(Some(&bad_variant), "position").unwrap_err();
        assert_eq!(error.field, "position.variant");
    }

    #[test]
    fn chess960_fen_reads_x_fen_and_shredder_fen() {
        let x_fen = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1";
        let shredder = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1";
        for text in [x_fen, shredder] {
            let wire = chess960(v1::position::Kind::Fen(text.to_owned()));
            let position = position_from_wire(Some(&wire), "position").unwrap();
            assert_eq!(Notation::default().fen(&position), x_fen);
            assert_eq!(SHREDDER.fen(&position), shredder);
        }
        // Standard chess cannot read it, and says which variant can.
        let error = position_from_wire(Some(&fen(shredder)), "position").unwrap_err();
        assert_eq!(error.field, "position.fen");
        assert!(
            error
                .reason
                .contains("set position.variant to VARIANT_CHESS960"),
            "{}",
            error.reason
        );
        // Shredder-FEN never changes standard chess.
        assert_eq!(
            SHREDDER.fen(&Position::startpos()),
            Position::startpos().to_fen()
        );
        // No position but a variant: the initial position under those rules.
        let empty = v1::Position {
            kind: None,
            variant: v1::Variant::Chess960.into(),
        };
        let start = optional_position_from_wire(Some(&empty), "position").unwrap();
        assert_eq!(start.castling_mode(), CastlingMode::Chess960);
        assert_eq!(SHREDDER.fen(&start).split(' ').nth(2), Some("HAha"));
    }

    #[test]
    fn chess960_board_carries_rook_files_both_ways() {
        let position = Position::chess960(0).unwrap();
        let board = board_to_wire(&position);
        let castling = board.castling.clone().unwrap();
        assert!(castling.white_king_side && castling.black_queen_side);
        assert_eq!(castling.white_king_side_rook_file, "h");
        assert_eq!(castling.white_queen_side_rook_file, "f");
        assert_eq!(castling.black_king_side_rook_file, "h");
        assert_eq!(castling.black_queen_side_rook_file, "f");
        let again = board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap();
        assert_eq!(again.to_fen(), position.to_fen());

        // A file alone grants the right; a right alone means the outermost rook.
        let mut board = board.clone();
        board.castling = Some(v1::CastlingRights {
            white_king_side_rook_file: "h".to_owned(),
            black_queen_side: true,
            ..v1::CastlingRights::default()
        });
        let read = board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap();
        assert_eq!(SHREDDER.fen(&read).split(' ').nth(2), Some("Hf"));

        // A file on the wrong side of the king, and a bad file, name their field.
        board.castling = Some(v1::CastlingRights {
            white_queen_side_rook_file: "h".to_owned(),
            ..v1::CastlingRights::default()
        });
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap_err();
        assert_eq!(
            error.field,
            "position.board.castling.white_queen_side_rook_file"
        );
        board.castling = Some(v1::CastlingRights {
            black_king_side_rook_file: "z".to_owned(),
            ..v1::CastlingRights::default()
        });
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap_err();
        assert_eq!(
            error.field,
            "position.board.castling.black_king_side_rook_file"
        );
        assert_eq!(error.kind, ErrorReason::InvalidValue);

        // Standard chess writes no files.
        let standard = board_to_wire(&Position::startpos()).castling.unwrap();
        assert!(standard.white_king_side_rook_file.is_empty());
    }

    #[test]
    fn chess960_castling_is_king_takes_rook_in_uci_and_o_o_in_san() {
        let wire = chess960(v1::position::Kind::Fen(
            "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1".to_owned(),
        ));
        let position = position_from_wire(Some(&wire), "position").unwrap();
        let moves = legal_moves_to_wire_in(&position, SanLanguage::English);
        let castles: Vec<(&str, &str, &str)> = moves
            .iter()
            .filter(|mv| mv.is_castle)
            .map(|mv| (mv.uci.as_str(), mv.san.as_str(), mv.to.as_str()))
            .collect();
        assert_eq!(castles, [("f1b1", "O-O-O", "c1"), ("f1g1", "O-O", "g1")]);

        let (after, played) = play_moves_in(
            position,
            &texts(&["O-O", "f8b8"]),
            "moves",
            100,
            SanLanguage::English,
        )
        .unwrap();
        assert_eq!(played[0].uci, "f1g1");
        assert_eq!(played[1].san, "O-O-O");
        assert_eq!(
            Notation::default().fen(&after),
            "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2"
        );
        // The standard spelling of a king's two-square step is no castling in Chess960.
        let error = play_moves_in(
            position_from_wire(Some(&wire), "position").unwrap(),
            &texts(&["f1d1"]),
            "moves",
            100,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[0]");
    }

    #[test]
    fn san_is_read_and_written_in_the_request_language() {
        let moves = texts(&["e4", "e5", "Cf3", "Cc6", "Ab5", "a6", "Axc6", "dxc6", "O-O"]);
        let (_, played) = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            SanLanguage::Spanish,
        )
        .unwrap();
        let sans: Vec<&str> = played.iter().map(|mv| mv.san.as_str()).collect();
        assert_eq!(sans, moves);
        assert_eq!(played[2].uci, "g1f3");

        // UCI is read in every language; English letters are not Spanish.
        let (_, played) = play_moves_in(
            Position::startpos(),
            &texts(&["g1f3", "Cc6"]),
            "moves",
            100,
            SanLanguage::Spanish,
        )
        .unwrap();
        assert_eq!(played[0].san, "Cf3");
        let error = play_moves_in(
            Position::startpos(),
            &texts(&["e4", "e5", "Nf3"]),
            "moves",
            100,
            SanLanguage::Spanish,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[2]");
        assert!(error.reason.contains("Spanish"), "{}", error.reason);

        // German output; figurine output, read from English letters and from figurines.
        let (_, german) = play_moves_in(
            Position::startpos(),
            &texts(&["Sf3", "Sf6", "g3", "g6", "Lg2", "Lg7", "O-O", "d6"]),
            "moves",
            100,
            SanLanguage::German,
        )
        .unwrap();
        assert_eq!(german[4].san, "Lg2");
        let (_, figurine) = play_moves_in(
            Position::startpos(),
            &texts(&["Nf3", "♞f6", "e4", "Nxe4"]),
            "moves",
            100,
            SanLanguage::Figurine,
        )
        .unwrap();
        let sans: Vec<&str> = figurine.iter().map(|mv| mv.san.as_str()).collect();
        assert_eq!(sans, ["♘f3", "♞f6", "e4", "♞xe4"]);
    }

    #[test]
    fn games_and_adjudication_use_the_notation() {
        let game = v1::Game {
            start: Some(v1::Position {
                kind: Some(v1::position::Kind::Chess960Number(0)),
                variant: 0,
            }),
            moves: texts(&["g4", "g5", "Cd3", "Cd6", "Rg2"]),
        };
        let error =
            game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::English).unwrap_err();
        assert_eq!(error.field, "game.moves[2]");
        let played = game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::French).unwrap();
        assert_eq!(played.ply(), 5);
        let notation = Notation {
            language: SanLanguage::French,
            shredder: true,
        };
        let response = adjudicate_with(&played, &AdjudicationRequest::default(), notation);
        assert_eq!(
            response.fen,
            "bbqn1rkr/pppppp1p/3n4/6p1/6P1/3N4/PPPPPPKP/BBQN1R1R b hf - 3 3"
        );
    }

    #[test]
    fn notation_options_name_their_field() {
        let error = Notation::from_wire(42, 0, "").unwrap_err();
        assert_eq!(error.field, "san_language");
        let error = Notation::from_wire(0, 42, "").unwrap_err();
        assert_eq!(error.field, "castling_notation");
        let notation = Notation::from_wire(
            v1::SanLanguage::Figurine.into(),
            v1::CastlingNotation::ShredderFen.into(),
            "",
        )
        .unwrap();
        assert_eq!(notation.language, SanLanguage::Figurine);
        assert!(notation.shredder);
        for language in SanLanguage::ALL {
            let wire = san_language_to_wire(language);
            assert_eq!(
                san_language_from_wire(wire.into(), "san_language"),
                Ok(language)
            );
        }
    }

    #[test]
    fn event_side_is_required() {
        let event = v1::GameEvent {
            kind: v1::GameEventKind::Resignation.into(),
            side: 0,
        };
        let error = event_from_wire(Some(&event), "event").unwrap_err();
        assert_eq!(error.field, "event.side");
    }
}
