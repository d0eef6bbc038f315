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

#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"

/* ---- matching ---- */

static bool in_group_name(struct ident *id, const struct id_user *u, const char *name) {
        const struct id_group *g;
        if (ident_group(id, name, &g) < 0)
                return false;
        return ident_user_in_group(id, u, g);
}

static bool in_group_gid(struct ident *id, const struct id_user *u, gid_t gid) {
        const struct id_group *g;
        if (ident_group_by_gid(id, gid, &g) < 0)
                return false;
        return ident_user_in_group(id, u, g);
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

static bool is_root_debian(const struct lc_tree *t, const struct id_user *u) {
        return t->flavour == LC_FLAVOUR_DEBIAN && u->uid == 0;
}

/* The rank a 4-field line matches the user with (parse_config_file()), or -1. */
int lc_line_match(const struct lc_tree *t, struct ident *id, const struct id_user *u, const struct lc_line *l) {
        bool root = is_root_debian(t, u);
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return -1;
        if (streq(u->name, d))
                return LC_RANK_USER;
        if (d[0] == '@' && !root) {
                switch (l->range) {
                case LC_RANGE_NONE:
                        return in_group_name(id, u, d + 1) ? LC_RANK_GROUP : -1;
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax) ? LC_RANK_GROUP : -1;
                default:
                        /* @min:max and @min: compare the primary gid only */
                        return range_match(l->range, l->rmin, l->rmax, u->gid) ? LC_RANK_GROUP : -1;
                }
        }
        if (d[0] == '%' && !root) {
                switch (l->range) {
                case LC_RANGE_NONE:
                        if (streq(d, "%"))
                                return LC_RANK_ALL;
                        return in_group_name(id, u, d + 1) ? LC_RANK_ALLGROUP : -1;
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax) ? LC_RANK_ALLGROUP : -1;
                default:
                        return -1; /* "range unsupported for %group matching" */
                }
        }
        /* Everything else, including @ and % forms for root on Debian: "*" or a uid range */
        if (l->range == LC_RANGE_NONE)
                return streq(d, "*") && !root ? LC_RANK_DEFAULT : -1;
        return range_match(l->range, l->rmin, l->rmax, u->uid) ? LC_RANK_USER : -1;
}

/* Does a 2-field "<domain> -" line stop processing for this user? */
static bool stop_match(struct ident *id, const struct id_user *u, const struct lc_line *l) {
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return false;
        if (streq(u->name, d))
                return true;
        if (d[0] == '@') {
                switch (l->range) {
                case LC_RANGE_NONE:
                        return in_group_name(id, u, d + 1);
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax);
                default:
                        return range_match(l->range, l->rmin, l->rmax, u->gid);
                }
        }
        if (l->range == LC_RANGE_NONE)
                return false;
        return range_match(l->range, l->rmin, l->rmax, u->uid);
}

enum lc_rank lc_line_rank(const struct lc_line *l) {
        const char *d = l->domain;
        if (d[0] == '@')
                return LC_RANK_GROUP;
        if (d[0] == '%')
                return streq(d, "%") ? LC_RANK_ALL : LC_RANK_ALLGROUP;
        if (l->range == LC_RANGE_NONE && streq(d, "*"))
                return LC_RANK_DEFAULT;
        return LC_RANK_USER;
}

/* ---- resolution ---- */

