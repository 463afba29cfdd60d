//! Adjudication of a finished game under the FIDE Laws: the rules' own endings first, then the
//! event the players or the clock produced (flag fall, resignation, second illegal move, agreed
//! draw, forfeit), then draw claims when the caller asks for them.

use crate::game::{Claim, Game, GameResult, Outcome, Termination};
use crate::position::{Move, Position};
use crate::referee::Ruling;
use crate::rule_set::EventResult;
use crate::types::{Color, Role};
use crate::winnability::{AnalysisBudget, Answers, Line, Winnability, dead_position_with, in_game};

/// The edition of the Laws every verdict applies: the FIDE Laws of Chess in force from
/// 1 January 2023.
pub const LAWS_EDITION: &str = "FIDE Laws of Chess, 2023";

/// Something about a verdict an arbiter must be told rather than left to guess.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictWarning {
    /// What it is about.
    pub code: WarningCode,
    /// The 1-based ply it concerns; 0 when it concerns no move.
    pub ply: usize,
    /// What was noticed and what was done about it, in one sentence.
    pub message: String,
}

/// The stable codes of [`VerdictWarning`]s the rules give ([`WarningCode::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningCode {
    /// `early_agreed_draw`: a draw agreed before both players had made a move (FIDE Laws 5.2.3
    /// requires one move by each); the draw is kept.
    EarlyAgreedDraw,
    /// `moves_after_end`: moves recorded after the rules had ended the game; `ply` is the first.
    MovesAfterEnd,
    /// `undetermined_analysis`: a loss on a flag fall, resignation or second illegal move stands
    /// unproven, because whether the opponent can still checkmate was not decided within the
    /// `full` analysis budget (FIDE Laws 6.9, 5.1.2, 7.5.5 make it a draw if the opponent
    /// cannot). Not given at the material and fast levels, which never prove a loss.
    UndeterminedAnalysis,
}

impl WarningCode {
    /// The code as written on the wire: `early_agreed_draw`, `moves_after_end`,
    /// `undetermined_analysis`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::EarlyAgreedDraw => "early_agreed_draw",
            WarningCode::MovesAfterEnd => "moves_after_end",
            WarningCode::UndeterminedAnalysis => "undetermined_analysis",
        }
    }
}

/// Whether both players have made a move by the end of `game`: the start position's fullmove
/// number is above 1, or the record holds a move of each side (a start position with Black to
/// move in move 1 shows White's first move).
#[must_use]
pub fn both_players_moved(game: &Game) -> bool {
    has_moved(game, Color::White) && has_moved(game, Color::Black)
}

/// Whether `side` has made a move in `game`: in its record, or before it (a start position past
/// move 1, or with Black to move in move 1, shows the moves before it).
fn has_moved(game: &Game, side: Color) -> bool {
    let start = game.start();
    if start.fullmove_number() > 1 || (side == Color::White && start.side_to_move() == Color::Black)
    {
        return true;
    }
    let plies = game.recorded_plies();
    if start.side_to_move() == side {
        plies >= 1
    } else {
        plies >= 2
    }
}

/// What happened at the board that the move list does not show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEvent {
    /// The flag of `side` fell (FIDE Laws 6.9).
    FlagFall(Color),
    /// `side` resigned (FIDE Laws 5.1.2).
    Resignation(Color),
    /// `side` completed a second illegal move (FIDE Laws 7.5.5).
    SecondIllegalMove(Color),
    /// The players agreed to a draw (FIDE Laws 5.2.3).
    AgreedDraw,
    /// `side` forfeited: before making a move, as by default time (FIDE Laws 6.7.1), or declared
    /// lost by the arbiter after moving (FIDE Laws 12.9.6: a rules infraction, an abandoned
    /// game); [`Outcome::article`] gives the one that applies.
    Forfeit(Color),
}

