//! "Can this side still checkmate by any series of legal moves?" (FIDE Laws 5.2.2 dead position,
//! 6.9 flag fall, 5.1.2 resignation, 7.5.5 second illegal move.)
//!
//! Our own material checks answer the simple cases first and explain them in words; the rest
//! goes to the Chess Unwinnability Analyzer (`chasolver`, MIT, by Miguel Ambrona), which either
//! finds a helpmate line (kept as evidence), proves that none exists, or gives up. Giving up is
//! reported as [`Winnability::Undetermined`] and is never turned into "cannot mate".

use std::collections::HashMap;
use std::str::FromStr;

use crate::bitboard::Bitboard;
use crate::position::{CastlingMode, Move, Position};
use crate::types::{Color, Role};

/// How much work the analysis may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AnalysisBudget {
    /// Material checks only (microseconds).
    Material,
    /// Material checks, then the analyzer's fast sound-but-incomplete unwinnability check (it may
    /// prove "cannot mate" but never finds a mating line).
    Fast,
    /// Material checks, then the analyzer's full helpmate search. The analyzer bounds its own
    /// search (1,000,000 positions per phase in chasolver 3.0), so every call ends; a service
    /// should still run it under a deadline.
    #[default]
    Full,
}

impl AnalysisBudget {
    /// The level's name, as the `--analysis` flag spells it: `material`, `fast` or `full`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            AnalysisBudget::Material => "material",
            AnalysisBudget::Fast => "fast",
            AnalysisBudget::Full => "full",
        }
    }
}

/// The answer to "can `side` still checkmate by some series of legal moves?".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Winnability {
    /// Yes: `line` is a series of legal moves from the position ending in checkmate by the side
    /// (a helpmate: both sides cooperate). Empty when the side has already mated.
    CanMate {
        /// The mating line, first move first.
        line: Vec<Move>,
    },
    /// No: proven. `reason` says why, e.g. "Black has only king and knight against a lone king".
    CannotMate {
        /// Why the side cannot mate.
        reason: String,
    },
    /// The analysis could not decide within its budget. Never to be read as "cannot mate".
    Undetermined,
}

fn material_words(pos: &Position, color: Color) -> String {
    let ours = pos.by_color(color);
    let mut parts = Vec::new();
    for role in [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ] {
        let n = (ours & pos.by_role(role)).count();
        if n == 1 {
            parts.push(role.name().to_string());
        } else if n > 1 {
            parts.push(format!("{n} {}s", role.name()));
        }
    }
    if parts.is_empty() {
        "a lone king".to_string()
    } else {
        format!("king and {}", parts.join(", "))
    }
}

/// Our own proofs that `side` cannot mate, from material alone.
fn material_reason(pos: &Position, side: Color) -> Option<String> {
    let ours = pos.by_color(side);
    let theirs = pos.by_color(side.other());
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if (ours & heavy).is_nonempty() {
        return None;
    }
    let knights = ours & pos.by_role(Role::Knight);
    let bishops = ours & pos.by_role(Role::Bishop);
    let them_words = material_words(pos, side.other());
    let lone_enemy_king = (theirs & !pos.by_role(Role::King)).is_empty();
    if (knights | bishops).is_empty() {
        return Some(format!("{side} has only the king (against {them_words})"));
    }
    if lone_enemy_king && (knights | bishops).count() == 1 {
        return Some(format!(
            "{side} has only {} against a lone king",
            material_words(pos, side)
        ));
    }
    if knights.is_empty() {
        // Bishops on one square colour only; the opponent can never block on the other colour
        // if it has nothing but a king and bishops of that same colour.
        let colour = if (bishops & Bitboard::LIGHT_SQUARES).is_empty() {
            Bitboard::DARK_SQUARES
        } else if (bishops & Bitboard::DARK_SQUARES).is_empty() {
            Bitboard::LIGHT_SQUARES
        } else {
            return None;
        };
        let their_others = theirs & !pos.by_role(Role::King);
        if (their_others & !(pos.by_role(Role::Bishop) & colour)).is_empty() {
            let name = if colour == Bitboard::LIGHT_SQUARES {
                "light"
            } else {
                "dark"
            };
            return Some(format!(
                "{side} has only {} on {name} squares, against {them_words} with nothing that can stand on a {} square",
                material_words(pos, side),
                if name == "light" { "dark" } else { "light" }
            ));
        }
    }
    None
}

/// Can `side` still checkmate by some series of legal moves from `pos`? See [`Winnability`].
///
/// Already checkmated positions answer directly (the mated side cannot mate; the other side has
/// mated with an empty line). In a Chess960 position whose castling rights the analyzer cannot
/// represent, a "cannot mate" from it is reported as [`Winnability::Undetermined`] (sound).
#[must_use]
pub fn winnability(pos: &Position, side: Color, budget: AnalysisBudget) -> Winnability {
    decide(pos, side, budget, Line::Kept)
}

