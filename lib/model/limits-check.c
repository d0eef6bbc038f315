/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pam_limits model, part 3: `rdmalimits check`, the findings over a tree read by part 1.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"

/* ---- check ---- */

#define W(t, l) lc_line_where((t), (l), where, sizeof where)

static int check_file_meta(const struct lc_tree *t, size_t fi, struct diag_list *d) {
        const struct lc_file *f = &t->files[fi];
        int r = 0;

        if (f->open_error) {
                if (f->open_error == -ENOENT && !lc_file_fails_session(t, fi))
                        return diag_add(d, DIAG_INFO, f->display, 0, "does not exist (fine for pam_limits >= 1.5.3)");
                if (f->open_error == -ENOENT)
                        return diag_add(d, DIAG_ERROR, f->display, 0,
                                        "does not exist: pam_limits 1.5.2 fails every session that uses it "
                                        "(PAM_SERVICE_ERR); create it, even empty");
                if (f->open_error == FS_ERR_NOTREG)
                        return diag_add(d, DIAG_ERROR, f->display, 0,
                                        "is not a regular file (a FIFO or a device): pam_limits blocks on it or "
                                        "reads garbage at every login; remove it");
                return diag_add(d, DIAG_ERROR, f->display, 0, "cannot be read (%s): pam_limits fails the session",
                                fs_strerror(f->open_error));
        }
        if (f->is_dir)
                r = diag_add(d, DIAG_WARNING, f->display, 0, "is a directory: pam_limits reads nothing from it");
        if (r >= 0 && f->stat_ok && f->st.st_uid != 0)
                r = diag_add(d, DIAG_ERROR, f->display, 0,
                             "is owned by uid %u, not root: its owner can set any user's limits",
                             (unsigned)f->st.st_uid);
        if (r >= 0 && f->stat_ok && (f->st.st_mode & (S_IWGRP | S_IWOTH)))
                r = diag_add(d, DIAG_ERROR, f->display, 0,
                             "is writable by %s (mode %04o): anyone who can write it can set any user's limits",
                             (f->st.st_mode & S_IWOTH) ? "everyone" : "its group",
                             (unsigned)(f->st.st_mode & 07777));
        if (r >= 0 && f->no_final_newline)
                r = diag_add(d, DIAG_WARNING, f->display, f->n_physical,
                             "no newline at the end of the file: text appended later is glued to this line");
        if (r >= 0 && f->has_nul)
                r = diag_add(d, DIAG_WARNING, f->display, 0,
                             "contains NUL bytes: pam_limits ignores the rest of a line after one");
        return r;
}

static bool looks_like_units(const char *v) {
        const char *end;
        c_strtoull(v, &end, NULL);
        return end != v && *end && strchr("kmgtb", *end) && (end[1] == '\0' || streq(end + 1, "b") ||
                                                              streq(end + 1, "ib"));
}

