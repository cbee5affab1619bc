#!/bin/bash
# The compile check under a distribution's own config (run --config-check),
# as a user sees it: patches/queues/config-check holds a harmless change
# to a file only distribution configs build, a header change that breaks
# a file another patch touched, and a call to a function 6.1 lacks inside
# #ifdef CONFIG_SECURITY, which Debian's amd64 config enables and the
# gate's tinyconfig does not. With the check, the last two are dropped
# for "build" with the compiler's line; without it, all three are kept.
# Names that are no config, or a package that is not installed, exit 2
# with one line saying what to do. Uses the shared cache: the first run
# on a machine prepares Debian's config (about a minute) and builds base.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queue=$top/patches/queues/config-check
header=isofs-let-isofs_name_translate-keep-the-case.patch
call=exec-binfmt_script-let-lsms-check-the-interpreter.patch
comment=isofs-namei-capitalise-a-comment.patch
kvm=kvm-pfncache-say-file-not-module.patch

# run ARGS...: sets status, err; the JSON report in $tmp/report.json.
run() {
	status=0
	rm -f "$tmp/report.json"
	"$gate" run --db "$tmp/gate.db" --json "$tmp/report.json" "$@" >"$tmp/out" 2>"$tmp/err" ||
		status=$?
	err=$(cat "$tmp/err")
}
field() { jq -r "$1" "$tmp/report.json" 2>/dev/null; }
patch() { field ".patches[] | select(.name == \"$1\") | $2"; }

run --queue "$queue" --config-check no-such-config
expect_eq "unknown config name: exit status 2" 2 "$status"
expect_eq "unknown config name: says what a config is" \
	"backport-gate run: config-check: unknown configuration 'no-such-config': a file path, none, or one of Debian's: amd64, cloud-amd64, rt-amd64" \
	"$err"

run --queue "$queue" --config-check "$tmp/no/such.config"
expect_eq "config file that is not there: exit status 2" 2 "$status"
expect_eq "config file that is not there: names it" \
	"backport-gate run: config-check: cannot read $tmp/no/such.config: No such file or directory" "$err"

# A tree whose linux-config package is not installed: a tarball named
# linux-source-9.8 (the tree is only read once the config is found).
cp /usr/src/linux-source-6.1.tar.xz "$tmp/linux-source-9.8.tar.xz" 2>/dev/null ||
	ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/linux-source-9.8.tar.xz"
run --queue "$queue" --series queue-6.1 --tree "$tmp/linux-source-9.8.tar.xz" --config-check amd64
expect_eq "config package not installed: exit status 2" 2 "$status"
expect_eq "config package not installed: names the package to install" \
	"backport-gate run: config-check: /usr/src/linux-config-9.8/config.amd64_none_amd64.xz: No such file or directory; it comes with package linux-config-9.8 (apt-get install linux-config-9.8)" \
	"$err"

ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/linux_6.1.1.orig.tar.xz"
run --queue "$queue" --series queue-6.1 --tree "$tmp/linux_6.1.1.orig.tar.xz" --config-check amd64
expect_eq "config name on an orig tarball: exit status 2" 2 "$status"
expect_contains "config name on an orig tarball: says to give the path" \
	"is no linux-source-X.Y; give the config file's path" "$err"

# With the check: the header patch and the call are dropped for build.
start=$(date +%s)
run --queue "$queue" --config-check amd64
took=$(($(date +%s) - start))
expect_eq "with --config-check amd64: exit status 1 (drop)" 1 "$status"
expect_eq "with --config-check amd64: the header change and the call are dropped" \
	"$header $call" "$(field '.drop | join(" ")')"
expect_eq "with --config-check amd64: both for build" "build build" \
	"$(field '[.patches[] | select(.status == "drop") | .reason] | join(" ")')"
expect_eq "with --config-check amd64: the harmless changes are kept" "ok ok" \
	"$(patch "$comment" .status) $(patch "$kvm" .status)"
expect_eq "an object kbuild reaches through '..': found and compiled" "virt/kvm/pfncache.o" \
	"$(patch "$kvm" '.compile_check.configs[0].objects | join(" ")')"
expect_contains "the call: the evidence names the config" "config amd64 (" "$(patch "$call" .evidence)"
expect_contains "the call: the evidence quotes the compiler at its line" \
	"fs/binfmt_script.c:" "$(patch "$call" .evidence)"
expect_contains "the call: the missing function is named" \
	"security_bprm_check_interp" "$(patch "$call" .evidence)"
expect_contains "the call: the compiler's own words" "error: implicit declaration of function" \
	"$(patch "$call" .evidence)"
expect_contains "the header change: pinned with an error in a file it does not touch" \
	"fs/isofs/" "$(patch "$header" .evidence)"
expect_contains "the header change: the compiler's error" "error: " "$(patch "$header" .evidence)"
expect_eq "the harmless change: its object, as the config builds it" "fs/isofs/namei.o" \
	"$(patch "$comment" '.compile_check.configs[0].objects | join(" ")')"
