# arbiter: build, run, test and lint. Everything a fresh machine needs beyond cargo and npm is
# installed by `make tools` (pinned in package.json / package-lock.json).

CARGO ?= cargo
NPM ?= npm
BUF := node_modules/.bin/buf
# The target and flags of the tests' build, and the image's (CARGO_STATIC, CARGO_TARGET_ARGS,
# TARGET_DIR): one static binary for the tests, the deployment checks, `make run` and the image.
include mk/build.mk

# The binary the docs call `bin/arbiter`: a link (not in git) to the server's binary of the tests'
# build (ARBITER_BUILT, below), made by `make test`, `make run` and `make test-build`.
ARBITER := bin/arbiter
# cargo's output directory for builds without --target (`make build`, `make release`, the
# benchmarks); the tests' static build is under $(TARGET_DIR) (mk/build.mk).
HOST_TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
# The release binary the benchmarks time (BENCHMARKS.md's figures are release builds: thin LTO,
# one codegen unit).
BENCH_ARBITER = $(HOST_TARGET_DIR)/release/arbiter

# Addresses `make run` listens on, one per port of `arbiter serve` (--grpc-addr, --metrics-addr,
# --health-addr): this machine only. The binary's own defaults, for containers, are every
# interface.
GRPC_ADDR ?= 127.0.0.1:50051
METRICS_ADDR ?= 127.0.0.1:9090
HEALTH_ADDR ?= 127.0.0.1:50052
# Extra arguments for `arbiter serve` in `make run`.
SERVE_ARGS ?=

# The steps of `make test`, run in this order. Add steps by appending to TEST_STEPS below (or
# on the command line: `make test TEST_EXTRA=my-step`).
TEST_STEPS := fmt-check clippy doc-check cargo-test fuzz-lock buf-lint buf-breaking
TEST_EXTRA ?=
# Render, lint and schema-check the Helm chart and kustomize base, lint the Dockerfile, unit-test
# the alert rules with promtool (taken out of Debian's prometheus package into .tools/, nothing
# installed), and run the binary as the rendered Deployment would (mk/deploy.mk).
TEST_EXTRA += deploy-check
# Build the OCI image with buildah (mk/image.mk) and run it with podman as the chart's Deployment
# runs it: health, a call from outside, the drain (Debian's buildah and podman, installed with
# apt-get when missing; NOT RUN where containers cannot run).
TEST_EXTRA += image-test
TEST_STEPS += $(TEST_EXTRA)

# More benchmark targets run by `make bench` after the perft timings below: the per-call cost of
# every RPC against health Check (scripts/bench-rpc.sh) and `arbiter adjudicate` on the shared
# corpus against python-chess (scripts/bench-adjudicate.sh), and the flag-fall verdict against
# chasolver alone on the winnability sets (crates/rules/examples/winnability.rs, needs
# $(ARBITER_UNWINNABLE_DIR)). Not part of `make test`.
BENCH_EXTRA ?= bench-rpc bench-adjudicate bench-winnability

# Positions timed by `make bench` with `arbiter perft` (FEN|depth).
BENCH_PERFT := \
	"startpos|5" \
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1|4"

.PHONY: all build release run test test-build check unit-test lint fmt fmt-check clippy doc-check \
	cargo-test buf-lint buf-breaking proto-release-image bench \
	bench-perft bench-rpc bench-adjudicate bench-winnability tools clean

all: build

build:
	$(CARGO) build --workspace

release:
	$(CARGO) build --release --workspace

# The tests' build (no second build after `make test`), then the server on 127.0.0.1. It logs one
# "arbiter listening" line naming its three addresses.
run: test-build
	$(ARBITER) serve --grpc-addr '$(GRPC_ADDR)' --metrics-addr '$(METRICS_ADDR)' \
		--health-addr '$(HEALTH_ADDR)' $(SERVE_ARGS)

test: $(TEST_STEPS)

# The inner loop: format, lint, and every crate's own tests (unit tests and the crates' tests/
# directories), in the tests' profile so that it reuses `make test`'s build. Not the end-to-end
# tests (arbiter-e2e), the browser tests, the shared data sets or the deployment checks, nor the
# rules suites named in CHECK_SKIP (a minute or more each): `make test` runs them all. After a
# one-line change in crates/server, with the build of a `make test` or `make check` before: 1 min
# 46 s on 2 cores shared with other builds (load 10), 37 s of CPU.
CHECK_SKIP ?= chasolver_positions_sound_and_agreeing perft_chess960_suite
check: fmt-check clippy unit-test

