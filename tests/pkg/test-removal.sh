#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Removing the module or the Slurm plugin must never lock anyone out: once pam_rdmalimit.so is
# gone libpam fails every line that names it (a required line fails every session), and
# slurmstepd fails every job step of a "required" plugstack.conf line.  The removal scripts,
# debian/libpam-rdmalimit.prerm and debian/slurm-spank-rdmalimit.prerm and the %preun
# scriptlets of rdmalimit.spec (rpmspec --parse --with slurm), each run by dash and by bash:
#   - refuse (exit non-zero, nothing changed) on removal while such a line exists, naming
#     every FILE:LINE and no other (the control words libpam fails on, case, continued lines,
#     paths, /usr/lib/pam.d without an /etc/pam.d file of the same name, backups skipped);
#   - remove anyway with RDMALIMIT_FORCE_REMOVE=1 or /run/rdmalimit-force-remove, saying so;
#   - never refuse on upgrade, nor (Debian, Multi-Arch: same) while another architecture's
#     copy stays;
#   - take out the lines of `rdmalimits enable` with the build's rdmalimits on PATH, leave them
#     (named) without it; Debian: pam-auth-update --package --remove; RPM: authselect
#     disable-feature with-rdmalimit when the selected profile has it;
#   - plugstack.conf, PlugStackConfig of slurm.conf (and of the files it includes), include with
#     wildcards and relative names, an include cycle.
# And the scan blocks of debian/ and of the spec are the same text.
# In a private mount namespace: scratch directories bound over /etc/pam.d, /usr/lib/pam.d,
# /etc/slurm, /run (and /etc/slurm-llnl, /var/spool/slurmd where they exist); pam-auth-update
# and authselect are stand-ins that record their arguments.  Root only.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"

[ "$(id -u)" = 0 ] || skip_all "root only (private mount namespaces)" "not root under CI"
unshare --mount --propagation private true 2>/dev/null || skip_all "no private mount namespace (unshare --mount)"
for sh in dash bash; do
	command -v $sh >/dev/null 2>&1 || skip_all "$sh is missing"
done
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/tool" "$T/scripts"
ln -s "$RDMALIMITS" "$T/tool/rdmalimits"
cat > "$T/bin/pam-auth-update" <<E
#!/bin/sh
echo "pam-auth-update \$*" >> "$T/calls"
E
cat > "$T/bin/authselect" <<E
#!/bin/sh
echo "authselect \$*" >> "$T/calls"
case "\$1" in
current) [ -s "$T/as-current" ] && cat "$T/as-current" ;;
disable-feature) exit 0 ;;
esac
E
chmod +x "$T/bin/pam-auth-update" "$T/bin/authselect"

# --- the scripts: Debian's as written, the spec's scriptlets as rpm runs them
cp "$top_srcdir/debian/libpam-rdmalimit.prerm" "$T/scripts/deb-pam"
cp "$top_srcdir/debian/slurm-spank-rdmalimit.prerm" "$T/scripts/deb-spank"
IMPLS=(deb-pam)
SPANK_IMPLS=(deb-spank)
if ! command -v rpmspec >/dev/null 2>&1; then
	skip_ci "rpmspec is missing (Debian: apt-get install rpm): the spec's %preun scriptlets are not run"
elif [ ! -f "$top_builddir/rdmalimit.spec" ]; then
	fail "no rdmalimit.spec in $top_builddir (configure makes it)"
