/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"
#include "rlimit.h"
#include "size.h"

bool rl_allowed(struct rl_pair cur, struct rl_pair want, bool cap) {
        if (want.soft > want.hard)
                return false;     /* EINVAL */
        return cap || want.hard <= cur.hard;
}

struct rl_pair rl_module_want(struct rl_pair cur, struct rl_pair target, bool lower) {
        struct rl_pair w;
        w.hard = lower ? target.hard : (target.hard > cur.hard ? target.hard : cur.hard);
        w.soft = lower ? target.soft : (target.soft > cur.soft ? target.soft : cur.soft);
        if (w.soft > w.hard)
                w.soft = w.hard;
        return w;
}

struct rl_pair rl_module_closest(struct rl_pair cur, struct rl_pair want, bool lower) {
        /* the hard limit cannot rise: keep it, and take soft as far as it may go */
        struct rl_pair n = { .hard = want.hard < cur.hard ? want.hard : cur.hard };
        n.soft = want.soft < n.hard ? want.soft : n.hard;
        if (!lower && n.soft < cur.soft && cur.soft <= n.hard)
                n.soft = cur.soft;
        return n;
}

struct rl_pair rl_after_module(struct rl_pair cur, struct rl_pair target, bool lower, bool cap, bool *ret_eperm) {
        struct rl_pair w = rl_module_want(cur, target, lower);
        bool ok = rl_allowed(cur, w, cap);
        if (ret_eperm)
                *ret_eperm = !ok;
        return ok ? w : rl_module_closest(cur, w, lower);
}

bool rl_have_cap(int cap) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
        _cleanup_free_ char *line = NULL;
        size_t n = 0;
        if (!f)
                return false;
        while (getline(&line, &n, f) > 0) {
                if (strncmp(line, "CapEff:", 7) != 0)
                        continue;
                const char *p = line + 7;
                while (*p == ' ' || *p == '\t')
                        p++;
                uint64_t caps = 0;
                for (; *p && *p != '\n'; p++) {
                        int d = (*p >= '0' && *p <= '9') ? *p - '0' : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : -1;
                        if (d < 0)
                                return false;
                        caps = caps << 4 | (uint64_t)d;
                }
                return cap >= 0 && cap < 64 && (caps & (UINT64_C(1) << cap));
        }
        return false;
}

int rl_get_memlock(struct rl_pair *ret) {
        struct rlimit r;
        if (getrlimit(RLIMIT_MEMLOCK, &r) < 0)
                return negative_errno();
        ret->soft = r.rlim_cur;
        ret->hard = r.rlim_max;
        return 0;
}
