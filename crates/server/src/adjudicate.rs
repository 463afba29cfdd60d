//! Games read from PGN, for the server and the CLI: the reading of a whole input game by game
//! with each game's place in a stream ([`read_games`], [`for_each_game`]), the settings that
//! bound it, and the wire form of each game's verdict. The verdict itself is decided in
//! `arbiter-pgn` ([`arbiter_pgn::verdict::adjudicate`]) and put on the wire by `arbiter-proto`
//! ([`convert::pgn_verdict_to_wire`]): `AdjudicateGame` (field `pgn`), the `AdjudicateGames`
//! stream and `arbiter adjudicate` all go through [`adjudicate_raw`] or [`Item::response`], so
//! the three give the same verdicts.
//!
//! ```
//! use arbiter_pgn::Reader;
//! use arbiter_server::adjudicate::{Settings, adjudicate_raw};
//!
//! let pgn = "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n";
//! let raw = Reader::new(pgn.as_bytes()).next().unwrap().unwrap();
//! let response = adjudicate_raw(&raw, None, &Settings::default()).unwrap();
//! // Black's flag fell, and White can still mate: White wins (FIDE Laws 6.9).
//! let outcome = response.outcome.as_ref().unwrap();
//! assert_eq!((outcome.result_text.as_str(), outcome.fide_article.as_str()), ("1-0", "6.9"));
//! assert!(!response.disagreement);
//! ```

use std::io::BufRead;

use arbiter_pgn::verdict::{AdjudicationSettings, PgnVerdict};
use arbiter_pgn::{ErrorKind, GameNumber, PgnError, RawGame, Reader};
use arbiter_proto::{
    convert::{self, ErrorReason, Notation},
    v1,
};
use arbiter_rules::{GameEvent, RuleSet};

use crate::limits::Limits;

/// The `GameError.reason` of PGN text that cannot be read (syntax, unsupported variant).
pub const INVALID_PGN: &str = ErrorReason::InvalidPgn.as_str();

/// How games are read and adjudicated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    /// Apply a draw claim valid at the end of the game (threefold repetition, fifty-move rule).
    pub claim_draw: bool,
    /// The bounds on each game (plies, bytes, analysis), the same as the server's handlers'.
    pub limits: Limits,
    /// The SAN language of the verdicts' moves and the castling notation of their Chess960
    /// FENs. The movetext is read with English letters, as the PGN standard says.
    pub notation: Notation,
    /// The rules the games were played under (time class, supervision, Armageddon's draw
    /// odds). Default: standard play under the Competition Rules.
    pub rules: RuleSet,
}

impl Settings {
    /// What the adjudication of each game uses of these settings.
    #[must_use]
    pub fn adjudication(&self) -> AdjudicationSettings {
        AdjudicationSettings {
            claim_draw: self.claim_draw,
            analysis: self.limits.analysis,
            rules: self.rules.clone(),
        }
    }
}

/// Replays and adjudicates one PGN game ([`arbiter_pgn::verdict::adjudicate`]; `event`: the
/// caller's, `None` infers it from the tags) and gives the verdict as `AdjudicateGame` answers
/// it, in the settings' notation.
///
/// # Errors
/// The first problem of the game, at its line and column (a bad `FEN` tag, an illegal move).
pub fn adjudicate_raw(
    raw: &RawGame,
    event: Option<GameEvent>,
    settings: &Settings,
) -> Result<v1::AdjudicateGameResponse, PgnError> {
    arbiter_pgn::verdict::adjudicate(raw, event, &settings.adjudication())
        .map(|verdict| convert::pgn_verdict_to_wire(&verdict, settings.notation))
}

/// Where a game of a PGN input stands in a stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Place {
    /// The 0-based number of the game in the whole stream.
    pub index: usize,
    /// The 0-based number of the request message (0 for a file).
    pub request_index: usize,
    /// The 0-based number of the game in its request message or file.
    pub game_index: usize,
}

