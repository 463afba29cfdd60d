//! Verdicts on games read from PGN: a game's moves replayed under the rules, the end-of-game
//! event its tags imply, the rules' adjudication, and the declared result compared with it. The
//! one place where this is decided: the server's `AdjudicateGame` (field `pgn`), its
//! `AdjudicateGames` stream and `arbiter adjudicate` all call [`adjudicate`], and only turn its
//! [`PgnVerdict`] into their own output.
//!
//! ```
//! use arbiter_pgn::{Reader, verdict::{AdjudicationSettings, adjudicate}};
//! use arbiter_rules::{GameEvent, Color, Termination};
//!
//! let pgn = "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n";
//! let raw = Reader::new(pgn.as_bytes()).next().unwrap().unwrap();
//! let verdict = adjudicate(&raw, None, &AdjudicationSettings::default()).unwrap();
//! // Black's flag fell, and White can still mate: White wins (FIDE Laws 6.9).
//! assert_eq!(verdict.event, Some(GameEvent::FlagFall(Color::Black)));
//! let outcome = verdict.verdict.outcome.unwrap();
//! assert_eq!((outcome.termination, outcome.article), (Termination::FlagFall, "6.9"));
//! assert!(verdict.disagreement.is_none());
//! ```

use std::fmt;

use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, Color, Consequence, Game, GameEvent, GameResult, Outcome,
    Position, RecordPlace, RefereeError, RuleSet, TimedIncident, Verdict, VerdictWarning,
    WarningCode,
};

use crate::error::{ErrorKind, PgnError, WarningKind};
use crate::reader::RawGame;
use crate::replay::{ReplayOptions, replay_noting};

/// How games read from PGN are adjudicated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdjudicationSettings {
    /// Apply a draw claim valid at the end of the game (threefold repetition, fifty-move rule).
    pub claim_draw: bool,
    /// How much analysis dead positions and "can the opponent still mate?" may use.
    pub analysis: AnalysisBudget,
    /// The rules the games were played under (FIDE Laws Appendices A and B; Armageddon's draw
    /// odds, which give each verdict an event result beside the Laws'). Default: standard play.
    pub rules: RuleSet,
}

impl Default for AdjudicationSettings {
    fn default() -> Self {
        Self {
            claim_draw: false,
            analysis: AnalysisBudget::Full,
            rules: RuleSet::default(),
        }
    }
}

/// Why a PGN game with incidents has no verdict ([`adjudicate_with_incidents`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerdictError {
    /// The text is not a game, or its moves do not replay ([`adjudicate`]'s errors).
    Pgn(PgnError),
    /// An incident does not fit the replayed main line, or the record does not play what an
    /// incident requires (7.5.2, 9.5.3; A.5.2): the referee's error and where it arose.
    Incident {
        /// The incident of the list, or the main line's move, that gave it.
        place: RecordPlace,
        /// Why.
        error: RefereeError,
    },
}

impl fmt::Display for VerdictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerdictError::Pgn(error) => write!(f, "{error}"),
            VerdictError::Incident { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for VerdictError {}

impl From<PgnError> for VerdictError {
    fn from(error: PgnError) -> Self {
        VerdictError::Pgn(error)
    }
}

/// A game read from PGN and adjudicated.
#[derive(Debug, Clone)]
pub struct PgnVerdict {
    /// The game as replayed under the rules.
    pub game: Game,
    /// The event that counts: the caller's, or the one inferred from the tags; `None` when there
    /// is none, or when the rules ended the game before it (their endings take precedence).
    pub event: Option<GameEvent>,
    /// The rules' verdict. Its warnings are in [`PgnVerdict::warnings`], with their lines.
    pub verdict: Verdict,
    /// The result the game declares, and where.
    pub declared: Option<DeclaredResult>,
    /// Why the declared result or the event contradicts the rules, if it does.
    pub disagreement: Option<Disagreement>,
    /// What an arbiter must be told, in this order: the reader's warnings, the declared
    /// result's, the moves' `+`/`#` suffixes, then the rules' verdict.
    pub warnings: Vec<PgnWarning>,
}

impl PgnVerdict {
    /// The adjudicated result; `None` while the game is going on.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        self.verdict.outcome.map(|outcome| outcome.result)
    }
}

/// Where a PGN game declares its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultSource {
    /// The `Result` tag (PGN standard 8.1.1.7).
    ResultTag,
    /// The movetext's termination marker, when the tag is missing or empty (8.2.6).
    TerminationMarker,
}

impl fmt::Display for ResultSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResultSource::ResultTag => "the Result tag",
            ResultSource::TerminationMarker => "the termination marker",
        })
    }
}

/// The result a PGN game declares: its text as written (`1-0`, `0-1`, `1/2-1/2`, `*` or any
/// other text) and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredResult {
    /// The text, as written.
    pub text: String,
    /// Where it is written.
    pub source: ResultSource,
}

impl DeclaredResult {
    /// The result the text claims: `None` for `*` (and for a text that is not a result, which
    /// [`declared_result`] never gives).
    #[must_use]
    pub fn claims(&self) -> Option<GameResult> {
        read_result(&self.text).flatten()
    }
}

