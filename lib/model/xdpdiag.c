/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Netlink messages of `status`: sock_diag for AF_XDP and the RDMA resource dump (xdpdiag.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "array.h"
#include "macro.h"
#include "xdpdiag.h"

/* An attribute walk over [p, p + len): each attribute checked against the rest. */
struct nla_iter {
        const uint8_t *p;
        size_t left;
};

/* The next attribute, or NULL at the end; *bad when what is left is malformed. */
static const struct nlattr *nla_next(struct nla_iter *it, bool *bad) {
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

static const void *nla_data(const struct nlattr *a) {
        return (const uint8_t *)a + NLA_HDRLEN;
}

static size_t nla_payload(const struct nlattr *a) {
        return (size_t)a->nla_len - NLA_HDRLEN;
}

static uint16_t nla_type(const struct nlattr *a) {
        return a->nla_type & NLA_TYPE_MASK;
}

static struct nla_iter nla_iter_nested(const struct nlattr *a) {
        return (struct nla_iter){ .p = nla_data(a), .left = nla_payload(a) };
}

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
static int nla_parse(struct nla_iter it, const struct nla_want *want, size_t n) {
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
static int put_request(void *buf, size_t size, uint16_t type, uint16_t flags, uint32_t seq, const void *body,
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

int xdpdiag_build_request(void *buf, size_t size, uint32_t seq) {
        struct xdp_diag_req req = {
                .sdiag_family = AF_XDP,
                .sdiag_protocol = 0,
                .xdiag_ino = 0,
                .xdiag_show = XDP_SHOW_INFO | XDP_SHOW_UMEM,
                .xdiag_cookie = { UINT32_MAX, UINT32_MAX }, /* INET_DIAG_NOCOOKIE: not asked */
        };
        return put_request(buf, size, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, &req, sizeof req);
}

int xdpdiag_parse_msg(const struct nlmsghdr *nlh, size_t len, struct xdpdiag_sock *ret) {
        struct xdpdiag_sock s = {};
        struct xdp_diag_msg msg;
        struct xdp_diag_info info = {};
        struct xdp_diag_umem u = {};
        const struct nla_want want[] = { /* the others: rings, meminfo, stats, newer attributes */
                { XDP_DIAG_UID, &s.uid, sizeof s.uid, &s.has_uid },
                { XDP_DIAG_INFO, &info, sizeof info, &s.has_info },
                { XDP_DIAG_UMEM, &u, sizeof u, &s.has_umem },
        };

        if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
                return -EBADMSG;
        if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
                return -EPROTO;
        size_t payload = nlh->nlmsg_len - NLMSG_HDRLEN;
        if (payload < sizeof msg)
                return -EBADMSG;
        memcpy(&msg, NLMSG_DATA(nlh), sizeof msg);
        if (msg.xdiag_family != AF_XDP)
                return -EPROTO;
        s.ino = msg.xdiag_ino;
        s.cookie = (uint64_t)msg.xdiag_cookie[1] << 32 | msg.xdiag_cookie[0];

        size_t off = NLMSG_ALIGN(sizeof msg);
        struct nla_iter it = { .p = (const uint8_t *)NLMSG_DATA(nlh) + (off < payload ? off : payload),
                               .left = off < payload ? payload - off : 0 };
        if (nla_parse(it, want, ELEMENTSOF(want)) < 0)
                return -EBADMSG;
        s.ifindex = info.ifindex; /* 0/0 (and the UMEM's fields 0) when absent */
        s.queue_id = info.queue_id;
        s.umem_size = u.size;
        s.umem_id = u.id;
        s.umem_pages = u.num_pages;
        s.umem_refs = u.refs;
        s.umem_flags = u.flags;
        *ret = s;
        return 0;
}

/* Walk the messages of one datagram; fn for each data message. */
static int parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, enum nl_batch_end *ret_end,
                       int (*fn)(const struct nlmsghdr *nlh, size_t len, void *data), void *data) {
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

struct xsk_acc {
        struct xdpdiag_sock **v;
        size_t *n;
};

static int xsk_one(const struct nlmsghdr *nlh, size_t len, void *data) {
        struct xsk_acc *acc = data;
        struct xdpdiag_sock s;
        int r = xdpdiag_parse_msg(nlh, len, &s);
        if (r < 0)
                return r;
        return array_append((void **)acc->v, acc->n, sizeof s, &s, 16);
}

int xdpdiag_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, struct xdpdiag_sock **v,
                        size_t *n, enum nl_batch_end *ret_end) {
        struct xsk_acc acc = { v, n };
        return parse_batch(buf, len, seq, portid, ret_end, xsk_one, &acc);
}

/* ---------------------------------------------------------------------------------------
 * RDMA netlink */

static int put_u32_attr(void *buf, size_t size, int len, uint16_t type, uint32_t v) {
        struct nlmsghdr *nlh = buf;
        size_t at = NLMSG_ALIGN((size_t)len);
        if (size < at + NLA_HDRLEN + NLA_ALIGN(sizeof v))
                return -ENOBUFS;
        struct nlattr *a = (void *)((uint8_t *)buf + at);
        a->nla_len = NLA_HDRLEN + sizeof v;
        a->nla_type = type;
        memcpy((uint8_t *)a + NLA_HDRLEN, &v, sizeof v);
        nlh->nlmsg_len = (uint32_t)(at + NLA_HDRLEN + sizeof v);
        return (int)nlh->nlmsg_len;
}

int rdmanl_build_dev_request(void *buf, size_t size, uint32_t seq) {
        return put_request(buf, size, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
                           NLM_F_REQUEST | NLM_F_DUMP, seq, NULL, 0);
}

int rdmanl_build_mr_request(void *buf, size_t size, uint32_t seq, uint32_t dev_index) {
        int r = put_request(buf, size, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_MR_GET),
                            NLM_F_REQUEST | NLM_F_DUMP, seq, NULL, 0);
        if (r < 0)
                return r;
        return put_u32_attr(buf, size, r, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
}

struct rdma_acc {
        struct rdmanl_dev **devs;
        size_t *n_devs;
        struct rdmanl_mr **mrs;
        size_t *n_mrs;
};

static int mr_entry(const struct nlattr *entry, uint32_t dev_index, struct rdma_acc *acc) {
        struct rdmanl_mr mr = { .dev_index = dev_index };
        bool have_len = false;
        const struct nla_want want[] = {
                { RDMA_NLDEV_ATTR_RES_MRLEN, &mr.len, sizeof mr.len, &have_len },
                { RDMA_NLDEV_ATTR_RES_PID, &mr.pid, sizeof mr.pid, NULL },
                { RDMA_NLDEV_ATTR_RES_MRN, &mr.mrn, sizeof mr.mrn, NULL },
        };
        int r = nla_parse(nla_iter_nested(entry), want, ELEMENTSOF(want));

        if (r < 0 || !have_len || !acc->mrs)
                return r;
        return array_append((void **)acc->mrs, acc->n_mrs, sizeof mr, &mr, 16);
}

static int rdma_one(const struct nlmsghdr *nlh, size_t len, void *data) {
        struct rdma_acc *acc = data;
        struct nla_iter it = { .p = (const uint8_t *)nlh + NLMSG_HDRLEN, .left = len - NLMSG_HDRLEN };
        struct rdmanl_dev dev = {};
        const struct nlattr *a, *name = NULL, *mr_table = NULL;
        bool bad = false, have_index = false;
        const struct nla_want want[] = {
                { RDMA_NLDEV_ATTR_DEV_INDEX, &dev.index, sizeof dev.index, &have_index },
                { RDMA_NLDEV_ATTR_DEV_NAME, &name, 0, NULL },
                { RDMA_NLDEV_ATTR_RES_MR, &mr_table, 0, NULL },
        };
        int r = nla_parse(it, want, ELEMENTSOF(want));

        if (r < 0)
                return r;
        if (name)
                snprintf(dev.name, sizeof dev.name, "%.*s", (int)nla_payload(name),
                         (const char *)nla_data(name));
        if (mr_table) {
                struct nla_iter t = nla_iter_nested(mr_table);
                while ((a = nla_next(&t, &bad)))
                        if (nla_type(a) == RDMA_NLDEV_ATTR_RES_MR_ENTRY && (r = mr_entry(a, dev.index, acc)) < 0)
                                return r;
                return bad ? -EBADMSG : 0;
        }
        if (have_index && acc->devs)
                return array_append((void **)acc->devs, acc->n_devs, sizeof dev, &dev, 16);
        return 0;
}

int rdmanl_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, struct rdmanl_dev **devs,
                       size_t *n_devs, struct rdmanl_mr **mrs, size_t *n_mrs, enum nl_batch_end *ret_end) {
        struct rdma_acc acc = { devs, n_devs, mrs, n_mrs };
        return parse_batch(buf, len, seq, portid, ret_end, rdma_one, &acc);
}

/* ---------------------------------------------------------------------------------------
 * Receiving a dump */

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

/* The next datagram into buf, with its sender in *from: its length, or -ETIME, -EMSGSIZE,
 * -errno */
static ssize_t recv_by(int fd, void *buf, size_t size, uint64_t deadline, struct sockaddr_nl *from,
                       socklen_t *from_len) {
        for (;;) {
                int r = fd_wait_in(fd, deadline);
                if (r < 0)
                        return r;
                struct iovec iov = { .iov_base = buf, .iov_len = size };
                struct msghdr mh = { .msg_name = from, .msg_namelen = sizeof *from, .msg_iov = &iov, .msg_iovlen = 1 };
                ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n < 0)
                        return negative_errno();
                *from_len = mh.msg_namelen;
                return mh.msg_flags & MSG_TRUNC ? -EMSGSIZE : n;
        }
}

int nl_recv_dump(int fd, uint64_t deadline, nl_batch_fn fn, void *data, size_t *ret_dropped) {
        _cleanup_free_ uint8_t *buf = malloc(NL_DUMP_BUF_SIZE);
        size_t bytes = 0, dropped = 0;
        int r = -E2BIG;

        if (!buf)
                return -ENOMEM;
        for (size_t n_dgrams = 0; n_dgrams < NL_DUMP_MAX_DATAGRAMS && bytes <= NL_DUMP_MAX_BYTES; n_dgrams++) {
                struct sockaddr_nl from = {};
                socklen_t from_len = 0;
                enum nl_batch_end end = NL_BATCH_MORE;
                ssize_t n = recv_by(fd, buf, NL_DUMP_BUF_SIZE, deadline, &from, &from_len);
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
