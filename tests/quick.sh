#!/bin/bash
# Quick builds (gate/kernel/quick.h) with a real kernel. After the 2019
# change (one file, fs/binfmt_script.c) the gate compiles that one object
# and relinks without make's walk, and the suite fails as it must; make,
# run after it in the same directory, finds nothing to do; the kernel is
# byte for byte the one make builds from the same tree (BG_QUICK_BUILD=0);
# a change to a build rule is left to make, said, and judged the same; a
# change that does not compile fails the build with the compiler's error;
# a change to MAINTAINERS and a selftest's Makefile builds nothing; objects
# in folders linked from further up than their parent (arch/x86/mm,
# drivers/input/serio) build quick, to make's kernel.
. "$(dirname "$0")/lib.bash"
if [ -n "${XDG_CACHE_HOME:-}" ]; then
	kdir=$XDG_CACHE_HOME/backport-gate/linux-6.1
else
	kdir=/var/cache/backport-gate/linux-6.1
fi
series=$top/patches/6.1

# image_sum: the kernel the last run booted
image_sum() { sha256sum "$kdir/build/vmlinux" | cut -c1-64; }

run_suite
expect_eq "base: every case passes" 0 "$status"

run_suite --patches "$series" --upto 1
expect_eq "the 2019 change: the suite fails" 1 "$status"
expect_eq "the 2019 change: the cases of the LWN story fail" \
	"exact-trunc-arg exact-trunc-whitespace nixos-2019 test.pl" "$(failed_cases)"
expect_contains "the 2019 change: built without make's walk" \
	"# build: quick: 1 object reads the changed files; compiled again and relinked without make" "$err"
quick_sum=$(image_sum)
quick_out=$(printf '%s\n' "$out" | grep -E '^(not )?ok ')

# made_after: what make, run as the gate runs it in the same directory,
# compiles, archives or links (its first three lines; nothing after a
# quick build that did all make would)
made_after() {
	local cc

	cc=$(sed -n '1s/^cmd_fs\/binfmt_script.o := \([^ ]*\) .*/\1/p' "$kdir/build/fs/.binfmt_script.o.cmd")
	KBUILD_BUILD_TIMESTAMP="2019-02-18 00:00:00 UTC" KBUILD_BUILD_USER=backport-gate \
		KBUILD_BUILD_HOST=backport-gate KBUILD_BUILD_VERSION=1 LC_ALL=C \
		CCACHE_DIR=$(dirname "$kdir")/ccache \
		make -C "$kdir/src" O="$kdir/build" -j2 CC="$cc" V=2 vmlinux >"$tmp/make.out" 2>&1
	grep -E '^  (CC|AS|AR|LD|LINK)' "$tmp/make.out" | head -3
}

expect_eq "make after the quick build: nothing to compile or link" "" "$(made_after)"
expect_eq "make after the quick build: the same kernel" "$quick_sum" "$(image_sum)"

# the same tree through make, from the same start
run_suite
expect_eq "base again: every case passes" 0 "$status"
expect_contains "base again: built without make's walk" "# build: quick: 1 object reads" "$err"
BG_QUICK_BUILD=0 run_suite --patches "$series" --upto 1
expect_eq "the 2019 change through make: the suite fails" 1 "$status"
expect_contains "the 2019 change through make: make walked the tree" \
	"# build: make walks the tree: BG_QUICK_BUILD=0" "$err"
expect_eq "the 2019 change through make: byte for byte the kernel of the quick build" \
	"$quick_sum" "$(image_sum)"
expect_eq "the 2019 change through make: the same KTAP results" \
	"$quick_out" "$(printf '%s\n' "$out" | grep -E '^(not )?ok ')"

# a build rule changed: make's walk, and the same verdict
mkdir -p "$tmp/rule" "$tmp/broken" "$tmp/unbuilt"
cat >"$tmp/rule/0001-fs-makefile-comment.patch" <<'EOF'
From: backport-gate tests <tests@backport-gate.invalid>
Subject: [PATCH] fs: say what the Makefile is for

---
 fs/Makefile | 1 +
 1 file changed, 1 insertion(+)

diff --git a/fs/Makefile b/fs/Makefile
--- a/fs/Makefile
+++ b/fs/Makefile
@@ -1,4 +1,5 @@
 # SPDX-License-Identifier: GPL-2.0
+# The filesystem core, its helpers and the filesystems built in.
 #
 # Makefile for the Linux filesystems.
 #
EOF
echo 0001-fs-makefile-comment.patch >"$tmp/rule/series"
run_suite --patches "$tmp/rule"
expect_eq "a Makefile changed: every case passes" 0 "$status"
expect_contains "a Makefile changed: left to make, and said why" \
	"# build: make walks the tree: fs/Makefile is a build rule, script or tool" "$err"

