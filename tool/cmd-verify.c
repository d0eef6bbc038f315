/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify: open a real session (PAM, or an ssh login) and compare with explain. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "apply.h"
#include "procfs.h"
#include "rlimit.h"
#include "size.h"
#include "escape.h"
#include "netlink.h"
#include "tool.h"
#include "fsutil.h"

struct session_result {
        int pam_rc;               /* PAM_SUCCESS or the failing code */
        bool no_session;          /* no session to judge: --ssh, ssh's own failure; the deadline */
        char pam_error[256];
        struct rl_pair got;
        char messages[2048];      /* what the conversation was told */
};

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        struct session_result *r = data;
        struct pam_response *out = calloc((size_t)n, sizeof(*out));
        if (!out)
                return PAM_BUF_ERR;
        for (int i = 0; i < n; i++) {
                if (msg[i]->msg_style == PAM_TEXT_INFO || msg[i]->msg_style == PAM_ERROR_MSG) {
                        size_t l = strlen(r->messages);
                        snprintf(r->messages + l, sizeof r->messages - l, "%s%s", l ? "\n" : "", msg[i]->msg);
                } else {
                        free(out);
                        return PAM_CONV_ERR; /* nobody to answer questions */
                }
        }
        *resp = out;
        return PAM_SUCCESS;
}

#define VERIFY_TIMEOUT_S 60   /* the session's or the login's deadline; --probe-timeout changes it */

static long verify_timeout(const struct ctx *c) {
        return (c->given & OPT_PROBE_TIMEOUT) ? (long)c->probe_timeout : VERIFY_TIMEOUT_S;
}

#define KILL_REAP_MS 5000

/* SIGKILL and reap every child of this process: those the killed session left, which this
 * process (a subreaper) inherited, however they left its process group (pam_exec's command
 * calls setsid()).  A child that appears meanwhile is taken in the next round. */
static void kill_children(void) {
        /* this process as /proc numbers it (a /proc of another PID namespace than ours numbers
         * it otherwise than getpid()) */
        char me[32];
        uint64_t self;
        ssize_t l = readlink("/proc/self", me, sizeof me - 1);
        if (l <= 0)
                return;
        me[l] = '\0';
        if (parse_u64(me, &self) < 0)
                return;
        for (unsigned round = 0; round < 16; round++) {
                bool any = false;
                DIR *d = opendir("/proc");
                struct dirent *de;
                if (!d)
                        return;
                while ((de = readdir(d))) {
                        _cleanup_free_ char *status = NULL;
                        uint64_t pid, ppid;
                        if (parse_u64(de->d_name, &pid) < 0 || pid == 0 || pid > INT_MAX ||
                            proc_read((pid_t)pid, "status", PROC_TEXT_MAX, &status) < 0 ||
                            proc_field_u64(status, "PPid", &ppid) < 0 || ppid != self)
                                continue;
                        (void)kill((pid_t)pid, SIGKILL);
                        any = true;
                }
                closedir(d);
                /* reaped, each within a bounded time: a killed process a user's FUSE mount
                 * holds in the kernel is left to init */
                uint64_t until = nl_now_ms() + KILL_REAP_MS;
                for (;;) {
                        pid_t w = waitpid(-1, NULL, __WALL | WNOHANG);
                        if (w < 0 && errno == EINTR)
                                continue;
                        if (w < 0 || (w == 0 && nl_now_ms() >= until))
                                break;
                        if (w == 0)
                                (void)usleep(10000);
                }
                if (!any)
                        return;
        }
}

/*
 * In a child process, like a login service: pam_start, open_session, getrlimit.  The modules
 * read what the user controls (pam_env: ~/.pam_environment, which can be a FIFO nobody
 * writes), so the child has timeout_s seconds: then it and whatever it started are killed, and
 * ret->no_session says why.  What it started may have left its process group (pam_exec's
 * command runs in a session of its own): this process is their subreaper while the session
 * runs, and kills every child it is left with.
 */
