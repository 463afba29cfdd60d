//! Writing games in PGN export format (PGN standard 8: tag pairs, then movetext).

use std::borrow::Cow;
use std::io::{self, Write};

use arbiter_rules::{CastlingMode, GameResult, Move, Position, STARTING_FEN};

/// The longest movetext line written, in characters, so that it fits an 80-column display. Tag
/// pairs are not wrapped (a tag pair is one line, PGN standard 8.1).
pub const MAX_LINE_LEN: usize = 79;

/// The Seven Tag Roster (PGN standard 8.1.1), in export order, with the value written when the
/// caller gives none (`Result` is always the `result` argument).
pub const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// The PGN game termination marker (PGN standard 8.2.6) for a result; `None` (unfinished or
/// unknown) is `*`.
#[must_use]
pub fn result_token(result: Option<GameResult>) -> &'static str {
    result.map_or("*", GameResult::as_pgn)
}

/// Writes a tag value between quotes with `\` and `"` escaped (PGN standard 8.1.1); control
/// characters (tab, line breaks, ...) become spaces, as a tag pair must stay on one line.
fn write_tag<W: Write>(out: &mut W, name: &str, value: &str) -> io::Result<()> {
    let mut escaped = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            c if c.is_control() => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    writeln!(out, "[{name} \"{escaped}\"]")
}

fn valid_tag_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The result a written game declares: the `Result` tag's value and the movetext's termination
/// marker (PGN standard 8.1.1.7, 8.2.6). [`write_game`] writes one result as both;
/// `arbiter adjudicate --format pgn` keeps what the game declared ([`Declared::kept`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared<'a> {
    /// The `Result` tag's value, written as given (escaped).
    pub tag: &'a str,
    /// The termination marker: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub marker: &'a str,
}

impl<'a> Declared<'a> {
    /// `result` as both the tag and the marker ([`result_token`]).
    #[must_use]
    pub fn result(result: Option<GameResult>) -> Declared<'static> {
        let token = result_token(result);
        Declared {
            tag: token,
            marker: token,
        }
    }

    /// What a game read from PGN declares: the `Result` tag's value (`result_tag`) and the
    /// termination marker the reader found (`marker`, [`crate::RawGame::result`]). A tag that
    /// reads as a result ([`crate::verdict::read_result`]: `1:0`, `1–0` with an en dash,
    /// `½-½`) is written as export format spells it (`1-0`, `1/2-1/2`: PGN standard 8.1.1.7
    /// has four values); another tag is kept as written. A missing tag is the marker's text; a
    /// missing marker is the tag's result when the tag reads as one, else `*`, the marker of a
    /// game whose result is unknown (PGN standard 8.2.6).
    #[must_use]
    pub fn kept(result_tag: Option<&'a str>, marker: Option<&'a str>) -> Declared<'a> {
        let marker = marker
            .filter(|marker| is_marker(marker))
            .or_else(|| {
                result_tag
                    .and_then(crate::verdict::read_result)
                    .map(result_token)
            })
            .unwrap_or("*");
        let tag = result_tag.map(|tag: &'a str| -> &'a str {
            match crate::verdict::read_result(tag) {
                Some(result) => result_token(result),
                None => tag,
            }
        });
        Declared {
            tag: tag.unwrap_or(marker),
            marker,
        }
    }
}

