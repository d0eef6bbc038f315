/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The session model: what a PAM session of a user opened by a service ends with, the one
 * computation behind `explain`, `verify`, `doctor` and `apply`'s effectiveness check.
 *
 *   - the service's session stack as PAM runs it (includes and substacks followed, jumps
 *     taken, a `requisite` failure or a `sufficient` success ending it), and in it every
 *     pam_limits and pam_rdmalimit line that runs, in order;
 *   - each pam_limits run: what the limits model says it does (lc_session_outcome(): the
 *     release's rules, the clamps, a refused or failing session) from the limits the process
 *     has at that point;
 *   - each pam_rdmalimit run: the policy's decision and what setrlimit allows (lib/login/
 *     rlimit.h, the rules the module itself applies);
 *   - the service's own limits and capabilities where the session starts (a running process,
 *     or stated assumptions).
 * The last module that runs and sets memlock decides it.  Library code: nothing printed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "limitsconf.h"
#include "pamstack.h"
#include "policy.h"
#include "rlimit.h"

/* How a PAM control (required, [success=1 default=ignore], ...) acts on a return value. */
enum pam_action {
        PAM_ACT_IGNORE,
        PAM_ACT_OK,
        PAM_ACT_DONE,        /* ok, and the stack ends */
        PAM_ACT_BAD,
        PAM_ACT_DIE,         /* bad, and the stack ends */
        PAM_ACT_RESET,
        PAM_ACT_JUMP,        /* skip `jump` modules */
};

/* A module's return value, each one a [value=action] control can name told apart. */
enum pam_ret {
        PAM_RET_SUCCESS,
        PAM_RET_IGNORE,
        PAM_RET_FAIL,        /* PAM_SESSION_ERR: pam_deny, pam_rdmalimit with strict */
        PAM_RET_UNKNOWN,     /* PAM_MODULE_UNKNOWN: libpam could not load the module */
        PAM_RET_PERM_DENIED, /* pam_limits refusing the login; a handler that always fails */
        PAM_RET_SERVICE_ERR, /* pam_limits: a file it cannot read */
        PAM_RET_USER_UNKNOWN,/* pam_limits: no such user */
        PAM_RET_AUTH_ERR,    /* pam_succeed_if: a condition the user does not meet */
};
/* Is name ("pam_succeed_if") a module used as a condition, whose failure is a decision, not
 * an accident (pam_succeed_if, pam_access, pam_listfile, pam_wheel...)? */
bool pam_condition_module(const char *name);
/* libpam's name of it ("PAM_SESSION_ERR") */
const char *pam_ret_name(enum pam_ret ret);

/* The action of `control` for a return value; *ret_jump for PAM_ACT_JUMP.  -EINVAL when the
 * control cannot be read. */
int pam_control_action(const char *control, enum pam_ret ret, enum pam_action *ret_action, unsigned *ret_jump);

/* Each value=action pair of a [value=action ...] control, in order, to f (the value's name is
 * not NUL-terminated: len bytes); nothing for a simple control (required, requisite, ...).  0,
 * -EINVAL when the control cannot be read, or f's negative return. */
int pam_control_pairs(const char *control, int (*f)(const char *value, size_t len, enum pam_action a, unsigned jump,
                                                    void *userdata),
                      void *userdata);
/* The digits of each jump action of a [...] control as libpam reads it, in order: f(their
 * text, its length, the jump); nothing for a simple control.  0, -EINVAL when libpam cannot
 * read the control, or f's negative return.  (enable rewrites a count in place with it.) */
int pam_control_jumps(const char *control, int (*f)(const char *digits, size_t len, unsigned jump, void *userdata),
                      void *userdata);

