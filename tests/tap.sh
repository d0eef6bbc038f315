# TAP helpers for the shell tests.  Source it; call plan N (or no_plan), then ok/fail.
# Root-only tests call require_root: they skip as a normal user, and fail under CI=true;
# skip_all does the same for any other reason a test cannot run.
set -u
_tap_n=0
_tap_failed=0
_tap_planned=

plan() { echo "1..$1"; _tap_planned=$1; }
no_plan() { _tap_planned=late; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
fail() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
# skip_ci DESCRIPTION: this one test cannot run here: skipped, but a failure under CI=true
skip_ci() { if [ "${CI:-}" = true ]; then fail "$*"; else skip "$*"; fi; }
diag() { printf '# %s\n' "$@"; }
# not_ok DESCRIPTION [DIAG...]: a failure, each DIAG as diagnostic lines
not_ok() {
	local d=$1 line
	shift
	fail "$d"
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /'
	done
}
# check DESCRIPTION COMMAND...: ok when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
# diff_ok DESCRIPTION EXPECTED-FILE ACTUAL-FILE: ok when equal, else the diff as diagnostics
diff_ok() {
	local d
	if d=$(diff -u "$2" "$3" 2>&1); then
		ok "$1"
	else
		not_ok "$1" "$d"
	fi
}
done_testing() {
	[ "$_tap_planned" = late ] && echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# skip_all REASON [CI-REASON]: the whole test cannot run here: skipped (a plan of 0), but a
# failure under CI=true, where nothing may be skipped (CI-REASON, default REASON, says why)
skip_all() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - ${2:-$1}"
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

# require_built FILE...: each FILE exists, else the test fails (make check builds them)
require_built() {
	local f
	for f in "$@"; do
		if [ ! -e "$f" ]; then
			echo "1..1"
			echo "not ok 1 - $f is missing (make check builds it)"
			exit 1
		fi
	done
}

# require_fake_verbs: the test needs tests/fake-ibverbs, which a --disable-rdma build (no
# infiniband/verbs.h to compile it against) does not have: skipped there
require_fake_verbs() {
	[ "${BUILT_WITH_VERBS:-yes}" = yes ] ||
		skip_all "built with --disable-rdma: no fake libibverbs" "built with --disable-rdma under CI: no fake libibverbs"
}

require_root() {
	[ "$(id -u)" = 0 ] || skip_all "$1: needs root" "$1: root-only test cannot run as $(id -un) under CI"
}

# Compare a file with expected text on stdin; show a diff on mismatch.
same() {
	local desc=$1 got=$2 exp
	exp=$(cat)
	if [ "$exp" = "$(cat "$got")" ]; then
		ok "$desc"
	else
		fail "$desc"
		diff -u <(printf '%s\n' "$exp") "$got" | sed 's/^/# /'
	fi
}

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"
