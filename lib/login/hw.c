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
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBMNL
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

#include "array.h"
#include "mnl.h"
#include "hw.h"
#include "macro.h"
#include "size.h"

int hw_read_line(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = -1;
        ssize_t n;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, size - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

int hw_for_each_entry(const char *path, int (*fn)(const char *name, ino_t ino, void *data),
                      void *data) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char buf[8192] __attribute__((aligned(8)));

        if (fd < 0)
                return negative_errno();
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
                        if (r < 0)
                                return r;
                }
        }
}

/* "4: ACTIVE", "1: CA": the number before the colon */
static int read_sysfs_enum(const char *path, int *ret) {
        char buf[64], *colon;
        unsigned v;
        int r = hw_read_line(path, buf, sizeof buf);

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
 * all `auto` needs and all a login reads; the ibverbs attributes come from lib/model/hw-verbs.c.
 */
#define SYS_INFINIBAND "/sys/class/infiniband"

static int cmp_uint(const void *a, const void *b) {
        unsigned x = ((const struct hw_port *)a)->num, y = ((const struct hw_port *)b)->num;
        return x < y ? -1 : x > y;
}

static int cmp_dev(const void *a, const void *b) {
        return strcmp(((const struct hw_rdma_dev *)a)->name, ((const struct hw_rdma_dev *)b)->name);
}

static int rdma_ports(struct hw_rdma_dev *d, size_t *total) {
        char path[160];
        DIR *dir;
        struct dirent *de;
        int fd;

        snprintf(path, sizeof path, SYS_INFINIBAND "/%s/ports", d->name);
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                d->query_error = negative_errno();
                return 0;
        }
        dir = fdopendir(fd);
        if (!dir) {
                close(fd);
                return -ENOMEM;
        }
        while ((de = readdir(dir))) {
                unsigned num;
                if (de->d_name[0] == '.' || parse_u32(de->d_name, &num) < 0 || num == 0 || num > HW_MAX_PORTS)
                        continue;
                if (d->n_ports >= HW_MAX_PORTS || *total >= HW_MAX_PORTS_TOTAL)
                        break;
                if (GROW_EXACT(d->ports, d->n_ports + 1) < 0) {
                        closedir(dir);
                        return -ENOMEM;
                }
                struct hw_port *p = &d->ports[d->n_ports++];
                (*total)++;
                *p = (struct hw_port){ .num = num };
                snprintf(path, sizeof path, SYS_INFINIBAND "/%s/ports/%u/state", d->name, num);
                p->query_error = read_sysfs_enum(path, &p->state);
                char ll[32];
                snprintf(path, sizeof path, SYS_INFINIBAND "/%s/ports/%u/link_layer", d->name, num);
                if (hw_read_line(path, ll, sizeof ll) == 0)
                        p->link_layer = streq(ll, "InfiniBand") ? 1 : streq(ll, "Ethernet") ? 2 : 0;
        }
        closedir(dir);
        if (d->n_ports > 1)
                qsort(d->ports, d->n_ports, sizeof(*d->ports), cmp_uint);
        return 0;
}

/* Returns -ENOMEM only; everything else is recorded in s->rdma_status. */
static int probe_rdma(struct hw_summary *s) {
        size_t total_ports = 0;
        struct dirent *de;
        DIR *dir;
        int fd, r = 0;

        fd = open(SYS_INFINIBAND, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                /* no RDMA device, or no RDMA support in the kernel: nothing to count */
                s->rdma_status = errno == ENOENT ? 0 : negative_errno();
                return 0;
        }
        dir = fdopendir(fd);
        if (!dir) {
                close(fd);
                return -ENOMEM;
        }
        while (r >= 0 && (de = readdir(dir))) {
                if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(s->rdma[0].name))
                        continue;
                if (s->n_rdma >= HW_MAX_RDMA_DEVICES)
                        break;
                if ((r = GROW_EXACT(s->rdma, s->n_rdma + 1)) < 0)
                        break;
                struct hw_rdma_dev *d = &s->rdma[s->n_rdma++];
                *d = (struct hw_rdma_dev){ .verbs_error = -ENODATA };
                snprintf(d->name, sizeof d->name, "%s", de->d_name);
                char path[160];
                snprintf(path, sizeof path, SYS_INFINIBAND "/%s/node_type", d->name);
                d->query_error = read_sysfs_enum(path, &d->node_type);
                r = rdma_ports(d, &total_ports);
        }
        closedir(dir);
        if (r < 0)
                return r;
        if (s->n_rdma > 1)
                qsort(s->rdma, s->n_rdma, sizeof(*s->rdma), cmp_dev);
        s->rdma_status = 0;
        return 0;
}