/* Which entries of a session stack run. */
struct stack_run {
        size_t *run;         /* indices into the stack, in the order they run */
        size_t n_run;
        long last_limits;    /* index of the last pam_limits that runs (its file loads), -1: none */
        long last_module;    /* the same for pam_rdmalimit */
        size_t n_limits;     /* how many pam_limits run */
        long unloadable;     /* the first line that runs whose module libpam cannot load, -1 */
        long ended_at;       /* the entry that ended the stack early (requisite, sufficient, done/die), -1 */
        bool assumed;        /* the path depends on a module whose result is assumed (success) */
        long assumed_at;     /* the first such entry, -1: none */
        bool failed;         /* the stack's result is a failure: the session is not opened */
        enum pam_ret status; /* what pam_open_session() returns (libpam's status: the first
                              * result that decided the stack's impression) */
};
/* A stack_run that names no entry: its -1s */
#define STACK_RUN_INIT { .last_limits = -1, .last_module = -1, .unloadable = -1, .ended_at = -1, .assumed_at = -1 }

/*
 * Walk the stack as _pam_dispatch_aux() (pam_dispatch.c) does: its impression and status (the
 * first result an ok, done, bad or die takes while undecided; reset restores what they were
 * where the substack began), jumps, done and die.  Every module is assumed to succeed but
 * pam_succeed_if where stack_run_walk_cond() is given its result, pam_deny (PAM_SESSION_ERR), pam_limits
 * (limits_ret), pam_rdmalimit (module_ret), a line that always fails (pam_entry.fails:
 * PAM_PERM_DENIED) and a
 * line whose module file libpam cannot load (pam_entry.unloadable), "-session" or not: it
 * returns PAM_MODULE_UNKNOWN, which its control then decides (measured with libpam 1.5.2:
 * "required" fails the stack, "optional" ignores it, "[success=1 default=ignore]" does not
 * jump), and sets nothing.  A tree without a module directory takes every file as present
 * (pam_stack.modules_unchecked).
 */
int stack_run_walk(const struct pam_stack *st, enum pam_ret limits_ret, enum pam_ret module_ret,
                   struct stack_run *ret);
/* The same with the return value of each pam_limits and pam_rdmalimit line its own:
 * limits_rets[i], module_rets[i] for entry i (lines of one stack may read different files,
 * conf=, and so return differently); NULL: limits_ret, module_ret for every one. */
int stack_run_walk_each(const struct pam_stack *st, const enum pam_ret *limits_rets, enum pam_ret limits_ret,
                        const enum pam_ret *module_rets, enum pam_ret module_ret, struct stack_run *ret);
/* The same with the results of other modules the model evaluates for a user (cond_rets[i] for
 * entry i, -1: not known, taken as success; NULL: none known): pam_succeed_if. */
int stack_run_walk_cond(const struct pam_stack *st, const enum pam_ret *limits_rets, enum pam_ret limits_ret,
                        const enum pam_ret *module_rets, enum pam_ret module_ret, const int *cond_rets,
                        struct stack_run *ret);
/* pam_succeed_if's result (pam_succeed_if.c, Linux-PAM 1.3 to 1.7) for user (id: the user's
 * uid and gid, groups) through service, its arguments args: an enum pam_ret, or -1 when it
 * rests on what the model does not know (rhost, ruser, tty, shell, home, netgroups, use_uid). */
struct ident;
int succeed_if_ret(const char *args, struct ident *id, const char *user, const char *service);
void stack_run_clear(struct stack_run *r);

/* The options of a pam_rdmalimit line as the module reads them: its words (split on blanks,
 * as libpam passes them) through login_arg(), the last of each winning.  a's conf and cache
 * point into *ret_buf, which the caller frees after a.  -ENOMEM. */
struct login_args;
int session_module_args(const char *args, struct login_args *a, char **ret_buf);
/* What a pam_rdmalimit line with these arguments returns: success when its policy p has a
 * rule that sets a value for the user (matched); with no policy it can use (p NULL: missing
 * or refused), a failure (PAM_SESSION_ERR) when the line says strict; else ignore.  -ENOMEM. */
