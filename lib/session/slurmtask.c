/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The memlock of a Slurm job task (slurmtask.h): slurmd's limits, the plugin stack, the
 * policy's decision through the plugin's own rules, Slurm's propagation.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "doctor.h"
#include "escape.h"
#include "fsutil.h"
#include "macro.h"
#include "procfs.h"
#include "rlmodel.h"
#include "session.h"
#include "size.h"
#include "slurmtask.h"
#include "strv.h"

const char *slurmd_from_name(enum slurmd_from f) {
        static const char *const names[] = { [SLURMD_FROM_PID] = "pid", [SLURMD_FROM_RUNNING] = "running",
                                             [SLURMD_FROM_UNIT] = "unit", [SLURMD_FROM_ASSUMED] = "assumed" };
        return (unsigned)f < ELEMENTSOF(names) ? names[f] : "?";
}

const char *slurm_task_by_name(enum slurm_task_by b) {
        static const char *const names[] = { [SLURM_TASK_NO_TASK] = "no-task", [SLURM_TASK_PLUGIN] = "plugin",
                                             [SLURM_TASK_PROPAGATED] = "propagated", [SLURM_TASK_SLURMD] = "slurmd" };
        return (unsigned)b < ELEMENTSOF(names) ? names[b] : "?";
}

/* ------------------------------------------------------------------------------------ */
/* slurmd */

static int slurmd_from_process(pid_t pid, enum slurmd_from from, struct slurmd_info *s) {
        int r = session_service_from_pid(pid, &s->svc);
        if (r < 0)
                return r;
        s->from = from;
        snprintf(s->where, sizeof s->where, "/proc/%d/limits", (int)pid);
        snprintf(s->cap_where, sizeof s->cap_where, "/proc/%d/status (CapEff)", (int)pid);
        return 0;
}

int slurmd_find(pid_t *ret_pid) {
        return proc_daemon_find(proc_daemon_of("slurmd"), proc_systemd_manages(), ret_pid);
}

int slurmd_info_load(const char *root, pid_t pid, struct slurmd_info *ret) {
        struct slurmd_info s = {};
        pid_t found;
        int r;

        if (pid > 0) {
                r = slurmd_from_process(pid, SLURMD_FROM_PID, &s);
                if (r < 0)
                        return r;
                *ret = s;
                return 0;
        }
        if (!fs_root_is_set(root) && slurmd_find(&found) >= 0 && slurmd_from_process(found, SLURMD_FROM_RUNNING, &s) >= 0) {
                *ret = s;
                return 0;
        }
        /* no process to ask: the unit, and the capability a daemon is assumed to have */
        session_service_assume(root, NULL, &s.svc);
        snprintf(s.cap_where, sizeof s.cap_where, "assumed: %s",
                 fs_root_is_set(root) ? "a root daemon has it" : s.svc.cap_sys_resource ? "as this process, with it"
                                                                                     : "as this process, without it");
        r = session_service_unit(root, "slurmd.service", "slurmd", &s.svc, s.where, sizeof s.where);
        if (r < 0)
                return r;
        if (r > 0)
                s.from = SLURMD_FROM_UNIT;
        else {
                s.from = SLURMD_FROM_ASSUMED;
                snprintf(s.where, sizeof s.where, "assumed: no running slurmd and no slurmd.service unit; %s",
                         s.svc.source);
        }
        *ret = s;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* the task */

static void step(struct slurm_task *t, const char *source, const char *fmt, ...) _printf_(3, 4);
static void step(struct slurm_task *t, const char *source, const char *fmt, ...) {
        if (t->n_steps >= SLURM_TASK_STEPS_MAX)
                return;
        struct slurm_task_step *s = &t->steps[t->n_steps++];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->what, sizeof s->what, fmt, ap);
        va_end(ap);
        snprintf(s->source, sizeof s->source, "%s", source ? source : "");
}

static const char *pair_text(struct rl_pair p, char buf[static 2 * SIZE_FMT_MAX + 16]) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        snprintf(buf, 2 * SIZE_FMT_MAX + 16, "soft %s, hard %s", size_format(p.soft, a), size_format(p.hard, b));
        return buf;
}

/* The plugin's decision for the user (the same as login_decide(): groups through NSS as the
 * module decides them, the hardware when an `auto` rule may decide, policy_evaluate()):
 * 0 with t->matched, t->plugin_error set, or -ENOMEM. */
static const char *policy_file(const struct slurm_task_input *in) {
        return in->policy_file ? in->policy_file : in->policy->path;
}

