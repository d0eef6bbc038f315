/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Netlink without a library (netlink.h): requests, attribute walks, replies. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "netlink.h"

int nl_open(int bus, int *ret_fd, uint32_t *ret_portid) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
        socklen_t sl = sizeof sa;
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, bus);

        if (fd < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        *ret_fd = fd;
        *ret_portid = sa.nl_pid;
        return 0;
}

int nl_send(int fd, const void *msg, size_t len) {
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        ssize_t n;
        do
                n = sendto(fd, msg, len, 0, (const struct sockaddr *)&kernel, sizeof kernel);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        return (size_t)n == len ? 0 : -EIO;
}

/* The next attribute, or NULL at the end; *bad when what is left is malformed. */
const struct nlattr *nla_next(struct nla_iter *it, bool *bad) {
        const struct nlattr *a;

        if (it->left < NLA_HDRLEN) {
                if (it->left != 0)
                        *bad = true;
                return NULL;
        }
        a = (const struct nlattr *)(const void *)it->p;
        if (a->nla_len < NLA_HDRLEN || a->nla_len > it->left) {
                *bad = true;
                return NULL;
        }
        size_t step = NLA_ALIGN(a->nla_len);
        if (step > it->left)
                step = it->left;
        it->p += step;
        it->left -= step;
        return a;
}

const void *nla_data(const struct nlattr *a) {
        return (const uint8_t *)a + NLA_HDRLEN;
}

size_t nla_payload(const struct nlattr *a) {
        return (size_t)a->nla_len - NLA_HDRLEN;
}

uint16_t nla_type(const struct nlattr *a) {
        return a->nla_type & NLA_TYPE_MASK;
}

struct nla_iter nla_iter_nested(const struct nlattr *a) {
        return (struct nla_iter){ .p = nla_data(a), .left = nla_payload(a) };
}

/* Walk it, keeping the attributes of want and skipping the others: 0, or -EBADMSG when an
 * attribute or what is left is malformed. */
int nla_parse(struct nla_iter it, const struct nla_want *want, size_t n) {
        const struct nlattr *a;
        bool bad = false;

        while ((a = nla_next(&it, &bad)))
                for (size_t i = 0; i < n; i++) {
                        if (nla_type(a) != want[i].type)
                                continue;
                        if (want[i].size == 0)
                                *(const struct nlattr **)want[i].dst = a;
                        else if (nla_payload(a) < want[i].size)
                                return -EBADMSG;
                        else
                                memcpy(want[i].dst, nla_data(a), want[i].size);
                        if (want[i].have)
                                *want[i].have = true;
                }
        return bad ? -EBADMSG : 0;
}

/* A request header + fixed part into buf. */
int nl_put_request(void *buf, size_t size, uint16_t type, uint16_t flags, uint32_t seq, const void *body,
                       size_t body_len) {
        size_t len = NLMSG_LENGTH(body_len);
        struct nlmsghdr *nlh = buf;

        if (size < NLMSG_ALIGN(len))
                return -ENOBUFS;
        memset(buf, 0, NLMSG_ALIGN(len));
        nlh->nlmsg_len = (uint32_t)len;
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = flags;
        nlh->nlmsg_seq = seq;
        if (body_len)
                memcpy(NLMSG_DATA(nlh), body, body_len);
        return (int)len;
}

