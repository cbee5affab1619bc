#!/bin/bash
# backport-gate serve, black-box: a real daemon on loopback with a
# temporary configuration and database, driven with curl as a CI system
# would (signed, unsigned, replayed, oversized, unknown queue), every API
# endpoint queried, the verdict received by a local HTTP receiver that fails
# at first, and a kill -9 in the middle of a job.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
port=$((20000 + $$ % 20000))
rport=$((port + 1))
base=http://127.0.0.1:$port
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch
secret=s3cret-for-tests

# The queue: a git repository in stable-queue layout.
repo=$tmp/stable-queue
mkdir -p "$repo"
git -C "$repo" init -q -b master
cp -r "$top/patches/queues/shebang-2019/queue-6.1" "$repo/"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1"

cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/gate.db
	max-body = 4096
[queue "stable-6.1"]
	config-check = none
	url = $repo
	poll = 0
	secret = $secret
	notify = http://127.0.0.1:$rport/hook
CONF

status=0
out=$("$gate" serve --check --config "$tmp/gate.conf" 2>&1) || status=$?
expect_eq "serve --check: a good configuration" 0 "$status"
expect_contains "serve --check: says what it found" "ok, 1 queue, listen 127.0.0.1:$port" "$out"
printf '[server]\n\tlisten = 127.0.0.1:8080\n[queue "q"]\n\turl = /srv/q\n\tpoll = often\n' >"$tmp/bad.conf"
status=0
out=$("$gate" serve --check --config "$tmp/bad.conf" 2>&1) || status=$?
expect_eq "serve --check: a bad value exits 2" 2 "$status"
expect_eq "serve --check: names file, line and key" \
	"backport-gate serve: $tmp/bad.conf:5: queue.q.poll: 'often' is not a number of seconds (0 to 604800)" "$out"