/// The response of the stream (and the record of `arbiter adjudicate`) for one game read from
/// PGN: `verdict` is its adjudication, or the error that reading or replaying it gave, written
/// in `notation`.
#[must_use]
pub fn games_response(
    at: Place,
    raw: &RawGame,
    verdict: &Result<PgnVerdict, PgnError>,
    notation: Notation,
) -> v1::AdjudicateGamesResponse {
    let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    // The game's identity whatever the error: where it starts and its tags (the reader keeps
    // the tags it read before an error). Only an I/O error before any game has neither; its
    // line is the error's.
    let started = raw.line != 0;
    let line = match verdict {
        Err(error) if !started => error.line,
        _ => raw.line,
    };
    v1::AdjudicateGamesResponse {
        index: u32_of(at.index),
        number: GameNumber::of(raw, at.index).to_string(),
        request_index: u32_of(at.request_index),
        game_index: u32_of(at.game_index),
        line,
        tags: started.then(|| convert::tags_to_wire(raw)),
        // Set by `arbiter adjudicate` for a game of a zip member.
        member: String::new(),
        result: Some(match verdict {
            Ok(verdict) => v1::adjudicate_games_response::Result::Verdict(
                convert::pgn_verdict_to_wire(verdict, notation),
            ),
            Err(error) => v1::adjudicate_games_response::Result::Error(convert::pgn_error_to_wire(
                error, "pgn",
            )),
        }),
    }
}

/// One game of a PGN input, read and (when readable) adjudicated.
#[derive(Debug)]
pub struct Item<'a> {
    /// The game's place in the input.
    pub at: Place,
    /// The game as read (partial or empty after a read error).
    pub raw: &'a RawGame,
    /// The adjudication, or the error of reading (the text is not a game) or of replaying (an
    /// illegal move, a bad `FEN` tag).
    pub verdict: Result<PgnVerdict, PgnError>,
    /// How the response writes moves and positions.
    pub notation: Notation,
}

impl Item<'_> {
    /// The number people give the game ([`GameNumber`]): `5.20` from its `Round` (and `Board`)
    /// tags, else its place in the input counted from 1.
    #[must_use]
    pub fn number(&self) -> GameNumber {
        GameNumber::of(self.raw, self.at.index)
    }

    /// The stream response for this game.
    #[must_use]
    pub fn response(&self) -> v1::AdjudicateGamesResponse {
        games_response(self.at, self.raw, &self.verdict, self.notation)
    }
}

/// A game of a PGN input as read, before adjudication (owned, so it can move to a worker).
#[derive(Debug)]
pub struct ReadGame {
    /// The game's place in the input.
    pub at: Place,
    /// The game as read (partial or empty after a read error).
    pub raw: RawGame,
    /// The read error, if the text is not a game.
    pub read_error: Option<PgnError>,
}

impl ReadGame {
    /// Adjudicates the game when it was read: the item consumers receive.
    #[must_use]
    pub fn adjudicate(&self, settings: &Settings) -> Item<'_> {
        Item {
            at: self.at,
            raw: &self.raw,
            verdict: match &self.read_error {
                Some(error) => Err(error.clone()),
                None => arbiter_pgn::verdict::adjudicate(&self.raw, None, &settings.adjudication()),
            },
            notation: settings.notation,
        }
    }

    /// Places the game at `at` (its number in the whole input, `at.index`, 0-based), for a game
    /// read from a part of the input ([`arbiter_pgn::Chunk`]) whose reader counted from that
    /// part's start.
    pub fn renumber(&mut self, at: Place) {
        self.at = at;
        self.raw.index = at.index;
        if let Some(error) = &mut self.read_error {
            error.game = at.index;
        }
    }

    /// True when reading failed on I/O: the input ends after this game.
    #[must_use]
    pub fn ends_input(&self) -> bool {
        matches!(
            self.read_error,
            Some(PgnError {
                kind: ErrorKind::Io(_),
                ..
            })
        )
    }
}

