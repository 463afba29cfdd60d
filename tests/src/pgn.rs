//! A small, test-only PGN tokenizer: just enough to take the main line's SAN moves out of real
//! game files. It skips tag pairs (keeping them), `{comments}`, `;` comments, `%` escape lines,
//! `(variations)`, `$NAG`s, move numbers and trailing `!`/`?` annotations, and ends a game at its
//! result (`1-0`, `0-1`, `1/2-1/2`, `*`) or at the next tag section.
//!
//! ```
//! let games = arbiter_e2e::pgn::parse(
//!     "[Result \"0-1\"]\n\n1. f3 {weak} e5 2.g4?! (2. e4) $2 Qh4# 0-1\n",
//! );
//! assert_eq!(games.len(), 1);
//! assert_eq!(games[0].moves, ["f3", "e5", "g4", "Qh4#"]);
//! assert_eq!(games[0].tag("Result"), Some("0-1"));
//! assert_eq!(games[0].result.as_deref(), Some("0-1"));
//! ```

/// One game of a PGN file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The tag pairs, in order.
    pub tags: Vec<(String, String)>,
    /// The main line's moves, as written (SAN with its `+`/`#`, annotations removed).
    pub moves: Vec<String>,
    /// The game termination marker, if the movetext has one.
    pub result: Option<String>,
}

impl PgnGame {
    /// The value of tag `name`, if present.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result.is_none()
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Splits PGN text into games.
#[must_use]
pub fn parse(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    let mut depth = 0usize; // variation nesting
    let mut in_movetext = false;
    let mut chars = text.char_indices().peekable();
    let mut line_start = true;

    while let Some((at, c)) = chars.next() {
        let was_line_start = line_start;
        line_start = c == '\n';
        match c {
            c if c.is_whitespace() => {}
            '%' if was_line_start => skip_line(&mut chars),
            ';' => skip_line(&mut chars),
            '{' => {
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '$' => while chars.next_if(|(_, c)| c.is_ascii_digit()).is_some() {},
            '[' if depth == 0 => {
                if in_movetext {
                    games.push(std::mem::take(&mut game));
                    in_movetext = false;
                }
                let mut pair = String::new();
                let mut quoted = false;
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' if quoted => {
                            if let Some((_, escaped)) = chars.next() {
                                pair.push(escaped);
                            }
                        }
                        '"' => {
                            quoted = !quoted;
                            pair.push(c);
                        }
                        ']' if !quoted => break,
                        c => pair.push(c),
                    }
                }
                if let Some((name, value)) = pair.split_once('"') {
                    let value = value.strip_suffix('"').unwrap_or(value);
                    game.tags.push((name.trim().to_owned(), value.to_owned()));
                }
            }
            _ => {
                let mut end = at + c.len_utf8();
                while let Some(&(next_at, next)) = chars.peek() {
                    if next.is_whitespace() || "{}();[$".contains(next) {
                        break;
                    }
                    end = next_at + next.len_utf8();
                    chars.next();
                }
                if depth > 0 {
                    continue;
                }
                in_movetext = true;
                let token = &text[at..end];
                if RESULTS.contains(&token) {
                    game.result = Some(token.to_owned());
                    games.push(std::mem::take(&mut game));
                    in_movetext = false;
                    continue;
                }
                // Move numbers: "12.", "12...", and "12.e4" written without a space.
                let token = token.trim_start_matches(|c: char| c.is_ascii_digit());
                let token = if token.len() < text[at..end].len() {
                    token.trim_start_matches('.')
                } else {
                    token
                };
                let token = token.trim_end_matches(['!', '?']);
                if !token.is_empty() {
                    game.moves.push(token.to_owned());
                }
            }
        }
    }
    if !game.is_empty() {
        games.push(game);
    }
    games
}

fn skip_line(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    while chars.next_if(|(_, c)| *c != '\n').is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_everything_but_the_main_line() {
        let text = "[Event \"a \\\"quoted\\\" ]name\"]\n[Result \"1/2-1/2\"]\n\n\
                    % escape line 1. h4\n1. e4 { [%clk 0:05:00] } 1... e5 ; rest 2. h4\n\
                    2. Nf3!? (2. f4 (2. d4) exf4) $1 2... Nc6 3.Bb5 a6?? 1/2-1/2\n\n\
                    [Event \"second\"]\n\n*\n\n[Event \"third\"]\n1. d4 d5";
        let games = parse(text);
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].tag("Event"), Some("a \"quoted\" ]name"));
        assert_eq!(games[0].moves, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(games[0].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(games[1].tag("Event"), Some("second"));
        assert!(games[1].moves.is_empty());
        assert_eq!(games[1].result.as_deref(), Some("*"));
        assert_eq!(games[2].moves, ["d4", "d5"]);
        assert_eq!(games[2].result, None);
    }

    #[test]
    fn keeps_check_and_promotion_suffixes() {
        let games = parse("1. e8=Q+ Kxe8 2. O-O-O# 1-0");
        assert_eq!(games[0].moves, ["e8=Q+", "Kxe8", "O-O-O#"]);
    }
}
