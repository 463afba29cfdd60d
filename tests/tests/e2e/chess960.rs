//! Chess960 (FIDE Laws, Guidelines III) over the wire: start positions by number, by X-FEN and
//! by Shredder-FEN; castling as king-takes-rook UCI and O-O / O-O-O SAN; FEN answers in the
//! castling notation asked for; the structured board's rook files; errors naming their field;
//! the Chess960 games of the shared corpus replayed against `arbiter-rules`; and one call through
//! `buf curl` in proto3 JSON.

use std::{path::PathBuf, process::Command, time::Duration};

use arbiter_e2e::{binary, buf, command, pgn, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMoveRequest, ApplyMovesRequest, Board, CastlingNotation,
    CastlingRights, Game, ListLegalMovesRequest, Position, Result as GameResult,
    ValidatePositionRequest, Variant, adjudicate_game_request, apply_move_request,
    arbiter_service_client::ArbiterServiceClient, position,
};
use arbiter_rules::{CastlingMode, FenOptions, Position as RulesPosition};
use serde_json::json;
use tonic::{Code, Status, transport::Channel};
use tonic_types::StatusExt as _;

/// Chess960 start position 225: BNRBQKNR, king on f1, rooks on c1 and h1.
const NUMBER: u32 = 225;
const START_X_FEN: &str = "bnrbqknr/pppppppp/8/8/8/8/PPPPPPPP/BNRBQKNR w KQkq - 0 1";
const START_SHREDDER: &str = "bnrbqknr/pppppppp/8/8/8/8/PPPPPPPP/BNRBQKNR w HChc - 0 1";
/// After 1. Nf3 c6: White may castle on the king side at once.
const READY_X_FEN: &str = "bnrbqknr/pp1ppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQK1R w KQkq - 0 2";
const READY_SHREDDER: &str = "bnrbqknr/pp1ppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQK1R w HChc - 0 2";

/// A short game from position 225 in which White castles on the king side and Black on the
/// queen side, moves given in SAN and UCI (king takes rook) mixed.
const MOVES: [&str; 10] = [
    "Nf3", "c6", "f1h1", "Bc7", "g3", "e6", "d3", "Qe7", "h3", "O-O-O",
];
/// What the server answers for [`MOVES`]: (uci, san).
const PLAYED: [(&str, &str); 10] = [
    ("g1f3", "Nf3"),
    ("c7c6", "c6"),
    ("f1h1", "O-O"),
    ("d8c7", "Bc7"),
    ("g2g3", "g3"),
    ("e7e6", "e6"),
    ("d2d3", "d3"),
    ("e8e7", "Qe7"),
    ("h2h3", "h3"),
    ("f8c8", "O-O-O"),
];
const FINAL_FEN: &str = "bnkr2nr/ppbpqppp/2p1p3/8/8/3P1NPP/PPP1PP2/BNRBQRK1 w - - 1 6";
/// After the first four plies (both White rights gone, Black's kept).
const AFTER_FOUR_X_FEN: &str = "bnr1qknr/ppbppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQRK1 w kq - 2 3";
const AFTER_FOUR_SHREDDER: &str = "bnr1qknr/ppbppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQRK1 w hc - 2 3";

fn number(n: u32) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Chess960Number(n)),
        ..Position::default()
    })
}

fn chess960_fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        variant: Variant::Chess960.into(),
    })
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn notation(shredder: bool) -> i32 {
    if shredder {
        CastlingNotation::ShredderFen.into()
    } else {
        CastlingNotation::XFen.into()
    }
}

/// The single field violation of an INVALID_ARGUMENT status: (field, description).
fn violation(status: &Status) -> (String, String) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let details = status.get_error_details();
    let bad_request = details.bad_request().expect("BadRequest detail");
    assert_eq!(bad_request.field_violations.len(), 1, "{bad_request:?}");
    let violation = &bad_request.field_violations[0];
    (violation.field.clone(), violation.description.clone())
}

