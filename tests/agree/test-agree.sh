#!/bin/bash
# Cross-command agreement: on random trees (tests/agree/gen.py: PAM stacks with jumps,
# includes and substacks, limits trees, policies), explain, verify, doctor, enable and apply
# say the same thing as each other and as real PAM sessions (libpam, this system's
# pam_limits.so, the built pam_rdmalimit.so).  What each comparison asserts: agree.py.
#
# Root only.  Each batch of trees runs in its own private mount and PID namespace
# (tests/diff/ns.sh): /etc/passwd, /etc/group, /etc/security and /etc/pam.d are bind mounts of
# the tree's files, and a copy of the PAM module directory with the build's module is bound
# over the real one; the host's files are never written.
#
# Environment: AGREE_SEED (default: 20261205), AGREE_TREES (default 200), AGREE_FIRST (the
# first tree's index, default 0), AGREE_BATCHES (default 2; PID 1's memlock differs per
# batch), AGREE_JOBS (batches at once, default 2), AGREE_KEEP=1 keeps the work directory,
# AGREE_FAILURES (default $top_builddir/tests/agree/failures) where disagreeing trees go.
# A disagreement of a known bug (agree.py KNOWN_BUGS) is a TODO line: printed, not failing.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/agree.py
# shellcheck source=../diff/ns.sh
. "$HERE/../diff/ns.sh"
[ "${1:-}" != --ns-init ] || ns_init "${@:2}"
FAILURES=${AGREE_FAILURES:-$top_builddir/tests/agree/failures}
: "${PAM_MODULE:=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so}"
ns_require "$PAM_SESSION" "$RDMALIMITS"
require_built "$PAM_MODULE"
[ -d /etc/pam.d ] || ns_skip "no /etc/pam.d to mount over"
SECDIR=$(dirname "$(host_pam_limits)")

SEED=${AGREE_SEED:-20261205}
TREES=${AGREE_TREES:-200}
FIRST=${AGREE_FIRST:-0}
BATCHES=${AGREE_BATCHES:-2}
[ "$BATCHES" -ge 1 ] || BATCHES=1
[ "$TREES" -ge "$BATCHES" ] || BATCHES=$TREES
[ "$BATCHES" -ge 1 ] || BATCHES=1
JOBS=${AGREE_JOBS:-2}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1

ns_work agree "${AGREE_KEEP:-0}"
rm -rf "$FAILURES"
echo "1..$TREES"
echo "# seed=$SEED trees=$FIRST..$((FIRST + TREES - 1)) batches=$BATCHES (reproduce: AGREE_SEED=$SEED AGREE_FIRST=$FIRST AGREE_TREES=$TREES)"
echo "# memlock hard limit here: $(ulimit -H -l) KiB; disagreeing trees go to $FAILURES"

running=0
start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_ns $((start + 1)) --batch "$b" --first $((FIRST + start)) --last $((FIRST + end)) \
		--module "$PAM_MODULE" --secdir "$SECDIR" &
	running=$((running + 1))
	start=$end
done
wait

start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	report $((start + 1)) $((end - start)) "batch $b"
	start=$end
done
dis=$(sum_counts disagreements)
for k in known sessions explain verify doctor enable enable-edited enable-refused apply apply-4 opened failed module-decides order-before; do
	printf '%s=%s ' "$k" "$(sum_counts "$k")"
done | sed 's/^/# total: /; s/ $//'
echo
echo "# $dis disagreements (seed $SEED)"
[ "$dis" = 0 ] || echo "# disagreeing trees saved under $FAILURES"
exit "$NS_FAIL"
