//! Errors of reading and replaying PGN, each with the line and column where it happened.

use arbiter_rules::{FenError, GameOver, MoveError};
use thiserror::Error;

/// An error in one game of a PGN input, with its position in the input.
///
/// `Display` gives `line L:C: message`, e.g.
/// `line 12:5: ply 23 (Nf3): the knight on d2 is pinned against the king on e1 by the bishop on b4 (FIDE Laws 3.9.2)`,
/// and for a read error after which the reader skipped the rest of the game, the lines it
/// skipped: `line 3:7: ')' closes no variation (PGN standard 8.2.5); lines 3-5 skipped to the
/// end of the game`.
/// Lines and columns are 1-based; columns count characters (not bytes) of the decoded line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}:{column}: {kind}{}", skipped.map_or_else(String::new, |s| format!("; {s}")))]
pub struct PgnError {
    /// The 1-based line of the input where the problem is (for a tag, the tag's line).
    pub line: u32,
    /// The 1-based column, in characters, on that line.
    pub column: u32,
    /// The 0-based number of the game in the input that the error belongs to.
    pub game: usize,
    /// What went wrong.
    pub kind: ErrorKind,
    /// For an error the [`crate::Reader`] met in the middle of a game: the lines it skipped
    /// after it, from the error's line to the line where the game ends, so that reading
    /// resumes where the next game starts. For a comment or variation never closed: the lines
    /// it ran over, from its `{` or `(` to the game's end (games without tags after it among
    /// them). `None` for an error that skipped nothing (a game without movetext, a bad `FEN`
    /// tag, an illegal move, ...).
    pub skipped: Option<SkippedLines>,
}

impl PgnError {
    pub(crate) fn new(line: u32, column: u32, game: usize, kind: ErrorKind) -> PgnError {
        PgnError {
            line,
            column,
            game,
            kind,
            skipped: None,
        }
    }
}

/// The lines of the input a [`crate::Reader`] skipped after an error in the middle of a game:
/// the rest of the game, not read as movetext or tags (or the lines an unclosed comment or
/// variation ran over, to the game's end). The game ends where it would have ended
/// without the error (the same rule that tells one game from the next): at its termination
/// marker outside comments and variations (the next line, or a `[` after the marker on its
/// line, starts the next game), at a line starting with `[` after movetext, at a tag section
/// after a blank line, at a second `[Event` line, at a line of Seven Tag Roster pairs inside an
/// unclosed comment, or at the end of the input.
///
/// `Display` gives `lines 3-5 skipped to the end of the game` (or `line 3 skipped ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("{} skipped to the end of the game", if first == last { format!("line {first}") } else { format!("lines {first}-{last}") })]
pub struct SkippedLines {
    /// The 1-based first line skipped: the error's line (the part of it after the error).
    pub first: u32,
    /// The 1-based last line skipped, at least `first`: the game's last line that is not blank
    /// (the line of its termination marker, or the last line before the next game's start).
    pub last: u32,
}