int nl_put_attr(void *buf, size_t size, int len, uint16_t type, const void *data, size_t data_len) {
        if (len < 0)
                return len;
        size_t at = NLMSG_ALIGN((size_t)len);
        if (data_len > UINT16_MAX - NLA_HDRLEN || size < at + NLA_HDRLEN + NLA_ALIGN(data_len))
                return -ENOBUFS;
        struct nlattr *a = (void *)((uint8_t *)buf + at);
        a->nla_len = (uint16_t)(NLA_HDRLEN + data_len);
        a->nla_type = type;
        memcpy((uint8_t *)a + NLA_HDRLEN, data, data_len);
        ((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)(at + NLA_HDRLEN + data_len);
        return (int)(at + NLA_HDRLEN + data_len);
}

/* Walk the messages of one datagram; fn for each data message. */
int nl_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, enum nl_batch_end *ret_end,
                   nl_msg_fn fn, void *data) {
        const uint8_t *p = buf;
        size_t left = len;

        *ret_end = NL_BATCH_MORE;
        while (left > 0) {
                const struct nlmsghdr *nlh = (const void *)p;
                int r;

                if (left < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > left)
                        return -EBADMSG;
                if (nlh->nlmsg_seq != seq || (portid && nlh->nlmsg_pid != portid))
                        return -ESRCH; /* not a reply to our request */
                if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
                        return -EINTR; /* the dump changed under it: ask again */
                if (nlh->nlmsg_type == NLMSG_DONE) {
                        *ret_end = NL_BATCH_DONE;
                        return 0;
                }
                if (nlh->nlmsg_type == NLMSG_ERROR) {
                        struct nlmsgerr e;
                        if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof e.error))
                                return -EBADMSG;
                        memcpy(&e.error, NLMSG_DATA(nlh), sizeof e.error);
                        if (e.error == 0) { /* an ACK */
                                *ret_end = NL_BATCH_DONE;
                                return 0;
                        }
                        return e.error < 0 && e.error > -4096 ? e.error : -EPROTO;
                }
                if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
                        r = fn(nlh, nlh->nlmsg_len, data);
                        if (r < 0)
                                return r;
                }
                size_t step = NLMSG_ALIGN(nlh->nlmsg_len);
                if (step > left)
                        step = left;
                p += step;
                left -= step;
        }
        return 0;
}

uint64_t nl_now_ms(void) {
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
                return 0;
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int fd_wait_in(int fd, uint64_t deadline) {
        for (;;) {
                uint64_t now = nl_now_ms();
                if (now >= deadline)
                        return -ETIME;
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint64_t wait = deadline - now;
                int r = poll(&pfd, 1, wait > INT_MAX ? INT_MAX : (int)wait);
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                if (r > 0)
                        return 0;
        }
}

ssize_t fd_read_by(int fd, void *buf, size_t size, uint64_t deadline) {
        size_t got = 0;

        while (got < size) {
                int r = fd_wait_in(fd, deadline);
                if (r < 0)
                        return r;
                ssize_t n = read(fd, (uint8_t *)buf + got, size - got);
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                        return negative_errno();
                if (n == 0)
                        break;
                if (n > 0)
                        got += (size_t)n;
        }
        return (ssize_t)got;
}

/* The next datagram into buf, with its sender in *from: its length, or -ETIME, -EMSGSIZE,
 * -errno */
static ssize_t recv_by(int fd, void *buf, size_t size, uint64_t deadline, struct sockaddr_nl *from,
                       socklen_t *from_len) {
        for (;;) {
                /* the kernel queues its replies while it handles the request: ask first, wait
                 * only when nothing is there yet; past the deadline, even a flood ends */
                if (nl_now_ms() >= deadline)
                        return -ETIME;
                struct iovec iov = { .iov_base = buf, .iov_len = size };
                struct msghdr mh = { .msg_name = from, .msg_namelen = sizeof *from, .msg_iov = &iov, .msg_iovlen = 1 };
                ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
                if (n < 0 && errno == EAGAIN) {
                        int r = fd_wait_in(fd, deadline);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                *from_len = mh.msg_namelen;
                return mh.msg_flags & MSG_TRUNC ? -EMSGSIZE : n;
        }
}

int nl_recv_dump(int fd, uint64_t deadline, nl_batch_fn fn, void *data, size_t *ret_dropped) {
        /* on the stack: no allocation per exchange */
        uint8_t buf[NL_DUMP_BUF_SIZE] __attribute__((aligned(8)));
        size_t bytes = 0, dropped = 0;
        int r = -E2BIG;

        for (size_t n_dgrams = 0; n_dgrams < NL_DUMP_MAX_DATAGRAMS && bytes <= NL_DUMP_MAX_BYTES; n_dgrams++) {
                struct sockaddr_nl from = {};
                socklen_t from_len = 0;
                enum nl_batch_end end = NL_BATCH_MORE;
                ssize_t n = recv_by(fd, buf, sizeof buf, deadline, &from, &from_len);
                if (n < 0) {
                        r = (int)n;
                        break;
                }
                bytes += (size_t)n;
                if (from_len != sizeof from || from.nl_family != AF_NETLINK || from.nl_pid != 0) {
                        dropped++; /* another socket's: a user's forgery in its namespace */
                        continue;
                }
                if (n == 0) {
                        r = -EPROTO;
                        break;
                }
                if ((r = fn(buf, (size_t)n, data, &end)) < 0 || end == NL_BATCH_DONE)
                        break;
                r = -E2BIG;
        }
        if (ret_dropped)
                *ret_dropped = dropped;
        return r;
}
