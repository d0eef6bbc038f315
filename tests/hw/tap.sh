# TAP helpers for the hw tests; sourced, not run.
#   plan N; ok DESC; not_ok DESC [DIAG...]; skip DESC REASON; check DESC CMD...
#   diff_ok DESC EXPECTED_FILE ACTUAL_FILE; finish (exit 1 when a test failed)
# Tests run from any build directory: top_builddir and top_srcdir come from the
# environment (AM_TESTS_ENVIRONMENT), defaulting to the current directory and the script's.

: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck disable=SC2034 # used by the tests sourcing this
HW_DUMP=$top_builddir/tests/hw/hw-dump
# shellcheck disable=SC2034
FAKE_IBVERBS_DIR=$top_builddir/tests/fake-ibverbs/lib

tap_n=0
tap_failed=0

plan() { echo "1..$1"; }

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

not_ok() {
	local desc=$1
	shift
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $desc"
	local line
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /'
	done
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1: $2"
}

# check DESC CMD...: ok when CMD succeeds
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "failed: $*"
	fi
}

# diff_ok DESC EXPECTED ACTUAL: ok when the files are equal, the diff as diagnostics
diff_ok() {
	local d
	if d=$(diff -u "$2" "$3" 2>&1); then
		ok "$1"
	else
		not_ok "$1" "$d"
	fi
}

finish() {
	[ "$tap_failed" -eq 0 ]
	exit $?
}

# value KEY FILE: the value of a KEY=VALUE line of hw-dump output
value() {
	sed -n "s/^$1=//p" "$2"
}