async fn apply_moves(
    client: &mut ArbiterServiceClient<Channel>,
    position: Option<Position>,
    moves: &[&str],
    shredder: bool,
) -> Result<arbiter_proto::v1::ApplyMovesResponse, Status> {
    within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position,
            moves: strings(moves),
            castling_notation: notation(shredder),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn a_chess960_game_by_number_x_fen_and_shredder_fen_through_apply_moves() {
    let server = Server::start();
    let mut client = server.client().await;

    for start in [
        number(NUMBER),
        chess960_fen(START_X_FEN),
        chess960_fen(START_SHREDDER),
    ] {
        let answer = apply_moves(&mut client, start.clone(), &MOVES, false)
            .await
            .expect("ApplyMoves");
        assert_eq!(answer.fen, FINAL_FEN, "{start:?}");
        let played: Vec<(&str, &str)> = answer
            .moves
            .iter()
            .map(|mv| (mv.uci.as_str(), mv.san.as_str()))
            .collect();
        assert_eq!(played, PLAYED, "{start:?}");
        let castles: Vec<(bool, &str, &str)> = answer
            .moves
            .iter()
            .filter(|mv| mv.is_castle)
            .map(|mv| (mv.is_castle, mv.from.as_str(), mv.to.as_str()))
            .collect();
        // `to` is the king's destination, as in standard chess.
        assert_eq!(castles, [(true, "f1", "g1"), (true, "f8", "c8")]);

        for (shredder, expected) in [(false, AFTER_FOUR_X_FEN), (true, AFTER_FOUR_SHREDDER)] {
            let answer = apply_moves(&mut client, start.clone(), &MOVES[..4], shredder)
                .await
                .expect("ApplyMoves");
            assert_eq!(answer.fen, expected);
        }
        let empty = apply_moves(&mut client, start.clone(), &[], true)
            .await
            .expect("ApplyMoves without moves");
        assert_eq!(empty.fen, START_SHREDDER);
    }
}

#[tokio::test]
async fn apply_move_castles_king_takes_rook_and_writes_the_asked_notation() {
    let server = Server::start();
    let mut client = server.client().await;
    for (start, shredder, expected_fen) in [
        (
            READY_X_FEN,
            false,
            "bnrbqknr/pp1ppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQRK1 b kq - 1 2",
        ),
        (
            READY_SHREDDER,
            true,
            "bnrbqknr/pp1ppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQRK1 b hc - 1 2",
        ),
    ] {
        for text in ["O-O", "f1h1", "0-0"] {
            let answer = within(
                "ApplyMove",
                client.apply_move(ApplyMoveRequest {
                    subject: Some(apply_move_request::Subject::Position(
                        chess960_fen(start).expect("position"),
                    )),
                    r#move: text.to_owned(),
                    castling_notation: notation(shredder),
                    ..ApplyMoveRequest::default()
                }),
            )
            .await
            .expect("ApplyMove")
            .into_inner();
            assert_eq!(answer.fen, expected_fen, "{text}");
            let mv = answer.r#move.expect("move");
            assert_eq!(
                (mv.uci.as_str(), mv.san.as_str(), mv.to.as_str()),
                ("f1h1", "O-O", "g1")
            );
            assert!(mv.is_castle);
        }
    }

    // In Chess960 the standard spelling f1g1 is the king's plain step to g1, which gives up
    // both White castling rights; it is no castling.
    let answer = within(
        "ApplyMove",
        client.apply_move(ApplyMoveRequest {
            subject: Some(apply_move_request::Subject::Position(
                chess960_fen(READY_X_FEN).expect("position"),
            )),
            r#move: "f1g1".to_owned(),
            ..ApplyMoveRequest::default()
        }),
    )
    .await
    .expect("ApplyMove")
    .into_inner();
    let mv = answer.r#move.expect("move");
    assert_eq!((mv.san.as_str(), mv.is_castle), ("Kg1", false));
    assert_eq!(
        answer.fen,
        "bnrbqknr/pp1ppppp/2p5/8/8/5N2/PPPPPPPP/BNRBQ1KR b kq - 1 2"
    );

    // A game subject: its variant is its start position's.
    let answer = within(
        "ApplyMove",
        client.apply_move(ApplyMoveRequest {
            subject: Some(apply_move_request::Subject::Game(Game {
                start: number(NUMBER),
                moves: strings(&MOVES[..9]),
            })),
            r#move: "f8c8".to_owned(),
            castling_notation: notation(true),
            ..ApplyMoveRequest::default()
        }),
    )
    .await
    .expect("ApplyMove on a game")
    .into_inner();
    assert_eq!(answer.fen, FINAL_FEN);
    let mv = answer.r#move.expect("move");
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("f8c8", "O-O-O"));
    let outcome = answer.outcome;
    assert!(outcome.is_none(), "{outcome:?}");
}

