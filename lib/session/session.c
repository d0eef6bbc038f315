/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "apply.h"
#include "doctor.h"
#include "array.h"
#include "fsutil.h"
#include "ident.h"
#include "macro.h"
#include "procfs.h"
#include "rlmodel.h"
#include "session.h"
#include "size.h"
#include "sshdconf.h"
#include "strv.h"

/* ---- PAM controls (Linux-PAM libpam/pam_misc.c: _pam_parse_control) ---- */

/* libpam's return value names (pam_tokens.h), in its order: a value is the first name its
 * text starts with; "default" is the last. */
static const char *const pam_returns[] = {
        "success",        "open_err",          "symbol_err",       "service_err",     "system_err",
        "buf_err",        "perm_denied",       "auth_err",         "cred_insufficient", "authinfo_unavail",
        "user_unknown",   "maxtries",          "new_authtok_reqd", "acct_expired",    "session_err",
        "cred_unavail",   "cred_expired",      "cred_err",         "no_module_data",  "conv_err",
        "authtok_err",    "authtok_recover_err", "authtok_lock_busy", "authtok_disable_aging", "try_again",
        "ignore",         "abort",             "authtok_expired",  "module_unknown",  "bad_item",
        "conv_again",     "incomplete",        "default",
};

/* The first name of names (n of them) that the text p..end starts with: its index, or n. */
static size_t prefix_of(const char *const *names, size_t n, const char *p, const char *end) {
        for (size_t i = 0; i < n; i++) {
                size_t l = strlen(names[i]);
                if ((size_t)(end - p) >= l && memcmp(names[i], p, l) == 0)
                        return i;
        }
        return n;
}

static const char *skip_space(const char *p, const char *end) {
        while (p < end && isspace((unsigned char)*p))
                p++;
        return p;
}

/* An action at *pp (one of libpam's names, by prefix, or a jump: digits up to INT_MAX, not 0),
 * *pp moved past it.  -EINVAL where libpam reports a parse error. */
static int parse_action(const char **pp, const char *end, enum pam_action *ret, unsigned *ret_jump) {
        static const char *const names[] = { "ignore", "ok", "done", "bad", "die", "reset" };
        static const enum pam_action acts[] = { PAM_ACT_IGNORE, PAM_ACT_OK, PAM_ACT_DONE,
                                                PAM_ACT_BAD, PAM_ACT_DIE, PAM_ACT_RESET };
        const char *p = *pp;
        size_t i = prefix_of(names, ELEMENTSOF(names), p, end);
        unsigned n = 0;

        if (i < ELEMENTSOF(names)) {
                *ret = acts[i];
                *pp = p + strlen(names[i]);
                return 0;
        }
        for (; p < end && isdigit((unsigned char)*p); p++) {
                unsigned d = (unsigned)(*p - '0');
                if (n > (unsigned)INT_MAX / 10 || n * 10 > (unsigned)INT_MAX - d)
                        return -EINVAL;
                n = n * 10 + d;
        }
        if (n == 0)
                return -EINVAL;   /* no digit ("expecting jump number"), or 0 ("expecting non-zero":
                                   * 'ignore' is the token for it) */
        *ret = PAM_ACT_JUMP;
        *ret_jump = n;
        *pp = p;
        return 0;
}

/* The value name a return value matches in a [value=action ...] control. */
static const char *const *value_names(enum pam_ret ret) {
        static const char *const names[][2] = {
                [PAM_RET_SUCCESS] = { "success", NULL },         [PAM_RET_IGNORE] = { "ignore", NULL },
                [PAM_RET_FAIL] = { "session_err", NULL },        [PAM_RET_UNKNOWN] = { "module_unknown", NULL },
                [PAM_RET_PERM_DENIED] = { "perm_denied", NULL }, [PAM_RET_SERVICE_ERR] = { "service_err", NULL },
                [PAM_RET_USER_UNKNOWN] = { "user_unknown", NULL }, [PAM_RET_AUTH_ERR] = { "auth_err", NULL },
        };
        return names[(size_t)ret < ELEMENTSOF(names) ? ret : PAM_RET_PERM_DENIED];
}

const char *pam_ret_name(enum pam_ret ret) {
        static const char *const names[] = {
                [PAM_RET_SUCCESS] = "PAM_SUCCESS",         [PAM_RET_IGNORE] = "PAM_IGNORE",
                [PAM_RET_FAIL] = "PAM_SESSION_ERR",        [PAM_RET_UNKNOWN] = "PAM_MODULE_UNKNOWN",
                [PAM_RET_PERM_DENIED] = "PAM_PERM_DENIED", [PAM_RET_SERVICE_ERR] = "PAM_SERVICE_ERR",
                [PAM_RET_USER_UNKNOWN] = "PAM_USER_UNKNOWN", [PAM_RET_AUTH_ERR] = "PAM_AUTH_ERR",
        };
        return (size_t)ret < ELEMENTSOF(names) ? names[ret] : "?";
}

/* One value=action pair of a [...] control, with where its action's text is. */
struct control_pair {
        const char *value;
        size_t value_len;
        enum pam_action a;
        unsigned jump;
        const char *action;      /* the action's text in the control */
        size_t action_len;
};

/* As libpam reads a [...] control: a return value name (by prefix), blanks, '=', blanks, an
 * action, and on to the next pair, with or without a blank between them; anything else is a
 * parse error, after which libpam makes every result of the line "bad". */
static int control_walk(const char *control, int (*f)(const struct control_pair *cp, void *userdata), void *userdata) {
        const char *p, *end;
        int r;

        if (control[0] != '[')
                return 0;
        p = control + 1;
        end = strchr(p, ']');   /* libpam's tokenizer: the first ']' ends the control */
        if (!end)
                return -EINVAL;
        for (;;) {
                p = skip_space(p, end);
                if (p >= end)
                        break;
                size_t k = prefix_of(pam_returns, ELEMENTSOF(pam_returns), p, end);
                if (k == ELEMENTSOF(pam_returns))
                        return -EINVAL;   /* "expecting return value" */
                struct control_pair cp = { .value = p, .value_len = strlen(pam_returns[k]) };
                p = skip_space(p + cp.value_len, end);
                if (p >= end || *p++ != '=')
                        return -EINVAL;   /* "expecting '='" */
                p = skip_space(p, end);
                cp.action = p;
                if (parse_action(&p, end, &cp.a, &cp.jump) < 0)
                        return -EINVAL;
                cp.action_len = (size_t)(p - cp.action);
                if ((r = f(&cp, userdata)) < 0)
                        return r;
        }
        return 0;
}

struct pairs_cb {
        int (*f)(const char *value, size_t len, enum pam_action a, unsigned jump, void *userdata);
        void *userdata;
};

static int pair_cb(const struct control_pair *cp, void *userdata) {
        const struct pairs_cb *c = userdata;
        return c->f(cp->value, cp->value_len, cp->a, cp->jump, c->userdata);
}

int pam_control_pairs(const char *control, int (*f)(const char *value, size_t len, enum pam_action a, unsigned jump,
                                                    void *userdata),
                      void *userdata) {
        struct pairs_cb c = { f, userdata };
        return control_walk(control, pair_cb, &c);
}

struct jumps_cb {
        int (*f)(const char *digits, size_t len, unsigned jump, void *userdata);
        void *userdata;
};

static int jump_cb(const struct control_pair *cp, void *userdata) {
        const struct jumps_cb *c = userdata;
        return cp->a == PAM_ACT_JUMP ? c->f(cp->action, cp->action_len, cp->jump, c->userdata) : 0;
}

int pam_control_jumps(const char *control, int (*f)(const char *digits, size_t len, unsigned jump, void *userdata),
                      void *userdata) {
        struct jumps_cb c = { f, userdata };
        return control_walk(control, jump_cb, &c);
}

struct bracket {
        enum pam_ret ret;
        bool found, found_default;
        enum pam_action a, def;
        unsigned jump, def_jump;
};

/* As _pam_parse_control() fills its table: a value named again takes its last action; a
 * default= sets only the values still unset, so the first one counts, and a value it has set
 * a later pair of that value overrides */
static int bracket_pair(const char *value, size_t len, enum pam_action a, unsigned jump, void *userdata) {
        struct bracket *b = userdata;
        if (len == 7 && memcmp(value, "default", 7) == 0) {
                if (!b->found_default) {
                        b->def = a;
                        b->def_jump = jump;
                        b->found_default = true;
                }
        } else
                for (const char *const *v = value_names(b->ret); *v; v++)
                        if (strlen(*v) == len && memcmp(value, *v, len) == 0) {
                                b->a = a;
                                b->jump = jump;
                                b->found = true;
                                break;
                        }
        return 0;
}

static int bracket_action(const char *control, enum pam_ret ret, enum pam_action *ret_action, unsigned *ret_jump) {
        struct bracket b = { .ret = ret, .def = PAM_ACT_BAD };
        int r = pam_control_pairs(control, bracket_pair, &b);
        if (r < 0)
                return r;
        if (b.found) {
                *ret_action = b.a;
                *ret_jump = b.jump;
        } else {
                /* without default=, an unnamed value is "bad" (Linux-PAM's default) */
                *ret_action = b.found_default ? b.def : PAM_ACT_BAD;
                *ret_jump = b.def_jump;
        }
        return 0;
}

int pam_control_action(const char *control, enum pam_ret ret, enum pam_action *ret_action, unsigned *ret_jump) {
        static const struct {
                const char *name;
                enum pam_action ok, fail;
        } simple[] = {
                { "required", PAM_ACT_OK, PAM_ACT_BAD },        { "requisite", PAM_ACT_OK, PAM_ACT_DIE },
                { "sufficient", PAM_ACT_DONE, PAM_ACT_IGNORE }, { "optional", PAM_ACT_OK, PAM_ACT_IGNORE },
        };

        *ret_jump = 0;
        if (control[0] == '[')
                return bracket_action(control, ret, ret_action, ret_jump);
        if (ret == PAM_RET_IGNORE)
                *ret_action = PAM_ACT_IGNORE;
        /* libpam reads the four words with strcasecmp(), a [...] control's values and actions
         * with strncmp() (pam_handlers.c, pam_misc.c _pam_parse_control()) */
        for (size_t i = 0; i < ELEMENTSOF(simple); i++)
                if (strcasecmp(control, simple[i].name) == 0) {
                        if (ret != PAM_RET_IGNORE)
                                *ret_action = ret == PAM_RET_SUCCESS ? simple[i].ok : simple[i].fail;
                        return 0;
                }
        return -EINVAL;
}

