# backport-gate: `make demo` runs the main job, `make check` runs every test.
# Both install what they need from Debian first (apt-get, as root or sudo).

CC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Werror
BUILD := build

# make install: the binary into $(PREFIX)/bin, the suite (its two static
# binaries, the config fragment, ccache-cc) into $(LIBDIR), under $(DESTDIR)
# when given. The gate looks in $(LIBDIR) as compiled in (BG_LIBDIR in the
# environment overrides it); the in-tree build/backport-gate finds the
# source tree it was built in first (gate/source/defaults.h).
PREFIX := /usr/local
LIBDIR = $(PREFIX)/lib/backport-gate
DESTDIR :=

# Every Debian package the project uses, by name.
PACKAGES := linux-source-6.1 linux-config-6.1 qemu-system-x86 gcc make flex bison bc perl \
	libelf-dev libssl-dev libc6-dev cpio ccache xz-utils git coreutils \
	util-linux pkg-config libgit2-dev libsqlite3-dev sqlite3 \
	libcurl4-openssl-dev libmicrohttpd-dev libjansson-dev libsystemd-dev \
	libcmocka-dev jq python3 curl openssl systemd chromium \
	clang-14 libclang-rt-14-dev gnuplot-nox dpkg-dev python3-jsonschema \
	python3-aiosmtpd slurmctld slurmd slurm-client munge

SUITE_DIR := kernel-tests/shebang
SUITE_INIT_SRCS := $(SUITE_DIR)/init.c $(SUITE_DIR)/harness.c $(SUITE_DIR)/kunit.c \
	$(SUITE_DIR)/cases.c $(SUITE_DIR)/probe_record.c $(SUITE_DIR)/release.c
