//! # arbiter-pgn
//!
//! PGN (Portable Game Notation, the 1994 standard by S. J. Edwards) on top of `arbiter-rules`:
//!
//! - [`Reader`]: a streaming reader of PGN import format over any [`std::io::BufRead`], one game
//!   in memory at a time, every size bounded by [`ReaderLimits`], UTF-8 or Windows-1252 decoded per
//!   game, errors with `line:column`; after an error in the middle of a game, the rest of the game is
//!   skipped (the lines are in the error) and reading resumes where the next game starts.
//! - [`replay`]: the main line of a [`RawGame`] checked move by move under the rules (standard
//!   chess or Chess960, from the `FEN` tag when present); the first illegal move is reported with
//!   its position in the input, its ply, its text and the rules' reason.
//! - [`verdict::adjudicate`]: a game read from PGN replayed, its end-of-game event inferred from
//!   its tags, adjudicated under the FIDE Laws, and its declared result compared with the rules,
//!   as a [`verdict::PgnVerdict`] with typed warnings and disagreement.
//! - [`Splitter`]: a PGN input cut into [`Chunk`]s at lines where a game surely starts, for
//!   threads that each read a chunk with [`Reader::of_chunk`] as one reader of the whole input
//!   would.
//! - [`write_game`]: a game written back in PGN export format (Seven Tag Roster first, SAN, lines
//!   of at most 79 characters).
//! - [`GameNumber`]: the number people give a game of a round, from its `Round` and `Board`
//!   tags (`5.20`), else its place in the input counted from 1.
//!
//! ```
//! use arbiter_pgn::{Reader, ReplayOptions, replay, write_game};
//!
//! let pgn = "[Event \"Casual \\\"blitz\\\"\"]\n[Result \"0-1\"]\n\n\
//!            1. f3 {weakening} e5 2. g4?? (2. Kf2) Qh4# 0-1\n";
//! let mut reader = Reader::new(pgn.as_bytes());
//! let raw = reader.next().unwrap().unwrap();
//! assert_eq!(raw.tag("Event"), Some("Casual \"blitz\""));
//! let moves: Vec<&str> = raw.moves.iter().map(|t| t.text.as_str()).collect();
//! assert_eq!(moves, ["f3", "e5", "g4", "Qh4#"]);
//! assert_eq!(raw.nags[0].value, 4); // "??" is $4
//! assert_eq!(raw.result.as_deref(), Some("0-1"));
//! assert!(reader.next().is_none());
//!
//! let replayed = replay(&raw, &ReplayOptions::default()).unwrap();
//! let outcome = replayed.game.outcome().unwrap();
//! assert_eq!(outcome.article(), "5.1.1"); // checkmate
//!
//! let mut out = Vec::new();
//! write_game(&mut out, &raw.tags, replayed.game.start(), replayed.game.moves(),
//!            Some(outcome.result)).unwrap();
//! assert!(String::from_utf8(out).unwrap().ends_with("\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"));
//!
//! // An illegal move: where it is and why.
//! let mut reader = Reader::new("1. e4 e5 2. Ke3 *".as_bytes());
//! let err = replay(&reader.next().unwrap().unwrap(), &ReplayOptions::default()).unwrap_err();
//! assert_eq!(err.to_string(), "line 1:13: ply 3 (Ke3): no white king can move to e3");
//! ```

mod error;
pub mod number;
mod reader;
mod refused;
mod replay;
mod split;
pub mod verdict;
mod writer;

pub use error::{Bound, CharClass, ErrorKind, PgnError, ReadWarning, SkippedLines, WarningKind};
pub use number::{EventKey, GameNumber, NumberRegister, NumberSource, RepeatedNumber};
pub use reader::{
    DEFAULT_MAX_GAME_BYTES, DEFAULT_MAX_PLIES, DEFAULT_MAX_TAG_VALUE_BYTES, DEFAULT_MAX_TAGS,
    DEFAULT_MAX_VARIATION_DEPTH, Encoding, MoveText, Nag, RawGame, Reader, ReaderLimits, SanToken,
    glyph_nag,
};
pub use refused::{MoveRefused, move_refused, playable_prefix};
pub use replay::{
    ReplayOptions, ReplayedGame, Variant, replay, replay_moves, replay_noting, start_position,
};
pub use split::{CHUNK_LINES, Chunk, ChunkText, Rest, Splitter};
pub use writer::{
    Declared, MAX_LINE_LEN, SEVEN_TAG_ROSTER, result_token, write_game, write_game_cut,
    write_game_with, write_tag_section,
};
