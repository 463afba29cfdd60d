//! Every RPC of `arbiter.v1.ArbiterService` through a tonic client against the real binary,
//! asserting exact values, and the `google.rpc.BadRequest` / `ErrorInfo` details of errors.

use arbiter_e2e::{server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMovesRequest, Board,
    CastlingRights, ClaimKind, Color, Game, ListLegalMovesRequest, Move, Piece, Position,
    Result as GameResult, Role, Termination, ValidatePositionRequest, adjudicate_game_request,
    apply_move_request, arbiter_service_client::ArbiterServiceClient, position,
};
use tonic::{Code, Status, transport::Channel};
use tonic_types::StatusExt as _;

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// After 1. f3 e5 2. g4 Qh4#.
const FOOLS_MATE: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
/// A white knight on d2 pinned by the bishop on b4 against the king on e1.
const PINNED_KNIGHT: &str = "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1";
/// White may castle both ways; the black rook on f2 attacks f1.
const CASTLING_THROUGH_F1: &str = "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1";

fn fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        ..Position::default()
    })
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn game(start: Option<&str>, moves: &[&str]) -> Game {
    Game {
        start: start.and_then(fen),
        moves: strings(moves),
    }
}

fn piece(color: Color, role: Role) -> Option<Piece> {
    Some(Piece {
        color: color.into(),
        role: role.into(),
    })
}

/// The single `google.rpc.BadRequest` field violation of an INVALID_ARGUMENT status, checked
/// against its `google.rpc.ErrorInfo` (domain `arbiter.v1`, same reason, `field` metadata).
/// Returns (field, description, reason).
fn violation(status: &Status) -> (String, String, String) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let details = status.get_error_details();
    let bad_request = details
        .bad_request()
        .unwrap_or_else(|| panic!("no BadRequest detail in {status:?}"));
    assert_eq!(bad_request.field_violations.len(), 1, "{bad_request:?}");
    let violation = &bad_request.field_violations[0];
    let info = details
        .error_info()
        .unwrap_or_else(|| panic!("no ErrorInfo detail in {status:?}"));
    assert_eq!(info.domain, "arbiter.v1");
    assert_eq!(info.reason, violation.reason);
    assert_eq!(
        info.metadata.get("field"),
        Some(&violation.field),
        "{info:?}"
    );
    assert_eq!(
        status.message(),
        format!("{}: {}", violation.field, violation.description)
    );
    (
        violation.field.clone(),
        violation.description.clone(),
        violation.reason.clone(),
    )
}

async fn adjudicate(
    client: &mut ArbiterServiceClient<Channel>,
    moves: &[&str],
    claim_draw: bool,
) -> AdjudicateGameResponse {
    within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(game(None, moves))),
            claim_draw,
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect("AdjudicateGame")
    .into_inner()
}

