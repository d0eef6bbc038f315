#!/bin/bash
# rdmalimits enable/disable on copies of this Debian system's real /etc/pam.d (sshd, cron,
# login, su, common-session, ...) and on a RHEL-like tree (system-auth and password-auth as
# links into etc/authselect): where the line goes, what is never touched, idempotence,
# --check/--diff/--json, the backup, refusals, disable.  The host's /etc is only read.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

if [ ! -f /etc/pam.d/sshd ] || ! grep -q 'pam-auth-update' /etc/pam.d/common-session 2>/dev/null; then
	skip_all "no Debian /etc/pam.d with sshd and a pam-auth-update common-session here" \
		"this test copies Debian's /etc/pam.d (sshd from openssh-server, common-session from pam-auth-update)"
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
P=$R/etc/pam.d
rl() { "$RDMALIMITS" --root "$R" "$@"; }
tree_sum() { (cd "$R" && find . -printf '%p %y %m %s %i\n' | LC_ALL=C sort && find . -type f -exec cat {} + | md5sum); }
MARK='session    optional     pam_rdmalimit.so # rdmalimits enable'

# Debian 12's /etc/pam.d/cron (cron 3.0pl1-162), for a host without cron: the file as shipped.
debian_cron() {
	cat <<'EOF'
# The PAM configuration file for the cron daemon

@include common-auth

# Sets the loginuid process attribute
session    required     pam_loginuid.so

# Read environment variables from pam_env's default files, /etc/environment
# and /etc/security/pam_env.conf.
session       required   pam_env.so

# In addition, read system locale information
session       required   pam_env.so envfile=/etc/default/locale

@include common-account
@include common-session-noninteractive 

# Sets up user limits, please define limits for cron tasks
# through /etc/security/limits.conf
session    required   pam_limits.so

EOF
}

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security" "$R/usr/share/pam-configs"
	# pam_limits reads it (without it, pam_limits < 1.5.3 fails every session)
	: >"$R/etc/security/limits.conf"
	cp -a /etc/pam.d "$R/etc/"
	[ -f "$P/cron" ] || debian_cron >"$P/cron"
	cp "$P/cron" "$T/cron.orig"
	[ "${1:-}" = noprofile ] || cp "$top_srcdir/conf/pam-configs/rdmalimit" "$R/usr/share/pam-configs/rdmalimit"
}

# the line after the last session pam_limits line of FILE
after_limits() {
	awk '$1 == "session" && / pam_limits\.so/ { l = NR } { line[NR] = $0 } END { print line[l + 1] }' "$1"
}

# pam-auth-update --enable rdmalimit, as it leaves common-session: the profile's line in the
# "Additional" block, before "# end of pam-auth-update config"
pau_enable() {
	local f
	for f in common-session common-session-noninteractive; do
		awk '/^# end of pam-auth-update config/ { print "session\toptional\t\t\tpam_rdmalimit.so " } { print }' \
			"$P/$f" >"$T/pau" && cat "$T/pau" >"$P/$f"
	done
}

[ -f /etc/pam.d/cron ] && diag "cron: the host's /etc/pam.d/cron" || diag "cron: Debian 12's cron stack (not installed here)"

# --- the problem, seen as the tool sees it: --check changes nothing, exit 3
mkroot
before=$(tree_sum)
rl enable --check >"$T/out" 2>&1
check "enable --check exits 3 (would change)" test $? -eq 3
check "enable --check writes nothing" test "$before" = "$(tree_sum)"
rl enable --check --diff >"$T/diff" 2>"$T/err"
check "enable --check --diff exits 3" test $? -eq 3
grep '^+' "$T/diff" | grep -v '^+++' >"$T/plus"
same "--diff adds one line to sshd and one to cron, nothing else" "$T/plus" <<EOF
+$MARK
+$MARK
EOF
check "--diff names sshd and cron only" test "$(grep '^+++' "$T/diff" | LC_ALL=C sort | tr '\n' ' ')" = "+++ etc/pam.d/cron +++ etc/pam.d/sshd "
check "--check names the pam-auth-update command it would run" grep -q "chroot $R pam-auth-update --enable rdmalimit" "$T/diff"

# --- sshd with UsePAM no in the tree: the line goes in, and enable says sshd does not run it
mkroot
mkdir -p "$R/etc/ssh"
printf 'Port 22\nUsePAM no\n' >"$R/etc/ssh/sshd_config"
rl enable --check >"$T/out" 2>&1
check "enable, sshd with UsePAM no: warns that sshd runs no PAM session, with the line and the fix" \
	grep -qF "warning: etc/pam.d/sshd: sshd opens no PAM session (UsePAM no, etc/ssh/sshd_config:2): neither pam_limits nor pam_rdmalimit runs for ssh logins, which keep sshd's own limits; a line of this stack takes effect only when sshd runs it (fix: set 'UsePAM yes' at etc/ssh/sshd_config:2" "$T/out"