SUITE_PROBE_SRCS := $(SUITE_DIR)/probe.c
SUITE_HDRS := $(wildcard $(SUITE_DIR)/*.h)

# The gate: one folder per layer (docs/ARCHITECTURE.md, "Layers"). A file includes
# headers of its own layer and of those below it, named with their layer
# ("basic/strbuf.h"): gate/ is the only include path, and tools/check-layers
# refuses an include that points up. Every gate/*/*.c but builtin/main.c
# goes into a library that the binary and the unit tests
# (tests/unit/<module>_test.c) link.
GATE_LIBS_PC := libgit2 sqlite3 jansson libcrypto libmicrohttpd libcurl libsystemd
GATE_MAIN := gate/builtin/main.c
GATE_SRCS := $(filter-out $(GATE_MAIN),$(wildcard gate/*/*.c))
GATE_OBJS := $(patsubst gate/%.c,$(BUILD)/gate/%.o,$(GATE_SRCS)) $(BUILD)/gate/migrations.o
MIGRATIONS := $(sort $(wildcard db/migrations/*.sql))
GATE_HDRS := $(wildcard gate/*/*.h)
GATE_CFLAGS = $(CFLAGS) -Igate $(shell pkg-config --cflags $(GATE_LIBS_PC))
GATE_LDLIBS = $(shell pkg-config --libs $(GATE_LIBS_PC)) -lm

# The suite's own unit tests build against kernel-tests/, not the gate.
SUITE_TEST_SRCS := tests/unit/probe_record_test.c tests/unit/release_test.c \
	tests/unit/kunit_log_test.c
GATE_TEST_SRCS := $(filter-out $(SUITE_TEST_SRCS),$(wildcard tests/unit/*_test.c))
# What the gate's unit tests share (not tests: their names do not end in
# _test.c), compiled into each of them.
TEST_HELPER_SRCS := tests/unit/testdb.c
TEST_HELPER_HDRS := tests/unit/testdb.h
UNIT_TESTS := $(BUILD)/tests/probe_record_test $(BUILD)/tests/release_test \
	$(BUILD)/tests/kunit_log_test \
	$(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(GATE_TEST_SRCS))

.PHONY: all suite deps check demo bench bench-config-check clean unit debian-series check-layers install FORCE

all: check-layers suite $(BUILD)/backport-gate $(UNIT_TESTS) $(BUILD)/tests/apply-series

# The include direction, checked before anything of the gate compiles: a
# developer build refuses an include that points up a layer. (Order-only
# below, so a passing check rebuilds nothing.)
check-layers:
	@tools/check-layers gate

$(BUILD)/gate/%.o: gate/%.c $(GATE_HDRS) | check-layers
	@mkdir -p $(@D)
	$(CC) $(GATE_CFLAGS) -c -o $@ $<

# defaults.o has $(LIBDIR) compiled in: rebuilt when it changes.
$(BUILD)/libdir.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(LIBDIR)' | cmp -s - $@ || echo '$(LIBDIR)' >$@
$(BUILD)/gate/source/defaults.o $(BUILD)/asan/gate/source/defaults.o: $(BUILD)/libdir.stamp
$(BUILD)/gate/source/defaults.o $(BUILD)/asan/gate/source/defaults.o: \
	GATE_CFLAGS += -DBG_LIBDIR='"$(LIBDIR)"'

install: suite $(BUILD)/backport-gate
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/config
	install -m 755 $(BUILD)/backport-gate $(DESTDIR)$(PREFIX)/bin/backport-gate
	install -m 755 $(BUILD)/shebang-init $(BUILD)/shebang-probe kernel-tests/ccache-cc \
		$(DESTDIR)$(LIBDIR)/
	install -m 644 kernel-tests/config/*.config $(DESTDIR)$(LIBDIR)/config/

# The schema travels inside the binary.
$(BUILD)/gate/migrations.c: $(MIGRATIONS) tools/embed-migrations
	@mkdir -p $(@D)
	tools/embed-migrations $(MIGRATIONS) > $@

$(BUILD)/gate/migrations.o: $(BUILD)/gate/migrations.c gate/record/db.h
	$(CC) $(GATE_CFLAGS) -c -o $@ $<

$(BUILD)/libgate.a: $(GATE_OBJS)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/backport-gate: $(GATE_MAIN) $(BUILD)/libgate.a $(GATE_HDRS)
	$(CC) $(GATE_CFLAGS) -o $@ $(GATE_MAIN) $(BUILD)/libgate.a $(GATE_LDLIBS)

$(BUILD)/tests/%_test: tests/unit/%_test.c $(TEST_HELPER_SRCS) $(BUILD)/libgate.a $(GATE_HDRS) \
		$(TEST_HELPER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GATE_CFLAGS) -o $@ $< $(TEST_HELPER_SRCS) $(BUILD)/libgate.a $(GATE_LDLIBS) -lcmocka

# The gate's applier on a directory, for tests/real-series.sh.
$(BUILD)/tests/apply-series: tests/tools/apply-series.c $(BUILD)/libgate.a $(GATE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GATE_CFLAGS) -o $@ $< $(BUILD)/libgate.a $(GATE_LDLIBS)

suite: $(BUILD)/shebang-init $(BUILD)/shebang-probe

# The suite runs as the guest's init: static, no loader, no libraries.
$(BUILD)/shebang-init: $(SUITE_INIT_SRCS) $(SUITE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $(SUITE_INIT_SRCS)

$(BUILD)/shebang-probe: $(SUITE_PROBE_SRCS) $(SUITE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $(SUITE_PROBE_SRCS)

$(BUILD)/tests/probe_record_test: tests/unit/probe_record_test.c \
		$(SUITE_DIR)/probe_record.c $(SUITE_DIR)/probe_record.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(SUITE_DIR) -o $@ tests/unit/probe_record_test.c \
		$(SUITE_DIR)/probe_record.c -lcmocka

$(BUILD)/tests/kunit_log_test: tests/unit/kunit_log_test.c \
		$(SUITE_DIR)/kunit.c $(SUITE_DIR)/kunit.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(SUITE_DIR) -o $@ tests/unit/kunit_log_test.c \
		$(SUITE_DIR)/kunit.c -lcmocka

$(BUILD)/tests/release_test: tests/unit/release_test.c \
		$(SUITE_DIR)/release.c $(SUITE_DIR)/release.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(SUITE_DIR) -o $@ tests/unit/release_test.c \
		$(SUITE_DIR)/release.c -lcmocka

# The same gate, unit tests included, with AddressSanitizer (leak checking
# on) and UndefinedBehaviorSanitizer; tests/run-all runs both builds.
ASAN := $(BUILD)/asan
ASAN_CFLAGS = $(GATE_CFLAGS) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ASAN_OBJS := $(patsubst gate/%.c,$(ASAN)/gate/%.o,$(GATE_SRCS)) $(ASAN)/gate/migrations.o
ASAN_TESTS := $(patsubst tests/unit/%.c,$(ASAN)/tests/%,$(GATE_TEST_SRCS))

.PHONY: asan
asan: $(ASAN)/backport-gate $(ASAN_TESTS)

$(ASAN)/gate/%.o: gate/%.c $(GATE_HDRS) | check-layers
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -c -o $@ $<

$(ASAN)/gate/migrations.o: $(BUILD)/gate/migrations.c gate/record/db.h
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -c -o $@ $<

$(ASAN)/libgate.a: $(ASAN_OBJS)
	rm -f $@
	ar rcs $@ $^

$(ASAN)/backport-gate: $(GATE_MAIN) $(ASAN)/libgate.a $(GATE_HDRS)
	$(CC) $(ASAN_CFLAGS) -o $@ $(GATE_MAIN) $(ASAN)/libgate.a $(GATE_LDLIBS)

$(ASAN)/tests/%_test: tests/unit/%_test.c $(TEST_HELPER_SRCS) $(ASAN)/libgate.a $(GATE_HDRS) \
		$(TEST_HELPER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -o $@ $< $(TEST_HELPER_SRCS) $(ASAN)/libgate.a $(GATE_LDLIBS) -lcmocka

# libFuzzer targets: make fuzz (FUZZ_SECONDS each, default 60); make check
# runs a short pass of each (tests/fuzz.sh).
include tests/fuzz/fuzz.mk

# Installs whatever of $(PACKAGES) is missing; a fresh machine needs the
# apt-get update before install finds anything.
deps:
	@missing=""; for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || \
			missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		echo "installing:$$missing"; \
		$$sudo apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $$missing; \
	fi

check: deps
	$(MAKE) all asan
	tests/run-all

# A one-node Slurm cluster on loopback for the Slurm executor (issue 20):
# tools/slurm-cluster runs Debian's slurmctld, slurmd and munged with a
# config, key and sockets of its own. slurm-check drives it through
# tests/long/slurm-cluster.sh (about 3 minutes; not in make check, which
# gates a queue through it in tests/slurm.sh; deps installs the packages).
SLURM_PACKAGES := slurmctld slurmd slurm-client munge

.PHONY: slurm-deps slurm-check
slurm-deps:
	$(MAKE) deps PACKAGES="$(SLURM_PACKAGES)"

slurm-check: slurm-deps
	tests/long/slurm-cluster.sh

# The daemon soaked (issue 19): 16 clients, 2,000 webhooks over 60 s,
# five SIGKILLs of the daemon, a receiver down for the first half; every
# delivery, job and notification accounted for, RSS and latency printed
# (tests/long/soak.sh, about 3 minutes; make check runs a short form,
# tests/soak.sh).
.PHONY: soak
soak: deps
	$(MAKE) all
	tests/long/soak.sh

# The sanitizer build under every black-box test of the gate, the daemon
# and the build slots (make check drives it through serve.sh only): the
# unit tests and gate.sh, serve.sh and slots.sh. About 16 minutes warm.
.PHONY: check-asan
check-asan: deps
	$(MAKE) all asan
	BG_ONLY_ASAN=1 BG_ASAN_TESTS="gate.sh serve.sh slots.sh" tests/run-all

# The main job on the first bundled sample: the 2019 change among benign
# backports; the gate says to drop it and shows why.
demo: deps
	$(MAKE) all
	build/backport-gate run --queue patches/queues/shebang-2019 --json build/demo-report.json; \
		status=$$?; echo "exit status $$status (1: drop); JSON report in build/demo-report.json"; \
		[ $$status -eq 1 ]

# Debian's linux source package (REAL_SERIES_VERSION, cached under
# /var/cache/backport-gate/debian-src): its quilt series applied by the gate
# and by git apply, patch by patch, and both trees against dpkg-source -x.
.PHONY: real-series
real-series: deps
	$(MAKE) BUILD=$(BUILD) $(BUILD)/tests/apply-series
	BUILD=$(BUILD) tests/real-series.sh

# Time to verdict against the naive gate (issue 5): hours with the naive
# side on every queue. BENCH_QUEUES, BENCH_NAIVE_QUEUES, BENCH_NAIVE=0,
# BENCH_FRESH=0: see bench/run. bench/cold-start times an empty cache.
bench: deps
	$(MAKE) all
	bench/run

# What the compile check adds on Debian's real series (without it, then
# with it under Debian's amd64 config; bench/results/config-check.md).
# About 30 minutes on 2 cores with a warm cache.
bench-config-check: deps
	$(MAKE) all
	bench/config-check

# The pages at size (issue 23): the daemon serving 10,000 generated runs
# (bench/gen-history, shaped on one real run of the 2019 sample queue),
# 200 GETs per kind of page; p50, p99 and max into bench/results/pages.md
# (about 2 minutes warm).
.PHONY: bench-pages
bench-pages: deps
	$(MAKE) all
	bench/pages

# Bisection steps inside gate runs of the 2019 sample queue, with quick
# builds and with make's walk, in turn (issue 24): bench/results/step.md
# (about 4 minutes warm).
.PHONY: bench-step
bench-step: deps
	$(MAKE) all
	bench/step

# The Slurm executor with 1, 2 and 4 steps at once on the 128-patch,
# 3-culprit bench queue, on a one-node cluster: time, builds, boots and
# rounds per W into bench/results/slurm-workers.md (about an hour).
.PHONY: bench-slurm
bench-slurm: deps
	$(MAKE) all
	bench/slurm-workers

# The gate on Debian's whole linux 6.1 quilt series (DEBIAN_SERIES_VERSION,
# default 6.1.164-1) and its orig tarball: every patch kept, the exported
# kept tree equal to dpkg-source -x's. About 15 minutes cold.
# DEBIAN_SERIES_CONFIG_CHECK=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
# adds the compile check under that config (a path: the orig tarball is no
# linux-source-X.Y package, so a config name has no version to look under).
debian-series: deps
	$(MAKE) all
	tests/long/debian-series.sh

# bench/run with the naive side on a cache nothing has used: both sides
# fill their row (the bench once stopped there with no message). About 10
# minutes.
.PHONY: bench-fresh
bench-fresh: deps
	$(MAKE) all
	tests/long/bench-fresh.sh

# Debian 12's second kernel branch, linux-source-6.12 (installed first, with
# linux-config-6.12 for run --config-check on it):
# base, the 2019 port and its revert, the sample queues' queue-6.12 gated,
# and the daemon gating queue-6.1 and queue-6.12 of one repository after
# one push. About 8 minutes cold.
.PHONY: branch-6.12
branch-6.12: deps
	$(MAKE) deps PACKAGES="linux-source-6.12 linux-config-6.12"
	$(MAKE) all
	tests/long/branch-6.12.sh

clean:
	rm -rf $(BUILD)
