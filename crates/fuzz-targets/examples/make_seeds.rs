//! Writes the seed inputs of every fuzz target, from the project's own fixtures and the CC0
//! lichess games only (never from the other, non-redistributable files of the shared corpus):
//!
//! ```sh
//! cargo run --release -p arbiter-fuzz-targets --example make_seeds -- . ../shared/data/games fuzz/seeds
//! ```
//!
//! `make fuzz-corpus` then minimizes them (afl-cmin) into `fuzz/corpus/<target>/`.

use std::fs;
use std::path::{Path, PathBuf};

use arbiter_fuzz_targets::{POSITIONS, position};
use arbiter_pgn::Reader;
use arbiter_proto::v1::{
    ActedOn, AdjudicateGameRequest, AdjudicateGamesRequest, ApplyMoveRequest, ApplyMovesRequest,
    ClaimKind, Color, Game, GameEvent, IllegalAct, Incident, IncidentKind, ListLegalMovesRequest,
    Position, RuleSet, Supervision, TimeClass, ValidatePositionRequest, adjudicate_game_request,
    adjudicate_games_request, apply_move_request, position,
};
use arbiter_rules::SanLanguage;
use prost::Message as _;

/// Seeds per target are capped so that afl-cmin stays quick.
const MAX_GAMES: usize = 3_000;
/// Games made into RPC requests.
const RPC_GAMES: usize = 150;

struct Out {
    dir: PathBuf,
}

impl Out {
    fn put(&self, target: &str, index: usize, data: &[u8]) {
        let dir = self.dir.join(target);
        fs::create_dir_all(&dir).expect("the seed directory can be made");
        fs::write(dir.join(format!("{index:06}")), data).expect("a seed can be written");
    }
}

/// The games of a PGN file as text, one string per game (a game starts at a tag section that
/// follows movetext or the start of the file).
fn split_games(text: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current = String::new();
    let mut in_movetext = false;
    for line in text.lines() {
        if line.starts_with('[') && in_movetext {
            games.push(std::mem::take(&mut current));
            in_movetext = false;
        }
        if !line.starts_with('[') && !line.trim().is_empty() {
            in_movetext = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games
}

fn fens(root: &Path) -> Vec<String> {
    let mut fens = Vec::new();
    for file in [
        "standard.epd",
        "named.epd",
        "chess960.epd",
        "chess960-extra.epd",
    ] {
        let text = fs::read_to_string(root.join("tests/data/perft").join(file)).expect("perft");
        fens.extend(
            text.lines()
                .filter_map(|l| l.split(';').next())
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty() && !f.starts_with('#')),
        );
    }
    let text = fs::read_to_string(root.join("tests/data/unwinnable/chasolver-positions.txt"))
        .expect("winnability fixture");
    fens.extend(
        text.lines()
            .filter(|l| !l.starts_with('#') && l.len() > 3)
            .map(|l| l[3..].trim().to_owned()),
    );
    let text = fs::read_to_string(root.join("crates/rules/tests/data/oracle/positions.jsonl"))
        .expect("oracle fixture");
    fens.extend(text.lines().filter_map(|l| {
        let start = l.find("\"fen\":\"")? + 7;
        let end = start + l[start..].find('"')?;
        Some(l[start..end].to_owned())
    }));
    fens.sort();
    fens.dedup();
    fens
}

fn fen_position(fen: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(fen.to_owned())),
        variant: 0,
    })
}

/// The rule set of the `i`th request: none, rapid, blitz without supervision, Armageddon.
fn rule_set(i: usize) -> Option<RuleSet> {
    let (time_class, supervision, regulation) = match i % 4 {
        0 => return None,
        1 => (TimeClass::Rapid, Supervision::Adequate, ""),
        2 => (TimeClass::Blitz, Supervision::Inadequate, ""),
        _ => (
            TimeClass::Blitz,
            Supervision::Adequate,
            "Armageddon regulation 1.2",
        ),
    };
    Some(RuleSet {
        time_class: time_class.into(),
        supervision: supervision.into(),
        draw_odds_regulation: regulation.to_owned(),
    })
}

