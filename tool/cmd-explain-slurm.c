/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmalimits explain USER --slurm: the memlock a Slurm job task of USER starts with on this
 * node, each step with its source, from the one computation of lib/session/slurmtask.h.  Its
 * inputs gathered here: slurm.conf and plugstack.conf (lib/host/slurmconf.h, the readers
 * doctor uses), slurmd (--pid, the running one, its unit, or assumed), the submit shell's soft
 * limit (--submit-memlock, else this process's own), and the policy and hardware the plugin's
 * line names (its conf= and cache=, loaded as explain loads the module's).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "array.h"
#include "escape.h"
#include "hw.h"
#include "ident.h"
#include "size.h"
#include "slurmconf.h"
#include "slurmtask.h"
#include "strv.h"
#include "tool.h"
#include "fsutil.h"

struct slurm_explain {
        struct slurm_conf conf;
        struct plugstack stack;
        struct slurmd_info sd;
        struct ident *id;
        const struct id_user *u;
        struct policy *p;
        const char *policy_path;         /* the policy the plugin reads */
        char refused[512];
        struct hw_summary *hw;
        char cache[256];
        int cache_r;
        bool use_pam;                    /* UsePAM=1: pam is slurmstepd's PAM session */
        struct slurm_pam pam;
        uint64_t submit;
        char submit_from[160];
        bool submit_option;
        struct slurm_task t;
};

static void slurm_explain_clear(struct slurm_explain *e) {
        slurm_conf_clear(&e->conf);
        plugstack_clear(&e->stack);
        ident_free(e->id);
        policy_free(e->p);
        hw_summary_free(e->hw);
}

/* The submit shell's soft limit: --submit-memlock, else this process's. */
static int load_submit(const struct ctx *c, struct slurm_explain *e) {
        struct rl_pair self;

        if (c->submit_memlock) {
                if (ctx_parse_size("--submit-memlock", c->submit_memlock, &e->submit) < 0)
                        return CMD_USAGE;
                e->submit_option = true;
                snprintf(e->submit_from, sizeof e->submit_from, "--submit-memlock %s", c->submit_memlock);
                return 0;
        }
        if (rl_get_memlock(&self) < 0) {
                log_error("cannot read this process's memlock limit");
                return CMD_FINDINGS;
        }
        e->submit = self.soft;
        snprintf(e->submit_from, sizeof e->submit_from,
                 "assumed: the caller's own soft limit (rdmalimits' RLIMIT_MEMLOCK; --submit-memlock SIZE names another)");
        return 0;
}

/* The line that loads the plugin, and the policy it reads (its conf=, unless --conf): NULL
 * when no line loads it; e->p NULL with e->refused saying why when the policy cannot be had. */
static const struct spank_line *plugin_policy(const struct ctx *c, struct slurm_explain *e) {
        const struct spank_line *l = e->stack.loads >= 0 ? &e->stack.lines[e->stack.loads] : NULL;
        if (!l)
                return NULL;
        e->policy_path = (c->given & OPT_CONF) || !l->conf ? c->policy_path : l->conf;
        tool_policy_load(c, e->policy_path, &e->p, e->refused, sizeof e->refused);
        if (!e->p && !e->refused[0])
                snprintf(e->refused, sizeof e->refused, "%s does not exist", e->policy_path);
        return l;
}

/* The hardware the line's plugin sees (its cache=, unless --cache). */
static int plugin_hw(const struct ctx *c, const struct spank_line *l, struct slurm_explain *e) {
        return tool_hw_load(c, l->cache_given ? (l->cache ? l->cache : "") : NULL, e->p, &e->hw, e->cache,
                            sizeof e->cache, &e->cache_r);
}

/* The policy and the hardware of the line that loads the plugin (the hardware only when a rule
 * for the user needs it). */
static int load_policy(const struct ctx *c, struct slurm_explain *e) {
        const struct spank_line *l = plugin_policy(c, e);
        char **groups = NULL;
        size_t n = 0;

        if (!l || !e->p)
                return 0;
        if (policy_user_groups(e->p, e->id, e->u, &groups, &n) < 0)
                return 0;
        bool needs = policy_needs_hw(e->p, e->u->name, (const char *const *)groups, n);
        strv_free(groups);
        if (needs && plugin_hw(c, l, e) < 0)
                return log_oom();
        return 0;
}

/* slurm.conf, plugstack.conf: a walk that cycles or stops at the bound, or a file that cannot be
 * read, leaves nothing to predict. */
static int load_config(const struct ctx *c, struct slurm_explain *e) {
        if (slurm_conf_read(c->root, c->slurm_conf, &e->conf) < 0 || plugstack_read(c->root, &e->conf, &e->stack) < 0)
                return log_oom();
        if (c->slurm_conf && !e->conf.path) {
                log_error("--slurm-conf %s: no such file%s", c->slurm_conf, c->root ? " in the root" : "");
                return CMD_FINDINGS;
        }
        const struct visit *w = e->conf.walk.error ? &e->conf.walk : e->stack.walk.error ? &e->stack.walk : NULL;
        if (w) {
                log_error("%s: %s: %s is not known past it, no task can be predicted", w->where, visit_strerror(w->error),
                          w == &e->conf.walk ? "slurm.conf" : "plugstack.conf");
                return CMD_FINDINGS;
        }
        if (e->conf.error || e->stack.error) {
                log_error("%s cannot be read: %s", e->conf.error ? e->conf.file : e->stack.file,
                          errno_text((e->conf.error ? e->conf.error : e->stack.error)));
                return CMD_FINDINGS;
        }
        return 0;
}

int tool_slurm_pam(const struct ctx *c, const char *user, const struct slurm_conf *conf, const struct lc_service *sd,
                   struct slurm_pam *ret, bool *ret_used) {
        struct ctx cc = *c;
        _cleanup_(tool_session_clear) struct tool_session s = {};
        char user_e[ESCAPE_NAME_MAX];
        const char *where;

        *ret = (struct slurm_pam){};
        *ret_used = slurm_conf_usepam(conf, &where);
        if (!*ret_used)
                return 0;
        ret->where = where;
        cc.service = "slurm";
        cc.given &= ~(unsigned)(OPT_SERVICE | OPT_CONF);
        cc.json = false;
        int r = tool_session_load_svc(&cc, user, sd, &s);
        if (r)
                return r == -ENOMEM ? r : -EINVAL;   /* said */
        const struct session_model *m = &s.m;
        ret->opens = m->kind == LC_SESSION_LIMITS || m->kind == LC_SESSION_NO_LIMITS;
        ret->known = m->final_known;
        ret->got = m->final;
        str_escape(user, user_e, sizeof user_e);
        if (ret->opens)
                snprintf(ret->why, sizeof ret->why, "as explain %s --service slurm models it", user_e);
        else
                snprintf(ret->why, sizeof ret->why, "%.500s", m->cause);
        return 0;
}

/* UsePAM=1: the PAM session "slurm" that slurmstepd, with slurmd's limits, opens for the user. */
static int load_pam(const struct ctx *c, const char *user, struct slurm_explain *e) {
        int r = tool_slurm_pam(c, user, &e->conf, &e->sd.svc, &e->pam, &e->use_pam);
        if (r == -ENOMEM)
                return log_oom();
        return r < 0 ? CMD_FINDINGS : 0;
}

static int load_all(const struct ctx *c, const char *user, struct slurm_explain *e) {
        int r;

        if (ctx_ident(c, &e->id) < 0)
                return CMD_FINDINGS;
        r = ident_user(e->id, user, &e->u);
        if (r < 0) {
                log_error(r == -ENOENT ? "user '%s' does not exist%s (a job of it is refused)" : "cannot look up user '%s'%s",
                          user, c->root ? " in the root's etc/passwd" : "");
                return CMD_FINDINGS;
        }
        if ((r = load_config(c, e)) || (r = load_submit(c, e)))
                return r;
        r = slurmd_info_load(c->root, c->pid, &e->sd);
        if (r < 0) {
                log_error("--pid %d: cannot read its limits: %s", (int)c->pid, errno_text(r));
                return CMD_FINDINGS;
        }
        if ((r = load_pam(c, e->u->name, e)) || (r = load_policy(c, e)))
                return r;
        const struct slurm_task_input in = {
                .pam = e->use_pam ? &e->pam : NULL, .conf = &e->conf, .stack = &e->stack, .slurmd = &e->sd, .submit_known = true,
                .submit_soft = e->submit, .submit_from = e->submit_from, .id = e->id, .user = e->u->name,
                .policy = e->p, .policy_file = e->policy_path, .policy_error = e->refused, .hw = e->hw,
        };
        r = slurm_task_model(&in, &e->t);
        if (r < 0) {
                log_error("cannot model a Slurm task of '%s': %s", user, errno_text(r));
                return CMD_FINDINGS;
        }
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* text */

static void print_limit(const char *label, bool known, uint64_t v, const char *src) {
        char buf[SIZE_FMT_MAX], val[80], s[4096];
        if (!known)
                snprintf(val, sizeof val, "unknown");
        else if (v == UINT64_MAX)
                snprintf(val, sizeof val, "unlimited");
        else
                snprintf(val, sizeof val, "%s (%llu bytes)", size_format(v, buf), (unsigned long long)v);
        printf("  %-5s %-28s from %s\n", label, val, str_escape(src, s, sizeof s));
}

static void explain_text(const struct slurm_explain *e) {
        const struct slurm_task *t = &e->t;
        char user[ESCAPE_NAME_MAX], a[4096], b[4096], sz[SIZE_FMT_MAX];

        str_escape(e->u->name, user, sizeof user);
        printf("User %s (uid %u, gid %u): a Slurm job task on this node (slurmstepd, %s)\n", user,
               (unsigned)e->u->uid, (unsigned)e->u->gid,
               e->use_pam ? "after the PAM session \"slurm\" it opens: UsePAM=1" : "no PAM session");
        printf("slurm.conf: %s; plugstack.conf: %s%s\n",
               e->conf.file ? str_escape(e->conf.file, a, sizeof a) : "none found (assumed: Slurm's defaults)",
               str_escape(e->stack.file, b, sizeof b), e->stack.exists ? "" : " (does not exist: no plugin)");
        printf("The submit shell's soft memlock: %s (%s)\n", size_format(e->submit, sz),
               str_escape(e->submit_from, a, sizeof a));
        printf("\nSteps:\n");
        for (size_t i = 0; i < t->n_steps; i++)
                printf("  %zu. %s\n       [%s]\n", i + 1, str_escape(t->steps[i].what, a, sizeof a),
                       str_escape(t->steps[i].source, b, sizeof b));
        if (t->by == SLURM_TASK_NO_TASK) {
                printf("\nNo task starts: %s\n", str_escape(t->cause, a, sizeof a));
                return;
        }
        printf("\nmemlock of a Slurm job task of %s (%s):\n", user, slurm_task_by_name(t->by));
        print_limit("soft", t->soft_known, t->got.soft, t->soft_source);
        print_limit("hard", t->hard_known, t->got.hard, t->hard_source);
        if (e->sd.from == SLURMD_FROM_UNIT || e->sd.from == SLURMD_FROM_ASSUMED || !e->sd.svc.known)
                printf("Assumed: slurmd's limits (%s), its CAP_SYS_RESOURCE (%s)\n", str_escape(e->sd.where, a, sizeof a),
                       str_escape(e->sd.cap_where, b, sizeof b));
        if (t->by == SLURM_TASK_PROPAGATED)
                printf("Assumed: srun and sbatch run without --propagate (it prefixes the value with U: then a soft "
                       "limit above slurmd's hard fails and the task keeps slurmd's)\n");
        else if (t->by == SLURM_TASK_SLURMD)
                printf("Assumed: srun and sbatch run without --propagate=MEMLOCK (with it the task gets the submit "
                       "shell's soft limit whatever slurm.conf says, up to slurmd's hard: ulimits.c _set_limit())\n");
}

/* ------------------------------------------------------------------------------------ */
/* JSON (rdmalimits(8) JSON OUTPUT, explain --slurm) */

static void json_plugin(struct json *j, const struct slurm_explain *e) {
        const struct plugstack *ps = &e->stack;
        const struct spank_line *l = ps->loads >= 0 ? &ps->lines[ps->loads] : ps->fails >= 0 ? &ps->lines[ps->fails]
                                     : ps->n_lines ? &ps->lines[0] : NULL;
        json_kobj_begin(j, "plugstack");
        json_kstr(j, "file", ps->file);
        json_kbool(j, "exists", ps->exists);
        json_kstr(j, "set_by", ps->set_where);
        json_key(j, "plugin");
        if (!l)
                json_null(j);
        else {
                json_obj_begin(j);
                json_kstr(j, "where", l->where);
                json_kstr(j, "control", l->required ? "required" : "optional");
                json_kstr(j, "path", l->plugin);
                json_kstr(j, "so", l->so);
                json_kbool(j, "loads", ps->loads >= 0);
                json_kstr(j, "args", l->args);
                json_kstr(j, "conf", l->conf);
                json_kbool(j, "strict", l->strict);
                json_obj_end(j);
        }
        json_obj_end(j);
}

static void json_policy(struct json *j, const struct slurm_explain *e) {
        const struct slurm_task *t = &e->t;
        json_key(j, "policy");
        if (e->stack.loads < 0) {
                json_null(j);
                return;
        }
        json_obj_begin(j);
        json_kstr(j, "file", e->policy_path);
        json_kstr(j, "error", e->p ? NULL : e->refused);
        json_kbool(j, "matched", t->matched);
        if (t->matched) {
                const struct policy_rule *r = t->dec.rule;
                char rule[300];
                snprintf(rule, sizeof rule, "%s %s", r->user ? "user" : "group", r->user ? r->user : r->group);
                json_kstr(j, "rule", rule);
                json_ku64(j, "line", r->line);
                json_klimit(j, "soft", t->dec.soft);
                json_klimit(j, "hard", t->dec.hard);
                json_kbool(j, "lower", t->dec.lower);
        }
        json_kbool(j, "eperm", t->eperm);
        json_obj_end(j);
}

static void explain_json(const struct slurm_explain *e) {
        const struct slurm_task *t = &e->t;
        const struct lc_service *sd = &e->sd.svc;
        struct json j;

        json_doc_begin(&j);
        json_kstr(&j, "user", e->u->name);
        json_ku64(&j, "uid", e->u->uid);
        json_kobj_begin(&j, "slurm");
        json_kstr(&j, "slurm_conf", e->conf.file);
        json_kobj_begin(&j, "propagate");
        json_key(&j, "memlock");
        if (t->propagate == SLURM_PROP_BAD)
                json_null(&j);
        else
                json_bool(&j, t->propagate == SLURM_PROP_YES);
        json_kstr(&j, "setting", t->propagate_what);
        json_kstr(&j, "where", t->propagate_where);
        json_obj_end(&j);
        json_plugin(&j, e);
        json_key(&j, "pam");
        if (!e->use_pam)
                json_null(&j);
        else {
                json_obj_begin(&j);
                json_kstr(&j, "where", e->pam.where);
                json_kbool(&j, "opens", e->pam.opens);
                json_klimit_opt(&j, "memlock_soft", e->pam.opens && e->pam.known, e->pam.got.soft);
                json_klimit_opt(&j, "memlock_hard", e->pam.opens && e->pam.known, e->pam.got.hard);
                json_kstr(&j, "why", e->pam.why);
                json_obj_end(&j);
        }
        json_kobj_begin(&j, "slurmd");
        json_kstr(&j, "from", slurmd_from_name(e->sd.from));
        json_kstr(&j, "process", sd->source);
        json_kstr(&j, "where", e->sd.where);
        json_klimit_opt(&j, "memlock_soft", sd->rl[RLIMIT_MEMLOCK].known, sd->rl[RLIMIT_MEMLOCK].soft);
        json_klimit_opt(&j, "memlock_hard", sd->rl[RLIMIT_MEMLOCK].known, sd->rl[RLIMIT_MEMLOCK].hard);
        json_kbool(&j, "cap_sys_resource", sd->cap_sys_resource);
        json_kstr(&j, "cap_from", e->sd.cap_where);
        json_obj_end(&j);
        json_kobj_begin(&j, "submit");
        json_klimit(&j, "soft", e->submit);
        json_kstr(&j, "from", e->submit_option ? "option" : "caller");
        json_obj_end(&j);
        json_policy(&j, e);
        json_kstr(&j, "decided_by", slurm_task_by_name(t->by));
        json_kbool(&j, "depends_on_submit", t->depends_on_submit);
        json_kbool(&j, "capped", t->capped);
        json_kstr(&j, "cause", t->cause[0] ? t->cause : NULL);
        json_karr_begin(&j, "steps");
        for (size_t i = 0; i < t->n_steps; i++) {
                json_obj_begin(&j);
                json_kstr(&j, "step", t->steps[i].what);
                json_kstr(&j, "source", t->steps[i].source);
                json_obj_end(&j);
        }
        json_arr_end(&j);
        json_obj_end(&j);
        bool task = t->by != SLURM_TASK_NO_TASK;
        json_kobj_begin(&j, "memlock");
        json_klimit_opt(&j, "soft", task && t->soft_known, t->got.soft);
        json_klimit_opt(&j, "hard", task && t->hard_known, t->got.hard);
        json_kstr(&j, "soft_source", task ? t->soft_source : NULL);
        json_kstr(&j, "hard_source", task ? t->hard_source : NULL);
        json_obj_end(&j);
        json_doc_end(&j);
}

int cmd_explain_slurm(struct ctx *c) {
        struct slurm_explain e = { .cache_r = -ENOENT };
        int r;

        if (c->given & OPT_SERVICE) {
                log_error("--service names the PAM service of a session; --slurm models a job task (with "
                          "UsePAM=1 the session of the service slurm that slurmstepd opens is part of it; "
                          "--service slurm without --slurm shows that session alone)");
                return CMD_USAGE;
        }
        r = load_all(c, c->argv[0], &e);
        if (!r) {
                if (c->json)
                        explain_json(&e);
                else
                        explain_text(&e);
        }
        slurm_explain_clear(&e);
        return r;
}

/* ------------------------------------------------------------------------------------ */
/* status: where a running task's memlock came from, by the same model */

/* The PAM session "slurm" of one user (UsePAM=1), modelled once for all its tasks. */
struct origin_pam {
        uid_t uid;
        int r;                           /* tool_slurm_pam()'s */
        bool used;
        struct slurm_pam pam;
};

struct slurm_origin {
        struct slurm_explain e;
        int loaded;                      /* 0: not yet, 1: loaded, -1: nothing to model */
        struct origin_pam *pams;
        size_t n_pams, allocated;
};

void slurm_origin_free(struct slurm_origin *o) {
        if (!o)
                return;
        slurm_explain_clear(&o->e);
        free(o->pams);
        free(o);
}

/* Everything but the user, once: slurm.conf, plugstack.conf, slurmd, the plugin's policy. */
static int origin_load(const struct ctx *c, struct slurm_origin *o) {
        struct slurm_explain *e = &o->e;
        if (o->loaded)
                return o->loaded;
        o->loaded = -1;
        if (ctx_ident(c, &e->id) < 0 || slurm_conf_read(NULL, c->slurm_conf, &e->conf) < 0 ||
            plugstack_read(NULL, &e->conf, &e->stack) < 0 || e->conf.walk.error || e->stack.walk.error ||
            e->conf.error || e->stack.error || !e->conf.path || slurmd_info_load(NULL, 0, &e->sd) < 0 ||
            e->sd.from == SLURMD_FROM_ASSUMED)
                return -1;   /* no slurm.conf here, or slurmd's limits only assumed: nothing to say */
        /* every user of the node: the hardware whenever there is a policy */
        const struct spank_line *l = plugin_policy(c, e);
        if (l && e->p && plugin_hw(c, l, e) < 0)
                return -1;
        o->loaded = 1;
        return 1;
}

int slurm_task_origin(const struct ctx *c, struct slurm_origin **cache, uid_t uid, struct rl_pair live, char *buf,
                      size_t size) {
        struct slurm_origin *o = *cache;
        const struct id_user *u;
        struct slurm_task t;
        char s[SIZE_FMT_MAX];

        if (!o && !(o = *cache = calloc(1, sizeof(*o))))
                return -ENOMEM;
        if (origin_load(c, o) < 0 || ident_user_by_uid(o->e.id, uid, &u) < 0)
                return 0;   /* nothing to model: the caller keeps its own words */
        struct origin_pam *op = NULL;
        for (size_t i = 0; i < o->n_pams && !op; i++)
                if (o->pams[i].uid == uid)
                        op = &o->pams[i];
        if (!op) {
                if (GROW(o->pams, o->allocated, o->n_pams + 1) < 0)
                        return -ENOMEM;
                op = &o->pams[o->n_pams++];
                *op = (struct origin_pam){ .uid = uid };
                op->r = tool_slurm_pam(c, u->name, &o->e.conf, &o->e.sd.svc, &op->pam, &op->used);
                if (op->r == -ENOMEM) {
                        o->n_pams--;     /* not an answer to keep */
                        return -ENOMEM;
                }
        }
        if (op->r < 0)
                return op->r == -ENOMEM ? op->r : 0;
        int r;
        const struct slurm_task_input in = {
                .pam = op->used ? &op->pam : NULL, .conf = &o->e.conf, .stack = &o->e.stack, .slurmd = &o->e.sd,
                .submit_from = "not known to status (the submit shell's)", .id = o->e.id, .user = u->name,
                .policy = o->e.p, .policy_file = o->e.policy_path, .policy_error = o->e.refused, .hw = o->e.hw,
        };
        r = slurm_task_model(&in, &t);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        enum slurm_task_match m = slurm_task_check(&t, live);
        if (m == SLURM_MATCH_YES || m == SLURM_MATCH_HARD) {
                snprintf(buf, size, "%s",
                         t.by == SLURM_TASK_PLUGIN       ? "spank_rdmalimit: the policy's rule"
                         : t.by == SLURM_TASK_PROPAGATED ? "the submit host (soft), slurmd (hard)"
                                                         : "slurmd (PropagateResourceLimits leaves memlock to it)");
                return 1;
        }
        snprintf(buf, size, "not as explain --slurm predicts (%s, hard %s): see rdmalimits doctor",
                 slurm_task_by_name(t.by), t.hard_known ? size_format(t.got.hard, s) : "unknown");
        return 1;
}
