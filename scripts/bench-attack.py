#!/usr/bin/env python3
"""Probes and scrapes under attack, and the log lines of TLS faults (issue 26, items 2 and 4).

Each attack starts its own `arbiter serve` (default bounds; loopback, free ports, RUST_LOG unset:
the binary's default log filter), holds connections from the attacker's address while probing
as the kubelet and Prometheus do, and prints how many probes were answered:

  watch     32 connections to the health port, each holding Health/Watch("liveness"), reopened
            when closed; a fresh liveness Check every 100 ms (1 s timeout, as the kubelet's
            default timeoutSeconds).
  idle      32 idle HTTP/2 connections to the health port, reopened as soon as they are closed;
            the same probes.
  scrape    16 connections to the metrics port, 8 kept alive after one scrape and 8 trickling a
            request's headers a byte every 200 ms, reopened when closed; a fresh scrape every
            500 ms (10 s timeout, Prometheus's default scrape_timeout).
  tls       (item 4) TLS connections that each send a TLS 1.2 ClientHello and then application
            data where the handshake's next message belongs (rustls answers with a fatal alert,
            and warned once per connection); prints the connections made per second, the log
            lines the server wrote at WARN or above, and the connections counted tls_error.

The attacker's connections come from --attacker (default 127.0.0.2: another source than the
probes' 127.0.0.1, as another pod is to the kubelet on the pod's node); --attacker 127.0.0.1 puts
them on the probes' own address. The probes are raw HTTP/2 and HTTP/1.1 written here, so that the
probe's own cost does not depend on a client library.

    scripts/bench-attack.py                                  # target/release/arbiter, every attack
    scripts/bench-attack.py --binary /tmp/before/arbiter --label before
    scripts/bench-attack.py --only watch idle --seconds 10
"""

import argparse
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# HealthCheckRequest{service: "liveness"} and HealthCheckResponse{status: SERVING}.
LIVENESS = b"\x0a\x08liveness"
SERVING = b"\x08\x01"


def grpc_frame(message):
    return b"\x00" + len(message).to_bytes(4, "big") + message


def h2_frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def hpack(headers):
    """Literal header fields without indexing, new names, no Huffman (every length < 127)."""
    out = b""
    for name, value in headers:
        out += b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
    return out


def grpc_call(authority, path, message):
    """The bytes of an HTTP/2 connection that opens with one gRPC call on stream 1."""
    headers = hpack([(b":method", b"POST"), (b":scheme", b"http"), (b":path", path),
                     (b":authority", authority.encode()), (b"content-type", b"application/grpc"),
                     (b"te", b"trailers")])
    return (PREFACE + h2_frame(4, 0, 0) + h2_frame(1, 0x4, 1, headers)
            + h2_frame(0, 0x1, 1, grpc_frame(message)))


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def read_frame(sock):
    """(type, flags, stream, payload); answers SETTINGS and PING as a client must."""
    header = recv_exact(sock, 9)
    length = int.from_bytes(header[:3], "big")
    kind, flags = header[3], header[4]
    stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
    payload = recv_exact(sock, length)
    if kind == 4 and not flags & 1:
        sock.sendall(h2_frame(4, 1, 0))
    elif kind == 6 and not flags & 1:
        sock.sendall(h2_frame(6, 1, 0, payload))
    return kind, flags, stream, payload


def connect(addr, source, timeout):
    return socket.create_connection(addr, timeout=timeout, source_address=(source, 0))


def liveness_check(addr, timeout=1.0):
    """A fresh connection, Health/Check("liveness"): True when SERVING came within `timeout`."""
    deadline = time.monotonic() + timeout
    try:
        with connect(addr, "127.0.0.1", timeout) as sock:
            sock.sendall(grpc_call(f"{addr[0]}:{addr[1]}", b"/grpc.health.v1.Health/Check", LIVENESS))
            while True:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                kind, _, stream, payload = read_frame(sock)
                if kind == 0 and stream == 1:
                    return payload == grpc_frame(SERVING)
                if kind == 7 or (kind == 3 and stream == 1):  # GOAWAY, RST_STREAM
                    return False
    except (OSError, ConnectionError):
        return False


