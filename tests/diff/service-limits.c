/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "service-limits.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rlim_parse(const char *s, const char *end, rlim_t *ret) {
        unsigned long long v = 0;
        if ((size_t)(end - s) == strlen("unlimited") && strncmp(s, "unlimited", (size_t)(end - s)) == 0) {
                *ret = RLIM_INFINITY;
                return 0;
        }
        if (s == end)
                return -1;
        for (const char *p = s; p < end; p++) {
                if (*p < '0' || *p > '9' || v > (ULLONG_MAX - 9) / 10)
                        return -1;
                v = v * 10 + (unsigned long long)(*p - '0');
        }
        *ret = (rlim_t)v;
        return 0;
}

const char *rlim_text(rlim_t v, char *buf, size_t size) {
        if (v == RLIM_INFINITY)
                return "unlimited";
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return buf;
}

/* resource res to SOFT:HARD in [s, end); var and spec (the whole variable) for the messages */
static int set_pair(const char *prog, const char *var, const char *spec, int res, const char *s, const char *end) {
        const char *colon = memchr(s, ':', (size_t)(end - s));
        struct rlimit rl;
        if (!colon || rlim_parse(s, colon, &rl.rlim_cur) < 0 || rlim_parse(colon + 1, end, &rl.rlim_max) < 0) {
                fprintf(stderr, "%s: bad %s '%s'\n", prog, var, spec);
                return -1;
        }
        if (setrlimit(res, &rl) < 0) {
                fprintf(stderr, "%s: %s '%s': setrlimit: %s\n", prog, var, spec, strerror(errno));
                return -1;
        }
        return 0;
}

/* name=SOFT:HARD,...: the items pam_limits sets besides memlock */
static int set_more(const char *prog, const char *spec) {
        static const struct { const char *name; int res; } names[] = {
                { "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC }, { "nice", RLIMIT_NICE },
                { "rtprio", RLIMIT_RTPRIO }, { "msgqueue", RLIMIT_MSGQUEUE }, { "sigpending", RLIMIT_SIGPENDING },
                { "core", RLIMIT_CORE }, { "locks", RLIMIT_LOCKS },
        };
        for (const char *w = spec, *end; *w; w = *end ? end + 1 : end) {
                end = w + strcspn(w, ",");
                const char *eq = memchr(w, '=', (size_t)(end - w));
                int res = -1;
                for (size_t i = 0; eq && i < sizeof names / sizeof names[0]; i++)
                        if ((size_t)(eq - w) == strlen(names[i].name) && strncmp(names[i].name, w, (size_t)(eq - w)) == 0)
                                res = names[i].res;
                if (res < 0) {
                        fprintf(stderr, "%s: bad PAM_SESSION_RLIMITS '%s'\n", prog, spec);
                        return -1;
                }
                if (set_pair(prog, "PAM_SESSION_RLIMITS", spec, res, eq + 1, end) < 0)
                        return -1;
        }
        return 0;
}

int service_limits_from_env(const char *prog) {
        const char *memlock = getenv("PAM_SESSION_MEMLOCK");
        const char *more = getenv("PAM_SESSION_RLIMITS");
        if (memlock && set_pair(prog, "PAM_SESSION_MEMLOCK", memlock, RLIMIT_MEMLOCK, memlock, memlock + strlen(memlock)) < 0)
                return -1;
        if (more && set_more(prog, more) < 0)
                return -1;
        return 0;
}
