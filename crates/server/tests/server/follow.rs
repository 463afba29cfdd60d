//! The FollowGame stream (issue 29, part 3) over a real socket: a game followed move by move
//! with its irregularities and what the FIDE Laws (2023) make of them, resends and
//! corrections, in-band errors, and the stream's bounds (its own cap, idle time, plies,
//! backpressure, the drain).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arbiter_proto::v1::{
    ActedOn, AdjudicateGamesRequest, ClaimKind, Color, ConsequenceKind, FollowCorrection,
    FollowGameRequest, FollowGameResponse, FollowGameStart, FollowMove, Game, Incident,
    IncidentKind, RuleSet, Supervision, TimeClass, arbiter_service_client::ArbiterServiceClient,
    follow_game_request::Message,
};
use tokio::sync::mpsc;
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status, Streaming};

use crate::grpc::start;

/// One FollowGame stream: its requests' sender and its responses.
struct Follower {
    tx: mpsc::Sender<FollowGameRequest>,
    responses: Streaming<FollowGameResponse>,
}

impl Follower {
    /// Opens a stream and sends `start`; the stream's first answer or its status.
    async fn open(
        running: &crate::grpc::Running,
        start: FollowGameStart,
    ) -> Result<(Self, FollowGameResponse), Status> {
        let (tx, rx) = mpsc::channel(16);
        tx.send(FollowGameRequest {
            message: Some(Message::Start(start)),
        })
        .await
        .expect("queued");
        let mut client = ArbiterServiceClient::new(running.channel.clone());
        let mut responses = client
            .follow_game(ReceiverStream::new(rx))
            .await?
            .into_inner();
        let first = next(&mut responses).await?;
        Ok((Self { tx, responses }, first))
    }

    /// Sends `message` and waits for its answer.
    async fn send(&mut self, message: Message) -> FollowGameResponse {
        self.try_send(message).await.expect("answered")
    }

    async fn try_send(&mut self, message: Message) -> Result<FollowGameResponse, Status> {
        self.tx
            .send(FollowGameRequest {
                message: Some(message),
            })
            .await
            .expect("queued");
        next(&mut self.responses).await
    }

    async fn play(&mut self, ply: u32, mv: &str) -> FollowGameResponse {
        self.send(Message::Move(FollowMove {
            ply,
            r#move: mv.to_owned(),
        }))
        .await
    }
}

async fn next(responses: &mut Streaming<FollowGameResponse>) -> Result<FollowGameResponse, Status> {
    tokio::time::timeout(Duration::from_secs(10), responses.message())
        .await
        .expect("an answer within 10 s")?
        .ok_or_else(|| Status::unknown("the stream ended"))
}

fn game(moves: &[&str]) -> Option<Game> {
    Some(Game {
        start: None,
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
    })
}

fn new_game(moves: &[&str], rules: Option<RuleSet>) -> FollowGameStart {
    FollowGameStart {
        game: game(moves),
        rules,
        ..FollowGameStart::default()
    }
}

fn rapid(supervision: Supervision) -> Option<RuleSet> {
    Some(RuleSet {
        time_class: TimeClass::Rapid.into(),
        supervision: supervision.into(),
        draw_odds_regulation: String::new(),
    })
}

fn illegal(ply: u32, side: Color, mv: &str, acted_on: ActedOn) -> Message {
    Message::Incident(Incident {
        ply,
        kind: IncidentKind::IllegalMove.into(),
        side: side.into(),
        r#move: mv.to_owned(),
        acted_on: acted_on.into(),
        ..Incident::default()
    })
}

fn claim(ply: u32, side: Color, announced: &str) -> Message {
    Message::Incident(Incident {
        ply,
        kind: IncidentKind::Claim.into(),
        side: side.into(),
        claim: ClaimKind::ThreefoldRepetition.into(),
        r#move: announced.to_owned(),
        ..Incident::default()
    })
}

