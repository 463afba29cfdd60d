//! A game: a start position and the moves played, with the automatic endings and the draw claims
//! of the FIDE Laws (5.1.1, 5.2.1, 5.2.2, 9.2, 9.3, 9.6).

use std::fmt;

use thiserror::Error;

use crate::notation::MoveError;
use crate::position::{Move, Position, Status};
use crate::types::{Color, Role};
use crate::winnability::{AnalysisBudget, Answers, dead_position_with, forced_dead_position};

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// White won (`1-0`).
    WhiteWins,
    /// Black won (`0-1`).
    BlackWins,
    /// Drawn (`1/2-1/2`).
    Draw,
}

impl GameResult {
    /// The PGN spelling: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The win for `color`.
    #[must_use]
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_pgn())
    }
}

/// How a game ended, each with the article of the FIDE Laws of Chess that applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is checkmated (FIDE Laws 5.1.1).
    Checkmate,
    /// The side to move is stalemated (FIDE Laws 5.2.1).
    Stalemate,
    /// Dead position by insufficient material (FIDE Laws 5.2.2): neither side can checkmate.
    InsufficientMaterial,
    /// The same position appeared for at least the fifth time (FIDE Laws 9.6.1).
    FivefoldRepetition,
    /// 75 moves by each side without pawn move or capture (FIDE Laws 9.6.2).
    SeventyFiveMoveRule,
    /// Draw claimed: the same position for the third time (FIDE Laws 9.2).
    ThreefoldRepetition,
    /// Draw claimed: 50 moves by each side without pawn move or capture (FIDE Laws 9.3).
    FiftyMoveRule,
    /// Dead position proven by analysis beyond material, e.g. a blocked pawn structure (FIDE Laws
    /// 5.2.2): no series of legal moves leads to checkmate.
    DeadPosition,
    /// A flag fell (FIDE Laws 6.9): a loss, or a draw when the opponent cannot checkmate by any
    /// possible series of legal moves.
    FlagFall,
    /// A player resigned (FIDE Laws 5.1.2): a loss, or a draw when the opponent cannot checkmate by
    /// any possible series of legal moves.
    Resignation,
    /// A player completed a second illegal move (FIDE Laws 7.5.5): a loss, or a draw when the
    /// opponent cannot checkmate by any possible series of legal moves.
    SecondIllegalMove,
    /// The players agreed to a draw (FIDE Laws 5.2.3).
    AgreedDraw,
    /// A player forfeited: before making a move, as by arriving after the default time (FIDE
    /// Laws 6.7.1); after moving, by the arbiter's penalty declaring the game lost (FIDE Laws
    /// 12.9.6, e.g. for a rules infraction or an abandoned game). See [`Outcome::article`].
    Forfeit,
}