/// Reads a result as a `Result` tag or a termination marker writes it: `Some(Some(result))` for
/// `1-0`, `0-1`, `1/2-1/2` (PGN standard 8.2.6), `Some(None)` for `*` (no result), `None` for a
/// text that is not a result. Spaces around it are ignored, and the spellings other tools write
/// are read too: `½-½` (as the reader reads it in movetext), `0.5-0.5`, `0,5-0,5`, a colon
/// instead of the dash (`1:0`, `0:1`, `½:½`, `1/2:1/2`, `0.5:0.5`, `0,5:0,5`), and any of
/// them with a Unicode dash or minus sign for the dash (`1–0`, `0−1`; the reader warns of the
/// dash of a `Result` tag, `unicode_dash`).
#[must_use]
pub fn read_result(text: &str) -> Option<Option<GameResult>> {
    let text = text.trim();
    let ascii;
    let text = if text.is_ascii() || !text.chars().any(crate::reader::is_unicode_dash) {
        text
    } else {
        ascii = text
            .chars()
            .map(|c| {
                if crate::reader::is_unicode_dash(c) {
                    '-'
                } else {
                    c
                }
            })
            .collect::<String>();
        ascii.as_str()
    };
    match text {
        "1-0" | "1:0" => Some(Some(GameResult::WhiteWins)),
        "0-1" | "0:1" => Some(Some(GameResult::BlackWins)),
        "1/2-1/2" | "\u{bd}-\u{bd}" | "0.5-0.5" | "0,5-0,5" | "1/2:1/2" | "\u{bd}:\u{bd}"
        | "0.5:0.5" | "0,5:0,5" => Some(Some(GameResult::Draw)),
        "*" => Some(None),
        _ => None,
    }
}

/// Why a game's declared result (or the draw it records) contradicts the rules. `Display`
/// writes the sentence an arbiter reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disagreement {
    /// The declared result is not the adjudicated one.
    Result {
        /// What the game declares (a result: `1-0`, `0-1` or `1/2-1/2`).
        declared: DeclaredResult,
        /// The adjudicated result; `None` when the rules do not end the game.
        adjudicated: Option<GameResult>,
        /// The verdict's explanation.
        explanation: String,
    },
    /// A draw agreed before each player had made a move (FIDE Laws 5.2.3); the draw is kept.
    EarlyAgreedDraw {
        /// The declared result, when one is declared (not `*`).
        declared: Option<DeclaredResult>,
        /// The ply of the agreement.
        ply: usize,
    },
}

impl Disagreement {
    /// The article of the FIDE Laws of Chess the disagreement rests on, when it is one rule.
    #[must_use]
    pub fn article(&self) -> Option<&'static str> {
        match self {
            Disagreement::Result { .. } => None,
            Disagreement::EarlyAgreedDraw { .. } => Some("5.2.3"),
        }
    }
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Result {
                declared,
                adjudicated: None,
                explanation,
            } => write!(
                f,
                "{} says {}, but the rules do not end the game: {explanation}",
                declared.source,
                declared.text.trim()
            ),
            Disagreement::Result {
                declared,
                adjudicated: Some(result),
                explanation,
            } => write!(
                f,
                "{} says {}, but the rules say {}: {explanation}",
                declared.source,
                declared.text.trim(),
                result.as_pgn()
            ),
            Disagreement::EarlyAgreedDraw { declared, ply } => {
                if let Some(declared) = declared {
                    write!(f, "{} says {}, but ", declared.source, declared.text.trim())?;
                }
                write!(
                    f,
                    "a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply {ply}"
                )
            }
        }
    }
}

/// Something an arbiter must be told about a game read from PGN, with where it is: the 1-based
/// ply it concerns (0: none) and the 1-based line of the input (0: the game was not read from
/// text). `Display` writes the message; [`PgnWarning::code`] the stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnWarning {
    /// The 1-based ply it concerns; 0 when it concerns no move.
    pub ply: u32,
    /// The 1-based line of the input; 0 when there is none.
    pub line: u32,
    /// The 1-based column (in characters) of what it concerns in `line`, for a move's warning
    /// the move's first character; 0 when not known. The messages of a move's warnings begin
    /// with the place, `line 7:22: ply 5 (Ke1g1): ...`, as an error's do.
    pub column: u32,
    /// What it is.
    pub kind: PgnWarningKind,
}