printf 'Port 22\nUsePAM yes\n' >"$R/etc/ssh/sshd_config"
rl enable --check >"$T/out" 2>&1
check "enable, sshd with UsePAM yes: no such warning" bash -c '! grep -q "opens no PAM session" "$1"' _ "$T/out"

# --- without the pam-configs profile installed: refused, nothing written
mkroot noprofile
before=$(tree_sum)
rl enable >"$T/out" 2>&1
check "enable without /usr/share/pam-configs/rdmalimit exits 1" test $? -eq 1
check "... and names the profile" grep -q 'usr/share/pam-configs/rdmalimit is not installed' "$T/out"
check "... and writes nothing" test "$before" = "$(tree_sum)"

# --- enable
mkroot
rl enable >"$T/out" 2>&1
rc=$?
check "enable exits 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$T/out"
check "sshd: the line right after its last pam_limits" test "$(after_limits "$P/sshd")" = "$MARK"
check "cron: the line right after its last pam_limits" test "$(after_limits "$T/root/etc/pam.d/cron")" = "$MARK"
check "sshd: only that line added" test "$(diff /etc/pam.d/sshd "$P/sshd" | grep -c '^[<>]')" = 1
check "cron: only that line added" test "$(diff "$T/cron.orig" "$P/cron" | grep -c '^[<>]')" = 1
for s in login su su-l runuser runuser-l common-session common-session-noninteractive common-auth common-account \
	common-password other; do
	[ -e "/etc/pam.d/$s" ] || continue
	check "$s untouched" cmp -s "/etc/pam.d/$s" "$P/$s"
done
check "login: reported as not needed (its pam_limits runs before common-session)" \
	grep -q 'etc/pam.d/login: not needed: its pam_limits (etc/pam.d/login:[0-9]*) runs before' "$T/out"
check "su: reported as not needed" grep -q 'etc/pam.d/su: not needed' "$T/out"
check "prints the pam-auth-update command for the tree (common-session is pam-auth-update's)" \
	grep -qx "  chroot $R pam-auth-update --enable rdmalimit" "$T/out"
check "backup of sshd: the file as it was" cmp -s /etc/pam.d/sshd "$P/sshd.rdmalimits-bak"
check "backup of cron: the file as it was" cmp -s "$T/cron.orig" "$P/cron.rdmalimits-bak"
check "no backup of a file not changed" test ! -e "$P/login.rdmalimits-bak"
check "the new file keeps the mode" test "$(stat -c %a "$P/sshd")" = "$(stat -c %a /etc/pam.d/sshd)"
check "no temporary file left" test -z "$(find "$P" -name '.*')"

# --- idempotent
before=$(tree_sum)
rl enable >"$T/out2" 2>&1
check "a second enable exits 0" test $? -eq 0
check "a second enable changes nothing (same inodes, same bytes)" test "$before" = "$(tree_sum)"
check "... and says sshd is unchanged" grep -q 'etc/pam.d/sshd: unchanged: pam_rdmalimit already runs after pam_limits' "$T/out2"

# --- once pam-auth-update has run: nothing left to do, --check exits 0
pau_enable
before=$(tree_sum)
rl enable --check >"$T/out" 2>&1
check "after pam-auth-update: enable --check exits 0" test $? -eq 0
check "... and prints no command" test "$(grep -c 'pam-auth-update --enable' "$T/out")" = 0
check "login: the module of common-session runs after its pam_limits" \
	grep -q 'etc/pam.d/login: unchanged: pam_rdmalimit already runs after pam_limits (etc/pam.d/common-session:[0-9]* after etc/pam.d/login:' "$T/out"
rl --json enable --check >"$T/json" 2>&1
check "--json --check: changed false" grep -q '"changed": false' "$T/json"
check "enable --check wrote nothing" test "$before" = "$(tree_sum)"

# --- disable
rl disable --check >"$T/out" 2>&1
check "disable --check exits 3" test $? -eq 3
check "disable --check writes nothing" test "$before" = "$(tree_sum)"
rl disable >"$T/out" 2>&1
check "disable exits 0" test $? -eq 0
check "disable: sshd as it was" cmp -s /etc/pam.d/sshd "$P/sshd"
check "disable: cron as it was" cmp -s "$T/cron.orig" "$P/cron"
check "disable leaves pam-auth-update's line in common-session" grep -q '^session.*pam_rdmalimit' "$P/common-session"
check "disable names pam-auth-update --disable for common-session" grep -q "pam-auth-update --disable rdmalimit" "$T/out"
before=$(tree_sum)
rl disable >"$T/out" 2>&1
check "a second disable exits 0 and changes nothing" test $? -eq 0 -a "$before" = "$(tree_sum)"

