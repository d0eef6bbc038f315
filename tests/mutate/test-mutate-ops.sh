#!/bin/bash
# The operators of tests/mutate/mutate.py on a small C file: every mutant it should make and
# none in comments, strings, character constants, preprocessor lines or outside functions.
# Fast, no root, no build: the enumeration only.
. "$top_srcdir/tests/tap.sh"
command -v python3 >/dev/null || skip_all "python3 is missing"
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
plan 2

got=$(python3 - "$top_srcdir/tests/mutate" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mutate

text = r'''#define MAX(a, b) ((a) < (b) ? (b) : (a))
static const int table[] = { 1 < 2, 3 };   /* not in a function: left alone */
/* if (a < b) return 1; */
int f(const char *s, int n, int fd) {
        int last = -1;
        if (n < 0 || !s)
                return -22;         // a < b
        for (int i = 0; i < n; i++) {
                if (s[i] == '<')
                        last = i;
                if (s[i] == '"')
                        break;
        }
        fd = openat(fd, "x\"<y /* z", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        return last + 1 >= 10 && fd == 0 ? n - 1 : 0;
}
void g(int n) {
        for (int i = 0; i < n; i++)
                if (i) {
                        int k = i;
                        n = k;
                }
}
'''
src = mutate.Source("t.c", text)
for start, end, repl, op in mutate.mutants_of(src):
    line, col = src.line_col(start)
    print("%d:%d:%s %s" % (line, col, op, repl))
PY
)
# (no const for n < 0: n < -1 is not tried; 15:23 is the 1 of "last + 1 >= 10"; no first for
# the declaration on line 20: in braces of its own k would not be seen on line 21)
expected='6:12:negate (!(n < 0 || !s))
6:15:rel <=
6:19:logic &&
7:17:return ;
8:27:rel <=
9:26:rel !=
10:25:first { last = i; break; }
11:26:rel !=
12:25:last ;
14:50:flag 
14:60:flag 
15:23:const 2
15:21:plus-minus -
15:25:rel >
15:28:const 9
15:31:logic ||
15:37:rel !=
15:40:const 1
15:46:plus-minus +
18:27:rel <=
19:20:negate (!(i))
21:25:first { n = k; break; }'
diff_ok "the mutants of a fixture, none in comments, strings or outside functions" <(echo "$expected") <(echo "$got")

# ids are stable: the same text gives the same list
again=$(python3 - "$top_srcdir/tests/mutate" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import mutate
top = os.path.dirname(os.path.dirname(sys.argv[1]))
files = ["lib/base/size.c", "lib/login/rlimit.c"]
a = [m.id for m in mutate.enumerate_mutants(top, files, ["*"])]
b = [m.id for m in mutate.enumerate_mutants(top, files, ["*"])]
print("same" if a == b and len(a) == len(set(a)) and a else "differ")
PY
)
check "the enumeration is deterministic and its ids unique" [ "$again" = same ]
done_testing
