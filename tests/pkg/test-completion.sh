#!/bin/bash
# shellcheck disable=SC1090,SC2016
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/bash-completion/rdmalimits: call the completion function with COMP_WORDS set and
# check COMPREPLY, first without the bash-completion framework, then with it (when
# installed).  Also checks that the completion knows every command and option the tool's
# --help lists (generated from its option table), so the two cannot drift apart.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

COMPLETION=$top_srcdir/contrib/bash-completion/rdmalimits
FRAMEWORK=${BASH_COMPLETION_FRAMEWORK:-/usr/share/bash-completion/bash_completion}

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# a root tree with its own users, groups, drop-ins and PAM services
R=$T/root
mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/usr/lib/pam.d" "$R/sub/dir"
printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\nalbert:x:1002:1002::/home/albert:/bin/sh\nbob:x:1003:1003::/home/bob:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\nrdma_users:x:2000:alice\nrdma_admins:x:2001:\nspdk:x:2002:\n' > "$R/etc/group"
printf '# rdmalimits\n@rdma_users\tsoft\tmemlock\t1048576\n@rdma_users\thard\tmemlock\t1048576\nalice\t-\tmemlock\tunlimited\n' > "$R/etc/security/limits.d/zz-rdmalimits.conf"
printf 'bob\t-\tmemlock\t1024\n' > "$R/etc/security/limits.d/50-other.conf"
: > "$R/etc/security/limits.d/README"
: > "$R/etc/pam.d/sshd"
: > "$R/etc/pam.d/login"
: > "$R/usr/lib/pam.d/systemd-user"
: > "$R/policy.conf"

# a systemctl that knows two units, and one that fails (no systemd)
mkdir -p "$T/bin" "$T/nosystemd"
printf '#!/bin/sh\n[ "$1 $2" = "list-unit-files --no-legend" ] || exit 1\nprintf "%%s\\n" "ib-app.service enabled enabled" "ib-app.socket static -" "ib-app.timer enabled enabled" "ib.target static -" "xdp-fwd.service disabled enabled"\n' > "$T/bin/systemctl"
printf '#!/bin/sh\necho "System has not been booted with systemd" >&2\nexit 1\n' > "$T/nosystemd/systemctl"
chmod +x "$T/bin/systemctl" "$T/nosystemd/systemctl"
PATH_WITH_UNITS=$T/bin:$PATH
PATH_NO_UNITS=$T/nosystemd:$PATH

# complete WORD... : the command line as readline splits it (an "=" is a word of its own);
# the cursor is at the end of the last word.  Leaves the sorted candidates in $got.
complete_words() {
	local line='' w prev=''
	for w in "$@"; do
		if [ -z "$line" ] || [ "$w" = = ] || [ "$prev" = = ]; then
			line+=$w
		else
			line+=" $w"
		fi
		prev=$w
	done
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_TYPE=9
	COMP_KEY=9
	COMPREPLY=()
	_rdmalimits rdmalimits "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//')
}

