/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam-bench: the timing driver of bench/run.sh.  Bench code: it reads clocks; tests must not.
 *
 *   pam-bench session [--memlock SOFT:HARD] [--report N,N...] CONFDIR SERVICE USER N
 *       First loads the time zone syslog(3) stamps messages with and connects the log
 *       (tzset(), openlog(LOG_NDELAY)), as a message logged earlier in a login's session
 *       stack has (Debian's sshd: pam_unix's "session opened" before pam_limits).  Then
 *       runs N real PAM sessions in this process, each pam_start_confdir() +
 *       pam_open_session() + pam_close_session() + pam_end(), and before each one sets
 *       RLIMIT_MEMLOCK to SOFT (bytes, default 65536) and HARD ("keep": the current hard
 *       limit, the default; a hard limit cannot be raised here).  Prints one line:
 *         sessions=N ns_per_session=T total_ns=T rc=NAME close_rc=NAME soft=B hard=B bad=K
 *           minflt=F majflt=F nvcsw=C nivcsw=C
 *       rc/soft/hard are those of the first session (RLIMIT_MEMLOCK right after it opened),
 *       bad counts sessions whose rc or limits differ from the first; minflt .. nivcsw are
 *       getrusage(RUSAGE_SELF)'s page faults and context switches over the N sessions.  With --report, after
 *       each listed session count (and never inside the timed loop's arithmetic: the clock
 *       runs on, the cost of reading /proc is a few microseconds against N sessions):
 *         after=N rss_kb=R fds=F
 *       rss_kb is VmRSS of /proc/self/status, fds the entries of /proc/self/fd.
 *
 *   pam-bench spawn [--ok CODE,CODE...] [--raw] K CMD [ARG...] [-- CMD [ARG...]]...
 *       Runs each CMD K times, the commands alternating (A B C A B C ...: noise hits them
 *       alike), one process at a time (posix_spawn, stdout and stderr to /dev/null), and
 *       measures each run's wall time, spawn to waitpid.  Prints one line per command:
 *         cmd=I runs=K ns_mean=T ns_median=T ns_min=T ns_max=T failures=F first_failure=CODE
 *       failures counts runs whose exit status is not listed in --ok (default 0) or that
 *       died by a signal.  --raw first prints every run's time, in run order:
 *         cmd=I ns=T,T,...
 *
 *   pam-bench dlopen LIB...
 *       dlopen(RTLD_NOW | RTLD_LOCAL)s each LIB in turn in this process, as libpam loads a
 *       module, and prints one line per LIB:  lib=PATH ns=T
 *       (the first one pays the dynamic linker's first-dlopen costs: pass a warm-up first).
 *       Run it in fresh processes: a library already loaded costs nothing.
 *
 * Exit status: 0 when every session or run went as the first one did, 1 otherwise, 2 on a
 * usage error.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#define PAM_DRIVER "pam-bench"
#include "../tests/lib/pam-driver.h"

extern char **environ;

#define MAX_REPORTS 16
#define MAX_OK 16

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A decimal number of [s, end), nothing else; -1 on anything else. */
static int parse_u64n(const char *s, const char *end, uint64_t *ret) {
        uint64_t v = 0;

        if (s == end)
                return -1;
        for (const char *p = s; p < end; p++) {
                if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
                        return -1;
                v = v * 10 + (uint64_t)(*p - '0');
        }
        *ret = v;
        return 0;
}

static uint64_t parse_u64_or_die(const char *s, const char *what) {
        uint64_t v;

        if (parse_u64n(s, s + strlen(s), &v) < 0)
                die("%s: not a number: '%s'", what, s);
        return v;
}

/* "A,B,C" into v[]; returns the count. */
static size_t parse_list(const char *s, uint64_t *v, size_t max, const char *what) {
        size_t n = 0;

        for (const char *p = s;;) {
                const char *c = strchr(p, ',');
                const char *e = c ? c : p + strlen(p);
                if (n == max || parse_u64n(p, e, &v[n]) < 0)
                        die("%s: bad list '%s'", what, s);
                n++;
                if (!c)
                        return n;
                p = c + 1;
        }
}

/* Informational messages are accepted and dropped; prompts are refused. */
static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        struct pam_response *r;

        (void)data;
        if (n <= 0 || n > PAM_MAX_NUM_MSG)
                return PAM_CONV_ERR;
        for (int i = 0; i < n; i++)
                if (msg[i]->msg_style != PAM_TEXT_INFO && msg[i]->msg_style != PAM_ERROR_MSG)
                        return PAM_CONV_ERR;
        r = calloc((size_t)n, sizeof(*r));
        if (!r)
                return PAM_BUF_ERR;
        *resp = r;
        return PAM_SUCCESS;
}

