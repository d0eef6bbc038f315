/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * What setrlimit(RLIMIT_MEMLOCK) does with a service's limits: the rules the module applies
 * and the tool predicts with.  Pure functions, plus getrlimit and the capability check; the
 * module makes the setrlimit call itself.
 */
#include <stdbool.h>
#include <stdint.h>

struct rl_pair {
        uint64_t soft, hard;   /* bytes; UINT64_MAX is unlimited */
};

/* Would setrlimit(want) succeed from cur?  Raising the hard limit needs CAP_SYS_RESOURCE. */
bool rl_allowed(struct rl_pair cur, struct rl_pair want, bool cap_sys_resource);

/* pam_rdmalimit: the pair it asks for (never lower than cur unless lower). */
struct rl_pair rl_module_want(struct rl_pair cur, struct rl_pair target, bool lower);
/* ... and the closest it settles for when raising the hard limit is not allowed. */
struct rl_pair rl_module_closest(struct rl_pair cur, struct rl_pair want, bool lower);
/* The module's result from cur, for a prediction. */
struct rl_pair rl_after_module(struct rl_pair cur, struct rl_pair target, bool lower, bool cap_sys_resource,
                               bool *ret_eperm);

/* Is capability `cap` (CAP_SYS_RESOURCE, CAP_IPC_LOCK, ...) in this process's effective set? */
bool rl_have_cap(int cap);
/* getrlimit(RLIMIT_MEMLOCK) */
int rl_get_memlock(struct rl_pair *ret);
