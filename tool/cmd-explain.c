/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "escape.h"
#include "fsutil.h"
#include "hw.h"
#include "hwcache.h"
#include "ident.h"
#include "pamstack.h"
#include "policy.h"
#include "rlimit.h"
#include "size.h"
#include "tool.h"

static const char *slot_source(const struct lc_tree *t, const struct lc_slot *s, const struct lc_baseline *b,
                               char *buf, size_t size) {
        if (s->src)
                return lc_line_where(t, s->src, buf, size);
        snprintf(buf, size, "%s", s->known ? b->source : "inherited");
        return buf;
}

/* pam_limits ran and a line asks the slot's value, but the session ends with another: its
 * setrlimit failed (EPERM: the service cannot raise its hard limit, and Debian's pam_limits
 * says nothing), and the value from before pam_limits stays (the service's, or an earlier
 * pam_rdmalimit's).  Not for a soft value the hard one lowers (said apart). */
static bool slot_kept(const struct tool_session *s, unsigned slot) {
        const struct lc_session *pl = &s->m.pl;
        const struct lc_result *res = &s->m.limits;
        const struct lc_slot *x = slot == LC_SOFT ? &res->soft : &res->hard;
        uint64_t got = slot == LC_SOFT ? pl->memlock_soft : pl->memlock_hard;

        if (s->m.kind != LC_SESSION_LIMITS || !pl->memlock_known || !x->known || !x->src || got == x->value)
                return false;
        /* lowered to the hard limit: asked above it (a soft asked below what the session got
         * was not lowered, even when that equals the hard limit: the whole call failed) */
        if (slot == LC_SOFT && (res->soft_clamped || (got == pl->memlock_hard && x->value > got)))
                return false;
        return true;
}

/* The source of a kept slot, in place of the line's */
static void kept_source(const struct tool_session *s, unsigned slot, char *buf, size_t size) {
        char a[SIZE_FMT_MAX];
        const struct lc_slot *x = slot == LC_SOFT ? &s->m.limits.soft : &s->m.limits.hard;
        _cleanup_free_ char *t = NULL;

        if (!slot_kept(s, slot))
                return;
        if (asprintf(&t, "kept: %s asks %s, but pam_limits' setrlimit fails (the service cannot raise its hard "
                     "limit without CAP_SYS_RESOURCE) and the value from before pam_limits stays", buf,
                     size_format(x->value, a)) < 0)
                return;
        snprintf(buf, size, "%s", t);
}

static const char *outcome_text(const struct lc_tree *t, const struct lc_event *e, const struct lc_result *res,
                                char *buf, size_t size) {
        char w[4096];
        const struct lc_slot *fin = e->slot == LC_HARD ? &res->hard : &res->soft;
        switch (e->outcome) {
        case LC_OUT_APPLIED:
                if (fin->src == e->line)
                        return "applied";
                snprintf(buf, size, "overridden by %s (%s %s rank)",
                         fin->src ? lc_line_where(t, fin->src, w, sizeof w) : "?",
                         fin->rank < e->rank ? "the stronger" : "a later line of the same", lc_rank_name(fin->rank));
                return buf;
        case LC_OUT_WEAKER:
                snprintf(buf, size, "ignored: %s already holds the slot with the stronger %s rank",
                         e->held ? lc_line_where(t, e->held, w, sizeof w) : "the baseline", lc_rank_name(e->held_rank));
                return buf;
        case LC_OUT_QUIRK:
                return "ignored: pam_limits skips the hard half of a '-' line whose soft half lost to a stronger rank";
        case LC_OUT_PERCENT:
                return "ignored: % domains count only for maxlogins";
        case LC_OUT_BAD_TYPE:
                return "ignored: unknown type";
        case LC_OUT_BAD_VALUE:
                return "ignored: the value is not a number";
        }
        return "?";
}

/* The state of the hardware cache for a login, in a word (JSON). */
static const char *cache_word(int r) {
        static const struct code_word words[] = {
                { 0, "used" }, { -ENOENT, "no-cache" }, { -ESTALE, "stale" },
                { -EBADMSG, "malformed" }, { -E2BIG, "too-large" }, { -EFBIG, "too-large" },
        };
        return CODE_WORD(r, words, "refused");
}

static const char *session_word(enum lc_session_kind k) {
        static const struct code_word words[] = { { LC_SESSION_LIMITS, "limits" },
                                                  { LC_SESSION_NO_LIMITS, "no-limits" },
                                                  { LC_SESSION_FAILS, "fails" } };
        return CODE_WORD((int)k, words, "refused");
}

