/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/host/xdpdiag.c: the sock_diag request for AF_XDP and the parsing of its replies, and the
 * RDMA netlink resource dump, fed with messages built here per the kernel's UAPI
 * (<linux/xdp_diag.h>, <linux/sock_diag.h>, <rdma/rdma_netlink.h>) as net/xdp/xsk_diag.c and
 * drivers/infiniband/core/nldev.c build them.  Also the cgroup classification of status.
 */
#include "config.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>
#include <rdma/rdma_netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit.h"
#include "nlmsg.h"
#include "macro.h"
#include "status.h"
#include "xdpdiag.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

/* An AF_XDP socket as xsk_diag_fill() writes it: the fixed part, XDP_DIAG_INFO (with
 * XDP_SHOW_INFO), XDP_DIAG_UID always, XDP_DIAG_UMEM (with XDP_SHOW_UMEM, when it has one). */
static void xsk_msg(struct msg *m, uint32_t seq, uint32_t pid, uint32_t ino, uint32_t uid, bool umem, uint64_t size,
                    uint32_t id, uint32_t refs) {
        struct xdp_diag_msg x = { .xdiag_family = AF_XDP, .xdiag_type = SOCK_RAW, .xdiag_ino = ino,
                                  .xdiag_cookie = { 7, 1 } };
        struct xdp_diag_info info = { .ifindex = 3, .queue_id = 1 };
        struct xdp_diag_umem u = { .size = size, .id = id, .num_pages = (uint32_t)(size / 4096),
                                   .chunk_size = 4096, .refs = refs, .flags = XDP_DU_F_ZEROCOPY };
        msg_begin(m, SOCK_DIAG_BY_FAMILY, seq, pid, &x, sizeof x);
        attr(m, XDP_DIAG_INFO, &info, sizeof info);
        attr(m, XDP_DIAG_UID, &uid, sizeof uid);
        if (umem)
                attr(m, XDP_DIAG_UMEM, &u, sizeof u);
        uint32_t stats[12] = {};
        attr(m, XDP_DIAG_STATS, stats, sizeof stats); /* not asked for: skipped */
        attr(m, 200, stats, 4);                        /* a newer attribute: skipped */
        msg_end(m);
}

static void test_request(void **state) {
        uint8_t buf[XDPDIAG_REQ_SIZE];
        int len = xdpdiag_build_request(buf, sizeof buf, 42);
        const struct nlmsghdr *h = (const void *)buf;
        struct xdp_diag_req req;

        assert_int_equal(len, NLMSG_LENGTH(sizeof req));
        assert_int_equal(h->nlmsg_len, len);
        assert_int_equal(h->nlmsg_type, SOCK_DIAG_BY_FAMILY);
        assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
        assert_int_equal(h->nlmsg_seq, 42);
        memcpy(&req, NLMSG_DATA(h), sizeof req);
        assert_int_equal(req.sdiag_family, AF_XDP);
        assert_int_equal(req.sdiag_protocol, 0);
        assert_int_equal(req.xdiag_ino, 0);
        assert_int_equal(req.xdiag_show, XDP_SHOW_INFO | XDP_SHOW_UMEM);
        assert_int_equal(xdpdiag_build_request(buf, 16, 1), -ENOBUFS);
}

static void test_dump(void **state) {
        struct msg m = {};
        struct xdpdiag_sock *v = NULL;
        size_t n = 0;
        enum nl_batch_end end;

        xsk_msg(&m, 9, 77, 1001, 64001, true, 6u << 20, 5, 1);
        xsk_msg(&m, 9, 77, 1002, 64002, false, 0, 0, 0);
        assert_int_equal(xdpdiag_parse_batch(m.buf, m.len, 9, 77, &v, &n, &end), 0);
        assert_int_equal(end, NL_BATCH_MORE);
        assert_int_equal(n, 2);
        assert_int_equal(v[0].ino, 1001);
        assert_true(v[0].has_uid);
        assert_int_equal(v[0].uid, 64001);
        assert_true(v[0].has_info);
        assert_int_equal(v[0].ifindex, 3);
        assert_int_equal(v[0].queue_id, 1);
        assert_true(v[0].has_umem);
        assert_int_equal(v[0].umem_size, 6u << 20);
        assert_int_equal(v[0].umem_pages, (6u << 20) / 4096);
        assert_int_equal(v[0].umem_id, 5);
        assert_int_equal(v[0].umem_flags, XDP_DU_F_ZEROCOPY);
        assert_int_equal(v[0].cookie, (UINT64_C(1) << 32) | 7);
        assert_false(v[1].has_umem);
        assert_int_equal(v[1].uid, 64002);

        /* the next datagram ends the dump */
        struct msg d = {};
        xsk_msg(&d, 9, 77, 1003, 0, true, 1u << 20, 6, 2);
        msg_done(&d, 9, 77);
        assert_int_equal(xdpdiag_parse_batch(d.buf, d.len, 9, 77, &v, &n, &end), 0);
        assert_int_equal(end, NL_BATCH_DONE);
        assert_int_equal(n, 3);
        assert_int_equal(v[2].umem_refs, 2);
        free(v);
}

