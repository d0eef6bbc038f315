/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "macro.h"
#include "pammod.h"

static char *join(const char *dir, const char *name) {
        char *p;
        return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* the multiarch directories DIR/TRIPLET/security that exist */
static int add_multiarch(struct pam_moddirs *m, const char *root, const char *lib) {
        DIR *dir = NULL;
        struct dirent *de;
        int r = fs_opendir_in_root(root, lib, &dir);

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        r = 0;
        while (r >= 0 && (de = readdir(dir))) {
                if (de->d_name[0] == '.' || fnmatch("*-*-*", de->d_name, FNM_PERIOD) != 0)
                        continue;
                _cleanup_free_ char *sub = join(lib, de->d_name), *p = sub ? join(sub, "security") : NULL;
                if (!p)
                        r = -ENOMEM;
                else if (!strv_contains(m->dirs.v, p) && (r = fs_exists_in_root(root, p, true)) > 0)
                        r = strv_push(&m->dirs, p);
        }
        closedir(dir);
        return r;
}

int pam_moddirs_load(struct pam_moddirs *m, const char *root, const char *securedir) {
        static const char *const fixed[] = { "/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security",
                                             "/lib/security",  "/usr/lib/security",
                                             "/lib64/security", "/usr/lib64/security" };
        int r = 0;

        *m = (struct pam_moddirs){ .pamdir = -1 };
        for (size_t i = 0; i < ELEMENTSOF(fixed) && r >= 0; i++)
                r = strv_push(&m->dirs, fixed[i]);
        if (r >= 0)
                r = add_multiarch(m, root, "/usr/lib");
        if (r >= 0)
                r = add_multiarch(m, root, "/lib");
        if (r >= 0 && securedir && securedir[0] == '/' && !strv_contains(m->dirs.v, securedir))
                r = strv_push(&m->dirs, securedir);
        for (size_t i = 0; r >= 0 && i < m->dirs.n && m->pamdir < 0; i++) {
                _cleanup_free_ char *a = join(m->dirs.v[i], "pam_permit.so"), *b = join(m->dirs.v[i], "pam_unix.so");
                if (!a || !b)
                        r = -ENOMEM;
                else if ((r = fs_exists_in_root(root, a, false)) == 0)
                        r = fs_exists_in_root(root, b, false);
                if (r > 0)
                        m->pamdir = (long)i;
        }
        if (r < 0) {
                pam_moddirs_clear(m);
                return r;
        }
        m->loaded = true;
        return 0;
}

void pam_moddirs_clear(struct pam_moddirs *m) {
        strv_clear(&m->dirs);
        m->pamdir = -1;
        m->loaded = false;
}

int pam_module_state(const struct pam_moddirs *m, const char *root, const char *module, enum pam_mod_state *ret,
                     char **ret_found) {
        _cleanup_free_ char *found = NULL;

        if (ret_found)
                *ret_found = NULL;
        if (module[0] == '/') {
                int r = fs_exists_in_root(root, module, false);
                if (r < 0)
                        return r;
                *ret = r > 0 ? PAM_MOD_FOUND : m->pamdir < 0 ? PAM_MOD_UNCHECKED : PAM_MOD_MISSING;
                return 0;
        }
        if (m->pamdir < 0) {
                *ret = PAM_MOD_UNCHECKED;
                return 0;
        }
        *ret = PAM_MOD_MISSING;
        for (size_t i = 0; i < m->dirs.n; i++) {
                _cleanup_free_ char *p = join(m->dirs.v[i], module);
                if (!p)
                        return -ENOMEM;
                int r = fs_exists_in_root(root, p, false);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if ((long)i == m->pamdir) {
                        *ret = PAM_MOD_FOUND;
                        return 0;
                }
                if (!found) {
                        found = TAKE_PTR(p);
                        *ret = PAM_MOD_ELSEWHERE;
                }
        }
        if (ret_found)
                *ret_found = TAKE_PTR(found);
        return 0;
}
