#!/usr/bin/env python3
"""Mutation testing: put one small fault at a time into the code, run the tests that cover
its file, and count the faults the tests catch.

    ./run mutate [--sample N] [--seed S] [--budget SECS] [--files GLOB...] [--list]

The working tree is never written: its files (tracked, and untracked ones not ignored) are
copied once into a temporary directory, configured and built there once; then each mutant is
written into the copy, rebuilt incrementally (make of just the targets its tests need), its
tests run one after the other, fastest first, until one fails, and the file is put back byte
for byte.  HACKING.md, "Mutation testing", says what each outcome means.
"""

import argparse
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# The files in scope and, for a file only partly in scope, the functions that are.
SCOPE = [
    ("lib/login/*.c", None),
    ("pam_rdmalimit/*.c", None),
    ("lib/base/*.c", None),
    ("lib/session/session.c", None),
    # what rdmalimits adds to the login path's code (moved out of lib/login)
    ("lib/session/rlmodel.c", None),
    ("lib/host/ident-files.c", None),
    # sshdconf.c: whether an ssh login runs the PAM stack at all (a claim explain and verify make)
    ("lib/host/sshdconf.c", None),
    ("lib/host/hwcache-root.c", None),
    ("lib/host/hw-names.c", None),
    ("lib/pam/pamstack.c", None),
    ("lib/pam/pammod.c", None),
    # pamedit.c: the code that keeps the jumps of a PAM file right when a line is added
    ("lib/pam/pamedit.c", r"key_eq|stack_keys|key_find|landing|jump_to|control_kept|"
                            r"line_set_control|pam_file_keep_jumps"),
    ("lib/limits/limits-resolve.c", None),
    # limits-check.c: the judgement that a line never takes effect (a claim made to the admin)
    ("lib/limits/limits-check.c", r"interval|is_range|inverted|range_contains|disjoint|covers|stop_covers|"
                                  r"hard_tried|dead_index_build|first_after|cand_begin|cand_next|"
                                  r"removal_harmless|line_dead"),
]

