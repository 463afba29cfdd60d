//! # arbiter-rules
//!
//! The rules of chess as the FIDE Laws of Chess define them: legal move generation with
//! bitboards (precomputed attack tables, pin and check masks), FEN text into an unvalidated
//! [`Setup`] and a [`Setup`] into a [`Position`] checked against the Laws ([`PositionError`]),
//! UCI and SAN in and out, Zobrist keys in the Polyglot layout, perft, and game-level endings
//! (checkmate, stalemate, dead position, fivefold repetition, 75-move rule) and draw claims
//! (threefold repetition, 50-move rule).
//!
//! No I/O, no async; move generation does not allocate ([`MoveList`] lives on the stack).
//!
//! ## The Laws, article by article
//!
//! The edition applied is [`LAWS_EDITION`] (FIDE Laws of Chess, 2023). Each article the crate
//! implements, and where (`cargo doc` checks every link):
//!
//! | article | what | items |
//! |---|---|---|
//! | 2, 3.1-3.6 | the board, the pieces and how they move | [`Position::legal_moves`], [`MoveList`], [`Move`], [`Square`], [`Piece`] |
//! | 2.2, 3.7, 3.7.5, 3.9 | a position the Laws allow (one king a side, no pawn on the first or last rank, material and checks a game can produce) | [`Position::from_setup`], [`Setup`], [`PositionError`], [`Validation`] |
//! | 3.7.3, 3.7.3.1, 3.7.3.2 | the pawn's diagonal capture; en passant, on the move right after the double step only | [`MoveKind::EnPassant`], [`Illegality::PawnCapturesDiagonally`], [`Illegality::EnPassantExpired`] |
//! | 3.7.5 | promotion | [`Move::promotion`] |
//! | 3.8.2 | castling (standard and Chess960) | [`MoveKind::Castle`], [`CastlingMode`], [`CHESS960_POSITIONS`] |
//! | 3.9 | check; no move may leave the own king attacked | [`Position::is_check`], [`Position::parse_move`], [`Position::explain_illegal`], [`MoveError`], [`Illegality`] (every cause of an illegal move, with its article) |
//! | 5.1.1 | checkmate | [`Termination::Checkmate`], [`Status`] |
//! | 5.1.2 | resignation | [`GameEvent::Resignation`] |
//! | 5.2.1 | stalemate | [`Termination::Stalemate`], [`Position::has_legal_move`] |
//! | 5.2.2 | dead position | [`Termination::DeadPosition`], [`Termination::InsufficientMaterial`], [`Position::is_insufficient_material`], [`dead_position`] |
//! | 5.2.3 | draw by agreement (one move each) | [`GameEvent::AgreedDraw`], [`both_players_moved`], [`WarningCode::EarlyAgreedDraw`] |
//! | 5.1.1, 5.2.1 with 8.1 | moves recorded after the game ended | [`Game::record`], [`Game::plies_after_end`] |
//! | 5.1.1, 5.2.1, 5.2.2, 9.6 | no move is played after the game's end (checkmate, stalemate and a dead position end it at once; fivefold repetition and the 75-move rule draw it) | [`Game::play_next`], [`GameOver`], [`NextMoveError`] |
//! | 6.7.1 | forfeit by default (a player who never moved) | [`GameEvent::Forfeit`], [`Outcome::article`] |
//! | 6.9 | flag fall: the loss stands unless the opponent cannot checkmate | [`GameEvent::FlagFall`], [`winnability_in_game`], [`Winnability`], [`AnalysisBudget`] |
//! | 7.5.1-7.5.4 | completed illegal moves (a forbidden move, an unpromoted pawn, the clock without a move, two hands), reinstated or replaced | [`Incident::IllegalMove`], [`IllegalAct`], [`Consequence::PositionReinstated`], [`Consequence::MoveRequired`] |
//! | 7.5.5 | a first completed illegal move gives the opponent time; a second loses | [`GameEvent::SecondIllegalMove`], [`Referee`], [`Consequence::TimeAdded`] |
//! | 6.8, A.5.3, A.5.5 | a flag falls when seen or claimed | [`Incident::FlagFall`], [`ActedOn`] |
//! | 9.1.2 | draw offers | [`Incident::DrawOffer`] |
//! | 9.5 | a claim found correct draws; an incorrect one adds time and obliges the announced move | [`Incident::Claim`], [`Consequence::ClaimUpheld`], [`Consequence::ClaimRejected`] |
//! | A.3, A.4, A.5, A.6, B.2, B.3, B.4 | rapid and blitz: one minute instead of two; supervised or not; an unclaimed illegal move stands (A.5.2) | [`RuleSet`], [`TimeClass`], [`Supervision`], [`RuleSet::penalty_seconds`], [`RefereeError::IllegalMoveStood`] |
//! | (event regulations) | Armageddon: Black's draw odds | [`DrawOdds`], [`EventResult`] |
//! | 9.2 | threefold repetition, claimed; position identity (9.2.3) | [`ClaimKind::ThreefoldRepetition`], [`Game::claims`], [`Game::claim_draw`], [`Game::repetitions`], [`Position::zobrist`] |
//! | 9.3 | fifty-move rule, claimed | [`ClaimKind::FiftyMoveRule`], [`Position::halfmove_clock`] |
//! | 9.6.1 | fivefold repetition | [`Termination::FivefoldRepetition`] |
//! | 9.6.2 | seventy-five-move rule | [`Termination::SeventyFiveMoveRule`] |
//! | 12.9.6 | a game declared lost by the arbiter (a forfeit by a player who had moved) | [`GameEvent::Forfeit`], [`Outcome::article`] |
//! | Appendix C | algebraic notation (SAN), in several languages | [`Position::san`], [`Position::parse_san`], [`Position::parse_san_in`], [`SanMode`], [`SanLanguage`] |
//! | Guidelines on Chess960 | start positions, castling, X-FEN and Shredder-FEN | [`CHESS960_POSITIONS`], [`CastlingMode::Chess960`], [`Setup::castling_mode`], [`Position::from_fen_detecting_mode`] |
//!
//! Every verdict names its article: [`Outcome::article`], [`Termination::article`],
//! [`ClaimKind::article`]; [`adjudicate`] applies them in the order the Laws give (the rules'
//! own endings before any [`GameEvent`]).
//!
//! ```
//! use arbiter_rules::{Game, Position, Termination, perft};
//!
//! let pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 20);
//! assert_eq!(perft(&pos, 3), 8_902);
//! assert_eq!(pos.zobrist(), 0x463b_9618_1691_fc9c);
//!
//! // Fool's mate, given in SAN and UCI.
//! let mut game = Game::new(pos);
//! for mv in ["f3", "e7e5", "g4", "Qh4#"] {
//!     game.push(mv).unwrap();
//! }
//! let outcome = game.outcome().unwrap();
//! assert_eq!(outcome.termination, Termination::Checkmate);
//! assert_eq!(outcome.article(), "5.1.1");
//! assert_eq!(outcome.ply, 4);
//!
//! // Illegal moves come with the reason.
//! let pos = Position::from_fen("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1").unwrap();
//! let err = pos.parse_move("Nf3").unwrap_err();
//! assert_eq!(err.reason(), "the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)");
//! ```

