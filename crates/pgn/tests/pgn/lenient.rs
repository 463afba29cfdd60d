//! Issue 28 items 5 and 8: what a person can read is read, with a warning, never silently:
//! Unicode dashes, spaces, invisible characters and look-alikes in movetext, termination
//! markers written otherwise, a blank line inside a ChessBase tag section, castling written as
//! the king's move, piece letters in lower case; null moves stay refused.

use arbiter_pgn::verdict::{AdjudicationSettings, PgnWarning, adjudicate};
use arbiter_pgn::{
    CharClass, ErrorKind, PgnError, RawGame, ReadWarning, Reader, ReplayOptions, WarningKind,
    replay, replay_moves,
};
use arbiter_rules::{AnalysisBudget, GameResult};

fn read_all(input: &[u8]) -> Vec<Result<RawGame, PgnError>> {
    Reader::new(input).collect()
}

fn one(input: &[u8]) -> RawGame {
    let mut games = read_all(input);
    assert_eq!(games.len(), 1, "{games:?}");
    games.remove(0).unwrap_or_else(|e| panic!("{e}"))
}

fn sans(game: &RawGame) -> Vec<&str> {
    game.moves.iter().map(|t| t.text.as_str()).collect()
}

/// The 1-based column of the `nth` (0-based) occurrence of `c` in `line`, in characters.
fn column_of(line: &str, c: char, nth: usize) -> u32 {
    let index = line
        .chars()
        .enumerate()
        .filter(|&(_, x)| x == c)
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("{c:?} #{nth} in {line:?}"));
    u32::try_from(index + 1).unwrap()
}

/// A character warning: code, written, read as, line, column, ply, count.
type CharWarning = (&'static str, char, Option<char>, u32, u32, u32, u32);

/// The character warnings of a game.
fn read_as(game: &RawGame) -> Vec<CharWarning> {
    game.warnings
        .iter()
        .filter_map(|w| match w.kind {
            WarningKind::ReadAs {
                class,
                written,
                read_as,
                line,
                column,
                count,
            } => {
                assert_eq!((w.line, w.column), (line, column));
                Some((class.code(), written, read_as, line, column, w.ply, count))
            }
            _ => None,
        })
        .collect()
}

fn settings() -> AdjudicationSettings {
    AdjudicationSettings {
        claim_draw: false,
        analysis: AnalysisBudget::Material,
        ..AdjudicationSettings::default()
    }
}

fn codes(warnings: &[PgnWarning]) -> Vec<(&'static str, u32, u32)> {
    warnings.iter().map(|w| (w.code(), w.ply, w.line)).collect()
}

/// A result written with an en dash and castling with a non-breaking hyphen (as web pages
/// write it so that it never breaks) refused the game ("unexpected '–'"): read as `1-0` and
/// `O-O`, each character with its warning at its first place, counted.
#[test]
fn r_unicode_dashes_in_results_and_castling_are_read_with_a_warning_issue_28() {
    let line = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O\u{2011}O O\u{2013}O 1\u{2013}0";
    let g = one(format!("[Event \"E\"]\n[Result \"1-0\"]\n\n{line}\n").as_bytes());
    assert_eq!(
        sans(&g),
        ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "O-O"]
    );
    assert_eq!(g.result.as_deref(), Some("1-0"));
    assert_eq!(
        read_as(&g),
        [
            (
                "unicode_dash",
                '\u{2011}',
                Some('-'),
                4,
                column_of(line, '\u{2011}', 0),
                7,
                1
            ),
            (
                "unicode_dash",
                '\u{2013}',
                Some('-'),
                4,
                column_of(line, '\u{2013}', 0),
                8,
                2
            ),
        ]
    );
    assert_eq!(
        g.warnings[1].kind.to_string(),
        format!(
            "the dash '\u{2013}' (U+2013) at line 4:{} was read as '-' (2 times in the game's movetext): SAN, move numbers and results are ASCII (PGN standard 7, 8.2)",
            column_of(line, '\u{2013}', 0)
        )
    );
    // Every dash and minus sign of the class, in results, castling and long algebraic; and
    // the Windows-1252 en and em dashes (0x96, 0x97).
    for dash in [
        '\u{2010}', '\u{2011}', '\u{2012}', '\u{2013}', '\u{2014}', '\u{2015}', '\u{2212}',
        '\u{fe58}', '\u{fe63}', '\u{ff0d}',
    ] {
        let g = one(
            format!("1. e2{dash}e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0{dash}0 0{dash}1\n").as_bytes(),
        );
        assert_eq!(sans(&g)[0], "e2-e4", "{dash:?}");
        assert_eq!(sans(&g)[6], "0-0", "{dash:?}");
        assert_eq!(g.result.as_deref(), Some("0-1"), "{dash:?}");
        assert_eq!(read_as(&g).len(), 1, "{dash:?}");
        assert_eq!(read_as(&g)[0].6, 3, "{dash:?}");
    }
    for byte in [0x96u8, 0x97] {
        let mut input = b"[White \"Caf\xe9\"]\n\n1. e4 e5 1".to_vec();
        input.extend([byte, b'0', b'\n']);
        let g = one(&input);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        let warnings = read_as(&g);
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            (warnings[0].0, warnings[0].3, warnings[0].4),
            ("unicode_dash", 3, 11)
        );
    }
}