/* ---------------------------------------------------------------------------------------
 * Which interfaces count.
 */
bool hw_if_physical(const char *name) {
        char path[IF_NAMESIZE + 32];
        struct stat st;

        if (!*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return false;
        snprintf(path, sizeof path, "/sys/class/net/%s/device", name);
        return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
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
 * libmnl is loaded (mnl.c, dlopen()) only when a live probe runs: a login that reads the
 * hardware cache, or needs no "auto" at all, maps one library less (on the machines we
 * measure, each library a login maps costs about as much as pam_limits' whole session).  The
 * table is filled per probe and passed down, so nothing global changes; --disable-xdp builds
 * without it.
 */
#ifdef HAVE_LIBMNL
/* An open generic netlink socket and the functions to use it. */
struct genl {
        const struct mnl_fns *f;
        struct mnl_socket *nl;
};

static void genl_close(struct genl *g) {
        if (g->nl)
                g->f->socket_close(g->nl);
        g->nl = NULL;
}

/* Send one request and run cb over the replies until DONE, an ACK or an error.
 * libmnl checks the sequence number and the port id of every reply. */
static int nl_transact(const struct genl *g, const struct nlmsghdr *req, mnl_cb_t cb, void *data) {
        size_t bufsz = (size_t)MNL_SOCKET_BUFFER_SIZE;
        _cleanup_free_ char *buf = malloc(bufsz);
        unsigned portid = g->f->socket_get_portid(g->nl);

        if (!buf)
                return -ENOMEM;
        if (g->f->socket_sendto(g->nl, req, req->nlmsg_len) < 0)
                return negative_errno();

        for (;;) {
                ssize_t len;
                int r;

                len = g->f->socket_recvfrom(g->nl, buf, bufsz);
                if (len < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (len == 0)
                        return -EPROTO;
                errno = 0;
                r = g->f->cb_run(buf, (size_t)len, req->nlmsg_seq, portid, cb, data);
                if (r < 0)
                        return negative_errno();
                if (r == MNL_CB_STOP)
                        return 0;
        }
}

static struct nlmsghdr *genl_request(const struct mnl_fns *f, char *buf, uint16_t type, uint16_t flags, uint32_t seq,
                                     uint8_t cmd, uint8_t version) {
        struct nlmsghdr *nlh = f->nlmsg_put_header(buf);
        struct genlmsghdr *genl;

        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = flags;
        nlh->nlmsg_seq = seq;
        genl = f->nlmsg_put_extra_header(nlh, sizeof(*genl));
        genl->cmd = cmd;
        genl->version = version;
        return nlh;
}

/* The attributes of one message, indexed by type, for the parse callbacks. */
struct attrs {
        const struct mnl_fns *f;
        const struct nlattr **tb;
};

static int family_attr_cb(const struct nlattr *attr, void *data) {
        const struct attrs *a = data;
        int type = a->f->attr_get_type(attr);

        if (type == CTRL_ATTR_FAMILY_ID) {
                if (a->f->attr_validate(attr, MNL_TYPE_U16) < 0)
                        return MNL_CB_ERROR;
                a->tb[type] = attr;
        }
        return MNL_CB_OK;
}

struct family_reply {
        const struct mnl_fns *f;
        uint16_t id;
};

static int family_cb(const struct nlmsghdr *nlh, void *data) {
        const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
        struct family_reply *fr = data;
        struct attrs a = { fr->f, tb };

        if (nlh->nlmsg_type != GENL_ID_CTRL)
                return MNL_CB_OK;
        if (fr->f->attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, &a) < 0)
                return MNL_CB_ERROR;
        if (tb[CTRL_ATTR_FAMILY_ID])
                fr->id = fr->f->attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
        return MNL_CB_OK;
}

/* -ENOENT when the kernel has no such family. */
static int genl_family_id(const struct genl *g, const char *name, uint32_t seq, uint16_t *ret) {
        char buf[MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr)) + 64] = {};
        struct family_reply fr = { .f = g->f };
        struct nlmsghdr *nlh;
        int r;

        nlh = genl_request(g->f, buf, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, seq,
                           CTRL_CMD_GETFAMILY, 1);
        if (!g->f->attr_put_strz_check(nlh, sizeof(buf), CTRL_ATTR_FAMILY_NAME, name))
                return -EINVAL;
        r = nl_transact(g, nlh, family_cb, &fr);
        if (r < 0)
                return r;
        if (fr.id == 0)
                return -EPROTO;
        *ret = fr.id;
        return 0;
}

struct xdp_dump {
        const struct mnl_fns *f;
        uint16_t family;
        struct hw_xdp_if *ifs;
        size_t n, allocated;
};

static int dev_attr_cb(const struct nlattr *attr, void *data) {
        const struct attrs *a = data;
        int type = a->f->attr_get_type(attr);

        switch (type) {
        case NETDEV_A_DEV_IFINDEX:
                if (a->f->attr_validate(attr, MNL_TYPE_U32) < 0)
                        return MNL_CB_ERROR;
                break;
        case NETDEV_A_DEV_XDP_FEATURES:
                if (a->f->attr_validate(attr, MNL_TYPE_U64) < 0)
                        return MNL_CB_ERROR;
                break;
        default:
                return MNL_CB_OK; /* newer attributes */
        }
        a->tb[type] = attr;
        return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data) {
        const struct nlattr *tb[NETDEV_A_DEV_XDP_FEATURES + 1] = {};
        struct xdp_dump *d = data;
        struct attrs a = { d->f, tb };
        struct hw_xdp_if *x;
        uint64_t features;

        if (nlh->nlmsg_type != d->family)
                return MNL_CB_OK;
        if (d->f->attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, &a) < 0)
                return MNL_CB_ERROR;
        if (!tb[NETDEV_A_DEV_IFINDEX] || !tb[NETDEV_A_DEV_XDP_FEATURES])
                return MNL_CB_OK;
        features = d->f->attr_get_u64(tb[NETDEV_A_DEV_XDP_FEATURES]);
        if (features == 0)
                return MNL_CB_OK;

        if (GROW(d->ifs, d->allocated, d->n + 1) < 0) {
                errno = ENOMEM;
                return MNL_CB_ERROR;
        }
        x = &d->ifs[d->n++];
        memset(x, 0, sizeof(*x));
        x->ifindex = d->f->attr_get_u32(tb[NETDEV_A_DEV_IFINDEX]);
        x->xdp_features = features;
        x->zero_copy = features & HW_XDP_XSK_ZEROCOPY;
        return MNL_CB_OK;
}

