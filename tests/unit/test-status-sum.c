/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/status/status.c: the per-user, per-process and per-unit sums from canned netlink answers,
 * as sock_diag and the RDMA resource dump give them on kernels that have them (this one may
 * not): several users, several network namespaces, UMEMs shared between sockets of one
 * process and of two processes.  status.c is compiled into this test so that its steps after
 * the reading of /proc and netlink are called on the records directly; the product has no
 * other path to them.
 */
#include "status.c"

#include "unit.h"

#define KIB UINT64_C(1024)
#define MIB (1024 * KIB)

/* status.c's clock and its question to each socket, seen through the linker
 * (-Wl,--wrap=nl_now_ms,--wrap=getxattr: tests/unit/unit.am): the clock jumps past every
 * deadline once the descriptors have been asked `clock_jump_after` questions. */
uint64_t __real_nl_now_ms(void);
ssize_t __real_getxattr(const char *path, const char *name, void *value, size_t size);
static size_t xattr_calls, clock_jump_after = SIZE_MAX;

uint64_t __wrap_nl_now_ms(void);
uint64_t __wrap_nl_now_ms(void) {
        return xattr_calls >= clock_jump_after ? UINT64_MAX - 1 : __real_nl_now_ms();
}

ssize_t __wrap_getxattr(const char *path, const char *name, void *value, size_t size);
ssize_t __wrap_getxattr(const char *path, const char *name, void *value, size_t size) {
        xattr_calls++;
        return __real_getxattr(path, name, value, size);
}

static struct status_proc proc(pid_t pid, uid_t uid, unsigned long long netns, uint64_t soft, const char *unit) {
        struct status_proc p = { .pid = pid, .nspid = pid, .uid = uid, .gid = uid, .limits_known = true,
                                 .memlock = { soft, 8 * MIB }, .netns = netns, .origin = CGROUP_O_UNIT };
        snprintf(p.origin_name, sizeof p.origin_name, "%s", unit);
        return p;
}

static struct xdpdiag_sock sock(uint32_t ino, uint32_t uid, uint32_t umem_id, uint64_t umem_bytes) {
        return (struct xdpdiag_sock){ .ino = ino, .has_uid = true, .uid = uid, .has_umem = umem_id != 0,
                                      .umem_id = umem_id, .umem_size = umem_bytes,
                                      .umem_pages = (uint32_t)(umem_bytes / 4096), .umem_refs = 1 };
}

static const struct status_user *user(const struct status_report *r, uid_t uid) {
        const struct status_user *u = status_find_user(r, uid);
        assert_non_null(u);
        return u;
}