else
	rpmspec -P --with slurm "$top_builddir/rdmalimit.spec" > "$T/spec" 2> "$T/spec.err" ||
		{ fail "rpmspec -P --with slurm"; sed 's/^/# /' "$T/spec.err"; }
	section() { awk -v s="$1" '$0 == s { on = 1; next } on && /^%[a-z]/ { exit } on' "$T/spec"; }
	section '%preun -n pam_rdmalimit' > "$T/scripts/rpm-pam"
	section '%preun -n slurm-spank-rdmalimit' > "$T/scripts/rpm-spank"
	if [ -s "$T/scripts/rpm-pam" ] && [ -s "$T/scripts/rpm-spank" ]; then
		IMPLS+=(rpm-pam)
		SPANK_IMPLS+=(rpm-spank)
	else
		fail "the spec has %preun scriptlets for pam_rdmalimit and slurm-spank-rdmalimit"
	fi
	# the scan blocks are one text in both places
	block() { sed -n "/^# --- begin $2 scan/,/^# --- end $2 scan/p" "$1"; }
	for b in "pam deb-pam rpm-pam" "plugstack deb-spank rpm-spank"; do
		set -- $b
		if [ -n "$(block "$T/scripts/$2" "$1")" ] && [ -f "$T/scripts/$3" ]; then
			diff_ok "the $1 scan of debian/ and of the spec are the same" <(block "$T/scripts/$2" "$1") <(block "$T/scripts/$3" "$1")
		else
			fail "a '$1 scan' block in debian/ and in the spec"
		fi
	done
fi
# the argument of each kind: removal, upgrade
arg_remove() { case $1 in deb-*) echo remove ;; rpm-*) echo 0 ;; esac; }
arg_upgrade() { case $1 in deb-*) echo upgrade ;; rpm-*) echo 1 ;; esac; }

# --- the scratch trees, bound over the host's in the namespace
P=$T/pam.d V=$T/vendor S=$T/slurm R=$T/run
reset() {
	rm -rf "$P" "$V" "$S" "$R" "$T/llnl" "$T/spool" "$T/calls" "$T/as-current"
	mkdir -p "$P" "$V" "$S" "$R" "$T/llnl" "$T/spool"
	: > "$T/calls"
	cat > "$P/common-session" <<'E'
# here are the per-package modules (the "Primary" block)
session	[default=1]			pam_permit.so
session	requisite			pam_deny.so
session	required			pam_permit.so
session	required	pam_unix.so
session	optional			pam_rdmalimit.so
# end of pam-auth-update config
E
	cat > "$P/sshd" <<'E'
@include common-account
@include common-session
session    optional     pam_motd.so noupdate
session    required     pam_limits.so
session    required     pam_env.so
E
	cp "$P/sshd" "$P/cron"
	printf 'session required pam_limits.so\n' > "$P/login"
	printf 'account required pam_unix.so\n' > "$P/common-account"
}
# run IMPL SHELL ARG [VAR=VALUE...]: the script in the namespace; stdout+stderr in $T/out
run() {
	local impl=$1 shell=$2 arg=$3 tool=${TOOL:-}
	shift 3
	unshare --mount --propagation private bash -c '
		T=$1 tool=$2; shift 2
		bind() { [ -d "$2" ] || return 0; mount --bind "$1" "$2" || exit 99; }
		bind "$T/pam.d" /etc/pam.d; bind "$T/vendor" /usr/lib/pam.d; bind "$T/run" /run
		bind "$T/llnl" /etc/slurm-llnl; bind "$T/spool" /var/spool/slurmd
		[ -d /etc/slurm ] && bind "$T/slurm" /etc/slurm
		exec env -i PATH="$T/bin${tool:+:$T/tool}:/usr/bin:/bin" LC_ALL=C "$@"' \
		sh "$T" "$tool" "$@" "$shell" "$T/scripts/$impl" "$arg" > "$T/out" 2>&1
}
[ -d /etc/slurm ] || diag "no /etc/slurm here: the plugstack.conf cases are skipped"
# named: the FILE:LINE a refusal names (the lines that start with two blanks and a path)
named() { sed -n 's|^  \(/[^:]*:[0-9]*\):.*|\1|p' "$T/out" | LC_ALL=C sort | tr '\n' ' '; }
show() { sed 's/^/# /' "$T/out"; }
# refused RC W CASE WHERE: the run (exit RC) refused the removal in CASE, naming WHERE alone
refused() {
	check "$2: $3: refused (exit $1)" test "$1" != 0 -a "$1" != 99
	check "$2: ... naming $4" test "$(named)" = "$4 "
}

