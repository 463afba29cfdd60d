//! The FollowGame stream of the real binary (issue 29, part 3): its metrics, and the server's
//! memory with as many followed games open as the default cap allows.

use std::time::Duration;

use arbiter_e2e::server::Server;
use arbiter_e2e::{sample, within};
use arbiter_proto::v1::{
    FollowGameRequest, FollowGameResponse, FollowGameStart, FollowMove, Game,
    arbiter_service_client::ArbiterServiceClient, follow_game_request::Message,
};
use arbiter_rules::{Position, STARTING_FEN};
use tokio::sync::mpsc;
use tonic::Streaming;
use tonic::codegen::tokio_stream::wrappers::ReceiverStream;
use tonic::transport::{Channel, Endpoint};

use super::bounds::settle;

/// `n` plies of a legal game that the rules do not end (no capture while another move exists,
/// so the material stays; pseudo-random, the same every run), in UCI.
fn long_game(n: usize) -> Vec<String> {
    let mut game = arbiter_rules::Game::new(Position::from_fen(STARTING_FEN).expect("start"));
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut moves = Vec::with_capacity(n);
    while moves.len() < n {
        let position = game.position().clone();
        let legal: Vec<_> = position.legal_moves().iter().copied().collect();
        let quiet: Vec<_> = legal
            .iter()
            .copied()
            .filter(|m| m.capture.is_none())
            .collect();
        let pool = if quiet.is_empty() { &legal } else { &quiet };
        let mut played = false;
        for attempt in 0..pool.len() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mv = pool[(seed as usize + attempt) % pool.len()];
            let mut next = game.clone();
            next.play(mv);
            if next.outcome().is_none() {
                moves.push(position.uci(&mv));
                game = next;
                played = true;
                break;
            }
        }
        assert!(
            played,
            "no move keeps the game going at ply {}",
            moves.len()
        );
    }
    moves
}

struct Follower {
    tx: mpsc::Sender<FollowGameRequest>,
    responses: Streaming<FollowGameResponse>,
}

async fn open(channel: &Channel, moves: &[String]) -> Follower {
    let (tx, rx) = mpsc::channel(4);
    tx.send(FollowGameRequest {
        message: Some(Message::Start(FollowGameStart {
            game: Some(Game {
                start: None,
                moves: moves.to_vec(),
            }),
            ..FollowGameStart::default()
        })),
    })
    .await
    .expect("queued");
    let mut responses = within(
        "FollowGame",
        ArbiterServiceClient::new(channel.clone()).follow_game(ReceiverStream::new(rx)),
    )
    .await
    .expect("opened")
    .into_inner();
    let first = within("start", responses.message())
        .await
        .expect("answered")
        .expect("a response");
    assert_eq!(first.ply_count as usize, moves.len());
    Follower { tx, responses }
}

impl Follower {
    async fn play(&mut self, ply: u32, mv: &str) -> FollowGameResponse {
        self.tx
            .send(FollowGameRequest {
                message: Some(Message::Move(FollowMove {
                    ply,
                    r#move: mv.to_owned(),
                })),
            })
            .await
            .expect("queued");
        within("move", self.responses.message())
            .await
            .expect("answered")
            .expect("a response")
    }
}

async fn channels(server: &Server, n: usize) -> Vec<Channel> {
    let mut channels = Vec::with_capacity(n);
    for _ in 0..n {
        channels.push(
            within(
                "connect",
                Endpoint::from_shared(server.url()).expect("url").connect(),
            )
            .await
            .expect("connect"),
        );
    }
    channels
}

fn gauge(server: &Server) -> f64 {
    sample(&server.scrape(), "arbiter_follow_streams_open").unwrap_or(-1.0)
}

/// Issue 29: the open follow streams are a gauge that goes back down when clients go away,
/// and each message is counted by kind and outcome (`arbiter_follow_messages_total`).
#[tokio::test]
async fn follow_streams_are_counted_and_given_back_when_clients_go() {
    let server = Server::start();
    assert_eq!(gauge(&server), 0.0);
    let channel = channels(&server, 1).await.remove(0);
    let mut followers = Vec::new();
    for _ in 0..3 {
        followers.push(open(&channel, &[]).await);
    }
    assert_eq!(gauge(&server), 3.0);
    let played = followers[0].play(1, "e4").await;
    assert_eq!(played.ply_count, 1);
    let resent = followers[0].play(1, "e4").await;
    assert!(resent.resent);
    let illegal = followers[0].play(2, "Ke6").await;
    assert!(illegal.illegal.is_some());
    let text = server.scrape();
    for (labels, count) in [
        ("kind=\"start\",outcome=\"applied\"", 3.0),
        ("kind=\"move\",outcome=\"applied\"", 1.0),
        ("kind=\"move\",outcome=\"resent\"", 1.0),
        ("kind=\"move\",outcome=\"illegal\"", 1.0),
        ("kind=\"incident\",outcome=\"refused\"", 0.0),
    ] {
        assert_eq!(
            sample(&text, &format!("arbiter_follow_messages_total{{{labels}}}")),
            Some(count),
            "{labels}"
        );
    }
    // The clients go away without a word: each stream's task ends and the gauge returns.
    drop(followers);
    drop(channel);
    settle("the follow streams' gauge back to 0", || {
        gauge(&server) == 0.0
    })
    .await;
}

/// Issue 29 with issue 15's bound: the server's memory with as many FollowGame streams open as
/// the default cap allows (`--max-follow-streams`, 128), each following a 300-ply game (given
/// as the game so far, then 10 more plies played one message at a time), stays within 100 MiB.
/// The figures are printed for docs/operations.md ("Following games").
#[tokio::test]
async fn the_default_cap_of_followed_300_ply_games_stays_within_100_mib() {
    const STREAMS: usize = 128;
    let server = Server::start();
    let pid = server.pid();
    let idle = memory(pid);
    let game = long_game(310);
    let (so_far, rest) = game.split_at(300);
    // Clients spread over connections as a relay would be: 32 streams a connection (the HTTP/2
    // limit of calls on one connection).
    let connections = channels(&server, STREAMS / 32).await;
    let mut followers = Vec::with_capacity(STREAMS);
    for i in 0..STREAMS {
        followers.push(open(&connections[i % connections.len()], so_far).await);
    }
    for (i, mv) in rest.iter().enumerate() {
        for follower in &mut followers {
            let answer = follower
                .play(u32::try_from(301 + i).expect("ply"), mv)
                .await;
            assert_eq!(answer.error, None);
        }
    }
    assert_eq!(gauge(&server), STREAMS as f64);
    // One more is refused: the cap is full (on a connection of its own: the others hold 32
    // calls each, HTTP/2's limit, and a 33rd would wait in the client).
    let (tx, rx) = mpsc::channel(1);
    drop(tx);
    let refused = ArbiterServiceClient::new(channels(&server, 1).await.remove(0))
        .follow_game(ReceiverStream::new(rx))
        .await
        .expect_err("beyond the cap");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (rss, peak) = memory(pid);
    eprintln!(
        "follow memory: idle {} KiB (peak {} KiB); {STREAMS} streams of 310 plies open: VmRSS {} KiB, VmHWM {} KiB",
        idle.0 / 1024,
        idle.1 / 1024,
        rss / 1024,
        peak / 1024
    );
    assert!(peak <= 100 * 1024 * 1024, "peak {} MiB", peak >> 20);
    drop(followers);
}

/// The server's resident memory now and at its peak, in bytes (`VmRSS`, `VmHWM`).
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .and_then(|kb| kb.trim().parse::<u64>().ok())
            .expect(name)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}
