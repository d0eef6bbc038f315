/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnss_ci.so.2: a case-insensitive passwd source for tests, as SSSD or winbind with
 * `case_sensitive = false` are: getpwnam("BOB") answers the entry of "bob", with the
 * canonical (lower-case) pw_name.  Only getpwnam_r is implemented; everything else falls
 * through to the next source (`passwd: ci files` in nsswitch.conf).
 *
 * It reads the passwd-format file NSS_CI_PASSWD (compile-time, default /etc/passwd: the
 * tests bind-mount a throwaway copy there in a private mount namespace).  Test code only:
 * never installed.
 */
#include <errno.h>
#include <nss.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifndef NSS_CI_PASSWD
#define NSS_CI_PASSWD "/etc/passwd"
#endif

enum nss_status _nss_ci_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len, int *errnop);

enum nss_status _nss_ci_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len, int *errnop) {
        enum nss_status st = NSS_STATUS_NOTFOUND;
        struct passwd *e;
        FILE *f;

        if (!name || !*name) {
                *errnop = ENOENT;
                return NSS_STATUS_NOTFOUND;
        }
        f = fopen(NSS_CI_PASSWD, "re");
        if (!f) {
                *errnop = errno;
                return NSS_STATUS_UNAVAIL;
        }
        for (;;) {
                struct passwd tmp;
                int r = fgetpwent_r(f, &tmp, buf, len, &e);
                if (r == ERANGE) {
                        *errnop = ERANGE;
                        st = NSS_STATUS_TRYAGAIN;
                        break;
                }
                if (r != 0)
                        break;
                if (strcasecmp(e->pw_name, name) == 0) {
                        *pw = tmp;
                        st = NSS_STATUS_SUCCESS;
                        break;
                }
        }
        fclose(f);
        if (st == NSS_STATUS_NOTFOUND)
                *errnop = ENOENT;
        return st;
}
