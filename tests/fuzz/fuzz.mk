# libFuzzer targets for the parsers that read untrusted bytes. Included by
# the top Makefile (paths are relative to the top directory).
#
# Debian packages: clang-14 is the compiler, libclang-rt-14-dev holds its
# libFuzzer, ASan and UBSan runtimes (libclang_rt.fuzzer-x86_64.a). clang-14
# reaches the runtimes only through a Recommends (of libclang-common-14-dev),
# and `make deps` installs without recommends, so both are named.
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev
#
#   make fuzz-build             build/fuzz/<target> for every target
#   make fuzz                   run each for $(FUZZ_SECONDS) s; fails on a crash
#   make fuzz-<target>          run one (on a fresh copy of its corpus)
#   make fuzz FUZZ_SECONDS=600  longer
#
# Each run starts from a copy of tests/fuzz/corpus/<target> in
# build/fuzz/work/<target> (libFuzzer adds what it finds there), logs to
# build/fuzz/<target>.log, and leaves a crashing input in
# build/fuzz/artifacts/. Reproduce one with: build/fuzz/<target> FILE

# Whatever rule comes first below must not become the Makefile's default.
fuzz_default_goal := $(.DEFAULT_GOAL)

FUZZ_SECONDS ?= 60
# A hang is a finding too: one input taking longer than this fails the run.
FUZZ_TIMEOUT ?= 25
FUZZ_TARGETS := series patch_header mail patch_apply webhook ktap config probe_record

FUZZ_CC := clang-14
FUZZ_DIR := build/fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Wall -Wextra -Werror \
	-Igate -Ikernel-tests/shebang -Itests/fuzz
FUZZ_LDLIBS = $(shell pkg-config --libs libgit2 sqlite3 jansson libcrypto)
FUZZ_PKG_CFLAGS = $(shell pkg-config --cflags libgit2 sqlite3 jansson libcrypto)
FUZZ_RUN_FLAGS = -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=$(FUZZ_TIMEOUT)

# The sources each target is built from, besides tests/fuzz/<target>_fuzz.c.
# Built here with clang and the sanitizers, not taken from libgate.a (gcc).
FUZZ_SRCS_series := gate/parse/series.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_patch_header := gate/parse/patch_header.c gate/parse/mail.c gate/parse/lines.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_mail := gate/parse/mail.c gate/parse/lines.c gate/parse/patch_header.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_patch_apply := gate/parse/patch.c gate/source/apply.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_webhook := gate/parse/webhook.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_ktap := gate/parse/ktap.c gate/basic/strbuf.c gate/basic/xalloc.c
FUZZ_SRCS_config := gate/parse/config.c gate/parse/address.c gate/basic/strbuf.c gate/basic/strlist.c gate/basic/xalloc.c gate/basic/git_error.c
FUZZ_SRCS_probe_record := kernel-tests/shebang/probe_record.c

FUZZ_HDRS := $(wildcard gate/*/*.h kernel-tests/shebang/*.h tests/fuzz/*.h)
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build fuzz-targets $(addprefix fuzz-,$(FUZZ_TARGETS))

fuzz-build: $(FUZZ_BINS)

fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))

# The target names, for tests/fuzz.sh.
fuzz-targets:
	@echo $(FUZZ_TARGETS)

$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_PKG_CFLAGS) -c -o $@ $<

define fuzz_target
$(FUZZ_DIR)/$(1): $(FUZZ_DIR)/obj/tests/fuzz/$(1)_fuzz.o \
		$(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_SRCS_$(1)))
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$^ $$(FUZZ_LDLIBS)

# Prints "fuzz <target>: " and libFuzzer's "Done N runs in S second(s)", or
# the end of the log and where the crashing input is when it found something.
fuzz-$(1): $(FUZZ_DIR)/$(1)
	@rm -rf $(FUZZ_DIR)/work/$(1)
	@mkdir -p $(FUZZ_DIR)/work/$(1) $(FUZZ_DIR)/artifacts
	@cp tests/fuzz/corpus/$(1)/* $(FUZZ_DIR)/work/$(1)/
	@echo "fuzz $(1): $$(FUZZ_SECONDS) s"
	@if $(FUZZ_DIR)/$(1) $$(FUZZ_RUN_FLAGS) -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)- \
			$(FUZZ_DIR)/work/$(1) >$(FUZZ_DIR)/$(1).log 2>&1; then \
		sed -n 's/^Done [0-9]* runs/fuzz $(1): &/p' $(FUZZ_DIR)/$(1).log; \
	else \
		tail -n 40 $(FUZZ_DIR)/$(1).log; \
		echo "fuzz $(1): FAILED; log in $(FUZZ_DIR)/$(1).log"; \
		exit 1; \
	fi
endef

$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target,$(t))))

.DEFAULT_GOAL := $(fuzz_default_goal)
