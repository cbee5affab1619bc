#!/bin/bash
# The reply on the stable review thread, mailed (issue 25, item 2),
# black-box: a real daemon on loopback with a [report] section and two
# queues with a review-list, a real SMTP relay started here (Debian's
# python3-aiosmtpd, tests/tools/smtp-sink), webhooks that name the review
# thread, and what arrived parsed with Python's email package. The relay
# refuses the first attempt (logged, recorded, retried, one mail), and the
# daemon is killed -9 while the relay holds a DATA unanswered (after the
# restart the reply arrives once). `report RUN --send` mails one by hand,
# and a relay that refuses or cannot be reached is named in its error.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
py=/usr/bin/python3	# Debian's, with python3-aiosmtpd
port=$(free_port)
sport=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-mail
sink=$tmp/sink
review='<20261205103000.rc1-6.1@linuxfoundation.org>'
review_subject='[PATCH 6.1 000/123] 6.1.193-rc1 review'

# Two stable-queue repositories: the 2019 change among benign backports
# (a drop) and the same queue with the revert (a pass).
for q in shebang-2019 shebang-2019-reverted; do
	mkdir -p "$tmp/$q"
	git -C "$tmp/$q" init -q -b master
	cp -r "$top/patches/queues/$q/queue-6.1" "$tmp/$q/"
	git -C "$tmp/$q" add -A
	git -C "$tmp/$q" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1"
done

cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/gate.db
[report]
	smtp = smtp://127.0.0.1:$sport
	from = backport-gate <gate@lab.example.org>
	cc = \"Lab, Test\" <lab@example.org>
[queue "drop"]
	config-check = none
	url = $tmp/shebang-2019
	poll = 0
	secret = $secret
	review-list = Stable <stable@vger.kernel.org>
[queue "pass"]
	config-check = none
	url = $tmp/shebang-2019-reverted
	poll = 0
	secret = $secret
	review-list = stable@vger.kernel.org, Greg KH <gregkh@linuxfoundation.org>
CONF

# The configuration: [report] checked at load.
conf_error() { # name text: serve --check on a bad copy; prints "STATUS MESSAGE"
	printf '%s\n' "$2" >"$tmp/$1.conf"
	local status=0 out
	out=$("$gate" serve --check --config "$tmp/$1.conf" 2>&1) || status=$?
	echo "$status $out"
}
status=0
out=$("$gate" serve --check --config "$tmp/gate.conf" 2>&1) || status=$?
expect_eq "config: [report] and review-list accepted" "0" "$status"
expect_eq "config: a review-list without [report] is refused, naming the line" \
	"2 backport-gate serve: $tmp/noreport.conf:4: queue.q.review-list: replies need [report] smtp and from" \
	"$(conf_error noreport $'[queue "q"]\n\turl = /srv/q\n\tpoll = 0\n\treview-list = stable@vger.kernel.org')"
expect_eq "config: an address without '@' is refused, naming it" \
	"2 backport-gate serve: $tmp/badaddr.conf:3: report.to: address \"stable\": the address has no '@'" \
	"$(conf_error badaddr $'[report]\n\tsmtp = smtp://127.0.0.1:25\n\tto = stable\n\tfrom = a@b')"
expect_eq "config: a relay that is not smtp(s):// is refused" \
	"2 backport-gate serve: $tmp/badurl.conf:2: report.smtp: 'http://mail:25' is not an smtp:// or smtps:// URL" \
	"$(conf_error badurl $'[report]\n\tsmtp = http://mail:25')"
expect_eq "config: user without password-file is refused" \
	"2 backport-gate serve: $tmp/nopass.conf:4: report: user and password-file go together" \
	"$(conf_error nopass $'[report]\n\tsmtp = smtp://127.0.0.1:25\n\tfrom = a@b\n\tuser = gate')"

