#!/bin/bash
# rdmalimits doctor against throwaway root trees: every check, passing and failing; --pid
# on a live process of this test; a smoke run on the real system.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=doctor.sh
. "$(dirname "$0")/doctor.sh"
no_plan

T=$(mktemp -d)
SLEEPER=
cleanup() {
	[ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
R=$T/root
OUT=$T/out
doc() { "$RDMALIMITS" --root "$R" --flavour debian doctor "$@"; }
is_root() { [ "$(id -u)" = 0 ]; }
# As another user the tree's files are not root's, which check (and doctor) report as
# errors: then only the failing exit status can be asserted.
rc_is() {
	if [ "$1" = 0 ] && ! is_root; then
		skip "$2: the tree is not owned by root"
	else
		check "$2" test "$rc" -eq "$1"
	fi
}

ME=$(id -un)
MYUID=$(id -u)

# A healthy tree: pam_limits then pam_rdmalimit in the common session files, sshd with
# UsePAM yes, systemd defaults above the configured memlock, module files where libpam looks.
mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/etc/ssh/sshd_config.d" \
		"$R/etc/systemd/system" "$R/lib/x86_64-linux-gnu/security" "$R/proc/1"
	cat > "$R/etc/passwd" <<P
root:x:0:0:root:/root:/bin/sh
alice:x:1001:1001::/home/alice:/bin/sh
svc:x:1100:1100::/srv:/usr/sbin/nologin
P
	[ "$MYUID" != 0 ] && echo "$ME:x:$MYUID:$MYUID::/:/bin/sh" >> "$R/etc/passwd"
	cat > "$R/etc/group" <<'G'
root:x:0:
alice:x:1001:
svc:x:1100:
rdma_users:x:2000:alice
G
	cat > "$R/etc/security/limits.conf" <<'L'
# /etc/security/limits.conf
*               soft    memlock         8192
*               hard    memlock         8192
L
	cat > "$R/etc/security/limits.d/90-rdmalimits.conf" <<'L'
@rdma_users	soft	memlock	1048576
@rdma_users	hard	memlock	1048576
L
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         8388608              8388608              bytes     \n' > "$R/proc/1/limits"
	# every module the stacks name (libpam cannot load one that is missing: the model knows)
	for m in pam_permit pam_unix pam_deny pam_limits pam_rdmalimit pam_loginuid pam_env; do
		: > "$R/lib/x86_64-linux-gnu/security/$m.so"
	done
	printf 'auth required pam_unix.so\n' > "$R/etc/pam.d/common-auth"
	for f in common-session common-session-noninteractive; do
		cat > "$R/etc/pam.d/$f" <<'S'
session	[default=1]			pam_permit.so
session	requisite			pam_deny.so
session	required			pam_permit.so
session	required	pam_unix.so
session	required	pam_limits.so
session	optional	pam_rdmalimit.so
S
	done
	printf '@include common-auth\nsession required pam_loginuid.so\n@include common-session\n' > "$R/etc/pam.d/sshd"
	printf '@include common-session\n' > "$R/etc/pam.d/login"
	printf 'session required pam_env.so\nsession include common-session\n' > "$R/etc/pam.d/su"
	printf '@include common-session-noninteractive\n' > "$R/etc/pam.d/cron"
	printf 'session substack common-session-noninteractive\n' > "$R/etc/pam.d/systemd-user"
	printf 'Include /etc/ssh/sshd_config.d/*.conf\nPort 22\nUsePAM yes\n' > "$R/etc/ssh/sshd_config"
	printf '[Manager]\nDefaultLimitMEMLOCK=infinity\n' > "$R/etc/systemd/system.conf"
}

# --- a healthy tree: every check passes, exit 0
mkroot
run
rc_is 0 "healthy: exit 0"
# as another user, drop what the ownership findings change
if ! is_root; then
	sed -i '/^configuration files$/q' "$OUT"
	printf '  INFO the largest memlock configured: soft 1 GiB (etc/security/limits.d/90-rdmalimits.conf:1); hard 1 GiB (etc/security/limits.d/90-rdmalimits.conf:2)\n  INFO overridden for alice (soft from etc/security/limits.d/90-rdmalimits.conf:1); takes effect for svc (etc/security/limits.conf:2)\n  INFO overridden for alice (hard from etc/security/limits.d/90-rdmalimits.conf:2); takes effect for svc (etc/security/limits.conf:3)\n  OK   limits.conf and limits.d: no problems (2 files read) (etc/security/limits.conf)\n  INFO policy: does not exist: pam_rdmalimit leaves memlock unchanged (etc/security/rdmalimit.conf)\n\nOK: 0 errors, 0 warnings, 4 info, 14 ok\n' >> "$OUT"
fi
same "healthy: the report" "$OUT" <<'E'
ssh login
  OK   sshd: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session:5)
  OK   sshd: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session:6)
  OK   sshd: UsePAM yes (etc/ssh/sshd_config:3)

console login
  OK   login: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session:5)
  OK   login: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session:6)

su/sudo
  OK   su: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session:5)
  OK   su: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session:6)

cron
  OK   cron: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session-noninteractive:5)
  OK   cron: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session-noninteractive:6)

systemd services
  OK   systemd-user: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session-noninteractive:5)
  OK   systemd-user: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session-noninteractive:6)
  OK   services without LimitMEMLOCK= get memlock unlimited (DefaultLimitMEMLOCK=infinity) (etc/systemd/system.conf:2)

containers
  OK   not inside a container (no .dockerenv, run/.containerenv or run/systemd/container)

configuration files
  INFO the largest memlock configured: soft 1 GiB (etc/security/limits.d/90-rdmalimits.conf:1); hard 1 GiB (etc/security/limits.d/90-rdmalimits.conf:2)
  INFO overridden for alice (soft from etc/security/limits.d/90-rdmalimits.conf:1); takes effect for svc (etc/security/limits.conf:2)
  INFO overridden for alice (hard from etc/security/limits.d/90-rdmalimits.conf:2); takes effect for svc (etc/security/limits.conf:3)
  OK   limits.conf and limits.d: no problems (2 files read) (etc/security/limits.conf)
  INFO policy: does not exist: pam_rdmalimit leaves memlock unchanged (etc/security/rdmalimit.conf)

OK: 0 errors, 0 warnings, 4 info, 14 ok
E
check "healthy: nothing on stderr" test ! -s "$T/err"
sed "s/^/# stderr: /" "$T/err"

run --json
rc_is 0 "--json: exit 0"
if command -v python3 > /dev/null; then
	check "--json: valid, with severity/where/message/fix on every finding" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert f and all(set(x) >= {"severity", "where", "message", "fix", "ok"} for x in f)
assert all(x["severity"] in ("error", "warning", "info") for x in f)
assert all(x["severity"] == "info" for x in f if x["ok"])
assert d["warnings"] == 0
' "$OUT"
else
	skip "--json: no python3 to parse it"
fi
check "--json: OKs carry ok true" grep -qF '"message": "sshd: UsePAM yes", "fix": null, "group": "ssh login", "ok": true' "$OUT"

run --quiet
if is_root; then
	check "--quiet on a healthy tree prints nothing" test ! -s "$OUT"
else
	check "--quiet prints only FAIL lines" test -z "$(grep -v '^configuration files$\|^  FAIL\|^       fix:' "$OUT")"
fi

# --- RHEL's cron (cronie): its PAM service is crond, examined with cron's
mkroot
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/crond"
run
check "crond (RHEL): its stack is examined" line "OK   crond: pam_limits runs in the session stack as 'required' (etc/pam.d/crond:1)"

# --- a PAM stack without pam_limits (nor pam_rdmalimit)
mkroot
sed -i '/pam_limits\|pam_rdmalimit/d' "$R/etc/pam.d/common-session-noninteractive"
run
rc_is 1 "no pam_limits: exit 1"
check "no pam_limits: cron FAIL" line "FAIL cron: neither pam_limits nor pam_rdmalimit is in the session stack" "(etc/pam.d/cron)"
check "no pam_limits: systemd-user FAIL" line "FAIL systemd-user: neither pam_limits"
check "no pam_limits: the fix names the file" has "fix: add 'session required pam_limits.so' to etc/pam.d/cron"
check "no pam_limits: sshd still OK" line "OK   sshd: pam_limits runs"

