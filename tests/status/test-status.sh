#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rdmalimits status and pin-test's accounting against the real kernel (root only):
#   - two throwaway users (uids 642xx, from a private copy of /etc/passwd and /etc/group bound
#     over the real ones inside a private mount namespace) hold real AF_XDP UMEMs in a private
#     network namespace, with memlock limits set by prlimit (at most the hard limit we have);
#   - the processes sit in cgroups named like systemd's (a service, a session, a docker
#     container in a private PID namespace, a Slurm step), created for the test under the
#     cgroup v2 hierarchy and removed afterwards;
#   - status shows each user's charge and headroom (sock_diag where the kernel has it for
#     AF_XDP, else the probe: the same numbers either way),
#     attributes each process, and agrees with what the kernel refuses (register until ENOBUFS);
#   - pin-test as the same user names what is already charged and which fix applies;
#   - --prometheus passes `promtool check metrics`.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=status-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/status/status-lib.sh"

if [ "${1:-}" != --inner ]; then
	require_root test-status
	status_serial
	XSK_HOLD=${XSK_HOLD:-$top_builddir/tests/status/xsk-hold}
	export XSK_HOLD RDMALIMITS top_srcdir top_builddir
	exec unshare -m --net --propagation private bash "$0" --inner
fi

no_plan
KIB=1024
MIB=$((1024 * 1024))
T=$(mktemp -d /tmp/test-status.XXXXXX)
# shellcheck source=../lib/testcg.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/testcg.sh"
cleanup() {
	exec 7>&- 8>&- 9>&- 2>/dev/null || true
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	testcg_remove
	rm -rf "$T"
}
trap cleanup EXIT

if [ ! -x "$XSK_HOLD" ]; then
	fail "xsk-hold helper built ($XSK_HOLD)"
	done_testing
fi
# a private user database: the two users exist only inside this mount namespace
U1=rlsta U2=rlstb ID1=64201 ID2=64202
cp /etc/passwd "$T/passwd" && cp /etc/group "$T/group"
printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$U1" $ID1 $ID1 "$U2" $ID2 $ID2 >> "$T/passwd"
printf '%s:x:%s:\n' "$U1" $ID1 "$U2" $ID2 >> "$T/group"
mount --bind "$T/passwd" /etc/passwd && mount --bind "$T/group" /etc/group
check "private user database: $U1 is uid $ID1" test "$(id -u $U1 2>/dev/null)" = $ID1
ip link set lo up

HARD=$(ulimit -H -l)
[ "$HARD" = unlimited ] && HARD=$((64 * 1024)) # KiB
HARD=$((HARD * KIB))
diag "hard memlock here: $HARD bytes"
if [ "$HARD" -lt $((6 * MIB)) ]; then
	fail "a hard memlock of at least 6 MiB to test with (have $HARD bytes)"
	done_testing
fi
L1=$((4 * MIB)) L2=$((6 * MIB)) L3=$((2 * MIB))

# cgroups named like systemd's, under the cgroup v2 hierarchy (systemd itself may not run here)
sysstate=$(systemctl is-system-running 2>/dev/null || true)
diag "systemctl is-system-running: ${sysstate:-no systemd}"
if testcg_make rdmalimits-test; then
	mkdir -p "$CG/system.slice/rlt-a.service" "$CG/user.slice/user-$ID2.slice/session-7.scope" \
		"$CG/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope" \
		"$CG/system.slice/slurmstepd.scope/job_42/step_0"
	ok "cgroups created under $CG"
else
	fail "a writable cgroup v2 hierarchy (found: '${CGROOT:-none}')"
	done_testing
fi
move() { echo "$1" > "$CG/$2/cgroup.procs"; }

# --- the holders
mkfifo "$T/in1" "$T/in2" "$T/in3"
as_user $ID1 $L1 $L1 "$XSK_HOLD" hold 1M < "$T/in1" > "$T/out1" 2>&1 &
exec 7> "$T/in1"
as_user $ID2 $L2 $L2 "$XSK_HOLD" hold 256K 3 < "$T/in2" > "$T/out2" 2>&1 &
exec 8> "$T/in2"
# a container's process in its own PID namespace
unshare --pid --fork prlimit --memlock=$L3:$L3 setpriv --reuid $ID2 --regid $ID2 --clear-groups \
	--inh-caps=-all,+net_raw --ambient-caps=-all,+net_raw --bounding-set=-all,+net_raw \
	"$XSK_HOLD" hold 512K < "$T/in3" > "$T/out3" 2>&1 &
