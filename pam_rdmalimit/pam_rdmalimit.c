/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_rdmalimit: set RLIMIT_MEMLOCK at session open from the policy in
 * /etc/security/rdmalimit.conf, the user's groups (NSS) and the RDMA/AF_XDP hardware.
 *
 * Thin glue: arguments -> library -> setrlimit -> pam_syslog.  Errors inside are negative
 * errno; PAM codes appear only in pam_sm_open_session().  No mutable static state.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "fsutil.h"
#include "hw.h"
#include "hwcache.h"
#include "ident.h"
#include "macro.h"
#include "policy.h"
#include "rlimit.h"
#include "size.h"

#define PUBLIC __attribute__((visibility("default")))
#define DEFAULT_CONF SYSCONFDIR "/security/rdmalimit.conf"

struct args {
        const char *conf;
        const char *cache;
        bool debug, strict, quiet;
};

static void parse_args(pam_handle_t *pamh, int argc, const char **argv, struct args *a) {
        *a = (struct args){ .conf = DEFAULT_CONF, .cache = HW_CACHE_PATH };
        for (int i = 0; i < argc; i++) {
                if (strncmp(argv[i], "conf=", 5) == 0 && argv[i][5])
                        a->conf = argv[i] + 5;
                else if (strncmp(argv[i], "cache=", 6) == 0)
                        a->cache = argv[i][6] ? argv[i] + 6 : NULL; /* "cache=": always probe live */
                else if (streq(argv[i], "debug"))
                        a->debug = true;
                else if (streq(argv[i], "strict"))
                        a->strict = true;
                else if (streq(argv[i], "quiet"))
                        a->quiet = true;
                else
                        pam_syslog(pamh, LOG_ERR, "unknown option: %s, ignoring", argv[i]);
        }
}

/* What the session ended with, for the one info line. */
enum outcome {
        OUT_NO_RULE,        /* no rule for this user: limits untouched */
        OUT_UNTOUCHED,      /* auto found no hardware and there is no fallback */
        OUT_APPLIED,
        OUT_ALREADY,        /* the limits already satisfy the policy */
        OUT_PARTIAL,        /* the target could not be reached: closest value set */
};

static void fmt_limit(uint64_t v, char buf[static SIZE_FMT_MAX]) {
        size_format(v, buf);
}

static void log_policy_diags(pam_handle_t *pamh, const struct diag_list *d) {
        for (size_t i = 0; i < d->n; i++) {
                const struct diag *x = &d->v[i];
                int prio = x->severity == DIAG_ERROR ? LOG_ERR : x->severity == DIAG_WARNING ? LOG_WARNING : LOG_INFO;
                if (x->line)
                        pam_syslog(pamh, prio, "%s:%u: %s", x->path ? x->path : "?", x->line, x->message);
                else
                        pam_syslog(pamh, prio, "%s: %s", x->path ? x->path : "?", x->message);
        }
}

/*
 * The policy: compiled in the cache when the cache holds exactly these bytes (no libconfig
 * in this login), else parsed.  The policy file is opened and checked (owner, mode) either
 * way, and its findings are logged either way.  *ret_cached tells which.
 */
static int load_policy(pam_handle_t *pamh, const struct args *a, const struct hw_cache *cache, struct policy **ret,
                       bool *ret_cached) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *text = NULL;
        struct diag_list d = {};
        size_t len = 0;
        int r;

        *ret_cached = false;
        r = fs_open_config(AT_FDCWD, a->conf, true, false, &fd, NULL);
        if (r < 0) {
                if (r == -ENOENT)
                        pam_syslog(pamh, LOG_WARNING, "%s does not exist: memlock left unchanged", a->conf);
                else
                        pam_syslog(pamh, LOG_ERR, "%s: %s: refusing the policy, memlock left unchanged", a->conf,
                                   fs_strerror(r));
                return r;
        }
        r = policy_read_fd(fd, &text, &len);
        if (r >= 0 && cache) {
                /* an absent, stale or malformed compiled policy adds nothing to d: parse then */
                r = hw_cache_policy(cache, a->conf, text, len, ret, &d);
                *ret_cached = r >= 0;
                if (r == -EBADMSG)
                        pam_syslog(pamh, LOG_WARNING, "%s: the compiled policy is malformed: parsing %s", a->cache,
                                   a->conf);
                if (r != -ENOMEM)
                        r = 0;
        }
        if (r >= 0 && !*ret_cached)
                r = policy_load_string(text, len, a->conf, ret, &d);
        log_policy_diags(pamh, &d);
        diag_list_clear(&d);
        if (r < 0) {
                if (r == -EFBIG)
                        pam_syslog(pamh, LOG_ERR, "%s: larger than %u bytes: refusing the policy", a->conf,
                                   POLICY_MAX_BYTES);
                else if (r != -EINVAL)
                        pam_syslog(pamh, LOG_ERR, "%s: cannot load: %s", a->conf, strerror(-r));
                else
                        pam_syslog(pamh, LOG_ERR, "%s: invalid policy: memlock left unchanged", a->conf);
        }
        return r;
}