/* ---- walking a stack ---- */

bool pam_condition_module(const char *name) {
        static const char *const names[] = { "pam_succeed_if", "pam_localuser", "pam_usertype", "pam_listfile",
                                             "pam_wheel",      "pam_access",    "pam_rootok",   "pam_time",
                                             "pam_exec" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(name, names[i]))
                        return true;
        return false;
}

static bool known_result(const char *name) {
        return streq(name, "pam_permit") || streq(name, "pam_deny") || streq(name, "pam_limits") ||
               streq(name, "pam_rdmalimit");
}

static enum pam_ret assumed_ret(const char *name, enum pam_ret limits_ret, enum pam_ret module_ret) {
        if (streq(name, "pam_deny"))
                return PAM_RET_FAIL;      /* pam_sm_open_session(): PAM_SESSION_ERR */
        if (streq(name, "pam_limits"))
                return limits_ret;
        if (streq(name, "pam_rdmalimit"))
                return module_ret;
        return PAM_RET_SUCCESS;
}

/* ---- pam_succeed_if ---- */

/* strtoll(s, &end, 0) of all of s, as evaluate_num() takes it */
static bool succeed_if_num(const char *s, long long *ret) {
        char *end;
        errno = 0;
        *ret = strtoll(s, &end, 0);
        return *end == '\0' && !errno;
}

/* evaluate_inlist(): left is one of right's ':'-separated items */
static bool succeed_if_inlist(const char *left, const char *right) {
        const char *p;
        while ((p = strstr(right, left))) {
                if (p == right || p[-1] == ':') {
                        const char *q = p + strlen(left);
                        if (*q == '\0' || *q == ':')
                                return true;
                }
                right = strchr(p, ':');
                if (!right)
                        break;
                right++;
        }
        return false;
}

/* pam_modutil_user_in_group_nam_nam() (ident_user_member()) for each of grouplist's
 * ':'-separated groups: 1 when the user is in one, 0, or negative */
static int succeed_if_ingroup(struct ident *id, const struct id_user *u, const char *grouplist) {
        _cleanup_free_ char *copy = strdup(grouplist);
        char *save = NULL;
        if (!copy)
                return -ENOMEM;
        for (char *g = strtok_r(copy, ":", &save); g; g = strtok_r(NULL, ":", &save)) {
                const struct id_group *gr;
                int r = ident_group(id, g, &gr);
                if (r == -ENOENT)
                        continue;
                if (r < 0 || (r = ident_user_member(id, u, gr)) != 0)
                        return r;
        }
        return 0;
}

/* One condition, as evaluate() does it: an enum pam_ret, or -1 (not known here) */
static int succeed_if_eval(const char *left, const char *qual, const char *right, struct ident *id, const char *user,
                           const char *service) {
        char buf[64];
        const char *v;
        const struct id_user *u = NULL;

        if (strcasecmp(left, "login") == 0 || strcasecmp(left, "name") == 0 || strcasecmp(left, "user") == 0)
                v = user;
        else if (strcasecmp(left, "uid") == 0 || strcasecmp(left, "gid") == 0) {
                int r = ident_user(id, user, &u);
                if (r == -ENOENT)
                        return PAM_RET_USER_UNKNOWN;
                if (r < 0)
                        return -1;
                snprintf(buf, sizeof buf, "%lu", strcasecmp(left, "uid") == 0 ? (unsigned long)u->uid
                                                                               : (unsigned long)u->gid);
                v = buf;
        } else if (strcasecmp(left, "service") == 0)
                v = service;
        else if (strcasecmp(left, "shell") == 0 || strcasecmp(left, "home") == 0 || strcasecmp(left, "dir") == 0 ||
                 strcasecmp(left, "homedir") == 0 || strcasecmp(left, "ruser") == 0 ||
                 strcasecmp(left, "rhost") == 0 || strcasecmp(left, "tty") == 0)
                return -1;      /* the login's, or not read by the model */
        else
                return PAM_RET_SERVICE_ERR;   /* "unknown attribute" */

        static const struct { const char *a, *b; int op; } nums[] = {
                { "<", "lt", 0 }, { "<=", "le", 1 }, { ">", "gt", 2 }, { ">=", "ge", 3 }, { "eq", NULL, 4 },
                { "ne", NULL, 5 },
        };
        for (size_t i = 0; i < ELEMENTSOF(nums); i++)
                if (strcasecmp(qual, nums[i].a) == 0 || (nums[i].b && strcasecmp(qual, nums[i].b) == 0)) {
                        long long l, r;
                        if (!succeed_if_num(v, &l) || !succeed_if_num(right, &r))
                                return PAM_RET_SERVICE_ERR;
                        bool ok = nums[i].op == 0 ? l < r : nums[i].op == 1 ? l <= r : nums[i].op == 2 ? l > r :
                                  nums[i].op == 3 ? l >= r : nums[i].op == 4 ? l == r : l != r;
                        return ok ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
                }
        if (strcasecmp(qual, "=") == 0 || strcasecmp(qual, "!=") == 0)
                return (strcmp(v, right) == 0) == (qual[0] == '=') ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
        if (strcasecmp(qual, "=~") == 0 || strcasecmp(qual, "glob") == 0)
                return fnmatch(right, v, 0) == 0 ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
        if (strcasecmp(qual, "!~") == 0 || strcasecmp(qual, "noglob") == 0)
                return fnmatch(right, v, 0) != 0 ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
        if (strcasecmp(qual, "in") == 0 || strcasecmp(qual, "notin") == 0)
                return succeed_if_inlist(v, right) == (strcasecmp(qual, "in") == 0) ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
        if (strcasecmp(qual, "ingroup") == 0 || strcasecmp(qual, "notingroup") == 0) {
                /* of the user (evaluate()'s user: PAM_USER, whatever the left side) */
                int r = ident_user(id, user, &u);
                if (r == -ENOENT)
                        return PAM_RET_AUTH_ERR;   /* pam_modutil_user_in_group_nam_nam(): no user, no member */
                if (r < 0 || (r = succeed_if_ingroup(id, u, right)) < 0)
                        return -1;
                return (r == 1) == (strcasecmp(qual, "ingroup") == 0) ? PAM_RET_SUCCESS : PAM_RET_AUTH_ERR;
        }
        if (strcasecmp(qual, "innetgr") == 0 || strcasecmp(qual, "notinnetgr") == 0)
                return -1;
        return PAM_RET_SERVICE_ERR;   /* "fail closed" */
}

int succeed_if_ret(const char *args, struct ident *id, const char *user, const char *service) {
        static const char *const flags[] = { "debug", "use_uid", "quiet", "quiet_fail", "quiet_success", "audit" };
        size_t n = 0;
        _cleanup_free_ char *words = pam_args_words(args ? args : "", &n);
        const char *cond[3];
        size_t k = 0;

        if (!words || !user)
                return -1;
        const char *w = words;
        for (size_t i = 0; i < n; i++, w = pam_args_next(w)) {
                bool flag = false;
                for (size_t f = 0; f < ELEMENTSOF(flags); f++)
                        if (streq(w, flags[f])) {
                                if (f == 1)
                                        return -1;      /* use_uid: the caller's uid */
                                flag = true;
                        }
                if (flag)
                        continue;
                cond[k++] = w;
                if (k < 3)
                        continue;
                k = 0;
                int r = succeed_if_eval(cond[0], cond[1], cond[2], id, user, service);
                if (r != PAM_RET_SUCCESS)
                        return r;       /* the first that fails decides; -1: not known */
        }
        return k ? PAM_RET_SERVICE_ERR : PAM_RET_SUCCESS;   /* "incomplete condition" */
}

int stack_run_walk(const struct pam_stack *st, enum pam_ret limits_ret, enum pam_ret module_ret,
                   struct stack_run *ret) {
        return stack_run_walk_each(st, NULL, limits_ret, NULL, module_ret, ret);
}

/* libpam's impression of a stack (pam_dispatch.c) */
enum impression { IMP_UNDEF, IMP_POSITIVE, IMP_NEGATIVE };

struct dispatch_state {
        enum impression imp;
        enum pam_ret status;
};

/* The lowest level libpam passes through on its way to entry i from the entry that ran before
 * it at level `last` (the substack nodes just before i's, whose handlers libpam visits). */
static unsigned entry_from_level(const struct pam_stack *st, size_t i, unsigned last) {
        unsigned lo = last;
        for (size_t h = st->v[i].link; h > 0 && st->chain[h - 1].entry < 0; h--)
                if (st->chain[h - 1].level < lo)
                        lo = st->chain[h - 1].level;
        return lo;
}

int stack_run_walk_each(const struct pam_stack *st, const enum pam_ret *limits_rets, enum pam_ret limits_ret,
                        const enum pam_ret *module_rets, enum pam_ret module_ret, struct stack_run *ret) {
        return stack_run_walk_cond(st, limits_rets, limits_ret, module_rets, module_ret, NULL, ret);
}