expect_eq "the header change: the objects that include it" \
	"fs/isofs/compress.o fs/isofs/dir.o fs/isofs/export.o fs/isofs/inode.o fs/isofs/joliet.o fs/isofs/namei.o fs/isofs/rock.o fs/isofs/util.o" \
	"$(patch "$header" '.compile_check.configs[0].objects | join(" ")')"
expect_eq "the report names the configs checked" amd64 "$(field '.config_checks | join(" ")')"
expect_eq "stats.compile_seconds: the check's whole time, its set-up included" true \
	"$(field '.stats.compile_seconds >= .stats.compile_setup_seconds')"
# On a machine where an earlier run checked the same trees, they are recalled.
checks=$(field '.stats.compile_checks + .stats.compile_recalled')
if [ "${checks:-0}" -ge 2 ]; then
	pass "stats.compile_checks + compile_recalled count the trees checked ($checks)"
else
	fail "stats.compile_checks + compile_recalled: expected at least 2, got '$checks'"
fi
expect_contains "the text report says the check ran" "config check: amd64" "$(cat "$tmp/out")"
echo "# with --config-check amd64: $took s, $(field .stats.compile_objects) objects compiled, set-up $(field .stats.compile_setup_seconds) s"

# Naming no config is the same check (amd64 of linux-config-6.1, which
# make deps installs), and the trees the run above compiled are recalled.
trees=$(field '.stats.compile_checks + .stats.compile_recalled')
run --queue "$queue"
expect_eq "no --config-check: amd64 by default" amd64 "$(field '.config_checks | join(" ")')"
expect_eq "no --config-check: the same drops, for build" "$header build $call build" \
	"$(field '[.patches[] | select(.status == "drop") | "\(.name) \(.reason)"] | join(" ")')"
expect_eq "no --config-check: nothing said about the check being off" "" \
	"$(grep 'compile check off' "$tmp/err")"
expect_eq "a second run compiles no tree again: every one recalled" "0 $trees" \
	"$(field '"\(.stats.compile_checks) \(.stats.compile_recalled)"')"
expect_eq "a second run compiles no object" 0 "$(field .stats.compile_objects)"
expect_contains "recalled: the evidence is the compiler's line again" \
	"error: implicit declaration of function" "$(patch "$call" .evidence)"
expect_contains "the text report says which trees were recalled" \
	"0 trees compiled ($trees known from earlier runs)" "$(cat "$tmp/out")"

# The bound per changed header is the user's: 3 compiles the 3 nearest
# includers of the isofs header and says the bound cut the list.
run --queue "$queue" --config-check amd64 --config-check-max 3
expect_eq "--config-check-max 3: three objects for the header, cut" "3 true" \
	"$(patch "$header" '"\(.compile_check.configs[0].objects | length) \(.compile_check.configs[0].cut)"')"
run --queue "$queue" --config-check-max 0
expect_eq "--config-check-max 0: exit 2, says what it takes" \
	"2 backport-gate run: --config-check-max: '0' is not a number from 1 to 100000" "$status $err"

# Without it (none), the same queue passes: tinyconfig builds no isofs.
run --queue "$queue" --config-check amd64 --config-check none
expect_eq "--config-check none: exit status 0" 0 "$status"
expect_eq "--config-check none: nothing dropped" "" "$(field '.drop | join(" ")')"
expect_eq "--config-check none: isofs and kvm are not exercised, the call is ok" \
	"not-exercised not-exercised ok not-exercised" "$(field '[.patches[].status] | join(" ")')"
expect_eq "--config-check none: no compile check in the report" null "$(field .config_checks)"

# A queue that touches nothing a config builds compiles nothing.
mkdir -p "$tmp/docs/queue-6.1"
cp "$top/patches/queues/broken/queue-6.1/docs-binfmt-misc-replace-aka.patch" "$tmp/docs/queue-6.1/"
echo docs-binfmt-misc-replace-aka.patch >"$tmp/docs/queue-6.1/series"
run --queue "$tmp/docs" --config-check amd64
expect_eq "documentation only: exit status 0" 0 "$status"
expect_eq "documentation only: no object compiled" 0 "$(field .stats.compile_objects)"

# A source file the queue adds, with the Makefile line that builds it:
# no list made from base names its object; kbuild, asked on the candidate,
# does. The patch that breaks it is dropped for build; the one that adds
# it compiles and is kept.
added=$top/tests/data/queues/added-source
run --queue "$added" --config-check amd64
expect_eq "added source: the change that breaks it is dropped for build" \
	"isofs-read-the-hidden-flag-through-a-helper.patch build" \
	"$(field '[.patches[] | select(.status == "drop") | "\(.name) \(.reason)"] | join(" ")')"
expect_eq "added source: the patch that adds it is kept" ok \
	"$(patch isofs-add-isofs_hidden.patch .status)"
expect_eq "added source: the report says kbuild is asked about it" "fs/isofs/hidden.o" \
	"$(patch isofs-add-isofs_hidden.patch '.compile_check.configs[0].added | join(" ")')"
