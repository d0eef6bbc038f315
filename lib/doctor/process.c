/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, processes: the login services' own limits (sshd and cron, recognised by owner,
 * executable and unit; running system only), and --pid: a process's limits, what it has
 * locked and pinned, whether it started before the configuration changed.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doctor-internal.h"
#include "session.h"
#include "fsutil.h"
#include "procfs.h"
#include "status.h"

/* ------------------------------------------------------------------------------------ */
/* /proc */

/* The doctor group a daemon's findings go to */
static enum doctor_group daemon_group(const struct proc_daemon *s) {
        return streq(s->service, "sshd") ? DOCTOR_SSH : DOCTOR_CRON;
}

static int check_service_process(struct doc *d, const struct proc_daemon *s, pid_t pid, bool systemd) {
        _cleanup_free_ char *limits = NULL, *status = NULL, *where = strf("%s (pid %d)", s->comm, (int)pid);
        _cleanup_free_ char *fix = NULL, *t1 = NULL;
        char pair[PAIR_MAX], size[SIZE_FMT_MAX];
        uint64_t soft, hard;

        if (!where)
                return -ENOMEM;
        if (proc_read(pid, "limits", DOC_TEXT_MAX, &limits) < 0 ||
            proc_limits_row(limits, "Max locked memory", &soft, &hard) < 0 ||
            proc_read(pid, "status", DOC_TEXT_MAX, &status) < 0) {
                ADD(d, daemon_group(s), DIAG_INFO, where, NULL, "cannot read its limits");
                return 0;
        }
        bool cap = proc_cap_effective(pid, status, CAP_SYS_RESOURCE_BIT);
        fmt_pair(soft, hard, pair);
        if (!d->max.hard_known || hard >= d->max.hard) {
                ADD(d, daemon_group(s), DIAG_OK, where, NULL, "memlock %s%s", pair,
                    d->max.hard_known ? ": enough for the configured hard limits" : "");
                return 0;
        }
        if (cap)
                return doctor_add(d->rep, daemon_group(s), DIAG_OK, NULL, where, NULL,
                                  "memlock %s, below the configured %s, but it has "
                                  "CAP_SYS_RESOURCE: the session modules can raise it",
                                  pair, size_format(d->max.hard, size));
        /* the unit it runs in (its cgroup), not the one it usually has: started by hand, or
         * under another init, it has none, and LimitMEMLOCK= would not reach it */
        _cleanup_free_ char *cgroup = NULL, *unit = NULL;
        if (systemd && proc_read(pid, "cgroup", DOC_TEXT_MAX, &cgroup) >= 0)
                (void)proc_cgroup_unit(cgroup, &unit);
        if (unit && *unit)
                fix = unit_fix(unit, d->max.hard,
                               d->in_container ? " (in a container: start it with --ulimit memlock=...)" : NULL);
        else
                fix = strf("raise the hard limit where %s gets it (it runs in no systemd unit: its parent's limit, "
                           "or the command that starts it: prlimit, ulimit -l)%s", where,
                           d->in_container ? "; in a container, start it with --ulimit memlock=..." : "");
        if (!fix || !(t1 = target_text(&d->max, true)))
                return -ENOMEM;
        ADD(d, daemon_group(s), DIAG_ERROR, where, fix,
            "memlock %s and no CAP_SYS_RESOURCE: the sessions it opens cannot get the %s (setrlimit fails with EPERM, "
            "silently on Debian)",
            pair, t1);
        return 0;
}

