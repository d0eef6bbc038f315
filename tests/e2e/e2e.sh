# shellcheck shell=bash
# e2e.sh: the start of each sandboxed sshd test (test-sshd.sh, test-session-model.sh,
# test-enable-sshd.sh, test-check-sshd.sh): the TAP helpers (tests/tap.sh), the sandbox
# (sandbox.sh), json and memlock_of (below), e2e_dir (this directory), and top_srcdir,
# top_builddir, RDMALIMITS and PAM_MODULE (default: the build's module) exported for the run
# inside the sandbox; e2e_inner, the start of the sandbox side.  Source it from bash.
e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tap.sh
. "$e2e_dir/../tap.sh"
# shellcheck source=sandbox.sh
. "$e2e_dir/sandbox.sh"

: "${PAM_MODULE:=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so}"
export top_srcdir top_builddir RDMALIMITS PAM_MODULE

# e2e_inner: the start of the sandbox side: sandbox_inner (the TAP counters go back to
# sandbox_outer on fd 3), sandbox_start (its failure ends the test), and $tmp, a directory of
# the sandbox for the test's files
e2e_inner() {
	sandbox_inner
	if ! sandbox_start; then
		fail "sandbox started"
		exit 1
	fi
	tmp=$SANDBOX_DIR/t
	mkdir -m 0700 "$tmp"
	ok "sandbox started in private mount, PID and network namespaces"
}

# json FILE EXPR: the value of a Python expression over the JSON document in FILE (as d), a
# tuple printed as its items separated by blanks; nothing when FILE is no JSON (no jq needed)
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(*v) if isinstance(v, tuple) else print(v)' "$1" "$2" 2>/dev/null
}

# memlock_of FILE: "soft hard" from a /proc/PID/limits dump
memlock_of() { awk '/^Max locked memory/ { print $4, $5 }' "$1"; }

# e2e_secdir: where this system's libpam loads modules from (next to pam_unix.so)
e2e_secdir() {
	local d arch
	arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
	for d in /lib/"$arch"/security /usr/lib/"$arch"/security /lib/security /lib64/security \
		/usr/lib/security /usr/lib64/security; do
		if [ -f "$d/pam_unix.so" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# e2e_su_outer WHAT [NEED...]: the start of the outer side of a test with the real su and the
# build's module by name: root (require_root WHAT), a module that reads /etc/security, a plan,
# and need=() for sandbox_require: the module, the tool, pam_unix, a setuid $SU (default
# /bin/su), and NEED...
e2e_su_outer() {
	local what=$1 su=${SU:-/bin/su}
	shift
	require_root "$what"
	[ "${MODULE_SYSCONFDIR:-/etc}" = /etc ] ||
		skip_all "the module reads its policy from $MODULE_SYSCONFDIR/security; this test needs --sysconfdir=/etc"
	no_plan
	need=(-f "$PAM_MODULE" "$RDMALIMITS" "$@")
	e2e_secdir >/dev/null || need+=(-m pam_unix.so)
	[ -u "$su" ] || need+=(-m "a setuid $su")
}

# e2e_inner_by_name: the start of the sandbox side (e2e_inner) for a test of the module by
# name: MODULE the module under test, installed as pam_rdmalimit.so (e2e_module_by_name);
# PAM_MODULE unset, so nothing else loads it by path
e2e_inner_by_name() {
	MODULE=$PAM_MODULE
	unset PAM_MODULE SANDBOX_PAM_MODULE
	e2e_inner
	e2e_module_by_name "$MODULE" || { echo "Bail out! the module directory"; exit 1; }
}

# e2e_module_by_name MODULE (inside the sandbox): a copy of the system's PAM module directory
# with MODULE added as pam_rdmalimit.so, bound over the real one (this mount namespace only),
# so that a stack line naming pam_rdmalimit.so, as enable writes it, loads the build's module
e2e_module_by_name() {
	local sec
	sec=$(e2e_secdir) || return 1
	mkdir -m 0755 "$SANDBOX_DIR/security" && cp -a "$sec/." "$SANDBOX_DIR/security/" &&
		install -m 0644 -o root -g root "$1" "$SANDBOX_DIR/security/pam_rdmalimit.so" &&
		mount --bind "$SANDBOX_DIR/security" "$sec" && _sandbox_mounts+=("$sec")
	check "pam_rdmalimit.so is in $sec inside the sandbox" test -f "$sec/pam_rdmalimit.so"
}
