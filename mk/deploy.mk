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
# Binary the smoke test runs.
# Binary the smoke test runs: the tests' profile (TEST_PROFILE, set by the Makefile), so that
# `make test` builds it once.
DEPLOY_PROFILE ?= $(or $(TEST_PROFILE),release)
DEPLOY_ARBITER ?= $(TARGET_DIR)/$(DEPLOY_PROFILE)/arbiter
# Kubernetes versions the rendered objects are validated against (oldest supported, newest).
DEPLOY_KUBE_VERSIONS ?= 1.27.0 1.37.0
# Extra flags for the smoke test: the server reads every ARBITER_* name the chart sets, so an
# unknown one fails.
DEPLOY_SMOKE_ARGS ?= --strict-env
# promtool, from Debian's `prometheus` package (installed by deploy-promtool when missing).
PROMTOOL ?= promtool
DEPLOY_RULES := deploy/prometheus/arbiter.rules.yaml
DEPLOY_RULES_TEST := deploy/prometheus/arbiter.rules.test.yaml

.PHONY: deploy-check deploy-venv deploy-lint deploy-rules deploy-promtool deploy-smoke \
	deploy-build-release

deploy-check: deploy-lint deploy-rules deploy-smoke

deploy-venv: $(DEPLOY_STAMP)

$(DEPLOY_STAMP): requirements-deploy.txt
	$(PYTHON3) -m venv $(DEPLOY_VENV)
	$(DEPLOY_PY) -m pip install --quiet --disable-pip-version-check --requirement requirements-deploy.txt
	@touch $@

# Needs the binary: the chart's defaults are compared with those `arbiter serve --help` prints.
deploy-lint: $(DEPLOY_STAMP) deploy-build-release
	$(DEPLOY_PY) scripts/check-deploy.py --binary $(DEPLOY_ARBITER) $(addprefix --kube-version ,$(DEPLOY_KUBE_VERSIONS))

# The alert rules parse and pass their unit tests (deploy-lint checks that the chart and the
# kustomize overlay hold the same groups).
deploy-rules: deploy-promtool
	$(PROMTOOL) check rules $(DEPLOY_RULES)
	$(PROMTOOL) test rules $(DEPLOY_RULES_TEST)

# Installs Debian's `prometheus` package (which ships promtool) when promtool is not on PATH;
# fails, and says why, when it cannot. Needs root (CI is root) or sudo.
deploy-promtool:
	@if ! command -v $(PROMTOOL) >/dev/null 2>&1; then \
		echo "$(PROMTOOL) not found: installing the Debian package prometheus (apt-get)"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		{ $$sudo apt-get update && \
		  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends prometheus; } \
		|| { echo "deploy-promtool: FAILED to install prometheus with apt-get; the alert rule tests need promtool" >&2; exit 1; }; \
	fi; \
	command -v $(PROMTOOL) >/dev/null 2>&1 \
		|| { echo "deploy-promtool: FAILED: no $(PROMTOOL) on PATH even after installing prometheus" >&2; exit 1; }
	@$(PROMTOOL) --version 2>&1 | head -n 1

# The static binary of the tests' build (mk/build.mk), which `make image` packages; the registry's
# image builds it the same way with --release (deploy/Dockerfile). Built as `cargo test
# --workspace` builds it (`--no-run`): `cargo build --bin arbiter` alone resolves other features
# and compiled the server a second time inside every `make test`.
deploy-build-release:
	$(CARGO_STATIC) test --workspace --profile $(DEPLOY_PROFILE) $(CARGO_TARGET_ARGS) --locked --no-run

deploy-smoke: $(DEPLOY_STAMP) deploy-build-release
	$(DEPLOY_PY) scripts/smoke-deployment.py --binary $(DEPLOY_ARBITER) $(DEPLOY_SMOKE_ARGS)

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_DEPLOY_DEFAULT_GOAL)
endif
