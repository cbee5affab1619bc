#!/bin/bash
# A loop that answers (issue 19, item 1), black-box: the real daemon on
# loopback with systemd's notification socket emulated (NOTIFY_SOCKET,
# WATCHDOG_USEC=30 s, tests/tools/notify-socket records every datagram),
# a notification due to a receiver that accepts the connection and never
# answers (tests/tools/tarpit), and the database held BEGIN EXCLUSIVE by
# another process for 45 s. Meanwhile /api/runs must answer within 1 s,
# every second; a webhook gets 503 with Retry-After at once; WATCHDOG=1
# never stops for 30 s; a job due to start waits for the lock and starts
# after it, the lock said once in the log; the notification is not lost.
# First, a daemon whose main loop is held in a statement of its own
# (tests/tools/stall-sql.c): its HTTP side still answers, but the
# watchdog pings stop, so systemd would restart it.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
py=/usr/bin/python3
port=$(free_port)
tport=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-loop
db=$tmp/gate.db
lock_seconds=45

write_config() { # file port database
	cat >"$1" <<CONF
[server]
	listen = 127.0.0.1:$2
	database = $3
[queue "hooked"]
	config-check = none
	url = $tmp/no-such-queue
	poll = 0
	secret = $secret
	notify = http://127.0.0.1:$tport/hook
CONF
}
write_config "$tmp/gate.conf" "$port" "$db"

