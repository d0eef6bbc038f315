#!/bin/bash
# Run every fuzz target over its seed corpus (tests/fuzz/corpus/TARGET: real files and the
# crashes found so far, kept as regression cases), and for FUZZ_TIME each when that is
# set.  Skips when clang or its fuzzer runtime is missing, except under CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

here=$top_srcdir/tests/fuzz
out=$top_builddir/tests/fuzz/out
targets="size limits policy dropin cache"
config_h=
[ -f "$top_builddir/config.h" ] && config_h=$top_builddir/config.h

mkdir -p "$out"
"$here/build.sh" "$out" $config_h > "$out/build.log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	reason=$(grep -m1 'build.sh:' "$out/build.log")
	skip_all "$reason" "fuzz targets cannot be built under CI: $reason"
fi
if [ $rc -ne 0 ]; then
	fail "build the fuzz targets (exit $rc)"
	sed 's/^/# /' "$out/build.log" | tail -n 20
	done_testing
fi

export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for t in $targets; do
	n=$(ls "$here/corpus/$t" | wc -l)
	if [ "$n" -eq 0 ]; then
		fail "fuzz-$t: the corpus is empty"
		continue
	fi
	"$out/fuzz-$t" -max_len=8192 "$here/corpus/$t"/* > "$out/corpus-$t.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "fuzz-$t over its $n corpus files"
	else
		fail "fuzz-$t over its $n corpus files (exit $rc)"
		grep -E 'Running:|ERROR|SUMMARY|check failed|runtime error' "$out/corpus-$t.log" | tail -n 8 | sed 's/^/# /'
	fi
done

if [ -n "${FUZZ_TIME:-}" ]; then
	for t in $targets; do
		mkdir -p "$out/work/$t" "$out/artifacts/$t"
		"$out/fuzz-$t" -max_total_time="$FUZZ_TIME" -max_len=8192 \
			-artifact_prefix="$out/artifacts/$t/" "$out/work/$t" "$here/corpus/$t" > "$out/fuzz-$t.log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			ok "fuzz-$t for ${FUZZ_TIME}s: $(grep -m1 '^Done' "$out/fuzz-$t.log")"
		else
			fail "fuzz-$t for ${FUZZ_TIME}s (exit $rc): artifacts in $out/artifacts/$t"
			grep -E 'ERROR|SUMMARY|check failed|runtime error' "$out/fuzz-$t.log" | head -n 8 | sed 's/^/# /'
		fi
	done
fi
done_testing
