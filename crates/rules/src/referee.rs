//! What happens at the board besides the moves, in order, and what the Laws make of each under
//! the event's [`RuleSet`]: completed illegal moves (FIDE Laws 7.5, A.5.2), draw offers (9.1.2),
//! draw claims and their penalty (9.2, 9.3, 9.5), flag falls (6.8, 6.9, A.5.3, A.5.5),
//! resignations, forfeits and agreements. A [`Referee`] follows one game move by move; the
//! same referee replays a finished game's record ([`adjudicate_record`]).
//!
//! An illegal move that stands under A.5.2 leaves the board in a position no legal move led
//! to. The rules core plays legal moves only, so a game stops being followed there:
//! [`RefereeError::IllegalMoveStood`] refuses what comes after, and the client starts again
//! from the position on the board, if it is a legal one.

use thiserror::Error;

use crate::adjudication::{
    AdjudicationRequest, GameEvent, Verdict, adjudicate, note_plies_after_end,
};
use crate::game::{ClaimKind, Game, GameResult, Outcome};
use crate::position::Move;
use crate::rule_set::RuleSet;
use crate::san_lang::SanLanguage;
use crate::types::Color;
use crate::winnability::AnalysisBudget;

/// The longest move text an [`Incident`] keeps, in characters (longer text is cut).
pub const MAX_WRITTEN_LEN: usize = 32;

/// Who acted on a completed illegal move, or on a fallen flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActedOn {
    /// The opponent claimed it (7.5.1, 6.8; A.5.2, A.5.3).
    Claimed,
    /// The arbiter saw it and acted (7.5.1, 6.8; A.5.2, A.5.5).
    ArbiterObserved,
    /// Nobody acted on it before the opponent's next move: under A.5 an illegal move then
    /// stands (A.5.2); a flag nobody sees or claims has not fallen (6.8).
    Nobody,
}

impl ActedOn {
    /// `claimed`, `arbiter_observed`, `nobody`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ActedOn::Claimed => "claimed",
            ActedOn::ArbiterObserved => "arbiter_observed",
            ActedOn::Nobody => "nobody",
        }
    }
}

/// How a move was illegal (FIDE Laws 7.5.1 to 7.5.4); each is penalized as 7.5.5 says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IllegalAct {
    /// A move the rules forbid, completed by pressing the clock (7.5.1): the position before it
    /// is reinstated and the same player moves again.
    #[default]
    Move,
    /// A pawn moved to the last rank and the clock pressed without choosing a piece (7.5.2): the
    /// pawn becomes a queen, so the record's next ply is that promotion.
    UnpromotedPawn,
    /// The clock pressed without a move (7.5.3).
    ClockWithoutMove,
    /// One move made with two hands (7.5.4); the move itself is the record's next ply.
    TwoHands,
}

impl IllegalAct {
    /// The article that makes the act illegal: `7.5.1`, `7.5.2`, `7.5.3`, `7.5.4`.
    #[must_use]
    pub const fn article(self) -> &'static str {
        match self {
            IllegalAct::Move => "7.5.1",
            IllegalAct::UnpromotedPawn => "7.5.2",
            IllegalAct::ClockWithoutMove => "7.5.3",
            IllegalAct::TwoHands => "7.5.4",
        }
    }

    /// `move`, `unpromoted_pawn`, `clock_without_move`, `two_hands`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            IllegalAct::Move => "move",
            IllegalAct::UnpromotedPawn => "unpromoted_pawn",
            IllegalAct::ClockWithoutMove => "clock_without_move",
            IllegalAct::TwoHands => "two_hands",
        }
    }
}

/// What happened at the board, besides a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incident {
    /// `side`, having the move, completed an illegal move (FIDE Laws 7.5). `written` is the
    /// move as recorded (SAN or UCI; for [`IllegalAct::UnpromotedPawn`] the pawn's move, e.g.
    /// `e8` or `e7e8`; empty for [`IllegalAct::ClockWithoutMove`] and optional for
    /// [`IllegalAct::TwoHands`]).
    IllegalMove {
        /// Who made it: the side to move.
        side: Color,
        /// How it was illegal.
        act: IllegalAct,
        /// The move as written.
        written: String,
        /// Who acted on it.
        acted_on: ActedOn,
    },
    /// `side` offered a draw (9.1.2). Recorded; it ends nothing until accepted
    /// ([`Incident::Agreement`]).
    DrawOffer(Color),
    /// `side`, having the move, claimed a draw by threefold repetition (9.2) or the fifty-move
    /// rule (9.3), now or by announcing the move `announced` it intends to play (9.2.1.1, 9.3.1).
    Claim {
        /// The claimant: the side to move.
        side: Color,
        /// Which claim.
        kind: ClaimKind,
        /// The move written and declared, SAN or UCI; `None` for a claim valid now.
        announced: Option<String>,
    },
    /// The flag of `side` fell; `noticed` says who claimed or saw it (6.8, A.5.3, A.5.5).
    FlagFall {
        /// Whose flag fell.
        side: Color,
        /// Who claimed or saw it.
        noticed: ActedOn,
    },
    /// `side` resigned (5.1.2).
    Resignation(Color),
    /// `side` forfeited (6.7.1, 12.9.6).
    Forfeit(Color),
    /// The players agreed to a draw (5.2.3).
    Agreement,
}

