/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, the configuration: what limits.conf, limits.d and the policy give at most, what
 * `check` finds in them, whether the policy is used by any stack, and the hardware cache a
 * login reads.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-internal.h"
#include "hwcache.h"
#include "hwcache-root.h"

/* One diag as a finding; path already shown the way the caller wants it.  A finding about a
 * whole file gets the file's name as the subject of its message. */
static int add_diag(struct doc *d, const struct diag *x, const char *path, const char *subject, const char *fix_line,
                    const char *fix_file) {
        _cleanup_free_ char *where = NULL;
        enum diag_severity lvl = x->severity;
        const char *base = path ? strrchr(path, '/') : NULL;
        base = base ? base + 1 : path;
        where = path && x->line ? strf("%s:%u", path, x->line) : strdup(path ? path : "");
        if (!where)
                return -ENOMEM;
        if (x->line || !base || subject[0])
                return doctor_add(d->rep, DOCTOR_CONFIG, lvl, NULL, where[0] ? where : NULL,
                                  lvl == DIAG_INFO ? NULL : fix_line, "%s%s", subject, x->message);
        return doctor_add(d->rep, DOCTOR_CONFIG, lvl, NULL, where, lvl == DIAG_INFO ? NULL : fix_file, "%s%s: %s", subject,
                          base, x->message);
}

static int config_max(struct doc *d) {
        _cleanup_free_ char *s1 = NULL, *s2 = NULL;

        if (!d->max.soft_known && !d->max.hard_known)
                return doctor_add(d->rep, DOCTOR_CONFIG, DIAG_INFO, NULL, NULL, NULL,
                                  "no limits entry or policy rule sets memlock");
        s1 = d->max.soft_known ? target_text(&d->max, false) : strdup("soft none");
        s2 = d->max.hard_known ? target_text(&d->max, true) : strdup("hard none");
        if (!s1 || !s2)
                return -ENOMEM;
        ADD(d, DOCTOR_CONFIG, DIAG_INFO, NULL, NULL, "the largest memlock configured: %s; %s", s1, s2);
        return 0;
}

/* `rdmalimits check` of limits.conf and limits.d, as findings. */
static int config_limits(struct doc *d) {
        _cleanup_(diag_list_clear) struct diag_list dl = {};
        int r;

        if (!d->in->tree)
                return 0;
        r = lc_check(d->in->tree, d->in->id, &dl);
        for (size_t i = 0; i < dl.n && r >= 0; i++)
                r = add_diag(d, &dl.v[i], dl.v[i].path, "", "edit the line (see 'rdmalimits check')",
                             "see 'rdmalimits check'");
        if (r < 0)
                return r;
        if (!diag_count(&dl, DIAG_ERROR) && !diag_count(&dl, DIAG_WARNING))
                ADD(d, DOCTOR_CONFIG, DIAG_OK, disp(d, LC_LIMITS_CONF), NULL,
                    "limits.conf and limits.d: no problems (%zu file%s read)", d->in->tree->n_files,
                    d->in->tree->n_files == 1 ? "" : "s");
        return 0;
}

static int config_policy(struct doc *d) {
        const struct diag_list *pd = d->in->policy_diags;

        for (size_t i = 0; pd && i < pd->n; i++) {
                const struct diag *x = &pd->v[i];
                if (add_diag(d, x, x->path ? disp_rooted(d, x->path) : NULL, "policy: ",
                             "correct the policy (see 'rdmalimits check --policy')",
                             "see 'rdmalimits check --policy'") < 0)
                        return -ENOMEM;
        }
        if (d->in->policy)
                ADD(d, DOCTOR_CONFIG, DIAG_OK, disp_rooted(d, d->in->policy->path), NULL, "policy: valid, %zu rule%s",
                    d->in->policy->n_rules, d->in->policy->n_rules == 1 ? "" : "s");
        return 0;
}

/* The hardware cache the module lines read (pam_choose_cache()), which doctor's `auto` reads
 * too: the devices' max_mr_size is known only there (a login never loads libibverbs). */
static int config_cache(struct doc *d) {
        _cleanup_free_ char *save = NULL;
        struct hw_summary *hc = NULL;
        int r;

        if (!d->in->policy || !d->module_in_any_stack)
                return 0;
        if ((r = pam_choose_cache(d)) < 0)
                return r;
        if (d->cache_others)
                ADD_ID(d, DOCTOR_CONFIG, DIAG_INFO, "cache-other", disp(d, HW_CACHE_PATH),
                       "rdmalimits doctor --cache FILE computes `auto` from another cache (--cache '' from none)",
                       "the pam_rdmalimit lines read different hardware caches (%s): doctor computes `auto` from the "
                       "module's default", d->cache_others);
        if (!d->cache) {
                ADD_ID(d, DOCTOR_CONFIG, DIAG_INFO, "cache-none", d->cache_where, NULL,
                       "no hardware cache (%s): logins with an auto rule probe sysfs and netlink themselves and do "
                       "not know the devices' max_mr_size", d->in->hw_cache_given ? "--cache ''" : "cache=");
                return 0;
        }
        const char *where = cache_shown(d);
        save = streq(d->cache, HW_CACHE_PATH) ? strdup("rdmalimits probe --save")
                                              : strf("rdmalimits probe --save --cache %s", d->cache);
        if (!save)
                return -ENOMEM;
        r = hw_cache_load_in_root(cache_root(d), d->cache, &d->in->policy->hw.sel, &hc);
        hw_summary_free(hc);
        if (r == -ENOMEM)
                return r;
        if (r == 0)
                ADD(d, DOCTOR_CONFIG, DIAG_OK, where, NULL,
                    "the hardware cache is current: logins read it (with the devices' max_mr_size)");
        else
                ADD(d, DOCTOR_CONFIG, r == -ENOENT ? DIAG_INFO : DIAG_WARNING, where, save,
                    "hardware cache: %s: logins with an auto rule probe sysfs and netlink themselves and do not know "
                    "the devices' max_mr_size",
                    hw_cache_strerror(r));
        return 0;
}

/* A policy that no stack applies. */
static int config_unused_policy(struct doc *d) {
        _cleanup_free_ char *fix = NULL;

        if (!d->in->policy_exists || d->module_in_any_stack || !d->stacks_seen)
                return 0;
        /* enable knows where (pam-auth-update's common-session, authselect's profile, a
         * service's own file), so the fix does not name a file of one distribution */
        if (!(fix = strf("rdmalimits%s%s enable --check: it names each stack's place for pam_rdmalimit (after the "
                         "last pam_limits) and the command that puts it there", d->in->root ? " --root " : "",
                         d->in->root ? d->in->root : "")))
                return -ENOMEM;
        ADD(d, DOCTOR_CONFIG, DIAG_ERROR, disp_rooted(d, d->in->policy_path), fix,
            "a policy exists, but pam_rdmalimit is in no PAM session stack: it is never applied");
        return 0;
}

int check_config(struct doc *d) {
        static doc_check_fn *const steps[] = { config_max, config_limits, config_policy, config_cache,
                                               config_unused_policy };
        return doc_run(d, steps, ELEMENTSOF(steps));
}