"$py" "$top/tests/tools/tarpit" "$tport" "$tmp/tarpit.log" 2>"$tmp/tarpit.err" &
tarpit=$!
"$py" "$top/tests/tools/notify-socket" "$tmp/notify.sock" "$tmp/notify.log" 2>"$tmp/notify.err" &
notify=$!
daemon=
stuck=
locker=
cleanup() {
	kill "$tarpit" "$notify" "$notify2" "$locker" 2>/dev/null
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	[ -n "$stuck" ] && kill -9 "$stuck" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for 10 grep -q listening "$tmp/tarpit.log" 2>/dev/null || fail "the tarpit listens on $tport"
wait_for 10 grep -q listening "$tmp/notify.log" 2>/dev/null || fail "the notification socket is bound"

# serve_watched CONFIG LOG NOTIFY-SOCKET WATCHDOG-USEC [ENV...]: the daemon
# as systemd starts it, WATCHDOG_PID its own pid (sd_watchdog_enabled()
# checks it); sets watched to its pid.
serve_watched() {
	local config=$1 log=$2 sock=$3 usec=$4
	shift 4
	env NOTIFY_SOCKET="$sock" WATCHDOG_USEC="$usec" "$@" \
		bash -c 'export WATCHDOG_PID=$$; exec "$0" serve --config "$1"' "$gate" "$config" \
		>>"$log" 2>&1 &
	watched=$!
}
answers() { # base: /api/runs answers 200 within 1 s
	[ "$(curl -s -o /dev/null -m 1 -w '%{http_code}' "$1/api/runs")" = 200 ]
}
pings_after() { # log seconds: the WATCHDOG=1 datagrams that arrived after SECONDS
	awk -v t="$2" '$2 == "WATCHDOG=1" && $1 > t' "$1" | wc -l
}

# 1. A main loop held in its turn stops the pings. The statement is the
# main loop's own (jobs_next_queued(): no HTTP request runs it), stalled
# once $tmp/arm exists; the watchdog at 2 s asks for a ping every second.
stall=$tmp/stall-sql.so
gcc -shared -fPIC -o "$stall" "$top/tests/tools/stall-sql.c" -ldl || fail "stall-sql: builds"
sport=$(free_port)
write_config "$tmp/stuck.conf" "$sport" "$tmp/stuck.db"
"$py" "$top/tests/tools/notify-socket" "$tmp/notify2.sock" "$tmp/notify2.log" 2>>"$tmp/notify.err" &
notify2=$!
wait_for 10 grep -q listening "$tmp/notify2.log" 2>/dev/null
# (the sanitizer build wants its runtime first among the preloaded)
asan=$(ldd "$gate" | awk '/libasan\.so/ { print $3 }')
serve_watched "$tmp/stuck.conf" "$tmp/stuck.log" "$tmp/notify2.sock" 2000000 \
	LD_PRELOAD="${asan:+$asan }$stall" BG_STALL_SQL="SELECT id, queue FROM job WHERE state = 'queued'" \
	BG_STALL_MARK="$tmp/stalled" BG_STALL_ARM="$tmp/arm"
stuck=$watched
wait_for 10 eval '[ "$(pings_after "$tmp/notify2.log" 0)" -ge 2 ]'
expect_eq "stuck loop: while the loop turns, the watchdog is pinged" yes \
	"$([ "$(pings_after "$tmp/notify2.log" 0)" -ge 2 ] && echo yes || echo "no: $(cat "$tmp/notify2.log")")"
touch "$tmp/arm"
wait_for 10 test -e "$tmp/stalled" || fail "stuck loop: the main loop never reached its statement"
held=$(date +%s.%N)
sleep 5
expect_eq "stuck loop: the HTTP side still answers /api/runs" yes "$(answers "http://127.0.0.1:$sport" && echo yes || echo no)"
expect_eq "stuck loop: no WATCHDOG=1 in the 5 s the loop was held (1 s asked)" 0 \
	"$(pings_after "$tmp/notify2.log" "$held")"
kill -9 "$stuck"
wait "$stuck" 2>/dev/null
stuck=

# 2. The daemon with a notification due to the tarpit.
started=$(date +%s.%N)
serve_watched "$tmp/gate.conf" "$tmp/serve.log" "$tmp/notify.sock" 30000000
daemon=$watched
wait_for 10 answers "$base" || fail "the daemon answers on $base (log: $(tail -n 3 "$tmp/serve.log"))"
# The rows a verdict's transaction writes (record/jobs.h), without a
# kernel build: a run, its job, its notification. And a job whose failed
# attempt makes it wait 8 s more (its next_try_at, record/jobs.h), which
# the main loop may start again while the lock is held.
sqlite3 "$db" "
	INSERT INTO snapshot (queue, source, content_hash) VALUES ('queue-6.1', '$tmp/no-such-queue', 'loop');
	INSERT INTO run (snapshot_id, base, suite, verdict, error, finished_at)
		VALUES (last_insert_rowid(), '6.1.192', 'shebang', 'error', 'seeded by tests/loop.sh',
			strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
	INSERT INTO job (queue, trigger, state, attempts, run_id) VALUES ('hooked', 'webhook', 'done', 1, last_insert_rowid());
	INSERT INTO outbox (run_id, url, body, state) SELECT run_id, 'http://127.0.0.1:$tport/hook', '{\"run\": 1}', 'pending' FROM job;
	INSERT INTO job (queue, trigger, state, attempts, started_at, next_try_at)
		VALUES ('hooked', 'poll', 'queued', 1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-22 seconds'),
			strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+8 seconds'));"
waiting=$(sqlite3 "$db" "SELECT MAX(id) FROM job")
wait_for 10 grep -q 'accepted 1' "$tmp/tarpit.log"
expect_contains "the notifier posts to the receiver that never answers" "accepted 1" "$(cat "$tmp/tarpit.log")"

# The lock: another process holds BEGIN EXCLUSIVE for 45 s.
( echo 'BEGIN EXCLUSIVE;'; sleep "$lock_seconds"; echo 'COMMIT;' ) | sqlite3 "$db" &
locker=$!
wait_for 5 eval '! sqlite3 -cmd ".timeout 0" "$db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null' ||
	fail "the database is locked"
lock_start=$(date +%s.%N)
worst=0
bad=
webhook=
for i in $(seq "$lock_seconds"); do
	kill -0 "$locker" 2>/dev/null || break
	tick=$(date +%s.%N)
	got=$(curl -s -o /dev/null -m 1 -w '%{http_code} %{time_total}' "$base/api/runs")
	set -- $got
	[ "$1" = 200 ] || bad="$bad ${i}s:$1"
	worst=$(awk -v a="$worst" -v b="$2" 'BEGIN { print (b > a ? b : a) }')
	if [ "$i" = 5 ]; then
		body='{"queue": "hooked"}'
		webhook=$(curl -s -D "$tmp/webhook.headers" -o "$tmp/webhook.body" -m 5 -w '%{http_code} %{time_total}' \
			-X POST --data-binary "$body" -H "X-GitHub-Delivery: loop-1" \
			-H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" "$base/webhook")
	fi
	sleep "$(awk -v t="$tick" -v n="$(date +%s.%N)" 'BEGIN { d = 1 - (n - t); print (d > 0 ? d : 0) }')"
done
wait "$locker"
locker=
lock_end=$(date +%s.%N)
echo "# /api/runs under the lock: worst latency ${worst} s"
expect_eq "under the lock: /api/runs answered 200 within 1 s every second" "" "$bad"
expect_eq "under the lock: the daemon is alive" yes "$(kill -0 "$daemon" 2>/dev/null && echo yes || echo no)"
set -- $webhook
echo "# webhook under the lock: HTTP $1 in $2 s"
expect_eq "under the lock: a webhook is answered 503" 503 "$1"
expect_eq "under the lock: the webhook is answered within 2 s" yes \
	"$(awk -v t="$2" 'BEGIN { print ((t != "" && t < 2) ? "yes" : "no: " t " s") }')"
expect_eq "under the lock: the 503 says when to try again" "Retry-After: 10" \
	"$(grep -i '^Retry-After:' "$tmp/webhook.headers" | tr -d '\r')"
expect_eq "under the lock: the 503 says why" "the database is locked; try again later" \
	"$(jq -r .error "$tmp/webhook.body" 2>/dev/null)"

# The watchdog: every datagram from the start to now, the longest gap.
now=$(date +%s.%N)
gap=$(awk -v s="$started" -v e="$now" '$2 == "WATCHDOG=1" { if ($1 - p > g) g = $1 - p; p = $1 } BEGIN { p = s }
	END { if (e - p > g) g = e - p; printf "%.1f", g }' "$tmp/notify.log")
echo "# watchdog: longest gap between WATCHDOG=1 pings ${gap} s (WATCHDOG_USEC 30 s)"
expect_eq "watchdog: never 30 s without WATCHDOG=1" yes "$(awk -v g="$gap" 'BEGIN { print (g < 30 ? "yes" : "no") }')"
expect_eq "watchdog: pinged while the lock was held" yes \
	"$(awk -v s="$lock_start" -v e="$lock_end" '$2 == "WATCHDOG=1" && $1 > s && $1 < e { n++ }
		END { print (n >= 2 ? "yes" : "no: " n+0 " pings") }' "$tmp/notify.log")"

# After the lock: the waiting job starts; the lock was said once; the
# notification was tried and recorded, still pending; the sender's retry
# of the webhook is taken.
wait_for 10 grep -q "job $waiting: started worker" "$tmp/serve.log"
expect_contains "after the lock: the job that waited for it starts" "job $waiting: started worker" "$(cat "$tmp/serve.log")"
expect_eq "the lock is said once in the log, and its end" "1 1" \
	"$(grep -c 'locked by another process' "$tmp/serve.log") $(grep -c 'writable again after' "$tmp/serve.log")"
expect_contains "the lock's log line names the database and the write" \
	"database $db: locked by another process: job $waiting: marking it running: database is locked; trying again on later turns" \
	"$(cat "$tmp/serve.log")"
wait_for 15 eval '[ "$(sqlite3 "$db" "SELECT attempts >= 1 FROM outbox")" = 1 ]'
expect_eq "the notification is not lost: pending, its attempts recorded" "pending 1" \
	"$(sqlite3 "$db" "SELECT state, attempts >= 1 FROM outbox" | tr '|' ' ')"
body='{"queue": "hooked"}'
expect_eq "after the lock: the webhook's retry is queued" 202 \
	"$(curl -s -o /dev/null -m 5 -w '%{http_code}' -X POST --data-binary "$body" -H "X-GitHub-Delivery: loop-1" \
		-H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" "$base/webhook")"

# A clean stop, the notifier joined with its delivery in flight.
kill -TERM "$daemon"
status=timeout
for _ in $(seq 100); do
	kill -0 "$daemon" 2>/dev/null || { wait "$daemon"; status=$?; break; }
	sleep 0.2
done
expect_eq "SIGTERM: the daemon stops within 20 s, status 0" 0 "$status"
[ "$status" = timeout ] || daemon=
expect_contains "SIGTERM: STOPPING=1 told to systemd" "STOPPING=1" "$(cat "$tmp/notify.log")"
expect_eq "after the 45 s lock and the stuck loop: both databases are intact (integrity_check)" "ok ok" \
	"$(sqlite3 "$db" 'PRAGMA integrity_check') $(sqlite3 "$tmp/stuck.db" 'PRAGMA integrity_check')"