exec 9> "$T/in3"
# a Slurm step's process holding nothing
prlimit --memlock=$L3:$L1 setpriv --reuid $ID1 --regid $ID1 --clear-groups --inh-caps=-all --bounding-set=-all \
	sleep 600 &
P4=$!
wait_line "$T/out1" && wait_line "$T/out2" && wait_line "$T/out3"
read -r w1 I1 < "$T/out1"
read -r w2 I2 _ < "$T/out2"
read -r w3 I3 < "$T/out3"
if [ "$w1 $w2 $w3" != "ok ok ok" ]; then
	fail "UMEMs registered: $(cat "$T/out1" "$T/out2" "$T/out3" | tr '\n' ' ')"
	done_testing
fi
ok "UMEMs registered: $U1 1 MiB, $U2 3 x 256 KiB and 512 KiB (in a PID namespace)"
P1=$(pid_of_inode "$I1") P2=$(pid_of_inode "$I2") P3=$(pid_of_inode "$I3")
move "$P1" system.slice/rlt-a.service
move "$P2" "user.slice/user-$ID2.slice/session-7.scope"
move "$P3" system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope
move "$P4" system.slice/slurmstepd.scope/job_42/step_0
diag "holders: $P1 $P2 $P3 (container), slurm step $P4"

# --- status --json
J=$T/status.json
"$RDMALIMITS" status --json > "$J" 2> "$T/status.err"
check "status --json exits 0" test $? -eq 0
q() { python3 -c "import json,sys; d=json.load(open('$J')); $1" 2>&1; }
user_q() { q "u=[x for x in d['users'] if x['uid']==$1][0]; print($2)"; }
proc_q() { q "p=[x for x in d['processes'] if x['pid']==$1][0]; print($2)"; }

# the method: sock_diag where the kernel has CONFIG_XDP_SOCKETS_DIAG, else the probe; the
# numbers must be the same either way
M=$(q "print(d['methods']['af_xdp'])")
check "AF_XDP method: sock_diag or probe (got $M)" test "$M" = sock_diag -o "$M" = probe
if [ "$M" = probe ]; then
	is "why: the kernel lacks the diag" "$(q "print('CONFIG_XDP_SOCKETS_DIAG' in d['methods']['af_xdp_why'])")" True
	MTEXT="per-user charge by the probe"
else
	is "no why: the diag answered" "$(q "print(repr(d['methods']['af_xdp_why']))")" "''"
	MTEXT="AF_XDP: UMEMs from sock_diag"
fi
is "RDMA MRs: unknown, never none" "$(q "print(d['methods']['rdma_mr'])")" unknown
is "$U1: charged 1 MiB ($M)" "$(user_q $ID1 "u['charged'], u['charged_method']")" "$MIB $M"
is "$U1: limit 4 MiB, headroom 3 MiB" "$(user_q $ID1 "u['memlock']['soft'], u['headroom']")" "$L1 $((3 * MIB))"
is "$U1: the soft limits of its processes differ" "$(user_q $ID1 "u['limits_differ']")" True
is "$U2: charged 1.25 MiB over two processes" "$(user_q $ID2 "u['charged'], u['processes']")" "$((1280 * KIB)) 2"
is "$U2: headroom = 6 MiB - 1.25 MiB" "$(user_q $ID2 "u['headroom']")" $((L2 - 1280 * KIB))
is "$U2: 4 AF_XDP sockets found among its processes" "$(user_q $ID2 "u['xdp_sockets']")" 4
is "service: $P1 in rlt-a.service, memlock 4M:4M" \
	"$(proc_q "$P1" "p['origin']['kind'], p['origin']['name'], p['memlock']['soft'], p['memlock']['hard']")" \
	"unit rlt-a.service $L1 $L1"
is "session: $P2 in session-7.scope" "$(proc_q "$P2" "p['origin']['kind'], p['origin']['name']")" \
	"session session-7.scope"
is "container: $P3 is docker 0123456789ab, limits of docker.service, pid 1 in its namespace, memlock 2M" \
	"$(proc_q "$P3" "p['origin']['kind'], p['origin']['name'], p['origin']['limits_from'], p['nspid'], p['memlock']['soft']")" \
	"docker 0123456789ab docker.service 1 $L3"
is "Slurm step: $P4 in job_42/step_0, memlock 2M:4M" \
	"$(proc_q "$P4" "p['origin']['kind'], p['origin']['name'], p['memlock']['soft'], p['memlock']['hard']")" \
	"slurm job_42/step_0 $L3 $L1"