/// What went wrong in a game. [`ErrorKind::name`] gives a short machine-readable category.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the input failed; the reader stops after this error.
    #[error("I/O error: {0}")]
    Io(String),
    /// The text is not PGN: a malformed tag pair (PGN standard 8.1), an unterminated comment
    /// (8.2.5), an unbalanced variation (8.2.5), a character that cannot start a movetext token
    /// (8.2), text after the game termination marker (8.2.6), ...
    #[error("{0}")]
    Syntax(String),
    /// A [`crate::ReaderLimits`] bound was exceeded; the rest of the game is skipped. `Display`
    /// names what was counted, the limit and the flag that sets it: `number of tag pairs
    /// exceeds the limit of 256 (--max-tags)`.
    #[error("{} exceeds the limit of {limit} ({})", bound.what(), bound.flag())]
    Limit {
        /// Which bound.
        bound: Bound,
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A tag section with no movetext after it (PGN standard 8.2: a game is a tag section and a
    /// movetext, which holds at least the game termination marker): another tag section follows
    /// after a blank line, or the input ends. The error's line is where the game starts; the
    /// next game is read normally, never merged with this one.
    #[error("the tag section has no movetext (not even a game termination marker, PGN standard 8.2): {}", match next_game_line { Some(line) => format!("a new game starts at line {line}"), None => "the input ends".to_string() })]
    NoMovetext {
        /// The line where the next tag section (the next game) starts; `None` at the end of
        /// the input.
        next_game_line: Option<u32>,
    },
    /// A tag value of a game that is not UTF-8 holds a byte that Windows-1252 leaves undefined
    /// (0x81, 0x8D, 0x8F, 0x90, 0x9D): the text is in some other encoding, and decoding it as
    /// Windows-1252 would turn the byte into a control character.
    #[error(
        "tag '{tag}' holds the byte 0x{byte:02X}, which is no character in Windows-1252 or ISO 8859-1: the file is in another encoding (convert it to UTF-8)"
    )]
    Encoding {
        /// The tag's name.
        tag: String,
        /// The undefined byte.
        byte: u8,
    },
    /// The `Variant` tag names a variant other than standard chess or Chess960.
    #[error("unsupported variant '{0}'")]
    UnsupportedVariant(String),
    /// A game that says it starts from a set-up position without a `FEN` tag giving it: a
    /// Chess960 `Variant` tag (959 of its 960 start positions differ from the standard one) or
    /// `[SetUp "1"]` (PGN standard 9.7.1, 9.7.2: such a game gives its start in a `FEN` tag).
    /// Never read as the standard start position. `tag`: the tag that says so, `Variant` or
    /// `SetUp`.
    #[error(
        "the {tag} tag says the game starts from a set-up position ({}) but there is no FEN tag: the start position is unknown (PGN standard 9.7.1, 9.7.2; write the start position, even the standard one, in a FEN tag)",
        if *tag == "SetUp" { "SetUp \"1\"" } else { "Chess960" }
    )]
    MissingFen {
        /// `Variant` or `SetUp`.
        tag: &'static str,
    },
    /// The `FEN` tag (PGN standard 9.7.2) does not hold a valid position.
    #[error("bad FEN tag: {0}")]
    Fen(FenError),
    /// A null move (`--`, `Z0`, `0000`, `@@@@`) in the main line: it is not a legal chess move, so
    /// the game cannot be replayed past it.
    #[error("null move at ply {ply} ({text}): a null move is not a legal move")]
    NullMove {
        /// The 1-based ply of the null move.
        ply: usize,
        /// The token as written.
        text: String,
    },
    /// A move of the main line that cannot be played, with the reason from the rules.
    #[error("ply {ply} ({text}): {}", error.reason())]
    Move {
        /// The 1-based ply of the move.
        ply: usize,
        /// The move text as written (annotation marks `!?` removed).
        text: String,
        /// Why the rules reject it.
        error: MoveError,
    },
    /// A game that `arbiter adjudicate --format pgn` wrote as one that could not be adjudicated:
    /// it carries an `ArbiterError` tag (its value: the error of then), and its movetext may be
    /// cut where that error was. It is not adjudicated while it carries the tag, so that a round
    /// written by arbiter and read again never turns an error into a verdict; correcting the
    /// game means removing the tag.
    #[error(
        "the game carries an ArbiterError tag: an earlier run could not adjudicate it ({0}) and its movetext may be cut there; correct the game and remove the tag"
    )]
    MarkedError(String),
    /// A move of the main line after checkmate or stalemate, in the replay that keeps no game
    /// ([`crate::replay_moves`]): no move follows the end of the game (FIDE Laws 5.1.1,
    /// 5.2.1), and the error names the ending rather than why this move in particular fails,
    /// e.g. `ply 5 (Ke2): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)`. The replay of
    /// a game ([`crate::replay`]) counts such moves as played after the end instead.
    #[error("ply {ply} ({text}): {over}")]
    GameOver {
        /// The 1-based ply of the move.
        ply: usize,
        /// The move text as written (annotation marks `!?` removed).
        text: String,
        /// The ending, at the ply of the position it was reached in.
        over: GameOver,
    },
}