impl Incident {
    /// This incident with its move (an illegal move's, a claim's announced move) turned from SAN
    /// of `language` into English piece letters ([`SanLanguage::to_english`]), as the referee
    /// reads moves: for incidents sent in the language of the game's moves.
    #[must_use]
    pub fn with_english_moves(mut self, language: SanLanguage) -> Incident {
        match &mut self {
            Incident::IllegalMove { written, .. } => *written = language.to_english(written),
            Incident::Claim {
                announced: Some(announced),
                ..
            } => *announced = language.to_english(announced),
            _ => {}
        }
        self
    }

    /// A stable name: `illegal_move`, `draw_offer`, `claim`, `flag_fall`, `resignation`,
    /// `forfeit`, `agreement`.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Incident::IllegalMove { .. } => "illegal_move",
            Incident::DrawOffer(_) => "draw_offer",
            Incident::Claim { .. } => "claim",
            Incident::FlagFall { .. } => "flag_fall",
            Incident::Resignation(_) => "resignation",
            Incident::Forfeit(_) => "forfeit",
            Incident::Agreement => "agreement",
        }
    }
}

/// An [`Incident`] at its place in the game: after `ply` plies of the record (0 = before the
/// first move), in the position those plies reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedIncident {
    /// The number of plies played before it.
    pub ply: usize,
    /// What happened.
    pub incident: Incident,
}

/// One thing an incident caused under the rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consequence {
    /// The position before the illegal move is reinstated and the same player moves again
    /// (7.5.1); `ply` is the number of plies of that position.
    PositionReinstated {
        /// The reinstated position's ply.
        ply: usize,
    },
    /// Seconds added to `side`'s clock, under `article` (7.5.5, 9.5.3 with A.3 in rapid and
    /// blitz).
    TimeAdded {
        /// Whose clock.
        side: Color,
        /// How much, in seconds: 120, or 60 in rapid and blitz.
        seconds: u32,
        /// The articles that decide it, e.g. "7.5.5 with A.3".
        article: String,
    },
    /// The next ply must be `mv`: the queen replacing an unpromoted pawn (7.5.2), or the move
    /// announced with a claim found incorrect (9.5.3).
    MoveRequired {
        /// The move.
        mv: Move,
        /// "7.5.2" or "9.5.3".
        article: &'static str,
    },
    /// Nobody acted on the illegal move before the opponent's next move: it stands and the game
    /// continues, under `article` ("A.5.2", or "B.3, A.5.2" in blitz).
    IllegalMoveStands {
        /// The articles that let it stand.
        article: &'static str,
    },
    /// The claim is correct: the game is drawn (9.5.2).
    ClaimUpheld,
    /// The claim is incorrect (9.5.3): the game goes on.
    ClaimRejected,
    /// Recorded: it changes nothing (a draw offer, a flag nobody saw or claimed).
    Recorded,
    /// The game ended.
    GameEnded(Outcome),
}

/// What the Laws make of one incident.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The incident's ply.
    pub ply: usize,
    /// The incident.
    pub incident: Incident,
    /// What it caused, in order.
    pub consequences: Vec<Consequence>,
    /// Why, in words, with the articles, e.g. "White completed an illegal move, Ke3 (no white
    /// king can move to e3): the position before it is reinstated (FIDE Laws 7.5.1) and Black
    /// gets 60 seconds (FIDE Laws 7.5.5 with A.3)".
    pub explanation: String,
}