static const char *pam_word(enum session_pam k) {
        static const struct code_word words[] = { { SESSION_PAM_RUNS, "runs" }, { SESSION_PAM_NONE, "none" },
                                                  { SESSION_PAM_NO_DAEMON, "no-daemon" } };
        return CODE_WORD((int)k, words, "assumed");
}

static void module_json_cache(struct json *j, const struct tool_session *s) {
        bool used_auto = s->m.dec.used_auto;

        json_kstr(j, "hardware_cache", used_auto && s->hw_cached ? s->cache : NULL);
        json_key(j, "cache");
        if (s->cache[0] && used_auto) {
                json_obj_begin(j);
                json_kstr(j, "path", s->cache);
                json_kstr(j, "state", cache_word(s->cache_r));
                json_obj_end(j);
        } else
                json_null(j);
}

static void module_json(struct json *j, const struct tool_session *s) {
        const struct session_model *m = &s->m;
        const struct policy_rule *r = m->dec.rule;
        char rule[300];

        snprintf(rule, sizeof rule, "%s %s", r->user ? "user" : "group", r->user ? r->user : r->group);
        json_kobj_begin(j, "policy");
        json_kstr(j, "file", s->p->path);
        json_kstr(j, "rule", rule);
        json_ku64(j, "line", r->line);
        json_klimit(j, "soft", m->dec.soft);
        json_klimit(j, "hard", m->dec.hard);
        json_kbool(j, "lower", m->dec.lower);
        json_key(j, "auto");
        if (m->dec.used_auto) {
                print_auto_json(j, s->p, &m->dec.auto_info);
                /* a --root tree holds no devices: auto is this host's hardware */
                json_kstr(j, "hardware_of", "host");
        } else
                json_null(j);
        module_json_cache(j, s);
        json_kstr(j, "service", s->service);
        json_kstr(j, "order", session_order_name(m->order));
        json_kbool(j, "modules_assumed_present", m->stack.modules_unchecked);
        json_kbool(j, "eperm", m->module_eperm);
        json_key(j, "chroot");
        if (m->jail) {
                char w[4096];
                json_obj_begin(j);
                json_kstr(j, "line", lc_line_where(m->jail_tree, m->jail, w, sizeof w));
                json_kstr(j, "directory", m->jail->value);
                json_kbool(j, "policy_inside", m->jail_policy);
                json_kbool(j, "assumed", m->jail_policy);
                json_obj_end(j);
        } else
                json_null(j);
        json_kobj_begin(j, "session");
        json_klimit_opt(j, "soft", m->final_known && m->order != SESSION_NO_STACK, m->final.soft);
        json_klimit_opt(j, "hard", m->final_known && m->order != SESSION_NO_STACK, m->final.hard);
        json_obj_end(j);
        json_obj_end(j);
}

