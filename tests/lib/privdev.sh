# shellcheck shell=bash
# privdev.sh: a private /dev with a served /dev/log, for scripts that run in a PRIVATE mount
# namespace: tests/e2e/sandbox.sh (the login sandbox) and bench/run.sh.  Source it from bash;
# root only.  The host's /dev (a devtmpfs that every mount namespace shares) is never written.
#
# Functions
#   privdev_mount STAGE HOST_MNTNS
#                             mount over /dev a tmpfs with the host's null, zero, full, random,
#                             urandom and tty bind-mounted in (never created in the host's
#                             devtmpfs), a new devpts instance, a private /dev/shm and the
#                             fd/stdin/stdout/stderr links.  STAGE is an empty directory,
#                             used as the mount point until the tmpfs is moved over /dev.
#                             HOST_MNTNS is the host's mount namespace (`readlink
#                             /proc/self/ns/mnt` before unshare): refuses (1) when it is empty
#                             or this shell's, so that the host's /dev is never covered.
#   privdev_syslog_start PYTHON OUT ERR
#                             a datagram listener at /dev/log, as journald or rsyslogd serves
#                             it, writing each message it receives to OUT as one line (NULs
#                             dropped, newlines made spaces); its own errors go to ERR.  Sets
#                             PRIVDEV_SYSLOG_PID; returns once /dev/log is there, 1 if the
#                             listener did not start (ERR says why).

privdev_mount() {
	local dev=$1 host=$2 n ttygid
	if [ -z "$host" ] || [ "$(readlink /proc/self/ns/mnt)" = "$host" ]; then
		echo "privdev: not in a private mount namespace: refusing to mount over /dev" >&2
		return 1
	fi
	mount -t tmpfs -o mode=0755,size=1m,nosuid privdev "$dev" || return 1
	for n in null zero full random urandom tty; do
		[ -e "/dev/$n" ] || continue
		: >"$dev/$n" && mount --bind "/dev/$n" "$dev/$n" || return 1
	done
	ttygid=$(getent group tty | cut -d: -f3) || ttygid=     # no tty group: devpts' default
	mkdir -m 0755 "$dev/pts" "$dev/shm" &&
		mount -t devpts -o "newinstance,ptmxmode=0666,mode=0620${ttygid:+,gid=$ttygid}" privdev-pts "$dev/pts" &&
		ln -s pts/ptmx "$dev/ptmx" &&
		mount -t tmpfs -o mode=1777,nosuid,nodev privdev-shm "$dev/shm" || return 1
	ln -s /proc/self/fd "$dev/fd"
	ln -s /proc/self/fd/0 "$dev/stdin"
	ln -s /proc/self/fd/1 "$dev/stdout"
	ln -s /proc/self/fd/2 "$dev/stderr"
	mount --move "$dev" /dev
}

privdev_syslog_start() {
	local python=$1 out=$2 err=$3 i
	: >"$out"
	"$python" -c '
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
with open(out, "ab", buffering=0) as f:
    while True:
        d = s.recv(65536)
        f.write(d.replace(b"\0", b"").rstrip(b"\n").replace(b"\n", b" ") + b"\n")
' /dev/log "$out" </dev/null 2>>"$err" &
	PRIVDEV_SYSLOG_PID=$!
	for i in $(seq 50); do
		[ -S /dev/log ] && return 0
		kill -0 "$PRIVDEV_SYSLOG_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "privdev: the /dev/log listener did not start: $(cat "$err")" >&2
	return 1
}
