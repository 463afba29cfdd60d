//! Issue 26, item 3: after an error in the middle of a game, the reader skips that game to its
//! end by the rules that end any game (its termination marker, then movetext or a tag section)
//! and reads every game after it. It used to skip to the next tag section, so every game
//! without tags after the bad one disappeared: `1. e4 e5 *`, `1. e4 ) e5 *`, `1. d4 d5 *`,
//! `1. c4 c5 *` gave 2 records for 4 games. Each test reads 4 games and gets 4 records: 3 games
//! and 1 error that names the lines it skipped.

use std::io::{self, BufRead};

use arbiter_pgn::{PgnError, RawGame, Reader, ReaderLimits, SkippedLines};

/// Every record of `input`: the game as read (its tags, index and line kept with an error) and
/// its error.
fn records(limits: ReaderLimits, input: &[u8]) -> Vec<(RawGame, Option<PgnError>)> {
    let mut reader = Reader::with_limits(input, limits);
    let mut out = Vec::new();
    loop {
        let mut game = RawGame::default();
        match reader.read_game(&mut game) {
            Ok(true) => out.push((game, None)),
            Ok(false) => return out,
            Err(error) => out.push((game, Some(error))),
        }
    }
}

fn sans(game: &RawGame) -> Vec<&str> {
    game.moves.iter().map(|t| t.text.as_str()).collect()
}

/// What an error record says: its kind, line:column and the lines skipped.
fn error_of(record: &(RawGame, Option<PgnError>)) -> (&'static str, u32, u32, Option<(u32, u32)>) {
    let error = record.1.as_ref().expect("an error record");
    (
        error.kind.name(),
        error.line,
        error.column,
        error.skipped.map(|s| (s.first, s.last)),
    )
}

/// `bad` (its lines 3 and 4 of the input) between a game before and two games after it, none
/// with tags: 4 records, the bad game's error at `at` (line, column) of kind `kind` having
/// skipped `skipped`, the three others read whole at their lines.
fn assert_only_the_bad_game_is_lost(
    limits: ReaderLimits,
    bad: &str,
    kind: &str,
    at: (u32, u32),
    skipped: (u32, u32),
) {
    let input = format!("1. e4 e5 *\n\n{bad}\n\n1. d4 d5 *\n\n1. c4 c5 *\n");
    let records = records(limits, input.as_bytes());
    assert_eq!(records.len(), 4, "4 games in, 4 records out: {records:?}");
    let good: Vec<(usize, u32, Vec<&str>, bool)> = [0, 2, 3]
        .iter()
        .map(|&i| {
            let (game, error) = &records[i];
            (game.index, game.line, sans(game), error.is_none())
        })
        .collect();
    let after = 3 + u32::try_from(bad.lines().count()).unwrap() + 1;
    assert_eq!(
        good,
        [
            (0, 1, vec!["e4", "e5"], true),
            (2, after, vec!["d4", "d5"], true),
            (3, after + 2, vec!["c4", "c5"], true),
        ],
        "{bad}"
    );
    assert_eq!(
        error_of(&records[1]),
        (kind, at.0, at.1, Some(skipped)),
        "{bad}"
    );
    assert_eq!((records[1].0.index, records[1].0.line), (1, 3), "{bad}");
}

/// The issue's own input: `1. e4 ) e5 *` on one line, the games after it without tags.
#[test]
fn r_a_stray_closing_parenthesis_skips_only_its_own_game() {
    let input = b"1. e4 e5 *\n\n1. e4 ) e5 *\n\n1. d4 d5 *\n\n1. c4 c5 *\n";
    let records = records(ReaderLimits::default(), input);
    assert_eq!(records.len(), 4, "{records:?}");
    assert_eq!(error_of(&records[1]), ("syntax", 3, 7, Some((3, 3))));
    assert_eq!(
        records[1].1.as_ref().unwrap().to_string(),
        "line 3:7: ')' closes no variation (PGN standard 8.2.5); line 3 skipped to the end of the game"
    );
    assert_eq!(
        records
            .iter()
            .map(|(game, _)| (game.index, game.line))
            .collect::<Vec<_>>(),
        [(0, 1), (1, 3), (2, 5), (3, 7)]
    );
    // The game goes on to a later line: the skip follows it there.
    assert_only_the_bad_game_is_lost(
        ReaderLimits::default(),
        "1. e4 ) e5 2. Nf3\nNc6 3. Bb5 *",
        "syntax",
        (3, 7),
        (3, 4),
    );
}

#[test]
fn r_a_nag_over_255_skips_only_its_own_game() {
    assert_only_the_bad_game_is_lost(
        ReaderLimits::default(),
        "1. e4 $300 e5\n2. Nf3 *",
        "syntax",
        (3, 7),
        (3, 4),
    );
}