static int plugin_decide(const struct slurm_task_input *in, const struct spank_line *l, struct slurm_task *t) {
        const struct id_user *u;
        _cleanup_(strv_freep) char **groups = NULL;
        size_t n = 0;
        int r;

        if (!in->policy) {
                t->plugin_error = true;
                step(t, l->conf ? l->conf : "the default policy path", "the plugin has no policy: %s",
                     in->policy_error ? in->policy_error : "it cannot be loaded");
                return 0;
        }
        r = ident_user(in->id, in->user, &u);
        /* a job carries its uid, and the plugin looks the user up by it (getpwuid()): with two
         * names for one uid, the name NSS gives that uid decides, as in the plugin */
        const struct id_user *by_uid;
        if (r >= 0 && (r = ident_user_by_uid(in->id, u->uid, &by_uid)) >= 0 && !streq(by_uid->name, u->name)) {
                char a[ESCAPE_NAME_MAX], b[ESCAPE_NAME_MAX];
                step(t, "the passwd entries (getpwuid())", "a job carries the uid %u, which the plugin looks up: "
                     "its user is %s, not %s", (unsigned)u->uid, str_escape(by_uid->name, a, sizeof a),
                     str_escape(u->name, b, sizeof b));
                u = by_uid;
        }
        if (r >= 0)
                r = policy_user_groups(in->policy, in->id, u, &groups, &n);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && policy_needs_hw(in->policy, u->name, (const char *const *)groups, n) && !in->hw)
                r = -ENODEV;
        if (r >= 0)
                r = policy_evaluate(in->policy, u->name, (const char *const *)groups, n, in->hw, &t->dec);
        if (r < 0) {
                t->plugin_error = true;
                step(t, policy_file(in), "the plugin has no decision for %s: %s", in->user,
                     r == -ENODEV ? "an auto rule needs the hardware, which cannot be read" : errno_text(r));
                return 0;
        }
        t->matched = t->dec.matched && !t->dec.untouched;
        return 0;
}

/* spank_rdmalimit sets memlock from slurmstepd's limits and removes SLURM_RLIMIT_MEMLOCK. */
static void plugin_apply(const struct slurm_task_input *in, const struct spank_line *l, struct slurm_task *t) {
        const struct lc_service *sd = &in->slurmd->svc;
        struct rl_pair cur = { sd->rl[RLIMIT_MEMLOCK].soft, sd->rl[RLIMIT_MEMLOCK].hard };
        struct rl_pair target = { t->dec.soft, t->dec.hard };
        char a[2 * SIZE_FMT_MAX + 16], b[2 * SIZE_FMT_MAX + 16], src[SLURM_TASK_TEXT_MAX];
        const struct policy_rule *rule = t->dec.rule;

        t->by = SLURM_TASK_PLUGIN;
        t->got = rl_after_module(cur, target, t->dec.lower, sd->cap_sys_resource, &t->eperm);
        t->soft_known = t->hard_known = sd->rl[RLIMIT_MEMLOCK].known;
        snprintf(src, sizeof src, "%s:%u", policy_file(in), rule->line);
        step(t, src, "policy rule %s %s asks %s%s", rule->user ? "user" : "group", rule->user ? rule->user : rule->group,
             pair_text(target, a), t->dec.lower ? " (lower = true)" : "");
        if (t->eperm)
                step(t, in->slurmd->cap_where,
                     "slurmstepd has no CAP_SYS_RESOURCE: its hard limit cannot rise above %s, the plugin sets the "
                     "closest value, %s", size_format(cur.hard, a), pair_text(t->got, b));
        else
                step(t, l->where, "task_init_privileged (root) sets %s from slurmstepd's %s", pair_text(t->got, a),
                     pair_text(cur, b));
        step(t, l->where, "the plugin removes SLURM_RLIMIT_MEMLOCK from the job's environment: set_user_limits() "
             "(ulimits.c _set_limit()) leaves memlock alone");
        snprintf(t->soft_source, sizeof t->soft_source, "spank_rdmalimit (%.200s), policy %.280s", l->where, src);
        snprintf(t->hard_source, sizeof t->hard_source, "%s", t->eperm ? in->slurmd->where : t->soft_source);
}

