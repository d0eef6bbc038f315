#!/bin/bash
# rdmalimits doctor and pin-test against what a hostile user can set up (root only):
#   - a process whose name (comm) holds an escape sequence and a newline: doctor --pid prints
#     no control byte, in text or in the strings of its JSON; explain --pid shows all of it;
#   - a user's process named sshd (a copy of sleep, memlock 4 KiB), and root's own copy of sleep
#     named sshd: neither is taken for the ssh daemon (no FAIL, no change of exit status), each
#     gets an INFO line; the real /usr/sbin/sshd, run as root, still is;
#   - pin-test as root (CAP_IPC_LOCK: no memlock limit applies): a size above half of
#     MemAvailable is refused with both numbers and nothing pinned, unless --force.
# Everything runs in private PID, mount and network namespaces (doctor sees only this test's
# processes; /run and /etc/security/limits.d are replaced there only, the host is unchanged).
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=doctor.sh
. "$(dirname "$0")/doctor.sh"

if [ -z "${HOSTILE_NS:-}" ]; then
	require_root "doctor and pin-test against hostile processes"
	missing=
	for t in unshare setpriv prlimit python3 perl ip ssh-keygen; do
		command -v "$t" > /dev/null || missing+=" $t"
	done
	[ -z "$missing" ] || skip_all "missing:$missing"
	export HOSTILE_NS=1 RDMALIMITS
	exec unshare --mount --propagation private --pid --fork --kill-child --mount-proc --net -- bash "$0" "$@"
fi

no_plan
T=$(mktemp -d)
chmod 0755 "$T"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2> /dev/null
	done
	wait 2> /dev/null
	umount /etc/security/limits.d 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
OUT=$T/out