/// No-break and other Unicode spaces between tokens refused the game: read as spaces.
#[test]
fn r_no_break_spaces_in_movetext_are_read_as_spaces_issue_28() {
    let line = "1.\u{a0}e4 e5\u{202f}2.\u{a0}Nf3\u{3000}Nc6\u{2009}*";
    let g = one(line.as_bytes());
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(g.result.as_deref(), Some("*"));
    let warnings = read_as(&g);
    assert_eq!(
        warnings
            .iter()
            .map(|w| (w.0, w.1, w.4, w.5, w.6))
            .collect::<Vec<_>>(),
        [
            ("unicode_space", '\u{a0}', 3, 0, 2),
            ("unicode_space", '\u{202f}', 9, 2, 1),
            ("unicode_space", '\u{3000}', 16, 3, 1),
            ("unicode_space", '\u{2009}', 20, 4, 1),
        ]
    );
    assert!(g.warnings[0].kind.to_string().starts_with(
        "the space (U+00A0) at line 1:3 was read as a space (2 times in the game's movetext)"
    ));
    // Windows-1252's no-break space (0xA0) beside a Windows-1252 name.
    let g = one(b"[White \"Caf\xe9\"]\n\n1.\xa0e4 e5 *\n");
    assert_eq!(sans(&g), ["e4", "e5"]);
    assert_eq!(read_as(&g)[0].0, CharClass::Space.code());
}

/// Zero-width characters and a byte-order mark inside a line show nothing: skipped, so that
/// `N`, a zero-width joiner and `f3` is `Nf3`; the columns after them are those of the line as
/// written.
#[test]
fn r_zero_width_characters_and_a_byte_order_mark_in_movetext_are_skipped_issue_28() {
    let line = "1. e4 \u{200b}e5 2. N\u{200d}f3 \u{feff}Nc6\u{2060} 3. Bb5\u{200c} a6\u{ad} Ke3 *";
    let g = one(line.as_bytes());
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ke3"]);
    let warnings = read_as(&g);
    assert_eq!(
        warnings
            .iter()
            .map(|w| (w.0, w.1, w.2, w.4, w.5))
            .collect::<Vec<_>>(),
        [
            ("invisible_character", '\u{200b}', None, 7, 1),
            ("invisible_character", '\u{200d}', None, 15, 3),
            ("invisible_character", '\u{feff}', None, 19, 3),
            ("invisible_character", '\u{2060}', None, 23, 4),
            ("invisible_character", '\u{200c}', None, 31, 5),
            ("invisible_character", '\u{ad}', None, 35, 6),
        ]
    );
    // The columns of moves after them count them: Ke3's error points at its K.
    let error = replay(&g, &ReplayOptions::default()).expect_err("Ke3 is illegal");
    assert_eq!(
        (error.line, error.column),
        (1, column_of(line, 'K', 0)),
        "{error}"
    );
    assert!(g.warnings[0].kind.to_string().starts_with(
        "the invisible character (U+200B) at line 1:7 was skipped: SAN, move numbers and results are ASCII"
    ));
}

