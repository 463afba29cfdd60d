//! Real games: every game of the committed fixtures replays (exact counts), and an opt-in run over
//! a large corpus directory with a summary of what was found.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Instant;

use arbiter_pgn::{PgnError, RawGame, Reader, ReaderLimits, ReplayOptions, Splitter, replay};

/// What one file gave.
#[derive(Default, Debug)]
struct Tally {
    games: usize,
    plies: usize,
    /// (game index, error text) of every game that failed to read or replay.
    errors: Vec<(usize, String)>,
    /// Error counts by kind.
    kinds: BTreeMap<&'static str, usize>,
}

fn tally<R: BufRead>(input: R) -> Tally {
    let mut t = Tally::default();
    let mut reader = Reader::new(input);
    let mut raw = RawGame::default();
    let options = ReplayOptions::default();
    loop {
        match reader.read_game(&mut raw) {
            Ok(false) => break,
            Ok(true) => {
                t.games += 1;
                match replay(&raw, &options) {
                    Ok(game) => t.plies += game.game.ply(),
                    Err(e) => {
                        *t.kinds.entry(e.kind.name()).or_default() += 1;
                        t.errors.push((e.game, e.to_string()));
                    }
                }
            }
            Err(e) => {
                t.games += 1;
                *t.kinds.entry(e.kind.name()).or_default() += 1;
                t.errors.push((e.game, e.to_string()));
            }
        }
    }
    t
}

/// Each game, warning and error of `input` as text, the game numbers those of the whole input.
fn read_whole<R: BufRead>(input: R) -> Vec<String> {
    Reader::new(input).map(|item| format!("{item:?}")).collect()
}

/// [`read_whole`], reading the chunks a [`Splitter`] cuts at `target` bytes, each on its own,
/// and the number of chunks.
fn read_by_chunks<R: BufRead>(input: R, target: usize) -> (Vec<String>, usize) {
    let limits = ReaderLimits::default();
    let mut splitter = Splitter::new(input, &limits, target);
    let mut items = Vec::new();
    let mut chunks = 0;
    let renumbered = |base: usize, item: Result<RawGame, PgnError>| {
        let item = item
            .map(|mut game| {
                game.index += base;
                game
            })
            .map_err(|mut error| {
                error.game += base;
                error
            });
        format!("{item:?}")
    };
    while let Some(chunk) = splitter.next_chunk(Vec::new()) {
        chunks += 1;
        let base = items.len();
        items.extend(Reader::of_chunk(&chunk, limits).map(|item| renumbered(base, item)));
    }
    if let Some((first_line, rest)) = splitter.into_rest() {
        let base = items.len();
        let reader = Reader::with_limits(rest, limits).starting_at_line(first_line);
        items.extend(reader.map(|item| renumbered(base, item)));
    }
    (items, chunks)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pgn_files(dir: &Path, with_zst: bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".pgn") || (with_zst && name.ends_with(".pgn.zst"))
        })
        .collect();
    files.sort();
    files
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

/// The committed lichess fixtures (CC0): exact game counts, every game replays, and is read
/// alike by chunks.
#[test]
fn fixtures_replay_without_error() {
    let dir = repo_root().join("tests/data/games");
    let expected: BTreeMap<&str, usize> = [
        ("lichess-2016-05-first-1000.pgn", 1000),
        ("lichess-2025-05-sample.pgn", 438),
    ]
    .into_iter()
    .collect();
    let files = pgn_files(&dir, false);
    let mut seen = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let t = tally(open(&path));
        assert!(t.errors.is_empty(), "{name}: {:?}", t.errors);
        if let Some(&count) = expected.get(name.as_str()) {
            assert_eq!(t.games, count, "{name}");
            seen += 1;
        }
        assert!(t.plies > 0, "{name}");
        // Read by chunks (as `arbiter adjudicate -j 2` reads), every game is read alike.
        let (chunked, chunks) = read_by_chunks(open(&path), 4096);
        assert!(chunks > 10, "{name}: {chunks} chunks");
        assert!(
            chunked == read_whole(open(&path)),
            "{name}: chunks read otherwise"
        );
        // The replay's SAN fast path finds exactly the moves the rules crate's parser finds.
        for raw in Reader::new(open(&path)) {
            let raw = raw.unwrap();
            let fast = replay(&raw, &ReplayOptions::default()).unwrap();
            let mut game = arbiter_rules::Game::new(fast.game.start().clone());
            for token in &raw.moves {
                game.push(&token.text).unwrap();
            }
            assert_eq!(fast.game.moves(), game.moves(), "{name} game {}", raw.index);
        }
    }
    assert_eq!(
        seen,
        expected.len(),
        "fixture files missing in {}",
        dir.display()
    );
}

// The list is shared with the adjudication corpus test of arbiter-server.
include!("common/known_failures.rs");

/// Every game of `$ARBITER_CORPUS_DIR` (default `../shared/data/games` beside the
/// repository; `.pgn` and `.pgn.zst` files) replays, except the games in [`KNOWN_FAILURES`],
/// and is read alike by chunks.
/// Ignored unless asked for (`make test` runs it when the directory is there, and says so
/// when it is not); fails when asked for without the data.
#[test]
#[ignore = "needs ARBITER_CORPUS_DIR (the shared game corpus); make test runs it when present"]
fn shared_corpus_replays() {
    let dir = std::env::var_os("ARBITER_CORPUS_DIR")
        .map_or_else(|| repo_root().join("../shared/data/games"), PathBuf::from);
    assert!(
        dir.is_dir(),
        "{}: not found (set ARBITER_CORPUS_DIR to the shared game corpus)",
        dir.display()
    );
    let started = Instant::now();
    let (mut files, mut games, mut plies) = (0, 0, 0);
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unexpected = Vec::new();
    for path in pgn_files(&dir, true) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file_started = Instant::now();
        let t = tally(open(&path));
        let (chunked, chunks) = read_by_chunks(open(&path), 16 * 1024);
        assert!(
            chunked == read_whole(open(&path)),
            "{name}: chunks read otherwise"
        );
        println!("{name}: {chunks} chunks read as the whole file");
        println!(
            "{name}: {} games, {} plies, {} errors, {:.2}s",
            t.games,
            t.plies,
            t.errors.len(),
            file_started.elapsed().as_secs_f64()
        );
        files += 1;
        games += t.games;
        plies += t.plies;
        for (kind, n) in &t.kinds {
            *kinds.entry(kind).or_default() += n;
        }
        for (index, error) in &t.errors {
            println!("  game {index}: {error}");
            let known = KNOWN_FAILURES
                .iter()
                .any(|(file, i, prefix)| *file == name && i == index && error.starts_with(prefix));
            if !known {
                unexpected.push(format!("{name} game {index}: {error}"));
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "summary: {files} files, {games} games, {plies} plies, {} errors {kinds:?}, {secs:.2}s, {:.0} games/s",
        kinds.values().sum::<usize>(),
        games as f64 / secs
    );
    assert!(
        unexpected.is_empty(),
        "unexpected errors:\n{}",
        unexpected.join("\n")
    );
}