/* One process of /proc named like one of the daemons: 1 when it is that daemon's listener. */
static int check_process(struct doc *d, const struct proc_daemon *s, pid_t pid, const char *comm, bool systemd) {
        _cleanup_free_ char *status = NULL, *why = NULL;
        char exe[PATH_MAX];
        int r;

        if (proc_read(pid, "status", DOC_TEXT_MAX, &status) < 0)
                return 0;
        if ((r = proc_daemon_identify(s, pid, status, systemd, exe, &why)) < 0)
                return r;
        if (r == 0) {
                char where[32];
                snprintf(where, sizeof where, "pid %d", (int)pid);
                return doctor_add(d->rep, daemon_group(s), DIAG_INFO, NULL, where, NULL,
                                  "a process named %s is not the daemon (%s): ignored", comm, why);
        }
        /* the listener only: its parent is not the same daemon, nor is it a connection's */
        if (!proc_daemon_listener(s, pid, status, exe))
                return 0;
        r = check_service_process(d, s, pid, systemd);
        return r < 0 ? r : 1;
}

int check_services(struct doc *d) {
        struct dirent *de;
        bool found[ELEMENTSOF(proc_daemons)] = {};
        bool systemd;
        DIR *dir;
        int r = 0;

        if (d->in->root)
                return 0; /* the running services are this machine's, not the tree's */
        systemd = proc_systemd_manages();
        if (!(dir = opendir("/proc")))
                return 0;
        while ((de = readdir(dir)) && r >= 0) {
                _cleanup_free_ char *comm = NULL;
                uint32_t pid;
                if (parse_u32(de->d_name, &pid) < 0 || pid == 0 || proc_comm((pid_t)pid, &comm) < 0)
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(proc_daemons); i++) {
                        /* sshd and cron here; slurmd (no name of its own) in slurm.c */
                        if (!proc_daemons[i].comm || !streq(comm, proc_daemons[i].comm))
                                continue;
                        r = check_process(d, &proc_daemons[i], (pid_t)pid, comm, systemd);
                        if (r > 0)
                                found[i] = true;
                        break;
                }
        }
        closedir(dir);
        if (r < 0)
                return r;
        if (!found[0] && (exists_rooted(d, "/etc/ssh/sshd_config", false) || exists_rooted(d, "/etc/pam.d/sshd", false)))
                ADD(d, DOCTOR_SSH, DIAG_INFO, "sshd", NULL, "not running: its own memlock cannot be checked");
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* --pid */

/* The name of uid (heap): the user the one look-up finds for it (ident_user_by_uid(): NSS on
 * the running system, a tree's passwd as every command reads it under a root). */
static int uid_name(const struct doc *d, uid_t uid, char **ret) {
        const struct id_user *u;
        int r = ident_user_by_uid(d->in->id, uid, &u);
        if (r < 0)
                return r == -ENOMEM ? r : -ENOENT;
        return (*ret = strdup(u->name)) ? 0 : -ENOMEM;
}

static void consider(struct timespec *newest, const char **what, struct timespec ts, const char *name) {
        if (ts.tv_sec > newest->tv_sec || (ts.tv_sec == newest->tv_sec && ts.tv_nsec > newest->tv_nsec)) {
                *newest = ts;
                *what = name;
        }
}

/* The latest change to the configuration: limits files, limits.d itself, the policy.  *what
 * points into the tree or the input (NULL when nothing was found). */
static void newest_config(const struct doc *d, struct timespec *ret, const char **what) {
        const struct lc_tree *t = d->in->tree;
        struct stat st;

        *ret = (struct timespec){};
        *what = NULL;
        for (size_t i = 0; t && i < t->n_files; i++)
                if (t->files[i].stat_ok)
                        consider(ret, what, t->files[i].st.st_mtim, t->files[i].display);
        if (fs_stat_in_root(d->in->root, LC_LIMITS_DIR, false, &st) == 0)
                consider(ret, what, st.st_mtim, disp(d, LC_LIMITS_DIR));
        if (d->in->policy_path && stat(d->in->policy_path, &st) == 0)
                consider(ret, what, st.st_mtim, disp_rooted(d, d->in->policy_path));
}

static const char *fmt_time(time_t t, char *buf, size_t size) {
        struct tm tm;
        if (!localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, size, "@%lld", (long long)t);
        return buf;
}