# is DESC "EXPECTED (sorted, space-separated)" WORD...
is() {
	local desc=$1 exp=$2
	shift 2
	complete_words "$@"
	# shellcheck disable=SC2086  # a word list
	exp=$(printf '%s\n' $exp | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$exp" ]; then
		ok "$mode: $desc"
	else
		fail "$mode: $desc"
		diag "words:    $*" "expected: $exp" "got:      $got"
	fi
}

# missing_words "WORD..." "HAVE...": each WORD that is not among HAVE, a space before each
missing_words() {
	local have=" $2 " w out=
	for w in $1; do
		[[ $have == *" $w "* ]] || out+=" $w"
	done
	printf '%s' "$out"
}

# has DESC "WORD..." WORD...: every expected word is among the candidates
has() {
	local desc=$1 exp=$2 missing
	shift 2
	complete_words "$@"
	missing=$(missing_words "$exp" "$got")
	if [ -z "$missing" ]; then
		ok "$mode: $desc"
	else
		fail "$mode: $desc"
		diag "words:   $*" "missing:$missing" "got:     $got"
	fi
}

# the options a --help output lists, one a line: "-q", "--quiet", "--soft SIZE"
help_options() {
	sed -n '/^Options:/,/^$/p' | sed -nE 's/^ (-[[:alnum:]]), (--[a-z0-9-]+).*/\1\n\2/p; s/^     (--[a-z0-9-]+)( [A-Z]+)?.*/\1\2/p'
}

# the commands of the tool, from its --help
commands() {
	"$RDMALIMITS" --help | sed -n '/^Commands:/,/^$/p' | sed -nE 's/^ ([a-z-]+) .*/\1/p'
}

# "name option..." a line: each command and the options its own --help lists
table() {
	local name
	for name in $(commands); do
		[ "$name" = help ] && continue
		printf '%s %s\n' "$name" "$("$RDMALIMITS" "$name" --help | help_options | cut -d' ' -f1 | tr '\n' ' ')"
	done
}

# the options every command takes (those each command's --help lists)
global_options() {
	local n
	n=$(table | wc -l)
	table | cut -d' ' -f2- | tr ' ' '\n' | sed '/^$/d' | sort | uniq -c | awk -v n="$n" '$1 == n { print $2 }' | tr '\n' ' '
}

# the options that take a value, from the general --help ("--soft SIZE")
value_options() {
	"$RDMALIMITS" --help | help_options | awk 'NF == 2 { print $1 }'
}

GLOBAL='--root --json --quiet -q --flavour --vendordir --help -h --version -V'

suite() {
	# --- commands and options, against the tool's own --help
	local cmds
	cmds=$(commands | tr '\n' ' ')
	if [ -z "$cmds" ]; then
		fail "$mode: read the commands of '$RDMALIMITS --help'"
	else
		is "every command of the tool's --help" "$cmds" rdmalimits ''
		is "help COMMAND: every command" "${cmds/ help / }" rdmalimits help ''
		local name opts
		while read -r name opts; do
			is "options of '$name' match '$name --help'" "$opts" rdmalimits "$name" -
		done < <(table)
		# before the command: what every command takes, and --root, which most take (the
		# commands of this running system refuse it, and do not offer it)
		is "the global options are those every command's --help lists, and --root" \
			"$(printf '%s\n' $(global_options) --root | sort | tr '\n' ' ')" rdmalimits -
		local missing
		missing=$(missing_words "$(value_options)" "$_rdmalimits_arg_opts")
		if [ -z "$missing" ]; then
			ok "$mode: every option --help shows with a value completes a value"
		else
			fail "$mode: every option --help shows with a value completes a value"
			diag "missing from _rdmalimits_arg_opts:$missing"
		fi
	fi
	is "commands after global options" "pin-test probe" rdmalimits --json --root "$R" p
	is "global options before the command" "$GLOBAL" rdmalimits -
	is "long options by prefix" "--soft" rdmalimits apply --so

	# --- domains and users, from the --root tree
	is "apply DOMAIN: users and @groups" "@root @rdma_users @rdma_admins @spdk root alice albert bob" \
		rdmalimits --root "$R" apply ''
	is "apply @r: groups only" "@root @rdma_users @rdma_admins" rdmalimits --root "$R" apply @r
	is "apply @rdma_: prefix" "@rdma_users @rdma_admins" rdmalimits --root="$R" apply @rdma_
	is "apply al: users (options between)" "alice albert" rdmalimits apply --json --root "$R" -q al
	is "apply DOMAIN SIZE: units for a number" "64K 64M 64G 64T" rdmalimits --root "$R" apply @spdk 64
	is "apply DOMAIN SIZE: unlimited" "unlimited" rdmalimits --root "$R" apply @spdk u
	is "apply DOMAIN SIZE extra: nothing" "" rdmalimits --root "$R" apply @spdk 1G ''
	is "remove DOMAIN: the domains of the drop-in" "@rdma_users alice" rdmalimits --root "$R" remove ''
	is "remove @rd: only what the drop-in has" "@rdma_users" rdmalimits --root "$R" remove @rd
	is "remove --file NAME DOMAIN: that drop-in's" "bob" rdmalimits --root "$R" remove --file 50-other.conf ''
	is "remove takes one DOMAIN" "" rdmalimits --root "$R" remove @spdk ''
	is "explain USER: users, no groups" "alice albert" rdmalimits --root "$R" explain a
	is "explain takes no @group" "" rdmalimits --root "$R" explain @
	is "verify USER" "bob" rdmalimits verify --root "$R" b
	is "verify USER given, after --: nothing" "" rdmalimits --root "$R" verify bob --ssh host -- ''
	is "after --: a word with a dash completes as an argument, not an option" "" rdmalimits --root "$R" remove -- --
	is "pin-test SIZE" "8K 8M 8G 8T" rdmalimits pin-test 8
	is "pin-test SIZE: no unlimited (nothing pins an unlimited size)" "" rdmalimits pin-test u
	is "help COMMAND" "pin-test probe" rdmalimits help p
	is "list takes no argument" "" rdmalimits --root "$R" list ''
	has "explain USER: users of this system (NSS)" "root" rdmalimits explain ro
	has "apply @group: groups of this system (NSS)" "@root" rdmalimits apply @ro

	# --- option values
	is "--flavour" "debian debian-12 debian-13 fedora-42 fedora-43 rhel-10 rhel-8 rhel-9 ubuntu-22.04 ubuntu-24.04 upstream" rdmalimits --flavour ''
	is "--flavour=u" "ubuntu-22.04 ubuntu-24.04 upstream" rdmalimits --flavour = u
	is "--soft SIZE" "2K 2M 2G 2T" rdmalimits apply @spdk --soft 2
	is "--hard=SIZE" "unlimited" rdmalimits apply @spdk --hard = un
	is "--file: drop-ins of the root's limits.d" "50-other.conf zz-rdmalimits.conf" \
		rdmalimits --root "$R" apply @spdk 1G --file ''
	is "--service: PAM services of the root" "login sshd systemd-user" rdmalimits --root "$R" explain alice --service ''
	is "--root: directories" "$R/sub" rdmalimits --root "$R/s"
	is "--root=: directories" "$R/sub" rdmalimits --root = "$R/s"
	has "--conf: files" "$R/policy.conf" rdmalimits explain alice --conf "$R/po"
	is "check FILE: files" "$R/policy.conf" rdmalimits check "$R/po"
	PATH=$PATH_WITH_UNITS
	is "--unit: unit files from systemctl, only types with LimitMEMLOCK=" "ib-app.service ib-app.socket" rdmalimits doctor --unit ib
	is "--unit=: unit files" "xdp-fwd.service" rdmalimits apply --unit = x
	is "apply --unit UNIT SIZE: no domain, a size" "4K 4M 4G 4T" rdmalimits apply --unit ib-app.service 4
	is "remove --unit UNIT: nothing more" "" rdmalimits remove --unit ib-app.service ''
	PATH=$PATH_NO_UNITS
	is "--unit without systemd: nothing" "" rdmalimits doctor --unit ''
	PATH=${PATH#"$T/nosystemd:"}
	has "--pid: running processes" "$$" rdmalimits doctor --pid "$$"
	is "an option's value is not taken for the command" "--save" rdmalimits --root "$R" probe --sa
}

# --- without the framework (as when sourced from ~/.bashrc), under set -u
mode=plain
if (
	set -u
	. "$COMPLETION"
	complete -p rdmalimits | grep -q -- '-F _rdmalimits rdmalimits'
); then
	ok "plain: sourcing registers _rdmalimits under set -u"
else
	fail "plain: sourcing registers _rdmalimits under set -u"
fi
. "$COMPLETION"
if declare -F _init_completion >/dev/null; then
	fail "plain: framework already loaded, cannot test without it"
else
	suite
fi

# --- with bash-completion
mode=framework
if [ -r "$FRAMEWORK" ]; then
	set +u
	# shellcheck disable=SC1090
	. "$FRAMEWORK"
	. "$COMPLETION"
	suite
	# bash-completion loads completions on demand from its completions directory
	complete -r rdmalimits
	mkdir -p "$T/xdg/bash-completion/completions"
	cp "$COMPLETION" "$T/xdg/bash-completion/completions/rdmalimits"
	unset -f _rdmalimits
	XDG_DATA_DIRS=$T/xdg BASH_COMPLETION_USER_DIR=$T/none __load_completion rdmalimits
	if declare -F _rdmalimits >/dev/null; then
		ok "framework: loaded on demand from completions/rdmalimits"
	else
		fail "framework: loaded on demand from completions/rdmalimits"
	fi
	set -u
else
	skip_ci "framework: $FRAMEWORK not installed (Debian: bash-completion)"
fi

done_testing
