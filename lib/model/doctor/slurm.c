/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, Slurm: a task gets slurmd's memlock (slurmd.service LimitMEMLOCK=), unless
 * PropagateResourceLimits (default ALL) copies the submit host's soft limit into it, which
 * PropagateResourceLimitsExcept=MEMLOCK prevents; pam_slurm_adopt moves ssh logins into a job
 * but leaves their limits to the sshd stack, must be the last account module, and conflicts
 * with pam_systemd (Slurm's documentation of slurm.conf and pam_slurm_adopt).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor-internal.h"
#include "pamstack.h"
#include "visit.h"

#define SLURM_INCLUDE_DEPTH_MAX 8
/* Slurm's own parser (22.05, s_p_parse_file()) has no cycle check: measured with sinfo on a
 * slurm.conf that includes itself, it reads the file again until it runs out of descriptors */
#define SLURM_CYCLE_EFFECT                                                                            \
        "Slurm reads the file again and again until it runs out of file descriptors, then refuses " \
        "slurm.conf ('Unable to process configuration file')"

/* The last PropagateResourceLimits= and PropagateResourceLimitsExcept= of slurm.conf. */
struct slurm_conf {
        char *file;                   /* the slurm.conf read (display) */
        char *limits, *limits_where;
        char *except, *except_where;
        const char *abs;              /* the file being read, and how deep in includes it is */
        unsigned depth;
        struct visit walk;            /* slurm.conf and the files it includes */
};

static void slurm_conf_clear(struct slurm_conf *c) {
        free(c->file);
        free(c->limits);
        free(c->limits_where);
        free(c->except);
        free(c->except_where);
        visit_done(&c->walk);
}

static int set2(char **value, char **where, const char *v, const char *w) {
        return set_str(value, v) >= 0 && set_str(where, w) >= 0 ? 0 : -ENOMEM;
}

static int slurm_scan(struct doc *d, const char *abs, const char *from, struct slurm_conf *c);

/* "Include FILE" at from: relative names are in slurm.conf's directory. */
static int slurm_include(struct doc *d, const char *name, const char *from, struct slurm_conf *c) {
        const char *abs = c->abs, *slash = strrchr(abs, '/');
        _cleanup_free_ char *p = name[0] == '/' ? strdup(name) : strf("%.*s/%s", (int)(slash - abs), abs, name);
        if (!p)
                return -ENOMEM;
        if (c->depth >= SLURM_INCLUDE_DEPTH_MAX)
                return 0;
        c->depth++;
        int r = slurm_scan(d, p, from, c);
        c->depth--;
        c->abs = abs;
        return c->walk.error ? c->walk.error : r;
}

/* One line: "Key=Value" words (case-insensitive keys), or "Include FILE". */
static int slurm_line(struct doc *d, char *line, const char *where, void *userdata) {
        struct slurm_conf *c = userdata;
        char *save = NULL, *w;
        int r = 0;

        line[strcspn(line, "#")] = '\0';
        for (w = strtok_r(line, " \t\r", &save); w && r >= 0; w = strtok_r(NULL, " \t\r", &save)) {
                char *eq = strchr(w, '=');
                if (!eq && strcasecmp(w, "include") == 0) {
                        char *f = strtok_r(NULL, " \t\r", &save);
                        r = f ? slurm_include(d, f, where, c) : 0;
                        continue;
                }
                if (!eq)
                        continue;
                *eq = '\0';
                if (strcasecmp(w, "PropagateResourceLimits") == 0)
                        r = set2(&c->limits, &c->limits_where, eq + 1, where);
                else if (strcasecmp(w, "PropagateResourceLimitsExcept") == 0)
                        r = set2(&c->except, &c->except_where, eq + 1, where);
        }
        return r;
}

static int slurm_scan(struct doc *d, const char *abs, const char *from, struct slurm_conf *c) {
        c->abs = abs;
        int r = read_lines_walk(d, abs, &c->walk, from, slurm_line, c);
        return r == -ENOMEM || c->depth == 0 ? r : 0;
}

/* Does the comma-separated list name MEMLOCK (or ALL)? */
static bool list_has_memlock(const char *list) {
        _cleanup_free_ char *copy = strdup(list);
        char *save = NULL;
        if (!copy)
                return false;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
                if (strcasecmp(strip(w), "MEMLOCK") == 0 || strcasecmp(strip(w), "ALL") == 0)
                        return true;
        return false;
}

/* Does Slurm copy the submit host's soft memlock into tasks?  *ret_what: why, *ret_where. */
static bool slurm_propagates(const struct slurm_conf *c, char **ret_what, const char **ret_where) {
        if (c->except) {
                *ret_what = strf("PropagateResourceLimitsExcept=%s", c->except);
                *ret_where = c->except_where;
                return !list_has_memlock(c->except);
        }
        if (c->limits) {
                *ret_what = strf("PropagateResourceLimits=%s", c->limits);
                *ret_where = c->limits_where;
                return list_has_memlock(c->limits);
        }
        *ret_what = strdup("PropagateResourceLimits is not set (its default is ALL)");
        *ret_where = c->file;
        return true;
}

static int slurm_check_propagation(struct doc *d, const struct slurm_conf *c) {
        _cleanup_free_ char *what = NULL;
        const char *where;
        bool prop = slurm_propagates(c, &what, &where);

        if (!what)
                return -ENOMEM;
        if (!prop)
                return doctor_add(d->rep, DOCTOR_SLURM, DIAG_OK, "slurm-keeps-slurmd-memlock",
                                  where, NULL, "slurm.conf: %s: tasks get slurmd's memlock, not "
                                  "the submit host's", what);
        ADD_ID(d, DOCTOR_SLURM, DIAG_WARNING, "slurm-propagates-memlock", where,
               "set PropagateResourceLimitsExcept=MEMLOCK in slurm.conf (or take MEMLOCK out of "
               "PropagateResourceLimits), then scontrol reconfigure",
               "slurm.conf: %s: srun and sbatch copy the submit host's soft memlock into every task (a login node's "
               "session often has 64 KiB or 8 MiB), so slurmd's own memlock does not reach the jobs",
               what);
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* pam_slurm_adopt in sshd's account stack */

struct account_stack {
        struct strv modules, wheres;   /* the account lines in order, includes followed */
        unsigned depth;                /* of the file being read */
        struct visit walk;             /* the service file and the files it includes */
};

static int account_scan(struct doc *d, const char *service, const char *from, struct account_stack *a);

static int account_line(struct doc *d, char *line, const char *where, void *userdata) {
        struct account_stack *a = userdata;
        char *w[3], *rest;
        unsigned n = pam_line_split(line, w, &rest);

        if (n >= 2 && streq(w[0], "@include"))
                return account_scan(d, w[1], where, a);
        if (n < 3 || (strcasecmp(w[0], "account") != 0 && strcasecmp(w[0], "-account") != 0))
                return 0;
        if (strcasecmp(w[1], "include") == 0 || strcasecmp(w[1], "substack") == 0)
                return account_scan(d, w[2], where, a);
        const char *base = strrchr(w[2], '/');
        _cleanup_free_ char *name = strdup(base ? base + 1 : w[2]);
        if (!name)
                return -ENOMEM;
        name[strcspn(name, ".")] = '\0';
        int r = strv_push(&a->modules, name);
        return r < 0 ? r : strv_push(&a->wheres, where);
}

/* A file that cannot be read adds nothing; a cycle or the walk's bound ends the reading. */
static int account_scan(struct doc *d, const char *service, const char *from, struct account_stack *a) {
        _cleanup_free_ char *abs = strf("/etc/pam.d/%s", service);

        if (!abs)
                return -ENOMEM;
        if (a->depth > SLURM_INCLUDE_DEPTH_MAX || strchr(service, '/'))
                return 0;
        a->depth++;
        int r = read_lines_walk(d, abs, &a->walk, from, account_line, a);
        a->depth--;
        /* the walk's problem unwinds the includes; the caller finds it in a->walk */
        return r == -ENOMEM || (a->walk.error && a->depth > 0) ? r : 0;
}

/* pam_systemd in sshd's session stack moves the adopted session out of the job. */
static int slurm_check_pam_systemd(struct doc *d) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        int r = pam_stack_load(d->in->root, "sshd", &st);

        if (r < 0)
                return r;
        long i = st.error || st.include_error ? -1 : pam_stack_find(&st, "pam_systemd");
        if (i < 0)
                return 0;
        _cleanup_free_ char *where = strf("%s:%u", st.v[i].file, st.v[i].line);
        if (!where)
                return -ENOMEM;
        return doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-pam-systemd", where,
                          "take pam_systemd out of the files sshd includes, and stop and mask "
                          "systemd-logind, as Slurm's pam_slurm_adopt documentation says",
                          "sshd: pam_systemd in the session stack conflicts with pam_slurm_adopt: "
                          "it moves the adopted ssh session out of the job");
}

