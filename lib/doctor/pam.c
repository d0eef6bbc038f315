/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, the PAM session stacks: for sshd, login, su, sudo, runuser, cron and systemd-user
 * (and --service), pam_limits and pam_rdmalimit are in the session stack, their module files
 * are where libpam loads them from, nothing before them jumps over them or ends the stack,
 * and pam_rdmalimit runs after the last pam_limits.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apply.h"
#include "doctor-internal.h"
#include "hwcache.h"
#include "session.h"
#include "pamstack.h"
#include "visit.h"
#include "fsutil.h"

static const struct {
        const char *name;
        enum doctor_group group;
} pam_services[] = {
        { "sshd", DOCTOR_SSH },      { "login", DOCTOR_CONSOLE },    { "su", DOCTOR_SU },
        { "su-l", DOCTOR_SU },       { "sudo", DOCTOR_SU },          { "sudo-i", DOCTOR_SU },
        { "runuser", DOCTOR_SU },    { "runuser-l", DOCTOR_SU },     { "cron", DOCTOR_CRON },
        { "crond", DOCTOR_CRON },    /* RHEL, Fedora (cronie) */
        { "systemd-user", DOCTOR_SYSTEMD },
};

/* ------------------------------------------------------------------------------------ */
/* module files */

static int moddirs_load(struct doc *d) {
        if (d->moddirs.loaded)
                return 0;
        return pam_moddirs_load(&d->moddirs, d->in->root, d->in->securedir);
}

static const char *pamdir_name(const struct doc *d) {
        return d->moddirs.pamdir >= 0 ? d->moddirs.dirs.v[d->moddirs.pamdir] : "the PAM module directory";
}

