//! Localized SAN over the wire (FIDE Laws Appendix C.4): moves read and `Move.san` written with
//! the piece letters of the request's `san_language`, UCI the same in every language.

use arbiter_e2e::{server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMoveRequest, ApplyMovesRequest, Game, ListLegalMovesRequest,
    Position, Result as GameResult, SanLanguage, Termination, adjudicate_game_request,
    apply_move_request, arbiter_service_client::ArbiterServiceClient, position,
};
use arbiter_rules::Position as RulesPosition;
use tonic::{Code, Status, transport::Channel};
use tonic_types::StatusExt as _;

/// Legall de Kermeur vs Saint Brie, Paris 1750 (Légal's mate), in Spanish letters.
const LEGAL_SPANISH: [&str; 13] = [
    "e4", "e5", "Cf3", "d6", "Ac4", "Ag4", "Cc3", "g6", "Cxe5", "Axd1", "Axf7+", "Re7", "Cd5#",
];
const LEGAL_ENGLISH: [&str; 13] = [
    "e4", "e5", "Nf3", "d6", "Bc4", "Bg4", "Nc3", "g6", "Nxe5", "Bxd1", "Bxf7+", "Ke7", "Nd5#",
];
const LEGAL_FINAL: &str = "rn1q1bnr/ppp1kB1p/3p2p1/3NN3/4P3/8/PPPP1PPP/R1BbK2R b KQ - 2 7";

/// The Exchange Variation of the Ruy Lopez into the endgame, in Spanish letters.
const EXCHANGE_SPANISH: [&str; 17] = [
    "e4", "e5", "Cf3", "Cc6", "Ab5", "a6", "Axc6", "dxc6", "O-O", "f6", "d4", "exd4", "Cxd4", "c5",
    "Cb3", "Dxd1", "Txd1",
];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn startpos() -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen("startpos".to_owned())),
        ..Position::default()
    })
}

async fn apply_moves(
    client: &mut ArbiterServiceClient<Channel>,
    moves: &[&str],
    language: SanLanguage,
) -> Result<arbiter_proto::v1::ApplyMovesResponse, Status> {
    within(
        "ApplyMoves",
        client.apply_moves(ApplyMovesRequest {
            moves: strings(moves),
            san_language: language.into(),
            ..ApplyMovesRequest::default()
        }),
    )
    .await
    .map(tonic::Response::into_inner)
}

fn sans(moves: &[arbiter_proto::v1::Move]) -> Vec<&str> {
    moves.iter().map(|mv| mv.san.as_str()).collect()
}

/// The final FEN `arbiter-rules` computes for English SAN moves.
fn local_fen(moves: &[&str]) -> String {
    let mut position = RulesPosition::startpos();
    for text in moves {
        let mv = position.parse_move(text).expect("legal");
        position = position.play(&mv);
    }
    position.to_fen()
}

/// The single field violation of an INVALID_ARGUMENT status: (field, description).
fn violation(status: &Status) -> (String, String) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let details = status.get_error_details();
    let bad_request = details.bad_request().expect("BadRequest detail");
    let violation = &bad_request.field_violations[0];
    (violation.field.clone(), violation.description.clone())
}

