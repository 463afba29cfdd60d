//! Cutting a PGN input into chunks that threads read on their own, each chunk read by its own
//! [`Reader`] exactly as one reader of the whole input reads those lines.
//!
//! Reading PGN (lines, tags, comments, move tokens) is a third of what `arbiter adjudicate` does
//! per game, so with several worker threads one reader thread is the limit. A [`Splitter`] only
//! looks for lines where a game surely starts, which costs a scan for line ends, and hands the
//! text between them to the workers, which read it with [`Reader::of_chunk`].
//!
//! # Where the input is cut
//!
//! Before a line `L` such that, whatever came before, the reader of the whole input starts a
//! new game at `L`:
//!
//! - `L` starts with `[`, holds tag pairs and nothing else, the first one of the Seven Tag
//!   Roster (PGN standard 8.1.1, any letter case), has no `}`, and is read whole (at most
//!   [`ReaderLimits::max_game_bytes`] and 4,096 bytes);
//! - the line before `L` holds no `[` at all, starts with neither `%` nor a byte-order mark
//!   and is read whole; or the lines before `L` are blank (spaces and tabs only, after a
//!   byte-order mark) and the last line before them that is not blank starts with neither `[`
//!   (after spaces), `%` nor a byte-order mark.
//!
//! Then the reader of the whole input is in one of these states when it comes to `L`, and each
//! starts a game at `L`: between games; in movetext, which a tag line ends (the game without a
//! termination marker); in a brace comment, which a line of Seven Tag Roster pairs without `}`
//! cuts; after blank lines, in a tag section opened after a termination marker on its line
//! (the game without movetext). The one state where a tag line after a blank line goes on
//! with the game, a tag section of tag lines whose next tag line repeats none of its tags (as
//! ChessBase writes a blank line inside one), follows a line that starts with `[`: no cut
//! there.
//! A game with an error is read on to its end by the same rules, keeping nothing (see
//! [`PgnError::skipped`](crate::PgnError::skipped)), so it ends at `L` too; and the reader
//! decides whether a line starts the next game before it counts the line in a game's size, so
//! `L` is never the line that makes the game before it too large. After a plain line (no `[`)
//! the reader is in movetext or between games, whatever came before. A line before `L` with a
//! `[` could start a tag section on that line (after a termination marker), and `L` would then
//! belong to it; such places are not cut. (Where else a game may end, at a termination marker,
//! depends on comments and variations the splitter does not follow: it cuts at tag lines
//! only.)
//!
//! The chunk before the cut ends with `L` itself, so that its reader sees what the whole
//! input's reader sees there (the next game's line in a "no movetext" error, the end of an open
//! comment) and stops where the game at `L` would start. An input without such lines (games
//! not separated by blank lines and without `Event` tags, or a game longer than the chunk
//! bound) is not cut: [`Splitter::next_chunk`]
//! returns `None` and [`Splitter::into_rest`] gives the rest to read in one piece.

use std::io::{self, BufRead};

use crate::reader::{ReaderLimits, is_blank_line, is_space, starts_tag_section};

/// The longest cut line `L` in bytes (tag lines are short; a longer one is not cut before).
const MAX_CUT_LINE: usize = 4096;

/// Lines after which a chunk is cut at the next line where a game surely starts, however few
/// its bytes: a chunk of many short games is a chunk of many records.
pub const CHUNK_LINES: u32 = 1024;

/// Lines of a chunk without a line to cut at after which the splitter gives up cutting: four
/// times [`CHUNK_LINES`]. With at most two games on a line (one glued to the termination marker
/// of the other), a chunk holds at most 8,192 games.
const MAX_CHUNK_LINES: u32 = 4 * CHUNK_LINES;

/// Text of a PGN input that a [`Reader`](crate::Reader) made by [`Reader::of_chunk`](crate::Reader::of_chunk) reads
/// on its own: line numbers, games and errors as the reader of the whole input has them (game
/// numbers start from 0 in each chunk).
#[derive(Debug, Default)]
pub struct Chunk {
    /// The bytes, from the start of a line; the last line is the next chunk's first when
    /// `next_game_line` is set.
    pub text: Vec<u8>,
    /// The 1-based line of the input where `text` starts.
    pub first_line: u32,
    /// The line of the input where the next chunk starts (the last line of `text`), `None` for
    /// the last chunk.
    pub next_game_line: Option<u32>,
    /// Reading the input failed after `text`: the chunk's reader reports it where the whole
    /// input's reader would have.
    pub io_error: Option<String>,
}

