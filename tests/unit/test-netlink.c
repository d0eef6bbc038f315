/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/login/netlink.c: opening a socket (bind() failing) and the walk of a datagram's messages,
 * nl_parse_batch(), fed with messages built here: the end of a dump and what follows it, an
 * error message too short for its error, a message that is only a header, a length that
 * contradicts what is left, replies to another request.
 */
#include "config.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "netlink.h"
#include "nlmsg.h"
#include "macro.h"
#include "../fault/fault.h"
#include "../fault/fdcheck.h"

/* A message of type with payload bytes of data (NULL: zeros) and flags, appended to m; its
 * header's length is len_override when not 0 (a malformed message). */
static void put(struct msg *m, uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid, const void *data,
                size_t payload, uint32_t len_override) {
        uint8_t zeros[64] = {};
        msg_begin(m, type, seq, pid, data ? data : zeros, payload);
        msg_end(m);
        struct nlmsghdr *h = (void *)(m->buf + m->start);
        h->nlmsg_flags = flags;
        if (len_override)
                h->nlmsg_len = len_override;
}

static int count(const struct nlmsghdr *nlh, size_t len, void *data) {
        (void)nlh;
        (void)len;
        (*(unsigned *)data)++;
        return 0;
}

static int parse(const struct msg *m, uint32_t seq, uint32_t portid, enum nl_batch_end *end, unsigned *seen) {
        *seen = 0;
        *end = (enum nl_batch_end)99;
        return nl_parse_batch(m->buf, m->len, seq, portid, end, count, seen);
}

static void test_parse(void **state) {
        enum nl_batch_end end;
        unsigned seen;
        int32_t err;
        (void)state;

        /* a data message that is only a header, then the end of the dump */
        struct msg m = {};
        put(&m, NLMSG_MIN_TYPE + 4, 0, 7, 42, NULL, 0, 0);
        assert_int_equal(parse(&m, 7, 42, &end, &seen), 0);
        assert_int_equal(seen, 1);
        assert_int_equal(end, NL_BATCH_MORE);
        put(&m, NLMSG_DONE, NLM_F_MULTI, 7, 42, NULL, 4, 0);
        assert_int_equal(parse(&m, 7, 42, &end, &seen), 0);
        assert_int_equal(seen, 1);
        assert_int_equal(end, NL_BATCH_DONE);
        /* what follows DONE is not read: even bytes that are no message */
        m.len += 4;
        assert_int_equal(parse(&m, 7, 42, &end, &seen), 0);
        assert_int_equal(end, NL_BATCH_DONE);

        /* another request's reply (sequence), or another socket's (port id; 0: any) */
        m = (struct msg){};
        put(&m, NLMSG_MIN_TYPE, 0, 8, 42, NULL, 4, 0);
        assert_int_equal(parse(&m, 7, 42, &end, &seen), -ESRCH);
        assert_int_equal(parse(&m, 8, 43, &end, &seen), -ESRCH);
        assert_int_equal(parse(&m, 8, 0, &end, &seen), 0);
        assert_int_equal(seen, 1);

        /* an error message: an ACK ends the exchange, an error is returned, a positive or
         * out-of-range one is a protocol error, one too short for its error is malformed */
        for (int i = 0; i < 6; i++) {
                static const int32_t errs[] = { 0, -EPERM, 5, -5000, -4096, -4095 };
                static const int want[] = { 0, -EPERM, -EPROTO, -EPROTO, -EPROTO, -4095 };
                m = (struct msg){};
                err = errs[i];
                put(&m, NLMSG_ERROR, 0, 1, 0, &err, sizeof err, 0);
                assert_int_equal(parse(&m, 1, 0, &end, &seen), want[i]);
                if (i == 0)
                        assert_int_equal(end, NL_BATCH_DONE);
        }
        m = (struct msg){};
        err = -EPERM;
        put(&m, NLMSG_ERROR, 0, 1, 0, &err, sizeof err, NLMSG_HDRLEN + 2);
        m.len = NLMSG_HDRLEN + 2;
        assert_int_equal(parse(&m, 1, 0, &end, &seen), -EBADMSG);

        /* lengths: below a header, beyond what is left, what is left below a header */
        m = (struct msg){};
        put(&m, NLMSG_MIN_TYPE, 0, 1, 0, NULL, 8, 8);
        assert_int_equal(parse(&m, 1, 0, &end, &seen), -EBADMSG);
        assert_int_equal(seen, 0);
        m = (struct msg){};
        put(&m, NLMSG_MIN_TYPE, 0, 1, 0, NULL, 8, 200);
        assert_int_equal(parse(&m, 1, 0, &end, &seen), -EBADMSG);
        m = (struct msg){};
        put(&m, NLMSG_MIN_TYPE, 0, 1, 0, NULL, 0, 0);
        m.len = NLMSG_HDRLEN - 1;
        assert_int_equal(parse(&m, 1, 0, &end, &seen), -EBADMSG);

        /* a dump a change interrupted */
        m = (struct msg){};
        put(&m, NLMSG_MIN_TYPE, NLM_F_DUMP_INTR, 1, 0, NULL, 4, 0);
        assert_int_equal(parse(&m, 1, 0, &end, &seen), -EINTR);
}

