/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* What the three parts of the pam_limits model (limits-read.c, limits-resolve.c,
 * limits-check.c) share and the rest of the project does not use. */
#include <stdbool.h>
#include <stddef.h>

#include "limitsconf.h"

/* A growing list of line indices (ascending when pushed in order). */
struct idxv {
        size_t *v;
        size_t n, cap;
};
int idxv_push(struct idxv *x, size_t i);
/* A heap list and its indices (a strmap's value). */
void idxv_free(void *p);
/* i pushed on the list of key in the map m (key -> struct idxv *), made the first time: 0 or
 * -ENOMEM. */
struct strmap;
int idxv_map_push(struct strmap *m, const char *key, size_t i);

/* The kind of a line's domain: which users it can name, and how. */
enum lc_dkind {
        DK_NAME,      /* a user name */
        DK_GROUP,     /* @name */
        DK_GIDONE,    /* @:gid (membership) */
        DK_GIDR,      /* @min:max, @min: (primary gid; for root on Debian: the uid) */
        DK_UIDR,      /* :uid, min:max, min: (and a range pam_limits refuses) */
        DK_STAR,      /* * */
        DK_OTHER,     /* % forms */
};
enum lc_dkind lc_dkind(const struct lc_line *l);

/* Does file i of the tree, which could not be opened, make pam_limits fail the session? */
bool lc_file_fails_session(const struct lc_tree *t, size_t i);
/* Does `l` match every user (uid range 0:, @0:, or the ranges that cover all ids)? */
bool lc_line_matches_everyone(const struct lc_line *l);
/* Is `l` a memlock line pam_limits applies (a 4-field line with a valid type, value and
 * domain, not a % domain)? */
bool lc_line_counts(const struct lc_line *l);
