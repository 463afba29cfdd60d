#!/usr/bin/env python3
"""Renders the Helm chart helm/arbiter to standard output, as `helm template` would, without Helm.

Helm is not packaged in Debian; `make test` installs Helm's own Go code as a Python library
(helm-python-sdk, pinned in requirements-deploy.txt) into .venv/deploy, and this script uses it:

  .venv/deploy/bin/python scripts/render-chart.py --set image.repository=REGISTRY/arbiter
  .venv/deploy/bin/python scripts/render-chart.py -f my-values.yaml --set config.workers=4 > arbiter.yaml

`-f FILE` and `--set EXPR` (Helm's syntax: `a.b=1,c={x,y}`) apply in the order given, later ones
winning, over the chart's values.yaml; the result is checked against values.schema.json first, so
a misspelled key or a missing required value is refused with Helm's message (exit status 1).
The output is every rendered manifest, each after a `# Source:` comment, NOTES.txt left out; pipe
it to `kubectl apply -f -`, or to a validator.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import helm_python as helm

import helmchart

class Append(argparse.Action):
    """Keeps -f and --set in command-line order, each as ("file"|"set", text)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        kind = "file" if option_string in ("-f", "--values") else "set"
        namespace.overrides.append((kind, values))


def main() -> int:
    parser = argparse.ArgumentParser(description="Render helm/arbiter like `helm template`.")
    parser.set_defaults(overrides=[])
    parser.add_argument("-f", "--values", action=Append, metavar="FILE",
                        help="a values file (YAML); may be repeated")
    parser.add_argument("--set", action=Append, metavar="EXPR",
                        help="values in Helm's --set syntax (a.b=1,c={x,y}); may be repeated")
    parser.add_argument("--name", default="arbiter", help="release name (default: arbiter)")
    parser.add_argument("--namespace", default="default", help="namespace (default: default)")
    args = parser.parse_args()

    values: dict[str, Any] = {}
    try:
        for kind, text in args.overrides:
            if kind == "file":
                values = helmchart.merge(values, helm.values_from_yaml(Path(text).read_text(encoding="utf-8")))
            else:
                values = helmchart.merge(values, helm.parse_set_string(text))
        manifests = helmchart.render(values, name=args.name, namespace=args.namespace,
                                     validate=True)
    except (OSError, helm.HelmError) as error:
        print(f"render-chart: {error}", file=sys.stderr)
        return 1
    try:
        for path, text in sorted(manifests.items()):
            if path.endswith("NOTES.txt") or not text.strip():
                continue
            sys.stdout.write(f"---\n# Source: {path}\n{text.strip()}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went first (`| head`): it has what it asked for. Quietly, with 0, as
        # `arbiter` does; stdout is pointed at /dev/null so that Python's own flush at exit
        # does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