/// Why an incident or move cannot be taken where it is sent. Each names the ply.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RefereeError {
    /// The incident is for the side to move only, and `side` does not have the move.
    #[error("ply {ply}: {what} is made by the player having the move, {to_move}, not {side}")]
    NotToMove {
        /// The incident's ply.
        ply: usize,
        /// What the incident is, in words.
        what: &'static str,
        /// Who has the move.
        to_move: Color,
        /// Who the incident names.
        side: Color,
    },
    /// The move sent as illegal is a legal move here.
    #[error("ply {ply}: '{written}' is a legal move here, not an illegal one")]
    LegalMove {
        /// The incident's ply.
        ply: usize,
        /// The move as written.
        written: String,
    },
    /// The move sent as illegal (or as a claim's announced move) cannot be read as a move.
    #[error("ply {ply}: '{written}' {why}")]
    BadMove {
        /// The incident's ply.
        ply: usize,
        /// The move as written.
        written: String,
        /// Why, in words.
        why: String,
    },
    /// A pawn's move sent as unpromoted (7.5.2) is not a pawn reaching the last rank.
    #[error(
        "ply {ply}: '{written}' is not a pawn move to the last rank, so it cannot be an unpromoted pawn (FIDE Laws 7.5.2)"
    )]
    NotAPromotion {
        /// The incident's ply.
        ply: usize,
        /// The move as written.
        written: String,
    },
    /// Under the Competition Rules (standard; rapid A.4; blitz B.2) every completed illegal
    /// move is acted on when found (7.5.1); only A.5.2 (B.3) lets one stand.
    #[error(
        "ply {ply}: under {rules} an illegal move found is always acted on (FIDE Laws 7.5.1): 'nobody' applies to rapid and blitz without adequate supervision only (A.5.2, B.3)"
    )]
    UnclaimedUnderCompetitionRules {
        /// The incident's ply.
        ply: usize,
        /// The rule set, spelt as the CLI does.
        rules: String,
    },
    /// An illegal move stood (A.5.2): the position on the board is not one the rules core can
    /// reach by legal moves, so nothing after it can be followed.
    #[error(
        "ply {ply}: the illegal move '{written}' stood at ply {stood_at} (nobody claimed it, FIDE Laws {article}); the game cannot be followed past a position that an illegal move produced: start again from the position on the board (as a start FEN) if it is a legal one"
    )]
    IllegalMoveStood {
        /// The ply refused.
        ply: usize,
        /// Where the illegal move stood.
        stood_at: usize,
        /// The move.
        written: String,
        /// "A.5.2" or "B.3, A.5.2".
        article: &'static str,
    },
    /// The next ply is fixed by the Laws (7.5.2, 9.5.3) and another move came.
    #[error("ply {ply}: the move must be {expected} (FIDE Laws {article}), not {got}")]
    MoveRequired {
        /// The ply refused.
        ply: usize,
        /// The move the Laws require, in SAN.
        expected: String,
        /// The move sent, in SAN.
        got: String,
        /// "7.5.2" or "9.5.3".
        article: &'static str,
    },
    /// The game had ended (by the rules, or by an incident) before this move or incident.
    #[error("ply {ply}: the game ended at ply {} ({}, FIDE Laws {})", .outcome.ply, .outcome.termination.description(), .outcome.article())]
    GameOver {
        /// The ply refused.
        ply: usize,
        /// How the game ended.
        outcome: Outcome,
    },
    /// Incidents are not in ply order, or one is past the record's last ply.
    #[error("incident {index}: ply {ply} {why}")]
    OutOfOrder {
        /// The 0-based index of the incident in the list.
        index: usize,
        /// Its ply.
        ply: usize,
        /// Why, e.g. "comes before the previous incident's ply 12".
        why: String,
    },
}

impl RefereeError {
    /// A stable machine-readable name: `not_to_move`, `legal_move`, `bad_move`,
    /// `not_a_promotion`, `unclaimed_under_competition_rules`, `illegal_move_stood`,
    /// `move_required`, `game_over`, `out_of_order`.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            RefereeError::NotToMove { .. } => "not_to_move",
            RefereeError::LegalMove { .. } => "legal_move",
            RefereeError::BadMove { .. } => "bad_move",
            RefereeError::NotAPromotion { .. } => "not_a_promotion",
            RefereeError::UnclaimedUnderCompetitionRules { .. } => {
                "unclaimed_under_competition_rules"
            }
            RefereeError::IllegalMoveStood { .. } => "illegal_move_stood",
            RefereeError::MoveRequired { .. } => "move_required",
            RefereeError::GameOver { .. } => "game_over",
            RefereeError::OutOfOrder { .. } => "out_of_order",
        }
    }

    /// The ply the error concerns.
    #[must_use]
    pub const fn ply(&self) -> usize {
        match self {
            RefereeError::NotToMove { ply, .. }
            | RefereeError::LegalMove { ply, .. }
            | RefereeError::BadMove { ply, .. }
            | RefereeError::NotAPromotion { ply, .. }
            | RefereeError::UnclaimedUnderCompetitionRules { ply, .. }
            | RefereeError::IllegalMoveStood { ply, .. }
            | RefereeError::MoveRequired { ply, .. }
            | RefereeError::GameOver { ply, .. }
            | RefereeError::OutOfOrder { ply, .. } => *ply,
        }
    }
}

/// Where an incident ended the game.
#[derive(Clone, Debug)]
struct Ended {
    verdict: Verdict,
}

/// An illegal move that stood (A.5.2).
#[derive(Clone, Debug)]
struct Stood {
    ply: usize,
    written: String,
    article: &'static str,
}