int stack_run_walk_cond(const struct pam_stack *st, const enum pam_ret *limits_rets, enum pam_ret limits_ret,
                        const enum pam_ret *module_rets, enum pam_ret module_ret, const int *cond_rets,
                        struct stack_run *ret) {
        struct stack_run r = STACK_RUN_INIT;
        /* _pam_dispatch_aux(): the state, and the one saved where each level began (reset) */
        struct dispatch_state cur = { IMP_UNDEF, PAM_RET_PERM_DENIED }, saved[PAM_LEVEL_LIMIT + 1];
        unsigned last_level = 0;

        saved[0] = cur;
        r.run = calloc(st->n ? st->n : 1, sizeof(*r.run));
        if (!r.run)
                return -ENOMEM;
        for (size_t i = 0; i < st->n;) {
                const struct pam_entry *e = &st->v[i];
                bool cond_known = cond_rets && cond_rets[i] >= 0 && !e->fails && !e->unloadable;
                enum pam_ret rv = e->fails ? PAM_RET_PERM_DENIED : e->unloadable ? PAM_RET_UNKNOWN :
                                  cond_known ? (enum pam_ret)cond_rets[i] :
                                  assumed_ret(e->name, limits_rets ? limits_rets[i] : limits_ret,
                                              module_rets ? module_rets[i] : module_ret);
                unsigned level = e->level < PAM_LEVEL_LIMIT ? e->level : PAM_LEVEL_LIMIT;
                enum pam_action a;
                unsigned jump = 0;

                /* remember the state on entering a substack */
                for (unsigned k = entry_from_level(st, i, last_level) + 1; k <= level; k++)
                        saved[k] = cur;
                last_level = level;
                r.run[r.n_run++] = i;
                if (e->unloadable) {
                        if (r.unloadable < 0)
                                r.unloadable = (long)i;
                } else if (e->fails)
                        ;
                else if (streq(e->name, "pam_limits")) {
                        r.last_limits = (long)i;
                        r.n_limits++;
                } else if (streq(e->name, "pam_rdmalimit"))
                        r.last_module = (long)i;
                if (pam_control_action(e->control, rv, &a, &jump) < 0)
                        a = PAM_ACT_BAD;   /* libpam treats an unreadable control as a failure */
                bool decides = a == PAM_ACT_JUMP || a == PAM_ACT_DONE || a == PAM_ACT_DIE || a == PAM_ACT_RESET;
                /* a condition's result decides whatever its control: a required one that fails
                 * fails the session */
                if ((decides || pam_condition_module(e->name)) && !known_result(e->name) && !e->fails &&
                    !e->unloadable && !cond_known) {
                        if (!r.assumed)
                                r.assumed_at = (long)i;
                        r.assumed = true;
                }
                bool decided = false;
                switch (a) {
                case PAM_ACT_RESET:
                        cur = saved[level];
                        break;
                case PAM_ACT_OK:
                case PAM_ACT_DONE:
                        /* the chain is being frozen: even PAM_IGNORE is taken as the status */
                        if (cur.imp == IMP_UNDEF || (cur.imp == IMP_POSITIVE && cur.status == PAM_RET_SUCCESS))
                                cur = (struct dispatch_state){ IMP_POSITIVE, rv };
                        decided = a == PAM_ACT_DONE && cur.imp == IMP_POSITIVE;
                        break;
                case PAM_ACT_BAD:
                case PAM_ACT_DIE:
                        if (cur.imp != IMP_NEGATIVE)
                                cur = (struct dispatch_state){ IMP_NEGATIVE,
                                                               rv == PAM_RET_IGNORE ? PAM_RET_PERM_DENIED : rv };
                        decided = a == PAM_ACT_DIE;
                        break;
                default:
                        break;
                }
                if (decided) {
                        /* a decision inside a substack ends the substack only */
                        if (e->level == 0) {
                                r.ended_at = (long)i;
                                break;
                        }
                        i = pam_stack_level_end(st, i);
                        continue;
                }
                if (a == PAM_ACT_JUMP) {
                        bool bad;
                        i = pam_stack_jump(st, i, jump, &bad);
                        if (bad)   /* "bad jump in stack" */
                                cur = (struct dispatch_state){ IMP_NEGATIVE, PAM_RET_PERM_DENIED };
                } else
                        i++;
        }
        /* the sanity check: a success stands only with a positive impression */
        r.status = cur.status == PAM_RET_SUCCESS && cur.imp != IMP_POSITIVE ? PAM_RET_PERM_DENIED : cur.status;
        /* pam_start() fails (see pam_stack.aborts): no session opens; the walk still says which
         * lines would run after, for doctor's and enable's order.  A service file that cannot
         * be read (and no `other` taken for it): nothing known of the result. */
        r.failed = st->aborts || ((!st->error || st->other) && r.status != PAM_RET_SUCCESS);
        *ret = r;
        return 0;
}

void stack_run_clear(struct stack_run *r) {
        free(r->run);
        *r = (struct stack_run)STACK_RUN_INIT;
}

const struct pam_entry *session_last_module(const struct session_model *m) {
        return m->run.last_module >= 0 && (size_t)m->run.last_module < m->stack.n ? &m->stack.v[m->run.last_module]
                                                                                 : NULL;
}

const char *session_order_name(enum session_order o) {
        static const char *const names[] = {
                [SESSION_MODULE_LAST] = "after-pam_limits",
                [SESSION_LIMITS_LAST] = "before-pam_limits",
                [SESSION_NO_MODULE] = "not-in-stack",
                [SESSION_NO_PAM] = "no-pam-session",
        };
        return (size_t)o < ELEMENTSOF(names) && names[o] ? names[o] : "unknown";
}

/* ---- the service ---- */

int session_service_from_pid(pid_t pid, struct lc_service *ret) {
        _cleanup_free_ char *limits = NULL, *status = NULL, *comm = NULL;
        struct lc_service s = { .known = true };
        int r;

        if ((r = proc_read(pid, "limits", PROC_TEXT_MAX, &limits)) < 0 ||
            (r = proc_read(pid, "status", PROC_TEXT_MAX, &status)) < 0)
                return r;
        if (proc_comm(pid, &comm) < 0)
                comm = NULL;
        lc_parse_proc_limits(limits, s.rl);
        if (!s.rl[RLIMIT_MEMLOCK].known)
                return -EBADMSG;
        s.cap_sys_resource = proc_cap_effective(pid, status, CAP_SYS_RESOURCE);
        s.nr_open = lc_nr_open();
        snprintf(s.source, sizeof s.source, "%s (pid %d)", comm ? comm : "?", (int)pid);
        _cleanup_free_ char *cgroup = NULL, *unit = NULL;
        if (proc_read(pid, "cgroup", PROC_TEXT_MAX, &cgroup) >= 0 && proc_cgroup_unit(cgroup, &unit) >= 0)
                snprintf(s.unit, sizeof s.unit, "%s", unit);
        *ret = s;
        return 0;
}

int session_sshd_conf(const char *root, pid_t pid, struct sshd_conf *ret) {
        const struct proc_daemon *dm = proc_daemon_of("sshd");
        _cleanup_(strv_clear) struct strv opts = {};
        _cleanup_free_ char *path = NULL;
        char cmd_where[64] = "";
        pid_t asked = 0;
        int r, cmd_error = 0;

        if (!fs_root_is_set(root)) {
                /* the listener found (identified there), or the caller's process if it is sshd */
                bool daemon = false;
                if (pid == 0)
                        daemon = proc_daemon_find(dm, proc_systemd_manages(), &pid) >= 0;
                else if (pid > 0) {
                        _cleanup_free_ char *status = NULL, *why = NULL;
                        char exe[PATH_MAX];
                        r = proc_read(pid, "status", PROC_TEXT_MAX, &status);
                        if (r >= 0)
                                r = proc_daemon_identify(dm, pid, status, proc_systemd_manages(), exe, &why);
                        if (r == -ENOMEM)
                                return r;
                        daemon = r > 0;
                }
                if (daemon) {
                        asked = pid;
                        r = sshd_cmdline(pid, &path, &opts);
                        if (r == -ENOMEM)
                                return r;
                        if (r >= 0)
                                snprintf(cmd_where, sizeof cmd_where, "the command line of sshd (pid %d)", (int)pid);
                        else {    /* the default file, as if it had no options: said */
                                cmd_error = r;
                                strv_clear(&opts);
                                free(path);
                                path = NULL;
                        }
                }
        }
        r = sshd_conf_read(root, path, &opts, *cmd_where ? cmd_where : NULL, ret);
        if (r >= 0) {
                ret->pid = asked;
                ret->cmdline_error = cmd_error;
        }
        return r;
}

void session_target_no_pam(const struct session_pam_answer *pa, struct session_target *t) {
        t->cause = SESSION_SHORT_NO_PAM;
        snprintf(t->why, sizeof t->why, "%s", pa->why);
        snprintf(t->where, sizeof t->where, "%.300s", pa->where);
        if (pa->kind == SESSION_PAM_NONE)
                session_pam_fix(pa->where, t->fix, sizeof t->fix);
        else
                *t->fix = '\0';
}

void session_pam_fix(const char *where, char *buf, size_t size) {
        if (strncmp(where, "the command line", 16) == 0)
                snprintf(buf, size, "start sshd without its -o UsePAM option (%.200s: its unit's ExecStart=, or "
                         "SSHD_OPTS in /etc/default/ssh), then restart sshd", where);
        else
                snprintf(buf, size, "set 'UsePAM yes' %s %.400s (sshd takes the first value it reads), then restart "
                         "sshd", strchr(where, ':') ? "at" : "in", where);
}

int session_service_pam(const char *root, const char *service, pid_t pid, struct session_pam_answer *ret) {
        _cleanup_(sshd_conf_clear) struct sshd_conf c = {};
        struct session_pam_answer a = { .kind = SESSION_PAM_RUNS };
        const char *where = NULL;
        int r;

        if (!streq(service, "sshd")) {
                *ret = a;
                return 0;
        }
        if ((r = session_sshd_conf(root, pid, &c)) < 0)
                return r;
        switch (sshd_conf_pam(&c, &where)) {
        case SSHD_PAM_YES:
                break;
        case SSHD_PAM_NO:
                a.kind = SESSION_PAM_NONE;
                if (c.set)
                        snprintf(a.why, sizeof a.why, "sshd opens no PAM session (UsePAM no, %s): neither pam_limits nor "
                                 "pam_rdmalimit runs for ssh logins, which keep sshd's own limits", where);
                else
                        snprintf(a.why, sizeof a.why, "sshd opens no PAM session (%s does not set UsePAM, and OpenSSH's "
                                 "built-in default is no): neither pam_limits nor pam_rdmalimit runs for ssh logins, "
                                 "which keep sshd's own limits", where);
                break;
        case SSHD_PAM_REFUSED:
                a.kind = SESSION_PAM_NO_DAEMON;
                snprintf(a.why, sizeof a.why, "sshd refuses its configuration (%s: %s): it does not start, and nobody "
                         "logs in by ssh", where,
                         c.walk.error == VISIT_ERR_CYCLE ? "an Include cycle"
                         : c.match_where                  ? "UsePAM inside a Match block"
                         : c.bad_where                    ? "UsePAM takes yes or no"
                                                          : "includes nested more than 16 deep");
                break;
        case SSHD_PAM_UNKNOWN:
                a.kind = SESSION_PAM_ASSUMED;
                if (c.error == -ENOENT)
                        snprintf(a.why, sizeof a.why, "assumed: sshd runs its PAM session stack (UsePAM yes); there is "
                                 "no %s", c.file);
                else
                        snprintf(a.why, sizeof a.why, "assumed: sshd runs its PAM session stack (UsePAM yes); %s cannot "
                                 "be read (%s)", c.file, c.error ? errno_text(c.error) : visit_strerror(c.walk.error));
                break;
        }
        if (c.cmdline_error && a.kind != SESSION_PAM_NO_DAEMON) {
                /* the file's answer holds only if its command line says nothing of UsePAM */
                size_t l = strlen(a.why);
                if (a.kind == SESSION_PAM_RUNS) {
                        a.kind = SESSION_PAM_ASSUMED;
                        l = (size_t)snprintf(a.why, sizeof a.why, "assumed: sshd runs its PAM session stack (%s)",
                                             where ? where : c.file);
                }
                snprintf(a.why + l, sizeof a.why - l, "; assumed: sshd (pid %d) reads %s and has no -o UsePAM: its "
                         "command line cannot be used (%s)", (int)c.pid, c.file,
                         c.cmdline_error == -EBADMSG ? "cut short, or a relative -f path"
                                                     : errno_text(c.cmdline_error));
        }
        snprintf(a.where, sizeof a.where, "%s", where ? where : "");
        *ret = a;
        return 0;
}

