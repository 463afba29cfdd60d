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
        # check-deploy.py reads the chart at CHART; its renders go through scripts/helmchart.py.
        self.saved = check_deploy.CHART
        check_deploy.CHART = check_deploy.helmchart.CHART = chart
        return chart

    def __exit__(self, *exc: object) -> None:
        check_deploy.CHART = check_deploy.helmchart.CHART = self.saved
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


class Alerts(unittest.TestCase):
    """Issue 27: alerts that fired for normal use."""

    def run_alert_check(self, rules_text: str) -> str:
        """Runs check_alerts_for_faults on `rules_text` as the rules file; returns its output."""
        with tempfile.TemporaryDirectory() as tmp:
            rules = Path(tmp) / "arbiter.rules.yaml"
            rules.write_text(rules_text)
            saved, check_deploy.RULES = check_deploy.RULES, rules
            try:
                with contextlib.redirect_stdout(io.StringIO()) as out:
                    check_deploy.check_alerts_for_faults()
            finally:
                check_deploy.RULES = saved
        return out.getvalue()

    def test_the_rules_as_they_are_pass(self) -> None:
        self.assertTrue(self.run_alert_check(check_deploy.RULES.read_text()).startswith("ok "))

    def test_latency_of_every_call_type_and_a_bare_absent_are_refused(self) -> None:
        text = check_deploy.RULES.read_text()
        unary = 'grpc_server_handling_seconds_bucket{grpc_type="unary"}'
        self.assertEqual(text.count(unary), 1)
        absent = text[text.index("group by (namespace, job) (max_over_time"):text.index("    for:", text.index("max_over_time"))]
        old = text.replace(unary, "grpc_server_handling_seconds_bucket").replace(absent, "absent(arbiter_build_info)\n")
        out = self.run_alert_check(old)
        self.assertIn("FAIL alerts fire for faults only", out)
        self.assertIn('ArbiterHighLatency: grpc_server_handling_seconds without grpc_type="unary"', out)
        self.assertIn("ArbiterMetricsAbsent: absent() cannot say which namespace and job are gone", out)

    def test_a_runbook_url_off_its_anchor_is_refused(self) -> None:
        text = check_deploy.RULES.read_text()
        out = self.run_alert_check(text.replace("#arbiterhighlatency", "#latency"))
        self.assertIn("ArbiterHighLatency: runbook_url 'https://example.invalid/arbiter/blob/main/docs/alerts.md#latency'", out)

    def test_an_alert_without_its_runbook_section_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            runbook = Path(tmp) / "alerts.md"
            runbook.write_text(check_deploy.RUNBOOK.read_text().replace("## ArbiterAnswersAbandoned", "## Answers"))
            saved, check_deploy.RUNBOOK = check_deploy.RUNBOOK, runbook
            try:
                out = self.run_alert_check(check_deploy.RULES.read_text())
            finally:
                check_deploy.RUNBOOK = saved
        self.assertIn(f"ArbiterAnswersAbandoned: {runbook} has no section #arbiteranswersabandoned", out)
        self.assertNotIn("ArbiterHighLatency:", out)

    def test_a_metric_the_server_does_not_export_is_refused(self) -> None:
        saved = set(check_deploy.EXPORTED)
        check_deploy.EXPORTED.clear()
        check_deploy.EXPORTED.update({"grpc_server_handled_total", "arbiter_build_info"})
        try:
            check_deploy.check_expr("sum(rate(grpc_server_handled_total[5m]))", "known")
            with self.assertRaises(AssertionError) as caught:
                check_deploy.check_expr("sum(rate(grpc_server_handled_totals[5m]))", "misspelled")
        finally:
            check_deploy.EXPORTED.clear()
            check_deploy.EXPORTED.update(saved)
        self.assertIn("misspelled: metrics the server does not export: {'grpc_server_handled_totals'}", str(caught.exception))

    def test_handling_selectors_are_found_with_and_without_braces(self) -> None:
        expr = 'rate(grpc_server_handling_seconds_bucket{grpc_type="unary", a="b"}[5m]) + grpc_server_handling_seconds_count'
        self.assertEqual(check_deploy.handling_selectors(expr), ['grpc_type="unary", a="b"', ""])


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