/// What a [`PgnWarning`] is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgnWarningKind {
    /// Something the reader noticed and read past ([`crate::ReadWarning`]).
    Read(WarningKind),
    /// `wrong_check_suffix`: a move's `+` or `#` is not borne out by the position it leads to;
    /// the move was read without it.
    WrongCheckSuffix {
        /// The move as written, without `!`/`?` marks.
        text: String,
        /// The suffix written, `+` or `#`.
        written: char,
        /// What the move really does: `None` no check, `Some('+')` check, `Some('#')` mate.
        actual: Option<char>,
    },
    /// `truncated_game`: the movetext ends without a termination marker (PGN standard 8.2.6).
    TruncatedGame {
        /// The `Result` tag used instead, if there is one.
        result_tag: Option<String>,
    },
    /// `unknown_result`: the `Result` tag holds a text that is not a result (`draw`, `1-0 (time)`);
    /// the termination marker is used, if there is one.
    UnknownResult {
        /// The tag's value.
        tag: String,
        /// The termination marker used instead, if there is one.
        marker: Option<String>,
    },
    /// `result_mismatch`: the `Result` tag differs from the termination marker (PGN standard
    /// 8.2.6); the tag is used.
    ResultMismatch {
        /// The `Result` tag.
        tag: String,
        /// The termination marker.
        marker: String,
    },
    /// `castling_as_king_move`: castling written as the king's move (`Ke1g1`, `Ke1-g1`,
    /// `e1-g1`, `Kg1`, king takes rook `Ke1h1`; in Chess960 also UCI's king destination
    /// `e1g1`), read as the castling it names where that castling is legal (PGN writes `O-O`,
    /// standard 8.2.3.3). Castling in UCI (`e1g1`, Chess960's `e1h1`) in a game written all in
    /// UCI is how UCI writes it: no warning.
    CastlingAsKingMove {
        /// The move as written, without `!`/`?` marks.
        text: String,
        /// The castling it was read as: `O-O` or `O-O-O`.
        castling: &'static str,
    },
    /// `lowercase_piece_letter`: a piece letter written in lower case (`nf3`, `qh5`; `bc4` only
    /// when no b-pawn move fits it), read as the capital (SAN's piece letters are capitals,
    /// FIDE Laws Appendix C.4; its small letters are files).
    LowercasePieceLetter {
        /// The move as written, without `!`/`?` marks.
        text: String,
    },
    /// `castling_spelling`: castling written otherwise than PGN writes it (`O-O`, `O-O-O`,
    /// standard 8.2.3.3) and than the FIDE Laws do (`0-0`, `0-0-0`): without dashes (`00`,
    /// `000`, `OO`) or with `O`s and zeros mixed (`0-O-0`); read as the castling it names.
    CastlingSpelling {
        /// The move as written, without `!`/`?` marks.
        text: String,
        /// The castling it was read as: `O-O` or `O-O-O`.
        castling: &'static str,
    },
    /// `not_a_move_after_end`: text in the movetext after the rules had ended the game that is
    /// no move at all (`Qxf7# mate 1-0`): not counted as a ply (a move there is, see
    /// `moves_after_end`), and named here. Before the end, such text is an error.
    NotAMoveAfterEnd {
        /// The text as written, without `!`/`?` marks.
        text: String,
        /// The ending it came after.
        outcome: Outcome,
    },
    /// A warning of the rules' verdict (`early_agreed_draw`, `moves_after_end`,
    /// `undetermined_analysis`).
    Verdict(VerdictWarning),
    /// `event_after_end`: the end-of-game event was not applied, because an incident had already
    /// ended the game (`outcome`, at the warning's ply): a game ends once. Given for an event
    /// sent with the request, and for one the `Result` and `Termination` tags imply when the
    /// tags' result is not the verdict's (a game recorded as the incident ended it is not
    /// warned about).
    EventAfterEnd {
        /// The event that was not applied.
        event: GameEvent,
        /// Whether the tags implied it (else the request sent it).
        inferred: bool,
        /// How the incident ended the game.
        outcome: Outcome,
    },
}

/// `PgnWarning::code` of [`PgnWarningKind::WrongCheckSuffix`].
pub const WARNING_WRONG_CHECK_SUFFIX: &str = "wrong_check_suffix";
/// `PgnWarning::code` of [`PgnWarningKind::TruncatedGame`].
pub const WARNING_TRUNCATED_GAME: &str = "truncated_game";
/// `PgnWarning::code` of [`PgnWarningKind::UnknownResult`].
pub const WARNING_UNKNOWN_RESULT: &str = "unknown_result";
/// `PgnWarning::code` of [`PgnWarningKind::ResultMismatch`].
pub const WARNING_RESULT_MISMATCH: &str = "result_mismatch";
/// `PgnWarning::code` of [`PgnWarningKind::CastlingAsKingMove`].
pub const WARNING_CASTLING_AS_KING_MOVE: &str = "castling_as_king_move";
/// `PgnWarning::code` of [`PgnWarningKind::LowercasePieceLetter`].
pub const WARNING_LOWERCASE_PIECE_LETTER: &str = "lowercase_piece_letter";
/// `PgnWarning::code` of [`PgnWarningKind::CastlingSpelling`].
pub const WARNING_CASTLING_SPELLING: &str = "castling_spelling";
/// `PgnWarning::code` of [`PgnWarningKind::NotAMoveAfterEnd`].
pub const WARNING_NOT_A_MOVE_AFTER_END: &str = "not_a_move_after_end";
/// `PgnWarning::code` of [`PgnWarningKind::EventAfterEnd`].
pub const WARNING_EVENT_AFTER_END: &str = "event_after_end";

impl PgnWarning {
    /// The stable machine-readable code, e.g. `wrong_check_suffix`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match &self.kind {
            PgnWarningKind::Read(kind) => kind.code(),
            PgnWarningKind::WrongCheckSuffix { .. } => WARNING_WRONG_CHECK_SUFFIX,
            PgnWarningKind::TruncatedGame { .. } => WARNING_TRUNCATED_GAME,
            PgnWarningKind::UnknownResult { .. } => WARNING_UNKNOWN_RESULT,
            PgnWarningKind::ResultMismatch { .. } => WARNING_RESULT_MISMATCH,
            PgnWarningKind::CastlingAsKingMove { .. } => WARNING_CASTLING_AS_KING_MOVE,
            PgnWarningKind::LowercasePieceLetter { .. } => WARNING_LOWERCASE_PIECE_LETTER,
            PgnWarningKind::CastlingSpelling { .. } => WARNING_CASTLING_SPELLING,
            PgnWarningKind::NotAMoveAfterEnd { .. } => WARNING_NOT_A_MOVE_AFTER_END,
            PgnWarningKind::EventAfterEnd { .. } => WARNING_EVENT_AFTER_END,
            PgnWarningKind::Verdict(warning) => warning.code.as_str(),
        }
    }

    /// `line L:C: ` where the warning's line and column are known, else nothing: the place a
    /// move's warning names first, as an error does.
    fn place(&self) -> String {
        if self.line > 0 && self.column > 0 {
            format!("line {}:{}: ", self.line, self.column)
        } else {
            String::new()
        }
    }
}