#[tokio::test]
async fn adjudicate_game_plays_chess960() {
    let server = Server::start();
    let mut client = server.client().await;
    for (moves, shredder, fen) in [
        (&MOVES[..], false, FINAL_FEN),
        (&MOVES[..4], false, AFTER_FOUR_X_FEN),
        (&MOVES[..4], true, AFTER_FOUR_SHREDDER),
    ] {
        for start in [number(NUMBER), chess960_fen(START_SHREDDER)] {
            let answer = within(
                "AdjudicateGame",
                client.adjudicate_game(AdjudicateGameRequest {
                    source: Some(adjudicate_game_request::Source::Game(Game {
                        start,
                        moves: strings(moves),
                    })),
                    castling_notation: notation(shredder),
                    ..AdjudicateGameRequest::default()
                }),
            )
            .await
            .expect("AdjudicateGame")
            .into_inner();
            assert_eq!(answer.fen, fen);
            assert_eq!(answer.ply_count as usize, moves.len());
            let outcome = answer.outcome.expect("outcome");
            assert_eq!(outcome.result, i32::from(GameResult::Ongoing));
        }
    }
}

#[tokio::test]
async fn list_legal_moves_offers_chess960_castling() {
    let server = Server::start();
    let mut client = server.client().await;
    let answer = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: chess960_fen(READY_SHREDDER),
            castling_notation: notation(true),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    assert_eq!(answer.fen, READY_SHREDDER);
    let castles: Vec<(&str, &str)> = answer
        .moves
        .iter()
        .filter(|mv| mv.is_castle)
        .map(|mv| (mv.uci.as_str(), mv.san.as_str()))
        .collect();
    assert_eq!(castles, [("f1h1", "O-O")]);

    // Both castlings, each king-takes-rook, from a position with the rooks on b- and g-files.
    let answer = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: chess960_fen("1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    assert_eq!(
        answer.fen,
        "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1"
    );
    let castles: Vec<(&str, &str, &str)> = answer
        .moves
        .iter()
        .filter(|mv| mv.is_castle)
        .map(|mv| (mv.uci.as_str(), mv.san.as_str(), mv.to.as_str()))
        .collect();
    assert_eq!(castles, [("f1b1", "O-O-O", "c1"), ("f1g1", "O-O", "g1")]);
}