/* "rule group rdma_users (file:12)" */
static void describe_rule(const struct policy *p, const struct policy_decision *dec, char *buf, size_t size) {
        if (!dec->rule) {
                snprintf(buf, size, "no rule");
                return;
        }
        snprintf(buf, size, "rule %s %s (%s:%u)", dec->rule->user ? "user" : "group",
                 dec->rule->user ? dec->rule->user : dec->rule->group, p->path ? p->path : "?", dec->rule->line);
}

static void describe_auto(const struct policy_decision *dec, char *buf, size_t size) {
        const struct policy_auto *x = &dec->auto_info;
        char s[SIZE_FMT_MAX];
        if (!dec->used_auto) {
                snprintf(buf, size, "fixed value");
                return;
        }
        if (x->used_fallback) {
                snprintf(buf, size, "auto: no RDMA/AF_XDP hardware found, fallback %s", size_format(x->value, s));
                return;
        }
        snprintf(buf, size, "auto: %u active RDMA port%s, %u zero-copy and %u copy-mode XDP RX queue%s%s",
                 x->active_ports, x->active_ports == 1 ? "" : "s", x->zc_queues, x->copy_queues,
                 x->copy_queues == 1 ? "" : "s", x->xdp_unknown ? " (AF_XDP unknown: kernel without netdev family)" : "");
}

/*
 * Set memlock towards the target: never lower unless lower.  When raising the hard limit is
 * not allowed (EPERM: no CAP_SYS_RESOURCE) the closest value is set (lib/rlimit.c, the same
 * rules `rdmalimits explain` and `verify` predict with).  Returns 0, -EPERM after setting the
 * closest value, or another negative errno.
 */
static int apply_memlock(struct rl_pair target, bool lower, struct rl_pair *ret_before, struct rl_pair *ret_got,
                         int *ret_errno) {
        struct rl_pair cur, want;
        int r;

        *ret_errno = 0;
        r = rl_get_memlock(&cur);
        if (r < 0)
                return r;
        *ret_before = *ret_got = cur;
        want = rl_module_want(cur, target, lower);
        if (want.soft == cur.soft && want.hard == cur.hard)
                return 0;
        if (setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ .rlim_cur = want.soft, .rlim_max = want.hard }) == 0) {
                *ret_got = want;
                return 0;
        }
        *ret_errno = errno;
        if (errno != EPERM)
                return negative_errno();
        struct rl_pair near = rl_module_closest(cur, want, lower);
        if ((near.soft != cur.soft || near.hard != cur.hard) &&
            setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ .rlim_cur = near.soft, .rlim_max = near.hard }) == 0)
                *ret_got = near;
        return -EPERM;
}

