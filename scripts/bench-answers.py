#!/usr/bin/env python3
"""Memory of `arbiter serve` under clients that do not read their answers (issue 26 item 1).

Starts a server (loopback, free ports, default flags unless given after `--`), then runs each
attack with HTTP/2 clients written by hand here: every connection sends
SETTINGS_INITIAL_WINDOW_SIZE=0, answers PINGs, and never sends a WINDOW_UPDATE, so the server can
send no answer data at all.

- unary: C connections (default 300) x M ApplyMoves calls each (default 60) of a 2,700-ply game
  that no rule ends (14 KB requests, ~73 KB answers; until issue 27 knights out and back, 16 KB
  requests, which ApplyMoves now refuses at ply 17), all sent at once;
- stream: S connections (default 20), each with one AdjudicateGames stream carrying one message
  just under 1 MiB of short tagless games whose moves all carry a wrong `+` (warnings on every
  answer).

For each attack it prints the server's RSS before, its peak during (VmHWM, reset before the
attack), and its RSS after the attacking connections are closed (at once, and 15 s later), with
the answer bytes held, the calls abandoned and shed, and whether a client that reads was served
during the attack (a ListLegalMoves call on a fresh connection, every second). Pass criteria of
the issue: peak RSS <= 100 MiB; RSS after 15 s below twice the RSS before.

    scripts/bench-answers.py                                   # target/release/arbiter
    scripts/bench-answers.py --binary /tmp/old/arbiter --label before
    scripts/bench-answers.py --connections 20 --calls 60       # the smaller figure of the issue
"""

import argparse
import importlib.util
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


# The protobuf and gRPC framing helpers of the request-load benchmark.
_memory = importlib.util.spec_from_file_location("bench_memory", ROOT / "scripts/bench-memory.py")
bench_memory = importlib.util.module_from_spec(_memory)
_memory.loader.exec_module(bench_memory)
field, grpc_frame = bench_memory.field, bench_memory.grpc_frame
free_port, rss_kib, scrape = bench_memory.free_port, bench_memory.rss_kib, bench_memory.scrape


def apply_moves(plies):
    # The first plies of a legal game that no rule ends (tests/data/unended-game.txt, made by
    # tests/src/unended.rs): ApplyMoves refuses a move after the game's end, so knights shuffled
    # out and back would be refused at ply 17 (fivefold repetition) instead of answered.
    moves = (ROOT / "tests/data/unended-game.txt").read_text().split()
    assert plies <= len(moves), (plies, len(moves))
    return b"".join(field(2, move) for move in moves[:plies])


