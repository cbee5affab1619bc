#!/bin/bash
# The gate's parser and applier against git apply on a real distribution
# series: Debian's linux source package (REAL_SERIES_VERSION, default
# 6.1.164-1), whose debian/patches/series is about 160 quilt patches.
#   (a) tools/debian-series fetches and unpacks it (cached);
#   (b) the upstream tree is copied twice;
#   (c) copy 1 gets the series through the gate (build/tests/apply-series),
#       copy 2 through git apply -v, one patch at a time, in series order;
#   (d) per patch, the gate's status and offset must be git's;
#   (e) both trees must be identical, and equal to dpkg-source -x's tree
#       with debian/ and .pc/ aside.
# git is only the reference here; the gate never runs it to apply.
# Needs root or sudo the first time (apt-get); REAL_SERIES_CACHE moves the cache.
. "$(dirname "$0")/lib.bash"

version=${REAL_SERIES_VERSION:-6.1.164-1}
cache=${REAL_SERIES_CACHE:-/var/cache/backport-gate/debian-src}/$version
tool=$top/${BUILD:-build}/tests/apply-series
start=$(date +%s.%N)

elapsed() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

if [ ! -x "$tool" ]; then
	fail "real series: $tool is missing (make ${BUILD:-build}/tests/apply-series)"
	exit 1
fi

# (a)
t=$(date +%s.%N)
if ! "$top/tools/debian-series" "$version" "$cache" >"$tmp/fetch.out" 2>"$tmp/fetch.err"; then
	fail "real series: tools/debian-series $version: $(tail -n 3 "$tmp/fetch.err")"
	exit 1
fi
pass "real series: Debian linux $version fetched and unpacked in $cache ($(elapsed "$t") s)"
series=$cache/debian/patches/series

# (b) Hard links: both appliers replace a file they change (the gate's
# store unlinks and creates, git apply renames a new file over the old),
# never write into it, so the cached tree stays as extracted.
t=$(date +%s.%N)
cp -al "$cache/orig" "$tmp/gate"
cp -al "$cache/orig" "$tmp/git"
pass "real series: two copies of the upstream tree ($(elapsed "$t") s)"

# (c) the gate
t=$(date +%s.%N)
status=0
"$tool" "$tmp/gate" "$series" >"$tmp/gate.out" 2>"$tmp/gate.err" || status=$?
gate_time=$(elapsed "$t")
if [ "$status" -gt 1 ]; then
	fail "real series: apply-series failed with status $status: $(tail -n 3 "$tmp/gate.err")"
	exit 1
fi

# (c) git apply, per patch, in series order, with the series line's -pN
t=$(date +%s.%N)
export GIT_CEILING_DIRECTORIES=$tmp	# no repository above the copy: plain git apply
: >"$tmp/git.out"
while read -r name opts; do
	strip=1
	case $opts in -p[0-9]*) strip=${opts%% *}; strip=${strip#-p} ;; esac
	patch=$(dirname "$series")/$name
	if log=$(cd "$tmp/git" && git apply -v -p"$strip" "$patch" 2>&1); then
		# "Hunk #2 succeeded at 285 (offset -4 lines)."
		offset=$(printf '%s\n' "$log" | sed -n 's/.*(offset -\{0,1\}\([0-9]*\) lines\{0,1\}).*/\1/p' |
			sort -n | tail -n 1)
		if [ -n "$offset" ] && [ "$offset" -ne 0 ]; then
			echo "$name offset $offset"
		else
			echo "$name applied 0"
		fi
	elif (cd "$tmp/git" && git apply -R --check -p"$strip" "$patch") >/dev/null 2>&1; then
		echo "$name already 0"
	else
		echo "$name failed 0"
		printf '%s\n' "$log" | sed "s|^|git apply: $name: |" >>"$tmp/git.err"
	fi >>"$tmp/git.out"
done < <(sed -e 's/^[[:space:]]*//' -e '/^#/d' -e 's/[[:space:]]#.*//' -e '/^[[:space:]]*$/d' "$series")
git_time=$(elapsed "$t")

# (d)
expect_eq "real series: the gate and git apply see as many patches" \
	"$(wc -l <"$tmp/git.out")" "$(wc -l <"$tmp/gate.out")"
mismatches=0
while read -r name want_status want_offset && read -r got_name got_status got_offset <&3; do
	if [ "$name $want_status $want_offset" != "$got_name $got_status $got_offset" ]; then
		mismatches=$((mismatches + 1))
		fail "real series: $name: git apply says '$want_status $want_offset', the gate '$got_name $got_status $got_offset'"
		grep -F "apply-series: $name:" "$tmp/gate.err" | head -n 2 | sed 's/^/# /'
	fi
done <"$tmp/git.out" 3<"$tmp/gate.out"
expect_eq "real series: every patch's status and offset as git apply's" 0 "$mismatches"

count() { awk -v s="$1" '$2 == s' "$2" | wc -l; }
for f in gate git; do
	echo "# $f: $(wc -l <"$tmp/$f.out") patches, $(count applied "$tmp/$f.out") applied cleanly," \
		"$(count offset "$tmp/$f.out") at an offset, $(count already "$tmp/$f.out") already in," \
		"$(count failed "$tmp/$f.out") failed"
done
expect_eq "real series: patches the gate could not apply" 0 "$(count failed "$tmp/gate.out")"
echo "# the gate: $gate_time s for the series ($(tail -n 1 "$tmp/gate.err" | sed 's/^apply-series: //'))"
echo "# git apply, one process per patch: $git_time s"

# (e) Content, symlink targets (no dereferencing), then modes: diff -r
# compares no permissions.
modes() { (cd "$1" && find . \( -path ./debian -o -path ./.pc \) -prune -o \( -type f -perm /111 -print \) | sort); }
t=$(date +%s.%N)
diff -r --no-dereference "$tmp/gate" "$tmp/git" >"$tmp/diff-git" 2>&1
expect_eq "real series: the gate's tree is git apply's tree (diff -r)" \
	"" "$(head -n 5 "$tmp/diff-git")"
diff -r --no-dereference -x .pc "$tmp/gate" "$cache/reference" 2>&1 |
	grep -v "^Only in $cache/reference: debian\$" >"$tmp/diff-ref"
expect_eq "real series: the gate's tree is dpkg-source -x's tree, debian/ and .pc/ aside" \
	"" "$(head -n 5 "$tmp/diff-ref")"
expect_eq "real series: the same executable files as git apply's tree" \
	"$(modes "$tmp/git")" "$(modes "$tmp/gate")"
expect_eq "real series: the same executable files as dpkg-source -x's tree" \
	"$(modes "$cache/reference")" "$(modes "$tmp/gate")"
echo "# comparing the trees: $(elapsed "$t") s"
echo "# real series, all told: $(elapsed "$start") s"