/// The answers to "can this side still checkmate?" already found for one position, so that the
/// same question is never put to the analyzer twice: the dead-position test of a game's last
/// position (asked along the game) and its verdict (a flag fall, a resignation, the
/// dead-position test of an ongoing game) ask about the same position. An answer is reused only
/// where asking again would give the same one: at the same analysis level. The analyzer's
/// mating line is kept as it gave it and turned into moves only for a question that wants it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Answers {
    sides: [Option<Known>; 2],
}

#[derive(Clone, Debug)]
struct Known {
    budget: AnalysisBudget,
    asked: Asked,
}

impl Answers {
    /// Forgets every answer (the position changed).
    pub(crate) fn forget(&mut self) {
        self.sides = [None, None];
    }

    /// [`winnability`] of `pos` (the position these answers are about) for `side`, from the
    /// answers when one fits, else asked and kept.
    pub(crate) fn decide(
        &mut self,
        pos: &Position,
        side: Color,
        budget: AnalysisBudget,
        line: Line,
    ) -> Winnability {
        let slot = &mut self.sides[side as usize];
        if let Some(known) = slot
            && known.budget == budget
        {
            return finish(pos, side, &known.asked, line);
        }
        let asked = ask(pos, side, budget);
        let answer = finish(pos, side, &asked, line);
        *slot = Some(Known { budget, asked });
        answer
    }
}

/// Whether [`decide`] turns the analyzer's mating line into arbiter's moves and checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// The line is kept (evidence of a loss that stands): each move is found among the legal
    /// moves and the line must end in `side`'s checkmate, or the answer is "undetermined".
    Kept,
    /// Only "cannot mate" matters (the dead-position question, where "can mate" and
    /// "undetermined" both mean "not proven dead"): `CanMate` comes with an empty line.
    Dropped,
}

/// [`winnability`], keeping or dropping the mating line (see [`Line`]).
fn decide(pos: &Position, side: Color, budget: AnalysisBudget, keep: Line) -> Winnability {
    finish(pos, side, &ask(pos, side, budget), keep)
}

/// An answer to "can this side still checkmate?" before the analyzer's mating line, if any, is
/// turned into arbiter's moves: kept in [`Answers`] so that a question that wants the line can
/// reuse an answer first found without it.
#[derive(Clone, Debug)]
enum Asked {
    /// The answer, final.
    Answer(Winnability),
    /// The analyzer found this helpmate (its own moves), not yet checked.
    Helpmate(Vec<chess::ChessMove>),
}

/// [`winnability`]'s answer, with the analyzer's line as it gave it (see [`Asked`]).
fn ask(pos: &Position, side: Color, budget: AnalysisBudget) -> Asked {
    let answer = |winnability| Asked::Answer(winnability);
    if pos.is_checkmate() {
        return answer(if pos.side_to_move() == side {
            Winnability::CannotMate {
                reason: format!("{side} is checkmated"),
            }
        } else {
            Winnability::CanMate { line: Vec::new() }
        });
    }
    if let Some(reason) = material_reason(pos, side) {
        return answer(Winnability::CannotMate { reason });
    }
    if budget == AnalysisBudget::Material {
        return answer(Winnability::Undetermined);
    }
    // The analyzer reads standard FEN; castling rights it cannot express are dropped, and a
    // "cannot mate" proof is then not trusted (fewer moves could only hide a mate).
    let (fen, exact) = analyzer_fen(pos);
    let Ok(board) = chess::Board::from_str(&fen) else {
        return answer(Winnability::Undetermined);
    };
    let winner = match side {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    };
    // Each analyzer run holds a slot of the process-wide bound (its memory is its own), and
    // work whose call has ended stops here.
    let Some(_slot) = crate::interrupt::analysis_slot() else {
        return answer(Winnability::Undetermined);
    };
    let cannot = || {
        answer(Winnability::CannotMate {
            reason: format!(
                "no series of legal moves lets {side} checkmate ({} against {}; proved by the Chess Unwinnability Analyzer)",
                material_words(pos, side),
                material_words(pos, side.other())
            ),
        })
    };
    match budget {
        AnalysisBudget::Material => answer(Winnability::Undetermined),
        AnalysisBudget::Fast => {
            if exact && chasolver::is_unwinnable_fast(&board, winner) {
                cannot()
            } else {
                answer(Winnability::Undetermined)
            }
        }
        AnalysisBudget::Full => match chasolver::winnability(&board, winner) {
            Some(chasolver::Winnability::Unwinnable) if exact => cannot(),
            Some(chasolver::Winnability::Winnable { helpmate }) => Asked::Helpmate(helpmate),
            _ => answer(Winnability::Undetermined),
        },
    }
}

