//! Replaying a [`RawGame`] under the rules: start position from the tags, every main-line move
//! checked, the first problem reported with its line, column, ply and reason.

use arbiter_rules::{
    AnalysisBudget, CastlingMode, FenOptions, Game, GameOver, Illegality, Move, MoveError, Outcome,
    Position, SanMode, Validation, castling_side, looks_like_uci,
};

use crate::error::{ErrorKind, PgnError};
use crate::reader::{RawGame, SanToken};
use crate::verdict::{PgnWarning, PgnWarningKind, WrittenSuffix};

/// The variants that can be replayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Standard chess (FIDE Laws of Chess).
    #[default]
    Standard,
    /// Chess960 (Fischer random chess, FIDE Laws Guidelines III).
    Chess960,
}

impl Variant {
    /// Reads the value of a `Variant` tag. Case, spaces, `-` and `_` are ignored: `Standard`,
    /// `Normal`, `From Position`, `chess` (and an empty value) are standard chess; `Chess960`,
    /// `Chess 960`, `chess 960`, `960`, `fischerandom`, `Fischer Random`, `FRC` are Chess960.
    /// `None` for anything else.
    #[must_use]
    pub fn from_tag(value: &str) -> Option<Variant> {
        let key: String = value
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match key.as_str() {
            "" | "standard" | "normal" | "chess" | "fromposition" => Some(Variant::Standard),
            "chess960" | "960" | "fischerandom" | "fischerrandom" | "fischerrandomchess"
            | "frc" => Some(Variant::Chess960),
            _ => None,
        }
    }

    /// The castling mode of the rules crate for this variant.
    #[must_use]
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }
}

/// How tolerant replay is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// How SAN is read (default [`SanMode::Tolerant`]: `0-0`, `e8Q`, `Ng1-f3`, missing or extra
    /// `+`/`#`, ...).
    pub san_mode: SanMode,
    /// Also accept moves in UCI notation (`e2e4`, `e7e8q`), as some engines write them in the
    /// movetext. Default `true`.
    pub accept_uci: bool,
    /// The checks of the `FEN` tag's position: [`Validation::STRICT`] (the default), or
    /// [`Validation::PERFT_SUITE`] for positions that cannot arise in a game but are playable.
    pub fen_validation: Validation,
}

impl Default for ReplayOptions {
    fn default() -> ReplayOptions {
        ReplayOptions {
            san_mode: SanMode::Tolerant,
            accept_uci: true,
            fen_validation: Validation::STRICT,
        }
    }
}

/// A game whose every main-line move was legal.
#[derive(Clone, Debug)]
pub struct ReplayedGame {
    /// The variant it was played under.
    pub variant: Variant,
    /// The start position, the moves and the automatic ending (if any) from the rules crate.
    pub game: Game,
}

/// The variant and start position a game's tags give: the `Variant` tag (absent = standard), the
/// `FEN` tag when present (PGN standard 9.7; `SetUp "1"` is not required), else the standard start
/// position.
///
/// A `FEN` tag that is empty (`[FEN ""]`) or not a valid position fails with [`ErrorKind::Fen`],
/// with or without a `Variant` tag. A Chess960 `Variant` tag without a `FEN` tag fails with
/// [`ErrorKind::MissingFen`] (the start position is unknown), and so does `[SetUp "1"]` without
/// a `FEN` tag (PGN standard 9.7.1).
///
/// A `FEN` tag without a `Variant` tag whose castling field only makes sense in Chess960 (king or
/// rooks off their standard squares, Shredder-FEN files) is read as Chess960.
///
/// # Errors
/// [`ErrorKind::UnsupportedVariant`], [`ErrorKind::MissingFen`] or [`ErrorKind::Fen`], at the
/// line of the offending tag.
pub fn start_position(
    raw: &RawGame,
    options: &ReplayOptions,
) -> Result<(Variant, Position), PgnError> {
    let tag_error = |index: Option<usize>, kind: ErrorKind| {
        let line = index.map_or(raw.line, |i| {
            raw.tag_lines.get(i).copied().unwrap_or(raw.line)
        });
        PgnError::new(line, 1, raw.index, kind)
    };
    let variant_index = raw.tag_index("Variant");
    let variant = match variant_index {
        Some(i) => Variant::from_tag(&raw.tags[i].1).ok_or_else(|| {
            tag_error(
                Some(i),
                ErrorKind::UnsupportedVariant(raw.tags[i].1.chars().take(64).collect()),
            )
        })?,
        None => Variant::Standard,
    };
    // An empty FEN tag is a bad FEN tag like any other (it does not mean the standard start
    // position: a Chess960 game with `[FEN ""]` would silently start from the wrong position).
    let Some(fen_index) = raw.tag_index("FEN") else {
        // Nor does a missing one, for Chess960 (959 of its 960 start positions are not the
        // standard one).
        if variant == Variant::Chess960 {
            return Err(tag_error(
                variant_index,
                ErrorKind::MissingFen { tag: "Variant" },
            ));
        }
        // `[SetUp "1"]` says the game starts from the position of its FEN tag (PGN standard
        // 9.7.1): without one, that position is unknown.
        if let Some(setup_index) = raw.tag_index("SetUp")
            && raw.tags[setup_index].1.trim() == "1"
        {
            return Err(tag_error(
                Some(setup_index),
                ErrorKind::MissingFen { tag: "SetUp" },
            ));
        }
        return Ok((variant, Position::start(variant.castling_mode())));
    };
    let fen = raw.tags[fen_index].1.as_str();
    let read = |mode| {
        Position::from_fen_with(
            fen,
            FenOptions {
                mode,
                validation: options.fen_validation,
            },
        )
    };
    // Without a Variant tag, the FEN decides (Chess960 when only valid there).
    let read = if variant_index.is_none() {
        Position::from_fen_detecting_mode(fen, options.fen_validation)
    } else {
        read(variant.castling_mode())
    };
    match read {
        Ok(pos) if pos.castling_mode() == CastlingMode::Chess960 => Ok((Variant::Chess960, pos)),
        Ok(pos) => Ok((variant, pos)),
        Err(e) => Err(tag_error(Some(fen_index), ErrorKind::Fen(e))),
    }
}