# where a Slurm task's limits come from is explain --slurm's model, the one answer; without a
# slurm.conf to model (this sandbox reads the host's /etc) status says it does not know
if [ ! -e /etc/slurm/slurm.conf ] && [ ! -e /etc/slurm-llnl/slurm.conf ]; then
	is "Slurm step: no slurm.conf, so where its limits come from is not known" \
		"$(proc_q "$P4" "p['origin']['limits_from']")" "not known: explain --slurm cannot model it here"
fi
is "$P1's AF_XDP socket by inode" "$(proc_q "$P1" "p['xdp_sockets']['count'], p['xdp_sockets']['inodes']")" "1 [$I1]"
is "VmLck/VmPin do not show the UMEM" "$(proc_q "$P1" "p['vmlck'], p['vmpin']")" "0 0"
# root never holds a copy of a user's descriptor: its close could be the socket's last (the
# release then runs as root), or a FUSE file swapped in whose flush the user holds
if command -v strace >/dev/null; then
	strace -f -qq -e trace=pidfd_getfd -o "$T/strace" "$RDMALIMITS" status --json > /dev/null
	check "status copies no descriptor of the users' processes (no pidfd_getfd)" eval '! grep -q pidfd_getfd "$T/strace"'
else
	skip "strace not installed: status copies no descriptor"
fi
is "unit rlt-a.service: charged 1 MiB (its user's), headroom 3 MiB" \
	"$(q "u=[x for x in d['units'] if x['unit']=='rlt-a.service'][0]; print(u['charged'], u['charged_method'], u['headroom'])")" \
	"$MIB $M $((3 * MIB))"

# a unit whose process has CAP_IPC_LOCK: the kernel neither charges nor limits its pins, so its
# headroom is unlimited, not its soft limit (64 KiB) minus its user's charge (1 MiB)
mkdir -p "$CG/system.slice/rlt-cap.service"
CAPS=-all,+net_raw,+ipc_lock
prlimit --memlock=$((64 * KIB)):$((64 * KIB)) setpriv --reuid $ID1 --regid $ID1 --clear-groups \
	--inh-caps=$CAPS --ambient-caps=$CAPS --bounding-set=$CAPS sleep 600 &
PC=$!
for ((i = 0; i < 200; i++)); do [ "$(cat /proc/$PC/comm 2>/dev/null)" = sleep ] && break; sleep 0.05; done
move "$PC" system.slice/rlt-cap.service
"$RDMALIMITS" status --json > "$J" 2> "$T/err"
is "unit rlt-cap.service (CAP_IPC_LOCK, soft 64 KiB, its user's 1 MiB charged): headroom unlimited" \
	"$(q "u=[x for x in d['units'] if x['unit']=='rlt-cap.service'][0]; print(u['headroom'])")" unlimited
is "unit rlt-a.service keeps its 3 MiB" \
	"$(q "u=[x for x in d['units'] if x['unit']=='rlt-a.service'][0]; print(u['headroom'])")" $((3 * MIB))
out=$(prlimit --memlock=$((64 * KIB)):$((64 * KIB)) setpriv --reuid $ID1 --regid $ID1 --clear-groups \
	--inh-caps=$CAPS --ambient-caps=$CAPS --bounding-set=$CAPS "$XSK_HOLD" try 1M)
is "kernel: with CAP_IPC_LOCK and soft 64 KiB a 1 MiB UMEM registers" "$out" ok
kill "$PC" 2>/dev/null
wait "$PC" 2>/dev/null

# two users' managers each run a unit of the same name: two rows, each with its own limits
PU=()
for id in $ID1 $ID2; do
	mkdir -p "$CG/user.slice/user-$id.slice/user@$id.service/app.slice/rlt-u.service"
	lim=$(((id == ID1 ? 128 : 256) * KIB))
	prlimit --memlock=$lim:$lim setpriv --reuid $id --regid $id \
		--clear-groups --inh-caps=-all --bounding-set=-all sleep 600 &
	PU+=($!)
done
for p in "${PU[@]}"; do
	for ((i = 0; i < 200; i++)); do [ "$(cat /proc/$p/comm 2>/dev/null)" = sleep ] && break; sleep 0.05; done
