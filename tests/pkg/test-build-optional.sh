#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# libibverbs is optional at build time and libmnl is used nowhere (netlink is spoken without a
# library): `configure --disable-rdma --disable-xdp` builds the module and the tool without
# either header.  The include path is poisoned with a libmnl/libmnl.h and an
# infiniband/verbs.h that stop the compiler, so a file that includes one fails the build here.  The built tool then says why each part is
# unknown, and `make check` runs there.  Configures and builds a throwaway directory of its own.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/poison/libmnl" "$T/poison/infiniband" "$T/b"
echo '#error libmnl/libmnl.h included in a --disable-xdp build' >"$T/poison/libmnl/libmnl.h"
echo '#error infiniband/verbs.h included in a --disable-rdma build' >"$T/poison/infiniband/verbs.h"

# a make of our own: nothing of the make running this test (its TESTS=, -j, jobserver)
# reaches the throwaway build, or `make check TESTS=<this test>` would run itself again
submake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u TESTS make "$@"; }

if (cd "$T/b" && "$top_srcdir/configure" -q --disable-rdma --disable-xdp --enable-werror \
	CPPFLAGS="-I$T/poison" >"$T/log" 2>&1); then
	ok "configure --disable-rdma --disable-xdp"
else
	not_ok "configure --disable-rdma --disable-xdp" "$(tail -5 "$T/log")"
	done_testing
fi
check "config.h defines neither ENABLE_XDP nor HAVE_LIBIBVERBS" \
	bash -c "! grep -E '^#define (ENABLE_XDP|HAVE_LIBIBVERBS) ' '$T/b/config.h'"

if submake -C "$T/b" -j"$(nproc)" rdmalimits pam_rdmalimit/pam_rdmalimit.la >"$T/make.log" 2>&1; then
	ok "the module and the tool build with the optional headers poisoned"
else
	not_ok "the module and the tool build with the optional headers poisoned" \
		"$(grep -m5 -E 'error' "$T/make.log")"
	done_testing
fi

mod=$T/b/pam_rdmalimit/.libs/pam_rdmalimit.so
check "the module names no libmnl soname (nothing to dlopen)" bash -c "! strings '$mod' | grep -q 'libmnl\.so'"
check "the tool names no libibverbs or libmnl soname" \
	bash -c "! strings '$T/b/rdmalimits' | grep -qE 'lib(ibverbs|mnl)\.so'"

out=$("$T/b/rdmalimits" probe 2>&1)
check "probe: AF_XDP unknown, built without it" grep -q 'built without AF_XDP detection (--disable-xdp)' <<<"$out"
json=$("$T/b/rdmalimits" probe --json 2>&1)
check "probe --json: xdp status not-built" grep -q '"xdp": {"status": "not-built"' <<<"$json"
check "probe --json: verbs not-built" grep -q '"verbs": "not-built"' <<<"$json"
json=$("$T/b/rdmalimits" status --json 2>&1)
check "status --json: AF_XDP sockets unknown, built without AF_XDP support" \
	grep -q '"af_xdp_why": "built without AF_XDP support (--disable-xdp)"' <<<"$json"
check "status --json: RDMA MRs unknown, built without AF_XDP support" \
	grep -q '"rdma_mr_why": "built without AF_XDP support (--disable-xdp)"' <<<"$json"

# make check there too: the test programs build without the headers, the tool's own tests
# pass, and a test that needs the fake libibverbs (compiled against the real header) says
# why it skips (CI=true is taken away: there, a skip is a failure)
CI= submake -C "$T/b" -j"$(nproc)" check TESTS="tests/hw/test-rdma-fake.sh tests/tool/test-tool.sh" \
	>"$T/check.log" 2>&1
check "make check builds and runs in that build: test-tool.sh passes" \
	grep -q '^:test-result: PASS' "$T/b/tests/tool/test-tool.trs"
check "... with no failure" bash -c "! grep -qE '^:test-result: (FAIL|ERROR)' '$T/b/tests/tool/test-tool.trs'"
check "test-rdma-fake.sh skips: built with --disable-rdma, no fake libibverbs" \
	grep -q 'SKIP.*built with --disable-rdma: no fake libibverbs' "$T/b/tests/hw/test-rdma-fake.log"
done_testing
