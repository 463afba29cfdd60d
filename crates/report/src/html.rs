//! The HTML report of a round: one self-contained page (inline CSS and SVG, no script, nothing
//! fetched) that a chief arbiter opens, prints and signs.
//!
//! The page has, in this order:
//!
//! 1. a head: the file's name and SHA-256, the date of the run, the program's version, the
//!    edition of the Laws, the analysis level and the SAN language ([`ReportHead`]);
//! 2. the summary: games by result and termination, the counts the terminal summary gives, how
//!    many games need a look, by reason ([`Counts`]), and the games numbered as an earlier game
//!    ([`NumberRegister`]);
//! 3. **the games that need a look** ([`Look`], [`look`]): an error, a `Result` tag the rules
//!    contradict, a warning, an analysis left undetermined, or a draw by a rule an arbiter must
//!    check (a flag fall, resignation or second illegal move turned into a draw, a dead
//!    position, fivefold repetition, the 75-move rule), in the order of attention
//!    ([`Attention`]: errors, then disagreements, then the others; input order within each).
//!    Each is a section headed by the game's number ([`GameNumber`]: `Game 5.20`) with the
//!    players, the event, the declared and the adjudicated result with the FIDE article and
//!    the explanation, and a board of the position the game ended in; where a mating line
//!    proves that the winner could still mate, one line saying so, the line in SAN and the
//!    board after the mate folded under it (`<details>`: a proof, not analysis). An error gives
//!    its line:column, the refused move with its number and the board it was written for,
//!    the lines the reader skipped after it (a read error in the middle of a game) and the
//!    tags. The first `max_boards` such games in that order are drawn; the rest are rows of a
//!    table, in the same order ([`AttentionList`]);
//! 4. a signature block;
//! 5. every other game as one row of a compact table ([`game_row`]).
//!
//! Printed ([`print_style`]), on A4 or Letter: the head, the summary, the games that need a
//! look and the signature come first and together; no section is split across pages; every
//! page's footer names the file, the start of its SHA-256 and "page X of N".
//!
//! The games arrive in input order while the head needs the whole run, so the caller keeps the
//! sections and rows aside ([`AttentionList`], a file or buffer of rows) and [`write_report`]
//! puts the page together.
//!
//! **Size.** A row is at most [`MAX_ROW_BYTES`] bytes; a section with boards at most
//! [`MAX_SECTION_BYTES`]; so a page is at most about 1.2 KB of head per termination, plus those
//! bounds times the games. Tag values are cut to [`MAX_TAG_CHARS`] characters, a section lists
//! at most [`MAX_LISTED_WARNINGS`] warnings and a mating line at most [`MAX_LINE_PLIES`] plies.
//!
//! The page is well-formed XML as well as HTML (every element closed, every attribute quoted),
//! so that tests read it with an XML parser.

use std::fmt::Write as _;
use std::io::{self, Read, Seek, Write};

use arbiter_pgn::verdict::PgnVerdict;
use arbiter_pgn::{GameNumber, NumberRegister, PgnError, RawGame, ReplayOptions};
use arbiter_rules::{Color, GameResult, Move, Position, RuleSet, SanLanguage, Termination};

use crate::board::{Diagram, board_svg_fragment, shared_defs_svg};

/// Longest tag value shown, in characters (longer ones are cut and end with "…").
pub const MAX_TAG_CHARS: usize = 120;

/// Most warnings a section lists (the rest are counted).
pub const MAX_LISTED_WARNINGS: usize = 32;

/// Most plies of a mating line a section writes (the rest are counted).
pub const MAX_LINE_PLIES: usize = 300;

/// The most bytes of one table row ([`game_row`], [`Look::row`]): nine cells of at most
/// [`MAX_TAG_CHARS`] characters (4 bytes each in UTF-8, escaped) and the markup.
pub const MAX_ROW_BYTES: usize = 10 * MAX_TAG_CHARS * 4 * 2 + 1024;

/// The most bytes of one section of a game that needs a look ([`Look::section`]): two boards
/// of about 3 KB, the tags, [`MAX_LISTED_WARNINGS`] warnings, a mating line of
/// [`MAX_LINE_PLIES`] plies, and the explanation and disagreement sentences.
pub const MAX_SECTION_BYTES: usize = 64 * 1024;

/// Why a game needs a look, as a set (a game may have several reasons).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reasons {
    /// The game could not be read or replayed (bad PGN, an illegal move).
    pub error: bool,
    /// The `Result` tag contradicts the rules.
    pub disagreement: bool,
    /// The verdict has warnings.
    pub warning: bool,
    /// A loss by flag fall, resignation or second illegal move stands unproven: whether the
    /// opponent could still checkmate was not decided, at the `material` and `fast` levels
    /// (which never prove it) or within the `full` budget (`undetermined_analysis`).
    pub undetermined: bool,
    /// The game has no result: the rules do not end it and no result is declared (`*`), or
    /// the `Result` tag gives none (`*`) for a game the rules ended.
    pub unfinished: bool,
    /// A draw by a rule an arbiter must check: a flag fall, resignation or second illegal move
    /// turned into a draw (6.9, 5.1.2, 7.5.5), a dead position (5.2.2), fivefold repetition
    /// (9.6.1), the 75-move rule (9.6.2).
    pub draw_to_check: Option<Termination>,
}

impl Reasons {
    /// The group the game comes in ([`Attention`]): an error before a disagreement before
    /// anything else.
    #[must_use]
    pub fn attention(&self) -> Attention {
        if self.error {
            Attention::Error
        } else if self.disagreement {
            Attention::Disagreement
        } else {
            Attention::Other
        }
    }

    /// Whether there is any reason.
    #[must_use]
    pub fn any(&self) -> bool {
        self.error
            || self.disagreement
            || self.warning
            || self.undetermined
            || self.unfinished
            || self.draw_to_check.is_some()
    }

    /// The reasons as (class name, words), in the order the report lists them.
    #[must_use]
    pub fn labels(&self) -> Vec<(&'static str, String)> {
        let mut labels = Vec::new();
        if self.error {
            labels.push(("error", "error".to_owned()));
        }
        if self.disagreement {
            labels.push((
                "disagreement",
                "Result tag contradicts the rules".to_owned(),
            ));
        }
        if self.warning {
            labels.push(("warning", "warnings".to_owned()));
        }
        if self.undetermined {
            labels.push(("undetermined", "loss not proven".to_owned()));
        }
        if self.unfinished {
            labels.push(("unfinished", "no result".to_owned()));
        }
        if let Some(termination) = self.draw_to_check {
            labels.push((
                "draw-to-check",
                format!(
                    "draw by {} (FIDE Laws {})",
                    termination.description(),
                    termination.article()
                ),
            ));
        }
        labels
    }
}

/// The order in which the games that need a look come: errors first (the game could not be
/// adjudicated at all), then the games whose `Result` tag the rules contradict (the result
/// on the crosstable is wrong), then the others (warnings, draws to check, losses not proven,
/// games without a result). Within a group, games keep their input order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Attention {
    /// The game could not be read or replayed.
    Error,
    /// The `Result` tag contradicts the rules.
    Disagreement,
    /// Any other reason.
    Other,
}

impl Attention {
    /// The groups in the order of attention.
    pub const ALL: [Attention; 3] = [Attention::Error, Attention::Disagreement, Attention::Other];

    /// The group's place in [`Attention::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The group's name in the page (`id`, `class`): `errors`, `disagreements`, `others`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Attention::Error => "errors",
            Attention::Disagreement => "disagreements",
            Attention::Other => "others",
        }
    }

    /// The group's heading in the page.
    #[must_use]
    pub const fn heading(self) -> &'static str {
        match self {
            Attention::Error => "Errors: games that could not be adjudicated",
            Attention::Disagreement => "Result tags the rules contradict",
            Attention::Other => "Other games to check",
        }
    }
}

/// The reasons of a game's verdict (or error) to be looked at.
#[must_use]
pub fn reasons(verdict: &Result<PgnVerdict, PgnError>) -> Reasons {
    let Ok(verdict) = verdict else {
        return Reasons {
            error: true,
            ..Reasons::default()
        };
    };
    let undetermined = verdict.verdict.undetermined;
    let unfinished = verdict.verdict.outcome.is_none()
        || verdict
            .declared
            .as_ref()
            .is_none_or(|declared| declared.text.trim() == "*");
    let draw_to_check = verdict.verdict.outcome.and_then(|outcome| {
        let to_check = match outcome.termination {
            Termination::FlagFall | Termination::Resignation | Termination::SecondIllegalMove => {
                outcome.result == GameResult::Draw
            }
            Termination::DeadPosition
            | Termination::InsufficientMaterial
            | Termination::FivefoldRepetition
            | Termination::SeventyFiveMoveRule => true,
            _ => false,
        };
        to_check.then_some(outcome.termination)
    });
    Reasons {
        error: false,
        disagreement: verdict.disagreement.is_some(),
        warning: !verdict.warnings.is_empty(),
        undetermined,
        unfinished,
        draw_to_check,
    }
}

/// A game that needs a look, written both ways: a section with boards and a table row; the
/// report shows the section for the first `max_boards` such games ([`AttentionList`]) and the row for
/// the others.
#[derive(Clone, Debug)]
pub struct Look {
    /// Why.
    pub reasons: Reasons,
    /// The section (`<section class="look">`), at most [`MAX_SECTION_BYTES`].
    pub section: String,
    /// The row (`<tr class="look">`), at most [`MAX_ROW_BYTES`].
    pub row: String,
}

/// The game at 0-based `index` in the input, numbered `number` ([`GameNumber`]: `5.20`, or its
/// place counted from 1), as a [`Look`] when it needs one, with its mating line in SAN in
/// `language`; `None` when it needs none. The section's `id` is `game-INDEX` (unique in the page,
/// where two games may share a number); `data-game` holds the number and `data-index` the
/// index.
#[must_use]
pub fn look(
    index: usize,
    number: &GameNumber,
    raw: &RawGame,
    verdict: &Result<PgnVerdict, PgnError>,
    language: SanLanguage,
) -> Option<Look> {
    look_in(None, index, number, raw, verdict, language)
}

