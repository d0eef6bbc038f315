#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Random trees for the cross-command agreement test (tests/agree/agree.py).

A tree is what a login reads: /etc/passwd and /etc/group, the pam_limits files
(limits.conf, limits.d/*, and a second file that a `conf=` argument names), the policy
(/etc/security/rdmalimit.conf) and the PAM stacks (/etc/pam.d: one or two services and the
files they bring with @include, `include` and `substack`).  (seed, index) always gives the
same tree:

    make_tree(random.Random(tree_seed(seed, index))) -> Tree
    Tree.write(root)   writes root/etc/..., emptying the directories first (bind mounts)

The stacks mix pam_limits (all with conf= or all without, per tree), pam_rdmalimit before
and after it (with and without conf=), pam_permit and pam_deny under every control (required,
requisite, optional, sufficient, [success=N default=ignore], done, die), '-session' lines, jumps
past the end of their level, includes and substacks two deep (some by absolute path, some
'@INCLUDE'), includes of a file that does not exist, lines under any control whose module file
libpam cannot load, reset and ok on failures, lines continued with a backslash, malformed lines
libpam makes fail, an `other` stack, a service without a file and one without session lines.  Only modules whose result is known are used (the model assumes any other module
succeeds).  The limits lines are mostly
plain memlock entries for the tree's users and groups, with a share of the differential test's
grammar-heavy lines (tests/diff/gen.py); users and groups have unique names, so that the
policy's decision can be computed here (policy_target()) independently of the tool.

Run alone to write one tree:  gen.py SEED INDEX ROOT
"""

import importlib.util
import os
import random
import sys

# the limits grammar of the differential test, tests/diff/gen.py (a module of the same name)
_spec = importlib.util.spec_from_file_location(
    "diffgen", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff", "gen.py"))
diffgen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(diffgen)

KiB = 1024
MiB = 1024 * KiB
INF = (1 << 64) - 1

USER_NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]
GROUPS = [("users", 100), ("rdma", 2000), ("hpc", 2001), ("ib", 2002), ("spdk", 2003)]
SERVICE_NAMES = ["sshd", "login", "agree-a", "agree-b"]
INCLUDE_NAMES = ["common-session", "session-extra", "inc-x", "inc-y"]
ALT_LIMITS = "/etc/security/limits-alt.conf"
POLICY = "/etc/security/rdmalimit.conf"
POLICY_B = "/etc/security/rdmalimit-b.conf"


def tree_seed(seed, index):
    return "agree/%s/%d" % (seed, index)


def pick(rng, table):
    return diffgen.pick(rng, table)


def empty_dir(d):
    os.makedirs(d, exist_ok=True)
    diffgen.empty_dir(d)


# ---- the policy -------------------------------------------------------------------------

SIZES = [("64K", 64 * KiB), ("512K", 512 * KiB), ("1M", MiB), ("2M", 2 * MiB), ("3M", 3 * MiB),
         ("4M", 4 * MiB), ("6M", 6 * MiB), ("8M", 8 * MiB), ("12M", 12 * MiB), ("16M", 16 * MiB),
         ("unlimited", INF)]


class Rule:
    def __init__(self, kind, name, soft, hard):
        self.kind, self.name = kind, name      # "user" / "group"
        self.soft, self.hard = soft, hard      # (text, bytes); hard None: the soft value

    def text(self):
        s = '  { %s = "%s"; memlock = "%s";' % (self.kind, self.name, self.soft[0])
        if self.hard:
            s += ' hard = "%s";' % self.hard[0]
        return s + " }"


class Policy:
    def __init__(self):
        self.rules = []
        self.lower = False
        self.broken = False

    def text(self):
        out = "version = 1;\n"
        if self.lower:
            out += "lower = true;\n"
        out += "rules = (\n" + ",\n".join(r.text() for r in self.rules) + "\n);\n"
        if self.broken:
            out += "rules_typo = 1;\n"     # an unknown key: the whole file is refused
        return out

    def usable(self):
        """The module loads it and it has a rule (a hard value below the memlock value is an
        error: the whole file is refused)."""
        return not self.broken and bool(self.rules) and \
            not any(r.hard and r.hard[1] < r.soft[1] for r in self.rules)


def size_k(rng):
    k = rng.randint(16, 9000)
    return ("%dK" % k, k * KiB)


def make_policy(rng, t):
    p = Policy()
    p.lower = rng.random() < 0.12
    p.broken = rng.random() < 0.03
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        if rng.random() < 0.35:
            kind, name = "user", rng.choice([u[0] for u in t.users] + ["ghost"])
        else:
            kind, name = "group", rng.choice([g[0] for g in t.groups] + ["nosuchgroup"])
        soft = rng.choice(SIZES) if rng.random() < 0.75 else size_k(rng)
        hard = None
        if rng.random() < 0.3:
            hard = rng.choice(SIZES) if rng.random() < 0.7 else size_k(rng)
        p.rules.append(Rule(kind, name, soft, hard))
    # a user rule for the same user twice is an error of the policy: keep one
    seen, rules = set(), []
    for r in p.rules:
        key = (r.kind, r.name)
        if key not in seen:
            seen.add(key)
            rules.append(r)
    p.rules = rules
    return p


# ---- PAM stacks -------------------------------------------------------------------------

PERMIT_CONTROLS = [(20, "required"), (14, "optional"), (5, "sufficient"), (6, "requisite"),
                   (8, "[success=1 default=ignore]"), (4, "[success=2 default=ignore]"),
                   (2, "[success=3 default=ignore]"), (3, "[success=done default=ignore]"),
                   (3, "[default=ignore]"), (2, "[success=ok new_authtok_reqd=ok default=die]"),
                   (1, "[success=die default=ignore]")]
# controls as libpam reads them, written the ways admins write them (checked with Linux-PAM
# 1.5.2): blanks around '=', leading zeros, no blank between pairs, and mistakes libpam turns
# into "bad" for every result (a misspelt or upper-case value, a jump past INT_MAX)
PERMIT_CONTROLS += [(1, "[success = 1 default=ignore]"), (1, "[success=0000000000000001 default=ignore]"),
                    (1, "[success=1default=ignore]"), (1, "[sucess=1 default=ignore]"),
                    (1, "[SUCCESS=1 default=ignore]"), (1, "[default=2147483648]")]
DENY_CONTROLS = [(6, "requisite"), (4, "required"), (5, "[default=ignore]"), (3, "optional"),
                 (2, "[default=die]"), (2, "[success=ok default=1]"), (1, "sufficient"),
                 # libpam's status is the first result taken while undecided (ok on a failure
                 # fails the session whatever succeeds after); reset restores the level's state
                 (2, "[default=ok]"), (2, "[default=reset]"), (1, "[session_err=ignore default=bad]"),
                 (1, "[perm_denied=ignore default=bad]")]
PERMIT_CONTROLS += [(2, "[success=reset default=bad]"), (2, "[default=ok]")]
LIMITS_CONTROLS = [(30, "required"), (10, "optional"), (3, "requisite"),
                   (2, "[success=ok default=ignore]"), (1, "sufficient"), (1, "[default=1]"),
                   # pam_limits' failures told apart: PAM_SERVICE_ERR is no perm_denied
                   (1, "[perm_denied=ignore default=bad]"), (1, "[service_err=ignore default=bad]")]
MODULE_CONTROLS = [(30, "optional"), (8, "required"), (3, "[success=ok default=ignore]"),
                   (2, "[success=1 default=ignore]"), (1, "sufficient"), (1, "requisite")]


def limits_line(rng, t):
    args = t.limits_args
    if rng.random() < 0.2:
        # pam_limits lines of one stack reading different files: each line its own tree
        args = " conf=" + ALT_LIMITS if not args else ""
    return "session %s pam_limits.so%s" % (pick(rng, LIMITS_CONTROLS), args)


def module_line(rng, t):
    args = pick(rng, [(50, ""), (25, " conf=" + POLICY), (10, " quiet"), (12, " conf=" + POLICY_B)])
    if args == " conf=" + POLICY_B:
        t.policy_b = True
    if rng.random() < 0.1:
        # strict: a policy the module cannot use fails the session (PAM_SESSION_ERR)
        args += " strict"
    return "session %s pam_rdmalimit.so%s" % (pick(rng, MODULE_CONTROLS), args)


# where a path include finds its file (an absolute path, as libpam opens it): a copy of the
# tree's includes under etc/security, which the test binds over /etc/security
PATH_INCLUDES = "/etc/security/agree-pam"


def malformed_line(rng, depth):
    """A line libpam turns into a handler that always fails (PAM_PERM_DENIED under its
    control): no module, no control, or (in a file read for the session only) a misspelt
    type; in the service file a misspelt type is an auth line."""
    return pick(rng, [(3, "session required"), (2, "session optional"), (1, "session"),
                      (2, "sesion required pam_permit.so"), (1, "Session optional")])


def continued(rng, line):
    """line split over two or three lines with backslashes, as libpam joins them (blank and
    comment lines inside are skipped)"""
    words = line.split(" ")
    k = rng.randint(1, len(words) - 1)
    mid = rng.choice(["", "# a comment inside\n", "\n"])
    return " ".join(words[:k]) + " \\\n" + mid + "    " + " ".join(words[k:])


def session_line(rng, t, depth, incs):
    """One line of a stack at include depth `depth`; incs: the files it may bring."""
    kinds = [(22, "limits"), (16, "module"), (30, "permit"), (6, "deny"), (3, "dash"), (5, "missing"),
             (1, "malformed")]
    if incs and depth < 2:
        kinds.append((14, "include"))
    kind = pick(rng, kinds)
    if kind == "limits":
        return limits_line(rng, t)
    if kind == "module":
        return module_line(rng, t)
    if kind == "malformed":
        return malformed_line(rng, depth)
    if kind in ("permit", "deny"):
        ctl = pick(rng, PERMIT_CONTROLS if kind == "permit" else DENY_CONTROLS)
        line = "session %s pam_%s.so" % (ctl, kind)
        return continued(rng, line) if rng.random() < 0.08 and " " not in ctl else line
    if kind == "dash":
        return "-session optional pam_permit.so"
    if kind == "missing":
        # a module file libpam cannot load returns PAM_MODULE_UNKNOWN, which the control
        # decides, and sets nothing: a bare name missing from the module directory, or a
        # pam_limits / pam_rdmalimit at a path that does not exist
        module = pick(rng, [(4, "pam_agree_missing.so"), (2, "/nonexistent/pam_limits.so"),
                            (2, "/nonexistent/pam_rdmalimit.so")])
        return "%s %s %s" % (pick(rng, [(3, "session"), (2, "-session")]), pick(rng, PERMIT_CONTROLS), module)
    name = rng.choice(incs)
    t.used_includes.add(name)
    if rng.random() < 0.12:
        # by absolute path (libpam opens it as written)
        t.path_includes = True
        name = PATH_INCLUDES + "/" + name
    return pick(rng, [(5, "@include %s" % name), (1, "@INCLUDE %s" % name), (3, "session include %s" % name),
                      (4, "session substack %s" % name)])


def stack_text(rng, t, depth, incs, n):
    lines = []
    if depth == 0:
        lines += ["auth required pam_permit.so", "account required pam_permit.so"]
    for _ in range(n):
        lines.append(session_line(rng, t, depth, incs))
        if rng.random() < 0.05:
            lines.append("# a comment")
    return "\n".join(lines) + "\n"


# ---- identities and limits -------------------------------------------------------------

def make_identities(rng, t):
    t.users.append(("root", 0, 0))
    groups = [[n, gid, []] for n, gid in rng.sample(GROUPS, rng.randint(2, 4))]
    for k, name in enumerate(rng.sample(USER_NAMES, rng.randint(2, 4))):
        uid = 1001 + USER_NAMES.index(name)
        if rng.random() < 0.4:
            gid = uid                       # a user private group
            groups.append([name, uid, []])
        else:
            gid = rng.choice(groups[:2])[1]
        t.users.append((name, uid, gid))
    names = [u[0] for u in t.users]
    for g in groups:
        if g[0] not in names:
            g[2] = rng.sample(names, rng.choice([0, 1, 1, 2, 3]))
    t.groups.append(("root", 0, []))
    t.groups.extend((n, gid, m) for n, gid, m in groups)
    t.test_users = names + (["ghost"] if rng.random() < 0.04 else [])


VALUES = ["64", "128", "256", "512", "1024", "2048", "3072", "4096", "6144", "8192", "16384",
          "unlimited"]


def plain_line(rng, t):
    users = [u[0] for u in t.users]
    groups = [g[0] for g in t.groups]
    dom = pick(rng, [(30, lambda r: r.choice(users)), (25, lambda r: "@" + r.choice(groups)),
                     (12, "*"), (4, "1001:1004"), (2, "@2000:"), (2, "ghost"), (1, "%")])
    typ = pick(rng, [(35, "soft"), (35, "hard"), (30, "-")])
    val = rng.choice(VALUES) if rng.random() < 0.75 else str(rng.randint(1, 9000))
    return "%s %s memlock %s" % (dom, typ, val)


def limits_text(rng, t, n):
    lines = []
    for _ in range(n):
        r = rng.random()
        if r < 0.75:
            lines.append(plain_line(rng, t))
        elif r < 0.79:
            lines.append(rng.choice([u[0] for u in t.users[1:]] + ["@" + g[0] for g in t.groups]) + " -")
        elif r < 0.80:
            lines.append("%s - maxlogins 0" % rng.choice([u[0] for u in t.users[1:]]))
        else:
            lines.append(diffgen.line(rng, t))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape") if lines else b""


DROPIN_NAMES = ["10-a.conf", "50-rdma.conf", "90-site.conf", "zz-late.conf"]


class Tree(diffgen.Tree):
    def __init__(self):
        super().__init__()
        self.alt = None             # the conf= file, None: missing
        self.policy = None          # Policy, None: no rdmalimit.conf
        self.policy_2 = None        # the Policy of rdmalimit-b.conf (with self.policy)
        self.policy_b = False       # a module line names the second policy file
        self.services = {}          # name -> text
        self.includes = {}          # name -> text
        self.used_includes = set()
        self.limits_args = ""       # the arguments of every pam_limits line of the tree
        self.other = None           # pam.d/other (libpam reads it for every service), None: none
        self.gone = []              # services without a file: libpam runs other's stack
        self.path_includes = False  # some include names its file by path (PATH_INCLUDES)

    def write(self, root):
        etc = os.path.join(root, "etc")
        for name, text in (("passwd", self.passwd()), ("group", self.group())):
            with open(os.path.join(etc, name), "w", encoding="utf-8") as f:
                f.write(text)
        sec = os.path.join(etc, "security")
        empty_dir(sec)
        if self.conf is not None:
            with open(os.path.join(sec, "limits.conf"), "wb") as f:
                f.write(self.conf)
        os.mkdir(os.path.join(sec, "limits.d"))
        for name, _, data in self.dropins:
            with open(os.path.join(sec, "limits.d", name), "wb") as f:
                f.write(data)
        if self.alt is not None:
            with open(os.path.join(root, ALT_LIMITS.lstrip("/")), "wb") as f:
                f.write(self.alt)
        if self.policy is not None:
            for path, pol in ((POLICY, self.policy), (POLICY_B, self.policy_2)):
                with open(os.path.join(root, path.lstrip("/")), "w", encoding="utf-8") as f:
                    f.write(pol.text())
                os.chmod(os.path.join(root, path.lstrip("/")), 0o644)
                if not self.policy_b:
                    break
        self.write_pam(root)

    def write_pam(self, root):
        d = os.path.join(root, "etc", "pam.d")
        empty_dir(d)
        for name, text in list(self.services.items()) + list(self.includes.items()):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        if self.other is not None:
            with open(os.path.join(d, "other"), "w", encoding="utf-8") as f:
                f.write(self.other)
        if self.path_includes:
            pd = os.path.join(root, PATH_INCLUDES.lstrip("/"))
            empty_dir(pd)
            for name, text in self.includes.items():
                with open(os.path.join(pd, name), "w", encoding="utf-8") as f:
                    f.write(text)

    def describe(self):
        out = ["== etc/passwd", self.passwd(), "== etc/group", self.group()]
        out.append("== etc/security/limits.conf" + (" (missing)" if self.conf is None else ""))
        if self.conf is not None:
            out.append(diffgen.show(self.conf))
        for name, _, data in self.dropins:
            out.append("== etc/security/limits.d/%s" % name)
            out.append(diffgen.show(data))
        out.append("== %s%s" % (ALT_LIMITS.lstrip("/"), " (missing)" if self.alt is None else ""))
        if self.alt is not None:
            out.append(diffgen.show(self.alt))
        out.append("== %s%s" % (POLICY.lstrip("/"), " (missing)" if self.policy is None else ""))
        if self.policy is not None:
            out.append(self.policy.text())
            if self.policy_b:
                out.append("== %s" % POLICY_B.lstrip("/"))
                out.append(self.policy_2.text())
        for name, text in list(self.services.items()) + list(self.includes.items()):
            out.append("== etc/pam.d/%s" % name)
            out.append(text)
        out.append("== etc/pam.d/other%s" % (" (missing)" if self.other is None else ""))
        if self.other is not None:
            out.append(self.other)
        if self.gone:
            out.append("== services without a file: %s" % " ".join(self.gone))
        if self.path_includes:
            out.append("== %s/: a copy of each include above" % PATH_INCLUDES.lstrip("/"))
        return "\n".join(out)

    # -- what the policy asks, computed here (lib/login/policy.c's rules, from the docs) --
    def in_group(self, user, group):
        """pam_limits' and the module's membership: primary gid or listed as a member."""
        u = next((x for x in self.users if x[0] == user), None)
        g = next((x for x in self.groups if x[0] == group), None)
        return u is not None and g is not None and (u[2] == g[1] or user in g[2])

    def policy_target(self, user, p=None):
        """(soft, hard, lower) the module sets for user with policy p (default: the tree's
        rdmalimit.conf), or None: it leaves the limit alone."""
        p = p if p is not None else self.policy
        if p is None or not p.usable() or not any(u[0] == user for u in self.users):
            return None

        def value(r):
            soft = r.soft[1]
            hard = r.hard[1] if r.hard else soft
            if r.hard and soft > hard:
                soft = hard
            return (soft, max(hard, soft))
        for r in p.rules:
            if r.kind == "user" and r.name == user:
                return value(r) + (p.lower,)
        best = None
        for r in p.rules:
            if r.kind == "group" and self.in_group(user, r.name):
                v = value(r)
                if best is None or v[0] > best[0]:
                    best = v
        return best + (p.lower,) if best else None


def make_tree(rng):
    t = Tree()
    make_identities(rng, t)
    t.conf = None if rng.random() < 0.02 else limits_text(rng, t, rng.choice([0, 1, 2, 3, 4, 6]))
    for name in sorted(rng.sample(DROPIN_NAMES, rng.choice([0, 1, 1, 2, 3]))):
        t.dropins.append((name, "file", limits_text(rng, t, rng.choice([1, 1, 2, 3]))))
    if rng.random() < 0.9:
        t.alt = limits_text(rng, t, rng.choice([1, 2, 3]))
    if rng.random() < 0.85:
        t.policy = make_policy(rng, t)
        # the second policy file, which some module lines name (conf=): a policy of its own,
        # so that copies of the module in one stack decide differently
        t.policy_2 = make_policy(rng, t)
    if rng.random() < 0.25:
        t.limits_args = " conf=" + ALT_LIMITS
    incs = rng.sample(INCLUDE_NAMES, rng.choice([0, 1, 2, 2, 3]))
    # a file brings only files after it: no cycles (tests/diff and the unit tests have those)
    for k, name in enumerate(incs):
        t.includes[name] = stack_text(rng, t, 1, incs[k + 1:], rng.randint(1, 4))
    for name in rng.sample(SERVICE_NAMES, rng.choice([1, 2, 2])):
        t.services[name] = stack_text(rng, t, 0, incs, rng.randint(2, 7))
    if rng.random() < 0.05 and t.services:
        # an included file that does not exist: libpam adds a handler that fails (one for
        # include, two for substack, as a jump counts), @include makes pam_start() fail
        name = rng.choice(list(t.services))
        lines = t.services[name].splitlines()
        lines.insert(rng.randint(2, len(lines)), rng.choice(["session include inc-missing", "@include inc-missing",
                                                             "session substack inc-missing"]))
        t.services[name] = "\n".join(lines) + "\n"
    for name in list(t.includes):
        if name not in t.used_includes and rng.random() < 0.5:
            del t.includes[name]
    if rng.random() < 0.6:
        # libpam reads other for every service, and runs its session lines for a service
        # without any (no file, or none of the session)
        t.other = stack_text(rng, t, 0, [], rng.randint(1, 3))
    if rng.random() < 0.3:
        t.gone.append("agree-gone")
    if rng.random() < 0.1 and t.services:
        name = rng.choice(list(t.services))
        t.services[name] = "auth required pam_permit.so\naccount required pam_permit.so\n"
    return t


def main(argv):
    if len(argv) != 4:
        print("usage: gen.py SEED INDEX ROOT", file=sys.stderr)
        return 2
    t = make_tree(random.Random(tree_seed(argv[1], int(argv[2]))))
    for d in ("etc/security", "etc/pam.d"):
        os.makedirs(os.path.join(argv[3], d), exist_ok=True)
    t.write(argv[3])
    print(t.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