/* The process's start in seconds since the epoch (stat field 22 + /proc/stat btime). */
static int proc_start(pid_t pid, time_t *ret) {
        _cleanup_free_ char *stat = NULL, *sys = NULL;
        uint64_t ticks, btime;
        long hz = sysconf(_SC_CLK_TCK);
        int r;

        if ((r = proc_read(pid, "stat", DOC_TEXT_MAX, &stat)) < 0 ||
            (r = read_text("/proc/stat", &sys)) < 0)
                return r;
        const char *p = strrchr(stat, ')');
        if (!p || hz <= 0)
                return -EINVAL;
        p++;
        /* fields after the comm: 3 (state) ... 22 (starttime) */
        for (int field = 3; field < 22; field++) {
                while (*p == ' ')
                        p++;
                p += strcspn(p, " ");
        }
        while (*p == ' ')
                p++;
        if ((r = parse_u64_prefix(p, &ticks, NULL)) < 0)
                return r;
        const char *b = strstr(sys, "\nbtime ");
        if (!b)
                return -EINVAL;
        if ((r = parse_u64_prefix(b + 7, &btime, NULL)) < 0)
                return r;
        *ret = (time_t)(btime + ticks / (uint64_t)hz);
        return 0;
}

/* What --pid examines. */
struct pid_view {
        pid_t pid;
        char *where;                 /* "comm (pid N)" */
        uint64_t soft, hard, uid;
        char *user;                  /* NULL: the uid has no name */
        bool stale;                  /* started before the configuration changed */
        /* a new session of the service it runs in (pid_session()): known, and what it gets */
        bool sess_known;
        char service[64];
        pid_t opener;
        pid_t caller;                /* su, runuser, sudo: who runs it (its parent), else 0 */
        struct doctor_session sess;
};

/* su, runuser or sudo: a session that starts from its caller's limits */
static bool view_of_caller(const struct pid_view *v) {
        return session_service_of_caller(v->service);
}

/* The service whose session it runs in and what a new session of it gives its user (the
 * session engine, as explain and verify): v->sess_known.  0 or -ENOMEM. */
static int pid_session(struct doc *d, struct pid_view *v) {
        int r;

        if (!d->in->session_of || !v->user)
                return 0;
        r = session_service_of_process(v->pid, v->service, sizeof v->service, &v->opener, &v->caller);
        if (r <= 0)
                return r;
        if (view_of_caller(v) && v->caller <= 0) {
                /* the opener is this PID namespace's init (a container whose init is su or
                 * sudo): who ran it, whose limits a new session starts from, is outside */
                ADD(d, DOCTOR_PROCESSES, DIAG_INFO, v->where, NULL,
                    "it runs in the %s session of pid %d, run from outside this PID namespace: what a new %s "
                    "session gets depends on the limits of who runs it, not known here; compared with the "
                    "configuration only", v->service, (int)v->opener, v->service);
                return 0;
        }
        r = d->in->session_of(v->user, v->service, v->caller, v->soft, v->hard, &v->sess, d->in->session_data);
        if (r < 0)
                return r;
        v->sess_known = r == 0 && v->sess.final_known;
        return 0;
}

/* Would a new session give it more memlock (unknown: assumed so)? */
static bool restart_helps(const struct pid_view *v) {
        return !v->sess_known || v->soft < v->sess.soft || v->hard < v->sess.hard;
}

/* Does a new session give it exactly what it has?  (Not below, not the same: it has more.) */
static bool same_as_new(const struct pid_view *v) {
        return v->sess_known && v->soft == v->sess.soft && v->hard == v->sess.hard;
}

