//! The API as a user sees it through `buf curl`: schema from server reflection, requests and
//! responses in proto3 JSON (`lowerCamelCase` names, enum names, defaults omitted).
//!
//! Needs the pinned buf from `make tools`; fails saying so when it is missing, unless
//! `ARBITER_SKIP_BUF=1` (then each test prints that it skipped).

use std::process::Command;

use arbiter_e2e::{buf, command, server::Server};
use serde_json::{Value, json};

const SERVICE: &str = "arbiter.v1.ArbiterService";

/// Calls `method` of the arbiter service and returns the JSON response, which must be a success.
fn call(buf: &std::path::Path, server: &Server, method: &str, data: &str) -> Value {
    let reply = buf::curl(buf, &server.url(), &format!("{SERVICE}/{method}"), data);
    assert_eq!(
        reply.exit_code,
        Some(0),
        "{method} {data}: {}",
        reply.stderr
    );
    reply.body
}

#[test]
fn list_legal_moves_as_json() {
    let Some(buf) = buf::binary("list_legal_moves_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "ListLegalMoves",
        r#"{"position":{"fen":"startpos"}}"#,
    );
    let moves = body["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 20);
    let uci: Vec<&str> = moves.iter().filter_map(|mv| mv["uci"].as_str()).collect();
    assert_eq!(
        uci,
        [
            "a2a3", "a2a4", "b1a3", "b1c3", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3", "d2d4", "e2e3",
            "e2e4", "f2f3", "f2f4", "g1f3", "g1h3", "g2g3", "g2g4", "h2h3", "h2h4"
        ]
    );
    assert_eq!(
        moves[14],
        json!({
            "uci": "g1f3",
            "san": "Nf3",
            "from": "g1",
            "to": "f3",
            "piece": {"color": "COLOR_WHITE", "role": "ROLE_KNIGHT"}
        })
    );
    assert_eq!(
        body["status"],
        json!({"sideToMove": "COLOR_WHITE", "legalMoveCount": 20, "fullmoveNumber": 1})
    );
    assert_eq!(
        body["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn apply_move_as_json() {
    let Some(buf) = buf::binary("apply_move_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "ApplyMove",
        r#"{"position":{"fen":"startpos"},"move":"e4"}"#,
    );
    assert_eq!(
        body,
        json!({
            "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "move": {
                "uci": "e2e4",
                "san": "e4",
                "from": "e2",
                "to": "e4",
                "piece": {"color": "COLOR_WHITE", "role": "ROLE_PAWN"}
            },
            "status": {"sideToMove": "COLOR_BLACK", "legalMoveCount": 20, "fullmoveNumber": 1}
        })
    );
}

#[test]
fn apply_moves_as_json() {
    let Some(buf) = buf::binary("apply_moves_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "ApplyMoves",
        r#"{"moves":["e4","e5","Nf3","Nc6","Bb5"]}"#,
    );
    assert_eq!(
        body["fen"],
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
    );
    let san: Vec<&str> = body["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter_map(|mv| mv["san"].as_str())
        .collect();
    assert_eq!(san, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    assert_eq!(
        body["status"],
        json!({
            "sideToMove": "COLOR_BLACK",
            "legalMoveCount": 30,
            "halfmoveClock": 3,
            "fullmoveNumber": 3
        })
    );

    // An illegal ply: INVALID_ARGUMENT (buf exits with 8 x the code, 3) and the message.
    let reply = buf::curl(
        &buf,
        &server.url(),
        &format!("{SERVICE}/ApplyMoves"),
        r#"{"position":{"fen":"4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"},"moves":["Nf3"]}"#,
    );
    assert_eq!(reply.exit_code, Some(24), "{}", reply.stderr);
    assert_eq!(reply.error["code"], "invalid_argument", "{}", reply.stderr);
    assert_eq!(
        reply.error["message"],
        "moves[0]: ply 1 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop \
         on b4 (FIDE Laws 3.9.2)"
    );
    let types: Vec<&str> = reply.error["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(|detail| detail["type"].as_str())
        .collect();
    assert!(types.contains(&"google.rpc.BadRequest"), "{types:?}");
    assert!(types.contains(&"google.rpc.ErrorInfo"), "{types:?}");
}

/// Issue 27 item 9: ApplyMoves' `outcome` and `claims` in proto3 JSON (lowerCamelCase, as
/// ApplyMove's), and the message of a move after the mate.
#[test]
fn r_apply_moves_outcome_and_claims_as_json() {
    let Some(buf) = buf::binary("r_apply_moves_outcome_and_claims_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "ApplyMoves",
        r#"{"moves":["f3","e5","g4","Qh4#"]}"#,
    );
    assert_eq!(
        body["outcome"],
        json!({
            "result": "RESULT_BLACK_WINS",
            "resultText": "0-1",
            "termination": "TERMINATION_CHECKMATE",
            "fideArticle": "5.1.1",
            "ply": 4,
            "description": "checkmate"
        })
    );
    assert_eq!(body.get("claims"), None, "{body}");
    let body = call(
        &buf,
        &server,
        "ApplyMoves",
        r#"{"moves":["Nf3","Nf6","Ng1","Ng8","Nf3","Nf6","Ng1"]}"#,
    );
    assert_eq!(body.get("outcome"), None, "{body}");
    assert_eq!(body["claims"][0]["kind"], "CLAIM_KIND_THREEFOLD_REPETITION");
    assert_eq!(body["claims"][0]["fideArticle"], "9.2");
    assert_eq!(body["claims"][0]["move"]["san"], "Ng8");

    let reply = buf::curl(
        &buf,
        &server.url(),
        &format!("{SERVICE}/ApplyMoves"),
        r#"{"moves":["f3","e5","g4","Qh4#","a3"]}"#,
    );
    assert_eq!(reply.exit_code, Some(24), "{}", reply.stderr);
    assert_eq!(
        reply.error["message"],
        "moves[4]: ply 5 (a3): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
    );
}

#[test]
fn adjudicate_game_as_json() {
    let Some(buf) = buf::binary("adjudicate_game_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "AdjudicateGame",
        r#"{"game":{"moves":["f3","e5","g4","Qh4#"]}}"#,
    );
    assert_eq!(
        body["outcome"],
        json!({
            "result": "RESULT_BLACK_WINS",
            "resultText": "0-1",
            "termination": "TERMINATION_CHECKMATE",
            "fideArticle": "5.1.1",
            "ply": 4,
            "description": "checkmate"
        })
    );
    assert_eq!(
        body["fen"],
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );
    assert_eq!(body["plyCount"], 4);

    let claimed = call(
        &buf,
        &server,
        "AdjudicateGame",
        r#"{"game":{"moves":["Nf3","Nf6","Ng1","Ng8","Nf3","Nf6","Ng1","Ng8"]},"claimDraw":true}"#,
    );
    assert_eq!(
        claimed["outcome"],
        json!({
            "result": "RESULT_DRAW",
            "resultText": "1/2-1/2",
            "termination": "TERMINATION_THREEFOLD_REPETITION",
            "fideArticle": "9.2",
            "ply": 8,
            "description": "threefold repetition (claimed)"
        })
    );

    // PGN text: fool's mate, the Result tag agrees with the rules.
    let body = call(
        &buf,
        &server,
        "AdjudicateGame",
        r#"{"pgn":"1. f3 e5 2. g4 Qh4# 0-1"}"#,
    );
    assert_eq!(body["outcome"]["result"], "RESULT_BLACK_WINS", "{body}");
    assert_eq!(body["outcome"]["termination"], "TERMINATION_CHECKMATE");
    assert_eq!(body["outcome"]["fideArticle"], "5.1.1");
    assert_eq!(body["outcome"]["ply"], 4);
    assert_eq!(body["declaredResult"], "0-1");
    assert!(body.get("disagreement").is_none(), "{body}");
}

#[test]
fn validate_position_as_json() {
    let Some(buf) = buf::binary("validate_position_as_json") else {
        return;
    };
    let server = Server::start();
    let body = call(
        &buf,
        &server,
        "ValidatePosition",
        r#"{"position":{"fen":"8/8/8/8/8/8/8/K6k w - - 0 1"}}"#,
    );
    assert_eq!(
        body,
        json!({
            "valid": true,
            "fen": "8/8/8/8/8/8/8/K6k w - - 0 1",
            "board": {
                "pieces": {
                    "a1": {"color": "COLOR_WHITE", "role": "ROLE_KING"},
                    "h1": {"color": "COLOR_BLACK", "role": "ROLE_KING"}
                },
                "sideToMove": "COLOR_WHITE",
                "castling": {},
                "fullmoveNumber": 1
            },
            "status": {
                "sideToMove": "COLOR_WHITE",
                "isInsufficientMaterial": true,
                "legalMoveCount": 3,
                "fullmoveNumber": 1
            },
            "variant": "VARIANT_STANDARD"
        })
    );
    let invalid = call(
        &buf,
        &server,
        "ValidatePosition",
        r#"{"position":{"fen":"8/8/8/8/8/8/8/K7 w - - 0 1"}}"#,
    );
    assert_eq!(
        invalid,
        json!({
            "reasons": ["Black has 0 kings, expected exactly one"],
            "field": "position.fen",
            "cause": "KING_COUNT",
            "article": "2.2"
        })
    );
}

#[test]
fn health_and_reflection_as_json() {
    let Some(buf) = buf::binary("health_and_reflection_as_json") else {
        return;
    };
    let server = Server::start();
    for service in ["", "arbiter.v1.ArbiterService"] {
        let reply = buf::curl(
            &buf,
            &server.url(),
            "grpc.health.v1.Health/Check",
            &json!({ "service": service }).to_string(),
        );
        assert_eq!(reply.exit_code, Some(0), "{}", reply.stderr);
        assert_eq!(reply.body, json!({"status": "SERVING"}));
    }

    // Reflection lists the services and methods (the URL is then the server's base URL).
    let list = |flag: &str| {
        let output = command::run(
            Command::new(&buf)
                .args([
                    "curl",
                    "--protocol",
                    "grpc",
                    "--http2-prior-knowledge",
                    flag,
                ])
                .arg(server.url()),
            buf::BUF_TIMEOUT,
        );
        assert!(
            output.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        lines.sort_unstable();
        lines
    };
    assert_eq!(
        list("--list-services"),
        [
            "arbiter.v1.ArbiterService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
        ]
    );
    let methods = list("--list-methods");
    let ours: Vec<&str> = methods
        .iter()
        .map(String::as_str)
        .filter(|method| method.starts_with(SERVICE))
        .collect();
    assert_eq!(
        ours,
        [
            "arbiter.v1.ArbiterService/AdjudicateGame",
            "arbiter.v1.ArbiterService/AdjudicateGames",
            "arbiter.v1.ArbiterService/ApplyMove",
            "arbiter.v1.ArbiterService/ApplyMoves",
            "arbiter.v1.ArbiterService/FollowGame",
            "arbiter.v1.ArbiterService/ListLegalMoves",
            "arbiter.v1.ArbiterService/ValidatePosition",
        ]
    );
}
