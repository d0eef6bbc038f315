/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam-session SERVICE USER CONFDIR
 *
 * Opens a PAM session of USER with the stack CONFDIR/SERVICE (pam_start_confdir, so the
 * host's /etc/pam.d is never read) and prints one line:
 *
 *     rc=<PAM return code of pam_open_session> soft=<n|unlimited> hard=<n|unlimited>
 *
 * where soft and hard are this process's RLIMIT_MEMLOCK in bytes right after
 * pam_open_session returned: what the real modules of the stack (pam_limits.so) did to it.
 * With PAM_SESSION_MEMLOCK=SOFT:HARD (bytes or "unlimited") in the environment it first
 * sets its own RLIMIT_MEMLOCK to that: the limits of the service that opens the session.
 * Exit status: 0 when the line was printed (whatever rc is), 2 on a usage error, 1 when
 * the PAM handle could not even be set up.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <security/pam_appl.h>

/* Messages of the modules (pam_error, pam_info) go to stderr; nobody answers prompts. */
static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        (void)data;
        for (int i = 0; i < n; i++) {
                switch (msg[i]->msg_style) {
                case PAM_ERROR_MSG:
                case PAM_TEXT_INFO:
                        fprintf(stderr, "pam-session: module says: %s\n", msg[i]->msg ? msg[i]->msg : "");
                        break;
                default:
                        return PAM_CONV_ERR;
                }
        }
        *resp = NULL;
        return PAM_SUCCESS;
}

static const char *rc_name(int rc, char *buf, size_t size) {
        static const struct {
                int rc;
                const char *name;
        } names[] = {
                { PAM_SUCCESS, "PAM_SUCCESS" },         { PAM_OPEN_ERR, "PAM_OPEN_ERR" },
                { PAM_SYMBOL_ERR, "PAM_SYMBOL_ERR" },   { PAM_SERVICE_ERR, "PAM_SERVICE_ERR" },
                { PAM_SYSTEM_ERR, "PAM_SYSTEM_ERR" },   { PAM_BUF_ERR, "PAM_BUF_ERR" },
                { PAM_PERM_DENIED, "PAM_PERM_DENIED" }, { PAM_USER_UNKNOWN, "PAM_USER_UNKNOWN" },
                { PAM_SESSION_ERR, "PAM_SESSION_ERR" }, { PAM_ABORT, "PAM_ABORT" },
                { PAM_IGNORE, "PAM_IGNORE" },           { PAM_CONV_ERR, "PAM_CONV_ERR" },
        };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                if (names[i].rc == rc)
                        return names[i].name;
        snprintf(buf, size, "%d", rc);
        return buf;
}

/* "unlimited" or a decimal number, nothing else */
static int parse_rlim(const char *s, const char *end, rlim_t *ret) {
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

static int set_start_limits(const char *spec) {
        const char *colon = strchr(spec, ':');
        struct rlimit rl;
        if (!colon || parse_rlim(spec, colon, &rl.rlim_cur) < 0 ||
            parse_rlim(colon + 1, colon + 1 + strlen(colon + 1), &rl.rlim_max) < 0) {
                fprintf(stderr, "pam-session: bad PAM_SESSION_MEMLOCK '%s'\n", spec);
                return -1;
        }
        if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
                fprintf(stderr, "pam-session: setrlimit(RLIMIT_MEMLOCK, %s): %s\n", spec, strerror(errno));
                return -1;
        }
        return 0;
}

static const char *rlim_text(rlim_t v, char *buf, size_t size) {
        if (v == RLIM_INFINITY)
                return "unlimited";
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return buf;
}

/* PAM_SESSION_RLIMITS="nofile=S:H,nproc=S:H": more of the service's own limits */
static int set_more_limits(const char *spec) {
        static const struct { const char *name; int res; } names[] = {
                { "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC }, { "nice", RLIMIT_NICE },
                { "rtprio", RLIMIT_RTPRIO }, { "msgqueue", RLIMIT_MSGQUEUE }, { "sigpending", RLIMIT_SIGPENDING },
                { "core", RLIMIT_CORE }, { "locks", RLIMIT_LOCKS },
        };
        char buf[512];
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(w, '='), *colon = eq ? strchr(eq, ':') : NULL;
                int res = -1;
                if (!colon)
                        return -1;
                *eq = '\0';
                for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                        if (strcmp(names[i].name, w) == 0)
                                res = names[i].res;
                struct rlimit rl;
                unsigned long long s = strtoull(eq + 1, NULL, 10), h = strtoull(colon + 1, NULL, 10);
                rl.rlim_cur = strncmp(eq + 1, "unlimited", 9) == 0 ? RLIM_INFINITY : (rlim_t)s;
                rl.rlim_max = strncmp(colon + 1, "unlimited", 9) == 0 ? RLIM_INFINITY : (rlim_t)h;
                if (res < 0 || setrlimit(res, &rl) < 0)
                        return -1;
        }
        return 0;
}

int main(int argc, char **argv) {
        struct pam_conv c = { conv, NULL };
        pam_handle_t *h = NULL;
        struct rlimit rl;
        char b1[32], b2[32], b3[32];
        int rc;

        if (argc != 4) {
                fprintf(stderr, "usage: %s SERVICE USER CONFDIR\n", argv[0]);
                return 2;
        }
        const char *start = getenv("PAM_SESSION_MEMLOCK");
        if (start && set_start_limits(start) < 0)
                return 1;
        const char *more = getenv("PAM_SESSION_RLIMITS");
        if (more && set_more_limits(more) < 0) {
                fprintf(stderr, "pam-session: bad PAM_SESSION_RLIMITS '%s'\n", more);
                return 1;
        }
        rc = pam_start_confdir(argv[1], argv[2], &c, argv[3], &h);
        if (rc != PAM_SUCCESS) {
                fprintf(stderr, "pam-session: pam_start_confdir: %s\n", rc_name(rc, b1, sizeof b1));
                return 1;
        }
        rc = pam_open_session(h, 0);
        if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
                perror("pam-session: getrlimit");
                pam_end(h, rc);
                return 1;
        }
        printf("rc=%s soft=%s hard=%s\n", rc_name(rc, b1, sizeof b1), rlim_text(rl.rlim_cur, b2, sizeof b2),
               rlim_text(rl.rlim_max, b3, sizeof b3));
        if (rc == PAM_SUCCESS)
                (void)pam_close_session(h, 0);
        pam_end(h, rc);
        return fflush(stdout) == 0 ? 0 : 1;
}