static int session_open(pam_handle_t *pamh, const struct args *a, const char *user, enum outcome *ret_out) {
        struct hw_cache *cache = NULL;
        struct policy *p = NULL;
        struct ident *id = NULL;
        struct hw_summary *hw = NULL;
        char **groups = NULL;
        size_t n_groups = 0;
        const struct id_user *u;
        struct policy_decision dec = {};
        char rule[512], why[512], s1[SIZE_FMT_MAX], s2[SIZE_FMT_MAX], s3[SIZE_FMT_MAX], s4[SIZE_FMT_MAX];
        bool policy_cached;
        int r, cache_r = -ENOENT;

        /* one read of the cache serves the policy and the hardware */
        if (a->cache) {
                cache_r = r = hw_cache_read(a->cache, &cache);
                if (r == -ENOMEM) {
                        pam_syslog(pamh, LOG_ERR, "%s: cannot read the cache: %s", a->cache, strerror(-r));
                        goto out;
                }
                if (r < 0 && r != -ENOENT)
                        pam_syslog(pamh, LOG_WARNING, "%s: %s: not using the cache", a->cache,
                                   r == -EBADMSG ? "not a cache this build writes (run rdmalimits probe --save)" :
                                   fs_strerror(r));
        }
        r = load_policy(pamh, a, cache, &p, &policy_cached);
        if (r < 0)
                goto out;
        if (a->debug) {
                if (policy_cached)
                        pam_syslog(pamh, LOG_DEBUG, "policy %s: compiled, from the cache %s", a->conf, a->cache);
                else
                        pam_syslog(pamh, LOG_DEBUG, "policy %s: parsed (%s)", a->conf,
                                   !a->cache ? "no cache: cache=" : cache_r == -ENOENT ? "no cache file" :
                                   cache_r < 0 ? "cache refused" : "the cache holds no policy or another one");
        }
        r = ident_new(NULL, &id);
        if (r < 0)
                goto out;
        r = ident_user(id, user, &u);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot look up user %s: %s", user,
                           r == -ENOENT ? "no such user" : strerror(-r));
                goto out;
        }
        r = policy_user_groups(p, id, u, &groups, &n_groups);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot look up the groups of %s: %s", user, strerror(-r));
                goto out;
        }
        if (policy_needs_hw(p, user, (const char *const *)groups, n_groups)) {
                bool cached = false;
                r = hw_cache_or_probe(cache, &hw, &cached);
                if (r < 0) {
                        pam_syslog(pamh, LOG_ERR, "hardware probe failed: %s", strerror(-r));
                        goto out;
                }
                if (a->debug)
                        pam_syslog(pamh, LOG_DEBUG,
                                   "hardware (%s): rdma status %d, %zu device(s); xdp status %d, %zu interface(s); "
                                   "MemTotal %llu", cached ? "from the cache" : "probed", hw->rdma_status, hw->n_rdma,
                                   hw->xdp_status, hw->n_xdp, (unsigned long long)hw->mem_total);
        }
        r = policy_evaluate(p, user, (const char *const *)groups, n_groups, hw, &dec);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot evaluate the policy for %s: %s", user, strerror(-r));
                goto out;
        }
        if (!dec.matched) {
                if (a->debug)
                        pam_syslog(pamh, LOG_DEBUG, "user=%s: no rule of %s matches, memlock left unchanged", user,
                                   a->conf);
                *ret_out = OUT_NO_RULE;
                goto out;
        }
        describe_rule(p, &dec, rule, sizeof rule);
        describe_auto(&dec, why, sizeof why);
        if (dec.used_auto && hw) {
                size_t bad = 0;
                for (size_t i = 0; i < hw->n_rdma; i++)
                        bad += hw->rdma[i].query_error != 0;
                if (bad) {
                        size_t l = strlen(why);
                        snprintf(why + l, sizeof why - l, "; %zu RDMA device%s could not be queried", bad, bad == 1 ? "" : "s");
                }
        }
        if (dec.untouched) {
                pam_syslog(pamh, LOG_INFO, "user=%s %s: auto found no RDMA/AF_XDP hardware and the policy has no "
                           "fallback: memlock left unchanged (%s)", user, rule, why);
                *ret_out = OUT_UNTOUCHED;
                goto out;
        }

        struct rl_pair before = {}, got = {};
        int err;
        r = apply_memlock((struct rl_pair){ dec.soft, dec.hard }, dec.lower, &before, &got, &err);
        fmt_limit(dec.soft, s1);
        fmt_limit(dec.hard, s2);
        fmt_limit(got.soft, s3);
        fmt_limit(got.hard, s4);
        if (r == -EPERM) {
                const char *service = NULL;
                (void)pam_get_item(pamh, PAM_SERVICE, (const void **)&service);
                char fix[SIZE_FMT_MAX];
                if (dec.hard == UINT64_MAX)
                        snprintf(fix, sizeof fix, "infinity");
                else
                        size_format_arg(dec.hard, fix);
                pam_syslog(pamh, LOG_WARNING,
                           "user=%s %s: wanted memlock soft=%s hard=%s, set soft=%s hard=%s: setrlimit: %s: "
                           "the service (%s, pid %d) cannot raise its hard memlock limit above %s "
                           "(it lacks CAP_SYS_RESOURCE); fix: give the service LimitMEMLOCK=%s "
                           "(systemctl edit <its unit>), or run it with a higher hard limit",
                           user, rule, s1, s2, s3, s4, strerror(err), service ? service : "?", (int)getpid(), s4, fix);
                if (!a->quiet) {
                        if (got.soft < dec.soft)
                                pam_info(pamh, "memlock is %s, not %s: %s cannot raise its hard limit (see rdmalimits doctor)",
                                         s3, s1, service ? service : "this service");
                        else
                                pam_info(pamh, "the memlock hard limit is %s, not %s: %s cannot raise its hard limit "
                                         "(see rdmalimits doctor)", s4, s2, service ? service : "this service");
                }
                *ret_out = OUT_PARTIAL;
                r = 0;
                goto out;
        }
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "user=%s %s: setrlimit(RLIMIT_MEMLOCK) failed: %s", user, rule, strerror(-r));
                goto out;
        }
        bool same = before.soft == got.soft && before.hard == got.hard;
        pam_syslog(pamh, LOG_INFO, "user=%s %s: memlock soft=%s hard=%s%s (%s)", user, rule, s3, s4,
                   same ? " (already so)" : "", why);
        *ret_out = same ? OUT_ALREADY : OUT_APPLIED;
out:
        ident_strv_free(groups);
        hw_summary_free(hw);
        ident_free(id);
        policy_free(p);
        hw_cache_free(cache);
        return r;
}

PUBLIC int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct args a;
        const char *user = NULL;
        enum outcome out = OUT_NO_RULE;
        int r;

        parse_args(pamh, argc, argv, &a);
        r = pam_get_item(pamh, PAM_USER, (const void **)&user);
        if (r != PAM_SUCCESS || !user || !*user) {
                pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
                return a.strict ? PAM_SESSION_ERR : PAM_IGNORE;
        }
        r = session_open(pamh, &a, user, &out);
        if (r < 0)
                return a.strict ? PAM_SESSION_ERR : PAM_IGNORE;
        switch (out) {
        case OUT_APPLIED:
        case OUT_ALREADY:
        case OUT_PARTIAL:
                return PAM_SUCCESS;
        default:
                return PAM_IGNORE;
        }
}

PUBLIC int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        return PAM_SUCCESS;
}