/// A ruling's consequences in words: `POSITION_REINSTATED 2`, `TIME_ADDED BLACK 120 7.5.5`,
/// `GAME_ENDED 0-1 7.5.5`, ...
fn consequences(response: &FollowGameResponse) -> Vec<String> {
    let ruling = response
        .ruling
        .as_ref()
        .or_else(|| response.illegal.as_ref()?.if_acted_on.as_ref())
        .expect("a ruling");
    ruling
        .consequences
        .iter()
        .map(|c| {
            let kind = c
                .kind()
                .as_str_name()
                .trim_start_matches("CONSEQUENCE_KIND_");
            match c.kind() {
                ConsequenceKind::PositionReinstated => format!("{kind} {}", c.ply),
                ConsequenceKind::TimeAdded => format!(
                    "{kind} {} {} {}",
                    c.side().as_str_name().trim_start_matches("COLOR_"),
                    c.seconds,
                    c.fide_article
                ),
                ConsequenceKind::GameEnded => format!(
                    "{kind} {} {}",
                    c.outcome.as_ref().expect("outcome").result_text,
                    c.fide_article
                ),
                ConsequenceKind::MoveRequired => format!(
                    "{kind} {} {}",
                    c.r#move.as_ref().expect("move").san,
                    c.fide_article
                ),
                _ => kind.to_owned(),
            }
        })
        .collect()
}

/// The in-band error's field and words.
fn error(response: &FollowGameResponse) -> (&str, &str) {
    let error = response.error.as_ref().expect("an in-band error");
    (error.field.as_str(), error.description.as_str())
}

