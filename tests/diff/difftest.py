#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Driver of the differential test; runs INSIDE the namespaces that test-pam-limits-diff.sh
sets up (PID 1 is a shell that waits for us, /etc/passwd, /etc/group and /etc/security are
bind mounts of ROOT/etc/...).

For each tree it rewrites ROOT/etc in place, then for each user:
  - runs pam-session (the real pam_limits.so) in a child that starts with memlock limits
    distinct from PID 1's,
  - runs `rdmalimits explain USER --json` through NSS and /etc, and for a subset also with
    --root ROOT,
  - predicts what the child must end with: pam_limits calls setrlimit(min(S,H), H); without
    CAP_SYS_RESOURCE that fails with EPERM when H is above the child's hard limit, and
    Debian's pam_limits then silently keeps the old limit,
  - compares.
Prints TAP lines numbered from --tap-start; disagreements are printed as diagnostics and the
trees saved under --failures.

  difftest.py --count-facts      how many TAP lines --facts prints
"""

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

ML = resource.RLIMIT_MEMLOCK
INF = (1 << 64) - 1      # RLIM_INFINITY as the kernel and rdmalimits see it


def to_rl(pair):
    """Our pair -> resource module limits (its RLIM_INFINITY is -1)."""
    return tuple(resource.RLIM_INFINITY if v == INF else v for v in pair)


def from_rl(pair):
    return tuple(INF if v == resource.RLIM_INFINITY else v for v in pair)
KiB = 1024
MiB = 1024 * 1024
SERVICE = "rdmalimits-diff"


def fmt(v):
    return "unlimited" if v == INF else str(v)


def fmt_pair(p):
    return "%s:%s" % (fmt(p[0]), fmt(p[1]))


def parse_lim(s):
    return INF if s == "unlimited" else int(s)


def has_cap_sys_resource():
    with open("/proc/self/status") as f:
        for ln in f:
            if ln.startswith("CapEff:"):
                return bool(int(ln.split()[1], 16) & (1 << 24))
    return False


class Env:
    def __init__(self, a):
        self.a = a
        self.root = a.root
        self.pam_dir = os.path.join(a.work, "pam.d")
        os.makedirs(self.pam_dir, exist_ok=True)
        with open(os.path.join(self.pam_dir, SERVICE), "w") as f:
            f.write("# the only module: the real pam_limits\nsession required pam_limits.so\n")
        self.can_raise = has_cap_sys_resource()
        self.hmax = from_rl(resource.getrlimit(ML))[1]   # what we started with: the most a child gets
        self.top = min(self.hmax, 8 * MiB) if self.hmax != INF else 8 * MiB
        self.compared = 0
        self.failures = []
        # what the sessions did, to see that the trees exercise something
        self.stats = {"applied": 0, "refused": 0, "no-limits": 0, "fails": 0, "error": 0}
        self.ostats = {}
        # NAME=FLAVOUR=MODULE=DRIVER[=VENDORDIR];...
        self.oracles = []
        for spec in (a.oracles or "").split(";"):
            if spec:
                f = spec.split("=")
                self.oracles.append((f[0], f[1], f[2], f[3].split(), f[4] if len(f) > 4 else ""))

    # -- what every driver runs: sessions, failure reports --------------------------------
    def session_env(self, start, tree=None):
        """The environment of a session driver (pam-session, model-session): the service's
        memlock start, and with a tree the service's other limits."""
        env = dict(os.environ, PAM_SESSION_MEMLOCK=fmt_pair(start))
        if tree is not None and tree.other:
            env["PAM_SESSION_RLIMITS"] = self.other_spec(tree)
        return env

    def session(self, driver, svc, user, start, tree=None, what="pam-session"):
        """(rc, memlock) of a real session of user: driver (pam-session's command) with the
        stack svc of pam_dir."""
        p = subprocess.run(driver + [svc, user, self.pam_dir], env=self.session_env(start, tree),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        words = dict(w.split("=", 1) for w in p.stdout.split() if "=" in w)
        if p.returncode != 0 or not {"rc", "soft", "hard"} <= words.keys():
            raise RuntimeError("%s %s failed (%d): %s%s" % (what, user, p.returncode, p.stdout, p.stderr))
        return words["rc"], (parse_lim(words["soft"]), parse_lim(words["hard"]))

    def save_failure(self, name, report, copy_root=True):
        """FAILURES/NAME afresh, with REPORT (the text report) and, with copy_root, a copy of
        the root as it is now; the directory, or why it could not be saved."""
        d = os.path.join(self.a.failures, name.replace("/", "-"))
        try:
            os.makedirs(self.a.failures, exist_ok=True)
            if os.path.exists(d):
                shutil.rmtree(d)
            if copy_root:
                shutil.copytree(self.root, d, symlinks=True)
            else:
                os.makedirs(d)
            with open(os.path.join(d, "REPORT"), "w") as f:
                f.write(report)
        except OSError as e:
            return "(could not save: %s)" % e
        return d

    # -- the oracles: every real module against the model with its flavour ---------------
    def oracle_run(self, o, tree, user, start):
        """(rc, memlock) of the real module o for user; the stack names it by path."""
        name, flavour, module, driver, vendor = o
        svc = "rdl-" + name
        args = " set_all" if tree.set_all else ""
        with open(os.path.join(self.pam_dir, svc), "w") as f:
            f.write("session required %s%s\n" % (module, args))
        return self.session(driver, svc, user, start, tree, what=name + ": pam-session")

    RES = {"nofile": resource.RLIMIT_NOFILE, "nproc": resource.RLIMIT_NPROC, "nice": resource.RLIMIT_NICE,
           "rtprio": resource.RLIMIT_RTPRIO, "sigpending": resource.RLIMIT_SIGPENDING}

    def other_spec(self, tree):
        """The service's other limits, never above ours (only lowering is possible)."""
        out = []
        for k, (s, h) in sorted(tree.other.items()):
            cur = from_rl(resource.getrlimit(self.RES[k]))
            h = min(h, cur[1])
            out.append("%s=%s" % (k, fmt_pair((min(s, h), h))))
        return ",".join(out)

    def model_run(self, o, tree, user, start):
        name, flavour, module, driver, vendor = o
        p = subprocess.run([self.a.model_session, flavour, user, "set_all" if tree.set_all else "",
                            vendor or "none"], env=self.session_env(start, tree), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=30)
        line = p.stdout.strip()
        words = dict(w.split("=", 1) for w in line.split(" cause=")[0].split() if "=" in w)
        if p.returncode != 0 or "session" not in words:
            return "error", None, "model-session failed (%d): %s" % (p.returncode, p.stderr.strip()[:200])
        pair = None
        if words.get("soft", "?") != "?" and words.get("hard", "?") != "?":
            pair = (parse_lim(words["soft"]), parse_lim(words["hard"]))
        return words["session"], pair, line

    def oracle_compare(self, o, label, tree, user, start):
        rc, got = self.oracle_run(o, tree, user, start)
        kind, pair, text = self.model_run(o, tree, user, start)
        real = {"PAM_SUCCESS": "ok", "PAM_PERM_DENIED": "refused"}.get(rc, "fails")
        if kind in ("limits", "no-limits"):
            ok = real == "ok" and (pair is None or pair == got)
        else:
            ok = real == kind
        st = self.ostats.setdefault(o[0], {"sessions": 0, "limits": 0, "no-limits": 0, "fails": 0, "refused": 0,
                                          "disagree": 0})
        st["sessions"] += 1
        st[kind if kind in st else "fails"] += 1
        if not ok:
            st["disagree"] += 1
            self.report_oracle(o, label, tree, user, start, rc, got, text)
        return ok

    def report_oracle(self, o, label, tree, user, start, rc, got, text):
        n = len(self.failures) + 1
        self.failures.append(label)
        self.save_failure("%s-%s-%s" % (o[0], label, user),
                          "oracle %s, tree %s, user %s, start %s\nreal: rc=%s memlock=%s\nmodel: %s\n\n%s\n" % (
                              o[0], label, user, fmt_pair(start), rc, fmt_pair(got), text, tree.describe()))
        if n <= self.a.max_reports:
            print("# DISAGREEMENT %d: oracle %s, tree %s, user %s, start %s: real rc=%s memlock %s; model %s" % (
                n, o[0], label, user, fmt_pair(start), rc, fmt_pair(got), text))

    def check_mounts(self):
        """The bind mounts must be in place: never write to or read the host's files."""
        for rel in ("etc/passwd", "etc/group", "etc/security"):
            a = os.stat("/" + rel)
            b = os.stat(os.path.join(self.root, rel))
            if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                raise SystemExit("difftest: /%s is not the bind mount of %s/%s" % (rel, self.root, rel))
        if os.getpid() == 1 or not os.path.exists("/proc/1/limits"):
            raise SystemExit("difftest: not inside the expected PID namespace")

    # -- the real module -----------------------------------------------------------------
    def pam(self, user, start):
        return self.session([self.a.pam_session], SERVICE, user, start)

    # -- the prediction --------------------------------------------------------------------
    def explain(self, user, extra):
        cmd = [self.a.rdmalimits] + extra + ["explain", user, "--json"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=30)
        j = None
        if p.stdout.strip():
            try:
                j = json.loads(p.stdout)
            except ValueError:
                j = None
        return cmd, p.returncode, j, p.stderr.strip()

    def expect(self, ex, start):
        """(session, pair or None, text) expected from an explain result."""
        cmd, rc, j, err = ex
        if j is None:
            if rc != 0 and "does not exist" in err:
                return "fails", None, "fails (unknown user)"
            return "error", None, "explain failed (exit %d): %s" % (rc, err[:300])
        sess = j.get("session")
        if sess == "fails":
            return "fails", None, "fails"
        if sess == "refused":
            return "refused", None, "refused (PAM_PERM_DENIED): %s" % j.get("cause", "")
        if sess == "no-limits":
            return "no-limits", start, "no-limits -> unchanged %s" % fmt_pair(start)
        if sess != "limits":
            return "error", None, "unknown session %r" % sess
        m = j["memlock"]
        m = m.get("requested", m)   # the entries' own values (soft/hard: the assumed service's end values)
        s = start[0] if m.get("soft") is None else parse_lim(m["soft"])
        h = start[1] if m.get("hard") is None else parse_lim(m["hard"])
        want = (min(s, h), h)
        if h <= start[1] or self.can_raise:
            return "limits", want, "limits %s" % fmt_pair(want)
        return "limits", start, "limits %s refused (EPERM, hard above %s) -> unchanged %s" % (
            fmt_pair(want), fmt(start[1]), fmt_pair(start))

    def agree(self, exp, rc, got):
        sess, pair, _ = exp
        if sess == "error":
            return False
        if sess == "fails":
            return rc != "PAM_SUCCESS"
        if sess == "refused":
            return rc == "PAM_PERM_DENIED"
        return rc == "PAM_SUCCESS" and got == pair

    # -- one user of one tree -------------------------------------------------------------
    def compare(self, label, tree, user, start, pid1, with_root, root_proc1):
        rc, got = self.pam(user, start)
        runs = [self.explain(user, [])]
        # a tree without proc/1/limits is modelled from a stated assumption, never from the
        # host's PID 1 (which the real module reads here): nothing to compare then
        if with_root and root_proc1 != "none":
            extra = ["--root", self.root]
            if root_proc1 == "arg":
                extra += ["--proc1-limits", "/proc/1/limits"]
            runs.append(self.explain(user, extra))
        bad = []
        for k, ex in enumerate(runs):
            exp = self.expect(ex, start)
            if k == 0:
                key = exp[0]
                if key == "limits":
                    key = "refused" if exp[2].endswith("-> unchanged " + fmt_pair(start)) else "applied"
                self.stats[key] += 1
            self.compared += 1
            if not self.agree(exp, rc, got):
                bad.append((ex, exp))
        if bad:
            self.report(label, tree, user, start, pid1, rc, got, bad)
        return not bad

    def report(self, label, tree, user, start, pid1, rc, got, bad):
        n = len(self.failures) + 1
        self.failures.append(label)
        text = "tree %s, user %s\nPID 1 memlock %s, session child starts at %s\npam_limits: rc=%s memlock=%s\n" % (
            label, user, fmt_pair(pid1), fmt_pair(start), rc, fmt_pair(got))
        for ex, exp in bad:
            text += "\n$ %s\nexpected: %s\n%s\n" % (" ".join(ex[0]), exp[2],
                                                   json.dumps(ex[2], indent=1) if ex[2] else ex[3])
        saved = self.save_failure("%s-%s" % (label, user), text + "\n" + tree.describe() + "\n")
        if n > self.a.max_reports:
            return
        print("# DISAGREEMENT %d: tree %s, user %s, PID 1 memlock %s, child starts %s" % (
            n, label, user, fmt_pair(pid1), fmt_pair(start)))
        print("#   pam_limits.so: rc=%s memlock %s" % (rc, fmt_pair(got)))
        for ex, exp in bad:
            mode = "--root" if "--root" in ex[0] else "NSS"
            print("#   explain (%s) expects: %s" % (mode, exp[2]))
        print("#   saved: %s" % saved)
        if n == self.a.max_reports:
            print("#   (further disagreements only saved under %s)" % self.a.failures)


# ---- random trees ------------------------------------------------------------------------

def child_starts(e, pid1, rng):
    """Memlock limits a session child starts with: distinct from PID 1's, hard <= ours."""
    hards = sorted({min(e.top, h) for h in (64 * KiB, 128 * KiB, 1 * MiB, 2 * MiB, 4 * MiB,
                                             6 * MiB, 8 * MiB)} | {e.top})
    while True:
        h = rng.choice(hards + [e.top] * 6)
        s = rng.choice([x for x in (0, 64 * KiB, 128 * KiB, 1 * MiB, h) if x <= h])
        if (s, h) != pid1:
            return (s, h)


def run_batch(e, a):
    # PID 1's memlock for this batch: only lowering is possible, so the shell gives us a
    # fresh PID 1 per batch.
    top = e.top
    plans = [(128 * KiB, min(6 * MiB, top)), (32 * KiB, top), (top, top), (64 * KiB, 64 * KiB),
             (0, 2 * MiB), (1 * MiB, 4 * MiB)]
    pid1 = plans[a.batch % len(plans)]
    pid1 = (min(pid1[0], pid1[1]), pid1[1])
    resource.prlimit(1, ML, to_rl(pid1))
    got1 = from_rl(resource.prlimit(1, ML))
    if got1 != pid1:
        raise SystemExit("difftest: could not set PID 1's memlock to %s" % fmt_pair(pid1))
    users = bad = 0
    for i in range(a.first, a.last):
        rng = random.Random(gen.tree_seed(a.seed, i))
        tree = gen.make_tree(rng)
        tree.write(e.root)
        crng = random.Random(gen.tree_seed(a.seed, i) + "/child")
        with_root = i % 3 == 0
        root_proc1 = crng.choice(["file", "none", "arg"])
        p = os.path.join(e.root, "proc/1/limits")
        if os.path.exists(p):
            os.unlink(p)
        if with_root and root_proc1 == "file":
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copyfile("/proc/1/limits", p)
        for user in tree.test_users:
            start = child_starts(e, pid1, crng)
            users += 1
            label = "%s/%d" % (a.seed, i)
            ok = True
            ok = e.compare(label, tree, user, start, pid1, with_root, root_proc1)
            for o in e.oracles:
                ok = e.oracle_compare(o, label, tree, user, start) and ok
            if not ok:
                bad += 1
    desc = "batch %d: trees %d..%d, %d sessions, %d explain runs compared (PID 1 memlock %s)" % (
        a.batch, a.first, a.last - 1, users, e.compared, fmt_pair(pid1))
    if bad:
        print("not ok %d - %s: %d disagreements" % (a.tap_start, desc, bad))
    else:
        print("ok %d - %s" % (a.tap_start, desc))
    print("# counts: trees=%d sessions=%d explain=%d disagreements=%d" % (
        a.last - a.first, users, e.compared, bad))
    print("# sessions predicted: " + ", ".join("%s %d" % kv for kv in e.stats.items()))
    for name, st in sorted(e.ostats.items()):
        print("# oracle: %s %s" % (name, " ".join("%s=%d" % kv for kv in st.items())))
    return 1 if bad else 0


# ---- known facts, checked against fixed expectations and against explain --------------------

PASSWD = [("root", 0, 0), ("alice", 1001, 1001), ("bob", 1002, 100)]
GROUPS = [("root", 0, []), ("users", 100, []), ("alice", 1001, []), ("rdma", 2000, ["alice", "root"])]


def fact_tree(conf, dropins=(), groups=GROUPS):
    t = gen.Tree()
    t.users = list(PASSWD)
    t.groups = list(groups)
    t.conf = conf.encode() if conf is not None else None
    t.dropins = [(n, "file", d.encode()) for n, d in dropins]
    return t


def facts(top):
    """(description, tree, user, PID 1 memlock, child start, expected rc, expected memlock)"""
    p1 = (128 * KiB, min(6 * MiB, top))
    child = (64 * KiB, top)
    return [
        ("Debian baseline: an empty limits.conf gives PID 1's memlock",
         fact_tree(""), "bob", p1, child, "PAM_SUCCESS", p1),
        ("root ignores '*' and '@group' lines (keeps PID 1's memlock)",
         fact_tree("*\t-\tmemlock\t1024\n@rdma - memlock 2048\n@root hard memlock 4096\n"),
         "root", p1, child, "PAM_SUCCESS", p1),
        ("... while alice (in @rdma) gets the @rdma line over '*'",
         fact_tree("*\t-\tmemlock\t1024\n@rdma - memlock 2048\n@root hard memlock 4096\n"),
         "alice", p1, child, "PAM_SUCCESS", (2 * MiB, 2 * MiB)),
        ("root gets a line naming root and a uid range",
         fact_tree("root soft memlock 256\n0:0 hard memlock 512\n* - memlock 1\n"),
         "root", p1, child, "PAM_SUCCESS", (256 * KiB, 512 * KiB)),
        ("'-' quirk: soft refused by a stronger rank, so the hard half is not set either",
         fact_tree("alice soft memlock 512\n@rdma - memlock 2048\n"),
         "alice", p1, child, "PAM_SUCCESS", (512 * KiB, p1[1])),
        ("2-field '@group -' stops pam_limits: nothing applied, not even PID 1's baseline",
         fact_tree("alice - memlock 1024\n@rdma -\n", [("a.conf", "alice - memlock 2048\n")]),
         "alice", p1, child, "PAM_SUCCESS", child),
        ("'64M' is read as 64 KiB",
         fact_tree("alice - memlock 64M\n"), "alice", p1, child, "PAM_SUCCESS", (64 * KiB, 64 * KiB)),
        ("a hard limit above the session's hard limit is silently not applied (EPERM)",
         fact_tree("bob - memlock 4096\n"), "bob", p1, (64 * KiB, 2 * MiB), "PAM_SUCCESS", (64 * KiB, 2 * MiB)),
        ("a missing limits.conf fails the session (1.5.2: PAM_SERVICE_ERR)",
         fact_tree(None), "bob", p1, child, "PAM_SERVICE_ERR", None),
        ("'% - maxlogins 0' refuses every non-root session (PAM_PERM_DENIED)",
         fact_tree("% - maxlogins 0\n"), "bob", p1, child, "PAM_PERM_DENIED", None),
        ("... but '% - maxsyslogins 0' is ignored (% and %group count for maxlogins only)",
         fact_tree("% - maxsyslogins 0\n"), "bob", p1, child, "PAM_SUCCESS", p1),
        ("Debian's chroot item: a missing directory refuses the session (PAM_PERM_DENIED)",
         fact_tree("alice - chroot /nonexistent-rdmalimits\n"), "alice", p1, child, "PAM_PERM_DENIED", None),
        ("a group name twice: @name is getgrnam()'s first entry, @:gid getgrgid()'s",
         fact_tree("@:1003 soft memlock 512\n@bob hard memlock 1024\n@bob - memlock 2048\n",
                   groups=GROUPS + [("bob", 4300, []), ("bob", 1003, ["alice"])]),
         "alice", p1, child, "PAM_SUCCESS", (512 * KiB, p1[1])),
    ]


def run_facts(e, a):
    failed = 0
    n = a.tap_start
    for desc, tree, user, p1, start, want_rc, want in facts(e.top):
        resource.prlimit(1, ML, to_rl(p1))
        tree.write(e.root)
        p = os.path.join(e.root, "proc/1/limits")
        if os.path.exists(p):
            os.unlink(p)
        rc, got = e.pam(user, start)
        ok = rc == want_rc and (want is None or got == want)
        why = []
        if not ok:
            why.append("pam_limits.so: rc=%s memlock %s; the test expected rc=%s memlock %s" % (
                rc, fmt_pair(got), want_rc, fmt_pair(want) if want else "any"))
        # and rdmalimits must predict it
        before = len(e.failures)
        e.compare("fact%d" % (n - a.tap_start + 1), tree, user, start, p1, True, "arg")
        if len(e.failures) != before:
            why.append("rdmalimits explain disagrees with pam_limits.so (see above)")
        print("%s %d - %s [%s, rc=%s memlock %s]" % ("ok" if not why else "not ok", n, desc, user,
                                                     rc, fmt_pair(got)))
        for w in why:
            print("# " + w)
        failed += bool(why)
        n += 1
    print("# counts: trees=0 sessions=%d explain=%d disagreements=%d" % (
        n - a.tap_start, e.compared, len(e.failures)))
    return 1 if failed else 0


def add_driver_args(ap):
    """The arguments of a driver the shell script runs in a namespace (check-oracle.py too),
    the ones Env reads among them."""
    ap.add_argument("--root")
    ap.add_argument("--work")
    ap.add_argument("--pam-session")
    ap.add_argument("--rdmalimits")
    ap.add_argument("--failures")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--last", type=int, default=0)
    ap.add_argument("--tap-start", type=int, default=1)
    ap.add_argument("--max-reports", type=int, default=20)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count-facts", action="store_true")
    ap.add_argument("--facts", action="store_true")
    add_driver_args(ap)
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--oracles", default="")
    ap.add_argument("--model-session")
    a = ap.parse_args()
    if a.count_facts:
        print(len(facts(8 * MiB)))
        return 0
    e = Env(a)
    e.check_mounts()
    return run_facts(e, a) if a.facts else run_batch(e, a)


if __name__ == "__main__":
    sys.exit(main())
