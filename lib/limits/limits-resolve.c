/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pam_limits model, part 2: which lines match a user, and what a session ends with
 * (lc_resolve), as pam_limits decides them; which line overrides which.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "ident-files.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"

/* ---- matching ---- */

/*
 * A tree prepared for resolving many of its users (check): the group each line names, looked
 * up once for all of them, and the lines apart by whom they can match.  A line whose domain is
 * a plain user name matches that user alone (by name, whatever the item, also as a 2-field
 * stop); every other line (@, %, *, a uid range, a bad range) may match anyone.  A user's walk
 * takes the second kind and the lines that name the user, merged in file order: the lines
 * that name somebody else are never visited, and are exactly those that would not match.
 */
int idxv_push(struct idxv *x, size_t i) {
        if (GROW(x->v, x->cap, x->n + 1) < 0)
                return -ENOMEM;
        x->v[x->n++] = i;
        return 0;
}

void idxv_free(void *p) {
        struct idxv *x = p;
        if (x)
                free(x->v);
        free(x);
}

int idxv_map_push(struct strmap *m, const char *key, size_t i) {
        struct idxv *x = strmap_get(m, key);
        if (!x) {
                if (!(x = calloc(1, sizeof(*x))))
                        return -ENOMEM;
                if (strmap_put(m, key, x) < 0) {
                        free(x);
                        return -ENOMEM;
                }
        }
        return idxv_push(x, i);
}

struct lc_prep {
        const struct lc_tree *t;
        struct ident *id;
        const struct id_group **group;
        bool *looked;
        size_t *anyone;       /* the lines of the second kind, ascending */
        size_t n_anyone;
        struct strmap names;  /* plain name -> struct idxv: the lines that name it, ascending */
};

enum lc_dkind lc_dkind(const struct lc_line *l) {
        const char *d = l->domain;
        if (d[0] == '%')
                return DK_OTHER;
        if (d[0] == '@') {
                if (l->range == LC_RANGE_NONE)
                        return DK_GROUP;
                return l->range == LC_RANGE_ONE ? DK_GIDONE : DK_GIDR;
        }
        if (l->range != LC_RANGE_NONE)
                return DK_UIDR;
        return d[0] == '*' && !d[1] ? DK_STAR : DK_NAME;
}

int lc_prep_new(const struct lc_tree *t, struct ident *id, struct lc_prep **ret) {
        struct lc_prep *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        *p = (struct lc_prep){ .t = t, .id = id };
        if (t->n_lines > 0 && (!(p->group = calloc(t->n_lines, sizeof(*p->group))) ||
                               !(p->looked = calloc(t->n_lines, sizeof(*p->looked))) ||
                               !(p->anyone = calloc(t->n_lines, sizeof(*p->anyone))))) {
                lc_prep_free(p);
                return -ENOMEM;
        }
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (lc_dkind(l) != DK_NAME)
                        p->anyone[p->n_anyone++] = i;
                else if (idxv_map_push(&p->names, l->domain, i) < 0) {
                        lc_prep_free(p);
                        return -ENOMEM;
                }
        }
        *ret = p;
        return 0;
}

void lc_prep_free(struct lc_prep *p) {
        if (!p)
                return;
        free(p->group);
        free(p->looked);
        free(p->anyone);
        strmap_clear(&p->names, idxv_free);
        free(p);
}

/* The group a line names (@name, @:gid, %name, %:gid), looked up in id; NULL when there is no
 * such group.  Prepared (c), each line is looked up once for every user. */
static const struct id_group *line_group(struct lc_prep *c, struct ident *id, const struct lc_line *l) {
        const struct id_group *g = NULL;
        size_t i = c ? (size_t)(l - c->t->lines) : 0;   /* l is a line of the prepared tree */

        if (c && c->looked[i])
                return c->group[i];
        int r = l->range == LC_RANGE_ONE ? ident_group_by_gid(id, l->rmax, &g) : ident_group(id, l->domain + 1, &g);
        if (r < 0)
                g = NULL;
        /* a failure other than "no such group" (out of memory) is asked again next time */
        if (c && (r >= 0 || r == -ENOENT)) {
                c->group[i] = g;
                c->looked[i] = true;
        }
        return g;
}

