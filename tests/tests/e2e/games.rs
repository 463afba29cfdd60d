//! Real games: every game of the CC0 lichess samples in `tests/data/games/` replayed through the
//! server, move by move with ApplyMove (FEN in, FEN out) and as a whole with ApplyMoves and
//! AdjudicateGame, against what `arbiter-rules` computes locally; the SAN the server writes must
//! equal the SAN lichess wrote. The endings are counted and compared with the counts python-chess
//! 1.11.2 gives for the same files (an independent implementation).

use std::{sync::Arc, time::Duration};

use arbiter_e2e::{data_dir, pgn, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMoveRequest, ApplyMovesRequest, ClaimKind, Game as WireGame,
    Position as WirePosition, Termination as WireTermination, adjudicate_game_request,
    apply_move_request, arbiter_service_client::ArbiterServiceClient, position,
};
use arbiter_rules::{Game, Position, Termination};
use tokio::{sync::Semaphore, task::JoinSet};
use tonic::transport::Channel;

/// A fixture file and the facts about it, from python-chess 1.11.2 (`chess.pgn.read_game`, main
/// line replayed, `board.outcome()` at the end; claims with `outcome(claim_draw=True)`).
struct Expected {
    file: &'static str,
    games: usize,
    plies: usize,
    checkmates: usize,
    stalemates: usize,
    insufficient_material: usize,
    /// Games without an automatic ending in which a threefold repetition can be claimed.
    threefold_claims: usize,
}

const FILES: [Expected; 2] = [
    Expected {
        file: "lichess-2025-05-sample.pgn",
        games: 438,
        plies: 28_538,
        checkmates: 103,
        stalemates: 4,
        insufficient_material: 2,
        threefold_claims: 9,
    },
    Expected {
        file: "lichess-2016-05-first-1000.pgn",
        games: 1_000,
        plies: 45_261,
        checkmates: 89,
        stalemates: 0,
        insufficient_material: 0,
        threefold_claims: 1,
    },
];

/// Games replayed at the same time.
const IN_FLIGHT: usize = 16;

/// Longest time the whole replay of one file may take.
const REPLAY_TIMEOUT: Duration = Duration::from_secs(300);

/// What the server said about one game.
#[derive(Debug, Default)]
struct Verdict {
    plies: usize,
    termination: Option<WireTermination>,
    threefold_claim: bool,
}

fn fen(text: String) -> Option<WirePosition> {
    Some(WirePosition {
        kind: Some(position::Kind::Fen(text)),
        ..WirePosition::default()
    })
}

