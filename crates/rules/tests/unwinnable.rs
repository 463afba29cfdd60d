//! "Can this side still checkmate?" against labelled positions (FIDE Laws 5.2.2, 6.9).
//!
//! Soundness is absolute: never "cannot mate" where the label says the side can. Every decided
//! answer must agree with the label; undecided answers are counted and reported.

use std::path::PathBuf;

use arbiter_rules::{AnalysisBudget, Color, FenOptions, Position, Winnability, winnability};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    agree: usize,
    undetermined: usize,
    unsound: Vec<String>,
    wrong: Vec<String>,
}

fn check_file(path: &PathBuf, budget: AnalysisBudget, skip_lines: &[usize], limit: usize) -> Tally {
    let text = std::fs::read_to_string(path).expect("fixture readable");
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            !l.starts_with('#') && !l.trim().is_empty() && !skip_lines.contains(&(i + 1))
        })
        .take(limit)
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = lines
            .chunks(lines.len().div_ceil(threads).max(1))
            .map(|chunk| s.spawn(move || check_lines(chunk, budget)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    let mut tally = Tally::default();
    for p in parts {
        tally.positions += p.positions;
        tally.agree += p.agree;
        tally.undetermined += p.undetermined;
        tally.unsound.extend(p.unsound);
        tally.wrong.extend(p.wrong);
    }
    tally
}

fn check_lines(lines: &[(usize, &str)], budget: AnalysisBudget) -> Tally {
    let mut tally = Tally::default();
    for &(i, line) in lines {
        let (label, fen) = line.split_at(2);
        let options = FenOptions {
            permissive: true,
            ..FenOptions::default()
        };
        let Ok(pos) = Position::from_fen_with(fen.trim(), options) else {
            continue;
        };
        tally.positions += 1;
        for (color, can) in [
            (Color::White, label.as_bytes()[0] == b'W'),
            (Color::Black, label.as_bytes()[1] == b'B'),
        ] {
            match winnability(&pos, color, budget) {
                Winnability::CanMate { .. } if can => tally.agree += 1,
                Winnability::CannotMate { .. } if !can => tally.agree += 1,
                Winnability::Undetermined => tally.undetermined += 1,
                Winnability::CannotMate { reason } => {
                    tally.unsound.push(format!(
                        "line {}: {color} can mate: {fen} ({reason})",
                        i + 1
                    ));
                }
                Winnability::CanMate { .. } => {
                    tally
                        .wrong
                        .push(format!("line {}: {color} cannot mate: {fen}", i + 1));
                }
            }
        }
    }
    tally
}

#[test]
fn chasolver_positions_sound_and_agreeing_fide_5_2_2() {
    let path = repo().join("tests/data/unwinnable/chasolver-positions.txt");
    let limit = std::env::var("ARBITER_UNWINNABLE_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let tally = check_file(&path, AnalysisBudget::Full, &[1090, 1093, 2053], limit);
    eprintln!(
        "chasolver-positions: {} positions, {} answers agree, {} undetermined",
        tally.positions, tally.agree, tally.undetermined
    );
    assert!(
        tally.unsound.is_empty(),
        "unsound answers:\n{}",
        tally.unsound.join("\n")
    );
    assert!(
        tally.wrong.is_empty(),
        "wrong answers:\n{}",
        tally.wrong.join("\n")
    );
    if limit == usize::MAX {
        assert_eq!(tally.positions, 3411);
    }
}
