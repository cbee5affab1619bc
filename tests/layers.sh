#!/bin/bash
# The gate's include direction (tools/check-layers, run first by make all):
# the tree passes; a scratch copy where one include points up a layer, one
# names a folder that is no layer, or one leaves out its layer fails, with
# a message naming the file, its line and the layers; and make all in such
# a copy stops before compiling anything of the gate.
. "$(dirname "$0")/lib.bash"

check=$top/tools/check-layers
layers="basic < parse < record < source < kernel < exec < verdict < output < daemon < builtin"

status=0
out=$("$check" "$top/gate" 2>&1) || status=$?
expect_eq "check-layers: the tree passes" 0 "$status"
expect_contains "check-layers: the tree passes, and says so" "every include points down or across" "$out"

# scratch COPY: a fresh copy of gate/ in $tmp/COPY/gate
scratch() {
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1"
	cp -r "$top/gate" "$tmp/$1/gate"
}

# A parser that includes the judge: parse below verdict.
scratch up
line=$(grep -n '^#include "basic/strbuf.h"' "$tmp/up/gate/parse/ktap.h" | cut -d: -f1)
sed -i "${line}a #include \"verdict/judge.h\"" "$tmp/up/gate/parse/ktap.h"
status=0
out=$("$check" "$tmp/up/gate" 2>&1) || status=$?
expect_eq "check-layers: an include that points up fails" 1 "$status"
expect_contains "check-layers: names the file and line of the upward include" \
	"$tmp/up/gate/parse/ktap.h:$((line + 1)): includes \"verdict/judge.h\"" "$out"
expect_contains "check-layers: names both layers" "parse may not include verdict, a higher layer ($layers)" "$out"
expect_eq "check-layers: only that include is refused" 2 "$(printf '%s\n' "$out" | wc -l)"

# The same through an angle include, which -Igate would resolve too.
scratch angle
sed -i 's|^#include "verdict/gate.h"|#include <verdict/gate.h>|' "$tmp/angle/gate/verdict/gate.c"
status=0
out=$("$check" "$tmp/angle/gate" 2>&1) || status=$?
expect_eq "check-layers: a gate header in angle brackets fails" 1 "$status"
expect_contains "check-layers: names the angle include" "$tmp/angle/gate/verdict/gate.c:" "$out"

# A folder that is no layer.
scratch nolayer
sed -i 's|^#include "basic/strbuf.h"|#include "util/strbuf.h"|' "$tmp/nolayer/gate/parse/series.h"
status=0
out=$("$check" "$tmp/nolayer/gate" 2>&1) || status=$?
expect_eq "check-layers: an include from a folder that is no layer fails" 1 "$status"
expect_contains "check-layers: names the file and the missing layer" \
	"$tmp/nolayer/gate/parse/series.h:" "$out"
expect_contains "check-layers: says the folder is no layer" 'includes from "util", which is not a layer' "$out"

# A header named without its layer would be found next to the includer.
scratch plain
sed -i 's|^#include "basic/strbuf.h"|#include "strbuf.h"|' "$tmp/plain/gate/basic/hash.c"
status=0
out=$("$check" "$tmp/plain/gate" 2>&1) || status=$?
expect_eq "check-layers: an include without its layer fails" 1 "$status"
expect_contains "check-layers: names the include without its layer" \
	"$tmp/plain/gate/basic/hash.c:" "$out"

# A source outside the layer folders.
scratch loose
cp "$top/gate/basic/xalloc.c" "$tmp/loose/gate/xalloc.c"
status=0
out=$("$check" "$tmp/loose/gate" 2>&1) || status=$?
expect_eq "check-layers: a source outside the layer folders fails" 1 "$status"
expect_contains "check-layers: names the loose source" "$tmp/loose/gate/xalloc.c:1: not in a layer folder" "$out"

# make all refuses the upward include before compiling the gate.
mkdir -p "$tmp/up/tools" "$tmp/up/tests/fuzz"
cp "$top/Makefile" "$tmp/up/"
cp "$check" "$tmp/up/tools/"
cp "$top/tests/fuzz/fuzz.mk" "$tmp/up/tests/fuzz/"
status=0
out=$(make -C "$tmp/up" -s --no-print-directory all 2>&1) || status=$?
expect_eq "make all: an upward include stops the build" 2 "$status"
expect_contains "make all: says which include" "gate/parse/ktap.h:$((line + 1)): includes \"verdict/judge.h\"" "$out"
expect_eq "make all: nothing of the gate was compiled" "" "$(ls "$tmp/up/build/gate" 2>/dev/null)"
