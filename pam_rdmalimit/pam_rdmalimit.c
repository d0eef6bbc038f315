/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_rdmalimit: set RLIMIT_MEMLOCK at session open from the policy in
 * /etc/security/rdmalimit.conf, the user's groups (NSS) and the RDMA/AF_XDP hardware.
 *
 * Thin glue: arguments -> library -> setrlimit -> pam_syslog.  Errors inside are negative
 * errno; PAM codes appear only in pam_sm_open_session().  No mutable static state.
 *
 * Trust (pam_rdmalimit(8), THREAT MODEL): this runs as root inside su, sudo, sshd and login,
 * where the environment is the caller's.  It reads no environment variable, loads no library
 * that does (never libibverbs or an RDMA provider: ports come from sysfs, the ibverbs
 * attributes from the cache `rdmalimits probe --save` writes), opens only root-owned files it
 * checks (the policy, the cache) and the kernel's (sysfs, /proc, netlink), and escapes every
 * byte of user data (the login name, names from NSS) before it reaches the log or the user.
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

#include "escape.h"
#include "fsutil.h"
#include "hw.h"
#include "hwcache.h"
#include "ident.h"
#include "strv.h"
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
                else {
                        char e[ESCAPE_NAME_MAX];
                        pam_syslog(pamh, LOG_ERR, "unknown option: %s, ignoring", str_escape(argv[i], e, sizeof e));
                }
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

/* The policy, opened and checked (owner, mode), read and parsed; its findings are logged. */
static int load_policy(pam_handle_t *pamh, const struct args *a, struct policy **ret) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *text = NULL;
        struct diag_list d = {};
        size_t len = 0;
        int r;

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
        if (r >= 0)
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

/* The hardware: the cache when valid, else sysfs and netlink (no ibverbs attributes). */
static int load_hardware(pam_handle_t *pamh, const struct args *a, const struct policy *p, struct hw_summary **ret) {
        int cache_r, r;

        r = hw_cache_or_probe(a->cache, &p->hw.sel, ret, &cache_r);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "hardware probe failed: %s", strerror(-r));
                return r;
        }
        /* a missing or stale cache is routine (the probe covers it); a refused one is not */
        if (a->cache && cache_r < 0 && cache_r != -ENOENT && cache_r != -ESTALE)
                pam_syslog(pamh, LOG_WARNING, "%s: %s: not using the cache (run rdmalimits probe --save)", a->cache,
                           hw_cache_strerror(cache_r));
        if (a->debug)
                pam_syslog(pamh, LOG_DEBUG,
                           "hardware (%s): %zu RDMA device(s), %u active port(s); xdp status %d, %zu interface(s); "
                           "MemTotal %llu; cache: %s", cache_r == 0 ? "from the cache" : "probed", (*ret)->n_rdma,
                           hw_active_ports(*ret), (*ret)->xdp_status, (*ret)->n_xdp,
                           (unsigned long long)(*ret)->mem_total, !a->cache ? "none (cache=)" : hw_cache_strerror(cache_r));
        return 0;
}

/* "rule group rdma_users (file:12)" */
static void describe_rule(const struct policy *p, const struct policy_decision *dec, char *buf, size_t size) {
        if (!dec->rule) {
                snprintf(buf, size, "no rule");
                return;
        }
        char name[ESCAPE_NAME_MAX];
        str_escape(dec->rule->user ? dec->rule->user : dec->rule->group, name, sizeof name);
        snprintf(buf, size, "rule %s %s (%s:%u)", dec->rule->user ? "user" : "group", name, p->path ? p->path : "?",
                 dec->rule->line);
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
        snprintf(buf, size, "auto: %u active RDMA port%s, %u zero-copy and %u copy-mode XDP RX queue%s%s%s",
                 x->active_ports, x->active_ports == 1 ? "" : "s", x->zc_queues, x->copy_queues,
                 x->copy_queues == 1 ? "" : "s", x->xdp_unknown ? " (AF_XDP unknown: kernel without netdev family)" : "",
                 x->mr_unknown ? "; the max_mr_size cap is unknown (no valid cache: rdmalimits probe --save)" : "");
}