/// Follows one game under a [`RuleSet`]: legal moves ([`Referee::play`]) and incidents
/// ([`Referee::incident`]) in the order they happen, with the penalties each player has had,
/// the time added to each clock, and the end of the game. Holds the [`Game`] (one position
/// and one key per ply: 6 bytes of move and 8 of key, up to twice that while its lists grow) and
/// one [`Ruling`] per incident.
#[derive(Clone, Debug)]
pub struct Referee {
    game: Game,
    rules: RuleSet,
    budget: AnalysisBudget,
    /// Completed illegal moves acted on, by side (White, Black).
    penalized: [u32; 2],
    /// Seconds added to each clock (White, Black).
    time_added: [u32; 2],
    required: Option<(Move, &'static str)>,
    stood: Option<Stood>,
    ended: Option<Ended>,
    rulings: Vec<Ruling>,
}

fn index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Referee {
    /// A referee for `game` (its moves so far are taken as played without incident) under
    /// `rules`; `budget` bounds the analysis of "can the opponent still checkmate?" when an
    /// incident ends the game.
    #[must_use]
    pub fn new(game: Game, rules: RuleSet, budget: AnalysisBudget) -> Referee {
        Referee {
            game,
            rules,
            budget,
            penalized: [0; 2],
            time_added: [0; 2],
            required: None,
            stood: None,
            ended: None,
            rulings: Vec::new(),
        }
    }

    /// A referee that has followed `start` (a game with no moves yet, e.g. [`Game::restarted`])
    /// through `moves` with `incidents` ruled in order, each in the position after its ply (the
    /// incidents at a ply before the move from it, as [`adjudicate_record`] does): the state a
    /// referee that saw them as they happened holds, ready to go on. Unlike
    /// [`adjudicate_record`], nothing may come after the end: a live game resumed is replayed
    /// strictly.
    ///
    /// # Errors
    /// [`RefereeError::OutOfOrder`] for incidents out of ply order or past the last move's ply;
    /// the first [`RefereeError`] of a move or an incident ([`RefereeError::GameOver`] for one
    /// after the game ended, by the rules or by an incident; a move the Laws fix, 7.5.2 or
    /// 9.5.3, not played; anything after an illegal move stood, A.5.2).
    pub fn replay(
        start: Game,
        moves: &[Move],
        incidents: &[TimedIncident],
        rules: RuleSet,
        budget: AnalysisBudget,
    ) -> Result<Referee, RefereeError> {
        check_incident_order(incidents, start.ply() + moves.len())?;
        if let Some(early) = incidents.first().filter(|t| t.ply < start.ply()) {
            return Err(RefereeError::OutOfOrder {
                index: 0,
                ply: early.ply,
                why: format!("comes before the replay's first ply, {}", start.ply()),
            });
        }
        let mut referee = Referee::new(start, rules, budget);
        let mut next = incidents.iter().peekable();
        let mut moves = moves.iter();
        loop {
            let ply = referee.game.ply();
            while let Some(timed) = next.next_if(|t| t.ply == ply) {
                referee.incident(timed.incident.clone())?;
            }
            match moves.next() {
                Some(&mv) => referee.play(mv)?,
                None => return Ok(referee),
            }
        }
    }

    /// The game as played so far (legal moves only).
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The rule set.
    #[must_use]
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Seconds added to (White's, Black's) clocks so far.
    #[must_use]
    pub fn time_added(&self) -> [u32; 2] {
        self.time_added
    }

    /// Completed illegal moves acted on, by (White, Black).
    #[must_use]
    pub fn illegal_moves(&self) -> [u32; 2] {
        self.penalized
    }

    /// The rulings so far, in order.
    #[must_use]
    pub fn rulings(&self) -> &[Ruling] {
        &self.rulings
    }

    /// The draws the side to move may claim now or by announcing a move (9.2, 9.3), as
    /// [`Game::claims`]; none while the Laws require a move (7.5.2's queen can make no claim, a
    /// move announced with a claim found incorrect makes none in the same position, and no claim
    /// replaces the required move, 9.5.3), after an illegal move stood, or once the game ended.
    #[must_use]
    pub fn claims(&self) -> Vec<crate::game::Claim> {
        if self.outcome().is_some() || self.stood.is_some() || self.required.is_some() {
            return Vec::new();
        }
        self.game.claims()
    }

    /// The move the Laws require next (7.5.2, 9.5.3), if any.
    #[must_use]
    pub fn required_move(&self) -> Option<(Move, &'static str)> {
        self.required
    }

    /// How the game ended, by the rules or by an incident; `None` while it goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.ended {
            Some(ended) => ended.verdict.outcome,
            None => self.game.outcome(),
        }
    }

    /// Whether an illegal move stood (A.5.2), after which nothing more can be followed.
    #[must_use]
    pub fn illegal_move_stood(&self) -> bool {
        self.stood.is_some()
    }

    /// Whether a move or an incident may still come: the error [`Referee::play`] and
    /// [`Referee::incident`] would give for any, if they would.
    ///
    /// # Errors
    /// [`RefereeError::IllegalMoveStood`] after an illegal move stood (A.5.2);
    /// [`RefereeError::GameOver`] once the game has ended.
    pub fn check_open(&self) -> Result<(), RefereeError> {
        let ply = self.game.ply();
        if let Some(stood) = &self.stood {
            return Err(RefereeError::IllegalMoveStood {
                ply,
                stood_at: stood.ply,
                written: stood.written.clone(),
                article: stood.article,
            });
        }
        if let Some(outcome) = self.outcome() {
            return Err(RefereeError::GameOver { ply, outcome });
        }
        Ok(())
    }

    /// Plays the next legal move (read by the caller from [`Referee::game`]'s position).
    ///
    /// # Errors
    /// [`RefereeError::GameOver`] once the game has ended; [`RefereeError::IllegalMoveStood`]
    /// after an illegal move stood; [`RefereeError::MoveRequired`] when the Laws fix the move
    /// (7.5.2, 9.5.3) and `mv` is another.
    pub fn play(&mut self, mv: Move) -> Result<(), RefereeError> {
        self.check_open()?;
        if let Some((expected, article)) = self.required
            && expected != mv
        {
            let pos = self.game.position().clone();
            return Err(RefereeError::MoveRequired {
                ply: self.game.ply() + 1,
                expected: pos.san(&expected),
                got: pos.san(&mv),
                article,
            });
        }
        self.required = None;
        self.game.play(mv);
        Ok(())
    }

    /// Rules on `incident`, which happened in the current position (after
    /// [`Game::ply`] plies), and returns the ruling (also kept, see [`Referee::rulings`]).
    ///
    /// # Errors
    /// [`RefereeError`]: the game is over or cannot be followed; the incident names the wrong
    /// side ([`RefereeError::NotToMove`]); an illegal move that is legal, unreadable or not what
    /// its act says; "nobody" acting on an illegal move under the Competition Rules.
    pub fn incident(&mut self, incident: Incident) -> Result<Ruling, RefereeError> {
        self.check_open()?;
        let ply = self.game.ply();
        let to_move = self.game.position().side_to_move();
        let ruling = match &incident {
            Incident::IllegalMove {
                side,
                act,
                written,
                acted_on,
            } => {
                if *side != to_move {
                    return Err(RefereeError::NotToMove {
                        ply,
                        what: "an illegal move",
                        to_move,
                        side: *side,
                    });
                }
                self.illegal_move(ply, *side, *act, written, *acted_on)?
            }
            Incident::DrawOffer(side) => Ruling {
                ply,
                incident: incident.clone(),
                consequences: vec![Consequence::Recorded],
                explanation: format!(
                    "{side} offered a draw {}: recorded; it ends the game only if accepted (FIDE Laws 9.1.2)",
                    moment(ply)
                ),
            },
            Incident::Claim {
                side,
                kind,
                announced,
            } => {
                if *side != to_move {
                    return Err(RefereeError::NotToMove {
                        ply,
                        what: "a draw claim",
                        to_move,
                        side: *side,
                    });
                }
                self.claim(ply, *side, *kind, announced.as_deref())?
            }
            Incident::FlagFall { side, noticed } => {
                if *noticed == ActedOn::Nobody {
                    Ruling {
                        ply,
                        incident: incident.clone(),
                        consequences: vec![Consequence::Recorded],
                        explanation: format!(
                            "{side}'s flag fell {} but nobody claimed it and the arbiter did not see it: a flag has fallen only when the arbiter observes it or a player claims it (FIDE Laws 6.8{}); the game goes on",
                            moment(ply),
                            if self.rules.unclaimed_illegal_move_stands() {
                                ", A.5.3, A.5.5"
                            } else {
                                ""
                            }
                        ),
                    }
                } else {
                    let mut ruling = self.end(ply, &incident, GameEvent::FlagFall(*side));
                    // Without adequate supervision a flag counts once claimed (A.5.3) or called by
                    // the arbiter (A.5.5); 6.9 then decides as always.
                    if self.rules.unclaimed_illegal_move_stands() {
                        let how = if *noticed == ActedOn::Claimed {
                            "claimed by the opponent, FIDE Laws A.5.3"
                        } else {
                            "called by the arbiter, FIDE Laws A.5.5"
                        };
                        ruling.explanation.push_str(&format!(" (the flag {how})"));
                    }
                    ruling
                }
            }
            Incident::Resignation(side) => self.end(ply, &incident, GameEvent::Resignation(*side)),
            Incident::Forfeit(side) => self.end(ply, &incident, GameEvent::Forfeit(*side)),
            Incident::Agreement => self.end(ply, &incident, GameEvent::AgreedDraw),
        };
        self.rulings.push(ruling.clone());
        Ok(ruling)
    }

    fn penalty(&mut self, to: Color, article: &str) -> Consequence {
        let seconds = self.rules.penalty_seconds();
        self.time_added[index(to)] += seconds;
        Consequence::TimeAdded {
            side: to,
            seconds,
            article: self.rules.penalty_article(article),
        }
    }

    fn illegal_move(
        &mut self,
        ply: usize,
        side: Color,
        act: IllegalAct,
        written: &str,
        acted_on: ActedOn,
    ) -> Result<Ruling, RefereeError> {
        let written: String = written.trim().chars().take(MAX_WRITTEN_LEN).collect();
        let pos = self.game.position().clone();
        let incident = Incident::IllegalMove {
            side,
            act,
            written: written.clone(),
            acted_on,
        };
        // What was wrong with it, and the move that follows it when the Laws fix one.
        let (what, queen) = match act {
            IllegalAct::Move => match pos.parse_move(&written) {
                Ok(_) => return Err(RefereeError::LegalMove { ply, written }),
                Err(e) if e.illegality().is_some() => {
                    (format!("an illegal move, {written} ({})", e.reason()), None)
                }
                Err(e) => {
                    return Err(RefereeError::BadMove {
                        ply,
                        written,
                        why: format!("cannot be read as a move: {}", e.reason()),
                    });
                }
            },
            IllegalAct::UnpromotedPawn => {
                let queen = unpromoted_to_queen(&pos, &written).ok_or_else(|| {
                    RefereeError::NotAPromotion {
                        ply,
                        written: written.clone(),
                    }
                })?;
                (
                    format!(
                        "a pawn move to the last rank without choosing a piece, {written} (FIDE Laws 7.5.2)"
                    ),
                    Some(queen),
                )
            }
            IllegalAct::ClockWithoutMove => (
                "a press of the clock without a move (FIDE Laws 7.5.3)".to_owned(),
                None,
            ),
            IllegalAct::TwoHands => (
                if written.is_empty() {
                    "a move made with two hands (FIDE Laws 7.5.4)".to_owned()
                } else {
                    format!("a move made with two hands, {written} (FIDE Laws 7.5.4)")
                },
                None,
            ),
        };
        if acted_on == ActedOn::Nobody {
            let Some(article) = self.rules.standing_article() else {
                return Err(RefereeError::UnclaimedUnderCompetitionRules {
                    ply,
                    rules: self.rules.to_string(),
                });
            };
            // A.5.2 lets the act stand. A clock pressed without a move, or a legal move made
            // with two hands, leaves a position the game can go on from.
            let mut explanation = format!(
                "{side} completed {what} {}; nobody claimed it and the arbiter did not intervene before the opponent's next move, so it stands and the game continues (FIDE Laws {article})",
                moment(ply)
            );
            if act == IllegalAct::UnpromotedPawn {
                explanation.push_str(
                    "; a pawn stands on the last rank: if it is still there after the next move, the arbiter declares the game drawn (FIDE Laws A.5.4)",
                );
            }
            let consequences = vec![Consequence::IllegalMoveStands { article }];
            match act {
                IllegalAct::ClockWithoutMove | IllegalAct::TwoHands => {}
                IllegalAct::Move | IllegalAct::UnpromotedPawn => {
                    self.stood = Some(Stood {
                        ply,
                        written,
                        article,
                    });
                }
            }
            return Ok(Ruling {
                ply,
                incident,
                consequences,
                explanation,
            });
        }
        let by = match acted_on {
            ActedOn::Claimed => format!("{} claimed it", side.other()),
            _ => "the arbiter observed it".to_owned(),
        };
        let mut consequences = Vec::new();
        let mut explanation = format!("{side} completed {what} {}; {by}", moment(ply));
        match act {
            IllegalAct::Move => {
                consequences.push(Consequence::PositionReinstated { ply });
                explanation.push_str(
                    ": the position before it is reinstated and the same player moves again (FIDE Laws 7.5.1)",
                );
            }
            IllegalAct::UnpromotedPawn => {
                let queen = queen.expect("an unpromoted pawn has its queen");
                consequences.push(Consequence::MoveRequired {
                    mv: queen,
                    article: "7.5.2",
                });
                self.required = Some((queen, "7.5.2"));
                explanation.push_str(&format!(
                    ": the pawn is replaced by a queen, {} (FIDE Laws 7.5.2)",
                    pos.san(&queen)
                ));
            }
            IllegalAct::ClockWithoutMove | IllegalAct::TwoHands => {}
        }
        self.penalized[index(side)] += 1;
        let opponent = side.other();
        if self.penalized[index(side)] >= 2 {
            let ruling = self.end(ply, &incident, GameEvent::SecondIllegalMove(side));
            consequences.extend(ruling.consequences);
            return Ok(Ruling {
                ply,
                incident,
                consequences,
                explanation: format!(
                    "{explanation}; it is {side}'s second completed illegal move: {}",
                    ruling.explanation
                ),
            });
        }
        let time = self.penalty(opponent, "7.5.5");
        if let Consequence::TimeAdded {
            seconds, article, ..
        } = &time
        {
            explanation.push_str(&format!(
                "; as {side}'s first completed illegal move, {opponent} gets {seconds} more seconds (FIDE Laws {article})"
            ));
        }
        consequences.push(time);
        Ok(Ruling {
            ply,
            incident,
            consequences,
            explanation,
        })
    }

    fn claim(
        &mut self,
        ply: usize,
        side: Color,
        kind: ClaimKind,
        announced: Option<&str>,
    ) -> Result<Ruling, RefereeError> {
        let pos = self.game.position().clone();
        // A claim found incorrect obliges its announced move (9.5.3); a pawn left unpromoted
        // becomes a queen (7.5.2): no claim, with another move or none, replaces that move.
        if let Some((expected, article)) = self.required {
            return Err(RefereeError::MoveRequired {
                ply,
                expected: pos.san(&expected),
                got: match announced {
                    Some(text) => format!(
                        "a draw claim announcing {}",
                        text.chars().take(MAX_WRITTEN_LEN).collect::<String>()
                    ),
                    None => "a draw claim".to_owned(),
                },
                article,
            });
        }
        let announced_move = match announced {
            None => None,
            Some(text) => match pos.parse_move(text) {
                Ok(m) => Some(m),
                Err(e) => {
                    return Err(RefereeError::BadMove {
                        ply,
                        written: text.chars().take(MAX_WRITTEN_LEN).collect(),
                        why: format!(
                            "cannot be the announced move of a claim (FIDE Laws 9.2.1.1, 9.3.1 require a move that can be made): {}",
                            e.reason()
                        ),
                    });
                }
            },
        };
        let incident = Incident::Claim {
            side,
            kind,
            announced: announced_move.map(|m| pos.san(&m)),
        };
        let claim = match announced_move {
            Some(m) => format!(
                "{side} claimed a draw by {} {}, announcing {}",
                claim_words(kind),
                moment(ply),
                pos.san(&m)
            ),
            None => format!(
                "{side} claimed a draw by {} {}",
                claim_words(kind),
                moment(ply)
            ),
        };
        let correct = self
            .game
            .claims()
            .iter()
            .any(|c| c.kind == kind && c.by_move == announced_move);
        if correct {
            let outcome = Outcome::new(GameResult::Draw, kind.termination(), ply);
            let verdict = Verdict {
                outcome: Some(outcome),
                explanation: format!(
                    "{claim}: the claim is correct, the game is drawn (FIDE Laws {}, 9.5.2)",
                    kind.article()
                ),
                evidence: Vec::new(),
                plies_after_end: 0,
                claims: Vec::new(),
                undetermined: false,
                warnings: Vec::new(),
                rulings: Vec::new(),
                event_result: None,
                time_added: self.time_added,
            };
            let explanation = verdict.explanation.clone();
            self.ended = Some(Ended { verdict });
            return Ok(Ruling {
                ply,
                incident,
                consequences: vec![Consequence::ClaimUpheld, Consequence::GameEnded(outcome)],
                explanation,
            });
        }
        let opponent = side.other();
        let time = self.penalty(opponent, "9.5.3");
        let mut explanation = format!(
            "{claim}: the claim is incorrect (FIDE Laws {})",
            kind.article()
        );
        if let Consequence::TimeAdded {
            seconds, article, ..
        } = &time
        {
            explanation.push_str(&format!(
                "; {opponent} gets {seconds} more seconds and the game goes on (FIDE Laws {article})"
            ));
        }
        let mut consequences = vec![Consequence::ClaimRejected, time];
        if let Some(m) = announced_move {
            explanation.push_str(&format!(
                "; the announced move {} must be played (FIDE Laws 9.5.3)",
                pos.san(&m)
            ));
            consequences.push(Consequence::MoveRequired {
                mv: m,
                article: "9.5.3",
            });
            self.required = Some((m, "9.5.3"));
        }
        Ok(Ruling {
            ply,
            incident,
            consequences,
            explanation,
        })
    }

    /// Ends the game on `event` at the current position, through [`adjudicate`] (a dead
    /// position before it, and "can the opponent still checkmate?", decided as there).
    fn end(&mut self, ply: usize, incident: &Incident, event: GameEvent) -> Ruling {
        let verdict = adjudicate(
            &self.game,
            &AdjudicationRequest {
                event: Some(event),
                claim_draw: false,
                budget: self.budget,
            },
        );
        let outcome = verdict.outcome.expect("an event ends the game");
        let explanation = verdict.explanation.clone();
        self.ended = Some(Ended { verdict });
        Ruling {
            ply,
            incident: incident.clone(),
            consequences: vec![Consequence::GameEnded(outcome)],
            explanation,
        }
    }

    /// The verdict on the game so far: the ending an incident gave, or else [`adjudicate`] with
    /// `request` (its event comes after the last ply; the rules' own endings first), with the
    /// rulings, the time added and, with draw odds, the event's result.
    #[must_use]
    pub fn verdict(&self, request: &AdjudicationRequest) -> Verdict {
        let mut verdict = match &self.ended {
            Some(ended) if self.game.outcome().is_none() => ended.verdict.clone(),
            _ => adjudicate(&self.game, request),
        };
        verdict.rulings = self.rulings.clone();
        verdict.time_added = self.time_added;
        verdict.event_result = verdict
            .outcome
            .and_then(|o| self.rules.event_result(o.result));
        verdict
    }
}

