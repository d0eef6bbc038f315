#!/bin/bash
# Hostile files for rdmalimits (the tool only; the module has its own tests): drop-ins that
# are symlinks, FIFOs, too large or hand-written; a limits.d others can write; policies
# that are not root's, world-writable, FIFOs, /dev/zero, 100 MiB, nested 10000 levels deep.
# Each one is refused or read in bounded time, with a message; never a hang (timeout 10),
# never a crash (exit < 128), and nothing in the root changes.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# files owned by another user, devices: root only (skips as a normal user, fails under CI)
require_root "test-hostile"
no_plan
# shellcheck source=stress.sh
. "$(dirname "$0")/stress.sh"
S=$R/etc/security
TIMEOUT=${HOSTILE_TIMEOUT:-10}

mkroot() {
	rm -rf "$R"
	stress_tree
	mkdir "$R/dev"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"
	printf 'version = 1;\nrules = ( { user = "alice"; memlock = "1G"; } );\n' > "$S/rdmalimit.conf"
	chmod 0755 "$R" "$R/etc" "$S" "$D"
	chmod 0644 "$S/rdmalimit.conf"
}

# The state of the root: every entry's type, mode, owner, size, inode, link target, mtime and
# ctime (any write changes a ctime, a replacement an inode; FIFOs and devices are never opened).
tree_sum() { find "$R" -printf '%p %y %m %U %s %i %l %T@ %C@\n'; }

# hostile DESCRIPTION WANT-EXIT MESSAGE-ERE -- ARGS...: run rdmalimits --root R ARGS with a
# timeout; WANT-EXIT '*' accepts any status below 128
hostile() {
	local d=$1 want=$2 pat=$3 before rc why=
	shift 4
	before=$(tree_sum)
	timeout -k 5 "$TIMEOUT" "$RDMALIMITS" --root "$R" --flavour debian "$@" > "$T/out" 2>&1 < /dev/null
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		why="hung (killed after ${TIMEOUT}s)"
	elif [ $rc -ge 128 ]; then
		why="crashed (exit $rc)"
	elif [ "$want" != '*' ] && [ $rc -ne "$want" ]; then
		why="exit $rc, expected $want"
	elif ! grep -q -a -E -e "$pat" "$T/out"; then
		why="no message matching /$pat/"
	elif [ "$(tree_sum)" != "$before" ]; then
		why="the root changed"
	fi
	if [ -z "$why" ]; then
		ok "$d"
	else
		fail "$d: $why"
		head -n 20 "$T/out" | sed 's/^/#   /'
	fi
}

# todo_check DESCRIPTION REASON COMMAND...: a known bug; "not ok # TODO" while it fails
todo_check() {
	local d=$1 reason=$2
	shift 2
	if "$@"; then
		ok "$d"
	else
		_tap_n=$((_tap_n + 1))
		echo "not ok $_tap_n - $d # TODO $reason"
	fi
}

# ---------------------------------------------------------------------------------------
# the plainest tree first: limits.d exists and is empty (a fresh Debian install)
mkroot
hostile "check of an empty limits.d" 0 "0 errors" -- check
hostile "list of an empty limits.d" 0 "limits.conf:1" -- list
hostile "explain over an empty limits.d" 0 "alice" -- explain alice

# ---------------------------------------------------------------------------------------
# drop-ins
mkroot
printf '* soft memlock 1\n' > "$T/target"
ln -s "$T/target" "$F"
hostile "apply refuses a drop-in that is a symlink" 1 "symbolic link" -- apply @g 1G
hostile "remove refuses a drop-in that is a symlink" 1 "symbolic link" -- remove @g
check "the symlink's target is untouched" test "$(cat "$T/target")" = "* soft memlock 1"
rm "$F"
ln -s /dev/zero "$F"
hostile "apply refuses a drop-in that is a symlink to /dev/zero" 1 "symbolic link" -- apply @g 1G
rm "$F"
ln -s "$T/nonexistent.conf" "$F"
hostile "apply refuses a dangling symlink as the drop-in" 1 "symbolic link" -- apply @g 1G
check "nothing was created through the dangling symlink" test ! -e "$T/nonexistent.conf"
rm "$F"

