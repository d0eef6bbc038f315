/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spank_rdmalimit: the policy of /etc/security/rdmalimit.conf for the tasks of Slurm jobs, the
 * same decision as pam_rdmalimit (lib/login/apply.c), applied where slurmstepd starts a task.
 *
 *   plugstack.conf:  optional spank_rdmalimit.so [conf=PATH] [cache=PATH] [strict] [quiet] [debug]
 *
 * In slurmstepd (the remote context) only:
 *   slurm_spank_init                  (slurmstepd, root, once per step on this node): the job's
 *                                     uid (S_JOB_UID), its user and groups through NSS, the
 *                                     hardware, the policy: the decision, kept for the tasks.
 *   slurm_spank_task_init_privileged  (each task's child, root, before privileges are dropped):
 *                                     setrlimit(RLIMIT_MEMLOCK) as the module does (never lower
 *                                     unless the policy says `lower`; the closest value on
 *                                     EPERM), then SLURM_RLIMIT_MEMLOCK out of the job's
 *                                     environment (spank_unsetenv), so that set_user_limits(),
 *                                     which slurmstepd runs last before exec, does not put the
 *                                     submit shell's soft limit back (with or without the `U` of
 *                                     srun --propagate).
 *   slurm_spank_task_init             (the same child, as the user, its stdio set up): a
 *                                     shortfall told on srun's stderr (unless quiet).
 * A user no rule matches, an `auto` without hardware and no fallback, or a policy error: nothing
 * is changed (Slurm's own behaviour).  With `strict` an error is returned to Slurm, which fails
 * the step (or the task) only for a `required` plugin: an `optional` one's errors are ignored
 * (_do_call_stack() in src/common/plugstack.c, 22.05, and src/common/spank.c, 25.11).
 *
 * Trust: the job's environment is the user's.  Nothing here reads it (no getenv, no
 * spank_getenv); the one variable touched is removed, never read.  No user option is
 * registered, so nothing a user passes to srun reaches the decision.  No RDMA library is loaded.
 *
 * State: slurmstepd runs one step; the decision made in slurm_spank_init() is kept in this
 * process's memory and inherited by the forked task children.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "apply.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "macro.h"
#include "policy.h"
#include "size.h"

#define PREFIX "spank_rdmalimit: "

#pragma GCC visibility push(default)
SPANK_PLUGIN(rdmalimit, 1);
int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av);
int slurm_spank_task_init(spank_t sp, int ac, char **av);
#pragma GCC visibility pop

/* What the step decided (slurm_spank_init) and what this task got (task_init_privileged). */
static struct {
        struct login_args a;
        char tag[64];                  /* "job=12.0" */
        bool decided;                  /* a LOGIN_APPLY decision */
        struct login_decision d;
        bool applied;
        struct login_applied ap;
} state;

/* Messages from local task 0 are the step's line; the other tasks' go to debug. */
struct front_data {
        const struct login_args *a;
        int task;
};

static void spank_log_v(void *data, int prio, const char *fmt, va_list ap) {
        const struct front_data *fd = data;
        char msg[2048];

        vsnprintf(msg, sizeof msg, fmt, ap);
        if (prio == LOG_DEBUG) {
                if (fd->a->debug)
                        slurm_info(PREFIX "%s", msg);
                else
                        slurm_debug(PREFIX "%s", msg);
        } else if (prio != LOG_ERR && fd->task > 0)
                slurm_debug(PREFIX "%s", msg);
        else if (prio == LOG_ERR)
                slurm_error(PREFIX "%s", msg);
        else
                slurm_info(PREFIX "%s%s", prio == LOG_WARNING ? "warning: " : "", msg);
}

/* the end of the shortfall warning: slurmd's hard limit, which slurmstepd and the task have */
static void spank_cause(void *data, const char *got_hard, const char *fix, char *buf, size_t size) {
        snprintf(buf, size, "slurmstepd (task pid %d) cannot raise its hard memlock limit above %s, slurmd's "
                 "(it lacks CAP_SYS_RESOURCE); fix: give slurmd LimitMEMLOCK=%s "
                 "(rdmalimits apply --unit slurmd.service), or start it with a higher hard limit, then restart slurmd",
                 (int)getpid(), got_hard, fix);
}