mkdir -p "$tmp/received"
python3 "$top/tests/tools/receiver.py" "$rport" "$tmp/received" 2 2>"$tmp/receiver.log" &
receiver=$!
cleanup() {
	kill "$daemon" "$receiver" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# A line of progress every second (not 5), so that a build of a second or more shows in /api/jobs.
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" BG_PROGRESS_INTERVAL=1 ||
	fail "the daemon listens on $base"

get_status() { # path: prints "STATUS ERROR-MESSAGE"
	local code
	code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$base$1")
	echo "$code $(jq -r .error "$tmp/resp")"
}
expect_eq "GET /api/runs?limit=abc: 400 naming the parameter" "400 limit: 'abc' is not a count" \
	"$(get_status '/api/runs?limit=abc')"
expect_eq "GET /api/runs?offset=-1: 400 naming the parameter" "400 offset: '-1' is not a count" \
	"$(get_status '/api/runs?offset=-1')"
expect_eq "GET /api/runs?branch=6.1.192: 400, a branch is MAJOR.MINOR" \
	"400 branch: '6.1.192' is not a stable branch (MAJOR.MINOR, such as 6.1 or 6.12)" \
	"$(get_status '/api/runs?branch=6.1.192')"
expect_eq "GET /api/runs?limit=0: 400, as the CLI refuses it" "400 limit: 0 runs is no answer (1 to 500)" \
	"$(get_status '/api/runs?limit=0')"
expect_eq "GET /api/runs?limit=2&offset=0: an empty page" "0 2 0" \
	"$(curl -s "$base/api/runs?limit=2&offset=0" | jq -r '"\(.total) \(.limit) \(.offset)"')"

post() { # body [curl args...]: prints "STATUS BODY"
	local body=$1
	shift
	curl -s -o "$tmp/resp" -w '%{http_code}' -X POST --data-binary "$body" "$@" "$base/webhook"
}

body='{"queue": "stable-6.1"}'
expect_eq "webhook unsigned: 401" 401 "$(post "$body")"
expect_eq "webhook wrong signature: 401" 401 \
	"$(post "$body" -H "X-Hub-Signature-256: sha256=$(sign "$body" wrong)")"
name=$(basename "$(dirname "$repo")")/$(basename "$repo")
push=$(jq -cn --arg n "$name" '{object_kind: "push", ref: "refs/heads/master",
	after: "0123456789abcdef0123456789abcdef01234567",
	project: {path_with_namespace: $n, git_http_url: ("https://gitlab.example.org/" + $n + ".git")}}')
expect_eq "webhook GitLab push with a wrong token: 401" 401 \
	"$(post "$push" -H "X-Gitlab-Token: wrong" -H "X-Gitlab-Event: Push Hook")"
big=$(head -c 8000 /dev/zero | tr '\0' 'x')
expect_eq "webhook over max-body: 413" 413 \
	"$(post "{\"queue\": \"$big\"}" -H "X-Hub-Signature-256: sha256=$(sign "$big" "$secret")")"
other='{"queue": "stable-5.15"}'
expect_eq "webhook for an unknown queue: 404" 404 \
	"$(post "$other" -H "X-Hub-Signature-256: sha256=$(sign "$other" "$secret")")"
expect_eq "webhook that is not JSON: 400" 400 \
	"$(post 'not json' -H "X-Hub-Signature-256: sha256=$(sign 'not json' "$secret")")"
expect_eq "nothing was queued by refused webhooks" 0 \
	"$(sqlite3 "$tmp/gate.db" 'SELECT COUNT(*) FROM job')"

code=$(curl -s -D "$tmp/headers" -o "$tmp/resp" -w '%{http_code}' -X POST --data-binary "$body" \
	-H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" -H "X-GitHub-Delivery: delivery-1" \
	"$base/webhook")
expect_eq "signed webhook: 202" 202 "$code"
job=$(jq -r .job "$tmp/resp")
expect_contains "signed webhook: Location of the job" "Location: /api/jobs/$job" "$(tr -d '\r' <"$tmp/headers")"
expect_eq "replayed delivery: 200, same job" "200 $job true" \
	"$(post "$body" -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" -H "X-GitHub-Delivery: delivery-1") $(jq -r '"\(.job) \(.duplicate)"' "$tmp/resp")"
expect_eq "replayed delivery: still one job" 1 "$(sqlite3 "$tmp/gate.db" 'SELECT COUNT(*) FROM job')"
# While that job runs: a GitLab push for the same repository, then a newer
# request, which supersedes the one still waiting.
for _ in $(seq 100); do
	[ "$(curl -s "$base/api/jobs/$job" | jq -r .state)" = running ] && break
	sleep 0.1
done
gitlab=$(post "$push" -H "X-Gitlab-Token: $secret" -H "X-Gitlab-Event: Push Hook" \
	-H "X-Gitlab-Event-UUID: delivery-2")
expect_eq "GitLab push with the token: accepted" 202 "$gitlab"
waiting=$(jq -r .job "$tmp/resp")
post "$body" -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" >/dev/null
expect_eq "a newer request supersedes the queued one" superseded \
	"$(sqlite3 "$tmp/gate.db" "SELECT state FROM job WHERE id = $waiting")"

wait_job() { # id: waits for a final state, prints it
	local state
	for _ in $(seq 900); do
		state=$(curl -s "$base/api/jobs/$1" | jq -r .state)
		case $state in done|failed) echo "$state"; return ;; esac
		sleep 1
	done
	echo "timeout ($state)"
}
start=$(date +%s)
kill -HUP "$daemon"	# a reload must not drop the running job
sleep 0.5
expect_contains "SIGHUP: the configuration is reloaded" "reloaded $tmp/gate.conf: 1 queues" "$(cat "$tmp/serve.log")"
# While it runs: its worker's phase in /api/jobs/ID and on the page.
api_progress= page_progress=
for _ in $(seq 3000); do
	curl -s "$base/api/jobs/$job" >"$tmp/job.json"
	[ "$(jq -r .state "$tmp/job.json")" = running ] || break
	[ -n "$api_progress" ] || api_progress=$(jq -r '.progress // empty' "$tmp/job.json")
	[ -n "$page_progress" ] ||
		page_progress=$(curl -s "$base/" | sed -n 's/.*<p class="progress">Running: \([^<]*\)<.*/\1/p')
	[ -n "$api_progress" ] && [ -n "$page_progress" ] && break
	sleep 0.2
