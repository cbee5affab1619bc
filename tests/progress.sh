#!/bin/bash
# Progress on a cold start, black-box: `backport-gate boot` with an empty
# cache of its own (extract, import, a full build with an empty ccache,
# one boot; about 3 minutes) and stderr to a file, as in a log or the
# journal. Each long phase says how far it is: extract and import in
# files, the build in objects; a line every 5 s at most and a final line
# per phase, counts that never go down and end at the phase's total, the
# import's total being what tar extracted; no terminal control characters.
# The cache it starts empty is <cache>-node, which it leaves with base
# built: tests/slurm.sh then uses it as its Slurm node's cache, so a cold
# machine pays for a cold cache once.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
unset BG_TARBALL BG_PROGRESS BG_PROGRESS_INTERVAL
interval=5
cache=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
cold=${cache:-/var/cache/backport-gate}-node
rm -rf "$cold"

status=0
timeout --kill-after=30 1800 "$gate" boot --cache "$cold" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "cold boot: exit status 0" 0 "$status"
grep '^# \(extract\|import\|build\) [0-9]' "$tmp/err" | sed 's/^/#   /' | head -n 40

expect_eq "stderr is no terminal: no carriage return, no escape" 0 \
	"$(tr -cd '\r\033' <"$tmp/err" | wc -c)"

# final PHASE UNIT: the count of the phase's final line ("# build 1290 objects in 2 min 31 s")
final() { sed -n "s/^# $1 \([0-9]*\) $2 in .*/\1/p" "$tmp/err"; }
# seconds PHASE UNIT: the final line's duration, in whole seconds
seconds() {
	sed -n "s/^# $1 [0-9]* $2 in //p" "$tmp/err" |
		awk '{ s = 0; for (i = 1; i < NF; i += 2) s += $i * ($(i + 1) == "h" ? 3600 : $(i + 1) == "min" ? 60 : 1); print s }'
}
# lines PHASE UNIT: the phase's running lines, "DONE TOTAL" (TOTAL empty when unknown)
lines() { sed -n "s/^# $1 \([0-9]*\)\(\/\([0-9]*\)\)\? $2\(,.*\)\?$/\1 \3/p" "$tmp/err"; }

check_phase() { # PHASE UNIT
	local phase=$1 unit=$2 n last total bad
	expect_eq "$phase: one final line" 1 "$(final "$phase" "$unit" | wc -l)"
	last=$(final "$phase" "$unit")
	n=$(lines "$phase" "$unit" | wc -l)
	if [ "$n" -ge 1 ]; then
		pass "$phase: $n running lines before the final one"
	else
		fail "$phase: expected running lines before the final one, got none: $(grep "^# $phase" "$tmp/err" | head -n 3)"
	fi
	# counts never go down, never pass the final count, and a total, when given, is the same on every line
	bad=$(lines "$phase" "$unit" | awk -v last="$last" '
		$1 < prev { print "count went down: " prev " then " $1; exit }
		$1 > last { print "count " $1 " passed the final " last; exit }
		total != "" && $2 != total { print "total changed: " total " then " $2; exit }
		{ prev = $1; total = $2 }')
	expect_eq "$phase: counts never go down and end at $last $unit" "" "$bad"
	# a line every $interval s at most: the running lines fit in the phase's time
	if [ "$n" -le $(($(seconds "$phase" "$unit") / interval + 1)) ]; then
		pass "$phase: $n lines in $(seconds "$phase" "$unit") s, one every $interval s at most"
	else
		fail "$phase: expected at most one line every $interval s, got $n in $(seconds "$phase" "$unit") s"
	fi
}
check_phase extract files
check_phase import files
check_phase build objects

extracted=$(final extract files)
expect_eq "import: the total is what tar extracted" "$extracted" \
	"$(lines import files | awk '{ print $2 }' | sort -u)"
expect_eq "import: ends at that total" "$extracted" "$(final import files)"
[ "${extracted:-0}" -gt 50000 ] && pass "extract: a kernel tree's worth of files ($extracted)" ||
	fail "extract: expected over 50000 files, got '$extracted'"
[ "$(final build objects)" -gt 100 ] 2>/dev/null && pass "build: $(final build objects) objects" ||
	fail "build: expected over 100 objects, got '$(final build objects)'"
