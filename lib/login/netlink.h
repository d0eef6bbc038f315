/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Netlink without a library, for the login's live probe (hw.c: the generic netlink family
 * "netdev") and the tool's status (xdpdiag.c: sock_diag, the RDMA dump): opening a socket,
 * sending a request, the one reader of the replies (nl_recv_dump(): only the kernel's
 * datagrams, bounded in number, size and time), the one walk of a datagram's messages
 * (nl_parse_batch(): sequence number and port id checked, errors, ACKs, DONE and an
 * interrupted dump) and of a message's attributes (each length checked against what is left).
 * Everything is plain libc: the login path loads no library for it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlattr;
struct nlmsghdr;

/* A netlink socket of bus, close-on-exec, bound by the kernel to a port id.  0 or -errno. */
int nl_open(int bus, int *ret_fd, uint32_t *ret_portid);
/* Send msg (len bytes) to the kernel.  0 or -errno. */
int nl_send(int fd, const void *msg, size_t len);

/* A request header + fixed part (body_len bytes of body) into buf: its length, or -ENOBUFS. */
int nl_put_request(void *buf, size_t size, uint16_t type, uint16_t flags, uint32_t seq, const void *body,
                   size_t body_len);
/* An attribute (data_len bytes of data) after the len bytes of the message in buf: the new
 * length, also set in its header; -ENOBUFS, or len itself when it is an error. */
int nl_put_attr(void *buf, size_t size, int len, uint16_t type, const void *data, size_t data_len);

/* An attribute walk over [p, p + left): each attribute checked against the rest. */
struct nla_iter {
        const uint8_t *p;
        size_t left;
};
/* The next attribute, or NULL at the end; *bad when what is left is malformed. */
const struct nlattr *nla_next(struct nla_iter *it, bool *bad);
const void *nla_data(const struct nlattr *a);
size_t nla_payload(const struct nlattr *a);
uint16_t nla_type(const struct nlattr *a);
struct nla_iter nla_iter_nested(const struct nlattr *a);

/* An attribute a walk keeps: the first size bytes of its payload copied to dst (-EBADMSG when
 * it is shorter) or, with size 0, the attribute itself in *(const struct nlattr **)dst; *have
 * (when not NULL) set.  The last of a type wins. */
struct nla_want {
        uint16_t type;
        void *dst;
        size_t size;
        bool *have;
};
/* Walk it, keeping the attributes of want and skipping the others: 0, or -EBADMSG when an
 * attribute or what is left is malformed. */
int nla_parse(struct nla_iter it, const struct nla_want *want, size_t n);

/* What one received datagram of a dump said. */
enum nl_batch_end {
        NL_BATCH_MORE,                   /* more datagrams follow */
        NL_BATCH_DONE,                   /* NLMSG_DONE seen */
};

/* One data message of a reply (len: what the datagram has from it on): 0 or a negative errno. */
typedef int (*nl_msg_fn)(const struct nlmsghdr *nlh, size_t len, void *data);
/*
 * Walk the messages of one received datagram: each must be a reply to (seq, portid: 0 for
 * any), else -ESRCH; NLMSG_DONE or an ACK ends it (*ret_end = NL_BATCH_DONE); an error message
 * is its errno; NLM_F_DUMP_INTR is -EINTR (ask again); fn for every data message.  -EBADMSG
 * for a truncated message.
 */
int nl_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, enum nl_batch_end *ret_end,
                   nl_msg_fn fn, void *data);

/* CLOCK_MONOTONIC in milliseconds: the clock of the deadlines here and in status.c */
uint64_t nl_now_ms(void);
/* Wait until fd has something to read (or its end), before deadline (nl_now_ms()): 0,
 * -ETIME, -errno of poll(). */
int fd_wait_in(int fd, uint64_t deadline);
/* Up to size bytes from fd (O_NONBLOCK) before deadline: the count read (less than size at
 * its end), -ETIME when the deadline passed first, -errno. */
ssize_t fd_read_by(int fd, void *buf, size_t size, uint64_t deadline);

/* Bounds on one dump's replies, forged datagrams included */
#define NL_DUMP_MAX_DATAGRAMS 65536u
#define NL_DUMP_MAX_BYTES (256u << 20)
/* The receive buffer.  The kernel makes a dump's datagrams no larger than the largest buffer
 * the socket has read with (max_recvmsg_len), and never smaller than about a page
 * (NLMSG_GOODSIZE); none of the messages read here comes near it.  8 KiB, as libmnl reads on
 * large pages: a login's first 32 KiB malloc() grew the heap, which cost about 3 us. */
#define NL_DUMP_BUF_SIZE 8192u

/* One datagram of a dump from the kernel to its parser: xdpdiag_parse_batch() or
 * rdmanl_parse_batch() with its arguments bound in data. */
typedef int (*nl_batch_fn)(const void *buf, size_t len, void *data, enum nl_batch_end *ret_end);

/*
 * Read the replies of a dump from the netlink socket fd until fn says NL_BATCH_DONE: each
 * datagram with recvmsg() once poll() says it is there, before deadline (nl_now_ms()).  A
 * datagram whose sender is not the kernel (msg_name's nl_pid not 0) is dropped and counted in
 * *ret_dropped (when not NULL).  0, -ETIME (the deadline passed), -E2BIG (more than
 * NL_DUMP_MAX_DATAGRAMS datagrams or NL_DUMP_MAX_BYTES bytes), -EMSGSIZE (a datagram larger
 * than NL_DUMP_BUF_SIZE, read into the stack), fn's error, -errno of recvmsg.
 */
int nl_recv_dump(int fd, uint64_t deadline, nl_batch_fn fn, void *data, size_t *ret_dropped);
