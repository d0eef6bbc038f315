/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, Slurm: a task gets slurmd's memlock (slurmd.service LimitMEMLOCK=), unless
 * PropagateResourceLimits (default ALL) copies the submit host's soft limit into it, which
 * PropagateResourceLimitsExcept=MEMLOCK prevents; pam_slurm_adopt moves ssh logins into a job
 * but leaves their limits to the sshd stack, must be the last account module, and conflicts
 * with pam_systemd (Slurm's documentation of slurm.conf and pam_slurm_adopt).  slurm.conf and
 * plugstack.conf are read through lib/host/slurmconf.h, the readers explain --slurm uses:
 * whether plugstack.conf loads spank_rdmalimit.so (missing on a compute node with the hardware
 * the policy counts, or naming a file that does not exist), and each running job step's first
 * task against slurm_task_model() (lib/session/slurmtask.h) with the submit shell's limit unknown.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor-internal.h"
#include "hwcache.h"
#include "pamstack.h"
#include "procfs.h"
#include "status.h"
#include "slurmconf.h"
#include "session.h"
#include "slurmtask.h"
#include "visit.h"
#include "fsutil.h"

/* Slurm's own parser (22.05, s_p_parse_file()) has no cycle check: measured with sinfo on a
 * slurm.conf that includes itself, it reads the file again until it runs out of descriptors */
#define SLURM_CYCLE_EFFECT                                                                            \
        "Slurm reads the file again and again until it runs out of file descriptors, then refuses " \
        "slurm.conf ('Unable to process configuration file')"

/* plugin: spank_rdmalimit loads and the stack does not fail (plugstack_read()) */
static int slurm_check_propagation(struct doc *d, const struct slurm_conf *c, bool plugin) {
        _cleanup_free_ char *what = NULL;
        const char *where;
        enum slurm_propagate prop;
        int r = slurm_conf_propagation(c, &prop, &what, &where);

        if (r < 0)
                return r;
        if (prop == SLURM_PROP_BAD)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_ERROR, "slurm-propagate-bad", where,
                                  "name limits as Slurm spells them: ALL, NONE, or a list of CPU, FSIZE, DATA, "
                                  "STACK, CORE, RSS, NPROC, NOFILE, MEMLOCK, AS (upper case)",
                                  "slurm.conf: %s: Slurm does not know a name in it and refuses slurm.conf "
                                  "(\"Bad PropagateResourceLimits\"): no Slurm daemon starts", what);
        /* srun --propagate=MEMLOCK (a U-prefixed value) is applied whatever slurm.conf says
         * (ulimits.c _set_limit()); spank_rdmalimit removes it from the job's environment */
        if (prop == SLURM_PROP_NO)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_OK, "slurm-keeps-slurmd-memlock",
                                  where, NULL, "slurm.conf: %s: tasks get slurmd's memlock, not "
                                  "the submit host's%s", what,
                                  plugin ? "" : " (unless a user runs srun --propagate=MEMLOCK: then his own soft "
                                                "limit, up to slurmd's hard)");
        ADD_ID(d, DOCTOR_SLURM, DIAG_WARNING, "slurm-propagates-memlock", where,
               "set PropagateResourceLimitsExcept=MEMLOCK in slurm.conf (or take MEMLOCK out of "
               "PropagateResourceLimits), then scontrol reconfigure",
               plugin ? "slurm.conf: %s: srun and sbatch copy the submit host's soft memlock into every task: "
                        "spank_rdmalimit sets the policy's value for the users a rule matches, the others get the "
                        "submit host's (a login node's session often has 64 KiB or 8 MiB), not slurmd's"
                      : "slurm.conf: %s: srun and sbatch copy the submit host's soft memlock into every task (a login "
                        "node's session often has 64 KiB or 8 MiB), so slurmd's own memlock does not reach the jobs",
               what);
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* pam_slurm_adopt in sshd's account stack (pamstack.h: the one reader of pam.d, libpam's
 * includes and their failures) */

