#!/bin/bash
# The daemon soaked (issue 19, item 6), black-box: one daemon on loopback,
# SOAK_CLIENTS (16) clients sending SOAK_TOTAL (2000) plain webhooks over
# SOAK_SECONDS (60) to four queues (tests/tools/soak-client.py: most
# signed and new, some replayed, some with a wrong signature, some over
# max-body), while the daemon is killed with SIGKILL at SOAK_KILLS (5)
# random moments and started again; the notification receiver is down for
# the first half. Then, once every job has ended and the outbox is empty:
# every accepted delivery has exactly one job, a replay got its first
# job back, nothing unsigned or oversized was accepted, every job ended
# with a verdict (its run), superseded, or failed with its error, every
# run's notification arrived exactly once, the database is intact, and
# the daemon's RSS after 1,000 more webhooks is within 20% of its RSS
# after the first 100. Prints the counts and the p50/p99 latency.
# make soak runs it whole; tests/soak.sh runs a short form in make check.
. "$(dirname "$0")/../lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
total=${SOAK_TOTAL:-2000}
seconds=${SOAK_SECONDS:-60}
kills=${SOAK_KILLS:-5}
clients=${SOAK_CLIENTS:-16}
port=$(free_port)
rport=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-the-soak
queues=q1,q2,q3,q4

