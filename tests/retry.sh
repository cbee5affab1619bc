#!/bin/bash
# Retries that match the fault (record/jobs.h), black-box and fast: a
# queue whose repository is gone makes every attempt end without a
# verdict. With retry-max = 8s, the first failure queues the job again,
# due at the ceiling (8 s, not the 30 s first wait), and /api/jobs/ID and
# the page say when and why; the try at the ceiling fails too, and the job
# ends failed with its last error, after 2 attempts, not 3.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
port=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-tests

cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/gate.db
	retry-max = 8s
[queue "gone"]
	url = $tmp/no-such-queue
	poll = 0
	secret = $secret
CONF
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || { fail "the daemon answers"; exit 1; }
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
body='{"queue": "gone"}'
job=$(curl -s -X POST -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" \
	-H 'Content-Type: application/json' -d "$body" "$base/webhook" | jq -r .job)
wait_for 20 grep -q "^job $job: no verdict" "$tmp/serve.log" || fail "the first attempt ends"
json=$(curl -s "$base/api/jobs/$job")
first=$(jq -r .first_failed_at <<<"$json")
due=$(date -u -d "@$(($(date -u -d "$first" +%s) + 8))" +%Y-%m-%dT%H:%M:%SZ)
reason="queue gone: $tmp/no-such-queue: No such file or directory"
expect_eq "first failure: queued again, due at retry-max after it, and why" \
	"queued 1 $due $reason" "$(jq -r '"\(.state) \(.attempts) \(.next_try_at) \(.error)"' <<<"$json")"
expect_contains "first failure: the page says when and why" \
	"next try at $due (attempt 2): $reason" "$(curl -s "$base/")"
wait_for 30 eval '[ "$(curl -s "$base/api/jobs/$job" | jq -r .state)" = failed ]'
expect_eq "past retry-max: failed after the try at the ceiling, with its last error, no next try" \
	"failed 2 null $reason" \
	"$(curl -s "$base/api/jobs/$job" | jq -r '"\(.state) \(.attempts) \(.next_try_at) \(.error)"')"
expect_eq "the second try came at the ceiling, not before" 1 \
	"$(sqlite3 "$tmp/gate.db" "SELECT strftime('%s', started_at) >= strftime('%s', first_failed_at) + 8 FROM job WHERE id = $job")"
expect_eq "the page no longer shows a next try" 0 "$(curl -s "$base/" | grep -c 'next try at')"
