//! The number people give a game of a round, from its tags.
//!
//! Arbiters, players and pairing programs name a game by its round and board: "5.20" is board
//! 20 of round 5. PGN files carry it in one of two ways: a `Round` tag that holds both, as a
//! multipart round identifier ("a sequence of integer round numbers separated by periods", PGN
//! standard 8.1.1.3; lichess broadcasts, TWIC and chess-results exports write `[Round "5.20"]`),
//! or a `Round` tag with the round and a `Board` tag with the board (ChessBase, Swiss-Manager).
//! A game with neither is numbered by its place in the input, counted from 1.
//!
//! The number is read from one game's tags alone, so that it is the same however the input is
//! cut among threads, and it is **not unique**: two sections of one event (an Open and a
//! Women's tournament in one file) each have a board 20 of round 5, and a game pasted twice
//! keeps its tags. Whatever needs to tell games apart uses the input's order (a 0-based index)
//! or the line a game starts on.

use std::fmt;

use crate::RawGame;

/// Characters a number from the tags has at most; a longer `Round` or `Round`.`Board` is not
/// a number people use, and the game is counted instead.
pub const MAX_NUMBER_CHARS: usize = 24;

/// Where a [`GameNumber`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumberSource {
    /// The `Round` tag as written, a multipart round identifier: whole numbers separated by
    /// periods (`5.20`, `3.1.4`).
    Round,
    /// The `Round` tag and the `Board` tag, both whole numbers, joined by a period (`5` and
    /// `20` give `5.20`).
    RoundBoard,
    /// The game's place in the input, counted from 1: the tags give no number.
    Counted,
}

/// The number people give a game: `5.20` from its tags, or its place in the input counted
/// from 1 (see the module's documentation for the rules). `Display` writes it as shown to
/// people.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameNumber {
    text: String,
    source: NumberSource,
}

impl GameNumber {
    /// The number of `raw`, the game at 0-based `index` in its input:
    ///
    /// 1. the `Round` tag, when it is a multipart round identifier (whole numbers separated by
    ///    periods, at least one period: `5.20`);
    /// 2. else `Round`.`Board`, when both tags are whole numbers (`5` and `20`);
    /// 3. else `index + 1`.
    ///
    /// Tag values are read without the spaces around them, and are used as written (`05.20`
    /// stays `05.20`). The values PGN uses for "unknown" and "not applicable" (`?`, `-`), an
    /// empty value, anything else that is not a whole number (`5a`, `Final`, `5.`, `5..2`), and
    /// a result longer than [`MAX_NUMBER_CHARS`] give no number: the game is counted. A
    /// counted number never has a period, so it never equals a number from the tags.
    #[must_use]
    pub fn of(raw: &RawGame, index: usize) -> GameNumber {
        let round = raw.tag("Round").map(str::trim).unwrap_or("");
        if round.contains('.')
            && round.len() <= MAX_NUMBER_CHARS
            && round.split('.').all(whole_number)
        {
            return GameNumber {
                text: round.to_owned(),
                source: NumberSource::Round,
            };
        }
        let board = raw.tag("Board").map(str::trim).unwrap_or("");
        if whole_number(round)
            && whole_number(board)
            && round.len() + 1 + board.len() <= MAX_NUMBER_CHARS
        {
            return GameNumber {
                text: format!("{round}.{board}"),
                source: NumberSource::RoundBoard,
            };
        }
        GameNumber::counted(index)
    }

    /// The number of the game at 0-based `index` when nothing else gives one: `index + 1`.
    #[must_use]
    pub fn counted(index: usize) -> GameNumber {
        GameNumber {
            text: index.saturating_add(1).to_string(),
            source: NumberSource::Counted,
        }
    }

    /// The number as shown to people: `5.20`, `7`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Where the number comes from.
    #[must_use]
    pub fn source(&self) -> NumberSource {
        self.source
    }

    /// Whether the number comes from the tags, and so may be shared by another game of the
    /// input (a counted number never is).
    #[must_use]
    pub fn from_tags(&self) -> bool {
        self.source != NumberSource::Counted
    }
}

