# Shared helpers for the black-box tests: each assertion prints one line,
# "ok - what" or "not ok - what: expected ..., got ...", which tests/run-all
# counts.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=$top/kernel-tests/run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/backport-gate-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }

# expect_eq WHAT EXPECTED GOT
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# expect_contains WHAT NEEDLE HAYSTACK
expect_contains() {
	case $3 in
	*"$2"*) pass "$1" ;;
	*) fail "$1: expected to contain '$2', got '$(printf %s "$3" | tail -n 3)'" ;;
	esac
}

# run_suite ARGS...: runs kernel-tests/run; sets status, out, err.
run_suite() {
	status=0
	"$run" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# gate_run ARGS...: backport-gate run ($gate, default this tree's) on the
# record $db with the compile check off; sets status, out, err, and the
# JSON report is $tmp/report.json (jqr FILTER reads it).
gate_run() {
	status=0
	rm -f "$tmp/report.json"
	"${gate:-$top/build/backport-gate}" run --config-check none --db "$db" \
		--json "$tmp/report.json" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}
jqr() { jq -r "$1" "$tmp/report.json" 2>/dev/null; }

# The names of the cases that failed (not ok, not a changed quirk), sorted.
failed_cases() {
	printf '%s\n' "$out" | grep -E '^not ok [0-9]+ ' | grep -v ' # TODO quirk changed' |
		awk '{print $4}' | sort | tr '\n' ' ' | sed 's/ $//'
}

# benign_queue_repo DIR: a git repository in stable-queue layout at DIR,
# queue-6.1 holding two benign backports no test kernel builds (the
# 2019 sample's e1000 and binfmt-misc documentation fixes), committed.
benign_queue_repo() {
	local p
	mkdir -p "$1/queue-6.1"
	for p in e1000-fix-kernel-doc-of-e1000_get_hw_dev.patch docs-binfmt-misc-replace-aka.patch; do
		cp "$top/patches/queues/shebang-2019/queue-6.1/$p" "$1/queue-6.1/"
		echo "$p" >>"$1/queue-6.1/series"
	done
	git -C "$1" init -q -b master
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1"
}

# sign BODY SECRET: GitHub's X-Hub-Signature-256 value (hex HMAC-SHA256).
sign() { printf '%s' "$1" | openssl dgst -sha256 -hmac "$2" | sed 's/^.*= //'; }

# free_port: a loopback port nobody listens on right now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# free_ports N: a loopback port nobody listens on, and the N - 1 after it
# free too (tools/slurm-cluster's slurmctld and its slurmds, one each).
free_ports() {
	local port k taken
	for _ in $(seq 20); do
		port=$(free_port)
		taken=no
		for ((k = 1; k < $1; k++)); do
			if [ $((port + k)) -gt 65535 ] ||
				timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$((port + k))" 2>/dev/null; then
				taken=yes
				break
			fi
		done
		[ "$taken" = yes ] || break
	done
	echo "$port"
}

# free_port_pair: free_ports 2 (a one-node cluster).
free_port_pair() { free_ports 2; }

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds; 1 on timeout.
wait_for() {
	local limit=$1
	shift
	for _ in $(seq $((limit * 5))); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# start_daemon CONFIG LOG BASE [ENV...]: the real daemon ($gate serve) with
# ENV set; sets daemon. 1 (and no daemon) when BASE/api/runs does not
# answer within 10 s.
start_daemon() {
	local config=$1 log=$2 url=$3
	shift 3
	env "$@" "$gate" serve --config "$config" >>"$log" 2>&1 &
	daemon=$!
	for _ in $(seq 100); do
		kill -0 "$daemon" 2>/dev/null || break
		curl -s -o /dev/null "$url/api/runs" && return 0
		sleep 0.1
	done
	kill "$daemon" 2>/dev/null
	wait "$daemon" 2>/dev/null
	daemon=
	return 1
}

# job_span JOBCOMP JOB: "START END" of a finished Slurm job, epoch seconds,
# from a cluster's job completion log
job_span() {
	local line
	line=$(grep "^JobId=$2 " "$1" | tail -n 1)
	echo "$(date -d "$(sed 's/.* StartTime=\([^ ]*\) .*/\1/' <<<"$line")" +%s)" \
		"$(date -d "$(sed 's/.* EndTime=\([^ ]*\) .*/\1/' <<<"$line")" +%s)"
}
