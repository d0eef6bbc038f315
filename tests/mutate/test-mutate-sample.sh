#!/bin/bash
# A seeded sample of the mutation runner (tests/mutate/mutate.py, HACKING.md "Mutation
# testing"): 20 mutants of the login path, lib/base and the session engine, each built in a
# copy of the tree and run against the tests of its file.  A mutant the tests catch, or one
# that does not compile, is "ok"; a survivor listed in HACKING.md as equivalent is "ok" with
# its reason; any other survivor is "not ok ... # TODO": automake counts it as an expected
# failure (XFAIL), so it shows in ./run test's output without failing it.  The seed is the
# UTC date (MUTATE_SEED overrides it), printed first: the same day gives the same mutants.
# Root: the shell tests of the login path run in namespaces.
. "$top_srcdir/tests/tap.sh"

require_root "test-mutate-sample"
command -v python3 >/dev/null || skip_all "python3 is missing"
git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
	skip_all "not a git checkout: the runner copies the tree by git ls-files"

seed=${MUTATE_SEED:-$(date -u +%Y%m%d)}
# a budget well inside 5 minutes on 2 cores: no mutant starts after 190 s, none runs over 100 s
exec python3 "$top_srcdir/tests/mutate/mutate.py" --tap --no-baseline \
	--sample "${MUTATE_SAMPLE:-20}" --seed "$seed" --budget 190 --timeout 100
