#!/usr/bin/env python3
"""Static checks of everything under deploy/ and helm/: no Docker engine, no cluster needed.

Run inside the deploy virtual environment (`make -f mk/deploy.mk deploy-lint` creates it; it
runs this file's own unit tests, scripts/tests/, first):

  - hadolint on deploy/Dockerfile; the .dockerignore'd build context holds the whole Cargo
    workspace (cargo metadata --locked --offline in a copy of it);
  - helm lint (helm-python-sdk, Helm's own Go code) with default values, with every optional
    part enabled, with TLS from a Secret, and with mutual TLS from a cert-manager Certificate, for
    each Kubernetes version; every render sets image.repository, which has no default (a render
    without it must fail naming it);
  - helm render of the same value sets; the chart refuses bad values, each with its own error;
  - no duplicate keys: every rendered document (chart, kustomize) and every YAML file under
    deploy/ and helm/arbiter/ is loaded with a loader that refuses a key twice in one mapping,
    as kustomize v5.5+ does (Helm and kubectl keep the last one silently);
  - every rendered object, and the kustomize renders (kubectl kustomize: the base, the
    production overlay with its required image component made from image.example, and with the
    optional monitoring component), validated with kubernetes-validate --strict against each
    pinned Kubernetes version; Prometheus Operator and cert-manager objects against the strict
    CRD subsets in deploy/schemas/; the base and the overlay need no CRD;
  - invariants: labels, probes on the health port, security context, port names, selectors (and
    that none selects the helm test pod), test hook, drain time, TLS (the Secret mounted whole,
    never subPath; paths; Certificate names); config.workers follows the CPU request;
  - the chart exposes every setting `arbiter serve --help` lists (the binary given by --binary,
    default the tests' static binary, target/<host triple>/test-release/arbiter) as a value with
    the binary's default, and its Deployment and the kustomize base pass it (exceptions, each
    with its reason: DIFFERENT_DEFAULTS); each
    config.* value reaches its own ARBITER_* variable;
  - the kustomize base agrees with the chart; the alert rules file agrees with the chart's and
    the kustomize component's PrometheusRule; the Grafana dashboard copies are identical (the
    chart's ConfigMap sets the budget variables from its values); every PromQL expression parses
    (promql-parser) and uses only metrics the binary exports (run and scraped after one call of
    each kind); latency is judged on unary calls only, absence per namespace and job, and every
    alert has a runbook_url to its section of docs/alerts.md; the promtool unit tests (deploy/prometheus/arbiter.rules.test.yaml, run by `make
    deploy-rules`) test every alert both firing and silent.

Exit status 0 when everything passes; prints one line per check and a closing summary line.
"""

from __future__ import annotations

import argparse
import fnmatch
import http.client
import importlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import helm_python as helm
import jsonschema
import promql_parser
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import helmchart  # noqa: E402  the chart, rendered with Helm's code
memory = importlib.import_module("bench-memory")  # protobuf fields, gRPC frames, free ports
CHART = helmchart.CHART
KUSTOMIZE = ROOT / "deploy" / "kustomize"
# The overlay's required image component (absent from the repository: the user makes it from
# image.example), and the line of its kustomization.yaml to uncomment for the monitoring component.
PRODUCTION = KUSTOMIZE / "overlays" / "production"
IMAGE_COMPONENT = "image"
MONITORING_LINE = "  # - ../../components/monitoring"
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
    "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prometheus", "app.kubernetes.io/component": "monitoring"}},
                "prometheusRule": {"enabled": True, "labels": {"release": "prometheus", "app.kubernetes.io/part-of": "alerts"}}},
    "networkPolicy": {
        "enabled": True,
        "grpcFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "games"}}}],
        "metricsFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
        "healthFrom": [{"ipBlock": {"cidr": "10.0.0.0/16"}}],
        # Istio ambient's tunnel port, and a sidecar's control plane.
        "extraIngress": [{"ports": [{"port": 15008, "protocol": "TCP"}]}],
        "extraEgress": [{"ports": [{"port": 15012, "protocol": "TCP"}]}],
    },
    "grafanaDashboard": {"enabled": True, "labels": {"grafana_dashboard": "1", "app.kubernetes.io/component": "dashboard"}},
    "podDisruptionBudget": {"enabled": True, "minAvailable": 1},
    "image": {"digest": "sha256:" + "0" * 64},
    "extraEnv": [{"name": "ARBITER_EXTRA", "value": "1"}],
    "grpcWeb": {"corsAllowedOrigins": ["https://app.example.com", "http://127.0.0.1:8080"]},
    "imagePullSecrets": [{"name": "registry"}],
    "priorityClassName": "high",
    # Labels of the user's that the chart also sets (a selector label among them): each key must
    # come out once (check_no_duplicate_keys), the selector labels unchanged.
    "podLabels": {"app.kubernetes.io/component": "api", "app.kubernetes.io/name": "not-arbiter", "team": "games"},
    "service": {"labels": {"app.kubernetes.io/part-of": "games", "app.kubernetes.io/instance": "other"}},
    # Compound durations, as the binary reads them (issue 27).
    "config": {"requestTimeout": "1m30s", "lameDuck": "1s500ms"},
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

