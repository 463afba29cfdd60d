# How `make` compiles the workspace for the tests, the deployment checks and the image: for the
# host's platform, named (--target), with the C runtime linked in (crt-static). The `arbiter`
# this gives needs no library at run time: the end-to-end tests, the deployment smoke test and
# the image (mk/image.mk, FROM scratch) all run that one binary, built once. deploy/Dockerfile
# builds the registry's image the same way.
#
# The triple is named because without --target the static flag also reaches build scripts and
# proc macros, which cannot be static ("cannot produce proc-macro ... as the target does not
# support these crate types"); with it, cargo builds those for the host without the flag. Every
# cargo command that compiles the tests' profile uses $(CARGO_STATIC) and $(CARGO_TARGET_ARGS):
# one that left them out would rebuild the workspace from scratch into another directory.
#
# Include from the Makefile:   include mk/build.mk   (before the targets that compile)

ifndef _BUILD_MK
_BUILD_MK := 1

CARGO ?= cargo
RUSTC ?= rustc
# The platform the binaries are built for: this machine's.
ifeq ($(origin CARGO_TARGET),undefined)
CARGO_TARGET := $(shell $(RUSTC) --print host-tuple)
endif
CARGO_TARGET_ARGS = --target $(CARGO_TARGET)
# The flags of the target's code (not of build scripts and proc macros, thanks to --target).
BUILD_RUSTFLAGS ?= -C target-feature=+crt-static
# (They replace any RUSTFLAGS of the environment: set BUILD_RUSTFLAGS to add flags.)
CARGO_STATIC = RUSTFLAGS='$(BUILD_RUSTFLAGS)' $(CARGO)
# Where cargo puts what it builds for that target: $(TARGET_DIR)/<profile>/.
TARGET_DIR = $(or $(CARGO_TARGET_DIR),target)/$(CARGO_TARGET)

endif
