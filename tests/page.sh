#!/bin/bash
# The HTML page of backport-gate serve, in a real browser: Debian's
# chromium, headless, reads GET / from a daemon on loopback whose database
# holds a real verdict on the 2019 sample queue. The DOM must show the DROP,
# the dropped patch and the case it regressed as links into the history
# API, and a row per branch (6.1, and 6.12 from a run put into the record
# by hand); a screenshot must be the size asked for and not blank. Then
# the run, patch, queue and case pages, the open regressions and the
# search: their DOM, the queue's plot in a screenshot, and hostile names
# that must add no element, inserted into the record and gated for real.
# Then one history (a command-line run under a configured queue), the
# run's reply and KCIDB renderings, the queue by branch and the case grid.
#
# The verdict comes from `backport-gate run` into the test's own record;
# the kernel cache is the machine's, where the trees of that queue are
# usually built already, so the run mostly boots.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queue=$top/patches/queues/shebang-2019
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch
secret=s3cret-for-page-test
daemon=

cleanup() {
	if [ -n "$daemon" ]; then
		kill "$daemon" 2>/dev/null
		wait "$daemon" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. A real verdict in the test's own record, and a finished job for it.
status=0
start=$(date +%s)
"$gate" run --config-check none --queue "$queue" --db "$tmp/gate.db" --json "$tmp/r.json" >"$tmp/run.out" \
	2>"$tmp/run.err" || status=$?
echo "# gate run took $(($(date +%s) - start)) s (it waits for the cache's lock while another run builds)"
expect_eq "gate run on the 2019 queue (own record): drop" "1 drop $culprit" \
	"$status $(jq -r '"\(.verdict) \(.drop | join(" "))"' "$tmp/r.json" 2>/dev/null)"
run=$(jq -r .run "$tmp/r.json" 2>/dev/null)
case $run in
'' | *[!0-9]*)
	fail "gate run wrote a run id: $(tail -n 3 "$tmp/run.err")"
	exit 1
	;;
esac
status=0
sqlite3 "$tmp/gate.db" "INSERT INTO job (queue, trigger, state, run_id, started_at, finished_at)
	VALUES ('stable-6.1', 'webhook', 'done', $run, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),
		strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))" 2>"$tmp/insert.err" || status=$?
