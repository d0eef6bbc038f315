# shellcheck shell=bash
# tests/diff/ns.sh: the namespaces of the differential tests (test-pam-limits-diff.sh,
# test-check-oracle.sh); source it after setting DRIVER (the python driver).
#
# Each batch of trees runs in its own private mount and PID namespace
# (unshare --mount --pid --fork --mount-proc): PID 1 there is the test script again
# (--ns-init: ns_init), /etc/passwd, /etc/group and /etc/security are bind mounts of
# ROOT/etc/... (the host's files are never written), and DRIVER draws the trees into ROOT
# and runs the sessions.  run_ns reads WORK (ns_work), FAILURES, SEED and VENDOR_DIR (when
# set, ROOT/vendor is mounted over it: the vendor directory an oracle was built with).
set -u

: "${top_builddir:=$PWD}"
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
PAM_SESSION=$top_builddir/tests/diff/pam-session
# no __pycache__ in the source tree
export PYTHONDONTWRITEBYTECODE=1
# the test script, which run_ns starts again as PID 1
NS_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# ns_init WORK ROOT VENDOR DRIVER-ARGS...: PID 1 of a batch's namespaces; VENDOR may be ""
ns_init() {
	local work=$1 root=$2 vendor=$3 f
	shift 3
	mount --make-rprivate / || exit 99
	for f in passwd group security; do
		mount --bind "$root/etc/$f" "/etc/$f" || exit 99
	done
	if [ -n "$vendor" ]; then
		mkdir -p "$root/vendor" && mount --bind "$root/vendor" "$vendor" || exit 99
	fi
	python3 "$DRIVER" --work "$work" --root "$root" "$@" &
	wait $!
	exit $?
}

ns_skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

# host_pam_limits: the path of the host's pam_limits.so
host_pam_limits() {
	local m
	m=$(compgen -G "/lib/*/security/pam_limits.so" || compgen -G "/usr/lib/*/security/pam_limits.so" ||
		compgen -G "/usr/lib*/security/pam_limits.so") || return 1
	echo "${m%%$'\n'*}"
}

# ns_require PROGRAM...: skips the test (exit 0) unless it can run here: as root (under
# CI=true it fails instead), with the tools, the built PROGRAMs, an installed
# pam_limits.so, the /etc mount points and the namespaces
ns_require() {
	local tool p
	require_root "$(basename "$0")"
	for tool in unshare mount python3; do
		command -v "$tool" >/dev/null || ns_skip "$tool not found"
	done
	for p in "$@"; do
		[ -x "$p" ] || ns_skip "$p not built"
	done
	host_pam_limits >/dev/null || ns_skip "pam_limits.so not installed"
	# the bind mounts need the mount points
	if [ ! -f /etc/passwd ] || [ ! -f /etc/group ] || [ ! -d /etc/security ]; then
		ns_skip "no /etc/security to mount over"
	fi
	unshare --mount --pid --fork --mount-proc true 2>/dev/null || ns_skip "cannot create mount and PID namespaces"
}

# ns_work NAME [KEEP]: WORK, a new temporary directory, removed on exit unless KEEP is 1
ns_work() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	NS_KEEP=${2:-0}
	trap ns_cleanup EXIT
	trap 'exit 99' INT TERM HUP
}
# shellcheck disable=SC2317 # called from the trap
ns_cleanup() {
	if [ "$NS_KEEP" = 1 ]; then
		echo "# work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

# run_ns N DRIVER-ARGS...: one batch's namespaces with a fresh PID 1 and a fresh ROOT; the
# driver numbers its TAP lines from N; output in $WORK/outN, exit status in $WORK/rcN
run_ns() {
	local n=$1 root=$WORK/root$1
	shift
	mkdir -p "$root/etc/security" "$WORK/w$n" || return 99
	: >"$root/etc/passwd"
	: >"$root/etc/group"
	unshare --mount --pid --fork --mount-proc "$BASH" "$NS_SELF" --ns-init "$WORK/w$n" "$root" "${VENDOR_DIR:-}" \
		--tap-start "$n" --pam-session "$PAM_SESSION" --rdmalimits "$RDMALIMITS" --failures "$FAILURES" \
		--seed "$SEED" "$@" >"$WORK/out$n" 2>&1
	echo $? >"$WORK/rc$n"
}

# report N COUNT DESC: prints a batch's output; the TAP lines N..N+COUNT-1 it did not print
# fail.  NS_FAIL=1 when anything failed (the test script exits with it).
NS_FAIL=0
# shellcheck disable=SC2034 # NS_FAIL: read by the test script
report() {
	local n=$1 count=$2 desc=$3 rc k
	rc=$(cat "$WORK/rc$n" 2>/dev/null || echo 99)
	cat "$WORK/out$n"
	[ "$rc" = 0 ] || NS_FAIL=1
	for ((k = n; k < n + count; k++)); do
		if ! grep -q "^\(not \)\?ok $k " "$WORK/out$n"; then
			echo "not ok $k - $desc: the namespace or the driver failed (exit $rc)"
			NS_FAIL=1
		fi
	done
}

# sum_counts KEY: the sum of KEY=N over the batches' "# counts: ..." lines
sum_counts() {
	sed -n "s/^# counts:.* $1=\([0-9]*\).*/\1/p" "$WORK"/out* | awk '{s += $1} END {print s + 0}'
}
