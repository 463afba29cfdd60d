#!/usr/bin/env python3
"""Static checks of everything under deploy/ and helm/: no Docker engine, no cluster needed.

Run inside the deploy virtual environment (`make -f mk/deploy.mk deploy-lint` creates it):

  - hadolint on deploy/Dockerfile; the .dockerignore'd build context holds the whole Cargo
    workspace (cargo metadata --locked --offline in a copy of it);
  - helm lint (helm-python-sdk, Helm's own Go code) with default values, with every optional
    part enabled, with TLS from a Secret, and with mutual TLS from a cert-manager Certificate, for
    each Kubernetes version;
  - helm render of the same value sets; values.schema.json rejects misspelled keys;
  - every rendered object, and the kustomize renders (kubectl kustomize), validated with
    kubernetes-validate --strict against each pinned Kubernetes version; Prometheus Operator and
    cert-manager objects against the strict CRD subsets in deploy/schemas/;
  - invariants: labels, probes on the health port, security context, port names, selectors, test
    hook, drain time, TLS (the Secret mounted whole, never subPath; paths; Certificate names);
  - the chart exposes every setting `arbiter serve --help` lists (the binary given by --binary,
    default the tests' static binary, target/<host triple>/test-release/arbiter) as a value with
    the binary's default, and its Deployment and the kustomize base pass it (exceptions, each
    with its reason: DIFFERENT_DEFAULTS); each
    config.* value reaches its own ARBITER_* variable;
  - the kustomize base agrees with the chart; the alert rules file agrees with the chart's and
    the kustomize overlay's PrometheusRule; the Grafana dashboard copies are identical; every
    PromQL expression parses (promql-parser) and uses only the server's metrics; `promtool
    check rules` when installed; the promtool unit tests (deploy/prometheus/
    arbiter.rules.test.yaml, run by `make deploy-rules`) test every alert both firing and silent.

Exit status 0 when everything passes; prints one line per check and a closing summary line.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import helm_python as helm
import jsonschema
import promql_parser
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "helm" / "arbiter"
KUSTOMIZE = [ROOT / "deploy" / "kustomize" / "base", ROOT / "deploy" / "kustomize" / "overlays" / "production"]
RULES = ROOT / "deploy" / "prometheus" / "arbiter.rules.yaml"
RULES_TEST = ROOT / "deploy" / "prometheus" / "arbiter.rules.test.yaml"
DASHBOARD = ROOT / "deploy" / "grafana" / "arbiter-dashboard.json"
CHART_DASHBOARD = CHART / "dashboards" / "arbiter-dashboard.json"
SCHEMAS = ROOT / "deploy" / "schemas"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"

RELEASE = "arbiter"
NAMESPACE = "arbiter"

# Value sets the chart is rendered, linted and validated with.
ALL_ON: dict[str, Any] = {
    "headlessService": {"enabled": True},
    "autoscaling": {"enabled": True, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300}}},
    "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}},
                "prometheusRule": {"enabled": True, "labels": {"release": "prometheus"}}},
    "networkPolicy": {
        "enabled": True,
        "grpcFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "games"}}}],
        "metricsFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
        "healthFrom": [{"ipBlock": {"cidr": "10.0.0.0/16"}}],
        # Istio ambient's tunnel port, and a sidecar's control plane.
        "extraIngress": [{"ports": [{"port": 15008, "protocol": "TCP"}]}],
        "extraEgress": [{"ports": [{"port": 15012, "protocol": "TCP"}]}],
    },
    "grafanaDashboard": {"enabled": True},
    "podDisruptionBudget": {"enabled": True, "minAvailable": 1},
    "image": {"digest": "sha256:" + "0" * 64},
    "extraEnv": [{"name": "ARBITER_EXTRA", "value": "1"}],
    "grpcWeb": {"corsAllowedOrigins": ["https://app.example.com", "http://127.0.0.1:8080"]},
    "imagePullSecrets": [{"name": "registry"}],
    "priorityClassName": "high",
}
# TLS from a Secret made outside the chart; and from cert-manager, with mutual TLS.
TLS: dict[str, Any] = {"tls": {"enabled": True, "secretName": "arbiter-grpc-tls"}}
TLS_CERT_MANAGER: dict[str, Any] = {
    **ALL_ON,
    "tls": {"enabled": True, "clientCA": {"enabled": True},
            "certManager": {"enabled": True, "issuerRef": {"name": "internal-ca", "kind": "ClusterIssuer"},
                            "duration": "720h", "renewBefore": "240h"}},
}
VALUE_SETS: dict[str, dict[str, Any]] = {"default": {}, "all-optional-parts": ALL_ON, "tls": TLS,
                                         "tls-cert-manager-mtls": TLS_CERT_MANAGER}

# Values that values.schema.json must reject.
BAD_VALUES: dict[str, dict[str, Any]] = {
    "misspelled key": {"config": {"maxMovez": 10}},
    "misspelled top-level key": {"replicas": 3},
    "bad duration": {"config": {"requestTimeout": "ten seconds"}},
    "port out of range": {"ports": {"grpc": 70000}},
    "health port on the gRPC port": {"ports": {"health": 50051}},
    "certManager without tls.enabled": {"tls": {"certManager": {"enabled": True, "issuerRef": {"name": "ca"}}}},
    "certManager without an issuer": {"tls": {"enabled": True, "certManager": {"enabled": True}}},
    "clientCA without tls.enabled": {"tls": {"clientCA": {"enabled": True}}},
    "workers neither a number nor \"\"": {"config": {"workers": "auto"}},
    "bad Go duration for cert-manager": {"tls": {"enabled": True, "certManager": {"enabled": True, "issuerRef": {"name": "ca"}, "duration": "90d"}}},
    "PDB as a list": {"podDisruptionBudget": {"minAvailable": [1]}},
    # A path never equals a browser's Origin: it would silently allow nothing.
    "CORS origin with a path": {"grpcWeb": {"corsAllowedOrigins": ["https://app.example.com/"]}},
    "CORS origins as one string": {"grpcWeb": {"corsAllowedOrigins": "https://a.example,https://b.example"}},
}

# The metrics the server exports (DESIGN.md section 5).
METRICS = {
    "grpc_server_started_total",
    "grpc_server_handled_total",
    "grpc_server_handling_seconds_bucket",
    "grpc_server_handling_seconds_sum",
    "grpc_server_handling_seconds_count",
    "arbiter_games_adjudicated_total",
    "arbiter_moves_rejected_total",
    "arbiter_build_info",
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
}

PASSED: list[str] = []
FAILED: list[str] = []


def check(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Runs the decorated function as one named check, recording pass or fail."""

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        def run(*args: Any, **kwargs: Any) -> None:
            label = name.format(*args, **kwargs)
            try:
                fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every failure is reported the same way
                FAILED.append(label)
                print(f"FAIL {label}\n     {str(exc).strip()}".replace("\n", "\n     "), flush=True)
            else:
                PASSED.append(label)
                print(f"ok   {label}", flush=True)

        return run

    return wrap


