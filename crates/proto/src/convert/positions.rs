//! Positions: FEN, the structured board and Chess960 numbers in, boards and statuses out.

use super::*;
// ---------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------

/// A position request whose shape is sound (a kind is given, the variant is known, a Chess960
/// number is in range), before its content is read: what `ValidatePosition` answers about
/// rather than refusing.
#[derive(Clone, Copy, Debug)]
pub enum PositionSource<'a> {
    /// FEN text (or `"startpos"`), read in `mode`.
    Fen(&'a str, CastlingMode),
    /// A structured board, read in `mode`.
    Board(&'a v1::Board, CastlingMode),
    /// A Chess960 start position, 0 to 959.
    Chess960(u32),
}

/// Checks the shape of a required position at `field` (e.g. `"position"`).
///
/// # Errors
///
/// A [`ConvertError`] when the position is absent, its variant unknown, its variant standard
/// beside a Chess960 number, or the number out of range.
pub fn position_source_from_wire<'a>(
    position: Option<&'a v1::Position>,
    field: &str,
) -> Result<PositionSource<'a>, ConvertError> {
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
        v1::position::Kind::Fen(fen) => Ok(PositionSource::Fen(fen, mode)),
        v1::position::Kind::Board(board) => Ok(PositionSource::Board(board, mode)),
        v1::position::Kind::Chess960Number(number) => {
            if variant == i32::from(v1::Variant::Standard) {
                return Err(ConvertError::new(
                    variant_field,
                    ErrorReason::InvalidValue,
                    "VARIANT_STANDARD contradicts chess960_number: leave the variant unset or set \
                     VARIANT_CHESS960",
                ));
            }
            if *number >= arbiter_rules::CHESS960_POSITIONS {
                return Err(chess960_number_out_of_range(field, *number));
            }
            Ok(PositionSource::Chess960(*number))
        }
    }
}

impl PositionSource<'_> {
    /// Reads the position; `field` is the position's path (`"position"`).
    ///
    /// # Errors
    ///
    /// A [`ConvertError`] naming the part at fault (`position.fen`,
    /// `position.board.castling`, ...), reason `INVALID_POSITION` for a position the rules
    /// refuse, with the ErrorInfo metadata `cause` (e.g. `KING_COUNT`) and, where the Laws
    /// have one, `article` (e.g. `2.2`).
    pub fn read(self, field: &str) -> Result<Position, ConvertError> {
        match self {
            PositionSource::Fen(fen, mode) => {
                let fen_field = join(field, "fen");
                if fen.trim().is_empty() {
                    return Err(ConvertError::missing(
                        fen_field,
                        "a FEN string (or \"startpos\")",
                    ));
                }
                let options = FenOptions {
                    mode,
                    validation: Validation::STRICT,
                };
                Position::from_fen_with(fen, options).map_err(|error| {
                    let mut reason = error.to_string();
                    // The wire has a variant field: a FEN valid only in Chess960 is not read so
                    // silently, the error says how to ask for it.
                    if mode == CastlingMode::Standard
                        && Position::from_fen_detecting_mode(fen, Validation::STRICT).is_ok_and(
                            |position| position.castling_mode() == CastlingMode::Chess960,
                        )
                    {
                        let _ = write!(
                            reason,
                            " (the position is valid in Chess960: set {} to VARIANT_CHESS960)",
                            join(field, "variant")
                        );
                    }
                    let converted =
                        ConvertError::new(fen_field, ErrorReason::InvalidPosition, reason);
                    match &error {
                        FenError::Position(error) => with_position_cause(converted, error),
                        FenError::Syntax(_) => converted,
                    }
                })
            }
            PositionSource::Board(board, mode) => {
                board_from_wire_in(board, &join(field, "board"), mode)
            }
            PositionSource::Chess960(number) => Position::chess960(number)
                .ok_or_else(|| chess960_number_out_of_range(field, number)),
        }
    }
}

/// A Chess960 number at or above [`arbiter_rules::CHESS960_POSITIONS`].
fn chess960_number_out_of_range(field: &str, number: u32) -> ConvertError {
    ConvertError::new(
        join(field, "chess960_number"),
        ErrorReason::InvalidValue,
        format!("{number} is out of range: Chess960 start positions are numbered 0 to 959"),
    )
}