static void module_text_order(const struct tool_session *s) {
        const struct session_model *m = &s->m;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], svc[ESCAPE_NAME_MAX];
        const char *service = str_escape(s->service, svc, sizeof svc);

        switch (m->order) {
        case SESSION_MODULE_LAST:
                if (m->jail && !m->module_ran)
                        printf("  In the %s session stack pam_rdmalimit runs after the last pam_limits, inside the "
                               "directory pam_limits chroots the session into (below)", service);
                else
                        printf("  In the %s session stack pam_rdmalimit runs after the last pam_limits: it wins where "
                               "it asks more", service);
                if (m->final_known)
                        printf(";\n  the session gets soft %s, hard %s%s.\n", size_format(m->final.soft, a),
                               size_format(m->final.hard, b),
                               m->module_eperm ? " (the closest value: the service cannot raise its hard limit)" : "");
                else
                        printf(".\n");
                break;
        case SESSION_LIMITS_LAST: {
                /* enable moves only a line it added (its mark); another is moved by hand */
                const struct pam_entry *last = session_last_module(m);
                char fix[512];
                if (last && last->marked)
                        snprintf(fix, sizeof fix, "rdmalimits enable --service %s puts the module after it", service);
                else
                        snprintf(fix, sizeof fix, "move the pam_rdmalimit line after it by hand: rdmalimits enable "
                                 "moves only a line it added");
                if (slot_kept(s, LC_SOFT) || slot_kept(s, LC_HARD))
                        printf("  In the %s session stack a pam_limits line runs AFTER pam_rdmalimit, but its setrlimit\n"
                               "  fails (the service cannot raise its hard limit): the module's values stay here; where\n"
                               "  the service can, pam_limits wins (%s).\n", service, fix);
                else
                        printf("  In the %s session stack a pam_limits line runs AFTER pam_rdmalimit and sets its own\n"
                               "  values: pam_limits wins (%s).\n", service, fix);
                break;
        }
        case SESSION_NO_MODULE: {
                size_t mod, by;
                if (session_module_passed_over(&m->stack, &m->run, &mod, &by)) {
                        char f1[ESCAPE_NAME_MAX], f2[ESCAPE_NAME_MAX], ctl[ESCAPE_NAME_MAX], bm[ESCAPE_NAME_MAX];
                        char who[ESCAPE_NAME_MAX];
                        const struct pam_entry *e = &m->stack.v[mod], *skip = &m->stack.v[by];
                        printf("  pam_rdmalimit is in the %s session stack (%s:%u), but %s:%u '%s %s' %s it for %s:\n"
                               "  this policy does not apply to this user's sessions there.\n", service,
                               str_escape(e->file, f1, sizeof f1), e->line, str_escape(skip->file, f2, sizeof f2),
                               skip->line, str_escape(skip->control, ctl, sizeof ctl),
                               str_escape(skip->module, bm, sizeof bm),
                               m->run.ended_at == (long)by ? "ends the stack before" : "jumps over",
                               str_escape(s->u->name, who, sizeof who));
                } else
                        printf("  pam_rdmalimit is not in the %s session stack: this policy does not apply there.\n",
                               service);
                break;
        }
        case SESSION_NO_PAM:
                printf("  %s opens no PAM session: this policy does not apply to its logins.\n", service);
                break;
        default:
                printf("  The %s PAM stack could not be read (use --service NAME).\n", service);
                break;
        }
        /* lines that run but whose module libpam cannot load (the engine's walk took them so) */
        for (size_t k = 0; m->run.unloadable >= 0 && k < m->run.n_run; k++) {
                const struct pam_entry *e = &m->stack.v[m->run.run[k]];
                char f[ESCAPE_NAME_MAX], mod[ESCAPE_NAME_MAX], ctl[ESCAPE_NAME_MAX];
                if (e->unloadable)
                        printf("  %s:%u: %s %s: the line returns PAM_MODULE_UNKNOWN, which '%s' decides, and sets "
                               "nothing.\n", str_escape(e->file, f, sizeof f), e->line,
                               e->no_function ? "no session function (pam_sm_open_session) in" : "libpam cannot load",
                               str_escape(e->module, mod, sizeof mod), str_escape(e->control, ctl, sizeof ctl));
        }
        if (m->stack.modules_unchecked)
                printf("  Assumed: the tree has no PAM module directory (no pam_unix.so or pam_permit.so): every "
                       "module file is taken as installed.\n");
        if (m->jail) {
                const struct pam_entry *e = &m->stack.v[m->jail_module];
                char w[4096], d[ESCAPE_NAME_MAX], f[ESCAPE_NAME_MAX];
                printf("  %s%s: pam_limits chroots the session into %s before pam_rdmalimit (%s:%u) runs: the module "
                       "reads its policy, the users and sysfs inside that directory, %s.\n",
                       m->jail_policy ? "Assumed: " : "", lc_line_where(m->jail_tree, m->jail, w, sizeof w),
                       str_escape(m->jail->value, d, sizeof d), str_escape(e->file, f, sizeof f), e->line,
                       m->jail_policy ? "which the model does not follow it into: it is taken as setting nothing"
                                      : "where there is no policy: it sets nothing");
        }
}

static void module_text(const struct tool_session *s) {
        const struct session_model *m = &s->m;
        const struct policy_rule *r = m->dec.rule;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], path[4096], name[ESCAPE_NAME_MAX], cache[4096];

        str_escape(s->cache, cache, sizeof cache);
        printf("\npam_rdmalimit: %s:%u (%s %s) asks memlock soft %s, hard %s%s\n", str_escape(s->p->path, path, sizeof path),
               r->line, r->user ? "user" : "group", str_escape(r->user ? r->user : r->group, name, sizeof name),
               size_format(m->dec.soft, a),
               size_format(m->dec.hard, b), m->dec.lower ? " (may lower)" : "");
        if (m->dec.used_auto) {
                if (s->t->root)
                        printf("  (auto counts this host's hardware and RAM, not the tree's)\n");
                print_auto_text(s->p, &m->dec.auto_info, "  ");
                if (s->hw_cached)
                        printf("  (hardware from the cache %s, as the module reads it)\n", cache);
                else if (s->cache[0])
                        printf("  (hardware probed from sysfs and netlink, as the module does: the cache %s: %s)\n",
                               cache, hw_cache_strerror(s->cache_r));
                else
                        printf("  (hardware probed from sysfs and netlink, as the module does with cache=)\n");
        }
        module_text_order(s);
}

