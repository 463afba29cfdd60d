//! Conversions between the wire messages of [`crate::v1`] and the types of `arbiter-rules`.
//!
//! Reading is where wire errors are made: every function that reads a request part takes the
//! field path of that part (for example `"position"` or `"game.start"`) and returns a
//! [`ConvertError`] naming the offending field (`"position.fen"`, `"moves[3]"`,
//! `"position.board.pieces[\"z9\"]"`) and the reason. [`ConvertError`] turns into an
//! `INVALID_ARGUMENT` [`tonic::Status`] with `google.rpc.BadRequest` and `google.rpc.ErrorInfo`
//! details.

use std::{collections::HashMap, fmt::Write as _};

use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, CastlingRight, Claim, ClaimKind, Color,
    FenError, FenOptions, File, Game, GameEvent, GameOver, GameResult, Move, MoveError, MoveKind,
    NextMoveError, Outcome, Piece, PlyError, Position, PositionError, Role, SanLanguage, SanMode,
    Setup, SetupField, Square, Status, Termination, Validation,
};
use tonic::Code;
use tonic_types::{ErrorDetails, FieldViolation, StatusExt as _};

use crate::v1;

mod enums;
mod games;
mod incidents;
mod moves;
mod pgn;
mod positions;

pub use enums::*;
pub use games::*;
pub use incidents::*;
pub use moves::*;
pub use pgn::*;
pub use positions::*;

/// The `google.rpc.ErrorInfo` domain of errors made by this crate.
pub const ERROR_DOMAIN: &str = "arbiter.v1";

/// Machine-readable category of a [`ConvertError`], sent as the `google.rpc.ErrorInfo` reason and
/// the field violation reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorReason {
    /// A required field is absent or empty.
    MissingField,
    /// A field has a value outside its domain (unknown enum value, bad square name, ...).
    InvalidValue,
    /// A position is not a legal chess position (bad FEN or board).
    InvalidPosition,
    /// A move is not legal, or not a move at all, in the position it is played in.
    IllegalMove,
    /// A size limit is exceeded (too many moves, too long a text).
    LimitExceeded,
    /// A PGN text is not PGN (syntax), or names a variant that is not supported.
    InvalidPgn,
}

impl ErrorReason {
    /// The SCREAMING_SNAKE_CASE name sent on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorReason::MissingField => "MISSING_FIELD",
            ErrorReason::InvalidValue => "INVALID_VALUE",
            ErrorReason::InvalidPosition => "INVALID_POSITION",
            ErrorReason::IllegalMove => "ILLEGAL_MOVE",
            ErrorReason::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorReason::InvalidPgn => "INVALID_PGN",
        }
    }
}

/// A request field that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ConvertError {
    /// Path of the offending field in the request, e.g. `moves[3]` or `position.fen`.
    pub field: String,
    /// Why the field cannot be used, e.g. `ply 4 (Nf3): no knight can move to f3`.
    pub reason: String,
    /// Machine-readable category.
    pub kind: ErrorReason,
    /// Extra facts for `google.rpc.ErrorInfo` metadata (e.g. `ply`, `index`, `move`).
    pub metadata: Vec<(String, String)>,
}