def warned_pgn(limit=1024 * 1024 - 64):
    game = "1. e4+ e5+ 2. Nf3+ Nc6+ 3. Bb5+ a6+ 4. Ba4+ Nf6+ *\n\n"
    return game * (limit // len(game))


def list_legal_moves():
    position = field(1, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R1BQK2R w KQ - 0 8")
    return field(1, position)


# --- HTTP/2 by hand ----------------------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 6, 7, 8


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def hpack_string(text):
    data = text.encode()
    assert len(data) < 127
    return bytes([len(data)]) + data


def request_headers(authority, method):
    # Indexed :method POST (3), :scheme http (6); literal :path (name 4), :authority (name 1);
    # literal new names content-type and te. No Huffman, no indexing.
    block = b"\x83\x86"
    block += b"\x04" + hpack_string(f"/{SERVICE}/{method}")
    block += b"\x01" + hpack_string(authority)
    block += b"\x00" + hpack_string("content-type") + hpack_string("application/grpc")
    block += b"\x00" + hpack_string("te") + hpack_string("trailers")
    return block


class Unreading:
    """One HTTP/2 connection with a window of 0 that answers PINGs and reads nothing else. It
    sends its requests within the server's flow-control windows, as a real client must (a
    client that overruns them is only closed with FLOW_CONTROL_ERROR)."""

    def __init__(self, port, reading=False):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.authority = f"127.0.0.1:{port}"
        # The control (--reading): a client that grants the default window and gives back
        # every byte it reads, so that the same flood's cost without the attack shows.
        self.reading = reading
        window = 65535 if reading else 0
        settings = (4).to_bytes(2, "big") + window.to_bytes(4, "big")  # INITIAL_WINDOW_SIZE
        self.sock.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
        self.next_stream = 1
        self.closed = False
        self.lock = threading.Condition()
        self.conn_window = 65535
        self.initial_window = 65535
        self.stream_windows = {}
        self.pending = []  # [stream, remaining body bytes]
        self.max_frame = 16384
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._send, daemon=True).start()

    def call(self, method, message):
        with self.lock:
            stream = self.next_stream
            self.next_stream += 2
            self.stream_windows[stream] = self.initial_window
            self._write(frame(HEADERS, 0x4, stream, request_headers(self.authority, method)))
            self.pending.append([stream, grpc_frame(message)])
            self.lock.notify_all()

    def _write(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True

    def _send(self):
        with self.lock:
            while not self.closed:
                progressed = False
                for entry in self.pending:
                    stream, body = entry
                    room = min(self.conn_window, self.stream_windows.get(stream, 0), self.max_frame)
                    if room <= 0 or not body:
                        continue
                    chunk, entry[1] = body[:room], body[room:]
                    self.conn_window -= len(chunk)
                    self.stream_windows[stream] -= len(chunk)
                    self._write(frame(DATA, 0 if entry[1] else 0x1, stream, chunk))
                    progressed = True
                self.pending = [entry for entry in self.pending if entry[1]]
                if not progressed:
                    self.lock.wait(1.0)

    def _read(self):
        buffer = b""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                buffer += data
                while len(buffer) >= 9:
                    length = int.from_bytes(buffer[:3], "big")
                    if len(buffer) < 9 + length:
                        break
                    kind, flags = buffer[3], buffer[4]
                    stream = int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
                    payload = buffer[9:9 + length]
                    buffer = buffer[9 + length:]
                    with self.lock:
                        if kind == SETTINGS and not flags & 0x1:
                            for at in range(0, len(payload) - 5, 6):
                                ident = int.from_bytes(payload[at:at + 2], "big")
                                value = int.from_bytes(payload[at + 2:at + 6], "big")
                                if ident == 4:
                                    delta = value - self.initial_window
                                    self.initial_window = value
                                    for key in self.stream_windows:
                                        self.stream_windows[key] += delta
                                elif ident == 5:
                                    self.max_frame = value
                            self._write(frame(SETTINGS, 0x1, 0))
                        elif kind == DATA and self.reading and length:
                            update = length.to_bytes(4, "big")
                            self._write(frame(WINDOW_UPDATE, 0, 0, update)
                                        + frame(WINDOW_UPDATE, 0, stream, update))
                        elif kind == PING and not flags & 0x1:
                            self._write(frame(PING, 0x1, 0, payload))
                        elif kind == WINDOW_UPDATE:
                            increment = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
                            if stream == 0:
                                self.conn_window += increment
                            elif stream in self.stream_windows:
                                self.stream_windows[stream] += increment
                        elif kind == RST:
                            self.stream_windows.pop(stream, None)
                            self.pending = [e for e in self.pending if e[0] != stream]
                        self.lock.notify_all()
        except OSError:
            pass
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def close(self):
        with self.lock:
            self.closed = True
            self.lock.notify_all()
        # shutdown, not only close: the reading thread is blocked in recv() on this socket,
        # and a close() alone leaves the connection open until that call returns (it never
        # does, as nothing more comes), so the server would never see the client go.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


# --- the server --------------------------------------------------------------------------------

def series(text, pattern):
    total = 0.0
    for line in text.splitlines():
        if re.match(pattern, line):
            total += float(line.rsplit(" ", 1)[1])
    return total


def reader_served(port):
    """A client that reads: one ListLegalMoves call on a fresh connection with the default
    window, read to its end. Served when the answer carried data and ended with trailers (an
    error is a trailers-only answer, without data)."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
        out = frame(HEADERS, 0x4, 1, request_headers(f"127.0.0.1:{port}", "ListLegalMoves"))
        out += frame(DATA, 0x1, 1, grpc_frame(list_legal_moves()))
        sock.sendall(out)
        buffer = b""
        got_data = False
        deadline = time.time() + 5
        while time.time() < deadline:
            data = sock.recv(65536)
            if not data:
                return False
            buffer += data
            while len(buffer) >= 9:
                length = int.from_bytes(buffer[:3], "big")
                if len(buffer) < 9 + length:
                    break
                kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big")
                payload = buffer[9:9 + length]
                buffer = buffer[9 + length:]
                if kind == SETTINGS and not flags & 0x1:
                    sock.sendall(frame(SETTINGS, 0x1, 0))
                if kind == DATA and stream == 1 and payload:
                    got_data = True
                if kind == HEADERS and stream == 1 and flags & 0x1:
                    sock.close()
                    return got_data
                if kind == RST and stream == 1:
                    sock.close()
                    return False
        sock.close()
        return False
    except OSError:
        return False


def attack(name, port, metrics_port, pid, connections, launch, settle, reading=False):
    text = scrape(metrics_port)
    abandoned0 = series(text, r"arbiter_answers_abandoned_total")
    shed0 = series(text, r"arbiter_calls_shed_total")
    before = rss_kib(pid)
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass
    clients = [Unreading(port, reading) for _ in range(connections)]
    for client in clients:
        launch(client)
    served, tried = 0, 0
    held_peak = 0.0
    for _ in range(10):
        time.sleep(1)
        tried += 1
        served += reader_served(port)
        held_peak = max(held_peak, series(scrape(metrics_port), r"arbiter_answer_bytes_in_flight"))
    peak = rss_kib(pid, "VmHWM")
    for client in clients:
        client.close()
    time.sleep(0.5)
    right_after = rss_kib(pid)
    time.sleep(settle)
    after = rss_kib(pid)
    text = scrape(metrics_port)
    print(f"{name}: RSS before {before / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB, "
          f"at close {right_after / 1024:.1f} MiB, {settle:.0f} s later {after / 1024:.1f} MiB "
          f"({'<' if after < 2 * before else '>='} 2x before); answer bytes held at most "
          f"{held_peak / 1048576:.1f} MiB; abandoned {series(text, r'arbiter_answers_abandoned_total') - abandoned0:.0f}, "
          f"shed {series(text, r'arbiter_calls_shed_total') - shed0:.0f}; "
          f"a reading client served {served} of {tried} times")
    return peak, before, after


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / "target/release/arbiter"))
    parser.add_argument("--label", default="")
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--settle", type=float, default=15.0)
    parser.add_argument("--reading", action="store_true",
                        help="the control: the same clients, reading every answer as it comes")
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()

    print(f"{args.label or Path(args.binary).name}: {args.binary} {' '.join(args.serve_args)}")
    unary = apply_moves(2700)
    pgn = field(2, warned_pgn())
    attacks = [
        (f"unary ({args.connections} connections x {args.calls} ApplyMoves of 2,700 plies, window 0)",
         args.connections,
         lambda client: [client.call("ApplyMoves", unary) for _ in range(args.calls)]),
        (f"stream ({args.streams} AdjudicateGames streams of 1 MiB of warned games, window 0)",
         args.streams,
         lambda client: client.call("AdjudicateGames", pgn)),
    ]
    ok = True
    # A server of its own for each attack, so that each starts from an idle server.
    for name, connections, launch in attacks:
        port, metrics_port, health_port = free_port(), free_port(), free_port()
        server = subprocess.Popen(
            [args.binary, "serve", "--grpc-addr", f"127.0.0.1:{port}",
             "--metrics-addr", f"127.0.0.1:{metrics_port}", "--health-addr", f"127.0.0.1:{health_port}",
             "--log-format", "json", *args.serve_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    scrape(metrics_port)
                    break
                except OSError:
                    time.sleep(0.1)
            if args.reading:
                name = name.replace("window 0", "reading")
            peak, before, after = attack(name, port, metrics_port, server.pid, connections, launch,
                                         args.settle, args.reading)
            ok &= peak <= 100 * 1024 and after < 2 * before
        finally:
            server.terminate()
            server.wait(timeout=30)
    print("PASS" if ok else "FAIL: peak above 100 MiB or RSS not back below twice the start")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