/// The final answer of `asked` for `side` in `pos`: with [`Line::Kept`], the analyzer's line
/// as arbiter's moves, each found among the legal moves, which must end in `side`'s checkmate
/// (else "undetermined"); with [`Line::Dropped`], "can mate" without its line.
fn finish(pos: &Position, side: Color, asked: &Asked, keep: Line) -> Winnability {
    let helpmate = match asked {
        Asked::Answer(answer) => return answer.clone(),
        Asked::Helpmate(_) if keep == Line::Dropped => {
            return Winnability::CanMate { line: Vec::new() };
        }
        Asked::Helpmate(helpmate) => helpmate,
    };
    let mut line = Vec::with_capacity(helpmate.len());
    let mut cur = pos.clone();
    for mv in helpmate {
        let Some(m) = from_analyzer(&cur, *mv) else {
            return Winnability::Undetermined;
        };
        cur.play_in_place(&m);
        line.push(m);
    }
    if cur.is_checkmate() && cur.side_to_move() != side {
        Winnability::CanMate { line }
    } else {
        Winnability::Undetermined
    }
}

/// A move of the analyzer's line as the legal move of `pos` it stands for, in either castling
/// mode. The analyzer plays standard chess and writes castling as the king's two-square move
/// (`e1c1`); arbiter's Chess960 mode moves the king onto its own rook (`e1a1`). The analyzer only
/// castles in the positions [`analyzer_fen`] gives it with their rights, where the king starts on
/// the e-file and the rook on the a- or h-file, so both spellings name the same move.
fn from_analyzer(pos: &Position, mv: chess::ChessMove) -> Option<Move> {
    let square = |sq: chess::Square| crate::types::Square::new(u32::from(sq.to_int()));
    let (from, to) = (square(mv.get_source())?, square(mv.get_dest())?);
    let promotion = match mv.get_promotion() {
        None => None,
        Some(chess::Piece::Queen) => Some(Role::Queen),
        Some(chess::Piece::Rook) => Some(Role::Rook),
        Some(chess::Piece::Bishop) => Some(Role::Bishop),
        Some(chess::Piece::Knight) => Some(Role::Knight),
        Some(_) => return None,
    };
    let role = pos.role_at(from)?;
    // Not castling (the king's two-square move): only the moves to `to` are generated, which
    // costs a fraction of every legal move, on each of an evidence line's dozens of plies.
    if role != Role::King || from.file().index().abs_diff(to.file().index()) < 2 {
        return pos
            .legal_moves_to_square(role, to)
            .iter()
            .find(|m| m.from == from && m.promotion == promotion)
            .copied();
    }
    let legal = pos.legal_moves();
    legal
        .iter()
        .find(|m| {
            m.from == from
                && m.promotion == promotion
                && if m.is_castle() {
                    m.king_destination() == to && m.from.file() == crate::types::File::E
                } else {
                    m.to == to
                }
        })
        .copied()
}

/// Plies before the 75-move rule (FIDE Laws 9.6.2) within which "can still mate" in a game
/// runs arbiter's own search, which knows the halfmove clock and the game's repetitions. 30
/// covers the short mates of the simple endings (K+R vs K mates in 11 plies at the least, with
/// the defender helping) that the analyzer's longer lines overshoot.
const NEAR_CLOCK: u32 = 30;
/// Plies the own search looks ahead when only a repetition (not the clock) is near.
const REPETITION_DEPTH: usize = 6;
/// Positions the own search may visit before it gives up ("undetermined"), at the fast level.
const SEARCH_NODES_FAST: usize = 50_000;
/// The same at the full level: about a second of search at most.
const SEARCH_NODES_FULL: usize = 2_000_000;
/// Most (position, plies left) pairs the own search remembers as proven mate-free (16 bytes
/// each plus the table's overhead: a few MiB at most per call).
const PROVEN_ENTRIES: usize = 262_144;
/// Analyzer runs the own search may make, for the positions after a capture or a pawn move.
const SEARCH_ANALYSES: usize = 4;

/// Can `side` still checkmate in `game`, respecting the game's own endings on the way: an
/// evidence line never passes a position where the game has ended by the 75-move rule (a mate
/// on the 150th half-move still counts, FIDE Laws 9.6.2), by fivefold repetition (9.6.1), by
/// stalemate or by a dead position. The board answer of [`winnability`] is taken when its line
/// respects them; when it does not (or is undetermined) and the clock is within 30 plies of 150
/// or a position of the game has occurred 4 times, arbiter's own bounded search (all series of
/// legal moves, with the clock and the repetitions) decides: a mating line, a proof that every
/// series ends first ("cannot mate", naming 9.6.1 / 9.6.2 and the ply), or "undetermined" when
/// its budget runs out. The material level does no search; the fast level finds no lines.
#[must_use]
pub fn winnability_in_game(
    game: &crate::game::Game,
    side: Color,
    budget: AnalysisBudget,
) -> Winnability {
    in_game(
        game,
        side,
        budget,
        winnability(game.position(), side, budget),
    )
}