#[tokio::test]
async fn list_legal_moves_in_the_start_position() {
    let server = Server::start();
    let mut client = server.client().await;
    let response = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("startpos"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();

    let uci: Vec<&str> = response.moves.iter().map(|mv| mv.uci.as_str()).collect();
    assert_eq!(
        uci,
        [
            "a2a3", "a2a4", "b1a3", "b1c3", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3", "d2d4", "e2e3",
            "e2e4", "f2f3", "f2f4", "g1f3", "g1h3", "g2g3", "g2g4", "h2h3", "h2h4"
        ]
    );
    let san: Vec<&str> = response.moves.iter().map(|mv| mv.san.as_str()).collect();
    assert_eq!(
        san,
        [
            "a3", "a4", "Na3", "Nc3", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4", "f3", "f4",
            "Nf3", "Nh3", "g3", "g4", "h3", "h4"
        ]
    );
    let nf3 = &response.moves[14];
    assert_eq!(
        nf3,
        &Move {
            uci: "g1f3".to_owned(),
            san: "Nf3".to_owned(),
            from: "g1".to_owned(),
            to: "f3".to_owned(),
            piece: piece(Color::White, Role::Knight),
            captured: Role::Unspecified.into(),
            promotion: Role::Unspecified.into(),
            is_check: false,
            is_checkmate: false,
            is_castle: false,
            is_en_passant: false,
        }
    );
    assert_eq!(response.fen, STARTPOS);
    let status = response.status.expect("status");
    assert_eq!(status.side_to_move(), Color::White);
    assert!(!status.is_check && !status.is_checkmate && !status.is_stalemate);
    assert!(!status.is_insufficient_material);
    assert_eq!(status.legal_move_count, 20);
    assert_eq!((status.halfmove_clock, status.fullmove_number), (0, 1));
}

#[tokio::test]
async fn list_legal_moves_in_mate_stalemate_and_special_moves() {
    let server = Server::start();
    let mut client = server.client().await;

    // Checkmate (FIDE 5.1.1): no moves.
    let mated = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen(FOOLS_MATE),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    assert!(mated.moves.is_empty());
    assert_eq!(mated.fen, FOOLS_MATE);
    let status = mated.status.expect("status");
    assert!(status.is_check && status.is_checkmate && !status.is_stalemate);
    assert_eq!(status.legal_move_count, 0);
    assert_eq!((status.halfmove_clock, status.fullmove_number), (1, 3));

    // Stalemate (FIDE 5.2.1).
    let stalemate = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    assert!(stalemate.moves.is_empty());
    let status = stalemate.status.expect("status");
    assert!(status.is_stalemate && !status.is_check && !status.is_checkmate);
    assert_eq!(status.side_to_move(), Color::Black);

    // En passant, promotion (all four pieces, with check where the piece checks), castling.
    let special = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: fen("4k3/1P6/8/3pP3/8/8/8/R3K3 w Q d6 0 2"),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("ListLegalMoves")
    .into_inner();
    let find = |uci: &str| {
        special
            .moves
            .iter()
            .find(|mv| mv.uci == uci)
            .unwrap_or_else(|| panic!("{uci} is legal"))
            .clone()
    };
    let ep = find("e5d6");
    assert_eq!(ep.san, "exd6");
    assert!(ep.is_en_passant && !ep.is_castle);
    assert_eq!(ep.captured(), Role::Pawn);
    let queen = find("b7b8q");
    assert_eq!(queen.san, "b8=Q+");
    assert_eq!(queen.promotion(), Role::Queen);
    assert!(queen.is_check && !queen.is_checkmate);
    assert_eq!(find("b7b8r").san, "b8=R+");
    assert_eq!(find("b7b8b").san, "b8=B");
    assert_eq!(find("b7b8n").san, "b8=N");
    let castle = find("e1c1");
    assert_eq!(castle.san, "O-O-O");
    assert!(castle.is_castle);
    assert_eq!(castle.piece, piece(Color::White, Role::King));
    assert_eq!(special.fen, "4k3/1P6/8/3pP3/8/8/8/R3K3 w Q d6 0 2");
    // Sorted by UCI string, as the contract says.
    let uci: Vec<&str> = special.moves.iter().map(|mv| mv.uci.as_str()).collect();
    let mut sorted = uci.clone();
    sorted.sort_unstable();
    assert_eq!(uci, sorted);
    assert_eq!(special.status.expect("status").legal_move_count, 22);
}

#[tokio::test]
async fn apply_move_to_positions() {
    let server = Server::start();
    let mut client = server.client().await;
    let apply = |position: &str, mv: &str| ApplyMoveRequest {
        subject: Some(apply_move_request::Subject::Position(Position {
            kind: Some(position::Kind::Fen(position.to_owned())),
            ..Position::default()
        })),
        r#move: mv.to_owned(),
        ..ApplyMoveRequest::default()
    };

    let e4 = within("ApplyMove", client.apply_move(apply("startpos", "e4")))
        .await
        .expect("ApplyMove e4")
        .into_inner();
    // No en passant square: no black pawn can take on e3 (FIDE 9.2.3, normalized FEN).
    assert_eq!(
        e4.fen,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let mv = e4.r#move.expect("move");
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("e2e4", "e4"));
    assert_eq!((mv.from.as_str(), mv.to.as_str()), ("e2", "e4"));
    assert!(!mv.is_check && !mv.is_checkmate);
    let status = e4.status.expect("status");
    assert_eq!(status.side_to_move(), Color::Black);
    assert_eq!(status.legal_move_count, 20);
    assert_eq!(e4.outcome, None);
    assert!(e4.claims.is_empty());

    // UCI in, SAN out.
    let nf3 = within("ApplyMove", client.apply_move(apply(STARTPOS, "g1f3")))
        .await
        .expect("ApplyMove g1f3")
        .into_inner();
    assert_eq!(nf3.r#move.expect("move").san, "Nf3");
    assert_eq!(
        nf3.fen,
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
    );

    // Checkmate flags.
    let mate = within(
        "ApplyMove",
        client.apply_move(apply(
            "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
            "Qh4",
        )),
    )
    .await
    .expect("ApplyMove Qh4")
    .into_inner();
    assert_eq!(mate.fen, FOOLS_MATE);
    let mv = mate.r#move.expect("move");
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("d8h4", "Qh4#"));
    assert!(mv.is_check && mv.is_checkmate);
    assert!(mate.status.expect("status").is_checkmate);

    // A check that is not mate.
    let check = within(
        "ApplyMove",
        client.apply_move(apply(
            "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3",
            "Bb5+",
        )),
    )
    .await
    .expect("ApplyMove Bb5+")
    .into_inner();
    let mv = check.r#move.expect("move");
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("f1b5", "Bb5+"));
    assert!(mv.is_check && !mv.is_checkmate);
    assert!(check.status.expect("status").is_check);

    // Castling, given as O-O.
    let castle = within(
        "ApplyMove",
        client.apply_move(apply("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O")),
    )
    .await
    .expect("ApplyMove O-O")
    .into_inner();
    assert_eq!(castle.fen, "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let mv = castle.r#move.expect("move");
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("e1g1", "O-O"));
    assert!(mv.is_castle);

    // An illegal move names the field "move".
    let error = within("ApplyMove", client.apply_move(apply(PINNED_KNIGHT, "Nf3")))
        .await
        .expect_err("the knight is pinned");
    assert_eq!(
        violation(&error),
        (
            "move".to_owned(),
            "Nf3: the knight on d2 is pinned against the king on e1 by the bishop on b4 \
             (FIDE Laws 3.9.2)"
                .to_owned(),
            "ILLEGAL_MOVE".to_owned()
        )
    );
}

