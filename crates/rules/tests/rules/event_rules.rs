//! The event's own rules and what happens between the moves (issue 29): rule sets of
//! Appendices A and B, every irregularity in order with its consequence, Armageddon's draw
//! odds. Each test names the article of the FIDE Laws of Chess (2023) it guards.

use arbiter_rules::Color::{Black, White};
use arbiter_rules::{
    ActedOn, AdjudicationRequest, AnalysisBudget, ClaimKind, Consequence, GameResult, IllegalAct,
    Incident, Position, Referee, RefereeError, RuleSet, RuleSetError, Supervision, Termination,
    TimeClass, TimedIncident, WarningCode, adjudicate_record,
};
use arbiter_rules::{Game, Verdict};

fn rules(spec: &str) -> RuleSet {
    RuleSet::parse(spec, None).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn referee_from(fen: &str, spec: &str, moves: &[&str]) -> Referee {
    let mut game = Game::new(Position::from_fen(fen).unwrap());
    for m in moves {
        game.push(m).unwrap_or_else(|e| panic!("{e}"));
    }
    Referee::new(game, rules(spec), AnalysisBudget::Full)
}

fn referee(spec: &str, moves: &[&str]) -> Referee {
    referee_from(arbiter_rules::STARTING_FEN, spec, moves)
}

fn play(r: &mut Referee, mv: &str) -> Result<(), RefereeError> {
    let m = r
        .game()
        .position()
        .parse_move(mv)
        .unwrap_or_else(|e| panic!("{e}"));
    r.play(m)
}

fn illegal(side: arbiter_rules::Color, written: &str, acted_on: ActedOn) -> Incident {
    Incident::IllegalMove {
        side,
        act: IllegalAct::Move,
        written: written.to_owned(),
        acted_on,
    }
}

fn time_added(c: &[Consequence]) -> Vec<(arbiter_rules::Color, u32, String)> {
    c.iter()
        .filter_map(|c| match c {
            Consequence::TimeAdded {
                side,
                seconds,
                article,
            } => Some((*side, *seconds, article.clone())),
            _ => None,
        })
        .collect()
}

fn verdict(r: &Referee) -> Verdict {
    r.verdict(&AdjudicationRequest::default())
}

/// Appendix A.6 and B.4: the event chooses A.4 or A.5 (B.2 or B.3) for all its games; the
/// CLI's spelling names time class, supervision and draw odds, and A.5 has no standard-play
/// counterpart.
#[test]
fn rule_set_spelling_names_time_class_supervision_and_draw_odds_a6_b4() {
    let r = rules("blitz,unsupervised");
    assert_eq!(r.time_class(), TimeClass::Blitz);
    assert_eq!(r.supervision(), Supervision::Inadequate);
    assert_eq!(r.to_string(), "blitz,unsupervised");
    let r = rules(" Rapid ");
    assert_eq!(
        (r.time_class(), r.supervision()),
        (TimeClass::Rapid, Supervision::Adequate)
    );
    let r = rules("armageddon");
    assert_eq!(r.time_class(), TimeClass::Blitz);
    assert_eq!(
        r.draw_odds().unwrap().regulation,
        arbiter_rules::DEFAULT_REGULATION
    );
    let r = RuleSet::parse("rapid,armageddon", Some("World Cup 2025 regulations 3.7.5")).unwrap();
    assert_eq!(r.time_class(), TimeClass::Rapid);
    assert_eq!(r.to_string(), "rapid,armageddon");
    assert_eq!(rules("standard"), RuleSet::default());
    assert_eq!(
        RuleSet::parse("standard,unsupervised", None),
        Err(RuleSetError::UnsupervisedStandard)
    );
    assert_eq!(
        RuleSet::parse("unsupervised", None),
        Err(RuleSetError::UnsupervisedStandard)
    );
    assert_eq!(
        RuleSet::parse("bullet", None),
        Err(RuleSetError::UnknownWord("bullet".into()))
    );
    assert_eq!(
        RuleSet::parse("rapid,blitz", None),
        Err(RuleSetError::Conflict("rapid".into(), "blitz".into()))
    );
    assert_eq!(
        RuleSet::parse("armageddon", Some("  ")),
        Err(RuleSetError::BadRegulation(2))
    );
}

/// FIDE Laws 7.5.1 and 7.5.5: a first completed illegal move reinstates the position before
/// it and gives the opponent two minutes in standard play; A.3 makes it one minute in rapid,
/// and blitz takes A.3 under B.2 and B.3.
#[test]
fn first_illegal_move_reinstates_and_adds_two_minutes_or_one_under_a3_7_5_5() {
    for (spec, seconds, article) in [
        ("standard", 120, "7.5.5"),
        ("rapid", 60, "7.5.5 with A.3"),
        ("rapid,unsupervised", 60, "7.5.5 with A.3"),
        ("blitz", 120, "7.5.5 with B.2"),
        ("blitz,unsupervised", 60, "7.5.5 with B.3, A.3"),
    ] {
        let mut r = referee(spec, &["e4", "e5"]);
        let ruling = r.incident(illegal(White, "Ke3", ActedOn::Claimed)).unwrap();
        assert_eq!(ruling.ply, 2);
        assert_eq!(
            ruling.consequences[0],
            Consequence::PositionReinstated { ply: 2 },
            "{spec}"
        );
        assert_eq!(
            time_added(&ruling.consequences),
            vec![(Black, seconds, article.to_owned())],
            "{spec}"
        );
        assert_eq!(r.time_added(), [0, seconds]);
        assert_eq!(r.illegal_moves(), [1, 0]);
        assert!(
            ruling
                .explanation
                .starts_with("White completed an illegal move, Ke3 (no white king can move to e3"),
            "{}",
            ruling.explanation
        );
        assert!(
            ruling.explanation.contains("7.5.1"),
            "{}",
            ruling.explanation
        );
        // The same player moves again, from the reinstated position.
        play(&mut r, "Nf3").unwrap();
        assert_eq!(r.game().ply(), 3);
        assert_eq!(r.outcome(), None);
    }
}

/// FIDE Laws 7.5.5: the second completed illegal move by the same player loses, unless the
/// opponent cannot checkmate by any possible series of legal moves (then a draw).
#[test]
fn second_illegal_move_loses_unless_opponent_cannot_mate_7_5_5() {
    let mut r = referee("rapid", &["e4", "e5"]);
    r.incident(illegal(White, "Ke3", ActedOn::ArbiterObserved))
        .unwrap();
    play(&mut r, "Nf3").unwrap();
    // Black's illegal move counts for Black only.
    let ruling = r.incident(illegal(Black, "Ke6", ActedOn::Claimed)).unwrap();
    assert_eq!(
        time_added(&ruling.consequences),
        vec![(White, 60, "7.5.5 with A.3".into())]
    );
    play(&mut r, "Nc6").unwrap();
    let ruling = r
        .incident(illegal(White, "Bxf7", ActedOn::Claimed))
        .unwrap();
    let ended = ruling.consequences.last().unwrap();
    let Consequence::GameEnded(outcome) = ended else {
        panic!("{ended:?}")
    };
    assert_eq!(outcome.result, GameResult::BlackWins);
    assert_eq!(outcome.termination, Termination::SecondIllegalMove);
    assert_eq!(outcome.ply, 4);
    assert!(ruling.explanation.contains("second completed illegal move"));
    assert_eq!(r.time_added(), [60, 60]);
    let err = play(&mut r, "d4").unwrap_err();
    assert_eq!(err.kind(), "game_over");
    assert_eq!(
        verdict(&r).outcome.unwrap().termination,
        Termination::SecondIllegalMove
    );

    // White has a lone king: Black's second illegal move is a draw.
    let mut r = referee_from("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1", "standard", &[]);
    r.incident(illegal(Black, "Kd6", ActedOn::Claimed)).unwrap();
    play(&mut r, "Kd7").unwrap();
    play(&mut r, "Kd2").unwrap();
    let ruling = r.incident(illegal(Black, "Kd5", ActedOn::Claimed)).unwrap();
    assert_eq!(
        ruling.consequences.last(),
        Some(&Consequence::GameEnded(arbiter_rules::Outcome::new(
            GameResult::Draw,
            Termination::SecondIllegalMove,
            2
        )))
    );
}

/// FIDE Laws A.5.2 (and B.3 for blitz): without adequate supervision an illegal move that
/// nobody claims before the opponent's next move stands. The rules core cannot follow a
/// position an illegal move produced, so what comes after is refused with the reason; under
/// the Competition Rules "nobody" is refused (7.5.1: an illegal move found is acted on).
#[test]
fn unclaimed_illegal_move_stands_only_without_supervision_a_5_2() {
    let mut r = referee("blitz,unsupervised", &["e4", "e5"]);
    let ruling = r.incident(illegal(White, "Ke3", ActedOn::Nobody)).unwrap();
    assert_eq!(
        ruling.consequences,
        vec![Consequence::IllegalMoveStands {
            article: "B.3, A.5.2"
        }]
    );
    assert!(
        ruling.explanation.contains("(FIDE Laws B.3, A.5.2)"),
        "{}",
        ruling.explanation
    );
    assert_eq!(r.time_added(), [0, 0]);
    assert!(r.illegal_move_stood());
    let err = play(&mut r, "Nf3").unwrap_err();
    assert_eq!(err.kind(), "illegal_move_stood");
    assert!(
        err.to_string()
            .contains("start again from the position on the board"),
        "{err}"
    );

    // A clock pressed without a move stands as nothing: the game goes on (A.5.2, 7.5.3).
    let mut r = referee("rapid,unsupervised", &["e4"]);
    let ruling = r
        .incident(Incident::IllegalMove {
            side: Black,
            act: IllegalAct::ClockWithoutMove,
            written: String::new(),
            acted_on: ActedOn::Nobody,
        })
        .unwrap();
    assert!(ruling.explanation.contains("(FIDE Laws A.5.2)"));
    play(&mut r, "e5").unwrap();

    for spec in ["standard", "rapid", "blitz"] {
        let mut r = referee(spec, &["e4", "e5"]);
        let err = r
            .incident(illegal(White, "Ke3", ActedOn::Nobody))
            .unwrap_err();
        assert_eq!(err.kind(), "unclaimed_under_competition_rules", "{spec}");
    }
}

/// FIDE Laws 7.5.2 and 7.5.3: a pawn moved to the last rank without a piece chosen becomes a
/// queen (the next ply must be that promotion), a clock pressed without a move is penalized as
/// an illegal move; both count toward the second illegal move of 7.5.5.
#[test]
fn unpromoted_pawn_becomes_a_queen_and_clock_without_move_is_penalized_7_5_2_7_5_3() {
    let mut r = referee_from("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", "standard", &[]);
    let ruling = r
        .incident(Incident::IllegalMove {
            side: White,
            act: IllegalAct::UnpromotedPawn,
            written: "e8".into(),
            acted_on: ActedOn::ArbiterObserved,
        })
        .unwrap();
    assert!(
        ruling.explanation.contains("replaced by a queen, e8=Q"),
        "{}",
        ruling.explanation
    );
    assert_eq!(
        time_added(&ruling.consequences),
        vec![(Black, 120, "7.5.5".into())]
    );
    let err = play(&mut r, "e8=N").unwrap_err();
    assert_eq!(
        err.to_string(),
        "ply 1: the move must be e8=Q (FIDE Laws 7.5.2), not e8=N+"
    );
    play(&mut r, "e8=Q").unwrap();
    let err = r
        .incident(Incident::IllegalMove {
            side: Black,
            act: IllegalAct::UnpromotedPawn,
            written: "Kf6".into(),
            acted_on: ActedOn::Claimed,
        })
        .unwrap_err();
    assert_eq!(err.kind(), "not_a_promotion");
    r.incident(Incident::IllegalMove {
        side: Black,
        act: IllegalAct::ClockWithoutMove,
        written: String::new(),
        acted_on: ActedOn::Claimed,
    })
    .unwrap();
    assert_eq!(r.time_added(), [120, 120]);
    assert_eq!(r.illegal_moves(), [1, 1]);
}

/// An incident must fit the position at its ply: a legal move is not an illegal one, and an
/// illegal move or a draw claim is made by the player having the move (7.5.1, 9.2.1).
#[test]
fn incidents_are_checked_against_the_position_at_their_ply_7_5_1_9_2_1() {
    let mut r = referee("standard", &["e4"]);
    assert_eq!(
        r.incident(illegal(Black, "e5", ActedOn::Claimed))
            .unwrap_err(),
        RefereeError::LegalMove {
            ply: 1,
            written: "e5".into()
        }
    );
    let err = r
        .incident(illegal(White, "Ke3", ActedOn::Claimed))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ply 1: an illegal move is made by the player having the move, Black, not White"
    );
    let err = r
        .incident(Incident::Claim {
            side: White,
            kind: ClaimKind::FiftyMoveRule,
            announced: None,
        })
        .unwrap_err();
    assert_eq!(err.kind(), "not_to_move");
    let err = r
        .incident(illegal(Black, "hello", ActedOn::Claimed))
        .unwrap_err();
    assert_eq!(err.kind(), "bad_move");
    assert!(r.rulings().is_empty());
}

