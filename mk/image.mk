# The container image, built and run on this machine with no registry and no Docker engine.
#
#   make image        the static binary the tests run (mk/build.mk) in the runtime stage of
#                     deploy/Dockerfile (FROM scratch, user 65532), built with buildah and saved
#                     as an OCI archive: $(IMAGE_ARCHIVE)
#   make image-test   (part of `make test`) runs that archive with podman as the chart's
#                     Deployment runs it and checks it (scripts/smoke-image.py); NOT RUN, with
#                     the reason, where containers cannot run
#
# buildah, podman, runc and slirp4netns are Debian's packages, installed with apt-get when
# missing (as root, or with sudo). They read mk/containers.conf (CONTAINERS_CONF), not the
# machine's configuration, and keep their images, containers and state under $(IMAGE_DIR): the
# machine's container storage, networks and configuration stay as they are.
#
# Include from the Makefile:   include mk/image.mk   (after mk/deploy.mk)

_IMAGE_DEFAULT_GOAL := $(.DEFAULT_GOAL)

include $(dir $(lastword $(MAKEFILE_LIST)))build.mk

# The profile whose binary goes into the image: the tests' (built and tested by `make test`).
# `make image IMAGE_PROFILE=release` builds release's (thin LTO) as the registry's image has it.
IMAGE_PROFILE ?= $(or $(TEST_PROFILE),release)
IMAGE_BINARY = $(TARGET_DIR)/$(IMAGE_PROFILE)/arbiter
# The archive, and the name and tag it carries (`podman load` and `kind load` give it that name).
IMAGE_ARCHIVE ?= target/arbiter-image.oci.tar
IMAGE_NAME ?= localhost/arbiter:dev
# The image's org.opencontainers.image.version label: the workspace's version (Cargo.toml), the
# one `arbiter --version` reports.
IMAGE_VERSION ?= $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
# buildah's and podman's storage (vfs: no overlay mount needed), run state and temporary files.
IMAGE_DIR := $(abspath target/image)
IMAGE_TOOLS := buildah podman runc slirp4netns
IMAGE_ENV = CONTAINERS_CONF=$(abspath mk/containers.conf)
BUILDAH = $(IMAGE_ENV) buildah --root $(IMAGE_DIR)/build/storage --runroot $(IMAGE_DIR)/build/run \
	--storage-driver vfs

.PHONY: image image-tools image-binary image-test

# The binary: the tests' build (deploy-build-release) for their profile, a build of its own for
# another.
image-binary:
ifeq ($(IMAGE_PROFILE),$(DEPLOY_PROFILE))
image-binary: deploy-build-release
else
	$(CARGO_STATIC) build --profile $(IMAGE_PROFILE) $(CARGO_TARGET_ARGS) --locked --bin arbiter
endif

# Installs what is missing of $(IMAGE_TOOLS). Never fails: `make image` fails without them, and
# `make image-test` says it did NOT RUN. Debian's podman package enables (and, under systemd,
# starts) its API socket and services: when this installs podman, it disables and stops them
# again, so that `make test` leaves no service behind. Nothing here needs them.
PODMAN_UNITS := podman.socket podman.service podman-restart.service podman-auto-update.service \
	podman-auto-update.timer
image-tools:
	@missing=; for tool in $(IMAGE_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ]; then \
		echo "no$$missing: installing the Debian packages $(IMAGE_TOOLS) (apt-get)"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo="sudo -n"; fi; \
		had_podman=$$(command -v podman); \
		{ $$sudo apt-get update -q && \
		  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $(IMAGE_TOOLS); } \
		|| echo "image-tools: could not install$$missing with apt-get; make image-test will NOT RUN" >&2; \
		if [ -z "$$had_podman" ] && command -v podman >/dev/null 2>&1 && command -v systemctl >/dev/null 2>&1; then \
			if [ -d /run/systemd/system ]; then now=--now; else now=; fi; \
			echo "image-tools: disabling the units Debian's podman enabled: $(PODMAN_UNITS)"; \
			$$sudo systemctl disable --quiet $$now $(PODMAN_UNITS) || true; \
		fi; \
	fi

# The runtime stage of deploy/Dockerfile, its /out/arbiter taken from a local image that holds
# the binary (BINARY_FROM): buildah skips the build stage and pulls nothing (--pull=never). Each
# build starts from an empty store under $(IMAGE_DIR)/build and removes it when done: what is
# kept is the archive. (One shell command, so that image-test can run it conditionally.) buildah
# warns that the OCI format has no HEALTHCHECK: Docker's builds keep it; Kubernetes and podman
# use their own probes (the chart's gRPC probes).
image_build = set -e; \
	rm -rf $(IMAGE_DIR)/build; mkdir -p $(IMAGE_DIR)/build/context $(dir $(IMAGE_ARCHIVE)); \
	ctr=$$($(BUILDAH) from --pull=never scratch); \
	$(BUILDAH) copy --chmod 0755 $$ctr $(IMAGE_BINARY) /out/arbiter >/dev/null; \
	$(BUILDAH) commit --quiet --rm $$ctr localhost/arbiter-binary:build >/dev/null; \
	$(BUILDAH) build --quiet --pull=never --format oci --file deploy/Dockerfile --target runtime \
		--build-arg BINARY_FROM=localhost/arbiter-binary:build --build-arg VERSION=$(IMAGE_VERSION) \
		--tag $(IMAGE_NAME) \
		$(IMAGE_DIR)/build/context >/dev/null; \
	rm -f $(IMAGE_ARCHIVE); \
	$(BUILDAH) push --quiet $(IMAGE_NAME) oci-archive:$(abspath $(IMAGE_ARCHIVE)):$(IMAGE_NAME); \
	rm -rf $(IMAGE_DIR)/build; \
	echo "image: $(IMAGE_ARCHIVE) ($(IMAGE_NAME), $$(du -m $(IMAGE_ARCHIVE) | cut -f1) MiB) from $(IMAGE_BINARY)"

image: image-tools image-binary
	@command -v buildah >/dev/null 2>&1 \
		|| { echo "image: FAILED: no buildah (make image-tools could not install it)" >&2; exit 1; }
	@$(image_build)

# The archive, run with podman under the chart's security context (scripts/smoke-image.py, which
# says NOT RUN where containers cannot run); the tests' binary asks the health checks from
# outside.
image-test: image-tools image-binary $(DEPLOY_STAMP) tools
	@if ! command -v buildah >/dev/null 2>&1; then \
		echo "image-test: NOT RUN, no buildah (make image-tools could not install it)"; \
	else \
		( $(image_build) ) && \
		$(DEPLOY_PY) scripts/smoke-image.py --archive $(IMAGE_ARCHIVE) --name $(IMAGE_NAME) \
			--binary $(IMAGE_BINARY) --state-dir $(IMAGE_DIR)/test; \
	fi

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_IMAGE_DEFAULT_GOAL)
endif
