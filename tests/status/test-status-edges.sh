#!/bin/bash
# rdmalimits status and doctor --pid at three edges, each against what the kernel does:
#   - a process in a user namespace (unshare -r, a rootless container) has a full CapEff, but
#     the kernel checks CAP_IPC_LOCK in the initial user namespace: its AF_XDP UMEM is charged.
#     status and doctor took it for exempt ("neither charged nor limited").
#   - a user whose charge fills its limit exactly: no page left.  The probe stopped one page
#     short ("at least 8188 KiB", headroom unknown; doctor: "can still register 4 KiB").
#   - more network namespaces than status dumps (a user can make them): the sockets of the
#     others are not silently left out; the probe is used and status says why.
# Root only: a private mount and network namespace, throwaway users (a private passwd).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=status-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/status/status-lib.sh"

if [ "${1:-}" != --inner ]; then
	require_root test-status-edges
	status_serial
	XSK_HOLD=${XSK_HOLD:-$top_builddir/tests/status/xsk-hold}
	export XSK_HOLD RDMALIMITS top_srcdir top_builddir
	exec unshare -m --net --propagation private bash "$0" --inner
fi

no_plan
KIB=1024
MIB=$((1024 * 1024))
T=$(mktemp -d /tmp/test-status-edges.XXXXXX)
cleanup() {
	exec 7>&- 8>&- 2>/dev/null || true
	# the test's users are its own: every process of theirs goes (a holder whose FIFO another
	# child still holds open would not see its end)
	pkill -KILL -u "$ID3" 2>/dev/null
	pkill -KILL -u "$ID4" 2>/dev/null
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	testcg_remove
	rm -rf "$T"
}
# shellcheck source=../lib/testcg.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/testcg.sh"
trap cleanup EXIT
if [ ! -x "$XSK_HOLD" ]; then
	fail "xsk-hold helper built ($XSK_HOLD)"
	done_testing
fi
U3=rlste U4=rlstf ID3=64221 ID4=64222
cp /etc/passwd "$T/passwd" && cp /etc/group "$T/group"
printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$U3" $ID3 $ID3 "$U4" $ID4 $ID4 >> "$T/passwd"
printf '%s:x:%s:\n' "$U3" $ID3 "$U4" $ID4 >> "$T/group"
mount --bind "$T/passwd" /etc/passwd && mount --bind "$T/group" /etc/group
ip link set lo up
HARD=$(ulimit -H -l)
[ "$HARD" = unlimited ] && HARD=$((64 * 1024))
HARD=$((HARD * KIB))
L=$((2 * MIB))
if [ "$HARD" -lt "$L" ]; then
	fail "a hard memlock of at least 2 MiB to test with (have $HARD bytes)"
	done_testing
fi

J=$T/status.json
q() { python3 -c "import json,sys; d=json.load(open('$J')); $1" 2>&1; }

# --- a process in its own user namespace holds a 1 MiB UMEM
if ! as_user $ID3 $L $L unshare -r true 2>/dev/null; then
	fail "an unprivileged user can make a user namespace here (unshare -r)"
	done_testing
fi
mkfifo "$T/in3" "$T/in4"
as_user $ID3 $L $L unshare -rn "$XSK_HOLD" hold 1M < "$T/in3" > "$T/out3" 2>&1 &
exec 7> "$T/in3"
wait_line "$T/out3"
read -r w3 I3 < "$T/out3"
[ "$w3" = ok ] || { fail "UMEM registered in a user namespace: $(cat "$T/out3")"; done_testing; }
P3=$(pid_of_inode "$I3")
check "the holder ($P3) has every capability in its user namespace" \
	test "$(awk '/^CapEff:/ { print $2 }' "/proc/$P3/status")" != 0000000000000000
"$RDMALIMITS" status --json > "$J" 2> "$T/err"
is "status: its CAP_IPC_LOCK is its namespace's, not the host's: no exemption" \
	"$(q "p=[x for x in d['processes'] if x['pid']==$P3][0]; print(p['cap_ipc_lock'])")" False
is "status: $U3 charged 1 MiB, headroom 1 MiB" \
	"$(q "u=[x for x in d['users'] if x['uid']==$ID3][0]; print(u['charged'], u['headroom'])")" "$MIB $MIB"