/// [`winnability_in_game`] with the board answer `board` of [`winnability`] already known.
pub(crate) fn in_game(
    game: &crate::game::Game,
    side: Color,
    budget: AnalysisBudget,
    board: Winnability,
) -> Winnability {
    let pos = game.position();
    let window = game.repetition_window();
    match board {
        cannot @ Winnability::CannotMate { .. } => return cannot,
        Winnability::CanMate { line } => {
            if let Some(line) = within_endings(pos, window, &line, side) {
                return Winnability::CanMate { line };
            }
        }
        Winnability::Undetermined => {}
    }
    if budget == AnalysisBudget::Material {
        return Winnability::Undetermined;
    }
    let clock = pos.halfmove_clock();
    let near_clock = clock.saturating_add(NEAR_CLOCK) >= 150;
    let near_repetition = window
        .iter()
        .any(|k| window.iter().filter(|&&o| o == *k).count() >= 4);
    if !near_clock && !near_repetition {
        return Winnability::Undetermined;
    }
    if !crate::interrupt::long_work_allowed() {
        return Winnability::Undetermined;
    }
    let mut search = Search {
        side,
        budget,
        nodes: 0,
        max_nodes: if budget == AnalysisBudget::Full {
            SEARCH_NODES_FULL
        } else {
            SEARCH_NODES_FAST
        },
        analyses: 0,
        endings: [false; 4],
        first_end: usize::MAX,
        last_end: 0,
        proven: std::collections::HashSet::new(),
        repetition_cut: false,
    };
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for k in window {
        *counts.entry(*k).or_default() += 1;
    }
    let depth = if near_clock {
        150u32.saturating_sub(clock) as usize
    } else {
        REPETITION_DEPTH
    };
    match search.run(pos, &mut counts, depth, 0) {
        Found::Mate(line) if budget == AnalysisBudget::Full => Winnability::CanMate { line },
        Found::NoMate => Winnability::CannotMate {
            reason: search.reason(game.ply()),
        },
        _ => Winnability::Undetermined,
    }
}

/// `line` from `pos` (the game's repetition window `window` ending with it) if it reaches
/// `side`'s checkmate without passing a position where the game has ended (FIDE Laws 9.6.1,
/// 9.6.2; a mate on the 150th half-move counts); else the line with its cycles cut out, if that
/// one does.
fn within_endings(pos: &Position, window: &[u64], line: &[Move], side: Color) -> Option<Vec<Move>> {
    if mates_within_endings(pos, window, line, side) {
        return Some(line.to_vec());
    }
    let mut positions = vec![pos.clone()];
    for m in line {
        let next = positions.last()?.play(m);
        positions.push(next);
    }
    let keys: Vec<u64> = positions.iter().map(Position::zobrist).collect();
    // Cut cycles: from each position go on from its last occurrence in the line.
    let mut short = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let j = keys.iter().rposition(|&k| k == keys[i]).unwrap_or(i);
        if j >= line.len() {
            break;
        }
        short.push(line[j]);
        i = j + 1;
    }
    mates_within_endings(pos, window, &short, side).then_some(short)
}

/// Whether `line` from `pos` ends in `side`'s checkmate without passing a position where the
/// game has ended by the 75-move rule or fivefold repetition.
fn mates_within_endings(pos: &Position, window: &[u64], line: &[Move], side: Color) -> bool {
    // Most lines are far from both limits: shorter than the plies left before the 75-move
    // rule, and without any position reached five times (counting the game's window, and
    // ignoring the resets of irreversible moves: an upper bound). One replay then decides,
    // without counting positions step by step.
    if (pos.halfmove_clock() as usize).saturating_add(line.len()) < 150 {
        let mut keys: Vec<u64> = Vec::with_capacity(window.len() + line.len());
        keys.extend_from_slice(window);
        let mut cur = pos.clone();
        let mut mated = None;
        for m in line {
            cur.play_in_place(m);
            keys.push(cur.zobrist());
            if cur.is_checkmate() {
                mated = Some(cur.side_to_move() != side);
                break;
            }
        }
        keys.sort_unstable();
        if !keys.chunk_by(|a, b| a == b).any(|run| run.len() >= 5) {
            return mated.unwrap_or_else(|| {
                line.is_empty() && pos.is_checkmate() && pos.side_to_move() != side
            });
        }
    }
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for k in window {
        *counts.entry(*k).or_default() += 1;
    }
    let mut cur = pos.clone();
    for m in line {
        cur.play_in_place(m);
        if cur.is_checkmate() {
            return cur.side_to_move() != side;
        }
        if cur.halfmove_clock() == 0 {
            counts.clear();
        }
        let count = counts.entry(cur.zobrist()).or_default();
        *count += 1;
        if cur.halfmove_clock() >= 150 || *count >= 5 {
            return false;
        }
    }
    line.is_empty() && pos.is_checkmate() && pos.side_to_move() != side
}