impl fmt::Display for PgnWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PgnWarningKind::Read(kind) => write!(f, "{kind}"),
            PgnWarningKind::WrongCheckSuffix {
                text,
                written,
                actual,
            } => {
                let (what, should) = match actual {
                    None => ("gives no check", "no suffix".to_owned()),
                    Some('+') => ("gives check but not checkmate", "'+'".to_owned()),
                    Some(_) => ("checkmates", "'#'".to_owned()),
                };
                write!(
                    f,
                    "{}ply {} ({text}): the move {what}, so it should have {should}, not '{written}'; the move was read without it",
                    self.place(),
                    self.ply
                )
            }
            PgnWarningKind::TruncatedGame {
                result_tag: Some(tag),
            } => write!(
                f,
                "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated: the Result tag {tag} was used"
            ),
            PgnWarningKind::TruncatedGame { result_tag: None } => f.write_str(
                "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated, and there is no Result tag: no result was declared",
            ),
            PgnWarningKind::UnknownResult {
                tag,
                marker: Some(marker),
            } => write!(
                f,
                "the Result tag \"{tag}\" is not a result (1-0, 0-1, 1/2-1/2 or *, PGN standard 8.1.1.7): the termination marker {marker} was used"
            ),
            PgnWarningKind::UnknownResult { tag, marker: None } => write!(
                f,
                "the Result tag \"{tag}\" is not a result (1-0, 0-1, 1/2-1/2 or *, PGN standard 8.1.1.7), and there is no termination marker: no result was declared"
            ),
            PgnWarningKind::ResultMismatch { tag, marker } => write!(
                f,
                "the Result tag says {tag} but the movetext ends with {marker} (PGN standard 8.2.6 says they agree): the Result tag was used"
            ),
            PgnWarningKind::CastlingAsKingMove { text, castling } => write!(
                f,
                "{}ply {} ({text}): castling written as the king's move, read as {castling}, which is legal here (PGN writes castling {castling}, standard 8.2.3.3)",
                self.place(),
                self.ply
            ),
            PgnWarningKind::LowercasePieceLetter { text } => {
                let mut capital = text.clone();
                capital[..1].make_ascii_uppercase();
                write!(
                    f,
                    "{}ply {} ({text}): a piece letter in lower case, read as {capital} (SAN writes piece letters as capitals and files in small letters, FIDE Laws Appendix C.4)",
                    self.place(),
                    self.ply
                )
            }
            PgnWarningKind::CastlingSpelling { text, castling } => {
                let how = if text.contains('-') {
                    "with its letters mixed"
                } else {
                    "without dashes"
                };
                write!(
                    f,
                    "{}ply {} ({text}): castling written {how}, read as {castling} (PGN writes {castling}, standard 8.2.3.3, and the FIDE Laws {}, Appendix C)",
                    self.place(),
                    self.ply,
                    castling.replace('O', "0")
                )
            }
            PgnWarningKind::NotAMoveAfterEnd { text, outcome } => write!(
                f,
                "{}'{text}' after the game ended at ply {} ({}, FIDE Laws {}) is not a move: it is not counted as a ply",
                self.place(),
                outcome.ply,
                outcome.termination.description(),
                outcome.article()
            ),
            PgnWarningKind::EventAfterEnd {
                event,
                inferred,
                outcome,
            } => write!(
                f,
                "the event {}, {}, was not applied: an incident had already ended the game at ply {} ({}, {}, FIDE Laws {}), and a game ends once",
                event_words(*event),
                if *inferred {
                    "which the Result and Termination tags imply"
                } else {
                    "sent with the request"
                },
                outcome.ply,
                outcome.termination.description(),
                outcome.result.as_pgn(),
                outcome.article()
            ),
            PgnWarningKind::Verdict(warning) => f.write_str(&warning.message),
        }
    }
}

/// An end-of-game event in words, with its article: "White's flag fall (FIDE Laws 6.9)".
fn event_words(event: GameEvent) -> String {
    match event {
        GameEvent::FlagFall(side) => format!("{side}'s flag fall (FIDE Laws 6.9)"),
        GameEvent::Resignation(side) => format!("{side}'s resignation (FIDE Laws 5.1.2)"),
        GameEvent::SecondIllegalMove(side) => {
            format!("{side}'s second illegal move (FIDE Laws 7.5.5)")
        }
        GameEvent::AgreedDraw => "a draw by agreement (FIDE Laws 5.2.3)".to_owned(),
        GameEvent::Forfeit(side) => format!("{side}'s forfeit"),
    }
}

/// The `event_after_end` warning when `event` (`inferred` from the tags, or sent) was not
/// applied because an incident's ruling in `verdict` ended the game: `None` when there is no
/// event or no incident ended the game. Its ply is the ply the game ended at; `line` the
/// input's line for it (0 for a game given as moves).
#[must_use]
pub fn event_after_end_warning(
    event: Option<GameEvent>,
    inferred: bool,
    verdict: &Verdict,
    line: u32,
) -> Option<PgnWarning> {
    let event = event?;
    let outcome = verdict.rulings.iter().find_map(|ruling| {
        ruling.consequences.iter().find_map(|c| match c {
            Consequence::GameEnded(outcome) => Some(*outcome),
            _ => None,
        })
    })?;
    Some(PgnWarning {
        ply: u32::try_from(outcome.ply).unwrap_or(u32::MAX),
        line,
        column: 0,
        kind: PgnWarningKind::EventAfterEnd {
            event,
            inferred,
            outcome,
        },
    })
}

/// The `wrong_check_suffix` warning of the move written `text` at 1-based `ply` (`line`: its
/// 1-based line in PGN input, 0 for a game's list of moves; `after`: the position it leads to)
/// when its `+` or `#` is not borne out by `after`: `+` or `#` on a move that gives no check,
/// `#` on a check that is not mate, `+` on a checkmate. The tolerant SAN reader
/// (`Position::parse_move`: the plain form and the tolerant form both drop the suffix) accepts
/// such a move; a missing suffix is not warned about (PGN import format may leave it out).
#[must_use]
pub fn check_suffix_warning(
    after: &Position,
    text: &str,
    ply: u32,
    line: u32,
) -> Option<PgnWarning> {
    let suffix = WrittenSuffix::of(text, ply, line, 0)?;
    let actual = if !after.is_check() {
        None
    } else if after.has_legal_move() {
        Some('+')
    } else {
        Some('#')
    };
    suffix.warning(actual)
}

