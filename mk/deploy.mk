# Deployment checks: Dockerfile, Helm chart, kustomize base, alerts, dashboard and a smoke run of
# the binary as the chart's Deployment runs it. No Docker engine or cluster needed.
#
# Include from the Makefile:   include mk/deploy.mk        (anywhere)
#                              TEST_EXTRA += deploy-check  (before `TEST_STEPS += $(TEST_EXTRA)`)
# or run alone:                make -f mk/deploy.mk deploy-check

# Included from another Makefile, this file must not become its default goal.
_DEPLOY_DEFAULT_GOAL := $(.DEFAULT_GOAL)

PYTHON3 ?= python3
CARGO ?= cargo
DEPLOY_VENV ?= .venv/deploy
DEPLOY_PY := $(DEPLOY_VENV)/bin/python
DEPLOY_STAMP := $(DEPLOY_VENV)/.installed
# Binary the smoke test runs.
DEPLOY_ARBITER ?= target/release/arbiter
# Kubernetes versions the rendered objects are validated against (oldest supported, newest).
DEPLOY_KUBE_VERSIONS ?= 1.27.0 1.37.0
# Extra flags for the smoke test: the server reads every ARBITER_* name the chart sets, so an
# unknown one fails.
DEPLOY_SMOKE_ARGS ?= --strict-env

.PHONY: deploy-check deploy-venv deploy-lint deploy-smoke deploy-build-release

deploy-check: deploy-lint deploy-smoke

deploy-venv: $(DEPLOY_STAMP)

$(DEPLOY_STAMP): requirements-deploy.txt
	$(PYTHON3) -m venv $(DEPLOY_VENV)
	$(DEPLOY_PY) -m pip install --quiet --disable-pip-version-check --requirement requirements-deploy.txt
	@touch $@

deploy-lint: $(DEPLOY_STAMP)
	$(DEPLOY_PY) scripts/check-deploy.py $(addprefix --kube-version ,$(DEPLOY_KUBE_VERSIONS))

# The image builds with the same command (deploy/Dockerfile).
deploy-build-release:
	$(CARGO) build --release --locked --bin arbiter

deploy-smoke: $(DEPLOY_STAMP) deploy-build-release
	$(DEPLOY_PY) scripts/smoke-deployment.py --binary $(DEPLOY_ARBITER) $(DEPLOY_SMOKE_ARGS)

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_DEPLOY_DEFAULT_GOAL)
endif