# --service: one more stack, with the console logins
mkroot
printf 'session required pam_unix.so\n' > "$R/etc/pam.d/gdm-password"
run --service gdm-password
check "--service: its stack is checked" line "FAIL gdm-password: neither pam_limits nor pam_rdmalimit" "(etc/pam.d/gdm-password)"
run --service nosuch
check "--service: a missing service is an error" line "FAIL nosuch: no such PAM service (etc/pam.d/nosuch)"
# ... unless pam.d/other has session lines: libpam runs other's stack for it
printf '@include common-session\n' > "$R/etc/pam.d/other"
run --service nosuch
check "--service without a file of its own: other's stack, said" line "INFO nosuch: no file of its own: libpam runs pam.d/other's session stack (etc/pam.d/nosuch)"
check "... and checked" line "OK   nosuch: pam_limits runs in the session stack as 'required' (etc/pam.d/common-session:5)"
rm "$R/etc/pam.d/other"
# a line that ends the stack before pam_limits (requisite pam_deny): it never runs, and the
# session fails (not "OK pam_limits runs")
printf 'session requisite pam_deny.so\nsession required pam_limits.so\n' > "$R/etc/pam.d/denied"
run --service denied
check "requisite pam_deny before pam_limits: the stack fails, said" line "FAIL denied: the session stack fails (pam_open_session() returns PAM_SESSION_ERR): no denied session opens (etc/pam.d/denied:1)"
check "... pam_limits does not run, said" line "FAIL denied: pam_limits (etc/pam.d/denied:2) does not run: 'requisite pam_deny.so' ends the session stack before it, which fails (etc/pam.d/denied:1)"
check "... and never OK" eval '! grep -q "OK   denied: pam_limits runs" "$T/out"'
# done inside a substack ends only the substack: the module after it runs
printf 'session required pam_limits.so\nsession [success=done default=ignore] pam_permit.so\nsession required pam_deny.so\n' > "$R/etc/pam.d/sub-done"
printf 'session substack sub-done\nsession optional pam_rdmalimit.so\n' > "$R/etc/pam.d/subsvc"
run --service subsvc
check "done inside a substack: no finding that it ends the stack" eval '! grep -q "ends the session stack" "$T/out"'
check "... the module runs after pam_limits" line "OK   subsvc: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/subsvc:2)"
rm "$R/etc/pam.d/denied" "$R/etc/pam.d/sub-done" "$R/etc/pam.d/subsvc"
run --service sshd
check "--service of a service checked anyway: once" test "$(grep -c 'sshd: pam_limits runs' "$OUT")" = 1
# an @include of a file that cannot be read: pam_start() fails, no session opens; nothing else
# of that stack is said (measured with Debian 12's libpam)
printf 'session required pam_limits.so\n@include nothere\nsession optional pam_rdmalimit.so\n' > "$R/etc/pam.d/gdm-password"
run --service gdm-password
check "@include of a missing file: the session never opens, said with the line" line \
	"FAIL gdm-password: '@include nothere' names a file that cannot be read: libpam's pam_start() fails and no gdm-password session opens" \
	"(etc/pam.d/gdm-password:2)"
check "... and nothing else of that stack is OK" test "$(grep -c 'OK   gdm-password' "$OUT")" = 0

# pam_rdmalimit alone: limits.conf does not apply there
mkroot
sed -i '/pam_limits/d' "$R/etc/pam.d/common-session-noninteractive"
run
check "pam_rdmalimit without pam_limits: WARN" line "WARN cron: pam_limits is not in the session stack"

# --- pam_rdmalimit before pam_limits
mkroot
printf 'session required pam_unix.so\nsession optional pam_rdmalimit.so\nsession required pam_limits.so\n' > "$R/etc/pam.d/common-session"
run
rc_is 1 "module before pam_limits: exit 1"
check "module before pam_limits: FAIL with both lines" line "FAIL sshd: pam_rdmalimit runs before pam_limits (etc/pam.d/common-session:3)" "(etc/pam.d/common-session:2)"
check "module before pam_limits: fix" has "fix: move the pam_rdmalimit line (etc/pam.d/common-session:2) after pam_limits (etc/pam.d/common-session:3)"
# ... in the service's own file: enable moves the line only when it added it (its mark)
mkroot
printf 'session optional pam_rdmalimit.so # rdmalimits enable\nsession required pam_limits.so\n' > "$R/etc/pam.d/su"
run
check "module before pam_limits in su, a line enable added: fix is enable" has "fix: rdmalimits enable --service su (puts pam_rdmalimit after etc/pam.d/su:2)"
"$RDMALIMITS" --root "$R" enable --service su > "$T/enable.out" 2>&1
check "... and enable does it (exit 0)" test $? -eq 0
printf 'session optional pam_rdmalimit.so\nsession required pam_limits.so\n' > "$R/etc/pam.d/su"
run
check "... a line added by hand: the fix is to move it by hand" has "fix: move the pam_rdmalimit line (etc/pam.d/su:1) after pam_limits (etc/pam.d/su:2) by hand, or remove it and run rdmalimits enable --service su (which moves only a line it added)"
"$RDMALIMITS" --root "$R" enable --service su > "$T/enable.out" 2>&1
check "... which enable indeed refuses" test $? -ne 0

# --- a [success=2 default=ignore] jump over pam_limits
mkroot
cat > "$R/etc/pam.d/common-session" <<'S'
session	[success=2 default=ignore]	pam_unix.so
session	optional	pam_permit.so
session	required	pam_limits.so
session	optional	pam_rdmalimit.so
S
run
rc_is 1 "jump over pam_limits: exit 1"
check "jump over pam_limits: FAIL at the jumping line" line "FAIL sshd: '[success=2 default=ignore] pam_unix.so' jumps over pam_limits (etc/pam.d/common-session:3) when it succeeds" "(etc/pam.d/common-session:1)"
check "jump over pam_limits: pam_rdmalimit (line 4) is not jumped over" hasnt "jumps over pam_rdmalimit"
check "jump over pam_limits: no OK for pam_limits" hasnt "OK   sshd: pam_limits runs"
# a control libpam cannot read (a misspelt value): every result of the line is a failure
mkroot
cat > "$R/etc/pam.d/common-session" <<'S'
session	[sucess=1 default=ignore]	pam_unix.so
session	required	pam_limits.so
session	optional	pam_rdmalimit.so
S
run
rc_is 1 "a misspelt control value: exit 1"
check "a misspelt control value: FAIL at its line, saying the session fails" line "FAIL sshd: libpam cannot read the control '[sucess=1 default=ignore]' of pam_unix.so: it treats every result of the line as a failure" "(etc/pam.d/common-session:1)"
# the Debian pattern [default=1] pam_permit + requisite pam_deny jumps over pam_deny only
mkroot
run
check "[default=1] over pam_deny alone: no jump finding" hasnt "jumps over"
# a condition module: a warning, not an error
mkroot
sed -i '1i session [success=5 default=ignore] pam_succeed_if.so user ingroup nolimits' "$R/etc/pam.d/common-session-noninteractive"
run
: > "$R/lib/x86_64-linux-gnu/security/pam_succeed_if.so"
run
check "pam_succeed_if jump: WARN" line "WARN cron: '[success=5 default=ignore] pam_succeed_if.so' jumps over pam_limits" "only sessions failing its condition"
rc_is 0 "pam_succeed_if jump: exit 0"
# ... a module libpam cannot load never succeeds (PAM_MODULE_UNKNOWN): its jump is never taken
rm "$R/lib/x86_64-linux-gnu/security/pam_succeed_if.so"
run
check "pam_succeed_if missing: its jump is never taken, nothing said of it" hasnt "jumps over pam_limits"
# sufficient ends the stack
mkroot
sed -i '1i session sufficient pam_unix.so' "$R/etc/pam.d/common-session"
run
check "sufficient before pam_limits: FAIL" line "FAIL sshd: 'sufficient pam_unix.so' ends the session stack when it succeeds, before pam_limits"
# libpam reads the four control words case-insensitively: "Sufficient" ends the stack too
mkroot
sed -i '1i session Sufficient pam_unix.so' "$R/etc/pam.d/common-session"
run
check "Sufficient (any case) before pam_limits: FAIL" line "FAIL sshd: 'Sufficient pam_unix.so' ends the session stack when it succeeds, before pam_limits"
# a jump on a value other than success, read by the session engine's grammar
mkroot
sed -i '1i session [success=ok user_unknown=5 default=ignore] pam_unix.so' "$R/etc/pam.d/common-session"
run
check "a jump on user_unknown over pam_limits: WARN" line "WARN sshd: '[success=ok user_unknown=5 default=ignore] pam_unix.so' jumps over pam_limits" "when it does not succeed"
# a bracket value is read with strncmp(): "SUCCESS=2" is not success (it never jumps on success)
mkroot
sed -i '1i session [SUCCESS=2 default=ignore] pam_unix.so' "$R/etc/pam.d/common-session"
run
check "[SUCCESS=2 ...]: no jump on success reported" hasnt "jumps over pam_limits (etc/pam.d/common-session:3) when it succeeds"