mod adjudication;
mod attacks;
mod bitboard;
mod chess960;
mod fen;
mod game;
mod illegality;
pub mod interrupt;
mod magic_search;
mod notation;
mod polyglot_keys;
mod position;
mod referee;
mod rule_set;
mod san_lang;
mod setup;
mod types;
mod winnability;
mod zobrist;

pub use adjudication::{
    AdjudicationRequest, GameEvent, LAWS_EDITION, Verdict, VerdictWarning, WarningCode, adjudicate,
    both_players_moved,
};
pub use bitboard::Bitboard;
pub use chess960::CHESS960_POSITIONS;
pub use fen::{FenError, FenOptions, FenSyntaxError, MAX_FEN_LEN, STARTING_FEN};
pub use game::{
    Claim, ClaimKind, Game, GameOver, GameResult, NextMoveError, Outcome, PlyError, Termination,
};
pub use illegality::Illegality;
pub use notation::{MAX_MOVE_TEXT_LEN, MoveError, SanMode, castling_side, looks_like_uci};
pub use position::{
    CastlingMode, MAX_MOVES, Move, MoveKind, MoveList, Position, Status, perft, perft_divide,
};
pub use referee::{
    ActedOn, Consequence, IllegalAct, Incident, MAX_WRITTEN_LEN, RecordPlace, Referee,
    RefereeError, Ruling, TimedIncident, adjudicate_record, adjudicate_record_located,
};
pub use rule_set::{
    DEFAULT_REGULATION, DrawOdds, EventResult, MAX_REGULATION_LEN, RuleSet, RuleSetError,
    Supervision, TimeClass,
};
pub use san_lang::SanLanguage;
pub use setup::{
    CastlingRight, ImpossibleCheck, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK, MissingForCastling,
    PositionError, Setup, SetupField, Validation,
};
pub use types::{Color, File, Piece, Rank, Role, Square};
pub use winnability::{
    AnalysisBudget, Winnability, dead_position, winnability, winnability_in_game,
};