/* pam_systemd in sshd's session stack moves the adopted session out of the job. */
static int slurm_check_pam_systemd(struct doc *d) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        int r = pam_stack_load(d->in->root, "sshd", &st);

        if (r < 0)
                return r;
        long i = st.error || st.include_error ? -1 : pam_stack_find(&st, "pam_systemd");
        if (i < 0)
                return 0;
        _cleanup_free_ char *where = strf("%s:%u", st.v[i].file, st.v[i].line);
        if (!where)
                return -ENOMEM;
        return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-pam-systemd", where,
                          "take pam_systemd out of the files sshd includes, and stop and mask "
                          "systemd-logind, as Slurm's pam_slurm_adopt documentation says",
                          "sshd: pam_systemd in the session stack conflicts with pam_slurm_adopt: "
                          "it moves the adopted ssh session out of the job");
}

static int slurm_check_adopt(struct doc *d) {
        _cleanup_(pam_stack_clear) struct pam_stack a = {};
        _cleanup_free_ char *where = NULL, *last = NULL;
        int r = pam_stack_load_phase(d->in->root, "sshd", "account", &a);
        long at;

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        if ((at = pam_stack_find(&a, "pam_slurm_adopt")) < 0)
                return 0;
        if (!(where = strf("%s:%u", a.v[at].file, a.v[at].line)) ||
            !(last = strf("%s:%u", a.v[a.n - 1].file, a.v[a.n - 1].line)))
                return -ENOMEM;
        if (a.include_error)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-unknown", a.include_where, NULL,
                                  "sshd: %s (the account stack); where pam_slurm_adopt runs in it is not known",
                                  pam_include_strerror(a.include_error));
        r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-adopt", where, NULL,
                       "sshd: pam_slurm_adopt adopts ssh logins into the user's job (its cgroup), not its "
                       "limits: an adopted session's memlock comes from sshd's session stack (pam_limits, "
                       "pam_rdmalimit), not from slurmd");
        /* after it: a module, or libpam's stand-in for an included file it cannot read, which fails */
        if (r >= 0 && (size_t)at + 1 < a.n)
                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-not-last", where,
                               "make pam_slurm_adopt the last module of sshd's account stack (Slurm's "
                               "pam_slurm_adopt documentation)",
                               "sshd: %s%s (%s) runs after pam_slurm_adopt in the account stack", a.v[a.n - 1].name,
                               a.v[a.n - 1].fails ? " (a file it cannot read: a step that always fails)" : "", last);
        if (r >= 0)
                r = slurm_check_pam_systemd(d);
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* spank_rdmalimit in plugstack.conf */

/* plugstack.conf's includes cycle, or go past the walk's bound. */
static int plugstack_walk_report(struct doc *d, const struct visit *v) {
        return walk_finding(d, DOCTOR_SLURM, "slurm-plugstack-include-cycle", "slurm-plugstack-include-bound",
                            DIAG_WARNING, v->error, v->where, "include", "doctor reads no more of plugstack.conf",
                            "plugstack.conf",
                            "Slurm follows the include again and again (it has no cycle check) until it fails");
}

/* No line loads the plugin: on a compute node with the hardware the policy counts and rules to
 * apply, Slurm's tasks do not get the policy. */
static int plugin_absent(struct doc *d, const struct plugstack *ps, bool compute) {
        _cleanup_(host_auto_clear) struct host_auto a = {};
        _cleanup_free_ char *fix = NULL;
        const struct policy *p = d->in->policy;
        int r;

        if (!compute || !p || p->n_rules == 0)
                return 0;
        if ((r = host_auto(d, &a)) < 0)
                return r;
        if (!a.hw_known || (a.n_rdma == 0 && a.hw_units == 0))
                return 0;
        if (!(fix = strf("add the line 'optional spank_rdmalimit.so' to %s (the plugin is installed in %s, "
                         "Slurm's PluginDir), then scontrol reconfigure", ps->file, SPANKPLUGINDIR)))
                return -ENOMEM;
        return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-spank-missing", ps->file, fix,
                          "%s: spank_rdmalimit.so is not loaded, on a node with RDMA/AF_XDP hardware (%s: %zu "
                          "RDMA device%s; `auto` counts %u active port%s and RX queue%s) and a policy with %zu "
                          "rule%s: Slurm job tasks never pass through PAM, so they do not get the policy (they get "
                          "slurmd's or the submit shell's memlock)",
                          ps->exists ? ps->file : "no plugstack.conf",
                          d->in->root ? "the host running doctor, not the tree" : "this host", a.n_rdma,
                          a.n_rdma == 1 ? "" : "s", a.hw_units, a.hw_units == 1 ? "" : "s",
                          a.hw_units == 1 ? "" : "s", p->n_rules, p->n_rules == 1 ? "" : "s");
}

