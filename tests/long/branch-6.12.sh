#!/bin/bash
# The second branch Debian 12 packages, for real (make branch-6.12; not
# part of make check: a cold 6.12 tree costs an extraction, an import and
# a full build, about 6 minutes on 2 cores). On linux-source-6.12: base
# passes the suite; the 2019 change ported to 6.12 (patches/6.12) fails
# exactly the cases it fails on 6.1, and its revert restores them; the
# sample queue's queue-6.12 gets the port dropped for regression, and the
# reverted sample passes. The phases' times are printed for the notes.
. "$(dirname "$0")/../lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queues=$top/patches/queues
port=exec-load_script-don-t-blindly-truncate-shebang-string.patch

phase() { # NAME COMMAND...: runs it, sets status, out, err; prints its time
	local name=$1 start
	shift
	start=$(date +%s)
	status=0
	"$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	echo "# $name: $(($(date +%s) - start)) s (exit $status)"
}

phase "6.12 base (cold when the cache has no linux-6.12)" "$run" --tree linux-source-6.12
expect_eq "6.12 base: exit status" 0 "$status"
expect_contains "6.12 base: every case passes" "# Totals: pass:61 fail:0 quirk-changed:0 error:0" "$out"
expect_contains "6.12 base: the case whose answer changed in 6.8 expects 6.8's (EACCES)" \
	"is at or after 6.8, where execve opens the file before it counts the arguments: expecting the new result" \
	"$(printf '%s\n' "$out" | grep '^# version quirk-not-executable-argv-too-long: 6\.12\.')"
[ "$status" -eq 0 ] || printf '%s\n' "$err" | tail -n 15 | sed 's/^/# /'

phase "6.12 base + the port" "$run" --tree linux-source-6.12 --patches "$top/patches/6.12" --upto 1
expect_eq "6.12 + port: exit status" 1 "$status"
expect_eq "6.12 + port: exactly the truncated lines that used to run fail, as on 6.1" \
	"exact-trunc-arg exact-trunc-whitespace nixos-2019 test.pl" "$(failed_cases)"

phase "6.12 base + port + revert" "$run" --tree linux-source-6.12 --patches "$top/patches/6.12"
expect_eq "6.12 + port + revert: exit status" 0 "$status"
expect_eq "6.12 + port + revert: no case fails" "" "$(failed_cases)"

phase "gate queue-6.12 of the 2019 sample" "$gate" run --db "$tmp/gate.db" \
	--queue "$queues/shebang-2019" --series queue-6.12 --json "$tmp/r.json"
expect_eq "queue-6.12: exit status 1 (drop)" 1 "$status"
expect_eq "queue-6.12: the port is dropped for regression, nothing else" "drop $port regression" \
	"$(jq -r '"\(.verdict) \(.drop | join(" ")) \([.patches[] | select(.status == "drop") | .reason] | join(" "))"' "$tmp/r.json")"
expect_contains "queue-6.12: the base is a 6.12 release" '"base": "6.12.' "$(cat "$tmp/r.json")"
expect_contains "queue-6.12: the evidence names test.pl, as on 6.1" "test.pl" \
	"$(jq -r '.patches[] | select(.status == "drop") | .evidence' "$tmp/r.json")"

phase "gate queue-6.12 of the reverted sample" "$gate" run --db "$tmp/gate.db" \
	--queue "$queues/shebang-2019-reverted" --series queue-6.12 --json "$tmp/r2.json"
expect_eq "reverted queue-6.12: exit status 0 (pass)" 0 "$status"
expect_eq "reverted queue-6.12: nothing dropped" "pass" "$(jq -r .verdict "$tmp/r2.json")"

kdir=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
kdir=${kdir:-/var/cache/backport-gate}/linux-6.12
echo "# the 6.12 tree's disk: $(du -sh "$kdir" | cut -f1) ($kdir)"
