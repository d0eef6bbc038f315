/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pam_limits model, part 3: `rdmalimits check`, the findings over a tree read by part 1.
 *
 * Exact or silent: a line is said to never take effect only when no user, known or not, can
 * get its value (the proof below is textual: the same domain, a range that contains another,
 * a line that matches everyone), and removing it would change no session.  Where it depends
 * on who is in which group, the known users (NSS, or the --root tree's passwd and group) are
 * resolved one by one with the resolver explain uses (lc_resolve_prepared(): lc_resolve() on
 * the tree prepared once for them all), and check says for whom the line is overridden and
 * for whom it is not.
 *
 * Every finding has a stable id (listed in rdmalimits(8)) and a fix.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "array.h"
#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "ident-files.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"
#include "strv.h"

#define W(t, l) lc_line_where((t), (l), where, sizeof where)

#define CHECK_MAX_NAMES 10000u   /* users or groups enumerated for the per-user analysis */
#define CHECK_MAX_USERS 4096u    /* users resolved one by one */
#define CHECK_NAMES_SHOWN 4u     /* names listed in a message before "and N more" */
#define CRLF_FIX "convert the line ends: sed -i 's/\\r$//' FILE (or dos2unix FILE)"

/* ---- names of users and groups ---- */

/* a name worth knowing, up to CHECK_MAX_NAMES of them */
static int names_add(struct strv *s, const char *name) {
        if (!name || !*name || s->n >= CHECK_MAX_NAMES)
                return 0;
        return strv_push(s, name);
}

/* sorted, each name once */
static void names_finish(struct strv *s) {
        size_t k = 0;
        strv_sort(s);
        for (size_t i = 0; i < s->n; i++) {
                if (k > 0 && streq(s->v[k - 1], s->v[i]))
                        free(s->v[i]);
                else
                        s->v[k++] = s->v[i];
        }
        s->n = k;
        if (s->v)
                s->v[k] = NULL;
}

static int name_found(const char *name, void *data) {
        struct strv *s = data;
        return s->n >= CHECK_MAX_NAMES ? 1 : names_add(s, name);
}

/* Every user (or group) name this check knows of: NSS enumeration, or the tree's files as
 * the look-ups read them (ident-files.h), up to CHECK_MAX_NAMES.  A file that cannot be read
 * gives no names, as the look-ups find nobody in it: the check goes on.  -ENOMEM only. */
static int names_known(struct ident *id, bool groups, struct strv *s) {
        int r = ident_each_name(id, groups, name_found, s);
        return r == -ENOMEM ? r : 0;
}

/* ---- small helpers ---- */

static size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        if (la > 64 || lb > 64)
                return SIZE_MAX;
        size_t row[65], prev[65];
        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
                        size_t del = prev[j] + 1, ins = row[j - 1] + 1;
                        row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                }
                memcpy(prev, row, (lb + 1) * sizeof(size_t));
        }
        return prev[lb];
}

/* The existing name closest to `name`: the same but for case, else at most 2 edits away. */
static const char *closest_name(const struct strv *s, const char *name) {
        const char *best = NULL;
        size_t bestd = SIZE_MAX, len = strlen(name);

        for (size_t i = 0; i < s->n; i++) {
                if (strcasecmp(s->v[i], name) == 0)
                        return s->v[i];
                size_t d = edit_distance(s->v[i], name);
                if (d < bestd && d <= 2 && d < len) {
                        bestd = d;
                        best = s->v[i];
                }
        }
        return best;
}

/* The hint for a name that does not exist: a user domain naming a group ("@NAME"), else the
 * closest user or group.  ret "" when there is none. */
static int domain_hint(struct ident *id, const struct strv *users, const struct strv *groups, const char *dom,
                       char *ret, size_t size) {
        bool group = dom[0] == '@' || dom[0] == '%';
        const char *name = group ? dom + 1 : dom;
        const struct id_group *g;
        const char *best;
        int r;

        *ret = '\0';
        if (!group) {
                r = ident_group(id, name, &g);
                if (r >= 0) {
                        snprintf(ret, size, "@%s", name);   /* the group of that name */
                        return 0;
                }
                if (r != -ENOENT)
                        return r == -ENOMEM ? r : 0;
        }
        if ((best = closest_name(group ? groups : users, name)))
                snprintf(ret, size, "%s%s", group ? (dom[0] == '%' ? "%" : "@") : "", best);
        return 0;
}

int lc_domain_hint(struct ident *id, const char *domain, char *ret, size_t size) {
        _cleanup_(strv_clear) struct strv users = {}, groups = {};
        int r = names_known(id, false, &users);
        if (r >= 0)
                r = names_known(id, true, &groups);
        if (r < 0)
                return r;
        names_finish(&users);
        names_finish(&groups);
        return domain_hint(id, &users, &groups, domain, ret, size);
}

static bool is_stop_line(const struct lc_line *l) {
        bool honoured;
        return lc_line_no_limits(l, &honoured) && l->range != LC_RANGE_ERR;
}

/* A limit line of a setrlimit item pam_limits applies (memlock or another rlimit). */
static bool rlimit_counts(const struct lc_line *l) {
        return l->nfields == 4 && l->range != LC_RANGE_ERR && (l->item_kind == LC_ITEM_MEMLOCK || l->item_kind == LC_ITEM_RLIMIT) &&
               l->type_mask && l->value_ok && l->domain[0] != '%';
}

/* ---- domains as sets of users ---- */

static bool same_domain(const struct lc_line *a, const struct lc_line *b) {
        return a->domain_hash == b->domain_hash && streq(a->domain, b->domain);
}

/* the ids of a range: :id is id alone, min: goes up to the largest */
static void interval(const struct lc_line *l, uint32_t *lo, uint32_t *hi) {
        *lo = l->range == LC_RANGE_ONE ? l->rmax : l->rmin;
        *hi = l->range == LC_RANGE_MIN ? UINT32_MAX : l->rmax;
}

static bool is_range(enum lc_dkind k) {
        return k == DK_UIDR || k == DK_GIDR;
}

/* an id range whose minimum is above its maximum: it matches nobody */
static bool inverted(const struct lc_line *l) {
        return l->range == LC_RANGE_MM && l->rmin > l->rmax;
}

/* both ranges of the same kind, and a's ids contain b's */
static bool range_contains(const struct lc_line *a, const struct lc_line *b) {
        uint32_t alo, ahi, blo, bhi;
        if (lc_dkind(a) != lc_dkind(b) || !is_range(lc_dkind(a)) || inverted(a))
                return false;
        interval(a, &alo, &ahi);
        interval(b, &blo, &bhi);
        return alo <= blo && bhi <= ahi;
}

