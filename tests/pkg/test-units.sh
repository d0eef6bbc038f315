#!/bin/bash
# contrib/systemd: rdmalimit-cache.service and .path as built (sbindir, sysconfdir substituted)
# pass systemd-analyze verify, and the service's ExecStart, run in a private mount namespace
# with its own /run and /etc/security, writes the hardware cache a login takes, for the
# policy's interface selection.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan
require_root "systemd units (private /run and /etc/security)"

B=${top_builddir:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SVC=$B/contrib/systemd/rdmalimit-cache.service
PATHU=$B/contrib/systemd/rdmalimit-cache.path
check "the units are built" test -s "$SVC" -a -s "$PATHU"
check "no placeholder is left" sh -c "! grep -q '@[a-z]*@' '$SVC' '$PATHU'"
exec_start=$(sed -n 's/^ExecStart=//p' "$SVC")
policy=$(sed -n 's/^PathChanged=//p' "$PATHU")
check "ExecStart runs rdmalimits probe --save ($exec_start)" test "${exec_start##*/}" = "rdmalimits probe --save"
check "the path unit watches the policy the service needs ($policy)" \
	grep -qx "ConditionPathExists=$policy" "$SVC"

if command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants ExecStart's program where the unit says: the built tool stands in for it
	mkdir -p "$T/units"
	sed "s|^ExecStart=[^ ]*|ExecStart=$B/rdmalimits|" "$SVC" > "$T/units/rdmalimit-cache.service"
	cp "$PATHU" "$T/units/"
	if systemd-analyze verify --man=no "$T/units/rdmalimit-cache.service" "$T/units/rdmalimit-cache.path" \
		> "$T/verify" 2>&1; then
		ok "systemd-analyze verify"
	else
		fail "systemd-analyze verify"
		sed 's/^/#   /' "$T/verify"
	fi
else
	skip "systemd-analyze is missing"
fi

# what the service does, with the built tool, in a private /run and /etc/security (the
# configured sysconfdir's: under make distcheck, a directory of the build tree)
mkdir -p "$T/sec"
printf 'version = 1;\nhardware = { include = [ "lo" ]; };\nrules = ( { group = "rdma_users"; memlock = "4M"; } );\n' > "$T/sec/rdmalimit.conf"
chown 0:0 "$T/sec/rdmalimit.conf"
chmod 0644 "$T/sec/rdmalimit.conf"
unshare --mount --propagation private bash -c '
	set -e
	mount -t tmpfs tmpfs /run
	mkdir -p '"$(dirname "$policy")"'
	mount --bind "$1" '"$(dirname "$policy")"'
	'"$B/rdmalimits ${exec_start#* }"' > "$2/out" 2>&1
	cp /run/rdmalimit/hw.cache "$2/cache"
	stat -c "%u %a" /run/rdmalimit/hw.cache > "$2/mode"
' svc "$T/sec" "$T"
check "the service's command writes /run/rdmalimit/hw.cache (root, 0600)" test "$(cat "$T/mode" 2>/dev/null)" = "0 600"
check "... a hardware cache" grep -qx '# rdmalimit hardware cache v4' "$T/cache"
check "... for the interface selection of the policy the module reads ($policy)" \
	grep -q '^fingerprint .*sel=inc=2:lo,' "$T/cache"
check "... said so" grep -qF "saved the hardware summary to /run/rdmalimit/hw.cache" "$T/out"
done_testing
