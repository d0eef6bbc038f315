/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

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

/* What pam_rdmalimit would do for this user, on top of pam_limits' result. */
struct module_view {
        bool have_policy;       /* a usable policy exists */
        bool matched;           /* a rule gives a value */
        struct policy *p;
        struct policy_decision dec;
        enum { ORDER_AFTER, ORDER_BEFORE, ORDER_NO_MODULE, ORDER_UNKNOWN } order;
        char service[64];
        char refused[512];      /* the policy exists but the module would refuse it: why */
        bool final_known;
        uint64_t soft, hard;    /* the session's memlock with both modules */
        bool hw_cached;         /* the hardware came from the cache, as the module would read it */
        char hw_cache[256];     /* that cache file */
        char cache[256];        /* the cache the module reads, "" for none (cache=) */
        int cache_r;            /* hw_cache_load() of that cache: 0 used */
};

/* The state of the hardware cache for a login, in a word (JSON). */
static const char *cache_word(int r) {
        switch (r) {
        case 0:
                return "used";
        case -ENOENT:
                return "no-cache";
        case -ESTALE:
                return "stale";
        case -EBADMSG:
                return "malformed";
        case -E2BIG:
        case -EFBIG:
                return "too-large";
        default:
                return "refused";
        }
}

/* The value of a module argument KEY= ("conf=", "cache=") in a stack line's arguments, or NULL. */
static char *module_arg(const char *args, const char *key) {
        const char *a = strstr(args, key);
        size_t k = strlen(key);
        if (!a || (a != args && a[-1] != ' ' && a[-1] != '\t'))
                return NULL;
        return strndup(a + k, strcspn(a + k, " \t"));
}

static void module_view(const struct ctx *c, struct ident *id, const struct id_user *u, const struct lc_result *res,
                        struct module_view *m) {
        struct diag_list d = {};
        struct hw_summary *hw = NULL;
        char **groups = NULL;
        size_t ng = 0;
        struct pam_stack st = {};
        int r;

        *m = (struct module_view){ .order = ORDER_UNKNOWN };
        snprintf(m->service, sizeof m->service, "%s", c->service ? c->service : "sshd");
        long mod = -1;
        if (pam_stack_load(c->root, m->service, &st) == 0 && !st.error) {
                long lim = pam_stack_find(&st, "pam_limits");
                mod = pam_stack_find(&st, "pam_rdmalimit");
                m->order = mod < 0 ? ORDER_NO_MODULE : (lim >= 0 && lim > mod) ? ORDER_BEFORE : ORDER_AFTER;
        }
        /* the policy the module in that stack reads: its conf= argument, unless --conf is given */
        struct ctx cc = *c;
        _cleanup_free_ char *conf_arg = NULL;
        if (mod >= 0 && !(c->given & OPT_CONF)) {
                conf_arg = module_arg(st.v[mod].args, "conf=");
                if (conf_arg && *conf_arg)
                        cc.policy_path = conf_arg;
        }
        /* the hardware the module sees: the cache it reads (--cache, else its cache= argument,
         * "" for none, else the default), when valid, else a live probe */
        _cleanup_free_ char *cache_arg = NULL, *cache_rooted = NULL;
        const char *cache = HW_CACHE_PATH;
        if (c->given & OPT_CACHE)
                cache = c->cache;
        else if (mod >= 0) {
                cache_arg = module_arg(st.v[mod].args, "cache=");
                if (cache_arg)
                        cache = cache_arg;
        }
        if (cache && !*cache)
                cache = NULL;
        /* the tree's cache under --root (resolved inside it), unless --cache names one */
        const char *cache_root = c->root && !(c->given & OPT_CACHE) ? c->root : NULL;
        if (cache && cache_root)
                cache_rooted = fs_root_path(c->root, cache);    /* for display; NULL: the path as given */
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        r = check_policy_file(&cc, &d, &m->p, &text, &len);
        if (cache)
                snprintf(m->cache, sizeof m->cache, "%s", cache_rooted ? cache_rooted : cache);
        if (r < 0) {
                if (r != -ENOENT) {
                        size_t n = 0;
                        for (size_t i = 0; i < d.n && n + 2 < sizeof m->refused; i++)
                                n += (size_t)snprintf(m->refused + n, sizeof m->refused - n, "%s%s%s%s",
                                                      n ? "; " : "", d.v[i].path ? d.v[i].path : "",
                                                      d.v[i].path ? ": " : "", d.v[i].message);
                        if (!n)
                                snprintf(m->refused, sizeof m->refused, "%s", strerror(-r));
                }
                goto out;
        }
        m->have_policy = true;
        if (policy_user_groups(m->p, id, u, &groups, &ng) < 0)
                goto out;
        if (policy_needs_hw(m->p, u->name, (const char *const *)groups, ng)) {
                if (hw_cache_in_root_or_probe(cache_root, cache, &m->p->hw.sel, &hw, &m->cache_r) < 0)
                        goto out;
                m->hw_cached = m->cache_r == 0;
                if (m->hw_cached)
                        snprintf(m->hw_cache, sizeof m->hw_cache, "%s", cache_rooted ? cache_rooted : cache);
        }
        if (policy_evaluate(m->p, u->name, (const char *const *)groups, ng, hw, &m->dec) < 0)
                goto out;
        m->matched = m->dec.matched && !m->dec.untouched;
        if (!m->matched)
                goto out;
        bool pl_known = res->kind == LC_RES_LIMITS && res->soft.known && res->hard.known;
        uint64_t s0 = pl_known ? (res->soft_clamped ? res->hard.value : res->soft.value) : 0;
        uint64_t h0 = pl_known ? res->hard.value : 0;
        if (m->order == ORDER_BEFORE || m->order == ORDER_NO_MODULE) {
                /* pam_limits has the last word, or the module does not run */
                m->final_known = pl_known;
                m->soft = s0;
                m->hard = h0;
        } else if (m->dec.lower || pl_known) {
                /* the module runs after pam_limits and raises what it left */
                m->final_known = true;
                m->soft = m->dec.lower ? m->dec.soft : (m->dec.soft > s0 ? m->dec.soft : s0);
                m->hard = m->dec.lower ? m->dec.hard : (m->dec.hard > h0 ? m->dec.hard : h0);
                if (m->soft > m->hard)
                        m->soft = m->hard;
        }
out:
        pam_stack_clear(&st);
        ident_strv_free(groups);
        hw_summary_free(hw);
        diag_list_clear(&d);
}

