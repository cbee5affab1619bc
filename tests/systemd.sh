#!/bin/bash
# The units in systemd/ pass systemd-analyze verify, with ExecStart pointing
# at the binary this tree built; the sample configuration passes
# serve --check.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}

mkdir -p "$tmp/units"
sed "s|/usr/bin/backport-gate|$gate|g; s|/etc/backport-gate/gate.conf|$top/systemd/backport-gate.conf|g" \
	"$top/systemd/backport-gate.service" >"$tmp/units/backport-gate.service"
status=0
report=$(systemd-analyze verify "$tmp/units/backport-gate.service" 2>&1) || status=$?
expect_eq "systemd-analyze verify backport-gate.service" 0 "$status"
[ "$status" -eq 0 ] || printf '%s\n' "$report" | sed 's/^/# /'
expect_eq "the unit is Type=notify with a watchdog" "notify 60" \
	"$(sed -n 's/^Type=//p' "$top/systemd/backport-gate.service") $(sed -n 's/^WatchdogSec=//p' "$top/systemd/backport-gate.service")"
for key in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes \
	User=backport-gate StateDirectory=backport-gate CacheDirectory=backport-gate; do
	expect_eq "the unit sets $key" 1 "$(grep -cx "$key" "$top/systemd/backport-gate.service")"
done
status=0
out=$("$gate" serve --check --config "$top/systemd/backport-gate.conf" 2>&1) || status=$?
expect_eq "the sample configuration passes serve --check" 0 "$status"
expect_contains "the sample configuration: one queue on loopback" "ok, 1 queue, listen 127.0.0.1:8080" "$out"
if command -v systemd-sysusers >/dev/null; then
	status=0
	systemd-sysusers --dry-run "$top/systemd/backport-gate.sysusers" >"$tmp/sysusers" 2>&1 || status=$?
	expect_eq "sysusers.d file parses (dry run)" 0 "$status"
fi
