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
# Environment: DIFF_SEED (default 20240611), DIFF_TREES (default 600), DIFF_BATCHES
# (default 6; PID 1's memlock differs per batch), DIFF_KEEP=1 keeps the work directory,
# DIFF_FAILURES (default $top_builddir/tests/diff/failures) where disagreeing trees go,
# DIFF_JOBS how many batches run at once (default: the CPUs, at most 4).
set -u

: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/difftest.py
PAM_SESSION=$top_builddir/tests/diff/pam-session
FAILURES=${DIFF_FAILURES:-$top_builddir/tests/diff/failures}
# no __pycache__ in the source tree
export PYTHONDONTWRITEBYTECODE=1

# --ns-init WORK ROOT DRIVER-ARGS...: PID 1 of a batch's namespaces
if [ "${1:-}" = "--ns-init" ]; then
	work=$2 root=$3
	shift 3
	mount --make-rprivate / || exit 99
	for f in passwd group security; do
		mount --bind "$root/etc/$f" "/etc/$f" || exit 99
	done
	# the vendor directory the vendor oracle was built with
	if [ -n "${DIFF_VENDOR:-}" ]; then
		mkdir -p "$root/vendor" && mount --bind "$root/vendor" "$DIFF_VENDOR" || exit 99
	fi
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
if [ ! -x "$PAM_SESSION" ] || [ ! -x "$RDMALIMITS" ] || [ ! -x "$top_builddir/tests/diff/model-session" ]; then
	echo "1..0 # SKIP $PAM_SESSION or $RDMALIMITS not built"
	exit 0
fi
if ! compgen -G "/lib/*/security/pam_limits.so" >/dev/null &&
	! compgen -G "/usr/lib/*/security/pam_limits.so" >/dev/null &&
	! compgen -G "/usr/lib*/security/pam_limits.so" >/dev/null; then
	echo "1..0 # SKIP pam_limits.so not installed"
	exit 0
fi
# the bind mounts need the mount points
if [ ! -f /etc/passwd ] || [ ! -f /etc/group ] || [ ! -d /etc/security ]; then
	echo "1..0 # SKIP no /etc/security to mount over"
	exit 0
fi
if ! unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
	echo "1..0 # SKIP cannot create mount and PID namespaces"
	exit 0
fi

# the real modules of other releases (tests/diff/oracles.sh: downloads and builds, cached)
ORACLES=$top_builddir/tests/diff/oracles
MODEL_SESSION=$top_builddir/tests/diff/model-session
HOST_MODULE=$(compgen -G "/lib/*/security/pam_limits.so" || compgen -G "/usr/lib/*/security/pam_limits.so" | head -n 1)
HOST_MODULE=${HOST_MODULE%%$'\n'*}
ORACLE_STATUS=$top_builddir/tests/diff/oracles.status
"$BASH" "$HERE/oracles.sh" "$ORACLES" "$HERE/pam-session.c" >"$ORACLE_STATUS" 2>&1
ORACLE_SPEC="debian-1.5.2=debian-1.5.2=$HOST_MODULE=$PAM_SESSION"
ORACLE_MISSING=
while read -r name state rest; do
	case "$name:$state" in
	*:OK) ;;
	*) ORACLE_MISSING="$ORACLE_MISSING $name"; continue ;;
	esac
	case $name in
	debian-1.7.0) ORACLE_SPEC="$ORACLE_SPEC;$name=$name=$ORACLES/$name/pam_limits.so=$ORACLES/$name/run" ;;
	upstream-1.7.0-vendor)
		ORACLE_SPEC="$ORACLE_SPEC;$name=upstream-1.7.0=$ORACLES/$name/pam_limits.so=$PAM_SESSION=$ORACLES/vendor/security"
		export DIFF_VENDOR=$ORACLES/vendor/security ;;
	*) ORACLE_SPEC="$ORACLE_SPEC;$name=$name=$ORACLES/$name/pam_limits.so=$PAM_SESSION" ;;
	esac
done <"$ORACLE_STATUS"
ORACLE_NAMES=$(echo "$ORACLE_SPEC" | tr ';' '\n' | cut -d= -f1 | tr '\n' ' ')

