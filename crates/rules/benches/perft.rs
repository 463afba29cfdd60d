//! Perft throughput of arbiter-rules against cozy-chess 0.3, measured in the same run.
//!
//! Both sides run the same algorithm: a recursive perft over legal moves that counts the
//! moves at the last ply instead of playing them (bulk counting). The positions are the
//! chessprogramming wiki's perft positions from `tests/data/perft/named.epd`; before timing,
//! each side's node count is checked against the fixture.
//!
//! Run: `cargo bench -p arbiter-rules --bench perft` (or `scripts/bench-perft.sh` for a
//! table). Criterion's own options follow `--`, e.g. `-- --measurement-time 5 startpos`.
//!
//! With `PERFT_BENCH_CPU_TIME=1` the bench measures the benchmarking thread's CPU time (from
//! `/proc/thread-self/schedstat`, Linux only) instead of wall-clock time, so that time spent
//! descheduled on a busy machine does not count; cache and memory contention still do.

use std::hint::black_box;
use std::time::Duration;

use arbiter_rules::{FenOptions, Position, perft};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};

/// The fixture, relative to this crate.
const EPD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft/named.epd"
);

/// (label, line of `named.epd` counted from 1, depth): depths give about 2-16 M nodes each.
const CASES: &[(&str, usize, u32)] = &[
    ("pos1-startpos", 1, 5),
    ("pos2-kiwipete", 2, 4),
    ("pos3", 3, 6),
    ("pos4", 4, 5),
    ("pos4-mirrored", 5, 5),
    ("pos5", 6, 4),
    ("pos6", 7, 4),
];

/// One EPD line's FEN and the expected node count at `depth`.
fn fixture(line: usize, depth: u32) -> (String, u64) {
    let text = std::fs::read_to_string(EPD).unwrap_or_else(|e| panic!("read {EPD}: {e}"));
    let row = text
        .lines()
        .nth(line - 1)
        .unwrap_or_else(|| panic!("{EPD} has no line {line}"));
    let mut fields = row.split(';');
    let fen = fields.next().unwrap_or_default().trim().to_owned();
    let key = format!("D{depth}");
    let nodes = fields
        .filter_map(|f| f.trim().split_once(' '))
        .find(|(d, _)| *d == key)
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{EPD} line {line} has no {key}"));
    (fen, nodes)
}

/// Perft with cozy-chess, written like arbiter's: legal moves, bulk count at depth 1.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => nodes = 1,
        1 => {
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
        }
        _ => {
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += cozy_perft(&child, depth - 1);
                }
                false
            });
        }
    }
    nodes
}

fn bench_perft<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("perft");
    // One iteration takes tens to hundreds of milliseconds: time whole iterations.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    for &(label, line, depth) in CASES {
        let (fen, expected) = fixture(line, depth);
        let options = FenOptions {
            validation: arbiter_rules::Validation::PERFT_SUITE,
            ..FenOptions::default()
        };
        let ours = Position::from_fen_with(&fen, options).expect("arbiter reads the FEN");
        let theirs = cozy_chess::Board::from_fen(&fen, false).expect("cozy-chess reads the FEN");
        assert_eq!(
            perft(&ours, depth),
            expected,
            "arbiter perft {label} D{depth}"
        );
        assert_eq!(
            cozy_perft(&theirs, depth),
            expected,
            "cozy-chess perft {label} D{depth}"
        );

        let id = format!("{label}-d{depth}");
        group.throughput(Throughput::Elements(expected));
        group.bench_with_input(BenchmarkId::new("arbiter", &id), &ours, |b, pos| {
            b.iter(|| perft(black_box(pos), black_box(depth)));
        });
        group.bench_with_input(BenchmarkId::new("cozy-chess", &id), &theirs, |b, board| {
            b.iter(|| cozy_perft(black_box(board), black_box(depth)));
        });
    }
    group.finish();
}

/// CPU time of the current thread in nanoseconds, as a criterion measurement.
struct ThreadCpuTime;

impl ThreadCpuTime {
    fn now_ns() -> u64 {
        // First field: time spent on the CPU, in nanoseconds.
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .expect("/proc/thread-self/schedstat is readable (Linux)")
    }
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        Self::now_ns()
    }
    fn end(&self, start: u64) -> u64 {
        Self::now_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, like wall-clock time: reuse criterion's duration formatting.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

fn main() {
    let defaults = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    if std::env::var_os("PERFT_BENCH_CPU_TIME").is_some_and(|v| !v.is_empty() && v != "0") {
        let mut c = defaults
            .with_measurement(ThreadCpuTime)
            .configure_from_args();
        bench_perft(&mut c);
        c.final_summary();
    } else {
        let mut c = defaults.configure_from_args();
        bench_perft(&mut c);
        c.final_summary();
    }
}
