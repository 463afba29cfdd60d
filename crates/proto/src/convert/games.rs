//! Games and adjudication: games in, outcomes, claims, events, verdicts and warnings out.

use super::*;
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
    played.reserve(game.moves.len());
    for (index, text) in game.moves.iter().enumerate() {
        // The field's name is written only for an error: formatting it for every move cost a
        // sixth of a short AdjudicateGame call.
        let item = || format!("{moves_field}[{index}]");
        if text.trim().is_empty() {
            return Err(ConvertError::missing(item(), "a move in SAN or UCI"));
        }
        // Moves listed after checkmate or stalemate count as played after the end.
        let parsed = parse_move_in(played.position(), text, language);
        played
            .record(parsed)
            .map_err(|error| move_error(&item(), &error, text, Some(index + 1)))?;
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

/// The rules termination of a wire termination; `None` for `TERMINATION_UNSPECIFIED` (a game
/// going on). The wire has no insufficient material of its own: it reads as a dead position.
#[must_use]
pub fn termination_from_wire(termination: v1::Termination) -> Option<Termination> {
    Some(match termination {
        v1::Termination::Unspecified => return None,
        v1::Termination::Checkmate => Termination::Checkmate,
        v1::Termination::Stalemate => Termination::Stalemate,
        v1::Termination::FivefoldRepetition => Termination::FivefoldRepetition,
        v1::Termination::SeventyFiveMoveRule => Termination::SeventyFiveMoveRule,
        v1::Termination::ThreefoldRepetition => Termination::ThreefoldRepetition,
        v1::Termination::FiftyMoveRule => Termination::FiftyMoveRule,
        v1::Termination::DeadPosition => Termination::DeadPosition,
        v1::Termination::FlagFall => Termination::FlagFall,
        v1::Termination::Resignation => Termination::Resignation,
        v1::Termination::SecondIllegalMove => Termination::SecondIllegalMove,
        v1::Termination::AgreedDraw => Termination::AgreedDraw,
        v1::Termination::Forfeit => Termination::Forfeit,
    })
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
    verdict_to_wire(game, &arbiter_rules::adjudicate(game, request), notation)
}

/// The wire form of the rules' `verdict` on `game` (its final position's FEN and status, the
/// evidence line and claims in SAN), written as `notation` says. No PGN fields: `event`,
/// `declared_result` and `disagreement` are left empty.
#[must_use]
pub fn verdict_to_wire(
    game: &Game,
    verdict: &arbiter_rules::Verdict,
    notation: Notation,
) -> v1::AdjudicateGameResponse {
    // A game an incident ended before its record's last ply (a resignation, a second illegal
    // move, a claim upheld) ends in the position at that ply: the evidence, the claims, the FEN
    // and the status are of that position, not of the last recorded one.
    let ended_by_incident = verdict
        .rulings
        .iter()
        .flat_map(|ruling| &ruling.consequences)
        .find_map(|c| match c {
            arbiter_rules::Consequence::GameEnded(outcome) => Some(outcome.ply),
            _ => None,
        })
        .filter(|&ply| ply < game.ply());
    let at_end;
    let position = match ended_by_incident {
        Some(ply) => {
            at_end = game.moves()[..ply]
                .iter()
                .fold(game.start().clone(), |position, mv| position.play(mv));
            &at_end
        }
        None => game.position(),
    };
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
        explanation: verdict.explanation.clone(),
        evidence: line_to_wire_in(position, &verdict.evidence, notation.language),
        plies_after_end: u32::try_from(verdict.plies_after_end).unwrap_or(u32::MAX),
        undetermined: verdict.undetermined,
        warnings: verdict.warnings.iter().map(warning_to_wire).collect(),
        laws: arbiter_rules::LAWS_EDITION.to_owned(),
        rulings: rulings_to_wire(game, &verdict.rulings, notation.language),
        white_seconds_added: verdict.time_added[0],
        black_seconds_added: verdict.time_added[1],
        event_result: verdict.event_result.as_ref().map(event_result_to_wire),
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