/// Reads the games of `input` one at a time (bounded by the settings' reader limits), numbering
/// them from `first`; ends at the end of the input or after an I/O error.
pub fn read_games<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
) -> impl Iterator<Item = ReadGame> {
    read_games_into(input, settings, first, RawGame::default)
}

/// Like [`read_games`], reading each game into a `RawGame` that `buffer` gives: a consumer that
/// hands back the games it is done with saves their allocations (moves, tags).
pub fn read_games_into<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
    buffer: impl FnMut() -> RawGame,
) -> impl Iterator<Item = ReadGame> {
    let reader = Reader::with_limits(input, settings.limits.reader_limits());
    read_games_from(reader, first, buffer)
}

/// Like [`read_games_into`], with the reader given: one of a [`arbiter_pgn::Chunk`], or of the
/// rest of an input from a line on.
pub fn read_games_from<R: BufRead>(
    mut reader: Reader<R>,
    first: Place,
    mut buffer: impl FnMut() -> RawGame,
) -> impl Iterator<Item = ReadGame> {
    let mut count = 0;
    let mut ended = false;
    std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let at = Place {
            index: first.index + count,
            request_index: first.request_index,
            game_index: first.game_index + count,
        };
        let mut raw = buffer();
        let read_error = match reader.read_game(&mut raw) {
            Ok(false) => return None,
            Ok(true) => None,
            Err(error) => Some(error),
        };
        count += 1;
        let game = ReadGame {
            at,
            raw,
            read_error,
        };
        ended = game.ends_input();
        Some(game)
    })
}