/* A socket whose bind() fails is no socket: the error, no descriptor left open. */
static void test_open_bind_fails(void **state) {
        int fd = -1;
        uint32_t portid = 0;
        (void)state;

        assert_int_equal(nl_open(NETLINK_ROUTE, &fd, &portid), 0);
        assert_true(fd >= 0);
        assert_true(portid != 0);
        close(fd);
        fd = -1;
        fault_arm("bind", NULL, 1, EADDRINUSE);
        int r = nl_open(NETLINK_ROUTE, &fd, &portid);
        bool hit = fault_injected() > 0;
        fault_disarm();
        assert_true(hit);
        assert_int_equal(r, -EADDRINUSE);
        assert_int_equal(fd, -1);
        /* descriptor 0 is a descriptor: with stdin closed the socket is 0, and it is returned */
        fd0_free();
        r = nl_open(NETLINK_ROUTE, &fd, &portid);
        int fd0 = fd;
        if (fd0 == 0)
                close(fd0);
        fd0_restore();
        assert_int_equal(r, 0);
        assert_int_equal(fd0, 0);
}

static int no_batch(const void *buf, size_t len, void *data, enum nl_batch_end *ret_end) {
        (void)buf;
        (void)len;
        (void)ret_end;
        (*(unsigned *)data)++;
        return 0;
}

/* Datagrams from anyone but the kernel are dropped, an empty one too, and the reader waits on
 * until its deadline (a socket pair stands in for the netlink socket: its sender is no kernel). */
static void test_recv_not_kernel(void **state) {
        int sv[2];
        unsigned batches = 0;
        size_t dropped = 0;
        (void)state;

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(send(sv[1], "", 0, 0), 0);
        assert_int_equal(send(sv[1], "xxxxxxxxxxxxxxxxxxxx", 20, 0), 20);
        errno = 0;
        assert_int_equal(nl_recv_dump(sv[0], nl_now_ms() + 50, no_batch, &batches, &dropped), -ETIME);
        assert_int_equal(dropped, 2);
        assert_int_equal(batches, 0);
        close(sv[0]);
        close(sv[1]);
}

/* errno as a successful call leaves it (stale) must not decide anything: an empty datagram,
 * then one of 20 bytes, both from a socket pair, both dropped, whatever errno was before */
