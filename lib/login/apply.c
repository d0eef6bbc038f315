/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The decision and the setrlimit of pam_rdmalimit and spank_rdmalimit (apply.h).  Reads no
 * environment variable, loads no library: the policy (read by policy.c and cfgparse.c), NSS,
 * sysfs, /proc and netlink only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "escape.h"
#include "fsutil.h"
#include "hw.h"
#include "hwcache.h"
#include "ident.h"
#include "macro.h"
#include "policy.h"
#include "size.h"
#include "strv.h"

__attribute__((format(printf, 3, 4))) static void say(const struct login_front *f, int prio, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        f->log(f->data, prio, fmt, ap);
        va_end(ap);
}

static void log_policy_diags(const struct login_front *f, const struct diag_list *d) {
        for (size_t i = 0; i < d->n; i++) {
                const struct diag *x = &d->v[i];
                int prio = x->severity == DIAG_ERROR ? LOG_ERR : x->severity == DIAG_WARNING ? LOG_WARNING : LOG_INFO;
                if (x->line)
                        say(f, prio, "%s:%u: %s", x->path ? x->path : "?", x->line, x->message);
                else
                        say(f, prio, "%s: %s", x->path ? x->path : "?", x->message);
        }
}

/* The policy, opened and checked (owner, mode), read and parsed; its findings are logged. */
static int load_policy(const struct login_front *f, const struct login_opts *o, struct policy **ret) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *text = NULL;
        struct diag_list d = {};
        size_t len = 0;
        int r;

        r = fs_open_config(AT_FDCWD, o->conf, true, false, &fd, NULL);
        if (r < 0) {
                if (r == -ENOENT)
                        say(f, LOG_WARNING, "%s does not exist: memlock left unchanged", o->conf);
                else
                        say(f, LOG_ERR, "%s: %s: refusing the policy, memlock left unchanged", o->conf, fs_strerror(r));
                return r;
        }
        r = policy_read_fd(fd, &text, &len);
        if (r >= 0)
                r = policy_load_string(text, len, o->conf, ret, &d);
        log_policy_diags(f, &d);
        diag_list_clear(&d);
        if (r < 0) {
                if (r == -EFBIG)
                        say(f, LOG_ERR, "%s: larger than %u bytes: refusing the policy", o->conf, POLICY_MAX_BYTES);
                else if (r != -EINVAL)
                        say(f, LOG_ERR, "%s: cannot load: %s", o->conf, errno_text(r));
                else
                        say(f, LOG_ERR, "%s: invalid policy: memlock left unchanged", o->conf);
        }
        return r;
}

/* The hardware: the cache when valid, else sysfs and netlink (no ibverbs attributes). */
static int load_hardware(const struct login_front *f, const struct login_opts *o, const struct policy *p,
                         struct hw_summary **ret) {
        int cache_r, r;

        r = hw_cache_or_probe(o->cache, &p->hw.sel, ret, &cache_r);
        if (r < 0) {
                say(f, LOG_ERR, "hardware probe failed: %s", errno_text(r));
                return r;
        }
        /* a missing or stale cache is routine (the probe covers it); a refused one is not */
        if (o->cache && cache_r < 0 && cache_r != -ENOENT && cache_r != -ESTALE)
                say(f, LOG_WARNING, "%s: %s: not using the cache (run rdmalimits probe --save)", o->cache,
                    hw_cache_strerror(cache_r));
        if (o->debug)
                say(f, LOG_DEBUG,
                    "hardware (%s): %zu RDMA device(s), %u active port(s); xdp status %d, %zu interface(s); "
                    "MemTotal %llu; cache: %s", cache_r == 0 ? "from the cache" : "probed", (*ret)->n_rdma,
                    hw_active_ports(*ret), (*ret)->xdp_status, (*ret)->n_xdp, (unsigned long long)(*ret)->mem_total,
                    !o->cache ? "none (cache=)" : hw_cache_strerror(cache_r));
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
        if (x->used_fallback)
                snprintf(buf, size, "auto: no RDMA/AF_XDP hardware found, fallback %s", size_format(x->value, s));
        else
                snprintf(buf, size, "auto: %u active RDMA port%s, %u zero-copy and %u copy-mode XDP RX queue%s%s",
                         x->active_ports, x->active_ports == 1 ? "" : "s", x->zc_queues, x->copy_queues,
                         x->copy_queues == 1 ? "" : "s",
                         x->mr_unknown ? "; the max_mr_size cap is unknown (no valid cache: rdmalimits probe --save)" : "");
        policy_auto_unknown_text(x, buf, size);
}

/* "; 2 RDMA devices could not be read in sysfs" after why */
static void describe_unread(const struct hw_summary *hw, char *buf, size_t size) {
        size_t bad = 0;
        for (size_t i = 0; i < hw->n_rdma; i++)
                bad += hw->rdma[i].query_error != 0;
        if (bad) {
                size_t l = strlen(buf);
                snprintf(buf + l, size - l, "; %zu RDMA device%s could not be read in sysfs", bad, bad == 1 ? "" : "s");
        }
}