def scrape(addr, timeout=10.0):
    """A fresh connection, GET /metrics: the body when answered 200 within `timeout`."""
    try:
        with connect(addr, "127.0.0.1", timeout) as sock:
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
            data = b""
            deadline = time.monotonic() + timeout
            while True:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            return body.decode() if head.startswith(b"HTTP/1.1 200") else None
    except OSError:
        return None


class Attack:
    """`count` threads, each holding one connection made by `hold(sock_factory)` and opening a
    new one as soon as it ends, until stopped. `held` counts connections currently held."""

    def __init__(self, count, hold):
        self.stop = threading.Event()
        self.held = 0
        self.opened = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(hold,), daemon=True) for _ in range(count)]

    def run(self, hold):
        while not self.stop.is_set():
            counted = [False]

            def established():
                with self.lock:
                    self.held += 1
                    self.opened += 1
                counted[0] = True

            try:
                hold(established, self.stop)
            except (OSError, ConnectionError):
                pass
            if counted[0]:
                with self.lock:
                    self.held -= 1

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=5)


def hold_until_closed(sock, stop):
    sock.settimeout(0.5)
    while not stop.is_set():
        try:
            if not sock.recv(65536):
                return
        except socket.timeout:
            continue


def h2_holder(addr, source, watch):
    def hold(established, stop):
        with connect(addr, source, 5) as sock:
            if watch:
                sock.sendall(grpc_call(f"{addr[0]}:{addr[1]}", b"/grpc.health.v1.Health/Watch", LIVENESS))
                while True:
                    kind, _, stream, _ = read_frame(sock)
                    if kind == 0 and stream == 1:
                        break
                    if kind == 7 or (kind == 3 and stream == 1):
                        return
            else:
                sock.sendall(PREFACE + h2_frame(4, 0, 0))
            established()
            sock.settimeout(0.5)
            while not stop.is_set():
                try:
                    read_frame(sock)
                except socket.timeout:
                    continue
    return hold


def metrics_holder(addr, source, slow):
    def hold(established, stop):
        with connect(addr, source, 5) as sock:
            established()
            if slow:
                sock.settimeout(0.2)
                for byte in b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nX-Slow: " + b"a" * 100000:
                    if stop.is_set():
                        return
                    sock.sendall(bytes([byte]))
                    try:
                        if not sock.recv(1):
                            return
                    except socket.timeout:
                        pass
            else:
                sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\n\r\n")
                hold_until_closed(sock, stop)
    return hold


class Server:
    """`arbiter serve` on loopback with free ports; counts its log lines by level."""

    def __init__(self, binary, extra=()):
        cmd = [binary, "serve", "--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
               "--health-addr", "127.0.0.1:0", "--log-format", "json", *extra]
        env = {k: v for k, v in os.environ.items() if k != "RUST_LOG"}
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.lines = {}
        self.addrs = {}
        # The one "arbiter listening" log line names the three addresses (grpc_addr,
        # metrics_addr, health_addr).
        for line in self.process.stderr:
            self.count_line(line)
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("message") == "arbiter listening":
                for name, field in (("listening", "grpc_addr"), ("metrics", "metrics_addr"),
                                    ("health", "health_addr")):
                    host, _, port = event[field].rpartition(":")
                    self.addrs[name] = (host, int(port))
                break
        threading.Thread(target=self.count_lines, daemon=True).start()

    def count_line(self, line):
        match = re.search(r'"level":"(\w+)"', line)
        level = match.group(1) if match else "?"
        self.lines[level] = self.lines.get(level, 0) + 1

    def count_lines(self):
        for line in self.process.stderr:
            self.count_line(line)

    def loud_lines(self):
        return self.lines.get("WARN", 0) + self.lines.get("ERROR", 0)

    def closed(self, listener):
        text = scrape(self.addrs["metrics"]) or ""
        counts = {}
        for match in re.finditer(rf'arbiter_connections_closed_total{{listener="{listener}",reason="(\w+)"}} (\S+)', text):
            if float(match.group(2)):
                counts[match.group(1)] = int(float(match.group(2)))
        return counts

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def wait_held(attack, count, seconds=20):
    deadline = time.monotonic() + seconds
    while attack.held < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    return attack.held


