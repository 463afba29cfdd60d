//! SAN in other languages and figurine SAN (FIDE Laws Appendix C.4: "each piece is indicated by
//! an abbreviation; in the English language it is the first letter, a capital letter, of its
//! name").
//!
//! Piece letters: English K Q R B N; Spanish and Italian R D T A C; German K D T L S; French
//! R D T F C (roi, dame, tour, fou, cavalier); Dutch K D T L P; figurine ♔♕♖♗♘ / ♚♛♜♝♞.
//! Reading rule: piece letters are capitals, files small letters.

use arbiter_rules::{
    CastlingMode, FenOptions, Move, MoveError, Position, STARTING_FEN, SanLanguage, SanMode,
};

use SanLanguage::{Dutch, English, Figurine, French, German, Italian, Spanish};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// White: king e1, queen d2, rook h1, bishop d3, knight b1, pawns a4 and e7.
/// Black: king g7, pawn b5. Both the bishop and the a-pawn can capture on b5.
const WHITE_TO_MOVE: &str = "8/4P1k1/8/1p6/P7/3B4/3Q4/1N2K2R w - - 0 1";
/// The same, mirrored, Black to move.
const BLACK_TO_MOVE: &str = "1n2k2r/3q4/3b4/p7/1P6/8/4p1K1/8 b - - 0 1";

fn san_of(p: &Position, uci: &str, language: SanLanguage) -> String {
    let m = p.parse_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e}"));
    p.san_in(&m, language)
}

/// The moves in UCI: knight, bishop capture, queen, rook, king, pawn capture, promotions
/// to Q, R, B, N (the knight gives check to g7).
const MOVES_WHITE: [&str; 10] = [
    "b1c3", "d3b5", "d2d1", "h1f1", "e1e2", "a4b5", "e7e8q", "e7e8r", "e7e8b", "e7e8n",
];

#[test]
fn exact_san_in_every_language_white() {
    let p = pos(WHITE_TO_MOVE);
    let expected: [(SanLanguage, [&str; 10]); 7] = [
        (
            English,
            [
                "Nc3", "Bxb5", "Qd1", "Rf1", "Ke2", "axb5", "e8=Q", "e8=R", "e8=B", "e8=N+",
            ],
        ),
        (
            Spanish,
            [
                "Cc3", "Axb5", "Dd1", "Tf1", "Re2", "axb5", "e8=D", "e8=T", "e8=A", "e8=C+",
            ],
        ),
        (
            German,
            [
                "Sc3", "Lxb5", "Dd1", "Tf1", "Ke2", "axb5", "e8=D", "e8=T", "e8=L", "e8=S+",
            ],
        ),
        (
            French,
            [
                "Cc3", "Fxb5", "Dd1", "Tf1", "Re2", "axb5", "e8=D", "e8=T", "e8=F", "e8=C+",
            ],
        ),
        (
            Italian,
            [
                "Cc3", "Axb5", "Dd1", "Tf1", "Re2", "axb5", "e8=D", "e8=T", "e8=A", "e8=C+",
            ],
        ),
        (
            Dutch,
            [
                "Pc3", "Lxb5", "Dd1", "Tf1", "Ke2", "axb5", "e8=D", "e8=T", "e8=L", "e8=P+",
            ],
        ),
        (
            Figurine,
            [
                "♘c3", "♗xb5", "♕d1", "♖f1", "♔e2", "axb5", "e8=♕", "e8=♖", "e8=♗", "e8=♘+",
            ],
        ),
    ];
    for (language, sans) in expected {
        for (uci, san) in MOVES_WHITE.iter().zip(sans) {
            assert_eq!(san_of(&p, uci, language), san, "{language:?} {uci}");
            let m = p.parse_uci(uci).unwrap();
            assert_eq!(
                p.parse_san_in(san, SanMode::Strict, language).unwrap(),
                m,
                "{language:?} {san}"
            );
        }
    }
    // English through san_in is exactly Position::san.
    for m in p.legal_moves().iter() {
        assert_eq!(p.san_in(m, English), p.san(m));
    }
}