static const char *order_text(const struct module_view *m) {
        switch (m->order) {
        case ORDER_AFTER:
                return "after-pam_limits";
        case ORDER_BEFORE:
                return "before-pam_limits";
        case ORDER_NO_MODULE:
                return "not-in-stack";
        default:
                return "unknown";
        }
}

static void module_json(struct json *j, const struct module_view *m) {
        const struct policy_rule *r = m->dec.rule;
        char rule[300];

        snprintf(rule, sizeof rule, "%s %s", r->user ? "user" : "group", r->user ? r->user : r->group);
        json_key(j, "policy");
        json_obj_begin(j);
        json_key(j, "file");
        json_str(j, m->p->path);
        json_key(j, "rule");
        json_str(j, rule);
        json_key(j, "line");
        json_u64(j, r->line);
        json_key(j, "soft");
        json_limit(j, m->dec.soft);
        json_key(j, "hard");
        json_limit(j, m->dec.hard);
        json_key(j, "lower");
        json_bool(j, m->dec.lower);
        json_key(j, "auto");
        if (m->dec.used_auto)
                print_auto_json(j, m->p, &m->dec.auto_info);
        else
                json_null(j);
        json_key(j, "hardware_cache");
        if (m->dec.used_auto && m->hw_cached)
                json_str(j, m->hw_cache);
        else
                json_null(j);
        json_key(j, "cache");
        if (m->cache[0] && m->dec.used_auto) {
                json_obj_begin(j);
                json_key(j, "path");
                json_str(j, m->cache);
                json_key(j, "state");
                json_str(j, cache_word(m->cache_r));
                json_obj_end(j);
        } else
                json_null(j);
        json_key(j, "service");
        json_str(j, m->service);
        json_key(j, "order");
        json_str(j, order_text(m));
        json_key(j, "session");
        json_obj_begin(j);
        json_key(j, "soft");
        if (m->final_known)
                json_limit(j, m->soft);
        else
                json_null(j);
        json_key(j, "hard");
        if (m->final_known)
                json_limit(j, m->hard);
        else
                json_null(j);
        json_obj_end(j);
        json_obj_end(j);
}

