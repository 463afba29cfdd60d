//! `arbiter adjudicate FILE.pgn`: every game of a PGN file (or standard input) adjudicated with
//! [`crate::adjudicate`], one record per game as a table, JSON lines or PGN, and a summary.
//!
//! The file is streamed (one game in memory at a time). The JSON record of a game is
//! [`write_response_json`] of the `AdjudicateGamesResponse` the `AdjudicateGames` stream would send for
//! it, so both give the same verdicts.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, BufRead, IsTerminal as _, LineWriter, Seek as _, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};

use sha2::{Digest as _, Sha256};
use unicode_segmentation::UnicodeSegmentation as _;
use unicode_width::UnicodeWidthStr as _;

use arbiter_proto::v1;

use arbiter_pgn::verdict::PgnVerdict;
use arbiter_proto::convert;
use arbiter_rules::{GameResult, Termination};

use crate::adjudicate::{self, Item, Place, Settings};
use crate::cli::{AdjudicateArgs, FailOn, OutputFormat};
use crate::limits::{Limits, usize_of};
use crate::output::{self, report};
use crate::pgn_input;
use arbiter_pgn::{EventKey, GameNumber, NumberRegister, RawGame};
use arbiter_report::html::{AttentionList, Look};

/// Most disagreements and errors kept in a [`Summary`] (the counts go on).
pub const MAX_LISTED: usize = 1000;

/// What a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read (errors included).
    pub games: usize,
    /// Adjudicated games by termination (`"ongoing"` for games the rules do not end).
    pub by_termination: BTreeMap<String, usize>,
    /// Adjudicated games by result (`"1-0"`, `"0-1"`, `"1/2-1/2"`, `"*"`) and termination
    /// ([`Termination::name`], or `"ongoing"`).
    pub by_outcome: BTreeMap<(&'static str, &'static str), usize>,
    /// With draw odds (`--rules armageddon`): the regulation, and the adjudicated games by the
    /// event's result (`"1-0"`, `"0-1"`, `"*"` while the game goes on). `None` and empty
    /// without draw odds.
    pub draw_odds: Option<String>,
    /// See [`Summary::draw_odds`].
    pub by_event_result: BTreeMap<&'static str, usize>,
    /// Games whose `Result` tag contradicts the rules.
    pub disagreements: usize,
    /// Games that could not be adjudicated (illegal move, bad PGN, ...).
    pub errors: usize,
    /// Adjudicated games whose verdict has warnings.
    pub warned: usize,
    /// Losses by flag fall, resignation or second illegal move that stand unproven: whether the
    /// opponent can still checkmate was not decided at this analysis level (`undetermined`).
    pub unproven: usize,
    /// The analysis level the verdicts were made at (`material`, `fast`, `full`).
    pub analysis: &'static str,
    /// The first [`MAX_LISTED`] disagreements: `game N (White - Black): reason`, N the
    /// game's number ([`GameNumber`]: `5.20`, or its place counted from 1).
    pub disagreement_list: Vec<String>,
    /// The first [`MAX_LISTED`] errors: `game N: line L:C: ...`.
    pub error_list: Vec<String>,
    /// The games' numbers from tags, and the games numbered as an earlier game.
    pub numbers: NumberRegister,
    /// Why the input could not be read whole (a read error, corrupt or cut compressed data, a
    /// zip member that cannot be read), in the order met: the records cover only what was read.
    pub input_errors: Vec<String>,
    /// Whether an input error ended the reading (the games after it are missing), rather than
    /// only leaving out the zip members it names ([`pgn_input::InputError::stops_reading`]).
    pub input_stopped: bool,
    /// The zip members skipped, not being `.pgn` files (the first 100).
    pub skipped_members: Vec<String>,
    /// How many zip members were skipped.
    pub skipped_count: usize,
}

impl Summary {
    /// Whether every game was adjudicated and agreed with its `Result` tag: no finding of
    /// [`FailOn::DEFAULT`].
    #[must_use]
    pub fn clean(&self) -> bool {
        !self.fails(FailOn::DEFAULT)
    }

    /// Whether a game has a finding `fail_on` lists (`--fail-on`): the run's exit status is
    /// then 2.
    #[must_use]
    pub fn fails(&self, fail_on: FailOn) -> bool {
        let FailOn {
            error,
            disagreement,
            warning,
            unproven,
        } = fail_on;
        (error && self.errors > 0)
            || (disagreement && self.disagreements > 0)
            || (warning && self.warned > 0)
            || (unproven && self.unproven > 0)
    }

    fn add(&mut self, tally: &Tally) {
        self.games += 1;
        let Tally {
            number,
            event,
            line,
            players,
            member,
            kind,
            look: _,
        } = tally;
        self.numbers.add(*event, number, *line);
        match kind {
            TallyKind::Verdict {
                termination,
                result,
                event_result,
                warned,
                unproven,
                disagreement,
            } => {
                if self.draw_odds.is_some() {
                    *self
                        .by_event_result
                        .entry(event_result.map_or("*", GameResult::as_pgn))
                        .or_default() += 1;
                }
                *self
                    .by_termination
                    .entry(termination_words(*termination))
                    .or_default() += 1;
                *self
                    .by_outcome
                    .entry((
                        result.map_or("*", GameResult::as_pgn),
                        termination.map_or("ongoing", Termination::name),
                    ))
                    .or_default() += 1;
                self.warned += usize::from(*warned);
                self.unproven += usize::from(*unproven);
                if let Some(reason) = disagreement {
                    self.disagreements += 1;
                    if self.disagreement_list.len() < MAX_LISTED {
                        self.disagreement_list
                            .push(format!("game {number}{players}: {member}{reason}"));
                    }
                }
            }
            TallyKind::Error(description) => {
                self.errors += 1;
                if self.error_list.len() < MAX_LISTED {
                    self.error_list
                        .push(format!("game {number}{players}: {member}{description}"));
                }
            }
        }
    }

    /// Writes the summary as text.
    ///
    /// # Errors
    /// The writer's errors.
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let terminations: Vec<String> = self
            .by_termination
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = vec![plural(self.games, "game", "games")];
        if !terminations.is_empty() {
            parts.push(terminations.join(", "));
        }
        if let Some(regulation) = &self.draw_odds {
            let results: Vec<String> = self
                .by_event_result
                .iter()
                .map(|(result, n)| format!("{result} {n}"))
                .collect();
            parts.push(format!(
                "for the event ({regulation}): {}",
                if results.is_empty() {
                    "no result".to_owned()
                } else {
                    results.join(", ")
                }
            ));
        }
        parts.push(plural(self.disagreements, "disagreement", "disagreements"));
        parts.push(plural(self.errors, "error", "errors"));
        parts.push(format!(
            "{} with warnings",
            plural(self.warned, "game", "games")
        ));
        if self.unproven > 0 {
            // At `material` and `fast` no loss is proven (no mating line is looked for), so
            // the count says how many verdicts rest on that.
            parts.push(format!(
                "{} not proven at analysis {} (the opponent's mating chances undecided)",
                plural(self.unproven, "loss", "losses"),
                self.analysis
            ));
        }
        let repeated = self.numbers.repeated();
        if repeated > 0 {
            parts.push(format!(
                "{} numbered as an earlier game of the same event",
                plural(repeated, "game", "games")
            ));
        }
        if !self.input_errors.is_empty() {
            parts.push(
                if self.input_stopped {
                    "the input was not read whole: the games after the input error are missing"
                } else {
                    "the input was not read whole: the zip members the input errors name are missing, or cut where the error is"
                }
                .to_owned(),
            );
        }
        if self.skipped_count > 0 {
            parts.push(plural(
                self.skipped_count,
                "zip member skipped",
                "zip members skipped",
            ));
        }
        writeln!(out, "summary: {}", parts.join("; "))?;
        for line in &self.input_errors {
            writeln!(out, "input error: {line}")?;
        }
        // In the order of attention: what could not be adjudicated, then the results the rules
        // contradict.
        for line in &self.error_list {
            writeln!(out, "error: {line}")?;
        }
        for line in &self.disagreement_list {
            writeln!(out, "disagreement: {line}")?;
        }
        for repeat in self.numbers.listed() {
            writeln!(out, "repeated number: {repeat}")?;
        }
        if self.numbers.unchecked() > 0 {
            writeln!(
                out,
                "repeated number: {} games after the first {} distinct numbers were not checked",
                self.numbers.unchecked(),
                arbiter_pgn::number::MAX_CHECKED_NUMBERS
            )?;
        }
        for name in &self.skipped_members {
            writeln!(out, "skipped: zip member {name} (not a .pgn file)")?;
        }
        if self.skipped_count > self.skipped_members.len() {
            writeln!(
                out,
                "skipped: {} more zip members",
                self.skipped_count - self.skipped_members.len()
            )?;
        }
        Ok(())
    }
}

/// The words of a termination in the table and the summary: the rules' own name with spaces
/// ("checkmate", "flag fall", "insufficient material"), or "ongoing".
fn termination_words(termination: Option<Termination>) -> String {
    termination.map_or_else(|| "ongoing".to_owned(), |t| t.name().replace('_', " "))
}

/// What the summary counts of one game, taken from its verdict by the thread that adjudicated
/// it.
#[derive(Debug, Clone)]
struct Tally {
    /// The game's number ([`GameNumber`]).
    number: GameNumber,
    /// The event the number is unique within.
    event: EventKey,
    /// The line where the game starts (where its error is, when no game started).
    line: u32,
    /// " (White - Black)" for a game the summary lists (a disagreement or an error), or "".
    players: String,
    /// "round2.pgn: " for a listed game of a zip member, or "".
    member: String,
    kind: TallyKind,
    /// For the HTML report, the game's section and row when it needs a look.
    look: Option<Box<Look>>,
}

/// A game's verdict or error, as the summary counts it.
#[derive(Debug, Clone)]
enum TallyKind {
    Verdict {
        /// `None` while the game goes on.
        termination: Option<Termination>,
        /// `None` while the game goes on.
        result: Option<GameResult>,
        /// With draw odds: the event's result; `None` without them or while the game goes on.
        event_result: Option<GameResult>,
        warned: bool,
        unproven: bool,
        /// The disagreement's sentence.
        disagreement: Option<String>,
    },
    /// The error's description (with its line:column).
    Error(String),
}

