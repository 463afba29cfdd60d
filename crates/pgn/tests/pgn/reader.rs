//! The reader: each PGN import-format feature with exact expectations.

use arbiter_pgn::{
    Bound, Encoding, ErrorKind, Nag, PgnError, RawGame, ReadWarning, Reader, ReaderLimits,
    WarningKind, glyph_nag,
};

fn read_all(input: &[u8]) -> Vec<Result<RawGame, String>> {
    Reader::new(input)
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
}

fn one(input: &[u8]) -> RawGame {
    let mut games = read_all(input);
    assert_eq!(games.len(), 1, "{games:?}");
    games.remove(0).unwrap()
}

fn sans(game: &RawGame) -> Vec<&str> {
    game.moves.iter().map(|t| t.text.as_str()).collect()
}

#[test]
fn tag_pairs_with_escapes() {
    let g = one(br#"[Event "The \"Immortal\" game"]
[Site "C:\\games\\london.pgn"]
[White   "Anderssen, Adolf" ]
[A "1"][B "2"]

1. e4 *
"#);
    assert_eq!(
        g.tags,
        [
            ("Event".to_string(), "The \"Immortal\" game".to_string()),
            ("Site".to_string(), "C:\\games\\london.pgn".to_string()),
            ("White".to_string(), "Anderssen, Adolf".to_string()),
            ("A".to_string(), "1".to_string()),
            ("B".to_string(), "2".to_string()),
        ]
    );
    assert_eq!(g.tag_lines, [1, 2, 3, 4, 4]);
    assert_eq!(g.tag("white"), Some("Anderssen, Adolf"));
    assert_eq!(g.line, 1);
    assert_eq!(g.index, 0);
}

#[test]
fn unescaped_quote_inside_a_value_is_kept() {
    let g = one(b"[Event \"Dweep \"x\" cup\"]\n\n*\n");
    assert_eq!(g.tag("Event"), Some("Dweep \"x\" cup"));
}

#[test]
fn comments_variations_and_nags_are_skipped() {
    let g = one(b"1. e4 {best by test} e5 ; a rest-of-line comment\n\
          2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) Nc6 $14 3. Bb5 a6?! 4. Ba4 $1 $18 1-0\n");
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]);
    assert_eq!(
        g.nags,
        [
            Nag { ply: 3, value: 5 },
            Nag { ply: 4, value: 14 },
            Nag { ply: 6, value: 6 },
            Nag { ply: 7, value: 1 },
            Nag { ply: 7, value: 18 },
        ]
    );
    assert_eq!(g.comments, 2);
    assert_eq!(g.variations, 1);
    assert_eq!(g.result.as_deref(), Some("1-0"));
}

#[test]
fn multi_line_comment_with_brackets_inside() {
    let g = one(b"[Event \"x\"]\n\n1. e4 {a comment\n[not a tag]\nends here} e5 0-1\n");
    assert_eq!(sans(&g), ["e4", "e5"]);
    assert_eq!(g.comments, 1);
}

#[test]
fn move_number_forms() {
    let g = one(b"1.e4 e5 2. Nf3 2... Nc6 3 Bb5 3 ... a6 4.Ba4 4...Nf6 5. O-O 0-0 1/2-1/2\n");
    assert_eq!(
        sans(&g),
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "0-0"
        ]
    );
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    // Columns are 1-based characters.
    assert_eq!(
        (g.moves[0].line, g.moves[0].column, g.moves[0].ply),
        (1, 3, 1)
    );
    assert_eq!((g.moves[3].column, g.moves[3].ply), (21, 4));
}

#[test]
fn results_and_games_without_result() {
    let games = read_all(
        b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 d5\n\n[Event \"c\"]\n\n1. c4 0-1\n",
    );
    let games: Vec<RawGame> = games.into_iter().map(Result::unwrap).collect();
    assert_eq!(games.len(), 3);
    assert_eq!(games[0].result.as_deref(), Some("*"));
    assert_eq!(games[1].result, None);
    assert_eq!(sans(&games[1]), ["d4", "d5"]);
    assert_eq!(games[2].result.as_deref(), Some("0-1"));
    assert_eq!(
        games.iter().map(|g| (g.index, g.line)).collect::<Vec<_>>(),
        [(0, 1), (1, 5), (2, 9)]
    );
}

#[test]
fn tagless_games_and_trailing_commentary() {
    let games: Vec<RawGame> =
        Reader::new(&b"1. e4 e5 1-0\n; engine log {\n; more }\n\n1. d4 0-1\n"[..])
            .map(Result::unwrap)
            .collect();
    assert_eq!(games.len(), 2);
    assert_eq!(sans(&games[1]), ["d4"]);
    assert_eq!(games[1].index, 1);
}

#[test]
fn non_utf8_is_detected_and_decoded() {
    let mut input = b"[White \"R".to_vec();
    input.push(0xe9); // é in ISO 8859-1
    input.extend_from_slice(b"ti, Richard\"]\n\n1. Nf3 *\n[White \"R\xc3\xa9ti\"]\n\n1. Nf3 *\n");
    let games: Vec<RawGame> = Reader::new(&input[..]).map(Result::unwrap).collect();
    assert_eq!(games[0].encoding, Encoding::Windows1252);
    assert_eq!(games[0].tag("White"), Some("Réti, Richard"));
    assert_eq!(games[1].encoding, Encoding::Utf8);
    assert_eq!(games[1].tag("White"), Some("Réti"));
}

#[test]
fn bom_crlf_cr_and_escape_lines() {
    let g = one(
        b"\xef\xbb\xbf[Event \"x\"]\r\n% a comment line for tools\r\n\r\n1. e4\re5 2. Nf3 *\r\n",
    );
    assert_eq!(g.tags, [("Event".to_string(), "x".to_string())]);
    assert_eq!(sans(&g), ["e4", "e5", "Nf3"]);
    assert_eq!((g.moves[1].line, g.moves[1].column), (5, 1));
}

#[test]
fn null_moves_are_recorded() {
    let g = one(b"1. e4 -- 2. Z0 0000 3. @@@@ e5 *\n");
    let nulls: Vec<bool> = g.moves.iter().map(|t| t.null).collect();
    assert_eq!(nulls, [false, true, true, true, true, false]);
    assert_eq!(sans(&g), ["e4", "--", "Z0", "0000", "@@@@", "e5"]);
}

#[test]
fn en_passant_remark_and_uci() {
    let g = one(b"1. e2e4 d7d5 2. e4d5 e.p. *\n");
    assert_eq!(sans(&g), ["e2e4", "d7d5", "e4d5"]);
}

#[test]
fn syntax_errors_give_line_and_column_and_the_next_game_is_read() {
    let input = b"[Event \"a\"]\n\n1. e4 e5 2. Nf3 )\n3. Bb5 *\n\n[Event \"b\"]\n\n1. d4 *\n";
    let results = read_all(input);
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 3:17: ')' closes no variation (PGN standard 8.2.5); lines 3-4 skipped to the end of the game"
    );
    assert_eq!(results[1].as_ref().unwrap().tag("Event"), Some("b"));
    assert_eq!(results.len(), 2);
}