static void module_text(const struct module_view *m) {
        const struct policy_rule *r = m->dec.rule;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];

        printf("\npam_rdmalimit: %s:%u (%s %s) asks memlock soft %s, hard %s%s\n", m->p->path, r->line,
               r->user ? "user" : "group", r->user ? r->user : r->group, size_format(m->dec.soft, a),
               size_format(m->dec.hard, b), m->dec.lower ? " (may lower)" : "");
        if (m->dec.used_auto) {
                print_auto_text(m->p, &m->dec.auto_info, "  ");
                if (m->hw_cached)
                        printf("  (hardware from the cache %s, as the module reads it)\n", m->hw_cache);
                else if (m->cache[0])
                        printf("  (hardware probed from sysfs and netlink, as the module does: the cache %s: %s)\n",
                               m->cache, hw_cache_strerror(m->cache_r));
                else
                        printf("  (hardware probed from sysfs and netlink, as the module does with cache=)\n");
        }
        switch (m->order) {
        case ORDER_AFTER:
                printf("  In the %s session stack pam_rdmalimit runs after pam_limits: it wins where it asks more",
                       m->service);
                if (m->final_known)
                        printf(";\n  the session gets soft %s, hard %s.\n", size_format(m->soft, a), size_format(m->hard, b));
                else
                        printf(".\n");
                break;
        case ORDER_BEFORE:
                printf("  In the %s session stack pam_rdmalimit runs BEFORE pam_limits, which then sets its own\n"
                       "  values: pam_limits wins. Move pam_rdmalimit after pam_limits.\n", m->service);
                break;
        case ORDER_NO_MODULE:
                printf("  pam_rdmalimit is not in the %s session stack: this policy does not apply there.\n", m->service);
                break;
        default:
                printf("  The %s PAM stack could not be read (use --service NAME).\n", m->service);
                break;
        }
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

struct explain_state {
        struct lc_tree *t;
        struct ident *id;
        struct lc_baseline base;
        struct lc_result res;
        const struct id_user *u;
        struct module_view mv;
};

static void explain_state_clear(struct explain_state *s) {
        policy_free(s->mv.p);
        lc_result_clear(&s->res);
        lc_tree_free(s->t);
        ident_free(s->id);
        *s = (struct explain_state){};
}

/* Resolve pam_limits and pam_rdmalimit for a user.  Returns 0, or an exit code (logged). */
static int explain_load(const struct ctx *c, const char *user, struct explain_state *s) {
        int r;

        *s = (struct explain_state){};
        if (ctx_ident(c, &s->id) < 0 || ctx_load_tree(c, &s->t) < 0)
                return EXIT_FINDINGS;
        r = lc_baseline_load(s->t, c->proc1, &s->base);
        if (r >= 0)
                r = lc_resolve(s->t, s->id, user, &s->base, &s->res);
        if (r < 0) {
                log_error("cannot resolve the limits of '%s': %s", user, strerror(-r));
                return EXIT_FINDINGS;
        }
        if (s->res.kind == LC_RES_USER_UNKNOWN) {
                log_error("user '%s' does not exist%s (pam_limits would fail the session)", user,
                          c->root ? " in the root's etc/passwd" : "");
                return EXIT_FINDINGS;
        }
        if (ident_user(s->id, user, &s->u) < 0)
                return EXIT_FINDINGS;
        module_view(c, s->id, s->u, &s->res, &s->mv);
        return 0;
}