#endif /* HAVE_LIBMNL */

static int count_rx(const char *name, ino_t ino, void *data) {
        *(unsigned *)data += strncmp(name, "rx-", 3) == 0;
        return 0;
}

int hw_rx_queue_entries(const char *name, unsigned *ret) {
        char path[128];

        *ret = 0;
        snprintf(path, sizeof(path), "/sys/class/net/%s/queues", name);
        return hw_for_each_entry(path, count_rx, ret);
}

unsigned hw_count_rx_queues(const char *name, unsigned ifindex) {
        char path[128], buf[32];
        unsigned idx, n;

        snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
        if (hw_read_line(path, buf, sizeof(buf)) < 0 || parse_u32(buf, &idx) < 0 ||
            idx != ifindex)
                return 0;
        /* a read error part way counts what was read */
        (void)hw_rx_queue_entries(name, &n);
        return n;
}

#ifdef HAVE_LIBMNL
/* Returns -ENOMEM only; everything else is recorded in s->xdp_status. */
static int probe_xdp_with(const struct mnl_fns *f, const struct hw_netsel *sel, struct hw_summary *s) {
        _cleanup_(genl_close) struct genl g = { .f = f };
        _cleanup_free_ struct hw_xdp_if *ifs = NULL;
        uint32_t seq = (uint32_t)time(NULL);
        uint16_t family;
        size_t n = 0;
        int r;

        r = mnl_open(f, NETLINK_GENERIC, &g.nl);
        if (r < 0) {
                s->xdp_status = r;
                return 0;
        }

        r = genl_family_id(&g, NETDEV_FAMILY_NAME, seq, &family);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* No netdev family (Linux < 6.3): "unknown", not "none". */
                s->xdp_status = r == -ENOENT ? -EOPNOTSUPP : r;
                return 0;
        }

        /* A dump interrupted by a concurrent change (NLM_F_DUMP_INTR: EINTR) is retried. */
        for (unsigned attempt = 0;; attempt++) {
                char buf[MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr))] = {};
                struct xdp_dump d = { .f = f, .family = family };
                struct nlmsghdr *nlh;

                nlh = genl_request(f, buf, family, NLM_F_REQUEST | NLM_F_DUMP, ++seq,
                                   NETDEV_CMD_DEV_GET, NETDEV_FAMILY_VERSION);
                r = nl_transact(&g, nlh, dev_cb, &d);
                if (r == -EINTR && attempt < 3) {
                        free(d.ifs);
                        /* the rest of the interrupted dump may still be queued */
                        genl_close(&g);
                        r = mnl_open(f, NETLINK_GENERIC, &g.nl);
                        if (r < 0) {
                                s->xdp_status = r;
                                return 0;
                        }
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
        size_t k = 0, n_counted = 0;
        for (size_t i = 0; i < n; i++) {
                struct hw_xdp_if x = ifs[i];

                if (!if_indextoname(x.ifindex, x.name))
                        continue;
                x.physical = hw_if_physical(x.name);
                x.counted = hw_netsel_counts(sel, x.name, x.physical);
                if (x.counted ? n_counted >= HW_MAX_INTERFACES : k >= HW_MAX_INTERFACES)
                        continue;
                if (!x.counted && k + 1 >= HW_MAX_INTERFACES && n_counted < k)
                        continue;
                x.rx_queues = hw_count_rx_queues(x.name, x.ifindex);
                n_counted += x.counted;
                ifs[k++] = x;
        }

        s->xdp = k > 0 ? TAKE_PTR(ifs) : NULL;
        s->n_xdp = k;
        s->xdp_status = 0;
        return 0;
}

