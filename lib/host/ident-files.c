/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Users and groups of a --root tree: ROOT/etc/passwd and ROOT/etc/group (ident-files.h). */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fsutil.h"
#include "ident-backend.h"
#include "ident-files.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"
#include "strv.h"


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

/* The files of ROOT: every user and group, in file order (the maps point into them) */
struct files {
        char *root;
        bool loaded;
        struct id_group **all_groups;
        size_t n_all_groups;
        struct id_user **all_users;
        size_t n_all_users;
        /* member name -> struct gidv: the gid of each group line that lists it, in file order
         * (made the first time a user's groups are asked) */
        struct strmap member_of;
        bool indexed;
};

struct gidv {
        gid_t *v;
        size_t n, cap;
};

static void gidv_free(void *p) {
        struct gidv *g = p;
        if (g)
                free(g->v);
        free(g);
}

static int index_members(struct files *fs) {
        for (size_t i = 0; i < fs->n_all_groups; i++) {
                const struct id_group *g = fs->all_groups[i];
                for (char **m = g->members; m && *m; m++) {
                        struct gidv *x = strmap_get(&fs->member_of, *m);
                        if (!x) {
                                if (!(x = calloc(1, sizeof(*x))))
                                        return -ENOMEM;
                                if (strmap_put(&fs->member_of, *m, x) < 0) {
                                        free(x);
                                        return -ENOMEM;
                                }
                        }
                        if (GROW(x->v, x->cap, x->n + 1) < 0)
                                return -ENOMEM;
                        x->v[x->n++] = g->gid;
                }
        }
        fs->indexed = true;
        return 0;
}

/* ROOT/rel, resolved inside the root (a symlink in the tree never reaches the host's files) */
static int open_root_file(const struct files *fs, const char *rel, FILE **ret) {
        int r = fs_fopen_in_root(fs->root, rel, ret);
        return r == -ENOENT ? 0 : r;
}

static int load_files(struct ident *id) {
        struct files *fs = id->data;
        _cleanup_fclose_ FILE *pf = NULL, *gf = NULL;
        _cleanup_free_ char *line = NULL;
        size_t sz = 0, budget = FS_LINES_MAX;
        ssize_t k = 0;
        int r;

        if (fs->loaded)
                return 0;
        r = open_root_file(fs, "/etc/passwd", &pf);
        if (r < 0)
                return r;
        r = open_root_file(fs, "/etc/group", &gf);
        if (r < 0)
                return r;

        while (pf && (k = fs_getline(&line, &sz, pf, &budget)) > 0) {
                char *f[7] = {};   /* the fields a short line lacks are NULL, not the last line's */
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
                if (push((void ***)&fs->all_users, &fs->n_all_users, u) < 0) {
                        ident_user_free(u);
                        return -ENOMEM;
                }
                if (strmap_put(&id->users, u->name, u) < 0)
                        return -ENOMEM;
        }
        /* a read or allocation failure, or a file past the bound: not the end of the file */
        if (k < 0)
                return (int)k;
        budget = FS_LINES_MAX;
        while (gf && (k = fs_getline(&line, &sz, gf, &budget)) > 0) {
                char *f[4] = {};   /* "name:x:gid" has no member list: f[3] NULL */
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
                    push((void ***)&fs->all_groups, &fs->n_all_groups, g) < 0) {
                        ident_group_free(g);
                        return -ENOMEM;
                }
                if (!strmap_get(&id->groups, g->name) && strmap_put(&id->groups, g->name, g) < 0)
                        return -ENOMEM;
                char key[11];
                if (!strmap_get(&id->gids, ident_id_key(gid, key)) && strmap_put(&id->gids, key, g) < 0)
                        return -ENOMEM;
        }
        if (k < 0)
                return (int)k;
        fs->loaded = true;
        return 0;
}

/* among the users ident_user() knows (the first line of each name), the first with uid */
static int files_user_by_uid(struct ident *id, uid_t uid, const struct id_user **ret) {
        const struct files *fs = id->data;
        for (size_t i = 0; i < fs->n_all_users; i++)
                if (fs->all_users[i]->uid == uid) {
                        *ret = fs->all_users[i];
                        return 0;
                }
        return -ENOENT;
}

