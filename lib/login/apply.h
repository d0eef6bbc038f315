/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The one decision of the login path, shared by pam_rdmalimit (a PAM session) and
 * spank_rdmalimit (a Slurm task): the policy opened and checked (root-owned, not group/world
 * writable), read and parsed; the user and its groups through NSS; the hardware from the
 * cache, else sysfs and netlink (never libibverbs, never the environment); policy_evaluate();
 * then setrlimit(RLIMIT_MEMLOCK) towards the target with the module's rules (lib/login/
 * rlimit.c: never lower unless the policy says `lower`, the closest value on EPERM) and the one
 * log line.
 *
 * Library code: negative errno, no PAM or Slurm codes.  Every message goes through the front
 * end's log function (pam_syslog, slurm_info...), with every user byte escaped.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "escape.h"
#include "rlimit.h"

struct login_front {
        /* one message at a syslog priority (LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG) */
        void (*log)(void *data, int prio, const char *fmt, va_list ap);
        /*
         * A shortfall (EPERM: the process cannot raise its hard limit): the cause and the fix,
         * for the end of the warning line.  got_hard: the hard limit it kept (size_format());
         * fix: the target's hard limit as LimitMEMLOCK= takes it (size_format_systemd()).
         */
        void (*cause)(void *data, const char *got_hard, const char *fix, char *buf, size_t size);
        void *data;
        /* added after user=NAME in the lines that name the user ("job=12.0"), or NULL */
        const char *tag;
};

/* The options of pam_rdmalimit and spank_rdmalimit, the same words in both (and as rdmalimits
 * reads a plugstack.conf line): conf=PATH ("conf=" is no option), cache=[PATH] (an empty
 * one: always probe), debug, strict, quiet; the last one given counts. */
struct login_args {
        const char *conf;      /* POLICY_PATH unless conf= (then a pointer into its word) */
        const char *cache;     /* HW_CACHE_PATH unless cache=; NULL for "cache=" */
        bool conf_given, cache_given;
        bool debug, strict, quiet;
};
void login_args_init(struct login_args *a);
/* One option word into a: false when it is none of them (a is unchanged then). */
bool login_arg(struct login_args *a, const char *word);

struct login_opts {
        const char *conf;      /* the policy */
        const char *cache;     /* the hardware cache, NULL: always probe live */
        bool debug;            /* LOG_DEBUG lines: the hardware, a user no rule matches */
};

enum login_outcome {
        LOGIN_NO_RULE,         /* no rule for this user: limits untouched */
        LOGIN_UNTOUCHED,       /* auto found no hardware and there is no fallback */
        LOGIN_APPLY,           /* login_decide(): a target to set */
        LOGIN_APPLIED,         /* login_apply(): set */
        LOGIN_ALREADY,         /* the limits already satisfy the policy */
        LOGIN_PARTIAL,         /* the target could not be reached: the closest value set */
};

/* A decision, plain data (no pointer into the policy): it may be kept and applied later, in
 * another process (a forked Slurm task). */
struct login_decision {
        enum login_outcome outcome;    /* LOGIN_NO_RULE, LOGIN_UNTOUCHED or LOGIN_APPLY */
        struct rl_pair target;
        bool lower;
        char who[ESCAPE_NAME_MAX + 128];       /* "user=NAME[ TAG]", escaped */
        char user[ESCAPE_NAME_MAX];            /* the canonical name, escaped */
        char rule[512];                /* "rule group rdma_users (file:12)" */
        char why[512];                 /* "fixed value", "auto: ..." */
};

/*
 * Decide for user (its name as given; the rules match NSS's canonical pw_name), or, when user
 * is NULL, for uid.  Failures are logged and returned as negative errno (-ENOENT: no policy
 * file, or no such user); *ret is set only on success.
 */
int login_decide(const struct login_front *f, const struct login_opts *o, const char *user, uid_t uid,
                 struct login_decision *ret);

struct login_applied {
        enum login_outcome outcome;    /* LOGIN_APPLIED, LOGIN_ALREADY or LOGIN_PARTIAL */
        struct rl_pair before, got;
        int err;                       /* setrlimit's errno on a shortfall */
};

/*
 * Apply a LOGIN_APPLY decision to this process's RLIMIT_MEMLOCK and log the one line (a
 * shortfall: a warning with f->cause's text).  0 (the outcome in *ret), or a negative errno
 * (logged) when setrlimit failed for another reason than EPERM.
 */
int login_apply(const struct login_front *f, const struct login_decision *d, struct login_applied *ret);

/* How every shortfall text ends: what tells the module's message from another module's */
#define LOGIN_SHORTFALL_TAIL "cannot raise its hard limit (see rdmalimits doctor)"
/* The one line that tells the user of a LOGIN_PARTIAL shortfall, into buf: "memlock is X, not
 * Y: WHO cannot raise its hard limit (see rdmalimits doctor)", or, when only the hard limit fell
 * short, "the memlock hard limit is X, not Y: ...".  who: escaped already.  Returns buf. */
const char *login_shortfall_text(const struct login_decision *d, const struct login_applied *a, const char *who,
                                 char *buf, size_t size);
