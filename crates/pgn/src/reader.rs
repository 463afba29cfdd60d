//! The streaming PGN reader: games out of any [`BufRead`], one at a time, in bounded memory.

use std::fmt;
use std::io::{self, BufRead};
use std::ops::Deref;

use arbiter_rules::{MAX_MOVE_TEXT_LEN, castling_side};

use crate::error::{Bound, CharClass, ErrorKind, PgnError, ReadWarning, SkippedLines, WarningKind};
use crate::split::{Chunk, ChunkText};

/// The default bound on the plies of one game (10,000), the one default of every door: the
/// reader, the CLI's `--max-moves`, the server's `--max-moves` (move lists and games on the
/// wire) and its settings.
pub const DEFAULT_MAX_PLIES: u32 = 10_000;

/// The default bound on the bytes of one game's PGN text (1 MiB), the one default of the
/// reader, the CLI's `--max-game-bytes` and the server's `--max-pgn-bytes`.
pub const DEFAULT_MAX_GAME_BYTES: u32 = 1 << 20;

/// The default bound on the tag pairs of one game (256), the one default of the reader and of
/// `--max-tags` (both commands).
pub const DEFAULT_MAX_TAGS: u32 = 256;

/// The default bound on the bytes of one tag value (4,096), the one default of the reader and
/// of `--max-tag-value-bytes` (both commands).
pub const DEFAULT_MAX_TAG_VALUE_BYTES: u32 = 4096;

/// The default bound on the nesting depth of variations (64), the one default of the reader and
/// of `--max-variation-depth` (both commands).
pub const DEFAULT_MAX_VARIATION_DEPTH: u32 = 64;

/// Bounds on what one game may hold. Exceeding one is an error for that game only
/// ([`ErrorKind::Limit`], naming the [`Bound`]): the reader skips the rest of it
/// ([`PgnError::skipped`]) and goes on with the next game. A game that reaches a bound exactly
/// is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderLimits {
    /// Bytes of one game (tag section and movetext, line terminators counted as one byte each).
    /// Default 1 MiB. Also bounds the reader's memory for a single line: a longer line is read
    /// in pieces of at most this many bytes (its game is too large), so memory stays bounded
    /// even for input without line breaks, and the skip after the error still reads it to its
    /// end.
    pub max_game_bytes: usize,
    /// Tag pairs of one game. Default 256.
    pub max_tags: usize,
    /// Bytes of one tag value (after escapes are decoded). Default 4096.
    pub max_tag_value_bytes: usize,
    /// Plies (moves of either side) in the main line. Default 10,000.
    pub max_plies: usize,
    /// Nesting depth of recursive annotation variations (PGN standard 8.2.5): `(` inside the
    /// main line is depth 1. Default 64; 0 refuses every variation.
    pub max_variation_depth: usize,
}

impl Default for ReaderLimits {
    fn default() -> ReaderLimits {
        ReaderLimits {
            max_game_bytes: DEFAULT_MAX_GAME_BYTES as usize,
            max_tags: DEFAULT_MAX_TAGS as usize,
            max_tag_value_bytes: DEFAULT_MAX_TAG_VALUE_BYTES as usize,
            max_plies: DEFAULT_MAX_PLIES as usize,
            max_variation_depth: DEFAULT_MAX_VARIATION_DEPTH as usize,
        }
    }
}

/// How the tag values of a game were decoded. Each value is decoded on its own: UTF-8 when it is
/// valid UTF-8, else Windows-1252 (a game mixing both gets a [`WarningKind::MixedEncoding`]
/// warning). Movetext is ASCII apart from comments and glyphs, which are read per line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Every tag value was valid UTF-8 (PGN standard 4.1 asks for ISO 8859-1; UTF-8 is today's
    /// norm).
    #[default]
    Utf8,
    /// At least one tag value was not valid UTF-8 and was decoded as Windows-1252, one character
    /// per byte:
    /// ISO 8859-1 (Latin-1, which the PGN standard 4.1 names) everywhere but 0x80-0x9F, which
    /// Latin-1 leaves to control codes and files from Windows tools use for `’ ‘ “ ” – — € Š Ž
    /// š ž Œ œ Ÿ ...`. The five bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
    /// 0x9D) in a tag value fail the game ([`ErrorKind::Encoding`]).
    Windows1252,
}

/// The text of one movetext token: at most [`MAX_MOVE_TEXT_LEN`] ASCII bytes, stored inline
/// (no allocation per move). Dereferences to `str`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveText(arrayvec::ArrayString<MAX_MOVE_TEXT_LEN>);

impl MoveText {
    /// `None` when `text` is longer than [`MAX_MOVE_TEXT_LEN`] bytes or not ASCII.
    #[must_use]
    pub fn new(text: &str) -> Option<MoveText> {
        if !text.is_ascii() {
            return None;
        }
        arrayvec::ArrayString::from(text).ok().map(MoveText)
    }

    fn from_bytes(text: &[u8]) -> Option<MoveText> {
        // Checked as text once here, not each time it is read: a replay read each move's text
        // several times, 4 % of its instructions.
        MoveText::new(std::str::from_utf8(text).ok()?)
    }

    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for MoveText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for MoveText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for MoveText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One move of the main line as written in the movetext (PGN standard 8.2.3), with where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SanToken {
    /// The move text without annotation marks (`!`, `?`, `!!`, `!?`, ... are moved to
    /// [`RawGame::nags`]); check signs `+`/`#` are kept. Usually SAN; may be UCI or another
    /// notation the replay tolerates.
    pub text: MoveText,
    /// 1-based line of the input.
    pub line: u32,
    /// 1-based column (characters) on that line.
    pub column: u32,
    /// 1-based ply in the main line (1 = the first move of the game).
    pub ply: u32,
    /// A null move (`--`, `Z0`, `0000`, `@@@@`): not a legal move; replay reports it as an error.
    pub null: bool,
}

/// A Numeric Annotation Glyph (PGN standard 8.2.4) of the main line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nag {
    /// The number of main-line plies before it: the NAG annotates move `ply` (0 = before the
    /// first move).
    pub ply: u32,
    /// The glyph, 0 to 255 (`$1` = `!`, `$2` = `?`, `$3` = `!!`, `$4` = `??`, `$5` = `!?`,
    /// `$6` = `?!`).
    pub value: u8,
}

/// One game as read, before the moves are checked against the rules (see [`crate::replay`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawGame {
    /// 0-based number of the game in the input.
    pub index: usize,
    /// 1-based line of the input where the game starts.
    pub line: u32,
    /// How the game's tag values were decoded.
    pub encoding: Encoding,
    /// Tag pairs in input order (PGN standard 8.1), escapes `\"` and `\\` decoded.
    pub tags: Vec<(String, String)>,
    /// The 1-based input line of each tag pair, parallel to `tags`.
    pub tag_lines: Vec<u32>,
    /// The main line's moves (variations are checked for balance and skipped).
    pub moves: Vec<SanToken>,
    /// The NAGs and annotation marks of the main line.
    pub nags: Vec<Nag>,
    /// The number of comments (`{...}` and `;...`), variations included (PGN standard 8.2.5).
    pub comments: usize,
    /// The number of top-level recursive annotation variations (PGN standard 8.2.5).
    pub variations: usize,
    /// The game termination marker (PGN standard 8.2.6): `1-0`, `0-1`, `1/2-1/2` or `*`; `None`
    /// when the movetext ends without one.
    pub result: Option<String>,
    /// The 1-based line of the termination marker (0 when there is none).
    pub result_line: u32,
    /// What the reader accepted but noticed (a repeated tag name, a skipped annotation symbol),
    /// in input order. Bounded: at most one per tag pair and one per movetext character.
    pub warnings: Vec<ReadWarning>,
}

impl RawGame {
    /// The value of the first tag named `name` (ASCII case-insensitive): a repeated tag name
    /// is a [`WarningKind::RepeatedTag`] warning, and its first value is the one used.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tag_index(name).map(|i| self.tags[i].1.as_str())
    }

    /// The index in `tags` of the first tag named `name` (ASCII case-insensitive).
    #[must_use]
    pub fn tag_index(&self, name: &str) -> Option<usize> {
        self.tags
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    fn clear(&mut self) {
        self.index = 0;
        self.line = 0;
        self.encoding = Encoding::Utf8;
        self.tags.clear();
        self.tag_lines.clear();
        self.moves.clear();
        self.nags.clear();
        self.comments = 0;
        self.variations = 0;
        self.result = None;
        self.result_line = 0;
        self.warnings.clear();
    }
}

#[derive(Clone, Copy, Debug)]
struct TagSpan {
    name: (usize, usize),
    value: (usize, usize),
    line: u32,
    /// The column of the value's first character.
    value_column: u32,
}