/* Can no user be matched by both lines?  Textual only: true means provably disjoint. */
static bool disjoint(const struct lc_line *a, const struct lc_line *b) {
        enum lc_dkind ka = lc_dkind(a), kb = lc_dkind(b);
        if (inverted(a) || inverted(b))
                return true;
        if (ka == DK_NAME && kb == DK_NAME)
                return !same_domain(a, b);
        if (ka == kb && is_range(ka)) {
                uint32_t alo, ahi, blo, bhi;
                interval(a, &alo, &ahi);
                interval(b, &blo, &bhi);
                return ahi < blo || bhi < alo;
        }
        return false;
}

/* Does 4-field line o match every user that 4-field line l matches, with a rank at least as
 * strong, whoever the user is (root on Debian included)? */
static bool covers(const struct lc_line *o, const struct lc_line *l) {
        /* a weaker rank never covers: the same domain, or a range of the same kind, has the
         * same rank (cheap, and most candidates fail here) */
        if (lc_line_rank(o) > lc_line_rank(l))
                return false;
        if (same_domain(o, l))
                return true;
        if (lc_line_matches_everyone(o) && lc_line_rank(o) <= lc_line_rank(l))
                return true;
        return range_contains(o, l);
}

/* Does the 2-field line s stop pam_limits for every user that l matches? */
static bool stop_covers(const struct lc_tree *t, const struct lc_line *s, const struct lc_line *l) {
        enum lc_dkind ks = lc_dkind(s), kl = lc_dkind(l);
        if (ks == DK_STAR || ks == DK_OTHER)
            return false;           /* '*' and '%' never stop */
        if (lc_line_matches_everyone(s))
                return true;
        if (kl == DK_STAR || kl == DK_OTHER)
                return false;
        /* @ ranges: the stop compares the gid, the limit line (root on Debian) the uid */
        bool upstream = !t->beh.root_rule;
        if (same_domain(s, l))
                return upstream || (kl != DK_GIDR && kl != DK_GIDONE);
        if (ks == DK_UIDR)
                return range_contains(s, l);
        if (ks == DK_GIDR && upstream)
                return range_contains(s, l);
        return false;
}

static size_t line_index(const struct lc_tree *t, const struct lc_line *l) {
        return (size_t)(l - t->lines);
}

enum dead_why {
        DEAD_NO,
        DEAD_STOP,       /* a no-limits line stops pam_limits for every user of the line */
        DEAD_PRIOR,      /* a stronger line for everyone comes first */
        DEAD_OVERRIDE,   /* later lines take each slot for every user of the line */
};

struct dead {
        enum dead_why why;
        const struct lc_line *by, *by_hard;
};

/*
 * The lines line_dead() can find for a line, indexed once per check: the no-limits lines,
 * the lines that match everyone, the uid and the gid range lines, and the counting lines by
 * domain.  A line is judged against these candidates only (covers(): the same domain, a line
 * for everyone, or a range of its own kind), so a tree of n lines costs about n times the
 * number of lines sharing a domain, plus the ranges of a kind for each range line.  The
 * counting lines that set soft, and the '-' ones, are listed too: what hard_tried() and
 * removal_harmless() look for between two lines is among them.
 */
struct dead_index {
        struct idxv stops, everyone, uid_ranges, gid_ranges;
        struct idxv soft_lines;         /* the counting lines that set soft (hard_tried()) */
        struct idxv dash_lines;         /* the counting '-' lines (removal_harmless()) */
        struct strmap by_domain;        /* domain -> struct idxv * */
};

static void dead_index_clear(struct dead_index *ix) {
        free(ix->stops.v);
        free(ix->everyone.v);
        free(ix->uid_ranges.v);
        free(ix->gid_ranges.v);
        free(ix->soft_lines.v);
        free(ix->dash_lines.v);
        strmap_clear(&ix->by_domain, idxv_free);
}

/* into an empty ix, which the caller clears (also on failure) */
static int dead_index_build(const struct lc_tree *t, struct dead_index *ix) {
        int r = 0;

        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (is_stop_line(l)) {
                        r = idxv_push(&ix->stops, i);
                        continue;
                }
                if (!lc_line_counts(l))
                        continue;
                if ((l->type_mask & LC_SOFT) && (r = idxv_push(&ix->soft_lines, i)) < 0)
                        break;
                if (l->type_mask == (LC_SOFT | LC_HARD) && (r = idxv_push(&ix->dash_lines, i)) < 0)
                        break;
                if (lc_line_matches_everyone(l) && (r = idxv_push(&ix->everyone, i)) < 0)
                        break;
                if (lc_dkind(l) == DK_UIDR && (r = idxv_push(&ix->uid_ranges, i)) < 0)
                        break;
                if (lc_dkind(l) == DK_GIDR && (r = idxv_push(&ix->gid_ranges, i)) < 0)
                        break;
                r = idxv_map_push(&ix->by_domain, l->domain, i);
        }
        return r;
}

/* The candidates after li that may cover l, in ascending order without building a list:
 * a merge of the three sorted index lists (same domain, everyone, and for a range line the
 * ranges of its kind), each entered at its first index after li. */
struct cand_iter {
        const struct idxv *lists[3];
        size_t pos[3];
};