/// Full-width letters and digits, `×`, `†`, `‡`, `…` and figurines (either colour) read as the
/// ASCII a person sees in them; a pawn figurine is skipped.
#[test]
fn r_lookalike_characters_and_figurines_are_read_with_a_warning_issue_28() {
    let g = one(
        "1\u{2026} \u{ff45}\u{ff14} e5 2. \u{2658}f3 \u{265e}c6 3. \u{2657}b5 a6 4. \u{2657}\u{d7}c6 d\u{d7}c6 5. \u{2659}d4 \u{2655}h4\u{2020} 6. \u{2654}e2 \u{265b}\u{d7}e4\u{2021} *\n"
            .as_bytes(),
    );
    assert_eq!(
        sans(&g),
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "d4", "Qh4+", "Ke2", "Qxe4#"
        ]
    );
    assert_eq!(
        read_as(&g)
            .iter()
            .map(|w| (w.0, w.1, w.2, w.6))
            .collect::<Vec<_>>(),
        [
            ("lookalike_character", '\u{2026}', Some('.'), 1),
            ("lookalike_character", '\u{ff45}', Some('e'), 1),
            ("lookalike_character", '\u{ff14}', Some('4'), 1),
            ("figurine", '\u{2658}', Some('N'), 1),
            ("figurine", '\u{265e}', Some('N'), 1),
            ("figurine", '\u{2657}', Some('B'), 2),
            ("lookalike_character", '\u{d7}', Some('x'), 3),
            ("figurine", '\u{2659}', None, 1),
            ("figurine", '\u{2655}', Some('Q'), 1),
            ("lookalike_character", '\u{2020}', Some('+'), 1),
            ("figurine", '\u{2654}', Some('K'), 1),
            ("figurine", '\u{265b}', Some('Q'), 1),
            ("lookalike_character", '\u{2021}', Some('#'), 1),
        ]
    );
}

/// Comments and tag values are the writer's: a dash, a no-break space or a figurine there is
/// kept and warned about nowhere; a dash of an evaluation glyph is the glyph's.
#[test]
fn r_comments_tags_and_glyph_dashes_are_not_read_otherwise_issue_28() {
    let g = one(
        "[White \"Jean\u{2013}Pierre\u{a0}L\u{e9}vy\"]\n\n1. e4 {1\u{2013}0 after O\u{2011}O\u{a0}\u{2658}f3} e5 +\u{2212} 2. Nf3 \u{2013}/+ Nc6 3. Bb5+\u{2013} ; O\u{2011}O\u{200b}\n*\n"
            .as_bytes(),
    );
    assert_eq!(g.tag("White"), Some("Jean\u{2013}Pierre\u{a0}L\u{e9}vy"));
    assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    assert_eq!(
        g.nags.iter().map(|n| (n.ply, n.value)).collect::<Vec<_>>(),
        [(2, 18), (3, 17), (5, 18)]
    );
    assert_eq!(g.warnings, Vec::<ReadWarning>::new());
}

/// Termination markers written as other tools write them were refused in movetext (`1:0`,
/// `0,5-0,5`) or read without a word (`½-½`): each is read as the PGN marker, with a warning
/// naming what was written and where.
#[test]
fn r_termination_markers_written_otherwise_are_read_with_a_warning_issue_28() {
    for (written, result) in [
        ("1:0", "1-0"),
        ("0:1", "0-1"),
        ("1/2:1/2", "1/2-1/2"),
        ("\u{bd}-\u{bd}", "1/2-1/2"),
        ("\u{bd}:\u{bd}", "1/2-1/2"),
        ("0.5-0.5", "1/2-1/2"),
        ("0.5:0.5", "1/2-1/2"),
        ("0,5-0,5", "1/2-1/2"),
        ("0,5:0,5", "1/2-1/2"),
    ] {
        let g = one(format!("1. e4 e5 {written}\n").as_bytes());
        assert_eq!(
            (sans(&g), g.result.as_deref()),
            (vec!["e4", "e5"], Some(result)),
            "{written}"
        );
        assert_eq!(g.warnings.len(), 1, "{written}");
        assert_eq!(
            (
                g.warnings[0].kind.code(),
                g.warnings[0].ply,
                g.warnings[0].column
            ),
            ("nonstandard_result", 2, 10),
            "{written}"
        );
        assert_eq!(
            g.warnings[0].kind.to_string(),
            format!(
                "the termination marker '{written}' at line 1:10 was read as {result} (PGN standard 8.2.6 writes 1-0, 0-1, 1/2-1/2 or *)"
            )
        );
    }
    // `½–½` with an en dash: the dash's warning and the marker's.
    let g = one("1. e4 e5 \u{bd}\u{2013}\u{bd}\n".as_bytes());
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    assert_eq!(
        g.warnings.iter().map(|w| w.kind.code()).collect::<Vec<_>>(),
        ["nonstandard_result", "unicode_dash"]
    );
    // A move number is still a move number.
    let g = one(b"0. e4 5. e5 *\n");
    assert_eq!(sans(&g), ["e4", "e5"]);
}

