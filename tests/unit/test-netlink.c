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
#include <sys/socket.h>
#include <unistd.h>

#include "unit.h"
#include "netlink.h"
#include "nlmsg.h"
#include "../fault/fault.h"

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
        for (int i = 0; i < 4; i++) {
                static const int32_t errs[] = { 0, -EPERM, 5, -5000 };
                static const int want[] = { 0, -EPERM, -EPROTO, -EPROTO };
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

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_parse), cmocka_unit_test(test_open_bind_fails),
          cmocka_unit_test(test_recv_not_kernel))