expect_contains "added source: the evidence quotes the compiler in the new file" \
	"fs/isofs/hidden.c:9:" "$(patch isofs-read-the-hidden-flag-through-a-helper.patch .evidence)"
expect_contains "added source: the missing function is named" "iso_record_flags" \
	"$(patch isofs-read-the-hidden-flag-through-a-helper.patch .evidence)"
run --queue "$added" --config-check none
# (the Makefile is a build rule the test kernel's build reads: exercised)
expect_eq "added source, no check: both kept, the new file not exercised" \
	"0 ok not-exercised" \
	"$status $(field '[.patches[].status] | join(" ")')"

# The sample queues with the default check keep the verdicts the booted
# suite alone gives them (gate.sh). In the demo queue (make demo), the
# kernel-doc fix of a driver Debian builds is now exercised: its object
# compiles.
start=$(date +%s)
run --queue "$top/patches/queues/shebang-2019"
expect_eq "the demo queue, default check: the 2019 change alone dropped, for regression" \
	"1 exec-load_script-don-t-blindly-truncate-shebang-string.patch regression" \
	"$status $(field '[.patches[] | select(.status == "drop") | "\(.name) \(.reason)"] | join(" ")')"
expect_eq "the demo queue, default check: the e1000 fix compiles under amd64" ok \
	"$(patch e1000-fix-kernel-doc-of-e1000_get_hw_dev.patch .status)"
echo "# the demo queue with the check: $(($(date +%s) - start)) s, $(field .stats.compile_checks) trees and $(field .stats.compile_objects) objects compiled, $(field .stats.compile_recalled) recalled"
run --queue "$top/patches/queues/shebang-2019-reverted"
expect_eq "the reverted queue, default check: nothing dropped" "0 pass 0" \
	"$status $(field '"\(.verdict) \(.drop | length)"')"
run --queue "$top/patches/queues/broken"
expect_eq "the broken queue, default check: the same two drops, with their reasons" \
	"1 binfmt_script-reword-the-hashbang-comment.patch:apply binfmt_script-initialise-retval.patch:build" \
	"$status $(field '[.patches[] | select(.status == "drop") | "\(.name):\(.reason)"] | join(" ")')"

# Naming no config where the tree has no linux-config package: the run
# says the check is off and why, and goes on (here to a queue that is not
# there, so nothing is built).
run --queue "$tmp/no-queue" --series queue-6.1 --tree "$tmp/linux-source-9.8.tar.xz"
expect_eq "no config named, package not installed: says the check is off and what to install" \
	"backport-gate run: compile check off: /usr/src/linux-config-9.8/config.amd64_none_amd64.xz: No such file or directory; it comes with package linux-config-9.8 (apt-get install linux-config-9.8)" \
	"$(head -n 1 "$tmp/err")"
run --queue "$tmp/no-queue" --series queue-6.1 --tree "$tmp/linux_6.1.1.orig.tar.xz"
expect_eq "no config named, an orig tarball: says the check is off and how to name one" \
	"backport-gate run: compile check off: tree linux_6.1.1.orig is no linux-source-X.Y, so it has no linux-config package; name a config file with --config-check PATH" \
	"$(head -n 1 "$tmp/err")"

# The daemon: a queue without the key gets the default check, one with
# config-check = none does not. Both gate the same queue by webhook.
port=$(free_port)
base=http://127.0.0.1:$port
secret=s3cret-for-tests
cat >"$tmp/gate.conf" <<CONF
[server]
	listen = 127.0.0.1:$port
	database = $tmp/serve.db
[queue "default"]
	url = $queue
	series = queue-6.1
	poll = 0
	secret = $secret
[queue "off"]
	url = $queue
	series = queue-6.1
	poll = 0
	secret = $secret
	config-check = none
CONF
if ! start_daemon "$tmp/gate.conf" "$tmp/serve.log" "$base"; then
	fail "the daemon answers"
	exit 1
fi
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
# job QUEUE: the job's final state and its run's drops, "reason name ..."
job() {
	local body="{\"queue\": \"$1\"}" id state=
	id=$(curl -s -X POST -H "X-Hub-Signature-256: sha256=$(sign "$body" "$secret")" \
		-H 'Content-Type: application/json' -d "$body" "$base/webhook" | jq -r .job)
	for _ in $(seq 900); do
		state=$(curl -s "$base/api/jobs/$id" | jq -r .state)
		case $state in done|failed) break ;; esac
		sleep 1
	done
	curl -s "$base/api/runs/$(curl -s "$base/api/jobs/$id" | jq -r .run)" >"$tmp/serve.json"
	echo "$state $(jq -r '"\(.config_checks // [] | join(",")) \([.patches[] | select(.status == "drop") | .reason] | join(" "))"' "$tmp/serve.json")"
}
expect_eq "serve, a queue without config-check: amd64, both dropped for build" \
	"done amd64 build build" "$(job default)"
expect_eq "serve, config-check = none: no check, nothing dropped" "done  " "$(job off)"
