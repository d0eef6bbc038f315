#!/bin/bash
# rdmalimits apply/remove against users and trees that try to misuse it: a lock held by
# another user or forever, and --root trees whose symbolic links point into the host.
# Every "host" path here is a directory under /tmp made for the test, never the real /etc.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
require_root "apply locks, setpriv as nobody"
no_plan

T=$(mktemp -d)
HOLDERS=()
cleanup() {
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
R=$T/root
H=$T/host          # stands for the host's own directories
D=$R/etc/security/limits.d
F=$D/zz-rdmalimits.conf
rl() { timeout 20 "$RDMALIMITS" --root "$R" --flavour debian "$@"; }

mkroot() {
	rm -rf "$R" "$H"
	mkdir -p "$D" "$R/etc/systemd/system" "$R/proc/1" "$H"
	chmod 755 "$T"
	printf 'root:x:0:0:root:/root:/bin/sh\nalice:x:1001:2000::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	printf '*\tsoft\tmemlock\t8192\n*\thard\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"
}
# the lock file apply takes for a directory (see fs_lock_name)
lockfile() { printf '/run/rdmalimit/locks/%x-%x.lock' $(stat -c '%d %i' "$1"); }
host_empty() { [ -z "$(ls -A "$H")" ]; }

# --- a lock on limits.d itself, held by an unprivileged user, does not block apply
mkroot
chmod 755 "$R" "$R/etc" "$R/etc/security" "$D"
setpriv --reuid=nobody --regid=nogroup --clear-groups flock -x "$D" sleep 60 &
HOLDERS+=($!)
sleep 0.3
rl apply @rdma_users 1G > "$T/out" 2>&1
rc=$?
check "flock on limits.d as nobody: apply is not blocked (exit $rc)" test "$rc" -eq 0
check "flock on limits.d as nobody: apply wrote the drop-in" grep -q "^@rdma_users	hard	memlock	1048576" "$F"
check "flock on limits.d as nobody: apply did not wait for it (it finished while nobody still held it)" \
	kill -0 "${HOLDERS[-1]}"
check "the lock file is root's, mode 0600" test "$(stat -c '%U %a' "$(lockfile "$D")")" = "root 600"
check "nobody cannot open the lock file" bash -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups cat '$(lockfile "$D")' 2>/dev/null"
check "no lock file inside the tree" test "$(ls -A "$D")" = "zz-rdmalimits.conf"

# --- the real lock held by root: apply and remove time out, name the holder, write nothing
L=$(lockfile "$D")
cp "$F" "$T/before"
flock -x "$L" sleep 60 &
holder=$!
HOLDERS+=($holder)
sleep 0.3
RDMALIMITS_LOCK_TIMEOUT=1 rl apply @rdma_users 2G > "$T/out" 2>&1
rc=$?
diag "apply says: $(cat "$T/out")"
check "lock held: apply fails (exit $rc)" test "$rc" -eq 1
check "lock held: apply gave up after the timeout, while the lock was still held" \
	sh -c "grep -q 'still held after 1 s' '$T/out' && kill -0 $holder"
check "lock held: the message names the lock file" grep -qF "$L" "$T/out"
# flock(1) runs "sleep" in a child that inherits the lock: either pid holds it
pids=$(pgrep -P "$holder" | tr '\n' ' ')
if grep -qE "by pid ($holder|${pids// /|}X) \((flock|sleep)\)" "$T/out"; then ok "lock held: the message names the holder's pid and comm"; else fail "lock held: the message names the holder's pid and comm"; fi
check "lock held: the drop-in is unchanged" cmp -s "$F" "$T/before"
check "lock held: no temporary file" test "$(ls -A "$D")" = "zz-rdmalimits.conf"
RDMALIMITS_LOCK_TIMEOUT=0 rl remove @rdma_users > "$T/out" 2>&1
check "lock held: remove fails at once and writes nothing" test $? -eq 1 -a -f "$F"
RDMALIMITS_LOCK_TIMEOUT=1x rl apply @rdma_users 2G > "$T/out" 2>&1
check "a bad RDMALIMITS_LOCK_TIMEOUT is a usage error" test $? -eq 2
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rl apply @rdma_users 2G > "$T/out" 2>&1
check "lock released: apply goes on" grep -q "1048576\|2097152" "$F"

# --- the holder's comm is escaped
flock -x "$L" bash -c $'exec -a "evil\e[31m" sleep 60' &
holder=$!
HOLDERS+=($holder)
sleep 0.3
printf 'x\ty\e[31m' > /proc/$holder/comm 2>/dev/null
RDMALIMITS_LOCK_TIMEOUT=0 rl apply @rdma_users 3G > "$T/out" 2>&1
check "lock held: no raw escape byte reaches the terminal" test -z "$(grep -P '[\x00-\x08\x0b-\x1f\x7f]' "$T/out")"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# --- a lock file that is not the tool's own is refused
mkroot
L=$(lockfile "$D")
rm -f "$L"
ln -s "$H/target" "$L"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "a symbolic link as lock file: apply fails" test $? -eq 1
check "a symbolic link as lock file: nothing written, nothing created at its target" test ! -e "$F" -a ! -e "$H/target"
rm -f "$L"
install -m 0644 /dev/null "$L"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "a lock file others may open: refused" test $? -eq 1 -a ! -e "$F"
rm -f "$L"

# --- --check leaves no lock file behind
mkroot
L=$(lockfile "$D")
rm -f "$L"
rl apply @rdma_users 1G --check > /dev/null 2>&1
check "apply --check takes no lock (creates no file)" test ! -e "$L"

# --- --root: limits.d is an absolute link to a directory of the host
for cmd in "apply @rdma_users 1G" "apply --file 50-x.conf @rdma_users 1G" "remove @rdma_users"; do
	mkroot
	printf '%s\n' "# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'." \
		'@rdma_users	soft	memlock	1024' '@rdma_users	hard	memlock	1024' > "$H/zz-rdmalimits.conf"
	cp "$H/zz-rdmalimits.conf" "$T/hostcopy"
	rm -rf "$D"
	ln -s "$H" "$D"
	# shellcheck disable=SC2086
	rl $cmd > "$T/out" 2>&1
	rc=$?
	diag "$cmd says: $(cat "$T/out")"
	check "limits.d -> host dir: '$cmd' fails (exit $rc)" test "$rc" -eq 1
	check "limits.d -> host dir: '$cmd' leaves the host dir as it was" \
		test "$(ls -A "$H")" = "zz-rdmalimits.conf" -a "$(cat "$H/zz-rdmalimits.conf")" = "$(cat "$T/hostcopy")"
done
# a link inside the tree that resolves inside it is followed there
mkroot
mkdir -p "$R/srv/limits"
rm -rf "$D"
ln -s /srv/limits "$D"
mkdir -p "$H/srv/limits"
rl apply @rdma_users 1G > "$T/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	check "limits.d -> /srv/limits (in the tree): written inside the tree" test -f "$R/srv/limits/zz-rdmalimits.conf"
else
	ok "limits.d -> /srv/limits (in the tree): refused (no openat2 here) # exit $rc"
fi
check "limits.d -> /srv/limits (in the tree): nothing in the host's /srv" test ! -e /srv/limits/zz-rdmalimits.conf
# a relative link that climbs out with ..
mkroot
rm -rf "$D"
ln -s "../../../../../../../../../../../../$H" "$D"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "limits.d -> ../../..host: nothing written in the host dir" host_empty
# etc/security itself a link to the host
mkroot
mkdir -p "$H/security/limits.d"
rm -rf "$R/etc/security"
ln -s "$H/security" "$R/etc/security"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "etc/security -> host: apply fails" test $? -eq 1
check "etc/security -> host: nothing written in the host dir" test -z "$(ls -A "$H/security/limits.d")"

# --- --root: the systemd unit directory is a link to the host
mkroot
mkdir -p "$H/system"
rm -rf "$R/etc/systemd/system"
ln -s "$H/system" "$R/etc/systemd/system"
rl apply --unit foo 1G > "$T/out" 2>&1
rc=$?
diag "apply --unit says: $(cat "$T/out")"
check "etc/systemd/system -> host: apply --unit fails (exit $rc)" test "$rc" -eq 1
check "etc/systemd/system -> host: nothing written in the host dir" test -z "$(ls -A "$H/system")"
mkroot
mkdir -p "$H/sd/system/foo.service.d"
printf '# rdmalimits: managed file; change it with %s.\n[Service]\nLimitMEMLOCK=1M\n' \
	"'rdmalimits apply --unit' and 'rdmalimits remove --unit'" > "$H/sd/system/foo.service.d/90-rdmalimits.conf"
rm -rf "$R/etc/systemd"
ln -s "$H/sd" "$R/etc/systemd"
rl remove --unit foo > "$T/out" 2>&1
check "etc/systemd -> host: remove --unit leaves the host's drop-in" test -f "$H/sd/system/foo.service.d/90-rdmalimits.conf"
rl apply --unit foo 2G > "$T/out" 2>&1
check "etc/systemd -> host: apply --unit leaves the host's drop-in as it was" grep -q "LimitMEMLOCK=1M" "$H/sd/system/foo.service.d/90-rdmalimits.conf"
mkroot
mkdir -p "$H/unitd"
ln -s "$H/unitd" "$R/etc/systemd/system/foo.service.d"
rl apply --unit foo 1G > "$T/out" 2>&1
check "foo.service.d -> host: apply --unit fails and writes nothing there" test $? -eq 1 -a -z "$(ls -A "$H/unitd")"

# --- --root: reading never leaves the tree
mkroot
printf '@rdma_users\tsoft\tmemlock\t7777777\n@rdma_users\thard\tmemlock\t7777777\n' > "$H/limits.conf"
printf '@rdma_users\tsoft\tmemlock\t6666666\n@rdma_users\thard\tmemlock\t6666666\n' > "$H/host.conf"
rm "$R/etc/security/limits.conf"
ln -s "$H/limits.conf" "$R/etc/security/limits.conf"
ln -s "$H/host.conf" "$D/50-host.conf"
for cmd in list check "explain alice" "--json explain alice"; do
	# shellcheck disable=SC2086
	rl $cmd > "$T/out" 2>&1
	check "absolute links to host files: '$cmd' reads none of them" \
		test -z "$(grep -E '7777777|6666666|7596|6510' "$T/out")"
	check "absolute links to host files: '$cmd' ran (exit $?)" test -s "$T/out"
done
# Debian 12's pam_limits fails the session on a limits.conf it cannot open: explain says why
rl --flavour debian-1.5.2 explain alice > "$T/out" 2>&1
check "explain alice: the link resolves inside the tree (missing there) or is refused" \
	grep -q "etc/security/limits.conf cannot be read (\(No such file or directory\|Too many levels of symbolic links\))" "$T/out"
# a pam.d stack linked to a host file
mkdir -p "$R/etc/pam.d"
printf 'session required pam_hostonly_marker.so\n' > "$H/sshd"
ln -s "$H/sshd" "$R/etc/pam.d/sshd"
rl explain alice > "$T/out" 2>&1
check "etc/pam.d/sshd -> host file: explain does not read it" test -z "$(grep hostonly_marker "$T/out")"
rl --json doctor > "$T/out" 2>&1
check "etc/pam.d/sshd -> host file: doctor does not read it" test -z "$(grep hostonly_marker "$T/out")"
# a tree link that resolves inside the tree is read there
mkroot
mkdir -p "$R/srv"
printf '@rdma_users\tsoft\tmemlock\t5555555\n@rdma_users\thard\tmemlock\t5555555\n' > "$R/srv/in-tree.conf"
ln -s /srv/in-tree.conf "$D/60-in.conf"
rl list > "$T/out" 2>&1
check "limits.d/60-in.conf -> /srv/in-tree.conf: read inside the tree" grep -q 5555555 "$T/out"
# a FIFO among a unit's drop-ins: apply --unit neither blocks on it nor claims to have read it
mkroot
printf '[Service]\nExecStart=/bin/true\n' > "$R/etc/systemd/system/x.service"
mkdir -p "$R/etc/systemd/system/x.service.d"
mkfifo "$R/etc/systemd/system/x.service.d/zzz-fifo.conf"
rl apply --unit x.service 1M > "$T/out" 2>&1
rc=$?
check "a FIFO drop-in after ours: apply --unit does not block (exit $rc)" test $rc -eq 0
check "... and says it did not read it, and what it assumed" \
	grep -q "x.service.d/zzz-fifo.conf: not a regular file, not read: assumed not to set LimitMEMLOCK=" "$T/out"
check "... and writes its drop-in" grep -qx "LimitMEMLOCK=1M" "$R/etc/systemd/system/x.service.d/zz-rdmalimits.conf"
rl doctor --unit x.service > "$T/out" 2>&1
check "... and doctor says the same of it (one reader of a unit's drop-ins)" \
	grep -q "WARN not a regular file, not read: assumed not to set LimitMEMLOCK= (etc/systemd/system/x.service.d/zzz-fifo.conf)" "$T/out"
# a later drop-in whose LimitMEMLOCK= is outside any section (systemd ignores it: "Assignment
# outside of section"), and one in [Unit] (an unknown key there): neither overrides ours
rm -f "$R/etc/systemd/system/x.service.d/zzz-fifo.conf"
printf 'LimitMEMLOCK=64K\n' > "$R/etc/systemd/system/x.service.d/zzz-nosection.conf"
printf '[Unit]\nLimitMEMLOCK=32K\n' > "$R/etc/systemd/system/x.service.d/zzz-unit.conf"
rl apply --unit x.service 2M > "$T/out" 2>&1
rc=$?
check "drop-ins setting LimitMEMLOCK= outside [Service]: apply --unit writes ours (exit $rc)" test $rc -eq 0
check "... its drop-in says 2M" grep -qx "LimitMEMLOCK=2M" "$R/etc/systemd/system/x.service.d/zz-rdmalimits.conf"
rl doctor --unit x.service > "$T/out" 2>&1
check "... and doctor reads 2 MiB from it, not 64K or 32K" grep -q "x.service: memlock 2 MiB (LimitMEMLOCK=2M" "$T/out"
# a FIFO in limits.d: check reads around it
mkroot
mkfifo "$D/50-fifo.conf"
rl check > "$T/out" 2>&1
rc=$?
check "a FIFO in limits.d: check does not block (exit $rc, not 124)" test $rc -ne 124
check "... and says that pam_limits would hang on it, not that it fails the session" \
	grep -q "50-fifo.conf: error: blocks when read (a FIFO or a device without data): pam_limits waits on it forever and every login that reads it hangs" "$T/out"

# a FIFO as the tree's proc/1/limits: explain reads PID 1's limits with the one reader (the
# baseline's, non-blocking) for the service it assumes too, and does not wait on it
mkroot
mkdir -p "$R/etc/pam.d"
echo "session required pam_limits.so" > "$R/etc/pam.d/sshd"
rm "$R/proc/1/limits"
mkfifo "$R/proc/1/limits"
timeout 10 "$RDMALIMITS" --root "$R" --flavour debian explain alice --service sshd > "$T/out" 2>&1
rc=$?
check "a FIFO as proc/1/limits: explain --root does not block (exit $rc, not 124)" test $rc -ne 124
check "... and says it assumed PID 1's limits from the tree's file, memlock unknown" \
	grep -q "assumed: the limits of PID 1 (the tree's proc/1/limits) .*memlock unknown" "$T/out"

# no running sshd to ask, but systemd's unit of it in the tree: the service starts with the
# unit's memlock (LimitMEMLOCK= with its drop-ins, else systemd's default), not PID 1's, which
# systemd does not hand to its services; ssh.service (Debian) or sshd.service (RHEL)
for u in ssh.service sshd.service; do
	mkroot
	mkdir -p "$R/etc/pam.d" "$R/lib/systemd/system/$u.d"
	echo "session required pam_limits.so" > "$R/etc/pam.d/sshd"
	printf '[Unit]\nDescription=OpenBSD Secure Shell server\n[Service]\nExecStart=/usr/sbin/sshd -D\n' > "$R/lib/systemd/system/$u"
	printf '[Service]\nLimitMEMLOCK=16M\n' > "$R/lib/systemd/system/$u.d/rdma.conf"
	"$RDMALIMITS" --root "$R" --flavour debian --json explain alice --service sshd > "$T/out" 2>&1
	check "$u in the tree: the assumed sshd starts with its LimitMEMLOCK=16M, not PID 1's 8 MiB" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["service"]
sys.exit(not (s["memlock_soft"] == s["memlock_hard"] == 16 << 20 and s["process"].startswith(sys.argv[2] + " (") and s["assumed"]))' "$T/out" "$u"
done

done_testing