done
progress_re='^(extract|import) [0-9]+(/[0-9]+)? files|^build [0-9]+(/[0-9]+)? objects'
[[ $api_progress =~ $progress_re ]] && pass "GET /api/jobs/{id}: the running job's progress ($api_progress)" ||
	fail "GET /api/jobs/{id}: expected a running job's progress ('build N objects ...'), got '$api_progress'"
[[ $page_progress =~ $progress_re ]] && pass "GET /: the running job's progress ($page_progress)" ||
	fail "GET /: expected 'Running: build N objects ...' for the running job, got '$page_progress'"
state=$(wait_job "$job")
expect_eq "the job ends with a verdict" done "$state"
expect_eq "GET /api/jobs/{id}: no progress once done" null \
	"$(curl -s "$base/api/jobs/$job" | jq -r .progress)"
echo "# job $job took $(($(date +%s) - start)) s"
run=$(curl -s "$base/api/jobs/$job" | jq -r .run)

expect_eq "GET /api/runs/{id}: the report, 2019 change dropped" "drop $culprit" \
	"$(curl -s "$base/api/runs/$run" | jq -r '"\(.verdict) \(.drop | join(" "))"')"
expect_eq "GET /api/runs?verdict=drop: lists it, on branch 6.1" "$run 6.1" \
	"$(curl -s "$base/api/runs?verdict=drop" | jq -r '.runs[0] | "\(.run) \(.branch)"')"
expect_eq "GET /api/runs?verdict=pass: not there" 0 \
	"$(curl -s "$base/api/runs?verdict=pass" | jq -r '.runs | length')"
expect_eq "GET /api/patches/{sha}: its verdict, its base and branch" "drop regression 6.1.192 6.1" \
	"$(curl -s "$base/api/patches/8099b047ecc4" | jq -r '.verdicts[0] | "\(.status) \(.reason) \(.base) \(.branch)"')"
expect_eq "GET /api/patches/{sha}: judged on one branch, 6.1" "6.1 drop regression run $run" \
	"$(curl -s "$base/api/patches/8099b047ecc4" |
		jq -r '[.branches[] | "\(.branch) \(.status) \(.reason) run \(.run)"] | join("; ")')"
expect_eq "GET /api/patches/{file name}: the same" "drop" \
	"$(curl -s "$base/api/patches/$culprit" | jq -r '.verdicts[0].status')"
expect_eq "GET /api/cases/test.pl: regressed, by which patch" "regressed $culprit" \
	"$(curl -s "$base/api/cases/test.pl" | jq -r '.runs[0] | "\(.outcome) \(.patches | join(" "))"')"
expect_eq "GET /api/regressions: open for the queue on 6.1" "6.1 $culprit" \
	"$(curl -s "$base/api/regressions" | jq -r '[.queues[] | .branch as $b | .open[] | "\($b) \(.patch)"] | join(" ")')"
expect_eq "GET /api/nothing: 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/nothing")"
page=$(curl -s "$base/")
expect_contains "GET /: the queue's verdict" "<strong>DROP</strong>, 1 of 6 patches to drop" "$page"
expect_contains "GET /: the queue's row on branch 6.1" \
	"<td>6.1</td><td><a href=\"/runs/$run\">$run</a></td><td>drop</td><td>6.1.192</td><td>1</td></tr>" "$page"
expect_contains "GET /: the dropped patch links to its page" \
	"<a href=\"/patches/$culprit\">$culprit</a>" "$page"

# The receiver answers 503 twice, then 200: the outbox retries with backoff.
for _ in $(seq 60); do
	[ -f "$tmp/received/1.json" ] && break
	sleep 1
done
expect_eq "notification: the report arrived after two failures" "$run drop" \
	"$(jq -r '"\(.run) \(.verdict)"' "$tmp/received/1.json" 2>/dev/null)"
