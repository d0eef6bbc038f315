# shellcheck shell=bash
# e2e.sh: the start of each sandboxed sshd test (test-sshd.sh, test-session-model.sh,
# test-enable-sshd.sh, test-check-sshd.sh): the TAP helpers (tests/tap.sh), the sandbox
# (sandbox.sh), e2e_dir (this directory), and top_srcdir, top_builddir, RDMALIMITS and
# PAM_MODULE (default: the build's module) exported for the run inside the sandbox.
# Source it from bash.
e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tap.sh
. "$e2e_dir/../tap.sh"
# shellcheck source=sandbox.sh
. "$e2e_dir/sandbox.sh"

: "${PAM_MODULE:=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so}"
export top_srcdir top_builddir RDMALIMITS PAM_MODULE
