#!/usr/bin/env python3
"""Smoke test of the image: run the OCI archive of `make image` with podman as the chart runs it.

The archive is read as a registry or a cluster would get it, then loaded into a podman store of
its own (under --state-dir; containers.conf from mk/containers.conf, nothing of the machine's):

  - the archive: one image whose config runs /usr/local/bin/arbiter as user 65532:65532, one
    layer holding that file and nothing else (FROM scratch), a static ELF (no interpreter, no
    shared library);
  - the container runs with the rendered Deployment's args, env, ports and security context
    (default chart values; helm-python-sdk, as scripts/smoke-deployment.py renders it): read-only
    root, every capability dropped, uid/gid 65532, no privilege escalation (no_new_privs), the
    runtime's default seccomp profile, the emptyDir volumes as tmpfs; each container port is
    published on 127.0.0.1. The kernel's view of the process is checked (uid, gid, capabilities,
    no_new_privs, seccomp, the root mount read-only), not only podman's;
  - from outside the container: the probes' health checks SERVING on the health port, one real
    call (ListLegalMoves of the start position through `buf curl` and server reflection: 20
    moves), /metrics;
  - inside the container: `arbiter health-check --addr http://localhost:<health port>`, the
    image's only program, and the same with the container's host name: host names resolve in the
    image (the static glibc reads the /etc/hosts and /etc/resolv.conf the runtime mounts, as the
    kubelet does; the image has no name-service libraries and needs none);
  - `podman stop --time <grace period>` (SIGTERM to the server, which is PID 1): readiness turns
    NOT_SERVING while liveness stays SERVING, the container exits 0 before the grace period and
    the log says the drain finished ("drained: all calls finished", not the drain timeout).

Where containers cannot run (no podman, or the kernel refuses the namespaces a container needs),
it prints "NOT RUN" with the reason and exits 0. Prints one line per check and a closing summary.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import io
import json
import os
import pwd
import re
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONTAINERS_CONF = ROOT / "mk" / "containers.conf"
ENTRYPOINT = "/usr/local/bin/arbiter"
IMAGE_USER = "65532:65532"
CONTAINER = f"arbiter-smoke-image-{os.getpid()}"

# The rendering and the check bookkeeping of the Deployment smoke test.
_spec = importlib.util.spec_from_file_location("smoke_deployment", ROOT / "scripts" / "smoke-deployment.py")
smoke = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(smoke)
result = smoke.result


def run(cmd: list[str], timeout: float = 120, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


# ---- the archive --------------------------------------------------------------------------------


def read_archive(path: Path) -> tuple[str | None, dict[str, Any], list[tarfile.TarInfo], bytes | None]:
    """The image's name (its reference annotation), config, the entries of its layers, and the bytes
    of the entrypoint's file."""
    with tarfile.open(path) as tar:
        def blob(digest: str) -> bytes:
            algo, _, hexdigest = digest.partition(":")
            return tar.extractfile(f"blobs/{algo}/{hexdigest}").read()

        index = json.loads(tar.extractfile("index.json").read())
        (entry,) = index["manifests"]
        manifest = json.loads(blob(entry["digest"]))
        config = json.loads(blob(manifest["config"]["digest"]))
        entries: list[tarfile.TarInfo] = []
        binary = None
        for layer in manifest["layers"]:
            data = blob(layer["digest"])
            with tarfile.open(fileobj=io.BytesIO(data)) as layer_tar:  # gzip or plain: detected
                for member in layer_tar.getmembers():
                    entries.append(member)
                    if "/" + member.name.lstrip("./") == ENTRYPOINT and member.isfile():
                        binary = layer_tar.extractfile(member).read()
    return entry.get("annotations", {}).get("org.opencontainers.image.ref.name"), config, entries, binary