"$RDMALIMITS" doctor --pid "$P3" > "$T/doc3" 2>&1
check "doctor --pid: charged, with what it can still register, not 'neither charged nor limited'" \
	grep -qF "xsk-hold (pid $P3): charged to user $U3's locked memory (AF_XDP UMEMs of all its processes): 1 MiB" "$T/doc3"
check "... and no exemption claimed" bash -c '! grep -q "neither charged nor limited" "$1"' _ "$T/doc3"
is "kernel: a namespace of the same user can still register exactly 1 MiB" \
	"$(as_user $ID3 $L $L unshare -rn "$XSK_HOLD" max)" "max $MIB"

# --- a user whose charge fills its limit: nothing left
as_user $ID4 $L $L "$XSK_HOLD" hold 2M < "$T/in4" > "$T/out4" 2>&1 &
exec 8> "$T/in4"
wait_line "$T/out4"
read -r w4 I4 < "$T/out4"
[ "$w4" = ok ] || { fail "a UMEM of the whole limit: $(cat "$T/out4")"; done_testing; }
P4=$(pid_of_inode "$I4")
"$RDMALIMITS" status --json > "$J" 2> "$T/err"
is "status: $U4's charge is at least its whole 2 MiB limit, headroom 0" \
	"$(q "u=[x for x in d['users'] if x['uid']==$ID4][0]; print(u['charged'] >= $L, u['headroom'])")" "True 0"
"$RDMALIMITS" doctor --pid "$P4" > "$T/doc4" 2>&1
check "doctor --pid: nothing left to register" grep -qF "this process can still register 0 B" "$T/doc4"
grep -q "can still register" "$T/doc4" || sed 's/^/#   /' "$T/doc4"
is "kernel: not one page more" "$(as_user $ID4 $L $L "$XSK_HOLD" max)" "max 0"
# pin-test as that user, soft 2 MiB (all of it charged), hard 4 MiB: the probe measures past
# the soft limits of all the user's processes, up to pin-test's hard one, so the fix is to raise
# only the soft limit, to the charge plus the size (not "stop the holder", nor an unknown sum)
(cd "$T" && as_user $ID4 $L $((2 * L)) "$RDMALIMITS" pin-test 1M --json > "$T/pin.json" 2> "$T/pin.err")
is "pin-test 1M as $U4 (soft 2 MiB, all charged; hard 4 MiB) fails (exit 1)" $? 1
is "pin-test: the charge is exact past the soft limit: 2 MiB, not 'at least'" \
	"$(python3 -c "import json; a=json.load(open('$T/pin.json'))['accounting']; print(a['user_charged'], a['user_charged_at_least'])" 2>&1)" \
	"$L False"
is "pin-test: fix raise-soft to 3 MiB (2 MiB charged + 1 MiB)" \
	"$(python3 -c "import json; a=json.load(open('$T/pin.json'))['accounting']; print(a['fix'], 'ulimit -S -l 3072 ' in a['fix_text'])" 2>&1)" \
	"raise-soft True"
is "kernel: with soft 3 MiB the 1 MiB UMEM registers beside the holder's 2 MiB" \
	"$(as_user $ID4 $((3 * MIB)) $((2 * L)) "$XSK_HOLD" try 1M)" ok
# ... and its unit, and the metrics: a charge the probe could only bound from below says so
# everywhere ("at least"), as the user's row does
if testcg_make rdmalimits-edges && mkdir -p "$CG/system.slice/rlt-full.service" &&
	echo "$P4" > "$CG/system.slice/rlt-full.service/cgroup.procs"; then
	"$RDMALIMITS" status --json > "$J" 2> "$T/err"
	m4=$(q "print([x for x in d['users'] if x['uid']==$ID4][0]['charged_method'])")
	if [ "$m4" = probe ]; then
		b4=at_least lb=True
	else
		b4=exact lb=False    # sock_diag counts the pages themselves
	fi
	diag "the charge of $U4 by $m4: bound $b4"
	is "unit rlt-full.service: the user's charge, bound as the user's ($b4), headroom 0" \
		"$(q "u=[x for x in d['units'] if x['unit']=='rlt-full.service'][0]; print(u['charged_method'], u['charged_at_least'], u['headroom'])")" \
		"$m4 $lb 0"
	"$RDMALIMITS" status --prometheus > "$T/prom" 2> "$T/err"
	check "Prometheus: the user's charge has bound=\"$b4\"" \
		grep -q "^rdmalimit_user_memlock_charged_bytes{user=\"$U4\",uid=\"$ID4\",method=\"$m4\",bound=\"$b4\"} " "$T/prom"
	check "Prometheus: the unit's charge has bound=\"$b4\"" \
		grep -q "^rdmalimit_unit_memlock_charged_bytes{unit=\"rlt-full.service\",kind=\"unit\",method=\"$m4\",bound=\"$b4\"} " "$T/prom"
	"$RDMALIMITS" status > "$T/text" 2>&1
	if [ "$b4" = at_least ]; then
		check "text: the unit's row says >=" grep -Eq "^rlt-full\.service .* >=[0-9]" "$T/text"
	else
		check "text: the unit's row has no >=" bash -c '! grep -Eq "^rlt-full\.service .* >=" "$1"' _ "$T/text"
	fi
	grep -q "^rlt-full" "$T/text" || sed 's/^/#   /' "$T/text"
	echo "$P4" > "$CGROOT/cgroup.procs"
