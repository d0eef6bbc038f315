/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rdmalimits doctor: each link of the chain a memlock limit travels along, checked.
 *
 *   configuration (limits.conf, limits.d, rdmalimit.conf)             config.c
 *     -> PAM session stacks (pam_limits, pam_rdmalimit: present, ordered, not jumped over,
 *        module file where libpam looks)                               pam.c
 *     -> the service that opens the session (sshd UsePAM, its own hard limit and
 *        CAP_SYS_RESOURCE; systemd units that never read limits.conf; container runtimes,
 *        Kubernetes, Slurm)                sshd.c systemd.c containers.c kube.c slurm.c process.c
 *     -> the running process (/proc/PID/limits, VmLck/VmPin, started before a change?)
 *
 * This file: doctor_add(), the targets (what the configuration, or the hardware, says a
 * service needs: `auto` of the policy's hardware section or of the defaults) and the run.
 * /proc is read only for the running system (no root), and for --pid, which names a live
 * process explicitly.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-internal.h"
#include "hwcache.h"
#include "hwcache-root.h"

/* ------------------------------------------------------------------------------------ */
/* the report */

int doctor_add(struct diag_list *rep, enum doctor_group group, enum diag_severity level, const char *id,
               const char *where, const char *fix, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_vadd(rep, level, group, id, where, 0, fix, fmt, ap);
        va_end(ap);
        return r;
}

const char *doctor_group_name(enum doctor_group g) {
        static const char *const names[_DOCTOR_GROUP_MAX] = {
                [DOCTOR_SSH] = "ssh login",          [DOCTOR_CONSOLE] = "console login",
                [DOCTOR_SU] = "su/sudo",             [DOCTOR_CRON] = "cron",
                [DOCTOR_SYSTEMD] = "systemd services", [DOCTOR_CONTAINERS] = "containers",
                [DOCTOR_SLURM] = "Slurm jobs",
                [DOCTOR_PROCESSES] = "processes",    [DOCTOR_CONFIG] = "configuration files",
        };
        return (unsigned)g < _DOCTOR_GROUP_MAX ? names[g] : "?";
}

/* ------------------------------------------------------------------------------------ */
/* targets: what the configuration gives */

void target_clear(struct target *t) {
        free(t->soft_where);
        free(t->hard_where);
        *t = (struct target){};
}

static int target_raise(struct target *t, bool soft, uint64_t v, const char *where) {
        bool *known = soft ? &t->soft_known : &t->hard_known;
        uint64_t *value = soft ? &t->soft : &t->hard;

        if (*known && v <= *value)
                return 0;
        if (set_str(soft ? &t->soft_where : &t->hard_where, where) < 0)
                return -ENOMEM;
        *known = true;
        *value = v;
        return 0;
}

char *target_text(const struct target *t, bool hard) {
        char a[SIZE_FMT_MAX];
        return strf("%s %s (%s)", hard ? "hard" : "soft", size_format(hard ? t->hard : t->soft, a),
                    (hard ? t->hard_where : t->soft_where) ?: "?");
}

/* The hardware `auto` is computed from: what a login reads (the cache its pam_rdmalimit lines
 * read, pam_choose_cache(), as explain reads a line's): the cache when it is valid, with the
 * devices' max_mr_size, which no probe of sysfs and netlink knows, else a live probe. */
const struct hw_summary *need_hw(struct doc *d) {
        if (!d->hw_probed) {
                d->hw_probed = true;
                d->hw_cache_r = -ENOENT;
                if (pam_choose_cache(d) < 0 ||
                    hw_cache_in_root_or_probe(cache_root(d), d->cache,
                                              d->in->policy ? &d->in->policy->hw.sel : NULL, &d->hw,
                                              &d->hw_cache_r) < 0)
                        d->hw = NULL;
        }
        return d->hw;
}

/* "from the cache X", "probed: no cache (cache=)", "probed: X: stale": where need_hw()'s
 * hardware came from (NULL: out of memory) */
char *hw_source(const struct doc *d) {
        const char *c = cache_shown(d);
        if (!c)
                return strdup("probed live: the module lines read no cache (cache=)");
        if (d->hw_cache_r == 0)
                return strf("from the cache %s", c);
        return strf("probed live: %s: %s", c, hw_cache_strerror(d->hw_cache_r));
}

static char *policy_where(const struct doc *d, const struct policy_rule *r) {
        return strf("%s:%u, %s %s", disp_rooted(d, d->in->policy->path), r->line, r->user ? "user" : "group",
                    r->user ? r->user : r->group);
}

/* The decision of the policy for a user and groups; false when nothing applies. */
static bool policy_decide(struct doc *d, const char *user, const char *const *groups, size_t n_groups,
                          struct policy_decision *ret) {
        const struct policy *p = d->in->policy;
        const struct hw_summary *hw = NULL;
        if (!p)
                return false;
        if (policy_needs_hw(p, user, groups, n_groups) && !(hw = need_hw(d)))
                return false;
        if (policy_evaluate(p, user, groups, n_groups, hw, ret) < 0)
                return false;
        return ret->matched && !ret->untouched;
}

/* A decision's soft and hard as targets of *t. */
static int target_raise_decision(const struct doc *d, struct target *t, const struct policy_decision *dec) {
        _cleanup_free_ char *where = policy_where(d, dec->rule);
        if (!where)
                return -ENOMEM;
        int r = target_raise(t, true, dec->soft, where);
        return r < 0 ? r : target_raise(t, false, dec->hard, where);
}

static char *line_where(const struct lc_tree *t, const struct lc_line *l) {
        return strf("%s:%u", t->files[l->file].display, l->lineno);
}

static int compute_max(struct doc *d) {
        const struct lc_tree *t = d->in->tree;
        int r = 0;

        for (size_t i = 0; t && i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK || !l->value_ok || !l->type_mask ||
                    !l->domain || l->domain[0] == '%')
                        continue;
                _cleanup_free_ char *where = line_where(t, l);
                if (!where)
                        return -ENOMEM;
                d->tree_has_memlock = true;
                if (l->type_mask & LC_SOFT)
                        r = target_raise(&d->max, true, l->bytes, where);
                if (r >= 0 && (l->type_mask & LC_HARD))
                        r = target_raise(&d->max, false, l->bytes, where);
        }
        const struct policy *p = d->in->policy;
        for (size_t i = 0; p && i < p->n_rules && r >= 0; i++) {
                const struct policy_rule *rule = &p->rules[i];
                struct policy_decision dec;
                const char *groups[1] = { rule->group };
                /* each rule as the one that matches: its user, or a nameless member of its group */
                if (policy_decide(d, rule->user ? rule->user : "", rule->user ? NULL : groups, rule->user ? 0 : 1,
                                  &dec))
                        r = target_raise_decision(d, &d->max, &dec);
        }
        return r;
}