printf '# written by hand\n@g soft memlock 1024\n' > "$F"
hostile "apply refuses a hand-written drop-in without the marker" 1 "not written by rdmalimits" -- apply @g 1G
hostile "remove refuses a hand-written drop-in without the marker" 1 "not written by rdmalimits" -- remove @g
printf '%s\r\n@g\tsoft\tmemlock\t1024\r\n' "$MARKER" > "$F"
hostile "apply refuses a drop-in whose marker line ends in CR LF" 1 "not written by rdmalimits|CR|carriage" -- apply @g 1G
printf '%s\n@g\tsoft\tmemlock\t1024\000\n' "$MARKER" > "$F"
hostile "apply refuses a drop-in with a NUL byte" 1 "NUL" -- apply @g 1G
{ printf '%s\n' "$MARKER"; head -c 2000000 /dev/zero | tr '\0' '#'; echo; } > "$F"
hostile "apply refuses a drop-in larger than 1 MiB" 1 "too large" -- apply @g 1G
printf '%s\n@g\tsoft\tmemlock\t1024\nalice\tsoft\tnofile\t10\n' "$MARKER" > "$F"
hostile "apply refuses a drop-in with lines it does not write" 1 "does not write" -- apply @g 1G
rm "$F"

mkfifo "$F"
hostile "apply refuses a FIFO as the drop-in, without blocking" 1 "not a regular file" -- apply @g 1G
hostile "remove refuses a FIFO as the drop-in, without blocking" 1 "not a regular file" -- remove @g
rm "$F"
mkdir "$F"
hostile "remove refuses a directory as the drop-in" 1 "not a regular file" -- remove @g
rmdir "$F"

# a hard link elsewhere keeps the old content: the tool replaces, never writes in place
mkroot
"$RDMALIMITS" --root "$R" apply @g 1G > /dev/null 2>&1
ln "$F" "$R/hardlink"
cp "$F" "$T/old"
"$RDMALIMITS" --root "$R" apply @g 2G > /dev/null 2>&1
check "a hard-linked drop-in: apply succeeds" grep -q "^@g	hard	memlock	2097152$" "$F"
check "a hard-linked drop-in: the other link keeps the old content" cmp -s "$T/old" "$R/hardlink"

# a drop-in with the marker that others could have written: its entries are taken over into
# a root-owned 0644 file without a word
mkroot
"$RDMALIMITS" --root "$R" apply @g 1G > /dev/null 2>&1
printf '*\thard\tmemlock\tunlimited\n' >> "$F"
chown 1000:1000 "$F"
chmod 0666 "$F"
timeout "$TIMEOUT" "$RDMALIMITS" --root "$R" apply @g 2G > "$T/out" 2>&1
rc=$?
check "a world-writable drop-in not owned by root: no hang or crash" test $rc -lt 124
check "a world-writable drop-in not owned by root: apply refuses it or warns" \
	grep -q -E "writable|owned|owner|mode" "$T/out"

# ---------------------------------------------------------------------------------------
# limits.d and limits.conf
mkroot
chmod 0775 "$D"
hostile "check reports a group-writable limits.d" 1 "limits.d: error: is writable by its group" -- check
chmod 0777 "$D"
hostile "check reports a world-writable limits.d" 1 "limits.d: error: is writable by everyone" -- check
chmod 1777 "$D"
hostile "check reports a sticky world-writable limits.d" 1 "limits.d: error: is writable by everyone" -- check
chmod 0755 "$D"
chown 1000 "$D"
hostile "check reports a limits.d not owned by root" 1 "limits.d: error: is owned by uid 1000" -- check
chown 0 "$D"
chmod 0666 "$S/limits.conf"
hostile "check reports a world-writable limits.conf" 1 "limits.conf: error: is writable" -- check
chmod 0644 "$S/limits.conf"

mkroot
mkfifo "$D/50-fifo.conf"
hostile "check does not block on a FIFO in limits.d" '*' "." -- check
check "check reports a FIFO in limits.d (pam_limits' fopen() blocks on it at every login)" \
	grep -q "50-fifo.conf" "$T/out"
