#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shape the code keeps (HACKING.md):
#   - no function in lib/, tool/ or the module longer than 100 lines (signature to closing brace);
#   - the module links none of lib/libmodel.la's code (lib/limits, pam, session, host, doctor, status: the tool's);
#   - arrays grow through lib/base/array.h only (no reallocarray() elsewhere).
# The checker is first shown a 101-line function, so that a checker that finds nothing fails.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

S=$top_srcdir
AWK=$S/tests/shape/fnlen.awk
PAM_MODULE=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so
MODEL=$top_builddir/lib/.libs/libmodel.a
require_built "$PAM_MODULE" "$MODEL"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# --- the checker itself --------------------------------------------------------------------
{
	echo 'static int long_one(int a,'
	echo '                    int b) {'
	for i in $(seq 98); do echo "        a += $i;"; done
	echo '}'
	echo 'int short_one(void) {'
	echo '        return 0;'
	echo '}'
} >"$T/long.c"
out=$(awk -v max=100 -f "$AWK" "$T/long.c")
check "the checker finds a 101-line function (and only it)" [ "$out" = "$T/long.c:1: 101 lines: static int long_one(int a," ]
check "the same function passes at max=101" [ -z "$(awk -v max=101 -f "$AWK" "$T/long.c")" ]

# --- no function over 100 lines ------------------------------------------------------------
srcs=$(cd "$S" && ls lib/*/*.c lib/*/*/*.c tool/*.c pam_rdmalimit/*.c)
long=$(cd "$S" && awk -v max=100 -f "$AWK" $srcs)
if [ -z "$long" ]; then
	ok "no function in lib/, tool/ or pam_rdmalimit/ is over 100 lines ($(echo $srcs | wc -w) files)"
else
	not_ok "no function in lib/, tool/ or pam_rdmalimit/ is over 100 lines" "$long"
fi
n=$(cd "$S" && awk -v max=0 -f "$AWK" $srcs | wc -l)
check "the checker saw the functions ($n, more than 500)" [ "$n" -gt 500 ]

# --- the module and the model --------------------------------------------------------------
if command -v nm >/dev/null; then
	# the model's global functions: a static one of the same name (a file's own helper) is
	# not the model's code, and the model's statics come only with its global ones
	# (libmodel.a carries liblogin's and libbase's objects too: only its libmodel_la-* members)
	nm -A --defined-only "$MODEL" 2>/dev/null |
		awk '$1 ~ /\(?libmodel_la-[^:]*\.o\)?:/ && $2 == "T" { print $3 }' | sort -u >"$T/model"
	nm --defined-only "$PAM_MODULE" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$T/module"
	check "lib/libmodel.la defines functions ($(wc -l <"$T/model"))" [ -s "$T/model" ]
	check "the module's symbols are there to compare ($(wc -l <"$T/module") functions)" [ -s "$T/module" ]
	both=$(comm -12 "$T/model" "$T/module")
	# the same comparison does see the login library, which the module links
	nm -A --defined-only "$MODEL" 2>/dev/null |
		awk '$1 ~ /\(?liblogin_la-[^:]*\.o\)?:/ && $2 == "T" { print $3 }' | sort -u >"$T/login"
	check "the comparison sees liblogin's functions in the module (policy_load_string, hw_probe)" \
		bash -c "comm -12 '$T/login' '$T/module' | grep -qx policy_load_string && comm -12 '$T/login' '$T/module' | grep -qx hw_probe"
	if [ -z "$both" ]; then
		ok "the module defines none of lib/libmodel.la's functions"
	else
		not_ok "the module defines none of lib/libmodel.la's functions" "$both"
	fi
else
	skip_all "nm is not installed (binutils)"
fi

# --- growth --------------------------------------------------------------------------------
hand=$(cd "$S" && grep -n 'reallocarray(' lib/*/*.[ch] lib/*/*/*.[ch] tool/*.[ch] pam_rdmalimit/*.c | grep -v '^lib/base/array.h:')
if [ -z "$hand" ]; then
	ok "reallocarray() is called in lib/base/array.h only"
else
	not_ok "reallocarray() is called in lib/base/array.h only" "$hand"
fi
done_testing
