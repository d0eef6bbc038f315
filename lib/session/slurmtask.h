/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The memlock a Slurm job task of a user starts with on this node: the one computation behind
 * `explain USER --slurm` and doctor's comparison of running job steps.  Library code: nothing
 * printed.
 *
 * What it models (read in SchedMD's sources, tags slurm-22-05-8-1 and slurm-25-11-7-1, where
 * these parts are the same; spank/spank_rdmalimit.c for the plugin):
 *   1. slurmstepd is started by slurmd and has slurmd's limits and capabilities; slurmd itself
 *      changes no memlock (src/slurmd/slurmd/slurmd.c sets only CPU and CORE).
 *   2. srun (and sbatch) put the submit shell's soft limit in the job's environment as
 *      SLURM_RLIMIT_MEMLOCK when slurm.conf propagates MEMLOCK (srun_job.c _set_rlimit_env();
 *      with srun --propagate the value is prefixed `U`: not modelled, the flag of slurm.conf is).
 *   3. In each task's child, as root: spank_rdmalimit's task_init_privileged sets memlock from
 *      slurmstepd's limits towards the policy's decision (lib/login/rlimit.c rl_module_want(),
 *      rl_module_closest() when the hard limit cannot rise: no CAP_SYS_RESOURCE) and removes
 *      SLURM_RLIMIT_MEMLOCK from the job's environment.
 *   4. Privileges dropped for good (mgr.c _become_user(): setreuid to the user), then last
 *      before execve set_user_limits() -> _set_limit() (src/slurmd/slurmstepd/ulimits.c): when
 *      the variable is there and slurm.conf propagates MEMLOCK, the soft limit becomes its
 *      value, lowered to the hard limit when above it (verbose() "reducing req:... to max:..."
 *      in slurmd's log); nothing when it equals the current soft limit; the hard limit stays.
 *      So a task of a user the plugin does not decide for gets min(submit soft, slurmd's hard)
 *      and slurmd's hard, or slurmd's limits when MEMLOCK is not propagated.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw.h"
#include "ident.h"
#include "limitsconf.h"
#include "policy.h"
#include "rlimit.h"
#include "slurmconf.h"

#define SLURMD_EXE "/usr/sbin/slurmd"

enum slurmd_from {
        SLURMD_FROM_PID,             /* the process given (explain --pid) */
        SLURMD_FROM_RUNNING,         /* the running slurmd (SLURMD_EXE, root, not under --root) */
        SLURMD_FROM_UNIT,            /* slurmd.service as the systemd model computes it */
        SLURMD_FROM_ASSUMED,         /* neither: PID 1's limits, assumed */
};
const char *slurmd_from_name(enum slurmd_from f);   /* "pid", "running", "unit", "assumed" */

/* What slurmstepd starts each task with: slurmd's limits and CAP_SYS_RESOURCE. */
struct slurmd_info {
        enum slurmd_from from;
        struct lc_service svc;       /* its memlock, CAP_SYS_RESOURCE, svc.source: the process or the
                                      * assumption */
        char where[320];             /* where its memlock comes from: "/proc/PID/limits", the unit's
                                      * FILE:LINE, "assumed: ..." */
        char cap_where[256];         /* where CAP_SYS_RESOURCE comes from */
};

/* The running slurmd: proc_daemon_find()'s (root's, its executable SLURMD_EXE or the file
 * that link names (Debian: slurmd-wlm), in slurmd.service when systemd manages the host, the
 * listener).  0 or -ESRCH. */
int slurmd_find(pid_t *ret_pid);

/* pid > 0: that process; else (not under root) the running slurmd; else slurmd.service in the
 * tree; else assumptions (session_service_assume()).  0, -ENOMEM, or the error reading pid. */
int slurmd_info_load(const char *root, pid_t pid, struct slurmd_info *ret);

enum slurm_task_by {
        SLURM_TASK_NO_TASK,          /* no task starts: slurm.conf refused, or the plugin stack fails */
        SLURM_TASK_PLUGIN,           /* spank_rdmalimit set it */
        SLURM_TASK_PROPAGATED,       /* Slurm: the submit shell's soft limit, within slurmd's hard */
        SLURM_TASK_SLURMD,           /* Slurm: slurmd's limits */
};
const char *slurm_task_by_name(enum slurm_task_by b);  /* "no-task", "plugin", "propagated", "slurmd" */

/* UsePAM=1: the PAM session "slurm" that slurmstepd opens (pam_setup(), as root, before it forks
 * the tasks, which inherit its limits), as the session engine models it from slurmd's limits. */
struct slurm_pam {
        const char *where;           /* the UsePAM line, FILE:LINE */
        bool opens;                  /* false: pam_setup() fails, and Slurm fails the job step */
        bool known;                  /* its memlock is known */
        struct rl_pair got;          /* slurmstepd's memlock after it */
        char why[512];               /* what decides it, or why it fails */
};

struct slurm_task_input {
        const struct slurm_pam *pam; /* NULL: no UsePAM (slurmstepd opens no PAM session) */
        const struct slurm_conf *conf;
        const struct plugstack *stack;
        const struct slurmd_info *slurmd;
        bool submit_known;           /* false: the submit shell's soft limit is not known */
        uint64_t submit_soft;
        const char *submit_from;     /* where it comes from ("--submit-memlock", ...) */
        struct ident *id;
        const char *user;
        const struct policy *policy; /* the policy the plugin reads, NULL: it cannot load one */
        const char *policy_file;     /* ... as shown (NULL: policy->path) */
        const char *policy_error;    /* ... why (logged by the plugin), NULL when policy */
        const struct hw_summary *hw; /* for auto rules (NULL when none is needed or none probed) */
};

#define SLURM_TASK_STEPS_MAX 10
#define SLURM_TASK_TEXT_MAX 512

/* One step of the path, and the source behind it (FILE:LINE, /proc/PID/limits, an option). */
struct slurm_task_step {
        char what[SLURM_TASK_TEXT_MAX];
        char source[SLURM_TASK_TEXT_MAX];
};

struct slurm_task {
        enum slurm_task_by by;
        enum slurm_propagate propagate;
        char propagate_what[256], propagate_where[320];
        long plugin_line;            /* the plugstack line that loads the plugin, -1: none */
        bool plugin_error;           /* it loads but has no decision (the policy, the user, auto) */
        bool matched;                /* the policy decides for the user (a rule, not untouched) */
        struct policy_decision dec;  /* its decision (dec.rule points into the input's policy) */
        bool eperm;                  /* the plugin's target needs a hard limit slurmstepd cannot set */
        bool capped;                 /* the submit shell's soft limit is above slurmd's hard */
        bool depends_on_submit;      /* the soft limit is the submit shell's (unknown: soft_known false) */
        bool soft_known, hard_known;
        struct rl_pair got;
        char soft_source[SLURM_TASK_TEXT_MAX], hard_source[SLURM_TASK_TEXT_MAX];
        char cause[SLURM_TASK_TEXT_MAX];     /* NO_TASK: why */
        struct slurm_task_step steps[SLURM_TASK_STEPS_MAX];
        size_t n_steps;
};

/* Compute it.  0, -ENOMEM, or an error of the user's groups (ident). */
int slurm_task_model(const struct slurm_task_input *in, struct slurm_task *ret);

/* A running task's memlock (live) against the model's: the one answer doctor and status give. */
enum slurm_task_match {
        SLURM_MATCH_YES,             /* soft and hard as predicted */
        SLURM_MATCH_HARD,            /* the soft limit is the submit shell's (not known): the hard as predicted */
        SLURM_MATCH_UNKNOWN,         /* slurmd's limits are not known: nothing to compare */
        SLURM_MATCH_NO,              /* not as predicted, or no task predicted */
};
enum slurm_task_match slurm_task_check(const struct slurm_task *t, struct rl_pair live);
