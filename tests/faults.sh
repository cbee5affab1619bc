#!/bin/bash
# Hostile input and faults, black-box (issue 6, sections 3 to 5): a guest
# that floods the console, queue files and patches that reach outside the
# queue or the tree through symlinks, a build area, a boot folder and a
# database folder that fill up, a database locked by another process, a queue repository that vanishes or
# whose server never answers, and a notification receiver that is down.
# Each asserts the error a user sees and that nothing was lost.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
secret=s3cret-for-faults
shared_cache=/var/cache/backport-gate

webhook() { # base queue: a signed plain webhook; prints "STATUS JOB"
	local body="{\"queue\": \"$2\"}"
	curl -s -o "$tmp/resp" -w '%{http_code}' -X POST --data-binary "$body" \
		-H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" "$1/webhook"
	echo " $(jq -r .job "$tmp/resp" 2>/dev/null)"
}
# A stable-queue git repository holding DIR's series and patches.
make_repo() { # repo dir
	mkdir -p "$1/queue-6.1"
	git -C "$1" init -q -b master
	cp "$2"/* "$1/queue-6.1/"
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1"
}

# one_queue_conf FILE NAME REPO DB PORT: a daemon with one queue, NAME,
# polled never, on the shared kernel cache.
one_queue_conf() {
	cat >"$1" <<CONF
[server]
	listen = 127.0.0.1:$5
	database = $4
	cache = $shared_cache
[queue "$2"]
	config-check = none
	url = $3
	poll = 0
	secret = $secret
CONF
}

# ---- §5a: the build area fills up ----------------------------------------
# Runs in a private mount namespace (unshare -m): the cache's kernel
# directory is a copy of the shared one bound over it, so paths and ccache
# hits stay the same while the build directory is a small tmpfs; no other
# process sees either mount, and both go with the namespace.
full_cache() {
	kdir=$shared_cache/linux-6.1 copy=$tmp/linux-6.1
	local db=$tmp/full.db port=$((20000 + $$ % 20000)) base state job start
	base=http://127.0.0.1:$port

	trap 'kill $daemon 2>/dev/null; wait 2>/dev/null; umount -l "$kdir"; umount -l "$copy/build"; rm -rf "$tmp"' EXIT
	mkdir -p "$copy/build"
	start=$(date +%s)
	cp -a "$kdir/src" "$copy/src" || { fail "full cache: copy of the kernel tree"; return; }
	echo "# full cache: tree copied in $(($(date +%s) - start)) s"
	mount -t tmpfs -o size=12m backport-gate-full "$copy/build" && mount --rbind "$copy" "$kdir" ||
		{ fail "full cache: mounts in a private namespace"; return; }

	status=0
	start=$(date +%s)
	"$gate" run --config-check none --db "$db" --queue "$top/tests/data/patches/exit-comment" >"$tmp/out" 2>"$tmp/err" ||
		status=$?
	echo "# full cache: run ended in $(($(date +%s) - start)) s"
	expect_eq "full cache: run exits 2 (no verdict)" 2 "$status"
	expect_contains "full cache: the message names the full build directory" \
		"backport-gate run: build: no space left on device in $kdir/build" "$(tail -n 1 "$tmp/err")"
	expect_eq "full cache: the half-written build was emptied" 0 "$(find "$kdir/build" -mindepth 1 | wc -l)"
	expect_eq "full cache: no verdict recorded, the run is an error" "error" \
		"$(sqlite3 "$db" "SELECT group_concat(verdict) FROM run")"
	expect_eq "full cache: no patch verdict recorded" 0 \
		"$(sqlite3 "$db" "SELECT COUNT(*) FROM run WHERE verdict IN ('pass', 'drop')")"

	# The daemon: the job is an infrastructure failure, kept and retried;
	# once there is room again the retry ends with a verdict.
	repo=$tmp/full-queue
	make_repo "$repo" "$top/tests/data/patches/exit-comment"
	one_queue_conf "$tmp/full.conf" full "$repo" "$db" "$port"
	start_daemon "$tmp/full.conf" "$tmp/full.log" "$base" || fail "full cache: the daemon listens"
	read -r code job <<<"$(webhook "$base" full)"
	expect_eq "full cache: webhook accepted" 202 "$code"
	job_state() { sqlite3 "$db" "SELECT state, attempts FROM job WHERE id = $job" | tr '|' ' '; }
	wait_for 300 grep -q "^job $job: no verdict" "$tmp/full.log"
	expect_eq "full cache: the job ends as an infrastructure failure, queued again" "queued 1" "$(job_state)"
	expect_contains "full cache: the job says why" "no space left on device in $kdir/build" \
		"$(curl -s "$base/api/jobs/$job" | jq -r .error)"
	expect_eq "full cache: the job has no run" "" \
		"$(sqlite3 "$db" "SELECT COALESCE(run_id, '') FROM job WHERE id = $job")"
	mount -o remount,size=512m "$copy/build"
	start=$(date +%s)
	wait_for 900 eval '[ "$(job_state | cut -d" " -f1)" = done ]'
	read -r state attempts <<<"$(job_state)"
	echo "# full cache: retry to a verdict in $(($(date +%s) - start)) s (30 s of it is the retry delay), attempt $attempts"
	expect_eq "full cache: with room again, a retry ends with a verdict" done "$state"
	# every attempt the daemon made, and why those without a verdict ended
	grep -E "^job $job: (started|no verdict|done|build|boot|apply|.*: )" "$tmp/full.log" | sed 's/^/# attempts: /'
	expect_eq "full cache: only the attempt before the room came back failed for lack of it" 1 \
		"$(grep -c "^job $job: .*no space left on device" "$tmp/full.log")"
	expect_eq "full cache: the retried job's verdict" pass \
		"$(curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$job" | jq -r .run)" | jq -r .verdict)"
	grep -v '^#' "$tmp/full.log" | tail -n 12 | sed 's/^/# daemon: /'
	kill "$daemon" 2>/dev/null
	wait "$daemon" 2>/dev/null
	expect_eq "full cache: the database is intact (integrity_check)" ok \
		"$(sqlite3 "$db" 'PRAGMA integrity_check')"
}
if [ "${1:-}" = --full-cache ]; then
	full_cache
	exit 0
fi

# ---- §5g: the build area fills up during a quick build (issue 24) --------
# As §5a, but the tmpfs holds a copy of a build directory where base is
# built, with 256 KiB left: the 2019 change builds quick (one object
# compiled, then the archives and a link that writes about 17 MB), and
# the link finds no room. The run must end without a verdict, naming the
# full directory and emptying it for the next build: a full disk is the
# machine's failure, never the patch's build error.
full_quick() {
	kdir=$shared_cache/linux-6.1 copy=$tmp/linux-6.1
	local kb

	trap 'umount -l "$kdir"; umount -l "$copy/build"; rm -rf "$tmp"' EXIT
	run_suite
	expect_eq "full disk in a quick build: base passes first" 0 "$status"
	mkdir -p "$copy/build"
	cp -a "$kdir/src" "$copy/src" || { fail "full disk in a quick build: copy of the kernel tree"; return; }
	kb=$(du -sk "$kdir/build" | cut -f1)
	mount -t tmpfs -o size=$((kb + 4096))k backport-gate-full "$copy/build" &&
		cp -a "$kdir/build/." "$copy/build/" && mount --rbind "$copy" "$kdir" ||
		{ fail "full disk in a quick build: the copy on a tmpfs in a private namespace"; return; }
	kb=$(df -k --output=avail "$kdir/build" | tail -n 1)
	dd if=/dev/zero of="$kdir/build/.filler" bs=1k count=$((kb - 256)) status=none
	run_suite --patches "$top/patches/6.1" --upto 1
	echo "# full disk in a quick build: $(df -k --output=avail "$kdir/build" | tail -n 1) KiB free after the run"
	expect_eq "full disk in a quick build: exit 2 (no verdict)" 2 "$status"
	expect_eq "full disk in a quick build: it was a quick build (make did not walk the tree)" \
		"" "$(grep -F '# build: make walks the tree' <<<"$err")"
	expect_contains "full disk in a quick build: the message names the full build directory" \
		"no space left on device in $kdir/build" "$err"
	expect_eq "full disk in a quick build: no compiler error passed off as the patch's" "" \
		"$(grep -E 'could not run|: error: ' <<<"$err")"
	expect_eq "full disk in a quick build: the half-written build was emptied" 0 \
		"$(find "$kdir/build" -mindepth 1 | wc -l)"
}
if [ "${1:-}" = --full-quick ]; then
	full_quick
	exit 0
fi

# ---- §5e: the boot's files on a full disk (issue 19 item 5) ---------------
# The gate's work folder (<cache>/linux-6.1/gate: the initramfs each boot
# writes, make's logs) on a 1 MiB tmpfs, in a private mount namespace like
# §5a's: the initramfs (about 1.6 MB) does not fit. An archive cut short
# would boot a guest without its suite, a failure that looks like the
# kernel's; the run must instead end without a verdict, naming the full
# folder, and give its verdict once there is room.
full_boot() {
	local db=$tmp/full-boot.db queue=$top/tests/data/patches/exit-comment
	work=$shared_cache/linux-6.1/gate

	trap 'umount -l "$work"; rm -rf "$tmp"' EXIT
	mount -t tmpfs -o size=1m backport-gate-work "$work" ||
		{ fail "full boot folder: a tmpfs over $work in a private namespace"; return; }
	status=0
	"$gate" run --config-check none --db "$db" --queue "$queue" >"$tmp/out" 2>"$tmp/err" || status=$?
	expect_eq "full boot folder: run exits 2 (no verdict)" 2 "$status"
	expect_contains "full boot folder: the message names the full folder" \
		"backport-gate run: initramfs: no space left on device in $work: " \
		"$(tail -n 1 "$tmp/err")"
	expect_eq "full boot folder: no verdict recorded, the run is an error" "error" \
		"$(sqlite3 "$db" "SELECT group_concat(verdict) FROM run")"
	expect_eq "full boot folder: no boot recorded" 0 "$(sqlite3 "$db" "SELECT COUNT(*) FROM boot")"
	mount -o remount,size=64m "$work"
	status=0
	"$gate" run --config-check none --db "$db" --json "$tmp/room.json" --queue "$queue" \
		>"$tmp/out" 2>"$tmp/err" || status=$?
	expect_eq "full boot folder: with room again, the run's verdict (exit 0, pass)" "0 pass" \
		"$status $(jq -r .verdict "$tmp/room.json" 2>/dev/null)"
	expect_eq "full boot folder: the database is intact (integrity_check)" ok \
		"$(sqlite3 "$db" 'PRAGMA integrity_check')"
}
if [ "${1:-}" = --full-boot ]; then
	full_boot
	exit 0
fi

# ---- §5f: the database's folder on a full disk (issue 19 item 5) ----------
# The daemon's database on a 8 MiB tmpfs. The job's worker is held (the
# LD_PRELOAD shim of §6, tests/tools/stall-sql.c) inside its verdict's
# transaction while the disk is filled; its commit fails. The verdict
# must not be half-recorded, the job must go back to queued with the
# reason once the daemon can write again, webhooks meanwhile get 503, and
# with room again the job ends with its verdict.
full_db() {
	local db port base repo stall state
	dir=$tmp/dbdir
	port=$(free_port)
	base=http://127.0.0.1:$port
	db=$dir/gate.db
	trap 'kill $daemon 2>/dev/null; wait 2>/dev/null; umount -l "$dir"; rm -rf "$tmp"' EXIT
	mkdir -p "$dir"
	mount -t tmpfs -o size=8m backport-gate-db "$dir" ||
		{ fail "full database folder: a tmpfs for the database"; return; }
	stall=$tmp/stall-sql.so
	gcc -shared -fPIC -o "$stall" "$top/tests/tools/stall-sql.c" -ldl ||
		{ fail "full database folder: stall-sql builds"; return; }
	repo=$tmp/db-queue
	make_repo "$repo" "$top/tests/data/patches/exit-comment"
	one_queue_conf "$tmp/db.conf" dbfull "$repo" "$db" "$port"
	start_daemon "$tmp/db.conf" "$tmp/db.log" "$base" LD_PRELOAD="$stall" \
		BG_STALL_SQL="UPDATE run SET verdict = ?," BG_STALL_MARK="$tmp/stalled" \
		BG_STALL_ARM="$tmp/armed" BG_STALL_UNTIL="$tmp/go" ||
		{ fail "full database folder: the daemon listens"; return; }
	touch "$tmp/armed"
	read -r code job <<<"$(webhook "$base" dbfull)"
	expect_eq "full database folder: webhook accepted" 202 "$code"
	job_state() { sqlite3 "$db" "SELECT state, attempts FROM job WHERE id = $job" | tr '|' ' '; }
	if ! wait_for 600 test -e "$tmp/stalled"; then
		fail "full database folder: the worker reached its verdict's transaction"
		grep -v '^#' "$tmp/db.log" | tail -n 5 | sed 's/^/# daemon: /'
		return
	fi
	# the disk fills while the verdict's rows wait in the open transaction
	dd if=/dev/zero of="$dir/filler" bs=64k status=none 2>/dev/null
	echo "# full database folder: filled, $(df --output=avail -k "$dir" | tail -n 1 | tr -d ' ') KiB left"
	touch "$tmp/go"
	wait_for 120 grep -q "^job $job: no verdict" "$tmp/db.log" ||
		fail "full database folder: the worker ended without a verdict"
	expect_eq "full database folder: no verdict recorded while the disk is full" 0 \
		"$(sqlite3 "$db" "SELECT COUNT(*) FROM run WHERE verdict IN ('pass', 'drop')")"
	wait_for 10 grep -q "its disk is full: job $job: queueing it again after its worker failed" "$tmp/db.log"
	expect_contains "full database folder: the daemon says the disk is full, once, and keeps the move" \
		"database $db: its disk is full: job $job: queueing it again after its worker failed: database or disk is full; trying again on later turns" \
		"$(grep "its disk is full" "$tmp/db.log")"
	expect_eq "full database folder: said once, not every turn" 1 "$(grep -c "its disk is full: job" "$tmp/db.log")"
	read -r code _ <<<"$(curl -s -o "$tmp/resp" -w '%{http_code}' -X POST \
		--data-binary '{"queue": "dbfull"}' -H "X-Hub-Signature-256: sha256=$(sign '{"queue": "dbfull"}' "$secret")" \
		-H "X-GitHub-Delivery: full-$$" "$base/webhook")"
	expect_eq "full database folder: a webhook meanwhile gets 503, saying why" \
		"503 the database's disk is full; try again later" "$code $(jq -r .error "$tmp/resp")"
	expect_eq "full database folder: the database is intact while full (integrity_check)" ok \
		"$(sqlite3 "$db" 'PRAGMA integrity_check')"
	rm -f "$dir/filler"
	wait_for 10 grep -q "^database $db: writable again" "$tmp/db.log" ||
		fail "full database folder: the daemon writes again once there is room"
	expect_eq "full database folder: with room, the job is queued again" "queued 1" "$(job_state)"
	expect_contains "full database folder: the job says why" "the database's disk was full when the attempt ended" \
		"$(curl -s "$base/api/jobs/$job" | jq -r .error)"
	wait_for 300 eval '[ "$(job_state | cut -d" " -f1)" = done ]'
	read -r state _ <<<"$(job_state)"
	expect_eq "full database folder: the retry ends with a verdict" done "$state"
	expect_eq "full database folder: the retried job's verdict" pass \
		"$(curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$job" | jq -r .run)" | jq -r .verdict)"
	expect_eq "full database folder: one run with a verdict, the one before it an interrupted error" \
		"error pass" "$(sqlite3 "$db" "SELECT group_concat(verdict, ' ') FROM (SELECT verdict FROM run ORDER BY id)")"
	grep -v '^#' "$tmp/db.log" | grep -E "^(job $job|database)" | sed 's/^/# daemon: /'
	kill "$daemon" 2>/dev/null
	wait "$daemon" 2>/dev/null
	expect_eq "full database folder: the database is intact (integrity_check)" ok \
		"$(sqlite3 "$db" 'PRAGMA integrity_check')"
}
if [ "${1:-}" = --full-db ]; then
	full_db
	exit 0
fi

# ---- §6: kill -9 (issue 18): a run is whole or absent ---------------------
# The real gate is killed -9 while it builds, while it boots, and inside
# its verdict's and its start's transactions (an LD_PRELOAD shim,
# tests/tools/stall-sql.c, stops it at a chosen statement; nothing in the
# gate knows of it). After each kill the database is intact, the run is
# absent or still 'running' with none of its verdict rows, the program
# the gate ran (make, QEMU) and its process group are gone, and the next
# run on the same database ends with the normal verdict. `--kill` runs
# only this section.

# run_check WHAT DB: the record after a kill.
run_check() {
	local what=$1 db=$2
	expect_eq "$what: integrity_check" ok "$(sqlite3 "$db" 'PRAGMA integrity_check')"
	# a pass or drop has every patch's verdict and apply_result, its report and its end
	expect_eq "$what: no finished run with rows missing" 0 "$(sqlite3 "$db" "
		SELECT COUNT(*) FROM run r WHERE r.verdict IN ('pass', 'drop') AND (
			NOT EXISTS (SELECT 1 FROM run_report rr WHERE rr.run_id = r.id) OR r.finished_at IS NULL OR
			(SELECT COUNT(*) FROM verdict v WHERE v.run_id = r.id) !=
				(SELECT COUNT(*) FROM patch p WHERE p.snapshot_id = r.snapshot_id) OR
			(SELECT COUNT(*) FROM apply_result a WHERE a.run_id = r.id) !=
				(SELECT COUNT(*) FROM patch p WHERE p.snapshot_id = r.snapshot_id))")"
	expect_eq "$what: no unfinished run with verdict rows" 0 "$(sqlite3 "$db" "
		SELECT COUNT(*) FROM run r WHERE r.verdict NOT IN ('pass', 'drop') AND (
			EXISTS (SELECT 1 FROM verdict v WHERE v.run_id = r.id) OR
			EXISTS (SELECT 1 FROM apply_result a WHERE a.run_id = r.id))")"
	echo "# $what: runs $(sqlite3 "$db" "SELECT group_concat(id || ':' || verdict, ' ') FROM run")"
}

# gone_within SECONDS PGID: 0 once no process of group PGID is left.
gone_within() {
	for _ in $(seq $(($1 * 10))); do
		pgrep -g "$2" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# program_of PID PATTERN: the program the gate PID runs whose command line
# matches PATTERN, and its process group (runcmd.h: a program runs under
# a guardian, the gate's child and the group's leader): "PID PGID".
program_of() {
	local guardian program
	for guardian in $(pgrep -P "$1"); do
		program=$(pgrep -P "$guardian" -f "$2" | head -n 1)
		[ -n "$program" ] && echo "$program $guardian" && return 0
	done
	return 1
}

# kill_at_child WHAT DB PATTERN DELAY: run the gate on $kq with DB, kill -9
# it DELAY s after it starts a program whose command line matches PATTERN,
# and check that the program's process group goes with it.
kill_at_child() {
	local what=$1 db=$2 pattern=$3 delay=$4 pid child group start t
	"$gate" run --config-check none --db "$db" --queue "$kq" >"$tmp/kill.out" 2>"$tmp/kill.err" &
	pid=$!
	start=$(date +%s)
	child=
	# up to 20 minutes: the cache lock may be held by another run, and base may need a build
	for _ in $(seq 12000); do
		read -r child group <<<"$(program_of "$pid" "$pattern")"
		[ -n "$child" ] || ! kill -0 "$pid" 2>/dev/null && break
		sleep 0.1
	done
	if [ -z "$child" ]; then
		fail "$what: the gate never started '$pattern' (exit: $(tail -n 1 "$tmp/kill.err"))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	sleep "$delay"
	echo "# $what: killing the gate $(($(date +%s) - start)) s after its start, child $child: $(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null | cut -c1-100)"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	t=$(date +%s%N)
	if gone_within 60 "$group"; then
		echo "# $what: the program's process group was gone $((($(date +%s%N) - t) / 1000000)) ms after the kill"
		pass "$what: the program's process group is gone (make's sub-makes, QEMU)"
	else
		fail "$what: the program's process group outlived the gate by 60 s: $(pgrep -g "$group" -a | head -n 3 | tr '\n' ';')"
		kill -9 -- "-$group" 2>/dev/null
	fi
	run_check "$what" "$db"
	expect_eq "$what: the run is left 'running'" running \
		"$(sqlite3 "$db" "SELECT verdict FROM run ORDER BY id DESC LIMIT 1")"
}

# gate_full WHAT DB EXPECTED: a run on DB to its end, with verdict EXPECTED.
gate_full() {
	local status=0 start=$(date +%s)
	"$gate" run --config-check none --db "$2" --json "$tmp/kill.json" --queue "$kq" >"$tmp/kill.out" 2>"$tmp/kill.err" ||
		status=$?
	echo "# $1: $(($(date +%s) - start)) s: $(tail -n 1 "$tmp/kill.out")"
	expect_eq "$1: exit status 0 and verdict" "0 $3" "$status $(jq -r .verdict "$tmp/kill.json" 2>/dev/null)"
	[ "$status" -eq 0 ] || sed 's/^/# stderr: /' "$tmp/kill.err" | tail -n 5
}

# kill_in_statement WHAT DB SQL: run the gate on $kq with DB and kill -9 it
# while it prepares the statement that starts with SQL, the rest of its
# transaction done and uncommitted (tests/tools/stall-sql.c stops it
# there). Sets run to the run it left.
kill_in_statement() {
	local what=$1 db=$2 sql=$3 pid
	rm -f "$tmp/stalled"
	LD_PRELOAD=$stall BG_STALL_SQL=$sql BG_STALL_MARK=$tmp/stalled \
		"$gate" run --config-check none --db "$db" --queue "$kq" >"$tmp/kill.out" 2>"$tmp/kill.err" &
	pid=$!
	if ! wait_for 1200 test -e "$tmp/stalled"; then
		fail "$what: the gate never reached '$sql' (exit: $(tail -n 1 "$tmp/kill.err"))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	run=$(sqlite3 "$db" 'SELECT MAX(id) FROM run')
	run_check "$what" "$db"
	expect_eq "$what: run $run is left 'running', without a verdict or apply_result row" \
		"running 0 0" "$(sqlite3 "$db" "SELECT verdict,
			(SELECT COUNT(*) FROM verdict WHERE run_id = $run),
			(SELECT COUNT(*) FROM apply_result WHERE run_id = $run) FROM run WHERE id = $run" |
			tr '|' ' ')"
}

kill_nine() {
	local db=$tmp/kill.db db2=$tmp/kill-boot.db pid run stall
	local token=kill-$$-$(date +%s%N) patch=exit-reword-the-oops-limit-comment.patch
	kq=$tmp/kill-queue
	trap 'wait 2>/dev/null; rm -rf "$tmp"' EXIT
	# exit-comment with a word of its own in the comment: a tree no slot
	# holds yet, so the first run has a kernel to build
	mkdir -p "$kq"
	cp "$top/tests/data/patches/exit-comment/series" "$kq/"
	sed "s/^+ \* The default value should/+ * The default value ($token) should/" \
		"$top/tests/data/patches/exit-comment/$patch" >"$kq/$patch"

	# while it builds (a kernel make: its argument O=; a quick build, which
	# this one-file change would get, starts none), then a run to its end
	BG_QUICK_BUILD=0 kill_at_child "kill during the build" "$db" '^make .*O=' 1
	# A kill cuts short the file make was writing; the one it left in CI
	# was a .cmd file cut inside "$(wildcard ...)", which every later make
	# in that directory stops on. Cut one the same way, as the kill would:
	# the next run must not take that for the patch's build failure.
	cmd=$(grep -l -F '$(wildcard' "$shared_cache"/linux-6.1/build/kernel/.*.o.cmd 2>/dev/null | head -n 1)
	if [ -n "$cmd" ] && cut=$(grep -bo '\$(wildcard' "$cmd" | head -n 1 | cut -d: -f1) &&
		[ -n "$cut" ]; then
		head -c "$((cut + 12))" "$cmd" >"$tmp/cut.cmd" && cat "$tmp/cut.cmd" >"$cmd"
	else
		fail "kill during the build: a .cmd file in the build's kernel/ to cut"
	fi
	gate_full "after the kill during the build, a run on the same database" "$db" pass
	expect_contains "after the kill during the build: the next make removed what the killed one wrote" \
		"# build: an earlier make in $shared_cache/linux-6.1/build did not end" "$(cat "$tmp/kill.err")"
	run_check "after the kill during the build" "$db"

	# while a quick build (gate/kernel/quick.h) compiles a tree no slot
	# holds: it leaves the same mark as make, and the next build (make: the
	# slot is dirty) removes what it wrote
	sed "s/^+ \* The default value should/+ * The default value (quick $token) should/" \
		"$top/tests/data/patches/exit-comment/$patch" >"$kq/$patch"
	kill_at_child "kill during a quick build" "$db" '^/bin/sh -c set -e; ' 0
	gate_full "after the kill during a quick build, a run on the same database" "$db" pass
	expect_contains "after the kill during a quick build: the next build removed what it wrote" \
		"# build: an earlier make in $shared_cache/linux-6.1/build did not end" "$(cat "$tmp/kill.err")"
	run_check "after the kill during a quick build" "$db"

	# while it boots, on a database of its own (the kernels are built now)
	kill_at_child "kill during the boot" "$db2" '^qemu-system' 0.3
	gate_full "after the kill during the boot, a run on the same database" "$db2" pass
	run_check "after the kill during the boot" "$db2"

	# inside the verdict's transaction: after every patch's rows, at the
	# run's UPDATE; and inside the start's, at the run's INSERT
	stall=$tmp/stall-sql.so
	gcc -shared -fPIC -o "$stall" "$top/tests/tools/stall-sql.c" -ldl ||
		fail "stall-sql: builds"
	kill_in_statement "kill in the verdict's transaction" "$db" "UPDATE run SET verdict = ?,"
	kill_in_statement "kill between the verdict's rows" "$db" "INSERT OR REPLACE INTO verdict"
	rm -f "$tmp/stalled"
	LD_PRELOAD=$stall BG_STALL_SQL="INSERT INTO run" BG_STALL_MARK=$tmp/stalled \
		"$gate" run --config-check none --db "$db" --queue "$kq" >"$tmp/kill.out" 2>"$tmp/kill.err" &
	pid=$!
	wait_for 1200 test -e "$tmp/stalled" || fail "kill in the start's transaction: never reached"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	expect_eq "kill in the start's transaction: no run added" "$run" \
		"$(sqlite3 "$db" 'SELECT MAX(id) FROM run')"
	run_check "kill in the start's transaction" "$db"
	# every run first ends the runs whose processes are gone: this one ended
	# the run the kill before it left, and said so before it stalled
	expect_contains "kill in the start's transaction: the run first ended the killed run" \
		"# 1 earlier run left 'running' by a process that is gone: recorded as interrupted" \
		"$(cat "$tmp/kill.err")"

	# none of the killed runs is left 'running' (their processes are gone),
	# and the next run and the commands that read the record work
	gate_full "after every kill, a run on the same database" "$db" pass
	run=$(jq -r .run "$tmp/kill.json")
	expect_eq "after every kill: every killed run is an interrupted error, none left 'running'" \
		"0 0" "$(sqlite3 "$db" "
		SELECT (SELECT COUNT(*) FROM run WHERE verdict = 'running'),
		       (SELECT COUNT(*) FROM run WHERE verdict NOT IN ('pass', 'drop') AND
			NOT (verdict = 'error' AND error LIKE 'interrupted: %'))" | tr '|' ' ')"
	expect_contains "after every kill: report of the last run" "backport-gate run $run: kill-queue" \
		"$("$gate" report "$run" --db "$db" 2>&1)"
	expect_contains "after every kill: history lists the interrupted runs" "interrupted" \
		"$("$gate" history --runs --db "$db" 2>&1)"
	expect_eq "after every kill: history --json has every run" \
		"$(sqlite3 "$db" 'SELECT COUNT(*) FROM run')" \
		"$("$gate" history --runs --json --db "$db" 2>/dev/null | jq -r .total)"
}
if [ "${1:-}" = --kill ]; then
	kill_nine
	exit 0
fi

# ---- §3: a guest that floods the console ---------------------------------
db=$tmp/gate.db
start=$(date +%s)
BG_BOOT_TIMEOUT=60 "$gate" run --config-check none --db "$db" --json "$tmp/flood.json" --queue "$top/tests/data/patches/flood" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
hwm=0
while kill -0 "$pid" 2>/dev/null; do	# the gate's own peak memory (QEMU is a child)
	v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
	[ -n "$v" ] && hwm=$v
	sleep 0.2
done
status=0
wait "$pid" || status=$?
echo "# flood: gate run took $(($(date +%s) - start)) s, peak RSS $((hwm / 1024)) MiB"
expect_eq "flood: exit status 1 (drop)" 1 "$status"
expect_eq "flood: dropped as a boot failure" "0001-flood.patch:boot" \
	"$(jq -r '[.patches[] | select(.status == "drop") | "\(.name):\(.reason)"] | join(" ")' "$tmp/flood.json")"
expect_contains "flood: the evidence says why" \
	"console flood: the guest printed over 1024 KiB without a result; stopped after" "$(cat "$tmp/out")"
stopped=$(grep -o 'stopped after [0-9]* s' "$tmp/out" | head -1 | awk '{print $3}')
expect_eq "flood: stopped by the cap, before the 60 s boot timeout" yes \
	"$([ -n "$stopped" ] && [ "$stopped" -lt 60 ] && echo yes || echo "no ($stopped s)")"
expect_contains "flood: the console tail shows what it printed" \
	"backport-gate fixture: console flood from load_script" "$(cat "$tmp/out")"
expect_eq "flood: the gate's memory stays bounded (peak RSS under 256 MiB)" yes \
	"$([ "$hwm" -gt 0 ] && [ "$hwm" -lt $((256 * 1024)) ] && echo yes || echo "no ($hwm KiB)")"
expect_eq "flood: the report stays small (under 64 KiB)" yes \
	"$([ "$(stat -c %s "$tmp/flood.json")" -lt 65536 ] && echo yes || echo "no ($(stat -c %s "$tmp/flood.json") bytes)")"

# ---- §4: symlinks out of the queue and out of the tree -------------------
victim=$tmp/victim
mkdir -p "$tmp/links/queue-6.1" "$victim"
q=$tmp/links/queue-6.1
good=exit-reword-the-oops-limit-comment.patch
cp "$top/tests/data/patches/exit-comment/$good" "$q/"
cp "$top/tests/data/patches/exit-comment/$good" "$tmp/links/outside.patch"
ln -s ../outside.patch "$q/outside.patch"
ln -s /etc/passwd "$q/passwd.patch"
patch_header() { printf 'From: t <t@t.invalid>\nSubject: [PATCH] %s\n\n---\n' "$1"; }
{
	patch_header "fs: add a symlink that leaves the tree"
	printf 'diff --git a/fs/bg-escape b/fs/bg-escape\nnew file mode 120000\n--- /dev/null\n+++ b/fs/bg-escape\n'
	printf '@@ -0,0 +1 @@\n+%s\n\\ No newline at end of file\n' "$victim"
} >"$q/fs-add-a-link-out-of-the-tree.patch"
{
	patch_header "fs: write through a symlink made in the same patch"
	printf 'diff --git a/fs/bg-inside/pwned b/fs/bg-inside/pwned\nnew file mode 100644\n--- /dev/null\n+++ b/fs/bg-inside/pwned\n'
	printf '@@ -0,0 +1 @@\n+written through a symlink\n'
	printf 'diff --git a/fs/bg-inside b/fs/bg-inside\nnew file mode 120000\n--- /dev/null\n+++ b/fs/bg-inside\n'
	printf '@@ -0,0 +1 @@\n+../include\n\\ No newline at end of file\n'
} >"$q/fs-write-through-a-new-link.patch"
{
	patch_header "dt-bindings: add a header through the include-prefixes link"
	f=scripts/dtc/include-prefixes/dt-bindings/bg-new.h
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n' "$f" "$f" "$f"
	printf '@@ -0,0 +1 @@\n+/* through a symlink of the packaged tree */\n'
} >"$q/dt-write-through-a-tree-link.patch"
printf '%s\n' "$good" outside.patch passwd.patch fs-add-a-link-out-of-the-tree.patch \
	fs-write-through-a-new-link.patch dt-write-through-a-tree-link.patch >"$q/series"