static int cmd_session(int argc, char **argv) {
        uint64_t reports[MAX_REPORTS];
        size_t n_reports = 0, next_report = 0;
        rlim_t want_soft = 65536, want_hard = 0;
        bool keep_hard = true;
        int i = 1;

        for (; i < argc && argv[i][0] == '-'; i++) {
                if (strcmp(argv[i], "--memlock") == 0 && i + 1 < argc) {
                        const char *s = argv[++i], *colon = strchr(s, ':');
                        uint64_t v;
                        if (!colon || parse_u64n(s, colon, &v) < 0)
                                die("--memlock SOFT:HARD (bytes; HARD may be 'keep')");
                        want_soft = v;
                        if (strcmp(colon + 1, "keep") == 0)
                                keep_hard = true;
                        else {
                                keep_hard = false;
                                want_hard = parse_u64_or_die(colon + 1, "--memlock HARD");
                        }
                } else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc)
                        n_reports = parse_list(argv[++i], reports, MAX_REPORTS, "--report");
                else
                        die("session: unknown option %s", argv[i]);
        }
        if (argc - i != 4)
                die("usage: pam-bench session [--memlock SOFT:HARD] [--report N,...] CONFDIR SERVICE USER N");
        const char *confdir = argv[i], *service = argv[i + 1], *user = argv[i + 2];
        uint64_t n = parse_u64_or_die(argv[i + 3], "N");
        if (n == 0)
                die("N must be at least 1");

        /* the log socket connected and the time zone that syslog(3) stamps messages with
         * loaded, as when a message was logged earlier in the login's session stack (Debian's
         * sshd: pam_unix's "session opened", from common-session, before pam_limits) */
        tzset();
        openlog(PAM_DRIVER, LOG_NDELAY, LOG_AUTHPRIV);

        int first_rc = -1, first_close = -1;
        struct rlimit first = {};
        struct rusage ru0, ru1;
        if (getrusage(RUSAGE_SELF, &ru0) < 0)
                die("getrusage: %m");
        uint64_t bad = 0, t0 = now_ns();
        struct pam_conv c = { conv, NULL };

        for (uint64_t k = 1; k <= n; k++) {
                struct rlimit rl, got;
                pam_handle_t *h = NULL;
                int rc, crc;

                if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                        die("getrlimit: %m");
                rl.rlim_cur = want_soft;
                if (!keep_hard)
                        rl.rlim_max = want_hard;
                if (rl.rlim_cur > rl.rlim_max)
                        rl.rlim_cur = rl.rlim_max;
                if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                        die("setrlimit(RLIMIT_MEMLOCK): %m");

                rc = pam_start_confdir(service, user, &c, confdir, &h);
                if (rc != PAM_SUCCESS) {
                        char b[16];
                        fprintf(stderr, "pam-bench: pam_start_confdir: %s\n", pam_rc_text(rc, b));
                        return 1;
                }
                rc = pam_open_session(h, 0);
                if (getrlimit(RLIMIT_MEMLOCK, &got) < 0)
                        die("getrlimit: %m");
                crc = pam_close_session(h, 0);
                pam_end(h, crc);

                if (k == 1) {
                        first_rc = rc;
                        first_close = crc;
                        first = got;
                } else if (rc != first_rc || crc != first_close || got.rlim_cur != first.rlim_cur ||
                           got.rlim_max != first.rlim_max)
                        bad++;
                if (next_report < n_reports && reports[next_report] == k) {
                        printf("after=%llu rss_kb=%ld fds=%d\n", (unsigned long long)k, rss_kb(), count_fds());
                        next_report++;
                }
        }
        uint64_t total = now_ns() - t0;
        if (getrusage(RUSAGE_SELF, &ru1) < 0)
                die("getrusage: %m");
        char b1[16], b2[16], s[24], hd[24];
        fmt_rlim(first.rlim_cur, s);
        fmt_rlim(first.rlim_max, hd);
        printf("sessions=%llu ns_per_session=%llu total_ns=%llu rc=%s close_rc=%s soft=%s hard=%s bad=%llu "
               "minflt=%ld majflt=%ld nvcsw=%ld nivcsw=%ld\n",
               (unsigned long long)n, (unsigned long long)(total / n), (unsigned long long)total,
               pam_rc_text(first_rc, b1), pam_rc_text(first_close, b2), s, hd, (unsigned long long)bad,
               ru1.ru_minflt - ru0.ru_minflt, ru1.ru_majflt - ru0.ru_majflt, ru1.ru_nvcsw - ru0.ru_nvcsw,
               ru1.ru_nivcsw - ru0.ru_nivcsw);
        return bad ? 1 : 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

#define MAX_CMDS 16

struct spawned {
        char **argv;            /* NULL-terminated, inside main's argv */
        uint64_t *t;            /* wall time of each run */
        uint64_t sum, failures;
        int first_failure;
};