/// The queen promotion that replaces an unpromoted pawn move `written` (7.5.2), or `None`
/// when `written` is no pawn move to the last rank.
fn unpromoted_to_queen(pos: &crate::position::Position, written: &str) -> Option<Move> {
    use crate::types::Role;
    let with_queen = if written.len() == 4 && written.is_ascii() {
        format!("{written}q")
    } else {
        format!("{written}=Q")
    };
    let m = pos.parse_move(&with_queen).ok()?;
    (m.promotion == Some(Role::Queen)).then_some(m)
}

/// When an incident happened, in words: "in the position after ply 12", or "in the start
/// position" at ply 0 (an incident's ply counts the plies played before it, while a move's ply
/// is the move's own, 1-based).
fn moment(ply: usize) -> String {
    if ply == 0 {
        "in the start position".to_owned()
    } else {
        format!("in the position after ply {ply}")
    }
}

fn claim_words(kind: ClaimKind) -> &'static str {
    match kind {
        ClaimKind::ThreefoldRepetition => "threefold repetition",
        ClaimKind::FiftyMoveRule => "the fifty-move rule",
    }
}

/// Where in a record [`adjudicate_record_located`] met a [`RefereeError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordPlace {
    /// The incident at this 0-based index of the list.
    Incident(usize),
    /// The record's move at this 0-based index of [`Game::moves`] (ply index + 1 in 1-based
    /// terms): a move the Laws fix otherwise (7.5.2, 9.5.3), or one after an illegal move
    /// stood (A.5.2).
    Move(usize),
}

