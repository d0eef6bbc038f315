#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Docs that cannot drift (util-linux's checkusage/checkmanpage): for every command of
# `rdmalimits --help`, every option its `--help` lists has a definition in rdmalimits(8)
# (a line "*--NAME*" of OPTIONS) and, when it is the command's own (not a global option),
# stands in that command's SYNOPSIS line; every option the man page defines is one the tool
# takes; every command is in README's command table and has a SYNOPSIS line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

MAN=$top_srcdir/man/rdmalimits.8.scd
README=$top_srcdir/README.md
GLOBAL=" --root --json --quiet --flavour --vendordir --help --version "

# the long options of a --help text
longopts() { sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p'; }

cmds=$("$RDMALIMITS" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && $1 != "help" && NF { print $1 }')
check "rdmalimits --help lists commands" test -n "$cmds"
all=$("$RDMALIMITS" --help | longopts | sort -u)
for c in $cmds; do
	syn=$(grep -E "^\*rdmalimits\* \[_OPTIONS_\] \*$c\*" "$MAN" | tr '\n' ' ')
	check "$c: a SYNOPSIS line in rdmalimits(8)" test -n "$syn"
	check "$c: in README's command table" grep -qE "^\| \`$c( |\`)" "$README"
	for o in $("$RDMALIMITS" "$c" --help | longopts); do
		check "$c $o: defined in rdmalimits(8) OPTIONS" bash -c 'grep -E "^\*(-[a-zA-Z]\*, \*)?--" "$1" | grep -qF -- "*$2*"' _ "$MAN" "$o"
		case $GLOBAL in *" $o "*) continue ;; esac
		check "$c $o: in the SYNOPSIS line of $c" grep -qF -- "*$o*" <<<"$syn"
	done
done
for o in $(grep -E '^\*(-[a-zA-Z]\*, \*)?--' "$MAN" | grep -oE '\*--[a-z][a-z0-9-]*\*' | tr -d '*' | sort -u); do
	case $o in --disable-*) continue ;; esac      # configure's, in prose
	# a hidden alias (--flavor) is not in --help: the tool must still not call it unknown
	check "rdmalimits(8) defines $o: the tool takes it" bash -c '
		grep -qx -- "$2" <<<"$3" || ! "$1" --root /nonexistent list "$2" 2>&1 | grep -q "unrecognized option"' _ \
		"$RDMALIMITS" "$o" "$all"
done
done_testing