impl ErrorKind {
    /// A short category: `io`, `syntax`, `limit`, `no_movetext`, `encoding`,
    /// `unsupported_variant`, `missing_fen`, `fen`, `null_move`, `marked_error`, or for
    /// moves the rules' category prefixed with `move_` (`move_illegal`, `move_ambiguous`,
    /// `move_syntax`, `move_not_strict`), and `move_game_over` for a move after the game's end.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Io(_) => "io",
            ErrorKind::Syntax(_) => "syntax",
            ErrorKind::Limit { .. } => "limit",
            ErrorKind::NoMovetext { .. } => "no_movetext",
            ErrorKind::Encoding { .. } => "encoding",
            ErrorKind::UnsupportedVariant(_) => "unsupported_variant",
            ErrorKind::MissingFen { .. } => "missing_fen",
            ErrorKind::Fen(_) => "fen",
            ErrorKind::NullMove { .. } => "null_move",
            ErrorKind::MarkedError(_) => "marked_error",
            ErrorKind::GameOver { .. } => "move_game_over",
            ErrorKind::Move { error, .. } => match error.kind() {
                "syntax" => "move_syntax",
                "illegal" => "move_illegal",
                "ambiguous" => "move_ambiguous",
                "not_strict" => "move_not_strict",
                _ => "move_other",
            },
        }
    }
}

/// One of the bounds of [`crate::ReaderLimits`], as an [`ErrorKind::Limit`] names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bound {
    /// [`crate::ReaderLimits::max_game_bytes`].
    GameBytes,
    /// [`crate::ReaderLimits::max_tags`].
    Tags,
    /// [`crate::ReaderLimits::max_tag_value_bytes`].
    TagValueBytes,
    /// [`crate::ReaderLimits::max_plies`].
    Plies,
    /// [`crate::ReaderLimits::max_variation_depth`].
    VariationDepth,
}

impl Bound {
    /// What the bound counts, as the error says it: `game size in bytes`, `number of tag
    /// pairs`, `tag value length in bytes`, `number of plies`, `variation nesting depth`.
    #[must_use]
    pub fn what(self) -> &'static str {
        match self {
            Bound::GameBytes => "game size in bytes",
            Bound::Tags => "number of tag pairs",
            Bound::TagValueBytes => "tag value length in bytes",
            Bound::Plies => "number of plies",
            Bound::VariationDepth => "variation nesting depth",
        }
    }

    /// The `arbiter` flag that sets the bound, the same for `arbiter adjudicate` and `arbiter
    /// serve`: `--max-game-bytes`, `--max-tags`, `--max-tag-value-bytes`, `--max-moves`,
    /// `--max-variation-depth`. (The server's `--max-pgn-bytes` bounds a request's whole PGN
    /// text before its reader sees it, so only `adjudicate` meets the bound on a game's bytes.)
    #[must_use]
    pub fn flag(self) -> &'static str {
        match self {
            Bound::GameBytes => "--max-game-bytes",
            Bound::Tags => "--max-tags",
            Bound::TagValueBytes => "--max-tag-value-bytes",
            Bound::Plies => "--max-moves",
            Bound::VariationDepth => "--max-variation-depth",
        }
    }
}

/// Something the reader accepted but that the reader of the record should know, with where it
/// is. Warnings never cost a game its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}:{column}: {kind}")]
pub struct ReadWarning {
    /// The 1-based line of the input.
    pub line: u32,
    /// The 1-based column, in characters, on that line.
    pub column: u32,
    /// The number of main-line plies before it (0 = before the first move, or in the tag
    /// section): a glyph after move 12 of White has ply 23.
    pub ply: u32,
    /// What was noticed.
    pub kind: WarningKind,
}

