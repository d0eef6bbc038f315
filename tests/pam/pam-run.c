/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam-run: open real PAM sessions through libpam (pam_start_confdir), for the module tests.
 *
 *   pam-run [--confdir DIR] [--service NAME] [--user USER | --no-user] [--memlock SOFT:HARD]
 *           [--repeat N] [--syslog] [--silent]
 *
 * --no-user            pam_start() without a user: PAM_USER is not set at all (an empty
 *                      --user "" sets it to "")
 * --memlock SOFT:HARD  set this process's RLIMIT_MEMLOCK (bytes, or "unlimited") before every
 *                      session
 * --repeat N           open and close N sessions (pam_start .. pam_end each) in this process
 * --silent             pam_open_session() and pam_close_session() with PAM_SILENT (cron
 *                      passes it: the module must then send no message)
 * --syslog             bind an AF_UNIX datagram socket at /dev/log first (the test gives the
 *                      process a private /dev) and print what the module logged
 *
 * Output, one fact a line:
 *   rc=PAM_SUCCESS                       pam_open_session() of the first session
 *   soft=4194304 hard=8388608            getrlimit(RLIMIT_MEMLOCK) after it opened
 *   info: TEXT                           every PAM_TEXT_INFO / PAM_ERROR_MSG it received
 *   close_rc=PAM_SUCCESS                 pam_close_session()
 * with --repeat N, after the last session:
 *   sessions=N mismatches=K              K sessions whose rc/soft/hard differ from the first
 *   fds=F rss_kb=R after=100             open descriptors and VmRSS after 100 sessions
 *   fds=F rss_kb=R after=N               ... and after all of them
 * with --syslog, last:
 *   log: LEVEL TEXT                      each datagram (LEVEL: err, warning, info, debug...;
 *                                        TEXT from "pam_rdmalimit" on when present), of the
 *                                        first session only when repeating
 *   log_count=C                          datagrams received over all sessions
 *
 * Exit status: 0 when every session could be run (whatever PAM answered), 1 when pam_start
 * failed, 2 on a usage or harness error.  Test code: it parses its own numbers (no strto*).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <security/pam_appl.h>

#define PAM_DRIVER "pam-run"
#include "../lib/pam-driver.h"

#define LOG_PATH "/dev/log"
#define MAX_KEPT 256            /* messages and log lines kept (of the first session) */

/* ----------------------------------------------------------------------------------------- */
/* A list of strings, filled from the conversation and the log thread. */
struct strlist {
        pthread_mutex_t lock;
        bool keep;              /* store new entries (off after the first session) */
        unsigned long count;    /* every entry, stored or not */
        size_t n;
        char *v[MAX_KEPT];
};

static void strlist_add(struct strlist *l, const char *s) {
        pthread_mutex_lock(&l->lock);
        l->count++;
        if (l->keep && l->n < MAX_KEPT) {
                char *c = strdup(s);
                if (c)
                        l->v[l->n++] = c;
        }
        pthread_mutex_unlock(&l->lock);
}

static void strlist_print(struct strlist *l, const char *prefix) {
        pthread_mutex_lock(&l->lock);
        for (size_t i = 0; i < l->n; i++)
                printf("%s%s\n", prefix, l->v[i]);
        pthread_mutex_unlock(&l->lock);
}

static void strlist_clear(struct strlist *l) {
        pthread_mutex_lock(&l->lock);
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        l->n = 0;
        pthread_mutex_unlock(&l->lock);
}

/* ----------------------------------------------------------------------------------------- */
/* The conversation: record informational messages, refuse prompts. */
static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        struct strlist *infos = data;
        struct pam_response *r;

        if (n <= 0 || n > PAM_MAX_NUM_MSG)
                return PAM_CONV_ERR;
        r = calloc((size_t)n, sizeof(*r));
        if (!r)
                return PAM_BUF_ERR;
        for (int i = 0; i < n; i++) {
                switch (msg[i]->msg_style) {
                case PAM_TEXT_INFO:
                case PAM_ERROR_MSG:
                        strlist_add(infos, msg[i]->msg ? msg[i]->msg : "");
                        break;
                default:
                        free(r);
                        return PAM_CONV_ERR;
                }
        }
        *resp = r;
        return PAM_SUCCESS;
}

/* ----------------------------------------------------------------------------------------- */
/* /dev/log: a thread drains the socket so that syslog() never blocks on a full queue. */
struct logger {
        int fd;
        pthread_mutex_t drain_lock;     /* one reader at a time: lines stay in order */
        int stop[2];            /* a pipe: readable when the thread should finish */
        pthread_t thread;
        struct strlist lines;
};

