//! Verdicts an arbiter can sign (issue 11, items 1 and 2): "can the opponent still checkmate?"
//! reads the analyzer's lines in the game's own castling notation, respects the game's own
//! endings (75-move rule, fivefold repetition, stalemate, dead position), and a dead position
//! ends the game at the ply it arises, whatever is recorded after it.

use arbiter_rules::Color::{Black, White};
use arbiter_rules::{
    AdjudicationRequest, AnalysisBudget, CastlingMode, FenOptions, Game, GameEvent, GameResult,
    LAWS_EDITION, Position, Termination, Verdict, WarningCode, adjudicate,
};

fn position(fen: &str, mode: CastlingMode) -> Position {
    Position::from_fen_with(
        fen,
        FenOptions {
            mode,
            validation: arbiter_rules::Validation::STRICT,
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

const FORCED_STALEMATE: &str = "4NK1k/8/8/1P6/8/2q5/8/8 b - - 0 1";

/// A dead position ends the game at the ply it arises, whatever is recorded after it (FIDE Laws
/// 5.2.2): after Qf6+ White's only legal move Nxf6 stalemates Black, so no series of legal moves
/// can end in checkmate at ply 1, a queen on the board notwithstanding. Nxf6 is one ply played
/// after the end, not a stalemate at ply 2.
#[test]
fn forced_reply_into_stalemate_is_a_dead_position_at_the_ply_it_arises() {
    for budget in [AnalysisBudget::Fast, AnalysisBudget::Full] {
        let g = game(
            FORCED_STALEMATE,
            CastlingMode::Standard,
            &["c3f6", "e8f6"],
            budget,
        );
        let v = verdict(&g, None, budget);
        let o = v.outcome.expect("ended");
        assert_eq!(o.result, GameResult::Draw);
        assert_eq!(o.termination, Termination::DeadPosition);
        assert_eq!(o.article(), "5.2.2");
        assert_eq!(o.ply, 1, "{}", v.explanation);
        assert_eq!(v.plies_after_end, 1);
        assert_eq!(
            v.explanation,
            "dead position at ply 1 (FIDE Laws 5.2.2): the only series of legal moves, Nxf6 \
             (stalemate), ends without checkmate: no series of legal moves can end in checkmate; \
             1 ply was played after the end of the game"
        );
    }
}

/// Issue 11 item 1, a fresh user's finding: the forced-reply test ran only when the side to
/// move was in check. After Kf7 Black, not in check, has one legal move, Kxh7, which leaves two
/// kings: the position is dead at ply 1 (FIDE Laws 5.2.2), and a recorded Kxh7 is a ply played
/// after the end, not insufficient material at ply 2.
#[test]
fn r_a_forced_reply_without_check_into_a_dead_position_ends_the_game_at_its_ply() {
    let fen = "5K1k/7P/8/8/8/8/8/8 w - - 0 1";
    for budget in [AnalysisBudget::Fast, AnalysisBudget::Full] {
        let g = game(fen, CastlingMode::Standard, &["f8f7", "h8h7"], budget);
        let v = verdict(&g, None, budget);
        let o = v.outcome.expect("ended");
        assert_eq!(
            (o.result, o.termination, o.article(), o.ply),
            (GameResult::Draw, Termination::DeadPosition, "5.2.2", 1),
            "{}",
            v.explanation
        );
        assert_eq!(v.plies_after_end, 1);
        assert_eq!(
            v.explanation,
            "dead position at ply 1 (FIDE Laws 5.2.2): the only series of legal moves, Kxh7 \
             (insufficient material), ends without checkmate: no series of legal moves can end in \
             checkmate; 1 ply was played after the end of the game"
        );
    }
    // A side with its king and pawns and more moves stays alive.
    let g = game(
        "5K1k/7P/8/8/8/8/P7/8 w - - 0 1",
        CastlingMode::Standard,
        &["f8f7"],
        AnalysisBudget::Full,
    );
    assert!(g.outcome().is_none());
}

/// An event never replaces an ending of the rules (FIDE Laws 5.2.2 before 6.9): after Qf6+ the
/// position is dead at ply 1, so White's flag falling afterwards changes nothing.
#[test]
fn flag_fall_after_forced_stalemate_is_the_dead_position_not_a_flag_fall() {
    let g = game(
        FORCED_STALEMATE,
        CastlingMode::Standard,
        &["c3f6"],
        AnalysisBudget::Full,
    );
    let v = verdict(&g, Some(GameEvent::FlagFall(White)), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::Draw);
    assert_eq!(o.termination, Termination::DeadPosition);
    assert_eq!(o.article(), "5.2.2");
    assert_eq!(o.ply, 1);
    assert_eq!(v.plies_after_end, 0);
    assert!(v.evidence.is_empty());
}

/// A flag fall in a blocked position that neither side can win is the dead position (FIDE Laws
/// 5.2.2), which ended the game before the flag fell (6.9 does not apply).
#[test]
fn flag_fall_in_a_blocked_dead_position_is_the_dead_position() {
    // A locked pawn chain with kings only: neither side can ever capture or pass.
    let fen = "8/8/2k5/p1p1p1p1/P1P1P1P1/8/3K4/8 w - - 4 40";
    let g = game(fen, CastlingMode::Standard, &[], AnalysisBudget::Full);
    let v = verdict(&g, Some(GameEvent::FlagFall(White)), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::Draw);
    assert_eq!(
        o.termination,
        Termination::DeadPosition,
        "{}",
        v.explanation
    );
    assert_eq!(o.article(), "5.2.2");
    assert_eq!(o.ply, 0);
}

const CLOCK_149: &str = "7k/8/2R3K1/8/8/8/8/8 b - - 149 100";

/// Black's only move Kg8 is the 150th half-move without capture or pawn move and no mate, so
/// the game ends drawn there by the 75-move rule (FIDE Laws 9.6.2) and White cannot checkmate:
/// Black's flag fall, resignation or second illegal move is a draw (6.9, 5.1.2, 7.5.5), not a
/// win with the line Kg8 Rc8#.
#[test]
fn flag_fall_cannot_mate_through_75_move_rule() {
    for (event, termination, article) in [
        (GameEvent::FlagFall(Black), Termination::FlagFall, "6.9"),
        (
            GameEvent::Resignation(Black),
            Termination::Resignation,
            "5.1.2",
        ),
        (
            GameEvent::SecondIllegalMove(Black),
            Termination::SecondIllegalMove,
            "7.5.5",
        ),
    ] {
        for budget in [AnalysisBudget::Fast, AnalysisBudget::Full] {
            let g = game(CLOCK_149, CastlingMode::Standard, &[], budget);
            let v = verdict(&g, Some(event), budget);
            let o = v.outcome.expect("ended");
            assert_eq!(
                o.result,
                GameResult::Draw,
                "{event:?} {budget:?}: {}",
                v.explanation
            );
            assert_eq!(o.termination, termination);
            assert_eq!(o.article(), article);
            assert_eq!(o.ply, 0);
            assert!(v.evidence.is_empty());
            assert!(!v.undetermined);
            assert!(
                v.explanation.contains(
                    "every series of legal moves ends first by the 75-move rule (FIDE Laws \
                     9.6.2), or reaches a position where White cannot checkmate; the game would \
                     end at ply 1"
                ),
                "{}",
                v.explanation
            );
        }
    }
}

/// A mate on the 150th half-move still counts (FIDE Laws 9.6.2): with the clock at 148 White's
/// flag falling loses, the line Kg8 (149) Rc8# (150) being evidence.
#[test]
fn mate_on_the_150th_half_move_still_counts_for_the_flag_fall() {
    let g = game(
        "7k/8/2R3K1/8/8/8/8/8 b - - 148 100",
        CastlingMode::Standard,
        &[],
        AnalysisBudget::Full,
    );
    let v = verdict(&g, Some(GameEvent::FlagFall(Black)), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::WhiteWins, "{}", v.explanation);
    assert_eq!(o.termination, Termination::FlagFall);
    assert_eq!(o.article(), "6.9");
    assert_eq!(evidence_san(&g, &v), vec!["Kg8", "Rc8#"]);
}

/// Black's only move Kg8 would be the fifth occurrence of the position (FIDE Laws 9.6.1), which
/// ends the game before White can play Rc8#: Black's flag fall is a draw (6.9).
#[test]
fn flag_fall_cannot_mate_through_fivefold_repetition() {
    let mut moves = vec![];
    for _ in 0..4 {
        moves.extend(["h8g8", "g6h6", "g8h8", "h6g6"]);
    }
    let g = game(
        "6Qk/8/2R3K1/8/8/8/8/8 b - - 0 3",
        CastlingMode::Standard,
        &moves,
        AnalysisBudget::Full,
    );
    assert_eq!(g.ply(), 16);
    assert!(g.outcome().is_none());
    let v = verdict(&g, Some(GameEvent::FlagFall(Black)), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::Draw, "{}", v.explanation);
    assert_eq!(o.termination, Termination::FlagFall);
    assert_eq!(o.article(), "6.9");
    assert_eq!(o.ply, 16);
    assert!(v.evidence.is_empty());
    assert!(
        v.explanation.contains(
            "every series of legal moves ends first by fivefold repetition (FIDE Laws 9.6.1), or \
             reaches a position where White cannot checkmate; the game would end at ply 17"
        ),
        "{}",
        v.explanation
    );
}

/// The material level does material checks only (no search): the loss stands, undecided.
#[test]
fn material_level_leaves_the_75_move_case_undetermined() {
    let g = game(
        CLOCK_149,
        CastlingMode::Standard,
        &[],
        AnalysisBudget::Material,
    );
    let v = verdict(
        &g,
        Some(GameEvent::FlagFall(Black)),
        AnalysisBudget::Material,
    );
    assert_eq!(v.outcome.expect("ended").result, GameResult::WhiteWins);
    assert!(v.undetermined);
    // The material level never proves a loss (it finds no lines): no warning on every loss.
    assert!(v.warnings.is_empty(), "{:?}", v.warnings);
}

/// A draw agreed in a dead position: the dead position ended the game first (FIDE Laws 5.2.2
/// before 5.2.3), as any event comes after the rules' own endings.
#[test]
fn agreed_draw_in_a_blocked_dead_position_is_the_dead_position() {
    let fen = "8/8/2k5/p1p1p1p1/P1P1P1P1/8/3K4/8 w - - 4 40";
    let g = game(fen, CastlingMode::Standard, &[], AnalysisBudget::Full);
    let v = verdict(&g, Some(GameEvent::AgreedDraw), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(o.result, GameResult::Draw);
    assert_eq!(
        o.termination,
        Termination::DeadPosition,
        "{}",
        v.explanation
    );
    assert_eq!(o.article(), "5.2.2");
    assert_eq!(o.ply, 0);
    // The material level keeps to material checks: the agreement stands.
    let v = verdict(&g, Some(GameEvent::AgreedDraw), AnalysisBudget::Material);
    assert_eq!(
        v.outcome.expect("ended").termination,
        Termination::AgreedDraw
    );
}

/// Issue 11 item 1 ("an event never replaces an ending of the rules"): a forfeit recorded in
/// a dead position came back as a forfeit (6.7.1); the dead position ended the game first
/// (FIDE Laws 5.2.2). The material level keeps to material checks: the forfeit stands.
#[test]
fn forfeit_in_a_blocked_dead_position_is_the_dead_position() {
    let fen = "8/8/2k5/p1p1p1p1/P1P1P1P1/8/3K4/8 w - - 4 40";
    let g = game(fen, CastlingMode::Standard, &[], AnalysisBudget::Full);
    for side in [White, Black] {
        let v = verdict(&g, Some(GameEvent::Forfeit(side)), AnalysisBudget::Full);
        let o = v.outcome.expect("ended");
        assert_eq!(o.result, GameResult::Draw, "{}", v.explanation);
        assert_eq!(
            o.termination,
            Termination::DeadPosition,
            "{}",
            v.explanation
        );
        assert_eq!(o.article(), "5.2.2");
        assert_eq!(o.ply, 0);
    }
    let v = verdict(
        &g,
        Some(GameEvent::Forfeit(White)),
        AnalysisBudget::Material,
    );
    let o = v.outcome.expect("ended");
    assert_eq!(
        (o.result, o.termination),
        (GameResult::BlackWins, Termination::Forfeit)
    );
    // A live position: the forfeit stands at every level.
    let live = game(CLOCK_149, CastlingMode::Standard, &[], AnalysisBudget::Full);
    let v = verdict(&live, Some(GameEvent::Forfeit(Black)), AnalysisBudget::Full);
    let o = v.outcome.expect("ended");
    assert_eq!(
        (o.result, o.termination),
        (GameResult::WhiteWins, Termination::Forfeit)
    );
}

/// Issue 11, a fresh user's finding: a forfeit after moves were played (PGN `Termination`
/// "rules infraction" or "abandoned") cited 6.7.1, the forfeit by default time before the game
/// starts. A player who has moved and forfeits is declared lost by the arbiter (FIDE Laws
/// 12.9.6); one who never moved (at ply 0, or Black after White's first move, as in games
/// abandoned on the first move) forfeits as by default time (6.7.1).
#[test]
fn r_forfeit_after_moves_were_played_cites_12_9_6_not_the_default_time() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let before = game(start, CastlingMode::Standard, &[], AnalysisBudget::Full);
    let v = verdict(
        &before,
        Some(GameEvent::Forfeit(White)),
        AnalysisBudget::Full,
    );
    let o = v.outcome.expect("ended");
    assert_eq!(
        (o.result, o.termination, o.ply, o.article()),
        (GameResult::BlackWins, Termination::Forfeit, 0, "6.7.1")
    );
    assert_eq!(
        v.explanation,
        "White forfeited before making a move (FIDE Laws 6.7.1): Black wins"
    );
    let played = game(
        start,
        CastlingMode::Standard,
        &["e4", "e5", "Nf3"],
        AnalysisBudget::Full,
    );
    let v = verdict(
        &played,
        Some(GameEvent::Forfeit(Black)),
        AnalysisBudget::Full,
    );
    let o = v.outcome.expect("ended");
    assert_eq!(
        (o.result, o.termination, o.ply, o.article()),
        (GameResult::WhiteWins, Termination::Forfeit, 3, "12.9.6")
    );
    assert_eq!(
        v.explanation,
        "Black forfeited at ply 3, the game declared lost (FIDE Laws 12.9.6): White wins"
    );
    // Black abandons before its first move: 6.7.1; White, who has moved, 12.9.6.
    let one = game(start, CastlingMode::Standard, &["e4"], AnalysisBudget::Full);
    for (side, article) in [(Black, "6.7.1"), (White, "12.9.6")] {
        let v = verdict(&one, Some(GameEvent::Forfeit(side)), AnalysisBudget::Full);
        assert_eq!(v.outcome.expect("ended").article(), article, "{side}");
    }
    // A start position past move 1: both have moved.
    let later = game(CLOCK_149, CastlingMode::Standard, &[], AnalysisBudget::Full);
    let v = verdict(
        &later,
        Some(GameEvent::Forfeit(Black)),
        AnalysisBudget::Full,
    );
    assert_eq!(v.outcome.expect("ended").article(), "12.9.6");
    // The termination alone keeps the article of a forfeit before a move.
    assert_eq!(Termination::Forfeit.article(), "6.7.1");
}

/// FIDE 5.2.3 (issue 11 item 5): a draw agreed before both players have made a move keeps its
/// result but is warned about, at its ply; one move each, or a start position past move 1, is
/// enough.
#[test]
fn agreed_draw_before_one_move_each_is_warned_5_2_3() {
    let standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (fen, moves, warned) in [
        (standard, &[][..], Some(0)),
        (standard, &["e4"][..], Some(1)),
        (standard, &["e4", "e5"][..], None),
        // Black to move in move 1: White's first move is shown by the position.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            &[][..],
            Some(0),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            &["e5"][..],
            None,
        ),
        // A start position past move 1: both have moved.
        (
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            &[][..],
            None,
        ),
    ] {
        let g = game(fen, CastlingMode::Standard, moves, AnalysisBudget::Full);
        let v = verdict(&g, Some(GameEvent::AgreedDraw), AnalysisBudget::Full);
        let outcome = v.outcome.expect("outcome");
        assert_eq!(
            (outcome.result, outcome.termination),
            (GameResult::Draw, Termination::AgreedDraw)
        );
        let got: Vec<(WarningCode, usize)> = v.warnings.iter().map(|w| (w.code, w.ply)).collect();
        match warned {
            Some(ply) => {
                assert_eq!(
                    got,
                    [(WarningCode::EarlyAgreedDraw, ply)],
                    "{fen} {moves:?}"
                );
                assert!(
                    v.warnings[0].message.contains("5.2.3"),
                    "{}",
                    v.warnings[0].message
                );
                assert_eq!(WarningCode::EarlyAgreedDraw.as_str(), "early_agreed_draw");
            }
            None => assert!(got.is_empty(), "{fen} {moves:?}: {got:?}"),
        }
    }
}

/// FIDE 5.1.1 (issue 11 item 5): moves recorded after a checkmate are a warning at the first
/// of them, not only a count.
#[test]
fn moves_after_checkmate_are_warned_at_their_first_ply() {
    let g = game(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        CastlingMode::Standard,
        &["f3", "e5", "g4", "Qh4#"],
        AnalysisBudget::Full,
    );
    let mut g2 = g.clone();
    assert!(g2.record_move_after_end());
    assert!(g2.record_move_after_end());
    let v = verdict(&g2, None, AnalysisBudget::Full);
    assert_eq!(v.plies_after_end, 2);
    let got: Vec<(&str, usize)> = v
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.ply))
        .collect();
    assert_eq!(got, [("moves_after_end", 5)]);
    assert_eq!(
        v.warnings[0].message,
        "2 plies were recorded after the game ended at ply 4 (checkmate, FIDE Laws 5.1.1), from ply 5: they are not part of the game"
    );
    assert!(verdict(&g, None, AnalysisBudget::Full).warnings.is_empty());
    assert_eq!(LAWS_EDITION, "FIDE Laws of Chess, 2023");
}