/* Started before the configuration changed? */
static int pid_check_stale(struct doc *d, struct pid_view *v) {
        struct timespec newest;
        const char *what;
        time_t start;
        char ts1[64], ts2[64];

        newest_config(d, &newest, &what);
        if (proc_start(v->pid, &start) < 0 || !what || newest.tv_sec <= start + 1)
                return 0;
        v->stale = true;
        if (same_as_new(v)) {
                ADD(d, DOCTOR_PROCESSES, DIAG_INFO, v->where, NULL,
                    "started %s, before %s changed (%s); a new %s session of %s gets the same memlock, so a restart "
                    "does not change it",
                    fmt_time(start, ts1, sizeof ts1), what, fmt_time(newest.tv_sec, ts2, sizeof ts2), v->service, v->user);
                return 0;
        }
        if (!restart_helps(v)) {
                ADD(d, DOCTOR_PROCESSES, DIAG_INFO, v->where, NULL,
                    "started %s, before %s changed (%s); a new %s session of %s gets less memlock: a restart would "
                    "lower it",
                    fmt_time(start, ts1, sizeof ts1), what, fmt_time(newest.tv_sec, ts2, sizeof ts2), v->service, v->user);
                return 0;
        }
        ADD(d, DOCTOR_PROCESSES, DIAG_WARNING, v->where,
            "restart it (a new login, or systemctl restart for a service): limits are set when a session opens",
            "started %s, before %s changed (%s): it still runs with the limits it got then: restart it",
            fmt_time(start, ts1, sizeof ts1), what, fmt_time(newest.tv_sec, ts2, sizeof ts2));
        return 0;
}

/* Its memlock compared with what a new session of the service it runs in gives its user:
 * 1 when said, 0 when that session is not known (then the configuration alone is compared). */
static int pid_compare_session(struct doc *d, const struct pid_view *v) {
        char pair[PAIR_MAX], pair2[PAIR_MAX], a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        const struct doctor_session *s = &v->sess;

        if (!v->sess_known)
                return 0;
        /* for su, runuser and sudo the session starts from the limits of who runs it: its
         * parent, which is init once the caller is gone; explain says so with --pid CALLER */
        char by[32] = "", who[96] = "";
        if (view_of_caller(v)) {
                snprintf(by, sizeof by, " --pid %d", (int)v->caller);
                snprintf(who, sizeof who, " run by pid %d%s", (int)v->caller,
                         v->caller == 1 ? " (PID 1: the caller, or init if the caller is gone)" : "");
        }
        if (restart_helps(v)) {
                ADD(d, DOCTOR_PROCESSES, DIAG_WARNING, v->where,
                    view_of_caller(v) ? "start it again from a new session (a new session sets the limits again)"
                                      : "restart it from a new login (a new session sets the limits again)",
                    "memlock %s is below what a new %s session of %s%s gets (%s: explain %s --service %s%s); it runs "
                    "in the %s session of pid %d",
                    fmt_pair(v->soft, v->hard, pair), v->service, v->user, who, fmt_pair(s->soft, s->hard, pair2),
                    v->user, v->service, by, v->service, (int)v->opener);
                return 1;
        }
        if (!same_as_new(v)) {
                /* more than a new session gets: opened under another configuration, or it raised
                 * its own limit; a restart lowers it, and new sessions may fall short */
                ADD(d, DOCTOR_PROCESSES, s->short_of_target ? DIAG_WARNING : DIAG_INFO, v->where,
                    s->short_of_target && s->fix[0] ? s->fix : NULL,
                    "memlock %s is above what a new %s session of %s%s gets now (%s: explain %s --service %s%s): its "
                    "session was opened under another configuration, or it raised its own limit; a restart would "
                    "lower it%s%s",
                    fmt_pair(v->soft, v->hard, pair), v->service, v->user, who, fmt_pair(s->soft, s->hard, pair2),
                    v->user, v->service, by, s->short_of_target ? "; a new session falls short of its target: " : "",
                    s->short_of_target ? s->why : "");
                return 1;
        }
        if (s->short_of_target) {
                ADD(d, DOCTOR_PROCESSES, DIAG_WARNING, v->where, s->fix[0] ? s->fix : NULL,
                    "memlock %s: a new %s session of %s gets the same (a restart does not help), below its target "
                    "soft %s, hard %s (%s): %s",
                    fmt_pair(v->soft, v->hard, pair), v->service, v->user,
                    s->target_has_soft ? size_format(s->target_soft, a) : "-",
                    s->target_has_hard ? size_format(s->target_hard, b) : "-", s->target_from, s->why);
                return 1;
        }
        ADD(d, DOCTOR_PROCESSES, DIAG_OK, v->where, NULL, "memlock %s: what a new %s session of %s%s gets%s (explain %s "
            "--service %s%s); it runs in the %s session of pid %d",
            fmt_pair(v->soft, v->hard, pair), v->service, v->user, who, s->target_known ? ", at its target" : "",
            v->user, v->service, by, v->service, (int)v->opener);
        return 1;
}

