//! Rule sets, incidents and rulings (FIDE Laws 7.5, 9.5, Appendices A and B; Armageddon's draw
//! odds), both ways.

use arbiter_rules::{
    ActedOn, Consequence, DrawOdds, EventResult, IllegalAct, Incident, RefereeError, RuleSet,
    RuleSetError, Ruling, Supervision, TimeClass, TimedIncident,
};

use super::*;

/// Reads a wire rule set at `field`; absent is standard play under the Competition Rules.
///
/// # Errors
///
/// [`ErrorReason::InvalidValue`] for an unknown enum number, standard play with inadequate
/// supervision (`field.supervision`), or a draw-odds regulation longer than 200 bytes or of
/// spaces only (`field.draw_odds_regulation`).
pub fn rule_set_from_wire(
    rules: Option<&v1::RuleSet>,
    field: &str,
) -> Result<RuleSet, ConvertError> {
    let Some(rules) = rules else {
        return Ok(RuleSet::default());
    };
    let time_class = match v1::TimeClass::try_from(rules.time_class) {
        Ok(v1::TimeClass::Unspecified | v1::TimeClass::Standard) => TimeClass::Standard,
        Ok(v1::TimeClass::Rapid) => TimeClass::Rapid,
        Ok(v1::TimeClass::Blitz) => TimeClass::Blitz,
        Err(_) => {
            return Err(ConvertError::new(
                join(field, "time_class"),
                ErrorReason::InvalidValue,
                format!("{} is not a TimeClass value", rules.time_class),
            ));
        }
    };
    let supervision = match v1::Supervision::try_from(rules.supervision) {
        Ok(v1::Supervision::Unspecified | v1::Supervision::Adequate) => Supervision::Adequate,
        Ok(v1::Supervision::Inadequate) => Supervision::Inadequate,
        Err(_) => {
            return Err(ConvertError::new(
                join(field, "supervision"),
                ErrorReason::InvalidValue,
                format!("{} is not a Supervision value", rules.supervision),
            ));
        }
    };
    let draw_odds = (!rules.draw_odds_regulation.is_empty()).then(|| DrawOdds {
        regulation: rules.draw_odds_regulation.clone(),
    });
    RuleSet::new(time_class, supervision, draw_odds).map_err(|e| {
        let at = match e {
            RuleSetError::BadRegulation(_) => "draw_odds_regulation",
            _ => "supervision",
        };
        ConvertError::new(join(field, at), ErrorReason::InvalidValue, e.to_string())
    })
}

/// The wire form of a rule set.
#[must_use]
pub fn rule_set_to_wire(rules: &RuleSet) -> v1::RuleSet {
    v1::RuleSet {
        time_class: match rules.time_class() {
            TimeClass::Standard => v1::TimeClass::Standard,
            TimeClass::Rapid => v1::TimeClass::Rapid,
            TimeClass::Blitz => v1::TimeClass::Blitz,
        }
        .into(),
        supervision: match rules.supervision() {
            Supervision::Adequate => v1::Supervision::Adequate,
            Supervision::Inadequate => v1::Supervision::Inadequate,
        }
        .into(),
        draw_odds_regulation: rules
            .draw_odds()
            .map(|d| d.regulation.clone())
            .unwrap_or_default(),
    }
}

fn acted_on_from_wire(value: i32, field: &str) -> Result<ActedOn, ConvertError> {
    match v1::ActedOn::try_from(value) {
        Ok(v1::ActedOn::Claimed) => Ok(ActedOn::Claimed),
        Ok(v1::ActedOn::ArbiterObserved) => Ok(ActedOn::ArbiterObserved),
        Ok(v1::ActedOn::Nobody) => Ok(ActedOn::Nobody),
        Ok(v1::ActedOn::Unspecified) => Err(ConvertError::missing(
            field,
            "who acted on it (claimed, arbiter_observed or nobody)",
        )),
        Err(_) => Err(ConvertError::new(
            field,
            ErrorReason::InvalidValue,
            format!("{value} is not an ActedOn value"),
        )),
    }
}

fn acted_on_to_wire(acted_on: ActedOn) -> v1::ActedOn {
    match acted_on {
        ActedOn::Claimed => v1::ActedOn::Claimed,
        ActedOn::ArbiterObserved => v1::ActedOn::ArbiterObserved,
        ActedOn::Nobody => v1::ActedOn::Nobody,
    }
}

