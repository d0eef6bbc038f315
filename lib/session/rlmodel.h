/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The kernel's rule for setrlimit(RLIMIT_MEMLOCK) and the module's result from it, for the
 * predictions of rdmalimits (the module's own rules: lib/login/rlimit.h). */
#include <stdbool.h>

#include "rlimit.h"

/* Would setrlimit(want) succeed from cur?  Raising the hard limit needs CAP_SYS_RESOURCE. */
bool rl_allowed(struct rl_pair cur, struct rl_pair want, bool cap_sys_resource);
/* The module's result from cur (rl_module_want(), else rl_module_closest()). */
struct rl_pair rl_after_module(struct rl_pair cur, struct rl_pair target, bool lower, bool cap_sys_resource,
                               bool *ret_eperm);
/* Is capability `cap` (CAP_SYS_RESOURCE, CAP_IPC_LOCK, ...) in this process's effective set
 * (CapEff of /proc/PID/status, procfs.h)? */
bool rl_have_cap(int cap);
