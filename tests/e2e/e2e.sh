# shellcheck shell=bash
# e2e.sh: the start of each sandboxed sshd test (test-sshd.sh, test-session-model.sh,
# test-enable-sshd.sh, test-check-sshd.sh): the TAP helpers (tests/tap.sh), the sandbox
# (sandbox.sh), e2e_dir (this directory), and top_srcdir, top_builddir, RDMALIMITS and
# PAM_MODULE (default: the build's module) exported for the run inside the sandbox; e2e_inner,
# the start of the sandbox side.  Source it from bash.
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