#[test]
fn exact_san_in_every_language_black_and_figurine_symbols_of_the_mover() {
    let p = pos(BLACK_TO_MOVE);
    let moves = [
        "b8c6", "d6b4", "d7d8", "h8f8", "e8e7", "a5b4", "e2e1q", "e2e1r", "e2e1b", "e2e1n",
    ];
    let expected: [(SanLanguage, [&str; 10]); 7] = [
        (
            English,
            [
                "Nc6", "Bxb4", "Qd8", "Rf8", "Ke7", "axb4", "e1=Q", "e1=R", "e1=B", "e1=N+",
            ],
        ),
        (
            Spanish,
            [
                "Cc6", "Axb4", "Dd8", "Tf8", "Re7", "axb4", "e1=D", "e1=T", "e1=A", "e1=C+",
            ],
        ),
        (
            German,
            [
                "Sc6", "Lxb4", "Dd8", "Tf8", "Ke7", "axb4", "e1=D", "e1=T", "e1=L", "e1=S+",
            ],
        ),
        (
            French,
            [
                "Cc6", "Fxb4", "Dd8", "Tf8", "Re7", "axb4", "e1=D", "e1=T", "e1=F", "e1=C+",
            ],
        ),
        (
            Italian,
            [
                "Cc6", "Axb4", "Dd8", "Tf8", "Re7", "axb4", "e1=D", "e1=T", "e1=A", "e1=C+",
            ],
        ),
        (
            Dutch,
            [
                "Pc6", "Lxb4", "Dd8", "Tf8", "Ke7", "axb4", "e1=D", "e1=T", "e1=L", "e1=P+",
            ],
        ),
        (
            Figurine,
            [
                "♞c6", "♝xb4", "♛d8", "♜f8", "♚e7", "axb4", "e1=♛", "e1=♜", "e1=♝", "e1=♞+",
            ],
        ),
    ];
    for (language, sans) in expected {
        for (uci, san) in moves.iter().zip(sans) {
            assert_eq!(san_of(&p, uci, language), san, "{language:?} {uci}");
            assert_eq!(
                p.parse_san_in(san, SanMode::Strict, language).unwrap(),
                p.parse_uci(uci).unwrap(),
                "{language:?} {san}"
            );
        }
    }
}

/// Castling is `O-O` / `O-O-O` in every language, check and mate signs are kept.
#[test]
fn castling_check_and_mate_in_every_language() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for language in SanLanguage::ALL {
        assert_eq!(san_of(&p, "e1g1", language), "O-O", "{language:?}");
        assert_eq!(san_of(&p, "e1c1", language), "O-O-O", "{language:?}");
        let m = p.parse_san_in("O-O", SanMode::Strict, language).unwrap();
        assert_eq!(p.uci(&m), "e1g1");
    }
    // Back-rank mate with the rook: Ta8# in Spanish.
    let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let expected = [
        (English, "Ra8#"),
        (Spanish, "Ta8#"),
        (German, "Ta8#"),
        (French, "Ta8#"),
        (Italian, "Ta8#"),
        (Dutch, "Ta8#"),
        (Figurine, "♖a8#"),
    ];
    for (language, san) in expected {
        assert_eq!(san_of(&p, "a1a8", language), san, "{language:?}");
    }
}

/// Disambiguation letters are files and ranks, never translated: Spanish `Tae1` (rook from the
/// a-file), French `Cbd2`, German `S1d2`.
#[test]
fn disambiguation_is_not_translated() {
    let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
    assert_eq!(san_of(&p, "a1d1", Spanish), "Tad1");
    assert_eq!(san_of(&p, "h1f1", Spanish), "Thf1");
    assert_eq!(
        p.parse_san_in("Tad1", SanMode::Strict, Spanish).unwrap(),
        p.parse_uci("a1d1").unwrap()
    );
    let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(san_of(&p, "b1d2", French), "Cbd2");
    assert_eq!(san_of(&p, "f3d2", French), "Cfd2");
    let p = pos("4k3/8/8/8/8/1N6/8/1N2K3 w - - 0 1");
    assert_eq!(san_of(&p, "b1d2", German), "S1d2");
    assert_eq!(san_of(&p, "b3d2", German), "S3d2");
    assert_eq!(san_of(&p, "b3d2", Dutch), "P3d2");
    assert_eq!(
        p.parse_san_in("P3d2", SanMode::Strict, Dutch).unwrap(),
        p.parse_uci("b3d2").unwrap()
    );
}

