/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen-module PATH: load a PAM module the way libpam does (dlopen RTLD_NOW), in a process
 * not linked with libpam, so every dependency must come from the module's own DT_NEEDED, and
 * find its two session entry points.  Exit 0 and "ok" on success, 1 with dlerror() otherwise.
 * (Linux-PAM tests/tst-dlopen.c does the same for its modules.)
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
        static const char *const syms[] = { "pam_sm_open_session", "pam_sm_close_session" };
        void *h;
        int r = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: dlopen-module PATH\n");
                return 2;
        }
        h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                printf("dlopen: %s\n", dlerror());
                return 1;
        }
        for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
                if (!dlsym(h, syms[i])) {
                        printf("dlsym %s: %s\n", syms[i], dlerror());
                        r = 1;
                }
        }
        if (dlclose(h) != 0) {
                printf("dlclose: %s\n", dlerror());
                r = 1;
        }
        if (r == 0)
                printf("ok\n");
        return r;
}