static void test_recv_stale_errno(void **state) {
        static const int stale[] = { 0, EAGAIN, EINTR, EBADF };
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(stale); i++) {
                int sv[2];
                unsigned batches = 0;
                size_t dropped = 99;
                assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
                assert_int_equal(send(sv[1], "", 0, 0), 0);
                assert_int_equal(send(sv[1], "xxxxxxxxxxxxxxxxxxxx", 20, 0), 20);
                errno = stale[i];
                assert_int_equal(nl_recv_dump(sv[0], nl_now_ms() + 50, no_batch, &batches, &dropped), -ETIME);
                assert_int_equal(dropped, 2);
                assert_int_equal(batches, 0);
                close(sv[0]);
                close(sv[1]);
        }
}

/* no clock: 0, the deadline of everything already past */
static void test_now_fails(void **state) {
        (void)state;
        assert_true(nl_now_ms() > 0);
        fault_arm("clock_gettime", NULL, 1, EINVAL);
        uint64_t t = nl_now_ms();
        bool hit = fault_injected() > 0;
        fault_disarm();
        assert_true(hit);
        assert_true(t == 0);
}

/* Past the deadline nothing is read, even what is there already */
static void test_recv_deadline(void **state) {
        int sv[2];
        unsigned batches = 0;
        size_t dropped = 99;
        (void)state;

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(send(sv[1], "xxxx", 4, 0), 4);
        assert_int_equal(nl_recv_dump(sv[0], nl_now_ms() - 1, no_batch, &batches, &dropped), -ETIME);
        assert_int_equal(dropped, 0);
        assert_int_equal(nl_recv_dump(sv[0], nl_now_ms(), no_batch, &batches, &dropped), -ETIME);
        assert_int_equal(dropped, 0);
        assert_int_equal(fd_wait_in(sv[0], nl_now_ms()), -ETIME);
        /* before it: there is something to read */
        assert_int_equal(fd_wait_in(sv[0], nl_now_ms() + 1000), 0);
        close(sv[0]);
        close(sv[1]);
        /* nothing to read: a wait that ends without anything is the deadline, not "ready" */
        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        uint64_t t0 = nl_now_ms();
        assert_int_equal(fd_wait_in(sv[0], t0 + 40), -ETIME);
        assert_true(nl_now_ms() >= t0 + 40);
        close(sv[0]);
        close(sv[1]);
}

/* A datagram that comes while the reader waits is read: one sent 30 ms after the reader
 * started, then nothing until the deadline. */
static void test_recv_waits(void **state) {
        int sv[2];
        unsigned batches = 0;
        size_t dropped = 99;
        (void)state;

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                nanosleep(&(struct timespec){ .tv_nsec = 30 * 1000 * 1000 }, NULL);
                _exit(send(sv[1], "xxxx", 4, 0) == 4 ? 0 : 1);
        }
        uint64_t t0 = nl_now_ms();
        assert_int_equal(nl_recv_dump(sv[0], t0 + 300, no_batch, &batches, &dropped), -ETIME);
        assert_int_equal(dropped, 1);
        assert_true(nl_now_ms() >= t0 + 300);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(sv[0]);
        close(sv[1]);
}

/* nl_recv_dump() of fd with call failing once with err: its result (the fault was injected) */
static int dump_failing(int fd, const char *call, int err, unsigned ms, size_t *dropped) {
        unsigned batches = 0;
        fault_arm(call, NULL, 1, err);
        int r = nl_recv_dump(fd, nl_now_ms() + ms, no_batch, &batches, dropped);
        bool hit = fault_injected() > 0;
        fault_disarm();
        assert_true(hit);
        return r;
}

/* recvmsg() and poll() failing: their error */
static void test_recv_fails(void **state) {
        int sv[2];
        size_t dropped = 99;
        (void)state;

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(send(sv[1], "xxxx", 4, 0), 4);
        assert_int_equal(dump_failing(sv[0], "recvmsg", EIO, 1000, &dropped), -EIO);
        assert_int_equal(dropped, 0);
        /* EINTR: asked again */
        assert_int_equal(dump_failing(sv[0], "recvmsg", EINTR, 50, &dropped), -ETIME);
        assert_int_equal(dropped, 1);
        /* nothing there: poll() waits, and fails */
        assert_int_equal(dump_failing(sv[0], "poll", ENOMEM, 1000, &dropped), -ENOMEM);
        assert_int_equal(dropped, 0);
        assert_int_equal(dump_failing(sv[0], "poll", EINTR, 50, &dropped), -ETIME);
        close(sv[0]);
        close(sv[1]);
}