static int check_line(const struct lc_tree *t, const struct lc_line *l, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        unsigned ln = l->lineno;
        bool debian = t->flavour == LC_FLAVOUR_DEBIAN;

        if (l->chunk > 0)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "line longer than 1023 bytes: pam_limits 1.5.2 reads byte %u onwards as a "
                                "separate line (\"%.40s\")", l->chunk * (LC_LINE_LENGTH - 1) + 1, l->text);
        if (l->range == LC_RANGE_ERR)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "invalid uid/gid range '%s': pam_limits skips the line", l->domain);
        if (l->nfields == 2 && l->type[0] == '-') {
                if (l->range == LC_RANGE_NONE && (streq(l->domain, "*") || l->domain[0] == '%'))
                        return diag_add(d, DIAG_WARNING, path, ln,
                                        "'%s -' has no effect: pam_limits honours no-limit lines only for users, "
                                        "@groups and id ranges", l->domain);
                return diag_add(d, DIAG_INFO, path, ln,
                                "no-limits line: for '%s' pam_limits applies no limit at all and reads no "
                                "further line or file", l->domain);
        }
        if (l->nfields != 4)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "invalid line (%d field%s, expected <domain> <type> <item> <value>): pam_limits "
                                "skips it", l->nfields, l->nfields == 1 ? "" : "s");
        if (l->item_kind == LC_ITEM_UNKNOWN)
                return diag_add(d, DIAG_ERROR, path, ln, "unknown item '%s': pam_limits skips the line", l->item);
        if (!l->type_mask && l->item_kind != LC_ITEM_LOGIN && l->item_kind != LC_ITEM_NONEWPRIVS)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "unknown type '%s' (soft, hard or -): pam_limits skips the line", l->type);
        if (!l->value_ok)
                return diag_add(d, DIAG_ERROR, path, ln, "value '%s' is not a number: pam_limits skips the line",
                                l->value);
        int r = 0;
        bool memlock = l->item_kind == LC_ITEM_MEMLOCK;
        if (l->value_misread) {
                if (memlock && looks_like_units(l->value))
                        r = diag_add(d, DIAG_ERROR, path, ln,
                                     "'%s' is read as %llu KiB: pam_limits has no units, memlock counts in KiB "
                                     "(write e.g. 1048576 for 1 GiB)", l->value, (unsigned long long)l->value_raw);
                else
                        r = diag_add(d, DIAG_ERROR, path, ln, "'%s' is read as %llu: pam_limits ignores what follows "
                                     "the digits", l->value, (unsigned long long)l->value_raw);
        } else if (!l->value_infinity && l->value[0] == '-' && l->item_kind != LC_ITEM_NICE &&
                   l->item_kind != LC_ITEM_PRIORITY) {
                r = diag_add(d, DIAG_ERROR, path, ln, "negative value '%s' wraps around to %llu", l->value,
                             (unsigned long long)l->value_raw);
        } else if (memlock && !l->value_infinity && l->value_raw == UINT64_MAX) {
                r = diag_add(d, DIAG_WARNING, path, ln, "value '%s' overflows and is read as unlimited", l->value);
        }
        if (r < 0)
                return r;
        if (debian && l->extra_words)
                r = diag_add(d, DIAG_WARNING, path, ln, "words after the value are ignored");
        if (r >= 0 && l->domain[0] == '%' && l->item_kind != LC_ITEM_LOGIN)
                r = diag_add(d, DIAG_WARNING, path, ln,
                             "pam_limits ignores '%s' domains for every item but maxlogins", "%");
        if (r >= 0 && l->domain[0] == '%' && (l->range == LC_RANGE_MIN || l->range == LC_RANGE_MM))
                r = diag_add(d, DIAG_WARNING, path, ln, "pam_limits does not support ranges for %%group matching");
        if (r >= 0 && memlock && l->value_ok && !l->value_infinity && !l->value_misread) {
                if (l->value_raw == 0)
                        r = diag_add(d, DIAG_WARNING, path, ln,
                                     "memlock 0 makes every RDMA memory registration fail with EPERM");
                else if (l->value_raw < 64)
                        r = diag_add(d, DIAG_WARNING, path, ln,
                                     "memlock %llu is %llu KiB: limits.conf counts memlock in KiB", (unsigned long long)l->value_raw,
                                     (unsigned long long)l->value_raw);
        }
        return r;
}

/* last line per (domain, slot), and the strongest "everyone" entries: linear in the lines */
struct last_seen {
        const struct lc_line *soft, *hard;
};

/* The last effective line per domain and slot, in one pass. */
static int last_seen_map(const struct lc_tree *t, struct strmap *last) {
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!lc_line_counts(l))
                        continue;
                struct last_seen *s = strmap_get(last, l->domain);
                if (!s) {
                        s = calloc(1, sizeof(*s));
                        if (!s || strmap_put(last, l->domain, s) < 0) {
                                free(s);
                                return -ENOMEM;
                        }
                }
                if (l->type_mask & LC_SOFT)
                        s->soft = l;
                if (l->type_mask & LC_HARD)
                        s->hard = l;
        }
        return 0;
}

