"""Unit tests of scripts/check-deploy.py's own checks: that they catch what they are for.

    .venv/deploy/bin/python -m unittest discover -s scripts/tests -v    (make deploy-lint runs it)
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_deploy", ROOT / "scripts" / "check-deploy.py")
assert _spec and _spec.loader
check_deploy = importlib.util.module_from_spec(_spec)
sys.modules["check_deploy"] = check_deploy
_spec.loader.exec_module(check_deploy)

# The test pod's labels as the chart wrote them before issue 26's fix, which issue 27 found:
# the chart's labels (the server's selector labels and component: server among them), then
# component: test again.
OLD_TEST_POD_LABELS = """    {{- include "arbiter.labels" . | nindent 4 }}
    app.kubernetes.io/component: test
"""
TEST_POD = "tests/test-health.yaml"


class ChartCopy:
    """helm/arbiter copied to a temporary directory, its test pod's labels replaced; the checks
    render the copy while inside the `with`."""

    def __init__(self, labels: str) -> None:
        self.labels = labels

    def __enter__(self) -> Path:
        self.tmp = tempfile.TemporaryDirectory()
        chart = Path(self.tmp.name) / "arbiter"
        shutil.copytree(check_deploy.CHART, chart)
        template = chart / "templates" / TEST_POD
        text = template.read_text()
        current = '    {{- include "arbiter.testLabels" . | nindent 4 }}\n'
        assert text.count(current) == 1, f"{TEST_POD} no longer includes arbiter.testLabels once"
        template.write_text(text.replace(current, self.labels))
        self.saved = check_deploy.CHART
        check_deploy.CHART = chart
        return chart

    def __exit__(self, *exc: object) -> None:
        check_deploy.CHART = self.saved
        self.tmp.cleanup()


class StrictYaml(unittest.TestCase):
    def test_duplicate_key_is_refused_naming_the_key_and_both_lines(self) -> None:
        text = "metadata:\n  labels:\n    a: 1\n    app.kubernetes.io/component: server\n    b: 2\n" \
               "    app.kubernetes.io/component: test\n"
        with self.assertRaises(AssertionError) as caught:
            check_deploy.parse_docs(text, "pod.yaml")
        message = str(caught.exception)
        self.assertIn("pod.yaml: while constructing a mapping", message)
        self.assertIn("found duplicate key 'app.kubernetes.io/component' (first at line 4, column 5)", message)
        self.assertIn("line 6, column 5", message)

    def test_a_duplicate_in_a_later_document_is_refused(self) -> None:
        with self.assertRaises(AssertionError) as caught:
            check_deploy.parse_docs("kind: A\n---\nkind: B\nspec: {x: 1, x: 2}\n", "two.yaml")
        self.assertIn("found duplicate key 'x'", str(caught.exception))
        self.assertIn("line 4", str(caught.exception))

    def test_the_same_key_in_two_mappings_is_no_duplicate(self) -> None:
        docs = check_deploy.parse_docs("a:\n  name: x\nb:\n  name: y\n", "ok.yaml")
        self.assertEqual(docs, [{"a": {"name": "x"}, "b": {"name": "y"}}])

    def test_a_merge_key_is_no_duplicate(self) -> None:
        docs = check_deploy.parse_docs("base: &b {x: 1, y: 2}\nover:\n  <<: *b\n  x: 3\n", "merge.yaml")
        self.assertEqual(docs[0]["over"], {"x": 3, "y": 2})

    def test_plain_pyyaml_would_have_kept_the_last_value(self) -> None:
        # Why the strict loader exists: the default loader says nothing.
        self.assertEqual(check_deploy.yaml.safe_load("a: 1\na: 2\n"), {"a": 2})


class TestPod(unittest.TestCase):
    """Issue 27: the helm test pod rendered app.kubernetes.io/component twice and carried the
    server's selector labels."""

    def test_a_test_pod_that_repeats_a_label_fails_to_render(self) -> None:
        with ChartCopy(OLD_TEST_POD_LABELS):
            with self.assertRaises(AssertionError) as caught:
                check_deploy.render({})
        message = str(caught.exception)
        self.assertIn(f"arbiter/templates/{TEST_POD}", message)
        self.assertIn("found duplicate key 'app.kubernetes.io/component'", message)

    def test_a_test_pod_with_the_server_labels_is_selected_by_every_server_selector(self) -> None:
        with ChartCopy('    {{- include "arbiter.labels" . | nindent 4 }}\n'):
            objects, _ = check_deploy.render(check_deploy.ALL_ON)
            failed_before = len(check_deploy.FAILED)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                check_deploy.check_invariants("all-optional-parts")
            self.assertEqual(check_deploy.FAILED[failed_before:], ["chart invariants (all-optional-parts values)"])
            self.assertIn("Service/arbiter selector selects the helm test Pod", out.getvalue())
            self.assertIn("the helm test Pod's component label is 'server'", out.getvalue())
        (pod,) = [o for o in objects if o["kind"] == "Pod"]
        selecting = sorted(where for where, sel in check_deploy.pod_selectors(objects)
                           if check_deploy.selects(sel, pod["metadata"]["labels"]))
        self.assertEqual(selecting, [
            "Deployment/arbiter selector",
            "Deployment/arbiter topologySpreadConstraints[0]",
            "Deployment/arbiter topologySpreadConstraints[1]",
            "NetworkPolicy/arbiter podSelector",
            "PodDisruptionBudget/arbiter selector",
            "Service/arbiter selector",
            "Service/arbiter-headless selector",
        ])

    def test_the_chart_test_pod_is_selected_by_nothing(self) -> None:
        objects, _ = check_deploy.render(check_deploy.ALL_ON)
        (pod,) = [o for o in objects if o["kind"] == "Pod"]
        selectors = check_deploy.pod_selectors(objects)
        self.assertEqual(len(selectors), 7)
        self.assertEqual([w for w, sel in selectors if check_deploy.selects(sel, pod["metadata"]["labels"])], [])


class Selectors(unittest.TestCase):
    def test_match_labels_and_expressions(self) -> None:
        labels = {"app": "arbiter", "tier": "api"}
        selects = check_deploy.selects
        self.assertTrue(selects({"app": "arbiter"}, labels))  # a Service's plain map
        self.assertFalse(selects({"app": "other"}, labels))
        self.assertTrue(selects({"matchLabels": {"app": "arbiter"},
                                 "matchExpressions": [{"key": "tier", "operator": "In", "values": ["api"]}]}, labels))
        self.assertFalse(selects({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["api"]}]}, labels))
        self.assertTrue(selects({"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}, labels))
        self.assertFalse(selects({"matchExpressions": [{"key": "zone", "operator": "Exists"}]}, labels))


if __name__ == "__main__":
    unittest.main()