sleep 3
expect_eq "notification: exactly once" 1 "$(ls "$tmp/received" | wc -l)"
expect_eq "notification: the outbox says sent after 3 attempts" "sent 3" \
	"$(sqlite3 "$tmp/gate.db" "SELECT state, attempts FROM outbox WHERE run_id = $run" | tr '|' ' ')"

# kill -9 in the middle of a job: a new snapshot of the queue, then the
# daemon dies while its worker builds; after a restart the job runs again.
cp "$top/patches/queues/shebang-2019-reverted/queue-6.1/"* "$repo/queue-6.1/"
cp "$top/tests/data/patches/exit-comment/exit-reword-the-oops-limit-comment.patch" "$repo/queue-6.1/"
echo exit-reword-the-oops-limit-comment.patch >>"$repo/queue-6.1/series"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1: the revert"
body='{"queue": "stable-6.1"}'
for _ in $(seq 60); do	# the superseding job gated the same snapshot again: wait for it
	[ -z "$(sqlite3 "$tmp/gate.db" "SELECT id FROM job WHERE state IN ('queued', 'running')")" ] && break
	sleep 0.5
done
expect_eq "the same snapshot again is one job: the newest reuses run $run" "done $run" \
	"$(sqlite3 "$tmp/gate.db" "SELECT state, run_id FROM job ORDER BY id DESC LIMIT 1" | tr '|' ' ')"
expect_eq "the same snapshot again: no second notification" 1 "$(ls "$tmp/received" | wc -l)"
builds_before=$(grep -c '^# building tree' "$tmp/serve.log")
post "$body" -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" -H "X-GitHub-Delivery: delivery-3" >/dev/null
job=$(jq -r .job "$tmp/resp")
# wait for the worker to start building the new tree, then kill
for _ in $(seq 300); do
	[ "$(grep -c '^# building tree' "$tmp/serve.log")" -gt "$builds_before" ] && break
	sleep 0.2
done
sleep 1
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
sleep 1
expect_eq "after kill -9: no verdict recorded for the job" "running " \
	"$(sqlite3 "$tmp/gate.db" "SELECT state, COALESCE(run_id, '') FROM job WHERE id = $job" | tr '|' ' ')"
expect_eq "after kill -9: the worker died with the daemon" "" \
	"$(pgrep -f -- "--config $tmp/gate.conf" || true)"
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || fail "the daemon restarts"
state=$(wait_job "$job")
expect_eq "after restart: the job ran again to a verdict" "done 2" \
	"$(curl -s "$base/api/jobs/$job" | jq -r '"\(.state) \(.attempts)"')"
expect_eq "after restart: nothing dropped with the revert" "pass" \
	"$(curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$job" | jq -r .run)" | jq -r .verdict)"
expect_eq "after restart: no run was left half-done" 0 \
	"$(sqlite3 "$tmp/gate.db" "SELECT COUNT(*) FROM run WHERE verdict = 'running'")"
# (an answer that lists no open regression, not an empty one)
expect_eq "after restart: the regression is closed" "queues: array, open: []" \
	"$(curl -s "$base/api/regressions" |
		jq -r '"queues: \(.queues | type), open: [\([.queues[].open[].patch] | join(" "))]"')"

# Polling: with poll = 2 after a reload, a new commit in the queue
# repository becomes a job and a verdict without any webhook; unchanged
# content between polls ends at once without a new run.
sed -i 's/^\tpoll = 0$/\tpoll = 2/' "$tmp/gate.conf"
kill -HUP "$daemon"
cp "$top/patches/queues/shebang-2019/queue-6.1/docs-binfmt-misc-replace-aka.patch" "$repo/queue-6.1/docs-again.patch"
sed -i 's/docs-binfmt-misc-replace-aka.patch/docs-again.patch/' "$repo/queue-6.1/docs-again.patch"
echo docs-again.patch >>"$repo/queue-6.1/series"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1: one more"
runs_before=$(sqlite3 "$tmp/gate.db" "SELECT COUNT(*) FROM run")
for _ in $(seq 120); do
	[ "$(sqlite3 "$tmp/gate.db" "SELECT COUNT(*) FROM run WHERE verdict IN ('pass', 'drop')")" -gt "$runs_before" ] && break
	sleep 1
