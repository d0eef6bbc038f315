#!/bin/bash
# Differential test: `rdmalimits explain USER --json` against the real pam_limits.so.
#
# Root only.  Each batch runs in its own private mount and PID namespace
# (unshare --mount --pid --fork --mount-proc): PID 1 there is a shell of ours whose memlock
# limit the driver sets (so /proc/1/limits, Debian's baseline, is under our control), and
# /etc/passwd, /etc/group and /etc/security are bind mounts of generated files (the host's
# files are never written).  tests/diff/difftest.py generates the trees (gen.py), runs
# tests/diff/pam-session and rdmalimits for every user, and compares.
#
# Environment: DIFF_SEED (default 20240611), DIFF_TREES (default 480), DIFF_BATCHES
# (default 6; PID 1's memlock differs per batch), DIFF_KEEP=1 keeps the work directory.
# Disagreeing trees are saved under $top_builddir/tests/diff/failures/.
set -u

: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/difftest.py
PAM_SESSION=$top_builddir/tests/diff/pam-session
FAILURES=$top_builddir/tests/diff/failures

# --ns-init WORK ROOT DRIVER-ARGS...: PID 1 of a batch's namespaces
if [ "${1:-}" = "--ns-init" ]; then
	work=$2 root=$3
	shift 3
	mount --make-rprivate / || exit 99
	for f in passwd group security; do
		mount --bind "$root/etc/$f" "/etc/$f" || exit 99
	done
	python3 "$DRIVER" --work "$work" --root "$root" "$@" &
	wait $!
	exit $?
fi

if [ "$(id -u)" != 0 ]; then
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - root-only test skipped under CI"
		exit 1
	fi
	echo "1..0 # SKIP not root"
	exit 0
fi
for tool in unshare mount python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not found"
		exit 0
	fi
done
if [ ! -x "$PAM_SESSION" ] || [ ! -x "$RDMALIMITS" ]; then
	echo "1..0 # SKIP $PAM_SESSION or $RDMALIMITS not built"
	exit 0
fi
if ! unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
	echo "1..0 # SKIP cannot create mount and PID namespaces"
	exit 0
fi

SEED=${DIFF_SEED:-20240611}
TREES=${DIFF_TREES:-480}
BATCHES=${DIFF_BATCHES:-6}
[ "$BATCHES" -ge 1 ] || BATCHES=1
[ "$TREES" -ge "$BATCHES" ] || BATCHES=$TREES
[ "$BATCHES" -ge 1 ] || BATCHES=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pam-limits-diff.XXXXXX") || exit 99
cleanup() {
	if [ "${DIFF_KEEP:-0}" = 1 ]; then
		echo "# work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 99' INT TERM HUP
rm -rf "$FAILURES"

NFACTS=$(python3 "$DRIVER" --count-facts) || exit 99
echo "1..$((NFACTS + BATCHES))"
echo "# seed=$SEED trees=$TREES batches=$BATCHES (reproduce: DIFF_SEED=$SEED DIFF_TREES=$TREES DIFF_BATCHES=$BATCHES)"
echo "# memlock hard limit available here: $(ulimit -H -l) KiB; failing trees go to $FAILURES"

fail=0
# run_ns TAP_NUMBER DESC DRIVER-ARGS...: one namespace, one fresh PID 1, one fresh root
run_ns() {
	local n=$1 desc=$2 rc
	shift 2
	local root=$WORK/root$n
	mkdir -p "$root/etc/security" "$WORK/w$n" || return 99
	: >"$root/etc/passwd"
	: >"$root/etc/group"
	unshare --mount --pid --fork --mount-proc "$BASH" "${BASH_SOURCE[0]}" --ns-init \
		"$WORK/w$n" "$root" --tap-start "$n" \
		--pam-session "$PAM_SESSION" --rdmalimits "$RDMALIMITS" --failures "$FAILURES" \
		--seed "$SEED" "$@" >"$WORK/out$n" 2>&1
	rc=$?
	cat "$WORK/out$n"
	if [ "$rc" != 0 ]; then
		fail=1
		# the driver died before printing its TAP line(s)
		if ! grep -q "^\(not \)\?ok $n " "$WORK/out$n"; then
			echo "not ok $n - $desc: the namespace or the driver failed (exit $rc)"
		fi
	fi
}

run_ns 1 "known facts" --facts
# a fact test that died early leaves TAP lines missing: fill them in
have=$(grep -c "^\(not \)\?ok " "$WORK/out1")
for ((k = have + 1; k <= NFACTS; k++)); do
	echo "not ok $k - known fact $k not run"
done

start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	run_ns $((NFACTS + 1 + b)) "batch $b" --batch "$b" --first "$start" --last "$end"
	start=$end
done

sessions=$(sed -n 's/^# counts: trees=[0-9]* sessions=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
runs=$(sed -n 's/^# counts: .* explain=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
dis=$(sed -n 's/^# counts: .* disagreements=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
echo "# total: $TREES trees, $sessions sessions, $runs explain runs compared, $dis disagreeing sessions"
[ "$dis" = 0 ] || echo "# disagreeing trees saved under $FAILURES"
exit $fail
