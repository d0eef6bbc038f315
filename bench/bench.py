#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench.py: the body of bench/run.sh.  Runs as root inside the private mount and network
namespace run.sh created (sysfs mounted again, a veth pair with bx0 made to look physical, two
fake RDMA devices in /sys/class/infiniband): it bind-mounts generated files over /etc/passwd,
/etc/group and /etc/security there, which the host never sees.

Measures, in one run and interleaved (A, B, C, A, B, C, ...):
  1. session-open cost of PAM stacks (pam_permit, pam_limits, pam_rdmalimit with a static rule
     (the policy parsed, as in every login) / auto with the hardware from the cache / auto
     probing live), many sessions per process and one session per process; ratios
     (module - permit) / (pam_limits - permit); which libraries a session of each stack loads;
  2. rdmalimits check / explain over generated trees of 5k, 10k, 100k lines against one
     pam_limits session over the same tree;
  3. VmRSS and descriptors of one process after 100 and 10,000 sessions.
Asserts nothing about time; exits non-zero only when a measurement could not be taken.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True)
ap.add_argument("--srcdir", required=True)
ap.add_argument("--driver", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--syslog", default=None, help="the file the /dev/log listener writes (run.sh)")
ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "3")))
ap.add_argument("--sessions", type=int, default=int(os.environ.get("BENCH_SESSIONS", "2000")))
ap.add_argument("--spawns", type=int, default=int(os.environ.get("BENCH_SPAWNS", "25")))
ap.add_argument("--spawn-rounds", type=int, default=int(os.environ.get("BENCH_SPAWN_ROUNDS", "8")))
ap.add_argument("--mem-sessions", type=int, default=int(os.environ.get("BENCH_MEM_SESSIONS", "10000")))
ap.add_argument("--trees", default=os.environ.get("BENCH_TREES", "5000,10000,100000"))
ap.add_argument("--tree-rounds", default=os.environ.get("BENCH_TREE_ROUNDS", "5,3,2"))
ap.add_argument("--mem-variants", default=os.environ.get("BENCH_MEM_VARIANTS", "limits,static,auto-cache,auto-live"))
ap.add_argument("--callgrind", type=int, default=int(os.environ.get("BENCH_CALLGRIND", "1")))
ap.add_argument("--veths", type=int, default=int(os.environ.get("BENCH_VETHS", "100")))
ap.add_argument("--dlopen-runs", type=int, default=int(os.environ.get("BENCH_DLOPEN_RUNS", "60")))
ap.add_argument("--tool-runs", type=int, default=int(os.environ.get("BENCH_TOOL_RUNS", "5")))
ap.add_argument("--tool-timeout", type=float, default=float(os.environ.get("BENCH_TOOL_TIMEOUT", "180")))
ap.add_argument("--tool-slow", type=float, default=float(os.environ.get("BENCH_TOOL_SLOW", "5")))
ap.add_argument("--quick", type=int, default=int(os.environ.get("BENCH_QUICK", "0")),
                help="1: part 1b' only (fresh processes, alone and NSS warm), for comparing builds")
ap.add_argument("--modules", default=os.environ.get("BENCH_MODULES", ""),
                help="NAME=PATH,...: other builds of pam_rdmalimit.so, each measured as an auto-live stack")
ap.add_argument("--pam-limits-timeout", type=float,
                default=float(os.environ.get("BENCH_PAM_LIMITS_TIMEOUT", "120")))
A = ap.parse_args()
JSON_OUT = (A.out[:-4] if A.out.endswith(".txt") else A.out) + ".json"

DRIVER = A.driver
RDMALIMITS = os.path.join(A.build, "rdmalimits")
MODULE = os.path.join(A.build, "pam_rdmalimit", ".libs", "pam_rdmalimit.so")
USER = "benchuser"
MEMLOCK_KIB = 4096                      # every value here stays at or under 8 MiB
MiB = 1024 * 1024

log_lines = []


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def out(line=""):
    print(line, flush=True)
    log_lines.append(line)


