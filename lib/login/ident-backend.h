/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The context of ident.h and its backends.  Without one it asks NSS (what a login runs); a
 * backend fills the maps itself (lib/host/ident-files.c: the files of a --root tree, which
 * only rdmalimits reads).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ident.h"
#include "strmap.h"

struct ident_backend {
        /* user_gids lists every group whose members name the user (a tree's files, read by
         * the same reader): membership needs no look at gr_mem */
        bool gids_cover_members;
        /* fill users, groups and gids (once: later calls return 0); the maps' values are the
         * backend's */
        int (*load)(struct ident *id);
        /* after load: the user of uid, -ENOENT */
        int (*user_by_uid)(struct ident *id, uid_t uid, const struct id_user **ret);
        /* after load: the user's group list, primary gid first (malloc()ed) */
        int (*user_gids)(struct ident *id, const struct id_user *u, gid_t **ret, size_t *ret_n);
        /* what the backend owns (data), not the maps */
        void (*free)(struct ident *id);
};

struct ident {
        struct strmap users;            /* name -> struct id_user * | ABSENT */
        struct strmap groups;           /* name -> struct id_group * | ABSENT */
        struct strmap gids;             /* "gid" -> struct id_group * | ABSENT */
        struct strmap uids;             /* "uid" -> struct id_user * | ABSENT (NSS only) */
        const struct ident_backend *backend;    /* NULL: NSS */
        void *data;                     /* the backend's */
};

void ident_user_free(void *p);
void ident_group_free(void *p);

/*
 * The one look-up path: with a backend the maps were filled by it; with NSS a miss is asked
 * with fetch(arg) once and the answer, or its absence, is cached (free_value frees what fetch
 * made).  -ENOENT when unknown.
 */
int ident_lookup(struct ident *id, struct strmap *map, const char *key, int (*fetch)(const void *arg, void **ret),
                 const void *arg, void (*free_value)(void *), void **ret);
/* The key of a uid or gid in the uids and gids maps: its decimal digits, in key (returned). */
const char *ident_id_key(uint32_t v, char key[static 11]);
/* getgrgid_r() of *(const gid_t *)gid into *ret (a struct id_group *) */
int ident_fetch_gid(const void *gid, void **ret);