/// Reads every game of `input` (bounded by the settings' reader limits, one game in memory at a
/// time), adjudicates it and hands it to `each`, in input order; `each` returns `false` to stop.
/// `first` numbers the games of the stream (`index = first.index + game_index`). Returns the
/// number of games handed over. An I/O error ends the input after it was handed over.
pub fn for_each_game<R: BufRead>(
    input: R,
    settings: &Settings,
    first: Place,
    mut each: impl FnMut(Item<'_>) -> bool,
) -> usize {
    let mut count = 0;
    // Each game is read into the previous one's buffers (moves, tags), not into new ones.
    let spare = std::cell::Cell::new(RawGame::default());
    for game in read_games_into(input, settings, first, || spare.take()) {
        count += 1;
        let go_on = each(game.adjudicate(settings));
        spare.set(game.raw);
        if !go_on {
            break;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_rules::Color;

    fn raw(pgn: &str) -> RawGame {
        Reader::new(pgn.as_bytes())
            .next()
            .expect("a game")
            .expect("well-formed")
    }

    fn verdict(pgn: &str, event: Option<GameEvent>) -> v1::AdjudicateGameResponse {
        adjudicate_raw(&raw(pgn), event, &Settings::default()).expect("replays")
    }

    /// FIDE 6.9: Black's flag fell, but White has only a king: drawn, and a "1-0" tag disagrees.
    #[test]
    fn flag_fall_with_a_lone_king_winner_is_a_draw() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n[FEN \"4k3/8/8/8/8/8/4p3/K7 w - - 0 1\"]\n\n1. Kb1 Kd7 1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1/2-1/2", "6.9")
        );
        assert_eq!(v.event.map(|e| e.kind()), Some(v1::GameEventKind::FlagFall));
        assert!(
            v.explanation.contains("White cannot checkmate"),
            "{}",
            v.explanation
        );
        assert!(v.disagreement);
        assert!(
            v.disagreement_reason
                .starts_with("the Result tag says 1-0, but the rules say 1/2-1/2")
        );
    }

    /// FIDE 6.9: chess.com writes time losses as free text; they are flag falls, not
    /// resignations, and a drawn one is the flag of the side to move against a side that cannot
    /// mate.
    #[test]
    fn chess_com_time_losses_are_flag_falls() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"MagnusCarlsen won on time\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "6.9")
        );
        assert_eq!(v.event.map(|e| e.kind()), Some(v1::GameEventKind::FlagFall));
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::Black));
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[Termination \"Game drawn by timeout vs insufficient material\"]\n[FEN \"4k3/8/8/8/8/8/3QK3/8 b - - 0 1\"]\n\n1... Kf7 2. Qd5+ 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        // Black (to move) lost on time, but White has a queen: White wins, and the tag disagrees.
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "6.9")
        );
        assert!(v.disagreement);
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[Termination \"Game drawn by timeout vs insufficient material\"]\n[FEN \"4k3/8/8/8/8/8/r7/4K3 b - - 0 1\"]\n\n1... Kf7 2. Kd1 1/2-1/2",
            None,
        );
        // Black (to move) lost on time against a lone king: drawn.
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1/2-1/2", "6.9")
        );
        assert!(!v.disagreement);
    }

    /// FIDE 5.1.1, 5.2.1: moves a score sheet lists after checkmate or stalemate cannot be
    /// played; the game is reported with its ending and the moves as played after the end.
    #[test]
    fn moves_after_checkmate_or_stalemate_are_counted_not_refused() {
        let v = verdict("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 3. a3 a6 0-1", None);
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("0-1", "5.1.1", 4)
        );
        assert_eq!((v.ply_count, v.plies_after_end), (6, 2));
        assert!(
            v.explanation
                .ends_with("; 2 plies were played after the end of the game"),
            "{}",
            v.explanation
        );
        assert!(!v.disagreement);
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n\n1. Qf7 Kh7 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.1", 1)
        );
        assert_eq!((v.ply_count, v.plies_after_end), (2, 1));
        // Before the end, a move that cannot be played is still an error.
        let error = adjudicate_raw(
            &raw("[Result \"*\"]\n\n1. f3 e5 2. g4 Qh5 3. a3 *"),
            None,
            &Settings::default(),
        );
        assert!(error.is_err());
    }

    /// FIDE 5.1.2: a decisive result with a "Normal" termination is the loser's resignation.
    #[test]
    fn resignation_is_a_loss() {
        let v = verdict(
            "[Result \"0-1\"]\n[Termination \"Normal\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("0-1", "5.1.2")
        );
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::White));
        assert!(!v.disagreement);
        assert_eq!(v.declared_result, "0-1");
    }

    /// FIDE 7.5.5: a second illegal move (given by the caller) loses; the tag agrees.
    #[test]
    fn second_illegal_move_loses() {
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 1-0",
            Some(GameEvent::SecondIllegalMove(Color::Black)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("1-0", "7.5.5")
        );
        assert!(!v.disagreement);
    }

    /// A draw the rules do not explain is an agreement; stalemate beats a "1-0" tag.
    #[test]
    fn draws_and_stalemate() {
        let v = verdict("[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2", None);
        assert_eq!(v.outcome.expect("outcome").fide_article, "5.2.3");
        let v = verdict(
            "[Result \"1-0\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]\n\n1. Qf7 1-0",
            None,
        );
        assert_eq!(v.outcome.expect("outcome").fide_article, "5.2.1");
        assert!(v.disagreement);
        assert!(v.event.is_none());
    }

    /// FIDE 9.6.2 with 6.9 (issue 11): Black's only move Kg8 is the 150th half-move without a
    /// capture or pawn move, so the game would end drawn there and White cannot checkmate; a
    /// "1-0" tag for Black's flag fall disagrees with the draw.
    #[test]
    fn pgn_flag_fall_cannot_mate_through_75_move_rule() {
        let v = verdict(
            "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n[FEN \"7k/8/2R3K1/8/8/8/8/8 b - - 149 100\"]\n\n1-0",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "6.9", 0)
        );
        assert_eq!(v.event.map(|e| e.side()), Some(v1::Color::Black));
        assert!(v.evidence.is_empty());
        assert!(v.explanation.contains("9.6.2"), "{}", v.explanation);
        assert!(v.explanation.contains("ply 1"), "{}", v.explanation);
        assert!(v.disagreement);
    }

    /// FIDE 5.2.2 (issue 11): after Qf6+ White's only reply Nxf6 stalemates Black, so the
    /// position is dead at ply 1; the recorded Nxf6 is a ply played after the end, and the
    /// "0-1" of a flag fall the tag implies changes nothing.
    #[test]
    fn pgn_forced_stalemate_is_a_dead_position_at_its_ply() {
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"4NK1k/8/8/1P6/8/2q5/8/8 b - - 0 1\"]\n\n1... Qf6+ 2. Nxf6 1/2-1/2",
            None,
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.2", 1)
        );
        assert_eq!(v.plies_after_end, 1);
        let v = verdict(
            "[Result \"0-1\"]\n[FEN \"4NK1k/8/8/1P6/8/2q5/8/8 b - - 0 1\"]\n\n1... Qf6+ 0-1",
            Some(GameEvent::FlagFall(Color::White)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.2", 1)
        );
        assert!(v.disagreement);
    }

    /// Chess960 (issue 11, chess960-chesscom-daily-2011-2013.pgn game 193): the analyzer's mating
    /// line starts with White's O-O-O, written e1c1 by the analyzer and e1a1 by arbiter; the
    /// resignation is a loss with that line as evidence, not "undetermined" (FIDE 5.1.2).
    #[test]
    fn pgn_chess960_resignation_evidence_starts_with_analyzer_castling() {
        let v = verdict(
            "[Result \"0-1\"]\n[Variant \"Chess960\"]\n[FEN \"rq1n4/7p/1p1p1k1b/1BpQpp2/2P5/5P2/PP1P1BrP/R3K2R w KQ - 2 17\"]\n\n0-1",
            Some(GameEvent::Resignation(Color::White)),
        );
        let o = v.outcome.expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str()),
            ("0-1", "5.1.2")
        );
        assert!(!v.undetermined, "{}", v.explanation);
        let first = &v.evidence[0];
        assert_eq!((first.san.as_str(), first.uci.as_str()), ("O-O-O", "e1a1"));
        assert_eq!(v.evidence.last().map(|m| m.san.as_str()), Some("Nc3#"));
    }

    fn warnings(v: &v1::AdjudicateGameResponse) -> Vec<(&str, u32, u32)> {
        v.warnings
            .iter()
            .map(|w| (w.code.as_str(), w.ply, w.line))
            .collect()
    }

    /// FIDE 5.2.3 (issue 11 item 5): a draw agreed after White's first move only keeps its
    /// result, but disagrees citing 5.2.3, with a warning at the ply of the agreement.
    #[test]
    fn pgn_agreed_draw_before_one_move_each_disagrees_citing_5_2_3() {
        let v = verdict("[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2", None);
        let o = v.outcome.as_ref().expect("outcome");
        assert_eq!(
            (o.result_text.as_str(), o.fide_article.as_str(), o.ply),
            ("1/2-1/2", "5.2.3", 1)
        );
        assert!(v.disagreement);
        assert_eq!(
            v.disagreement_reason,
            "the Result tag says 1/2-1/2, but a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply 1"
        );
        assert_eq!(warnings(&v), [("early_agreed_draw", 1, 3)]);
        assert_eq!(v.laws, "FIDE Laws of Chess, 2023");
        // No move at all, and a start position past move 1 (no warning).
        // Issue 11, a fresh user's finding: its line was 0; it is the Result tag's.
        let v = verdict("[Result \"1/2-1/2\"]\n\n1/2-1/2", None);
        assert_eq!(warnings(&v), [("early_agreed_draw", 0, 1)]);
        assert!(v.disagreement);
        // The caller's agreed draw on a record without a result: the rule alone.
        let v = verdict("1. e4 *", Some(GameEvent::AgreedDraw));
        assert_eq!(
            v.disagreement_reason,
            "a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply 1"
        );
        let v = verdict(
            "[Result \"1/2-1/2\"]\n[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"]\n\n1/2-1/2",
            None,
        );
        assert!(warnings(&v).is_empty(), "{:?}", v.warnings);
        assert!(!v.disagreement);
    }

    /// Issue 11, a fresh user's finding: without a `Result` tag, a movetext ending `0-1` was
    /// the declared result but inferred no event (`*`, "the Result tag says 0-1" though there
    /// is none). The marker declares the result when the tag is missing: a resignation (5.1.2),
    /// and a disagreement names the marker.
    #[test]
    fn r_the_termination_marker_declares_the_result_when_the_tag_is_missing() {
        let v = verdict("[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n", None);
        let outcome = v.outcome.as_ref().expect("ended");
        assert_eq!(outcome.result_text, "0-1", "{}", v.explanation);
        assert_eq!(outcome.termination(), v1::Termination::Resignation);
        assert_eq!(outcome.fide_article, "5.1.2");
        assert!(!v.disagreement, "{}", v.disagreement_reason);
        assert_eq!(v.declared_result, "0-1");
        let v = verdict("[Event \"x\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n", None);
        assert!(v.disagreement);
        assert!(
            v.disagreement_reason
                .starts_with("the termination marker says 1-0, but the rules say 0-1"),
            "{}",
            v.disagreement_reason
        );
        // An empty Result tag (a fresh user's finding: "the Result tag says  but ...") is
        // missing: the marker declares, and no mismatch is warned.
        let v = verdict("[Result \"\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n", None);
        assert_eq!(v.declared_result, "0-1");
        assert!(!v.disagreement, "{}", v.disagreement_reason);
        assert!(warnings(&v).is_empty(), "{:?}", v.warnings);
    }

    /// PGN standard 8.2.6 (issue 11 item 5): a movetext without a termination marker may be
    /// truncated, and a Result tag that contradicts the marker is used; each warning says which
    /// value was used.
    #[test]
    fn pgn_truncated_game_and_result_tag_against_marker_say_which_value_was_used() {
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5\n2. Qh5 Nc6\n", None);
        assert_eq!(warnings(&v), [("truncated_game", 0, 4)]);
        assert_eq!(
            v.warnings[0].message,
            "the movetext ends without a termination marker (PGN standard 8.2.6), so the game may be truncated: the Result tag 1-0 was used"
        );
        assert_eq!(v.declared_result, "1-0");
        let v = verdict(
            "[Event \"E\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 0-1",
            None,
        );
        assert_eq!(warnings(&v), [("result_mismatch", 0, 2)]);
        assert_eq!(
            v.warnings[0].message,
            "the Result tag says 1-0 but the movetext ends with 0-1 (PGN standard 8.2.6 says they agree): the Result tag was used"
        );
        assert_eq!(v.declared_result, "1-0");
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0", None);
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// The tolerant SAN reader drops `+`/`#` (issue 11 item 5): a suffix the position does not
    /// bear out is a warning at the move's ply and line.
    #[test]
    fn pgn_wrong_check_suffix_is_warned_at_its_ply_and_line() {
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4+ e5 2. Bc4 Nc6\n3. Qh5# Nf6 4. Qxf7+ 1-0",
            None,
        );
        assert_eq!(v.outcome.as_ref().expect("outcome").fide_article, "5.1.1");
        assert_eq!(
            warnings(&v),
            [
                ("wrong_check_suffix", 1, 3),
                ("wrong_check_suffix", 5, 4),
                ("wrong_check_suffix", 7, 4)
            ]
        );
        assert_eq!(
            v.warnings[0].message,
            "line 3:4: ply 1 (e4+): the move gives no check, so it should have no suffix, not '+'; the move was read without it"
        );
        assert!(
            v.warnings[2]
                .message
                .contains("checkmates, so it should have '#'")
        );
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#! 1-0",
            None,
        );
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// Whether a suffixed check mates is settled by the move after it (played: not mate) or, for
    /// the last move, by the position at the end (no legal move: mate), the same answers as
    /// asking at once (issue 11's cost limit moved the question).
    #[test]
    fn a_suffixed_check_is_settled_by_the_next_move_or_at_the_end() {
        let message = |v: &v1::AdjudicateGameResponse| v.warnings[0].message.clone();
        // `#` on a check the next move answers.
        let v = verdict(
            "[Result \"*\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7# Kxf7 *",
            None,
        );
        assert_eq!(warnings(&v), [("wrong_check_suffix", 5, 3)]);
        assert!(message(&v).contains("(Qxf7#): the move gives check but not checkmate"));
        // `#` on a check that is the last move.
        let v = verdict("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7# 1-0", None);
        assert_eq!(warnings(&v), [("wrong_check_suffix", 5, 3)]);
        assert!(message(&v).contains("gives check but not checkmate"));
        // `+` on a mate after which a move is still listed.
        let v = verdict("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4+ 3. a3 0-1", None);
        assert_eq!(
            warnings(&v),
            [("wrong_check_suffix", 4, 3), ("moves_after_end", 5, 3)]
        );
        assert!(message(&v).contains("(Qh4+): the move checkmates, so it should have '#'"));
        // Right suffixes, a check in the middle and a mate at the end: no warning.
        let v = verdict(
            "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Kxf7 4. d4 Qh4 5. g3 Qxh2 6. Rxh2 Nf6 7. Bc4+ d5 8. Bxd5+ Kg6 1-0",
            None,
        );
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    /// FIDE 5.1.1 (issue 11 item 5): moves after the checkmate are a warning at the first of
    /// them, with its line, not only a count.
    #[test]
    fn pgn_moves_after_checkmate_are_warned_with_ply_and_line() {
        let v = verdict(
            "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4#\n3. a3 a6 0-1",
            None,
        );
        assert_eq!(v.plies_after_end, 2);
        assert_eq!(warnings(&v), [("moves_after_end", 5, 4)]);
    }

    /// Issue 11 items 3-4 with 5: the reader's repeated_tag and skipped_glyph warnings reach
    /// the verdict, with their lines and, for a glyph, the ply of the move it follows (a fresh
    /// user's finding: it was 0).
    #[test]
    fn r_glyph_warnings_had_ply_0_instead_of_the_move_they_follow() {
        let v = verdict(
            "[Result \"1-0\"]\n[White \"A\"]\n[White \"B\"]\n\n1. e4 \u{2a00} e5 2. Qh5 Nc6 1-0",
            None,
        );
        assert_eq!(
            warnings(&v),
            [("repeated_tag", 0, 3), ("skipped_glyph", 1, 5)]
        );
    }

    /// Issue 11 item 5: at most 32 warnings per game, the rest counted.
    #[test]
    fn warnings_are_bounded_to_32_with_a_count_of_the_rest() {
        let moves = "Nf3+ Nf6+ Ng1+ Ng8+ ".repeat(10);
        let v = verdict(&format!("[Result \"*\"]\n\n{moves}*"), None);
        assert_eq!(v.warnings.len(), 32);
        assert_eq!(v.warnings_omitted, 9);
        assert_eq!(warnings(&v)[31], ("wrong_check_suffix", 32, 3));
    }

    /// An illegal move is reported with its line:column and ply.
    #[test]
    fn illegal_move_has_its_place() {
        let error = adjudicate_raw(&raw("1. e4 e5 2. Ke3 *"), None, &Settings::default())
            .expect_err("illegal");
        let wire = convert::pgn_error_to_wire(&error, "pgn");
        assert_eq!((wire.line, wire.column, wire.ply), (1, 13, 3));
        assert_eq!(wire.reason, "ILLEGAL_MOVE");
        assert_eq!(wire.r#move, "Ke3");
    }
}