/* What limits.conf and limits.d give the user (after pam_limits' clamp of soft to hard). */
static int user_target_limits(struct doc *d, const char *user, struct target *t) {
        const struct lc_tree *tree = d->in->tree;
        struct lc_baseline base;
        _cleanup_(lc_result_clear) struct lc_result res = {};
        int r = 0;

        if (!tree || lc_baseline_load(tree, NULL, &base) < 0 ||
            lc_resolve(tree, d->in->id, user, &base, &res) < 0 || res.kind != LC_RES_LIMITS)
                return 0;
        if (res.soft.src) {
                _cleanup_free_ char *w = line_where(tree, res.soft.src);
                uint64_t s = res.soft_clamped ? res.hard.value : res.soft.value;
                r = w ? target_raise(t, true, s, w) : -ENOMEM;
        }
        if (r >= 0 && res.hard.src) {
                _cleanup_free_ char *w = line_where(tree, res.hard.src);
                r = w ? target_raise(t, false, res.hard.value, w) : -ENOMEM;
        }
        return r;
}

int user_target(struct doc *d, const char *user, struct target *ret) {
        const struct id_user *u;
        int r;

        *ret = (struct target){};
        r = ident_user(d->in->id, user, &u);
        if (r < 0)
                return r;
        r = user_target_limits(d, user, ret);
        if (r >= 0 && d->in->policy) {
                char **groups = NULL;
                size_t ng = 0;
                struct policy_decision dec;
                int q = policy_user_groups(d->in->policy, d->in->id, u, &groups, &ng);
                if (q == -ENOMEM)
                        r = q;
                else if (q >= 0 && policy_decide(d, user, (const char *const *)groups, ng, &dec)) {
                        if (dec.lower)
                                ret->soft_known = ret->hard_known = false;
                        r = target_raise_decision(d, ret, &dec);
                }
                strv_free(groups);
        }
        if (r < 0)
                target_clear(ret);
        return r;
}