fn act_to_wire(act: IllegalAct) -> v1::IllegalAct {
    match act {
        IllegalAct::Move => v1::IllegalAct::Move,
        IllegalAct::UnpromotedPawn => v1::IllegalAct::UnpromotedPawn,
        IllegalAct::ClockWithoutMove => v1::IllegalAct::ClockWithoutMove,
        IllegalAct::TwoHands => v1::IllegalAct::TwoHands,
    }
}

/// The longest move text an incident may carry, in characters.
pub const MAX_INCIDENT_MOVE_LEN: usize = 32;

/// Reads one wire incident at `field` (e.g. `"incidents[3]"`); its move (an illegal move, a
/// claim's announced move) is SAN of `language`, as the game's moves are, or UCI, and is kept
/// with English piece letters ([`Incident::with_english_moves`]), as the referee reads it.
///
/// # Errors
///
/// [`ErrorReason::MissingField`] for an unset kind, side (but for an agreement), who acted on
/// an illegal move or a flag fall, a claim's kind, or an illegal move's `move` (7.5.1, 7.5.2);
/// [`ErrorReason::InvalidValue`] for unknown enum numbers and a `move` longer than
/// [`MAX_INCIDENT_MOVE_LEN`] characters.
pub fn incident_from_wire(
    incident: &v1::Incident,
    field: &str,
    language: SanLanguage,
) -> Result<TimedIncident, ConvertError> {
    let kind = v1::IncidentKind::try_from(incident.kind).map_err(|_| {
        ConvertError::new(
            join(field, "kind"),
            ErrorReason::InvalidValue,
            format!("{} is not an IncidentKind value", incident.kind),
        )
    })?;
    if incident.r#move.chars().count() > MAX_INCIDENT_MOVE_LEN {
        return Err(ConvertError::new(
            join(field, "move"),
            ErrorReason::InvalidValue,
            format!(
                "a move is at most {MAX_INCIDENT_MOVE_LEN} characters (got {})",
                incident.r#move.chars().count()
            ),
        ));
    }
    let side = || color_from_wire(incident.side, &join(field, "side"));
    let written = incident.r#move.trim().to_owned();
    let parsed = match kind {
        v1::IncidentKind::Unspecified => {
            return Err(ConvertError::missing(
                join(field, "kind"),
                "an incident kind",
            ));
        }
        v1::IncidentKind::IllegalMove => {
            let act = match v1::IllegalAct::try_from(incident.act) {
                Ok(v1::IllegalAct::Unspecified | v1::IllegalAct::Move) => IllegalAct::Move,
                Ok(v1::IllegalAct::UnpromotedPawn) => IllegalAct::UnpromotedPawn,
                Ok(v1::IllegalAct::ClockWithoutMove) => IllegalAct::ClockWithoutMove,
                Ok(v1::IllegalAct::TwoHands) => IllegalAct::TwoHands,
                Err(_) => {
                    return Err(ConvertError::new(
                        join(field, "act"),
                        ErrorReason::InvalidValue,
                        format!("{} is not an IllegalAct value", incident.act),
                    ));
                }
            };
            if written.is_empty() && matches!(act, IllegalAct::Move | IllegalAct::UnpromotedPawn) {
                return Err(ConvertError::missing(
                    join(field, "move"),
                    "the illegal move as written (FIDE Laws 7.5.1, 7.5.2)",
                ));
            }
            Incident::IllegalMove {
                side: side()?,
                act,
                written,
                acted_on: acted_on_from_wire(incident.acted_on, &join(field, "acted_on"))?,
            }
        }
        v1::IncidentKind::DrawOffer => Incident::DrawOffer(side()?),
        v1::IncidentKind::Claim => {
            let kind = match v1::ClaimKind::try_from(incident.claim) {
                Ok(v1::ClaimKind::ThreefoldRepetition) => ClaimKind::ThreefoldRepetition,
                Ok(v1::ClaimKind::FiftyMoveRule) => ClaimKind::FiftyMoveRule,
                Ok(v1::ClaimKind::Unspecified) => {
                    return Err(ConvertError::missing(
                        join(field, "claim"),
                        "the claim's kind (threefold repetition 9.2 or fifty-move rule 9.3)",
                    ));
                }
                Err(_) => {
                    return Err(ConvertError::new(
                        join(field, "claim"),
                        ErrorReason::InvalidValue,
                        format!("{} is not a ClaimKind value", incident.claim),
                    ));
                }
            };
            Incident::Claim {
                side: side()?,
                kind,
                announced: (!written.is_empty()).then_some(written),
            }
        }
        v1::IncidentKind::FlagFall => Incident::FlagFall {
            side: side()?,
            noticed: acted_on_from_wire(incident.acted_on, &join(field, "acted_on"))?,
        },
        v1::IncidentKind::Resignation => Incident::Resignation(side()?),
        v1::IncidentKind::Forfeit => Incident::Forfeit(side()?),
        v1::IncidentKind::Agreement => Incident::Agreement,
    };
    Ok(TimedIncident {
        ply: incident.ply as usize,
        incident: parsed.with_english_moves(language),
    })
}