# --- Debian's sshd: common-session (with the module) comes before sshd's own pam_limits, and
# sshd's own pam_rdmalimit after it: the copy that runs last is named, not the first one
mkroot
printf '@include common-auth\nsession required pam_loginuid.so\n@include common-session\nsession required pam_limits.so\nsession optional pam_rdmalimit.so\n' > "$R/etc/pam.d/sshd"
run
check "two copies: OK names sshd's own pam_limits, the last that runs" \
	line "OK   sshd: pam_limits runs in the session stack as 'required'" "(etc/pam.d/sshd:4)"
check "two copies: OK names sshd's own pam_rdmalimit, the last that runs" \
	line "OK   sshd: pam_rdmalimit runs after pam_limits as 'optional'" "(etc/pam.d/sshd:5)"
check "two copies: common-session's copy is not claimed to run last" \
	hasnt "OK   sshd: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/common-session:6)"

# --- copies of the module reading policies of their own (conf=): the order for every user a
# policy has a rule for, as explain says it for each (lib/doctor/pam.c pam_order_check())
if is_root; then
	two_policies() {
		mkroot
		printf 'version = 1;\nrules = ( { group = "rdma_users"; memlock = "2M"; } );\n' > "$R/etc/security/rdmalimit.conf"
		printf '%s' "$1" > "$R/etc/security/rdmalimit-b.conf"
		chmod 644 "$R/etc/security/rdmalimit.conf" "$R/etc/security/rdmalimit-b.conf"
		printf '%s' "$2" > "$R/etc/pam.d/common-session"
	}
	order_of() {
		"$RDMALIMITS" --root "$R" --flavour debian --json explain "$1" --service sshd 2> /dev/null |
			python3 -c 'import json, sys; print((json.load(sys.stdin).get("policy") or {}).get("order"))'
	}
	# rdmalimit-b.conf's copy jumps over the second pam_limits only when it sets a value
	jumping='session	required	pam_limits.so
session	optional	pam_rdmalimit.so
session	[success=1 default=ignore]	pam_rdmalimit.so conf=/etc/security/rdmalimit-b.conf
session	required	pam_limits.so
session	required	pam_permit.so
'
	two_policies 'version = 1;
rules = ( { user = "svc"; memlock = "3M"; } );
' "$jumping"
	run
	check "copies deciding differently: WARN that the order depends on the user, with each kind of user" \
		line "WARN sshd: whether pam_rdmalimit runs after pam_limits depends on the user" \
		"for a user that /etc/security/rdmalimit.conf has a rule for and /etc/security/rdmalimit-b.conf none, pam_rdmalimit (etc/pam.d/common-session:3) runs before pam_limits (etc/pam.d/common-session:4)" \
		"for a user that /etc/security/rdmalimit-b.conf has a rule for and /etc/security/rdmalimit.conf none, it runs after" \
		"(etc/pam.d/common-session:3)"
	check "... neither a FAIL nor an OK for the order" \
		test "$(grep -c 'sshd: pam_rdmalimit runs' "$OUT")" = 0
	check "... explain: alice (rdma_users, the first policy's) before pam_limits" test "$(order_of alice)" = before-pam_limits
	check "... explain: svc (the second policy's) after pam_limits" test "$(order_of svc)" = after-pam_limits
	# the same stack with a second policy the module refuses: that copy ignores everyone, so
	# the second pam_limits always runs after it
	two_policies 'version = 1;
rules = ( { user = "svc"; memlock = "3M"; hard = "1M"; } );
' "$jumping"
	run
	check "a copy whose policy is refused: the order is before for everyone (FAIL)" \
		line "FAIL sshd: pam_rdmalimit runs before pam_limits (etc/pam.d/common-session:4)" "(etc/pam.d/common-session:3)"
	check "... and that copy is named: it leaves memlock unchanged for everyone" \
		line "WARN sshd: pam_rdmalimit reads /etc/security/rdmalimit-b.conf, and refuses it:" "hard 1M is below memlock 3M" \
		"this line leaves memlock unchanged for everyone (etc/pam.d/common-session:3)"
	check "... explain agrees: svc before pam_limits" test "$(order_of alice)" = before-pam_limits
	# strict, and no policy at that path: the copy fails the session where it is required
	two_policies 'version = 1;
' 'session	required	pam_limits.so
session	optional	pam_rdmalimit.so
session	required	pam_rdmalimit.so conf=/etc/security/nothere.conf strict
'
	run
	check "a strict copy without its policy: FAIL, the session fails" \
		line "FAIL sshd: pam_rdmalimit reads /etc/security/nothere.conf, and it does not exist; the line says strict, so it fails the sshd session where its control 'required' makes a failure count" \
		"(etc/pam.d/common-session:3)"
	check "... explain: the session fails" test "$("$RDMALIMITS" --root "$R" --flavour debian --json explain alice --service sshd 2> /dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["session"])')" = fails
	# a pam_limits line whose conf= file is missing fails every session: sufficient then
	# does not end the stack, and the module after it runs after the last pam_limits
	two_policies 'version = 1;
' 'session	required	pam_limits.so
session	sufficient	pam_limits.so conf=/etc/security/nothere.conf
session	optional	pam_rdmalimit.so
'
	run
	check "pam_limits conf= of a missing file: WARN, it fails every session" \
		line "WARN sshd: pam_limits reads etc/security/nothere.conf (conf=), which it cannot read (No such file or directory): it fails every sshd session where it runs" \
		"(etc/pam.d/common-session:2)"
	check "... and the module after it runs: OK" line "OK   sshd: pam_rdmalimit runs after pam_limits as 'optional'" "(etc/pam.d/common-session:3)"
fi

# --- a tree of configuration only (an image's /etc, no PAM modules): one finding, not a FAIL per stack
mkroot
rm -r "$R/lib"
run
check "no module directory in the tree: one INFO" \
	test "$(grep -c "INFO the tree has no PAM module directory" "$OUT")" = 1
check "no module directory in the tree: no 'module file is missing' FAIL" hasnt "is missing"
rc_is 0 "no module directory in the tree: exit 0"

# --- -session with a missing module file
mkroot
sed -i 's/^session	optional	pam_rdmalimit.so/-session	optional	pam_rdmalimit.so/' "$R/etc/pam.d/common-session"
run
check "-session, module present: OK" line "OK   sshd: pam_rdmalimit runs after pam_limits"
rm "$R/lib/x86_64-linux-gnu/security/pam_rdmalimit.so"
run
rc_is 1 "-session, module missing: exit 1"
check "-session, module missing: FAIL" line "FAIL sshd: '-session optional pam_rdmalimit.so': the module file is missing, and the '-' makes PAM skip it" "(etc/pam.d/common-session:6)"
check "-session, module missing: fix" has "fix: install pam_rdmalimit.so into /lib/x86_64-linux-gnu/security"
check "missing module, no dash (cron's file): FAIL" line "FAIL cron: the module file pam_rdmalimit.so is missing"
# installed, but not where libpam loads bare names from
mkdir -p "$R/usr/lib/aarch64-linux-gnu/security"
: > "$R/usr/lib/aarch64-linux-gnu/security/pam_rdmalimit.so"
run
check "module in another directory: FAIL" line "FAIL sshd: pam_rdmalimit.so is installed as /usr/lib/aarch64-linux-gnu/security/pam_rdmalimit.so, but libpam loads bare module names from /lib/x86_64-linux-gnu/security only"
# a full path works
sed -i 's|pam_rdmalimit.so|/usr/lib/aarch64-linux-gnu/security/pam_rdmalimit.so|' "$R/etc/pam.d/common-session"
run
check "module by full path: OK" line "OK   sshd: pam_rdmalimit runs after pam_limits"

