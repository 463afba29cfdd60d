#!/usr/bin/env python3
"""Smoke test: run the arbiter binary exactly as the chart's Deployment would, and probe it.

Renders helm/arbiter with default values (helm-python-sdk), takes the container's args, env and
ports from the Deployment (and the image's ENV from deploy/Dockerfile, which the pod env
overrides), and starts the binary with exactly those, on the same numeric ports. When run as root
it starts it the way the pod's securityContext asks: as uid/gid 65532 (setpriv) with every mount
but /tmp, /proc, /dev and /sys read-only (a private mount namespace from unshare). Then:

  - waits for the gRPC and health ports (startup probe), runs the probes' equivalents
    (`arbiter health-check --service liveness|readiness`) on the port the probes name, which must
    be the container port named `health`, and the `helm test` pod's commands against 127.0.0.1;
  - reads the idle process's RSS, which must be below the container's memory request;
  - scrapes /metrics on the rendered metrics port (ARBITER_METRICS_ADDR): status 200, the
    build-info gauge, and the gRPC counters of the health checks just made;
  - checks that the logs are JSON (the pod sets ARBITER_LOG_FORMAT=json);
  - sends SIGTERM to the PID: readiness must turn NOT_SERVING while liveness stays SERVING, and the
    process must exit 0 within the drain timeout.

Then it does it all again with TLS and mutual TLS on (tls.enabled, tls.clientCA.enabled): a
throw-away CA and server certificate made with openssl (the certificate also allows client auth,
as the chart's cert-manager Certificate issues it with mutual TLS) stand in for the Secret, in a
directory that takes the place of every Secret volume's mountPath in the env and args. The probes
must pass in plaintext on the health port, the `helm test` commands over mutual TLS (with
--tls-domain set to the Service name they dial), and plaintext or certificate-less calls to the
gRPC port must fail.

Every ARBITER_* variable the Deployment sets that `arbiter serve --help` does not list is reported
(--strict-env makes that an error). Prints one line per check and a closing summary line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

import helmchart

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
SANDBOX_UID = 65532

PASSED: list[str] = []
FAILED: list[str] = []


def result(ok: bool, name: str, detail: str = "") -> bool:
    (PASSED if ok else FAILED).append(name)
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f"\n     {detail}" if detail and not ok else ""), flush=True)
    return ok


# The values of the TLS pass.
TLS_VALUES: dict[str, Any] = {"tls": {"enabled": True, "clientCA": {"enabled": True}}}


def render_deployment(values: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    # image.repository has no default; the smoke test runs the binary, not the image.
    manifests = helmchart.render(helmchart.with_example_image(values or {}), namespace="arbiter")
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


def health(binary: str, port: int, service: str, timeout: str = "3s", scheme: str = "http",
           extra: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, "health-check", "--addr", f"{scheme}://127.0.0.1:{port}", "--service", service,
                           "--timeout", timeout, *(extra or [])], capture_output=True, text=True)


def make_tls_secret(directory: Path, dns_names: list[str]) -> None:
    """A kubernetes.io/tls Secret's files (tls.crt, tls.key, ca.crt) from a throw-away CA."""
    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True, text=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=arbiter smoke CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-new", *ec, "-keyout", "tls.key", "-out", "tls.csr", "-subj", "/CN=arbiter")
    (directory / "ext.cnf").write_text(
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n"
        f"subjectAltName={','.join('DNS:' + n for n in dns_names)}\n")
    openssl("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-out", "tls.crt", "-extfile", "ext.cnf")
    for name in ("ca.key", "tls.csr", "ext.cnf", "ca.srl"):
        (directory / name).unlink(missing_ok=True)
    # A Secret volume's files are readable by the pod's user (uid 65532 in the sandbox).
    directory.chmod(0o755)
    for f in directory.iterdir():
        f.chmod(0o644)


def rss_bytes(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def quantity_bytes(quantity: Any) -> float:
    """A Kubernetes memory quantity ("128Mi", "1G", 134217728) in bytes."""
    match = re.fullmatch(r"([0-9.]+)([KMGT]i?)?", str(quantity))
    if not match:
        raise ValueError(f"not a memory quantity: {quantity!r}")
    unit = match.group(2) or ""
    power = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}[unit[:1]]
    return float(match.group(1)) * (1024 if unit.endswith("i") else 1000) ** power


def secret_mounts(pod: dict[str, Any], container: dict[str, Any]) -> list[str]:
    """mountPaths of the container's Secret volumes."""
    secrets = {v["name"] for v in pod.get("volumes", []) if "secret" in v}
    return [m["mountPath"] for m in container.get("volumeMounts", []) if m["name"] in secrets]


def remap(value: str, mounts: list[str], directory: Path) -> str:
    """A path under a Secret volume's mountPath, moved to the directory that stands in for it."""
    for mount in mounts:
        if value.startswith(mount + "/"):
            return str(directory) + value[len(mount):]
    return value