/// An ambiguous move lists its candidates in the language of the input: in Spanish `Rad1` would
/// be a king move, so the candidates must read `Tad1, Thd1`.
#[test]
fn ambiguous_candidates_in_the_language_of_the_input() {
    let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
    for (language, text, candidates) in [
        (Spanish, "Td1", "Tad1, Thd1"),
        (German, "Td1", "Tad1, Thd1"),
        (Figurine, "♖d1", "♖ad1, ♖hd1"),
    ] {
        let err = p
            .parse_san_in(text, SanMode::Tolerant, language)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("'{text}' is ambiguous: it fits {candidates}"),
            "{language:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (2) Round trips.
// ---------------------------------------------------------------------------------------------

fn epd_positions(file: &str) -> Vec<Position> {
    let path = format!(
        "{}/../../tests/data/perft/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = FenOptions {
        mode: CastlingMode::Standard,
        validation: arbiter_rules::Validation::PERFT_SUITE,
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fen = l.split(';').next().unwrap().trim();
            Position::from_fen_with(fen, options).unwrap_or_else(|e| panic!("{fen}: {e}"))
        })
        .collect()
}

/// Every legal move rendered with `san_in` reads back with `parse_san_in`, strict and tolerant,
/// to the same move, in every language; UCI is the same in every language. Returns the number of
/// moves checked.
fn check_round_trip(p: &Position) -> usize {
    let fen = p.to_fen();
    let moves = p.legal_moves();
    for m in moves.iter() {
        let uci = p.uci(m);
        for language in SanLanguage::ALL {
            let san = p.san_in(m, language);
            for mode in [SanMode::Strict, SanMode::Tolerant] {
                let back = p
                    .parse_san_in(&san, mode, language)
                    .unwrap_or_else(|e| panic!("{fen} {language:?} {mode:?} {san}: {e}"));
                assert_eq!(&back, m, "{fen} {language:?} {mode:?} {san}");
            }
            // Without the check sign, tolerant reading still finds it.
            let bare = san.trim_end_matches(['+', '#']);
            assert_eq!(
                &p.parse_san_in(bare, SanMode::Tolerant, language).unwrap(),
                m,
                "{fen} {language:?} {bare}"
            );
        }
        // UCI is language-independent.
        assert_eq!(&p.parse_uci(&uci).unwrap(), m, "{fen} {uci}");
        assert_eq!(&p.parse_move(&uci).unwrap(), m, "{fen} {uci}");
    }
    moves.len()
}

#[test]
fn round_trip_standard_epd() {
    let positions = epd_positions("standard.epd");
    assert_eq!(positions.len(), 128);
    let moves: usize = positions.iter().map(check_round_trip).sum();
    assert!(moves > 1000, "{moves}");
}

#[test]
fn round_trip_named_epd() {
    let positions = epd_positions("named.epd");
    assert_eq!(positions.len(), 43);
    let moves: usize = positions.iter().map(check_round_trip).sum();
    assert!(moves > 500, "{moves}");
}

/// A small deterministic generator (xorshift64*), so failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Random games from the start position, from the perft positions and from Chess960 start
/// positions: at least 200 positions, every move of each in every language. Random games reach
/// many promotions, pieces that need disambiguation and checks.
#[test]
fn round_trip_random_playouts() {
    let mut starts: Vec<Position> = vec![pos(STARTING_FEN)];
    starts.extend(epd_positions("named.epd").into_iter().take(6));
    starts.extend([0, 105, 518, 959].map(|n| Position::chess960(n).unwrap()));
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut positions = 0;
    let mut promotions = 0;
    for (game, start) in starts.iter().cycle().take(40).enumerate() {
        let mut p = start.clone();
        for ply in 0..160 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Every 4th ply of every game, plus every position with a promotion.
            let promotes = moves.iter().any(|m| m.promotion.is_some());
            if ply % 4 == game % 4 || promotes {
                check_round_trip(&p);
                positions += 1;
                promotions += usize::from(promotes);
            }
            let pick: Move = moves[(rng.next() % moves.len() as u64) as usize];
            p = p.play(&pick);
        }
    }
    assert!(positions >= 200, "{positions}");
    assert!(promotions > 0, "{promotions}");
}