impl Termination {
    /// The article of the FIDE Laws of Chess (2023) that defines this ending. A forfeit gives
    /// the article of a forfeit before a move (6.7.1); [`Outcome::article`] knows who had
    /// moved and gives 12.9.6 for a player declared lost after moving.
    #[must_use]
    pub const fn article(self) -> &'static str {
        match self {
            Termination::Checkmate => "5.1.1",
            Termination::Stalemate => "5.2.1",
            Termination::InsufficientMaterial => "5.2.2",
            Termination::FivefoldRepetition => "9.6.1",
            Termination::SeventyFiveMoveRule => "9.6.2",
            Termination::ThreefoldRepetition => "9.2",
            Termination::FiftyMoveRule => "9.3",
            Termination::DeadPosition => "5.2.2",
            Termination::FlagFall => "6.9",
            Termination::Resignation => "5.1.2",
            Termination::SecondIllegalMove => "7.5.5",
            Termination::AgreedDraw => "5.2.3",
            Termination::Forfeit => "6.7.1",
        }
    }

    /// A stable machine-readable name in snake case, e.g. `seventy_five_move_rule`: the
    /// `termination` label of the server's metrics and, with spaces, the words of the CLI's
    /// table and summary.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient_material",
            Termination::FivefoldRepetition => "fivefold_repetition",
            Termination::SeventyFiveMoveRule => "seventy_five_move_rule",
            Termination::ThreefoldRepetition => "threefold_repetition",
            Termination::FiftyMoveRule => "fifty_move_rule",
            Termination::DeadPosition => "dead_position",
            Termination::FlagFall => "flag_fall",
            Termination::Resignation => "resignation",
            Termination::SecondIllegalMove => "second_illegal_move",
            Termination::AgreedDraw => "agreed_draw",
            Termination::Forfeit => "forfeit",
        }
    }

    /// A short description, e.g. "fivefold repetition".
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "dead position (insufficient material)",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::SeventyFiveMoveRule => "75-move rule",
            Termination::ThreefoldRepetition => "threefold repetition (claimed)",
            Termination::FiftyMoveRule => "50-move rule (claimed)",
            Termination::DeadPosition => "dead position",
            Termination::FlagFall => "flag fall",
            Termination::Resignation => "resignation",
            Termination::SecondIllegalMove => "second illegal move",
            Termination::AgreedDraw => "draw by agreement",
            Termination::Forfeit => "forfeit",
        }
    }
}

/// How and when a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The result.
    pub result: GameResult,
    /// The rule that ended the game.
    pub termination: Termination,
    /// The number of plies played when the game ended (0 = in the start position).
    pub ply: usize,
    /// The article of the FIDE Laws of Chess (2023) that applies: the termination's
    /// ([`Termination::article`]), except for a forfeit by a player who had already moved,
    /// which is the arbiter declaring the game lost (`"12.9.6"`), not a forfeit by default
    /// time (6.7.1: a player who never made a move).
    pub article: &'static str,
}

impl Outcome {
    /// An outcome with the termination's own article.
    #[must_use]
    pub const fn new(result: GameResult, termination: Termination, ply: usize) -> Outcome {
        Outcome {
            result,
            termination,
            ply,
            article: termination.article(),
        }
    }

    /// The article of the FIDE Laws that applies, e.g. `"5.1.1"`: the `article` field.
    #[must_use]
    pub const fn article(&self) -> &'static str {
        self.article
    }

    /// Checkmate (FIDE Laws 5.1.1, a win for the side that gave it) or stalemate (5.2.1, a
    /// draw) in `position`, reached at `ply`; `None` when the side to move has a legal move.
    /// Looks for a legal move: a move generation.
    #[must_use]
    pub fn mate_or_stalemate(position: &Position, ply: usize) -> Option<Outcome> {
        let (result, termination) = match position.status() {
            Status::Checkmate => (
                GameResult::win_for(position.side_to_move().other()),
                Termination::Checkmate,
            ),
            Status::Stalemate => (GameResult::Draw, Termination::Stalemate),
            Status::Ongoing => return None,
        };
        Some(Outcome::new(result, termination, ply))
    }
}

/// A move offered after the game has ended by the rules: checkmate and stalemate (FIDE Laws
/// 5.1.1, 5.2.1) and a dead position (5.2.2) "immediately end the game", and fivefold
/// repetition and the 75-move rule (9.6.1, 9.6.2) draw it, so no move follows them. Its cause
/// is [`GameOver::CAUSE`] and its article the ending's ([`GameOver::article`]); `Display` names
/// the ending: "the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)", or for a start position
/// that is already over "the game is over in its start position (stalemate, FIDE Laws 5.2.1)".
///
/// A score sheet may still list such moves: [`Game::record`] counts them, and the verdict
/// warns of them; [`Game::play_next`] refuses them with this error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub struct GameOver {
    /// The ending that stands: its result, termination, ply and article.
    pub outcome: Outcome,
}

impl GameOver {
    /// The stable machine-readable cause of the refusal, as [`crate::Illegality::cause`] names
    /// the causes of an illegal move: `GAME_OVER`.
    pub const CAUSE: &'static str = "GAME_OVER";