/// How a move was read when it was not written as PGN writes it, for its warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// As written.
    Plain,
    /// Castling written as the king's move (`Ke1g1`, `e1-g1`, `Kg1`, king takes rook `Ke1h1`);
    /// `uci`: written as UCI writes castling in the game's mode (`e1g1` or `e1h1` in standard
    /// chess, king takes rook `e1h1` in Chess960), not in Chess960 as the king's destination.
    CastlingAsKingMove {
        /// UCI's own castling notation for the mode.
        uci: bool,
    },
    /// A piece letter written in lower case (`nf3`), read as the capital.
    LowercasePiece,
    /// Castling written otherwise than `O-O`/`O-O-O` (or `0-0`, `o-o`): without dashes (`00`,
    /// `000`, `OO`) or with `O`s and zeros mixed (`0-O-0`).
    CastlingSpelling,
}

pub(crate) fn parse_token(
    pos: &Position,
    token: &SanToken,
    options: &ReplayOptions,
) -> Result<(Move, Reading), ErrorKind> {
    if token.null {
        return Err(ErrorKind::NullMove {
            ply: token.ply as usize,
            text: token.text.to_string(),
        });
    }
    let text = token.text.as_str();
    let parse = |text: &str| {
        if options.accept_uci && options.san_mode == SanMode::Tolerant {
            pos.parse_move(text)
        } else if options.accept_uci && looks_like_uci(text) {
            pos.parse_uci(text)
        } else {
            pos.parse_san(text, options.san_mode)
        }
    };
    let error = match parse(text) {
        Ok(m) if m.is_castle() && !written_as_castling(text) => {
            let uci = looks_like_uci(text);
            return Ok((m, Reading::CastlingAsKingMove { uci }));
        }
        Ok(m) if m.is_castle() && !castling_as_pgn_reads_it(text) => {
            return Ok((m, Reading::CastlingSpelling));
        }
        Ok(m) => return Ok((m, Reading::Plain)),
        Err(error) => error,
    };
    if options.san_mode == SanMode::Tolerant {
        // Chess960 castling written as UCI writes standard castling, the king's destination
        // (`e1g1`): the castling it names, as the king move it is written as.
        if let MoveError::Illegal {
            reason: Illegality::Chess960CastlingNotation { uci },
            ..
        } = &error
            && let Some(m) = pos
                .legal_moves()
                .iter()
                .find(|m| m.is_castle() && pos.uci(m) == *uci)
        {
            return Ok((*m, Reading::CastlingAsKingMove { uci: false }));
        }
        // A piece letter in lower case (`nf3`, `qh5`; `bc4` when no b-pawn goes to c4): the
        // piece. The error of a knight, rook, queen or king move is the piece's (no file is
        // named n, r, q or k); a `b` move that fits no bishop keeps the pawn's.
        if let Some(capital) = capitalized_piece(text) {
            match parse(&capital) {
                Ok(m) => return Ok((m, Reading::LowercasePiece)),
                Err(capital_error) if !text.starts_with('b') => {
                    return Err(ErrorKind::Move {
                        ply: token.ply as usize,
                        text: text.to_string(),
                        error: capital_error,
                    });
                }
                Err(_) => {}
            }
        }
    }
    Err(ErrorKind::Move {
        ply: token.ply as usize,
        text: text.to_string(),
        error,
    })
}