static void test_sums(void **state) {
        struct status_proc procs[] = {
                proc(101, 64301, 1, 4 * MIB, "a.service"), /* two sockets sharing UMEM 7 (1 MiB) */
                proc(102, 64301, 2, 8 * MIB, "a.service"), /* another namespace: UMEM 8 (512 KiB) */
                proc(103, 64302, 1, 2 * MIB, "b.service"), /* UMEM 9 (256 KiB), shared with 104 */
                proc(104, 64302, 2, 2 * MIB, "c.service"),
                proc(105, 64303, 1, 1 * MIB, "c.service"), /* sockets, none AF_XDP */
        };
        /* each process's sockets as socket_inodes() gives them: sorted by inode, each once */
        static const struct sock_fd inos[][3] = { { { 5001, 3 }, { 5002, 4 }, { 9001, 5 } }, { { 5003, 3 } },
                                                  { { 5004, 3 } }, { { 5005, 3 } }, { { 9002, 3 } } };
        static const size_t n_inos[] = { 3, 1, 1, 1, 1 };
        struct diag_index x;
        struct xdpdiag_sock socks[] = {
                sock(5001, 64301, 7, 1 * MIB), sock(5002, 64301, 7, 1 * MIB), sock(5003, 64301, 8, 512 * KIB),
                sock(5004, 64302, 9, 256 * KIB), sock(5005, 64302, 9, 256 * KIB), sock(5006, 64303, 0, 0),
        };
        struct rdmanl_mr mrs[] = { { .pid = 101, .len = 2 * MIB }, { .pid = 101, .len = 1 * MIB },
                                   { .pid = 103, .len = 64 * KIB }, { .pid = 0, .len = 8 * MIB } };
        struct xsk_list diag = { .v = socks, .n = ELEMENTSOF(socks) };
        struct rdma_list rdma = { .mrs = mrs, .n_mrs = ELEMENTSOF(mrs) };
        struct status_options o = { .threshold = 1 * MIB };
        struct status_report r = { .page_size = 4096, .xsk_method = STATUS_M_SOCK_DIAG,
                                   .mr_method = STATUS_M_RDMA_NETLINK };

        for (size_t i = 0; i < ELEMENTSOF(procs); i++)
                assert_int_equal(array_append((void **)&r.procs, &r.n_procs, sizeof procs[i], &procs[i], 32), 0);
        assert_int_equal(collect_umems(&r, &diag), 0);
        assert_int_equal(diag_index_build(&r, &diag, &x), 0);
        for (size_t i = 0; i < r.n_procs; i++)
                match_diag(&r, &r.procs[i], inos[i], n_inos[i], &x);
        diag_index_clear(&x);
        attribute_mrs(&r, &rdma);
        assert_int_equal(gather_users(&r, &o), 0);
        assert_int_equal(gather_units(&r), 0);
        mark_over_threshold(&o, &r);

        /* users: each UMEM charged once to the user whose socket registered it */
        const struct status_user *u1 = user(&r, 64301), *u2 = user(&r, 64302), *u3 = user(&r, 64303);
        assert_int_equal(u1->a.charged_method, STATUS_M_SOCK_DIAG);
        assert_int_equal(u1->a.charged, 1 * MIB + 512 * KIB);
        assert_int_equal(u1->n_umem, 2);
        assert_int_equal(u1->n_xsk, 3);
        assert_true(u1->a.headroom_known);
        assert_int_equal(u1->a.headroom, 8 * MIB - (1 * MIB + 512 * KIB)); /* the largest soft limit */
        assert_int_equal(u2->a.charged, 256 * KIB);
        assert_int_equal(u2->n_umem, 1);
        assert_int_equal(u2->n_xsk, 2);
        assert_int_equal(u3->a.charged_method, STATUS_M_SOCK_DIAG);
        assert_int_equal(u3->a.charged, 0);
        assert_int_equal(u3->n_xsk, 0);

        /* processes: a UMEM its two sockets share counts once; MRs by pid */
        assert_int_equal(r.procs[0].n_xsk, 2);
        assert_int_equal(r.procs[0].xsk_umem_bytes, 1 * MIB);
        assert_int_equal(r.procs[0].n_mr, 2);
        assert_int_equal(r.procs[0].mr_bytes, 3 * MIB);
        assert_true(r.procs[0].over_threshold);
        assert_int_equal(r.procs[1].xsk_umem_bytes, 512 * KIB);
        assert_false(r.procs[1].over_threshold);
        assert_int_equal(r.procs[2].xsk_umem_bytes, 256 * KIB);
        assert_int_equal(r.procs[2].mr_bytes, 64 * KIB);
        assert_int_equal(r.procs[3].xsk_umem_bytes, 256 * KIB);
        assert_int_equal(r.procs[4].n_xsk, 0);
        assert_int_equal(r.procs[4].n_mr, 0);

        /* the UMEMs: shared ones charged with the first socket, each with its first holder */
        assert_int_equal(r.n_umems, 5);
        assert_int_equal(r.umems[0].charged, 1 * MIB);
        assert_int_equal(r.umems[0].holder, 101);
        assert_true(r.umems[1].shared);
        assert_int_equal(r.umems[1].charged, 0);
        assert_int_equal(r.umems[4].holder, 104);

        /* units: the largest charge of a process, its user's locked_vm where that is larger */
        for (size_t i = 0; i < r.n_units; i++) {
                const struct status_unit *un = &r.units[i];
                if (streq(un->name, "a.service")) {
                        assert_int_equal(un->a.n_procs, 2);
                        assert_int_equal(un->a.charged, 1 * MIB + 512 * KIB);
                        assert_int_equal(un->a.charged_method, STATUS_M_SOCK_DIAG);
                        assert_int_equal(un->a.headroom, 4 * MIB - (1 * MIB + 512 * KIB));
                } else if (streq(un->name, "c.service")) {
                        assert_int_equal(un->a.n_procs, 2);
                        assert_int_equal(un->a.charged, 256 * KIB);
                        assert_int_equal(un->a.headroom, 1 * MIB); /* 105: 1 MiB, nothing charged */
                }
        }
        assert_int_equal(r.n_units, 3);
        status_report_clear(&r);
}