#[tokio::test]
async fn a_spanish_game_through_apply_moves_apply_move_and_adjudicate_game() {
    let server = Server::start();
    let mut client = server.client().await;

    let answer = apply_moves(&mut client, &LEGAL_SPANISH, SanLanguage::Spanish)
        .await
        .expect("ApplyMoves in Spanish");
    assert_eq!(sans(&answer.moves), LEGAL_SPANISH);
    assert_eq!(answer.fen, LEGAL_FINAL);
    assert_eq!(answer.fen, local_fen(&LEGAL_ENGLISH));
    assert_eq!(answer.moves[2].uci, "g1f3");
    assert!(answer.status.expect("status").is_checkmate);

    // The same game in English: the same moves, English letters.
    let english = apply_moves(&mut client, &LEGAL_ENGLISH, SanLanguage::Unspecified)
        .await
        .expect("ApplyMoves in English");
    assert_eq!(sans(&english.moves), LEGAL_ENGLISH);
    assert_eq!(english.fen, LEGAL_FINAL);

    let answer = apply_moves(&mut client, &EXCHANGE_SPANISH, SanLanguage::Spanish)
        .await
        .expect("ApplyMoves in Spanish");
    assert_eq!(sans(&answer.moves), EXCHANGE_SPANISH);
    assert_eq!(
        answer.fen,
        "r1b1kbnr/1pp3pp/p4p2/2p5/4P3/1N6/PPP2PPP/RNBR2K1 b kq - 0 9"
    );

    // AdjudicateGame: checkmate (FIDE 5.1.1), with the game read in Spanish.
    let verdict = within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(Game {
                start: None,
                moves: strings(&LEGAL_SPANISH),
            })),
            san_language: SanLanguage::Spanish.into(),
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect("AdjudicateGame in Spanish")
    .into_inner();
    let outcome = verdict.outcome.expect("outcome");
    assert_eq!(outcome.result, i32::from(GameResult::WhiteWins));
    assert_eq!(outcome.termination, i32::from(Termination::Checkmate));
    assert_eq!(outcome.ply, 13);
    assert_eq!(verdict.fen, LEGAL_FINAL);

    // A repetition claim names its move in Spanish.
    let verdict = within(
        "AdjudicateGame",
        client.adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(Game {
                start: None,
                moves: strings(&["Cf3", "Cf6", "Cg1", "Cg8", "Cf3", "Cf6", "Cg1"]),
            })),
            san_language: SanLanguage::Spanish.into(),
            ..AdjudicateGameRequest::default()
        }),
    )
    .await
    .expect("AdjudicateGame in Spanish")
    .into_inner();
    let by_move: Vec<&str> = verdict
        .claims
        .iter()
        .filter_map(|claim| claim.r#move.as_ref())
        .map(|mv| mv.san.as_str())
        .collect();
    assert_eq!(by_move, ["Cg8"]);

    // ApplyMove on a game: the last move in Spanish, the answer in Spanish.
    let answer = within(
        "ApplyMove",
        client.apply_move(ApplyMoveRequest {
            subject: Some(apply_move_request::Subject::Game(Game {
                start: None,
                moves: strings(&LEGAL_SPANISH[..12]),
            })),
            r#move: "Cd5".to_owned(),
            san_language: SanLanguage::Spanish.into(),
            ..ApplyMoveRequest::default()
        }),
    )
    .await
    .expect("ApplyMove in Spanish")
    .into_inner();
    assert_eq!(answer.r#move.expect("move").san, "Cd5#");
    assert_eq!(
        answer.outcome.expect("outcome").termination,
        i32::from(Termination::Checkmate)
    );
}

#[test]
fn adjudicate_cli_writes_evidence_in_the_language() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let file = dir.join("flag.pgn");
    std::fs::write(
        &file,
        "[Event \"x\"]\n[Result \"0-1\"]\n[Termination \"time forfeit\"]\n\
         [FEN \"4k3/8/8/8/8/8/3q4/4K3 w - - 0 1\"]\n\n1. Kf1 Qd1+ 2. Kf2 0-1\n",
    )
    .expect("write PGN");
    let mut evidence = Vec::new();
    for language in ["en", "es", "figurine"] {
        let output = arbiter_e2e::command::run(
            std::process::Command::new(arbiter_e2e::binary::arbiter())
                .arg("adjudicate")
                .arg(&file)
                .args(["--format", "jsonl", "--language", language]),
            std::time::Duration::from_secs(60),
        );
        assert_eq!(output.status.code(), Some(0), "{language}");
        let line: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON line");
        let verdict = &line["verdict"];
        assert_eq!(verdict["outcome"]["termination"], "TERMINATION_FLAG_FALL");
        let sans: Vec<String> = verdict["evidence"]
            .as_array()
            .expect("evidence")
            .iter()
            .map(|mv| mv["san"].as_str().expect("SAN").to_owned())
            .collect();
        assert!(
            sans.last().is_some_and(|san| san.ends_with('#')),
            "{sans:?}"
        );
        evidence.push(sans);
    }
    // The same line in three alphabets: queen Q / D / ♛, king K / R / ♔ or ♚.
    assert_eq!(evidence[0].len(), evidence[1].len());
    assert!(evidence[0].iter().any(|san| san.starts_with('Q')));
    assert!(evidence[1].iter().any(|san| san.starts_with('D')));
    assert!(evidence[1].iter().all(|san| !san.starts_with('Q')));
    assert!(evidence[2].iter().any(|san| san.starts_with('♛')));
}

