#!/bin/bash
# The second branch Debian 12 packages, for real (make branch-6.12; not
# part of make check: a cold 6.12 tree costs an extraction, an import and
# a full build, about 6 minutes on 2 cores). On linux-source-6.12: base
# passes the suite; the 2019 change ported to 6.12 (patches/6.12) fails
# exactly the cases it fails on 6.1, and its revert restores them; the
# sample queue's queue-6.12 gets the port dropped for regression, and the
# reverted sample passes. Then the daemon gates both branches from one
# push, locally and through a two-node Slurm cluster, where the two
# branches' steps run at the same time. The phases' times are printed for
# the notes.
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
printf '%s\n' "$err" | grep -E '^# (extract|import|build|config)' | awk 'NR <= 4 || /in [0-9]+ s|built/' | sed 's/^/# progress: /'
expect_contains "6.12 base: every case passes" "fail:0 quirk-changed:0 error:0" "$out"
expect_contains "6.12 base: the case whose answer changed in 6.8 expects 6.8's (EACCES)" \
	"is at or after 6.8, where execve opens the file before it counts the arguments: expecting the new result" \
	"$(printf '%s\n' "$out" | grep '^# version quirk-not-executable-argv-too-long: 6\.12\.')"
[ "$status" -eq 0 ] || printf '%s\n' "$err" | tail -n 15 | sed 's/^/# /'

phase "6.12 base + the port" "$run" --tree linux-source-6.12 --patches "$top/patches/6.12" --upto 1
expect_eq "6.12 + port: exit status" 1 "$status"
expect_eq "6.12 + port: exactly the truncated lines that used to run fail, as on 6.1" \
	"exact-trunc-arg exact-trunc-whitespace nixos-2019 test.pl" "$(failed_cases)"
# kbuild records savedcmd_ lines since 6.3: the quick build reads them too
expect_contains "6.12 + port: one object compiled again and relinked without make's walk" \
	"# build: quick: 1 object reads the changed files; compiled again and relinked without make" "$err"

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

# The daemon with both branches of one stable-queue repository: two
# [queue] sections on one url, the tree following each one's series
# folder. One GitHub push queues a job for each; each drops its branch's
# change for regression, and the history tells the branches apart.
repo=$tmp/stable-queue
mkdir -p "$repo"
cp -r "$queues/shebang-2019/queue-6.1" "$queues/shebang-2019/queue-6.12" "$repo/"
git -C "$repo" init -q -b master
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "6.1 and 6.12 candidates"
port_no=$(free_port)
base=http://127.0.0.1:$port_no
secret=s3cret
kcache=${kdir%/linux-6.12}
{
	printf '[server]\n\tlisten = 127.0.0.1:%s\n\tdatabase = %s\n\tcache = %s\n\tworkers = 2\n' \
		"$port_no" "$tmp/daemon.db" "$kcache"
	for v in 6.1 6.12; do
		printf '[queue "stable-%s"]\n\turl = %s\n\tseries = queue-%s\n' "$v" "$repo" "$v"
		printf '\tconfig-check = none\n\tpoll = 0\n\tsecret = %s\n' "$secret"
	done
} >"$tmp/gate.conf"
daemon=
trap 'kill "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
push=$(jq -cn --arg url "$repo" --arg after "$(git -C "$repo" rev-parse HEAD)" \
	'{ref: "refs/heads/master", after: $after, repository: {clone_url: $url, full_name: "t/stable-queue"}}')
# push_branches DELIVERY SECONDS: the push to the daemon at $base, then
# waits for both jobs; sets code (the answer in $tmp/DELIVERY.json),
# job61 and job612, and prints the time to both verdicts.
push_branches() {
	local start
	start=$(date +%s)
	code=$(curl -s -o "$tmp/$1.json" -w '%{http_code}' -X POST -H 'X-GitHub-Event: push' \
		-H "X-GitHub-Delivery: $1" -H "X-Hub-Signature-256: sha256=$(sign "$push" "$secret")" \
		-H 'Content-Type: application/json' --data-binary "$push" "$base/webhook")
	read -r job61 job612 <<<"$(jq -r '[.jobs[].job] | join(" ")' "$tmp/$1.json")"
	wait_for "$2" eval '[ "$(field "$job61" state)" = done ] && [ "$(field "$job612" state)" = done ]'
	echo "# $1: the push's two jobs: $(($(date +%s) - start)) s to both verdicts"
}
field() { curl -s "$base/api/jobs/$1" | jq -r ".$2"; }
# branch_verdicts DB: QUEUE:BRANCH:VERDICT of the two jobs' runs
branch_verdicts() {
	sqlite3 "$1" "SELECT group_concat(job.queue || ':' || run.base || ':' || run.verdict, ' ') FROM job JOIN run ON run.id = job.run_id WHERE job.id IN ($job61, $job612) ORDER BY job.id" |
		sed -E 's/:(6\.[0-9]+)\.[0-9]+:/:\1:/g'
}
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || fail "the daemon answers"
push_branches branches-1 1800
expect_eq "one push: a job for each branch's queue" '202 stable-6.1 stable-6.12' \
	"$code $(jq -r '[.jobs[].queue] | join(" ")' "$tmp/branches-1.json")"