/// FIDE Laws 9.2, 9.5.2, 9.5.3 with A.3: a correct claim of threefold repetition draws; an
/// incorrect one gives the opponent two minutes (one in rapid and blitz), and a claim made by
/// announcing a move obliges that move.
#[test]
fn draw_claims_are_upheld_or_penalized_and_the_announced_move_must_be_played_9_5() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
    // After 7 plies, Black announcing Ng8 makes the start position appear the third time.
    let mut r = referee("blitz", &shuffle);
    let ruling = r
        .incident(Incident::Claim {
            side: Black,
            kind: ClaimKind::ThreefoldRepetition,
            announced: Some("Ng8".into()),
        })
        .unwrap();
    assert_eq!(ruling.consequences[0], Consequence::ClaimUpheld);
    assert_eq!(
        r.outcome().map(|o| (o.result, o.termination, o.ply)),
        Some((GameResult::Draw, Termination::ThreefoldRepetition, 7))
    );
    assert!(
        ruling.explanation.contains("9.5.2"),
        "{}",
        ruling.explanation
    );

    // Claimed now, it is incorrect: the position stood only twice.
    let mut r = referee("standard", &shuffle);
    let ruling = r
        .incident(Incident::Claim {
            side: Black,
            kind: ClaimKind::ThreefoldRepetition,
            announced: Some("Nc6".into()),
        })
        .unwrap();
    assert_eq!(ruling.consequences[0], Consequence::ClaimRejected);
    assert_eq!(
        time_added(&ruling.consequences),
        vec![(White, 120, "9.5.3".into())]
    );
    assert!(
        ruling
            .explanation
            .contains("the announced move Nc6 must be played (FIDE Laws 9.5.3)")
    );
    assert_eq!(play(&mut r, "Ng8").unwrap_err().kind(), "move_required");
    play(&mut r, "Nc6").unwrap();

    let mut r = referee("rapid,unsupervised", &shuffle);
    let ruling = r
        .incident(Incident::Claim {
            side: Black,
            kind: ClaimKind::FiftyMoveRule,
            announced: None,
        })
        .unwrap();
    assert_eq!(
        time_added(&ruling.consequences),
        vec![(White, 60, "9.5.3 with A.3".into())]
    );
}