/// A streaming PGN reader: an iterator of games, one game in memory at a time.
///
/// Reads PGN import format (PGN standard 8): tag pairs with `\"` and `\\` escapes (several per
/// line allowed), movetext with move numbers written `12.`, `12...`, `12.e4` or `12`, brace and
/// rest-of-line comments, recursive variations, NAGs, `!`/`?` marks and evaluation glyphs (`±`,
/// `∓`, `⩲`, `⩱`, `+-`, `-+`, `=`, `∞`, ..., see [`glyph_nag`]), game termination markers, games
/// without a termination marker (ended by the next tag section or the end of input) and games
/// without tags (which start at move 1).
///
/// One PGN game is one game: a tag section followed by a blank line and another tag section
/// that repeats one of its tag names is two games, the first without movetext
/// ([`ErrorKind::NoMovetext`], never merged into the next); a blank line inside a tag section
/// whose next tag line repeats none of its tags, no movetext between, is read past as a
/// person reads it (ChessBase writes such sections), with a [`WarningKind::BlankLineInTags`]
/// warning; a tag name repeated within one tag section is a [`WarningKind::RepeatedTag`]
/// warning.
///
/// Characters outside ASCII in movetext that a person reads as PGN's (Unicode dashes in `1–0`
/// and `O‑O`, no-break spaces, zero-width characters and a byte-order mark inside a line,
/// full-width letters, `×`, figurines, see [`CharClass`]) are read as the ASCII character they
/// show, or skipped when they show nothing, with a [`WarningKind::ReadAs`] warning per
/// character; comments and tag values are kept as written. Termination markers written as
/// other tools write them (`1:0`, `½-½`, `0,5-0,5`) are read with a
/// [`WarningKind::NonstandardResult`] warning.
///
/// On an error, [`Reader::read_game`] leaves the game's index, start line and the tags read so
/// far in the game, so an error record keeps the game's identity. `%` lines in column 1 are skipped
/// (PGN standard 6). A UTF-8 byte order mark is skipped; lines may end with LF, CRLF or CR.
///
/// Each tag value is decoded as UTF-8 when valid, otherwise as Windows-1252
/// ([`RawGame::encoding`]). Every size is bounded by [`ReaderLimits`].
///
/// After an error in the middle of a game (a syntax error, a limit), the reader goes on reading
/// the game without keeping anything of it, by the very rules that end a game without an error,
/// and skips it to its end: its termination marker outside comments and variations (what
/// follows, movetext or a tag section, is the next game), a line starting with `[` after
/// movetext, a tag section after a blank line, a second `[Event` line, a line of Seven Tag
/// Roster pairs inside an unclosed comment, or the end of the input. The error names the lines
/// it skipped ([`PgnError::skipped`]), so one bad game never costs another game, with or
/// without tags, and never ends the stream. Only an I/O error does. Text in another encoding
/// (UTF-16, UTF-32) is not read as movetext at all: it is skipped up to the next line that
/// starts a tag section.
///
/// Move numbers are not checked against the moves; a `1-0` inside a variation is ignored.
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    limits: ReaderLimits,
    line: Vec<u8>,
    line_no: u32,
    line_ascii: bool,
    line_utf8: bool,
    /// `line` is a piece of a line longer than [`ReaderLimits::max_game_bytes`] that does not
    /// end it (see `read_line`).
    line_continues: bool,
    /// Nothing but spaces of the current line has been read yet: its next piece is read as the
    /// start of a line.
    line_fresh: bool,
    /// `line` starts at the line's first byte (column 1).
    piece_starts_line: bool,
    /// The characters of the line before the piece in `line`, for columns.
    column_base: u32,
    /// The characters of the line up to the end of the piece in `line`.
    next_column_base: u32,
    /// The bytes of a long line's piece after its last space, carried over to the next piece so
    /// that no token is cut in two.
    carry: Vec<u8>,
    pending: bool,
    skip_lf: bool,
    /// The first error of the game being read: the rest of the game is skipped.
    failed: Option<PgnError>,
    /// The line where the game being skipped had its error.
    skip_from: u32,
    /// An I/O error met while skipping a game, reported after that game's error.
    deferred: Option<PgnError>,
    finished: bool,
    next_index: usize,
    tag_arena: Vec<u8>,
    tag_spans: Vec<TagSpan>,
    scan: Scan,
    /// The line where the input's next game starts, when the input is a [`crate::Chunk`] of a
    /// larger one: the chunk's last line, which the next chunk reads again as its first.
    next_chunk_line: Option<u32>,
    /// The movetext of the current piece of a line with its characters outside ASCII read as
    /// the ASCII ones a person sees ([`movetext_reading`]), when it has any.
    norm: Vec<u8>,
    /// What `norm` read otherwise than written, in order: warned about as the scan passes
    /// them outside comments.
    subst: Vec<Substitution>,
    /// The first of `subst` not yet passed.
    subst_next: usize,
    /// The next game's tag section starts on the line of the last game's termination marker.
    tags_after_marker: bool,
}

/// A character of a line's movetext read as an ASCII one, or skipped (see
/// [`movetext_reading`]).
#[derive(Clone, Copy, Debug)]
struct Substitution {
    /// Where its reading is in the read line (where it was, when skipped).
    at: usize,
    /// Its bytes in the line as written.
    len: usize,
    /// The ASCII character it was read as; `None` when skipped.
    read_as: Option<u8>,
    written: char,
    class: CharClass,
    /// Its 1-based column.
    column: u32,
    /// Part of an evaluation glyph (`+−`): the glyph's, no warning.
    exempt: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    started: bool,
    movetext: bool,
    in_comment: bool,
    comment_at: (u32, u32),
    depth: usize,
    variation_at: (u32, u32),
    result_done: bool,
    bytes: usize,
    /// A blank line came after the tag section, before any movetext: a `[` line now starts
    /// another game.
    blank_after_tags: bool,
    /// The number of the first main-line move number (`12.`), if one came before the first move.
    first_move_number: Option<u32>,
    /// A `[` after the termination marker on the same line, at this byte: the next game's tag
    /// section starts there.
    next_game_at: Option<usize>,
    /// The rest of the current line is not movetext: a `%` line, or a `;` comment reached.
    line_ignored: bool,
    /// The last line of the game that is not blank (the last line skipped after an error).
    last_line: u32,
    /// The game's text is in an encoding the reader does not read (UTF-16, UTF-32): it is
    /// skipped without looking for termination markers.
    not_text: bool,
    /// A tag pair of the section is named `Event` (ASCII case-insensitive), its value read or
    /// not: a second `[Event` line starts the next game.
    event_named: bool,
    /// The first blank line after the tag section, while `blank_after_tags`.
    blank_line: u32,
    /// The tag section started on the line of the game before's termination marker (`... 1-0
    /// [Event "B"]`): a tag line after a blank line starts the next game, whatever its tags (the
    /// splitter of `-j` cuts there, not knowing the section).
    tags_after_marker: bool,
    /// A number without a period (`12`), read as a move number only when a move follows it:
    /// where it stands, until the next token says.
    bare_number: Option<BareNumber>,
}

/// A number without a period in the movetext (`12 Nf3`, PGN import files without periods):
/// a move number when a move follows it, else an error (see [`Reader::bare_number_unfollowed`]).
#[derive(Clone, Copy, Debug)]
struct BareNumber {
    line: u32,
    column: u32,
    /// Its digits as written (the first 16).
    text: arrayvec::ArrayString<16>,
}

/// Whether a movetext token is castling written with `O`, `o` or zeros, with or without dashes
/// and a check sign (`0-0`, `00`, `000+`, `0-O-0`, or a broken `0-0-0-0`), or the null move
/// `0000`: a move for the replay to read (or refuse, with the reason), never a move number.
fn castling_shaped(token: &[u8]) -> bool {
    let token = token
        .strip_suffix(b"+")
        .or_else(|| token.strip_suffix(b"#"))
        .unwrap_or(token);
    token == b"0000" || std::str::from_utf8(token).is_ok_and(|text| castling_side(text).is_some())
}

/// The name of the first tag pair when `line` holds tag pairs and nothing else (PGN standard
/// 8.1.1: `[Name "value"]`, spaces allowed around the tokens, `\"` and `\\` escapes in the
/// value), optionally followed by a `;` comment; `None` for any other line (a comment's words
/// after a tag pair included).
fn tag_pairs_line(line: &[u8]) -> Option<&[u8]> {
    let n = line.len();
    let skip_spaces = |mut i: usize| {
        while i < n && is_space(line[i]) {
            i += 1;
        }
        i
    };
    let mut first = None;
    let mut i = skip_spaces(0);
    while i < n && line[i] != b';' {
        if line[i] != b'[' {
            return None;
        }
        i = skip_spaces(i + 1);
        let name_start = i;
        while i < n && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
            i += 1;
        }
        if i == name_start {
            return None;
        }
        first.get_or_insert(&line[name_start..i]);
        i = skip_spaces(i);
        if line.get(i) != Some(&b'"') {
            return None;
        }
        i += 1;
        loop {
            match line.get(i)? {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        i = skip_spaces(i + 1);
        if line.get(i) != Some(&b']') {
            return None;
        }
        i = skip_spaces(i + 1);
    }
    first
}

/// The tags of the Seven Tag Roster (PGN standard 8.1.1), with which exports begin a game.
const SEVEN_TAG_ROSTER: [&[u8]; 7] = [
    b"Event", b"Site", b"Date", b"Round", b"White", b"Black", b"Result",
];

/// A line that can only be the first of a game's tag section: tag pairs and nothing else, the
/// first a tag of the Seven Tag Roster (any letter case). Ends an unclosed comment (unless a
/// `}` on it closes the comment there).
pub(crate) fn starts_tag_section(line: &[u8]) -> bool {
    tag_pairs_line(line).is_some_and(|name| {
        SEVEN_TAG_ROSTER
            .iter()
            .any(|t| t.eq_ignore_ascii_case(name))
    })
}

/// A line of tag pairs whose first is `Event` (any letter case): in a tag section that already
/// has an Event tag, the next game's.
fn is_event_tag_line(line: &[u8]) -> bool {
    // Most tag lines are not: the first letter of the name decides before the whole line is
    // parsed.
    let name = line
        .trim_ascii_start()
        .strip_prefix(b"[")
        .map(<[u8]>::trim_ascii_start);
    if !matches!(name.and_then(<[u8]>::first), Some(b'E' | b'e')) {
        return false;
    }
    tag_pairs_line(line).is_some_and(|name| name.eq_ignore_ascii_case(b"Event"))
}

/// The UTF-8 text that starts at byte `at` of `line`, up to its first byte that is not UTF-8
/// (a line may mix encodings); empty when the byte at `at` is not UTF-8, and so a Windows-1252
/// character.
fn utf8_text_at(line: &[u8], at: usize) -> &str {
    line[at..]
        .utf8_chunks()
        .next()
        .map_or("", |chunk| chunk.valid())
}

/// A line the reader reads as blank: spaces and tabs only, after a byte-order mark.
pub(crate) fn is_blank_line(line: &[u8]) -> bool {
    line.strip_prefix(&[0xef, 0xbb, 0xbf])
        .unwrap_or(line)
        .iter()
        .all(|&c| is_space(c))
}

pub(crate) fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Characters that continue a move or move-number token.
fn is_token_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'#' | b'=' | b':' | b'/' | b'@' | b'.')
}

/// The Unicode and ASCII evaluation glyphs of exports (lichess, ChessBase, Informant) and the NAG
/// each stands for (PGN standard 10: $3 `‼`, $5 `⁉`, $6 `⁈`, $7 only move, $10 drawish/equal,
/// $13 unclear, $14/$15 slight advantage White/Black, $16/$17 moderate advantage, $18/$19
/// decisive advantage; $146 `N` novelty, as ChessBase numbers it). The minus may be written `-`,
/// `−` (U+2212) or `–` (U+2013). Longest first.
const GLYPHS: &[(&str, u8)] = &[
    ("+/-", 16),
    ("-/+", 17),
    ("+/=", 14),
    ("=/+", 15),
    ("+/\u{2013}", 16),
    ("\u{2013}/+", 17),
    ("+/\u{2212}", 16),
    ("\u{2212}/+", 17),
    ("+\u{2212}", 18),
    ("\u{2212}+", 19),
    ("+\u{2013}", 18),
    ("\u{2013}+", 19),
    ("+-", 18),
    ("-+", 19),
    ("+=", 14),
    ("=+", 15),
    ("\u{2a72}", 14),   // ⩲
    ("\u{2a71}", 15),   // ⩱
    ("\u{b1}", 16),     // ±
    ("\u{2213}", 17),   // ∓
    ("\u{221e}", 13),   // ∞
    ("\u{25a1}", 7),    // □
    ("\u{203c}", 3),    // ‼
    ("\u{2049}", 5),    // ⁉
    ("\u{2048}", 6),    // ⁈
    ("\u{2047}", 4),    // ⁇
    ("=/\u{221e}", 44), // =/∞ compensation
    ("N", 146),         // novelty
    ("=", 10),
];

