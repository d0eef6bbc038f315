/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "fsutil.h"
#include "hwcache.h"
#include "macro.h"
#include "size.h"
#include "strv.h"


struct names {
        const struct hw_netsel *sel;   /* interfaces: keep the counted ones only */
        bool select;
        struct hw_physmap phys;        /* with select */
        struct strv s;
};

/* "name@inode": sysfs gives every device node a new inode number (kernfs node id), so a
 * device removed and created again under the same name reads differently. */
static int add_name(const char *name, ino_t ino, void *data) {
        struct names *l = data;
        char *e;

        if (name[0] == '.')
                return 0;
        if (l->select && !hw_netsel_counts(l->sel, name, hw_physmap_is_physical(&l->phys, name)))
                return 0;
        if (l->s.n >= HW_MAX_INTERFACES + HW_MAX_RDMA_DEVICES)
                return -E2BIG;
        if (asprintf(&e, "%s@%llu", name, (unsigned long long)ino) < 0)
                e = NULL;
        return strv_consume(&l->s, e);
}

/* Sorted "name@inode" entries of a directory (no dotfiles), NULL-terminated; a missing
 * directory is an empty list. */
static int list_dir(const char *path, struct names *l) {
        int r = hw_for_each_entry(path, add_name, l);

        if (r < 0) {
                strv_clear(&l->s);
                return r == -ENOENT ? 0 : r;
        }
        strv_sort(&l->s);
        return 0;
}

/* Does a counted interface still have the RX queues the summary counted?  The probe counted
 * real_num_rx_queues (from the kernel's queue dump when the interface was up, else from
 * sysfs), which is the number of rx-* entries sysfs shows; the fingerprint already proved it
 * is the same sysfs node.  One that sysfs did not show at probe time (0 queues: down, and
 * another network namespace's sysfs) is checked the way the probe counted it. */
static bool same_rx_queues(const struct hw_xdp_if *x) {
        unsigned n;

        if (x->rx_queues == 0)
                return hw_count_rx_queues(x->name, x->ifindex) == 0;
        return hw_rx_queue_entries(x->name, &n) >= 0 && n == x->rx_queues;
}

static void put_patterns(FILE *f, const char *what, char *const *v) {
        fprintf(f, "%s=", what);
        for (char *const *p = v; p && *p; p++)
                fprintf(f, "%zu:%s,", strlen(*p), *p);
}

/* RDMA devices by node with the state of each port ("4: ACTIVE"). */
static int put_rdma(FILE *f) {
        struct names l = {};
        int r = list_dir("/sys/class/infiniband", &l);

        for (size_t i = 0; r >= 0 && i < l.s.n; i++) {
                struct names ports = {};
                char p[512], st[64];

                fprintf(f, "%s", l.s.v[i]);
                *strrchr(l.s.v[i], '@') = '\0';
                snprintf(p, sizeof p, "/sys/class/infiniband/%s/ports", l.s.v[i]);
                r = list_dir(p, &ports);
                for (size_t k = 0; r >= 0 && k < ports.s.n; k++) {
                        *strrchr(ports.s.v[k], '@') = '\0';
                        snprintf(p, sizeof p, "/sys/class/infiniband/%s/ports/%s/state", l.s.v[i], ports.s.v[k]);
                        if (hw_read_line(p, st, sizeof st) < 0)
                                snprintf(st, sizeof st, "?");
                        fprintf(f, ":%s=%c", ports.s.v[k], st[0]);
                }
                strv_clear(&ports.s);
                fputc(',', f);
        }
        strv_clear(&l.s);
        return r;
}

/* The network namespace of the caller: its cookie (SO_NETNS_COOKIE, Linux 5.14: never reused
 * within a boot, and about half the cost of the first look into /proc/self in a fresh
 * process), else the inode of its nsfs file, else "?".  The interfaces a login may use are
 * its namespace's; a cache written in another namespace (the host's, read by a login in a
 * namespace that shares /run and sysfs with it) is not its. */
static void put_netns(FILE *f) {
        struct stat st;
#ifdef SO_NETNS_COOKIE
        uint64_t cookie = 0;
        socklen_t len = sizeof cookie;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        if (fd >= 0) {
                int r = getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len);
                close(fd);
                if (r == 0 && len == sizeof cookie) {
                        fprintf(f, "netns=c%llu;", (unsigned long long)cookie);
                        return;
                }
        }
#endif
        if (stat("/proc/self/ns/net", &st) == 0)
                fprintf(f, "netns=i%llu;", (unsigned long long)st.st_ino);
        else
                fputs("netns=?;", f);
}

/*
 * What a login can read cheaply: the boot, the network namespace, the interface selection,
 * each RDMA device with the state of each port, each counted network interface by name and
 * sysfs node.  The RX queue
 * counts of the interfaces the summary counts are checked apart, in hw_cache_load().
 */
