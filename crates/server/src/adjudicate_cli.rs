//! `arbiter adjudicate FILE.pgn`: every game of a PGN file (or standard input) adjudicated with
//! [`crate::adjudicate`], one record per game as a table, JSON lines or PGN, and a summary.
//!
//! The file is streamed (one game in memory at a time). The JSON record of a game is
//! [`write_response_json`] of the `AdjudicateGamesResponse` the `AdjudicateGames` stream would send for
//! it, so both give the same verdicts.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal as _, LineWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc;

use arbiter_proto::v1;

use arbiter_pgn::verdict::PgnVerdict;
use arbiter_proto::convert;
use arbiter_rules::Termination;

use crate::adjudicate::{self, Item, Place, Settings};
use crate::cli::{AdjudicateArgs, OutputFormat};
use crate::limits::{Limits, usize_of};
use arbiter_pgn::RawGame;

/// Most disagreements and errors kept in a [`Summary`] (the counts go on).
pub const MAX_LISTED: usize = 1000;

/// What a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read (errors included).
    pub games: usize,
    /// Adjudicated games by termination (`"ongoing"` for games the rules do not end).
    pub by_termination: BTreeMap<String, usize>,
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
    /// The first [`MAX_LISTED`] disagreements: `game N (White - Black): reason`.
    pub disagreement_list: Vec<String>,
    /// The first [`MAX_LISTED`] errors: `game N: line L:C: ...`.
    pub error_list: Vec<String>,
}

impl Summary {
    /// Whether every game was adjudicated and agreed with its `Result` tag.
    #[must_use]
    pub fn clean(&self) -> bool {
        self.errors == 0 && self.disagreements == 0
    }

