//! The rules an event is played under (FIDE Laws of Chess, 2023, Appendices A and B): the time
//! class, whether the games are adequately supervised, and Black's draw odds in an Armageddon
//! game, which event regulations, not the Laws, define.

use std::fmt;

use thiserror::Error;

use crate::game::GameResult;

/// The time class of an event, which decides the penalties of Articles 7 and 9 and which
/// Appendix applies (FIDE Laws, 2023).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimeClass {
    /// Standard play: the Competition Rules (Articles 6 to 12) as written.
    #[default]
    Standard,
    /// Rapid chess (Appendix A.1: more than 10 and less than 60 minutes for each player,
    /// counting 60 times any increment).
    Rapid,
    /// Blitz (Appendix B.1: 10 minutes or less for each player, counting 60 times any
    /// increment). Supervised (B.2) it takes the Competition Rules as they are; unsupervised
    /// (B.3) it takes A.2, A.3 and A.5.
    Blitz,
}

impl TimeClass {
    /// The name as the CLI and the docs spell it: `standard`, `rapid`, `blitz`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TimeClass::Standard => "standard",
            TimeClass::Rapid => "rapid",
            TimeClass::Blitz => "blitz",
        }
    }
}

/// Whether the games of a rapid or blitz event are adequately supervised, as the event
/// regulations choose for all its games (FIDE Laws A.6, B.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Supervision {
    /// The Competition Rules apply: standard play, rapid under A.4 (one arbiter for at most
    /// three games, each recorded), blitz under B.2 (one arbiter for one game).
    #[default]
    Adequate,
    /// Rapid under A.5, blitz under B.3: an illegal move nobody acts on before the opponent's
    /// next move stands (A.5.2), and a flag counts only when claimed or seen by the arbiter
    /// (A.5.3, A.5.5).
    Inadequate,
}

/// Black's draw odds (Armageddon): a drawn game counts as a win for Black. Not in the Laws;
/// the event's or tie-break regulations define it, and the verdict names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DrawOdds {
    /// The regulation that gives Black the draw odds, as the client names it, e.g. "FIDE World
    /// Cup 2025 regulations 3.7.5"; at most [`MAX_REGULATION_LEN`] bytes, not empty.
    pub regulation: String,
}

/// The longest regulation name [`RuleSet::new`] accepts, in bytes.
pub const MAX_REGULATION_LEN: usize = 200;

/// The regulation named when the CLI's `armageddon` is given without a name.
pub const DEFAULT_REGULATION: &str = "Armageddon (the event's regulations)";

/// The rules a game is played under: time class, supervision and draw odds. The default is
/// standard play under the Competition Rules, without draw odds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleSet {
    time_class: TimeClass,
    supervision: Supervision,
    draw_odds: Option<DrawOdds>,
}

/// Why a [`RuleSet`] cannot be made or read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RuleSetError {
    /// Standard play has no unsupervised variant: A.5 and B.3 are for rapid and blitz only.
    #[error(
        "'unsupervised' (FIDE Laws A.5, B.3) applies to rapid and blitz only: write rapid,unsupervised or blitz,unsupervised (standard play is always under the Competition Rules)"
    )]
    UnsupervisedStandard,
    /// The draw odds' regulation is empty or longer than [`MAX_REGULATION_LEN`] bytes.
    #[error(
        "the regulation giving Black draw odds must be named: 1 to {MAX_REGULATION_LEN} bytes, not only spaces (got {0})"
    )]
    BadRegulation(usize),
    /// A word of a rule-set spelling is not one [`RuleSet::parse`] knows.
    #[error(
        "unknown rule '{0}': the rules are written as comma-separated words from standard, rapid, blitz, supervised, unsupervised, armageddon (e.g. 'blitz,unsupervised')"
    )]
    UnknownWord(String),
    /// Two words of a spelling contradict each other (`rapid,blitz`).
    #[error("'{0}' and '{1}' cannot both be given")]
    Conflict(String, String),
}