/// Reads a list of wire incidents at `field` (`"incidents"`), at most `max` of them, their
/// moves in `language` ([`incident_from_wire`]); `bound` names the setting `max` comes from
/// (`"--max-moves"`, `"--max-follow-incidents"`) in the error.
///
/// # Errors
///
/// [`ErrorReason::LimitExceeded`] for more than `max`, naming `bound`; the first error of
/// [`incident_from_wire`], at `field[i]`.
pub fn incidents_from_wire(
    incidents: &[v1::Incident],
    max: usize,
    bound: &str,
    field: &str,
    language: SanLanguage,
) -> Result<Vec<TimedIncident>, ConvertError> {
    if incidents.len() > max {
        return Err(ConvertError::new(
            field,
            ErrorReason::LimitExceeded,
            format!("at most {max} incidents ({bound}), got {}", incidents.len()),
        ));
    }
    incidents
        .iter()
        .enumerate()
        .map(|(i, incident)| incident_from_wire(incident, &format!("{field}[{i}]"), language))
        .collect()
}

/// The wire form of an incident at `ply`.
#[must_use]
pub fn incident_to_wire(ply: usize, incident: &Incident) -> v1::Incident {
    let mut wire = v1::Incident {
        ply: u32::try_from(ply).unwrap_or(u32::MAX),
        ..v1::Incident::default()
    };
    let (kind, side) = match incident {
        Incident::IllegalMove {
            side,
            act,
            written,
            acted_on,
        } => {
            wire.act = act_to_wire(*act).into();
            wire.r#move.clone_from(written);
            wire.acted_on = acted_on_to_wire(*acted_on).into();
            (v1::IncidentKind::IllegalMove, Some(*side))
        }
        Incident::DrawOffer(side) => (v1::IncidentKind::DrawOffer, Some(*side)),
        Incident::Claim {
            side,
            kind,
            announced,
        } => {
            wire.claim = claim_kind_to_wire(*kind).into();
            wire.r#move = announced.clone().unwrap_or_default();
            (v1::IncidentKind::Claim, Some(*side))
        }
        Incident::FlagFall { side, noticed } => {
            wire.acted_on = acted_on_to_wire(*noticed).into();
            (v1::IncidentKind::FlagFall, Some(*side))
        }
        Incident::Resignation(side) => (v1::IncidentKind::Resignation, Some(*side)),
        Incident::Forfeit(side) => (v1::IncidentKind::Forfeit, Some(*side)),
        Incident::Agreement => (v1::IncidentKind::Agreement, None),
    };
    wire.kind = kind.into();
    wire.side = side.map_or(v1::Color::Unspecified, color_to_wire).into();
    wire
}

/// The wire form of a consequence; `position` is the one the incident happened in (for a
/// required move's SAN, in `language`).
#[must_use]
pub fn consequence_to_wire(
    consequence: &Consequence,
    position: &Position,
    language: SanLanguage,
) -> v1::Consequence {
    let mut wire = v1::Consequence::default();
    let kind = match consequence {
        Consequence::PositionReinstated { ply } => {
            wire.ply = u32::try_from(*ply).unwrap_or(u32::MAX);
            wire.fide_article = "7.5.1".to_owned();
            v1::ConsequenceKind::PositionReinstated
        }
        Consequence::TimeAdded {
            side,
            seconds,
            article,
        } => {
            wire.side = color_to_wire(*side).into();
            wire.seconds = *seconds;
            wire.fide_article.clone_from(article);
            v1::ConsequenceKind::TimeAdded
        }
        Consequence::MoveRequired { mv, article } => {
            wire.r#move = Some(move_to_wire_in(position, mv, language).0);
            (*article).clone_into(&mut wire.fide_article);
            v1::ConsequenceKind::MoveRequired
        }
        Consequence::IllegalMoveStands { article } => {
            (*article).clone_into(&mut wire.fide_article);
            v1::ConsequenceKind::IllegalMoveStands
        }
        Consequence::ClaimUpheld => {
            wire.fide_article = "9.5.2".to_owned();
            v1::ConsequenceKind::ClaimUpheld
        }
        Consequence::ClaimRejected => {
            wire.fide_article = "9.5.3".to_owned();
            v1::ConsequenceKind::ClaimRejected
        }
        Consequence::Recorded => v1::ConsequenceKind::Recorded,
        Consequence::GameEnded(outcome) => {
            wire.fide_article = outcome.article().to_owned();
            wire.outcome = Some(outcome_to_wire(outcome));
            v1::ConsequenceKind::GameEnded
        }
    };
    wire.kind = kind.into();
    wire
}

