#!/bin/bash
# rdmalimits status --prometheus --output FILE against a textfile directory another user can
# tamper with (Debian's prometheus user owns /var/lib/prometheus): a directory of his, his
# links planted under the names the old unit wrote through (.rdmalimit.prom.tmp) or as the
# directory itself or on the way, a directory others may write.  Each is refused with a
# message naming it, exit 1, and nothing is written anywhere; a directory root owns gets the
# file replaced atomically (mode 0644, a new inode, no temporary left), and a write that
# fails leaves the old file as it was.  Every "outside" file is a file of the test.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
require_root "root-owned directories, chown to nobody, a tmpfs in a private mount namespace"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
OUT=$T/outside             # stands for a file of the host (a block device in the report)
echo "outside, untouched" > "$OUT"
# run [ARGS...]: status --prometheus --output ARGS, exit status in $rc, stderr+stdout in $T/log
run() {
	timeout 60 "$RDMALIMITS" status --prometheus --threshold 1G --output "$@" > "$T/log" 2>&1
	rc=$?
}
said() { grep -qF -- "$1" "$T/log"; }
outside_intact() { [ "$(cat "$OUT")" = "outside, untouched" ] && [ "$(stat -c %h "$OUT")" = 1 ]; }

# --- the normal case: a root-owned directory
D=$T/textfile
mkdir -m 0755 "$D"
run "$D/rdmalimit.prom"
check "root's directory: exit 0 ($rc), nothing said" test "$rc" -eq 0 -a ! -s "$T/log"
check "... rdmalimit.prom written, root's, mode 0644" test "$(stat -c '%U %a %F' "$D/rdmalimit.prom")" = "root 644 regular file"
check "... the metrics" grep -q '^# TYPE rdmalimit_user_memlock_limit_bytes gauge$' "$D/rdmalimit.prom"
check "... nothing else in the directory" test "$(ls -A "$D")" = "rdmalimit.prom"
if command -v promtool > /dev/null 2>&1; then
	check "... promtool check metrics accepts it" sh -c "promtool check metrics < '$D/rdmalimit.prom' > '$T/promtool' 2>&1"
else
	skip_ci "promtool is installed (Debian package prometheus)"
fi
ino=$(stat -c %i "$D/rdmalimit.prom")
echo old > "$D/rdmalimit.prom"
run "$D/rdmalimit.prom"
check "again: the old file replaced by a rename (a new inode), not rewritten" \
	test "$rc" -eq 0 -a "$(stat -c %i "$D/rdmalimit.prom")" != "$ino" -a "$(head -c 6 "$D/rdmalimit.prom")" = "# HELP"
check "... no temporary left" test "$(ls -A "$D")" = "rdmalimit.prom"

# --- the filed attack: the directory is another user's, with his links under our names
A=$T/attacker
mkdir -m 0755 "$A"
ln -s "$OUT" "$A/.rdmalimit.prom.tmp"
ln -s "$OUT" "$A/rdmalimit.prom"
chown -h 65534:65534 "$A" "$A/.rdmalimit.prom.tmp" "$A/rdmalimit.prom"
run "$A/rdmalimit.prom"
check "a directory owned by nobody: refused, exit 1 ($rc)" test "$rc" -eq 1
check "... the message names it and says why" said "status: --output $A/rdmalimit.prom: refused: its directory is not owned by root; nothing written"
check "... nothing written through his links" outside_intact
check "... his directory as it was" test "$(ls -A "$A" | tr '\n' ' ')" = ".rdmalimit.prom.tmp rdmalimit.prom " -a -L "$A/rdmalimit.prom"

# --- the directory is a symbolic link (to a root-owned directory), or one is on the way
ln -s "$D" "$T/link"
rm -f "$D/rdmalimit.prom"
run "$T/link/rdmalimit.prom"
check "the directory is a symbolic link: refused, exit 1 ($rc)" test "$rc" -eq 1
check "... the message says so" said "refused: its directory is a symbolic link or has one on the way; nothing written"
check "... nothing written in the directory it points to" test -z "$(ls -A "$D")"
mkdir -m 0755 "$D/sub"
ln -s "$T" "$T/via"
run "$T/via/textfile/sub/rdmalimit.prom"
check "a symbolic link on the way: refused, exit 1 ($rc)" test "$rc" -eq 1
check "... the message says so" said "refused: its directory is a symbolic link or has one on the way"
check "... nothing written" test -z "$(ls -A "$D/sub")"

# --- a root-owned directory others may write (a sticky /tmp alike, a group-writable one)
for mode in 1777 0775; do
	W=$T/w$mode
	mkdir "$W"
	chmod "$mode" "$W"
	run "$W/rdmalimit.prom"
	check "root's directory of mode $mode: refused, exit 1 ($rc)" test "$rc" -eq 1
	check "... the message says so" said "refused: its directory is writable by group or others; nothing written"
	check "... nothing written" test -z "$(ls -A "$W")"
done

# --- root's directory holding links under our names (root's own mistake): replaced, never followed
ln -s "$OUT" "$D/rdmalimit.prom"
ln -s "$OUT" "$D/.rdmalimit.prom.tmp"
run "$D/rdmalimit.prom"
check "links under the file's and the old temporary's names: exit 0 ($rc)" test "$rc" -eq 0
check "... nothing written through them" outside_intact
check "... rdmalimit.prom is now a file of its own" test -f "$D/rdmalimit.prom" -a ! -L "$D/rdmalimit.prom"
rm -f "$D/.rdmalimit.prom.tmp"

# --- a write that fails (a full file system): the old file as it was, no temporary left
unshare --mount --propagation private bash -c '
	F=$1/full
	mkdir -p "$F"
	mount -t tmpfs -o size=8k,mode=0755 tmpfs "$F"
	echo "old metrics" > "$F/rdmalimit.prom"
	dd if=/dev/zero of="$F/filler" bs=1k count=64 2> /dev/null
	timeout 60 "$2" status --prometheus --threshold 1G --output "$F/rdmalimit.prom" > "$1/log" 2>&1
	echo $? > "$1/rc"
	cat "$F/rdmalimit.prom" > "$1/after"
	ls -A "$F" | tr "\n" " " > "$1/ls"
' full "$T" "$RDMALIMITS"
check "full file system: exit 1 ($(cat "$T/rc"))" test "$(cat "$T/rc")" = 1
check "... the message says the old file is unchanged" grep -qF "the old file is unchanged" "$T/log"
check "... and it is" test "$(cat "$T/after")" = "old metrics"
check "... no temporary left" test "$(cat "$T/ls")" = "filler rdmalimit.prom "

# --- usage
run "rdmalimit.prom"
check "a relative path: a usage error (exit $rc)" test "$rc" -eq 2
check "... said" said "status: --output 'rdmalimit.prom': expected the absolute path of a file"
run "$D/"
check "a directory, not a file: a usage error (exit $rc)" test "$rc" -eq 2
timeout 60 "$RDMALIMITS" status --output "$D/x.prom" > "$T/log" 2>&1
rc=$?
check "--output without --prometheus: a usage error (exit $rc)" test "$rc" -eq 2 -a ! -e "$D/x.prom"
check "... said" said "status: --output needs --prometheus"
run "$T/nonexistent/rdmalimit.prom"
check "a missing directory: exit 1 ($rc), said" test "$rc" -eq 1 && said "its directory: No such file or directory; nothing written"
check "the outside file was never written" outside_intact
done_testing