/// [`look`] for a game read from the zip member `member` (`None`: an input that is not a zip):
/// the section's heading and the row name the member, where the game's line is.
#[must_use]
pub fn look_in(
    member: Option<&str>,
    index: usize,
    number: &GameNumber,
    raw: &RawGame,
    verdict: &Result<PgnVerdict, PgnError>,
    language: SanLanguage,
) -> Option<Look> {
    let reasons = reasons(verdict);
    if !reasons.any() {
        return None;
    }
    let shown = escape(number.as_str());
    let labels = reasons.labels();
    let classes: Vec<&str> = labels.iter().map(|(class, _)| *class).collect();
    let mut section = String::with_capacity(8 * 1024);
    let _ = write!(
        section,
        "<section class=\"look\" id=\"game-{index}\" data-game=\"{shown}\" data-index=\"{index}\" data-reasons=\"{}\">",
        classes.join(" ")
    );
    let _ = write!(
        section,
        "<h3><a href=\"#game-{index}\">Game {shown}</a>: {} <span class=\"line\">({}line {})</span></h3>",
        players(raw),
        member_prefix(member),
        // A read error before any line of the game: where the error is (a fresh user's
        // finding on issue 28: a cut file's last record read "line 0").
        match verdict {
            Err(error) if raw.line == 0 => error.line,
            _ => raw.line,
        }
    );
    section.push_str("<p class=\"reasons\">");
    for (class, words) in &labels {
        let _ = write!(
            section,
            "<span class=\"reason {class}\">{}</span> ",
            escape(words)
        );
    }
    section.push_str("</p>");
    match verdict {
        Err(error) => error_body(&mut section, raw, error),
        Ok(verdict) => verdict_body(&mut section, raw, verdict, language),
    }
    section.push_str("</section>\n");
    let row = look_row(index, &shown, member, raw, verdict, &labels);
    Some(Look {
        reasons,
        section,
        row,
    })
}

/// `round2.pgn, ` (escaped, cut) for a game of a zip member, else nothing.
fn member_prefix(member: Option<&str>) -> String {
    member.map_or_else(String::new, |member| {
        format!("{}, ", escape(&cut(member, MAX_TAG_CHARS)))
    })
}

/// The number cell of a row: the game's number, and the zip member it was read from.
fn number_cell(number: &str, member: Option<&str>) -> String {
    match member {
        None => format!("<td>{number}</td>"),
        Some(member) => format!(
            "<td>{number}<br/><span class=\"member\">{}</span></td>",
            escape(&cut(member, MAX_TAG_CHARS))
        ),
    }
}

/// "White – Black", escaped, from the tags (`?` for a missing name).
fn players(raw: &RawGame) -> String {
    let name = |tag| escape(&cut(raw.tag(tag).unwrap_or("?"), MAX_TAG_CHARS));
    format!("{} – {}", name("White"), name("Black"))
}

/// The section of a game that could not be adjudicated: where and why; for a refused move,
/// the move with its number and the board it was written for (the position before it, its
/// last move marked); the lines the reader skipped after a read error; and the game's tags.
fn error_body(section: &mut String, raw: &RawGame, error: &PgnError) {
    section.push_str("<div class=\"look-body\">");
    let refused = arbiter_pgn::move_refused(raw, error, &ReplayOptions::default());
    if let Some(refused) = &refused {
        section.push_str("<div class=\"boards\">");
        let caption = format!("Before {} (ply {})", refused.numbered(), refused.ply);
        figure(
            section,
            "before-error",
            &refused.position,
            refused.last_move.as_ref().map(marked),
            &caption,
        );
        section.push_str("</div>");
    }
    let _ = write!(
        section,
        "<div class=\"error-facts\"><p class=\"error-place\">line {}:{}</p>",
        error.line, error.column,
    );
    if let Some(refused) = &refused {
        let _ = write!(
            section,
            "<p class=\"error-move\" data-ply=\"{}\">Refused: <strong>{}</strong>, ply {}</p>",
            refused.ply,
            escape(&cut(&refused.numbered(), MAX_TAG_CHARS)),
            refused.ply
        );
    }
    let _ = write!(
        section,
        "<p class=\"error-reason\">{}</p>",
        escape(&cut(&error.kind.to_string(), 4 * MAX_TAG_CHARS))
    );
    if let Some(skipped) = error.skipped {
        let _ = write!(
            section,
            "<p class=\"error-skipped\">{skipped}; reading resumed at the next game</p>"
        );
    }
    tags_table(section, raw);
    section.push_str("</div></div>");
}

/// Every tag pair of the game, as a small table.
fn tags_table(section: &mut String, raw: &RawGame) {
    if raw.tags.is_empty() {
        section.push_str("<p class=\"tags\">no tags</p>");
        return;
    }
    section.push_str("<table class=\"tags\"><tbody>");
    for (name, value) in raw.tags.iter().take(MAX_LISTED_WARNINGS) {
        let _ = write!(
            section,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(&cut(name, MAX_TAG_CHARS)),
            escape(&cut(value, MAX_TAG_CHARS))
        );
    }
    if raw.tags.len() > MAX_LISTED_WARNINGS {
        let _ = write!(
            section,
            "<tr><td colspan=\"2\">and {} more</td></tr>",
            raw.tags.len() - MAX_LISTED_WARNINGS
        );
    }
    section.push_str("</tbody></table>");
}

/// The squares a move is marked by on a board: its origin and, for castling, the king's
/// destination (not the rook's square of Chess960's king-takes-rook).
fn marked(m: &Move) -> (arbiter_rules::Square, arbiter_rules::Square) {
    let to = if m.is_castle() {
        m.king_destination()
    } else {
        m.to
    };
    (m.from, to)
}

/// The section of an adjudicated game: facts, boards, mating line, warnings.
fn verdict_body(section: &mut String, raw: &RawGame, verdict: &PgnVerdict, language: SanLanguage) {
    let game = &verdict.game;
    let outcome = verdict.verdict.outcome;
    section.push_str("<div class=\"look-body\"><div class=\"boards\">");
    // The position the game ended in: moves a score sheet lists after an automatic ending
    // (fivefold repetition, 75 moves, a dead position) were played, but the game had ended.
    let ply = outcome.map_or(game.ply(), |o| o.ply).min(game.ply());
    let replayed;
    let end = if ply == game.ply() {
        game.position()
    } else {
        replayed = game.moves()[..ply]
            .iter()
            .fold(game.start().clone(), |position, m| position.play(m));
        &replayed
    };
    let last = game.moves()[..ply].last();
    let caption = match last {
        Some(_) => format!("The position after ply {ply}"),
        None => "The starting position".to_owned(),
    };
    figure(section, "final", end, last.map(marked), &caption);
    let end = game.position();
    // The mating line that proves the winner could still mate, and the position it mates.
    let evidence = &verdict.verdict.evidence;
    let mut line_text = String::new();
    let mut mated = None;
    if !evidence.is_empty() {
        let mut position = end.clone();
        let shown = evidence.len().min(MAX_LINE_PLIES);
        for (i, m) in evidence.iter().take(shown).enumerate() {
            let after = position.play(m);
            let white = position.side_to_move() == Color::White;
            if white {
                let _ = write!(line_text, "{}. ", position.fullmove_number());
            } else if i == 0 {
                let _ = write!(line_text, "{}... ", position.fullmove_number());
            }
            line_text.push_str(&position.san_in_after(m, &after, language));
            line_text.push(' ');
            position = after;
        }
        if evidence.len() > shown {
            let _ = write!(line_text, "(and {} more plies)", evidence.len() - shown);
        } else {
            mated = Some(position);
        }
    }
    section.push_str("</div><dl class=\"facts\">");
    for tag in ["Event", "Site", "Date", "Round"] {
        if let Some(value) = raw.tag(tag) {
            let _ = write!(
                section,
                "<dt>{tag}</dt><dd>{}</dd>",
                escape(&cut(value, MAX_TAG_CHARS))
            );
        }
    }
    let declared = verdict.declared.as_ref().map_or_else(
        || "none".to_owned(),
        |declared| format!("{} ({})", declared.text.trim(), declared.source),
    );
    let _ = write!(
        section,
        "<dt>Declared</dt><dd class=\"declared\">{}</dd>",
        escape(&cut(&declared, MAX_TAG_CHARS))
    );
    match outcome {
        Some(outcome) => {
            let _ = write!(
                section,
                "<dt>Adjudicated</dt><dd class=\"adjudicated\" data-result=\"{result}\" data-termination=\"{name}\" data-article=\"{article}\"><strong>{result}</strong>: {description}, FIDE Laws {article}, at ply {ply}</dd>",
                result = outcome.result.as_pgn(),
                name = outcome.termination.name(),
                description = escape(outcome.termination.description()),
                article = outcome.article(),
                ply = outcome.ply,
            );
        }
        None => {
            let _ = write!(
                section,
                "<dt>Adjudicated</dt><dd class=\"adjudicated\" data-result=\"*\" data-termination=\"ongoing\" data-article=\"\"><strong>*</strong>: the game goes on after ply {}</dd>",
                game.ply()
            );
        }
    }
    if let Some(event) = &verdict.verdict.event_result {
        let _ = write!(
            section,
            "<dt>Event result</dt><dd class=\"event-result\" data-result=\"{result}\"><strong>{result}</strong>: {explanation}</dd>",
            result = event.result.as_pgn(),
            explanation = escape(&cut(&event.explanation, 2 * MAX_TAG_CHARS)),
        );
    }
    if !verdict.verdict.explanation.is_empty() {
        let _ = write!(
            section,
            "<dt>Explanation</dt><dd class=\"explanation\">{}</dd>",
            escape(&cut(&verdict.verdict.explanation, 4 * MAX_TAG_CHARS))
        );
    }
    if let Some(disagreement) = &verdict.disagreement {
        let _ = write!(
            section,
            "<dt>Disagreement</dt><dd class=\"disagreement\">{}</dd>",
            escape(&cut(&disagreement.to_string(), 4 * MAX_TAG_CHARS))
        );
    }
    if !line_text.is_empty() {
        // A proof, not analysis: folded, so that the page (and the printed page, where it is
        // one line) says what it proves and no reader takes the line for how the game should
        // have gone.
        let mater = match outcome.map(|o| o.result) {
            Some(GameResult::BlackWins) => "Black",
            _ => "White",
        };
        let _ = write!(
            section,
            "<dt>Can still mate</dt><dd class=\"evidence\" data-plies=\"{plies}\"><details><summary class=\"can-mate\">{mater} could still checkmate: a sequence of {plies} legal moves exists</summary><p class=\"mating-line\">{line}</p><p class=\"proof-note\">The moves of both sides, one after the other (plies), that end in checkmate: they prove that {mater} could still checkmate by a series of legal moves. Not a forced mate, and not analysis of the game.</p>",
            plies = evidence.len(),
            line = escape(line_text.trim_end())
        );
        if let Some(mated) = &mated {
            figure(
                section,
                "after-mate",
                mated,
                evidence.last().map(marked),
                "After the sequence: checkmate",
            );
        }
        section.push_str("</details></dd>");
    }
    section.push_str("</dl>");
    if !verdict.warnings.is_empty() {
        section.push_str("<ul class=\"warnings\">");
        for warning in verdict.warnings.iter().take(MAX_LISTED_WARNINGS) {
            // A move's warning names its line:column itself (`line 74:35: ply 7 ...`): the
            // line is not said twice (a fresh user's finding on issue 28).
            let text = warning.to_string();
            let text = if text.starts_with("line ") {
                text
            } else {
                format!("line {}: {text}", warning.line)
            };
            let _ = write!(
                section,
                "<li data-code=\"{}\" data-ply=\"{}\">{}</li>",
                warning.code(),
                warning.ply,
                escape(&cut(&text, 2 * MAX_TAG_CHARS))
            );
        }
        if verdict.warnings.len() > MAX_LISTED_WARNINGS {
            let _ = write!(
                section,
                "<li>and {} more</li>",
                verdict.warnings.len() - MAX_LISTED_WARNINGS
            );
        }
        section.push_str("</ul>");
    }
    section.push_str("</div>");
}

