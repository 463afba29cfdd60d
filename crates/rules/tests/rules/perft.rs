//! Perft suites: exact node counts for every position of `tests/data/perft/*.epd`.
//!
//! Each position runs every listed depth whose node count is at most `ARBITER_PERFT_MAX_NODES`
//! (default 20,000,000), so the suite stays within the CI budget in release mode; raise the
//! variable to run the deep depths (D6 and up are billions of nodes).

use std::path::PathBuf;

use arbiter_rules::{CastlingMode, FenOptions, Position, perft};

struct Case {
    file: &'static str,
    line: usize,
    fen: String,
    depths: Vec<(u32, u64)>,
}

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/perft")
}

fn load(file: &'static str) -> Vec<Case> {
    let text = std::fs::read_to_string(data_dir().join(file)).expect("perft fixture readable");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or_default().trim().to_string();
            let depths = parts
                .map(|p| {
                    let mut it = p.trim().trim_start_matches('D').split_whitespace();
                    let d = it.next().and_then(|d| d.parse().ok()).expect("depth");
                    let n = it.next().and_then(|n| n.parse().ok()).expect("nodes");
                    (d, n)
                })
                .collect();
            Case {
                file,
                line: i + 1,
                fen,
                depths,
            }
        })
        .collect()
}

/// The lines the strict FEN reader must reject (impossible positions, see SOURCES.md): the ones
/// the data set names, plus three double checks by two pawns, pawn and knight, or two knights
/// (named.epd 40 and 41, chess960-extra.epd 19): in a double check one checker is discovered, and
/// only a bishop, rook or queen can be discovered.
fn impossible(file: &str, line: usize) -> bool {
    match file {
        "standard.epd" => line == 51,
        "named.epd" => (34..=41).contains(&line) || line == 43,
        "chess960-extra.epd" => line == 19,
        _ => false,
    }
}

fn max_nodes() -> u64 {
    std::env::var("ARBITER_PERFT_MAX_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000_000)
}

fn check_case(case: &Case, mode: CastlingMode, limit: u64) -> Vec<String> {
    let mut failures = Vec::new();
    let strict = Position::from_fen_with(
        &case.fen,
        FenOptions {
            mode,
            validation: arbiter_rules::Validation::STRICT,
        },
    );
    if strict.is_ok() == impossible(case.file, case.line) {
        failures.push(format!(
            "{}:{}: strict reader gave {:?} ({})",
            case.file,
            case.line,
            strict.err(),
            case.fen
        ));
    }
    let pos = match Position::from_fen_with(
        &case.fen,
        FenOptions {
            mode,
            validation: arbiter_rules::Validation::PERFT_SUITE,
        },
    ) {
        Ok(pos) => pos,
        Err(e) => {
            failures.push(format!("{}:{}: {e}", case.file, case.line));
            return failures;
        }
    };
    for &(depth, expected) in &case.depths {
        if expected > limit && depth > 1 {
            continue;
        }
        let got = perft(&pos, depth);
        if got != expected {
            failures.push(format!(
                "{}:{} D{depth}: expected {expected}, got {got} ({})",
                case.file, case.line, case.fen
            ));
        }
    }
    failures
}

fn run_suite(file: &'static str, mode: CastlingMode) {
    let cases = load(file);
    assert!(!cases.is_empty());
    let limit = max_nodes();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = cases.len().div_ceil(threads);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .flat_map(|case| check_case(case, mode, limit))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("perft thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn perft_standard_suite() {
    run_suite("standard.epd", CastlingMode::Standard);
}

#[test]
fn perft_named_positions() {
    run_suite("named.epd", CastlingMode::Standard);
}

#[test]
fn perft_chess960_suite() {
    run_suite("chess960.epd", CastlingMode::Chess960);
}

#[test]
fn perft_chess960_edge_cases() {
    run_suite("chess960-extra.epd", CastlingMode::Chess960);
}