/// What to adjudicate beyond the moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdjudicationRequest {
    /// The event that ended the game, if any.
    pub event: Option<GameEvent>,
    /// Apply a draw claim available now (threefold repetition 9.2, 50-move rule 9.3) as if the
    /// player to move claimed it.
    pub claim_draw: bool,
    /// How much analysis "can the opponent still checkmate?" and dead positions may use.
    pub budget: AnalysisBudget,
}

/// An arbiter's verdict on a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// How and when the game ended; `None` while it is still going on.
    pub outcome: Option<Outcome>,
    /// Why, in words, e.g. "White's flag fell, but Black has only king and knight against a lone
    /// king: drawn (FIDE Laws 6.9)".
    pub explanation: String,
    /// A mating line that proves the winner could still checkmate (flag fall, resignation, second
    /// illegal move); empty otherwise.
    pub evidence: Vec<Move>,
    /// Plies recorded after the rules had already ended the game.
    pub plies_after_end: usize,
    /// Draws the side to move may claim (only while the game is going on).
    pub claims: Vec<Claim>,
    /// True when the winnability question was left undecided within the budget (the loss then
    /// stands: a draw needs a proof that the opponent cannot mate).
    pub undetermined: bool,
    /// What an arbiter must be told about this verdict, in ply order.
    pub warnings: Vec<VerdictWarning>,
    /// What each incident of the game caused, in order ([`crate::adjudicate_record`],
    /// [`crate::Referee`]); empty for a game adjudicated from its moves and one end event.
    pub rulings: Vec<Ruling>,
    /// Seconds the arbiter added to (White's, Black's) clocks for the opponent's irregularities
    /// (7.5.5, 9.5.3; one minute instead of two in rapid and blitz, A.3).
    pub time_added: [u32; 2],
    /// The result under the event's regulations when they give Black draw odds (Armageddon):
    /// a draw under the Laws counts as a win for Black. `None` without draw odds or while the
    /// game goes on.
    pub event_result: Option<EventResult>,
}