static const char *level_name(int prio) {
        static const char *const names[] = { "emerg", "alert", "crit", "err",
                                             "warning", "notice", "info", "debug" };
        return names[prio & 7];
}

static void log_datagram(struct logger *lg, char *buf, size_t len) {
        char line[8300];
        const char *text = buf, *p;
        int prio = -1;

        buf[len] = '\0';
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
                buf[--len] = '\0';
        if (buf[0] == '<') {
                int v = 0;
                for (p = buf + 1; *p >= '0' && *p <= '9' && v < 10000; p++)
                        v = v * 10 + (*p - '0');
                if (*p == '>' && p > buf + 1) {
                        prio = v;
                        text = p + 1;
                }
        }
        p = strstr(text, "pam_rdmalimit");
        if (p)
                text = p;
        snprintf(line, sizeof line, "%s %s", prio >= 0 ? level_name(prio) : "?", text);
        strlist_add(&lg->lines, line);
}

static void drain(struct logger *lg) {
        char buf[8192];

        pthread_mutex_lock(&lg->drain_lock);
        for (;;) {
                ssize_t n = recv(lg->fd, buf, sizeof buf - 1, MSG_DONTWAIT);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break;
                log_datagram(lg, buf, (size_t)n);
        }
        pthread_mutex_unlock(&lg->drain_lock);
}

static void *logger_thread(void *data) {
        struct logger *lg = data;

        for (;;) {
                struct pollfd p[2] = { { .fd = lg->fd, .events = POLLIN },
                                       { .fd = lg->stop[0], .events = POLLIN } };
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return NULL;
                }
                if (p[0].revents & POLLIN)
                        drain(lg);
                if (p[1].revents) {
                        drain(lg);
                        return NULL;
                }
        }
}

static void logger_start(struct logger *lg) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;

        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", LOG_PATH);
        /* a socket left by an earlier run in the same private /dev */
        if (lstat(LOG_PATH, &st) == 0 && S_ISSOCK(st.st_mode))
                (void)unlink(LOG_PATH);
        lg->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (lg->fd < 0)
                die("socket: %s", strerror(errno));
        if (bind(lg->fd, (struct sockaddr *)&sa, sizeof sa) < 0)
                die("bind " LOG_PATH ": %s (run in a private /dev)", strerror(errno));
        if (pipe2(lg->stop, O_CLOEXEC) < 0)
                die("pipe: %s", strerror(errno));
        if (pthread_create(&lg->thread, NULL, logger_thread, lg) != 0)
                die("%s", "pthread_create failed");
}

static void logger_stop(struct logger *lg) {
        /* syslog() has queued every datagram by the time it returned: drain what is left */
        if (write(lg->stop[1], "x", 1) != 1)
                die("write: %s", strerror(errno));
        pthread_join(lg->thread, NULL);
        close(lg->stop[0]);
        close(lg->stop[1]);
        close(lg->fd);
        (void)unlink(LOG_PATH);
}

/* ----------------------------------------------------------------------------------------- */
static bool parse_num(const char *s, size_t len, uint64_t *ret) {
        uint64_t v = 0;

        if (len == 9 && strncmp(s, "unlimited", 9) == 0) {
                *ret = RLIM_INFINITY;
                return true;
        }
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++) {
                unsigned d;
                if (s[i] < '0' || s[i] > '9')
                        return false;
                d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *ret = v;
        return true;
}

struct result {
        int rc, close_rc;
        struct rlimit got;
};

static int one_session(const char *confdir, const char *service, const char *user, int flags,
                       struct strlist *infos, const struct rlimit *start, struct result *res) {
        struct pam_conv c = { .conv = conv, .appdata_ptr = infos };
        pam_handle_t *h = NULL;
        int rc;

        if (start && setrlimit(RLIMIT_MEMLOCK, start) < 0)
                die("setrlimit(RLIMIT_MEMLOCK) before the session: %s", strerror(errno));
        rc = pam_start_confdir(service, user, &c, confdir, &h);
        if (rc != PAM_SUCCESS) {
                printf("pam_start=%s\n", pam_rc_name(rc) ? pam_rc_name(rc) : pam_strerror(NULL, rc));
                return -1;
        }
        res->rc = pam_open_session(h, flags);
        if (getrlimit(RLIMIT_MEMLOCK, &res->got) < 0)
                die("getrlimit: %s", strerror(errno));
        res->close_rc = pam_close_session(h, flags);
        pam_end(h, res->rc);
        return 0;
}

static void print_result(pam_handle_t *h, const struct result *r) {
        char s[32], hd[32];
        const char *n = pam_rc_name(r->rc);

        if (n)
                printf("rc=%s\n", n);
        else
                printf("rc=%d (%s)\n", r->rc, pam_strerror(h, r->rc));
        fmt_rlim(r->got.rlim_cur, s);
        fmt_rlim(r->got.rlim_max, hd);
        printf("soft=%s hard=%s\n", s, hd);
}