#[tokio::test]
async fn apply_move_to_games() {
    let server = Server::start();
    let mut client = server.client().await;
    let apply = |moves: &[&str], mv: &str| ApplyMoveRequest {
        subject: Some(apply_move_request::Subject::Game(game(None, moves))),
        r#move: mv.to_owned(),
        ..ApplyMoveRequest::default()
    };

    // The mating move ends the game: the outcome comes with the answer.
    let mate = within(
        "ApplyMove",
        client.apply_move(apply(&["f3", "e5", "g4"], "Qh4#")),
    )
    .await
    .expect("ApplyMove Qh4#")
    .into_inner();
    assert_eq!(mate.fen, FOOLS_MATE);
    let outcome = mate.outcome.expect("the game ended");
    assert_eq!(outcome.result(), GameResult::BlackWins);
    assert_eq!(outcome.result_text, "0-1");
    assert_eq!(outcome.termination(), Termination::Checkmate);
    assert_eq!(outcome.fide_article, "5.1.1");
    assert_eq!(outcome.ply, 4);
    assert!(mate.claims.is_empty());

    // A move after the end is refused, naming the end (issue 27 item 9).
    let error = within(
        "ApplyMove",
        client.apply_move(apply(&["f3", "e5", "g4", "Qh4#"], "a3")),
    )
    .await
    .expect_err("the game is over");
    let (field, description, reason) = violation(&error);
    assert_eq!(field, "move");
    assert_eq!(
        description,
        "a3: the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
    );
    assert_eq!(reason, "ILLEGAL_MOVE");

    // The move that makes a threefold repetition claimable is named (FIDE 9.2.1.1).
    let shuffle = within(
        "ApplyMove",
        client.apply_move(apply(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6"], "Ng1")),
    )
    .await
    .expect("ApplyMove Ng1")
    .into_inner();
    assert_eq!(shuffle.outcome, None);
    assert_eq!(shuffle.claims.len(), 1, "{:?}", shuffle.claims);
    let claim = &shuffle.claims[0];
    assert_eq!(claim.kind(), ClaimKind::ThreefoldRepetition);
    assert_eq!(claim.fide_article, "9.2");
    assert!(!claim.claimable_now);
    assert_eq!(
        claim.r#move.as_ref().expect("the move to announce").san,
        "Ng8"
    );

    // Bad moves in the game name their index under "game.moves".
    let error = within(
        "ApplyMove",
        client.apply_move(apply(&["e4", "e5", "Ke3"], "a3")),
    )
    .await
    .expect_err("Ke3 is illegal");
    assert_eq!(
        violation(&error),
        (
            "game.moves[2]".to_owned(),
            "ply 3 (Ke3): no white king can move to e3".to_owned(),
            "ILLEGAL_MOVE".to_owned()
        )
    );
}

#[tokio::test]
async fn apply_moves_plays_a_sequence() {
    let server = Server::start();
    let mut client = server.client().await;
    let response = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position: None,
            moves: strings(&[
                "e4", "e7e5", "Nf3", "b8c6", "Bb5", "a6", "Bxc6", "dxc6", "O-O",
            ]),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect("ApplyMoves")
    .into_inner();
    assert_eq!(
        response.fen,
        "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 1 5"
    );
    let san: Vec<&str> = response.moves.iter().map(|mv| mv.san.as_str()).collect();
    assert_eq!(
        san,
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O"]
    );
    let uci: Vec<&str> = response.moves.iter().map(|mv| mv.uci.as_str()).collect();
    assert_eq!(
        uci,
        [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1"
        ]
    );
    assert_eq!(response.moves[6].captured(), Role::Knight);
    assert_eq!(response.moves[7].captured(), Role::Bishop);
    assert!(response.moves[8].is_castle);
    let status = response.status.expect("status");
    assert_eq!(status.side_to_move(), Color::Black);
    assert_eq!((status.halfmove_clock, status.fullmove_number), (1, 5));

    // From a given position, and no moves at all.
    let none = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position: fen(PINNED_KNIGHT),
            moves: Vec::new(),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect("ApplyMoves")
    .into_inner();
    assert_eq!(none.fen, PINNED_KNIGHT);
    assert!(none.moves.is_empty());
}

/// The ErrorInfo metadata `key` of an error.
fn info(status: &Status, key: &str) -> String {
    status
        .get_error_details()
        .error_info()
        .and_then(|info| info.metadata.get(key).cloned())
        .unwrap_or_default()
}

/// Issue 27 item 9: ApplyMoves answers `outcome` and `claims` for the position after its last
/// move, as ApplyMove on a game does: the ending with its article and ply, or the draws the
/// side to move may claim.
#[tokio::test]
async fn r_apply_moves_answers_the_outcome_and_claims_after_the_last_move() {
    let server = Server::start();
    let client = server.client().await;
    let apply = |start: Option<&str>, moves: &[&str]| {
        let request = ApplyMovesRequest {
            position: start.and_then(fen),
            moves: strings(moves),
            ..ApplyMovesRequest::default()
        };
        let mut client = client.clone();
        async move {
            within("ApplyMoves", client.apply_moves(request))
                .await
                .expect("answered")
                .into_inner()
        }
    };
    let mate = apply(None, &["f3", "e5", "g4", "Qh4#"]).await;
    let outcome = mate.outcome.expect("the game ended");
    assert_eq!(outcome.result(), GameResult::BlackWins);
    assert_eq!(
        (
            outcome.result_text.as_str(),
            outcome.termination(),
            outcome.fide_article.as_str(),
            outcome.ply,
            outcome.description.as_str()
        ),
        ("0-1", Termination::Checkmate, "5.1.1", 4, "checkmate")
    );
    assert!(mate.claims.is_empty());

    // Each automatic ending, reached by the last move: (start, moves, termination, article,
    // ply, description).
    type Ending<'a> = (
        Option<&'a str>,
        &'a [&'a str],
        Termination,
        &'a str,
        u32,
        &'a str,
    );
    let endings: [Ending; 5] = [
        (
            Some("7k/8/6K1/5Q2/8/8/8/8 w - - 0 1"),
            &["Qf7"],
            Termination::Stalemate,
            "5.2.1",
            1,
            "stalemate",
        ),
        (
            Some("8/8/8/4k3/8/8/3q4/4K3 w - - 0 1"),
            &["Kxd2"],
            Termination::DeadPosition,
            "5.2.2",
            1,
            "dead position (insufficient material)",
        ),
        // After Kf7 Black's only move Kxh7 leaves two kings: dead at once (the server's
        // default analysis finds it).
        (
            Some("5K1k/7P/8/8/8/8/8/8 w - - 0 1"),
            &["Kf7"],
            Termination::DeadPosition,
            "5.2.2",
            1,
            "dead position",
        ),
        (
            None,
            &[
                "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8",
                "Nf3", "Nf6", "Ng1", "Ng8",
            ],
            Termination::FivefoldRepetition,
            "9.6.1",
            16,
            "fivefold repetition",
        ),
        (
            Some("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100"),
            &["Rb1"],
            Termination::SeventyFiveMoveRule,
            "9.6.2",
            1,
            "75-move rule",
        ),
    ];
    for (start, moves, termination, article, ply, description) in endings {
        let answer = apply(start, moves).await;
        let outcome = answer.outcome.expect("the game ended");
        assert_eq!(
            (
                outcome.result(),
                outcome.termination(),
                outcome.fide_article.as_str(),
                outcome.ply,
                outcome.description.as_str()
            ),
            (GameResult::Draw, termination, article, ply, description),
            "{start:?} {moves:?}"
        );
        assert!(answer.claims.is_empty(), "{start:?} {moves:?}");
    }

    // While the game goes on: no outcome, and the claims. After seven plies of the knights'
    // dance, Ng8 would repeat the start position a third time (FIDE 9.2.1.1); after eight it
    // has (9.2.1.2).
    let dance = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let announced = apply(None, &dance[..7]).await;
    assert_eq!(announced.outcome, None);
    let claims: Vec<(ClaimKind, &str, bool, Option<&str>)> = announced
        .claims
        .iter()
        .map(|claim| {
            (
                claim.kind(),
                claim.fide_article.as_str(),
                claim.claimable_now,
                claim.r#move.as_ref().map(|mv| mv.san.as_str()),
            )
        })
        .collect();
    assert_eq!(
        claims,
        [(ClaimKind::ThreefoldRepetition, "9.2", false, Some("Ng8"))]
    );
    let now = apply(None, &dance).await;
    assert_eq!(now.outcome, None);
    assert!(
        now.claims
            .iter()
            .any(|claim| claim.kind() == ClaimKind::ThreefoldRepetition && claim.claimable_now),
        "{:?}",
        now.claims
    );
    // No moves: the start position's own state.
    let none = apply(Some("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1"), &[]).await;
    assert_eq!(none.outcome.expect("dead at the start").ply, 0);
}

