#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The RPMs (rdmalimit.spec): `rpmbuild -ta` of the release tarball makes pam_rdmalimit and
# rdmalimits, with %check; their payloads (files, config flags, scriptlets, requirements),
# rpmlint without an error on the packages signed with a throwaway key; and the tool's reading
# of a tree's rpm database (lib/host/rpmdb.c): a stand-in pam package installed with
# `rpm --root TREE --justdb` decides the pam_limits model, the tree is left as it was, a
# database that is a link out of the tree is not read, and a Fedora newer than the release
# table keeps its build's vendor directory.
#
# On Debian, rpmbuild runs with --nodeps (the build requirements are Debian packages) and
# three definitions: the build shell bash, brp-compress run by bash (Debian's brp-compress
# uses bash's `read -d` under #!/bin/sh, and leaves man pages uncompressed otherwise), and a
# packager.  Skips without rpmbuild/rpmlint; fails instead under CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"

for t in rpmbuild rpm rpmlint rpmsign gpg; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t is missing (Debian: apt-get install rpm rpmlint gpg)"
done
[ -f "$top_builddir/rdmalimit.spec" ] || skip_all "no rdmalimit.spec in $top_builddir (configure makes it)"

# is GOT EXPECTED DESCRIPTION; texteq DESCRIPTION GOT EXPECTED (a diff on mismatch)
is() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3" "got:      $1" "expected: $2"; fi; }
texteq() { diff_ok "$1" <(printf '%s\n' "$3") <(printf '%s\n' "$2"); }

T=$(mktemp -d)
trap 'gpgconf --homedir "$T/gnupg" --kill all >/dev/null 2>&1; rm -rf "$T"' EXIT
no_plan
V=$(sed -n 's/^Version:[[:space:]]*//p' "$top_builddir/rdmalimit.spec")

# --- the release tarball (make distdir: what make dist puts in it; or $RPM_TARBALL), then
# rpmbuild -ta
if [ -n "${RPM_TARBALL:-}" ]; then
	cp "$RPM_TARBALL" "$T/rdmalimit-$V.tar.xz"
else
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		make -s -C "$top_builddir" distdir distdir="$T/rdmalimit-$V" > "$T/dist.log" 2>&1 &&
		tar -C "$T" -cJf "$T/rdmalimit-$V.tar.xz" "rdmalimit-$V" ||
		{ fail "make distdir"; sed 's/^/# /' "$T/dist.log" | tail -20; done_testing; }
	rm -rf "${T:?}/rdmalimit-$V"
fi
RPMDEFS=(--define "_topdir $T/top" --define "_buildshell /bin/bash"
	--define '__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}'
	--define "packager rdmalimit maintainers <maintainers@users.noreply.a-seed-9c11bb63.example>")
# the Slurm plugin's package too, with Slurm's headers (libslurm-dev here)
SLURM=()
if [ -f /usr/include/slurm/spank.h ]; then
	SLURM=(--with slurm)
else
	skip_ci "no slurm/spank.h (Debian: libslurm-dev): the package is built without the Slurm plugin"
fi
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	rpmbuild -ta --nodeps "${SLURM[@]}" "${RPMDEFS[@]}" "$T/rdmalimit-$V.tar.xz" > "$T/build.log" 2>&1; then
	ok "rpmbuild -ta ${SLURM[*]} rdmalimit-$V.tar.xz (with %check)"
else
	fail "rpmbuild -ta ${SLURM[*]} rdmalimit-$V.tar.xz"
	tail -40 "$T/build.log" | sed 's/^/# /'
	done_testing
fi
grep -q '^PASS: tests/tool/test-tool.sh' "$T/build.log" && ! grep -q '^FAIL:' "$T/build.log" &&
	ok "%check ran the tool's tests, none failed" || fail "%check did not run the tests it names"