static void usage(FILE *f) {
        fprintf(f, "usage: pam-run [--confdir DIR] [--service NAME] [--user USER | --no-user] "
                   "[--memlock SOFT:HARD] [--repeat N] [--syslog] [--silent]\n");
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "confdir", required_argument, NULL, 'c' },
                { "service", required_argument, NULL, 's' },
                { "user", required_argument, NULL, 'u' },
                { "no-user", no_argument, NULL, 'n' },
                { "memlock", required_argument, NULL, 'm' },
                { "repeat", required_argument, NULL, 'r' },
                { "syslog", no_argument, NULL, 'l' },
                { "silent", no_argument, NULL, 'q' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        const char *confdir = NULL, *service = "rdmalimit-test", *user = "root";
        struct strlist infos = { .lock = PTHREAD_MUTEX_INITIALIZER, .keep = true };
        struct logger lg = { .fd = -1, .drain_lock = PTHREAD_MUTEX_INITIALIZER, .lines = { .lock = PTHREAD_MUTEX_INITIALIZER, .keep = true } };
        struct rlimit start;
        bool have_start = false, use_syslog = false;
        uint64_t repeat = 1;
        int fds_mid = -1, flags = 0;
        long rss_mid = -1;
        struct result first = {}, cur;
        unsigned long mismatches = 0;
        int o;

        while ((o = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                switch (o) {
                case 'c':
                        confdir = optarg;
                        break;
                case 's':
                        service = optarg;
                        break;
                case 'u':
                        user = optarg;
                        break;
                case 'n':
                        user = NULL;
                        break;
                case 'm': {
                        const char *colon = strchr(optarg, ':');
                        uint64_t s, h;
                        if (!colon || !parse_num(optarg, (size_t)(colon - optarg), &s) ||
                            !parse_num(colon + 1, strlen(colon + 1), &h))
                                die("bad --memlock '%s' (SOFT:HARD in bytes or unlimited)", optarg);
                        start = (struct rlimit){ .rlim_cur = s, .rlim_max = h };
                        have_start = true;
                        break;
                }
                case 'r':
                        if (!parse_num(optarg, strlen(optarg), &repeat) || repeat == 0 ||
                            repeat > 10000000)
                                die("bad --repeat '%s'", optarg);
                        break;
                case 'l':
                        use_syslog = true;
                        break;
                case 'q':
                        flags = PAM_SILENT;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind != argc) {
                usage(stderr);
                return 2;
        }

        if (use_syslog)
                logger_start(&lg);

        for (uint64_t i = 0; i < repeat; i++) {
                if (one_session(confdir, service, user, flags, &infos, have_start ? &start : NULL, &cur) < 0)
                        return 1;
                if (i == 0) {
                        first = cur;
                        print_result(NULL, &first);
                        strlist_print(&infos, "info: ");
                        printf("close_rc=%s\n", pam_rc_name(cur.close_rc) ? pam_rc_name(cur.close_rc) : "?");
                        fflush(stdout);
                        /* keep the messages of the first session only: no growth from here */
                        infos.keep = false;
                        strlist_clear(&infos);
                        if (use_syslog && repeat > 1) {
                                /* every datagram of the first session is queued by now */
                                drain(&lg);
                                pthread_mutex_lock(&lg.lines.lock);
                                lg.lines.keep = false;
                                pthread_mutex_unlock(&lg.lines.lock);
                        }
                } else if (cur.rc != first.rc || cur.got.rlim_cur != first.got.rlim_cur ||
                           cur.got.rlim_max != first.got.rlim_max)
                        mismatches++;
                if (repeat > 1 && (i + 1 == 100 || (repeat < 100 && i + 1 == repeat))) {
                        fds_mid = count_fds();
                        rss_mid = rss_kb();
                }
        }
        if (repeat > 1) {
                printf("sessions=%llu mismatches=%lu\n", (unsigned long long)repeat, mismatches);
                printf("fds=%d rss_kb=%ld after=%d\n", fds_mid, rss_mid, repeat < 100 ? (int)repeat : 100);
                printf("fds=%d rss_kb=%ld after=%llu\n", count_fds(), rss_kb(), (unsigned long long)repeat);
        }
        if (use_syslog) {
                logger_stop(&lg);
                strlist_print(&lg.lines, "log: ");
                printf("log_count=%lu\n", lg.lines.count);
                strlist_clear(&lg.lines);
        }
        if (fflush(stdout) != 0 || ferror(stdout))
                return 2;
        return 0;
}