/// Issue 27 item 9: a move after the game's end was refused by ApplyMoves for why it failed in
/// the final position ("does not parry the check"), or played (after fivefold repetition or the
/// 75-move rule). Whatever it is, it is now refused naming the ending: reason ILLEGAL_MOVE,
/// cause GAME_OVER, the ending's article, its ply and termination, on ApplyMoves, on ApplyMove
/// with a game, and on ApplyMove with a checkmate or stalemate position.
#[tokio::test]
async fn r_a_move_after_the_end_of_the_game_is_refused_naming_the_end() {
    let server = Server::start();
    let mut client = server.client().await;
    let dance16: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(4);
    // (start, moves, field, description, article, end ply, termination)
    type Case<'a> = (
        Option<&'a str>,
        &'a [&'a str],
        &'a str,
        &'a str,
        &'a str,
        &'a str,
        &'a str,
    );
    let cases: [Case; 7] = [
        (
            None,
            &["f3", "e5", "g4", "Qh4#", "a3"],
            "moves[4]",
            "ply 5 (a3): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)",
            "5.1.1",
            "4",
            "TERMINATION_CHECKMATE",
        ),
        (
            Some("7k/8/6K1/5Q2/8/8/8/8 w - - 0 1"),
            &["Qf7", "Kh7"],
            "moves[1]",
            "ply 2 (Kh7): the game ended at ply 1 (stalemate, FIDE Laws 5.2.1)",
            "5.2.1",
            "1",
            "TERMINATION_STALEMATE",
        ),
        (
            Some("8/8/8/4k3/8/8/3q4/4K3 w - - 0 1"),
            &["Kxd2", "Ke6"],
            "moves[1]",
            "ply 2 (Ke6): the game ended at ply 1 (dead position (insufficient material), FIDE Laws 5.2.2)",
            "5.2.2",
            "1",
            "TERMINATION_DEAD_POSITION",
        ),
        (
            Some("5K1k/7P/8/8/8/8/8/8 w - - 0 1"),
            &["Kf7", "Kxh7"],
            "moves[1]",
            "ply 2 (Kxh7): the game ended at ply 1 (dead position, FIDE Laws 5.2.2)",
            "5.2.2",
            "1",
            "TERMINATION_DEAD_POSITION",
        ),
        (
            None,
            &[dance16.as_slice(), &["e4"]].concat(),
            "moves[16]",
            "ply 17 (e4): the game ended at ply 16 (fivefold repetition, FIDE Laws 9.6.1)",
            "9.6.1",
            "16",
            "TERMINATION_FIVEFOLD_REPETITION",
        ),
        (
            Some("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100"),
            &["Rb1", "Kf8"],
            "moves[1]",
            "ply 2 (Kf8): the game ended at ply 1 (75-move rule, FIDE Laws 9.6.2)",
            "9.6.2",
            "1",
            "TERMINATION_SEVENTY_FIVE_MOVE_RULE",
        ),
        (
            Some("4k3/8/8/8/8/8/8/R3K3 w Q - 9999 99999"),
            &["Ra2"],
            "moves[0]",
            "ply 1 (Ra2): the game is over in its start position (75-move rule, FIDE Laws 9.6.2)",
            "9.6.2",
            "0",
            "TERMINATION_SEVENTY_FIVE_MOVE_RULE",
        ),
    ];
    for (start, moves, field, description, article, end_ply, termination) in cases {
        let error = within(
            "ApplyMoves",
            client.apply_moves(ApplyMovesRequest {
                position: start.and_then(fen),
                moves: strings(moves),
                ..ApplyMovesRequest::default()
            }),
        )
        .await
        .expect_err(description);
        assert_eq!(
            violation(&error),
            (
                field.to_owned(),
                description.to_owned(),
                "ILLEGAL_MOVE".to_owned()
            )
        );
        assert_eq!(
            ["cause", "article", "end_ply", "termination", "move_error"]
                .map(|key| info(&error, key)),
            ["GAME_OVER", article, end_ply, termination, "game_over"].map(str::to_owned),
            "{description}"
        );
        // ApplyMove on the same game, less its last move, refuses that move alike.
        let (last, before) = moves.split_last().expect("a move");
        let error = within(
            "ApplyMove",
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Game(Game {
                    start: start.and_then(fen),
                    moves: strings(before),
                })),
                r#move: (*last).to_owned(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .expect_err(description);
        let (field, said, _) = violation(&error);
        assert_eq!(field, "move");
        assert_eq!(
            said,
            description.replacen(&format!("ply {} ({last})", moves.len()), last, 1)
        );
        assert_eq!(info(&error, "cause"), "GAME_OVER");
    }

    // A position given on its own: checkmate and stalemate end the game there.
    for (position, mv, description) in [
        (
            FOOLS_MATE,
            "Ke2",
            "Ke2: the game is over in its start position (checkmate, FIDE Laws 5.1.1)",
        ),
        (
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "Kh7",
            "Kh7: the game is over in its start position (stalemate, FIDE Laws 5.2.1)",
        ),
    ] {
        let error = within(
            "ApplyMove",
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Position(
                    fen(position).expect("a position"),
                )),
                r#move: mv.to_owned(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .expect_err(description);
        assert_eq!(
            violation(&error),
            (
                "move".to_owned(),
                description.to_owned(),
                "ILLEGAL_MOVE".to_owned()
            )
        );
        assert_eq!(
            (info(&error, "cause"), info(&error, "end_ply")),
            ("GAME_OVER".to_owned(), "0".to_owned())
        );
    }
}