/// A move token with an ASCII evaluation glyph glued to its end (`Qxf7#+-`, `Nf3=`, `e4-+`):
/// the move and the glyph's NAG, when what is left ends as a move does (a rank digit, a
/// promotion letter, `+`, `#` or castling's `O` or `0`); else the token as it is.
#[inline(always)]
fn split_glued_glyph(token: &[u8]) -> (&[u8], Option<u8>) {
    // Every ASCII glyph ends with `-` or `=`, or with `+` after `-`, `=` or `/`; a move ends
    // otherwise (a check `Nf3+` has its square before the `+`). Most tokens leave here, without
    // a look at the table (it cost a fifth of the CLI's time at `--analysis material`), and
    // without a call.
    if !matches!(token, [.., b'-' | b'='] | [.., b'-' | b'=' | b'/', b'+']) {
        return (token, None);
    }
    split_glyph_by_table(token)
}

/// [`split_glued_glyph`] for a token that may end with a glyph: the table lookup.
#[inline(never)]
fn split_glyph_by_table(token: &[u8]) -> (&[u8], Option<u8>) {
    for &(glyph, nag) in GLYPHS {
        let glyph = glyph.as_bytes();
        // `N` (novelty) is never glued: `e8N` is a promotion.
        if glyph.is_ascii()
            && !glyph.iter().any(u8::is_ascii_alphabetic)
            && token.len() > glyph.len()
            && token.ends_with(glyph)
            && matches!(
                token[token.len() - glyph.len() - 1],
                b'0'..=b'8' | b'Q' | b'R' | b'B' | b'N' | b'+' | b'#' | b'O'
            )
        {
            return (&token[..token.len() - glyph.len()], Some(nag));
        }
    }
    (token, None)
}

/// A glyph of [`GLYPHS`] that starts with the last `cut` bytes of a move token and ends with
/// the first `consumed` bytes of `after` (the text after the token, which starts with a
/// non-ASCII character): `(cut, consumed, nag)`, when what is left of the token ends as a move
/// does (see [`split_glued_glyph`]).
fn glyph_across(token: &[u8], after: &[u8]) -> Option<(usize, usize, u8)> {
    GLYPHS.iter().find_map(|&(glyph, nag)| {
        let glyph = glyph.as_bytes();
        (1..glyph.len()).find_map(|cut| {
            let (head, tail) = glyph.split_at(cut);
            (token.len() > cut
                && token.ends_with(head)
                && after.starts_with(tail)
                && matches!(
                    token[token.len() - cut - 1],
                    b'0'..=b'8' | b'Q' | b'R' | b'B' | b'N' | b'+' | b'#' | b'O'
                ))
            .then_some((cut, tail.len(), nag))
        })
    })
}

/// The NAG an annotation glyph stands for (PGN standard 10), e.g. `"±"` is `$16`, `"-+"` is
/// `$19`, `"="` is `$10`, `"∞"` is `$13`; `None` for anything else.
#[must_use]
pub fn glyph_nag(glyph: &str) -> Option<u8> {
    GLYPHS
        .iter()
        .find(|(g, _)| *g == glyph)
        .map(|&(_, nag)| nag)
}

/// Symbols of the Unicode blocks annotation glyphs come from (arrows, mathematical operators,
/// technical symbols, geometric shapes): skipped with a warning when they have no single NAG.
fn is_annotation_symbol(c: char) -> bool {
    matches!(
        u32::from(c),
        0x2190..=0x23ff | 0x25a0..=0x25ff | 0x27f0..=0x27ff | 0x2900..=0x297f | 0x2a00..=0x2bff
    ) || c == '\u{394}' // Δ, "with the idea"
}

/// The `unicode_dash` warnings of a `Result` tag whose value is a result written with Unicode
/// dashes (`1–0`, read as `1-0` by [`crate::verdict::read_result`]): one per dash character,
/// at its first place, counted.
fn result_tag_dashes(value: &str, span: &TagSpan, warnings: &mut Vec<ReadWarning>) {
    if crate::verdict::read_result(value).is_none() {
        return;
    }
    let first = warnings.len();
    for (offset, c) in value.chars().enumerate() {
        if !is_unicode_dash(c) {
            continue;
        }
        let counted = warnings[first..]
            .iter_mut()
            .find_map(|w| match &mut w.kind {
                WarningKind::ReadAs { written, count, .. } if *written == c => Some(count),
                _ => None,
            });
        match counted {
            Some(count) => *count = count.saturating_add(1),
            None => {
                let column = span
                    .value_column
                    .saturating_add(u32::try_from(offset).unwrap_or(u32::MAX));
                warnings.push(ReadWarning {
                    line: span.line,
                    column,
                    ply: 0,
                    kind: WarningKind::ReadAs {
                        class: CharClass::Dash,
                        written: c,
                        read_as: Some('-'),
                        line: span.line,
                        column,
                        count: 1,
                    },
                });
            }
        }
    }
}

/// Whether `c` is a dash or minus sign the reader reads as `-` (class [`CharClass::Dash`]).
pub(crate) fn is_unicode_dash(c: char) -> bool {
    matches!(movetext_reading(c), Some((CharClass::Dash, _)))
}

/// A draw written with decimals, as some tools write it: read as `1/2-1/2` with a warning.
const DECIMAL_DRAWS: [&[u8]; 4] = [b"0.5-0.5", b"0.5:0.5", b"0,5-0,5", b"0,5:0,5"];

/// How the reader reads a character outside ASCII in movetext: its class and the ASCII
/// character a person sees in it, `None` for one that shows nothing (skipped); `None` for any
/// other character (annotation glyphs, `½`, letters of other alphabets: read as they are, or
/// refused). Never a character that opens or closes anything (`{ } ( ) [ ] ; %`), so that a
/// comment holding such a character reads as it did.
fn movetext_reading(c: char) -> Option<(CharClass, Option<u8>)> {
    let ascii = |b: u8| Some(b);
    Some(match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe58}' | '\u{fe63}' | '\u{ff0d}' => {
            (CharClass::Dash, ascii(b'-'))
        }
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => {
            (CharClass::Space, ascii(b' '))
        }
        '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}'
        | '\u{ad}' => (CharClass::Invisible, None),
        // Full-width forms of letters, digits and the signs of SAN and results.
        '\u{ff10}'..='\u{ff19}'
        | '\u{ff21}'..='\u{ff3a}'
        | '\u{ff41}'..='\u{ff5a}'
        | '\u{ff03}'
        | '\u{ff0b}'
        | '\u{ff0e}'
        | '\u{ff0f}'
        | '\u{ff1a}'
        | '\u{ff1d}' => (
            CharClass::Lookalike,
            u8::try_from(u32::from(c) - 0xfee0).ok(),
        ),
        '\u{d7}' => (CharClass::Lookalike, ascii(b'x')),
        '\u{2020}' => (CharClass::Lookalike, ascii(b'+')),
        '\u{2021}' => (CharClass::Lookalike, ascii(b'#')),
        '\u{2026}' => (CharClass::Lookalike, ascii(b'.')),
        '\u{2654}' | '\u{265a}' => (CharClass::Figurine, ascii(b'K')),
        '\u{2655}' | '\u{265b}' => (CharClass::Figurine, ascii(b'Q')),
        '\u{2656}' | '\u{265c}' => (CharClass::Figurine, ascii(b'R')),
        '\u{2657}' | '\u{265d}' => (CharClass::Figurine, ascii(b'B')),
        '\u{2658}' | '\u{265e}' => (CharClass::Figurine, ascii(b'N')),
        '\u{2659}' | '\u{265f}' => (CharClass::Figurine, None),
        _ => return None,
    })
}

/// Calls `f` with the name of each tag pair that starts `line` (`[Name "value"]`, spaces
/// allowed around the tokens), up to the end of the line or the first text that is not a tag
/// pair.
fn for_each_tag_name(line: &[u8], mut f: impl FnMut(&[u8])) {
    let n = line.len();
    let skip_spaces = |mut i: usize| {
        while i < n && is_space(line[i]) {
            i += 1;
        }
        i
    };
    let mut i = skip_spaces(0);
    while i < n && line[i] == b'[' {
        i = skip_spaces(i + 1);
        let start = i;
        while i < n && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
            i += 1;
        }
        if i == start {
            return;
        }
        f(&line[start..i]);
        i = skip_spaces(i);
        if line.get(i) != Some(&b'"') {
            return;
        }
        i += 1;
        loop {
            match line.get(i) {
                None => return,
                Some(b'\\') => i += 2,
                Some(b'"') => break,
                Some(_) => i += 1,
            }
        }
        i = skip_spaces(i + 1);
        if line.get(i) != Some(&b']') {
            return;
        }
        i = skip_spaces(i + 1);
    }
}

/// Windows-1252 leaves these five bytes undefined.
fn undefined_in_windows_1252(byte: u8) -> bool {
    matches!(byte, 0x81 | 0x8d | 0x8f | 0x90 | 0x9d)
}

/// The character of a byte in Windows-1252 (ISO 8859-1 but in 0x80-0x9F); U+FFFD for the five
/// undefined bytes.
fn windows_1252_char(byte: u8) -> char {
    if byte.is_ascii() {
        return char::from(byte);
    }
    if undefined_in_windows_1252(byte) {
        return char::REPLACEMENT_CHARACTER;
    }
    let bytes = [byte];
    let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
    text.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER)
}

fn mark_nag(marks: &[u8]) -> Option<u8> {
    match marks {
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => None,
    }
}

