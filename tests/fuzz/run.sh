#!/bin/bash
# Build the fuzz targets and run each for DURATION seconds (libFuzzer -max_total_time).
#
#   tests/fuzz/run.sh DURATION [TARGET...]
#
# Environment: FUZZ_OUT (build and work directory, default $TMPDIR/rdmalimit-fuzz),
# CONFIG_H (a configured build's config.h, optional), FUZZ_ARGS (more libFuzzer options,
# e.g. "-jobs=2 -workers=2").  New inputs go to FUZZ_OUT/work/TARGET; crashes to
# FUZZ_OUT/artifacts/TARGET/.  Keep a crashing input as a regression case by copying it to
# tests/fuzz/corpus/TARGET/.  Exit status: 0 no crash, 1 a target crashed, 77 no clang/libFuzzer.
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:?usage: run.sh DURATION [TARGET...]}
shift
targets=${*:-size limits policy dropin cache}
out=${FUZZ_OUT:-${TMPDIR:-/tmp}/rdmalimit-fuzz}

"$here/build.sh" "$out" ${CONFIG_H:+"$CONFIG_H"} || exit $?
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

status=0
for t in $targets; do
	mkdir -p "$out/work/$t" "$out/artifacts/$t"
	echo "== fuzz-$t for ${secs}s"
	# shellcheck disable=SC2086
	"$out/fuzz-$t" -max_total_time="$secs" -max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t/" ${FUZZ_ARGS:-} \
		"$out/work/$t" "$here/corpus/$t" > "$out/fuzz-$t.log" 2>&1
	rc=$?
	grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "$out/fuzz-$t.log" | sed 's/^/   /'
	if [ $rc -ne 0 ]; then
		status=1
		echo "   fuzz-$t FAILED (exit $rc); log: $out/fuzz-$t.log"
		grep -E 'ERROR|SUMMARY|check failed|runtime error' "$out/fuzz-$t.log" | head -n 5 | sed 's/^/   /'
		ls "$out/artifacts/$t/" | sed "s|^|   artifact: $out/artifacts/$t/|"
	fi
done
exit $status
