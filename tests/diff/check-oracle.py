#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The oracle of `rdmalimits check`; runs INSIDE the namespaces test-check-oracle.sh sets up
(as difftest.py does: /etc/passwd, /etc/group and /etc/security are bind mounts of ROOT/etc).

For each random tree of gen.py (symbolic links in limits.d replaced by copies, so that each
file is one file), `rdmalimits check --json` runs through NSS.  Every line it says "never
takes effect" is then put on trial with the real pam_limits.so (tests/diff/pam-session): a
session of every user of the tree, with the tree as it is, with the line's value changed to
a value no other line has, and with the line removed.  If any session differs, check was
wrong: the line did take effect (or removing it changes a login).

Prints one TAP line numbered --tap-start and "# counts: trees=N judged=D violations=V".
"""

import argparse
import copy
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import difftest  # noqa: E402

KiB = 1024
WS = b" \t\n\v\f\r"
DEAD_IDS = {"shadowed-entry", "unreachable-entry", "duplicate-entry"}


def materialize(tree):
    """Symbolic links in limits.d as copies of what they point to."""
    files = {n: d for n, k, d in tree.dropins if k == "file"}
    out = []
    for n, k, d in tree.dropins:
        if k == "symlink" and d in files:
            out.append((n, "file", files[d]))
        elif k == "symlink" and d == "../limits.conf" and tree.conf is not None:
            out.append((n, "file", tree.conf))
        else:
            out.append((n, k, d))
    tree.dropins = out
    return tree


def copy_tree(tree):
    t = copy.copy(tree)
    t.dropins = list(tree.dropins)
    t.test_users = list(tree.test_users)
    return t


def get_file(tree, path):
    if path == "/etc/security/limits.conf":
        return tree.conf
    for n, k, d in tree.dropins:
        if "/etc/security/limits.d/" + n == path and k == "file":
            return d
    return None


def set_file(tree, path, data):
    if path == "/etc/security/limits.conf":
        tree.conf = data
        return
    tree.dropins = [(n, k, data if "/etc/security/limits.d/" + n == path else d) for n, k, d in tree.dropins]


def fourth_word_span(line):
    """(start, end) of the value as the 1.5.2 reader splits the line, or None."""
    end = len(line)
    for stop in (b"\0", b"#"):
        k = line.find(stop, 0, end)
        if k >= 0:
            end = k
    spans, i = [], 0
    while i < end and len(spans) < 4:
        while i < end and line[i] in WS:
            i += 1
        if i >= end:
            break
        j = i
        while j < end and line[j] not in WS:
            j += 1
        spans.append((i, j))
        i = j
    return spans[3] if len(spans) == 4 else None


def mutate(tree, path, lineno, how, marker):
    """A copy of tree with physical line lineno of path changed, or None when it cannot be."""
    data = get_file(tree, path)
    if data is None:
        return None
    lines = data.split(b"\n")
    if lineno < 1 or lineno > len(lines):
        return None
    ln = lines[lineno - 1]
    if len(ln) + 1 > 1023:
        return None          # read in pieces: the finding is about one piece
    if how == "remove":
        lines[lineno - 1] = b""
    else:
        span = fourth_word_span(ln)
        if not span:
            return None
        lines[lineno - 1] = ln[:span[0]] + marker + ln[span[1]:]
    t = copy_tree(tree)
    set_file(t, path, b"\n".join(lines))
    return t


class Oracle:
    def __init__(self, a):
        self.a = a
        self.env = difftest.Env(a)
        self.env.check_mounts()
        self.start = (64 * KiB, self.env.top)
        self.trees = self.judged = self.unjudged = self.violations = self.sessions = 0
        self.dead_by_id = {}

    def sessions_of(self, tree):
        tree.write(self.a.root)
        out = {}
        for u in tree.test_users:
            out[u] = self.env.pam(u, self.start)
            self.sessions += 1
        return out

    def check(self, tree):
        tree.write(self.a.root)
        p = subprocess.run([self.a.rdmalimits, "check", "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        try:
            return json.loads(p.stdout)["findings"]
        except (ValueError, KeyError):
            raise RuntimeError("check --json failed (exit %d): %s" % (p.returncode, p.stderr[:500]))

    def one(self, label, tree):
        self.trees += 1
        findings = self.check(tree)
        dead = []
        for f in findings:
            if f.get("id", "shadowed-entry") in DEAD_IDS and "never takes effect" in f.get("message", "") and f.get("line"):
                dead.append((f["file"], f["line"], f.get("id", "(no id)"), f["message"]))
        if not dead:
            return
        base = self.sessions_of(tree)
        for k, (path, lineno, fid, msg) in enumerate(dict.fromkeys(dead)):
            self.dead_by_id[fid] = self.dead_by_id.get(fid, 0) + 1
            marker = str(5003 + 7 * k).encode()
            tried = False
            for how in ("value", "remove"):
                t = mutate(tree, path, lineno, how, marker)
                if t is None:
                    continue
                tried = True
                got = self.sessions_of(t)
                diff = [(u, base[u], got[u]) for u in tree.test_users if base[u] != got[u]]
                if diff:
                    self.violations += 1
                    text = "check said %s:%d %s (%s)\nwith the line's %s %s, sessions changed: %s" % (
                        path, lineno, fid, msg, how, "changed to " + marker.decode() if how == "value" else "removed",
                        "; ".join("%s %s -> %s" % d for d in diff))
                    print("# VIOLATION tree %s: %s" % (label, text.replace("\n", "\n#   ")))
                    self.env.save_failure("%s-%d" % (label, lineno), text + "\n\n" + tree.describe() + "\n",
                                          copy_root=False)
                    break
            if tried:
                self.judged += 1
            else:
                self.unjudged += 1
        tree.write(self.a.root)


def dense_text(rng, t, n):
    """Many well-formed memlock lines over few users: where ranks, the '-' quirk and the
    no-limits stop meet."""
    users = [u[0] for u in t.users]
    groups = [g[0] for g in t.groups]
    ids = sorted({u[1] for u in t.users} | {u[2] for u in t.users} | {g[1] for g in t.groups})
    out = []
    for _ in range(n):
        a, b = sorted((rng.choice(ids), rng.choice(ids)))
        dom = gen.pick(rng, [(10, lambda r: r.choice(users)), (8, lambda r: "@" + r.choice(groups)),
                             (5, "*"), (3, lambda r: "%d:%d" % (a, b)), (2, lambda r: "%d:" % a),
                             (2, lambda r: "@%d:%d" % (a, b)), (1, "0:"), (1, "@0:"),
                             (1, lambda r: "@:%d" % r.choice(ids)), (1, lambda r: ":%d" % r.choice(ids))])
        if rng.random() < 0.05 and dom != "*":
            out.append("%s -" % dom)
            continue
        out.append("%s %s memlock %s" % (dom, rng.choice(["soft", "hard", "-", "-"]),
                                         rng.choice(["1024", "2048", "4096", "512", "8192", "unlimited", "64"])))
    return ("\n".join(out) + "\n").encode()


def dense_tree(rng):
    t = gen.Tree()
    gen.make_identities(rng, t)
    t.conf = dense_text(rng, t, rng.randint(2, 8))
    for n in rng.sample(["10-a.conf", "50-b.conf", "z.conf"], rng.randint(0, 3)):
        t.dropins.append((n, "file", dense_text(rng, t, rng.randint(1, 5))))
    return t


def fixed_trees():
    """Trees where a check that ignores the '-' quirk or the no-limits stop goes wrong."""
    def t(conf, dropins=()):
        tree = difftest.fact_tree(conf, dropins)
        tree.test_users = [u[0] for u in tree.users]
        return tree
    return [
        # alice's soft slot refuses the '-' line, so her hard limit is line 1's
        ("quirk", t("@rdma hard memlock 1024\nalice soft memlock 1024\n@rdma - memlock 4096\n")),
        # the same across files
        ("quirk-files", t("@rdma hard memlock 1024\n", [("a.conf", "alice soft memlock 1024\n"),
                                                          ("b.conf", "@rdma - memlock 4096\n")])),
        # a no-limits line for alice: nothing of the later file is read for her
        ("stop", t("alice -\n* soft memlock 1024\n", [("z.conf", "* soft memlock 2048\n")])),
    ]


def main():
    ap = argparse.ArgumentParser()
    difftest.add_driver_args(ap)
    # what difftest.Env may read beyond the above: no other oracles, no model driver
    ap.set_defaults(oracles="", model_session=None, conf=None)
    a = ap.parse_args()
    o = Oracle(a)
    if a.first == 0:
        for label, tree in fixed_trees():
            o.one(label, tree)
    for i in range(a.first, a.last):
        rng = random.Random(gen.tree_seed(a.seed, i))
        # every other tree: dense memlock lines (gen.py's grammar-wide trees the rest)
        tree = dense_tree(rng) if i % 2 else materialize(gen.make_tree(rng))
        o.one("%s/%d" % (a.seed, i), tree)
    desc = "check oracle, trees %d..%d: %d lines said to never take effect judged by %d real sessions (%s)" % (
        a.first, a.last - 1, o.judged, o.sessions, ", ".join("%s %d" % kv for kv in sorted(o.dead_by_id.items())) or "none")
    print("%s %d - %s%s" % ("not ok" if o.violations else "ok", a.tap_start, desc,
                            ": %d violations" % o.violations if o.violations else ""))
    print("# counts: trees=%d judged=%d unjudged=%d violations=%d sessions=%d" % (
        o.trees, o.judged, o.unjudged, o.violations, o.sessions))
    return 1 if o.violations else 0


if __name__ == "__main__":
    sys.exit(main())