static void print_value(const char *label, const struct lc_slot *s, uint64_t shown, const char *src) {
        char buf[SIZE_FMT_MAX];
        if (!s->known) {
                printf("  %-5s %-28s %s\n", label, "(the service's own)", "inherited");
                return;
        }
        char val[80];
        if (shown == UINT64_MAX)
                snprintf(val, sizeof val, "unlimited");
        else
                snprintf(val, sizeof val, "%s (%llu bytes)", size_format(shown, buf), (unsigned long long)shown);
        printf("  %-5s %-28s from %s\n", label, val, src);
}

/* A hard value below the inherited soft one lowers the soft limit with it (pam_limits clamps
 * it before setrlimit): the session's soft is then that value, not the service's own. */
#define SOFT_LOWERED_SOURCE "the hard limit (the inherited soft is above it)"
static bool soft_lowered(const struct tool_session *s) {
        const struct lc_session *pl = &s->m.pl;
        const struct lc_result *res = &s->m.limits;
        return s->m.kind == LC_SESSION_LIMITS && pl->memlock_known && !res->soft.known && res->hard.known &&
               s->svc.rl[RLIMIT_MEMLOCK].known && pl->memlock_soft < s->svc.rl[RLIMIT_MEMLOCK].soft;
}

static void json_memlock(struct json *j, const struct tool_session *s, const char *ssrc, const char *hsrc) {
        const struct lc_session *pl = &s->m.pl;
        const struct lc_result *res = &s->m.limits;
        bool limits = s->m.kind == LC_SESSION_LIMITS && pl->memlock_known;
        bool soft_by_hard = soft_lowered(s);

        json_kobj_begin(j, "memlock");
        json_klimit_opt(j, "soft", limits && (res->soft.known || soft_by_hard), pl->memlock_soft);
        json_klimit_opt(j, "hard", limits && res->hard.known, pl->memlock_hard);
        json_kstr(j, "soft_source", !limits ? "inherited" : soft_by_hard ? SOFT_LOWERED_SOURCE : ssrc);
        json_kstr(j, "hard_source", limits ? hsrc : "inherited");
        if (res->soft_clamped)
                json_kbool(j, "soft_clamped", true);
        json_kobj_begin(j, "requested");
        json_klimit_opt(j, "soft", pl->requested_soft_known, pl->requested_soft);
        json_klimit_opt(j, "hard", pl->requested_hard_known, pl->requested_hard);
        json_obj_end(j);
        json_obj_end(j);
}

static void json_service(struct json *j, const struct tool_session *s) {
        json_kobj_begin(j, "service");
        json_kstr(j, "name", s->service);
        json_kstr(j, "process", s->svc.source);
        json_kbool(j, "assumed", !s->svc.known);
        json_klimit_opt(j, "memlock_soft", s->svc.rl[RLIMIT_MEMLOCK].known, s->svc.rl[RLIMIT_MEMLOCK].soft);
        json_klimit_opt(j, "memlock_hard", s->svc.rl[RLIMIT_MEMLOCK].known, s->svc.rl[RLIMIT_MEMLOCK].hard);
        json_kbool(j, "cap_sys_resource", s->svc.cap_sys_resource);
        json_obj_end(j);
}

/* Is e an entry that matches but does not give the session its value (explain lists those)? */
static bool overridden(const struct lc_result *res, const struct lc_event *e) {
        const struct lc_slot *fin = e->slot == LC_HARD ? &res->hard : &res->soft;
        return !(e->outcome == LC_OUT_APPLIED && fin->src == e->line);
}