static int check_shadowed(const struct lc_tree *t, const struct strmap *last, struct diag_list *d) {
        const struct lc_line *every_user_soft = NULL, *every_user_hard = NULL;
        const struct lc_line *every_group_soft = NULL, *every_group_hard = NULL;
        char where[4096];
        int r = 0;

        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!lc_line_counts(l))
                        continue;
                if (lc_line_matches_everyone(l)) {
                        bool user = lc_line_rank(l) == LC_RANK_USER;
                        if (l->type_mask & LC_SOFT)
                                *(user ? &every_user_soft : &every_group_soft) = l;
                        if (l->type_mask & LC_HARD)
                                *(user ? &every_user_hard : &every_group_hard) = l;
                }
        }
        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!lc_line_counts(l))
                        continue;
                const struct last_seen *s = strmap_get(last, l->domain);
                enum lc_rank rank = lc_line_rank(l);
                const struct lc_line *by[2] = {};
                for (int k = 0; k < 2; k++) {
                        unsigned slot = k == 0 ? LC_SOFT : LC_HARD;
                        if (!(l->type_mask & slot))
                                continue;
                        const struct lc_line *same = k == 0 ? s->soft : s->hard;
                        const struct lc_line *eu = k == 0 ? every_user_soft : every_user_hard;
                        const struct lc_line *eg = k == 0 ? every_group_soft : every_group_hard;
                        if (same != l)
                                by[k] = same;
                        else if (eu && eu != l && (rank > LC_RANK_USER || eu > l))
                                by[k] = eu;
                        else if (eg && eg != l && (rank > LC_RANK_GROUP || (rank == LC_RANK_GROUP && eg > l)))
                                by[k] = eg;
                }
                bool dead = (!(l->type_mask & LC_SOFT) || by[0]) && (!(l->type_mask & LC_HARD) || by[1]);
                if (!dead)
                        continue;
                const struct lc_line *o = by[0] ? by[0] : by[1];
                r = diag_add(d, DIAG_WARNING, t->files[l->file].display, l->lineno,
                             "never takes effect: overridden by %s ('%s', %s rank)", W(t, o), o->domain,
                             lc_rank_name(lc_line_rank(o)));
        }
        return r;
}

static int check_soft_above_hard(const struct lc_tree *t, const struct strmap *last, struct diag_list *d) {
        char where[4096];
        int r = 0;

        for (size_t i = 0; i < last->cap && r >= 0; i++) {
                const struct last_seen *s = last->v[i].value;
                if (!last->v[i].key || !s->soft || !s->hard || s->soft->bytes <= s->hard->bytes)
                        continue;
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                r = diag_add(d, DIAG_ERROR, t->files[s->soft->file].display, s->soft->lineno,
                             "soft memlock %s for '%s' is above its hard memlock %s (%s): the session gets "
                             "the hard value as soft", size_format(s->soft->bytes, a), s->soft->domain,
                             size_format(s->hard->bytes, b), W(t, s->hard));
        }
        return r;
}

int lc_check(const struct lc_tree *t, struct ident *id, struct diag_list *d) {
        int r = 0;

        for (size_t fi = 0; fi < t->n_files && r >= 0; fi++) {
                const struct lc_file *f = &t->files[fi];
                r = check_file_meta(t, fi, d);
                for (size_t li = f->first; li < f->first + f->n && r >= 0; li++)
                        r = check_line(t, &t->lines[li], d);
        }
        for (size_t i = 0; i < t->n_skipped && r >= 0; i++)
                r = diag_add(d, DIAG_WARNING, t->skipped[i].display, 0, "ignored: %s", t->skipped[i].reason);
        if (r >= 0 && t->dir_error)
                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                             "cannot be read (%s): pam_limits reads none of its files", fs_strerror(t->dir_error));
        if (r >= 0 && !t->conf_override && t->dir_display) {
                struct stat st;
                if (fs_stat_in_root(t->root, LC_LIMITS_DIR, false, &st) == 0 && S_ISDIR(st.st_mode)) {
                        if (st.st_uid != 0)
                                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                                             "is owned by uid %u, not root: its owner can add limits files",
                                             (unsigned)st.st_uid);
                        else if (st.st_mode & (S_IWGRP | S_IWOTH))
                                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                                             "is writable by %s (mode %04o): anyone who can write it can add limits files",
                                             (st.st_mode & S_IWOTH) ? "everyone" : "its group",
                                             (unsigned)(st.st_mode & 07777));
                }
        }
        struct strmap last = {};
        if (r >= 0)
                r = last_seen_map(t, &last);
        if (r >= 0)
                r = check_soft_above_hard(t, &last, d);
        if (r >= 0)
                r = check_shadowed(t, &last, d);
        strmap_clear(&last, free);
        (void)id;
        return r;
}