int session_module_ret(const char *args, const struct policy *p, bool matched, enum pam_ret *ret);

/*
 * Views without a user (doctor, enable): the stack walked for every user a policy has a rule
 * for.  A copy of the module without a policy it can use returns the same for everyone
 * (session_module_ret(): ignore, or a failure when strict), and so does one whose policy has
 * no rule; a copy whose policy has rules succeeds for the users one of them sets a value for
 * and ignores the others.  A pam_limits line succeeds, unless its tree fails every session
 * (lc_tree_fails_every_session()): what its lines do for one user and one service process is
 * explain's.
 */
struct session_lines {
        /* the policy a pam_rdmalimit line reads (NULL: none it can use), *ret_name its file
         * as the line names it, and (ret_refused not NULL) why the module refuses it, "" when
         * it loads or is missing, valid until the next call; NULL: every line has a policy
         * with a rule for everyone */
        const struct policy *(*policy)(const struct pam_entry *e, const char **ret_name, const char **ret_refused,
                                       void *data);
        /* the tree a pam_limits line reads; NULL (either): it succeeds */
        const struct lc_tree *(*tree)(const struct pam_entry *e, void *data);
        void *data;
};
#define SESSION_MAX_POLICIES 8    /* policies with rules told apart: 2^8 - 1 walks at most */
struct session_walk {
        uint32_t mask;            /* bit k: policy[k] has a rule for these users, else none */
        struct stack_run run;
};
struct session_walks {
        const struct policy *policy[SESSION_MAX_POLICIES];   /* the policies with rules, by first line */
        const char *name[SESSION_MAX_POLICIES];
        size_t n_policies;        /* 0: no policy has a rule: one walk, every copy taken as having one */
        struct session_walk *v;   /* one walk per mask but 0 (no copy sets anything for such users);
                                   * a policy past the bound is taken as having a rule */
        size_t n;
};
/* l NULL: every line succeeds (one walk).  0 or -ENOMEM. */
int session_walks_every_user(const struct pam_stack *st, const struct session_lines *l, struct session_walks *ret);
void session_walks_clear(struct session_walks *w);
/* The walk of the users every policy has a rule for (the last one). */
const struct session_walk *session_walks_all(const struct session_walks *w);
/* x succeeds for no user (the walks give it no success): a pam_limits whose tree fails every
 * session; a copy of the module without a policy with a rule, when another copy has one. */
bool session_line_never_succeeds(const struct session_walks *w, const struct session_lines *l,
                                 const struct pam_entry *x);
/* "that /etc/a.conf has a rule for and /etc/b.conf none", "that /a, /b have a rule for"
 * (malloc()ed; NULL: out of memory) */
char *session_walk_users(const struct session_walks *w, uint32_t mask);

/* The order that decides memlock. */
enum session_order {
        SESSION_MODULE_LAST,    /* pam_rdmalimit runs after the last pam_limits (or there is none) */
        SESSION_LIMITS_LAST,    /* the last pam_limits runs after pam_rdmalimit: pam_limits decides */
        SESSION_NO_MODULE,      /* pam_rdmalimit does not run */
        SESSION_NO_STACK,       /* the stack could not be read */
        SESSION_NO_PAM,         /* the service opens no PAM session (sshd: UsePAM no) */
};
const char *session_order_name(enum session_order o);   /* "after-pam_limits", ... */
/* With SESSION_NO_MODULE: is pam_rdmalimit in the stack all the same, passed over for this walk?
 * Its first line (*ret_module) and the line that passed over it (*ret_by: a jump past it, or the
 * line that ended the stack before it) as indices into the stack; false when the stack has no
 * pam_rdmalimit line. */
bool session_module_passed_over(const struct pam_stack *st, const struct stack_run *run, size_t *ret_module,
                                size_t *ret_by);
/* The order of one walk: which of pam_rdmalimit and pam_limits runs last (never
 * SESSION_NO_STACK). */