static void json_overridden(struct json *j, const struct tool_session *s) {
        const struct lc_result *res = &s->m.limits;
        char where[4096], why[4096];

        json_karr_begin(j, "overridden");
        for (size_t i = 0; i < res->n_events; i++) {
                const struct lc_event *e = &res->events[i];
                if (!overridden(res, e))
                        continue;
                json_obj_begin(j);
                json_kstr(j, "source", lc_line_where(s->t, e->line, where, sizeof where));
                json_kstr(j, "slot", e->slot == LC_SOFT ? "soft" : e->slot == LC_HARD ? "hard" : "both");
                json_kstr(j, "rank", lc_rank_name(e->rank));
                json_kstr(j, "reason", outcome_text(s->t, e, res, why, sizeof why));
                json_obj_end(j);
        }
        json_arr_end(j);
}

/* The line whose result the walk assumed (success, as for every module it does not know) where
 * that decides the path (a jump, sufficient, done): "FILE:LINE 'CONTROL MODULE'" into buf, or
 * NULL when no such line ran. */
static const char *assumed_line(const struct tool_session *s, char *buf, size_t size) {
        const struct session_model *m = &s->m;
        if (m->run.assumed_at < 0 || (size_t)m->run.assumed_at >= m->stack.n)
                return NULL;
        const struct pam_entry *e = &m->stack.v[m->run.assumed_at];
        snprintf(buf, size, "%s:%u '%s %s'", e->file, e->line, e->control, e->module);
        return buf;
}

static void text_assumed(const struct tool_session *s) {
        char line[4096], w[4096];
        if (!assumed_line(s, line, sizeof line))
                return;
        printf("\nAssumed: %s succeeds: rdmalimits does not evaluate that module.\n"
               "Where it does not, the stack takes another path; rdmalimits verify opens a real session.\n",
               str_escape(line, w, sizeof w));
}

static void explain_json(const struct tool_session *s, const char *user, const char *ssrc, const char *hsrc) {
        const struct lc_result *res = &s->m.limits;
        char where[4096];
        struct json j;

        json_doc_begin(&j);
        json_kstr(&j, "user", user);
        json_ku64(&j, "uid", s->u->uid);
        tool_json_flavour(&j, s->t);
        json_kstr(&j, "session", session_word(s->m.kind));
        if (s->m.cause[0])
                json_kstr(&j, "cause", s->m.cause);
        /* does the service run the stack at all (sshd: UsePAM) */
        json_kobj_begin(&j, "pam_session");
        json_kstr(&j, "state", pam_word(s->m.pam.kind));
        json_kstr(&j, "where", s->m.pam.where[0] ? s->m.pam.where : NULL);
        json_kstr(&j, "why", s->m.pam.why[0] ? s->m.pam.why : NULL);
        char line[4096];
        json_kstr(&j, "assumed_success", assumed_line(s, line, sizeof line));
        json_obj_end(&j);
        json_service(&j, s);
        json_memlock(&j, s, ssrc, hsrc);
        if (res->stop)
                json_kstr(&j, "stop", lc_line_where(s->t, res->stop, where, sizeof where));
        if (res->kind == LC_RES_LOGINS_DENIED)
                json_kstr(&j, "denied_by", lc_line_where(s->t, res->login_line, where, sizeof where));
        if (res->bad_file)
                json_kstr(&j, "unreadable", res->bad_file->display);
        json_overridden(&j, s);
        if (s->m.module_matched)
                module_json(&j, s);
        json_doc_end(&j);
}