# --- UsePAM no in a sshd_config.d file: first value wins over the main file's yes
mkroot
printf '# site settings\nUsePAM no\n' > "$R/etc/ssh/sshd_config.d/10-nopam.conf"
printf 'UsePAM yes\n' > "$R/etc/ssh/sshd_config.d/20-pam.conf"
run
rc_is 1 "UsePAM no: exit 1"
check "UsePAM no: FAIL at the drop-in line" line "FAIL sshd: UsePAM no: sshd opens no PAM session" "(etc/ssh/sshd_config.d/10-nopam.conf:2)"
check "UsePAM no: the later yes is reported as ignored" line "INFO sshd: this 'UsePAM yes' is ignored: the first value (etc/ssh/sshd_config.d/10-nopam.conf:2) wins" "(etc/ssh/sshd_config.d/20-pam.conf:1)"
check "UsePAM no: fix" has "fix: set 'UsePAM yes' at etc/ssh/sshd_config.d/10-nopam.conf:2"
# "UsePAM=no", case-insensitive keyword, relative Include
mkroot
printf 'Include sshd_config.d/*.conf\nUsePAM yes\n' > "$R/etc/ssh/sshd_config"
printf 'usepam=no\n' > "$R/etc/ssh/sshd_config.d/x.conf"
run
check "usepam=no via a relative Include: FAIL" line "FAIL sshd: UsePAM no" "(etc/ssh/sshd_config.d/x.conf:1)"
# a file not matching the Include pattern is not read
mkroot
printf 'UsePAM no\n' > "$R/etc/ssh/sshd_config.d/x.conf.disabled"
run
check "a file outside the Include pattern is not read" line "OK   sshd: UsePAM yes (etc/ssh/sshd_config:3)"
# not set at all: OpenSSH's default is no
mkroot
printf 'Port 22\n' > "$R/etc/ssh/sshd_config"
run
check "UsePAM unset: FAIL" line "FAIL sshd: UsePAM is not set: OpenSSH's built-in default is no"
# a value sshd does not take: it refuses the configuration (it used to be read as no); explain
# (the same reader) says every ssh login fails
mkroot
printf 'Port 22\nUsePAM maybe\n' > "$R/etc/ssh/sshd_config"
run
check "UsePAM maybe: FAIL, sshd refuses it" line "FAIL sshd: UsePAM takes yes or no: sshd refuses the configuration and does not start" "(etc/ssh/sshd_config:2)"
"$RDMALIMITS" --json explain root --root "$R" >"$T/x-maybe.json" 2>/dev/null
check "UsePAM maybe: explain says the ssh session fails, sshd refusing its configuration" \
	grep -qF '"session": "fails", "cause": "sshd refuses its configuration (etc/ssh/sshd_config:2: UsePAM takes yes or no)' "$T/x-maybe.json"

# --- DefaultLimitMEMLOCK: a system.conf.d drop-in overrides system.conf (last wins)
mkroot
mkdir -p "$R/etc/systemd/system.conf.d" "$R/usr/lib/systemd/system.conf.d"
printf '[Manager]\nDefaultLimitMEMLOCK=16M\n' > "$R/usr/lib/systemd/system.conf.d/40-vendor.conf"
printf '[Manager]\nDefaultLimitMEMLOCK=64M\n' > "$R/etc/systemd/system.conf.d/50-memlock.conf"
run
check "DefaultLimitMEMLOCK drop-in: the effective value and where" line "WARN services without LimitMEMLOCK= get memlock 64 MiB (DefaultLimitMEMLOCK=64M, the last of several assignments), below the soft 1 GiB" "(etc/systemd/system.conf.d/50-memlock.conf:2)"
check "DefaultLimitMEMLOCK drop-in: overridden ones named" line "INFO DefaultLimitMEMLOCK=16M here is overridden by etc/systemd/system.conf.d/50-memlock.conf:2" "(usr/lib/systemd/system.conf.d/40-vendor.conf:2)"
check "DefaultLimitMEMLOCK: never read limits.conf" has "systemd services never read limits.conf"
rc_is 0 "DefaultLimitMEMLOCK below target: exit 0 (a warning)"
printf '[Manager]\nDefaultLimitMEMLOCK=2G:infinity\n' > "$R/etc/systemd/system.conf.d/60-more.conf"
run
check "DefaultLimitMEMLOCK SOFT:HARD" line "OK   services without LimitMEMLOCK= get memlock soft 2 GiB, hard unlimited"
printf '[Manager]\nDefaultLimitMEMLOCK=lots\n' > "$R/etc/systemd/system.conf.d/70-bad.conf"
run
check "DefaultLimitMEMLOCK unparsable: FAIL" line "FAIL DefaultLimitMEMLOCK=lots cannot be parsed" "(etc/systemd/system.conf.d/70-bad.conf:2)"
# systemd ignores a value it cannot parse, and an empty one ("Failed to parse resource value,
# ignoring"): the one before stays, nothing resets to the default
check "DefaultLimitMEMLOCK unparsable: the earlier value stays" line "OK   services without LimitMEMLOCK= get memlock soft 2 GiB, hard unlimited (DefaultLimitMEMLOCK=2G:infinity" "(etc/systemd/system.conf.d/60-more.conf:2)"
check "DefaultLimitMEMLOCK unparsable: says what stays" line "FAIL DefaultLimitMEMLOCK=lots cannot be parsed: systemd ignores it; DefaultLimitMEMLOCK=2G:infinity of etc/systemd/system.conf.d/60-more.conf:2 stays in effect"
printf '[Manager]\nDefaultLimitMEMLOCK=\n' > "$R/etc/systemd/system.conf.d/80-empty.conf"
run
check "DefaultLimitMEMLOCK= empty: no reset, the earlier value stays" line "OK   services without LimitMEMLOCK= get memlock soft 2 GiB, hard unlimited" "(etc/systemd/system.conf.d/60-more.conf:2)"
check "DefaultLimitMEMLOCK= empty: a warning that it is ignored" line "WARN DefaultLimitMEMLOCK= is empty: systemd ignores it" "it does not reset the limit" "(etc/systemd/system.conf.d/80-empty.conf:2)"
check "DefaultLimitMEMLOCK= empty: never taken for unset" hasnt "DefaultLimitMEMLOCK is not set"
# not set anywhere
mkroot
printf '[Manager]\n#DefaultLimitMEMLOCK=\n' > "$R/etc/systemd/system.conf"
run
check "DefaultLimitMEMLOCK unset: systemd's 8 MiB, below target" line "WARN DefaultLimitMEMLOCK is not set: services without LimitMEMLOCK= get systemd's default of 8 MiB, below the soft 1 GiB"
# user.conf
printf '[Manager]\nDefaultLimitMEMLOCK=1G\n' > "$R/etc/systemd/user.conf"
run
check "user.conf DefaultLimitMEMLOCK reported" line "INFO user services (systemd --user) without LimitMEMLOCK= get memlock 1 GiB" "(etc/systemd/user.conf:2)"

# --- --unit: LimitMEMLOCK=64M with User=svc, whose limits entry gives 1 GiB
mkroot
printf 'svc\t-\tmemlock\t1048576\n' > "$R/etc/security/limits.d/50-svc.conf"
mkdir -p "$R/usr/lib/systemd/system"
printf '[Unit]\nDescription=RDMA app\n\n[Service]\nUser=svc\nLimitMEMLOCK=64M\nExecStart=/usr/bin/app\n' > "$R/usr/lib/systemd/system/app.service"
run --unit app
rc_is 1 "unit below target: exit 1"
check "unit: effective value and where" line "INFO app.service: memlock 64 MiB (LimitMEMLOCK=64M; usr/lib/systemd/system/app.service and 0 drop-ins read) (usr/lib/systemd/system/app.service:6)"
check "unit below target: FAIL" line "FAIL app.service: runs as svc with memlock soft 64 MiB, below the soft 1 GiB (etc/security/limits.d/50-svc.conf:1)"
check "unit below target: fix names rdmalimits apply --unit" has "fix: rdmalimits apply --unit app.service 1G --reload, then systemctl restart app.service"
check "no fix says systemctl edit" hasnt "systemctl edit"
# a drop-in overrides it to infinity (later wins; /etc hides the same name in /usr/lib)
mkdir -p "$R/etc/systemd/system/app.service.d" "$R/usr/lib/systemd/system/app.service.d"
printf '[Service]\nLimitMEMLOCK=infinity\n' > "$R/etc/systemd/system/app.service.d/90-memlock.conf"
printf '[Service]\nLimitMEMLOCK=32M\n' > "$R/usr/lib/systemd/system/app.service.d/90-memlock.conf"
printf '[Service]\nLimitMEMLOCK=128M\n' > "$R/usr/lib/systemd/system/app.service.d/10-vendor.conf"
run --unit app.service
rc_is 0 "drop-in to infinity: exit 0"
check "drop-in to infinity: effective" line "INFO app.service: memlock unlimited (LimitMEMLOCK=infinity; usr/lib/systemd/system/app.service and 2 drop-ins read) (etc/systemd/system/app.service.d/90-memlock.conf:2)"
check "drop-in to infinity: the overridden value named" line "INFO app.service: LimitMEMLOCK=128M here is overridden by etc/systemd/system/app.service.d/90-memlock.conf:2" "(usr/lib/systemd/system/app.service.d/10-vendor.conf:2)"
check "drop-in to infinity: OK" line "OK   app.service: runs as svc with memlock unlimited, as much as the configuration gives svc"
check "drop-in hidden by /etc's of the same name is not read" hasnt "32M"
# an empty LimitMEMLOCK= and one systemd cannot parse are ignored: infinity stays
printf '[Service]\nLimitMEMLOCK=\n' > "$R/etc/systemd/system/app.service.d/95-empty.conf"
printf '[Service]\nLimitMEMLOCK=lots\n' > "$R/etc/systemd/system/app.service.d/96-bad.conf"
run --unit app.service
check "empty and bad LimitMEMLOCK= ignored: infinity stays" line "INFO app.service: memlock unlimited (LimitMEMLOCK=infinity; usr/lib/systemd/system/app.service and 4 drop-ins read) (etc/systemd/system/app.service.d/90-memlock.conf:2)"
check "empty LimitMEMLOCK=: said to be ignored, no reset" line "WARN LimitMEMLOCK= is empty: systemd ignores it" "LimitMEMLOCK=infinity of etc/systemd/system/app.service.d/90-memlock.conf:2 stays in effect" "(etc/systemd/system/app.service.d/95-empty.conf:2)"
check "empty and bad LimitMEMLOCK=: still OK" line "OK   app.service: runs as svc with memlock unlimited"
printf '[Service]\nLimitMEMLOCK=\n' > "$R/etc/systemd/system/app.service.d/zzz-empty.conf"
"$RDMALIMITS" --root "$R" apply --unit app 2G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit: a later drop-in with an empty LimitMEMLOCK= overrides nothing: exit 3 (would create)" test "$rc" -eq 3
rm "$R/etc/systemd/system/app.service.d/95-empty.conf" "$R/etc/systemd/system/app.service.d/96-bad.conf" \
	"$R/etc/systemd/system/app.service.d/zzz-empty.conf"