    /// The article of the FIDE Laws that ended the game, e.g. `"5.1.1"` (the outcome's).
    #[must_use]
    pub const fn article(&self) -> &'static str {
        self.outcome.article()
    }
}

impl fmt::Display for GameOver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Outcome {
            termination, ply, ..
        } = self.outcome;
        if ply == 0 {
            f.write_str("the game is over in its start position")?;
        } else {
            write!(f, "the game ended at ply {ply}")?;
        }
        write!(
            f,
            " ({}, FIDE Laws {})",
            termination.description(),
            self.article()
        )
    }
}

/// Why [`Game::play_next`] refused a move: the game had ended, or the move's own reading
/// failed (`E`, for instance a [`MoveError`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NextMoveError<E> {
    /// The game had already ended: no move follows, whatever was written.
    #[error(transparent)]
    GameOver(GameOver),
    /// The move could not be read or is illegal in the current position.
    #[error(transparent)]
    Move(E),
}

/// The kind of a draw claim (FIDE Laws 9.2, 9.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimKind {
    /// Threefold repetition (FIDE Laws 9.2).
    ThreefoldRepetition,
    /// 50-move rule (FIDE Laws 9.3).
    FiftyMoveRule,
}

impl ClaimKind {
    /// The article of the FIDE Laws: `"9.2"` or `"9.3"`.
    #[must_use]
    pub const fn article(self) -> &'static str {
        match self {
            ClaimKind::ThreefoldRepetition => "9.2",
            ClaimKind::FiftyMoveRule => "9.3",
        }
    }

    /// The termination a successful claim produces.
    #[must_use]
    pub const fn termination(self) -> Termination {
        match self {
            ClaimKind::ThreefoldRepetition => Termination::ThreefoldRepetition,
            ClaimKind::FiftyMoveRule => Termination::FiftyMoveRule,
        }
    }
}

/// A draw the side to move may claim: now (`by_move` is `None`, FIDE Laws 9.2.1.2, 9.3.2) or by
/// writing a move on the scoresheet and declaring the intention to play it (FIDE Laws 9.2.1.1,
/// 9.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Threefold repetition or 50-move rule.
    pub kind: ClaimKind,
    /// The move that produces the claim, or `None` when it is claimable now.
    pub by_move: Option<Move>,
}

/// A move of a game that could not be played, with its ply.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("ply {ply} ({text}): {error}")]
pub struct PlyError {
    /// The ply of the move, 1-based (1 = the first move of the game).
    pub ply: usize,
    /// The move text as given (cut to 32 characters).
    pub text: String,
    /// Why it could not be played.
    pub error: MoveError,
}

/// A game: a start position and the moves played from it, with the positions' Zobrist keys for
/// repetition and the first automatic ending (if any).
///
/// Moves after an automatic ending are still accepted and counted (a PGN may record them); the
/// [`Game::outcome`] stays the first ending, with its ply.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
    outcome: Option<Outcome>,
    /// True when the current position ends the game only if it is checkmate or stalemate, which
    /// is decided when asked: a legal move played from it proves it is neither, so replaying a
    /// game does not search every position for a legal move.
    status_pending: bool,
    /// Moves recorded after checkmate or stalemate, which cannot be played.
    unplayable_after_end: usize,
    dead_position_budget: AnalysisBudget,
    dead_reason: Option<String>,
    /// What the dead-position test found about the current position, for the verdict to reuse.
    answers: Answers,
}

