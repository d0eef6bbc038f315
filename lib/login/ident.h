/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Users and groups, through NSS (getpwnam_r, getgrnam_r, getgrgid_r, getgrouplist), so
 * LDAP/SSSD users and groups count; rdmalimits also reads a --root tree's ROOT/etc/passwd and
 * ROOT/etc/group (lib/host/ident-files.h: ident_new()), through the same look-ups.  Every
 * answer is cached for the life of the context, so a limits tree with thousands of @group
 * lines costs one look-up per group.  A context is not shared between threads; there is no
 * global state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct id_user {
        char *name;
        uid_t uid;
        gid_t gid;
        gid_t *gids;            /* getgrouplist(name, gid): NULL until computed */
        size_t n_gids;
};

struct id_group {
        char *name;
        gid_t gid;
        char **members;         /* NULL-terminated gr_mem */
};

struct ident;

/* A context that asks NSS (what a login runs). */
int ident_new_nss(struct ident **ret);
void ident_free(struct ident *id);
static inline void ident_freep(struct ident **id) {
        ident_free(*id);
}

/* -ENOENT when unknown; other negative errno on NSS failure.  The result lives as long as
 * the context. */
int ident_user(struct ident *id, const char *name, const struct id_user **ret);
/* The user of uid (getpwuid_r), with its own cache: a name that getpwnam_r() answers with
 * another uid does not mix with it.  From a --root tree's files: among the users ident_user()
 * knows (the first line of each name in ROOT/etc/passwd), the first with uid; a later line
 * repeating a name is not found by its uid there, where NSS would find it. */
int ident_user_by_uid(struct ident *id, uid_t uid, const struct id_user **ret);
int ident_group(struct ident *id, const char *name, const struct id_group **ret);

/* The user's group list as getgrouplist(3) gives it (primary gid first). */
int ident_user_gids(struct ident *id, const struct id_user *u, const gid_t **ret, size_t *ret_n);

/*
 * Membership as pam_modutil_user_in_group_*() decides it: primary gid equal, or the user
 * listed in gr_mem, or the gid in getgrouplist().  A NULL group is never a member.  1 member,
 * 0 not, negative errno (getgrouplist's failure).
 */
int ident_user_member(struct ident *id, const struct id_user *u, const struct id_group *g);

