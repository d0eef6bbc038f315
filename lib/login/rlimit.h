/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * What pam_rdmalimit asks setrlimit(RLIMIT_MEMLOCK) for: the rules the module applies and
 * the tool predicts with (rl_after_module(), lib/session/rlmodel.h).  Pure functions, plus
 * getrlimit; the module makes the setrlimit call itself.
 */
#include <stdbool.h>
#include <stdint.h>

struct rl_pair {
        uint64_t soft, hard;   /* bytes; UINT64_MAX is unlimited */
};

/* pam_rdmalimit: the pair it asks for (never lower than cur unless lower). */
struct rl_pair rl_module_want(struct rl_pair cur, struct rl_pair target, bool lower);
/* ... and the closest it settles for when raising the hard limit is not allowed. */
struct rl_pair rl_module_closest(struct rl_pair cur, struct rl_pair want, bool lower);
/* getrlimit(RLIMIT_MEMLOCK) */
int rl_get_memlock(struct rl_pair *ret);