status=0
"$gate" run --config-check none --db "$db" --json "$tmp/links.json" --queue "$tmp/links" >"$tmp/out" 2>"$tmp/err" || status=$?
out=$(cat "$tmp/out")
expect_eq "symlinks: exit status 1 (they are dropped)" 1 "$status"
expect_eq "symlinks: the good patch is still judged" "$good:ok" \
	"$(jq -r '.patches[0] | "\(.name):\(.status)"' "$tmp/links.json")"
expect_eq "symlinks: each refused with reason apply" "apply apply apply apply apply" \
	"$(jq -r '[.patches[1:][] | .reason] | join(" ")' "$tmp/links.json")"
expect_contains "symlinks: a series file linked out of the queue" \
	"queue-6.1/series:2: outside.patch is a symlink that leaves the queue" "$out"
expect_contains "symlinks: a patch file linked to /etc/passwd" \
	"queue-6.1/series:3: passwd.patch is a symlink that leaves the queue" "$out"
expect_contains "symlinks: a patch making a link out of the tree" \
	"fs/bg-escape: a symlink to '$victim', which leaves the tree" "$out"
expect_contains "symlinks: a patch writing through a link it makes" \
	"fs/bg-inside/pwned: beyond a symbolic link: fs/bg-inside is a symlink" "$out"