/// The wire form of a ruling made in `position` (the position at its ply).
#[must_use]
pub fn ruling_to_wire(ruling: &Ruling, position: &Position, language: SanLanguage) -> v1::Ruling {
    v1::Ruling {
        incident: Some(incident_to_wire(ruling.ply, &ruling.incident)),
        consequences: ruling
            .consequences
            .iter()
            .map(|c| consequence_to_wire(c, position, language))
            .collect(),
        explanation: ruling.explanation.clone(),
    }
}

/// The wire form of the rulings of `game`, each with the position at its ply (the game's
/// moves are replayed once, up to the last ruling's ply).
#[must_use]
pub fn rulings_to_wire(game: &Game, rulings: &[Ruling], language: SanLanguage) -> Vec<v1::Ruling> {
    let mut position = game.start().clone();
    let mut at = 0;
    let mut moves = game.moves().iter();
    rulings
        .iter()
        .map(|ruling| {
            while at < ruling.ply {
                let Some(mv) = moves.next() else { break };
                position = position.play(mv);
                at += 1;
            }
            ruling_to_wire(ruling, &position, language)
        })
        .collect()
}

/// The wire form of an event result (Armageddon).
#[must_use]
pub fn event_result_to_wire(result: &EventResult) -> v1::EventResult {
    v1::EventResult {
        result: result_to_wire(result.result).into(),
        result_text: result.result.as_pgn().to_owned(),
        regulation: result.regulation.clone(),
        explanation: result.explanation.clone(),
    }
}

