# Deployment checks: Dockerfile, Helm chart, kustomize base, alerts (and their promtool unit
# tests), dashboard and a smoke run of the binary as the chart's Deployment runs it. No Docker
# engine or cluster needed.
#
# Include from the Makefile:   include mk/deploy.mk        (anywhere)
#                              TEST_EXTRA += deploy-check  (before `TEST_STEPS += $(TEST_EXTRA)`)
# or run alone:                make -f mk/deploy.mk deploy-check

# Included from another Makefile, this file must not become its default goal.
_DEPLOY_DEFAULT_GOAL := $(.DEFAULT_GOAL)

include $(dir $(lastword $(MAKEFILE_LIST)))build.mk

PYTHON3 ?= python3
CARGO ?= cargo
DEPLOY_VENV ?= .venv/deploy
DEPLOY_PY := $(DEPLOY_VENV)/bin/python
DEPLOY_STAMP := $(DEPLOY_VENV)/.installed
# Binary the smoke test runs: the one of the tests' build (ARBITER_BUILT, set by the Makefile), so
# that `make test` builds it once; run alone, that of the same `cargo test --no-run`.
DEPLOY_PROFILE ?= $(or $(TEST_PROFILE),release)
DEPLOY_ARBITER ?= $(or $(ARBITER_BUILT),$(TARGET_DIR)/$(DEPLOY_PROFILE)/arbiter)
# Kubernetes versions the rendered objects are validated against (oldest supported, newest).
DEPLOY_KUBE_VERSIONS ?= 1.27.0 1.37.0
# Extra flags for the smoke test: the server reads every ARBITER_* name the chart sets, so an
# unknown one fails.
DEPLOY_SMOKE_ARGS ?= --strict-env
# promtool, taken out of Debian's `prometheus` package into this directory by deploy-promtool
# (scripts/fetch-promtool.sh: `apt-get download` and `dpkg-deb`, nothing installed, no service).
# Never the one on PATH; `make deploy-rules PROMTOOL=/path/to/promtool` uses another.
PROMTOOL_DIR ?= .tools/prometheus
PROMTOOL_LOCAL := $(PROMTOOL_DIR)/promtool
PROMTOOL ?= $(PROMTOOL_LOCAL)
# The Debian package it comes from: `prometheus` (the release's candidate) or `prometheus=VERSION`.
PROMETHEUS_DEB ?= prometheus
DEPLOY_RULES := deploy/prometheus/arbiter.rules.yaml
DEPLOY_RULES_TEST := deploy/prometheus/arbiter.rules.test.yaml

.PHONY: deploy-check deploy-venv deploy-lint deploy-rules deploy-promtool deploy-smoke \
	deploy-build-release chart

deploy-check: deploy-lint deploy-rules deploy-smoke

deploy-venv: $(DEPLOY_STAMP)

$(DEPLOY_STAMP): requirements-deploy.txt
	$(PYTHON3) -m venv $(DEPLOY_VENV)
	$(DEPLOY_PY) -m pip install --quiet --disable-pip-version-check --requirement requirements-deploy.txt
	@touch $@

# The chart's manifests as `helm template` renders them, with Helm's own code (helm-python-sdk in
# the venv; Helm is not packaged for Debian): scripts/render-chart.py. CHART_ARGS: its flags, e.g.
# `make chart CHART_ARGS='-f my-values.yaml --set image.repository=REGISTRY/arbiter' > arbiter.yaml`.
CHART_ARGS ?=
chart: $(DEPLOY_STAMP)
	@$(DEPLOY_PY) scripts/render-chart.py $(CHART_ARGS)

# Needs the binary: the chart's defaults are compared with those `arbiter serve --help` prints,
# and the metrics the alerts and dashboard use with those it exports. First the unit tests of
# check-deploy.py's own checks (scripts/tests/: a duplicate key, a selected test pod are caught).
deploy-lint: $(DEPLOY_STAMP) deploy-build-release
	$(DEPLOY_PY) -m unittest discover --start-directory scripts/tests
	$(DEPLOY_PY) scripts/check-deploy.py --binary $(DEPLOY_ARBITER) $(addprefix --kube-version ,$(DEPLOY_KUBE_VERSIONS))

# The alert rules parse and pass their unit tests (deploy-lint checks that the chart and the
# kustomize monitoring component hold the same groups). Without promtool, the step says NOT RUN and why, as the
# browser tests do, and does not fail.
deploy-rules: deploy-promtool
	@if promtool=$$(command -v "$(PROMTOOL)"); then \
		echo "alert rule tests (promtool): run, $$promtool ($$($$promtool --version 2>&1 | head -n 1))"; \
		"$$promtool" check rules $(DEPLOY_RULES) && "$$promtool" test rules $(DEPLOY_RULES_TEST); \
	else \
		echo "alert rule tests (promtool): NOT RUN, $(if $(filter $(PROMTOOL_LOCAL),$(PROMTOOL)),$$(cat $(PROMTOOL_DIR)/NOT-RUN 2>/dev/null || echo no $(PROMTOOL)),no $(PROMTOOL))"; \
	fi

# Fetches promtool into $(PROMTOOL_DIR) when it is not there (only when PROMTOOL is left at that
# path). Never fails: deploy-rules reads whether promtool is there and says so.
deploy-promtool:
ifeq ($(PROMTOOL),$(PROMTOOL_LOCAL))
	@scripts/fetch-promtool.sh $(PROMTOOL_DIR) $(PROMETHEUS_DEB) || true
endif

# The static binary of the tests' build (mk/build.mk), which `make image` packages; the registry's
# image builds it the same way with --release (deploy/Dockerfile). Built as `cargo test
# --workspace` builds it (`--no-run`): `cargo build --bin arbiter` alone resolves other features
# and compiled the server a second time inside every `make test`. From the Makefile, that is its
# test-build (the same build as the tests', `make run`'s and bin/arbiter's).
ifdef ARBITER_BUILT
deploy-build-release: test-build
else
deploy-build-release:
	$(CARGO_STATIC) test --workspace --profile $(DEPLOY_PROFILE) $(CARGO_TARGET_ARGS) --locked --no-run
endif

deploy-smoke: $(DEPLOY_STAMP) deploy-build-release
	$(DEPLOY_PY) scripts/smoke-deployment.py --binary $(DEPLOY_ARBITER) $(DEPLOY_SMOKE_ARGS)

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_DEPLOY_DEFAULT_GOAL)
endif