static int plugin_lines(struct doc *d, const struct plugstack *ps) {
        for (size_t i = 0; i < ps->n_lines; i++) {
                const struct spank_line *l = &ps->lines[i];
                _cleanup_free_ char *fix = NULL;
                if (l->so)
                        continue;
                if (!(fix = strf("install the plugin (Debian: slurm-spank-rdmalimit) or correct the path; a name "
                                 "without '/' is looked for in PluginDir (%s)", ps->plugindir)))
                        return -ENOMEM;
                ADD_ID(d, DOCTOR_SLURM, l->required ? DIAG_ERROR : DIAG_WARNING, "slurm-spank-so-missing", l->where,
                       fix, "plugstack.conf names %s, which does not exist: %s", l->plugin,
                       l->required ? "a required plugin that cannot be loaded makes Slurm fail every job step on "
                                     "this node"
                                   : "Slurm skips the optional plugin, and tasks do not get the policy");
                if ((long)i == ps->fails)
                        break;
        }
        if (ps->other_fails) {
                _cleanup_free_ char *fix = NULL;
                if (!(fix = strf("install it, make the line 'optional', or remove it; a name without '/' is looked "
                                 "for in PluginDir (%s)", ps->plugindir)))
                        return -ENOMEM;
                ADD_ID(d, DOCTOR_SLURM, DIAG_ERROR, "slurm-plugstack-required-missing", ps->other_fails_where, fix,
                       "plugstack.conf requires %s, which does not exist: Slurm cannot load its plugin stack and "
                       "fails every job step on this node%s", ps->other_fails,
                       ps->loads >= 0 ? " (spank_rdmalimit included)" : "");
                return 0;
        }
        if (ps->loads < 0)
                return 0;
        const struct spank_line *l = &ps->lines[ps->loads];
        ADD_ID(d, DOCTOR_SLURM, DIAG_OK, "slurm-spank", l->where, NULL,
               "plugstack.conf loads spank_rdmalimit (%s%s%s): job tasks get the policy of %s", l->so,
               l->args[0] ? " " : "", l->args, l->conf ? l->conf : "the default policy file");
        if (ps->n_lines > 1)
                ADD_ID(d, DOCTOR_SLURM, DIAG_INFO, "slurm-spank-twice", l->where, "name the plugin on one line",
                       "plugstack.conf names spank_rdmalimit.so on %zu lines: Slurm loads it once per line (its "
                       "duplicate check compares pointers), the plugin keeps one state: this last line's "
                       "arguments decide", ps->n_lines);
        return 0;
}

/* Each running job step: its first task's memlock against explain --slurm's prediction. */
static int slurm_check_steps(struct doc *d, const struct slurm_conf *c, const struct plugstack *ps);

static int slurm_check_plugin(struct doc *d, const struct slurm_conf *c, const struct plugstack *ps, bool compute) {
        int r;

        if (ps->walk.error == VISIT_ERR_CYCLE || ps->walk.error == VISIT_ERR_BUDGET)
                return plugstack_walk_report(d, &ps->walk);
        if (ps->error)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-plugstack-unreadable", ps->file, NULL,
                                  "plugstack.conf cannot be read (%s): Slurm fails to load its plugin stack",
                                  errno_text(ps->error));
        r = plugin_lines(d, ps);
        if (r >= 0 && ps->loads < 0 && ps->fails < 0 && !ps->other_fails && ps->n_lines == 0)
                r = plugin_absent(d, ps, compute);
        if (r >= 0)
                r = slurm_check_steps(d, c, ps);
        return r;
}