int predict_session(const struct ctx *c, const char *user, struct prediction *ret) {
        struct explain_state s;
        struct prediction p = {};
        int r = explain_load(c, user, &s);
        if (r) {
                explain_state_clear(&s);
                return r;
        }
        p.kind = s.res.kind;
        p.pl_sets = s.res.kind == LC_RES_LIMITS && s.res.soft.known && s.res.hard.known;
        if (p.pl_sets)
                p.pl = (struct rl_pair){ s.res.soft.value, s.res.hard.value };
        p.mod_sets = s.mv.matched && s.mv.order != ORDER_NO_MODULE;
        p.mod_before = s.mv.order == ORDER_BEFORE;
        if (p.mod_sets)
                p.mod = (struct rl_pair){ s.mv.dec.soft, s.mv.dec.hard };
        p.mod_lower = s.mv.dec.lower;
        if (s.mv.matched) {
                p.nominal_known = s.mv.final_known;
                p.nominal = (struct rl_pair){ s.mv.soft, s.mv.hard };
        } else if (p.pl_sets) {
                p.nominal_known = true;
                p.nominal = p.pl;
                if (p.nominal.soft > p.nominal.hard)
                        p.nominal.soft = p.nominal.hard;
        }
        if (s.res.soft.src)
                lc_line_where(s.t, s.res.soft.src, p.pl_source, sizeof p.pl_source);
        else
                snprintf(p.pl_source, sizeof p.pl_source, "%s", s.base.source);
        explain_state_clear(&s);
        *ret = p;
        return 0;
}