/// Adjudicates a replayed game. The rules' automatic endings (checkmate, stalemate, dead
/// position, fivefold repetition, 75-move rule) take precedence over any event: an event after
/// them is reported with the rules' result and the ply where the game really ended.
#[must_use]
pub fn adjudicate(game: &Game, request: &AdjudicationRequest) -> Verdict {
    let ply = game.ply();
    let mut verdict = Verdict {
        outcome: None,
        explanation: String::new(),
        evidence: Vec::new(),
        plies_after_end: 0,
        claims: Vec::new(),
        undetermined: false,
        warnings: Vec::new(),
        rulings: Vec::new(),
        time_added: [0; 2],
        event_result: None,
    };
    if let Some(outcome) = game.outcome() {
        verdict.outcome = Some(outcome);
        let pos_reason = game
            .dead_position_reason()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        verdict.explanation = format!(
            "{} at ply {} (FIDE Laws {}){pos_reason}",
            outcome.termination.description(),
            outcome.ply,
            outcome.article()
        );
        note_plies_after_end(&mut verdict, &outcome, game.plies_after_end());
        return verdict;
    }
    let pos = game.position();
    // Questions the game's replay already asked about this position are not asked again.
    let mut answers = game.answers().clone();
    let end = |result, termination| Outcome::new(result, termination, ply);
    match request.event {
        Some(
            GameEvent::FlagFall(side)
            | GameEvent::Resignation(side)
            | GameEvent::SecondIllegalMove(side),
        ) => {
            let (termination, what) = match request.event {
                Some(GameEvent::FlagFall(_)) => {
                    (Termination::FlagFall, format!("{side}'s flag fell"))
                }
                Some(GameEvent::Resignation(_)) => {
                    (Termination::Resignation, format!("{side} resigned"))
                }
                _ => (
                    Termination::SecondIllegalMove,
                    format!("{side} completed a second illegal move"),
                ),
            };
            let opponent = side.other();
            let article = termination.article();
            let board = answers.decide(pos, opponent, request.budget, Line::Kept);
            // A dead position ends the game before any event (FIDE Laws 5.2.2). The side of the
            // event is asked only when the opponent cannot mate on the board, and at most with
            // the fast check, so an event costs little more analysis than it did.
            if request.budget != AnalysisBudget::Material
                && let Winnability::CannotMate { reason: theirs } = &board
                && let Winnability::CannotMate { reason: ours } = answers.decide(
                    pos,
                    side,
                    request.budget.min(AnalysisBudget::Fast),
                    Line::Kept,
                )
            {
                let (w, b) = if side == Color::White {
                    (ours, theirs.clone())
                } else {
                    (theirs.clone(), ours)
                };
                verdict.outcome = Some(end(GameResult::Draw, Termination::DeadPosition));
                verdict.explanation = format!(
                    "dead position at ply {ply} (FIDE Laws 5.2.2): {w}; {b}; the game had ended before {what}"
                );
                return verdict;
            }
            match in_game(game, opponent, request.budget, board) {
                Winnability::CannotMate { reason } => {
                    verdict.outcome = Some(end(GameResult::Draw, termination));
                    verdict.explanation = format!(
                        "{what}, but {opponent} cannot checkmate by any possible series of legal moves ({reason}): drawn (FIDE Laws {article})"
                    );
                }
                Winnability::CanMate { line } => {
                    verdict.outcome = Some(end(GameResult::win_for(opponent), termination));
                    verdict.explanation = format!(
                        "{what}; {opponent} can still checkmate (a mating line is given as evidence): {opponent} wins (FIDE Laws {article})"
                    );
                    verdict.evidence = line;
                }
                Winnability::Undetermined => {
                    verdict.outcome = Some(end(GameResult::win_for(opponent), termination));
                    verdict.undetermined = true;
                    verdict.explanation = format!(
                        "{what}; whether {opponent} can still checkmate was not decided within the analysis budget, so the loss stands: {opponent} wins (FIDE Laws {article})"
                    );
                    // An unproven loss must not look like a proven one where an arbiter signs. At
                    // the material and fast levels no loss is ever proven (they find no lines):
                    // there the level says so, and a warning on every loss would drown the rest.
                    if request.budget == AnalysisBudget::Full {
                        verdict.warnings.push(VerdictWarning {
                        code: WarningCode::UndeterminedAnalysis,
                        ply,
                        message: format!(
                            "whether {opponent} can still checkmate was not decided within the analysis budget ({}): the loss stands unproven; if {opponent} cannot checkmate by any series of legal moves, the game is a draw (FIDE Laws {article})",
                            request.budget.name()
                        ),
                    });
                    }
                }
            }
            return verdict;
        }
        Some(GameEvent::AgreedDraw) => {
            // A dead position ended the game before the agreement (FIDE Laws 5.2.2).
            if let Some(reason) = dead_before_event(pos, request.budget, &mut answers) {
                verdict.outcome = Some(end(GameResult::Draw, Termination::DeadPosition));
                verdict.explanation = format!(
                    "dead position at ply {ply} (FIDE Laws 5.2.2): {reason}; the game had ended before the players agreed to a draw"
                );
                return verdict;
            }
            verdict.outcome = Some(end(GameResult::Draw, Termination::AgreedDraw));
            verdict.explanation = "the players agreed to a draw (FIDE Laws 5.2.3)".to_string();
            if !both_players_moved(game) {
                verdict.warnings.push(VerdictWarning {
                    code: WarningCode::EarlyAgreedDraw,
                    ply,
                    message: format!(
                        "a draw was agreed at ply {ply}, before both players had made a move: FIDE Laws 5.2.3 requires at least one move by each player; the agreed draw is kept"
                    ),
                });
            }
            return verdict;
        }
        Some(GameEvent::Forfeit(side)) => {
            // A forfeit, like any event, cannot end a game a dead position has ended (FIDE
            // Laws 5.2.2).
            if let Some(reason) = dead_before_event(pos, request.budget, &mut answers) {
                verdict.outcome = Some(end(GameResult::Draw, Termination::DeadPosition));
                verdict.explanation = format!(
                    "dead position at ply {ply} (FIDE Laws 5.2.2): {reason}; the game had ended before {side} forfeited"
                );
                return verdict;
            }
            let mut outcome = end(GameResult::win_for(side.other()), Termination::Forfeit);
            verdict.explanation = if has_moved(game, side) {
                outcome.article = "12.9.6";
                format!(
                    "{side} forfeited at ply {ply}, the game declared lost (FIDE Laws 12.9.6): {} wins",
                    side.other()
                )
            } else {
                format!(
                    "{side} forfeited before making a move (FIDE Laws 6.7.1): {} wins",
                    side.other()
                )
            };
            verdict.outcome = Some(outcome);
            return verdict;
        }
        None => {}
    }
    if request.budget != AnalysisBudget::Material
        && let Some(reason) = dead_position_with(pos, request.budget, &mut answers)
    {
        verdict.outcome = Some(end(GameResult::Draw, Termination::DeadPosition));
        verdict.explanation = format!("dead position at ply {ply} (FIDE Laws 5.2.2): {reason}");
        return verdict;
    }
    if request.claim_draw
        && let Some(outcome) = game.claim_draw()
    {
        verdict.explanation = format!(
            "{} claimed by {} at ply {ply} (FIDE Laws {})",
            outcome.termination.description(),
            pos.side_to_move(),
            outcome.article()
        );
        verdict.outcome = Some(outcome);
        return verdict;
    }
    verdict.claims = game.claims();
    verdict.explanation = format!("the game is still going on after ply {ply}");
    verdict
}