/// Issue 29: a whole game followed move by move under standard play. White's first completed
/// illegal move, claimed by Black, reinstates the position (FIDE Laws 7.5.1) and gives Black two
/// minutes (7.5.5); White's second loses the game (7.5.5). Each illegal move is answered with
/// its cause and what the Laws make of it once claimed, before anyone claims it; the game does
/// not change until the claim comes, and nothing is taken after the end.
#[tokio::test]
async fn a_followed_game_with_two_illegal_moves_by_white_ends_in_a_loss_7_5_5() {
    let running = start(&[]).await;
    let (mut stream, started) = Follower::open(&running, new_game(&["e4", "e5"], None))
        .await
        .expect("started");
    assert_eq!(
        (started.request_index, started.ply, started.ply_count),
        (0, 2, 2)
    );
    assert_eq!(
        started.fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );

    let first = stream.play(3, "Ke3").await;
    assert_eq!((first.request_index, first.ply, first.ply_count), (1, 3, 2));
    let notice = first.illegal.as_ref().expect("an illegal move");
    assert_eq!(notice.r#move, "Ke3");
    assert_eq!(notice.reason, "no white king can move to e3");
    assert!(
        !notice.may_stand,
        "standard play: it never stands (A.5.2 is A.5's)"
    );
    assert_eq!(
        consequences(&first),
        ["POSITION_REINSTATED 2", "TIME_ADDED BLACK 120 7.5.5"]
    );
    assert_eq!(
        first.fen, started.fen,
        "nothing changes until it is acted on"
    );
    assert_eq!(first.black_seconds_added, 0);

    let claimed = stream
        .send(illegal(2, Color::White, "Ke3", ActedOn::Claimed))
        .await;
    assert_eq!(
        consequences(&claimed),
        ["POSITION_REINSTATED 2", "TIME_ADDED BLACK 120 7.5.5"]
    );
    assert_eq!(
        (claimed.white_seconds_added, claimed.black_seconds_added),
        (0, 120)
    );
    assert_eq!(claimed.error, None);

    let played = stream.play(3, "Nf3").await;
    assert_eq!(played.r#move.as_ref().map(|m| m.san.as_str()), Some("Nf3"));
    assert_eq!(played.ply_count, 3);
    assert_eq!(stream.play(4, "Nc6").await.ply_count, 4);

    // Qxf7: the queen on d1 has no line to f7.
    let second = stream.play(5, "Qxf7").await;
    assert!(second.illegal.is_some(), "{second:?}");
    assert_eq!(
        consequences(&second),
        ["POSITION_REINSTATED 4", "GAME_ENDED 0-1 7.5.5"]
    );
    let lost = stream
        .send(illegal(4, Color::White, "Qxf7", ActedOn::Claimed))
        .await;
    assert_eq!(
        consequences(&lost),
        ["POSITION_REINSTATED 4", "GAME_ENDED 0-1 7.5.5"]
    );
    let outcome = lost.outcome.as_ref().expect("the game ended");
    assert_eq!(
        (
            outcome.result_text.as_str(),
            outcome.fide_article.as_str(),
            outcome.ply
        ),
        ("0-1", "7.5.5", 4)
    );
    assert!(lost.claims.is_empty());
    assert_eq!(
        lost.explanation,
        "White completed a second illegal move; Black can still checkmate (a mating line is given as evidence): Black wins (FIDE Laws 7.5.5)"
    );

    // After the end: refused in-band with the outcome, the stream goes on.
    let after = stream.play(5, "Bc4").await;
    assert_eq!(
        error(&after),
        (
            "move.move",
            "ply 5 (Bc4): the game ended at ply 4 (second illegal move, FIDE Laws 7.5.5)"
        )
    );
    assert_eq!(after.ply_count, 4);
    assert!(after.outcome.is_some());
}

/// Issue 29: a whole game under rapid play (Appendix A): a wrong claim of threefold repetition
/// gives the opponent one minute instead of two (9.5.3 with A.3), the claims each answer
/// offers say when a repetition can be claimed (9.2), and a correct claim draws the game
/// (9.5.2).
#[tokio::test]
async fn a_followed_rapid_game_ends_on_a_correct_threefold_claim_9_2_9_5() {
    let running = start(&[]).await;
    let (mut stream, _) = Follower::open(&running, new_game(&[], rapid(Supervision::Adequate)))
        .await
        .expect("started");
    let dance = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for (i, mv) in dance.iter().enumerate() {
        stream.play(i as u32 + 1, mv).await;
    }
    // The start position has been seen twice: a claim now is wrong.
    let wrong = stream.send(claim(4, Color::White, "")).await;
    assert_eq!(
        consequences(&wrong),
        ["CLAIM_REJECTED", "TIME_ADDED BLACK 60 9.5.3 with A.3"]
    );
    assert_eq!(wrong.black_seconds_added, 60);
    for (i, mv) in dance[..3].iter().enumerate() {
        stream.play(i as u32 + 5, mv).await;
    }
    let before = stream.play(8, "Ng8").await;
    assert_eq!(before.ply_count, 8);
    // Claimable now, and also by announcing Nf3 (its position's third time).
    let claimable: Vec<(String, bool, Option<&str>)> = before
        .claims
        .iter()
        .map(|c| {
            (
                c.kind().as_str_name().to_owned(),
                c.claimable_now,
                c.r#move.as_ref().map(|m| m.san.as_str()),
            )
        })
        .collect();
    assert_eq!(
        claimable,
        [
            ("CLAIM_KIND_THREEFOLD_REPETITION".to_owned(), true, None),
            (
                "CLAIM_KIND_THREEFOLD_REPETITION".to_owned(),
                false,
                Some("Nf3")
            )
        ]
    );
    let drawn = stream.send(claim(8, Color::White, "")).await;
    assert_eq!(
        consequences(&drawn),
        ["CLAIM_UPHELD", "GAME_ENDED 1/2-1/2 9.2"]
    );
    let outcome = drawn.outcome.as_ref().expect("drawn");
    assert_eq!((outcome.result_text.as_str(), outcome.ply), ("1/2-1/2", 8));
    assert_eq!(
        (drawn.white_seconds_added, drawn.black_seconds_added),
        (0, 60)
    );
}

/// Issue 29: each message carries its ply, so that a resent one is answered again and not
/// applied twice (a move, an incident); a correction replaces the moves from a ply on and drops
/// the incidents after them, keeping those before; a correction with an illegal move changes
/// nothing.
#[tokio::test]
async fn resends_are_not_applied_twice_and_corrections_drop_later_incidents() {
    let running = start(&[]).await;
    let mut opening = new_game(&["e4", "e5"], None);
    opening.incidents = vec![Incident {
        ply: 2,
        kind: IncidentKind::IllegalMove.into(),
        side: Color::White.into(),
        r#move: "Ke3".to_owned(),
        acted_on: ActedOn::ArbiterObserved.into(),
        ..Incident::default()
    }];
    let (mut stream, started) = Follower::open(&running, opening).await.expect("started");
    assert_eq!((started.ply_count, started.black_seconds_added), (2, 120));

    let played = stream.play(3, "Nf3").await;
    assert_eq!((played.ply_count, played.resent), (3, false));
    let again = stream.play(3, "g1f3").await;
    assert_eq!((again.ply_count, again.resent), (3, true));
    assert_eq!(again.r#move.as_ref().map(|m| m.san.as_str()), Some("Nf3"));
    assert_eq!(again.fen, played.fen);
    let older = stream.play(2, "e5").await;
    assert_eq!((older.ply_count, older.resent), (3, true));
    let other = stream.play(2, "e6").await;
    assert_eq!(
        error(&other),
        (
            "move.ply",
            "ply 2 was played as e5, not e6: send a correction from ply 2 to replace it"
        )
    );

    // Black's illegal move, seen by the arbiter: White gets two minutes (7.5.5). Resent: once.
    let ruled = stream
        .send(illegal(3, Color::Black, "Ke6", ActedOn::ArbiterObserved))
        .await;
    assert_eq!(
        (
            ruled.resent,
            ruled.white_seconds_added,
            ruled.black_seconds_added
        ),
        (false, 120, 120)
    );
    let resent = stream
        .send(illegal(3, Color::Black, "Ke6", ActedOn::ArbiterObserved))
        .await;
    assert_eq!((resent.resent, resent.white_seconds_added), (true, 120));
    assert_eq!(consequences(&resent), consequences(&ruled));

    // The board misread ply 3: replaced from there. The incident at ply 3 goes with it; the one
    // at ply 2 (before the first ply replaced) stays.
    let corrected = stream
        .send(Message::Correction(FollowCorrection {
            from_ply: 3,
            moves: vec!["Nc3".to_owned(), "Nc6".to_owned()],
        }))
        .await;
    assert_eq!(corrected.error, None);
    assert_eq!(
        (
            corrected.ply,
            corrected.ply_count,
            corrected.white_seconds_added,
            corrected.black_seconds_added
        ),
        (3, 4, 0, 120)
    );
    assert_eq!(
        corrected.fen,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 3"
    );
    // An illegal move in a correction: refused, naming it, and nothing changes.
    let refused = stream
        .send(Message::Correction(FollowCorrection {
            from_ply: 4,
            moves: vec!["Nf6".to_owned(), "Ke3".to_owned()],
        }))
        .await;
    assert_eq!(
        error(&refused),
        ("correction.moves[1]", "Ke3: no white king can move to e3")
    );
    assert_eq!((refused.ply_count, refused.fen), (4, corrected.fen));
}

/// Issue 29, FIDE Laws A.5.2: in rapid play without adequate supervision an illegal move
/// nobody claims before the opponent's next move stands. The notice says it may stand; once
/// it has, the position on the board is one no legal move reached and the stream says so for
/// the next move.
#[tokio::test]
async fn an_unclaimed_illegal_move_stands_under_a_5_2_and_the_game_cannot_go_on() {
    let running = start(&[]).await;
    let (mut stream, _) = Follower::open(
        &running,
        new_game(&["e4", "e5"], rapid(Supervision::Inadequate)),
    )
    .await
    .expect("started");
    let notice = stream.play(3, "Ke3").await;
    let illegal_move = notice.illegal.as_ref().expect("illegal");
    assert!(illegal_move.may_stand);
    // Acted on, it would cost a minute under A.3.
    assert_eq!(
        consequences(&notice),
        [
            "POSITION_REINSTATED 2",
            "TIME_ADDED BLACK 60 7.5.5 with A.3"
        ]
    );
    let stood = stream
        .send(illegal(2, Color::White, "Ke3", ActedOn::Nobody))
        .await;
    assert_eq!(consequences(&stood), ["ILLEGAL_MOVE_STANDS"]);
    assert!(
        stood
            .ruling
            .as_ref()
            .expect("ruling")
            .explanation
            .contains("A.5.2")
    );
    let after = stream.play(3, "Nf3").await;
    let (field, reason) = error(&after);
    assert_eq!(field, "move.move");
    assert!(
        reason.starts_with(
            "ply 2: the illegal move 'Ke3' stood at ply 2 (nobody claimed it, FIDE Laws A.5.2)"
        ),
        "{reason}"
    );
}

/// Issue 29: messages out of order are refused in-band naming the ply (a gap names the
/// missing one), the stream goes on; a first message that is not `start`, or a start that
/// cannot be replayed, fails the stream with INVALID_ARGUMENT naming the field.
#[tokio::test]
async fn ply_gaps_and_bad_starts_are_named() {
    let running = start(&[]).await;
    let (mut stream, _) = Follower::open(&running, new_game(&["e4"], None))
        .await
        .expect("started");
    let gap = stream.play(4, "Nf3").await;
    assert_eq!(
        error(&gap),
        (
            "move.ply",
            "ply 4 is beyond the next ply, 2: the message of ply 2 is missing (send it, or a correction from ply 2)"
        )
    );
    let zero = stream.play(0, "e5").await;
    assert_eq!(error(&zero).0, "move.ply");
    let early = stream
        .send(illegal(0, Color::White, "Ke3", ActedOn::Claimed))
        .await;
    assert_eq!(
        error(&early),
        (
            "incident.ply",
            "incidents are sent as they happen: ply 0 is not the number of plies played, 1"
        )
    );
    let restart = stream.send(Message::Start(new_game(&[], None))).await;
    assert_eq!(error(&restart).0, "start");
    assert_eq!(stream.play(2, "e5").await.ply_count, 2);

    // The stream's first message must be start.
    let (tx, rx) = mpsc::channel(1);
    tx.send(FollowGameRequest {
        message: Some(Message::Move(FollowMove {
            ply: 1,
            r#move: "e4".to_owned(),
        })),
    })
    .await
    .expect("queued");
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let mut responses = client
        .follow_game(ReceiverStream::new(rx))
        .await
        .expect("opened")
        .into_inner();
    let status = next(&mut responses).await.expect_err("not a start");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "start: the first message must be start (the game to follow), not a move"
    );
    // A start with an illegal move: nothing to follow.
    let status = Follower::open(&running, new_game(&["e4", "Ke3"], None))
        .await
        .err()
        .expect("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "start.game.moves[1]: ply 2 (Ke3): no black king can move to e3"
    );
}

/// Issue 29 (fresh reviewer): a start without `game` is a new game from the standard start
/// position, as `{"start":{"rules":...}}` in JSON; it used to fail on `start.game`.
#[tokio::test]
async fn a_start_without_a_game_is_a_new_game_from_the_standard_start() {
    let running = start(&[]).await;
    let start = FollowGameStart {
        game: None,
        rules: rapid(Supervision::Adequate),
        ..FollowGameStart::default()
    };
    let (mut stream, started) = Follower::open(&running, start).await.expect("started");
    assert_eq!(
        (started.ply, started.ply_count, started.error),
        (0, 0, None)
    );
    assert_eq!(
        started.fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let played = stream.play(1, "e4").await;
    assert_eq!((played.ply_count, played.error), (1, None));
    assert_eq!(played.r#move.expect("the move").san, "e4");
}

/// Issue 29: FollowGame streams have a cap of their own (`--max-follow-streams`): beyond it
/// a stream fails at once with RESOURCE_EXHAUSTED while AdjudicateGames streams are still
/// admitted; a client that goes away frees its place.
#[tokio::test]
async fn the_follow_stream_cap_is_its_own_and_a_client_going_away_frees_its_place() {
    let running = start(&["--max-follow-streams", "2", "--max-streams", "1"]).await;
    let (first, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("1");
    let (_second, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("2");
    let status = Follower::open(&running, new_game(&[], None))
        .await
        .err()
        .expect("beyond the cap");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(
        status.message(),
        "server overloaded: too many FollowGame streams in flight"
    );
    // AdjudicateGames has its own place.
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let mut games = client
        .adjudicate_games(tokio_stream::iter([AdjudicateGamesRequest {
            source: Some(arbiter_proto::v1::adjudicate_games_request::Source::Game(
                Game {
                    start: None,
                    moves: vec!["f3".into(), "e5".into(), "g4".into(), "Qh4#".into()],
                },
            )),
            ..AdjudicateGamesRequest::default()
        }]))
        .await
        .expect("admitted")
        .into_inner();
    assert!(games.next().await.expect("an answer").is_ok());

    // The first client goes: its stream's task ends and gives its place back.
    drop(first);
    let mut reopened = None;
    for _ in 0..100 {
        match Follower::open(&running, new_game(&[], None)).await {
            Ok(opened) => {
                reopened = Some(opened);
                break;
            }
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    assert!(
        reopened.is_some(),
        "the place of the client gone was not freed"
    );
}

/// Issue 29: a followed game has its own idle bound (`--follow-idle-timeout`, long by
/// default): a stream without a message for that long ends with DEADLINE_EXCEEDED naming it.
#[tokio::test]
async fn a_silent_follow_stream_ends_at_its_idle_timeout() {
    let running = start(&["--follow-idle-timeout", "300ms"]).await;
    let (mut stream, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("started");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let status = next(&mut stream.responses).await.expect_err("ended");
    assert_eq!(status.code(), Code::DeadlineExceeded);
    assert!(
        status
            .message()
            .contains("for 0.3 s (--follow-idle-timeout)"),
        "{}",
        status.message()
    );
}

/// Issue 29: the plies of a stream are bounded by the server's move limit (`--max-moves`), and
/// its incidents by `--max-follow-incidents`: beyond either the stream ends with
/// RESOURCE_EXHAUSTED naming the flag; a start with more incidents is INVALID_ARGUMENT naming
/// `--max-follow-incidents` (not the move limit, which AdjudicateGame's incidents have).
#[tokio::test]
async fn plies_and_incidents_of_a_stream_are_bounded() {
    let running = start(&["--max-moves", "3", "--max-follow-incidents", "1"]).await;
    let (mut stream, _) = Follower::open(&running, new_game(&["e4", "e5"], None))
        .await
        .expect("started");
    assert_eq!(stream.play(3, "Nf3").await.ply_count, 3);
    let status = stream
        .try_send(Message::Move(FollowMove {
            ply: 4,
            r#move: "Nc6".to_owned(),
        }))
        .await
        .expect_err("beyond --max-moves");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(
        status.message().contains("(--max-moves)"),
        "{}",
        status.message()
    );

    let (mut stream, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("started");
    let offer = |ply| {
        Message::Incident(Incident {
            ply,
            kind: IncidentKind::DrawOffer.into(),
            side: Color::White.into(),
            ..Incident::default()
        })
    };
    assert_eq!(stream.send(offer(0)).await.error, None);
    stream.play(1, "e4").await;
    let status = stream
        .try_send(offer(1))
        .await
        .expect_err("a second incident");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(
        status.message().contains("(--max-follow-incidents)"),
        "{}",
        status.message()
    );

    let mut resumed = new_game(&["e4"], None);
    resumed.incidents = [0, 1]
        .into_iter()
        .map(|ply| match offer(ply) {
            Message::Incident(incident) => incident,
            _ => unreachable!("an incident"),
        })
        .collect();
    let status = Follower::open(&running, resumed)
        .await
        .err()
        .expect("two incidents, one allowed");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "start.incidents: at most 1 incidents (--max-follow-incidents), got 2"
    );
}

/// Issue 29: a client that sends and stops reading is held back: the stream's answers wait in
/// a bounded channel, and the server stops reading its requests (HTTP/2 flow control then
/// stops the client). Counted as the requests the client's side took from its queue: it stops
/// growing, far below what was offered; and when the client reads again, every message is
/// answered, in order.
#[tokio::test]
async fn a_client_that_stops_reading_stops_the_server_reading_its_requests() {
    let running = start(&[]).await;
    const OFFERED: usize = 50_000;
    let taken = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&taken);
    // Resends of ply 1, after the start: each answered, none applied.
    let requests = tokio_stream::iter(0..OFFERED).map(move |i| {
        counted.fetch_add(1, Ordering::SeqCst);
        FollowGameRequest {
            message: Some(if i == 0 {
                Message::Start(new_game(&["e4"], None))
            } else {
                Message::Move(FollowMove {
                    ply: 1,
                    r#move: "e4".to_owned(),
                })
            }),
        }
    });
    // A client whose HTTP/2 windows hold 16 KiB of answers it has not read, as the server's.
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", running.addr))
        .expect("uri")
        .initial_stream_window_size(16 * 1024)
        .initial_connection_window_size(16 * 1024)
        .connect()
        .await
        .expect("connect");
    let mut client = ArbiterServiceClient::new(channel);
    let mut responses = client
        .follow_game(requests)
        .await
        .expect("opened")
        .into_inner();
    let mut previous = 0;
    let mut settled = 0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = taken.load(Ordering::SeqCst);
        if now == previous {
            settled += 1;
            if settled == 3 {
                break;
            }
        } else {
            settled = 0;
        }
        previous = now;
    }
    assert_eq!(
        settled, 3,
        "the client's requests kept being taken: {previous}"
    );
    assert!(
        previous < OFFERED / 4,
        "{previous} of {OFFERED} requests taken"
    );
    // Reading again: every message answered, in order.
    for index in 0..OFFERED {
        let response = next(&mut responses).await.expect("answered");
        assert_eq!(response.request_index as usize, index);
        assert_eq!(response.resent, index > 0);
    }
}

/// Issue 29: the server's drain ends a FollowGame stream between messages with UNAVAILABLE
/// (as AdjudicateGames'), telling the client to resume with the game so far.
#[tokio::test]
async fn a_drain_ends_follow_streams_with_unavailable() {
    let mut running = start(&[]).await;
    let (mut stream, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("started");
    let _ = running.stop.take().expect("running").send(());
    let status = next(&mut stream.responses).await.expect_err("drained");
    assert_eq!(status.code(), Code::Unavailable);
    assert!(
        status.message().contains("start.game = the moves so far"),
        "{}",
        status.message()
    );
}

/// Issue 29 (fresh reviewer): the connection's maximum age ends a FollowGame stream with
/// UNAVAILABLE and the resume instructions as soon as its GOAWAY is sent, after the answer to
/// every message received, as the drain does; it used to last until the grace ran out and
/// the connection closed under it (buf curl: "protocol error: incomplete envelope").
#[tokio::test]
async fn an_aged_connection_ends_follow_streams_with_unavailable_before_its_grace_runs_out() {
    let running = start(&[
        "--max-connection-age",
        "500ms",
        "--max-connection-age-grace",
        "60s",
    ])
    .await;
    let (mut stream, _) = Follower::open(&running, new_game(&[], None))
        .await
        .expect("started");
    assert_eq!(stream.play(1, "e4").await.ply_count, 1);
    // Within next()'s 10 s: far before the grace's 60 s.
    let status = next(&mut stream.responses).await.expect_err("aged");
    assert_eq!(status.code(), Code::Unavailable);
    assert_eq!(
        status.message(),
        "the connection reached its maximum age (--max-connection-age) and is closing: every message received has its answer; open a new stream (on a new connection) with start.game = the moves so far and start.incidents = the incidents so far"
    );
}

/// Issue 29: gRPC-Web cannot carry a bidirectional stream (a browser sends its request body
/// whole before it reads an answer), so FollowGame over gRPC-Web is refused with UNIMPLEMENTED,
/// its status in the trailers frame as for every gRPC-Web error, saying what browsers call
/// instead (ApplyMove and AdjudicateGame per move).
#[tokio::test]
async fn follow_game_over_grpc_web_is_unimplemented_and_names_what_browsers_call() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let running = start(&[]).await;
    let message = prost::Message::encode_to_vec(&FollowGameRequest {
        message: Some(Message::Start(new_game(&[], None))),
    });
    let mut body = vec![0u8];
    body.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
    body.extend_from_slice(&message);
    let mut socket = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /arbiter.v1.ArbiterService/FollowGame HTTP/1.1\r\nHost: arbiter\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.expect("head");
    socket.write_all(&body).await.expect("body");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), socket.read_to_end(&mut answer))
        .await
        .expect("answered in time")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.contains("grpc-status:12"), "{answer}");
    assert!(
        answer.contains(
            "FollowGame%20is%20a%20bidirectional%20stream,%20which%20gRPC-Web%20cannot%20carry"
        ),
        "{answer}"
    );
    assert!(answer.contains("ApplyMove"), "{answer}");
}

/// Issue 29 (fresh reviewer): an incident's move is read in the stream's `san_language`, as
/// its moves are: in German, the illegal `Se5` (a knight, `S`) is ruled on (7.5.1, 7.5.5) and
/// sent again is a resend, and a claim announcing `Sf3` is an incorrect claim whose move is
/// then required (9.5.3), written `Sf3` in the answer. Both were refused as moves that cannot
/// be read.
#[tokio::test]
async fn incidents_are_read_in_the_stream_language_as_its_moves_are() {
    let running = start(&[]).await;
    let german = FollowGameStart {
        san_language: arbiter_proto::v1::SanLanguage::German.into(),
        ..new_game(&["e4", "e5"], None)
    };
    let (mut stream, _) = Follower::open(&running, german).await.expect("started");
    let notice = stream.play(3, "Se5").await;
    assert_eq!(
        notice.illegal.as_ref().expect("illegal").reason,
        "no white knight can move to e5"
    );
    let ruled = stream
        .send(illegal(2, Color::White, "Se5", ActedOn::Claimed))
        .await;
    assert_eq!(ruled.error, None);
    assert_eq!(
        consequences(&ruled),
        ["POSITION_REINSTATED 2", "TIME_ADDED BLACK 120 7.5.5"]
    );
    let resent = stream
        .send(illegal(2, Color::White, "Se5", ActedOn::Claimed))
        .await;
    assert!(resent.resent);
    let claimed = stream.send(claim(2, Color::White, "Sf3")).await;
    assert_eq!(claimed.error, None);
    assert_eq!(
        consequences(&claimed),
        [
            "CLAIM_REJECTED",
            "TIME_ADDED BLACK 120 9.5.3",
            "MOVE_REQUIRED Sf3 9.5.3"
        ]
    );
    assert_eq!(claimed.required_move.expect("required").san, "Sf3");
}