/// The ErrorInfo metadata of a position the rules refuse: its `cause` and `article`.
fn with_position_cause(converted: ConvertError, error: &PositionError) -> ConvertError {
    converted.with_cause(error.cause(), error.article())
}

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
    position_source_from_wire(position, field)?.read(field)
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
            Ok(Position::start(mode))
        }
        Some(_) => position_from_wire(position, field),
    }
}

/// Reads a structured board at `field` (e.g. `"position.board"`) under the castling rules of
/// `mode`: the board becomes a [`Setup`] directly and is checked by [`Position::from_setup`]
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
    let mut setup = Setup::empty();
    for (name, piece) in &board.pieces {
        // Field names are written only for an error (see `game_from_wire_in`).
        let entry_field = || format!("{pieces_field}[{name:?}]");
        let square = Square::from_name(name).ok_or_else(|| {
            ConvertError::new(
                entry_field(),
                ErrorReason::InvalidValue,
                format!(
                    "{:?} is not a square name (\"a1\" to \"h8\")",
                    clip(name, 8)
                ),
            )
        })?;
        let color = color_from_wire(piece.color, "")
            .map_err(|error| error.at(format!("{}.color", entry_field())))?;
        let role = role_from_wire(piece.role, "")
            .map_err(|error| error.at(format!("{}.role", entry_field())))?;
        setup.board[square.index()] = Some(Piece { color, role });
    }
    setup.turn = color_from_wire(board.side_to_move, &join(field, "side_to_move"))?;

    let castling = board.castling.clone().unwrap_or_default();
    let castling_field = join(field, "castling");
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
        let right = if file.trim().is_empty() {
            if !allowed {
                continue;
            }
            if king_side {
                CastlingRight::KingSide(color)
            } else {
                CastlingRight::QueenSide(color)
            }
        } else {
            let file = rook_file(&setup, file, color, king_side, &join(&castling_field, name))?;
            CastlingRight::RookFile(color, file)
        };
        setup.castling.push(right);
    }

    let ep = board.en_passant_square.trim();
    if !ep.is_empty() {
        setup.ep_square = Some(Square::from_name(ep).ok_or_else(|| {
            ConvertError::new(
                join(field, "en_passant_square"),
                ErrorReason::InvalidValue,
                format!("{:?} is not a square name (\"a1\" to \"h8\")", clip(ep, 8)),
            )
        })?);
    }
    setup.halfmove_clock = board.halfmove_clock;
    setup.fullmove_number = board.fullmove_number.max(1);

    Position::from_setup(&setup, mode, Validation::STRICT).map_err(|error| {
        let part = match error.field() {
            SetupField::Castling => "castling",
            SetupField::EnPassant => "en_passant_square",
            SetupField::HalfmoveClock => "halfmove_clock",
            SetupField::FullmoveNumber => "fullmove_number",
            SetupField::SideToMove => "side_to_move",
            SetupField::Board => "pieces",
        };
        with_position_cause(
            ConvertError::new(
                join(field, part),
                ErrorReason::InvalidPosition,
                error.to_string(),
            ),
            &error,
        )
    })
}

/// Reads a castling rook file (`"a"` to `"h"`) at `field`, checking that it lies on the side of
/// the king the right is for; [`Position::from_setup`] checks the rook itself.
fn rook_file(
    setup: &Setup,
    file: &str,
    color: Color,
    king_side: bool,
    field: &str,
) -> Result<File, ConvertError> {
    let text = file.trim();
    let Some(file) = (text.len() == 1)
        .then(|| text.chars().next().and_then(File::from_char))
        .flatten()
    else {
        return Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!("{:?} is not a file (\"a\" to \"h\")", clip(text, 8)),
        ));
    };
    let king = Piece {
        color,
        role: Role::King,
    };
    let king_file = File::ALL
        .into_iter()
        .find(|&f| setup.piece_at(Square::from_coords(f, color.back_rank())) == Some(king));
    if let Some(king_file) = king_file
        && (file > king_file) != king_side
    {
        return Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!(
                "the {}-file is on the {} side of the {} king",
                file.char(),
                if king_side { "queen" } else { "king" },
                color.name()
            ),
        ));
    }
    Ok(file)
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
