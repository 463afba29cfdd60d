#!/usr/bin/env python3
"""Renders the Helm chart (helm/arbiter) as `helm template` does, without Helm installed.

Helm is not packaged for Debian; helm-python-sdk (pinned in requirements-deploy.txt, installed by
`make deploy-venv` into .venv/deploy) carries Helm's own Go code, so the manifests are the ones
`helm template` and `helm install` produce. `make chart` runs this script.

  scripts/render-chart.py -f my-values.yaml --set replicaCount=3 > arbiter.yaml

Values files are merged in order, then each --set (Helm's syntax: `a.b=1,c={x,y}`), the later
winning, as Helm's command line does; the result is checked against values.schema.json and an
error names the key. Writes one YAML stream (every manifest after a `# Source:` comment, the helm
test Pod included; NOTES.txt left out, as `helm template` does) to standard output or --output.
Exit status 1 on bad values or a template error, 2 on a bad command line.
"""

import argparse
import sys
from pathlib import Path
from typing import Any

import helm_python as helm

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "helm" / "arbiter"


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Helm's merge of user values: maps merge key by key, anything else is replaced."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--values", action="append", default=[], type=Path, metavar="FILE",
                        help="a values file (repeatable; later files win)")
    parser.add_argument("--set", action="append", default=[], metavar="EXPR", dest="sets",
                        help="a value in Helm's --set syntax (repeatable; wins over the files)")
    parser.add_argument("--name", default="arbiter", help="the release name (default: arbiter)")
    parser.add_argument("--namespace", default="default", help="the release namespace (default: default)")
    parser.add_argument("-o", "--output", type=Path, help="write the manifests here instead of standard output")
    args = parser.parse_args()

    try:
        values: dict[str, Any] = {}
        for path in args.values:
            values = merge(values, helm.values_from_yaml(path.read_text()) or {})
        for expression in args.sets:
            values = merge(values, helm.parse_set_string(expression))
        helm.validate_release_name(args.name)
        with helm.Chart.load(CHART) as chart:
            chart.validate_schema(chart.merge_values(values))
            manifests = chart.render(values, name=args.name, namespace=args.namespace, is_install=True)
    except (OSError, helm.HelmError) as exc:
        print(f"render-chart: {exc}", file=sys.stderr)
        return 1

    parts = []
    for path, text in sorted(manifests.items()):
        if not path.endswith("NOTES.txt") and text.strip():
            parts.append(f"---\n# Source: {path}\n{text.strip()}\n")
    stream = "".join(parts)
    if args.output:
        args.output.write_text(stream)
        print(f"render-chart: {len(parts)} manifests written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
