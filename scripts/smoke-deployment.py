#!/usr/bin/env python3
"""Smoke test: run target/release/arbiter exactly as the chart's Deployment would, and probe it.

Renders helm/arbiter with default values (helm-python-sdk), takes the container's args, env and
ports from the Deployment (and the image's ENV from deploy/Dockerfile, which the pod env
overrides), and starts the binary with exactly those, on the same numeric ports. When run as root
it starts it the way the pod's securityContext asks: as uid/gid 65532 (setpriv) with every mount
but /tmp, /proc, /dev and /sys read-only (a private mount namespace from unshare). Then:

  - waits for the gRPC and health ports (startup probe), runs the probes' equivalents
    (`arbiter health-check --service liveness|readiness`) on the port the probes name, which must
    be the container port named `health`, and the `helm test` pod's commands against 127.0.0.1;
  - scrapes /metrics on the rendered metrics port (ARBITER_METRICS_ADDR): status 200, the
    build-info gauge, and the gRPC counters of the health checks just made;
  - checks that the logs are JSON (the pod sets ARBITER_LOG_FORMAT=json);
  - sends SIGTERM to the PID: readiness must turn NOT_SERVING while liveness stays SERVING, and the
    process must exit 0 within the drain timeout.

Every ARBITER_* variable the Deployment sets that `arbiter serve --help` does not list is reported
(--strict-env makes that an error). Prints one line per check and a closing summary line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import helm_python as helm
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "helm" / "arbiter"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
SANDBOX_UID = 65532

PASSED: list[str] = []
FAILED: list[str] = []


def result(ok: bool, name: str, detail: str = "") -> bool:
    (PASSED if ok else FAILED).append(name)
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f"\n     {detail}" if detail and not ok else ""), flush=True)
    return ok


def render_deployment() -> tuple[dict[str, Any], dict[str, Any] | None]:
    with helm.Chart.load(CHART) as chart:
        manifests = chart.render(None, name="arbiter", namespace="arbiter", is_install=True)
    docs = [d for path, text in manifests.items() if path.endswith((".yaml", ".yml"))
            for d in yaml.safe_load_all(text) if d]
    (deployment,) = [d for d in docs if d.get("kind") == "Deployment"]
    tests = [d for d in docs if d.get("metadata", {}).get("annotations", {}).get("helm.sh/hook") == "test"]
    return deployment, tests[0] if tests else None


def image_env() -> dict[str, str]:
    """ENV of the Dockerfile's last stage (what the container starts with before the pod env)."""
    env: dict[str, str] = {}
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    for line in text.splitlines():
        words = line.strip().split(None, 1)
        if words and words[0].upper() == "FROM":
            env = {}
        elif len(words) == 2 and words[0].upper() == "ENV":
            for item in shlex.split(words[1]):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def port_free(port: int) -> bool:
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                s.bind((host, port))
        except OSError as exc:
            if family == socket.AF_INET6 and exc.errno in (97, 99):  # no IPv6 here
                continue
            return False
    return True


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def sandbox_prefix() -> list[str]:
    """unshare + read-only mounts + setpriv, when running as root and the kernel allows it."""
    if os.geteuid() != 0:
        return []
    script = (
        "set -e; "
        "awk '{print $2}' /proc/self/mounts | sort -u | while read -r mp; do "
        "  case \"$mp\" in /proc*|/dev*|/sys*|/tmp|/tmp/*) continue;; esac; "
        "  mount -o remount,bind,ro \"$mp\" 2>/dev/null || true; "
        "done; "
        "if touch /.arbiter-rw-probe 2>/dev/null; then echo 'root filesystem still writable' >&2; exit 97; fi; "
        f"exec setpriv --reuid {SANDBOX_UID} --regid {SANDBOX_UID} --clear-groups --inh-caps=-all -- \"$@\""
    )
    prefix = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sandbox"]
    probe = subprocess.run([*prefix, "sh", "-c", "test \"$(id -u)\" = %d && ! touch /work/.rw 2>/dev/null" % SANDBOX_UID],
                           capture_output=True, text=True)
    return prefix if probe.returncode == 0 else []