static void test_errors(void **state) {
        struct msg m = {};
        struct xdpdiag_sock *v = NULL;
        size_t n = 0;
        enum nl_batch_end end;

        /* what this machine's kernel says: no CONFIG_XDP_SOCKETS_DIAG */
        msg_error(&m, 3, 0, -ENOENT);
        assert_int_equal(xdpdiag_parse_batch(m.buf, m.len, 3, 0, &v, &n, &end), -ENOENT);
        assert_int_equal(n, 0);

        /* another sequence number, another port: not ours */
        m = (struct msg){};
        xsk_msg(&m, 4, 1, 1, 1, true, 4096, 1, 1);
        assert_int_equal(xdpdiag_parse_batch(m.buf, m.len, 5, 1, &v, &n, &end), -ESRCH);
        assert_int_equal(xdpdiag_parse_batch(m.buf, m.len, 4, 2, &v, &n, &end), -ESRCH);

        /* truncated anywhere: refused, never read past the end */
        for (size_t cut = 1; cut < m.len; cut++) {
                size_t before = n;
                int r = xdpdiag_parse_batch(m.buf, cut, 4, 1, &v, &n, &end);
                assert_true(r == -EBADMSG);
                assert_int_equal(n, before);
        }
        /* an attribute longer than its message */
        struct nlmsghdr *h = (void *)m.buf;
        struct nlattr *a = (void *)(m.buf + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct xdp_diag_msg)));
        uint16_t saved = a->nla_len;
        a->nla_len = (uint16_t)(h->nlmsg_len);
        assert_int_equal(xdpdiag_parse_batch(m.buf, m.len, 4, 1, &v, &n, &end), -EBADMSG);
        a->nla_len = saved;
        /* a UMEM attribute too short for struct xdp_diag_umem */
        struct msg s = {};
        struct xdp_diag_msg x = { .xdiag_family = AF_XDP, .xdiag_ino = 9 };
        uint32_t small[2] = {};
        msg_begin(&s, SOCK_DIAG_BY_FAMILY, 1, 0, &x, sizeof x);
        attr(&s, XDP_DIAG_UMEM, small, sizeof small);
        msg_end(&s);
        assert_int_equal(xdpdiag_parse_batch(s.buf, s.len, 1, 0, &v, &n, &end), -EBADMSG);
        /* another family's reply */
        s = (struct msg){};
        x.xdiag_family = AF_INET;
        msg_begin(&s, SOCK_DIAG_BY_FAMILY, 1, 0, &x, sizeof x);
        msg_end(&s);
        assert_int_equal(xdpdiag_parse_batch(s.buf, s.len, 1, 0, &v, &n, &end), -EPROTO);
        free(v);
}