/*
 * su, sudo and runuser open their PAM session in a root process that stays the parent of what
 * they run (to close the session), and that session starts from the limits of whoever ran
 * them.  Their service is the program's, or its login one for a login shell (su -, sudo -i),
 * which each decides from its command line with getopt_long(): the tables below are their
 * option strings (util-linux su-common.c: "c:fg:G:lmpPs:u:hVw:", GNU order: options after
 * operands count, and a first operand "-" asks for a login shell; sudo: "+Aa:BbC:c:D:Eeg:Hh::
 * iKklNnPp:R:r:ST:t:U:u:Vv", stopping at the first operand).  Long options: '=' before a name
 * that takes an argument, '!' before one that asks for a login shell.
 */
struct caller_opts {
        const char *arg;                /* letters that take an argument */
        const char *optarg;             /* letters whose argument, if any, is the rest of the word */
        const char *login;              /* letters that ask for a login shell */
        const char *const *longs;
        bool permute, dash_login;
};
static const char *const su_longs[] = { "=command", "=session-command", "fast", "!login", "preserve-environment",
                                        "pty", "=shell", "=group", "=supp-group", "=user",
                                        "=whitelist-environment", "help", "version", NULL };
static const struct caller_opts su_opts = { "cgGsuw", "", "l", su_longs, true, true };
static const char *const sudo_longs[] = { "askpass", "=auth-type", "background", "bell", "=close-from",
                                          "=login-class", "=chdir", "preserve-env", "edit", "=group", "set-home",
                                          "help", "host", "!login", "remove-timestamp", "reset-timestamp", "list",
                                          "no-update", "non-interactive", "preserve-groups", "=prompt", "=chroot",
                                          "=role", "stdin", "shell", "=type", "=command-timeout", "=other-user",
                                          "=user", "version", "validate", NULL };
static const struct caller_opts sudo_opts = { "aCcDgpRrTtUu", "h", "i", sudo_longs, false, false };

static const struct caller_prog {
        const char *exe[2];
        const char *service, *login_service;
        const struct caller_opts *opts;
} caller_progs[] = {
        { { "/usr/bin/su", "/bin/su" }, "su", "su-l", &su_opts },
        { { "/usr/sbin/runuser", "/sbin/runuser" }, "runuser", "runuser-l", &su_opts },
        { { "/usr/bin/sudo", "/bin/sudo" }, "sudo", "sudo-i", &sudo_opts },
};

/* The long option a word names ("--NAME" or "--NAME=..."): an exact name, else the only one it
 * is a prefix of (getopt_long()); NULL when none or several. */
static const char *long_option(const char *const *longs, const char *word) {
        size_t n = strcspn(word, "=");
        const char *found = NULL;
        for (const char *const *l = longs; *l; l++) {
                const char *name = *l + (**l == '=' || **l == '!');
                if (strlen(name) == n && strncmp(name, word, n) == 0)
                        return *l;
                if (strlen(name) > n && strncmp(name, word, n) == 0) {
                        if (found)
                                return NULL;
                        found = *l;
                }
        }
        return found;
}

static bool caller_asks_login(const struct caller_opts *o, char *const *argv, size_t argc) {
        const char *first = NULL;
        bool login = false;

        for (size_t i = 1; i < argc; i++) {
                const char *a = argv[i];
                if (streq(a, "--")) {
                        if (!first && i + 1 < argc)
                                first = argv[i + 1];
                        break;
                }
                if (a[0] != '-' || a[1] == '\0') {      /* an operand ("-" too) */
                        if (!first)
                                first = a;
                        if (!o->permute)
                                break;
                        continue;
                }
                if (a[1] == '-') {
                        const char *l = long_option(o->longs, a + 2);
                        if (l && *l == '!')
                                login = true;
                        else if (l && *l == '=' && !strchr(a, '='))
                                i++;    /* its argument is the next word */
                        continue;
                }
                for (size_t j = 1; a[j]; j++) {
                        if (strchr(o->login, a[j]))
                                login = true;
                        if (strchr(o->optarg, a[j]))
                                break;  /* the rest of the word is its argument */
                        if (strchr(o->arg, a[j])) {
                                if (!a[j + 1])
                                        i++;
                                break;
                        }
                }
        }
        return login || (o->dash_login && first && streq(first, "-"));
}

const char *session_caller_service(const char *exe, char *const *argv, size_t argc) {
        for (size_t i = 0; i < ELEMENTSOF(caller_progs); i++)
                for (size_t k = 0; k < ELEMENTSOF(caller_progs[i].exe) && caller_progs[i].exe[k]; k++)
                        if (streq(exe, caller_progs[i].exe[k]))
                                return caller_asks_login(caller_progs[i].opts, argv, argc)
                                               ? caller_progs[i].login_service
                                               : caller_progs[i].service;
        return NULL;
}

/* A process's parent, whether it runs as root (effective uid 0) and its executable. */
struct ancestor {
        uint64_t ppid, ruid, euid;
        bool exe_known;
        char exe[PATH_MAX];
};

static int read_ancestor(pid_t p, struct ancestor *a) {
        _cleanup_free_ char *status = NULL;
        int r = proc_read(p, "status", PROC_TEXT_MAX, &status);
        if (r < 0)
                return r;
        if (proc_field_u64(status, "PPid", &a->ppid) < 0 || proc_field_u64_nth(status, "Uid", 0, &a->ruid) < 0 ||
            proc_field_u64_nth(status, "Uid", 1, &a->euid) < 0)
                return -EBADMSG;
        /* root's, and its executable as the kernel names it: nothing a user can fake */
        a->exe_known = (a->ruid == 0 || a->euid == 0) && proc_exe(p, a->exe) >= 0;
        return 0;
}

int session_caller_service_cmdline(const char *exe, const char *cmd, size_t len, const char **ret) {
        _cleanup_free_ char **argv = NULL;
        size_t argc = 0;

        *ret = NULL;
        if (!session_caller_service(exe, NULL, 0))
                return 0;
        for (size_t i = 0; i < len; i++)
                argc += cmd[i] == '\0';
        argc += len > 0;
        if (!(argv = calloc(argc + 1, sizeof(char *))))
                return -ENOMEM;
        for (size_t i = 0, k = 0; k < argc; k++) {
                argv[k] = (char *)cmd + i;
                i += strnlen(cmd + i, len - i) + 1;
        }
        *ret = session_caller_service(exe, argv, argc);
        return 0;
}

/* A process's command line (proc_cmdline()): an unreadable one is empty. */
static int read_cmdline(pid_t p, char **ret, size_t *ret_len) {
        int r = proc_cmdline(p, ret, ret_len);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret = NULL;
                *ret_len = 0;
        }
        return 0;
}

int session_service_of_process(pid_t pid, char *buf, size_t size, pid_t *ret_opener, pid_t *ret_caller) {
        pid_t p = pid;

        *ret_caller = 0;
        for (unsigned depth = 0; depth < 64 && p > 1; depth++) {
                struct ancestor a;
                const char *service;
                int r = read_ancestor(p, &a);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return 0;
                if (a.exe_known && a.ruid == 0)
                        for (size_t i = 0; i < ELEMENTSOF(proc_daemons); i++) {
                                const struct proc_daemon *dm = &proc_daemons[i];
                                if (dm->pam && (proc_daemon_runs(dm, a.exe) || strv_contains((char **)dm->session_exe, a.exe))) {
                                        snprintf(buf, size, "%s", dm->service);
                                        *ret_opener = p;
                                        return 1;
                                }
                        }
                if (!a.exe_known || a.euid != 0 || !session_caller_service(a.exe, NULL, 0)) {
                        p = (pid_t)a.ppid;
                        continue;
                }
                /* su, runuser or sudo; sudo's monitor is a fork of the sudo that opened the
                 * session, the same program with the same command line: the first of such a
                 * chain opened it, and its parent is the caller (a su run by su is another
                 * session: another command line).  The chain may end at PID 1: a PID namespace
                 * whose init is that sudo, whose caller is then outside it (ppid 0). */
                _cleanup_free_ char *cmd = NULL;
                size_t len;
                if ((r = read_cmdline(p, &cmd, &len)) < 0)
                        return r;
                pid_t opener = p;
                for (unsigned k = depth; k < 64 && a.ppid > 0; k++) {
                        _cleanup_free_ char *up_cmd = NULL;
                        struct ancestor up;
                        size_t up_len;
                        if ((r = read_ancestor((pid_t)a.ppid, &up)) == -ENOMEM)
                                return r;
                        if (r < 0 || !up.exe_known || up.euid != 0 || !streq(up.exe, a.exe))
                                break;
                        if ((r = read_cmdline((pid_t)a.ppid, &up_cmd, &up_len)) < 0)
                                return r;
                        if (up_len != len || (len > 0 && memcmp(up_cmd, cmd, len) != 0))
                                break;
                        opener = (pid_t)a.ppid;
                        a = up;
                }
                if ((r = session_caller_service_cmdline(a.exe, cmd, len, &service)) < 0)
                        return r;
                snprintf(buf, size, "%s", service);
                *ret_opener = opener;
                *ret_caller = (pid_t)a.ppid;
                return 1;
        }
        return 0;
}

/* The running daemon of a PAM service, as doctor identifies it (procfs.h: one answer). */
int session_service_find(const char *service, pid_t *ret_pid, pid_t *ret_other) {
        return proc_daemon_find_other(proc_daemon_of(service), proc_systemd_manages(), ret_pid, ret_other);
}

bool session_service_of_caller(const char *service) {
        for (size_t i = 0; i < ELEMENTSOF(caller_progs); i++)
                if (streq(service, caller_progs[i].service) || streq(service, caller_progs[i].login_service))
                        return true;
        return false;
}