static bool in_group(struct lc_prep *c, struct ident *id, const struct id_user *u, const struct lc_line *l) {
        const struct id_group *g = line_group(c, id, l);
        return g && ident_user_in_group(id, u, g);
}

static bool range_match(enum lc_range rng, uint32_t rmin, uint32_t rmax, uint32_t v) {
        switch (rng) {
        case LC_RANGE_ONE:
                return v == rmax;
        case LC_RANGE_MM:
                return v <= rmax && v >= rmin;
        case LC_RANGE_MIN:
                return v >= rmin;
        default:
                return false;
        }
}

/* An @ domain: @name and @:gid by membership, @min:max and @min: by the primary gid only */
static bool group_match(struct lc_prep *c, struct ident *id, const struct id_user *u, const struct lc_line *l) {
        switch (l->range) {
        case LC_RANGE_NONE:
        case LC_RANGE_ONE:
                return in_group(c, id, u, l);
        default:
                return range_match(l->range, l->rmin, l->rmax, u->gid);
        }
}

static bool is_root_debian(const struct lc_tree *t, const struct id_user *u) {
        return t->beh.root_rule && u->uid == 0;
}

/* The user a line is matched against: its name's hash, and the prepared tree (or NULL) */
struct match_user {
        const struct id_user *u;
        uint64_t hash;        /* str_hash(u->name) */
        struct lc_prep *prep;      /* the prepared tree, or NULL */
};

static bool names_user(const struct match_user *m, const struct lc_line *l) {
        return l->domain_hash == m->hash && streq(m->u->name, l->domain);
}

/* The rank a 4-field line matches the user with (parse_config_file()), or -1. */
static int line_match(const struct lc_tree *t, struct ident *id, const struct match_user *m, const struct lc_line *l) {
        const struct id_user *u = m->u;
        bool root = is_root_debian(t, u);
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return -1;
        if (names_user(m, l))
                return LC_RANK_USER;
        if (d[0] == '@' && !root)
                return group_match(m->prep, id, u, l) ? LC_RANK_GROUP : -1;
        if (d[0] == '%' && !root) {
                switch (l->range) {
                case LC_RANGE_NONE:
                        if (!d[1])
                                return LC_RANK_ALL;
                        /* fall through */
                case LC_RANGE_ONE:
                        return in_group(m->prep, id, u, l) ? LC_RANK_ALLGROUP : -1;
                default:
                        return -1; /* "range unsupported for %group matching" */
                }
        }
        /* Everything else, including @ and % forms for root on Debian: "*" or a uid range */
        if (l->range == LC_RANGE_NONE)
                return d[0] == '*' && !d[1] && !root ? LC_RANK_DEFAULT : -1;
        return range_match(l->range, l->rmin, l->rmax, u->uid) ? LC_RANK_USER : -1;
}

int lc_line_match(const struct lc_tree *t, struct ident *id, const struct id_user *u, const struct lc_line *l) {
        const struct match_user m = { .u = u, .hash = str_hash(u->name) };
        return line_match(t, id, &m, l);
}

/* Does a 2-field "<domain> -" line stop processing for this user? */
static bool stop_match(struct ident *id, const struct match_user *m, const struct lc_line *l) {
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return false;
        if (names_user(m, l))
                return true;
        if (d[0] == '@')
                return group_match(m->prep, id, m->u, l);
        if (l->range == LC_RANGE_NONE)
                return false;
        return range_match(l->range, l->rmin, l->rmax, m->u->uid);
}

bool lc_line_no_limits(const struct lc_line *l, bool *ret_honoured) {
        bool is = l->nfields == 2 && l->type[0] == '-';
        /* stop_match(): a name, an @group or a range can match; '*' and %group never do */
        *ret_honoured = is && l->range != LC_RANGE_ERR &&
                        !(l->range == LC_RANGE_NONE && (streq(l->domain, "*") || l->domain[0] == '%'));
        return is;
}

