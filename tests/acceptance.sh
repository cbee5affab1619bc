#!/bin/bash
# The acceptance story: base 6.1 passes every case; the 2019 change (0001)
# breaks exactly the lines that have neither a newline nor a NUL within
# the 256-byte buffer and used to run; its revert (0002) restores them.
. "$(dirname "$0")/lib.bash"

run_suite
expect_eq "base 6.1: exit status" 0 "$status"
expect_eq "base 6.1: no case fails" "" "$(failed_cases)"
expect_contains "base 6.1: 61 shebang cases and 211 KUnit cases planned" "1..272" "$out"
expect_contains "base 6.1: the KUnit suites the kernel ran at boot" \
	"# kunit: 25 suites, 211 cases ran at boot" "$out"
expect_contains "base 6.1: a KUnit case, named for its suite" \
	"ok 272 kunit.property-entry.pe_test_reference" "$out"
expect_contains "base 6.1: totals" "# Totals: pass:272 fail:0 quirk-changed:0 error:0" "$out"
expect_contains "base 6.1: the case whose answer changed in 6.8 says which it expects" \
	"is before 6.8, where execve opens the file before it counts the arguments: expecting the old result" \
	"$(printf '%s\n' "$out" | grep '^# version quirk-not-executable-argv-too-long: 6\.1\.')"
expect_contains "base 6.1: arguments that do not fit: E2BIG, even for a script that may not run" \
	"ok 51 quirk-not-executable-argv-too-long" "$out"
base_results=$(printf '%s\n' "$out" | grep -cE '^ok [0-9]+ ')

run_suite --patches "$top/patches/6.1" --upto 1
expect_eq "base+0001: exit status" 1 "$status"
expect_eq "base+0001: exactly the truncated lines that used to run fail" \
	"exact-trunc-arg exact-trunc-whitespace nixos-2019 test.pl" "$(failed_cases)"
expect_contains "base+0001: test.pl shows expected and observed" \
	'not ok 9 test.pl # expected argv[1]="-I/nix/store/' "$out"
expect_contains "base+0001: test.pl failed with ENOEXEC" "got errno ENOEXEC" \
	"$(printf '%s\n' "$out" | grep 'test.pl')"
expect_eq "base+0001: every other case unchanged" "$((base_results - 4))" \
	"$(printf '%s\n' "$out" | grep -cE '^ok [0-9]+ ')"

run_suite --patches "$top/patches/6.1"
expect_eq "base+0001+0002: exit status" 0 "$status"
expect_eq "base+0001+0002: no case fails" "" "$(failed_cases)"
expect_eq "base+0001+0002: every case passes again" "$base_results" \
	"$(printf '%s\n' "$out" | grep -cE '^ok [0-9]+ ')"