/* Slurm's own behaviour: slurmd's limits, and _set_limit() with the submit shell's soft. */
static void slurm_own(const struct slurm_task_input *in, struct slurm_task *t) {
        const struct lc_service *sd = &in->slurmd->svc;
        struct rl_pair cur = { sd->rl[RLIMIT_MEMLOCK].soft, sd->rl[RLIMIT_MEMLOCK].hard };
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];

        t->got = cur;
        t->soft_known = t->hard_known = sd->rl[RLIMIT_MEMLOCK].known;
        snprintf(t->soft_source, sizeof t->soft_source, "slurmd (%s)", in->slurmd->where);
        snprintf(t->hard_source, sizeof t->hard_source, "slurmd (%s)", in->slurmd->where);
        if (t->propagate != SLURM_PROP_YES) {
                t->by = SLURM_TASK_SLURMD;
                step(t, t->propagate_where, "MEMLOCK is not propagated: the task keeps slurmstepd's limits, slurmd's");
                return;
        }
        t->by = SLURM_TASK_PROPAGATED;
        t->depends_on_submit = true;
        if (!in->submit_known) {
                t->soft_known = false;
                step(t, in->submit_from, "set_user_limits() (ulimits.c _set_limit()), as the user: the soft limit "
                     "becomes the submit shell's, which is not known, at most slurmd's hard %s",
                     size_format(cur.hard, a));
                snprintf(t->soft_source, sizeof t->soft_source, "the submit shell (not known), at most slurmd's hard");
                return;
        }
        t->capped = in->submit_soft > cur.hard;
        t->got.soft = t->capped ? cur.hard : in->submit_soft;
        if (t->capped)
                step(t, in->submit_from, "set_user_limits() (ulimits.c _set_limit()), as the user: the submit shell's "
                     "soft %s is above the hard %s: Slurm lowers it to the hard limit (\"reducing req\", verbose level "
                     "of slurmd's log)", size_format(in->submit_soft, a), size_format(cur.hard, b));
        else
                step(t, in->submit_from, "set_user_limits() (ulimits.c _set_limit()), as the user: the soft limit "
                     "becomes the submit shell's %s (the hard limit stays)", size_format(in->submit_soft, a));
        if (t->capped)
                snprintf(t->soft_source, sizeof t->soft_source, "slurmd's hard limit (%.320s): the submit shell's "
                         "soft is above it", in->slurmd->where);
        else
                snprintf(t->soft_source, sizeof t->soft_source, "the submit shell (%s)", in->submit_from);
}

/* slurm.conf and the plugin stack: whether a task starts, and the line that loads the plugin. */
static int task_config(const struct slurm_task_input *in, struct slurm_task *t) {
        const struct plugstack *ps = in->stack;
        _cleanup_free_ char *what = NULL;
        const char *where = NULL;
        int r = slurm_conf_propagation(in->conf, &t->propagate, &what, &where);

        if (r < 0)
                return r;
        snprintf(t->propagate_what, sizeof t->propagate_what, "%s", what);
        snprintf(t->propagate_where, sizeof t->propagate_where, "%s", where ? where : "assumed: no slurm.conf");
        if (t->propagate == SLURM_PROP_BAD) {
                t->by = SLURM_TASK_NO_TASK;
                snprintf(t->cause, sizeof t->cause, "%s names a limit Slurm does not know: it refuses slurm.conf "
                         "(\"Bad PropagateResourceLimits\"), no daemon starts", what);
                step(t, t->propagate_where, "%s", t->cause);
                return 0;
        }
        step(t, t->propagate_where, "%s: %s", what,
             t->propagate == SLURM_PROP_YES ? "srun and sbatch put the submit shell's soft memlock in the job's "
                                              "environment (SLURM_RLIMIT_MEMLOCK)"
                                            : "the submit shell's memlock is not propagated");
        if (ps->other_fails) {
                t->by = SLURM_TASK_NO_TASK;
                snprintf(t->cause, sizeof t->cause, "the required plugin %s does not exist: Slurm cannot load the "
                         "plugin stack and fails every job step on this node", ps->other_fails);
                step(t, ps->other_fails_where, "%s", t->cause);
                return 0;
        }
        if (ps->fails >= 0) {
                const struct spank_line *l = &ps->lines[ps->fails];
                t->by = SLURM_TASK_NO_TASK;
                snprintf(t->cause, sizeof t->cause, "the required plugin %s does not exist: Slurm cannot load the "
                         "plugin stack and fails every job step on this node", l->plugin);
                step(t, l->where, "%s", t->cause);
                return 0;
        }
        t->plugin_line = ps->loads;
        if (ps->loads < 0)
                step(t, ps->walk.error ? ps->walk.where : ps->n_lines ? ps->lines[0].where : ps->file, "%s", ps->walk.error ? visit_strerror(ps->walk.error) :
                     ps->n_lines ? "spank_rdmalimit.so is named, but its file does not exist: Slurm skips the optional "
                                   "plugin" :
                     ps->exists ? "plugstack.conf does not name spank_rdmalimit.so: no plugin sets memlock"
                                : "no plugstack.conf: no plugin sets memlock");
        else
                step(t, ps->lines[ps->loads].where, "%s %s loads spank_rdmalimit (%s)%s%s",
                     ps->lines[ps->loads].required ? "required" : "optional", ps->lines[ps->loads].plugin,
                     ps->lines[ps->loads].so, ps->lines[ps->loads].args[0] ? ", arguments " : "",
                     ps->lines[ps->loads].args);
        return 0;
}

