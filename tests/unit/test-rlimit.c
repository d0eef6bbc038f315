/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules the module applies to RLIMIT_MEMLOCK and the tool predicts with. */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "rlimit.h"
#include "rlmodel.h"
#include "../fault/fault.h"

#define INF UINT64_MAX
#define M(x) ((uint64_t)(x) << 20)
#define PAIR(s, h) ((struct rl_pair){ (s), (h) })

static void assert_pair(struct rl_pair got, struct rl_pair want, const char *what) {
        if (got.soft != want.soft || got.hard != want.hard)
                fail_msg("%s: got %llu:%llu, want %llu:%llu", what, (unsigned long long)got.soft,
                         (unsigned long long)got.hard, (unsigned long long)want.soft, (unsigned long long)want.hard);
}

static void test_allowed(void **state) {
        static const struct {
                struct rl_pair cur, want;
                bool cap, ok;
        } cases[] = {
                { PAIR(M(8), M(8)), PAIR(M(8), M(8)), false, true },        /* nothing changes */
                { PAIR(M(8), M(64)), PAIR(M(64), M(64)), false, true },     /* soft up to hard */
                { PAIR(M(8), M(64)), PAIR(M(8), M(128)), false, false },    /* hard up: EPERM */
                { PAIR(M(8), M(64)), PAIR(M(8), M(128)), true, true },      /* ... unless CAP_SYS_RESOURCE */
                { PAIR(M(8), M(64)), PAIR(M(1), M(2)), false, true },       /* lowering needs nothing */
                { PAIR(M(8), M(64)), PAIR(M(65), M(64)), false, false },    /* soft above hard: EINVAL */
                { PAIR(M(8), M(64)), PAIR(M(65), M(64)), true, false },     /* ... with the capability too */
                { PAIR(M(8), M(64)), PAIR(INF, INF), false, false },        /* unlimited is a raise */
                { PAIR(M(8), M(64)), PAIR(INF, INF), true, true },
                { PAIR(M(8), INF), PAIR(INF, INF), false, true },           /* under an unlimited hard */
                { PAIR(INF, INF), PAIR(M(8), M(8)), false, true },
                { PAIR(0, 0), PAIR(0, 0), false, true },
        };
        (void)state;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
                if (rl_allowed(cases[i].cur, cases[i].want, cases[i].cap) != cases[i].ok)
                        fail_msg("case %zu: rl_allowed() is %s", i, cases[i].ok ? "false" : "true");
}

/* A rule of the module over cur and a target (lower or not), and the pair it gives. */
struct pair_case {
        struct rl_pair cur, target;
        bool lower;
        struct rl_pair want;
};

static void check_pairs(struct rl_pair (*rule)(struct rl_pair, struct rl_pair, bool), const struct pair_case *cases,
                        size_t n) {
        char what[32];
        for (size_t i = 0; i < n; i++) {
                snprintf(what, sizeof what, "case %zu", i);
                assert_pair(rule(cases[i].cur, cases[i].target, cases[i].lower), cases[i].want, what);
        }
}

static void test_want(void **state) {
        static const struct pair_case cases[] = {
                /* raising: the target */
                { PAIR(M(8), M(8)), PAIR(M(1024), M(1024)), false, PAIR(M(1024), M(1024)) },
                /* never lower than cur without lower, each half on its own */
                { PAIR(M(8), M(2048)), PAIR(M(1024), M(1024)), false, PAIR(M(1024), M(2048)) },
                { PAIR(M(2048), M(2048)), PAIR(M(1024), M(1024)), false, PAIR(M(2048), M(2048)) },
                { PAIR(INF, INF), PAIR(M(1024), M(1024)), false, PAIR(INF, INF) },
                /* lower: the target as it is */
                { PAIR(M(2048), M(2048)), PAIR(M(1024), M(1024)), true, PAIR(M(1024), M(1024)) },
                { PAIR(INF, INF), PAIR(M(1), M(2)), true, PAIR(M(1), M(2)) },
                /* soft never above hard */
                { PAIR(M(4096), M(4096)), PAIR(M(1024), M(1024)), true, PAIR(M(1024), M(1024)) },
                { PAIR(M(8), M(8)), PAIR(M(64), M(32)), false, PAIR(M(32), M(32)) },
                { PAIR(M(8), M(8)), PAIR(M(64), M(32)), true, PAIR(M(32), M(32)) },
                /* unlimited */
                { PAIR(M(8), M(8)), PAIR(INF, INF), false, PAIR(INF, INF) },
                { PAIR(M(8), M(8)), PAIR(INF, INF), true, PAIR(INF, INF) },
                { PAIR(M(8), INF), PAIR(M(64), M(64)), false, PAIR(M(64), INF) },
        };
        (void)state;
        check_pairs(rl_module_want, cases, sizeof cases / sizeof *cases);
}