# The tests that cover each file, fastest and most specific first: a mutant is killed by the
# first that fails.  Unit tests (tests/unit/test-*) are built alone; a shell test needs the
# tool, the module and the check programs that link lib/ (SHELL_TARGETS).
UNIT_BASE = ["tests/unit/test-policy", "tests/unit/test-hwcache", "tests/unit/test-limits"]
COVER = [
    ("lib/base/size.c", ["tests/unit/test-size", "tests/unit/test-limits", "tests/unit/test-flavours",
                         "tests/unit/test-policy", "tests/unit/test-hwcache", "tests/unit/test-rlimit",
                         "tests/tool/test-tool.sh"]),
    ("lib/base/escape.c", ["tests/unit/test-strv", "tests/unit/test-strmap", "tests/unit/test-hwcache",
                           "tests/unit/test-policy", "tests/unit/test-check", "tests/login/test-login-attacks.sh",
                           "tests/tool/test-tool.sh"]),
    ("lib/base/diag.c", ["tests/unit/test-alloc", "tests/unit/test-strv", "tests/unit/test-check", "tests/unit/test-limits",
                         "tests/unit/test-dropin", "tests/unit/test-policy", "tests/tool/test-tool.sh"]),
    ("lib/base/strmap.c", ["tests/unit/test-strmap", "tests/unit/test-alloc", "tests/unit/test-policy", "tests/unit/test-hwcache"]),
    ("lib/base/strv.c", ["tests/unit/test-strv", "tests/unit/test-session", "tests/unit/test-check",
                         "tests/unit/test-policy"]),
    ("lib/base/fsutil.c", ["tests/unit/test-fsutil", "tests/unit/test-hwcache", "tests/unit/test-ident",
                           "tests/unit/test-limits", "tests/unit/test-policy", "tests/unit/test-check",
                           "tests/fault/test-fault.sh", "tests/tool/test-tool.sh",
                           "tests/login/test-login-attacks.sh"]),
    ("lib/base/visit.c", ["tests/unit/test-visit", "tests/unit/test-pamstack", "tests/unit/test-limits",
                          "tests/unit/test-session", "tests/unit/test-alloc", "tests/tool/test-tool.sh"]),
    ("lib/base/*.c", UNIT_BASE + ["tests/tool/test-tool.sh"]),
    ("lib/login/ident.c", ["tests/unit/test-ident", "tests/unit/test-nss", "tests/unit/test-alloc", "tests/unit/test-limits", "tests/unit/test-check",
                           "tests/unit/test-policy", "tests/login/test-login-attacks.sh"]),
    ("lib/login/cfgparse.c", ["tests/unit/test-policy", "tests/unit/test-cfgoracle", "tests/unit/test-alloc",
                              "tests/stress/test-hostile.sh"]),
    ("lib/login/policy.c", ["tests/unit/test-policy", "tests/unit/test-alloc", "tests/unit/test-strv",
                            "tests/login/test-login-attacks.sh", "tests/tool/test-tool.sh"]),
    ("lib/login/hwcache.c", ["tests/unit/test-hwcache", "tests/unit/test-alloc", "tests/unit/test-hwread", "tests/login/test-login-attacks.sh",
                             "tests/login/test-fakesys.sh"]),
    ("lib/login/hw.c", ["tests/unit/test-hwread", "tests/unit/test-xdpprobe", "tests/unit/test-hwcache",
                        "tests/unit/test-policy", "tests/unit/test-apply",
                        "tests/login/test-fakesys.sh", "tests/hw/test-xdp-netns.sh",
                        "tests/login/test-login-attacks.sh"]),
    ("lib/login/netlink.c", ["tests/unit/test-netlink", "tests/unit/test-xdpprobe", "tests/unit/test-xdpdiag",
                             "tests/unit/test-hwread",
                             "tests/login/test-fakesys.sh", "tests/login/test-login-attacks.sh"]),
    ("lib/login/apply.c", ["tests/unit/test-apply", "tests/login/test-login-attacks.sh", "tests/pam/test-module.sh",
                           "tests/spank/test-spank-elf.sh"]),
    ("lib/login/rlimit.c", ["tests/unit/test-rlimit", "tests/unit/test-apply", "tests/unit/test-flavours",
                            "tests/login/test-login-attacks.sh"]),
    ("lib/session/rlmodel.c", ["tests/unit/test-rlimit", "tests/unit/test-session", "tests/unit/test-flavours"]),
    ("lib/host/ident-files.c", ["tests/unit/test-ident", "tests/unit/test-alloc", "tests/unit/test-limits",
                                "tests/unit/test-check", "tests/unit/test-session"]),
    ("lib/host/hwcache-root.c", ["tests/unit/test-hwcache", "tests/tool/test-tool.sh"]),
    ("lib/host/hw-names.c", ["tests/unit/test-hwcache", "tests/tool/test-tool.sh"]),
    ("lib/login/*.c", ["tests/unit/test-policy", "tests/unit/test-hwcache",
                       "tests/login/test-login-attacks.sh"]),
    ("pam_rdmalimit/*.c", ["tests/login/test-login-attacks.sh", "tests/pam/test-module.sh"]),
    ("lib/session/session.c", ["tests/unit/test-session", "tests/unit/test-flavours", "tests/unit/test-limits",
                               "tests/unit/test-alloc", "tests/e2e/test-session-model.sh", "tests/e2e/test-sshd-nopam.sh",
                               "tests/e2e/test-doctor-su.sh"]),
    ("lib/host/sshdconf.c", ["tests/unit/test-sshdconf", "tests/unit/test-session", "tests/unit/test-alloc", "tests/doctor/test-doctor.sh",
                             "tests/e2e/test-sshd-nopam.sh"]),
    ("lib/pam/pamstack.c", ["tests/unit/test-pamstack", "tests/unit/test-alloc", "tests/unit/test-session",
                              "tests/e2e/test-enable-jumps.sh", "tests/e2e/test-session-model.sh"]),
    ("lib/pam/pammod.c", ["tests/unit/test-pamstack", "tests/unit/test-alloc", "tests/tool/test-enable.sh", "tests/agree/test-agree.sh",
                            "tests/doctor/test-doctor.sh"]),
    ("lib/pam/pamedit.c", ["tests/unit/test-pamstack", "tests/unit/test-alloc", "tests/e2e/test-enable-jumps.sh",
                             "tests/tool/test-enable.sh"]),
    ("lib/limits/limits-check.c", ["tests/unit/test-check", "tests/unit/test-limits", "tests/unit/test-alloc"]),
    ("lib/limits/limits-resolve.c", ["tests/unit/test-limits", "tests/unit/test-flavours", "tests/unit/test-check",
                                    "tests/unit/test-session", "tests/unit/test-alloc", "tests/e2e/test-session-model.sh"]),
]
# Without the run without mutants (--no-baseline) a unit test gets this many seconds (they take
# well under one), a shell test what is left of --timeout.
UNIT_TIMEOUT = 20
SHELL_TARGETS = ["rdmalimits", "pam_rdmalimit/pam_rdmalimit.la", "tests/hw/hw-dump"]

CONFIGURE = ["--prefix=/usr", "--sysconfdir=/etc", "--localstatedir=/var"]
# Mutants are compiled without optimisation (a rebuild is several times faster) and without
# -Werror: a mutant that only draws a warning (a dropped return leaves a path without one)
# still builds and is tested.
CFLAGS = "-O0 -g0"