impl<'a> Reader<ChunkText<'a>> {
    /// A reader of one [`Chunk`] of a larger input, cut by a [`Splitter`](crate::Splitter): it
    /// reads the chunk's games, warnings and errors with the lines, columns and texts that a
    /// reader of the whole input gives them, and stops before the game that starts the next
    /// chunk. Game numbers ([`RawGame::index`], [`PgnError::game`]) count from 0 in each chunk.
    pub fn of_chunk(chunk: &'a Chunk, limits: ReaderLimits) -> Reader<ChunkText<'a>> {
        let mut reader =
            Reader::with_limits(ChunkText::new(chunk), limits).starting_at_line(chunk.first_line);
        reader.next_chunk_line = chunk.next_game_line;
        reader
    }
}

impl<R: BufRead> Reader<R> {
    /// A reader with the default [`ReaderLimits`].
    pub fn new(inner: R) -> Reader<R> {
        Reader::with_limits(inner, ReaderLimits::default())
    }

    /// A reader with the given limits.
    pub fn with_limits(inner: R, limits: ReaderLimits) -> Reader<R> {
        Reader {
            inner,
            limits,
            line: Vec::with_capacity(256),
            line_no: 0,
            line_ascii: true,
            line_utf8: true,
            line_continues: false,
            line_fresh: true,
            piece_starts_line: true,
            column_base: 0,
            next_column_base: 0,
            carry: Vec::new(),
            pending: false,
            skip_lf: false,
            failed: None,
            skip_from: 0,
            deferred: None,
            finished: false,
            next_index: 0,
            tag_arena: Vec::new(),
            tag_spans: Vec::new(),
            scan: Scan::default(),
            next_chunk_line: None,
            norm: Vec::new(),
            subst: Vec::new(),
            subst_next: 0,
            tags_after_marker: false,
        }
    }

    /// Numbers the input's lines from `first` instead of 1, for an input that is the rest of a
    /// larger one from its line `first` on, where a game starts or none is open
    /// ([`Splitter::into_rest`](crate::Splitter::into_rest)).
    #[must_use]
    pub fn starting_at_line(mut self, first: u32) -> Reader<R> {
        self.line_no = first.saturating_sub(1);
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &ReaderLimits {
        &self.limits
    }

    /// The wrapped input.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads the next game into `game`, reusing its allocations (faster than the iterator for
    /// bulk processing).
    ///
    /// Returns `Ok(true)` when a game was read and `Ok(false)` at the end of the input.
    ///
    /// # Errors
    /// A [`PgnError`] for a game that is not well-formed PGN or exceeds a limit; calling again
    /// goes on with the next game. After an I/O error ([`ErrorKind::Io`]) the reader is finished.
    pub fn read_game(&mut self, game: &mut RawGame) -> Result<bool, PgnError> {
        loop {
            let more = self.read_one(game)?;
            // Text that holds neither tags, moves nor a result (commentary between games, such as
            // the `;` lines some programs write after the termination marker) is no game.
            if more && game.tags.is_empty() && game.moves.is_empty() && game.result.is_none() {
                self.next_index -= 1;
                continue;
            }
            return Ok(more);
        }
    }

    fn read_one(&mut self, game: &mut RawGame) -> Result<bool, PgnError> {
        game.clear();
        if let Some(error) = self.deferred.take() {
            return Err(error);
        }
        if self.finished {
            return Ok(false);
        }
        self.scan = Scan::default();
        self.scan.tags_after_marker = std::mem::take(&mut self.tags_after_marker);
        self.failed = None;
        self.tag_arena.clear();
        self.tag_spans.clear();
        loop {
            if self.pending {
                // The line (or what is left of it) is read again as the start of the next game.
                self.pending = false;
                self.line_fresh = true;
            } else {
                match self.next_line() {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(error) if self.failed.is_some() => {
                        // The game being skipped ends here, with its own error; the I/O error
                        // comes next.
                        self.deferred = Some(error);
                        return self.finish(game).map(|()| true);
                    }
                    Err(error) => return Err(error),
                }
            }
            let line = std::mem::take(&mut self.line);
            let step = self.process_line(&line, game);
            self.line = line;
            match step {
                Step::Continue => {}
                Step::NextGameStarts | Step::CommentCutByNextGame => {
                    // The line starts the next game: read it again, skip nothing. (`finish`
                    // reports an unterminated comment.)
                    self.pending = true;
                    return self.finish(game).map(|()| true);
                }
                Step::GameEnds => return self.finish(game).map(|()| true),
                Step::GameEndsBeforeTags(at) => {
                    // Read the line again for the next game from the `[` on: the bytes before
                    // it become spaces, so that columns stay those of the input.
                    self.line[..at].fill(b' ');
                    self.pending = true;
                    self.tags_after_marker = true;
                    return self.finish(game).map(|()| true);
                }
                Step::ChunkEnds => break,
                Step::NoMovetext => {
                    // The tag line starts the next game: read it again, skip nothing.
                    self.pending = true;
                    if self.failed.is_some() {
                        // A tag section with an error, skipped up to here.
                        return self.finish(game).map(|()| true);
                    }
                    let _ = self.decode_tags(game);
                    return Err(self.no_movetext(game));
                }
            }
        }
        self.finished = true;
        if !self.scan.started {
            return Ok(false);
        }
        self.finish(game).map(|()| true)
    }

    /// Notes the game's first error: the game goes on being read, by the same rules, but
    /// nothing more of it is kept or checked, up to its end ([`Reader::finish`] reports it with
    /// the lines skipped).
    fn fail(&mut self, error: PgnError) {
        if self.failed.is_none() {
            self.skip_from = self.line_no;
            self.failed = Some(error);
        }
    }

    /// The game had an error: the rest of it is being skipped.
    fn skipping(&self) -> bool {
        self.failed.is_some()
    }

    fn error(&self, game: &RawGame, line: u32, column: u32, kind: ErrorKind) -> PgnError {
        PgnError::new(line, column, game.index, kind)
    }

    fn syntax_at(&self, game: &RawGame, line: &[u8], at: usize, message: String) -> PgnError {
        self.error(
            game,
            self.line_no,
            self.column(line, at),
            ErrorKind::Syntax(message),
        )
    }

    /// The 1-based character column of byte offset `at` of the current piece of a line (of
    /// the line as read, when its movetext was read otherwise than written: the characters
    /// skipped before `at` are counted).
    fn column(&self, line: &[u8], at: usize) -> u32 {
        // Characters of the movetext skipped before `at` (see `read_movetext`).
        let skipped = if self.subst.is_empty() {
            0
        } else {
            self.subst
                .iter()
                .filter(|s| s.read_as.is_none() && s.at <= at)
                .count()
        };
        self.written_column(line, at)
            .saturating_add(u32::try_from(skipped).unwrap_or(u32::MAX))
    }

    /// The 1-based character column of byte offset `at` of the current piece of a line as
    /// written.
    fn written_column(&self, line: &[u8], at: usize) -> u32 {
        let at = at.min(line.len());
        let chars = if self.line_ascii {
            at
        } else if self.line_utf8 {
            line[..at].iter().filter(|&&b| (b & 0xc0) != 0x80).count()
        } else {
            // A line mixing encodings: a UTF-8 sequence is one character, any other byte one
            // Windows-1252 character.
            line[..at]
                .utf8_chunks()
                .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
                .sum()
        };
        u32::try_from(chars + 1)
            .unwrap_or(u32::MAX)
            .saturating_add(self.column_base)
    }

    /// The character at byte offset `at` of the current line: a UTF-8 sequence when one starts
    /// there, else the byte read as Windows-1252 (a line may mix them, e.g. a UTF-8 glyph
    /// beside a Windows-1252 apostrophe in a comment).
    fn char_at(&self, line: &[u8], at: usize) -> char {
        utf8_text_at(line, at)
            .chars()
            .next()
            .unwrap_or_else(|| windows_1252_char(line[at]))
    }

    /// Reads the next line (without its terminator) into `self.line`; `Ok(false)` at the end.
    fn next_line(&mut self) -> Result<bool, PgnError> {
        match self.read_line() {
            Ok(more) => Ok(more),
            Err(e) => {
                self.finished = true;
                Err(PgnError::new(
                    self.line_no + 1,
                    1,
                    self.next_index,
                    ErrorKind::Io(e.to_string()),
                ))
            }
        }
    }

    /// Reads the next line into `self.line`, without its terminator, or of a line longer than
    /// [`ReaderLimits::max_game_bytes`] its next piece: at most that many bytes, cut after its
    /// last space or tab when it has one, so that no token is cut in two (the rest is carried
    /// over to the next piece). Such a line makes its game too large, and only a game being
    /// skipped reads on past its first piece: memory stays bounded, and the skip still sees the
    /// termination marker at the line's end. `Ok(false)` at the end of the input.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        let continued = std::mem::take(&mut self.line_continues);
        if continued {
            self.line.append(&mut self.carry);
            self.column_base = self.next_column_base;
        } else {
            self.column_base = 0;
        }
        let cap = self.limits.max_game_bytes.max(1);
        // A piece after a full one is delivered even when empty: it ends the line.
        let mut any = continued;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            if self.skip_lf {
                self.skip_lf = false;
                if buf[0] == b'\n' {
                    self.inner.consume(1);
                    continue;
                }
            }
            any = true;
            let room = cap.saturating_sub(self.line.len());
            match memchr::memchr2(b'\n', b'\r', buf) {
                Some(i) if i <= room => {
                    self.skip_lf = buf[i] == b'\r';
                    self.line.extend_from_slice(&buf[..i]);
                    self.inner.consume(i + 1);
                    break;
                }
                _ => {
                    let taken = buf.len().min(room);
                    self.line.extend_from_slice(&buf[..taken]);
                    self.inner.consume(taken);
                    if self.line.len() >= cap {
                        self.line_continues = true;
                        break;
                    }
                }
            }
        }
        if !any {
            return Ok(false);
        }
        self.piece_starts_line = !continued;
        if !continued {
            self.line_no += 1;
            self.line_fresh = true;
            // A byte-order mark starts the file, or a line where files were joined (`cat a.pgn
            // b.pgn`, each with its own mark).
            if self.line.starts_with(&[0xef, 0xbb, 0xbf]) {
                self.line.drain(..3);
            }
        }
        if self.line_continues {
            if let Some(space) = self.line.iter().rposition(|&c| is_space(c))
                && space + 1 < self.line.len()
            {
                self.carry.extend_from_slice(&self.line[space + 1..]);
                self.line.truncate(space + 1);
            }
            let chars = self
                .line
                .utf8_chunks()
                .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
                .sum::<usize>();
            self.next_column_base = self
                .column_base
                .saturating_add(u32::try_from(chars).unwrap_or(u32::MAX));
        }
        self.line_ascii = self.line.is_ascii();
        self.line_utf8 = self.line_ascii || std::str::from_utf8(&self.line).is_ok();
        Ok(true)
    }