def elf_dynamic_needs(data: bytes) -> tuple[bool, bool]:
    """(has a PT_INTERP program header, has a DT_NEEDED entry) of a 64-bit little-endian ELF."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF"
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    interp = needed = False
    for i in range(phnum):
        p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 3:  # PT_INTERP
            interp = True
        elif p_type == 2:  # PT_DYNAMIC: (d_tag, d_val) pairs up to DT_NULL
            for off in range(p_offset, p_offset + p_filesz, 16):
                tag, _val = struct.unpack_from("<qQ", data, off)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed = True
    return interp, needed


def check_archive(path: Path, name: str) -> bool:
    try:
        ref, config, entries, binary = read_archive(path)
    except (OSError, KeyError, ValueError, tarfile.TarError) as exc:
        return result(False, f"{path.name} is an OCI archive of one image", str(exc))
    result(True, f"{path.name} is an OCI archive of one image ({path.stat().st_size / 2**20:.1f} MiB)")
    # containerd's import (kind load image-archive, k3d image import) names the image after it.
    result(ref == name, f"the archive names the image {name} (org.opencontainers.image.ref.name)", f"it names {ref!r}")
    cfg = config.get("config", {})
    result(cfg.get("User") == IMAGE_USER, f"the image runs as the numeric user {IMAGE_USER}", f"User is {cfg.get('User')!r}")
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    label = cfg.get("Labels", {}).get("org.opencontainers.image.version")
    result(label == version, f"its version label is the workspace's version, {version}", f"the label is {label!r}")
    result(cfg.get("Entrypoint") == [ENTRYPOINT] and cfg.get("Cmd") == ["serve"],
           f"the image runs `{ENTRYPOINT} serve`", f"Entrypoint {cfg.get('Entrypoint')}, Cmd {cfg.get('Cmd')}")
    files = sorted("/" + e.name.lstrip("./") for e in entries if not e.isdir())
    result(files == [ENTRYPOINT], f"its layers hold {ENTRYPOINT} and nothing else (FROM scratch)", f"files: {files[:20]}")
    if binary is None:
        return result(False, f"{ENTRYPOINT} is a regular file of the image")
    try:
        interp, needed = elf_dynamic_needs(binary)
    except (AssertionError, struct.error) as exc:
        return result(False, f"{ENTRYPOINT} is an ELF executable", str(exc))
    return result(not interp and not needed, f"{ENTRYPOINT} is static: no ELF interpreter, no shared library",
                  f"PT_INTERP {interp}, DT_NEEDED {needed}")


# ---- podman -------------------------------------------------------------------------------------


class Podman:
    """podman with a store of its own under `state`, and the project's containers.conf."""

    def __init__(self, state: Path) -> None:
        # podman refuses a run root longer than 50 characters ("the specified runroot is longer
        # than 50 characters"), which a checkout in a deep directory gives: the run state (sockets,
        # locks) goes to a short directory of the system's own, removed at exit.
        runroot = tempfile.mkdtemp(prefix="arbiter-podman-", dir="/tmp" if os.path.isdir("/tmp") else None)
        atexit.register(shutil.rmtree, runroot, True)
        self.flags = ["--root", str(state / "storage"), "--runroot", runroot,
                      "--tmpdir", str(state / "tmp"), "--storage-driver", "vfs"]
        self.env = {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}

    def __call__(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return run(["podman", *self.flags, *args], timeout=timeout, env=self.env)

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(["podman", *self.flags, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, env=self.env)


def why_containers_cannot_run() -> str | None:
    """The reason containers cannot run here, or None."""
    for tool in ("podman", "runc", "slirp4netns"):
        if not shutil.which(tool):
            return f"no {tool} on PATH (make image-tools installs Debian's podman, runc and slirp4netns with apt-get)"
    spaces = ["--mount", "--pid", "--net", "--uts", "--ipc", "--fork"]
    if os.geteuid() != 0:
        spaces = ["--user", "--map-root-user", *spaces]
        # Rootless podman maps the image's user 65532 through the caller's subordinate ids.
        user = pwd.getpwuid(os.geteuid()).pw_name
        for path in ("/etc/subuid", "/etc/subgid"):
            try:
                lines = Path(path).read_text().splitlines()
            except OSError:
                lines = []
            counts = [int(f[2]) for f in (line.split(":") for line in lines)
                      if len(f) == 3 and f[0] in (user, str(os.geteuid())) and f[2].isdigit()]
            if sum(counts) < 65533:
                return (f"rootless podman needs 65533 subordinate ids for the image's user 65532, and {path} "
                        f"gives {user} {sum(counts)} (usermod --add-subuids/--add-subgids, or run as root)")
    probe = run(["unshare", *spaces, "true"])
    if probe.returncode != 0:
        return f"this machine refuses the namespaces a container needs (unshare {' '.join(spaces)}: {probe.stderr.strip()})"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def security_flags(pod: dict[str, Any], container: dict[str, Any]) -> tuple[list[str], list[str]]:
    """podman flags for the pod's and the container's securityContext, and the keys not emulated."""
    merged = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
    flags: list[str] = []
    unknown: list[str] = []
    for key, value in merged.items():
        if key == "runAsUser":
            flags += ["--user", f"{value}:{merged.get('runAsGroup', value)}"]
        elif key == "runAsGroup" or key == "fsGroup":
            continue  # with runAsUser; fsGroup owns volumes, and only tmpfs ones are emulated (0o1777)
        elif key == "runAsNonRoot":
            if value and merged.get("runAsUser", 0) == 0:
                unknown.append("runAsNonRoot without a numeric runAsUser")
        elif key == "readOnlyRootFilesystem":
            # podman's --read-only also mounts tmpfs on /run, /tmp and /var/tmp: not the pod's view.
            flags += ["--read-only", "--read-only-tmpfs=false"] if value else []
        elif key == "allowPrivilegeEscalation":
            flags += [] if value else ["--security-opt", "no-new-privileges"]
        elif key == "privileged":
            flags += ["--privileged"] if value else []
        elif key == "capabilities":
            flags += [f"--cap-drop={c.lower()}" for c in value.get("drop", [])]
            flags += [f"--cap-add={c.lower()}" for c in value.get("add", [])]
        elif key == "seccompProfile":
            if value.get("type") != "RuntimeDefault":
                unknown.append(f"seccompProfile {value}")  # podman's default profile is RuntimeDefault
        else:
            unknown.append(key)
    return flags, unknown


def proc_status(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/status").read_text()
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def root_mount_options(pid: int) -> list[str]:
    for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[4] == "/":
            return fields[5].split(",")
    return []


def health(binary: str, port: int, service: str) -> subprocess.CompletedProcess[str]:
    return run([binary, "health-check", "--addr", f"http://127.0.0.1:{port}", "--service", service, "--timeout", "2s"])


def seconds(duration: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(ms|s|m|h)?", duration)
    assert match, f"not a duration: {duration!r}"
    return float(match.group(1)) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]


def smoke_container(podman: Podman, image: str, binary: str, buf: str) -> None:
    deployment, _ = smoke.render_deployment(None)
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert "command" not in container, "the chart overrides the entrypoint: not emulated"
    flags, unknown = security_flags(pod, container)
    result(not unknown, "every securityContext setting of the Deployment is emulated", f"not emulated: {unknown}")
    env_items = container.get("env", [])
    assert all("value" in e for e in env_items), "env from valueFrom is not emulated"
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        if "emptyDir" not in volume:
            result(False, f"volume {mount['name']} is emulated", f"only emptyDir volumes are: {volume}")
            return
        flags += ["--tmpfs", f"{mount['mountPath']}:rw,nosuid,nodev,mode=1777"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    published = {name: free_port() for name in ports}
    for name, port in ports.items():
        flags += ["--publish", f"127.0.0.1:{published[name]}:{port}"]
    for e in env_items:
        flags += ["--env", f"{e['name']}={e['value']}"]
    grace = pod.get("terminationGracePeriodSeconds", 30)
    env = {e["name"]: e["value"] for e in env_items}
    drain = env.get("ARBITER_DRAIN_TIMEOUT", "15s")
    print(f"     podman run {' '.join(flags)} {image} {' '.join(container.get('args', []))}", flush=True)

    started = podman("run", "--detach", "--pull", "never", "--name", CONTAINER, *flags, image,
                     *container.get("args", []))
    if not result(started.returncode == 0, "podman run starts the container", started.stderr.strip()):
        return
    try:
        health_port = published.get("health")
        startup = container.get("startupProbe", {})
        budget = startup.get("periodSeconds", 1) * startup.get("failureThreshold", 30)
        deadline = time.monotonic() + budget
        up = False
        while time.monotonic() < deadline and not up:
            up = health(binary, health_port, "readiness").returncode == 0
            if not up:
                time.sleep(0.2)
        if not result(up, f"readiness SERVING on the published health port within the startup probe's {budget}s",
                      podman("logs", CONTAINER).stdout[-2000:]):
            return

        pid = int(podman("inspect", "--format", "{{.State.Pid}}", CONTAINER).stdout.strip())
        status = proc_status(pid)
        uid, gid = status["Uid"].split()[0], status["Gid"].split()[0]
        result((uid, gid) == ("65532", "65532"), "the server runs as uid/gid 65532", f"uid {uid}, gid {gid}")
        result(int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0 and int(status["CapBnd"], 16) == 0,
               "the server has no capability (effective, permitted, bounding)",
               f"CapEff {status['CapEff']}, CapPrm {status['CapPrm']}, CapBnd {status['CapBnd']}")
        result(status.get("NoNewPrivs") == "1", "no_new_privs is set (allowPrivilegeEscalation: false)",
               f"NoNewPrivs {status.get('NoNewPrivs')}")
        result(status.get("Seccomp") == "2", "a seccomp filter is on (RuntimeDefault)", f"Seccomp {status.get('Seccomp')}")
        options = root_mount_options(pid)
        result("ro" in options, "the root filesystem is mounted read-only", f"mount options of /: {options}")

        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            grpc = container.get(probe, {}).get("grpc")
            if grpc:
                out = health(binary, published[next(n for n, p in ports.items() if p == grpc["port"])], grpc.get("service", ""))
                result(out.returncode == 0, f"{probe} from outside: health-check --service {grpc.get('service', '')!r} SERVING",
                       out.stdout + out.stderr)
        # The pod's own name resolves too (the runtime's /etc/hosts holds it, as the kubelet's does).
        hostname = podman("inspect", "--format", "{{.Config.Hostname}}", CONTAINER).stdout.strip()
        for host in ("localhost", hostname):
            inside = podman("exec", CONTAINER, ENTRYPOINT, "health-check", "--addr",
                            f"http://{host}:{ports['health']}", "--service", "liveness", "--timeout", "2s")
            result(inside.returncode == 0,
                   f"inside the image: health-check --addr http://{host}:{ports['health']} SERVING (the name resolves)",
                   f"exit {inside.returncode}: {inside.stdout}{inside.stderr}")

        call = run([buf, "curl", "--protocol", "grpc", "--http2-prior-knowledge", "--data", '{"position":{"fen":"startpos"}}',
                    f"http://127.0.0.1:{published['grpc']}/arbiter.v1.ArbiterService/ListLegalMoves"], timeout=60)
        try:
            moves = len(json.loads(call.stdout).get("moves", []))
        except ValueError:
            moves = None
        result(call.returncode == 0 and moves == 20,
               "from outside: buf curl ListLegalMoves of the start position answers 20 moves (through reflection)",
               f"exit {call.returncode}, {moves} moves: {call.stdout[:300]}{call.stderr[:300]}")

        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{published['metrics']}/metrics", timeout=5) as resp:
                status_code, body = resp.status, resp.read().decode()
        except OSError as exc:
            status_code, body = 0, str(exc)
        result(status_code == 200 and "arbiter_build_info" in body, "from outside: GET /metrics serves arbiter_build_info",
               f"status {status_code}: {body[:300]}")

        # The drain: podman sends the image's stop signal (SIGTERM) to the server, PID 1 of the
        # container, and kills it after --time seconds.
        stop_started = time.monotonic()
        stop = podman.popen("stop", "--time", str(grace), CONTAINER)
        ready = live = None
        while stop.poll() is None and time.monotonic() - stop_started < grace:
            ready = health(binary, health_port, "readiness")
            if ready.returncode != 0:
                live = health(binary, health_port, "liveness")
                break
            time.sleep(0.1)
        result(ready is not None and ready.returncode != 0, "after SIGTERM, readiness is NOT_SERVING (lame duck)",
               "the container stopped before readiness was seen NOT_SERVING")
        result(live is not None and live.returncode == 0, "after SIGTERM, liveness stays SERVING",
               f"liveness: {live.stdout + live.stderr if live else 'not asked'}")
        stop_output, _ = stop.communicate(timeout=grace + 30)
        took = time.monotonic() - stop_started
        result(stop.returncode == 0, f"podman stop --time {grace} succeeds", stop_output)
        state = json.loads(podman("inspect", "--format", "{{json .State}}", CONTAINER).stdout or "{}")
        code = state.get("ExitCode")
        result(code == 0 and took < grace, f"the server exits 0 before podman's {grace}s (the grace period) run out",
               f"exit {code} after {took:.1f}s")
        print(f"     stopped {took:.2f}s after SIGTERM (drain timeout {drain}, {seconds(drain):.0f}s)", flush=True)
        logs = podman("logs", CONTAINER)
        lines = [line for line in (logs.stdout + logs.stderr).splitlines() if line.strip()]
        messages = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            messages.append(str(entry.get("fields", {}).get("message", entry.get("message", ""))))
        result(any(m.startswith("shutdown requested") for m in messages) and "drained: all calls finished" in messages,
               "the log shows SIGTERM received and the drain finished (not its timeout)", "\n".join(lines[-10:]))
    finally:
        podman("rm", "--force", "--time", "0", CONTAINER)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", required=True, type=Path, help="the OCI archive of `make image`")
    parser.add_argument("--binary", default=None,
                        help="an arbiter binary of this machine, for the health checks from outside (default: the tests')")
    parser.add_argument("--state-dir", type=Path, default=ROOT / "target" / "image" / "test",
                        help="podman's store, run state and temporary files (emptied first; default target/image/test)")
    parser.add_argument("--name", default="localhost/arbiter:dev", help="the image's name in the archive")
    parser.add_argument("--buf", default=str(ROOT / "node_modules" / ".bin" / "buf"))
    args = parser.parse_args()
    if not check_archive(args.archive, args.name):
        print(f"smoke-image: {len(smoke.PASSED)} passed, {len(smoke.FAILED)} failed")
        return 1
    reason = why_containers_cannot_run()
    if reason:
        print(f"image-test (podman run): NOT RUN, {reason}")
        print(f"smoke-image: {len(smoke.PASSED)} passed, {len(smoke.FAILED)} failed")
        return 1 if smoke.FAILED else 0
    shutil.rmtree(args.state_dir, ignore_errors=True)
    podman = Podman(args.state_dir.resolve())
    loaded = podman("load", "--input", str(args.archive))
    match = re.search(r"Loaded image(?:\(s\))?: (\S+)", loaded.stdout)
    image = match.group(1) if match else None
    if result(loaded.returncode == 0 and image == args.name, f"podman load reads the archive as {args.name}",
              loaded.stdout + loaded.stderr):
        smoke_container(podman, image, str(Path(args.binary or smoke.default_binary()).resolve()), args.buf)
    print(f"smoke-image: {len(smoke.PASSED)} passed, {len(smoke.FAILED)} failed")
    return 1 if smoke.FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
