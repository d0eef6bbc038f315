/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify: open a real session (PAM, or an ssh login) and compare with explain. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "rlimit.h"
#include "size.h"
#include "tool.h"

struct session_result {
        int pam_rc;               /* PAM_SUCCESS or the failing code */
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

/* In a child process, like a login service: pam_start, open_session, getrlimit. */
static int pam_session(const char *service, const char *user, struct session_result *ret) {
        int fds[2];
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return negative_errno();
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
        ssize_t n;
        do
                n = read(fds[0], ret, sizeof *ret);
        while (n < 0 && errno == EINTR);
        close(fds[0]);
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        return n == (ssize_t)sizeof *ret ? 0 : -EIO;
}

/* ssh DEST cat /proc/self/limits */
static int ssh_session(const struct ctx *c, struct session_result *ret) {
        char **argv = calloc((size_t)c->extra_argc + 8, sizeof(char *));
        int fds[2], k = 0;
        pid_t pid;

        if (!argv)
                return -ENOMEM;
        argv[k++] = (char *)"ssh";
        argv[k++] = (char *)"-o";
        argv[k++] = (char *)"BatchMode=yes";
        for (int i = 0; i < c->extra_argc; i++)
                argv[k++] = c->extra_argv[i];
        argv[k++] = (char *)c->ssh;
        argv[k++] = (char *)"cat /proc/self/limits";
        argv[k] = NULL;
        if (pipe2(fds, O_CLOEXEC) < 0) {
                free(argv);
                return negative_errno();
        }
        pid = fork();
        if (pid == 0) {
                dup2(fds[1], STDOUT_FILENO);
                execvp("ssh", argv);
                _exit(127);
        }
        free(argv);
        close(fds[1]);
        if (pid < 0) {
                close(fds[0]);
                return negative_errno();
        }
        char buf[8192];
        size_t len = 0;
        ssize_t n;
        while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0 || (n < 0 && errno == EINTR))
                if (n > 0)
                        len += (size_t)n;
        buf[len] = '\0';
        close(fds[0]);
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        *ret = (struct session_result){};
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                ret->pam_rc = PAM_SESSION_ERR;
                snprintf(ret->pam_error, sizeof ret->pam_error, "ssh %s failed (exit %d)", c->ssh,
                         WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
                return 0;
        }
        char *l = strstr(buf, "Max locked memory");
        if (!l) {
                ret->pam_rc = PAM_SESSION_ERR;
                snprintf(ret->pam_error, sizeof ret->pam_error, "no 'Max locked memory' in the remote /proc/self/limits");
                return 0;
        }
        char *w[3] = {}, *p = l + 17, *save = NULL;
        char *eol = strchr(p, '\n');
        if (eol)
                *eol = '\0';
        w[0] = strtok_r(p, " ", &save);
        w[1] = strtok_r(NULL, " ", &save);
        uint64_t v[2];
        for (int i = 0; i < 2; i++) {
                if (!w[i] || (!streq(w[i], "unlimited") && parse_u64(w[i], &v[i]) < 0)) {
                        ret->pam_rc = PAM_SESSION_ERR;
                        snprintf(ret->pam_error, sizeof ret->pam_error, "cannot read the remote memlock");
                        return 0;
                }
                if (streq(w[i], "unlimited"))
                        v[i] = UINT64_MAX;
        }
        ret->got = (struct rl_pair){ v[0], v[1] };
        ret->pam_rc = PAM_SUCCESS;
        return 0;
}

static void json_pair(struct json *j, const char *key, bool known, struct rl_pair p) {
        json_key(j, key);
        json_obj_begin(j);
        json_key(j, "soft");
        if (known)
                json_limit(j, p.soft);
        else
                json_null(j);
        json_key(j, "hard");
        if (known)
                json_limit(j, p.hard);
        else
                json_null(j);
        json_obj_end(j);
}

#define MAX_REASONS 6

