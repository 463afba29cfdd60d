//! AdjudicateGame and AdjudicateGames under the event's rules, with the incidents of a game
//! (issue 29): rapid and blitz penalties (FIDE Laws 7.5.5 with A.3), incorrect claims (9.5.3),
//! Armageddon's event result, and the errors of incidents that do not fit.

use arbiter_proto::v1::{
    ActedOn, AdjudicateGameRequest, AdjudicateGameResponse, AdjudicateGamesRequest, ClaimKind,
    Color, ConsequenceKind, Game, IllegalAct, Incident, IncidentKind, Result as GameResult,
    RuleSet, Supervision, Termination, TimeClass, adjudicate_game_request,
    adjudicate_games_request, adjudicate_games_response,
    arbiter_service_client::ArbiterServiceClient,
};
use tonic::Code;
use tonic_types::StatusExt as _;

use crate::grpc::{Running, fen, start, strings};

const REGULATION: &str = "World Cup 2025 regulations 3.7.5";

fn rules(time_class: TimeClass, supervision: Supervision, regulation: &str) -> Option<RuleSet> {
    Some(RuleSet {
        time_class: time_class.into(),
        supervision: supervision.into(),
        draw_odds_regulation: regulation.to_owned(),
    })
}

fn illegal_move(ply: u32, side: Color, written: &str, acted_on: ActedOn) -> Incident {
    Incident {
        ply,
        kind: IncidentKind::IllegalMove.into(),
        side: side.into(),
        act: IllegalAct::Move.into(),
        r#move: written.to_owned(),
        acted_on: acted_on.into(),
        ..Incident::default()
    }
}

fn game_request(
    moves: &[&str],
    rules: Option<RuleSet>,
    incidents: Vec<Incident>,
) -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(Game {
            start: None,
            moves: strings(moves),
        })),
        rules,
        incidents,
        ..AdjudicateGameRequest::default()
    }
}

async fn adjudicate(
    running: &Running,
    request: AdjudicateGameRequest,
) -> Result<AdjudicateGameResponse, tonic::Status> {
    ArbiterServiceClient::new(running.channel.clone())
        .adjudicate_game(request)
        .await
        .map(tonic::Response::into_inner)
}

/// (kind, side, seconds, article) of each consequence of each ruling.
fn consequences(
    response: &AdjudicateGameResponse,
) -> Vec<Vec<(ConsequenceKind, i32, u32, String)>> {
    response
        .rulings
        .iter()
        .map(|ruling| {
            ruling
                .consequences
                .iter()
                .map(|c| (c.kind(), c.side, c.seconds, c.fide_article.clone()))
                .collect()
        })
        .collect()
}

/// FIDE Laws 7.5.5 with A.3 (issue 29): in rapid, White's first completed illegal move gives
/// Black one minute (not two), once; White's second loses, Black being able to mate. Both
/// rulings are on the wire, from moves and from PGN alike (the incidents' plies count the
/// main line).
#[tokio::test]
async fn rapid_second_illegal_move_loses_after_one_minute_added_once_7_5_5_a_3() {
    let running = start(&[]).await;
    let incidents = vec![
        illegal_move(2, Color::White, "Ke3", ActedOn::Claimed),
        illegal_move(4, Color::White, "Qxf7", ActedOn::ArbiterObserved),
    ];
    let rapid = rules(TimeClass::Rapid, Supervision::Unspecified, "");
    let response = adjudicate(
        &running,
        game_request(
            &["e4", "e5", "Nf3", "Nc6"],
            rapid.clone(),
            incidents.clone(),
        ),
    )
    .await
    .expect("adjudicated");
    let outcome = response.outcome.clone().expect("outcome");
    assert_eq!(
        (
            outcome.result(),
            outcome.termination(),
            outcome.fide_article.as_str(),
            outcome.ply
        ),
        (
            GameResult::BlackWins,
            Termination::SecondIllegalMove,
            "7.5.5",
            4
        )
    );
    assert_eq!(
        (response.white_seconds_added, response.black_seconds_added),
        (0, 60)
    );
    let black = i32::from(Color::Black);
    assert_eq!(
        consequences(&response),
        [
            vec![
                (
                    ConsequenceKind::PositionReinstated,
                    0,
                    0,
                    "7.5.1".to_owned()
                ),
                (
                    ConsequenceKind::TimeAdded,
                    black,
                    60,
                    "7.5.5 with A.3".to_owned()
                ),
            ],
            vec![
                (
                    ConsequenceKind::PositionReinstated,
                    0,
                    0,
                    "7.5.1".to_owned()
                ),
                (ConsequenceKind::GameEnded, 0, 0, "7.5.5".to_owned()),
            ],
        ]
    );
    let first = response.rulings[0].incident.as_ref().expect("incident");
    assert_eq!((first.ply, first.r#move.as_str()), (2, "Ke3"));
    assert!(
        response.rulings[1]
            .explanation
            .contains("White's second completed illegal move"),
        "{}",
        response.rulings[1].explanation
    );
    assert!(response.event_result.is_none(), "no draw odds");
    // The same game as PGN: the same rulings, and the Result tag agrees.
    let pgn = "[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n";
    let from_pgn = adjudicate(
        &running,
        AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Pgn(pgn.to_owned())),
            rules: rapid,
            incidents,
            ..AdjudicateGameRequest::default()
        },
    )
    .await
    .expect("adjudicated");
    assert_eq!(from_pgn.outcome, response.outcome);
    assert_eq!(from_pgn.rulings, response.rulings);
    assert_eq!(from_pgn.black_seconds_added, 60);
    assert!(!from_pgn.disagreement, "{}", from_pgn.disagreement_reason);
    // The incident ended the game: the event the tags imply (White's resignation) is not used.
    assert_eq!(from_pgn.event, None);
}