/// Checks that `incidents` are in ply order and none is past ply `plies`; an error names the
/// incident's index.
fn check_incident_order(incidents: &[TimedIncident], plies: usize) -> Result<(), RefereeError> {
    let mut last = 0;
    for (index, timed) in incidents.iter().enumerate() {
        let out_of_order = |why| RefereeError::OutOfOrder {
            index,
            ply: timed.ply,
            why,
        };
        if timed.ply < last {
            return Err(out_of_order(format!(
                "comes before the previous incident's ply {last}"
            )));
        }
        if timed.ply > plies {
            return Err(out_of_order(format!(
                "is past the game's last ply, {plies}"
            )));
        }
        last = timed.ply;
    }
    Ok(())
}

/// Adjudicates a finished game's record with its incidents in ply order, under `rules`: each
/// incident is ruled on in the position after its ply, and `request` (the end-of-game event,
/// the claim) applies after the last ply as [`adjudicate`] does. When an incident ends the game
/// before the record does, the plies after it are counted as played after the end (a
/// `moves_after_end` warning), as for the rules' own endings. Without incidents this is
/// [`adjudicate`] with the rule set's event result (no second replay).
///
/// # Errors
/// [`RefereeError::OutOfOrder`] for incidents out of ply order or past the record's end; the
/// first [`RefereeError`] an incident or a move gives (a move the Laws fix, 7.5.2 or 9.5.3,
/// that the record does not play; a record going on after an illegal move stood, A.5.2).
pub fn adjudicate_record(
    game: &Game,
    incidents: &[TimedIncident],
    rules: &RuleSet,
    request: &AdjudicationRequest,
) -> Result<Verdict, RefereeError> {
    adjudicate_record_located(game, incidents, rules, request).map_err(|(_, error)| error)
}

