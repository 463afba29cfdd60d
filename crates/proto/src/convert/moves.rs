//! Moves: reading move texts (SAN in a language, or UCI) and describing legal moves and lines.

use super::*;
// ---------------------------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------------------------

/// Describes the legal move `mv` of `before` for the wire with SAN in `language` (UCI is
/// king-takes-rook castling when `before` is a Chess960 position); also returns the position
/// after it.
#[must_use]
pub fn move_to_wire_in(
    before: &Position,
    mv: &Move,
    language: SanLanguage,
) -> (v1::Move, Position) {
    let after = before.play(mv);
    (describe_move_in(before, mv, &after, language), after)
}

/// Describes the legal move `mv` of `before` for the wire, as [`move_to_wire_in`] does, given
/// the position `after` it (so that a caller who has played it does not play it again).
#[must_use]
pub fn describe_move_in(
    before: &Position,
    mv: &Move,
    after: &Position,
    language: SanLanguage,
) -> v1::Move {
    let piece = Piece {
        color: before.side_to_move(),
        role: mv.role,
    };
    v1::Move {
        uci: before.uci(mv),
        san: before.san_in_after(mv, after, language),
        from: mv.from.name().to_owned(),
        to: mv.king_destination().name().to_owned(),
        piece: Some(piece_to_wire(piece)),
        captured: mv
            .capture
            .map_or(v1::Role::Unspecified, role_to_wire)
            .into(),
        promotion: mv
            .promotion
            .map_or(v1::Role::Unspecified, role_to_wire)
            .into(),
        is_check: after.is_check(),
        is_checkmate: after.is_checkmate(),
        is_castle: mv.kind == MoveKind::Castle,
        is_en_passant: mv.kind == MoveKind::EnPassant,
    }
}

/// Every legal move of `position` for the wire, sorted by UCI string, SAN in `language`.
#[must_use]
pub fn legal_moves_to_wire_in(position: &Position, language: SanLanguage) -> Vec<v1::Move> {
    // The moves are put in UCI order before they become wire moves: sorting the wire moves
    // (four strings each) cost more than writing them.
    let legal = position.legal_moves();
    let mut keyed: Vec<(u64, Move)> = legal
        .iter()
        .map(|mv| (uci_order(position, mv), *mv))
        .collect();
    keyed.sort_unstable_by_key(|(key, _)| *key);
    keyed
        .iter()
        .map(|(_, mv)| move_to_wire_in(position, mv, language).0)
        .collect()
}

/// A key that orders moves as their UCI texts (`<from><to>[promotion]`, at most 5 bytes): the
/// text's bytes, big-endian, padded with zeros.
fn uci_order(position: &Position, mv: &Move) -> u64 {
    let (from, to) = (
        mv.from.name().as_bytes(),
        position.uci_destination(mv).name().as_bytes(),
    );
    let promotion = mv.promotion.map_or(0, |role| role.char() as u8);
    u64::from_be_bytes([from[0], from[1], to[0], to[1], promotion, 0, 0, 0])
}

/// Reads one move text (SAN in `language`, or UCI) at `field`.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for an empty text, [`ErrorReason::IllegalMove`] with the rules'
/// reason otherwise.
pub fn move_from_wire_in(
    position: &Position,
    text: &str,
    field: &str,
    language: SanLanguage,
) -> Result<Move, ConvertError> {
    if text.trim().is_empty() {
        return Err(ConvertError::missing(field, "a move in SAN or UCI"));
    }
    parse_move_in(position, text, language).map_err(|error| move_error(field, &error, text, None))
}

/// Reads a move in UCI or in SAN with the piece letters of `language`, the notation detected
/// for the move on its own: UCI when the text is `<square><square>[promotion letter]` (or the
/// null move `0000`, which is rejected), SAN (tolerant) otherwise. Figurine SAN reads English
/// letters and figurine symbols; figurines are read in every language.
///
/// # Errors
///
/// The rules' [`MoveError`].
pub fn parse_move_in(
    position: &Position,
    text: &str,
    language: SanLanguage,
) -> Result<Move, MoveError> {
    let text = text.trim();
    if language == SanLanguage::English || arbiter_rules::looks_like_uci(text) {
        position.parse_move(text)
    } else {
        position.parse_san_in(text, SanMode::Tolerant, language)
    }
}

/// The [`ConvertError`] for move text `text` at `field` that the rules rejected; `ply` is the
/// 1-based ply within a move list, if the move is part of one. Its `ErrorInfo` metadata: `move`,
/// `move_error` (`syntax`, `illegal`, ...), for an illegal move `cause` (a stable name such as
/// `PINNED`, [`arbiter_rules::Illegality::cause`]) and `article` (the FIDE article, e.g.
/// `3.9.2`, when one applies), and in a list `ply` and `index`.
#[must_use]
pub fn move_error(field: &str, error: &MoveError, text: &str, ply: Option<usize>) -> ConvertError {
    let shown = clip(text.trim(), 32);
    let reason = match ply {
        Some(ply) => format!("ply {ply} ({shown}): {}", error.reason()),
        None => format!("{shown}: {}", error.reason()),
    };
    let mut converted = ConvertError::new(field, ErrorReason::IllegalMove, reason)
        .with_metadata("move", shown)
        .with_metadata("move_error", error.kind());
    if let Some(illegality) = error.illegality() {
        converted = converted.with_cause(illegality.cause(), illegality.article());
    }
    if let Some(ply) = ply {
        converted = converted
            .with_metadata("ply", ply.to_string())
            .with_metadata("index", (ply - 1).to_string());
    }
    converted
}