/// Notes on `verdict` that `n` plies were recorded after the game ended with `outcome` (the
/// rules' own ending, or an incident's): their count, a sentence in the explanation and a
/// `moves_after_end` warning at the first of them. Nothing when `n` is 0.
pub(crate) fn note_plies_after_end(verdict: &mut Verdict, outcome: &Outcome, n: usize) {
    verdict.plies_after_end = n;
    if n == 0 {
        return;
    }
    verdict.explanation.push_str(&if n == 1 {
        "; 1 ply was played after the end of the game".to_owned()
    } else {
        format!("; {n} plies were played after the end of the game")
    });
    verdict.warnings.push(VerdictWarning {
        code: WarningCode::MovesAfterEnd,
        ply: outcome.ply + 1,
        message: format!(
            "{n} {} recorded after the game ended at ply {} ({}, FIDE Laws {}), from ply {}: {} not part of the game",
            if n == 1 { "ply was" } else { "plies were" },
            outcome.ply,
            outcome.termination.description(),
            outcome.article(),
            outcome.ply + 1,
            if n == 1 { "it is" } else { "they are" },
        ),
    });
}

/// Whether the position in which a draw was agreed or a player forfeited is dead (FIDE Laws
/// 5.2.2), which would have ended the game before that event. Looked for as along the game
/// ([`Game::with_dead_position_analysis`]): not at the material level, and only without a
/// queen, rook or knight on the board (the material of blocked structures; dead positions
/// that forced replies make were found along the game), with the fast check at most, so that
/// the event costs little (a middlegame forfeit would otherwise ask the analyzer about both
/// sides). `Some(reason)` when proven dead.
fn dead_before_event(
    pos: &Position,
    budget: AnalysisBudget,
    answers: &mut Answers,
) -> Option<String> {
    let pieces = pos.by_role(Role::Queen) | pos.by_role(Role::Rook) | pos.by_role(Role::Knight);
    if budget == AnalysisBudget::Material || pieces.is_nonempty() {
        return None;
    }
    dead_position_with(pos, budget.min(AnalysisBudget::Fast), answers)
}
