//! The reader: each PGN import-format feature with exact expectations.

use arbiter_pgn::{Encoding, ErrorKind, Nag, RawGame, Reader, ReaderLimits};

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
fn blank_line_inside_the_tag_section() {
    let g = one(b"[Event \"x\"]\n\n[Site \"y\"]\n\n1. e4 *\n");
    assert_eq!(g.tags.len(), 2);
}

#[test]
fn latin1_is_detected_and_decoded() {
    let mut input = b"[White \"R".to_vec();
    input.push(0xe9); // é in ISO 8859-1
    input.extend_from_slice(b"ti, Richard\"]\n\n1. Nf3 *\n[White \"R\xc3\xa9ti\"]\n\n1. Nf3 *\n");
    let games: Vec<RawGame> = Reader::new(&input[..]).map(Result::unwrap).collect();
    assert_eq!(games[0].encoding, Encoding::Latin1);
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
        "line 3:17: ')' closes no variation (PGN standard 8.2.5)"
    );
    assert_eq!(results[1].as_ref().unwrap().tag("Event"), Some("b"));
    assert_eq!(results.len(), 2);
}

#[test]
fn unterminated_comment_and_variation() {
    let results = read_all(b"1. e4 (1. d4 d5\n\n[Event \"b\"]\n\n1. c4 *\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unterminated variation: '(' without ')' (PGN standard 8.2.5)"
    );
    assert_eq!(results[1].as_ref().unwrap().tag("Event"), Some("b"));
    let results = read_all(b"1. e4 {never closed\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unterminated comment: '{' without '}' (PGN standard 8.2.5)"
    );
}

#[test]
fn text_after_the_result_is_an_error() {
    let results = read_all(b"1. e4 1-0 e5\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:11: unexpected 'e' after the game termination marker (PGN standard 8.2.6)"
    );
}

#[test]
fn unexpected_characters() {
    let results = read_all("1. e4 é5 *\n".as_bytes());
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unexpected 'é' in the movetext (PGN standard 8.2)"
    );
    // Control characters are escaped, not echoed to the terminal.
    let results = read_all(b"1. e4 \x00 *\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:7: unexpected '\\0' in the movetext (PGN standard 8.2)"
    );
    let results = read_all(b"[Event x]\n\n*\n");
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "line 1:8: expected '\"' to open the value of tag 'Event' (PGN standard 8.1.1)"
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
            "line 3:17: number of plies exceeds the limit of 3",
        ),
        (
            ReaderLimits {
                max_tags: 1,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n[Site \"y\"]\n\n1. e4 *".to_vec(),
            "line 2:1: number of tag pairs exceeds the limit of 1",
        ),
        (
            ReaderLimits {
                max_tag_value_len: 5,
                ..ReaderLimits::default()
            },
            b"[Event \"toolong\"]\n\n1. e4 *".to_vec(),
            "line 1:1: tag value length in bytes exceeds the limit of 5",
        ),
        (
            ReaderLimits {
                max_variation_depth: 2,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n\n1. e4 (1. d4 (1. c4 (1. Nf3))) *".to_vec(),
            "line 3:21: variation nesting depth exceeds the limit of 2",
        ),
        (
            ReaderLimits {
                max_game_bytes: 40,
                ..ReaderLimits::default()
            },
            b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *".to_vec(),
            "line 3:1: game size in bytes exceeds the limit of 40",
        ),
        (
            // A single line longer than the limit is never held in memory whole.
            ReaderLimits {
                max_game_bytes: 40,
                ..ReaderLimits::default()
            },
            [b"[Event \"x\"]\n\n".as_slice(), &b"e4 ".repeat(1000), b"*"].concat(),
            "line 3:1: game size in bytes exceeds the limit of 40",
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