# wait_for PID CMD...: until CMD succeeds (at most 5 s) while PID lives
wait_for() {
	local p=$1 i
	shift
	for i in $(seq 50); do
		"$@" && return 0
		kill -0 "$p" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
no_control_bytes() { ! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$1"; }
fails() { grep -c '^  FAIL' "$OUT"; }

# A configured hard memlock (1 MiB: above the daemons' here, not above this process's own hard
# limit), so a daemon below it is a FAIL: in this namespace only.
if [ -d /etc/security/limits.d ]; then
	mkdir -m 0755 "$T/limits.d"
	printf '*\thard\tmemlock\t1024\n' > "$T/limits.d/50-hostile.conf"
	mount --bind "$T/limits.d" /etc/security/limits.d
fi
# /run of our own: sshd's privilege separation directory; no /run/systemd/system here.
mount -t tmpfs -o mode=0755 hostile-run /run
mkdir -m 0755 /run/sshd
ip link set lo up 2> /dev/null

# --- a process name with an escape sequence and a newline
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	perl -e 'open(my $f, ">", "/proc/self/comm") or die; syswrite($f, "\e[31mE\nv"); close($f); sleep 300' &
EVIL=$!
PIDS+=("$EVIL")
if wait_for "$EVIL" grep -q '^v$' "/proc/$EVIL/comm" && grep -q '31mE$' "/proc/$EVIL/comm"; then
	"$RDMALIMITS" doctor --pid "$EVIL" > "$OUT" 2> "$T/err"
	check "doctor --pid, comm with ESC[ and a newline: no control byte in the text" no_control_bytes "$OUT"
	check "doctor --pid: the name is shown escaped" line "\\x1b[31mE\\x0av (pid $EVIL): user" "(uid 65534)"
	check "doctor --pid: no control byte on stderr" no_control_bytes "$T/err"
	"$RDMALIMITS" --json doctor --pid "$EVIL" > "$OUT" 2> "$T/err"
	check "doctor --json --pid: valid JSON" python3 -m json.tool "$OUT" /dev/null
	check "doctor --json --pid: no control byte in any string" python3 -c '
import json, sys
def walk(v):
    if isinstance(v, str):
        return not any(ord(c) < 0x20 or ord(c) == 0x7f for c in v)
    if isinstance(v, list):
        return all(walk(x) for x in v)
    if isinstance(v, dict):
        return all(walk(k) and walk(x) for k, x in v.items())
    return True
sys.exit(0 if walk(json.load(open(sys.argv[1]))) else 1)' "$OUT"
	check "doctor --json --pid: the name escaped in where" grep -qF "\"where\": \"\\\\x1b[31mE\\\\x0av (pid $EVIL)\"" "$OUT"
	# explain --pid reads the name through the same reader: all of it, the newline escaped
	# (it used to stop at the newline and show "\x1b[31mE")
	"$RDMALIMITS" explain nobody --service su --pid "$EVIL" > "$OUT" 2> "$T/err"
	check "explain --pid: the whole name, escaped" grep -qF "opened by \x1b[31mE\x0av (pid $EVIL)" "$OUT"
	check "explain --pid: no control byte in the text" no_control_bytes "$OUT"
	"$RDMALIMITS" --json explain nobody --service su --pid "$EVIL" > "$OUT" 2> "$T/err"
	check "explain --json --pid: the whole name, escaped" python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["service"]["process"] == "\\x1b[31mE\\x0av (pid %s)" % sys.argv[2] else 1)' "$OUT" "$EVIL"
else
	fail "a process could not set its comm to ESC[31mE<newline>v"
fi
kill "$EVIL" 2> /dev/null

# --- processes named sshd that are not the ssh daemon
"$RDMALIMITS" doctor > "$OUT" 2> "$T/err"
base_rc=$? base_fails=$(fails)
[ "$base_rc" = 0 ] || diag "without processes named sshd, doctor already exits $base_rc:" "$(grep -a '^  FAIL' "$OUT")"
mkdir -m 0755 "$T/bin"
cp /bin/sleep "$T/bin/sshd"
chmod 0755 "$T/bin/sshd"
setpriv --reuid=65534 --regid=65534 --clear-groups -- prlimit --memlock=4096:4096 -- "$T/bin/sshd" 300 &
FAKE=$!
PIDS+=("$FAKE")
prlimit --memlock=4096:4096 -- "$T/bin/sshd" 301 &
ROOTFAKE=$!
PIDS+=("$ROOTFAKE")
sshd_named() { [ "$(cat "/proc/$1/comm" 2> /dev/null)" = sshd ]; }
wait_for "$FAKE" sshd_named "$FAKE" && wait_for "$ROOTFAKE" sshd_named "$ROOTFAKE" ||
	fail "the processes named sshd did not start"
"$RDMALIMITS" doctor > "$OUT" 2> "$T/err"
rc=$?
check "a user's process named sshd (memlock 4 KiB): no FAIL for it" hasnt "sshd (pid $FAKE)"
check "root's copy of sleep named sshd: no FAIL for it" hasnt "sshd (pid $ROOTFAKE)"
check "processes named sshd: no more FAILs than without them ($base_fails)" test "$(fails)" = "$base_fails"
check "processes named sshd: the exit status is unchanged ($base_rc)" test "$rc" = "$base_rc"
check "the user's process: INFO, not the daemon" \
	line "INFO pid $FAKE: a process named sshd is not the daemon (it runs as uid 65534, not root): ignored"
check "root's copy: INFO, not the daemon's executable" \
	line "INFO pid $ROOTFAKE: a process named sshd is not the daemon (its executable is $T/bin/sshd, not /usr/sbin/sshd): ignored"
check "the fix for ssh.service is not suggested" hasnt "apply --unit ssh.service"
check "sshd: reported as not running" line "INFO sshd: not running"
"$RDMALIMITS" --json doctor > "$OUT" 2> "$T/err"
check "processes named sshd: doctor --json is valid JSON" python3 -m json.tool "$OUT" /dev/null
kill "$FAKE" "$ROOTFAKE" 2> /dev/null
wait "$FAKE" "$ROOTFAKE" 2> /dev/null

# --- the real sshd, as root, is still recognised
if [ -x /usr/sbin/sshd ]; then
	ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" > /dev/null
	printf 'ListenAddress 127.0.0.1:2222\nHostKey %s\nPidFile none\nUsePAM no\n' "$T/hostkey" > "$T/sshd_config"
	prlimit --memlock=65536:65536 -- /usr/sbin/sshd -D -e -f "$T/sshd_config" < /dev/null > "$T/sshd.log" 2>&1 &
	SSHD=$!
	PIDS+=("$SSHD")
	if wait_for "$SSHD" sshd_named "$SSHD" && sleep 0.5 && kill -0 "$SSHD" 2> /dev/null; then
		"$RDMALIMITS" doctor > "$OUT" 2> "$T/err"
		check "the real sshd (root, /usr/sbin/sshd): its memlock is checked" line "sshd (pid $SSHD): memlock 64 KiB"
		if [ -d "$T/limits.d" ]; then
			check "the real sshd below the configured 1 MiB: FAIL or OK with CAP_SYS_RESOURCE" \
				grep -qE "^  (FAIL sshd \(pid $SSHD\): memlock 64 KiB and no CAP_SYS_RESOURCE|OK   sshd \(pid $SSHD\): memlock 64 KiB, below)" "$OUT"
		fi
		check "the real sshd: no INFO that ignores it" hasnt "pid $SSHD: a process named sshd"
	else
		fail "sshd did not start: $(tr '\n' ' ' < "$T/sshd.log")"
	fi
	kill "$SSHD" 2> /dev/null
else
	skip "the real sshd: /usr/sbin/sshd is not installed"
fi

# --- pin-test as root: no memlock limit applies with CAP_IPC_LOCK
cap_ipc_lock() {
	local eff
	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	(((0x$eff >> 14) & 1))
}
if cap_ipc_lock; then
	total_k=$(awk '/^MemTotal:/ { t = $2 } /^SwapTotal:/ { s = $2 } END { print 2 * (t + s) }' /proc/meminfo)
	# the address space limit makes sure nothing that big could be mapped, whatever the binary
	# does (not under ASan, which reserves terabytes of address space for its shadow)
	aslimit=(prlimit --as=$((1 << 30)) --)
	[ -n "${RDMALIMIT_SANITIZED:-}" ] && aslimit=()
	"${aslimit[@]}" "$RDMALIMITS" pin-test "${total_k}K" > "$OUT" 2> "$T/err"
	rc=$?
	check "pin-test 2 x (MemTotal + SwapTotal) as root: exit 1" test "$rc" = 1
	check "pin-test: refused before anything is mapped (no report)" test ! -s "$OUT"
	check "pin-test: the message names MemAvailable and both sizes" \
		grep -qE "refusing to pin [0-9]+ [KMGT]iB: more than half of the available memory \(MemAvailable [0-9]+ [KMGT]?i?B, half" "$T/err"
	check "pin-test: the message names --force" grep -qF -- "--force" "$T/err"
	check "pin-test: no control byte on stderr" no_control_bytes "$T/err"
	"${aslimit[@]}" "$RDMALIMITS" --json pin-test "${total_k}K" > "$OUT" 2> "$T/err"
	check "pin-test --json: refused too, nothing printed" test $? = 1 -a ! -s "$OUT"
	"$RDMALIMITS" pin-test 64K > "$OUT" 2> "$T/err"
	check "pin-test 64K as root: allowed without --force" test $? = 0
	"$RDMALIMITS" pin-test 64K --force > "$OUT" 2> "$T/err"
	check "pin-test 64K --force: accepted, exit 0" test $? = 0
	check "pin-test 64K --force: mlock ok" line "mlock" "ok"
else
	skip "pin-test refusal: this root has no CAP_IPC_LOCK"
fi

done_testing