/// FIDE Laws 9.5.3 (issue 29): a threefold claim announcing Nf3, which would repeat the
/// position only twice, is incorrect: Black gets two minutes (standard play) and Nf3 must be
/// played. A record that plays another move is refused on that move.
#[tokio::test]
async fn incorrect_claim_adds_two_minutes_and_requires_the_announced_move_9_5_3() {
    let running = start(&[]).await;
    let claim = Incident {
        ply: 4,
        kind: IncidentKind::Claim.into(),
        side: Color::White.into(),
        claim: ClaimKind::ThreefoldRepetition.into(),
        r#move: "Nf3".to_owned(),
        ..Incident::default()
    };
    let response = adjudicate(
        &running,
        game_request(
            &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"],
            None,
            vec![claim.clone()],
        ),
    )
    .await
    .expect("adjudicated");
    assert_eq!(
        response.outcome.as_ref().expect("outcome").termination(),
        Termination::Unspecified,
        "the game goes on"
    );
    assert_eq!(response.black_seconds_added, 120);
    let ruling = &response.rulings[0];
    let kinds: Vec<_> = ruling.consequences.iter().map(|c| c.kind()).collect();
    assert_eq!(
        kinds,
        [
            ConsequenceKind::ClaimRejected,
            ConsequenceKind::TimeAdded,
            ConsequenceKind::MoveRequired
        ]
    );
    let required = ruling.consequences[2].r#move.as_ref().expect("move");
    assert_eq!(
        (required.san.as_str(), required.uci.as_str()),
        ("Nf3", "g1f3")
    );
    assert_eq!(ruling.consequences[1].fide_article, "9.5.3");
    // The record plays Nc3 instead: refused on that move, the fifth (game.moves[4]).
    let status = adjudicate(
        &running,
        game_request(&["Nf3", "Nf6", "Ng1", "Ng8", "Nc3"], None, vec![claim]),
    )
    .await
    .expect_err("the announced move was not played");
    assert_eq!(status.code(), Code::InvalidArgument);
    let violation = &status
        .get_error_details()
        .bad_request()
        .expect("bad request")
        .field_violations[0]
        .clone();
    assert_eq!(violation.field, "game.moves[4]");
    assert_eq!(
        violation.description,
        "ply 5: the move must be Nf3 (FIDE Laws 9.5.3), not Nc3"
    );
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "ILLEGAL_MOVE");
    assert_eq!(
        info.metadata.get("referee_error").map(String::as_str),
        Some("move_required")
    );
}