/// What a [`ReadWarning`] is about. [`WarningKind::code`] gives a stable machine-readable code.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WarningKind {
    /// A tag name (compared ignoring ASCII case) appears twice in one tag section (PGN standard
    /// 8.1.1 allows one tag pair per name): the first value is used, the later one is kept in
    /// [`crate::RawGame::tags`] but never read.
    #[error(
        "tag '{name}' repeats the tag of line {first_line}: the first value is used (PGN standard 8.1.1)"
    )]
    RepeatedTag {
        /// The name as written in the repeated pair.
        name: String,
        /// The line of the first pair with that name.
        first_line: u32,
    },
    /// A Unicode annotation symbol in the movetext with no single NAG of its own (e.g. `⨀`
    /// zugzwang, `→` attack, whose NAGs differ by side): skipped.
    #[error("annotation symbol '{glyph}' has no single NAG (PGN standard 10): skipped")]
    SkippedGlyph {
        /// The symbol.
        glyph: char,
    },
    /// A run of `!`/`?` marks with no NAG of its own (`!!!`, `?!?`; PGN standard 10 numbers
    /// `!`, `?`, `!!`, `??`, `!?`, `?!` only): skipped. Code `skipped_glyph`, as a symbol's.
    #[error(
        "annotation marks '{marks}' have no NAG (PGN standard 10 numbers !, ?, !!, ??, !? and ?!): skipped"
    )]
    SkippedMarks {
        /// The marks as written.
        marks: String,
    },
    /// One game holds non-ASCII UTF-8 and bytes that are not UTF-8 (read as Windows-1252), in
    /// two tag values or in one: each was decoded on its own, but a file mixing encodings
    /// deserves a look at the names. Both names are the same tag when one value mixes them.
    #[error(
        "tag '{utf8_tag}' was read as UTF-8 and tag '{windows_tag}' as Windows-1252: the game mixes two encodings, check its names"
    )]
    MixedEncoding {
        /// The first tag with non-ASCII UTF-8.
        utf8_tag: String,
        /// The first tag decoded as Windows-1252 (the warning's line is its line).
        windows_tag: String,
    },
    /// A blank line inside a tag section, the tag pairs after it repeating none of the
    /// section's and no movetext between (ChessBase writes such files): one game, as a person
    /// reads it, rather than a game without movetext and a game without its first tags. The
    /// warning's line is the first tag line after the blank line.
    #[error(
        "the tag section has a blank line (line {blank_line}) before this tag pair, which repeats none of its tags: read as one tag section (PGN standard 8.1 puts no blank line inside one)"
    )]
    BlankLineInTags {
        /// The blank line.
        blank_line: u32,
    },
    /// Movetext whose first move number is not 1 (`12. Nf3`) in a game with tags and no `FEN`
    /// tag: PGN standard 9.7.2 gives a game that starts elsewhere its position in a `FEN` tag,
    /// so the moves are played from the initial position, and the moves before are likely
    /// missing (an export cut at the start). The warning's line is the first move's.
    #[error(
        "the movetext starts at move {number}, but the game has no FEN tag: its moves are played from the initial position (PGN standard 9.7.2), and the moves before move {number} may be missing"
    )]
    MovetextStartsLater {
        /// The first move number of the movetext.
        number: u32,
    },
    /// A game termination marker written otherwise than PGN's `1-0`, `0-1`, `1/2-1/2` (PGN
    /// standard 8.2.6): `1:0`, `0:1`, `½-½`, `½:½`, `1/2:1/2`, `0.5-0.5`, `0,5-0,5` and their
    /// colon forms, read as the PGN marker.
    #[error(
        "the termination marker '{written}' at line {line}:{column} was read as {read_as} (PGN standard 8.2.6 writes 1-0, 0-1, 1/2-1/2 or *)"
    )]
    NonstandardResult {
        /// The marker as written (a Unicode dash in it already read as `-`).
        written: String,
        /// The PGN marker it was read as.
        read_as: &'static str,
        /// Its 1-based line.
        line: u32,
        /// Its 1-based column.
        column: u32,
    },
    /// A character of the movetext outside ASCII that a person reads as an ASCII one of PGN, or
    /// does not see at all ([`CharClass`]): read as that character, or skipped. One warning
    /// per character per game, at its first place, with the number of times the game's
    /// movetext (comments excluded, variations included) holds it. A dash that is part of an
    /// evaluation glyph (`+−`, `−/+`) is the glyph's and gets no warning.
    #[error("{}", read_as_sentence(*class, *written, *read_as, (*line, *column), *count))]
    ReadAs {
        /// Its class, which gives the warning's code.
        class: CharClass,
        /// The character as written.
        written: char,
        /// The ASCII character it was read as; `None` when it was skipped.
        read_as: Option<char>,
        /// The 1-based line of its first place (the warning's line).
        line: u32,
        /// The 1-based column of its first place.
        column: u32,
        /// The number of times the game's movetext holds it, at least 1.
        count: u32,
    },
}

impl WarningKind {
    /// A stable code: `repeated_tag`, `skipped_glyph`, `mixed_encoding`, `blank_line_in_tags`,
    /// `movetext_starts_later`, `nonstandard_result`, and for a character read as another ([`WarningKind::ReadAs`]) its
    /// class's ([`CharClass::code`]: `unicode_dash`, `unicode_space`, `invisible_character`,
    /// `lookalike_character`, `figurine`).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            WarningKind::RepeatedTag { .. } => "repeated_tag",
            WarningKind::SkippedGlyph { .. } | WarningKind::SkippedMarks { .. } => "skipped_glyph",
            WarningKind::MixedEncoding { .. } => "mixed_encoding",
            WarningKind::BlankLineInTags { .. } => "blank_line_in_tags",
            WarningKind::MovetextStartsLater { .. } => "movetext_starts_later",
            WarningKind::NonstandardResult { .. } => "nonstandard_result",
            WarningKind::ReadAs { class, .. } => class.code(),
        }
    }
}