done
expect_eq "poll: the new commit was gated without a webhook" "poll $(git -C "$repo" rev-parse HEAD)" \
	"$(sqlite3 "$tmp/gate.db" "SELECT trigger, commit_id FROM job WHERE run_id = (SELECT MAX(id) FROM run)" | head -1 | tr '|' ' ')"
sleep 6
expect_eq "poll: unchanged content makes no new run" "$((runs_before + 1))" \
	"$(sqlite3 "$tmp/gate.db" "SELECT COUNT(*) FROM run")"
expect_eq "poll: polls do not pile up" 1 \
	"$(sqlite3 "$tmp/gate.db" "SELECT COUNT(*) <= 1 FROM job WHERE state IN ('queued', 'running')")"

# A failed attempt is retried at its next_try_at (record/jobs.h: 30 s
# after the first failure, doubling after each further one), and the page
# and the API say when and why while it waits. Two jobs whose first
# attempts failed, as the daemon leaves them when a worker dies without a
# verdict: the one due 30 s ago runs at once, the one due in 30 s waits
# although it is the older job.
sed -i 's/^\tpoll = 2$/\tpoll = 0/' "$tmp/gate.conf"
kill "$daemon"
wait "$daemon" 2>/dev/null
failed_job() { # epoch the attempt ended -> the job's id
	sqlite3 "$tmp/gate.db" "INSERT INTO job (queue, trigger, state, attempts, error, started_at, finished_at,
			first_failed_at, next_try_at)
		VALUES ('stable-6.1', 'webhook', 'queued', 1, 'build: No space left on device',
			strftime('%Y-%m-%dT%H:%M:%SZ', $(($1 - 120)), 'unixepoch'),
			strftime('%Y-%m-%dT%H:%M:%SZ', $1, 'unixepoch'),
			strftime('%Y-%m-%dT%H:%M:%SZ', $1, 'unixepoch'),
			strftime('%Y-%m-%dT%H:%M:%SZ', $(($1 + 30)), 'unixepoch'));
		SELECT last_insert_rowid()"
}
ended=$(date +%s)
recent=$(failed_job "$ended")
earlier=$(failed_job "$((ended - 60))")
due=$(date -u -d "@$((ended + 30))" +%Y-%m-%dT%H:%M:%SZ)
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || fail "the daemon restarts"
expect_eq "retry: the API says when the waiting job's next try is due and why" \
	"queued $due build: No space left on device" \
	"$(curl -s "$base/api/jobs/$recent" | jq -r '"\(.state) \(.next_try_at) \(.error)"')"
expect_contains "retry: the page says when and why" \
	"next try at $due (attempt 2): build: No space left on device" "$(curl -s "$base/")"
expect_eq "retry: the job due 30 s ago runs again at once" "done 2" \
	"$(wait_job "$earlier") $(curl -s "$base/api/jobs/$earlier" | jq -r .attempts)"
waited=$(($(date +%s) - ended))
if [ "$waited" -lt 28 ]; then
	expect_eq "retry: the job not yet due still waits (checked ${waited} s after it failed)" "queued 1" \
		"$(curl -s "$base/api/jobs/$recent" | jq -r '"\(.state) \(.attempts)"')"
else
	fail "retry: the first job took $waited s, too long to see the second one wait"
fi
expect_eq "retry: the job not yet due runs again in the end" "done 2" \
	"$(wait_job "$recent") $(curl -s "$base/api/jobs/$recent" | jq -r .attempts)"
expect_eq "retry: it started at its next try, 30 to 40 s after its attempt ended" 1 \
	"$(sqlite3 "$tmp/gate.db" "SELECT strftime('%s', started_at) - $ended BETWEEN 30 AND 40 FROM job WHERE id = $recent")"
expect_eq "after the kill -9 and the retries: the database is intact (integrity_check)" ok \
	"$(sqlite3 "$tmp/gate.db" 'PRAGMA integrity_check')"