/// Checks a move list against the `max_moves` limit; `field` is the list's path.
///
/// # Errors
///
/// [`ErrorReason::LimitExceeded`] when the list is longer than `max_moves`.
pub fn check_move_count(count: usize, max_moves: usize, field: &str) -> Result<(), ConvertError> {
    if count > max_moves {
        return Err(ConvertError::new(
            field,
            ErrorReason::LimitExceeded,
            format!("{count} moves, more than the limit of {max_moves}"),
        )
        .with_metadata("limit", max_moves.to_string()));
    }
    Ok(())
}

/// The [`ConvertError`] for move text `text` at `field` offered after the game had ended
/// (reason `ILLEGAL_MOVE`): its description names the ending, e.g. "ply 5 (a3): the game ended
/// at ply 4 (checkmate, FIDE Laws 5.1.1)"; its `ErrorInfo` metadata: `move`, `move_error`
/// `game_over`, `cause` `GAME_OVER` ([`GameOver::CAUSE`]), `article` (the ending's, e.g.
/// `5.1.1`), `end_ply` (the ply at which the game ended, 0 for a start position that is over),
/// `termination` (the wire name, e.g. `TERMINATION_CHECKMATE`), and in a list `ply` and
/// `index`, as [`move_error`] writes them.
#[must_use]
pub fn game_over_error(
    field: &str,
    over: &GameOver,
    text: &str,
    ply: Option<usize>,
) -> ConvertError {
    let shown = clip(text.trim(), 32);
    let reason = match ply {
        Some(ply) => format!("ply {ply} ({shown}): {over}"),
        None => format!("{shown}: {over}"),
    };
    let mut converted = ConvertError::new(field, ErrorReason::IllegalMove, reason)
        .with_metadata("move", shown)
        .with_metadata("move_error", "game_over")
        .with_cause(GameOver::CAUSE, Some(over.article()))
        .with_metadata("end_ply", over.outcome.ply.to_string())
        .with_metadata(
            "termination",
            termination_to_wire(over.outcome.termination).as_str_name(),
        );
    if let Some(ply) = ply {
        converted = converted
            .with_metadata("ply", ply.to_string())
            .with_metadata("index", (ply - 1).to_string());
    }
    converted
}

/// The [`ConvertError`] for a move [`Game::play_next`] refused: [`game_over_error`] after the
/// game's end, else [`move_error`].
#[must_use]
pub fn next_move_error(
    field: &str,
    error: &NextMoveError<MoveError>,
    text: &str,
    ply: Option<usize>,
) -> ConvertError {
    match error {
        NextMoveError::GameOver(over) => game_over_error(field, over, text, ply),
        NextMoveError::Move(error) => move_error(field, error, text, ply),
    }
}

/// Plays the next move of `game`, text `text` at `field` (SAN in `language`, or UCI), as
/// [`Game::play_next`] does (refused once the game has ended); returns the move described for
/// the wire (SAN in `language`). `ply` is the 1-based ply within a move list, if the move is
/// part of one.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for an empty text; [`ErrorReason::IllegalMove`] with
/// [`game_over_error`] after the game's end, else with [`move_error`].
pub fn play_next_in(
    game: &mut Game,
    text: &str,
    field: &str,
    ply: Option<usize>,
    language: SanLanguage,
) -> Result<v1::Move, ConvertError> {
    if text.trim().is_empty() {
        return Err(ConvertError::missing(field, "a move in SAN or UCI"));
    }
    let before = game.position().clone();
    let mv = game
        .play_next(parse_move_in(&before, text, language))
        .map_err(|error| next_move_error(field, &error, text, ply))?;
    Ok(describe_move_in(&before, &mv, game.position(), language))
}

/// Plays `moves` (SAN in `language`, or UCI) from `start` as a game, with SAN written in
/// `language`: the game's automatic endings are followed as each move is played (dead
/// positions looked for within `budget`, as [`game_from_wire_in`] does), and once the game has
/// ended the next move is refused ([`game_over_error`]). Returns the game and its moves
/// described for the wire.
///
/// # Errors
///
/// A [`ConvertError`] for the first bad move or the first move after the game's end, or when
/// there are more than `max_moves` moves.
pub fn play_moves_in(
    start: Position,
    moves: &[String],
    field: &str,
    max_moves: usize,
    budget: AnalysisBudget,
    language: SanLanguage,
) -> Result<(Game, Vec<v1::Move>), ConvertError> {
    check_move_count(moves.len(), max_moves, field)?;
    let mut game = Game::with_dead_position_analysis(start, budget);
    game.reserve(moves.len());
    let mut played = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        // The field's name is written only for an error (see `game_from_wire_in`).
        let described = play_next_in(&mut game, text, "", Some(index + 1), language)
            .map_err(|error| error.at(format!("{field}[{index}]")))?;
        played.push(described);
    }
    Ok((game, played))
}