expect_eq "a finished job for run $run" 0 "$status"
# A second branch without building 6.12: the same snapshot judged on
# 6.12.118 a second later, every patch kept. The page's table "By queue
# and branch" then has a row for each branch of the queue.
status=0
run612=$(sqlite3 "$tmp/gate.db" "INSERT INTO run (snapshot_id, base, suite, verdict, started_at, finished_at, seconds)
	SELECT snapshot_id, '6.12.118', suite, 'pass', strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+1 second'),
		strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+2 seconds'), 1 FROM run WHERE id = $run;
	INSERT INTO verdict (run_id, patch_id, status)
		SELECT (SELECT max(id) FROM run), patch_id, 'ok' FROM verdict WHERE run_id = $run;
	SELECT max(id) FROM run" 2>"$tmp/insert.err") || status=$?
insert_err=$(cat "$tmp/insert.err")
expect_eq "a run on 6.12.118 inserted into the record${insert_err:+: $insert_err}" 0 "$status"
queue_name=$(sqlite3 "$tmp/gate.db" "SELECT s.queue FROM run r JOIN snapshot s ON s.id = r.snapshot_id
	WHERE r.id = $run" 2>/dev/null)

# 2. The daemon on a free loopback port.
# start_page_daemon: a configuration on a free port, then the daemon;
# sets port, base, daemon.
start_page_daemon() {
	port=$(free_port) || return 1
	base=http://127.0.0.1:$port
	cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/gate.db
[queue "stable-6.1"]
	config-check = none
	url = $queue
	poll = 0
	secret = $secret
CONF
	start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base"
}
started=false
for _ in 1 2 3; do	# a port taken between the probe and the bind: another
	start_page_daemon && started=true && break
done
if ! $started; then
	fail "the daemon listens on loopback: $(tail -n 3 "$tmp/serve.log")"
	exit 1
fi
pass "the daemon listens on $base"

# 3. Debian's chromium, headless, as root: no sandbox; no connections of
# its own (the machine's network is closed); a fresh profile every time;
# shared memory in $TMPDIR, not /dev/shm, which may be small (the wrapper's
# own check for that, /etc/chromium.d/dev-shm, breaks where findmnt prints
# two lines).
browser() { # ARGS...: output on stdout, messages in $tmp/chromium.log
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$profile" "$@" 2>>"$tmp/chromium.log"
}

# inert_dom PAGE FILE [NOTE]: chromium's DOM of PAGE into FILE; neither a
# <script> nor an <img> element may be in it (hostile text added none).
# NOTE follows PAGE in the checks' names.
inert_dom() {
	local status=0
	browser --dump-dom "$base$1" >"$2" || status=$?
	expect_eq "chromium --dump-dom of $1$3: exit status" 0 "$status"
	expect_eq "DOM of $1$3: no <script> and no <img> element" "0 0" \
		"$(grep -c '<script' "$2") $(grep -c '<img' "$2")"
}

status=0
browser --dump-dom "$base/" >"$tmp/dom.html" || status=$?
expect_eq "chromium --dump-dom of GET /: exit status" 0 "$status"
dom=$(cat "$tmp/dom.html")
expect_contains "DOM: the page's heading" "<h1>backport-gate</h1>" "$dom"
expect_contains "DOM: the queue configured" "<h2>stable-6.1</h2>" "$dom"
expect_contains "DOM: the DROP verdict of run $run" \
	"Run <a href=\"/runs/$run\">$run</a> on 6.1.192: <strong>DROP</strong>, 1 of 6 patches to drop" "$dom"
expect_contains "DOM: the dropped patch links to /patches/<name>" \
	"<a href=\"/patches/$culprit\">$culprit</a>" "$dom"
row=$(grep -F "<a href=\"/patches/$culprit\">" "$tmp/dom.html")
expect_contains "DOM: its row is a drop for a regression" \
	"<tr class=\"drop\"><td><a href=\"/patches/$culprit\">$culprit</a></td><td>drop</td><td>regression</td>" "$row"
expect_contains "DOM: the regressed case test.pl links to its page /cases/test.pl" \
	"<a href=\"/cases/test.pl\">test.pl</a>" "$row"
expect_eq "DOM: one patch row is a drop" 1 "$(grep -c '<tr class="drop">' "$tmp/dom.html")"
expect_contains "DOM: the table by queue and branch" "<h2>By queue and branch</h2>" "$dom"
expect_eq "DOM: a row per branch of $queue_name" 2 "$(grep -c '<tr class="branch">' "$tmp/dom.html")"
expect_contains "DOM: the 6.1 row: run $run, its drop, base 6.1.192, one drop" \
	"<tr class=\"branch\"><td><a href=\"/queues/$queue_name\">$queue_name</a></td><td>6.1</td><td><a href=\"/runs/$run\">$run</a></td><td>drop</td><td>6.1.192</td><td>1</td></tr>" "$dom"
expect_contains "DOM: the 6.12 row: run $run612, pass, base 6.12.118, no drop" \
	"<tr class=\"branch\"><td><a href=\"/queues/$queue_name\">$queue_name</a></td><td>6.12</td><td><a href=\"/runs/$run612\">$run612</a></td><td>pass</td><td>6.12.118</td><td>0</td></tr>" "$dom"
expect_eq "the patch link leads to its verdict on each branch" \
	"6.1 drop regression run $run; 6.12 ok null run $run612" \
	"$(curl -s "$base/api/patches/$culprit" |
		jq -r '[.branches[] | "\(.branch) \(.status) \(.reason) run \(.run)"] | join("; ")' 2>/dev/null)"

png_size() { # FILE: "WIDTH HEIGHT" from the IHDR chunk
	python3 - "$1" <<'PY' 2>/dev/null
import struct, sys
d = open(sys.argv[1], 'rb').read(24)
if d[:8] == b'\x89PNG\r\n\x1a\n' and d[12:16] == b'IHDR':
    print('%d %d' % struct.unpack('>II', d[16:24]))
PY
}

png_colours() { # FILE [R,G,B]: "NON-WHITE COLOUR": counts of pixels, of any colour
	# but white and of R,G,B within 3 per channel (default the drop row's #fdd)
	python3 - "$1" "${2:-255,221,221}" <<'PY' 2>/dev/null
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
pos, idat = 8, b''
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos + 8])
    if t == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', d[pos + 8:pos + 21])
    elif t == b'IDAT':
        idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
