# Coverage-guided fuzzing with afl (cargo-afl, AFL++), one target at a time.
#
#   make fuzz                               every target for FUZZ_SECONDS each (60)
#   make fuzz FUZZ_TARGETS=fen FUZZ_SECONDS=600
#   make fuzz FUZZ_TARGETS=san FUZZ_EXECS=10000000   stop after that many executions instead
#   make fuzz FUZZ_TARGETS=rpc FUZZ_EXECS=10000000 FUZZ_SECONDS=900   whichever comes first
#   make fuzz-cmin FUZZ_TARGETS=fen         fold the run's queue into fuzz/corpus/fen (afl-cmin)
#   make fuzz-seeds                         regenerate the seeds and minimize them into the corpora
#
# The targets are the functions of crates/fuzz-targets (arbiter-fuzz-targets); fuzz/ holds one
# afl binary per target, outside the workspace. `make test` replays fuzz/corpus/<target>/
# through the same functions without afl (crates/fuzz-targets/tests/corpora.rs). A run fails
# when afl saved a crash or a hang; they are in fuzz/out/<target>/default/{crashes,hangs}/.

_FUZZ_DEFAULT_GOAL := $(.DEFAULT_GOAL)

CARGO ?= cargo
# cargo-afl, pinned; the afl crate of fuzz/Cargo.toml has the same version.
AFL_VERSION := 0.18.2
FUZZ_TARGETS ?= fen san uci pgn_read pgn_adjudicate pgn_adjudicate_full rpc rpc_full
FUZZ_SECONDS ?= 60
# When set, each target stops after this many executions (afl -E) rather than FUZZ_SECONDS.
FUZZ_EXECS ?=
FUZZ_DIR := fuzz
FUZZ_BIN := $(FUZZ_DIR)/target/release
# Shared data: only the CC0 lichess files (online-lichess-*.pgn) are read by the seed generator.
FUZZ_SHARED_GAMES ?= $(abspath ../shared/data/games)

# One input may take 1 s and 64 MiB; the `full` targets are bounded by the analysis budget
# instead: the server's request timeout (10 s) and about 100 MiB per analysis (docs/operations.md, "Limits and overload").
# AFL++'s tools as cargo-afl built them. afl-cmin.bash, not `cargo afl cmin` (AFL++ 4.40c's
# Python afl-cmin finds "0 unique tuples" in these persistent-mode binaries and keeps nothing).
AFL_BIN = $(patsubst %/afl-cmin.bash,%,$(firstword $(shell find $(HOME)/.local/share/afl.rs \
	-path '*/rustc-$(word 2,$(shell rustc --version))-*/afl.rs-$(AFL_VERSION)/afl/bin/afl-cmin.bash' 2>/dev/null)))
# (A shell snippet: sets $to and $mem for target $t.)
FUZZ_LIMITS = case $$t in *_full) to=10000; mem=256;; *) to=1000; mem=64;; esac
# FUZZ_EXECS alone runs until that many executions; with FUZZ_SECONDS given too (command line or
# environment), until whichever comes first.
fuzz_bound = $(if $(FUZZ_EXECS),-E $(FUZZ_EXECS)$(if $(filter-out file default,$(origin FUZZ_SECONDS)), -V $(FUZZ_SECONDS)),-V $(FUZZ_SECONDS))

# afl in a container: no CPU governor to read, core dumps piped elsewhere, no terminal UI.
export AFL_SKIP_CPUFREQ := 1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES := 1
export AFL_NO_UI := 1

.PHONY: fuzz fuzz-lock fuzz-tools fuzz-build fuzz-cmin fuzz-seeds

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_LIMITS); \
		echo "fuzz: $$t ($(fuzz_bound), -t $$to ms, -m $$mem MiB)"; \
		rm -rf $(FUZZ_DIR)/out/$$t; mkdir -p $(FUZZ_DIR)/out; \
		$(CARGO) afl fuzz -i $(FUZZ_DIR)/corpus/$$t -o $(FUZZ_DIR)/out/$$t $(fuzz_bound) \
			-t $$to -m $$mem -- $(FUZZ_BIN)/$$t > $(FUZZ_DIR)/out/$$t.log 2>&1 \
			|| { tail -20 $(FUZZ_DIR)/out/$$t.log; exit 1; }; \
		grep -E '^(execs_done|run_time|execs_per_sec|saved_crashes|saved_hangs|corpus_count) ' \
			$(FUZZ_DIR)/out/$$t/default/fuzzer_stats | tr -s ' ' | sed 's/^/  /'; \
	done
	@found=$$(find $(addprefix $(FUZZ_DIR)/out/,$(addsuffix /default/crashes,$(FUZZ_TARGETS)) \
		$(addsuffix /default/hangs,$(FUZZ_TARGETS))) -type f -name 'id:*'); \
	if [ -n "$$found" ]; then echo "fuzz: crashes or hangs found:"; echo "$$found"; exit 1; fi; \
	echo "fuzz: no crash, no hang"