# Excluding arbiter-e2e leaves the feature set of `cargo test --workspace` unchanged today (its
# dev-dependencies add no feature the server's build lacks), so this reuses the tests' build.
unit-test:
	$(CARGO_STATIC) test $(TEST_BUILD_ARGS) --exclude arbiter-e2e -- $(addprefix --skip ,$(CHECK_SKIP))

lint: fmt-check clippy buf-lint

fmt:
	$(CARGO) fmt --all

fmt-check:
	$(CARGO) fmt --all --check

# In the tests' profile: build scripts (jemalloc's and ring's C builds) and proc macros are then
# compiled once for clippy and the tests.
clippy:
	$(CARGO_STATIC) clippy --workspace --all-targets --profile $(TEST_PROFILE) $(CARGO_TARGET_ARGS) -- -D warnings

# Every intra-doc link resolves (the rules crate's table of FIDE articles links each article to
# its items) and rustdoc's lints pass. In the tests' profile, it reuses clippy's dependencies.
doc-check:
	RUSTDOCFLAGS="-D warnings" $(CARGO_STATIC) doc --workspace --no-deps --profile $(TEST_PROFILE) $(CARGO_TARGET_ARGS)

# The end-to-end tests call `buf curl`: install the pinned tools first.
# The real-games corpus (not redistributable, so not in the repository) is read from
# ARBITER_CORPUS_DIR; the tests that use it skip, and say so here, when it is absent.
ARBITER_CORPUS_DIR ?= $(abspath ../shared/data/games)
export ARBITER_CORPUS_DIR
# The large winnability sets (154k labelled positions) likewise.
ARBITER_UNWINNABLE_DIR ?= $(abspath ../shared/data/unwinnable)
export ARBITER_UNWINNABLE_DIR

# The cargo profile of the tests (Cargo.toml: release optimizations, no LTO, so that a cold
# `make test` stays within CI's budget); the deployment checks run the binary of the same profile.
TEST_PROFILE ?= test-release
export TEST_PROFILE
# The one build of `make test` (test-build): every test binary and the server's binary, with the
# feature set of `cargo test --workspace`. The end-to-end tests, the deployment checks, `make run`
# and bin/arbiter all use its binary (ARBITER_BUILT). `cargo build -p arbiter-server` and `cargo
# build --workspace --bin arbiter` resolve other features (no dev-dependencies) and compile the
# server a second time (minutes); after `make test`, this is a no-op (0.3 s).
# Static, for the host's triple (mk/build.mk): every command that builds the tests' profile runs
# $(CARGO_STATIC) with these arguments, or it would build the workspace again in another directory.
TEST_BUILD_ARGS ?= --workspace --profile $(TEST_PROFILE) $(CARGO_TARGET_ARGS)
ARBITER_BUILT ?= $(TARGET_DIR)/$(TEST_PROFILE)/arbiter

# The tests that need the shared data are #[ignore]d, named shared_corpus_* and
# shared_unwinnable_*, and fail when run without it: they are run here (--include-ignored) for the
# data that is present, skipped by name for the data that is not, and the step says which.
SHARED_TEST_ARGS := --include-ignored \
	$(if $(wildcard $(ARBITER_CORPUS_DIR)/.),,--skip shared_corpus_) \
	$(if $(wildcard $(ARBITER_UNWINNABLE_DIR)/.),,--skip shared_unwinnable_)

test-build:
	$(CARGO_STATIC) test $(TEST_BUILD_ARGS) --no-run
	@mkdir -p $(dir $(ARBITER))
	@ln -sfn "$$(realpath -m --relative-to=$(dir $(ARBITER)) $(ARBITER_BUILT))" $(ARBITER)
	@echo "$(ARBITER) -> $(ARBITER_BUILT)"