#[tokio::test]
async fn the_board_names_castling_rook_files_both_ways() {
    let server = Server::start();
    let mut client = server.client().await;
    let answer = within(
        "ValidatePosition",
        client.validate_position(ValidatePositionRequest {
            position: number(NUMBER),
            castling_notation: notation(true),
        }),
    )
    .await
    .expect("ValidatePosition")
    .into_inner();
    assert!(answer.valid);
    assert_eq!(answer.fen, START_SHREDDER);
    assert_eq!(answer.variant, i32::from(Variant::Chess960));
    assert_eq!(answer.chess960_number, Some(NUMBER));
    for (position, variant, number) in [
        (chess960_fen("startpos"), Variant::Chess960, Some(518)),
        (chess960_fen(READY_X_FEN), Variant::Chess960, None),
        (
            Some(Position {
                kind: Some(position::Kind::Fen("startpos".to_owned())),
                ..Position::default()
            }),
            Variant::Standard,
            None,
        ),
    ] {
        let answer = within(
            "ValidatePosition",
            client.validate_position(ValidatePositionRequest {
                position,
                ..ValidatePositionRequest::default()
            }),
        )
        .await
        .expect("ValidatePosition")
        .into_inner();
        assert_eq!(
            (answer.variant, answer.chess960_number),
            (i32::from(variant), number)
        );
    }
    let board = answer.board.expect("board");
    assert_eq!(
        board.castling,
        Some(CastlingRights {
            white_king_side: true,
            white_queen_side: true,
            black_king_side: true,
            black_queen_side: true,
            white_king_side_rook_file: "h".to_owned(),
            white_queen_side_rook_file: "c".to_owned(),
            black_king_side_rook_file: "h".to_owned(),
            black_queen_side_rook_file: "c".to_owned(),
        })
    );

    // The board back in: one right by file only, one by flag only (the outermost rook).
    let board = Board {
        castling: Some(CastlingRights {
            white_king_side_rook_file: "h".to_owned(),
            black_queen_side: true,
            ..CastlingRights::default()
        }),
        ..board
    };
    let answer = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: Some(Position {
                kind: Some(position::Kind::Board(board.clone())),
                variant: Variant::Chess960.into(),
            }),
            castling_notation: notation(true),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    assert_eq!(
        answer.fen,
        "bnrbqknr/pppppppp/8/8/8/8/PPPPPPPP/BNRBQKNR w Hc - 0 1"
    );

    // A file on the wrong side of the king.
    let wrong = Board {
        castling: Some(CastlingRights {
            white_queen_side_rook_file: "h".to_owned(),
            ..CastlingRights::default()
        }),
        ..board
    };
    let status = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: Some(Position {
                kind: Some(position::Kind::Board(wrong)),
                variant: Variant::Chess960.into(),
            }),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect_err("a rook file on the wrong side");
    let (field, description) = violation(&status);
    assert_eq!(field, "position.board.castling.white_queen_side_rook_file");
    assert_eq!(
        description,
        "the h-file is on the king side of the white king"
    );
}

#[tokio::test]
async fn chess960_errors_name_their_field() {
    let server = Server::start();
    let mut client = server.client().await;

    let status = apply_moves(&mut client, number(960), &["e4"], false)
        .await
        .expect_err("960 is out of range");
    assert_eq!(
        violation(&status),
        (
            "position.chess960_number".to_owned(),
            "960 is out of range: Chess960 start positions are numbered 0 to 959".to_owned()
        )
    );

    let status = within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(Game {
                start: number(u32::MAX),
                moves: Vec::new(),
            })),
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect_err("out of range");
    assert_eq!(violation(&status).0, "game.start.chess960_number");

    let status = within(
        "ValidatePosition",
        client.validate_position(ValidatePositionRequest {
            position: number(1000),
            ..ValidatePositionRequest::default()
        }),
    )
    .await
    .expect_err("out of range is a bad request, not an invalid position");
    assert_eq!(violation(&status).0, "position.chess960_number");

    let status = apply_moves(
        &mut client,
        Some(Position {
            kind: Some(position::Kind::Chess960Number(NUMBER)),
            variant: Variant::Standard.into(),
        }),
        &[],
        false,
    )
    .await
    .expect_err("a number contradicts VARIANT_STANDARD");
    assert_eq!(violation(&status).0, "position.variant");

    // A Chess960 FEN read as standard chess says how to read it.
    let status = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: Some(Position {
                kind: Some(position::Kind::Fen(START_SHREDDER.to_owned())),
                ..Position::default()
            }),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect_err("Shredder-FEN in standard chess");
    let (field, description) = violation(&status);
    assert_eq!(field, "position.fen");
    assert!(
        description.ends_with(
            "(the position is valid in Chess960: set position.variant to VARIANT_CHESS960)"
        ),
        "{description}"
    );

    // King-takes-rook is the only UCI spelling of castling in Chess960.
    let status = apply_moves(
        &mut client,
        chess960_fen("1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1"),
        &["f1c1"],
        false,
    )
    .await
    .expect_err("f1c1 is no castling in Chess960");
    let (field, description) = violation(&status);
    assert_eq!(field, "moves[0]");
    assert!(description.contains("f1b1"), "{description}");
}