static int pam_session(const char *service, const char *user, long timeout_s, struct session_result *ret) {
        int fds[2];
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return negative_errno();
        (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
        pid = fork();
        if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
                return negative_errno();
        }
        if (pid == 0) {
                struct session_result r = {};
                struct pam_conv c = { conv, &r };
                pam_handle_t *h = NULL;
                (void)setpgid(0, 0);
                (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(fds[0]);
                r.pam_rc = pam_start(service, user, &c, &h);
                if (r.pam_rc == PAM_SUCCESS) {
                        r.pam_rc = pam_open_session(h, 0);
                        if (r.pam_rc != PAM_SUCCESS)
                                snprintf(r.pam_error, sizeof r.pam_error, "%s", pam_strerror(h, r.pam_rc));
                        (void)rl_get_memlock(&r.got);
                        if (r.pam_rc == PAM_SUCCESS)
                                pam_close_session(h, 0);
                        pam_end(h, r.pam_rc);
                } else
                        snprintf(r.pam_error, sizeof r.pam_error, "pam_start failed");
                ssize_t w = write(fds[1], &r, sizeof r);
                _exit(w == (ssize_t)sizeof r ? 0 : 1);
        }
        close(fds[1]);
        (void)setpgid(pid, pid);
        /* one result of sizeof *ret bytes, or nothing by the deadline (the clock of every deadline) */
        ssize_t got = fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0
                              ? negative_errno()
                              : fd_read_by(fds[0], ret, sizeof *ret, nl_now_ms() + (uint64_t)timeout_s * 1000);
        bool timed_out = got == -ETIME;
        close(fds[0]);
        if (timed_out)
                (void)kill(-pid, SIGKILL);
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        if (timed_out)
                kill_children();
        (void)prctl(PR_SET_CHILD_SUBREAPER, 0);
        if (timed_out) {
                *ret = (struct session_result){ .no_session = true };
                snprintf(ret->pam_error, sizeof ret->pam_error, "the PAM session of %s (service %s) did not answer "
                         "in %ld s (a module waits: pam_env reads the user's ~/.pam_environment, which the user can "
                         "make a FIFO): it was killed", user, service, timeout_s);
                return 0;
        }
        return got == (ssize_t)sizeof *ret ? 0 : -EIO;
}

/* The user part of an ssh destination ([USER@]HOST, ssh://[USER@]HOST[:PORT]): a pointer
 * into dest and its length, 0 when there is none. */
static size_t dest_user(const char *dest, const char **ret) {
        const char *d = strncmp(dest, "ssh://", 6) == 0 ? dest + 6 : dest;
        const char *at = strrchr(d, '@');
        *ret = d;
        return at ? (size_t)(at - d) : 0;
}

/* ssh's own words for a login that never reached the server's session (connection, host
 * key, authentication): then there is nothing to judge.  Any other failure (sshd closing the
 * connection when its PAM session fails) is a session that did not open. */
static bool ssh_no_login(const char *err) {
        static const char *const words[] = {
                "Permission denied",        "Host key verification failed", "Connection refused",
                "Could not resolve hostname", "No route to host",          "Connection timed out",
                "Network is unreachable",   "Too many authentication failures", "IDENTIFICATION HAS CHANGED",
                "Bad configuration option", "Bad port",                    "Could not request local forwarding",
        };
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strstr(err, words[i]))
                        return true;
        return false;
}

/* What the remote command prints before the limits, so that nothing a start-up file of the
 * user prints first (a long banner, a line like a limits row) is taken for them: the last
 * copy counts. */
#define SSH_MARK "rdmalimits-verify-limits-follow"
#define SSH_OUTPUT_MAX (1024 * 1024)

/* What one run of ssh left: its output (bounded), the last of its stderr, how it ended. */
struct ssh_run {
        char *out;                /* SSH_OUTPUT_MAX + 1 bytes */
        size_t olen;
        char err[4097];
        size_t elen;
        bool timed_out;
        int code;                 /* exit status, 128 + signal, -1: not known */
};

/* Read fds (stdout, stderr) of pid until both end or timeout_s runs out, bounded; then the
 * process group is killed (on a timeout) and pid reaped. */