# One repository, two benign 6.1 backports no test kernel builds: the
# first job of each queue is a run, the rest find it gated already.
repo=$tmp/stable-queue
benign_queue_repo "$repo"
{
	printf '[server]\n\tlisten = 127.0.0.1:%s\n\tdatabase = %s\n\tmax-body = 4096\n\tworkers = 2\n' \
		"$port" "$tmp/gate.db"
	for q in ${queues//,/ }; do
		printf '[queue "%s"]\n\turl = %s\n\tseries = queue-6.1\n\tconfig-check = none\n' "$q" "$repo"
		printf '\tpoll = 0\n\tsecret = %s\n\tnotify = http://127.0.0.1:%s/hook\n' "$secret" "$rport"
	done
} >"$tmp/gate.conf"

receiver=
cleanup() {
	kill "$daemon" $receiver 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || { fail "soak: the daemon answers"; exit 1; }

# The load, and the kills at random moments within it.
python3 "$top/tests/tools/soak-client.py" "$base" "$secret" "$queues" "$total" "$seconds" \
	"$clients" 8192 "$tmp/requests.jsonl" &
client=$!
mapfile -t moments < <(python3 -c "import random, sys
print(*sorted(round(random.uniform(1, $seconds - 1), 1) for _ in range($kills)), sep='\n')")
started=$(date +%s.%N)
restarts=0
for at in "${moments[@]}"; do
	sleep "$(python3 -c "print(max(0, $at - ($(date +%s.%N) - $started)))")"
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null
	start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" && restarts=$((restarts + 1))
	# the receiver comes up half-way
	if [ -z "$receiver" ] && [ "$(python3 -c "print(int($(date +%s.%N) - $started > $seconds / 2))")" = 1 ]; then
		mkdir -p "$tmp/received"
		python3 "$top/tests/tools/receiver.py" "$rport" "$tmp/received" 0 2>"$tmp/receiver.log" &
		receiver=$!
	fi
done
wait "$client"
if [ -z "$receiver" ]; then
	mkdir -p "$tmp/received"
	python3 "$top/tests/tools/receiver.py" "$rport" "$tmp/received" 0 2>"$tmp/receiver.log" &
	receiver=$!
fi
expect_eq "soak: the daemon was killed and started again $kills times" "$kills" "$restarts"

dbq() { sqlite3 "$tmp/gate.db" "$1"; }
wait_for 600 eval '[ "$(dbq "SELECT COUNT(*) FROM job WHERE state IN ('"'queued'"', '"'running'"')")" = 0 ]' ||
	fail "soak: every job ended within 600 s ($(dbq "SELECT group_concat(id || ':' || state, ' ') FROM job WHERE state IN ('queued', 'running')"))"
wait_for 120 eval '[ "$(dbq "SELECT COUNT(*) FROM outbox WHERE state != '"'sent'"'")" = 0 ]' ||
	fail "soak: every notification sent within 120 s"
sleep 2

req=$tmp/requests.jsonl
count() { jq -s "$1" "$req"; }
accepted=$(count '[.[] | select(.kind == "fresh" and .status == 202)] | length')
refused=$(count '[.[] | select(.status == 0)] | length')
expect_eq "soak: every request was sent" "$total" "$(wc -l <"$req")"
jq -r 'select(.kind == "fresh" and .status == 202) | "\(.delivery) \(.job)"' "$req" | sort >"$tmp/accepted"
dbq "SELECT d.id, d.job_id FROM delivery d" | tr '|' ' ' | sort >"$tmp/recorded"
expect_eq "soak: every accepted delivery has its job, the one it was answered" "" \
	"$(comm -23 "$tmp/accepted" "$tmp/recorded" | head -n 3)"
expect_eq "soak: no delivery has two jobs" "" \
	"$(dbq "SELECT job_id FROM delivery GROUP BY id HAVING COUNT(*) > 1")"
expect_eq "soak: no job without its delivery (every webhook job came from one)" 0 \
	"$(dbq "SELECT COUNT(*) FROM job j WHERE j.trigger = 'webhook' AND NOT EXISTS (SELECT 1 FROM delivery d WHERE d.job_id = j.id)")"
# a replay is answered with the first delivery's job, and queues nothing
bad_replays=$(jq -r 'select(.kind == "replay" and .status != 0) | "\(.delivery) \(.job) \(.status)"' "$req" |
	while read -r d j s; do
		first=$(awk -v d="$d" '$1 == d { print $2 }' "$tmp/recorded")
		[ "$s" = 200 ] && [ "$j" = "$first" ] || echo "$d:$s:$j:$first"
	done | head -n 3)
expect_eq "soak: every answered replay got 200 and its first job" "" "$bad_replays"
expect_eq "soak: no request with a wrong signature accepted (all 401 or refused)" "" \
	"$(jq -r 'select(.kind == "unsigned" and .status != 401 and .status != 0) | .status' "$req" | sort -u | tr '\n' ' ')"
expect_eq "soak: no oversized body accepted (all 413 or refused)" "" \
	"$(jq -r 'select(.kind == "oversized" and .status != 413 and .status != 0) | .status' "$req" | sort -u | tr '\n' ' ')"
expect_eq "soak: every job ended with its run, superseded, or failed with its error" 0 \
	"$(dbq "SELECT COUNT(*) FROM job WHERE NOT ((state = 'done' AND run_id IS NOT NULL) OR state = 'superseded' OR (state = 'failed' AND error IS NOT NULL))")"
runs=$(dbq "SELECT COUNT(*) FROM run WHERE verdict IN ('pass', 'drop')")
received=$(cat "$tmp/received"/*.json 2>/dev/null | jq -r .run | sort)
expect_eq "soak: every run's notification arrived exactly once" \
	"$(dbq "SELECT id FROM run WHERE verdict IN ('pass', 'drop') ORDER BY id" | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$received" | sort | tr '\n' ' ')"
expect_eq "soak: no run left 'running' by a kill without being closed" 0 \
	"$(dbq "SELECT COUNT(*) FROM run WHERE verdict = 'running'")"
expect_eq "soak: the database is intact" ok "$(dbq 'PRAGMA integrity_check')"

jobs=$(dbq "SELECT COUNT(*) FROM job")
states=$(dbq "SELECT group_concat(n || ' ' || state, ', ') FROM (SELECT state, COUNT(*) n FROM job GROUP BY state)")
notified=$(ls "$tmp/received" | wc -l)

# Memory: RSS after 100 more webhooks, then after 1,000 more, one daemon.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status"; }
python3 "$top/tests/tools/soak-client.py" "$base" "$secret" "$queues" 100 2 4 8192 "$tmp/warm.jsonl"
rss_first=$(rss)
python3 "$top/tests/tools/soak-client.py" "$base" "$secret" "$queues" 1000 20 16 8192 "$tmp/more.jsonl"
rss_last=$(rss)
# ASan keeps freed memory in quarantine (256 MB): its RSS grows by design
if [[ $gate == */asan/* ]]; then
	echo "# soak: RSS not compared: the ASan build keeps freed memory in quarantine"
else
	expect_eq "soak: RSS after 1,000 more webhooks within 20% of RSS after the first 100" yes \
		"$(awk -v a="$rss_first" -v b="$rss_last" 'BEGIN { print (b <= a * 1.2 && b >= a * 0.8) ? "yes" : "no" }')"
fi

latency=$(jq -s '[.[] | select(.status != 0) | .seconds] | sort |
	"p50 \(.[length / 2 | floor] * 10000 | floor / 10) ms, p99 \(.[length * 99 / 100 | floor] * 10000 | floor / 10) ms"' -r "$req")
echo "# soak: $total requests in ${seconds} s from $clients clients, $kills kills;" \
	"$accepted accepted, $refused refused while the daemon was down;" \
	"$jobs jobs ($states), $runs runs, $notified notifications; duplicates 0, lost 0 when the checks above pass"
echo "# soak: webhook latency $latency; RSS ${rss_first} KiB after 100, ${rss_last} KiB after 1,100"