/// Whether a castling move is written as castling (`O-O`, `O-O-O`; `0-0`, `o-o`, `00`, `OOO`,
/// `0-O-0` as the tolerant reader reads them, see [`castling_side`]), check signs and marks
/// aside.
fn written_as_castling(text: &str) -> bool {
    let text = text.trim_end_matches(['+', '#', '!', '?']);
    matches!(castling_side(text), Some(Ok(_)))
}

/// Whether castling written with `O`s, `o`s or zeros (see [`written_as_castling`]) is one of
/// the spellings read without a warning: `O-O`, `O-O-O`, and `0-0`, `0-0-0`, `o-o`, `o-o-o`
/// (the FIDE Laws write castling with zeros, Appendix C), check signs and marks aside.
fn castling_as_pgn_reads_it(text: &str) -> bool {
    let text = text.trim_end_matches(['+', '#', '!', '?']);
    matches!(text, "O-O" | "O-O-O" | "0-0" | "0-0-0" | "o-o" | "o-o-o")
}

/// The move written with its lower-case piece letter as a capital (`nf3` as `Nf3`), when it
/// starts with one and goes on as a piece move does (a square, a file or rank of origin, or
/// `x`).
fn capitalized_piece(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let first = chars.next()?;
    let second = chars.next()?;
    (matches!(first, 'k' | 'q' | 'r' | 'b' | 'n')
        && (matches!(second, 'a'..='h' | '1'..='8' | 'x' | ':' | '-')))
    .then(|| format!("{}{}", first.to_ascii_uppercase(), &text[1..]))
}

/// The warning of a move read otherwise than written (`castling_as_king_move`,
/// `lowercase_piece_letter`); `None` for a move as written, and for castling written as UCI
/// writes it in a game written in UCI (`e1g1`, king takes rook `e1h1` in Chess960), which is
/// how UCI writes castling.
fn reading_warning(
    reading: Reading,
    token: &SanToken,
    m: &Move,
    uci_game: &mut impl FnMut() -> bool,
) -> Option<PgnWarning> {
    let text = token.text.to_string();
    let kind = match reading {
        Reading::Plain => return None,
        Reading::CastlingAsKingMove { uci } => {
            if uci && uci_game() {
                return None;
            }
            PgnWarningKind::CastlingAsKingMove {
                text,
                castling: if m.is_kingside_castle() {
                    "O-O"
                } else {
                    "O-O-O"
                },
            }
        }
        Reading::LowercasePiece => PgnWarningKind::LowercasePieceLetter { text },
        Reading::CastlingSpelling => PgnWarningKind::CastlingSpelling {
            text,
            castling: if m.is_kingside_castle() {
                "O-O"
            } else {
                "O-O-O"
            },
        },
    };
    Some(PgnWarning {
        ply: token.ply,
        line: token.line,
        column: token.column,
        kind,
    })
}

/// Replays the main line of `raw` from its start position (see [`start_position`]).
///
/// # Errors
/// The first problem, at the line and column of the offending tag or move:
/// [`ErrorKind::UnsupportedVariant`], [`ErrorKind::Fen`], [`ErrorKind::NullMove`], or
/// [`ErrorKind::Move`] with the ply, the move text and the rules crate's reason, e.g.
/// `line 12:5: ply 23 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on
/// b4 (FIDE Laws 3.9.2)`.
pub fn replay(raw: &RawGame, options: &ReplayOptions) -> Result<ReplayedGame, PgnError> {
    replay_noting(raw, options, AnalysisBudget::Material, |_| {})
}