/// A ChessBase file with a blank line inside its tag section became two records, the game
/// losing its Event (`no_movetext`): one game, with a warning, when the tag line after the
/// blank line repeats none of the section's tags. A repeated tag still starts the next game.
#[test]
fn r_a_blank_line_inside_a_tag_section_is_one_game_when_no_tag_repeats_issue_28() {
    let input = b"[Event \"AlphaZero vs. Stockfish\"]\n\n[Date \"2017.12.04\"]\n[White \"Stockfish 8\"]\n[Black \"AlphaZero\"]\n[Result \"0-1\"]\n\n1. e4 e5 0-1\n";
    let g = one(input);
    assert_eq!(g.tag("Event"), Some("AlphaZero vs. Stockfish"));
    assert_eq!(g.tag("Black"), Some("AlphaZero"));
    assert_eq!(
        (g.line, g.tag_lines.as_slice()),
        (1, [1, 3, 4, 5, 6].as_slice())
    );
    assert_eq!(
        g.warnings,
        [ReadWarning {
            line: 3,
            column: 1,
            ply: 0,
            kind: WarningKind::BlankLineInTags { blank_line: 2 },
        }]
    );
    assert_eq!(
        g.warnings[0].to_string(),
        "line 3:1: the tag section has a blank line (line 2) before this tag pair, which repeats none of its tags: read as one tag section (PGN standard 8.1 puts no blank line inside one)"
    );
    // Two blank lines, twice: one game still, a warning at each join.
    let g = one(b"[Event \"E\"]\n\n\n[Site \"S\"]\n\n[Round \"1\"]\n\n1. e4 *\n");
    assert_eq!(
        g.warnings
            .iter()
            .map(|w| (w.line, w.kind.clone()))
            .collect::<Vec<_>>(),
        [
            (4, WarningKind::BlankLineInTags { blank_line: 2 }),
            (6, WarningKind::BlankLineInTags { blank_line: 5 }),
        ]
    );
    // A tag that repeats one of the section's (any letter case, any of the line's pairs) is
    // the next game's: the section before has no movetext.
    for next in [
        "[Event \"B\"]",
        "[WHITE \"C\"]",
        "[Round \"2\"] [White \"C\"]",
    ] {
        let input = format!("[Event \"A\"]\n[White \"W\"]\n\n{next}\n[Result \"*\"]\n\n1. d4 *\n");
        let games = read_all(input.as_bytes());
        assert_eq!(games.len(), 2, "{next}");
        let error = games[0].as_ref().expect_err("no movetext");
        assert_eq!(
            error.kind,
            ErrorKind::NoMovetext {
                next_game_line: Some(4)
            },
            "{next}"
        );
        assert!(games[1].is_ok(), "{next}");
    }
}

/// `e8(Q)` was read as `e8` and a variation `(Q)`, and refused as a promotion without its
/// piece (a cause that is not the reason): a promotion in parentheses glued to its move is
/// part of it. A variation glued to a move stays a variation.
#[test]
fn r_a_promotion_in_parentheses_is_not_a_variation_issue_28() {
    let g =
        one(b"[FEN \"8/4P1k1/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. e8(Q) Kf6 2. Qe2(2. Qe4) Kf5 *\n");
    assert_eq!(sans(&g), ["e8(Q)", "Kf6", "Qe2", "Kf5"]);
    assert_eq!(g.variations, 1);
    let replayed = replay(&g, &ReplayOptions::default()).expect("legal");
    assert_eq!(
        replayed.game.position().to_fen(),
        "8/8/8/5k2/8/8/4Q3/4K3 w - - 3 3"
    );
}