impl Tally {
    /// What the summary counts of `item`, read from the zip member `member` (`None`: not a
    /// zip), and for the HTML report (`format`) its section when it needs a look.
    fn of(item: &Item<'_>, format: OutputFormat, member: Option<&str>) -> Tally {
        let kind = match &item.verdict {
            Err(error) => TallyKind::Error(error.to_string()),
            Ok(verdict) => TallyKind::Verdict {
                termination: verdict.verdict.outcome.map(|outcome| outcome.termination),
                result: verdict.verdict.outcome.map(|outcome| outcome.result),
                event_result: verdict.verdict.event_result.as_ref().map(|e| e.result),
                warned: !verdict.warnings.is_empty(),
                unproven: verdict.verdict.undetermined,
                disagreement: verdict.disagreement.as_ref().map(ToString::to_string),
            },
        };
        // The players are named only where the summary lists the game (a disagreement or an
        // error): writing them for every game cost 2,000 instructions a game.
        let listed = match &kind {
            TallyKind::Error(_) => true,
            TallyKind::Verdict { disagreement, .. } => disagreement.is_some(),
        };
        let players = if listed {
            let white = item.raw.tag("White").unwrap_or("");
            let black = item.raw.tag("Black").unwrap_or("");
            if white.is_empty() && black.is_empty() {
                String::new()
            } else {
                format!(" ({white} - {black})")
            }
        } else {
            String::new()
        };
        let number = item.number();
        let member_text = match member {
            Some(member) if listed => format!("{member}: "),
            _ => String::new(),
        };
        let look = if format == OutputFormat::Html {
            arbiter_report::html::look_in(
                member,
                item.at.index,
                &number,
                item.raw,
                &item.verdict,
                item.notation.language,
            )
            .map(Box::new)
        } else {
            None
        };
        let line = match &item.verdict {
            Err(error) if item.raw.line == 0 => error.line,
            _ => item.raw.line,
        };
        Tally {
            number,
            event: EventKey::of(item.raw),
            line,
            players,
            member: member_text,
            kind,
            look,
        }
    }
}

/// Where the HTML report's games that need a look go as the run meets them: kept in memory up
/// to 16 MiB each, then in temporary files, and given back in the order of attention.
pub type Looks = AttentionList<tempfile::SpooledTempFile>;

/// Counts a game's tally, and hands its section to `looks` when it has one.
fn take(summary: &mut Summary, looks: &mut Option<&mut Looks>, tally: &Tally) -> io::Result<()> {
    summary.add(tally);
    if let (Some(looks), Some(look)) = (looks.as_deref_mut(), &tally.look) {
        looks.add(look)?;
    }
    Ok(())
}

/// Writes the JSON record of one game (one line of `--format jsonl`, without the newline): the
/// proto3 JSON of the `AdjudicateGamesResponse` the `AdjudicateGames` stream sends for the game
/// (generated by pbjson from the contract, see [`arbiter_proto::v1`]), with the proto field names
/// (`fide_article`, not `fideArticle`), every field written (defaults included: `"disagreement":
/// false`), enums by name (`"TERMINATION_CHECKMATE"`). `{index, request_index, game_index, line,
/// tags}` and then `verdict` (an `AdjudicateGameResponse`: `outcome`, `claims`, `evidence`,
/// `warnings`, `laws`, ...) or `error` (a `GameError`: `line`, `column`, `ply`, `move`, `reason`,
/// ...). Any proto3 JSON reader of `arbiter.v1` reads it back into the same message.
///
/// # Errors
/// The writer's errors.
pub fn write_response_json<W: Write + ?Sized>(
    out: &mut W,
    response: &v1::AdjudicateGamesResponse,
) -> io::Result<()> {
    serde_json::to_writer(&mut *out, response)?;
    Ok(())
}

/// The mark that ends a table cell cut short (one column wide).
const CUT_MARK: char = '…';

/// `text` as a table cell `columns` wide by display width (`unicode-width`: a CJK character
/// takes two columns, a combining mark none): padded with spaces, or, when it is wider, cut
/// where it still fits with [`CUT_MARK`] after it (and a space when a wide character would
/// straddle the boundary), only between grapheme clusters (a letter and its combining marks,
/// an emoji sequence stay whole). Control characters are written escaped (`\t`, `\u{1b}`), so
/// that a name neither moves the columns nor reaches the terminal as a command.
fn cell(text: &str, columns: usize) -> String {
    let text: Cow<'_, str> = if text.chars().any(char::is_control) {
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            .into()
    } else {
        text.into()
    };
    let mut cell = String::with_capacity(text.len().min(4 * columns) + columns);
    let mut width = 0;
    if text.width() <= columns {
        cell.push_str(&text);
        width = text.width();
    } else {
        // Clusters are measured one by one: a tag value of thousands of characters costs no
        // more than the columns it fills.
        let room = columns.saturating_sub(1);
        for cluster in text.graphemes(true) {
            let w = cluster.width();
            if width + w > room {
                break;
            }
            cell.push_str(cluster);
            width += w;
        }
        cell.push(CUT_MARK);
        width += 1;
    }
    cell.extend(std::iter::repeat_n(' ', columns.saturating_sub(width)));
    cell
}

/// The line before the table header: the edition of the Laws the verdicts apply, the rules of
/// the event when they are not standard play (`--rules`), and the analysis level.
fn laws_line(settings: &Settings) -> String {
    let rules = if settings.rules == arbiter_rules::RuleSet::default() {
        String::new()
    } else {
        format!(
            ", rules {}: {}",
            settings.rules,
            arbiter_report::html::rules_words(&settings.rules)
        )
    };
    format!(
        "verdicts under the {}{rules}, analysis {}",
        arbiter_rules::LAWS_EDITION,
        settings.limits.analysis.name()
    )
}

/// The table header. `warn`: the number of warnings of the verdict.
const TABLE_HEADER: &str = "game   event                    round white                black                declared result  termination              article  ply warn note";

/// The width of the table's `member` column, the zip member a game was read from (only for a
/// zip).
const MEMBER_COLUMNS: usize = 20;

/// The table header, with the `member` column after `game` for a zip (`archive`).
fn table_header(archive: bool) -> Cow<'static, str> {
    if archive {
        let (game, rest) = TABLE_HEADER.split_at(7);
        format!("{game}{} {rest}", cell("member", MEMBER_COLUMNS)).into()
    } else {
        TABLE_HEADER.into()
    }
}

/// How the records of a run are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// The output format.
    pub format: OutputFormat,
    /// `--fix-result`: PGN output writes the adjudicated result as the Result tag and the
    /// termination marker.
    pub fix_result: bool,
    /// The input is a zip: the table has a `member` column.
    pub archive: bool,
}

impl Style {
    /// `format` with the defaults: declared results kept, no zip.
    #[must_use]
    pub fn of(format: OutputFormat) -> Style {
        Style {
            format,
            fix_result: false,
            archive: false,
        }
    }
}

/// The names of the tags `--format pgn` adds, in the order written after the Seven Tag Roster:
/// the adjudicated result (`1-0`, `0-1`, `1/2-1/2`, `*` while the rules do not end the game),
/// the termination in the table's words (`checkmate`, `flag fall`, `ongoing`), the article of
/// the FIDE Laws, the disagreement with the declared result, the zip member the game was read
/// from, the error of a game that could not be adjudicated, and with draw odds (`--rules
/// armageddon`) the event's result (a draw under the Laws counts as `0-1`) and the regulation
/// that decides it. Tags of the input with these names (or any name starting with `Arbiter`)
/// are left out, so that a file written by `arbiter adjudicate` can be adjudicated again.
pub const ARBITER_TAGS: [&str; 8] = [
    "ArbiterResult",
    "ArbiterTermination",
    "ArbiterArticle",
    "ArbiterDisagreement",
    "ArbiterMember",
    "ArbiterError",
    "ArbiterEventResult",
    "ArbiterRegulation",
];

/// Writes a game that replays in PGN export format: the declared `Result` tag and termination
/// marker kept as written ([`arbiter_pgn::Declared::kept`]) and the verdict in the
/// [`ARBITER_TAGS`], or, with `fix_result`, the verdict's result (the Laws') as both and only
/// the member's tag. With draw odds the event's result and the regulation are written either
/// way (`ArbiterEventResult`, `ArbiterRegulation`): the Laws' result stays in `Result`.
fn write_pgn<W: Write + ?Sized>(
    out: &mut W,
    raw: &RawGame,
    verdict: &PgnVerdict,
    fix_result: bool,
    member: Option<&str>,
) -> io::Result<()> {
    let has_arbiter_tags = raw.tags.iter().any(|(name, _)| is_arbiter_tag(name));
    let tags: Cow<'_, [(String, String)]> = if has_arbiter_tags {
        raw.tags
            .iter()
            .filter(|(name, _)| !is_arbiter_tag(name))
            .cloned()
            .collect::<Vec<_>>()
            .into()
    } else {
        raw.tags.as_slice().into()
    };
    let outcome = verdict.verdict.outcome;
    let termination = termination_words(outcome.map(|o| o.termination));
    let disagreement = verdict.disagreement.as_ref().map(ToString::to_string);
    let mut added: Vec<(&str, &str)> = Vec::with_capacity(ARBITER_TAGS.len());
    let declared = if fix_result {
        arbiter_pgn::Declared::result(verdict.result())
    } else {
        added.push((ARBITER_TAGS[0], arbiter_pgn::result_token(verdict.result())));
        added.push((ARBITER_TAGS[1], &termination));
        if let Some(outcome) = &outcome {
            added.push((ARBITER_TAGS[2], outcome.article()));
        }
        if let Some(disagreement) = &disagreement {
            added.push((ARBITER_TAGS[3], disagreement));
        }
        arbiter_pgn::Declared::kept(raw.tag("Result"), raw.result.as_deref())
    };
    if let Some(event) = &verdict.verdict.event_result {
        added.push((ARBITER_TAGS[6], event.result.as_pgn()));
        added.push((ARBITER_TAGS[7], &event.regulation));
    }
    if let Some(member) = member {
        added.push((ARBITER_TAGS[4], member));
    }
    arbiter_pgn::write_game_with(
        &mut &mut *out,
        &tags,
        verdict.game.start(),
        verdict.game.moves(),
        declared,
        &added,
    )
}

