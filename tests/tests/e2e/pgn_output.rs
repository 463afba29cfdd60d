//! Issue 28 item 7: `arbiter adjudicate --format pgn` keeps the Result tag and termination
//! marker a game declares and adds the verdict in `Arbiter*` tags; `--fix-result` writes the
//! adjudicated result instead, as pgn-extract's `--fixresulttags` does, and only with PGN output.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use arbiter_e2e::{binary, command, data_dir};

const CLI_TIMEOUT: Duration = Duration::from_secs(120);

fn cli(file: &Path, args: &[&str]) -> Output {
    command::run(
        Command::new(binary::arbiter())
            .arg("adjudicate")
            .arg(file)
            .args(args),
        CLI_TIMEOUT,
    )
}

/// The games of a PGN output, each as its text up to the next `[Event`.
fn games(output: &Output) -> Vec<String> {
    let text = String::from_utf8(output.stdout.clone()).expect("UTF-8");
    text.split("[Event ")
        .filter(|game| !game.is_empty())
        .map(|game| format!("[Event {game}"))
        .collect()
}

/// A game whose Result tag (1-0) the rules contradict (a stalemate, board 5.3 of the round):
/// its tag and marker are kept, the verdict is in its own tags; `--fix-result` writes 1/2-1/2.
/// The exit status is the round's (2: a disagreement, an error) either way.
#[test]
fn pgn_output_keeps_a_contradicted_result_and_fix_result_rewrites_it() {
    let round = data_dir().join("adjudicate/round.pgn");
    let kept = cli(&round, &["--format", "pgn", "--analysis", "fast"]);
    assert_eq!(kept.status.code(), Some(2));
    let kept = games(&kept);
    // Board 5.6 has an illegal move: it is written too, with its error (below).
    assert_eq!(kept.len(), 10);
    let stalemate = kept
        .iter()
        .find(|game| game.contains("[Round \"5.3\"]"))
        .expect("board 5.3");
    assert!(
        stalemate.contains(
            "[Result \"1-0\"]\n[ArbiterResult \"1/2-1/2\"]\n[ArbiterTermination \"stalemate\"]\n\
             [ArbiterArticle \"5.2.1\"]\n[ArbiterDisagreement \"the Result tag says 1-0, but the \
             rules say 1/2-1/2: stalemate at ply 1 (FIDE Laws 5.2.1)\"]\n"
        ) && stalemate.ends_with("\n\n1. Qf7 1-0\n\n"),
        "{stalemate}"
    );
    // Every game carries its verdict, or its error.
    assert!(kept.iter().all(|game| (game.contains("\n[ArbiterResult \"")
        && game.contains("\n[ArbiterTermination \""))
        != game.contains("\n[ArbiterError \"")));

    let fixed = cli(
        &round,
        &["--format", "pgn", "--analysis", "fast", "--fix-result"],
    );
    assert_eq!(fixed.status.code(), Some(2));
    let fixed = games(&fixed);
    assert_eq!(fixed.len(), 10);
    let stalemate = fixed
        .iter()
        .find(|game| game.contains("[Round \"5.3\"]"))
        .expect("board 5.3");
    assert!(
        stalemate.contains("[Result \"1/2-1/2\"]\n")
            && stalemate.ends_with("\n\n1. Qf7 1/2-1/2\n\n"),
        "{stalemate}"
    );
    assert!(
        fixed
            .iter()
            .all(|game| !game.contains("[Arbiter") || game.contains("[Round \"5.6\"]"))
    );
}

