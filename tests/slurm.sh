#!/bin/bash
# The Slurm executor (issue 20), black-box, on a one-node cluster that
# tools/slurm-cluster starts on loopback (Debian's munged, slurmctld and
# slurmd, with a config of their own). `run --config FILE` with
# [executor] kind = slurm gates the demo queue: every evaluation is a step
# run as a Slurm job on the node, in the node's own cache; the drop list
# and each patch's verdict are the local executor's; every step's job is
# in the report (steps[].slurm_job) and in the cluster's job completion
# log. The daemon gates it through the cluster too, four steps at once:
# the same verdicts in fewer rounds, while a second queue of the same tree
# starts beside it. Then the cluster has two nodes: one
# dies in the middle of a step's kernel build, Slurm ends that job
# NODE_FAIL, the gate submits the step again, it runs on the other node,
# and the verdict is still right; a node where the step itself fails is
# left out of that step's next attempt. Two queues of one branch gated at
# once have their steps on the cluster together. A gate stopped by SIGTERM
# cancels its job. A config the executor cannot use is refused, naming
# the key, and a controller that is gone ends the run without a verdict. The node's cache is kept between runs
# (<cache>-node), as a real node's would be; tests/progress.sh makes it
# from nothing first (cold, a node's first step extracts the tarball and
# builds base: about 4 minutes on 2 cores). About 4 minutes warm.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queues=$top/patches/queues
cache=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
cache=${cache:-/var/cache/backport-gate}
node_cache=$cache-node
cluster=$top/tools/slurm-cluster
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch
export SLURM_CLUSTER_DIR=$tmp/cluster
# munged wants every folder above its socket searchable by all.
chmod a+x "$tmp"

# slurmctld's port, and a slurmd's after it for each of up to two nodes
port=$(free_ports 3)
export SLURM_CLUSTER_PORT=$port
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

status=0
"$cluster" start >"$tmp/start.out" 2>"$tmp/start.err" || status=$?
expect_eq "a one-node cluster starts" 0 "$status"
if [ "$status" -ne 0 ]; then
	sed 's/^/# /' "$tmp/start.err"
	exit 0
fi
. "$SLURM_CLUSTER_DIR/env"
jobcomp=$SLURM_CLUSTER_DIR/jobcomp.log

cat >"$tmp/gate.conf" <<EOF
[executor]
	kind = slurm
	partition = gate
	time-limit = 30m
	cpus = 2
	memory = 2G
	retries = 2
	node-cache = $node_cache
	spool = $tmp/spool
EOF

# gate NAME ARGS...: run, report in $tmp/NAME.json, stderr in $tmp/NAME.err; sets status.
gate() {
	local name=$1
	shift
	status=0
	"$gate" run --config-check none --db "$tmp/$name.db" --json "$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" || status=$?
	[ "$status" -le 1 ] || sed 's/^/# /' "$tmp/$name.err" | tail -n 15
}
verdicts() { jq -r '[.patches[] | "\(.status)/\(.reason // "-")"] | join(" ")' "$tmp/$1.json"; }
drops() { jq -r '.drop | join(" ")' "$tmp/$1.json"; }

# The demo queue, locally and through the cluster, each with a new database.
gate local --queue "$queues/shebang-2019" --executor local
expect_eq "local executor: the demo queue drops the 2019 change (exit 1)" "1 $culprit" \
	"$status $(drops local)"
gate slurm --queue "$queues/shebang-2019" --config "$tmp/gate.conf"
expect_eq "slurm executor: exit 1, the same drop list" "1 $(drops local)" "$status $(drops slurm)"
expect_eq "slurm executor: every patch's verdict and reason are the local executor's" \
	"$(verdicts local)" "$(verdicts slurm)"
dropped() { jq -c '[.patches[] | select(.status == "drop") | {name, regressions, evidence}]' "$tmp/$1.json"; }
expect_eq "slurm executor: the same cases and evidence for the drop" "$(dropped local)" "$(dropped slurm)"
expect_eq "the report says which executor ran the steps" "local slurm" \
	"$(jq -r .stats.executor "$tmp/local.json") $(jq -r .stats.executor "$tmp/slurm.json")"