/* rl_module_closest(): a case's target is its want, want the closest pair */
static void test_closest(void **state) {
        static const struct pair_case cases[] = {
                /* the hard limit stays; soft goes as far as it may */
                { PAIR(M(8), M(64)), PAIR(M(1024), M(1024)), false, PAIR(M(64), M(64)) },
                { PAIR(M(8), M(8)), PAIR(M(1024), M(1024)), false, PAIR(M(8), M(8)) },
                { PAIR(M(8), M(64)), PAIR(M(32), M(1024)), false, PAIR(M(32), M(64)) },
                /* a hard limit below cur's is taken */
                { PAIR(M(8), M(64)), PAIR(M(16), M(32)), true, PAIR(M(16), M(32)) },
                /* without lower, cur's soft is kept when it fits */
                { PAIR(M(48), M(64)), PAIR(M(16), M(1024)), false, PAIR(M(48), M(64)) },
                { PAIR(M(48), M(64)), PAIR(M(16), M(1024)), true, PAIR(M(16), M(64)) },
                /* ... also when it is the hard limit exactly */
                { PAIR(M(64), M(64)), PAIR(M(16), M(1024)), false, PAIR(M(64), M(64)) },
                { PAIR(M(64), M(64)), PAIR(M(16), M(1024)), true, PAIR(M(16), M(64)) },
                { PAIR(M(8), M(64)), PAIR(INF, INF), false, PAIR(M(64), M(64)) },
        };
        (void)state;
        check_pairs(rl_module_closest, cases, sizeof cases / sizeof *cases);
}

static void test_after_module(void **state) {
        static const struct {
                struct rl_pair cur, target;
                bool lower, cap;
                struct rl_pair after;
                bool eperm;
        } cases[] = {
                /* raising within the hard limit */
                { PAIR(M(8), M(2048)), PAIR(M(1024), M(1024)), false, false, PAIR(M(1024), M(2048)), false },
                /* raising the hard limit: needs CAP_SYS_RESOURCE, else the closest */
                { PAIR(M(8), M(64)), PAIR(M(1024), M(1024)), false, true, PAIR(M(1024), M(1024)), false },
                { PAIR(M(8), M(64)), PAIR(M(1024), M(1024)), false, false, PAIR(M(64), M(64)), true },
                /* lowering: only with lower, and it needs no capability */
                { PAIR(M(2048), M(2048)), PAIR(M(1024), M(1024)), false, false, PAIR(M(2048), M(2048)), false },
                { PAIR(M(2048), M(2048)), PAIR(M(1024), M(1024)), true, false, PAIR(M(1024), M(1024)), false },
                /* unlimited */
                { PAIR(M(8), M(64)), PAIR(INF, INF), false, true, PAIR(INF, INF), false },
                { PAIR(M(8), M(64)), PAIR(INF, INF), false, false, PAIR(M(64), M(64)), true },
                { PAIR(M(8), INF), PAIR(INF, INF), false, false, PAIR(INF, INF), false },
                { PAIR(INF, INF), PAIR(M(1024), M(1024)), false, false, PAIR(INF, INF), false },
                { PAIR(INF, INF), PAIR(M(1024), M(1024)), true, false, PAIR(M(1024), M(1024)), false },
        };
        char what[32];
        (void)state;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                bool eperm = !cases[i].eperm;
                snprintf(what, sizeof what, "case %zu", i);
                assert_pair(rl_after_module(cases[i].cur, cases[i].target, cases[i].lower, cases[i].cap, &eperm),
                            cases[i].after, what);
                if (eperm != cases[i].eperm)
                        fail_msg("case %zu: eperm %d", i, eperm);
        }
        /* ret_eperm may be NULL */
        assert_pair(rl_after_module(PAIR(M(8), M(64)), PAIR(M(1024), M(1024)), false, false, NULL), PAIR(M(64), M(64)),
                    "NULL eperm");
}