# --- --service: only the services named, JSON
mkroot
rl --json enable --service sshd --check >"$T/json" 2>&1
check "enable --service sshd --check --json exits 3" test $? -eq 3
check "--json: changed true, the file, its diff" \
	grep -q '"changed": true, "files": \[{"file": "etc/pam.d/sshd", "change": "pam_rdmalimit after pam_limits (etc/pam.d/sshd:[0-9]*), line [0-9]*"}\], "commands": \[\], "commands_run": false, "diff": "--- etc/pam.d/sshd' "$T/json"
rl enable --service sshd --service cron >"$T/out" 2>&1
check "enable --service sshd --service cron exits 0" test $? -eq 0
check "... sshd and cron get the line" test "$(after_limits "$P/sshd")/$(after_limits "$P/cron")" = "$MARK/$MARK"
check "... and no pam-auth-update command (common-session was not named)" test "$(grep -c pam-auth-update "$T/out")" = 0
rl enable --service sshd --check >/dev/null 2>&1
check "then enable --service sshd --check exits 0" test $? -eq 0
rl enable --service login >"$T/out" 2>&1
check "enable --service login: the line after login's own pam_limits (asked for)" test "$(after_limits "$P/login")" = "$MARK"
rl disable --service login >/dev/null 2>&1
check "disable --service login: login as it was" cmp -s /etc/pam.d/login "$P/login"
check "disable --service login: sshd keeps its line" test "$(after_limits "$P/sshd")" = "$MARK"
rl enable --service common-session --check >"$T/out" 2>&1
check "enable --service common-session: through pam-auth-update only" \
	test "$(grep -c 'etc/pam.d/common-session' "$T/out")/$(grep -c 'pam-auth-update --enable rdmalimit' "$T/out")" = "0/1"

# --- a line of ours before pam_limits (pam_limits moved since): moved after it
mkroot
awk -v m="$MARK" '/^@include common-session$/ { print m } { print }' /etc/pam.d/sshd >"$P/sshd"
rl enable --service sshd >"$T/out" 2>&1
check "enable moves its own line after pam_limits" test $? -eq 0 -a "$(after_limits "$P/sshd")" = "$MARK"
check "... and keeps exactly one" test "$(grep -c 'rdmalimits enable' "$P/sshd")" = 1

# --- refusals: exit 1, the file and line named, nothing written
refused() { # DESCRIPTION PATTERN ARGS...
	local d=$1 pat=$2 before rc
	shift 2
	before=$(tree_sum)
	rl "$@" >"$T/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$pat" "$T/out" && [ "$before" = "$(tree_sum)" ]; then
		ok "$d"
	else
		fail "$d (exit $rc)"
		sed 's/^/# /' "$T/out"
	fi
}
mkroot
echo 'session    optionl    pam_foo.so' >>"$P/login"
n=$(wc -l <"$P/login")
refused "a line it cannot parse (login:$n), even in a file it would not change" "etc/pam.d/login:$n: error: unknown control" enable
refused "disable refuses it too" "etc/pam.d/login:$n: error" disable
# refused_with SERVICE TEXT DESCRIPTION PATTERN ARGS...: refused, in a new tree where
# etc/pam.d/SERVICE ends with TEXT (printf %b: \n, \\)
refused_with() {
	mkroot
	printf '%b' "$2" >>"$P/$1"
	shift 2
	refused "$@"
}
refused_with cron 'session    required   pam_limits.so \\\n    debug\n' \
	"a continued line" "etc/pam.d/cron:[0-9]*: error: a continued line" enable --service cron
# a line libpam reads in pieces (more than 1023 bytes, its newline counted): the rest of a long
# comment runs as a line of its own (tests/agree/test-reader.sh)
refused_with cron "# a long comment $(printf '%*s' 1000 '')session required pam_deny.so\n" \
	"a line longer than libpam's buffer" "etc/pam.d/cron:[0-9]*: error: a line longer than 1023 bytes" enable --service cron
refused_with sshd 'session [success=1 default=ignore pam_foo.so\n' \
	"an unclosed bracket" "error: the bracketed control is not closed" enable --service sshd
refused_with cron '@include /etc/pam.d/common-session\n' \
	"an include by path" "included file given by path" enable --service cron