int cmd_verify(struct ctx *c) {
        const char *user = c->argv[0];
        const char *service = c->service ? c->service : "sshd";
        struct prediction pr;
        struct session_result sr = {};
        struct rl_pair start;
        char reasons[MAX_REASONS][1024];
        int nreasons = 0, r;
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], x[SIZE_FMT_MAX], y[SIZE_FMT_MAX];

        if (c->root) {
                log_error("verify opens a real session on this system; --root does not apply");
                return EXIT_USAGE;
        }
        if (c->ssh && c->service) {
                log_error("verify: give --service or --ssh, not both");
                return EXIT_USAGE;
        }
        if (!c->ssh && geteuid() != 0) {
                log_error("verify opens a PAM session for %s: run it as root (or use --ssh)", user);
                return EXIT_FINDINGS;
        }
        if (c->service && (strchr(c->service, '/') || !*c->service)) {
                log_error("--service '%s': a PAM service name from /etc/pam.d", c->service);
                return EXIT_USAGE;
        }
        r = predict_session(c, user, &pr);
        if (r)
                return r;
        bool cap = rl_have_cap(CAP_SYS_RESOURCE);
        if (rl_get_memlock(&start) < 0) {
                log_error("getrlimit: %s", strerror(errno));
                return EXIT_FINDINGS;
        }
        r = c->ssh ? ssh_session(c, &sr) : pam_session(service, user, &sr);
        if (r < 0) {
                log_error("cannot open a session: %s", strerror(-r));
                return EXIT_FINDINGS;
        }

        /* the full model: what this process's limits allow (a local session only) */
        bool expect_known = !c->ssh;
        struct rl_pair expect = start;
        bool eperm_pl = false, eperm_mod = false;
        if (expect_known) {
                if (pr.mod_sets && pr.mod_before)
                        expect = rl_after_module(expect, pr.mod, pr.mod_lower, cap, &eperm_mod);
                if (pr.pl_sets)
                        expect = rl_after_pam_limits(expect, pr.pl, cap, &eperm_pl);
                if (pr.mod_sets && !pr.mod_before)
                        expect = rl_after_module(expect, pr.mod, pr.mod_lower, cap, &eperm_mod);
        }
        bool ok = sr.pam_rc == PAM_SUCCESS;
        bool agree = ok && pr.nominal_known && sr.got.soft == pr.nominal.soft && sr.got.hard == pr.nominal.hard;

        if (!ok)
                snprintf(reasons[nreasons++], sizeof reasons[0], "the session did not open: %s", sr.pam_error);
        if (ok && !pr.nominal_known)
                snprintf(reasons[nreasons++], sizeof reasons[0],
                         "explain cannot predict a value: pam_limits leaves memlock to the service");
        if (!c->ssh && eperm_pl && pr.pl_sets)
                snprintf(reasons[nreasons++], sizeof reasons[0],
                         "pam_limits asks hard %s (%s) but this process's hard limit is %s and it lacks "
                         "CAP_SYS_RESOURCE: setrlimit fails with EPERM and Debian's pam_limits silently keeps the old limit",
                         size_format(pr.pl.hard, a), pr.pl_source, size_format(start.hard, b));
        if (!c->ssh && eperm_mod)
                snprintf(reasons[nreasons++], sizeof reasons[0],
                         "pam_rdmalimit asks hard %s but the hard limit cannot rise above %s without CAP_SYS_RESOURCE: "
                         "it set the closest value; give the service LimitMEMLOCK=%s",
                         size_format(pr.mod.hard, a), size_format(start.hard, b),
                         pr.mod.hard == UINT64_MAX ? "infinity" : size_format_arg(pr.mod.hard, x));
        if (c->ssh && ok && !agree)
                snprintf(reasons[nreasons++], sizeof reasons[0],
                         "the ssh server's own limits decide what it can set: see 'rdmalimits doctor' on that host "
                         "(sshd's hard limit, CAP_SYS_RESOURCE, UsePAM)");
        bool model_ok = !expect_known || !ok || (sr.got.soft == expect.soft && sr.got.hard == expect.hard);
        if (!model_ok)
                snprintf(reasons[nreasons++], sizeof reasons[0],
                         "the session got soft %s, hard %s where the model expects soft %s, hard %s: another module of "
                         "the %s stack (or the service) changes memlock",
                         size_format(sr.got.soft, a), size_format(sr.got.hard, b), size_format(expect.soft, x),
                         size_format(expect.hard, y), service);

        if (c->json) {
                struct json j;
                json_init(&j, stdout);
                json_obj_begin(&j);
                json_key(&j, "user");
                json_str(&j, user);
                json_key(&j, "method");
                json_str(&j, c->ssh ? "ssh" : "pam");
                json_key(&j, c->ssh ? "destination" : "service");
                json_str(&j, c->ssh ? c->ssh : service);
                json_pair(&j, "predicted", pr.nominal_known, pr.nominal);
                if (!c->ssh) {
                        json_pair(&j, "start", true, start);
                        json_key(&j, "cap_sys_resource");
                        json_bool(&j, cap);
                        json_pair(&j, "expected", true, expect);
                }
                json_pair(&j, "got", ok, sr.got);
                json_key(&j, "session_opened");
                json_bool(&j, ok);
                json_key(&j, "agree");
                json_bool(&j, agree);
                json_key(&j, "reasons");
                json_arr_begin(&j);
                for (int i = 0; i < nreasons; i++)
                        json_str(&j, reasons[i]);
                json_arr_end(&j);
                json_key(&j, "messages");
                json_str(&j, sr.messages);
                json_obj_end(&j);
                json_finish(&j);
        } else {
                if (pr.nominal_known)
                        printf("explain predicts:  soft %-12s hard %s\n", size_format(pr.nominal.soft, a),
                               size_format(pr.nominal.hard, b));
                else
                        printf("explain predicts:  the service's own limits (no value)\n");
                if (!c->ssh)
                        printf("service process:   soft %-12s hard %s%s\n", size_format(start.soft, a),
                               size_format(start.hard, b), cap ? " (with CAP_SYS_RESOURCE)" : ", without CAP_SYS_RESOURCE");
                if (ok)
                        printf("%s got: soft %-12s hard %s\n", c->ssh ? "ssh login   " : "PAM session ", size_format(sr.got.soft, a),
                               size_format(sr.got.hard, b));
                /* only what concerns memlock: login banners are not the point here */
                for (char *line = sr.messages, *next; line && *line; line = next) {
                        next = strchr(line, '\n');
                        if (next)
                                *next++ = '\0';
                        if (strstr(line, "memlock"))
                                printf("the user was told: %s\n", line);
                }
                for (int i = 0; i < nreasons; i++)
                        printf("- %s\n", reasons[i]);
                printf("%s\n", agree ? "OK: the session gets what explain predicts" : "MISMATCH: the session does not get what explain predicts");
        }
        return agree ? EXIT_OK : EXIT_FINDINGS;
}