/// A board with its caption.
fn figure(
    section: &mut String,
    class: &str,
    position: &Position,
    last_move: Option<(arbiter_rules::Square, arbiter_rules::Square)>,
    caption: &str,
) {
    let _ = write!(section, "<figure class=\"{class}\">");
    section.push_str(&board_svg_fragment(&Diagram {
        position,
        last_move,
        flipped: false,
    }));
    let _ = write!(
        section,
        "<figcaption>{}</figcaption></figure>",
        escape(caption)
    );
}

/// The row of a game that needs a look, for the games beyond the boards shown.
fn look_row(
    index: usize,
    number: &str,
    member: Option<&str>,
    raw: &RawGame,
    verdict: &Result<PgnVerdict, PgnError>,
    labels: &[(&'static str, String)],
) -> String {
    let words: Vec<&str> = labels.iter().map(|(_, words)| words.as_str()).collect();
    let (result, termination) = match verdict {
        Ok(verdict) => result_cells(verdict),
        Err(error) => (
            "error".to_owned(),
            format!(
                "line {}:{}: {}{}",
                error.line,
                error.column,
                cut(&error.kind.to_string(), MAX_TAG_CHARS),
                error
                    .skipped
                    .map_or_else(String::new, |skipped| format!("; {skipped}"))
            ),
        ),
    };
    let mut row = String::with_capacity(512);
    let _ = writeln!(
        row,
        "<tr class=\"look\" data-game=\"{number}\" data-index=\"{index}\">{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        number_cell(number, member),
        players(raw),
        escape(&cut(raw.tag("Round").unwrap_or(""), MAX_TAG_CHARS)),
        escape(&words.join("; ")),
        escape(&cut(raw.tag("Result").unwrap_or(""), MAX_TAG_CHARS)),
        escape(&result),
        escape(&termination)
    );
    row
}

/// The result and termination cells of a verdict: `1-0` and `checkmate (5.1.1), ply 41`.
fn result_cells(verdict: &PgnVerdict) -> (String, String) {
    match verdict.verdict.outcome {
        Some(outcome) => (
            with_event_result(outcome.result.as_pgn(), verdict),
            format!(
                "{} ({}), ply {}",
                outcome.termination.description(),
                outcome.article(),
                outcome.ply
            ),
        ),
        None => (
            "*".to_owned(),
            format!("ongoing, ply {}", verdict.game.ply()),
        ),
    }
}

/// The row of the game at 0-based `index` numbered `number`, which needs no look: number,
/// players, round, declared result, adjudicated result, termination, article and ply (at most
/// [`MAX_ROW_BYTES`]).
#[must_use]
pub fn game_row(index: usize, number: &GameNumber, raw: &RawGame, verdict: &PgnVerdict) -> String {
    game_row_in(None, index, number, raw, verdict)
}

/// [`game_row`] for a game read from the zip member `member` (`None`: an input that is not a
/// zip), named in the number's cell.
#[must_use]
pub fn game_row_in(
    member: Option<&str>,
    index: usize,
    number: &GameNumber,
    raw: &RawGame,
    verdict: &PgnVerdict,
) -> String {
    let number = escape(number.as_str());
    let tag = |name| escape(&cut(raw.tag(name).unwrap_or(""), MAX_TAG_CHARS));
    let declared = verdict.declared.as_ref().map_or(String::new(), |d| {
        escape(&cut(d.text.trim(), MAX_TAG_CHARS))
    });
    let (result, termination, article, ply) = match verdict.verdict.outcome {
        Some(o) => (o.result.as_pgn(), o.termination.name(), o.article(), o.ply),
        None => ("*", "ongoing", "", verdict.game.ply()),
    };
    let result = with_event_result(result, verdict);
    format!(
        "<tr data-game=\"{number}\" data-index=\"{index}\">{}<td>{}</td><td>{}</td><td>{}</td><td>{declared}</td><td>{result}</td><td>{}</td><td>{article}</td><td>{ply}</td></tr>\n",
        number_cell(&number, member),
        tag("White"),
        tag("Black"),
        tag("Round"),
        escape(&termination.replace('_', " ")),
    )
}

/// What the head of the report says of the run.
#[derive(Clone, Debug)]
pub struct ReportHead {
    /// The input's name as given on the command line (`standard input` for `-`).
    pub file_name: String,
    /// The SHA-256 of the input's bytes as given (compressed ones when it is compressed), in
    /// lowercase hex.
    pub sha256: String,
    /// The compression the input was read through (`zstd`, `gzip`, `bzip2`, `zip`), `None` for
    /// PGN text: the head then says that the SHA-256 is the compressed file's.
    pub compression: Option<&'static str>,
    /// Why the input could not be read whole, if it could not, and what the report therefore
    /// leaves out (the games after a read error, or a zip member that is not text), as
    /// sentences: the page says it above all, and every page's footer says `INCOMPLETE`.
    pub unread: Option<String>,
    /// The date of the run, as given (`--report-date`) or the time of the run.
    pub date: String,
    /// The program and its version, e.g. `arbiter 0.1.0`.
    pub version: String,
    /// The edition of the Laws applied ([`arbiter_rules::LAWS_EDITION`]).
    pub laws: &'static str,
    /// The analysis level (`material`, `fast`, `full`).
    pub analysis: &'static str,
    /// The rules the games were played under (`--rules`): time class, supervision and, for
    /// Armageddon, the regulation giving Black draw odds.
    pub rules: RuleSet,
    /// The SAN language of the mating lines.
    pub language: SanLanguage,
    /// What the run counted.
    pub counts: Counts,
    /// The games numbered as an earlier game of the input (their tags repeat a `Round` and
    /// `Board`), as the run found them ([`NumberRegister`]).
    pub numbers: NumberRegister,
}

/// What a run counted, for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games read, errors included.
    pub games: usize,
    /// Adjudicated games by (result, termination): `("1-0", "checkmate")`, `("*", "ongoing")`.
    pub by_outcome: std::collections::BTreeMap<(String, String), usize>,
    /// With draw odds (Armageddon): games by the event's result (`"1-0"`, `"0-1"`; `"*"` for
    /// games that go on), beside the Laws' results of `by_outcome`. Empty without draw odds.
    pub by_event_result: std::collections::BTreeMap<String, usize>,
    /// Games whose `Result` tag the rules contradict.
    pub disagreements: usize,
    /// Games that could not be adjudicated.
    pub errors: usize,
    /// Adjudicated games with warnings.
    pub warned: usize,
    /// Losses that stand unproven at this analysis level.
    pub unproven: usize,
    /// Games that need a look.
    pub looks: usize,
    /// Of those, how many had each reason: error, disagreement, warning, loss not proven, draw
    /// to check, no result.
    pub look_reasons: [usize; 6],
}

impl Counts {
    /// Counts one game that needs a look.
    pub fn add_look(&mut self, reasons: &Reasons) {
        self.looks += 1;
        for (i, on) in [
            reasons.error,
            reasons.disagreement,
            reasons.warning,
            reasons.undetermined,
            reasons.draw_to_check.is_some(),
            reasons.unfinished,
        ]
        .into_iter()
        .enumerate()
        {
            self.look_reasons[i] += usize::from(on);
        }
    }
}

/// A section kept by an [`AttentionList`]: where it and its row are in the sections' store.
#[derive(Clone, Copy, Debug)]
struct Kept {
    attention: Attention,
    /// Where the section starts; its row follows it.
    offset: u64,
    section: u64,
    row: u64,
}

/// The games that need a look, kept aside as a run meets them (in input order) and given back
/// to [`write_report`] in the order of attention ([`Attention`]: errors, then disagreements,
/// then the others; input order within each), the first `max_boards` of that order as sections
/// with boards and the others as rows of a table.
///
/// Which games get boards is known only at the end (an error at the end of the file comes
/// first), so the list keeps the section of the first `max_boards` games of each group
/// (followed by its row) in `sections`, and only the row of the others, in `rows`, each row
/// after a byte naming its group. Both stores are written in order and read back at the end:
/// files, or [`io::Cursor`]s for small runs (a `tempfile::SpooledTempFile` is both). Memory
/// besides the stores: 32 bytes for each kept section, at most 3 × `max_boards`.
#[derive(Debug)]
pub struct AttentionList<S> {
    sections: S,
    rows: S,
    kept: Vec<Kept>,
    end: u64,
    per_group: [usize; 3],
    max_boards: usize,
    counts: Counts,
}

impl<S: Read + Write + Seek> AttentionList<S> {
    /// An empty list that draws at most `max_boards` games, keeping its parts in `sections` and
    /// `rows` (both empty).
    pub fn new(sections: S, rows: S, max_boards: usize) -> AttentionList<S> {
        AttentionList {
            sections,
            rows,
            kept: Vec::new(),
            end: 0,
            per_group: [0; 3],
            max_boards,
            counts: Counts::default(),
        }
    }

    /// Adds the next game that needs a look, in input order.
    ///
    /// # Errors
    /// The stores' write errors.
    pub fn add(&mut self, look: &Look) -> io::Result<()> {
        self.counts.add_look(&look.reasons);
        let attention = look.reasons.attention();
        let group = &mut self.per_group[attention.index()];
        *group += 1;
        if *group <= self.max_boards {
            self.sections.write_all(look.section.as_bytes())?;
            self.sections.write_all(look.row.as_bytes())?;
            let (section, row) = (look.section.len() as u64, look.row.len() as u64);
            self.kept.push(Kept {
                attention,
                offset: self.end,
                section,
                row,
            });
            self.end += section + row;
        } else {
            self.rows.write_all(&[b'0' + attention.index() as u8])?;
            self.rows.write_all(look.row.as_bytes())?;
        }
        Ok(())
    }

    /// The games added, by reason ([`Counts::looks`] and [`Counts::look_reasons`]; the other
    /// counts are 0).
    #[must_use]
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// How many games of each group ([`Attention::ALL`]) were added.
    #[must_use]
    pub fn per_group(&self) -> [usize; 3] {
        self.per_group
    }

    /// Games drawn with boards: the first `max_boards` in the order of attention.
    #[must_use]
    pub fn drawn(&self) -> usize {
        self.counts.looks.min(self.max_boards)
    }

    /// The kept sections drawn, in the order of attention: each kept entry with whether it is
    /// drawn (else its row goes to the table).
    fn order(&self) -> Vec<(Kept, bool)> {
        let mut order = Vec::with_capacity(self.kept.len());
        let mut drawn = 0;
        for attention in Attention::ALL {
            for kept in self.kept.iter().filter(|k| k.attention == attention) {
                let draw = drawn < self.max_boards;
                drawn += usize::from(draw);
                order.push((*kept, draw));
            }
        }
        order
    }

    /// Copies `len` bytes at `offset` of the sections' store to `out`.
    fn copy_kept<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        offset: u64,
        len: u64,
    ) -> io::Result<()> {
        self.sections.seek(io::SeekFrom::Start(offset))?;
        let copied = io::copy(&mut (&mut self.sections).take(len), out)?;
        if copied == len {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the report's store of sections ended early",
            ))
        }
    }

    /// Writes the sections drawn, each group after its heading.
    fn write_sections<W: Write + ?Sized>(&mut self, out: &mut W) -> io::Result<()> {
        let order = self.order();
        for attention in Attention::ALL {
            let drawn: Vec<Kept> = order
                .iter()
                .filter(|(kept, draw)| *draw && kept.attention == attention)
                .map(|(kept, _)| *kept)
                .collect();
            if drawn.is_empty() {
                continue;
            }
            let count = self.per_group[attention.index()];
            writeln!(
                out,
                "<h3 class=\"group\" id=\"attention-{name}\" data-count=\"{count}\">{} ({count})</h3>",
                attention.heading(),
                name = attention.name(),
            )?;
            for kept in drawn {
                self.copy_kept(out, kept.offset, kept.section)?;
            }
        }
        Ok(())
    }

    /// Writes the rows of the games not drawn into `tables`, in the order of attention.
    fn write_rows<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        tables: &mut Tables<'_>,
    ) -> io::Result<()> {
        let order = self.order();
        let mut line = Vec::new();
        for attention in Attention::ALL {
            for (kept, _) in order
                .iter()
                .filter(|(kept, draw)| !*draw && kept.attention == attention)
            {
                line.clear();
                self.copy_kept(&mut line, kept.offset + kept.section, kept.row)?;
                tables.row(out, &line)?;
            }
            self.rows.seek(io::SeekFrom::Start(0))?;
            let mut rows = io::BufReader::new(&mut self.rows);
            let mark = b'0' + attention.index() as u8;
            loop {
                line.clear();
                if io::BufRead::read_until(&mut rows, b'\n', &mut line)? == 0 {
                    break;
                }
                if line.first() == Some(&mark) {
                    tables.row(out, &line[1..])?;
                }
            }
        }
        Ok(())
    }
}