def default_binary() -> Path:
    """The binary `make test` builds and tests: target/<host triple>/test-release/arbiter, static
    (mk/build.mk)."""
    triple = subprocess.run(["rustc", "--print", "host-tuple"], capture_output=True, text=True).stdout.strip()
    return ROOT / "target" / triple / "test-release" / "arbiter"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.environ.get("ARBITER_BIN") or str(default_binary()),
                        help="default: $ARBITER_BIN, else the tests' binary (make deploy-build-release builds it)")
    parser.add_argument("--strict-env", action="store_true", help="fail on ARBITER_* variables the binary does not know")
    parser.add_argument("--no-sandbox", action="store_true", help="run as the current user on a writable filesystem")
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    if not os.access(binary, os.X_OK):
        print(f"FAIL {binary} not found: build it first (make deploy-build-release)")
        return 1
    smoke(binary, args, None, "")
    if not shutil.which("openssl"):
        result(False, "[tls] openssl makes the test certificates", "openssl not found on PATH")
    else:
        with tempfile.TemporaryDirectory(prefix="arbiter-smoke-tls-") as tmp:
            smoke(binary, args, TLS_VALUES, "[tls] ", Path(tmp))
    print(f"deploy-smoke: {len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


def smoke(binary: str, args: argparse.Namespace, values: dict[str, Any] | None, tag: str,
          secret_dir: Path | None = None) -> None:
    """Runs the binary as the Deployment rendered with `values` would, and checks it; check names
    start with `tag`. `secret_dir` stands in for every Secret volume (TLS)."""
    if tag:
        print(f"---- again with values {json.dumps(values)}", flush=True)
    deployment, test_pod = render_deployment(values)
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert "command" not in container, "the chart overrides the entrypoint: not emulated"
    env_items = container.get("env", [])
    unsupported = [e["name"] for e in env_items if "value" not in e]
    assert not unsupported, f"env from valueFrom is not emulated: {unsupported}"
    mounts = secret_mounts(pod, container)
    tls = any(e["name"] == "ARBITER_TLS_CERT" for e in env_items)
    if tls or mounts:
        assert secret_dir is not None, "Secret volumes without a directory to stand in for them"
        test_host = re.search(r"//([^:/]+)", test_pod["spec"]["containers"][0]["args"][2]).group(1) if test_pod else "arbiter"
        make_tls_secret(secret_dir, [test_host, "localhost"])
        print(f"     Secret volumes {mounts} -> {secret_dir} (certificate for {test_host})", flush=True)
    cmd_args = [remap(a, mounts, secret_dir) for a in container.get("args", [])] if secret_dir else container.get("args", [])
    pod_env = {e["name"]: remap(e["value"], mounts, secret_dir) if secret_dir else e["value"] for e in env_items}
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
            result(False, f"{tag}every ARBITER_* variable of the Deployment is known to `arbiter serve`", msg)
        else:
            print(f"note {msg} (ignored by the server; --strict-env fails on it)", flush=True)
    metrics_supported = "ARBITER_METRICS_ADDR" in known

    for name, port in ports.items():
        if not result(port_free(port), f"{tag}port {port} ({name}) is free on this machine",
                      "something else listens there (a `make run`?): stop it and run again"):
            return

    prefix = [] if args.no_sandbox else sandbox_prefix()
    print(f"     running {'as uid 65532 with read-only mounts' if prefix else 'as the current user'}", flush=True)
    # Logs (stderr) and standard output, which must stay empty, go to separate files.
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
            if not result(up, f"{tag}{name} port {port} accepts connections within the startup probe's {budget}s",
                          f"exit {proc.poll()}; log:\n{Path(log.name).read_text(errors='replace')[-2000:]}"):
                return
        print(f"     up after {time.monotonic() - start:.2f}s (pid {proc.pid})", flush=True)
        for probe, spec in probes.items():
            grpc = spec["grpc"]
            if not result(grpc["port"] == health_port, f"{tag}{probe} asks the health port ({health_port})",
                          f"it asks port {grpc['port']}"):
                continue
            # The kubelet's gRPC probes speak plaintext, whatever the gRPC port does.
            out = health(binary, grpc["port"], grpc.get("service", ""), f"{spec.get('timeoutSeconds', 1)}s")
            result(out.returncode == 0, f"{tag}{probe}: plaintext health-check --service {grpc.get('service', '')!r} exits 0",
                   f"exit {out.returncode}: {out.stdout}{out.stderr}")
        if test_pod:
            test_mounts = secret_mounts(test_pod["spec"], test_pod["spec"]["containers"][0])
            for tc in test_pod["spec"]["containers"]:
                targs = [remap(a, secret_mounts(test_pod["spec"], tc), secret_dir) if secret_dir else a for a in tc["args"]]
                i = targs.index("--addr") + 1
                host = re.search(r"//([^:/]+)", targs[i]).group(1)
                targs[i] = targs[i].replace(f"//{host}", "//127.0.0.1", 1)
                if targs[i].startswith("https://") and "--tls-domain" not in targs:
                    targs += ["--tls-domain", host]  # the name it dials in the cluster
                out = subprocess.run([binary, *targs], capture_output=True, text=True)
                result(out.returncode == 0, f"{tag}helm test container {tc['name']}: arbiter {' '.join(targs)}",
                       f"exit {out.returncode}: {out.stdout}{out.stderr}")
            if tls:
                ca = [a for a in test_pod["spec"]["containers"][0]["args"] if a.endswith(".crt")][:1]
                out = health(binary, grpc_port, "")
                result(out.returncode != 0, f"{tag}the gRPC port refuses plaintext", f"exit {out.returncode}: {out.stdout}")
                if "ARBITER_TLS_CLIENT_CA" in pod_env and ca:
                    out = health(binary, grpc_port, "", scheme="https",
                                 extra=["--tls-ca", remap(ca[0], test_mounts, secret_dir), "--tls-domain", host])
                    result(out.returncode != 0, f"{tag}the gRPC port refuses a client without a certificate (mutual TLS)",
                           f"exit {out.returncode}: {out.stdout}")
        out = health(binary, health_port, "no.such.Service")
        result(out.returncode != 0, f"{tag}an unknown health service name is not SERVING")
        # The resources are sized from an idle process (~20 MiB) plus analyses: check the first term.
        request = container.get("resources", {}).get("requests", {}).get("memory")
        rss = rss_bytes(proc.pid)
        if request and rss is not None:
            result(rss < quantity_bytes(request), f"{tag}idle RSS {rss / 2**20:.1f} MiB is below the memory request ({request})")

        if not metrics_supported:
            result(False, f"{tag}the binary reads ARBITER_METRICS_ADDR", "`arbiter serve --help` does not list it")
        else:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as resp:
                    body = resp.read().decode()
                    status = resp.status
            except OSError as exc:
                status, body = 0, str(exc)
            result(status == 200 and "arbiter_build_info" in body, f"{tag}GET :{metrics_port}/metrics serves arbiter_build_info",
                   f"status {status}: {body[:300]}")
            handled = re.search(r'^grpc_server_handled_total\{[^}]*grpc_service="grpc\.health\.v1\.Health"[^}]*grpc_code="OK"\} (\d+)',
                                body, re.MULTILINE)
            result(handled is not None and int(handled.group(1)) >= 1,
                   f"{tag}/metrics counts the health checks (grpc_server_handled_total, grpc_code=\"OK\")", body[:300])
            result("# TYPE grpc_server_handling_seconds histogram" in body,
                   f"{tag}grpc_server_handling_seconds is a histogram", body[:300])

        proc.send_signal(signal.SIGTERM)
        sigterm = time.monotonic()
        time.sleep(0.3)
        if proc.poll() is None:
            ready = health(binary, health_port, "readiness", "1s")
            live = health(binary, health_port, "liveness", "1s")
            result(ready.returncode != 0, f"{tag}after SIGTERM, readiness is NOT_SERVING (lame duck)",
                   f"readiness exit {ready.returncode}")
            if live.returncode != 0 and proc.poll() is not None:
                print("     (exited before liveness was asked)", flush=True)
            else:
                result(live.returncode == 0, f"{tag}after SIGTERM, liveness stays SERVING", f"liveness exit {live.returncode}: {live.stderr}")
        drain = env.get("ARBITER_DRAIN_TIMEOUT", "15s")
        drain_s = float(re.match(r"[0-9.]+", drain).group()) * {"ms": 0.001, "m": 60, "h": 3600}.get(re.sub(r"[0-9.]", "", drain), 1)
        grace = pod.get("terminationGracePeriodSeconds", 30)
        try:
            code = proc.wait(timeout=min(drain_s + 5, grace))
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - sigterm
        result(code == 0, f"{tag}SIGTERM: exits 0 within the drain timeout ({drain}) and grace period ({grace}s)",
               f"exit {code} after {took:.1f}s")
        print(f"     exited {code} {took:.2f}s after SIGTERM", flush=True)

        lines = [l for l in Path(log.name).read_text(errors="replace").splitlines() if l.strip()]
        try:
            parsed = [json.loads(l) for l in lines]
            ok = bool(parsed) and all(isinstance(p, dict) for p in parsed)
        except ValueError as exc:
            ok, parsed = False, [str(exc)]
        result(ok, f"{tag}logs (stderr) are JSON lines ({len(lines)} lines)", "\n".join(lines[:5]))
        # A container's output is both streams: one format means nothing beside the JSON log.
        stdout = Path(out_log.name).read_text(errors="replace")
        result(stdout == "", f"{tag}nothing on standard output (issue 27: one log format per process)", stdout[:500])
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


if __name__ == "__main__":
    sys.exit(main())
