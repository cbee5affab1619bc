#!/bin/bash
# backport-gate report RUN --format reply|kcidb on real runs: the demo queue
# (drops the 2019 change) and its reverted twin (passes). The reply is read
# back with Python's email package as a mail client would (threading
# headers, the drop lines, the trailer, 72 columns); the KCIDB output is
# validated with python3-jsonschema against the v5.3 rules
# (tests/tools/kcidb-v05_03-schema.py) and its ids must link up.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
db=$tmp/gate.db
drop_file=exec-load_script-don-t-blindly-truncate-shebang-string.patch
drop_subject="exec: load_script: don't blindly truncate shebang string"
review_id='20241203120000.123456-1-gregkh@linuxfoundation.org'

status=0
"$gate" run --config-check none --queue "$top/patches/queues/shebang-2019" --db "$db" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "run the demo queue: exit 1 (a drop)" 1 "$status"
status=0
"$gate" run --config-check none --queue "$top/patches/queues/shebang-2019-reverted" --db "$db" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "run the reverted queue: exit 0 (nothing to drop)" 0 "$status"

# mail_field FILE EXPR: EXPR of the parsed message m (and its body b)
mail_field() {
	python3 - "$1" "$2" <<'PY'
import email, email.policy, email.utils, sys
raw = open(sys.argv[1], 'rb').read()
m = email.message_from_bytes(raw, policy=email.policy.default)
b = m.get_body().get_content()
print(eval(sys.argv[2]))
PY
}

status=0
"$gate" report 1 --db "$db" --format reply --from 'Gate Lab <lab@gate.example.org>' \
	--to 'stable@vger.kernel.org' --cc 'Greg Kroah-Hartman <gregkh@linuxfoundation.org>' \
	--in-reply-to "$review_id" --subject '[PATCH 6.1 000/321] 6.1.193-rc1 review' \
	>"$tmp/drop.eml" 2>"$tmp/err" || status=$?
expect_eq "reply with a drop: exit 1, as the verdict" 1 "$status"
expect_eq "reply with a drop: Subject threads under the review" \
	"Re: [PATCH 6.1 000/321] 6.1.193-rc1 review" "$(mail_field "$tmp/drop.eml" "m['Subject']")"
expect_eq "reply with a drop: In-Reply-To" "<$review_id>" "$(mail_field "$tmp/drop.eml" "m['In-Reply-To']")"
expect_eq "reply with a drop: References" "<$review_id>" "$(mail_field "$tmp/drop.eml" "m['References']")"
expect_eq "reply with a drop: From" "Gate Lab <lab@gate.example.org>" "$(mail_field "$tmp/drop.eml" "m['From']")"
expect_eq "reply with a drop: Cc" "Greg Kroah-Hartman <gregkh@linuxfoundation.org>" \
	"$(mail_field "$tmp/drop.eml" "m['Cc']")"
expect_eq "reply with a drop: a Message-ID of its own, in the From domain" "True" \
	"$(mail_field "$tmp/drop.eml" "m['Message-ID'].startswith('<backport-gate.run-1.') and m['Message-ID'].endswith('@gate.example.org>')")"
expect_eq "reply with a drop: an RFC 5322 Date" "True" \
	"$(mail_field "$tmp/drop.eml" "email.utils.parsedate_to_datetime(m['Date']) is not None")"
expect_eq "reply with a drop: plain text, utf-8, 8bit" "text/plain utf-8 8bit" \
	"$(mail_field "$tmp/drop.eml" "m.get_content_type() + ' ' + m.get_content_charset() + ' ' + m['Content-Transfer-Encoding']")"
expect_eq "reply with a drop: exactly one Please drop line, for the 2019 change" \
	"Please drop: $drop_file (\"$drop_subject\")" \
	"$(mail_field "$tmp/drop.eml" "'\\n'.join(l for l in b.splitlines() if l.startswith('Please drop:'))")"
expect_eq "reply with a drop: no Tested-by" "0" "$(mail_field "$tmp/drop.eml" "b.count('Tested-by:')")"
body=$(mail_field "$tmp/drop.eml" "b")
expect_contains "reply with a drop: regressions compared to base" "Regressions (compared to 6.1.192):" "$body"
expect_contains "reply with a drop: the dropped patch's cases" \
	"cases:    test.pl, exact-trunc-whitespace, exact-trunc-arg, nixos-2019" "$body"
expect_contains "reply with a drop: the upstream sha" "upstream: 8099b047ecc431518b9bb6bdbba3549bbecdc343" "$body"
expect_contains "reply with a drop: evidence, argv expected and got" \
	'argv[1]="./binfmt_script-exact-trunc-arg", got errno ENOEXEC' "$body"