static void parse_args(int ac, char **av, struct login_args *a) {
        login_args_init(a);
        for (int i = 0; i < ac; i++)
                if (!login_arg(a, av[i])) {
                        char e[ESCAPE_NAME_MAX];
                        slurm_error(PREFIX "unknown option: %s, ignoring", str_escape(av[i], e, sizeof e));
                }
}

/* "job=12.0", "job=12.batch" */
static void step_tag(spank_t sp, char *buf, size_t size) {
        uint32_t job = 0, step = 0;
        const char *name = NULL;

        if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
            spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
                snprintf(buf, size, "job=?");
                return;
        }
        name = step == SLURM_BATCH_SCRIPT ? "batch" : step == SLURM_EXTERN_CONT ? "extern" :
               step == SLURM_INTERACTIVE_STEP ? "interactive" : NULL;
        if (name)
                snprintf(buf, size, "job=%u.%s", (unsigned)job, name);
        else
                snprintf(buf, size, "job=%u.%u", (unsigned)job, (unsigned)step);
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
        struct front_data fd = { .a = &state.a, .task = 0 };
        const struct login_front f = { .log = spank_log_v, .cause = spank_cause, .data = &fd, .tag = state.tag };
        uid_t uid;
        int r;

        if (!spank_remote(sp))
                return 0;
        /* Two plugstack lines that load this plugin share this copy (one dlopen handle) and call
         * this hook once each: the last line's decides, as explain --slurm says, even when it
         * fails (an earlier line's decision would otherwise be applied) */
        state.decided = state.applied = false;
        parse_args(ac, av, &state.a);
        step_tag(sp, state.tag, sizeof state.tag);
        if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
                slurm_error(PREFIX "%s: cannot get the job's uid: memlock left as Slurm sets it", state.tag);
                return state.a.strict ? -1 : 0;
        }
        const struct login_opts o = { .conf = state.a.conf, .cache = state.a.cache, .debug = state.a.debug };
        r = login_decide(&f, &o, NULL, uid, &state.d);     /* it logs its failure */
        if (r < 0) {
                if (state.a.strict)
                        slurm_error(PREFIX "%s: no decision (%s): strict: an error for Slurm (it fails the step "
                                    "when plugstack.conf says required)", state.tag, errno_text(r));
                return state.a.strict ? -1 : 0;
        }
        state.decided = state.d.outcome == LOGIN_APPLY;
        return 0;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) {
        struct front_data fd = { .a = &state.a, .task = 0 };
        const struct login_front f = { .log = spank_log_v, .cause = spank_cause, .data = &fd, .tag = state.tag };
        spank_err_t e;
        int r;

        if (!state.decided)
                return 0;
        if (spank_get_item(sp, S_TASK_ID, &fd.task) != ESPANK_SUCCESS)
                fd.task = 0;
        r = login_apply(&f, &state.d, &state.ap);          /* it logs the one line */
        if (r < 0)
                return state.a.strict ? -1 : 0;
        state.applied = true;
        /* set_user_limits() would set the submit shell's soft limit from it after every hook */
        e = spank_unsetenv(sp, "SLURM_RLIMIT_MEMLOCK");
        if (e != ESPANK_SUCCESS) {
                slurm_error(PREFIX "%s: cannot remove SLURM_RLIMIT_MEMLOCK from the job's environment: %s: "
                            "Slurm may set the submit host's soft limit", state.d.who, spank_strerror(e));
                return state.a.strict ? -1 : 0;
        }
        return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
        char text[256];
        int task = 0;

        if (!state.applied || state.ap.outcome != LOGIN_PARTIAL || state.a.quiet)
                return 0;
        if (spank_get_item(sp, S_TASK_ID, &task) == ESPANK_SUCCESS && task > 0)
                return 0;
        /* the task's stderr is srun's now: error() reaches the user */
        slurm_error("rdmalimit: %s", login_shortfall_text(&state.d, &state.ap, "slurmd", text, sizeof text));
        return 0;
}