    /// Reads one line (or a piece of a long one) of the game, and says whether the game goes
    /// on. The one place that decides where a game ends, for a game read and for a game being
    /// skipped after an error alike ([`PgnError::skipped`]).
    fn process_line(&mut self, line: &[u8], game: &mut RawGame) -> Step {
        if !self.line_fresh {
            return self.line_rest(line, game);
        }
        let blank = line.iter().all(|&c| is_space(c));
        if blank && self.line_continues {
            // Spaces that begin a line longer than a piece: the line starts in a later piece.
            if self.scan.started {
                self.scan.bytes = self.scan.bytes.saturating_add(line.len());
            }
            return Step::Continue;
        }
        self.line_fresh = false;
        self.scan.line_ignored = false;
        let escape = self.piece_starts_line && line.first() == Some(&b'%');
        if !self.scan.started {
            if blank || escape {
                self.scan.line_ignored = true;
                return Step::Continue;
            }
            if self.next_chunk_line == Some(self.line_no) {
                return Step::ChunkEnds;
            }
            self.scan.started = true;
            game.index = self.next_index;
            game.line = self.line_no;
            self.next_index += 1;
            // UTF-32 and UTF-16 (a byte-order mark, or three NUL bytes / one NUL byte beside
            // each ASCII character) are not PGN encodings: said plainly, each by its name,
            // rather than as a stray character. Their lines are not read as movetext (they are
            // no ASCII): the game is skipped up to the next line that starts a tag section.
            let nul_bytes = line.iter().filter(|&&b| b == 0).count();
            if line.starts_with(&[0xff, 0xfe, 0, 0])
                || line.starts_with(&[0, 0, 0xfe, 0xff])
                || (nul_bytes >= 3 && nul_bytes * 3 >= line.len() * 2)
            {
                self.scan.not_text = true;
                self.fail(self.syntax_at(
                    game,
                    line,
                    0,
                    "the input looks like UTF-32 (a byte-order mark FF FE 00 00 or 00 00 FE FF, or three NUL bytes beside each character): PGN is read as UTF-8 or Windows-1252; convert it first, e.g. with 'iconv -f UTF-32 -t UTF-8'".to_owned(),
                ));
            } else if line.starts_with(&[0xff, 0xfe])
                || line.starts_with(&[0xfe, 0xff])
                || (nul_bytes >= 2 && nul_bytes * 3 >= line.len())
            {
                self.scan.not_text = true;
                self.fail(self.syntax_at(
                    game,
                    line,
                    0,
                    "the input looks like UTF-16 (a byte-order mark FF FE or FE FF, or NUL bytes): PGN is read as UTF-8 or Windows-1252; convert it first, e.g. with 'iconv -f UTF-16 -t UTF-8'".to_owned(),
                ));
            }
        }
        self.scan.bytes = self
            .scan
            .bytes
            .saturating_add(line.len() + usize::from(!self.line_continues));
        // (A `}` on the line closes the comment there: its tag pair is quoted, `;` included.)
        if self.scan.in_comment && !line.contains(&b'}') && starts_tag_section(line) {
            // A `{` never closed would swallow every game after it: a line that holds tag
            // pairs and nothing else (not the words of a comment), the first of the Seven Tag
            // Roster, ends the game (its comment unterminated) and starts the next one.
            return Step::CommentCutByNextGame;
        }
        if !self.scan.in_comment && escape {
            self.scan.line_ignored = true;
            self.scan.last_line = self.line_no;
            return Step::Continue;
        }
        if blank {
            if !self.scan.movetext
                && (!self.tag_spans.is_empty() || self.skipping())
                && !self.scan.blank_after_tags
            {
                self.scan.blank_after_tags = true;
                self.scan.blank_line = self.line_no;
            }
            return Step::Continue;
        }
        let first = line.iter().position(|&c| !is_space(c)).unwrap_or(0);
        let tag_line = !self.scan.in_comment && line[first] == b'[';
        if tag_line {
            if self.scan.movetext {
                // A game without a termination marker, ended by the next tag section.
                return Step::NextGameStarts;
            }
            if self.scan.blank_after_tags {
                // A tag section after a tag section and a blank line: a new game, and the one
                // before has no movetext (PGN standard 8.2); unless its tags repeat none of
                // the section's (ChessBase writes a blank line inside a tag section): then one
                // game, as a person reads it, with a warning. A game being skipped ends here,
                // and so does a section that started after a termination marker on its line.
                if self.skipping() || self.scan.tags_after_marker || self.repeats_a_tag(line) {
                    return Step::NoMovetext;
                }
                self.scan.blank_after_tags = false;
                game.warnings.push(ReadWarning {
                    line: self.line_no,
                    column: self.column(line, first),
                    ply: 0,
                    kind: WarningKind::BlankLineInTags {
                        blank_line: self.scan.blank_line,
                    },
                });
            }
            if self.scan.event_named && is_event_tag_line(line) {
                // A second `[Event "` line in a tag section, without the blank line between: the
                // next game's tag section, never merged into this one (its players would get the
                // next game's result).
                return Step::NoMovetext;
            }
        }
        // The line is the game's (a line that starts the next game is never counted in the
        // size of the game before it).
        self.scan.last_line = self.line_no;
        if !self.skipping() && (self.line_continues || self.scan.bytes > self.limits.max_game_bytes)
        {
            self.fail(self.size_error(game, line));
        }
        if tag_line {
            if !self.skipping()
                && let Err(error) = self.parse_tags(line, first, game)
            {
                self.fail(error);
            }
            self.scan.line_ignored = true;
            return Step::Continue;
        }
        self.scan.movetext = true;
        if !self.scan.not_text {
            self.read_movetext(line, first, game);
        }
        self.movetext_step()
    }

    /// A piece of a line longer than [`ReaderLimits::max_game_bytes`], after the piece that
    /// began the line (see `read_line`): the line goes on as it began (movetext, a tag line, a
    /// `%` line, a `;` comment). Its game is too large: it is being skipped.
    fn line_rest(&mut self, line: &[u8], game: &mut RawGame) -> Step {
        if !self.scan.started {
            // The rest of a `%` line between games.
            return Step::Continue;
        }
        self.scan.bytes = self
            .scan
            .bytes
            .saturating_add(line.len() + usize::from(!self.line_continues));
        self.scan.last_line = self.line_no;
        if !self.skipping() {
            // The game started after the line's start (on a termination marker's line).
            self.fail(self.size_error(game, line));
        }
        if self.scan.movetext && !self.scan.line_ignored && !self.scan.not_text {
            self.read_movetext(line, 0, game);
        }
        self.movetext_step()
    }

    /// Whether the game goes on after a line of movetext: it ends at its termination marker
    /// (outside a comment) at the end of the line, or where a tag section starts after the
    /// marker on the same line.
    fn movetext_step(&self) -> Step {
        if let Some(at) = self.scan.next_game_at {
            return Step::GameEndsBeforeTags(at);
        }
        if self.scan.result_done && !self.scan.in_comment && !self.line_continues {
            return Step::GameEnds;
        }
        Step::Continue
    }

    /// The game is larger than [`ReaderLimits::max_game_bytes`] with the piece `line`.
    fn size_error(&self, game: &RawGame, line: &[u8]) -> PgnError {
        self.error(
            game,
            self.line_no,
            self.column(line, 0),
            ErrorKind::Limit {
                bound: Bound::GameBytes,
                limit: self.limits.max_game_bytes,
            },
        )
    }

    /// Whether a tag line after a blank line in a tag section names a tag the section has
    /// (ASCII case-insensitive; `Event` also when its pair was broken): then it starts the next
    /// game.
    fn repeats_a_tag(&self, line: &[u8]) -> bool {
        let mut repeats = false;
        for_each_tag_name(line, |name| {
            repeats |= (self.scan.event_named && name.eq_ignore_ascii_case(b"Event"))
                || self.tag_spans.iter().any(|span| {
                    self.tag_arena[span.name.0..span.name.1].eq_ignore_ascii_case(name)
                });
        });
        repeats
    }

    /// Reads the movetext of `line` from byte `from` on ([`Reader::parse_movetext`]), its
    /// characters outside ASCII that a person reads as ASCII ones read as those
    /// ([`movetext_reading`]): each noted as the scan passes it outside comments, with a
    /// warning per character and game ([`WarningKind::ReadAs`]).
    fn read_movetext(&mut self, line: &[u8], from: usize, game: &mut RawGame) {
        if self.line_ascii || !self.normalize(line, from) {
            self.parse_movetext(line, from, game);
            return;
        }
        let norm = std::mem::take(&mut self.norm);
        self.parse_movetext(&norm, from, game);
        self.norm = norm;
        // A tag section after the termination marker starts at this byte of the line as
        // written.
        if let Some(at) = self.scan.next_game_at {
            self.scan.next_game_at = Some(self.written_offset(at));
        }
        self.subst.clear();
        self.subst_next = 0;
    }

    /// Reads `line[from..]` into `self.norm` and its substitutions into `self.subst`; `false`
    /// (and nothing kept) when no character of it has another reading.
    fn normalize(&mut self, line: &[u8], from: usize) -> bool {
        self.norm.clear();
        self.subst.clear();
        self.subst_next = 0;
        let mut copied = 0;
        let mut i = from;
        while i < line.len() {
            if line[i].is_ascii() {
                i += 1;
                continue;
            }
            let (written, len) = match utf8_text_at(line, i).chars().next() {
                Some(c) => (c, c.len_utf8()),
                None => (windows_1252_char(line[i]), 1),
            };
            if let Some((class, read_as)) = movetext_reading(written) {
                if self.subst.is_empty() {
                    self.norm.reserve(line.len());
                }
                self.norm.extend_from_slice(&line[copied..i]);
                let at = self.norm.len();
                let column = self.written_column(line, i);
                self.norm.extend(read_as);
                self.subst.push(Substitution {
                    at,
                    len,
                    read_as,
                    written,
                    class,
                    column,
                    exempt: false,
                });
                copied = i + len;
            }
            i += len;
        }
        if self.subst.is_empty() {
            return false;
        }
        self.norm.extend_from_slice(&line[copied..]);
        true
    }

    /// The offset in the line as written of byte `at` of the read line.
    fn written_offset(&self, at: usize) -> usize {
        self.subst
            .iter()
            .filter(|s| s.at < at || (s.read_as.is_none() && s.at == at))
            .map(|s| s.len - usize::from(s.read_as.is_some()))
            .sum::<usize>()
            + at
    }