expect_contains "reply with a drop: the bisection" "clean without it: base + 3 patches" "$body"
expect_contains "reply with a drop: the summary counts the four regressions" "fail: 4, skip: 0" "$body"
expect_eq "reply with a drop: no line over 72 columns but quoted argv evidence and the drop line" "" \
	"$(mail_field "$tmp/drop.eml" "'\\n'.join(l for l in b.splitlines() if len(l) > 72 and not l.startswith('Please drop: ') and '\"' not in l)")"

status=0
"$gate" report 2 --db "$db" --format reply >"$tmp/pass.eml" 2>"$tmp/err" || status=$?
expect_eq "reply without a drop: exit 0" 0 "$status"
expect_eq "reply without a drop: our own Subject" "[backport-gate] queue-6.1 on 6.1.192: nothing to drop" \
	"$(mail_field "$tmp/pass.eml" "m['Subject']")"
expect_eq "reply without a drop: no threading headers without --in-reply-to" "None None" \
	"$(mail_field "$tmp/pass.eml" "str(m['In-Reply-To']) + ' ' + str(m['References'])")"
expect_eq "reply without a drop: Tested-by the default identity" \
	"Tested-by: backport-gate <backport-gate@$(hostname)>" \
	"$(mail_field "$tmp/pass.eml" "'\\n'.join(l for l in b.splitlines() if l.startswith('Tested-by:'))")"
expect_eq "reply without a drop: no Please drop" "0" "$(mail_field "$tmp/pass.eml" "b.count('Please drop:')")"
expect_contains "reply without a drop: the summary" "total: 272, pass: 272, fail: 0, skip: 0" \
	"$(mail_field "$tmp/pass.eml" "b")"
expect_eq "reply without a drop: every line within 72 columns" "" \
	"$(mail_field "$tmp/pass.eml" "'\\n'.join(l for l in b.splitlines() if len(l) > 72)")"

status=0
"$gate" report 2 --db "$db" --format reply --to $'a@b\nBcc: x@y' >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "reply: a line break in an address is refused" "2 backport-gate report: reply: --to holds a line break" \
	"$status $(cat "$tmp/err")"

python3 "$top/tests/tools/kcidb-v05_03-schema.py" >"$tmp/kcidb-schema.json"
for run in 1 2; do
	status=0
	"$gate" report $run --db "$db" --format kcidb --origin gate_test >"$tmp/kcidb-$run.json" 2>"$tmp/err" || status=$?
	expect_eq "kcidb run $run: printed" "" "$(cat "$tmp/err")"
	out=$(python3 "$top/tests/tools/kcidb-check.py" "$tmp/kcidb-schema.json" "$tmp/kcidb-$run.json" 2>&1)
	expect_contains "kcidb run $run: valid against v5.3's rules, ids linked" "valid:" "$out"
	echo "# $out" | head -n 5
done
kq() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$tmp/kcidb-$1.json"; }
expect_eq "kcidb: version 5.3" "5 3" "$(kq 1 "d['version']['major'], d['version']['minor']")"
expect_eq "kcidb: the origin given" "True" "$(kq 1 "all(o['origin'] == 'gate_test' for k in ('checkouts', 'builds', 'tests') for o in d[k])")"
expect_eq "kcidb drop: the queue as posted failed the regressed cases" \
	"shebang.exact_trunc_arg shebang.exact_trunc_whitespace shebang.nixos_2019 shebang.test_pl" \
	"$(kq 1 "' '.join(sorted(set(t['path'] for t in d['tests'] if t['status'] == 'FAIL' and t['path'] != 'shebang')))")"
expect_eq "kcidb drop: each checkout's patchset_hash (sha256 over the patches' newline-terminated sha256) and patchset_files" "True" \
	"$(python3 - "$tmp/kcidb-1.json" "$top/patches/queues/shebang-2019/queue-6.1" <<'PY'
import hashlib, json, os, sys
d = json.load(open(sys.argv[1]))
ok = True
for c in d['checkouts']:
    names = c['misc']['patches']
    want = '' if not names else hashlib.sha256(''.join(
        hashlib.sha256(open(os.path.join(sys.argv[2], n), 'rb').read()).hexdigest() + '\n'
        for n in names).encode()).hexdigest()
    files = [f['url'] for f in c.get('patchset_files', [])]
    ok = ok and c['patchset_hash'] == want and files == [
        'file://' + os.path.join(sys.argv[2], n) for n in names]
print(ok)
PY
)"
expect_eq "kcidb pass: nothing failed" "0" "$(kq 2 "sum(1 for t in d['tests'] if t['status'] in ('FAIL', 'ERROR'))")"
status=0
"$gate" report 1 --db "$db" --format kcidb --origin 'Bad-Origin' >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "kcidb: an origin outside [a-z0-9_]+ is refused" \
	"2 backport-gate report: kcidb: origin 'Bad-Origin' is not KCIDB's [a-z0-9_]+" "$status $(cat "$tmp/err")"
