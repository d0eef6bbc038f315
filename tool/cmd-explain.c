/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ident.h"
#include "size.h"
#include "tool.h"

static const char *slot_source(const struct lc_tree *t, const struct lc_slot *s, const struct lc_baseline *b,
                               char *buf, size_t size) {
        if (s->src)
                return lc_line_where(t, s->src, buf, size);
        if (!s->known)
                return "inherited";
        snprintf(buf, size, "%s", b->source);
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

int cmd_explain(struct ctx *c) {
        const char *user = c->argv[0];
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline base;
        struct lc_result res = {};
        const struct id_user *u = NULL;
        char ssrc[4096], hsrc[4096], where[4096], why[4096];
        int ret = EXIT_FINDINGS, r;

        if (ctx_ident(c, &id) < 0 || ctx_load_tree(c, &t) < 0)
                goto out;
        r = lc_baseline_load(t, c->proc1, &base);
        if (r >= 0)
                r = lc_resolve(t, id, user, &base, &res);
        if (r < 0) {
                log_error("cannot resolve the limits of '%s': %s", user, strerror(-r));
                goto out;
        }
        if (res.kind == LC_RES_USER_UNKNOWN) {
                log_error("user '%s' does not exist%s (pam_limits would fail the session)", user,
                          c->root ? " in the root's etc/passwd" : "");
                goto out;
        }
        (void)ident_user(id, user, &u);

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
        default:
                printf("\nmemlock of a session of %s:\n", user);
                print_value("soft", &res.soft, soft, ssrc);
                print_value("hard", &res.hard, hard, hsrc);
                if (res.soft_clamped) {
                        char a[SIZE_FMT_MAX];
                        printf("  (the soft entry says %s, above the hard limit: pam_limits lowers it to the hard value)\n",
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
                printf("  %s  %s %s memlock %s [%s, %s]: %s\n", lc_line_where(t, e->line, where, sizeof where),
                       e->line->domain, e->line->type, e->line->value, lc_rank_name(e->rank),
                       e->slot == LC_SOFT ? "soft" : e->slot == LC_HARD ? "hard" : "soft+hard",
                       outcome_text(t, e, &res, why, sizeof why));
        }
        if (res.root_user_debian)
                printf("\nNote: on Debian, pam_limits applies no '*', '@group' or '%%' line to root; only lines\n"
                       "naming root or a uid range count.\n");
        if (known && res.hard.known && t->flavour == LC_FLAVOUR_DEBIAN)
                printf("\nNote: the session gets these values only if the service may set them: raising a hard\n"
                       "limit needs CAP_SYS_RESOURCE, and Debian's pam_limits silently keeps the old limit\n"
                       "when setrlimit fails (see 'rdmalimits doctor').\n");
        ret = EXIT_OK;
out:
        lc_result_clear(&res);
        lc_tree_free(t);
        ident_free(id);
        return ret;
}