/// Where the shared game corpus is: `ARBITER_CORPUS_DIR`, default `../shared/data/games` from
/// the workspace root. Its Chess960 files are for internal testing only (see its SOURCES.md), so
/// they are read in place, not copied into this repository.
fn corpus_dir() -> PathBuf {
    std::env::var_os("ARBITER_CORPUS_DIR").map_or_else(
        || arbiter_e2e::workspace_root().join("../shared/data/games"),
        PathBuf::from,
    )
}

#[tokio::test]
#[ignore = "needs ARBITER_CORPUS_DIR (the shared game corpus); make test runs it when present"]
async fn shared_corpus_chess960_games_replay_through_apply_moves() {
    let file = corpus_dir().join("chess960-human-rapid-wch-2009-and-cutechess.pgn");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|error| {
        panic!(
            "{}: {error} (set ARBITER_CORPUS_DIR to the shared game corpus)",
            file.display()
        )
    });
    let games = pgn::parse(&text);
    assert_eq!(games.len(), 24, "games in {}", file.display());
    let server = Server::start();
    let mut client = server.client().await;
    let mut castles = 0;
    let mut plies = 0;
    for (index, game) in games.iter().enumerate() {
        let label = format!("game {} ({:?})", index + 1, game.tag("White"));
        let fen = game.tag("FEN").expect("FEN tag");
        let variant = game.tag("Variant").expect("Variant tag");
        assert!(
            ["chess 960", "fischerandom"].contains(&variant),
            "{label}: {variant}"
        );
        // What arbiter-rules computes locally.
        let options = FenOptions {
            mode: CastlingMode::Chess960,
            validation: arbiter_rules::Validation::STRICT,
        };
        let mut local = RulesPosition::from_fen_with(fen, options).expect("local FEN");
        let mut sans = Vec::new();
        for text in &game.moves {
            let mv = local
                .parse_move(text)
                .unwrap_or_else(|error| panic!("{label}: {text}: {error}"));
            sans.push(local.san(&mv));
            local = local.play(&mv);
        }
        let moves: Vec<&str> = game.moves.iter().map(String::as_str).collect();
        for shredder in [false, true] {
            let answer = apply_moves(&mut client, chess960_fen(fen), &moves, shredder)
                .await
                .unwrap_or_else(|status| panic!("{label}: {status:?}"));
            assert_eq!(answer.fen, local.to_fen_with(shredder), "{label}");
            let served: Vec<&str> = answer.moves.iter().map(|mv| mv.san.as_str()).collect();
            assert_eq!(served, sans, "{label}");
            if !shredder {
                castles += answer.moves.iter().filter(|mv| mv.is_castle).count();
                plies += answer.moves.len();
            }
        }
    }
    assert!(castles > 20, "{castles} castlings");
    assert!(plies > 1500, "{plies} plies");
}

