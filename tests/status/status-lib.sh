# shellcheck shell=bash
# status-lib.sh: what the status tests share (test-status.sh, test-status-edges.sh,
# test-status-stall.sh, test-status-fuse.sh).  Source it after tests/tap.sh.

# One status test at a time: each measures the kernel's accounting (probe children, UMEMs,
# network namespaces), which another's can hold up (a namespace's teardown takes the RTNL lock
# a probe child's exit waits for).  The lock is held until the test ends, across an exec.
status_serial() {
	exec {status_lock}>"${top_builddir:-.}/tests/status/.serial.lock" && flock "$status_lock"
}

# as USER with memlock SOFT:HARD, CAP_NET_RAW only (never CAP_IPC_LOCK: the kernel charges)
as_user() {
	local id=$1 soft=$2 hard=$3
	shift 3
	prlimit --memlock="$soft:$hard" setpriv --reuid "$id" --regid "$id" --clear-groups \
		--inh-caps=-all,+net_raw --ambient-caps=-all,+net_raw --bounding-set=-all,+net_raw "$@"
}

# the pid whose descriptors hold socket inode $1
pid_of_inode() {
	local f
	for f in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "socket:[$1]" ] && { f=${f#/proc/}; echo "${f%%/*}"; return 0; }
	done
	return 1
}

# wait (bounded) until an output line appears in file $1
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# is DESC GOT WANT: ok when they are the same, else both shown
is() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1"; diag "expected: $3" "got:      $2"; fi; }
