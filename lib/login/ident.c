/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fsutil.h"
#include "ident.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"
#include "strv.h"

/* Marks "looked up, does not exist" in the caches. */
static const char absent_marker;
#define ABSENT ((void *)(uintptr_t)&absent_marker)

struct ident {
        char *root;
        bool files_loaded;
        struct strmap users;            /* name -> struct id_user * | ABSENT */
        struct strmap groups;           /* name -> struct id_group * | ABSENT */
        struct strmap gids;             /* "gid" -> struct id_group * | ABSENT */
        struct strmap uids;             /* "uid" -> struct id_user * | ABSENT (NSS only) */
        /* root mode: every group of ROOT/etc/group, in file order */
        struct id_group **all_groups;
        size_t n_all_groups;
        struct id_user **all_users;
        size_t n_all_users;
};

static void user_free(void *p) {
        struct id_user *u = p;
        if (!u || p == ABSENT)
                return;
        free(u->name);
        free(u->gids);
        free(u);
}

static void group_free(void *p) {
        struct id_group *g = p;
        if (!g || p == ABSENT)
                return;
        free(g->name);
        strv_free(g->members);
        free(g);
}

int ident_new(const char *root, struct ident **ret) {
        struct ident *id = calloc(1, sizeof(*id));
        if (!id)
                return -ENOMEM;
        if (root && !(id->root = strdup(root))) {
                free(id);
                return -ENOMEM;
        }
        *ret = id;
        return 0;
}

void ident_free(struct ident *id) {
        if (!id)
                return;
        /* In root mode the maps point into the all_* arrays, which own the entries. */
        if (id->root) {
                strmap_clear(&id->users, NULL);
                strmap_clear(&id->groups, NULL);
                strmap_clear(&id->gids, NULL);
                for (size_t i = 0; i < id->n_all_users; i++)
                        user_free(id->all_users[i]);
                for (size_t i = 0; i < id->n_all_groups; i++)
                        group_free(id->all_groups[i]);
        } else {
                strmap_clear(&id->users, user_free);
                strmap_clear(&id->groups, group_free);
                strmap_clear(&id->gids, group_free);
                strmap_clear(&id->uids, user_free);
        }
        free(id->all_users);
        free(id->all_groups);
        free(id->root);
        free(id);
}

bool ident_uses_nss(const struct ident *id) {
        return !id->root;
}

/* ---- root-file backend ---- */

/* Split s at ':' into at most n fields in place; returns the number of fields. */
static size_t split_colon(char *s, char **f, size_t n) {
        size_t i = 0;
        f[i++] = s;
        for (char *p = s; *p && i < n; p++)
                if (*p == ':') {
                        *p = '\0';
                        f[i++] = p + 1;
                }
        return i;
}