enum lc_rank lc_line_rank(const struct lc_line *l) {
        return l->rank;
}

enum lc_rank lc_domain_rank(const char *d, enum lc_range range) {
        if (d[0] == '@')
                return LC_RANK_GROUP;
        if (d[0] == '%')
                return !d[1] ? LC_RANK_ALL : LC_RANK_ALLGROUP;
        if (range == LC_RANGE_NONE && d[0] == '*' && !d[1])
                return LC_RANK_DEFAULT;
        return LC_RANK_USER;
}

/* ---- resolution ---- */

static int add_event(struct lc_result *r, size_t *cap, const struct lc_line *l, unsigned slot,
                     enum lc_rank rank, enum lc_outcome out) {
        const struct lc_slot *held = slot == LC_HARD ? &r->hard : &r->soft;
        if (GROW(r->events, *cap, r->n_events + 1) < 0)
                return -ENOMEM;
        r->events[r->n_events++] = (struct lc_event){ .line = l, .slot = slot, .rank = rank, .outcome = out,
                                                      .held_rank = held->rank, .held = held->src };
        return 0;
}

bool lc_file_fails_session(const struct lc_tree *t, size_t i) {
        const struct lc_file *f = &t->files[i];
        if (!f->open_error)
                return false;
        if (f->would_block || f->endless || !t->beh.enoent_ok)
                return true;    /* < 1.5.3: any fopen() failure is PAM_SERVICE_ERR */
        /* >= 1.5.3: a missing file is fine unless it was named with conf= */
        return !(f->open_error == -ENOENT && !(t->conf_override && i == 0));
}

struct resolver {
        const struct lc_tree *t;
        struct ident *id;
        const struct id_user *u;
        struct match_user m;
        struct lc_result res;
        size_t cap;
        int login_rank;
};

/* maxlogins: any type, % domains count (for maxlogins only), equal rank overwrites */
static void resolve_login(struct resolver *z, const struct lc_line *l) {
        int lr = line_match(z->t, z->id, &z->m, l);
        if ((lr == LC_RANK_ALL || lr == LC_RANK_ALLGROUP) && !streq(l->item, "maxlogins"))
                return;
        if (lr >= 0 && lr <= z->login_rank) {
                z->login_rank = lr;
                z->res.login_limit = l->ivalue;
                z->res.login_line = l;
        }
}

/* process_limit() for a setrlimit item other than memlock: the slots only, no events */
static void resolve_other(struct resolver *z, const struct lc_line *l, int rank) {
        struct lc_slot *soft = &z->res.rl_soft[l->resource], *hard = &z->res.rl_hard[l->resource];
        struct lc_slot v = { .known = true, .value = l->rvalue, .rank = (enum lc_rank)rank, .src = l };

        if (!l->type_mask || !l->value_ok || rank == LC_RANK_ALL || rank == LC_RANK_ALLGROUP)
                return;
        if (l->type_mask & LC_SOFT) {
                if ((int)soft->rank < rank)
                        return;   /* and for '-' the hard half is not tried either */
                *soft = v;
        }
        if ((l->type_mask & LC_HARD) && (int)hard->rank >= rank)
                *hard = v;
}