# no LimitMEMLOCK: DefaultLimitMEMLOCK applies
rm -r "$R/etc/systemd/system/app.service.d" "$R/usr/lib/systemd/system/app.service.d"
sed -i '/LimitMEMLOCK/d' "$R/usr/lib/systemd/system/app.service"
printf '[Manager]\nDefaultLimitMEMLOCK=256M\n' > "$R/etc/systemd/system.conf"
run --unit app
check "unit without LimitMEMLOCK: DefaultLimitMEMLOCK" line "INFO app.service: memlock 256 MiB (no LimitMEMLOCK=: DefaultLimitMEMLOCK of etc/systemd/system.conf:2"
check "unit without LimitMEMLOCK: FAIL below target" line "FAIL app.service: runs as svc with memlock soft 256 MiB"
# an instance falls back to its template; root and unknown units
printf '[Service]\nExecStart=/bin/true\n' > "$R/usr/lib/systemd/system/worker@.service"
run --unit worker@1.service
check "template unit, runs as root" line "INFO worker@1.service: runs as root" "(usr/lib/systemd/system/worker@.service)"
# systemd orders drop-in directories by unit directory first, then name: the template's in
# etc/ hides the instance's of the same file name in usr/lib/
mkdir -p "$R/etc/systemd/system/worker@.service.d" "$R/usr/lib/systemd/system/worker@1.service.d"
printf '[Service]\nLimitMEMLOCK=1G\n' > "$R/etc/systemd/system/worker@.service.d/50-m.conf"
printf '[Service]\nLimitMEMLOCK=32M\n' > "$R/usr/lib/systemd/system/worker@1.service.d/50-m.conf"
run --unit worker@1.service
check "instance: etc's template drop-in beats usr/lib's instance one of the same name" line "INFO worker@1.service: memlock 1 GiB (LimitMEMLOCK=1G; usr/lib/systemd/system/worker@.service and 1 drop-in read) (etc/systemd/system/worker@.service.d/50-m.conf:2)"
rm -r "$R/etc/systemd/system/worker@.service.d" "$R/usr/lib/systemd/system/worker@1.service.d"
# the instance's own unit file, in any directory, before the template's in a higher one
printf '[Service]\nLimitMEMLOCK=16M\n' > "$R/usr/lib/systemd/system/worker@2.service"
printf '[Service]\nLimitMEMLOCK=2G\n' > "$R/etc/systemd/system/worker@.service"
run --unit worker@2
check "instance: its own unit file in usr/lib before the template in etc" line "INFO worker@2.service: memlock 16 MiB (LimitMEMLOCK=16M; usr/lib/systemd/system/worker@2.service and 0 drop-ins read)"
rm "$R/etc/systemd/system/worker@.service" "$R/usr/lib/systemd/system/worker@2.service"
# an empty unit file masks the unit, as a link to /dev/null does
: > "$R/etc/systemd/system/empty.service"
run --unit empty
check "empty unit file: masked" line "WARN empty.service: masked: it does not start"
rm "$R/etc/systemd/system/empty.service"
# the drop-ins of the name's dash prefixes (foo-.service.d) and of its type (service.d), in
# every unit directory, all sorted by file name; a name in an earlier directory hides the
# same name in a later one
printf '[Service]\nUser=svc\nLimitMEMLOCK=64M\n' > "$R/usr/lib/systemd/system/rdma-app.service"
mkdir -p "$R/etc/systemd/system/rdma-.service.d" "$R/etc/systemd/system/service.d" "$R/usr/lib/systemd/system/service.d"
printf '[Service]\nLimitMEMLOCK=2G\n' > "$R/etc/systemd/system/rdma-.service.d/50-m.conf"
printf '[Service]\nLimitMEMLOCK=1G\n' > "$R/etc/systemd/system/service.d/10-all.conf"
printf '[Service]\nLimitMEMLOCK=16M\n' > "$R/usr/lib/systemd/system/service.d/50-m.conf"
run --unit rdma-app
check "prefix drop-in (rdma-.service.d) read; the type's service.d too" line "INFO rdma-app.service: memlock 2 GiB (LimitMEMLOCK=2G; usr/lib/systemd/system/rdma-app.service and 2 drop-ins read) (etc/systemd/system/rdma-.service.d/50-m.conf:2)"
check "prefix drop-in: the type's earlier one overridden" line "INFO rdma-app.service: LimitMEMLOCK=1G here is overridden by etc/systemd/system/rdma-.service.d/50-m.conf:2" "(etc/systemd/system/service.d/10-all.conf:2)"
check "service.d's 50-m.conf hidden by the prefix directory's in etc" hasnt "16M"
printf '[Service]\nLimitMEMLOCK=128M\n' > "$R/usr/lib/systemd/system/service.d/90-all.conf"
run --unit rdma-app
check "a later name in usr/lib's service.d wins" line "INFO rdma-app.service: memlock 128 MiB (LimitMEMLOCK=128M" "(usr/lib/systemd/system/service.d/90-all.conf:2)"
"$RDMALIMITS" --root "$R" apply --unit rdma-app 4G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit: service.d's 90-all.conf is applied before its drop-in: exit 3 (would create)" test "$rc" -eq 3
printf '[Service]\nLimitMEMLOCK=128M\n' > "$R/usr/lib/systemd/system/service.d/zzz-all.conf"
"$RDMALIMITS" --root "$R" apply --unit rdma-app 4G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit: a later service.d drop-in overrides it: exit 4" test "$rc" -eq 4
check "apply --unit: names the service.d drop-in" grep -qF "usr/lib/systemd/system/service.d/zzz-all.conf:2 sets LimitMEMLOCK=" "$T/apply.out"
rm -r "$R/etc/systemd/system/rdma-.service.d" "$R/etc/systemd/system/service.d" "$R/usr/lib/systemd/system/service.d" \
	"$R/usr/lib/systemd/system/rdma-app.service"
