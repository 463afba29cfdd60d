//! Verdicts on PGN games: the one place where a game read from PGN is replayed under the rules,
//! its end-of-game event inferred from its tags, adjudicated, and its `Result` tag compared with
//! the rules. `AdjudicateGame` (field `pgn`), the `AdjudicateGames` stream and
//! `arbiter adjudicate` all go through [`adjudicate_raw`] and [`games_response`], so the three
//! give the same verdicts.
//!
//! ```
//! use arbiter_pgn::Reader;
//! use arbiter_server::adjudicate::{Settings, adjudicate_raw};
//!
//! let pgn = "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n";
//! let raw = Reader::new(pgn.as_bytes()).next().unwrap().unwrap();
//! let verdict = adjudicate_raw(&raw, None, &Settings::default()).unwrap();
//! // Black's flag fell, and White can still mate: White wins (FIDE Laws 6.9).
//! let outcome = verdict.response.outcome.as_ref().unwrap();
//! assert_eq!(outcome.result_text, "1-0");
//! assert_eq!(outcome.fide_article, "6.9");
//! assert!(!verdict.response.disagreement);
//! ```

use std::io::BufRead;

use arbiter_pgn::{ErrorKind, PgnError, RawGame, Reader, ReaderLimits, ReplayOptions};
use arbiter_proto::{
    convert::{self, ConvertError, ErrorReason, Notation},
    v1,
};
use arbiter_rules::{AdjudicationRequest, AnalysisBudget, Color, Game, GameEvent, GameResult};

/// The `GameError.reason` of PGN text that cannot be read (syntax, unsupported variant).
pub const INVALID_PGN: &str = ErrorReason::InvalidPgn.as_str();

/// How games are adjudicated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Apply a draw claim valid at the end of the game (threefold repetition, fifty-move rule).
    pub claim_draw: bool,
    /// How much analysis dead positions and "can the opponent still mate?" may use.
    pub analysis: AnalysisBudget,
    /// Most plies of one game.
    pub max_moves: usize,
    /// Most bytes of one game's PGN text.
    pub max_game_bytes: usize,
    /// The SAN language of the verdicts' moves and the castling notation of their Chess960
    /// FENs. The movetext is read with English letters, as the PGN standard says.
    pub notation: Notation,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            claim_draw: false,
            analysis: AnalysisBudget::Full,
            max_moves: arbiter_pgn::DEFAULT_MAX_PLIES as usize,
            max_game_bytes: arbiter_pgn::DEFAULT_MAX_GAME_BYTES as usize,
            notation: Notation::default(),
        }
    }
}

impl Settings {
    /// The PGN reader limits these settings imply.
    #[must_use]
    pub fn reader_limits(&self) -> ReaderLimits {
        ReaderLimits {
            max_game_bytes: self.max_game_bytes.max(1),
            max_plies: self.max_moves,
            ..ReaderLimits::default()
        }
    }
}

/// A game adjudicated from PGN.
#[derive(Debug, Clone)]
pub struct PgnVerdict {
    /// The game as replayed under the rules.
    pub game: Game,
    /// The event used: the caller's, or the one inferred from the tags.
    pub event: Option<GameEvent>,
    /// The adjudicated result; `None` while the game is going on.
    pub result: Option<GameResult>,
    /// The verdict as `AdjudicateGame` answers it.
    pub response: v1::AdjudicateGameResponse,
}

/// Replays the main line of `raw` under the rules, from the start position of its `FEN` and
/// `Variant` tags, with dead position analysis along the game within `budget` (as
/// `AdjudicateGame` does for `game` input). SAN is read tolerantly, UCI is accepted.
///
/// # Errors
/// The first problem, at its line and column: a bad `FEN` or `Variant` tag, a null move, an
/// illegal move (with its ply, text and the rules' reason).
pub fn replay(raw: &RawGame, budget: AnalysisBudget) -> Result<Game, PgnError> {
    replay_noting(raw, budget, |_| {})
}

