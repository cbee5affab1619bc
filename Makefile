# backport-gate: `make demo` runs the main job, `make check` runs every test.
# Both install what they need from Debian first (apt-get, as root or sudo).

CC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
BUILD := build

# Every Debian package the project uses, by name.
PACKAGES := linux-source-6.1 qemu-system-x86 gcc make flex bison bc perl \
	libelf-dev libssl-dev libc6-dev cpio ccache xz-utils git coreutils \
	util-linux pkg-config libgit2-dev libsqlite3-dev sqlite3 \
	libcurl4-openssl-dev libmicrohttpd-dev libjansson-dev libsystemd-dev \
	libcmocka-dev

SUITE_DIR := kernel-tests/shebang
SUITE_INIT_SRCS := $(SUITE_DIR)/init.c $(SUITE_DIR)/harness.c \
	$(SUITE_DIR)/cases.c $(SUITE_DIR)/probe_record.c
SUITE_PROBE_SRCS := $(SUITE_DIR)/probe.c
SUITE_HDRS := $(wildcard $(SUITE_DIR)/*.h)

UNIT_TESTS := $(BUILD)/tests/probe_record_test

.PHONY: all suite deps check demo clean unit

all: suite $(UNIT_TESTS)

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
	$(MAKE) all
	tests/run-all

# Until the gate exists, the demo is the acceptance story of the suite.
demo: deps
	$(MAKE) all
	tests/acceptance.sh

clean:
	rm -rf $(BUILD)