/* the primary gid, then the gid of each group that lists the user, once each */
static int files_user_gids(struct ident *id, const struct id_user *u, gid_t **ret, size_t *ret_n) {
        struct files *fs = id->data;
        if (!fs->indexed) {
                int r = index_members(fs);
                if (r < 0) {
                        strmap_clear(&fs->member_of, gidv_free);
                        return r;
                }
        }
        const struct gidv *x = strmap_get(&fs->member_of, u->name);
        gid_t *v = calloc((x ? x->n : 0) + 1, sizeof(gid_t));   /* the primary gid and each group */
        size_t n = 0;
        if (!v)
                return -ENOMEM;
        v[n++] = u->gid;
        for (size_t i = 0; x && i < x->n; i++) {
                bool dup = false;
                for (size_t k = 0; k < n; k++)
                        if (v[k] == x->v[i])
                                dup = true;
                if (!dup)
                        v[n++] = x->v[i];
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static void files_free(struct ident *id) {
        struct files *fs = id->data;
        if (!fs)
                return;
        for (size_t i = 0; i < fs->n_all_users; i++)
                ident_user_free(fs->all_users[i]);
        for (size_t i = 0; i < fs->n_all_groups; i++)
                ident_group_free(fs->all_groups[i]);
        free(fs->all_users);
        free(fs->all_groups);
        strmap_clear(&fs->member_of, gidv_free);
        free(fs->root);
        free(fs);
}

static const struct ident_backend files_backend = {
        .gids_cover_members = true,
        .load = load_files,
        .user_by_uid = files_user_by_uid,
        .user_gids = files_user_gids,
        .free = files_free,
};

int ident_new(const char *root, struct ident **ret) {
        struct files *fs;
        int r;

        if (!root)
                return ident_new_nss(ret);
        if (!(fs = calloc(1, sizeof(*fs))) || !(fs->root = strdup(root))) {
                free(fs);
                return -ENOMEM;
        }
        if ((r = ident_new_nss(ret)) < 0) {
                free(fs->root);
                free(fs);
                return r;
        }
        (*ret)->backend = &files_backend;
        (*ret)->data = fs;
        return 0;
}

bool ident_uses_nss(const struct ident *id) {
        return !id->backend;
}

static int each_nss_name(bool groups, int (*fn)(const char *name, void *data), void *data) {
        int r = 0;
        if (groups) {
                setgrent();
                for (struct group *g; r == 0 && (g = getgrent());)
                        r = fn(g->gr_name, data);
                endgrent();
        } else {
                setpwent();
                for (struct passwd *p; r == 0 && (p = getpwent());)
                        r = fn(p->pw_name, data);
                endpwent();
        }
        return r < 0 ? r : 0;
}

int ident_each_name(struct ident *id, bool groups, int (*fn)(const char *name, void *data), void *data) {
        const struct files *fs;
        int r;

        if (ident_uses_nss(id))
                return each_nss_name(groups, fn, data);
        r = id->backend->load(id);
        if (r < 0)
                return r;
        fs = id->data;
        r = 0;
        if (groups)
                for (size_t i = 0; r == 0 && i < fs->n_all_groups; i++)
                        r = fn(fs->all_groups[i]->name, data);
        else
                for (size_t i = 0; r == 0 && i < fs->n_all_users; i++)
                        r = fn(fs->all_users[i]->name, data);
        return r < 0 ? r : 0;
}

/* getgrgid() and getgrnam() may name different groups (duplicate names or gids): the two
 * caches are kept apart. */
int ident_group_by_gid(struct ident *id, gid_t gid, const struct id_group **ret) {
        char key[11];
        return ident_lookup(id, &id->gids, ident_id_key(gid, key), ident_fetch_gid, &gid, ident_group_free, (void **)ret);
}

bool ident_user_in_group(struct ident *id, const struct id_user *u, const struct id_group *g) {
        return ident_user_member(id, u, g) > 0;
}