enum slurm_task_match slurm_task_check(const struct slurm_task *t, struct rl_pair live) {
        if (t->by != SLURM_TASK_NO_TASK && t->hard_known && !t->soft_known && t->depends_on_submit)
                return live.hard == t->got.hard ? SLURM_MATCH_HARD : SLURM_MATCH_NO;
        if (t->by != SLURM_TASK_NO_TASK && t->soft_known && t->hard_known && live.soft == t->got.soft &&
            live.hard == t->got.hard)
                return SLURM_MATCH_YES;
        return t->hard_known ? SLURM_MATCH_NO : SLURM_MATCH_UNKNOWN;
}

int slurm_task_model(const struct slurm_task_input *in_given, struct slurm_task *ret) {
        struct slurm_task t = { .plugin_line = -1 };
        struct slurm_task_input in_pam;
        const struct slurm_task_input *in = in_given;
        struct slurmd_info after_pam;
        char a[2 * SIZE_FMT_MAX + 16];
        int r = task_config(in, &t);

        if (r < 0)
                return r;
        if (t.by == SLURM_TASK_NO_TASK && t.cause[0]) {
                *ret = t;
                return 0;
        }
        const struct lc_service *sd = &in->slurmd->svc;
        step(&t, in->slurmd->where, "slurmstepd starts %s slurmd's memlock: %s (%s), %s CAP_SYS_RESOURCE",
             in->pam ? "with" : "each task with",
             sd->rl[RLIMIT_MEMLOCK].known ? pair_text((struct rl_pair){ sd->rl[RLIMIT_MEMLOCK].soft,
                                                                        sd->rl[RLIMIT_MEMLOCK].hard }, a) : "unknown",
             sd->source, sd->cap_sys_resource ? "with" : "without");
        if (in->pam && !in->pam->opens) {
                t.by = SLURM_TASK_NO_TASK;
                snprintf(t.cause, sizeof t.cause, "UsePAM=1: the PAM session \"slurm\" that slurmstepd opens fails "
                         "(%.300s): pam_setup() fails and Slurm fails the job step", in->pam->why);
                step(&t, in->pam->where, "%s", t.cause);
                *ret = t;
                return 0;
        }
        if (in->pam) {
                /* the tasks inherit slurmstepd's limits after its PAM session: the rest of the
                 * path starts from them */
                after_pam = *in->slurmd;
                after_pam.svc.rl[RLIMIT_MEMLOCK] = (struct lc_rl){ .known = in->pam->known, .soft = in->pam->got.soft,
                                                                   .hard = in->pam->got.hard };
                snprintf(after_pam.where, sizeof after_pam.where, "%s", in->pam->where);
                in_pam = *in;
                in_pam.slurmd = &after_pam;
                in = &in_pam;
                step(&t, in->pam->where, "UsePAM=1: slurmstepd opens the PAM session \"slurm\" as root before it forks "
                     "the tasks, which inherit its limits: memlock %s (%.300s)",
                     in->pam->known ? pair_text(in->pam->got, a) : "unknown", in->pam->why);
        }
        if (t.plugin_line >= 0) {
                const struct spank_line *l = &in->stack->lines[t.plugin_line];
                if ((r = plugin_decide(in, l, &t)) < 0)
                        return r;
                if (t.plugin_error && l->strict && l->required) {
                        t.by = SLURM_TASK_NO_TASK;
                        snprintf(t.cause, sizeof t.cause, "the plugin has no decision and is strict in a required "
                                 "line: slurm_spank_init fails and Slurm fails the job step");
                        step(&t, l->where, "%s", t.cause);
                        *ret = t;
                        return 0;
                }
                if (t.plugin_error)
                        step(&t, l->where, "the plugin logs the error and changes nothing%s: Slurm's behaviour",
                             l->strict ? " (strict, but Slurm ignores an optional plugin's error)" : "");
                else if (!t.dec.matched)
                        step(&t, policy_file(in), "no rule of the policy matches %s: the plugin changes nothing",
                             in->user);
                else if (t.dec.untouched)
                        step(&t, policy_file(in), "the matching rule's auto finds no RDMA/AF_XDP hardware and the "
                             "policy has no fallback: the plugin changes nothing");
                if (t.matched) {
                        plugin_apply(in, l, &t);
                        *ret = t;
                        return 0;
                }
        }
        slurm_own(in, &t);
        *ret = t;
        return 0;
}
