/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inputs of the session model (lib/session/session.h) as the tool gathers them from its
 * options: the limits tree, the users, the PID 1 baseline, the service process (--pid, the
 * running daemon of --service, or stated assumptions), the policy the module in that stack
 * reads (its conf=), and the hardware it would see (its cache=).  explain and verify both
 * start here, so they compute one session the same way.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "array.h"
#include "fsutil.h"
#include "hwcache.h"
#include "hwcache-root.h"
#include "ident.h"
#include "procfs.h"
#include "strv.h"
#include "pamstack.h"
#include "size.h"
#include "tool.h"
#include "visit.h"

/* The conf= and cache= of a pam_rdmalimit line as the module reads them
 * (session_module_args()).  *ret_conf: the policy when conf= is given, else NULL; *ret_cache:
 * the cache when cache= is given ("" for none), else NULL.  -ENOMEM. */
static int module_options(const char *args, char **ret_conf, char **ret_cache) {
        _cleanup_free_ char *buf = NULL;
        struct login_args a;

        *ret_conf = *ret_cache = NULL;
        if (session_module_args(args, &a, &buf) < 0)
                return -ENOMEM;
        if (a.conf_given && !(*ret_conf = strdup(a.conf)))
                return -ENOMEM;
        if (a.cache_given && !(*ret_cache = strdup(a.cache ? a.cache : ""))) {
                free(*ret_conf);
                *ret_conf = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* The service process: --pid; for su, sudo, runuser (-l, -i), which run as a child of their
 * caller and keep its limits, the caller (this process); else the running daemon of the
 * service; else its systemd unit (session_service_unit()); else assumptions. */
static int load_service(const struct ctx *c, const char *service, pid_t want, struct tool_session *s) {
        pid_t pid = want;
        int r;

        if (pid <= 0 && !c->root && session_service_of_caller(service)) {
                r = session_service_from_pid(getpid(), &s->svc);
                if (r >= 0) {
                        char src[sizeof s->svc.source];
                        snprintf(src, sizeof src, "%s", s->svc.source);
                        snprintf(s->svc.source, sizeof s->svc.source, "the caller, %.120s (%s keeps the limits of "
                                 "who runs it)", src, service);
                        return 0;
                }
        }
        pid_t other = 0;
        if (pid <= 0 && !c->root && session_service_find(service, &pid, &other) < 0)
                pid = 0;
        if (pid > 0) {
                r = session_service_from_pid(pid, &s->svc);
                if (r < 0 && want > 0) {
                        log_error("--pid %d: cannot read its limits: %s", (int)want, errno_text(r));
                        return r;
                }
                if (r >= 0) {
                        /* two listeners and nothing to tell which one logins go through (no
                         * systemd unit): the first is taken, and that is said */
                        if (other > 0) {
                                char src[sizeof s->svc.source];
                                snprintf(src, sizeof src, "%s", s->svc.source);
                                snprintf(s->svc.source, sizeof s->svc.source, "%.120s, assumed: the first of the "
                                         "running %s listeners (another is pid %d; --pid names the one)", src,
                                         service, (int)other);
                        }
                        s->svc_pid = pid;
                        return 0;
                }
        }
        session_service_assume(c->root, c->proc1, &s->svc);
        /* a daemon systemd starts: its unit's memlock, as for slurmd (its first unit name that
         * exists: ssh.service on Debian, sshd.service on RHEL) */
        const struct proc_daemon *dm = proc_daemon_of(service);
        char where[512];
        for (size_t i = 0; dm && i < PROC_DAEMON_UNITS_MAX && dm->units[i]; i++) {
                if (strchr(dm->units[i], '*'))
                        continue;
                r = session_service_unit(c->root, dm->units[i], dm->service, &s->svc, where, sizeof where);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        return 0;
}

/* The lines whose reading is shown where no run of the engine says otherwise: the last
 * pam_limits and the last pam_rdmalimit that run (the engine's walk, every module
 * succeeding), else the stack's last pam_limits line and first pam_rdmalimit line; -1 for
 * none.  One walk for both. */
static void shown_lines(const struct pam_stack *st, long *ret_lim, long *ret_mod) {
        struct stack_run run;

        *ret_lim = *ret_mod = -1;
        if (!pam_stack_entries_known(st))
                return;
        for (size_t i = 0; i < st->n; i++)
                if (streq(st->v[i].name, "pam_limits"))
                        *ret_lim = (long)i;
        *ret_mod = pam_stack_find(st, "pam_rdmalimit");
        if (stack_run_walk(st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &run) < 0)
                return;
        if (run.last_limits >= 0)
                *ret_lim = run.last_limits;
        if (run.last_module >= 0)
                *ret_mod = run.last_module;
        stack_run_clear(&run);
}

void tool_policy_load(const struct ctx *c, const char *path, struct policy **ret, char *refused, size_t refused_size) {
        _cleanup_(diag_list_clear) struct diag_list d = {};
        struct ctx cc = *c;
        size_t n = 0;

        cc.policy_path = path;
        int r = check_policy_file(&cc, &d, ret, NULL, NULL);
        refused[0] = '\0';
        if (r < 0)
                *ret = NULL;
        for (size_t i = 0; r < 0 && r != -ENOENT && i < d.n && n + 2 < refused_size; i++)
                n += (size_t)snprintf(refused + n, refused_size - n, "%s%s%s%s", n ? "; " : "",
                                      d.v[i].path ? d.v[i].path : "", d.v[i].path ? ": " : "", d.v[i].message);
        if (r < 0 && r != -ENOENT && !n)
                snprintf(refused, refused_size, "%s", errno_text(r));
}

int tool_hw_load(const struct ctx *c, const char *cache_arg, const struct policy *p, struct hw_summary **ret,
                 char *cache_shown, size_t shown_size, int *ret_cache_r) {
        const char *cache = (c->given & OPT_CACHE) ? c->cache : cache_arg ? cache_arg : HW_CACHE_PATH;
        const char *root = c->root && !(c->given & OPT_CACHE) ? c->root : NULL;
        _cleanup_free_ char *shown = NULL;

        cache_shown[0] = '\0';
        if (cache && !*cache)
                cache = NULL;
        if (cache && root)
                shown = fs_root_path(c->root, cache);
        if (cache)
                snprintf(cache_shown, shown_size, "%s", shown ? shown : cache);
        return hw_cache_in_root_or_probe(root, cache, &p->hw.sel, ret, ret_cache_r) < 0 ? -ENOMEM : 0;
}

static bool needs_hardware(const struct tool_session *s, const struct policy *p, const char *user) {
        const struct id_user *u;
        char **groups = NULL;
        size_t n = 0;
        bool needs;

        if (!p || !user || ident_user(s->id, user, &u) < 0 || policy_user_groups(p, s->id, u, &groups, &n) < 0)
                return false;
        needs = policy_needs_hw(p, u->name, (const char *const *)groups, n);
        strv_free(groups);
        return needs;
}

/* The policy path and cache argument a pam_rdmalimit line reads: its conf= unless --conf, and
 * its cache= (NULL: not given).  -ENOMEM. */
static int copy_key(const struct ctx *c, const char *args, char **ret_path, char **ret_cache_arg) {
        _cleanup_free_ char *conf = NULL;
        int r = module_options(args ? args : "", &conf, ret_cache_arg);

        if (r < 0)
                return r;
        *ret_path = strdup(!(c->given & OPT_CONF) && conf ? conf : c->policy_path);
        if (!*ret_path) {
                free(*ret_cache_arg);
                *ret_cache_arg = NULL;
                return -ENOMEM;
        }
        return 0;
}

static struct tool_copy *copy_find(const struct tool_session *s, const char *path, const char *cache_arg) {
        for (size_t i = 0; i < s->n_copies; i++)
                if (streq(s->copies[i].policy_path, path) &&
                    (s->copies[i].cache_arg && cache_arg ? streq(s->copies[i].cache_arg, cache_arg) :
                                                            s->copies[i].cache_arg == cache_arg))
                        return &s->copies[i];
        return NULL;
}

/* The copy of the line's arguments (args; NULL: a line without any), loaded the first time:
 * the policy, and the hardware when a rule of it for the user needs it.  -ENOMEM. */
static int copy_load(const struct ctx *c, const char *args, const char *user, struct tool_session *s,
                     struct tool_copy **ret) {
        _cleanup_free_ char *path = NULL, *cache_arg = NULL;
        int r = copy_key(c, args, &path, &cache_arg);

        if (r < 0)
                return r;
        if ((*ret = copy_find(s, path, cache_arg)))
                return 0;
        if (GROW_EXACT(s->copies, s->n_copies + 1) < 0)
                return -ENOMEM;
        struct tool_copy *x = &s->copies[s->n_copies++];
        *x = (struct tool_copy){ .policy_path = TAKE_PTR(path), .cache_arg = TAKE_PTR(cache_arg) };
        tool_policy_load(c, x->policy_path, &x->p, x->refused, sizeof x->refused);
        if (x->p && needs_hardware(s, x->p, user) &&
            tool_hw_load(c, x->cache_arg, x->p, &x->hw, x->cache, sizeof x->cache, &x->cache_r) < 0)
                return -ENOMEM;
        *ret = x;
        return 0;
}

int tool_line_copy(struct tool_session *s, const char *args, bool hardware, const struct tool_copy **ret) {
        struct tool_copy *x;
        if (copy_load(s->ctx, args, NULL, s, &x) < 0)
                return -ENOMEM;
        if (hardware && x->p && !x->hw && policy_uses_hw(x->p) &&
            tool_hw_load(s->ctx, x->cache_arg, x->p, &x->hw, x->cache, sizeof x->cache, &x->cache_r) < 0)
                return -ENOMEM;
        *ret = x;
        return 0;
}

/* session_lines.policy for views without a user: the copy of the line, loaded once (no
 * hardware: copy_load() without a user needs none) */
static const struct policy *lines_policy(const struct pam_entry *e, const char **ret_name, const char **ret_refused,
                                         void *data) {
        struct tool_session *s = data;
        struct tool_copy *x;
        if (copy_load(s->ctx, e->args, NULL, s, &x) < 0)
                return NULL;   /* out of memory: as a copy without a policy */
        *ret_name = x->policy_path;
        if (ret_refused)
                *ret_refused = x->refused;
        return x->p;
}

/* The session engine's question: which policy and hardware does the module line e read? */
static void line_policy(const struct pam_entry *e, const struct policy **ret_p, const struct hw_summary **ret_hw,
                        void *data) {
        struct tool_session *s = data;
        _cleanup_free_ char *path = NULL, *cache_arg = NULL;
        const struct tool_copy *x;

        if (copy_key(s->ctx, e->args, &path, &cache_arg) < 0 || !(x = copy_find(s, path, cache_arg)))
                return;   /* out of memory: the input's */
        *ret_p = x->p;
        *ret_hw = x->hw;
}

/* Every copy of the module in the stack, the shown one (line mod) first. */
static int load_copies(const struct ctx *c, const struct pam_stack *st, long mod, const char *user,
                       struct tool_session *s) {
        struct tool_copy *x;
        int r = copy_load(c, mod >= 0 ? st->v[mod].args : NULL, user, s, &x);

        for (size_t i = 0; r >= 0 && pam_stack_entries_known(st) && i < st->n; i++)
                if (streq(st->v[i].name, "pam_rdmalimit"))
                        r = copy_load(c, st->v[i].args, user, s, &x);
        return r;
}

/* The copy whose decision the model shows: that of the line that sets memlock, else of the
 * last line that runs, else the first copy. */
static void show_copy(const struct ctx *c, struct tool_session *s) {
        const struct session_model *m = &s->m;
        long e = m->module_entry >= 0 ? m->module_entry : m->stack.error ? -1 : m->run.last_module;
        _cleanup_free_ char *path = NULL, *cache_arg = NULL;
        const struct tool_copy *x = NULL;

        if (e >= 0 && (size_t)e < m->stack.n && copy_key(c, m->stack.v[e].args, &path, &cache_arg) >= 0)
                x = copy_find(s, path, cache_arg);
        if (!x)
                x = &s->copies[0];
        s->p = x->p;
        s->have_policy = x->p != NULL;
        snprintf(s->refused, sizeof s->refused, "%s", x->refused);
        s->hw = x->hw;
        snprintf(s->cache, sizeof s->cache, "%s", x->cache);
        s->cache_r = x->cache_r;
        s->hw_cached = x->hw && x->cache_r == 0;
}

/* The tree loaded for the pam_limits arguments args ("" for none), NULL when none is. */
static struct lc_tree *tree_find(const struct tool_session *s, const char *args) {
        for (size_t i = 0; i < s->n_trees; i++)
                if (streq(s->tree_args[i], args))
                        return s->trees[i];
        return NULL;
}

/* The tree of the pam_limits arguments args ("" for none), loaded the first time. */
static int tree_of_args(const struct ctx *c, const char *args, struct tool_session *s, struct lc_tree **ret) {
        _cleanup_free_ char *copy = NULL;
        struct lc_tree *t = NULL;

        if ((*ret = tree_find(s, args)))
                return 0;
        if (!(copy = strdup(args)) || GROW_EXACT(s->trees, s->n_trees + 1) < 0 ||
            GROW_EXACT(s->tree_args, s->n_trees + 1) < 0) {
                log_error("out of memory");
                return -ENOMEM;
        }
        if (ctx_load_tree(c, *args ? args : NULL, &t) < 0)
                return CMD_FINDINGS;
        for (size_t i = 0; i < t->n_files; i++)
                if (t->files[i].truncated)
                        log_warning(c, "%s: larger than 64 MiB: only its lines up to there are modelled "
                                    "(pam_limits reads all of it)", t->files[i].display);
        s->trees[s->n_trees] = t;
        s->tree_args[s->n_trees++] = TAKE_PTR(copy);
        *ret = t;
        return 0;
}

/* session_lines.tree for views without a user: the line's tree, loaded once */
static const struct lc_tree *lines_tree(const struct pam_entry *e, void *data) {
        struct tool_session *s = data;
        struct lc_tree *t = NULL;
        (void)tree_of_args(s->ctx, e->args ? e->args : "", s, &t);
        return t;
}

struct session_lines tool_session_lines(struct tool_session *s) {
        return (struct session_lines){ .policy = lines_policy, .tree = lines_tree, .data = s };
}

/* The session engine's question: which tree does the pam_limits line e read? */
static const struct lc_tree *line_tree(const struct pam_entry *e, void *data) {
        return tree_find(data, e->args ? e->args : "");
}

/* The trees: first that of the shown pam_limits line lim (the baseline, and the session
 * engine's tree where no line says), then that of every other pam_limits line. */
static int load_trees(const struct ctx *c, const struct pam_stack *st, long lim, struct tool_session *s) {
        const char *last = lim >= 0 && st->v[lim].args ? st->v[lim].args : "";
        struct lc_tree *t;
        int r;

        /* each tree loaded, or the failure (negative, or CMD_FINDINGS: it said why) */
        if ((r = tree_of_args(c, last, s, &t)) != 0)
                return r;
        s->t = t;
        for (size_t i = 0; pam_stack_entries_known(st) && i < st->n; i++)
                if (streq(st->v[i].name, "pam_limits") && (r = tree_of_args(c, st->v[i].args ? st->v[i].args : "", s, &t)) != 0)
                        return r;
        return 0;
}

static int load_tree(const struct ctx *c, const struct pam_stack *st, long lim, const char *user,
                     struct tool_session *s) {
        int r;

        if (ctx_ident(c, &s->id) < 0)
                return CMD_FINDINGS;
        r = load_trees(c, st, lim, s);
        if (r < 0)
                return r == -ENOMEM ? r : CMD_FINDINGS;
        if (r > 0)
                return r;
        r = lc_baseline_load(s->t, c->proc1, &s->base);
        if (r < 0) {
                log_error("cannot read the PID 1 limits: %s", errno_text(r));
                return r;
        }
        r = ident_user(s->id, user, &s->u);
        if (r == -ENOENT) {
                /* what the stack does with it: pam_limits fails an unknown user where it runs */
                struct stack_run run = STACK_RUN_INIT;
                bool known = pam_stack_entries_known(st);
                bool limits = known && stack_run_walk(st, PAM_RET_FAIL, PAM_RET_IGNORE, &run) >= 0 &&
                              run.last_limits >= 0;
                if (known)
                        stack_run_clear(&run);
                log_error("user '%s' does not exist%s (%s)", user, c->root ? " in the root's etc/passwd" : "",
                          !known ? "pam_limits would fail the session" :
                          limits ? "pam_limits fails the session" : "no pam_limits runs in this session stack");
                return CMD_FINDINGS;
        }
        if (r < 0) {
                log_error("cannot look up user '%s': %s", user, errno_text(r));
                return r;
        }
        return 0;
}

/* A stack whose includes cycle, or go past the walk's bound, has no session to predict. */
static int stack_unknown(const char *service, const struct pam_stack *st) {
        if (st->include_error == VISIT_ERR_CYCLE)
                log_error("%s: %s: no %s session opens", st->include_where, pam_include_strerror(st->include_error),
                          service);
        else
                log_error("%s: %s; the %s stack is not known past it, so no session of it can be predicted",
                          st->include_where, pam_include_strerror(st->include_error), service);
        return CMD_FINDINGS;
}

static int session_load(const struct ctx *c, const char *user, pid_t pid, const struct lc_service *given,
                        bool pam_direct, struct tool_session *s);

void tool_json_flavour(struct json *j, const struct lc_tree *t) {
        char fl[LC_FLAVOUR_NAME_MAX];
        const char *name = lc_flavour_to_string(t->release, fl), *dash = strchr(name, '-');

        json_kobj_begin(j, "flavour");
        json_kstr(j, "name", name);
        json_kstr(j, "release", dash ? dash + 1 : NULL);
        json_kstr(j, "from", lc_tree_flavour_from(t));
        json_obj_end(j);
}

int tool_session_load(const struct ctx *c, const char *user, pid_t pid, bool pam_direct, struct tool_session *s) {
        return session_load(c, user, pid, NULL, pam_direct, s);
}

int tool_session_load_svc(const struct ctx *c, const char *user, const struct lc_service *svc, struct tool_session *s) {
        return session_load(c, user, 0, svc, false, s);
}

static int session_load(const struct ctx *c, const char *user, pid_t pid, const struct lc_service *given,
                        bool pam_direct, struct tool_session *s) {
        struct pam_stack st = {};
        long lim, mod;
        int r;

        *s = (struct tool_session){ .service = c->service ? c->service : "sshd", .ctx = c };
        if (pam_stack_load(c->root, s->service, &st) < 0)
                return CMD_FINDINGS;
        if (st.include_error) {
                r = stack_unknown(s->service, &st);
                pam_stack_clear(&st);
                return r;
        }
        shown_lines(&st, &lim, &mod);
        r = load_tree(c, &st, lim, user, s);
        if (!r && given)
                s->svc = *given;
        else if (!r)
                r = load_service(c, s->service, pid, s);
        if (!r && load_copies(c, &st, mod, user, s) < 0)
                r = log_oom();
        pam_stack_clear(&st);
        if (r)
                return r;
        struct session_input in = {
                .root = c->root, .service = s->service, .tree = s->t, .line_tree = line_tree, .line_tree_data = s,
                .id = s->id, .user = user, .base = &s->base, .svc = &s->svc, .svc_pid = s->svc_pid,
                .pam_direct = pam_direct, .policy = s->copies[0].p, .hw = s->copies[0].hw, .line_policy = line_policy, .line_policy_data = s,
        };
        r = session_model_build(&in, &s->m);
        if (r < 0) {
                log_error("cannot model a session of '%s': %s", user, errno_text(r));
                return r;
        }
        s->t = s->m.tree;
        show_copy(c, s);
        return 0;
}

void tool_session_clear(struct tool_session *s) {
        session_model_clear(&s->m);
        for (size_t i = 0; i < s->n_copies; i++) {
                hw_summary_free(s->copies[i].hw);
                policy_free(s->copies[i].p);
                free(s->copies[i].policy_path);
                free(s->copies[i].cache_arg);
        }
        free(s->copies);
        for (size_t i = 0; i < s->n_trees; i++) {
                lc_tree_free(s->trees[i]);
                free(s->tree_args[i]);
        }
        free(s->trees);
        free(s->tree_args);
        ident_free(s->id);
        *s = (struct tool_session){};
}