/// Writes a game that could not be adjudicated, so that no game of the input is missing from
/// PGN output: its tags (the input's `Arbiter*` tags left out), the declared result kept (there
/// is no verdict to fix it with, `--fix-result` or not), `ArbiterError` with the error's
/// `line:column` and why, and the moves of its main line that replay before the error
/// ([`arbiter_pgn::playable_prefix`]; the error says at which ply the movetext was cut). With a
/// start position that is not known (a bad `FEN` tag), the tag section as read and no moves. A
/// game the reader found no tag or move of (text that is not PGN) is written with the Seven
/// Tag Roster's defaults, the error saying where the text was.
fn write_pgn_error<W: Write + ?Sized>(
    out: &mut W,
    raw: &RawGame,
    error: &arbiter_pgn::PgnError,
    member: Option<&str>,
) -> io::Result<()> {
    let tags: Vec<(String, String)> = raw
        .tags
        .iter()
        .filter(|(name, _)| !is_arbiter_tag(name))
        .cloned()
        .collect();
    let declared = arbiter_pgn::Declared::kept(raw.tag("Result"), raw.result.as_deref());
    let prefix = arbiter_pgn::playable_prefix(raw, &arbiter_pgn::ReplayOptions::default());
    // A game written so by an earlier run keeps its error as it was, so that writing it again
    // gives it again.
    let marked = matches!(error.kind, arbiter_pgn::ErrorKind::MarkedError(_));
    let mut why = match &error.kind {
        arbiter_pgn::ErrorKind::MarkedError(earlier) => earlier.clone(),
        kind => format!("line {}:{}: {kind}", error.line, error.column),
    };
    if let Some(skipped) = error.skipped {
        why.push_str(&format!("; {skipped}"));
    }
    why.push_str(&match &prefix {
        _ if marked => String::new(),
        Some((_, moves)) if raw.moves.len() > moves.len() => format!(
            "; ply {} and those after it are written as read",
            moves.len() + 1
        ),
        Some(_) => String::new(),
        None => "; no movetext written".to_owned(),
    });
    let mut added: Vec<(&str, &str)> = vec![(ARBITER_TAGS[5], &why)];
    if let Some(member) = member {
        added.push((ARBITER_TAGS[4], member));
    }
    // A refused move and those after it are written as read: read again, the game meets the
    // same refusal. (After text that is not PGN, the moves read before it are all there is.)
    let unplayed: Vec<&str> = match (&prefix, &error.kind) {
        (
            Some((_, moves)),
            arbiter_pgn::ErrorKind::Move { .. }
            | arbiter_pgn::ErrorKind::GameOver { .. }
            | arbiter_pgn::ErrorKind::NullMove { .. }
            | arbiter_pgn::ErrorKind::MarkedError(_),
        ) => raw.moves[moves.len().min(raw.moves.len())..]
            .iter()
            .map(|token| token.text.as_str())
            .collect(),
        _ => Vec::new(),
    };
    match &prefix {
        Some((start, moves)) => arbiter_pgn::write_game_cut(
            &mut &mut *out,
            &tags,
            start,
            moves,
            &unplayed,
            declared,
            &added,
        ),
        None => arbiter_pgn::write_tag_section(&mut &mut *out, &tags, declared, &added),
    }
}

/// Whether a tag of the input is one `--format pgn` writes itself: its name starts with
/// `Arbiter` (any letter case).
fn is_arbiter_tag(name: &str) -> bool {
    name.get(..7)
        .is_some_and(|start| start.eq_ignore_ascii_case("Arbiter"))
}

/// The note of a table row: the disagreement, then the codes of the warnings a record lists
/// (the first [`convert::MAX_WARNINGS`], with how many of each) and how many more there are.
fn table_note(verdict: &PgnVerdict) -> String {
    let mut note = verdict
        .verdict
        .event_result
        .as_ref()
        .map_or_else(String::new, |event| {
            format!("event result {}", event.result.as_pgn())
        });
    if let Some(disagreement) = &verdict.disagreement {
        if !note.is_empty() {
            note.push_str("; ");
        }
        note.push_str(&disagreement.to_string());
    }
    let listed = &verdict.warnings[..verdict.warnings.len().min(convert::MAX_WARNINGS)];
    if !listed.is_empty() {
        let mut codes: Vec<(&str, usize)> = Vec::new();
        for w in listed {
            match codes.iter_mut().find(|(c, _)| *c == w.code()) {
                Some((_, n)) => *n += 1,
                None => codes.push((w.code(), 1)),
            }
        }
        let list: Vec<String> = codes
            .iter()
            .map(|(c, n)| {
                if *n == 1 {
                    (*c).to_owned()
                } else {
                    format!("{c} x{n}")
                }
            })
            .collect();
        if !note.is_empty() {
            note.push_str("; ");
        }
        note.push_str("warnings: ");
        note.push_str(&list.join(", "));
        let omitted = verdict.warnings.len() - listed.len();
        if omitted > 0 {
            note.push_str(&format!(" and {omitted} more"));
        }
    }
    note
}

fn table_row(item: &Item<'_>, member: Option<&str>) -> String {
    let tag = |name| item.raw.tag(name).unwrap_or("");
    let member = member.map_or_else(String::new, |member| {
        format!("{} ", cell(member, MEMBER_COLUMNS))
    });
    let start = format!(
        "{:<6} {member}{} {} {} {}",
        item.number().as_str(),
        cell(tag("Event"), 24),
        cell(tag("Round"), 5),
        cell(tag("White"), 20),
        cell(tag("Black"), 20)
    );
    match &item.verdict {
        Err(error) => format!("{start} error: {error}"),
        Ok(verdict) => {
            let outcome = verdict.verdict.outcome;
            let declared = verdict
                .declared
                .as_ref()
                .map_or("", |declared| declared.text.as_str());
            format!(
                "{start} {} {:<7} {:<24} {:<8} {:>4} {:>4} {}",
                cell(declared, 8),
                outcome.map_or("*", |o| o.result.as_pgn()),
                termination_words(outcome.map(|o| o.termination)),
                outcome.map_or("", |o| o.article()),
                outcome.map_or(verdict.game.ply(), |o| o.ply),
                verdict.warnings.len(),
                table_note(verdict)
            )
            .trim_end()
            .to_owned()
        }
    }
}

/// Writes the record of one game in `style`, read from the zip member `member` (`None`: the
/// input is not a zip).
fn write_record<W: Write + ?Sized>(
    out: &mut W,
    style: Style,
    item: &Item<'_>,
    member: Option<&str>,
) -> io::Result<()> {
    match style.format {
        OutputFormat::Table => writeln!(out, "{}", table_row(item, member)),
        OutputFormat::Jsonl => {
            let mut response = item.response();
            if let Some(member) = member {
                member.clone_into(&mut response.member);
            }
            write_response_json(out, &response)?;
            writeln!(out)
        }
        OutputFormat::Pgn => match &item.verdict {
            Ok(verdict) => write_pgn(out, item.raw, verdict, style.fix_result, member),
            Err(error) => write_pgn_error(out, item.raw, error, member),
        },
        // A game that needs a look is a section of its own (`Tally::look`), the others rows.
        OutputFormat::Html => match &item.verdict {
            Ok(verdict) if !arbiter_report::html::reasons(&item.verdict).any() => out.write_all(
                arbiter_report::html::game_row_in(
                    member,
                    item.at.index,
                    &item.number(),
                    item.raw,
                    verdict,
                )
                .as_bytes(),
            ),
            _ => Ok(()),
        },
    }
}

/// Adjudicates every game of `input` and writes one record per game to `out` (for the table
/// format, a header first). Returns the summary; the caller writes it.
///
/// # Errors
/// Errors writing `out` (a read error of the input is reported as a game error).
pub fn run<R: BufRead, W: Write + ?Sized>(
    input: R,
    out: &mut W,
    format: OutputFormat,
    settings: &Settings,
) -> io::Result<Summary> {
    let style = Style::of(format);
    let mut summary = begin(out, style, settings)?;
    run_records(
        input,
        out,
        style,
        settings,
        &mut summary,
        &mut None,
        Place::default(),
        None,
    )?;
    Ok(summary)
}

/// The summary of a run that starts, its analysis level named, after the table's head (the Laws
/// line and the header) when the format is the table.
fn begin<W: Write + ?Sized>(out: &mut W, style: Style, settings: &Settings) -> io::Result<Summary> {
    if style.format == OutputFormat::Table {
        writeln!(out, "{}", laws_line(settings))?;
        writeln!(out, "{}", table_header(style.archive))?;
    }
    Ok(Summary {
        analysis: settings.limits.analysis.name(),
        draw_odds: settings
            .rules
            .draw_odds()
            .map(|odds| odds.regulation.clone()),
        ..Summary::default()
    })
}

/// Games handed to a worker at a time, where the input could not be cut into chunks.
const BATCH: usize = 64;

/// Bytes of PGN text handed to a worker at a time: the input is cut at the first line after
/// this many bytes where a game surely starts ([`arbiter_pgn::Splitter`]).
const CHUNK_BYTES: usize = 64 * 1024;

/// Jobs (chunks or batches) between the reading thread and the writing of their records, at
/// most, per worker thread: what bounds the memory of `-j`.
const IN_FLIGHT_PER_WORKER: usize = 3;

/// Plies of the longest game whose buffers a worker keeps to read another game into.
const KEPT_PLIES: usize = 256;

/// Work for an adjudicating thread of `-j`.
enum Job {
    /// Text to read and adjudicate.
    Text(arbiter_pgn::Chunk),
    /// Games already read, from the part of the input the splitter could not cut.
    Games(Vec<adjudicate::ReadGame>),
}

/// Numbers the games of the jobs in input order: a job learns the number of its first game once
/// every job before it was read.
#[derive(Default)]
struct Numbering {
    state: Mutex<NumberingState>,
    turn: Condvar,
}

#[derive(Default)]
struct NumberingState {
    /// The next job to be numbered.
    next_job: u64,
    /// The number of its first game.
    first_game: usize,
    /// A thread died before numbering its job: nobody waits any longer.
    broken: bool,
}

impl Numbering {
    /// The number of the first of the `games` games of job `job`, once the jobs before it have
    /// theirs; `None` when a thread died before numbering its job.
    fn first_game(&self, job: u64, games: usize) -> Option<usize> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.next_job != job && !state.broken {
            state = self
                .turn
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if state.broken {
            return None;
        }
        let first = state.first_game;
        state.next_job = job + 1;
        state.first_game = first + games;
        self.turn.notify_all();
        Some(first)
    }
}

/// Releases the threads waiting on a [`Numbering`] when the thread holding it panics.
struct NumberingGuard<'a>(&'a Numbering);

impl Drop for NumberingGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.broken = true;
            self.0.turn.notify_all();
        }
    }
}