/* The running slurmd's memlock (slurmd_info_load(), as explain --slurm reads it): every task
 * starts from it.  Where it is not slurmd.service's LimitMEMLOCK=, doctor's line about the unit
 * is not what the tasks get: said, with the fix. */
static int slurm_check_running(struct doc *d) {
        struct slurmd_info sd;
        struct lc_service unit = {};
        char pair[PAIR_MAX], pair2[PAIR_MAX], where[sizeof sd.where];
        int r;

        if (d->in->root || slurmd_info_load(NULL, 0, &sd) < 0 || sd.from != SLURMD_FROM_RUNNING ||
            !sd.svc.rl[RLIMIT_MEMLOCK].known)
                return 0;
        const struct lc_rl *m = &sd.svc.rl[RLIMIT_MEMLOCK];
        r = session_service_unit(NULL, "slurmd.service", "slurmd", &unit, where, sizeof where);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        const struct lc_rl *u = &unit.rl[RLIMIT_MEMLOCK];
        if (r > 0 && u->known && (u->soft != m->soft || u->hard != m->hard))
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurmd-running-memlock", sd.where,
                                  "restart slurmd from its unit (systemctl restart slurmd)",
                                  "the running slurmd has memlock %s, not slurmd.service's %s (%s): it was started "
                                  "another way, or before the unit changed; Slurm tasks start from the running "
                                  "one's", fmt_pair(m->soft, m->hard, pair), fmt_pair(u->soft, u->hard, pair2),
                                  where);
        return doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurmd-running-memlock", sd.where, NULL,
                          "the running slurmd has memlock %s: Slurm tasks start from it",
                          fmt_pair(m->soft, m->hard, pair));
}

/* ------------------------------------------------------------------------------------ */
/* running job steps (the running system only) */

/* Is pid a task slurmstepd forked: its parent is root's slurmstepd (the step's first
 * processes; their children may have changed their own limits). */
static bool step_task(pid_t pid) {
        _cleanup_free_ char *st = NULL, *pst = NULL;
        uint64_t ppid, uid;
        size_t l = 0;
        const char *name;

        if (proc_read(pid, "status", DOC_TEXT_MAX, &st) < 0 || proc_field_u64(st, "PPid", &ppid) < 0 || ppid <= 1 ||
            proc_read((pid_t)ppid, "status", DOC_TEXT_MAX, &pst) < 0)
                return false;
        name = proc_field(pst, "Name", &l);
        return name && l == strlen("slurmstepd") && memcmp(name, "slurmstepd", l) == 0 &&
               proc_field_u64(pst, "Uid", &uid) >= 0 && uid == 0;
}

/* The policy the loading line's plugin reads, if it is the one doctor loaded: NULL otherwise. */
static const struct policy *step_policy(struct doc *d, const struct plugstack *ps, const char **ret_conf) {
        const char *conf = ps->loads >= 0 && ps->lines[ps->loads].conf ? ps->lines[ps->loads].conf
                                                                         : POLICY_PATH;
        *ret_conf = conf;
        if (ps->loads < 0)
                return d->in->policy;
        return d->in->policy_name && streq(d->in->policy_name, conf) ? d->in->policy : NULL;
}

/* The cache the loading line's plugin reads (its cache=, else the default; NULL: none), and
 * whether it is the one doctor's `auto` reads (pam_choose_cache()). */
static bool step_cache_is_doctors(const struct doc *d, const struct plugstack *ps, const char **ret_cache) {
        const struct spank_line *l = ps->loads >= 0 ? &ps->lines[ps->loads] : NULL;
        const char *c = l && l->cache_given ? l->cache : HW_CACHE_PATH;
        *ret_cache = c;
        return c && d->cache ? streq(c, d->cache) : c == d->cache;
}