static int add_event(struct lc_result *r, size_t *cap, const struct lc_line *l, unsigned slot,
                     enum lc_rank rank, enum lc_outcome out) {
        const struct lc_slot *held = slot == LC_HARD ? &r->hard : &r->soft;
        if (r->n_events == *cap) {
                size_t c = *cap ? *cap * 2 : 16;
                struct lc_event *v = reallocarray(r->events, c, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                r->events = v;
                *cap = c;
        }
        r->events[r->n_events++] = (struct lc_event){ .line = l, .slot = slot, .rank = rank, .outcome = out,
                                                      .held_rank = held->rank, .held = held->src };
        return 0;
}

bool lc_file_fails_session(const struct lc_tree *t, size_t i) {
        const struct lc_file *f = &t->files[i];
        if (!f->open_error)
                return false;
        if (t->flavour == LC_FLAVOUR_DEBIAN)
                return true;    /* 1.5.2: any fopen() failure is PAM_SERVICE_ERR */
        /* upstream: a missing file is fine unless it was named with conf= */
        return !(f->open_error == -ENOENT && !(t->conf_override && i == 0));
}

int lc_resolve(const struct lc_tree *t, struct ident *id, const char *user,
               const struct lc_baseline *base, struct lc_result *ret) {
        struct lc_result res = {};
        const struct id_user *u;
        size_t cap = 0;
        int r;

        r = ident_user(id, user, &u);
        if (r == -ENOENT) {
                res.kind = LC_RES_USER_UNKNOWN;
                *ret = res;
                return 0;
        }
        if (r < 0)
                return r;

        res.root_user_debian = is_root_debian(t, u);
        res.login_limit = -2;
        int login_rank = LC_RANK_NONE;
        res.soft = (struct lc_slot){ .known = base->known, .value = base->soft, .rank = base->rank };
        res.hard = (struct lc_slot){ .known = base->known, .value = base->hard, .rank = base->rank };

        for (size_t fi = 0; fi < t->n_files; fi++) {
                const struct lc_file *f = &t->files[fi];
                if (lc_file_fails_session(t, fi)) {
                        res.kind = LC_RES_SERVICE_ERR;
                        res.bad_file = f;
                        goto done;
                }
                for (size_t li = f->first; li < f->first + f->n; li++) {
                        const struct lc_line *l = &t->lines[li];
                        if (l->range == LC_RANGE_ERR)
                                continue;
                        if (l->nfields == 2 && l->type[0] == '-') {
                                if (stop_match(id, u, l)) {
                                        res.kind = LC_RES_NO_LIMITS;
                                        res.stop = l;
                                        goto done;
                                }
                                continue;
                        }
                        if (l->nfields == 4 && l->item_kind == LC_ITEM_LOGIN && l->value_ok) {
                                /* maxlogins: any type, % domains count, equal rank overwrites */
                                int lr = lc_line_match(t, id, u, l);
                                /* % domains count for maxlogins only, not maxsyslogins */
                                if ((lr == LC_RANK_ALL || lr == LC_RANK_ALLGROUP) && !streq(l->item, "maxlogins"))
                                        continue;
                                if (lr >= 0 && lr <= login_rank) {
                                        login_rank = lr;
                                        res.login_limit = l->ivalue;
                                        res.login_line = l;
                                }
                                continue;
                        }
                        if (l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK)
                                continue;
                        int rank = lc_line_match(t, id, u, l);
                        if (rank < 0)
                                continue;
                        /* process_limit(): type, value, then the % rule */
                        if (!l->type_mask) {
                                r = add_event(&res, &cap, l, LC_SOFT | LC_HARD, rank, LC_OUT_BAD_TYPE);
                        } else if (!l->value_ok) {
                                r = add_event(&res, &cap, l, l->type_mask, rank, LC_OUT_BAD_VALUE);
                        } else if (rank == LC_RANK_ALL || rank == LC_RANK_ALLGROUP) {
                                r = add_event(&res, &cap, l, l->type_mask, rank, LC_OUT_PERCENT);
                        } else {
                                r = 0;
                                if (l->type_mask & LC_SOFT) {
                                        if ((int)res.soft.rank < rank) {
                                                r = add_event(&res, &cap, l, LC_SOFT, rank, LC_OUT_WEAKER);
                                                if (r >= 0 && (l->type_mask & LC_HARD))
                                                        r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_QUIRK);
                                                if (r < 0)
                                                        goto fail;
                                                continue;
                                        }
                                        res.soft = (struct lc_slot){ .known = true, .value = l->bytes, .rank = rank, .src = l };
                                        r = add_event(&res, &cap, l, LC_SOFT, rank, LC_OUT_APPLIED);
                                }
                                if (r >= 0 && (l->type_mask & LC_HARD)) {
                                        if ((int)res.hard.rank < rank)
                                                r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_WEAKER);
                                        else {
                                                res.hard = (struct lc_slot){ .known = true, .value = l->bytes, .rank = rank, .src = l };
                                                r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_APPLIED);
                                        }
                                }
                        }
                        if (r < 0)
                                goto fail;
                }
        }
        res.kind = LC_RES_LIMITS;
        /* setup_limits(): a login limit of 0 refuses the session (not for uid 0) */
        if (res.login_limit == 0 && u->uid != 0)
                res.kind = LC_RES_LOGINS_DENIED;
        /* a soft value above the hard value is set to the hard value */
        if (res.soft.known && res.hard.known && res.soft.value > res.hard.value) {
                res.soft_clamped = true;
        }
done:
        *ret = res;
        return 0;
fail:
        free(res.events);
        return r;
}

void lc_result_clear(struct lc_result *r) {
        free(r->events);
        *r = (struct lc_result){};
}

/* ---- overriding ---- */

/* Does `l` match every user (uid range 0:, @0:, or the ranges that cover all ids)? */
bool lc_line_matches_everyone(const struct lc_line *l) {
        if (l->range == LC_RANGE_MIN && l->rmin == 0)
                return l->domain[0] != '%';
        if (l->range == LC_RANGE_MM && l->rmin == 0 && l->rmax == UINT32_MAX)
                return l->domain[0] != '%';
        return false;
}

bool lc_line_counts(const struct lc_line *l) {
        return l->range != LC_RANGE_ERR && l->nfields == 4 && l->item_kind == LC_ITEM_MEMLOCK &&
               l->type_mask && l->value_ok && l->domain[0] != '%';
}