/// What the own search found below a position.
enum Found {
    Mate(Vec<Move>),
    NoMate,
    Unknown,
}

/// Arbiter's own bounded helpmate search with the game's clock and repetitions.
struct Search {
    side: Color,
    budget: AnalysisBudget,
    nodes: usize,
    max_nodes: usize,
    analyses: usize,
    /// Positions (key, plies left) below which no series mates: a transposition table of proofs.
    /// Only proofs that no fivefold repetition cut short are kept, as the repetition history
    /// differs from one path to the next; the plies left encode the clock.
    proven: std::collections::HashSet<(u64, usize)>,
    /// A fivefold repetition cut a series short in the subtree being searched.
    repetition_cut: bool,
    /// Which endings cut series off: 75-move rule, fivefold, stalemate, checkmate of `side`.
    endings: [bool; 4],
    /// The first and last ply (from the searched position) where a series ended by 9.6.
    first_end: usize,
    last_end: usize,
}

impl Search {
    fn ended(&mut self, which: usize, ply: usize) {
        self.endings[which] = true;
        if which < 2 {
            self.first_end = self.first_end.min(ply);
            self.last_end = self.last_end.max(ply);
        }
    }

    fn run(
        &mut self,
        pos: &Position,
        counts: &mut HashMap<u64, u32>,
        depth: usize,
        ply: usize,
    ) -> Found {
        let key = (pos.zobrist(), depth);
        if self.proven.contains(&key) {
            return Found::NoMate;
        }
        let cut_above = std::mem::replace(&mut self.repetition_cut, false);
        let found = self.search_moves(pos, counts, depth, ply);
        if matches!(found, Found::NoMate)
            && !self.repetition_cut
            && self.proven.len() < PROVEN_ENTRIES
        {
            self.proven.insert(key);
        }
        self.repetition_cut |= cut_above;
        found
    }

    fn search_moves(
        &mut self,
        pos: &Position,
        counts: &mut HashMap<u64, u32>,
        depth: usize,
        ply: usize,
    ) -> Found {
        let mut unknown = false;
        for m in pos.legal_moves().iter() {
            self.nodes += 1;
            if self.nodes > self.max_nodes || crate::interrupt::interrupted() {
                return Found::Unknown;
            }
            let child = pos.play(m);
            match child.status() {
                crate::position::Status::Checkmate => {
                    if child.side_to_move() != self.side {
                        return Found::Mate(vec![*m]);
                    }
                    self.ended(3, ply + 1);
                    continue;
                }
                crate::position::Status::Stalemate => {
                    self.ended(2, ply + 1);
                    continue;
                }
                crate::position::Status::Ongoing => {}
            }
            if material_reason(&child, self.side).is_some() {
                continue;
            }
            if child.halfmove_clock() == 0 {
                // After a capture or a pawn move nothing before can repeat and the clock starts
                // again: the board question, as far as the budget of analyzer runs allows.
                self.analyses += 1;
                if self.analyses > SEARCH_ANALYSES {
                    unknown = true;
                    continue;
                }
                match winnability(&child, self.side, self.budget) {
                    Winnability::CannotMate { .. } => continue,
                    Winnability::CanMate { line } => {
                        let window = [child.zobrist()];
                        if let Some(rest) = within_endings(&child, &window, &line, self.side) {
                            let mut found = vec![*m];
                            found.extend(rest);
                            return Found::Mate(found);
                        }
                        unknown = true;
                    }
                    Winnability::Undetermined => unknown = true,
                }
                continue;
            }
            if child.halfmove_clock() >= 150 {
                self.ended(0, ply + 1);
                continue;
            }
            let key = child.zobrist();
            let count = counts.entry(key).or_default();
            *count += 1;
            if *count >= 5 {
                self.ended(1, ply + 1);
                self.repetition_cut = true;
            } else if depth <= 1 {
                unknown = true;
            } else {
                match self.run(&child, counts, depth - 1, ply + 1) {
                    Found::Mate(line) => {
                        let mut found = vec![*m];
                        found.extend(line);
                        return Found::Mate(found);
                    }
                    Found::Unknown => unknown = true,
                    Found::NoMate => {}
                }
            }
            if let Some(count) = counts.get_mut(&key) {
                *count -= 1;
            }
        }
        if unknown {
            Found::Unknown
        } else {
            Found::NoMate
        }
    }