int cmd_explain(struct ctx *c) {
        const char *user = c->argv[0];
        struct explain_state s;
        char ssrc[4096], hsrc[4096], where[4096], why[4096];
        int ret = EXIT_FINDINGS;

        ret = explain_load(c, user, &s);
        if (ret)
                goto out;
        ret = EXIT_FINDINGS;
        struct lc_tree *t = s.t;
        struct lc_result res = s.res;
        struct lc_baseline base = s.base;
        const struct id_user *u = s.u;
        struct module_view mv = s.mv;

        bool known = res.kind == LC_RES_LIMITS;
        uint64_t soft = res.soft.value, hard = res.hard.value;
        if (known && res.soft_clamped)
                soft = hard;
        slot_source(t, &res.soft, &base, ssrc, sizeof ssrc);
        slot_source(t, &res.hard, &base, hsrc, sizeof hsrc);

        if (c->json) {
                struct json j;
                json_init(&j, stdout);
                json_obj_begin(&j);
                json_key(&j, "user");
                json_str(&j, user);
                json_key(&j, "uid");
                json_u64(&j, u ? u->uid : 0);
                json_key(&j, "flavour");
                json_str(&j, lc_flavour_to_string(t->flavour));
                json_key(&j, "session");
                json_str(&j, res.kind == LC_RES_LIMITS ? "limits" : res.kind == LC_RES_NO_LIMITS ? "no-limits" : "fails");
                json_key(&j, "memlock");
                json_obj_begin(&j);
                json_key(&j, "soft");
                if (known && res.soft.known)
                        json_limit(&j, soft);
                else
                        json_null(&j);
                json_key(&j, "hard");
                if (known && res.hard.known)
                        json_limit(&j, hard);
                else
                        json_null(&j);
                json_key(&j, "soft_source");
                json_str(&j, known ? ssrc : "inherited");
                json_key(&j, "hard_source");
                json_str(&j, known ? hsrc : "inherited");
                if (res.soft_clamped) {
                        json_key(&j, "soft_clamped");
                        json_bool(&j, true);
                }
                json_obj_end(&j);
                if (res.stop) {
                        json_key(&j, "stop");
                        json_str(&j, lc_line_where(t, res.stop, where, sizeof where));
                }
                if (res.kind == LC_RES_LOGINS_DENIED) {
                        json_key(&j, "denied_by");
                        json_str(&j, lc_line_where(t, res.login_line, where, sizeof where));
                }
                if (res.bad_file) {
                        json_key(&j, "unreadable");
                        json_str(&j, res.bad_file->display);
                }
                json_key(&j, "overridden");
                json_arr_begin(&j);
                for (size_t i = 0; i < res.n_events; i++) {
                        const struct lc_event *e = &res.events[i];
                        const struct lc_slot *fin = e->slot == LC_HARD ? &res.hard : &res.soft;
                        if (e->outcome == LC_OUT_APPLIED && fin->src == e->line)
                                continue;
                        json_obj_begin(&j);
                        json_key(&j, "source");
                        json_str(&j, lc_line_where(t, e->line, where, sizeof where));
                        json_key(&j, "slot");
                        json_str(&j, e->slot == LC_SOFT ? "soft" : e->slot == LC_HARD ? "hard" : "both");
                        json_key(&j, "rank");
                        json_str(&j, lc_rank_name(e->rank));
                        json_key(&j, "reason");
                        json_str(&j, outcome_text(t, e, &res, why, sizeof why));
                        json_obj_end(&j);
                }
                json_arr_end(&j);
                if (mv.matched)
                        module_json(&j, &mv);
                json_obj_end(&j);
                json_finish(&j);
                ret = EXIT_OK;
                goto out;
        }

        printf("User %s (uid %u, gid %u); pam_limits modelled as %s\n", user, u ? (unsigned)u->uid : 0,
               u ? (unsigned)u->gid : 0, t->flavour == LC_FLAVOUR_DEBIAN ? "Debian's 1.5.2" : "upstream >= 1.6");
        switch (res.kind) {
        case LC_RES_NO_LIMITS:
                printf("\n%s (%s -) is a no-limits line for %s: pam_limits sets no limit at all and reads no\n"
                       "further line; the session keeps the memlock of the service that opens it.\n",
                       lc_line_where(t, res.stop, where, sizeof where), res.stop->domain, user);
                break;
        case LC_RES_SERVICE_ERR:
                printf("\n%s cannot be read (%s): pam_limits fails every session (PAM_SERVICE_ERR).\n",
                       res.bad_file->display, strerror(-res.bad_file->open_error));
                break;
        case LC_RES_LOGINS_DENIED:
                printf("\n%s (%s %s 0) allows %s no login at all: pam_limits refuses the session.\n",
                       lc_line_where(t, res.login_line, where, sizeof where), res.login_line->domain,
                       res.login_line->item, user);
                break;
        default:
                printf("\nmemlock of a session of %s:\n", user);
                print_value("soft", &res.soft, soft, ssrc);
                print_value("hard", &res.hard, hard, hsrc);
                if (res.soft_clamped) {
                        char a[SIZE_FMT_MAX];
                        printf("  (the soft value %s is above the hard limit: pam_limits lowers it to the hard value)\n",
                               size_format(res.soft.value, a));
                }
                if (res.soft.known && !res.hard.known)
                        printf("  (the soft value is lowered to the service's hard limit if that is smaller)\n");
                break;
        }
        bool header = false;
        for (size_t i = 0; i < res.n_events; i++) {
                const struct lc_event *e = &res.events[i];
                const struct lc_slot *fin = e->slot == LC_HARD ? &res.hard : &res.soft;
                if (e->outcome == LC_OUT_APPLIED && fin->src == e->line)
                        continue;
                if (!header) {
                        printf("\nOther entries that match %s:\n", user);
                        header = true;
                }
                char d[512], ty[128], v[512];
                printf("  %s  %s %s memlock %s [%s, %s]: %s\n", lc_line_where(t, e->line, where, sizeof where),
                       printable(e->line->domain, d, sizeof d), printable(e->line->type, ty, sizeof ty),
                       printable(e->line->value, v, sizeof v), lc_rank_name(e->rank),
                       e->slot == LC_SOFT ? "soft" : e->slot == LC_HARD ? "hard" : "soft+hard",
                       outcome_text(t, e, &res, why, sizeof why));
        }
        if (mv.refused[0])
                printf("\npam_rdmalimit refuses the policy (%s): the module leaves memlock unchanged.\n",
                       mv.refused);
        else if (mv.matched)
                module_text(&mv);
        else if (mv.have_policy && mv.dec.untouched)
                printf("\npam_rdmalimit: the matching rule's auto value found no RDMA/AF_XDP hardware and the policy\n"
                       "has no fallback: memlock is left as pam_limits sets it.\n");
        else if (mv.have_policy)
                printf("\npam_rdmalimit: no rule of %s matches %s: memlock is left as pam_limits sets it.\n", mv.p->path, user);
        if (res.root_user_debian)
                printf("\nNote: on Debian, pam_limits applies no '*', '@group' or '%%' line to root; only lines\n"
                       "naming root or a uid range count.\n");
        if (known && res.hard.known && t->flavour == LC_FLAVOUR_DEBIAN)
                printf("\nNote: the session gets these values only if the service may set them: raising a hard\n"
                       "limit needs CAP_SYS_RESOURCE, and Debian's pam_limits silently keeps the old limit\n"
                       "when setrlimit fails (see 'rdmalimits doctor').\n");
        ret = EXIT_OK;
out:
        explain_state_clear(&s);
        return ret;
}