/// Cuts a PGN input into [`Chunk`]s of about `target` bytes or [`CHUNK_LINES`] lines, whichever
/// comes first, at lines where a game surely starts (see the module documentation). Memory: one
/// chunk, at most `target` bytes plus twice [`ReaderLimits::max_game_bytes`] plus one read of the
/// input, and at most 4,096 lines plus those of one read.
#[derive(Debug)]
pub struct Splitter<R> {
    inner: R,
    max_line: usize,
    target: usize,
    bound: usize,
    /// The current chunk's bytes, from its first line.
    buf: Vec<u8>,
    /// Where the first line not looked at yet starts in `buf`.
    scanned: usize,
    first_line: u32,
    /// Lines of the input before the one at `scanned`.
    lines: u32,
    /// Where the last line that is not blank before the one at `scanned` is in `buf` (start,
    /// end), when it is there and after the line of a cut; it is looked at only before a line
    /// that starts with `[`.
    previous: Option<(usize, usize)>,
    /// A blank line came after `previous`.
    blank_after_previous: bool,
    eof: bool,
    io_error: Option<String>,
    done: bool,
    uncut: bool,
}

impl<R: BufRead> Splitter<R> {
    /// A splitter of `input`, cutting after at least `target` bytes or [`CHUNK_LINES`] lines where
    /// it can. `limits` are
    /// those the chunks' readers use (their game size bounds a line).
    pub fn new(input: R, limits: &ReaderLimits, target: usize) -> Splitter<R> {
        let max_line = limits.max_game_bytes;
        Splitter {
            inner: input,
            max_line,
            target,
            bound: target.saturating_add(max_line.saturating_mul(2)),
            buf: Vec::new(),
            scanned: 0,
            first_line: 1,
            lines: 0,
            previous: None,
            blank_after_previous: false,
            eof: false,
            io_error: None,
            done: false,
            uncut: false,
        }
    }

    /// The next chunk, with `spare`'s allocation reused for the one after it; `None` at the end
    /// of the input, or when no line to cut at came within the bound (then the rest is
    /// [`Splitter::into_rest`]).
    pub fn next_chunk(&mut self, spare: Vec<u8>) -> Option<Chunk> {
        if self.done {
            return None;
        }
        loop {
            while let Some((end, next)) = self.line_at(self.scanned) {
                let start = self.scanned;
                let line = &self.buf[start..end];
                if self.starts_game(line)
                    && (start >= self.target || self.lines + 1 - self.first_line >= CHUNK_LINES)
                {
                    return Some(self.cut(start, next, spare));
                }
                if is_blank_line(line) {
                    self.blank_after_previous = true;
                } else {
                    self.previous = Some((start, end));
                    self.blank_after_previous = false;
                }
                self.scanned = next;
                self.lines += 1;
            }
            if self.eof {
                self.done = true;
                if self.buf.is_empty() && self.io_error.is_none() {
                    return None;
                }
                return Some(Chunk {
                    text: std::mem::take(&mut self.buf),
                    first_line: self.first_line,
                    next_game_line: None,
                    io_error: self.io_error.take(),
                });
            }
            if self.buf.len() > self.bound || self.lines + 1 - self.first_line > MAX_CHUNK_LINES {
                self.done = true;
                self.uncut = true;
                return None;
            }
            self.fill();
        }
    }

    /// The input not handed out as chunks when the splitter gave up cutting (see
    /// [`Splitter::next_chunk`]): its first line's number and the text, to be read by one
    /// reader made with [`Reader::with_limits`](crate::Reader::with_limits) and
    /// [`Reader::starting_at_line`](crate::Reader::starting_at_line). `None` when the whole
    /// input went out as chunks.
    pub fn into_rest(self) -> Option<(u32, Rest<R>)> {
        self.uncut.then(|| {
            (
                self.first_line,
                io::Read::chain(io::Cursor::new(self.buf), self.inner),
            )
        })
    }

