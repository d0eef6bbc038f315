#!/bin/bash
# contrib/systemd: rdmalimit-cache.service and .path, rdmalimit-status.service and .timer as
# built (sbindir, sysconfdir substituted) pass systemd-analyze verify, carry the sandboxing
# they were given, and score at most the exposure measured when they were hardened
# (systemd-analyze security --offline=true, printed); each service's ExecStart, run with the
# unit's own capability bounding set and no_new_privs in a private mount namespace, does its
# work: the cache a login takes for the policy's interface selection (own /run and
# /etc/security), the metrics file for node_exporter (own /var/lib/prometheus).
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

STATUS=$B/contrib/systemd/rdmalimit-status.service
TIMER=$B/contrib/systemd/rdmalimit-status.timer
check "the opt-in status units are built" test -s "$STATUS" -a -s "$TIMER"
check "... no placeholder is left" sh -c "! grep -q '@[a-z]*@' '$STATUS' '$TIMER'"
status_exec=$(sed -n 's/^ExecStart=//p' "$STATUS")
check "status: ExecStart runs the tool itself, no shell ($status_exec)" \
	test "${status_exec#/*/rdmalimits }" = "status --prometheus --output /var/lib/prometheus/node-exporter/rdmalimit.prom"

# key ones of the sandboxing each unit was given
has() { grep -qx "$2" "$1"; }
for u in "$SVC" "$STATUS"; do
	n=${u##*/}
	for d in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateMounts=yes \
		ProtectKernelTunables=yes ProtectKernelModules=yes ProtectKernelLogs=yes ProtectControlGroups=yes \
		ProtectClock=yes ProtectHostname=yes RestrictRealtime=yes RestrictSUIDSGID=yes LockPersonality=yes \
		MemoryDenyWriteExecute=yes SystemCallArchitectures=native AmbientCapabilities= UMask=0077; do
		check "$n: $d" has "$u" "$d"
	done
	check "$n: TimeoutStartSec=" grep -q '^TimeoutStartSec=[0-9]' "$u"
	check "$n: RestrictAddressFamilies=" grep -q '^RestrictAddressFamilies=AF_' "$u"
	check "$n: SystemCallFilter=@system-service" grep -q '^SystemCallFilter=@system-service' "$u"
done
check "cache: no capability at all" has "$SVC" "CapabilityBoundingSet="
check "cache: /dev closed but for the uverbs devices (max_mr_size)" \
	sh -c "grep -qx DevicePolicy=closed '$SVC' && grep -qx 'DeviceAllow=char-infiniband_verbs rw' '$SVC'"
check "cache: no namespace" has "$SVC" "RestrictNamespaces=yes"
check "status: exactly the capabilities it needs" has "$STATUS" \
	"CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_NET_RAW CAP_DAC_READ_SEARCH CAP_SYS_PTRACE CAP_SYS_ADMIN CAP_KILL"
check "status: PrivateDevices=yes" has "$STATUS" "PrivateDevices=yes"
check "status: network namespaces only (setns)" has "$STATUS" "RestrictNamespaces=net"
check "status: writes only the textfile directory" has "$STATUS" "ReadWritePaths=-/var/lib/prometheus/node-exporter"

# the exposure systemd-analyze security gave the units when they were hardened: cache 1.9,
# status 3.6 (before: 8.7 and 7.8), then 3.7 with CAP_KILL (0.1: killing a stalled probe child
# that has become the user); a unit that loses some of its sandboxing scores higher
declare -A MAX_EXPOSURE=([rdmalimit-cache.service]=1.9 [rdmalimit-status.service]=3.7)
if command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants ExecStart's program where the unit says: the built tool stands in for it
	mkdir -p "$T/units"
	for u in "$SVC" "$STATUS"; do
		sed "s|^ExecStart=[^ ]*|ExecStart=$B/rdmalimits|" "$u" > "$T/units/${u##*/}"
	done
	cp "$PATHU" "$TIMER" "$T/units/"
	if (cd "$T/units" && systemd-analyze verify --man=no ./*.service ./*.path ./*.timer) > "$T/verify" 2>&1 &&
		! [ -s "$T/verify" ]; then
		ok "systemd-analyze verify: the four units, nothing said"
	else
		fail "systemd-analyze verify: the four units, nothing said"
		sed 's/^/#   /' "$T/verify"
	fi
	for n in rdmalimit-cache.service rdmalimit-status.service; do
		(cd "$T/units" && systemd-analyze security --offline=true --no-pager "./$n") > "$T/sec.$n" 2>&1
		score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$T/sec.$n")
		diag "$n: systemd-analyze security --offline=true: exposure $score (at most ${MAX_EXPOSURE[$n]})"
		grep '^✗' "$T/sec.$n" | sed 's/ \{2,\}/  /g; s/^/    /' | while IFS= read -r l; do diag "$l"; done
		check "$n: exposure $score <= ${MAX_EXPOSURE[$n]}" \
			awk -v s="$score" -v m="${MAX_EXPOSURE[$n]}" 'BEGIN { exit !(s != "" && s + 0 <= m + 0) }'
	done
else
	skip_ci "systemd-analyze is missing"
fi

# setpriv's --bounding-set for a unit's CapabilityBoundingSet= ("-all" and "+cap" each)
bounding() {
	local caps c out=-all
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$1")
	for c in $caps; do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "$out"
}

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
	setpriv --bounding-set='"$(bounding "$SVC")"' --no-new-privs '"$B/rdmalimits ${exec_start#* }"' > "$2/out" 2>&1
	cp /run/rdmalimit/hw.cache "$2/cache"
	stat -c "%u %a" /run/rdmalimit/hw.cache > "$2/mode"
' svc "$T/sec" "$T"
check "the service's command writes /run/rdmalimit/hw.cache (root, 0600)" test "$(cat "$T/mode" 2>/dev/null)" = "0 600"
check "... a hardware cache" grep -qx '# rdmalimit hardware cache v4' "$T/cache"
check "... for the interface selection of the policy the module reads ($policy)" \
	grep -q '^fingerprint .*sel=inc=2:lo,' "$T/cache"
check "... said so" grep -qF "saved the hardware summary to /run/rdmalimit/hw.cache" "$T/out"

# the status service's command, with its capabilities and no_new_privs, in a private
# /var/lib/prometheus (owned by another user, as Debian's prometheus user owns it) holding a
# root-owned node-exporter directory; a user's process for its probe to measure
setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all sleep 300 &
SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; rm -rf "$T"' EXIT
unshare --mount --propagation private bash -c '
	set -e
	mkdir -p /var/lib/prometheus
	mount -t tmpfs -o mode=0755 tmpfs /var/lib/prometheus
	chown 65534:65534 /var/lib/prometheus
	mkdir -m 0755 /var/lib/prometheus/node-exporter
	setpriv --bounding-set='"$(bounding "$STATUS")"' --no-new-privs '"$B/rdmalimits ${status_exec#* }"' \
		> "$1/sout" 2>&1 || echo "exit $?" >> "$1/sout"
	cp /var/lib/prometheus/node-exporter/rdmalimit.prom "$1/prom"
	stat -c "%u %a" /var/lib/prometheus/node-exporter/rdmalimit.prom > "$1/smode"
	ls -A /var/lib/prometheus/node-exporter > "$1/sls"
' svc "$T"
kill $SLEEPER 2>/dev/null
check "status service's command: exit 0, nothing said" test ! -s "$T/sout"
check "... writes rdmalimit.prom (root, 0644)" test "$(cat "$T/smode" 2>/dev/null)" = "0 644"
check "... and nothing else in the directory" test "$(cat "$T/sls" 2>/dev/null)" = "rdmalimit.prom"
check "... the probe measured a user's charge (CAP_SETUID, CAP_SETGID, CAP_NET_RAW are there)" \
	grep -q '^rdmalimit_user_memlock_charged_bytes{user="nobody",uid="65534",method="probe",bound="[a-z_]*"} [0-9]' "$T/prom"
if command -v promtool >/dev/null 2>&1; then
	check "... promtool check metrics accepts it" sh -c "promtool check metrics < '$T/prom' > '$T/promtool' 2>&1"
else
	skip_ci "promtool is installed (Debian package prometheus)"
fi
[ -s "$T/sout" ] && sed 's/^/#   /' "$T/sout"

# A user who stops every process of his uid as it appears (kill -STOP -1 in a loop), the probe
# child of status the moment it has become him: with the unit's capabilities, status kills it
# at its deadline (CAP_KILL: the child is another uid's); without CAP_KILL the kill fails with
# EPERM and the stopped child stays, which status says
STALL_UID=65533
setpriv --reuid $STALL_UID --regid $STALL_UID --clear-groups --inh-caps=-all --bounding-set=-all \
	bash -c 'while :; do kill -STOP -1 2>/dev/null; done' &
STALLER=$!
trap 'kill $SLEEPER $STALLER 2>/dev/null; rm -rf "$T"' EXIT
# the stop races with the probe's answer: runs are repeated until one is caught (at most 30)
stalled() {
	local i
	for ((i = 0; i < 30; i++)); do
		setpriv --bounding-set="$1" --no-new-privs "$B/rdmalimits" status $STALL_UID --probe-timeout 1 > "$2" 2>&1
		grep -q "the probe of .*did not answer in 1 s" "$2" && return 0
	done
	return 1
}
check "status with the unit's capabilities: a stopped probe child did not answer in 1 s" \
	stalled "$(bounding "$STATUS")" "$T/stall"
check "... and was killed (the unit has CAP_KILL)" sh -c "! grep -q 'could not be killed' '$T/stall'"
nokill=$(bounding "$STATUS" | sed 's/,+kill//')
stalled "$nokill" "$T/stall2"
check "without CAP_KILL status says the stopped child could not be killed" \
	grep -q "did not answer in 1 s; it could not be killed (EPERM: this process lacks CAP_KILL)" "$T/stall2"
kill $STALLER 2>/dev/null
wait $STALLER 2>/dev/null
pkill -KILL -u $STALL_UID 2>/dev/null
done_testing