/// Incidents for a game of `plies` plies whose move at `cut` is `next` (issue 29): a draw
/// offer, an illegal king move (rarely one that fits), an incorrect or correct claim announcing
/// the next move, and a resignation at the end; every third game has none.
fn incidents(i: usize, plies: usize, cut: usize, next: Option<&str>) -> Vec<Incident> {
    if i.is_multiple_of(3) {
        return Vec::new();
    }
    let ply = |p: usize| u32::try_from(p).unwrap_or(u32::MAX);
    let side = |p: usize| {
        if p.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        }
    };
    let mut list = vec![
        Incident {
            ply: 0,
            kind: IncidentKind::DrawOffer.into(),
            side: Color::White.into(),
            ..Incident::default()
        },
        Incident {
            ply: ply(cut.min(2)),
            kind: IncidentKind::IllegalMove.into(),
            side: side(cut.min(2)).into(),
            act: IllegalAct::Move.into(),
            r#move: "Ke3".to_owned(),
            acted_on: [ActedOn::Claimed, ActedOn::ArbiterObserved, ActedOn::Nobody][i % 3].into(),
            ..Incident::default()
        },
    ];
    if let Some(next) = next {
        list.push(Incident {
            ply: ply(cut),
            kind: IncidentKind::Claim.into(),
            side: side(cut).into(),
            claim: ClaimKind::ThreefoldRepetition.into(),
            r#move: next.to_owned(),
            ..Incident::default()
        });
    }
    list.push(Incident {
        ply: ply(plies),
        kind: IncidentKind::Resignation.into(),
        side: side(plies).into(),
        ..Incident::default()
    });
    list
}