steps=$(jq '.steps | length' "$tmp/slurm.json")
expect_eq "every boot was a step on the node (steps = boots)" "$(jq .stats.boots "$tmp/slurm.json")" "$steps"
expect_eq "the local run has no Slurm steps" null "$(jq -c .steps "$tmp/local.json")"
expect_contains "the text report's cost says how the steps ran" \
	"on Slurm: $steps steps, 1 at once at most, $(jq .stats.rounds "$tmp/slurm.json") rounds" "$(cat "$tmp/slurm.out")"
jobs=$(jq -r '.steps[].slurm_job' "$tmp/slurm.json")
missing=0
for job in $jobs; do
	grep -q "^JobId=$job .* JobState=COMPLETED " "$jobcomp" || missing=$((missing + 1))
done
expect_eq "each step's slurm_job is COMPLETED in the cluster's job completion log" \
	"$steps 0" "$(echo "$jobs" | grep -c .) $missing"
expect_eq "each step ran on the node, in one attempt" "localhost 1" \
	"$(jq -r '[.steps[].attempts[0].node] | unique | join(" ")' "$tmp/slurm.json") $(jq '[.steps[].attempts | length] | max' "$tmp/slurm.json")"
expect_eq "step folders of finished steps are removed from the spool" 0 \
	"$(find "$tmp/spool" -mindepth 1 -maxdepth 1 | wc -l)"
expect_eq "the database keeps the report with its Slurm job ids" "$(jq -c '[.steps[].slurm_job]' "$tmp/slurm.json")" \
	"$("$gate" report "$(jq .run "$tmp/slurm.json")" --db "$tmp/slurm.db" --json | jq -c '[.steps[].slurm_job]')"

# The daemon with [executor] kind = slurm and four steps at once: a
# webhook's job gates the demo queue through the cluster (with a second
# queue's job on the same tree started at once beside it). The search
# prefetches what it may ask next and asks the same questions, so every
# verdict, case and bisection step is the one-worker run's, in fewer
# rounds than steps.
port=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-tests
cat "$tmp/gate.conf" - >"$tmp/serve.conf" <<EOF
	workers = 4
[server]
	listen = 127.0.0.1:$port
	database = $tmp/serve.db
	workers = 2
[queue "demo"]
	url = $queues/shebang-2019
	series = queue-6.1
	poll = 0
	secret = $secret
	config-check = none
[queue "reverted"]
	url = $queues/shebang-2019-reverted
	series = queue-6.1
	poll = 0
	secret = $secret
	config-check = none
