//! Positions: FEN, the structured board and Chess960 numbers in, boards and statuses out.

use super::*;
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