FLAGS = ("O_NOFOLLOW", "O_CLOEXEC", "O_EXCL", "O_NONBLOCK", "AT_SYMLINK_NOFOLLOW")
REL_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
LOGIC_SWAP = {"&&": "||", "||": "&&"}
CONTROL = ("if", "for", "while", "switch")
LOOPS = ("for", "while", "do")

# ---------------------------------------------------------------------------------------------
# Reading C: comments, strings, character constants and preprocessor lines are blanked out
# (same length, newlines kept), so that offsets in the blanked text are offsets in the source.


def blank(src):
    out = list(src)
    i, n, bol = 0, len(src), True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if c == "\n":
            bol = True
            i += 1
            continue
        if bol and c == "#":
            j = i
            while j < n and not (src[j] == "\n" and src[j - 1] != "\\"):
                j += 1
            wipe(i, j)
            i = j
            continue
        if c in " \t":
            i += 1
            continue
        bol = False
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


TOKEN = re.compile(r"""
    (?P<id>[A-Za-z_]\w*)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[uUlLfF]*)
  | (?P<str>"[^"\n]*"|'[^'\n]*')
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.(){}\[\]])
""", re.X)


class Tok:
    __slots__ = ("kind", "text", "start", "end", "match", "parent")

    def __init__(self, m):
        self.kind = m.lastgroup
        self.text = m.group()
        self.start, self.end = m.span()
        self.match = None     # the index of the matching bracket
        self.parent = None    # the index of the innermost enclosing '{'


class Source:
    def __init__(self, path, text):
        self.path, self.text = path, text
        self.blanked = blank(text)
        self.toks = [Tok(m) for m in TOKEN.finditer(self.blanked)]
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._brackets()
        self.functions = self._functions()

    def _brackets(self):
        stack, braces = [], []
        pairs = {")": "(", "]": "[", "}": "{"}
        for i, t in enumerate(self.toks):
            t.parent = braces[-1] if braces else None
            if t.text in "([{" and t.kind == "op":
                stack.append(i)
                if t.text == "{":
                    braces.append(i)
            elif t.text in ")]}" and t.kind == "op":
                if not stack or self.toks[stack[-1]].text != pairs[t.text]:
                    raise ValueError("%s: unbalanced %r at offset %d" % (self.path, t.text, t.start))
                o = stack.pop()
                self.toks[o].match, t.match = i, o
                if t.text == "}":
                    braces.pop()
                    t.parent = braces[-1] if braces else None

    def _functions(self):
        """(name, index of '{', index of '}') of each function definition"""
        out = []
        for i, t in enumerate(self.toks):
            if t.text == "{" and t.parent is None and i > 0 and self.toks[i - 1].text == ")":
                o = self.toks[i - 1].match
                if o > 0 and self.toks[o - 1].kind == "id":
                    out.append((self.toks[o - 1].text, i, t.match))
        return out

    def function_of(self, i):
        for name, a, b in self.functions:
            if a < i < b:
                return name
        return None

    def header(self, b):
        """what the '{' at index b opens: a control keyword, 'else', 'do', 'function' or 'block'"""
        p = b - 1
        if p < 0:
            return "block", None
        t = self.toks[p]
        if t.text == ")":
            o = t.match
            if o > 0 and self.toks[o - 1].text in CONTROL:
                return self.toks[o - 1].text, o - 1
            if self.toks[b].parent is None:
                return "function", None
        if t.text in ("else", "do"):
            return t.text, p
        return "block", p

    def context(self, s):
        """the statements around the statement that starts at token s, innermost first"""
        out = []
        while s is not None and s > 0:
            t = self.toks[s - 1]
            if t.text == ")" and t.match > 0 and self.toks[t.match - 1].text in CONTROL:
                out.append(self.toks[t.match - 1].text)
                s = t.match - 1
                continue
            if t.text in ("else", "do"):
                out.append(t.text)
                s -= 1
                continue
            b = self.toks[s].parent
            if b is None:
                break
            kind, at = self.header(b)
            if kind == "function":
                break
            if kind != "block":
                out.append(kind)
            s = at if at is not None else b
        return out

    def line_col(self, off):
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, off - self.line_starts[lo] + 1

    def line_text(self, line, text=None):
        text = self.text if text is None else text
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        a = starts[line - 1]
        e = text.find("\n", a)
        return text[a:e if e >= 0 else len(text)]


def breakable(ctx):
    """the innermost statement a 'break' leaves"""
    for k in ctx:
        if k in LOOPS or k == "switch":
            return k
    return None


