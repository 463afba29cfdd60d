#!/usr/bin/env python3
"""Per-call cost of arbiter's RPCs against gRPC health Check on the same server (issue 13).

Starts the release server on loopback (free ports), then, for each round, runs h2load
(`-c 4 -m 16` by default: 64 calls in flight on 4 connections) against `grpc.health.v1.Health/Check`
and each target in adjacent runs, so that both of a pair see the same machine load. Successful
calls are counted from the server's /metrics before and after each run (h2load counts every gRPC
status as a success); the server's CPU time per call is read from /proc/PID/stat; the peak RSS
(VmHWM) is sampled. Prints, per target, the medians over the rounds of OK calls per second, the
ratio to the adjacent health Check run, and server CPU microseconds per call.

    scripts/bench-rpc.sh                         # builds target/release/arbiter, 3 rounds
    scripts/bench-rpc.sh --rounds 5 --requests 50000
    scripts/bench-rpc.sh --binary /tmp/old/arbiter --label before
    scripts/bench-rpc.sh --peer                  # also python-chess + grpcio (../shared/peers)
    scripts/bench-rpc.sh --memory                # then the 1,000-caller memory test
                                                 # (scripts/bench-memory.py)

Targets: ListLegalMoves of a 46-move middlegame, ApplyMove startpos + e4, AdjudicateGame of an
81-ply game as moves (ongoing) and as PGN (resignation inferred). With --peer, the
`peer.v1.PeerService/LegalMoves` server of ../shared/peers/pychess-grpc (set up with its setup.sh,
venv in /tmp/peer-venv) answers the same FEN, and its ratio to arbiter's ListLegalMoves in the
adjacent run is printed; its calls are counted by h2load (the peer has no /metrics), after one
call checked with nghttp to answer grpc-status 0.
Needs h2load (Debian nghttp2-client). No timed assertion anywhere: this prints figures.
"""

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))
memory = importlib.import_module("bench-memory")  # request bodies, /metrics readers

ROOT = SCRIPTS.parent
HEALTH = ("grpc.health.v1.Health", "Check")
# 46 legal moves for White (FEN from BENCHMARKS.md's memory bench).
MIDDLEGAME = memory.MIDDLEGAME
CLK_TCK = os.sysconf("SC_CLK_TCK")


def targets():
    pgn, moves = memory.game_81()
    field = memory.field
    position = lambda fen: field(1, fen)  # Position.fen
    game = field(1, position("startpos")) + b"".join(field(2, m) for m in moves)
    service = memory.SERVICE
    return {
        "ListLegalMoves (46 moves)": (service, "ListLegalMoves", field(1, position(MIDDLEGAME))),
        "ApplyMove startpos + e4": (service, "ApplyMove", field(1, position("startpos")) + field(3, "e4")),
        "AdjudicateGame, 81 plies as moves": (service, "AdjudicateGame", field(1, game)),
        "AdjudicateGame, 81 plies as PGN": (service, "AdjudicateGame", field(3, pgn)),
    }


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def ok_calls(text, service, method):
    total = 0.0
    for line in text.splitlines():
        if (line.startswith("grpc_server_handled_total{") and f'grpc_service="{service}"' in line
                and f'grpc_method="{method}"' in line and 'grpc_code="OK"' in line):
            total += float(line.rsplit(" ", 1)[1])
    return total


def h2load(port, path, body_file, requests, clients, streams):
    """Runs h2load; returns (seconds, h2load's own count of 2xx responses)."""
    out = subprocess.run(
        ["h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams), "-t", "1",
         "-H", "content-type: application/grpc", "-H", "te: trailers", "-d", str(body_file),
         f"http://127.0.0.1:{port}{path}"],
        capture_output=True, text=True, timeout=900).stdout
    value, unit = re.search(r"finished in ([\d.]+)(us|ms|s)", out).groups()
    seconds = float(value) / {"us": 1e6, "ms": 1e3, "s": 1.0}[unit]
    ok = int(re.search(r"status codes: (\d+) 2xx", out).group(1))
    return seconds, ok


def start_server(binary, serve_args):
    grpc_port, metrics_port = memory.free_port(), memory.free_port()
    cmd = [binary, "serve", "--grpc-addr", f"127.0.0.1:{grpc_port}",
           "--metrics-addr", f"127.0.0.1:{metrics_port}", "--health-addr", "off",
           "--log-format", "json", *serve_args]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "RUST_LOG": "warn"})
    memory.wait_listening(grpc_port, server)
    return server, grpc_port, metrics_port


