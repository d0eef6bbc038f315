#!/bin/bash
# The oracle of `rdmalimits check`: every line check says "never takes effect" must take
# effect in no session of any user of the tree, as the real pam_limits.so opens them.
#
# Root only.  Like test-pam-limits-diff.sh: each batch runs in its own private mount and PID
# namespace, /etc/passwd, /etc/group and /etc/security are bind mounts of generated files
# (the host's files are never written: tests/diff/ns.sh); tests/diff/check-oracle.py draws
# the trees (tests/diff/gen.py), runs check and the sessions (tests/diff/pam-session, the
# real module).
#
# Environment: ORACLE_SEED (default 20240611), ORACLE_TREES (default 400), ORACLE_BATCHES
# (default 4), ORACLE_FAILURES (default $top_builddir/tests/diff/check-failures).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/check-oracle.py
# shellcheck source=ns.sh
. "$HERE/ns.sh"
[ "${1:-}" != --ns-init ] || ns_init "${@:2}"
FAILURES=${ORACLE_FAILURES:-$top_builddir/tests/diff/check-failures}
ns_require "$PAM_SESSION" "$RDMALIMITS"

SEED=${ORACLE_SEED:-20240611}
TREES=${ORACLE_TREES:-400}
BATCHES=${ORACLE_BATCHES:-4}
[ "$TREES" -ge "$BATCHES" ] || BATCHES=$TREES
[ "$BATCHES" -ge 1 ] || BATCHES=1

ns_work check-oracle
rm -rf "$FAILURES"

echo "1..$BATCHES"
echo "# seed=$SEED trees=$TREES (reproduce: ORACLE_SEED=$SEED ORACLE_TREES=$TREES ORACLE_BATCHES=$BATCHES)"

start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	run_ns $((b + 1)) --first "$start" --last "$end" &
	start=$end
done
wait

for ((b = 0; b < BATCHES; b++)); do
	report $((b + 1)) 1 "batch $b"
done
echo "# total: $TREES trees, $(sum_counts judged) lines judged dead by check, $(sum_counts sessions) real sessions, $(sum_counts violations) violations"
exit "$NS_FAIL"
