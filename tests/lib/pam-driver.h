/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam-driver.h: what the programs that open real PAM sessions share (tests/pam/pam-run.c,
 * tests/diff/pam-session.c, bench/pam-bench.c): static inline functions of libc and
 * <security/pam_appl.h> only, so an includer needs no other object (bench/run.sh and
 * tests/diff/oracles.sh also compile their driver alone with $CC).  An includer that calls
 * die() defines PAM_DRIVER, its name, first.
 */
#ifndef RDMALIMIT_TESTS_PAM_DRIVER_H
#define RDMALIMIT_TESTS_PAM_DRIVER_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <security/pam_appl.h>

#ifdef PAM_DRIVER
/* "PAM_DRIVER: message" on stderr, exit status 2 */
__attribute__((noreturn, format(printf, 1, 2))) static inline void die(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        fprintf(stderr, PAM_DRIVER ": ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        exit(2);
}
#endif

/* The name of a PAM return code, NULL when it is none of these. */
static inline const char *pam_rc_name(int rc) {
        switch (rc) {
#define N(x) case x: return #x
        N(PAM_SUCCESS); N(PAM_OPEN_ERR); N(PAM_SYMBOL_ERR); N(PAM_SERVICE_ERR);
        N(PAM_SYSTEM_ERR); N(PAM_BUF_ERR); N(PAM_PERM_DENIED); N(PAM_AUTH_ERR);
        N(PAM_USER_UNKNOWN); N(PAM_SESSION_ERR); N(PAM_CONV_ERR); N(PAM_ABORT);
        N(PAM_IGNORE); N(PAM_MODULE_UNKNOWN); N(PAM_BAD_ITEM);
#undef N
        default:
                return NULL;
        }
}

/* pam_rc_name(), else the number in buf */
static inline const char *pam_rc_text(int rc, char buf[static 16]) {
        const char *n = pam_rc_name(rc);

        if (n)
                return n;
        snprintf(buf, 16, "%d", rc);
        return buf;
}

/* A limit as "unlimited" or its decimal number */
static inline void fmt_rlim(rlim_t v, char buf[static 24]) {
        if (v == RLIM_INFINITY)
                snprintf(buf, 24, "unlimited");
        else
                snprintf(buf, 24, "%llu", (unsigned long long)v);
}

/* The descriptors this process has open, -1 when /proc/self/fd cannot be read. */
static inline int count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;

        if (!d)
                return -1;
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n - 1; /* the directory's own descriptor */
}

/* VmRSS of /proc/self/status in KiB, -1 when it cannot be read. */
static inline long rss_kb(void) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        long v = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof line, f))
                if (strncmp(line, "VmRSS:", 6) == 0) {
                        const char *p = line + 6;
                        v = 0;
                        while (*p == ' ' || *p == '\t')
                                p++;
                        for (; *p >= '0' && *p <= '9'; p++)
                                v = v * 10 + (*p - '0');
                        break;
                }
        fclose(f);
        return v;
}

#endif