static void test_rdma(void **state) {
        uint8_t buf[RDMANL_REQ_SIZE];
        int len = rdmanl_build_mr_request(buf, sizeof buf, 8, 2);
        const struct nlmsghdr *h = (const void *)buf;
        assert_true(len > 0);
        assert_int_equal(h->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_MR_GET));
        assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
        const struct nlattr *a = (const void *)(buf + NLMSG_HDRLEN);
        assert_int_equal(a->nla_type, RDMA_NLDEV_ATTR_DEV_INDEX);
        uint32_t idx;
        memcpy(&idx, (const uint8_t *)a + NLA_HDRLEN, sizeof idx);
        assert_int_equal(idx, 2);
        len = rdmanl_build_dev_request(buf, sizeof buf, 8);
        assert_int_equal(len, NLMSG_HDRLEN);
        assert_int_equal(h->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));

        /* the device dump */
        struct msg m = {};
        struct rdmanl_dev *devs = NULL;
        struct rdmanl_mr *mrs = NULL;
        size_t nd = 0, nm = 0;
        enum nl_batch_end end;
        uint32_t i2 = 2;
        msg_begin(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), 8, 0, NULL, 0);
        attr(&m, RDMA_NLDEV_ATTR_DEV_INDEX, &i2, sizeof i2);
        attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0", 7);
        msg_end(&m);
        msg_done(&m, 8, 0);
        assert_int_equal(rdmanl_parse_batch(m.buf, m.len, 8, 0, &devs, &nd, NULL, &nm, &end), 0);
        assert_int_equal(end, NL_BATCH_DONE);
        assert_int_equal(nd, 1);
        assert_int_equal(devs[0].index, 2);
        assert_string_equal(devs[0].name, "mlx5_0");

        /* the MR dump of that device: two user MRs and a kernel one */
        m = (struct msg){};
        msg_begin(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_MR_GET), 9, 0, NULL, 0);
        attr(&m, RDMA_NLDEV_ATTR_DEV_INDEX, &i2, sizeof i2);
        size_t t = nest_begin(&m, RDMA_NLDEV_ATTR_RES_MR);
        struct {
                uint32_t pid, mrn;
                uint64_t len;
        } e[] = { { 1234, 1, 1u << 20 }, { 1234, 2, 4096 }, { 0, 3, 65536 } };
        for (size_t k = 0; k < ELEMENTSOF(e); k++) {
                size_t en = nest_begin(&m, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
                attr(&m, RDMA_NLDEV_ATTR_RES_MRN, &e[k].mrn, sizeof e[k].mrn);
                attr(&m, RDMA_NLDEV_ATTR_RES_MRLEN, &e[k].len, sizeof e[k].len);
                if (e[k].pid)
                        attr(&m, RDMA_NLDEV_ATTR_RES_PID, &e[k].pid, sizeof e[k].pid);
                else
                        attr(&m, RDMA_NLDEV_ATTR_RES_KERN_NAME, "nvme_rdma", 10);
                nest_end(&m, en);
        }
        nest_end(&m, t);
        msg_end(&m);
        msg_done(&m, 9, 0);
        assert_int_equal(rdmanl_parse_batch(m.buf, m.len, 9, 0, NULL, &nd, &mrs, &nm, &end), 0);
        assert_int_equal(nm, 3);
        assert_int_equal(mrs[0].pid, 1234);
        assert_int_equal(mrs[0].len, 1u << 20);
        assert_int_equal(mrs[1].mrn, 2);
        assert_int_equal(mrs[2].pid, 0);
        assert_int_equal(mrs[2].dev_index, 2);
        /* truncated: refused */
        for (size_t cut = 1; cut < m.len - NLMSG_LENGTH(sizeof(int)); cut++)
                assert_int_equal(rdmanl_parse_batch(m.buf, cut, 9, 0, NULL, &nd, &mrs, &nm, &end), -EBADMSG);
        /* no RDMA in the namespace: what the kernel answers for an unknown device */
        m = (struct msg){};
        msg_error(&m, 9, 0, -EINVAL);
        assert_int_equal(rdmanl_parse_batch(m.buf, m.len, 9, 0, NULL, &nd, &mrs, &nm, &end), -EINVAL);
        free(devs);
        free(mrs);
}

static void test_cgroup(void **state) {
        static const struct {
                const char *path;
                enum cgroup_origin o;
                const char *name, *owner;
        } cases[] = {
                { "/system.slice/foo.service", CGROUP_O_UNIT, "foo.service", "" },
                { "/system.slice/nginx.service/worker", CGROUP_O_UNIT, "nginx.service", "" },
                { "/user.slice/user-1000.slice/session-3.scope", CGROUP_O_SESSION, "session-3.scope", "" },
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/xdp.service", CGROUP_O_USER_UNIT,
                  "user@1000.service/xdp.service", "" },
                { "/user.slice/user-1001.slice/user@1001.service/app.slice/xdp.service/sub", CGROUP_O_USER_UNIT,
                  "user@1001.service/xdp.service", "" },
                { "/user.slice/user-1000.slice/user@1000.service/init.scope", CGROUP_O_USER_UNIT,
                  "user@1000.service/init.scope", "" },
                /* names below a user's manager are the user's: no container, job or session */
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                  "docker-0123456789abcdef0123456789abcdef.scope", CGROUP_O_USER_UNIT,
                  "user@1000.service/docker-0123456789abcdef0123456789abcdef.scope", "" },
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/job_42/step_0", CGROUP_O_USER_UNIT,
                  "user@1000.service", "" },
                { "/user.slice/user-1000.slice/user@1000.service/session-3.scope", CGROUP_O_USER_UNIT,
                  "user@1000.service/session-3.scope", "" },
                { "/user.slice/user-1000.slice/user@1000.service/kubepods/0123456789abcdef0123456789abcdef",
                  CGROUP_O_USER_UNIT, "user@1000.service", "" },
                { "/system.slice/docker-0123456789abcdef0123456789abcdef.scope", CGROUP_O_DOCKER, "0123456789ab",
                  "docker.service" },
                { "/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", CGROUP_O_DOCKER,
                  "0123456789ab", "docker.service" },
                { "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
                  "cri-containerd-fedcba9876543210fedcba9876543210.scope",
                  CGROUP_O_CONTAINERD, "fedcba987654", "containerd.service" },
                { "/kubepods.slice/kubepods-pod2.slice/crio-aaaabbbbccccddddeeeeffff00001111.scope", CGROUP_O_CRIO,
                  "aaaabbbbcccc", "crio.service" },
                { "/machine.slice/libpod-11112222333344445555666677778888.scope/container", CGROUP_O_PODMAN,
                  "111122223333", "" },
                { "/system.slice/slurmstepd.scope/job_42/step_0/user/task_0", CGROUP_O_SLURM, "job_42/step_0",
                  "slurmd.service" },
                { "/slurm/uid_1000/job_7/step_batch", CGROUP_O_SLURM, "job_7/step_batch", "slurmd.service" },
                { "/", CGROUP_O_INIT, "/", "" },
                { "/some/thing", CGROUP_O_CGROUP, "/some/thing", "" },
                { "", CGROUP_O_UNKNOWN, "", "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char name[256], owner[64];
                enum cgroup_origin o = proc_cgroup_classify(cases[i].path, name, sizeof name, owner, sizeof owner);
                if (o != cases[i].o || strcmp(name, cases[i].name) || strcmp(owner, cases[i].owner))
                        fail_msg("%s: got %s '%s' '%s', expected %s '%s' '%s'", cases[i].path, cgroup_origin_name(o),
                                 name, owner, cgroup_origin_name(cases[i].o), cases[i].name, cases[i].owner);
        }
}