static int slurm_check_adopt(struct doc *d) {
        struct account_stack a = {};
        long at = -1;
        int r = account_scan(d, "sshd", NULL, &a);

        for (size_t i = 0; i < a.modules.n && at < 0; i++)
                if (streq(a.modules.v[i], "pam_slurm_adopt"))
                        at = (long)i;
        if (a.walk.error && a.walk.error != -ENOMEM && at >= 0)
                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-unknown", a.walk.where, NULL,
                               "sshd: %s (the account stack); where pam_slurm_adopt runs in it is not known",
                               visit_strerror(a.walk.error));
        else if (r >= 0 && at >= 0) {
                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurm-adopt", a.wheres.v[at], NULL,
                               "sshd: pam_slurm_adopt adopts ssh logins into the user's job (its cgroup), not its "
                               "limits: an adopted session's memlock comes from sshd's session stack (pam_limits, "
                               "pam_rdmalimit), not from slurmd");
                if (r >= 0 && (size_t)at + 1 < a.modules.n)
                        r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, "slurm-adopt-not-last", a.wheres.v[at],
                                       "make pam_slurm_adopt the last module of sshd's account stack (Slurm's "
                                       "pam_slurm_adopt documentation)",
                                       "sshd: %s (%s) runs after pam_slurm_adopt in the account stack",
                                       a.modules.v[a.modules.n - 1], a.wheres.v[a.modules.n - 1]);
                if (r >= 0)
                        r = slurm_check_pam_systemd(d);
        }
        strv_clear(&a.modules);
        strv_clear(&a.wheres);
        visit_done(&a.walk);
        return r;
}

