//! Oracle check against python-chess 1.11.2: for about 3,000 positions (random playouts and the
//! first 200 games of the lichess May 2025 sample) the fixture `tests/data/oracle/positions.jsonl`
//! holds the legal moves in SAN and UCI, the Zobrist key (Polyglot layout, en passant only when a
//! capture is legal, FIDE Laws 9.2.3) and the status flags (check 3.9.1, checkmate 5.1.1,
//! stalemate 5.2.1, insufficient material 5.2.2). Every value must match exactly.
//!
//! The fixture is made by `tests/oracle/make_fixture.py` (see its docstring to regenerate).

use std::path::PathBuf;

use arbiter_rules::{Position, SanMode};

/// One line of the fixture (every field required, no other field allowed).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    fen: String,
    sans: Vec<String>,
    ucis: Vec<String>,
    key: String,
    check: bool,
    checkmate: bool,
    stalemate: bool,
    insufficient: bool,
}

fn load() -> Vec<Record> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/positions.jsonl");
    let text = std::fs::read_to_string(&path).expect("oracle fixture readable");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)))
        .collect()
}

/// Compares one record; returns the differences.
fn compare(rec: &Record) -> Vec<String> {
    let mut diffs = Vec::new();
    let pos = match Position::from_fen(&rec.fen) {
        Ok(p) => p,
        Err(e) => return vec![format!("rejected: {e}")],
    };
    if pos.to_fen() != rec.fen {
        diffs.push(format!("to_fen {}", pos.to_fen()));
    }
    let moves = pos.legal_moves();
    let mut sans: Vec<String> = moves.iter().map(|m| pos.san(m)).collect();
    sans.sort();
    if sans != rec.sans {
        diffs.push(format!("sans {sans:?} expected {:?}", rec.sans));
    }
    let mut ucis: Vec<String> = moves.iter().map(|m| pos.uci(m)).collect();
    ucis.sort();
    if ucis != rec.ucis {
        diffs.push(format!("ucis {ucis:?} expected {:?}", rec.ucis));
    }
    let key = format!("{:016x}", pos.zobrist());
    if key != rec.key {
        diffs.push(format!("key {key} expected {}", rec.key));
    }
    let flags = (
        pos.is_check(),
        pos.is_checkmate(),
        pos.is_stalemate(),
        pos.is_insufficient_material(),
    );
    let expected = (rec.check, rec.checkmate, rec.stalemate, rec.insufficient);
    if flags != expected {
        diffs.push(format!(
            "(check, checkmate, stalemate, insufficient) {flags:?} expected {expected:?}"
        ));
    }
    // The oracle's SAN strings must read back, strictly, as the move that writes them.
    for san in &rec.sans {
        match pos.parse_san(san, SanMode::Strict) {
            Ok(m) if pos.san(&m) == *san => {}
            Ok(m) => diffs.push(format!("{san} reads as {}", pos.san(&m))),
            Err(e) => diffs.push(format!("{san}: {e}")),
        }
    }
    for uci in &rec.ucis {
        match pos.parse_uci(uci) {
            Ok(m) if pos.uci(&m) == *uci => {}
            Ok(m) => diffs.push(format!("{uci} reads as {}", pos.uci(&m))),
            Err(e) => diffs.push(format!("{uci}: {e}")),
        }
    }
    diffs
}

#[test]
fn oracle_fixture_is_large_enough_and_covers_every_status() {
    let recs = load();
    assert!(recs.len() >= 3_000, "only {} positions", recs.len());
    assert!(recs.iter().any(|r| r.checkmate));
    assert!(recs.iter().any(|r| r.stalemate));
    assert!(recs.iter().any(|r| r.insufficient));
    assert!(recs.iter().any(|r| r.fen.split(' ').nth(3) != Some("-")));
    assert!(
        recs.iter()
            .any(|r| r.sans.iter().any(|s| s.starts_with("O-O")))
    );
    assert!(recs.iter().any(|r| r.sans.iter().any(|s| s.contains('='))));
}

#[test]
fn oracle_matches_python_chess_fide_3_and_5_and_9_2_3() {
    let recs = load();
    let mut failures = Vec::new();
    for (i, rec) in recs.iter().enumerate() {
        let diffs = compare(rec);
        if !diffs.is_empty() {
            failures.push(format!("line {} {}: {}", i + 1, rec.fen, diffs.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} positions differ:\n{}",
        failures.len(),
        recs.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