/* process_limit() for memlock, with the events explain shows */
static int resolve_memlock(struct resolver *z, const struct lc_line *l, int rank) {
        struct lc_result *res = &z->res;
        struct lc_slot v = { .known = true, .value = l->bytes, .rank = (enum lc_rank)rank, .src = l };
        int r = 0;

        if (!l->type_mask)
                return add_event(res, &z->cap, l, LC_SOFT | LC_HARD, rank, LC_OUT_BAD_TYPE);
        if (!l->value_ok)
                return add_event(res, &z->cap, l, l->type_mask, rank, LC_OUT_BAD_VALUE);
        if (rank == LC_RANK_ALL || rank == LC_RANK_ALLGROUP)
                return add_event(res, &z->cap, l, l->type_mask, rank, LC_OUT_PERCENT);
        if (l->type_mask & LC_SOFT) {
                if ((int)res->soft.rank < rank) {
                        r = add_event(res, &z->cap, l, LC_SOFT, rank, LC_OUT_WEAKER);
                        if (r >= 0 && (l->type_mask & LC_HARD))
                                r = add_event(res, &z->cap, l, LC_HARD, rank, LC_OUT_QUIRK);
                        return r;
                }
                res->soft = v;
                r = add_event(res, &z->cap, l, LC_SOFT, rank, LC_OUT_APPLIED);
        }
        if (r >= 0 && (l->type_mask & LC_HARD)) {
                if ((int)res->hard.rank < rank)
                        r = add_event(res, &z->cap, l, LC_HARD, rank, LC_OUT_WEAKER);
                else {
                        res->hard = v;
                        r = add_event(res, &z->cap, l, LC_HARD, rank, LC_OUT_APPLIED);
                }
        }
        return r;
}

/* One line of a file: 1 when a 2-field '-' line stops pam_limits, 0 to go on, -ENOMEM */
static int resolve_line(struct resolver *z, const struct lc_line *l) {
        if (l->range == LC_RANGE_ERR)
                return 0;
        bool honoured;
        if (lc_line_no_limits(l, &honoured)) {
                if (!honoured || !stop_match(z->id, &z->m, l))
                        return 0;
                z->res.kind = LC_RES_NO_LIMITS;
                z->res.stop = l;
                return 1;
        }
        if (l->nfields != 4)
                return 0;
        if (l->item_kind == LC_ITEM_LOGIN) {
                if (l->value_ok)
                        resolve_login(z, l);
                return 0;
        }
        /* Debian's chroot item: the last matching line wins, whatever its rank or type
         * (measured with Debian 12's module: '* - chroot A' after 'user - chroot B' is A) */
        if (l->item_kind == LC_ITEM_CHROOT) {
                if (line_match(z->t, z->id, &z->m, l) >= 0)
                        z->res.chroot = l;
                return 0;
        }
        if (l->resource < 0)
                return 0;
        int rank = line_match(z->t, z->id, &z->m, l);
        if (rank < 0)
                return 0;
        if (l->item_kind == LC_ITEM_MEMLOCK)
                return resolve_memlock(z, l, rank);
        resolve_other(z, l, rank);
        return 0;
}

/* init_limits(): every item from the baseline (PID 1's) or inherited */
static void resolve_init(struct resolver *z, const struct lc_baseline *base) {
        struct lc_result *res = &z->res;
        bool pid1 = base->rank == LC_RANK_KERNEL || base->rank == LC_RANK_DEFAULT;

        res->root_user_debian = is_root_debian(z->t, z->u);
        res->uid = z->u->uid;
        res->login_limit = -2;
        z->login_rank = LC_RANK_NONE;
        for (int i = 0; i < RLIM_NLIMITS; i++) {
                bool k = pid1 && base->rl[i].known;
                res->rl_soft[i] = (struct lc_slot){ .known = k, .value = base->rl[i].soft,
                                                    .rank = k || (pid1 && z->t->beh.pid1_always) ? LC_RANK_KERNEL : LC_RANK_NONE };
                res->rl_hard[i] = (struct lc_slot){ .known = k, .value = base->rl[i].hard, .rank = res->rl_soft[i].rank };
        }
        res->soft = (struct lc_slot){ .known = base->known, .value = base->soft, .rank = base->rank };
        res->hard = (struct lc_slot){ .known = base->known, .value = base->hard, .rank = base->rank };
}

bool lc_tree_fails_every_session(const struct lc_tree *t) {
        return t->n_files > 0 && lc_file_fails_session(t, 0);
}

const char *lc_conf_unreadable_text(const struct lc_tree *t, char *buf, size_t size) {
        snprintf(buf, size, "pam_limits reads %s (conf=), which it cannot read (%s)", t->files[0].display,
                 errno_text(t->files[0].open_error));
        return buf;
}

