/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * An ident.h context for rdmalimits: root NULL asks NSS (ident_new_nss(), as a login does);
 * else the users and groups are ROOT/etc/passwd and ROOT/etc/group, read once, the first
 * line of a name winning as with files NSS.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "ident.h"

int ident_new(const char *root, struct ident **ret);
/* For rdmalimits: no backend (the files of a tree) */
bool ident_uses_nss(const struct ident *id);
/* getgrgid(): cached apart from ident_group()'s getgrnam() (duplicate names or gids). */
int ident_group_by_gid(struct ident *id, gid_t gid, const struct id_group **ret);
/*
 * Each user name (groups false) or group name the context knows, in its order, to fn: with
 * NSS, getpwent()/getgrent(); from a tree, the name of each line of ROOT/etc/passwd or
 * ROOT/etc/group that ident_user() and ident_group() read (the same reader: a line they skip
 * is not listed).  A name may come more than once.  fn returning a negative errno
 * stops with it, a positive value stops with 0.  0, or the error of reading the tree's files.
 */
int ident_each_name(struct ident *id, bool groups, int (*fn)(const char *name, void *data), void *data);
/* ident_user_member() as a bool: a failure is "not a member" */
bool ident_user_in_group(struct ident *id, const struct id_user *u, const struct id_group *g);
