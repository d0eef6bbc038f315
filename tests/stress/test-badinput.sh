#!/bin/bash
# The bad-input catalogue of the rdmalimits command line: one row per input.  Every row must
# give a message on stderr (matching the row's pattern, and free of raw control characters and
# of bytes 0x80 and above, whatever the input carries: arguments are echoed through the one
# escaper, a byte as \xHH), nothing on stdout, the row's exit status (2 for usage errors, 1 for
# a bad environment), and leave the root tree exactly as it was.
#
# Rows:  bad EXIT PATTERN ARGS...        (ARGS go after "rdmalimits --root R")
#        bad_noroot EXIT PATTERN ARGS... (no --root added)
# A known bug: TODO="reason" bad ...  reports "not ok ... # TODO reason" while it fails.
# Domain rows run for apply and remove, size rows as SIZE, --soft and --hard.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
export LC_ALL=C
no_plan
# shellcheck source=stress.sh
. "$(dirname "$0")/stress.sh"

stress_tree
"$RDMALIMITS" --root "$R" --flavour debian apply @rdma_users 1G > /dev/null 2>&1
"$RDMALIMITS" --root "$R" --flavour debian apply alice --soft 1G --hard 2G > /dev/null 2>&1
check "set-up: the drop-in exists" test -f "$F"
touch "$T/afile"

# The state of the tree: every entry's type, mode, size, inode, mtime and ctime.  Any write
# (even of the same bytes) changes a ctime, a rename changes an inode: no need to hash.
tree_sum() { find "$R" -printf '%p %y %m %s %i %T@ %C@\n'; }
BEFORE=$(tree_sum)

