#!/bin/bash
# bench/run on a cache nothing has used, with the naive side on (make
# bench-fresh; not part of make check: a cold tree and the naive gate's two
# full builds take about 10 minutes on 2 cores). The bench once stopped
# here with no message, when its disk sampler met the naive gate's folders
# before the naive gate had made them. On the queue that touches nothing
# compiled, both sides must give a complete row: times, builds, boots,
# disk, the same (empty) drop list, and results.md not marked incomplete.
. "$(dirname "$0")/../lib.bash"
cache=$tmp/bench-cache
mkdir "$cache"

status=0
env BENCH_CACHE="$cache" BENCH_FRESH=1 BENCH_QUEUES=uncompiled BENCH_NAIVE=1 \
	BENCH_WORK="$tmp/work" BENCH_RESULTS="$tmp/results" "$top/bench/run" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "fresh cache, naive side on: exit 0" 0 "$status"
[ "$status" -eq 0 ] || tail -n 8 "$tmp/err" | sed 's/^/# /'
grep -E '^# |naive|gate' "$tmp/err" | grep -E 'uncompiled:' | sed 's/^/# /'

csv=$tmp/results/results.csv
col() { # column name -> its value in the row
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
		NR == 2 && c { print $c }' "$csv"
}
expect_eq "results.csv: a header and one row" 2 "$(wc -l <"$csv" 2>/dev/null || echo 0)"
expect_eq "the naive gate built base and the whole queue, and booted both" "2 2" \
	"$(col naive_builds) $(col naive_boots)"
expect_eq "both sides drop the same (nothing), as planted" "yes yes" \
	"$(col same_drops) $(col gate_drops_as_planted)"
number() { awk -v s="$1" 'BEGIN { print (s ~ /^[0-9]+(\.[0-9]+)?$/ && s + 0 > 0) ? "yes" : "no" }'; }
expect_eq "every measured column of the naive side is a number" "yes yes yes yes" \
	"$(number "$(col naive_s)") $(number "$(col naive_peak_disk_bytes)") $(number "$(col naive_base_s)") $(number "$(col ratio)")"
expect_eq "the gate's disk was measured too" yes "$(number "$(col gate_peak_disk_bytes)")"
expect_eq "results.md: not marked incomplete" "" \
	"$(grep -F 'Incomplete' "$tmp/results/results.md" 2>/dev/null)"
expect_eq "results.md: no skipped naive side" "" \
	"$(grep -F 'naive gate was skipped' "$tmp/results/results.md" 2>/dev/null)"
echo "# the bench on a fresh cache: gate $(col gate_s) s, naive $(col naive_s) s (base alone $(col naive_base_s) s)"
