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
/* ident_user_member() as a bool: a failure is "not a member" */
bool ident_user_in_group(struct ident *id, const struct id_user *u, const struct id_group *g);