/* ------------------------------------------------------------------------------------ */

/* slurm.conf's includes cycle, or go past the walk's bound: PropagateResourceLimits is not known. */
static int slurm_walk_report(struct doc *d, const struct visit *v) {
        return walk_finding(d, DOCTOR_SLURM, "slurm-include-cycle", "slurm-include-bound", DIAG_WARNING, v->error, v->where, "Include",
                            "doctor reads no more of slurm.conf", "slurm.conf", SLURM_CYCLE_EFFECT);
}

int check_slurm(struct doc *d) {
        static const char *const confs[] = { "/etc/slurm/slurm.conf", "/etc/slurm-llnl/slurm.conf" };
        static const struct daemon_unit slurmd = {
                .unit = "slurmd.service", .short_name = "slurmd", .group = DOCTOR_SLURM,
                .inherits = "Slurm tasks get it unless PropagateResourceLimits copies the submit host's",
                .id_low = "slurmd-memlock-low", .id_ok = "slurmd-memlock",
                .fix_value = SIZE_INFINITY,
                .fix_why = " (Slurm's own slurmd.service sets LimitMEMLOCK=infinity)",
        };
        _cleanup_(slurm_conf_clear) struct slurm_conf c = {};
        bool found = false;
        int r = -ENOENT;

        size_t i;
        for (i = 0; i < ELEMENTSOF(confs) && r == -ENOENT; i++)
                if ((r = slurm_scan(d, confs[i], NULL, &c)) == 0 && !(c.file = strdup(disp(d, confs[i]))))
                        r = -ENOMEM;
        if (c.walk.error == VISIT_ERR_CYCLE || c.walk.error == VISIT_ERR_BUDGET)
                r = slurm_walk_report(d, &c.walk);
        else if (r == 0)
                r = slurm_check_propagation(d, &c);
        else if (r != -ENOENT && r != -ENOMEM)
                r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_WARNING, NULL, disp(d, confs[i - 1]), NULL,
                               "slurm.conf cannot be read (%s)", strerror(-r));
        else if (r == -ENOENT)
                r = 0;
        if (r < 0 || (r = daemon_unit_check(d, &slurmd, &found)) < 0)
                return r;
        if (c.file && !found &&
            (r = doctor_add(d->rep, DOCTOR_SLURM, DIAG_INFO, "slurmd-no-unit", c.file, NULL,
                            "no slurmd.service: not a compute node, or slurmd is started another "
                            "way (its memlock is then that of whatever starts it)")) < 0)
                return r;
        return slurm_check_adopt(d);
}