if depth != 8 or interlace or ctype not in (2, 6):
    sys.exit('unexpected PNG format')
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, i, colours = bytearray(stride), 0, {}
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 2:
        line = bytearray(prev) if not any(line) else bytearray(map(lambda p, q: (p + q) & 255, line, prev))
    elif f:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            else:
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for rgb in zip(line[0::bpp], line[1::bpp], line[2::bpp]):
        colours[rgb] = colours.get(rgb, 0) + 1
    prev = line
other = w * h - colours.get((255, 255, 255), 0)
want = [int(c) for c in sys.argv[2].split(',')]
pink = sum(n for rgb, n in colours.items() if all(abs(c - w) <= 3 for c, w in zip(rgb, want)))
print(other, pink)
PY
}

status=0
browser --screenshot="$tmp/page.png" --window-size=1280,900 "$base/" >/dev/null || status=$?
expect_eq "chromium --screenshot of GET /: exit status" 0 "$status"
status=0
browser --screenshot="$tmp/blank.png" --window-size=1280,900 about:blank >/dev/null || status=$?
expect_eq "chromium --screenshot of about:blank: exit status" 0 "$status"
expect_eq "screenshot: a PNG of 1280x900" "1280 900" "$(png_size "$tmp/page.png")"
expect_eq "screenshot of about:blank: a PNG of 1280x900" "1280 900" "$(png_size "$tmp/blank.png")"
if [ -s "$tmp/page.png" ] && [ -s "$tmp/blank.png" ] && ! cmp -s "$tmp/page.png" "$tmp/blank.png"; then
	pass "screenshot: differs from about:blank"
else
	fail "screenshot: differs from about:blank"
fi
size=$(stat -c %s "$tmp/page.png" 2>/dev/null || echo 0)
if [ "$size" -gt 20000 ]; then
	pass "screenshot: $size bytes, more than a blank page's"
else
	fail "screenshot: more than 20000 bytes, got $size (about:blank: $(stat -c %s "$tmp/blank.png" 2>/dev/null))"
fi
read -r nonwhite pink <<<"$(png_colours "$tmp/page.png")"
if [ "${nonwhite:-0}" -gt 50000 ] && [ "${pink:-0}" -gt 20000 ]; then
	pass "screenshot: text and tables drawn, the drop row in #fdd"
else
	fail "screenshot: more than 50000 non-white pixels and 20000 of #fdd, got '${nonwhite:-} ${pink:-}'"
fi
expect_eq "screenshot of about:blank: all white" 0 "$(png_colours "$tmp/blank.png" | cut -d' ' -f1)"

expect_contains "DOM: the open regressions link to their page" "<a href=\"/regressions\">open regressions</a>" "$dom"

# 4. The run page, the patch page and the search (issue 23): server-rendered,
# reached from / by the links checked above.
html_escape() { # TEXT: as page.c's esc() writes it
	python3 -c 'import html, sys; print(html.escape(sys.argv[1]).replace("&#x27;", "&#39;"), end="")' "$1"
}
url_encode() { # TEXT: a path segment or a query value, every reserved byte encoded
	python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""), end="")' "$1"
}
get() { # PATH: the body in $tmp/get.html; prints the status
	curl -s -o "$tmp/get.html" -w '%{http_code}' "$base$1"
}

expect_eq "GET /runs/$run: 200" 200 "$(get "/runs/$run")"
body=$(cat "$tmp/get.html")
evidence=$(jq -r --arg n "$culprit" '.patches[] | select(.name == $n) | .evidence' "$tmp/r.json" | head -n 1)
upstream=$(jq -r --arg n "$culprit" '.patches[] | select(.name == $n) | .upstream' "$tmp/r.json")
subject=$(jq -r --arg n "$culprit" '.patches[] | select(.name == $n) | .subject' "$tmp/r.json")
expect_contains "/runs/$run: the drop list, the culprit first and linked to its page" \
	"<h2>Dropped (1)</h2>