static void text_result(const struct tool_session *s, const char *user, const char *ssrc, const char *hsrc) {
        const struct lc_result *res = &s->m.limits;
        const struct lc_session *pl = &s->m.pl;
        const struct lc_tree *t = s->t;
        char where[4096], w[4096], d[512], it[128];

        switch (res->kind) {
        case LC_RES_NO_LIMITS:
                printf("\n%s (%s -) is a no-limits line for %s: pam_limits sets no limit at all and reads no\n"
                       "further line; the session keeps the memlock of the service that opens it.\n",
                       str_escape(lc_line_where(t, res->stop, where, sizeof where), w, sizeof w),
                       str_escape(res->stop->domain, d, sizeof d), user);
                return;
        case LC_RES_SERVICE_ERR:
                /* the session engine's words (lc_session_from(): a FIFO hangs the login, a file
                 * that cannot be opened fails it) */
                printf("\n%s.\n", str_escape(pl->cause, w, sizeof w));
                return;
        case LC_RES_LOGINS_DENIED:
                printf("\n%s (%s %s 0) allows %s no login at all: pam_limits refuses the session.\n",
                       str_escape(lc_line_where(t, res->login_line, where, sizeof where), w, sizeof w),
                       str_escape(res->login_line->domain, d, sizeof d), str_escape(res->login_line->item, it, sizeof it),
                       user);
                return;
        default:
                break;
        }
        if (s->m.kind == LC_SESSION_NO_LIMITS) {
                /* the entries that match set nothing: the session keeps the service's memlock
                 * (JSON: memlock null, "inherited"), whatever limits.conf says */
                const struct lc_slot none = {};
                printf("\nmemlock of a session of %s:\n", user);
                print_value("soft", &none, 0, NULL);
                print_value("hard", &none, 0, NULL);
                printf("  (%s: what limits.conf says for %s sets nothing)\n", str_escape(s->m.cause, w, sizeof w),
                       user);
                return;
        }
        printf("\nmemlock of a session of %s:\n", user);
        struct lc_slot lowered = { .known = true, .value = pl->memlock_soft };
        bool by_hard = soft_lowered(s);
        print_value("soft", by_hard ? &lowered : &res->soft, pl->memlock_known ? pl->memlock_soft : res->soft.value,
                    by_hard ? SOFT_LOWERED_SOURCE : ssrc);
        print_value("hard", &res->hard, pl->memlock_known ? pl->memlock_hard : res->hard.value, hsrc);
        if (res->soft_clamped) {
                char a[SIZE_FMT_MAX];
                printf("  (the soft value %s is above the hard limit: pam_limits lowers it to the hard value)\n",
                       size_format(res->soft.value, a));
        }
        if (pl->requested_hard_known && pl->memlock_known && pl->requested_hard != pl->memlock_hard &&
            s->m.kind == LC_SESSION_LIMITS) {
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                printf("  (the entry asks hard %s, but the service cannot raise its hard limit above %s without\n"
                       "  CAP_SYS_RESOURCE: this pam_limits keeps the old limit and says nothing)\n",
                       size_format(pl->requested_hard, a), size_format(pl->memlock_hard, b));
        }
        if (s->m.kind == LC_SESSION_REFUSED || s->m.kind == LC_SESSION_FAILS)
                printf("\nThe session is %s: %s\n", s->m.kind == LC_SESSION_REFUSED ? "REFUSED (nobody logs in)" : "failed",
                       str_escape(s->m.cause, w, sizeof w));
}

static void text_overridden(const struct tool_session *s, const char *user) {
        const struct lc_result *res = &s->m.limits;
        char where[4096], why[4096], w[4096], y[4096];
        bool header = false;

        for (size_t i = 0; i < res->n_events; i++) {
                const struct lc_event *e = &res->events[i];
                if (!overridden(res, e))
                        continue;
                if (!header) {
                        printf("\nOther entries that match %s:\n", user);
                        header = true;
                }
                char d[512], ty[128], v[512];
                printf("  %s  %s %s memlock %s [%s, %s]: %s\n",
                       str_escape(lc_line_where(s->t, e->line, where, sizeof where), w, sizeof w),
                       str_escape(e->line->domain, d, sizeof d), str_escape(e->line->type, ty, sizeof ty),
                       str_escape(e->line->value ? e->line->value : "", v, sizeof v), lc_rank_name(e->rank),
                       e->slot == LC_SOFT ? "soft" : e->slot == LC_HARD ? "hard" : "soft+hard",
                       str_escape(outcome_text(s->t, e, res, why, sizeof why), y, sizeof y));
        }
}

static void text_module(const struct tool_session *s, const char *user) {
        char e[4096];

        if (s->refused[0])
                printf("\npam_rdmalimit refuses the policy (%s): the module leaves memlock unchanged.\n",
                       str_escape(s->refused, e, sizeof e));
        else if (s->m.module_matched)
                module_text(s);
        else if (s->have_policy && s->m.dec.untouched)
                printf("\npam_rdmalimit: the matching rule's auto value found no RDMA/AF_XDP hardware and the policy\n"
                       "has no fallback: memlock is left as pam_limits sets it.\n");
        else if (s->have_policy)
                printf("\npam_rdmalimit: no rule of %s matches %s: memlock is left as pam_limits sets it.\n",
                       str_escape(s->p->path, e, sizeof e), user);
}

/* The service opens no PAM session (sshd: UsePAM no), or refuses its configuration: what a
 * login gets, and what would make the stack run. */