# an alias (Debian's ssh.service, Alias=sshd.service: etc/systemd/system/sshd.service links to
# it): systemd reads the drop-ins of every name, whichever is asked
printf '[Service]\nExecStart=/usr/sbin/sshd -D\n' > "$R/usr/lib/systemd/system/ssh.service"
ln -s /usr/lib/systemd/system/ssh.service "$R/etc/systemd/system/sshd.service"
mkdir -p "$R/etc/systemd/system/sshd.service.d"
printf '[Service]\nLimitMEMLOCK=3G\n' > "$R/etc/systemd/system/sshd.service.d/memlock.conf"
run --unit ssh
check "alias: ssh.service reads sshd.service.d" line "INFO ssh.service: memlock 3 GiB (LimitMEMLOCK=3G; usr/lib/systemd/system/ssh.service and 1 drop-in read) (etc/systemd/system/sshd.service.d/memlock.conf:2)"
run --unit sshd
check "alias: sshd.service (the link) is ssh.service, with its drop-ins" line "INFO sshd.service: memlock 3 GiB (LimitMEMLOCK=3G; usr/lib/systemd/system/ssh.service and 1 drop-in read)"
mkdir -p "$R/usr/lib/systemd/system/ssh.service.d"
printf '[Service]\nLimitMEMLOCK=64M\n' > "$R/usr/lib/systemd/system/ssh.service.d/zz-vendor.conf"
run --unit sshd
check "alias: the unit file's own name's drop-ins too" line "INFO sshd.service: memlock 64 MiB (LimitMEMLOCK=64M; usr/lib/systemd/system/ssh.service and 2 drop-ins read) (usr/lib/systemd/system/ssh.service.d/zz-vendor.conf:2)"
"$RDMALIMITS" --root "$R" --flavour debian --json explain alice > "$T/x-alias.json" 2>/dev/null
check "alias: explain's sshd limits from ssh.service with sshd.service.d and ssh.service.d" \
	grep -qF 'ssh.service (LimitMEMLOCK=64M), no running sshd asked' "$T/x-alias.json"
rm -r "$R/usr/lib/systemd/system/ssh.service.d"
"$RDMALIMITS" --root "$R" --flavour debian --json explain alice > "$T/x-alias.json" 2>/dev/null
check "alias: explain reads the alias's drop-in" grep -qF 'ssh.service (LimitMEMLOCK=3G), no running sshd asked' "$T/x-alias.json"
# apply --unit sshd writes sshd.service.d/zz-rdmalimits.conf; one of that name in ssh.service.d,
# which systemd reads first, hides it
mkdir -p "$R/etc/systemd/system/ssh.service.d"
printf "# rdmalimits: managed file; change it with 'rdmalimits apply --unit' and 'rdmalimits remove --unit'.\n[Service]\nLimitMEMLOCK=2G\n" \
	> "$R/etc/systemd/system/ssh.service.d/zz-rdmalimits.conf"
"$RDMALIMITS" --root "$R" apply --unit sshd 4G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit alias: a drop-in of the same name in the unit file's name's directory hides it: exit 4" test "$rc" -eq 4
check "apply --unit alias: names the file read instead" grep -qF "sshd.service.d/zz-rdmalimits.conf of sshd.service: etc/systemd/system/ssh.service.d/zz-rdmalimits.conf is read instead (systemd reads one file of a name: the one in the directory it reads first)" "$T/apply.out"
"$RDMALIMITS" --root "$R" apply --unit ssh 4G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit under the unit file's own name: exit 3 (would change)" test "$rc" -eq 3
rm -r "$R/etc/systemd/system/ssh.service.d"
# two aliases with a drop-in of the same name: systemd reads their directories in hash order,
# so which one it reads is not known: said, with the one assumed
ln -s ssh.service "$R/usr/lib/systemd/system/openssh.service"
mkdir -p "$R/etc/systemd/system/openssh.service.d"
printf '[Service]\nLimitMEMLOCK=2G\n' > "$R/etc/systemd/system/openssh.service.d/memlock.conf"
run --unit ssh
check "two aliases, one drop-in name: the assumption said" line "INFO ssh.service: etc/systemd/system/sshd.service.d/memlock.conf has the same name: systemd reads one of the two, and the directories of the unit's names openssh.service and sshd.service in no fixed order; assumed this one" "(etc/systemd/system/openssh.service.d/memlock.conf)"
check "two aliases, one drop-in name: the assumed one's value" line "INFO ssh.service: memlock 2 GiB (LimitMEMLOCK=2G; usr/lib/systemd/system/ssh.service and 1 drop-in read)"
rm "$R/etc/systemd/system/openssh.service.d/memlock.conf"
printf "# rdmalimits: managed file; change it with 'rdmalimits apply --unit' and 'rdmalimits remove --unit'.\n[Service]\nLimitMEMLOCK=2G\n" \
	> "$R/etc/systemd/system/openssh.service.d/zz-rdmalimits.conf"
"$RDMALIMITS" --root "$R" apply --unit sshd 4G --check > "$T/apply.out" 2>&1
rc=$?
check "apply --unit alias: another alias's drop-in of the same name may be read instead: exit 4" test "$rc" -eq 4
check "apply --unit alias: says why it is not known" grep -qF "etc/systemd/system/openssh.service.d/zz-rdmalimits.conf may be read instead (systemd reads one file of a name, and the directories of the unit's names openssh.service and sshd.service in no fixed order)" "$T/apply.out"
rm -r "$R/etc/systemd/system/sshd.service.d" "$R/etc/systemd/system/sshd.service" "$R/usr/lib/systemd/system/ssh.service" \
	"$R/etc/systemd/system/openssh.service.d" "$R/usr/lib/systemd/system/openssh.service"
# the rest of systemd's unit search path: a generator's unit (run/systemd/generator), and
# drop-ins of system.control, read before etc/systemd/system's of the same name
mkdir -p "$R/run/systemd/generator" "$R/etc/systemd/system.control/legacy.service.d" "$R/etc/systemd/system/legacy.service.d"
printf '[Service]\nLimitMEMLOCK=64M\n' > "$R/run/systemd/generator/legacy.service"
printf '[Service]\nLimitMEMLOCK=1G\n' > "$R/etc/systemd/system.control/legacy.service.d/50-m.conf"
printf '[Service]\nLimitMEMLOCK=2G\n' > "$R/etc/systemd/system/legacy.service.d/50-m.conf"
run --unit legacy
check "a generator's unit, system.control's drop-in first" line "INFO legacy.service: memlock 1 GiB (LimitMEMLOCK=1G; run/systemd/generator/legacy.service and 1 drop-in read) (etc/systemd/system.control/legacy.service.d/50-m.conf:2)"
rm -r "$R/run/systemd/generator" "$R/etc/systemd/system.control" "$R/etc/systemd/system/legacy.service.d"
run --unit nosuch
check "unknown unit: FAIL" line "FAIL nosuch.service: no unit file"
rc_is 1 "unknown unit: exit 1"
printf '[Service]\nUser=ghost\nLimitMEMLOCK=64M\n' > "$R/etc/systemd/system/ghost.service"
run --unit ghost
check "unit with an unknown user: WARN" line "WARN ghost.service: User=ghost does not exist in etc/passwd"
# sizes as systemd's parse_size() reads them: a fraction, a blank before the suffix, numbers added
printf '[Service]\nLimitMEMLOCK=1.5G:1G 512M\n' > "$R/etc/systemd/system/frac.service"
run --unit frac
check "LimitMEMLOCK=1.5G:1G 512M: read as systemd reads it" line "INFO frac.service: memlock 1536 MiB (LimitMEMLOCK=1.5G:1G 512M;"
check "LimitMEMLOCK=1.5G:1G 512M: not called unparsable" hasnt "cannot be parsed"
rm "$R/etc/systemd/system/frac.service"