void session_service_assume(const char *root, const char *proc1_limits, struct lc_service *ret) {
        _cleanup_free_ char *status = NULL;
        struct lc_service s = {};

        /* PID 1's limits: what init gives a service without LimitMEMLOCK=, from the one reader
         * of them (the file given, under --root the tree's proc/1/limits when it has one, else
         * an assumption: never the host's) */
        bool read = lc_proc1_limits(root, proc1_limits, s.rl) >= 0;
        bool from_tree = read && !proc1_limits && fs_root_is_set(root);
        if (fs_root_is_set(root) && !read && !proc1_limits)
                s.rl[RLIMIT_MEMLOCK] = (struct lc_rl){ .known = true, .soft = LC_ASSUMED_PID1_MEMLOCK,
                                                       .hard = LC_ASSUMED_PID1_MEMLOCK };
        /* a daemon of the running system has this process's capabilities at most; one of a
         * tree is taken to have CAP_SYS_RESOURCE, as root daemons do on a normal host */
        if (fs_root_is_set(root))
                s.cap_sys_resource = true;
        else if (proc_read(getpid(), "status", PROC_TEXT_MAX, &status) >= 0)
                s.cap_sys_resource = proc_cap_effective(getpid(), status, CAP_SYS_RESOURCE);
        s.nr_open = lc_nr_open();
        /* a file named that cannot be read is said so: its limits are unknown, not assumed */
        char given[160];
        if (proc1_limits)
                snprintf(given, sizeof given, "%s%s", proc1_limits, read ? "" : ", which cannot be read: unknown");
        snprintf(s.source, sizeof s.source, "assumed: the limits of PID 1 (%s) and %s CAP_SYS_RESOURCE (%s)",
                 proc1_limits ? given : from_tree ? "the tree's proc/1/limits" :
                 fs_root_is_set(root) ? LC_ASSUMED_PID1_SOURCE : "init's defaults",
                 s.cap_sys_resource ? "with" : "without",
                 fs_root_is_set(root) ? "as a root daemon has" : "as this process");
        *ret = s;
}

int session_service_unit(const char *root, const char *unit, const char *daemon, struct lc_service *svc, char *where,
                         size_t where_size) {
        struct doctor_unit_limit u;
        int r = doctor_unit_memlock(root, unit, &u);

        if (r < 0)
                return r;
        if (!u.found)
                return 0;
        svc->rl[RLIMIT_MEMLOCK] = (struct lc_rl){ .known = true, .soft = u.soft, .hard = u.hard };
        snprintf(svc->source, sizeof svc->source, "%s (%.200s), no running %s asked", unit, u.src, daemon);
        snprintf(where, where_size, "%s", u.where);
        return 1;
}

/* ---- the model ---- */

/* What pam_limits returns (pam_sm_open_session()): PAM_PERM_DENIED when it refuses the login,
 * PAM_USER_UNKNOWN for a user it cannot look up, PAM_SERVICE_ERR for a file it cannot read. */
static enum pam_ret limits_ret_of(const struct lc_result *res, const struct lc_session *pl) {
        if (pl->kind == LC_SESSION_REFUSED)
                return PAM_RET_PERM_DENIED;
        if (pl->kind == LC_SESSION_FAILS)
                return res->kind == LC_RES_USER_UNKNOWN ? PAM_RET_USER_UNKNOWN : PAM_RET_SERVICE_ERR;
        return PAM_RET_SUCCESS;
}

/* Are the stack's lines known: its file was read, or libpam runs `other`'s for it. */
static bool stack_known(const struct pam_stack *st) {
        return !st->error || st->other;
}

/* One policy a pam_rdmalimit line reads, with the hardware it sees: its decision for the user. */
struct mod_run {
        const struct policy *p;      /* NULL: none the module can use */
        const struct hw_summary *hw;
        struct policy_decision dec;
        bool matched;                /* a rule sets a value */
};

/* The copies of a session: v[0] the input's policy; of[i] the policy of stack entry i (0 for
 * a line that is no pam_rdmalimit). */
struct mods {
        struct mod_run *v;
        size_t n;
        size_t *of;
};

static void mods_clear(struct mods *ms) {
        free(ms->v);
        free(ms->of);
        *ms = (struct mods){};
}

int session_module_decide(const struct policy *p, const struct hw_summary *hw, struct ident *id, const char *user,
                          struct policy_decision *ret, bool *ret_matched) {
        const struct id_user *u;
        char **groups = NULL;
        size_t n = 0;
        int r;

        *ret_matched = false;
        if (!p)
                return 0;
        r = ident_user(id, user, &u);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        r = policy_user_groups(p, id, u, &groups, &n);
        if (r >= 0)
                r = policy_evaluate(p, u->name, (const char *const *)groups, n, hw, ret);
        strv_free(groups);
        if (r < 0)
                return r;
        *ret_matched = ret->matched && !ret->untouched;
        return 0;
}

static int decide_module(const struct session_input *in, struct mod_run *x) {
        return session_module_decide(x->p, x->hw, in->id, in->user, &x->dec, &x->matched);
}

/* The index of (p, hw) in ms, decided the first time it is met.  -ENOMEM, or the policy's. */
static int mods_add(const struct session_input *in, struct mods *ms, const struct policy *p,
                    const struct hw_summary *hw, size_t *ret) {
        int r;

        for (size_t k = 0; k < ms->n; k++)
                if (ms->v[k].p == p && ms->v[k].hw == hw) {
                        *ret = k;
                        return 0;
                }
        if (GROW_EXACT(ms->v, ms->n + 1) < 0)
                return -ENOMEM;
        ms->v[ms->n] = (struct mod_run){ .p = p, .hw = hw };
        if ((r = decide_module(in, &ms->v[ms->n])) < 0)
                return r;
        *ret = ms->n++;
        return 0;
}

int session_module_args(const char *args, struct login_args *a, char **ret_buf) {
        size_t n;
        char *buf = pam_args_words(args, &n);

        login_args_init(a);
        if (!buf)
                return -ENOMEM;
        const char *w = buf;
        for (size_t k = 0; k < n; k++, w = pam_args_next(w))
                (void)login_arg(a, w);
        *ret_buf = buf;
        return 0;
}

int session_module_ret(const char *args, const struct policy *p, bool matched, enum pam_ret *ret) {
        _cleanup_free_ char *buf = NULL;
        struct login_args a;

        if (matched) {
                *ret = PAM_RET_SUCCESS;
                return 0;
        }
        if (session_module_args(args, &a, &buf) < 0)
                return -ENOMEM;
        /* pam_sm_open_session(): a policy it cannot load is an error, PAM_SESSION_ERR when
         * strict; a user no rule sets a value for is PAM_IGNORE */
        *ret = !p && a.strict ? PAM_RET_FAIL : PAM_RET_IGNORE;
        return 0;
}

/* ---- views without a user ---- */

/* l->policy given (its callers check) */
static const struct policy *lines_policy(const struct session_lines *l, const struct pam_entry *e,
                                         const char **ret_name) {
        *ret_name = "";
        return l->policy(e, ret_name, NULL, l->data);
}

/* The index of p among w's policies with rules, w->n_policies when it is none of them. */
static size_t policy_index(const struct session_walks *w, const struct policy *p) {
        size_t k = 0;
        while (k < w->n_policies && w->policy[k] != p)
                k++;
        return k;
}

static bool tree_fails(const struct session_lines *l, const struct pam_entry *e) {
        const struct lc_tree *t = l && l->tree ? l->tree(e, l->data) : NULL;
        return t && lc_tree_fails_every_session(t);
}