/// The `wrong_check_suffix` warnings of a game given as a list of moves (`texts`, as sent;
/// `game`: the game they were read into, whose moves are the first of them): see
/// [`check_suffix_warning`]. Moves recorded after the end are not read, so not warned about.
#[must_use]
pub fn check_suffix_warnings(game: &Game, texts: &[String]) -> Vec<PgnWarning> {
    // Most lists carry no suffix at all (UCI never does): no second replay for them.
    if !texts.iter().any(|text| text.contains(['+', '#'])) {
        return Vec::new();
    }
    let mut position = game.start().clone();
    let mut warnings = Vec::new();
    for (index, (mv, text)) in game.moves().iter().zip(texts).enumerate() {
        position.play_in_place(mv);
        let ply = u32::try_from(index + 1).unwrap_or(u32::MAX);
        warnings.extend(check_suffix_warning(&position, text, ply, 0));
    }
    warnings
}

/// A move's `+` or `#` as written, with the move (its text without `!`/`?` marks, ply, line).
#[derive(Clone, Copy)]
pub(crate) struct WrittenSuffix<'a> {
    text: &'a str,
    written: char,
    ply: u32,
    line: u32,
    column: u32,
}

impl<'a> WrittenSuffix<'a> {
    /// The suffix of the move written `text`, `None` when it has none.
    #[inline(always)]
    pub(crate) fn of(text: &'a str, ply: u32, line: u32, column: u32) -> Option<WrittenSuffix<'a>> {
        // Most moves end with a square or a piece letter: no suffix, nothing to trim, no call.
        if !matches!(
            text.as_bytes().last(),
            Some(b'+' | b'#' | b'!' | b'?' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
            return None;
        }
        WrittenSuffix::trimmed(text, ply, line, column)
    }

    /// [`WrittenSuffix::of`] for a text that ends with a mark, a sign or white space.
    #[inline(never)]
    fn trimmed(text: &'a str, ply: u32, line: u32, column: u32) -> Option<WrittenSuffix<'a>> {
        // Marks and any white space after the suffix (a list of moves may carry a tab or a
        // line end, as the move readers tolerate).
        let text = text.trim_end_matches(|c: char| matches!(c, '!' | '?') || c.is_whitespace());
        let written = if text.ends_with('#') {
            '#'
        } else if text.ends_with('+') {
            '+'
        } else {
            return None;
        };
        Some(WrittenSuffix {
            text,
            written,
            ply,
            line,
            column,
        })
    }

    /// The warning when the suffix differs from `actual` (`None`: no check, `'+'`: check,
    /// `'#'`: checkmate).
    pub(crate) fn warning(self, actual: Option<char>) -> Option<PgnWarning> {
        (actual != Some(self.written)).then(|| PgnWarning {
            ply: self.ply,
            line: self.line,
            column: self.column,
            kind: PgnWarningKind::WrongCheckSuffix {
                text: self.text.to_owned(),
                written: self.written,
                actual,
            },
        })
    }
}

/// The warnings about the declared result of `raw` (PGN standard 8.2.6): a movetext without a
/// termination marker (`truncated_game`), a `Result` tag that differs from the marker
/// (`result_mismatch`). Each says which value was used.
#[must_use]
pub fn result_warnings(raw: &RawGame) -> Vec<PgnWarning> {
    // An empty Result tag (`[Result ""]`) declares nothing: as if it were missing.
    let tag = raw
        .tag("Result")
        .map(str::trim)
        .filter(|tag| !tag.is_empty());
    let tag_line = raw
        .tag_index("Result")
        .and_then(|i| raw.tag_lines.get(i).copied())
        .unwrap_or(raw.line);
    let last_line = raw.moves.last().map_or(raw.line, |m| m.line);
    // A tag that is not a result is said so, and counts as missing.
    if let Some(text) = tag
        && read_result(text).is_none()
    {
        return vec![PgnWarning {
            ply: 0,
            line: tag_line,
            column: 0,
            kind: PgnWarningKind::UnknownResult {
                tag: text.to_owned(),
                marker: raw.result.clone(),
            },
        }];
    }
    match (tag, raw.result.as_deref()) {
        (tag, None) => vec![PgnWarning {
            ply: 0,
            line: last_line,
            column: 0,
            kind: PgnWarningKind::TruncatedGame {
                result_tag: tag.map(str::to_owned),
            },
        }],
        (Some(tag), Some(marker)) if read_result(tag) != read_result(marker) => vec![PgnWarning {
            ply: 0,
            line: tag_line,
            column: 0,
            kind: PgnWarningKind::ResultMismatch {
                tag: tag.to_owned(),
                marker: marker.to_owned(),
            },
        }],
        _ => Vec::new(),
    }
}

/// The side that lost by a decisive result.
fn loser(result: Option<GameResult>) -> Option<Color> {
    match result {
        Some(GameResult::WhiteWins) => Some(Color::Black),
        Some(GameResult::BlackWins) => Some(Color::White),
        _ => None,
    }
}

/// The end-of-game event the `Result` and `Termination` tags imply for `game`, and whether a
/// draw claim explains the result (see the documentation of `AdjudicateGameRequest.pgn` in the
/// wire contract): `(event, claim_draw)`.
#[must_use]
pub fn infer_event(raw: &RawGame, game: &Game) -> (Option<GameEvent>, bool) {
    if game.outcome().is_some() {
        return (None, false);
    }
    let result = declared_result(raw).and_then(|declared| declared.claims());
    let drawn = result == Some(GameResult::Draw);
    match TerminationTag::of(raw.tag("Termination").unwrap_or("")) {
        TerminationTag::Unterminated => (None, false),
        TerminationTag::TimeForfeit => match loser(result) {
            Some(side) => (Some(GameEvent::FlagFall(side)), false),
            None if drawn => (
                Some(GameEvent::FlagFall(game.position().side_to_move())),
                false,
            ),
            None => (None, false),
        },
        TerminationTag::Forfeit => match loser(result) {
            Some(side) => (Some(GameEvent::Forfeit(side)), false),
            None if drawn => draw_event(game),
            None => (None, false),
        },
        TerminationTag::Other => match loser(result) {
            Some(side) => (Some(GameEvent::Resignation(side)), false),
            None if drawn => draw_event(game),
            None => (None, false),
        },
    }
}

/// What a `Termination` tag says about how a game ended: the values of the PGN standard (9.8.1)
/// and the free texts of chess.com exports ("Magnus won on time", "Game drawn by timeout vs
/// insufficient material", "X won - game abandoned").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TerminationTag {
    /// "unterminated": the game is not over.
    Unterminated,
    /// "time forfeit", "... on time", "... timeout ...": a flag fell (FIDE Laws 6.9).
    TimeForfeit,
    /// "abandoned", "rules infraction": a forfeit.
    Forfeit,
    /// Anything else ("normal", "resignation", none): the players' own result.
    Other,
}

impl TerminationTag {
    fn of(tag: &str) -> TerminationTag {
        let tag = tag.trim().to_ascii_lowercase();
        if tag == "unterminated" {
            TerminationTag::Unterminated
        } else if tag == "time forfeit" || tag.contains(" on time") || tag.contains("timeout") {
            TerminationTag::TimeForfeit
        } else if tag == "rules infraction" || tag.contains("abandoned") {
            TerminationTag::Forfeit
        } else {
            TerminationTag::Other
        }
    }
}

/// A draw the rules do not explain by themselves: a claim valid now, else an agreement.
fn draw_event(game: &Game) -> (Option<GameEvent>, bool) {
    if game.claim_draw().is_some() {
        (None, true)
    } else {
        (Some(GameEvent::AgreedDraw), false)
    }
}

/// The result a PGN game declares, and where it says so: the `Result` tag, or the movetext's
/// termination marker when the tag is missing, empty or not a result ([`read_result`]; PGN
/// standard 8.2.6: the two must agree; the `result_mismatch` and `unknown_result` warnings say
/// when they do not). The one source of the declared result,
/// for the event inferred and for the comparison with the verdict.
#[must_use]
pub fn declared_result(raw: &RawGame) -> Option<DeclaredResult> {
    raw.tag("Result")
        .filter(|tag| read_result(tag).is_some())
        .map(|tag| DeclaredResult {
            text: tag.to_owned(),
            source: ResultSource::ResultTag,
        })
        .or_else(|| {
            raw.result.as_deref().map(|marker| DeclaredResult {
                text: marker.to_owned(),
                source: ResultSource::TerminationMarker,
            })
        })
}

/// Why `declared` contradicts the rules' `verdict`, if it does: a declared result (`1-0`, `0-1`,
/// `1/2-1/2`; `*` and other text claim nothing) that is not the adjudicated one, else a draw
/// agreed before each player had made a move (FIDE Laws 5.2.3). With draw odds (Armageddon) a
/// record may state either result: the Laws' or the event's (`0-1` for a game drawn under the
/// Laws), so a declared result equal to the verdict's event result is no disagreement either.
#[must_use]
pub fn disagreement(declared: Option<&DeclaredResult>, verdict: &Verdict) -> Option<Disagreement> {
    let adjudicated = verdict.outcome.map(|outcome| outcome.result);
    let event = verdict.event_result.as_ref().map(|e| e.result);
    if let Some(declared) = declared
        && let Some(claimed) = declared.claims()
        && Some(claimed) != adjudicated
        && Some(claimed) != event
    {
        return Some(Disagreement::Result {
            declared: declared.clone(),
            adjudicated,
            explanation: verdict.explanation.clone(),
        });
    }
    // A draw agreed before one move each keeps its result but is not a draw FIDE Laws 5.2.3
    // allows.
    let early = verdict
        .warnings
        .iter()
        .find(|warning| warning.code == WarningCode::EarlyAgreedDraw)?;
    Some(Disagreement::EarlyAgreedDraw {
        declared: declared
            .filter(|declared| !matches!(declared.text.trim(), "" | "*"))
            .cloned(),
        ply: early.ply,
    })
}

/// Replays and adjudicates one PGN game under the settings' rule set. `event` is the caller's
/// event; `None` infers it from the tags ([`infer_event`]).
///
/// # Errors
/// As [`crate::replay`]: the first problem, at its line and column (a bad `FEN` or `Variant`
/// tag, a null move, an illegal move with its ply, text and the rules' reason).
pub fn adjudicate(
    raw: &RawGame,
    event: Option<GameEvent>,
    settings: &AdjudicationSettings,
) -> Result<PgnVerdict, PgnError> {
    adjudicate_with_incidents(raw, event, &[], settings).map_err(|error| match error {
        VerdictError::Pgn(error) => error,
        VerdictError::Incident { error, .. } => {
            unreachable!("without incidents the record is never refused: {error}")
        }
    })
}

/// [`adjudicate`] with what happened between the moves: `incidents`, in ply order, their plies
/// counted on the replayed main line (0: before the first move), ruled on under the settings'
/// rule set ([`arbiter_rules::adjudicate_record`]). The event (the caller's or the tags') applies
/// after the last ply unless an incident ended the game first; then [`PgnVerdict::event`] is
/// `None`.
///
/// # Errors
/// [`VerdictError::Pgn`] as [`adjudicate`]; [`VerdictError::Incident`] for an incident that
/// does not fit, or a main line that does not play what an incident requires.
pub fn adjudicate_with_incidents(
    raw: &RawGame,
    event: Option<GameEvent>,
    incidents: &[TimedIncident],
    settings: &AdjudicationSettings,
) -> Result<PgnVerdict, VerdictError> {
    // A game arbiter wrote as an error stays one ([`ErrorKind::MarkedError`]). The tag's name is
    // matched as `--format pgn` matches its own tags, in any letter case.
    if let Some((at, (_, value))) = raw
        .tags
        .iter()
        .enumerate()
        .find(|(_, (name, _))| name.eq_ignore_ascii_case("ArbiterError"))
    {
        return Err(PgnError {
            line: raw.tag_lines.get(at).copied().unwrap_or(raw.line),
            column: 1,
            game: raw.index,
            kind: ErrorKind::MarkedError(value.clone()),
            skipped: None,
        }
        .into());
    }
    let mut move_warnings = Vec::new();
    let game = replay_noting(raw, &ReplayOptions::default(), settings.analysis, |w| {
        move_warnings.push(w)
    })?
    .game;
    let inferred_event = event.is_none();
    let (event, inferred_claim) = match event {
        Some(event) => (Some(event), false),
        None => infer_event(raw, &game),
    };
    let request = AdjudicationRequest {
        event,
        claim_draw: settings.claim_draw || inferred_claim,
        budget: settings.analysis,
    };
    let mut verdict =
        arbiter_rules::adjudicate_record_located(&game, incidents, &settings.rules, &request)
            .map_err(|(place, error)| VerdictError::Incident { place, error })?;
    let declared = declared_result(raw);
    let disagreement = disagreement(declared.as_ref(), &verdict);
    // A verdict warning at ply 0 (an agreed draw before any move) is about the declared result:
    // the line of the Result tag, else of the termination marker, else of the game's start.
    let result_line = raw
        .tag_index("Result")
        .and_then(|i| raw.tag_lines.get(i).copied())
        .or((raw.result_line > 0).then_some(raw.result_line))
        .unwrap_or(raw.line);
    let line_of_ply = |ply: usize| {
        if ply == 0 {
            return result_line;
        }
        raw.moves
            .iter()
            .find(|m| m.ply as usize == ply)
            .map_or(0, |m| m.line)
    };
    let verdict_warnings = std::mem::take(&mut verdict.warnings);
    // An event the tags imply is worth a word only when the tags' result is not the verdict's:
    // a game lost by its incident and recorded as lost implies the loss it had.
    let event_after_end = event
        .filter(|_| !inferred_event || disagreement.is_some())
        .and_then(|event| event_after_end_warning(Some(event), inferred_event, &verdict, 0))
        .map(|w| PgnWarning {
            line: line_of_ply(w.ply as usize),
            ..w
        });
    let warnings = raw
        .warnings
        .iter()
        .map(|w| PgnWarning {
            ply: w.ply,
            line: w.line,
            column: w.column,
            kind: PgnWarningKind::Read(w.kind.clone()),
        })
        .chain(result_warnings(raw))
        .chain(move_warnings)
        .chain(verdict_warnings.into_iter().map(|w| PgnWarning {
            ply: u32::try_from(w.ply).unwrap_or(u32::MAX),
            line: line_of_ply(w.ply),
            column: 0,
            kind: PgnWarningKind::Verdict(w),
        }))
        .chain(event_after_end)
        .collect();
    // The event only counts when neither the rules nor an incident ended the game first.
    let incident_ended = verdict.rulings.iter().any(|r| {
        r.consequences
            .iter()
            .any(|c| matches!(c, Consequence::GameEnded(_)))
    });
    let event = event.filter(|_| game.outcome().is_none() && !incident_ended);
    Ok(PgnVerdict {
        game,
        event,
        verdict,
        declared,
        disagreement,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;
    use arbiter_rules::Termination;

    fn raw(pgn: &str) -> RawGame {
        Reader::new(pgn.as_bytes())
            .next()
            .expect("a game")
            .expect("well-formed")
    }

    /// chess.com's free-text `Termination` values: "won - game abandoned" is a forfeit, "won by
    /// resignation" the players' own result, "won on time" a flag fall.
    #[test]
    fn chess_com_termination_texts_are_read_as_their_event() {
        assert_eq!(
            TerminationTag::of("Carlsen won - game abandoned"),
            TerminationTag::Forfeit
        );
        assert_eq!(
            TerminationTag::of("Carlsen won by resignation"),
            TerminationTag::Other
        );
        assert_eq!(
            TerminationTag::of("Carlsen won on time"),
            TerminationTag::TimeForfeit
        );
    }

    /// The domain verdict of a resignation tag: the event, the rules' termination and article,
    /// the declared result and its source; no disagreement, no warning.
    #[test]
    fn a_resignation_is_a_typed_verdict_with_its_declared_result() {
        let verdict = adjudicate(
            &raw("[Result \"0-1\"]\n\n1. e4 e5 2. Qh5 Nc6 0-1\n"),
            None,
            &AdjudicationSettings::default(),
        )
        .expect("replays");
        assert_eq!(verdict.event, Some(GameEvent::Resignation(Color::White)));
        let outcome = verdict.verdict.outcome.expect("an outcome");
        assert_eq!(
            (outcome.result, outcome.termination, outcome.article),
            (GameResult::BlackWins, Termination::Resignation, "5.1.2")
        );
        assert_eq!(
            verdict.declared,
            Some(DeclaredResult {
                text: "0-1".to_owned(),
                source: ResultSource::ResultTag,
            })
        );
        assert_eq!(verdict.disagreement, None);
        assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
    }

    /// A declared result the rules contradict is a typed disagreement (with the adjudicated
    /// result), and a draw agreed before one move each cites FIDE Laws 5.2.3.
    #[test]
    fn disagreements_are_typed_and_name_their_rule() {
        let settings = AdjudicationSettings::default();
        let mate = adjudicate(
            &raw("[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n"),
            None,
            &settings,
        )
        .expect("replays");
        assert!(matches!(
            &mate.disagreement,
            Some(Disagreement::Result {
                declared: DeclaredResult {
                    source: ResultSource::ResultTag,
                    ..
                },
                adjudicated: Some(GameResult::BlackWins),
                ..
            })
        ));
        assert_eq!(
            mate.disagreement.as_ref().and_then(Disagreement::article),
            None
        );
        let early = adjudicate(
            &raw("[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2\n"),
            None,
            &settings,
        )
        .expect("replays");
        assert_eq!(
            early.disagreement,
            Some(Disagreement::EarlyAgreedDraw {
                declared: Some(DeclaredResult {
                    text: "1/2-1/2".to_owned(),
                    source: ResultSource::ResultTag,
                }),
                ply: 1,
            })
        );
        assert_eq!(
            early.disagreement.as_ref().and_then(Disagreement::article),
            Some("5.2.3")
        );
    }

    /// Warnings are typed, with their codes: a movetext without a termination marker, then a
    /// wrong check suffix at its ply and line.
    #[test]
    fn warnings_are_typed_with_their_codes_plies_and_lines() {
        let verdict = adjudicate(
            &raw("[Result \"*\"]\n\n1. e4+ e5\n"),
            None,
            &AdjudicationSettings::default(),
        )
        .expect("replays");
        let codes: Vec<_> = verdict
            .warnings
            .iter()
            .map(|w| (w.code(), w.ply, w.line))
            .collect();
        assert_eq!(
            codes,
            [
                (WARNING_TRUNCATED_GAME, 0, 3),
                (WARNING_WRONG_CHECK_SUFFIX, 1, 3)
            ]
        );
        assert!(matches!(
            &verdict.warnings[1].kind,
            PgnWarningKind::WrongCheckSuffix {
                written: '+',
                actual: None,
                ..
            }
        ));
    }

    /// Review of issue 11 (B3): a `Result` tag of `½-½` was not read as a draw, so a game with
    /// it lost its agreed draw (and a checkmate against it was no disagreement). The spellings of
    /// other tools declare their result as the PGN ones do.
    #[test]
    fn result_tag_spellings_of_other_tools_declare_their_result() {
        for (text, result) in [
            ("1-0", Some(GameResult::WhiteWins)),
            (" 1-0 ", Some(GameResult::WhiteWins)),
            ("1:0", Some(GameResult::WhiteWins)),
            ("0:1", Some(GameResult::BlackWins)),
            ("\u{bd}-\u{bd}", Some(GameResult::Draw)),
            ("0.5-0.5", Some(GameResult::Draw)),
            ("1/2:1/2", Some(GameResult::Draw)),
            ("*", None),
        ] {
            assert_eq!(read_result(text), Some(result), "{text:?}");
        }
        let verdict = adjudicate(
            &raw("[Result \"\u{bd}-\u{bd}\"]\n\n1. e4 e5 1/2-1/2\n"),
            None,
            &AdjudicationSettings::default(),
        )
        .expect("replays");
        assert_eq!(verdict.event, Some(GameEvent::AgreedDraw));
        assert_eq!(verdict.result(), Some(GameResult::Draw));
        assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
        // Against a checkmate, the draw it declares disagrees.
        let mate = adjudicate(
            &raw("[Result \"\u{bd}-\u{bd}\"]\n\n1. f3 e5 2. g4 Qh4#\n"),
            None,
            &AdjudicationSettings::default(),
        )
        .expect("replays");
        assert!(matches!(
            mate.disagreement,
            Some(Disagreement::Result {
                adjudicated: Some(GameResult::BlackWins),
                ..
            })
        ));
    }

    /// Review of issue 11 (B3): a `Result` tag that is not a result (`draw`, `0.5`) was taken
    /// as no result without a word, and the warnings said "the Result tag was used". It is now
    /// an `unknown_result` warning on the tag's line, and the termination marker declares the
    /// result.
    #[test]
    fn a_result_tag_that_is_no_result_is_warned_and_the_marker_declares() {
        for text in ["draw", "0.5", "1-0 (time)", "white wins"] {
            let pgn = format!("[Event \"E\"]\n[Result \"{text}\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n");
            let verdict =
                adjudicate(&raw(&pgn), None, &AdjudicationSettings::default()).expect("replays");
            assert_eq!(
                verdict.declared,
                Some(DeclaredResult {
                    text: "1-0".to_owned(),
                    source: ResultSource::TerminationMarker,
                }),
                "{text}"
            );
            assert!(
                verdict.disagreement.is_some(),
                "{text}: 1-0 against Black's mate"
            );
            let warned: Vec<_> = verdict
                .warnings
                .iter()
                .map(|w| (w.code(), w.line))
                .collect();
            assert_eq!(warned, [(WARNING_UNKNOWN_RESULT, 2)], "{text}");
            assert!(
                verdict.warnings[0]
                    .to_string()
                    .contains("the termination marker 1-0 was used")
            );
        }
        // Without a marker, nothing is declared, and the warning says so.
        let verdict = adjudicate(
            &raw("[Result \"draw\"]\n\n1. e4 e5\n"),
            None,
            &AdjudicationSettings::default(),
        )
        .expect("replays");
        assert_eq!(verdict.declared, None);
        assert_eq!(verdict.event, None);
        assert!(
            verdict.warnings[0]
                .to_string()
                .contains("no result was declared")
        );
    }
}