#[tokio::test]
async fn english_letters_are_no_spanish() {
    let server = Server::start();
    let mut client = server.client().await;
    let status = apply_moves(&mut client, &["e4", "e5", "Nf3"], SanLanguage::Spanish)
        .await
        .expect_err("N is no Spanish piece letter");
    let (field, description) = violation(&status);
    assert_eq!(field, "moves[2]");
    assert_eq!(
        description,
        "ply 3 (Nf3): 'N' is not a piece letter in Spanish (R D T A C)"
    );

    // UCI is read in every language.
    let answer = apply_moves(&mut client, &["e2e4", "e7e5", "g1f3"], SanLanguage::Spanish)
        .await
        .expect("UCI in a Spanish request");
    assert_eq!(sans(&answer.moves), ["e4", "e5", "Cf3"]);

    let status = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: startpos(),
            san_language: 99,
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect_err("99 is no language");
    assert_eq!(
        violation(&status),
        (
            "san_language".to_owned(),
            "99 is not a SanLanguage value".to_owned()
        )
    );
}

#[tokio::test]
async fn german_french_italian_dutch_and_figurine_spot_checks() {
    let server = Server::start();
    let mut client = server.client().await;

    let answer = apply_moves(&mut client, &EXCHANGE_SPANISH, SanLanguage::Spanish)
        .await
        .expect("ApplyMoves");
    let uci: Vec<String> = answer.moves.iter().map(|mv| mv.uci.clone()).collect();
    let uci: Vec<&str> = uci.iter().map(String::as_str).collect();
    for (language, expected) in [
        (
            SanLanguage::German,
            [
                "e4", "e5", "Sf3", "Sc6", "Lb5", "a6", "Lxc6", "dxc6", "O-O", "f6", "d4", "exd4",
                "Sxd4", "c5", "Sb3", "Dxd1", "Txd1",
            ],
        ),
        (
            SanLanguage::French,
            [
                "e4", "e5", "Cf3", "Cc6", "Fb5", "a6", "Fxc6", "dxc6", "O-O", "f6", "d4", "exd4",
                "Cxd4", "c5", "Cb3", "Dxd1", "Txd1",
            ],
        ),
        (
            SanLanguage::Figurine,
            [
                "e4", "e5", "♘f3", "♞c6", "♗b5", "a6", "♗xc6", "dxc6", "O-O", "f6", "d4", "exd4",
                "♘xd4", "c5", "♘b3", "♛xd1", "♖xd1",
            ],
        ),
    ] {
        // UCI in, the language out; and the language's own SAN read back.
        let answer = apply_moves(&mut client, &uci, language)
            .await
            .expect("ApplyMoves");
        assert_eq!(sans(&answer.moves), expected, "{language:?}");
        let again = apply_moves(&mut client, &expected, language)
            .await
            .expect("ApplyMoves of the language's own SAN");
        assert_eq!(again.fen, answer.fen, "{language:?}");
    }

    // Figurine requests also read English letters.
    let answer = apply_moves(&mut client, &["e4", "Nc6", "Nf3"], SanLanguage::Figurine)
        .await
        .expect("English letters in a figurine request");
    assert_eq!(sans(&answer.moves), ["e4", "♞c6", "♘f3"]);

    // ListLegalMoves: the knight move g1f3 in each language.
    for (language, san) in [
        (SanLanguage::Unspecified, "Nf3"),
        (SanLanguage::English, "Nf3"),
        (SanLanguage::Spanish, "Cf3"),
        (SanLanguage::German, "Sf3"),
        (SanLanguage::French, "Cf3"),
        (SanLanguage::Italian, "Cf3"),
        (SanLanguage::Dutch, "Pf3"),
        (SanLanguage::Figurine, "♘f3"),
    ] {
        let answer = within(
            "ListLegalMoves",
            client.list_legal_moves(ListLegalMovesRequest {
                position: startpos(),
                san_language: language.into(),
                ..ListLegalMovesRequest::default()
            }),
        )
        .await
        .expect("ListLegalMoves")
        .into_inner();
        let knight = answer
            .moves
            .iter()
            .find(|mv| mv.uci == "g1f3")
            .expect("g1f3");
        assert_eq!(knight.san, san, "{language:?}");
        assert_eq!(answer.moves.len(), 20);
    }
}