#[test]
fn unterminated_comment_and_variation() {
    let results = read_all(b"1. e4 (1. d4 d5\n\n[Event \"b\"]\n\n1. c4 *\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unterminated variation: '(' without ')' (PGN standard 8.2.5); line 1 skipped to the end of the game"
    );
    assert_eq!(results[1].as_ref().unwrap().tag("Event"), Some("b"));
    let results = read_all(b"1. e4 {never closed\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unterminated comment: '{' without '}' (PGN standard 8.2.5); line 1 skipped to the end of the game"
    );
}

#[test]
fn text_after_the_result_is_an_error() {
    let results = read_all(b"1. e4 1-0 e5\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:11: unexpected 'e' after the game termination marker (PGN standard 8.2.6); line 1 skipped to the end of the game"
    );
}

#[test]
fn unexpected_characters() {
    let results = read_all("1. e4 é5 *\n".as_bytes());
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unexpected 'é' in the movetext (PGN standard 8.2); line 1 skipped to the end of the game"
    );
    // Control characters are escaped, not echoed to the terminal.
    let results = read_all(b"1. e4 \x00 *\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unexpected '\\0' in the movetext (PGN standard 8.2); line 1 skipped to the end of the game"
    );
    let results = read_all(b"[Event x]\n\n*\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:8: expected '\"' to open the value of tag 'Event' (PGN standard 8.1.1); lines 1-3 skipped to the end of the game"
    );
}

fn limited(limits: ReaderLimits, input: &[u8]) -> Vec<Result<RawGame, arbiter_pgn::PgnError>> {
    Reader::with_limits(input, limits).collect()
}