static void test_process(void **state) {
        struct rl_pair p = { 1, 1 };
        struct rlimit r;
        (void)state;

        assert_int_equal(rl_get_memlock(&p), 0);
        assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &r), 0);
        assert_true(p.soft == (uint64_t)r.rlim_cur && p.hard == (uint64_t)r.rlim_max);
        /* out of range capabilities are never held */
        assert_false(rl_have_cap(-1));
        assert_false(rl_have_cap(64));
        (void)rl_have_cap(CAP_SYS_RESOURCE);
}

/* the first capability rl_have_cap() and capget(2) disagree on, -1 when none */
static int cap_mismatch(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = { { 0 } };

        if (syscall(SYS_capget, &h, d) < 0)
                return 64;
        for (int cap = 0; cap < 64; cap++)
                if (rl_have_cap(cap) != (bool)(d[cap / 32].effective & (UINT32_C(1) << (cap % 32))))
                        return cap;
        return -1;
}

/* rl_have_cap() reads CapEff from /proc/self/status: it answers as capget(2) does, for every
 * capability (as root without CAP_SYS_RESOURCE, as the tests run, the set mixes held and not
 * held, and its hex digits hold zeros); and in a child whose set has an 'a' digit (CAP_FSETID
 * and CAP_SETGID dropped, CAP_KILL and CAP_SETUID kept: bits 4 to 7 are 1010) */
static void test_have_cap(void **state) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = { { 0 } };
        int status;
        (void)state;

        assert_int_equal(cap_mismatch(), -1);
        assert_int_equal(syscall(SYS_capget, &h, d), 0);
        if ((d[0].effective & 0xf0) != 0xf0) {
                print_message("# not all of capabilities 4 to 7 held: the 'a' digit is not tried\n");
                return;
        }
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                d[0].effective &= ~((UINT32_C(1) << CAP_FSETID) | (UINT32_C(1) << CAP_SETGID));
                if (syscall(SYS_capset, &h, d) < 0)
                        _exit(100);
                _exit(cap_mismatch() + 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) != 0)
                fail_msg("with an 'a' digit in CapEff: capability %d differs", WEXITSTATUS(status) - 1);
}

/* CapEff from a canned /proc/PID/status (procfs.h): after an empty line, not at all, unreadable */
static void test_have_cap_canned(void **state) {
        char p[] = "/tmp/test-rlimit-status-XXXXXX", proc[64];
        int fd = mkstemp(p);
        (void)state;
        assert_true(fd >= 0);
        close(fd);
        snprintf(proc, sizeof proc, "/proc/%d/status", (int)getpid());
        fault_redirect(proc, p);
        unit_write(p, "Name:\ttest\n\nCapEff:\t0000000001000000\n");
        assert_true(rl_have_cap(CAP_SYS_RESOURCE));
        assert_false(rl_have_cap(CAP_SYS_ADMIN));
        unit_write(p, "Name:\ttest\n");
        assert_false(rl_have_cap(CAP_SYS_RESOURCE));
        unit_write(p, "CapEff:\t0000000001000000\n");
        fault_arm("open", "test-rlimit-status-*", 1, EACCES);   /* the redirected path */
        assert_false(rl_have_cap(CAP_SYS_RESOURCE));
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_true(rl_have_cap(CAP_SYS_RESOURCE));
        fault_redirect(NULL, NULL);
        unlink(p);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_allowed), cmocka_unit_test(test_want), cmocka_unit_test(test_closest),
          cmocka_unit_test(test_after_module), cmocka_unit_test(test_process), cmocka_unit_test(test_have_cap),
          cmocka_unit_test(test_have_cap_canned))