# The browser test of the example web page loads examples/web/dist/ (mk/web.mk).
cargo-test: tools browser-tools web-example test-build
	@if [ -d "$(ARBITER_CORPUS_DIR)" ]; then \
		echo "corpus tests (shared_corpus_*): run, ARBITER_CORPUS_DIR=$(ARBITER_CORPUS_DIR)"; \
	else \
		echo "corpus tests (shared_corpus_*): NOT RUN, ARBITER_CORPUS_DIR=$(ARBITER_CORPUS_DIR) not found"; \
	fi
	@if [ -d "$(ARBITER_UNWINNABLE_DIR)" ]; then \
		echo "winnability sets (shared_unwinnable_*): run, ARBITER_UNWINNABLE_DIR=$(ARBITER_UNWINNABLE_DIR)"; \
	else \
		echo "winnability sets (shared_unwinnable_*): NOT RUN, ARBITER_UNWINNABLE_DIR=$(ARBITER_UNWINNABLE_DIR) not found"; \
	fi
	@$(browser_env); \
	ARBITER_BIN=$(abspath $(ARBITER_BUILT)) $(CARGO_STATIC) test $(TEST_BUILD_ARGS) \
		-- $(SHARED_TEST_ARGS) $$browser_skip

buf-lint: tools
	$(BUF) lint

# The contract cannot break silently: proto/ is compared with the image of the last released
# arbiter.v1 (FILE rules: no field renamed, renumbered, retyped or removed). On a release, after
# a compatible change, refresh the image with `make proto-release-image` and commit it.
PROTO_RELEASED := proto/released/arbiter.v1.binpb
buf-breaking: tools
	$(BUF) breaking --against $(PROTO_RELEASED)

proto-release-image: tools
	$(BUF) build -o $(PROTO_RELEASED)

bench: bench-perft $(BENCH_EXTRA)

# h2load comes from Debian's nghttp2-client (installed with apt when missing, as root in CI).
bench-rpc: release
	@command -v h2load >/dev/null || (apt-get update -q && apt-get install -y -q nghttp2-client)
	scripts/bench-rpc.sh --binary $(BENCH_ARBITER)

bench-adjudicate: release
	ARBITER=$(BENCH_ARBITER) scripts/bench-adjudicate.sh

# Issue 13's winnability targets (ratio chasolver alone / arbiter >= 0.85), 10,000 positions of
# each large set and the whole hard set, medians of 3 rounds.
bench-winnability:
	@test -d "$(ARBITER_UNWINNABLE_DIR)" || { echo "bench-winnability: NOT RUN, $(ARBITER_UNWINNABLE_DIR) not found"; exit 1; }
	$(CARGO) build --release -p arbiter-rules --example winnability
	$(HOST_TARGET_DIR)/release/examples/winnability $(ARBITER_UNWINNABLE_DIR)/chasolver-lichess.txt full 3 10000
	$(HOST_TARGET_DIR)/release/examples/winnability $(ARBITER_UNWINNABLE_DIR)/d3chess-unfair-2022-05.txt fast 3 10000
	$(HOST_TARGET_DIR)/release/examples/winnability $(ARBITER_UNWINNABLE_DIR)/chasolver-positions.txt fast 3

bench-perft: release
	@for spec in $(BENCH_PERFT); do \
		fen="$${spec%|*}"; depth="$${spec##*|}"; \
		echo "perft depth $$depth: $$fen"; \
		start=$$(date +%s.%N); \
		nodes=$$($(BENCH_ARBITER) perft --fen "$$fen" --depth "$$depth") || exit 1; \
		end=$$(date +%s.%N); \
		python3 -c "import sys; n=int(sys.argv[1]); t=float(sys.argv[3])-float(sys.argv[2]); print(f'  {n} nodes in {t:.3f} s: {n/t/1e6:.1f} Mnps')" "$$nodes" "$$start" "$$end"; \
	done

tools: $(BUF)

$(BUF): package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

clean:
	$(CARGO) clean
	rm -rf node_modules $(WEB_GEN) $(WEB_DIST) $(ARBITER) $(PROMTOOL_DIR)

include mk/deploy.mk
# `make image`: the OCI image, built with buildah from the tests' static binary (mk/image.mk).
include mk/image.mk
# Headless Chromium for the browser tests (mk/browser.mk).
include mk/browser.mk
# `make web-example`: the example page of examples/web/, built into examples/web/dist/ (mk/web.mk).
include mk/web.mk
# `make fuzz`: coverage-guided fuzzing of every reader and handler (mk/fuzz.mk; not part of `make
# test`, which replays the saved corpora through crates/fuzz-targets instead).
include mk/fuzz.mk