/// As [`replay`], handing each `wrong_check_suffix` warning to `warn` (see
/// [`check_suffix_warning`]).
///
/// # Errors
/// As [`replay`].
pub fn replay_noting(
    raw: &RawGame,
    budget: AnalysisBudget,
    mut warn: impl FnMut(v1::Warning),
) -> Result<Game, PgnError> {
    let (_, start) = arbiter_pgn::start_position(raw, &ReplayOptions::default())?;
    let mut game = Game::with_dead_position_analysis(start, budget);
    game.reserve(raw.moves.len());
    // A suffixed move that gives check: whether it mates is known when a next move is played
    // (then it does not), else at the end, so a legal move is not searched for at every check.
    let mut open_check: Option<WrittenSuffix> = None;
    for token in &raw.moves {
        let error = |kind| PgnError {
            line: token.line,
            column: token.column,
            game: raw.index,
            kind,
        };
        let ply = token.ply as usize;
        if token.null {
            return Err(error(ErrorKind::NullMove {
                ply,
                text: token.text.to_string(),
            }));
        }
        // Moves listed after checkmate or stalemate count as played after the end. (The text
        // is taken once: each `MoveText` deref checks its bytes again.)
        let text = token.text.as_str();
        let parsed = game.position().parse_move(text);
        match game.record(parsed) {
            Ok(Some(_)) => {
                // The move before was a check, and this move proves it was not mate.
                if let Some(warning) = open_check.take().and_then(|check| check.warning(Some('+')))
                {
                    warn(warning);
                }
                if let Some(suffix) = WrittenSuffix::of(text, token.ply, token.line) {
                    if game.position().is_check() {
                        open_check = Some(suffix);
                    } else if let Some(warning) = suffix.warning(None) {
                        warn(warning);
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                return Err(error(ErrorKind::Move {
                    ply,
                    text: token.text.to_string(),
                    error: e,
                }));
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
    Ok(game)
}

/// The `wrong_check_suffix` warning of the move written `text` at 1-based `ply` (`line`: its
/// 1-based line in PGN input, 0 for a game's list of moves; `after`: the position it leads to)
/// when its `+` or `#` is not borne out by `after`: `+` or `#` on a move that gives no check,
/// `#` on a check that is not mate, `+` on a checkmate. The tolerant SAN reader
/// (`Position::parse_move`: the plain form and the tolerant form both drop the suffix) accepts
/// such a move; a missing suffix is not warned about (PGN import format may leave it out).
#[must_use]
pub fn check_suffix_warning(
    after: &arbiter_rules::Position,
    text: &str,
    ply: u32,
    line: u32,
) -> Option<v1::Warning> {
    let suffix = WrittenSuffix::of(text, ply, line)?;
    let actual = if !after.is_check() {
        None
    } else if after.has_legal_move() {
        Some('+')
    } else {
        Some('#')
    };
    suffix.warning(actual)
}

/// A move's `+` or `#` as written, with the move (its text without `!`/`?` marks, ply, line).
#[derive(Clone, Copy)]
struct WrittenSuffix<'a> {
    text: &'a str,
    written: char,
    ply: u32,
    line: u32,
}

impl<'a> WrittenSuffix<'a> {
    /// The suffix of the move written `text`, `None` when it has none.
    #[inline(always)]
    fn of(text: &'a str, ply: u32, line: u32) -> Option<WrittenSuffix<'a>> {
        // Most moves end with a square or a piece letter: no suffix, nothing to trim, no call.
        if !matches!(
            text.as_bytes().last(),
            Some(b'+' | b'#' | b'!' | b'?' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
            return None;
        }
        WrittenSuffix::trimmed(text, ply, line)
    }

    /// [`WrittenSuffix::of`] for a text that ends with a mark, a sign or white space.
    #[inline(never)]
    fn trimmed(text: &'a str, ply: u32, line: u32) -> Option<WrittenSuffix<'a>> {
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
        })
    }

    /// The warning when the suffix differs from `actual` (`None`: no check, `'+'`: check,
    /// `'#'`: checkmate).
    fn warning(self, actual: Option<char>) -> Option<v1::Warning> {
        let WrittenSuffix {
            text,
            written,
            ply,
            line,
        } = self;
        if actual == Some(written) {
            return None;
        }
        let (what, should) = match actual {
            None => ("gives no check", "no suffix".to_owned()),
            Some('+') => ("gives check but not checkmate", "'+'".to_owned()),
            Some(_) => ("checkmates", "'#'".to_owned()),
        };
        Some(v1::Warning {
            code: WARNING_WRONG_CHECK_SUFFIX.to_owned(),
            ply,
            line,
            message: format!(
                "ply {ply} ({text}): the move {what}, so it should have {should}, not '{written}'; the move was read without it"
            ),
        })
    }
}

/// The `wrong_check_suffix` warnings of a game given as a list of moves (`texts`, as sent;
/// `game`: the game they were read into, whose moves are the first of them): see
/// [`check_suffix_warning`]. Moves recorded after the end are not read, so not warned about.
#[must_use]
pub fn check_suffix_warnings(game: &arbiter_rules::Game, texts: &[String]) -> Vec<v1::Warning> {
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

/// `Warning.code`: a move with a wrong `+`/`#` suffix.
pub const WARNING_WRONG_CHECK_SUFFIX: &str = "wrong_check_suffix";
/// `Warning.code`: a game without a termination marker.
pub const WARNING_TRUNCATED_GAME: &str = "truncated_game";
/// `Warning.code`: a `Result` tag that differs from the termination marker.
pub const WARNING_RESULT_MISMATCH: &str = "result_mismatch";

/// The warnings about the declared result of `raw` (PGN standard 8.2.6): a movetext without a
/// termination marker (`truncated_game`), a `Result` tag that differs from the marker
/// (`result_mismatch`). Each says which value was used.
#[must_use]
pub fn result_warnings(raw: &RawGame) -> Vec<v1::Warning> {
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
    match (tag, raw.result.as_deref()) {
        (tag, None) => vec![v1::Warning {
            code: WARNING_TRUNCATED_GAME.to_owned(),
            ply: 0,
            line: last_line,
            message: match tag {
                Some(tag) => format!(
                    "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated: the Result tag {tag} was used"
                ),
                None => "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated, and there is no Result tag: no result was declared".to_owned(),
            },
        }],
        (Some(tag), Some(marker)) if tag != marker.trim() => vec![v1::Warning {
            code: WARNING_RESULT_MISMATCH.to_owned(),
            ply: 0,
            line: tag_line,
            message: format!(
                "the Result tag says {tag} but the movetext ends with {marker} (PGN standard 8.2.6 says they agree): the Result tag was used"
            ),
        }],
        _ => Vec::new(),
    }
}

/// The side that lost by a decisive PGN result.
fn loser(result: &str) -> Option<Color> {
    match result {
        "1-0" => Some(Color::Black),
        "0-1" => Some(Color::White),
        _ => None,
    }
}

/// The end-of-game event the `Result` and `Termination` tags imply for `game`, and whether a
/// draw claim explains the result (see the documentation of `AdjudicateGameRequest.pgn`):
/// `(event, claim_draw)`.
#[must_use]
pub fn infer_event(raw: &RawGame, game: &Game) -> (Option<GameEvent>, bool) {
    if game.outcome().is_some() {
        return (None, false);
    }
    let result = declared_result(raw).map_or("*", |(result, _)| result.trim());
    match TerminationTag::of(raw.tag("Termination").unwrap_or("")) {
        TerminationTag::Unterminated => (None, false),
        TerminationTag::TimeForfeit => match (loser(result), result) {
            (Some(side), _) => (Some(GameEvent::FlagFall(side)), false),
            (None, "1/2-1/2") => (
                Some(GameEvent::FlagFall(game.position().side_to_move())),
                false,
            ),
            _ => (None, false),
        },
        TerminationTag::Forfeit => match (loser(result), result) {
            (Some(side), _) => (Some(GameEvent::Forfeit(side)), false),
            (None, "1/2-1/2") => draw_event(game),
            _ => (None, false),
        },
        _ => match (loser(result), result) {
            (Some(side), _) => (Some(GameEvent::Resignation(side)), false),
            (None, "1/2-1/2") => draw_event(game),
            _ => (None, false),
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

/// The wire form of an event.
#[must_use]
pub fn event_to_wire(event: GameEvent) -> v1::GameEvent {
    let (kind, side) = match event {
        GameEvent::FlagFall(side) => (v1::GameEventKind::FlagFall, Some(side)),
        GameEvent::Resignation(side) => (v1::GameEventKind::Resignation, Some(side)),
        GameEvent::SecondIllegalMove(side) => (v1::GameEventKind::SecondIllegalMove, Some(side)),
        GameEvent::AgreedDraw => (v1::GameEventKind::AgreedDraw, None),
        GameEvent::Forfeit(side) => (v1::GameEventKind::Forfeit, Some(side)),
    };
    v1::GameEvent {
        kind: kind.into(),
        side: side
            .map_or(v1::Color::Unspecified, convert::color_to_wire)
            .into(),
    }
}

fn result_from_wire(outcome: &v1::Outcome) -> Option<GameResult> {
    match v1::Result::try_from(outcome.result) {
        Ok(v1::Result::WhiteWins) => Some(GameResult::WhiteWins),
        Ok(v1::Result::BlackWins) => Some(GameResult::BlackWins),
        Ok(v1::Result::Draw) => Some(GameResult::Draw),
        _ => None,
    }
}

/// The result a PGN game declares, and where it says so: the `Result` tag, or the movetext's
/// termination marker when the tag is missing (PGN standard 8.2.6: the two must agree; the
/// `result_mismatch` warning says when they do not). The one source of the declared result, for
/// the event inferred and for the comparison with the verdict.
#[must_use]
pub fn declared_result(raw: &RawGame) -> Option<(&str, &'static str)> {
    raw.tag("Result")
        .filter(|tag| !tag.trim().is_empty())
        .map(|tag| (tag, "the Result tag"))
        .or_else(|| {
            raw.result
                .as_deref()
                .map(|marker| (marker, "the termination marker"))
        })
}

/// Why a declared PGN result contradicts the adjudicated outcome, if it does; `source` says
/// where the result is declared ("the Result tag"). Only "1-0", "0-1" and "1/2-1/2" are
/// compared ("*" and other text claim nothing).
#[must_use]
pub fn disagreement(
    declared: &str,
    source: &str,
    outcome: &v1::Outcome,
    explanation: &str,
) -> Option<String> {
    let declared = declared.trim();
    if !matches!(declared, "1-0" | "0-1" | "1/2-1/2") || declared == outcome.result_text {
        return None;
    }
    if result_from_wire(outcome).is_none() {
        return Some(format!(
            "{source} says {declared}, but the rules do not end the game: {explanation}"
        ));
    }
    Some(format!(
        "{source} says {declared}, but the rules say {}: {explanation}",
        outcome.result_text
    ))
}

/// Replays and adjudicates one PGN game. `event` is the caller's event; `None` infers it from
/// the tags ([`infer_event`]).
///
/// # Errors
/// As [`replay`].
pub fn adjudicate_raw(
    raw: &RawGame,
    event: Option<GameEvent>,
    settings: &Settings,
) -> Result<PgnVerdict, PgnError> {
    let mut move_warnings = Vec::new();
    let game = replay_noting(raw, settings.analysis, |w| move_warnings.push(w))?;
    let (event, inferred_claim) = match event {
        Some(event) => (Some(event), false),
        None => infer_event(raw, &game),
    };
    let request = AdjudicationRequest {
        event,
        claim_draw: settings.claim_draw || inferred_claim,
        budget: settings.analysis,
    };
    let mut response = convert::adjudicate_with(&game, &request, settings.notation);
    let outcome = response.outcome.clone().unwrap_or_default();
    // The Result tag, or the movetext's termination marker when the tag is missing.
    let (declared, source) = declared_result(raw).unwrap_or(("", "the Result tag"));
    let declared = declared.to_owned();
    if let Some(reason) = disagreement(&declared, source, &outcome, &response.explanation) {
        response.disagreement = true;
        response.disagreement_reason = reason;
    }
    // A draw agreed before one move each keeps its result but is not a draw FIDE Laws 5.2.3
    // allows: a disagreement, unless the tag already disagrees.
    let early = response
        .warnings
        .iter()
        .position(|w| w.code == arbiter_rules::WarningCode::EarlyAgreedDraw.as_str());
    if let Some(i) = early
        && !response.disagreement
    {
        response.disagreement = true;
        let rule = format!(
            "a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply {}",
            response.warnings[i].ply
        );
        response.disagreement_reason = match declared.trim() {
            "" | "*" => rule,
            tag => format!("{source} says {tag}, but {rule}"),
        };
    }
    response.declared_result = declared;
    // The warnings: the reader's, the declared result's, the moves', then the verdict's (with
    // the line of their move).
    // A verdict warning at ply 0 (an agreed draw before any move) is about the declared result:
    // the line of the Result tag, else of the termination marker, else of the game's start.
    let result_line = raw
        .tag_index("Result")
        .and_then(|i| raw.tag_lines.get(i).copied())
        .or((raw.result_line > 0).then_some(raw.result_line))
        .unwrap_or(raw.line);
    let line_of_ply = |ply: u32| {
        if ply == 0 {
            return result_line;
        }
        raw.moves
            .iter()
            .find(|m| m.ply == ply)
            .map_or(0, |m| m.line)
    };
    let verdict_warnings = std::mem::take(&mut response.warnings);
    response.warnings = raw
        .warnings
        .iter()
        .map(|w| v1::Warning {
            code: w.kind.code().to_owned(),
            ply: w.ply,
            line: w.line,
            message: w.kind.to_string(),
        })
        .chain(result_warnings(raw))
        .chain(move_warnings)
        .chain(verdict_warnings.into_iter().map(|mut w| {
            if w.line == 0 {
                w.line = line_of_ply(w.ply);
            }
            w
        }))
        .collect();
    convert::bound_warnings(&mut response);
    // The event only counts when the rules did not end the game first.
    response.event = event
        .filter(|_| game.outcome().is_none())
        .map(event_to_wire);
    Ok(PgnVerdict {
        event,
        result: result_from_wire(&outcome),
        game,
        response,
    })
}

/// The reason of a PGN error (the one mapping of PGN error kinds to reasons).
fn error_reason_kind(error: &PgnError) -> ErrorReason {
    match &error.kind {
        ErrorKind::Move { .. } | ErrorKind::NullMove { .. } => ErrorReason::IllegalMove,
        ErrorKind::Fen(_) | ErrorKind::MissingFen { .. } => ErrorReason::InvalidPosition,
        ErrorKind::Limit { .. } => ErrorReason::LimitExceeded,
        _ => ErrorReason::InvalidPgn,
    }
}

/// The reason name of a PGN error for `GameError.reason` and ErrorInfo.
#[must_use]
pub fn error_reason(error: &PgnError) -> &'static str {
    error_reason_kind(error).as_str()
}

/// The ply and move text of a move error.
fn error_move(error: &PgnError) -> Option<(usize, &str)> {
    match &error.kind {
        ErrorKind::Move { ply, text, .. } | ErrorKind::NullMove { ply, text } => {
            Some((*ply, text.as_str()))
        }
        _ => None,
    }
}

/// The in-band wire form of a PGN error on `field`.
#[must_use]
pub fn pgn_error_to_wire(error: &PgnError, field: &str) -> v1::GameError {
    let (ply, text) = error_move(error).unwrap_or((0, ""));
    v1::GameError {
        field: field.to_owned(),
        reason: error_reason(error).to_owned(),
        description: error.to_string(),
        line: error.line,
        column: error.column,
        ply: u32::try_from(ply).unwrap_or(u32::MAX),
        r#move: text.to_owned(),
    }
}

/// The in-band wire form of a request conversion error.
#[must_use]
pub fn convert_error_to_wire(error: &ConvertError) -> v1::GameError {
    v1::GameError {
        field: error.field.clone(),
        reason: error.kind.as_str().to_owned(),
        description: error.reason.clone(),
        line: 0,
        column: 0,
        ply: error
            .metadata_value("ply")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0),
        r#move: error.metadata_value("move").unwrap_or_default().to_owned(),
    }
}

/// The INVALID_ARGUMENT error of the unary RPC for a PGN error on `field`: the description has
/// line:column (and the ply and move), the ErrorInfo metadata "line", "column", "ply", "move".
#[must_use]
pub fn pgn_error_to_convert(error: &PgnError, field: &str) -> ConvertError {
    let mut converted = ConvertError::new(field, error_reason_kind(error), error.to_string())
        .with_metadata("line", error.line.to_string())
        .with_metadata("column", error.column.to_string());
    if let Some((ply, text)) = error_move(error) {
        converted = converted
            .with_metadata("ply", ply.to_string())
            .with_metadata("move", text);
    }
    if let ErrorKind::Move { error, .. } = &error.kind
        && let Some(illegality) = error.illegality()
    {
        converted = converted.with_metadata("cause", illegality.cause());
        if let Some(article) = illegality.article() {
            converted = converted.with_metadata("article", article);
        }
    }
    converted
}

/// The identifying tags of a game.
#[must_use]
pub fn tags_to_wire(raw: &RawGame) -> v1::PgnTags {
    let tag = |name| raw.tag(name).unwrap_or("").to_owned();
    v1::PgnTags {
        event: tag("Event"),
        site: tag("Site"),
        date: tag("Date"),
        round: tag("Round"),
        white: tag("White"),
        black: tag("Black"),
    }
}

/// Where a game of a PGN input stands in a stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Place {
    /// The 0-based number of the game in the whole stream.
    pub index: usize,
    /// The 0-based number of the request message (0 for a file).
    pub request_index: usize,
    /// The 0-based number of the game in its request message or file.
    pub game_index: usize,
}

/// The response of the stream (and the record of `arbiter adjudicate`) for one game read from
/// PGN: `read` is what reading gave, `verdict` the adjudication when it was read.
#[must_use]
pub fn games_response(
    at: Place,
    raw: &RawGame,
    read: Result<(), &PgnError>,
    verdict: Option<&Result<PgnVerdict, PgnError>>,
) -> v1::AdjudicateGamesResponse {
    let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut response = v1::AdjudicateGamesResponse {
        index: u32_of(at.index),
        request_index: u32_of(at.request_index),
        game_index: u32_of(at.game_index),
        ..v1::AdjudicateGamesResponse::default()
    };
    match (read, verdict) {
        (Err(error), _) => {
            // The game's identity whatever the error: where it starts and its tags (the reader
            // keeps the tags it read before the error). Only an I/O error before any game has
            // neither; its line is the error's.
            response.line = if raw.line == 0 { error.line } else { raw.line };
            if raw.line != 0 {
                response.tags = Some(tags_to_wire(raw));
            }
            response.result = Some(v1::adjudicate_games_response::Result::Error(
                pgn_error_to_wire(error, "pgn"),
            ));
        }
        (Ok(()), verdict) => {
            response.line = raw.line;
            response.tags = Some(tags_to_wire(raw));
            response.result = match verdict {
                Some(Ok(verdict)) => Some(v1::adjudicate_games_response::Result::Verdict(
                    verdict.response.clone(),
                )),
                Some(Err(error)) => Some(v1::adjudicate_games_response::Result::Error(
                    pgn_error_to_wire(error, "pgn"),
                )),
                None => None,
            };
        }
    }
    response
}

/// One game of a PGN input, read and (when readable) adjudicated.
#[derive(Debug)]
pub struct Item<'a> {
    /// The game's place in the input.
    pub at: Place,
    /// The game as read (partial or empty after a read error).
    pub raw: &'a RawGame,
    /// The read error, if the text is not a game.
    pub read_error: Option<PgnError>,
    /// The adjudication, when the game was read.
    pub verdict: Option<Result<PgnVerdict, PgnError>>,
}

impl Item<'_> {
    /// The stream response for this game.
    #[must_use]
    pub fn response(&self) -> v1::AdjudicateGamesResponse {
        let read = self.read_error.as_ref().map_or(Ok(()), Err);
        games_response(self.at, self.raw, read, self.verdict.as_ref())
    }
}

/// A game of a PGN input as read, before adjudication (owned, so it can move to a worker).
#[derive(Debug)]
pub struct ReadGame {
    /// The game's place in the input.
    pub at: Place,
    /// The game as read (partial or empty after a read error).
    pub raw: RawGame,
    /// The read error, if the text is not a game.
    pub read_error: Option<PgnError>,
}

impl ReadGame {
    /// Adjudicates the game when it was read: the item consumers receive.
    #[must_use]
    pub fn adjudicate(&self, settings: &Settings) -> Item<'_> {
        Item {
            at: self.at,
            raw: &self.raw,
            read_error: self.read_error.clone(),
            verdict: self
                .read_error
                .is_none()
                .then(|| adjudicate_raw(&self.raw, None, settings)),
        }
    }

    /// True when reading failed on I/O: the input ends after this game.
    #[must_use]
    pub fn ends_input(&self) -> bool {
        matches!(
            self.read_error,
            Some(PgnError {
                kind: ErrorKind::Io(_),
                ..
            })
        )
    }
}

/// Reads the games of `input` one at a time (bounded by the settings' reader limits), numbering
/// them from `first`; ends at the end of the input or after an I/O error.
pub fn read_games<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
) -> impl Iterator<Item = ReadGame> {
    read_games_into(input, settings, first, RawGame::default)
}

/// Like [`read_games`], reading each game into a `RawGame` that `buffer` gives: a consumer that
/// hands back the games it is done with saves their allocations (moves, tags).
pub fn read_games_into<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
    mut buffer: impl FnMut() -> RawGame,
) -> impl Iterator<Item = ReadGame> {
    let mut reader = Reader::with_limits(input, settings.reader_limits());
    let mut count = 0;
    let mut ended = false;
    std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let at = Place {
            index: first.index + count,
            request_index: first.request_index,
            game_index: count,
        };
        let mut raw = buffer();
        let read_error = match reader.read_game(&mut raw) {
            Ok(false) => return None,
            Ok(true) => None,
            Err(error) => Some(error),
        };
        count += 1;
        let game = ReadGame {
            at,
            raw,
            read_error,
        };
        ended = game.ends_input();
        Some(game)
    })
}