<section class=\"dropped\" id=\"patch-$culprit\"><h3><a href=\"/patches/$culprit\">$culprit</a></h3>" "$body"
expect_contains "/runs/$run: its reason" "Dropped: <strong>regression</strong>" "$body"
if [ -n "$evidence" ]; then
	expect_contains "/runs/$run: its evidence in a <pre>" "<pre class=\"evidence\">$(html_escape "$evidence")" "$body"
else
	fail "/runs/$run: the report has evidence for $culprit"
fi
expect_contains "/runs/$run: the bisection steps" "<pre class=\"steps\">" "$body"
expect_contains "/runs/$run: a link to the JSON" "<a href=\"/api/runs/$run\">JSON report</a>" "$body"
expect_contains "/runs/$run: the kept patches" "<h2>Kept</h2>" "$body"
expect_contains "/runs/$run: builds and boots" "<tr><th>builds and boots</th>" "$body"
expect_eq "GET /runs/999999: a 404 page" "404" "$(get /runs/999999)"
expect_contains "/runs/999999: the page says so" "<p class=\"state\">no run 999999</p>" "$(cat "$tmp/get.html")"

expect_eq "GET /patches/$culprit: 200" 200 "$(get "/patches/$culprit")"
body=$(cat "$tmp/get.html")
expect_contains "/patches/$culprit: last dropped in run $run, linked to the evidence" \
	"<tr><th>last dropped</th><td><a href=\"/runs/$run#patch-$culprit\">run $run</a> on 6.1.192" "$body"
expect_contains "/patches/$culprit: last kept on 6.12 (run $run612)" \
	"<tr><th>last kept</th><td><a href=\"/runs/$run612#patch-$culprit\">run $run612</a> on 6.12.118" "$body"
expect_contains "/patches/$culprit: the evidence of the drop" "<pre>$(html_escape "$evidence")" "$body"
expect_eq "GET /patches/$upstream (upstream sha): 200" 200 "$(get "/patches/$upstream")"
expect_contains "/patches/$upstream: the same verdicts" "<a href=\"/runs/$run#patch-$culprit\">" \
	"$(cat "$tmp/get.html")"

expect_eq "GET /search?q=$culprit: 302 to its page" "302 $base/patches/$culprit" \
	"$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$base/search?q=$culprit")"
expect_eq "GET /search?q=${upstream:0:7}: 302 to the upstream's page" "302 $base/patches/$upstream" \
	"$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$base/search?q=${upstream:0:7}")"
words=$(printf '%s' "$subject" | awk '{print $(NF-1), $NF}')
expect_eq "GET /search?q=$words: 200" 200 "$(get "/search?q=$(url_encode "$words")")"
expect_contains "/search?q=$words: lists $culprit" "<tr><td><a href=\"/patches/$culprit\">$culprit</a></td>" \
	"$(cat "$tmp/get.html")"
expect_contains "GET /: the search box" "<form class=\"search\" method=\"get\" action=\"/search\">" "$dom"

# 5. Hostile text in the browser: a patch whose file name and subject carry
# a script and an attribute break-out, judged in the 6.12 run. Its page and
# the search that finds it must add no element to the DOM.
hostile_name='<script>alert(1)</script>"><img src=x onerror=alert(1)>.patch'
hostile_subject='hostile: <script>alert(1)</script>"><img src=x onerror=alert(1)>'
status=0
sqlite3 "$tmp/gate.db" "INSERT INTO patch (snapshot_id, position, name, subject)
	SELECT snapshot_id, 1000, '$(printf %s "$hostile_name" | sed "s/'/''/g")',
		'$(printf %s "$hostile_subject" | sed "s/'/''/g")' FROM run WHERE id = $run612;
	INSERT INTO verdict (run_id, patch_id, status, evidence)
		VALUES ($run612, last_insert_rowid(), 'ok', '<script>alert(2)</script>')" 2>"$tmp/insert.err" || status=$?
