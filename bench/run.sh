#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/run.sh BUILD_DIR [OUTFILE]
#
# Runs the benchmarks of bench/README.md against the build in BUILD_DIR, prints the table and
# writes it to OUTFILE (default BUILD_DIR/bench/results.txt) and the raw numbers to the same
# name with .json.  Asserts nothing about time: exit 0 when every measurement was taken,
# 77 when it cannot run here (not root, no unshare), 1 when a measurement failed, 2 on usage.
#
# Root only: the stacks run in a private mount namespace where generated passwd, group and
# security/ are bind-mounted over /etc's (the host's files are never written).
# Knobs (environment): BENCH_ROUNDS (7), BENCH_SESSIONS (2000), BENCH_SPAWNS (200),
# BENCH_SPAWN_ROUNDS (5), BENCH_MEM_SESSIONS (10000), BENCH_TREES (5000,10000,100000),
# BENCH_TREE_ROUNDS (5,3,3), BENCH_TOOL_RUNS (5), BENCH_PAM_LIMITS_TIMEOUT (120 seconds),
# BENCH_KEEP=1 keeps the work directory.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = --help ]; then
	echo "usage: bench/run.sh BUILD_DIR [OUTFILE]" >&2
	exit 2
fi
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$(cd "$1" && pwd)
OUT=${2:-$B/bench/results.txt}
mkdir -p "$(dirname "$OUT")"
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (private mount namespace with bind mounts over /etc), skipping" >&2
	exit 77
fi
if ! unshare --mount --propagation private true 2>/dev/null; then
	echo "bench: cannot create a mount namespace here, skipping" >&2
	exit 77
fi
for f in "$B/rdmalimits" "$B/pam_rdmalimit/.libs/pam_rdmalimit.so"; do
	if [ ! -e "$f" ]; then
		echo "bench: $f is missing: build first (make -C $B)" >&2
		exit 1
	fi
done
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# the driver: from the build system when bench/bench.am is included, else compiled here
DRIVER=$B/bench/pam-bench
if [ ! -x "$DRIVER" ] || [ "$SRC/bench/pam-bench.c" -nt "$DRIVER" ]; then
	if ! make -C "$B" bench/pam-bench >/dev/null 2>&1; then
		mkdir -p "$B/bench"
		"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -o "$DRIVER" "$SRC/bench/pam-bench.c" -lpam
	fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdmalimit-bench.XXXXXX")
cleanup() {
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "bench: work directory kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

echo "bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); a full run takes 6 to 8 minutes on 2 idle cores, longer under load" >&2
unshare --mount --propagation private \
	"$PY" "$SRC/bench/bench.py" --build "$B" --srcdir "$SRC" --driver "$DRIVER" --work "$WORK" --out "$OUT"