# Values the chart must refuse (values.schema.json or a template's `fail`), each with a part of
# the error it must give (set over REQUIRED_VALUES, so that each fails for its own reason).
BAD_VALUES: dict[str, tuple[dict[str, Any], str]] = {
    "misspelled key": ({"config": {"maxMovez": 10}}, "additional properties 'maxMovez' not allowed"),
    "misspelled top-level key": ({"replicas": 3}, "additional properties 'replicas' not allowed"),
    "bad duration": ({"config": {"requestTimeout": "ten seconds"}}, "at '/config/requestTimeout'"),
    "port out of range": ({"ports": {"grpc": 70000}}, "at '/ports/grpc': maximum"),
    "health port on the gRPC port": ({"ports": {"health": 50051}}, "ports.grpc, ports.metrics and ports.health must differ"),
    "certManager without tls.enabled": ({"tls": {"certManager": {"enabled": True, "issuerRef": {"name": "ca"}}}},
                                        "tls.certManager.enabled needs tls.enabled"),
    "certManager without an issuer": ({"tls": {"enabled": True, "certManager": {"enabled": True}}},
                                      "tls.certManager.issuerRef.name is required"),
    "clientCA without tls.enabled": ({"tls": {"clientCA": {"enabled": True}}}, "tls.clientCA.enabled needs tls.enabled"),
    "workers neither a number nor \"\"": ({"config": {"workers": "auto"}}, "at '/config/workers'"),
    "workers \"\" without a CPU request": ({"resources": {"requests": {"cpu": None}}},
                                           "resources.requests.cpu is not set: set resources.requests.cpu or config.workers"),
    "bad Go duration for cert-manager": ({"tls": {"enabled": True, "certManager": {"enabled": True, "issuerRef": {"name": "ca"}, "duration": "90d"}}},
                                         "at '/tls/certManager/duration'"),
    "PDB as a list": ({"podDisruptionBudget": {"minAvailable": [1]}}, "at '/podDisruptionBudget/minAvailable'"),
    # A path never equals a browser's Origin: it would silently allow nothing.
    "CORS origin with a path": ({"grpcWeb": {"corsAllowedOrigins": ["https://app.example.com/"]}}, "at '/grpcWeb/corsAllowedOrigins/0'"),
    "CORS origins as one string": ({"grpcWeb": {"corsAllowedOrigins": "https://a.example,https://b.example"}}, "at '/grpcWeb/corsAllowedOrigins'"),
    "image.repository empty": ({"image": {"repository": ""}}, "at '/image/repository': minLength"),
    "runbookBaseUrl with a fragment": ({"metrics": {"prometheusRule": {"enabled": True, "runbookBaseUrl": "https://wiki.example.com/arbiter#alerts"}}},
                                       "at '/metrics/prometheusRule/runbookBaseUrl'"),
}

