//! Prints perft node counts: `cargo run --release -p arbiter-rules --example perft -- FEN DEPTH`.
use arbiter_rules::{FenOptions, Position, perft};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fen = args.get(1).map_or("startpos", String::as_str);
    let depth = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(5);
    let pos = Position::from_fen_with(
        fen,
        FenOptions {
            validation: arbiter_rules::Validation::PERFT_SUITE,
            ..FenOptions::default()
        },
    )
    .expect("valid FEN");
    let start = std::time::Instant::now();
    let nodes = perft(&pos, depth);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{nodes} nodes in {secs:.3}s = {:.1} Mnps",
        nodes as f64 / secs / 1e6
    );
}