EOF
text() { jq -c '[.patches[] | {name, status, reason, regressions, evidence, steps}]' "$tmp/$1.json"; }
if start_daemon "$tmp/serve.conf" "$tmp/serve.log" "$base"; then
	post() {
		curl -s -X POST -H "X-Hub-Signature-256: sha256=$(sign "$1" "$secret")" \
			-H 'Content-Type: application/json' -d "$1" "$base/webhook" | jq -r .job
	}
	id=$(post '{"queue": "demo"}')
	id2=$(post '{"queue": "reverted"}')
	state=
	for _ in $(seq 900); do
		state=$(curl -s "$base/api/jobs/$id" | jq -r .state)
		case $state in done | failed) break ;; esac
		sleep 1
	done
	# a second queue of the same tree starts at once: its job holds the
	# cache lock only between its steps
	expect_contains "serve, Slurm executor: a job of the same tree starts while the first runs" \
		"job $id2: started worker" "$(grep "(2 of 2 running)" "$tmp/serve.log")"
	for _ in $(seq 300); do
		case $(curl -s "$base/api/jobs/$id2" | jq -r .state) in done | failed) break ;; esac
		sleep 1
	done
	expect_eq "serve, Slurm executor: the second queue's job passes" "done pass" \
		"$(curl -s "$base/api/jobs/$id2" | jq -r .state) $(curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$id2" | jq -r .run)" | jq -r .verdict)"
	curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$id" | jq -r .run)" >"$tmp/serve.json"
	expect_eq "serve, Slurm executor, 4 workers: done, through Slurm, 4 at once, the local drops" \
		"done slurm 4 $(drops local)" \
		"$state $(jq -r '"\(.stats.executor) \(.stats.workers)"' "$tmp/serve.json") $(drops serve)"
	expect_eq "serve, 4 workers: the verdicts, evidence and bisection steps of run --executor slurm" \
		"$(text slurm)" "$(text serve)"
	rounds=$(jq .stats.rounds "$tmp/serve.json")
	expect_eq "4 workers: fewer rounds than with one worker, and than its steps" "yes yes" \
		"$([ "$rounds" -lt "$(jq .stats.rounds "$tmp/slurm.json")" ] && echo yes || echo no) $([ "$rounds" -lt "$(jq '.steps | length' "$tmp/serve.json")" ] && echo yes || echo no)"
	echo "# rounds: 1 worker $(jq .stats.rounds "$tmp/slurm.json") ($(jq '.steps | length' "$tmp/slurm.json") steps), 4 workers $rounds ($(jq '.steps | length' "$tmp/serve.json") steps)"
	kill "$daemon"
	wait "$daemon" 2>/dev/null
else
	fail "the daemon with [executor] kind = slurm answers: $(tail -n 3 "$tmp/serve.log")"
fi

# Two nodes from here on (node1, node2: two slurmds of this machine,
# sharing the node cache as they share its disk).
"$cluster" stop >/dev/null 2>&1
status=0
SLURM_CLUSTER_NODES=2 "$cluster" start >"$tmp/start.out" 2>"$tmp/start.err" || status=$?
expect_eq "a two-node cluster starts" "0 node1,node2" \
	"$status $(sinfo -h -N -o %N 2>/dev/null | sort | paste -sd,)"
[ "$status" -eq 0 ] || sed 's/^/# /' "$tmp/start.err"

# A node dies while a step builds (the revert on top of the 2019 change
# is a tree the node cache has not built before): the job ends NODE_FAIL,
# and the step is submitted again and runs on the node left.
# (a subshell that exits with the gate's status: gate() itself returns 0)
# (BG_QUICK_BUILD=0, which sbatch passes on to the step: a small change
# builds on the node without a kernel make, and the kill waits for one)
(
	BG_QUICK_BUILD=0 gate died --queue "$queues/shebang-2019-reverted" --config "$tmp/gate.conf"
	exit "$status"
) &
gate_pid=$!
building() { pgrep -f "make -C $node_cache/linux-6.1/src " >/dev/null; }
lost=none
if wait_for 600 building; then
	lost=$(squeue -h -t RUNNING -n backport-gate-step -o %N | head -n 1)
	"$cluster" kill-node "$lost" >/dev/null 2>"$tmp/kill.err" || sed 's/^/# /' "$tmp/kill.err"
else
	fail "a step's kernel build started on a node within 600 s"
fi
wait "$gate_pid"
status=$?
expect_eq "node lost mid-build: the run still ends with a verdict, nothing dropped (exit 0)" "0 " \
	"$status $(drops died)"
expect_eq "node lost mid-build: one step took two attempts, NODE_FAIL on the lost node, then COMPLETED on the other" \
	"NODE_FAIL@$lost COMPLETED@$([ "$lost" = node1 ] && echo node2 || echo node1)" \
	"$(jq -r '.steps[] | select(.attempts | length > 1) | [.attempts[] | "\(.state)@\(.node)"] | join(" ")' "$tmp/died.json")"