/* The lines of file f the user's walk visits, in order, to resolve_line(): all of them, or
 * (prepared) the lines that may match anyone and those that name the user.  1 when a stop
 * line ends the walk, 0, -ENOMEM. */
static int resolve_file(struct resolver *z, const struct lc_file *f, const struct idxv *own, size_t *ai,
                        size_t *oi) {
        const struct lc_prep *p = z->m.prep;
        size_t end = f->first + f->n;
        int r = 0;

        if (!p) {
                for (size_t li = f->first; li < end && r == 0; li++)
                        r = resolve_line(z, &z->t->lines[li]);
                return r;
        }
        while (r == 0) {
                size_t a = *ai < p->n_anyone && p->anyone[*ai] < end ? p->anyone[*ai] : SIZE_MAX;
                size_t o = own && *oi < own->n && own->v[*oi] < end ? own->v[*oi] : SIZE_MAX;
                if (a == SIZE_MAX && o == SIZE_MAX)
                        break;
                if (a < o)
                        (*ai)++;
                else
                        (*oi)++;
                r = resolve_line(z, &z->t->lines[a < o ? a : o]);
        }
        return r;
}

int lc_resolve_prepared(const struct lc_tree *t, struct ident *id, struct lc_prep *prep, const char *user,
                        const struct lc_baseline *base, struct lc_result *ret) {
        struct resolver z = { .t = t, .id = id };
        const struct idxv *own = NULL;
        size_t ai = 0, oi = 0;
        int r;

        if (prep && (prep->t != t || prep->id != id))
                return -EINVAL;
        r = ident_user(id, user, &z.u);
        if (r == -ENOENT) {
                *ret = (struct lc_result){ .kind = LC_RES_USER_UNKNOWN };
                return 0;
        }
        if (r < 0)
                return r;
        z.m = (struct match_user){ .u = z.u, .hash = str_hash(z.u->name), .prep = prep };
        if (prep)
                own = strmap_get(&prep->names, z.u->name);
        resolve_init(&z, base);
        z.res.kind = LC_RES_LIMITS;
        for (size_t fi = 0; fi < t->n_files; fi++) {
                const struct lc_file *f = &t->files[fi];
                if (lc_file_fails_session(t, fi)) {
                        z.res.kind = LC_RES_SERVICE_ERR;
                        z.res.bad_file = f;
                        break;
                }
                /* each file's walk ends past its lines: the next one starts at its first */
                r = resolve_file(&z, f, own, &ai, &oi);
                if (r < 0) {
                        free(z.res.events);
                        return r;
                }
                if (r > 0)
                        break;
        }
        z.res.rl_soft[RLIMIT_MEMLOCK] = z.res.soft;
        z.res.rl_hard[RLIMIT_MEMLOCK] = z.res.hard;
        if (z.res.kind == LC_RES_LIMITS) {
                /* setup_limits(): a login limit of 0 refuses the session (not for uid 0) */
                if (z.res.login_limit == 0 && z.u->uid != 0)
                        z.res.kind = LC_RES_LOGINS_DENIED;
                /* a soft value above the hard value is set to the hard value */
                if (z.res.soft.known && z.res.hard.known && z.res.soft.value > z.res.hard.value)
                        z.res.soft_clamped = true;
        }
        *ret = z.res;
        return 0;
}

int lc_resolve(const struct lc_tree *t, struct ident *id, const char *user, const struct lc_baseline *base,
               struct lc_result *ret) {
        return lc_resolve_prepared(t, id, NULL, user, base, ret);
}

void lc_result_clear(struct lc_result *r) {
        free(r->events);
        *r = (struct lc_result){};
}

/* ---- overriding ---- */

/* Does `l` match every user (uid range 0:, @0:, or the ranges that cover all ids)? */
bool lc_line_matches_everyone(const struct lc_line *l) {
        return l->rmin == 0 && (l->range == LC_RANGE_MIN || (l->range == LC_RANGE_MM && l->rmax == UINT32_MAX)) &&
               l->domain[0] != '%';
}