static size_t first_after(const struct idxv *x, size_t li) {
        size_t lo = 0, hi = x ? x->n : 0;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (x->v[mid] <= li)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* the position of the first index at least li */
static size_t first_at_least(const struct idxv *x, size_t li) {
        return li == 0 ? 0 : first_after(x, li - 1);
}

/* Is the hard half of o (o after l, o covering l) tried for every user of l?  A '-' line
 * tries hard only when its soft half was taken: a stronger soft line that may match the
 * same user and comes before o (after l, when l took the soft slot itself) can refuse it. */
static bool hard_tried(const struct lc_tree *t, const struct dead_index *ix, const struct lc_line *l,
                       const struct lc_line *o) {
        if (o->type_mask == LC_HARD || lc_line_rank(o) == LC_RANK_USER)
                return true;
        size_t from = l && (l->type_mask & LC_SOFT) ? line_index(t, l) + 1 : 0, to = line_index(t, o);
        const struct idxv *x = &ix->soft_lines;
        for (size_t k = first_at_least(x, from); k < x->n && x->v[k] < to; k++) {
                const struct lc_line *m = &t->lines[x->v[k]];
                if (lc_line_rank(m) < lc_line_rank(o) && (!l || !disjoint(m, l)))
                        return false;
        }
        return true;
}

static void cand_begin(const struct dead_index *ix, const struct lc_line *l, size_t li, struct cand_iter *it) {
        enum lc_dkind kind = lc_dkind(l);
        *it = (struct cand_iter){ .lists = { strmap_get(&ix->by_domain, l->domain), &ix->everyone,
                                             kind == DK_UIDR ? &ix->uid_ranges :
                                             kind == DK_GIDR ? &ix->gid_ranges : NULL } };
        for (size_t k = 0; k < 3; k++)
                it->pos[k] = first_after(it->lists[k], li);
}

/* The next candidate index, or SIZE_MAX; a line in two lists comes once. */
static size_t cand_next(struct cand_iter *it) {
        size_t best = SIZE_MAX;
        for (size_t k = 0; k < 3; k++)
                if (it->lists[k] && it->pos[k] < it->lists[k]->n && it->lists[k]->v[it->pos[k]] < best)
                        best = it->lists[k]->v[it->pos[k]];
        for (size_t k = 0; k < 3 && best != SIZE_MAX; k++)
                if (it->lists[k] && it->pos[k] < it->lists[k]->n && it->lists[k]->v[it->pos[k]] == best)
                        it->pos[k]++;
        return best;
}

/* Removing l must change nothing: while l holds the soft slot it refuses a weaker '-' line m,
 * whose hard half would otherwise be tried; that is harmless when a line takes the hard slot
 * for every user of l, at least as strong as l (hard_held): one after l (o_hard), or a stronger
 * line for everyone before it (prior_hard).  A slot's rank only ever gets stronger, so m's hard
 * half is refused after that line and replaced by it before. */
static bool removal_harmless(const struct lc_tree *t, const struct dead_index *ix, const struct lc_line *l, size_t li,
                             const struct lc_line *o_soft, bool hard_held) {
        if (!o_soft || hard_held)
                return true;
        const struct idxv *x = &ix->dash_lines;
        size_t to = line_index(t, o_soft);
        for (size_t k = first_after(x, li); k < x->n && x->v[k] < to; k++) {
                const struct lc_line *m = &t->lines[x->v[k]];
                if (lc_line_rank(m) > lc_line_rank(l) && !disjoint(m, l))
                        return false;
        }
        return true;
}

/* Can the memlock line l take effect for no user at all, and is removing it harmless? */
static struct dead line_dead(const struct lc_tree *t, const struct dead_index *ix, const struct lc_line *l) {
        const struct lc_line *prior_soft = NULL, *prior_hard = NULL, *o_soft = NULL, *o_hard = NULL;
        size_t li = line_index(t, l);

        /* with Debian's root rule, @ ranges match uid 0 by uid, with the USER rank */
        bool root_gid_range = t->beh.root_rule && (lc_dkind(l) == DK_GIDR || lc_dkind(l) == DK_GIDONE);

        if (inverted(l))
                return (struct dead){};    /* reported as inverted-range */
        for (size_t k = 0; k < ix->stops.n; k++)
                if (stop_covers(t, &t->lines[ix->stops.v[k]], l))
                        return (struct dead){ .why = DEAD_STOP, .by = &t->lines[ix->stops.v[k]] };
        /* a stronger line for everyone before l */
        for (size_t k = 0; k < ix->everyone.n && ix->everyone.v[k] < li && !root_gid_range; k++) {
                const struct lc_line *o = &t->lines[ix->everyone.v[k]];
                if (lc_line_rank(o) >= lc_line_rank(l))
                        continue;
                if ((o->type_mask & LC_SOFT) && !prior_soft)
                        prior_soft = o;
                if ((o->type_mask & LC_HARD) && !prior_hard && hard_tried(t, ix, NULL, o))
                        prior_hard = o;
        }
        /* type '-' refused in the soft slot: the hard slot is not tried either */
        if ((l->type_mask & LC_SOFT) && prior_soft)
                return (struct dead){ .why = DEAD_PRIOR, .by = prior_soft };
        if (!(l->type_mask & LC_SOFT) && prior_hard)
                return (struct dead){ .why = DEAD_PRIOR, .by = prior_hard };
        struct cand_iter it;
        cand_begin(ix, l, li, &it);
        /* only the slots l sets need a later line: stop once each has one */
        for (size_t k; (((l->type_mask & LC_SOFT) && !o_soft) || ((l->type_mask & LC_HARD) && !o_hard)) &&
                       (k = cand_next(&it)) != SIZE_MAX;) {
                const struct lc_line *o = &t->lines[k];
                if (!covers(o, l))
                        continue;
                if ((l->type_mask & o->type_mask & LC_SOFT) && !o_soft)
                        o_soft = o;
                if ((l->type_mask & o->type_mask & LC_HARD) && !o_hard && hard_tried(t, ix, l, o))
                        o_hard = o;
        }
        bool soft_gone = !(l->type_mask & LC_SOFT) || o_soft;
        bool hard_gone = !(l->type_mask & LC_HARD) || o_hard || prior_hard;
        if (!soft_gone || !hard_gone || !removal_harmless(t, ix, l, li, o_soft, o_hard || prior_hard))
                return (struct dead){};
        return (struct dead){ .why = DEAD_OVERRIDE, .by = o_soft ? o_soft : o_hard,
                              .by_hard = o_soft && o_hard && o_hard != o_soft ? o_hard : NULL };
}

/* ---- files ---- */

/* Who but root can change a file (both findings), or limits.d (the first only) */
static int check_owner_mode(const char *display, const struct stat *st, bool dir, struct diag_list *d) {
        const char *can = dir ? "add limits files" : "set any user's limits";
        int r = 0;

        if (st->st_uid != 0)
                r = diag_addf(d, DIAG_ERROR, "not-root-owned", display, 0,
                              dir ? "chown root:root the directory" : "chown root:root the file",
                              "is owned by uid %u, not root: its owner can %s", (unsigned)st->st_uid, can);
        if (r >= 0 && (!dir || st->st_uid == 0) && (st->st_mode & (S_IWGRP | S_IWOTH)))
                r = diag_addf(d, DIAG_ERROR, "writable-file", display, 0,
                              dir ? "chmod go-w the directory" : "chmod go-w the file",
                              "is writable by %s (mode %04o): anyone who can write it can %s",
                              (st->st_mode & S_IWOTH) ? "everyone" : "its group", (unsigned)(st->st_mode & 07777), can);
        return r;
}

/* The file read again, for what the parsed lines no longer show (CRLF line ends). */
static int count_crlf(const struct lc_tree *t, const struct lc_file *f, unsigned *ret) {
        _cleanup_free_ char *rel = NULL, *buf = NULL;
        _cleanup_close_ int fd = -1;
        size_t len = 0;
        unsigned n = 0;

        *ret = 0;
        if (t->root ? asprintf(&rel, "/%s", f->display) < 0 : !(rel = strdup(f->path)))
                return -ENOMEM;
        int r = fs_open_in_root(t->root, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;       /* the reader reported it: no CRLF to count */
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        r = fs_read_all(fd, 64u * 1024 * 1024, &buf, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        for (size_t i = 1; i < len; i++)
                if (buf[i] == '\n' && buf[i - 1] == '\r')
                        n++;
        *ret = n;
        return 0;
}

static int check_file_meta(const struct lc_tree *t, size_t fi, struct diag_list *d) {
        const struct lc_file *f = &t->files[fi];
        int r = 0;

        if (f->open_error) {
                if (f->open_error == -ENOENT && !lc_file_fails_session(t, fi))
                        return diag_addf(d, DIAG_INFO, "missing-file", f->display, 0, NULL,
                                         "does not exist (fine for pam_limits >= 1.5.3)");
                if (f->open_error == -ENOENT)
                        return diag_addf(d, DIAG_ERROR, "missing-file", f->display, 0,
                                         "create it, even empty (touch it, mode 0644, owned by root)",
                                         "does not exist: pam_limits 1.5.2 fails every session that uses it "
                                         "(PAM_SERVICE_ERR); create it, even empty");
                if (f->open_error == FS_ERR_USERFUSE)
                        return diag_addf(d, DIAG_ERROR, "user-fuse-file", f->display, 0,
                                         "keep the configuration off file systems users serve",
                                         "is on a FUSE file system a user serves: not read; pam_limits reads it "
                                         "at every login and that user can hold the read (the login hangs)");
                if (f->open_error == FS_ERR_NOTREG || f->would_block || f->endless)
                        return diag_addf(d, DIAG_ERROR, "not-regular-file", f->display, 0,
                                         "remove it, or replace it with a regular file",
                                         f->open_error == FS_ERR_NOTREG
                                                 ? "is not a regular file (a FIFO or a device): pam_limits blocks on "
                                                   "it or reads garbage at every login; remove it"
                                         : f->would_block ? "blocks when read (a FIFO or a device without data): pam_limits "
                                                            "waits on it forever and every login that reads it hangs"
                                                          : "is a device that never ends: pam_limits reads it forever "
                                                            "and every login that reads it hangs");
                /* the tree is read with a plain open(): EACCES is a permission, not the mode check */
                bool eacces = f->open_error == -EACCES;
                return diag_addf(d, DIAG_ERROR, "unreadable-file", f->display, 0,
                                 eacces ? "run check as root, or make it readable by root (chmod 0644)"
                                        : "make it a readable regular file, or remove it",
                                 "cannot be read (%s): pam_limits fails the session",
                                 eacces ? "permission denied" : fs_strerror(f->open_error));
        }
        if (f->truncated)
                r = diag_addf(d, DIAG_WARNING, "file-too-large", f->display, 0,
                              "make it smaller: a limits file of this size is not meant to be",
                              "larger than 64 MiB: read up to there only, the rest is not checked or modelled "
                              "(pam_limits reads all of it at every login)");
        if (r >= 0 && f->is_dir)
                r = diag_addf(d, DIAG_WARNING, "directory-file", f->display, 0,
                              "remove the directory or rename it so it does not end in .conf",
                              "is a directory: pam_limits reads nothing from it");
        if (r >= 0 && f->stat_ok)
                r = check_owner_mode(f->display, &f->st, false, d);
        if (r >= 0 && f->no_final_newline)
                r = diag_addf(d, DIAG_WARNING, "no-final-newline", f->display, f->n_physical,
                              "end the file with a newline",
                              "no newline at the end of the file: text appended later is glued to this line");
        if (r >= 0 && f->has_nul)
                r = diag_addf(d, DIAG_WARNING, "nul-byte", f->display, 0, "remove the NUL bytes",
                              "contains NUL bytes: pam_limits ignores the rest of a line after one");
        if (r >= 0 && !f->is_dir) {
                unsigned n;
                r = count_crlf(t, f, &n);
                if (r >= 0 && n > 0) {
                        bool debian = t->beh.fgets_reader;
                        r = diag_addf(d, debian ? DIAG_WARNING : DIAG_ERROR, "crlf", f->display, 0,
                                      CRLF_FIX,
                                      "has CRLF (DOS) line ends on %u line%s: %s", n, n == 1 ? "" : "s",
                                      debian ? "this pam_limits (< 1.6) reads the carriage return as a blank, "
                                               "but pam_limits >= 1.6 (Debian 13, RHEL 10) refuses every value "
                                               "followed by one"
                                             : "pam_limits >= 1.6 keeps the carriage return in the value "
                                               "and refuses or misreads it");
                }
        }
        return r;
}

static bool looks_like_units(const char *v) {
        const char *end;
        c_strtoull(v, &end, NULL);
        return end != v && *end && strchr("kmgtb", *end) && (end[1] == '\0' || streq(end + 1, "b") ||
                                                              streq(end + 1, "ib"));
}

/* The unit of a value looks_like_units() accepted is KiB ("2048k", "2048KiB"). */
static bool kib_suffix(const char *v) {
        const char *end;
        c_strtoull(v, &end, NULL);
        return *end == 'k';
}

/* upstream reader: the value still carries the carriage return of a CRLF line end */
static bool ends_in_cr(const char *v) {
        size_t n = strlen(v);
        return n > 0 && v[n - 1] == '\r';
}

/* A value pam_limits reads, but not as written */
static int check_value(const struct lc_tree *t, const struct lc_line *l, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        unsigned ln = l->lineno;
        int r = 0;
        bool memlock = l->item_kind == LC_ITEM_MEMLOCK;
        if (l->value_misread) {
                if (ends_in_cr(l->value))
                        r = diag_addf(d, DIAG_ERROR, "crlf", path, ln, CRLF_FIX,
                                      "value '%.*s' is followed by a carriage return (a CRLF line end): "
                                      "pam_limits >= 1.6 reads %llu and ignores it", (int)strlen(l->value) - 1,
                                      l->value, (unsigned long long)l->value_raw);
                else if (memlock && looks_like_units(l->value) && kib_suffix(l->value))
                        /* read as exactly what it says: KiB is pam_limits' unit for memlock */
                        r = diag_addf(d, DIAG_WARNING, "unit-ignored", path, ln, "write the number alone",
                                      "'%s' is read as %llu KiB, as meant: pam_limits ignores the unit, and "
                                      "memlock counts in KiB", l->value, (unsigned long long)l->value_raw);
                else if (memlock && looks_like_units(l->value))
                        r = diag_addf(d, DIAG_ERROR, "unit-misread", path, ln,
                                      "write the size in KiB without a unit (1048576 for 1 GiB), "
                                      "or use rdmalimits apply DOMAIN SIZE",
                                      "'%s' is read as %llu KiB: pam_limits has no units, memlock counts in KiB "
                                      "(write e.g. 1048576 for 1 GiB)", l->value, (unsigned long long)l->value_raw);
                else
                        r = diag_addf(d, DIAG_ERROR, "value-misread", path, ln, "write digits only",
                                      "'%s' is read as %llu: pam_limits ignores what follows "
                                      "the digits", l->value, (unsigned long long)l->value_raw);
        } else if (!l->value_infinity && l->value[0] == '-' && l->item_kind != LC_ITEM_NICE &&
                   l->item_kind != LC_ITEM_PRIORITY) {
                r = diag_addf(d, DIAG_ERROR, "negative-value", path, ln, "write a positive number, or unlimited",
                              "negative value '%s' wraps around to %llu", l->value,
                              (unsigned long long)l->value_raw);
        } else if (memlock && !l->value_infinity && l->value_raw == UINT64_MAX) {
                r = diag_addf(d, DIAG_WARNING, "value-overflow", path, ln, "write unlimited if that is meant",
                              "value '%s' overflows and is read as unlimited", l->value);
        }
        return r;
}

/* What a valid line does not do the way it reads */
static int check_effect(const struct lc_tree *t, const struct lc_line *l, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        unsigned ln = l->lineno;
        bool memlock = l->item_kind == LC_ITEM_MEMLOCK;
        int r = 0;

        if (t->beh.fgets_reader && l->extra_words)
                r = diag_addf(d, DIAG_WARNING, "extra-words", path, ln, "remove the words after the value",
                              "words after the value are ignored");
        if (r >= 0 && l->domain[0] == '%' && l->item_kind != LC_ITEM_LOGIN)
                r = diag_addf(d, DIAG_WARNING, "percent-domain", path, ln,
                              "use @group (or *) for this item; % counts only for maxlogins",
                              "pam_limits ignores '%s' domains for every item but maxlogins", "%");
        if (r >= 0 && l->domain[0] == '%' && (l->range == LC_RANGE_MIN || l->range == LC_RANGE_MM))
                r = diag_addf(d, DIAG_WARNING, "percent-range", path, ln, "use %:GID or %group",
                              "pam_limits does not support ranges for %%group matching");
        if (r >= 0 && memlock && l->value_ok && !l->value_infinity && !l->value_misread) {
                if (l->value_raw == 0)
                        r = diag_addf(d, DIAG_WARNING, "memlock-zero", path, ln,
                                      "give the size RDMA needs (rdmalimits probe says it), in KiB",
                                      "memlock 0 makes every RDMA memory registration fail with EPERM");
                else if (l->value_raw < 64)
                        r = diag_addf(d, DIAG_WARNING, "memlock-tiny", path, ln,
                                      "memlock counts in KiB: 1048576 is 1 GiB",
                                      "memlock %llu is %llu KiB: limits.conf counts memlock in KiB",
                                      (unsigned long long)l->value_raw, (unsigned long long)l->value_raw);
        }
        return r;
}

/* A line pam_limits skips or reads in a way of its own, then its value and its effect */
static int check_line(const struct lc_tree *t, const struct lc_line *l, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        unsigned ln = l->lineno;
        char fix[512];

        if (l->chunk > 0)
                return diag_addf(d, DIAG_ERROR, "long-line", path, ln,
                                 "split the line, or shorten the comment, to less than 1024 bytes",
                                 "line longer than 1023 bytes: pam_limits 1.5.2 reads byte %u onwards as a "
                                 "separate line (\"%.40s\")", l->chunk * (LC_LINE_LENGTH - 1) + 1, l->text);
        if (l->range == LC_RANGE_ERR)
                return diag_addf(d, DIAG_ERROR, "invalid-range", path, ln,
                                 "write the range as MIN:MAX, MIN: or :ID with decimal ids",
                                 "invalid uid/gid range '%s': pam_limits skips the line", l->domain);
        if (inverted(l)) {
                const char *at = l->domain[0] == '@' || l->domain[0] == '%' ? "@" : "";
                snprintf(fix, sizeof fix, "write %s%u:%u", l->domain[0] == '%' ? "%" : at, (unsigned)l->rmax,
                         (unsigned)l->rmin);
                int r = diag_addf(d, DIAG_ERROR, "inverted-range", path, ln, fix,
                                  "inverted range '%s': its minimum %u is above its maximum %u, so pam_limits "
                                  "matches no %s with it", l->domain, (unsigned)l->rmin, (unsigned)l->rmax,
                                  l->domain[0] == '@' || l->domain[0] == '%' ? "group" : "user");
                if (r < 0)
                        return r;
        }
        bool honoured;
        if (lc_line_no_limits(l, &honoured)) {
                if (!honoured)
                        return diag_addf(d, DIAG_WARNING, "no-limits-ignored", path, ln,
                                         "name the users, @groups or id ranges that should get no limits, or "
                                         "remove the line",
                                         "'%s -' has no effect: pam_limits honours no-limit lines only for users, "
                                         "@groups and id ranges", l->domain);
                return diag_addf(d, DIAG_INFO, "no-limits-line", path, ln, NULL,
                                 "no-limits line: for '%s' pam_limits applies no limit at all and reads no "
                                 "further line or file", l->domain);
        }
        if (l->nfields != 4)
                return diag_addf(d, DIAG_ERROR, "invalid-line", path, ln,
                                 "write <domain> <type> <item> <value>, or '<domain> -' for no limits",
                                 "invalid line (%d field%s, expected <domain> <type> <item> <value>): pam_limits "
                                 "skips it", l->nfields, l->nfields == 1 ? "" : "s");
        if (l->item_kind == LC_ITEM_UNKNOWN)
                return diag_addf(d, DIAG_ERROR, "unknown-item", path, ln,
                                 "use an item pam_limits knows (memlock, nofile, nproc, ...; see limits.conf(5))",
                                 "unknown item '%s': pam_limits skips the line", l->item);
        if (!l->type_mask && l->item_kind != LC_ITEM_LOGIN && l->item_kind != LC_ITEM_NONEWPRIVS)
                return diag_addf(d, DIAG_ERROR, "unknown-type", path, ln, "write soft, hard or -",
                                 "unknown type '%s' (soft, hard or -): pam_limits skips the line", l->type);
        if (!l->value_ok) {
                if (ends_in_cr(l->value))
                        return diag_addf(d, DIAG_ERROR, "crlf", path, ln, CRLF_FIX,
                                         "value '%.*s' is followed by a carriage return (a CRLF line end): "
                                         "pam_limits >= 1.6 does not read it as a number and skips the line",
                                         (int)strlen(l->value) - 1, l->value);
                if (l->item_kind == LC_ITEM_NONEWPRIVS)
                        /* pam_limits logs it and goes on with the value 0 (parse_config_file()) */
                        return diag_addf(d, DIAG_ERROR, "bad-value", path, ln, "write 0 or 1",
                                         "value '%s' is neither 0 nor 1: pam_limits reads it as 0 (no "
                                         "nonewprivs)", l->value);
                return diag_addf(d, DIAG_ERROR, "bad-value", path, ln,
                                 "write a number, or unlimited", "value '%s' is not a number: pam_limits skips the line",
                                 l->value);
        }
        int r = check_value(t, l, d);
        return r < 0 ? r : check_effect(t, l, d);
}

/* ---- domains that name nobody ---- */

static int check_domains(const struct lc_tree *t, struct ident *id, const struct strv *users,
                         const struct strv *groups, struct diag_list *d) {
        struct strmap seen = {};
        char fix[600];
        int r = 0;

        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (l->chunk > 0 || l->range != LC_RANGE_NONE || (l->nfields != 4 && !is_stop_line(l)))
                        continue;
                const char *dom = l->domain;
                bool group = dom[0] == '@' || dom[0] == '%';
                const char *name = group ? dom + 1 : dom;
                if (!*name || streq(dom, "*"))
                        continue;
                if (strmap_get(&seen, dom))
                        continue;
                if ((r = strmap_put(&seen, dom, (void *)"")) < 0)
                        break;
                const struct id_group *g;
                const struct id_user *u;
                if ((group ? ident_group(id, name, &g) : ident_user(id, name, &u)) != -ENOENT)
                        continue;     /* found, or the name service failed: say nothing */
                char hint[300];
                if ((r = domain_hint(id, users, groups, dom, hint, sizeof hint)) < 0)
                        break;
                if (*hint)
                        snprintf(fix, sizeof fix, "did you mean '%s'? (names are case-sensitive; a group is "
                                 "written @NAME)", hint);
                else
                        snprintf(fix, sizeof fix, "create the %s, or correct the name", group ? "group" : "user");
                r = diag_addf(d, DIAG_WARNING, "unknown-domain", t->files[l->file].display, l->lineno, fix,
                              "%s '%s' does not exist%s: the line applies to nobody%s%s%s", group ? "group" : "user",
                              name, ident_uses_nss(id) ? "" : " in the tree", *hint ? " (did you mean '" : "",
                              hint, *hint ? "'?)" : "");
        }
        strmap_clear(&seen, NULL);
        return r;
}

/* ---- values ---- */

struct last_seen {
        const struct lc_line *soft, *hard;
};

static uint64_t line_value(const struct lc_line *l) {
        if (l->value_infinity)
                return UINT64_MAX;
        return l->item_kind == LC_ITEM_MEMLOCK ? l->bytes : l->value_raw;
}

/* The last soft and hard line per (item, domain), for every setrlimit item. */
static int last_seen_map(const struct lc_tree *t, struct strmap *last) {
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                _cleanup_free_ char *key = NULL;
                if (!rlimit_counts(l))
                        continue;
                if (asprintf(&key, "%s %s", l->item, l->domain) < 0)
                        return -ENOMEM;
                struct last_seen *s = strmap_get(last, key);
                if (!s) {
                        s = calloc(1, sizeof(*s));
                        if (!s || strmap_put(last, key, s) < 0) {
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

static int cmp_lastp(const void *a, const void *b) {
        const struct last_seen *x = *(const struct last_seen *const *)a, *y = *(const struct last_seen *const *)b;
        return x->soft < y->soft ? -1 : x->soft > y->soft;
}

static int check_soft_above_hard(const struct lc_tree *t, const struct strmap *last, struct diag_list *d) {
        _cleanup_free_ const struct last_seen **v = NULL;
        char where[4096], fix[256];
        size_t n = 0;
        int r = 0;

        v = calloc(last->n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < last->cap; i++) {
                const struct last_seen *s = last->v[i].key ? last->v[i].value : NULL;
                if (s && s->soft && s->hard && line_value(s->soft) > line_value(s->hard))
                        v[n++] = s;
        }
        /* in read order, not hash order */
        qsort(v, n, sizeof(*v), cmp_lastp);
        for (size_t i = 0; i < n && r >= 0; i++) {
                const struct lc_line *sl = v[i]->soft, *hl = v[i]->hard;
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                if (sl->item_kind == LC_ITEM_MEMLOCK) {
                        size_format(line_value(sl), a);
                        size_format(line_value(hl), b);
                } else {
                        if (sl->value_infinity)
                                snprintf(a, sizeof a, "unlimited");
                        else
                                snprintf(a, sizeof a, "%llu", (unsigned long long)sl->value_raw);
                        snprintf(b, sizeof b, "%llu", (unsigned long long)hl->value_raw);
                }
                snprintf(fix, sizeof fix, "lower the soft %s to at most %s, or raise the hard one", sl->item, hl->value);
                r = diag_addf(d, DIAG_ERROR, "soft-above-hard", t->files[sl->file].display, sl->lineno, fix,
                              "soft %s %s for '%s' is above its hard %s %s (%s): where both apply, pam_limits "
                              "sets the soft limit to the hard value", sl->item, a, sl->domain, hl->item, b, W(t, hl));
        }
        return r;
}

static int check_nofile(const struct lc_tree *t, struct diag_list *d) {
        uint64_t nr_open = 0;
        bool have = false, host = t->root != NULL;
        char fix[256];
        int r = 0;

        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!rlimit_counts(l) || !streq(l->item, "nofile"))
                        continue;
                if (!have) {
                        nr_open = lc_nr_open();
                        have = true;
                }
                const char *path = t->files[l->file].display;
                if (l->value_infinity && !l->value_misread) {
                        if (nr_open)
                                snprintf(fix, sizeof fix, "write a number no larger than fs.nr_open (%s%llu)",
                                         host ? "this host's: " : "", (unsigned long long)nr_open);
                        else
                                snprintf(fix, sizeof fix, "write a number no larger than fs.nr_open");
                        /* a release before 1.5.2 passes RLIM_INFINITY on: the login is refused */
                        r = diag_addf(d, t->beh.nofile_nr_open ? DIAG_WARNING : DIAG_ERROR, "nofile-unlimited", path,
                                      l->lineno, fix,
                                      "nofile unlimited: the kernel refuses it (at most fs.nr_open); pam_limits "
                                      ">= 1.5.2 sets fs.nr_open instead, older releases (RHEL 8 and 9) fail "
                                      "setrlimit and refuse the login (PAM_PERM_DENIED)");
                } else if (nr_open && line_value(l) > nr_open) {
                        snprintf(fix, sizeof fix, "write at most %llu, or raise fs.nr_open (sysctl) first",
                                 (unsigned long long)nr_open);
                        r = diag_addf(d, host ? DIAG_WARNING : DIAG_ERROR, "nofile-above-nr-open", path, l->lineno,
                                      fix,
                                      "nofile %llu is above fs.nr_open (%llu%s): setrlimit fails, so upstream "
                                      "pam_limits refuses the login (PAM_PERM_DENIED) and Debian's keeps the old "
                                      "limit", (unsigned long long)l->value_raw, (unsigned long long)nr_open,
                                      host ? ", the value of the host running check, not of the tree" : "");
                }
        }
        return r;
}

/* ---- entries that never take effect ---- */

/* The first CHECK_NAMES_SHOWN names (or texts) a message lists, joined by ", ", at most max
 * bytes; allocated when the first is added (most lines get one or none: a fixed buffer for
 * each line of a large tree was megabytes, each page faulted in). */
struct shown {
        char *text;             /* NULL: none */
        size_t len;
        unsigned n;             /* names added, the ones past the bound too */
};
#define SHOWN_EFF_MAX 199u
#define SHOWN_OVR_MAX 799u

static int shown_add(struct shown *s, size_t max, const char *text) {
        const char *sep = s->n ? ", " : "";
        if (s->n >= CHECK_NAMES_SHOWN)
                return 0;
        size_t add = strlen(sep) + strlen(text);
        if (s->len + add > max)
                add = max - s->len;    /* cut as snprintf() into a buffer of max + 1 bytes cuts */
        char *p = realloc(s->text, s->len + add + 1);
        if (!p)
                return -ENOMEM;
        s->text = p;
        size_t k = 0;
        for (const char *q = sep; *q && k < add; q++)
                p[s->len + k++] = *q;
        for (const char *q = text; *q && k < add; q++)
                p[s->len + k++] = *q;
        s->len += k;
        p[s->len] = '\0';
        s->n++;
        return 0;
}

static const char *shown_text(const struct shown *s) {
        return s->text ? s->text : "";
}

/* What the known users' sessions say about one line. */
struct line_users {
        size_t effective, overridden;
        struct shown eff, ovr;
        size_t stamp;
};

static void line_users_free(struct line_users *lu, size_t n) {
        for (size_t i = 0; lu && i < n; i++) {
                free(lu[i].eff.text);
                free(lu[i].ovr.text);
        }
        free(lu);
}

static const char *src_name(const struct lc_tree *t, const struct lc_slot *s, char *buf, size_t size) {
        if (s->src)
                return lc_line_where(t, s->src, buf, size);
        snprintf(buf, size, "the starting value");
        return buf;
}

static int collect_users(const struct lc_tree *t, struct ident *id, const struct strv *users, struct strv *ret) {
        int r;
        for (size_t i = 0; i < users->n; i++)
                if ((r = names_add(ret, users->v[i])) < 0)
                        return r;
        /* users named by the lines, and the members of the groups they name */
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!lc_line_counts(l) || l->range != LC_RANGE_NONE)
                        continue;
                if (l->domain[0] == '@') {
                        const struct id_group *g;
                        if (ident_group(id, l->domain + 1, &g) < 0)
                                continue;
                        for (char **m = g->members; m && *m; m++)
                                if ((r = names_add(ret, *m)) < 0)
                                        return r;
                } else if (!streq(l->domain, "*") && (r = names_add(ret, l->domain)) < 0)
                        return r;
        }
        names_finish(ret);
        return 0;
}

static int per_user(const struct lc_tree *t, struct ident *id, const struct strv *users, struct line_users *lu) {
        struct lc_baseline base = { .known = false, .rank = LC_RANK_NONE, .source = "inherited" };
        char b1[4096], b2[4096], text[8400];
        _cleanup_(lc_prep_freep) struct lc_prep *prep = NULL;
        size_t resolved = 0;
        int r;

        r = lc_prep_new(t, id, &prep);
        if (r < 0)
                return r;

        for (size_t ui = 0; ui < users->n && resolved < CHECK_MAX_USERS; ui++) {
                const struct id_user *u;
                if (ident_user(id, users->v[ui], &u) < 0)
                        continue;
                struct lc_result res = {};
                r = lc_resolve_prepared(t, id, prep, users->v[ui], &base, &res);
                if (r < 0)
                        return r;
                resolved++;
                bool ran = res.kind == LC_RES_LIMITS || res.kind == LC_RES_NO_LIMITS;
                for (size_t e = 0; ran && e < res.n_events; e++) {
                        const struct lc_event *ev = &res.events[e];
                        if (ev->outcome != LC_OUT_APPLIED && ev->outcome != LC_OUT_WEAKER && ev->outcome != LC_OUT_QUIRK)
                                continue;
                        struct line_users *x = &lu[line_index(t, ev->line)];
                        if (x->stamp == ui + 1)
                                continue;
                        x->stamp = ui + 1;
                        const struct lc_line *l = ev->line;
                        if (res.kind == LC_RES_LIMITS && (res.soft.src == l || res.hard.src == l)) {
                                x->effective++;
                                if ((r = shown_add(&x->eff, SHOWN_EFF_MAX, u->name)) < 0)
                                        break;
                                continue;
                        }
                        x->overridden++;
                        if (x->ovr.n >= CHECK_NAMES_SHOWN)
                                continue;       /* counted only: "and N more" */
                        if (res.kind == LC_RES_NO_LIMITS)
                                snprintf(text, sizeof text, "%s (no limits: %s)", u->name,
                                         lc_line_where(t, res.stop, b1, sizeof b1));
                        else if (l->type_mask == (LC_SOFT | LC_HARD))
                                snprintf(text, sizeof text, "%s (soft from %s, hard from %s)", u->name,
                                         src_name(t, &res.soft, b1, sizeof b1), src_name(t, &res.hard, b2, sizeof b2));
                        else
                                snprintf(text, sizeof text, "%s (%s from %s)", u->name,
                                         l->type_mask == LC_SOFT ? "soft" : "hard",
                                         src_name(t, l->type_mask == LC_SOFT ? &res.soft : &res.hard, b1, sizeof b1));
                        if ((r = shown_add(&x->ovr, SHOWN_OVR_MAX, text)) < 0)
                                break;
                }
                lc_result_clear(&res);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int report_dead(const struct lc_tree *t, const struct lc_line *l, const struct dead *x, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        char where[4096], where2[4096], fix[4200];

        switch (x->why) {
        case DEAD_STOP:
                snprintf(fix, sizeof fix, "remove it, or the no-limits line %s if these users should get limits",
                         W(t, x->by));
                return diag_addf(d, DIAG_WARNING, "unreachable-entry", path, l->lineno, fix,
                                 "never takes effect: the no-limits line %s ('%s -') makes pam_limits set no "
                                 "limit at all for every user this line names", W(t, x->by), x->by->domain);
        case DEAD_PRIOR:
                snprintf(fix, sizeof fix, "remove it, or narrow %s", W(t, x->by));
                return diag_addf(d, DIAG_WARNING, "shadowed-entry", path, l->lineno, fix,
                                 "never takes effect: %s ('%s', %s rank) comes first and a weaker rank never "
                                 "replaces a stronger one", W(t, x->by), x->by->domain,
                                 lc_rank_name(lc_line_rank(x->by)));
        case DEAD_OVERRIDE:
                /* the same entry again */
                if (!x->by_hard && streq(l->domain, x->by->domain) && streq(l->type, x->by->type) &&
                    streq(l->item, x->by->item) && streq(l->value, x->by->value))
                        return diag_addf(d, DIAG_INFO, "duplicate-entry", path, l->lineno, "remove this copy",
                                         "never takes effect: the same entry is read again at %s", W(t, x->by));
                snprintf(fix, sizeof fix, "remove it, or change %s%s%s instead", W(t, x->by),
                         x->by_hard ? " and " : "", x->by_hard ? lc_line_where(t, x->by_hard, where2, sizeof where2) : "");
                if (x->by_hard)
                        return diag_addf(d, DIAG_WARNING, "shadowed-entry", path, l->lineno, fix,
                                         "never takes effect: overridden by %s ('%s', %s rank) for the soft limit "
                                         "and by %s ('%s', %s rank) for the hard limit", W(t, x->by), x->by->domain,
                                         lc_rank_name(lc_line_rank(x->by)), where2, x->by_hard->domain,
                                         lc_rank_name(lc_line_rank(x->by_hard)));
                return diag_addf(d, DIAG_WARNING, "shadowed-entry", path, l->lineno, fix,
                                 "never takes effect: overridden by %s ('%s', %s rank)", W(t, x->by), x->by->domain,
                                 lc_rank_name(lc_line_rank(x->by)));
        default:
                return 0;
        }
}

/* " and N more" when a message shows `shown` of `total` names, else "" */
static const char *more_tail(size_t total, unsigned shown, char buf[static 64]) {
        buf[0] = '\0';
        if (total > shown)
                snprintf(buf, 64, " and %zu more", total - shown);
        return buf;
}

static int check_shadowed(const struct lc_tree *t, struct ident *id, const struct strv *users, struct diag_list *d) {
        struct line_users *lu = NULL;
        _cleanup_(strv_clear) struct strv known = {};
        _cleanup_(dead_index_clear) struct dead_index ix = {};
        char tail[64], etail[64];
        int r = 0;

        if (t->n_lines == 0)
                return 0;
        lu = calloc(t->n_lines, sizeof(*lu));
        if (!lu)
                return -ENOMEM;
        r = collect_users(t, id, users, &known);
        if (r >= 0)
                r = per_user(t, id, &known, lu);
        if (r >= 0)
                r = dead_index_build(t, &ix);
        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!lc_line_counts(l))
                        continue;
                struct dead x = line_dead(t, &ix, l);
                if (x.why != DEAD_NO) {
                        r = report_dead(t, l, &x, d);
                        continue;
                }
                const struct line_users *u = &lu[i];
                if (u->overridden == 0)
                        continue;
                const char *path = t->files[l->file].display;
                more_tail(u->overridden, u->ovr.n, tail);
                if (u->effective == 0)
                        r = diag_addf(d, DIAG_WARNING, "shadowed-for-known-users", path, l->lineno,
                                      "if these are all the users it is meant for, remove it or raise its rank; "
                                      "rdmalimits explain USER shows the lines behind each value",
                                      "takes effect for none of the %zu known user%s it applies to: %s%s (it would "
                                      "for a user that no stronger or later line names)",
                                      u->overridden, u->overridden == 1 ? "" : "s", shown_text(&u->ovr), tail);
                else
                        r = diag_addf(d, DIAG_INFO, "shadowed-for-some-users", path, l->lineno,
                                      "rdmalimits explain USER shows the lines behind each value",
                                      "overridden for %s%s; takes effect for %s%s", shown_text(&u->ovr), tail,
                                      shown_text(&u->eff), more_tail(u->effective, u->eff.n, etail));
        }
        line_users_free(lu, t->n_lines);
        return r;
}

/* identical entries that check did not already call dead */
static int check_duplicates(const struct lc_tree *t, struct diag_list *d, size_t from, size_t to) {
        struct strmap first = {}, said_at = {};
        char where[4096];
        int r = 0;

        /* the lines already reported as duplicates that never take effect, by file:line */
        for (size_t k = from; k < to && r >= 0; k++) {
                char key[4200];
                if (!d->v[k].id || !streq(d->v[k].id, "duplicate-entry") || !d->v[k].path)
                        continue;
                snprintf(key, sizeof key, "%s:%u", d->v[k].path, d->v[k].line);
                r = strmap_put(&said_at, key, (void *)d->v[k].path);
        }
        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                _cleanup_free_ char *key = NULL;
                if (l->nfields != 4 || l->chunk > 0 || !l->value_ok)
                        continue;
                if (asprintf(&key, "%s\n%s\n%s\n%s", l->domain, l->type, l->item, l->value) < 0) {
                        r = -ENOMEM;
                        break;
                }
                const struct lc_line *f = strmap_get(&first, key);
                if (!f) {
                        r = strmap_put(&first, key, (void *)l);
                        continue;
                }
                /* already said: the earlier copy never takes effect */
                char at[4200];
                snprintf(at, sizeof at, "%s:%u", t->files[f->file].display, f->lineno);
                if (strmap_get(&said_at, at))
                        continue;
                r = diag_addf(d, DIAG_INFO, "duplicate-entry", t->files[l->file].display, l->lineno,
                              "remove one of the two", "the same entry as %s", W(t, f));
        }
        strmap_clear(&first, NULL);
        strmap_clear(&said_at, NULL);
        return r;
}