/// Replays one game through the server; `index` and `moves` identify it in failure messages.
async fn replay(
    mut client: ArbiterServiceClient<Channel>,
    label: String,
    moves: Vec<String>,
) -> Verdict {
    // What the rules crate computes locally: the FEN after every ply, and the ending.
    let mut local = Game::new(Position::startpos());
    let mut fens = Vec::with_capacity(moves.len());
    for san in &moves {
        local
            .push(san)
            .unwrap_or_else(|error| panic!("{label}: {san} rejected locally: {error}"));
        fens.push(local.position().to_fen());
    }
    let start_fen = Position::startpos().to_fen();
    let final_fen = fens.last().cloned().unwrap_or_else(|| start_fen.clone());

    // The whole game at once.
    let all = within(
        &label,
        client.apply_moves(ApplyMovesRequest {
            position: None,
            moves: moves.clone(),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .unwrap_or_else(|status| panic!("{label}: ApplyMoves failed: {status:?}"))
    .into_inner();
    assert_eq!(all.fen, final_fen, "{label}: ApplyMoves final FEN");
    let sans: Vec<&str> = all.moves.iter().map(|mv| mv.san.as_str()).collect();
    assert_eq!(
        sans, moves,
        "{label}: the server's SAN differs from lichess's"
    );

    // Move by move, each call carrying only the FEN the previous one returned.
    let mut current = start_fen;
    for (ply, (san, expected)) in moves.iter().zip(&fens).enumerate() {
        let answer = within(
            &label,
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Position(
                    fen(current.clone()).expect("position"),
                )),
                r#move: san.clone(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .unwrap_or_else(|status| {
            panic!(
                "{label}: ApplyMove {san} at ply {} on {current}: {status:?}",
                ply + 1
            )
        })
        .into_inner();
        assert_eq!(
            &answer.fen,
            expected,
            "{label}: ApplyMove {san} at ply {} on {current}",
            ply + 1
        );
        current = answer.fen;
    }
    assert_eq!(current, final_fen, "{label}: final FEN move by move");

    // The verdict, checked against the local one.
    let verdict = within(
        &label,
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(WireGame {
                start: None,
                moves: moves.clone(),
            })),
            claim_draw: false,
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .unwrap_or_else(|status| panic!("{label}: AdjudicateGame failed: {status:?}"))
    .into_inner();
    assert_eq!(verdict.fen, final_fen, "{label}: AdjudicateGame FEN");
    assert_eq!(
        verdict.ply_count as usize,
        moves.len(),
        "{label}: ply count"
    );
    let outcome = verdict.outcome.expect("outcome");
    match local.outcome() {
        Some(ended) => {
            assert_eq!(outcome.ply as usize, ended.ply, "{label}: ending ply");
            assert_eq!(outcome.fide_article, ended.article(), "{label}");
            assert_eq!(outcome.result_text, ended.result.as_pgn(), "{label}");
            let insufficient = ended.termination == Termination::InsufficientMaterial;
            assert_eq!(
                outcome.description.contains("insufficient material"),
                insufficient,
                "{label}: {}",
                outcome.description
            );
        }
        None => {
            assert_eq!(outcome.result_text, "*", "{label}");
            assert_eq!(outcome.ply as usize, moves.len(), "{label}");
        }
    }
    Verdict {
        plies: moves.len(),
        termination: (outcome.termination() != WireTermination::Unspecified)
            .then(|| outcome.termination()),
        threefold_claim: verdict
            .claims
            .iter()
            .any(|claim| claim.kind() == ClaimKind::ThreefoldRepetition),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_games_replay_exactly() {
    let server = Server::start();
    let client = server.client().await;
    let mut total_games = 0;
    for expected in FILES {
        let path = data_dir().join("games").join(expected.file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        let games = pgn::parse(&text);
        assert_eq!(games.len(), expected.games, "{}", expected.file);

        let permits = Arc::new(Semaphore::new(IN_FLIGHT));
        let mut tasks = JoinSet::new();
        for (index, game) in games.into_iter().enumerate() {
            let label = format!(
                "{} game {} ({})",
                expected.file,
                index + 1,
                game.tag("Site").unwrap_or("?")
            );
            if let Some(count) = game.tag("PlyCount") {
                assert_eq!(
                    count.parse::<usize>().ok(),
                    Some(game.moves.len()),
                    "{label}: PlyCount tag vs the tokenizer"
                );
            }
            assert!(game.result.is_some(), "{label}: no result marker");
            let client = client.clone();
            let permits = Arc::clone(&permits);
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await.expect("semaphore");
                replay(client, label, game.moves).await
            });
        }
        let verdicts = tokio::time::timeout(REPLAY_TIMEOUT, tasks.join_all())
            .await
            .unwrap_or_else(|_| panic!("{}: replay took over {REPLAY_TIMEOUT:?}", expected.file));

        let count = |termination: WireTermination| {
            verdicts
                .iter()
                .filter(|verdict| verdict.termination == Some(termination))
                .count()
        };
        let plies: usize = verdicts.iter().map(|verdict| verdict.plies).sum();
        let claims = verdicts
            .iter()
            .filter(|verdict| verdict.termination.is_none() && verdict.threefold_claim)
            .count();
        assert_eq!(
            (
                verdicts.len(),
                plies,
                count(WireTermination::Checkmate),
                count(WireTermination::Stalemate),
                count(WireTermination::DeadPosition),
                claims,
            ),
            (
                expected.games,
                expected.plies,
                expected.checkmates,
                expected.stalemates,
                expected.insufficient_material,
                expected.threefold_claims,
            ),
            "{}: (games, plies, checkmates, stalemates, dead positions, threefold claims)",
            expected.file
        );
        for other in [
            WireTermination::FivefoldRepetition,
            WireTermination::SeventyFiveMoveRule,
        ] {
            assert_eq!(count(other), 0, "{}: {other:?}", expected.file);
        }
        total_games += verdicts.len();
    }
    assert_eq!(total_games, 1_438);
}