failed_job=$(jq -r '.steps[] | select(.attempts | length > 1) | .attempts[0].slurm_job' "$tmp/died.json")
expect_eq "the lost job is NODE_FAIL in the cluster's log, and the step names the retry's job" \
	"NODE_FAIL yes" \
	"$(sed -n "s/^JobId=$failed_job .* JobState=\([A-Z_]*\) .*/\1/p" "$jobcomp" | head -n 1) $(jq -r --arg f "$failed_job" '.steps[] | select(.attempts | length > 1) | if .slurm_job != $f and .slurm_job == .attempts[1].slurm_job then "yes" else "no" end' "$tmp/died.json")"
expect_contains "the gate said it submitted the step again" "NODE_FAIL, submitting again" \
	"$(cat "$tmp/died.err")"
expect_eq "every case passes with the revert, as locally" "pass" "$(jq -r .verdict "$tmp/died.json")"
"$cluster" restart-node "$lost" >/dev/null 2>"$tmp/restart.err" || sed 's/^/# /' "$tmp/restart.err"

# A node where the step itself fails (its gate cannot run there): the step
# is submitted again away from it, and the verdict is the other node's.
cat >"$tmp/node1-broken" <<EOF
#!/bin/sh
if [ "\$SLURMD_NODENAME" = node1 ]; then
	echo "node1: this node's backport-gate cannot run" >&2
	exit 1
fi
exec "$gate" "\$@"
EOF
chmod +x "$tmp/node1-broken"
sed "s|^\[executor\]|&\n\tprogram = $tmp/node1-broken|" "$tmp/gate.conf" >"$tmp/broken.conf"
gate away --queue "$queues/shebang-2019-reverted" --config "$tmp/broken.conf"
expect_eq "a node where the step fails: every case passes, as locally (exit 0)" "0 pass" \
	"$status $(jq -r .verdict "$tmp/away.json")"
expect_eq "a node where the step fails: every step's result came from node2" "COMPLETED@node2" \
	"$(jq -r '[.steps[].attempts[-1] | "\(.state)@\(.node)"] | unique | join(", ")' "$tmp/away.json")"
retried=$(jq '[.steps[] | select([.attempts[] | "\(.state)@\(.node)"] == ["FAILED@node1", "COMPLETED@node2"])] | length' "$tmp/away.json")
if [ "$retried" -ge 1 ]; then
	pass "a node where the step fails: $retried step(s) FAILED on node1, then submitted away from it"
else
	fail "a node where the step fails: no step FAILED on node1 and then ran on node2: $(jq -c '[.steps[].attempts[] | [.state, .node]]' "$tmp/away.json")"
fi
expect_contains "a node where the step fails: the attempt says why, in the step's own words" \
	"node1: this node's backport-gate cannot run" \
	"$(jq -r '.steps[].attempts[0].why' "$tmp/away.json")"

# Two queues of one branch at once (two runs on the same cache): each
# coordinator gives the cache lock up while it waits for its steps, so the
# other applies and submits meanwhile, and their steps share the cluster.
( gate pair-a --queue "$queues/shebang-2019" --config "$tmp/gate.conf"; exit "$status" ) &
pid_a=$!
( gate pair-b --queue "$queues/shebang-2019-reverted" --config "$tmp/gate.conf"; exit "$status" ) &
pid_b=$!
wait "$pid_a"
status_a=$?
wait "$pid_b"
status_b=$?
expect_eq "two queues of one branch at once: each run's own verdict (1 dropping the 2019 change, 0 passing)" \
	"1 $culprit 0 pass" "$status_a $(drops pair-a) $status_b $(jq -r .verdict "$tmp/pair-b.json")"
overlap=no
for a in $(jq -r '.steps[].attempts[].slurm_job' "$tmp/pair-a.json"); do
	read -r a0 a1 <<<"$(job_span "$jobcomp" "$a")"
	for b in $(jq -r '.steps[].attempts[].slurm_job' "$tmp/pair-b.json"); do
		read -r b0 b1 <<<"$(job_span "$jobcomp" "$b")"
		[ "$a0" -lt "$b1" ] && [ "$b0" -lt "$a1" ] && overlap="yes: job $a and job $b"
	done