expect_eq "a hostile patch inserted into run $run612$([ -s "$tmp/insert.err" ] && echo ": $(cat "$tmp/insert.err")")" 0 "$status"
for page in "/patches/$(url_encode "$hostile_name")" "/search?q=$(url_encode 'hostile: alert(1)')"; do
	inert_dom "$page" "$tmp/hostile.html"
	expect_contains "DOM of $page: the name shown as text" \
		"&lt;script&gt;alert(1)&lt;/script&gt;\"&gt;&lt;img src=x onerror=alert(1)&gt;" "$(cat "$tmp/hostile.html")"
done

# 6. The queue page, the case page and the open regressions (issue 23), in
# the browser, before anything hostile is in the record.
queue_page=/queues/$(url_encode "$queue_name")
expect_eq "GET $queue_page?page=2: a 404 page past the last" 404 "$(get "$queue_page?page=2")"
expect_eq "GET $queue_page?page=x: a 400 page" 400 "$(get "$queue_page?page=x")"
status=0
browser --dump-dom "$base$queue_page" >"$tmp/queue.html" || status=$?
expect_eq "chromium --dump-dom of $queue_page: exit status" 0 "$status"
body=$(cat "$tmp/queue.html")
expect_contains "DOM of $queue_page: the search box" "<form class=\"search\" method=\"get\" action=\"/search\">" "$body"
expect_eq "DOM of $queue_page: a timeline row per run (2)" 2 "$(grep -c '<tr class="run ' "$tmp/queue.html")"
expect_contains "DOM of $queue_page: the newest first, run $run612 on 6.12.118, a pass" \
	"<tr class=\"run pass\"><td><a href=\"/runs/$run612\">$run612</a></td>" "$body"
expect_contains "DOM of $queue_page: run $run dropped $culprit, linked to its page" \
	"<a href=\"/runs/$run#patch-$culprit\">▸</a> <a href=\"/patches/$culprit\">$culprit</a>" "$body"
expect_eq "DOM of $queue_page: run $run612 above run $run" "$run612 $run" \
	"$(grep -o '<tr class="run [a-z]*"><td><a href="/runs/[0-9]*"' "$tmp/queue.html" | grep -o '[0-9]*' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "DOM of $queue_page: one inline <svg>, a bar per run and the line of times" "1 2 1" \
	"$(grep -c '<svg' "$tmp/queue.html") $(grep -o '<rect ' "$tmp/queue.html" | wc -l) $(grep -c '<polyline' "$tmp/queue.html")"
expect_contains "DOM of $queue_page: the plot's scales are labelled" ">time to verdict</text>" "$body"
status=0
browser --screenshot="$tmp/queue.png" --window-size=1280,900 "$base$queue_page" >/dev/null || status=$?
expect_eq "chromium --screenshot of $queue_page: exit status" 0 "$status"
expect_eq "screenshot of $queue_page: a PNG of 1280x900" "1280 900" "$(png_size "$tmp/queue.png")"
read -r nonwhite blue <<<"$(png_colours "$tmp/queue.png" 0,102,204)"
if [ "${nonwhite:-0}" -gt 20000 ] && [ "${blue:-0}" -gt 100 ]; then
	pass "screenshot of $queue_page: text and table drawn ($nonwhite non-white pixels), the plot's line in #06c ($blue)"
else
	fail "screenshot of $queue_page: more than 20000 non-white pixels and 100 of #06c, got '${nonwhite:-} ${blue:-}'"
fi

status=0
browser --dump-dom "$base/cases/test.pl" >"$tmp/case.html" || status=$?
expect_eq "chromium --dump-dom of /cases/test.pl: exit status" 0 "$status"
body=$(cat "$tmp/case.html")
expect_contains "DOM of /cases/test.pl: the search box" "<form class=\"search\" method=\"get\" action=\"/search\">" "$body"
expect_contains "DOM of /cases/test.pl: regressed in run $run by $culprit, linked" \
	"<tr class=\"regressed\"><td><a href=\"/runs/$run\">$run</a></td><td><a href=\"/queues/$queue_name\">$queue_name</a></td>" "$body"