/// Like [`run`], with `jobs` worker threads that each read and adjudicate chunks of the input
/// while one thread cuts the input into chunks ([`arbiter_pgn::Splitter`]) and the calling
/// thread writes the records, in input order. `jobs <= 1` is [`run`].
///
/// The records are those of [`run`], byte for byte: each chunk is read as the reader of the
/// whole input reads it, and its games are numbered once the chunks before it were read.
/// Memory: at most 3 x `jobs` chunks (each at most 64 KiB plus twice the game size limit, and
/// at most about 4,096 lines, so at most 8,192 games) and their records.
///
/// # Errors
/// Errors writing `out`.
pub fn run_parallel<R: BufRead + Send, W: Write + ?Sized>(
    input: R,
    out: &mut W,
    format: OutputFormat,
    settings: &Settings,
    jobs: usize,
) -> io::Result<Summary> {
    let style = Style::of(format);
    let mut summary = begin(out, style, settings)?;
    run_part(
        input,
        out,
        style,
        settings,
        jobs,
        &mut summary,
        &mut None,
        Place::default(),
        None,
    )?;
    Ok(summary)
}

/// Adjudicates every game of one part of the input (the whole input, or one member of a zip)
/// as [`run_parallel`] does, with `jobs` threads, numbering its games from `first` (`index` in
/// the whole input, `request_index` the member's number, `game_index` in the part), into
/// `summary`; the sections of the games that need a look (`--format html`) go to `looks` in
/// input order, and `out` receives the other records. `member` names the zip member the part
/// is, in every record.
///
/// # Errors
/// Errors writing `out` or `looks`.
#[allow(clippy::too_many_arguments)]
fn run_part<R: BufRead + Send, W: Write + ?Sized>(
    input: R,
    out: &mut W,
    style: Style,
    settings: &Settings,
    jobs: usize,
    summary: &mut Summary,
    looks: &mut Option<&mut Looks>,
    first: Place,
    member: Option<&str>,
) -> io::Result<()> {
    if jobs <= 1 {
        return run_records(input, out, style, settings, summary, looks, first, member);
    }
    let limits = settings.limits.reader_limits();
    let numbering = Numbering::default();
    let in_flight = jobs.saturating_mul(IN_FLIGHT_PER_WORKER);
    // Never full: a job is sent with a permit (below), and at most `in_flight` are out.
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Job)>(in_flight);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|scope| -> io::Result<()> {
        // A permit per job, from its sending to the writing of its records.
        let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(in_flight);
        let (record_tx, record_rx) = mpsc::channel::<(u64, Vec<Tally>, Vec<u8>)>();
        // Chunks' buffers go back to the splitter, which reads the next chunks into them.
        let (spare_tx, spare_rx) = mpsc::channel::<Vec<u8>>();
        let (job_rx, numbering) = (&job_rx, &numbering);
        for _ in 0..jobs {
            let (record_tx, spare_tx) = (record_tx.clone(), spare_tx.clone());
            let worker = std::thread::Builder::new().name("adjudicate".to_owned());
            worker
                .spawn_scoped(scope, move || {
                    let _guard = NumberingGuard(numbering);
                    // The games of the last chunk, read into again.
                    let mut spare: Vec<RawGame> = Vec::new();
                    let mut text_size = 0;
                    loop {
                        let job = job_rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                        let Ok((number, job)) = job else { return };
                        let from_text = matches!(job, Job::Text(_));
                        let mut games: Vec<adjudicate::ReadGame> = match job {
                            Job::Text(chunk) => {
                                let reader = arbiter_pgn::Reader::of_chunk(&chunk, limits);
                                let buffer = || spare.pop().unwrap_or_default();
                                let games =
                                    adjudicate::read_games_from(reader, Place::default(), buffer)
                                        .collect();
                                let _ = spare_tx.send(chunk.text);
                                games
                            }
                            Job::Games(games) => games,
                        };
                        let Some(first_in_part) = numbering.first_game(number, games.len()) else {
                            return;
                        };
                        // The job's records, one after the other, in one buffer.
                        let mut text = Vec::with_capacity(text_size);
                        let tallies = games
                            .iter_mut()
                            .enumerate()
                            .map(|(i, game)| {
                                game.renumber(Place {
                                    index: first.index + first_in_part + i,
                                    request_index: first.request_index,
                                    game_index: first.game_index + first_in_part + i,
                                });
                                let item = game.adjudicate(settings);
                                // Writing to a Vec cannot fail.
                                let _ = write_record(&mut text, style, &item, member);
                                Tally::of(&item, style.format, member)
                            })
                            .collect();
                        text_size = text.len();
                        if record_tx.send((number, tallies, text)).is_err() {
                            return;
                        }
                        // Only the games of a chunk go back, as many as the chunk took (a batch's
                        // come from the splitter thread), and none that held a long game: kept,
                        // each would hold that much memory for the rest of the run.
                        if from_text {
                            spare.extend(
                                games
                                    .into_iter()
                                    .map(|game| game.raw)
                                    .filter(|raw| raw.moves.capacity() <= KEPT_PLIES),
                            );
                        }
                    }
                })
                .map_err(cannot_start)?;
        }
        drop((record_tx, spare_tx));
        let splitter = std::thread::Builder::new().name("adjudicate-reader".to_owned());
        splitter
            .spawn_scoped(scope, move || {
                let mut number = 0;
                let mut send = |job: Job| {
                    let sent = permit_tx.send(()).is_ok() && job_tx.send((number, job)).is_ok();
                    number += 1;
                    sent
                };
                let mut splitter = arbiter_pgn::Splitter::new(input, &limits, CHUNK_BYTES);
                while let Some(chunk) = splitter.next_chunk(spare_rx.try_recv().unwrap_or_default())
                {
                    if !send(Job::Text(chunk)) {
                        return;
                    }
                }
                // An input the splitter could not cut (no `[Event` lines, a game beyond the
                // bound): its rest is read here, in batches of games, as before chunks.
                let Some((first_line, rest)) = splitter.into_rest() else {
                    return;
                };
                let reader =
                    arbiter_pgn::Reader::with_limits(rest, limits).starting_at_line(first_line);
                let mut batch = Vec::with_capacity(BATCH);
                for game in adjudicate::read_games_from(reader, Place::default(), RawGame::default)
                {
                    batch.push(game);
                    if batch.len() == BATCH
                        && !send(Job::Games(std::mem::replace(
                            &mut batch,
                            Vec::with_capacity(BATCH),
                        )))
                    {
                        return;
                    }
                }
                if !batch.is_empty() {
                    send(Job::Games(batch));
                }
            })
            .map_err(cannot_start)?;
        // Records come back in any order; they are written in the order of their jobs.
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        while let Ok((number, tallies, text)) = record_rx.recv() {
            waiting.insert(number, (tallies, text));
            while let Some((tallies, text)) = waiting.remove(&next) {
                for tally in &tallies {
                    take(summary, looks, tally)?;
                }
                out.write_all(&text)?;
                let _ = permit_rx.recv();
                next += 1;
            }
        }
        Ok(())
    })
}

/// The worker threads of `-j` could not be started (the system's thread limit).
#[derive(Debug, thiserror::Error)]
#[error("cannot start the worker threads of -j: {0} (try a smaller -j)")]
struct ThreadsNotStarted(io::Error);

fn cannot_start(error: io::Error) -> io::Error {
    io::Error::other(ThreadsNotStarted(error))
}

/// Adjudicates and writes every game of one part of the input in the calling thread (the
/// arguments of [`run_part`]).
#[allow(clippy::too_many_arguments)]
fn run_records<R: BufRead, W: Write + ?Sized>(
    input: R,
    out: &mut W,
    style: Style,
    settings: &Settings,
    summary: &mut Summary,
    looks: &mut Option<&mut Looks>,
    first: Place,
    member: Option<&str>,
) -> io::Result<()> {
    let mut failure = None;
    adjudicate::for_each_game(input, settings, first, |item| {
        let written = take(summary, looks, &Tally::of(&item, style.format, member))
            .and_then(|()| write_record(out, style, &item, member));
        match written {
            Ok(()) => true,
            Err(error) => {
                failure = Some(error);
                false
            }
        }
    });
    match failure {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// A writer whose writes hide the progress bar while they happen.
struct Suspended<W> {
    bar: indicatif::ProgressBar,
    inner: W,
}

impl<W: Write> Write for Suspended<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Self { bar, inner } = self;
        bar.suspend(|| inner.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        let Self { bar, inner } = self;
        bar.suspend(|| inner.flush())
    }
}

/// A progress bar of the input's bytes read (compressed bytes for a compressed input) on
/// standard error, only when standard error is a terminal.
fn progress_bar(size: Option<u64>) -> Option<indicatif::ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let bar = match size {
        Some(size) => indicatif::ProgressBar::new(size),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let template = if size.is_some() {
        "{bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})"
    } else {
        "{spinner} {bytes} ({bytes_per_sec})"
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    Some(bar)
}

/// Bytes in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut text, b| {
            let _ = write!(text, "{b:02x}");
            text
        })
}

/// The date the HTML report gives for the run: `--report-date` as written, else the time of
/// `SOURCE_DATE_EPOCH` (seconds since 1970, the reproducible-builds convention), else now; the
/// times as HTTP dates in UTC (`Wed, 02 Dec 2026 10:00:00 GMT`).
///
/// # Errors
/// A `SOURCE_DATE_EPOCH` that is not a number of seconds.
fn report_date(args: &AdjudicateArgs) -> Result<String, String> {
    if let Some(date) = &args.report_date {
        return Ok(date.clone());
    }
    // The last second an HTTP date can write (31 December 9999).
    const LAST_SECOND: u64 = 253_402_300_799;
    let time = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.trim().is_empty() => {
            let seconds: u64 = text
                .trim()
                .parse()
                .ok()
                .filter(|seconds| *seconds <= LAST_SECOND)
                .ok_or_else(|| {
                    format!(
                        "SOURCE_DATE_EPOCH={text:?} is not a number of seconds since 1970 up to {LAST_SECOND} (the end of 9999)"
                    )
                })?;
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds)
        }
        _ => std::time::SystemTime::now(),
    };
    Ok(httpdate::fmt_http_date(time))
}

/// Memory a part of the HTML report may take before it goes to a temporary file.
const SPOOL_BYTES: usize = 16 << 20;

