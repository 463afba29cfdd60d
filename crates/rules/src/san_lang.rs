//! SAN with the piece letters of other languages, and figurine SAN (FIDE Laws Appendix C.4:
//! "each piece is indicated by an abbreviation; in the English language it is the first letter,
//! a capital letter, of its name").
//!
//! Reading rule, the same in every language: piece letters are capitals, files are small
//! letters. So Spanish `A` is always a bishop (alfil) and `a` always the a-file; `Axb5` is a
//! bishop capture and `axb5` a pawn capture. A capital letter that is not a piece letter of the
//! chosen language (other than `O` of castling) is an error naming the language's letters.
//! Figurine symbols (♔♕♖♗♘ and ♚♛♜♝♞) are read in every language.

use crate::notation::{MoveError, SanMode};
use crate::position::{Move, Position};
use crate::types::{Color, Role};

/// The language of SAN piece letters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SanLanguage {
    /// K Q R B N (king, queen, rook, bishop, knight).
    #[default]
    English,
    /// R D T A C (rey, dama, torre, alfil, caballo).
    Spanish,
    /// K D T L S (König, Dame, Turm, Läufer, Springer).
    German,
    /// R D T F C (roi, dame, tour, fou, cavalier).
    French,
    /// R D T A C (re, donna, torre, alfiere, cavallo).
    Italian,
    /// K D T L P (koning, dame, toren, loper, paard).
    Dutch,
    /// Figurine SAN with Unicode chess symbols in the mover's colour (♔♕♖♗♘ / ♚♛♜♝♞).
    Figurine,
}

impl SanLanguage {
    /// All languages.
    pub const ALL: [SanLanguage; 7] = [
        SanLanguage::English,
        SanLanguage::Spanish,
        SanLanguage::German,
        SanLanguage::French,
        SanLanguage::Italian,
        SanLanguage::Dutch,
        SanLanguage::Figurine,
    ];

    /// The language for an ISO 639-1 code (`en`, `es`, `de`, `fr`, `it`, `nl`) or `figurine`.
    #[must_use]
    pub fn from_code(code: &str) -> Option<SanLanguage> {
        Some(match code.to_ascii_lowercase().as_str() {
            "en" | "english" => SanLanguage::English,
            "es" | "spanish" => SanLanguage::Spanish,
            "de" | "german" => SanLanguage::German,
            "fr" | "french" => SanLanguage::French,
            "it" | "italian" => SanLanguage::Italian,
            "nl" | "dutch" => SanLanguage::Dutch,
            "figurine" => SanLanguage::Figurine,
            _ => return None,
        })
    }

    /// The language's name in English, e.g. "Spanish".
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SanLanguage::English => "English",
            SanLanguage::Spanish => "Spanish",
            SanLanguage::German => "German",
            SanLanguage::French => "French",
            SanLanguage::Italian => "Italian",
            SanLanguage::Dutch => "Dutch",
            SanLanguage::Figurine => "figurine",
        }
    }

    /// Letters for king, queen, rook, bishop, knight.
    const fn letters(self) -> [char; 5] {
        match self {
            SanLanguage::English | SanLanguage::Figurine => ['K', 'Q', 'R', 'B', 'N'],
            SanLanguage::Spanish | SanLanguage::Italian => ['R', 'D', 'T', 'A', 'C'],
            SanLanguage::German => ['K', 'D', 'T', 'L', 'S'],
            SanLanguage::French => ['R', 'D', 'T', 'F', 'C'],
            SanLanguage::Dutch => ['K', 'D', 'T', 'L', 'P'],
        }
    }

    /// The symbol of a piece role in this language (a capital letter or, for figurine SAN, the
    /// Unicode symbol of the mover's colour). Pawns have no symbol in SAN; `None` for them.
    #[must_use]
    pub const fn symbol(self, role: Role, color: Color) -> Option<char> {
        let i = match role {
            Role::King => 0,
            Role::Queen => 1,
            Role::Rook => 2,
            Role::Bishop => 3,
            Role::Knight => 4,
            Role::Pawn => return None,
        };
        if let SanLanguage::Figurine = self {
            let white = ['♔', '♕', '♖', '♗', '♘'];
            let black = ['♚', '♛', '♜', '♝', '♞'];
            return Some(match color {
                Color::White => white[i],
                Color::Black => black[i],
            });
        }
        Some(self.letters()[i])
    }

    /// `text`, a move in SAN with this language's piece letters (or figurines), or UCI, written
    /// with English piece letters: squares, suffixes and other characters are kept, and UCI or
    /// English text is returned as it is (trimmed). It reads a move that cannot be parsed into a
    /// legal move (an illegal move recorded as an incident) the way the game's moves are read,
    /// e.g. German `Se5` as `Ne5`, `e8=D` as `e8=Q`. An English letter this language does not
    /// use is kept (German `Ne5` stays `Ne5`); one it uses means its own piece (French `Re2` is
    /// the king's move).
    #[must_use]
    pub fn to_english(self, text: &str) -> String {
        let text = text.trim();
        if self == SanLanguage::English || crate::notation::looks_like_uci(text) {
            return text.to_owned();
        }
        text.chars()
            .map(|c| {
                self.role_of(c)
                    .and_then(|role| SanLanguage::English.symbol(role, Color::White))
                    .unwrap_or(c)
            })
            .collect()
    }

    fn role_of(self, c: char) -> Option<Role> {
        const ROLES: [Role; 5] = [
            Role::King,
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
        ];
        if let Some(i) = "♔♕♖♗♘".chars().position(|f| f == c) {
            return Some(ROLES[i]);
        }
        if let Some(i) = "♚♛♜♝♞".chars().position(|f| f == c) {
            return Some(ROLES[i]);
        }
        self.letters()
            .iter()
            .position(|&l| l == c)
            .map(|i| ROLES[i])
    }
}