mkdir -p "$sink"
"$py" "$top/tests/tools/smtp-sink" "$sport" "$sink" 2>"$tmp/sink.err" &
sinkpid=$!
cleanup() {
	kill "$daemon" "$sinkpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for 30 grep -q listening "$sink/log" 2>/dev/null || fail "the SMTP relay listens on $sport"

webhook() { # queue: a signed webhook naming the review thread; prints the job
	local body
	body=$(jq -cn --arg q "$1" --arg m "$review" --arg s "$review_subject" \
		'{queue: $q, in_reply_to: $m, subject: $s}')
	curl -s -X POST --data-binary "$body" \
		-H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" "$base/webhook" | jq -r .job
}
job_state() { sqlite3 "$tmp/gate.db" "SELECT state FROM job WHERE id = $1"; }
delivered() { find "$sink/delivered" -name '*.eml' | wc -l; }
# mail_field N PYTHON-EXPRESSION: of message N, parsed with the email
# package (m the message, body its text, lines its lines)
mail_field() {
	"$py" - "$sink/delivered/$1.eml" "$2" <<'PY'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
body = m.get_content()
lines = body.splitlines()
print(eval(sys.argv[2]))
PY
}

start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || fail "the daemon listens on $base"

# 1. The drop queue; the relay refuses the first attempt's recipient.
touch "$sink/refuse-rcpt"
job=$(webhook drop)
expect_eq "drop: webhook with the review thread queued a job" 1 "$job"
wait_for 900 eval '[ "$(job_state 1)" = done ]' || fail "drop: the job ended (log: $(tail -n 3 "$tmp/serve.log"))"
wait_for 60 eval '[ "$(delivered)" -ge 1 ]'
run=$(sqlite3 "$tmp/gate.db" "SELECT run_id FROM job WHERE id = 1")
expect_contains "drop: the refusal is in the log, naming the relay and what it said" \
	"mail run $run via smtp://127.0.0.1:$sport: failed: smtp://127.0.0.1:$sport: RCPT failed: 550; the relay said \"550 5.1.1 <stable@vger.kernel.org>: recipient refused by the test\"" \
	"$(cat "$tmp/serve.log")"
expect_eq "drop: the outbox row says sent after 2 attempts, the refusal kept" "mail sent 2 1" \
	"$(sqlite3 "$tmp/gate.db" "SELECT kind, state, attempts, last_error LIKE '%550 5.1.1%' FROM outbox WHERE run_id = $run" | tr '|' ' ')"
expect_eq "drop: one mail arrived" 1 "$(delivered)"
expect_eq "drop: the envelope: from the From address to the review-list and Cc" \
	"MAIL FROM gate@lab.example.org|RCPT TO stable@vger.kernel.org|RCPT TO lab@example.org" \
	"$(paste -sd'|' "$sink/delivered/1.env")"
expect_eq "drop: threaded under the review message" "$review $review" \
	"$(mail_field 1 "m['In-Reply-To'] + ' ' + m['References']")"
expect_eq "drop: Subject answers the review thread" "Re: $review_subject" "$(mail_field 1 "m['Subject']")"
expect_eq "drop: To and Cc as configured" 'Stable <stable@vger.kernel.org> | "Lab, Test" <lab@example.org>' \
	"$(mail_field 1 "m['To'] + ' | ' + m['Cc']")"
expect_eq "drop: exactly the 2019 change to drop" \
	'Please drop: exec-load_script-don-t-blindly-truncate-shebang-string.patch ("exec: load_script: don'"'"'t blindly truncate shebang string")' \
	"$(mail_field 1 "'\\n'.join(l for l in lines if l.startswith('Please drop:'))")"
expect_eq "drop: no Tested-by" "False" "$(mail_field 1 "any(l.startswith('Tested-by:') for l in lines)")"
expect_eq "drop: plain text, UTF-8" "text/plain utf-8" "$(mail_field 1 "m.get_content_type() + ' ' + m.get_content_charset()")"

# 2. The pass queue; the daemon is killed -9 while the relay holds its DATA.
touch "$sink/stall-data"
job=$(webhook pass)
wait_for 900 test -e "$sink/stalled" || fail "pass: the relay never got the reply's DATA (log: $(tail -n 3 "$tmp/serve.log"))"
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
wait_for 30 grep -q '^dropped' "$sink/log"
expect_contains "pass: the relay dropped the message it had not answered" "dropped" "$(cat "$sink/log")"
run=$(sqlite3 "$tmp/gate.db" "SELECT run_id FROM job WHERE id = $job")
expect_eq "pass: after the kill, the reply is still pending" "pending" \
	"$(sqlite3 "$tmp/gate.db" "SELECT state FROM outbox WHERE run_id = $run AND kind = 'mail'")"
start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base" || fail "the daemon restarts"
wait_for 60 eval '[ "$(delivered)" -ge 2 ]'
sleep 3	# a second copy would come within the backoff
expect_eq "pass: after the restart, the reply arrived once" 2 "$(delivered)"
expect_eq "pass: the outbox row says sent" "sent" \
	"$(sqlite3 "$tmp/gate.db" "SELECT state FROM outbox WHERE run_id = $run AND kind = 'mail'")"
expect_eq "pass: envelope to both addresses of the review-list and the Cc" \
	"MAIL FROM gate@lab.example.org|RCPT TO stable@vger.kernel.org|RCPT TO gregkh@linuxfoundation.org|RCPT TO lab@example.org" \
	"$(paste -sd'|' "$sink/delivered/2.env")"
expect_eq "pass: threaded under the review message" "$review" "$(mail_field 2 "m['In-Reply-To']")"
expect_eq "pass: Tested-by the configured identity" "Tested-by: backport-gate <gate@lab.example.org>" \
	"$(mail_field 2 "'\\n'.join(l for l in lines if l.startswith('Tested-by:'))")"
expect_eq "pass: nothing to drop" "False" "$(mail_field 2 "any(l.startswith('Please drop:') for l in lines)")"
expect_contains "pass: the result summary" "total: 272, pass: 272, fail: 0, skip: 0" "$(mail_field 2 "body")"
expect_eq "one reply per run: two runs, two mails, two Message-IDs" "2 2" \
	"$(sqlite3 "$tmp/gate.db" "SELECT COUNT(DISTINCT run_id) FROM outbox WHERE kind = 'mail'") $(
		for n in 1 2; do mail_field $n "m['Message-ID']"; done | sort -u | wc -l)"