/* Its memlock compared with what the configuration gives its user. */
static int pid_compare(struct doc *d, const struct pid_view *v) {
        _cleanup_free_ char *tt = NULL;
        char a[SIZE_FMT_MAX], pair[PAIR_MAX];
        _cleanup_(target_clear) struct target t = {};
        int r = pid_compare_session(d, v);

        if (r != 0)
                return r < 0 ? r : 0;
        r = user_target(d, v->user, &t);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || (!t.soft_known && !t.hard_known))
                return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_INFO, NULL, v->where, NULL,
                                  "no limits entry or policy rule gives %s a memlock: nothing to "
                                  "compare", v->user);
        bool low_soft = t.soft_known && v->soft < t.soft, low_hard = !low_soft && t.hard_known && v->hard < t.hard;
        if ((low_soft || low_hard) && !(tt = target_text(&t, low_hard)))
                r = -ENOMEM;
        else if (low_soft || low_hard)
                r = doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_WARNING, NULL, v->where,
                               v->stale ? "restart it from a new session ('rdmalimits explain USER --service SERVICE' "
                                          "says what one of SERVICE gets)"
                                        : "start it from a PAM session that runs pam_limits/pam_rdmalimit ('rdmalimits "
                                          "explain USER --service SERVICE' says what one gets); for a systemd service: "
                                          "rdmalimits apply --unit UNIT SIZE",
                               "memlock %s %s is below the %s that the configuration gives %s",
                               low_soft ? "soft" : "hard", size_format(low_soft ? v->soft : v->hard, a), tt, v->user);
        else
                r = doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_OK, NULL, v->where, NULL,
                               "memlock %s: at least what the configuration gives %s", fmt_pair(v->soft, v->hard, pair),
                               v->user);
        return r;
}

/* Its limits, owner and what it has locked and pinned; 0 when it cannot be read (reported). */
static int pid_read(struct doc *d, struct pid_view *v) {
        _cleanup_free_ char *limits = NULL, *status = NULL;
        char pair[PAIR_MAX], a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        uint64_t vmlck = 0, vmpin = 0;
        int r;

        if ((r = proc_read(v->pid, "limits", DOC_TEXT_MAX, &limits)) < 0 ||
            (r = proc_read(v->pid, "status", DOC_TEXT_MAX, &status)) < 0 ||
            proc_limits_row(limits, "Max locked memory", &v->soft, &v->hard) < 0 ||
            proc_field_u64(status, "Uid", &v->uid) < 0) {
                if (r == -ENOMEM)
                        return r;
                return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_ERROR, NULL, v->where, NULL,
                                  "cannot read /proc/%d/limits and status", (int)v->pid);
        }
        (void)proc_field_u64(status, "VmLck", &vmlck);
        (void)proc_field_u64(status, "VmPin", &vmpin);
        vmlck *= 1024;
        vmpin *= 1024;
        if ((r = uid_name(d, (uid_t)v->uid, &v->user)) == -ENOMEM)
                return r;
        ADD(d, DOCTOR_PROCESSES, DIAG_INFO, v->where, NULL,
            "user %s (uid %llu): memlock %s; locked %s (VmLck), pinned %s (VmPin)", v->user ?: "?",
            (unsigned long long)v->uid, fmt_pair(v->soft, v->hard, pair), size_format(vmlck, a), size_format(vmpin, b));
        /* the kernel checks each against the limit on its own: mlock() the locked pages (VmLck),
         * an RDMA MR the pinned ones (VmPin) */
        uint64_t most = vmlck > vmpin ? vmlck : vmpin;
        if (v->soft != SIZE_INFINITY && v->soft > 0 && most >= v->soft / 10 * 9)
                ADD(d, DOCTOR_PROCESSES, DIAG_WARNING, v->where, "raise its memlock (see the other findings)",
                    "%s memory (%s, %s) is close to its soft limit %s: the next %s may fail with ENOMEM",
                    vmlck >= vmpin ? "locked" : "pinned", size_format(most, a), vmlck >= vmpin ? "VmLck" : "VmPin",
                    size_format(v->soft, b), vmlck >= vmpin ? "mlock()" : "RDMA memory registration");
        return 1;
}