row=$(grep -F "<tr class=\"regressed\"><td><a href=\"/runs/$run\">" "$tmp/case.html")
expect_contains "DOM of /cases/test.pl: the patch blamed and its evidence" \
	"<a href=\"/patches/$culprit\">$culprit</a> (<a href=\"/runs/$run#patch-$culprit\">evidence</a>)" "$row"
outcomes=$(curl -s "$base/api/cases/test.pl" |
	jq -r --argjson r "$run" '.runs[] | select(.run == $r) | "\(.base) \(.candidate)"' 2>/dev/null)
expect_contains "DOM of /cases/test.pl: run $run's outcome on base and with the queue as the API says ($outcomes)" \
	"<td>regressed</td><td>$(echo "$outcomes" | sed 's/^null/-/; s/ null$/ -/; s/ /<\/td><td>/')</td>" "$row"
expect_contains "DOM of /cases/test.pl: run $run612 passed" \
	"<tr class=\"pass\"><td><a href=\"/runs/$run612\">$run612</a></td>" "$body"
expect_eq "GET /cases/no-such-case: a 404 page" 404 "$(get /cases/no-such-case)"

status=0
browser --dump-dom "$base/regressions" >"$tmp/regressions.html" || status=$?
expect_eq "chromium --dump-dom of /regressions: exit status" 0 "$status"
body=$(cat "$tmp/regressions.html")
expect_contains "DOM of /regressions: the search box" "<form class=\"search\" method=\"get\" action=\"/search\">" "$body"
expect_eq "DOM of /regressions: one open regression" 1 "$(grep -c '<tr class="regression">' "$tmp/regressions.html")"
row=$(grep -F '<tr class="regression">' "$tmp/regressions.html")
expect_contains "DOM of /regressions: $queue_name on 6.1, run $run, $culprit linked" \
	"<td><a href=\"/queues/$queue_name\">$queue_name</a></td><td>6.1</td><td><a href=\"/runs/$run\">$run</a> on 6.1.192</td>" "$row"
expect_contains "DOM of /regressions: its patch and case linked" "<a href=\"/patches/$culprit\">$culprit</a>" "$row"
expect_contains "DOM of /regressions: its case linked" "<a href=\"/cases/test.pl\">test.pl</a>" "$row"
expect_contains "DOM of /regressions: 6.12 has nothing open" \
	"<tr class=\"clean\"><td><a href=\"/queues/$queue_name\">$queue_name</a></td><td>6.12</td>" "$body"
expect_eq "GET /api/regressions: still the JSON" "application/json" \
	"$(curl -s -o /dev/null -w '%{content_type}' "$base/api/regressions" | cut -d';' -f1)"

# 7. Hostile text in the names of the new pages: a queue (series folder),
# a dropped patch and a case name carrying a script and an attribute
# break-out, in a finished run of their own.
hostile_queue='q<script>alert(1)</script>"><img src=x onerror=alert(1)>'
hostile_case='case<script>alert(1)</script>"><img src=x onerror=alert(1)>'
sql_quote() { printf %s "$1" | sed "s/'/''/g"; }
status=0
sqlite3 "$tmp/gate.db" "INSERT INTO snapshot (queue, source, content_hash)
		VALUES ('$(sql_quote "$hostile_queue")', '$(sql_quote "$hostile_subject")', 'hostile');
	INSERT INTO patch (snapshot_id, position, name, subject)
		SELECT id, 1, '$(sql_quote "$hostile_name")', '$(sql_quote "$hostile_subject")' FROM snapshot
		WHERE content_hash = 'hostile';
	INSERT INTO run (snapshot_id, base, suite, verdict, started_at, finished_at, seconds, builds, boots)
		SELECT id, '6.1.192', 's', 'drop', strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 minute'),
			strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+2 minutes'), 60, 1, 1 FROM snapshot
		WHERE content_hash = 'hostile';
	INSERT INTO verdict (run_id, patch_id, status, reason, regressions, evidence)
		SELECT (SELECT max(id) FROM run), p.id, 'drop', 'regression', json_array('$(sql_quote "$hostile_case")'),
			'<script>alert(3)</script>' FROM patch p JOIN snapshot s ON s.id = p.snapshot_id
		WHERE s.content_hash = 'hostile'" 2>"$tmp/insert.err" || status=$?
