#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/status.sh BUILD_DIR
#
# How long `rdmalimits status` (text and --json) takes over many processes, side by side with
# a plain scan of the same /proc (cat /proc/[0-9]*/status | grep VmPin), in one run: it starts
# BENCH_STATUS_PROCS (default 10000) sleeping processes in a private PID namespace, times each
# command BENCH_STATUS_RUNS times (default 5), prints the medians and the ratios to the plain
# scan, and ends the sleepers (SIGKILL to the namespace's init: the kernel ends every process
# in it).  Asserts nothing about time: exit 0 when every measurement was taken, 77 when it
# cannot run here, 1 when one failed, 2 on usage.
set -euo pipefail

if [ $# -ne 1 ] || [ "$1" = --help ]; then
	echo "usage: bench/status.sh BUILD_DIR" >&2
	exit 2
fi
B=$(cd "$1" && pwd)
RL=$B/rdmalimits
N=${BENCH_STATUS_PROCS:-10000}
RUNS=${BENCH_STATUS_RUNS:-5}
if [ "$(id -u)" != 0 ]; then
	echo "bench-status: needs root (status reads every process), skipping" >&2
	exit 77
fi
if ! command -v perl >/dev/null || ! unshare --pid --fork true 2>/dev/null; then
	echo "bench-status: needs perl and unshare --pid, skipping" >&2
	exit 77
fi
if [ ! -x "$RL" ]; then
	echo "bench-status: $RL is missing: build first (make -C $B)" >&2
	exit 1
fi

count() { local a=(/proc/[0-9]*); echo ${#a[@]}; }
UNS= INIT=
cleanup() {
	# unshare returns once its child, the init, is reaped: after every sleeper is gone
	[ -n "$INIT" ] && kill -KILL "$INIT" 2>/dev/null
	[ -n "$UNS" ] && wait "$UNS" 2>/dev/null
	return 0
}
trap cleanup EXIT INT TERM

before=$(count)
# the sleepers: forked by one perl (no exec: little memory each), the init of their namespace
unshare --pid --fork --kill-child perl -e '
	$SIG{CHLD} = "IGNORE";
	for (1 .. $ARGV[0]) { my $p = fork; die "fork: $!\n" unless defined $p; if (!$p) { sleep 3600; exit 0 } }
	sleep 3600;' "$N" &
UNS=$!
for ((i = 0; i < 1200; i++)); do
	INIT=$(pgrep -P "$UNS" || true)
	[ -n "$INIT" ] && [ "$(count)" -ge $((before + N)) ] && break
	sleep 0.1
done
if [ "$(count)" -lt $((before + N)) ]; then
	echo "bench-status: only $(($(count) - before)) of $N sleepers started" >&2
	exit 1
fi

# the median of RUNS runs of "$@", in seconds
median() {
	local t=() i s e
	for ((i = 0; i < RUNS; i++)); do
		s=$EPOCHREALTIME
		"$@" > /dev/null 2>&1 || { echo "bench-status: failed: $*" >&2; return 1; }
		e=$EPOCHREALTIME
		t+=("$(echo "$e - $s" | bc -l)")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}
plain_scan() { { cat /proc/[0-9]*/status 2>/dev/null || true; } | grep VmPin; }

procs=$(count)
plain=$(median plain_scan)
text=$(median "$RL" status)
json=$(median "$RL" status --json)
printf 'status over %s processes (median of %s runs)\n' "$procs" "$RUNS"
printf '  %-44s %8.3f s\n' "cat /proc/[0-9]*/status | grep VmPin" "$plain"
printf '  %-44s %8.3f s  %5.2f x the plain scan\n' "rdmalimits status" "$text" "$(echo "$text / $plain" | bc -l)"
printf '  %-44s %8.3f s  %5.2f x the plain scan\n' "rdmalimits status --json" "$json" "$(echo "$json / $plain" | bc -l)"
