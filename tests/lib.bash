# Shared helpers for the black-box tests: each assertion prints one line,
# "ok - what" or "not ok - what: expected ..., got ...", which tests/run-all
# counts.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=$top/kernel-tests/run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/backport-gate-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }

# expect_eq WHAT EXPECTED GOT
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# expect_contains WHAT NEEDLE HAYSTACK
expect_contains() {
	case $3 in
	*"$2"*) pass "$1" ;;
	*) fail "$1: expected to contain '$2', got '$(printf %s "$3" | tail -n 3)'" ;;
	esac
}

# run_suite ARGS...: runs kernel-tests/run; sets status, out, err.
run_suite() {
	status=0
	"$run" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# The names of the cases that failed (not ok, not a changed quirk), sorted.
failed_cases() {
	printf '%s\n' "$out" | grep -E '^not ok [0-9]+ ' | grep -v ' # TODO quirk changed' |
		awk '{print $4}' | sort | tr '\n' ' ' | sed 's/ $//'
}