    fn add(&mut self, tally: &Tally) {
        self.games += 1;
        let Tally {
            index,
            players,
            kind,
        } = tally;
        match kind {
            TallyKind::Verdict {
                termination,
                warned,
                unproven,
                disagreement,
            } => {
                *self
                    .by_termination
                    .entry(termination_words(*termination))
                    .or_default() += 1;
                self.warned += usize::from(*warned);
                self.unproven += usize::from(*unproven);
                if let Some(reason) = disagreement {
                    self.disagreements += 1;
                    if self.disagreement_list.len() < MAX_LISTED {
                        self.disagreement_list
                            .push(format!("game {index}{players}: {reason}"));
                    }
                }
            }
            TallyKind::Error(description) => {
                self.errors += 1;
                if self.error_list.len() < MAX_LISTED {
                    self.error_list
                        .push(format!("game {index}{players}: {description}"));
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
        writeln!(out, "summary: {}", parts.join("; "))?;
        for line in &self.disagreement_list {
            writeln!(out, "disagreement: {line}")?;
        }
        for line in &self.error_list {
            writeln!(out, "error: {line}")?;
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
    /// The game's number in the input.
    index: usize,
    /// " (White - Black)" for a game the summary lists (a disagreement or an error), or "".
    players: String,
    kind: TallyKind,
}

/// A game's verdict or error, as the summary counts it.
#[derive(Debug, Clone)]
enum TallyKind {
    Verdict {
        /// `None` while the game goes on.
        termination: Option<Termination>,
        warned: bool,
        unproven: bool,
        /// The disagreement's sentence.
        disagreement: Option<String>,
    },
    /// The error's description (with its line:column).
    Error(String),
}

impl Tally {
    fn of(item: &Item<'_>) -> Tally {
        let kind = match &item.verdict {
            Err(error) => TallyKind::Error(error.to_string()),
            Ok(verdict) => TallyKind::Verdict {
                termination: verdict.verdict.outcome.map(|outcome| outcome.termination),
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
        Tally {
            index: item.at.index,
            players,
            kind,
        }
    }
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

/// Keeps the first `n` characters of `text`.
fn cut(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The line before the table header: the edition of the Laws the verdicts apply and the
/// analysis level.
fn laws_line(settings: &Settings) -> String {
    format!(
        "verdicts under the {}, analysis {}",
        arbiter_rules::LAWS_EDITION,
        settings.limits.analysis.name()
    )
}

/// The table header. `warn`: the number of warnings of the verdict.
const TABLE_HEADER: &str = "game   event                    round white                black                declared result  termination              article  ply warn note";

/// The note of a table row: the disagreement, then the codes of the warnings a record lists
/// (the first [`convert::MAX_WARNINGS`], with how many of each) and how many more there are.
fn table_note(verdict: &PgnVerdict) -> String {
    let mut note = verdict
        .disagreement
        .as_ref()
        .map_or_else(String::new, ToString::to_string);
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

fn table_row(item: &Item<'_>) -> String {
    let tag = |name| item.raw.tag(name).unwrap_or("");
    let start = format!(
        "{:<6} {:<24} {:<5} {:<20} {:<20}",
        item.at.index,
        cut(tag("Event"), 24),
        cut(tag("Round"), 5),
        cut(tag("White"), 20),
        cut(tag("Black"), 20)
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
                "{start} {:<8} {:<7} {:<24} {:<8} {:>4} {:>4} {}",
                cut(declared, 8),
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

/// Writes the record of one game in `format`.
fn write_record<W: Write + ?Sized>(
    out: &mut W,
    format: OutputFormat,
    item: &Item<'_>,
) -> io::Result<()> {
    match format {
        OutputFormat::Table => writeln!(out, "{}", table_row(item)),
        OutputFormat::Jsonl => {
            write_response_json(out, &item.response())?;
            writeln!(out)
        }
        OutputFormat::Pgn => match &item.verdict {
            Ok(verdict) => arbiter_pgn::write_game(
                &mut &mut *out,
                &item.raw.tags,
                verdict.game.start(),
                verdict.game.moves(),
                verdict.result(),
            ),
            // Games that cannot be replayed are left out (the summary lists them).
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
    let mut summary = begin(out, format, settings)?;
    run_records(input, out, format, settings, &mut summary)?;
    Ok(summary)
}

/// The summary of a run that starts, its analysis level named, after the table's head (the Laws
/// line and the header) when the format is the table.
fn begin<W: Write + ?Sized>(
    out: &mut W,
    format: OutputFormat,
    settings: &Settings,
) -> io::Result<Summary> {
    if format == OutputFormat::Table {
        writeln!(out, "{}", laws_line(settings))?;
        writeln!(out, "{TABLE_HEADER}")?;
    }
    Ok(Summary {
        analysis: settings.limits.analysis.name(),
        ..Summary::default()
    })
}

/// Games handed to a worker at a time.
const BATCH: usize = 64;
/// Batches queued per worker (bounds memory: workers x QUEUED x BATCH games in flight).
const QUEUED: usize = 4;

/// Like [`run`], with `jobs` worker threads adjudicating batches of games while the calling thread
/// reads the input and another writes the records, in input order. `jobs <= 1` is [`run`].
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
    if jobs <= 1 {
        return run(input, out, format, settings);
    }
    let mut summary = begin(out, format, settings)?;
    type Record = (Tally, Vec<u8>);
    std::thread::scope(|scope| -> io::Result<()> {
        // Batches go to the workers round-robin and come back in the same order, so the output
        // keeps the input order without a reordering buffer.
        let mut to_workers = Vec::with_capacity(jobs);
        let mut from_workers = Vec::with_capacity(jobs);
        // Workers hand the games they are done with back to the reader, which reads the next
        // games into them: their memory stays warm instead of being freed on one thread and
        // allocated afresh on another.
        let (recycle_tx, recycle_rx) = mpsc::channel::<Vec<adjudicate::ReadGame>>();
        for _ in 0..jobs {
            let recycle_tx = recycle_tx.clone();
            let (batch_tx, batch_rx) = mpsc::sync_channel::<Vec<adjudicate::ReadGame>>(QUEUED);
            let (record_tx, record_rx) = mpsc::sync_channel::<io::Result<Vec<Record>>>(QUEUED);
            let worker = std::thread::Builder::new().name("adjudicate".to_owned());
            worker
                .spawn_scoped(scope, move || {
                    for batch in batch_rx {
                        let records = batch
                            .iter()
                            .map(|game| {
                                let item = game.adjudicate(settings);
                                let mut record = Vec::new();
                                write_record(&mut record, format, &item)
                                    .map(|()| (Tally::of(&item), record))
                            })
                            .collect();
                        if record_tx.send(records).is_err() {
                            return;
                        }
                        let _ = recycle_tx.send(batch);
                    }
                })
                .map_err(cannot_start)?;
            to_workers.push(batch_tx);
            from_workers.push(record_rx);
        }
        let reader = std::thread::Builder::new().name("adjudicate-reader".to_owned());
        reader
            .spawn_scoped(scope, move || {
                let mut batch = Vec::with_capacity(BATCH);
                let mut next = 0;
                // At most the games in flight: jobs x (QUEUED + 2) batches.
                let mut spare: Vec<RawGame> = Vec::new();
                let buffer = || {
                    if spare.is_empty() {
                        spare.extend(recycle_rx.try_iter().flatten().map(|game| game.raw));
                    }
                    spare.pop().unwrap_or_default()
                };
                for game in adjudicate::read_games_into(input, settings, Place::default(), buffer) {
                    batch.push(game);
                    if batch.len() == BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        if to_workers[next % jobs].send(full).is_err() {
                            return;
                        }
                        next += 1;
                    }
                }
                if !batch.is_empty() {
                    let _ = to_workers[next % jobs].send(batch);
                }
            })
            .map_err(cannot_start)?;
        let mut next = 0;
        while let Ok(records) = from_workers[next % jobs].recv() {
            for (tally, record) in records? {
                summary.add(&tally);
                out.write_all(&record)?;
            }
            next += 1;
        }
        Ok(())
    })?;
    Ok(summary)
}

/// The worker threads of `-j` could not be started (the system's thread limit).
#[derive(Debug, thiserror::Error)]
#[error("cannot start the worker threads of -j: {0} (try a smaller -j)")]
struct ThreadsNotStarted(io::Error);

fn cannot_start(error: io::Error) -> io::Error {
    io::Error::other(ThreadsNotStarted(error))
}

/// Adjudicates and writes every game in the calling thread.
fn run_records<R: BufRead, W: Write + ?Sized>(
    input: R,
    out: &mut W,
    format: OutputFormat,
    settings: &Settings,
    summary: &mut Summary,
) -> io::Result<()> {
    let mut failure = None;
    adjudicate::for_each_game(input, settings, Place::default(), |item| {
        summary.add(&Tally::of(&item));
        match write_record(out, format, &item) {
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

/// Opens FILE ("-" is standard input) with its size when known.
fn open(path: &Path) -> io::Result<(Box<dyn Read + Send>, Option<u64>)> {
    if path == Path::new("-") {
        return Ok((Box::new(io::stdin()), None));
    }
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a PGN file",
        ));
    }
    Ok((Box::new(file), Some(metadata.len())))
}

/// Writes a message to standard error, ignoring failure (standard error may be a closed pipe,
/// as after `arbiter adjudicate ... 2>&1 | head`): the exit status still tells.
fn report(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "arbiter: {message}");
}

/// A progress bar of bytes read on standard error, only when standard error is a terminal.
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

/// `arbiter adjudicate`: exit 0 when every game was adjudicated and agrees with its `Result`
/// tag, 2 when a game has an illegal move (or is not PGN) or a result that contradicts the
/// rules, 1 when the file cannot be read or the output cannot be written.
#[must_use]
pub fn main(args: &AdjudicateArgs) -> ExitCode {
    let settings = Settings {
        claim_draw: args.claim_draws,
        limits: Limits {
            max_moves: usize_of(args.max_moves),
            max_pgn_bytes: usize_of(args.max_game_bytes),
            analysis: args.analysis.into(),
            ..Limits::default()
        },
        notation: arbiter_proto::convert::Notation {
            language: args.language,
            shredder: false,
        },
    };
    let (input, size) = match open(&args.file) {
        Ok(opened) => opened,
        Err(error) => {
            report(format_args!("cannot read {}: {error}", args.file.display()));
            return ExitCode::FAILURE;
        }
    };
    let jobs = match args.jobs {
        0 => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(usize::from(crate::limits::MAX_JOBS)),
        n => usize::from(n),
    };
    let bar = progress_bar(size);
    let input: Box<dyn Read + Send> = match &bar {
        Some(bar) => Box::new(bar.wrap_read(input)),
        None => input,
    };
    let input = BufReader::with_capacity(1 << 16, input);
    let stdout = io::stdout();
    let result = match &bar {
        Some(bar) if stdout.is_terminal() => {
            let mut out = LineWriter::new(Suspended {
                bar: bar.clone(),
                inner: stdout.lock(),
            });
            run_parallel(input, &mut out, args.format, &settings, jobs)
                .and_then(|s| out.flush().map(|()| s))
        }
        _ => {
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            run_parallel(input, &mut out, args.format, &settings, jobs)
                .and_then(|s| out.flush().map(|()| s))
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let summary = match result {
        Ok(summary) => summary,
        Err(error) => {
            // A reader that stopped early (`| head`) is no error worth a message.
            if let Some(threads) = error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<ThreadsNotStarted>())
            {
                report(format_args!("{threads}"));
            } else if error.kind() != io::ErrorKind::BrokenPipe {
                report(format_args!("cannot write the output: {error}"));
            }
            return ExitCode::FAILURE;
        }
    };
    // The table ends with its summary; JSON lines and PGN keep standard output clean.
    let written = if args.format == OutputFormat::Table {
        let mut out = io::stdout().lock();
        summary.write(&mut out).and_then(|()| out.flush())
    } else {
        summary.write(&mut io::stderr().lock())
    };
    if let Err(error) = written {
        if error.kind() != io::ErrorKind::BrokenPipe {
            report(format_args!("cannot write the summary: {error}"));
        }
        return ExitCode::FAILURE;
    }
    if summary.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
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
            summary.disagreement_list[0].starts_with("game 0 (A - B): "),
            "{:?}",
            summary.disagreement_list
        );
        assert!(
            summary.error_list[0].starts_with("game 2 (E - F): "),
            "{:?}",
            summary.error_list
        );
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
}