for impl in "${IMPLS[@]}"; do
	for sh in dash bash; do
		w="$impl ($sh)"
		rm_arg=$(arg_remove "$impl")

		# --- a required line in sshd (the man page's example): refused, nothing done
		reset
		printf 'session    required     pam_rdmalimit.so strict\n' >> "$P/sshd"
		cp -a "$P" "$T/pam.before"
		run "$impl" $sh "$rm_arg"
		rc=$?
		if [ $rc -ne 0 ] && [ $rc -ne 99 ]; then ok "$w: removal refused for a required line (exit $rc)"; else not_ok "$w: removal refused for a required line (exit $rc)" "$(cat "$T/out")"; fi
		check "$w: the refusal names /etc/pam.d/sshd:6" test "$(named)" = "/etc/pam.d/sshd:6 "
		check "$w: the refusal says how to remove anyway" grep -q 'RDMALIMIT_FORCE_REMOVE=1' "$T/out"
		check "$w: refused: no command ran (pam-auth-update, authselect)" test ! -s "$T/calls"
		check "$w: refused: /etc/pam.d unchanged" diff -r "$T/pam.before" "$P"
		rm -rf "$T/pam.before"

		# --- upgrade: never refused, nothing done
		run "$impl" $sh "$(arg_upgrade "$impl")"
		check "$w: upgrade with a required line: exit 0" test $? = 0
		check "$w: upgrade: no command ran" test ! -s "$T/calls"

		# --- the overrides
		run "$impl" $sh "$rm_arg" RDMALIMIT_FORCE_REMOVE=1
		rc=$?
		check "$w: RDMALIMIT_FORCE_REMOVE=1: removed (exit $rc)" test $rc = 0
		check "$w: ... and it says the sessions of sshd:6 will fail" sh -c "grep -q 'ANYWAY' '$T/out' && grep -q '/etc/pam.d/sshd:6' '$T/out'"
		touch "$R/rdmalimit-force-remove"
		run "$impl" $sh "$rm_arg"
		check "$w: /run/rdmalimit-force-remove: removed" test $? = 0
		rm -f "$R/rdmalimit-force-remove"

		# --- every control libpam fails on, and the lines that are not the module's
		reset
		cat > "$P/forms" <<'E'
session required pam_rdmalimit.so
session requisite /lib/x86_64-linux-gnu/security/pam_rdmalimit.so
Session Required pam_rdmalimit.so
session [default=die] pam_rdmalimit.so
session [success=ok default=ignore] pam_rdmalimit.so
session [default=ignore module_unknown=bad] pam_rdmalimit.so
session [success=1 default=bad module_unknown=ignore] pam_rdmalimit.so
-session optional pam_rdmalimit.so
-session required pam_rdmalimit.so
session optional pam_rdmalimit.so strict
# session required pam_rdmalimit.so
session required pam_limits.so # pam_rdmalimit.so
session \
	required pam_rdmalimit.so
session sufficient pam_rdmalimit.so
account required pam_rdmalimit.so
  session   [module_unknown=ok]   pam_rdmalimit.so