/* libmnl missing or unusable: the AF_XDP part is unknown, with the reason. */
static int probe_xdp(const struct hw_netsel *sel, struct hw_summary *s) {
        struct mnl_fns f;
        int r = mnl_load(&f);
        if (r < 0) {
                s->xdp_status = r;
                return 0;
        }
        r = probe_xdp_with(&f, sel, s);
        mnl_unload(&f);
        return r;
}
#else
/* built without libmnl (--disable-xdp): the AF_XDP part is unknown */
static int probe_xdp(const struct hw_netsel *sel, struct hw_summary *s) {
        s->xdp_status = -ENOPKG;
        return 0;
}
#endif

/* ---------------------------------------------------------------------------------------
 * RAM
 */
static int probe_mem(uint64_t *ret) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t size = 0;

        f = fopen("/proc/meminfo", "re");
        if (!f)
                return negative_errno();

        while (getline(&line, &size, f) > 0) {
                char digits[24];
                const char *p;
                uint64_t kib;
                size_t len;

                if (strncmp(line, "MemTotal:", 9) != 0)
                        continue;
                p = line + 9;
                p += strspn(p, " \t");
                len = strspn(p, "0123456789");
                if (len == 0 || len >= sizeof(digits))
                        return -EBADMSG;
                memcpy(digits, p, len);
                digits[len] = 0;
                if (parse_u64(digits, &kib) < 0)
                        return -EBADMSG;
                p += len;
                p += strspn(p, " \t");
                if (strncmp(p, "kB", 2) != 0 || (p[2] != '\n' && p[2] != 0))
                        return -EBADMSG;
                if (kib > UINT64_MAX / 1024)
                        return -ERANGE;
                *ret = kib * 1024;
                return 0;
        }
        if (ferror(f))
                return -EIO;
        return -EBADMSG;
}

int hw_probe(unsigned what, const struct hw_netsel *sel, struct hw_summary **ret) {
        _cleanup_(hw_summary_freep) struct hw_summary *s = NULL;
        int r;

        if (!ret || (what & ~(unsigned)HW_ALL))
                return -EINVAL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->rdma_status = s->verbs_status = s->xdp_status = s->mem_status = -ENODATA;

        if (what & HW_RDMA) {
                r = probe_rdma(s);
                if (r < 0)
                        return r;
        }
        if (what & HW_XDP) {
                r = probe_xdp(sel, s);
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

static const char *name_of(const char *const *names, size_t n, int i, const char *other) {
        return i >= 0 && (size_t)i < n && names[i] ? names[i] : other;
}

const char *hw_port_state_name(int state) {
        static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
        return name_of(names, ELEMENTSOF(names), state, "UNKNOWN");
}

const char *hw_link_layer_name(int ll) {
        static const char *const names[] = { [1] = "InfiniBand", [2] = "Ethernet" };
        return name_of(names, ELEMENTSOF(names), ll, "unspecified");
}

const char *hw_node_type_name(int nt) {
        static const char *const names[] = {
                [1] = "CA", "switch", "router", "RNIC", "usNIC", "usNIC_UDP", "unspecified",
        };
        return name_of(names, ELEMENTSOF(names), nt, "unknown");
}