/* Other processes of the user holding AF_XDP sockets, as "pid P (comm, N sockets: inode I ...)"
 * joined by "; " (NULL: none; -ENOMEM in *ret_r). */
static char *acct_holders(const struct status_report *rep, pid_t self, size_t *ret_n, int *ret_r) {
        char *out = NULL;

        *ret_n = 0;
        *ret_r = 0;
        for (size_t i = 0; i < rep->n_procs; i++) {
                const struct status_proc *p = &rep->procs[i];
                if (p->pid == self || !p->n_xsk)
                        continue;
                char inodes[16 * 12] = "";
                size_t l = 0;
                for (size_t k = 0; k < p->n_xsk && k < ELEMENTSOF(p->xsk_ino) && l < sizeof inodes - 12; k++)
                        l += (size_t)snprintf(inodes + l, sizeof inodes - l, " %u", p->xsk_ino[k]);
                char *n = strf("%s%spid %d (%s, %zu AF_XDP socket%s, inode%s)", out ?: "", out ? "; " : "", (int)p->pid,
                               p->comm, p->n_xsk, p->n_xsk == 1 ? "" : "s", inodes);
                free(out);
                if (!(out = n)) {
                        *ret_r = -ENOMEM;
                        return NULL;
                }
                (*ret_n)++;
        }
        return out;
}

/*
 * What is already charged to the user's locked memory, the way the kernel charges AF_XDP UMEMs
 * (all of the user's processes against each one's own soft limit), with pin-test's and status's
 * accounting: the charge, its holders, and the fix when little is left under this process's
 * soft limit.  The next UMEM of this process fails with ENOBUFS once charge + size > soft.
 */