enum session_order session_walk_order(const struct stack_run *run);

/* The service's own limits and capabilities where a session starts. */
int session_service_from_pid(pid_t pid, struct lc_service *ret);
/* The running daemon of a PAM service (sshd, cron), the listener proc_daemon_find() names
 * (root, its executable, its unit when systemd manages the host), -ESRCH when none runs; with
 * ret_other (may be NULL), another process that qualifies as well (0: none). */
int session_service_find(const char *service, pid_t *ret_pid, pid_t *ret_other);
/*
 * The PAM service whose session pid runs in, from its ancestors, the nearest first: one owned
 * by root that runs a daemon of proc_daemons[] that opens PAM sessions (sshd, or OpenSSH's
 * sshd-session; cron, crond), the per-connection process or the daemon that opened it; or
 * su, runuser or sudo running as root (effective uid 0: su and sudo are setuid), whose
 * service (su or su-l, sudo or sudo-i, runuser or runuser-l) its command line decides, as the
 * program's own option parsing does (session_caller_service()).  1 with the service in buf,
 * the process that opened the session in *ret_opener and, for su, runuser and sudo, the
 * caller whose limits that session started from in *ret_caller (the opener's parent: init,
 * PID 1, once the caller is gone), else 0 there; 0 when none is (a systemd unit, a process
 * whose ancestors are gone); -ENOMEM.  Bounded: at most 64 ancestors.
 */
int session_service_of_process(pid_t pid, char *buf, size_t size, pid_t *ret_opener, pid_t *ret_caller);
/* The PAM service a caller program (exe: a /proc/PID/exe target, e.g. /usr/bin/su) opens its
 * session with, for its argv (argc words, argv[0] first: none when argc is 0): its login
 * service when its options ask for a login shell, assuming GNU getopt's default order (no
 * POSIXLY_CORRECT).  NULL when exe is not su, runuser or sudo. */
const char *session_caller_service(const char *exe, char *const *argv, size_t argc);
/* The same for a /proc/PID/cmdline text: len bytes of NUL-separated words (proc_cmdline()'s,
 * without the NULs at its end; 0: unreadable, the program's plain service).  0 with *ret (NULL
 * when exe is none of them), or -ENOMEM. */
int session_caller_service_cmdline(const char *exe, const char *cmd, size_t len, const char **ret);
/* Is service one whose session the caller's own process opens (su, su-l, sudo, sudo-i,
 * runuser, runuser-l): setuid or root programs that keep their caller's limits? */
bool session_service_of_caller(const char *service);
/* Stated assumptions when no process can be asked: PID 1's memlock limits (what a service
 * started by init has by default; proc1_limits, NULL or --proc1-limits: lc_proc1_limits())
 * and this process's CAP_SYS_RESOURCE. */
void session_service_assume(const char *root, const char *proc1_limits, struct lc_service *ret);
/*
 * A daemon no process can be asked about, started by systemd: its unit's memlock (LimitMEMLOCK=
 * with its drop-ins, else DefaultLimitMEMLOCK=, else systemd's 8 MiB: doctor_unit_memlock()),
 * not PID 1's, which systemd does not hand to its services.  Sets svc's memlock, its source
 * ("UNIT (...), no running DAEMON asked") and where: 1; 0 when there is no such unit (svc left
 * as it is); -ENOMEM.  The one answer for slurmd, sshd and cron.
 */
int session_service_unit(const char *root, const char *unit, const char *daemon, struct lc_service *svc, char *where,
                         size_t where_size);

/*
 * Does a login through service run its PAM session stack?  The one answer (explain, verify and
 * doctor ask it).  Only sshd can say no: UsePAM of its configuration (sshdconf.h), that of the
 * running sshd (its -f and -o: pid when > 0 and it is root's sshd; with pid 0 the one
 * proc_daemon_find() names; pid < 0: the caller found none running; never under a root), else
 * SSHD_CONFIG_DEFAULT in root.
 */
