#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Driver of the cross-command agreement test; runs INSIDE the namespaces of test-agree.sh
(tests/diff/ns.sh: a private mount and PID namespace whose PID 1 waits for us, /etc/passwd,
/etc/group and /etc/security bind mounts of ROOT/etc/...).  It adds two bind mounts of its
own there: ROOT/etc/pam.d over /etc/pam.d, and a copy of this system's PAM module directory
with the build's pam_rdmalimit.so in it over the real one (stacks name the module by name, as
`rdmalimits enable` writes it).

For each tree of gen.py, each service S and user U, with the service process's memlock START
(a process `sleep` holds it for --pid; verify and pam-session start with it too):

 a. `explain U --service S --pid HOLDER --json` predicts the real session: pam-session
    (libpam, the real pam_limits.so, the built pam_rdmalimit.so) opens or not as the
    prediction says (`session`: limits/no-limits open, fails/refused do not) and ends with
    the predicted soft/hard (policy.session when the module decides, else memlock, null
    there being the service's own value).  `explain --root ROOT` (the tree read from
    outside, its service assumed) names the same outcome, requested values, rule and order
    as explain --pid, for one user a service.
 c. `verify U --service S --json` (one user a service), started with START: its session is
    pam-session's; it says model-error (exit 5) exactly when what it expects is not what
    the session got; it expects what explain predicts; ok (exit 0) when the session opened
    and meets the target (or has none), else below-target (exit 1).
 d. `doctor --root ROOT --service S --json`: its finding "S: pam_rdmalimit runs before
    pam_limits" is there exactly when libpam runs the last pam_rdmalimit before the last
    pam_limits, with both succeeding (doctor's assumption).  Which lines run is measured:
    the trace (trace()) replaces every pam_limits and pam_rdmalimit line of the stack by a
    pam_exec line with the same control that logs its file:line, and opens a real session.
    Also, for every user a rule matches whose session pam_limits lets on, explain's
    policy.order is before-pam_limits exactly when doctor says so.
 e. `enable --root COPY --service S` on a copy of the tree: exit 0 or 1 (a refusal writes
    nothing).  After an exit 0 the edited stack is put in place and, for each user a rule
    matches, a real session through it ends with what the module's rules (gen.py's
    policy_target() and module_apply() here, not the tool's code) make of the session
    without the module (the added line replaced by pam_permit.so, so that no jump moves);
    explain's order there is after-pam_limits; doctor has no order finding for S; the trace
    runs a pam_rdmalimit line after the last pam_limits; and (a), (c) hold on it.
 f. `apply DOMAIN SIZE --root ROOT` (a user or @group of the tree, SIZE a value found
    nowhere else): exit 4 (another entry wins) exactly when, with the entry written
    (--allow-overridden), some user of DOMAIN does not get SIZE from a real session of a
    stack holding only pam_limits, or apply names a user whose value the policy's rules
    move off SIZE (pam_rdmalimit after pam_limits in a stack of the tree).
A disagreement that a bug of KNOWN_BUGS explains, proven by its own evidence (a real session
of a variant of the stack, or the trace), is reported as a TAP TODO with the bug's name;
any other fails the tree.  Prints one TAP line per tree (numbered from --tap-start + index -
--first) and, for a disagreement, the seed, the tree index, the commands and values; the
tree is saved under --failures.
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

ML = resource.RLIMIT_MEMLOCK
INF = gen.INF
KiB, MiB = gen.KiB, gen.MiB
LIMITS_ONLY = "agree-limits-only"


def to_rl(pair):
    return tuple(resource.RLIM_INFINITY if v == INF else v for v in pair)


def from_rl(pair):
    return tuple(INF if v == resource.RLIM_INFINITY else v for v in pair)


def fmt(v):
    return "unlimited" if v == INF else str(v)


def fmt_pair(p):
    return "none" if p is None else "%s:%s" % (fmt(p[0]), fmt(p[1]))


def lim(v):
    return INF if v == "unlimited" else v


def module_apply(cur, target, lower):
    """What pam_rdmalimit makes of memlock cur for target (soft, hard), without
    CAP_SYS_RESOURCE (DESIGN.md: never lower unless lower = true; the closest value when the
    hard limit cannot rise)."""
    if lower:
        want = (target[0], target[1])
    else:
        want = (max(target[0], cur[0]), max(target[1], cur[1]))
    want = (min(want[0], want[1]), want[1])
    if want[1] <= cur[1]:
        return want
    hard = min(want[1], cur[1])
    soft = min(want[0], hard)
    if not lower and soft < cur[0] <= hard:
        soft = cur[0]
    return (soft, hard)


# Disagreements found by this test and not fixed yet, each told apart from any other by its
# own evidence (a real session), reported as TODO: visible in every run, not failing it.
KNOWN_BUGS = {
    # none now.  "enable-line-not-run" (enable exits 0, but the pam_rdmalimit line it adds, or
    # the one after the last pam_limits it leaves as is, does not run last for some users) was
    # fixed by walking the stack for every user a policy has a rule for (pamedit.c
    # last_running_limits(), cmd-enable.c check_module_runs(): session_walks_every_user())
}


class Driver:
    def __init__(self, a):
        self.a = a
        self.root = a.root
        self.work = a.work
        self.hmax = from_rl(resource.getrlimit(ML))[1]
        self.top = min(self.hmax, 8 * MiB)
        self.counts = {"trees": 0, "sessions": 0, "explain": 0, "verify": 0, "doctor": 0, "enable": 0,
                       "enable-edited": 0, "enable-refused": 0, "apply": 0, "apply-4": 0, "disagreements": 0, "known": 0,
                       "opened": 0, "failed": 0, "module-decides": 0, "order-before": 0, "order-depends": 0}
        self.problems = []
        self.log = []

    # -- setup ---------------------------------------------------------------------------
    def setup(self):
        for rel in ("etc/passwd", "etc/group", "etc/security"):
            a, b = os.stat("/" + rel), os.stat(os.path.join(self.root, rel))
            if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                raise SystemExit("agree: /%s is not the bind mount of %s/%s" % (rel, self.root, rel))
        if os.getpid() == 1:
            raise SystemExit("agree: not inside the expected PID namespace")
        os.makedirs(os.path.join(self.root, "etc/pam.d"), exist_ok=True)
        self.mount(os.path.join(self.root, "etc/pam.d"), "/etc/pam.d")
        sec = os.path.join(self.work, "security")
        shutil.copytree(self.a.secdir, sec, symlinks=True)
        shutil.copyfile(self.a.module, os.path.join(sec, "pam_rdmalimit.so"))
        os.chmod(os.path.join(sec, "pam_rdmalimit.so"), 0o644)
        self.mount(sec, self.a.secdir)
        # the tree has the same module directory, so that `--root ROOT` knows what libpam can
        # load (pammod.h) and which pam_limits it is (the release is read from pam_limits.so)
        self.tree_sec = os.path.join(self.root, self.a.secdir.lstrip("/"))
        if not os.path.isdir(self.tree_sec):
            shutil.copytree(sec, self.tree_sec, symlinks=True)
        self.pam_only = os.path.join(self.work, "pam-only")
        os.makedirs(self.pam_only)
        with open(os.path.join(self.pam_only, LIMITS_ONLY), "w") as f:
            f.write("session required pam_limits.so\n")
        self.nomod = os.path.join(self.work, "pam-nomod")
        # PID 1's memlock (Debian's baseline) for this batch
        plans = [(128 * KiB, min(6 * MiB, self.top)), (self.top, self.top), (64 * KiB, 4 * MiB),
                 (32 * KiB, self.top)]
        pid1 = plans[self.a.batch % len(plans)]
        pid1 = (min(pid1[0], pid1[1]), pid1[1])
        resource.prlimit(1, ML, to_rl(pid1))
        self.pid1 = from_rl(resource.prlimit(1, ML))

    def mount(self, src, dst):
        subprocess.run(["mount", "--bind", src, dst], check=True)

    # -- running things --------------------------------------------------------------------
    def run(self, argv, start=None, timeout=60):
        def pre():
            if start is not None:
                resource.setrlimit(ML, to_rl(start))
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                           preexec_fn=pre)
        self.log.append("$ %s%s -> exit %d" % ("[memlock %s] " % fmt_pair(start) if start else "", " ".join(argv),
                                              p.returncode))
        return p

    def tool(self, args, start=None):
        return self.run([self.a.rdmalimits] + args, start)

    def tool_json(self, args, start=None):
        p = self.tool(args, start)
        try:
            j = json.loads(p.stdout) if p.stdout.strip() else None
        except ValueError:
            j = None
        return p, j

    def session(self, svc, user, start, confdir="/etc/pam.d"):
        """('opened'|'failed', (soft, hard) or None, rc text) of a real PAM session."""
        env = dict(os.environ, PAM_SESSION_MEMLOCK=fmt_pair(start))
        p = subprocess.run([self.a.pam_session, svc, user, confdir], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        words = dict(w.split("=", 1) for w in p.stdout.split() if "=" in w)
        self.counts["sessions"] += 1
        if p.returncode != 0 or "rc" not in words:
            # pam_start itself failed (a stack libpam cannot load): no session
            return "failed", None, "pam-session exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
        pair = (lim_text(words["soft"]), lim_text(words["hard"]))
        if words["rc"] == "PAM_SUCCESS":
            return "opened", pair, words["rc"]
        return "failed", None, words["rc"]

    def holder(self, start):
        def pre():
            resource.setrlimit(ML, to_rl(start))
        return subprocess.Popen(["sleep", "600"], preexec_fn=pre)

    # -- checks ----------------------------------------------------------------------------
    def fail(self, what, *details):
        self.problems.append((what, list(details)))

    def known(self, bug, what, *details):
        """A disagreement of a bug in KNOWN_BUGS, proven so by its own evidence."""
        self.known_problems.append((bug, what, list(details)))

    def explain(self, svc, user, pid):
        p, j = self.tool_json(["explain", user, "--service", svc, "--pid", str(pid), "--json"])
        self.counts["explain"] += 1
        return p, j

    @staticmethod
    def predicted(j):
        """('opened'|'failed', end values or None) from explain's JSON."""
        if j.get("session") in ("fails", "refused"):
            return "failed", None
        pol = j.get("policy")
        if pol and pol.get("session", {}).get("soft") is not None:
            return "opened", (lim(pol["session"]["soft"]), lim(pol["session"]["hard"]))
        m, s = j["memlock"], j["service"]
        soft = m["soft"] if m["soft"] is not None else s["memlock_soft"]
        hard = m["hard"] if m["hard"] is not None else s["memlock_hard"]
        return "opened", (lim(soft), lim(hard))

    def check_explain(self, label, svc, user, start, pid, real, confdir="/etc/pam.d"):
        """(a): explain --pid against the real session; explain's JSON (or None)."""
        p, j = self.explain(svc, user, pid)
        if user == "ghost" and j is None and "does not exist" in p.stderr:
            return None     # no prediction for a user that does not exist
        if j is None or p.returncode != 0:
            self.fail("%s: explain %s --service %s failed (exit %d)" % (label, user, svc, p.returncode),
                      p.stderr.strip())
            return None
        kind, pair = self.predicted(j)
        self.explain_right = not (kind != real[0] or (kind == "opened" and pair != real[1]))
        self.explain_bug = None
        if not self.explain_right:
            what = "%s: explain %s --service %s predicts %s %s; the real session: %s %s (%s)" % (
                label, user, svc, kind, fmt_pair(pair), real[0], fmt_pair(real[1]), real[2])
            bug = self.explain_bug = self.known_explain_bug(svc, user, start, real, j, kind, pair)
            if bug:
                self.known(bug, what, json.dumps(j, indent=1))
            else:
                self.fail(what, json.dumps(j, indent=1))
        return j

    def known_explain_bug(self, svc, user, start, real, j, kind, pair):
        """The known bug behind explain's wrong prediction, proven by its own evidence, or None
        (none is known now)."""
        return None

    def check_root_explain(self, label, svc, user, j):
        """explain --root ROOT names the same outcome, requested values, rule and order."""
        p, r = self.tool_json(["--root", self.root, "explain", user, "--service", svc, "--json",
                               "--proc1-limits", "/proc/1/limits"])
        self.counts["explain"] += 1
        if r is None:
            self.fail("%s: explain --root %s --service %s failed (exit %d)" % (label, user, svc, p.returncode),
                      p.stderr.strip())
            return

        def key(x):
            pol = x.get("policy") or {}
            req = x["memlock"].get("requested", {})
            return (x.get("session"), req.get("soft"), req.get("hard"), pol.get("rule"), pol.get("soft"),
                    pol.get("hard"), pol.get("order"))
        # the root tree's service is assumed to have CAP_SYS_RESOURCE: a session that pam_limits
        # refuses for a hard limit it cannot raise (upstream) is not one here; Debian's is silent
        if key(r) != key(j):
            self.fail("%s: explain --root and explain --pid disagree for %s --service %s" % (label, user, svc),
                      "--root: %s" % (key(r),), "--pid:  %s" % (key(j),))

    def check_verify(self, label, svc, user, start, real, j, bug):
        """(c): verify opens its own session from START: its session is the real one, it
        says model-error (exit 5) exactly when what it expects is not what the session got,
        it expects what explain predicts (bug: the known bug explain's prediction has), and
        its verdict follows from the session and the target."""
        p, v = self.tool_json(["--json", "verify", user, "--service", svc], start)
        self.counts["verify"] += 1
        if v is None:
            if user == "ghost" and "does not exist" in p.stderr:
                return
            self.fail("%s: verify %s --service %s gave no JSON (exit %d)" % (label, user, svc, p.returncode),
                      p.stderr.strip())
            return
        got = pair_of(v.get("got"))
        exp = pair_of(v.get("expected"))
        opened = "opened" if v.get("session_opened") else "failed"
        predicted = "opened" if v.get("predicted_session") == "opens" else "failed"
        right = predicted == real[0] and (predicted == "failed" or exp == real[1])
        bad, known = [], []
        if (opened, got) != (real[0], real[1]):
            bad.append("verify's session: %s %s; pam-session's: %s %s" % (opened, fmt_pair(got), real[0],
                                                                           fmt_pair(real[1])))
        if bool(v.get("agree")) != right or (v.get("verdict") == "model-error") == right:
            bad.append("verify says agree %s, verdict %s; it expects %s %s, the session %s %s" % (
                v.get("agree"), v.get("verdict"), predicted, fmt_pair(exp), real[0], fmt_pair(real[1])))
        if j is not None:
            kind, pair = self.predicted(j)
            if (kind, pair if kind == "opened" else None) != (predicted, exp if predicted == "opened" else None):
                (known if bug else bad).append("verify expects %s %s, explain %s %s" % (
                    predicted, fmt_pair(exp), kind, fmt_pair(pair)))
        t = v.get("target")
        # a slot no entry asks (null) is no part of the target
        met = t is None or (got is not None and (t["soft"] is None or got[0] >= lim(t["soft"])) and
                            (t["hard"] is None or got[1] >= lim(t["hard"])))
        want = "ok" if (met and opened == "opened") else "below-target"
        if v.get("agree") and v.get("verdict") != want:
            bad.append("verdict %s, but the session %s %s against the target %s" % (
                v.get("verdict"), opened, fmt_pair(got), t))
        want_rc = {"ok": 0, "below-target": 1, "model-error": 5}.get(v.get("verdict"))
        if p.returncode != want_rc:
            bad.append("verify exits %d for the verdict %s" % (p.returncode, v.get("verdict")))
        what = "%s: verify %s --service %s: " % (label, user, svc)
        if bad:
            self.fail(what + "; ".join(bad), json.dumps(v, indent=1))
        for k in known:
            self.known(bug, what + k)

    def doctor_order(self, label, root, svc):
        """What doctor says of the order in svc: "before" (pam_rdmalimit runs before pam_limits
        for every user a policy has a rule for), "depends" (for some), "after", None on failure."""
        p, d = self.tool_json(["--root", root, "doctor", "--service", svc, "--json"])
        self.counts["doctor"] += 1
        if d is None:
            self.fail("%s: doctor --service %s gave no JSON (exit %d)" % (label, svc, p.returncode), p.stderr.strip())
            return None
        mine = [f for f in d.get("findings", []) if f.get("message", "").startswith(svc + ": ")]
        if any(f.get("id") == "pam-order" for f in mine):
            return "before"
        if any(f.get("id") == "pam-order-user" for f in mine):
            return "depends"
        return "after"

    # -- one tree ----------------------------------------------------------------------------
    def users_of(self, t):
        return t.test_users

    def service_checks(self, label, t, svc, start, pid, phase):
        """(a), (c) and the data (d) needs for every user of svc; {user: (real, explain json)}."""
        out = {}
        self.cur_trace = self.trace(svc, start)
        self.cur_trace_opened = self.last_trace_opened
        self.cur_trace_started = self.last_trace_started
        vrng = random.Random(label + "/" + svc + "/" + phase)
        vuser = vrng.choice(self.users_of(t))
        for user in self.users_of(t):
            real = self.session(svc, user, start)
            self.counts["opened" if real[0] == "opened" else "failed"] += 1
            j = self.check_explain("%s %s" % (label, phase), svc, user, start, pid, real)
            out[user] = (real, j)
            if j is not None and phase == "tree":
                if user == vuser:
                    self.check_root_explain(label, svc, user, j)
                if j.get("policy"):
                    self.counts["module-decides"] += 1
            if user == vuser:
                self.check_verify("%s %s" % (label, phase), svc, user, start, real, j,
                                  None if j is None else self.explain_bug)
        return out

    TRACED = re.compile(r"^\s*-?session\s+(\[[^]]*\]|\S+)\s+(\S*)(pam_limits|pam_rdmalimit)\.so(\s.*)?$")

    def trace(self, svc, start):
        """Which pam_limits and pam_rdmalimit lines run, in order, as libpam walks svc when
        both succeed (doctor's and enable's assumption): each is replaced by a pam_exec line
        with the same control that logs FILE:LINE NAME (one whose module file libpam cannot
        load stays as it is).  [(id, name)], from a real session.
        The stack is rewritten in place (/etc/pam.d) and put back: libpam 1.5.2 reads the
        files a stack includes from /etc/pam.d even under pam_start_confdir()."""
        pamd = os.path.join(self.root, "etc/pam.d")
        log = os.path.join(self.work, "trace.log")
        if os.path.exists(log):
            os.unlink(log)
        saved = {}
        # the files of pam.d, and those an include names by path (gen.PATH_INCLUDES)
        pathd = os.path.join(self.root, gen.PATH_INCLUDES.lstrip("/"))
        files = [os.path.join(pamd, n) for n in os.listdir(pamd)]
        if os.path.isdir(pathd):
            files += [os.path.join(pathd, n) for n in os.listdir(pathd)]
        for path in files:
            name = os.path.relpath(path, pamd) if path.startswith(pamd + "/") else path
            with open(path, "rb") as f:
                saved[path] = f.read()
            lines = saved[path].decode("utf-8", "surrogateescape").splitlines()
            for k, ln in enumerate(lines):
                m = self.TRACED.match(ln.split("#")[0])
                # a module file libpam cannot load stays: it returns PAM_MODULE_UNKNOWN, sets nothing
                if m and not (m.group(2) and not os.path.exists(m.group(2) + m.group(3) + ".so")):
                    lines[k] = "session %s pam_exec.so /bin/sh -c [test $PAM_TYPE = close_session || echo %s:%d %s >> %s]" % (
                        m.group(1), name, k + 1, m.group(3), log)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(lines) + "\n")
        try:
            res = self.session(svc, "root", start)
            self.last_trace_opened = res[0] == "opened"
            # pam_start() itself failed (an @include of a missing file): nothing ran
            self.last_trace_started = not res[2].startswith("pam-session exit")
        finally:
            for path, data in saved.items():
                with open(path, "wb") as f:
                    f.write(data)
        if not os.path.exists(log):
            return []
        with open(log) as f:
            return [tuple(ln.split()) for ln in f if ln.strip()]

    @staticmethod
    def trace_before(tr):
        """True when the last pam_rdmalimit that runs comes before the last pam_limits."""
        lim = [k for k, (_, n) in enumerate(tr) if n == "pam_limits"]
        mod = [k for k, (_, n) in enumerate(tr) if n == "pam_rdmalimit"]
        return bool(lim and mod and mod[-1] < lim[-1])

    @staticmethod
    def trace_is_a_walk(t):
        """The trace has every line succeed: it is doctor's and enable's walk for a user every
        policy has a rule for when each file a pam_limits line reads first is there (else that
        line fails every session) and the policies the stacks name can all be used, or none
        can (then every copy is taken as having a rule; else a copy ignores everyone)."""
        pols = [t.policy] + ([t.policy_2] if t.policy_b else []) if t.policy is not None else []
        usable = [p.usable() for p in pols]
        return t.conf is not None and t.alt is not None and (all(usable) or not any(usable))

    def check_doctor(self, label, t, svc, res, phase, start):
        said = self.doctor_order(label, self.root, svc)
        if said is None:
            return
        self.counts["order-before"] += said == "before"
        self.counts["order-depends"] += said == "depends"
        tr = self.cur_trace
        if said != "depends" and self.cur_trace_started and self.trace_is_a_walk(t) and \
                self.trace_before(tr) != (said == "before"):
            self.fail("%s %s: doctor says pam_rdmalimit runs %s pam_limits in %s; libpam runs: %s" % (
                label, phase, "before" if said == "before" else "not before", svc,
                " ".join("%s(%s)" % (i, m[4:]) for i, m in tr) or "neither"))
        for user, (real, j) in res.items():
            if said == "depends" or j is None or not j.get("policy") or j.get("session") in ("fails", "refused"):
                continue
            exp = j["policy"].get("order") == "before-pam_limits"
            if exp != (said == "before"):
                self.fail("%s %s: doctor says pam_rdmalimit runs %s pam_limits in %s; explain %s --service %s: %s" % (
                    label, phase, "before" if said == "before" else "not before", svc, user, svc,
                    j["policy"].get("order")))

    def check_enable(self, label, t, svc, start, pid):
        copy = os.path.join(self.work, "copy")
        if os.path.exists(copy):
            shutil.rmtree(copy)
        shutil.copytree(os.path.join(self.root, "etc"), os.path.join(copy, "etc"), symlinks=True)
        shutil.copytree(self.tree_sec, os.path.join(copy, self.a.secdir.lstrip("/")), symlinks=True)
        before = {n: open(os.path.join(copy, "etc/pam.d", n), "rb").read() for n in os.listdir(os.path.join(copy, "etc/pam.d"))}
        p = self.tool(["--root", copy, "enable", "--service", svc])
        self.counts["enable"] += 1
        after = {n: open(os.path.join(copy, "etc/pam.d", n), "rb").read() for n in os.listdir(os.path.join(copy, "etc/pam.d"))
                 if not n.endswith(".rdmalimits-bak")}
        if p.returncode not in (0, 1):
            self.fail("%s: enable --service %s exits %d" % (label, svc, p.returncode), p.stdout + p.stderr)
            return
        if p.returncode == 1:
            self.counts["enable-refused"] += 1
            if after != before:
                self.fail("%s: enable --service %s refused (exit 1) but changed files" % (label, svc), p.stderr)
            return
        changed = after != before
        self.counts["enable-edited"] += changed
        text = after[svc].decode()
        # the stack as enable left it, in place; and the same without the module's line
        for n, data in after.items():
            with open(os.path.join(self.root, "etc/pam.d", n), "wb") as f:
                f.write(data)
        if os.path.exists(self.nomod):
            shutil.rmtree(self.nomod)
        shutil.copytree(os.path.join(self.root, "etc/pam.d"), self.nomod)
        marked = [ln for ln in text.splitlines() if ln.rstrip().endswith("# rdmalimits enable")]
        if changed and len(marked) != 1:
            self.fail("%s: enable --service %s: %d marked lines in the result" % (label, svc, len(marked)), text)
        with open(os.path.join(self.nomod, svc), "w") as f:
            f.write("\n".join(ln.replace("pam_rdmalimit.so", "pam_permit.so") if ln in marked else ln
                              for ln in text.splitlines()) + "\n")
        res = self.service_checks(label, t, svc, start, pid, "after enable")
        wrong = []        # what says the module does not run last after enable
        for user, (real, j) in res.items():
            target = t.policy_target(user)
            if target is None:
                continue
            if j is not None and j.get("policy") and j.get("session") not in ("fails", "refused") and \
                    j["policy"].get("order") != "after-pam_limits":
                wrong.append("%s: after enable --service %s, explain %s says the order is %s" % (
                    label, svc, user, j["policy"].get("order")))
            if not changed:
                continue
            base = self.session(svc, user, start, self.nomod)
            if base[0] != real[0]:
                self.fail("%s: after enable --service %s, %s's session %s, without the module's line %s" % (
                    label, svc, user, real[0], base[0]), text)
            elif real[0] == "opened":
                want = module_apply(base[1], target[:2], target[2])
                if real[1] != want:
                    wrong.append("%s: after enable --service %s, %s's session ends with %s; the policy asks %s, the "
                                 "session without the module has %s, so the module should give %s" % (
                                     label, svc, user, fmt_pair(real[1]), fmt_pair(target[:2]), fmt_pair(base[1]),
                                     fmt_pair(want)))
        if self.doctor_order(label, self.root, svc) == "before":
            wrong.append("%s: after enable --service %s (exit 0), doctor says pam_rdmalimit runs before pam_limits" % (
                label, svc))
        tr = self.cur_trace
        lim = [k for k, (_, n) in enumerate(tr) if n == "pam_limits"]
        mod = [k for k, (_, n) in enumerate(tr) if n == "pam_rdmalimit"]
        if self.cur_trace_opened and self.trace_is_a_walk(t) and (not mod or (lim and mod[-1] < lim[-1])):
            wrong.append("%s: after enable --service %s (exit 0), libpam runs: %s" % (
                label, svc, " ".join("%s(%s)" % (i, m[4:]) for i, m in tr) or "neither"))
        for w in wrong:
            self.fail(w, text)
        t.write_pam(self.root)

    def check_apply(self, label, t, rng):
        users = [u for u in t.users]
        if rng.random() < 0.6:
            name = rng.choice(users)[0]
            domain, members = name, [name]
        else:
            g = rng.choice(t.groups)
            domain = "@" + g[0]
            # Debian's pam_limits: uid 0 ignores @group lines
            members = [u[0] for u in users if u[1] != 0 and t.in_group(u[0], g[0])]
        kib = rng.randint(20000, 29999) // 4 + 1   # 5001..7500 KiB: no other line has it
        size = kib * KiB
        if size > self.top:
            kib = self.top // KiB - 1
            size = kib * KiB
        p, j = self.tool_json(["--root", self.root, "--json", "apply", domain, "%dK" % kib])
        self.counts["apply"] += 1
        if p.returncode not in (0, 4):
            self.fail("%s: apply %s %dK exits %d" % (label, domain, kib, p.returncode), p.stdout + p.stderr)
            return
        overridden = p.returncode == 4
        self.counts["apply-4"] += overridden
        if overridden:
            q = self.tool(["--root", self.root, "apply", domain, "%dK" % kib, "--allow-overridden"])
            if q.returncode != 0:
                self.fail("%s: apply --allow-overridden %s exits %d" % (label, domain, q.returncode), q.stderr)
                return
        got = {}
        for user in members:
            real = self.session(LIMITS_ONLY, user, (self.top, self.top), self.pam_only)
            got[user] = real
        missed = [u for u, r in got.items() if r[0] != "opened" or r[1] != (size, size)]
        if not members:
            return
        why = (j or {}).get("overridden_by") or []
        # apply also counts pam_rdmalimit after pam_limits in a stack of the tree, for a service
        # that may set any limit: each user it names so must be one the policy's rules (gen.py's
        # policy_target(), not the tool's code) move off the entry's value
        policy_users = [(w.split(":")[0], w) for w in why if "pam_rdmalimit runs after pam_limits" in w]
        for u, w in policy_users:
            pol = t.policy_2 if "rdmalimit-b.conf" in w and t.policy_2 is not None else t.policy
            target = t.policy_target(u, pol)
            if target is None:
                self.fail("%s: apply %s %dK says pam_rdmalimit changes %s's session, but no rule of the policy "
                          "matches %s" % (label, domain, kib, u, u), p.stdout + p.stderr)
                return
            want = (target[0], target[1]) if target[2] else (max(target[0], size), max(target[1], size))
            if (min(want[0], want[1]), want[1]) == (size, size):
                self.fail("%s: apply %s %dK says pam_rdmalimit changes %s's session, but the policy asks %s, which "
                          "leaves %s" % (label, domain, kib, u, fmt_pair(target[:2]), fmt_pair((size, size))),
                          p.stdout + p.stderr)
                return
        if overridden != bool(missed or policy_users):
            self.fail("%s: apply %s %dK exits %d, but a real session (pam_limits alone) gives %s" % (
                label, domain, kib, p.returncode, ", ".join("%s %s %s" % (u, r[0], fmt_pair(r[1])) for u, r in got.items())),
                p.stdout + p.stderr)

    def tree(self, i):
        label = "%s/%d" % (self.a.seed, i)
        rng = random.Random(gen.tree_seed(self.a.seed, i))
        t = gen.make_tree(rng)
        t.write(self.root)
        crng = random.Random(gen.tree_seed(self.a.seed, i) + "/start")
        h = crng.choice([self.top, self.top, self.top, 4 * MiB, 2 * MiB, 1 * MiB])
        h = min(h, self.top)
        start = (crng.choice([x for x in (64 * KiB, 512 * KiB, h // 2, h) if x <= h]), h)
        self.problems, self.known_problems, self.log = [], [], []
        hold = self.holder(start)
        try:
            for svc in t.services:
                res = self.service_checks(label, t, svc, start, hold.pid, "tree")
                self.check_doctor(label, t, svc, res, "tree", start)
                self.check_enable(label, t, svc, start, hold.pid)
            # a service without a file: libpam runs other's stack (or pam_start() fails)
            for svc in t.gone:
                self.service_checks(label, t, svc, start, hold.pid, "tree")
            self.check_apply(label, t, crng)
        finally:
            hold.kill()
            hold.wait()
        self.counts["trees"] += 1
        n = self.a.tap_start + i - self.a.first
        if not self.problems and not self.known_problems:
            print("ok %d - tree %s" % (n, label))
            return True
        self.counts["disagreements"] += len(self.problems)
        self.counts["known"] += len(self.known_problems)
        bugs = sorted({b for b, _, _ in self.known_problems})
        how = "(reproduce: AGREE_SEED=%s AGREE_FIRST=%d AGREE_TREES=1)" % (self.a.seed, i)
        if self.problems:
            print("not ok %d - tree %s: %d disagreements %s" % (n, label, len(self.problems), how))
        else:
            print("not ok %d - tree %s %s # TODO known bug: %s" % (n, label, how, ", ".join(bugs)))
            for b in bugs:
                print("#   %s: %s" % (b, KNOWN_BUGS[b]))
        print("#   service process memlock %s, PID 1 %s" % (fmt_pair(start), fmt_pair(self.pid1)))
        for what, details in self.problems + [("known bug %s: %s" % (b, w), d) for b, w, d in self.known_problems]:
            print("#   " + what)
            for d in details[:1] if not self.problems else details:
                for ln in str(d).splitlines()[:60]:
                    print("#     " + ln)
        saved = self.save(label, t, start)
        print("#   tree saved: %s" % saved)
        return not self.problems

    def save(self, label, t, start):
        d = os.path.join(self.a.failures, label.replace("/", "-"))
        try:
            if os.path.exists(d):
                shutil.rmtree(d)
            os.makedirs(d)
            t.write_pam(self.root)
            shutil.copytree(os.path.join(self.root, "etc"), os.path.join(d, "etc"), symlinks=True)
            with open(os.path.join(d, "REPORT"), "w") as f:
                f.write("tree %s, service process memlock %s, PID 1 memlock %s\n\n" % (label, fmt_pair(start),
                                                                                      fmt_pair(self.pid1)))
                for what, details in self.problems:
                    f.write(what + "\n" + "\n".join(str(x) for x in details) + "\n\n")
                f.write("\n".join(self.log) + "\n\n" + t.describe() + "\n")
        except OSError as e:
            return "(could not save: %s)" % e
        return d


def pair_of(x):
    """A JSON {"soft", "hard"} pair, None when absent or null."""
    if not x or x.get("soft") is None or x.get("hard") is None:
        return None
    return (lim(x["soft"]), lim(x["hard"]))


def lim_text(s):
    return INF if s == "unlimited" else int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--work")
    ap.add_argument("--pam-session")
    ap.add_argument("--rdmalimits")
    ap.add_argument("--failures")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--last", type=int, default=0)
    ap.add_argument("--tap-start", type=int, default=1)
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--module")
    ap.add_argument("--secdir")
    a = ap.parse_args()
    d = Driver(a)
    d.setup()
    bad = 0
    for i in range(a.first, a.last):
        try:
            ok = d.tree(i)
        except (subprocess.SubprocessError, OSError, KeyError, ValueError, TypeError) as e:
            print("not ok %d - tree %s/%d: the driver failed: %r" % (a.tap_start + i - a.first, a.seed, i, e))
            for ln in traceback.format_exc().splitlines():
                print("#   " + ln)
            ok = False
        bad += not ok
        sys.stdout.flush()
    print("# counts: " + " ".join("%s=%d" % kv for kv in d.counts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