# fuzz/ has its own Cargo.lock (it is outside the workspace): a dependency added to a crate it
# builds must be locked there too, or `make fuzz` fails on --locked. Part of `make test`.
fuzz-lock:
	cd $(FUZZ_DIR) && $(CARGO) metadata --locked --format-version 1 > /dev/null \
		|| { echo "fuzz-lock: fuzz/Cargo.lock is out of date: run 'cd fuzz && cargo update -w'" >&2; exit 1; }

# Installs cargo-afl (pinned) when missing, and builds its AFL++ once per toolchain.
fuzz-tools:
	@$(CARGO) afl --version 2>/dev/null | grep -q ' $(AFL_VERSION)' \
		|| $(CARGO) install cargo-afl --version $(AFL_VERSION) --locked
	@out=$$($(CARGO) afl config --build 2>&1) || echo "$$out" | grep -q 'already built' \
		|| { echo "$$out"; exit 1; }

fuzz-build: fuzz-tools
	cd $(FUZZ_DIR) && $(CARGO) afl build --release --locked

# Folds each target's last run (its queue) into its committed corpus, minimized.
fuzz-cmin: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		rm -rf $(FUZZ_DIR)/cmin-in $(FUZZ_DIR)/cmin-out; mkdir -p $(FUZZ_DIR)/cmin-in; \
		cp $(FUZZ_DIR)/corpus/$$t/* $(FUZZ_DIR)/cmin-in/; \
		if [ -d $(FUZZ_DIR)/out/$$t/default/queue ]; then \
			for f in $(FUZZ_DIR)/out/$$t/default/queue/id:*; do \
				cp "$$f" $(FUZZ_DIR)/cmin-in/q$$(echo "$$f" | sed 's/.*id:\([0-9]*\).*/\1/'); \
			done; \
		fi; \
		$(FUZZ_LIMITS); \
		AFL_PATH=$(AFL_BIN) $(AFL_BIN)/afl-cmin.bash -i $(FUZZ_DIR)/cmin-in -o $(FUZZ_DIR)/cmin-out -t $$to -m none \
			-- $(FUZZ_BIN)/$$t > $(FUZZ_DIR)/cmin.log 2>&1 || { tail -20 $(FUZZ_DIR)/cmin.log; exit 1; }; \
		rm -rf $(FUZZ_DIR)/corpus/$$t; mkdir -p $(FUZZ_DIR)/corpus/$$t; \
		i=0; for f in $$(ls $(FUZZ_DIR)/cmin-out | sort); do \
			i=$$((i+1)); cp $(FUZZ_DIR)/cmin-out/$$f $(FUZZ_DIR)/corpus/$$t/$$(printf '%05d' $$i); \
		done; \
		echo "fuzz-cmin: $$t: $$(ls $(FUZZ_DIR)/corpus/$$t | wc -l) files, $$(du -sb $(FUZZ_DIR)/corpus/$$t | cut -f1) bytes"; \
	done
	@rm -rf $(FUZZ_DIR)/cmin-in $(FUZZ_DIR)/cmin-out

# Seeds from the project's fixtures and the CC0 lichess games, minimized into the corpora
# (replacing them: run `make fuzz-cmin` after fuzzing to fold a run's finds back in).
fuzz-seeds: fuzz-build
	rm -rf $(FUZZ_DIR)/seeds
	$(CARGO) run --release -p arbiter-fuzz-targets --example make_seeds -- . $(FUZZ_SHARED_GAMES) $(FUZZ_DIR)/seeds
	@for t in $(FUZZ_TARGETS); do \
		rm -rf $(FUZZ_DIR)/corpus/$$t; mkdir -p $(FUZZ_DIR)/corpus/$$t; \
		cp $(FUZZ_DIR)/seeds/$$t/* $(FUZZ_DIR)/corpus/$$t/; \
	done
	rm -rf $(FUZZ_DIR)/out
	$(MAKE) --no-print-directory fuzz-cmin FUZZ_TARGETS="$(FUZZ_TARGETS)"

.DEFAULT_GOAL := $(_FUZZ_DEFAULT_GOAL)