enum session_pam {
        SESSION_PAM_RUNS,         /* the stack runs */
        SESSION_PAM_NONE,         /* no PAM session: a login keeps the service's own limits */
        SESSION_PAM_NO_DAEMON,    /* the service refuses its configuration: nobody logs in */
        SESSION_PAM_ASSUMED,      /* not known (no sshd_config, or unreadable): taken to run */
};
struct session_pam_answer {
        enum session_pam kind;
        char where[512];          /* the line (or file) that says so, "" when none */
        char why[768];            /* for NONE, NO_DAEMON and ASSUMED */
};
int session_service_pam(const char *root, const char *service, pid_t pid, struct session_pam_answer *ret);
/* The sshd configuration that answer reads (doctor reports its every line): 0 or -ENOMEM. */
struct sshd_conf;
int session_sshd_conf(const char *root, pid_t pid, struct sshd_conf *ret);
/* The fix of "no PAM session" said at where (a FILE:LINE, a file, or sshd's command line). */
void session_pam_fix(const char *where, char *buf, size_t size);

struct session_input {
        const char *root;                /* NULL: / */
        const char *service;             /* PAM service, e.g. "sshd" */
        const struct lc_tree *tree;      /* what pam_limits reads: of every line, unless line_tree */
        /* The tree the pam_limits line e reads (its arguments: conf=), NULL for tree; NULL:
         * tree for every line.  The trees must outlive the model (it points into them). */
        const struct lc_tree *(*line_tree)(const struct pam_entry *e, void *data);
        void *line_tree_data;
        struct ident *id;
        const char *user;
        const struct lc_baseline *base;
        const struct lc_service *svc;
        /* the process svc was read from (session_service_pam()'s pid), 0: none runs (the caller
         * looked for it) */
        pid_t svc_pid;
        /* the caller opens the PAM session itself through libpam (verify): its stack runs,
         * whatever the service's daemon does about PAM (the model's pam still says what a
         * login of the service gets, asked of the running daemon) */
        bool pam_direct;
        const struct policy *policy;     /* NULL: the module leaves memlock alone */
        const struct hw_summary *hw;     /* for auto rules; may be NULL when not needed */
        /* The policy the pam_rdmalimit line e reads (its conf=; NULL: none it can use) and the
         * hardware it sees (its cache=), into *ret_p and *ret_hw, which hold policy and hw when
         * it is called; NULL: policy and hw for every line.  They must outlive the model. */
        void (*line_policy)(const struct pam_entry *e, const struct policy **ret_p, const struct hw_summary **ret_hw,
                            void *data);
        void *line_policy_data;
};

struct session_model {
        struct pam_stack stack;
        struct stack_run run;
        enum session_order order;
        const struct lc_tree *tree;      /* the tree of the last pam_limits that runs (the input's
                                          * tree when none runs): limits and pl are from it */
        struct lc_result limits;         /* pam_limits' resolution for the user */
        struct lc_session pl;            /* the last pam_limits run */
        bool module_matched;             /* the policy has a rule for the user that sets a value */
        struct policy_decision dec;      /* of the last copy that sets memlock; else the last
                                          * copy's that runs; else the input policy's */
        long module_entry;               /* the stack entry of the copy that sets memlock, -1 */
        bool module_eperm;               /* the module could not reach its target */
        bool module_ran;                 /* pam_rdmalimit ran with a value to set */
        bool limits_before_module;       /* a pam_limits run came before its run that decides */
        struct rl_pair at_module;        /* memlock when it ran */
        bool start_known;
        struct rl_pair start;            /* the service's memlock */
        bool final_known;
        struct rl_pair final;            /* what the session ends with */
        enum lc_session_kind kind;       /* the session as a whole */
        char cause[1024];
        struct session_pam_answer pam;   /* does the service run the stack (order NO_PAM: no) */
        /* Debian's chroot item: a pam_limits run put the session into a directory, and a
         * pam_rdmalimit line ran after it, inside: it reads its policy, the users and sysfs
         * there.  The model takes it as setting nothing: it is exact when the directory has no
         * policy at the module's path (jail_policy false), an assumption otherwise. */
        const struct lc_line *jail;      /* the chroot line; NULL: no module ran inside one */
        const struct lc_tree *jail_tree; /* the tree the line is in */
        long jail_module;                /* the first pam_rdmalimit entry that ran inside */
        size_t jail_from;                /* the position in run.run of the pam_limits run that
                                          * chrooted */
        bool jail_policy;                /* the directory has a file at the module's policy path */
};