/// Issue 26 item 5: FEN counters beyond the clamp were written clamped without a word. The
/// contract now says so (arbiter.proto, "FEN counters"): as moves are played, the halfmove
/// clock stays at 10000 and the fullmove number at 100000 once reached, in the FEN and the
/// status of the answer, and the answer reads back as a request.
///
/// The moves go one by one through ApplyMove on a position, judged on its own: ApplyMoves plays
/// a game, which a halfmove clock of 150 or more has ended (FIDE Laws 9.6.2; issue 27 item 9).
#[tokio::test]
async fn r_fen_counters_stay_at_their_bounds_as_the_contract_says() {
    let server = Server::start();
    let mut client = server.client().await;
    let mut current = "4k3/8/8/8/8/8/8/R3K3 w Q - 9999 99999".to_owned();
    let mut answer = None;
    for mv in ["Ra2", "Kd7", "Ra3", "Kd6"] {
        let played = within(
            "ApplyMove",
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Position(
                    fen(&current).expect("a position"),
                )),
                r#move: mv.to_owned(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .expect("OK")
        .into_inner();
        current.clone_from(&played.fen);
        answer = Some(played);
    }
    let answer = answer.expect("four answers");
    let end = "8/8/3k4/8/8/R7/8/4K3 w - - 10000 100000";
    assert_eq!(answer.fen, end);
    let status = answer.status.expect("a status");
    assert_eq!(
        (status.halfmove_clock, status.fullmove_number),
        (10_000, 100_000)
    );
    let validated = within(
        "ValidatePosition",
        client.validate_position(ValidatePositionRequest {
            position: fen(end),
            ..ValidatePositionRequest::default()
        }),
    )
    .await
    .expect("OK")
    .into_inner();
    assert!(validated.valid, "{validated:?}");
    assert_eq!(validated.fen, end);
    let board = validated.board.expect("a board");
    assert_eq!(
        (board.halfmove_clock, board.fullmove_number),
        (10_000, 100_000)
    );
}