# Metrics the dashboard must show (a panel each); all of them, and every name the alerts and
# panels use, must be among the series the server exports (EXPORTED, scraped from the binary).
PANELLED = {
    "grpc_server_started_total",
    "grpc_server_handled_total",
    "grpc_server_handling_seconds_bucket",
    "grpc_server_handling_seconds_sum",
    "grpc_server_handling_seconds_count",
    "arbiter_games_adjudicated_total",
    "arbiter_moves_rejected_total",
    "arbiter_calls_shed_total",
    "arbiter_answers_abandoned_total",
    "arbiter_answer_bytes_in_flight",
    "arbiter_request_bytes_in_flight",
    "arbiter_build_info",
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
}
# The names of the series `arbiter serve` exports after one call of each kind (scrape_exported).
EXPORTED: set[str] = set()

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


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping holds the same key twice."""


class StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error.

    YAML forbids duplicate keys, but PyYAML, Helm and kubectl keep the last one silently, while
    kustomize (v5.5 and later) and any post-renderer built on it refuse the document: a chart
    that renders one works with `helm install` and breaks the first time it passes through
    kustomize. Merge keys (`<<`) are not duplicates."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Mark] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the safe loader reports it
                    continue
                if first is not None:
                    raise DuplicateKeyError(
                        "while constructing a mapping", node.start_mark,
                        f"found duplicate key {key!r} (first at line {first.line + 1}, column {first.column + 1})",
                        key_node.start_mark)
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def parse_docs(text: str, source: str = "<text>") -> list[dict[str, Any]]:
    """Every non-empty YAML document of `text`, loaded strictly (StrictLoader: no duplicate key).
    Errors name `source` and the line and column in `text`."""
    try:
        return [d for d in yaml.load_all(text, Loader=StrictLoader) if d]
    except yaml.MarkedYAMLError as exc:
        raise AssertionError(f"{source}: {exc}") from exc


# The chart's one value without a default, which every render here sets, as an installation must.
REQUIRED_VALUES = helmchart.EXAMPLE_IMAGE
deep_merge = helmchart.merge
with_required = helmchart.with_example_image


def render_texts(values: dict[str, Any], required: bool = True) -> dict[str, str]:
    """The chart's rendered files (path -> text), like `helm template`; `required`: with
    REQUIRED_VALUES under `values`."""
    return helmchart.render(with_required(values) if required else values, name=RELEASE,
                            namespace=NAMESPACE)


def render(values: dict[str, Any], required: bool = True) -> tuple[list[dict[str, Any]], str]:
    """Renders the chart like `helm template`; returns its objects and NOTES.txt. Each file is
    loaded strictly (no duplicate key)."""
    manifests = render_texts(values, required)
    notes = ""
    objects: list[dict[str, Any]] = []
    for path, text in sorted(manifests.items()):
        if path.endswith("NOTES.txt"):
            notes = text
            continue
        for doc in parse_docs(text, path):
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


DURATION_PART = r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)"


def duration_seconds(text: str) -> float:
    """A duration as the chart's schema allows it: a number of seconds, a number and a unit, or
    several numbers and units ("1m30s")."""
    text = str(text).strip()
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text):
        return float(text)
    if not re.fullmatch(f"(?:{DURATION_PART})+", text):
        raise ValueError(f"not a duration: {text!r}")
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    return sum(float(number) * units[unit] for number, unit in re.findall(DURATION_PART, text))


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
    report = helm.lint(CHART, with_required(VALUE_SETS[label]), strict=True, kube_version=f"v{kube}", namespace=NAMESPACE)
    bad = [m for m in report.get("messages", []) if m.get("severity", 0) >= 2] + report.get("errors", [])
    assert not bad, json.dumps(bad, indent=2)


@check("the chart refuses: {0}")
def check_bad_values(label: str) -> None:
    values, message = BAD_VALUES[label]
    try:
        render(values)
    except helm.HelmError as exc:
        assert message in str(exc), f"refused, but not for {message!r}: {exc}"
        return
    raise AssertionError("rendered without error")


@check("image.repository has no default: a render without it fails naming it (issue 27)")
def check_image_required() -> None:
    with helm.Chart.load(CHART) as chart:
        defaults = chart.merge_values({})
    assert "repository" not in defaults["image"], f"values.yaml sets image.repository: {defaults['image']['repository']!r}"
    try:
        render({}, required=False)
    except helm.HelmError as exc:
        assert "at '/image': missing property 'repository'" in str(exc), str(exc)
    else:
        raise AssertionError("rendered without image.repository")
    image = container_of(render({})[0])["image"]
    assert image == f"{REQUIRED_VALUES['image']['repository']}:0.1.0", image


# config.workers "" follows the CPU request rounded up (at least 1), never the limit; a number
# is taken as it is. (values, ARBITER_WORKERS wanted)
WORKERS_CASES: list[tuple[dict[str, Any], str]] = [
    ({}, "1"),
    ({"resources": {"requests": {"cpu": "1500m"}}}, "2"),
    ({"resources": {"requests": {"cpu": "250m"}}}, "1"),
    ({"resources": {"requests": {"cpu": 1.2}}}, "2"),
    # A platform that strips limits, and a limit far above the request: the request decides.
    ({"resources": {"requests": {"cpu": 3}, "limits": None}}, "3"),
    ({"resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": 8}}}, "1"),
    ({"config": {"workers": 5}}, "5"),
    ({"config": {"workers": 5}, "resources": {"requests": {"cpu": None}}}, "5"),
]


@check("config.workers follows the CPU request (rounded up), never the CPU limit (issue 27)")
def check_workers() -> None:
    wrong = []
    for values, wanted in WORKERS_CASES:
        container = container_of(render(values)[0])
        got = next((e.get("value") for e in container["env"] if e["name"] == "ARBITER_WORKERS"), None)
        if got != wanted:
            wrong.append(f"{json.dumps(values)}: ARBITER_WORKERS {got!r}, not {wanted!r}")
    assert not wrong, "\n".join(wrong)


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


def static_yaml_files() -> list[Path]:
    """Every YAML file of the deployment that is YAML as written (chart templates are not, until
    rendered)."""
    files = [p for d in (ROOT / "deploy", CHART) for p in sorted(d.rglob("*.y*ml"))
             if p.suffix in (".yaml", ".yml") and CHART / "templates" not in p.parents]
    return [p for p in files if not (PRODUCTION / IMAGE_COMPONENT) in p.parents]


@check("no duplicate keys (strict YAML): the chart rendered with each value set, each kustomization, and the YAML files under deploy/ and helm/arbiter/")
def check_no_duplicate_keys() -> None:
    """kustomize v5.5+ and post-renderers built on it refuse a YAML mapping that holds a key
    twice, which Helm and kubectl accept (the last one wins): every document is loaded here with
    StrictLoader, which refuses it too, naming the file, line and column."""
    problems: list[str] = []
    counts: dict[str, int] = {}
    for label, values in VALUE_SETS.items():
        for path, text in render_texts(values).items():
            if path.endswith("NOTES.txt"):
                continue
            try:
                counts[f"chart ({label})"] = counts.get(f"chart ({label})", 0) + len(parse_docs(text, path))
            except AssertionError as exc:
                problems.append(f"chart with {label} values: {exc}")
    for name in KUSTOMIZATIONS:
        try:
            counts[name] = len(kustomized(name))
        except AssertionError as exc:
            problems.append(str(exc))
    for path in static_yaml_files():
        try:
            parse_docs(path.read_text(), str(path.relative_to(ROOT)))
        except AssertionError as exc:
            problems.append(str(exc))
    print(f"     documents: {', '.join(f'{k} {v}' for k, v in counts.items())}; files: {len(static_yaml_files())}", flush=True)
    assert not problems, "\n".join(problems)


@check("render ({0} values) validates against Kubernetes {1} (strict)")
def check_render_valid(label: str, kube: str) -> None:
    objects, _ = render(VALUE_SETS[label])
    validate_objects(objects, kube, label)


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Whether a label selector (a LabelSelector with matchLabels / matchExpressions, or a
    Service's plain map) selects an object with `labels`."""
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        selector = {"matchLabels": selector}
    if not all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        ok = {"In": key in labels and labels[key] in values, "NotIn": labels.get(key) not in values,
              "Exists": key in labels, "DoesNotExist": key not in labels}[op]
        if not ok:
            return False
    return True