expect_eq "a hostile queue, patch and case inserted$([ -s "$tmp/insert.err" ] && echo ": $(cat "$tmp/insert.err")")" 0 "$status"
for page in "/queues/$(url_encode "$hostile_queue")" "/cases/$(url_encode "$hostile_case")" /regressions; do
	inert_dom "$page" "$tmp/hostile.html"
	expect_contains "DOM of $page: the dropped patch's name shown as text, linked by its encoded name" \
		"<a href=\"/patches/$(url_encode "$hostile_name")\">&lt;script&gt;alert(1)&lt;/script&gt;\"&gt;&lt;img src=x onerror=alert(1)&gt;.patch</a>" \
		"$(cat "$tmp/hostile.html")"
done
expect_contains "DOM of /regressions: the hostile case linked by its encoded name" \
	"<a href=\"/cases/$(url_encode "$hostile_case")\">case&lt;script&gt;" "$(cat "$tmp/hostile.html")"

# 8. One history (issue 23 item 2): a run made from the command line for
# a configured queue's source shows as that queue's latest verdict, also
# when the path is spelt another way; a queue the daemon never ran shows
# it too, instead of "never gated".
cat >>"$tmp/gate.conf" <<CONF
[queue "cli-only"]
	config-check = none
	url = $queue
	poll = 0
	secret = $secret
CONF
kill -HUP "$daemon"
wait_for 10 grep -q "^reloaded .*: 2 queues" "$tmp/serve.log" || fail "the daemon reloaded with a second queue"
status=0
(cd "$top/patches" && "$gate" run --config-check none --queue "queues/../queues/${queue##*/}" --db "$tmp/gate.db" \
	--json "$tmp/cli.json" >"$tmp/cli.out" 2>"$tmp/cli.err") || status=$?
cli_run=$(jq -r .run "$tmp/cli.json" 2>/dev/null)
expect_eq "a second run from the command line, the path spelt another way: drop" "1 drop" \
	"$status $(jq -r .verdict "$tmp/cli.json" 2>/dev/null)"
status=0
browser --dump-dom "$base/" >"$tmp/dom.html" || status=$?
expect_eq "chromium --dump-dom of GET / after the command-line run: exit status" 0 "$status"
section() { sed -n "/<h2>$1<\/h2>/,/<\/section>/p" "$tmp/dom.html"; }
expect_contains "DOM: stable-6.1 shows the newer command-line run" \
	"Run <a href=\"/runs/$cli_run\">$cli_run</a> on 6.1.192: <strong>DROP</strong>, 1 of 6 patches to drop (run from the command line)" \
	"$(section stable-6.1)"
expect_contains "DOM: cli-only, which no job ran, shows it too" \
	"Run <a href=\"/runs/$cli_run\">$cli_run</a> on 6.1.192: <strong>DROP</strong>" "$(section cli-only)"
expect_eq "DOM: cli-only is not 'never gated'" 0 "$(section cli-only | grep -c 'never gated')"

# 9. The run page's links to the review thread's reply and the KCIDB
# submission: the daemon renders what `backport-gate report` prints.
status=0
browser --dump-dom "$base/runs/$run" >"$tmp/run.html" || status=$?
expect_contains "DOM of /runs/$run: links to its reply and its KCIDB submission" \
	"<a href=\"/api/runs/$run/reply\">reply on the review thread</a> (the mail), <a href=\"/api/runs/$run/kcidb\">KCIDB submission</a>" \
	"$(cat "$tmp/run.html")"
expect_eq "GET /api/runs/$run/reply: 200, plain text" "200 text/plain" \
	"$(curl -s -o "$tmp/reply.txt" -w '%{http_code} %{content_type}' "$base/api/runs/$run/reply" | cut -d';' -f1)"
expect_contains "the reply asks to drop the culprit" "Please drop: $culprit" "$(cat "$tmp/reply.txt")"
# the body is the command's, past the headers (Date and Message-ID differ)
"$gate" report "$run" --db "$tmp/gate.db" --format reply >"$tmp/reply-cli.txt" 2>/dev/null
expect_eq "the reply's body is what report --format reply prints" \
	"$(sed '1,/^$/d' "$tmp/reply-cli.txt")" "$(sed '1,/^$/d' "$tmp/reply.txt")"
