//! Requests the end-to-end tests send again and again, built in one place.
//!
//! Fool's mate (1. f3 e5 2. g4 Qh4#) is the shortest game that ends: 0-1 by checkmate
//! (Article 5.1.1), four plies, a request of a few dozen bytes (answered on the network thread,
//! in the first poll of the call, at the default `--max-inline-bytes`), and one count in
//! `arbiter_games_adjudicated_total{result="0-1",termination="checkmate"}` per call.

use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGamesRequest, Game, adjudicate_game_request,
    adjudicate_games_request,
};

/// Fool's mate in SAN, one move per element.
pub const FOOLS_MATE: [&str; 4] = ["f3", "e5", "g4", "Qh4#"];

/// Fool's mate as PGN movetext with its result: one game for AdjudicateGames' `pgn`.
pub const FOOLS_MATE_PGN: &str = "1. f3 e5 2. g4 Qh4# 0-1\n";

/// Fool's mate as a game from the standard start position.
#[must_use]
pub fn fools_mate_game() -> Game {
    Game {
        start: None,
        moves: FOOLS_MATE.map(str::to_owned).to_vec(),
    }
}

/// AdjudicateGame of fool's mate as moves (0-1, checkmate, Article 5.1.1).
#[must_use]
pub fn fools_mate() -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(fools_mate_game())),
        ..AdjudicateGameRequest::default()
    }
}

/// One AdjudicateGames message holding fool's mate as moves.
#[must_use]
pub fn fools_mate_message() -> AdjudicateGamesRequest {
    AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Game(fools_mate_game())),
        ..AdjudicateGamesRequest::default()
    }
}

/// One AdjudicateGames message holding fool's mate as PGN ([`FOOLS_MATE_PGN`]).
#[must_use]
pub fn fools_mate_pgn_message() -> AdjudicateGamesRequest {
    AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Pgn(
            FOOLS_MATE_PGN.to_owned(),
        )),
        ..AdjudicateGamesRequest::default()
    }
}
