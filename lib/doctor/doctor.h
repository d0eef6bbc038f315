/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * `rdmalimits doctor`: the checks along the chain from the configuration to a running
 * process (PAM stacks, sshd_config, systemd, containers, the login services' own limits, a
 * process).  Library code: nothing is printed; every result is a finding with a severity,
 * where it was found (file:line or an object such as "sshd (pid 123)"), a message and a fix.
 * Checks that pass are recorded too (DIAG_OK), so a healthy system reads as healthy.
 * A finding's where, message and fix keep the raw bytes of the process names, user names,
 * unit names and file contents they carry: callers never escape them, every output does
 * (tool/cmd-doctor.c through the one escaper, escape.h), so none reaches a terminal or JSON raw.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag.h"
#include "ident.h"
#include "limitsconf.h"
#include "macro.h"
#include "policy.h"

/* The path of entry a finding belongs to; reports are grouped in this order. */
enum doctor_group {
        DOCTOR_SSH,          /* "ssh login" */
        DOCTOR_CONSOLE,      /* "console login" */
        DOCTOR_SU,           /* "su/sudo" */
        DOCTOR_CRON,         /* "cron" */
        DOCTOR_SYSTEMD,      /* "systemd services" */
        DOCTOR_CONTAINERS,   /* "containers" (docker, podman, Kubernetes' container runtimes) */
        DOCTOR_SLURM,        /* "Slurm jobs" */
        DOCTOR_PROCESSES,    /* "processes" */
        DOCTOR_CONFIG,       /* "configuration files" */
        _DOCTOR_GROUP_MAX,
};

/* A report is a diag_list (diag.h): a finding's group is an enum doctor_group, its path the
 * where ("etc/pam.d/sshd:21", line 0), its id a stable name ("unit-below-auto"), a literal.
 * id, where and fix may be NULL.  Returns 0 or -ENOMEM. */
int doctor_add(struct diag_list *rep, enum doctor_group group, enum diag_severity level, const char *id,
               const char *where, const char *fix, const char *fmt, ...) _printf_(7, 8);
const char *doctor_group_name(enum doctor_group g);     /* "ssh login", ... */

struct session_lines;
struct slurm_conf;
struct slurm_pam;

/* What a new session of a user through a service ends with, and its target, judged on a
 * process's memlock (session.h's session_target()). */
struct doctor_session {
        bool final_known;
        uint64_t soft, hard;
        bool target_known;
        uint64_t target_soft, target_hard;
        bool target_has_soft, target_has_hard;   /* which slots the target has */
        char target_from[320];
        bool short_of_target;             /* the process is below the target */
        char why[1100], fix[512];         /* why a new session falls short, and its fix */
};
struct doctor_input {
        const char *root;                /* NULL: the running system; then /proc is examined too */
        const struct lc_tree *tree;      /* limits.conf + limits.d as pam_limits reads them */
        struct ident *id;                /* users and groups (of root when given) */
        const struct policy *policy;     /* NULL: no usable policy */
        bool policy_exists;              /* the policy file exists (even if it is invalid) */
        const char *policy_path;         /* the policy file as opened (root prefix included) */
        const char *policy_name;         /* the same as the module names it (its conf=) */
        const char *policy_text;         /* the bytes the policy was loaded from (with policy) */
        size_t policy_len;
        const struct diag_list *policy_diags; /* what loading the policy found, or NULL */
        /* What each line of a stack reads (session.h): the policy of a pam_rdmalimit line (its
         * conf=), the tree of a pam_limits line (NULL from it: tree); NULL: policy and tree for
         * every line.  What it gives lives as long as the input. */
        const struct session_lines *lines;
        const char *securedir;           /* where this build installs pam_rdmalimit.so */
        const char *service;             /* one more PAM service to examine (reported with the
                                          * console logins), or NULL */
        const char *unit;                /* examine this systemd unit, or NULL */
        pid_t pid;                       /* examine this process, or 0 */
        unsigned probe_timeout;          /* seconds for the probe of its user (status.h), 0: default */
        /* --cache: the hardware cache `auto` is computed from (NULL: none, a live probe), a
         * path of this host even with root.  Not given: the cache the pam_rdmalimit lines of the
         * stacks doctor examines read (their cache=, else the module's default), when they all
         * read the same; else the module's default, and a finding names the lines that differ. */
        bool hw_cache_given;
        const char *hw_cache;
        const char *slurm_conf;          /* slurm.conf (inside root), NULL: the default places */
        /* --pid: a new session of user through service (the one its process runs in), as
         * explain and verify model it, judged on the process's memlock (got): 0 and *ret; 1
         * when it cannot be modelled; -ENOMEM.  service_pid: the process the session starts
         * from (for su, runuser and sudo their caller), 0 for the service's running daemon.
         * NULL: doctor compares with the configuration alone. */
        int (*session_of)(const char *user, const char *service, pid_t service_pid, uint64_t got_soft,
                          uint64_t got_hard, struct doctor_session *ret, void *data);
        void *session_data;
        /* UsePAM=1: the PAM session "slurm" of user that slurmstepd, with slurmd's limits sd,
         * opens before the tasks, modelled as explain --slurm models it (session_data is its
         * data): 0 with *ret (*ret_used false: no UsePAM), -EINVAL when it cannot be modelled,
         * -ENOMEM.  NULL: not modelled, and running steps are then not compared under UsePAM. */
        int (*slurm_pam_of)(const char *user, const struct slurm_conf *conf, const struct lc_service *sd,
                            struct slurm_pam *ret, bool *ret_used, void *data);
};