/// The [`ConvertError`] for an incident or move the referee refused, at `field`: reason
/// INVALID_VALUE (ILLEGAL_MOVE for a move the Laws require that was not played, and for a
/// record going on past an illegal move that stood), the error's words, and its `ply` and
/// `referee_error` kind in the metadata.
#[must_use]
pub fn referee_error(field: &str, error: &RefereeError) -> ConvertError {
    let reason = match error {
        RefereeError::MoveRequired { .. } | RefereeError::IllegalMoveStood { .. } => {
            ErrorReason::IllegalMove
        }
        _ => ErrorReason::InvalidValue,
    };
    ConvertError::new(field, reason, error.to_string())
        .with_metadata("ply", error.ply().to_string())
        .with_metadata("referee_error", error.kind())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_rules::ClaimKind as RulesClaim;

    /// Issue 29: every kind of incident read from the wire and written back is the same
    /// incident (FIDE Laws 7.5.1 to 7.5.4, 9.1.2, 9.2/9.3, 6.8, 5.1.2, 6.7.1, 5.2.3).
    #[test]
    fn incidents_round_trip_through_the_wire() {
        let incidents = [
            Incident::IllegalMove {
                side: Color::White,
                act: IllegalAct::Move,
                written: "Ke3".to_owned(),
                acted_on: ActedOn::Claimed,
            },
            Incident::IllegalMove {
                side: Color::Black,
                act: IllegalAct::UnpromotedPawn,
                written: "e1".to_owned(),
                acted_on: ActedOn::ArbiterObserved,
            },
            Incident::IllegalMove {
                side: Color::White,
                act: IllegalAct::ClockWithoutMove,
                written: String::new(),
                acted_on: ActedOn::Nobody,
            },
            Incident::IllegalMove {
                side: Color::Black,
                act: IllegalAct::TwoHands,
                written: String::new(),
                acted_on: ActedOn::Claimed,
            },
            Incident::DrawOffer(Color::Black),
            Incident::Claim {
                side: Color::White,
                kind: RulesClaim::ThreefoldRepetition,
                announced: Some("Nf3".to_owned()),
            },
            Incident::Claim {
                side: Color::Black,
                kind: RulesClaim::FiftyMoveRule,
                announced: None,
            },
            Incident::FlagFall {
                side: Color::White,
                noticed: ActedOn::Nobody,
            },
            Incident::Resignation(Color::Black),
            Incident::Forfeit(Color::White),
            Incident::Agreement,
        ];
        for (ply, incident) in incidents.into_iter().enumerate() {
            let wire = incident_to_wire(ply, &incident);
            let back = incident_from_wire(&wire, "incidents[0]", SanLanguage::English)
                .expect("reads back");
            assert_eq!(back, TimedIncident { ply, incident });
        }
    }

    /// Issue 29: a wire incident without what its kind needs names the missing field under its
    /// place in the list, with MISSING_FIELD; unknown enum numbers are INVALID_VALUE.
    #[test]
    fn missing_incident_fields_are_named() {
        let illegal = v1::Incident {
            kind: v1::IncidentKind::IllegalMove.into(),
            side: v1::Color::White.into(),
            r#move: "Ke3".to_owned(),
            acted_on: v1::ActedOn::Claimed.into(),
            ..v1::Incident::default()
        };
        let cases = [
            (
                v1::Incident::default(),
                "incidents[2].kind",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    side: 0,
                    ..illegal.clone()
                },
                "incidents[2].side",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    r#move: String::new(),
                    ..illegal.clone()
                },
                "incidents[2].move",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    acted_on: 0,
                    ..illegal.clone()
                },
                "incidents[2].acted_on",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    kind: v1::IncidentKind::Claim.into(),
                    ..illegal.clone()
                },
                "incidents[2].claim",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    kind: v1::IncidentKind::FlagFall.into(),
                    acted_on: 0,
                    ..illegal.clone()
                },
                "incidents[2].acted_on",
                ErrorReason::MissingField,
            ),
            (
                v1::Incident {
                    act: 99,
                    ..illegal.clone()
                },
                "incidents[2].act",
                ErrorReason::InvalidValue,
            ),
            (
                v1::Incident {
                    r#move: "x".repeat(MAX_INCIDENT_MOVE_LEN + 1),
                    ..illegal.clone()
                },
                "incidents[2].move",
                ErrorReason::InvalidValue,
            ),
        ];
        for (wire, field, reason) in cases {
            let list = [illegal.clone(), illegal.clone(), wire];
            let error =
                incidents_from_wire(&list, 10, "--max-moves", "incidents", SanLanguage::English)
                    .expect_err(field);
            assert_eq!((error.field.as_str(), error.kind), (field, reason));
        }
        // An agreement needs no side.
        let agreement = v1::Incident {
            kind: v1::IncidentKind::Agreement.into(),
            ..v1::Incident::default()
        };
        assert_eq!(
            incident_from_wire(&agreement, "incidents[0]", SanLanguage::English)
                .expect("an agreement")
                .incident,
            Incident::Agreement
        );
    }

    /// Issue 29: a rule set read from the wire and written back is the same; standard play
    /// without adequate supervision is refused on `rules.supervision` (A.5 and B.3 are for
    /// rapid and blitz).
    #[test]
    fn rule_sets_round_trip_and_unsupervised_standard_is_refused() {
        for rules in [
            RuleSet::default(),
            RuleSet::parse("rapid,unsupervised", None).expect("valid"),
            RuleSet::armageddon(Supervision::Inadequate, "Regulation 4.2").expect("valid"),
        ] {
            let wire = rule_set_to_wire(&rules);
            assert_eq!(rule_set_from_wire(Some(&wire), "rules"), Ok(rules));
        }
        let wire = v1::RuleSet {
            supervision: v1::Supervision::Inadequate.into(),
            ..v1::RuleSet::default()
        };
        let error = rule_set_from_wire(Some(&wire), "rules").expect_err("refused");
        assert_eq!(
            (error.field.as_str(), error.kind),
            ("rules.supervision", ErrorReason::InvalidValue)
        );
        let wire = v1::RuleSet {
            draw_odds_regulation: "x".repeat(201),
            ..v1::RuleSet::default()
        };
        let error = rule_set_from_wire(Some(&wire), "rules").expect_err("refused");
        assert_eq!(error.field, "rules.draw_odds_regulation");
    }
}