/* Each line's return for the users of mask, into lrets and mrets. */
static int walk_rets(const struct pam_stack *st, const struct session_lines *l, const struct session_walks *w,
                     uint32_t mask, enum pam_ret *lrets, enum pam_ret *mrets) {
        for (size_t i = 0; i < st->n; i++) {
                const struct pam_entry *e = &st->v[i];
                const char *name;
                lrets[i] = mrets[i] = PAM_RET_SUCCESS;
                if (streq(e->name, "pam_limits")) {
                        if (tree_fails(l, e))
                                lrets[i] = PAM_RET_SERVICE_ERR;   /* its first file cannot be read */
                        continue;
                }
                if (!streq(e->name, "pam_rdmalimit") || !l || !l->policy)
                        continue;
                const struct policy *p = lines_policy(l, e, &name);
                size_t k = policy_index(w, p);
                bool matched = w->n_policies == 0 ||
                               (p && p->n_rules > 0 && (k == w->n_policies || (mask >> k & 1)));
                if (session_module_ret(e->args, p, matched, &mrets[i]) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int session_walks_every_user(const struct pam_stack *st, const struct session_lines *l, struct session_walks *ret) {
        struct session_walks w = {};
        _cleanup_free_ enum pam_ret *lrets = calloc(st->n ? st->n : 1, sizeof(*lrets));
        _cleanup_free_ enum pam_ret *mrets = calloc(st->n ? st->n : 1, sizeof(*mrets));
        int r = 0;

        if (!lrets || !mrets)
                return -ENOMEM;
        for (size_t i = 0; l && l->policy && i < st->n; i++) {
                const char *name;
                const struct policy *p;
                if (!streq(st->v[i].name, "pam_rdmalimit"))
                        continue;
                p = lines_policy(l, &st->v[i], &name);
                if (!p || p->n_rules == 0)
                        continue;
                if (policy_index(&w, p) == w.n_policies && w.n_policies < SESSION_MAX_POLICIES) {
                        w.policy[w.n_policies] = p;
                        w.name[w.n_policies++] = name;
                }
        }
        size_t n = w.n_policies ? ((size_t)1 << w.n_policies) - 1 : 1;
        if (!(w.v = calloc(n, sizeof(*w.v))))
                return -ENOMEM;
        for (size_t j = 0; j < n; j++) {
                uint32_t mask = w.n_policies ? (uint32_t)j + 1 : 0;
                if ((r = walk_rets(st, l, &w, mask, lrets, mrets)) < 0 ||
                    (r = stack_run_walk_each(st, lrets, PAM_RET_SUCCESS, mrets, PAM_RET_SUCCESS, &w.v[j].run)) < 0)
                        break;
                w.v[j].mask = mask;
                w.n = j + 1;
        }
        if (r < 0) {
                session_walks_clear(&w);
                return r;
        }
        *ret = w;
        return 0;
}

void session_walks_clear(struct session_walks *w) {
        for (size_t j = 0; j < w->n; j++)
                stack_run_clear(&w->v[j].run);
        free(w->v);
        *w = (struct session_walks){};
}

enum session_order session_walk_order(const struct stack_run *run) {
        return run->last_module < 0 ? SESSION_NO_MODULE :
               run->last_limits > run->last_module ? SESSION_LIMITS_LAST : SESSION_MODULE_LAST;
}

bool session_module_passed_over(const struct pam_stack *st, const struct stack_run *run, size_t *ret_module,
                                size_t *ret_by) {
        long mod = pam_stack_find(st, "pam_rdmalimit");
        if (mod < 0 || run->last_module >= 0 || run->n_run == 0)
                return false;
        /* the last line that ran before it: the next that ran (if any) is after it */
        long by = -1;
        for (size_t k = 0; k < run->n_run; k++)
                if (run->run[k] < (size_t)mod)
                        by = (long)run->run[k];
        if (by < 0)
                return false;
        *ret_module = (size_t)mod;
        *ret_by = (size_t)by;
        return true;
}

const struct session_walk *session_walks_all(const struct session_walks *w) {
        return w->n ? &w->v[w->n - 1] : NULL;
}

bool session_line_never_succeeds(const struct session_walks *w, const struct session_lines *l,
                                 const struct pam_entry *x) {
        const char *name;
        /* PAM_PERM_DENIED, PAM_MODULE_UNKNOWN: whatever the user */
        if (x->fails || x->unloadable)
                return true;
        if (streq(x->name, "pam_limits"))
                return tree_fails(l, x);
        if (!streq(x->name, "pam_rdmalimit") || w->n_policies == 0)
                return false;
        const struct policy *p = lines_policy(l, x, &name);
        return !p || p->n_rules == 0;
}

char *session_walk_users(const struct session_walks *w, uint32_t mask) {
        _cleanup_free_ char *has = NULL, *none = NULL;
        size_t n_has = 0;
        for (size_t k = 0; k < w->n_policies; k++) {
                char **to = mask >> k & 1 ? &has : &none;
                char *n = *to ? strf("%s, %s", *to, w->name[k]) : strdup(w->name[k]);
                if (!n)
                        return NULL;
                free(*to);
                *to = n;
                n_has += mask >> k & 1;
        }
        const char *verb = n_has > 1 ? "have" : "has";
        if (has && none)
                return strf("that %s %s a rule for and %s none", has, verb, none);
        if (has)
                return strf("that %s %s a rule for", has, verb);
        return strdup("that a policy has a rule for");
}

/* The input's policy, then that of each pam_rdmalimit line (in->line_policy), with the return
 * value each line has for the walk (*ret_rets, per entry: session_module_ret()). */
static int mods_load(const struct session_input *in, const struct pam_stack *st, struct mods *ms,
                     enum pam_ret **ret_rets) {
        _cleanup_free_ enum pam_ret *rets = NULL;
        size_t k;
        int r;

        *ret_rets = NULL;
        if ((r = mods_add(in, ms, in->policy, in->hw, &k)) < 0)
                return r;
        if (!stack_known(st))
                return 0;
        ms->of = calloc(st->n ? st->n : 1, sizeof(*ms->of));
        rets = calloc(st->n ? st->n : 1, sizeof(*rets));
        if (!ms->of || !rets)
                return -ENOMEM;
        for (size_t i = 0; i < st->n; i++) {
                const struct policy *p = in->policy;
                const struct hw_summary *hw = in->hw;
                if (!streq(st->v[i].name, "pam_rdmalimit"))
                        continue;
                if (in->line_policy)
                        in->line_policy(&st->v[i], &p, &hw, in->line_policy_data);
                if ((r = mods_add(in, ms, p, hw, &ms->of[i])) < 0 ||
                    (r = session_module_ret(st->v[i].args, p, ms->v[ms->of[i]].matched, &rets[i])) < 0)
                        return r;
        }
        *ret_rets = TAKE_PTR(rets);
        return 0;
}

/* One limits tree a pam_limits line of the stack reads: the user's resolution in it, and
 * pam_limits' outcome from the service's own limits (which decides the path through the
 * stack). */
struct tree_run {
        const struct lc_tree *t;
        struct lc_result res;
        struct lc_session pl;
};

/* The trees of a session: v[0] the input's tree; of[i] the tree of stack entry i (0 for a
 * line that is no pam_limits). */
struct trees {
        struct tree_run *v;
        size_t n;
        size_t *of;
};

static void trees_clear(struct trees *ts) {
        for (size_t k = 0; k < ts->n; k++)
                lc_result_clear(&ts->v[k].res);
        free(ts->v);
        free(ts->of);
        *ts = (struct trees){};
}

/* The index of t in ts, resolved the first time it is met.  -ENOMEM, lc_resolve()'s errors. */
static int trees_add(const struct session_input *in, struct trees *ts, const struct lc_tree *t, size_t *ret) {
        int r;

        for (size_t k = 0; k < ts->n; k++)
                if (ts->v[k].t == t) {
                        *ret = k;
                        return 0;
                }
        if (GROW_EXACT(ts->v, ts->n + 1) < 0)
                return -ENOMEM;
        struct tree_run *x = &ts->v[ts->n];
        *x = (struct tree_run){ .t = t };
        r = lc_resolve(t, in->id, in->user, in->base, &x->res);
        if (r >= 0)
                r = lc_session_outcome(t, &x->res, in->svc, &x->pl);
        if (r < 0) {
                lc_result_clear(&x->res);
                return r;
        }
        *ret = ts->n++;
        return 0;
}

/* The input's tree, then the tree of each pam_limits line of the stack (in->line_tree), with
 * the return value each line has for the walk (*ret_rets, per entry). */
static int trees_load(const struct session_input *in, const struct pam_stack *st, struct trees *ts,
                      enum pam_ret **ret_rets) {
        _cleanup_free_ enum pam_ret *rets = NULL;
        size_t k;
        int r;

        *ret_rets = NULL;
        if ((r = trees_add(in, ts, in->tree, &k)) < 0)
                return r;
        if (!stack_known(st))
                return 0;
        ts->of = calloc(st->n ? st->n : 1, sizeof(*ts->of));
        rets = calloc(st->n ? st->n : 1, sizeof(*rets));
        if (!ts->of || !rets)
                return -ENOMEM;
        for (size_t i = 0; i < st->n; i++) {
                const struct lc_tree *t = NULL;
                if (!streq(st->v[i].name, "pam_limits"))
                        continue;
                if (in->line_tree)
                        t = in->line_tree(&st->v[i], in->line_tree_data);
                if ((r = trees_add(in, ts, t ? t : in->tree, &ts->of[i])) < 0)
                        return r;
                rets[i] = limits_ret_of(&ts->v[ts->of[i]].res, &ts->v[ts->of[i]].pl);
        }
        *ret_rets = TAKE_PTR(rets);
        return 0;
}

/* One pam_limits run from cur, with the tree x: its outcome (m->pl), and cur afterwards.
 * 1 when it set memlock, else 0. */
static int run_limits(const struct session_input *in, struct session_model *m, const struct tree_run *x,
                      struct rl_pair *cur, bool *known) {
        struct lc_service s = *in->svc;
        int r;

        s.rl[RLIMIT_MEMLOCK] = (__typeof__(s.rl[0])){ .known = *known, .soft = cur->soft, .hard = cur->hard };
        r = lc_session_outcome(x->t, &x->res, &s, &m->pl);
        if (r < 0)
                return r;
        /* setup_limits() refuses (a login limit of 0, EPERM, Debian's chroot) after it sets the limits */
        bool applied = m->pl.kind == LC_SESSION_LIMITS ||
                       m->pl.kind == LC_SESSION_REFUSED;
        if (applied && m->pl.memlock_known) {
                *cur = (struct rl_pair){ m->pl.memlock_soft, m->pl.memlock_hard };
                *known = true;
                return 1;
        }
        return 0;
}

/* One pam_rdmalimit run from cur, with the copy x (entry e of the stack, -1: none): the
 * decision that sets memlock is the last run's that sets one (m->dec, m->module_entry). */
static void run_module(const struct session_input *in, struct session_model *m, const struct mod_run *x, long e,
                       struct rl_pair *cur, bool known) {
        bool eperm = false;

        if (!x->matched || !known)
                return;
        m->dec = x->dec;
        m->module_matched = true;
        m->module_entry = e;
        m->module_ran = true;
        m->at_module = *cur;
        *cur = rl_after_module(*cur, (struct rl_pair){ x->dec.soft, x->dec.hard }, x->dec.lower,
                               in->svc->cap_sys_resource, &eperm);
        m->module_eperm = m->module_eperm || eperm;
}

/* Does the directory a chroot line names (inside in's root) hold a file at the policy path of
 * a pam_rdmalimit line with args?  1, 0, -ENOMEM. */
static int jail_has_policy(const struct session_input *in, const char *dir, const char *args) {
        _cleanup_free_ char *buf = NULL, *path = NULL;
        struct login_args a;
        struct stat st;

        if (session_module_args(args, &a, &buf) < 0 || asprintf(&path, "%s/%s", dir, a.conf) < 0)
                return -ENOMEM;
        int r = fs_stat_in_root(in->root, path, false, &st);
        return r == -ENOMEM ? r : r >= 0;
}

static void set_kind(const struct session_input *in, struct session_model *m, bool limits_ran) {
        /* pam_limits failing fails the session where its control makes it (or no stack says) */
        bool fatal = m->run.failed || m->order == SESSION_NO_STACK;
        if (limits_ran && (m->pl.kind == LC_SESSION_REFUSED || m->pl.kind == LC_SESSION_FAILS) && fatal) {
                m->kind = m->pl.kind;
                snprintf(m->cause, sizeof m->cause, "%s", m->pl.cause);
        } else if (m->run.failed && m->stack.aborts) {
                m->kind = LC_SESSION_FAILS;
                char what[512], fix[512];
                pam_abort_text(&m->stack, what, sizeof what, fix, sizeof fix);
                if (m->stack.abort_where)
                        snprintf(m->cause, sizeof m->cause, "%s: %s", m->stack.abort_where, what);
                else
                        snprintf(m->cause, sizeof m->cause, "%s", what);
        } else if (m->run.failed) {
                m->kind = LC_SESSION_FAILS;
                snprintf(m->cause, sizeof m->cause, "the %s session stack%s fails: pam_open_session() returns %s",
                         in->service, m->stack.other ? " (pam.d/other's: the service has no session lines)" : "",
                         pam_ret_name(m->run.status));
        } else if (!limits_ran) {
                m->kind = LC_SESSION_NO_LIMITS;
                snprintf(m->cause, sizeof m->cause, "no pam_limits runs in the %s session stack%s", in->service,
                         m->stack.other ? " (pam.d/other's: the service has no session lines)" : "");
        } else
                m->kind = m->pl.kind == LC_SESSION_NO_LIMITS ? LC_SESSION_NO_LIMITS : LC_SESSION_LIMITS;
}

/* Every line that runs, in order, from cur: the pam_limits runs (each with its own tree)
 * and the module's.  *ret_last: the tree of the pam_limits run that decides (0: none ran):
 * the last one, unless it set nothing (a "-" line without a limit: memlock left as it is)
 * after another set memlock, which then decides (m->pl is its outcome). */
static int run_stack(const struct session_input *in, struct session_model *m, const struct trees *ts,
                     const struct mods *ms, struct rl_pair *cur, bool *known, bool *limits_ran, size_t *ret_last) {
        int r;

        *ret_last = 0;
        if (!stack_known(&m->stack)) {
                /* no stack to follow: pam_limits, then the module, as the documented order */
                *limits_ran = true;
                if ((r = run_limits(in, m, &ts->v[0], cur, known)) < 0)
                        return r;
                m->limits_before_module = true;
                run_module(in, m, &ms->v[0], -1, cur, *known);
                return 0;
        }
        struct lc_session set_pl = {};
        size_t set_tree = 0;
        bool set = false;
        const struct lc_line *jail = NULL;
        const struct lc_tree *jail_tree = NULL;
        size_t jail_from = 0;
        for (size_t i = 0; i < m->run.n_run; i++) {
                size_t e = m->run.run[i];
                const char *name = m->stack.v[e].name;
                if (m->stack.v[e].unloadable)
                        continue;   /* PAM_MODULE_UNKNOWN: it sets nothing */
                if (streq(name, "pam_limits")) {
                        *limits_ran = true;
                        *ret_last = ts->of[e];
                        if ((r = run_limits(in, m, &ts->v[ts->of[e]], cur, known)) < 0)
                                return r;
                        if (r > 0) {
                                set = true;
                                set_pl = m->pl;
                                set_tree = ts->of[e];
                        }
                        /* Debian's chroot item: the rest of the stack runs inside (a chroot
                         * that fails refuses the session: nothing runs after) */
                        if (ts->v[ts->of[e]].res.chroot && ts->v[ts->of[e]].pl.kind != LC_SESSION_REFUSED &&
                            !jail) {
                                jail = ts->v[ts->of[e]].res.chroot;
                                jail_tree = ts->v[ts->of[e]].t;
                                jail_from = i;
                        }
                } else if (streq(name, "pam_rdmalimit") && jail) {
                        if (!m->jail) {
                                m->jail = jail;
                                m->jail_tree = jail_tree;
                                m->jail_from = jail_from;
                                m->jail_module = (long)e;
                                if ((r = jail_has_policy(in, jail->value, m->stack.v[e].args)) < 0)
                                        return r;
                                m->jail_policy = r > 0;
                        }
                } else if (streq(name, "pam_rdmalimit")) {
                        run_module(in, m, &ms->v[ms->of[e]], (long)e, cur, *known);
                        /* the run that decides is the last one: did a pam_limits run come
                         * before it (pam_rdmalimit, pam_limits, pam_rdmalimit: yes) */
                        if (m->module_entry == (long)e)
                                m->limits_before_module = *limits_ran;
                }
        }
        if (set && m->pl.kind == LC_SESSION_NO_LIMITS) {
                m->pl = set_pl;
                *ret_last = set_tree;
        }
        return 0;
}

/* The results of the conditions the model evaluates for in's user, per entry of st
 * (stack_run_walk_cond()'s cond_rets; pam_succeed_if), malloc()ed; NULL: ENOMEM. */
static int *cond_rets(const struct session_input *in, const struct pam_stack *st) {
        int *v = calloc(st->n ? st->n : 1, sizeof(*v));
        char svc[256];

        if (!v)
                return NULL;
        pam_service_name(in->service, svc, sizeof svc);   /* PAM_SERVICE as pam_start() keeps it */
        for (size_t i = 0; i < st->n; i++)
                v[i] = streq(st->v[i].name, "pam_succeed_if") ? succeed_if_ret(st->v[i].args, in->id, in->user, svc)
                                                               : -1;
        return v;
}

/* The answers of the pam_rdmalimit lines that ran inside the directory of Debian's chroot
 * item where there is no policy (m->jail, !m->jail_policy): those of a module without one, into
 * mrets; *ret_changed when one differs from what the walk took.  0 or -ENOMEM. */
static int jail_rets(const struct session_model *m, enum pam_ret *mrets, bool *ret_changed) {
        *ret_changed = false;
        if (!m->jail || m->jail_policy || !mrets)
                return 0;
        for (size_t k = m->jail_from + 1; k < m->run.n_run; k++) {
                size_t e = m->run.run[k];
                enum pam_ret jr;
                if (!streq(m->stack.v[e].name, "pam_rdmalimit") || m->stack.v[e].unloadable)
                        continue;
                if (session_module_ret(m->stack.v[e].args, NULL, false, &jr) < 0)
                        return -ENOMEM;
                *ret_changed |= mrets[e] != jr;
                mrets[e] = jr;
        }
        return 0;
}

/* The model as it is before its walk (and again for a second one): the decision the input
 * policy's, no copy run, no chroot met, pam_limits' outcome from the service's limits. */
static void model_restart(struct session_model *m, const struct mod_run *input_copy, const struct lc_session *pl) {
        stack_run_clear(&m->run);
        m->dec = input_copy->dec;
        m->module_matched = input_copy->matched;
        m->module_entry = m->jail_module = -1;
        m->module_ran = m->module_eperm = m->limits_before_module = false;
        m->jail = NULL;
        m->jail_tree = NULL;
        m->jail_policy = false;
        m->pl = *pl;
}

/* The walk of the stack and the runs along it, from the service's limits (cur, known).  A
 * second pass when a pam_rdmalimit line ran inside the directory of Debian's chroot item,
 * which has no policy there: the module returns what it returns without one (PAM_IGNORE,
 * strict PAM_SESSION_ERR), not the host policy's answer, and the walk follows that.  0 or
 * -errno. */
static int walk_and_run(const struct session_input *in, struct session_model *m, const struct trees *ts,
                        const struct mods *ms, const enum pam_ret *rets, enum pam_ret *mrets, const int *crets,
                        struct rl_pair *cur, bool *known, bool *limits_ran, size_t *last) {
        for (unsigned pass = 0;; pass++) {
                bool again = false;
                int r = stack_run_walk_cond(&m->stack, rets, limits_ret_of(&ts->v[0].res, &m->pl), mrets,
                                            m->module_matched ? PAM_RET_SUCCESS : PAM_RET_IGNORE, crets, &m->run);
                if (r < 0)
                        return r;
                m->order = stack_known(&m->stack) ? session_walk_order(&m->run) : SESSION_NO_STACK;
                if ((r = run_stack(in, m, ts, ms, cur, known, limits_ran, last)) < 0)
                        return r;
                if (pass == 0 && (r = jail_rets(m, mrets, &again)) < 0)
                        return r;
                if (!again)
                        return 0;
                /* again from the start, with the module's answers inside the directory */
                model_restart(m, &ms->v[0], &ts->v[0].pl);
                *known = m->start_known;
                *cur = m->start;
                *limits_ran = false;
                *last = 0;
        }
}

int session_model_build(const struct session_input *in, struct session_model *ret) {
        struct session_model m = { .run = STACK_RUN_INIT };
        _cleanup_free_ enum pam_ret *rets = NULL, *mrets = NULL;
        _cleanup_free_ int *crets = NULL;
        struct trees ts = {};
        struct mods ms = {};
        struct rl_pair cur;
        bool known, limits_ran = false;
        size_t last = 0;
        int r;

        r = pam_stack_load(in->root, in->service, &m.stack);
        /* an include cycle or a stack past the walk's bound: no session to model */
        if (r >= 0 && m.stack.include_error)
                r = m.stack.include_error;
        if (r >= 0)
                r = trees_load(in, &m.stack, &ts, &rets);
        if (r >= 0)
                r = mods_load(in, &m.stack, &ms, &mrets);
        if (r < 0)
                goto fail;
        /* does a login of the service run the stack: asked of the process svc was read from (the
         * caller has looked for the service's: none is none, no second search); a caller that
         * opens the session itself is not the service's daemon, which is looked for */
        if ((r = session_service_pam(in->root, in->service, in->pam_direct ? 0 : in->svc_pid > 0 ? in->svc_pid : -1,
                                     &m.pam)) < 0)
                goto fail;
        /* until a copy of the module sets memlock, the decision is the input policy's; each
         * pam_limits' result from the service's limits decides the path through the stack */
        model_restart(&m, &ms.v[0], &ts.v[0].pl);
        known = m.start_known = in->svc->rl[RLIMIT_MEMLOCK].known;
        cur = m.start = (struct rl_pair){ in->svc->rl[RLIMIT_MEMLOCK].soft, in->svc->rl[RLIMIT_MEMLOCK].hard };
        if (!in->pam_direct && (m.pam.kind == SESSION_PAM_NONE || m.pam.kind == SESSION_PAM_NO_DAEMON)) {
                /* no stack runs: the login keeps the service's limits (m.pl and m.limits stay
                 * what pam_limits would do, for the target its entries ask) */
                m.order = SESSION_NO_PAM;
                m.final_known = known;
                m.final = cur;
                m.tree = ts.v[0].t;
                m.limits = ts.v[0].res;
                ts.v[0].res = (struct lc_result){};
                m.kind = m.pam.kind == SESSION_PAM_NONE ? LC_SESSION_NO_LIMITS : LC_SESSION_FAILS;
                snprintf(m.cause, sizeof m.cause, "%s", m.pam.why);
                mods_clear(&ms);
                trees_clear(&ts);
                *ret = m;
                return 0;
        }
        if (!(crets = cond_rets(in, &m.stack))) {
                r = -ENOMEM;
                goto fail;
        }
        if ((r = walk_and_run(in, &m, &ts, &ms, rets, mrets, crets, &cur, &known, &limits_ran, &last)) < 0)
                goto fail;
        /* copies ran and none set memlock: the decision shown is the last one's */
        if (m.module_entry < 0 && stack_known(&m.stack) && m.run.last_module >= 0) {
                m.dec = ms.v[ms.of[m.run.last_module]].dec;
                m.module_matched = ms.v[ms.of[m.run.last_module]].matched;
        }
        mods_clear(&ms);
        m.final_known = known;
        m.final = cur;
        /* the resolution shown is that of the tree the last pam_limits run read */
        m.tree = ts.v[last].t;
        m.limits = ts.v[last].res;
        ts.v[last].res = (struct lc_result){};
        trees_clear(&ts);
        /* no pam_limits runs: its entries set nothing, whatever they say (explain shows m.pl) */
        if (!limits_ran)
                m.pl = (struct lc_session){ .kind = LC_SESSION_NO_LIMITS };
        set_kind(in, &m, limits_ran);
        *ret = m;
        return 0;
fail:
        trees_clear(&ts);
        mods_clear(&ms);
        session_model_clear(&m);
        return r;
}

void session_model_clear(struct session_model *m) {
        pam_stack_clear(&m->stack);
        stack_run_clear(&m->run);
        lc_result_clear(&m->limits);
        *m = (struct session_model){};
}

/* ---- the target and its shortfall ---- */

static void line_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size) {
        snprintf(buf, size, "%s:%u", t->files[l->file].display, l->lineno);
}

static void target_of(const struct session_model *m, const struct lc_tree *t, struct session_target *r) {
        if (m->module_matched) {
                const struct policy_rule *rule = m->dec.rule;
                r->known = r->want_soft = r->want_hard = true;
                r->want = (struct rl_pair){ m->dec.soft, m->dec.hard };
                snprintf(r->from, sizeof r->from, "the policy's rule %s %s (line %u)", rule->user ? "user" : "group",
                         rule->user ? rule->user : rule->group, rule->line);
        } else if (m->pl.kind == LC_SESSION_LIMITS && m->pl.requested_soft_known && m->pl.requested_hard_known &&
                   (m->limits.soft.src || m->limits.hard.src)) {
                /* an entry asks for a value (PID 1's limits alone, Debian's baseline, ask nothing:
                 * a slot no line sets is no part of the target) */
                const struct lc_line *sl = m->limits.soft.src, *hl = m->limits.hard.src;
                r->known = true;
                r->want_soft = sl;
                r->want_hard = hl;
                r->want = (struct rl_pair){ sl ? m->pl.requested_soft : 0, hl ? m->pl.requested_hard : 0 };
                char a[160] = "", b[160] = "";
                if (sl)
                        line_where(t, sl, a, sizeof a);
                if (hl)
                        line_where(t, hl, b, sizeof b);
                if (sl && hl && sl != hl)
                        snprintf(r->from, sizeof r->from, "%s (soft), %s (hard)", a, b);
                else
                        snprintf(r->from, sizeof r->from, "%s", sl ? a : b);
        }
}

/* The hard limit the value had to stay under, and what set it (below the target's hard). */
static void hard_cause(const struct session_model *m, const struct lc_tree *t, const struct lc_service *svc,
                       uint64_t want_hard, struct session_target *r) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        const struct lc_slot *h = &m->limits.hard;
        /* pam_limits ran first and set the hard limit the module could not raise */
        bool by_limits = m->module_matched ? m->module_ran && m->limits_before_module : true;

        if (by_limits && m->pl.kind == LC_SESSION_LIMITS && m->pl.memlock_known && h->known &&
            m->pl.memlock_hard == h->value && h->value < want_hard && (!m->start_known || h->value < m->start.hard)) {
                if (h->src) {
                        r->cause = SESSION_SHORT_ENTRY;
                        line_where(t, h->src, r->where, sizeof r->where);
                        snprintf(r->why, sizeof r->why, "pam_limits set the hard limit to %s from %s, and without "
                                 "CAP_SYS_RESOURCE nothing after it can raise it", size_format(h->value, a), r->where);
                        snprintf(r->fix, sizeof r->fix, "change or remove the entry at %s so that its hard value "
                                 "is at least %s (limits.conf counts memlock in KiB)", r->where, size_format(want_hard, b));
                } else {
                        r->cause = SESSION_SHORT_BASELINE;
                        snprintf(r->why, sizeof r->why, "pam_limits started from PID 1's hard limit, %s (Debian's "
                                 "baseline, /proc/1/limits)", size_format(h->value, a));
                        snprintf(r->fix, sizeof r->fix, "give the user an entry with a hard value (rdmalimits apply), "
                                 "or raise PID 1's limit (DefaultLimitMEMLOCK= of systemd)");
                }
                return;
        }
        if (!svc->cap_sys_resource && m->start_known && m->start.hard < want_hard) {
                r->cause = SESSION_SHORT_SERVICE;
                snprintf(r->why, sizeof r->why, "%s has the hard limit %s and no CAP_SYS_RESOURCE: nothing in its "
                         "session can go above it", svc->source, size_format(m->start.hard, a));
                if (*svc->unit)
                        snprintf(r->fix, sizeof r->fix, "give %s LimitMEMLOCK=%s (rdmalimits apply --unit %s %s)",
                                 svc->unit, size_format_systemd(want_hard, a), svc->unit, size_format_systemd(want_hard, b));
                else
                        snprintf(r->fix, sizeof r->fix, "raise the hard limit where %s gets it (it has no systemd unit: "
                                 "its parent's limit, e.g. the login session it runs in)", svc->source);
                return;
        }
        r->cause = SESSION_SHORT_OTHER;
        snprintf(r->why, sizeof r->why, "the hard limit ended at %s: nothing the model knows holds it there",
                 size_format(m->final.hard, a));
}

void session_target(const struct session_model *m, const struct lc_tree *t, const struct lc_service *svc,
                    const char *service, bool got_known, struct rl_pair got, struct session_target *ret) {
        struct session_target r = {};

        target_of(m, t, &r);
        if (!got_known) {
                r.cause = SESSION_SHORT_FAILS;
                snprintf(r.why, sizeof r.why, "the session did not open%s%s", *m->cause ? ": " : "", m->cause);
        } else if (!r.known || (got.soft >= r.want.soft && got.hard >= r.want.hard))
                r.cause = SESSION_SHORT_NONE;
        else if (m->order == SESSION_NO_PAM)
                session_target_no_pam(&m->pam, &r);
        else if (m->module_matched && m->order == SESSION_NO_MODULE) {
                size_t mod, by;
                r.cause = SESSION_SHORT_NO_MODULE;
                snprintf(r.why, sizeof r.why, "the %s stack does not run pam_rdmalimit, whose policy has a rule for the user",
                         service);
                /* in the stack, passed over for this user: enable would change nothing */
                if (session_module_passed_over(&m->stack, &m->run, &mod, &by)) {
                        const struct pam_entry *e = &m->stack.v[mod], *b = &m->stack.v[by];
                        snprintf(r.where, sizeof r.where, "%s:%u", b->file, b->line);
                        snprintf(r.why, sizeof r.why, "the %s stack has pam_rdmalimit (%s:%u), but %s:%u '%s %s' %s it "
                                 "for the user", service, e->file, e->line, b->file, b->line, b->control, b->module,
                                 m->run.ended_at == (long)by ? "ends the stack before" : "jumps over");
                        snprintf(r.fix, sizeof r.fix, "change %s:%u so that pam_rdmalimit runs for the user, or move "
                                 "pam_rdmalimit before it (rdmalimits enable changes only the lines it added)",
                                 b->file, b->line);
                } else if (m->stack.other && m->stack.error == -ENOENT)
                        snprintf(r.fix, sizeof r.fix, "%s has no file of its own and libpam runs pam.d/other's "
                                 "stack: put pam_rdmalimit after the last pam_limits there, or give %s a stack of its "
                                 "own that runs it", service, service);
                else
                        snprintf(r.fix, sizeof r.fix, "rdmalimits enable --service %s", service);
        } else if (m->module_matched && m->order == SESSION_LIMITS_LAST) {
                r.cause = SESSION_SHORT_ORDER;
                snprintf(r.why, sizeof r.why, "in the %s stack pam_limits runs after pam_rdmalimit and sets its own values",
                         service);
                /* enable moves only a line it added (its mark) */
                const struct pam_entry *last = session_last_module(m);
                if (last && last->marked)
                        snprintf(r.fix, sizeof r.fix, "rdmalimits enable --service %s", service);
                else if (last)
                        snprintf(r.fix, sizeof r.fix, "move the pam_rdmalimit line (%s:%u) after the last pam_limits by "
                                 "hand: rdmalimits enable moves only a line it added", last->file, last->line);
                else
                        snprintf(r.fix, sizeof r.fix, "put pam_rdmalimit after the last pam_limits of the %s stack",
                                 service);
        } else if (m->module_matched && m->jail && !m->module_ran) {
                /* Debian's chroot item: the module ran inside the directory */
                r.cause = SESSION_SHORT_ENTRY;
                line_where(m->jail_tree, m->jail, r.where, sizeof r.where);
                snprintf(r.why, sizeof r.why, "pam_limits chroots the session into %.200s (%s) before pam_rdmalimit runs: "
                         "the module reads its policy inside that directory, %s", m->jail->value, r.where,
                         m->jail_policy ? "which the model does not follow it into (assumed: it sets nothing)"
                                        : "where there is none: it sets nothing");
                snprintf(r.fix, sizeof r.fix, "remove the chroot entry at %.200s, or give the directory the policy and "
                         "the users the module reads", r.where);
        } else if (!m->module_matched && r.want.soft > r.want.hard && m->limits.soft.src && m->limits.hard.src &&
                   got.hard >= r.want.hard) {
                /* the entries ask a soft value above their own hard one: pam_limits lowers the
                 * soft limit to the hard limit, whatever the service could do */
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], sw[160];
                r.cause = SESSION_SHORT_ENTRY;
                line_where(t, m->limits.hard.src, r.where, sizeof r.where);
                line_where(t, m->limits.soft.src, sw, sizeof sw);
                snprintf(r.why, sizeof r.why, "the entry at %s asks a soft limit of %s, above the hard limit of %s "
                         "the entry at %s asks: pam_limits lowers the soft limit to the hard one", sw,
                         size_format(r.want.soft, a), size_format(r.want.hard, b), r.where);
                snprintf(r.fix, sizeof r.fix, "change the entry at %.160s so that its hard value is at least %s "
                         "(limits.conf counts memlock in KiB), or ask less at %.160s", r.where,
                         size_format(r.want.soft, a), sw);
        } else
                hard_cause(m, t, svc, r.want.hard, &r);
        *ret = r;
}
