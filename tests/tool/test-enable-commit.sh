#!/bin/bash
# rdmalimits enable/disable with several files to write, when one of them cannot be written:
# what can be known before the first write is refused with nothing written, --check as the
# real run (a name too long for its backup, a directory that cannot be written); a write that
# fails after others were made (an immutable file, a rename failing through the fault shim
# tests/fault/fault.so) puts back every file written before it, byte for byte (the backups
# too: an old one as it was, a new one gone), exits 1, and no output claims a change.  When a
# file cannot be put back either, that is said, with where its old text is.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

require_built "$RDMALIMITS"
T=$(mktemp -d)
R=$T/root
P=$R/etc/pam.d
cleanup() {
	chattr -i "$P" "$P"/* 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
rl() { "$RDMALIMITS" --root "$R" "$@"; }
# every name, kind, mode, size and byte of the tree (not the inodes: a file put back is a new one)
tree_sum() { (cd "$R" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort -k2); }
STACK='session required pam_unix.so
session required pam_limits.so
session optional pam_systemd.so'

# mkroot NAME...: a tree with one service file of STACK for each NAME, and an old backup of aa
mkroot() {
	chattr -i "$P" "$P"/* 2>/dev/null
	rm -rf "$R"
	mkdir -p "$P" "$R/etc/security"
	: > "$R/etc/security/limits.conf"
	for s in "$@"; do printf '%s\n' "$STACK" > "$P/$s"; done
	printf 'an old backup\n' > "$P/aa.rdmalimits-bak"
	chmod 600 "$P/aa.rdmalimits-bak"
}

# claims_nothing FILE: stdout says no file was added or removed
claims_nothing() { ! grep -qE ': (added|removed) |"changed": true|The files as they were' "$1"; }

# --- a name too long for its backup (fs_write_atomic() takes 200 bytes): refused before any write
L=$(printf 'L%.0s' $(seq 190))
mkroot aa "$L"
before=$(tree_sum)
for mode in "" --check; do
	rl enable $mode --service aa --service "$L" > "$T/out" 2> "$T/err"
	rc=$?
	check "enable ${mode:-(real)}, a service name too long for its backup: exit 1" test $rc -eq 1
	check "... the message names its file and the limit" \
		grep -qF "etc/pam.d/$L: its name is too long for its backup etc/pam.d/$L.rdmalimits-bak (205 bytes, rdmalimits writes names of at most 200)" "$T/err"
	check "... nothing written" test "$before" = "$(tree_sum)"
	check "... and the output claims nothing" claims_nothing "$T/out"
done

# --- an old backup that is a symbolic link: it could not be put back, refused before any write
mkroot aa bb
rm "$P/bb.rdmalimits-bak" 2>/dev/null
ln -s /nowhere "$P/bb.rdmalimits-bak"
before=$(tree_sum)
rl enable --service aa --service bb > "$T/out" 2> "$T/err"
check "enable, a backup that is a symbolic link: exit 1" test $? -eq 1
check "... the message names it" grep -qF "etc/pam.d/bb.rdmalimits-bak: a symbolic link; rdmalimits would replace it and could not put it back if the edit failed (remove it; nothing written)" "$T/err"
check "... nothing written" test "$before" = "$(tree_sum)"

# --- the fault shim: the rename that replaces bb fails (EIO); aa was written before it
SHIM=
for s in "$top_builddir/tests/fault/.libs/fault.so" "$top_builddir/tests/fault/fault.so"; do
	[ -f "$s" ] && SHIM=$s && break
done
if [ -z "$SHIM" ] && ${CC:-cc} -std=gnu11 -fPIC -shared -o "$T/fault.so" "$top_srcdir/tests/fault/fault.c" -ldl 2> /dev/null; then
	SHIM=$T/fault.so
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# faulty NTH PATTERN ARGS...: rdmalimits with the NTH rename of a file matching PATTERN failing
faulty() {
	local nth=$1 pat=$2
	shift 2
	FAULT_CALL=rename FAULT_NTH=$nth FAULT_PATH=$pat FAULT_ERRNO=EIO FAULT_LOG=$T/flog \
		LD_PRELOAD=$SHIM "$RDMALIMITS" --root "$R" "$@"
}
if [ -n "$SHIM" ]; then
	for j in "" --json; do
		mkroot aa bb
		before=$(tree_sum)
		rm -f "$T/flog"
		faulty 1 bb $j enable --service aa --service bb > "$T/out" 2> "$T/err"
		rc=$?
		d="enable${j:+ $j}, bb's write failing after aa's"
		check "$d: the fault was injected" test -s "$T/flog"
		check "$d: exit 1" test $rc -eq 1
		check "$d: every file as it was (aa, its old backup, no new backup of bb)" test "$before" = "$(tree_sum)"
		check "$d: stdout claims nothing" test ! -s "$T/out"
		same "$d: stderr says what failed, what was put back, and that nothing changed" "$T/err" <<-'EOF'
		rdmalimits: etc/pam.d/bb: cannot write: Input/output error; the file is unchanged
		rdmalimits: etc/pam.d/aa: put back as it was
		rdmalimits: nothing changed
		EOF
	done

	# aa's putting back fails too (the second and later renames of aa or bb fail)
	mkroot aa bb
	rm "$P/aa.rdmalimits-bak"
	cp "$P/aa" "$T/aa.orig"
	faulty 2+ '[ab][ab]' enable --service aa --service bb > "$T/out" 2> "$T/err"
	rc=$?
	check "enable, aa cannot be put back: exit 1" test $rc -eq 1
	check "... stdout claims nothing" test ! -s "$T/out"
	check "... stderr says aa keeps the new text and where the old one is" grep -qF \
		"etc/pam.d/aa: cannot put it back as it was: Input/output error; it keeps the new text, the old one is in etc/pam.d/aa.rdmalimits-bak" "$T/err"
	check "... and that one file is left changed" grep -qx "rdmalimits: 1 file left changed" "$T/err"
	check "... the backup holds aa as it was" cmp -s "$T/aa.orig" "$P/aa.rdmalimits-bak"
	check "... bb is unchanged" test "$(cat "$P/bb")" = "$STACK"
	check "... and has no backup" test ! -e "$P/bb.rdmalimits-bak"

	# disable: the same, the other way
	mkroot aa bb
	rl enable --service aa --service bb > /dev/null 2>&1
	printf 'an old backup\n' > "$P/aa.rdmalimits-bak"
	before=$(tree_sum)
	faulty 1 bb disable --service aa --service bb > "$T/out" 2> "$T/err"
	rc=$?
	check "disable, bb's write failing after aa's: exit 1" test $rc -eq 1
	check "... every file as it was" test "$before" = "$(tree_sum)"
	check "... stdout claims nothing" test ! -s "$T/out"
	check "... aa put back" grep -qx "rdmalimits: etc/pam.d/aa: put back as it was" "$T/err"
else
	skip_ci "the fault shim tests/fault/fault.so (make check builds it)"
fi

# --- as root: an immutable file (chattr +i) among the targets, and an immutable pam.d
if [ "$(id -u)" = 0 ] && mkroot aa bb && chattr +i "$P/bb" 2> /dev/null; then
	before=$(tree_sum)
	rl enable --service aa --service bb > "$T/out" 2> "$T/err"
	rc=$?
	chattr -i "$P/bb"
	check "enable, bb immutable: exit 1" test $rc -eq 1
	check "... every file as it was" test "$before" = "$(tree_sum)"
	check "... stdout claims nothing" test ! -s "$T/out"
	check "... says bb cannot be written and aa was put back" \
		grep -qF "etc/pam.d/bb: cannot write: Operation not permitted; the file is unchanged" "$T/err"
	check "... and nothing changed" grep -qx "rdmalimits: nothing changed" "$T/err"

	mkroot aa bb
	chattr +i "$P"
	before=$(tree_sum)
	for mode in "" --check; do
		rl enable $mode --service aa --service bb > "$T/out" 2> "$T/err"
		rc=$?
		check "enable ${mode:-(real)}, pam.d immutable: exit 1 before any write" test $rc -eq 1
		check "... the message names the directory" \
			grep -qF "etc/pam.d: Operation not permitted; rdmalimits cannot write there (nothing written)" "$T/err"
		check "... nothing written" test "$before" = "$(tree_sum)"
		check "... and the output claims nothing" claims_nothing "$T/out"
	done
	chattr -i "$P"
else
	skip_ci "chattr +i in $T (root, a file system with the immutable flag)"
fi

# --- and when every write succeeds, as before: both files and their backups
mkroot aa bb
rl enable --service aa --service bb > "$T/out" 2> "$T/err"
check "enable aa and bb: exit 0" test $? -eq 0
check "... both gain the line" test "$(grep -c pam_rdmalimit "$P/aa" "$P/bb" | tr '\n' ' ')" = "$P/aa:1 $P/bb:1 "
check "... both have their backup" test -f "$P/aa.rdmalimits-bak" -a -f "$P/bb.rdmalimits-bak"
check "... aa's backup is aa as it was" test "$(cat "$P/aa.rdmalimits-bak")" = "$STACK"
done_testing