/* What pam_rdmalimit decides for user with policy p (NULL: none) and hardware hw: the one
 * decision of the model's copies and of apply's check.  *ret_matched: a rule sets a value.
 * -ENOMEM or the policy's error; an unknown user matches nothing. */
int session_module_decide(const struct policy *p, const struct hw_summary *hw, struct ident *id, const char *user,
                          struct policy_decision *ret, bool *ret_matched);

/* Build the model.  -ENOMEM, lc_resolve() errors, and the stack's include_error (pamstack.h:
 * its includes cycle or go past visit.h's bound); everything else is in *ret. */
int session_model_build(const struct session_input *in, struct session_model *ret);
void session_model_clear(struct session_model *m);

/*
 * The one answer to "what should this session reach, does it, and if not why": the target is
 * the policy's value when a rule matches the user, else the values pam_limits' entries ask;
 * the cause of a shortfall names what holds the limit down, with a fix that works for that
 * cause (LimitMEMLOCK= only for a process that has a systemd unit).
 */
enum session_short {
        SESSION_SHORT_NONE,       /* met, or no target */
        SESSION_SHORT_FAILS,      /* the session does not open */
        SESSION_SHORT_NO_MODULE,  /* a rule matches, the stack does not run pam_rdmalimit */
        SESSION_SHORT_NO_PAM,     /* the service opens no PAM session (sshd: UsePAM no) */
        SESSION_SHORT_ORDER,      /* pam_limits runs after pam_rdmalimit and sets its own values */
        SESSION_SHORT_ENTRY,      /* pam_limits set the hard limit lower, from an entry (where) */
        SESSION_SHORT_BASELINE,   /* ... from PID 1's limits (Debian's baseline) */
        SESSION_SHORT_SERVICE,    /* the service's own hard limit, without CAP_SYS_RESOURCE */
        SESSION_SHORT_OTHER,      /* below, and none of the above explains it */
};

struct session_target {
        bool known;                       /* there is a target */
        struct rl_pair want;              /* 0 in a slot that is no part of it */
        bool want_soft, want_hard;        /* which slots are: an entry that asks only one slot
                                           * leaves the other to the service */
        char from[320];                   /* "policy rule group rdma_users (line 3)", "FILE:LINE" */
        enum session_short cause;
        char where[320];                  /* ENTRY: the entry's FILE:LINE */
        char why[1100];
        char fix[512];
};

/* Judge what a session got (got_known false: nothing, the session did not open) against the
 * model's target.  t: the limits tree the model was built from; svc: the process that opened
 * the session. */
/* The pam_rdmalimit line that runs last, or NULL (none runs, or the stack is not known) */
const struct pam_entry *session_last_module(const struct session_model *m);
void session_target(const struct session_model *m, const struct lc_tree *t, const struct lc_service *svc,
                    const char *service, bool got_known, struct rl_pair got, struct session_target *ret);
/* The shortfall of a service that opens no PAM session (pa: session_service_pam()'s answer):
 * its cause, why, where and fix in t (the target itself left as it is). */
void session_target_no_pam(const struct session_pam_answer *pa, struct session_target *t);