bool lc_line_counts(const struct lc_line *l) {
        return l->range != LC_RANGE_ERR && l->nfields == 4 && l->item_kind == LC_ITEM_MEMLOCK &&
               l->type_mask && l->value_ok && l->domain[0] != '%';
}

/* ---- the session outcome ---- */

_printf_(2, 3) static void set_cause(struct lc_session *s, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(s->cause, sizeof s->cause, fmt, ap);
        va_end(ap);
}

static const char *value_text(uint64_t v, char *buf, size_t size) {
        if (v == UINT64_MAX)
                return "unlimited";
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return buf;
}

/* What setup_limits() does with one item: whether it calls setrlimit, with which values,
 * and whether the kernel refuses them (do_prlimit(): raising the hard limit needs
 * CAP_SYS_RESOURCE, nofile's hard limit may not exceed fs.nr_open). */
struct item_outcome {
        bool set, known, fails;
        uint64_t soft, hard;
        const struct lc_line *line;   /* the line behind the failing value, NULL: the baseline */
        char why[160];
};

static void item_outcome(const struct lc_tree *t, const struct lc_result *r, const struct lc_service *svc, int i,
                         struct item_outcome *o) {
        const struct lc_slot *s = &r->rl_soft[i], *h = &r->rl_hard[i];
        bool have = svc->rl[i].known;
        char a[32], b[32];

        *o = (struct item_outcome){};
        if (s->rank == LC_RANK_NONE && h->rank == LC_RANK_NONE)
                return;   /* "skip it if its not initialized" */
        o->set = true;
        uint64_t cur = s->known ? s->value : svc->rl[i].soft;
        uint64_t max = h->known ? h->value : svc->rl[i].hard;
        if (i == RLIMIT_NOFILE && t->beh.nofile_nr_open && svc->nr_open) {
                /* process_limit(): nofile unlimited is fs.nr_open (of the lines, not the baseline) */
                if (s->src && cur == UINT64_MAX)
                        cur = svc->nr_open;
                if (h->src && max == UINT64_MAX)
                        max = svc->nr_open;
        }
        bool sk = s->known || have, hk = h->known || have;
        if (sk && hk && cur > max)
                cur = max;
        o->known = sk && hk;
        o->soft = cur;
        o->hard = max;
        o->line = h->src ? h->src : s->src;
        if (!hk)
                return;
        if (have && max > svc->rl[i].hard && !svc->cap_sys_resource) {
                o->fails = true;
                snprintf(o->why, sizeof o->why, "hard %s %s is above the service's own hard limit %s and the "
                         "service lacks CAP_SYS_RESOURCE", lc_rlimit_name(i), value_text(max, a, sizeof a),
                         value_text(svc->rl[i].hard, b, sizeof b));
        } else if (i == RLIMIT_NOFILE && svc->nr_open && max > svc->nr_open) {
                o->fails = true;
                snprintf(o->why, sizeof o->why, "hard nofile %s is above fs.nr_open %s",
                         value_text(max, a, sizeof a), value_text(svc->nr_open, b, sizeof b));
        }
}

/* setup_limits() for every item, in the kernel's order; the memlock it leaves */
static void session_limits(const struct lc_tree *t, const struct lc_result *r, const struct lc_service *svc,
                           struct lc_session *s) {
        char where[4096];
        s->kind = LC_SESSION_LIMITS;
        s->requested_soft_known = r->soft.known;
        s->requested_soft = r->soft.value;
        s->requested_hard_known = r->hard.known;
        s->requested_hard = r->hard.value;
        for (int i = 0; i < RLIM_NLIMITS; i++) {
                struct item_outcome o;
                item_outcome(t, r, svc, i, &o);
                if (!o.set)
                        continue;
                if (o.fails && !t->beh.eperm_silent) {
                        const char *at = o.line ? lc_line_where(t, o.line, where, sizeof where)
                                                : LC_PROC1_LIMITS;
                        if (s->kind != LC_SESSION_REFUSED)
                                set_cause(s, "%s: %s: setrlimit fails (EPERM) and pam_limits refuses the login "
                                          "(PAM_PERM_DENIED)", at, o.why);
                        s->kind = LC_SESSION_REFUSED;
                }
                if (i != RLIMIT_MEMLOCK || o.fails)
                        continue;   /* a failed setrlimit changes nothing (Debian: silently) */
                s->memlock_known = o.known;
                s->memlock_soft = o.soft;
                s->memlock_hard = o.hard;
        }
}

