#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A --root tree whose file lies on a FUSE file system a user serves (user_id= a user's uid,
# allow_other: what fusermount mounts when the admin allows user_allow_other): the server
# never answers root's FLUSH (tests/status/fuse-hold), so a close() by root of a descriptor of
# that file hangs for good (state D: SIGKILL does not end it).  explain, check and doctor over
# such a tree must return, refuse that file with the reason, and make the file system neither
# an open nor a flush (they hung in close()).  The same file system served by root (user_id=0)
# is read as any other.  In a private mount namespace; root only.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

if [ "${1:-}" != --inner ]; then
	require_root "a FUSE mount in a private mount namespace"
	FUSE_HOLD=${FUSE_HOLD:-$top_builddir/tests/status/fuse-hold}
	export FUSE_HOLD RDMALIMITS top_srcdir top_builddir
	exec unshare -m --propagation private bash "$0" --inner
fi

no_plan
T=$(mktemp -d /tmp/test-tree-fuse.XXXXXX)
chmod 755 "$T"
R=$T/root
FUSE=''
stop_fuse() {
	[ -n "$FUSE" ] && kill -KILL "$FUSE" 2>/dev/null
	wait "$FUSE" 2>/dev/null
	umount -l "$R/fuse" 2>/dev/null
	FUSE=''
}
trap 'stop_fuse; rm -rf "$T"' EXIT

if [ ! -x "$FUSE_HOLD" ]; then
	fail "fuse-hold helper built ($FUSE_HOLD)"
	done_testing
fi
mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/proc/1" "$R/fuse"
printf 'root:x:0:0:root:/root:/bin/sh\nalice:x:1001:2000::/home/alice:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/sshd"
printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"
# limits.conf is the FUSE file, through a link that resolves inside the tree
ln -s /fuse/f "$R/etc/security/limits.conf"

# start_fuse UID: fuse-hold on $R/fuse, served by UID
start_fuse() {
	: > "$T/fuse.log"
	"$FUSE_HOLD" "$R/fuse" "$1" > "$T/fuse.log" 2> "$T/fuse.err" &
	FUSE=$!
	for ((i = 0; i < 100; i++)); do
		grep -q ready "$T/fuse.log" && return 0
		kill -0 "$FUSE" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}
if ! start_fuse 65534; then
	skip_ci "a FUSE mount here ($(cat "$T/fuse.err"))"
	done_testing
fi
ok "FUSE file system served by uid 65534 mounted in the tree"

for cmd in "explain alice" check doctor; do
	# shellcheck disable=SC2086 # cmd is words
	timeout -s KILL 20 "$RDMALIMITS" --root "$R" --flavour debian $cmd > "$T/out" 2>&1
	rc=$?
	check "$cmd: returns (exit $rc, not killed by the 20 s timeout)" test "$rc" != 137
	check "$cmd: says why the file is not read" grep -qF "on a FUSE file system a user serves" "$T/out"
	grep -qF "on a FUSE file system a user serves" "$T/out" || sed 's/^/#   /' "$T/out" | head -8
done
# fuse-hold logs each request of root by its opcode: FUSE_OPEN 14, FUSE_FLUSH 25
check "the file system saw no OPEN or FLUSH from root" sh -c "! grep -qxE 'root (14|25)' '$T/fuse.log'"
grep -xE 'root (14|25)' "$T/fuse.log" | sed 's/^/#   /'
stop_fuse

# served by root: read as any other file (an empty limits.conf); fuse-hold holds root's FLUSH,
# so only the reader's own close is at stake: explain returns when the test kills the server
if start_fuse 0; then
	timeout -s KILL 20 "$RDMALIMITS" --root "$R" --flavour debian check > "$T/out" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		grep -qx 'root 14' "$T/fuse.log" && break
		sleep 0.05
	done
	check "served by root (user_id=0): the file is opened as any other" grep -qx 'root 14' "$T/fuse.log"
	stop_fuse
	wait "$pid"
	check "... and not refused as a user's" sh -c "! grep -qF 'a user serves' '$T/out'"
else
	fail "fuse-hold as root"
fi
done_testing
