# Browser tests: headless Chromium (Debian's `chromium` package, installed with apt-get when
# missing, as root in CI or with sudo) renders the HTML report of `arbiter adjudicate` and
# loads examples/web against a running `arbiter serve`. The print tests (browser_print_*) also
# read the PDF Chromium prints with poppler-utils (`pdfinfo`, `pdftotext`, `pdftoppm`; Debian's
# `poppler-utils`, installed the same way): they do NOT run, and say why, without them.
#
# The tests that need the browser are #[ignore]d and named browser_*; `make test` runs them
# (--include-ignored) with ARBITER_CHROMIUM set to the browser found here, and says plainly that
# they did NOT run when no browser could be installed. Run without it, a browser_* test fails:
# it never passes silently. Their screenshots are kept in $(BROWSER_ARTIFACTS).
#
# Include from the Makefile:   include mk/browser.mk   (anywhere)

_BROWSER_DEFAULT_GOAL := $(.DEFAULT_GOAL)

# The browser binary (a name on PATH or a path).
CHROMIUM ?= chromium
# Where browser tests keep their screenshots.
BROWSER_ARTIFACTS ?= $(abspath target/browser-artifacts)
export BROWSER_ARTIFACTS

.PHONY: browser-tools

# The PDF tools of the print tests.
POPPLER_TOOLS := pdfinfo pdftotext pdftoppm

# Installs chromium (and a font, so that screenshots show text on a bare machine) when it is not
# on PATH, and poppler-utils when one of $(POPPLER_TOOLS) is not. Never fails: the test step
# reads whether they are there and says so.
browser-tools:
	@if ! command -v $(CHROMIUM) >/dev/null 2>&1; then \
		echo "$(CHROMIUM) not found: installing the Debian packages chromium fonts-dejavu-core (apt-get)"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo="sudo -n"; fi; \
		{ $$sudo apt-get update -q && \
		  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends \
			chromium fonts-dejavu-core; } \
		|| echo "browser-tools: could not install chromium with apt-get; the browser tests will NOT run" >&2; \
	fi
	@for tool in $(POPPLER_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "$(POPPLER_TOOLS): not all found: installing the Debian package poppler-utils (apt-get)"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo="sudo -n"; fi; \
		{ $$sudo apt-get update -q && \
		  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends \
			poppler-utils; } \
		|| echo "browser-tools: could not install poppler-utils with apt-get; the print tests (browser_print_*) will NOT run" >&2; \
	fi

# `browser_test_args`: the cargo test arguments that skip the browser tests when no browser is
# there, and the print tests when the PDF tools are not, after setting ARBITER_CHROMIUM (shell
# code for a recipe, then `$$browser_skip`).
define browser_env
if chromium_path=$$(command -v $(CHROMIUM) 2>/dev/null); then \
	export ARBITER_CHROMIUM="$$chromium_path"; browser_skip=; \
	echo "browser tests (browser_*): run, ARBITER_CHROMIUM=$$chromium_path ($$($$chromium_path --version 2>/dev/null)), screenshots in $(BROWSER_ARTIFACTS)"; \
	for tool in $(POPPLER_TOOLS); do command -v $$tool >/dev/null 2>&1 || poppler_missing="$$poppler_missing $$tool"; done; \
	if [ -n "$$poppler_missing" ]; then \
		browser_skip="--skip browser_print_"; \
		echo "print tests (browser_print_*): NOT RUN, no$$poppler_missing on PATH (make browser-tools could not install poppler-utils)"; \
	else \
		echo "print tests (browser_print_*): run, $$(pdfinfo -v 2>&1 | head -n 1)"; \
	fi; \
else \
	browser_skip="--skip browser_"; \
	echo "browser tests (browser_*): NOT RUN, no $(CHROMIUM) on PATH (make browser-tools could not install it)"; \
fi
endef

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_BROWSER_DEFAULT_GOAL)
endif