    /// The end of the line starting at `start` (without its terminator) and where the next
    /// line starts, when the line is complete in `buf`. Lines end as the reader ends them: at
    /// `\n`, `\r` or `\r\n`.
    fn line_at(&self, start: usize) -> Option<(usize, usize)> {
        let rest = &self.buf[start..];
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(i) if rest[i] == b'\r' => match rest.get(i + 1) {
                Some(b'\n') => Some((start + i, start + i + 2)),
                Some(_) => Some((start + i, start + i + 1)),
                None if self.eof => Some((start + i, start + i + 1)),
                None => None,
            },
            Some(i) => Some((start + i, start + i + 1)),
            None if self.eof && !rest.is_empty() => Some((self.buf.len(), self.buf.len())),
            None => None,
        }
    }

    /// Whether a game surely starts at `line`, after the lines looked at so far.
    fn starts_game(&self, line: &[u8]) -> bool {
        line.first() == Some(&b'[')
            && line.len() <= MAX_CUT_LINE.min(self.max_line)
            && !line.contains(&b'}')
            && self
                .previous
                .is_some_and(|(start, end)| self.sure_after(&self.buf[start..end]))
            && starts_tag_section(line)
    }

    /// Whether after `line` (the last line that is not blank) and the blank lines after it,
    /// whatever came before, the reader is between games, in movetext or in a comment, or in a
    /// tag section after a blank line that any tag line ends: right after `line`, a line read
    /// whole (at most [`ReaderLimits::max_game_bytes`]) without `[` (which could open a tag
    /// section after a termination marker); after blank lines, any line that does not start
    /// with `[` (after spaces): one that starts a tag section there is the only kind the reader
    /// goes on with after a blank line (a section opened after a termination marker is not).
    /// Never after a `%` line or a line with a byte-order mark (which the reader reads past, as
    /// if the line were not there).
    fn sure_after(&self, line: &[u8]) -> bool {
        if matches!(line.first(), Some(b'%' | 0xef)) {
            return false;
        }
        if self.blank_after_previous {
            line.iter().find(|&&c| !is_space(c)) != Some(&b'[')
        } else {
            line.len() <= self.max_line && !line.contains(&b'[')
        }
    }

    /// Hands out the text before `next` (the cut line included) and keeps the cut line, which
    /// starts at `start`, as the next chunk's first.
    fn cut(&mut self, start: usize, next: usize, mut spare: Vec<u8>) -> Chunk {
        spare.clear();
        spare.extend_from_slice(&self.buf[start..]);
        let mut text = std::mem::replace(&mut self.buf, spare);
        text.truncate(next);
        let cut_line = self.lines + 1;
        let chunk = Chunk {
            text,
            first_line: self.first_line,
            next_game_line: Some(cut_line),
            io_error: None,
        };
        self.first_line = cut_line;
        self.lines = cut_line;
        self.scanned = next - start;
        // The cut line is a tag line: no cut right after it.
        self.previous = None;
        self.blank_after_previous = false;
        chunk
    }

    /// Appends the next read of the input to `buf`, or notes its end or error.
    fn fill(&mut self) {
        loop {
            match self.inner.fill_buf() {
                Ok([]) => self.eof = true,
                Ok(data) => {
                    let n = data.len();
                    self.buf.extend_from_slice(data);
                    self.inner.consume(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.eof = true;
                    self.io_error = Some(e.to_string());
                }
            }
            return;
        }
    }
}

/// The input a [`Splitter`] gave up cutting: the text it held, then the rest of the input.
pub type Rest<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// A chunk's text, then its input error if it has one: what the reader of the whole input got.
#[derive(Debug)]
pub struct ChunkText<'a> {
    rest: &'a [u8],
    io_error: Option<&'a str>,
}

impl<'a> ChunkText<'a> {
    pub(crate) fn new(chunk: &'a Chunk) -> ChunkText<'a> {
        ChunkText {
            rest: &chunk.text,
            io_error: chunk.io_error.as_deref(),
        }
    }
}

impl io::Read for ChunkText<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let data = self.fill_buf()?;
        let n = data.len().min(out.len());
        out[..n].copy_from_slice(&data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChunkText<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.rest.is_empty()
            && let Some(error) = self.io_error
        {
            return Err(io::Error::other(error.to_owned()));
        }
        Ok(self.rest)
    }