static int pid_accounting(struct doc *d, const struct pid_view *v) {
        struct status_options o = { .probe = true, .threshold = UINT64_MAX, .probe_timeout = d->in->probe_timeout,
                                    .filter = { .by_user = true, .uid = (uid_t)v->uid } };
        _cleanup_(status_report_clear) struct status_report rep = {};
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], c[SIZE_FMT_MAX];
        size_t n_holders;
        _cleanup_free_ char *fix = NULL, *holders = NULL;
        int r = status_collect(&o, &rep);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        const struct status_user *u = status_find_user(&rep, (uid_t)v->uid);
        holders = acct_holders(&rep, v->pid, &n_holders, &r);
        if (r < 0)
                return r;
        if (!u || u->a.charged_method == STATUS_M_UNKNOWN)
                return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_INFO, NULL, v->where, NULL,
                                  "charged to user %s's locked memory (AF_XDP UMEMs of all its "
                                  "processes): unknown (%s)", v->user ?: "?",
                                  u && u->charged_why[0] ? u->charged_why : rep.xsk_why);
        const struct status_proc *self = NULL;
        for (size_t i = 0; i < rep.n_procs; i++)
                if (rep.procs[i].pid == v->pid)
                        self = &rep.procs[i];
        if (self && self->cap_ipc_lock)
                return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_INFO, NULL, v->where, NULL,
                                  "has CAP_IPC_LOCK: its AF_XDP UMEMs are neither charged nor "
                                  "limited (user %s's locked memory holds %s%s (%s)%s%s)",
                                  v->user ?: "?", u->a.charged_at_least ? "at least " : "",
                                  size_format(u->a.charged, a),
                                  status_method_name(u->a.charged_method),
                                  holders ? "; held by " : "", holders ?: "");
        bool finite = v->soft != SIZE_INFINITY;
        uint64_t left = finite && v->soft > u->a.charged ? v->soft - u->a.charged : 0;
        r = doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_INFO, NULL, v->where, NULL,
                       "charged to user %s's locked memory (AF_XDP UMEMs of all its processes): %s%s (%s)%s%s%s%s",
                       v->user ?: "?", u->a.charged_at_least ? "at least " : "", size_format(u->a.charged, a),
                       status_method_name(u->a.charged_method), finite ? "; this process can still register " : "",
                       finite ? size_format(left, b) : "", holders ? "; held by " : "", holders ?: "");
        if (r < 0 || !finite || u->a.charged == 0 || u->a.charged < v->soft / 10 * 9)
                return r;
        if (v->hard == SIZE_INFINITY || v->hard > v->soft)
                fix = strf("raise only the soft limit, the hard one (%s) allows it (ulimit -S -l, or LimitMEMLOCK=SOFT:HARD)%s",
                           size_format(v->hard, a), n_holders ? ", or stop the other holder" : "");
        else if (n_holders)
                fix = strf("stop the other holder (%s already charged), or raise memlock (rdmalimits apply %s SIZE)",
                           size_format(u->a.charged, a), v->user ?: "USER");
        else
                fix = strf("raise memlock (rdmalimits apply %s SIZE), then start the process again", v->user ?: "USER");
        if (!fix)
                return -ENOMEM;
        return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_WARNING, NULL, v->where, fix,
                          "user %s's locked memory already charged (%s) leaves %s under this "
                          "process's soft limit %s: its next AF_XDP UMEM registration may fail "
                          "with ENOBUFS", v->user ?: "?", size_format(u->a.charged, a),
                          size_format(left, b), size_format(v->soft, c));
}

static int pid_examine(struct doc *d, struct pid_view *v) {
        int r = pid_read(d, v);
        if (r <= 0)
                return r;
        if ((r = pid_session(d, v)) < 0 || (r = pid_check_stale(d, v)) < 0 || (r = pid_accounting(d, v)) < 0)
                return r;
        if (!v->user)
                return doctor_add(d->rep, DOCTOR_PROCESSES, DIAG_INFO, NULL, v->where, NULL,
                                  "uid %llu has no name%s: cannot look up its configured limit",
                                  (unsigned long long)v->uid, d->in->root ? " in etc/passwd" : "");
        return pid_compare(d, v);
}

int check_pid(struct doc *d) {
        _cleanup_free_ char *comm = NULL;
        struct pid_view v = { .pid = d->in->pid };
        int r;

        if (v.pid <= 0)
                return 0; /* no --pid */
        if (proc_comm(v.pid, &comm) < 0) {
                char where[32];
                snprintf(where, sizeof where, "pid %d", (int)v.pid);
                ADD(d, DOCTOR_PROCESSES, DIAG_ERROR, where, NULL, "no such process");
                return 0;
        }
        if (!(v.where = strf("%s (pid %d)", comm, (int)v.pid)))
                return -ENOMEM;
        r = pid_examine(d, &v);
        free(v.where);
        free(v.user);
        return r;
}
