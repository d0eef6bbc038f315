/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "hwcache.h"
#include "macro.h"
#include "policy.h"
#include "size.h"

#define MAGIC "# rdmalimit cache v3"
/* The policy section holds the build that compiled it: another build may compile differently. */
#define BUILD "rdmalimit " PACKAGE_VERSION

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Calls fn for each entry of a directory but "." and "..": one open, getdents64 and close,
 * which is all a login can afford per directory.  -ENOENT when the directory is missing. */
static int for_each_entry(const char *path, int (*fn)(const char *name, ino_t ino, void *data), void *data) {
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

struct names {
        bool with_ino;
        char **v;
        size_t n;
};

static int add_name(const char *name, ino_t ino, void *data) {
        struct names *l = data;
        char **nv;

        if (name[0] == '.')
                return 0;
        nv = reallocarray(l->v, l->n + 2, sizeof(char *));
        if (!nv)
                return -ENOMEM;
        l->v = nv;
        if (l->with_ino ? asprintf(&l->v[l->n], "%s@%llu", name, (unsigned long long)ino) < 0
                        : !(l->v[l->n] = strdup(name))) {
                l->v[l->n] = NULL;
                return -ENOMEM;
        }
        l->v[++l->n] = NULL;
        return 0;
}

/*
 * Sorted entries of a directory (no dotfiles), NULL-terminated; a missing directory is an
 * empty list.  With with_ino each entry is "name@inode": sysfs gives every device node a new
 * inode number (kernfs node id), so a device removed and created again under the same name,
 * or a new device with the old name, reads differently although the names are the same.
 */
static int list_dir(const char *path, bool with_ino, char ***ret, size_t *ret_n) {
        struct names l = { .with_ino = with_ino };
        int r = for_each_entry(path, add_name, &l);

        *ret = NULL;
        *ret_n = 0;
        if (r < 0) {
                for (size_t k = 0; k < l.n; k++)
                        free(l.v[k]);
                free(l.v);
                return r == -ENOENT ? 0 : r;
        }
        if (l.v)
                qsort(l.v, l.n, sizeof(char *), cmp_str);
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

static int count_rx(const char *name, ino_t ino, void *data) {
        *(unsigned *)data += strncmp(name, "rx-", 3) == 0;
        return 0;
}

/* Does the interface still have the RX queues the summary counted?  The fingerprint already
 * proved it is the same sysfs node, so its queues are counted directly; an interface that
 * sysfs did not show at probe time (0 queues: another network namespace's sysfs) is checked
 * the way the probe counted it. */
static bool same_rx_queues(const struct hw_xdp_if *x) {
        char path[128];
        unsigned n = 0;

        if (x->rx_queues == 0)
                return hw_count_rx_queues(x->name, x->ifindex) == 0;
        snprintf(path, sizeof path, "/sys/class/net/%s/queues", x->name);
        return for_each_entry(path, count_rx, &n) >= 0 && n == x->rx_queues;
}

static void strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

static int read_line_file(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        ssize_t n = read(fd, buf, size - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

/*
 * What a login can read cheaply (a few sysfs look-ups, no per-interface reads): the boot,
 * each RDMA device with the state of each port, each network interface by name and sysfs
 * node.  The RX queue counts of the interfaces the summary counts are checked apart, in
 * hw_cache_hardware(), only for those interfaces.
 */
int hw_fingerprint(char **ret) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        char **v = NULL, buf[128];
        size_t n;
        int r;

        if (!f)
                return -ENOMEM;
        r = read_line_file("/proc/sys/kernel/random/boot_id", buf, sizeof buf);
        fprintf(f, "boot=%s;rdma=", r < 0 ? "?" : buf);
        r = list_dir("/sys/class/infiniband", true, &v, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                /* the device's node and the state of each port ("4: ACTIVE") */
                char p[512], st[64];
                char **ports = NULL;
                size_t np = 0;
                fprintf(f, "%s", v[i]);
                *strrchr(v[i], '@') = '\0';
                snprintf(p, sizeof p, "/sys/class/infiniband/%s/ports", v[i]);
                if (list_dir(p, false, &ports, &np) == 0)
                        for (size_t k = 0; k < np; k++) {
                                snprintf(p, sizeof p, "/sys/class/infiniband/%s/ports/%s/state", v[i], ports[k]);
                                if (read_line_file(p, st, sizeof st) < 0)
                                        snprintf(st, sizeof st, "?");
                                fprintf(f, ":%s=%c", ports[k], st[0]);
                        }
                strv_free(ports);
                fputc(',', f);
        }
        strv_free(v);
        v = NULL;
        fputs(";net=", f);
        if (r >= 0)
                r = list_dir("/sys/class/net", true, &v, &n);
        for (size_t i = 0; r >= 0 && i < n; i++)
                fprintf(f, "%s,", v[i]);
        strv_free(v);
        if (fclose(f) != 0 || r < 0) {
                free(out);
                return r < 0 ? r : -ENOMEM;
        }
        *ret = out;
        return 0;
}

/* The hardware section: the fingerprint, then the summary. */
static int write_hardware(FILE *f, const void *data) {
        const struct hw_summary *s = data;
        _cleanup_free_ char *fp = NULL;
        int r = hw_fingerprint(&fp);

        if (r < 0)
                return r;
        fprintf(f, "fingerprint %s\nrdma_status %d\n", fp, s->rdma_status);
        for (size_t i = 0; i < s->n_rdma; i++) {
                const struct hw_rdma_dev *d = &s->rdma[i];
                fprintf(f, "rdma %s %d %llu %d %d %zu\n", d->name[0] ? d->name : "-", d->node_type,
                        (unsigned long long)d->max_mr_size, d->max_mr, -d->query_error, d->n_ports);
                for (size_t k = 0; k < d->n_ports; k++)
                        fprintf(f, "port %u %d %d %d\n", d->ports[k].num, d->ports[k].state, d->ports[k].link_layer,
                                -d->ports[k].query_error);
        }
        fprintf(f, "xdp_status %d\n", s->xdp_status);
        for (size_t i = 0; i < s->n_xdp; i++)
                fprintf(f, "xdp %u %s %llu %u\n", s->xdp[i].ifindex, s->xdp[i].name,
                        (unsigned long long)s->xdp[i].xdp_features, s->xdp[i].rx_queues);
        fprintf(f, "mem %d %llu\nend\n", s->mem_status, (unsigned long long)s->mem_total);
        return 0;
}

/* The policy section: the build, the policy's path and bytes, then its compiled form. */
static int write_policy(FILE *f, const void *data) {
        const struct hw_cache_policy *src = data;

        if (!src->path || !*src->path || (!src->text && src->len) || !src->policy)
                return -EINVAL;
        fprintf(f, "build %s\nsource %zu %zu\n", BUILD, strlen(src->path), src->len);
        fputs(src->path, f);
        if (src->len)
                fwrite(src->text, 1, src->len, f);
        fputc('\n', f);
        return policy_compiled_write(f, src->policy, src->diags);
}

/* "section NAME LENGTH\n" and the section written by fn. */
static int write_section(FILE *out, const char *name, int (*fn)(FILE *, const void *), const void *data) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        int r;

        if (!f)
                return -ENOMEM;
        r = fn(f, data);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (r < 0)
                return r;
        fprintf(out, "section %s %zu\n", name, size);
        fwrite(text, 1, size, out);
        return 0;
}

int hw_cache_save(const struct hw_summary *s, const struct hw_cache_policy *policy, const char *path) {
        _cleanup_free_ char *text = NULL, *dir = NULL;
        _cleanup_close_ int dfd = -1;
        size_t size = 0;
        FILE *f;
        int r;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", MAGIC);
        r = write_section(f, "hardware", write_hardware, s);
        if (r >= 0 && policy)
                r = write_section(f, "policy", write_policy, policy);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (r < 0)
                return r;
        if (size > HW_CACHE_MAX)
                return -EFBIG;
        dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return -EINVAL;
        *slash = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        return fs_write_atomic(dfd, slash + 1, text, size, 0600);
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

static int parse_cache(char *text, const char *fp, struct hw_summary *s) {
        char *line, *save = NULL;
        struct hw_rdma_dev *dev = NULL;
        size_t port_cap = 0;
        bool ended = false;

        line = strtok_r(text, "\n", &save);
        if (!line || strncmp(line, "fingerprint ", 12) != 0)
                return -EBADMSG;
        if (!streq(line + 12, fp))
                return -ESTALE;
        while ((line = strtok_r(NULL, "\n", &save))) {
                char *w[8];
                size_t n = words(line, w, 8);
                uint64_t u;
                int a, b, c;
                if (n == 2 && streq(w[0], "rdma_status")) {
                        if (int_of(w[1], &s->rdma_status) < 0)
                                return -EBADMSG;
                } else if (n == 7 && streq(w[0], "rdma")) {
                        struct hw_rdma_dev *v = reallocarray(s->rdma, s->n_rdma + 1, sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        s->rdma = v;
                        dev = &s->rdma[s->n_rdma++];
                        *dev = (struct hw_rdma_dev){};
                        snprintf(dev->name, sizeof dev->name, "%s", streq(w[1], "-") ? "" : w[1]);
                        if (int_of(w[2], &dev->node_type) < 0 || parse_u64(w[3], &dev->max_mr_size) < 0 ||
                            int_of(w[4], &dev->max_mr) < 0 || int_of(w[5], &a) < 0 || parse_u64(w[6], &u) < 0 || u > 255)
                                return -EBADMSG;
                        dev->query_error = -a;
                        port_cap = u;
                        if (u) {
                                dev->ports = calloc(u, sizeof(*dev->ports));
                                if (!dev->ports)
                                        return -ENOMEM;
                        }
                } else if (n == 5 && streq(w[0], "port")) {
                        if (!dev || !dev->ports || dev->n_ports >= port_cap || int_of(w[1], &a) < 0 || a <= 0)
                                return -EBADMSG;
                        /* ports are written in order; n_ports counts those read */
                        struct hw_port *p = &dev->ports[dev->n_ports];
                        int e;
                        if (int_of(w[2], &b) < 0 || int_of(w[3], &c) < 0 || int_of(w[4], &e) < 0)
                                return -EBADMSG;
                        p->num = (unsigned)a;
                        p->state = b;
                        p->link_layer = c;
                        p->query_error = -e;
                        dev->n_ports++;
                } else if (n == 2 && streq(w[0], "xdp_status")) {
                        if (int_of(w[1], &s->xdp_status) < 0)
                                return -EBADMSG;
                } else if (n == 5 && streq(w[0], "xdp")) {
                        struct hw_xdp_if *v = reallocarray(s->xdp, s->n_xdp + 1, sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        s->xdp = v;
                        struct hw_xdp_if *x = &s->xdp[s->n_xdp++];
                        *x = (struct hw_xdp_if){};
                        uint32_t idx, rxq;
                        if (parse_u32(w[1], &idx) < 0 || strlen(w[2]) >= sizeof x->name || strchr(w[2], '/') ||
                            streq(w[2], ".") || streq(w[2], "..") ||
                            parse_u64(w[3], &x->xdp_features) < 0 || parse_u32(w[4], &rxq) < 0)
                                return -EBADMSG;
                        x->ifindex = idx;
                        snprintf(x->name, sizeof x->name, "%s", w[2]);
                        x->zero_copy = x->xdp_features & HW_XDP_XSK_ZEROCOPY;
                        x->rx_queues = rxq;
                } else if (n == 3 && streq(w[0], "mem")) {
                        if (int_of(w[1], &s->mem_status) < 0 || parse_u64(w[2], &s->mem_total) < 0)
                                return -EBADMSG;
                } else if (n == 1 && streq(w[0], "end")) {
                        ended = true;
                        break;
                } else
                        return -EBADMSG;
        }
        return ended ? 0 : -EBADMSG;
}

struct hw_cache {
        char *text;
        const char *hw, *policy;        /* the sections, in text; policy may be NULL */
        size_t hw_len, policy_len;
};

void hw_cache_free(struct hw_cache *c) {
        if (!c)
                return;
        free(c->text);
        free(c);
}

/* "section NAME LENGTH\n" at *pos, and the LENGTH bytes after it. */
static int next_section(const char *text, size_t len, size_t *pos, const char **ret_name, size_t *ret_name_len,
                        const char **ret_body, size_t *ret_body_len) {
        const char *p = text + *pos, *end = text + len, *nl = memchr(p, '\n', (size_t)(end - p));
        char head[64], *sp;
        uint64_t n;

        if (!nl || strncmp(p, "section ", 8) != 0 || (size_t)(nl - p) >= sizeof head)
                return -EBADMSG;
        memcpy(head, p + 8, (size_t)(nl - p) - 8);
        head[nl - p - 8] = '\0';
        sp = strrchr(head, ' ');
        if (!sp || sp == head || parse_u64(sp + 1, &n) < 0 || n > (uint64_t)(end - nl - 1))
                return -EBADMSG;
        *ret_name = p + 8;
        *ret_name_len = (size_t)(sp - head);
        *ret_body = nl + 1;
        *ret_body_len = n;
        *pos = (size_t)(nl + 1 - text) + n;
        return 0;
}

int hw_cache_read(const char *path, struct hw_cache **ret) {
        _cleanup_close_ int fd = -1;
        struct hw_cache *c;
        size_t len = 0, pos;
        int r;

        r = fs_open_config(AT_FDCWD, path, true, true, &fd, NULL);
        if (r < 0)
                return r;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        r = fs_read_all(fd, HW_CACHE_MAX, &c->text, &len);
        if (r < 0) {
                hw_cache_free(c);
                return r;
        }
        pos = strlen(MAGIC) + 1;
        if (len < pos || memcmp(c->text, MAGIC "\n", pos) != 0)
                r = -EBADMSG;
        while (r >= 0 && pos < len) {
                const char *name, *body;
                size_t name_len, body_len;
                r = next_section(c->text, len, &pos, &name, &name_len, &body, &body_len);
                if (r < 0)
                        break;
                if (name_len == 8 && memcmp(name, "hardware", 8) == 0 && !c->hw) {
                        c->hw = body;
                        c->hw_len = body_len;
                } else if (name_len == 6 && memcmp(name, "policy", 6) == 0 && !c->policy) {
                        c->policy = body;
                        c->policy_len = body_len;
                } else
                        r = -EBADMSG;
        }
        if (r >= 0 && !c->hw)
                r = -EBADMSG;
        if (r < 0) {
                hw_cache_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

int hw_cache_hardware(const struct hw_cache *c, struct hw_summary **ret) {
        _cleanup_free_ char *text = NULL, *fp = NULL;
        struct hw_summary *s;
        int r;

        text = strndup(c->hw, c->hw_len);
        if (!text)
                return -ENOMEM;
        if (strlen(text) != c->hw_len)
                return -EBADMSG;
        r = hw_fingerprint(&fp);
        if (r < 0)
                return r;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        r = parse_cache(text, fp, s);
        /* the interfaces the summary counts still have the RX queues it counted */
        for (size_t i = 0; r >= 0 && i < s->n_xdp; i++)
                if (!same_rx_queues(&s->xdp[i]))
                        r = -ESTALE;
        if (r < 0) {
                hw_summary_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int hw_cache_policy(const struct hw_cache *c, const char *path, const char *text, size_t len, struct policy **ret,
                    struct diag_list *diags) {
        const char *p, *end, *nl;
        char head[96];
        uint64_t path_len, text_len;

        if (!c->policy)
                return -ENOENT;
        p = c->policy;
        end = c->policy + c->policy_len;
        /* build rdmalimit VERSION */
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
                return -EBADMSG;
        if ((size_t)(nl - p) != strlen("build " BUILD) || memcmp(p, "build " BUILD, (size_t)(nl - p)) != 0)
                return -ESTALE;
        p = nl + 1;
        /* source PATH_LENGTH TEXT_LENGTH, then the path and the text and a newline */
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || (size_t)(nl - p) >= sizeof head)
                return -EBADMSG;
        memcpy(head, p, (size_t)(nl - p));
        head[nl - p] = '\0';
        {
                char *sp = strncmp(head, "source ", 7) == 0 ? strchr(head + 7, ' ') : NULL;
                if (!sp)
                        return -EBADMSG;
                *sp = '\0';
                if (parse_u64(head + 7, &path_len) < 0 || parse_u64(sp + 1, &text_len) < 0)
                        return -EBADMSG;
        }
        p = nl + 1;
        if (path_len > (uint64_t)(end - p) || text_len > (uint64_t)(end - p) - path_len ||
            path_len + text_len + 1 > (uint64_t)(end - p) || p[path_len + text_len] != '\n')
                return -EBADMSG;
        if (path_len != strlen(path) || memcmp(p, path, path_len) != 0 || text_len != len ||
            (len && memcmp(p + path_len, text, len) != 0))
                return -ESTALE;
        p += path_len + text_len + 1;
        return policy_compiled_read(p, (size_t)(end - p), path, ret, diags);
}

int hw_cache_policy_state(const struct hw_cache *c, const char *policy_name, const char *text, size_t len) {
        struct policy *p = NULL;
        int r = hw_cache_policy(c, policy_name, text, len, &p, NULL);

        policy_free(p);
        return r == -ENOENT ? -ENODATA : r;
}

int hw_cache_or_probe(const struct hw_cache *c, struct hw_summary **ret, bool *ret_cached) {
        int r = c ? hw_cache_hardware(c, ret) : -ENOENT;

        *ret_cached = r >= 0;
        if (r >= 0 || r == -ENOMEM)
                return r;
        return hw_probe(HW_ALL, ret);
}