/* A sender whose address has a netlink address's length and a port id of 0, but is no
 * netlink socket: a Unix socket bound to an abstract name of 10 bytes ("\0x" and four zero
 * bytes where sockaddr_nl has nl_pid).  Dropped, never parsed. */
static void test_recv_forged_address(void **state) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        int rx, tx;
        unsigned batches = 0;
        size_t dropped = 99;
        (void)state;

        _Static_assert(offsetof(struct sockaddr_un, sun_path) + 10 == sizeof(struct sockaddr_nl), "layout");
        rx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(rx >= 0 && tx >= 0);
        /* the receiver: any abstract name */
        snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "rdmalimit-test-rx-%d", (int)getpid());
        socklen_t rl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
        assert_int_equal(bind(rx, (struct sockaddr *)&a, rl), 0);
        /* the sender: 10 bytes of name, nl_pid's bytes zero */
        struct sockaddr_un b = { .sun_family = AF_UNIX };
        memcpy(b.sun_path, "\0x\0\0\0\0yyyy", 10);
        b.sun_path[9] = (char)('0' + getpid() % 10);
        b.sun_path[8] = (char)('0' + getpid() / 10 % 10);
        assert_int_equal(bind(tx, (struct sockaddr *)&b, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 10)), 0);
        struct msg m = {};
        put(&m, NLMSG_DONE, NLM_F_MULTI, 1, 0, NULL, 4, 0);
        assert_int_equal(sendto(tx, m.buf, m.len, 0, (struct sockaddr *)&a, rl), (ssize_t)m.len);
        assert_int_equal(nl_recv_dump(rx, nl_now_ms() + 50, no_batch, &batches, &dropped), -ETIME);
        assert_int_equal(dropped, 1);
        assert_int_equal(batches, 0);
        close(rx);
        close(tx);
}