/// [`adjudicate_record`], with the place of an error: the incident of the list or the move of
/// the record that gave it, so that a caller can name the field it came from.
///
/// # Errors
/// As [`adjudicate_record`], with its [`RecordPlace`].
pub fn adjudicate_record_located(
    game: &Game,
    incidents: &[TimedIncident],
    rules: &RuleSet,
    request: &AdjudicationRequest,
) -> Result<Verdict, (RecordPlace, RefereeError)> {
    if incidents.is_empty() {
        let mut verdict = adjudicate(game, request);
        verdict.event_result = verdict.outcome.and_then(|o| rules.event_result(o.result));
        return Ok(verdict);
    }
    let plies = game.ply();
    check_incident_order(incidents, plies).map_err(|e| {
        let index = match &e {
            RefereeError::OutOfOrder { index, .. } => *index,
            _ => 0,
        };
        (RecordPlace::Incident(index), e)
    })?;
    let mut referee = Referee::new(game.restarted(), rules.clone(), request.budget);
    let mut next = incidents.iter().enumerate().peekable();
    // The incidents at each ply, then the record's move from it; the last ply has no move.
    let mut moves = game.moves().iter();
    for ply in 0..=plies {
        while let Some((index, timed)) = next.next_if(|(_, t)| t.ply == ply) {
            if referee.outcome().is_some() {
                // Incidents after the end change nothing; the verdict says where it ended.
                continue;
            }
            referee
                .incident(timed.incident.clone())
                .map_err(|e| (RecordPlace::Incident(index), e))?;
        }
        if referee.outcome().is_some() {
            break;
        }
        match moves.next() {
            Some(&mv) => referee.play(mv).map_err(|e| (RecordPlace::Move(ply), e))?,
            None => break,
        }
    }
    if referee.ended.is_none() || game.outcome().is_some_and(|o| o.ply <= referee.game.ply()) {
        // No incident ended the game: the record's own verdict, with what the incidents caused.
        let mut verdict = adjudicate(game, request);
        verdict.rulings = referee.rulings;
        verdict.time_added = referee.time_added;
        verdict.event_result = verdict.outcome.and_then(|o| rules.event_result(o.result));
        return Ok(verdict);
    }
    let mut verdict = referee.verdict(request);
    if let Some(outcome) = verdict.outcome {
        note_plies_after_end(&mut verdict, &outcome, plies.saturating_sub(outcome.ply));
    }
    Ok(verdict)
}
