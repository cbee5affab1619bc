#!/bin/bash
# tools/slurm-cluster, black-box (issue 20): a one-node cluster in a folder
# of its own runs a batch job and records it COMPLETED in its job completion
# log; runs two 1-CPU jobs at once; and when its node dies under two running
# jobs, ends them NODE_FAIL, the requeueable one requeued under the same id
# and run again once the node is back, whether slurmd comes back after
# slurmctld set the node DOWN or at once. Also measures what Slurm adds to a
# trivial job (submit to start, end to the completion record), 5 runs.
# stop leaves nothing running. About 3 minutes, mostly waiting on Slurm.
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge (make
# slurm-check installs them).
. "$(dirname "$0")/../lib.bash"
# Counted, so that make slurm-check fails on a failed assertion (it runs
# this test alone, not through tests/run-all).
passed=0
failed=0
pass() { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }
cluster=$top/tools/slurm-cluster
export SLURM_CLUSTER_DIR=$tmp/cluster
# munged wants every folder above its socket searchable by all.
chmod a+x "$tmp"
# Every job carries SLURM_CLUSTER_TEST_TAG (sbatch exports the
# environment it is given) and the test itself does not: how the end of the
# test finds a job process left running.
submit() { SLURM_CLUSTER_TEST_TAG=$tmp sbatch --parsable "$@"; }
# expect_exit0 WHAT STATUS STDERR-FILE: with the end of stderr when not 0.
expect_exit0() {
	expect_eq "$1: exits 0" 0 "$2"
	[ "$2" -eq 0 ] || sed 's/^/# /' "$3" | tail -n 20
}

# slurmctld's port, and a slurmd's after it for each of up to two nodes
port=$(free_ports 3)
export SLURM_CLUSTER_PORT=$port

trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

status=0
"$cluster" start >"$tmp/start.out" 2>"$tmp/start.err" || status=$?
expect_exit0 start "$status" "$tmp/start.err"
[ "$status" -eq 0 ] || exit 1
expect_eq "start: prints the line to source" "export SLURM_CONF=$SLURM_CLUSTER_DIR/slurm.conf" "$(cat "$tmp/start.out")"
expect_eq "start: the same line in DIR/env" "$(cat "$tmp/start.out")" "$(cat "$SLURM_CLUSTER_DIR/env")"
. "$SLURM_CLUSTER_DIR/env"
conf=$SLURM_CLUSTER_DIR/slurm.conf
jobcomp=$SLURM_CLUSTER_DIR/jobcomp.log
expect_eq "the node is idle in the default partition gate" "gate* idle localhost" \
	"$(sinfo -h -o '%P %T %N')"
expect_eq "the config is its own: munge socket, ports, state in DIR, no /etc/slurm" \
	"socket=$SLURM_CLUSTER_DIR/munge/munge.socket $port $((port + 1)) 0" \
	"$(sed -n 's/^AuthInfo=\([^,]*\).*/\1/p' "$conf") $(sed -n 's/^SlurmctldPort=//p' "$conf") $(sed -n 's/^SlurmdPort=//p' "$conf") $(grep -c /etc/slurm "$conf")"
expect_contains "status: all three daemons run" "slurmd-localhost: running" "$("$cluster" status)"
status=0
"$cluster" start >/dev/null 2>"$tmp/again.err" || status=$?
expect_eq "start again: refused while it runs" 1 "$status"
expect_contains "start again: says why" "already runs from $SLURM_CLUSTER_DIR" "$(cat "$tmp/again.err")"

# jobcomp_states ID: the JobState of each completion record of job ID.
jobcomp_states() {
	sed -n "s/^JobId=$1 .* JobState=\([A-Z_]*\) .*/\1/p" "$jobcomp" | tr '\n' ' ' | sed 's/ $//'
}
# job_field ID FIELD: FIELD=value from scontrol show job ID.
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
recorded() { grep -q "^JobId=$1 .* JobState=$2 " "$jobcomp"; }
running() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
node_is() { [ "$(sinfo -h -o %T)" = "$1" ]; }

# A batch job that writes a file.
job=$(submit -o "$tmp/hello.out" --wrap "echo hello from \$SLURM_JOB_ID > $tmp/hello")
wait_for 30 recorded "$job" COMPLETED || fail "job $job completes within 30 s: $(jobcomp_states "$job")"
expect_eq "the job wrote its file" "hello from $job" "$(cat "$tmp/hello" 2>/dev/null)"
expect_eq "the completion log records it COMPLETED, exit 0" "COMPLETED 0:0" \
	"$(jobcomp_states "$job") $(sed -n "s/^JobId=$job .* ExitCode=\([0-9:]*\).*/\1/p" "$jobcomp")"

# Two 1-CPU jobs at once: each writes when it starts and ends.
for name in a b; do
	submit -n 1 -c 1 -o /dev/null \
		--wrap "date +%s.%N > $tmp/$name.start; sleep 3; date +%s.%N > $tmp/$name.end" >"$tmp/$name.id"
done
wait_for 30 eval "recorded $(cat "$tmp/a.id") COMPLETED && recorded $(cat "$tmp/b.id") COMPLETED" ||
	fail "the two 1-CPU jobs complete within 30 s"
overlap=$(awk '{ print ($1 < $4 && $3 < $2) ? "overlap" : "one after the other" }' \
	<<<"$(cat "$tmp/a.start" "$tmp/a.end" "$tmp/b.start" "$tmp/b.end" 2>/dev/null | tr '\n' ' ')")
expect_eq "two 1-CPU jobs run at the same time" overlap "$overlap"

# The overhead of a trivial job: sbatch to the job's first line, and the
# job's last line to its completion record, 5 runs one after another.
for run in 1 2 3 4 5; do
	wait_for 10 node_is idle || fail "overhead run $run: the node is idle before it"
	submitted=$(date +%s.%N)
	job=$(submit -o /dev/null --wrap "date +%s.%N > $tmp/o$run.start; date +%s.%N > $tmp/o$run.end")
	for _ in $(seq 600); do
		grep -q "^JobId=$job " "$jobcomp" && break
		sleep 0.05
	done
	seen=$(date +%s.%N)
	recorded "$job" COMPLETED || fail "overhead run $run: job $job COMPLETED within 30 s: '$(jobcomp_states "$job")'"
	echo "$submitted $(cat "$tmp/o$run.start" "$tmp/o$run.end" 2>/dev/null | tr '\n' ' ') $seen" >>"$tmp/overhead"
done
# min/median/max of column ($2 - $1) and ($4 - $3), and of the whole.
summary() {
	awk '{ printf "%.3f\n", $2 - $1 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "min %.2f s, median %.2f s, max %.2f s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
to_start=$(awk '{ print $1, $2 }' "$tmp/overhead" | summary)
to_record=$(awk '{ print $3, $4 }' "$tmp/overhead" | summary)
total=$(awk '{ print $1, $4 }' "$tmp/overhead" | summary)
echo "# overhead of a trivial job, 5 runs: submit to start $to_start; end to completion record $to_record; submit to record $total"
expect_eq "overhead: 5 runs measured, each complete" 5 "$(awk 'NF == 4' "$tmp/overhead" | wc -l)"
expect_eq "overhead: a trivial job is recorded within 10 s of its submission" 0 \
	"$(awk '$4 - $1 >= 10' "$tmp/overhead" | wc -l)"

# node_dies NAME WAIT_FOR_DOWN: two jobs run, one requeueable (Slurm's
# default for batch jobs) that sleeps on its first run and ends at once on
# its second, one --no-requeue; the node dies (slurmd, its slurmstepds and
# their jobs SIGKILLed); slurmd restarts after slurmctld set the node DOWN
# (WAIT_FOR_DOWN=1) or at once (0). Sets requeued, lost, ended (when both
# jobs had left RUNNING) and noticed (seconds from the kill until then).
node_dies() {
	local name=$1 wait_for_down=$2 killed
	requeued=$(submit -o "$tmp/$name.requeued.out" \
		--wrap "if [ -e $tmp/$name.ran ]; then date +%s.%N >$tmp/$name.again; echo second run; else touch $tmp/$name.ran; sleep 300; fi")
	lost=$(submit --no-requeue -o /dev/null --wrap 'sleep 300')
	wait_for 30 eval "running $requeued && running $lost && [ -e $tmp/$name.ran ]" ||
		fail "$name: jobs $requeued and $lost run within 30 s"
	killed=$(date +%s.%N)
	"$cluster" kill-node 2>>"$tmp/$name.err" || fail "$name: kill-node exits 0: $(cat "$tmp/$name.err")"
	if [ "$wait_for_down" = 1 ]; then
		wait_for 90 eval '[[ $(sinfo -h -o %T) == *"*" ]]' ||
			fail "$name: slurmctld finds the node not responding within 90 s, got '$(sinfo -h -o %T)'"
		echo "# $name: node not responding ($(sinfo -h -o %T)) $(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after the kill"
		wait_for 90 node_is 'down*' ||
			fail "$name: slurmctld sets the node DOWN within 90 s, got '$(sinfo -h -o %T)'"
		echo "# $name: node DOWN $(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after the kill"
	fi
	status=0
	"$cluster" restart-node 2>>"$tmp/$name.err" || status=$?
	expect_exit0 "$name: restart-node" "$status" "$tmp/$name.err"
	wait_for 120 eval "! running $requeued && ! running $lost" ||
		fail "$name: Slurm ends the lost jobs within 120 s of the kill"
	ended=$(date +%s.%N)
	noticed=$(awk -v a="$killed" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')
	echo "# $name: both jobs out of RUNNING $noticed s after the kill"
}

check_node_death() {
	local name=$1
	expect_eq "$name: the --no-requeue job ends NODE_FAIL (completion log; scontrol)" "NODE_FAIL NODE_FAIL" \
		"$(jobcomp_states "$lost") $(job_field "$lost" JobState)"
	expect_eq "$name: the --no-requeue job is out of squeue's pending and running jobs" "" \
		"$(squeue -h -j "$lost" -t PENDING,RUNNING -o %i 2>/dev/null)"
	expect_eq "$name: the requeueable job: NODE_FAIL in the completion log, PENDING under the same id, Restarts=1" \
		"NODE_FAIL PENDING 1" \
		"$(jobcomp_states "$requeued") $(job_field "$requeued" JobState) $(job_field "$requeued" Restarts)"
	# Requeued jobs are held back cred_expire (30 s here) at least; the
	# main scheduler then starts them on one of its passes.
	wait_for 150 recorded "$requeued" COMPLETED ||
		fail "$name: the requeued job $requeued runs again and completes within 150 s: '$(jobcomp_states "$requeued")'"
	expect_eq "$name: the requeued job's records: NODE_FAIL, then COMPLETED; its second run's output" \
		"NODE_FAIL COMPLETED second run" "$(jobcomp_states "$requeued") $(cat "$tmp/$name.requeued.out" 2>/dev/null)"
	local again
	again=$(awk -v a="$ended" -v b="$(cat "$tmp/$name.again" 2>/dev/null)" 'BEGIN { printf "%.1f", b - a }')
	echo "# $name: the requeued job $requeued started again $again s after Slurm ended its first run"
	expect_eq "$name: the requeued job was held back at least 25 s (cred_expire=30)" 1 \
		"$(awk -v s="$again" 'BEGIN { print (s >= 25) }')"
	expect_eq "$name: the node is idle again" idle "$(sinfo -h -o %T)"
}

node_dies node-down 1
down_noticed=$noticed
check_node_death node-down
node_dies fast-restart 0
check_node_death fast-restart
expect_contains "fast-restart: slurmctld says why it ended the job" \
	"Batch JobId=$lost missing from batch node localhost" "$(cat "$SLURM_CLUSTER_DIR/log/slurmctld.log")"
echo "# a dead node's jobs end NODE_FAIL: $down_noticed s after the kill when slurmd stays down (SlurmdTimeout=10), $noticed s when it comes back at once"

# stop: the daemons, every slurmstepd and every job process are gone.
pids=$(cat "$SLURM_CLUSTER_DIR"/pids/* | tr '\n' ' ')
job=$(submit -o /dev/null --wrap 'sleep 300')
wait_for 20 running "$job" || fail "job $job runs before stop"
status=0
"$cluster" stop 2>"$tmp/stop.err" || status=$?
expect_exit0 stop "$status" "$tmp/stop.err"
left=""
for pid in $pids; do
	kill -0 "$pid" 2>/dev/null && left="$left $pid"
done
expect_eq "stop: the daemons it started ($pids) have ended" "" "$left"
# Processes (not zombies) whose environment carries this test's folder.
tagged=""
for pid in $(ps -e -o pid=,stat= | awk '$2 !~ /^Z/ { print $1 }'); do
	tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" |
		grep -qx -e "SLURM_CLUSTER_TEST_TAG=$tmp" -e "BACKPORT_GATE_SLURM_CLUSTER=$SLURM_CLUSTER_DIR" &&
		tagged="$tagged $pid:$(cat "/proc/$pid/comm")"
done
expect_eq "stop: no slurmstepd or job process is left" "" "$tagged"
status=0
out=$("$cluster" status) || status=$?
expect_eq "status after stop: nothing runs, exit 3" "3 0" "$status $(grep -c ': running' <<<"$out")"

# Two nodes: both idle, each job where it is sent, and one node killed
# with its job while the other runs on.
status=0
SLURM_CLUSTER_NODES=2 "$cluster" start >/dev/null 2>"$tmp/start2.err" || status=$?
expect_exit0 "start with SLURM_CLUSTER_NODES=2" "$status" "$tmp/start2.err"
expect_eq "two nodes: node1 and node2 idle at 127.0.0.1 and 127.0.0.2, a slurmd port each" \
	"node1 idle 127.0.0.1 $((port + 1)),node2 idle 127.0.0.2 $((port + 2))" \
	"$(sinfo -h -N -o '%N %T' | sort | while read -r n st; do
		echo "$n $st $(sed -n "s/^NodeName=$n NodeAddr=\([^ ]*\) Port=\([0-9]*\) .*/\1 \2/p" "$conf")"
	done | paste -sd,)"
one=$(submit -o /dev/null -w node1 --wrap 'sleep 300')
two=$(submit -o /dev/null -w node2 --wrap 'sleep 300')
wait_for 20 running "$one" && wait_for 20 running "$two" || fail "a job runs on each node"
"$cluster" kill-node node1 2>"$tmp/kill2.err" || sed 's/^/# /' "$tmp/kill2.err"
expect_eq "kill-node node1: its slurmd is gone, node2's runs, with its job" \
	"slurmd-node1: not running slurmd-node2: running yes" \
	"$("$cluster" status | grep -o '^slurmd-node[12]: [a-z ]*running' | paste -sd' ') $(running "$two" && echo yes || echo no)"
status=0
"$cluster" kill-node node3 2>"$tmp/kill3.err" || status=$?
expect_eq "kill-node of a node the cluster has not: refused, naming its nodes" \
	"1 slurm-cluster: kill-node: no node 'node3' in this cluster (its nodes: node1 node2)" \
	"$status $(cat "$tmp/kill3.err")"
"$cluster" stop 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
