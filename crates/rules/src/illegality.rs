//! Why a move is illegal, as a value: each cause a variant carrying its squares and pieces, with
//! a stable machine-readable [`Illegality::cause`] and the FIDE article it breaks
//! ([`Illegality::article`]); `Display` writes the sentence a person reads.

use std::fmt;

use crate::types::{Color, File, Piece, Rank, Role, Square};

/// Why moving a piece from one square to another is not legal in a position (see
/// [`crate::Position::explain_illegal`]). Clients that show the reason in their own language use
/// [`Illegality::cause`] and the fields; `Display` gives the English sentence, e.g. "the knight
/// on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)".
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Illegality {
    /// No piece stands on the square of origin.
    NoPiece {
        /// The square of origin.
        from: Square,
    },
    /// The piece on the square of origin belongs to the side not to move (FIDE Laws 1.2).
    NotYourPiece {
        /// The square of origin.
        from: Square,
        /// The piece there.
        piece: Piece,
        /// The side to move.
        to_move: Color,
    },
    /// The move would leave the piece on its square.
    NoMove {
        /// The square.
        from: Square,
        /// The piece's role.
        role: Role,
    },
    /// The destination holds a piece of the side to move (FIDE Laws 3.1.1).
    OwnPieceOnTarget {
        /// The destination.
        to: Square,
        /// The side to move.
        color: Color,
        /// The role of its piece there.
        role: Role,
    },
    /// The piece does not move that way (FIDE Laws 3.2-3.8).
    PiecePattern {
        /// The piece's role.
        role: Role,
        /// The square of origin.
        from: Square,
        /// The destination.
        to: Square,
    },
    /// A piece stands between origin and destination (FIDE Laws 3.5).
    PathBlocked {
        /// The square of origin.
        from: Square,
        /// The destination.
        to: Square,
        /// The first square in between that is occupied.
        block: Square,
        /// The piece there.
        piece: Option<Piece>,
    },
    /// A pawn moving diagonally onto an empty square that is no en passant target
    /// (FIDE Laws 3.7.3).
    PawnCapturesDiagonally {
        /// The destination.
        to: Square,
    },
    /// A pawn moving straight onto an occupied square (FIDE Laws 3.7.1).
    PawnBlocked {
        /// The destination.
        to: Square,
    },
    /// A pawn's two-square advance from a square that is not its original one (FIDE Laws 3.7.2).
    PawnDoubleStep {
        /// The square of origin.
        from: Square,
    },
    /// A pawn's two-square advance over an occupied square (FIDE Laws 3.7.2).
    PawnJumps {
        /// The square of origin.
        from: Square,
        /// The occupied square in between.
        over: Square,
    },
    /// A pawn move no pawn can make (FIDE Laws 3.7).
    PawnPattern {
        /// The square of origin.
        from: Square,
        /// The destination.
        to: Square,
    },
    /// An en passant capture not on the move right after the double step (FIDE Laws 3.7.3.2);
    /// one right after it that exposes the king is [`Illegality::EnPassantExposesKing`].
    EnPassantExpired {
        /// The (empty) destination.
        to: Square,
    },
    /// A pawn reaching the last rank without a promotion (FIDE Laws 3.7.5.1); `hint` when the
    /// SAN reader adds how to write one.
    PromotionRequired {
        /// Whether the sentence ends with ": add =Q, =R, =B or =N".
        hint: bool,
    },
    /// A promotion on a rank that is not the last (FIDE Laws 3.7.5.1).
    PromotionNotOnLastRank {
        /// The destination.
        to: Square,
    },
    /// A promotion to a king or a pawn (FIDE Laws 3.7.5.1).
    PromotionPiece,
    /// A promotion of a piece that is not a pawn (FIDE Laws 3.7.5.1).
    PromotionNotAPawn {
        /// The square of origin.
        from: Square,
        /// The piece's role.
        role: Role,
    },
    /// No castling right on that side: the king or that rook has moved (FIDE Laws 3.8.2.1).
    NoCastlingRight {
        /// The side to move.
        color: Color,
        /// The h-side (`O-O`) or the a-side (`O-O-O`).
        kingside: bool,
    },
    /// No rook to castle with on that side: castling is a move of the king and a rook (FIDE
    /// Laws 3.8.2), and in standard chess none stands on h1 (a1, h8, a8), in Chess960 none on
    /// the back rank on that side of the king.
    NoCastlingRook {
        /// The side to move.
        color: Color,
        /// The h-side (`O-O`) or the a-side (`O-O-O`).
        kingside: bool,
        /// The square the rook castles from in standard chess; `None` in Chess960.
        square: Option<Square>,
    },
    /// Castling while in check (FIDE Laws 3.8.2.2).
    CastlingInCheck {
        /// A checking piece's square.
        checker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// A piece between king and rook (FIDE Laws 3.8.2.2).
    CastlingPathBlocked {
        /// The occupied square.
        square: Square,
        /// The piece there.
        piece: Option<Piece>,
    },
    /// The king would cross an attacked square (FIDE Laws 3.8.2.2).
    CastlingThroughAttack {
        /// The attacked square.
        square: Square,
        /// An attacker's square.
        attacker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// The king would land on an attacked square (FIDE Laws 3.8.2.2).
    CastlingIntoCheck {
        /// The king's destination.
        square: Square,
        /// An attacker's square.
        attacker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// Castling is not possible here, for no reason found above (FIDE Laws 3.8.2).
    CastlingImpossible,
    /// The side to move has no king.
    NoKing {
        /// The side to move.
        color: Color,
    },
    /// The move would leave the own king in check (FIDE Laws 3.9.2).
    LeavesKingInCheck,
    /// The king would move onto an attacked square (FIDE Laws 3.9.2).
    KingIntoCheck {
        /// The king's destination.
        to: Square,
        /// An attacker's square.
        attacker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// The side to move is in check and the move does not parry it (FIDE Laws 3.9.2).
    CheckNotParried {
        /// The side to move.
        color: Color,
        /// A checking piece's square.
        checker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// The en passant capture would expose the own king (FIDE Laws 3.9.2).
    EnPassantExposesKing {
        /// The own king's square.
        king: Square,
        /// The attacker's square.
        attacker: Square,
        /// Its role.
        role: Option<Role>,
    },
    /// The piece is pinned against its king (FIDE Laws 3.9.2).
    Pinned {
        /// The pinned piece's role.
        role: Role,
        /// Its square.
        from: Square,
        /// The own king's square.
        king: Square,
        /// The pinning piece's square.
        attacker: Square,
        /// Its role.
        attacker_role: Option<Role>,
    },
    /// The move is legal (what [`crate::Position::explain_illegal`] says of a legal move).
    Legal,
    /// The side to move has no piece of the role a SAN move names, on the file or rank of
    /// origin it names (a pawn move names its file: `bc4` the b-file, `e5` the e-file).
    NoPieceFits {
        /// The side to move.
        color: Color,
        /// The role named.
        role: Role,
        /// The file of origin the move names, if it names one.
        file: Option<File>,
        /// The rank of origin the move names, if it names one.
        rank: Option<Rank>,
    },
    /// No piece of the role a SAN move names, on the file or rank of origin it names, can
    /// reach its destination (others may: `bc4` is refused for the b-pawn when only the c-pawn
    /// can go to c4, and says so).
    NoPieceReaches {
        /// The side to move.
        color: Color,
        /// The role named.
        role: Role,
        /// The file of origin the move names, if it names one.
        file: Option<File>,
        /// The rank of origin the move names, if it names one.
        rank: Option<Rank>,
        /// The destination.
        to: Square,
    },
    /// A move written with a piece letter and a full square of origin (`Nd8-h4`) where that
    /// square holds another piece of the side to move.
    WrongPiece {
        /// The role the move names.
        named: Role,
        /// The square of origin it names.
        from: Square,
        /// The role of the piece that stands there.
        actual: Role,
    },
    /// A Chess960 castling written as the king's two-square step in UCI, where Chess960 UCI
    /// writes the king taking its own rook (Guidelines on Chess960).
    Chess960CastlingNotation {
        /// The castling as it must be written.
        uci: String,
    },
    /// Each of several pieces that could be meant fails for its own reason.
    Several(Vec<Illegality>),
}

/// Where a SAN move says its piece stands: " on the b-file", " on rank 1", or nothing.
fn origin(file: Option<File>, rank: Option<Rank>) -> String {
    match (file, rank) {
        (Some(file), Some(rank)) => format!(" on {}{}", file.char(), rank.char()),
        (Some(file), None) => format!(" on the {}-file", file.char()),
        (None, Some(rank)) => format!(" on rank {}", rank.char()),
        (None, None) => String::new(),
    }
}

/// "the queen" for a known role, "the piece" otherwise.
fn name(role: Option<Role>) -> &'static str {
    role.map_or("piece", Role::name)
}

/// "White knight" for a known piece, "piece" otherwise.
fn piece_name(piece: Option<Piece>) -> String {
    piece.map_or_else(|| "piece".to_owned(), |piece| piece.to_string())
}

impl Illegality {
    /// A stable machine-readable name of the cause, e.g. `PINNED`, `NO_CASTLING_RIGHT`: what
    /// clients key their own messages on (the gRPC `ErrorInfo` metadata `cause`).
    #[must_use]
    pub fn cause(&self) -> &'static str {
        match self {
            Illegality::NoPiece { .. } => "NO_PIECE",
            Illegality::NotYourPiece { .. } => "NOT_YOUR_PIECE",
            Illegality::NoMove { .. } => "NO_MOVE",
            Illegality::OwnPieceOnTarget { .. } => "OWN_PIECE_ON_TARGET",
            Illegality::PiecePattern { .. } => "PIECE_PATTERN",
            Illegality::PathBlocked { .. } => "PATH_BLOCKED",
            Illegality::PawnCapturesDiagonally { .. } => "PAWN_CAPTURES_DIAGONALLY",
            Illegality::PawnBlocked { .. } => "PAWN_BLOCKED",
            Illegality::PawnDoubleStep { .. } => "PAWN_DOUBLE_STEP",
            Illegality::PawnJumps { .. } => "PAWN_JUMPS",
            Illegality::PawnPattern { .. } => "PAWN_PATTERN",
            Illegality::EnPassantExpired { .. } => "EN_PASSANT_EXPIRED",
            Illegality::PromotionRequired { .. } => "PROMOTION_REQUIRED",
            Illegality::PromotionNotOnLastRank { .. } => "PROMOTION_NOT_ON_LAST_RANK",
            Illegality::PromotionPiece => "PROMOTION_PIECE",
            Illegality::PromotionNotAPawn { .. } => "PROMOTION_NOT_A_PAWN",
            Illegality::NoCastlingRight { .. } => "NO_CASTLING_RIGHT",
            Illegality::NoCastlingRook { .. } => "NO_CASTLING_ROOK",
            Illegality::CastlingInCheck { .. } => "CASTLING_IN_CHECK",
            Illegality::CastlingPathBlocked { .. } => "CASTLING_PATH_BLOCKED",
            Illegality::CastlingThroughAttack { .. } => "CASTLING_THROUGH_ATTACK",
            Illegality::CastlingIntoCheck { .. } => "CASTLING_INTO_CHECK",
            Illegality::CastlingImpossible => "CASTLING_IMPOSSIBLE",
            Illegality::NoKing { .. } => "NO_KING",
            Illegality::LeavesKingInCheck => "LEAVES_KING_IN_CHECK",
            Illegality::KingIntoCheck { .. } => "KING_INTO_CHECK",
            Illegality::CheckNotParried { .. } => "CHECK_NOT_PARRIED",
            Illegality::EnPassantExposesKing { .. } => "EN_PASSANT_EXPOSES_KING",
            Illegality::Pinned { .. } => "PINNED",
            Illegality::Legal => "LEGAL",
            Illegality::NoPieceFits { .. } => "NO_PIECE_FITS",
            Illegality::NoPieceReaches { .. } => "NO_PIECE_REACHES",
            Illegality::WrongPiece { .. } => "WRONG_PIECE",
            Illegality::Chess960CastlingNotation { .. } => "CHESS960_CASTLING_NOTATION",
            Illegality::Several(_) => "SEVERAL",
        }
    }

    /// The article of the FIDE Laws of Chess (2023) the move breaks, e.g. `3.9.2` for a pinned
    /// piece; `None` where no single article applies (no piece there, a notation matter,
    /// several reasons that differ).
    #[must_use]
    pub fn article(&self) -> Option<&'static str> {
        Some(match self {
            Illegality::NotYourPiece { .. } => "1.2",
            Illegality::OwnPieceOnTarget { .. } => "3.1.1",
            Illegality::PiecePattern { role, .. } => match role {
                Role::Bishop => "3.2",
                Role::Rook => "3.3",
                Role::Queen => "3.4",
                Role::Knight => "3.6",
                Role::Pawn => "3.7",
                Role::King => "3.8.1",
            },
            Illegality::PathBlocked { .. } => "3.5",
            Illegality::PawnCapturesDiagonally { .. } => "3.7.3",
            Illegality::PawnBlocked { .. } => "3.7.1",
            Illegality::PawnDoubleStep { .. } | Illegality::PawnJumps { .. } => "3.7.2",
            Illegality::PawnPattern { .. } => "3.7",
            Illegality::EnPassantExpired { .. } => "3.7.3.2",
            Illegality::PromotionRequired { .. }
            | Illegality::PromotionNotOnLastRank { .. }
            | Illegality::PromotionPiece
            | Illegality::PromotionNotAPawn { .. } => "3.7.5.1",
            Illegality::NoCastlingRight { .. } => "3.8.2.1",
            Illegality::CastlingInCheck { .. }
            | Illegality::CastlingPathBlocked { .. }
            | Illegality::CastlingThroughAttack { .. }
            | Illegality::CastlingIntoCheck { .. } => "3.8.2.2",
            Illegality::CastlingImpossible | Illegality::NoCastlingRook { .. } => "3.8.2",
            Illegality::LeavesKingInCheck
            | Illegality::KingIntoCheck { .. }
            | Illegality::CheckNotParried { .. }
            | Illegality::EnPassantExposesKing { .. }
            | Illegality::Pinned { .. } => "3.9.2",
            Illegality::Several(reasons) => {
                let first = reasons.first()?.article()?;
                return reasons
                    .iter()
                    .all(|reason| reason.article() == Some(first))
                    .then_some(first);
            }
            Illegality::NoPiece { .. }
            | Illegality::NoMove { .. }
            | Illegality::NoKing { .. }
            | Illegality::Legal
            | Illegality::NoPieceFits { .. }
            | Illegality::NoPieceReaches { .. }
            | Illegality::WrongPiece { .. }
            | Illegality::Chess960CastlingNotation { .. } => return None,
        })
    }
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegality::NoPiece { from } => write!(f, "no piece on {from}"),
            Illegality::NotYourPiece {
                from,
                piece,
                to_move,
            } => write!(
                f,
                "the piece on {from} is a {piece}, but it is {to_move}'s move"
            ),
            Illegality::NoMove { from, role } => {
                write!(f, "the {role} on {from} cannot stay on its square")
            }
            Illegality::OwnPieceOnTarget { to, color, role } => {
                write!(f, "{to} is occupied by {color}'s own {role}")
            }
            Illegality::PiecePattern { role, from, to } => {
                write!(f, "a {role} cannot move from {from} to {to}")
            }
            Illegality::PathBlocked {
                from,
                to,
                block,
                piece,
            } => write!(
                f,
                "the path from {from} to {to} is blocked by the {} on {block}",
                piece_name(*piece)
            ),
            Illegality::PawnCapturesDiagonally { to } => {
                write!(f, "a pawn captures diagonally only, and {to} is empty")
            }
            Illegality::PawnBlocked { to } => {
                write!(f, "a pawn cannot capture straight ahead: {to} is occupied")
            }
            Illegality::PawnDoubleStep { from } => write!(
                f,
                "a pawn may advance two squares only from its original square (FIDE Laws 3.7.2); {from} is not"
            ),
            Illegality::PawnJumps { from, over } => {
                write!(f, "the pawn on {from} cannot jump over the piece on {over}")
            }
            Illegality::PawnPattern { from, to } => {
                write!(f, "a pawn cannot move from {from} to {to}")
            }
            Illegality::EnPassantExpired { to } => write!(
                f,
                "en passant is only possible on the move right after the double step (FIDE Laws 3.7.3.2); {to} is empty"
            ),
            Illegality::PromotionRequired { hint } => {
                f.write_str("a pawn that reaches the last rank must be promoted to a queen, rook, bishop or knight (FIDE Laws 3.7.5.1)")?;
                if *hint {
                    f.write_str(": add =Q, =R, =B or =N")?;
                }
                Ok(())
            }
            Illegality::PromotionNotOnLastRank { to } => {
                write!(f, "a pawn promotes only on the last rank; {to} is not")
            }
            Illegality::PromotionPiece => f.write_str(
                "a pawn promotes to a queen, rook, bishop or knight only (FIDE Laws 3.7.5.1)",
            ),
            Illegality::PromotionNotAPawn { from, role } => write!(
                f,
                "only a pawn can be promoted; the piece on {from} is a {role}"
            ),
            Illegality::NoCastlingRight { color, kingside } => {
                let side = if *kingside {
                    "h-side (O-O)"
                } else {
                    "a-side (O-O-O)"
                };
                write!(
                    f,
                    "{color} has no castling right on the {side}: the king or that rook has moved (FIDE Laws 3.8.2.1)"
                )
            }
            Illegality::NoCastlingRook {
                color,
                kingside,
                square,
            } => {
                let side = if *kingside {
                    "h-side (O-O)"
                } else {
                    "a-side (O-O-O)"
                };
                match square {
                    Some(square) => write!(
                        f,
                        "{color} has no rook on {square} to castle with on the {side}: castling is a move of the king and a rook (FIDE Laws 3.8.2)"
                    ),
                    None => write!(
                        f,
                        "{color} has no rook on its first rank on the {side} of the king to castle with: castling is a move of the king and a rook (FIDE Laws 3.8.2)"
                    ),
                }
            }
            Illegality::CastlingInCheck { checker, role } => write!(
                f,
                "castling is not allowed while in check (FIDE Laws 3.8.2.2): the {} on {checker} gives check",
                name(*role)
            ),
            Illegality::CastlingPathBlocked { square, piece } => write!(
                f,
                "castling needs the squares between king and rook empty, but {square} holds a {} (FIDE Laws 3.8.2.2)",
                piece_name(*piece)
            ),
            Illegality::CastlingThroughAttack {
                square,
                attacker,
                role,
            } => write!(
                f,
                "castling through the attacked square {square}, attacked by the {} on {attacker} (FIDE Laws 3.8.2.2)",
                name(*role)
            ),
            Illegality::CastlingIntoCheck {
                square,
                attacker,
                role,
            } => write!(
                f,
                "castling into check: the king would land on {square}, attacked by the {} on {attacker}",
                name(*role)
            ),
            Illegality::CastlingImpossible => f.write_str("castling is not possible here"),
            Illegality::NoKing { color } => write!(f, "{color} has no king"),
            Illegality::LeavesKingInCheck => f.write_str("the move would leave the king in check"),
            Illegality::KingIntoCheck { to, attacker, role } => write!(
                f,
                "the king would be in check on {to} from the {} on {attacker} (FIDE Laws 3.9.2)",
                name(*role)
            ),
            Illegality::CheckNotParried {
                color,
                checker,
                role,
            } => write!(
                f,
                "{color} is in check from the {} on {checker}, and this move does not parry it (FIDE Laws 3.9.2)",
                name(*role)
            ),
            Illegality::EnPassantExposesKing {
                king,
                attacker,
                role,
            } => write!(
                f,
                "the en passant capture would expose the king on {king} to the {} on {attacker} (FIDE Laws 3.9.2)",
                name(*role)
            ),
            Illegality::Pinned {
                role,
                from,
                king,
                attacker,
                attacker_role,
            } => write!(
                f,
                "the {role} on {from} is pinned against the king on {king} by the {} on {attacker} (FIDE Laws 3.9.2)",
                name(*attacker_role)
            ),
            Illegality::Legal => f.write_str("the move is legal"),
            Illegality::NoPieceFits {
                color,
                role,
                file,
                rank,
            } => {
                write!(
                    f,
                    "{color} has no {}{} that fits",
                    role.name(),
                    origin(*file, *rank)
                )
            }
            Illegality::NoPieceReaches {
                color,
                role,
                file,
                rank,
                to,
            } => {
                write!(
                    f,
                    "no {} {}{} can move to {to}",
                    color.name(),
                    role.name(),
                    origin(*file, *rank)
                )
            }
            Illegality::WrongPiece {
                named,
                from,
                actual,
            } => write!(
                f,
                "the move names a {} on {from}, but the piece there is a {}",
                named.name(),
                actual.name()
            ),
            Illegality::Chess960CastlingNotation { uci } => write!(
                f,
                "in Chess960 UCI writes castling as the king taking its own rook: {uci}"
            ),
            Illegality::Several(reasons) => {
                for (i, reason) in reasons.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{reason}")?;
                }
                Ok(())
            }
        }
    }
}