hostile "list does not block on a FIFO in limits.d" 0 "limits.conf:1" -- list
hostile "explain does not block on a FIFO in limits.d" '*' "alice" -- explain alice
rm "$D/50-fifo.conf"
mv "$S/limits.conf" "$T/limits.conf"
mkfifo "$S/limits.conf"
hostile "check does not block on limits.conf being a FIFO" '*' "." -- check
hostile "explain does not block on limits.conf being a FIFO" '*' "alice" -- explain alice
rm "$S/limits.conf"
mv "$T/limits.conf" "$S/limits.conf"
# under --root an absolute link resolves inside the tree: the tree's own /dev/zero
mknod "$R/dev/zero" c 1 5
ln -s /dev/zero "$D/51-zero.conf"
hostile "check reads a limits.d symlink to /dev/zero in bounded time and reports it" 1 "51-zero.conf.*(too large|cannot be read|not a regular file|never ends)" -- check
hostile "explain with a limits.d symlink to /dev/zero: bounded, says why" '*' "51-zero.conf" -- explain alice
rm "$D/51-zero.conf" "$R/dev/zero"
truncate -s 100M "$D/52-sparse.conf"
# pam_limits reads a file of any size; the model reads 64 MiB of it (a sparse file costs its
# maker nothing): 100 MiB of NUL bytes is read in bounded time and reported for what it is
hostile "check of a 100 MiB limits.d file: bounded, reported" 0 "52-sparse.conf.*NUL bytes" -- check
hostile "... and said to be read up to 64 MiB only" 0 "52-sparse.conf.*larger than 64 MiB" -- check
hostile "list of a 100 MiB limits.d file: bounded" 0 "memlock entries" -- list
rm "$D/52-sparse.conf"
head -c 1048576 /dev/zero | tr '\0' 'x' > "$D/53-longline.conf"
hostile "check of a 1 MiB single-line file: bounded" '*' "53-longline.conf" -- check
rm "$D/53-longline.conf"
printf '\033]0;owned\007\033[2Jevil\tsoft\tmemlock\t1024\n' > "$D/55-escape.conf"
hostile "list of a file with terminal escape sequences in a domain" 0 "55-escape.conf" -- list
check "list does not print raw escape sequences from a file" \
	eval '! grep -q -a "$(printf "\033")" "$T/out"'
rm "$D/55-escape.conf"
for i in $(seq 2000); do printf '@g%d\tsoft\tmemlock\t%d\n' "$i" "$i"; done > "$D/54-many.conf"
hostile "check of 2000 memlock lines with unknown groups: bounded" '*' "." -- check
hostile "explain over 2000 unknown groups: bounded" 0 "alice" -- explain alice
rm "$D/54-many.conf"

# ---------------------------------------------------------------------------------------
# the policy (check --policy reports; probe and explain do not use a refused policy)
policy_cases() { # DESCRIPTION MESSAGE-ERE: a policy set up by the caller
	local d=$1 pat=$2
	hostile "check --policy reports $d" 1 "rdmalimit.conf.*$pat" -- check --policy
	hostile "probe refuses $d" 0 "rdmalimit.conf.*$pat" -- probe
	hostile "explain does not use $d" 0 "alice" -- explain alice
	if grep -q "asks memlock" "$T/out"; then
		fail "explain does not use $d: it evaluated the policy"
	else
		ok "explain does not apply the rules of $d"
	fi
	check "explain says that pam_rdmalimit refuses $d" \
		grep -q -E "rdmalimit.conf.*$pat" "$T/out"
}

mkroot
chown 1000 "$S/rdmalimit.conf"
policy_cases "a policy not owned by root" "not owned by root"
mkroot
chmod 0666 "$S/rdmalimit.conf"
policy_cases "a world-writable policy" "writable by group or others"
mkroot
chmod 0664 "$S/rdmalimit.conf"
policy_cases "a group-writable policy" "writable by group or others"
mkroot
# an absolute link, resolved inside the tree (a link out of the tree is not followed:
# tests/security/test-tool-safety.sh)
mv "$S/rdmalimit.conf" "$R/policy"
chown 1000 "$R/policy"
ln -s /policy "$S/rdmalimit.conf"
policy_cases "a policy symlinked to a file not owned by root" "not owned by root"
mkroot
rm "$S/rdmalimit.conf"
mkfifo "$S/rdmalimit.conf"
policy_cases "a policy that is a FIFO" "not a regular file"
mkroot
rm "$S/rdmalimit.conf"
mkdir "$S/rdmalimit.conf"
hostile "check --policy reports a policy that is a directory" 1 "rdmalimit.conf.*(directory|regular)" -- check --policy

mkroot
mknod "$R/dev/zero" c 1 5
hostile "check --policy --conf /dev/zero refuses it" 1 "dev/zero.*not a regular file" -- check --policy --conf /dev/zero
hostile "probe --conf /dev/zero refuses it" 0 "dev/zero.*not a regular file" -- probe --conf /dev/zero
hostile "explain --conf /dev/zero does not hang" 0 "alice" -- explain alice --conf /dev/zero
# without --root the path is taken as it is (only FILE is read of the limits files)
before=$(tree_sum)
timeout -k 5 "$TIMEOUT" "$RDMALIMITS" --flavour debian check --policy --conf /dev/zero "$S/limits.conf" > "$T/out" 2>&1
rc=$?
check "check --policy --conf /dev/zero without --root: refused (exit $rc)" \
	test $rc -eq 1 -a "$(grep -c '^/dev/zero: error: not a regular file' "$T/out")" -eq 1