/// An unfinished game (`*`) keeps its `*` and gets `ArbiterResult "*"` and `ArbiterTermination
/// "ongoing"`, and no article; `--fix-result` keeps `*` too, as the rules do not end the game.
#[test]
fn an_unfinished_game_keeps_its_star_with_the_verdict_ongoing() {
    let dir = tempfile::tempdir().expect("scratch");
    let path = dir.path().join("unfinished.pgn");
    std::fs::write(
        &path,
        "[Event \"U\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n",
    )
    .expect("write");
    let kept = cli(&path, &["--format", "pgn"]);
    assert_eq!(kept.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(kept.stdout).expect("UTF-8"),
        "[Event \"U\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
         [Black \"?\"]\n[Result \"*\"]\n[ArbiterResult \"*\"]\n[ArbiterTermination \"ongoing\"]\n\n\
         1. e4 e5 2. Nf3 *\n\n"
    );
    let fixed = cli(&path, &["--format", "pgn", "--fix-result"]);
    assert_eq!(
        String::from_utf8(fixed.stdout).expect("UTF-8"),
        "[Event \"U\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
         [Black \"?\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n"
    );
}

/// `--fix-result` rewrites PGN output only: with another format it is a usage error (64) that
/// says so, before any game is read.
#[test]
fn fix_result_without_pgn_output_is_a_usage_error() {
    let round = data_dir().join("adjudicate/round.pgn");
    let output = cli(&round, &["--format", "jsonl", "--fix-result"]);
    assert_eq!(output.status.code(), Some(64));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8(output.stderr).expect("UTF-8"),
        "arbiter: --fix-result rewrites the Result tags of --format pgn, not of --format jsonl\n"
    );
}

/// A fresh user's finding on issue 28: `--format pgn` left a game that could not be adjudicated
/// out of the output, so the written round had nine of its ten games. Every game is written: a
/// refused move's game with the moves before it and the refused move and those after it as
/// read (read again, the same refusal at the same ply), a bad `FEN` tag's game as its tag
/// section, text that is not PGN with the moves read before it; each with `ArbiterError`
/// (`line:column` and why), the declared result kept, `--fix-result` or not.
#[test]
fn pgn_output_writes_a_game_with_an_error_and_the_error() {
    let round = data_dir().join("adjudicate/round.pgn");
    for args in [
        &["--format", "pgn", "--analysis", "fast"][..],
        &["--format", "pgn", "--analysis", "fast", "--fix-result"],
    ] {
        let written = cli(&round, args);
        let karpov = games(&written)
            .into_iter()
            .find(|game| game.contains("[Round \"5.6\"]"))
            .expect("board 5.6 is written");
        assert!(
            karpov.contains("[Result \"1-0\"]\n[ArbiterError \"line 64:47: ply 9 (Ke3): no white king can move to e3; ply 9 and those after it are written as read\"]\n")
                && karpov.ends_with("\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. Ke3 1-0\n\n"),
            "{args:?}: {karpov}"
        );
    }
    // Read again, the written round gives the error again, never a verdict (a second fresh
    // user's finding: a game cut after a syntax error came back as a resignation), and written
    // again it is the same, byte for byte.
    let dir = tempfile::tempdir().expect("scratch");
    let first = cli(&round, &["--format", "pgn", "--analysis", "fast"]).stdout;
    let again = dir.path().join("again.pgn");
    std::fs::write(&again, &first).expect("write");
    let summary =
        String::from_utf8(cli(&again, &["--format", "jsonl", "--analysis", "fast"]).stderr)
            .expect("UTF-8");
    assert!(
        summary.contains("; 1 error; ") && summary.contains("\nerror: game 5.6 (Karpov, K. - Leko, L.): line 81:1: the game carries an ArbiterError tag: an earlier run could not adjudicate it (line 64:47: ply 9 (Ke3): no white king can move to e3; ply 9 and those after it are written as read) and its movetext may be cut there; correct the game and remove the tag\n"),
        "{summary}"
    );
    assert_eq!(
        String::from_utf8(cli(&again, &["--format", "pgn", "--analysis", "fast"]).stdout)
            .expect("UTF-8"),
        String::from_utf8(first).expect("UTF-8")
    );
    let cut = dir.path().join("cut.pgn");
    std::fs::write(
        &cut,
        "[Event \"A\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 ) Nc6 3. Bb5 a6 0-1\n",
    )
    .expect("write");
    let cut_again = dir.path().join("cut-again.pgn");
    std::fs::write(&cut_again, cli(&cut, &["--format", "pgn"]).stdout).expect("write");
    let output = cli(&cut_again, &["--format", "jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    let record: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    assert_eq!(
        record["error"]["description"],
        "line 8:1: the game carries an ArbiterError tag: an earlier run could not adjudicate it (line 4:17: ')' closes no variation (PGN standard 8.2.5); line 4 skipped to the end of the game) and its movetext may be cut there; correct the game and remove the tag"
    );
    let path = dir.path().join("errors.pgn");
    std::fs::write(
        &path,
        "[Event \"x\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
         [Event \"y\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 {unclosed [x \"y\"] 2... Nc6 0-1\n",
    )
    .expect("write");
    let written = games(&cli(&path, &["--format", "pgn"]));
    assert_eq!(
        written,
        [
            "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
             [Black \"?\"]\n[Result \"1-0\"]\n[ArbiterError \"line 2:1: bad FEN tag: White has 0 \
             kings, expected exactly one; no movetext written\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1-0\n\n",
            "[Event \"y\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
             [Black \"?\"]\n[Result \"0-1\"]\n[ArbiterError \"line 10:17: unterminated comment: '{' \
             without '}' (PGN standard 8.2.5); line 10 skipped to the end of the game\"]\n\n\
             1. e4 e5 2. Nf3 0-1\n\n",
        ]
    );
}
