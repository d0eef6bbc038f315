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

int rl_get_memlock(struct rl_pair *ret) {
        struct rlimit r;
        if (getrlimit(RLIMIT_MEMLOCK, &r) < 0)
                return negative_errno();
        ret->soft = r.rlim_cur;
        ret->hard = r.rlim_max;
        return 0;
}