# a change that does not compile: the compiler's error, from the quick build
cat >"$tmp/broken/0001-binfmt-script-broken.patch" <<'EOF'
From: backport-gate tests <tests@backport-gate.invalid>
Subject: [PATCH] exec: a change that does not compile

---
 fs/binfmt_script.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/fs/binfmt_script.c b/fs/binfmt_script.c
--- a/fs/binfmt_script.c
+++ b/fs/binfmt_script.c
@@ -15,6 +15,7 @@
 #include <linux/err.h>
 #include <linux/fs.h>
 
+static int not_c = ;
 static inline bool spacetab(char c) { return c == ' ' || c == '\t'; }
 static inline const char *next_non_spacetab(const char *first, const char *last)
 {
EOF
echo 0001-binfmt-script-broken.patch >"$tmp/broken/series"
run_suite
run_suite --patches "$tmp/broken"
expect_eq "a change that does not compile: it could not run" 2 "$status"
expect_contains "a change that does not compile: built without make's walk" \
	"# build: quick: 1 object reads the changed files" "$err"
expect_contains "a change that does not compile: the compiler's error" \
	"fs/binfmt_script.c:18" "$err"
run_suite
expect_eq "after the failed build: base passes" 0 "$status"

# after base: files no kernel build reads, as stable queues carry them:
# nothing to compile, and no walk over the tree for a selftest's Makefile
cat >"$tmp/unbuilt/0001-selftests-exec-and-maintainers.patch" <<'EOF'
From: backport-gate tests <tests@backport-gate.invalid>
Subject: [PATCH] selftests/exec: say what the flags are for

---
 MAINTAINERS                           | 1 +
 tools/testing/selftests/exec/Makefile | 1 +
 2 files changed, 2 insertions(+)

diff --git a/MAINTAINERS b/MAINTAINERS
--- a/MAINTAINERS
+++ b/MAINTAINERS
@@ -1,4 +1,5 @@
 List of maintainers and how to submit kernel changes
+(see also Documentation/process/)
 ====================================================
 
 Please try to follow the guidelines below.  This will make things
diff --git a/tools/testing/selftests/exec/Makefile b/tools/testing/selftests/exec/Makefile
--- a/tools/testing/selftests/exec/Makefile
+++ b/tools/testing/selftests/exec/Makefile
@@ -1,4 +1,5 @@
 # SPDX-License-Identifier: GPL-2.0
+# The flags every exec test is built with.
 CFLAGS = -Wall
 CFLAGS += -Wno-nonnull
 CFLAGS += -D_GNU_SOURCE
EOF
echo 0001-selftests-exec-and-maintainers.patch >"$tmp/unbuilt/series"
run_suite --patches "$tmp/unbuilt"
expect_eq "MAINTAINERS and a selftest's Makefile changed: every case passes" 0 "$status"
expect_contains "MAINTAINERS and a selftest's Makefile changed: nothing to build, no walk" \
	"# build: quick: no object of this kernel reads the changed files; nothing to build" "$err"

# objects whose folders are linked from further up than their parent:
# arch/x86/built-in.a is a member of the top's, input/serio/built-in.a
# of drivers/built-in.a. Both built quick, and the same kernel as make's.
base_commit=$(git -C "$kdir/src" rev-list --max-parents=0 HEAD)
mkdir -p "$tmp/far/a/arch/x86/mm" "$tmp/far/a/drivers/input/serio" "$tmp/far/series"
for f in arch/x86/mm/ioremap.c drivers/input/serio/serio.c; do
	git -C "$kdir/src" show "$base_commit:$f" >"$tmp/far/a/$f"
done
cp -r "$tmp/far/a" "$tmp/far/b"
sed -i 's/"ioremap memtype_reserve failed %d\\n"/"ioremap: memtype_reserve failed: %d\\n"/' \
	"$tmp/far/b/arch/x86/mm/ioremap.c"
sed -i 's/"Not enough memory to queue event %d\\n"/"no memory to queue event %d\\n"/' \
	"$tmp/far/b/drivers/input/serio/serio.c"
{
	printf 'From: backport-gate tests <tests@backport-gate.invalid>\n'
	printf 'Subject: [PATCH] x86/mm, serio: shorter messages\n\n---\n'
	(cd "$tmp/far" && diff -ru a b)
} >"$tmp/far/series/0001-far-archives.patch"
echo 0001-far-archives.patch >"$tmp/far/series/series"
run_suite
run_suite --patches "$tmp/far/series"
expect_eq "folders linked from further up: every case passes" 0 "$status"
expect_contains "folders linked from further up: built without make's walk" \
	"# build: quick: 2 objects read the changed files; compiled again and relinked without make" "$err"
far_sum=$(image_sum)
expect_eq "folders linked from further up: make after it has nothing to do" "" "$(made_after)"
run_suite
BG_QUICK_BUILD=0 run_suite --patches "$tmp/far/series"
expect_eq "folders linked from further up: byte for byte make's kernel" "$far_sum" "$(image_sum)"