/// The style sheet: screen and print. The printed page ([`print_style`]) adds the footer.
const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1a1a1a;line-height:1.4}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:2px solid #333;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.05rem;margin:0 0 .3rem}h3.group{margin:1.2rem 0 .2rem;color:#333}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}dl.run dt{font-weight:600}dl.run dd{margin:0;font-family:ui-monospace,'DejaVu Sans Mono',monospace;overflow-wrap:anywhere}
.summary-tables{display:flex;flex-wrap:wrap;gap:0 2rem;align-items:flex-start}
table{border-collapse:collapse;margin:.5rem 0}div.rows{content-visibility:auto;contain-intrinsic-size:auto 14000px}div.rows table{table-layout:fixed;width:100%;margin:0}col.n{width:4.5rem}col.round{width:4rem}col.result{width:5.5rem}col.article{width:6rem}div.rows td,div.rows th{overflow-wrap:anywhere}
section.look{content-visibility:auto;contain-intrinsic-size:auto 480px}th,td{border:1px solid #bbb;padding:.15rem .45rem;text-align:left;vertical-align:top}th{background:#eee}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.attention-count{font-size:1.1rem;font-weight:600}
section.look{border:1px solid #999;border-left:6px solid #c60;border-radius:4px;padding:.7rem 1rem;margin:1rem 0;break-inside:avoid;page-break-inside:avoid}
section.look[data-reasons~=error]{border-left-color:#b00}
.reason{display:inline-block;border-radius:3px;padding:0 .4rem;margin-right:.3rem;font-size:.85rem;background:#fde3c4}
.reason.error,.reason.disagreement{background:#f8c9c9}.reason.draw-to-check{background:#d9e6fb}
.look-body{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}.boards{display:flex;flex-wrap:wrap;gap:.5rem;flex:0 1 auto}
figure{margin:0}figcaption{font-size:.85rem;color:#444;text-align:center}
dl.facts{flex:1 1 18rem;display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:0;align-content:start}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.error-facts{flex:1 1 18rem}.error-facts p{margin:0 0 .3rem}
summary.can-mate{cursor:pointer}.mating-line{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.9rem;margin:.3rem 0}.proof-note{font-size:.85rem;color:#444;margin:.2rem 0 .5rem}
ul.warnings{flex-basis:100%;margin:.3rem 0 0;padding-left:1.2rem;font-size:.9rem}
.incomplete{border:3px solid #b00;padding:.5rem 1rem;font-size:1.1rem;color:#b00}
.error-place{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-weight:600;color:#b00}
.signature{margin:2rem 0;break-inside:avoid;page-break-inside:avoid}.signature p{margin:0 0 2.5rem}.signature .fields{display:grid;grid-template-columns:repeat(3,1fr);gap:2rem}.signature .fields div{border-top:1px solid #000;padding-top:.3rem}
@media print{
body{margin:0;max-width:none;font-size:9pt;line-height:1.25}
h1{font-size:13pt;margin:0 0 .1rem}h2{font-size:11pt;margin:.6rem 0 .25rem;break-after:avoid;page-break-after:avoid}h3{font-size:9.5pt;margin:0 0 .1rem}h3.group{margin:.4rem 0 0;break-after:avoid;page-break-after:avoid}
dl.run{margin:.2rem 0;gap:0 .8rem}table{margin:.2rem 0}th,td{padding:0 .3rem}
.summary-tables{flex-wrap:nowrap;gap:0 1rem}table.counts,table.outcomes{font-size:8pt}table.outcomes th,table.outcomes td{white-space:nowrap}
section.look,div.rows{content-visibility:visible}
section.look{padding:.2rem .5rem;margin:.3rem 0;border-left-width:4px}
.look-body{gap:.2rem .6rem}.boards{flex:0 0 auto;flex-wrap:nowrap;gap:.3rem}
svg.board{width:36mm;height:auto}figcaption{font-size:7pt}
.reason{font-size:7.5pt;padding:0 .25rem}p.reasons{margin:0 0 .15rem}.attention-count{font-size:9.5pt;margin:.2rem 0}.legend{font-size:7.5pt;margin:.2rem 0}
dl.facts{gap:0 .6rem;font-size:8.5pt}ul.warnings{margin:0;font-size:8pt}
.error-facts{font-size:8.5pt}table.tags{font-size:8pt}
details>:not(summary){display:none}summary.can-mate{list-style:none}summary.can-mate::-webkit-details-marker{display:none}
.signature{margin:.8rem 0 .5rem}.signature p{margin:0 0 1.6rem}
div.rows table{font-size:7.5pt}col.n{width:3.2rem}col.round{width:3rem}col.result{width:3.8rem}col.article{width:3.6rem}
a{color:inherit;text-decoration:none}tr{break-inside:avoid;page-break-inside:avoid}
}
";

/// Characters of the file name a printed page's footer shows, at most (the end of a longer
/// path: the file's own name).
pub const FOOTER_NAME_CHARS: usize = 60;

/// Hex digits of the SHA-256 a printed page's footer shows (the head has all 64).
pub const FOOTER_SHA256_DIGITS: usize = 16;

/// The rules of the printed page: every page's footer names the file (its last
/// [`FOOTER_NAME_CHARS`] characters), the first [`FOOTER_SHA256_DIGITS`] digits of its SHA-256
/// and "page X of N" (CSS paged media margin boxes, `counter(page)` and `counter(pages)`),
/// with "INCOMPLETE" before the name when the input could not be read to its end. The paper
/// size is the printer's (A4 or Letter): the page sets none.
#[must_use]
pub fn print_style(head: &ReportHead) -> String {
    let chars = head.file_name.chars().count();
    let name: String = if chars > FOOTER_NAME_CHARS {
        let tail: String = head
            .file_name
            .chars()
            .skip(chars - (FOOTER_NAME_CHARS - 1))
            .collect();
        format!("…{tail}")
    } else {
        head.file_name.clone()
    };
    let sha: String = head.sha256.chars().take(FOOTER_SHA256_DIGITS).collect();
    let incomplete = if head.unread.is_some() {
        "INCOMPLETE · "
    } else {
        ""
    };
    format!(
        "@page{{margin:12mm 12mm 14mm;@top-right{{content:\"\"}}@bottom-left{{content:{};font:7.5pt 'DejaVu Sans Mono',ui-monospace,monospace;color:#333}}@bottom-right{{content:{} counter(page) {} counter(pages);font:7.5pt 'DejaVu Sans',sans-serif;color:#333}}}}",
        css_string(&format!("{incomplete}{name} · SHA-256 {sha}")),
        css_string("page "),
        css_string(" of "),
    )
}

/// `text` as a CSS string (`"..."`) that is also safe inside an HTML `<style>` element: every
/// character but ASCII letters, digits, space and `.,:;_-/()+=#` is written as a hexadecimal
/// escape and the space that ends it (`\b7 `: CSS reads the space as part of the escape), so
/// that no quote, backslash, line break or `</style>` can end the string or the element.
fn css_string(text: &str) -> String {
    let mut css = String::with_capacity(text.len() + 2);
    css.push('"');
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || " .,:;_-/()+=#".contains(c) {
            css.push(c);
        } else {
            let _ = write!(css, "\\{:x} ", u32::from(c));
        }
    }
    css.push('"');
    css
}

/// Writes the page: head and summary from `head`; then the games that need a look from
/// `looks`, in the order of attention (errors, disagreements, the others), the first
/// `max_boards` as sections with boards under a heading per group and the others as rows of
/// a table; then the signature block; and last, the other games, one row each, read from
/// `rows` (one row per line). Printed, the head, the summary, the games that need a look and
/// the signature come first and together, and every page's footer names the file
/// ([`print_style`]).
///
/// # Errors
/// The errors of reading the parts or of writing `out`.
pub fn write_report<W: Write + ?Sized, S: Read + Write + Seek>(
    out: &mut W,
    head: &ReportHead,
    looks: &mut AttentionList<S>,
    rows: &mut dyn Read,
) -> io::Result<()> {
    let counts = &head.counts;
    let title = format!("Adjudication of {}", cut(&head.file_name, 200));
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><meta name=\"generator\" content=\"{version}\"/><title>{title}</title><style>{STYLE}{print}</style></head>\n<body>\n",
        version = escape(&head.version),
        title = escape(&title),
        print = print_style(head),
    )?;
    out.write_all(shared_defs_svg().as_bytes())?;
    writeln!(
        out,
        "<header><h1>{}</h1><dl class=\"run\"><dt>File</dt><dd id=\"file\">{}</dd><dt>SHA-256</dt><dd id=\"sha256\">{}</dd>{}<dt>Date</dt><dd id=\"date\">{}</dd><dt>Program</dt><dd id=\"version\">{}</dd><dt>Laws</dt><dd id=\"laws\">{}</dd><dt>Rules</dt><dd id=\"rules\">{}</dd><dt>Analysis</dt><dd id=\"analysis\">{}</dd><dt>SAN language</dt><dd id=\"language\">{}</dd></dl></header>",
        escape(&title),
        escape(&cut(&head.file_name, 400)),
        escape(&head.sha256),
        head.compression.map_or_else(String::new, |compression| format!(
            "<dt>Read as</dt><dd id=\"compression\">{}-compressed: the SHA-256 is that of the compressed file, as given</dd>",
            escape(compression)
        )),
        escape(&cut(&head.date, 100)),
        escape(&head.version),
        escape(head.laws),
        escape(&rules_words(&head.rules)),
        head.analysis,
        head.language.name(),
    )?;
    if let Some(unread) = &head.unread {
        writeln!(
            out,
            "<p class=\"incomplete\" id=\"incomplete\"><strong>Incomplete:</strong> {}.</p>",
            escape(unread)
        )?;
    }
    write_summary(out, head)?;
    let shown = looks.drawn();
    write!(
        out,
        "<h2 id=\"attention\">Games that need a look first</h2>\n<p class=\"attention-count\" data-looks=\"{}\" data-boards=\"{shown}\">{}</p>\n",
        counts.looks,
        match counts.looks {
            0 => "None: every game was adjudicated, agrees with its Result tag, has no warning and ends by no rule an arbiter must check.".to_owned(),
            n if n == shown => format!("{n} {}: errors first, then Result tags the rules contradict, then the others.", plural(n, "game", "games")),
            n => format!("{n} games, errors first, then Result tags the rules contradict, then the others; the first {shown} with boards, the other {} as rows of the table after them (raise --report-boards to draw more).", n - shown),
        }
    )?;
    if shown > 0 {
        out.write_all("<p class=\"legend\">Games are numbered as the round numbers them: the Round tag when it holds the board (5.20), else Round.Board, else their place in the file counted from 1. Boards are seen from White's side, at the end of the game or, for an error, before the move refused; the disc beside a board is the colour of the side to move; tinted squares are the last move's; a red disc marks a king in check.</p>\n".as_bytes())?;
    }
    looks.write_sections(out)?;
    if counts.looks > shown {
        let mut tables = Tables {
            class: "looks",
            columns: "<col class=\"n\"/><col/><col class=\"round\"/><col/><col class=\"result\"/><col class=\"result\"/><col/>",
            header: "<th>Game</th><th>Players</th><th>Round</th><th>Why</th><th>Declared</th><th>Result</th><th>Termination</th>",
            in_table: 0,
        };
        looks.write_rows(out, &mut tables)?;
        tables.end(out)?;
    }
    let others = counts.games - counts.looks;
    writeln!(
        out,
        "<div class=\"signature\" id=\"signature\"><p>Checked: the {games} {of} of this file, {looks} of which {need} a look (listed above){rest}.</p><div class=\"fields\"><div>Chief arbiter (name)</div><div>Signature</div><div>Date</div></div></div>",
        games = counts.games,
        of = plural(counts.games, "game", "games"),
        looks = counts.looks,
        need = if counts.looks == 1 { "needs" } else { "need" },
        rest = if others > 0 {
            "; the other games are listed below"
        } else {
            ""
        },
    )?;
    write!(
        out,
        "<h2 id=\"games\">The other games</h2>\n<p data-rows=\"{others}\">{others} {}.</p>\n",
        plural(others, "game", "games")
    )?;
    if others > 0 {
        write_rows(
            out,
            "games",
            "<col class=\"n\"/><col/><col/><col class=\"round\"/><col class=\"result\"/><col class=\"result\"/><col/><col class=\"article\"/><col class=\"n\"/>",
            "<th>Game</th><th>White</th><th>Black</th><th>Round</th><th>Declared</th><th>Result</th><th>Termination</th><th>FIDE Laws</th><th>Ply</th>",
            rows,
        )?;
    }
    out.write_all(b"</body></html>\n")?;
    Ok(())
}

/// Rows a table of the report holds: longer lists are cut into tables of this many rows.
pub const ROWS_PER_TABLE: usize = 500;

/// Copies `rows` (one row per line) into tables of class `class` of [`ROWS_PER_TABLE`] rows
/// each, every one with the same fixed column widths (`columns`) and header (`header`). A browser
/// then lays out only the tables in view (`content-visibility: auto`): the 47,047 rows of a
/// large file took 29 s to lay out as one table, 5 s so.
fn write_rows<W: Write + ?Sized>(
    out: &mut W,
    class: &str,
    columns: &str,
    header: &str,
    rows: &mut dyn Read,
) -> io::Result<()> {
    let mut tables = Tables {
        class,
        columns,
        header,
        in_table: 0,
    };
    let mut rows = io::BufReader::new(rows);
    let mut line = Vec::new();
    loop {
        line.clear();
        if io::BufRead::read_until(&mut rows, b'\n', &mut line)? == 0 {
            break;
        }
        tables.row(out, &line)?;
    }
    tables.end(out)
}

/// Rows written as tables of [`ROWS_PER_TABLE`] rows, with the same columns and header.
struct Tables<'a> {
    class: &'a str,
    columns: &'a str,
    header: &'a str,
    /// Rows in the open table (0: none is open).
    in_table: usize,
}

impl Tables<'_> {
    /// Writes one row (a line), opening a table first when none is open.
    fn row<W: Write + ?Sized>(&mut self, out: &mut W, line: &[u8]) -> io::Result<()> {
        if self.in_table == 0 {
            writeln!(
                out,
                "<div class=\"rows\"><table class=\"{}\"><colgroup>{}</colgroup><thead><tr>{}</tr></thead><tbody>",
                self.class, self.columns, self.header
            )?;
        }
        out.write_all(line)?;
        self.in_table += 1;
        if self.in_table == ROWS_PER_TABLE {
            self.close(out)?;
        }
        Ok(())
    }

    fn close<W: Write + ?Sized>(&mut self, out: &mut W) -> io::Result<()> {
        self.in_table = 0;
        out.write_all(b"</tbody></table></div>\n")
    }

    /// Closes the open table, if any.
    fn end<W: Write + ?Sized>(mut self, out: &mut W) -> io::Result<()> {
        if self.in_table > 0 {
            self.close(out)?;
        }
        Ok(())
    }
}

/// Games with a repeated number the summary names, at most (it counts them all).
pub const MAX_SHOWN_REPEATS: usize = 20;

/// The summary: the counts beside the games by result and termination, then what the counts
/// need said (losses not proven, numbers that repeat).
fn write_summary<W: Write + ?Sized>(out: &mut W, head: &ReportHead) -> io::Result<()> {
    let c = &head.counts;
    out.write_all(
        b"<h2 id=\"summary\">Summary</h2>\n<div class=\"summary-tables\"><table class=\"counts\"><tbody>",
    )?;
    let [_, _, _, _, draws, unfinished] = c.look_reasons;
    for (id, words, n) in [
        ("games", "Games", c.games),
        ("errors", "Games that could not be adjudicated", c.errors),
        (
            "disagreements",
            "Result tags the rules contradict",
            c.disagreements,
        ),
        ("warned", "Games with warnings", c.warned),
        (
            "undetermined",
            "Losses not proven (opponent's mating chances undecided)",
            c.unproven,
        ),
        ("unfinished", "Games without a result", unfinished),
        ("draws-to-check", "Draws by a rule to check", draws),
        ("looks", "Games that need a look", c.looks),
    ] {
        write!(
            out,
            "<tr><th>{words}</th><td class=\"n\" id=\"count-{id}\">{n}</td></tr>"
        )?;
    }
    out.write_all(b"</tbody></table>\n")?;
    write_outcomes(out, c)?;
    write_event_results(out, head)?;
    out.write_all(b"</div>\n")?;
    if c.unproven > 0 {
        let losses = if c.unproven == 1 {
            "loss stands"
        } else {
            "losses stand"
        };
        if head.analysis == "full" {
            writeln!(
                out,
                "<p class=\"unproven\">{} {losses} by flag fall, resignation or second illegal move without deciding whether the opponent could still checkmate (FIDE Laws 6.9, 5.1.2, 7.5.5): the analysis ran out of its budget. Each is listed below (\u{201c}loss not proven\u{201d}).</p>",
                c.unproven
            )?;
        } else {
            writeln!(
                out,
                "<p class=\"unproven\">At analysis <code>{}</code> no loss by flag fall, resignation or second illegal move is proven: {} {losses} without deciding whether the opponent could still checkmate (FIDE Laws 6.9, 5.1.2, 7.5.5). Run with <code>--analysis full</code> to decide.</p>",
                head.analysis, c.unproven
            )?;
        }
    }
    let numbers = &head.numbers;
    if numbers.repeated() > 0 {
        let listed: Vec<String> = numbers
            .listed()
            .iter()
            .take(MAX_SHOWN_REPEATS)
            .map(|repeat| {
                format!(
                    "{} (line {}, as line {})",
                    escape(&repeat.number),
                    repeat.line,
                    repeat.first_line
                )
            })
            .collect();
        let more = numbers.repeated() - listed.len();
        writeln!(
            out,
            "<p class=\"repeated\" id=\"repeated\" data-count=\"{n}\">{n} {games} the number of an earlier game of the same event (their Event, Site, Date, Round and Board tags repeat: a game given twice, two sections under one event name, or a knockout whose Round numbers each match's games alike): {}{}. Such games are told apart by their line.</p>",
            listed.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            n = numbers.repeated(),
            games = if numbers.repeated() == 1 {
                "game has"
            } else {
                "games have"
            },
        )?;
    }
    if numbers.unchecked() > 0 {
        writeln!(
            out,
            "<p class=\"repeated\">{} games after the first {} distinct numbers were not checked for a repeated number.</p>",
            numbers.unchecked(),
            arbiter_pgn::number::MAX_CHECKED_NUMBERS,
        )?;
    }
    Ok(())
}

/// The table of games by termination and result (none when no game was adjudicated).
fn write_outcomes<W: Write + ?Sized>(out: &mut W, c: &Counts) -> io::Result<()> {
    if c.by_outcome.is_empty() {
        return Ok(());
    }
    out.write_all(b"<table class=\"outcomes\"><thead><tr><th>Termination</th><th>1-0</th><th>0-1</th><th>1/2-1/2</th><th>*</th><th>All</th></tr></thead><tbody>")?;
    let mut terminations: Vec<&str> = c.by_outcome.keys().map(|(_, t)| t.as_str()).collect();
    terminations.sort_unstable();
    terminations.dedup();
    for termination in terminations {
        let count = |result: &str| {
            c.by_outcome
                .get(&(result.to_owned(), termination.to_owned()))
                .copied()
                .unwrap_or(0)
        };
        let cells: Vec<usize> = ["1-0", "0-1", "1/2-1/2", "*"]
            .into_iter()
            .map(count)
            .collect();
        let total: usize = cells.iter().sum();
        write!(
            out,
            "<tr data-termination=\"{}\"><th>{}</th>",
            escape(termination),
            escape(termination)
        )?;
        for n in cells {
            write!(out, "<td class=\"n\">{n}</td>")?;
        }
        write!(out, "<td class=\"n\">{total}</td></tr>")?;
    }
    out.write_all(b"</tbody></table>\n")?;
    Ok(())
}

/// With draw odds: the games by the event's result, under the regulation's name.
fn write_event_results<W: Write + ?Sized>(out: &mut W, head: &ReportHead) -> io::Result<()> {
    let Some(odds) = head.rules.draw_odds() else {
        return Ok(());
    };
    write!(
        out,
        "<table class=\"event-results\"><caption>Results for the event ({})</caption><thead><tr><th>1-0</th><th>0-1</th><th>*</th></tr></thead><tbody><tr>",
        escape(&odds.regulation)
    )?;
    for result in ["1-0", "0-1", "*"] {
        write!(
            out,
            "<td class=\"n\" data-event-result=\"{result}\">{}</td>",
            head.counts
                .by_event_result
                .get(result)
                .copied()
                .unwrap_or(0)
        )?;
    }
    out.write_all(b"</tr></tbody></table>\n")?;
    Ok(())
}

/// The rule set in words, for the head: `standard play`, `blitz, unsupervised (B.3)`,
/// `blitz, Armageddon: Black has draw odds (World Cup 2025 regulations 3.7.5)`.
#[must_use]
pub fn rules_words(rules: &RuleSet) -> String {
    let mut words = match rules.time_class() {
        arbiter_rules::TimeClass::Standard => "standard play".to_owned(),
        arbiter_rules::TimeClass::Rapid => "rapid (FIDE Laws Appendix A)".to_owned(),
        arbiter_rules::TimeClass::Blitz => "blitz (FIDE Laws Appendix B)".to_owned(),
    };
    if rules.supervision() == arbiter_rules::Supervision::Inadequate {
        words.push_str(match rules.time_class() {
            arbiter_rules::TimeClass::Blitz => ", without adequate supervision (B.3)",
            _ => ", without adequate supervision (A.5)",
        });
    }
    if let Some(odds) = rules.draw_odds() {
        words.push_str(&format!(
            ", Armageddon: Black has draw odds, a draw counts as a win for Black ({})",
            odds.regulation
        ));
    }
    words
}

/// The event's result after the Laws' in a table cell: `1/2-1/2; event 0-1`, or the Laws'
/// alone without draw odds.
fn with_event_result(laws: &str, verdict: &PgnVerdict) -> String {
    match &verdict.verdict.event_result {
        Some(event) => format!("{laws}; event {}", event.result.as_pgn()),
        None => laws.to_owned(),
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// The first `n` characters of `text`, with "…" when cut.
fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Text for HTML (and XML) content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            // A row is one line (the report is put together line by line).
            '\n' | '\r' | '\t' => escaped.push(' '),
            // Control characters are not allowed in XML 1.0 and mean nothing in a tag value.
            c if c.is_control() => escaped.push('\u{fffd}'),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_pgn::verdict::{AdjudicationSettings, adjudicate};

    /// The first game of `pgn`, read and adjudicated at the `full` level.
    fn game(pgn: &str) -> (RawGame, Result<PgnVerdict, PgnError>) {
        let mut reader = arbiter_pgn::Reader::new(pgn.as_bytes());
        let mut raw = RawGame::default();
        match reader.read_game(&mut raw) {
            Ok(true) => {
                let verdict = adjudicate(&raw, None, &AdjudicationSettings::default());
                (raw, verdict)
            }
            Ok(false) => panic!("no game in {pgn}"),
            Err(error) => (raw, Err(error)),
        }
    }

    fn with_tags(tags: &str, movetext: &str) -> String {
        format!("[White \"W\"]\n[Black \"B\"]\n{tags}\n{movetext}\n")
    }

    /// A report head for the file `name`, nothing counted.
    fn head(name: &str) -> ReportHead {
        ReportHead {
            file_name: name.to_owned(),
            sha256: "ab".repeat(32),
            compression: None,
            unread: None,
            date: "2026-12-01".to_owned(),
            version: "arbiter test".to_owned(),
            laws: arbiter_rules::LAWS_EDITION,
            analysis: "full",
            rules: RuleSet::default(),
            language: SanLanguage::English,
            counts: Counts::default(),
            numbers: NumberRegister::default(),
        }
    }

    /// An attention list kept in memory.
    fn attention_list(max_boards: usize) -> AttentionList<io::Cursor<Vec<u8>>> {
        AttentionList::new(io::Cursor::default(), io::Cursor::default(), max_boards)
    }

    /// The page of `looks` (and no other game), parsed back: the sections' and the look rows'
    /// `data-game`, and the group headings' ids.
    fn attention_of(
        looks: &mut AttentionList<io::Cursor<Vec<u8>>>,
    ) -> (Vec<String>, Vec<String>, Vec<String>) {
        let head = ReportHead {
            counts: Counts {
                games: looks.counts().looks,
                ..looks.counts().clone()
            },
            ..head("r.pgn")
        };
        let mut page = Vec::new();
        write_report(&mut page, &head, looks, &mut &b""[..]).unwrap();
        let page = String::from_utf8(page).unwrap();
        let document = roxmltree::Document::parse_with_options(
            &page,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..roxmltree::ParsingOptions::default()
            },
        )
        .expect("well-formed page");
        let of = |tag: &str, attribute: &str| -> Vec<String> {
            document
                .descendants()
                .filter(|n| n.has_tag_name(tag))
                .filter_map(|n| n.attribute(attribute))
                .map(str::to_owned)
                .collect()
        };
        let groups = document
            .descendants()
            .filter(|n| n.attribute("class") == Some("group"))
            .filter_map(|n| n.attribute("id"))
            .map(str::to_owned)
            .collect();
        (of("section", "data-game"), of("tr", "data-game"), groups)
    }

    /// Issue 14: the games an arbiter must look at first, each for its reason, and the games
    /// that need no look.
    #[test]
    fn every_reason_to_look_is_found() {
        let no = Reasons::default();
        let cases: Vec<(&str, String, Reasons)> = vec![
            (
                "a checkmate with its result (5.1.1)",
                with_tags("[Result \"0-1\"]", "1. f3 e5 2. g4 Qh4# 0-1"),
                no,
            ),
            (
                "an agreed draw after a move each (5.2.3)",
                with_tags("[Result \"1/2-1/2\"]", "1. e4 e5 1/2-1/2"),
                no,
            ),
            (
                "a resignation with a mating line (5.1.2)",
                with_tags("[Result \"1-0\"]", "1. e4 e5 2. Nf3 Nc6 1-0"),
                no,
            ),
            (
                "a stalemate the Result tag calls a win (5.2.1)",
                with_tags(
                    "[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]",
                    "1. Qf7 1-0",
                ),
                Reasons {
                    disagreement: true,
                    ..no
                },
            ),
            (
                "a flag fall against a lone king, a draw (6.9)",
                with_tags(
                    "[Result \"0-1\"]\n[Termination \"time forfeit\"]\n[SetUp \"1\"]\n[FEN \"8/8/4k3/8/8/2Q5/8/4K3 w - - 0 40\"]",
                    "40. Kd2 Kd5 0-1",
                ),
                Reasons {
                    disagreement: true,
                    draw_to_check: Some(Termination::FlagFall),
                    ..no
                },
            ),
            (
                "fivefold repetition (9.6.1)",
                with_tags(
                    "[Result \"1/2-1/2\"]",
                    "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 1/2-1/2",
                ),
                Reasons {
                    draw_to_check: Some(Termination::FivefoldRepetition),
                    ..no
                },
            ),
            (
                "insufficient material, a dead position (5.2.2)",
                with_tags(
                    "[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n[FEN \"8/8/4k3/8/3p4/2B5/8/4K3 w - - 0 40\"]",
                    "40. Bxd4 1/2-1/2",
                ),
                Reasons {
                    draw_to_check: Some(Termination::InsufficientMaterial),
                    ..no
                },
            ),
            (
                "a check suffix on a move that gives no check",
                with_tags("[Result \"1-0\"]", "1. e4+ e5 2. Nf3 Nc6 1-0"),
                Reasons {
                    warning: true,
                    ..no
                },
            ),
            (
                "Black's flag fell with K+B+N against K, 136 half-moves after the last capture: \
                 whether White can still mate within the 75-move rule is left undetermined (6.9)",
                with_tags(
                    "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/4k3/8/8/8/KBN5 w - - 136 100\"]",
                    "1-0",
                ),
                Reasons {
                    warning: true,
                    undetermined: true,
                    ..no
                },
            ),
            (
                "a game the rules do not end, declared unfinished",
                with_tags("[Result \"*\"]", "1. e4 e5 *"),
                Reasons {
                    unfinished: true,
                    ..no
                },
            ),
            (
                "a checkmate whose Result tag gives no result",
                with_tags("[Result \"*\"]", "1. f3 e5 2. g4 Qh4# *"),
                Reasons {
                    unfinished: true,
                    ..no
                },
            ),
            (
                "an illegal move",
                with_tags("[Result \"1-0\"]", "1. e4 e5 2. Ke3 1-0"),
                Reasons { error: true, ..no },
            ),
        ];
        for (what, pgn, expected) in cases {
            let (raw, verdict) = game(&pgn);
            assert_eq!(reasons(&verdict), expected, "{what}");
            assert_eq!(
                look(
                    7,
                    &GameNumber::counted(7),
                    &raw,
                    &verdict,
                    SanLanguage::English
                )
                .is_some(),
                expected.any(),
                "{what}"
            );
        }
    }

    /// The FEN a board diagram was drawn from (its `<title>`).
    fn board_fens(section: &str) -> Vec<String> {
        let document = roxmltree::Document::parse(section).expect("well-formed section");
        document
            .descendants()
            .filter(|node| node.has_tag_name("svg") && node.attribute("class") == Some("board"))
            .map(|svg| {
                svg.children()
                    .find(|child| child.has_tag_name("title"))
                    .and_then(|title| title.text())
                    .expect("a board has a title")
                    .to_owned()
            })
            .collect()
    }

    /// Issue 14: a section shows the position the game ended in and, where a mating line is
    /// the evidence, the line in SAN in the chosen language and the board after the mate.
    #[test]
    fn a_section_draws_the_end_and_the_mate_of_the_evidence_line_in_the_chosen_language() {
        // A resignation (5.1.2) with a wrong check suffix: a look, with a mating line.
        let (raw, verdict) = game(&with_tags("[Result \"1-0\"]", "1. e4+ e5 2. Nf3 Nc6 1-0"));
        let adjudicated = verdict.as_ref().expect("adjudicated");
        let evidence = &adjudicated.verdict.evidence;
        assert!(
            !evidence.is_empty(),
            "a resignation at full has a mating line"
        );
        let look = look(
            3,
            &GameNumber::counted(3),
            &raw,
            &verdict,
            SanLanguage::German,
        )
        .expect("a look");
        let fens = board_fens(&look.section);
        let end = adjudicated.game.position();
        let mut mated = end.clone();
        for m in evidence {
            mated = mated.play(m);
        }
        assert!(mated.is_checkmate(), "the line ends in mate");
        assert_eq!(fens, [end.to_fen(), mated.to_fen()]);
        // The line in German SAN: as many moves as plies, the mate marked, no English letters.
        let document = roxmltree::Document::parse(&look.section).unwrap();
        let line = document
            .descendants()
            .find(|node| node.attribute("class") == Some("mating-line"))
            .and_then(|node| node.text())
            .expect("the mating line");
        let moves: Vec<&str> = line
            .split(' ')
            .filter(|word| !word.ends_with('.'))
            .collect();
        assert_eq!(moves.len(), evidence.len(), "{line}");
        assert!(moves.last().unwrap().ends_with('#'), "{line}");
        let mut position = end.clone();
        for (m, text) in evidence.iter().zip(&moves) {
            assert_eq!(*text, position.san_in(m, SanLanguage::German));
            position = position.play(m);
        }
        assert!(
            moves.iter().all(|m| !m.contains('N') && !m.contains('Q')),
            "{line}"
        );
        assert!(look.section.contains("data-code=\"wrong_check_suffix\""));
    }

    /// Review of issue 14: moves a score sheet lists after a fivefold repetition were played,
    /// but the board shows the position the game ended in, with the move that ended it.
    #[test]
    fn the_board_shows_where_the_game_ended_not_the_moves_after() {
        let (raw, verdict) = game(&with_tags(
            "[Result \"1/2-1/2\"]",
            "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4 e5 1/2-1/2",
        ));
        let adjudicated = verdict.as_ref().expect("adjudicated");
        let outcome = adjudicated.verdict.outcome.expect("ended");
        assert_eq!(outcome.termination, Termination::FivefoldRepetition);
        assert_eq!((outcome.ply, adjudicated.game.ply()), (16, 18));
        let look = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        let start = arbiter_rules::Position::from_fen(arbiter_rules::STARTING_FEN).unwrap();
        let at_end = adjudicated.game.moves()[..16]
            .iter()
            .fold(start, |position, m| position.play(m));
        assert_eq!(board_fens(&look.section), [at_end.to_fen()]);
        assert!(look.section.contains("after ply 16"));
    }

    /// An error shows where (line:column), the refused move with its number and the board it
    /// was written for (issue 28, item 3), and the game's tags.
    #[test]
    fn an_error_gives_its_line_and_column_the_move_its_board_and_the_tags() {
        let (raw, verdict) = game(&with_tags(
            "[Event \"E\"]\n[Result \"1-0\"]",
            "1. e4 e5 2. Ke3 1-0",
        ));
        let look = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        let document = roxmltree::Document::parse(&look.section).unwrap();
        let text_of = |class: &str| {
            document
                .descendants()
                .find(|node| node.attribute("class") == Some(class))
                .and_then(|node| node.text())
                .map(str::to_owned)
        };
        // "1. e4 e5 2. " is 12 characters: Ke3 starts in column 13 of line 5.
        assert_eq!(text_of("error-place").as_deref(), Some("line 5:13"));
        assert!(text_of("error-reason").unwrap().contains("Ke3"));
        let tags: Vec<(&str, &str)> = document
            .descendants()
            .filter(|node| node.has_tag_name("tr"))
            .filter_map(|tr| {
                let th = tr.children().find(|c| c.has_tag_name("th"))?.text()?;
                let td = tr.children().find(|c| c.has_tag_name("td"))?.text()?;
                Some((th, td))
            })
            .collect();
        assert_eq!(
            tags,
            [
                ("White", "W"),
                ("Black", "B"),
                ("Event", "E"),
                ("Result", "1-0")
            ]
        );
        // The position before 2. Ke3, with 1... e5 marked.
        assert_eq!(
            board_fens(&look.section),
            ["rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]
        );
        let strong = document
            .descendants()
            .find(|node| node.attribute("class") == Some("error-move"))
            .and_then(|p| p.children().find(|c| c.has_tag_name("strong")))
            .and_then(|strong| strong.text());
        assert_eq!(strong, Some("2. Ke3"));
        assert!(
            look.section
                .contains("<figcaption>Before 2. Ke3 (ply 3)</figcaption>")
        );
        // An error that refuses no move (a bad FEN tag) has no position to draw.
        let (raw, verdict) = game(&with_tags("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]", "1. e4 *"));
        let no_move = super::look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        assert!(board_fens(&no_move.section).is_empty());
        assert!(!no_move.section.contains("error-move"));
    }

    /// Issue 28, item 3: the games that need a look come errors first, then disagreements,
    /// then the others, each group in input order and under its heading; the first
    /// `max_boards` of that order are drawn, the rest are rows in the same order.
    #[test]
    fn looks_come_errors_first_then_disagreements_then_the_others() {
        let warning = with_tags("[Result \"1-0\"]", "1. e4+ e5 1-0");
        let error = with_tags("[Result \"1-0\"]", "1. e4 e5 2. Ke3 1-0");
        let stalemate = with_tags(
            "[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]",
            "1. Qf7 1-0",
        );
        // Input order: a warning, a disagreement, an error, a warning, an error.
        let games = [&warning, &stalemate, &error, &warning, &error];
        let added = |max_boards| {
            let mut looks = attention_list(max_boards);
            for (index, pgn) in games.iter().enumerate() {
                let (raw, verdict) = game(pgn);
                let number = GameNumber::counted(index);
                let look =
                    look(index, &number, &raw, &verdict, SanLanguage::English).expect("a look");
                looks.add(&look).unwrap();
            }
            looks
        };
        let owned =
            |numbers: &[&str]| -> Vec<String> { numbers.iter().map(|n| (*n).to_owned()).collect() };
        let mut all = added(10);
        assert_eq!(all.per_group(), [2, 1, 2]);
        let (sections, rows, groups) = attention_of(&mut all);
        assert_eq!(sections, owned(&["3", "5", "2", "1", "4"]));
        assert!(rows.is_empty());
        assert_eq!(
            groups,
            owned(&[
                "attention-errors",
                "attention-disagreements",
                "attention-others"
            ])
        );
        // Two boards: both errors; the disagreement and the warnings are rows, in that order.
        let (sections, rows, groups) = attention_of(&mut added(2));
        assert_eq!(sections, owned(&["3", "5"]));
        assert_eq!(rows, owned(&["2", "1", "4"]));
        assert_eq!(groups, owned(&["attention-errors"]));
        // Three: the errors and the disagreement.
        let (sections, rows, _) = attention_of(&mut added(3));
        assert_eq!(sections, owned(&["3", "5", "2"]));
        assert_eq!(rows, owned(&["1", "4"]));
        // None: every game a row, errors first.
        let (sections, rows, groups) = attention_of(&mut added(0));
        assert!(sections.is_empty() && groups.is_empty());
        assert_eq!(rows, owned(&["3", "5", "2", "1", "4"]));
    }

    /// Issue 28, item 3: the mating line that proves the winner could still mate is folded
    /// under one line that says what it proves, with the board after the mate.
    #[test]
    fn the_can_still_mate_proof_is_folded_under_one_line() {
        let (raw, verdict) = game(&with_tags("[Result \"0-1\"]", "1. e4+ e5 2. Nf3 Nc6 0-1"));
        let plies = verdict
            .as_ref()
            .expect("adjudicated")
            .verdict
            .evidence
            .len();
        let look = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        let document = roxmltree::Document::parse(&look.section).unwrap();
        let details = document
            .descendants()
            .find(|node| node.has_tag_name("details"))
            .expect("folded");
        assert_eq!(details.attribute("open"), None);
        let summary = details
            .children()
            .find(|node| node.has_tag_name("summary"))
            .and_then(|node| node.text());
        assert_eq!(
            summary.map(str::to_owned),
            Some(format!(
                "Black could still checkmate: a sequence of {plies} legal moves exists"
            ))
        );
        // The line and the board after it are inside the fold.
        for class in ["mating-line", "after-mate"] {
            assert!(
                details
                    .descendants()
                    .any(|node| node.attribute("class") == Some(class)),
                "{class}"
            );
        }
    }

    /// Issue 28, item 1: every printed page's footer names the file, the start of its
    /// SHA-256 and "page X of N"; the file name is a CSS string that nothing in it can end.
    #[test]
    fn the_printed_footer_names_the_file_its_hash_and_the_page() {
        let style = print_style(&head("tests/data/adjudicate/round.pgn"));
        assert!(
            style.contains(
                "content:\"tests/data/adjudicate/round.pgn \\b7  SHA-256 abababababababab\""
            ),
            "{style}"
        );
        assert!(
            style.contains("content:\"page \" counter(page) \" of \" counter(pages)"),
            "{style}"
        );
        // Quotes, backslashes, line breaks and `</style>` are escaped; the end of a long path
        // is kept.
        let hostile = format!("{}/a\"b\\c\nd</style><script>é.pgn", "x".repeat(80));
        let style = print_style(&head(&hostile));
        assert!(!style.contains("</"), "{style}");
        assert!(
            style.contains("content:\"\\2026 xxxx")
                && style.contains("x/a\\22 b\\5c c\\a d\\3c /style\\3e \\3c script\\3e \\e9 .pgn"),
            "{style}"
        );
        // The empty top box (no browser header), the file and hash, "page " and " of ".
        assert!(style.contains("@top-right{content:\"\"}"), "{style}");
        assert_eq!(style.matches('"').count(), 8, "four strings: {style}");
        let incomplete = print_style(&ReportHead {
            unread: Some("cut".to_owned()),
            ..head("r.pgn")
        });
        assert!(
            incomplete.contains("content:\"INCOMPLETE \\b7  r.pgn"),
            "{incomplete}"
        );
    }

    /// Issue 28, item 2: games numbered as an earlier game of the same event are named in the
    /// summary with both lines.
    #[test]
    fn the_summary_names_games_numbered_as_an_earlier_one() {
        let mut numbers = NumberRegister::default();
        let pgn = "[Round \"5.20\"]\n\n1. e4 *\n\n[Round \"5.20\"]\n\n1. d4 *\n";
        for (index, raw) in arbiter_pgn::Reader::new(pgn.as_bytes()).enumerate() {
            let raw = raw.unwrap();
            numbers.add(
                arbiter_pgn::EventKey::of(&raw),
                &GameNumber::of(&raw, index),
                raw.line,
            );
        }
        let head = ReportHead {
            numbers,
            ..head("r.pgn")
        };
        let mut page = Vec::new();
        write_report(&mut page, &head, &mut attention_list(1), &mut &b""[..]).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(
            page.contains("<p class=\"repeated\" id=\"repeated\" data-count=\"1\">1 game has the number of an earlier game of the same event (their Event, Site, Date, Round and Board tags repeat: a game given twice, two sections under one event name, or a knockout whose Round numbers each match's games alike): 5.20 (line 5, as line 1). Such games are told apart by their line.</p>"),
            "{page}"
        );
    }

    /// Issue 26, item 3: a read error in the middle of a game names the lines the reader
    /// skipped to the game's end, in the section and in the row.
    #[test]
    fn r_a_read_error_names_the_lines_skipped() {
        let (raw, verdict) = game(&with_tags("[Event \"E\"]", "1. e4 ) e5\n2. Nf3 *"));
        let skipped = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        let document = roxmltree::Document::parse(&skipped.section).unwrap();
        let text_of = |class: &str| {
            document
                .descendants()
                .find(|node| node.attribute("class") == Some(class))
                .and_then(|node| node.text())
                .map(str::to_owned)
        };
        assert_eq!(text_of("error-place").as_deref(), Some("line 4:7"));
        assert_eq!(
            text_of("error-skipped").as_deref(),
            Some("lines 4-5 skipped to the end of the game; reading resumed at the next game")
        );
        assert!(
            skipped.row.contains(
                "line 4:7: &#39;)&#39; closes no variation (PGN standard 8.2.5); lines 4-5 skipped to the end of the game"
            ),
            "{}",
            skipped.row
        );
        // An error found once the whole game was read skipped nothing, and says nothing of it.
        let (raw, verdict) = game(&with_tags("[Event \"E\"]", "1. e4 e5 2. Ke3 *"));
        let illegal = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        assert!(
            !illegal.section.contains("error-skipped"),
            "{}",
            illegal.section
        );
    }

    /// PGN tags are the input's words: markup in them is text on the page, never markup.
    #[test]
    fn tag_values_cannot_inject_markup() {
        let pgn = "[White \"<script>alert(1)</script>\"]\n[Black \"a\\\" onload=\\\"x & <b>\"]\n[Result \"1-0\"]\n\n1. e4+ e5 1-0\n";
        let (raw, verdict) = game(pgn);
        let look = look(
            0,
            &GameNumber::counted(0),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        for text in [&look.section, &look.row] {
            let document = roxmltree::Document::parse(text).expect("well-formed");
            assert!(!document.descendants().any(|n| n.has_tag_name("script")));
            assert!(!document.descendants().any(|n| n.has_tag_name("b")));
            assert!(!text.contains("onload=\""), "{text}");
            assert!(
                document.descendants().any(|n| n
                    .text()
                    .is_some_and(|t| t.contains("<script>alert(1)</script>"))),
                "the name is shown as written"
            );
        }
    }

    /// The bounds docs/adjudication.md states: a section and a row of a game with the longest tags, many
    /// warnings and a long mating line stay within [`MAX_SECTION_BYTES`] and [`MAX_ROW_BYTES`].
    #[test]
    fn sections_and_rows_stay_within_their_size_bounds() {
        let long = "é".repeat(2 * MAX_TAG_CHARS);
        let mut tags = String::new();
        for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
            tags.push_str(&format!("[{name} \"{long}\"]\n"));
        }
        tags.push_str("[Result \"0-1\"]\n");
        // Every move with a wrong suffix: one warning per ply, more than are listed.
        let mut movetext = String::new();
        for n in 1..=20 {
            let (w, b) = if n % 2 == 1 {
                ("Nf3", "Nf6")
            } else {
                ("Ng1", "Ng8")
            };
            movetext.push_str(&format!("{n}. {w}+ {b}+ "));
        }
        movetext.push_str("0-1");
        let pgn = format!("{tags}\n{movetext}\n");
        let (raw, verdict) = game(&pgn);
        let adjudicated = verdict.as_ref().expect("adjudicated");
        assert!(adjudicated.warnings.len() > MAX_LISTED_WARNINGS);
        let look = look(
            usize::MAX,
            &GameNumber::counted(usize::MAX),
            &raw,
            &verdict,
            SanLanguage::Figurine,
        )
        .expect("a look");
        assert!(
            look.section.len() <= MAX_SECTION_BYTES,
            "{}",
            look.section.len()
        );
        assert!(look.row.len() <= MAX_ROW_BYTES, "{}", look.row.len());
        assert!(look.section.contains(&format!(
            "and {} more",
            adjudicated.warnings.len() - MAX_LISTED_WARNINGS
        )));
        let row = game_row(usize::MAX, &GameNumber::counted(0), &raw, adjudicated);
        assert!(row.len() <= MAX_ROW_BYTES, "{}", row.len());
        assert!(!row.contains(&long), "tag values are cut");
    }

    /// The whole page: well-formed, every shape a board refers to defined once in it, the
    /// counts in the summary, and long lists cut into tables of [`ROWS_PER_TABLE`] rows.
    #[test]
    fn the_page_defines_every_shape_its_boards_use_and_cuts_long_lists() {
        let (raw, verdict) = game(&with_tags(
            "[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"7k/8/6Q1/8/8/8/8/K7 w - - 0 1\"]",
            "1. Qf7 1-0",
        ));
        let look = look(
            1,
            &GameNumber::counted(1),
            &raw,
            &verdict,
            SanLanguage::English,
        )
        .expect("a look");
        let (plain_raw, plain) = game(&with_tags("[Result \"1/2-1/2\"]", "1. e4 e5 1/2-1/2"));
        let row = game_row(
            0,
            &GameNumber::counted(0),
            &plain_raw,
            plain.as_ref().unwrap(),
        );
        let rows = row.repeat(ROWS_PER_TABLE * 2 + 1);
        let mut counts = Counts {
            games: ROWS_PER_TABLE * 2 + 2,
            disagreements: 1,
            ..Counts::default()
        };
        counts.add_look(&look.reasons);
        counts
            .by_outcome
            .insert(("1/2-1/2".to_owned(), "stalemate".to_owned()), 1);
        let head = ReportHead {
            counts,
            ..head("round <5>.pgn")
        };
        let mut looks = attention_list(10);
        looks.add(&look).unwrap();
        let mut page = Vec::new();
        write_report(&mut page, &head, &mut looks, &mut rows.as_bytes()).unwrap();
        let page = String::from_utf8(page).unwrap();
        let document = roxmltree::Document::parse_with_options(
            &page,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..roxmltree::ParsingOptions::default()
            },
        )
        .expect("well-formed page");
        let ids: Vec<&str> = document
            .descendants()
            .filter_map(|node| node.attribute("id"))
            .collect();
        let mut used = 0;
        for node in document.descendants() {
            if let Some(target) = node.attribute("href").and_then(|h| h.strip_prefix('#')) {
                assert_eq!(
                    ids.iter().filter(|id| **id == target).count(),
                    1,
                    "#{target} is defined once"
                );
                used += 1;
            }
        }
        assert!(used > 10, "{used} references");
        let tables: Vec<usize> = document
            .descendants()
            .filter(|node| node.attribute("class") == Some("games"))
            .map(|table| {
                table
                    .descendants()
                    .filter(|n| n.has_tag_name("tr") && n.attribute("data-game").is_some())
                    .count()
            })
            .collect();
        assert_eq!(tables, [ROWS_PER_TABLE, ROWS_PER_TABLE, 1]);
        let text_of_id = |id: &str| {
            document
                .descendants()
                .find(|node| node.attribute("id") == Some(id))
                .and_then(|node| node.text())
        };
        assert_eq!(text_of_id("count-games"), Some("1002"));
        assert_eq!(text_of_id("count-looks"), Some("1"));
        assert_eq!(text_of_id("count-disagreements"), Some("1"));
        assert_eq!(text_of_id("file"), Some("round <5>.pgn"));
    }
}