#[tokio::test]
async fn apply_moves_pinpoints_the_first_illegal_ply() {
    let server = Server::start();
    let mut client = server.client().await;
    // Issue 12 item 2: beside the sentence, ErrorInfo carries a stable `cause` and the FIDE
    // `article`, so that clients can word the reason in their own language.
    /// Start, moves, field, description, cause, article.
    type Case<'a> = (
        &'a str,
        &'a [&'a str],
        &'a str,
        &'a str,
        &'a str,
        Option<&'a str>,
    );
    let cases: [Case; 6] = [
        (
            PINNED_KNIGHT,
            &["Kd1", "Kd8", "Ke1", "Ke8", "Nf3"],
            "moves[4]",
            "ply 5 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on b4 \
             (FIDE Laws 3.9.2)",
            "PINNED",
            Some("3.9.2"),
        ),
        (
            PINNED_KNIGHT,
            &["Nf3"],
            "moves[0]",
            "ply 1 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on b4 \
             (FIDE Laws 3.9.2)",
            "PINNED",
            Some("3.9.2"),
        ),
        (
            "startpos",
            &["e4", "e5", "e3e4"],
            "moves[2]",
            "ply 3 (e3e4): no piece on e3",
            "NO_PIECE",
            None,
        ),
        (
            CASTLING_THROUGH_F1,
            &["O-O"],
            "moves[0]",
            "ply 1 (O-O): castling through the attacked square f1, attacked by the rook on f2 \
             (FIDE Laws 3.8.2.2)",
            "CASTLING_THROUGH_ATTACK",
            Some("3.8.2.2"),
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            &["Kd1", "Ke7", "Ke1", "Ke8", "O-O"],
            "moves[4]",
            "ply 5 (O-O): White has no castling right on the h-side (O-O): the king or that rook \
             has moved (FIDE Laws 3.8.2.1)",
            "NO_CASTLING_RIGHT",
            Some("3.8.2.1"),
        ),
        (
            "startpos",
            &["e4", "e5", "Nf3", "Nf3"],
            "moves[3]",
            "ply 4 (Nf3): no black knight can move to f3",
            "NO_PIECE_REACHES",
            None,
        ),
    ];
    for (start, moves, field, description, cause, article) in cases {
        let error = within(
            "ApplyMoves",
            client.apply_moves(ApplyMovesRequest {
                position: fen(start),
                moves: strings(moves),
                ..ApplyMovesRequest::default()
            }),
        )
        .await
        .expect_err(description);
        assert_eq!(
            violation(&error),
            (
                field.to_owned(),
                description.to_owned(),
                "ILLEGAL_MOVE".to_owned()
            ),
            "{start} {moves:?}"
        );
        let details = error.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        let index = field
            .trim_start_matches("moves[")
            .trim_end_matches(']')
            .to_owned();
        let ply = (index.parse::<usize>().expect("index") + 1).to_string();
        assert_eq!(info.metadata.get("index"), Some(&index));
        assert_eq!(info.metadata.get("ply"), Some(&ply));
        assert_eq!(
            info.metadata.get("move").map(String::as_str),
            moves.last().copied()
        );
        assert_eq!(info.metadata.get("cause").map(String::as_str), Some(cause));
        assert_eq!(info.metadata.get("article").map(String::as_str), article);
    }

    // An empty move is a missing field.
    let error = within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            position: None,
            moves: strings(&["e4", " "]),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .expect_err("empty move");
    let (field, _, reason) = violation(&error);
    assert_eq!(
        (field.as_str(), reason.as_str()),
        ("moves[1]", "MISSING_FIELD")
    );
}

#[tokio::test]
async fn adjudicate_game_endings_and_claims() {
    let server = Server::start();
    let mut client = server.client().await;

    // Fool's mate: checkmate (FIDE 5.1.1) at ply 4.
    let mate = adjudicate(&mut client, &["f3", "e5", "g4", "Qh4#"], false).await;
    let outcome = mate.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::BlackWins);
    assert_eq!(outcome.result_text, "0-1");
    assert_eq!(outcome.termination(), Termination::Checkmate);
    assert_eq!(outcome.fide_article, "5.1.1");
    assert_eq!(outcome.ply, 4);
    assert_eq!(outcome.description, "checkmate");
    assert_eq!(mate.fen, FOOLS_MATE);
    assert_eq!(mate.ply_count, 4);
    assert!(mate.claims.is_empty());

    // Sam Loyd's stalemate in 10 moves (FIDE 5.2.1) at ply 19.
    let loyd = [
        "e3", "a5", "Qh5", "Ra6", "Qxa5", "h5", "h4", "Rah6", "Qxc7", "f6", "Qxd7+", "Kf7", "Qxb7",
        "Qd3", "Qxb8", "Qh7", "Qxc8", "Kg6", "Qe6",
    ];
    let stalemate = adjudicate(&mut client, &loyd, false).await;
    let outcome = stalemate.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::Draw);
    assert_eq!(outcome.result_text, "1/2-1/2");
    assert_eq!(outcome.termination(), Termination::Stalemate);
    assert_eq!(outcome.fide_article, "5.2.1");
    assert_eq!(outcome.ply, 19);
    assert!(stalemate.status.expect("status").is_stalemate);

    // The knights dance: the start position occurs for the fifth time after ply 16 (FIDE 9.6.1).
    let dance: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(4);
    let fivefold = adjudicate(&mut client, &dance, false).await;
    let outcome = fivefold.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::Draw);
    assert_eq!(outcome.termination(), Termination::FivefoldRepetition);
    assert_eq!(outcome.fide_article, "9.6.1");
    assert_eq!(outcome.ply, 16);
    assert_eq!(
        fivefold.fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 16 9"
    );
    // Moves after an automatic ending do not move the ending.
    let mut longer = dance.clone();
    longer.extend(["e4", "e5"]);
    let after = adjudicate(&mut client, &longer, false).await;
    assert_eq!(after.outcome.expect("outcome").ply, 16);
    assert_eq!(after.ply_count, 18);

    // Threefold repetition (FIDE 9.2): claimable now after ply 8, applied only when asked.
    let dance: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(2);
    let open = adjudicate(&mut client, &dance, false).await;
    let outcome = open.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::Ongoing);
    assert_eq!(outcome.result_text, "*");
    assert_eq!(outcome.termination(), Termination::Unspecified);
    assert_eq!(outcome.fide_article, "");
    assert_eq!(outcome.ply, 8);
    let now: Vec<_> = open.claims.iter().filter(|c| c.claimable_now).collect();
    assert_eq!(now.len(), 1, "{:?}", open.claims);
    assert_eq!(now[0].kind(), ClaimKind::ThreefoldRepetition);
    assert_eq!(now[0].fide_article, "9.2");
    assert_eq!(now[0].r#move, None);

    let claimed = adjudicate(&mut client, &dance, true).await;
    let outcome = claimed.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::Draw);
    assert_eq!(outcome.result_text, "1/2-1/2");
    assert_eq!(outcome.termination(), Termination::ThreefoldRepetition);
    assert_eq!(outcome.fide_article, "9.2");
    assert_eq!(outcome.ply, 8);
    assert!(claimed.claims.is_empty());

    // One ply earlier there is nothing to claim now, so claim_draw changes nothing.
    let early = adjudicate(&mut client, &dance[..7], true).await;
    assert_eq!(
        early.outcome.expect("outcome").result(),
        GameResult::Ongoing
    );

    // PGN input: fool's mate, with the Result tag it declares.
    let pgn = within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Pgn(
                "1. f3 e5 2. g4 Qh4# 0-1".to_owned(),
            )),
            claim_draw: false,
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect("pgn")
    .into_inner();
    let outcome = pgn.outcome.expect("outcome");
    assert_eq!(outcome.result(), GameResult::BlackWins);
    assert_eq!(outcome.fide_article, "5.1.1");
    assert_eq!(outcome.ply, 4);
    assert_eq!(pgn.declared_result, "0-1");
    assert!(!pgn.disagreement);
}

