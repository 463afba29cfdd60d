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

/// A writer that only hashes what it is given.
struct HashWriter(DefaultHasher);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf);
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

fn adjudicate(path: &Path, settings: &Settings) -> (Summary, u64) {
    let mut out = HashWriter(DefaultHasher::new());
    let summary = run(open(path), &mut out, OutputFormat::Jsonl, settings).expect("run");
    (summary, out.0.finish())
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
        let (summary, first) = adjudicate(&path, &settings);
        let (again, second) = adjudicate(&path, &settings);
        assert_eq!(first, second, "{name}: the two runs differ");
        assert_eq!(summary, again, "{name}: the two summaries differ");
        print!("{name}: ");
        summary.write(&mut io::stdout()).expect("stdout");
        games += summary.games;
        disagreements += summary.disagreements;
        for error in &summary.error_list {
            // "game N (White - Black): line L:C: ...", or "game N: ..." without players
            let known = KNOWN_FAILURES.iter().any(|(file, index, prefix)| {
                *file == name.trim_end_matches(".zst")
                    && (error.starts_with(&format!("game {index} "))
                        || error.starts_with(&format!("game {index}:")))
                    && error.contains(prefix)
            });
            if !known {
                unexpected.push(format!("{name} {error}"));
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