printable() { # ARGS as shell words, control characters escaped (bash's %q), into $desc
	local a q
	desc=
	for a in "$@"; do
		[ ${#a} -gt 40 ] && a="${a:0:16}...(${#a} chars)"
		printf -v q '%q' "$a"
		desc+=" $q"
	done
	desc=${desc# }
}

run_row() { # run_row ROOT? EXIT PATTERN ARGS...
	local with_root=$1 want=$2 pat=$3 rc why= desc
	shift 3
	printable "$@"
	desc+=" -> $want"
	if [ "$with_root" = yes ]; then
		"$RDMALIMITS" --root "$R" --flavour debian "$@" > "$T/out" 2> "$T/err"
	else
		"$RDMALIMITS" "$@" > "$T/out" 2> "$T/err"
	fi
	rc=$?
	# the input's bytes are echoed escaped: a raw control byte or a byte of 0x80 and above
	# (but the newline that ends each message) is a bug, whether or not the input had it
	local ctl= err=
	IFS= read -r -d '' err < "$T/err"
	ctl=${err//[^$'\001'-$'\011'$'\013'-$'\037'$'\177'-$'\377']/}
	if [ $rc -ge 128 ]; then
		why="crashed (exit $rc)"
	elif [ $rc -ne "$want" ]; then
		why="exit $rc"
	elif [ ! -s "$T/err" ]; then
		why="no message on stderr"
	elif ! [[ $err =~ $pat ]]; then
		why="stderr does not match /$pat/"
	elif [ -s "$T/out" ]; then
		why="output on stdout"
	elif [ -n "$ctl" ]; then
		why="stderr has raw bytes outside printable ASCII"
	elif [ "$(tree_sum)" != "$BEFORE" ]; then
		why="the root tree changed"
	fi
	if [ -z "$why" ]; then
		ok "$desc"
	elif [ -n "${TODO:-}" ]; then
		_tap_n=$((_tap_n + 1))
		echo "not ok $_tap_n - $desc: $why # TODO $TODO"
	else
		fail "$desc: $why"
		sed 's/^/#   stderr: /' "$T/err" | cat -v | head -n 5
		sed 's/^/#   stdout: /' "$T/out" | head -n 5
	fi
}
bad() { run_row yes "$@"; }
bad_noroot() { run_row no "$@"; }

# bad_domain PATTERN DOMAIN: refused by apply and by remove
bad_domain() {
	bad 2 "domain .*$1" apply "$2" 1G
	bad 2 "domain .*$1" remove "$2"
}
# bad_size PATTERN SIZE: refused as SIZE, --soft and --hard
bad_size() {
	bad 2 "$1" apply alice "$2"
	bad 2 "$1" apply alice --soft="$2"
	bad 2 "$1" apply alice --hard="$2"
}

WS="whitespace or a control character"
NAMECHARS="letters, digits"
long=$(printf 'a%.0s' $(seq 5000))
long257=$(printf 'b%.0s' $(seq 257))

# --- domains
bad_domain "$WS" "al ice"
bad_domain "$WS" $'al\tice'
bad_domain "$WS" $'al\nice'
bad_domain "$WS" $'alice\r'
bad_domain "$WS" " alice"
bad_domain "$WS" "alice "
bad_domain "$WS" $'@rdma\vusers'
bad_domain "$WS" $'a\001b'
bad_domain "$WS" $'a\033[2Jb'
bad_domain "$WS" $'a\177b'
bad_domain "comment" "a#b"
bad_domain "comment" "#alice"
bad_domain "comment" "@rdma#users"
bad_domain "'/'" "a/b"
bad_domain "'/'" "../etc"
bad_domain "'/'" "@g/x"
bad_domain "'/'" "/"
bad_domain "longer than 256" "$long"
bad_domain "longer than 256" "$long257"
bad_domain "longer than 256" "@$long"
bad_domain "maxlogins" "%rdma_users"
bad_domain "maxlogins" "%"
bad_domain "maxlogins" "%:1000"
bad_domain "empty" ""
bad_domain "needs a group name" "@"
bad_domain "range" ":"
bad_domain "range" "@:"
bad_domain "range" "1:2:3"
bad_domain "range" "@2000:1000"
bad_domain "range" "4294967296:"
bad_domain "range" ":-1"
bad_domain "range" "+1:2"
bad_domain "range" "0x10:"
bad_domain "$WS" "1 :2"
bad_domain "start with '-'" "-"
bad 2 "invalid option" apply -alice 1G
bad 2 "domain '-alice': user and group names do not start with '-'" apply -- -alice 1G
bad_domain "start with '-'" "@-g"
bad_domain "'\\$'" 'a$b'
bad_domain "'\\$'" '$$'
bad_domain "$NAMECHARS" "alice,bob"
bad_domain "$NAMECHARS" "älice"
bad_domain "$NAMECHARS" "**"
bad_domain "$NAMECHARS" "@*"
bad_domain "$NAMECHARS" "a*"
bad_domain "$NAMECHARS" "alice;rm"
bad_domain "$NAMECHARS" 'a"b'
bad_domain "$NAMECHARS" "a'b"
bad_domain "$NAMECHARS" 'a\b'
bad_domain "$NAMECHARS" $'a\xffb'
bad_domain "$NAMECHARS" $'a\xc3\xa4\x80b'

# --- sizes
UNIT="expected a number with a unit"
bad_size "$UNIT" "1Gx"
bad_size "$UNIT" "G"
bad_size "$UNIT" "1 G"
bad_size "$UNIT" " 1G"
bad_size "$UNIT" "1G "
bad_size "$UNIT" $'1G\n'
bad_size "$UNIT" "+1G"
bad_size "$UNIT" "1.5G"
bad_size "$UNIT" "0x10G"
bad_size "$UNIT" "1e3K"
bad_size "$UNIT" "1KB"
bad_size "$UNIT" "1Kib "
bad_size "$UNIT" "1P"
bad_size "$UNIT" "Unlimited"
bad_size "$UNIT" "inf"
# a negative size reaches the size parser, which says what is wrong with it
bad_size "cannot be negative" "-1"
bad_size "$UNIT" ""
bad_size "$UNIT" "１G"
bad_size "too large" "99999999999999999999G"
bad_size "too large" "18446744073709551616"
bad_size "too large" "16777216T"
bad_size "too large" "18446744073709551615B"
bad_size "unit: limits.conf counts memlock in KiB" "1048576"
bad_size "unit: limits.conf counts memlock in KiB" "1"
bad_size "registration fail" "0"
bad_size "registration fail" "0K"
bad_size "whole KiB" "1000B"
bad_size "whole KiB" "1025B"
bad 2 "size '-1G': a size cannot be negative" apply alice -1G
bad 2 "size '-1G': a size cannot be negative" apply alice -- -1G
bad 2 "soft '-1G'" apply alice --soft -1G
bad 2 "give a SIZE" apply alice
bad 2 "give a SIZE|expected" apply alice --check

# --- soft above hard
bad 2 "soft limit 2 GiB is above the hard limit 1 GiB" apply alice --soft 2G --hard 1G
bad 2 "soft limit unlimited is above the hard limit" apply alice --soft unlimited --hard 1G
bad 2 "above its hard" apply alice --soft 4G
bad 2 "above its hard" apply alice --hard 512M
bad 2 "above its hard" apply @rdma_users --soft 2G
bad 2 "soft limit 2 GiB is above the hard limit 1 GiB" apply alice 1G --soft 2G

# --- file names
FNAME="without '/'"
bad 2 "$FNAME" apply alice 1G --file ../x.conf
bad 2 "$FNAME" apply alice 1G --file /etc/security/x.conf
bad 2 "$FNAME" apply alice 1G --file a/b.conf
bad 2 "$FNAME" apply alice 1G --file x.conf/
bad 2 "$FNAME" apply alice 1G --file ""
bad 2 "$FNAME" remove alice --file ../zz-rdmalimits.conf
bad 2 "starting with a dot" apply alice 1G --file .x.conf
bad 2 "starting with a dot" apply alice 1G --file .conf
bad 2 "starting with a dot" apply alice 1G --file ..conf
bad 2 "ending in .conf" apply alice 1G --file x.cfg
bad 2 "ending in .conf" apply alice 1G --file x.conf.bak
bad 2 "ending in .conf" apply alice 1G --file x.CONF
bad 2 "ending in .conf" apply alice 1G --file x
bad 2 "letters, digits" apply alice 1G --file "x y.conf"
bad 2 "letters, digits" apply alice 1G --file 'x$.conf'
bad 2 "letters, digits" apply alice 1G --file $'x\n.conf'
bad 2 "letters, digits" apply alice 1G --file "x*.conf"
bad 2 "longer than 200" apply alice 1G --file "$(printf 'x%.0s' $(seq 200)).conf"

# --- commands, arguments, options
bad 2 "unknown command 'frobnicate'" frobnicate
bad 2 "unknown command 'APPLY'" APPLY alice 1G
bad 2 "unknown command" ""
bad 2 "unknown command" apply-
bad 2 "unknown command 'fr.x1b.2Job.xff'" $'fr\x1b[2Job\xff'
bad 2 "unrecognized option '--x.x01.x7f.xfe'" list $'--x\x01\x7f\xfe'
bad_noroot 1 "no such user 'a.x1b]0;x.x07.xffb'" status $'a\x1b]0;x\x07\xffb'
bad 2 "--pid '1.x7f.x9b': expected a process id" status --pid $'1\x7f\x9b'
bad 2 "no command" 
bad_noroot 2 "no command"
bad 2 "too many arguments" apply alice 1G 2G
bad 2 "too many arguments" remove alice bob
bad 2 "list: takes no arguments" list extra
bad 2 "expected DOMAIN" apply
bad 2 "expected DOMAIN" remove
bad 2 "expected USER" explain
bad_noroot 2 "expected SIZE" pin-test
bad_noroot 2 "size '1Gx'" pin-test 1Gx
bad 2 "status: option --root does not apply" status
bad 2 "unrecognized option '--bogus'" apply alice 1G --bogus
bad 2 "unrecognized option '--bogus'" --bogus list
bad 2 "unrecognized option '--f'" --f x list
bad 2 "invalid option -- 'x'" apply alice 1G -x
bad 2 "invalid option -- 'Z'" -Z list
bad 2 "Try 'rdmalimits --help'" apply alice 1G --bogus
bad 2 "does not apply" list --soft 1G
bad 2 "does not apply" check --file x.conf
bad 2 "does not apply" remove alice --hard 1G
bad 2 "does not apply" apply alice 1G --policy
bad 2 "does not apply" explain alice --force
bad 2 "debian or upstream" --flavour suse list
bad 2 "debian or upstream" --flavour "" list
bad 2 "debian or upstream" --flavour DEBIAN list
bad 2 "option '--soft' requires an argument" apply alice --soft
bad 2 "option '--file' requires an argument" apply alice 1G --file
bad 2 "'--json' doesn't allow an argument|--json.*argument" --json=1 list
bad_noroot 2 "option '--root' requires an argument" list --root

# --- --root
bad_noroot 1 "--root $T/nonexistent: No such file" --root "$T/nonexistent" list
bad_noroot 1 "--root $T/nonexistent: No such file" --root "$T/nonexistent" apply alice 1G
bad_noroot 1 "--root $T/nonexistent: No such file" --root "$T/nonexistent" remove alice
bad_noroot 1 "--root $T/nonexistent: No such file" --root "$T/nonexistent" explain alice
bad_noroot 1 "--root $T/nonexistent: No such file" --root "$T/nonexistent" check
bad_noroot 2 "empty" --root "" list
bad_noroot 1 "Not a directory" --root "$T/afile" apply alice 1G
bad_noroot 1 "Not a directory" --root "$T/afile" remove alice
bad_noroot 1 "Not a directory" --root "$T/afile" list

# --- a usage error wins: nothing is read or written for these, even with --check/--diff
bad 2 "whitespace" apply "a b" 1G --check --diff
bad 2 "whitespace" --json apply "a b" 1G
bad 2 "whitespace" -q apply "a b" 1G

check "the drop-in is intact after the whole catalogue" grep -q "^alice	hard	memlock	2097152$" "$F"
done_testing