/// Issue 11 item 1, a fresh user's finding: with K+R vs K and White to move, the shortest
/// series of legal moves that mates takes 11 plies even with Black helping (Ka2 Kg8 Kb3 Kh8 Kc4
/// Kg8 Kd5 Kf8 Ke6 Ke8 Rb8#). With the halfmove clock at 140-145 the 75-move rule ends the game
/// first (FIDE Laws 9.6.2), so Black's flag fall is a draw (6.9); arbiter answered 1-0
/// "undetermined" (its own search only ran within 8 plies of 150). At 125-139 it answered
/// "undetermined" too, where an 11-ply mate fits: now a line that ends in time.
#[test]
fn r_flag_fall_cannot_mate_when_the_75_move_rule_comes_first_krk() {
    for clock in 125..=146 {
        let fen = format!("7k/8/8/8/8/8/1R6/K7 w - - {clock} 100");
        let g = game(&fen, CastlingMode::Standard, &[], AnalysisBudget::Full);
        let v = verdict(&g, Some(GameEvent::FlagFall(Black)), AnalysisBudget::Full);
        let o = v.outcome.expect("ended");
        assert!(!v.undetermined, "clock {clock}: {}", v.explanation);
        if clock >= 140 {
            assert_eq!(
                o.result,
                GameResult::Draw,
                "clock {clock}: {}",
                v.explanation
            );
            assert!(
                v.explanation.contains("9.6.2"),
                "clock {clock}: {}",
                v.explanation
            );
            assert!(v.evidence.is_empty());
        } else {
            assert_eq!(
                o.result,
                GameResult::WhiteWins,
                "clock {clock}: {}",
                v.explanation
            );
            // The evidence mates within the clock: replayed, no position before the mate
            // reaches the 150th half-move.
            let mut p = g.position().clone();
            for (i, m) in v.evidence.iter().enumerate() {
                p.play_in_place(m);
                assert!(
                    p.halfmove_clock() < 150 || p.is_checkmate(),
                    "clock {clock}: ply {} passes the 75-move rule",
                    i + 1
                );
            }
            assert!(p.is_checkmate(), "clock {clock}: the evidence mates");
            assert!(v.evidence.len() <= (150 - clock) as usize);
        }
    }
}

/// Issue 11, a fresh user's finding: at the full level, an unproven loss looked exactly like a
/// proven one in the CLI's table and summary ("0 games with warnings", exit 0). It carries the
/// warning `undetermined_analysis` now. K+B+N vs K with the clock at 136: a mate within the 14
/// plies left exists (with the clock at 141 the search finds one in 9), but this search runs
/// out of its budget first. (Should the search come to decide it, pick a position it does not.)
#[test]
fn r_an_unproven_loss_at_the_full_level_is_warned() {
    let g = game(
        "8/8/8/4k3/8/8/8/KBN5 w - - 136 100",
        CastlingMode::Standard,
        &[],
        AnalysisBudget::Full,
    );
    let v = verdict(&g, Some(GameEvent::FlagFall(Black)), AnalysisBudget::Full);
    assert!(v.undetermined, "{}", v.explanation);
    assert_eq!(v.outcome.expect("ended").result, GameResult::WhiteWins);
    let codes: Vec<_> = v
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.ply))
        .collect();
    assert_eq!(codes, [("undetermined_analysis", 0)]);
    assert!(v.warnings[0].message.contains("(full)"), "{:?}", v.warnings);
    assert!(v.warnings[0].message.contains("6.9"), "{:?}", v.warnings);
}