/// FIDE Laws 6.8, A.5.3, A.5.5: a flag has fallen only when the arbiter observes it or a player
/// claims it; then 6.9 decides (a draw when the opponent cannot checkmate).
#[test]
fn flag_fall_counts_only_when_seen_or_claimed_6_8_a_5_3() {
    let mut r = referee("rapid,unsupervised", &["e4", "e5"]);
    let ruling = r
        .incident(Incident::FlagFall {
            side: White,
            noticed: ActedOn::Nobody,
        })
        .unwrap();
    assert_eq!(ruling.consequences, vec![Consequence::Recorded]);
    assert!(
        ruling.explanation.contains("(FIDE Laws 6.8, A.5.3, A.5.5)"),
        "{}",
        ruling.explanation
    );
    play(&mut r, "Nf3").unwrap();
    let ruling = r
        .incident(Incident::FlagFall {
            side: Black,
            noticed: ActedOn::Claimed,
        })
        .unwrap();
    assert_eq!(
        ruling.consequences,
        vec![Consequence::GameEnded(arbiter_rules::Outcome::new(
            GameResult::WhiteWins,
            Termination::FlagFall,
            3
        ))]
    );
    assert!(
        ruling
            .explanation
            .ends_with("(the flag claimed by the opponent, FIDE Laws A.5.3)"),
        "{}",
        ruling.explanation
    );

    let mut r = referee_from("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "blitz", &[]);
    let ruling = r
        .incident(Incident::FlagFall {
            side: White,
            noticed: ActedOn::ArbiterObserved,
        })
        .unwrap();
    assert!(matches!(
        ruling.consequences[0],
        Consequence::GameEnded(o) if o.result == GameResult::Draw
    ));
}

/// Armageddon (event regulations, not the Laws): the verdict gives the Laws' result and the
/// event's, where a draw counts as a win for Black, naming the regulation.
#[test]
fn armageddon_draw_counts_as_a_black_win_under_the_named_regulation() {
    let spec = RuleSet::parse("armageddon", Some("World Cup 2025 regulations 3.7.5")).unwrap();
    let game = Game::new(Position::startpos());
    let mut r = Referee::new(game.clone(), spec.clone(), AnalysisBudget::Full);
    r.incident(Incident::Agreement).unwrap();
    let v = verdict(&r);
    assert_eq!(v.outcome.unwrap().result, GameResult::Draw);
    let event = v.event_result.unwrap();
    assert_eq!(event.result, GameResult::BlackWins);
    assert_eq!(event.regulation, "World Cup 2025 regulations 3.7.5");
    assert!(event.explanation.contains("counts as a win for Black"));

    let mut r = Referee::new(game.clone(), spec, AnalysisBudget::Full);
    play(&mut r, "e4").unwrap();
    r.incident(Incident::Resignation(Black)).unwrap();
    let v = verdict(&r);
    assert_eq!(v.event_result.unwrap().result, GameResult::WhiteWins);

    let mut r = Referee::new(game, rules("blitz"), AnalysisBudget::Full);
    r.incident(Incident::Agreement).unwrap();
    assert_eq!(verdict(&r).event_result, None);
}

fn record(moves: &[&str]) -> Game {
    let mut g = Game::new(Position::startpos());
    for m in moves {
        g.push(m).unwrap();
    }
    g
}

/// A whole game's record with its irregularities in order (7.5.1, 7.5.5, 9.2, 9.5.2): two
/// illegal moves by different players, each with its minute under A.3, then a correct claim of
/// threefold repetition.
#[test]
fn record_with_two_illegal_moves_and_a_threefold_claim_7_5_5_9_2() {
    let g = record(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]);
    let incidents = [
        TimedIncident {
            ply: 1,
            incident: illegal(Black, "Nf5", ActedOn::Claimed),
        },
        TimedIncident {
            ply: 4,
            incident: illegal(White, "Nf3f5", ActedOn::ArbiterObserved),
        },
        TimedIncident {
            ply: 4,
            incident: Incident::DrawOffer(White),
        },
        TimedIncident {
            ply: 8,
            incident: Incident::Claim {
                side: White,
                kind: ClaimKind::ThreefoldRepetition,
                announced: None,
            },
        },
    ];
    let v = adjudicate_record(
        &g,
        &incidents,
        &rules("rapid"),
        &AdjudicationRequest::default(),
    )
    .unwrap();
    let outcome = v.outcome.unwrap();
    assert_eq!(
        (outcome.result, outcome.termination, outcome.ply),
        (GameResult::Draw, Termination::ThreefoldRepetition, 8)
    );
    assert_eq!(v.time_added, [60, 60]);
    assert_eq!(v.rulings.len(), 4);
    assert_eq!(
        v.rulings.iter().map(|r| r.ply).collect::<Vec<_>>(),
        vec![1, 4, 4, 8]
    );
    assert_eq!(v.plies_after_end, 0);

    // Out of order, or past the end: refused, naming the incident.
    let err = adjudicate_record(
        &g,
        &[incidents[1].clone(), incidents[0].clone()],
        &rules("rapid"),
        &AdjudicationRequest::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "incident 1: ply 1 comes before the previous incident's ply 4"
    );
    let err = adjudicate_record(
        &g,
        &[TimedIncident {
            ply: 9,
            incident: Incident::Agreement,
        }],
        &rules("rapid"),
        &AdjudicationRequest::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), "out_of_order");
}