    /// Notes the substitutions before byte `upto` of the read line (a skipped character at
    /// `upto` included): each a warning, unless it is part of a glyph or the game is being
    /// skipped.
    fn pass_substitutions(&mut self, upto: usize, game: &mut RawGame) {
        while let Some(&s) = self.subst.get(self.subst_next) {
            // A skipped character at `upto` was before the byte there.
            if s.at > upto || (s.at == upto && s.read_as.is_some()) {
                return;
            }
            self.subst_next += 1;
            if s.exempt || self.skipping() {
                continue;
            }
            let counted = game
                .warnings
                .iter_mut()
                .rev()
                .find_map(|w| match &mut w.kind {
                    WarningKind::ReadAs { written, count, .. } if *written == s.written => {
                        Some(count)
                    }
                    _ => None,
                });
            match counted {
                Some(count) => *count = count.saturating_add(1),
                None => game.warnings.push(ReadWarning {
                    line: self.line_no,
                    column: s.column,
                    ply: game.moves.len() as u32,
                    kind: WarningKind::ReadAs {
                        class: s.class,
                        written: s.written,
                        read_as: s.read_as.map(char::from),
                        line: self.line_no,
                        column: s.column,
                        count: 1,
                    },
                }),
            }
        }
    }

    /// Passes the substitutions before byte `upto` of the read line without a warning (they
    /// are in a comment).
    fn skip_substitutions(&mut self, upto: usize) {
        while self.subst.get(self.subst_next).is_some_and(|s| s.at < upto) {
            self.subst_next += 1;
        }
    }

    /// The substitutions in bytes `from..to` of the read line are part of an evaluation glyph
    /// (`+−` read as `+-`): the glyph's, without a warning.
    fn glyph_substitutions(&mut self, from: usize, to: usize) {
        for s in &mut self.subst[self.subst_next..] {
            if (from..to).contains(&s.at) {
                s.exempt = true;
            }
        }
    }