static int split_members(const char *s, char ***ret) {
        size_t n = 1;
        for (const char *p = s; *p; p++)
                if (*p == ',')
                        n++;
        char **v = calloc(n + 1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        size_t k = 0;
        const char *start = s;
        for (const char *p = s;; p++) {
                if (*p == ',' || *p == '\0') {
                        if (p > start) {
                                v[k] = strndup(start, (size_t)(p - start));
                                if (!v[k]) {
                                        strv_free(v);
                                        return -ENOMEM;
                                }
                                k++;
                        }
                        if (!*p)
                                break;
                        start = p + 1;
                }
        }
        *ret = v;
        return 0;
}

static int push(void ***arr, size_t *n, void *item) {
        if (GROW_EXACT(*arr, *n + 1) < 0)
                return -ENOMEM;
        (*arr)[(*n)++] = item;
        return 0;
}

/* ROOT/rel, resolved inside the root (a symlink in the tree never reaches the host's files) */
static int open_root_file(const struct ident *id, const char *rel, FILE **ret) {
        int r = fs_fopen_in_root(id->root, rel, ret);
        return r == -ENOENT ? 0 : r;
}

static int load_files(struct ident *id) {
        _cleanup_fclose_ FILE *pf = NULL, *gf = NULL;
        _cleanup_free_ char *line = NULL;
        size_t sz = 0;
        int r;

        if (id->files_loaded)
                return 0;
        r = open_root_file(id, "/etc/passwd", &pf);
        if (r < 0)
                return r;
        r = open_root_file(id, "/etc/group", &gf);
        if (r < 0)
                return r;

        while (pf && getline(&line, &sz, pf) > 0) {
                char *f[7];
                line[strcspn(line, "\n")] = '\0';
                if (!*line || *line == '#' || *line == '+' || *line == '-')
                        continue;
                if (split_colon(line, f, 7) < 4)
                        continue;
                uint32_t uid, gid;
                if (parse_u32(f[2], &uid) < 0 || parse_u32(f[3], &gid) < 0)
                        continue;
                if (strmap_get(&id->users, f[0]))
                        continue; /* the first entry wins, as with files NSS */
                struct id_user *u = calloc(1, sizeof(*u));
                if (!u || !(u->name = strdup(f[0]))) {
                        free(u);
                        return -ENOMEM;
                }
                u->uid = uid;
                u->gid = gid;
                if (push((void ***)&id->all_users, &id->n_all_users, u) < 0) {
                        user_free(u);
                        return -ENOMEM;
                }
                if (strmap_put(&id->users, u->name, u) < 0)
                        return -ENOMEM;
        }
        /* getline() also stops on a read or allocation failure: not the end of the file */
        if (pf && !feof(pf))
                return ferror(pf) ? -EIO : -ENOMEM;
        while (gf && getline(&line, &sz, gf) > 0) {
                char *f[4];
                line[strcspn(line, "\n")] = '\0';
                if (!*line || *line == '#' || *line == '+' || *line == '-')
                        continue;
                if (split_colon(line, f, 4) < 3)
                        continue;
                uint32_t gid;
                if (parse_u32(f[2], &gid) < 0)
                        continue;
                struct id_group *g = calloc(1, sizeof(*g));
                if (!g || !(g->name = strdup(f[0]))) {
                        free(g);
                        return -ENOMEM;
                }
                g->gid = gid;
                if (split_members(f[3] ? f[3] : "", &g->members) < 0 ||
                    push((void ***)&id->all_groups, &id->n_all_groups, g) < 0) {
                        group_free(g);
                        return -ENOMEM;
                }
                if (!strmap_get(&id->groups, g->name) && strmap_put(&id->groups, g->name, g) < 0)
                        return -ENOMEM;
                char key[16];
                snprintf(key, sizeof key, "%u", (unsigned)gid);
                if (!strmap_get(&id->gids, key) && strmap_put(&id->gids, key, g) < 0)
                        return -ENOMEM;
        }
        if (gf && !feof(gf))
                return ferror(gf) ? -EIO : -ENOMEM;
        id->files_loaded = true;
        return 0;
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
        int r = getpwnam_r(q->name, &pw, buf, size, &res);
        if (r != 0)
                return -r;
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
        int r = getpwuid_r(q->uid, &pw, buf, size, &res);
        if (r != 0)
                return -r;
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
        group_free(g);
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
        int r = q->name ? getgrnam_r(q->name, &gr, buf, size, &res) : getgrgid_r(q->gid, &gr, buf, size, &res);
        if (r != 0)
                return -r;
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
 * The one look-up path: in root mode the maps were filled from the files; with NSS a miss is
 * asked once and the answer, or its absence, is cached.  Each map owns what it cached.
 */
static int lookup(struct ident *id, struct strmap *map, const char *key, int (*fetch)(const void *arg, void **ret),
                  const void *arg, void (*free_value)(void *), void **ret) {
        void *v;
        int r;

        if (id->root) {
                r = load_files(id);
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

static int fetch_gid(const void *gid, void **ret) {
        return nss_group(NULL, *(const gid_t *)gid, (struct id_group **)ret);
}

int ident_user(struct ident *id, const char *name, const struct id_user **ret) {
        return lookup(id, &id->users, name, fetch_user, name, user_free, (void **)ret);
}

int ident_user_by_uid(struct ident *id, uid_t uid, const struct id_user **ret) {
        if (id->root) {
                int r = load_files(id);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < id->n_all_users; i++)
                        if (id->all_users[i]->uid == uid) {
                                *ret = id->all_users[i];
                                return 0;
                        }
                return -ENOENT;
        }
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned)uid);
        return lookup(id, &id->uids, key, fetch_uid, &uid, user_free, (void **)ret);
}

int ident_group(struct ident *id, const char *name, const struct id_group **ret) {
        return lookup(id, &id->groups, name, fetch_group, name, group_free, (void **)ret);
}

/* getgrgid() and getgrnam() may name different groups (duplicate names or gids): the two
 * caches are kept apart. */
int ident_group_by_gid(struct ident *id, gid_t gid, const struct id_group **ret) {
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned)gid);
        return lookup(id, &id->gids, key, fetch_gid, &gid, group_free, (void **)ret);
}


int ident_user_gids(struct ident *id, const struct id_user *cu, const gid_t **ret, size_t *ret_n) {
        struct id_user *u = (struct id_user *)cu; /* the cache is ours to fill */

        if (!u->gids) {
                gid_t *v = NULL;
                size_t n = 0;
                if (id->root) {
                        v = malloc(sizeof(gid_t) * (id->n_all_groups + 1));
                        if (!v)
                                return -ENOMEM;
                        v[n++] = u->gid;
                        for (size_t i = 0; i < id->n_all_groups; i++) {
                                const struct id_group *g = id->all_groups[i];
                                bool dup = false;
                                if (!strv_contains(g->members, u->name))
                                        continue;
                                for (size_t k = 0; k < n; k++)
                                        if (v[k] == g->gid)
                                                dup = true;
                                if (!dup)
                                        v[n++] = g->gid;
                        }
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
        if (u->gid == g->gid || strv_contains(g->members, u->name))
                return 1;
        r = ident_user_gids(id, u, &gids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (gids[i] == g->gid)
                        return 1;
        return 0;
}

bool ident_user_in_group(struct ident *id, const struct id_user *u, const struct id_group *g) {
        return ident_user_member(id, u, g) > 0;
}
