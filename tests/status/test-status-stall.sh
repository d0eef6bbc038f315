#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A user cannot stall root's status or doctor --pid (root only): the probe child runs with the
# user's uid, so a throwaway user (uid 64203, no other process) stops it with a kill(-1,
# SIGSTOP) loop.  Each run must return (a run still going after 20 s is a hang), say the
# user's charge is unknown and why, and leave no probe child behind; the race is the user's,
# so runs repeat until one probe was caught (a run the loop missed measures the charge).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=status-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/status/status-lib.sh"

require_root test-status-stall
status_serial
no_plan
ID=64203
T=$(mktemp -d /tmp/test-status-stall.XXXXXX)
LOOP=
cleanup() {
	[ -n "$LOOP" ] && kill "$LOOP" 2>/dev/null && wait "$LOOP" 2>/dev/null
	pkill -KILL -U $ID 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

if pgrep -U $ID -r R,S,D,T,t >/dev/null; then
	fail "uid $ID has no process before the test"
	done_testing
fi
setpriv --reuid $ID --regid $ID --clear-groups --inh-caps=-all --bounding-set=-all \
	bash -c 'while :; do kill -STOP -1 2>/dev/null; done' &
LOOP=$!

# live: uid ID's processes but zombies; others: those but the loop (a probe child left behind)
live() { pgrep -U $ID -r R,S,D,T,t; }
# a killed probe child still finishing its exit on a loaded machine is given 10 s to go
others() {
	local i left
	for ((i = 0; i < 100; i++)); do
		left=$(live | grep -vx "$LOOP" | tr '\n' ' ')
		[ -z "$left" ] && break
		sleep 0.1
	done
	printf '%s' "$left"
}

# run "$@" until the test $1 holds for its output in $T/out (at most 60 runs); sets caught,
# hung (a run killed after 20 s) and left (probe children found after each run)
until_caught() {
	local pred=$1 i rc
	shift
	caught=0 hung=0 left=
	for ((i = 0; i < 60 && !caught; i++)); do
		timeout -s KILL 20 "$@" > "$T/out" 2> "$T/err"
		rc=$?
		left+=$(others)
		if [ $rc = 137 ]; then
			hung=1
			break
		fi
		$pred && caught=1
	done
	diag "$i run(s) of $*"
}
has() { grep -qF -- "$WANT" "$T/out"; }
no_charge() { grep -q "^rdmalimit_user_memlock_limit_bytes{.*uid=\"$ID\"" "$T/out" &&
	! grep -qE "^rdmalimit_user_memlock_(charged|headroom)_bytes\{.*uid=\"$ID\"" "$T/out"; }

WANT="user $ID: charge unknown: the probe of uid $ID did not answer in 1 s"
until_caught has "$RDMALIMITS" status $ID --probe-timeout 1
check "status returns while the user stops its probe" test $hung = 0
check "status says the charge is unknown and why" test $caught = 1
check "status leaves no probe child behind (left: '$left')" test -z "$left"
check "the user's row says unknown" grep -qE "^ *$ID +$ID +1 .* unknown +unknown +unknown " "$T/out"

WANT='"charged_why": "the probe of uid '$ID' did not answer in 1 s"'
until_caught has "$RDMALIMITS" status $ID --json --probe-timeout 1
check "status --json returns" test $hung = 0
check "status --json: charged null with the reason" eval 'test $caught = 1 && grep -qF "\"charged\": null" "$T/out"'
check "status --json leaves no probe child behind (left: '$left')" test -z "$left"

# Prometheus: the user's charge and headroom samples are left out, its limit stays
until_caught no_charge "$RDMALIMITS" status $ID --prometheus --probe-timeout 1
check "status --prometheus returns" test $hung = 0
check "status --prometheus omits the unknown charge and headroom" test $caught = 1
check "status --prometheus leaves no probe child behind (left: '$left')" test -z "$left"

WANT="the probe of uid $ID did not answer in 1 s"
until_caught has "$RDMALIMITS" doctor --pid "$LOOP" --probe-timeout 1
check "doctor --pid returns while the user stops its probe" test $hung = 0
check "doctor --pid says the charge is unknown and why" test $caught = 1
check "doctor --pid leaves no probe child behind (left: '$left')" test -z "$left"

check "--probe-timeout 0 is refused" eval '! "$RDMALIMITS" status --probe-timeout 0 >/dev/null 2>"$T/err"'
check "... naming the option" grep -qF -- "--probe-timeout '0': expected a whole number of seconds" "$T/err"

kill "$LOOP" 2>/dev/null
wait "$LOOP" 2>/dev/null
LOOP=

# a process of the user named slurmstepd is not taken for Slurm's (which runs as root): its
# command line, which status reads from a real slurmstepd, may sit on pages its owner maps
# from a FUSE file it serves, and hold the read for ever
cp /bin/bash "$T/slurmstepd"
chmod 755 "$T" "$T/slurmstepd"
setpriv --reuid $ID --regid $ID --clear-groups --inh-caps=-all --bounding-set=-all \
	bash -c 'exec -a "slurmstepd: [99.0]" "$0" -c "sleep 300; :"' "$T/slurmstepd" &
FAKE=$!
for ((i = 0; i < 100; i++)); do
	TASK=$(pgrep -P $FAKE sleep) && break
	sleep 0.05
done
check "the user's fake slurmstepd runs (pid $FAKE, task ${TASK:-none})" test "$(cat /proc/$FAKE/comm 2>/dev/null)" = slurmstepd -a -n "$TASK"
"$RDMALIMITS" status --json --pid "$TASK" > "$T/fake.json" 2>&1
check "its child is not a Slurm task" python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['processes'][0]
sys.exit(p['origin']['kind'] == 'slurm')" "$T/fake.json"
kill "$FAKE" 2>/dev/null
pkill -U $ID sleep 2>/dev/null
wait "$FAKE" 2>/dev/null
check "no process of uid $ID is left" test -z "$(live)"
done_testing
