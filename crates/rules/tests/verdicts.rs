//! Verdicts an arbiter can sign (issue 11, items 1 and 2): "can the opponent still checkmate?"
//! reads the analyzer's lines in the game's own castling notation, respects the game's own
//! endings (75-move rule, fivefold repetition, stalemate, dead position), and a dead position
//! ends the game at the ply it arises, whatever is recorded after it.

use arbiter_rules::Color::White;
use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, FenOptions, Game, GameEvent, GameResult,
    Position, Termination, Verdict, adjudicate,
};

fn position(fen: &str, mode: CastlingMode) -> Position {
    Position::from_fen_with(
        fen,
        FenOptions {
            mode,
            permissive: false,
        },
    )
    .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The game from `fen` with `moves` (UCI or SAN), dead positions looked for with `budget`.
fn game(fen: &str, mode: CastlingMode, moves: &[&str], budget: AnalysisBudget) -> Game {
    let mut g = Game::with_dead_position_analysis(position(fen, mode), budget);
    for m in moves {
        g.push(m).unwrap_or_else(|e| panic!("{e}"));
    }
    g
}

fn verdict(g: &Game, event: Option<GameEvent>, budget: AnalysisBudget) -> Verdict {
    adjudicate(
        g,
        &AdjudicationRequest {
            event,
            claim_draw: false,
            budget,
        },
    )
}

/// The SAN of the evidence line, played from the game's final position.
fn evidence_san(g: &Game, v: &Verdict) -> Vec<String> {
    let mut p = g.position().clone();
    v.evidence
        .iter()
        .map(|m| {
            let san = p.san(m);
            p = p.play(m);
            san
        })
        .collect()
}

/// Chess960 (FIDE Laws, Guidelines III / 5.1.2): White resigns in a position where Black's
/// mating line starts with White castling queenside. The analyzer writes that castling the
/// standard way (`e1c1`); arbiter's Chess960 notation is king-takes-rook (`e1a1`). The line
/// must be read back, not dropped as "undetermined" (chess960-chesscom-daily-2011-2013.pgn, game
/// 193). The resignation stands as a loss with the mating line as evidence (FIDE Laws 5.1.2).
#[test]
fn chess960_resignation_reads_analyzer_castling_e1c1_as_king_takes_rook() {
    let fen = "rq1n4/7p/1p1p1k1b/1BpQpp2/2P5/5P2/PP1P1BrP/R3K2R w KQ - 2 17";
    let g = game(fen, CastlingMode::Chess960, &[], AnalysisBudget::Full);
    let v = verdict(
        &g,
        Some(GameEvent::Resignation(White)),
        AnalysisBudget::Full,
    );
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::BlackWins);
    assert_eq!(o.termination, Termination::Resignation);
    assert_eq!(o.article(), "5.1.2");
    assert_eq!(o.ply, 0);
    assert!(!v.undetermined, "{}", v.explanation);
    let san = evidence_san(&g, &v);
    let expected = "O-O-O e4 f4 e3 a4 exd2+ Kc2 Nc6 a5 bxa5 b4 a4 h4 cxb4 c5 dxc5 h5 c4 Ba6 a3 Bc8 \
                    b3+ Kc3 a2 Bb7 b2 Bc8 a1=Q Bb7 b1=N+ Kc2 c3 Bc8 Nd4+ Kd3 c2 Bb7 c1=Q Bc8 Na3 \
                    Bb7 Nab5 Bc8 Bxf4 h6 Bxh6 Bb7 f4 Bc8 f3 Bb7 Rxf2 Bc8 Qbxc8 Rde1 d1=Q+ Ke4 Nc3#";
    assert_eq!(san.join(" "), expected, "{}", v.explanation);
    assert_eq!(g.position().uci(&v.evidence[0]), "e1a1");
}