impl fmt::Display for GameNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Distinct numbers from tags a [`NumberRegister`] keeps, at most (about 7 MB): the games
/// after that many distinct numbers are not checked against each other.
pub const MAX_CHECKED_NUMBERS: usize = 100_000;

/// Games with a repeated number a [`NumberRegister`] lists, at most (it counts them all).
pub const MAX_LISTED_REPEATS: usize = 1_000;

/// A game whose number, from its tags, an earlier game of the same event has.
///
/// `Display` gives `game 5.20 at line 340 has the number of the game at line 12 of the same
/// event`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepeatedNumber {
    /// The number.
    pub number: String,
    /// The 1-based line where this game starts.
    pub line: u32,
    /// The 1-based line where the first game with this number starts.
    pub first_line: u32,
}

impl fmt::Display for RepeatedNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} at line {} has the number of the game at line {} of the same event",
            self.number, self.line, self.first_line
        )
    }
}

/// The event a number is unique within: the values of the `Event`, `Site` and `Date` tags
/// (without the spaces around them; no tag is the empty value), so that the editions of a
/// recurring event (`GBR-NLD m`, London 1952 and Cheltenham 1959, each with a board 1.1) are
/// told apart; as a 64-bit hash (SipHash with fixed keys: the same in every run), so that a
/// register holds 8 bytes of it whatever the tags' length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventKey(u64);

impl EventKey {
    /// The event of `raw`.
    #[must_use]
    pub fn of(raw: &RawGame) -> EventKey {
        use std::hash::{Hash as _, Hasher as _};
        let mut hasher = std::hash::DefaultHasher::new();
        for tag in ["Event", "Site", "Date"] {
            raw.tag(tag).map_or("", str::trim).hash(&mut hasher);
        }
        EventKey(hasher.finish())
    }
}

/// The numbers from tags that the games of an input had so far, by event, to find a game
/// numbered as an earlier game of the same event: a game pasted twice, a wrong `Board` tag,
/// two sections of a tournament exported under one `Event` name. Games of different events
/// may share a number (a file of many tournaments has a board 1.1 in each), and counted
/// numbers are never kept (they are distinct by construction). Memory is bounded: at most
/// [`MAX_CHECKED_NUMBERS`] numbers are kept and [`MAX_LISTED_REPEATS`] repeats listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumberRegister {
    first_lines: std::collections::HashMap<(EventKey, String), u32>,
    repeated: usize,
    listed: Vec<RepeatedNumber>,
    unchecked: usize,
}

impl NumberRegister {
    /// Adds the number of the next game of the input, of `event`, which starts at `line`;
    /// returns whether an earlier game of the same event had it.
    pub fn add(&mut self, event: EventKey, number: &GameNumber, line: u32) -> bool {
        if !number.from_tags() {
            return false;
        }
        let key = (event, number.as_str().to_owned());
        if let Some(&first_line) = self.first_lines.get(&key) {
            self.repeated += 1;
            if self.listed.len() < MAX_LISTED_REPEATS {
                self.listed.push(RepeatedNumber {
                    number: number.as_str().to_owned(),
                    line,
                    first_line,
                });
            }
            return true;
        }
        if self.first_lines.len() < MAX_CHECKED_NUMBERS {
            self.first_lines.insert(key, line);
        } else {
            self.unchecked += 1;
        }
        false
    }

    /// How many games had the number of an earlier game of the same event.
    #[must_use]
    pub fn repeated(&self) -> usize {
        self.repeated
    }

    /// The first [`MAX_LISTED_REPEATS`] games that had the number of an earlier game of the
    /// same event, in input order.
    #[must_use]
    pub fn listed(&self) -> &[RepeatedNumber] {
        &self.listed
    }

    /// How many games had a number from tags that was not kept ([`MAX_CHECKED_NUMBERS`]
    /// distinct numbers were already): a later game with the same number is not found.
    #[must_use]
    pub fn unchecked(&self) -> usize {
        self.unchecked
    }
}