def statement_end(src, i):
    """the index of the ';' that ends the statement starting at token i (brackets skipped)"""
    toks = src.toks
    while i < len(toks):
        t = toks[i]
        if t.text in "([{" and t.kind == "op":
            i = t.match + 1
            continue
        if t.text in (";", "}"):
            return i if t.text == ";" else None
        i += 1
    return None


def is_statement_start(src, i):
    return i > 0 and src.toks[i - 1].text in (";", "{", "}", ")", "else", "do") and \
        not (src.toks[i - 1].text == ")" and src.toks[src.toks[i - 1].match - 1].text not in CONTROL)


def top_level_ops(toks, a, b):
    """the relational and logical operators of tokens a..b-1 outside brackets"""
    out, i = [], a
    while i < b:
        t = toks[i]
        if t.kind == "op" and t.text in "([{":
            i = t.match + 1
            continue
        if t.kind == "op" and (t.text in REL_SWAP or t.text in LOGIC_SWAP or t.text == "?"):
            out.append(t.text)
        i += 1
    return out


def is_operand_end(t):
    return t.kind in ("id", "num", "str") or t.text in (")", "]")


def int_value(text):
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)", text)
    if not m:
        return None
    digits, suffix = m.groups()
    if digits.lower().startswith("0x"):
        return int(digits, 16), "hex", suffix
    if len(digits) > 1 and digits.startswith("0"):
        return None  # octal: left alone
    return int(digits), "dec", suffix