# --- a unit whose user no configuration names: compared with `auto` for the hardware here
# (the policy's hardware section, or the defaults), the number and its arithmetic named.
# auto_of TREE: the `auto` value probe computes for the tree's policy (0: none)
auto_of() {
	"$RDMALIMITS" --root "$1" probe --json 2> /dev/null | python3 -c '
import json, sys
a = json.load(sys.stdin).get("auto")
print(a["value"] if a else 0)'
}
# fmt BYTES: "80 MiB" and "80M", as doctor writes them
fmt() {
	python3 -c '
import sys
v = int(sys.argv[1])
for u, s in ((60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
    if v and v % (1 << u) == 0:
        print("%d %s %d%s" % (v >> u, s, v >> u, s[0])); break
else:
    print("%d B %dB" % (v, v))' "$1"
}
spdk_tree() {
	mkroot
	echo 'spdk:x:1200:1200::/:/usr/sbin/nologin' >> "$R/etc/passwd"
	echo 'spdk:x:1200:' >> "$R/etc/group"
	: > "$R/etc/security/limits.conf"   # no '*' entry either: nothing names spdk
	printf '[Manager]\n' > "$R/etc/systemd/system.conf"
	printf '[Unit]\nDescription=SPDK target\n\n[Service]\nUser=spdk\nExecStart=/usr/bin/spdk_tgt\n' > "$R/etc/systemd/system/spdk.service"
}
if is_root && command -v python3 > /dev/null; then
	# the defaults: what a policy without a hardware group computes here
	spdk_tree
	printf 'version = 1;\n' > "$R/etc/security/rdmalimit.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf"
	want=$(auto_of "$R")
	rm "$R/etc/security/rdmalimit.conf"
	run --unit spdk.service
	check "unit-auto: the unit's own value first" line "INFO spdk.service: memlock 8 MiB (no LimitMEMLOCK= or DefaultLimitMEMLOCK=: systemd's default"
	if [ "$want" -gt 8388608 ]; then
		read -r n u arg <<< "$(fmt "$want")"
		check "unit-auto, defaults: WARN below the host's auto ($n $u)" line "WARN spdk.service: runs as spdk with memlock 8 MiB, below the $n $u the hardware needs (\`auto\` of the default hardware values (no policy file); hardware of the host running doctor, not the tree (probed live: run/rdmalimit/hw.cache: no cache): base 64 MiB + " "no limits entry or policy rule names spdk" "(etc/systemd/system/spdk.service)"
		check "unit-auto, defaults: fix names rdmalimits apply --unit" has "fix: rdmalimits apply --unit spdk.service $arg --reload, then systemctl restart spdk.service"
		check "unit-auto: exit 0 (a warning)" test "$rc" -eq 0
	else
		check "unit-auto, defaults, no hardware here: INFO, nothing to compare" line "INFO spdk.service: runs as spdk; no limits entry or policy rule gives spdk a memlock, and \`auto\` of the default hardware values (no policy file) finds no RDMA port or XDP queue"
	fi
	run --json --unit spdk.service
	if [ "$want" -gt 8388608 ]; then
		check "unit-auto: --json id unit-below-auto" grep -qF '"severity": "warning", "id": "unit-below-auto"' "$OUT"
	else
		check "unit-auto: --json id unit-auto-unknown" grep -qF '"id": "unit-auto-unknown"' "$OUT"
	fi
	# the policy's hardware section, with a fallback so that every host gets a value
	spdk_tree
	printf 'version = 1;\nhardware = { base = "2G"; xsk_queue = "1M"; xsk_copy_queue = "1M"; rdma_port = "1M"; fallback = "2G"; ram_share = 1.0; };\nrules = ( { group = "rdma_users"; memlock = "auto"; } );\n' > "$R/etc/security/rdmalimit.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf"
	want=$(auto_of "$R")
	read -r n u arg <<< "$(fmt "$want")"
	run --unit spdk
	check "unit-auto, policy: WARN with the policy's number ($n $u) and its source" line "WARN spdk.service: runs as spdk with memlock 8 MiB, below the $n $u the hardware needs (\`auto\` of the hardware section of etc/security/rdmalimit.conf; hardware of the host running doctor"
	check "unit-auto, policy: fix" has "fix: rdmalimits apply --unit spdk.service $arg --reload, then systemctl restart spdk.service"
	check "unit-auto: says where the hardware came from (no cache: probed)" has "hardware of the host running doctor, not the tree (probed live: run/rdmalimit/hw.cache: no cache)"
	# enough: a drop-in with infinity
	mkdir -p "$R/etc/systemd/system/spdk.service.d"
	printf '[Service]\nLimitMEMLOCK=infinity\n' > "$R/etc/systemd/system/spdk.service.d/90-rdmalimits.conf"
	run --unit spdk
	check "unit-auto: unlimited is at least auto: OK" line "OK   spdk.service: runs as spdk with memlock unlimited, at least the $n $u the hardware needs" "(etc/systemd/system/spdk.service.d/90-rdmalimits.conf:2)"
	# a limits entry names spdk: that is the target, not auto
	rm -r "$R/etc/systemd/system/spdk.service.d"
	printf 'spdk - memlock 1048576\n' > "$R/etc/security/limits.d/50-spdk.conf"
	run --unit spdk
	check "unit with a configured user: compared with the configuration, not auto" line "FAIL spdk.service: runs as spdk with memlock soft 8 MiB, below the soft 1 GiB (etc/security/limits.d/50-spdk.conf:1)"
	check "... and no auto line" hasnt "the hardware needs"
else
	skip "unit-auto: needs root (the policy probe reads a root-owned policy) and python3"
fi

# --- the policy (the file must be root's: root only)
if is_root; then
	mkroot
	printf 'version = 1;\nrules = (\n  { user = "svc"; memlock = "2G"; }\n);\n' > "$R/etc/security/rdmalimit.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf"
	printf '[Service]\nUser=svc\nLimitMEMLOCK=64M\n' > "$R/etc/systemd/system/app.service"
	run --unit app
	check "policy: valid" line "OK   policy: valid, 1 rule (etc/security/rdmalimit.conf)"
	check "policy target above the unit's: FAIL" line "FAIL app.service: runs as svc with memlock soft 64 MiB, below the soft 2 GiB (etc/security/rdmalimit.conf:3, user svc)"
	check "policy target: the largest configured" line "INFO the largest memlock configured: soft 2 GiB (etc/security/rdmalimit.conf:3, user svc)"
	# the hardware cache a login reads: absent, written, stale, refused
	check "no cache: INFO" line "INFO hardware cache: no cache: logins with an auto rule probe sysfs and netlink themselves" "(run/rdmalimit/hw.cache)"
	check "... fix: probe --save" has "fix: rdmalimits probe --save"
	mkdir -p "$R/run"
	"$RDMALIMITS" --root "$R" probe --save > "$T/probe" 2>&1
	check "probe --save under --root writes the tree's cache" test -f "$R/run/rdmalimit/hw.cache"
	run --unit app
	check "a current cache: OK" line "OK   the hardware cache is current: logins read it (with the devices' max_mr_size) (run/rdmalimit/hw.cache)"
	printf '# a comment\n' >> "$R/etc/security/rdmalimit.conf"
	run --unit app
	check "a policy edit that keeps the interface selection: still current" line "OK   the hardware cache is current"
	printf 'hardware = { include = [ "veth*" ]; };\n' >> "$R/etc/security/rdmalimit.conf"
	run --unit app
	check "another interface selection: WARN stale" line "WARN hardware cache: stale" "(run/rdmalimit/hw.cache)"
	"$RDMALIMITS" --root "$R" probe --save > "$T/probe" 2>&1
	chmod 0666 "$R/run/rdmalimit/hw.cache"
	run --unit app
	check "a cache others may write: WARN" line "WARN hardware cache: writable by group or others" "(run/rdmalimit/hw.cache)"
	chmod 0644 "$R/run/rdmalimit/hw.cache"
	# the cache the module lines read: their cache= when they all read the same one
	sed -i 's|pam_rdmalimit.so$|pam_rdmalimit.so cache=/run/rdmalimit/other.cache|' \
		"$R/etc/pam.d/common-session" "$R/etc/pam.d/common-session-noninteractive"
	run --unit app
	check "lines' cache=: doctor reads that cache" line "INFO hardware cache: no cache: logins with an auto rule probe" "(run/rdmalimit/other.cache)"
	check "... its fix writes that cache" has "fix: rdmalimits probe --save --cache /run/rdmalimit/other.cache"
	check "... not the default" hasnt "(run/rdmalimit/hw.cache)"
	"$RDMALIMITS" --root "$R" probe --save --cache "$R/run/rdmalimit/other.cache" > "$T/probe" 2>&1
	run --unit app
	check "lines' cache= written: OK" line "OK   the hardware cache is current: logins read it" "(run/rdmalimit/other.cache)"
	check "... no cache-other note when they agree" hasnt "different hardware caches"
	# one line reads another: the default, and the line named
	sed -i 's| cache=/run/rdmalimit/other.cache||' "$R/etc/pam.d/common-session-noninteractive"
	run --unit app
	check "lines disagree: INFO cache-other names the line" line "INFO the pam_rdmalimit lines read different hardware caches (etc/pam.d/common-session:6 reads /run/rdmalimit/other.cache): doctor computes \`auto\` from the module's default" "(run/rdmalimit/hw.cache)"
	check "... and the default is what is reported" line "OK   the hardware cache is current" "(run/rdmalimit/hw.cache)"
	run --json --unit app
	check "... --json id cache-other" test "$(json_of cache-other severity)" = info
	# cache= alone: no cache, a live probe
	sed -i 's|pam_rdmalimit.so.*$|pam_rdmalimit.so cache=|' "$R/etc/pam.d/common-session" \
		"$R/etc/pam.d/common-session-noninteractive"
	run --unit app
	check "lines with cache=: INFO no cache, at the first line" line "INFO no hardware cache (cache=): logins with an auto rule probe sysfs and netlink themselves" "(etc/pam.d/common-session:6)"
	# --cache: that one, whatever the lines read
	run --unit app --cache "$R/run/rdmalimit/other.cache"
	check "--cache FILE: that cache, though the lines read none" line "OK   the hardware cache is current" "(run/rdmalimit/other.cache)"
	run --unit app --cache ''
	check "--cache '': none" line "INFO no hardware cache (--cache ''): logins with an auto rule probe"
	sed -i 's|pam_rdmalimit.so.*$|pam_rdmalimit.so|' "$R/etc/pam.d/common-session" \
		"$R/etc/pam.d/common-session-noninteractive"
	# a policy, but pam_rdmalimit in no stack
	sed -i '/pam_rdmalimit/d' "$R/etc/pam.d/common-session" "$R/etc/pam.d/common-session-noninteractive"
	run
	check "policy without the module: FAIL" line "FAIL a policy exists, but pam_rdmalimit is in no PAM session stack" "(etc/security/rdmalimit.conf)"
	check "... the fix is enable --check, whatever the distribution's files are called" \
		has "fix: rdmalimits --root $R enable --check: it names each stack's place for pam_rdmalimit"
	"$RDMALIMITS" --root "$R" enable --check > "$T/enable.out" 2>&1
	check "... which names, for sshd, the command that puts it there" \
		grep -q "etc/pam.d/sshd: .*'rdmalimits enable --service sshd' adds the module there" "$T/enable.out"
	check "policy without the module: per service INFO" line "INFO sshd: pam_rdmalimit is not in the session stack: the policy does not apply"
	rc_is 1 "policy without the module: exit 1"
	# a broken policy
	mkroot
	printf 'version = 1;\nrules = ( { user = "svc"; memlock = "2"; } );\n' > "$R/etc/security/rdmalimit.conf"
	run
	check "policy errors are findings" line "FAIL policy:" "(etc/security/rdmalimit.conf:2)"
else
	skip "policy checks: the policy file must be owned by root"
fi

# --- docker daemon.json default-ulimits
mkroot
mkdir -p "$R/etc/docker"
run
check "docker dir without daemon.json: INFO" line "INFO docker: no daemon.json"
cat > "$R/etc/docker/daemon.json" <<'J'
{
  "log-opts": { "memlock": {"Hard": 1} },
  "default-ulimits": {
    "nofile": { "Name": "nofile", "Hard": 64000, "Soft": 64000 },
    "memlock": { "Name": "memlock", "Hard": 67108864, "Soft": 67108864 }
  }
}
J
run
check "docker memlock below target: WARN" line "WARN docker: containers start with memlock 64 MiB (default-ulimits), below the soft 1 GiB" "(etc/docker/daemon.json)"
check "docker: fix" has "docker run --ulimit memlock=-1:-1"
sed -i 's/"Hard": 67108864, "Soft": 67108864/"soft": -1, "hard": -1/' "$R/etc/docker/daemon.json"
run
check "docker memlock unlimited: OK" line "OK   docker: containers start with memlock unlimited (default-ulimits)"
printf '{"log-opts": {"memlock": {"Hard": 1}}, "default-ulimits": {"nofile": {"Name": "nofile", "Hard": 1, "Soft": 1}}}\n' > "$R/etc/docker/daemon.json"
run
check "docker without a memlock ulimit (memlock elsewhere ignored): INFO" line "INFO docker: no default-ulimits memlock"
printf '{"default-ulimits": {"memlock": {"Name": "memlock", "Hard": "lots", "Soft": 1}}}\n' > "$R/etc/docker/daemon.json"
run
check "docker unreadable memlock: WARN" line "WARN docker: the default-ulimits memlock entry cannot be read"
# a container marker in the tree
mkroot
: > "$R/.dockerenv"
run
check "container marker: INFO" line "INFO .dockerenv: inside a container"

# --- a limits tree with errors
mkroot
printf 'alice\thard\tmemlock\t64M\n@rdma_users soft memlock\n' > "$R/etc/security/limits.d/95-bad.conf"
printf '@rdma_users - memlock 1048576\n' > "$R/etc/security/limits.d/99-late"
run
rc_is 1 "limits errors: exit 1"
check "limits errors: misread value" line "FAIL" "(etc/security/limits.d/95-bad.conf:1)"
check "limits errors: a file pam_limits never reads" line "WARN" "(etc/security/limits.d/99-late)"
check "limits errors: no OK line for limits" hasnt "OK   limits.conf and limits.d"

# --- --pid: a live process started before a configuration change
mkroot
if is_root; then U=root; else U=$ME; fi
printf '%s\t-\tmemlock\tunlimited\n' "$U" > "$R/etc/security/limits.d/10-me.conf"
sleep 300 &
SLEEPER=$!
sleep 2.2
touch "$R/etc/security/limits.conf"
run --pid "$SLEEPER"
check "--pid: the process, its user, VmLck and VmPin" line "INFO sleep (pid $SLEEPER): user $U (uid $MYUID): memlock" "locked 0 B (VmLck), pinned 0 B (VmPin)"
check "--pid: started before the change" line "WARN sleep (pid $SLEEPER): started" "before etc/security/limits.conf changed" "restart it"
if [ "$(ulimit -l)" != unlimited ]; then
	check "--pid: below the configured limit" line "WARN sleep (pid $SLEEPER): memlock soft" "is below the soft unlimited (etc/security/limits.d/10-me.conf:1) that the configuration gives $U"
else
	skip "--pid below the configured limit: this shell's memlock is unlimited"
fi
rc_is 0 "--pid: warnings only, exit 0"
# unchanged since it started; no entry names the user
mkroot
: > "$R/etc/security/limits.conf"
touch -d '-1 hour' "$R/etc/security/limits.conf" "$R/etc/security/limits.d/90-rdmalimits.conf" "$R/etc/security/limits.d"
run --pid "$SLEEPER"
check "--pid: no restart warning when nothing changed since" hasnt "started"
check "--pid: no entry for the user: nothing to compare" line "INFO sleep (pid $SLEEPER): no limits entry or policy rule gives $U a memlock"
# the process's user is the one every command finds for its uid (ident_user_by_uid()): a name
# whose first passwd line has another uid is not this uid's user, nor is a malformed line
mkroot
{ echo "$U:x:4242:4242::/:/bin/sh"; echo "$U:x:$MYUID:$MYUID::/:/bin/sh"; echo "bob:x:$MYUID:bad::/:/bin/sh"; cat "$R/etc/passwd"; } > "$T/passwd"
awk -F: -v u="$U" -v id="$MYUID" 'NR <= 3 || !($1 == u || $3 == id)' "$T/passwd" > "$R/etc/passwd"
run --pid "$SLEEPER"
check "--pid: a uid whose user is known only by a later line of its name: no name given" \
	line "INFO sleep (pid $SLEEPER): user ? (uid $MYUID): memlock"
check "... and not the malformed line's name" hasnt "user bob"
kill "$SLEEPER" 2>/dev/null
wait "$SLEEPER" 2>/dev/null
run --pid "$SLEEPER"
check "--pid of a gone process: FAIL" line "FAIL pid $SLEEPER: no such process"
SLEEPER=
doc --pid nope > /dev/null 2>&1
check "--pid garbage: usage error" test $? -eq 2

# --- the running system: it runs, reads /proc, and ends with the summary line
"$RDMALIMITS" doctor > "$OUT" 2> "$T/err"
rc=$?
check "live: exit 0 or 1" test "$rc" -le 1
check "live: summary line" grep -qE '^(OK|WARN|FAIL): [0-9]+ errors?, [0-9]+ warnings?, [0-9]+ info, [0-9]+ ok$' "$OUT"
check "live: capability bounding set examined" grep -q "CapBnd" "$OUT"
check "live: nothing on stderr" test ! -s "$T/err"
show

# pam_limits' conf= read as every command reads it (lc_args_parse()): word by word, the last
# one winning; a word that only contains "conf=" is no conf=
mkroot
sed -i 's|^session[[:space:]]*required[[:space:]]*pam_limits.so.*$|session required pam_limits.so conf=/etc/security/old.conf conf=/etc/security/hpc.conf|' "$R/etc/pam.d/common-session"
: > "$R/etc/security/old.conf"
: > "$R/etc/security/hpc.conf"
run
check "two conf= on a pam_limits line: doctor names the last, which pam_limits reads" \
	line "INFO sshd: pam_limits has 'conf=/etc/security/hpc.conf': it reads only that file"
check "... not the first" hasnt "conf=/etc/security/old.conf'"
sed -i 's|conf=/etc/security/old.conf conf=/etc/security/hpc.conf|xconf=/x|' "$R/etc/pam.d/common-session"
run
check "a word xconf=/x is no conf=" hasnt "pam_limits has '"

done_testing
