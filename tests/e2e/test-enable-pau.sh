#!/bin/bash
# `rdmalimits enable` with the real pam-auth-update (Debian), against real su sessions, in the
# sandbox of tests/e2e/sandbox.sh (private mount, PID and network namespaces; copies of
# /etc/pam.d and /etc/security, and here of /usr/share/pam-configs and /var/lib/pam, bound
# over the real ones).  enable used to say what a real su contradicted:
#   1. pam-auth-update leaves common-session alone when an admin changed its managed block
#      ("Local modifications to /etc/pam.d/common-*, not updating"), and exits 0: enable said
#      su, su-l, sudo "not needed" (the shared stack gets the module) and exited 0; su got no
#      policy value.
#   2. a su stack that ends after its pam_limits (sufficient pam_permit): enable said "not
#      needed" and exited 0 without walking the stack the shared one joins; su never runs the
#      module.  Now refused before anything is written, with --check too.
#   3. a clean stack: enable exits 0 and su gets the policy's value (the success is true).
# Root only.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

SU=/bin/su

if ! sandbox_inside; then
	e2e_su_outer "enable with the real pam-auth-update"
	command -v pam-auth-update >/dev/null || need+=(-m "pam-auth-update (Debian: libpam-runtime)")
	[ -d /usr/share/pam-configs ] && [ -d /var/lib/pam ] || need+=(-m "/usr/share/pam-configs and /var/lib/pam")
	grep -q 'pam-auth-update' /etc/pam.d/common-session 2>/dev/null || need+=(-m "a pam-auth-update common-session")
	sandbox_require "${need[@]}"
	sandbox_outer "/etc/pam.d, /etc/security, PAM module directory, pam-configs, /var/lib/pam" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
e2e_inner_by_name
# pam-auth-update's own state, private: its profiles (ours added) and what it has seen
mkdir -p "$SANDBOX_DIR/pam-configs" "$SANDBOX_DIR/varpam"
cp -a /usr/share/pam-configs/. "$SANDBOX_DIR/pam-configs/" && cp -a /var/lib/pam/. "$SANDBOX_DIR/varpam/" &&
	cp "$top_srcdir/conf/pam-configs/rdmalimit" "$SANDBOX_DIR/pam-configs/" &&
	mount --bind "$SANDBOX_DIR/pam-configs" /usr/share/pam-configs &&
	mount --bind "$SANDBOX_DIR/varpam" /var/lib/pam || { echo "Bail out! pam-auth-update's state"; exit 1; }
H=$(($(ulimit -H -l) * 1024))
[ "$H" -ge $((8 * 1024 * 1024)) ] || { echo "Bail out! the hard memlock limit here is $H bytes; 8 MiB needed"; exit 1; }
HK=$((H / 1024))
ulimit -S -l 1024
sandbox_user alice rdma_users || { echo "Bail out! sandbox_user"; exit 1; }
sandbox_policy <<'EOF'
version = 1;
rules = ( { group = "rdma_users"; memlock = "4M"; } );
EOF
printf '* soft memlock 1024\n* hard memlock %s\n' "$HK" >/etc/security/limits.d/50-e2e.conf
# the stacks and pam-auth-update's record as they are now, for each case to start from
mkdir -p "$SANDBOX_DIR/pamd-clean" "$SANDBOX_DIR/varpam-clean" &&
	cp -a /etc/pam.d/. "$SANDBOX_DIR/pamd-clean/" && cp -a /var/lib/pam/. "$SANDBOX_DIR/varpam-clean/" ||
	{ echo "Bail out! a copy of the stacks"; exit 1; }
clean() {
	rm -rf /etc/pam.d/* /var/lib/pam/* &&
		cp -a "$SANDBOX_DIR/pamd-clean/." /etc/pam.d/ && cp -a "$SANDBOX_DIR/varpam-clean/." /var/lib/pam/
}
real() { su -s /bin/sh alice -c 'echo $(ulimit -l) $(ulimit -Hl)' 2>"$tmp/su.err" </dev/null || echo fails; }

# --- 1. an admin's change in pam-auth-update's block: it writes nothing, exits 0
awk '/^# end of pam-auth-update config/ { print "session\toptional\t\t\tpam_umask.so" } { print }' \
	/etc/pam.d/common-session >"$tmp/cs" && cat "$tmp/cs" >/etc/pam.d/common-session
"$RDMALIMITS" enable >"$tmp/out" 2>&1
rc=$?
check "local changes in common-session: enable exits 1 ($rc)" test "$rc" = 1
check "... it says pam-auth-update added nothing, and what to do" \
	grep -q "pam-auth-update --enable rdmalimit exited 0, but /etc/pam.d/common-session has no pam_rdmalimit line" "$tmp/out"
check "... su is not said to be covered" grep -q "/etc/pam.d/su: NOT covered" "$tmp/out"
check "... and indeed the real su gets pam_limits' values, not the policy's 4 MiB" test "$(real)" = "1024 $HK"

# --- 2. a su stack that ends after its pam_limits
clean
sed -i 's/^session[[:space:]]*required[[:space:]]*pam_limits.so$/&\nsession sufficient pam_permit.so/' /etc/pam.d/su
"$RDMALIMITS" enable --check >"$tmp/out" 2>&1
rc=$?
check "su ends after pam_limits: enable --check refuses (exit $rc), though it runs no tool" \
	sh -c "test $rc = 1 && grep -q \"/etc/pam.d/su:[0-9]* 'sufficient pam_permit.so' ends the stack\" '$tmp/out'"
"$RDMALIMITS" enable >"$tmp/out" 2>&1
rc=$?
check "... and enable (exit $rc)" test "$rc" = 1
check "... naming the line that ends the stack" grep -q "/etc/pam.d/su:[0-9]* 'sufficient pam_permit.so' ends the stack" "$tmp/out"
check "... before anything is written: pam-auth-update did not run" sh -c "! grep -q pam_rdmalimit /etc/pam.d/common-session"
check "... as the real su shows: pam_limits' values" test "$(real)" = "1024 $HK"

# --- 3. a clean stack: the success is true
clean
"$RDMALIMITS" enable >"$tmp/out" 2>&1
rc=$?
check "a clean stack: enable exits 0 ($rc)" test "$rc" = 0
got=$(real)
check "... and the real su gets the policy's 4 MiB soft ($got; the hard limit is not lowered)" test "$got" = "4096 $HK"
exit 0
