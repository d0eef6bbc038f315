/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Where libpam finds a stack line's module: the one answer for the session engine (a module
 * libpam cannot load returns PAM_MODULE_UNKNOWN, which its control then decides) and for
 * doctor's findings.  libpam loads a bare name from one directory only (its build's; found
 * here as the usual directory holding pam_permit.so or pam_unix.so), an absolute path as
 * written.  A tree without such a directory (an image's /etc alone) cannot tell: the modules
 * are then taken as present, and the caller says so.
 */
#include <stdbool.h>

#include "strv.h"

enum pam_mod_state {
        PAM_MOD_FOUND,          /* libpam loads it */
        PAM_MOD_ELSEWHERE,      /* a bare name found in another module directory only */
        PAM_MOD_MISSING,        /* nowhere */
        PAM_MOD_UNCHECKED,      /* the tree has no PAM module directory: taken as present */
        PAM_MOD_NO_FUNCTION,    /* libpam loads it, but it lacks the phase's function
                                 * (pam_nologin has no pam_sm_open_session): the line returns
                                 * PAM_MODULE_UNKNOWN */
};

struct pam_moddirs {
        struct strv dirs;       /* the usual module directories (and securedir) */
        long pamdir;            /* the one libpam loads bare names from, -1: none found */
        bool loaded;
};

/* The directories under root (NULL: /), securedir (may be NULL) among them.  0 or -ENOMEM. */
int pam_moddirs_load(struct pam_moddirs *m, const char *root, const char *securedir);
void pam_moddirs_clear(struct pam_moddirs *m);
/* The state of module as written on a stack line ("pam_limits.so", "/opt/x/pam_x.so");
 * fn (may be NULL: not asked): the function libpam looks up in it for the phase
 * (pam_phase_function()).  *ret_found (may be NULL): where a PAM_MOD_ELSEWHERE module is,
 * malloc()ed. */
int pam_module_state(const struct pam_moddirs *m, const char *root, const char *module, const char *fn,
                     enum pam_mod_state *ret, char **ret_found);
/* Can libpam not load it (PAM_MOD_MISSING or PAM_MOD_ELSEWHERE)? */
static inline bool pam_mod_unloadable(enum pam_mod_state s) {
        return s == PAM_MOD_MISSING || s == PAM_MOD_ELSEWHERE;
}
/* Does its line return PAM_MODULE_UNKNOWN (unloadable, or without the phase's function)? */
static inline bool pam_mod_unknown(enum pam_mod_state s) {
        return pam_mod_unloadable(s) || s == PAM_MOD_NO_FUNCTION;
}
/* The function libpam calls for a phase ("session": pam_sm_open_session), NULL for an unknown one. */
const char *pam_phase_function(const char *phase);
/*
 * Does the ELF shared object at path (inside root) define sym in its dynamic symbol table?
 * Read, never loaded: no constructor of the file runs.  1, 0, or -errno when it cannot tell
 * (unreadable, not ELF of this machine's byte order, no section headers, larger than 256 MiB).
 * libpam's dlsym() would also search the libraries the module needs; no library a module links
 * defines a pam_sm_ function.
 */
int pam_module_defines(const char *root, const char *path, const char *sym);