/* The user's groups, the hardware when an `auto` rule may decide, the decision. */
static int decide(const struct login_front *f, const struct login_opts *o, const struct policy *p, struct ident *id,
                  const struct id_user *u, struct login_decision *d) {
        _cleanup_(hw_summary_freep) struct hw_summary *hw = NULL;
        _cleanup_(strv_freep) char **groups = NULL;
        struct policy_decision dec = {};
        size_t n_groups = 0;
        int r;

        r = policy_user_groups(p, id, u, &groups, &n_groups);
        if (r < 0) {
                say(f, LOG_ERR, "cannot look up the groups of %s: %s", d->user, errno_text(r));
                return r;
        }
        if (policy_needs_hw(p, u->name, (const char *const *)groups, n_groups)) {
                r = load_hardware(f, o, p, &hw);     /* it logs its failure */
                if (r < 0)
                        return r;
        }
        r = policy_evaluate(p, u->name, (const char *const *)groups, n_groups, hw, &dec);
        if (r < 0) {
                say(f, LOG_ERR, "cannot evaluate the policy for %s: %s", d->user, errno_text(r));
                return r;
        }
        if (!dec.matched) {
                if (o->debug)
                        say(f, LOG_DEBUG, "%s: no rule of %s matches, memlock left unchanged", d->who, o->conf);
                d->outcome = LOGIN_NO_RULE;
                return 0;
        }
        describe_rule(p, &dec, d->rule, sizeof d->rule);
        describe_auto(&dec, d->why, sizeof d->why);
        if (dec.used_auto && hw)
                describe_unread(hw, d->why, sizeof d->why);
        if (dec.untouched) {
                say(f, LOG_INFO, "%s %s: auto found no RDMA/AF_XDP hardware and the policy has no "
                    "fallback: memlock left unchanged (%s)", d->who, d->rule, d->why);
                d->outcome = LOGIN_UNTOUCHED;
                return 0;
        }
        d->target = (struct rl_pair){ dec.soft, dec.hard };
        d->lower = dec.lower;
        d->outcome = LOGIN_APPLY;
        return 0;
}

int login_decide(const struct login_front *f, const struct login_opts *o, const char *user, uid_t uid,
                 struct login_decision *ret) {
        _cleanup_(policy_freep) struct policy *p = NULL;
        _cleanup_(ident_freep) struct ident *id = NULL;
        struct login_decision d = {};
        const struct id_user *u;
        int r;

        r = load_policy(f, o, &p);
        if (r < 0)
                return r;
        r = ident_new_nss(&id);
        if (r < 0) {
                say(f, LOG_ERR, "cannot look up users: %s", errno_text(r));
                return r;
        }
        r = user ? ident_user(id, user, &u) : ident_user_by_uid(id, uid, &u);
        if (r < 0) {
                if (user)
                        say(f, LOG_ERR, "cannot look up user %s: %s", str_escape(user, d.user, sizeof d.user),
                            r == -ENOENT ? "no such user" : errno_text(r));
                else
                        say(f, LOG_ERR, "cannot look up uid %u: %s", (unsigned)uid,
                            r == -ENOENT ? "no such user" : errno_text(r));
                return r;
        }
        str_escape(u->name, d.user, sizeof d.user);
        snprintf(d.who, sizeof d.who, "user=%s%s%s", d.user, f->tag ? " " : "", f->tag ? f->tag : "");
        r = decide(f, o, p, id, u, &d);
        if (r < 0)
                return r;
        *ret = d;
        return 0;
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

void login_args_init(struct login_args *a) {
        *a = (struct login_args){ .conf = POLICY_PATH, .cache = HW_CACHE_PATH };
}

bool login_arg(struct login_args *a, const char *word) {
        if (strncmp(word, "conf=", 5) == 0 && word[5])
                a->conf = word + 5, a->conf_given = true;
        else if (strncmp(word, "cache=", 6) == 0)
                a->cache = word[6] ? word + 6 : NULL, a->cache_given = true;
        else if (streq(word, "debug"))
                a->debug = true;
        else if (streq(word, "strict"))
                a->strict = true;
        else if (streq(word, "quiet"))
                a->quiet = true;
        else
                return false;
        return true;
}

const char *login_shortfall_text(const struct login_decision *d, const struct login_applied *a, const char *who,
                                 char *buf, size_t size) {
        char want[SIZE_FMT_MAX], got[SIZE_FMT_MAX];
        bool soft = a->got.soft < d->target.soft;
        snprintf(buf, size, "%s is %s, not %s: %s " LOGIN_SHORTFALL_TAIL,
                 soft ? "memlock" : "the memlock hard limit", size_format(soft ? a->got.soft : a->got.hard, got),
                 size_format(soft ? d->target.soft : d->target.hard, want), who);
        return buf;
}

int login_apply(const struct login_front *f, const struct login_decision *d, struct login_applied *ret) {
        char s1[SIZE_FMT_MAX], s2[SIZE_FMT_MAX], s3[SIZE_FMT_MAX], s4[SIZE_FMT_MAX];
        struct login_applied a = {};
        int r;

        r = apply_memlock(d->target, d->lower, &a.before, &a.got, &a.err);
        size_format(d->target.soft, s1);
        size_format(d->target.hard, s2);
        size_format(a.got.soft, s3);
        size_format(a.got.hard, s4);
        if (r == -EPERM) {
                char fix[SIZE_FMT_MAX], cause[1024];
                f->cause(f->data, s4, size_format_systemd(d->target.hard, fix), cause, sizeof cause);
                say(f, LOG_WARNING, "%s %s: wanted memlock soft=%s hard=%s, set soft=%s hard=%s: setrlimit: %s: %s",
                    d->who, d->rule, s1, s2, s3, s4, errno_text(-a.err), cause);
                a.outcome = LOGIN_PARTIAL;
                *ret = a;
                return 0;
        }
        if (r < 0) {
                say(f, LOG_ERR, "%s %s: setrlimit(RLIMIT_MEMLOCK) failed: %s", d->who, d->rule, errno_text(r));
                return r;
        }
        bool same = a.before.soft == a.got.soft && a.before.hard == a.got.hard;
        say(f, LOG_INFO, "%s %s: memlock soft=%s hard=%s%s (%s)", d->who, d->rule, s3, s4, same ? " (already so)" : "",
            d->why);
        a.outcome = same ? LOGIN_ALREADY : LOGIN_APPLIED;
        *ret = a;
        return 0;
}