MOD=$(ls "$T"/top/RPMS/*/pam_rdmalimit-"$V"-*.rpm 2>/dev/null)
TOOL=$(ls "$T"/top/RPMS/*/rdmalimits-"$V"-*.rpm 2>/dev/null)
SRC=$(ls "$T"/top/SRPMS/rdmalimit-"$V"-*.src.rpm 2>/dev/null)
SPANK=$(ls "$T"/top/RPMS/*/slurm-spank-rdmalimit-"$V"-*.rpm 2>/dev/null)
[ -f "$MOD" ] && [ -f "$TOOL" ] && [ -f "$SRC" ] && ok "pam_rdmalimit, rdmalimits and the source package" ||
	{ fail "the packages: $(ls -R "$T/top/RPMS" "$T/top/SRPMS" | tr '\n' ' ')"; done_testing; }

# --- payloads: exactly these files (build-id links aside), nothing of another package
files() { rpm -qlp "$1" 2>/dev/null | grep -v '^/usr/lib/\.build-id'; }
texteq "pam_rdmalimit's files" "$(files "$MOD")" "/etc/security/rdmalimit.conf
/usr/lib64/security/pam_rdmalimit.so
/usr/share/licenses/pam_rdmalimit-$V
/usr/share/licenses/pam_rdmalimit-$V/COPYING.LGPL
/usr/share/man/man5/rdmalimit.conf.5.gz
/usr/share/man/man8/pam_rdmalimit.8.gz"
texteq "rdmalimits' files" "$(files "$TOOL")" "/usr/lib/systemd/system-preset/90-rdmalimits.preset
/usr/lib/systemd/system/rdmalimit-cache.path
/usr/lib/systemd/system/rdmalimit-cache.service
/usr/lib/udev/rules.d/90-rdmalimit.rules
/usr/sbin/rdmalimits
/usr/share/bash-completion/completions/rdmalimits
/usr/share/doc/rdmalimits-$V
/usr/share/doc/rdmalimits-$V/README.md
/usr/share/doc/rdmalimits-$V/rdmalimit-status.service
/usr/share/doc/rdmalimits-$V/rdmalimit-status.timer
/usr/share/licenses/rdmalimits-$V
/usr/share/licenses/rdmalimits-$V/COPYING
/usr/share/man/man8/rdmalimits.8.gz"
if [ ${#SLURM[@]} -gt 0 ]; then
	texteq "slurm-spank-rdmalimit's files" "$(files "$SPANK")" "/usr/lib64/slurm/spank_rdmalimit.so
/usr/share/licenses/slurm-spank-rdmalimit-$V
/usr/share/licenses/slurm-spank-rdmalimit-$V/COPYING.LGPL
/usr/share/man/man8/spank_rdmalimit.8.gz"
	rpm2cpio "$SPANK" | (mkdir -p "$T/s" && cd "$T/s" && cpio -idm --quiet) 2>/dev/null
	texteq "the plugin exports the SPANK hooks and version symbols only" \
		"$(readelf --dyn-syms -W "$T/s/usr/lib64/slurm/spank_rdmalimit.so" | awk '$5 == "GLOBAL" && $7 != "UND" { print $8 }' | sort)" \
		"plugin_name
plugin_type
plugin_version
slurm_spank_init
slurm_spank_task_init
slurm_spank_task_init_privileged
spank_plugin_version"
	zcat "$T/s/usr/share/man/man8/spank_rdmalimit.8.gz" | grep -q '/usr/lib64/slurm/spank_rdmalimit\.' &&
		ok "spank_rdmalimit(8) names the package's plugin directory" || fail "spank_rdmalimit(8) names another plugin directory"
	# pinned to the Slurm major release of the headers it was built with (SPANK refuses a plugin
	# of another release), as debian/rules pins slurmd
	n=$(awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3 }' /usr/include/slurm/slurm_version.h)
	rel=$(printf '%d.%02d' $((n >> 16)) $(((n >> 8) & 255)))
	next=$(printf '%d.%02d' $((n >> 16)) $((((n >> 8) & 255) + 1)))
	texteq "the plugin's package requires slurm $rel, below $next" \
		"$(rpm -qp --requires "$SPANK" | grep '^slurm' | sort)" "slurm(x86-64) < $next
slurm(x86-64) >= $rel"
	# the policy it reads belongs to the module's package
	rpm -qp --requires "$SPANK" | grep -qx "pam_rdmalimit(x86-64) = $V-[^ ]*" &&
		ok "the plugin's package requires pam_rdmalimit (the policy file)" || fail "pam_rdmalimit requirement: $(rpm -qp --requires "$SPANK" | tr '\n' ' ')"
	rpm -qp --scripts "$SPANK" | grep -q '^preuninstall scriptlet' &&
		ok "slurm-spank-rdmalimit has a %preun (refusing an erase under a required plugstack line)" || fail "no %preun in slurm-spank-rdmalimit"
fi

# the policy is the only configuration file, and an edited one is kept (noreplace); it belongs to
# the module, which reads it at every login (erasing the tool must not take it away)
cfg=$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$MOD" | awk 'NF == 2 && $1 ~ /c/')
is "$cfg" "cn /etc/security/rdmalimit.conf" "rdmalimit.conf is pam_rdmalimit's %config(noreplace), the only configuration file"
is "$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$TOOL" | awk 'NF == 2 && $1 ~ /c/')" "" "rdmalimits has no configuration file"
# the status units are documentation (opt-in), not units
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$TOOL" | grep -q '^d .*/doc/rdmalimits-[^/]*/rdmalimit-status.timer$' &&
	ok "rdmalimit-status.service and .timer are documentation" || fail "the status units are not %doc"
# the module is the same file the build made, and a shared object
rpm2cpio "$MOD" | (mkdir -p "$T/x" && cd "$T/x" && cpio -idm --quiet) 2>/dev/null
file -b "$T/x/usr/lib64/security/pam_rdmalimit.so" 2>/dev/null | grep -q 'shared object' ||
	readelf -h "$T/x/usr/lib64/security/pam_rdmalimit.so" 2>/dev/null | grep -q 'DYN' &&
	ok "pam_rdmalimit.so is a shared object" || fail "pam_rdmalimit.so in the package"
readelf --dyn-syms -W "$T/x/usr/lib64/security/pam_rdmalimit.so" | awk '$5 == "GLOBAL" && $7 != "UND" { print $8 }' | sort > "$T/syms"
texteq "the module exports the PAM entry points only" "$(cat "$T/syms")" "pam_sm_close_session
pam_sm_open_session"

# the man pages are rendered for this build's paths, not the tarball maker's
# (roff writes "pam_rdmalimit.\&so")
zcat "$T/x/usr/share/man/man8/pam_rdmalimit.8.gz" | grep -q '/usr/lib64/security/pam_rdmalimit\.' &&
	ok "pam_rdmalimit(8) names the module's path in the package" || fail "pam_rdmalimit(8) names another module path"

# scriptlets: systemd's for the cache units, the preset that enables them, and nothing that
# edits PAM stacks (enable goes through authselect, on the admin's word)
scripts=$(rpm -qp --scripts "$TOOL")
grep -q 'systemctl --no-reload preset rdmalimit-cache.service rdmalimit-cache.path' <<<"$scripts" &&
	ok "%post presets the cache units on first install" || fail "%post: $scripts"
grep -q 'systemctl --no-reload disable --now rdmalimit-cache.service rdmalimit-cache.path' <<<"$scripts" &&
	ok "%preun stops and disables them on erase" || fail "%preun"
grep -q 'try-restart rdmalimit-cache.service rdmalimit-cache.path' <<<"$scripts" &&
	ok "%postun restarts them on upgrade" || fail "%postun"
rpm2cpio "$TOOL" | (cd "$T/x" && cpio -idm --quiet) 2>/dev/null
texteq "the preset enables the cache service and path units" "$(cat "$T/x/usr/lib/systemd/system-preset/90-rdmalimits.preset")" \
	"enable rdmalimit-cache.service
enable rdmalimit-cache.path"
! rpm -qp --scripts "$TOOL" | grep -E 'authselect|pam-auth-update|sed -i|/etc/pam\.d/[a-z-]+ *>' &&
	ok "no scriptlet of the tool edits a PAM stack" || fail "a scriptlet of the tool edits PAM stacks"
# the module's only scriptlet is %preun, which on erase takes it out of the stacks (what it does
# is tests/pkg/test-removal.sh's): the lines of enable, the authselect feature
modscripts=$(rpm -qp --scripts "$MOD")
is "$(grep -c 'scriptlet (using' <<<"$modscripts")" 1 "pam_rdmalimit has one scriptlet"
grep -q '^preuninstall scriptlet' <<<"$modscripts" && grep -q 'authselect disable-feature with-rdmalimit' <<<"$modscripts" &&
	grep -q 'rdmalimits disable' <<<"$modscripts" &&
	ok "pam_rdmalimit's %preun takes the module out of the stacks on erase" || fail "pam_rdmalimit's %preun: $modscripts"
rpm -qp --qf '[%{ORDERNAME}\n]' "$MOD" | grep -qx rdmalimits &&
	ok "pam_rdmalimit is erased before rdmalimits (OrderWithRequires)" || fail "no OrderWithRequires: rdmalimits"
# the policy is read without libconfig: no package requires it
! rpm -qp --requires "$MOD" "$TOOL" | grep -q libconfig &&
	ok "no package requires libconfig (the policy's syntax is read without it)" || fail "libconfig requirement: $(rpm -qp --requires "$MOD" "$TOOL" | grep libconfig | tr '\n' ' ')"
rpm -qp --requires "$MOD" | grep -q 'libibverbs' && fail "the module requires libibverbs" || ok "the module does not require libibverbs"

# --- rpmlint, on the packages signed with a throwaway key (signing is the distributor's),
# whose public key is in a private rpm keyring (Debian's rpm keeps its database in ~/.rpmdb:
# HOME points into the test's directory, the host's is never touched)
export GNUPGHOME=$T/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key 'rdmalimit test signing <test@example.invalid>' rsa2048 sign never >/dev/null 2>&1 &&
	rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_name rdmalimit test signing" --addsign "$MOD" "$TOOL" "$SRC" \
		</dev/null > "$T/sign.log" 2>&1 &&
	ok "the packages are signed" || { fail "rpmsign"; sed 's/^/# /' "$T/sign.log"; }
gpg --export --armor 'rdmalimit test signing' > "$T/key.asc" 2>/dev/null
HOME=$T rpm --dbpath "$T/.rpmdb" --import "$T/key.asc" 2>/dev/null || fail "rpm --import of the test key"
HOME=$T rpmlint -c "$top_srcdir/contrib/rpm/rpmlint.toml" "$MOD" "$TOOL" "$SRC" > "$T/lint" 2>&1
errors=$(grep -E '^[^ ]+: E: ' "$T/lint")
summary=$(grep -E 'packages and .* checked' "$T/lint")
if [ -z "$errors" ] && grep -q ' 0 errors' <<<"$summary"; then
	ok "rpmlint: no error ($summary)"
else
	fail "rpmlint: $summary"
	sed 's/^/# /' <<<"$errors"
fi
grep -E ': W: ' "$T/lint" | sed 's/^/# warning: /'

# --- the default build (no --with slurm): no plugin package, no stray man page
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES rpmbuild -tb --nodeps --nocheck "${RPMDEFS[@]}" \
	--define "_topdir $T/noslurm" "$T/rdmalimit-$V.tar.xz" > "$T/build2.log" 2>&1; then
	is "$(cd "$T/noslurm/RPMS" && ls */ | grep -c '\.rpm$')" 2 "without --with slurm: pam_rdmalimit and rdmalimits only"
	rpm -qlp "$T"/noslurm/RPMS/*/*.rpm | grep -q spank && fail "a spank file in the default build's packages" ||
		ok "no spank file in the default build's packages"
else
	fail "rpmbuild -tb without --with slurm"
	tail -20 "$T/build2.log" | sed 's/^/# /'
fi

# --- the tool reads a tree's rpm database for the pam_limits model
mkdir -p "$T/pam/SPECS"
cat > "$T/pam/SPECS/pam.spec" <<'EOF'
Name: pam
Version: 1.5.1
Release: 19.el9
Summary: stand-in for a distribution's pam package in a test tree
License: BSD-3-Clause
BuildArch: noarch
%description
The version is all the test needs.
%files
EOF
rpmbuild -bb "${RPMDEFS[@]}" --define "_topdir $T/pam" "$T/pam/SPECS/pam.spec" > "$T/pam.log" 2>&1 ||
	{ fail "rpmbuild of the stand-in pam"; done_testing; }
tree() {  # tree DIR DBPATH: a Rocky-9-like tree whose os-release says 9.4, pam 1.5.1 in its database
	mkdir -p "$1/etc/security" "$1$2"
	printf 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n' > "$1/etc/passwd"
	printf 'root:x:0:\nalice:x:1000:\n' > "$1/etc/group"
	printf 'alice hard memlock 4096\n' > "$1/etc/security/limits.conf"
	printf 'ID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n' > "$1/etc/os-release"
	rpm --root "$1" --dbpath "$2" --justdb --nodeps --noscripts -i "$T"/pam/RPMS/noarch/pam-1.5.1-*.rpm >/dev/null 2>&1
}
tree "$T/rocky" /var/lib/rpm
rm -f "$T"/rocky/var/lib/rpm/rpmdb.sqlite-shm "$T"/rocky/var/lib/rpm/rpmdb.sqlite-wal "$T"/rocky/var/lib/rpm/.rpm.lock
before=$(cd "$T/rocky" && find . -printf '%p %s %T@ %m %u\n' | sort; sha256sum var/lib/rpm/*)
out=$("$RDMALIMITS" explain alice --root "$T/rocky" --json 2>&1)
is "$(python3 -c 'import json,sys; f=json.load(sys.stdin)["flavour"]; print(f["name"], f["from"])' <<<"$out" 2>&1)" \
	"upstream-1.5.1 rpm" "a tree's rpm database names its pam release (rpm --root ... -q pam)"
after=$(cd "$T/rocky" && find . -printf '%p %s %T@ %m %u\n' | sort; sha256sum var/lib/rpm/*)
texteq "reading the database leaves the tree as it was (no -shm, -wal or lock file)" "$after" "$before"
ls -d /tmp/rdmalimits-rpmdb.* >/dev/null 2>&1 && fail "a private copy was left in /tmp" || ok "the private copy is removed"
"$RDMALIMITS" explain alice --root "$T/rocky" 2>&1 | grep -q 'modelled as upstream-1.5.1 (from rpm)' &&
	ok "explain says the rpm database decided" || fail "explain's text: $("$RDMALIMITS" explain alice --root "$T/rocky" 2>&1 | head -2)"

# Fedora's place for the database
tree "$T/fedora" /usr/lib/sysimage/rpm
printf 'ID=fedora\nVERSION_ID=42\n' > "$T/fedora/etc/os-release"
is "$("$RDMALIMITS" explain alice --root "$T/fedora" --json 2>&1 | python3 -c 'import json,sys; f=json.load(sys.stdin)["flavour"]; print(f["name"], f["from"])')" \
	"upstream-1.5.1 rpm" "/usr/lib/sysimage/rpm is read (the database wins over os-release's Fedora 42)"

# a database that is a link out of the tree is not the tree's: os-release decides
mkdir -p "$T/link/var/lib"
tree "$T/link" /elsewhere
rm -rf "$T/link/var/lib/rpm"
ln -s "$T/rocky/var/lib/rpm" "$T/link/var/lib/rpm"
printf 'ID="rocky"\nVERSION_ID="8.10"\n' > "$T/link/etc/os-release"
is "$("$RDMALIMITS" explain alice --root "$T/link" --json 2>&1 | python3 -c 'import json,sys; f=json.load(sys.stdin)["flavour"]; print(f["name"], f["from"])')" \
	"upstream-1.3.1 os-release" "var/lib/rpm as a link out of the tree is not read (Rocky 8 from os-release)"
# ... nor a database file that is a link
mkdir -p "$T/flink/var/lib/rpm"
tree "$T/flink" /elsewhere
ln -s "$T/rocky/var/lib/rpm/rpmdb.sqlite" "$T/flink/var/lib/rpm/rpmdb.sqlite"
printf 'ID="rocky"\nVERSION_ID="8.10"\n' > "$T/flink/etc/os-release"
is "$("$RDMALIMITS" explain alice --root "$T/flink" --json 2>&1 | python3 -c 'import json,sys; f=json.load(sys.stdin)["flavour"]; print(f["name"], f["from"])')" \
	"upstream-1.3.1 os-release" "rpmdb.sqlite as a link is not read"
# a database without pam: the next source
tree "$T/nopam" /var/lib/rpm
rpm --root "$T/nopam" --dbpath /var/lib/rpm --justdb --nodeps -e pam >/dev/null 2>&1
is "$("$RDMALIMITS" explain alice --root "$T/nopam" --json 2>&1 | python3 -c 'import json,sys; f=json.load(sys.stdin)["flavour"]; print(f["name"], f["from"])')" \
	"upstream-1.5.1 os-release" "a database without pam: os-release (Rocky 9.4) decides"

# a Fedora newer than the release table, its pam from the database (1.6.1, which reads a vendor
# directory): the build's vendor directory, /usr/share/security, as for the table's newest
# Fedora (it was not read: the bit came from the table's row only, and Fedora 44 has none)
sed -e 's/^Version: 1.5.1/Version: 1.6.1/' -e 's/^Release: .*/Release: 1.fc44/' "$T/pam/SPECS/pam.spec" > "$T/pam/SPECS/pam16.spec"
if rpmbuild -bb "${RPMDEFS[@]}" --define "_topdir $T/pam" "$T/pam/SPECS/pam16.spec" >> "$T/pam.log" 2>&1; then
	for v in 43 44; do
		F=$T/fedora$v
		mkdir -p "$F/etc/security" "$F/usr/share/security" "$F/usr/lib/sysimage/rpm"
		printf 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n' > "$F/etc/passwd"
		printf 'root:x:0:\nalice:x:1000:\n' > "$F/etc/group"
		printf 'ID=fedora\nVERSION_ID=%s\n' "$v" > "$F/etc/os-release"
		printf 'alice hard memlock 4096\n' > "$F/usr/share/security/limits.conf"
		rpm --root "$F" --dbpath /usr/lib/sysimage/rpm --justdb --nodeps --noscripts -i "$T"/pam/RPMS/noarch/pam-1.6.1-*.rpm >/dev/null 2>&1
		is "$("$RDMALIMITS" explain alice --root "$F" --json 2>&1 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["flavour"]["name"], d["flavour"]["from"], d["memlock"]["hard"], d["memlock"]["hard_source"])')" \
			"upstream-1.6.1 rpm 4194304 usr/share/security/limits.conf:1" \
			"Fedora $v, pam 1.6.1 from the database: its vendor directory is read"
	done
else
	fail "rpmbuild of the stand-in pam 1.6.1"
fi

done_testing
