/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ident.h"
#include "ident-backend.h"
#include "macro.h"
#include "strmap.h"
#include "strv.h"

/* Marks "looked up, does not exist" in the caches. */
static const char absent_marker;
#define ABSENT ((void *)(uintptr_t)&absent_marker)

void ident_user_free(void *p) {
        struct id_user *u = p;
        if (!u || p == ABSENT)
                return;
        free(u->name);
        free(u->gids);
        free(u);
}

void ident_group_free(void *p) {
        struct id_group *g = p;
        if (!g || p == ABSENT)
                return;
        free(g->name);
        strv_free(g->members);
        free(g);
}

int ident_new_nss(struct ident **ret) {
        struct ident *id = calloc(1, sizeof(*id));
        if (!id)
                return -ENOMEM;
        *ret = id;
        return 0;
}

void ident_free(struct ident *id) {
        if (!id)
                return;
        if (id->backend) {
                /* its maps point into what the backend owns */
                strmap_clear(&id->users, NULL);
                strmap_clear(&id->groups, NULL);
                strmap_clear(&id->gids, NULL);
                id->backend->free(id);
        } else {
                strmap_clear(&id->users, ident_user_free);
                strmap_clear(&id->groups, ident_group_free);
                strmap_clear(&id->gids, ident_group_free);
                strmap_clear(&id->uids, ident_user_free);
        }
        free(id);
}

/* ---- NSS backend ---- */

/*
 * getpwnam_r()/getgr*_r() want a caller's buffer: fn is called with one that doubles on ERANGE
 * up to max bytes, and copies what it needs before the buffer goes.
 */
static int nss_with_buffer(int which, size_t max, int (*fn)(void *ctx, char *buf, size_t size), void *ctx) {
        long s = sysconf(which);
        size_t bs = s > 0 ? (size_t)s : 16384;
        for (;;) {
                _cleanup_free_ char *buf = malloc(bs);
                if (!buf)
                        return -ENOMEM;
                int r = fn(ctx, buf, bs);
                if (r != -ERANGE || bs >= max)
                        return r;
                bs *= 2;
        }
}

/*
 * What a get*_r() call returned, as a negative errno: glibc returns the error number, but
 * an interposed implementation may follow the other convention, -1 with errno set (nss_wrapper
 * does, for ERANGE).  Never positive: a positive value would pass for success with nothing.
 */
static int nss_error(int r) {
        return r > 0 ? -r : negative_errno();
}

struct nss_user_query {
        const char *name;
        struct id_user **ret;
};

static int user_copy(const struct passwd *pw, struct id_user **ret) {
        struct id_user *u = calloc(1, sizeof(*u));
        if (!u || !(u->name = strdup(pw->pw_name))) {
                free(u);
                return -ENOMEM;
        }
        u->uid = pw->pw_uid;
        u->gid = pw->pw_gid;
        *ret = u;
        return 0;
}

static int nss_user_fetch(void *ctx, char *buf, size_t size) {
        struct nss_user_query *q = ctx;
        struct passwd pw, *res = NULL;
        errno = 0;
        int r = getpwnam_r(q->name, &pw, buf, size, &res);
        if (r != 0)
                return nss_error(r);
        if (!res)
                return -ENOENT;
        return user_copy(&pw, q->ret);
}

struct nss_uid_query {
        uid_t uid;
        struct id_user **ret;
};

static int nss_uid_fetch(void *ctx, char *buf, size_t size) {
        struct nss_uid_query *q = ctx;
        struct passwd pw, *res = NULL;
        errno = 0;
        int r = getpwuid_r(q->uid, &pw, buf, size, &res);
        if (r != 0)
                return nss_error(r);
        if (!res)
                return -ENOENT;
        return user_copy(&pw, q->ret);
}

static int nss_user(const char *name, struct id_user **ret) {
        struct nss_user_query q = { name, ret };
        return nss_with_buffer(_SC_GETPW_R_SIZE_MAX, 1u << 20, nss_user_fetch, &q);
}

static int group_copy(const struct group *gr, struct id_group **ret) {
        struct id_group *g = calloc(1, sizeof(*g));
        size_t n = 0;
        if (!g || !(g->name = strdup(gr->gr_name)))
                goto oom;
        g->gid = gr->gr_gid;
        while (gr->gr_mem && gr->gr_mem[n])
                n++;
        g->members = calloc(n + 1, sizeof(char *));
        if (!g->members)
                goto oom;
        for (size_t i = 0; i < n; i++)
                if (!(g->members[i] = strdup(gr->gr_mem[i])))
                        goto oom;
        *ret = g;
        return 0;
oom:
        ident_group_free(g);
        return -ENOMEM;
}

struct nss_group_query {
        const char *name; /* or NULL: by gid */
        gid_t gid;
        struct id_group **ret;
};

