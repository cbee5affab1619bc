#!/bin/bash
# How quickly the daemon answers while a kernel builds: webhook-to-job
# latency (POST accepted to the job's worker started, from the job table)
# and the latency of 200 concurrent API requests sent while the worker is
# building (curl's time_total; median, 95th percentile, max).
# Usage: bench/serve-latency.sh  (uses a temporary database; the kernel
# cache is the default one)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
gate=$top/build/backport-gate
tmp=$(mktemp -d)
port=$((30000 + $$ % 20000))
base=http://127.0.0.1:$port
trap 'kill $daemon 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

repo=$tmp/q
mkdir -p "$repo/queue-6.1"
cp "$top/tests/data/patches/exit-comment/"*.patch "$repo/queue-6.1/"
cp "$top/tests/data/patches/exit-comment/series" "$repo/queue-6.1/series"
cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/gate.db
[queue "bench"]
	url = $repo
	poll = 0
	secret = bench
CONF
"$gate" serve --config "$tmp/gate.conf" 2>"$tmp/serve.log" &
daemon=$!
until curl -s -o /dev/null "$base/api/runs"; do sleep 0.05; done

body='{"queue": "bench"}'
sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac bench | sed 's/^.*= //')
t0=$(date +%s.%N)
job=$(curl -s -X POST -H "X-Hub-Signature-256: sha256=$sig" --data-binary "$body" "$base/webhook" | jq -r .job)
t1=$(date +%s.%N)
until grep -q "job $job: started worker" "$tmp/serve.log"; do sleep 0.01; done
t2=$(date +%s.%N)
printf 'webhook answered in %.1f ms; worker started %.0f ms after the POST\n' \
	"$(echo "($t1 - $t0) * 1000" | bc -l)" "$(echo "($t2 - $t0) * 1000" | bc -l)"

until grep -q "^# building tree" "$tmp/serve.log"; do sleep 0.1; done
sleep 2
urls=("/api/runs" "/api/regressions" "/api/cases/test.pl" "/api/patches/8099b047ecc4" "/" "/api/jobs/$job")
for i in $(seq 200); do echo "$base${urls[$((i % ${#urls[@]}))]}"; done |
	xargs -P 50 -n 1 curl -s -o /dev/null -w '%{http_code} %{time_total}\n' >"$tmp/times"
still=$(grep -c "^# building tree" "$tmp/serve.log")
sort -k2 -n "$tmp/times" | awk -v builds="$still" '
	{ t[NR] = $2 * 1000; if ($1 != 200) bad++ }
	END { printf "200 requests, 50 at a time, during a kernel build: median %.1f ms, p95 %.1f ms, max %.1f ms, non-200: %d\n",
		t[int(NR / 2)], t[int(NR * 0.95)], t[NR], bad }'
grep -q "^# booting" "$tmp/serve.log" && echo "(the worker had started booting by the end)" || echo "(the worker was still building throughout)"