#[tokio::test]
async fn validate_position() {
    let server = Server::start();
    let mut client = server.client().await;
    let validate = |position: Option<Position>| ValidatePositionRequest {
        position,
        ..ValidatePositionRequest::default()
    };

    let valid = within(
        "ValidatePosition",
        client.validate_position(validate(fen("startpos"))),
    )
    .await
    .expect("ValidatePosition")
    .into_inner();
    assert!(valid.valid);
    assert_eq!(valid.fen, STARTPOS);
    assert!(valid.reasons.is_empty());
    let board = valid.board.expect("board");
    assert_eq!(board.pieces.len(), 32);
    assert_eq!(
        board.pieces.get("e1"),
        piece(Color::White, Role::King).as_ref()
    );
    assert_eq!(
        board.pieces.get("d8"),
        piece(Color::Black, Role::Queen).as_ref()
    );
    assert_eq!(
        board.castling,
        Some(CastlingRights {
            white_king_side: true,
            white_queen_side: true,
            black_king_side: true,
            black_queen_side: true,
            ..CastlingRights::default()
        })
    );
    assert_eq!(board.side_to_move(), Color::White);
    assert_eq!(valid.status.expect("status").legal_move_count, 20);

    // The structured board says the same as the FEN.
    let same = within(
        "ValidatePosition",
        client.validate_position(validate(Some(Position {
            kind: Some(position::Kind::Board(board)),
            ..Position::default()
        }))),
    )
    .await
    .expect("ValidatePosition")
    .into_inner();
    assert!(same.valid);
    assert_eq!(same.fen, STARTPOS);

    let invalid: [(&str, &str); 8] = [
        (
            "8/8/8/8/8/8/8/K7 w - - 0 1",
            "Black has 0 kings, expected exactly one",
        ),
        (
            "k6P/8/8/8/8/8/8/K7 w - - 0 1",
            "pawn on h8: pawns cannot stand on the first or last rank",
        ),
        (
            "k7/8/8/8/8/8/8/K7 w K - 0 1",
            "castling right 'K' needs the white king on e1",
        ),
        (
            "k7/8/8/8/8/8/8/K7 x - - 0 1",
            "side to move is 'x', expected 'w' or 'b'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
            "bad piece letter 'X' in rank 1 of the piece placement",
        ),
        ("8/8/8 w - - 0 1", "piece placement has 3 ranks, expected 8"),
        (
            "startpos w",
            "FEN has 2 fields, expected 6 (placement, side to move, castling, en passant, \
             halfmove clock, fullmove number)",
        ),
        (
            "k7/8/8/8/8/8/8/Q6K w - - 0 1",
            "Black is not to move but is in check",
        ),
    ];
    for (text, reason) in invalid {
        let answer = within(
            "ValidatePosition",
            client.validate_position(validate(fen(text))),
        )
        .await
        .expect("an invalid position is an answer, not an error")
        .into_inner();
        assert!(!answer.valid, "{text}");
        assert_eq!(answer.reasons, [reason], "{text}");
        assert_eq!(answer.fen, "", "{text}");
        assert_eq!((answer.board, answer.status), (None, None), "{text}");
    }

    // No position at all is a malformed request.
    let error = within("ValidatePosition", client.validate_position(validate(None)))
        .await
        .expect_err("missing position");
    let (field, _, reason) = violation(&error);
    assert_eq!(
        (field.as_str(), reason.as_str()),
        ("position", "MISSING_FIELD")
    );

    // A bad square name in a board names the map entry.
    let mut pieces = std::collections::BTreeMap::new();
    pieces.insert(
        "z9".to_owned(),
        piece(Color::White, Role::King).expect("piece"),
    );
    let error = within(
        "ValidatePosition",
        client.validate_position(validate(Some(Position {
            kind: Some(position::Kind::Board(Board {
                pieces,
                side_to_move: Color::White.into(),
                ..Board::default()
            })),
            ..Position::default()
        }))),
    )
    .await
    .expect("ValidatePosition")
    .into_inner();
    assert!(!error.valid);
    assert_eq!(
        error.reasons,
        ["\"z9\" is not a square name (\"a1\" to \"h8\")"]
    );
}