static void ssh_collect(int ofd, int efd, pid_t pid, long timeout_s, struct ssh_run *x) {
        struct pollfd p[2] = { { .fd = ofd, .events = POLLIN }, { .fd = efd, .events = POLLIN } };
        uint64_t deadline = nl_now_ms() + (uint64_t)timeout_s * 1000;   /* the clock of every deadline */

        while (p[0].fd >= 0 || p[1].fd >= 0) {
                uint64_t now = nl_now_ms();
                if (now >= deadline) {
                        x->timed_out = true;
                        break;
                }
                int n = poll(p, 2, (int)(deadline - now));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break;
                for (int i = 0; i < 2; i++) {
                        char tmp[4096];
                        if (p[i].fd < 0 || !p[i].revents)
                                continue;
                        ssize_t m = read(p[i].fd, tmp, sizeof tmp);
                        if (m < 0 && errno == EINTR)
                                continue;
                        if (m <= 0) {
                                close(p[i].fd);
                                p[i].fd = -1;
                                continue;
                        }
                        /* bounded: what goes past the bound is read and dropped */
                        char *b = i == 0 ? x->out : x->err;
                        size_t *l = i == 0 ? &x->olen : &x->elen, cap = i == 0 ? SSH_OUTPUT_MAX : sizeof x->err - 1;
                        size_t take = (size_t)m < cap - *l ? (size_t)m : cap - *l;
                        memcpy(b + *l, tmp, take);
                        *l += take;
                }
        }
        for (int i = 0; i < 2; i++)
                if (p[i].fd >= 0)
                        close(p[i].fd);
        if (x->timed_out)
                (void)kill(-pid, SIGKILL);
        int st = 0;
        pid_t waited;
        while ((waited = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
                ;
        x->out[x->olen] = '\0';
        x->err[x->elen] = '\0';
        x->code = waited < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What the run says of the login, into ret */
static void ssh_judge(const struct ctx *c, long timeout_s, struct ssh_run *x, struct session_result *ret) {
        if (x->timed_out) {
                ret->no_session = true;
                snprintf(ret->pam_error, sizeof ret->pam_error, "the ssh login to %s did not finish in %ld s (the user's "
                         "start-up files can hold it): ssh was killed", c->ssh, timeout_s);
                return;
        }
        if (x->code != 0) {
                /* ssh's own failure (255: it could not log in; 127: no ssh) is no login at all;
                 * its last line of stderr says why */
                char *last = x->err + x->elen;
                while (last > x->err && (last[-1] == '\n' || last[-1] == '\r'))
                        *--last = '\0';
                while (last > x->err && last[-1] != '\n')
                        last--;
                ret->no_session = x->code == 127 || x->code < 0 || (x->code == 255 && ssh_no_login(x->err));
                snprintf(ret->pam_error, sizeof ret->pam_error, "ssh %s failed (exit %d)%s%.160s", c->ssh, x->code,
                         *last ? ": " : "", last);
                ret->pam_rc = PAM_SESSION_ERR;
                return;
        }
        /* the limits after the last mark */
        const char *mark = NULL;
        for (const char *q = x->out; (q = strstr(q, SSH_MARK "\n")); q++)
                if (q == x->out || q[-1] == '\n')
                        mark = q;
        int r = mark ? proc_limits_row(mark + strlen(SSH_MARK) + 1, "Max locked memory", &ret->got.soft, &ret->got.hard)
                     : -ENOENT;
        if (r < 0) {
                ret->no_session = true;
                snprintf(ret->pam_error, sizeof ret->pam_error, "%s", !mark ? "the remote command printed nothing "
                         "rdmalimits can read (its mark is missing: the login shell ran something else)"
                         : "no 'Max locked memory' in the remote /proc/self/limits");
                return;
        }
        ret->pam_rc = PAM_SUCCESS;
}

/* ssh -n -o BatchMode=yes [-l USER] [--ssh-option ARG...] -- DEST 'echo MARK; cat /proc/self/limits',
 * within --probe-timeout (default VERIFY_TIMEOUT_S) seconds (a user's start-up files may hold the
 * login: then ssh and its process group are killed).  ret->no_session: no login to judge (ssh
 * could not log in, is not there, or the time ran out), with why in ret->pam_error. */
static int ssh_session(const struct ctx *c, const char *user, struct session_result *ret) {
        _cleanup_free_ char **argv = calloc(c->n_ssh_options + 12, sizeof(char *));
        _cleanup_free_ char *out = malloc(SSH_OUTPUT_MAX + 1);
        int ofd[2] = { -1, -1 }, efd[2] = { -1, -1 }, k = 0;
        long timeout_s = verify_timeout(c);
        const char *du;

        *ret = (struct session_result){};
        if (!argv || !out)
                return -ENOMEM;
        argv[k++] = (char *)"ssh";
        argv[k++] = (char *)"-n";
        argv[k++] = (char *)"-o";
        argv[k++] = (char *)"BatchMode=yes";
        if (!dest_user(c->ssh, &du)) {
                /* the login is USER's, whatever ssh would take by default */
                argv[k++] = (char *)"-l";
                argv[k++] = (char *)user;
        }
        for (size_t i = 0; i < c->n_ssh_options; i++)
                argv[k++] = (char *)c->ssh_options[i];
        /* DEST is never taken for an option of ssh's */
        argv[k++] = (char *)"--";
        argv[k++] = (char *)c->ssh;
        argv[k++] = (char *)"echo " SSH_MARK "; cat /proc/self/limits";
        argv[k] = NULL;
        if (pipe2(ofd, O_CLOEXEC) < 0 || pipe2(efd, O_CLOEXEC) < 0) {
                int r = negative_errno();
                closep(&ofd[0]);
                closep(&ofd[1]);
                return r;
        }
        pid_t pid = fork();
        if (pid == 0) {
                /* its own process group, killed with verify */
                (void)setpgid(0, 0);
                (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
                dup2(ofd[1], STDOUT_FILENO);
                dup2(efd[1], STDERR_FILENO);
                execvp("ssh", argv);
                _exit(127);
        }
        close(ofd[1]);
        close(efd[1]);
        if (pid < 0) {
                int r = negative_errno();
                close(ofd[0]);
                close(efd[0]);
                return r;
        }
        (void)setpgid(pid, pid);
        struct ssh_run x = { .out = out };
        ssh_collect(ofd[0], efd[0], pid, timeout_s, &x);
        ssh_judge(c, timeout_s, &x, ret);
        return 0;
}

static void json_pair(struct json *j, const char *key, bool known, struct rl_pair p) {
        json_kobj_begin(j, key);
        json_klimit_opt(j, "soft", known, p.soft);
        json_klimit_opt(j, "hard", known, p.hard);
        json_obj_end(j);
}

#define MAX_REASONS 6

/* The three verdicts (DESIGN.md: verify's exit codes 0, 1, 5). */
enum verdict_kind {
        VERDICT_OK,               /* as predicted, and the target is met (or there is none) */
        VERDICT_BELOW,            /* as predicted, but below the target: target.why, target.fix */
        VERDICT_MODEL_ERROR,      /* the session is not what explain predicts */
};

struct verdict {
        bool ok;                  /* the session opened */
        bool predicted_known;
        struct rl_pair predicted;
        bool predicted_open;      /* the model says the session opens */
        bool agree;
        enum verdict_kind kind;
        struct session_target target;
        char reasons[MAX_REASONS][1024];
        int n;
};

static const char *verdict_name(enum verdict_kind k) {
        static const char *const names[] = { [VERDICT_OK] = "ok", [VERDICT_BELOW] = "below-target",
                                             [VERDICT_MODEL_ERROR] = "model-error" };
        return names[k];
}

_printf_(2, 3) static void reason(struct verdict *v, const char *fmt, ...) {
        va_list ap;
        if (v->n >= MAX_REASONS)
                return;
        va_start(ap, fmt);
        vsnprintf(v->reasons[v->n++], sizeof v->reasons[0], fmt, ap);
        va_end(ap);
}

/* Compare the real session with the model, and say why they may differ. */
static void judge(const struct ctx *c, const struct tool_session *s, const struct tool_session *daemon,
                  const struct session_result *sr, struct verdict *v) {
        const struct session_model *m = &s->m;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];

        v->ok = sr->pam_rc == PAM_SUCCESS;
        v->predicted_open = m->kind == LC_SESSION_LIMITS || m->kind == LC_SESSION_NO_LIMITS;
        v->predicted_known = m->final_known && v->predicted_open;
        v->predicted = m->final;
        v->agree = v->ok ? v->predicted_known && sr->got.soft == m->final.soft && sr->got.hard == m->final.hard
                         : !v->predicted_open;
        if (!v->ok)
                reason(v, "the session did not open: %s%s%s", sr->pam_error, v->predicted_open ? "" : "; the model says: ",
                       v->predicted_open ? "" : m->cause);
        else if (!v->predicted_open)
                reason(v, "the model says the session fails (%s), but it opened", m->cause);
        if (v->ok && !v->predicted_known)
                reason(v, "the model cannot predict a value: the service's own memlock is unknown (%s)", s->svc.source);
        if (m->pl.requested_hard_known && m->pl.memlock_known && m->pl.requested_hard > m->pl.memlock_hard)
                reason(v, "pam_limits asks hard %s but %s cannot raise its hard limit above %s without "
                       "CAP_SYS_RESOURCE: this pam_limits silently keeps the old limit",
                       size_format(m->pl.requested_hard, a), s->svc.source, size_format(m->pl.memlock_hard, b));
        if (m->module_eperm)
                reason(v, "pam_rdmalimit asks hard %s but the hard limit cannot rise above %s without CAP_SYS_RESOURCE: "
                       "it set the closest value", size_format(m->dec.hard, a), size_format(m->final.hard, b));
        if (c->ssh && v->ok && !v->agree)
                reason(v, "the ssh server's own limits decide what it can set: see 'rdmalimits doctor' on that host "
                       "(sshd's hard limit, CAP_SYS_RESOURCE, UsePAM)");
        if (v->ok && v->predicted_known && !v->agree && !c->ssh) {
                /* the walk's path depends on a line whose result the model assumed: verify's own
                 * session (no remote host, no tty) may take the other path, a real login not */
                const struct pam_entry *as = m->run.assumed && m->run.assumed_at >= 0 &&
                                                             (size_t)m->run.assumed_at < m->stack.n
                                                     ? &m->stack.v[m->run.assumed_at] : NULL;
                if (as)
                        reason(v, "the session got soft %s, hard %s: the model assumed that %s:%u '%s %s' succeeds, and in "
                               "this session, opened by verify itself (no remote host, no terminal), it may not; "
                               "verify --ssh logs in for real", size_format(sr->got.soft, a), size_format(sr->got.hard, b),
                               as->file, as->line, as->control, as->module);
                else
                        reason(v, "the session got soft %s, hard %s: another module of the %s stack (or the service) "
                               "changes memlock", size_format(sr->got.soft, a), size_format(sr->got.hard, b),
                               s->service);
        }
        /* the target is judged on what the session really got */
        session_target(m, s->t, &s->svc, s->service, v->ok, sr->got, &v->target);
        v->kind = !v->agree                                               ? VERDICT_MODEL_ERROR
                  : v->target.cause == SESSION_SHORT_NONE && v->ok        ? VERDICT_OK
                                                                          : VERDICT_BELOW;
        /* a login through the running daemon starts from the daemon's limits, not verify's:
         * where its session ends otherwise, the target is judged on it (explain's answer) */
        const struct session_model *dm = daemon ? &daemon->m : NULL;
        if (dm && v->kind != VERDICT_MODEL_ERROR &&
            (dm->kind != m->kind || dm->final_known != m->final_known || dm->final.soft != m->final.soft ||
             dm->final.hard != m->final.hard)) {
                bool dopen = dm->kind == LC_SESSION_LIMITS || dm->kind == LC_SESSION_NO_LIMITS;
                if (dm->final_known && dopen)
                        reason(v, "a login through %s starts from its limits, not verify's: explain predicts soft %s, "
                               "hard %s for it (this session, opened by verify itself, is not such a login; "
                               "verify --ssh logs in for real)", daemon->svc.source, size_format(dm->final.soft, a),
                               size_format(dm->final.hard, b));
                else
                        reason(v, "a login through %s starts from its limits, not verify's: explain predicts %s for "
                               "it (verify --ssh logs in for real)", daemon->svc.source,
                               dopen ? "the service's own limits" : dm->cause);
                session_target(dm, daemon->t, &daemon->svc, daemon->service, dopen && dm->final_known, dm->final,
                               &v->target);
                v->kind = v->target.cause == SESSION_SHORT_NONE && dopen ? VERDICT_OK : VERDICT_BELOW;
        }
        /* a PAM session this process opened is not a login of a service that opens none:
         * never OK for it (ssh logins keep sshd's own limits; verify --ssh logs in for real) */
        if (!c->ssh && v->kind != VERDICT_MODEL_ERROR && m->pam.kind != SESSION_PAM_RUNS &&
            m->pam.kind != SESSION_PAM_ASSUMED) {
                v->kind = VERDICT_BELOW;
                session_target_no_pam(&m->pam, &v->target);
                reason(v, "this PAM session of %s, opened by verify itself, is not what a login through %s gets", s->service,
                       s->service);
        }
}

/* The module's message to this session (its shortfall, about memlock; login banners are not
 * the point here), into buf; NULL when it sent none or the session is an ssh login (whose
 * messages sshd does not pass on without a terminal). */
static const char *module_told(const struct ctx *c, const struct session_result *sr, char *buf, size_t size) {
        if (c->ssh)
                return NULL;
        size_t tl = strlen(LOGIN_SHORTFALL_TAIL);
        for (const char *line = sr->messages; line && *line;) {
                size_t n = strcspn(line, "\n");
                /* the module's own message (login_shortfall_text()), not another module's */
                if (n >= tl && memcmp(line + n - tl, LOGIN_SHORTFALL_TAIL, tl) == 0 && memmem(line, n, "memlock", 7)) {
                        snprintf(buf, size, "%.*s", (int)n, line);
                        return buf;
                }
                line += n + (line[n] == '\n');
        }
        return NULL;
}

/* The model's module tells the user of its shortfall: it could not set what its policy asks
 * (module_eperm) and its line does not say quiet. */
static bool module_tells(const struct tool_session *s) {
        _cleanup_free_ char *buf = NULL;
        struct login_args a;
        const struct session_model *m = &s->m;
        if (!m->module_eperm || m->module_entry < 0 || (size_t)m->module_entry >= m->stack.n)
                return false;
        return session_module_args(m->stack.v[m->module_entry].args, &a, &buf) >= 0 && !a.quiet;
}

/* Who sees such a message (verify says which for the session it opened):
 * "interactive-only": a PAM session: this conversation got it; a user does in an interactive
 * login (a terminal), not in 'ssh host cmd' or 'su - USER -c cmd'.  "not-shown": an ssh login
 * running a command, as --ssh's does, where the model says the module tells the user.  NULL:
 * nothing to tell. */
static const char *told_shown(const struct ctx *c, const struct tool_session *s, const char *told) {
        if (told)
                return "interactive-only";
        return c->ssh && module_tells(s) ? "not-shown" : NULL;
}

static void verify_json(const struct ctx *c, const char *user, const struct tool_session *s,
                        const struct session_result *sr, const struct verdict *v) {
        struct json j;

        json_doc_begin(&j);
        json_kstr(&j, "user", user);
        json_kstr(&j, "method", c->ssh ? "ssh" : "pam");
        json_kstr(&j, c->ssh ? "destination" : "service", c->ssh ? c->ssh : s->service);
        json_pair(&j, "predicted", v->predicted_known, v->predicted);
        json_kstr(&j, "predicted_session", v->predicted_open ? "opens" : "fails");
        json_kstr(&j, "service_process", s->svc.source);
        json_kbool(&j, "assumed", !s->svc.known);
        if (!c->ssh) {
                json_pair(&j, "start", s->m.start_known, s->m.start);
                json_kbool(&j, "cap_sys_resource", s->svc.cap_sys_resource);
                json_pair(&j, "expected", v->predicted_known, v->predicted);
        }
        json_pair(&j, "got", v->ok, sr->got);
        json_kbool(&j, "session_opened", v->ok);
        json_kbool(&j, "agree", v->agree);
        json_kstr(&j, "verdict", verdict_name(v->kind));
        if (v->target.known) {
                json_kobj_begin(&j, "target");
                json_klimit_opt(&j, "soft", v->target.want_soft, v->target.want.soft);
                json_klimit_opt(&j, "hard", v->target.want_hard, v->target.want.hard);
                json_kstr(&j, "from", v->target.from);
                json_obj_end(&j);
        } else {
                json_key(&j, "target");
                json_null(&j);
        }
        if (v->kind == VERDICT_BELOW) {
                json_kobj_begin(&j, "shortfall");
                json_kstr(&j, "why", v->target.why);
                if (*v->target.where)
                        json_kstr(&j, "where", v->target.where);
                if (*v->target.fix)
                        json_kstr(&j, "fix", v->target.fix);
                json_obj_end(&j);
        }
        json_karr_begin(&j, "reasons");
        for (int i = 0; i < v->n; i++)
                json_str(&j, v->reasons[i]);
        json_arr_end(&j);
        json_klines(&j, "messages", sr->messages);
        char buf[sizeof sr->messages];
        const char *told = module_told(c, sr, buf, sizeof buf);
        json_kstr(&j, "told_user", told);
        json_kstr(&j, "told_shown", told_shown(c, s, told));
        json_doc_end(&j);
}

static void verify_text(const struct ctx *c, const struct tool_session *s, const struct session_result *sr,
                        const struct verdict *v) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], e[4096]; /* user bytes through the one escaper */

        if (v->predicted_known)
                printf("explain predicts:  soft %-12s hard %s\n", size_format(v->predicted.soft, a),
                       size_format(v->predicted.hard, b));
        else if (!v->predicted_open)
                printf("explain predicts:  the session fails (%s)\n", str_escape(s->m.cause, e, sizeof e));
        else
                printf("explain predicts:  the service's own limits (unknown)\n");
        if (!c->ssh && s->m.start_known)
                printf("service process:   soft %-12s hard %s%s\n", size_format(s->m.start.soft, a),
                       size_format(s->m.start.hard, b),
                       s->svc.cap_sys_resource ? " (with CAP_SYS_RESOURCE)" : ", without CAP_SYS_RESOURCE");
        else
                printf("service process:   %s\n", str_escape(s->svc.source, e, sizeof e));
        if (v->ok)
                printf("%s got: soft %-12s hard %s\n", c->ssh ? "ssh login   " : "PAM session ", size_format(sr->got.soft, a),
                       size_format(sr->got.hard, b));
        char buf[sizeof sr->messages];
        const char *told = module_told(c, sr, buf, sizeof buf), *shown = told_shown(c, s, told);
        if (told)
                printf("the module told this session: %s\n"
                       "  a user sees it only in an interactive login (a terminal: ssh, login, su); 'ssh host cmd' "
                       "and 'su - USER -c cmd', the way MPI and batch jobs start, show nothing\n",
                       str_escape(told, e, sizeof e));
        else if (shown)
                printf("the user was not told: this ssh login ran a command without a terminal, as 'ssh host cmd' "
                       "does, and sshd shows no message of the module there\n");
        for (int i = 0; i < v->n; i++)
                printf("- %s\n", str_escape(v->reasons[i], e, sizeof e));
        if (v->target.known)
                printf("target:            soft %-12s hard %s (%s)\n",
                       v->target.want_soft ? size_format(v->target.want.soft, a) : "-",
                       v->target.want_hard ? size_format(v->target.want.hard, b) : "-",
                       str_escape(v->target.from, e, sizeof e));
        switch (v->kind) {
        case VERDICT_OK:
                printf("OK: the session gets what explain predicts%s\n", v->target.known ? ", and reaches its target" : "");
                break;
        case VERDICT_BELOW:
                printf("BELOW TARGET: the session gets what explain predicts, but %s\n",
                       str_escape(v->target.why, e, sizeof e));
                if (*v->target.fix)
                        printf("fix: %s\n", str_escape(v->target.fix, e, sizeof e));
                break;
        case VERDICT_MODEL_ERROR:
                printf("MODEL ERROR: the session does not get what explain predicts\n");
                break;
        }
}

static int verify_args(const struct ctx *c, const char *user) {
        if (c->ssh && c->service) {
                log_error("verify: give --service or --ssh, not both");
                return CMD_USAGE;
        }
        if (c->n_ssh_options > 0 && !c->ssh) {
                log_error("verify: --ssh-option goes with --ssh");
                return CMD_USAGE;
        }
        if (c->ssh && (!*c->ssh || c->ssh[0] == '-')) {
                log_error("--ssh '%s': expected a destination ([USER@]HOST or ssh://...)", c->ssh);
                return CMD_USAGE;
        }
        const char *du;
        size_t dl = c->ssh ? dest_user(c->ssh, &du) : 0;
        if (dl && (dl != strlen(user) || strncmp(du, user, dl) != 0)) {
                log_error("--ssh '%s' logs in as '%.*s', not as %s: the login verified must be %s's", c->ssh,
                          (int)dl, du, user, user);
                return CMD_USAGE;
        }
        if (!c->ssh && geteuid() != 0) {
                log_error("verify opens a PAM session for %s: run it as root (or use --ssh)", user);
                return -EPERM;
        }
        if (c->service && (strchr(c->service, '/') || !*c->service || streq(c->service, ".") ||
                           streq(c->service, ".."))) {
                log_error("--service '%s': a PAM service name from /etc/pam.d", c->service);
                return CMD_USAGE;
        }
        return 0;
}

int cmd_verify(struct ctx *c) {
        const char *user = c->argv[0];
        struct session_result sr = {};
        _cleanup_(tool_session_clear) struct tool_session s = {};
        struct verdict v = {};
        int r;

        r = verify_args(c, user);
        if (r)
                return r;
        /* a PAM session is opened by this process: the model starts from its limits */
        r = tool_session_load(c, user, c->ssh ? 0 : getpid(), !c->ssh, &s);
        if (r)
                return r;
        r = c->ssh ? ssh_session(c, user, &sr) : pam_session(s.service, user, verify_timeout(c), &sr);
        if (r < 0) {
                log_error("cannot open a session: %s", errno_text(r));
                return r;
        }
        if (sr.no_session) {
                /* no login reached the session: nothing to compare with the model */
                if (c->json) {
                        struct json j;
                        json_doc_begin(&j);
                        json_kstr(&j, "user", user);
                        json_kstr(&j, "method", c->ssh ? "ssh" : "pam");
                        if (c->ssh)
                                json_kstr(&j, "destination", c->ssh);
                        else
                                json_kstr(&j, "service", s.service);
                        json_kbool(&j, "session_opened", false);
                        json_key(&j, "verdict");
                        json_null(&j);
                        json_kstr(&j, "error", sr.pam_error);
                        json_doc_end(&j);
                }
                log_error("cannot verify: %s", sr.pam_error);
                return CMD_FINDINGS;
        }
        /* verify's own PAM session starts from its limits: a login through a running daemon
         * (sshd, cron) from the daemon's, which explain names */
        _cleanup_(tool_session_clear) struct tool_session d = {};
        bool have_daemon = !c->ssh && proc_daemon_of(s.service) && tool_session_load(c, user, 0, false, &d) == 0 &&
                           d.svc_pid > 0;
        judge(c, &s, have_daemon ? &d : NULL, &sr, &v);
        if (c->json)
                verify_json(c, user, &s, &sr, &v);
        else
                verify_text(c, &s, &sr, &v);
        return v.kind == VERDICT_OK ? 0 : v.kind == VERDICT_BELOW ? CMD_FINDINGS : CMD_MODEL_ERROR;
}
