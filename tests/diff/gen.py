#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Random pam_limits trees for the differential test (tests/diff/difftest.py).

A tree is /etc/passwd, /etc/group, /etc/security/limits.conf and /etc/security/limits.d/*,
drawn from a random.Random so that (seed, index) always gives the same tree:

    make_tree(random.Random(tree_seed(seed, index))) -> Tree
    Tree.write(root)   writes root/etc/{passwd,group,security/...}

The lines cover the grammar of Debian's pam_limits 1.5.2: every domain form (user, @group,
@:gid, @min:max, @min:, min:max, :uid, min:, *, %, %group, invalid ranges), odd types and
values, 2-field '<domain> -' lines, comments, blanks, tabs, extra words, missing final
newlines, lines longer than the 1023 bytes fgets() reads at once, and limits.d names that
pam_limits must skip.

Run alone to write one tree:  gen.py SEED INDEX ROOT
"""

import os
import random
import shutil
import sys

# ---- identities -------------------------------------------------------------------------

USER_NAMES = ["alice", "bob", "carol", "dave", "eve", "mallory", "Trent", "rdma", "svc-x",
              "u1000", "1001"]
GROUP_NAMES = ["rdma", "users", "hpc", "staff", "wheel", "Admin", "alice", "bob", "ib",
               "carol"]
IDS = [500, 999, 1000, 1001, 1002, 1003, 1005, 1010, 2000, 3000]
GHOST = "ghost"   # a user that exists nowhere


def empty_dir(d):
    """Remove what directory d holds, not d itself (it may be a bind mount)."""
    for e in os.listdir(d):
        p = os.path.join(d, e)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)


class Tree:
    def __init__(self):
        self.users = []      # (name, uid, gid)
        self.groups = []     # (name, gid, [members])
        self.conf = b""      # limits.conf, None: missing
        self.dropins = []    # (name, kind, data): kind file (bytes), dir, symlink (target)
        self.no_dropin_dir = False
        self.test_users = []
        self.vendor_conf = None     # the vendor directory's limits.conf (1.7 builds), None: none
        self.vendor_dropins = []    # (name, data) in the vendor limits.d
        self.set_all = False        # the stack's pam_limits line has set_all
        self.other = {}             # the service's own limits for other items: name -> (S, H)

    def passwd(self):
        return "".join("%s:x:%d:%d:%s:/home/%s:/bin/sh\n" % (n, u, g, n, n)
                       for n, u, g in self.users)

    def group(self):
        return "".join("%s:x:%d:%s\n" % (n, g, ",".join(m)) for n, g, m in self.groups)

    def write(self, root):
        """Write the tree under root, rewriting files in place (they may be bind mounts)."""
        etc = os.path.join(root, "etc")
        sec = os.path.join(etc, "security")
        os.makedirs(sec, exist_ok=True)
        for name, text in (("passwd", self.passwd()), ("group", self.group())):
            with open(os.path.join(etc, name), "w", encoding="utf-8") as f:
                f.write(text)
        empty_dir(sec)
        ven = os.path.join(root, "vendor")     # may be a bind mount too
        os.makedirs(ven, exist_ok=True)
        empty_dir(ven)
        os.makedirs(os.path.join(ven, "limits.d"))
        if self.vendor_conf is not None:
            with open(os.path.join(ven, "limits.conf"), "wb") as f:
                f.write(self.vendor_conf)
        for name, data in self.vendor_dropins:
            with open(os.path.join(ven, "limits.d", name), "wb") as f:
                f.write(data)
        if self.conf is not None:
            if self.conf == b"@devnull":
                os.symlink("/dev/null", os.path.join(sec, "limits.conf"))
            else:
                with open(os.path.join(sec, "limits.conf"), "wb") as f:
                    f.write(self.conf)
        if self.no_dropin_dir:
            return
        d = os.path.join(sec, "limits.d")
        os.mkdir(d)
        for name, kind, data in self.dropins:
            p = os.path.join(d, name)
            if kind == "file":
                with open(p, "wb") as f:
                    f.write(data)
            elif kind == "dir":
                os.mkdir(p)
            elif kind == "symlink":
                os.symlink(data, p)

    def describe(self):
        """The tree as text, for failure reports."""
        out = ["== etc/passwd", self.passwd(), "== etc/group", self.group()]
        out.append("== etc/security/limits.conf" + (" (missing)" if self.conf is None else ""))
        if self.conf is not None:
            out.append(show(self.conf))
        if self.no_dropin_dir:
            out.append("== etc/security/limits.d (missing)")
        for name, kind, data in self.dropins:
            if kind == "file":
                out.append("== etc/security/limits.d/%s" % name)
                out.append(show(data))
            else:
                out.append("== etc/security/limits.d/%s (%s %s)" % (name, kind, data or ""))
        if self.vendor_conf is not None:
            out.append("== VENDOR/limits.conf")
            out.append(show(self.vendor_conf))
        for name, data in self.vendor_dropins:
            out.append("== VENDOR/limits.d/%s" % name)
            out.append(show(data))
        out.append("== set_all: %s, service's other limits: %s" % (self.set_all, self.other))
        return "\n".join(out)


def show(data):
    """Bytes as readable text: escapes for control bytes, a marker for no final newline."""
    s = data.decode("utf-8", "backslashreplace")
    s = s.replace("\t", "\\t").replace("\r", "\\r").replace("\0", "\\0")
    if data and not data.endswith(b"\n"):
        s += "\\ (no final newline)"
    return s


def tree_seed(seed, index):
    return "%s/%d" % (seed, index)


def make_identities(rng, t):
    t.users.append(("root", 0, 0))
    n = rng.randint(2, 5)
    names = rng.sample(USER_NAMES, n)
    ng = rng.randint(2, 5)
    gnames = rng.sample(GROUP_NAMES, ng)
    gids = rng.sample(IDS, ng)
    groups = [[g, gid, []] for g, gid in zip(gnames, gids)]
    for name in names:
        uid = rng.choice(IDS) if rng.random() < 0.9 else rng.choice([4000000000, 65533, 1])
        r = rng.random()
        if r < 0.55:
            gid = rng.choice(groups)[1]
        elif r < 0.75:                     # a user private group
            gid = uid
            if not any(g[1] == uid for g in groups) and rng.random() < 0.8:
                groups.append([name, uid, []])
        elif r < 0.9:                      # a primary gid that no group has
            gid = rng.choice([4242, 777])
        else:
            gid = rng.choice(IDS)
        t.users.append((name, uid, gid))
    if rng.random() < 0.05:                # another uid 0 account
        t.users.append(("toor", 0, rng.choice([0] + [g[1] for g in groups])))
    if rng.random() < 0.04:                # a name twice: getpwnam() finds the first
        n, uid, gid = rng.choice(t.users[1:])
        t.users.append((n, rng.choice(IDS + [0]), rng.choice([g[1] for g in groups])))
    everyone = [u[0] for u in t.users]
    for g in groups:
        k = rng.choice([0, 0, 1, 1, 2, 3])
        g[2] = rng.sample(everyone, min(k, len(everyone)))
        if rng.random() < 0.05:
            g[2].append(GHOST)
    if rng.random() < 0.06:                # the same name twice, another gid
        g = rng.choice(groups)
        groups.append([g[0], rng.choice([4300, 4301]), rng.sample(everyone, 1)])
    if rng.random() < 0.06:                # two names, one gid
        g = rng.choice(groups)
        groups.append(["twin", g[1], rng.sample(everyone, 1)])
    rng.shuffle(groups)
    t.groups.append(("root", 0, ["root"] if rng.random() < 0.2 else []))
    t.groups.extend((n, gid, m) for n, gid, m in groups)
    t.test_users = list(dict.fromkeys(u[0] for u in t.users))
    if rng.random() < 0.05:
        t.test_users.append(GHOST)


# ---- lines --------------------------------------------------------------------------------

def pick(rng, table):
    """table: [(weight, value or callable)]"""
    total = sum(w for w, _ in table)
    x = rng.uniform(0, total)
    for w, v in table:
        x -= w
        if x <= 0:
            break
    return v(rng) if callable(v) else v


def some_id(rng, t):
    ids = [u[1] for u in t.users] + [u[2] for u in t.users] + [g[1] for g in t.groups]
    x = rng.choice(ids)
    return max(0, x + rng.choice([0, 0, 0, -1, 1]))


def domain(rng, t):
    users = [u[0] for u in t.users]
    groups = [g[0] for g in t.groups]

    def rng2(r):
        a, b = sorted((some_id(r, t), some_id(r, t)))
        if r.random() < 0.1:
            a, b = b, a                     # min > max: matches nothing
        return a, b

    return pick(rng, [
        (20, lambda r: r.choice(users)),
        (4, "root"),
        (2, lambda r: r.choice(users).upper()),
        (1, lambda r: r.choice(users).capitalize()),
        (1, GHOST),
        (12, lambda r: "@" + r.choice(groups)),
        (3, lambda r: "@" + r.choice(users)),
        (1, "@nosuchgroup"),
        (1, lambda r: "@" + r.choice(groups).upper()),
        (6, lambda r: "@:%d" % some_id(r, t)),
        (5, lambda r: "@%d:%d" % rng2(r)),
        (3, lambda r: "@%d:" % some_id(r, t)),
        (5, lambda r: "%d:%d" % rng2(r)),
        (4, lambda r: ":%d" % some_id(r, t)),
        (4, lambda r: "%d:" % some_id(r, t)),
        (10, "*"),
        (2, "%"),
        (3, lambda r: "%" + r.choice(groups)),
        (1, lambda r: "%:" + str(some_id(r, t))),
        (1, lambda r: "%%%d:%d" % rng2(r)),
        (1, lambda r: str(some_id(r, t))),          # a bare number: no range, no user
        (1, lambda r: r.choice(users) + "#" + r.choice(["x", " - memlock 1"])),
        (5, lambda r: r.choice([":", "@:", "%:", "x:5", "5:x", "1:2:3", "@a:b", "@1000:x",
                                "99999999999999999999:", "4294967296:", "-1:", "+1000:",
                                ":-1", "@", "@@" + groups[0], "*:", "**", ":1000x",
                                "1000:99999999999999999999", " :"])),
    ])


TYPES = [(30, "soft"), (30, "hard"), (30, "-"), (3, "SOFT"), (2, "Hard"), (2, "bogus"),
         (1, "-soft"), (1, "--"), (1, "soft,hard")]

ITEMS = [(92, "memlock"), (4, "MEMLOCK"), (2, "Memlock"), (1, "memlocks"), (1, "mem lock")]

OTHER_ITEMS = [("core", ["0", "unlimited", "1024"]), ("nofile", ["1024", "4096", "unlimited", "2048", "99999999"]),
               ("nproc", ["100", "5000", "unlimited"]), ("rtprio", ["0", "5", "99"]),
               ("nice", ["0", "-5", "10", "19"]), ("sigpending", ["100", "99999999"]),
               ("cpu", ["unlimited", "600"]), ("locks", ["unlimited", "100"]),
               ("msgqueue", ["819200"]), ("nonewprivs", ["0", "1"]), ("priority", ["0"]),
               ("maxlogins", ["10", "100", "0", "-1", "junk", "0abc", "unlimited", "-5", "00"]),
               ("maxsyslogins", ["0", "1000", "-", "x"])]

ROUND_KIB = ["0", "1", "4", "63", "64", "65", "128", "512", "1024", "2048", "4095", "4096",
             "6144", "8191", "8192"]


def value(rng):
    return pick(rng, [
        (30, lambda r: str(r.randint(0, 8192))),
        (30, lambda r: r.choice(ROUND_KIB)),
        (3, "unlimited"), (1, "UNLIMITED"), (2, "-1"), (2, "-"), (2, "infinity"),
        (1, "Infinity"), (2, "64M"), (2, "1024abc"), (1, "0"), (1, "-2"), (2, "junk"),
        (1, "0x10"), (1, "+16"), (1, "-0"), (1, "18446744073709551615"),
        (1, "99999999999999999999"), (1, "18014398509481984"), (1, "9000"),
        (1, "100#comment"), (1, "1e3"), (1, "08"),
    ])


def sep(rng):
    return pick(rng, [(60, " "), (15, "\t"), (10, "  "), (5, " \t "), (2, "\v"), (2, "\f")])


def lead(rng):
    return pick(rng, [(85, ""), (8, "  "), (5, "\t"), (2, " \t")])


def trail(rng):
    return pick(rng, [(75, ""), (6, " # a comment"), (4, "#x"), (5, "   "), (3, "\t"),
                      (2, " #"), (2, "\r"), (3, " extra words here")])


def fields(rng, parts):
    out = lead(rng)
    for i, p in enumerate(parts):
        if i:
            out += sep(rng)
        out += p
    return out + trail(rng)


def limit_line(rng, t):
    return fields(rng, [domain(rng, t), pick(rng, TYPES), pick(rng, ITEMS), value(rng)])


def line(rng, t):
    kind = pick(rng, [(70, "limit"), (3, "nolimit"), (1, "twofield"), (5, "other"),
                      (5, "comment"), (4, "blank"), (2, "three"), (1, "one"), (4, "extra"),
                      (1, "nul"), (1, "upper-domain-item")])
    if kind == "limit":
        return limit_line(rng, t)
    if kind == "nolimit":
        return fields(rng, [domain(rng, t), rng.choice(["-", "-", "-", "--", "-x"])])
    if kind == "twofield":
        return fields(rng, [domain(rng, t), rng.choice(["soft", "hard", "memlock"])])
    if kind == "other":
        item, vals = rng.choice(OTHER_ITEMS)
        return fields(rng, [domain(rng, t), pick(rng, TYPES), item, rng.choice(vals)])
    if kind == "comment":
        return lead(rng) + "#" + rng.choice([" comment", "* - memlock 1", "", " @rdma - memlock 8192"])
    if kind == "blank":
        return rng.choice(["", " ", "\t", "  \t "])
    if kind == "three":
        return fields(rng, [domain(rng, t), pick(rng, TYPES), "memlock"])
    if kind == "one":
        return fields(rng, [domain(rng, t)])
    if kind == "extra":
        return fields(rng, [domain(rng, t), pick(rng, TYPES), "memlock", value(rng),
                            rng.choice(["extra", "1", "# not extra", "soft memlock 1"])])
    if kind == "nul":
        return limit_line(rng, t) + "\0" + rng.choice([" 99", "junk", " * - memlock 1"])
    return fields(rng, [domain(rng, t), pick(rng, TYPES), "MemLock", value(rng).upper()])


def long_line(rng, t):
    """A line of more than 1023 bytes: fgets() returns it in pieces, each parsed as a line."""
    hidden = limit_line(rng, t)
    how = rng.choice(["comment", "spaces", "value", "domain"])
    if how == "comment":
        # the piece after byte 1023 is no longer a comment
        head = lead(rng) + "#"
    elif how == "spaces":
        head = lead(rng) + limit_line(rng, t).rstrip("\r") + " "
    elif how == "value":
        head = fields(rng, [domain(rng, t), pick(rng, TYPES), "memlock"]) + " "
        hidden = value(rng) + rng.choice(["", " ", " " + limit_line(rng, t)])
    else:
        head = "@"
        hidden = rng.choice(["rdma - memlock 2048", "x - memlock 1", limit_line(rng, t)])
    cut = 1023 + rng.randint(-3, 3)
    fill = "x" if how in ("comment", "domain") else " "
    s = head + fill * max(0, cut - len(head.encode())) + hidden
    if rng.random() < 0.15:
        s += " " * 1100 + limit_line(rng, t)   # three pieces
    return s


def file_text(rng, t, nlines):
    lines = []
    for _ in range(nlines):
        lines.append(long_line(rng, t) if rng.random() < 0.015 else line(rng, t))
    eol = "\r\n" if rng.random() < 0.08 else "\n"
    text = eol.join(lines)
    if lines and rng.random() < 0.8:
        text += eol
    return text.encode("utf-8")


DROPIN_NAMES = ["00-a.conf", "10-rdma.conf", "9-x.conf", "Z.conf", "a.conf", "b.conf",
                "rdma.conf", "_u.conf", "zz.conf", "A-upper.conf", "\u00e9.conf", "1.conf",
                "-dash.conf", "a b.conf", "a.conf.conf", "~x.conf"]
IGNORED_NAMES = [".hidden.conf", ".conf", "x.conf.bak", "x.conf~", "noext", "x.CONF",
                 "x.confx", "conf", "README", "y.conf.disabled", ".z.conf"]


def make_tree(rng):
    t = Tree()
    make_identities(rng, t)
    if rng.random() < 0.03:
        t.conf = None                              # missing limits.conf
    else:
        t.conf = file_text(rng, t, rng.choice([0, 1, 2, 3, 4, 6, 8, 12]))
    if rng.random() < 0.04:
        t.no_dropin_dir = True
        return t
    names = rng.sample(DROPIN_NAMES, rng.randint(0, 4))
    for n in names:
        t.dropins.append((n, "file", file_text(rng, t, rng.choice([0, 1, 2, 3, 5, 8]))))
    for n in rng.sample(IGNORED_NAMES, rng.choice([0, 0, 1, 2])):
        t.dropins.append((n, "file", file_text(rng, t, rng.randint(1, 4))))
    r = rng.random()
    if r < 0.03:
        t.dropins.append(("dir.conf", "dir", None))           # read as an empty file
    elif r < 0.06 and names:
        t.dropins.append(("link.conf", "symlink", rng.choice(names)))
    elif r < 0.08:
        t.dropins.append(("link.conf", "symlink", "../limits.conf"))
    elif r < 0.10:
        t.dropins.append(("dangling.conf", "symlink", "no-such-file"))  # fopen fails
    elif r < 0.16:
        t.dropins.append(("masked.conf", "symlink", "/dev/null"))        # read as empty
    if rng.random() < 0.04 and t.conf is not None:
        t.conf = b"@devnull"                                             # limits.conf -> /dev/null
    # the vendor directory of 1.7 builds
    if rng.random() < 0.4:
        if rng.random() < 0.6:
            t.vendor_conf = file_text(rng, t, rng.choice([1, 2, 4]))
        for n in rng.sample(DROPIN_NAMES[:8] + [d[0] for d in t.dropins if d[1] == "file"][:2], rng.randint(0, 3)):
            if "/" not in n and not any(v[0] == n for v in t.vendor_dropins):
                t.vendor_dropins.append((n, file_text(rng, t, rng.choice([1, 2, 3]))))
        if rng.random() < 0.5 and t.conf is not None:
            t.conf = None                      # /etc has none: the vendor's limits.conf is read
    t.set_all = rng.random() < 0.15
    # the service's own limits for other items, so that lines above them fail
    if rng.random() < 0.3:
        for item, choices in (("nofile", [(1024, 4096), (1024, 1024), (4096, 65536)]),
                              ("nproc", [(100, 1000), (5000, 5000)]),
                              ("rtprio", [(0, 0), (0, 50)]), ("nice", [(0, 0), (0, 25)]),
                              ("sigpending", [(100, 1000)])):
            if rng.random() < 0.5:
                t.other[item] = rng.choice(choices)
    return t


def main(argv):
    if len(argv) != 4:
        print("usage: gen.py SEED INDEX ROOT", file=sys.stderr)
        return 2
    t = make_tree(random.Random(tree_seed(argv[1], int(argv[2]))))
    t.write(argv[3])
    print(t.describe())
    print("== users to test: " + " ".join(t.test_users))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