// ---------------------------------------------------------------------------------------------
// (3) The reading rule.
// ---------------------------------------------------------------------------------------------

/// Spanish and Italian `A` is a bishop (alfil, alfiere), never the a-file: `Axb5` is the bishop
/// capture and `axb5` the pawn capture, in the position where both can capture on b5.
#[test]
fn capital_a_is_a_bishop_small_a_is_the_a_file() {
    let p = pos(WHITE_TO_MOVE);
    let bishop = p.parse_uci("d3b5").unwrap();
    let pawn = p.parse_uci("a4b5").unwrap();
    for language in [Spanish, Italian] {
        for mode in [SanMode::Strict, SanMode::Tolerant] {
            assert_eq!(p.parse_san_in("Axb5", mode, language).unwrap(), bishop);
            assert_eq!(p.parse_san_in("axb5", mode, language).unwrap(), pawn);
        }
        // Tolerant forms: without the capture sign, with the origin square.
        assert_eq!(
            p.parse_san_in("Ab5", SanMode::Tolerant, language).unwrap(),
            bishop
        );
        assert_eq!(
            p.parse_san_in("Ad3xb5", SanMode::Tolerant, language)
                .unwrap(),
            bishop
        );
        assert_eq!(
            p.parse_san_in("ab5", SanMode::Tolerant, language).unwrap(),
            pawn
        );
        // Strict: only the canonical spelling.
        assert_eq!(
            p.parse_san_in("Ab5", SanMode::Strict, language)
                .unwrap_err()
                .to_string(),
            "'Ab5' is not strict SAN: write 'Axb5'"
        );
    }
    // In English, A is not a piece; B is the bishop and b a file.
    assert_eq!(
        p.parse_san_in("Bxb5", SanMode::Strict, English).unwrap(),
        bishop
    );
    // German/Dutch L, French F.
    assert_eq!(
        p.parse_san_in("Lxb5", SanMode::Strict, German).unwrap(),
        bishop
    );
    assert_eq!(
        p.parse_san_in("Lxb5", SanMode::Strict, Dutch).unwrap(),
        bishop
    );
    assert_eq!(
        p.parse_san_in("Fxb5", SanMode::Strict, French).unwrap(),
        bishop
    );
}

/// French R is the king (roi), T the rook (tour), D the queen; Spanish R is the king (rey).
#[test]
fn the_king_is_r_in_french_spanish_and_italian() {
    let p = pos(WHITE_TO_MOVE);
    let king = p.parse_uci("e1f1").unwrap();
    let rook = p.parse_uci("h1f1").unwrap();
    for language in [French, Spanish, Italian] {
        assert_eq!(
            p.parse_san_in("Rf1", SanMode::Strict, language).unwrap(),
            king
        );
        assert_eq!(
            p.parse_san_in("Tf1", SanMode::Strict, language).unwrap(),
            rook
        );
        assert_eq!(p.san_in(&king, language), "Rf1");
        assert_eq!(p.san_in(&rook, language), "Tf1");
    }
    assert_eq!(
        p.parse_san_in("Rf1", SanMode::Strict, English).unwrap(),
        rook
    );
    assert_eq!(
        p.parse_san_in("Kf1", SanMode::Strict, German).unwrap(),
        king
    );
}