/// Castling written as the king's move (as chess.js's long algebraic and some exporters write
/// it) was refused with cause CASTLING_IMPOSSIBLE where castling was legal: it is the castling,
/// with a warning at its ply; UCI castling in a game written all in UCI is UCI's own notation.
#[test]
fn r_castling_written_as_a_king_move_is_read_with_a_warning_at_its_ply_issue_28() {
    let pgn = "[Event \"E\"]\n[Result \"*\"]\n\n1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 3. Bf1-c4 Bf8-c5 4. e1-g1 Ng8-f6\n5. d2-d3 d7-d6 6. Bc1-e3 Bc8-e6 7. Nb1-c3 Qd8-d7 8. Qd1-d2 Ke8-c8 *\n";
    let raw = one(pgn.as_bytes());
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    assert_eq!(verdict.game.moves().len(), 16);
    assert_eq!(
        codes(&verdict.warnings),
        [
            ("castling_as_king_move", 7, 4),
            ("castling_as_king_move", 16, 5)
        ]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "line 4:53: ply 7 (e1-g1): castling written as the king's move, read as O-O, which is legal here (PGN writes castling O-O, standard 8.2.3.3)"
    );
    assert_eq!(
        verdict.warnings[1].to_string(),
        "line 5:60: ply 16 (Ke8-c8): castling written as the king's move, read as O-O-O, which is legal here (PGN writes castling O-O-O, standard 8.2.3.3)"
    );
    // The fast replay reads them too.
    let mut moves = Vec::new();
    replay_moves(&raw, &ReplayOptions::default(), &mut moves).expect("replays");
    assert_eq!(moves.len(), 16);
    // A game written all in UCI castles as UCI does: no warning. One UCI castling in a SAN
    // game is warned about.
    let uci = one(b"e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 g8f6 *\n");
    assert!(
        adjudicate(&uci, None, &settings())
            .expect("replays")
            .warnings
            .is_empty()
    );
    let mixed = one(b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. e1g1 *\n");
    assert_eq!(
        codes(
            &adjudicate(&mixed, None, &settings())
                .expect("replays")
                .warnings
        ),
        [("castling_as_king_move", 7, 1)]
    );
}

/// Chess960 castling written as UCI writes standard castling (the king's destination, `b1g1`)
/// is read as the castling with a warning; king takes rook in a UCI game is UCI's notation.
#[test]
fn r_chess960_castling_written_as_the_kings_destination_is_read_with_a_warning_issue_28() {
    let pgn = "[Variant \"Chess960\"]\n[FEN \"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1\"]\n\n1. b1g1 b8g8 *\n";
    let verdict = adjudicate(&one(pgn.as_bytes()), None, &settings()).expect("replays");
    assert_eq!(
        verdict
            .game
            .moves()
            .iter()
            .map(|m| (m.is_castle(), m.to.to_string()))
            .collect::<Vec<_>>(),
        [(true, "h1".to_owned()), (true, "h8".to_owned())]
    );
    assert_eq!(
        codes(&verdict.warnings),
        [
            ("castling_as_king_move", 1, 4),
            ("castling_as_king_move", 2, 4)
        ]
    );
    let pgn = "[Variant \"Chess960\"]\n[FEN \"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1\"]\n\n1. b1h1 b8h8 *\n";
    let verdict = adjudicate(&one(pgn.as_bytes()), None, &settings()).expect("replays");
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
}

/// Piece letters in lower case were refused ("unexpected 'n' before the destination"): read as
/// the capital with a warning; `b` only when no b-pawn move fits, so `bxc4` stays the pawn's.
#[test]
fn r_lowercase_piece_letters_are_read_as_capitals_with_a_warning_issue_28() {
    let raw = one(b"1. e4 e5 2. nf3 nc6 3. bc4 bc5 4. qe2 d6 5. b3 kd7 *\n");
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    let game = &verdict.game;
    let sans: Vec<String> = {
        let mut position = game.start().clone();
        game.moves()
            .iter()
            .map(|m| {
                let san = position.san(m);
                position.play_in_place(m);
                san
            })
            .collect()
    };
    assert_eq!(
        sans,
        [
            "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "Qe2", "d6", "b3", "Kd7"
        ]
    );
    assert_eq!(
        codes(&verdict.warnings),
        [
            ("lowercase_piece_letter", 3, 1),
            ("lowercase_piece_letter", 4, 1),
            ("lowercase_piece_letter", 5, 1),
            ("lowercase_piece_letter", 6, 1),
            ("lowercase_piece_letter", 7, 1),
            ("lowercase_piece_letter", 10, 1),
        ]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "line 1:13: ply 3 (nf3): a piece letter in lower case, read as Nf3 (SAN writes piece letters as capitals and files in small letters, FIDE Laws Appendix C.4)"
    );
    // The b-pawn's capture is the pawn's, whether a bishop could go there or not.
    let raw = one(b"1. b4 e5 2. Bb2 d5 3. e3 Nf6 4. Bd3 c5 5. bxc5 *\n");
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
    // A lower-case knight that fits no knight is refused for the knight's reason.
    let raw = one(b"1. e4 e5 2. nf4 *\n");
    let error = replay(&raw, &ReplayOptions::default()).expect_err("no knight reaches f4");
    assert_eq!(
        error.to_string(),
        "line 1:13: ply 3 (nf4): no white knight can move to f4"
    );
}

/// Issue 28 item 8: null moves stay refused (the Laws have none), wherever they are and
/// however written, with the error a user sees; one in a variation is skipped with it.
#[test]
fn r_null_moves_stay_refused_issue_28() {
    for null in ["--", "Z0", "0000", "@@@@"] {
        let raw = one(format!("[Event \"E\"]\n\n1. e4 {null} 2. d4 *\n").as_bytes());
        let error = adjudicate(&raw, None, &settings()).expect_err(null);
        assert_eq!(
            error.to_string(),
            format!("line 3:7: null move at ply 2 ({null}): a null move is not a legal move")
        );
        assert_eq!(error.kind.name(), "null_move");
    }
    let raw = one(b"1. e4 (1. d4 -- 2. c4) e5 *\n");
    let verdict = adjudicate(&raw, None, &settings()).expect("the variation is skipped");
    assert_eq!(verdict.game.moves().len(), 2);
    assert_eq!(verdict.result(), None::<GameResult>);
}

/// A `Result` tag written with an en dash (`1–0`) was no result (`unknown_result`, the marker
/// used instead): it declares its result, kept as written, with the dash's warning at its
/// line:column; so do the decimal-comma draws.
#[test]
fn r_a_result_tag_with_a_unicode_dash_declares_its_result_with_a_warning_issue_28() {
    let raw = one("[Event \"E\"]\n[Result \"1\u{2013}0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n".as_bytes());
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    let declared = verdict.declared.as_ref().expect("declared");
    assert_eq!(declared.text, "1\u{2013}0");
    assert_eq!(declared.claims(), Some(GameResult::WhiteWins));
    assert_eq!(verdict.disagreement, None);
    assert_eq!(codes(&verdict.warnings), [("unicode_dash", 0, 2)]);
    assert_eq!(
        verdict.warnings[0].to_string(),
        "the dash '\u{2013}' (U+2013) at line 2:11 was read as '-': SAN, move numbers and results are ASCII (PGN standard 7, 8.2)"
    );
    for (text, result) in [
        ("0\u{2212}1", Some(GameResult::BlackWins)),
        ("1/2\u{2014}1/2", Some(GameResult::Draw)),
        ("0,5-0,5", Some(GameResult::Draw)),
        ("0,5:0,5", Some(GameResult::Draw)),
        ("1\u{2013}0 (time)", None),
    ] {
        assert_eq!(
            arbiter_pgn::verdict::read_result(text),
            result.map(Some),
            "{text}"
        );
    }
    // A tag that is no result keeps its dash unwarned: the unknown_result warning says it.
    let raw = one("[Result \"1\u{2013}0 (time)\"]\n\n1. e4 e5 1-0\n".as_bytes());
    let verdict = adjudicate(&raw, None, &settings()).expect("replays");
    assert_eq!(codes(&verdict.warnings), [("unknown_result", 0, 1)]);
}
