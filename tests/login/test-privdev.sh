#!/bin/bash
# tests/lib/privdev.sh on its own: a private /dev with a served /dev/log, in a private mount
# namespace; refused where /dev would be the host's.  Root only; nothing is changed outside the
# namespace.
set -u

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
# shellcheck source=tests/lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"
# shellcheck source=tests/lib/privdev.sh
. "$top_srcdir/tests/lib/privdev.sh"

if [ "${RDMALIMIT_PRIVDEV_INNER:-}" != 1 ]; then
	require_root "privdev self-test"
	export RDMALIMIT_PRIVDEV_INNER=1
	fakesys_unshare --mount --propagation private -- "$BASH" "$0"
fi

no_plan
mount --make-rprivate / || { echo "Bail out! mount --make-rprivate / failed"; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/privdev-test.XXXXXX") || { echo "Bail out! mktemp"; exit 99; }
mkdir "$work/dev"
not() { ! "$@"; }
devfs() { stat -f -c %T /dev; }
untouched() { [ "$(devfs)" = "$before" ] && ! mountpoint -q "$work/dev"; }
null_works() { [ "$(stat -c %t:%T /dev/null)" = 1:3 ] && echo x >/dev/null; }

before=$(devfs)
check "refuses when the host's mount namespace is this one" \
	not privdev_mount "$work/dev" "$(readlink /proc/self/ns/mnt)" 2>/dev/null
check "refuses without the host's mount namespace" not privdev_mount "$work/dev" "" 2>/dev/null
check "a refusal mounted nothing" untouched

check "privdev_mount in a private namespace" privdev_mount "$work/dev" "$FAKESYS_HOST_MNTNS"
check "/dev is a tmpfs now" [ "$(devfs)" = tmpfs ]
check "/dev/null is the host's device, and works" null_works
check "/dev/pts is a new devpts instance" [ "$(stat -f -c %T /dev/pts)" = devpts ]
check "/dev/fd leads to this process's descriptors" [ "$(readlink /dev/fd)" = /proc/self/fd ]

check "privdev_syslog_start" privdev_syslog_start "${PYTHON:-python3}" "$work/syslog" "$work/err"
check "/dev/log is a socket" [ -S /dev/log ]
logger -u /dev/log -p authpriv.info -- "privdev test: a line with a\\backslash" 2>/dev/null
for _ in $(seq 50); do
	grep -q 'privdev test' "$work/syslog" 2>/dev/null && break
	sleep 0.1
done
check "a message sent to /dev/log is recorded as one line" \
	[ "$(grep -c 'privdev test: a line with a\\backslash' "$work/syslog")" = 1 ]
kill "$PRIVDEV_SYSLOG_PID" 2>/dev/null
wait "$PRIVDEV_SYSLOG_PID" 2>/dev/null

# a host without a tty group, and a caller under set -euo pipefail (bench/run.sh)
grep -v '^tty:' /etc/group >"$work/group"
mount --bind "$work/group" /etc/group
mkdir "$work/dev2"
check "no tty group, under set -euo pipefail: mounted all the same" \
	bash -c 'set -euo pipefail; . "$1"; privdev_mount "$2" "$3"; [ "$(stat -f -c %T /dev/pts)" = devpts ]' \
	_ "$top_srcdir/tests/lib/privdev.sh" "$work/dev2" "$FAKESYS_HOST_MNTNS"
umount /etc/group
umount -l /dev
rm -rf "$work"
done_testing
