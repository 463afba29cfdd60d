#!/usr/bin/env python3
"""Build the python-chess oracle fixture for crates/rules/tests/rules/oracle.rs.

A test oracle only: python-chess is not shipped and not used by the crate. The script writes
tests/data/oracle/positions.jsonl (relative to crates/rules), one JSON object per line:

  fen           the position, en passant square written only when a capture there is legal
  sans          sorted SAN of every legal move
  ucis          sorted UCI of every legal move (standard castling as e1g1)
  key           Zobrist key in the Polyglot layout as 16 hex digits, with the en passant file
                hashed only when an en passant capture is legal (FIDE Laws 9.2.3); that is
                chess.polyglot.zobrist_hash of the board with an illegal en passant square removed
  check, checkmate, stalemate, insufficient
                status flags; "insufficient" follows the crate's definition (FIDE Laws 5.2.2,
                simple cases): no pawn, rook or queen on the board and either at most one minor
                piece, or no knight and all bishops on squares of one colour

Regenerate (deterministic, fixed seed):
  python3 -m venv /tmp/venv && /tmp/venv/bin/pip install chess==1.11.2
  /tmp/venv/bin/python crates/rules/tests/oracle/make_fixture.py
"""

import json
import os
import random
import sys

import chess
import chess.pgn
import chess.polyglot

assert chess.__version__ == "1.11.2", chess.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "oracle", "positions.jsonl")
PGN = os.environ.get(
    "ORACLE_PGN", "/work/shared/data/games/online-lichess-2025-05-sample.pgn"
)
GAMES = 200
# Start positions for random playouts: the standard start and positions from the perft suites.
STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
]
PLAYOUTS_PER_START = 10
MAX_PLIES = 240


def is_insufficient(board):
    if board.pawns or board.rooks or board.queens:
        return False
    minors = board.knights | board.bishops
    if chess.popcount(minors) <= 1:
        return True
    if board.knights:
        return False
    return not (board.bishops & chess.BB_LIGHT_SQUARES) or not (
        board.bishops & chess.BB_DARK_SQUARES
    )


def key(board):
    b = board.copy(stack=False)
    if b.ep_square is not None and not b.has_legal_en_passant():
        b.ep_square = None
    return chess.polyglot.zobrist_hash(b)


def record(board):
    moves = list(board.legal_moves)
    return {
        "fen": board.fen(en_passant="legal"),
        "sans": sorted(board.san(m) for m in moves),
        "ucis": sorted(m.uci() for m in moves),
        "key": "%016x" % key(board),
        "check": board.is_check(),
        "checkmate": board.is_checkmate(),
        "stalemate": board.is_stalemate(),
        "insufficient": is_insufficient(board),
    }


def playouts(rng, out, seen):
    for start in STARTS:
        for _ in range(PLAYOUTS_PER_START):
            board = chess.Board(start)
            for ply in range(MAX_PLIES):
                fen = board.fen(en_passant="legal")
                # Sample about one position in ten, and more of the special ones.
                special = (
                    board.is_check()
                    or board.ep_square is not None
                    or is_insufficient(board)
                    or not any(board.legal_moves)
                )
                if fen not in seen and rng.random() < (0.6 if special else 0.1):
                    seen.add(fen)
                    out.append(record(board))
                moves = list(board.legal_moves)
                if not moves:
                    break
                # Prefer captures, checks and promotions now and then, to reach endgames.
                forcing = [
                    m
                    for m in moves
                    if board.is_capture(m) or m.promotion or board.gives_check(m)
                ]
                if forcing and rng.random() < 0.5:
                    board.push(rng.choice(forcing))
                else:
                    board.push(rng.choice(moves))
                if is_insufficient(board) and rng.random() < 0.5:
                    break


def games(out, seen):
    with open(PGN, encoding="utf-8") as f:
        for i in range(GAMES):
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                fen = board.fen(en_passant="legal")
                if fen in seen:
                    continue
                if ply % 12 == 5 or board.ep_square is not None:
                    seen.add(fen)
                    out.append(record(board))
            fen = board.fen(en_passant="legal")
            if fen not in seen:
                seen.add(fen)
                out.append(record(board))


# A few fixed positions for the rare cases: stalemates, dead positions, double check, en passant
# that would expose the king, promotions, castling conditions.
EXTRA = [
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "k7/8/1Q6/8/8/8/8/1K6 b - - 0 1",
    "8/8/8/8/8/5k2/5p2/5K2 w - - 0 1",
    "5b2/8/1b6/4k3/8/4B3/8/2B1K3 w - - 0 1",
    "2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
    "6n1/8/8/4k3/8/8/8/1N2K3 w - - 0 1",
    "2k5/4r3/8/1Q6/8/3n4/8/R3K2R w KQ - 0 1",
    "7k/8/K7/1PpP4/8/3b4/8/8 w - c6 0 2",
    "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/2b5/8/8/R3K2R w KQ - 0 1",
    "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "6k1/8/8/8/8/Q7/8/Q1Q4K w - - 0 1",
    "4k3/8/8/8/1b6/8/3N4/4K1N1 w - - 0 1",
]


def main():
    rng = random.Random(20250501)
    out, seen = [], set()
    for fen in EXTRA:
        board = chess.Board(fen)
        seen.add(board.fen(en_passant="legal"))
        out.append(record(board))
    playouts(rng, out, seen)
    n_playouts = len(out)
    games(out, seen)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    stats = {k: sum(1 for r in out if r[k]) for k in ("check", "checkmate", "stalemate", "insufficient")}
    print(
        f"{len(out)} positions ({n_playouts} from playouts, {len(out) - n_playouts} from games), "
        f"{os.path.getsize(OUT)} bytes, {stats}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
