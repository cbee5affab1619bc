#!/bin/bash
# The gate on a whole real distribution series (make debian-series; not
# part of make check: about 15 minutes cold on 2 cores). Debian's linux
# source package DEBIAN_SERIES_VERSION (default 6.1.164-1) brings an
# upstream orig tarball and a quilt series of about 160 patches that
# dpkg-source applies with fuzz 0. Gated on that orig tarball, the gate
# must keep every patch (none breaks the build or the shebang suite), and
# the tree it exports for the run must equal the tree dpkg-source -x
# unpacks, debian/ and .pc/ aside. DEBIAN_SERIES_CONFIG_CHECK=PATH (a config
# file, such as linux-config-6.1's config.amd64_none_amd64.xz) gates with
# the compile check under that config too.
. "$(dirname "$0")/../lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
version=${DEBIAN_SERIES_VERSION:-6.1.164-1}
cache=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
cache=${cache:-/var/cache/backport-gate}
src=$cache/debian-src/$version

start=$(date +%s)
if ! "$top/tools/debian-series" "$version" "$src"; then
	fail "debian-series $version: the source package could not be fetched (see above)"
	exit 1
fi
orig=$(ls "$src"/linux_*.orig.tar.xz)
series=$src/debian/patches/series
entries=$(grep -cvE '^[[:space:]]*(#|$)' "$series")
echo "# fetched and unpacked in $(($(date +%s) - start)) s; $entries series entries"

start=$(date +%s)
status=0
"$gate" run --tree "$orig" --db "$tmp/gate.db" --queue "$src/debian/patches" --series . \
	${DEBIAN_SERIES_CONFIG_CHECK:+--config-check "$DEBIAN_SERIES_CONFIG_CHECK"} \
	--json "$tmp/report.json" >"$tmp/out" 2>"$tmp/err" || status=$?
seconds=$(($(date +%s) - start))
echo "# gated in $seconds s: $(jq -r '"\(.stats.builds) builds, \(.stats.boots) boots"' "$tmp/report.json" 2>/dev/null)"
if [ -n "${DEBIAN_SERIES_CONFIG_CHECK:-}" ]; then
	echo "# compile check under $DEBIAN_SERIES_CONFIG_CHECK: $(jq -r '"\(.stats.compile_checks) trees, \(.stats.compile_objects) objects, \(.stats.compile_setup_seconds) s preparing"' "$tmp/report.json" 2>/dev/null)"
	echo "# patches whose objects the check compiled: $(jq '[.patches[] | select(.compile_check != null and ([.compile_check.configs[].objects | length] | add) > 0)] | length' "$tmp/report.json" 2>/dev/null)"
fi
expect_eq "Debian $version series: exit status 0 (nothing to drop)" 0 "$status"
if [ "$status" -ne 0 ]; then
	sed 's/^/# /' "$tmp/err" | tail -n 5
	exit 1	# no verdict to look into; the failure above says why
fi
expect_eq "Debian $version series: every entry judged" "$entries" \
	"$(jq '.patches | length' "$tmp/report.json")"
expect_eq "Debian $version series: every patch kept" "$entries" \
	"$(jq '[.patches[] | select(.status == "ok" or .status == "not-exercised")] | length' \
		"$tmp/report.json")"
expect_eq "Debian $version series: no drop" "pass none" \
	"$(jq -r '"\(.verdict) \([.patches[] | select(.status == "drop") | "\(.name) \(.reason)"] |
		if length == 0 then "none" else join(", ") end)"' "$tmp/report.json")"
expect_eq "Debian $version series: every patch applied, none already there" "$entries" \
	"$(jq '[.patches[] | select(.apply.status == "applied" or .apply.status == "offset")] | length' \
		"$tmp/report.json")"
echo "# apply offsets: $(jq '[.patches[] | select(.apply.status == "offset")] | length' "$tmp/report.json")"

# The kept tree, written out, is what dpkg-source -x unpacks.
run=$(jq -r .run "$tmp/report.json" 2>/dev/null)
status=0
"$gate" export --db "$tmp/gate.db" "$run" "$tmp/kept" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "Debian $version series: export of the kept tree" 0 "$status"
if [ "$status" -eq 0 ]; then
	differences=$(diff -r --no-dereference -q -x debian -x .pc "$src/reference" "$tmp/kept" 2>&1 |
		head -n 20)
	expect_eq "Debian $version series: the kept tree equals dpkg-source -x's, debian/ and .pc/ aside" \
		"" "$differences"
fi
