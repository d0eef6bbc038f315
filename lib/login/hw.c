/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#ifdef ENABLE_XDP
#include <linux/genetlink.h>
#include <linux/netlink.h>
#endif

#ifdef HAVE_LINUX_NETDEV_H
#include <linux/netdev.h>
#else
/* include/uapi/linux/netdev.h (Linux 6.3+), for older kernel headers */
#define NETDEV_FAMILY_NAME "netdev"
#define NETDEV_FAMILY_VERSION 1
enum {
        NETDEV_A_DEV_IFINDEX = 1,
        NETDEV_A_DEV_PAD,
        NETDEV_A_DEV_XDP_FEATURES,
};
enum {
        NETDEV_CMD_DEV_GET = 1,
};
#endif
/* The queue dump (Linux 6.8+): named apart from <linux/netdev.h>, whose 6.3 to 6.7 copies
 * lack it.  Values of include/uapi/linux/netdev.h. */
#define HW_NETDEV_CMD_QUEUE_GET 10
#define HW_NETDEV_A_QUEUE_IFINDEX 2
#define HW_NETDEV_A_QUEUE_TYPE 3
#define HW_NETDEV_QUEUE_TYPE_RX 0

#include "array.h"
#include "netlink.h"
#include "hw.h"
#include "macro.h"
#include "size.h"

/* hw_read_line() relative to a directory: a walk opens each directory once */
static int read_line_at(int dirfd, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = -1;
        ssize_t n;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, size - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

int hw_read_line(const char *path, char *buf, size_t size) {
        return read_line_at(AT_FDCWD, path, buf, size);
}

/* The entries of the open directory fd, from where its offset is; fn returning > 0 stops. */
static int each_entry(int fd, int (*fn)(const char *name, ino_t ino, void *data), void *data) {
        char buf[8192] __attribute__((aligned(8)));

        for (;;) {
                ssize_t n = getdents64(fd, buf, sizeof buf);
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        return 0;
                for (ssize_t off = 0; off < n;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                                continue;
                        int r = fn(de->d_name, de->d_ino, data);
                        if (r != 0)
                                return r < 0 ? r : 0;
                }
        }
}

int hw_for_each_entry(const char *path, int (*fn)(const char *name, ino_t ino, void *data), void *data) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return negative_errno();
        return each_entry(fd, fn, data);
}

/* "4: ACTIVE", "1: CA": the number before the colon */
static int read_sysfs_enum(int dirfd, const char *path, int *ret) {
        char buf[64], *colon;
        unsigned v;
        int r = read_line_at(dirfd, path, buf, sizeof buf);

        if (r < 0)
                return r;
        colon = strchr(buf, ':');
        if (colon)
                *colon = '\0';
        if (parse_u32(buf, &v) < 0 || v > 255)
                return -EBADMSG;
        *ret = (int)v;
        return 0;
}

/* ---------------------------------------------------------------------------------------
 * RDMA: /sys/class/infiniband/DEV/{node_type, ports/N/state, ports/N/link_layer}.  This is
 * all `auto` needs and all a login reads; the ibverbs attributes come from lib/host/hw-verbs.c.
 */
#define SYS_INFINIBAND "/sys/class/infiniband"

static int cmp_uint(const void *a, const void *b) {
        unsigned x = ((const struct hw_port *)a)->num, y = ((const struct hw_port *)b)->num;
        return x < y ? -1 : x > y;
}

static int cmp_dev(const void *a, const void *b) {
        return strcmp(((const struct hw_rdma_dev *)a)->name, ((const struct hw_rdma_dev *)b)->name);
}

/* One walk of /sys/class/infiniband: every open is relative to the directory it reads. */
struct rdma_walk {
        struct hw_summary *s;
        struct hw_rdma_dev *d;      /* the device whose ports are read */
        int fd;                     /* /sys/class/infiniband, then DEV/ports */
        bool brief;                 /* port states only (HW_COUNTS) */
        size_t total_ports;
};