/* Predict the task of p's user (the submit shell's limit unknown) and compare. */
static int step_compare(struct doc *d, const struct slurm_task_input *base, const struct status_proc *p) {
        _cleanup_free_ char *where = strf("%s (pid %d)", p->origin_name, (int)p->pid);
        struct slurm_task_input in = *base;
        const struct id_user *u;
        struct slurm_task t;
        char got[PAIR_MAX], want[PAIR_MAX], hard[SIZE_FMT_MAX];
        int r;

        if (!where)
                return -ENOMEM;
        if (ident_user_by_uid(d->in->id, p->uid, &u) < 0)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-step-user-unknown", where, NULL,
                                  "its uid %u has no user name here: nothing to predict", (unsigned)p->uid);
        in.user = u->name;
        /* UsePAM=1: the tasks start from slurmstepd's PAM session "slurm" */
        struct slurm_pam pam;
        bool use_pam = false;
        const char *pam_where;
        r = d->in->slurm_pam_of ? d->in->slurm_pam_of(u->name, base->conf, &base->slurmd->svc, &pam, &use_pam,
                                                       d->in->session_data)
                                : slurm_conf_usepam(base->conf, &pam_where) ? -EINVAL : 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-step-pam-unknown", where, NULL,
                                  "user %s: memlock %s; UsePAM=1 and the PAM session \"slurm\" slurmstepd opens "
                                  "cannot be modelled: not compared", u->name, fmt_pair(p->memlock.soft,
                                                                                       p->memlock.hard, got));
        in.pam = use_pam ? &pam : NULL;
        if ((r = slurm_task_model(&in, &t)) < 0)
                return r == -ENOMEM ? r : 0;
        fmt_pair(p->memlock.soft, p->memlock.hard, got);
        fmt_pair(t.got.soft, t.got.hard, want);
        switch (slurm_task_check(&t, p->memlock)) {
        case SLURM_MATCH_HARD:
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_OK, "slurm-step-submit-unknown", where, NULL,
                                  "user %s: memlock %s; hard %s as explain --slurm predicts (%s); the soft "
                                  "limit is the submit shell's, which doctor does not know: not compared",
                                  u->name, got, size_format(t.got.hard, hard), slurm_task_by_name(t.by));
        case SLURM_MATCH_YES:
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_OK, "slurm-step-memlock", where, NULL,
                                  "user %s: memlock %s, as explain --slurm predicts (%s)", u->name, got,
                                  slurm_task_by_name(t.by));
        case SLURM_MATCH_UNKNOWN:
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-step-unknown", where, NULL,
                                  "user %s: memlock %s; slurmd's limits are not known: nothing to compare", u->name,
                                  got);
        case SLURM_MATCH_NO:
                break;
        }
        _cleanup_free_ char *fix = strf("rdmalimits explain %s --slurm shows each step; a step started before "
                                        "slurmd, slurm.conf, plugstack.conf or the policy changed keeps what it got",
                                        u->name);
        if (!fix)
                return -ENOMEM;
        if (t.by == SLURM_TASK_NO_TASK)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-step-mismatch", where, fix,
                                  "MISMATCH: user %s: memlock %s, but explain --slurm predicts that no task starts "
                                  "(%s)", u->name, got, t.cause);
        return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-step-mismatch", where, fix,
                          "MISMATCH: user %s: memlock %s, explain --slurm predicts %s%s (%s), unless the task "
                          "changed its own limits", u->name, got, t.soft_known ? "" : "hard ",
                          t.soft_known ? want : size_format(t.got.hard, hard), slurm_task_by_name(t.by));
}