/*
 * Set memlock towards the target: never lower unless lower.  When raising the hard limit is
 * not allowed (EPERM: no CAP_SYS_RESOURCE) the closest value is set (lib/login/rlimit.c, the same
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

/* Set the decided limits and log the one line of the session. */
static int apply_decision(pam_handle_t *pamh, const struct args *a, const char *user, const char *rule,
                          const char *why, const struct policy_decision *dec, enum outcome *ret_out) {
        char s1[SIZE_FMT_MAX], s2[SIZE_FMT_MAX], s3[SIZE_FMT_MAX], s4[SIZE_FMT_MAX];
        struct rl_pair before = {}, got = {};
        int err, r;

        r = apply_memlock((struct rl_pair){ dec->soft, dec->hard }, dec->lower, &before, &got, &err);
        size_format(dec->soft, s1);
        size_format(dec->hard, s2);
        size_format(got.soft, s3);
        size_format(got.hard, s4);
        if (r == -EPERM) {
                const char *service = NULL;
                char fix[SIZE_FMT_MAX], esvc[ESCAPE_NAME_MAX];
                (void)pam_get_item(pamh, PAM_SERVICE, (const void **)&service);
                str_escape(service ? service : "?", esvc, sizeof esvc);
                pam_syslog(pamh, LOG_WARNING,
                           "user=%s %s: wanted memlock soft=%s hard=%s, set soft=%s hard=%s: setrlimit: %s: "
                           "the service (%s, pid %d) cannot raise its hard memlock limit above %s "
                           "(it lacks CAP_SYS_RESOURCE); fix: give the service LimitMEMLOCK=%s "
                           "(rdmalimits apply --unit <its unit>), or run it with a higher hard limit",
                           user, rule, s1, s2, s3, s4, strerror(err), esvc, (int)getpid(), s4,
                           size_format_systemd(dec->hard, fix));
                if (!a->quiet) {
                        if (got.soft < dec->soft)
                                pam_info(pamh, "memlock is %s, not %s: %s cannot raise its hard limit (see rdmalimits doctor)",
                                         s3, s1, service ? esvc : "this service");
                        else
                                pam_info(pamh, "the memlock hard limit is %s, not %s: %s cannot raise its hard limit "
                                         "(see rdmalimits doctor)", s4, s2, service ? esvc : "this service");
                }
                *ret_out = OUT_PARTIAL;
                return 0;
        }
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "user=%s %s: setrlimit(RLIMIT_MEMLOCK) failed: %s", user, rule, strerror(-r));
                return r;
        }
        bool same = before.soft == got.soft && before.hard == got.hard;
        pam_syslog(pamh, LOG_INFO, "user=%s %s: memlock soft=%s hard=%s%s (%s)", user, rule, s3, s4,
                   same ? " (already so)" : "", why);
        *ret_out = same ? OUT_ALREADY : OUT_APPLIED;
        return 0;
}

/*
 * name: the canonical pw_name NSS returned for PAM_USER (a case-insensitive name service
 * answers "BOB" with bob: rules are matched, as pam_limits matches, by pw_name); ename: it
 * escaped, for the log.
 */
static int decide(pam_handle_t *pamh, const struct args *a, const struct policy *p, struct ident *id,
                  const struct id_user *u, const char *ename, enum outcome *ret_out) {
        _cleanup_(hw_summary_freep) struct hw_summary *hw = NULL;
        struct policy_decision dec = {};
        char rule[512], why[512];
        _cleanup_(strv_freep) char **groups = NULL;
        size_t n_groups = 0;
        int r;

        r = policy_user_groups(p, id, u, &groups, &n_groups);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot look up the groups of %s: %s", ename, strerror(-r));
                return r;
        }
        if (policy_needs_hw(p, u->name, (const char *const *)groups, n_groups)) {
                r = load_hardware(pamh, a, p, &hw);     /* it logs its failure */
                if (r < 0)
                        return r;
        }
        r = policy_evaluate(p, u->name, (const char *const *)groups, n_groups, hw, &dec);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot evaluate the policy for %s: %s", ename, strerror(-r));
                return r;
        }
        if (!dec.matched) {
                if (a->debug)
                        pam_syslog(pamh, LOG_DEBUG, "user=%s: no rule of %s matches, memlock left unchanged", ename,
                                   a->conf);
                *ret_out = OUT_NO_RULE;
                return 0;
        }
        describe_rule(p, &dec, rule, sizeof rule);
        describe_auto(&dec, why, sizeof why);
        if (dec.used_auto && hw) {
                size_t bad = 0;
                for (size_t i = 0; i < hw->n_rdma; i++)
                        bad += hw->rdma[i].query_error != 0;
                if (bad) {
                        size_t l = strlen(why);
                        snprintf(why + l, sizeof why - l, "; %zu RDMA device%s could not be read in sysfs", bad,
                                 bad == 1 ? "" : "s");
                }
        }
        if (dec.untouched) {
                pam_syslog(pamh, LOG_INFO, "user=%s %s: auto found no RDMA/AF_XDP hardware and the policy has no "
                           "fallback: memlock left unchanged (%s)", ename, rule, why);
                *ret_out = OUT_UNTOUCHED;
                return 0;
        }
        return apply_decision(pamh, a, ename, rule, why, &dec, ret_out);
}

static int session_open(pam_handle_t *pamh, const struct args *a, const char *user, enum outcome *ret_out) {
        _cleanup_(policy_freep) struct policy *p = NULL;
        _cleanup_(ident_freep) struct ident *id = NULL;
        char ename[ESCAPE_NAME_MAX];
        const struct id_user *u;
        int r;

        r = load_policy(pamh, a, &p);
        if (r < 0)
                return r;
        r = ident_new(NULL, &id);
        if (r < 0)
                return r;
        r = ident_user(id, user, &u);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "cannot look up user %s: %s", str_escape(user, ename, sizeof ename),
                           r == -ENOENT ? "no such user" : strerror(-r));
                return r;
        }
        str_escape(u->name, ename, sizeof ename);
        return decide(pamh, a, p, id, u, ename, ret_out);
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