def kv(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def run(cmd, timeout=None, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode not in ok:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def mount_etc(root):
    """Bind root/etc/{passwd,group,security} over /etc (this namespace only)."""
    for f in ("passwd", "group", "security"):
        subprocess.run(["umount", "/etc/" + f], stderr=subprocess.DEVNULL)
    for f in ("passwd", "group", "security"):
        run(["mount", "--bind", os.path.join(root, "etc", f), "/etc/" + f])


def stats(v):
    v = sorted(v)
    q = statistics.quantiles(v, n=4) if len(v) >= 2 else [v[0]] * 3
    return {"median": statistics.median(v), "min": v[0], "max": v[-1], "q1": q[0], "q3": q[2], "n": len(v)}


def us(ns):
    return ns / 1000.0


# ---------------------------------------------------------------------------------------------
# Part 1 setup: one user in a few groups, Debian's limits.conf + an @group drop-in, policies
def setup_part1():
    root = os.path.join(A.work, "p1")
    sec = os.path.join(root, "etc", "security")
    os.makedirs(os.path.join(sec, "limits.d"))
    pamd = os.path.join(root, "pam.d")
    os.makedirs(pamd)
    # libpam reads "other" at every pam_start and logs an error when it is missing
    with open(os.path.join(pamd, "other"), "w") as f:
        f.write("# empty: no service falls back on it\n")
    with open("/etc/passwd") as f:
        passwd = f.read()
    with open("/etc/group") as f:
        group = f.read()
    passwd += "%s:x:4242:4242:bench user:/nonexistent:/usr/sbin/nologin\n" % USER
    group += "%s:x:4242:\n" % USER
    group += "benchgrp:x:4243:%s\n" % USER
    for i in range(8):
        group += "bench%d:x:%d:%s\n" % (i, 4250 + i, USER if i % 2 == 0 else "nobody")
    for name, text in (("passwd", passwd), ("group", group)):
        with open(os.path.join(root, "etc", name), "w") as f:
            f.write(text)
    # Debian's default limits.conf (the host's copy, which is only read)
    shutil.copyfile("/etc/security/limits.conf", os.path.join(sec, "limits.conf"))
    with open(os.path.join(sec, "limits.d", "50-rdma.conf"), "w") as f:
        f.write("# RDMA users may lock %d KiB\n@benchgrp - memlock %d\n" % (MEMLOCK_KIB, MEMLOCK_KIB))
    with open(os.path.join(sec, "rdmalimit-static.conf"), "w") as f:
        f.write('version = 1;\nrules = (\n  { group = "benchgrp"; memlock = "4M"; }\n);\n')
    # auto = 4 MiB with the namespace's hardware (run.sh): 1M base + 1M x 2 active RDMA ports
    # (sysfs) + 512K x 2 copy-mode RX queues of bx0 (the one physical-looking interface);
    # never above 8 MiB, this machine's hard limit
    with open(os.path.join(sec, "rdmalimit-auto.conf"), "w") as f:
        f.write('version = 1;\nhardware = {\n  rdma_port = "1M";\n  xsk_queue = "512K";\n'
                '  xsk_copy_queue = "512K";\n  base = "1M";\n};\n'
                'rules = (\n  { group = "benchgrp"; memlock = "auto"; maximum = "8M"; }\n);\n')
    for p in ("rdmalimit-static.conf", "rdmalimit-auto.conf"):
        os.chmod(os.path.join(sec, p), 0o644)
    stacks = {
        "permit": "session required pam_permit.so\n",
        "limits": "session required pam_limits.so\n",
        "static": "session required %s conf=/etc/security/rdmalimit-static.conf "
                  "cache=/etc/security/hw.cache\n" % MODULE,
        "auto-cache": "session required %s conf=/etc/security/rdmalimit-auto.conf "
                      "cache=/etc/security/hw.cache\n" % MODULE,
        "auto-live": "session required %s conf=/etc/security/rdmalimit-auto.conf cache=\n" % MODULE,
    }
    for name, path in OTHER_MODULES:
        stacks["auto-live-" + name] = "session required %s conf=/etc/security/rdmalimit-auto.conf cache=\n" % path
    for name, text in stacks.items():
        with open(os.path.join(pamd, "bench-" + name), "w") as f:
            f.write(text)
        # the same stack after a module that looked the user and the group up, as pam_unix's
        # auth and account have by the time a real login opens its session: NSS is warm
        with open(os.path.join(pamd, "bench-warm-" + name), "w") as f:
            f.write(WARM_NSS + text)
    return root, pamd, list(stacks)


WARM_NSS = "session optional pam_succeed_if.so quiet user ingroup benchgrp\n"


def other_modules():
    """BENCH_MODULES: [(name, absolute path)]"""
    mods = []
    for item in filter(None, A.modules.split(",")):
        name, sep, path = item.partition("=")
        if not sep or not name or not os.path.isfile(path):
            raise SystemExit("bench: BENCH_MODULES wants NAME=PATH,... with existing files: %r" % item)
        mods.append((name, os.path.abspath(path)))
    return mods


OTHER_MODULES = other_modules()

DESCR = {
    "permit": "pam_permit.so (baseline)",
    "limits": "pam_limits.so (limits.conf + @group drop-in)",
    "static": "pam_rdmalimit static rule 4M (parsed)",
    "auto-cache": "pam_rdmalimit auto, hardware cache",
    "auto-live": "pam_rdmalimit auto, live probe (cache=)",
}
for _name, _path in OTHER_MODULES:
    DESCR["auto-live-" + _name] = "auto, live probe: " + _name


def session(pamd, variant, n, report=None):
    cmd = [DRIVER, "session"]
    if report:
        cmd += ["--report", report]
    cmd += [pamd, "bench-" + variant, USER, str(n)]
    lines = run(cmd).splitlines()
    return kv(lines[-1]), [kv(l) for l in lines[:-1]]


def strace_session(pamd, variant):
    """One session of variant under strace: the shared objects it opened (beyond what the
    driver maps before its first pam_start), whether it read the hardware cache."""
    p = subprocess.run(["strace", "-f", "-e", "trace=openat,open,prlimit64,setrlimit", "-o", "/dev/stderr",
                        DRIVER, "session", pamd, "bench-" + variant, USER, "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    libs = []
    # a setrlimit refused with EPERM is a cost (and a log line) a login with CAP_SYS_RESOURCE
    # never pays
    eperm = sum(1 for l in p.stderr.splitlines() if ("prlimit64(" in l or "setrlimit(" in l) and "EPERM" in l)
    for line in p.stderr.splitlines():
        if "ENOENT" in line or '"' not in line or not line.split("(", 1)[0].split()[-1].startswith("open"):
            continue
        path = line.split('"')[1]
        base = os.path.basename(path)
        if ".so" in base and base not in libs and not base.startswith(("libpam.so", "libc.so", "libaudit.so",
                                                                         "libcap-ng.so", "ld.so.cache")):
            libs.append(base)
    return {"libraries": libs, "setrlimit_eperm": eperm,
            "libibverbs": any(b.startswith("libibverbs") for b in libs) or "libibverbs" in p.stderr,
            "libconfig": any(b.startswith("libconfig") for b in libs),
            "libmnl": any(b.startswith("libmnl") for b in libs),
            "cache": '/etc/security/hw.cache"' in p.stderr and
                     not any('/etc/security/hw.cache"' in l and "= -1" in l for l in p.stderr.splitlines())}


def log_mark(tag):
    """Sends a marker to /dev/log and waits until the listener of run.sh has written it: every
    message sent before it has then been written too (a datagram socket keeps their order).
    Returns the offset just past the marker's line."""
    mark = "bench-mark-%d-%s" % (os.getpid(), tag)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.sendto(mark.encode(), "/dev/log")
    line = b"\n" + mark.encode() + b"\n"
    deadline = time.monotonic() + 10
    while True:
        with open(A.syslog, "rb") as f:
            k = (b"\n" + f.read()).find(line)      # the file's first line too
        if k >= 0:
            return k + len(line) - 1
        if time.monotonic() > deadline:
            raise SystemExit("bench: the /dev/log listener did not record a message within 10 s")
        time.sleep(0.01)


def logged_messages(pamd, variant):
    """The messages one session of variant sends to /dev/log, as the listener of run.sh
    received them (None without a listener): what arrived between a marker sent before the
    session and one sent after it."""
    if not A.syslog:
        return None
    start = log_mark("before-" + variant)
    session(pamd, variant, 1)
    end = log_mark("after-" + variant)
    with open(A.syslog, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    lines = data.decode("ascii", "backslashreplace").split("\n")
    return lines[:-2]


def part1(results):
    root, pamd, variants = setup_part1()
    mount_etc(root)
    # the hardware cache a site gets from `rdmalimits probe --save` (rdmalimit-cache.service
    # runs it at boot and when the policy changes), for the auto policy's interface selection
    run([RDMALIMITS, "probe", "--save", "--conf", "/etc/security/rdmalimit-auto.conf",
         "--cache", "/etc/security/hw.cache"])
    probe = run([RDMALIMITS, "probe", "--json", "--conf", "/etc/security/rdmalimit-auto.conf"], ok=(0, 1))
    results["probe"] = json.loads(probe) if probe.strip().startswith("{") else probe
    with open("/etc/security/hw.cache") as f:
        results["hw_cache"] = f.read()

    # what each stack does (first session of a 2-session run): proves the modules worked
    results["effect"] = stack_effects(pamd, variants, "")
    # which libraries and files one session of each stack opens (strace): libibverbs must never
    # appear (a PAM process runs as root with the caller's environment); printed, not asserted
    if shutil.which("strace"):
        results["probe_check"] = {v: strace_session(pamd, v) for v in variants}
        for v in variants:
            if v not in ("permit", "limits") and results["probe_check"][v]["libibverbs"]:
                say("NOTE: a session of the %s stack loaded libibverbs" % v)
        ac = results["probe_check"]["auto-cache"]
        if not ac["cache"] or ac["libmnl"]:
            say("NOTE: the auto-cache stack did not use its cache (%s)" %
                ("not read" if not ac["cache"] else "read, then probed live: stale or refused"))
    # what one session of each stack logs (the listener at /dev/log that run.sh serves)
    results["syslog"] = {v: logged_messages(pamd, v) for v in variants}
    if A.quick:
        say("part 1b' only (BENCH_QUICK=1): %d rounds x %d variants x %d fresh processes" % (
            A.spawn_rounds, len(variants), A.spawns))
        inside, warm = fresh_rounds(pamd, variants, FAULTS)
        results["sessions"] = {"inside": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns, "ns": inside},
                               "inside_warm_nss": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns,
                                                   "ns": warm}}
        return variants

    # shape A: many sessions in one process
    say("part 1a: %d rounds x %d variants x %d sessions in one process" % (A.rounds, len(variants), A.sessions))
    many = {v: [] for v in variants}
    for r in range(A.rounds):
        for v in variants:
            s, _ = session(pamd, v, A.sessions)
            many[v].append(int(s["ns_per_session"]))
    # shape B: one session per process (the driver spawned with N=1)
    say("part 1b: %d rounds x %d variants x %d spawns" % (A.spawn_rounds, len(variants), A.spawns))
    spawn = {v: [] for v in variants}
    spawn_all = {v: [] for v in variants}
    for r in range(A.spawn_rounds):
        cmd = [DRIVER, "spawn", "--raw", str(A.spawns)]
        for v in variants:
            cmd += [DRIVER, "session", pamd, "bench-" + v, USER, "1", "--"]
        lines = run(cmd[:-1]).splitlines()
        summary = [kv(l) for l in lines if " runs=" in l]
        raw = [kv(l) for l in lines if " ns=" in l]
        for v, sm, rw in zip(variants, summary, raw):
            spawn[v].append(int(sm["ns_median"]))
            spawn_all[v] += [int(x) for x in rw["ns"].split(",")]
    # the same fresh processes timed inside: pam_start .. pam_end of their one session, without
    # exec and exit (what the module's own work and loading cost, apart from process teardown)
    say("part 1b': %d rounds x %d variants x %d fresh processes, timed inside, alone and after an NSS lookup" % (A.spawn_rounds, len(variants),
                                                                               A.spawns))
    inside, warm = fresh_rounds(pamd, variants, FAULTS)
    results["sessions"] = {"inside": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns,
                                      "statistic": "median in-process session time of a round", "ns": inside},
                           "inside_warm_nss": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns,
                                               "statistic": "median in-process session time of a round",
                                               "stack_prefix": WARM_NSS.strip(), "ns": warm},
                           "many": {"rounds": A.rounds, "sessions_per_process": A.sessions, "ns": many},
                           "spawn": {"rounds": A.spawn_rounds, "spawns_per_round": A.spawns,
                                     "statistic": "median spawn of a round", "ns": spawn,
                                     "all_spawns_ns": spawn_all}}

    part1e(results, pamd)

    # part 1d: what loading each library costs a fresh process (dlopen RTLD_NOW, as libpam
    # loads a module): explains the one-session-per-process figures
    say("part 1d: %d fresh processes dlopen pam_limits.so and pam_rdmalimit.so" % A.dlopen_runs)
    libs = [("pam_permit.so (warm-up)", "pam_permit.so"), ("pam_limits.so", "pam_limits.so"),
            ("pam_rdmalimit.so", MODULE)]
    secdir = next((d for d in ("/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security",
                               "/usr/lib64/security", "/lib/security", "/usr/lib/security")
                   if os.path.exists(os.path.join(d, "pam_limits.so"))), "/lib/security")
    paths = [os.path.join(secdir, p) if p.startswith("pam_") else p for _, p in libs]
    loads = {name: [] for name, _ in libs}
    for _ in range(A.dlopen_runs):
        for line in run([DRIVER, "dlopen"] + paths).splitlines():
            d = kv(line)
            name = libs[paths.index(d["lib"])][0]
            loads[name].append(int(d["ns"]))
    results["library_loads"] = {name: stats(v) for name, v in loads.items()}

    # part 1c: instructions (callgrind): deterministic, blind to syscalls and page-table work
    if A.callgrind and shutil.which("valgrind"):
        say("part 1c: callgrind, %d variants x 2 runs" % len(variants))
        ir = {}
        for v in variants:
            ir[v] = {}
            for n in (1, 21):
                f = os.path.join(A.work, "cg-%s-%d.out" % (v, n))
                p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f, DRIVER, "session",
                                    pamd, "bench-" + v, USER, str(n)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
                tot = [l for l in p.stderr.splitlines() if "Collected :" in l]
                if p.returncode != 0 or not tot:
                    raise RuntimeError("callgrind of %s failed:\n%s" % (v, p.stderr[-2000:]))
                ir[v][n] = int(tot[-1].split(":")[-1])
        results["instructions"] = {v: {"process_1_session": ir[v][1],
                                       "per_session": (ir[v][21] - ir[v][1]) // 20} for v in variants}

    # part 3: memory and descriptors
    mem_variants = [v for v in A.mem_variants.split(",") if v]
    say("part 3: %d sessions in one process, %s" % (A.mem_sessions, ", ".join(mem_variants)))
    mem = {}
    for v in mem_variants:
        s, rep = session(pamd, v, A.mem_sessions, "100,%d" % A.mem_sessions)
        at = {int(x["after"]): x for x in rep}
        lo, hi = at[100], at[A.mem_sessions]
        mem[v] = {"rss_kb_100": int(lo["rss_kb"]), "rss_kb_end": int(hi["rss_kb"]),
                  "fds_100": int(lo["fds"]), "fds_end": int(hi["fds"]),
                  "rss_growth_kb": int(hi["rss_kb"]) - int(lo["rss_kb"]),
                  "fd_growth": int(hi["fds"]) - int(lo["fds"]), "sessions": A.mem_sessions,
                  "ns_per_session": int(s["ns_per_session"])}
    results["memory"] = mem
    return variants


HOST_VARIANTS = ["permit", "limits", "auto-live", "auto-cache"]


def stack_effects(pamd, variants, where):
    """rc and memlock after the first session of a 2-session run of each stack; a warning for
    a stack (but permit) that did not set MEMLOCK_KIB"""
    effect = {}
    for v in variants:
        s, _ = session(pamd, v, 2)
        effect[v] = {"rc": s["rc"], "soft": s["soft"], "hard": s["hard"]}
    bad = [v for v in variants if v != "permit" and not (effect[v]["rc"] == "PAM_SUCCESS"
                                                        and effect[v]["soft"] == str(MEMLOCK_KIB * 1024))]
    if bad:
        say("warning: %sthese stacks did not set memlock %d KiB: %s" % (where, MEMLOCK_KIB, ", ".join(bad)))
    return effect


def fresh_rounds(pamd, variants, faults=None):
    """A.spawn_rounds rounds of A.spawns fresh processes per stack, alone and NSS warm, timed
    inside: per stack, the median of each round"""
    inside = {v: [] for v in variants}
    warm = {v: [] for v in variants}
    for r in range(A.spawn_rounds):
        per = {v: [] for v in variants}
        per_warm = {v: [] for v in variants}
        for _ in range(A.spawns):
            for v in variants:
                s, _ = session(pamd, v, 1)
                per[v].append(int(s["ns_per_session"]))
                count_faults(faults, v, "alone", s)
                s, _ = session(pamd, "warm-" + v, 1)
                per_warm[v].append(int(s["ns_per_session"]))
                count_faults(faults, v, "warm", s)
        for v in variants:
            inside[v].append(statistics.median(per[v]))
            warm[v].append(statistics.median(per_warm[v]))
    return inside, warm


# page faults and context switches of each fresh process's session (getrusage around
# pam_start .. pam_end), per stack and shape: what a cold process pays besides the work
FAULTS = {}


def count_faults(faults, variant, shape, s):
    if faults is None:
        return
    d = faults.setdefault(variant, {}).setdefault(shape, {"minflt": [], "nvcsw": [], "nivcsw": []})
    for k in d:
        if k in s:
            d[k].append(int(s[k]))


def report_faults(results, variants):
    if not FAULTS:
        return
    res = results["faults_per_fresh_session"] = {}
    out("   per fresh session (getrusage, median over its processes; net of pam_permit): minor page faults, "
        "and context switches voluntary/involuntary")
    for shape, title in (("alone", "alone"), ("warm", "NSS warm")):
        row = []
        base = FAULTS.get("permit", {}).get(shape)
        for v in variants:
            d = FAULTS.get(v, {}).get(shape)
            if not d or not d["minflt"]:
                continue
            m = {k: statistics.median(x) for k, x in d.items() if x}
            res.setdefault(v, {})[shape] = m
            net = "" if v == "permit" or not base else " (net %+d)" % (m["minflt"] - statistics.median(base["minflt"]))
            row.append("%s %d%s, %d/%d" % (v, m["minflt"], net, m.get("nvcsw", 0), m.get("nivcsw", 0)))
        out("   %s: %s" % (title, "; ".join(row)))


def part1e(results, pamd):
    """A container host: A.veths more veths (pairs, up), which auto never counts (not physical),
    while the same stacks run in fresh processes as in part 1b'.  Every live login asks about
    each interface the netdev family lists; the cache's fingerprint lists /sys/class/net."""
    pairs = A.veths // 2
    if pairs <= 0:
        return
    say("part 1e: %d veths (%d pairs, up), %d rounds x %d variants x %d fresh processes" % (
        2 * pairs, pairs, A.spawn_rounds, len(HOST_VARIANTS), A.spawns))
    cmds = []
    for i in range(pairs):
        cmds += ["link add bv%d type veth peer name bp%d" % (i, i), "link set bv%d up" % i, "link set bp%d up" % i]
    subprocess.run(["ip", "-batch", "-"], input="\n".join(cmds) + "\n", text=True, check=True)
    try:
        listed = len(os.listdir("/sys/class/net"))
        # the veths change nothing auto counts: the same limit as in part 1, from the live probe
        # and from the cache (whose fingerprint leaves uncounted interfaces out)
        effect = stack_effects(pamd, HOST_VARIANTS, "with the veths, ")
        inside, warm = fresh_rounds(pamd, HOST_VARIANTS)
    finally:
        subprocess.run(["ip", "-batch", "-"], input="".join("link del bv%d\n" % i for i in range(pairs)),
                       text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results["container_host"] = {"veths": 2 * pairs, "interfaces_listed": listed, "effect": effect,
                                 "inside": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns, "ns": inside},
                                 "inside_warm_nss": {"rounds": A.spawn_rounds, "processes_per_round": A.spawns,
                                                     "ns": warm}}


def ratios(ns, variants):
    """per round: (v - permit) / (limits - permit); plus the net medians."""
    r = {}
    rounds = len(ns["permit"])
    for v in variants:
        net = [ns[v][i] - ns["permit"][i] for i in range(rounds)]
        entry = {"net_ns": stats(net), "abs_ns": stats(ns[v])}
        if v not in ("permit", "limits"):
            per = [(ns[v][i] - ns["permit"][i]) / (ns["limits"][i] - ns["permit"][i]) for i in range(rounds)]
            entry["ratio"] = stats(per)
        r[v] = entry
    for v in variants:
        if "ratio" in r[v]:
            r[v]["ratio_of_median_nets"] = r[v]["net_ns"]["median"] / r["limits"]["net_ns"]["median"]
    return r


# ---------------------------------------------------------------------------------------------
# Part 2: check / explain against one pam_limits session over the same generated tree
def part2(results):
    sizes = [int(x) for x in A.trees.split(",") if x]
    rounds = [int(x) for x in A.tree_rounds.split(",")]
    pamd = os.path.join(A.work, "p2-pam.d")
    os.makedirs(pamd, exist_ok=True)
    with open(os.path.join(pamd, "bench-limits"), "w") as f:
        f.write("session required pam_limits.so\n")
    trees = {}
    for k, size in enumerate(sizes):
        nr = rounds[min(k, len(rounds) - 1)]
        root = os.path.join(A.work, "tree-%d" % size)
        info = kv(run(["/usr/bin/python3", os.path.join(A.srcdir, "bench", "gen-tree.py"), root, str(size)]))
        mount_etc(root)
        say("part 2: tree of %s lines, %d rounds" % (info["lines"], nr))
        t = {"lines": int(info["lines"]), "files": int(info["files"]), "rounds": nr,
             "check_ns": [], "explain_ns": [], "pam_limits_ns": [], "pam_limits_finished": True}
        # check exits 1 on these trees (they have findings); explain exits 0
        tools = {"check": [RDMALIMITS, "--root", root, "check"],
                 "explain": [RDMALIMITS, "--root", root, "explain", "u0000"]}
        # one first run of each, with a timeout: a command slower than --tool-slow seconds is
        # measured by that run alone, one that does not finish in --tool-timeout not at all
        fast = []
        for name, cmd in tools.items():
            started = time.monotonic()
            try:
                run(cmd, timeout=A.tool_timeout, ok=(0, 1))
            except subprocess.TimeoutExpired:
                t[name + "_finished"] = False
                say("  %s did not finish in %.0f s" % (name, A.tool_timeout))
                continue
            took = time.monotonic() - started
            t[name + "_finished"] = True
            if took > A.tool_slow:
                t[name + "_ns"].append(int(took * 1e9))
                t[name + "_single_run"] = True
                say("  %s took %.1f s: measured by that one run" % (name, took))
            else:
                fast.append(name)
        for r in range(nr):
            if fast:
                cmd = [DRIVER, "spawn", "--ok", "0,1", str(A.tool_runs)]
                for name in fast:
                    cmd += tools[name] + ["--"]
                lines = [l for l in run(cmd[:-1]).splitlines() if " runs=" in l]
                for name, line in zip(fast, lines):
                    t[name + "_ns"].append(int(kv(line)["ns_median"]))
            if not t["pam_limits_finished"]:
                continue
            try:
                started = time.monotonic()
                s = kv(run([DRIVER, "session", pamd, "bench-limits", "u0000", "1"],
                           timeout=A.pam_limits_timeout).splitlines()[-1])
                t["pam_limits_ns"].append(int(s["ns_per_session"]))
                t["pam_limits_effect"] = {"rc": s["rc"], "soft": s["soft"], "hard": s["hard"]}
            except subprocess.TimeoutExpired:
                t["pam_limits_finished"] = False
                t["pam_limits_timeout_s"] = A.pam_limits_timeout
                say("  pam_limits did not finish in %.0f s" % (time.monotonic() - started))
        trees[size] = t
    results["trees"] = trees
    return sizes


# ---------------------------------------------------------------------------------------------
def fmt_us(x):
    return "%.1f" % us(x) if abs(us(x)) < 1000 else "%.0f" % us(x)


def fmt_time(ns):
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.1f ms" % (ns / 1e6)
    return "%.1f us" % (ns / 1e3)


def shape_table(title, rr, variants):
    """one shape's table: each stack's times and its ratio (ratios())"""
    out("")
    out("   %s" % title)
    out("   %-44s %10s %10s %-18s %s" % ("stack", "abs us", "net us", "net IQR us",
                                     "ratio [min..max]  of median nets"))
    for v in variants:
        e = rr[v]
        ratio = ("%.2f [%.2f..%.2f]  %.2f" % (e["ratio"]["median"], e["ratio"]["min"], e["ratio"]["max"],
                                              e["ratio_of_median_nets"]) if "ratio" in e else "-")
        iqr = "-" if v == "permit" else "%s..%s" % (fmt_us(e["net_ns"]["q1"]), fmt_us(e["net_ns"]["q3"]))
        out("   %-44s %10s %10s %-18s %s" % (DESCR[v], fmt_us(e["abs_ns"]["median"]),
                                             "-" if v == "permit" else fmt_us(e["net_ns"]["median"]), iqr, ratio))


def report(results, variants, sizes):
    out("pam_rdmalimit benchmark  %s  (%s, %d CPUs)" % (time.strftime("%Y-%m-%d %H:%M:%S"),
                                                        os.uname().release, os.cpu_count()))
    out("")
    out("1. Session-open cost per session (pam_start_confdir+open+close+pam_end), net of pam_permit")
    out("   ratio = (stack - permit) / (pam_limits - permit) per round: median [min..max] over rounds; "
        "then net median / pam_limits' net median; target <= 1.0")
    eff = results["effect"]
    for shape, title in (("many", "%d sessions in one process, %d rounds" % (A.sessions, A.rounds)),
                         ("inside", "one session per process, timed inside the process (pam_start..pam_end, no exec/exit): "
                          "%d processes per stack and round (median), %d rounds" % (A.spawns, A.spawn_rounds)),
                         ("inside_warm_nss", "the same, each stack after `%s` (NSS warm, as after pam_unix's auth and "
                          "account in a real login; the baseline is pam_permit after it)" % WARM_NSS.strip()),
                         ("spawn", "one session per process: %d spawns per stack and round, alternating stacks (median), %d rounds"
                          % (A.spawns, A.spawn_rounds))):
        if shape not in results["sessions"]:
            continue
        ns = results["sessions"][shape]["ns"]
        rr = ratios(ns, variants)
        results["sessions"][shape]["summary"] = rr
        shape_table(title, rr, variants)
        if shape == "spawn":
            pooled = {v: statistics.median(results["sessions"]["spawn"]["all_spawns_ns"][v]) for v in variants}
            den = pooled["limits"] - pooled["permit"]
            pr = {v: (pooled[v] - pooled["permit"]) / den for v in variants if v not in ("permit", "limits")}
            results["sessions"]["spawn"]["pooled_median_ns"] = pooled
            results["sessions"]["spawn"]["pooled_ratio"] = pr
            out("   pooled over all %d spawns per stack: median us %s; ratio %s" % (
                A.spawns * A.spawn_rounds, ", ".join("%s %s" % (v, fmt_us(pooled[v])) for v in variants),
                ", ".join("%s %.2f" % (v, pr[v]) for v in pr)))
    report_faults(results, variants)
    ch = results.get("container_host")
    if ch:
        for shape, title in (("inside", "a container host: %d more veths (%d interfaces in /sys/class/net), which auto "
                              "does not count; one session per process, timed inside" % (ch["veths"], ch["interfaces_listed"])),
                             ("inside_warm_nss", "the same, NSS warm")):
            rr = ratios(ch[shape]["ns"], HOST_VARIANTS)
            ch[shape]["summary"] = rr
            shape_table(title, rr, HOST_VARIANTS)
        out("   memlock after the session there: " + ", ".join(
            "%s %s/%s" % (v, ch["effect"][v]["soft"], ch["effect"][v]["hard"]) for v in HOST_VARIANTS))
    if "instructions" in results:
        ins = results["instructions"]
        out("")
        out("   instructions (callgrind; deterministic, but blind to syscall, page-fault and TLB cost)")
        out("   %-44s %12s %12s %8s %14s %12s %8s" % ("stack", "per session", "net", "ratio", "process N=1",
                                                     "net", "ratio"))
        for v in variants:
            a, b = ins[v]["per_session"], ins[v]["process_1_session"]
            na, nb = a - ins["permit"]["per_session"], b - ins["permit"]["process_1_session"]
            la = ins["limits"]["per_session"] - ins["permit"]["per_session"]
            lb = ins["limits"]["process_1_session"] - ins["permit"]["process_1_session"]
            ra = "-" if v in ("permit", "limits") else "%.2f" % (na / la)
            rb = "-" if v in ("permit", "limits") else "%.2f" % (nb / lb)
            ins[v]["ratio_per_session"] = None if ra == "-" else na / la
            ins[v]["ratio_process"] = None if rb == "-" else nb / lb
            out("   %-44s %12d %12s %8s %14d %12s %8s" % (DESCR[v], a, "-" if v == "permit" else na, ra, b,
                                                        "-" if v == "permit" else nb, rb))
    if "library_loads" in results:
        ll = results["library_loads"]
        out("")
        out("   loading a library in a fresh process (dlopen RTLD_NOW, median of %d processes): %s" % (
            A.dlopen_runs, "; ".join("%s %s us" % (k, fmt_us(v["median"])) for k, v in ll.items())))
    if "probe_check" in results:
        pc = results["probe_check"]
        out("")
        out("   what one session of each stack opened (strace; shared objects beyond libpam's own):")
        for v in pc:
            out("   %-44s libibverbs %-3s libconfig %-3s libmnl %-3s hw.cache %-4s [%s]" % (
                DESCR[v], "YES" if pc[v]["libibverbs"] else "no", "YES" if pc[v]["libconfig"] else "no",
                "YES" if pc[v]["libmnl"] else "no", "read" if pc[v]["cache"] else "-",
                " ".join(pc[v]["libraries"])))
        out("   setrlimit calls refused with EPERM: " + ", ".join("%s %d" % (v, pc[v]["setrlimit_eperm"]) for v in pc))
        if pc["limits"]["setrlimit_eperm"]:
            out("   NOTE: pam_limits was refused a setrlimit (EPERM) and logged it: a cost a login with "
                "CAP_SYS_RESOURCE never pays, so its time here is too high and every ratio too low")
    sl = results.get("syslog", {})
    if any(m is not None for m in sl.values()):
        out("   messages one session sends to /dev/log (served, as journald serves it): " +
            ", ".join("%s %d" % (v, len(m)) for v, m in sl.items()))
        if sl.get("auto-live"):
            out("   auto-live's: " + sl["auto-live"][-1])
    else:
        out("   NOTE: nothing served /dev/log: each message cost a failed connect, not a delivery")
    out("")
    out("   memlock after the session (soft/hard bytes): " + ", ".join(
        "%s %s/%s" % (v, eff[v]["soft"], eff[v]["hard"]) for v in variants))

    if A.quick:
        return
    out("")
    out("2. rdmalimits over generated trees vs ONE pam_limits session over the same tree; target <= 0.1 at 5k")
    out("   (rdmalimits: wall time of the process, median of %d runs per round; pam_limits: in-process "
        "session time; median [min..max] over rounds)" % A.tool_runs)
    out("   %-7s %-6s %-28s %-28s %-28s %-8s %-8s" % ("lines", "rounds", "check", "explain u0000",
                                                      "pam_limits session", "chk/pam", "expl/pam"))
    trees = results["trees"]
    for size in sizes:
        t = trees[size]
        c = t["check"] = stats(t["check_ns"]) if t["check_ns"] else None
        e = t["explain"] = stats(t["explain_ns"]) if t["explain_ns"] else None
        p = t["pam_limits"] = stats(t["pam_limits_ns"]) if t["pam_limits_ns"] else None
        if p:
            ptxt = fmt_time(p["median"]) + ("" if p["n"] < 2 else " [%s..%s]" % (fmt_time(p["min"]),
                                                                                  fmt_time(p["max"])))
            if not t["pam_limits_finished"]:
                ptxt += " (later run did not finish)"
        else:
            ptxt = "did not finish (>%.0f s)" % A.pam_limits_timeout

        def ratio(x, key):
            if x and p:
                t[key] = x["median"] / p["median"]
                return "%.4f" % t[key]
            t[key] = None
            if x:
                return "< %.4f" % (x["median"] / (A.pam_limits_timeout * 1e9))
            if p:
                return "> %.1f" % (A.tool_timeout * 1e9 / p["median"])
            return "?"

        def tool_txt(x, name):
            if not x:
                return "did not finish (>%.0f s)" % A.tool_timeout
            if t.get(name + "_single_run"):
                return "%s (1 run)" % fmt_time(x["median"])
            return "%s [%s..%s]" % (fmt_time(x["median"]), fmt_time(x["min"]), fmt_time(x["max"]))
        rtxt = (ratio(c, "ratio_check"), ratio(e, "ratio_explain"))
        out("   %-7d %-6d %-28s %-28s %-28s %-8s %-8s" % (
            t["lines"], t["rounds"], tool_txt(c, "check"), tool_txt(e, "explain"), ptxt, rtxt[0], rtxt[1]))
    growth = {}
    for a, b in zip(sizes, sizes[1:]):
        ta, tb = trees[a], trees[b]
        g = {"lines_ratio": tb["lines"] / ta["lines"]}
        for name in ("check", "explain", "pam_limits"):
            if ta.get(name) and tb.get(name):
                g[name] = tb[name]["median"] / ta[name]["median"]
        growth["%d/%d" % (b, a)] = g
        out("   growth %dk/%dk (lines x%.1f): %s" % (
            b // 1000, a // 1000, g["lines_ratio"],
            ", ".join("%s x%.2f" % (n, g[n]) for n in ("check", "explain", "pam_limits") if n in g) or "-"))
    results["tree_growth"] = growth

    out("")
    out("3. One process, VmRSS and open descriptors after 100 and after %d sessions "
        "(limits: growth < 512 KiB, 0 fds)" % A.mem_sessions)
    out("   %-44s %11s %11s %9s %8s %8s %8s" % ("stack", "rss@100", "rss@end", "growth", "fds@100", "fds@end",
                                                 "verdict"))
    for v in results["memory"]:
        m = results["memory"][v]
        okay = m["rss_growth_kb"] < 512 and m["fd_growth"] == 0
        m["within_limits"] = okay
        out("   %-44s %7d KiB %7d KiB %5d KiB %8d %8d %8s" % (DESCR[v], m["rss_kb_100"], m["rss_kb_end"],
                                                            m["rss_growth_kb"], m["fds_100"], m["fds_end"],
                                                            "ok" if okay else "OVER"))


def main():
    results = {"host": {"kernel": os.uname().release, "cpus": os.cpu_count()}}
    t0 = time.monotonic()
    variants = part1(results)
    sizes = [] if A.quick else part2(results)
    results["elapsed_s"] = time.monotonic() - t0
    report(results, variants, sizes)
    out("")
    out("elapsed %.0f s; raw numbers in %s" % (results["elapsed_s"], JSON_OUT))
    with open(A.out, "w") as f:
        f.write("\n".join(log_lines) + "\n")
    with open(JSON_OUT, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True, default=str)
        f.write("\n")


main()
