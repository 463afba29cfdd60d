//! Opt-in: `arbiter adjudicate`'s logic ([`arbiter_server::adjudicate_cli::run`]) in-process over
//! every game of `$ARBITER_CORPUS_DIR` (default `../shared/data/games` beside the repository;
//! `.pgn` and `.pgn.zst`): every game replays except the known bad-source games of
//! `crates/pgn/tests/common/known_failures.rs`, two runs give byte-identical JSON lines, and the
//! disagreements found are printed. Run with
//! `cargo test -p arbiter-server --release --test server adjudicate_corpus:: -- --ignored --nocapture`
//! (about a minute in release with `--analysis fast`; skipped with a message when the directory
//! is absent).

use std::fs::File;
use std::hash::{DefaultHasher, Hasher as _};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use arbiter_rules::AnalysisBudget;
use arbiter_server::adjudicate::Settings;
use arbiter_server::adjudicate_cli::{Summary, run};
use arbiter_server::cli::OutputFormat;
use arbiter_server::limits::Limits;

include!("../../../pgn/tests/pgn/common/known_failures.rs");

/// A writer that hashes the JSON lines it is given and keeps the error records' 0-based
/// `index` and `description` (`line L:C: ...`): the summary names a game by its number from
/// its tags (`5.20`), which the known failures, listed by index, cannot match.
#[derive(Default)]
struct HashWriter {
    hash: DefaultHasher,
    line: Vec<u8>,
    errors: Vec<(usize, String)>,
}

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.hash.write(buf);
        for &byte in buf {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let record: serde_json::Value = serde_json::from_slice(&line).expect("a JSON line");
            if let Some(description) = record["error"]["description"].as_str() {
                let index = record["index"].as_u64().expect("index");
                self.errors.push((
                    usize::try_from(index).expect("index"),
                    description.to_owned(),
                ));
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn open(path: &Path) -> Box<dyn BufRead> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.to_string_lossy().ends_with(".zst") {
        let decoder = zstd::stream::read::Decoder::new(file).expect("zstd stream");
        Box::new(BufReader::with_capacity(1 << 16, decoder))
    } else {
        Box::new(BufReader::with_capacity(1 << 16, file))
    }
}

fn adjudicate(path: &Path, settings: &Settings) -> (Summary, u64, Vec<(usize, String)>) {
    let mut out = HashWriter::default();
    let summary = run(open(path), &mut out, OutputFormat::Jsonl, settings).expect("run");
    (summary, out.hash.finish(), out.errors)
}

#[test]
#[ignore = "needs ARBITER_CORPUS_DIR (the shared game corpus); make test runs it when present"]
fn shared_corpus_adjudicates() {
    let dir = std::env::var_os("ARBITER_CORPUS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/games"),
        PathBuf::from,
    );
    assert!(
        dir.is_dir(),
        "{}: not found (set ARBITER_CORPUS_DIR to the shared game corpus)",
        dir.display()
    );
    let settings = Settings {
        limits: Limits {
            analysis: AnalysisBudget::Fast,
            ..Limits::default()
        },
        ..Settings::default()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".pgn") || name.ends_with(".pgn.zst")
        })
        .collect();
    files.sort();
    let mut unexpected = Vec::new();
    let (mut games, mut disagreements) = (0, 0);
    for path in files {
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let (summary, first, errors) = adjudicate(&path, &settings);
        let (again, second, _) = adjudicate(&path, &settings);
        assert_eq!(first, second, "{name}: the two runs differ");
        assert_eq!(summary, again, "{name}: the two summaries differ");
        print!("{name}: ");
        summary.write(&mut io::stdout()).expect("stdout");
        games += summary.games;
        disagreements += summary.disagreements;
        assert_eq!(errors.len(), summary.errors, "{name}: error records");
        for (at, error) in &errors {
            let known = KNOWN_FAILURES.iter().any(|(file, index, prefix)| {
                *file == name.trim_end_matches(".zst") && index == at && error.starts_with(prefix)
            });
            if !known {
                unexpected.push(format!("{name} game index {at}: {error}"));
            }
        }
    }
    println!("corpus: {games} games, {disagreements} disagreements");
    assert!(
        unexpected.is_empty(),
        "unexpected errors:\n{}",
        unexpected.join("\n")
    );
}
