//! Games read from PGN on the wire: the verdict of [`arbiter_pgn::verdict::adjudicate`], its
//! warnings, the identifying tags and the PGN errors, as `AdjudicateGame` (field `pgn`), the
//! `AdjudicateGames` stream and `arbiter adjudicate --format jsonl` give them.

use arbiter_pgn::verdict::{PgnVerdict, PgnWarning};
use arbiter_pgn::{ErrorKind, PgnError, RawGame};
use arbiter_rules::{FenError, GameEvent, GameOver};

use super::{ConvertError, ErrorReason, Notation, bound_warnings, color_to_wire, verdict_to_wire};
use crate::v1;

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
        side: side.map_or(v1::Color::Unspecified, color_to_wire).into(),
    }
}

/// The wire form of a warning about a game read from PGN (or given as a list of moves: line 0).
#[must_use]
pub fn pgn_warning_to_wire(warning: &PgnWarning) -> v1::Warning {
    v1::Warning {
        code: warning.code().to_owned(),
        ply: warning.ply,
        line: warning.line,
        message: warning.to_string(),
    }
}

/// The wire form of a PGN game's verdict, SAN and FEN written as `notation` says: the rules'
/// verdict, the event that counts, the declared result and the disagreement, and the warnings
/// (at most [`super::MAX_WARNINGS`], the rest counted).
#[must_use]
pub fn pgn_verdict_to_wire(verdict: &PgnVerdict, notation: Notation) -> v1::AdjudicateGameResponse {
    let mut response = verdict_to_wire(&verdict.game, &verdict.verdict, notation);
    response.declared_result = verdict
        .declared
        .as_ref()
        .map(|declared| declared.text.clone())
        .unwrap_or_default();
    if let Some(disagreement) = &verdict.disagreement {
        response.disagreement = true;
        response.disagreement_reason = disagreement.to_string();
    }
    response.warnings = verdict.warnings.iter().map(pgn_warning_to_wire).collect();
    bound_warnings(&mut response);
    response.event = verdict.event.map(event_to_wire);
    response
}

/// The reason of a PGN error (the one mapping of PGN error kinds to reasons).
#[must_use]
pub fn pgn_error_reason(error: &PgnError) -> ErrorReason {
    match &error.kind {
        ErrorKind::Move { .. } | ErrorKind::NullMove { .. } | ErrorKind::GameOver { .. } => {
            ErrorReason::IllegalMove
        }
        ErrorKind::Fen(_) | ErrorKind::MissingFen { .. } => ErrorReason::InvalidPosition,
        ErrorKind::Limit { .. } => ErrorReason::LimitExceeded,
        _ => ErrorReason::InvalidPgn,
    }
}

/// The ply and move text of a move error.
fn error_move(error: &PgnError) -> Option<(usize, &str)> {
    match &error.kind {
        ErrorKind::Move { ply, text, .. }
        | ErrorKind::NullMove { ply, text }
        | ErrorKind::GameOver { ply, text, .. } => Some((*ply, text.as_str())),
        _ => None,
    }
}

/// The stable cause and FIDE article of a PGN error the rules decided: an illegal move
/// ([`arbiter_rules::Illegality`]), a move after the game's end (`GAME_OVER` with the ending's
/// article, [`arbiter_rules::GameOver`]) or a refused start position
/// ([`arbiter_rules::PositionError`] of a `FEN` tag). `None` for a syntax error, a limit or a
/// FEN that is not a FEN at all.
#[must_use]
pub fn pgn_error_cause(error: &PgnError) -> Option<(&'static str, Option<&'static str>)> {
    match &error.kind {
        ErrorKind::GameOver { over, .. } => Some((GameOver::CAUSE, Some(over.article()))),
        ErrorKind::Move { error, .. } => error
            .illegality()
            .map(|illegality| (illegality.cause(), illegality.article())),
        ErrorKind::Fen(FenError::Position(position)) => {
            Some((position.cause(), position.article()))
        }
        _ => None,
    }
}

/// The in-band wire form of a PGN error on `field` (a stream's error response, a CLI record),
/// with the rules' cause and article where they decided ([`pgn_error_cause`]) and the lines the
/// reader skipped after it ([`PgnError::skipped`]).
#[must_use]
pub fn pgn_error_to_wire(error: &PgnError, field: &str) -> v1::GameError {
    let (ply, text) = error_move(error).unwrap_or((0, ""));
    let (cause, article) = pgn_error_cause(error).unwrap_or(("", None));
    let skipped = error.skipped.map_or((0, 0), |s| (s.first, s.last));
    v1::GameError {
        field: field.to_owned(),
        reason: pgn_error_reason(error).as_str().to_owned(),
        description: error.to_string(),
        line: error.line,
        column: error.column,
        ply: u32::try_from(ply).unwrap_or(u32::MAX),
        r#move: text.to_owned(),
        cause: cause.to_owned(),
        article: article.unwrap_or_default().to_owned(),
        skipped_first_line: skipped.0,
        skipped_last_line: skipped.1,
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
        cause: error.metadata_value("cause").unwrap_or_default().to_owned(),
        article: error
            .metadata_value("article")
            .unwrap_or_default()
            .to_owned(),
        skipped_first_line: 0,
        skipped_last_line: 0,
    }
}

/// The INVALID_ARGUMENT error of the unary RPC for a PGN error on `field`: the description has
/// line:column (and the ply and move, and the lines skipped after a read error), the ErrorInfo
/// metadata "line", "column", "ply", "move", "skipped_first_line" and "skipped_last_line", and
/// for an illegal move or a refused `FEN` tag its "cause" and "article".
#[must_use]
pub fn pgn_error_to_convert(error: &PgnError, field: &str) -> ConvertError {
    let mut converted = ConvertError::new(field, pgn_error_reason(error), error.to_string())
        .with_metadata("line", error.line.to_string())
        .with_metadata("column", error.column.to_string());
    if let Some((ply, text)) = error_move(error) {
        converted = converted
            .with_metadata("ply", ply.to_string())
            .with_metadata("move", text);
    }
    if let Some(skipped) = error.skipped {
        converted = converted
            .with_metadata("skipped_first_line", skipped.first.to_string())
            .with_metadata("skipped_last_line", skipped.last.to_string());
    }
    if let Some((cause, article)) = pgn_error_cause(error) {
        converted = converted.with_cause(cause, article);
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
