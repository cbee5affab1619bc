#!/bin/bash
# The kernel's own unit tests in the gate: the test kernel runs its KUnit
# suites at boot, the guest's init reads them from the kernel log, and a
# KUnit case is judged like a shebang case. In one queue a planted KUnit
# regression (sysctl reads a negative int back as its magnitude) and the
# 2019 shebang change are each dropped, with the case that caught them,
# among benign changes to the same files; an all-benign queue editing the
# same function keeps every patch.
. "$(dirname "$0")/lib.bash"

gate=$top/build/backport-gate
queues=$top/tests/data/queues
db=$tmp/gate.db
kunit_case=kunit.sysctl_test.sysctl_test_dointvec_read_happy_single_negative


gate_run --queue "$queues/kunit"
expect_eq "kunit queue: exit status 1" 1 "$status"
expect_eq "kunit queue: the KUnit and the shebang regressions are dropped, for regressions" \
	"sysctl-read-negative-integers-through-abs.patch:regression exec-load_script-don-t-blindly-truncate-shebang-string.patch:regression" \
	"$(jqr '[.patches[] | select(.status == "drop") | "\(.name):\(.reason)"] | join(" ")')"
expect_eq "kunit queue: the sysctl patch is pinned on the KUnit case alone" "$kunit_case" \
	"$(jqr '.patches[] | select(.name == "sysctl-read-negative-integers-through-abs.patch") | .regressions | join(" ")')"
expect_eq "kunit queue: the 2019 change is pinned on shebang cases, not KUnit's" \
	"exact-trunc-arg exact-trunc-whitespace nixos-2019 test.pl" \
	"$(jqr '.patches[] | select(.name == "exec-load_script-don-t-blindly-truncate-shebang-string.patch") | .regressions | sort | join(" ")')"
expect_eq "kunit queue: the benign changes to the same files are kept" "ok ok" \
	"$(jqr '[.patches[] | select(.name | test("document|binfmt-rewrite")) | .status] | join(" ")')"
expect_contains "kunit queue: the evidence is KUnit's own assertion" \
	"$kunit_case: base pass; with the patch fail: # sysctl_test_dointvec_read_happy_single_negative: ASSERTION FAILED at kernel/sysctl-test.c:" \
	"$out"
expect_eq "kunit queue: the report's cases hold every KUnit case of base's boot" 211 \
	"$(jqr '[.cases[] | select(.name | startswith("kunit."))] | length')"

gate_run --queue "$queues/kunit-benign"
expect_eq "kunit-benign queue: exit status 0" 0 "$status"
expect_eq "kunit-benign queue: every patch kept" "ok ok ok" "$(jqr '[.patches[].status] | join(" ")')"
expect_eq "kunit-benign queue: no KUnit case failed on the whole queue" "" \
	"$(jqr '[.cases[] | select((.name | startswith("kunit.")) and .status != "pass") | .name] | join(" ")')"