expect_eq "both branches' jobs end with a verdict" "done done" "$(field "$job61" state) $(field "$job612" state)"
expect_eq "each branch gated on its own tree, each dropping its change" \
	"stable-6.1:6.1:drop stable-6.12:6.12:drop" "$(branch_verdicts "$tmp/daemon.db")"
for v in 6.1 6.12; do
	expect_eq "history --runs --branch $v: only the run of queue-$v" "queue-$v" \
		"$("$gate" history --db "$tmp/daemon.db" --runs --branch "$v" --json | jq -r '[.runs[].queue] | join(" ")')"
	expect_eq "/api/runs?branch=$v: only the run of queue-$v" "queue-$v" \
		"$(curl -s "$base/api/runs?branch=$v" | jq -r '[.runs[].queue] | join(" ")')"
done
expect_eq "history --patch: the change is dropped on both branches, each in its own run" \
	"6.1 drop regression queue-6.1;6.12 drop regression queue-6.12" \
	"$("$gate" history --db "$tmp/daemon.db" --patch 8099b047ecc4 --json |
		jq -r '[.branches[] | "\(.branch) \(.status) \(.reason) \(.queue)"] | join(";")')"
kill -TERM "$daemon"
wait "$daemon" 2>/dev/null
daemon=

# The same push through a two-node Slurm cluster (issue 20): the two
# branches' runs go on at once in the daemon's two workers, each one's
# steps are Slurm jobs, and jobs of both runs are on the cluster at the
# same time. The nodes' cache is <cache>-node (tests/slurm.sh's for 6.1;
# 6.12 is built there the first time, about 3 minutes more).
cluster=$top/tools/slurm-cluster
export SLURM_CLUSTER_DIR=$tmp/cluster
chmod a+x "$tmp"
SLURM_CLUSTER_PORT=$(free_ports 3)
export SLURM_CLUSTER_PORT
trap '"$cluster" stop >/dev/null 2>&1; kill "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
status=0
SLURM_CLUSTER_NODES=2 "$cluster" start >/dev/null 2>"$tmp/cluster.err" || status=$?
expect_eq "a two-node Slurm cluster starts" 0 "$status"
[ "$status" -eq 0 ] || sed 's/^/# /' "$tmp/cluster.err"
. "$SLURM_CLUSTER_DIR/env"
port_no=$(free_port)
base=http://127.0.0.1:$port_no
{
	sed -e "s|^\tlisten = .*|\tlisten = 127.0.0.1:$port_no|" \
		-e "s|^\tdatabase = .*|\tdatabase = $tmp/slurm.db|" "$tmp/gate.conf"
	printf '[executor]\n\tkind = slurm\n\tpartition = gate\n\ttime-limit = 30m\n\tcpus = 2\n'
	printf '\tmemory = 2G\n\tnode-cache = %s-node\n\tspool = %s/spool\n' "$kcache" "$tmp"
} >"$tmp/slurm.conf"
start_daemon "$tmp/slurm.conf" "$tmp/slurm-serve.log" "$base" || fail "the daemon with the Slurm executor answers"
push_branches branches-slurm 2400
expect_eq "through Slurm: one push, a job for each branch's queue" '202 stable-6.1 stable-6.12' \
	"$code $(jq -r '[.jobs[].queue] | join(" ")' "$tmp/branches-slurm.json")"
expect_eq "through Slurm: each branch gated on its own tree, each dropping its change" \
	"stable-6.1:6.1:drop stable-6.12:6.12:drop" "$(branch_verdicts "$tmp/slurm.db")"
slurm_jobs() { # JOB: the Slurm jobs of the daemon job's run
	"$gate" report "$(sqlite3 "$tmp/slurm.db" "SELECT run_id FROM job WHERE id = $1")" \
		--db "$tmp/slurm.db" --json | jq -r '.steps[].attempts[].slurm_job'
}
overlap=no
for a in $(slurm_jobs "$job61"); do
	read -r a0 a1 <<<"$(job_span "$SLURM_CLUSTER_DIR/jobcomp.log" "$a")"
	for b in $(slurm_jobs "$job612"); do
		read -r b0 b1 <<<"$(job_span "$SLURM_CLUSTER_DIR/jobcomp.log" "$b")"
		[ "$a0" -lt "$b1" ] && [ "$b0" -lt "$a1" ] && overlap="yes: job $a (6.1) and job $b (6.12)"
	done
done
expect_contains "through Slurm: steps of both branches ran on the cluster at the same time" "yes" "$overlap"
echo "# overlap: $overlap; nodes used: $(grep -o 'NodeList=[^ ]*' "$SLURM_CLUSTER_DIR/jobcomp.log" | sort | uniq -c | tr -s ' ' | paste -sd,)"
kill -TERM "$daemon"
wait "$daemon" 2>/dev/null
daemon=
