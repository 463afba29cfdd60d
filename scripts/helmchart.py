"""The Helm chart helm/arbiter as the scripts render it, with Helm's own Go code as a library
(helm-python-sdk, pinned in requirements-deploy.txt; `make test` installs it into .venv/deploy).

Used by render-chart.py (a person's `helm template`), check-deploy.py (the chart's checks) and
smoke-deployment.py (the binary run as the rendered Deployment runs it):

  import helmchart
  files = helmchart.render(helmchart.with_example_image({"tls": {"enabled": True}}))

`render` returns every rendered file, path -> text (NOTES.txt among them), as `helm template`
would write them; errors are helm_python.HelmError with Helm's message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import helm_python as helm

CHART = Path(__file__).resolve().parent.parent / "helm" / "arbiter"

# The chart's one value without a default (values.schema.json requires image.repository): the
# checks, which run the binary and not an image, set this name.
EXAMPLE_IMAGE: dict[str, Any] = {"image": {"repository": "registry.example.com/arbiter"}}


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`base` with `over` merged in as Helm merges `-f` and `--set`: maps key by key,
    recursively; any other value (lists too) replaced."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def with_example_image(values: dict[str, Any]) -> dict[str, Any]:
    """`values` over EXAMPLE_IMAGE: renders wherever the values themselves do."""
    return merge(EXAMPLE_IMAGE, values)


def render(values: dict[str, Any], *, name: str = "arbiter", namespace: str = "default",
           validate: bool = False) -> dict[str, str]:
    """The chart rendered with `values` over its values.yaml, as `helm template NAME -n
    NAMESPACE` (an install); `validate`: first check the merged values against
    values.schema.json, as `helm template` does (HelmError on a misspelled key or a missing
    required value)."""
    with helm.Chart.load(CHART) as chart:
        if validate:
            chart.validate_schema(chart.merge_values(values))
        return chart.render(values, name=name, namespace=namespace, is_install=True)