int below_max(const struct doc *d, uint64_t soft, uint64_t hard, enum diag_severity *ret_lvl, char **ret_why) {
        _cleanup_free_ char *t = NULL;
        bool low_soft = d->max.soft_known && soft < d->max.soft;
        bool low_hard = !low_soft && d->max.hard_known && hard < d->max.hard;

        if (!low_soft && !low_hard) {
                *ret_lvl = DIAG_OK;
                return (*ret_why = strdup("")) ? 0 : -ENOMEM;
        }
        if (!(t = target_text(&d->max, low_hard)) ||
            !(*ret_why = strf(", below the %s that the configuration gives", t)))
                return -ENOMEM;
        *ret_lvl = DIAG_WARNING;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* `auto` for this host */

void host_auto_clear(struct host_auto *a) {
        free(a->why);
        *a = (struct host_auto){};
}

/* The hardware section to use: the policy's, else the defaults (a policy without one). */
static int auto_hardware(const struct doc *d, struct policy **ret_defaults, const struct policy_hardware **ret_hw,
                         char **ret_src) {
        static const char text[] = "version = 1;\n";
        struct policy *p = NULL;

        if (d->in->policy) {
                *ret_hw = &d->in->policy->hw;
                *ret_src = strf("the hardware section of %s", disp_rooted(d, d->in->policy->path));
                return *ret_src ? 0 : -ENOMEM;
        }
        int r = policy_load_string(text, strlen(text), "defaults", &p, NULL);
        if (r < 0)
                return r;
        *ret_defaults = p;
        *ret_hw = &p->hw;
        *ret_src = strdup(d->in->policy_exists ? "the default hardware values (the policy file is not usable)"
                                               : "the default hardware values (no policy file)");
        return *ret_src ? 0 : -ENOMEM;
}

/* "base 64 MiB + 1 zero-copy RX queue x 16 MiB" and the caps that applied */
static char *auto_arith(const struct policy_hardware *h, const struct policy_auto *a) {
        char b[SIZE_FMT_MAX], p[SIZE_FMT_MAX], z[SIZE_FMT_MAX], c[SIZE_FMT_MAX], cap[SIZE_FMT_MAX];
        if (a->used_fallback)
                return strf("no RDMA port or XDP queue found: the fallback %s%s", size_format(h->fallback.bytes, b),
                            a->value < h->fallback.bytes ? ", capped by the RAM share" : "");
        return strf("base %s + %u active RDMA port%s x %s + %u zero-copy RX queue%s x %s + %u copy-mode RX queue%s "
                    "x %s%s%s%s",
                    size_format(h->base, b), a->active_ports, a->active_ports == 1 ? "" : "s",
                    size_format(h->rdma_port, p), a->zc_queues, a->zc_queues == 1 ? "" : "s",
                    size_format(h->xsk_queue, z), a->copy_queues, a->copy_queues == 1 ? "" : "s",
                    size_format(h->xsk_copy_queue, c), a->value < a->sum ? ", capped at " : "",
                    a->value < a->sum ? size_format(a->value, cap) : "",
                    a->value < a->sum ? (a->value == a->ram_cap ? " (RAM share)" : " (max_mr_size)") : "");
}

int host_auto(struct doc *d, struct host_auto *ret) {
        struct policy *defaults = NULL;
        const struct policy_hardware *h;
        _cleanup_free_ char *src = NULL;
        struct policy_auto a;
        int r;

        *ret = (struct host_auto){};
        r = auto_hardware(d, &defaults, &h, &src);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return (ret->why = strdup("the default hardware values cannot be loaded")) ? 0 : -ENOMEM;
        const struct hw_summary *hw = need_hw(d);
        const char *host = d->in->root ? "the host running doctor, not the tree" : "this host";
        if (!hw)
                ret->why = strf("the hardware of %s cannot be probed", host);
        else {
                _cleanup_free_ char *arith = NULL, *source = hw_source(d);
                if (!source) {
                        policy_free(defaults);
                        return -ENOMEM;
                }
                policy_compute_auto(h, hw, &a);
                ret->value = a.value;
                ret->hw_known = true;
                ret->n_rdma = hw->n_rdma;
                ret->hw_units = a.active_ports + a.zc_queues + a.copy_queues;
                if (!(arith = auto_arith(h, &a)))
                        ret->why = NULL;
                else if (a.value)
                        ret->why = strf("`auto` of %s; hardware of %s (%s): %s", src, host, source, arith);
                else
                        ret->why = strf("`auto` of %s finds no RDMA port or XDP queue on %s (%s) and has no fallback",
                                        src, host, source);
        }
        policy_free(defaults);
        return ret->why ? 0 : -ENOMEM;
}

int host_need(struct doc *d, uint64_t *ret, char **ret_why) {
        _cleanup_(host_auto_clear) struct host_auto a = {};
        int r = host_auto(d, &a);
        if (r < 0)
                return r;
        uint64_t conf = d->max.hard_known && (!d->max.soft_known || d->max.hard > d->max.soft) ? d->max.hard
                        : d->max.soft_known                                                   ? d->max.soft
                                                                                              : 0;
        char *why;
        if (conf > a.value) {
                _cleanup_free_ char *t = target_text(&d->max, d->max.hard_known && conf == d->max.hard);
                why = t ? strf("the largest memlock configured, %s", t) : NULL;
        } else
                why = strdup(a.why);
        *ret = conf > a.value ? conf : a.value;
        if (!why)
                return -ENOMEM;
        *ret_why = why;
        return 0;
}

/* ------------------------------------------------------------------------------------ */

int doc_run(struct doc *d, doc_check_fn *const *checks, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = checks[i](d);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Every link of the chain, in the order the report lists them.  A check that does not
 * apply (--unit, --pid not given; the running processes under --root) returns at once. */
static doc_check_fn *const checks[] = {
        compute_max,      check_pam_services, check_sshd_config, check_container, check_services,
        check_systemd_defaults, check_unit,   check_docker,      check_podman,    check_kubernetes,
        check_slurm,      check_pid,          check_config,
};

int doctor_run(const struct doctor_input *in, struct diag_list *rep) {
        struct doc d = { .in = in, .rep = rep };
        int r = doc_run(&d, checks, ELEMENTSOF(checks));

        pam_moddirs_clear(&d.moddirs);
        target_clear(&d.max);
        limit_setting_clear(&d.sysdef);
        hw_summary_free(d.hw);
        free(d.cache);
        free(d.cache_where);
        free(d.cache_others);
        return r < 0 ? r : 0;
}