def health(binary: str, port: int, service: str, timeout: str = "3s") -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, "health-check", "--addr", f"http://127.0.0.1:{port}", "--service", service,
                           "--timeout", timeout], capture_output=True, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.environ.get("ARBITER_BIN", str(ROOT / "target" / "release" / "arbiter")))
    parser.add_argument("--strict-env", action="store_true", help="fail on ARBITER_* variables the binary does not know")
    parser.add_argument("--no-sandbox", action="store_true", help="run as the current user on a writable filesystem")
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    if not os.access(binary, os.X_OK):
        print(f"FAIL {binary} not found: build it first (cargo build --release --locked --bin arbiter)")
        return 1

    deployment, test_pod = render_deployment()
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    cmd_args = container.get("args", [])
    assert "command" not in container, "the chart overrides the entrypoint: not emulated"
    env_items = container.get("env", [])
    unsupported = [e["name"] for e in env_items if "value" not in e]
    assert not unsupported, f"env from valueFrom is not emulated: {unsupported}"
    pod_env = {e["name"]: e["value"] for e in env_items}
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", **image_env(), **pod_env}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    grpc_port, metrics_port = ports["grpc"], ports["metrics"]
    health_port = ports.get("health")
    probes = {k: container[k] for k in ("startupProbe", "livenessProbe", "readinessProbe") if k in container}
    print(f"arbiter {' '.join(cmd_args)}  (ports {ports}; env {' '.join(f'{k}={v}' for k, v in pod_env.items())})", flush=True)

    serve_help = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    known = set(re.findall(r"env: (ARBITER_\w+)", serve_help))
    unknown = sorted(k for k in env if k.startswith("ARBITER_") and k not in known)
    if unknown:
        msg = f"the binary does not read {', '.join(unknown)} yet"
        if args.strict_env:
            result(False, "every ARBITER_* variable of the Deployment is known to `arbiter serve`", msg)
        else:
            print(f"note {msg} (ignored by the server; --strict-env fails on it)", flush=True)
    metrics_supported = "ARBITER_METRICS_ADDR" in known

    for name, port in ports.items():
        if not result(port_free(port), f"port {port} ({name}) is free on this machine",
                      "something else listens there (a `make run`?): stop it and run again"):
            return 1

    prefix = [] if args.no_sandbox else sandbox_prefix()
    print(f"     running {'as uid 65532 with read-only mounts' if prefix else 'as the current user'}", flush=True)
    # Logs (stderr) and the "listening" line (stdout) go to separate files.
    log = tempfile.NamedTemporaryFile("w+b", prefix="arbiter-smoke-", suffix=".stderr.log", delete=False)
    out_log = tempfile.NamedTemporaryFile("w+b", prefix="arbiter-smoke-", suffix=".stdout.log", delete=False)
    start = time.monotonic()
    proc = subprocess.Popen([*prefix, binary, *cmd_args], env=env, stdin=subprocess.DEVNULL, stdout=out_log, stderr=log,
                            cwd="/")
    try:
        startup = probes.get("startupProbe", {})
        budget = startup.get("periodSeconds", 1) * startup.get("failureThreshold", 30) + startup.get("timeoutSeconds", 1)
        for name, port in (("gRPC", grpc_port), ("health", health_port)):
            up = port is not None and wait_port(port, proc, budget)
            if not result(up, f"{name} port {port} accepts connections within the startup probe's {budget}s",
                          f"exit {proc.poll()}; log:\n{Path(log.name).read_text(errors='replace')[-2000:]}"):
                return 1
        print(f"     up after {time.monotonic() - start:.2f}s (pid {proc.pid})", flush=True)
        for probe, spec in probes.items():
            grpc = spec["grpc"]
            if not result(grpc["port"] == health_port, f"{probe} asks the health port ({health_port})",
                          f"it asks port {grpc['port']}"):
                continue
            out = health(binary, grpc["port"], grpc.get("service", ""), f"{spec.get('timeoutSeconds', 1)}s")
            result(out.returncode == 0, f"{probe}: health-check --service {grpc.get('service', '')!r} exits 0",
                   f"exit {out.returncode}: {out.stdout}{out.stderr}")
        if test_pod:
            for tc in test_pod["spec"]["containers"]:
                targs = list(tc["args"])
                i = targs.index("--addr") + 1
                targs[i] = re.sub(r"//[^:/]+", "//127.0.0.1", targs[i])
                out = subprocess.run([binary, *targs], capture_output=True, text=True)
                result(out.returncode == 0, f"helm test container {tc['name']}: arbiter {' '.join(targs)}",
                       f"exit {out.returncode}: {out.stdout}{out.stderr}")
        out = health(binary, health_port, "no.such.Service")
        result(out.returncode != 0, "an unknown health service name is not SERVING")

        if not metrics_supported:
            result(False, "the binary reads ARBITER_METRICS_ADDR", "`arbiter serve --help` does not list it")
        else:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as resp:
                    body = resp.read().decode()
                    status = resp.status
            except OSError as exc:
                status, body = 0, str(exc)
            result(status == 200 and "arbiter_build_info" in body, f"GET :{metrics_port}/metrics serves arbiter_build_info",
                   f"status {status}: {body[:300]}")
            handled = re.search(r'^grpc_server_handled_total\{[^}]*grpc_service="grpc\.health\.v1\.Health"[^}]*grpc_code="OK"\} (\d+)',
                                body, re.MULTILINE)
            result(handled is not None and int(handled.group(1)) >= 1,
                   "/metrics counts the health checks (grpc_server_handled_total, grpc_code=\"OK\")", body[:300])
            result("# TYPE grpc_server_handling_seconds histogram" in body,
                   "grpc_server_handling_seconds is a histogram", body[:300])

        proc.send_signal(signal.SIGTERM)
        sigterm = time.monotonic()
        time.sleep(0.3)
        if proc.poll() is None:
            ready = health(binary, health_port, "readiness", "1s")
            live = health(binary, health_port, "liveness", "1s")
            result(ready.returncode != 0, "after SIGTERM, readiness is NOT_SERVING (lame duck)",
                   f"readiness exit {ready.returncode}")
            if live.returncode != 0 and proc.poll() is not None:
                print("     (exited before liveness was asked)", flush=True)
            else:
                result(live.returncode == 0, "after SIGTERM, liveness stays SERVING", f"liveness exit {live.returncode}: {live.stderr}")
        drain = env.get("ARBITER_DRAIN_TIMEOUT", "15s")
        drain_s = float(re.match(r"[0-9.]+", drain).group()) * {"ms": 0.001, "m": 60, "h": 3600}.get(re.sub(r"[0-9.]", "", drain), 1)
        grace = pod.get("terminationGracePeriodSeconds", 30)
        try:
            code = proc.wait(timeout=min(drain_s + 5, grace))
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - sigterm
        result(code == 0, f"SIGTERM: exits 0 within the drain timeout ({drain}) and grace period ({grace}s)",
               f"exit {code} after {took:.1f}s")
        print(f"     exited {code} {took:.2f}s after SIGTERM", flush=True)

        lines = [l for l in Path(log.name).read_text(errors="replace").splitlines() if l.strip()]
        try:
            parsed = [json.loads(l) for l in lines]
            ok = bool(parsed) and all(isinstance(p, dict) for p in parsed)
        except ValueError as exc:
            ok, parsed = False, [str(exc)]
        result(ok, f"logs (stderr) are JSON lines ({len(lines)} lines)", "\n".join(lines[:5]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (log, out_log):
            f.close()
            if not FAILED:
                os.unlink(f.name)
            else:
                print(f"     server output kept: {f.name}")

    print(f"deploy-smoke: {len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