expect_eq "GET /api/runs/$run/kcidb: 200, JSON" "200 application/json" \
	"$(curl -s -o "$tmp/kcidb.json" -w '%{http_code} %{content_type}' "$base/api/runs/$run/kcidb" | cut -d';' -f1)"
"$gate" report "$run" --db "$tmp/gate.db" --format kcidb >"$tmp/kcidb-cli.json" 2>/dev/null
expect_eq "the KCIDB submission is what report --format kcidb prints" \
	"$(jq -S . "$tmp/kcidb-cli.json" 2>&1)" "$(jq -S . "$tmp/kcidb.json" 2>&1)"
expect_eq "GET /api/runs/999999/kcidb: 404" 404 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$base/api/runs/999999/kcidb")"
expect_eq "GET /api/runs/$run/other: 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/runs/$run/other")"

# 10. The queue page by branch: 6.12 holds the one run judged there.
status=0
browser --dump-dom "$base$queue_page?branch=6.12" >"$tmp/queue612.html" || status=$?
expect_eq "chromium --dump-dom of $queue_page?branch=6.12: exit status" 0 "$status"
expect_eq "DOM of $queue_page?branch=6.12: one timeline row, run $run612 on 6.12" "1 1" \
	"$(grep -c '<tr class="run ' "$tmp/queue612.html") $(grep -c "<tr class=\"run pass\"><td><a href=\"/runs/$run612\">$run612</a></td><td>6.12</td>" "$tmp/queue612.html")"
expect_contains "DOM of $queue_page?branch=6.12: a link back to every branch" \
	"Branches: <a href=\"$queue_page\">all</a>" "$(cat "$tmp/queue612.html")"

# 11. A case in one queue: the grid of the runs where its outcome changed
# and the patches they blamed (the 2019 change, for test.pl).
status=0
browser --dump-dom "$base/cases/test.pl?queue=$(url_encode "$queue_name")" >"$tmp/grid.html" || status=$?
expect_eq "chromium --dump-dom of /cases/test.pl?queue=$queue_name: exit status" 0 "$status"
expect_contains "DOM of the case in one queue: a grid row for the culprit, regressed in run $run" \
	"<tr><td><a href=\"/patches/$culprit\">$culprit</a></td><td class=\"regressed\">regressed</td>" \
	"$(cat "$tmp/grid.html")"

# 12. A queue gated for real whose patch's file name and subject carry
# markup (issue 23 item 3): the gate reads it and keeps it (a change to
# documentation the test kernel does not read), the record holds it as
# written, and no page made from the record gets an element or an
# attribute from it.
hostile_dir=$top/tests/data/patches/hostile-names
hostile_file=$(head -n 1 "$hostile_dir/series")
status=0
"$gate" run --config-check none --queue "$hostile_dir" --db "$tmp/gate.db" --json "$tmp/hostile.json" \
	>"$tmp/hostile.out" 2>"$tmp/hostile.err" || status=$?
expect_eq "the gate on a queue whose patch's name and subject carry markup: pass, the patch kept as named" \
	"0 pass $hostile_file" "$status $(jq -r '"\(.verdict) \(.patches[0].name)"' "$tmp/hostile.json" 2>/dev/null)"
hostile_run=$(jq -r .run "$tmp/hostile.json" 2>/dev/null)
for page in "/runs/$hostile_run" "/patches/$(url_encode "$hostile_file")" "/search?q=$(url_encode 'docs: alert(1)')"; do
	inert_dom "$page" "$tmp/gated.html" " (gated)"
	expect_contains "DOM of $page (gated): the file name shown as text" \
		"&lt;script&gt;alert(1)&lt;script&gt;\"&gt;&lt;img-src=x-onerror=alert(1)&gt;.patch" "$(cat "$tmp/gated.html")"
	expect_contains "DOM of $page (gated): the subject shown as text" \
		"docs: &lt;script&gt;alert(1)&lt;/script&gt;\"&gt;&lt;img src=x onerror=alert(1)&gt;" "$(cat "$tmp/gated.html")"
done