/// One or more ASCII digits and nothing else.
fn whole_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;

    /// The number of the first game of `tags` (tag lines) at index 6.
    fn number(tags: &str) -> (String, NumberSource) {
        let pgn = format!("{tags}\n\n1. e4 *\n");
        let raw = Reader::new(pgn.as_bytes())
            .next()
            .expect("a game")
            .expect("read");
        let number = GameNumber::of(&raw, 6);
        (number.to_string(), number.source())
    }

    /// Issue 28, item 2: a `Round` tag with a period is the number; else `Round`.`Board`;
    /// else the game's place counted from 1.
    #[test]
    fn the_round_tag_with_a_period_then_round_and_board_then_the_place() {
        use NumberSource::{Counted, Round, RoundBoard};
        let cases: [(&str, (&str, NumberSource)); 8] = [
            ("[Round \"5.20\"]", ("5.20", Round)),
            // The Round tag wins over a Board tag that says otherwise.
            ("[Round \"5.20\"]\n[Board \"7\"]", ("5.20", Round)),
            ("[Round \"3.1.4\"]", ("3.1.4", Round)),
            ("[Round \"5\"]\n[Board \"20\"]", ("5.20", RoundBoard)),
            // Spaces around the values are not part of them; leading zeros are kept.
            ("[Round \" 05 \"]\n[Board \"020\"]", ("05.020", RoundBoard)),
            ("[Round \"5\"]", ("7", Counted)),
            ("[Board \"20\"]", ("7", Counted)),
            ("[Event \"no round\"]", ("7", Counted)),
        ];
        for (tags, (text, source)) in cases {
            assert_eq!(number(tags), (text.to_owned(), source), "{tags}");
        }
    }

    /// Issue 28, item 2: PGN's "unknown" (`?`) and "not applicable" (`-`), empty values and
    /// values that are not whole numbers give no number: the game is counted.
    #[test]
    fn unknown_empty_and_odd_round_or_board_tags_are_counted() {
        for tags in [
            "[Round \"?\"]\n[Board \"3\"]",
            "[Round \"-\"]\n[Board \"3\"]",
            "[Round \"\"]\n[Board \"3\"]",
            "[Round \"5\"]\n[Board \"?\"]",
            "[Round \"5\"]\n[Board \"-\"]",
            "[Round \"5\"]\n[Board \"\"]",
            "[Round \"5\"]\n[Board \"3a\"]",
            "[Round \"Final\"]\n[Board \"1\"]",
            "[Round \"5.\"]",
            "[Round \".20\"]",
            "[Round \"5..20\"]",
            "[Round \"5.?\"]",
            "[Round \"?.?\"]",
            "[Round \"5. 20\"]",
            "[Round \"5,20\"]",
            "[Round \"-5.20\"]",
            "[Round \"٥.٢\"]",
        ] {
            assert_eq!(
                number(tags),
                ("7".to_owned(), NumberSource::Counted),
                "{tags}"
            );
        }
    }

    /// A number from the tags is at most [`MAX_NUMBER_CHARS`] characters; a longer one is no
    /// number people use.
    #[test]
    fn a_number_longer_than_the_bound_is_counted() {
        let round = format!("1.{}", "2".repeat(MAX_NUMBER_CHARS - 2));
        assert_eq!(
            number(&format!("[Round \"{round}\"]")),
            (round, NumberSource::Round)
        );
        let round = format!("1.{}", "2".repeat(MAX_NUMBER_CHARS - 1));
        assert_eq!(
            number(&format!("[Round \"{round}\"]")).1,
            NumberSource::Counted
        );
        let board = "3".repeat(MAX_NUMBER_CHARS - 2);
        assert_eq!(
            number(&format!("[Round \"5\"]\n[Board \"{board}\"]")),
            (format!("5.{board}"), NumberSource::RoundBoard)
        );
        let board = "3".repeat(MAX_NUMBER_CHARS - 1);
        assert_eq!(
            number(&format!("[Round \"5\"]\n[Board \"{board}\"]")).1,
            NumberSource::Counted
        );
    }

    /// Two games with the same tags have the same number: the number does not tell games
    /// apart, and never equals a counted one.
    #[test]
    fn games_with_the_same_tags_share_a_number_and_counted_numbers_have_no_period() {
        let pgn = "[Event \"Open\"]\n[Round \"5.20\"]\n\n1. e4 *\n\n[Event \"Women\"]\n[Round \"5.20\"]\n\n1. d4 *\n\n[Event \"Blitz\"]\n\n1. c4 *\n";
        let numbers: Vec<GameNumber> = Reader::new(pgn.as_bytes())
            .enumerate()
            .map(|(i, raw)| GameNumber::of(&raw.expect("read"), i))
            .collect();
        assert_eq!(numbers[0], numbers[1]);
        assert_eq!(numbers[0].as_str(), "5.20");
        assert!(numbers[0].from_tags());
        assert_eq!(numbers[2], GameNumber::counted(2));
        assert_eq!(numbers[2].as_str(), "3");
        assert!(!numbers[2].from_tags());
        assert_eq!(
            GameNumber::counted(usize::MAX).as_str(),
            usize::MAX.to_string()
        );
    }

    /// Issue 28, item 2: the register finds a game numbered as an earlier game of the same
    /// event (the second and the third 5.20 of the Open), names both lines, and neither a
    /// game of another event (or another edition of it, on another date) with that number nor
    /// counted numbers.
    #[test]
    fn the_register_finds_games_numbered_as_an_earlier_one_of_the_same_event() {
        let pgn = "[Event \"Open\"]\n[Round \"5.20\"]\n\n1. e4 *\n\n\
                   [Event \"Open\"]\n[Round \"5.21\"]\n\n1. e4 *\n\n\
                   [Event \"Women\"]\n[Round \"5.20\"]\n\n1. e4 *\n\n\
                   [Event \"Open\"]\n\n1. e4 *\n\n\
                   [Event \" Open \"]\n[Round \"5\"]\n[Board \"20\"]\n\n1. e4 *\n\n\
                   [Event \"Open\"]\n\n1. e4 *\n\n\
                   [Event \"Open\"]\n[Round \"5.20\"]\n\n1. e4 *\n\n\
                   [Event \"Open\"]\n[Date \"2027.05.01\"]\n[Round \"5.20\"]\n\n1. e4 *\n";
        let mut register = NumberRegister::default();
        let repeated: Vec<bool> = Reader::new(pgn.as_bytes())
            .enumerate()
            .map(|(index, raw)| {
                let raw = raw.expect("read");
                register.add(EventKey::of(&raw), &GameNumber::of(&raw, index), raw.line)
            })
            .collect();
        assert_eq!(
            repeated,
            [false, false, false, false, true, false, true, false]
        );
        assert_eq!((register.repeated(), register.unchecked()), (2, 0));
        let listed: Vec<String> = register.listed().iter().map(ToString::to_string).collect();
        assert_eq!(
            listed,
            [
                "game 5.20 at line 20 has the number of the game at line 1 of the same event",
                "game 5.20 at line 30 has the number of the game at line 1 of the same event"
            ]
        );
    }

    /// The register keeps at most [`MAX_CHECKED_NUMBERS`] numbers and lists at most
    /// [`MAX_LISTED_REPEATS`] repeats, and counts what it could not check.
    #[test]
    fn the_register_is_bounded_and_says_what_it_did_not_check() {
        let round = |n: usize| GameNumber {
            text: format!("1.{n}"),
            source: NumberSource::Round,
        };
        let event = EventKey::of(&RawGame::default());
        let mut register = NumberRegister::default();
        for n in 0..MAX_CHECKED_NUMBERS + 5 {
            register.add(event, &round(n), 1);
        }
        assert_eq!(register.unchecked(), 5);
        assert!(
            !register.add(event, &round(MAX_CHECKED_NUMBERS), 2),
            "not kept"
        );
        for _ in 0..MAX_LISTED_REPEATS + 3 {
            assert!(register.add(event, &round(0), 3));
        }
        assert_eq!(register.repeated(), MAX_LISTED_REPEATS + 3);
        assert_eq!(register.listed().len(), MAX_LISTED_REPEATS);
    }
}