session optional pam_rdmalimit.so.old
E
		printf 'session required pam_rdmalimit.so\n' > "$P/sshd.rdmalimits-bak"
		printf 'session required pam_rdmalimit.so\n' > "$V/vendorsvc"
		printf 'session required pam_rdmalimit.so\n' > "$V/login"
		run "$impl" $sh "$rm_arg"
		rc=$?
		check "$w: refused for the forms libpam fails on (exit $rc)" test $rc != 0
		exp="/etc/pam.d/forms:1 /etc/pam.d/forms:13 /etc/pam.d/forms:15 /etc/pam.d/forms:16 /etc/pam.d/forms:17 /etc/pam.d/forms:2 /etc/pam.d/forms:3 /etc/pam.d/forms:4 /etc/pam.d/forms:6 /etc/pam.d/forms:9 /usr/lib/pam.d/vendorsvc:1 "
		[ -d /usr/lib/pam.d ] || exp=${exp%/usr/lib/pam.d/vendorsvc:1 }
		if [ "$(named)" = "$exp" ]; then ok "$w: exactly those lines are named"; else not_ok "$w: exactly those lines are named" "got:      $(named)" "expected: $exp"; show; fi

		# --- Debian, Multi-Arch: same: another architecture's copy stays (its module with it)
		case $impl in
		deb-pam)
			reset
			printf 'session    required     pam_rdmalimit.so strict\n' >> "$P/sshd"
			printf 'session    optional     pam_rdmalimit.so # rdmalimits enable\n' >> "$P/cron"
			rm -rf "$T/pam.refcount"
			cp -a "$P" "$T/pam.refcount"
			TOOL=1 run "$impl" $sh "$rm_arg" DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT=2
			rc=$?
			check "$w: one architecture's copy of two removed: not refused (exit $rc)" test $rc = 0
			check "$w: ... no command ran, /etc/pam.d unchanged" sh -c "test ! -s '$T/calls' && diff -r '$T/pam.refcount' '$P'"
			;;
		esac

		# --- only optional lines: the tool's are taken out, the admin's named
		reset
		printf 'session    optional     pam_rdmalimit.so # rdmalimits enable\n' >> "$P/sshd"
		printf 'session    optional     pam_rdmalimit.so # rdmalimits enable\n' >> "$P/cron"
		printf 'session optional pam_rdmalimit.so\n' >> "$P/login"
		cp "$P/sshd" "$T/sshd.marked"
		TOOL=1 run "$impl" $sh "$rm_arg"
		rc=$?
		if [ $rc = 0 ]; then ok "$w: optional lines only: removed"; else not_ok "$w: optional lines only: removed (exit $rc)" "$(cat "$T/out")"; fi
		check "$w: rdmalimits disable took the marked line out of sshd" sh -c "! grep -q pam_rdmalimit '$P/sshd'"
		check "$w: ... and out of cron" sh -c "! grep -q pam_rdmalimit '$P/cron'"
		check "$w: the admin's optional line in login is kept and named" sh -c "grep -q pam_rdmalimit '$P/login' && grep -q '/etc/pam.d/login:2' '$T/out'"
		case $impl in
		deb-*) check "$w: pam-auth-update --package --remove rdmalimit ran" grep -qx 'pam-auth-update --package --remove rdmalimit' "$T/calls" ;;
		esac

		# ... without the tool: the marked lines stay, named
		reset
		printf 'session    optional     pam_rdmalimit.so # rdmalimits enable\n' >> "$P/sshd"
		run "$impl" $sh "$rm_arg"
		check "$w: without rdmalimits: removed" test $? = 0
		check "$w: without rdmalimits: the marked line stays in sshd, named" \
			sh -c "grep -q pam_rdmalimit '$P/sshd' && grep -q '/etc/pam.d/sshd:6' '$T/out'"

		# ... /usr/lib/pam.d is read only where /etc/pam.d has no file of that name
		if [ -d /usr/lib/pam.d ]; then
			reset
			printf 'session required pam_rdmalimit.so\n' > "$V/vendorsvc"
			printf 'session required pam_unix.so\n' > "$P/vendorsvc"
			run "$impl" $sh "$rm_arg"
			check "$w: /usr/lib/pam.d/vendorsvc is not read under /etc/pam.d/vendorsvc" test $? = 0
		fi

		# --- RPM: the authselect feature
		case $impl in
		rpm-*)
			reset
			printf 'custom/rdmalimit with-faillock with-rdmalimit\n' > "$T/as-current"
			run "$impl" $sh "$rm_arg"
			check "$w: authselect disable-feature with-rdmalimit ran" grep -qx 'authselect disable-feature with-rdmalimit' "$T/calls"
			check "$w: ... and it says so" grep -q 'feature with-rdmalimit disabled in profile custom/rdmalimit' "$T/out"
			reset
			printf 'sssd with-faillock\n' > "$T/as-current"
			run "$impl" $sh "$rm_arg"
			check "$w: a profile without the feature: no disable-feature" sh -c "! grep -q disable-feature '$T/calls'"
			run "$impl" $sh "$(arg_upgrade "$impl")"
			check "$w: upgrade: authselect not asked" sh -c "! grep -q disable-feature '$T/calls'"
			;;
		esac
	done