/* A bound NETLINK_SOCK_DIAG socket of this network namespace; its port id in *portid */
static int diag_socket(uint32_t *portid) {
        struct sockaddr_nl a = { .nl_family = AF_NETLINK };
        socklen_t l = sizeof a;
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
        *portid = a.nl_pid;
        return fd;
}

/* Send m from fd to port id to: 0, or -errno (EPERM without CAP_NET_ADMIN) */
static int send_to(int fd, const void *buf, size_t len, uint32_t to) {
        struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_pid = to };
        return sendto(fd, buf, len, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)len ? 0 : -errno;
}

struct xsk_out {
        uint32_t seq, portid;
        struct xdpdiag_sock *v;
        size_t n;
};

static int xsk_batch(const void *buf, size_t len, void *data, enum nl_batch_end *end) {
        struct xsk_out *o = data;
        return xdpdiag_parse_batch(buf, len, o->seq, o->portid, &o->v, &o->n, end);
}

/*
 * nl_recv_dump() reads only the kernel's datagrams: another socket of the namespace (a user's,
 * who holds CAP_NET_ADMIN in a namespace of its own) sends a whole forged dump, with the right
 * sequence number and port id, before the kernel's answer; the forged socket never shows and
 * the kernel's answer is what counts (ENOENT without CONFIG_XDP_SOCKETS_DIAG).  With nothing
 * but forgeries coming, the deadline ends the read.
 */
static void test_forged(void **state) {
        struct xsk_out o = { .seq = 4242 };
        uint32_t forger_port;
        _cleanup_close_ int tool = diag_socket(&o.portid), forger = diag_socket(&forger_port);
        struct msg m = {};
        char req[XDPDIAG_REQ_SIZE];
        size_t dropped = 99;

        xsk_msg(&m, o.seq, o.portid, 31337, 0, true, 64u << 20, 9, 1);
        msg_done(&m, o.seq, o.portid);
        int r = send_to(forger, m.buf, m.len, o.portid);
        if (r == -EPERM)
                skip(); /* no CAP_NET_ADMIN: no forging here either */
        assert_int_equal(r, 0);
        int len = xdpdiag_build_request(req, sizeof req, o.seq);
        assert_true(len > 0);
        assert_int_equal(send_to(tool, req, (size_t)len, 0), 0);
        r = nl_recv_dump(tool, nl_now_ms() + 10000, xsk_batch, &o, &dropped);
        assert_true(r == 0 || r == -ENOENT); /* the kernel's answer */
        assert_int_equal(dropped, 1);
        for (size_t i = 0; i < o.n; i++)
                assert_int_not_equal(o.v[i].ino, 31337);

        /* forgeries only: dropped until the deadline */
        assert_int_equal(send_to(forger, m.buf, m.len, o.portid), 0);
        assert_int_equal(send_to(forger, m.buf, m.len, o.portid), 0);
        assert_int_equal(nl_recv_dump(tool, nl_now_ms() + 300, xsk_batch, &o, &dropped), -ETIME);
        assert_int_equal(dropped, 2);
        for (size_t i = 0; i < o.n; i++)
                assert_int_not_equal(o.v[i].ino, 31337);
        free(o.v);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_request), cmocka_unit_test(test_dump), cmocka_unit_test(test_errors),
          cmocka_unit_test(test_rdma), cmocka_unit_test(test_cgroup), cmocka_unit_test(test_forged))