done
move "${PU[0]}" "user.slice/user-$ID1.slice/user@$ID1.service/app.slice/rlt-u.service"
move "${PU[1]}" "user.slice/user-$ID2.slice/user@$ID2.service/app.slice/rlt-u.service"
"$RDMALIMITS" status --json > "$J" 2> "$T/err"
is "user units of the same name: one row per user's manager, each with its own soft limit" \
	"$(q "print(sorted((u['unit'], u['kind'], u['processes'], u['memlock']['soft']) for u in d['units'] if 'rlt-u' in u['unit']))")" \
	"[('user@$ID1.service/rlt-u.service', 'user-unit', 1, $((128 * KIB))), ('user@$ID2.service/rlt-u.service', 'user-unit', 1, $((256 * KIB)))]"
is "--unit rlt-u.service: both users' processes" \
	"$("$RDMALIMITS" status --unit rlt-u.service --json | python3 -c "import json,sys; print(sorted(p['pid'] for p in json.load(sys.stdin)['processes']))")" \
	"$(printf '%s\n' "${PU[@]}" | sort -n | python3 -c "import sys; print(sorted(int(x) for x in sys.stdin))")"
is "--unit user@$ID1.service/rlt-u.service: that user's" \
	"$("$RDMALIMITS" status --unit "user@$ID1.service/rlt-u.service" --json | python3 -c "import json,sys; print([p['pid'] for p in json.load(sys.stdin)['processes']])")" \
	"[${PU[0]}]"
kill "${PU[@]}" 2>/dev/null
wait "${PU[@]}" 2>/dev/null

# filters
is "status $U1: only $U1's processes" "$("$RDMALIMITS" status $U1 --json | python3 -c "import json,sys; d=json.load(sys.stdin); print(sorted({p['uid'] for p in d['processes']}), d['xdp_sockets'])")" "[$ID1] 5"
is "--pid: one process" "$("$RDMALIMITS" status --pid "$P3" --json | python3 -c "import json,sys; d=json.load(sys.stdin); print([p['pid'] for p in d['processes']])")" "[$P3]"
is "--unit rlt-a.service: its process" "$("$RDMALIMITS" status --unit rlt-a.service --json | python3 -c "import json,sys; d=json.load(sys.stdin); print([p['pid'] for p in d['processes']])")" "[$P1]"
"$RDMALIMITS" status --pid 999999999 > /dev/null 2>&1
is "--pid of no process: exit 1" $? 1
"$RDMALIMITS" status --json --prometheus > /dev/null 2>&1
is "--json with --prometheus: usage error" $? 2
"$RDMALIMITS" status $U2 > "$T/text" 2>&1
check "text table: $U2's row with charge, method and headroom" \
	grep -Eq "^$U2 +$ID2 +2 +6 MiB\\* +6 MiB +1280 KiB +$M +4864 KiB" "$T/text"
check "text table: the method behind the numbers" grep -q "$MTEXT" "$T/text"

# --- the kernel agrees: register until ENOBUFS under the same limits
m1=$(as_user $ID1 $L1 $L1 "$XSK_HOLD" max)
is "kernel: $U1 can still register exactly the headroom" "$m1" "max $((3 * MIB))"
m2=$(as_user $ID2 $L2 $L2 "$XSK_HOLD" max)
is "kernel: $U2 can still register exactly the headroom" "$m2" "max $((L2 - 1280 * KIB))"
# the UMEMs of `max` are uncharged by a kernel work item after their sockets close: wait for it
settled() {
	local i c
	for ((i = 0; i < 100; i++)); do
		c=$("$RDMALIMITS" status "$1" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['users'][0]['charged'])")
		[ "$c" = "$2" ] && return 0
		sleep 0.05
	done
	diag "still charged: $c"
	return 1
}
check "$U1's charge back at 1 MiB" settled $U1 $MIB

# --- pin-test as the same user: what is charged, by whom, and the fix
cd "$T" || exit 1
as_user $ID1 $L1 $L1 "$RDMALIMITS" pin-test 4M --json > "$T/pin.json" 2> "$T/pin.err"
is "pin-test 4M as $U1 fails (exit 1)" $? 1
pq() { python3 -c "import json,sys; d=json.load(open('$T/pin.json')); $1" 2>&1; }
is "pin-test: the UMEM failed with ENOBUFS" \
	"$(pq "print([m['errno'] for m in d['mechanisms'] if m['name']=='af_xdp_umem'])")" "['ENOBUFS']"
is "pin-test: 1 MiB already charged ($M)" "$(pq "a=d['accounting']; print(a['user_charged'], a['method'])")" "$MIB $M"
is "pin-test: the holder is $P1 with socket $I1" \
	"$(pq "print([(h['pid'], h['sockets']) for h in d['accounting']['holders']])")" "[($P1, [$I1])]"