/// Armageddon (issue 29): a draw under the Laws is a win for Black under the event's
/// regulation; the verdict gives both, and a PGN Result tag may state either without a
/// disagreement (`0-1`, the event's; `1/2-1/2`, the Laws'), but not `1-0`.
#[tokio::test]
async fn armageddon_draw_is_an_event_win_for_black_with_the_regulation() {
    let running = start(&[]).await;
    let armageddon = rules(TimeClass::Blitz, Supervision::Unspecified, REGULATION);
    let agreement = Incident {
        ply: 2,
        kind: IncidentKind::Agreement.into(),
        ..Incident::default()
    };
    let response = adjudicate(
        &running,
        game_request(&["e4", "e5"], armageddon.clone(), vec![agreement]),
    )
    .await
    .expect("adjudicated");
    let outcome = response.outcome.expect("outcome");
    assert_eq!(
        (outcome.result(), outcome.fide_article.as_str()),
        (GameResult::Draw, "5.2.3")
    );
    let event = response.event_result.expect("an event result");
    assert_eq!(
        (
            event.result(),
            event.result_text.as_str(),
            event.regulation.as_str()
        ),
        (GameResult::BlackWins, "0-1", REGULATION)
    );
    assert_eq!(
        event.explanation,
        format!(
            "drawn under the Laws; Black has draw odds, so the draw counts as a win for Black ({REGULATION})"
        )
    );
    // Stalemate (5.2.1) in PGN: the Result tag 0-1 states the event's result.
    let stalemate = |result: &str| {
        format!(
            "[Result \"{result}\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]\n\n1. Qf7 {result}\n"
        )
    };
    for (declared, rules, disagrees) in [
        ("0-1", armageddon.clone(), false),
        ("1/2-1/2", armageddon.clone(), false),
        ("1-0", armageddon.clone(), true),
        ("0-1", None, true),
    ] {
        let response = adjudicate(
            &running,
            AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Pgn(stalemate(declared))),
                rules: rules.clone(),
                ..AdjudicateGameRequest::default()
            },
        )
        .await
        .expect("adjudicated");
        assert_eq!(
            response.outcome.expect("outcome").fide_article,
            "5.2.1",
            "{declared}"
        );
        assert_eq!(
            response.disagreement, disagrees,
            "{declared} under {rules:?}: {}",
            response.disagreement_reason
        );
        assert_eq!(
            response.event_result.map(|e| e.result_text),
            rules.as_ref().map(|_| "0-1".to_owned())
        );
    }
}

/// Issue 29: incidents that do not fit fail with INVALID_ARGUMENT on "incidents[i]" and why:
/// a missing kind (the conversion), a legal move sent as illegal, incidents out of ply order,
/// one past the last ply, and more incidents than the server's move limit.
#[tokio::test]
async fn bad_incidents_are_invalid_arguments_naming_incidents_i() {
    let running = start(&["--max-moves", "3"]).await;
    let cases = [
        (
            vec![
                illegal_move(0, Color::White, "Ke2", ActedOn::Claimed),
                Incident {
                    ply: 1,
                    ..Incident::default()
                },
            ],
            "incidents[1].kind",
            "MISSING_FIELD",
            "an incident kind is required",
        ),
        (
            vec![illegal_move(0, Color::White, "e4", ActedOn::Claimed)],
            "incidents[0]",
            "INVALID_VALUE",
            "ply 0: 'e4' is a legal move here, not an illegal one",
        ),
        (
            vec![
                illegal_move(2, Color::White, "Ke3", ActedOn::Claimed),
                illegal_move(1, Color::Black, "Ke6", ActedOn::Claimed),
            ],
            "incidents[1]",
            "INVALID_VALUE",
            "incident 1: ply 1 comes before the previous incident's ply 2",
        ),
        (
            vec![illegal_move(3, Color::Black, "Ke6", ActedOn::Claimed)],
            "incidents[0]",
            "INVALID_VALUE",
            "incident 0: ply 3 is past the game's last ply, 2",
        ),
        (
            vec![illegal_move(0, Color::Black, "Ke7", ActedOn::Claimed)],
            "incidents[0]",
            "INVALID_VALUE",
            "ply 0: an illegal move is made by the player having the move, White, not Black",
        ),
        (
            vec![illegal_move(0, Color::White, "Ke2", ActedOn::Nobody)],
            "incidents[0]",
            "INVALID_VALUE",
            "ply 0: under standard an illegal move found is always acted on (FIDE Laws 7.5.1): 'nobody' applies to rapid and blitz without adequate supervision only (A.5.2, B.3)",
        ),
        (
            vec![illegal_move(0, Color::White, "Ke2", ActedOn::Claimed); 4],
            "incidents",
            "LIMIT_EXCEEDED",
            "at most 3 incidents (--max-moves), got 4",
        ),
    ];
    for (incidents, field, reason, description) in cases {
        let status = adjudicate(&running, game_request(&["e4", "e5"], None, incidents))
            .await
            .expect_err(field);
        assert_eq!(status.code(), Code::InvalidArgument, "{field}");
        let violation = status
            .get_error_details()
            .bad_request()
            .expect("bad request")
            .field_violations[0]
            .clone();
        assert_eq!(
            (violation.field.as_str(), violation.description.as_str()),
            (field, description)
        );
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, reason, "{field}");
    }
}

