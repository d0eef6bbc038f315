/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The service's own limits, shared by the two session drivers (pam-session: the real
 * pam_limits.so, model-session: the limits model's prediction), so that both start from the
 * same process limits:
 *
 *     PAM_SESSION_MEMLOCK=SOFT:HARD                 RLIMIT_MEMLOCK
 *     PAM_SESSION_RLIMITS=nofile=SOFT:HARD,...      nofile nproc nice rtprio msgqueue
 *                                                   sigpending core locks
 *
 * SOFT and HARD are "unlimited" or a decimal number (bytes for memlock), nothing else.
 * Self-contained (libc only): tests/diff/oracles.sh compiles it into a pam-session of
 * another release too.
 */
#pragma once

#include <stddef.h>
#include <sys/resource.h>

/* [s, end) as "unlimited" (RLIM_INFINITY) or a decimal number; -1 for anything else */
int rlim_parse(const char *s, const char *end, rlim_t *ret);

/* "unlimited" or the decimal number, in buf when it is a number */
const char *rlim_text(rlim_t v, char *buf, size_t size);

/* Sets this process's limits from PAM_SESSION_MEMLOCK and PAM_SESSION_RLIMITS (each
 * optional); on a bad value or a failed setrlimit says why on stderr, prefixed with prog,
 * and returns -1. */
int service_limits_from_env(const char *prog);
