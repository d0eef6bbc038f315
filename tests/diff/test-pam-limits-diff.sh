#!/bin/bash
# Differential test: `rdmalimits explain USER --json` against the real pam_limits.so.
#
# Root only.  Each batch runs in its own private mount and PID namespace
# (unshare --mount --pid --fork --mount-proc): PID 1 there is a shell of ours whose memlock
# limit the driver sets (so /proc/1/limits, Debian's baseline, is under our control), and
# /etc/passwd, /etc/group and /etc/security are bind mounts of generated files (the host's
# files are never written: tests/diff/ns.sh).  tests/diff/difftest.py generates the trees (gen.py), runs
# tests/diff/pam-session and rdmalimits for every user, and compares.
#
# Environment: DIFF_SEED (default 20240611), DIFF_TREES (default 600), DIFF_BATCHES
# (default 6; PID 1's memlock differs per batch), DIFF_KEEP=1 keeps the work directory,
# DIFF_FAILURES (default $top_builddir/tests/diff/failures) where disagreeing trees go,
# DIFF_JOBS how many batches run at once (default: the CPUs, at most 4).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/difftest.py
# shellcheck source=ns.sh
. "$HERE/ns.sh"
[ "${1:-}" != --ns-init ] || ns_init "${@:2}"
FAILURES=${DIFF_FAILURES:-$top_builddir/tests/diff/failures}
MODEL_SESSION=$top_builddir/tests/diff/model-session
ns_require "$PAM_SESSION" "$RDMALIMITS" "$MODEL_SESSION"

# the real modules of other releases (tests/diff/oracles.sh: downloads and builds, cached)
ORACLES=$top_builddir/tests/diff/oracles
HOST_MODULE=$(host_pam_limits)
ORACLE_STATUS=$top_builddir/tests/diff/oracles.status
"$BASH" "$HERE/oracles.sh" "$ORACLES" "$HERE/pam-session.c" "$HERE/service-limits.c" >"$ORACLE_STATUS" 2>&1
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
		VENDOR_DIR=$ORACLES/vendor/security ;;
	*) ORACLE_SPEC="$ORACLE_SPEC;$name=$name=$ORACLES/$name/pam_limits.so=$PAM_SESSION" ;;
	esac
done <"$ORACLE_STATUS"
ORACLE_NAMES=$(echo "$ORACLE_SPEC" | tr ';' '\n' | cut -d= -f1 | tr '\n' ' ')
# what every namespace's driver compares with
COMPARE=(--model-session "$MODEL_SESSION" --oracles "$ORACLE_SPEC")

SEED=${DIFF_SEED:-20240611}
TREES=${DIFF_TREES:-300}
BATCHES=${DIFF_BATCHES:-6}
[ "$BATCHES" -ge 1 ] || BATCHES=1
[ "$TREES" -ge "$BATCHES" ] || BATCHES=$TREES
[ "$BATCHES" -ge 1 ] || BATCHES=1

ns_work pam-limits-diff "${DIFF_KEEP:-0}"
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

run_ns 1 "${COMPARE[@]}" --facts &
running=1
start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	throttle
	run_ns $((NFACTS + 1 + b)) "${COMPARE[@]}" --batch "$b" --first "$start" --last "$end" &
	running=$((running + 1))
	start=$end
done
wait

report 1 "$NFACTS" "known facts"
for ((b = 0; b < BATCHES; b++)); do
	report $((NFACTS + 1 + b)) 1 "batch $b"
done

dis=$(sum_counts disagreements)
echo "# total: $TREES trees, $(sum_counts sessions) sessions, $(sum_counts explain) explain runs compared, $dis disagreeing sessions"
# the table: oracle x cases (sessions by the model's outcome), disagreements
echo "# oracle                 sessions   limits no-limits    fails  refused disagree"
sed -n 's/^# oracle: //p' "$WORK"/out* | awk '{n = $1; for (i = 2; i <= NF; i++) { split($i, kv, "="); t[n, kv[1]] += kv[2] } names[n] = 1}
END { for (n in names) printf "#   %-20s %8d %8d %9d %8d %8d %8d\n", n, t[n, "sessions"], t[n, "limits"], t[n, "no-limits"], t[n, "fails"], t[n, "refused"], t[n, "disagree"] }' | sort
echo "$oracle_line"
[ "${fail_oracles:-0}" = 0 ] || NS_FAIL=1
[ "$dis" = 0 ] || echo "# disagreeing trees saved under $FAILURES"
exit "$NS_FAIL"