def venv_tool(name: str) -> str:
    """A tool installed in this virtual environment's bin/, else from PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} not found (run `make -f mk/deploy.mk deploy-venv`)")
    return found


def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result


def parse_docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def render(values: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """Renders the chart like `helm template`; returns its objects and NOTES.txt."""
    with helm.Chart.load(CHART) as chart:
        manifests = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    notes = ""
    objects: list[dict[str, Any]] = []
    for path, text in sorted(manifests.items()):
        if path.endswith("NOTES.txt"):
            notes = text
            continue
        for doc in parse_docs(text):
            doc.setdefault("__source", path)
            objects.append(doc)
    return objects, notes


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "__source"}


def by_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("kind") == kind]


def one(objects: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [o for o in by_kind(objects, kind) if name is None or o["metadata"]["name"] == name]
    if len(found) != 1:
        raise AssertionError(f"expected one {kind}{' ' + name if name else ''}, found {len(found)}")
    return found[0]


def duration_seconds(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(ms|s|m|h)?", str(text).strip())
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    return float(match.group(1)) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]


# ---- Dockerfile and build context ---------------------------------------------------------------


@check("hadolint deploy/Dockerfile")
def check_hadolint() -> None:
    run([venv_tool("hadolint"), "--failure-threshold", "info", str(DOCKERFILE)])


def dockerignore_excluded(path: str, patterns: list[tuple[bool, str]]) -> bool:
    """Docker's rule: the last matching pattern wins; a pattern matching a parent dir matches."""
    excluded = False
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for negate, pattern in patterns:
        regex = fnmatch.translate(pattern).replace(".*", "[^/]*").replace("[^/]*[^/]*", ".*")
        if any(re.match(regex, p) for p in prefixes):
            excluded = not negate
    return excluded


@check("docker build context (.dockerignore) holds the Cargo workspace; COPY sources exist")
def check_build_context() -> None:
    patterns: list[tuple[bool, str]] = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!").strip("/")
        patterns.append((negate, pattern.replace("**/", "**")))
    files = run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout.split()
    context = [f for f in files if (ROOT / f).is_file() and not dockerignore_excluded(f, patterns)]
    assert "Cargo.lock" in context, "Cargo.lock is not in the build context"
    assert not any(f.startswith(("target/", "node_modules/", ".git/")) for f in context), "context holds build output"
    with tempfile.TemporaryDirectory() as tmp:
        for f in context:
            dest = Path(tmp) / f
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, dest)
        run(["cargo", "metadata", "--locked", "--format-version", "1"], cwd=tmp,
            env={**os.environ, "CARGO_TARGET_DIR": str(Path(tmp) / "target")})
        for line in DOCKERFILE.read_text().splitlines():
            words = line.split()
            if words[:1] == ["COPY"] and not any(w.startswith("--from") for w in words):
                for src in words[1:-1]:
                    assert src == "." or (Path(tmp) / src).exists(), f"COPY source {src} not in context"
    print(f"     context: {len(context)} files", flush=True)


# ---- Helm ---------------------------------------------------------------------------------------


@check("helm lint --strict ({0} values, Kubernetes {1})")
def check_lint(label: str, kube: str) -> None:
    report = helm.lint(CHART, VALUE_SETS[label], strict=True, kube_version=f"v{kube}", namespace=NAMESPACE)
    bad = [m for m in report.get("messages", []) if m.get("severity", 0) >= 2] + report.get("errors", [])
    assert not bad, json.dumps(bad, indent=2)


@check("values.schema.json rejects: {0}")
def check_bad_values(label: str) -> None:
    try:
        render(BAD_VALUES[label])
    except helm.HelmError:
        return
    raise AssertionError("rendered without error")