SEED=${DIFF_SEED:-20240611}
TREES=${DIFF_TREES:-300}
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
echo "1..$((NFACTS + BATCHES + 1))"
# the oracles' own result comes last, in TAP order
if [ -n "$ORACLE_MISSING" ]; then
	if [ "${CI:-}" = true ]; then
		oracle_line="not ok $((NFACTS + BATCHES + 1)) - oracles ready: missing$ORACLE_MISSING (see $ORACLES/log)"
		fail_oracles=1
	else
		oracle_line="ok $((NFACTS + BATCHES + 1)) - oracles ready # SKIP missing$ORACLE_MISSING (see $ORACLES/log)"
	fi
else
	oracle_line="ok $((NFACTS + BATCHES + 1)) - oracles ready: $ORACLE_NAMES"
fi
echo "# seed=$SEED trees=$TREES batches=$BATCHES (reproduce: DIFF_SEED=$SEED DIFF_TREES=$TREES DIFF_BATCHES=$BATCHES)"
echo "# memlock hard limit available here: $(ulimit -H -l) KiB; failing trees go to $FAILURES"

# run_ns N DRIVER-ARGS...: one namespace with a fresh PID 1 and a fresh root, in the
# background; output in $WORK/outN, exit status in $WORK/rcN
run_ns() {
	local n=$1
	shift
	local root=$WORK/root$n
	mkdir -p "$root/etc/security" "$WORK/w$n" || return 99
	: >"$root/etc/passwd"
	: >"$root/etc/group"
	unshare --mount --pid --fork --mount-proc "$BASH" "${BASH_SOURCE[0]}" --ns-init \
		"$WORK/w$n" "$root" --tap-start "$n" \
		--pam-session "$PAM_SESSION" --rdmalimits "$RDMALIMITS" --failures "$FAILURES" \
		--model-session "$MODEL_SESSION" --oracles "$ORACLE_SPEC" \
		--seed "$SEED" "$@" >"$WORK/out$n" 2>&1
	echo $? >"$WORK/rc$n"
}

# report N COUNT DESC: print a namespace's output; TAP lines it could not print fail
fail=0
report() {
	local n=$1 count=$2 desc=$3 rc k
	rc=$(cat "$WORK/rc$n" 2>/dev/null || echo 99)
	cat "$WORK/out$n"
	[ "$rc" = 0 ] || fail=1
	for ((k = n; k < n + count; k++)); do
		if ! grep -q "^\(not \)\?ok $k " "$WORK/out$n"; then
			echo "not ok $k - $desc: the namespace or the driver failed (exit $rc)"
			fail=1
		fi
	done
}

# batches run in parallel, DIFF_JOBS (default: the number of CPUs, at most 4) at a time
JOBS=${DIFF_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
[ "$JOBS" -le 4 ] || JOBS=4
running=0
throttle() {
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
}

run_ns 1 --facts &
running=1
start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	throttle
	run_ns $((NFACTS + 1 + b)) --batch "$b" --first "$start" --last "$end" &
	running=$((running + 1))
	start=$end
done
wait

report 1 "$NFACTS" "known facts"
for ((b = 0; b < BATCHES; b++)); do
	report $((NFACTS + 1 + b)) 1 "batch $b"
done

sessions=$(sed -n 's/^# counts: trees=[0-9]* sessions=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
runs=$(sed -n 's/^# counts: .* explain=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
dis=$(sed -n 's/^# counts: .* disagreements=\([0-9]*\).*/\1/p' "$WORK"/out* | awk '{s += $1} END {print s + 0}')
echo "# total: $TREES trees, $sessions sessions, $runs explain runs compared, $dis disagreeing sessions"
# the table: oracle x cases (sessions by the model's outcome), disagreements
echo "# oracle                 sessions   limits no-limits    fails  refused disagree"
sed -n 's/^# oracle: //p' "$WORK"/out* | awk '{n = $1; for (i = 2; i <= NF; i++) { split($i, kv, "="); t[n, kv[1]] += kv[2] } names[n] = 1}
END { for (n in names) printf "#   %-20s %8d %8d %9d %8d %8d %8d\n", n, t[n, "sessions"], t[n, "limits"], t[n, "no-limits"], t[n, "fails"], t[n, "refused"], t[n, "disagree"] }' | sort
echo "$oracle_line"
[ "${fail_oracles:-0}" = 0 ] || fail=1
[ "$dis" = 0 ] || echo "# disagreeing trees saved under $FAILURES"
exit $fail