#[tokio::test]
async fn adjudicate_game_reads_chess960_pgn() {
    let server = Server::start();
    let mut client = server.client().await;
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{START_SHREDDER}\"]\n\
         [Result \"*\"]\n\n1. Nf3 c6 2. O-O Bc7 *\n"
    );
    for (shredder, fen) in [(false, AFTER_FOUR_X_FEN), (true, AFTER_FOUR_SHREDDER)] {
        let answer = within(
            "AdjudicateGame",
            client.adjudicate_game(AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Pgn(pgn.clone())),
                castling_notation: notation(shredder),
                ..AdjudicateGameRequest::default()
            }),
        )
        .await
        .expect("AdjudicateGame with Chess960 PGN")
        .into_inner();
        assert_eq!(answer.fen, fen);
        assert_eq!(answer.ply_count, 4);
    }
}

/// Runs the real binary with `args`; returns (exit code, standard output).
fn arbiter(args: &[&str]) -> (Option<i32>, String) {
    let output = command::run(
        Command::new(binary::arbiter()).args(args),
        Duration::from_secs(120),
    );
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn perft_reads_chess960_x_fen_and_shredder_fen() {
    // From tests/data/perft/chess960.epd: D3 12189.
    let shredder = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let x_fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9";
    for args in [
        ["perft", "--fen", shredder, "--depth", "3", "--chess960"],
        ["perft", "--fen", x_fen, "--depth", "3", "--chess960"],
    ] {
        assert_eq!(arbiter(&args), (Some(0), "12189\n".to_owned()), "{args:?}");
    }
    // Without the flag, a FEN that only Chess960 can read is read as Chess960.
    assert_eq!(
        arbiter(&["perft", "--fen", shredder, "--depth", "3"]),
        (Some(0), "12189\n".to_owned())
    );
    // --divide writes castling king-takes-rook.
    let (code, out) = arbiter(&[
        "perft",
        "--fen",
        READY_X_FEN,
        "--depth",
        "1",
        "--divide",
        "--chess960",
    ]);
    assert_eq!(code, Some(0));
    let king: Vec<&str> = out.lines().filter(|line| line.starts_with("f1")).collect();
    assert_eq!(king, ["f1g1: 1", "f1h1: 1"]);
    // The number 518 arrangement in Chess960 mode counts as standard chess: 8902 at depth 3.
    assert_eq!(
        arbiter(&["perft", "--depth", "3", "--chess960"]),
        (Some(0), "8902\n".to_owned())
    );
}

#[test]
#[ignore = "needs ARBITER_CORPUS_DIR (the shared game corpus); make test runs it when present"]
fn shared_corpus_chess960_games_adjudicate_through_the_cli() {
    let file = corpus_dir().join("chess960-human-rapid-wch-2009-and-cutechess.pgn");
    assert!(
        file.is_file(),
        "{}: not found (set ARBITER_CORPUS_DIR to the shared game corpus)",
        file.display()
    );
    let path = file.to_string_lossy().into_owned();
    let output = command::run(
        Command::new(binary::arbiter()).args([
            "adjudicate",
            &path,
            "--format",
            "jsonl",
            "--analysis",
            "fast",
        ]),
        Duration::from_secs(120),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 24);
    assert!(
        lines
            .iter()
            .all(|line| line.get("error").is_none() && line["verdict"].is_object()),
        "{stdout}"
    );
    let checkmates = lines
        .iter()
        .filter(|line| line["verdict"]["outcome"]["termination"] == "TERMINATION_CHECKMATE")
        .count();
    assert_eq!(checkmates, 4);
}

#[test]
fn buf_curl_lists_chess960_moves_in_json() {
    let Some(buf) = buf::binary("buf_curl_lists_chess960_moves_in_json") else {
        return;
    };
    let server = Server::start();
    let reply = buf::curl(
        &buf,
        &server.url(),
        "arbiter.v1.ArbiterService/ListLegalMoves",
        &json!({
            "position": {"fen": READY_X_FEN, "variant": "VARIANT_CHESS960"},
            "castlingNotation": "CASTLING_NOTATION_SHREDDER_FEN",
            "sanLanguage": "SAN_LANGUAGE_GERMAN"
        })
        .to_string(),
    );
    assert_eq!(reply.exit_code, Some(0), "{}", reply.stderr);
    assert_eq!(reply.body["fen"], READY_SHREDDER);
    let moves = reply.body["moves"].as_array().expect("moves");
    let castle = moves
        .iter()
        .find(|mv| mv["isCastle"] == json!(true))
        .expect("a castling move");
    assert_eq!(
        castle,
        &json!({
            "uci": "f1h1",
            "san": "O-O",
            "from": "f1",
            "to": "g1",
            "piece": {"color": "COLOR_WHITE", "role": "ROLE_KING"},
            "isCastle": true
        })
    );
    let knight = moves
        .iter()
        .find(|mv| mv["uci"] == "f3g5")
        .expect("the knight move f3g5");
    assert_eq!(knight["san"], "Sg5");

    let reply = buf::curl(
        &buf,
        &server.url(),
        "arbiter.v1.ArbiterService/ValidatePosition",
        r#"{"position":{"chess960Number":960}}"#,
    );
    assert_eq!(reply.exit_code, Some(24), "{}", reply.stderr);
    assert_eq!(reply.error["code"], "invalid_argument", "{}", reply.stderr);
}

/// Issue 28 item 6: a run of empty squares written as two digits in a row (`17`, `12`) was read
/// and written back as one digit; each run is one digit (PGN standard 16.1.3.1). Every door a
/// FEN comes in by refuses it with the same sentence naming the rank: the wire's
/// `position.fen` (standard, X-FEN and Shredder-FEN), a PGN `FEN` tag, `arbiter perft --fen`.
#[tokio::test]
async fn r_a_fen_rank_with_two_digits_in_a_row_is_refused_at_every_door_issue_28() {
    let why = |rank: u32, digits: &str| {
        format!(
            "rank {rank} of the piece placement writes a run of empty squares as the digits '{digits}' in a row: each run of empty squares is one digit from 1 to 8 (PGN standard 16.1.3.1)"
        )
    };
    let standard = "rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let x_fen = READY_X_FEN.replace("2p5", "11p5");
    let shredder = READY_SHREDDER.replace("2p5", "11p5");
    let server = Server::start();
    let mut client = server.client().await;
    let standard_position = Some(Position {
        kind: Some(position::Kind::Fen(standard.to_owned())),
        ..Position::default()
    });
    for (position, rank, digits) in [
        (standard_position, 6, "17"),
        (chess960_fen(&x_fen), 6, "11"),
        (chess960_fen(&shredder), 6, "11"),
    ] {
        let error = apply_moves(&mut client, position, &[], false)
            .await
            .expect_err("a bad FEN");
        assert_eq!(
            violation(&error),
            ("position.fen".to_owned(), why(rank, digits))
        );
    }
    let pgn = format!("[FEN \"{standard}\"]\n[SetUp \"1\"]\n\n1. e4 *\n");
    let error = within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Pgn(pgn)),
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect_err("a bad FEN tag");
    assert_eq!(
        violation(&error),
        (
            "pgn".to_owned(),
            format!("line 1:1: bad FEN tag: {}", why(6, "17"))
        )
    );
    for args in [
        vec!["perft", "--fen", standard, "--depth", "1"],
        vec!["perft", "--fen", &shredder, "--depth", "1", "--chess960"],
    ] {
        let output = command::run(
            Command::new(binary::arbiter()).args(&args),
            Duration::from_secs(120),
        );
        let digits = if args.len() == 5 {
            (6, "17")
        } else {
            (6, "11")
        };
        assert_eq!(
            (
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).into_owned()
            ),
            (
                Some(2),
                format!("arbiter: invalid --fen: {}\n", why(digits.0, digits.1))
            ),
            "{args:?}"
        );
    }
}