    /// Why `side` cannot mate, for a game at `game_ply`.
    fn reason(&self, game_ply: usize) -> String {
        let side = self.side;
        let mut ends = Vec::new();
        if self.endings[0] {
            ends.push("the 75-move rule (FIDE Laws 9.6.2)".to_string());
        }
        if self.endings[1] {
            ends.push("fivefold repetition (FIDE Laws 9.6.1)".to_string());
        }
        if self.endings[2] {
            ends.push("stalemate (FIDE Laws 5.2.1)".to_string());
        }
        if self.endings[3] {
            ends.push(format!("checkmate of {side} (FIDE Laws 5.1.1)"));
        }
        let when = if self.first_end == usize::MAX {
            String::new()
        } else if self.first_end == self.last_end {
            format!("; the game would end at ply {}", game_ply + self.last_end)
        } else {
            format!(
                "; the game would end by ply {} at the latest",
                game_ply + self.last_end
            )
        };
        format!(
            "every series of legal moves ends first by {}, or reaches a position where {side} cannot checkmate{when}",
            ends.join(", ")
        )
    }
}

/// The FEN the analyzer reads, and whether it represents the position exactly.
fn analyzer_fen(pos: &Position) -> (String, bool) {
    let mut p = pos.clone();
    let standard = p.castling_rights().into_iter().all(|sq| {
        matches!(sq.file(), crate::types::File::A | crate::types::File::H)
            && p.king_square(if sq.rank() == crate::types::Rank::First {
                Color::White
            } else {
                Color::Black
            })
            .is_some_and(|k| k.file() == crate::types::File::E)
    });
    if !standard {
        p.castling = Bitboard::EMPTY;
    }
    p.mode = CastlingMode::Standard;
    (p.to_fen(), standard)
}

/// Plies the forced-reply test of [`forced_dead_position`] looks ahead.
const FORCED_DEPTH: usize = 4;
/// Most legal moves a position of the forced-reply test may have for its replies to be followed.
const FORCED_BRANCHES: usize = 2;

/// The series of legal moves a successful forced-reply test followed, in SAN: the line being
/// walked and each finished series with how it ends.
#[derive(Default)]
struct ForcedLines {
    line: Vec<String>,
    ends: Vec<String>,
}

impl ForcedLines {
    fn end(&mut self, how: &str) {
        self.ends.push(format!("{} ({how})", self.line.join(" ")));
    }
}

/// True when every series of legal moves from `pos` ends without checkmate within `depth`
/// plies, each position on the way having at most [`FORCED_BRANCHES`] legal moves. With
/// `lines`, the series are written into it (SAN costs time, so a test that may fail runs
/// without it first).
fn forced_end(pos: &Position, depth: usize, lines: &mut Option<ForcedLines>) -> bool {
    let ends = |lines: &mut Option<ForcedLines>, how| {
        if let Some(lines) = lines {
            lines.end(how);
        }
        true
    };
    // Most positions have more legal moves than the test follows: counted, not built.
    if pos.has_more_legal_moves_than(FORCED_BRANCHES) {
        return pos.is_insufficient_material() && ends(lines, "insufficient material");
    }
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return !pos.is_check() && ends(lines, "stalemate");
    }
    if pos.is_insufficient_material() {
        return ends(lines, "insufficient material");
    }
    if depth == 0 {
        return false;
    }
    for m in legal.iter() {
        if let Some(lines) = lines {
            lines.line.push(pos.san(m));
        }
        let dead = forced_end(&pos.play(m), depth - 1, lines);
        if let Some(lines) = lines {
            lines.line.pop();
        }
        if !dead {
            return false;
        }
    }
    true
}

/// A cheap, sound test for the dead positions that forced replies make (FIDE Laws 5.2.2): the
/// side to move has at most two legal moves, and every series of legal moves from here, each
/// position having at most two, ends within four plies in stalemate or with insufficient
/// material. A queen on the board does not keep such a position alive. Looked for where so few
/// moves are possible: when the side to move is in check, or has nothing but its king and pawns
/// (a side with other pieces and at most two moves out of check, every piece trapped or pinned,
/// is not looked at). `Some(reason)` when proven, `None` otherwise (not dead, or not decided by
/// this test).
#[must_use]
pub(crate) fn forced_dead_position(pos: &Position) -> Option<String> {
    let us = pos.by_color(pos.side_to_move());
    let king_and_pawns = pos.by_role(Role::King) | pos.by_role(Role::Pawn);
    if !pos.is_check() && (us & !king_and_pawns).is_nonempty() {
        return None;
    }
    if !forced_end(pos, FORCED_DEPTH, &mut None) {
        return None;
    }
    let mut found = Some(ForcedLines::default());
    forced_end(pos, FORCED_DEPTH, &mut found);
    let lines = found.map(|found| found.ends).unwrap_or_default();
    if lines.is_empty() {
        return None;
    }
    let which = if lines.len() == 1 {
        format!("the only series of legal moves, {}, ends", lines[0])
    } else {
        format!(
            "each of the {} series of legal moves ({}) ends",
            lines.len(),
            lines.join("; ")
        )
    };
    Some(format!(
        "{which} without checkmate: no series of legal moves can end in checkmate"
    ))
}