/// The kinds of characters outside ASCII that the reader reads in movetext as the ASCII
/// character a person sees in them (or skips, when nothing is seen), each with a warning of its
/// own code ([`WarningKind::ReadAs`]). Tag values and comments are never changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CharClass {
    /// `unicode_dash`: a hyphen, dash or minus sign other than ASCII's `-` (U+2010 to U+2015,
    /// U+2212, U+FE58, U+FE63, U+FF0D; Windows-1252 0x96 and 0x97): web pages write `O‑O`
    /// with U+2011 so that it never breaks across lines, word processors `1–0` with U+2013.
    /// Read as `-`.
    Dash,
    /// `unicode_space`: a no-break or other Unicode space (U+00A0, U+2000 to U+200A, U+202F,
    /// U+205F, U+3000; Windows-1252 0xA0). Read as a space.
    Space,
    /// `invisible_character`: a character that shows nothing (zero-width space, non-joiner and
    /// joiner U+200B to U+200D, the direction marks U+200E, U+200F, U+202A to U+202E and
    /// U+2066 to U+2069, the word joiner and invisible operators U+2060 to U+2064, a byte-order
    /// mark U+FEFF inside a line, the soft hyphen U+00AD). Skipped: `N\u{200B}f3` is `Nf3`.
    Invisible,
    /// `lookalike_character`: a character drawn like the ASCII one of SAN that it is read as:
    /// full-width letters, digits and `+ # = . / :` (U+FF01 to U+FF5E, typed with an East
    /// Asian input method), `×` for the capture sign `x`, `†` for check `+`, `‡` for mate `#`,
    /// `…` for the periods of a move number.
    Lookalike,
    /// `figurine`: a figurine piece symbol (FIDE Laws Appendix C.4 allows figurine notation;
    /// PGN writes the English letter): ♔♚ `K`, ♕♛ `Q`, ♖♜ `R`, ♗♝ `B`, ♘♞ `N`, of either
    /// colour; a pawn figurine ♙♟ is skipped (SAN names no pawn).
    Figurine,
}

impl CharClass {
    /// The stable warning code: `unicode_dash`, `unicode_space`, `invisible_character`,
    /// `lookalike_character`, `figurine`.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            CharClass::Dash => "unicode_dash",
            CharClass::Space => "unicode_space",
            CharClass::Invisible => "invisible_character",
            CharClass::Lookalike => "lookalike_character",
            CharClass::Figurine => "figurine",
        }
    }

    /// What a character of the class is, for the warning's sentence: "the dash", "the
    /// space", ...
    fn what(self) -> &'static str {
        match self {
            CharClass::Dash => "the dash",
            CharClass::Space => "the space",
            CharClass::Invisible => "the invisible character",
            CharClass::Lookalike => "the character",
            CharClass::Figurine => "the figurine",
        }
    }
}

/// The sentence of a [`WarningKind::ReadAs`] warning.
fn read_as_sentence(
    class: CharClass,
    written: char,
    read_as: Option<char>,
    (line, column): (u32, u32),
    count: u32,
) -> String {
    let shown = if class == CharClass::Invisible || written.is_whitespace() {
        String::new()
    } else {
        format!("'{written}' ")
    };
    let done = match read_as {
        Some(' ') => "read as a space".to_owned(),
        Some(c) => format!("read as '{c}'"),
        None if class == CharClass::Figurine => {
            "skipped (SAN writes no letter for a pawn)".to_owned()
        }
        None => "skipped".to_owned(),
    };
    let times = if count > 1 {
        format!(" ({count} times in the game's movetext)")
    } else {
        String::new()
    };
    format!(
        "{} {shown}(U+{:04X}) at line {line}:{column} was {done}{times}: SAN, move numbers and results are ASCII (PGN standard 7, 8.2)",
        class.what(),
        u32::from(written)
    )
}
