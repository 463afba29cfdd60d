//! Enums and small types: colors, roles, pieces, variants, SAN languages, results, terminations and claim kinds, both ways.

use super::*;
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
