#!/bin/bash
# The daemon's workers ([server] workers, issue 19 item 2), black-box: a
# real daemon with four workers and three queues. "hang" is fetched from
# a server that accepts and never answers; "a" and "b" are one repository
# served by git daemon (git://), so their two fetches meet in one clone.
# While the test holds the tree's cache lock, a and b start anyway (a
# worker stays free for other trees) and say on /api/jobs that they wait
# for it; once it is released they get their verdicts one after the
# other, while hang's fetch still hangs: a hanging fetch holds one worker,
# not the daemon. Then the fetch times out and hang is retried; the
# database is intact.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
cache=${BG_CACHE:-/var/cache/backport-gate}
port=$(free_port)
gport=$(free_port)
hport=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-tests
fetch_timeout=90

# One repository in stable-queue layout: two benign 6.1 backports.
repo=$tmp/git/stable-queue
benign_queue_repo "$repo"

queue_conf() { # NAME URL
	printf '[queue "%s"]\n\turl = %s\n\tseries = queue-6.1\n\tconfig-check = none\n' "$1" "$2"
	printf '\tpoll = 0\n\tsecret = %s\n' "$secret"
}
{
	printf '[server]\n\tlisten = 127.0.0.1:%s\n\tdatabase = %s\n\tcache = %s\n\tworkers = 4\n' \
		"$port" "$tmp/gate.db" "$cache"
	queue_conf hang "http://127.0.0.1:$hport/stable-queue.git"
	queue_conf a "git://127.0.0.1:$gport/stable-queue"
	queue_conf b "git://127.0.0.1:$gport/stable-queue"
} >"$tmp/gate.conf"

out=$("$gate" serve --check --config "$tmp/gate.conf" 2>&1)
expect_contains "serve --check: says how many workers" "3 queues, listen 127.0.0.1:$port, database $tmp/gate.db, 4 workers" "$out"
sed 's/workers = 4/workers = 17/' "$tmp/gate.conf" >"$tmp/bad.conf"
status=0
out=$("$gate" serve --check --config "$tmp/bad.conf" 2>&1) || status=$?
expect_eq "serve --check: 17 workers refused, with the bounds" \
	"2 backport-gate serve: $tmp/bad.conf:5: server.workers: '17' is not a number of workers (1 to 16)" \
	"$status $out"

git daemon --reuseaddr --export-all --base-path="$tmp/git" --listen=127.0.0.1 --port="$gport" \
	"$tmp/git" >"$tmp/git-daemon.log" 2>&1 &