/// A capital letter that is not a piece letter of the language is an error naming the
/// language's letters (king, queen, rook, bishop, knight).
#[test]
fn foreign_capital_letters_are_errors_naming_the_letters() {
    let p = pos(STARTING_FEN);
    for (language, text, error) in [
        (
            Spanish,
            "Nf3",
            "'Nf3' is not a move in SAN or UCI notation: 'N' is not a piece letter in Spanish (R D T A C)",
        ),
        (
            Italian,
            "Nf3",
            "'Nf3' is not a move in SAN or UCI notation: 'N' is not a piece letter in Italian (R D T A C)",
        ),
        (
            German,
            "Nf3",
            "'Nf3' is not a move in SAN or UCI notation: 'N' is not a piece letter in German (K D T L S)",
        ),
        (
            French,
            "Nf3",
            "'Nf3' is not a move in SAN or UCI notation: 'N' is not a piece letter in French (R D T F C)",
        ),
        (
            Dutch,
            "Nf3",
            "'Nf3' is not a move in SAN or UCI notation: 'N' is not a piece letter in Dutch (K D T L P)",
        ),
        (
            Spanish,
            "Bb5",
            "'Bb5' is not a move in SAN or UCI notation: 'B' is not a piece letter in Spanish (R D T A C)",
        ),
        (
            German,
            "Qd1",
            "'Qd1' is not a move in SAN or UCI notation: 'Q' is not a piece letter in German (K D T L S)",
        ),
        (
            English,
            "Sf3",
            "'Sf3' is not a move in SAN or UCI notation: 'S' is not a piece letter (K Q R B N)",
        ),
    ] {
        for mode in [SanMode::Strict, SanMode::Tolerant] {
            let err = p.parse_san_in(text, mode, language).unwrap_err();
            assert_eq!(err.kind(), "syntax", "{language:?} {text}");
            assert_eq!(err.to_string(), error, "{language:?} {text}");
        }
    }
    // The same letters are fine in their own language.
    let knight = p.parse_uci("g1f3").unwrap();
    assert_eq!(
        p.parse_san_in("Cf3", SanMode::Strict, Spanish).unwrap(),
        knight
    );
    assert_eq!(
        p.parse_san_in("Sf3", SanMode::Strict, German).unwrap(),
        knight
    );
    assert_eq!(
        p.parse_san_in("Pf3", SanMode::Strict, Dutch).unwrap(),
        knight
    );
    assert_eq!(
        p.parse_san_in("Nf3", SanMode::Strict, English).unwrap(),
        knight
    );
    // Errors quote the text as given.
    let err = p
        .parse_san_in("Cf4", SanMode::Tolerant, Spanish)
        .unwrap_err();
    assert!(
        matches!(&err, MoveError::Illegal { text, .. } if text == "Cf4"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "'Cf4' is illegal: no white knight can move to f4"
    );
}

/// Figurine symbols are read in every language (either colour's symbol); strict mode wants the
/// language's own spelling.
#[test]
fn figurine_input_is_accepted_in_every_language() {
    let p = pos(STARTING_FEN);
    let knight = p.parse_uci("g1f3").unwrap();
    for language in SanLanguage::ALL {
        assert_eq!(
            p.parse_san_in("♘f3", SanMode::Tolerant, language).unwrap(),
            knight,
            "{language:?}"
        );
        assert_eq!(
            p.parse_san_in("♞f3", SanMode::Tolerant, language).unwrap(),
            knight,
            "{language:?}"
        );
    }
    assert_eq!(
        p.parse_san_in("♘f3", SanMode::Strict, Figurine).unwrap(),
        knight
    );
    assert_eq!(
        p.parse_san_in("♘f3", SanMode::Strict, Spanish)
            .unwrap_err()
            .to_string(),
        "'♘f3' is not strict SAN: write 'Cf3'"
    );
    assert_eq!(
        p.parse_san_in("Nf3", SanMode::Strict, Figurine)
            .unwrap_err()
            .to_string(),
        "'Nf3' is not strict SAN: write '♘f3'"
    );
    // Figurine SAN tolerates English letters.
    assert_eq!(
        p.parse_san_in("Nf3", SanMode::Tolerant, Figurine).unwrap(),
        knight
    );
    // Promotion with a figurine.
    let q = pos(WHITE_TO_MOVE);
    assert_eq!(
        q.parse_san_in("e8=♕", SanMode::Strict, Figurine).unwrap(),
        q.parse_uci("e7e8q").unwrap()
    );
    assert_eq!(
        q.parse_san_in("e8=♕", SanMode::Tolerant, German).unwrap(),
        q.parse_uci("e7e8q").unwrap()
    );
}

/// UCI is the same in every language: moves parsed from language SAN give the same UCI, and UCI
/// text is not read as SAN.
#[test]
fn uci_is_language_independent() {
    let p = pos(WHITE_TO_MOVE);
    for language in SanLanguage::ALL {
        for uci in MOVES_WHITE {
            let m = p.parse_uci(uci).unwrap();
            let san = p.san_in(&m, language);
            let back = p.parse_san_in(&san, SanMode::Strict, language).unwrap();
            assert_eq!(p.uci(&back), uci, "{language:?} {san}");
        }
    }
}

/// Lowercase promotion letters (tolerated in English: `e8=q`, `e8q`) must not take their English
/// meaning in another language: Spanish `r` is rey (king), so `e8=r` is no rook promotion, while
/// Spanish `e8=d` (dama) reads as a queen promotion and English `q` is no Spanish letter.
#[test]
fn lowercase_promotion_letters_are_not_english_in_other_languages() {
    let p = pos(WHITE_TO_MOVE);
    for (language, text) in [(Spanish, "e8=r"), (Spanish, "e8r"), (German, "e8=b")] {
        let read = p
            .parse_san_in(text, SanMode::Tolerant, language)
            .map(|m| p.uci(&m));
        assert!(read.is_err(), "{language:?} {text}: {read:?}");
    }
    // Small promotion letters are read with the language's own letters: Spanish d = dama.
    assert_eq!(
        p.parse_san_in("e8=d", SanMode::Tolerant, Spanish)
            .map(|m| p.uci(&m)),
        Ok("e7e8q".to_string())
    );
    assert!(
        p.parse_san_in("e8=q", SanMode::Tolerant, Spanish)
            .unwrap_err()
            .to_string()
            .ends_with("'Q' is not a piece letter in Spanish (R D T A C)")
    );
}

/// Tolerant reading accepts a capital `X` as capture sign in English (`BXb5`); the other
/// languages should too (`AXb5`) instead of calling `X` an unknown piece letter.
#[test]
fn capital_x_capture_sign_in_every_language() {
    let p = pos(WHITE_TO_MOVE);
    let bishop = p.parse_uci("d3b5").unwrap();
    assert_eq!(
        p.parse_san_in("BXb5", SanMode::Tolerant, English).unwrap(),
        bishop
    );
    for (language, text) in [(Spanish, "AXb5"), (German, "LXb5"), (French, "FXb5")] {
        assert_eq!(
            p.parse_san_in(text, SanMode::Tolerant, language)
                .unwrap_or_else(|e| panic!("{language:?} {text}: {e}")),
            bishop
        );
    }
}

/// Language codes.
#[test]
fn language_codes() {
    for (code, language) in [
        ("en", English),
        ("es", Spanish),
        ("de", German),
        ("fr", French),
        ("it", Italian),
        ("nl", Dutch),
        ("figurine", Figurine),
        ("ES", Spanish),
        ("german", German),
    ] {
        assert_eq!(SanLanguage::from_code(code), Some(language), "{code}");
    }
    assert_eq!(SanLanguage::from_code("xx"), None);
    assert_eq!(SanLanguage::default(), English);
    assert_eq!(Spanish.name(), "Spanish");
    assert_eq!(Figurine.name(), "figurine");
}