/* The headroom as the kernel counts it, in whole pages of the soft limit; limits that differ
 * by their hard value differ too */
static void test_pages_and_limits(void **state) {
        uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
        struct status_proc procs[] = {
                proc(201, 64311, 1, 4 * MIB + 2048, "d.service"),
                proc(202, 64311, 1, 4 * MIB + 2048, "d.service"),
        };
        struct status_options o = { .threshold = 1 * MIB };
        struct status_report r = { .page_size = page, .xsk_method = STATUS_M_PROC, .mr_method = STATUS_M_PROC };
        (void)state;

        procs[0].vmlck = 1 * MIB;
        procs[1].memlock.hard = 6 * MIB;
        for (size_t i = 0; i < ELEMENTSOF(procs); i++)
                assert_int_equal(array_append((void **)&r.procs, &r.n_procs, sizeof procs[i], &procs[i], 32), 0);
        assert_int_equal(gather_users(&r, &o), 0);
        assert_int_equal(gather_units(&r), 0);
        const struct status_user *u = user(&r, 64311);
        assert_true(u->a.limits_differ);
        /* the unit's headroom: an mlock of 3 MiB + 2 KiB more fails, the last 2 KiB are no page */
        assert_int_equal(r.n_units, 1);
        assert_true(r.units[0].a.headroom_known);
        assert_int_equal(r.units[0].a.headroom, (4 * MIB + 2048) / page * page - 1 * MIB);
        assert_true(r.units[0].a.limits_differ);
        status_report_clear(&r);
}

/* A process's descriptors as status reads them: a socket dup()ed many times is one socket
 * (asked once: a user's 20,000 copies cost root one question), and the scan has a deadline */
static void test_descriptors(void **state) {
        int sp[2];
        (void)state;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
        int first = -1, copies[64];
        for (size_t i = 0; i < ELEMENTSOF(copies); i++) {
                copies[i] = fcntl(sp[i % 2], F_DUPFD_CLOEXEC, 0);
                assert_true(copies[i] >= 0);
        }
        first = sp[0] < sp[1] ? sp[0] : sp[1];
        struct sock_fd *v = NULL;
        size_t n = 0;
        assert_int_equal(socket_inodes(getpid(), UINT64_MAX, &v, &n), 0);
        struct stat a, b;
        assert_int_equal(fstat(sp[0], &a), 0);
        assert_int_equal(fstat(sp[1], &b), 0);
        size_t found = 0;
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        assert_true(v[i - 1].ino < v[i].ino);   /* sorted, each once */
                if (v[i].ino == a.st_ino || v[i].ino == b.st_ino) {
                        found++;
                        assert_true(v[i].fd == sp[0] || v[i].fd == sp[1] || v[i].fd > first);
                }
        }
        assert_int_equal(found, 2);
        free(v);
        /* a deadline that has passed: the scan stops at once (then every FD_SCAN_CLOCK_EVERY
         * descriptors it looks again) */
        v = NULL;
        assert_int_equal(socket_inodes(getpid(), 0, &v, &n), -ETIME);
        assert_null(v);

        /* match_sockets() past its deadline: nothing asked, the report says the scan stopped */
        struct status_proc p = proc(getpid(), getuid(), 1, 1 * MIB, "x.service");
        struct status_report r = { .page_size = 4096, .xsk_method = STATUS_M_UNKNOWN };
        struct xsk_list diag = {};
        assert_int_equal(array_append((void **)&r.procs, &r.n_procs, sizeof p, &p, 32), 0);
        match_sockets(&r, &diag, 0);
        assert_true(r.descriptors_stopped);
        assert_int_equal(r.procs[0].xsk_method, STATUS_M_UNKNOWN);
        r.descriptors_stopped = false;
        match_sockets(&r, &diag, UINT64_MAX);
        assert_false(r.descriptors_stopped);
        assert_int_equal(r.procs[0].xsk_method, STATUS_M_PIDFD);   /* asked, none AF_XDP */
        assert_int_equal(r.procs[0].n_xsk, 0);
        status_report_clear(&r);
        for (size_t i = 0; i < ELEMENTSOF(copies); i++)
                close(copies[i]);
        close(sp[0]);
        close(sp[1]);
}