is "pin-test: fix: stop the other holder (size within the limit, hard = soft)" "$(pq "print(d['accounting']['fix'])")" stop-holder
as_user $ID1 $L3 $L1 "$RDMALIMITS" pin-test 3M > "$T/pin.txt" 2>&1
is "pin-test 3M with soft 2M, hard 4M fails" $? 1
check "pin-test text names the charge" grep -q "Already charged to $U1's locked memory.*: 1 MiB ($M)" "$T/pin.txt"
check "pin-test text names the holder" grep -q "pid $P1 (xsk-hold): 1 AF_XDP socket (inode $I1" "$T/pin.txt"
check "pin-test: raise only the soft limit to 4 MiB (ulimit -S -l 4096)" grep -q "ulimit -S -l 4096 " "$T/pin.txt"
# and that fix works: 3 MiB with soft 4 MiB, while the other holder keeps its 1 MiB
out=$(as_user $ID1 $L1 $L1 "$XSK_HOLD" try 3M)
is "kernel: with soft 4 MiB the 3 MiB UMEM registers" "$out" ok
check "$U1's charge back at 1 MiB after that UMEM's release" settled $U1 $MIB

# --- doctor --pid: the same accounting for a process of the user that holds nothing itself
"$RDMALIMITS" doctor --pid "$P4" > "$T/doc4" 2>&1
check "doctor --pid $P4: the charge of $U1, what this process can still register, the holder" \
	grep -qF "sleep (pid $P4): charged to user $U1's locked memory (AF_XDP UMEMs of all its processes): 1 MiB ($M); this process can still register 1 MiB; held by pid $P1 (xsk-hold, 1 AF_XDP socket, inode $I1)" "$T/doc4"
check "doctor --pid $P4: no warning with 1 MiB of its 2 MiB left" test -z "$(grep "WARN.*already charged" "$T/doc4")"
# a process whose soft limit the charge nearly fills, its hard limit higher
prlimit --memlock=$((1088 * KIB)):$L1 setpriv --reuid $ID1 --regid $ID1 --clear-groups --inh-caps=-all \
	--bounding-set=-all sleep 600 &
P5=$!
for ((i = 0; i < 200; i++)); do [ "$(cat /proc/$P5/comm 2>/dev/null)" = sleep ] && break; sleep 0.05; done
"$RDMALIMITS" doctor --pid "$P5" > "$T/doc5" 2>&1
check "doctor --pid $P5 (soft 1088 KiB): WARN, the charge leaves 64 KiB" \
	grep -qF "WARN sleep (pid $P5): user $U1's locked memory already charged (1 MiB) leaves 64 KiB under this process's soft limit 1088 KiB: its next AF_XDP UMEM registration may fail with ENOBUFS" "$T/doc5"
check "... fix: raise only the soft limit (the hard one allows it), or stop the other holder" \
	grep -qF "fix: raise only the soft limit, the hard one (4 MiB) allows it (ulimit -S -l, or LimitMEMLOCK=SOFT:HARD), or stop the other holder" "$T/doc5"
out=$(as_user $ID1 $((1088 * KIB)) $L1 "$XSK_HOLD" try 128K)
is "kernel: that process's limits refuse a 128 KiB UMEM, as doctor warned" "$out" "errno=ENOBUFS"
kill "$P5" 2>/dev/null

# --- Prometheus
P=$T/rdmalimit.prom
"$RDMALIMITS" status --prometheus --threshold 1K > "$P"
check "--prometheus exits 0" test $? -eq 0
check "per-user charge" grep -q "^rdmalimit_user_memlock_charged_bytes{user=\"$U2\",uid=\"$ID2\",method=\"$M\",bound=\"exact\"} $((1280 * KIB))\$" "$P"
check "per-user headroom" grep -q "^rdmalimit_user_memlock_headroom_bytes{user=\"$U1\",uid=\"$ID1\"} $((3 * MIB))\$" "$P"
check "per-unit limit" grep -q "^rdmalimit_unit_memlock_limit_bytes{unit=\"rlt-a.service\",kind=\"unit\"} $L1\$" "$P"
check "the method in use" grep -q "^rdmalimit_status_method_info{mechanism=\"af_xdp\",method=\"$M\"} 1\$" "$P"
if command -v promtool > /dev/null; then
	if promtool check metrics < "$P" > "$T/promtool.out" 2>&1; then
		ok "promtool check metrics accepts the output"
	else
		fail "promtool check metrics accepts the output"
		sed 's/^/# /' "$T/promtool.out"
	fi
else
	skip_ci "promtool is installed (Debian package prometheus)"
fi

done_testing