static int rdma_port(const char *name, ino_t ino, void *data) {
        struct rdma_walk *w = data;
        struct hw_rdma_dev *d = w->d;
        char path[32], ll[32];
        unsigned num;

        (void)ino;
        if (parse_u32(name, &num) < 0 || num == 0 || num > HW_MAX_PORTS)
                return 0;
        if (d->n_ports >= HW_MAX_PORTS || w->total_ports >= HW_MAX_PORTS_TOTAL)
                return 1;
        if (GROW_EXACT(d->ports, d->n_ports + 1) < 0)
                return -ENOMEM;
        struct hw_port *p = &d->ports[d->n_ports++];
        w->total_ports++;
        *p = (struct hw_port){ .num = num };
        snprintf(path, sizeof path, "%u/state", num);
        p->query_error = read_sysfs_enum(w->fd, path, &p->state);
        if (w->brief)
                return 0;
        snprintf(path, sizeof path, "%u/link_layer", num);
        if (read_line_at(w->fd, path, ll, sizeof ll) == 0)
                p->link_layer = streq(ll, "InfiniBand") ? 1 : streq(ll, "Ethernet") ? 2 : 0;
        return 0;
}

static int rdma_dev(const char *name, ino_t ino, void *data) {
        struct rdma_walk *w = data;
        struct hw_summary *s = w->s;
        char path[sizeof(s->rdma[0].name) + 16];
        int r;

        (void)ino;
        if (name[0] == '.' || strlen(name) >= sizeof(s->rdma[0].name))
                return 0;
        if (s->n_rdma >= HW_MAX_RDMA_DEVICES)
                return 1;
        if (GROW_EXACT(s->rdma, s->n_rdma + 1) < 0)
                return -ENOMEM;
        struct hw_rdma_dev *d = &s->rdma[s->n_rdma++];
        *d = (struct hw_rdma_dev){ .verbs_error = -ENODATA };
        snprintf(d->name, sizeof d->name, "%s", name);
        if (!w->brief) {
                snprintf(path, sizeof path, "%s/node_type", name);
                d->query_error = read_sysfs_enum(w->fd, path, &d->node_type);
        }
        snprintf(path, sizeof path, "%s/ports", name);
        struct rdma_walk ports = { .s = s, .d = d, .brief = w->brief, .total_ports = w->total_ports };
        ports.fd = openat(w->fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (ports.fd < 0) {
                d->query_error = negative_errno();
                return 0;
        }
        r = each_entry(ports.fd, rdma_port, &ports);
        close(ports.fd);
        w->total_ports = ports.total_ports;
        if (r == -ENOMEM)
                return r;
        if (r < 0 && !d->query_error)
                d->query_error = r;
        if (d->n_ports > 1)
                qsort(d->ports, d->n_ports, sizeof(*d->ports), cmp_uint);
        return 0;
}

/* Returns -ENOMEM only; everything else is recorded in s->rdma_status. */
static int probe_rdma(struct hw_summary *s, bool brief) {
        struct rdma_walk w = { .s = s, .brief = brief };
        int r;

        w.fd = open(SYS_INFINIBAND, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (w.fd < 0) {
                /* no RDMA device, or no RDMA support in the kernel: nothing to count */
                s->rdma_status = errno == ENOENT ? 0 : negative_errno();
                return 0;
        }
        r = each_entry(w.fd, rdma_dev, &w);
        close(w.fd);
        if (r == -ENOMEM)
                return r;
        if (s->n_rdma > 1)
                qsort(s->rdma, s->n_rdma, sizeof(*s->rdma), cmp_dev);
        s->rdma_status = r < 0 ? r : 0;
        return 0;
}

/* ---------------------------------------------------------------------------------------
 * Which interfaces count.
 */
/* a name an interface can have, and a single path component */
static bool if_name_ok(const char *name) {
        return *name && strlen(name) < IF_NAMESIZE && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..");
}

bool hw_if_physical(const char *name) {
        char path[IF_NAMESIZE + 32];
        struct stat st;

        if (!if_name_ok(name))
                return false;
        snprintf(path, sizeof path, "/sys/class/net/%s/device", name);
        return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

#define SYS_VIRTUAL_NET "/sys/devices/virtual/net"

static int cmp_ifname(const void *a, const void *b) {
        return strcmp(a, b);
}

static int add_virt(const char *name, ino_t ino, void *data) {
        struct hw_physmap *m = data;

        (void)ino;
        if (!if_name_ok(name))
                return 0;
        if (m->n_virt >= HW_PHYSMAP_MAX)
                return 1;      /* the rest: hw_if_physical() */
        if (GROW(m->virt, m->allocated, m->n_virt + 1) < 0)
                return -ENOMEM;
        memcpy(m->virt[m->n_virt++], name, strlen(name) + 1);
        return 0;
}

/* The listing of /sys/devices/virtual/net; whatever fails leaves fewer names listed, which
 * only sends more of them to hw_if_physical(). */
static void physmap_list(struct hw_physmap *m) {
        m->listed = true;
        m->virt_fd = open(SYS_VIRTUAL_NET, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (m->virt_fd < 0)
                return;
        if (each_entry(m->virt_fd, add_virt, m) == -ENOMEM) {
                free(m->virt);
                m->virt = NULL;
                m->n_virt = m->allocated = 0;
                return;
        }
        if (m->n_virt > 1)
                qsort(m->virt, m->n_virt, sizeof(*m->virt), cmp_ifname);
}

/*
 * Does NAME have a `device` link?  Listed names are looked up in the directory
 * /sys/class/net/NAME points to (no link to walk), the others through /sys/class/net.  With
 * ret_dfd, the interface's directory is opened too when it has one (*ret_dfd -1 when that
 * fails): for a listed name after the lookup (most are virtual, and need no open), for another
 * before it (one walk through the link).
 */
static bool physmap_device(struct hw_physmap *m, const char *name, int *ret_dfd) {
        char dir[IF_NAMESIZE + 16];
        struct stat st;

        if (!if_name_ok(name))
                return false;
        if (!m->listed)
                physmap_list(m);
        if (m->n_virt > 0 && bsearch(name, m->virt, m->n_virt, sizeof(*m->virt), cmp_ifname)) {
                char path[IF_NAMESIZE + 8];
                snprintf(path, sizeof path, "%s/device", name);
                if (fstatat(m->virt_fd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return false;
                if (ret_dfd)
                        *ret_dfd = openat(m->virt_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                return true;
        }
        if (!ret_dfd)
                return hw_if_physical(name);
        snprintf(dir, sizeof dir, "/sys/class/net/%s", name);
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fstatat(dfd, "device", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        *ret_dfd = TAKE_FD(dfd);
        return true;
}

bool hw_physmap_is_physical(struct hw_physmap *m, const char *name) {
        return physmap_device(m, name, NULL);
}

/* sysfs's interface directory dfd is the interface ifindex of the namespace of fd: the same
 * ifindex, the same hardware address (sysfs prints addr_len bytes "xx:..."; SIOCGIFHWADDR
 * gives at most 14) */
static bool sysfs_shows_here(int dfd, int fd, const char *name, unsigned ifindex) {
        char buf[128], hex[4];
        struct ifreq ifr = {};
        unsigned idx;

        if (read_line_at(dfd, "ifindex", buf, sizeof buf) < 0 || parse_u32(buf, &idx) < 0 || idx != ifindex)
                return false;
        memcpy(ifr.ifr_name, name, strlen(name) + 1);
        if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 || read_line_at(dfd, "address", buf, sizeof buf) < 0)
                return false;
        for (size_t i = 0; i < (strlen(buf) + 1) / 3 && i < sizeof ifr.ifr_hwaddr.sa_data; i++) {
                snprintf(hex, sizeof hex, "%02x", (unsigned char)ifr.ifr_hwaddr.sa_data[i]);
                if (memcmp(buf + 3 * i, hex, 2) != 0)
                        return false;
        }
        return true;
}

bool hw_physmap_is_physical_here(struct hw_physmap *m, int fd, const char *name, unsigned ifindex) {
        _cleanup_close_ int dfd = -1;

        if (m->here != 0)
                return m->here > 0 && hw_physmap_is_physical(m, name);
        if (!physmap_device(m, name, &dfd) || dfd < 0)
                return false;
        m->here = sysfs_shows_here(dfd, fd, name, ifindex) ? 1 : -1;
        return m->here > 0;
}

void hw_physmap_done(struct hw_physmap *m) {
        if (m->virt_fd >= 0)
                close(m->virt_fd);
        free(m->virt);
        *m = (struct hw_physmap)HW_PHYSMAP_INIT;
}

static bool matches_any(char *const *patterns, const char *name) {
        for (char *const *p = patterns; p && *p; p++)
                if (fnmatch(*p, name, 0) == 0)
                        return true;
        return false;
}

bool hw_netsel_counts(const struct hw_netsel *sel, const char *name, bool physical) {
        if (sel && matches_any(sel->exclude, name))
                return false;
        return physical || (sel && matches_any(sel->include, name));
}

/* ---------------------------------------------------------------------------------------
 * AF_XDP: the netdev generic netlink family, RX queues from sysfs.
 *
 * Netlink is spoken without a library (netlink.h): a live probe maps nothing more than the
 * module, and a login that reads the hardware cache, or needs no "auto" at all, opens no
 * netlink socket (the cache's fingerprint asks a datagram socket for its network namespace's
 * cookie).  --disable-xdp builds without the AF_XDP probe.
 */
#ifdef ENABLE_XDP
/* Replies wait for nothing a user holds, but are bounded all the same. */
#define NL_PROBE_TIMEOUT_MS 2000

/* An open generic netlink socket. */
struct genl {
        int fd;
        uint32_t portid, seq;
};

static void genl_close(struct genl *g) {
        if (g->fd >= 0)
                close(g->fd);
        g->fd = -1;
}

/* One request (len bytes of buf) and its replies, each data message to fn.  A request that is
 * not a dump and asks no ACK has one reply: it ends the exchange (one recvmsg() less). */
struct transact {
        struct genl *g;
        nl_msg_fn fn;
        void *data;
        bool single;
        size_t seen;
};

static int seen_msg(const struct nlmsghdr *nlh, size_t len, void *data) {
        struct transact *t = data;
        t->seen++;
        return t->fn(nlh, len, t->data);
}

static int transact_batch(const void *buf, size_t len, void *data, enum nl_batch_end *ret_end) {
        struct transact *t = data;
        int r = nl_parse_batch(buf, len, t->g->seq, t->g->portid, ret_end, seen_msg, t);
        if (r >= 0 && t->single && t->seen > 0)
                *ret_end = NL_BATCH_DONE;
        return r;
}

static int genl_transact(struct genl *g, const void *req, size_t len, nl_msg_fn fn, void *data) {
        const struct nlmsghdr *h = req;
        struct transact t = { g, fn, data, !(h->nlmsg_flags & (NLM_F_DUMP | NLM_F_ACK)), 0 };
        int r = nl_send(g->fd, req, len);
        if (r < 0)
                return r;
        return nl_recv_dump(g->fd, nl_now_ms() + NL_PROBE_TIMEOUT_MS, transact_batch, &t, NULL);
}

/* A generic netlink request into buf: header, genlmsghdr, and a string attribute when name. */
static int genl_request(void *buf, size_t size, uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd,
                        uint8_t version, uint16_t attr, const char *name) {
        struct genlmsghdr gh = { .cmd = cmd, .version = version };
        int len = nl_put_request(buf, size, type, flags, seq, &gh, sizeof gh);
        return name ? nl_put_attr(buf, size, len, attr, name, strlen(name) + 1) : len;
}

/* The attributes of a generic netlink message, after its genlmsghdr. */
static struct nla_iter genl_attrs(const struct nlmsghdr *nlh) {
        size_t payload = nlh->nlmsg_len - NLMSG_HDRLEN, off = NLMSG_ALIGN(sizeof(struct genlmsghdr));
        return (struct nla_iter){ .p = (const uint8_t *)NLMSG_DATA(nlh) + (off < payload ? off : payload),
                                  .left = off < payload ? payload - off : 0 };
}

static int family_msg(const struct nlmsghdr *nlh, size_t len, void *data) {
        uint16_t *id = data;
        const struct nla_want want[] = { { CTRL_ATTR_FAMILY_ID, id, sizeof *id, NULL } };
        (void)len;
        if (nlh->nlmsg_type != GENL_ID_CTRL)
                return 0;
        return nla_parse(genl_attrs(nlh), want, ELEMENTSOF(want));
}

/* -ENOENT when the kernel has no such family. */
static int genl_family_id(struct genl *g, const char *name, uint16_t *ret) {
        uint8_t buf[NLMSG_HDRLEN + 64];
        uint16_t id = 0;
        int len = genl_request(buf, sizeof buf, GENL_ID_CTRL, NLM_F_REQUEST, ++g->seq,
                               CTRL_CMD_GETFAMILY, 1, CTRL_ATTR_FAMILY_NAME, name);
        if (len < 0)
                return len;
        int r = genl_transact(g, buf, (size_t)len, family_msg, &id);
        if (r < 0)
                return r;
        if (id == 0)
                return -EPROTO;
        *ret = id;
        return 0;
}

struct xdp_dump {
        uint16_t family;
        struct hw_xdp_if *ifs;
        size_t n, allocated;
};

static int dev_msg(const struct nlmsghdr *nlh, size_t len, void *data) {
        struct xdp_dump *d = data;
        uint32_t ifindex;
        uint64_t features = 0;
        bool has_index = false, has_features = false;
        const struct nla_want want[] = {
                { NETDEV_A_DEV_IFINDEX, &ifindex, sizeof ifindex, &has_index },
                { NETDEV_A_DEV_XDP_FEATURES, &features, sizeof features, &has_features },
        };
        (void)len;
        if (nlh->nlmsg_type != d->family)
                return 0;
        if (nla_parse(genl_attrs(nlh), want, ELEMENTSOF(want)) < 0)
                return -EBADMSG;
        if (!has_index || !has_features || features == 0)
                return 0;
        if (GROW(d->ifs, d->allocated, d->n + 1) < 0)
                return -ENOMEM;
        d->ifs[d->n++] = (struct hw_xdp_if){ .ifindex = ifindex, .xdp_features = features,
                                             .zero_copy = features & HW_XDP_XSK_ZEROCOPY };
        return 0;
}
#endif /* ENABLE_XDP */

static int count_rx(const char *name, ino_t ino, void *data) {
        *(unsigned *)data += strncmp(name, "rx-", 3) == 0;
        return 0;
}

/* /sys/class/net/NAME/queues, open: a descriptor or -errno */
static int open_queues(const char *name) {
        char path[128];

        snprintf(path, sizeof(path), "/sys/class/net/%s/queues", name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

int hw_rx_queue_entries(const char *name, unsigned *ret) {
        _cleanup_close_ int fd = open_queues(name);

        *ret = 0;
        return fd < 0 ? fd : each_entry(fd, count_rx, ret);
}

unsigned hw_count_rx_queues(const char *name, unsigned ifindex) {
        _cleanup_close_ int fd = open_queues(name);
        char buf[32];
        unsigned idx, n = 0;

        /* the ifindex of the interface these queues belong to, read beside them: the same
         * directory whatever the name means meanwhile, and one walk through the class link */
        if (fd < 0 || read_line_at(fd, "../ifindex", buf, sizeof(buf)) < 0 || parse_u32(buf, &idx) < 0 ||
            idx != ifindex)
                return 0;
        /* a read error part way counts what was read */
        (void)each_entry(fd, count_rx, &n);
        return n;
}

#ifdef ENABLE_XDP
struct queue_dump {
        uint16_t family;
        uint32_t ifindex;
        unsigned rx;
};

static int queue_msg(const struct nlmsghdr *nlh, size_t len, void *data) {
        struct queue_dump *q = data;
        uint32_t ifindex = 0, type = 0;
        bool has_index = false, has_type = false;
        const struct nla_want want[] = {
                { HW_NETDEV_A_QUEUE_IFINDEX, &ifindex, sizeof ifindex, &has_index },
                { HW_NETDEV_A_QUEUE_TYPE, &type, sizeof type, &has_type },
        };
        (void)len;
        if (nlh->nlmsg_type != q->family || nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
            ((const struct genlmsghdr *)NLMSG_DATA(nlh))->cmd != HW_NETDEV_CMD_QUEUE_GET)
                return 0;
        if (nla_parse(genl_attrs(nlh), want, ELEMENTSOF(want)) < 0)
                return -EBADMSG;
        q->rx += has_index && has_type && ifindex == q->ifindex && type == HW_NETDEV_QUEUE_TYPE_RX;
        return 0;
}

/* The RX queues the kernel lists for ifindex in this network namespace (one filtered dump):
 * 0 and a count, which is 0 when the interface is down (the kernel lists the queues of running
 * interfaces only); -EOPNOTSUPP before Linux 6.8; another -errno. */
static int queue_count(struct genl *g, uint16_t family, uint32_t ifindex, unsigned *ret) {
        uint8_t buf[NLMSG_HDRLEN + 64];
        struct queue_dump q = { .family = family, .ifindex = ifindex };
        int len = genl_request(buf, sizeof buf, family, NLM_F_REQUEST | NLM_F_DUMP, ++g->seq, HW_NETDEV_CMD_QUEUE_GET,
                               NETDEV_FAMILY_VERSION, 0, NULL);
        len = nl_put_attr(buf, sizeof buf, len, HW_NETDEV_A_QUEUE_IFINDEX, &ifindex, sizeof ifindex);
        if (len < 0)
                return len;
        int r = genl_transact(g, buf, (size_t)len, queue_msg, &q);
        if (r < 0)
                return r;
        *ret = q.rx;
        return 0;
}

/*
 * The RX queues of an interface the dump showed.  An interface that is up: the kernel's queue
 * list, by ifindex, on the socket already open: the count sysfs shows (real_num_rx_queues), in
 * the namespace netlink speaks for, in one round trip instead of seven system calls through
 * /sys/class/net.  Else sysfs, checked against the ifindex: an interface that is down, a kernel
 * without the queue dump.  *dump_failed remembers a failed dump: the probe stops asking, as
 * the kernel will not answer better and a failed exchange may leave replies on the socket.
 * -ENOMEM only; otherwise the count, 0 when neither shows the interface.
 */
static int rx_queues(struct genl *g, uint16_t family, const struct hw_xdp_if *x, bool *dump_failed, unsigned *ret) {
        unsigned n = 0;

        if (!*dump_failed) {
                int r = queue_count(g, family, x->ifindex, &n);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        *dump_failed = true;
                else if (n > 0) {
                        *ret = n;
                        return 0;
                }
        }
        *ret = hw_count_rx_queues(x->name, x->ifindex);
        return 0;
}

/* if_indextoname() on a socket we have (any socket answers SIOCGIFNAME), not a new one each
 * time.  0, or -errno (the interface is gone). */
static int if_name(int fd, unsigned ifindex, char name[static IF_NAMESIZE]) {
        struct ifreq ifr = { .ifr_ifindex = (int)ifindex };
        if (ioctl(fd, SIOCGIFNAME, &ifr) < 0)
                return negative_errno();
        memcpy(name, ifr.ifr_name, IF_NAMESIZE);
        name[IF_NAMESIZE - 1] = '\0';
        return 0;
}

/* The netdev dump: the interfaces with XDP features.  -EINTR when a change interrupted it. */
static int xdp_dump(struct genl *g, uint16_t family, struct xdp_dump *d) {
        uint8_t buf[NLMSG_HDRLEN + 64];
        *d = (struct xdp_dump){ .family = family };   /* the caller frees d->ifs whatever happens */
        int len = genl_request(buf, sizeof buf, family, NLM_F_REQUEST | NLM_F_DUMP, ++g->seq, NETDEV_CMD_DEV_GET,
                               NETDEV_FAMILY_VERSION, 0, NULL);
        if (len < 0)
                return len;
        return genl_transact(g, buf, (size_t)len, dev_msg, d);
}

/* Returns -ENOMEM only; everything else is recorded in s->xdp_status. */
static int probe_xdp(const struct hw_netsel *sel, bool brief, struct hw_summary *s) {
        _cleanup_(genl_close) struct genl g = { .fd = -1, .seq = (uint32_t)time(NULL) };
        _cleanup_free_ struct hw_xdp_if *ifs = NULL;
        uint16_t family;
        size_t n = 0;
        int r;

        r = nl_open(NETLINK_GENERIC, &g.fd, &g.portid);
        if (r < 0) {
                s->xdp_status = r;
                return 0;
        }
        r = genl_family_id(&g, NETDEV_FAMILY_NAME, &family);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* No netdev family (Linux < 6.3): "unknown", not "none". */
                s->xdp_status = r == -ENOENT ? -EOPNOTSUPP : r;
                return 0;
        }
        /* A dump interrupted by a concurrent change (NLM_F_DUMP_INTR) is asked again on a new
         * socket: the rest of the interrupted one may still be queued. */
        for (unsigned attempt = 0;; attempt++) {
                struct xdp_dump d;
                r = xdp_dump(&g, family, &d);
                if (r == -EINTR && attempt < 3) {
                        free(d.ifs);
                        genl_close(&g);
                        if ((r = nl_open(NETLINK_GENERIC, &g.fd, &g.portid)) < 0)
                                break;
                        continue;
                }
                ifs = d.ifs;
                n = d.n;
                break;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                s->xdp_status = r;
                return 0;
        }

        /* Names, queues and whether `auto` counts them; an interface that vanished meanwhile
         * is dropped.  Counted interfaces are always kept (up to HW_MAX_INTERFACES), others
         * (shown by `probe`) while there is room. */
        _cleanup_(hw_physmap_done) struct hw_physmap phys = HW_PHYSMAP_INIT;
        size_t k = 0, n_counted = 0;
        bool dump_failed = false;
        for (size_t i = 0; i < n; i++) {
                struct hw_xdp_if x = ifs[i];

                if (if_name(g.fd, x.ifindex, x.name) < 0)
                        continue;
                x.physical = hw_physmap_is_physical_here(&phys, g.fd, x.name, x.ifindex);
                x.counted = hw_netsel_counts(sel, x.name, x.physical);
                if (brief && !x.counted)
                        continue;
                if (x.counted ? n_counted >= HW_MAX_INTERFACES : k >= HW_MAX_INTERFACES)
                        continue;
                if (!x.counted && k + 1 >= HW_MAX_INTERFACES && n_counted < k)
                        continue;
                if (rx_queues(&g, family, &x, &dump_failed, &x.rx_queues) < 0)
                        return -ENOMEM;
                n_counted += x.counted;
                ifs[k++] = x;
        }

        s->xdp = k > 0 ? TAKE_PTR(ifs) : NULL;
        s->n_xdp = k;
        s->sysfs_other_netns = phys.here < 0;
        s->xdp_status = 0;
        return 0;
}
#else
/* built without the AF_XDP probe (--disable-xdp): the AF_XDP part is unknown */
static int probe_xdp(const struct hw_netsel *sel, bool brief, struct hw_summary *s) {
        (void)sel;
        (void)brief;
        s->xdp_status = -ENOPKG;
        return 0;
}
#endif

/* ---------------------------------------------------------------------------------------
 * RAM
 */
/* MemTotal: sysinfo(2)'s totalram is the same count of pages /proc/meminfo prints, without
 * the kernel formatting the whole file. */
static int probe_mem(uint64_t *ret) {
        struct sysinfo si;

        if (sysinfo(&si) < 0)
                return negative_errno();
        if (si.mem_unit == 0 || si.totalram == 0)
                return -EBADMSG;
        if ((uint64_t)si.totalram > UINT64_MAX / si.mem_unit)
                return -ERANGE;
        *ret = (uint64_t)si.totalram * si.mem_unit;
        return 0;
}

int hw_probe(unsigned what, const struct hw_netsel *sel, struct hw_summary **ret) {
        _cleanup_(hw_summary_freep) struct hw_summary *s = NULL;
        int r;

        if (!ret || (what & ~(unsigned)(HW_ALL | HW_COUNTS)))
                return -EINVAL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->rdma_status = s->verbs_status = s->xdp_status = s->mem_status = -ENODATA;

        if (what & HW_RDMA) {
                r = probe_rdma(s, what & HW_COUNTS);
                if (r < 0)
                        return r;
        }
        if (what & HW_XDP) {
                r = probe_xdp(sel, what & HW_COUNTS, s);
                if (r < 0)
                        return r;
        }
        if (what & HW_MEM) {
                r = probe_mem(&s->mem_total);   /* set only when it returns 0 */
                if (r == -ENOMEM)
                        return r;
                s->mem_status = r;
        }

        *ret = TAKE_PTR(s);
        return 0;
}

void hw_summary_free(struct hw_summary *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_rdma; i++)
                free(s->rdma[i].ports);
        free(s->rdma);
        free(s->xdp);
        free(s);
}

static unsigned dev_active_ports(const struct hw_rdma_dev *d) {
        unsigned n = 0;
        for (size_t p = 0; p < d->n_ports; p++)
                if (d->ports[p].query_error == 0 && d->ports[p].state == HW_PORT_ACTIVE)
                        n++;
        return n;
}

unsigned hw_active_ports(const struct hw_summary *s) {
        unsigned n = 0;
        if (!s || s->rdma_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_rdma; i++)
                n += dev_active_ports(&s->rdma[i]);
        return n;
}

static unsigned counted_queues(const struct hw_summary *s, bool zero_copy) {
        unsigned n = 0;
        if (!s || s->xdp_status < 0)
                return 0;
        for (size_t i = 0; i < s->n_xdp; i++)
                if (s->xdp[i].counted && s->xdp[i].xdp_features && s->xdp[i].zero_copy == zero_copy)
                        n += s->xdp[i].rx_queues;
        return n;
}

unsigned hw_zc_queues(const struct hw_summary *s) {
        return counted_queues(s, true);
}

unsigned hw_copy_queues(const struct hw_summary *s) {
        return counted_queues(s, false);
}

uint64_t hw_min_max_mr_size(const struct hw_summary *s, bool *ret_unknown) {
        bool unknown = false;
        uint64_t m = 0;

        if (s && s->rdma_status >= 0)
                for (size_t i = 0; i < s->n_rdma; i++) {
                        const struct hw_rdma_dev *d = &s->rdma[i];
                        if (dev_active_ports(d) == 0)
                                continue;
                        if (d->verbs_error || d->max_mr_size == 0) {
                                unknown = true;
                                continue;
                        }
                        if (m == 0 || d->max_mr_size < m)
                                m = d->max_mr_size;
                }
        if (ret_unknown)
                *ret_unknown = unknown;
        return m;
}