def validate_objects(objects: list[dict[str, Any]], kube: str, what: str) -> None:
    """kubernetes-validate --strict for built-in kinds, deploy/schemas/ for Prometheus Operator and
    cert-manager kinds."""
    crd_schemas = {
        (s["properties"]["apiVersion"]["const"], s["properties"]["kind"]["const"]): s
        for s in (json.loads(p.read_text()) for p in SCHEMAS.glob("*.json"))
    }
    builtin = []
    for obj in objects:
        key = (obj.get("apiVersion"), obj.get("kind"))
        if key in crd_schemas:
            jsonschema.validate(clean(obj), crd_schemas[key])
        else:
            builtin.append(clean(obj))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix=f"{what}-") as f:
        yaml.safe_dump_all(builtin, f)
        f.flush()
        out = run([venv_tool("kubernetes-validate"), "--strict", "--quiet", "-k", kube, f.name])
        # An object of a kind with no known schema is a warning there: an error here.
        assert "Couldn't find schema" not in out.stdout + out.stderr, out.stdout + out.stderr


@check("render ({0} values) validates against Kubernetes {1} (strict)")
def check_render_valid(label: str, kube: str) -> None:
    objects, _ = render(VALUE_SETS[label])
    validate_objects(objects, kube, label)


LABELS = ["app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
          "app.kubernetes.io/component", "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by",
          "helm.sh/chart"]