impl RuleSet {
    /// A rule set.
    ///
    /// # Errors
    /// [`RuleSetError::UnsupervisedStandard`] for standard play with inadequate supervision;
    /// [`RuleSetError::BadRegulation`] for draw odds without a regulation name or with one
    /// longer than [`MAX_REGULATION_LEN`] bytes.
    pub fn new(
        time_class: TimeClass,
        supervision: Supervision,
        draw_odds: Option<DrawOdds>,
    ) -> Result<RuleSet, RuleSetError> {
        if time_class == TimeClass::Standard && supervision == Supervision::Inadequate {
            return Err(RuleSetError::UnsupervisedStandard);
        }
        if let Some(odds) = &draw_odds {
            let len = odds.regulation.trim().len();
            if len == 0 || odds.regulation.len() > MAX_REGULATION_LEN {
                return Err(RuleSetError::BadRegulation(odds.regulation.len()));
            }
        }
        Ok(RuleSet {
            time_class,
            supervision,
            draw_odds,
        })
    }

    /// Reads the CLI's spelling: comma-separated words, any case, spaces around them ignored:
    /// one time class (`standard`, `rapid`, `blitz`; standard when none), `supervised` (the
    /// default) or `unsupervised`, and `armageddon` for Black's draw odds under `regulation`
    /// ([`DEFAULT_REGULATION`] when `None`). `armageddon` alone is blitz, as Armageddon games
    /// are played. Examples: `blitz`, `rapid,unsupervised`, `armageddon`, `rapid,armageddon`.
    ///
    /// # Errors
    /// [`RuleSetError::UnknownWord`], [`RuleSetError::Conflict`], and those of
    /// [`RuleSet::new`].
    pub fn parse(spec: &str, regulation: Option<&str>) -> Result<RuleSet, RuleSetError> {
        let mut time_class: Option<(TimeClass, String)> = None;
        let mut supervision: Option<(Supervision, String)> = None;
        let mut armageddon = false;
        for word in spec.split(',') {
            let word = word.trim();
            let lower = word.to_ascii_lowercase();
            match lower.as_str() {
                "standard" | "rapid" | "blitz" => {
                    let class = match lower.as_str() {
                        "standard" => TimeClass::Standard,
                        "rapid" => TimeClass::Rapid,
                        _ => TimeClass::Blitz,
                    };
                    if let Some((_, before)) = &time_class {
                        return Err(RuleSetError::Conflict(before.clone(), word.to_owned()));
                    }
                    time_class = Some((class, word.to_owned()));
                }
                "supervised" | "unsupervised" => {
                    let s = if lower == "supervised" {
                        Supervision::Adequate
                    } else {
                        Supervision::Inadequate
                    };
                    if let Some((_, before)) = &supervision {
                        return Err(RuleSetError::Conflict(before.clone(), word.to_owned()));
                    }
                    supervision = Some((s, word.to_owned()));
                }
                "armageddon" => {
                    if armageddon {
                        return Err(RuleSetError::Conflict(word.to_owned(), word.to_owned()));
                    }
                    armageddon = true;
                }
                _ => return Err(RuleSetError::UnknownWord(word.chars().take(40).collect())),
            }
        }
        let class = match time_class {
            Some((class, _)) => class,
            None if armageddon => TimeClass::Blitz,
            None => TimeClass::Standard,
        };
        let draw_odds = armageddon.then(|| DrawOdds {
            regulation: regulation.unwrap_or(DEFAULT_REGULATION).to_owned(),
        });
        RuleSet::new(
            class,
            supervision.map_or(Supervision::Adequate, |(s, _)| s),
            draw_odds,
        )
    }

    /// Blitz under B.2 or B.3 as `supervision` says, with Black's draw odds under `regulation`:
    /// an Armageddon game.
    ///
    /// # Errors
    /// [`RuleSetError::BadRegulation`].
    pub fn armageddon(supervision: Supervision, regulation: &str) -> Result<RuleSet, RuleSetError> {
        RuleSet::new(
            TimeClass::Blitz,
            supervision,
            Some(DrawOdds {
                regulation: regulation.to_owned(),
            }),
        )
    }

    /// The time class.
    #[must_use]
    pub fn time_class(&self) -> TimeClass {
        self.time_class
    }

    /// The supervision (always [`Supervision::Adequate`] for standard play).
    #[must_use]
    pub fn supervision(&self) -> Supervision {
        self.supervision
    }

    /// Black's draw odds, if the event gives them.
    #[must_use]
    pub fn draw_odds(&self) -> Option<&DrawOdds> {
        self.draw_odds.as_ref()
    }