/// Reads every game of `input` (bounded by the settings' reader limits, one game in memory at a
/// time), adjudicates it and hands it to `each`, in input order; `each` returns `false` to stop.
/// `first` numbers the games of the stream (`index = first.index + game_index`). Returns the
/// number of games handed over. An I/O error ends the input after it was handed over.
pub fn for_each_game<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
    mut each: impl FnMut(Item<'_>) -> bool,
) -> usize {
    let mut count = 0;
    // Each game is read into the previous one's buffers (moves, tags), not into new ones.
    let spare = std::cell::Cell::new(RawGame::default());
    for game in read_games_into(input, settings, first, || spare.take()) {
        count += 1;
        let go_on = each(game.adjudicate(settings));
        spare.set(game.raw);
        if !go_on {
            break;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(pgn: &str) -> RawGame {
        Reader::new(pgn.as_bytes())
            .next()
            .expect("a game")
            .expect("well-formed")
    }

    fn verdict(pgn: &str, event: Option<GameEvent>) -> v1::AdjudicateGameResponse {
        adjudicate_raw(&raw(pgn), event, &Settings::default())
            .expect("replays")
            .response
    }

    /// FIDE 6.9: Black's flag fell, but White has only a king: drawn, and a "1-0" tag disagrees.
    #[test]
    fn flag_fall_with_a_lone_king_winner_is_a_draw() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n[FEN \"4k3/8/8/8/8/8/4p3/K7 w - - 0 1\"]\n\n1. Kb1 Kd7 1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1/2-1/2", "6.9")
        );
        assert_eq!(v.event.map(|e| e.kind()), Some(v1::GameEventKind::FlagFall));
        assert!(
            v.explanation.contains("White cannot checkmate"),
            "{}",
            v.explanation
        );
        assert!(v.disagreement);
        assert!(
            v.disagreement_reason
                .starts_with("the Result tag says 1-0, but the rules say 1/2-1/2")
        );
    }

    /// FIDE 6.9: chess.com writes time losses as free text; they are flag falls, not
    /// resignations, and a drawn one is the flag of the side to move against a side that cannot
    /// mate.
    #[test]
    fn chess_com_time_losses_are_flag_falls() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"MagnusCarlsen won on time\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "6.9")
        );
        assert_eq!(v.event.map(|e| e.kind()), Some(v1::GameEventKind::FlagFall));
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::Black));
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[Termination \"Game drawn by timeout vs insufficient material\"]\n[FEN \"4k3/8/8/8/8/8/3QK3/8 b - - 0 1\"]\n\n1... Kf7 2. Qd5+ 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        // Black (to move) lost on time, but White has a queen: White wins, and the tag disagrees.
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "6.9")
        );
        assert!(v.disagreement);
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[Termination \"Game drawn by timeout vs insufficient material\"]\n[FEN \"4k3/8/8/8/8/8/r7/4K3 b - - 0 1\"]\n\n1... Kf7 2. Kd1 1/2-1/2",
            None,
        );
        // Black (to move) lost on time against a lone king: drawn.
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1/2-1/2", "6.9")
        );
        assert!(!v.disagreement);
        assert_eq!(
            TerminationTag::of("Carlsen won - game abandoned"),
            TerminationTag::Forfeit
        );
        assert_eq!(
            TerminationTag::of("Carlsen won by resignation"),
            TerminationTag::Other
        );
    }

    /// FIDE 5.1.1, 5.2.1: moves a score sheet lists after checkmate or stalemate cannot be
    /// played; the game is reported with its ending and the moves as played after the end.
    #[test]
    fn moves_after_checkmate_or_stalemate_are_counted_not_refused() {
        let v = verdict("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 3. a3 a6 0-1", None);
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("0-1", "5.1.1", 4)
        );
        assert_eq!((v.ply_count, v.plies_after_end), (6, 2));
        assert!(
            v.explanation
                .ends_with("; 2 plies were played after the end of the game"),
            "{}",
            v.explanation
        );
        assert!(!v.disagreement);
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n\n1. Qf7 Kh7 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.1", 1)
        );
        assert_eq!((v.ply_count, v.plies_after_end), (2, 1));
        // Before the end, a move that cannot be played is still an error.
        let error = adjudicate_raw(
            &raw("[Result \"*\"]\n\n1. f3 e5 2. g4 Qh5 3. a3 *"),
            None,
            &Settings::default(),
        );
        assert!(error.is_err());
    }

    /// FIDE 5.1.2: a decisive result with a "Normal" termination is the loser's resignation.
    #[test]
    fn resignation_is_a_loss() {
        let v = verdict(
            "[Result \"0-1\"]\n[Termination \"Normal\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("0-1", "5.1.2")
        );
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::White));
        assert!(!v.disagreement);
        assert_eq!(v.declared_result, "0-1");
    }

    /// FIDE 7.5.5: a second illegal move (given by the caller) loses; the tag agrees.
    #[test]
    fn second_illegal_move_loses() {
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 1-0",
            Some(GameEvent::SecondIllegalMove(Color::Black)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "7.5.5")
        );
        assert!(!v.disagreement);
    }

    /// A draw the rules do not explain is an agreement; stalemate beats a "1-0" tag.
    #[test]
    fn draws_and_stalemate() {
        let v = verdict("[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2", None);
        assert_eq!(v.outcome.expect("outcome").fide_article, "5.2.3");
        let v = verdict(
            "[Result \"1-0\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]\n\n1. Qf7 1-0",
            None,
        );
        assert_eq!(v.outcome.expect("outcome").fide_article, "5.2.1");
        assert!(v.disagreement);
        assert!(v.event.is_none());
    }

    /// FIDE 9.6.2 with 6.9 (issue 11): Black's only move Kg8 is the 150th half-move without a
    /// capture or pawn move, so the game would end drawn there and White cannot checkmate; a
    /// "1-0" tag for Black's flag fall disagrees with the draw.
    #[test]
    fn pgn_flag_fall_cannot_mate_through_75_move_rule() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n[FEN \"7k/8/2R3K1/8/8/8/8/8 b - - 149 100\"]\n\n1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "6.9", 0)
        );
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::Black));
        assert!(v.evidence.is_empty());
        assert!(v.explanation.contains("9.6.2"), "{}", v.explanation);
        assert!(v.explanation.contains("ply 1"), "{}", v.explanation);
        assert!(v.disagreement);
    }

    /// FIDE 5.2.2 (issue 11): after Qf6+ White's only reply Nxf6 stalemates Black, so the
    /// position is dead at ply 1; the recorded Nxf6 is a ply played after the end, and the
    /// "0-1" of a flag fall the tag implies changes nothing.
    #[test]
    fn pgn_forced_stalemate_is_a_dead_position_at_its_ply() {
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"4NK1k/8/8/1P6/8/2q5/8/8 b - - 0 1\"]\n\n1... Qf6+ 2. Nxf6 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.2", 1)
        );
        assert_eq!(v.plies_after_end, 1);
        let v = verdict(
            "[Result \"0-1\"]\n[FEN \"4NK1k/8/8/1P6/8/2q5/8/8 b - - 0 1\"]\n\n1... Qf6+ 0-1",
            Some(GameEvent::FlagFall(Color::White)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.2", 1)
        );
        assert!(v.disagreement);
    }

    /// Chess960 (issue 11, chess960-chesscom-daily-2011-2013.pgn game 193): the analyzer's mating
    /// line starts with White's O-O-O, written e1c1 by the analyzer and e1a1 by arbiter; the
    /// resignation is a loss with that line as evidence, not "undetermined" (FIDE 5.1.2).
    #[test]
    fn pgn_chess960_resignation_evidence_starts_with_analyzer_castling() {
        let v = verdict(
            "[Result \"0-1\"]\n[Variant \"Chess960\"]\n[FEN \"rq1n4/7p/1p1p1k1b/1BpQpp2/2P5/5P2/PP1P1BrP/R3K2R w KQ - 2 17\"]\n\n0-1",
            Some(GameEvent::Resignation(Color::White)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("0-1", "5.1.2")
        );
        assert!(!v.undetermined, "{}", v.explanation);
        let first = &v.evidence[0];
        assert_eq!((first.san.as_str(), first.uci.as_str()), ("O-O-O", "e1a1"));
        assert_eq!(v.evidence.last().map(|m| m.san.as_str()), Some("Nc3#"));
    }

    fn warnings(v: &v1::AdjudicateGameResponse) -> Vec<(&str, u32, u32)> {
        v.warnings
            .iter()
            .map(|w| (w.code.as_str(), w.ply, w.line))
            .collect()
    }

    /// FIDE 5.2.3 (issue 11 item 5): a draw agreed after White's first move only keeps its
    /// result, but disagrees citing 5.2.3, with a warning at the ply of the agreement.
    #[test]
    fn pgn_agreed_draw_before_one_move_each_disagrees_citing_5_2_3() {
        let v = verdict("[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2", None);
        let o = v.outcome.as_ref().expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.3", 1)
        );
        assert!(v.disagreement);
        assert_eq!(
            v.disagreement_reason,
            "the Result tag says 1/2-1/2, but a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply 1"
        );
        assert_eq!(warnings(&v), [("early_agreed_draw", 1, 3)]);
        assert_eq!(v.laws, "FIDE Laws of Chess, 2023");
        // No move at all, and a start position past move 1 (no warning).
        // Issue 11, a fresh user's finding: its line was 0; it is the Result tag's.
        let v = verdict("[Result \"1/2-1/2\"]\n\n1/2-1/2", None);
        assert_eq!(warnings(&v), [("early_agreed_draw", 0, 1)]);
        assert!(v.disagreement);
        // The caller's agreed draw on a record without a result: the rule alone.
        let v = verdict("1. e4 *", Some(GameEvent::AgreedDraw));
        assert_eq!(
            v.disagreement_reason,
            "a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply 1"
        );
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"]\n\n1/2-1/2",
            None,
        );
        assert!(warnings(&v).is_empty(), "{:?}", v.warnings);
        assert!(!v.disagreement);
    }

    /// Issue 11, a fresh user's finding: without a `Result` tag, a movetext ending `0-1` was
    /// the declared result but inferred no event (`*`, "the Result tag says 0-1" though there
    /// is none). The marker declares the result when the tag is missing: a resignation (5.1.2),
    /// and a disagreement names the marker.
    #[test]
    fn the_termination_marker_declares_the_result_when_the_tag_is_missing() {
        let v = verdict("[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n", None);
        let outcome = v.outcome.as_ref().expect("ended");
        assert_eq!(outcome.result_text, "0-1", "{}", v.explanation);
        assert_eq!(outcome.termination(), v1::Termination::Resignation);
        assert_eq!(outcome.fide_article, "5.1.2");
        assert!(!v.disagreement, "{}", v.disagreement_reason);
        assert_eq!(v.declared_result, "0-1");
        let v = verdict("[Event \"x\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n", None);
        assert!(v.disagreement);
        assert!(
            v.disagreement_reason
                .starts_with("the termination marker says 1-0, but the rules say 0-1"),
            "{}",
            v.disagreement_reason
        );
        // An empty Result tag (a fresh user's finding: "the Result tag says  but ...") is
        // missing: the marker declares, and no mismatch is warned.
        let v = verdict("[Result \"\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n", None);
        assert_eq!(v.declared_result, "0-1");
        assert!(!v.disagreement, "{}", v.disagreement_reason);
        assert!(warnings(&v).is_empty(), "{:?}", v.warnings);
    }

    /// PGN standard 8.2.6 (issue 11 item 5): a movetext without a termination marker may be
    /// truncated, and a Result tag that contradicts the marker is used; each warning says which
    /// value was used.
    #[test]
    fn pgn_truncated_game_and_result_tag_against_marker_say_which_value_was_used() {
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5\n2. Qh5 Nc6\n", None);
        assert_eq!(warnings(&v), [("truncated_game", 0, 4)]);
        assert_eq!(
            v.warnings[0].message,
            "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated: the Result tag 1-0 was used"
        );
        assert_eq!(v.declared_result, "1-0");
        let v = verdict(
            "[Event \"E\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 0-1",
            None,
        );
        assert_eq!(warnings(&v), [("result_mismatch", 0, 2)]);
        assert_eq!(
            v.warnings[0].message,
            "the Result tag says 1-0 but the movetext ends with 0-1 (PGN standard 8.2.6 says they agree): the Result tag was used"
        );
        assert_eq!(v.declared_result, "1-0");
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0", None);
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// The tolerant SAN reader drops `+`/`#` (issue 11 item 5): a suffix the position does not
    /// bear out is a warning at the move's ply and line.
    #[test]
    fn pgn_wrong_check_suffix_is_warned_at_its_ply_and_line() {
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4+ e5 2. Bc4 Nc6\n3. Qh5# Nf6 4. Qxf7+ 1-0",
            None,
        );
        assert_eq!(v.outcome.as_ref().expect("outcome").fide_article, "5.1.1");
        assert_eq!(
            warnings(&v),
            [
                ("wrong_check_suffix", 1, 3),
                ("wrong_check_suffix", 5, 4),
                ("wrong_check_suffix", 7, 4)
            ]
        );
        assert_eq!(
            v.warnings[0].message,
            "ply 1 (e4+): the move gives no check, so it should have no suffix, not '+'; the move was read without it"
        );
        assert!(
            v.warnings[2]
                .message
                .contains("checkmates, so it should have '#'")
        );
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#! 1-0",
            None,
        );
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// Whether a suffixed check mates is settled by the move after it (played: not mate) or, for
    /// the last move, by the position at the end (no legal move: mate), the same answers as
    /// asking at once (issue 11's cost limit moved the question).
    #[test]
    fn a_suffixed_check_is_settled_by_the_next_move_or_at_the_end() {
        let message = |v: &v1::AdjudicateGameResponse| v.warnings[0].message.clone();
        // `#` on a check the next move answers.
        let v = verdict(
            "[Result \"*\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7# Kxf7 *",
            None,
        );
        assert_eq!(warnings(&v), [("wrong_check_suffix", 5, 3)]);
        assert!(message(&v).contains("(Qxf7#): the move gives check but not checkmate"));
        // `#` on a check that is the last move.
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7# 1-0", None);
        assert_eq!(warnings(&v), [("wrong_check_suffix", 5, 3)]);
        assert!(message(&v).contains("gives check but not checkmate"));
        // `+` on a mate after which a move is still listed.
        let v = verdict("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4+ 3. a3 0-1", None);
        assert_eq!(
            warnings(&v),
            [("wrong_check_suffix", 4, 3), ("moves_after_end", 5, 3)]
        );
        assert!(message(&v).contains("(Qh4+): the move checkmates, so it should have '#'"));
        // Right suffixes, a check in the middle and a mate at the end: no warning.
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Kxf7 4. d4 Qh4 5. g3 Qxh2 6. Rxh2 Nf6 7. Bc4+ d5 8. Bxd5+ Kg6 1-0",
            None,
        );
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// FIDE 5.1.1 (issue 11 item 5): moves after the checkmate are a warning at the first of
    /// them, with its line, not only a count.
    #[test]
    fn pgn_moves_after_checkmate_are_warned_with_ply_and_line() {
        let v = verdict(
            "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4#\n3. a3 a6 0-1",
            None,
        );
        assert_eq!(v.plies_after_end, 2);
        assert_eq!(warnings(&v), [("moves_after_end", 5, 4)]);
    }

    /// Issue 11 items 3-4 with 5: the reader's repeated_tag and skipped_glyph warnings reach
    /// the verdict, with their lines and, for a glyph, the ply of the move it follows (a fresh
    /// user's finding: it was 0).
    #[test]
    fn pgn_reader_warnings_reach_the_verdict() {
        let v = verdict(
            "[Result \"1-0\"]\n[White \"A\"]\n[White \"B\"]\n\n1. e4 \u{2a00} e5 2. Qh5 Nc6 1-0",
            None,
        );
        assert_eq!(
            warnings(&v),
            [("repeated_tag", 0, 3), ("skipped_glyph", 1, 5)]
        );
    }

    /// Issue 11 item 5: at most 32 warnings per game, the rest counted.
    #[test]
    fn warnings_are_bounded_to_32_with_a_count_of_the_rest() {
        let moves = "Nf3+ Nf6+ Ng1+ Ng8+ ".repeat(10);
        let v = verdict(&format!("[Result \"*\"]\n\n{moves}*"), None);
        assert_eq!(v.warnings.len(), 32);
        assert_eq!(v.warnings_omitted, 9);
        assert_eq!(warnings(&v)[31], ("wrong_check_suffix", 32, 3));
    }

    /// An illegal move is reported with its line:column and ply.
    #[test]
    fn illegal_move_has_its_place() {
        let error = adjudicate_raw(&raw("1. e4 e5 2. Ke3 *"), None, &Settings::default())
            .expect_err("illegal");
        let wire = pgn_error_to_wire(&error, "pgn");
        assert_eq!((wire.line, wire.column, wire.ply), (1, 13, 3));
        assert_eq!(wire.reason, "ILLEGAL_MOVE");
        assert_eq!(wire.r#move, "Ke3");
    }
}