int hw_fingerprint(const struct hw_netsel *sel, char **ret) {
        _cleanup_free_ char *out = NULL;
        char buf[128];
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        struct names net = { .sel = sel, .select = true, .phys = HW_PHYSMAP_INIT };
        int r;

        if (!f)
                return -ENOMEM;
        r = hw_read_line("/proc/sys/kernel/random/boot_id", buf, sizeof buf);
        fprintf(f, "boot=%s;", r < 0 ? "?" : buf);
        put_netns(f);
        fputs("sel=", f);
        put_patterns(f, "inc", sel ? sel->include : NULL);
        put_patterns(f, "/exc", sel ? sel->exclude : NULL);
        fputs(";rdma=", f);
        r = put_rdma(f);
        fputs(";net=", f);
        if (r >= 0)
                r = list_dir("/sys/class/net", &net);
        for (size_t i = 0; r >= 0 && i < net.s.n; i++)
                fprintf(f, "%s,", net.s.v[i]);
        strv_clear(&net.s);
        hw_physmap_done(&net.phys);
        /* glibc's memstream: out is NULL when the realloc() at the close fails, fclose() 0 */
        if (fclose(f) != 0 || r < 0 || !out)
                return r < 0 ? r : -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

/* Split a line into at most n words in place. */
static size_t words(char *s, char **w, size_t n) {
        size_t k = 0;
        for (char *save = NULL, *t = strtok_r(s, " ", &save); t && k < n; t = strtok_r(NULL, " ", &save))
                w[k++] = t;
        return k;
}

static int int_of(const char *s, int *ret) {
        bool neg = s[0] == '-';
        uint32_t v;
        int r = parse_u32(s + neg, &v);
        if (r < 0 || v > 0x7fffffff)
                return -EBADMSG;
        *ret = neg ? -(int)v : (int)v;
        return 0;
}

static bool valid_name(const char *s, size_t size) {
        return *s && strlen(s) < size && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..");
}

struct parser {
        struct hw_summary *s;
        struct hw_rdma_dev *dev;
        size_t ports;
};

static int parse_rdma(struct parser *p, char **w) {
        struct hw_rdma_dev *d;
        int qe, ve;

        if (p->s->n_rdma >= HW_MAX_RDMA_DEVICES)
                return -E2BIG;
        if (GROW_EXACT(p->s->rdma, p->s->n_rdma + 1) < 0)
                return -ENOMEM;
        d = p->dev = &p->s->rdma[p->s->n_rdma++];
        *d = (struct hw_rdma_dev){};
        if (!valid_name(w[1], sizeof d->name) || int_of(w[2], &d->node_type) < 0 || int_of(w[3], &qe) < 0 ||
            int_of(w[4], &ve) < 0 || parse_u64(w[5], &d->max_mr_size) < 0 || int_of(w[6], &d->max_mr) < 0)
                return -EBADMSG;
        snprintf(d->name, sizeof d->name, "%s", w[1]);
        d->query_error = -qe;
        d->verbs_error = -ve;
        return 0;
}

static int parse_port(struct parser *p, char **w) {
        struct hw_rdma_dev *d = p->dev;
        struct hw_port *port;
        int num, st, ll, e;

        if (!d)
                return -EBADMSG;
        if (d->n_ports >= HW_MAX_PORTS || p->ports >= HW_MAX_PORTS_TOTAL)
                return -E2BIG;
        if (int_of(w[1], &num) < 0 || num <= 0 || num > HW_MAX_PORTS || int_of(w[2], &st) < 0 ||
            int_of(w[3], &ll) < 0 || int_of(w[4], &e) < 0)
                return -EBADMSG;
        if (GROW_EXACT(d->ports, d->n_ports + 1) < 0)
                return -ENOMEM;
        port = &d->ports[d->n_ports++];
        p->ports++;
        *port = (struct hw_port){ .num = (unsigned)num, .state = st, .link_layer = ll, .query_error = -e };
        return 0;
}

static int parse_xdp(struct parser *p, char **w) {
        struct hw_xdp_if x = { .counted = true };
        uint32_t idx, rxq, phys;

        if (p->s->n_xdp >= HW_MAX_INTERFACES)
                return -E2BIG;
        if (parse_u32(w[1], &idx) < 0 || !valid_name(w[2], sizeof x.name) || parse_u64(w[3], &x.xdp_features) < 0 ||
            parse_u32(w[4], &rxq) < 0 || parse_u32(w[5], &phys) < 0 || phys > 1)
                return -EBADMSG;
        x.ifindex = idx;
        snprintf(x.name, sizeof x.name, "%s", w[2]);
        x.zero_copy = x.xdp_features & HW_XDP_XSK_ZEROCOPY;
        x.rx_queues = rxq;
        x.physical = phys;
        if (GROW_EXACT(p->s->xdp, p->s->n_xdp + 1) < 0)
                return -ENOMEM;
        p->s->xdp[p->s->n_xdp++] = x;
        return 0;
}

/* One line after the fingerprint: 1 at "end", 0 to go on, or a negative errno. */
static int parse_line(struct parser *p, char *line) {
        char *w[8];
        size_t n = words(line, w, ELEMENTSOF(w));

        if (n == 2 && streq(w[0], "rdma_status"))
                return int_of(w[1], &p->s->rdma_status);
        if (n == 2 && streq(w[0], "verbs_status"))
                return int_of(w[1], &p->s->verbs_status);
        if (n == 7 && streq(w[0], "rdma"))
                return parse_rdma(p, w);
        if (n == 5 && streq(w[0], "port"))
                return parse_port(p, w);
        if (n == 2 && streq(w[0], "xdp_status"))
                return int_of(w[1], &p->s->xdp_status);
        if (n == 6 && streq(w[0], "xdp"))
                return parse_xdp(p, w);
        if (n == 3 && streq(w[0], "mem"))
                return int_of(w[1], &p->s->mem_status) < 0 || parse_u64(w[2], &p->s->mem_total) < 0 ? -EBADMSG : 0;
        if (n == 1 && streq(w[0], "end"))
                return 1;
        return -EBADMSG;
}

int hw_cache_parse(const char *text, size_t len, struct hw_summary **ret, char **ret_fingerprint) {
        _cleanup_free_ char *copy = NULL, *fp = NULL;
        _cleanup_(hw_summary_freep) struct hw_summary *s = NULL;
        struct parser p = {};
        char *line, *save = NULL;
        int r = -EBADMSG;

        if (len > HW_CACHE_MAX)
                return -EFBIG;
        if (memchr(text, '\0', len) || len < sizeof(HW_CACHE_MAGIC) || memcmp(text, HW_CACHE_MAGIC "\n", sizeof(HW_CACHE_MAGIC)) != 0)
                return -EBADMSG;
        copy = strndup(text + sizeof(HW_CACHE_MAGIC), len - sizeof(HW_CACHE_MAGIC));
        if (!copy)
                return -ENOMEM;
        line = strtok_r(copy, "\n", &save);
        if (!line || strncmp(line, "fingerprint ", 12) != 0)
                return -EBADMSG;
        fp = strdup(line + 12);
        s = p.s = calloc(1, sizeof(*s));
        if (!fp || !s)
                return -ENOMEM;
        s->rdma_status = s->verbs_status = s->xdp_status = s->mem_status = -ENODATA;
        while ((line = strtok_r(NULL, "\n", &save))) {
                r = parse_line(&p, line);
                if (r != 0)
                        break;
                r = -EBADMSG;   /* a text that stops before "end" */
        }
        /* "end" is the last line */
        if (r == 1)
                r = strtok_r(NULL, "\n", &save) ? -EBADMSG : 0;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        *ret_fingerprint = TAKE_PTR(fp);
        return 0;
}

int hw_cache_load_fd(int fd, const struct hw_netsel *sel, struct hw_summary **ret) {
        _cleanup_free_ char *text = NULL, *fp = NULL, *now = NULL;
        _cleanup_(hw_summary_freep) struct hw_summary *s = NULL;
        size_t len = 0;
        int r;

        r = fs_read_all(fd, HW_CACHE_MAX, &text, &len);
        if (r < 0)
                return r;
        r = hw_cache_parse(text, len, &s, &fp);
        if (r < 0)
                return r;
        r = hw_fingerprint(sel, &now);
        if (r >= 0 && !streq(fp, now))
                r = -ESTALE;
        /* the interfaces the summary counts still have the RX queues it counted */
        for (size_t i = 0; r >= 0 && i < s->n_xdp; i++)
                if (!same_rx_queues(&s->xdp[i]))
                        r = -ESTALE;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int hw_cache_load(const char *path, const struct hw_netsel *sel, struct hw_summary **ret) {
        _cleanup_close_ int fd = -1;
        int r = fs_open_config(AT_FDCWD, path, true, true, &fd, NULL);

        return r < 0 ? r : hw_cache_load_fd(fd, sel, ret);
}

int hw_cache_else_probe(int loaded, const struct hw_netsel *sel, struct hw_summary **ret, int *ret_cache_error) {
        *ret_cache_error = loaded > 0 ? 0 : loaded;
        if (loaded >= 0 || loaded == -ENOMEM)
                return loaded;
        return hw_probe(HW_ALL | HW_COUNTS, sel, ret);
}

int hw_cache_or_probe(const char *path, const struct hw_netsel *sel, struct hw_summary **ret, int *ret_cache_error) {
        return hw_cache_else_probe(!path ? -ENOENT : hw_cache_load(path, sel, ret), sel, ret, ret_cache_error);
}

const char *hw_cache_strerror(int error) {
        switch (error) {
        case 0:
                return "used";
        case -ENOENT:
                return "no cache";
        case -ESTALE:
                return "stale (the hardware, the boot, the network namespace or the interface selection changed)";
        case -EBADMSG:
                return "not a cache this build writes";
        case -E2BIG:
                return "more devices, ports or interfaces than a cache may hold";
        case -EFBIG:
                return "larger than a cache may be";
        default:
                return fs_strerror(error);
        }
}