impl Game {
    /// A game from `start` with no moves yet. If the start position is already terminal
    /// (checkmate, stalemate, dead position), the outcome is set at ply 0.
    ///
    /// Dead positions (FIDE Laws 5.2.2) are detected from material only; see
    /// [`Game::with_dead_position_analysis`] for blocked structures.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game::with_dead_position_analysis(start, AnalysisBudget::Material)
    }

    /// A game that also looks for dead positions beyond insufficient material (FIDE Laws 5.2.2),
    /// such as blocked pawn walls, with the winnability analysis and the given budget. The
    /// analysis runs after captures and pawn moves, when no queen, rook or knight is left (the
    /// material with which such positions arise); and at every ply where the side to move is in
    /// check or has only its king and pawns, a cheap test follows forced replies (at most two
    /// legal moves, four plies) to a stalemate or insufficient material, whatever the material
    /// on the board. The game ends at
    /// the ply where the dead position arises (FIDE Laws 5.2.2); other dead positions are not
    /// looked for along the game.
    #[must_use]
    pub fn with_dead_position_analysis(start: Position, budget: AnalysisBudget) -> Game {
        let mut game = Game {
            keys: vec![start.zobrist()],
            position: start.clone(),
            start,
            moves: Vec::new(),
            outcome: None,
            status_pending: false,
            unplayable_after_end: 0,
            dead_position_budget: budget,
            dead_reason: None,
            answers: Answers::default(),
        };
        game.update_outcome();
        game
    }

    /// The same game from its start, with no moves yet and the same dead-position analysis: for
    /// replaying a record step by step with what happened between its moves
    /// ([`crate::adjudicate_record`]).
    #[must_use]
    pub fn restarted(&self) -> Game {
        let mut game =
            Game::with_dead_position_analysis(self.start.clone(), self.dead_position_budget);
        game.reserve(self.moves.len());
        game
    }

    /// Makes room for `plies` more moves (a score sheet's length, known before its replay), so
    /// that recording them does not grow the game's move and position-key lists step by step.
    pub fn reserve(&mut self, plies: usize) {
        self.moves.reserve(plies);
        self.keys.reserve(plies);
    }

    /// The answers to "can this side still checkmate?" found about the current position while
    /// the game was replayed (its dead-position test), for the verdict to reuse.
    pub(crate) fn answers(&self) -> &Answers {
        &self.answers
    }

    /// Why the position was found dead, when the game ended by FIDE Laws 5.2.2.
    #[must_use]
    pub fn dead_position_reason(&self) -> Option<&str> {
        self.dead_reason.as_deref()
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played, in order.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The number of plies played.
    #[must_use]
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The first automatic ending (checkmate, stalemate, dead position, fivefold repetition,
    /// 75-move rule), if the game has reached one.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        if self.status_pending {
            return self.status_ending();
        }
        self.outcome
    }

    /// How many plies were recorded after the automatic ending (0 if none or no ending): those
    /// played, and those counted by [`Game::record_move_after_end`].
    #[must_use]
    pub fn plies_after_end(&self) -> usize {
        self.outcome()
            .map_or(0, |o| self.ply() - o.ply + self.unplayable_after_end)
    }

    /// The plies recorded: those played and those counted after checkmate or stalemate.
    #[must_use]
    pub fn recorded_plies(&self) -> usize {
        self.ply() + self.unplayable_after_end
    }

    /// Counts a move recorded after checkmate or stalemate, which ended the game (FIDE Laws
    /// 5.1.1, 5.2.1) and after which no move can be played: a score sheet may still list one.
    /// It adds to [`Game::plies_after_end`]. Returns `false`, counting nothing, when the
    /// current position has a legal move (a move that cannot be played there is an error).
    pub fn record_move_after_end(&mut self) -> bool {
        if self.position.has_legal_move() {
            return false;
        }
        self.unplayable_after_end += 1;
        true
    }

    /// Records the next move of a score sheet, as read by the caller from the current position
    /// (`parsed`, the reading's result): the one replay step of every reader (PGN, the wire's
    /// move lists, [`Game::push`]). A legal move is played (`Ok(Some(move))`). A move that cannot
    /// be read after checkmate or stalemate, which ended the game and after which no move
    /// exists (FIDE Laws 5.1.1, 5.2.1), is counted as played after the end (`Ok(None)`, see
    /// [`Game::record_move_after_end`]).
    ///
    /// # Errors
    /// The reading's error when the position has a legal move.
    pub fn record<E>(&mut self, parsed: Result<Move, E>) -> Result<Option<Move>, E> {
        match parsed {
            Ok(m) => {
                self.play(m);
                Ok(Some(m))
            }
            Err(_) if self.record_move_after_end() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Plays the next move of a game in progress, as read by the caller from the current
    /// position (`parsed`), as a player would: once the game has ended by the rules (checkmate,
    /// stalemate, dead position, fivefold repetition, 75-move rule; see [`Game::outcome`]) no
    /// move follows, and whatever was read is refused with [`NextMoveError::GameOver`] naming
    /// the ending. Where [`Game::record`] keeps a score sheet, which may list moves after the
    /// end, this is for callers that play moves (ApplyMove on a game, ApplyMoves).
    ///
    /// Only a move that cannot be read looks for a legal move: a legal move played proves the
    /// position was neither checkmate nor stalemate, and the other endings are known already.
    ///
    /// # Errors
    /// [`NextMoveError::GameOver`] when the game had ended; else [`NextMoveError::Move`] with
    /// the reading's error.
    pub fn play_next<E>(&mut self, parsed: Result<Move, E>) -> Result<Move, NextMoveError<E>> {
        // Without a pending status, the outcome is known (see `update_outcome`).
        if !self.status_pending
            && let Some(outcome) = self.outcome
        {
            return Err(NextMoveError::GameOver(GameOver { outcome }));
        }
        match parsed {
            Ok(m) => {
                self.play(m);
                Ok(m)
            }
            Err(error) => Err(match self.outcome() {
                Some(outcome) => NextMoveError::GameOver(GameOver { outcome }),
                None => NextMoveError::Move(error),
            }),
        }
    }

    /// Records a move given as SAN or UCI text (detected automatically), as [`Game::record`]
    /// does: `None` when it was listed after checkmate or stalemate.
    ///
    /// # Errors
    /// A [`PlyError`] with the 1-based ply and the reason when the move is not legal.
    pub fn push(&mut self, text: &str) -> Result<Option<Move>, PlyError> {
        let ply = self.ply() + 1;
        let parsed = self.position.parse_move(text);
        self.record(parsed).map_err(|error| PlyError {
            ply,
            text: text.chars().take(32).collect(),
            error,
        })
    }

    /// Plays a legal move (from [`Position::legal_moves`] or a parse function of the current
    /// position).
    pub fn play(&mut self, m: Move) {
        self.position.play_in_place(&m);
        self.answers.forget();
        self.moves.push(m);
        self.keys.push(self.position.zobrist());
        // `m` is legal, so the position it was played from was neither checkmate nor stalemate.
        self.update_outcome();
    }

    /// Sets the outcome after a move (or for the start position) unless the game already ended:
    /// the endings other than checkmate and stalemate are checked now, and when one applies,
    /// checkmate and stalemate first (a mating move takes precedence, FIDE Laws 9.6.2); otherwise
    /// checkmate and stalemate are left for [`Game::outcome`] to decide when asked.
    fn update_outcome(&mut self) {
        self.status_pending = false;
        if self.outcome.is_some() {
            return;
        }
        match self.rule_ending() {
            Some((ending, dead_reason)) => match self.status_ending() {
                Some(mate_or_stalemate) => self.outcome = Some(mate_or_stalemate),
                None => {
                    self.outcome = Some(ending);
                    self.dead_reason = dead_reason;
                }
            },
            None => self.status_pending = true,
        }
    }

    /// The first ending of the current position other than checkmate and stalemate: insufficient
    /// material or a dead position (5.2.2, with the reason when the analysis found it),
    /// fivefold repetition (9.6.1), the 75-move rule (9.6.2).
    fn rule_ending(&mut self) -> Option<(Outcome, Option<String>)> {
        let ply = self.ply();
        let pos = &self.position;
        let ending = |termination| Outcome::new(GameResult::Draw, termination, ply);
        if pos.is_insufficient_material() {
            return Some((ending(Termination::InsufficientMaterial), None));
        }
        let pieces = pos.by_role(Role::Queen) | pos.by_role(Role::Rook) | pos.by_role(Role::Knight);
        if self.dead_position_budget != AnalysisBudget::Material
            && pos.halfmove_clock() == 0
            && pieces.is_empty()
            && let Some(reason) =
                dead_position_with(pos, self.dead_position_budget, &mut self.answers)
        {
            return Some((ending(Termination::DeadPosition), Some(reason)));
        }
        // Forced replies can make a position dead whatever the material (a queen included):
        // looked for at every ply where the side to move is in check or has only king and
        // pawns.
        if self.dead_position_budget != AnalysisBudget::Material
            && let Some(reason) = forced_dead_position(pos)
        {
            return Some((ending(Termination::DeadPosition), Some(reason)));
        }
        if self.repetitions() >= 5 {
            return Some((ending(Termination::FivefoldRepetition), None));
        }
        if pos.halfmove_clock() >= 150 {
            return Some((ending(Termination::SeventyFiveMoveRule), None));
        }
        None
    }

    /// Checkmate (FIDE Laws 5.1.1) or stalemate (5.2.1) in the current position, at this ply.
    fn status_ending(&self) -> Option<Outcome> {
        Outcome::mate_or_stalemate(&self.position, self.ply())
    }

    /// How many times the current position has appeared in the game, itself included (FIDE Laws
    /// 9.2.2: same side to move, placement, castling rights and en passant possibility, which the
    /// Zobrist key encodes). Only positions since the last capture or pawn move can repeat.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        self.count_key(self.position.zobrist())
    }

    /// The Zobrist keys of the positions that can still repeat (those since the last capture or
    /// pawn move), the current position last.
    pub(crate) fn repetition_window(&self) -> &[u64] {
        let window = (self.position.halfmove_clock() as usize + 1).min(self.keys.len());
        &self.keys[self.keys.len() - window..]
    }

    fn count_key(&self, key: u64) -> usize {
        let window = (self.position.halfmove_clock() as usize + 1).min(self.keys.len());
        self.keys[self.keys.len() - window..]
            .iter()
            .filter(|&&k| k == key)
            .count()
    }

    /// The draws the side to move may claim now or by announcing a move (FIDE Laws 9.2, 9.3),
    /// claims available now first. Empty once the game has ended automatically.
    #[must_use]
    pub fn claims(&self) -> Vec<Claim> {
        let mut claims = Vec::new();
        if self.outcome().is_some() {
            return claims;
        }
        if self.repetitions() >= 3 {
            claims.push(Claim {
                kind: ClaimKind::ThreefoldRepetition,
                by_move: None,
            });
        }
        if self.position.halfmove_clock() >= 100 {
            claims.push(Claim {
                kind: ClaimKind::FiftyMoveRule,
                by_move: None,
            });
        }
        for m in self.position.legal_moves().iter() {
            let after = self.position.play(m);
            let irreversible = after.halfmove_clock() == 0;
            if !irreversible && self.count_key(after.zobrist()) + 1 >= 3 {
                claims.push(Claim {
                    kind: ClaimKind::ThreefoldRepetition,
                    by_move: Some(*m),
                });
            }
            if self.position.halfmove_clock() < 100 && after.halfmove_clock() >= 100 {
                claims.push(Claim {
                    kind: ClaimKind::FiftyMoveRule,
                    by_move: Some(*m),
                });
            }
        }
        claims
    }

    /// The outcome when the side to move claims a draw available now (FIDE Laws 9.2, 9.3), or
    /// `None` when no claim is available now or the game has already ended.
    #[must_use]
    pub fn claim_draw(&self) -> Option<Outcome> {
        if self.outcome().is_some() {
            return None;
        }
        self.claims()
            .into_iter()
            .find(|c| c.by_move.is_none())
            .map(|c| Outcome::new(GameResult::Draw, c.kind.termination(), self.ply()))
    }
}
