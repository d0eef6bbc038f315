/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "macro.h"
#include "procfs.h"
#include "rlmodel.h"

bool rl_allowed(struct rl_pair cur, struct rl_pair want, bool cap) {
        if (want.soft > want.hard)
                return false;     /* EINVAL */
        return cap || want.hard <= cur.hard;
}

struct rl_pair rl_after_module(struct rl_pair cur, struct rl_pair target, bool lower, bool cap, bool *ret_eperm) {
        struct rl_pair w = rl_module_want(cur, target, lower);
        bool ok = rl_allowed(cur, w, cap);
        if (ret_eperm)
                *ret_eperm = !ok;
        return ok ? w : rl_module_closest(cur, w, lower);
}

bool rl_have_cap(int cap) {
        _cleanup_free_ char *status = NULL;
        return cap >= 0 && proc_read(getpid(), "status", 64 * 1024, &status) >= 0 &&
               proc_cap_effective(getpid(), status, (unsigned)cap);
}
