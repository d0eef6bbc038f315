#!/bin/bash
# Which process is "the running sshd": one answer for explain and doctor (proc_daemon_find(),
# proc_daemon_identify()).  On a host that systemd manages, a second root /usr/sbin/sshd that
# runs in no ssh unit (a rootful container's, one started by hand) is not the daemon logins
# go through, even when its PID is lower.  Before, explain took the first root sshd in /proc
# whose parent was not sshd (the decoy: its limits, its prediction) while doctor checked the
# one in ssh.service.
#
# Root only.  In private PID and mount namespaces: PID 1 is a shell named "systemd" and /run
# is a tmpfs holding /run/systemd/system, so the tools take the host for one systemd manages;
# the real listener is moved into a test cgroup .../system.slice/ssh.service (removed after).
# Two real sshd listen on 127.0.0.1 with throwaway host keys; no login is made.  Without
# systemd nothing tells them apart: explain takes the first and says it assumed so (it did not).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

if [ "${1:-}" != --inner ]; then
	require_root "private PID namespace, sshd, cgroups"
	[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd"
	command -v ssh-keygen > /dev/null || skip_all "no ssh-keygen"
	T=$(mktemp -d /tmp/test-daemon-pick.XXXXXX)
	cp "$(command -v bash)" "$T/systemd"
	export T RDMALIMITS top_srcdir top_builddir
	unshare --mount --propagation private --pid --fork --mount-proc "$T/systemd" "$0" --inner
	rc=$?
	rm -rf "$T"
	exit $rc
fi

no_plan
# shellcheck source=../lib/testcg.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/testcg.sh"
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	testcg_remove
}
trap cleanup EXIT

check "PID 1 of the namespace is named systemd" test "$(cat /proc/1/comm)" = systemd
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/sshd
chmod 755 /run/sshd
if ! testcg_make rdmalimits-pick; then
	fail "a writable cgroup v2 hierarchy (found: '${CGROOT:-none}')"
	done_testing
fi
mkdir -p "$CG/system.slice/ssh.service" "$CG/other"

if ! ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"; then
	fail "ssh-keygen makes a host key"
	done_testing
fi
# sshd_on PORT SOFT HARD: a real sshd listener with that memlock, in the foreground of a job
sshd_on() {
	printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s\nPidFile none\nUsePAM no\n' "$1" "$T/hostkey" > "$T/sshd-$1.conf"
	prlimit --memlock="$2:$3" /usr/sbin/sshd -D -f "$T/sshd-$1.conf" -E "$T/sshd-$1.log" &
}
HARD=$(($(ulimit -H -l) * 1024))
[ "$(ulimit -H -l)" = unlimited ] && HARD=$((8 * 1024 * 1024))
# the decoy first (the lower PID), in no unit, with a low hard limit; then the real one
sshd_on 2201 65536 65536
DECOY=$!
echo "$DECOY" > "$CG/other/cgroup.procs"
sshd_on 2202 65536 "$HARD"
REAL=$!
echo "$REAL" > "$CG/system.slice/ssh.service/cgroup.procs"
for _ in $(seq 50); do
	[ "$(cat /proc/$DECOY/comm 2>/dev/null)" = sshd ] && [ "$(cat /proc/$REAL/comm 2>/dev/null)" = sshd ] && break
	sleep 0.1
done
check "two root sshd listeners run (decoy $DECOY, real $REAL)" \
	test "$(cat /proc/$DECOY/comm)" = sshd -a "$(cat /proc/$REAL/comm)" = sshd -a "$DECOY" -lt "$REAL"
check "the real one is in system.slice/ssh.service" grep -q "system.slice/ssh.service" "/proc/$REAL/cgroup"

"$RDMALIMITS" --json explain root --service sshd > "$T/explain.json" 2> "$T/explain.err"
check "explain takes the sshd in ssh.service, not the lower PID in no unit" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["service"]
sys.exit(not (s["process"].endswith("(pid %s)" % sys.argv[2]) and s["memlock_hard"] == int(sys.argv[3])))' \
	"$T/explain.json" "$REAL" "$HARD"
"$RDMALIMITS" doctor > "$T/doctor.out" 2>&1
check "doctor ignores the decoy and says why" grep -q "pid $DECOY: a process named sshd is not the daemon (it belongs to no system service" "$T/doctor.out"
check "doctor checks the real one" grep -q "sshd (pid $REAL): memlock" "$T/doctor.out"

# without systemd (no /run/systemd/system) both are candidates: the first in /proc, for both
rmdir /run/systemd/system
"$RDMALIMITS" --json explain root --service sshd > "$T/explain.json" 2> "$T/explain.err"
check "without systemd: explain takes the first root listener, and says it assumed so, naming the other" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["service"]
sys.exit(not s["process"].startswith("sshd (pid %s), assumed: the first of the running sshd listeners (another is pid %s" % (sys.argv[2], sys.argv[3])))' \
	"$T/explain.json" "$DECOY" "$REAL"
python3 -c 'import json, sys; print("#", json.load(open(sys.argv[1]))["service"]["process"])' "$T/explain.json"

done_testing
