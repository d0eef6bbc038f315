#!/bin/bash
# Which pam_limits a tree has is decided in one place (lc_flavour_default()): the package
# database when it answers, else the release table of os-release, else an assumption that is
# said.  Trees of the distributions the table knows each get their release from list, explain
# and check alike; dpkg's answer wins over os-release's; an unknown distribution, or a tree
# with no OS files (which takes this system's), is "assumed", with a warning.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# tree ID VERSION_ID: a root tree with that os-release and nothing else of a distribution
tree() {
	R=$T/$1-$2
	rm -rf "$R"
	mkdir -p "$R/etc/security"
	printf 'root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nalice:x:1000:\n' > "$R/etc/group"
	: > "$R/etc/security/limits.conf"
	printf 'NAME="%s"\nID=%s\nVERSION_ID="%s"\n' "$1" "$1" "$2" > "$R/etc/os-release"
}
# names: the flavour list, explain and check name, "name from" each, on one line
names() {
	local l e
	l=$("$RDMALIMITS" --root "$R" --json list | python3 -c 'import json,sys; d=json.load(sys.stdin)["flavour"]; print(d["name"], d["from"])')
	e=$("$RDMALIMITS" --root "$R" --json explain alice 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin)["flavour"]; print(d["name"], d["from"])')
	echo "$l|$e"
}

while read -r id ver want; do
	tree "$id" "$ver"
	got=$(names)
	check "$id $ver: list and explain model $want (from os-release)" test "$got" = "$want os-release|$want os-release"
	[ "$got" = "$want os-release|$want os-release" ] || diag "got: $got"
done <<'E'
rhel 8.10 upstream-1.3.1
rhel 9.4 upstream-1.5.1
rhel 10.0 upstream-1.6.1
rocky 9.4 upstream-1.5.1
almalinux 9.5 upstream-1.5.1
centos 9 upstream-1.5.1
fedora 40 upstream-1.6.1
fedora 42 upstream-1.7.0
fedora 43 upstream-1.7.1
ubuntu 20.04 debian-1.3.1
ubuntu 22.04 debian-1.4.0
ubuntu 24.04 debian-1.5.3
debian 11 debian-1.4.0
debian 12 debian-1.5.2
debian 13 debian-1.7.0
E

# the package database answers first: a Debian 12 tree whose dpkg says 1.5.2-6
tree debian 12
mkdir -p "$R/var/lib/dpkg"
printf 'Package: libpam-modules\nStatus: install ok installed\nVersion: 1.5.2-6+deb12u1\n\n' > "$R/var/lib/dpkg/status"
check "dpkg answers before os-release" test "$(names)" = "debian-1.5.2 dpkg|debian-1.5.2 dpkg"

# check reads the tree with the same flavour: a line only 1.5.2's reader splits
tree ubuntu 24.04
printf 'alice hard memlock 1024\r\n' > "$R/etc/security/limits.conf"
"$RDMALIMITS" --root "$R" check > "$T/out" 2>&1
check "check under the table's release (1.5.3 reads CRLF values): a warning, no error" \
	bash -c "grep -q '^0 errors, 1 warning' '$T/out' && grep -qi 'crlf' '$T/out'"
tree fedora 42
printf 'alice hard memlock 1024\r\n' > "$R/etc/security/limits.conf"
"$RDMALIMITS" --root "$R" check > "$T/out" 2>&1
check "check under the table's release (1.7.0 refuses CRLF values): an error" \
	bash -c "grep -qi 'error: .*crlf' '$T/out'"

# a distribution the table does not know: assumed, and said
tree arch 0
echo 'ID_LIKE=' >> "$R/etc/os-release"
check "unknown distribution: the newest upstream model, from assumed" \
	test "$(names)" = "upstream-1.7.2 assumed|upstream-1.7.2 assumed"
"$RDMALIMITS" --root "$R" explain alice > "$T/out" 2>&1
check "unknown distribution: explain warns that it assumed" \
	grep -q "warning: the distribution is neither in a package database nor in the release table" "$T/out"
printf 'alice hard memlock 1024\r\n' > "$R/etc/security/limits.conf"
"$RDMALIMITS" --root "$R" check > "$T/out" 2>&1
check "unknown distribution: check says its findings follow an assumed model (it only reported them)" \
	grep -q "etc/os-release: info: the distribution is neither in a package database nor in the release table: pam_limits is modelled as its family's newest, upstream-1.7.2: the findings follow that model" "$T/out"
"$RDMALIMITS" --root "$R" --json check > "$T/out" 2>&1
check "... and in --json, id flavour-assumed" python3 -c '
import json, sys
sys.exit(0 if any(f.get("id") == "flavour-assumed" for f in json.load(open(sys.argv[1]))["findings"]) else 1)' "$T/out"
: > "$R/etc/security/limits.conf"
# a tree with no OS files at all: this system's release, but said to be assumed (not "dpkg")
tree none 0
rm "$R/etc/os-release"
host=$("$RDMALIMITS" --json list | python3 -c 'import json,sys; print(json.load(sys.stdin)["flavour"]["name"])')
check "a tree without OS files: this system's release ($host), from assumed" \
	test "$(names)" = "$host assumed|$host assumed"
