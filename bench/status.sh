#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/status.sh BUILD_DIR
#
# How long `rdmalimits status` (text and --json) takes over many processes, side by side with
# a plain scan of the same /proc (cat /proc/[0-9]*/status | grep VmPin), in one run: it starts
# BENCH_STATUS_PROCS (default 10000) sleeping processes in a private PID namespace, times each
# command BENCH_STATUS_RUNS times (default 5), prints the medians of the wall and CPU times and
# their ratios to the plain scan, and ends the sleepers (SIGKILL to the namespace's init: the kernel ends every process
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
if ! command -v perl bc >/dev/null || [ ! -x /usr/bin/time ] || ! unshare --pid --fork true 2>/dev/null; then
	echo "bench-status: needs perl, bc, /usr/bin/time and unshare --pid, skipping" >&2
	exit 77
fi
if [ ! -x "$RL" ]; then
	echo "bench-status: $RL is missing: build first (make -C $B)" >&2
	exit 1
fi

count() { local a=(/proc/[0-9]*); echo ${#a[@]}; }
UNS='' INIT=''
cleanup() {
	# unshare returns once its child, the init, is reaped: after every sleeper is gone
	[ -n "$INIT" ] && { kill -KILL "$INIT" 2>/dev/null || true; }
	[ -n "$UNS" ] && { wait "$UNS" 2>/dev/null || true; }
	return 0
}
trap cleanup EXIT INT TERM

# the sleepers: forked by one perl (no exec: little memory each), the init of their namespace
unshare --pid --fork --kill-child perl -e '
	$SIG{CHLD} = "IGNORE";
	for (1 .. $ARGV[0]) { my $p = fork; die "fork: $!\n" unless defined $p; if (!$p) { sleep 3600; exit 0 } }
	sleep 3600;' "$N" 2>/dev/null &
UNS=$!
started() { [ -n "$INIT" ] && pgrep -c -P "$INIT" || echo 0; }
for ((i = 0; i < 1200; i++)); do
	INIT=$(pgrep -P "$UNS" || true)
	[ "$(started)" -ge "$N" ] && break
	sleep 0.1
done
if [ "$(started)" -lt "$N" ]; then
	echo "bench-status: only $(started) of $N sleepers started" >&2
	exit 1
fi

# "WALL CPU": the medians of RUNS runs of the shell command $1, in seconds (CPU: user + system
# of it and its children, which a loaded machine changes less than the wall time)
median() {
	local i w=() c=()
	for ((i = 0; i < RUNS; i++)); do
		if ! /usr/bin/time -f '%e %U %S' -o "$TF" bash -c "$1" > /dev/null 2>&1; then
			echo "bench-status: failed: $1" >&2
			return 1
		fi
		read -r e u s < "$TF"
		w+=("$e")
		c+=("$(echo "$u + $s" | bc -l)")
	done
	echo "$(printf '%s\n' "${w[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")" \
		"$(printf '%s\n' "${c[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")"
}
TF=$(mktemp /tmp/bench-status.XXXXXX)
ratio() { echo "$1 / $2" | bc -l; }

procs=$(count)
read -r pw pc < <(median 'cat /proc/[0-9]*/status 2>/dev/null | grep VmPin; true')
read -r tw tc < <(median "'$RL' status")
read -r jw jc < <(median "'$RL' status --json")
rm -f "$TF"
printf 'status over %s processes (medians of %s runs; ratios to the plain scan)\n' "$procs" "$RUNS"
printf '  %-38s %8s %8s %7s %7s\n' command wall cpu "wall x" "cpu x"
printf '  %-38s %7.3fs %7.3fs\n' "cat /proc/[0-9]*/status | grep VmPin" "$pw" "$pc"
printf '  %-38s %7.3fs %7.3fs %7.2f %7.2f\n' "rdmalimits status" "$tw" "$tc" "$(ratio "$tw" "$pw")" "$(ratio "$tc" "$pc")"
printf '  %-38s %7.3fs %7.3fs %7.2f %7.2f\n' "rdmalimits status --json" "$jw" "$jc" "$(ratio "$jw" "$pw")" "$(ratio "$jc" "$pc")"