/* A flood: no more than NL_DUMP_MAX_DATAGRAMS datagrams are read, then -E2BIG */
static void test_recv_flood(void **state) {
        int sv[2];
        unsigned batches = 0;
        size_t dropped = 0;
        (void)state;

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(sv[0]);
                for (unsigned i = 0; i < NL_DUMP_MAX_DATAGRAMS + 100; i++)
                        if (send(sv[1], "x", 1, MSG_NOSIGNAL) != 1)
                                _exit(i > NL_DUMP_MAX_DATAGRAMS ? 0 : 1);
                _exit(0);
        }
        close(sv[1]);
        assert_int_equal(nl_recv_dump(sv[0], nl_now_ms() + 60000, no_batch, &batches, &dropped), -E2BIG);
        assert_int_equal(dropped, NL_DUMP_MAX_DATAGRAMS);
        close(sv[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* nl_send(): the whole message or an error; EINTR asks again */
static void test_send(void **state) {
        int fd = -1;
        uint32_t portid = 0;
        uint8_t buf[64];
        (void)state;

        assert_int_equal(nl_open(NETLINK_ROUTE, &fd, &portid), 0);
        int len = nl_put_request(buf, sizeof buf, NLMSG_NOOP, NLM_F_REQUEST, 1, NULL, 0);
        assert_int_equal(len, NLMSG_HDRLEN);
        fault_arm("sendto", NULL, 1, EINTR);
        assert_int_equal(nl_send(fd, buf, (size_t)len), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        errno = EINTR;   /* stale: a successful call must not be made again */
        fault_arm("sendto", NULL, 2, EIO);
        assert_int_equal(nl_send(fd, buf, (size_t)len), 0);
        assert_int_equal(fault_injected(), 0);
        fault_disarm();
        fault_arm("sendto", NULL, 1, ENOBUFS);
        assert_int_equal(nl_send(fd, buf, (size_t)len), -ENOBUFS);
        fault_disarm();
        close(fd);

        /* socket() failing */
        fd = -1;
        fault_arm("socket", NULL, 1, EMFILE);
        int r = nl_open(NETLINK_ROUTE, &fd, &portid);
        bool hit = fault_injected() > 0;
        fault_disarm();
        assert_true(hit);
        assert_int_equal(r, -EMFILE);
        assert_int_equal(fd, -1);
}

/* The builders: exactly the room a message needs, not a byte less; an attribute longer than
 * nla_len can say; an error from before passed on. */
static void test_put(void **state) {
        uint8_t buf[256];
        uint32_t body = 0x01020304;
        (void)state;

        assert_int_equal(nl_put_request(buf, NLMSG_LENGTH(4), 20, NLM_F_REQUEST, 9, &body, 4), NLMSG_LENGTH(4));
        assert_int_equal(nl_put_request(buf, NLMSG_LENGTH(4) - 1, 20, NLM_F_REQUEST, 9, &body, 4), -ENOBUFS);
        assert_int_equal(nl_put_request(buf, NLMSG_LENGTH(3) , 20, NLM_F_REQUEST, 9, &body, 3), -ENOBUFS); /* aligned */
        int len = nl_put_request(buf, sizeof buf, 20, NLM_F_REQUEST, 9, &body, 4);
        assert_int_equal(len, NLMSG_HDRLEN + 4);
        const struct nlmsghdr *h = (const void *)buf;
        assert_int_equal(h->nlmsg_type, 20);
        assert_int_equal(h->nlmsg_seq, 9);
        assert_memory_equal(NLMSG_DATA(h), &body, 4);

        /* an attribute of 3 bytes takes 8 (4 + 3 aligned) */
        size_t need = (size_t)len + NLA_HDRLEN + NLA_ALIGN(3);
        assert_int_equal(nl_put_attr(buf, need, len, 1, "abc", 3), len + NLA_HDRLEN + 3);
        assert_int_equal(h->nlmsg_len, (uint32_t)(len + NLA_HDRLEN + 3));
        assert_int_equal(nl_put_attr(buf, need - 1, len, 1, "abc", 3), -ENOBUFS);
        /* the longest attribute: UINT16_MAX - 4 bytes of data; one more does not fit nla_len */
        static uint8_t big[70000], data[UINT16_MAX];
        assert_int_equal(nl_put_attr(big, sizeof big, 16, 2, data, UINT16_MAX - NLA_HDRLEN),
                         16 + UINT16_MAX);
        assert_int_equal(nl_put_attr(big, sizeof big, 16, 2, data, UINT16_MAX - NLA_HDRLEN + 1), -ENOBUFS);
        /* at 0 (an empty message so far), and an error passed on */
        assert_int_equal(nl_put_attr(buf, sizeof buf, 0, 3, "ab", 2), NLA_HDRLEN + 2);
        assert_int_equal(nl_put_attr(buf, sizeof buf, -EINVAL, 3, "ab", 2), -EINVAL);
        assert_int_equal(nl_put_attr(buf, sizeof buf, -ENOBUFS, 3, "ab", 2), -ENOBUFS);
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_parse), cmocka_unit_test(test_open_bind_fails),
          cmocka_unit_test(test_recv_not_kernel), cmocka_unit_test(test_recv_stale_errno),
          cmocka_unit_test(test_recv_deadline), cmocka_unit_test(test_recv_waits),
          cmocka_unit_test(test_recv_fails), cmocka_unit_test(test_recv_forged_address),
          cmocka_unit_test(test_recv_flood), cmocka_unit_test(test_send), cmocka_unit_test(test_put),
          cmocka_unit_test(test_now_fails))
