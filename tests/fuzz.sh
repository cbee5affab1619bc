#!/bin/bash
# A short libFuzzer pass over every parser that reads untrusted bytes
# (tests/fuzz/*_fuzz.c, built and run by tests/fuzz/fuzz.mk): each target
# runs FUZZ_CHECK_SECONDS (default 5) seconds from its seed corpus. One line
# per target: how many inputs it ran, or what it found and where the input
# that shows it is. `make fuzz` runs each for a minute.
. "$(dirname "$0")/lib.bash"

seconds=${FUZZ_CHECK_SECONDS:-5}
fuzz_make() { make -C "$top" -s --no-print-directory "$@"; }

if ! fuzz_make fuzz-build >"$tmp/build" 2>&1; then
	fail "fuzz: build: $(tail -n 3 "$tmp/build" | tr '\n' ' ')"
	exit 1
fi
targets=$(fuzz_make fuzz-targets)
if [ -z "$targets" ]; then
	fail "fuzz: make fuzz-targets names no target"
	exit 1
fi

for target in $targets; do
	status=0
	rm -f "$top/build/fuzz/$target.log"
	fuzz_make "fuzz-$target" FUZZ_SECONDS="$seconds" >"$tmp/out" 2>&1 || status=$?
	runs=$(sed -n 's/.*Done \([0-9][0-9]*\) runs.*/\1/p' "$tmp/out" | tail -n 1)
	if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
		pass "fuzz $target: $runs executions, no crash"
		continue
	fi
	# From the whole log: a broken contract, else the sanitizer's or
	# libFuzzer's one-line verdict, and where the input was saved.
	log=$top/build/fuzz/$target.log
	[ -f "$log" ] || log=$tmp/out
	why=$(grep -m1 -E 'check failed: ' "$log" || grep -m1 -E '^SUMMARY: |^==[0-9]+== ?ERROR: ' "$log")
	input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	fail "fuzz $target: ${why:-exit status $status, no final run count}${input:+; reproduce: build/fuzz/$target $input}"
done