/// A bad FEN is INVALID_ARGUMENT on every RPC that takes a position, with the field path.
#[tokio::test]
async fn bad_fen_is_invalid_argument_everywhere() {
    let server = Server::start();
    let mut client = server.client().await;
    const BAD: &str = "8/8/8 w - - 0 1";
    const WHY: &str = "piece placement has 3 ranks, expected 8";

    let mut errors = Vec::new();
    errors.push(
        within(
            "ListLegalMoves",
            client.list_legal_moves(ListLegalMovesRequest {
                position: fen(BAD),
                ..ListLegalMovesRequest::default()
            }),
        )
        .await
        .expect_err("ListLegalMoves"),
    );
    errors.push(
        within(
            "ApplyMove",
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Position(
                    fen(BAD).expect("position"),
                )),
                r#move: "e4".to_owned(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .expect_err("ApplyMove position"),
    );
    errors.push(
        within(
            "ApplyMove",
            client.apply_move(ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Game(game(Some(BAD), &[]))),
                r#move: "e4".to_owned(),
                ..ApplyMoveRequest::default()
            }),
        )
        .await
        .expect_err("ApplyMove game"),
    );
    errors.push(
        within(
            "ApplyMoves",
            client.apply_moves(ApplyMovesRequest {
                position: fen(BAD),
                moves: strings(&["e4"]),
                ..ApplyMovesRequest::default()
            }),
        )
        .await
        .expect_err("ApplyMoves"),
    );
    errors.push(
        within(
            "AdjudicateGame",
            client.adjudicate_game(AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Game(game(
                    Some(BAD),
                    &["e4"],
                ))),
                claim_draw: false,
                ..AdjudicateGameRequest::default()
            }),
        )
        .await
        .expect_err("AdjudicateGame"),
    );
    let fields: Vec<(String, String, String)> = errors.iter().map(violation).collect();
    let expected: Vec<(String, String, String)> = [
        "position.fen",
        "position.fen",
        "game.start.fen",
        "position.fen",
        "game.start.fen",
    ]
    .iter()
    .map(|field| {
        (
            (*field).to_owned(),
            WHY.to_owned(),
            "INVALID_POSITION".to_owned(),
        )
    })
    .collect();
    assert_eq!(fields, expected);

    // ValidatePosition answers instead of failing.
    let answer = within(
        "ValidatePosition",
        client.validate_position(ValidatePositionRequest {
            position: fen(BAD),
            ..ValidatePositionRequest::default()
        }),
    )
    .await
    .expect("ValidatePosition")
    .into_inner();
    assert_eq!(
        (answer.valid, answer.reasons),
        (false, vec![WHY.to_owned()])
    );

    // A missing position is MISSING_FIELD on "position".
    let error = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest::default()),
    )
    .await
    .expect_err("no position");
    let (field, _, reason) = violation(&error);
    assert_eq!(
        (field.as_str(), reason.as_str()),
        ("position", "MISSING_FIELD")
    );
}

/// Issue 13: small calls are answered on the network thread, others on a worker, and a small
/// AdjudicateGame whose verdict needs an analysis hands only the verdict to a worker. Where a
/// call runs must never change its answer: a server with `--max-inline-bytes 0` (every call on
/// a worker) answers the same, for a move list, an illegal move, and games whose verdicts need
/// the analyzer (a resignation with its mating line, an ongoing game's dead-position test, a
/// flag fall against a lone king: FIDE Laws 5.1.2, 5.2.2, 6.9).
#[tokio::test]
async fn answers_are_the_same_inline_and_on_workers() {
    use arbiter_proto::v1::{GameEvent, GameEventKind};
    let inline = Server::start();
    let pooled = Server::start_with(&["--max-inline-bytes", "0"]);
    let (mut a, mut b) = (inline.client().await, pooled.client().await);

    let list = ListLegalMovesRequest {
        position: fen(CASTLING_THROUGH_F1),
        ..ListLegalMovesRequest::default()
    };
    let listed = within("ListLegalMoves", a.list_legal_moves(list.clone()))
        .await
        .expect("inline")
        .into_inner();
    assert_eq!(listed.moves.len(), 22, "{:?}", listed.moves);
    assert_eq!(
        listed,
        within("ListLegalMoves", b.list_legal_moves(list))
            .await
            .expect("pooled")
            .into_inner()
    );

    let pinned = ApplyMoveRequest {
        subject: Some(apply_move_request::Subject::Position(
            fen(PINNED_KNIGHT).expect("fen"),
        )),
        r#move: "Nf3".to_owned(),
        ..ApplyMoveRequest::default()
    };
    let refused = within("ApplyMove", a.apply_move(pinned.clone()))
        .await
        .expect_err("pinned");
    let refused_too = within("ApplyMove", b.apply_move(pinned))
        .await
        .expect_err("pinned");
    assert_eq!(violation(&refused), violation(&refused_too));
    assert_eq!(refused.code(), Code::InvalidArgument);

    let event = |kind: GameEventKind, side: Color| {
        Some(GameEvent {
            kind: kind.into(),
            side: side.into(),
        })
    };
    let cases = [
        // Black resigns with mate still possible for White: the loss stands, with a line.
        (
            game(None, &["e4", "e5", "Qh5", "Nc6"]),
            event(GameEventKind::Resignation, Color::Black),
            Termination::Resignation,
            GameResult::WhiteWins,
        ),
        // Ongoing: the analyzer proves the position alive, nothing ends.
        (
            game(None, &["d4", "d5", "Nc3", "Nf6", "Bf4", "Nc6"]),
            None,
            Termination::Unspecified,
            GameResult::Ongoing,
        ),
        // White's flag falls, Black has a lone king: drawn (6.9).
        (
            game(Some("8/8/8/4k3/8/8/3QK3/8 w - - 0 1"), &["Qd3"]),
            event(GameEventKind::FlagFall, Color::White),
            Termination::FlagFall,
            GameResult::Draw,
        ),
    ];
    for (moves, event, termination, result) in cases {
        let request = AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(moves)),
            event,
            ..AdjudicateGameRequest::default()
        };
        let here = within("AdjudicateGame", a.adjudicate_game(request.clone()))
            .await
            .expect("inline")
            .into_inner();
        let outcome = here.outcome.clone().expect("outcome");
        assert_eq!(
            (outcome.termination(), outcome.result()),
            (termination, result),
            "{}",
            here.explanation
        );
        if termination == Termination::Resignation {
            assert!(!here.evidence.is_empty(), "a mating line: {here:?}");
        }
        let there = within("AdjudicateGame", b.adjudicate_game(request))
            .await
            .expect("pooled")
            .into_inner();
        assert_eq!(here, there);
    }
}