#[test]
fn limits_end_only_the_offending_game() {
    let next = b"\n\n[Event \"next\"]\n\n1. d4 *\n";
    let cases: Vec<(ReaderLimits, Vec<u8>, &str)> = vec![
        (
            ReaderLimits {
                max_plies: 3,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *".to_vec(),
            "line 3:17: number of plies exceeds the limit of 3 (--max-moves); line 3 skipped to the end of the game",
        ),
        (
            ReaderLimits {
                max_tags: 1,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n[Site \"y\"]\n\n1. e4 *".to_vec(),
            "line 2:1: number of tag pairs exceeds the limit of 1 (--max-tags); lines 2-4 skipped to the end of the game",
        ),
        (
            ReaderLimits {
                max_tag_value_bytes: 5,
                ..ReaderLimits::default()
            },
            b"[Event \"toolong\"]\n\n1. e4 *".to_vec(),
            "line 1:1: tag value length in bytes exceeds the limit of 5 (--max-tag-value-bytes); lines 1-3 skipped to the end of the game",
        ),
        (
            ReaderLimits {
                max_variation_depth: 2,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n\n1. e4 (1. d4 (1. c4 (1. Nf3))) *".to_vec(),
            "line 3:21: variation nesting depth exceeds the limit of 2 (--max-variation-depth); line 3 skipped to the end of the game",
        ),
        (
            ReaderLimits {
                max_game_bytes: 40,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *".to_vec(),
            "line 3:1: game size in bytes exceeds the limit of 40 (--max-game-bytes); line 3 skipped to the end of the game",
        ),
        (
            // A single line longer than the limit is never held in memory whole.
            ReaderLimits {
                max_game_bytes: 40,
                ..ReaderLimits::default()
            },
            [b"[Event \"x\"]\n\n".as_slice(), &b"e4 ".repeat(1000), b"*"].concat(),
            "line 3:1: game size in bytes exceeds the limit of 40 (--max-game-bytes); line 3 skipped to the end of the game",
        ),
    ];
    for (limits, mut input, expected) in cases {
        input.extend_from_slice(next);
        let results = limited(limits, &input);
        assert_eq!(results.len(), 2, "{expected}");
        let err = results[0].as_ref().unwrap_err();
        assert_eq!(err.to_string(), expected);
        assert!(matches!(err.kind, ErrorKind::Limit { .. }));
        assert_eq!(err.kind.name(), "limit");
        let game = results[1].as_ref().unwrap();
        assert_eq!(
            (game.index, game.tag("Event")),
            (1, Some("next")),
            "{expected}"
        );
    }
}

/// Issue 27 (the reader's bounds become flags of both commands): each bound lets a game that
/// reaches it exactly through, and ends the game one past it with an error naming what was
/// counted, the limit, the flag that sets it, and the line:column where it was passed.
#[test]
fn each_bound_passes_at_its_limit_and_names_its_flag_one_past_it() {
    // Only the bound under test is tight.
    let tight = |bound| {
        let mut limits = ReaderLimits::default();
        match bound {
            Bound::GameBytes => limits.max_game_bytes = 30,
            Bound::Tags => limits.max_tags = 3,
            Bound::TagValueBytes => limits.max_tag_value_bytes = 5,
            Bound::Plies => limits.max_plies = 3,
            Bound::VariationDepth => limits.max_variation_depth = 2,
            _ => unreachable!("a bound this test does not know"),
        }
        limits
    };
    let cases: [(Bound, &str, &str, &str); 7] = [
        (
            Bound::Tags,
            "[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n\n1. e4 *\n",
            "[A \"1\"]\n[B \"2\"]\n[C \"3\"] [D \"4\"]\n\n1. e4 *\n",
            "line 3:9: number of tag pairs exceeds the limit of 3 (--max-tags); lines 3-5 skipped to the end of the game",
        ),
        (
            Bound::TagValueBytes,
            "[Event \"12345\"]\n\n1. e4 *\n",
            "[Event \"123456\"]\n\n1. e4 *\n",
            "line 1:1: tag value length in bytes exceeds the limit of 5 (--max-tag-value-bytes); lines 1-3 skipped to the end of the game",
        ),
        // Bytes after escapes are decoded; a character of two bytes in UTF-8 counts two (five
        // characters, six bytes).
        (
            Bound::TagValueBytes,
            "[Event \"1\\\"3\\\\5\"]\n\n1. e4 *\n",
            "[Event \"12é45\"]\n\n1. e4 *\n",
            "line 1:1: tag value length in bytes exceeds the limit of 5 (--max-tag-value-bytes); lines 1-3 skipped to the end of the game",
        ),
        (
            Bound::Plies,
            "1. e4 e5 2. Nf3 *\n",
            "1. e4 e5 2. Nf3 Nc6 *\n",
            "line 1:17: number of plies exceeds the limit of 3 (--max-moves); line 1 skipped to the end of the game",
        ),
        (
            Bound::VariationDepth,
            "1. e4 (1. d4 (1. c4)) e5 *\n",
            "1. e4 (1. d4 (1. c4 (1. Nf3))) e5 *\n",
            "line 1:21: variation nesting depth exceeds the limit of 2 (--max-variation-depth); line 1 skipped to the end of the game",
        ),
        // 30 bytes with the line ends, one byte each (a CRLF too); then 31.
        (
            Bound::GameBytes,
            "[Event \"x\"]\r\n\r\n1. e4 e5 2. d4 *\n",
            "[Event \"xy\"]\r\n\r\n1. e4 e5 2. d4 *\n",
            "line 3:1: game size in bytes exceeds the limit of 30 (--max-game-bytes); line 3 skipped to the end of the game",
        ),
        (
            Bound::GameBytes,
            "1. d4 d5 2. c4 c6 3. Nc3 e6 *\n",
            "1. d4 d5 2. c4 c6 3. Nc3 Nf6 *\n",
            "line 1:1: game size in bytes exceeds the limit of 30 (--max-game-bytes); line 1 skipped to the end of the game",
        ),
    ];
    for (bound, at_limit, past_limit, expected) in cases {
        let limits = tight(bound);
        let read = limited(limits, at_limit.as_bytes());
        assert!(
            matches!(read.as_slice(), [Ok(_)]),
            "{bound:?} at its limit: {read:?}"
        );
        let read = limited(limits, past_limit.as_bytes());
        let [Err(error)] = read.as_slice() else {
            panic!("{bound:?} past its limit: {read:?}");
        };
        assert_eq!(error.to_string(), expected);
        assert!(
            matches!(error.kind, ErrorKind::Limit { bound: b, .. } if b == bound),
            "{error:?}"
        );
        assert_eq!(
            bound.flag(),
            expected[expected.find("(--").expect("flag") + 1..]
                .split(')')
                .next()
                .expect("flag")
        );
    }
}

#[test]
fn read_game_reuses_the_buffer_and_reports_the_end() {
    let mut reader = Reader::new(&b"1. e4 *\n\n1. d4 *\n"[..]);
    let mut game = RawGame::default();
    assert!(reader.read_game(&mut game).unwrap());
    assert_eq!(sans(&game), ["e4"]);
    assert!(reader.read_game(&mut game).unwrap());
    assert_eq!(sans(&game), ["d4"]);
    assert!(!reader.read_game(&mut game).unwrap());
    assert!(!reader.read_game(&mut game).unwrap());
}

#[test]
fn empty_input() {
    assert!(read_all(b"").is_empty());
    assert!(read_all(b"\n\n  \n").is_empty());
}

/// Every game of `input` through `read_game`, which keeps the game's identity (start line,
/// tags) on an error too.
fn read_kept(input: &[u8]) -> Vec<(RawGame, Option<PgnError>)> {
    let mut reader = Reader::new(input);
    let mut out = Vec::new();
    loop {
        let mut game = RawGame::default();
        match reader.read_game(&mut game) {
            Ok(true) => out.push((game, None)),
            Ok(false) => return out,
            Err(e) => out.push((game, Some(e))),
        }
    }
}

fn tag<'a>(game: &'a RawGame, name: &str) -> &'a str {
    game.tag(name).unwrap_or("")
}

/// PGN standard 8.2: a game is a tag section and a movetext. A second tag section after a blank
/// line is the next game; the first, without movetext, is an error of its own, never merged
/// into the next (it used to be: R2's 0-1 was credited to R1's players).
#[test]
fn tag_section_after_a_blank_line_starts_a_new_game_without_merging() {
    let input = b"[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
[Event \"R2\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let games = read_kept(input);
    assert_eq!(games.len(), 2);
    let (first, error) = &games[0];
    let error = error.as_ref().expect("no movetext");
    assert_eq!(
        error.kind,
        ErrorKind::NoMovetext {
            next_game_line: Some(6)
        }
    );
    assert_eq!(error.kind.name(), "no_movetext");
    assert_eq!((error.line, error.column, error.game), (1, 1, 0));
    assert_eq!(
        error.to_string(),
        "line 1:1: the tag section has no movetext (not even a game termination marker, PGN standard 8.2): a new game starts at line 6"
    );
    assert_eq!((first.index, first.line), (0, 1));
    assert_eq!(
        (
            tag(first, "Event"),
            tag(first, "White"),
            tag(first, "Black")
        ),
        ("R1", "A", "B")
    );
    let (second, error) = &games[1];
    assert!(error.is_none());
    assert_eq!((second.index, second.line), (1, 6));
    assert_eq!(
        (
            tag(second, "Event"),
            tag(second, "White"),
            tag(second, "Result")
        ),
        ("R2", "C", "0-1")
    );
    assert_eq!(sans(second), ["f3", "e5", "g4", "Qh4#"]);
    // The same at the end of the input: tags and nothing after them.
    let games = read_kept(b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n[White \"W\"]\n");
    assert_eq!(games.len(), 2);
    let error = games[1].1.as_ref().expect("no movetext");
    assert_eq!(
        error.kind,
        ErrorKind::NoMovetext {
            next_game_line: None
        }
    );
    assert_eq!(
        (error.line, games[1].0.line, tag(&games[1].0, "White")),
        (5, 5, "W")
    );
}

/// PGN standard 8.1.1: one tag pair per name. A repeated name within one tag section (no blank
/// line between) is a warning; the first value is the one used, whatever the case.
#[test]
fn repeated_tag_name_is_a_warning_and_the_first_value_is_used() {
    let g = one(
        b"[Event \"R1\"]\n[White \"A\"]\n[Round \"1\"] [Event \"R2\"]\n[white \"C\"]\n\n1. e4 *\n",
    );
    assert_eq!((tag(&g, "Event"), tag(&g, "White")), ("R1", "A"));
    assert_eq!(g.tags.len(), 5);
    assert_eq!(
        g.warnings,
        [
            ReadWarning {
                line: 3,
                column: 13,
                ply: 0,
                kind: WarningKind::RepeatedTag {
                    name: "Event".to_string(),
                    first_line: 1
                }
            },
            ReadWarning {
                line: 4,
                column: 1,
                ply: 0,
                kind: WarningKind::RepeatedTag {
                    name: "white".to_string(),
                    first_line: 2
                }
            },
        ]
    );
    assert_eq!(g.warnings[0].kind.code(), "repeated_tag");
    assert_eq!(
        g.warnings[0].to_string(),
        "line 3:13: tag 'Event' repeats the tag of line 1: the first value is used (PGN standard 8.1.1)"
    );
}

/// Issue 11 item 3, a fresh user's finding: two tag sections without the blank line between
/// were merged into one game, credited to the first game's players with the first Result (the
/// second game's `[Event` a mere `repeated_tag`). A line that starts with a second `[Event "`
/// starts the next game, and the first is a game without movetext, as with the blank line.
#[test]
fn r_a_second_event_tag_line_without_a_blank_line_starts_the_next_game() {
    let input = b"[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[Event \"R2\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let games = read_kept(input);
    assert_eq!(games.len(), 2, "{games:?}");
    let error = games[0].1.as_ref().expect("no movetext");
    assert_eq!(
        error.kind,
        ErrorKind::NoMovetext {
            next_game_line: Some(5)
        }
    );
    assert_eq!(
        (
            games[0].0.line,
            tag(&games[0].0, "White"),
            tag(&games[0].0, "Result")
        ),
        (1, "A", "*")
    );
    let (second, error) = &games[1];
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        (second.line, tag(second, "White"), tag(second, "Result")),
        (5, "C", "0-1")
    );
    assert_eq!(sans(second), ["f3", "e5", "g4", "Qh4#"]);
    assert!(second.warnings.is_empty(), "{:?}", second.warnings);
    // Spaces inside the brackets (PGN allows them between tokens): the same.
    let games =
        read_kept(b"[Event \"R1\"]\n[White \"A\"]\n[ Event \"R2\" ]\n[White \"C\"]\n\n1. e4 *\n");
    assert_eq!(games.len(), 2, "{games:?}");
    assert_eq!(tag(&games[1].0, "White"), "C");
}

/// Issue 11 item 3, fresh users' findings: a `{` never closed swallowed every game after it
/// (a 2-game file read as one game, an error). A line holding an `[Event "..."]` tag pair and
/// nothing else ends the comment's game (the unterminated comment is its error) and starts the
/// next one, with or without a blank line before it; a line where the tag pair is followed by
/// the comment's words (`[Event "quoted"] was the old header}`) stays comment.
#[test]
fn r_an_unterminated_comment_does_not_swallow_the_next_game() {
    let input = b"[Event \"A\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {unterminated comment\n\n[Event \"B\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let games = read_kept(input);
    assert_eq!(games.len(), 2, "{games:?}");
    let error = games[0].1.as_ref().expect("unterminated");
    assert_eq!(
        error.to_string(),
        "line 4:17: unterminated comment: '{' without '}' (PGN standard 8.2.5); line 4 skipped to the end of the game"
    );
    assert_eq!((games[0].0.line, tag(&games[0].0, "Event")), (1, "A"));
    let (second, error) = &games[1];
    assert!(error.is_none(), "{error:?}");
    assert_eq!((second.line, tag(second, "Event")), (6, "B"));
    assert_eq!(sans(second), ["f3", "e5", "g4", "Qh4#"]);
    // Without the blank line: the same.
    let input = b"[Event \"A\"]\n\n1. e4 {never closed\n[Event \"B\"]\n\n1. d4 *\n[Event \"C\"]\n\n1. c4 *\n";
    let games = read_kept(input);
    assert_eq!(
        games
            .iter()
            .map(|(g, e)| (tag(g, "Event"), g.line, e.is_some()))
            .collect::<Vec<_>>(),
        [("A", 1, true), ("B", 4, false), ("C", 7, false)]
    );
    // A closed comment spanning a blank line, with a `[Round` line in it: one game.
    let g = one(b"[Event \"a\"]\n\n1. e4 {a note\n\n[Round \"2\"] quoted} e5 *\n");
    assert_eq!((sans(&g), g.comments), (vec!["e4", "e5"], 1));
    // A closed comment quoting an `[Event` tag followed by its own words: one game.
    let g = one(b"[Event \"a\"]\n\n1. e4 {note:\n\n[Event \"quoted\"] was the old header} e5 *\n");
    assert_eq!(
        (sans(&g), g.comments, tag(&g, "Event")),
        (vec!["e4", "e5"], 1, "a")
    );
}

/// The other ways games could be joined or split, each with its documented behaviour.
#[test]
fn games_are_neither_joined_nor_split_by_missing_blank_lines_brackets_or_comments() {
    // No blank line between a game's termination marker and the next tag section: two games.
    let games = read_kept(b"[Event \"a\"]\n1. e4 1-0\n[Event \"b\"]\n1. d4 0-1\n");
    assert_eq!(games.len(), 2);
    assert_eq!(
        games
            .iter()
            .map(|(g, e)| (tag(g, "Event"), g.line, g.result.as_deref(), e.is_none()))
            .collect::<Vec<_>>(),
        [("a", 1, Some("1-0"), true), ("b", 3, Some("0-1"), true)]
    );
    // No termination marker: a `[` at the start of a movetext line starts the next game (the
    // game before ends without a marker, result None).
    let games = read_kept(b"[Event \"a\"]\n\n1. e4 e5\n[Event \"b\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 2);
    assert_eq!(
        (sans(&games[0].0), games[0].0.result.clone()),
        (vec!["e4", "e5"], None)
    );
    assert_eq!((tag(&games[1].0, "Event"), games[1].0.line), ("b", 4));
    // A comment holding `[Event` at the start of a line is a comment: one game.
    let g = one(b"[Event \"a\"]\n\n1. e4 {quoted from\n[Event \"b\"] here} e5 *\n");
    assert_eq!(
        (sans(&g), g.comments, tag(&g, "Event")),
        (vec!["e4", "e5"], 1, "a")
    );
    // A stray result token after the marker on the same line: a syntax error for this game, the
    // next game is read.
    let games = read_kept(b"[Event \"a\"]\n\n1. e4 e5 1-0 0-1\n\n[Event \"b\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 2);
    let error = games[0].1.as_ref().expect("stray marker");
    assert_eq!(
        error.to_string(),
        "line 3:14: unexpected '0' after the game termination marker (PGN standard 8.2.6); line 3 skipped to the end of the game"
    );
    assert_eq!((games[0].0.line, tag(&games[0].0, "Event")), (1, "a"));
    assert_eq!(tag(&games[1].0, "Event"), "b");
    // A stray marker at the end of a line cuts the game: the rest, without tags and starting at
    // move 2, is an error (a game without tags starts at move 1), not a second game.
    let games = read_kept(b"[Event \"a\"]\n\n1. e4 e5 1-0\n2. Nf3 Nc6 1-0\n");
    assert_eq!(games.len(), 2);
    assert!(games[0].1.is_none());
    let error = games[1].1.as_ref().expect("continuation");
    assert_eq!(error.kind.name(), "syntax");
    assert_eq!((error.line, error.column, games[1].0.line), (4, 4, 4));
    assert!(
        error.to_string().contains("starts at move 2, not 1"),
        "{error}"
    );
    // Tagless games that start at move 1 are games.
    let games = read_kept(b"1. e4 *\n1. d4 *\n");
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|(_, e)| e.is_none()));
}

/// Issue 11 item 4, a fresh user's finding: one byte 0x92 in a comment made the whole game
/// decode as Windows-1252, so its UTF-8 names became mojibake (`MÃ¼ller`) without a word. Each
/// tag value is decoded on its own; a game whose names mix both encodings is warned about.
#[test]
fn r_each_tag_value_is_decoded_on_its_own_so_a_stray_byte_never_garbles_utf8_names() {
    let g =
        one(b"[White \"M\xc3\xbcller\"]\n[Black \"Ol\xc3\xa1h\"]\n\n1. e4 {it\x92s a trap} e5 *\n");
    assert_eq!(
        (tag(&g, "White"), tag(&g, "Black")),
        ("M\u{fc}ller", "Ol\u{e1}h")
    );
    assert_eq!(g.encoding, Encoding::Utf8);
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    // UTF-8 and Windows-1252 names in one game: each decoded, and a warning.
    let g = one(b"[White \"M\xc3\xbcller\"]\n[Black \"O\x92Player\"]\n\n1. e4 *\n");
    assert_eq!(
        (tag(&g, "White"), tag(&g, "Black")),
        ("M\u{fc}ller", "O\u{2019}Player")
    );
    assert_eq!(g.encoding, Encoding::Windows1252);
    assert_eq!(
        g.warnings,
        [ReadWarning {
            line: 2,
            column: 1,
            ply: 0,
            kind: WarningKind::MixedEncoding {
                utf8_tag: "White".to_string(),
                windows_tag: "Black".to_string()
            }
        }]
    );
    assert_eq!(g.warnings[0].kind.code(), "mixed_encoding");
    // Both in one value (a fresh user's finding: `MÃ¼ller O’Neil`, no warning).
    let g = one(b"[White \"M\xc3\xbcller O\x92Neil\"]\n\n1. e4 *\n");
    assert_eq!(tag(&g, "White"), "M\u{fc}ller O\u{2019}Neil");
    assert_eq!(
        g.warnings[0].kind,
        WarningKind::MixedEncoding {
            utf8_tag: "White".to_string(),
            windows_tag: "White".to_string()
        }
    );
    // ASCII beside Windows-1252 is no mix.
    let g = one(b"[Event \"Open\"]\n[Black \"O\x92Player\"]\n\n1. e4 *\n");
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
}

/// Windows-1252 in 0x80-0x9F (’ is 0x92, Š is 0x8A): never control characters, never dropped.
#[test]
fn bytes_0x80_to_0x9f_decode_as_windows_1252_not_as_control_characters() {
    let g =
        one(b"[White \"O\x92Player, \x8Aample\"]\n[Black \"\x93Q\x94 \x80 \xe9\"]\n\n1. e4 *\n");
    assert_eq!(g.encoding, Encoding::Windows1252);
    assert_eq!(tag(&g, "White"), "O\u{2019}Player, \u{160}ample");
    assert_eq!(tag(&g, "Black"), "\u{201c}Q\u{201d} \u{20ac} \u{e9}");
    // The five bytes Windows-1252 leaves undefined are an encoding error, the tags kept.
    let games =
        read_kept(b"[Event \"e\"]\n[White \"A\x81B\"]\n\n1. e4 *\n\n[Event \"f\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 2);
    let error = games[0].1.as_ref().expect("encoding");
    assert_eq!(
        error.kind,
        ErrorKind::Encoding {
            tag: "White".to_string(),
            byte: 0x81
        }
    );
    assert_eq!((error.line, games[0].0.line), (2, 1));
    assert_eq!(tag(&games[0].0, "White"), "A\u{fffd}B");
    assert_eq!(tag(&games[1].0, "Event"), "f");
}

/// PGN standard 10 gives the NAG numbers; the symbols are those of lichess (scalachess
/// `Glyph`), ChessBase and Informant: ⩲ $14, ⩱ $15, ± $16, ∓ $17, +− $18, −+ $19, = $10,
/// ∞ $13, □ $7, and the ASCII forms +/= =/+ +/- -/+ +- -+.
#[test]
fn unicode_and_ascii_annotation_glyphs_are_nags_not_errors() {
    let g = one("1. e4?? ∓ {BLUNDER} 1... e5 *\n".as_bytes());
    assert_eq!(sans(&g), ["e4", "e5"]);
    assert_eq!(
        g.nags,
        [Nag { ply: 1, value: 4 }, Nag { ply: 1, value: 17 }]
    );
    let g = one(
        "1. e4 ⩲ e5 ⩱ 2. Nf3 ± Nc6 ∓ 3. Bb5 +− a6 −+ 4. Ba4 = Nf6 ∞ 5. O-O □ Be7 +/= \
         6. Re1 =/+ b5 +/- 7. Bb3 -/+ d6 +- 8. c3 -+ *\n"
            .as_bytes(),
    );
    assert_eq!(sans(&g).len(), 15);
    let values: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(
        values,
        [
            (1, 14),
            (2, 15),
            (3, 16),
            (4, 17),
            (5, 18),
            (6, 19),
            (7, 10),
            (8, 13),
            (9, 7),
            (10, 14),
            (11, 15),
            (12, 16),
            (13, 17),
            (14, 18),
            (15, 19)
        ]
    );
    assert!(g.warnings.is_empty());
    // A symbol without a single NAG (zugzwang differs by side): skipped with a warning.
    let g = one("1. e4 ⨀ e5 *\n".as_bytes());
    assert_eq!(sans(&g), ["e4", "e5"]);
    assert_eq!(g.warnings[0].kind, WarningKind::SkippedGlyph { glyph: '⨀' });
    // Issue 11, a fresh user's finding: its ply was 0; it is the move it follows.
    assert_eq!(
        (g.warnings[0].line, g.warnings[0].column, g.warnings[0].ply),
        (1, 7, 1)
    );
    // ± in a Windows-1252 file is the byte 0xB1.
    let g = one(b"[White \"\xe9\"]\n\n1. e4 \xb1 e5 *\n");
    assert_eq!(g.nags, [Nag { ply: 1, value: 16 }]);
    assert_eq!(glyph_nag("±"), Some(16));
    assert_eq!(glyph_nag("é"), None);
    // Other characters are still refused.
    let results = read_all("1. e4 é5 *\n".as_bytes());
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unexpected 'é' in the movetext (PGN standard 8.2); line 1 skipped to the end of the game"
    );
}

/// An error record keeps the game's start line and tags, whatever the error: the reader fills
/// them in before it reports the error (a too deep variation used to drop them).
#[test]
fn read_errors_keep_the_game_start_line_and_tags_for_every_kind() {
    let deep = format!("1. e4 {} *\n", "(".repeat(65));
    let cases: Vec<(String, &str)> = vec![
        (deep, "limit"),
        ("1. e4 e5 )\n".to_string(), "syntax"),
        ("1. e4 {open\n".to_string(), "syntax"),
        ("1. e4 (1. d4\n".to_string(), "syntax"),
        ("1. e4 $300 *\n".to_string(), "syntax"),
    ];
    for (movetext, kind) in cases {
        let input = format!("\n\n[Event \"E\"]\n[White \"W\"]\n[Black \"B\"]\n\n{movetext}");
        let games = read_kept(input.as_bytes());
        assert_eq!(games.len(), 1, "{movetext}");
        let (game, error) = &games[0];
        let error = error.as_ref().expect("error");
        assert_eq!(error.kind.name(), kind, "{movetext}");
        assert_eq!(game.line, 3, "{movetext}");
        assert_eq!(
            (tag(game, "Event"), tag(game, "White"), tag(game, "Black")),
            ("E", "W", "B"),
            "{movetext}"
        );
    }
    // An error inside the tag section keeps the tags before it.
    let games = read_kept(b"[Event \"E\"]\n[White W]\n\n1. e4 *\n");
    assert_eq!((games[0].0.line, tag(&games[0].0, "Event")), (1, "E"));
    assert_eq!(games[0].1.as_ref().map(|e| e.line), Some(2));
}

/// Issue 11 item 3, a fresh user's finding: a tag section that starts on the line of the game
/// before's termination marker (`... Qh4# 0-1 [Event "B"]`) made the first game an error
/// ("unexpected '['") and the reader's recovery swallowed the second game: "1 game" for two.
/// The marker ends the game, and the `[` starts the next one, at its own column.
#[test]
fn r_a_tag_section_after_the_termination_marker_on_its_line_starts_the_next_game() {
    let input = b"[Event \"A\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1 [Event \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";
    let games = read_all(input);
    assert_eq!(games.len(), 2, "{games:?}");
    let first = games[0].as_ref().expect("the first game reads");
    let second = games[1].as_ref().expect("the second game reads");
    assert_eq!(first.tag("Event"), Some("A"));
    assert_eq!(sans(first), ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(second.tag("Event"), Some("B"));
    assert_eq!(second.tag("Result"), Some("1-0"));
    assert_eq!(
        second.line, 4,
        "the second game starts on the marker's line"
    );
    assert_eq!(sans(second).len(), 7);
    // Anything else after the marker is still an error at its line:column.
    let games = read_all(b"1. e4 e5 1-0 Nf3\n");
    let error = games[0].as_ref().expect_err("text after the marker");
    assert!(error.contains("1:14"), "{error}");
}

/// Issue 11 item 4, a fresh user's finding: `4. Qxf7#+- 1-0` was refused ("expected a
/// destination square"), although an annotation never costs a game its verdict: an ASCII
/// evaluation glyph glued to a move is read as the move and the glyph's NAG.
#[test]
fn r_an_ascii_glyph_glued_to_a_move_is_its_nag() {
    let game = one(b"1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6=+ 4. Qxf7#+- 1-0\n");
    assert_eq!(
        sans(&game),
        ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    );
    let nags: Vec<(u32, u8)> = game.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(nags, [(6, 15), (7, 18)]);
    // A glyph alone and castling with a glyph read the same way.
    let game = one(b"1. e4 -+ e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O+= *\n");
    assert_eq!(sans(&game).last(), Some(&"O-O"));
    assert_eq!(
        game.nags
            .iter()
            .map(|n| (n.ply, n.value))
            .collect::<Vec<_>>(),
        [(1, 19), (7, 14)]
    );
}

/// Issue 11 item 4, a fresh user's findings: `‼`, `⁉`, `⟳`, `Δ`, an en dash in `–+` and the
/// novelty sign `N` refused their games ("unexpected '‼' in the movetext"), and `½-½` as the
/// termination marker too. An annotation never costs a game its verdict.
#[test]
fn r_more_annotation_glyphs_and_the_half_point_marker_are_read() {
    let g = one(
        "1. e4 \u{203c} e5 \u{2049} 2. Nf3 \u{2048} Nc6 N 3. Bb5 \u{2013}+ a6 +\u{2013} *\n"
            .as_bytes(),
    );
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    let values: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(values, [(1, 3), (2, 5), (3, 6), (4, 146), (5, 19), (6, 18)]);
    // Symbols with no single NAG are skipped with a warning.
    let g = one("1. f3 \u{27f3} e5 \u{394} 2. g4 \u{2907} Qh4# 0-1\n".as_bytes());
    assert_eq!(sans(&g), ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(
        g.warnings
            .iter()
            .map(|w| (w.ply, w.kind.code()))
            .collect::<Vec<_>>(),
        [
            (1, "skipped_glyph"),
            (2, "skipped_glyph"),
            (3, "skipped_glyph")
        ]
    );
    // `e8N` stays a promotion, not a move and a novelty.
    let g = one(b"[FEN \"8/4P3/8/8/8/8/k7/4K3 w - - 0 1\"]\n\n1. e8N *\n");
    assert_eq!(sans(&g), ["e8N"]);
    // `½-½` in UTF-8 and in Windows-1252 (0xBD).
    for input in [
        "1. e4 e5 \u{bd}-\u{bd}\n".as_bytes(),
        b"[White \"\xe9\"]\n\n1. e4 e5 \xbd-\xbd\n",
    ] {
        let g = one(input);
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    }
}

/// Fresh-user reports (issue 11, review of 00676e2), one kind: where a game starts was decided
/// by three different tests (an unclosed comment looked for `[Event` only, the skipping after
/// a read error for `[Event "` in column 1 only, a tag section only for `Event` in that case)
/// and a line's start and end only. One test now: a line holding tag pairs and nothing else
/// (a `;` comment may follow), the first of the Seven Tag Roster, any letter case.
#[test]
fn r_one_test_decides_where_a_game_starts() {
    let events = |input: &[u8]| -> Vec<(String, bool)> {
        read_kept(input)
            .iter()
            .map(|(g, e)| (tag(g, "Event").to_owned() + tag(g, "Site"), e.is_some()))
            .collect()
    };
    // An unclosed comment before games that begin with `[Site` (lichess database exports
    // have no Event tag): the next games are read.
    let input = b"[Site \"a\"]\n\n1. e4 {never closed\n\n[Site \"b\"]\n[Result \"*\"]\n\n1. d4 *\n\n[Site \"c\"]\n\n1. c4 *\n";
    assert_eq!(
        events(input),
        [("a".into(), true), ("b".into(), false), ("c".into(), false)]
    );
    // ... and before a tag line with a `;` comment after it.
    let input = b"[Event \"A\"]\n\n1. e4 {never closed\n[Event \"B\"] ; imported\n\n1. d4 *\n";
    assert_eq!(events(input), [("A".into(), true), ("B".into(), false)]);
    // A comment line with words after its tag pair stays comment: one game.
    let g = one(b"[Event \"a\"]\n\n1. e4 {see\n[Event \"Old\"] and later [Site \"New\"]\n} e5 *\n");
    assert_eq!((sans(&g), tag(&g, "Event")), (vec!["e4", "e5"], "a"));
    // After a read error, the next game is found whether its tag line is spaced, tabbed or
    // indented.
    for next in [
        "[ Event \"B\" ]",
        "[Event\t\"B\"]",
        "  [Event \"B\"]",
        "[event \"B\"]",
    ] {
        let input = format!("[Event \"A\"]\n\n1. e4 ) e5 *\n{next}\n\n1. d4 *\n");
        assert_eq!(
            events(input.as_bytes()),
            [("A".into(), true), ("B".into(), false)],
            "{next}"
        );
    }
    // A second Event tag in any letter case starts the next game.
    let input = b"[Event \"A\"]\n[Result \"*\"]\n[event \"B\"]\n\n1. d4 *\n";
    assert_eq!(events(input), [("A".into(), true), ("B".into(), false)]);
}

/// Fresh-user report (issue 11, review of 00676e2): files that each start with a byte-order
/// mark, joined with `cat`, lost the second game (`unexpected '\u{feff}'`). A mark at the
/// start of any line is skipped.
#[test]
fn r_byte_order_mark_where_files_were_joined() {
    let input = b"\xef\xbb\xbf[Event \"A\"]\n\n1. e4 *\n\n\xef\xbb\xbf[Event \"B\"]\n\n1. d4 *\n";
    let games = read_kept(input);
    assert_eq!(
        games
            .iter()
            .map(|(g, e)| (tag(g, "Event"), sans(g), e.is_none()))
            .collect::<Vec<_>>(),
        [("A", vec!["e4"], true), ("B", vec!["d4"], true)]
    );
}

/// Fresh-user report (issue 11, review of 00676e2): one Windows-1252 byte on a movetext line
/// made every UTF-8 glyph of that line unreadable (`unexpected 'â'`). Each character is read
/// as UTF-8 where it is, else as Windows-1252, as tag values are.
#[test]
fn r_windows_1252_byte_beside_utf8_glyphs_on_one_line() {
    let g = one(
        "1. f3\u{203c} {O\u{0}Neil says} e5 \u{2213} 2. g4 \u{b1} Qh4# 0-1\n"
            .replace('\u{0}', "\u{fffd}")
            .as_bytes(),
    );
    let control: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    let mut input = "1. f3\u{203c} {O".as_bytes().to_vec();
    input.push(0x92);
    input.extend_from_slice("Neil says} e5 \u{2213} 2. g4 \u{b1} Qh4# 0-1\n".as_bytes());
    let g = one(&input);
    assert_eq!(sans(&g), ["f3", "e5", "g4", "Qh4#"]);
    let values: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(values, [(1, 3), (2, 17), (3, 16)]);
    assert_eq!(values, control);
}

/// Fresh-user report (issue 11, review of 00676e2): glyphs that still cost a game its
/// verdict: `⁇` ($4), `+/−` and `−/+` with the minus sign U+2212 ($16, $17), `=/∞` ($44).
#[test]
fn r_more_glyphs_that_refused_a_game() {
    let g = one("1. e4 \u{2047} e5 +/\u{2212} 2. Nf3 \u{2212}/+ Nc6 =/\u{221e} *\n".as_bytes());
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6"]);
    let values: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(values, [(1, 4), (2, 16), (3, 17), (4, 44)]);
    // Glued to the move, where the glyph's first characters are ASCII and the rest is not (a
    // second review's finding: a syntax error).
    let g = one("1. f3+/\u{2212} e5 2. g4=/\u{221e} Qh4#+\u{2013} 0-1\n".as_bytes());
    assert_eq!(sans(&g), ["f3", "e5", "g4", "Qh4#"]);
    let values: Vec<(u32, u8)> = g.nags.iter().map(|n| (n.ply, n.value)).collect();
    assert_eq!(values, [(1, 16), (3, 44), (4, 18)]);
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
}

/// Fresh-user report (issue 11, review of 00676e2): a UTF-16 file was refused as "unexpected
/// 'ÿ'" or "expected a tag name". It is said to be UTF-16, with how to convert it.
#[test]
fn r_utf16_input_is_named_as_such() {
    let text = "[Event \"A\"]\n\n1. e4 *\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, input) in [
        ("LE with mark", [vec![0xff, 0xfe], le.clone()].concat()),
        ("BE with mark", [vec![0xfe, 0xff], be].concat()),
        ("LE without mark", le),
    ] {
        let games = read_kept(&input);
        let error = games.first().and_then(|(_, e)| e.as_ref()).expect(name);
        assert!(
            error
                .to_string()
                .starts_with("line 1:1: the input looks like UTF-16"),
            "{name}: {error}"
        );
    }
}

/// Fresh review of issue 11 (D3): UTF-32 input was named UTF-16, and the advice given
/// (`iconv -f UTF-16`) would have garbled it. It is named UTF-32, with or without its mark.
#[test]
fn r_utf32_input_is_named_as_such_not_utf16() {
    let text = "[Event \"A\"]\n\n1. e4 *\n";
    let le: Vec<u8> = text
        .chars()
        .flat_map(|c| u32::from(c).to_le_bytes())
        .collect();
    let be: Vec<u8> = text
        .chars()
        .flat_map(|c| u32::from(c).to_be_bytes())
        .collect();
    for (name, input) in [
        (
            "LE with mark",
            [vec![0xff, 0xfe, 0, 0], le.clone()].concat(),
        ),
        (
            "BE with mark",
            [vec![0, 0, 0xfe, 0xff], be.clone()].concat(),
        ),
        ("LE without mark", le),
        ("BE without mark", be),
    ] {
        let games = read_kept(&input);
        let error = games.first().and_then(|(_, e)| e.as_ref()).expect(name);
        assert!(
            error
                .to_string()
                .starts_with("line 1:1: the input looks like UTF-32"),
            "{name}: {error}"
        );
    }
}

/// A second review's findings (issue 11, review of 34916f7), both from the one game-start test
/// above: a comment line quoting a tag pair with `;` and the comment's close after it was taken
/// for the next game; after an error in a tag section, reading resumed at that section's next
/// tag and made a second game of the broken one.
#[test]
fn r_a_quoted_tag_line_or_a_broken_tag_section_is_not_a_new_game() {
    let g = one(
        b"[Event \"a\"]\n\n1. e4 {note\n[Event \"Candidates 1950\"] ; a typo, see round 3}\ne5 *\n",
    );
    assert_eq!((sans(&g), tag(&g, "Event")), (vec!["e4", "e5"], "a"));
    let input = b"[Event \"A\"]\n[Annotator Fritz]\n[White \"W\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n[Event \"B\"]\n\n1. d4 *\n";
    let games = read_kept(input);
    assert_eq!(
        games
            .iter()
            .map(|(g, e)| (tag(g, "Event"), e.is_some()))
            .collect::<Vec<_>>(),
        [("A", true), ("B", false)]
    );
}