impl ConvertError {
    /// The same error on `field` instead: for callers that name the field only once they know
    /// there is an error (writing a field path for every item of a list costs more than the item).
    #[must_use]
    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = field.into();
        self
    }

    /// An error of `kind` on `field`.
    #[must_use]
    pub fn new(field: impl Into<String>, kind: ErrorReason, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
            kind,
            metadata: Vec::new(),
        }
    }

    /// A required field that is absent.
    #[must_use]
    pub fn missing(field: impl Into<String>, what: &str) -> Self {
        Self::new(
            field,
            ErrorReason::MissingField,
            format!("{what} is required"),
        )
    }

    /// The value of the metadata entry `key` (the first, if added twice), `None` without one.
    #[must_use]
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Adds the stable `cause` of a refused move or position and its FIDE `article` (when one
    /// applies) to the `google.rpc.ErrorInfo` metadata.
    #[must_use]
    pub fn with_cause(self, cause: &str, article: Option<&str>) -> Self {
        let with = self.with_metadata("cause", cause);
        match article {
            Some(article) => with.with_metadata("article", article),
            None => with,
        }
    }

    /// Adds a metadata entry for `google.rpc.ErrorInfo`.
    #[must_use]
    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> Self {
        self.metadata.push((key.to_owned(), value.into()));
        self
    }

    /// The `INVALID_ARGUMENT` status: message `"<field>: <reason>"`, a `google.rpc.BadRequest`
    /// with one field violation, and a `google.rpc.ErrorInfo` with the reason and metadata.
    #[must_use]
    pub fn to_status(&self) -> tonic::Status {
        let mut violation = FieldViolation::new(self.field.clone(), self.reason.clone());
        violation.reason = self.kind.as_str().to_owned();
        let mut details = ErrorDetails::with_bad_request(vec![violation]);
        let mut metadata: HashMap<String, String> = self.metadata.iter().cloned().collect();
        metadata.insert("field".to_owned(), self.field.clone());
        details.set_error_info(self.kind.as_str(), ERROR_DOMAIN, metadata);
        tonic::Status::with_error_details(Code::InvalidArgument, self.to_string(), details)
    }
}

impl From<ConvertError> for tonic::Status {
    fn from(error: ConvertError) -> Self {
        error.to_status()
    }
}

/// Joins a parent field path and a child field name: `join("game", "start")` is `game.start`,
/// `join("", "moves")` is `moves`.
#[must_use]
pub fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