static int slurm_check_steps(struct doc *d, const struct slurm_conf *c, const struct plugstack *ps) {
        struct status_options o = { .threshold = UINT64_MAX, .procs_only = true };   /* pid, uid, limits, origin */
        _cleanup_(status_report_clear) struct status_report rep = {};
        _cleanup_(strv_clear) struct strv seen = {};
        struct slurmd_info sd;
        const char *conf;
        int r;

        if (d->in->root)
                return 0;
        if ((r = status_collect(&o, &rep)) < 0)
                return r == -ENOMEM ? r : 0;
        const struct policy *p = step_policy(d, ps, &conf);
        struct slurm_task_input in = {
                .conf = c, .stack = ps, .slurmd = &sd, .submit_from = "not known to doctor (the submit shell's)",
                .id = d->in->id, .policy = p, .policy_error = "not the policy doctor read",
        };
        bool have_sd = false;
        for (size_t i = 0; i < rep.n_procs && r >= 0; i++) {
                const struct status_proc *sp = &rep.procs[i];
                if (sp->origin != CGROUP_O_SLURM || !sp->limits_known || streq(sp->comm, "slurmstepd") ||
                    !strstr(sp->origin_name, "/step_") || strstr(sp->origin_name, "/step_extern") ||
                    strv_contains(seen.v, sp->origin_name) || !step_task(sp->pid))
                        continue;
                if ((r = strv_push(&seen, sp->origin_name)) < 0)
                        break;
                if (ps->loads >= 0 && !p) {
                        r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-step-policy-other", sp->origin_name,
                                       NULL, "the plugin reads the policy %s, not the one doctor read: run doctor "
                                       "--conf %s to compare the running job steps", conf, conf);
                        break;
                }
                const char *cache;
                if (p && policy_uses_hw(p) && ((r = pam_choose_cache(d)) < 0 || !step_cache_is_doctors(d, ps, &cache))) {
                        if (r >= 0)
                                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-step-cache-other", sp->origin_name,
                                               NULL, "the plugin reads the hardware cache %s, not the one doctor read: "
                                               "run doctor --cache '%s' to compare the running job steps",
                                               cache ? cache : "none (cache=)", cache ? cache : "");
                        break;
                }
                if (!have_sd && (r = slurmd_info_load(NULL, 0, &sd)) < 0)
                        break;
                have_sd = true;
                in.hw = p ? need_hw(d) : NULL;
                r = step_compare(d, &in, sp);
        }
        return r;
}

/* slurm.conf's includes cycle, or go past the walk's bound: PropagateResourceLimits is not known. */
static int slurm_walk_report(struct doc *d, const struct visit *v) {
        return walk_finding(d, DOCTOR_SLURM, "slurm-include-cycle", "slurm-include-bound", DIAG_WARNING, v->error, v->where, "Include",
                            "doctor reads no more of slurm.conf", "slurm.conf", SLURM_CYCLE_EFFECT);
}

int check_slurm(struct doc *d) {
        static const struct daemon_unit slurmd = {
                .unit = "slurmd.service", .short_name = "slurmd", .group = DOCTOR_SLURM,
                .inherits = "Slurm tasks get it (a slurmd started from the unit) unless PropagateResourceLimits "
                            "copies the submit host's",
                .id_low = "slurmd-memlock-low", .id_ok = "slurmd-memlock",
                .fix_value = SIZE_INFINITY,
                .fix_why = " (Slurm's own slurmd.service sets LimitMEMLOCK=infinity)",
        };
        _cleanup_(slurm_conf_clear) struct slurm_conf c = {};
        _cleanup_(plugstack_clear) struct plugstack ps = {};
        bool found = false;
        int r = slurm_conf_read(d->in->root, d->in->slurm_conf, &c);

        if (r < 0)
                return r;
        if (c.path && (r = plugstack_read(d->in->root, &c, &ps)) < 0)
                return r;
        if (c.walk.error == VISIT_ERR_CYCLE || c.walk.error == VISIT_ERR_BUDGET)
                r = slurm_walk_report(d, &c.walk);
        else if (c.error)
                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, NULL, c.file, NULL,
                               "slurm.conf cannot be read (%s)", errno_text(c.error));
        else if (c.path)
                r = slurm_check_propagation(d, &c, ps.loads >= 0 && ps.fails < 0 && !ps.other_fails && !ps.error);
        if (r < 0 || (r = daemon_unit_check(d, &slurmd, &found)) < 0 || (r = slurm_check_running(d)) < 0)
                return r;
        if (c.path && !found &&
            (r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurmd-no-unit", c.file, NULL,
                            "no slurmd.service: not a compute node, or slurmd is started another "
                            "way (its memlock is then that of whatever starts it)")) < 0)
                return r;
        pid_t slurmd_pid;
        bool compute = found || (!d->in->root && slurmd_find(&slurmd_pid) >= 0);
        if (c.path && (r = slurm_check_plugin(d, &c, &ps, compute)) < 0)
                return r;
        return slurm_check_adopt(d);
}
