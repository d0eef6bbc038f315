/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The netlink messages `status` exchanges with the kernel, as pure functions over byte
 * buffers (lib/status/status.c opens the sockets and sends, tests feed messages built per the
 * UAPI headers), and the one reader of the replies off a socket, nl_recv_dump():
 *
 *   - sock_diag for AF_XDP (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY, struct xdp_diag_req of
 *     <linux/xdp_diag.h>): every AF_XDP socket of the network namespace with its inode, owner
 *     uid, interface and queue, and its UMEM (size, pages, id, references).  Needs
 *     CONFIG_XDP_SOCKETS_DIAG; without it the kernel answers ENOENT.
 *   - the RDMA netlink resource dump (NETLINK_RDMA, RDMA_NLDEV_CMD_GET for the devices, then
 *     RDMA_NLDEV_CMD_RES_MR_GET per device, <rdma/rdma_netlink.h>): every memory region with
 *     its length and the pid that registered it.
 *
 * Parsers validate every length against the buffer; a truncated or malformed message is
 * -EBADMSG, never a read past the end.  Unknown attributes are skipped (newer kernels).
 *
 * nl_recv_dump() is the one reader of the replies off a socket.  status asks in the network
 * namespaces of users' processes, where the user may hold CAP_NET_ADMIN and so may send to
 * any netlink socket of the namespace, root's included, with the sequence number and port id
 * it guesses: only datagrams whose sender address is the kernel's (port id 0) are read.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink.h"

struct nlmsghdr;

/* One AF_XDP socket as sock_diag reports it. */
struct xdpdiag_sock {
        uint32_t ino;                    /* the socket's inode: /proc/PID/fd/N -> socket:[ino] */
        uint64_t cookie;
        bool has_uid;
        uint32_t uid;                    /* the socket's owner (XDP_DIAG_UID) */
        bool has_info;
        uint32_t ifindex, queue_id;      /* XDP_DIAG_INFO: 0/0 when not bound */
        bool has_umem;
        uint64_t umem_size;              /* bytes registered (XDP_DIAG_UMEM) */
        uint32_t umem_id;                /* shared UMEMs have one id */
        uint32_t umem_pages;             /* pages charged to the registering user's locked_vm */
        uint32_t umem_refs;
        uint32_t umem_flags;             /* XDP_DU_F_ZEROCOPY */
};

/* The request: a dump of every AF_XDP socket with XDP_SHOW_INFO | XDP_SHOW_UMEM.  Writes
 * the message into buf (at least XDPDIAG_REQ_SIZE bytes); returns its length, or -ENOBUFS. */
#define XDPDIAG_REQ_SIZE 64
int xdpdiag_build_request(void *buf, size_t size, uint32_t seq);

/* One SOCK_DIAG_BY_FAMILY reply message -> *ret.  -EBADMSG when malformed, -EPROTO when it is
 * not an AF_XDP reply. */
int xdpdiag_parse_msg(const struct nlmsghdr *nlh, size_t len, struct xdpdiag_sock *ret);


/*
 * A received datagram of the dump: each message checked (length, sequence number seq and,
 * when portid is not 0, the port id), the sockets appended to *v (*n entries, realloc()ed).
 * An NLMSG_ERROR message returns its error (negative errno: -ENOENT is "no
 * CONFIG_XDP_SOCKETS_DIAG"); an NLMSG_DONE sets *ret_end = NL_BATCH_DONE.
 */
int xdpdiag_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, struct xdpdiag_sock **v,
                        size_t *n, enum nl_batch_end *ret_end);

/* ---------------------------------------------------------------------------------------
 * RDMA netlink (nldev) */

struct rdmanl_dev {
        uint32_t index;
        char name[64];
};

struct rdmanl_mr {
        uint32_t dev_index;
        uint32_t pid;                    /* 0: a kernel MR (RDMA_NLDEV_ATTR_RES_KERN_NAME) */
        uint32_t mrn;
        uint64_t len;
};

/* RDMA_NLDEV_CMD_GET dump, and RDMA_NLDEV_CMD_RES_MR_GET dump of one device.  Return the
 * message length, or -ENOBUFS (buf needs RDMANL_REQ_SIZE bytes). */
#define RDMANL_REQ_SIZE 64
int rdmanl_build_dev_request(void *buf, size_t size, uint32_t seq);
int rdmanl_build_mr_request(void *buf, size_t size, uint32_t seq, uint32_t dev_index);

/* A received datagram of either dump: devices appended to *devs (when devs is not NULL), MRs
 * to *mrs (when mrs is not NULL).  Errors, NLMSG_DONE and checks as xdpdiag_parse_batch(). */
int rdmanl_parse_batch(const void *buf, size_t len, uint32_t seq, uint32_t portid, struct rdmanl_dev **devs,
                       size_t *n_devs, struct rdmanl_mr **mrs, size_t *n_mrs, enum nl_batch_end *ret_end);