expect_contains "symlinks: a patch writing through a link of the packaged tree" \
	"scripts/dtc/include-prefixes/dt-bindings/bg-new.h: beyond a symbolic link: scripts/dtc/include-prefixes/dt-bindings is a symlink" "$out"
expect_eq "symlinks: nothing was written outside the tree" "" "$(ls -A "$victim")"
expect_eq "flood, symlinks: the database is intact (integrity_check)" ok \
	"$(sqlite3 "$db" 'PRAGMA integrity_check')"

# ---- §5b-d: one daemon, four queues ---------------------------------------
# "good" gets a webhook while another process holds the database's write
# lock, and notifies a receiver that is down at first; "hang" names a
# server that accepts and never answers; "gone" names a repository that
# was deleted. The faulty queues are polled every 2 s.
port=$((20000 + ($$ + 7) % 20000))
rport=$((port + 1))
hport=$((port + 2))
base=http://127.0.0.1:$port
repo=$tmp/good-queue
make_repo "$repo" "$top/tests/data/patches/exit-comment"
make_repo "$tmp/gone" "$top/tests/data/patches/exit-comment"
rm -rf "$tmp/gone"
python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held = []
while True:		# accept, then never answer
    held.append(s.accept()[0])
' "$hport" &
silent=$!
wait_for 10 eval 'exec 3<>/dev/tcp/127.0.0.1/'"$hport" 2>/dev/null
exec 3>&-
cat >"$tmp/daemon.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/daemon.db
[queue "good"]
	config-check = none
	url = $repo
	poll = 0
	secret = $secret
	notify = http://127.0.0.1:$rport/hook
