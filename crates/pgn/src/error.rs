//! Errors of reading and replaying PGN, each with the line and column where it happened.

use arbiter_rules::{FenError, MoveError};
use thiserror::Error;

/// An error in one game of a PGN input, with its position in the input.
///
/// `Display` gives `line L:C: message`, e.g.
/// `line 12:5: ply 23 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)`.
/// Lines and columns are 1-based; columns count characters (not bytes) of the decoded line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}:{column}: {kind}")]
pub struct PgnError {
    /// The 1-based line of the input where the problem is (for a tag, the tag's line).
    pub line: u32,
    /// The 1-based column, in characters, on that line.
    pub column: u32,
    /// The 0-based number of the game in the input that the error belongs to.
    pub game: usize,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl PgnError {
    pub(crate) fn new(line: u32, column: u32, game: usize, kind: ErrorKind) -> PgnError {
        PgnError {
            line,
            column,
            game,
            kind,
        }
    }
}

/// What went wrong in a game. [`ErrorKind::name`] gives a short machine-readable category.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the input failed; the reader stops after this error.
    #[error("I/O error: {0}")]
    Io(String),
    /// The text is not PGN: a malformed tag pair (PGN standard 8.1), an unterminated comment
    /// (8.2.5), an unbalanced variation (8.2.5), a character that cannot start a movetext token
    /// (8.2), text after the game termination marker (8.2.6), ...
    #[error("{0}")]
    Syntax(String),
    /// A [`crate::ReaderLimits`] bound was exceeded; the rest of the game is skipped.
    #[error("{what} exceeds the limit of {limit}")]
    Limit {
        /// What was too large, e.g. "game size in bytes", "number of plies".
        what: &'static str,
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The `Variant` tag names a variant other than standard chess or Chess960.
    #[error("unsupported variant '{0}'")]
    UnsupportedVariant(String),
    /// The `FEN` tag (PGN standard 9.7.2) does not hold a valid position.
    #[error("bad FEN tag: {0}")]
    Fen(FenError),
    /// A null move (`--`, `Z0`, `0000`, `@@@@`) in the main line: it is not a legal chess move, so
    /// the game cannot be replayed past it.
    #[error("null move at ply {ply} ({text}): a null move is not a legal move")]
    NullMove {
        /// The 1-based ply of the null move.
        ply: usize,
        /// The token as written.
        text: String,
    },
    /// A move of the main line that cannot be played, with the reason from the rules.
    #[error("ply {ply} ({text}): {}", error.reason())]
    Move {
        /// The 1-based ply of the move.
        ply: usize,
        /// The move text as written (annotation marks `!?` removed).
        text: String,
        /// Why the rules reject it.
        error: MoveError,
    },
}

impl ErrorKind {
    /// A short category: `io`, `syntax`, `limit`, `unsupported_variant`, `fen`, `null_move`, or for
    /// moves the rules' category prefixed with `move_` (`move_illegal`, `move_ambiguous`,
    /// `move_syntax`, `move_not_strict`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Io(_) => "io",
            ErrorKind::Syntax(_) => "syntax",
            ErrorKind::Limit { .. } => "limit",
            ErrorKind::UnsupportedVariant(_) => "unsupported_variant",
            ErrorKind::Fen(_) => "fen",
            ErrorKind::NullMove { .. } => "null_move",
            ErrorKind::Move { error, .. } => match error.kind() {
                "syntax" => "move_syntax",
                "illegal" => "move_illegal",
                "ambiguous" => "move_ambiguous",
                "not_strict" => "move_not_strict",
                _ => "move_other",
            },
        }
    }
}