/// At most `max` characters of `text`, for echoing caller input in messages.
fn clip(text: &str, max: usize) -> String {
    let mut clipped: String = text.chars().take(max).collect();
    if text.chars().nth(max).is_some() {
        clipped.push('…');
    }
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> v1::Position {
        v1::Position {
            kind: Some(v1::position::Kind::Fen(text.to_owned())),
            ..v1::Position::default()
        }
    }

    #[test]
    fn missing_position_names_the_field() {
        let error = position_from_wire(None, "position").unwrap_err();
        assert_eq!(error.field, "position");
        assert_eq!(error.kind, ErrorReason::MissingField);
    }

    #[test]
    fn bad_fen_names_the_fen_field() {
        let error =
            position_from_wire(Some(&fen("8/8/8/8/8/8/8/8 w - - 0 1")), "position").unwrap_err();
        assert_eq!(error.field, "position.fen");
        assert_eq!(error.kind, ErrorReason::InvalidPosition);
        assert!(error.reason.contains("king"), "{}", error.reason);
    }

    /// Issue 12 items 1-2: a position the rules refuse carries its typed cause and article in
    /// the ErrorInfo metadata, whether sent as FEN or as a board (which no longer goes through
    /// FEN text); FEN syntax errors carry none.
    #[test]
    fn invalid_positions_carry_their_cause_and_article() {
        let meta = |error: &ConvertError| {
            let get = |key| error.metadata_value(key).map(str::to_owned);
            (error.field.clone(), get("cause"), get("article"))
        };
        let error =
            position_from_wire(Some(&fen("8/8/8/8/8/8/8/8 w - - 0 1")), "position").unwrap_err();
        assert_eq!(
            meta(&error),
            (
                "position.fen".to_owned(),
                Some("KING_COUNT".to_owned()),
                Some("2.2".to_owned())
            )
        );
        let error =
            position_from_wire(Some(&fen("8/8/8/8/8/8/8/8 x - - 0 1")), "position").unwrap_err();
        assert_eq!(meta(&error), ("position.fen".to_owned(), None, None));
        let mut board = board_to_wire(&Position::startpos());
        board.en_passant_square = "e6".to_owned();
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(
            meta(&error),
            (
                "position.board.en_passant_square".to_owned(),
                Some("EN_PASSANT_WITHOUT_DOUBLE_STEP".to_owned()),
                Some("3.7.3.1".to_owned())
            )
        );
        assert_eq!(
            error.reason,
            "en passant square e6 is not behind a pawn that just made a double step"
        );
    }

    #[test]
    fn startpos_shorthand_and_board_round_trip() {
        let position = position_from_wire(Some(&fen("startpos")), "position").unwrap();
        let board = board_to_wire(&position);
        assert_eq!(board.pieces.len(), 32);
        let castling = board.castling.clone().unwrap();
        assert!(castling.white_king_side && castling.black_queen_side);
        let again = board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap();
        assert_eq!(again.to_fen(), position.to_fen());
    }

    #[test]
    fn board_errors_name_the_entry() {
        let mut board = board_to_wire(&Position::startpos());
        board.pieces.insert(
            "z9".to_owned(),
            v1::Piece {
                color: v1::Color::White.into(),
                role: v1::Role::Queen.into(),
            },
        );
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.pieces[\"z9\"]");

        let mut board = board_to_wire(&Position::startpos());
        board.side_to_move = 0;
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.side_to_move");

        let mut board = board_to_wire(&Position::startpos());
        board.pieces.remove("h1");
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
        assert_eq!(error.field, "position.board.castling");

        // The entry's field is written only on error, and then names the piece's own field.
        for (color, role, field) in [
            (0, i32::from(v1::Role::Queen), "color"),
            (i32::from(v1::Color::Black), 99, "role"),
        ] {
            let mut board = board_to_wire(&Position::startpos());
            board
                .pieces
                .insert("e4".to_owned(), v1::Piece { color, role });
            let error =
                board_from_wire_in(&board, "position.board", CastlingMode::Standard).unwrap_err();
            assert_eq!(
                error.field,
                format!("position.board.pieces[\"e4\"].{field}")
            );
        }
    }

    /// Issue 13 sorts the listed moves by a numeric key of their UCI text instead of comparing
    /// strings: the order must stay the text's, with promotions (`a7a8` before its letters)
    /// and Chess960 castling (king takes rook) included.
    #[test]
    fn legal_moves_are_in_the_order_of_their_uci_text() {
        for (fen, mode) in [
            (
                "1n5k/P7/8/8/8/8/7P/R3K2R w KQ - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
                CastlingMode::Chess960,
            ),
        ] {
            let position = Position::from_fen_with(
                fen,
                arbiter_rules::FenOptions {
                    mode,
                    validation: arbiter_rules::Validation::STRICT,
                },
            )
            .expect("valid");
            let moves = legal_moves_to_wire_in(&position, SanLanguage::English);
            let texts: Vec<&str> = moves.iter().map(|mv| mv.uci.as_str()).collect();
            let mut sorted = texts.clone();
            sorted.sort_unstable();
            assert_eq!(texts, sorted, "{fen}");
            assert!(
                texts.len() > 20 && texts.iter().any(|uci| uci.len() == 5),
                "{fen}"
            );
        }
    }

    #[test]
    fn moves_carry_every_notation() {
        let start = Position::startpos();
        let moves = legal_moves_to_wire_in(&start, SanLanguage::English);
        assert_eq!(moves.len(), 20);
        assert!(moves.windows(2).all(|pair| pair[0].uci < pair[1].uci));
        let e4 = moves.iter().find(|mv| mv.uci == "e2e4").unwrap();
        assert_eq!(e4.san, "e4");
        assert_eq!((e4.from.as_str(), e4.to.as_str()), ("e2", "e4"));
        assert_eq!(e4.piece.unwrap().role, i32::from(v1::Role::Pawn));
    }

    #[test]
    fn illegal_ply_is_pinpointed() {
        let moves: Vec<String> = ["e4", "e5", "Nf3", "Nf3"]
            .iter()
            .map(|m| (*m).to_owned())
            .collect();
        let error = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[3]");
        assert!(
            error.reason.starts_with("ply 4 (Nf3): "),
            "{}",
            error.reason
        );
        let status = error.to_status();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("ply 4"));
        let details = status.get_error_details();
        let violation = &details.bad_request().unwrap().field_violations[0];
        assert_eq!(violation.field, "moves[3]");
        assert_eq!(violation.reason, "ILLEGAL_MOVE");
        let info = details.error_info().unwrap();
        assert_eq!(info.metadata.get("ply").map(String::as_str), Some("4"));
    }

    #[test]
    fn scholars_mate_is_checkmate() {
        let moves: Vec<String> = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7"]
            .iter()
            .map(|m| (*m).to_owned())
            .collect();
        let (game, played) = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::English,
        )
        .unwrap();
        let last = played.last().unwrap();
        assert_eq!(last.san, "Qxf7#");
        assert!(last.is_checkmate && last.is_check);
        assert_eq!(last.captured, i32::from(v1::Role::Pawn));
        assert!(status_to_wire(game.position()).is_checkmate);
    }

    #[test]
    fn move_limit_is_enforced() {
        let moves = vec!["e4".to_owned(); 3];
        let error = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            2,
            AnalysisBudget::Material,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves");
        assert_eq!(error.kind, ErrorReason::LimitExceeded);
    }

    const BUDGET: AnalysisBudget = AnalysisBudget::Fast;

    fn claim() -> AdjudicationRequest {
        AdjudicationRequest {
            claim_draw: true,
            ..AdjudicationRequest::default()
        }
    }

    fn game(moves: &[&str]) -> v1::Game {
        v1::Game {
            start: None,
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    #[test]
    fn fools_mate_is_adjudicated() {
        let played = game_from_wire_in(
            &game(&["f3", "e7e5", "g4", "Qh4#"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap();
        let response = adjudicate(&played, &AdjudicationRequest::default());
        let outcome = response.outcome.unwrap();
        assert_eq!(outcome.result, i32::from(v1::Result::BlackWins));
        assert_eq!(outcome.termination, i32::from(v1::Termination::Checkmate));
        assert_eq!(outcome.fide_article, "5.1.1");
        assert_eq!(outcome.ply, 4);
        assert_eq!(outcome.result_text, "0-1");
        // FIDE 5.1.1: a move listed after the mate is counted as played after the end.
        let played = game_from_wire_in(
            &game(&["f3", "e7e5", "g4", "Qh4#", "a3"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap();
        let response = adjudicate(&played, &AdjudicationRequest::default());
        assert_eq!(response.outcome.unwrap().ply, 4);
        assert_eq!((response.ply_count, response.plies_after_end), (5, 1));
    }

    #[test]
    fn game_move_errors_name_the_ply() {
        let error = game_from_wire_in(
            &game(&["e4", "e5", "Ke3"]),
            "game",
            100,
            BUDGET,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "game.moves[2]");
        assert!(
            error.reason.starts_with("ply 3 (Ke3): "),
            "{}",
            error.reason
        );
    }

    #[test]
    fn threefold_claim_is_offered_and_applied() {
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
        let played =
            game_from_wire_in(&game(&moves), "game", 100, BUDGET, SanLanguage::English).unwrap();
        let open = adjudicate(&played, &AdjudicationRequest::default());
        assert_eq!(open.outcome.unwrap().result, i32::from(v1::Result::Ongoing));
        assert!(open.claims.iter().any(|c| c.claimable_now
            && c.kind == i32::from(v1::ClaimKind::ThreefoldRepetition)
            && c.fide_article == "9.2"));
        let claimed = adjudicate(&played, &claim()).outcome.unwrap();
        assert_eq!(claimed.result, i32::from(v1::Result::Draw));
        assert_eq!(
            claimed.termination,
            i32::from(v1::Termination::ThreefoldRepetition)
        );
    }

    #[test]
    fn claim_by_move_names_the_move() {
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
        let played =
            game_from_wire_in(&game(&moves), "game", 100, BUDGET, SanLanguage::English).unwrap();
        let response = adjudicate(&played, &claim());
        assert_eq!(
            response.outcome.unwrap().result,
            i32::from(v1::Result::Ongoing)
        );
        let by_move = response
            .claims
            .iter()
            .find(|c| !c.claimable_now)
            .and_then(|c| c.r#move.as_ref())
            .unwrap();
        assert_eq!(by_move.san, "Ng8");
    }

    #[test]
    fn flag_fall_against_a_lone_king_is_a_draw() {
        let start = fen("8/8/4k3/8/8/4K3/8/q7 w - - 0 1");
        let game = v1::Game {
            start: Some(start),
            moves: Vec::new(),
        };
        let played = game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::English).unwrap();
        let event = event_from_wire(
            Some(&v1::GameEvent {
                kind: v1::GameEventKind::FlagFall.into(),
                side: v1::Color::Black.into(),
            }),
            "event",
        )
        .unwrap();
        let request = AdjudicationRequest {
            event,
            ..AdjudicationRequest::default()
        };
        let response = adjudicate(&played, &request);
        let outcome = response.outcome.unwrap();
        assert_eq!(
            outcome.result,
            i32::from(v1::Result::Draw),
            "{}",
            response.explanation
        );
        assert_eq!(outcome.termination, i32::from(v1::Termination::FlagFall));
        assert_eq!(outcome.fide_article, "6.9");
    }

    fn chess960(kind: v1::position::Kind) -> v1::Position {
        v1::Position {
            kind: Some(kind),
            variant: v1::Variant::Chess960.into(),
        }
    }

    fn texts(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| (*m).to_owned()).collect()
    }

    const SHREDDER: Notation = Notation {
        language: SanLanguage::English,
        shredder: true,
    };

    #[test]
    fn chess960_start_positions_by_number() {
        let number = |n: u32, variant: v1::Variant| v1::Position {
            kind: Some(v1::position::Kind::Chess960Number(n)),
            variant: variant.into(),
        };
        let zero =
            position_from_wire(Some(&number(0, v1::Variant::Unspecified)), "position").unwrap();
        assert_eq!(zero.castling_mode(), CastlingMode::Chess960);
        assert_eq!(
            zero.to_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(
            SHREDDER.fen(&zero),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"
        );
        let standard = position_from_wire(Some(&number(518, v1::Variant::Chess960)), "p").unwrap();
        assert_eq!(
            standard.to_fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(standard.chess960_number(), Some(518));

        let error = position_from_wire(Some(&number(960, v1::Variant::Unspecified)), "game.start")
            .unwrap_err();
        assert_eq!(error.field, "game.start.chess960_number");
        assert_eq!(error.kind, ErrorReason::InvalidValue);
        assert!(error.reason.contains("0 to 959"), "{}", error.reason);

        let error =
            position_from_wire(Some(&number(5, v1::Variant::Standard)), "position").unwrap_err();
        assert_eq!(error.field, "position.variant");
        let bad_variant = v1::Position {
            kind: Some(v1::position::Kind::Fen("startpos".to_owned())),
            variant: 9,
        };
        let error = position_from_wire(Some(&bad_variant), "position").unwrap_err();
        assert_eq!(error.field, "position.variant");
    }

    #[test]
    fn chess960_fen_reads_x_fen_and_shredder_fen() {
        let x_fen = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1";
        let shredder = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1";
        for text in [x_fen, shredder] {
            let wire = chess960(v1::position::Kind::Fen(text.to_owned()));
            let position = position_from_wire(Some(&wire), "position").unwrap();
            assert_eq!(Notation::default().fen(&position), x_fen);
            assert_eq!(SHREDDER.fen(&position), shredder);
        }
        // Standard chess cannot read it, and says which variant can.
        let error = position_from_wire(Some(&fen(shredder)), "position").unwrap_err();
        assert_eq!(error.field, "position.fen");
        assert!(
            error
                .reason
                .contains("set position.variant to VARIANT_CHESS960"),
            "{}",
            error.reason
        );
        // Shredder-FEN never changes standard chess.
        assert_eq!(
            SHREDDER.fen(&Position::startpos()),
            Position::startpos().to_fen()
        );
        // No position but a variant: the initial position under those rules.
        let empty = v1::Position {
            kind: None,
            variant: v1::Variant::Chess960.into(),
        };
        let start = optional_position_from_wire(Some(&empty), "position").unwrap();
        assert_eq!(start.castling_mode(), CastlingMode::Chess960);
        assert_eq!(SHREDDER.fen(&start).split(' ').nth(2), Some("HAha"));
    }

    #[test]
    fn chess960_board_carries_rook_files_both_ways() {
        let position = Position::chess960(0).unwrap();
        let board = board_to_wire(&position);
        let castling = board.castling.clone().unwrap();
        assert!(castling.white_king_side && castling.black_queen_side);
        assert_eq!(castling.white_king_side_rook_file, "h");
        assert_eq!(castling.white_queen_side_rook_file, "f");
        assert_eq!(castling.black_king_side_rook_file, "h");
        assert_eq!(castling.black_queen_side_rook_file, "f");
        let again = board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap();
        assert_eq!(again.to_fen(), position.to_fen());

        // A file alone grants the right; a right alone means the outermost rook.
        let mut board = board.clone();
        board.castling = Some(v1::CastlingRights {
            white_king_side_rook_file: "h".to_owned(),
            black_queen_side: true,
            ..v1::CastlingRights::default()
        });
        let read = board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap();
        assert_eq!(SHREDDER.fen(&read).split(' ').nth(2), Some("Hf"));

        // A file on the wrong side of the king, and a bad file, name their field.
        board.castling = Some(v1::CastlingRights {
            white_queen_side_rook_file: "h".to_owned(),
            ..v1::CastlingRights::default()
        });
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap_err();
        assert_eq!(
            error.field,
            "position.board.castling.white_queen_side_rook_file"
        );
        board.castling = Some(v1::CastlingRights {
            black_king_side_rook_file: "z".to_owned(),
            ..v1::CastlingRights::default()
        });
        let error =
            board_from_wire_in(&board, "position.board", CastlingMode::Chess960).unwrap_err();
        assert_eq!(
            error.field,
            "position.board.castling.black_king_side_rook_file"
        );
        assert_eq!(error.kind, ErrorReason::InvalidValue);

        // Standard chess writes no files.
        let standard = board_to_wire(&Position::startpos()).castling.unwrap();
        assert!(standard.white_king_side_rook_file.is_empty());
    }

    #[test]
    fn chess960_castling_is_king_takes_rook_in_uci_and_o_o_in_san() {
        let wire = chess960(v1::position::Kind::Fen(
            "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1".to_owned(),
        ));
        let position = position_from_wire(Some(&wire), "position").unwrap();
        let moves = legal_moves_to_wire_in(&position, SanLanguage::English);
        let castles: Vec<(&str, &str, &str)> = moves
            .iter()
            .filter(|mv| mv.is_castle)
            .map(|mv| (mv.uci.as_str(), mv.san.as_str(), mv.to.as_str()))
            .collect();
        assert_eq!(castles, [("f1b1", "O-O-O", "c1"), ("f1g1", "O-O", "g1")]);

        let (after, played) = play_moves_in(
            position,
            &texts(&["O-O", "f8b8"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::English,
        )
        .unwrap();
        assert_eq!(played[0].uci, "f1g1");
        assert_eq!(played[1].san, "O-O-O");
        assert_eq!(
            Notation::default().fen(after.position()),
            "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2"
        );
        // The standard spelling of a king's two-square step is no castling in Chess960.
        let error = play_moves_in(
            position_from_wire(Some(&wire), "position").unwrap(),
            &texts(&["f1d1"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::English,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[0]");
    }

    #[test]
    fn san_is_read_and_written_in_the_request_language() {
        let moves = texts(&["e4", "e5", "Cf3", "Cc6", "Ab5", "a6", "Axc6", "dxc6", "O-O"]);
        let (_, played) = play_moves_in(
            Position::startpos(),
            &moves,
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::Spanish,
        )
        .unwrap();
        let sans: Vec<&str> = played.iter().map(|mv| mv.san.as_str()).collect();
        assert_eq!(sans, moves);
        assert_eq!(played[2].uci, "g1f3");

        // UCI is read in every language; English letters are not Spanish.
        let (_, played) = play_moves_in(
            Position::startpos(),
            &texts(&["g1f3", "Cc6"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::Spanish,
        )
        .unwrap();
        assert_eq!(played[0].san, "Cf3");
        let error = play_moves_in(
            Position::startpos(),
            &texts(&["e4", "e5", "Nf3"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::Spanish,
        )
        .unwrap_err();
        assert_eq!(error.field, "moves[2]");
        assert!(error.reason.contains("Spanish"), "{}", error.reason);

        // German output; figurine output, read from English letters and from figurines.
        let (_, german) = play_moves_in(
            Position::startpos(),
            &texts(&["Sf3", "Sf6", "g3", "g6", "Lg2", "Lg7", "O-O", "d6"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::German,
        )
        .unwrap();
        assert_eq!(german[4].san, "Lg2");
        let (_, figurine) = play_moves_in(
            Position::startpos(),
            &texts(&["Nf3", "♞f6", "e4", "Nxe4"]),
            "moves",
            100,
            AnalysisBudget::Material,
            SanLanguage::Figurine,
        )
        .unwrap();
        let sans: Vec<&str> = figurine.iter().map(|mv| mv.san.as_str()).collect();
        assert_eq!(sans, ["♘f3", "♞f6", "e4", "♞xe4"]);
    }

    #[test]
    fn games_and_adjudication_use_the_notation() {
        let game = v1::Game {
            start: Some(v1::Position {
                kind: Some(v1::position::Kind::Chess960Number(0)),
                variant: 0,
            }),
            moves: texts(&["g4", "g5", "Cd3", "Cd6", "Rg2"]),
        };
        let error =
            game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::English).unwrap_err();
        assert_eq!(error.field, "game.moves[2]");
        let played = game_from_wire_in(&game, "game", 100, BUDGET, SanLanguage::French).unwrap();
        assert_eq!(played.ply(), 5);
        let notation = Notation {
            language: SanLanguage::French,
            shredder: true,
        };
        let response = adjudicate_with(&played, &AdjudicationRequest::default(), notation);
        assert_eq!(
            response.fen,
            "bbqn1rkr/pppppp1p/3n4/6p1/6P1/3N4/PPPPPPKP/BBQN1R1R b hf - 3 3"
        );
    }

    #[test]
    fn notation_options_name_their_field() {
        let error = Notation::from_wire(42, 0, "").unwrap_err();
        assert_eq!(error.field, "san_language");
        let error = Notation::from_wire(0, 42, "").unwrap_err();
        assert_eq!(error.field, "castling_notation");
        let notation = Notation::from_wire(
            v1::SanLanguage::Figurine.into(),
            v1::CastlingNotation::ShredderFen.into(),
            "",
        )
        .unwrap();
        assert_eq!(notation.language, SanLanguage::Figurine);
        assert!(notation.shredder);
        for language in SanLanguage::ALL {
            let wire = san_language_to_wire(language);
            assert_eq!(
                san_language_from_wire(wire.into(), "san_language"),
                Ok(language)
            );
        }
    }

    #[test]
    fn event_side_is_required() {
        let event = v1::GameEvent {
            kind: v1::GameEventKind::Resignation.into(),
            side: 0,
        };
        let error = event_from_wire(Some(&event), "event").unwrap_err();
        assert_eq!(error.field, "event.side");
    }
}