/// Is the position dead (FIDE Laws 5.2.2): can neither side checkmate by any series of legal
/// moves? `Some(reason)` when proven, `None` when not dead or not decided.
#[must_use]
pub fn dead_position(pos: &Position, budget: AnalysisBudget) -> Option<String> {
    dead_position_with(pos, budget, &mut Answers::default())
}

/// [`dead_position`] with the answers already found for `pos`, which it adds to.
pub(crate) fn dead_position_with(
    pos: &Position,
    budget: AnalysisBudget,
    answers: &mut Answers,
) -> Option<String> {
    if pos.is_insufficient_material() {
        return Some(format!(
            "insufficient material: White has {}, Black has {}",
            material_words(pos, Color::White),
            material_words(pos, Color::Black)
        ));
    }
    // A mating line found by the analyzer only says "not dead": it is not replayed. The side
    // not to move is asked first: when a game ends by a flag fall or a resignation, it is
    // mostly the side to move whose flag fell or who resigned, and the verdict then asks about
    // its opponent, whose answer is kept in `answers`.
    let first = pos.side_to_move().other();
    let Winnability::CannotMate { reason: theirs } =
        answers.decide(pos, first, budget, Line::Dropped)
    else {
        return None;
    };
    let Winnability::CannotMate { reason: ours } =
        answers.decide(pos, first.other(), budget, Line::Dropped)
    else {
        return None;
    };
    let (w, b) = if first == Color::White {
        (theirs, ours)
    } else {
        (ours, theirs)
    };
    Some(format!("{w}; {b}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::FenOptions;

    fn position(fen: &str, mode: CastlingMode) -> Position {
        Position::from_fen_with(
            fen,
            FenOptions {
                mode,
                validation: crate::Validation::STRICT,
            },
        )
        .expect("valid FEN")
    }

    fn analyzer_move(text: &str) -> chess::ChessMove {
        chess::ChessMove::from_str(text).expect("UCI")
    }

    /// Both crossings between the notations (FIDE Laws 3.8.2, Chess960 castling): arbiter's
    /// Chess960 position goes to the analyzer with standard castling rights when they mean the
    /// same moves, and the analyzer's `e1c1` / `e8g8` come back as king-takes-rook castling.
    #[test]
    fn analyzer_castling_e1c1_is_king_takes_rook_in_chess960_and_e1c1_in_standard() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for mode in [CastlingMode::Chess960, CastlingMode::Standard] {
            let pos = position(fen, mode);
            assert_eq!(analyzer_fen(&pos), (fen.to_string(), true));
            let long = from_analyzer(&pos, analyzer_move("e1c1")).expect("castling");
            assert!(long.is_castle());
            let expected = if mode == CastlingMode::Chess960 {
                "e1a1"
            } else {
                "e1c1"
            };
            assert_eq!(pos.uci(&long), expected);
            let black = pos.play(&from_analyzer(&pos, analyzer_move("a1a2")).expect("rook"));
            let short = from_analyzer(&black, analyzer_move("e8g8")).expect("castling");
            assert!(short.is_castle());
            assert_eq!(black.san(&short), "O-O");
            // A king move of one square is not castling.
            let step = from_analyzer(&black, analyzer_move("e8f8")).expect("king move");
            assert!(!step.is_castle());
        }
    }

    /// An analyzer line that passes the 75-move limit (FIDE Laws 9.6.2) only through a cycle is
    /// kept with the cycle cut out; one that cannot be shortened enough is refused.
    #[test]
    fn evidence_line_with_a_cycle_past_the_75_move_rule_is_shortened() {
        let play = |pos: &Position, ucis: &[&str]| -> Vec<Move> {
            let mut cur = pos.clone();
            ucis.iter()
                .map(|u| {
                    let m = cur.parse_uci(u).expect("legal");
                    cur.play_in_place(&m);
                    m
                })
                .collect()
        };
        let pos = position("7k/8/2R3K1/8/8/8/8/8 b - - 146 100", CastlingMode::Standard);
        let line = play(&pos, &["h8g8", "c6c7", "g8h8", "c7c6", "h8g8", "c6c8"]);
        let short = within_endings(&pos, &[pos.zobrist()], &line, Color::White).expect("shortened");
        assert_eq!(short, line[4..].to_vec());
        let late = position("7k/8/2R3K1/8/8/8/8/8 b - - 149 100", CastlingMode::Standard);
        let line = play(&late, &["h8g8", "c6c8"]);
        assert_eq!(
            within_endings(&late, &[late.zobrist()], &line, Color::White),
            None
        );
        let at_148 = position("7k/8/2R3K1/8/8/8/8/8 b - - 148 100", CastlingMode::Standard);
        let line = play(&at_148, &["h8g8", "c6c8"]);
        assert_eq!(
            within_endings(&at_148, &[at_148.zobrist()], &line, Color::White),
            Some(line),
            "a mate on the 150th half-move counts"
        );
    }

    /// Chess960 castling rights the analyzer cannot write (the king not on the e-file) are
    /// dropped, and its "cannot mate" is then not trusted (FIDE Laws 5.2.2).
    #[test]
    fn chess960_rights_the_analyzer_cannot_write_are_dropped_and_marked_inexact() {
        let pos = position(
            "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
            CastlingMode::Chess960,
        );
        assert_eq!(
            analyzer_fen(&pos),
            ("1r4kr/8/8/8/8/8/8/1R4KR w - - 0 1".to_string(), false)
        );
    }

    /// A seat that allows no long work (a server's network thread) and counts the asks.
    #[derive(Default)]
    struct NoLongWork {
        asked: std::sync::atomic::AtomicUsize,
    }

    impl crate::interrupt::Seat for NoLongWork {
        fn leave(&self) -> bool {
            false
        }
        fn retake(&self) {}
        fn allows_long_work(&self) -> bool {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            false
        }
    }

    /// Issue 13: small calls run on the server's network thread, which must never run an
    /// analyzer or arbiter's own helpmate search (seconds). Both ask the seat first: here, with
    /// the clock 10 plies from the 75-move rule (FIDE Laws 9.6.2), the analyzer run and then the
    /// own search are each refused, where without the seat Ra8# is found.
    #[test]
    fn long_work_asks_its_seat_before_the_analyzer_and_before_the_own_search() {
        let pos = position("7k/8/6K1/8/8/8/8/R7 w - - 140 100", CastlingMode::Standard);
        let game = crate::game::Game::new(pos);
        let seat = std::sync::Arc::new(NoLongWork::default());
        let refused = crate::interrupt::with_seat(
            std::sync::Arc::clone(&seat) as std::sync::Arc<dyn crate::interrupt::Seat>,
            || winnability_in_game(&game, Color::White, AnalysisBudget::Full),
        );
        assert_eq!(refused, Winnability::Undetermined);
        assert_eq!(
            seat.asked.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "the analyzer run, then the own search"
        );
        let Winnability::CanMate { line } =
            winnability_in_game(&game, Color::White, AnalysisBudget::Full)
        else {
            panic!("without a seat the mate is found");
        };
        let mut end = game.position().clone();
        for mv in &line {
            end.play_in_place(mv);
        }
        assert!(end.is_checkmate(), "the line ends in checkmate");
    }

    /// Counts analyzer runs: each takes its work's seat first.
    #[derive(Default)]
    struct CountingRuns {
        runs: std::sync::atomic::AtomicUsize,
    }

    impl crate::interrupt::Seat for CountingRuns {
        fn leave(&self) -> bool {
            self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            true
        }
        fn retake(&self) {}
    }

    /// Issue 13: the dead-position test of a game's last position (FIDE Laws 5.2.2) and the
    /// flag-fall verdict (6.9) asked the analyzer the same questions about the same position
    /// again. Black's flag falls in a pawn ending where White has a lone king: the replay's
    /// dead-position test asks about Black once (White cannot mate by material), and the
    /// verdict, a draw, asks nothing more.
    #[test]
    fn the_verdict_reuses_the_answers_of_the_replays_dead_position_test() {
        let pos = position(
            "8/8/pppp1p2/2pp4/8/K1k5/8/8 w - - 0 1",
            CastlingMode::Standard,
        );
        let seat = std::sync::Arc::new(CountingRuns::default());
        let verdict = crate::interrupt::with_seat(
            std::sync::Arc::clone(&seat) as std::sync::Arc<dyn crate::interrupt::Seat>,
            || {
                let game = crate::game::Game::with_dead_position_analysis(
                    pos.clone(),
                    AnalysisBudget::Fast,
                );
                assert_eq!(game.outcome(), None, "not dead: Black can still mate");
                crate::adjudicate(
                    &game,
                    &crate::AdjudicationRequest {
                        event: Some(crate::GameEvent::FlagFall(Color::Black)),
                        claim_draw: false,
                        budget: AnalysisBudget::Fast,
                    },
                )
            },
        );
        let outcome = verdict.outcome.expect("an ending");
        assert_eq!(outcome.result, crate::GameResult::Draw);
        assert_eq!(outcome.termination, crate::Termination::FlagFall);
        assert_eq!(outcome.article(), "6.9");
        assert_eq!(
            seat.runs.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "one analyzer run: Black, during the replay"
        );
    }
}