#[test]
fn r_a_token_over_32_characters_skips_only_its_own_game() {
    let token = format!("Nf3{}", "x".repeat(30));
    assert_eq!(token.len(), 33);
    assert_only_the_bad_game_is_lost(
        ReaderLimits::default(),
        &format!("1. e4 {token} e5\n2. Nf3 *"),
        "syntax",
        (3, 7),
        (3, 4),
    );
}

#[test]
fn r_plies_over_the_limit_skip_only_their_own_game() {
    let limits = ReaderLimits {
        max_plies: 4,
        ..ReaderLimits::default()
    };
    assert_only_the_bad_game_is_lost(
        limits,
        "1. e4 e5 2. Nf3 Nc6 3. Bb5\na6 *",
        "limit",
        (3, 24),
        (3, 4),
    );
}

/// The limit is passed on the bad game's second line (30 + 24 bytes > 40); a game on one line
/// longer than the limit is read in pieces, and the skip still finds its termination marker at
/// the line's end (a marker cut between two pieces would not be one: pieces end after a space).
#[test]
fn r_a_game_over_the_byte_limit_skips_only_itself() {
    let limits = ReaderLimits {
        max_game_bytes: 40,
        ..ReaderLimits::default()
    };
    assert_only_the_bad_game_is_lost(
        limits,
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n4. Ba4 Nf6 5. O-O Be7 *",
        "limit",
        (4, 1),
        (4, 4),
    );
    let long = format!("{}1/2-1/2", "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(20));
    assert_eq!(long.len(), 447);
    assert_only_the_bad_game_is_lost(limits, &long, "limit", (3, 1), (3, 3));
    // Without a space to cut at, the pieces are cut where they fill.
    let comment = format!("1. e4 {{{}}} e5 1-0", "x".repeat(500));
    assert_only_the_bad_game_is_lost(limits, &comment, "limit", (3, 1), (3, 3));
}

#[test]
fn r_nesting_deeper_than_64_skips_only_its_own_game() {
    let bad = format!("1. e4 {}1... d5\n{} e5 *", "(".repeat(65), ")".repeat(65));
    assert_only_the_bad_game_is_lost(ReaderLimits::default(), &bad, "limit", (3, 71), (3, 4));
}

/// Tagged games: the bad game's tags stay in its record, and the next game is read from its
/// tag section on the line after the bad game's termination marker.
#[test]
fn r_a_bad_tagged_game_skips_only_itself() {
    let input = b"[Event \"A\"]\n\n1. e4 e5 *\n\n[Event \"B\"]\n[White \"W\"]\n\n1. e4 ) e5\n2. Nf3 *\n[Event \"C\"]\n\n1. d4 d5 *\n\n[Event \"D\"]\n\n1. c4 c5 *\n";
    let records = records(ReaderLimits::default(), input);
    assert_eq!(
        records
            .iter()
            .map(|(game, error)| (game.tag("Event"), game.line, error.is_none()))
            .collect::<Vec<_>>(),
        [
            (Some("A"), 1, true),
            (Some("B"), 5, false),
            (Some("C"), 10, true),
            (Some("D"), 14, true)
        ]
    );
    assert_eq!(records[1].0.tag("White"), Some("W"));
    assert_eq!(error_of(&records[1]), ("syntax", 8, 7, Some((8, 9))));
}

/// Games with and without tags, bad games of both kinds, and an error in a tag section (the
/// game's movetext is skipped with it, the game without tags after it is read).
#[test]
fn r_bad_games_with_and_without_tags_each_skip_only_themselves() {
    let input = b"[Event \"A\"]\n\n1. e4 ) e5 *\n\n1. d4 d5 *\n\n[Event \"C\"]\n\n1. c4 c5 *\n\n1. Nf3 $300 Nf6 *\n\n1. g3 g6 *\n\n[Event \"F\"]\n[Bad tag\n\n1. b3 b6 *\n\n1. f4 f5 *\n";
    let records = records(ReaderLimits::default(), input);
    assert_eq!(
        records
            .iter()
            .map(|(game, error)| (
                game.tag("Event"),
                game.line,
                sans(game).first().copied(),
                error.as_ref().and_then(|e| e.skipped)
            ))
            .collect::<Vec<_>>(),
        [
            (
                Some("A"),
                1,
                Some("e4"),
                Some(SkippedLines { first: 3, last: 3 })
            ),
            (None, 5, Some("d4"), None),
            (Some("C"), 7, Some("c4"), None),
            (
                None,
                11,
                Some("Nf3"),
                Some(SkippedLines {
                    first: 11,
                    last: 11
                })
            ),
            (None, 13, Some("g3"), None),
            (
                Some("F"),
                15,
                None,
                Some(SkippedLines {
                    first: 16,
                    last: 18
                })
            ),
            (None, 20, Some("f4"), None),
        ]
    );
    assert!(
        records
            .iter()
            .all(|(game, error)| error.is_some() || game.result.is_some())
    );
}

/// A broken Event tag pair still names the section's Event tag: a second `[Event` line right
/// after it starts the next game, as after a good one; a broken tag of another name does not.
#[test]
fn r_a_broken_event_tag_line_ends_at_the_next_event_line() {
    let event = records(
        ReaderLimits::default(),
        b"[Event Broken]\n[Event \"B\"]\n\n1. e4 e5 *\n",
    );
    assert_eq!(event.len(), 2, "{event:?}");
    assert_eq!(error_of(&event[0]), ("syntax", 1, 8, Some((1, 1))));
    assert_eq!(
        (event[1].0.tag("Event"), event[1].0.line, sans(&event[1].0)),
        (Some("B"), 2, vec!["e4", "e5"])
    );
    let site = records(
        ReaderLimits::default(),
        b"[Site Broken]\n[Event \"B\"]\n\n1. e4 e5 *\n",
    );
    assert_eq!(site.len(), 1, "{site:?}");
    assert_eq!(error_of(&site[0]), ("syntax", 1, 7, Some((1, 4))));
}

/// A comment or variation never closed runs to the game's end (a line starting a tag section,
/// or the end of the input), and the games without tags after it are in it: the error names the
/// lines it ran over, so that they are not lost without a word.
#[test]
fn r_an_unclosed_comment_or_variation_names_the_lines_it_ran_over() {
    for (opened, kind) in [("{oops", "comment"), ("(1. d4", "variation")] {
        let input = format!(
            "1. e4 e5 *\n\n1. e4 {opened}\n\n1. d4 d5 *\n\n1. c4 c5 *\n\n[Event \"E\"]\n\n1. Nf3 *\n"
        );
        let records = records(ReaderLimits::default(), input.as_bytes());
        assert_eq!(records.len(), 3, "{kind}: {records:?}");
        assert_eq!(
            (
                records[0].1.is_none(),
                records[2].1.is_none(),
                records[2].0.line
            ),
            (true, true, 9),
            "{kind}"
        );
        let error = records[1].1.as_ref().expect("unterminated");
        assert!(
            error.to_string().ends_with(&format!(
                "unterminated {kind}: '{}' without '{}' (PGN standard 8.2.5); lines 3-7 skipped to the end of the game",
                &opened[..1],
                if kind == "comment" { "}" } else { ")" }
            )),
            "{error}"
        );
        assert_eq!(
            (error.line, error.column, error.skipped),
            (3, 7, Some(SkippedLines { first: 3, last: 7 }))
        );
    }
}

/// An input error while a bad game is skipped comes after that game's error, which names the
/// lines skipped before it; reading then ends.
#[test]
fn r_an_input_error_while_skipping_comes_after_the_bad_games_error() {
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
                Ok(self.0)
            }
        }
        fn consume(&mut self, n: usize) {
            self.0 = &self.0[n..];
        }
    }
    let mut reader = Reader::new(Failing(b"1. e4 e5 *\n\n1. e4 ) e5\n2. Nf3\n"));
    let items: Vec<Result<RawGame, PgnError>> = reader.by_ref().collect();
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items[0].is_ok());
    let error = items[1].as_ref().unwrap_err();
    assert_eq!(
        (error.kind.name(), error.line, error.skipped),
        ("syntax", 3, Some(SkippedLines { first: 3, last: 4 }))
    );
    let io = items[2].as_ref().unwrap_err();
    assert_eq!((io.kind.name(), io.line, io.skipped), ("io", 5, None));
}

/// Text in another encoding is not read as movetext: a UTF-16 game is one error up to the next
/// line that starts a tag section, not one error per `*` in it.
#[test]
fn utf16_text_is_skipped_to_the_next_tag_section() {
    let utf16: Vec<u8> = "[Result \"*\"]\n\n1. e4 *\n\n1. d4 *\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let input = [
        [0xff, 0xfe].as_slice(),
        &utf16,
        b"\n[Event \"B\"]\n\n1. c4 *\n",
    ]
    .concat();
    let records = records(ReaderLimits::default(), &input);
    assert_eq!(records.len(), 2, "{records:?}");
    let (kind, line, column, skipped) = error_of(&records[0]);
    assert_eq!((kind, line, column), ("syntax", 1, 1));
    assert_eq!(skipped, Some((1, 6)));
    assert_eq!(records[1].0.tag("Event"), Some("B"));
    assert_eq!(records[1].0.line, 7);
}