refused_with cron '@include no-such-file\n' \
	"an include that does not exist" "etc/pam.d/cron:[0-9]*: the included file cannot be read" enable --service cron
# the module would not run after pam_limits (the session engine's walk of the edited stack):
# refused, whether enable would add a line or find one in place
svc_of() { mkroot; printf '%b' "$1" >"$P/svc"; }
svc_of 'session [success=1 default=ignore] pam_permit.so\nsession required pam_limits.so\nsession required pam_unix.so\n'
refused "a jump over pam_limits and the new line (pam_permit always succeeds)" \
	"etc/pam.d/svc: pam_rdmalimit would not run after pam_limits in the svc session stack: etc/pam.d/svc:1 '\[success=2 default=ignore\] pam_permit.so' jumps over it" \
	enable --service svc
svc_of 'session sufficient pam_limits.so\nsession optional pam_rdmalimit.so\nsession required pam_unix.so\n'
refused "a 'sufficient' pam_limits ends the stack before the module already there (not 'unchanged')" \
	"etc/pam.d/svc:1 'sufficient pam_limits.so' ends the stack" enable --service svc
svc_of 'session sufficient pam_permit.so\nsession required pam_limits.so\n'
refused "a stack that ends before pam_limits" \
	"etc/pam.d/svc:1 'sufficient pam_permit.so' ends the stack (pam_limits does not run either)" enable --service svc
# copies of the module reading policies of their own (conf=): the module must run after
# pam_limits for every user a policy has a rule for.  Here rdmalimit-b.conf's sufficient copy
# ends the stack for its users, before the last pam_limits; for everyone else that pam_limits
# runs after every copy: not "unchanged" (the walk where every copy succeeds says it is), but
# a copy rdmalimits did not add runs before the last pam_limits for them: refused
if [ "$(id -u)" = 0 ]; then
	svc_of 'session required pam_limits.so\nsession optional pam_rdmalimit.so\nsession sufficient pam_rdmalimit.so conf=/etc/security/rdmalimit-b.conf\nsession required pam_limits.so\n'
	printf 'version = 1;\nrules = ( { group = "root"; memlock = "2M"; } );\n' >"$R/etc/security/rdmalimit.conf"
	printf 'version = 1;\nrules = ( { user = "root"; memlock = "3M"; } );\n' >"$R/etc/security/rdmalimit-b.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf" "$R/etc/security/rdmalimit-b.conf"
	refused "a copy ending the stack for its users only, before the last pam_limits: refused, not 'unchanged'" \
		"etc/pam.d/svc:2: pam_rdmalimit runs before the last pam_limits (etc/pam.d/svc:4), in a line rdmalimits did not add" \
		enable --service svc
	# the same with rdmalimit-b.conf refused (hard below memlock): its copy never succeeds, so
	# the last pam_limits runs for everyone
	printf 'version = 1;\nrules = ( { user = "root"; memlock = "3M"; hard = "1M"; } );\n' >"$R/etc/security/rdmalimit-b.conf"
	refused "a copy whose policy is refused, before the last pam_limits: refused, not 'unchanged'" \
		"etc/pam.d/svc:2: pam_rdmalimit runs before the last pam_limits (etc/pam.d/svc:4)" enable --service svc
	# with both policies usable and the copy after the last pam_limits for everyone: unchanged
	svc_of 'session required pam_limits.so\nsession [success=1 default=ignore] pam_rdmalimit.so conf=/etc/security/rdmalimit-b.conf\nsession required pam_permit.so\nsession optional pam_rdmalimit.so\n'
	printf 'version = 1;\nrules = ( { user = "root"; memlock = "3M"; } );\n' >"$R/etc/security/rdmalimit-b.conf"
	rl enable --service svc >"$T/out" 2>&1
	check "copies after the last pam_limits for every user: unchanged (exit 0)" \
		grep -q 'unchanged: pam_rdmalimit already runs after pam_limits' "$T/out"
fi
# a condition rdmalimits cannot know (pam_succeed_if) skipping both: the module runs whenever
# pam_limits does, so enable adds it
svc_of 'session [success=1 default=ignore] pam_succeed_if.so user ingroup x\nsession required pam_limits.so\nsession required pam_unix.so\n'
rl enable --service svc >"$T/out" 2>&1
check "a condition module jumping over pam_limits: enable adds the line (exit 0), no warning" \
	bash -c "[ \$? -eq 0 ] || true; grep -q 'added pam_rdmalimit after pam_limits (etc/pam.d/svc:2), line 3' '$T/out' && ! grep -q warning '$T/out'"