done
expect_contains "two queues of one branch at once: steps of both ran on the cluster at the same time" \
	yes "$overlap"
echo "# two queues of one branch: $overlap"

# The gate asked to stop (SIGTERM, as systemd and kill send it) while a
# step runs: it cancels the job, so nothing is left on the cluster, and
# ends without a verdict saying so.
"$gate" run --config-check none --db "$tmp/stop.db" --json "$tmp/stop.json" \
	--queue "$queues/shebang-2019" --config "$tmp/gate.conf" >"$tmp/stop.out" 2>"$tmp/stop.err" &
gate_pid=$!
our_job() { squeue -h -t RUNNING -n backport-gate-step -o %i | head -n 1 | grep .; }
if wait_for 120 our_job >/dev/null; then
	job=$(our_job)
	kill -TERM "$gate_pid"
	wait "$gate_pid"
	status=$?
	expect_eq "SIGTERM during a step: exit 2, no verdict" "2 error" "$status $(jq -r .verdict "$tmp/stop.json")"
	expect_contains "SIGTERM during a step: says its job was cancelled" \
		"slurm: stopped by signal 15 (Terminated): job $job cancelled" "$(tail -n 1 "$tmp/stop.err")"
	gone() { ! squeue -h -j "$job" -t PENDING,RUNNING,COMPLETING -o %i 2>/dev/null | grep -q .; }
	wait_for 30 gone || true
	expect_eq "SIGTERM during a step: the job is CANCELLED in the cluster's log, nothing left running" \
		"CANCELLED yes" \
		"$(sed -n "s/^JobId=$job .* JobState=\([A-Z_]*\) .*/\1/p" "$jobcomp" | head -n 1) $(gone && echo yes || echo no)"
else
	kill "$gate_pid" 2>/dev/null
	wait "$gate_pid"
	fail "a step of the run to stop started within 120 s"
fi

# A config the executor cannot use: the key and why.
printf '[executor]\n\tkind = cloud\n' >"$tmp/bad.conf"
gate bad --queue "$queues/shebang-2019" --config "$tmp/bad.conf"
expect_eq "an unknown executor kind: exit 2, the file, line and key" \
	"2 backport-gate run: $tmp/bad.conf:2: executor.kind: 'cloud' is neither local nor slurm" \
	"$status $(tail -n 1 "$tmp/bad.err")"
printf '[executor]\n\tkind = slurm\n\tretries = 12\n' >"$tmp/bad.conf"
gate bad --queue "$queues/shebang-2019" --config "$tmp/bad.conf"
expect_contains "retries past the limit: refused" "executor.retries: '12' is not a number from 0 to 9" \
	"$(tail -n 1 "$tmp/bad.err")"
gate bad --queue "$queues/shebang-2019" --executor cluster
expect_eq "--executor takes local or slurm" \
	"2 backport-gate run: --executor: 'cluster' is neither local nor slurm" \
	"$status $(tail -n 1 "$tmp/bad.err")"
gate bad --queue "$queues/shebang-2019" --workers 2
expect_eq "--workers with the local executor: refused" \
	"2 backport-gate run: --workers: steps run at once only with the Slurm executor (--executor slurm)" \
	"$status $(tail -n 1 "$tmp/bad.err")"

# The controller gone: the run ends without a verdict and says why.
"$cluster" stop >/dev/null 2>&1
printf '[executor]\n\tkind = slurm\n\tnode-cache = %s\n\tspool = %s\n' "$node_cache" "$tmp/spool" >"$tmp/down.conf"
gate down --queue "$queues/shebang-2019" --config "$tmp/down.conf"
expect_eq "no Slurm controller: exit 2, no verdict" "2 error" "$status $(jq -r .verdict "$tmp/down.json")"
expect_contains "no Slurm controller: sbatch's own words" \
	"slurm: sbatch exited with status 1: sbatch: error: Batch job submission failed" \
	"$(tail -n 1 "$tmp/down.err")"
