//! Cost of arbiter's flag-fall verdict against chasolver alone answering the same question
//! (issue 13's winnability targets): for each position of a set, White's or Black's flag falls
//! (the side to move's), and the verdict needs "can the opponent still checkmate?" (FIDE Laws
//! 6.9) and whether the position was already dead (5.2.2).
//!
//! ```text
//! cargo run --release -p arbiter-rules --example winnability -- FILE LEVEL [ROUNDS] [LIMIT]
//! ```
//!
//! `FILE` is a position file of `../shared/data/unwinnable` (either format: `<label> <FEN>` or
//! `<FEN> <game id>`), `LEVEL` is `fast` or `full`, `ROUNDS` defaults to 3, `LIMIT` (default
//! all) keeps every n-th position so that at most that many are timed.
//!
//! Each position is answered both ways, one after the other, alternating which goes first:
//! - **arbiter**: a [`Game`] from the position with the dead-position analysis at `LEVEL`, then
//!   [`adjudicate`] with the flag fall, then the evidence line written in SAN (as every output
//!   of arbiter writes it, with `Position::san_after`);
//! - **chasolver alone**: `chasolver::winnability` (`full`) or `chasolver::is_unwinnable_fast`
//!   (`fast`) for the opponent, on a board parsed beforehand.
//!
//! Parsing is outside the timing on both sides. Prints the time of each side per round, the
//! ratio chasolver ÷ arbiter (1.0: as fast; the target is 0.85), the median over the rounds,
//! and checks every evidence line (a legal series ending in the opponent's checkmate) and that
//! both sides agree where chasolver decided.

use std::str::FromStr;
use std::time::{Duration, Instant};

use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, FenOptions, Game, GameEvent, GameResult,
    Position, Validation, adjudicate,
};

struct Case {
    position: Position,
    board: chess::Board,
}

fn read(path: &str, limit: usize) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .collect();
    let step = lines.len().div_ceil(limit.max(1)).max(1);
    let mut cases = Vec::new();
    for line in lines.iter().step_by(step) {
        let mut fields: Vec<&str> = line.split_whitespace().collect();
        // `<label> <FEN of 4 or 6 fields>` or `<6-field FEN> <game id>`.
        if fields.first().is_some_and(|label| {
            let label = label.as_bytes();
            label.len() == 2 && matches!(label[0], b'W' | b'-') && matches!(label[1], b'B' | b'-')
        }) {
            fields.remove(0);
        }
        let fen = match fields.len() {
            4 => format!("{} 0 1", fields.join(" ")),
            6.. => fields[..6].join(" "),
            _ => continue,
        };
        let options = FenOptions {
            mode: CastlingMode::Standard,
            validation: Validation::STRICT,
        };
        let (Ok(position), Ok(board)) = (
            Position::from_fen_with(&fen, options),
            chess::Board::from_str(&fen),
        ) else {
            continue; // the few illegal positions the data's README names
        };
        if position.is_checkmate() || position.is_stalemate() {
            continue;
        }
        cases.push(Case { position, board });
    }
    cases
}

/// What arbiter answered: the opponent wins (and its evidence line was checked), or a draw.
fn arbiter(case: &Case, budget: AnalysisBudget) -> Option<bool> {
    let side = case.position.side_to_move();
    let game = Game::with_dead_position_analysis(case.position.clone(), budget);
    let verdict = adjudicate(
        &game,
        &AdjudicationRequest {
            event: Some(GameEvent::FlagFall(side)),
            claim_draw: false,
            budget,
        },
    );
    let mut position = game.position().clone();
    let mut san = String::new();
    for mv in &verdict.evidence {
        // As the wire conversion writes each move: played once, its SAN from both positions.
        let after = position.play(mv);
        san.push_str(&position.san_after(mv, &after));
        san.push(' ');
        position = after;
    }
    if !verdict.evidence.is_empty() {
        assert!(
            position.is_checkmate() && position.side_to_move() == side,
            "evidence is not the opponent's mate: {san}"
        );
    }
    std::hint::black_box(san);
    let outcome = verdict.outcome?;
    if verdict.undetermined {
        return None;
    }
    Some(outcome.result != GameResult::Draw)
}

/// What chasolver alone answered: the opponent can mate, or cannot (`None`: undecided).
fn chasolver_alone(case: &Case, budget: AnalysisBudget) -> Option<bool> {
    let opponent = match case.position.side_to_move() {
        arbiter_rules::Color::White => chess::Color::Black,
        arbiter_rules::Color::Black => chess::Color::White,
    };
    if budget == AnalysisBudget::Fast {
        return chasolver::is_unwinnable_fast(&case.board, opponent).then_some(false);
    }
    match chasolver::winnability(&case.board, opponent)? {
        chasolver::Winnability::Winnable { .. } => Some(true),
        chasolver::Winnability::Unwinnable => Some(false),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: winnability FILE fast|full [ROUNDS] [LIMIT]";
    let path = args.first().expect(usage);
    let budget = match args.get(1).map(String::as_str) {
        Some("fast") => AnalysisBudget::Fast,
        Some("full") => AnalysisBudget::Full,
        _ => panic!("{usage}"),
    };
    let rounds: usize = args.get(2).map_or(3, |n| n.parse().expect(usage));
    let limit: usize = args.get(3).map_or(usize::MAX, |n| n.parse().expect(usage));
    let cases = read(path, limit);
    println!(
        "{path}: {} positions, flag fall of the side to move, level {}",
        cases.len(),
        budget.name()
    );
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let (mut ours, mut theirs) = (Duration::ZERO, Duration::ZERO);
        let (mut disagreements, mut decided) = (0usize, 0usize);
        for (index, case) in cases.iter().enumerate() {
            let time = |first: bool| {
                let started = Instant::now();
                let answer = if first {
                    arbiter(case, budget)
                } else {
                    chasolver_alone(case, budget)
                };
                (answer, started.elapsed())
            };
            let ((a, a_time), (c, c_time)) = if index % 2 == 0 {
                let a = time(true);
                (a, time(false))
            } else {
                let c = time(false);
                (time(true), c)
            };
            ours += a_time;
            theirs += c_time;
            if let (Some(a), Some(c)) = (a, c) {
                decided += 1;
                // A dead position is a draw too: arbiter's "draw" never contradicts
                // chasolver's "cannot mate", and "the opponent wins" needs "can mate".
                disagreements += usize::from(a != c);
            }
        }
        let ratio = theirs.as_secs_f64() / ours.as_secs_f64();
        ratios.push(ratio);
        println!(
            "round {}: arbiter {:.3} s, chasolver alone {:.3} s, ratio {ratio:.3}; \
             {decided} decided by both, {disagreements} disagreements",
            round + 1,
            ours.as_secs_f64(),
            theirs.as_secs_f64()
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "median ratio (chasolver alone ÷ arbiter; 1.0 = as fast): {:.3} (spread {:.3}-{:.3})",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
}