mkroot
refused "--service naming a stack without pam_limits" "etc/pam.d/chfn: no session pam_limits line" enable --service chfn
refused "--service naming no service" "etc/pam.d/nosuch: no such PAM service" enable --service nosuch
rl enable --service ../x >"$T/out" 2>&1
check "--service with a slash: usage error (2)" test $? -eq 2
mkroot
awk '/^@include common-session$/ { print "session optional pam_rdmalimit.so conf=/etc/security/other.conf" } { print }' \
	/etc/pam.d/sshd >"$P/sshd"
n=$(grep -n 'other.conf' "$P/sshd" | cut -d: -f1)
refused "pam_rdmalimit before pam_limits in a line it did not add (sshd:$n)" \
	"etc/pam.d/sshd:$n: pam_rdmalimit runs before the last pam_limits (etc/pam.d/sshd:[0-9]*), in a line rdmalimits did not add" \
	enable --service sshd
mkroot
mv "$P/sshd" "$P/sshd-real" && ln -s sshd-real "$P/sshd"
refused "a service that is a symbolic link" "etc/pam.d/sshd is a symbolic link; refusing to write through it" enable --service sshd
mkroot
rm -rf "$P" && ln -s /etc/pam.d "$P"
refused "pam.d a link that leaves the tree (to the host's /etc/pam.d)" "symbolic link" enable --service sshd
check "the host's sshd untouched" test ! -e /etc/pam.d/sshd.rdmalimits-bak

# --- a RHEL-like tree: system-auth and password-auth are authselect's
rhel_file() {
	cat <<'EOF'
# Generated by authselect on Mon Jan  8 10:00:00 2024
# Do not modify this file manually.

auth        required                                     pam_env.so
auth        required                                     pam_faildelay.so delay=2000000
auth        sufficient                                   pam_unix.so nullok
auth        required                                     pam_deny.so

account     required                                     pam_unix.so

password    requisite                                    pam_pwquality.so local_users_only
password    sufficient                                   pam_unix.so sha512 shadow nullok use_authtok
password    required                                     pam_deny.so

session     optional                                     pam_keyinit.so revoke
session     required                                     pam_limits.so
-session    optional                                     pam_systemd.so
session     optional                                     pam_oddjob_mkhomedir.so umask=0077
session     [success=1 default=ignore]                   pam_succeed_if.so service in crond quiet use_uid
session     required                                     pam_unix.so
EOF
}
mkrhel() {
	rm -rf "$R"
	mkdir -p "$P" "$R/etc/authselect"
	printf 'sssd\nwith-mkhomedir\nwith-faillock\n' >"$R/etc/authselect/authselect.conf"
	rhel_file >"$R/etc/authselect/system-auth"
	rhel_file >"$R/etc/authselect/password-auth"
	printf '# Generated by authselect on Mon Jan  8 10:00:00 2024\n# Do not modify this file manually.\n\nsession optional pam_umask.so silent\n' \
		>"$R/etc/authselect/postlogin"
	ln -s /etc/authselect/system-auth "$P/system-auth"
	ln -s /etc/authselect/password-auth "$P/password-auth"
	ln -s /etc/authselect/postlogin "$P/postlogin"
	cat >"$P/sshd" <<'EOF'
#%PAM-1.0
auth       substack     password-auth
auth       include      postlogin
account    required     pam_sepermit.so
account    required     pam_nologin.so
account    include      password-auth
password   include      password-auth
# pam_selinux.so close should be the first session rule
session    required     pam_selinux.so close
session    required     pam_loginuid.so
# pam_selinux.so open should only be followed by sessions to be executed in the user context
session    required     pam_selinux.so open env_params
session    required     pam_namespace.so
session    optional     pam_keyinit.so force revoke
session    optional     pam_motd.so
session    include      password-auth
session    include      postlogin
EOF
	cat >"$P/crond" <<'EOF'
#
# The PAM configuration file for the cron daemon
#
#
# Although no PAM authentication is called, auth modules
# are used for credential setting
auth       include    password-auth
account    required   pam_access.so
account    include    password-auth
session    required   pam_loginuid.so
session    include    password-auth
EOF
}
mkrhel
before=$(tree_sum)
rl enable >"$T/out" 2>&1
check "RHEL-like: enable exits 0" test $? -eq 0
check "RHEL-like: nothing written under --root (authselect's files)" test "$before" = "$(tree_sum)"
check "RHEL-like: sshd's last pam_limits is named in password-auth, managed by authselect" \
	grep -q 'etc/pam.d/sshd: its last pam_limits is in password-auth (etc/pam.d/password-auth:16), managed by authselect' "$T/out"