def probe_run(probe, every, seconds):
    answered = total = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        total += 1
        answered += bool(probe())
        time.sleep(max(every - (time.monotonic() - started), 0))
    return answered, total


def health_attack(args, watch):
    server = Server(args.binary)
    try:
        health = server.addrs["health"]
        with Attack(32, h2_holder(health, args.attacker, watch)) as attack:
            held = wait_held(attack, 32)
            answered, total = probe_run(lambda: liveness_check(health), 0.1, args.seconds)
            opened = attack.opened
        what = "Watch" if watch else "idle, reopened at once"
        return (f"32 {what} connections held ({held} at the start, {opened} opened in all)",
                "fresh liveness Checks", answered, total, server.closed("health"))
    finally:
        server.stop()


def scrape_attack(args):
    server = Server(args.binary)
    try:
        metrics = server.addrs["metrics"]
        holders = [metrics_holder(metrics, args.attacker, slow=index % 2 == 1) for index in range(16)]
        attacks = [Attack(1, hold) for hold in holders]
        for attack in attacks:
            attack.__enter__()
        try:
            held = sum(wait_held(attack, 1) for attack in attacks)
            answered, total = probe_run(lambda: scrape(metrics) is not None, 0.5, args.seconds)
            opened = sum(attack.opened for attack in attacks)
        finally:
            for attack in attacks:
                attack.__exit__()
        closed = server.closed("metrics")
        return (f"16 metrics connections, 8 kept alive and 8 trickling headers ({held} held at the start, "
                f"{opened} opened in all)", "fresh scrapes", answered, total, closed)
    finally:
        server.stop()


def client_hello():
    """The first flight (one TLS record, a ClientHello offering TLS 1.2 only) of Python's ssl."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def tls_attack(args):
    directory = Path(tempfile.mkdtemp(prefix="arbiter-bench-attack-"))
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-days", "1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = Server(args.binary, ["--tls-cert", str(cert), "--tls-key", str(key)])
    try:
        grpc = server.addrs["listening"]
        hello = client_hello()
        # Application data (content type 23) where the client's next handshake message belongs.
        wrong = hello + b"\x17\x03\x03\x00\x05hello"
        before = server.loud_lines()
        count = 0
        start = time.monotonic()
        while time.monotonic() - start < args.seconds:
            try:
                with connect(grpc, args.attacker, 5) as sock:
                    sock.sendall(wrong)
                    hold_until_closed(sock, threading.Event())
            except OSError:
                pass
            count += 1
        elapsed = time.monotonic() - start
        time.sleep(1)
        lines = server.loud_lines() - before
        closed = server.closed("grpc")
        return (f"TLS: a ClientHello then application data, {count} connections, {count / elapsed:.0f}/s",
                "connections without a WARN/ERROR line", max(count - lines, 0), count,
                {**closed, "WARN+ERROR lines": lines})
    finally:
        server.stop()
        for path in (cert, key):
            path.unlink(missing_ok=True)
        directory.rmdir()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / "target/release/arbiter"))
    parser.add_argument("--label", default="")
    parser.add_argument("--attacker", default="127.0.0.2",
                        help="the attacker's source address (default 127.0.0.2; 127.0.0.1: the probes' own)")
    parser.add_argument("--seconds", type=float, default=30.0, help="probing time per attack (default 30)")
    parser.add_argument("--only", nargs="*", choices=["watch", "idle", "scrape", "tls"],
                        default=["watch", "idle", "scrape", "tls"])
    args = parser.parse_args()
    print(f"# {args.label} {args.binary}, attacker {args.attacker}, {args.seconds:.0f} s each")
    print(f"load average before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print("| attack | probes | answered | % | connections closed (by reason) |")
    print("|---|---|---:|---:|---|")
    runs = {"watch": lambda: health_attack(args, True), "idle": lambda: health_attack(args, False),
            "scrape": lambda: scrape_attack(args), "tls": lambda: tls_attack(args)}
    for name in args.only:
        what, probes, answered, total, closed = runs[name]()
        percent = 100.0 * answered / total if total else 0.0
        print(f"| {what} | {probes} | {answered} of {total} | {percent:.1f} | {closed} |", flush=True)
    print(f"load average after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    sys.exit(main())