enum lc_override lc_line_overrides(const struct lc_tree *t, struct ident *id, const struct lc_line *ours,
                                   const struct lc_line *other) {
        if (ours == other || !lc_line_counts(ours) || !lc_line_counts(other))
                return LC_OVR_NEVER;
        if (!(ours->type_mask & other->type_mask))
                return LC_OVR_NEVER;
        enum lc_rank ro = lc_line_rank(ours), rx = lc_line_rank(other);
        bool later = other > ours; /* lines are stored in read order */

        if (rx > ro || (rx == ro && !later))
                return LC_OVR_NEVER;
        /* same domain text: same users, same rank, and the later one wins */
        if (streq(ours->domain, other->domain))
                return LC_OVR_ALWAYS;
        if (lc_line_matches_everyone(other))
                return LC_OVR_ALWAYS;
        /* a user name entry inside our group */
        if (ours->domain[0] == '@' && ours->range == LC_RANGE_NONE && lc_line_rank(other) == LC_RANK_USER &&
            other->range == LC_RANGE_NONE) {
                const struct id_user *u;
                const struct id_group *g;
                if (ident_user(id, other->domain, &u) < 0 || ident_group(id, ours->domain + 1, &g) < 0)
                        return LC_OVR_NEVER;
                return ident_user_in_group(id, u, g) ? LC_OVR_SOME : LC_OVR_NEVER;
        }
        /* a user named by ours and also covered by the other's uid range or group */
        if (lc_line_rank(ours) == LC_RANK_USER && ours->range == LC_RANGE_NONE) {
                const struct id_user *u;
                if (ident_user(id, ours->domain, &u) < 0)
                        return LC_OVR_NEVER;
                return lc_line_match(t, id, u, other) >= 0 ? LC_OVR_ALWAYS : LC_OVR_NEVER;
        }
        /* otherwise the overlap depends on who is in which group or range */
        return LC_OVR_SOME;
}

/* ---- the session outcome ---- */

_printf_(2, 3) static void set_cause(struct lc_session *s, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(s->cause, sizeof s->cause, fmt, ap);
        va_end(ap);
}

static void session_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size) {
        if (l)
                lc_line_where(t, l, buf, size);
        else
                snprintf(buf, size, "the starting value");
}

int lc_session_outcome(const struct lc_tree *t, const struct lc_result *r, const struct lc_service *svc,
                       struct lc_session *ret) {
        struct lc_session s = {};
        char where[4096];

        if (!t || !r || !svc || !ret)
                return -EINVAL;
        const bool have = svc->rl[RLIMIT_MEMLOCK].known;
        const uint64_t ssoft = svc->rl[RLIMIT_MEMLOCK].soft, shard = svc->rl[RLIMIT_MEMLOCK].hard;

        s.memlock_known = have;
        s.memlock_soft = ssoft;
        s.memlock_hard = shard;
        switch (r->kind) {
        case LC_RES_USER_UNKNOWN:
                s.kind = LC_SESSION_FAILS;
                set_cause(&s, "no such user: pam_limits returns PAM_USER_UNKNOWN");
                break;
        case LC_RES_SERVICE_ERR:
                s.kind = LC_SESSION_FAILS;
                set_cause(&s, "%s cannot be read (%s): PAM_SERVICE_ERR", r->bad_file->display,
                         strerror(-r->bad_file->open_error));
                break;
        case LC_RES_LOGINS_DENIED:
                s.kind = LC_SESSION_REFUSED;
                set_cause(&s, "%s: %s %s 0: no login allowed (PAM_PERM_DENIED)",
                         lc_line_where(t, r->login_line, where, sizeof where), r->login_line->domain,
                         r->login_line->item);
                break;
        case LC_RES_NO_LIMITS:
                s.kind = LC_SESSION_NO_LIMITS;
                break;
        case LC_RES_LIMITS: {
                s.kind = LC_SESSION_LIMITS;
                s.requested_soft_known = r->soft.known;
                s.requested_soft = r->soft.value;
                s.requested_hard_known = r->hard.known;
                s.requested_hard = r->hard.value;
                if (!r->soft.known && !r->hard.known)
                        break;  /* nothing set: the service's values stay */
                bool sk = r->soft.known || have, hk = r->hard.known || have;
                uint64_t soft = r->soft.known ? r->soft.value : ssoft;
                uint64_t hard = r->hard.known ? r->hard.value : shard;
                if (sk && hk && soft > hard)
                        soft = hard;
                /* raising the hard limit needs CAP_SYS_RESOURCE */
                if (hk && have && hard > shard && !svc->cap_sys_resource) {
                        if (t->flavour != LC_FLAVOUR_DEBIAN) {
                                s.kind = LC_SESSION_REFUSED;
                                session_where(t, r->hard.src, where, sizeof where);
                                set_cause(&s,
                                         "%s: the hard memlock is above the service's own hard limit and the "
                                         "service lacks CAP_SYS_RESOURCE: setrlimit fails (PAM_PERM_DENIED)",
                                         where);
                        }
                        break;  /* Debian: the old value stays, silently */
                }
                s.memlock_known = sk && hk;
                s.memlock_soft = soft;
                s.memlock_hard = hard;
                break;
        }
        }
        *ret = s;
        return 0;
}