static int nss_group_fetch(void *ctx, char *buf, size_t size) {
        struct nss_group_query *q = ctx;
        struct group gr, *res = NULL;
        errno = 0;
        int r = q->name ? getgrnam_r(q->name, &gr, buf, size, &res) : getgrgid_r(q->gid, &gr, buf, size, &res);
        if (r != 0)
                return nss_error(r);
        if (!res)
                return -ENOENT;
        return group_copy(&gr, q->ret);
}

/* Groups get the larger cap: a group's member list is what grows. */
static int nss_group(const char *name, gid_t gid, struct id_group **ret) {
        struct nss_group_query q = { name, gid, ret };
        return nss_with_buffer(_SC_GETGR_R_SIZE_MAX, 1u << 24, nss_group_fetch, &q);
}

/* ---- public ---- */

/*
 * The one look-up path: with a backend (the files of a --root tree) the maps were filled by
 * it; with NSS a miss is asked once and the answer, or its absence, is cached.  Each map owns
 * what it cached.
 */
int ident_lookup(struct ident *id, struct strmap *map, const char *key, int (*fetch)(const void *arg, void **ret),
                 const void *arg, void (*free_value)(void *), void **ret) {
        void *v;
        int r;

        if (id->backend) {
                r = id->backend->load(id);
                if (r < 0)
                        return r;
                v = strmap_get(map, key);
                if (!v)
                        return -ENOENT;
                *ret = v;
                return 0;
        }
        v = strmap_get(map, key);
        if (v == ABSENT)
                return -ENOENT;
        if (!v) {
                r = fetch(arg, &v);
                if (r == -ENOENT)
                        return strmap_put(map, key, ABSENT) < 0 ? -ENOMEM : -ENOENT;
                if (r < 0)
                        return r;
                if (strmap_put(map, key, v) < 0) {
                        free_value(v);
                        return -ENOMEM;
                }
        }
        *ret = v;
        return 0;
}

static int fetch_user(const void *name, void **ret) {
        return nss_user(name, (struct id_user **)ret);
}

static int fetch_uid(const void *uid, void **ret) {
        struct nss_uid_query q = { *(const uid_t *)uid, (struct id_user **)ret };
        return nss_with_buffer(_SC_GETPW_R_SIZE_MAX, 1u << 20, nss_uid_fetch, &q);
}

static int fetch_group(const void *name, void **ret) {
        return nss_group(name, 0, (struct id_group **)ret);
}

int ident_fetch_gid(const void *gid, void **ret) {
        return nss_group(NULL, *(const gid_t *)gid, (struct id_group **)ret);
}

const char *ident_id_key(uint32_t v, char key[static 11]) {
        char tmp[10];
        size_t n = 0, k = 0;
        do
                tmp[n++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        while (n > 0)
                key[k++] = tmp[--n];
        key[k] = '\0';
        return key;
}

int ident_user(struct ident *id, const char *name, const struct id_user **ret) {
        return ident_lookup(id, &id->users, name, fetch_user, name, ident_user_free, (void **)ret);
}

int ident_user_by_uid(struct ident *id, uid_t uid, const struct id_user **ret) {
        if (id->backend) {
                int r = id->backend->load(id);
                return r < 0 ? r : id->backend->user_by_uid(id, uid, ret);
        }
        char key[11];
        return ident_lookup(id, &id->uids, ident_id_key(uid, key), fetch_uid, &uid, ident_user_free, (void **)ret);
}

int ident_group(struct ident *id, const char *name, const struct id_group **ret) {
        return ident_lookup(id, &id->groups, name, fetch_group, name, ident_group_free, (void **)ret);
}



int ident_user_gids(struct ident *id, const struct id_user *cu, const gid_t **ret, size_t *ret_n) {
        struct id_user *u = (struct id_user *)cu; /* the cache is ours to fill */

        if (!u->gids) {
                gid_t *v = NULL;
                size_t n = 0;
                if (id->backend) {
                        int r = id->backend->load(id);
                        if (r < 0 || (r = id->backend->user_gids(id, u, &v, &n)) < 0)
                                return r;
                } else {
                        int ng = 64;
                        for (;;) {
                                int want = ng;
                                if (GROW_EXACT(v, (size_t)ng) < 0) {
                                        free(v);
                                        return -ENOMEM;
                                }
                                if (getgrouplist(u->name, u->gid, v, &ng) >= 0)
                                        break;
                                if (ng <= want)
                                        ng = want * 2;
                                if (ng > 65536) {
                                        free(v);
                                        return -E2BIG;
                                }
                        }
                        n = (size_t)ng;
                }
                u->gids = v;
                u->n_gids = n;
        }
        *ret = u->gids;
        *ret_n = u->n_gids;
        return 0;
}

int ident_user_member(struct ident *id, const struct id_user *u, const struct id_group *g) {
        const gid_t *gids;
        size_t n;
        int r;

        if (!u || !g)
                return 0;
        if (u->gid == g->gid)
                return 1;
        if (!(id->backend && id->backend->gids_cover_members) && strv_contains(g->members, u->name))
                return 1;
        r = ident_user_gids(id, u, &gids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (gids[i] == g->gid)
                        return 1;
        return 0;
}