/// Adjudicates the input with `run` (which writes the rows of the games that need no look to
/// its writer and hands the others to its [`Looks`]) and writes the HTML report to `out`: the
/// rows and sections are kept aside (in memory up to 16 MiB each, then in temporary files) until
/// the run's summary, which heads the page, is known; `head` makes the head from the counts.
///
/// # Errors
/// Errors writing `out` or the temporary files.
fn run_html<W: Write + ?Sized>(
    out: &mut W,
    max_boards: usize,
    run: impl FnOnce(&mut dyn Write, &mut Looks) -> io::Result<Summary>,
    head: impl FnOnce(arbiter_report::html::Counts, NumberRegister) -> arbiter_report::html::ReportHead,
) -> io::Result<Summary> {
    let mut rows = tempfile::SpooledTempFile::new(SPOOL_BYTES);
    let mut looks = Looks::new(
        tempfile::SpooledTempFile::new(SPOOL_BYTES),
        tempfile::SpooledTempFile::new(SPOOL_BYTES),
        max_boards,
    );
    let summary = run(&mut rows, &mut looks)?;
    let mut counts = looks.counts().clone();
    counts.games = summary.games;
    counts.by_outcome = summary
        .by_outcome
        .iter()
        .map(|(&(result, termination), &n)| ((result.to_owned(), termination.replace('_', " ")), n))
        .collect();
    counts.by_event_result = summary
        .by_event_result
        .iter()
        .map(|(&result, &n)| (result.to_owned(), n))
        .collect();
    counts.disagreements = summary.disagreements;
    counts.errors = summary.errors;
    counts.warned = summary.warned;
    counts.unproven = summary.unproven;
    rows.seek(io::SeekFrom::Start(0))?;
    arbiter_report::html::write_report(
        out,
        &head(counts, summary.numbers.clone()),
        &mut looks,
        &mut rows,
    )?;
    Ok(summary)
}

/// Adjudicates every part of an opened input ([`pgn_input::for_each_part`]: the whole input,
/// or each `.pgn` member of a zip) as [`run_parallel`] does, numbering the games across the
/// parts, and returns the summary of them all, with what reading the input met.
///
/// # Errors
/// Errors writing `out` or `looks`.
#[allow(clippy::too_many_arguments)]
fn run_input<W: Write + ?Sized>(
    opened: pgn_input::Opened,
    bounds: &pgn_input::Bounds,
    state: &pgn_input::SharedState,
    out: &mut W,
    style: Style,
    settings: &Settings,
    jobs: usize,
    mut looks: Option<&mut Looks>,
) -> io::Result<Summary> {
    let mut summary = begin(out, style, settings)?;
    pgn_input::for_each_part(opened, bounds, state, &mut |part| {
        let (member, number) = part.member.unzip();
        let first = Place {
            index: summary.games,
            request_index: number.unwrap_or(0),
            game_index: 0,
        };
        run_part(
            part.reader,
            out,
            style,
            settings,
            jobs,
            &mut summary,
            &mut looks,
            first,
            member,
        )
    })?;
    let state = state.lock().unwrap_or_else(PoisonError::into_inner);
    summary.input_errors = state.errors.iter().map(ToString::to_string).collect();
    if state.error_count > state.errors.len() {
        summary.input_errors.push(format!(
            "and {} more input errors",
            state.error_count - state.errors.len()
        ));
    }
    summary.input_stopped = state.stopped;
    summary.skipped_members.clone_from(&state.skipped_members);
    summary.skipped_count = state.skipped_count;
    Ok(summary)
}

/// The rule set of `--rules` with the regulation of `--regulation`, which only Armageddon's
/// draw odds take.
///
/// # Errors
/// `--regulation` without `armageddon`, or a regulation empty or over 200 bytes.
fn rules_of(args: &AdjudicateArgs) -> Result<arbiter_rules::RuleSet, String> {
    let Some(regulation) = &args.regulation else {
        return Ok(args.rules.clone());
    };
    if args.rules.draw_odds().is_none() {
        return Err(format!(
            "--regulation names the regulation giving Black draw odds: it needs --rules with armageddon (got --rules {})",
            args.rules
        ));
    }
    arbiter_rules::RuleSet::new(
        args.rules.time_class(),
        args.rules.supervision(),
        Some(arbiter_rules::DrawOdds {
            regulation: regulation.clone(),
        }),
    )
    .map_err(|e| format!("--regulation: {e}"))
}