/// FIDE Laws 5.1.2 with the record: a resignation at ply 2 ends the game there; the plies the
/// record holds after it are counted and warned about, as after the rules' own endings.
#[test]
fn incident_ending_the_game_early_counts_the_plies_after_it_5_1_2() {
    let g = record(&["e4", "e5", "Nf3", "Nc6"]);
    let v = adjudicate_record(
        &g,
        &[TimedIncident {
            ply: 2,
            incident: Incident::Resignation(White),
        }],
        &RuleSet::default(),
        &AdjudicationRequest::default(),
    )
    .unwrap();
    let outcome = v.outcome.unwrap();
    assert_eq!((outcome.result, outcome.ply), (GameResult::BlackWins, 2));
    assert_eq!(v.plies_after_end, 2);
    assert_eq!(v.warnings[0].code, WarningCode::MovesAfterEnd);
    assert_eq!(v.warnings[0].ply, 3);

    // An incident after the rules ended the game (fool's mate) changes nothing.
    let g = record(&["f3", "e5", "g4", "Qh4#"]);
    let v = adjudicate_record(
        &g,
        &[TimedIncident {
            ply: 4,
            incident: Incident::Resignation(Black),
        }],
        &RuleSet::default(),
        &AdjudicationRequest::default(),
    )
    .unwrap();
    assert_eq!(v.outcome.unwrap().termination, Termination::Checkmate);
    assert!(v.rulings.is_empty());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// One step of a random game: a legal move (by index) or an incident drawn from every kind.
    #[derive(Clone, Debug)]
    enum Step {
        Move(usize),
        Incident(u8, u8, usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => any::<usize>().prop_map(Step::Move),
            1 => (any::<u8>(), any::<u8>(), any::<usize>())
                .prop_map(|(k, a, i)| Step::Incident(k, a, i)),
        ]
    }

    fn incident(r: &Referee, kind: u8, acted: u8, pick: usize) -> Incident {
        let pos = r.game().position();
        let to_move = pos.side_to_move();
        let side = if kind & 0x80 == 0 {
            to_move
        } else {
            to_move.other()
        };
        let acted_on =
            [ActedOn::Claimed, ActedOn::ArbiterObserved, ActedOn::Nobody][usize::from(acted) % 3];
        let legal = pos.legal_moves();
        // Some written moves are legal (refused), most are not.
        let written = match pick % 4 {
            0 if !legal.is_empty() => pos.san(&legal[pick % legal.len()]),
            1 => "Ka8".to_owned(),
            2 => "Qh5".to_owned(),
            _ => "e2e5".to_owned(),
        };
        // Endings are rare, so that games go on past several irregularities.
        match kind % 24 {
            0..=7 => Incident::IllegalMove {
                side,
                act: IllegalAct::Move,
                written,
                acted_on,
            },
            8 | 9 => Incident::IllegalMove {
                side,
                act: IllegalAct::ClockWithoutMove,
                written: String::new(),
                acted_on,
            },
            10 | 11 => Incident::DrawOffer(side),
            12..=15 => Incident::Claim {
                side,
                kind: if pick.is_multiple_of(2) {
                    ClaimKind::ThreefoldRepetition
                } else {
                    ClaimKind::FiftyMoveRule
                },
                announced: (pick.is_multiple_of(3) && !legal.is_empty())
                    .then(|| pos.san(&legal[pick % legal.len()])),
            },
            16 | 17 => Incident::FlagFall {
                side,
                noticed: if pick.is_multiple_of(4) {
                    acted_on
                } else {
                    ActedOn::Nobody
                },
            },
            18 => Incident::Resignation(side),
            19 => Incident::Forfeit(side),
            20 => Incident::Agreement,
            _ => Incident::IllegalMove {
                side,
                act: IllegalAct::TwoHands,
                written: String::new(),
                acted_on,
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whatever arrives, in whatever order, the referee never panics, keeps the time it
        /// added equal to its rulings' (7.5.5, 9.5.3 with A.3), ends the game at a second
        /// illegal move (7.5.5), refuses everything after the end, and rules as a finished
        /// record with the same incidents is ruled (`adjudicate_record`): live and batch agree.
        #[test]
        fn live_referee_and_record_agree_on_every_incident(
            steps in proptest::collection::vec(step(), 0..80),
            spec in prop_oneof![
                Just("standard"), Just("rapid"), Just("rapid,unsupervised"),
                Just("blitz"), Just("blitz,unsupervised"), Just("armageddon"),
            ],
        ) {
            let rule_set = rules(spec);
            let mut r = Referee::new(Game::new(Position::startpos()), rule_set.clone(), AnalysisBudget::Fast);
            let mut accepted = Vec::new();
            for step in steps {
                let before = r.clone();
                match step {
                    Step::Move(i) => {
                        let legal = r.game().position().legal_moves();
                        if legal.is_empty() {
                            continue;
                        }
                        let mv = legal[i % legal.len()];
                        if let Err(e) = r.play(mv) {
                            prop_assert!(matches!(e.kind(), "game_over" | "illegal_move_stood" | "move_required"), "{e}");
                            prop_assert_eq!(r.game().ply(), before.game().ply());
                        }
                    }
                    Step::Incident(k, a, i) => {
                        let incident = incident(&r, k, a, i);
                        let ply = r.game().ply();
                        match r.incident(incident.clone()) {
                            Ok(ruling) => {
                                prop_assert_eq!(ruling.ply, ply);
                                accepted.push(TimedIncident { ply, incident });
                            }
                            Err(e) => {
                                prop_assert_eq!(e.ply(), ply);
                                prop_assert_eq!(r.rulings().len(), before.rulings().len());
                                prop_assert_eq!(r.time_added(), before.time_added());
                            }
                        }
                    }
                }
                let added: [u32; 2] = r.rulings().iter().flat_map(|ruling| time_added(&ruling.consequences)).fold([0, 0], |mut acc, (side, s, _)| {
                    acc[usize::from(side == Black)] += s;
                    acc
                });
                prop_assert_eq!(added, r.time_added());
                prop_assert!(r.illegal_moves().iter().all(|&n| n <= 2));
                if r.illegal_moves().contains(&2) {
                    prop_assert!(r.outcome().is_some());
                }
                if r.outcome().is_some() {
                    prop_assert_eq!(r.clone().incident(Incident::Agreement).unwrap_err().kind(), "game_over");
                }
            }
            if r.illegal_move_stood() {
                return Ok(());
            }
            let live = r.verdict(&AdjudicationRequest { budget: AnalysisBudget::Fast, ..AdjudicationRequest::default() });
            let batch = adjudicate_record(r.game(), &accepted, &rule_set, &AdjudicationRequest { budget: AnalysisBudget::Fast, ..AdjudicationRequest::default() })
                .unwrap_or_else(|e| panic!("the record of an accepted game is refused: {e}"));
            prop_assert_eq!(live.outcome, batch.outcome);
            prop_assert_eq!(live.rulings, batch.rulings);
            prop_assert_eq!(live.time_added, batch.time_added);
            prop_assert_eq!(live.event_result, batch.event_result);
        }
    }
}

/// FIDE Laws 7.5.2 and 9.5.3 with the record (issue 29): the located form of
/// `adjudicate_record` names what gave the error, the incident of the list or the record's
/// move, so that a service can name the field. Without incidents it is `adjudicate` with the
/// event result (Armageddon: a stalemate counts 0-1).
#[test]
fn located_record_errors_name_the_incident_or_the_move_9_5_3() {
    use arbiter_rules::{RecordPlace, adjudicate_record_located};
    let g = record(&["Nf3", "Nf6", "Ng1", "Ng8", "Nc3"]);
    let claim = TimedIncident {
        ply: 4,
        incident: Incident::Claim {
            side: White,
            kind: ClaimKind::ThreefoldRepetition,
            announced: Some("Nf3".to_owned()),
        },
    };
    let (place, err) = adjudicate_record_located(
        &g,
        &[
            TimedIncident {
                ply: 0,
                incident: Incident::DrawOffer(White),
            },
            claim.clone(),
        ],
        &RuleSet::default(),
        &AdjudicationRequest::default(),
    )
    .unwrap_err();
    assert_eq!((place, err.kind()), (RecordPlace::Move(4), "move_required"));
    let (place, err) = adjudicate_record_located(
        &g,
        &[claim.clone(), illegal_at(4, Black, "e5")],
        &RuleSet::default(),
        &AdjudicationRequest::default(),
    )
    .unwrap_err();
    assert_eq!(
        (place, err.kind()),
        (RecordPlace::Incident(1), "not_to_move")
    );
    let stalemate = {
        let mut game = Game::new(Position::from_fen("7k/8/6Q1/8/8/8/8/K7 w - - 0 1").unwrap());
        game.push("Qf7").unwrap();
        game
    };
    let v = adjudicate_record_located(
        &stalemate,
        &[],
        &rules("armageddon"),
        &AdjudicationRequest::default(),
    )
    .expect("no incidents");
    assert_eq!(
        (
            v.outcome.map(|o| o.article()),
            v.event_result.map(|e| e.result)
        ),
        (Some("5.2.1"), Some(GameResult::BlackWins))
    );
}

fn illegal_at(ply: usize, side: arbiter_rules::Color, written: &str) -> TimedIncident {
    TimedIncident {
        ply,
        incident: illegal(side, written, ActedOn::Claimed),
    }
}

/// Issue 29, FollowGame: a stream reopened after the connection's maximum age resumes with the
/// game so far. `Referee::replay` rebuilds the referee that saw it live: the same rulings, time
/// added (7.5.5 with A.3), penalties counted (a second illegal move then loses, 7.5.5), and a
/// move the Laws fix (9.5.3) still required; and it refuses what a live referee refuses: an
/// incident out of order or past the last ply, a move after an incident ended the game.
#[test]
fn replay_rebuilds_the_live_referee_for_a_resumed_stream_7_5_5_9_5_3() {
    let moves: Vec<_> = {
        let g = record(&["Nf3", "Nf6", "Ng1", "Ng8"]);
        g.moves().to_vec()
    };
    let incidents = [
        TimedIncident {
            ply: 1,
            incident: illegal(Black, "Nf5", ActedOn::Claimed),
        },
        TimedIncident {
            ply: 4,
            incident: Incident::Claim {
                side: White,
                kind: ClaimKind::ThreefoldRepetition,
                announced: Some("Nf3".to_owned()),
            },
        },
    ];
    let start = Game::new(Position::startpos());
    let replayed = Referee::replay(
        start.clone(),
        &moves,
        &incidents,
        rules("rapid"),
        AnalysisBudget::Full,
    )
    .unwrap();
    // The same state as a referee that followed it live.
    let mut live = referee("rapid", &[]);
    for (ply, mv) in moves.iter().enumerate() {
        for timed in incidents.iter().filter(|t| t.ply == ply) {
            live.incident(timed.incident.clone()).unwrap();
        }
        live.play(*mv).unwrap();
    }
    live.incident(incidents[1].incident.clone()).unwrap();
    assert_eq!(replayed.rulings(), live.rulings());
    assert_eq!(replayed.game().ply(), 4);
    // Black's minute for White's wrong claim is not there: the claim is White's, so Black gets
    // it (9.5.3 with A.3), and White got one for Black's illegal move (7.5.5 with A.3).
    assert_eq!(replayed.time_added(), [60, 60]);
    assert_eq!(replayed.illegal_moves(), [0, 1]);
    let (required, article) = replayed.required_move().expect("the announced move");
    assert_eq!(
        (replayed.game().position().san(&required), article),
        ("Nf3".to_owned(), "9.5.3")
    );

    // Past the last ply, before the first one, out of order: refused, naming the incident.
    let past = [TimedIncident {
        ply: 5,
        incident: Incident::Agreement,
    }];
    let err = Referee::replay(
        start.clone(),
        &moves,
        &past,
        rules("rapid"),
        AnalysisBudget::Full,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "incident 0: ply 5 is past the game's last ply, 4"
    );
    let err = Referee::replay(
        start.clone(),
        &moves,
        &[incidents[1].clone(), incidents[0].clone()],
        rules("rapid"),
        AnalysisBudget::Full,
    )
    .unwrap_err();
    assert_eq!(err.kind(), "out_of_order");
    let mut later = Game::new(Position::startpos());
    later.play(moves[0]);
    let err = Referee::replay(
        later,
        &moves[1..],
        &[TimedIncident {
            ply: 0,
            incident: Incident::DrawOffer(White),
        }],
        rules("rapid"),
        AnalysisBudget::Full,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "incident 0: ply 0 comes before the replay's first ply, 1"
    );

    // A resignation at ply 2 ends the game (5.1.2): a third move is refused as after the end.
    let err = Referee::replay(
        start,
        &moves[..3],
        &[TimedIncident {
            ply: 2,
            incident: Incident::Resignation(White),
        }],
        rules("standard"),
        AnalysisBudget::Full,
    )
    .unwrap_err();
    assert_eq!((err.kind(), err.ply()), ("game_over", 2));
}

/// FIDE Laws 9.5.3 (fresh review of issue 29, finding A1): once a claim made by announcing a
/// move is found incorrect, that move must be played. A second claim, announcing another move or
/// none, cannot replace it (it was upheld as a draw), and no claim is listed as available until
/// the move is made.
#[test]
fn no_claim_replaces_the_move_an_incorrect_claim_announced_9_5_3() {
    let mut r = referee_from("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80", "rapid", &[]);
    let ruling = r
        .incident(Incident::Claim {
            side: White,
            kind: ClaimKind::FiftyMoveRule,
            announced: Some("e4".into()),
        })
        .unwrap();
    assert_eq!(ruling.consequences[0], Consequence::ClaimRejected);
    assert!(r.claims().is_empty());
    let err = r
        .incident(Incident::Claim {
            side: White,
            kind: ClaimKind::FiftyMoveRule,
            announced: Some("Kd1".into()),
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ply 0: the move must be e4 (FIDE Laws 9.5.3), not a draw claim announcing Kd1"
    );
    assert_eq!(r.time_added(), [0, 60]);
    assert_eq!(r.outcome(), None);
    play(&mut r, "e4").unwrap();
    assert_eq!(r.required_move(), None);
}

/// Issue 29 (fresh review): an incident's move is sent in the language of the game's moves and
/// read by the referee with English letters: the piece letters are translated, squares,
/// suffixes and UCI kept (German `Se5` is `Ne5`, French `Dd8` is `Qd8`).
#[test]
fn incident_moves_in_another_san_language_translate_piece_letters_only() {
    use arbiter_rules::SanLanguage;
    assert_eq!(SanLanguage::German.to_english("Se5"), "Ne5");
    assert_eq!(SanLanguage::German.to_english("Lxb5+"), "Bxb5+");
    assert_eq!(SanLanguage::German.to_english("e8=D"), "e8=Q");
    assert_eq!(SanLanguage::French.to_english("Dd8"), "Qd8");
    assert_eq!(SanLanguage::German.to_english("e2e4"), "e2e4");
    assert_eq!(SanLanguage::English.to_english(" Ke3 "), "Ke3");
    assert_eq!(
        illegal(White, "Ke3", ActedOn::Claimed).with_english_moves(SanLanguage::German),
        illegal(White, "Ke3", ActedOn::Claimed)
    );
    assert_eq!(
        Incident::Claim {
            side: Black,
            kind: ClaimKind::ThreefoldRepetition,
            announced: Some("Sf3".into()),
        }
        .with_english_moves(SanLanguage::German),
        Incident::Claim {
            side: Black,
            kind: ClaimKind::ThreefoldRepetition,
            announced: Some("Nf3".into()),
        }
    );
}