impl Position {
    /// The SAN of a legal move with the piece letters of `language` (see [`SanLanguage`]).
    /// English gives the same text as [`Position::san`].
    #[must_use]
    pub fn san_in(&self, m: &Move, language: SanLanguage) -> String {
        self.san_in_after(m, &self.play(m), language)
    }

    /// [`Position::san_in`] of a legal move `m` whose resulting position `after` the caller has
    /// already played (`self.play(m)`; see [`Position::san_after`]).
    #[must_use]
    pub fn san_in_after(&self, m: &Move, after: &Position, language: SanLanguage) -> String {
        let english = self.san_after(m, after);
        if language == SanLanguage::English {
            return english;
        }
        let color = self.side_to_move();
        english
            .chars()
            .map(
                |c| match Role::from_char(c).filter(|_| c.is_ascii_uppercase()) {
                    Some(role) => language.symbol(role, color).unwrap_or(c),
                    None => c,
                },
            )
            .collect()
    }

    /// Reads SAN written with the piece letters of `language` (figurine symbols are accepted in
    /// every language). Errors quote the text as given; in strict mode the canonical form is given
    /// in the same language.
    ///
    /// # Errors
    /// As [`Position::parse_san`]; also [`MoveError::Syntax`] for a capital letter that is not a
    /// piece letter of the language.
    pub fn parse_san_in(
        &self,
        text: &str,
        mode: SanMode,
        language: SanLanguage,
    ) -> Result<Move, MoveError> {
        if language == SanLanguage::English && text.is_ascii() {
            return self.parse_san(text, mode);
        }
        let mut english = String::with_capacity(text.len());
        // A promotion letter written in small letters ("e8=d", "e8d") is read as the language's
        // capital: the last letter of the move, right after the rank digit or '=' / '/'.
        let core = text.trim_end_matches(['!', '?', '+', '#', ' ']);
        let chars: Vec<char> = core.chars().collect();
        let promotion_at = match chars.as_slice() {
            [.., before, last]
                if last.is_ascii_lowercase()
                    && (matches!(before, '=' | '/') || before.is_ascii_digit()) =>
            {
                Some(chars.len() - 1)
            }
            _ => None,
        };
        for (i, c) in text.chars().enumerate() {
            let c = if Some(i) == promotion_at && language != SanLanguage::English {
                c.to_ascii_uppercase()
            } else {
                c
            };
            if c.is_ascii_uppercase() && !matches!(c, 'O' | 'X')
                || !c.is_ascii() && language.role_of(c).is_some()
            {
                let Some(role) = language.role_of(c) else {
                    let letters: String =
                        language.letters().iter().map(|l| format!("{l} ")).collect();
                    return Err(MoveError::Syntax {
                        text: text.chars().take(32).collect(),
                        why: format!(
                            "'{c}' is not a piece letter in {} ({})",
                            language.name(),
                            letters.trim_end()
                        ),
                    });
                };
                english.push(role.upper_char());
            } else {
                english.push(c);
            }
        }
        let strict_english = mode == SanMode::Strict;
        let m = self
            .parse_san(&english, SanMode::Tolerant)
            .map_err(|e| requote(e, text, self.side_to_move(), language))?;
        if strict_english {
            let canonical = self.san_in(&m, language);
            if canonical != text {
                return Err(MoveError::NotStrict {
                    text: text.chars().take(32).collect(),
                    canonical,
                });
            }
        }
        Ok(m)
    }
}

/// Quotes the move as the caller wrote it, and lists ambiguous candidates in the caller's
/// language (the English SAN list holds capitals only as piece letters, apart from `O` of
/// castling).
fn requote(error: MoveError, text: &str, color: Color, language: SanLanguage) -> MoveError {
    let text: String = text.chars().take(32).collect();
    match error {
        MoveError::Syntax { why, .. } => MoveError::Syntax { text, why },
        MoveError::Illegal { reason, .. } => MoveError::Illegal { text, reason },
        MoveError::Ambiguous { candidates, .. } => MoveError::Ambiguous {
            text,
            candidates: candidates
                .chars()
                .map(
                    |c| match Role::from_char(c).filter(|_| c.is_ascii_uppercase()) {
                        Some(role) => language.symbol(role, color).unwrap_or(c),
                        None => c,
                    },
                )
                .collect(),
        },
        MoveError::NotStrict { canonical, .. } => MoveError::NotStrict { text, canonical },
    }
}