# 3. By hand: report RUN --send.
kill "$daemon"
wait "$daemon" 2>/dev/null
daemon=
status=0
"$gate" report "$run" --db "$tmp/gate.db" --send --config "$tmp/gate.conf" --to "Maintainer <m@example.org>" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "report --send: exit status is the run's verdict (pass)" 0 "$status"
expect_eq "report --send: says where it went" \
	"backport-gate report: run $run's reply mailed via smtp://127.0.0.1:$sport to m@example.org, lab@example.org" \
	"$(cat "$tmp/err")"
expect_eq "report --send: arrived, To as given" "3 Maintainer <m@example.org>" "$(delivered) $(mail_field 3 "m['To']")"
expect_eq "report --send: threaded under the review its job answered" "$review Re: $review_subject" \
	"$(mail_field 3 "m['In-Reply-To'] + ' ' + m['Subject']")"
touch "$sink/refuse-rcpt"
status=0
"$gate" report "$run" --db "$tmp/gate.db" --send --config "$tmp/gate.conf" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "report --send: a refusal exits 2 with the relay's answer" \
	"2 backport-gate report: smtp://127.0.0.1:$sport: RCPT failed: 550; the relay said \"550 5.1.1 <stable@vger.kernel.org>: recipient refused by the test\"" \
	"$status $(cat "$tmp/err")"
sed "s|smtp://127.0.0.1:$sport|smtp://127.0.0.1:$(free_port)|" "$tmp/gate.conf" >"$tmp/closed.conf"
status=0
"$gate" report "$run" --db "$tmp/gate.db" --send --config "$tmp/closed.conf" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_contains "report --send: a relay that cannot be reached exits 2, named" \
	"2 backport-gate report: $(sed -n 's|^\tsmtp = ||p' "$tmp/closed.conf"): " "$status $(cat "$tmp/err")"
expect_eq "report --send: nothing more arrived" 3 "$(delivered)"
status=0
"$gate" report "$run" --db "$tmp/gate.db" --send --format kcidb --config "$tmp/gate.conf" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "report --send --format kcidb: refused" \
	"2 backport-gate report: --send mails the reply; --format kcidb cannot be sent" "$status $(cat "$tmp/err")"