"$RDMALIMITS" --root "$R" explain alice > "$T/out" 2>&1
check "a tree without OS files: explain warns that it took this system's release" \
	grep -q "warning: the tree has no OS files the tool can read (no dpkg status, rpm database or os-release, or one larger than the tool reads): pam_limits is modelled as this system's, $host" "$T/out"
# os-release has one reader: /etc/os-release, else /usr/lib/os-release (os-release(5)), for
# the release table as for the family.  Only /usr/lib's, a Debian the table does not know:
# Debian's newest model, assumed, never "no OS files"; openSUSE (ID_LIKE="opensuse suse")
# likewise the upstream family, not this system's
for fam in "debian 14 debian" "opensuse-tumbleweed 20261201 upstream"; do
	set -- $fam
	tree "$1" "$2"
	mkdir -p "$R/usr/lib"
	mv "$R/etc/os-release" "$R/usr/lib/os-release"
	[ "$1" = debian ] || echo 'ID_LIKE="opensuse suse"' >> "$R/usr/lib/os-release"
	want=$("$RDMALIMITS" --root "$R" --flavour "$3" --json list | python3 -c 'import json,sys; print(json.load(sys.stdin)["flavour"]["name"])')
	check "only usr/lib/os-release ($1 $2): its family's newest model ($want), assumed" \
		test "$(names)" = "$want assumed|$want assumed"
	"$RDMALIMITS" --root "$R" explain alice > "$T/out" 2>&1
	check "... explain does not say the tree has no OS files" \
		sh -c '! grep -q "no OS files" "$1" && grep -q "neither in a package database nor in the release table" "$1"' - "$T/out"
done
# an etc/os-release that cannot be read (a directory): usr/lib/os-release answers
tree ubuntu 24.04
mkdir -p "$R/usr/lib"
mv "$R/etc/os-release" "$R/usr/lib/os-release"
mkdir "$R/etc/os-release"
check "etc/os-release a directory: usr/lib/os-release's release (debian-1.5.3)" \
	test "$(names)" = "debian-1.5.3 os-release|debian-1.5.3 os-release"
# the releases as --flavour aliases
for a in rhel-9:upstream-1.5.1 rocky-8:upstream-1.3.1 fedora-42:upstream-1.7.0 ubuntu-22.04:debian-1.4.0 debian-13:debian-1.7.0; do
	got=$("$RDMALIMITS" --root "$R" --flavour "${a%%:*}" --json list | python3 -c 'import json,sys; print(json.load(sys.stdin)["flavour"]["name"])')
	check "--flavour ${a%%:*} models ${a#*:}" test "$got" = "${a#*:}"
done
# the build's vendor directory, from the same table: Fedora and RHEL build Linux-PAM with
# /usr/share; a pam_limits from 1.5.3 on reads /usr/share/security/limits.d, RHEL 9's 1.5.1
# reads none, Ubuntu and Debian build without one
vendor_hard() {  # the hard limit of alice, and where it comes from, under the tree (and options)
	"$RDMALIMITS" --root "$R" --json explain alice "$@" 2>/dev/null |
		python3 -c 'import json,sys; m=json.load(sys.stdin)["memlock"]; print(m["hard"], m["hard_source"])'
}
while read -r id ver want; do
	tree "$id" "$ver"
	mkdir -p "$R/usr/share/security/limits.d"
	echo 'alice hard memlock 4096' > "$R/usr/share/security/limits.d/90-vendor.conf"
	got=$(vendor_hard)
	exp="4194304 usr/share/security/limits.d/90-vendor.conf:1"
	if [ "$want" = read ]; then
		check "$id $ver: the vendor directory /usr/share/security is read" test "$got" = "$exp"
	else
		check "$id $ver: no vendor directory is read" test -n "$got" -a "${got#*90-vendor}" = "$got"
	fi
done <<'E'
fedora 40 read
fedora 43 read
rhel 10.0 read
rocky 9.4 unread
rhel 8.10 unread
ubuntu 24.04 unread
debian 13 unread
E
tree debian 12
mkdir -p "$R/usr/share/security/limits.d"
echo 'alice hard memlock 4096' > "$R/usr/share/security/limits.d/90-vendor.conf"
check "--flavour fedora-42 reads /usr/share/security (the alias carries its build's vendor directory)" \
	test "$(vendor_hard --flavour fedora-42)" = "4194304 usr/share/security/limits.d/90-vendor.conf:1"
check "--flavour upstream-1.7.0 does not (upstream's 1.7.0 build has no default)" \
	test "$(vendor_hard --flavour upstream-1.7.0 | cut -d' ' -f1)" = "None"
check "--flavour rhel-9.4 is refused (a release, not a point release)" \
	bash -c "! '$RDMALIMITS' --root '$R' --flavour rhel-9.4 list >/dev/null 2>&1"
done_testing