same "RHEL-like: the profile to create, then enable again (under --root nothing is run)" <(sed -n '/^  /s/^  //p' "$T/out") <<EOF
chroot $R authselect create-profile rdmalimit -b sssd
rdmalimits --root $R enable
EOF
check "RHEL-like: no select before the profile has the module, no sed" test "$(grep -c 'authselect select\|sed ' "$T/out")" = 0
rl enable --check >/dev/null 2>&1
check "RHEL-like: enable --check exits 3" test $? -eq 3
rl enable --service sshd >"$T/out2" 2>&1
check "RHEL-like: enable --service sshd takes the authselect path too" grep -q 'authselect create-profile rdmalimit -b sssd' "$T/out2"

# the profile created (authselect create-profile copies the base's files): enable edits it,
# the module's line behind the feature with-rdmalimit, and records the profile selected before
PMARK='session    optional     pam_rdmalimit.so {include if "with-rdmalimit"} # rdmalimits enable'
C=$R/etc/authselect/custom/rdmalimit
mkdir -p "$C"
rhel_file >"$C/system-auth"
rhel_file >"$C/password-auth"
rl enable >"$T/out" 2>&1
check "RHEL-like, profile created: enable exits 0" test $? -eq 0
for f in system-auth password-auth; do
	check "RHEL-like: custom/rdmalimit/$f gets the line after pam_limits, behind the feature" \
		test "$(after_limits "$C/$f")" = "$PMARK"
	check "RHEL-like: custom/rdmalimit/$f: only that line added" test "$(diff <(rhel_file) "$C/$f" | grep -c '^[<>]')" = 1
	check "RHEL-like: etc/authselect/$f (authselect's output) untouched" cmp -s <(rhel_file) "$R/etc/authselect/$f"
	check "RHEL-like: etc/pam.d/$f still a link" test -L "$P/$f"
done
check "RHEL-like: the profile selected before is recorded (sssd)" test "$(grep -v '^#' "$C/rdmalimits-previous")" = sssd
check "RHEL-like: enable says it recorded it" \
	grep -qx 'etc/authselect/custom/rdmalimit/rdmalimits-previous: recorded the profile selected before custom/rdmalimit: sssd' "$T/out"
check "RHEL-like: then only the select command is left, the features kept and ours added" \
	test "$(sed -n '/^  /s/^  //p' "$T/out")" = "chroot $R authselect select custom/rdmalimit with-mkhomedir with-faillock with-rdmalimit --force"
rl --json enable --check >"$T/json" 2>&1
check "RHEL-like: --json --check: the select command, not run" \
	grep -qF '"commands": ["chroot '"$R"' authselect select custom/rdmalimit with-mkhomedir with-faillock with-rdmalimit --force"], "commands_run": false' "$T/json"
# what `authselect select custom/rdmalimit ... with-rdmalimit` leaves
for f in system-auth password-auth; do
	sed 's/ {include if "with-rdmalimit"}//' "$C/$f" >"$R/etc/authselect/$f"
done
printf 'custom/rdmalimit\nwith-mkhomedir\nwith-faillock\nwith-rdmalimit\n' >"$R/etc/authselect/authselect.conf"
before=$(tree_sum)
rl enable --check >"$T/out" 2>&1
check "RHEL-like, profile selected: enable --check exits 0" test $? -eq 0
check "RHEL-like: sshd reported done" grep -q 'etc/pam.d/sshd: unchanged: pam_rdmalimit already runs after pam_limits (etc/pam.d/password-auth:17' "$T/out"
check "RHEL-like: authselect reported unchanged" grep -q '^authselect: unchanged: profile custom/rdmalimit selected with with-rdmalimit' "$T/out"
rl enable >/dev/null 2>&1
check "RHEL-like: enable then changes nothing" test "$before" = "$(tree_sum)"
# the feature taken off by hand: enable selects it again, and edits nothing
printf 'custom/rdmalimit\nwith-mkhomedir\nwith-faillock\n' >"$R/etc/authselect/authselect.conf"
before=$(tree_sum)
rl enable >"$T/out" 2>&1
check "RHEL-like, the feature off: enable selects it again" test "$(sed -n '/^  /s/^  //p' "$T/out")" = \
	"chroot $R authselect select custom/rdmalimit with-mkhomedir with-faillock with-rdmalimit --force"
check "RHEL-like, the feature off: nothing written" test "$before" = "$(tree_sum)"
printf 'custom/rdmalimit\nwith-mkhomedir\nwith-faillock\nwith-rdmalimit\n' >"$R/etc/authselect/authselect.conf"
before=$(tree_sum)