/// `arbiter adjudicate`: exit 2 when a game has a finding `--fail-on` lists
/// ([`Summary::fails`]; by default an illegal move, text that is not PGN or a bound, or a result
/// that contradicts the rules), 0 otherwise; 1 when the input cannot be read (from the start or
/// partway through) or the output cannot be written, whatever the games; 0, quietly, when the
/// reader of standard output has gone (`| head`, [`output::write_failed`]).
#[must_use]
pub fn main(args: &AdjudicateArgs) -> ExitCode {
    let settings = Settings {
        claim_draw: args.claim_draws,
        limits: Limits {
            max_moves: usize_of(args.max_moves),
            max_pgn_bytes: usize_of(args.max_game_bytes),
            analysis: args.analysis.into(),
            max_tags: usize_of(args.max_tags),
            max_tag_value_bytes: usize_of(args.max_tag_value_bytes),
            max_variation_depth: usize_of(args.max_variation_depth),
            ..Limits::default()
        },
        notation: arbiter_proto::convert::Notation {
            language: args.language,
            shredder: false,
        },
        rules: match rules_of(args) {
            Ok(rules) => rules,
            Err(message) => {
                report(format_args!("{message}"));
                return ExitCode::from(64);
            }
        },
    };
    if args.fix_result && args.format != OutputFormat::Pgn {
        report(format_args!(
            "--fix-result rewrites the Result tags of --format pgn, not of --format {}",
            match args.format {
                OutputFormat::Table => "table",
                OutputFormat::Jsonl => "jsonl",
                OutputFormat::Pgn => "pgn",
                OutputFormat::Html => "html",
            }
        ));
        return ExitCode::from(64);
    }
    let mut opened = match pgn_input::open(&args.file) {
        Ok(opened) => opened,
        Err(error) => {
            report(format_args!(
                "cannot read {}: {error}",
                input_name(&args.file)
            ));
            return ExitCode::FAILURE;
        }
    };
    if let pgn_input::Format::Refused(name) = opened.format {
        report(format_args!(
            "cannot read {}: {}",
            input_name(&args.file),
            pgn_input::InputError::Refused(name)
        ));
        return ExitCode::FAILURE;
    }
    let bounds = pgn_input::Bounds {
        max_zstd_window_bytes: args.max_zstd_window_bytes,
        max_zip_directory_bytes: args.max_zip_directory_bytes,
        max_zip_members: args.max_zip_members,
    };
    let jobs = match args.jobs {
        0 => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(usize::from(crate::limits::MAX_JOBS)),
        n => usize::from(n),
    };
    // The HTML report's date, and the temporary directory its parts may go to, are checked
    // before any work.
    let report_date = if args.format == OutputFormat::Html {
        match report_date(args) {
            Ok(date) => date,
            Err(message) => {
                report(format_args!("{message}"));
                return ExitCode::from(64);
            }
        }
    } else {
        String::new()
    };
    if args.format == OutputFormat::Html
        && let Err(error) = tempfile::tempfile()
    {
        report(format_args!(
            "cannot create a temporary file in {} for the HTML report's parts (set TMPDIR): {error}",
            std::env::temp_dir().display()
        ));
        return ExitCode::FAILURE;
    }
    // The HTML report names the file as given by its SHA-256: hashed as it is read, or, for a
    // zip file (whose members are read through its directory, not in order), read once more.
    let zip_file = opened.format == pgn_input::Format::Zip && opened.size.is_some();
    let file_sha256 = if args.format == OutputFormat::Html && zip_file {
        match pgn_input::file_sha256(&args.file) {
            Ok(sha256) => Some(sha256),
            Err(error) => {
                report(format_args!(
                    "cannot read {}: {error}",
                    input_name(&args.file)
                ));
                return ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    let state = Arc::new(Mutex::new(pgn_input::InputState {
        digest: (args.format == OutputFormat::Html && !zip_file).then(Sha256::new),
        ..pgn_input::InputState::default()
    }));
    let observed = pgn_input::Observed::new(opened.raw, Arc::clone(&state));
    let bar = progress_bar(opened.size);
    opened.raw = match &bar {
        Some(bar) => Box::new(bar.wrap_read(observed)),
        None => Box::new(observed),
    };
    let compression = opened.format.compression();
    let style = Style {
        format: args.format,
        fix_result: args.fix_result,
        archive: opened.format == pgn_input::Format::Zip,
    };
    let stdout = io::stdout();
    let result = match &bar {
        _ if args.format == OutputFormat::Html => {
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let head = |counts, numbers| arbiter_report::html::ReportHead {
                file_name: input_name(&args.file),
                sha256: {
                    let state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    hex(&file_sha256.unwrap_or_else(|| {
                        state.digest.clone().unwrap_or_default().finalize().into()
                    }))
                },
                compression,
                unread: {
                    let state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    (!state.errors.is_empty()).then(|| {
                        let errors: Vec<String> =
                            state.errors.iter().map(ToString::to_string).collect();
                        if state.stopped {
                            format!(
                                "the input could not be read whole ({} bytes of it read): {}. This report covers only the games read before; the SHA-256 is that of the bytes read",
                                state.bytes,
                                errors.join("; ")
                            )
                        } else {
                            format!(
                                "the input could not be read whole: {}. This report leaves out those zip members, or what follows the error in them; the others were read",
                                errors.join("; ")
                            )
                        }
                    })
                },
                date: report_date.clone(),
                version: format!("arbiter {}", env!("CARGO_PKG_VERSION")),
                laws: arbiter_rules::LAWS_EDITION,
                analysis: settings.limits.analysis.name(),
                rules: settings.rules.clone(),
                language: args.language,
                counts,
                numbers,
            };
            run_html(
                &mut out,
                usize_of(args.report_boards),
                |rows, looks| {
                    run_input(
                        opened,
                        &bounds,
                        &state,
                        rows,
                        style,
                        &settings,
                        jobs,
                        Some(looks),
                    )
                },
                head,
            )
            .and_then(|s| out.flush().map(|()| s))
        }
        Some(bar) if stdout.is_terminal() => {
            let mut out = LineWriter::new(Suspended {
                bar: bar.clone(),
                inner: stdout.lock(),
            });
            run_input(
                opened, &bounds, &state, &mut out, style, &settings, jobs, None,
            )
            .and_then(|s| out.flush().map(|()| s))
        }
        _ => {
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            run_input(
                opened, &bounds, &state, &mut out, style, &settings, jobs, None,
            )
            .and_then(|s| out.flush().map(|()| s))
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let summary = match result {
        Ok(summary) => summary,
        Err(error) => {
            if let Some(threads) = error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<ThreadsNotStarted>())
            {
                report(format_args!("{threads}"));
                return ExitCode::FAILURE;
            }
            // A reader that stopped early (`| head`) ends the run quietly, with status 0.
            return output::write_failed(&error);
        }
    };
    // The table ends with its summary; JSON lines, PGN and HTML keep standard output clean, and
    // their summary on standard error is written if it can be: the exit status still tells.
    if args.format == OutputFormat::Table {
        let mut out = io::stdout().lock();
        if let Err(error) = summary.write(&mut out).and_then(|()| out.flush()) {
            return output::write_failed(&error);
        }
    } else {
        let _ = summary.write(&mut io::stderr().lock());
    }
    if !summary.input_errors.is_empty() {
        // The records and the summary cover the games read before each error only.
        for error in &summary.input_errors {
            report(format_args!(
                "cannot read {}: {error}",
                input_name(&args.file)
            ));
        }
        if summary.input_stopped {
            report(format_args!(
                "the output covers only the games read before the input error{}",
                if summary.input_errors.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ));
        } else {
            report(format_args!(
                "the output leaves out the zip members the input errors name, or what follows the error in them; the others were read"
            ));
        }
        return ExitCode::FAILURE;
    }
    // A file without a single game (empty, only comments, an export cut before its first game)
    // gives nothing to sign: said on standard error, and an error finding for the exit status.
    if summary.games == 0 {
        let bytes = state.lock().unwrap_or_else(PoisonError::into_inner).bytes;
        report(format_args!(
            "{} holds no PGN game ({bytes} bytes read): nothing was adjudicated",
            input_name(&args.file)
        ));
        if args.fail_on.error {
            return ExitCode::from(2);
        }
    }
    if summary.fails(args.fail_on) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// FILE as messages name it: `standard input` for `-`.
fn input_name(file: &Path) -> String {
    if file == Path::new("-") {
        "standard input".to_owned()
    } else {
        file.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_proto::v1::adjudicate_games_response;

    const PGN: &str = "[Event \"W\"]\n[Result \"1/2-1/2\"]\n\n1. e4+ 1/2-1/2\n\n[Event \"C\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n";

    /// The JSON lines of `pgn` at the default settings.
    fn jsonl_of(pgn: &str) -> String {
        let mut out = Vec::new();
        run(
            pgn.as_bytes(),
            &mut out,
            OutputFormat::Jsonl,
            &Settings::default(),
        )
        .expect("writes");
        String::from_utf8(out).expect("utf-8")
    }

    fn output(format: OutputFormat) -> (String, Summary) {
        let mut out = Vec::new();
        let summary = run(PGN.as_bytes(), &mut out, format, &Settings::default()).expect("writes");
        (String::from_utf8(out).expect("utf-8"), summary)
    }

    /// A round file with every kind of game end and reading problem, `copies` times over.
    fn mixed_round(copies: usize) -> String {
        let games = [
            "[Event \"R\"]\n[White \"A\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n",
            "[Event \"R\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 *\n\n",
            "[Event \"R\"]\n[Result \"1-0\"]\n\n",
            "[Event \"R\"]\n\n1. e4 {an open comment\n\n",
            "[Event \"R\"]\n\n1. e4 (1. d4 e5\n",
            "[Site \"S\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n\n",
            "[Event \"R\"]\r\n[Result \"0-1\"]\r\n\r\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 0-1\r\n\r\n",
            "; a comment between games\n\n",
            "[Event \"R\"] [Round \"1\"]\n1. d4 d5 1-0 [Event \"glued\"]\n\n1. c4 *\n",
            // Reader errors, each game skipped to its end and the games without tags after it
            // read (issue 26, item 3).
            "1. e4 ) e5\n2. Nf3 *\n\n1. d4 d5 *\n\n",
            "[Event \"R\"]\n\n1. e4 $300 e5 *\n1. c4 c5 *\n\n",
            "[Event \"R\"]\n[Bad tag\n\n1. e4 e5 *\n\n1. g3 g6 *\n\n",
        ];
        let mut pgn = String::new();
        for i in 0..copies {
            pgn.push_str(games[i % games.len()]);
        }
        pgn
    }

    /// `-j` cuts the input into chunks read by the workers; the output must be that of one
    /// reader, byte for byte, whatever the chunks and whether the input could be cut at all.
    #[test]
    fn workers_write_the_records_of_one_reader_byte_for_byte() {
        let settings = Settings::default();
        // Three times the chunk size: several chunks.
        let round = mixed_round(5_000);
        assert!(round.len() > 3 * CHUNK_BYTES);
        // Games whose tag lines follow lines with a `[` (a clock comment), beyond the splitter's
        // bound for a small game size limit: read by the splitter thread in batches.
        let mut small = Settings::default();
        small.limits.max_pgn_bytes = 2_000;
        let uncut = "[Site \"S\"]\n1. e4 { [%clk 0:00:10] } e5 1-0\n".repeat(8_000);
        for (pgn, settings) in [(&round, &settings), (&uncut, &small)] {
            for format in [OutputFormat::Jsonl, OutputFormat::Table, OutputFormat::Pgn] {
                let mut one = Vec::new();
                let summary = run(pgn.as_bytes(), &mut one, format, settings).expect("writes");
                for jobs in [2, 3] {
                    let mut many = Vec::new();
                    let summary_of_jobs =
                        run_parallel(pgn.as_bytes(), &mut many, format, settings, jobs)
                            .expect("writes");
                    assert!(one == many, "-j {jobs}, {format:?}: the records differ");
                    assert_eq!(summary_of_jobs, summary);
                }
            }
        }
        // Both ways were taken: chunks, and the rest read in one piece.
        let limits = settings.limits.reader_limits();
        let mut splitter = arbiter_pgn::Splitter::new(round.as_bytes(), &limits, CHUNK_BYTES);
        let chunks = std::iter::from_fn(|| splitter.next_chunk(Vec::new())).count();
        assert!(
            chunks > 3 && splitter.into_rest().is_none(),
            "{chunks} chunks"
        );
        let limits = small.limits.reader_limits();
        let mut splitter = arbiter_pgn::Splitter::new(uncut.as_bytes(), &limits, CHUNK_BYTES);
        assert!(splitter.next_chunk(Vec::new()).is_none());
        assert!(splitter.into_rest().is_some());
    }

    /// Issue 13 names the players only for the games the summary lists: a disagreement and an
    /// error still name them, in either order of the games, and a game that agrees lists nothing.
    #[test]
    fn the_summary_names_the_players_of_listed_games_only() {
        let pgn = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n\
[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
[White \"E\"]\n[Black \"F\"]\n\n1. e4 e5 2. Ke3 *\n";
        let mut out = Vec::new();
        let summary = run(
            pgn.as_bytes(),
            &mut out,
            OutputFormat::Jsonl,
            &Settings::default(),
        )
        .expect("writes");
        assert_eq!((summary.disagreements, summary.errors), (1, 1));
        assert!(
            summary.disagreement_list[0].starts_with("game 1 (A - B): "),
            "{:?}",
            summary.disagreement_list
        );
        assert!(
            summary.error_list[0].starts_with("game 3 (E - F): "),
            "{:?}",
            summary.error_list
        );
    }

    /// Issue 28, item 2: every format numbers a game as people do, from its tags (`5.20`,
    /// `Round`.`Board`, else its place counted from 1); the JSON lines keep the 0-based
    /// `index` beside the `number`; the summary lists errors before disagreements and names
    /// the games numbered as an earlier one; `-j` gives the same.
    #[test]
    fn games_are_numbered_from_their_tags_in_every_format() {
        let game = |tags: &str, result: &str, moves: &str| {
            format!(
                "[Event \"E\"]\n{tags}[White \"W\"]\n[Black \"B\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n"
            )
        };
        let mate = "1. f3 e5 2. g4 Qh4#";
        let pgn = [
            game("[Round \"5.20\"]\n", "0-1", mate),
            game("[Round \"5\"]\n[Board \"3\"]\n", "0-1", mate),
            game("[Round \"?\"]\n[Board \"4\"]\n", "0-1", mate),
            // Board 5.20 again, its result contradicted.
            game("[Round \"5.20\"]\n", "1-0", mate),
            game("[Round \"-\"]\n", "1-0", "1. e4 e5 2. Ke3"),
        ]
        .concat();
        let settings = Settings::default();
        let mut table = Vec::new();
        let summary =
            run(pgn.as_bytes(), &mut table, OutputFormat::Table, &settings).expect("writes");
        let table = String::from_utf8(table).expect("utf-8");
        let numbers: Vec<&str> = table
            .lines()
            .skip(2)
            .map(|row| row.split(' ').next().expect("a number"))
            .collect();
        assert_eq!(numbers, ["5.20", "5.3", "3", "5.20", "5"]);
        let records: Vec<(u64, String)> = jsonl_of(&pgn)
            .lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
                (
                    record["index"].as_u64().expect("index"),
                    record["number"].as_str().expect("number").to_owned(),
                )
            })
            .collect();
        let expected: Vec<(u64, String)> =
            [(0, "5.20"), (1, "5.3"), (2, "3"), (3, "5.20"), (4, "5")]
                .into_iter()
                .map(|(index, number)| (index, number.to_owned()))
                .collect();
        assert_eq!(records, expected);
        let mut written = Vec::new();
        summary.write(&mut written).expect("writes");
        let written = String::from_utf8(written).expect("utf-8");
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(
            lines,
            [
                "summary: 5 games; checkmate 4; 1 disagreement; 1 error; 0 games with warnings; 1 game numbered as an earlier game of the same event",
                "error: game 5 (W - B): line 41:13: ply 3 (Ke3): no white king can move to e3",
                "disagreement: game 5.20 (W - B): the Result tag says 1-0, but the rules say 0-1: checkmate at ply 4 (FIDE Laws 5.1.1)",
                "repeated number: game 5.20 at line 27 has the number of the game at line 1 of the same event",
            ]
        );
        // Several chunks of 64 KiB for the workers of -j 2.
        assert!(pgn.len() * 400 > 2 * CHUNK_BYTES);
        for format in [OutputFormat::Table, OutputFormat::Jsonl] {
            let mut two = Vec::new();
            let of_two = run_parallel(pgn.repeat(400).as_bytes(), &mut two, format, &settings, 2)
                .expect("writes");
            // Three numbers from tags a copy, two of them distinct.
            assert_eq!(of_two.numbers.repeated(), 3 * 400 - 2, "{format:?}");
            let mut one = Vec::new();
            let of_one =
                run(pgn.repeat(400).as_bytes(), &mut one, format, &settings).expect("writes");
            assert!(one == two, "{format:?}");
            assert_eq!(of_one, of_two);
        }
    }

    /// Issue 11 item 5: the JSON lines carry each verdict's warnings (code, line, message,
    /// ply), the count of those left out, and the edition of the Laws.
    #[test]
    fn jsonl_records_carry_warnings_and_the_laws_edition() {
        let (text, summary) = output(OutputFormat::Jsonl);
        let records: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(records.len(), 2);
        let codes = |r: &serde_json::Value| -> Vec<(String, u64, u64)> {
            r["verdict"]["warnings"]
                .as_array()
                .expect("warnings")
                .iter()
                .map(|w| {
                    (
                        w["code"].as_str().expect("code").to_owned(),
                        w["ply"].as_u64().expect("ply"),
                        w["line"].as_u64().expect("line"),
                    )
                })
                .collect()
        };
        assert_eq!(
            codes(&records[0]),
            [
                ("wrong_check_suffix".to_owned(), 1, 4),
                ("early_agreed_draw".to_owned(), 1, 4)
            ]
        );
        assert_eq!(records[0]["verdict"]["warnings_omitted"], 0);
        assert_eq!(records[0]["verdict"]["disagreement"], true);
        assert_eq!(records[0]["verdict"]["laws"], "FIDE Laws of Chess, 2023");
        assert!(codes(&records[1]).is_empty());
        assert_eq!(summary.warned, 1);
    }

    /// Issue 12, a fresh reviewer's report (F2): the stream's in-band errors (and so the JSON
    /// lines) gave an illegal move or a refused FEN tag only as an English sentence, while the
    /// unary RPC carried its cause and article. `GameError` now has both.
    #[test]
    fn r_in_band_errors_carry_the_cause_and_article_of_the_rules() {
        let pgn = "[Event \"pinned\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1\"]\n\n1. Nf3 *\n\n\
[Event \"kings\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/K3K3 w - - 0 1\"]\n\n1. Ka2 *\n\n\
[Event \"syntax\"]\n\n1. e4 e5 )\n";
        let errors: Vec<(String, String, String)> = jsonl_of(pgn)
            .lines()
            .map(|line| {
                let record: v1::AdjudicateGamesResponse =
                    serde_json::from_str(line).expect("proto3 JSON");
                let Some(adjudicate_games_response::Result::Error(error)) = record.result else {
                    panic!("an error record: {line}");
                };
                (error.reason, error.cause, error.article)
            })
            .collect();
        let owned = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(
            errors,
            [
                owned("ILLEGAL_MOVE", "PINNED", "3.9.2"),
                owned("INVALID_POSITION", "KING_COUNT", "2.2"),
                owned("INVALID_PGN", "", ""),
            ]
        );
    }

    /// Issue 12 item 5: a record is the proto3 JSON of the stream's `AdjudicateGamesResponse`
    /// (pbjson), with the field names of the .proto file, every default written (a `false`
    /// disagreement, an empty warning list, a 0), and enums by name; it reads back into the
    /// message it was written from.
    #[test]
    fn jsonl_record_is_the_proto3_json_of_the_stream_response_with_defaults_and_proto_names() {
        let (text, _) = output(OutputFormat::Jsonl);
        let line = text.lines().nth(1).expect("second record");
        let record: serde_json::Value = serde_json::from_str(line).expect("json");
        let verdict = &record["verdict"];
        assert_eq!(
            (
                &verdict["disagreement"],
                &verdict["plies_after_end"],
                &verdict["warnings"],
                &record["request_index"],
            ),
            (
                &serde_json::json!(false),
                &serde_json::json!(0),
                &serde_json::json!([]),
                &serde_json::json!(0)
            )
        );
        assert_eq!(verdict["outcome"]["termination"], "TERMINATION_RESIGNATION");
        assert_eq!(verdict["outcome"]["fide_article"], "5.1.2");
        assert_eq!(verdict["event"]["kind"], "GAME_EVENT_KIND_RESIGNATION");
        assert!(verdict.get("fideArticle").is_none() && record.get("error").is_none());
        let read: v1::AdjudicateGamesResponse = serde_json::from_str(line).expect("reads back");
        assert_eq!(serde_json::to_string(&read).expect("json"), line);
        // proto3 JSON readers also take the lowerCamelCase names and enum numbers.
        let camel: v1::AdjudicateGamesResponse = serde_json::from_str(
            r#"{"requestIndex":2,"verdict":{"outcome":{"fideArticle":"6.9","termination":8}}}"#,
        )
        .expect("lowerCamelCase");
        assert_eq!(camel.request_index, 2);
        let Some(adjudicate_games_response::Result::Verdict(verdict)) = camel.result else {
            panic!("a verdict");
        };
        let outcome = verdict.outcome.expect("outcome");
        assert_eq!(
            (outcome.fide_article.as_str(), outcome.termination()),
            ("6.9", v1::Termination::FlagFall)
        );
    }

    /// Issue 27, item 8: the table's columns are counted in display width, not characters: a
    /// CJK name takes two columns a character, a combining mark none, an emoji sequence two, so
    /// the rows stay aligned; a name too wide is cut between grapheme clusters with a visible
    /// `…`, a space after it where a wide character would straddle the boundary; control
    /// characters are escaped.
    #[test]
    fn table_columns_align_by_display_width_and_cut_names_with_a_mark() {
        let game = |event: &str, white: &str, black: &str| {
            format!(
                "[Event \"{event}\"]\n[Round \"1\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"
            )
        };
        let pgn = [
            game("Candidates", "丁立人", "Carlsen, Magnus"),
            // "José Raúl Capablanca", its accents as combining marks: 20 columns, 22 characters.
            game(
                "Havana",
                "Jose\u{301} Rau\u{301}l Capablanca",
                "Lasker, Emanuel",
            ),
            game("Emoji", "🦀 Ferris", "👨\u{200D}👩\u{200D}👧 Family 👍🏽"),
            game(
                "Tata Steel Masters, Wijk aan Zee",
                "Maximilian Alexander von Schön",
                "阿卜杜萨托罗夫努尔迪尔别克",
            ),
            // The 19th column is "é", an "e" and its combining mark: kept whole before the mark.
            game("Cut", "Abcdefghijklmnopqre\u{301}stuv", "Tab\there"),
        ]
        .concat();
        let mut out = Vec::new();
        run(
            pgn.as_bytes(),
            &mut out,
            OutputFormat::Table,
            &Settings::default(),
        )
        .expect("writes");
        let text = String::from_utf8(out).expect("utf-8");
        let rows: Vec<&str> = text.lines().skip(2).take(5).collect();
        assert_eq!(
            rows,
            [
                "1      Candidates               1     丁立人               Carlsen, Magnus      0-1      0-1     checkmate                5.1.1       4    0",
                "2      Havana                   1     Jose\u{301} Rau\u{301}l Capablanca Lasker, Emanuel      0-1      0-1     checkmate                5.1.1       4    0",
                "3      Emoji                    1     🦀 Ferris            👨\u{200d}👩\u{200d}👧 Family 👍\u{1f3fd}         0-1      0-1     checkmate                5.1.1       4    0",
                "4      Tata Steel Masters, Wij… 1     Maximilian Alexande… 阿卜杜萨托罗夫努尔…  0-1      0-1     checkmate                5.1.1       4    0",
                "5      Cut                      1     Abcdefghijklmnopqre\u{301}… Tab\\there            0-1      0-1     checkmate                5.1.1       4    0",
            ]
        );
        // Every row has the same display width up to its `declared` column.
        let header = text.lines().nth(1).expect("header");
        let declared = header.find("declared").expect("declared");
        for row in &rows {
            let at = row.find(" 0-1 ").expect("declared result") + 1;
            assert_eq!(row[..at].width(), declared, "{row}");
        }
    }

    /// Issue 27, item 8: each `--fail-on` finding is one count of the summary.
    #[test]
    fn the_summary_fails_on_the_findings_listed() {
        // A value with one field set: a summary with one finding, or a --fail-on listing one.
        fn with<T: Default>(set: fn(&mut T)) -> T {
            let mut value = T::default();
            set(&mut value);
            value
        }
        let none = FailOn::default();
        let cases: [(Summary, FailOn); 4] = [
            (
                with(|s: &mut Summary| s.errors = 1),
                with(|f: &mut FailOn| f.error = true),
            ),
            (
                with(|s: &mut Summary| s.disagreements = 1),
                with(|f: &mut FailOn| f.disagreement = true),
            ),
            (
                with(|s: &mut Summary| s.warned = 1),
                with(|f: &mut FailOn| f.warning = true),
            ),
            (
                with(|s: &mut Summary| s.unproven = 1),
                with(|f: &mut FailOn| f.unproven = true),
            ),
        ];
        for (i, (summary, own)) in cases.iter().enumerate() {
            assert!(summary.fails(*own), "finding {i}");
            assert!(summary.fails(FailOn::ANY), "finding {i}");
            assert!(!summary.fails(none), "finding {i}");
            for (j, (_, other)) in cases.iter().enumerate() {
                assert_eq!(summary.fails(*other), i == j, "finding {i}, --fail-on {j}");
            }
        }
        assert!(!Summary::default().fails(FailOn::ANY));
        // The default: errors and disagreements, as before --fail-on.
        let default: Vec<bool> = cases
            .iter()
            .map(|(s, _)| s.fails(FailOn::DEFAULT))
            .collect();
        assert_eq!(default, [true, true, false, false]);
    }

    /// Issue 11 item 5: the table names the Laws edition before its header, counts each
    /// verdict's warnings in the `warn` column and lists their codes in the note.
    #[test]
    fn table_shows_the_laws_edition_and_warning_codes() {
        let (text, summary) = output(OutputFormat::Table);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "verdicts under the FIDE Laws of Chess, 2023, analysis full"
        );
        assert!(lines[1].ends_with("ply warn note"), "{}", lines[1]);
        assert!(
            lines[2].ends_with(
                "    1    2 the Result tag says 1/2-1/2, but a draw by agreement needs one move by each player (FIDE Laws 5.2.3): agreed at ply 1; warnings: wrong_check_suffix, early_agreed_draw"
            ),
            "{}",
            lines[2]
        );
        assert!(lines[3].ends_with("    0"), "{}", lines[3]);
        let mut out = Vec::new();
        summary.write(&mut out).expect("writes");
        assert!(
            String::from_utf8(out)
                .expect("utf-8")
                .starts_with("summary: 2 games; agreed draw 1, resignation 1; 1 disagreement; 0 errors; 1 game with warnings\n")
        );
    }

    /// Issue 11, a fresh user's finding: at `--analysis material` and `fast` a loss stands
    /// unproven (no mating line is looked for), and nothing in the table or the summary said
    /// so. The header names the level and the summary counts the unproven losses.
    #[test]
    fn r_the_table_names_the_analysis_level_and_the_summary_counts_unproven_losses() {
        let settings = Settings {
            limits: Limits {
                analysis: arbiter_rules::AnalysisBudget::Material,
                ..Limits::default()
            },
            ..Settings::default()
        };
        let mut out = Vec::new();
        let summary =
            run(PGN.as_bytes(), &mut out, OutputFormat::Table, &settings).expect("writes");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            text.lines().next(),
            Some("verdicts under the FIDE Laws of Chess, 2023, analysis material")
        );
        assert_eq!(summary.unproven, 1);
        let mut out = Vec::new();
        summary.write(&mut out).expect("writes");
        let written = String::from_utf8(out).expect("utf-8");
        assert!(
            written.starts_with("summary: 2 games; agreed draw 1, resignation 1; 1 disagreement; 0 errors; 1 game with warnings; 1 loss not proven at analysis material (the opponent's mating chances undecided)\n"),
            "{written}"
        );
    }

    /// Issue 12 item 3: the table and the summary name terminations with the rules' own names
    /// (`Termination::name`), not the wire enum's, so insufficient material (a lone king, FIDE
    /// Laws 5.2.2) is told apart from a dead position the analysis found (a blocked pawn
    /// wall), while the JSON lines keep the wire's one `TERMINATION_DEAD_POSITION`.
    #[test]
    fn the_table_and_summary_tell_insufficient_material_from_other_dead_positions() {
        let pgn = "[Event \"K\"]\n[Result \"1/2-1/2\"]\n[FEN \"4k3/8/8/8/8/8/4p3/4K3 w - - 0 1\"]\n\n1. Kxe2 1/2-1/2\n\n\
[Event \"W\"]\n[Result \"1/2-1/2\"]\n[FEN \"4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1\"]\n\n1/2-1/2\n";
        let mut out = Vec::new();
        let summary = run(
            pgn.as_bytes(),
            &mut out,
            OutputFormat::Table,
            &Settings::default(),
        )
        .expect("writes");
        let text = String::from_utf8(out).expect("utf-8");
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert!(
            rows[0].contains(" 1/2-1/2 insufficient material    5.2.2"),
            "{text}"
        );
        assert!(
            rows[1].contains(" 1/2-1/2 dead position            5.2.2"),
            "{text}"
        );
        let expected: BTreeMap<String, usize> = [
            ("dead position".to_owned(), 1),
            ("insufficient material".to_owned(), 1),
        ]
        .into();
        assert_eq!(summary.by_termination, expected);
        let terminations: Vec<String> = jsonl_of(pgn)
            .lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
                record["verdict"]["outcome"]["termination"]
                    .as_str()
                    .expect("a termination")
                    .to_owned()
            })
            .collect();
        assert_eq!(terminations, ["TERMINATION_DEAD_POSITION"; 2]);
    }
    /// The records of `opened` (an input in memory) at `jobs`, and the summary.
    fn records_of_input(
        opened: pgn_input::Opened,
        style: Style,
        jobs: usize,
    ) -> (Vec<u8>, Summary) {
        let state = pgn_input::SharedState::default();
        let mut out = Vec::new();
        let summary = run_input(
            opened,
            &pgn_input::Bounds::default(),
            &state,
            &mut out,
            style,
            &Settings::default(),
            jobs,
            None,
        )
        .expect("writes");
        (out, summary)
    }

    /// Issue 28 item 4: a compressed input (zstd, a gzip of two members, bzip2) gives the
    /// records of the PGN text it holds byte for byte, read as a file or as standard input, at
    /// -j 1 and at -j 3 (the text is several of -j's 64 KiB chunks); a zip of two members gives
    /// the same records at -j 3 as at -j 1, numbered on across its members.
    #[test]
    fn compressed_input_gives_the_records_of_its_text_at_any_jobs() {
        use std::io::Write as _;
        let round = mixed_round(5_000);
        assert!(round.len() > 3 * CHUNK_BYTES);
        let style = Style::of(OutputFormat::Jsonl);
        let (expected, expected_summary) = records_of_input(
            pgn_input::Opened::of_bytes(round.clone().into_bytes(), true),
            style,
            1,
        );
        let half = round.len() / 2;
        let gzip = |text: &[u8]| {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(text).expect("gzip");
            encoder.finish().expect("gzip")
        };
        let mut bzip2 = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bzip2.write_all(round.as_bytes()).expect("bzip2");
        let compressed = [
            ("zstd", zstd::encode_all(round.as_bytes(), 3).expect("zstd")),
            (
                "gzip",
                [
                    gzip(&round.as_bytes()[..half]),
                    gzip(&round.as_bytes()[half..]),
                ]
                .concat(),
            ),
            ("bzip2", bzip2.finish().expect("bzip2")),
        ];
        for (name, bytes) in &compressed {
            for seekable in [true, false] {
                for jobs in [1, 3] {
                    let opened = pgn_input::Opened::of_bytes(bytes.clone(), seekable);
                    let (records, summary) = records_of_input(opened, style, jobs);
                    assert!(records == expected, "{name}, -j {jobs}: the records differ");
                    assert_eq!(summary, expected_summary, "{name}, -j {jobs}");
                }
            }
        }
        // A zip of the round in two members and a note.
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, text) in [
            ("a.pgn", &round.as_bytes()[..half]),
            ("notes.txt", &b"not PGN"[..]),
            ("b.PGN", &round.as_bytes()[half..]),
        ] {
            zip.start_file(name, options).expect("zip");
            zip.write_all(text).expect("zip");
        }
        let zip = zip.finish().expect("zip").into_inner();
        let archive = Style {
            archive: true,
            ..style
        };
        let (one, summary) =
            records_of_input(pgn_input::Opened::of_bytes(zip.clone(), true), archive, 1);
        assert_eq!(summary.skipped_members, ["notes.txt"]);
        assert!(
            summary.input_errors.is_empty(),
            "{:?}",
            summary.input_errors
        );
        for seekable in [true, false] {
            let (many, summary_of_jobs) = records_of_input(
                pgn_input::Opened::of_bytes(zip.clone(), seekable),
                archive,
                3,
            );
            assert!(one == many, "zip, -j 3: the records differ");
            assert_eq!(summary_of_jobs, summary);
        }
        let text = String::from_utf8(one).expect("UTF-8");
        let first_of_b = text
            .lines()
            .position(|line| line.contains("\"member\":\"b.PGN\""))
            .expect("b.PGN's records");
        let record: serde_json::Value =
            serde_json::from_str(text.lines().nth(first_of_b).expect("a line")).expect("JSON");
        assert_eq!(
            (
                &record["index"],
                &record["request_index"],
                &record["game_index"]
            ),
            (
                &serde_json::json!(first_of_b),
                &serde_json::json!(1),
                &serde_json::json!(0)
            )
        );
    }

    /// The PGN output of `pgn` with `--fix-result` or not.
    fn pgn_of(pgn: &str, fix_result: bool) -> String {
        let style = Style {
            fix_result,
            ..Style::of(OutputFormat::Pgn)
        };
        let mut out = Vec::new();
        let mut summary = Summary::default();
        run_records(
            pgn.as_bytes(),
            &mut out,
            style,
            &Settings::default(),
            &mut summary,
            &mut None,
            Place::default(),
            None,
        )
        .expect("writes");
        String::from_utf8(out).expect("UTF-8")
    }

    /// A game whose Result tag (1-0) the rules contradict (Black mated), with an ArbiterResult
    /// tag of an earlier run; an unfinished game (`*`); and a game without a termination marker
    /// whose tag writes 1-0 as `1:0` (a resignation).
    const DECLARED: &str = "[Event \"D\"]\n[Result \"1-0\"]\n[ArbiterResult \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n\
[Event \"U\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n\
[Event \"T\"]\n[Result \"1:0\"]\n\n1. d4 d5\n";

    /// Issue 28 item 7: `--format pgn` keeps the declared Result tag and termination marker
    /// (in export format's spelling) and adds the verdict in tags of its own after the Seven Tag Roster:
    /// ArbiterResult, ArbiterTermination, ArbiterArticle (when the game ended), and
    /// ArbiterDisagreement (when the rules contradict the declared result); tags of an earlier
    /// run are replaced. A missing marker is the tag's result.
    #[test]
    fn pgn_output_keeps_the_declared_result_and_adds_the_verdict_in_arbiter_tags() {
        const ROSTER: &str =
            "[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n";
        assert_eq!(
            pgn_of(DECLARED, false),
            [
                "[Event \"D\"]\n",
                ROSTER,
                "[Result \"1-0\"]\n[ArbiterResult \"0-1\"]\n[ArbiterTermination \"checkmate\"]\n\
                 [ArbiterArticle \"5.1.1\"]\n[ArbiterDisagreement \"the Result tag says 1-0, but the rules \
                 say 0-1: checkmate at ply 4 (FIDE Laws 5.1.1)\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n",
                "[Event \"U\"]\n",
                ROSTER,
                "[Result \"*\"]\n[ArbiterResult \"*\"]\n[ArbiterTermination \"ongoing\"]\n\n1. e4 e5 *\n\n",
                "[Event \"T\"]\n",
                ROSTER,
                // `1:0` in export format's spelling.
                "[Result \"1-0\"]\n[ArbiterResult \"1-0\"]\n[ArbiterTermination \"resignation\"]\n\
                 [ArbiterArticle \"5.1.2\"]\n\n1. d4 d5 1-0\n\n",
            ]
            .concat()
        );
    }

    /// Issue 28 item 7: `--fix-result` writes the adjudicated result as the Result tag and the
    /// termination marker, as pgn-extract's `--fixresulttags` does, and adds no verdict tags.
    #[test]
    fn fix_result_rewrites_the_result_tag_and_the_termination_marker() {
        const ROSTER: &str =
            "[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n";
        assert_eq!(
            pgn_of(DECLARED, true),
            [
                "[Event \"D\"]\n",
                ROSTER,
                "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n",
                "[Event \"U\"]\n",
                ROSTER,
                "[Result \"*\"]\n\n1. e4 e5 *\n\n",
                "[Event \"T\"]\n",
                ROSTER,
                "[Result \"1-0\"]\n\n1. d4 d5 1-0\n\n",
            ]
            .concat()
        );
    }
}