    fn consume(&mut self, n: usize) {
        self.rest = &self.rest[n..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PgnError, RawGame, Reader};
    use proptest::prelude::*;

    /// What a reader gives for each game, with the game numbers of the whole input.
    fn items<R: BufRead>(reader: Reader<R>, base: usize) -> Vec<String> {
        reader
            .map(|item| {
                let item: Result<RawGame, PgnError> = item.map_err(|mut e| {
                    e.game += base;
                    e
                });
                format!(
                    "{:?}",
                    item.map(|mut game| {
                        game.index += base;
                        game
                    })
                )
            })
            .collect()
    }

    /// Reads `input` by chunks of at least `target` bytes; the items and the number of chunks.
    fn by_chunks(input: &[u8], limits: ReaderLimits, target: usize) -> (Vec<String>, usize) {
        let mut splitter = Splitter::new(input, &limits, target);
        let mut all = Vec::new();
        let mut chunks = 0;
        while let Some(chunk) = splitter.next_chunk(Vec::new()) {
            chunks += 1;
            assert!(
                chunk.text.len() <= target.saturating_add(2 * limits.max_game_bytes + input.len())
            );
            let base = all.len();
            all.extend(items(Reader::of_chunk(&chunk, limits), base));
        }
        if let Some((first_line, rest)) = splitter.into_rest() {
            chunks += 1;
            let base = all.len();
            let reader = Reader::with_limits(rest, limits).starting_at_line(first_line);
            all.extend(items(reader, base));
        }
        (all, chunks)
    }

    fn whole(input: &[u8], limits: ReaderLimits) -> Vec<String> {
        items(Reader::with_limits(input, limits), 0)
    }

    /// Cuts `input` wherever it can: into `chunks` chunks, read as the whole input is read.
    fn assert_cut_into(input: &str, limits: ReaderLimits, chunks: usize, why: &str) {
        let (chunked, cut) = by_chunks(input.as_bytes(), limits, 0);
        assert_eq!(cut, chunks, "{why}");
        assert_eq!(chunked, whole(input.as_bytes(), limits), "{why}");
    }

    const GAME: &str = "[Event \"A\"]\n[Site \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";

    #[test]
    fn chunks_of_a_file_of_games_read_as_the_whole_file() {
        let input = GAME.repeat(50);
        let limits = ReaderLimits::default();
        assert_eq!(GAME.len(), 84);
        let (chunked, chunks) = by_chunks(input.as_bytes(), limits, 200);
        assert_eq!(
            chunks, 17,
            "a cut before every third game, the first at 200 bytes or more"
        );
        assert_eq!(chunked, whole(input.as_bytes(), limits));
        assert_eq!(chunked.len(), 50);
        // Exports without Event tags (lichess's database) are cut at their first tag after a
        // blank line.
        let input = GAME.replace("[Event \"A\"]\n", "").repeat(50);
        let (chunked, chunks) = by_chunks(input.as_bytes(), limits, 200);
        assert_eq!(chunks, 17, "a cut before every third game of 72 bytes");
        assert_eq!(chunked, whole(input.as_bytes(), limits));
    }

    /// Lines after which, or at which, the reader of the whole input does not start a game at
    /// an `[Event` line: no cut may be made there.
    #[test]
    fn no_cut_where_a_game_may_go_on() {
        let limits = ReaderLimits::default();
        for (input, why) in [
            (
                "1. e4 1-0 [Site \"x\"]\n[Event \"y\"]\n\n1. d4 *\n",
                "a tag section opened after the termination marker",
            ),
            (
                "1. e4 {a comment\n[Event \"y\"] }\n\n1. d4 *\n",
                "a '}' closes the comment on the tag line",
            ),
            (
                "[Site \"x\"]\n%escaped\n[Event \"y\"]\n\n1. d4 *\n",
                "an escape line inside a tag section",
            ),
            (
                "[Site \"x\"]\n\u{feff}\n[Event \"y\"]\n\n1. d4 *\n",
                "a byte-order mark the reader strips",
            ),
            (
                "[Event \"a\"]\n\n[Event \"b\"]\n\n1. d4 *\n",
                "a tag section after a tag section and a blank line (no movetext, as its tag repeats)",
            ),
            (
                "[Event \"a\"]\n\n[Site \"b\"]\n\n1. d4 *\n",
                "a tag section after a tag section and a blank line (the same game, issue 28)",
            ),
            (
                "[Event \"a\"]\n[Bad tag\n\n[White \"b\"]\n\n1. d4 *\n",
                "an error in a tag section, then a blank line",
            ),
        ] {
            assert_cut_into(input, limits, 1, why);
        }
        // A tag line longer than a game may be is read in pieces: not cut before.
        let limits = ReaderLimits {
            max_game_bytes: 16,
            ..ReaderLimits::default()
        };
        assert_cut_into(
            "1. e4 *\n\n[Event \"a long event name\"]\n\n1. d4 *\n",
            limits,
            1,
            "a long tag line",
        );
    }

    /// Issue 26, item 3: the line that passes a game's size limit used to be skipped with the
    /// game, even when it started the next one (here the `[Event` line takes the first game to
    /// 40 bytes), so the splitter did not cut there. The reader now decides whether a line
    /// starts a game before it counts its bytes, and the splitter cuts there.
    #[test]
    fn r_a_tag_line_that_would_pass_the_size_limit_starts_the_next_game() {
        let limits = ReaderLimits {
            max_game_bytes: 30,
            ..ReaderLimits::default()
        };
        let input = "[Site \"x\"]\n1. e4 e5 2. d4\n\n[Event \"b\"]\n1. d4 *\n";
        assert_cut_into(input, limits, 2, "a cut before the [Event line");
        let read = whole(input.as_bytes(), limits);
        assert_eq!(read.len(), 2, "{read:?}");
        assert!(read.iter().all(|item| item.starts_with("Ok(")), "{read:?}");
    }

    /// Each state the reader of the whole input can be in when a tag line comes: the chunk
    /// before the cut ends as that reader ends the game there.
    #[test]
    fn a_cut_keeps_how_the_game_before_it_ends() {
        let limits = ReaderLimits::default();
        for (input, why) in [
            (
                "[Event \"a\"]\n;\n\n[Event \"b\"]\n\n1. d4 *\n",
                "a comment",
            ),
            (
                "1. e4 e5\n[Event \"b\"]\n\n1. d4 *\n",
                "no termination marker",
            ),
            (
                "1. e4 {open\n[Event \"b\"]\n\n1. d4 *\n",
                "an unterminated comment",
            ),
            (
                "1. e4 (1. d4\n[Event \"b\"]\n\n1. d4 *\n",
                "an open variation",
            ),
            (
                "1. e4 Ke3 ?? garbage\nmore\n[Event \"b\"]\n\n1. d4 *\n",
                "an error",
            ),
            (
                "1. e4 ) e5\nmore\n[Site \"b\"]\n\n1. d4 *\n",
                "an error, then any tag of the roster after movetext",
            ),
            (
                "[Event \"a\"]\n[Bad tag\nplain\n[White \"b\"]\n\n1. d4 *\n",
                "an error in a tag section, then movetext",
            ),
            (
                "; a comment line\n\n[Event \"b\"]\n\n1. d4 *\n",
                "text that is no game",
            ),
        ] {
            assert_cut_into(input, limits, 2, why);
        }
    }

    #[test]
    fn an_input_error_is_reported_where_the_whole_inputs_reader_reports_it() {
        struct Failing<'a>(&'a [u8]);
        impl io::Read for Failing<'_> {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                unreachable!("read through BufRead")
            }
        }
        impl BufRead for Failing<'_> {
            fn fill_buf(&mut self) -> io::Result<&[u8]> {
                if self.0.is_empty() {
                    Err(io::Error::other("disk on fire"))
                } else {
                    Ok(&self.0[..self.0.len().min(7)])
                }
            }
            fn consume(&mut self, n: usize) {
                self.0 = &self.0[n..];
            }
        }
        let input = format!("{GAME}{GAME}[Event \"c\"]\n\n1. e4");
        let limits = ReaderLimits::default();
        let whole_items = items(Reader::with_limits(Failing(input.as_bytes()), limits), 0);
        let mut splitter = Splitter::new(Failing(input.as_bytes()), &limits, 0);
        let mut chunked = Vec::new();
        while let Some(chunk) = splitter.next_chunk(Vec::new()) {
            let base = chunked.len();
            chunked.extend(items(Reader::of_chunk(&chunk, limits), base));
        }
        assert!(whole_items.last().unwrap().contains("disk on fire"));
        assert_eq!(chunked, whole_items);
    }

    /// A game beyond the size limit does not end the cutting: the review of issue 13's `-j`
    /// found no cut after the first one (the size counted from the last cut only). The reader
    /// skips a game beyond the limit to its end by the rules of any game (issue 26, item 3), so
    /// the tag line right after it is a cut too: each huge game is a chunk of its own, and the
    /// games between are cut two by two (168 bytes, the first cut at 100 or more).
    #[test]
    fn cutting_goes_on_after_a_game_beyond_the_size_limit() {
        let limits = ReaderLimits {
            max_game_bytes: 200,
            ..ReaderLimits::default()
        };
        let huge = format!("[Event \"H\"]\n\n1. e4 {{{}}} e5 1-0\n\n", "x".repeat(300));
        let input = format!("{huge}{}{huge}{}", GAME.repeat(20), GAME.repeat(20));
        let (chunked, chunks) = by_chunks(input.as_bytes(), limits, 100);
        assert_eq!(chunks, 1 + 10 + 1 + 10, "cuts go on after each huge game");
        let read = whole(input.as_bytes(), limits);
        assert_eq!(chunked, read);
        assert!(read[0].contains("bound: GameBytes"), "{}", read[0]);
    }

    /// Issue 28 item 5: a ChessBase tag section with a blank line inside is one game, which the
    /// splitter never cuts (its `[Site` line follows a blank line and a tag line); it still cuts
    /// between such games, after their movetext.
    #[test]
    fn r_no_cut_inside_a_tag_section_with_a_blank_line_issue_28() {
        let limits = ReaderLimits::default();
        let game = "[Event \"E\"]\n\n[Site \"S\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
        let input = game.repeat(30);
        let (chunked, chunks) = by_chunks(input.as_bytes(), limits, 100);
        assert_eq!(
            chunks, 15,
            "a cut before every third game, never before a [Site line"
        );
        assert_eq!(chunked, whole(input.as_bytes(), limits));
        assert_eq!(chunked.len(), 30);
        assert!(
            chunked
                .iter()
                .all(|item| item.starts_with("Ok(") && item.contains("BlankLineInTags")),
            "{chunked:?}"
        );
        // A tag section opened after a termination marker, a blank line, a tag line: the next
        // game (the section has no movetext), cut there or not.
        let input = "[Event \"A\"]\n\n1. e4 1-0 [Event \"B\"]\n\n[Site \"S\"]\n\n1. d4 *\n";
        assert_cut_into(
            input,
            limits,
            2,
            "after a marker's tag section and a blank line",
        );
        let read = whole(input.as_bytes(), limits);
        assert_eq!(read.len(), 3, "{read:?}");
        assert!(read[1].contains("NoMovetext"), "{read:?}");
    }

    /// Short games make many records per byte: chunks are cut by lines too, and an input of
    /// short games with nowhere to cut is given up after 4,096 lines, not after its bytes.
    #[test]
    fn chunks_of_short_games_are_cut_by_lines() {
        let limits = ReaderLimits::default();
        let input = "[Event \"x\"]\n*\n\n".repeat(5_000);
        let mut splitter = Splitter::new(input.as_bytes(), &limits, usize::MAX);
        let mut lines = Vec::new();
        while let Some(chunk) = splitter.next_chunk(Vec::new()) {
            lines.push(chunk.text.iter().filter(|&&b| b == b'\n').count());
        }
        assert_eq!(lines.len(), 15, "{lines:?}");
        assert!(lines.iter().all(|&n| n <= 1_027), "{lines:?}");
        let (chunked, _) = by_chunks(input.as_bytes(), limits, usize::MAX);
        assert_eq!(chunked, whole(input.as_bytes(), limits));
        let input = "*\n".repeat(10_000);
        let mut splitter = Splitter::new(input.as_bytes(), &limits, usize::MAX);
        assert!(splitter.next_chunk(Vec::new()).is_none());
        assert!(splitter.into_rest().is_some());
    }

    /// Games whose tag lines follow lines holding a `[` (a clock comment), where a tag section
    /// could have begun after a termination marker: no line to cut at.
    #[test]
    fn games_without_a_sure_start_are_read_in_one_piece_within_the_bound() {
        let game = "[Site \"x\"]\n1. e4 { [%clk 0:00:10] } e5 1-0\n";
        let input = game.repeat(200);
        let limits = ReaderLimits {
            max_game_bytes: 100,
            ..ReaderLimits::default()
        };
        let mut splitter = Splitter::new(input.as_bytes(), &limits, 50);
        assert!(splitter.next_chunk(Vec::new()).is_none());
        let (first_line, rest) = splitter.into_rest().expect("the rest of the input");
        assert_eq!(first_line, 1);
        let read = items(Reader::with_limits(rest, limits), 0);
        assert_eq!(read, whole(input.as_bytes(), limits));
        assert_eq!(read.len(), 200);
    }

    /// Lines that put the reader in every state: tag sections, movetext, open comments and
    /// variations, errors (and the skips after them), escapes, byte-order marks, long lines
    /// (longer than the small limits' 64 bytes: read in pieces).
    const LINES: &[&str] = &[
        "[Event \"x\"]",
        "[event \"y\"] ; note",
        "[Event \"a}b\"]",
        " [Event \"x\"]",
        "[Event \"x\"] [Site \"s\"]",
        "[Site \"s\"]",
        "[White \"w\"]",
        "[Event \"unterminated",
        "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]",
        "",
        "  ",
        "\t",
        "1. e4 e5 2. Nf3 Nc6 1-0",
        "[Date \"d\"]",
        "1. O\u{2011}O\u{a0}e5\u{200b} 1\u{2013}0",
        "1. e4 1\u{2013}0\u{a0}[Event \"u\"]",
        "\u{a0}",
        "1. e4 \u{bd}:\u{bd}",
        "1. e4 {comment",
        "still comment }",
        "} 1/2-1/2",
        "{ [Event \"z\"] }",
        "1. e4 (1. d4",
        ") *",
        "; semicolon { not a comment",
        "% escape [Event \"e\"]",
        "1-0 [Event \"q\"]",
        "0-1 [Site \"q\"]",
        "*",
        "0-1 trailing",
        "\u{feff}[Event \"b\"]",
        "\u{feff}",
        "12. e4 e5 *",
        "1. Zz9 Ke3",
        "1. e4 { [%clk 0:01:00] } e5 { [%clk 0:01:00] } 0-1",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "\u{0}[\u{0}E",
        "Caf\u{e9} 1. e4",
        "1. e4 ) e5 *",
        "1. e4 $300 e5 1-0",
        "1. e4 Nf3xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx e5 *",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 *",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 1-0 [Site \"z\"]",
        "; a comment line longer than sixty-four bytes, with a marker at its end *",
        "% an escape line longer than sixty-four bytes, with a marker at its end *",
        "{ an open comment longer than sixty-four bytes, with a marker after it 1-0",
        "[Event \"an event name that makes the tag line longer than sixty-four bytes\"]",
        "((((",
        ")))) *",
        "1. e4 1-0 junk [Event \"j\"]",
    ];

    fn input_of(lines: &[(usize, u8)], last_terminated: bool) -> Vec<u8> {
        let mut input = Vec::new();
        for (i, &(line, end)) in lines.iter().enumerate() {
            input.extend_from_slice(LINES[line].as_bytes());
            if i + 1 < lines.len() || last_terminated {
                input.extend_from_slice(match end {
                    0 => b"\n".as_slice(),
                    1 => b"\r\n",
                    _ => b"\r",
                });
            }
        }
        input
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Reading by chunks gives every game, warning and error of reading the whole input,
        /// with the same lines, columns and numbers, whatever the input and the limits.
        #[test]
        fn reading_by_chunks_is_reading_the_whole_input(
            lines in prop::collection::vec((0..LINES.len(), 0u8..3), 0..40),
            last_terminated in any::<bool>(),
            target in 0usize..120,
            small in any::<bool>(),
        ) {
            let input = input_of(&lines, last_terminated);
            let limits = if small {
                ReaderLimits {
                    max_game_bytes: 64,
                    max_tags: 3,
                    max_plies: 4,
                    max_variation_depth: 3,
                    ..ReaderLimits::default()
                }
            } else {
                ReaderLimits::default()
            };
            let (chunked, _) = by_chunks(&input, limits, target);
            prop_assert_eq!(chunked, whole(&input, limits));
        }
    }
}