/// FIDE Laws A.5 and B.3 are for rapid and blitz (issue 29): standard play without adequate
/// supervision is INVALID_VALUE on rules.supervision.
#[tokio::test]
async fn standard_play_unsupervised_is_invalid_on_rules_supervision() {
    let running = start(&[]).await;
    let status = adjudicate(
        &running,
        game_request(
            &["e4"],
            rules(TimeClass::Standard, Supervision::Inadequate, ""),
            Vec::new(),
        ),
    )
    .await
    .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    let violation = status
        .get_error_details()
        .bad_request()
        .expect("bad request")
        .field_violations[0]
        .clone();
    assert_eq!(violation.field, "rules.supervision");
    assert!(
        violation.description.contains("A.5, B.3"),
        "{}",
        violation.description
    );
    assert_eq!(
        status.get_details_error_info().expect("ErrorInfo").reason,
        "INVALID_VALUE"
    );
}

/// AdjudicateGames (issue 29): the rule set applies to every game of a message, given as moves
/// or as PGN (Armageddon's event result); incidents only with a game as moves, and with PGN
/// they are an in-band error on "incidents".
#[tokio::test]
async fn adjudicate_games_takes_rules_for_both_sources_and_incidents_only_with_game() {
    let running = start(&[]).await;
    let armageddon = rules(TimeClass::Blitz, Supervision::Unspecified, REGULATION);
    let pgn = "[Result \"0-1\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]\n\n1. Qf7 0-1\n\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let messages = vec![
        AdjudicateGamesRequest {
            source: Some(adjudicate_games_request::Source::Pgn(pgn.to_owned())),
            rules: armageddon.clone(),
            ..AdjudicateGamesRequest::default()
        },
        AdjudicateGamesRequest {
            source: Some(adjudicate_games_request::Source::Pgn(pgn.to_owned())),
            incidents: vec![illegal_move(0, Color::White, "Ke2", ActedOn::Claimed)],
            ..AdjudicateGamesRequest::default()
        },
        AdjudicateGamesRequest {
            source: Some(adjudicate_games_request::Source::Game(Game {
                start: fen("startpos"),
                moves: strings(&["e4"]),
            })),
            rules: armageddon,
            incidents: vec![illegal_move(1, Color::Black, "e5", ActedOn::Claimed)],
            ..AdjudicateGamesRequest::default()
        },
    ];
    let mut stream = ArbiterServiceClient::new(running.channel.clone())
        .adjudicate_games(tokio_stream::iter(messages))
        .await
        .expect("stream")
        .into_inner();
    let mut answers = Vec::new();
    while let Some(response) = stream.message().await.expect("a response") {
        answers.push(response.result.expect("result"));
    }
    assert_eq!(answers.len(), 4);
    let verdict = |i: usize| match &answers[i] {
        adjudicate_games_response::Result::Verdict(v) => v.clone(),
        other => panic!("game {i}: {other:?}"),
    };
    let stalemate = verdict(0);
    assert_eq!(
        stalemate.event_result.map(|e| e.result_text),
        Some("0-1".to_owned())
    );
    assert!(!stalemate.disagreement, "{}", stalemate.disagreement_reason);
    let mate = verdict(1);
    assert_eq!(
        mate.event_result.map(|e| (e.result_text, e.regulation)),
        Some(("1-0".to_owned(), REGULATION.to_owned()))
    );
    match &answers[2] {
        adjudicate_games_response::Result::Error(error) => {
            assert_eq!(
                (error.field.as_str(), error.reason.as_str()),
                ("incidents", "INVALID_VALUE")
            );
        }
        other => panic!("{other:?}"),
    }
    match &answers[3] {
        adjudicate_games_response::Result::Error(error) => {
            assert_eq!(
                (error.field.as_str(), error.description.as_str()),
                (
                    "incidents[0]",
                    "ply 1: 'e5' is a legal move here, not an illegal one"
                )
            );
        }
        other => panic!("{other:?}"),
    }
}

/// (code, ply, line, message) of each warning.
fn warnings(response: &AdjudicateGameResponse) -> Vec<(&str, u32, u32, &str)> {
    response
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.ply, w.line, w.message.as_str()))
        .collect()
}

