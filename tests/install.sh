#!/bin/bash
# make install, black-box: install into a DESTDIR with PREFIX=/usr, then run
# the installed binary as systemd/backport-gate.service does (its
# ExecStartPre and ExecStart command lines, with the paths moved under
# DESTDIR and BG_LIBDIR pointing at the installed suite), on loopback, and
# ask it for /api/runs; then boot base with the installed suite. No kernel
# is built when, as in make check, an earlier test built base.
. "$(dirname "$0")/lib.bash"
root=$tmp/root
unit=$top/systemd/backport-gate.service

status=0
make -s -C "$top" -j2 BUILD="$tmp/build" DESTDIR="$root" PREFIX=/usr install \
	>"$tmp/make.log" 2>&1 || status=$?
expect_eq "make install DESTDIR=... PREFIX=/usr" 0 "$status"
[ "$status" -eq 0 ] || sed 's/^/# /' "$tmp/make.log" | tail -n 20
lib=$root/usr/lib/backport-gate
for f in usr/bin/backport-gate usr/lib/backport-gate/shebang-init usr/lib/backport-gate/shebang-probe \
	usr/lib/backport-gate/ccache-cc; do
	expect_eq "installed executable: /$f" yes "$([ -f "$root/$f" ] && [ -x "$root/$f" ] && echo yes)"
done
expect_eq "installed config fragment: /usr/lib/backport-gate/config/shebang.config" "" \
	"$(cmp "$top/kernel-tests/config/shebang.config" "$lib/config/shebang.config" 2>&1)"
expect_eq "the binary looks in /usr/lib/backport-gate unless told otherwise" 1 \
	"$(grep -c -a -F '/usr/lib/backport-gate' "$root/usr/bin/backport-gate")"
expect_eq "nothing installed outside PREFIX" "usr" "$(ls "$root")"

port=$(free_port)
cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/state/gate.db
	cache = $tmp/cache
[queue "stable-6.1"]
	url = $tmp/queue
	poll = 0
CONF
mkdir -p "$tmp/state" "$tmp/cache" "$tmp/queue"

# The unit's command lines, with the installed paths moved under DESTDIR.
unit_cmd() { # KEY: the unit's KEY= line, runnable here, one word a line
	sed -n "s/^$1=//p" "$unit" | sed "s|/usr/bin/backport-gate|$root/usr/bin/backport-gate|g;
		s|/etc/backport-gate/gate.conf|$tmp/gate.conf|g"
}
pre=$(unit_cmd ExecStartPre)
start=$(unit_cmd ExecStart)
expect_contains "ExecStart runs the installed binary" "$root/usr/bin/backport-gate serve" "$start"

status=0
out=$(env BG_LIBDIR="$lib" $pre 2>&1) || status=$?
expect_eq "ExecStartPre (serve --check) with the installed binary" 0 "$status"
expect_contains "serve --check says what it found" "ok, 1 queue, listen 127.0.0.1:$port" "$out"

# ExecStart, for real: it listens and answers.
env BG_LIBDIR="$lib" $start >"$tmp/serve.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
answer=
for _ in $(seq 100); do
	kill -0 "$daemon" 2>/dev/null || break
	answer=$(curl -s "http://127.0.0.1:$port/api/runs") && [ -n "$answer" ] && break
	sleep 0.1
done
expect_eq "the installed daemon answers GET /api/runs: no runs yet" "0 []" \
	"$(printf '%s' "$answer" | jq -r '"\(.total) \(.runs | tojson)"' 2>/dev/null)"
expect_contains "the installed daemon logs where it listens" "listening on http://127.0.0.1:$port/" \
	"$(cat "$tmp/serve.log")"
kill -TERM "$daemon" 2>/dev/null
status=0
wait "$daemon" || status=$?
expect_eq "SIGTERM stops it cleanly" 0 "$status"

# The installed gate boots a kernel with the installed suite: base, on the
# machine's kernel cache (where base is usually built already).
if [ -n "${BG_CACHE:-}" ]; then
	kcache=$BG_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	kcache=$XDG_CACHE_HOME/backport-gate
else
	kcache=/var/cache/backport-gate
fi
status=0
env BG_LIBDIR="$lib" "$root/usr/bin/backport-gate" boot --cache "$kcache" \
	>"$tmp/boot.out" 2>"$tmp/boot.err" || status=$?
expect_eq "installed: backport-gate boot on base passes" 0 "$status"
[ "$status" -eq 0 ] || sed 's/^/# /' "$tmp/boot.err" | tail -n 5
expect_contains "installed: the suite's totals" "# Totals: pass:272 fail:0" "$(cat "$tmp/boot.out")"
expect_contains "installed: the initramfs holds the installed suite" "file /init $lib/shebang-init " \
	"$(cat "$kcache/linux-6.1/gate/initramfs.list")"

# The installed gate and this checkout hand make the same compiler path,
# the copy of ccache-cc kept in the cache under its content's hash, so a
# build directory one of them built is not compiled whole again by the
# other (kbuild compiles an object again when its command changes) and
# never names a compiler that was removed with its checkout, as this
# test's DESTDIR is.
pinned=$kcache/linux-6.1/ccache-cc-$(sha256sum "$top/kernel-tests/ccache-cc" | cut -c1-12)
status=0
env BG_LIBDIR="$lib" "$root/usr/bin/backport-gate" boot --cache "$kcache" \
	--patches "$top/patches/6.1" --upto 1 >"$tmp/boot.out" 2>"$tmp/boot.err" || status=$?
expect_eq "installed: the 2019 change fails the suite" 1 "$status"
[ "$status" -eq 1 ] || sed 's/^/# /' "$tmp/boot.err" | tail -n 5
expect_eq "installed: make is given the compiler kept in the cache" \
	"cmd_fs/binfmt_script.o := $pinned" \
	"$(sed -n '1s/^\(cmd_fs\/binfmt_script.o := [^ ]*\) .*/\1/p' "$kcache/linux-6.1/build/fs/.binfmt_script.o.cmd")"
expect_eq "installed: the kept compiler is ccache-cc, executable" yes \
	"$(cmp -s "$pinned" "$lib/ccache-cc" && [ -x "$pinned" ] && echo yes)"
run_suite --cache "$kcache"
expect_eq "the checkout after the installed gate: base passes" 0 "$status"
expect_eq "the checkout after the installed gate: no object compiled by another compiler" "" \
	"$(grep -F 'compiled by another compiler' <<<"$err")"
