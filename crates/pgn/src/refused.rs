//! The position a refused move was written in: what an arbiter needs beside the error to judge
//! an illegal move on a score sheet.

use arbiter_rules::{Color, Move, Position};

use crate::error::{ErrorKind, PgnError};
use crate::reader::RawGame;
use crate::replay::{ReplayOptions, parse_token, start_position};

/// A move of the main line that replay refused, with the position it was written in.
#[derive(Clone, Debug)]
pub struct MoveRefused {
    /// The position before the refused move: the game replayed up to it.
    pub position: Position,
    /// The move played last before it (`None` when the refused move is the game's first).
    pub last_move: Option<Move>,
    /// The 1-based ply of the refused move.
    pub ply: usize,
    /// The refused move as written (annotation marks removed).
    pub text: String,
}

impl MoveRefused {
    /// The refused move with its move number as a score sheet numbers it, from the position
    /// it was written in: `5. Ke3` for White, `5... Ke3` for Black.
    #[must_use]
    pub fn numbered(&self) -> String {
        let dots = match self.position.side_to_move() {
            Color::White => ".",
            Color::Black => "...",
        };
        format!("{}{dots} {}", self.position.fullmove_number(), self.text)
    }
}

/// The refused move of `error` and the position it was written in, for an error that refuses
/// a move ([`ErrorKind::Move`]: an illegal, ambiguous or unreadable move; [`ErrorKind::GameOver`]:
/// a move after the game's end; [`ErrorKind::NullMove`]). The moves before it are replayed with
/// `options`, as [`crate::replay`] replayed them when it met the error.
///
/// `None` for any other error (text that is not PGN, a bad `FEN` tag: no position was
/// reached), or when the game does not replay to that ply with `options` (`error` is not the
/// first error of this replay of `raw`).
#[must_use]
pub fn move_refused(
    raw: &RawGame,
    error: &PgnError,
    options: &ReplayOptions,
) -> Option<MoveRefused> {
    let (ply, text) = match &error.kind {
        ErrorKind::Move { ply, text, .. }
        | ErrorKind::GameOver { ply, text, .. }
        | ErrorKind::NullMove { ply, text } => (*ply, text),
        _ => return None,
    };
    let at = raw
        .moves
        .iter()
        .position(|token| token.ply as usize == ply)?;
    let (_, mut position) = start_position(raw, options).ok()?;
    let mut last_move = None;
    for token in &raw.moves[..at] {
        let (played, _) = parse_token(&position, token, options).ok()?;
        position.play_in_place(&played);
        last_move = Some(played);
    }
    Some(MoveRefused {
        position,
        last_move,
        ply,
        text: text.clone(),
    })
}

/// The start position of `raw` and the moves of its main line that replay with `options`, up
/// to the first that does not, or all of those the reader read: what can be written of a game
/// that has an error (`arbiter adjudicate --format pgn`). For an error that refuses a move, the
/// moves before that move ([`move_refused`]'s position is the last one's); for text that is not
/// PGN or a bound passed, the moves read before the reader stopped.
///
/// `None` when the start position is not known (a bad `FEN` tag, an unsupported `Variant`:
/// [`start_position`]'s errors).
#[must_use]
pub fn playable_prefix(raw: &RawGame, options: &ReplayOptions) -> Option<(Position, Vec<Move>)> {
    let (_, start) = start_position(raw, options).ok()?;
    let mut position = start.clone();
    let mut moves = Vec::with_capacity(raw.moves.len());
    for token in &raw.moves {
        let Ok((played, _)) = parse_token(&position, token, options) else {
            break;
        };
        position.play_in_place(&played);
        moves.push(played);
    }
    Some((start, moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Reader, replay};

    fn refused(pgn: &str) -> Option<MoveRefused> {
        let raw = Reader::new(pgn.as_bytes())
            .next()
            .expect("a game")
            .expect("read");
        let error = replay(&raw, &ReplayOptions::default()).expect_err("refused");
        move_refused(&raw, &error, &ReplayOptions::default())
    }

    /// Issue 28, item 3: an illegal move is shown on the board it was written for, named with
    /// its move number.
    #[test]
    fn an_illegal_move_is_given_with_the_position_before_it() {
        let refused =
            refused("[Event \"E\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. Ke3 1-0\n")
                .expect("a move was refused");
        assert_eq!(refused.ply, 9);
        assert_eq!(refused.numbered(), "5. Ke3");
        assert_eq!(
            refused.position.to_fen(),
            "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5"
        );
        let last = refused.last_move.expect("dxc6 before it");
        assert_eq!(
            (last.from.to_string(), last.to.to_string()),
            ("d7".to_owned(), "c6".to_owned())
        );
    }

    /// Black's refused move is numbered `N...`; a game's first move has no move before it; a
    /// set-up position numbers from its FEN.
    #[test]
    fn black_moves_first_moves_and_set_up_positions_are_numbered_as_written() {
        let black = refused("1. e4 e5 2. d4 Ke6 *\n").expect("refused");
        assert_eq!((black.ply, black.numbered()), (4, "2... Ke6".to_owned()));
        let first = refused("1. Nf4 *\n").expect("refused");
        assert_eq!((first.ply, first.numbered()), (1, "1. Nf4".to_owned()));
        assert!(first.last_move.is_none());
        let set_up = refused(
            "[SetUp \"1\"]\n[FEN \"8/8/4k3/8/8/2Q5/8/4K3 w - - 0 40\"]\n\n40. Kd2 Kd5 41. Qc6+ Kxc6 42. Kc7 *\n",
        )
        .expect("refused");
        assert_eq!(set_up.numbered(), "42. Kc7");
        assert_eq!(set_up.position.to_fen(), "8/8/2k5/8/8/8/3K4/8 w - - 0 42");
    }

    /// A null move is a refused move too; a bad FEN tag refuses no move, and gives none.
    #[test]
    fn null_moves_have_a_position_and_tag_errors_none() {
        let null = refused("1. e4 -- 2. d4 *\n").expect("refused");
        assert_eq!(null.numbered(), "1... --");
        assert!(refused("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n").is_none());
    }
}
