#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# status never holds a copy of a user's descriptor (root only): a throwaway user (uid 64204)
# keeps swapping its descriptor 9 between a socket and a file of a FUSE file system that never
# answers root's FLUSH (tests/status/fuse-hold, in a private mount namespace).  A copy of the
# descriptor taken while it is the file (pidfd_getfd) would hang root's close() for ever; status
# must return each time and send that file system no request at all.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=status-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/status/status-lib.sh"

if [ "${1:-}" != --inner ]; then
	require_root test-status-fuse
	status_serial
	FUSE_HOLD=${FUSE_HOLD:-$top_builddir/tests/status/fuse-hold}
	export FUSE_HOLD RDMALIMITS top_srcdir top_builddir
	exec unshare -m --propagation private bash "$0" --inner
fi

no_plan
ID=64204
T=$(mktemp -d /tmp/test-status-fuse.XXXXXX)
chmod 755 "$T"
mkdir "$T/mnt"
FUSE='' HOLDER=''
cleanup() {
	[ -n "$HOLDER" ] && kill -KILL "$HOLDER" 2>/dev/null
	[ -n "$FUSE" ] && kill -KILL "$FUSE" 2>/dev/null
	wait 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

if [ ! -x "$FUSE_HOLD" ]; then
	fail "fuse-hold helper built ($FUSE_HOLD)"
	done_testing
fi
if pgrep -U $ID -r R,S,D,T,t >/dev/null; then
	fail "uid $ID has no process before the test"
	done_testing
fi
"$FUSE_HOLD" "$T/mnt" > "$T/fuse.log" 2> "$T/fuse.err" &
FUSE=$!
for ((i = 0; i < 100; i++)); do
	grep -q ready "$T/fuse.log" && break
	kill -0 "$FUSE" 2>/dev/null || break
	sleep 0.05
done
if ! grep -q ready "$T/fuse.log"; then
	skip_ci "a FUSE mount here ($(cat "$T/fuse.err"))"
	done_testing
fi
ok "FUSE file system mounted on $T/mnt"

# the user: descriptor 9 is its socket, then the FUSE file, then its socket again, ...
setpriv --reuid $ID --regid $ID --clear-groups --inh-caps=-all --bounding-set=-all perl -e '
	use Socket; use POSIX ();
	socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "socket: $!\n";
	open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
	my ($sf, $ff) = (fileno($s), fileno($f));
	while (1) { POSIX::dup2($sf, 9); POSIX::dup2($ff, 9); }' "$T/mnt/f" 2> "$T/holder.err" &
HOLDER=$!
for ((i = 0; i < 100; i++)); do
	readlink "/proc/$HOLDER/fd/9" > /dev/null 2>&1 && break # never follow it: the FUSE file
	sleep 0.05
done
check "the user swaps a socket and a FUSE file on descriptor 9" eval 'readlink "/proc/$HOLDER/fd/9" > /dev/null'

hung=0 runs=0
for ((i = 0; i < 30; i++)); do
	runs=$((runs + 1))
	timeout -s KILL 20 "$RDMALIMITS" status $ID > "$T/out" 2>&1
	if [ $? = 137 ]; then
		hung=1
		break
	fi
done
diag "$runs run(s) of status $ID"
check "status returns while the user swaps a FUSE file in for its socket" test $hung = 0
check "status sent the user's FUSE file system no request ($(grep -c '^root' "$T/fuse.log") from root)" \
	eval '! grep -q "^root" "$T/fuse.log"'
check "status still lists the user's process" grep -qE "^ *$HOLDER +[0-9]+ +$ID " "$T/out"
done_testing
