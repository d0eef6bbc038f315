#!/bin/bash
# The oracle of `rdmalimits check`: every line check says "never takes effect" must take
# effect in no session of any user of the tree, as the real pam_limits.so opens them.
#
# Root only.  Like test-pam-limits-diff.sh: each batch runs in its own private mount and PID
# namespace, /etc/passwd, /etc/group and /etc/security are bind mounts of generated files
# (the host's files are never written); tests/diff/check-oracle.py draws the trees
# (tests/diff/gen.py), runs check and the sessions (tests/diff/pam-session, the real module).
#
# Environment: ORACLE_SEED (default 20240611), ORACLE_TREES (default 400), ORACLE_BATCHES
# (default 4), ORACLE_FAILURES (default $top_builddir/tests/diff/check-failures).
set -u

: "${top_builddir:=$PWD}"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DRIVER=$HERE/check-oracle.py
PAM_SESSION=$top_builddir/tests/diff/pam-session
FAILURES=${ORACLE_FAILURES:-$top_builddir/tests/diff/check-failures}
export PYTHONDONTWRITEBYTECODE=1

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
if ! compgen -G "/lib/*/security/pam_limits.so" >/dev/null &&
	! compgen -G "/usr/lib/*/security/pam_limits.so" >/dev/null; then
	echo "1..0 # SKIP pam_limits.so not installed"
	exit 0
fi
if [ ! -f /etc/passwd ] || [ ! -f /etc/group ] || [ ! -d /etc/security ]; then
	echo "1..0 # SKIP no /etc/security to mount over"
	exit 0
fi
if ! unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
	echo "1..0 # SKIP cannot create mount and PID namespaces"
	exit 0
fi

SEED=${ORACLE_SEED:-20240611}
TREES=${ORACLE_TREES:-400}
BATCHES=${ORACLE_BATCHES:-4}
[ "$TREES" -ge "$BATCHES" ] || BATCHES=$TREES
[ "$BATCHES" -ge 1 ] || BATCHES=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/check-oracle.XXXXXX") || exit 99
trap 'rm -rf "$WORK"' EXIT
trap 'exit 99' INT TERM HUP
rm -rf "$FAILURES"

echo "1..$BATCHES"
echo "# seed=$SEED trees=$TREES (reproduce: ORACLE_SEED=$SEED ORACLE_TREES=$TREES ORACLE_BATCHES=$BATCHES)"

start=0
for ((b = 0; b < BATCHES; b++)); do
	end=$(((b + 1) * TREES / BATCHES))
	root=$WORK/root$b
	mkdir -p "$root/etc/security" "$WORK/w$b" || exit 99
	: >"$root/etc/passwd"
	: >"$root/etc/group"
	unshare --mount --pid --fork --mount-proc "$BASH" "${BASH_SOURCE[0]}" --ns-init \
		"$WORK/w$b" "$root" --tap-start $((b + 1)) --pam-session "$PAM_SESSION" \
		--rdmalimits "$RDMALIMITS" --failures "$FAILURES" --seed "$SEED" \
		--first "$start" --last "$end" >"$WORK/out$b" 2>&1 &
	start=$end
done
wait

fail=0
for ((b = 0; b < BATCHES; b++)); do
	cat "$WORK/out$b"
	if ! grep -q "^\(not \)\?ok $((b + 1)) " "$WORK/out$b"; then
		echo "not ok $((b + 1)) - batch $b: the namespace or the driver failed"
		fail=1
	elif grep -q "^not ok" "$WORK/out$b"; then
		fail=1
	fi
done
sum() { sed -n "s/^# counts: .* $1=\([0-9]*\).*/\1/p" "$WORK"/out* | awk '{s += $1} END {print s + 0}'; }
echo "# total: $TREES trees, $(sum judged) lines judged dead by check, $(sum sessions) real sessions, $(sum violations) violations"
exit $fail
