#!/usr/bin/env python3
"""Memory of `arbiter serve` under load: idle, peak and after the load (issue 10).

For each configuration, starts a server (loopback, free ports), reads its resident memory from
/proc (VmRSS; the peak is VmHWM, which the kernel keeps), then runs h2load with 1,000 concurrent
callers (`-c 100 -m 10`) of each request body in turn, and reads the memory again 15 s after the
load. Outcomes come from the server's /metrics (h2load counts every gRPC status as a success).

    scripts/bench-memory.py                          # target/release/arbiter, default flags
    scripts/bench-memory.py --binary /tmp/old/arbiter --label before
    scripts/bench-memory.py -- --concurrency-limit 8192   # extra `arbiter serve` flags
    scripts/bench-memory.py --analysis-heavy          # also: concurrent flag-fall analyses

Request bodies (hand-encoded protobuf, gRPC framing): ListLegalMoves of a middlegame,
ApplyMove startpos + e4, AdjudicateGame of an 81-ply game as moves and as PGN, and the same game
on AdjudicateGames streams (one message per stream, 1,000 streams open at once).
Needs h2load (Debian nghttp2-client).
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICE = "arbiter.v1.ArbiterService"

# An 81-ply game (lichess 2025-05 sample, game 45 of tests/data/games/lichess-2025-05-sample.pgn).
GAME_INDEX = 44
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R1BQK2R w KQ - 0 8"
# Black's flag falls in a locked pawn ending: the "can White still mate?" analysis is expensive.
ANALYSIS_FEN = "8/pkp5/4p3/8/P5p1/2P3pb/P3P1p1/6K1 b - - 0 1"


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, value):
    """A length-delimited field (string, bytes, message) or a varint field (int)."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def grpc_frame(message):
    return b"\x00" + len(message).to_bytes(4, "big") + message


def game_81():
    text = (ROOT / "tests/data/games/lichess-2025-05-sample.pgn").read_text(encoding="utf-8")
    games = text.split("\n\n[Event")
    pgn = ("[Event" if GAME_INDEX else "") + games[GAME_INDEX]
    movetext = pgn.split("\n\n", 1)[1]
    movetext = re.sub(r"\{[^}]*\}", "", movetext)
    movetext = re.sub(r"\d+\.+", "", movetext)
    moves = [t for t in movetext.split() if t not in ("1-0", "0-1", "1/2-1/2", "*")]
    assert len(moves) == 81, len(moves)
    return pgn.strip() + "\n", moves


def bodies(analysis_heavy):
    pgn, moves = game_81()
    position = lambda fen: field(1, fen)  # Position.fen
    game = field(1, position("startpos")) + b"".join(field(2, m) for m in moves)  # Game
    out = {
        "ListLegalMoves": ("ListLegalMoves", field(1, position(MIDDLEGAME))),
        "ApplyMove": ("ApplyMove", field(1, position("startpos")) + field(3, "e4")),
        "AdjudicateGame(moves)": ("AdjudicateGame", field(1, game)),
        "AdjudicateGame(pgn)": ("AdjudicateGame", field(3, pgn)),
        "AdjudicateGames(stream)": ("AdjudicateGames", field(1, game)),
    }
    if analysis_heavy:
        # GameEvent{kind: FLAG_FALL (1), side: BLACK (2)} on AdjudicateGameRequest.event (4).
        event = field(1, 1) + field(2, 2)
        flag_game = field(1, position(ANALYSIS_FEN))
        out["AdjudicateGame(flag fall analysis)"] = (
            "AdjudicateGame",
            field(1, flag_game) + field(4, event),
        )
    return out


def rss_kib(pid, key="VmRSS"):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def reset_peak(pid):
    # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return r.read().decode()


def handled(text, method):
    counts = {}
    for line in text.splitlines():
        if line.startswith("grpc_server_handled_total{") and f'grpc_method="{method}"' in line:
            code = re.search(r'grpc_code="([^"]+)"', line).group(1)
            counts[code] = counts.get(code, 0) + float(line.rsplit(" ", 1)[1])
    return counts


def mib(kib):
    return f"{kib / 1024:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / "target/release/arbiter"))
    parser.add_argument("--label", default="")
    parser.add_argument("--requests", type=int, default=20000, help="calls per body (default 20000)")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds after the load (default 15)")
    parser.add_argument("--analysis-heavy", action="store_true")
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()

    grpc_port, metrics_port = free_port(), free_port()
    cmd = [args.binary, "serve", "--grpc-addr", f"127.0.0.1:{grpc_port}",
           "--metrics-addr", f"127.0.0.1:{metrics_port}", "--log-format", "json", *args.serve_args]
    if "--health-addr" in subprocess.run([args.binary, "serve", "--help"], capture_output=True, text=True).stdout:
        cmd += ["--health-addr", "off"]
    log = open(os.devnull, "w")
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, "RUST_LOG": "warn"})
    try:
        for line in server.stdout:
            if line.startswith("arbiter listening on"):
                break
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        time.sleep(2)
        idle = rss_kib(server.pid)
        print(f"# {args.label} {' '.join(cmd[1:2] + args.serve_args)}")
        print(f"idle RSS: {mib(idle)} MiB")
        print("| load | peak RSS MiB | RSS 15 s after MiB | outcomes (/metrics) |")
        print("|---|---:|---:|---|")
        for name, (method, message) in bodies(args.analysis_heavy).items():
            body = Path(f"/tmp/arbiter-bench-{os.getpid()}.bin")
            body.write_bytes(grpc_frame(message))
            before = handled(scrape(metrics_port), method)
            reset_peak(server.pid)
            peak = [rss_kib(server.pid)]
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    peak[0] = max(peak[0], rss_kib(server.pid), rss_kib(server.pid, "VmHWM"))
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample)
            sampler.start()
            requests = args.requests if "analysis" not in name else 200
            subprocess.run(["h2load", "-n", str(requests), "-c", "100", "-m", "10", "-t", "1",
                            "-H", "content-type: application/grpc", "-H", "te: trailers",
                            "-d", str(body), f"http://127.0.0.1:{grpc_port}/{SERVICE}/{method}"],
                           capture_output=True, text=True, timeout=600)
            stop.set()
            sampler.join()
            body.unlink()
            after = handled(scrape(metrics_port), method)
            outcomes = {code: int(after.get(code, 0) - before.get(code, 0)) for code in after}
            outcomes = {c: n for c, n in outcomes.items() if n}
            time.sleep(args.settle)
            settled = rss_kib(server.pid)
            print(f"| {name} | {mib(peak[0])} | {mib(settled)} | {outcomes} |", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