/* The bound inside one process: a user's process holds as many distinct sockets as its nofile
 * limit allows, each a question; past the deadline the rest are not asked, and its sockets are
 * unknown (not those asked so far).  Without the check inside the process, all 3,000 were asked
 * and, the process being the last one, the report said nothing of the deadline. */
static void test_descriptors_bound_inside(void **state) {
        enum { PAIRS = 1500 };
        struct rlimit rl;
        (void)state;
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2 * PAIRS + 256) {
                skip();
                return;
        }
        struct rlimit saved = rl;
        rl.rlim_cur = 2 * PAIRS + 256;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
        int *fds = calloc(2 * PAIRS, sizeof *fds);
        assert_non_null(fds);
        for (size_t i = 0; i < PAIRS; i++)
                assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds + 2 * i), 0);

        struct status_proc p = proc(getpid(), getuid(), 1, 1 * MIB, "x.service");
        struct status_report r = { .page_size = 4096, .xsk_method = STATUS_M_UNKNOWN };
        struct xsk_list diag = {};
        assert_int_equal(array_append((void **)&r.procs, &r.n_procs, sizeof p, &p, 32), 0);
        xattr_calls = 0;
        clock_jump_after = PAIRS;       /* half of its sockets asked, the deadline passes */
        match_sockets(&r, &diag, __real_nl_now_ms() + 600000);
        clock_jump_after = SIZE_MAX;
        assert_true(r.descriptors_stopped);
        assert_int_equal(r.procs[0].xsk_method, STATUS_M_UNKNOWN);
        assert_int_equal(r.procs[0].n_xsk, 0);
        assert_true(xattr_calls >= PAIRS);
        assert_true(xattr_calls < 2 * PAIRS);        /* stopped inside the process */

        /* the same without the jump: every socket asked once, the scan not stopped */
        r.descriptors_stopped = false;
        r.procs[0].xsk_method = STATUS_M_UNKNOWN;
        xattr_calls = 0;
        match_sockets(&r, &diag, __real_nl_now_ms() + 600000);
        assert_false(r.descriptors_stopped);
        assert_int_equal(r.procs[0].xsk_method, STATUS_M_PIDFD);
        assert_true(xattr_calls >= 2 * PAIRS);
        status_report_clear(&r);
        for (size_t i = 0; i < 2 * PAIRS; i++)
                close(fds[i]);
        free(fds);
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

/* The verdicts of sockets asked once: every one put is found, through growth */
static void test_verdicts(void **state) {
        struct xdp_verdicts c = {};
        (void)state;
        assert_int_equal(verdict_get(&c, 7), -1);
        for (uint32_t i = 1; i <= 5000; i++)
                verdict_put(&c, i * 7919u, i % 3 == 0);
        assert_int_equal(c.n, 5000);
        for (uint32_t i = 1; i <= 5000; i++)
                assert_int_equal(verdict_get(&c, i * 7919u), i % 3 == 0);
        assert_int_equal(verdict_get(&c, 5), -1);
        verdict_put(&c, 0, true);   /* no socket has inode 0 */
        assert_int_equal(c.n, 5000);
        strmap_clear(&c.map, NULL);
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_sums), cmocka_unit_test(test_pages_and_limits),
          cmocka_unit_test(test_descriptors), cmocka_unit_test(test_descriptors_bound_inside),
          cmocka_unit_test(test_verdicts))
