# shellcheck shell=bash
# tests/lib/testcg.sh: a throwaway cgroup of the cgroup v2 hierarchy for a test, whose
# processes can be put in cgroups named like systemd's (system.slice/NAME.service), and its
# removal (the processes back to the root cgroup, the directories deepest first).
#   testcg_make NAME   CG=<hierarchy>/NAME-$$ made, CGROOT=<hierarchy>; non-zero when there is
#                      no writable cgroup v2 hierarchy
#   testcg_remove      undo testcg_make (fine when nothing was made); call it from the test's
#                      EXIT trap, after its processes are killed
CG=
CGROOT=

testcg_make() {
	CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$CGROOT" ] && mkdir "$CGROOT/$1-$$" 2>/dev/null || return 1
	CG=$CGROOT/$1-$$
}

testcg_remove() {
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	# a process that is still exiting stays listed for a moment: its cgroup is busy until then
	for _ in $(seq 50); do
		find "$CG" -depth -type d | while read -r d; do
			while read -r p; do echo "$p" > "$CGROOT/cgroup.procs" 2>/dev/null; done < "$d/cgroup.procs"
			rmdir "$d" 2>/dev/null
		done
		[ -d "$CG" ] || return 0
		sleep 0.1
	done
	echo "testcg: $CG could not be removed" >&2
}