gitd=$!
"$top/tests/tools/tarpit" "$hport" "$tmp/tarpit.log" &
tarpit=$!
holder=
cleanup() {
	kill "$daemon" "$gitd" "$tarpit" $holder 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for 10 grep -qs listening "$tmp/tarpit.log" || fail "the tarpit listens"

# The tree's cache, prepared, and its lock held by the test, as by another run.
"$gate" prepare --cache "$cache" >"$tmp/prepare.log" 2>&1 || fail "prepare: $(tail -n 1 "$tmp/prepare.log")"
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
time.sleep(600)' "$cache/linux-6.1/lock" &
holder=$!
wait_for 5 eval '! flock -n "$cache/linux-6.1/lock" true' || fail "the test holds the cache lock"

start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" BG_PROGRESS_INTERVAL=1 \
	BG_FETCH_TIMEOUT=$fetch_timeout || { fail "the daemon answers"; exit 1; }
hook() { # QUEUE: the job id
	local body="{\"queue\": \"$1\"}"
	curl -s -X POST -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" \
		-H 'Content-Type: application/json' -d "$body" "$base/webhook" | jq -r .job
}
job_hang=$(hook hang)
wait_for 10 grep -qs "accepted 1" "$tmp/tarpit.log" || fail "hang's fetch reached the tarpit"
job_a=$(hook a)
job_b=$(hook b)
field() { curl -s "$base/api/jobs/$1" | jq -r ".$2"; }
wait_for 30 eval '[[ "$(field "$job_a" progress)" == "cache held by"* && "$(field "$job_b" progress)" == "cache held by"* ]]'
expect_eq "three queues' jobs run at once: hang fetching, a and b waiting for the tree" \
	"running running running" "$(field "$job_hang" state) $(field "$job_a" state) $(field "$job_b" state)"
expect_contains "a's job says on /api/jobs that another run holds its cache" \
	"cache held by 1 other run" "$(field "$job_a" progress)"
expect_eq "the log counts the workers" 1 "$(grep -c "job $job_b: started worker [0-9]* (3 of 4 running)" "$tmp/serve.log")"
expect_contains "the job's log names the lock it waits for" \
	"cache: $cache/linux-6.1/lock is held by another run; waiting for it" "$(cat "$tmp/serve.log")"
clone=$cache/queues/$(printf %s "git://127.0.0.1:$gport/stable-queue" | sha256sum | cut -c1-16).git
expect_eq "a and b fetched one repository at once into one clone, nothing half-made left" "yes no" \
	"$([ -d "$clone" ] && echo yes || echo no) $([ -e "$clone.tmp" ] && echo yes || echo no)"

kill "$holder"
wait "$holder" 2>/dev/null
holder=
wait_for 300 eval '[ "$(field "$job_a" state)" = done ] && [ "$(field "$job_b" state)" = done ]'
expect_eq "a and b get their verdicts while hang's fetch still hangs" "done done running" \
	"$(field "$job_a" state) $(field "$job_b" state) $(field "$job_hang" state)"
verdicts=$(sqlite3 "$tmp/gate.db" "SELECT group_concat(job.queue || ':' || run.verdict, ' ') FROM job JOIN run ON run.id = job.run_id WHERE job.id IN ($job_a, $job_b) ORDER BY job.id")
expect_eq "both verdicts recorded: every patch kept" "a:pass b:pass" "$verdicts"
expect_eq "the two builds took the lock in turn (one run said it waited for the other)" 1 \
	"$(grep -c 'cache held by 1 other run in' "$tmp/serve.log" | awk '{print ($1 >= 2)}')"

# One GitHub push to the repository a and b share queues a job for each,
# as one push to stable-queue gates queue-6.1 and queue-6.12; its
# redelivery queues nothing more.
head=$(git -C "$repo" rev-parse HEAD)
push=$(jq -cn --arg url "git://127.0.0.1:$gport/stable-queue" --arg after "$head" \
	'{ref: "refs/heads/master", after: $after, repository: {clone_url: $url, full_name: "t/stable-queue"}}')
github_push() { # prints "STATUS BODY"
	local code
	code=$(curl -s -o "$tmp/push.json" -w '%{http_code}' -X POST -H 'X-GitHub-Event: push' \
		-H 'X-GitHub-Delivery: push-1' -H "X-Hub-Signature-256: sha256=$(sign "$push" "$secret")" \
		-H 'Content-Type: application/json' --data-binary "$push" "$base/webhook")
	echo "$code $(jq -c '[.jobs[] | "\(.queue) \(.duplicate)"]' "$tmp/push.json")"
}
expect_eq "one push to the shared repository: a job for a and one for b" \
	'202 ["a false","b false"]' "$(github_push)"
push_jobs=$(jq -r '[.jobs[].job] | join(" ")' "$tmp/push.json")
expect_eq "the push's redelivery: the same two jobs, nothing queued" \
	"200 [\"a true\",\"b true\"] $push_jobs" "$(github_push) $(jq -r '[.jobs[].job] | join(" ")' "$tmp/push.json")"
read -r push_a push_b <<<"$push_jobs"
wait_for 300 eval '[ "$(field "$push_a" state)" = done ] && [ "$(field "$push_b" state)" = done ]'
expect_eq "both jobs of the push end with a verdict" "done done" \
	"$(field "$push_a" state) $(field "$push_b" state)"

wait_for $((fetch_timeout + 20)) eval '[ "$(field "$job_hang" state)" = queued ]'
expect_contains "hang: its fetch timed out after BG_FETCH_TIMEOUT, and it waits to be retried" \
	"fetch timed out after $fetch_timeout s" "$(field "$job_hang" error)"
expect_eq "the database is intact" ok "$(sqlite3 "$tmp/gate.db" 'PRAGMA integrity_check')"
kill -TERM "$daemon"
wait "$daemon" 2>/dev/null
daemon=