    /// The time, in seconds, the arbiter adds to the opponent's clock for a first completed
    /// illegal move (FIDE Laws 7.5.5) or an incorrect draw claim (9.5.3): 120 in standard play
    /// and in supervised blitz (B.2 names the Competition Rules only), 60 in rapid (A.3: one
    /// minute instead of two) and in unsupervised blitz (B.3 applies A.3).
    #[must_use]
    pub const fn penalty_seconds(&self) -> u32 {
        match (self.time_class, self.supervision) {
            (TimeClass::Standard, _) | (TimeClass::Blitz, Supervision::Adequate) => 120,
            (TimeClass::Rapid, _) | (TimeClass::Blitz, Supervision::Inadequate) => 60,
        }
    }

    /// The article that sets [`RuleSet::penalty_seconds`] for a penalty of `article` (7.5.5 or
    /// 9.5.3): the article itself in standard play, with "A.3" in rapid, with "B.2" (the
    /// Competition Rules) or "B.3, A.3" in blitz.
    #[must_use]
    pub fn penalty_article(&self, article: &str) -> String {
        match (self.time_class, self.supervision) {
            (TimeClass::Standard, _) => article.to_owned(),
            (TimeClass::Rapid, _) => format!("{article} with A.3"),
            (TimeClass::Blitz, Supervision::Adequate) => format!("{article} with B.2"),
            (TimeClass::Blitz, Supervision::Inadequate) => format!("{article} with B.3, A.3"),
        }
    }

    /// Whether an illegal move that neither the opponent claims nor the arbiter sees before the
    /// opponent's next move stands (A.5.2; blitz B.3): rapid and blitz without adequate
    /// supervision.
    #[must_use]
    pub const fn unclaimed_illegal_move_stands(&self) -> bool {
        matches!(self.supervision, Supervision::Inadequate)
    }

    /// The article under which an unclaimed illegal move stands: "A.5.2" in rapid, "B.3, A.5.2"
    /// in blitz; `None` where it never stands.
    #[must_use]
    pub const fn standing_article(&self) -> Option<&'static str> {
        match (self.time_class, self.supervision) {
            (TimeClass::Rapid, Supervision::Inadequate) => Some("A.5.2"),
            (TimeClass::Blitz, Supervision::Inadequate) => Some("B.3, A.5.2"),
            _ => None,
        }
    }

    /// Whether Guidelines III (games without increment, quickplay finishes) can apply, if the
    /// event announced them: standard and rapid, never blitz (Guidelines III.2.2).
    #[must_use]
    pub const fn guidelines_iii_can_apply(&self) -> bool {
        !matches!(self.time_class, TimeClass::Blitz)
    }

    /// The event's result for a game whose result under the Laws is `laws`: with draw odds a
    /// draw counts as a win for Black; otherwise, and for a decisive result, the same. `None`
    /// when the rule set has no draw odds (the Laws' result is the event's).
    #[must_use]
    pub fn event_result(&self, laws: GameResult) -> Option<EventResult> {
        let odds = self.draw_odds.as_ref()?;
        let (result, explanation) = match laws {
            GameResult::Draw => (
                GameResult::BlackWins,
                format!(
                    "drawn under the Laws; Black has draw odds, so the draw counts as a win for Black ({})",
                    odds.regulation
                ),
            ),
            other => (
                other,
                format!(
                    "{other} under the Laws; draw odds change only a draw ({})",
                    odds.regulation
                ),
            ),
        };
        Some(EventResult {
            result,
            regulation: odds.regulation.clone(),
            explanation,
        })
    }
}

impl fmt::Display for RuleSet {
    /// The CLI's spelling, e.g. `blitz,unsupervised,armageddon` (`standard` for the default).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.time_class.name())?;
        if self.supervision == Supervision::Inadequate {
            f.write_str(",unsupervised")?;
        }
        if self.draw_odds.is_some() {
            f.write_str(",armageddon")?;
        }
        Ok(())
    }
}

/// The result a game counts as under the event's regulations (Armageddon), beside the Laws'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventResult {
    /// The result for the event: a draw under the Laws is a win for Black.
    pub result: GameResult,
    /// The regulation that decides it, as the client named it.
    pub regulation: String,
    /// Why, in words, e.g. "drawn under the Laws; Black has draw odds, so the draw counts as a
    /// win for Black (FIDE World Cup 2025 regulations 3.7.5)".
    pub explanation: String,
}