def pod_selectors(objects: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Every selector of pods in the rendered objects, named: the Deployment's, Services', PDBs',
    NetworkPolicies' (the pods they apply to) and the pod template's spread and (anti-)affinity
    terms."""
    found: list[tuple[str, dict[str, Any]]] = []
    for o in objects:
        name, spec = f"{o['kind']}/{o['metadata']['name']}", o.get("spec") or {}
        if o["kind"] == "Service" and spec.get("selector"):
            found.append((f"{name} selector", spec["selector"]))
        elif o["kind"] in ("Deployment", "PodDisruptionBudget") and spec.get("selector"):
            found.append((f"{name} selector", spec["selector"]))
        elif o["kind"] == "NetworkPolicy":
            found.append((f"{name} podSelector", spec["podSelector"]))
        if o["kind"] == "Deployment":
            pod = spec["template"]["spec"]
            for i, t in enumerate(pod.get("topologySpreadConstraints") or []):
                found.append((f"{name} topologySpreadConstraints[{i}]", t["labelSelector"]))
            for kind, terms in (pod.get("affinity") or {}).items():
                for mode, items in terms.items() if kind != "nodeAffinity" else []:
                    for i, term in enumerate(items):
                        term = term.get("podAffinityTerm", term)
                        found.append((f"{name} {kind}.{mode}[{i}]", term.get("labelSelector") or {}))
    return found


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
    # On by default (docs/operations.md, "Probes and scrapes cannot be locked out").
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
    selectors = pod_selectors(objects)
    need(len(selectors) >= 3, f"found only the pod selectors {[n for n, _ in selectors]}")
    for where, sel in selectors:
        need(selects(sel, pod["metadata"]["labels"]), f"{where} does not select the server's pods")
    for test in tests:
        # Issue 27: the test pod has labels of its own, and nothing selects it: selected, it
        # would be an endpoint of the Service, counted by the PDB, spread against the server's
        # pods, and denied DNS and the Service by the NetworkPolicy.
        labels = test["metadata"].get("labels", {})
        need(labels.get("app.kubernetes.io/component") == "test", f"the helm test Pod's component label is {labels.get('app.kubernetes.io/component')!r}")
        for where, sel in selectors:
            need(not selects(sel, labels), f"{where} selects the helm test Pod")
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


def kustomize(directory: Path, label: str) -> list[dict[str, Any]]:
    return parse_docs(run([venv_tool("kubectl"), "kustomize", str(directory)]).stdout, f"kubectl kustomize {label}")


# What a user renders: the base as it is; the production overlay with its image component made
# from image.example as its comment says, without and with the monitoring component.
KUSTOMIZATIONS = {
    "base": {"image": False, "monitoring": False},
    "overlays/production": {"image": True, "monitoring": False},
    "overlays/production + components/monitoring": {"image": True, "monitoring": True},
}
_KUSTOMIZED: dict[str, list[dict[str, Any]]] = {}


def kustomize_tree(tmp: Path, image: bool, monitoring: bool) -> Path:
    """A copy of deploy/kustomize in `tmp` (without a local overlays/production/image), with the
    image component made from image.example and the monitoring line uncommented as asked;
    returns the copy of overlays/production."""
    tree = tmp / "kustomize"
    shutil.copytree(KUSTOMIZE, tree, ignore=lambda d, names: [IMAGE_COMPONENT] if Path(d) == PRODUCTION else [])
    overlay = tree / PRODUCTION.relative_to(KUSTOMIZE)
    if image:
        shutil.copytree(overlay / "image.example", overlay / IMAGE_COMPONENT)
    if monitoring:
        kustomization = overlay / "kustomization.yaml"
        lines = kustomization.read_text().split("\n")
        assert lines.count(MONITORING_LINE) == 1, f"{PRODUCTION.relative_to(ROOT)}/kustomization.yaml lacks the line {MONITORING_LINE!r}"
        kustomization.write_text("\n".join(MONITORING_LINE.replace("# ", "", 1) if l == MONITORING_LINE else l for l in lines))
    return overlay


def kustomized(name: str) -> list[dict[str, Any]]:
    """The objects of one of KUSTOMIZATIONS (rendered once per run)."""
    if name not in _KUSTOMIZED:
        if name == "base":
            _KUSTOMIZED[name] = kustomize(KUSTOMIZE / "base", name)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                _KUSTOMIZED[name] = kustomize(kustomize_tree(Path(tmp), **KUSTOMIZATIONS[name]), name)
    return _KUSTOMIZED[name]


@check("kubectl kustomize {0} validates against Kubernetes {1} (strict)")
def check_kustomize_valid(name: str, kube: str) -> None:
    objects = kustomized(name)
    assert objects, "renders nothing"
    validate_objects(objects, kube, name.replace("/", "-").replace(" + ", "+"))


# API groups that need CRDs (Prometheus Operator, cert-manager).
CRD_GROUPS = ("monitoring.coreos.com/", "cert-manager.io/")


@check("kustomize: the base and the overlay need no CRD; the monitoring component adds exactly a ServiceMonitor and a PrometheusRule")
def check_kustomize_crds() -> None:
    def crd_kinds(name: str) -> list[str]:
        return sorted(f"{o['kind']}/{o['metadata']['name']}" for o in kustomized(name)
                      if str(o.get("apiVersion", "")).startswith(CRD_GROUPS))

    for name in ("base", "overlays/production"):
        assert not crd_kinds(name), f"{name} renders objects that need CRDs: {crd_kinds(name)}"
    with_monitoring = crd_kinds("overlays/production + components/monitoring")
    assert with_monitoring == ["PrometheusRule/arbiter", "ServiceMonitor/arbiter"], with_monitoring
    plain = {(o["kind"], o["metadata"]["name"]) for o in kustomized("overlays/production")}
    monitored = {(o["kind"], o["metadata"]["name"]) for o in kustomized("overlays/production + components/monitoring")}
    assert monitored - plain == {("PrometheusRule", "arbiter"), ("ServiceMonitor", "arbiter")}, monitored ^ plain
    for name in KUSTOMIZATIONS:
        namespaces = {o["metadata"].get("namespace") for o in kustomized(name) if o["kind"] != "Namespace"}
        wanted = {None} if name == "base" else {NAMESPACE}
        assert namespaces == wanted, f"{name}: namespaces {namespaces}, not {wanted}"


@check("kustomize: the overlay makes its namespace (Pod Security restricted), and the pod meets that level")
def check_overlay_namespace() -> None:
    for name in KUSTOMIZATIONS:
        made = [o for o in kustomized(name) if o["kind"] == "Namespace"]
        if name == "base":
            assert not made, f"base makes a Namespace: {made}"
            continue
        assert [o["metadata"]["name"] for o in made] == [NAMESPACE], f"{name}: Namespace objects {made}"
        labels = made[0]["metadata"].get("labels", {})
        assert labels.get("pod-security.kubernetes.io/enforce") == "restricted", f"{name}: {labels}"
    # What the Pod Security Standards' "restricted" level asks of a pod
    # (kubernetes.io/docs/concepts/security/pod-security-standards/).
    pod = one(kustomized("overlays/production"), "Deployment")["spec"]["template"]["spec"]
    problems: list[str] = []

    def need(cond: bool, msg: str) -> None:
        if not cond:
            problems.append(msg)

    need(not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")), "no host namespaces")
    need(not any("hostPath" in v for v in pod.get("volumes", [])), "no hostPath volume")
    pod_ctx = pod.get("securityContext", {})
    for c in pod["containers"] + pod.get("initContainers", []):
        ctx = c.get("securityContext", {})
        need(ctx.get("allowPrivilegeEscalation") is False, f"{c['name']}: allowPrivilegeEscalation false")
        need(ctx.get("capabilities", {}).get("drop") == ["ALL"], f"{c['name']}: capabilities drop ALL")
        need(not ctx.get("privileged"), f"{c['name']}: not privileged")
        need(ctx.get("runAsNonRoot", pod_ctx.get("runAsNonRoot")) is True, f"{c['name']}: runAsNonRoot")
        seccomp = ctx.get("seccompProfile", pod_ctx.get("seccompProfile", {})).get("type")
        need(seccomp in ("RuntimeDefault", "Localhost"), f"{c['name']}: seccomp profile {seccomp}")
        need(not any(p.get("hostPort") for p in c.get("ports", [])), f"{c['name']}: no hostPort")
    assert not problems, "the pod does not meet Pod Security restricted: " + "; ".join(problems)


@check("kustomize: overlays/production refuses to render until its image is set (no placeholder pulled silently)")
def check_overlay_needs_image() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        overlay = kustomize_tree(Path(tmp), image=False, monitoring=False)
        result = subprocess.run([venv_tool("kubectl"), "kustomize", str(overlay)], capture_output=True, text=True)
    assert result.returncode != 0, "renders without its image component"
    assert f"overlays/production/{IMAGE_COMPONENT}" in result.stderr, f"the error does not name the image component:\n{result.stderr}"
    example = yaml.load((PRODUCTION / "image.example" / "kustomization.yaml").read_text(), Loader=StrictLoader)
    (entry,) = example["images"]
    wanted = f"{entry['newName']}:{entry['newTag']}"
    for name in ("overlays/production", "overlays/production + components/monitoring"):
        image = container_of(kustomized(name))["image"]
        assert image == wanted, f"{name}: image {image}, not image.example's {wanted}"
    base_image = container_of(kustomized("base"))["image"]
    assert base_image == entry["name"], f"the base's image is {base_image!r}, not the name {entry['name']!r} the overlay replaces"


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
    kust = {(o["kind"], o["metadata"]["name"]): o for o in kustomized("overlays/production + components/monitoring")
            if o["kind"] != "Namespace"}  # Helm makes it with --create-namespace
    assert set(chart) == set(kust), f"objects differ: chart only {set(chart) - set(kust)}, kustomize only {set(kust) - set(chart)}"
    diffs = []
    for key, obj in chart.items():
        a, b = strip_for_compare(obj), strip_for_compare(kust[key])
        if key[0] == "ServiceMonitor":
            a["spec"].pop("namespaceSelector", None)
        if a != b:
            diffs.append(f"{key}: {first_difference(a, b)}")
    base = {o["kind"] for o in kustomized("base")}
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
    # 0 is one worker per core the process sees: every core of the node, so memory would depend
    # on the node. The chart's "" follows the CPU request (checked below; check_workers).
    "ARBITER_WORKERS": "resources.requests.cpu rounded up",
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
    if re.fullmatch(f"(?:{DURATION_PART})+", text):
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
    base_c = container_of(kustomized("base"))
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
                cpu = container.get("resources", {}).get("requests", {}).get("cpu")
                wanted = max(1, math.ceil(cpu_cores(cpu))) if cpu is not None else None
                if wanted is None or canonical(passed) != wanted:
                    problems.append(f"{name}: the {where} passes {passed}, not its CPU request rounded up ({cpu})")
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

# One call of each kind the metrics count, over gRPC-Web (HTTP/1.1, no gRPC library needed):
# (service, method, request message, grpc-status wanted). The rejected move is counted in
# arbiter_moves_rejected_total, the game in arbiter_games_adjudicated_total.
SCRAPE_CALLS = [
    ("grpc.health.v1.Health", "Check", b"", 0),
    (memory.SERVICE, "ListLegalMoves", memory.field(1, memory.field(1, "startpos")), 0),
    (memory.SERVICE, "ApplyMove", memory.field(1, memory.field(1, "startpos")) + memory.field(3, "e5"), 3),
    (memory.SERVICE, "ValidatePosition", memory.field(1, memory.field(1, "startpos")), 0),
    (memory.SERVICE, "AdjudicateGame",
     memory.field(1, memory.field(1, memory.field(1, "startpos")) + b"".join(memory.field(2, m) for m in ("e4", "e5"))), 0),
]


def grpc_web_status(port: int, service: str, method: str, message: bytes) -> int:
    """Makes one gRPC-Web call over HTTP/1.1; returns its grpc-status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", f"/{service}/{method}", body=memory.grpc_frame(message),
                     headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"})
        response = conn.getresponse()
        body = response.read()
        status = response.getheader("grpc-status")
    finally:
        conn.close()
    while status is None and len(body) >= 5:
        flags, length = body[0], int.from_bytes(body[1:5], "big")
        frame, body = body[5:5 + length], body[5 + length:]
        if flags & 0x80:  # the trailers frame
            match = re.search(rb"grpc-status:\s*(\d+)", frame)
            status = match.group(1).decode() if match else None
    if status is None:
        raise AssertionError(f"/{service}/{method}: no grpc-status in the answer (HTTP {response.status})")
    return int(status)


@check("the server's /metrics after one call of each kind (the metrics the alerts and dashboard may use): {0}")
def scrape_exported(binary: Path) -> None:
    grpc, metrics = memory.free_port(), memory.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    server = subprocess.Popen([str(binary), "serve", "--grpc-addr", f"127.0.0.1:{grpc}", "--metrics-addr",
                               f"127.0.0.1:{metrics}", "--health-addr", "off"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                grpc_web_status(grpc, "grpc.health.v1.Health", "Check", b"")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server did not answer on 127.0.0.1:{grpc}: {server.stderr.read().decode()[-2000:] if server.poll() is not None else 'timeout'}") from None
                time.sleep(0.1)
        wrong = [f"/{s}/{m}: grpc-status {got}, not {want}" for s, m, msg, want in SCRAPE_CALLS
                 if (got := grpc_web_status(grpc, s, m, msg)) != want]
        assert not wrong, "\n".join(wrong)
        text = memory.scrape(metrics)
    finally:
        server.terminate()
        server.wait(timeout=30)
    EXPORTED.update(line.split("{", 1)[0].split(" ", 1)[0] for line in text.splitlines()
                    if line and not line.startswith("#"))
    missing = PANELLED - EXPORTED
    assert not missing, f"metrics the dashboard must show that the server does not export: {sorted(missing)}"
    print(f"     {len(EXPORTED)} series names", flush=True)



def metric_names(expr: str) -> set[str]:
    return set(re.findall(r"\b(?:grpc_server_\w+|arbiter_\w+|process_\w+)\b", expr))


def check_expr(expr: str, where: str) -> None:
    try:
        promql_parser.parse(expr)
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"{where}: PromQL does not parse ({exc}): {expr}") from exc
    assert EXPORTED, "no metrics scraped from the server (see the check that runs it)"
    unknown = metric_names(expr) - EXPORTED
    assert not unknown, f"{where}: metrics the server does not export: {unknown}"


# The alerts, each with a section of docs/alerts.md (its runbook_url's anchor).
ALERTS = {"ArbiterHighErrorRatio", "ArbiterLoadShedding", "ArbiterHighLatency", "ArbiterAnswersAbandoned",
          "ArbiterMetricsAbsent"}
RUNBOOK = ROOT / "docs" / "alerts.md"


def handling_selectors(expr: str) -> list[str]:
    """The label matchers of every grpc_server_handling_seconds* selector in `expr`."""
    return re.findall(r"grpc_server_handling_seconds\w*\s*\{([^}]*)\}", expr) + \
        ["" for _ in re.findall(r"grpc_server_handling_seconds\w*\b(?!\s*\{)", expr)]


def markdown_anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to
    hyphens."""
    return {re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.M)}


@check("alert rules: PromQL parses, exported metrics only, same groups as the chart's and the kustomize component's PrometheusRule")
def check_rules() -> None:
    rules = yaml.safe_load(RULES.read_text())
    alerts = [r for g in rules["groups"] for r in g["rules"]]
    assert {r.get("alert") for r in alerts} == ALERTS, f"alerts {sorted(r.get('alert') for r in alerts)}, not {sorted(ALERTS)}"
    for r in alerts:
        check_expr(r["expr"], r.get("alert", r.get("record", "?")))
    used = set().union(*(metric_names(r["expr"]) for r in alerts))
    assert {"grpc_server_handled_total", "grpc_server_handling_seconds_bucket"} <= used, used
    assert 'grpc_code' in " ".join(r["expr"] for r in alerts), "error ratio must use grpc_code"
    objects, _ = render({"metrics": {"prometheusRule": {"enabled": True}}})
    assert one(objects, "PrometheusRule")["spec"]["groups"] == rules["groups"], \
        "deploy/prometheus/arbiter.rules.yaml differs from the chart's PrometheusRule with default values"
    # check_kustomize_matches_chart drops every `labels` key, the alerts' severity included.
    overlay = one(kustomized("overlays/production + components/monitoring"), "PrometheusRule")
    assert overlay["spec"]["groups"] == rules["groups"], \
        "deploy/prometheus/arbiter.rules.yaml differs from the kustomize overlay's PrometheusRule"
    # The chart's runbook base is a value: each runbook_url follows it.
    base = "https://wiki.example.com/arbiter/alerts"
    custom, _ = render({"metrics": {"prometheusRule": {"enabled": True, "runbookBaseUrl": base}}})
    urls = {r["alert"]: r["annotations"].get("runbook_url") for g in one(custom, "PrometheusRule")["spec"]["groups"]
            for r in g["rules"]}
    wrong = [f"{a}: {u}" for a, u in urls.items() if u != f"{base}#{a.lower()}"]
    assert not wrong, f"runbook_url does not follow metrics.prometheusRule.runbookBaseUrl: {wrong}"


@check("alerts fire for faults only (issue 27): unary latency, absence per namespace and job, a runbook_url to a section of docs/alerts.md on each")
def check_alerts_for_faults() -> None:
    alerts = {r["alert"]: r for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"] if "alert" in r}
    with helm.Chart.load(CHART) as chart:
        base = chart.merge_values({})["metrics"]["prometheusRule"]["runbookBaseUrl"]
    anchors = markdown_anchors(RUNBOOK.read_text()) if RUNBOOK.exists() else set()
    problems = []
    for name, rule in alerts.items():
        # A stream's handling time is how long it stayed open: only unary calls are judged.
        for matchers in handling_selectors(rule["expr"]):
            if 'grpc_type="unary"' not in matchers.replace(" ", ""):
                problems.append(f"{name}: grpc_server_handling_seconds without grpc_type=\"unary\": {{{matchers}}}")
        # absent() has no labels: with two deployments it fires only when both are gone.
        if re.search(r"\babsent(_over_time)?\s*\(", rule["expr"]):
            problems.append(f"{name}: absent() cannot say which namespace and job are gone")
        url = rule.get("annotations", {}).get("runbook_url")
        if url != f"{base}#{name.lower()}":
            problems.append(f"{name}: runbook_url {url!r}, not {base}#{name.lower()}")
        if name.lower() not in anchors:
            where = RUNBOOK.relative_to(ROOT) if RUNBOOK.is_relative_to(ROOT) else RUNBOOK
            problems.append(f"{name}: {where} has no section #{name.lower()}")
    absent = " ".join(alerts["ArbiterMetricsAbsent"]["expr"].split())
    if "group by (namespace, job) (max_over_time(arbiter_build_info[" not in absent or " unless " not in absent:
        problems.append(f"ArbiterMetricsAbsent: not per namespace and job (max_over_time ... unless ...): {absent}")
    assert not problems, "\n".join(problems)


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
    # Text boxes hold numbers (the byte budgets): their default stands in for them.
    numbers = {v["name"]: v["query"] for v in dash["templating"]["list"] if v["type"] == "textbox"}
    used: set[str] = set()
    for title, expr in dashboard_exprs(dash):
        for var in re.findall(r"\$(\w+)", expr):
            assert var.startswith("__") or var in variables, f"{title}: undefined variable ${var}"
        concrete = expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")
        concrete = re.sub(r"\$(\w+)", lambda m: numbers.get(m.group(1), "x"), concrete)
        check_expr(concrete, title)
        # Issue 27: latency panels show unary calls only (a stream's time is how long it was open).
        for matchers in handling_selectors(expr):
            assert 'grpc_type="unary"' in matchers.replace(" ", ""), f"{title}: latency of every call type: {expr}"
        used |= metric_names(expr)
    missing = PANELLED - used
    assert not missing, f"metrics without a panel: {sorted(missing)}"
    labels = {"grpc_type", "grpc_service", "grpc_method", "grpc_code", "result", "termination", "reason", "version"}
    text = DASHBOARD.read_text()
    assert all(label in text for label in labels), f"labels not shown: {[l for l in labels if l not in text]}"
    # The chart's copy, with the budget variables set to the release's budgets.
    budgets = {"answer_budget": 33554432, "request_budget": 12582912}
    objects, _ = render({"grafanaDashboard": {"enabled": True},
                         "config": {"maxAnswerBytesInFlight": budgets["answer_budget"],
                                    "maxRequestBytesInFlight": budgets["request_budget"]}})
    rendered = json.loads(one(objects, "ConfigMap")["data"]["arbiter-dashboard.json"])
    for var in rendered["templating"]["list"]:
        if var["name"] in budgets:
            want = str(budgets.pop(var["name"]))
            assert var["query"] == want and var["current"] == {"text": want, "value": want}, f"chart dashboard variable {var}"
            for copy in (var, next(v for v in dash["templating"]["list"] if v["name"] == var["name"])):
                copy.pop("query"), copy.pop("current")
    assert not budgets, f"the dashboard has no variables {sorted(budgets)}"
    assert rendered == dash, "the chart's dashboard ConfigMap differs from deploy/grafana/arbiter-dashboard.json beyond the budgets"


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
    check_image_required()
    check_workers()
    check_no_duplicate_keys()
    for name in KUSTOMIZATIONS:
        for kube in kube_versions:
            check_kustomize_valid(name, kube)
    check_kustomize_crds()
    check_overlay_namespace()
    check_overlay_needs_image()
    check_kustomize_matches_chart()
    check_serve_defaults(args.binary)
    check_values_wiring(args.binary)
    scrape_exported(args.binary)
    check_rules()
    check_alerts_for_faults()
    check_rule_tests()
    check_dashboard()

    print(f"deploy-lint: {len(PASSED)} passed, {len(FAILED)} failed")
    for name in FAILED:
        print(f"  failed: {name}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