# disable: back to the profile recorded, with the features selected now but ours
rl disable --check >"$T/out" 2>&1
check "RHEL-like: disable --check exits 3" test $? -eq 3
rl disable >"$T/out" 2>&1
check "RHEL-like: disable exits 0, changes nothing of authselect's under --root" test $? -eq 0 -a "$before" = "$(tree_sum)"
check "RHEL-like: disable prints the select of the profile selected before, with the features but ours" \
	test "$(sed -n '/^  /s/^  //p' "$T/out")" = "chroot $R authselect select sssd with-mkhomedir with-faillock --force"
rl --json disable >"$T/json" 2>&1
check "RHEL-like: disable --json: the command, not run" \
	grep -qF '"commands": ["chroot '"$R"' authselect select sssd with-mkhomedir with-faillock --force"], "commands_run": false' "$T/json"

# refusals of the authselect side: exit 1, said, nothing written
mv "$C/rdmalimits-previous" "$T/record"
refused "RHEL-like: disable without the record" "rdmalimits-previous: no record; rdmalimits cannot tell which authselect profile" disable
printf 'sssd\nlocal\n' >"$C/rdmalimits-previous"
refused "RHEL-like: a record of two profiles" "rdmalimits-previous: not one profile other than custom/rdmalimit" disable
printf 'custom/rdmalimit\n' >"$C/rdmalimits-previous"
refused "RHEL-like: a record naming custom/rdmalimit" "not one profile other than custom/rdmalimit" disable
mv "$T/record" "$C/rdmalimits-previous"
printf 'custom/rdmalimit\nwith-mkhomedir\n--force;rm\n' >"$R/etc/authselect/authselect.conf"
refused "RHEL-like: a word of authselect.conf that is no feature name" \
	"etc/authselect/authselect.conf:3: '--force;rm' is not a profile or feature name of authselect" enable
printf 'local\nwith-faillock\n' >"$R/etc/authselect/authselect.conf"
refused "RHEL-like: the profile made from another one than the one selected" \
	"etc/authselect/custom/rdmalimit was made from the profile sssd, but local is selected" enable
printf 'local\n' >"$R/etc/authselect/authselect.conf"
refused "RHEL-like: pam_rdmalimit rendered by a profile enable did not select: disable says so" \
	"the authselect profile selected is local, not custom/rdmalimit" disable
printf 'sssd\nwith-mkhomedir\n' >"$R/etc/authselect/authselect.conf"

# a profile line of an older rdmalimits (no feature condition): enable puts the conditional one
for f in system-auth password-auth; do
	sed 's/ {include if "with-rdmalimit"}//' "$C/$f" >"$T/f" && cat "$T/f" >"$C/$f"
done
rl enable >"$T/out" 2>&1
check "RHEL-like, an older profile line: enable exits 0" test $? -eq 0
for f in system-auth password-auth; do
	check "RHEL-like: custom/rdmalimit/$f: the plain line replaced by the conditional one" \
		test "$(after_limits "$C/$f")/$(grep -c pam_rdmalimit "$C/$f")" = "$PMARK/1"
done

# sssd's templates begin with "{imply ...}": kept as they are, the line added
{ echo '{imply "with-smartcard" if "with-smartcard-required"}'; rhel_file; } >"$C/system-auth"
rl enable >"$T/out" 2>&1
check "RHEL-like, a template with {imply}: enable exits 0" test $? -eq 0
check "RHEL-like: the {imply} line kept, the module's line added" \
	test "$(head -n 1 "$C/system-auth")/$(after_limits "$C/system-auth")" = '{imply "with-smartcard" if "with-smartcard-required"}/'"$PMARK"

# --- a RHEL-like tree without authselect.conf: told to select a profile first
mkrhel
rm "$R/etc/authselect/authselect.conf"
refused "RHEL-like without a selected profile" "authselect has no profile selected here" enable

# --- several pam_limits: the line goes after the last one that runs, whether it is in the
# service's file, an included file or a substack; doctor and explain then agree it runs after
mkdir -p "$T/multi"
R=$T/multi/root
P=$R/etc/pam.d
rm -rf "$R"
mkdir -p "$P" "$R/etc/security" "$R/lib/x86_64-linux-gnu/security"
: >"$R/etc/security/limits.conf"
printf 'root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n' >"$R/etc/passwd"
printf 'root:x:0:\nalice:x:1000:\n' >"$R/etc/group"
printf 'version = 1;\nrules = ( { user = "alice"; memlock = "4M"; } );\n' >"$R/etc/security/rdmalimit.conf"
# module files where doctor looks for them (their content does not matter to the tool)
for m in pam_limits pam_env pam_unix pam_permit pam_rdmalimit; do
	: >"$R/lib/x86_64-linux-gnu/security/$m.so"
