/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Netlink messages of `status`: sock_diag for AF_XDP and the RDMA resource dump (xdpdiag.h). */
#include "config.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "array.h"
#include "macro.h"
#include "netlink.h"
#include "xdpdiag.h"

int xdpdiag_build_request(void *buf, size_t size, uint32_t seq) {
        struct xdp_diag_req req = {
                .sdiag_family = AF_XDP,
                .sdiag_protocol = 0,
                .xdiag_ino = 0,
                .xdiag_show = XDP_SHOW_INFO | XDP_SHOW_UMEM,
                .xdiag_cookie = { UINT32_MAX, UINT32_MAX }, /* INET_DIAG_NOCOOKIE: not asked */
        };
        return nl_put_request(buf, size, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, &req, sizeof req);
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
        return nl_parse_batch(buf, len, seq, portid, ret_end, xsk_one, &acc);
}

/* ---------------------------------------------------------------------------------------
 * RDMA netlink */

int rdmanl_build_dev_request(void *buf, size_t size, uint32_t seq) {
        return nl_put_request(buf, size, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
                           NLM_F_REQUEST | NLM_F_DUMP, seq, NULL, 0);
}

int rdmanl_build_mr_request(void *buf, size_t size, uint32_t seq, uint32_t dev_index) {
        int r = nl_put_request(buf, size, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_MR_GET),
                            NLM_F_REQUEST | NLM_F_DUMP, seq, NULL, 0);
        return nl_put_attr(buf, size, r, RDMA_NLDEV_ATTR_DEV_INDEX, &dev_index, sizeof dev_index);
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
        return nl_parse_batch(buf, len, seq, portid, ret_end, rdma_one, &acc);
}

