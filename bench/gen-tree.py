#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gen-tree.py ROOT LINES [--seed N] [--groups G] [--users U] [--files F]

Writes a root tree for the check/explain benchmark:

  ROOT/etc/passwd, ROOT/etc/group    U users u0000.. (uid 10000..) and G groups g0000..
                                     (gid 20000..); a user's primary group is g(i % G), and
                                     each group lists a few members; u0000, the user the
                                     bench explains, is a member of about a dozen groups
  ROOT/etc/security/limits.conf      Debian's header comments, then a tenth of the entries
  ROOT/etc/security/limits.d/*.conf  F drop-ins sharing the other entries
  ROOT/etc/pam.d/sshd                session required pam_limits.so

LINES counts every line of limits.conf and limits.d together.  Entries are memlock lines
(soft, hard or '-') for @group (10% of the lines), @:gid (2%), a uid range (28%), a user
(50%); the rest (10%) are comments and blank lines.  Every value is at or under 8192 KiB.  The same seed
gives the same tree.  Prints "lines=N files=F groups=G users=U".
"""
import argparse
import os
import random

# Shares of all lines.  pam_limits 1.5.2 costs about the cube of the number of @group and
# @:gid lines (every such line stores another pam_modutil_getpwnam/getgrnam result under a
# numbered key, found again by linear search from number 0), so their share decides how long
# its session takes: 12% gives about 1 s at 5k lines on an idle machine, 55% about 100 s.
GROUP_SHARE = 0.10
GID_SHARE = 0.02
RANGE_SHARE = 0.28
# users: the rest of the 90% entries; comments and blank lines: 10%

DEBIAN_HEADER = """\
# /etc/security/limits.conf
#
#Each line describes a limit for a user in the form:
#
#<domain>        <type>  <item>  <value>
#
#Where:
#<domain> can be:
#        - a user name
#        - a group name, with @group syntax
#        - the wildcard *, for default entry
#        - the wildcard %, can be also used with %group syntax,
#                 for maxlogin limit
#        - NOTE: group and wildcard limits are not applied to root.
#          To apply a limit to the root user, <domain> must be
#          the literal username root.
#
#<type> can have the two values:
#        - "soft" for enforcing the soft limits
#        - "hard" for enforcing hard limits
#
#<item> can be one of the following:
#        - memlock - max locked-in-memory address space (KB)
#
""".splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("lines", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--groups", type=int, default=400)
    ap.add_argument("--users", type=int, default=300)
    ap.add_argument("--files", type=int, default=20)
    a = ap.parse_args()
    rnd = random.Random(a.seed * 1000003 + a.lines)
    etc = os.path.join(a.root, "etc")
    os.makedirs(os.path.join(etc, "security", "limits.d"), exist_ok=True)
    os.makedirs(os.path.join(etc, "pam.d"), exist_ok=True)

    users = ["u%04d" % i for i in range(a.users)]
    groups = ["g%04d" % i for i in range(a.groups)]
    members = {g: set() for g in groups}
    for i, u in enumerate(users):
        for g in rnd.sample(groups, rnd.randint(0, 6)):
            members[g].add(u)
    for g in rnd.sample(groups, 12):
        members[g].add(users[0])
    with open(os.path.join(etc, "passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/bash\n")
        for i, u in enumerate(users):
            f.write("%s:x:%d:%d::/home/%s:/bin/sh\n" % (u, 10000 + i, 20000 + i % a.groups, u))
    with open(os.path.join(etc, "group"), "w") as f:
        f.write("root:x:0:\n")
        for i, g in enumerate(groups):
            f.write("%s:x:%d:%s\n" % (g, 20000 + i, ",".join(sorted(members[g]))))
    with open(os.path.join(etc, "pam.d", "sshd"), "w") as f:
        f.write("session required pam_limits.so\n")

    def entry():
        x = rnd.random() * 0.9
        if x < GROUP_SHARE:
            dom = "@" + rnd.choice(groups)
        elif x < GROUP_SHARE + GID_SHARE:
            dom = "@:%d" % (20000 + rnd.randrange(a.groups))
        elif x < GROUP_SHARE + GID_SHARE + RANGE_SHARE:
            lo = 10000 + rnd.randrange(a.users)
            dom = "%d:%d" % (lo, lo + rnd.randrange(50))
        else:
            dom = rnd.choice(users)
        typ = rnd.choice(("soft", "hard", "-"))
        val = 64 * rnd.randint(1, 128)      # 64 KiB .. 8 MiB
        return "%-16s %-5s memlock %d" % (dom, typ, val)

    def body(n):
        out = []
        for _ in range(n):
            x = rnd.random()
            if x < 0.9:
                out.append(entry())
            elif x < 0.95:
                out.append("# generated comment %d" % rnd.randrange(1 << 20))
            else:
                out.append("")
        return out

    total = a.lines
    head = DEBIAN_HEADER[: min(len(DEBIAN_HEADER), total)]
    rest = total - len(head)
    main_n = rest // 10
    files = [head + body(main_n)]
    rest -= main_n
    for k in range(a.files):
        n = rest // (a.files - k)
        files.append(body(n))
        rest -= n
    names = ["limits.conf"] + ["limits.d/%02d-gen%02d.conf" % (10 + 4 * k, k) for k in range(a.files)]
    count = 0
    for name, lines in zip(names, files):
        with open(os.path.join(etc, "security", name), "w") as f:
            for l in lines:
                f.write(l + "\n")
        count += len(lines)
    print("lines=%d files=%d groups=%d users=%d" % (count, len(files), a.groups, a.users))


if __name__ == "__main__":
    main()
