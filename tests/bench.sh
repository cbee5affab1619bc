#!/bin/bash
# bench/run, black-box: bad settings are refused before anything is
# touched, and a real run on the queue that touches nothing compiled (the
# gate only, on the everyday cache the other tests warm, so it costs about
# a base boot) writes its table, CSV, plot and targets where it is told,
# leaving the repository's bench/results alone.
. "$(dirname "$0")/lib.bash"
bench=$top/bench/run
cache=${XDG_CACHE_HOME:-/var/cache}/backport-gate
results=$top/bench/results
before=$(cat "$results"/results.md "$results"/results.csv 2>/dev/null | md5sum)

bench_run() { # ENV... : bench/run with ENV, scratch and results in $tmp
	status=0
	env BENCH_WORK="$tmp/work" BENCH_RESULTS="$tmp/results" "$@" "$bench" \
		>"$tmp/out" 2>"$tmp/err" || status=$?
	err=$(cat "$tmp/err")
}

bench_run BENCH_QUEUES="n32 n9"
expect_eq "an unknown queue: exit 2" 2 "$status"
expect_contains "an unknown queue: named, with the known ones" \
	"bench/run: BENCH_QUEUES: unknown queue 'n9' (known: n8 n32 n32-header n128x3 n128x3-header uncompiled n64x2-headers debian debian-culprit)" "$err"
expect_eq "an unknown queue: no scratch directory made" no "$([ -e "$tmp/work" ] && echo yes || echo no)"
bench_run BENCH_NAIVE=yes
expect_eq "a bad BENCH_NAIVE: exit 2, named" "2 bench/run: BENCH_NAIVE must be 0 or 1, not 'yes'" "$status $err"

bench_run BENCH_CACHE="$cache" BENCH_QUEUES=uncompiled BENCH_NAIVE=0
expect_eq "uncompiled, gate only: exit 0" 0 "$status"
[ "$status" -eq 0 ] || printf '%s\n' "$err" | tail -n 5 | sed 's/^/# /'
csv=$tmp/results/results.csv
expect_eq "results.csv: a header and one row" 2 "$(wc -l <"$csv" 2>/dev/null || echo 0)"
expect_eq "results.csv: the row has every column of the header" \
	"$(head -n 1 "$csv" | awk -F, '{ print NF }')" "$(tail -n 1 "$csv" | awk -F, '{ print NF }')"
col() { # column name -> its value in the row
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
		NR == 2 && c { print $c }' "$csv"
}
expect_eq "results.csv: 32 patches, no culprit, no build, the drops as planted (none)" "32 0 0 yes" \
	"$(col patches) $(col culprits) $(col gate_builds) $(col gate_drops_as_planted)"
expect_eq "results.csv: the naive columns say not measured" "- - -" \
	"$(col naive_s) $(col naive_builds) $(col ratio)"
gate_s=$(col gate_s)
expect_eq "results.csv: the gate's time is a number of seconds" yes \
	"$(awk -v s="$gate_s" 'BEGIN { print (s ~ /^[0-9]+\.[0-9]$/) ? "yes" : "no" }')"
md=$(cat "$tmp/results/results.md" 2>/dev/null)
expect_contains "results.md: the table row, as the CSV has it" \
	"| uncompiled | 32 | 0 | $gate_s | 0 | $(col gate_boots) | 0 | $(col gate_rounds) | $(col ccache_hit_pct) |" "$md"
expect_eq "results.csv: no objects compiled, and rounds counted" "0 yes" \
	"$(col gate_objects) $(col gate_rounds | grep -qE '^[0-9]+$' && echo yes || echo no)"
expect_contains "results.md: says the naive gate was skipped" "The naive gate was skipped (BENCH_NAIVE=0)." "$md"
# the target judged from the measured time, whichever way it went
judged=$(awk -v s="$gate_s" 'BEGIN {
	if (s + 0 <= 5) printf "met, %.1f s to spare", 5 - s
	else printf "**missed by %.1f s**", s - 5 }')
expect_contains "results.md: the queue against its target" \
	"- uncompiled: time to verdict $gate_s s against 5 s: $judged" "$md"
expect_contains "results.md: and its builds against zero" "builds: 0 against 0: met" "$md"
expect_eq "results.md: not marked incomplete" "" "$(grep -F 'Incomplete' <<<"$md")"
expect_eq "the plot is a PNG" yes \
	"$([ "$(head -c 4 "$tmp/results/time-to-verdict.png" 2>/dev/null | tail -c 3)" = PNG ] && echo yes || echo no)"
expect_eq "the repository's bench/results are untouched" "$before" \
	"$(cat "$results"/results.md "$results"/results.csv 2>/dev/null | md5sum)"

# A generated queue with headers spread over it (bench/gen-queue --headers),
# from the same cache's base build: where they land, and that it applies.
status=0
"$top/bench/gen-queue" --out "$tmp/spread" --patches 12 --culprits 1 --headers 3 \
	--cache "$cache" >"$tmp/gen.out" 2>"$tmp/gen.err" || status=$?
expect_eq "gen-queue --headers 3: exit 0, verified" "0 yes" \
	"$status $(grep -q 'verified: all apply in order' "$tmp/gen.err" && echo yes || echo no)"
expect_eq "gen-queue --headers 3: kernel.h, fs.h, sched.h at 3, 6 and 9, the culprit at 8" \
	"3 include/linux/kernel.h,6 include/linux/fs.h,8 fs/binfmt_script.c,9 include/linux/sched.h" \
	"$(awk -F'\t' '$2 == "header" || $2 == "culprit" { printf "%s%d %s", sep, NR, $3; sep = "," }' \
		"$tmp/spread/manifest" 2>/dev/null)"
bench_gen() { status=0; "$top/bench/gen-queue" --out "$tmp/bad" "$@" >/dev/null 2>"$tmp/gen.err" || status=$?; }
bench_gen --patches 12 --headers 7
expect_eq "gen-queue --headers 7: exit 2, named" \
	"2 bench/gen-queue: --headers: '7' is not 0 to 6 (six headers are available)" "$status $(cat "$tmp/gen.err")"
bench_gen --patches 12 --header --headers 2
expect_eq "gen-queue --header with --headers: exit 2, named" \
	"2 bench/gen-queue: --header and --headers exclude each other" "$status $(cat "$tmp/gen.err")"