def mutants_of(src):
    """every mutant of one file: (offset, end, replacement, operator), in file order"""
    toks, out = src.toks, []

    def add(a, b, repl, op):
        out.append((toks[a].start, toks[b].end, repl, op))

    for i, t in enumerate(toks):
        if t.parent is None and t.text != "{":
            continue                      # outside function bodies and initialisers
        if src.function_of(i) is None:
            continue
        prev = toks[i - 1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if t.kind == "op" and t.text in REL_SWAP:
            add(i, i, REL_SWAP[t.text], "rel")
        elif t.kind == "op" and t.text in LOGIC_SWAP:
            add(i, i, LOGIC_SWAP[t.text], "logic")
        elif t.text == "return" and t.kind == "id":
            ctx = src.context(i)
            e = statement_end(src, i)
            if ctx and ctx[0] in ("if", "else") and e is not None:
                add(i, e, ";", "return")
        elif t.kind == "id" and t.text in FLAGS:
            if nxt is not None and nxt.text == "|":
                out.append((t.start, toks[i + 2].start, "", "flag"))
            elif prev is not None and prev.text == "|":
                out.append((toks[i - 2].end, t.end, "", "flag"))
            else:
                add(i, i, "0", "flag")
        elif t.text == "if" and t.kind == "id" and nxt is not None and nxt.text == "(":
            close = nxt.match
            inner = src.text[toks[i + 2].start:toks[close - 1].end]
            if top_level_ops(toks, i + 2, close) not in (["=="], ["!="]):   # else the same as "rel"
                add(i + 1, close, "(!(" + inner + "))", "negate")
        elif t.kind == "num":
            v = int_value(t.text)
            op = prev.text if prev is not None and prev.text in REL_SWAP else \
                MIRROR.get(nxt.text) if nxt is not None else None
            if v is not None and op:
                # x < c+1 would be x <= c, and x >= c+1 x > c: the "rel" mutants; so c-1 there
                value, base, suffix = v
                value += -1 if op in ("<", ">=") else 1
                if value >= 0:
                    add(i, i, (hex(value) if base == "hex" else str(value)) + suffix, "const")
            if t.text == "1" and prev is not None and prev.text in ("+", "-") and i >= 2 and \
                    is_operand_end(toks[i - 2]):
                add(i - 1, i - 1, "-" if prev.text == "+" else "+", "plus-minus")
        elif t.text == "break" and nxt is not None and nxt.text == ";":
            ctx = src.context(i)
            if ctx and ctx[0] in ("if", "else") and breakable(ctx) in LOOPS:
                add(i, i + 1, ";", "last")
        if (t.kind == "id" or t.text == "*") and is_statement_start(src, i):
            first_last_assign(src, i, add)
    return out


def first_last_assign(src, i, add):
    """an assignment under an 'if' in a loop: stop the loop there (keep the first match)"""
    toks = src.toks
    e = statement_end(src, i)
    if e is None:
        return
    eq = [k for k in range(i, e) if toks[k].text == "=" and toks[k].kind == "op"]
    if len(eq) != 1 or any(toks[k].text in ("(", "{") for k in range(i, eq[0])):
        return
    if any(toks[k].kind == "id" and toks[k + 1].kind == "id" for k in range(i, eq[0] - 1)) or \
            toks[i].text in ("const", "static", "struct", "enum", "unsigned"):
        return      # a declaration: in braces of its own it would not be seen after them
    if toks[i].text in ("return", "break", "continue", "goto") or \
            (e + 1 < len(toks) and toks[e + 1].text == "break"):
        return
    ctx = src.context(i)
    if not ctx or ctx[0] not in ("if", "else") or breakable(ctx) not in LOOPS:
        return
    stmt = src.text[toks[i].start:toks[e].end]
    add(i, e, "{ " + stmt + " break; }", "first")


# ---------------------------------------------------------------------------------------------


class Mutant:
    def __init__(self, src, start, end, repl, op):
        self.file, self.start, self.end, self.repl, self.op = src.path, start, end, repl, op
        self.line, self.col = src.line_col(start)
        self.id = "%s:%d:%d:%s" % (self.file, self.line, self.col, op)
        mutated = src.text[:start] + repl + src.text[end:]
        self.fn = next((name for name, a, b in src.functions
                        if src.toks[a].start < start < src.toks[b].end), "")
        self.before = src.line_text(self.line).strip()
        self.after = src.line_text(self.line, mutated).strip()
        self.status, self.by, self.seconds = None, None, 0.0

    def key(self):
        """what HACKING.md's list of equivalent mutants matches"""
        return (self.file, self.op, self.fn, self.before, self.after)

    def apply(self, text):
        return text[:self.start] + self.repl + text[self.end:]


def in_scope(path, patterns):
    for pat, funcs in SCOPE:
        if fnmatch.fnmatchcase(path, pat) and any(fnmatch.fnmatchcase(path, p) for p in patterns):
            return True, funcs
    return False, None


def tests_for(path):
    for pat, tests in COVER:
        if fnmatch.fnmatchcase(path, pat):
            return tests
    return []


def enumerate_mutants(top, files, patterns):
    out = []
    for path in sorted(files):
        ok, funcs = in_scope(path, patterns)
        if not ok or not os.path.isfile(os.path.join(top, path)):
            continue
        with open(os.path.join(top, path), encoding="utf-8", errors="surrogateescape") as f:
            src = Source(path, f.read())
        seen = set()
        for start, end, repl, op in mutants_of(src):
            if funcs:
                fn = None
                for name, a, b in src.functions:
                    if src.toks[a].start < start < src.toks[b].end:
                        fn = name
                if fn is None or not re.fullmatch(funcs, fn):
                    continue
            m = Mutant(src, start, end, repl, op)
            if m.id in seen:
                continue
            seen.add(m.id)
            out.append(m)
    return out


def equivalents(hacking):
    """the known equivalent mutants, from HACKING.md: "- `ID` in `function()`: `before` → `after`:
    reason", matched by file, operator, function and the two lines (not by the line number,
    which moves as the code above is edited)"""
    known = {}
    try:
        with open(hacking, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"- `([^`:]+):\d+:\d+:([a-z-]+)` in `(\w*)\(\)`: `(.*)` → `(.*)`: (.*)",
                             line.rstrip("\n"))
                if m:
                    f_, op, fn, before, after, why = m.groups()
                    known[(f_, op, fn, before.strip(), after.strip())] = why
    except OSError:
        pass
    return known


# ---------------------------------------------------------------------------------------------
# Running


def say(msg):
    print(msg, file=sys.stderr, flush=True)


# What an outer make (the CI sample runs under `make check`) passes down: its command line
# (TEST_LOGS of the harness, FUZZ_TIME) would override what the copy's make is asked for.
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS")


def clean_env(base=None):
    e = dict(os.environ if base is None else base)
    for k in MAKE_VARS:
        e.pop(k, None)
    return e


def git_files(top):
    """the files git knows in top: tracked, and untracked ones that are not ignored"""
    out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, stdout=subprocess.PIPE).stdout
    return sorted(set(out.decode("utf-8", "surrogateescape").split("\0")) - {""})