fn framed(messages: &[Vec<u8>]) -> Vec<u8> {
    let mut body = Vec::new();
    for message in messages {
        body.push(0);
        body.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
        body.extend_from_slice(message);
    }
    body
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, games_dir, out] = args.as_slice() else {
        eprintln!("usage: make_seeds REPO_ROOT SHARED_GAMES_DIR OUT_DIR");
        std::process::exit(64);
    };
    let root = Path::new(root);
    let out = Out {
        dir: PathBuf::from(out),
    };

    let fens = fens(root);
    for (i, fen) in fens.iter().enumerate() {
        out.put("fen", i, fen.as_bytes());
    }

    // SAN and UCI: every legal move of every fuzz position, in every language, both modes.
    let (mut san_n, mut uci_n) = (0, 0);
    for index in 0..POSITIONS.len() {
        let pos = position(index);
        for m in pos.legal_moves().iter() {
            for (l, language) in SanLanguage::ALL.iter().enumerate() {
                for strict in [0u8, 0x80] {
                    let selector = u8::try_from(index).expect("16")
                        | (u8::try_from(l).expect("7") << 4)
                        | strict;
                    let mut data = vec![selector];
                    data.extend_from_slice(pos.san_in(m, *language).as_bytes());
                    out.put("san", san_n, &data);
                    san_n += 1;
                }
            }
            let mut data = vec![u8::try_from(index).expect("16")];
            data.extend_from_slice(pos.uci(m).as_bytes());
            out.put("uci", uci_n, &data);
            uci_n += 1;
        }
    }

    // PGN: the project's fixtures and the CC0 lichess files.
    let mut sources: Vec<PathBuf> = vec![
        root.join("tests/data/adjudicate/disagreement.pgn"),
        root.join("tests/data/adjudicate/illegal-move.pgn"),
        root.join("tests/data/games/lichess-2016-05-first-1000.pgn"),
        root.join("tests/data/games/lichess-2025-05-sample.pgn"),
    ];
    let mut shared: Vec<PathBuf> = fs::read_dir(games_dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("online-lichess-") && n.ends_with(".pgn"))
                })
                .collect()
        })
        .unwrap_or_default();
    shared.sort();
    sources.extend(shared);
    let mut games = Vec::new();
    for source in &sources {
        let bytes = fs::read(source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        games.extend(split_games(&String::from_utf8_lossy(&bytes)));
    }
    // Spread the cap over every source.
    let step = games.len().div_ceil(MAX_GAMES).max(1);
    let games: Vec<String> = games.into_iter().step_by(step).collect();
    for (i, game) in games.iter().enumerate() {
        out.put("pgn_read", i, game.as_bytes());
        // Every option byte in turn: format, claims, language and (bits 6-7) the rule set.
        let mut data = vec![u8::try_from(i % 256).expect("small")];
        data.extend_from_slice(game.as_bytes());
        out.put("pgn_adjudicate", i, &data);
        out.put("pgn_adjudicate_full", i, &data);
    }

    // RPC requests: positions from the FEN fixtures, moves and PGN from the games.
    let mut requests: Vec<(u8, Vec<u8>)> = Vec::new();
    for (i, fen) in fens.iter().step_by(8).enumerate() {
        let language = i32::try_from(i % 8).expect("small");
        requests.push((
            0,
            ListLegalMovesRequest {
                position: fen_position(fen),
                san_language: language,
                castling_notation: language % 3,
            }
            .encode_to_vec(),
        ));
        requests.push((
            4,
            ValidatePositionRequest {
                position: fen_position(fen),
                castling_notation: language % 3,
            }
            .encode_to_vec(),
        ));
    }
    for (i, text) in games.iter().take(RPC_GAMES).enumerate() {
        let Some(Ok(raw)) = Reader::new(text.as_bytes()).next() else {
            continue;
        };
        let moves: Vec<String> = raw.moves.iter().map(|t| t.text.to_string()).collect();
        let language = i32::try_from(i % 8).expect("small");
        let cut = moves.len() / 2;
        let game = Game {
            start: None,
            moves: moves[..cut].to_vec(),
        };
        if let Some(next) = moves.get(cut) {
            requests.push((
                1,
                ApplyMoveRequest {
                    subject: Some(apply_move_request::Subject::Game(game.clone())),
                    r#move: next.clone(),
                    san_language: 0,
                    castling_notation: 0,
                }
                .encode_to_vec(),
            ));
        }
        requests.push((
            2,
            ApplyMovesRequest {
                position: None,
                moves: moves.clone(),
                san_language: 0,
                castling_notation: language % 3,
            }
            .encode_to_vec(),
        ));
        let event = (i % 3 == 0).then(|| GameEvent {
            kind: i32::try_from(i % 6).expect("small"),
            side: i32::try_from(i % 3).expect("small"),
        });
        requests.push((
            3,
            AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Game(Game {
                    start: None,
                    moves: moves.clone(),
                })),
                claim_draw: i % 2 == 0,
                event,
                san_language: language,
                castling_notation: 0,
                rules: rule_set(i),
                incidents: incidents(i, moves.len(), cut, moves.get(cut).map(String::as_str)),
            }
            .encode_to_vec(),
        ));
        requests.push((
            3,
            AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Pgn(text.clone())),
                claim_draw: i % 2 == 1,
                event: None,
                san_language: language,
                castling_notation: 0,
                rules: rule_set(i + 1),
                incidents: incidents(i + 1, moves.len(), cut, moves.get(cut).map(String::as_str)),
            }
            .encode_to_vec(),
        ));
        let pgn = AdjudicateGamesRequest {
            source: Some(adjudicate_games_request::Source::Pgn(text.clone())),
            claim_draw: i % 2 == 0,
            event: None,
            san_language: language,
            castling_notation: 0,
            rules: rule_set(i + 2),
            incidents: Vec::new(),
        }
        .encode_to_vec();
        let wire = AdjudicateGamesRequest {
            source: Some(adjudicate_games_request::Source::Game(game)),
            claim_draw: false,
            event,
            san_language: 0,
            castling_notation: 0,
            rules: rule_set(i + 3),
            incidents: incidents(i, cut, cut, None),
        }
        .encode_to_vec();
        requests.push((5, framed(&[pgn, wire])));
    }
    for (i, (handler, request)) in requests.iter().enumerate() {
        let mut data = vec![*handler];
        data.extend_from_slice(request);
        out.put("rpc", i, &data);
        out.put("rpc_full", i, &data);
    }
    println!(
        "seeds: {} FEN, {san_n} SAN, {uci_n} UCI, {} PGN games, {} RPC requests",
        fens.len(),
        games.len(),
        requests.len()
    );
}