/// Issue 29 (fresh reviewer): an event that an incident's earlier end kept from applying is
/// said so in an `event_after_end` warning naming the ply the game ended at, not dropped in
/// silence: the request's `event` with `game` or `pgn`, and the event the PGN tags imply when
/// their result is not the verdict's (a game recorded as its incident ended it gets none).
#[tokio::test]
async fn an_event_after_an_incident_ended_the_game_is_warned_about() {
    use arbiter_proto::v1::{GameEvent, GameEventKind};
    let running = start(&[]).await;
    let resigned = || Incident {
        ply: 2,
        kind: IncidentKind::Resignation.into(),
        side: Color::White.into(),
        ..Incident::default()
    };
    let flag = Some(GameEvent {
        kind: GameEventKind::FlagFall.into(),
        side: Color::Black.into(),
    });
    let sent = "the event Black's flag fall (FIDE Laws 6.9), sent with the request, was not applied: an incident had already ended the game at ply 2 (resignation, 0-1, FIDE Laws 5.1.2), and a game ends once";

    let mut request = game_request(&["e4", "e5", "Nf3", "Nc6"], None, vec![resigned()]);
    request.event = flag;
    let response = adjudicate(&running, request).await.expect("adjudicated");
    let outcome = response.outcome.as_ref().expect("an outcome");
    assert_eq!(
        (
            outcome.result_text.as_str(),
            outcome.ply,
            outcome.fide_article.as_str()
        ),
        ("0-1", 2, "5.1.2")
    );
    let listed = warnings(&response);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0].0, "moves_after_end");
    assert_eq!(listed[1], ("event_after_end", 2, 0, sent));

    // With pgn: the request's event, and the event the tags imply.
    let pgn_request = |pgn: &str, event| AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Pgn(pgn.to_owned())),
        incidents: vec![resigned()],
        event,
        ..AdjudicateGameRequest::default()
    };
    let response = adjudicate(
        &running,
        pgn_request("[Result \"0-1\"]\n\n1. e4 e5\n2. Nf3 Nc6 0-1\n", flag),
    )
    .await
    .expect("adjudicated");
    assert_eq!(
        warnings(&response).last().copied(),
        Some(("event_after_end", 2, 3, sent))
    );
    let response = adjudicate(
        &running,
        pgn_request(
            "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n\n1. e4 e5\n2. Nf3 Nc6 1-0\n",
            None,
        ),
    )
    .await
    .expect("adjudicated");
    assert!(response.disagreement);
    assert_eq!(
        warnings(&response).last().copied(),
        Some((
            "event_after_end",
            2,
            4,
            "the event Black's flag fall (FIDE Laws 6.9), which the Result and Termination tags imply, was not applied: an incident had already ended the game at ply 2 (resignation, 0-1, FIDE Laws 5.1.2), and a game ends once"
        ))
    );
    // Recorded as the incident ended it: the tags imply White's resignation, and nothing is
    // lost by not applying it.
    let response = adjudicate(
        &running,
        pgn_request("[Result \"0-1\"]\n\n1. e4 e5\n2. Nf3 Nc6 0-1\n", None),
    )
    .await
    .expect("adjudicated");
    assert!(!response.disagreement);
    let codes: Vec<&str> = response.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["moves_after_end"]);
}

/// Issue 29 (fresh reviewer): an incident's move is read as the game's moves are: with
/// `san_language` German, `game.moves` and the illegal `Lb6` (a bishop, `L`) alike; with
/// `pgn`, whose movetext is English whatever the language, `Bb6`. Each is ruled on under 7.5.1
/// and 7.5.5 with its explanation in English letters.
#[tokio::test]
async fn incident_moves_are_read_in_the_language_of_the_games_moves() {
    use arbiter_proto::v1::SanLanguage;
    let running = start(&[]).await;
    let bishop = |written: &str| vec![illegal_move(2, Color::White, written, ActedOn::Claimed)];
    let mut request = game_request(&["e4", "e5", "Sf3"], None, bishop("Lb6"));
    request.san_language = SanLanguage::German.into();
    let moves = adjudicate(&running, request).await.expect("adjudicated");
    let mut request = AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Pgn(
            "1. e4 e5 2. Nf3 *".to_owned(),
        )),
        incidents: bishop("Bb6"),
        ..AdjudicateGameRequest::default()
    };
    request.san_language = SanLanguage::German.into();
    let pgn = adjudicate(&running, request).await.expect("adjudicated");
    for response in [&moves, &pgn] {
        assert_eq!(
            consequences(response),
            [vec![
                (
                    ConsequenceKind::PositionReinstated,
                    0,
                    0,
                    "7.5.1".to_owned()
                ),
                (
                    ConsequenceKind::TimeAdded,
                    i32::from(Color::Black),
                    120,
                    "7.5.5".to_owned()
                ),
            ]]
        );
        assert!(
            response.rulings[0]
                .explanation
                .starts_with("White completed an illegal move, Bb6 ("),
            "{}",
            response.rulings[0].explanation
        );
    }
}