/// Whether `token` is a game termination marker (PGN standard 8.2.6).
fn is_marker(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Writes one game in PGN export format (PGN standard 8.1, 8.2), `result` as its `Result` tag
/// and termination marker: [`write_game_with`] with [`Declared::result`] and no added tags.
///
/// # Errors
/// As [`write_game_with`].
pub fn write_game<W: Write>(
    out: &mut W,
    tags: &[(String, String)],
    start: &Position,
    moves: &[Move],
    result: Option<GameResult>,
) -> io::Result<()> {
    write_game_with(out, tags, start, moves, Declared::result(result), &[])
}

/// [`io::ErrorKind::InvalidInput`] when a tag name of `tags` or `added` is not a PGN symbol or
/// `declared.marker` is not a termination marker.
fn check_names_and_marker(
    tags: &[(String, String)],
    added: &[(&str, &str)],
    declared: Declared<'_>,
) -> io::Result<()> {
    let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
    if let Some(name) = tags
        .iter()
        .map(|(name, _)| name.as_str())
        .chain(added.iter().map(|(name, _)| *name))
        .find(|name| !valid_tag_name(name))
    {
        return Err(invalid(format!(
            "tag name '{name}' is not a PGN symbol (letters, digits, '_')"
        )));
    }
    if !is_marker(declared.marker) {
        return Err(invalid(format!(
            "'{}' is not a game termination marker: 1-0, 0-1, 1/2-1/2 or * (PGN standard 8.2.6)",
            declared.marker
        )));
    }
    Ok(())
}

/// Writes the Seven Tag Roster (missing ones as their default, `Result` as `declared.tag`),
/// then the `added` tags in their order.
fn write_roster_and_added<W: Write>(
    out: &mut W,
    tags: &[(String, String)],
    declared: Declared<'_>,
    added: &[(&str, &str)],
) -> io::Result<()> {
    for (name, default) in SEVEN_TAG_ROSTER {
        let value = if name == "Result" {
            declared.tag
        } else {
            tags.iter()
                .find(|(n, _)| n == name)
                .map_or(default, |(_, v)| v.as_str())
        };
        write_tag(out, name, value)?;
    }
    for (name, value) in added {
        write_tag(out, name, value)?;
    }
    Ok(())
}

/// Writes the tag section of a game whose start position is not known (a bad `FEN` tag), and a
/// movetext of its termination marker alone: the Seven Tag Roster as [`write_game_with`] writes
/// it, then the `added` tags, then the other tags of `tags` sorted by name, `SetUp`, `FEN` and
/// `Variant` among them as written; an empty line, `declared.marker`, an empty line.
///
/// # Errors
/// The writer's I/O errors; [`io::ErrorKind::InvalidInput`] when a tag name is not a PGN symbol
/// or `declared.marker` is not a termination marker (nothing is written then).
pub fn write_tag_section<W: Write>(
    out: &mut W,
    tags: &[(String, String)],
    declared: Declared<'_>,
    added: &[(&str, &str)],
) -> io::Result<()> {
    check_names_and_marker(tags, added, declared)?;
    write_roster_and_added(out, tags, declared, added)?;
    let mut others: Vec<&(String, String)> = tags
        .iter()
        .filter(|(n, _)| {
            !SEVEN_TAG_ROSTER.iter().any(|(r, _)| r == n) && !added.iter().any(|(a, _)| a == n)
        })
        .collect();
    others.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in others {
        write_tag(out, name, value)?;
    }
    writeln!(out)?;
    writeln!(out, "{}", declared.marker)?;
    writeln!(out)
}

/// Writes one game in PGN export format (PGN standard 8.1, 8.2):
///
/// - the Seven Tag Roster first, in its order (`Event`, `Site`, `Date`, `Round`, `White`,
///   `Black`, `Result`), missing ones as `?` (`????.??.??` for the date), `Result` always
///   `declared.tag`;
/// - then the `added` tags, in their order (the verdict's tags of `arbiter adjudicate`: a tag of
///   `tags` with the name of an added one is left out);
/// - then the other tags sorted by name; `SetUp "1"` and `FEN` (PGN standard 9.7) are written
///   from `start` when it is not the standard start position or the game is Chess960, and
///   `Variant "Chess960"` for Chess960 (any `SetUp`, `FEN` or `Variant` in `tags` is replaced);
///   values escaped;
/// - an empty line, then the movetext: move numbers (`1. e4 e5 2. Nf3`; a game that starts with
///   Black to move starts with `N...`, N the start position's fullmove number), SAN from the
///   rules crate, the termination marker `declared.marker`, lines of at most [`MAX_LINE_LEN`]
///   characters;
/// - an empty line, which separates this game from the next.
///
/// # Errors
/// The writer's I/O errors; [`io::ErrorKind::InvalidInput`] when a tag name is not a PGN symbol
/// (letters, digits, `_`), a move is not legal in its position, or `declared.marker` is not a
/// termination marker (nothing is written then).
pub fn write_game_with<W: Write>(
    out: &mut W,
    tags: &[(String, String)],
    start: &Position,
    moves: &[Move],
    declared: Declared<'_>,
    added: &[(&str, &str)],
) -> io::Result<()> {
    write_game_cut(out, tags, start, moves, &[], declared, added)
}

/// [`write_game_with`] for a game whose replay stopped at a move it refused: `moves` replayed,
/// then `unplayed`, the refused move and those after it as the input wrote them (ASCII move
/// text without spaces or braces, as [`crate::SanToken`] holds it), numbered as if played, not
/// checked: read again, the game meets the same refusal at the same ply.
///
/// # Errors
/// As [`write_game_with`]; an unplayed token with a space, a brace or a character that is not
/// printable ASCII is [`io::ErrorKind::InvalidInput`].
pub fn write_game_cut<W: Write>(
    out: &mut W,
    tags: &[(String, String)],
    start: &Position,
    moves: &[Move],
    unplayed: &[&str],
    declared: Declared<'_>,
    added: &[(&str, &str)],
) -> io::Result<()> {
    check_names_and_marker(tags, added, declared)?;
    if let Some(token) = unplayed.iter().find(|token| {
        token.is_empty()
            || !token
                .bytes()
                .all(|b| b.is_ascii_graphic() && !b"{}()[];".contains(&b))
    }) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{token:?} is not a movetext token (printable ASCII without braces, brackets or spaces)"
            ),
        ));
    }
    let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
    let result = declared.marker;

    // Movetext first, so that nothing is written for an illegal move.
    let mut movetext = String::with_capacity(moves.len() * 7 + 16);
    let mut line_len = 0;
    let mut push = |token: &str, movetext: &mut String| {
        if line_len == 0 {
        } else if line_len + 1 + token.len() > MAX_LINE_LEN {
            movetext.push('\n');
            line_len = 0;
        } else {
            movetext.push(' ');
            line_len += 1;
        }
        movetext.push_str(token);
        line_len += token.len();
    };
    let mut pos = start.clone();
    for (i, m) in moves.iter().enumerate() {
        if !pos.legal_moves().contains(m) {
            return Err(invalid(format!(
                "ply {}: the move {}{} is not legal in {}",
                i + 1,
                m.from,
                m.to,
                pos.to_fen()
            )));
        }
        let white = pos.side_to_move() == arbiter_rules::Color::White;
        if white {
            push(&format!("{}.", pos.fullmove_number()), &mut movetext);
        } else if i == 0 {
            push(&format!("{}...", pos.fullmove_number()), &mut movetext);
        }
        push(&pos.san(m), &mut movetext);
        pos.play_in_place(m);
    }
    // Numbered on from the last position reached, as if each were played.
    let white_first = pos.side_to_move() == arbiter_rules::Color::White;
    for (i, token) in unplayed.iter().enumerate() {
        let white = (i % 2 == 0) == white_first;
        let number = pos.fullmove_number() as usize + (i + usize::from(!white_first)) / 2;
        if white {
            push(&format!("{number}."), &mut movetext);
        } else if i == 0 && moves.is_empty() {
            push(&format!("{number}..."), &mut movetext);
        }
        push(token, &mut movetext);
    }
    push(result, &mut movetext);

    write_roster_and_added(out, tags, declared, added)?;
    let chess960 = start.castling_mode() == CastlingMode::Chess960;
    let mut others: Vec<(&str, Cow<'_, str>)> = tags
        .iter()
        .filter(|(n, _)| {
            !SEVEN_TAG_ROSTER.iter().any(|(r, _)| r == n)
                && !matches!(n.as_str(), "SetUp" | "FEN" | "Variant")
                && !added.iter().any(|(a, _)| a == n)
        })
        .map(|(n, v)| (n.as_str(), Cow::Borrowed(v.as_str())))
        .collect();
    if chess960 {
        others.push(("Variant", Cow::Borrowed("Chess960")));
    }
    if chess960 || start.to_fen() != STARTING_FEN {
        others.push(("SetUp", Cow::Borrowed("1")));
        others.push(("FEN", Cow::Owned(start.to_fen())));
    }
    others.sort_by(|a, b| a.0.cmp(b.0));
    for (name, value) in &others {
        write_tag(out, name, value)?;
    }
    writeln!(out)?;
    out.write_all(movetext.as_bytes())?;
    writeln!(out)?;
    writeln!(out)
}