/* Debian's chroot item: pam_limits chroots the session into the line's directory, and refuses
 * the session (PAM_PERM_DENIED, measured) when it cannot: no such directory, not a directory. */
static void session_chroot(const struct lc_tree *t, const struct lc_line *l, struct lc_session *s) {
        char where[4096];
        struct stat st;
        int r = fs_stat_in_root(t->root, l->value, false, &st);
        if (r >= 0 && S_ISDIR(st.st_mode))
                return;
        s->kind = LC_SESSION_REFUSED;
        set_cause(s, "%s: chroot to %s fails (%s): pam_limits refuses the session (PAM_PERM_DENIED)",
                  lc_line_where(t, l, where, sizeof where), l->value, r < 0 ? errno_text(r) : "not a directory");
}

int lc_session_outcome(const struct lc_tree *t, const struct lc_result *r, const struct lc_service *svc,
                       struct lc_session *ret) {
        struct lc_session s = {};
        char where[4096];

        if (!t || !r || !svc || !ret)
                return -EINVAL;
        s.memlock_known = svc->rl[RLIMIT_MEMLOCK].known;
        s.memlock_soft = svc->rl[RLIMIT_MEMLOCK].soft;
        s.memlock_hard = svc->rl[RLIMIT_MEMLOCK].hard;
        switch (r->kind) {
        case LC_RES_USER_UNKNOWN:
                s.kind = LC_SESSION_FAILS;
                set_cause(&s, "no such user: pam_limits returns PAM_USER_UNKNOWN");
                break;
        case LC_RES_SERVICE_ERR:
                s.kind = LC_SESSION_FAILS;
                if (r->bad_file->would_block)
                        set_cause(&s, "%s blocks when read (a FIFO or a device without data): pam_limits waits "
                                  "on it forever and the login hangs", r->bad_file->display);
                else if (r->bad_file->endless)
                        set_cause(&s, "%s is a device that never ends: pam_limits reads it forever and the login "
                                  "hangs", r->bad_file->display);
                else if (r->bad_file->open_error == FS_ERR_USERFUSE)
                        set_cause(&s, "%s is on a FUSE file system a user serves: not read here; pam_limits reads it "
                                  "at every login and that user can hold the read (the login hangs)",
                                  r->bad_file->display);
                else
                        set_cause(&s, "%s cannot be read (%s): pam_limits returns PAM_SERVICE_ERR",
                                  r->bad_file->display, fs_strerror(r->bad_file->open_error));
                break;
        case LC_RES_LOGINS_DENIED:
                /* setup_limits() sets every limit first, then counts the logins: where the
                 * stack goes on after the refusal (an optional pam_limits), the limits stay */
                session_limits(t, r, svc, &s);
                s.kind = LC_SESSION_REFUSED;
                set_cause(&s, "%s: %s %s 0: no login allowed (PAM_PERM_DENIED)",
                          lc_line_where(t, r->login_line, where, sizeof where), r->login_line->domain,
                          r->login_line->item);
                break;
        case LC_RES_NO_LIMITS:
                s.kind = LC_SESSION_NO_LIMITS;
                break;
        case LC_RES_LIMITS:
                session_limits(t, r, svc, &s);
                if (r->chroot)
                        session_chroot(t, r->chroot, &s);
                break;
        }
        *ret = s;
        return 0;
}