static void text_no_pam(const struct tool_session *s, const char *user) {
        const struct session_model *m = &s->m;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], w[4096], svc[ESCAPE_NAME_MAX];

        printf("\n%s.\n", str_escape(m->pam.why, w, sizeof w));
        str_escape(s->service, svc, sizeof svc);
        if (m->pam.kind != SESSION_PAM_NONE)
                return;
        if (m->final_known)
                printf("memlock of an ssh login of %s: soft %s, hard %s (%s's own, from %s)\n", user,
                       size_format(m->final.soft, a), size_format(m->final.hard, b), svc,
                       str_escape(s->svc.source, w, sizeof w));
        else
                printf("memlock of an ssh login of %s: %s's own (unknown)\n", user, svc);
        char fix[1024];
        session_pam_fix(m->pam.where, fix, sizeof fix);
        printf("fix: %s\n", str_escape(fix, w, sizeof w));
}

/* The text of explain: every user byte (names, paths, what files hold) through the one
 * escaper; user, ssrc and hsrc escaped here, once, for every line below. */
static void explain_text(const struct tool_session *s, const char *raw_user, const char *raw_ssrc, const char *raw_hsrc) {
        const struct lc_tree *t = s->t;
        char fl[LC_FLAVOUR_NAME_MAX], user[ESCAPE_NAME_MAX], ssrc[4096], hsrc[4096], src[4096];

        str_escape(raw_user, user, sizeof user);
        str_escape(raw_ssrc, ssrc, sizeof ssrc);
        str_escape(raw_hsrc, hsrc, sizeof hsrc);
        printf("User %s (uid %u, gid %u); pam_limits modelled as %s (from %s)\n", user, (unsigned)s->u->uid,
               (unsigned)s->u->gid, lc_flavour_to_string(t->release, fl), lc_tree_flavour_from(t));
        if (lc_tree_flavour_assumption(t))
                log_warning(NULL, "%s, %s; --flavour names the release", lc_tree_flavour_assumption(t), fl);
        printf("The session is opened by %s: memlock %s%s CAP_SYS_RESOURCE.\n", str_escape(s->svc.source, src, sizeof src),
               s->svc.rl[RLIMIT_MEMLOCK].known ? "known, " : "unknown, ", s->svc.cap_sys_resource ? "with" : "without");
        if (s->m.pam.kind == SESSION_PAM_ASSUMED)
                printf("Assumed: %s.\n", str_escape(s->m.pam.why + strlen("assumed: "), src, sizeof src));
        if (s->m.order == SESSION_NO_PAM) {
                text_no_pam(s, user);
                text_module(s, user);
                return;
        }
        text_result(s, user, ssrc, hsrc);
        if (s->m.kind != LC_SESSION_NO_LIMITS)
                text_overridden(s, user);
        text_module(s, user);
        text_assumed(s);
        if (s->m.limits.root_user_debian)
                printf("\nNote: on Debian, pam_limits applies no '*', '@group' or '%%' line to root; only lines\n"
                       "naming root or a uid range count.\n");
}

int cmd_explain(struct ctx *c) {
        const char *user = c->argv[0];
        _cleanup_(tool_session_clear) struct tool_session s = {};
        char ssrc[4096], hsrc[4096];
        int r;

        if (c->slurm)
                return cmd_explain_slurm(c);
        if (c->given & (OPT_SUBMIT_MEMLOCK | OPT_SLURM_CONF)) {
                log_error("--%s applies to a Slurm job task: add --slurm",
                          c->given & OPT_SUBMIT_MEMLOCK ? "submit-memlock" : "slurm-conf");
                return CMD_USAGE;
        }
        /* --pid PID: the session is opened by that process */
        if (c->pid && c->root) {
                log_error("--pid names a process of this system; --root does not apply to it");
                return CMD_USAGE;
        }
        r = tool_session_load(c, user, c->pid, false, &s);
        if (r)
                return r;
        slot_source(s.t, &s.m.limits.soft, &s.base, ssrc, sizeof ssrc);
        slot_source(s.t, &s.m.limits.hard, &s.base, hsrc, sizeof hsrc);
        kept_source(&s, LC_SOFT, ssrc, sizeof ssrc);
        kept_source(&s, LC_HARD, hsrc, sizeof hsrc);
        if (c->json)
                explain_json(&s, user, ssrc, hsrc);
        else
                explain_text(&s, user, ssrc, hsrc);
        return 0;
}