done
printf 'session required pam_limits.so\n' >"$P/lim-inc"
printf 'session required pam_env.so\nsession required pam_limits.so\n' >"$P/lim-sub"
printf 'session required pam_limits.so\nsession required pam_env.so\nsession required pam_limits.so conf=/etc/security/x.conf\nsession required pam_unix.so\n' >"$P/twice"
printf 'session required pam_limits.so\n@include lim-inc\nsession required pam_unix.so\n' >"$P/viainc"
printf 'session required pam_limits.so\nsession include lim-inc\nsession required pam_unix.so\n' >"$P/viainclude"
printf 'session required pam_limits.so\nsession substack lim-sub\nsession required pam_unix.so\n' >"$P/viasub"
# a pam_limits after a 'sufficient' module that ends the stack never runs: the line goes after the
# last one that runs (the session engine's walk), where it runs too
printf 'session required pam_limits.so\nsession sufficient pam_permit.so\nsession required pam_limits.so\n' >"$P/unreached"
for s in twice:4 viainc:3 viainclude:3 viasub:3 unreached:2; do
	svc=${s%:*} want=${s#*:}
	rl enable --service "$svc" >"$T/out" 2>&1
	check "$svc: enable exits 0" test $? -eq 0
	check "$svc: the line is line $want, after the last pam_limits" test "$(sed -n "${want}p" "$P/$svc")" = "$MARK"
	check "$svc: only that line added" test "$(grep -c . "$P/$svc")" -eq "$(($(grep -c . "$P/$svc.rdmalimits-bak") + 1))"
	rl doctor --service "$svc" >"$T/out" 2>&1
	check "$svc: doctor says pam_rdmalimit runs after pam_limits" \
		grep -q "OK   $svc: pam_rdmalimit runs after pam_limits as 'optional' (etc/pam.d/$svc:$want)" "$T/out"
	rl --json explain alice --service "$svc" >"$T/json" 2>&1
	check "$svc: explain's order is after-pam_limits" \
		python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['policy']['order'] != 'after-pam_limits')" "$T/json"
done

# --- a tree whose module directory lacks pam_rdmalimit.so: libpam cannot load the line enable
# would add (PAM_MODULE_UNKNOWN, nothing set), so enable refuses and writes nothing; explain
# names a line whose module cannot load, and what its control does with it
rm "$R/lib/x86_64-linux-gnu/security/pam_rdmalimit.so"
printf 'session required pam_limits.so\n' >"$P/nomod"
refused "enable refuses a line libpam cannot load" \
	"etc/pam.d/nomod:2: libpam cannot load pam_rdmalimit.so" enable --service nomod
printf 'session required pam_limits.so\nsession required /nonexistent/pam_rdmalimit.so\n' >"$P/nomod"
rl explain alice --service nomod >"$T/out" 2>&1
check "explain names the line libpam cannot load" grep -q \
	"etc/pam.d/nomod:2: libpam cannot load /nonexistent/pam_rdmalimit.so: the line returns PAM_MODULE_UNKNOWN, which 'required' decides" "$T/out"
rl --json explain alice --service nomod >"$T/json" 2>&1
check "explain --json: the session fails (a required module libpam cannot load)" \
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j['session'] != 'fails' or j['policy']['modules_assumed_present'])" "$T/json"

# an unknown user: what the stack does with it, not a pam_limits that does not run
printf 'session required pam_permit.so\n' >"$P/nolimits"
rl explain nosuchuser --service nolimits >"$T/out" 2>&1
check "unknown user, no pam_limits in the stack: said so" grep -q "no pam_limits runs in this session stack" "$T/out"
rl explain nosuchuser --service nomod >"$T/out" 2>&1
check "unknown user, pam_limits runs: it fails the session" grep -q "(pam_limits fails the session)" "$T/out"

# the module's own reading of its options (login_arg()): the last conf= wins, also where a
# word merely ends in "conf=" before it
printf 'version = 1;\nrules = ( { user = "alice"; memlock = "2M"; } );\n' >"$R/etc/security/first.conf"
printf 'version = 1;\nrules = ( { user = "alice"; memlock = "3M"; } );\n' >"$R/etc/security/last.conf"
printf 'session required pam_limits.so\nsession optional pam_rdmalimit.so xconf=/x conf=/etc/security/first.conf conf=/etc/security/last.conf\n' >"$P/twoconf"
rl explain alice --service twoconf >"$T/out" 2>&1
check "explain reads the last conf= of the module's line, as the module does" grep -q "etc/security/last.conf:2 (user alice) asks memlock soft 3 MiB" "$T/out"

done_testing