def start_peer(port):
    venv = Path("/tmp/peer-venv")
    script = ROOT.parent / "shared/peers/pychess-grpc/server.py"
    if not (venv / "bin/python").exists() or not script.exists():
        sys.exit(f"--peer needs {script} and its venv {venv} (run its setup.sh)")
    peer = subprocess.Popen([str(venv / "bin/python"), str(script), str(port)],
                            env={**os.environ, "PYTHONPATH": str(venv)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2)
    return peer


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / "target/release/arbiter"))
    parser.add_argument("--label", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=30000, help="calls per run (default 30000)")
    parser.add_argument("--clients", type=int, default=4, help="h2load -c (default 4)")
    parser.add_argument("--streams", type=int, default=16, help="h2load -m (default 16)")
    parser.add_argument("--peer", action="store_true", help="also the python-chess gRPC peer")
    parser.add_argument("--memory", action="store_true",
                        help="then run scripts/bench-memory.py with the same binary")
    parser.add_argument("serve_args", nargs="*", help="extra `arbiter serve` flags (after --)")
    args = parser.parse_args()

    server, port, metrics_port = start_server(args.binary, args.serve_args)
    peer_port = memory.free_port()
    peer = None
    work = Path(f"/tmp/arbiter-bench-rpc-{os.getpid()}")
    work.mkdir()
    results = {}
    try:
        peer = start_peer(peer_port) if args.peer else None
        bodies = {"health": (*HEALTH, b"")}
        bodies.update(targets())
        if peer:
            bodies["peer"] = ("peer.v1.PeerService", "LegalMoves", memory.field(1, MIDDLEGAME))
        files = {}
        for name, (service, method, message) in bodies.items():
            files[name] = work / f"{len(files)}.bin"
            files[name].write_bytes(memory.grpc_frame(message))
        if peer:
            # h2load cannot see grpc-status (a trailer): one call with nghttp shows it.
            check = subprocess.run(
                ["nghttp", "-v", "-H", "content-type: application/grpc", "-H", "te: trailers",
                 "-d", str(files["peer"]),
                 f"http://127.0.0.1:{peer_port}/peer.v1.PeerService/LegalMoves"],
                capture_output=True, text=True, errors="replace").stdout
            if "grpc-status: 0" not in check:
                sys.exit(f"the peer did not answer with grpc-status 0:\n{check[-2000:]}")

        def run(name):
            service, method, _ = bodies[name]
            path = f"/{service}/{method}"
            if name == "peer":
                seconds, ok = h2load(peer_port, path, files[name], args.requests // 10,
                                     args.clients, args.streams)
                return ok / seconds, float("nan")
            before_text = memory.scrape(metrics_port)
            cpu0 = cpu_seconds(server.pid)
            seconds, _ = h2load(port, path, files[name], args.requests, args.clients, args.streams)
            cpu1 = cpu_seconds(server.pid)
            ok = ok_calls(memory.scrape(metrics_port), service, method) - ok_calls(before_text, service, method)
            return ok / seconds, (cpu1 - cpu0) / max(ok, 1) * 1e6

        memory.reset_peak(server.pid)
        for round_number in range(args.rounds):
            for name in bodies:
                if name in ("health", "peer"):
                    continue
                health_rate, health_cpu = run("health")
                rate, cpu = run(name)
                results.setdefault(name, []).append((rate, rate / health_rate, cpu))
                results.setdefault("health", []).append((health_rate, 1.0, health_cpu))
                if peer and name.startswith("ListLegalMoves"):
                    peer_rate, _ = run("peer")
                    results.setdefault("peer", []).append((peer_rate, rate / peer_rate, float("nan")))
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr, flush=True)
        peak = memory.rss_kib(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(timeout=30)
        if peer:
            peer.terminate()
            peer.wait(timeout=30)
        for f in work.iterdir():
            f.unlink()
        work.rmdir()

    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"# {args.label} {args.binary}, h2load -n {args.requests} -c {args.clients} -m {args.streams}, "
          f"{args.rounds} rounds, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load}")
    print("| call | OK calls/s | ÷ health Check (adjacent run) | server CPU µs per call |")
    print("|---|---:|---:|---:|")
    for name, rows in results.items():
        rate = statistics.median(r[0] for r in rows)
        ratio = statistics.median(r[1] for r in rows)
        cpu = statistics.median(r[2] for r in rows)
        if name == "peer":
            print(f"| python-chess + grpcio LegalMoves (same FEN) | {rate:,.0f} | "
                  f"arbiter ListLegalMoves ÷ peer: **{ratio:.1f}** | |")
        else:
            print(f"| {name} | {rate:,.0f} | **{ratio:.2f}** | {cpu:.0f} |")
    print(f"peak RSS (VmHWM): {peak / 1024:.1f} MiB")
    if args.memory:
        subprocess.run([sys.executable, str(SCRIPTS / "bench-memory.py"), "--binary", args.binary,
                        "--label", args.label, *(["--"] + args.serve_args if args.serve_args else [])],
                       check=True)


if __name__ == "__main__":
    main()