/* Run every check.  Returns 0, or -ENOMEM (the report then holds what was found so far). */
int doctor_run(const struct doctor_input *in, struct diag_list *rep);

/*
 * The memlock a systemd unit's processes start with, as doctor's systemd model computes it:
 * LimitMEMLOCK= of the unit file and its drop-ins, else DefaultLimitMEMLOCK= of system.conf and
 * its drop-ins, else systemd's default (in root, NULL: /).  The unit file and drop-ins are
 * found as systemd finds them: through aliases, the drop-ins of every name of the unit, its
 * template's, its dash prefixes' (foo-.service.d) and its type's (service.d), in every unit
 * directory, sorted by file name.  0 (found false: no unit file, or
 * masked) or -ENOMEM.
 */
struct doctor_unit_limit {
        bool found, masked;
        uint64_t soft, hard;
        char src[256];                   /* "LimitMEMLOCK=infinity", "no LimitMEMLOCK=: ..." */
        char where[320];                 /* the FILE:LINE that sets it, or the unit file */
        char assigned[320];              /* the FILE:LINE of the last LimitMEMLOCK= systemd takes
                                          * (one it cannot parse, an empty one too, it ignores:
                                          * no reset), "" when none */
        char dropin[256];                /* its file's name when that is a drop-in, else "" */
        char hidden_by[320];             /* why a drop-in named as apply --unit's (DROPIN_UNIT_NAME)
                                          * in /etc/systemd/system/UNIT.d would not be read: "FILE is
                                          * read instead (...)", "FILE may be read instead (...)"
                                          * (another name of the unit's, read in no fixed order);
                                          * else "" */
        char unread[512];                /* the first drop-in that could not be read (a FIFO,
                                          * ...): "FILE: why, and what is assumed", else "" */
        bool incomplete;                 /* the drop-ins went past the walk's bound */
        char stopped[512];               /* where, and why */
};
int doctor_unit_memlock(const char *root, const char *unit, struct doctor_unit_limit *ret);

/*
 * A systemd resource limit (LimitMEMLOCK=, DefaultLimitMEMLOCK=): "VALUE" (soft and hard) or
 * "SOFT:HARD", each a size_parse_systemd() size; refuses soft above hard (-EINVAL).
 */
int doctor_parse_systemd_limit(const char *s, uint64_t *ret_soft, uint64_t *ret_hard);

/*
 * The memlock entry of "default-ulimits" in a docker daemon.json text: a targeted scan, not
 * a JSON parser.  Returns 1 with soft/hard in bytes (-1 is unlimited), 0 when there is no
 * such entry, -EINVAL when the entry is there but its values cannot be read.
 */
int doctor_docker_memlock(const char *json, uint64_t *ret_soft, uint64_t *ret_hard);