    fn parse_tags(
        &mut self,
        line: &[u8],
        mut i: usize,
        game: &mut RawGame,
    ) -> Result<(), PgnError> {
        let n = line.len();
        loop {
            while i < n && is_space(line[i]) {
                i += 1;
            }
            // A `;` comment runs to the end of the line (PGN standard 5), after tag pairs too.
            if i == n || line[i] == b';' {
                return Ok(());
            }
            if line[i] != b'[' {
                let c = self.char_at(line, i).escape_debug();
                return Err(self.syntax_at(
                    game,
                    line,
                    i,
                    format!("unexpected '{c}' after a tag pair (PGN standard 8.1)"),
                ));
            }
            let open = i;
            i += 1;
            while i < n && is_space(line[i]) {
                i += 1;
            }
            let name_start = i;
            while i < n && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
                i += 1;
            }
            if i == name_start {
                return Err(self.syntax_at(
                    game,
                    line,
                    i,
                    "expected a tag name (letters, digits, '_') after '[' (PGN standard 8.1.1)"
                        .to_string(),
                ));
            }
            let name = (name_start, i);
            // Noted before the value is read: a pair whose value is broken still names the
            // section's Event tag (the game is then skipped up to the next `[Event` line).
            self.scan.event_named |= line[name_start..i].eq_ignore_ascii_case(b"Event");
            let name_text = String::from_utf8_lossy(&line[name_start..i]).into_owned();
            while i < n && is_space(line[i]) {
                i += 1;
            }
            if i == n || line[i] != b'"' {
                return Err(self.syntax_at(
                    game,
                    line,
                    i,
                    format!(
                        "expected '\"' to open the value of tag '{name_text}' (PGN standard 8.1.1)"
                    ),
                ));
            }
            i += 1;
            if self.tag_spans.len() >= self.limits.max_tags {
                return Err(self.error(
                    game,
                    self.line_no,
                    self.column(line, open),
                    ErrorKind::Limit {
                        bound: Bound::Tags,
                        limit: self.limits.max_tags,
                    },
                ));
            }
            let name_at = self.tag_arena.len();
            self.tag_arena.extend_from_slice(&line[name.0..name.1]);
            let value_at = self.tag_arena.len();
            let value_column = self.column(line, i);
            loop {
                if i >= n {
                    return Err(self.syntax_at(
                        game,
                        line,
                        n,
                        format!("unterminated value of tag '{name_text}': expected '\"'"),
                    ));
                }
                let c = line[i];
                if c == b'\\' && i + 1 < n && matches!(line[i + 1], b'"' | b'\\') {
                    self.tag_arena.push(line[i + 1]);
                    i += 2;
                } else if c == b'"' {
                    // The closing quote is the one followed by ']' (or the end of the line); a
                    // quote elsewhere is taken literally, as several programs write them unescaped.
                    let mut j = i + 1;
                    while j < n && is_space(line[j]) {
                        j += 1;
                    }
                    if j == n {
                        i = n;
                        break;
                    }
                    if line[j] == b']' {
                        i = j + 1;
                        break;
                    }
                    self.tag_arena.push(c);
                    i += 1;
                } else {
                    self.tag_arena.push(c);
                    i += 1;
                }
                if self.tag_arena.len() - value_at > self.limits.max_tag_value_bytes {
                    return Err(self.error(
                        game,
                        self.line_no,
                        self.column(line, open),
                        ErrorKind::Limit {
                            bound: Bound::TagValueBytes,
                            limit: self.limits.max_tag_value_bytes,
                        },
                    ));
                }
            }
            let name_bytes = &self.tag_arena[name_at..value_at];
            if let Some(first) = self.tag_spans.iter().find(|span| {
                self.tag_arena[span.name.0..span.name.1].eq_ignore_ascii_case(name_bytes)
            }) {
                game.warnings.push(ReadWarning {
                    line: self.line_no,
                    column: self.column(line, open),
                    ply: 0,
                    kind: WarningKind::RepeatedTag {
                        name: name_text,
                        first_line: first.line,
                    },
                });
            }
            self.tag_spans.push(TagSpan {
                name: (name_at, value_at),
                value: (value_at, self.tag_arena.len()),
                line: self.line_no,
                value_column,
            });
        }
    }

    /// Reads the movetext of `line` from byte `i` on. After the game's first error (noted with
    /// [`Reader::fail`]) it goes on through the line by the same rules, keeping nothing, only
    /// to follow comments, variations and the termination marker that ends the game.
    #[allow(clippy::too_many_lines)]
    fn parse_movetext(&mut self, line: &[u8], mut i: usize, game: &mut RawGame) {
        let n = line.len();
        while i < n {
            if self.scan.in_comment {
                match memchr::memchr(b'}', &line[i..]) {
                    Some(k) => {
                        self.scan.in_comment = false;
                        i += k + 1;
                    }
                    None => i = n,
                }
                // A comment's characters are its own.
                self.skip_substitutions(i);
                continue;
            }
            if self.subst_next < self.subst.len() {
                self.pass_substitutions(i, game);
            }
            let c = line[i];
            if is_space(c) {
                i += 1;
                continue;
            }
            match c {
                b'{' => {
                    self.scan.in_comment = true;
                    self.scan.comment_at = (self.line_no, self.column(line, i));
                    game.comments += 1;
                    i += 1;
                    continue;
                }
                b';' => {
                    game.comments += 1;
                    self.scan.line_ignored = true;
                    return;
                }
                _ => {}
            }
            if self.scan.result_done && c == b'[' {
                // `... 0-1 [Event "B"]`: the marker ended this game, the tag section on the same
                // line starts the next one (never an error that swallows it).
                self.scan.next_game_at = Some(i);
                return;
            }
            if self.scan.result_done {
                if !self.skipping() {
                    let ch = self.char_at(line, i).escape_debug();
                    self.fail(self.syntax_at(
                        game,
                        line,
                        i,
                        format!(
                            "unexpected '{ch}' after the game termination marker (PGN standard 8.2.6)"
                        ),
                    ));
                }
                // Skipped, up to a tag section that may start on this line.
                i += 1;
                continue;
            }
            let mainline = self.scan.depth == 0;
            // What the main line holds is kept only while the game has no error.
            let kept = mainline && !self.skipping();
            if self.scan.bare_number.is_some() && matches!(c, b'(' | b')' | b'*') {
                // Not a move: the number before was no move number.
                self.bare_number_unfollowed(game);
            }
            match c {
                b'(' => {
                    if self.scan.depth == 0 {
                        self.scan.variation_at = (self.line_no, self.column(line, i));
                        game.variations += 1;
                    }
                    self.scan.depth += 1;
                    if self.scan.depth > self.limits.max_variation_depth && !self.skipping() {
                        // Skipped, the depth still counted to find the variations' end.
                        self.fail(self.error(
                            game,
                            self.line_no,
                            self.column(line, i),
                            ErrorKind::Limit {
                                bound: Bound::VariationDepth,
                                limit: self.limits.max_variation_depth,
                            },
                        ));
                    }
                    i += 1;
                }
                b')' => {
                    if self.scan.depth > 0 {
                        self.scan.depth -= 1;
                    } else if !self.skipping() {
                        self.fail(self.syntax_at(
                            game,
                            line,
                            i,
                            "')' closes no variation (PGN standard 8.2.5)".to_string(),
                        ));
                    }
                    i += 1;
                }
                b'$' => {
                    let start = i;
                    i += 1;
                    let digits = i;
                    let mut value: u32 = 0;
                    while i < n && line[i].is_ascii_digit() {
                        value = value
                            .saturating_mul(10)
                            .saturating_add(u32::from(line[i] - b'0'));
                        i += 1;
                    }
                    let Some(value) = u8::try_from(value).ok().filter(|_| i > digits) else {
                        if !self.skipping() {
                            self.fail(
                                self.syntax_at(
                                    game,
                                    line,
                                    start,
                                    "a NAG is '$' and a number from 0 to 255 (PGN standard 8.2.4)"
                                        .to_string(),
                                ),
                            );
                        }
                        continue;
                    };
                    if kept {
                        game.nags.push(Nag {
                            ply: game.moves.len() as u32,
                            value,
                        });
                    }
                }
                b'!' | b'?' => {
                    let start = i;
                    while i < n && matches!(line[i], b'!' | b'?') {
                        i += 1;
                    }
                    if kept {
                        let ply = game.moves.len() as u32;
                        self.marks(game, line, start, i, ply);
                    }
                }
                b'*' => {
                    if mainline {
                        self.set_result(game, "*");
                    }
                    i += 1;
                }
                b'.' => {
                    while i < n && line[i] == b'.' {
                        i += 1;
                    }
                }
                b'0'..=b'9' => {
                    let start = i;
                    let shaped_as_castling = {
                        let mut end = i;
                        while end < n && is_token_char(line[end]) && line[end] != b'.' {
                            end += 1;
                        }
                        // An evaluation glyph may be glued to it (`00+-`).
                        castling_shaped(split_glued_glyph(&line[start..end]).0)
                    };
                    if shaped_as_castling {
                        // `00`, `000`, `0-0`, `000+`: castling (or the null move `0000`),
                        // never a move number (move numbers start at 1).
                        while i < n && is_token_char(line[i]) && line[i] != b'.' {
                            i += 1;
                        }
                        i = self.move_token(line, start, i, game);
                        continue;
                    }
                    if self.scan.bare_number.is_some() {
                        // A number, a move number or a result: not the move the number before
                        // needs.
                        self.bare_number_unfollowed(game);
                    }
                    // A draw written with decimals: `0.5-0.5`, `0,5-0,5` (not a move number).
                    if let Some(draw) = DECIMAL_DRAWS.iter().find(|draw| {
                        line[start..].starts_with(draw)
                            && line
                                .get(start + draw.len())
                                .is_none_or(|&c| !is_token_char(c))
                    }) {
                        i += draw.len();
                        self.nonstandard_result(game, line, start, draw, "1/2-1/2", mainline);
                        continue;
                    }
                    while i < n && line[i].is_ascii_digit() {
                        i += 1;
                    }
                    if i < n && line[i] == b'.' {
                        // A move number: "12." or "12..." (PGN standard 8.2.2), maybe glued to
                        // the move ("12.e4").
                        if mainline
                            && game.moves.is_empty()
                            && self.scan.first_move_number.is_none()
                        {
                            self.scan.first_move_number = Some(
                                std::str::from_utf8(&line[start..i])
                                    .ok()
                                    .and_then(|t| t.parse().ok())
                                    .unwrap_or(u32::MAX),
                            );
                        }
                        while i < n && line[i] == b'.' {
                            i += 1;
                        }
                        continue;
                    }
                    while i < n && is_token_char(line[i]) {
                        i += 1;
                    }
                    let token = &line[start..i];
                    match token {
                        b"1-0" | b"0-1" | b"1/2-1/2" => {
                            if mainline {
                                let result = match token {
                                    b"1-0" => "1-0",
                                    b"0-1" => "0-1",
                                    _ => "1/2-1/2",
                                };
                                self.set_result(game, result);
                            }
                        }
                        b"1:0" | b"0:1" | b"1/2:1/2" => {
                            let read_as = match token {
                                b"1:0" => "1-0",
                                b"0:1" => "0-1",
                                _ => "1/2-1/2",
                            };
                            self.nonstandard_result(game, line, start, token, read_as, mainline);
                        }
                        _ if token.starts_with(b"0-0") || token == b"0000" => {
                            i = self.move_token(line, start, i, game);
                        }
                        _ if token.iter().all(u8::is_ascii_digit) => {
                            // A move number without a period, when a move follows it.
                            if !self.skipping() {
                                let mut text = arrayvec::ArrayString::new();
                                for &digit in token.iter().take(16) {
                                    text.push(char::from(digit));
                                }
                                self.scan.bare_number = Some(BareNumber {
                                    line: self.line_no,
                                    column: self.column(line, start),
                                    text,
                                });
                            }
                        }
                        _ if self.skipping() => {}
                        _ => {
                            let text = String::from_utf8_lossy(token);
                            self.fail(self.syntax_at(
                                game,
                                line,
                                start,
                                format!(
                                    "'{text}' is neither a move, a move number nor a result (PGN standard 8.2)"
                                ),
                            ));
                        }
                    }
                }
                _ if c.is_ascii_alphabetic() || c == b'-' || c == b'@' => {
                    let start = i;
                    while i < n && is_token_char(line[i]) {
                        i += 1;
                    }
                    i = self.move_token(line, start, i, game);
                }
                _ => {
                    // `½-½` or `½:½` (UTF-8, or Windows-1252 0xBD) is the draw's termination
                    // marker.
                    let half = [
                        "\u{bd}-\u{bd}".as_bytes(),
                        "\u{bd}:\u{bd}".as_bytes(),
                        b"\xbd-\xbd",
                        b"\xbd:\xbd",
                    ]
                    .into_iter()
                    .find(|half| line[i..].starts_with(half));
                    if let Some(half) = half {
                        if self.scan.bare_number.is_some() {
                            self.bare_number_unfollowed(game);
                        }
                        let written = if half.contains(&b':') {
                            "\u{bd}:\u{bd}"
                        } else {
                            "\u{bd}-\u{bd}"
                        };
                        self.nonstandard_result(
                            game,
                            line,
                            i,
                            written.as_bytes(),
                            "1/2-1/2",
                            mainline,
                        );
                        i += half.len();
                        continue;
                    }
                    if let Some((len, nag)) = self.glyph_at(line, i) {
                        self.glyph_substitutions(i, i + len);
                        if kept {
                            match nag {
                                Ok(value) => game.nags.push(Nag {
                                    ply: game.moves.len() as u32,
                                    value,
                                }),
                                Err(glyph) => game.warnings.push(ReadWarning {
                                    line: self.line_no,
                                    column: self.column(line, i),
                                    ply: game.moves.len() as u32,
                                    kind: WarningKind::SkippedGlyph { glyph },
                                }),
                            }
                        }
                        i += len;
                        continue;
                    }
                    if !self.skipping() {
                        let ch = self.char_at(line, i).escape_debug();
                        self.fail(self.syntax_at(
                            game,
                            line,
                            i,
                            format!("unexpected '{ch}' in the movetext (PGN standard 8.2)"),
                        ));
                    }
                    // A whole character (a UTF-8 sequence, or one Windows-1252 byte).
                    i += utf8_text_at(line, i)
                        .chars()
                        .next()
                        .map_or(1, char::len_utf8);
                }
            }
        }
        if self.subst_next < self.subst.len() {
            // Skipped characters at the line's end.
            self.pass_substitutions(usize::MAX, game);
        }
    }

    /// A termination marker written otherwise than PGN's (`1:0`, `½-½`, `0.5-0.5`, ...) at byte
    /// `at` of the line: the result `read_as` in the main line, with a warning.
    fn nonstandard_result(
        &mut self,
        game: &mut RawGame,
        line: &[u8],
        at: usize,
        written: &[u8],
        read_as: &'static str,
        mainline: bool,
    ) {
        if !mainline {
            return;
        }
        self.set_result(game, read_as);
        if !self.skipping() {
            let column = self.column(line, at);
            game.warnings.push(ReadWarning {
                line: self.line_no,
                column,
                ply: game.moves.len() as u32,
                kind: WarningKind::NonstandardResult {
                    written: String::from_utf8_lossy(written).into_owned(),
                    read_as,
                    line: self.line_no,
                    column,
                },
            });
        }
    }

    fn set_result(&mut self, game: &mut RawGame, result: &str) {
        game.result = Some(result.to_string());
        game.result_line = self.line_no;
        self.scan.result_done = true;
    }

    /// Records the move token `line[start..end]` (main line only, while the game has no error)
    /// and the `!`/`?` marks glued to it; returns the offset after them.
    fn move_token(&mut self, line: &[u8], start: usize, end: usize, game: &mut RawGame) -> usize {
        let n = line.len();
        // A promotion written in parentheses, glued to its move (`e8(Q)`): part of the move,
        // not a variation.
        let end = if line[start..end].ends_with(b"8") || line[start..end].ends_with(b"1") {
            match line.get(end..end + 3) {
                Some(
                    [
                        b'(',
                        b'Q' | b'R' | b'B' | b'N' | b'q' | b'r' | b'b' | b'n',
                        b')',
                    ],
                ) => end + 3,
                _ => end,
            }
        } else {
            end
        };
        let mut token = &line[start..end];
        let mut i = end;
        // A glyph that begins in ASCII and ends in Unicode, glued to the move (`f3+/−`,
        // `g4=/∞`, `Qh4#+–`): the token stopped at its first non-ASCII character.
        let mut unicode_glued = None;
        if i < n
            && !line[i].is_ascii()
            && self.scan.depth == 0
            && let Some((cut, consumed, nag)) = glyph_across(token, &line[i..])
        {
            token = &token[..token.len() - cut];
            self.glyph_substitutions(end - cut, end + consumed);
            i += consumed;
            unicode_glued = Some(nag);
        }
        let marks = i;
        while i < n && matches!(line[i], b'!' | b'?') {
            i += 1;
        }
        if matches!(token, b"e.p." | b"ep" | b"e.p") {
            // "exd6 e.p.": the en passant remark belongs to the previous move.
            return i;
        }
        // "-+", "-/+", "N": an evaluation glyph or the novelty sign, not a move (looked up only
        // for tokens that can be one: a move starts with a letter other than a lone `N`).
        let maybe_glyph = matches!(token, [b'+' | b'-' | b'=', ..] | [b'N']);
        if let Some(value) = maybe_glyph
            .then(|| std::str::from_utf8(token).ok().and_then(glyph_nag))
            .flatten()
        {
            self.glyph_substitutions(start, i);
            if self.scan.depth == 0 && !self.skipping() {
                game.nags.push(Nag {
                    ply: game.moves.len() as u32,
                    value,
                });
            }
            return i;
        }
        // A move: the number before it, if any, was its move number.
        self.scan.bare_number = None;
        if self.scan.depth > 0 || self.skipping() {
            if unicode_glued.is_none() && self.subst_next < self.subst.len() {
                // A glyph glued to a move of a variation keeps its dashes too.
                let (move_text, glued) = split_glued_glyph(token);
                if glued.is_some() {
                    self.glyph_substitutions(start + move_text.len(), end);
                }
            }
            return i;
        }
        // "Qxf7#+-", "e4=": an ASCII evaluation glyph glued to the move; the move is read
        // without it and the glyph kept as its NAG (an annotation never costs a verdict).
        let (token, glued) = match unicode_glued {
            Some(nag) => (token, Some(nag)),
            None => split_glued_glyph(token),
        };
        if glued.is_some() && unicode_glued.is_none() {
            // `Qxf7#+−` read as `Qxf7#+-`: the minus is the glyph's.
            self.glyph_substitutions(start + token.len(), end);
        }
        let null = matches!(token, b"--" | b"Z0" | b"0000" | b"@@@@");
        let Some(text) = MoveText::from_bytes(token) else {
            self.fail(self.syntax_at(
                game,
                line,
                start,
                format!(
                    "'{}' is longer than {MAX_MOVE_TEXT_LEN} characters: not a move",
                    String::from_utf8_lossy(token).escape_debug()
                ),
            ));
            return i;
        };
        if game.moves.len() >= self.limits.max_plies {
            self.fail(self.error(
                game,
                self.line_no,
                self.column(line, start),
                ErrorKind::Limit {
                    bound: Bound::Plies,
                    limit: self.limits.max_plies,
                },
            ));
            return i;
        }
        let ply = game.moves.len() as u32 + 1;
        game.moves.push(SanToken {
            text,
            line: self.line_no,
            column: self.column(line, start),
            ply,
            null,
        });
        if let Some(value) = glued {
            game.nags.push(Nag { ply, value });
        }
        self.marks(game, line, marks, i, ply);
        i
    }

    /// The `!`/`?` marks `line[start..end]` after main-line ply `ply`: the NAG they stand for
    /// (PGN standard 10: `!` $1 to `?!` $6), or, for a run with none (`!!!`, `?!?`), a
    /// `skipped_glyph` warning rather than nothing.
    fn marks(&mut self, game: &mut RawGame, line: &[u8], start: usize, end: usize, ply: u32) {
        if start == end {
            return;
        }
        match mark_nag(&line[start..end]) {
            Some(value) => game.nags.push(Nag { ply, value }),
            None => game.warnings.push(ReadWarning {
                line: self.line_no,
                column: self.column(line, start),
                ply,
                kind: WarningKind::SkippedMarks {
                    marks: String::from_utf8_lossy(&line[start..end]).into_owned(),
                },
            }),
        }
    }

    /// Completes the game: decodes the tags, checks that comments and variations are closed and
    /// that there is movetext.
    /// After an error in the middle of the game, that error, with the lines skipped since.
    fn finish(&mut self, game: &mut RawGame) -> Result<(), PgnError> {
        if self.scan.bare_number.is_some() {
            // The game ends after a number that no move followed.
            self.bare_number_unfollowed(game);
        }
        if let Some(mut error) = self.failed.take() {
            // The error record keeps the game's identity: its tags read before the error.
            let _ = self.decode_tags(game);
            error.skipped = Some(SkippedLines {
                first: self.skip_from,
                last: self.scan.last_line.max(self.skip_from),
            });
            return Err(error);
        }
        self.decode_tags(game)?;
        if !self.scan.movetext && !game.tags.is_empty() {
            return Err(self.no_movetext(game));
        }
        if !game.tags.is_empty()
            && game.tag("FEN").is_none()
            && let Some(number) = self.scan.first_move_number.filter(|&n| n > 1)
            && let Some(first) = game.moves.first()
        {
            // A game that says nothing of a later start: its moves are read from the initial
            // position, with a warning (a fresh user's finding on issue 28: `12. Nf3 Nf6 13.
            // d4 d5 1/2-1/2` was an agreed draw without a word).
            let (line, column) = (first.line, first.column);
            game.warnings.push(ReadWarning {
                line,
                column,
                ply: 0,
                kind: WarningKind::MovetextStartsLater { number },
            });
        }
        if game.tags.is_empty()
            && let Some(number) = self.scan.first_move_number.filter(|&n| n > 1)
        {
            // Without tags there is no FEN tag: the game starts at move 1. Movetext that starts
            // later is the rest of the game before, cut off by a stray termination marker.
            let (line, column) = game
                .moves
                .first()
                .map_or((game.line, 1), |m| (m.line, m.column));
            return Err(self.error(
                game,
                line,
                column,
                ErrorKind::Syntax(format!(
                    "movetext without a tag section starts at move {number}, not 1: it continues the game before, which a stray termination marker ended early (PGN standard 8.2.6)"
                )),
            ));
        }
        // A comment or variation left open ran to the game's end, taking every line after it
        // (games without tags included): the error names them as skipped.
        if self.scan.in_comment {
            let (line, column) = self.scan.comment_at;
            return Err(self.ran_to_the_end(
                game,
                line,
                column,
                "unterminated comment: '{' without '}' (PGN standard 8.2.5)",
            ));
        }
        if self.scan.depth > 0 {
            let (line, column) = self.scan.variation_at;
            return Err(self.ran_to_the_end(
                game,
                line,
                column,
                "unterminated variation: '(' without ')' (PGN standard 8.2.5)",
            ));
        }
        Ok(())
    }

    /// A number without a period that no move follows (a number, a move number, a result, a
    /// variation's bracket or the game's end comes next): neither a move, a move number nor a
    /// result, an error at the number (`1. 000 1-0` read `000` as a move number, and the game as
    /// having no move; castling written `000` is read as castling now).
    fn bare_number_unfollowed(&mut self, game: &RawGame) {
        let Some(number) = self.scan.bare_number.take() else {
            return;
        };
        if self.skipping() {
            return;
        }
        self.fail(self.error(
            game,
            number.line,
            number.column,
            ErrorKind::Syntax(format!(
                "'{}' is a number that no move follows: neither a move, a move number nor a result (PGN standard 8.2.2)",
                number.text
            )),
        ));
        // The game is skipped from the number's line on.
        self.skip_from = number.line;
    }

    /// The error of a comment or variation opened at `line:column` and never closed: its
    /// lines, to the game's end, are skipped.
    fn ran_to_the_end(&self, game: &RawGame, line: u32, column: u32, what: &str) -> PgnError {
        let mut error = self.error(game, line, column, ErrorKind::Syntax(what.to_owned()));
        error.skipped = Some(SkippedLines {
            first: line,
            last: self.scan.last_line.max(line),
        });
        error
    }

    fn no_movetext(&self, game: &RawGame) -> PgnError {
        let next_game_line = self.pending.then_some(self.line_no);
        self.error(game, game.line, 1, ErrorKind::NoMovetext { next_game_line })
    }

    /// Decodes the tags read so far into `game` (once), each value on its own: UTF-8 when it is
    /// valid UTF-8, else Windows-1252 for the bytes that are not UTF-8 sequences, so that one
    /// byte of another encoding elsewhere (a comment, another tag, the same name) never garbles
    /// a UTF-8 name. A game whose non-ASCII text was decoded both ways gets a
    /// [`WarningKind::MixedEncoding`] warning. A byte Windows-1252
    /// leaves undefined is an [`ErrorKind::Encoding`] error (the tags are still all decoded, the
    /// byte as U+FFFD).
    fn decode_tags(&mut self, game: &mut RawGame) -> Result<(), PgnError> {
        if !game.tags.is_empty() {
            return Ok(());
        }
        game.encoding = Encoding::Utf8;
        let mut bad = None;
        let mut utf8_tag = None;
        let mut windows_tag = None;
        for span in &self.tag_spans {
            let name = &self.tag_arena[span.name.0..span.name.1];
            let value = &self.tag_arena[span.value.0..span.value.1];
            let name = String::from_utf8_lossy(name).into_owned();
            let value = match std::str::from_utf8(value) {
                Ok(text) => {
                    if !text.is_ascii() && utf8_tag.is_none() {
                        utf8_tag = Some(name.clone());
                    }
                    text.to_owned()
                }
                Err(_) => {
                    game.encoding = Encoding::Windows1252;
                    if let Some(&byte) = value.iter().find(|&&b| undefined_in_windows_1252(b))
                        && bad.is_none()
                    {
                        bad = Some((span.line, name.clone(), byte));
                    }
                    if windows_tag.is_none() {
                        windows_tag = Some((name.clone(), span.line));
                    }
                    // A value mixing valid UTF-8 sequences (`Müller`) with other bytes (`O\x92`)
                    // keeps each UTF-8 sequence and reads the other bytes as Windows-1252.
                    let mut text = String::with_capacity(value.len());
                    for chunk in value.utf8_chunks() {
                        if !chunk.valid().is_ascii() && utf8_tag.is_none() {
                            utf8_tag = Some(name.clone());
                        }
                        text.push_str(chunk.valid());
                        text.extend(chunk.invalid().iter().map(|&b| windows_1252_char(b)));
                    }
                    text
                }
            };
            if name.eq_ignore_ascii_case("Result") && !value.is_ascii() {
                result_tag_dashes(&value, span, &mut game.warnings);
            }
            game.tags.push((name, value));
            game.tag_lines.push(span.line);
        }
        if let (Some(utf8_tag), Some((windows_tag, line))) = (utf8_tag, windows_tag) {
            game.warnings.push(ReadWarning {
                line,
                column: 1,
                ply: 0,
                kind: WarningKind::MixedEncoding {
                    utf8_tag,
                    windows_tag,
                },
            });
        }
        match bad {
            Some((line, tag, byte)) => {
                Err(self.error(game, line, 1, ErrorKind::Encoding { tag, byte }))
            }
            None => Ok(()),
        }
    }

    /// The annotation glyph at byte `at` of the current line: its length in bytes and its NAG,
    /// or the symbol when it has no single NAG (skipped with a warning).
    fn glyph_at(&self, line: &[u8], at: usize) -> Option<(usize, Result<u8, char>)> {
        // The UTF-8 text from here (`+−` is ASCII then UTF-8).
        let text = utf8_text_at(line, at);
        if !text.is_empty() {
            for &(glyph, nag) in GLYPHS {
                if text.starts_with(glyph) {
                    return Some((glyph.len(), Ok(nag)));
                }
            }
            if !line[at].is_ascii() {
                let c = text.chars().next()?;
                return is_annotation_symbol(c).then(|| (c.len_utf8(), Err(c)));
            }
        }
        // Windows-1252: one byte, one character; the ASCII glyphs and '±' (0xB1).
        let text: String = line[at..]
            .iter()
            .take(3)
            .map(|&b| windows_1252_char(b))
            .collect();
        GLYPHS
            .iter()
            .find(|(glyph, _)| text.starts_with(glyph))
            .map(|&(glyph, nag)| (glyph.chars().count(), Ok(nag)))
    }
}

enum Step {
    Continue,
    NextGameStarts,
    NoMovetext,
    GameEnds,
    /// The game ended with its termination marker, and the next game's tag section starts at
    /// this byte of the same line.
    GameEndsBeforeTags(usize),
    /// A brace comment left open ran into the next game's tag section: the game ends (with its
    /// unterminated comment) and this line starts the next.
    CommentCutByNextGame,
    /// The last line of a chunk starts a game: the next chunk's first, read by its own reader.
    ChunkEnds,
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<RawGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut game = RawGame::default();
        match self.read_game(&mut game) {
            Ok(true) => Some(Ok(game)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}
