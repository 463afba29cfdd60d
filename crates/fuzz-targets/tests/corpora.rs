//! Replays every saved input of every fuzz target (`fuzz/corpus/<target>/`) through its
//! function: what the fuzzer found once stays fixed, without a fuzzer installed. A corpus
//! directory that is missing or empty fails the test (it never passes on nothing).

use std::path::{Path, PathBuf};
use std::time::Instant;

use arbiter_fuzz_targets::TARGETS;

fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name)
}

/// Runs every file of the target's corpus, naming the file that panics.
fn replay(name: &str) {
    let target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no target {name}"))
        .1;
    let dir = corpus_dir(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus directory {} cannot be read: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "corpus directory {} holds no input",
        dir.display()
    );
    let started = Instant::now();
    for file in &files {
        let data = std::fs::read(file).expect("a corpus file reads");
        let outcome = std::panic::catch_unwind(|| target(&data));
        assert!(
            outcome.is_ok(),
            "{name}: {} panicked (reproduce with `cargo test --release -p arbiter-fuzz-targets --test corpora {name}`)",
            file.display()
        );
    }
    println!(
        "{name}: {} inputs replayed in {:.2?}",
        files.len(),
        started.elapsed()
    );
}

#[test]
fn every_target_has_a_corpus_and_a_test() {
    let tested = [
        "fen",
        "san",
        "uci",
        "pgn_read",
        "pgn_adjudicate",
        "pgn_adjudicate_full",
        "rpc",
        "rpc_full",
    ];
    let names: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, tested, "a target without a replay test below");
}

#[test]
fn fen() {
    replay("fen");
}

#[test]
fn san() {
    replay("san");
}

#[test]
fn uci() {
    replay("uci");
}

#[test]
fn pgn_read() {
    replay("pgn_read");
}

#[test]
fn pgn_adjudicate() {
    replay("pgn_adjudicate");
}

#[test]
fn pgn_adjudicate_full() {
    replay("pgn_adjudicate_full");
}

#[test]
fn rpc() {
    replay("rpc");
}

#[test]
fn rpc_full() {
    replay("rpc_full");
}
