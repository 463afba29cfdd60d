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
    scripts/bench-memory.py --large-requests --only-large   # the request-bytes attack loads

With --large-requests, two attack loads on the bytes of requests (issue 10, "bounded whatever
clients send") follow: 1,000 concurrent AdjudicateGame calls of a legal 10,000-ply game in UCI
(knights out and back, ~60 KB each), and 200 concurrent AdjudicateGame calls of one message
just under 4 MiB (the default --max-message-bytes) holding ~2 million empty move strings (each 2
bytes on the wire, a 24-byte String decoded; the server refuses them after decoding).

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


# (h2load -c, -m, -n) of the large-request loads: 1,000 and 200 calls in flight.
LARGE_LOADS = {
    "AdjudicateGame(10,000 UCI plies)": (100, 10, 5000),
    "AdjudicateGame(4 MiB of empty moves)": (200, 1, 1000),
}


def large_bodies(max_message_bytes=4 * 1024 * 1024):
    knights = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2500
    long_game = b"".join(field(2, m) for m in knights)  # Game.moves, start omitted
    # AdjudicateGameRequest.game (1) = Game{moves: ["", "", ...]}: a 1-byte tag and a 3-byte
    # length around the game, 2 bytes per empty move.
    empty = b"\x12\x00" * ((max_message_bytes - 8) // 2)
    out = {
        "AdjudicateGame(10,000 UCI plies)": ("AdjudicateGame", field(1, long_game)),
        "AdjudicateGame(4 MiB of empty moves)": ("AdjudicateGame", field(1, empty)),
    }
    for name, (_, message) in out.items():
        assert len(message) <= max_message_bytes, (name, len(message))
    return out


def bodies(analysis_heavy, large_requests=False, only_large=False):
    if only_large:
        return large_bodies()
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
    if large_requests:
        out.update(large_bodies())
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


def wait_listening(port, process, timeout=30.0):
    """Waits until 127.0.0.1:port accepts connections; exits the script if the server ends or
    the timeout passes first (the server's log, at RUST_LOG=warn, has no line announcing it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"the server exited with status {process.returncode} before listening on port {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"the server did not listen on port {port} within {timeout:.0f} s")


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


def shed(text):
    """arbiter_calls_shed_total by reason."""
    counts = {}
    for line in text.splitlines():
        match = re.match(r'arbiter_calls_shed_total\{reason="([^"]+)"\} (\S+)', line)
        if match:
            counts[match.group(1)] = float(match.group(2))
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
    parser.add_argument("--large-requests", action="store_true",
                        help="also the request-bytes attack loads (see above)")
    parser.add_argument("--only-large", action="store_true",
                        help="only the request-bytes attack loads")
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()

    grpc_port, metrics_port = free_port(), free_port()
    cmd = [args.binary, "serve", "--grpc-addr", f"127.0.0.1:{grpc_port}",
           "--metrics-addr", f"127.0.0.1:{metrics_port}", "--log-format", "json", *args.serve_args]
    if "--health-addr" in subprocess.run([args.binary, "serve", "--help"], capture_output=True, text=True).stdout:
        cmd += ["--health-addr", "off"]
    log = open(os.devnull, "w")
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "RUST_LOG": "warn"})
    try:
        wait_listening(grpc_port, server)
        time.sleep(2)
        idle = rss_kib(server.pid)
        print(f"# {args.label} {' '.join(cmd[1:2] + args.serve_args)}")
        print(f"load average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
        print(f"idle RSS: {mib(idle)} MiB")
        print("| load | peak RSS MiB | RSS 15 s after MiB | outcomes (/metrics) |")
        print("|---|---:|---:|---|")
        for name, (method, message) in bodies(args.analysis_heavy, args.large_requests,
                                              args.only_large).items():
            body = Path(f"/tmp/arbiter-bench-{os.getpid()}.bin")
            body.write_bytes(grpc_frame(message))
            text = scrape(metrics_port)
            before, shed_before = handled(text, method), shed(text)
            reset_peak(server.pid)
            peak = [rss_kib(server.pid)]
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    peak[0] = max(peak[0], rss_kib(server.pid), rss_kib(server.pid, "VmHWM"))
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample)
            sampler.start()
            clients, streams, requests = LARGE_LOADS.get(
                name, (100, 10, args.requests if "analysis" not in name else 200))
            subprocess.run(["h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams),
                            "-t", "1",
                            "-H", "content-type: application/grpc", "-H", "te: trailers",
                            "-d", str(body), f"http://127.0.0.1:{grpc_port}/{SERVICE}/{method}"],
                           capture_output=True, text=True, timeout=600)
            stop.set()
            sampler.join()
            body.unlink()
            text = scrape(metrics_port)
            after, shed_after = handled(text, method), shed(text)
            outcomes = {code: int(after.get(code, 0) - before.get(code, 0)) for code in after}
            outcomes = {c: n for c, n in outcomes.items() if n}
            for reason, count in shed_after.items():
                if count - shed_before.get(reason, 0):
                    outcomes[f"shed {reason}"] = int(count - shed_before.get(reason, 0))
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