def run(cmd, cwd, timeout=None, env=None):
    """(returncode or None on timeout, output); the whole process group is killed on timeout"""
    p = subprocess.Popen(cmd, cwd=cwd, env=clean_env(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


class Tree:
    def __init__(self, top, work, jobs, sanitizers=False):
        self.top, self.work, self.jobs, self.sanitizers = top, work, jobs, sanitizers
        self.src = os.path.join(work, "src")
        self.build = os.path.join(work, "build")

    def copy(self):
        for rel in git_files(self.top):
            a, b = os.path.join(self.top, rel), os.path.join(self.src, rel)
            if not os.path.lexists(a) or os.path.isdir(a) and not os.path.islink(a):
                continue
            os.makedirs(os.path.dirname(b), exist_ok=True)
            if os.path.islink(a):
                os.symlink(os.readlink(a), b)
            else:
                shutil.copy2(a, b)

    def setup(self):
        os.makedirs(self.build)
        steps = [(["./autogen.sh"], self.src),
                 ([os.path.join(self.src, "configure")] + CONFIGURE + ["CFLAGS=" + CFLAGS] +
                  (["--enable-sanitizers"] if self.sanitizers else []), self.build),
                 (["make", "-j%d" % self.jobs], self.build),
                 (["make", "-j%d" % self.jobs, "check", "TESTS="], self.build)]
        for cmd, cwd in steps:
            rc, out = run(cmd, cwd)
            if rc != 0:
                raise RuntimeError("%s failed in the copy:\n%s" % (" ".join(cmd), out[-3000:]))

    def make(self, targets):
        rc, out = run(["make", "-s", "-j%d" % self.jobs] + targets, self.build)
        return rc == 0, out

    def env(self):
        e = dict(os.environ)
        e.update(CMOCKA_MESSAGE_OUTPUT="TAP", top_srcdir=self.src, top_builddir=self.build,
                 RDMALIMITS=os.path.join(self.build, "rdmalimits"),
                 PAM_MODULE=os.path.join(self.build, "pam_rdmalimit/.libs/pam_rdmalimit.so"),
                 MODULE_SYSCONFDIR="/etc")
        if self.sanitizers:   # as ./run's sanitize()
            e.update(ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1",
                     LSAN_OPTIONS="suppressions=" + os.path.join(self.src, "tests/fuzz/lsan.supp"),
                     UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1", RDMALIMIT_SANITIZED="1")
        verbs = re.search(r"^have_libibverbs = (\S*)", open(os.path.join(self.build, "Makefile")).read(), re.M)
        e["BUILT_WITH_VERBS"] = verbs.group(1) if verbs else "yes"
        return e

    def run_test(self, test, timeout):
        """'pass', 'fail' or 'timeout'"""
        if test.endswith(".sh"):
            cmd = ["bash", os.path.join(self.src, test)]
        else:
            cmd = [os.path.join(self.build, test)]
        rc, out = run(cmd, self.build, timeout=timeout, env=self.env())
        if rc is None:
            return "timeout", out
        bad = re.search(r"^(not ok|Bail out!)", out, re.M) and not re.search(r"^not ok .*# TODO", out, re.M)
        return ("fail" if rc != 0 or bad else "pass"), out


def targets_of(test):
    return SHELL_TARGETS if test.endswith(".sh") else [test]


def baseline(tree, tests):
    """each test once on the unmutated copy: its time, and the tests that fail already"""
    times, broken = {}, []
    for t in tests:
        ok, out = tree.make(targets_of(t))
        t0 = time.monotonic()
        res, out = tree.run_test(t, timeout=600) if ok else ("fail", out)
        times[t] = time.monotonic() - t0
        if res != "pass":
            broken.append(t)
            say("mutate: %s fails without any mutant: left out\n%s" % (t, out[-1500:]))
    return times, broken


def run_mutant(tree, m, tests, times, limit):
    path = os.path.join(tree.src, m.file)
    with open(path, "rb") as f:
        original = f.read()
    text = original.decode("utf-8", "surrogateescape")
    t0 = time.monotonic()
    try:
        with open(path, "wb") as f:
            f.write(m.apply(text).encode("utf-8", "surrogateescape"))
        built = set()
        m.status = "survived"
        for t in tests:
            need = [x for x in targets_of(t) if x not in built]
            if need:
                ok, out = tree.make(need)
                if not ok:
                    m.status, m.by = "build-failed", out.strip().splitlines()[-1:] or [""]
                    m.by = m.by[0]
                    break
                built.update(need)
            left = limit - (time.monotonic() - t0)
            res, _ = tree.run_test(t, timeout=max(5.0, min(left, 10 * times[t] + 10 if t in times else
                                                           UNIT_TIMEOUT if not t.endswith(".sh") else left)))
            if res != "pass":
                m.status, m.by = ("timeout" if res == "timeout" else "killed"), t
                break
    finally:
        with open(path, "wb") as f:
            f.write(original)
        with open(path, "rb") as f:
            if f.read() != original:
                raise RuntimeError("%s: could not be restored" % path)
    m.seconds = time.monotonic() - t0


def report(mutants, known, out=sys.stdout):
    ran = [m for m in mutants if m.status]
    killed = [m for m in ran if m.status in ("killed", "timeout")]
    survived = [m for m in ran if m.status == "survived"]
    nobuild = [m for m in ran if m.status == "build-failed"]
    timeouts = [m for m in ran if m.status == "timeout"]
    for m in survived:
        why = known.get(m.key())
        print("survived: %s%s" % (m.id, " (equivalent: %s)" % why if why else ""), file=out)
        print("  - %s\n  + %s" % (m.before, m.after), file=out)
    for what, of in (("file", lambda m: m.file), ("operator", lambda m: m.op)):
        counts = {}
        for m in killed + survived:
            c = counts.setdefault(of(m), [0, 0])
            c[0] += m in killed
            c[1] += 1
        if len(counts) > 1:
            print("by %s: %s" % (what, ", ".join("%s %d/%d" % (k, c[0], c[1]) for k, c in sorted(counts.items()))),
                  file=out)
    n = len(killed) + len(survived)
    equivalent = sum(1 for m in survived if m.key() in known)
    print("score: %d killed of %d (%.1f%%)" % (len(killed), n, percent(len(killed), n)), file=out)
    print("without the %d known equivalent: %d of %d (%.1f%%)" % (equivalent, len(killed), n - equivalent,
                                                             percent(len(killed), n - equivalent)), file=out)
    print("timeouts (counted as killed): %d; did not compile (not counted): %d; not run (budget): %d" %
          (len(timeouts), len(nobuild), len(mutants) - len(ran)), file=out)
    return percent(len(killed), n - equivalent)


def percent(k, n):
    return 100.0 * k / n if n else 100.0


def tap(mutants, known, seed, out=sys.stdout):
    """the CI sample as TAP: a survivor not known to be equivalent is a TODO (visible, not fatal)"""
    print("1..%d" % len(mutants), file=out)
    print("# seed %s" % seed, file=out)
    for k, m in enumerate(mutants, 1):
        key = m.key()
        if m.status in ("killed", "timeout"):
            print("ok %d - %s %s by %s" % (k, m.id, "timed out (killed)" if m.status == "timeout" else "killed",
                                          m.by), file=out)
        elif m.status == "build-failed":
            print("ok %d - %s does not compile (not counted)" % (k, m.id), file=out)
        elif m.status is None:
            print("ok %d # SKIP %s not run: the time budget is spent" % (k, m.id), file=out)
        elif key in known:
            print("ok %d - %s survives, a known equivalent mutant: %s" % (k, m.id, known[key]), file=out)
        else:
            print("not ok %d - %s survived: no test caught it # TODO add a test that fails on it" % (k, m.id),
                  file=out)
            print("#   - %s\n#   + %s" % (m.before, m.after), file=out)


def threaded(trees, fn, errors):
    """fn(tree) for each tree, each in a thread of its own; their exceptions go to errors"""
    def body(tree):
        try:
            fn(tree)
        except Exception as e:  # noqa: BLE001 -- handed to the main thread
            errors.append(e)
    ts = [threading.Thread(target=body, args=(tree,)) for tree in trees]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def result_key(sha, m_id, after):
    """A mutant's key in --results: the content of its file (sha256), its place and operator
    in it (the id without the path) and the mutated line: an outcome stays valid while the file
    is byte for byte the same, wherever it moves, and only then."""
    return (sha, m_id.split(":", 1)[1], after)


def file_shas(top, files):
    shas = {}
    for f in files:
        with open(os.path.join(top, f), "rb") as fh:
            shas[f] = hashlib.sha256(fh.read()).hexdigest()
    return shas


def load_results(path):
    """The outcomes in FILE by result_key(); lines without a "sha" (written before it was
    recorded) are not used."""
    done = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if "sha" in r:
                    done[result_key(r["sha"], r["id"], r["after"])] = (r["status"], r["by"], r["seconds"])
    return done


def main(argv=None):
    ap = argparse.ArgumentParser(prog="./run mutate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, metavar="N", help="run N mutants picked with --seed")
    ap.add_argument("--seed", default="0", help="the seed of --sample (default 0)")
    ap.add_argument("--budget", type=float, metavar="SECS",
                    help="start no mutant after SECS seconds (the rest is reported as not run)")
    ap.add_argument("--timeout", type=float, default=300, metavar="SECS",
                    help="the most one mutant's tests may take (default 300); a timeout counts as killed")
    ap.add_argument("--files", nargs="+", metavar="GLOB", default=["*"],
                    help="only the files in scope that match one of the GLOBs")
    ap.add_argument("--ids", metavar="FILE",
                    help="only the mutants whose ids FILE lists, one a line (e.g. the survivors of a run)")
    ap.add_argument("--list", action="store_true", help="list the mutants and their tests, run nothing")
    ap.add_argument("--min-score", type=float, metavar="PERCENT",
                    help="exit 1 when the score without the known equivalent mutants is below PERCENT")
    ap.add_argument("--tap", action="store_true", help="print TAP (the CI sample)")
    ap.add_argument("--order", choices=("file", "random"), default="file",
                    help="run the mutants file by file (fewer rebuilds) or in a seeded random order (a run "
                         "stopped early is then a fair sample)")
    ap.add_argument("--results", metavar="FILE",
                    help="append each mutant's outcome to FILE (JSON lines); mutants FILE already has are "
                         "not run again")
    ap.add_argument("--sanitizers", action="store_true",
                    help="build the copy with ASan and UBSan (./run's sanitizer build): a mutant that reads "
                         "or writes out of bounds, or leaks, is caught even when no assertion fails; the "
                         "tests that do not run under them fail without mutants and are left out")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not run each test once without mutants first (a test that fails already then "
                         "kills every mutant: for CI, where that test fails on its own anyway)")
    ap.add_argument("--jobs", type=int, default=2, help="make -j of each copy (default 2)")
    ap.add_argument("--workers", type=int, default=1,
                    help="copies of the tree working side by side (default 1; 2 with --jobs 1 keeps two "
                         "cores busy, where one copy mostly waits on one link at a time)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy")
    a = ap.parse_args(argv)

    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, stdout=subprocess.PIPE,
                         cwd=os.path.dirname(os.path.abspath(__file__))).stdout.decode().strip()
    mutants = enumerate_mutants(top, [f for f in git_files(top) if f.endswith(".c")], a.files)
    if a.sample is not None and a.sample < len(mutants):
        mutants = sorted(random.Random(str(a.seed)).sample(mutants, a.sample), key=lambda m: (m.file, m.start))
    if a.ids:
        with open(a.ids) as f:
            wanted = {line.split()[0] for line in f if line.strip()}
        mutants = [m for m in mutants if m.id in wanted]
    if a.order == "random":
        random.Random(str(a.seed)).shuffle(mutants)
    known = equivalents(os.path.join(top, "HACKING.md"))
    if a.list:
        for m in mutants:
            print("%s\t%s\t%s" % (m.id, m.after, " ".join(tests_for(m.file))))
        print("%d mutants" % len(mutants), file=sys.stderr)
        return 0
    if not a.tap:
        say("mutate: %d mutants, seed %s" % (len(mutants), a.seed))

    done = load_results(a.results)
    shas = file_shas(top, sorted({m.file for m in mutants}))
    todo = []
    for k, m in enumerate(mutants, 1):
        key = result_key(shas[m.file], m.id, m.after)
        if key in done:
            m.status, m.by, m.seconds = done[key]
        else:
            todo.append((k, m))
    work = tempfile.mkdtemp(prefix="rdmalimit-mutate.")
    t0 = time.monotonic()
    try:
        # nothing left to run (all in --results): no copy to build, just the report
        trees = [Tree(top, os.path.join(work, str(w)), a.jobs, a.sanitizers)
                 for w in range(a.workers if todo else 0)]
        for tree in trees:
            tree.copy()
        errors = []
        threaded(trees, lambda tree: tree.setup(), errors)
        if errors:
            raise errors[0]
        tests = sorted({t for m in mutants for t in tests_for(m.file)})
        times, broken = ({}, []) if a.no_baseline or not trees else baseline(trees[0], tests)
        results = open(a.results, "a") if a.results else None
        lock = threading.Lock()

        def work_on(tree):
            while True:
                with lock:
                    if not todo:
                        return
                    if a.budget is not None and time.monotonic() - t0 > a.budget:
                        say("mutate: the budget of %gs is spent: %d mutants not run" % (a.budget, len(todo)))
                        todo.clear()
                        return
                    k, m = todo.pop(0)
                run_mutant(tree, m, [t for t in tests_for(m.file) if t not in broken], times, a.timeout)
                with lock:
                    if not a.tap:
                        say("[%d/%d] %s %s%s (%.1fs)" % (k, len(mutants), m.id, m.status,
                                                        " by " + m.by if m.by else "", m.seconds))
                    if results:
                        results.write(json.dumps({"id": m.id, "sha": shas[m.file], "status": m.status, "by": m.by,
                                                  "seconds": round(m.seconds, 2), "before": m.before,
                                                  "after": m.after}) + "\n")
                        results.flush()

        threaded(trees, work_on, errors)
        if errors:
            raise errors[0]
    finally:
        if a.keep:
            say("mutate: the copy is kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if a.tap:
        tap(mutants, known, a.seed)
        report(mutants, known, out=sys.stderr)
        return 0
    score = report(mutants, known)
    print("took %ds" % (time.monotonic() - t0))
    if a.min_score is not None and score < a.min_score:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
