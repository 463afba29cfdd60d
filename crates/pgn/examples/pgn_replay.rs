//! Reads and replays every game of the PGN files given as arguments and prints games per second.
//!
//! `cargo run --release -p arbiter-pgn --example pgn_replay -- FILE.pgn... [--read-only] [--fast]`
//! (`--read-only`: parse without replaying; `--fast`: replay without repetition and ending
//! bookkeeping). Errors are printed with their file, game and `line:column`.

use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

use arbiter_pgn::{RawGame, Reader, ReplayOptions, replay, replay_moves};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let read_only = args.iter().any(|a| a == "--read-only");
    let fast = args.iter().any(|a| a == "--fast");
    let options = ReplayOptions::default();
    let (mut games, mut plies, mut errors, mut bytes) = (0usize, 0usize, 0usize, 0u64);
    let started = Instant::now();
    let mut moves = Vec::new();
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let file = File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        bytes += file.metadata().map_or(0, |m| m.len());
        let mut reader = Reader::new(BufReader::with_capacity(1 << 16, file));
        let mut raw = RawGame::default();
        loop {
            match reader.read_game(&mut raw) {
                Ok(false) => break,
                Ok(true) => {
                    games += 1;
                    if raw.tags.is_empty() {
                        eprintln!(
                            "{path}: game {} at line {} has no tags",
                            raw.index, raw.line
                        );
                    }
                    if read_only {
                        plies += raw.moves.len();
                        continue;
                    }
                    let replayed = if fast {
                        replay_moves(&raw, &options, &mut moves).map(|_| moves.len())
                    } else {
                        replay(&raw, &options).map(|g| g.game.ply())
                    };
                    match replayed {
                        Ok(n) => plies += n,
                        Err(e) => {
                            errors += 1;
                            eprintln!("{path}: game {}: {e}", e.game);
                        }
                    }
                }
                Err(e) => {
                    games += 1;
                    errors += 1;
                    eprintln!("{path}: game {}: {e}", e.game);
                }
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{games} games, {plies} plies, {errors} errors in {secs:.3}s: {:.0} games/s, {:.1} Mplies/s, {:.1} MB/s",
        games as f64 / secs,
        plies as f64 / secs / 1e6,
        bytes as f64 / secs / 1e6
    );
}