[queue "hang"]
	config-check = none
	url = http://127.0.0.1:$hport/stable-queue.git
	poll = 2
	secret = $secret
[queue "gone"]
	config-check = none
	url = $tmp/gone
	poll = 2
	secret = $secret
CONF
receiver=
cleanup() {
	kill $daemon $receiver $silent $locker 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
started=$(date +%s)
start_daemon "$tmp/daemon.conf" "$tmp/daemon.log" "$base" BG_FETCH_TIMEOUT=4 ||
	fail "daemon: listens on $base"
dbq() { sqlite3 "$tmp/daemon.db" "$1"; }

# §5b: another process holds the write lock for 6 s. The webhook is not
# held for it: 503 with Retry-After within about a second (the daemon's
# loop must keep turning), and the sender's retry once the lock is gone
# is accepted.
mkfifo "$tmp/lock.in"
sqlite3 "$tmp/daemon.db" <"$tmp/lock.in" >"$tmp/lock.out" 2>&1 &
locker=$!
exec 9>"$tmp/lock.in"
echo "BEGIN EXCLUSIVE; SELECT 'locked';" >&9
wait_for 10 grep -q locked "$tmp/lock.out"
expect_eq "db locked: another process holds the write lock" locked "$(cat "$tmp/lock.out")"
(sleep 6; echo "COMMIT;" >&9; exec 9>&-) &
t0=$(date +%s%N)
read -r code job <<<"$(webhook "$base" good)"
waited=$((($(date +%s%N) - t0) / 1000000))
exec 9>&-
echo "# db locked: the webhook was answered after $waited ms"
expect_eq "db locked: the webhook is refused for now (503), not lost in a wait" 503 "$code"
expect_contains "db locked: the refusal says why" "the database is locked; try again later" \
	"$(cat "$tmp/resp")"
expect_eq "db locked: answered within 3 s, not held until the lock is gone" yes \
	"$([ "$waited" -lt 3000 ] && echo yes || echo "no ($waited ms)")"
wait "$locker"
read -r code job <<<"$(webhook "$base" good)"
expect_eq "db locked: the sender's retry once the lock is gone is accepted" 202 "$code"
expect_eq "db locked: the job was recorded" "good queued" \
	"$(dbq "SELECT queue, state FROM job WHERE id = $job" | tr '|' ' ')"

# The good queue gets its verdict although the other two keep failing.
wait_for 240 eval '[ "$(dbq "SELECT state FROM job WHERE id = '"$job"'")" = done ]'
echo "# daemon: good queue's verdict $(($(date +%s) - started)) s after start"
run=$(dbq "SELECT COALESCE(run_id, '') FROM job WHERE id = $job")
expect_eq "db locked: the job ends with a verdict, nothing lost" "done pass" \
	"$(dbq "SELECT j.state, r.verdict FROM job j JOIN run r ON r.id = j.run_id WHERE j.id = $job" | tr '|' ' ')"

# §5c: the hanging fetch is bounded, logged with the queue and the reason,
# and retried; the vanished repository the same.
expect_contains "hang: the fetch is bounded and logged with the queue name" \
	"queue hang: http://127.0.0.1:$hport/stable-queue.git: fetch timed out after 4 s (the server did not answer)" \
	"$(cat "$tmp/daemon.log")"
expect_contains "gone: logged with the queue name and the reason" \
	"queue gone: $tmp/gone: No such file or directory" "$(cat "$tmp/daemon.log")"
wait_for 60 eval '[ "$(grep -c "queue hang: .*fetch timed out" "$tmp/daemon.log")" -ge 2 ]'
wait_for 30 eval '[ "$(grep -c "queue gone: .*No such file" "$tmp/daemon.log")" -ge 2 ]'
hang_job=$(dbq "SELECT MIN(id) FROM job WHERE queue = 'hang'")
wait_for 30 eval '[ "$(dbq "SELECT state FROM job WHERE id = '"$hang_job"'")" = queued ]'
expect_contains "hang: the job says why it has no verdict" \
	"queue hang: http://127.0.0.1:$hport/stable-queue.git: fetch timed out after 4 s" \
	"$(curl -s "$base/api/jobs/$hang_job" | jq -r .error)"
expect_eq "hang: retried" yes \
	"$([ "$(grep -c "queue hang: .*fetch timed out" "$tmp/daemon.log")" -ge 2 ] && echo yes || echo no)"
expect_eq "gone: retried" yes \
	"$([ "$(grep -c "queue gone: .*No such file" "$tmp/daemon.log")" -ge 2 ] && echo yes || echo no)"
expect_eq "hang, gone: no run, no verdict" 0 \
	"$(dbq "SELECT COUNT(*) FROM job WHERE queue IN ('hang', 'gone') AND run_id IS NOT NULL")"
echo "# hang: $(dbq "SELECT COUNT(*), MAX(attempts) FROM job WHERE queue = 'hang'" | tr '|' ' ') (jobs, most attempts)"

# §5d: the receiver is down (connection refused) for several attempts,
# then comes up: the report arrives exactly once.
wait_for 60 eval '[ "$(dbq "SELECT attempts FROM outbox WHERE run_id = '"$run"'")" -ge 3 ]'
expect_contains "receiver down: the outbox says why" "Couldn't connect to server" \
	"$(dbq "SELECT last_error FROM outbox WHERE run_id = $run")"
failed_attempts=$(dbq "SELECT attempts FROM outbox WHERE run_id = $run")
mkdir -p "$tmp/received"
python3 "$top/tests/tools/receiver.py" "$rport" "$tmp/received" 0 2>"$tmp/receiver.log" &
receiver=$!
wait_for 60 test -f "$tmp/received/1.json"
expect_eq "receiver back: the report arrived" "$run pass" \
	"$(jq -r '"\(.run) \(.verdict)"' "$tmp/received/1.json" 2>/dev/null)"
sleep 3
expect_eq "receiver back: exactly once" 1 "$(ls "$tmp/received" | wc -l)"
expect_eq "receiver back: sent after $failed_attempts refused attempts" "sent $((failed_attempts + 1))" \
	"$(dbq "SELECT state, attempts FROM outbox WHERE run_id = $run" | tr '|' ' ')"
kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null
expect_eq "lock, hang, gone, receiver down: the database is intact (integrity_check)" ok \
	"$(dbq 'PRAGMA integrity_check')"
echo "# daemon faults: $(($(date +%s) - started)) s"

# §6: kill -9 at each stage, in a process of its own (its own traps).
BG_GATE=$gate "$0" --kill

# §5a, §5e, §5f last: each needs its own mount namespace (see full_cache).
if command -v unshare >/dev/null && [ "$(id -u)" -eq 0 ]; then
	BG_GATE=$gate unshare -m --propagation private "$0" --full-cache
	BG_GATE=$gate unshare -m --propagation private "$0" --full-quick
	BG_GATE=$gate unshare -m --propagation private "$0" --full-boot
	BG_GATE=$gate unshare -m --propagation private "$0" --full-db
else
	fail "full cache: needs root and unshare (util-linux) for a private tmpfs"
fi