static int cmd_spawn(int argc, char **argv) {
        uint64_t ok[MAX_OK] = { 0 };
        size_t n_ok = 1, n_cmds = 0;
        struct spawned c[MAX_CMDS] = {};
        bool raw = false;
        int i = 1;

        for (; i < argc && argv[i][0] == '-'; i++) {
                if (strcmp(argv[i], "--ok") == 0 && i + 1 < argc)
                        n_ok = parse_list(argv[++i], ok, MAX_OK, "--ok");
                else if (strcmp(argv[i], "--raw") == 0)
                        raw = true;
                else
                        die("spawn: unknown option %s", argv[i]);
        }
        if (argc - i < 2)
                die("usage: pam-bench spawn [--ok CODE,...] [--raw] K CMD [ARG...] [-- CMD [ARG...]]...");
        uint64_t k = parse_u64_or_die(argv[i], "K");
        if (k == 0 || k > 1000000)
                die("K must be 1..1000000");
        /* split the rest at "--" into commands; the "--" become the argv terminators */
        for (int j = i + 1; j < argc;) {
                if (n_cmds == MAX_CMDS)
                        die("at most %d commands", MAX_CMDS);
                if (strcmp(argv[j], "--") == 0)
                        die("empty command");
                c[n_cmds].argv = argv + j;
                c[n_cmds].first_failure = -1;
                c[n_cmds].t = calloc(k, sizeof(uint64_t));
                if (!c[n_cmds].t)
                        die("out of memory");
                n_cmds++;
                while (j < argc && strcmp(argv[j], "--") != 0)
                        j++;
                if (j < argc) {
                        argv[j] = NULL;
                        if (++j == argc)
                                die("empty command after --");
                }
        }

        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);

        /* A B C A B C ...: machine noise hits every command alike */
        for (uint64_t j = 0; j < k; j++)
                for (size_t x = 0; x < n_cmds; x++) {
                        struct spawned *sp = &c[x];
                        pid_t pid;
                        int st, code;
                        uint64_t t0 = now_ns();
                        int r = posix_spawn(&pid, sp->argv[0], &fa, NULL, sp->argv, environ);
                        if (r != 0) {
                                errno = r;
                                die("posix_spawn %s: %m", sp->argv[0]);
                        }
                        while (waitpid(pid, &st, 0) < 0)
                                if (errno != EINTR)
                                        die("waitpid: %m");
                        sp->t[j] = now_ns() - t0;
                        sp->sum += sp->t[j];
                        code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                        bool good = false;
                        for (size_t y = 0; WIFEXITED(st) && y < n_ok; y++)
                                good |= ok[y] == (uint64_t)code;
                        if (!good && sp->failures++ == 0)
                                sp->first_failure = code;
                }
        posix_spawn_file_actions_destroy(&fa);

        uint64_t failures = 0;
        for (size_t x = 0; x < n_cmds; x++) {
                struct spawned *sp = &c[x];
                uint64_t *t = sp->t;
                if (raw) {
                        printf("cmd=%zu ns=", x);
                        for (uint64_t j = 0; j < k; j++)
                                printf("%s%llu", j ? "," : "", (unsigned long long)t[j]);
                        putchar('\n');
                }
                qsort(t, k, sizeof(*t), cmp_u64);
                uint64_t med = k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
                printf("cmd=%zu runs=%llu ns_mean=%llu ns_median=%llu ns_min=%llu ns_max=%llu failures=%llu "
                       "first_failure=%d\n", x, (unsigned long long)k, (unsigned long long)(sp->sum / k),
                       (unsigned long long)med, (unsigned long long)t[0], (unsigned long long)t[k - 1],
                       (unsigned long long)sp->failures, sp->first_failure);
                failures += sp->failures;
                free(t);
        }
        return failures ? 1 : 0;
}

static int cmd_dlopen(int argc, char **argv) {
        if (argc < 2)
                die("usage: pam-bench dlopen LIB...");
        for (int i = 1; i < argc; i++) {
                uint64_t t0 = now_ns();
                void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
                uint64_t t = now_ns() - t0;
                if (!h)
                        die("dlopen %s: %s", argv[i], dlerror());
                printf("lib=%s ns=%llu\n", argv[i], (unsigned long long)t);
        }
        return 0;
}

int main(int argc, char **argv) {
        if (argc >= 2 && strcmp(argv[1], "session") == 0)
                return cmd_session(argc - 1, argv + 1);
        if (argc >= 2 && strcmp(argv[1], "spawn") == 0)
                return cmd_spawn(argc - 1, argv + 1);
        if (argc >= 2 && strcmp(argv[1], "dlopen") == 0)
                return cmd_dlopen(argc - 1, argv + 1);
        fprintf(stderr, "usage: pam-bench session [--memlock SOFT:HARD] [--report N,...] CONFDIR SERVICE USER N\n"
                        "       pam-bench spawn [--ok CODE,...] [--raw] K CMD [ARG...] [-- CMD [ARG...]]...\n"
                        "       pam-bench dlopen LIB...\n");
        return 2;
}