mkroot
truncate -s 100M "$S/rdmalimit.conf"
policy_cases "a 100 MiB policy" "larger than"
mkroot
{ printf 'version = 1;\nrules = ( { user = "alice"; memlock = "1G"; } );\n'; head -c 1048576 /dev/zero | tr '\0' ' '; } > "$S/rdmalimit.conf"
hostile "check --policy refuses a policy of 1 MiB + 60 bytes" 1 "larger than" -- check --policy

rep() { # rep STRING COUNT: STRING COUNT times (no python: it starts slowly on a busy host)
	yes -- "$1" | head -n "$2" | tr -d '\n'
}
nested() { # nested OPEN CLOSE DEPTH
	printf 'version = 1;\nx = %s 1 %s;\n' "$(rep "$1" "$3")" "$(rep "$2" "$3")"
}
mkroot
printf 'version = 1;\nx = %s1;%s\n' "$(rep '{ a = ' 10000)" "$(rep ' };' 10000)" > "$S/rdmalimit.conf"
policy_cases "a policy with groups nested 10000 deep" "nested deeper"
nested '(' ')' 10000 > "$S/rdmalimit.conf"
hostile "check --policy refuses lists nested 10000 deep" 1 "nested deeper" -- check --policy
nested '[' ']' 10000 > "$S/rdmalimit.conf"
hostile "check --policy refuses arrays nested 10000 deep" 1 "nested deeper|syntax error" -- check --policy
printf 'version = 1;\nx = %s\n' "$(rep '({' 100000)" > "$S/rdmalimit.conf"
hostile "check --policy refuses 200000 unclosed brackets" 1 "nested deeper|syntax error" -- check --policy
# 190000 adjacent strings make one value: it grows by doubling, not one copy per piece (the
# sanitizer build's realloc always copies)
{ printf 'version = 1;\nx = '; yes '"ab"' | head -n 190000 | tr '\n' ' '; printf ';\nrules = ();\n'; } > "$S/rdmalimit.conf"
hostile "check --policy of a value of 190000 adjacent strings: bounded" 1 "unknown key \"x\"" -- check --policy
# a group of 80000 distinct keys: each new key is looked up in a hash, not in every key before it
{ printf 'version = 1;\nhardware = {\n'; seq -f 'k%.0f=1;' 80000; printf '};\nrules = ();\n'; } > "$S/rdmalimit.conf"
hostile "check --policy of a group of 80000 keys: bounded, unknown keys named" 1 "unknown key \"k[0-9]+\" in hardware" -- check --policy
{ printf 'version = 1;\nrules = (\n'; seq -f '{ user = "u%.0f"; memlock = "1G"; },' 25000 | head -c 1000000; printf '{ user = "last"; memlock = "1G"; } );\n'; } > "$S/rdmalimit.conf"
hostile "check --policy of a 1 MiB policy with 25000 rules: bounded" 0 "0 errors" -- check --policy
{ printf 'version = 1;\nrules = (\n'; rep '{ group = "g"; memlock = "1G"; },' 20000; printf '{ group = "g"; memlock = "1G"; } );\n'; } > "$S/rdmalimit.conf"
hostile "check --policy of 20000 rules for one group: bounded, warned" 0 "another rule for group" -- check --policy
printf 'version = 1;\nrules = ( { user = "%s"; memlock = "1G"; } );\n' "$(head -c 900000 /dev/zero | tr '\0' a)" > "$S/rdmalimit.conf"
hostile "check --policy of a 900 KB user name: bounded" '*' "." -- check --policy
hostile "explain with a 900 KB user name in the policy: bounded" 0 "alice" -- explain alice
printf 'version = 1;\n@include "/etc/passwd"\nrules = ( { user = "alice"; memlock = "1G"; } );\n' > "$S/rdmalimit.conf"
hostile "check --policy refuses @include" 1 "@include is not supported" -- check --policy
printf 'version = 1;\nrules = ( { user = "alice"; memlock = "1G"; } );\n\000\001\002' > "$S/rdmalimit.conf"
hostile "check --policy refuses a NUL byte" 1 "NUL" -- check --policy
printf 'version = 1;\nrules = ( { user = "alice"; memlock = = "1G"; } );\n' > "$S/rdmalimit.conf"
hostile "check --policy reports a syntax error with its line" 1 "rdmalimit.conf:2: error" -- check --policy
printf '\377\376v\000e\000r\000' > "$S/rdmalimit.conf"
hostile "check --policy reports a UTF-16 file" 1 "rdmalimit.conf.*error" -- check --policy

done_testing