else
	fail "a writable cgroup v2 hierarchy for the unit (found: '${CGROOT:-none}')"
fi

# --- doctor --pid of a process near its limit with mlock()ed pages: the locked pages are
# checked against the limit on their own (VmLck; an RDMA MR's pinned ones, VmPin, on theirs)
as_user $ID4 $((1088 * KIB)) $L /usr/bin/python3 -c '
import ctypes, mmap, sys, time
libc = ctypes.CDLL(None, use_errno=True)
buf = mmap.mmap(-1, 1 << 20)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
if libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(1 << 20)) != 0:
    print("mlock failed", ctypes.get_errno()); sys.exit(1)
print("ok", flush=True)
time.sleep(600)' > "$T/out5" 2>&1 7>&- 8>&- &
wait_line "$T/out5"
P5=$(pgrep -u $ID4 -x python3)
"$RDMALIMITS" doctor --pid "$P5" > "$T/doc5" 2>&1
check "doctor --pid: 1 MiB locked (VmLck) under a soft limit of 1088 KiB: the next mlock() may fail" \
	grep -qF "python3 (pid $P5): locked memory (1 MiB, VmLck) is close to its soft limit 1088 KiB: the next mlock() may fail with ENOMEM" "$T/doc5"
grep -q "close to its soft limit" "$T/doc5" || sed 's/^/#   /' "$T/out5" "$T/doc5"
kill "$P5" 2>/dev/null

# --- more network namespaces than status dumps
for _ in $(seq 66); do
	unshare -n sleep 600 7>&- 8>&- &
done
for _ in $(seq 200); do
	[ "$(pgrep -c -x sleep)" -ge 66 ] && break
	sleep 0.05
done
"$RDMALIMITS" status --json > "$J" 2> "$T/err"
is "status: the namespaces past 64 are said to be left out" "$(q "print(d['network_namespaces'], d['network_namespaces_truncated'])")" "64 True"
is "... the probe, with why" "$(q "print(d['methods']['af_xdp'], 'more than 64 network namespaces' in d['methods']['af_xdp_why'])")" "probe True"
is "... and the charges are still right (the probe): $U3 1 MiB" \
	"$(q "u=[x for x in d['users'] if x['uid']==$ID3][0]; print(u['charged'])")" "$MIB"
"$RDMALIMITS" status > "$T/text" 2>&1
check "text: at least N sockets, the others not counted" grep -q "XDP socket.*network namespaces; the others not counted" "$T/text"
# a process's XDP sockets: the text's XSK cell says what the JSON's count says (a known 0 is 0)
sleep 300 </dev/null >/dev/null 2>&1 &
sleeper=$!
"$RDMALIMITS" status --pid "$sleeper" --threshold 0 --json > "$J" 2> "$T/err"
got=$(q "p=[x for x in d['processes'] if x['pid']==$sleeper][0]; print(p['xdp_sockets']['method'], p['xdp_sockets']['count'])")
"$RDMALIMITS" status --pid "$sleeper" --threshold 0 > "$T/text" 2>&1
cell=$(awk -v p="$sleeper" '$1 == p { print $(NF - 3) }' "$T/text")   # XSK, MR, ORIGIN (2 words)
is "a process without sockets: JSON counts 0 XDP sockets from /proc" "$got" "proc 0"
is "... and the text's XSK cell says 0 too" "$cell" 0
kill "$sleeper" 2>/dev/null
done_testing