@check("chart invariants ({0} values)")
def check_invariants(label: str) -> None:
    values = VALUE_SETS[label]
    objects, notes = render(values)
    with helm.Chart.load(CHART) as chart:
        merged = chart.merge_values(values)
    problems: list[str] = []

    def need(cond: bool, msg: str) -> None:
        if not cond:
            problems.append(msg)

    need(bool(notes.strip()), "NOTES.txt renders empty")
    for o in objects:
        labels = o["metadata"].get("labels", {})
        need(all(k in labels for k in LABELS), f"{o['kind']}/{o['metadata']['name']} lacks labels {[k for k in LABELS if k not in labels]}")
        need(o["metadata"].get("namespace") == NAMESPACE, f"{o['kind']}/{o['metadata']['name']} has no namespace")

    dep = one(objects, "Deployment")
    pod = dep["spec"]["template"]
    selector = dep["spec"]["selector"]["matchLabels"]
    need(all(pod["metadata"]["labels"].get(k) == v for k, v in selector.items()), "pod labels do not match the selector")
    spec = pod["spec"]
    psc = spec["securityContext"]
    need(psc.get("runAsNonRoot") is True and psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "pod securityContext")
    need(spec.get("automountServiceAccountToken") is False, "service account token is mounted")
    need(bool(spec.get("topologySpreadConstraints")), "no topologySpreadConstraints")
    (c,) = spec["containers"]
    sc = c["securityContext"]
    need(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    need(sc.get("runAsNonRoot") is True, "container runAsNonRoot")
    need(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation")
    need(sc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities.drop ALL")
    need(sc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "container seccomp RuntimeDefault")
    need(bool(c.get("resources", {}).get("requests")) and bool(c["resources"].get("limits")), "resources")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    need(set(ports) == {"grpc", "metrics", "health"}, f"container ports {ports}")
    need(len(set(ports.values())) == len(ports), f"container ports collide: {ports}")
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    for name, addr in (("grpc", "ARBITER_GRPC_ADDR"), ("metrics", "ARBITER_METRICS_ADDR")):
        need((env.get(addr) or "").endswith(f":{ports.get(name)}"), f"{addr} port differs from the {name} containerPort")
    need(f"--health-addr=[::]:{ports.get('health')}" in c.get("args", []), "no --health-addr argument on the health containerPort")
    # Probes go to the plaintext health port: they must work when the gRPC port speaks TLS or is
    # at its connection cap.
    for probe, service in (("startupProbe", "liveness"), ("livenessProbe", "liveness"), ("readinessProbe", "readiness")):
        grpc = c.get(probe, {}).get("grpc", {})
        need(isinstance(grpc.get("port"), int) and grpc.get("port") == ports.get("health"), f"{probe} needs the numeric health port")
        need(grpc.get("service") == service, f"{probe} asks for service {grpc.get('service')!r}, not {service!r}")
    drain = duration_seconds(merged["config"]["drainTimeout"])
    need(spec["terminationGracePeriodSeconds"] > drain, f"terminationGracePeriodSeconds <= drainTimeout ({drain}s)")
    need(duration_seconds(merged["config"]["lameDuck"]) < drain, "lameDuck >= drainTimeout")

    services = by_kind(objects, "Service")
    for svc in services:
        need(svc["spec"]["selector"] == selector, f"Service {svc['metadata']['name']} selector")
        for p in svc["spec"]["ports"]:
            need(p["name"] in ("grpc", "metrics") and p.get("targetPort") in ports, f"Service port {p}")
            need(bool(p.get("appProtocol")), f"Service port {p['name']} lacks appProtocol")
    main = one(objects, "Service", dep["metadata"]["name"])
    need({p["name"] for p in main["spec"]["ports"]} == {"grpc", "metrics"}, "Service ports must be grpc and metrics (the health port is the kubelet's)")
    headless = [s for s in services if s["spec"].get("clusterIP") == "None"]
    need(len(headless) == (1 if merged["headlessService"]["enabled"] else 0), "headless Service")

    hpas = by_kind(objects, "HorizontalPodAutoscaler")
    if merged["autoscaling"]["enabled"]:
        need(len(hpas) == 1 and hpas[0]["apiVersion"] == "autoscaling/v2", "HPA autoscaling/v2")
        need(hpas and hpas[0]["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"], "HPA target")
        need("replicas" not in dep["spec"], "Deployment sets replicas while the HPA owns them")
        need(bool(c["resources"]["requests"].get("cpu")), "CPU utilisation HPA needs a CPU request")
    else:
        need(not hpas and dep["spec"].get("replicas") == merged["replicaCount"], "replicas")
    for pdb in by_kind(objects, "PodDisruptionBudget"):
        need(pdb["spec"]["selector"]["matchLabels"] == selector, "PDB selector")
    policies = by_kind(objects, "NetworkPolicy")
    # On by default (README "Probes and scrapes cannot be locked out").
    need(len(policies) == (1 if merged["networkPolicy"]["enabled"] else 0), "one NetworkPolicy when enabled")
    for np in policies:
        need(np["spec"]["podSelector"]["matchLabels"] == selector, "NetworkPolicy podSelector")
        need(np["spec"]["policyTypes"] == ["Ingress", "Egress"], "NetworkPolicy policyTypes")
        opened = {p["port"] for rule in np["spec"].get("ingress", []) for p in rule.get("ports", [])}
        extra = {p["port"] for rule in merged["networkPolicy"]["extraIngress"] for p in rule.get("ports", [])}
        wanted = {"grpc", "metrics"} | ({"health"} if merged["networkPolicy"].get("healthFrom") else set()) | extra
        need(opened == wanted, f"NetworkPolicy opens ports {sorted(map(str, opened))}, not {sorted(map(str, wanted))}")
        for rule in np["spec"].get("ingress", []):
            if any(p["port"] in ("health", ports.get("health")) for p in rule.get("ports", [])):
                need(bool(rule.get("from")), "NetworkPolicy opens the health port to any source")
        need(np["spec"]["egress"] == merged["networkPolicy"]["extraEgress"],
             "NetworkPolicy egress is networkPolicy.extraEgress (none by default)")
    for sm in by_kind(objects, "ServiceMonitor"):
        need(sm["spec"]["selector"]["matchLabels"] == selector, "ServiceMonitor selector")
        need(all(e["port"] == "metrics" for e in sm["spec"]["endpoints"]), "ServiceMonitor port")

    tls = merged["tls"]
    tests = [o for o in objects if o["metadata"].get("annotations", {}).get("helm.sh/hook") == "test"]
    need(len(tests) == 1 and tests[0]["kind"] == "Pod", "one helm test Pod")
    for test in tests:
        # Selected, it would be an endpoint of the Service, counted by the PDB, and denied DNS and
        # the Service by the NetworkPolicy.
        labels = test["metadata"].get("labels", {})
        need(any(labels.get(k) != v for k, v in selector.items()), "the helm test Pod has the server's selector labels")
    service_host = f"{main['metadata']['name']}.{NAMESPACE}.svc"
    target = f"{'https' if tls['enabled'] else 'http'}://{service_host}:{[p['port'] for p in main['spec']['ports'] if p['name'] == 'grpc'][0]}"
    for tc in tests[0]["spec"]["containers"] if tests else []:
        need(tc["args"][:3] == ["health-check", "--addr", target], f"test container args {tc['args']}")
        need(tc["securityContext"].get("readOnlyRootFilesystem") is True, "test pod securityContext")
        need(("--tls-ca" in tc["args"]) == tls["enabled"], "test container: --tls-ca exactly when tls.enabled")
        need(("--tls-cert" in tc["args"]) == (tls["enabled"] and tls["clientCA"]["enabled"]),
             "test container: a client certificate exactly with mutual TLS")
        test_mounts = {m["mountPath"]: m for m in tc.get("volumeMounts", [])}
        for flag in ("--tls-ca", "--tls-cert", "--tls-key"):
            if flag in tc["args"]:
                path = tc["args"][tc["args"].index(flag) + 1]
                need(any(path.startswith(mp + "/") for mp in test_mounts), f"test container {flag} {path} is on no volume")
    check_tls(objects, merged, c, spec, need)
    if problems:
        raise AssertionError("\n".join(problems))


def check_tls(objects: list[dict[str, Any]], merged: dict[str, Any], c: dict[str, Any], spec: dict[str, Any],
              need: Callable[[bool, str], None]) -> None:
    """TLS: the Secret is mounted whole (never subPath), the ARBITER_TLS_* paths point into it, the
    Services say which protocol, and the Certificate writes the Secret the pods mount."""
    tls = merged["tls"]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
    pods = [spec] + [o["spec"] for o in objects if o["kind"] == "Pod"]
    need(not [m for p in pods for ct in p["containers"] for m in ct.get("volumeMounts", []) if "subPath" in m or "subPathExpr" in m],
         "a subPath mount (it never receives Secret updates)")
    need(env.get("ARBITER_TLS_RELOAD_INTERVAL") == tls["reloadInterval"], "ARBITER_TLS_RELOAD_INTERVAL is not tls.reloadInterval")
    grpc_protocols = {p.get("appProtocol") for s in by_kind(objects, "Service") for p in s["spec"]["ports"] if p["name"] == "grpc"}
    certificates = by_kind(objects, "Certificate")
    if not tls["enabled"]:
        need(not [k for k in env if k in ("ARBITER_TLS_CERT", "ARBITER_TLS_KEY", "ARBITER_TLS_CLIENT_CA")], "TLS files set with tls.enabled false")
        need("tls" not in volumes and not certificates, "TLS volume or Certificate with tls.enabled false")
        need(grpc_protocols == {"kubernetes.io/h2c"}, f"gRPC Service ports say {grpc_protocols}, not kubernetes.io/h2c")
        return
    secret = tls["secretName"] or f"{one(objects, 'Deployment')['metadata']['name']}-tls"
    need(volumes.get("tls", {}).get("secret", {}).get("secretName") == secret, f"no Secret volume tls of Secret {secret}")
    mount = mounts.get("tls", {})
    need(mount.get("mountPath") == tls["mountPath"] and mount.get("readOnly") is True, f"TLS volume mount {mount}")
    files = {"ARBITER_TLS_CERT": "tls.crt", "ARBITER_TLS_KEY": "tls.key"}
    if tls["clientCA"]["enabled"]:
        files["ARBITER_TLS_CLIENT_CA"] = tls["clientCA"]["key"]
    for name, key in files.items():
        need(env.get(name) == f"{tls['mountPath']}/{key}", f"{name} is {env.get(name)!r}, not {tls['mountPath']}/{key}")
    need("ARBITER_TLS_CLIENT_CA" in env or not tls["clientCA"]["enabled"], "mutual TLS without ARBITER_TLS_CLIENT_CA")
    need(grpc_protocols == {"https"}, f"gRPC Service ports say {grpc_protocols}, not https")
    if not tls["certManager"]["enabled"]:
        need(not certificates, "a Certificate with tls.certManager.enabled false")
        return
    need(len(certificates) == 1, "no Certificate with tls.certManager.enabled")
    for cert in certificates:
        cs = cert["spec"]
        need(cs["secretName"] == secret, f"the Certificate writes {cs['secretName']}, the pods mount {secret}")
        wanted = {f"{s['metadata']['name']}.{NAMESPACE}.svc" for s in by_kind(objects, "Service")}
        need(wanted <= set(cs["dnsNames"]), f"the Certificate lacks Service names {sorted(wanted - set(cs['dnsNames']))}")
        need(("client auth" in cs["usages"]) == tls["clientCA"]["enabled"], "client auth usage exactly with mutual TLS")
        need("server auth" in cs["usages"], "no server auth usage")


# ---- kustomize ----------------------------------------------------------------------------------


def kustomize(directory: Path) -> list[dict[str, Any]]:
    return parse_docs(run([venv_tool("kubectl"), "kustomize", str(directory)]).stdout)


@check("kubectl kustomize {0} validates against Kubernetes {1} (strict)")
def check_kustomize_valid(rel: str, kube: str) -> None:
    objects = kustomize(ROOT / rel)
    assert objects, "renders nothing"
    validate_objects(objects, kube, Path(rel).name)


def strip_for_compare(obj: Any) -> Any:
    """Drops labels, namespaces and images: what differs between the chart and the kustomize base."""
    if isinstance(obj, dict):
        return {k: strip_for_compare(v) for k, v in obj.items()
                if k not in ("labels", "matchLabels", "namespace", "image", "__source", "annotations")}
    if isinstance(obj, list):
        return [strip_for_compare(v) for v in obj]
    return obj


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON-like values first differ, as "path: chart X, kustomize Y"."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k, "<absent>") != b.get(k, "<absent>"):
                return first_difference(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path or '.'}: chart {json.dumps(a, sort_keys=True)[:300]}, kustomize {json.dumps(b, sort_keys=True)[:300]}"


@check("kustomize base and overlay agree with the chart")
def check_kustomize_matches_chart() -> None:
    chart_objects, _ = render({"headlessService": {"enabled": True}, "autoscaling": {"enabled": True},
                               "metrics": {"serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True}},
                               "networkPolicy": {"enabled": True}})
    chart = {(o["kind"], o["metadata"]["name"]): o for o in chart_objects
             if o["metadata"].get("annotations", {}).get("helm.sh/hook") != "test"}
    kust = {(o["kind"], o["metadata"]["name"]): o for o in kustomize(KUSTOMIZE[1])}
    assert set(chart) == set(kust), f"objects differ: chart only {set(chart) - set(kust)}, kustomize only {set(kust) - set(chart)}"
    diffs = []
    for key, obj in chart.items():
        a, b = strip_for_compare(obj), strip_for_compare(kust[key])
        if key[0] == "ServiceMonitor":
            a["spec"].pop("namespaceSelector", None)
        if a != b:
            diffs.append(f"{key}: {first_difference(a, b)}")
    base = {o["kind"] for o in kustomize(KUSTOMIZE[0])}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ServiceAccount"} <= base, base
    assert not diffs, "\n".join(diffs)


# ---- the chart and the kustomize base against `arbiter serve --help` ----------------------------

# Where the chart keeps each `arbiter serve` setting: config.<camelCase of the name after
# ARBITER_> unless listed here.
VALUE_PATHS = {
    # Addresses: the chart holds the port; the address is "[::]:<port>" (compared with the default).
    "ARBITER_GRPC_ADDR": "ports.grpc",
    "ARBITER_METRICS_ADDR": "ports.metrics",
    "ARBITER_HEALTH_ADDR": "ports.health",
    "ARBITER_TLS_RELOAD_INTERVAL": "tls.reloadInterval",
    # A list in the chart, passed joined by commas (as the flag takes it).
    "ARBITER_CORS_ALLOWED_ORIGINS": "grpcWeb.corsAllowedOrigins",
    # TLS files: no default; paths into the tls.secretName volume when tls.enabled (checked below).
    "ARBITER_TLS_CERT": "tls.enabled",
    "ARBITER_TLS_KEY": "tls.enabled",
    "ARBITER_TLS_CLIENT_CA": "tls.clientCA.enabled",
}
# The only settings whose chart default differs from the binary's, and why. Everything else the
# binary prints a default for must be a chart value with that default, passed by the Deployment.
DIFFERENT_DEFAULTS = {
    # Log settings: the binary picks text on a terminal and JSON otherwise (it prints no default);
    # a pod always logs JSON for the log collector.
    "ARBITER_LOG_FORMAT": "json whatever stderr is",
    # 0 is one worker per core the process sees: without a CPU limit every core of the node, so
    # memory would depend on the node. The chart's "" follows the CPU limit (checked below).
    "ARBITER_WORKERS": "resources.limits.cpu rounded up",
}
# Chart values that are no `arbiter serve` flag.
NOT_FLAGS = {"config.logLevel"}  # RUST_LOG


def serve_options(binary: Path) -> dict[str, dict[str, Any]]:
    """`arbiter serve --help`, parsed: ARBITER_* name -> flag, default (None if none), values."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}  # else help shows them
    text = run([str(binary), "serve", "--help"], env=env).stdout
    options: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        flag = re.match(r"^\s+(?:-\w, )?--([a-z0-9-]+)(?: <\w+>)?\s*$", line)
        if flag:
            current = {"flag": flag.group(1), "default": None, "values": []}
            continue
        if current is None:
            continue
        if m := re.search(r"\[env: (ARBITER_\w+)=[^\]]*\]", line):
            options[m.group(1)] = current
        elif m := re.search(r"\[default: (.*)\]\s*$", line):
            # clap quotes an empty default ("").
            current["default"] = "" if m.group(1) == '""' else m.group(1)
        elif m := re.match(r"^\s+- ([\w-]+):", line):
            current["values"].append(m.group(1))
    if "ARBITER_GRPC_ADDR" not in options or len(options) < 10:
        raise AssertionError(f"could not parse `{binary} serve --help`:\n{text[:500]}")
    return options


def value_path(name: str) -> str:
    words = name.removeprefix("ARBITER_").lower().split("_")
    return VALUE_PATHS.get(name, "config." + words[0] + "".join(w.capitalize() for w in words[1:]))


def lookup(values: dict[str, Any], path: str) -> Any:
    for key in path.split("."):
        if not isinstance(values, dict) or key not in values:
            raise KeyError(path)
        values = values[key]
    return values


def canonical(value: Any) -> Any:
    """Compares durations by length ("1m" == "60s"), integers as integers, a list as the flag
    takes it (joined by commas), anything else as text."""
    text = ",".join(map(str, value)) if isinstance(value, list) else str(value).strip()
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    if re.fullmatch(r"[0-9.]+(ms|s|m|h)", text):
        return ("duration", duration_seconds(text))
    return text


def setting(container: dict[str, Any], name: str, flag: str) -> str | None:
    """What a container passes for a setting: its env variable, else its --flag argument."""
    for e in container.get("env", []):
        if e["name"] == name:
            return e.get("value")
    args = container.get("args", [])
    for i, arg in enumerate(args):
        if arg.startswith(f"--{flag}="):
            return arg.split("=", 1)[1]
        if arg == f"--{flag}" and i + 1 < len(args):
            return args[i + 1]
    return None


def cpu_cores(quantity: Any) -> float:
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def container_of(objects: list[dict[str, Any]]) -> dict[str, Any]:
    (container,) = one(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    return container


@check("chart and kustomize base: every `arbiter serve` setting, with the binary's default ({0})")
def check_serve_defaults(binary: Path) -> None:
    options = serve_options(binary)
    with helm.Chart.load(CHART) as chart:
        values = chart.merge_values({})
    schema = json.loads((CHART / "values.schema.json").read_text())
    chart_c = container_of(render({})[0])
    tls_c = container_of(render(TLS_CERT_MANAGER)[0])
    base_c = container_of([o for o in kustomize(KUSTOMIZE[0]) if o["kind"] == "Deployment"])
    problems: list[str] = []
    for name, opt in sorted(options.items()):
        path, flag, default = value_path(name), opt["flag"], opt["default"]
        try:
            value = lookup(values, path)
        except KeyError:
            problems.append(f"{name} (--{flag}): the chart does not expose it (no value {path})")
            continue
        if path.startswith("ports."):
            value = f"[::]:{value}"
        if opt["values"]:
            enum = lookup(schema["properties"], path.replace(".", ".properties.")).get("enum")
            if sorted(enum or []) != sorted(opt["values"]):
                problems.append(f"{path}: the schema allows {enum}, the binary {opt['values']}")
        if default is None and name not in DIFFERENT_DEFAULTS:
            # TLS files: set exactly when TLS is on, into the Secret volume.
            if setting(chart_c, name, flag) is not None:
                problems.append(f"{name} is set with default values")
            passed = setting(tls_c, name, flag)
            if not (passed or "").startswith(values["tls"]["mountPath"] + "/"):
                problems.append(f"{name} is {passed!r} with {path}: not a file of the TLS Secret volume")
            continue
        for where, container in (("chart", chart_c), ("kustomize base", base_c)):
            passed = setting(container, name, flag)
            if passed is None:
                problems.append(f"{name} (--{flag}): the {where} Deployment does not pass it")
            elif name == "ARBITER_WORKERS":
                cpu = container.get("resources", {}).get("limits", {}).get("cpu")
                wanted = max(1, math.ceil(cpu_cores(cpu))) if cpu is not None else None
                if wanted is None or canonical(passed) != wanted:
                    problems.append(f"{name}: the {where} passes {passed}, not its CPU limit rounded up ({cpu})")
            elif name in DIFFERENT_DEFAULTS:
                pass
            elif canonical(passed) != canonical(default):
                problems.append(f"{name}: the {where} passes {passed!r}, the binary's default is {default!r}")
        if name not in DIFFERENT_DEFAULTS and canonical(value) != canonical(default):
            problems.append(f"{path} is {value!r} in values.yaml, the binary's default ({name}) is {default!r}")
    exposed = {value_path(name) for name in options}
    stale = sorted(f"config.{k}" for k in values["config"] if f"config.{k}" not in exposed | NOT_FLAGS)
    if stale:
        problems.append(f"values the binary has no flag for: {stale}")
    print(f"     {len(options)} settings of `arbiter serve`; different on purpose: {', '.join(DIFFERENT_DEFAULTS)}", flush=True)
    assert not problems, "\n".join(problems)


@check("every config.* value (and grpcWeb.corsAllowedOrigins) reaches its own ARBITER_* variable")
def check_values_wiring(binary: Path) -> None:
    """Renders with every config value changed to a value of its own and finds each in the env."""
    options = serve_options(binary)
    with helm.Chart.load(CHART) as chart:
        values = chart.merge_values({})
    changed: dict[str, Any] = {}
    expected: dict[str, str] = {}
    for i, (name, opt) in enumerate(sorted(options.items())):
        path = value_path(name)
        if not path.startswith("config."):
            continue
        key = path.split(".", 1)[1]
        if key not in values["config"]:
            continue  # check_serve_defaults reports it
        default = values["config"][key]
        if opt["values"]:
            new = next(v for v in opt["values"] if v != default)
        elif isinstance(canonical(default), int) or default == "":
            new = 100_000 + i  # above every minimum, one of its own
        else:
            new = f"{11 + i}s"
        changed[key] = new
        expected[name] = str(new)
    # The chart refuses (as the server does) a byte budget below one largest message and its
    # header: keep the changed budget above the changed message size, still a value of its own.
    if "maxRequestBytesInFlight" in changed and "maxMessageBytes" in changed:
        budget = changed["maxMessageBytes"] + 1_000_000
        changed["maxRequestBytesInFlight"] = budget
        expected["ARBITER_MAX_REQUEST_BYTES_IN_FLIGHT"] = str(budget)
    if "maxAnswerBytesInFlight" in changed and "maxMessageBytes" in changed:
        budget = changed["maxMessageBytes"] + 2_000_000
        changed["maxAnswerBytesInFlight"] = budget
        expected["ARBITER_MAX_ANSWER_BYTES_IN_FLIGHT"] = str(budget)
    # The CORS origins: a list in the chart, one comma-separated variable for the binary.
    origins = ["https://app.example.com", "http://127.0.0.1:8080"]
    expected["ARBITER_CORS_ALLOWED_ORIGINS"] = ",".join(origins)
    container = container_of(render({"config": changed, "grpcWeb": {"corsAllowedOrigins": origins}})[0])
    wrong = [f"{name}: expected {want!r}, got {setting(container, name, options[name]['flag'])!r}"
             for name, want in expected.items() if setting(container, name, options[name]["flag"]) != want]
    assert not wrong, "\n".join(wrong)


# ---- Prometheus rules and Grafana dashboard ------------------------------------------------------


def metric_names(expr: str) -> set[str]:
    return set(re.findall(r"\b(?:grpc_server_\w+|arbiter_\w+|process_\w+)\b", expr))


def check_expr(expr: str, where: str) -> None:
    try:
        promql_parser.parse(expr)
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"{where}: PromQL does not parse ({exc}): {expr}") from exc
    unknown = metric_names(expr) - METRICS
    assert not unknown, f"{where}: unknown metrics {unknown}"


@check("alert rules: PromQL parses, known metrics only, same groups as the chart's and the overlay's PrometheusRule")
def check_rules() -> None:
    rules = yaml.safe_load(RULES.read_text())
    alerts = [r for g in rules["groups"] for r in g["rules"]]
    assert {"ArbiterHighErrorRatio", "ArbiterHighLatency"} <= {r.get("alert") for r in alerts}
    for r in alerts:
        check_expr(r["expr"], r.get("alert", r.get("record", "?")))
    used = set().union(*(metric_names(r["expr"]) for r in alerts))
    assert {"grpc_server_handled_total", "grpc_server_handling_seconds_bucket"} <= used, used
    assert 'grpc_code' in " ".join(r["expr"] for r in alerts), "error ratio must use grpc_code"
    objects, _ = render({"metrics": {"prometheusRule": {"enabled": True}}})
    assert one(objects, "PrometheusRule")["spec"]["groups"] == rules["groups"], \
        "deploy/prometheus/arbiter.rules.yaml differs from the chart's PrometheusRule with default values"
    # check_kustomize_matches_chart drops every `labels` key, the alerts' severity included.
    overlay = one(kustomize(KUSTOMIZE[1]), "PrometheusRule")
    assert overlay["spec"]["groups"] == rules["groups"], \
        "deploy/prometheus/arbiter.rules.yaml differs from the kustomize overlay's PrometheusRule"
    promtool = shutil.which("promtool")
    if promtool:
        run([promtool, "check", "rules", str(RULES)])
    else:
        print("     (promtool not installed: `make deploy-rules` installs it and runs the rule tests)", flush=True)


@check("alert rule tests: every alert is tested both firing and silent")
def check_rule_tests() -> None:
    alerts = {r["alert"] for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"] if "alert" in r}
    tests = yaml.safe_load(RULES_TEST.read_text())
    assert tests["rule_files"] == [RULES.name], f"{RULES_TEST.name} tests {tests['rule_files']}, not {RULES.name}"
    fires: set[str] = set()
    silent: set[str] = set()
    for group in tests["tests"]:
        for case in group.get("alert_rule_test", []):
            (fires if case.get("exp_alerts") else silent).add(case["alertname"])
    problems = [f"{a}: no case where it fires" for a in sorted(alerts - fires)]
    problems += [f"{a}: no case where it stays silent" for a in sorted(alerts - silent)]
    problems += [f"{a}: tested but not a rule" for a in sorted((fires | silent) - alerts)]
    assert not problems, "\n".join(problems)


def dashboard_exprs(dash: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for panel in dash["panels"]:
        for sub in [panel, *panel.get("panels", [])]:
            for t in sub.get("targets", []):
                out.append((sub["title"], t["expr"]))
    for var in dash["templating"]["list"]:
        if var["type"] == "query":
            match = re.fullmatch(r"label_values\((.*),\s*\w+\)", var["query"]["query"])
            out.append((f"variable {var['name']}", match.group(1) if match else var["query"]["query"]))
    return out


@check("Grafana dashboard: valid JSON, PromQL parses, covers every metric, chart copy identical")
def check_dashboard() -> None:
    assert DASHBOARD.read_bytes() == CHART_DASHBOARD.read_bytes(), \
        f"{CHART_DASHBOARD.relative_to(ROOT)} differs from {DASHBOARD.relative_to(ROOT)}: copy it"
    dash = json.loads(DASHBOARD.read_text())
    assert dash.get("uid") and dash.get("title") and dash.get("schemaVersion"), "uid/title/schemaVersion"
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), "duplicate panel ids"
    for p in dash["panels"]:
        g = p["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24, f"panel {p['title']} overflows the grid"
    variables = {v["name"] for v in dash["templating"]["list"]}
    used: set[str] = set()
    for title, expr in dashboard_exprs(dash):
        for var in re.findall(r"\$(\w+)", expr):
            assert var.startswith("__") or var in variables, f"{title}: undefined variable ${var}"
        concrete = expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")
        concrete = re.sub(r"\$(\w+)", "x", concrete)
        check_expr(concrete, title)
        used |= metric_names(expr)
    missing = METRICS - used
    assert not missing, f"metrics without a panel: {missing}"
    labels = {"grpc_type", "grpc_service", "grpc_method", "grpc_code", "result", "termination", "reason", "version"}
    text = DASHBOARD.read_text()
    assert all(label in text for label in labels), f"labels not shown: {[l for l in labels if l not in text]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kube-version", action="append", dest="kube_versions",
                        help="Kubernetes version to validate against (repeatable); default 1.27.0 and 1.37.0")
    parser.add_argument("--binary", type=Path, default=None,
                        help="the arbiter binary whose `serve --help` defaults the chart must match "
                             "(default: the tests' binary, target/<host triple>/test-release/arbiter)")
    args = parser.parse_args()
    if args.binary is None:
        triple = run(["rustc", "--print", "host-tuple"]).stdout.strip()
        args.binary = ROOT / "target" / triple / "test-release" / "arbiter"
    kube_versions = args.kube_versions or ["1.27.0", "1.37.0"]
    print(f"helm-python-sdk {helm.__version__} (helm-c {helm.helm_c_version()}, Helm {helm.helm_sdk_version()}); "
          f"Kubernetes {', '.join(kube_versions)}", flush=True)

    check_hadolint()
    check_build_context()
    for label in VALUE_SETS:
        for kube in kube_versions:
            check_lint(label, kube)
            check_render_valid(label, kube)
        check_invariants(label)
    for label in BAD_VALUES:
        check_bad_values(label)
    for directory in KUSTOMIZE:
        for kube in kube_versions:
            check_kustomize_valid(str(directory.relative_to(ROOT)), kube)
    check_kustomize_matches_chart()
    check_serve_defaults(args.binary)
    check_values_wiring(args.binary)
    check_rules()
    check_rule_tests()
    check_dashboard()

    print(f"deploy-lint: {len(PASSED)} passed, {len(FAILED)} failed")
    for name in FAILED:
        print(f"  failed: {name}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