done

# --- the Slurm plugin: plugstack.conf and what it includes
if [ -d /etc/slurm ]; then
	for impl in "${SPANK_IMPLS[@]}"; do
		for sh in dash bash; do
			w="$impl ($sh)"
			rm_arg=$(arg_remove "$impl")
			reset
			printf '# a comment: required spank_rdmalimit.so\nrequired /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_rdmalimit.so strict\n' > "$S/plugstack.conf"
			run "$impl" $sh "$rm_arg"
			refused $? "$w" "a required line" /etc/slurm/plugstack.conf:2
			run "$impl" $sh "$(arg_upgrade "$impl")"
			check "$w: upgrade: exit 0" test $? = 0
			run "$impl" $sh "$rm_arg" RDMALIMIT_FORCE_REMOVE=1
			check "$w: RDMALIMIT_FORCE_REMOVE=1: removed, saying so" sh -c "test $? = 0 && grep -q ANYWAY '$T/out'"

			reset
			printf 'optional spank_rdmalimit.so\n' > "$S/plugstack.conf"
			run "$impl" $sh "$rm_arg"
			check "$w: an optional line: removed, the line named" sh -c "test $? = 0 && grep -q '/etc/slurm/plugstack.conf:1' '$T/out'"

			# include, relative, with a wildcard, and a cycle
			reset
			mkdir -p "$S/plugstack.conf.d"
			printf 'include plugstack.conf.d/*.conf\n' > "$S/plugstack.conf"
			printf 'optional other.so\n' > "$S/plugstack.conf.d/10-other.conf"
			printf 'include /etc/slurm/plugstack.conf\n  required   spank_rdmalimit.so\n' > "$S/plugstack.conf.d/50-rdma.conf"
			run "$impl" $sh "$rm_arg"
			refused $? "$w" "a required line in an included file" /etc/slurm/plugstack.conf.d/50-rdma.conf:2

			# slurm.conf's PlugStackConfig
			reset
			mkdir -p "$S/spank"
			printf 'ClusterName=c\nplugstackconfig = /etc/slurm/spank/stack.conf # here\n' > "$S/slurm.conf"
			printf 'required spank_rdmalimit.so\n' > "$S/spank/stack.conf"
			run "$impl" $sh "$rm_arg"
			check "$w: PlugStackConfig of slurm.conf is read" test "$(named)" = "/etc/slurm/spank/stack.conf:1 "

			# ... from a file slurm.conf includes (relative to it), the last one read winning, and
			# an include cycle that ends
			reset
			mkdir -p "$S/spank"
			printf 'ClusterName=c\nPlugStackConfig=/etc/slurm/spank/old.conf\ninclude  slurm-extra.conf # more\n' > "$S/slurm.conf"
			printf 'Include /etc/slurm/slurm.conf\nPlugStackConfig=/etc/slurm/spank/stack.conf\n' > "$S/slurm-extra.conf"
			printf 'optional other.so\n' > "$S/spank/old.conf"
			printf 'required spank_rdmalimit.so\n' > "$S/spank/stack.conf"
			run "$impl" $sh "$rm_arg"
			refused $? "$w" "PlugStackConfig set in an Include of slurm.conf" /etc/slurm/spank/stack.conf:1
		done
	done
fi

done_testing