/* The module file of e exists where libpam loads it from; *ok false when it does not. */
static int pam_check_file(struct doc *d, enum doctor_group g, const char *svc, const struct pam_entry *e,
                          const char *where, bool *ok) {
        _cleanup_free_ char *found = NULL, *fix = NULL;
        enum pam_mod_state ms;
        int r = moddirs_load(d);
        if (r >= 0)
                r = pam_module_state(&d->moddirs, d->in->root, e->module, pam_phase_function("session"), &ms, &found);
        if (r < 0 || ms == PAM_MOD_FOUND)
                return r;
        if (ms == PAM_MOD_UNCHECKED) {
                /* a tree of configuration only (an image's /etc): one finding, not one per stack */
                if (!d->no_modules_said)
                        ADD_ID(d, DOCTOR_CONFIG, DIAG_INFO, "pam-no-modules", NULL, NULL,
                               "the tree has no PAM module directory (no pam_unix.so or pam_permit.so in %s or the "
                               "other usual places): whether the stacks' module files exist is not checked",
                               d->moddirs.dirs.n ? d->moddirs.dirs.v[0] : "/lib/x86_64-linux-gnu/security");
                d->no_modules_said = true;
                return 0;
        }
        *ok = false;
        if (ms == PAM_MOD_MISSING) {
                if (!(fix = strf("install %s.so into %s (or write its full path in %s)", e->name, pamdir_name(d),
                                 where)))
                        return -ENOMEM;
                if (e->dash)
                        ADD(d, g, DIAG_ERROR, where, fix,
                            "%s: '-session %s %s': the module file is missing, and the '-' makes PAM skip it "
                            "without a word",
                            svc, e->control, e->module);
                else
                        ADD(d, g, DIAG_ERROR, where, fix,
                            "%s: the module file %s is missing: PAM cannot load it (a required module then "
                            "fails every session)",
                            svc, e->module);
        } else if (ms == PAM_MOD_NO_FUNCTION) {
                if (!(fix = strf("install the real %s.so (this file has no session function)", e->name)))
                        return -ENOMEM;
                ADD(d, g, DIAG_ERROR, where, fix,
                    "%s: the module file %s has no pam_sm_open_session: PAM returns PAM_MODULE_UNKNOWN for the line "
                    "(a required module then fails every session)",
                    svc, e->module);
        } else {
                if (!(fix = strf("write the full path in %s: session %s %s, or install it into %s", where, e->control,
                                 found, pamdir_name(d))))
                        return -ENOMEM;
                ADD(d, g, DIAG_ERROR, where, fix,
                    "%s: %s is installed as %s, but libpam loads bare module names from %s only%s", svc, e->module,
                    found, pamdir_name(d), e->dash ? " (and '-session' hides the failure)" : "");
        }
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* jumps over a module */


struct pam_ctl {
        unsigned succ_jump;   /* on success: skip the next N modules */
        bool succ_stop;       /* on success: done/die, the stack ends */
        unsigned other_jump;  /* the largest jump on any other return value */
};

/* the largest jump on a value other than success */
static int other_jump_pair(const char *value, size_t len, enum pam_action a, unsigned jump, void *userdata) {
        unsigned *max = userdata;
        if (a == PAM_ACT_JUMP && !(len == 7 && memcmp(value, "success", 7) == 0) && jump > *max)
                *max = jump;
        return 0;
}

/* What a control does on success and at most on anything else, read by the session engine's
 * grammar (pam_control_action(), pam_control_pairs()). */
static int pam_parse_control(const char *control, struct pam_ctl *ret) {
        enum pam_action a;
        unsigned jump;

        *ret = (struct pam_ctl){};
        if (pam_control_action(control, PAM_RET_SUCCESS, &a, &jump) < 0)
                return -EINVAL;
        if (a == PAM_ACT_JUMP)
                ret->succ_jump = jump;
        ret->succ_stop = a == PAM_ACT_DONE || a == PAM_ACT_DIE;
        return pam_control_pairs(control, other_jump_pair, &ret->other_jump);
}

/* Does entry j of st jump over entry idx, as libpam counts (pam_stack_jump())? */
static bool jumps_over(const struct pam_stack *st, size_t j, unsigned jump, size_t idx) {
        bool bad;
        return jump && pam_stack_jump(st, j, jump, &bad) > idx;
}

/* Does done or die at entry j end the walk before entry idx?  In a substack they end only the
 * substack (pam.conf(5)): idx must be in the same one, no node of the chain between them at a
 * lower level (the substack's end, or another substack's line). */
static bool ends_before(const struct pam_stack *st, size_t j, size_t idx) {
        const struct pam_entry *x = &st->v[j];
        for (size_t k = x->link + 1; k <= st->v[idx].link && k < st->n_chain; k++)
                if (st->chain[k].level < x->level)
                        return false;
        return true;
}

/* Does line x (at index j of st) jump over or end the stack before e (at idx, shown as where)? */
static bool never_succeeds(const struct doc *d, const struct pam_entry *x);

static int pam_check_jump(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st, size_t j,
                          const struct pam_entry *e, size_t idx, const char *where, bool *ok) {
        const struct pam_entry *x = &st->v[j];
        _cleanup_free_ char *w2 = strf("%s:%u", x->file, x->line), *fix = NULL;
        struct pam_ctl c;
        bool cond = pam_condition_module(x->name), succeeds = !never_succeeds(d, x);

        if (!w2)
                return -ENOMEM;
        if (pam_parse_control(x->control, &c) < 0)
                return 0;   /* a control libpam cannot read fails the line: no jump to report */
        if (succeeds && jumps_over(st, j, c.succ_jump, idx)) {
                *ok = false;
                if (!(fix = strf("correct the jump count of '%s' at %s so it does not cross %s, or move %s above it",
                                 x->control, w2, e->name, e->name)))
                        return -ENOMEM;
                ADD(d, g, cond ? DIAG_WARNING : DIAG_ERROR, w2, fix,
                    "%s: '%s %s' jumps over %s (%s) when it succeeds%s", svc, x->control, x->module, e->name, where,
                    cond ? ": only sessions failing its condition get the limit" : ", so it never runs");
        } else if (succeeds && c.succ_stop && ends_before(st, j, idx)) {
                *ok = false;
                if (!(fix = strf("move %s (%s) above %s, or make that line 'optional'/'required'", e->name, where, w2)))
                        return -ENOMEM;
                ADD(d, g, cond ? DIAG_WARNING : DIAG_ERROR, w2, fix,
                    "%s: '%s %s' ends the session stack when it succeeds, before %s (%s) runs", svc, x->control,
                    x->module, e->name, where);
        } else if (jumps_over(st, j, c.other_jump, idx)) {
                *ok = false;
                if (!(fix = strf("correct the jump count of '%s' at %s, or move %s above it", x->control, w2,
                                 e->name)))
                        return -ENOMEM;
                ADD(d, g, DIAG_WARNING, w2, fix, "%s: '%s %s' jumps over %s (%s) when it does not succeed", svc,
                    x->control, x->module, e->name, where);
        }
        return 0;
}

/* The module at index idx (its line "FILE:LINE" in *ret_where): its file exists, and nothing
 * before it jumps over it (as libpam counts: a substack is one module, and its jumps
 * cannot leave it).  Adds the problems; *ret_ok when there were none. */
static int pam_check_module(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st,
                            size_t idx, char **ret_where, bool *ret_ok) {
        const struct pam_entry *e = &st->v[idx];
        int r;

        *ret_ok = true;
        if (!(*ret_where = strf("%s:%u", e->file, e->line)))
                return -ENOMEM;
        if ((r = pam_check_file(d, g, svc, e, *ret_where, ret_ok)) < 0)
                return r;
        for (size_t j = 0; j < idx; j++)
                if ((r = pam_check_jump(d, g, svc, st, j, e, idx, *ret_where, ret_ok)) < 0)
                        return r;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* What each line reads (doctor_input.lines), and the walks of the stack for every user
 * (d->walks, session_walks_every_user()). */

static const struct policy *line_policy_of(const struct doc *d, const struct pam_entry *e, const char **ret_name,
                                           const char **ret_refused) {
        *ret_name = d->in->policy_name;
        *ret_refused = "";
        if (!d->in->lines)
                return d->in->policy;
        return d->in->lines->policy(e, ret_name, ret_refused, d->in->lines->data);
}

static const struct lc_tree *line_tree_of(const struct doc *d, const struct pam_entry *e) {
        const struct lc_tree *t = d->in->lines ? d->in->lines->tree(e, d->in->lines->data) : NULL;
        return t ? t : d->in->tree;
}

/* x succeeds for no user (session_line_never_succeeds()) */
static bool never_succeeds(const struct doc *d, const struct pam_entry *x) {
        return d->walks && session_line_never_succeeds(d->walks, d->in->lines, x);
}

/*
 * The order of pam_limits and pam_rdmalimit in one stack: 1 when the copy of pam_rdmalimit that
 * runs last runs after the last pam_limits that runs, for every user a policy has a rule for
 * (session_walks_every_user()); 0 after adding the finding.  The order is the session model's
 * (lib/session/session.c), as explain and verify say: the stack walked as libpam runs it, so a
 * jumped-over or unreachable line does not count, and pam_limits sets its values whenever it
 * runs, so a pam_limits after the last pam_rdmalimit overrides it.  Where the copies' results
 * change the path (a jump, sufficient), the order may depend on the user: then it says so,
 * with the users of each order.
 */
static int pam_order_check(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st) {
        const struct session_walks *w = d->walks;
        const struct session_walk *before = NULL, *after = NULL;

        for (size_t j = 0; j < w->n; j++) {
                enum session_order o = session_walk_order(&w->v[j].run);
                if (o == SESSION_LIMITS_LAST && !before)
                        before = &w->v[j];
                else if (o == SESSION_MODULE_LAST && !after)
                        after = &w->v[j];
                /* SESSION_NO_MODULE: no copy runs for these users */
        }
        if (!before)
                return 1;
        const struct pam_entry *l = &st->v[before->run.last_limits], *m = &st->v[before->run.last_module];
        _cleanup_free_ char *w2 = strf("%s:%u", l->file, l->line), *where = strf("%s:%u", m->file, m->line),
                           *fix = NULL, *own = strf("%s/%s", "pam.d", svc);
        if (!w2 || !where || !own)
                return -ENOMEM;
        if (after) {
                _cleanup_free_ char *ub = session_walk_users(w, before->mask), *ua = session_walk_users(w, after->mask);
                if (!ub || !ua || !(fix = strf("put every pam_rdmalimit line after the last pam_limits (%s); "
                                               "'rdmalimits explain USER --service %s' shows a user's order", w2, svc)))
                        return -ENOMEM;
                ADD_ID(d, g, DIAG_WARNING, "pam-order-user", where, fix,
                       "%s: whether pam_rdmalimit runs after pam_limits depends on the user (the copies of the module "
                       "decide differently): for a user %s, pam_rdmalimit (%s) runs before pam_limits (%s), which "
                       "then overrides it; for a user %s, it runs after",
                       svc, ub, where, w2, ua);
                return 0;
        }
        /* the fix the tool can carry out: pam_rdmalimit after that pam_limits, in this
         * service's own file (a file pam-auth-update or authselect manages is never edited) */
        const char *base = strstr(l->file, own);
        if (base && streq(base, own) && m->marked)   /* in its own file, a line enable added */
                fix = strf("rdmalimits enable --service %s (puts pam_rdmalimit after %s)", svc, w2);
        else if (base && streq(base, own))
                fix = strf("move the pam_rdmalimit line (%s) after pam_limits (%s) by hand, or remove it and run "
                           "rdmalimits enable --service %s (which moves only a line it added)", where, w2, svc);
        else
                fix = strf("move the pam_rdmalimit line (%s) after pam_limits (%s)", where, w2);
        if (!fix)
                return -ENOMEM;
        ADD_ID(d, g, DIAG_ERROR, "pam-order", where, fix,
               "%s: pam_rdmalimit runs before pam_limits (%s), which then sets its own values: pam_limits overrides it",
               svc, w2);
        return 0;
}

/* Each line of the module that reads a policy of its own (conf=) that it refuses or that is
 * missing: that line leaves memlock alone for everyone, or, strict, fails the session where
 * its control makes a failure count (the default policy is checked with the configuration
 * files).  Each pam_limits line whose conf= file it cannot read: it fails every session. */
static int pam_check_copies(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st) {
        for (size_t i = 0; i < st->n; i++) {
                const struct pam_entry *e = &st->v[i];
                const char *name, *refused;
                enum pam_ret ret;
                if (streq(e->name, "pam_limits")) {
                        const struct lc_tree *t = line_tree_of(d, e);
                        if (!t || !t->conf_override || !lc_tree_fails_every_session(t))
                                continue;   /* limits.conf is checked with the configuration files */
                        _cleanup_free_ char *where = strf("%s:%u", e->file, e->line);
                        if (!where)
                                return -ENOMEM;
                        char head[4200];
                        ADD_ID(d, g, DIAG_WARNING, "pam-limits-conf", where, NULL,
                               "%s: %s: it fails every %s session where it runs (PAM_SERVICE_ERR), and its control "
                               "'%s' decides what that does",
                               svc, lc_conf_unreadable_text(t, head, sizeof head), svc, e->control);
                        continue;
                }
                if (!streq(e->name, "pam_rdmalimit") || line_policy_of(d, e, &name, &refused) ||
                    streq(name, d->in->policy_name))
                        continue;
                if (session_module_ret(e->args, NULL, false, &ret) < 0)
                        return -ENOMEM;
                _cleanup_free_ char *where = strf("%s:%u", e->file, e->line);
                _cleanup_free_ char *why = *refused ? strf("refuses it: %s", refused) : strdup("it does not exist");
                _cleanup_free_ char *fix = strf("fix %s (rdmalimits --conf %s check --policy), or remove conf= from "
                                                "the line", name, name);
                if (!where || !why || !fix)
                        return -ENOMEM;
                if (ret == PAM_RET_FAIL)
                        ADD_ID(d, g, DIAG_ERROR, "pam-copy-policy", where, fix,
                               "%s: pam_rdmalimit reads %s, and %s; the line says strict, so it fails the %s session "
                               "where its control '%s' makes a failure count", svc, name, why, svc, e->control);
                else
                        ADD_ID(d, g, DIAG_WARNING, "pam-copy-policy", where, fix,
                               "%s: pam_rdmalimit reads %s, and %s: this line leaves memlock unchanged for everyone",
                               svc, name, why);
        }
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* one stack */

/* Neither module, or pam_rdmalimit without pam_limits. */
static int pam_check_presence(struct doc *d, enum doctor_group g, const char *svc, const char *file, long lim,
                              long mod) {
        _cleanup_free_ char *fix = NULL;

        if (lim < 0 && mod < 0) {
                if (!(fix = strf("add 'session required pam_limits.so' to %s", file)))
                        return -ENOMEM;
                ADD(d, g, d->max.soft_known || d->max.hard_known ? DIAG_ERROR : DIAG_WARNING, file, fix,
                    "%s: neither pam_limits nor pam_rdmalimit is in the session stack: %s sessions keep the memlock "
                    "of the service that opens them",
                    svc, svc);
        } else if (lim < 0) {
                if (!(fix = strf("add 'session required pam_limits.so' before pam_rdmalimit in %s", file)))
                        return -ENOMEM;
                ADD(d, g, d->tree_has_memlock ? DIAG_WARNING : DIAG_INFO, file, d->tree_has_memlock ? fix : NULL,
                    "%s: pam_limits is not in the session stack: limits.conf and limits.d do not apply to %s "
                    "sessions, only pam_rdmalimit does",
                    svc, svc);
        }
        return 0;
}

static int pam_check_limits_line(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st,
                                 long lim) {
        const struct pam_entry *e = &st->v[lim];
        _cleanup_free_ char *where = NULL;
        bool ok;
        int r;

        if ((r = pam_check_module(d, g, svc, st, (size_t)lim, &where, &ok)) < 0)
                return r;
        const struct stack_run *run = d->walks ? &session_walks_all(d->walks)->run : NULL;
        if (ok && run && run->last_limits != lim) {
                /* nothing jumps over it, but the walk never gets there: a line before it ends
                 * the stack (requisite that fails, sufficient, done, die) */
                const struct pam_entry *x = run->ended_at >= 0 ? &st->v[run->ended_at] : NULL;
                _cleanup_free_ char *w2 = x ? strf("%s:%u", x->file, x->line) : NULL;
                if (x && !w2)
                        return -ENOMEM;
                _cleanup_free_ char *what = x ? strf("'%s %s'", x->control, x->module) : strdup("a line");
                if (!what)
                        return -ENOMEM;
                ADD(d, g, DIAG_ERROR, x ? w2 : where, "rdmalimits explain USER --service SERVICE walks the stack line by line",
                    "%s: pam_limits (%s) does not run: %s ends the session stack before it%s", svc, where, what,
                    run->failed ? ", which fails" : "");
                ok = false;
        }
        if (ok)
                ADD(d, g, DIAG_OK, where, NULL, "%s: pam_limits runs in the session stack as '%s'", svc, e->control);
        /* its arguments as every command reads them (lc_args_parse(): word by word, the last
         * conf= winning, as pam_limits' own parser) */
        struct lc_args args;
        if (lc_args_parse(e->args, &args) >= 0 && args.conf_set)
                ADD(d, g, DIAG_INFO, where, NULL,
                    "%s: pam_limits has 'conf=%s': it reads only that file, not limits.conf and limits.d", svc,
                    args.conf);
        return 0;
}

static int pam_check_module_line(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st,
                                 long lim, long mod, const char *file) {
        _cleanup_free_ char *where = NULL, *fix = NULL;
        bool ok;
        int r;

        if (mod < 0) {
                if (!d->in->policy_exists)
                        return 0;
                if (!(fix = strf("add 'session optional pam_rdmalimit.so' after pam_limits in %s", file)))
                        return -ENOMEM;
                ADD(d, g, DIAG_INFO, file, fix,
                    "%s: pam_rdmalimit is not in the session stack: the policy does not apply to %s sessions", svc,
                    svc);
                return 0;
        }
        const struct pam_entry *e = &st->v[mod];
        d->module_in_any_stack = true;
        if ((r = pam_check_module(d, g, svc, st, (size_t)mod, &where, &ok)) < 0)
                return r;
        if ((r = pam_check_copies(d, g, svc, st)) < 0 || (r = pam_order_check(d, g, svc, st)) <= 0)
                return r;
        if (ok)
                ADD(d, g, DIAG_OK, where, NULL, "%s: pam_rdmalimit runs%s as '%s'", svc,
                    lim >= 0 ? " after pam_limits" : "", e->control);
        return 0;
}

/* A stack whose includes cycle or go past the walk's bound: nothing after it can be checked. */
static int pam_check_includes(struct doc *d, const char *svc, enum doctor_group g, const struct pam_stack *st) {
        return walk_finding(d, g, "pam-include-cycle", "pam-include-bound", DIAG_ERROR, st->include_error, st->include_where, "include",
                            "rdmalimits reads no more of this stack", svc, PAM_CYCLE_EFFECT);
}

/* The copies of pam_limits and pam_rdmalimit whose values count: the last of each that runs
 * for the users every policy has a rule for (the session engine's walk, as explain names
 * them), else the first in the stack. */
static void pam_copies(const struct doc *d, const struct pam_stack *st, long *ret_lim, long *ret_mod) {
        const struct stack_run *run = &session_walks_all(d->walks)->run;
        *ret_lim = run->last_limits >= 0 ? run->last_limits : pam_stack_find(st, "pam_limits");
        *ret_mod = run->last_module >= 0 ? run->last_module : pam_stack_find(st, "pam_rdmalimit");
}

/* Each control libpam cannot read (a misspelt or upper-case value, a jump past INT_MAX, no
 * '='): it makes every result of the line "bad", and so the stack fails whenever that line
 * runs (the session engine's grammar, pam_control_action(), is libpam's parser). */
static int pam_check_controls(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st) {
        for (size_t i = 0; i < st->n; i++) {
                const struct pam_entry *e = &st->v[i];
                enum pam_action a;
                unsigned jump;
                if (e->fails || pam_control_action(e->control, PAM_RET_SUCCESS, &a, &jump) >= 0)
                        continue;
                _cleanup_free_ char *where = strf("%s:%u", e->file, e->line);
                _cleanup_free_ char *fix = strf("write the control as pam.conf(5) says: 'required', 'requisite', "
                                                "'sufficient', 'optional', or [value=action ...] with lower-case "
                                                "values such as success and default");
                if (!where || !fix)
                        return -ENOMEM;
                ADD(d, g, DIAG_ERROR, where, fix,
                    "%s: libpam cannot read the control '%s' of %s: it treats every result of the line as a "
                    "failure, so the %s session fails where it runs", svc, e->control, e->module, svc);
        }
        return 0;
}

/* The stack fails whatever the modules whose result is not known return (the session engine's
 * walk, every such module succeeding): no session of svc opens, as explain says. */
static int pam_check_fails(struct doc *d, enum doctor_group g, const char *svc, const struct pam_stack *st,
                           const char *file) {
        const struct stack_run *run = d->walks ? &session_walks_all(d->walks)->run : NULL;
        if (!run || !run->failed)
                return 0;
        const struct pam_entry *x = run->ended_at >= 0 ? &st->v[run->ended_at] : NULL;
        _cleanup_free_ char *w = x ? strf("%s:%u", x->file, x->line) : NULL;
        if (x && !w)
                return -ENOMEM;
        ADD(d, g, DIAG_ERROR, x ? w : file, "rdmalimits explain USER --service SERVICE walks the stack line by line",
            "%s: the session stack fails (pam_open_session() returns %s%s): no %s session opens", svc,
            pam_ret_name(run->status), st->other ? "; the service has no session lines, libpam runs pam.d/other's" : "",
            svc);
        return 0;
}

static int pam_check_walked(struct doc *d, const char *svc, enum doctor_group g, const struct pam_stack *st,
                            const char *file) {
        long lim = -1, mod = -1;
        int r;

        if (d->walks)
                pam_copies(d, st, &lim, &mod);
        if (st->error)
                return doctor_add(d->rep, g, DIAG_WARNING, NULL, file, NULL,
                                  "%s: cannot be read (%s)", svc, errno_text(st->error));
        if (st->include_error)
                return pam_check_includes(d, svc, g, st);
        if (st->aborts) {
                /* measured with Debian 12's libpam: pam_start() fails, whatever the rest says */
                char what[512], fix[512] = "";
                pam_abort_text(st, what, sizeof what, fix, sizeof fix);
                ADD(d, g, DIAG_ERROR, st->abort_where, fix[0] ? fix : NULL, "%s: %s and no %s session opens", svc,
                    what, svc);
                return 0;   /* nothing else of this stack runs */
        }
        if ((r = pam_check_controls(d, g, svc, st)) < 0)
                return r;
        if ((r = pam_check_fails(d, g, svc, st, file)) < 0)
                return r;
        if ((r = pam_check_presence(d, g, svc, file, lim, mod)) < 0)
                return r;
        if (lim >= 0 && (r = pam_check_limits_line(d, g, svc, st, lim)) < 0)
                return r;
        return pam_check_module_line(d, g, svc, st, lim, mod, file);
}

/* One stack, walked once for every user a policy has a rule for when it can be read. */
static int pam_check_stack(struct doc *d, const char *svc, enum doctor_group g, const struct pam_stack *st,
                           const char *file) {
        _cleanup_(session_walks_clear) struct session_walks w = {};
        int r;

        if (!st->error && !st->include_error) {
                if ((r = session_walks_every_user(st, d->in->lines, &w)) < 0)
                        return r;
                d->walks = &w;
        }
        r = pam_check_walked(d, svc, g, st, file);
        d->walks = NULL;
        return r;
}

/* The stack of svc; one that is not installed is an error only when asked for (--service). */
static int check_pam_service(struct doc *d, const char *svc, enum doctor_group g, bool asked) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        _cleanup_free_ char *abs = strf("/etc/pam.d/%s", svc);
        int r;

        if (!abs)
                return -ENOMEM;
        r = pam_stack_load(d->in->root, svc, &st);
        if (r < 0)
                return r;
        if (st.error == -ENOENT && !asked)
                return 0;       /* not installed */
        if (st.error == -ENOENT && !st.other) {
                /* no pam.d/other either (pam_start() fails), or one without session lines */
                ADD(d, g, DIAG_ERROR, disp(d, abs), NULL, "%s: no such PAM service", svc);
                return 0;
        }
        d->stacks_seen++;
        if (st.error == -ENOENT) {
                /* libpam runs other's stack (or none: pam_start() fails, which the walk says) */
                _cleanup_free_ char *other = strf("/etc/pam.d/other");
                if (!other)
                        return -ENOMEM;
                if (st.other)
                        ADD(d, g, DIAG_INFO, disp(d, abs), NULL, "%s: no file of its own: libpam runs pam.d/other's "
                            "session stack", svc);
                st.error = 0;
                return pam_check_stack(d, svc, g, &st, disp(d, other));
        }
        return pam_check_stack(d, svc, g, &st, disp(d, abs));
}

/* --service when doctor examines it besides pam_services[] (a display manager or a site's own
 * service, with the console logins): NULL when not given or one of them; *ret_bad when it is no
 * PAM service name. */
static const char *extra_service(const struct doc *d, bool *ret_bad) {
        const char *extra = d->in->service;

        *ret_bad = false;
        for (size_t i = 0; extra && i < ELEMENTSOF(pam_services); i++)
                if (streq(extra, pam_services[i].name))
                        return NULL;
        if (extra && (!extra[0] || strchr(extra, '/') || extra[0] == '.')) {
                *ret_bad = true;
                return NULL;
        }
        return extra;
}

int check_pam_services(struct doc *d) {
        bool bad;
        const char *extra = extra_service(d, &bad);
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(pam_services) && r >= 0; i++)
                r = check_pam_service(d, pam_services[i].name, pam_services[i].group, false);
        if (r < 0)
                return r;
        if (bad)
                return doctor_add(d->rep, DOCTOR_CONSOLE, DIAG_ERROR, NULL, d->in->service, NULL,
                                  "not a PAM service name");
        return extra ? check_pam_service(d, extra, DOCTOR_CONSOLE, true) : 0;
}

/* ------------------------------------------------------------------------------------ */
/* The hardware cache `auto` is computed from: what the module lines read. */

/* The cache a pam_rdmalimit line reads (its cache=, else the module's default), "" for none,
 * when it reads the policy doctor read; NULL: another policy, or out of memory (*ret_r). */
static char *line_cache(const struct doc *d, const struct pam_entry *e, int *ret_r) {
        _cleanup_free_ char *buf = NULL;
        const char *name, *refused;
        struct login_args a;

        *ret_r = 0;
        (void)line_policy_of(d, e, &name, &refused);
        if (!name || !d->in->policy_name || !streq(name, d->in->policy_name))
                return NULL;
        if (session_module_args(e->args, &a, &buf) < 0) {
                *ret_r = -ENOMEM;
                return NULL;
        }
        char *c = strdup(a.cache ? a.cache : "");
        if (!c)
                *ret_r = -ENOMEM;
        return c;
}

/* Each pam_rdmalimit line of the stacks doctor examines that reads its policy, with the
 * cache it reads, into lines ("FILE:LINE") and caches. */
static int module_caches(struct doc *d, struct strv *lines, struct strv *caches) {
        bool bad;
        const char *extra = extra_service(d, &bad);
        int r = 0;

        for (size_t i = 0; i <= ELEMENTSOF(pam_services) && r >= 0; i++) {
                const char *svc = i < ELEMENTSOF(pam_services) ? pam_services[i].name : extra;
                _cleanup_(pam_stack_clear) struct pam_stack st = {};
                if (!svc)
                        continue;
                if ((r = pam_stack_load(d->in->root, svc, &st)) < 0)
                        break;
                for (size_t k = 0; !st.error && k < st.n && r >= 0; k++) {
                        const struct pam_entry *e = &st.v[k];
                        _cleanup_free_ char *c = NULL, *where = NULL;
                        if (!streq(e->name, "pam_rdmalimit"))
                                continue;
                        if (!(c = line_cache(d, e, &r)))
                                continue;
                        if (!(where = strf("%s:%u", e->file, e->line)))
                                return -ENOMEM;
                        if (strv_contains(lines->v, where))
                                continue;    /* the same line through another stack */
                        if ((r = strv_push(lines, where)) >= 0)
                                r = strv_push(caches, c);
                }
        }
        return r;
}

/* d->cache = a copy of c, NULL for none: 0 or -ENOMEM */
static int set_cache(struct doc *d, const char *c) {
        if (c)
                return set_str(&d->cache, c);
        free(d->cache);
        d->cache = NULL;
        return 0;
}

const char *cache_root(const struct doc *d) {
        return d->in->hw_cache_given ? NULL : d->in->root;
}

const char *cache_shown(const struct doc *d) {
        return !d->cache || d->in->hw_cache_given ? d->cache : disp(d, d->cache);
}

int pam_choose_cache(struct doc *d) {
        _cleanup_(strv_clear) struct strv lines = {}, caches = {};
        const char *deflt = HW_CACHE_PATH;
        int r;

        if (d->cache_chosen)
                return 0;
        d->cache_chosen = true;
        if (d->in->hw_cache_given)
                return set_cache(d, d->in->hw_cache && *d->in->hw_cache ? d->in->hw_cache : NULL);
        if ((r = module_caches(d, &lines, &caches)) < 0)
                return r;
        bool agree = caches.n > 0;
        for (size_t i = 1; i < caches.n; i++)
                agree &= streq(caches.v[i], caches.v[0]);
        if (agree) {
                if ((r = set_str(&d->cache_where, lines.v[0])) < 0)
                        return r;
                return set_cache(d, *caches.v[0] ? caches.v[0] : NULL);
        }
        if ((r = set_cache(d, deflt)) < 0)
                return r;
        /* they differ: the default, and the lines that read another */
        size_t len = 0;
        for (size_t i = 0; i < caches.n; i++) {
                if (streq(caches.v[i], deflt))
                        continue;
                _cleanup_free_ char *one = strf("%s%s reads %s", len ? "; " : "", lines.v[i],
                                                *caches.v[i] ? caches.v[i] : "none (cache=)");
                char *all = one ? strf("%s%s", d->cache_others ? d->cache_others : "", one) : NULL;
                if (!all)
                        return -ENOMEM;
                free(d->cache_others);
                d->cache_others = all;
                len = strlen(all);
        }
        return 0;
}