int lc_check(const struct lc_tree *t, struct ident *id, struct diag_list *d) {
        _cleanup_(strv_clear) struct strv users = {}, groups = {};
        int r = 0;

        for (size_t fi = 0; fi < t->n_files && r >= 0; fi++) {
                const struct lc_file *f = &t->files[fi];
                r = check_file_meta(t, fi, d);
                for (size_t li = f->first; li < f->first + f->n && r >= 0; li++)
                        r = check_line(t, &t->lines[li], d);
        }
        for (size_t i = 0; i < t->n_skipped && r >= 0; i++)
                r = diag_addf(d, DIAG_WARNING, "ignored-file", t->skipped[i].display, 0,
                              "rename it to end in .conf (and not start with a dot) if it should be read",
                              "ignored: %s", t->skipped[i].reason);
        if (r >= 0 && t->dir_error)
                r = diag_addf(d, DIAG_ERROR, "unreadable-dir", t->dir_display, 0, "make it a directory root can read",
                              "cannot be read (%s): pam_limits reads none of its files",
                              t->dir_error == -EACCES ? "permission denied" : fs_strerror(t->dir_error));
        if (r >= 0 && !t->conf_override && t->dir_display) {
                struct stat st;
                if (fs_stat_in_root(t->root, LC_LIMITS_DIR, false, &st) == 0 && S_ISDIR(st.st_mode))
                        r = check_owner_mode(t->dir_display, &st, true, d);
        }
        if (r >= 0)
                r = names_known(id, false, &users);
        if (r >= 0)
                r = names_known(id, true, &groups);
        if (r >= 0) {
                names_finish(&users);
                names_finish(&groups);
                r = check_domains(t, id, &users, &groups, d);
        }
        struct strmap last = {};
        if (r >= 0)
                r = last_seen_map(t, &last);
        if (r >= 0)
                r = check_soft_above_hard(t, &last, d);
        strmap_clear(&last, free);
        if (r >= 0)
                r = check_nofile(t, d);
        size_t before = d ? d->n : 0;
        if (r >= 0)
                r = check_shadowed(t, id, &users, d);
        if (r >= 0 && d)
                r = check_duplicates(t, d, before, d->n);
        return r;
}