/// The one replay of a game's main line: as [`replay`], with the dead-position analysis of the
/// game within `analysis` (`Material`: insufficient material only, as [`Game::new`]), handing
/// each `wrong_check_suffix` warning to `warn` (see [`crate::verdict::check_suffix_warning`]).
/// A move listed after the game ended (checkmate, stalemate, dead position, ...) counts as
/// played after the end ([`Game::plies_after_end`]); a null move is an error wherever it stands.
///
/// # Errors
/// As [`replay`].
pub fn replay_noting(
    raw: &RawGame,
    options: &ReplayOptions,
    analysis: AnalysisBudget,
    mut warn: impl FnMut(PgnWarning),
) -> Result<ReplayedGame, PgnError> {
    let (variant, start) = start_position(raw, options)?;
    let mut game = Game::with_dead_position_analysis(start, analysis);
    game.reserve(raw.moves.len());
    // A suffixed move that gives check: whether it mates is known when a next move is played
    // (then it does not), else at the end, so a legal move is not searched for at every check.
    let mut open_check: Option<WrittenSuffix> = None;
    // Whether every move of the game is written in UCI, asked only of a castling written as a
    // king move.
    let mut uci_game = || {
        raw.moves
            .iter()
            .all(|m| m.null || looks_like_uci(m.text.as_str()))
    };
    for token in &raw.moves {
        let parsed = match parse_token(game.position(), token, options) {
            Err(kind @ ErrorKind::NullMove { .. }) => {
                return Err(PgnError::new(token.line, token.column, raw.index, kind));
            }
            Err(ErrorKind::Move {
                error: MoveError::Syntax { .. },
                ..
            }) if game.outcome().is_some() => {
                // After the end, text that is no move (`Qxf7# mate 1-0`) is no ply: a warning
                // names it, as a move there is counted and warned about (moves_after_end).
                if let Some(outcome) = game.outcome() {
                    warn(PgnWarning {
                        ply: u32::try_from(game.recorded_plies()).unwrap_or(u32::MAX),
                        line: token.line,
                        column: token.column,
                        kind: PgnWarningKind::NotAMoveAfterEnd {
                            text: token.text.to_string(),
                            outcome,
                        },
                    });
                }
                continue;
            }
            Ok((m, reading)) => {
                if reading != Reading::Plain
                    && let Some(warning) = reading_warning(reading, token, &m, &mut uci_game)
                {
                    warn(warning);
                }
                Ok(m)
            }
            Err(kind) => Err(kind),
        };
        let recorded = game
            .record(parsed)
            .map_err(|kind| PgnError::new(token.line, token.column, raw.index, kind))?;
        if recorded.is_none() {
            continue;
        }
        // The move before was a check, and this move proves it was not mate.
        if let Some(warning) = open_check.take().and_then(|check| check.warning(Some('+'))) {
            warn(warning);
        }
        if let Some(suffix) =
            WrittenSuffix::of(token.text.as_str(), token.ply, token.line, token.column)
        {
            if game.position().is_check() {
                open_check = Some(suffix);
            } else if let Some(warning) = suffix.warning(None) {
                warn(warning);
            }
        }
    }
    // The last check of the game: mate when no legal move follows it.
    if let Some(check) = open_check {
        let actual = if game.position().has_legal_move() {
            '+'
        } else {
            '#'
        };
        if let Some(warning) = check.warning(Some(actual)) {
            warn(warning);
        }
    }
    Ok(ReplayedGame { variant, game })
}

/// Replays the main line like [`replay`] but only collects the moves and the final position,
/// without the bookkeeping of [`Game`] (repetition keys, automatic endings): the fast path for
/// validation in bulk. Without a [`Game`], nothing counts moves after the end: a move listed
/// after checkmate or stalemate is an error here, [`ErrorKind::GameOver`] naming the ending.
///
/// # Errors
/// As [`replay`], and [`ErrorKind::GameOver`] for a move after checkmate or stalemate.
pub fn replay_moves(
    raw: &RawGame,
    options: &ReplayOptions,
    moves: &mut Vec<Move>,
) -> Result<(Variant, Position), PgnError> {
    moves.clear();
    let (variant, mut pos) = start_position(raw, options)?;
    for token in &raw.moves {
        let (m, _) = parse_token(&pos, token, options)
            .map_err(|kind| after_end(&pos, moves.len(), kind))
            .map_err(|kind| PgnError::new(token.line, token.column, raw.index, kind))?;
        pos.play_in_place(&m);
        moves.push(m);
    }
    Ok((variant, pos))
}

/// The error of a move `kind` that could not be played in `pos`, reached after `plies` plies:
/// when `pos` is checkmate or stalemate, the game had ended there and the error names the
/// ending ([`ErrorKind::GameOver`]); a null move stays what it is.
fn after_end(pos: &Position, plies: usize, kind: ErrorKind) -> ErrorKind {
    let ErrorKind::Move { ply, text, error } = kind else {
        return kind;
    };
    match Outcome::mate_or_stalemate(pos, plies) {
        Some(outcome) => ErrorKind::GameOver {
            ply,
            text,
            over: GameOver { outcome },
        },
        None => ErrorKind::Move { ply, text, error },
    }
}
