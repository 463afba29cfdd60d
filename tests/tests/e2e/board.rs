//! `arbiter board FEN`: one SVG board diagram on standard output (issue 14), and a clear error
//! for what is not a position or not a move.

use std::{process::Command, time::Duration};

use arbiter_e2e::{binary, command};

const TIMEOUT: Duration = Duration::from_secs(30);

fn board(args: &[&str]) -> std::process::Output {
    command::run(
        Command::new(binary::arbiter()).arg("board").args(args),
        TIMEOUT,
    )
}

#[test]
fn board_writes_one_svg_with_every_piece_and_the_marks() {
    // Fool's mate: White is checkmated, Black's queen came from d8.
    let fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let output = board(&[fen, "--last-move", "d8h4"]);
    assert!(output.status.success(), "{output:?}");
    let svg = String::from_utf8(output.stdout).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("class=\"piece ").count(), 32);
    assert_eq!(svg.matches("class=\"piece white king\"").count(), 1);
    assert_eq!(svg.matches("class=\"last-move\"").count(), 2);
    assert_eq!(svg.matches("class=\"check\"").count(), 1);
    assert!(svg.contains(&format!("<title>{fen}</title>")));
    // No image files or fonts for the pieces: nothing is fetched when the file is opened.
    // (`url(#squares)` is the board's own pattern, in the same file.)
    assert!(
        !svg.contains("<image") && !svg.replace("url(#", "").contains("url("),
        "{svg}"
    );
}

#[test]
fn board_refuses_a_bad_fen_with_2_and_a_bad_move_with_64() {
    let output = board(&["8/8/8/8 w - - 0 1"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("arbiter: invalid FEN: "), "{stderr}");
    assert!(output.stdout.is_empty());
    let output = board(&["startpos", "--last-move", "e2"]);
    assert_eq!(output.status.code(), Some(64), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("'e2' is not a move in UCI"), "{stderr}");
}
