/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing the hardware cache (`rdmalimits probe --save`, rdmalimit-cache.service): the tool's
 * side of the format lib/login/hwcache.c reads in a login.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "hwcache-write.h"
#include "macro.h"

static bool within_bounds(const struct hw_summary *s) {
        size_t ports = 0, counted = 0;

        if (s->n_rdma > HW_MAX_RDMA_DEVICES)
                return false;
        for (size_t i = 0; i < s->n_rdma; i++) {
                if (s->rdma[i].n_ports > HW_MAX_PORTS)
                        return false;
                ports += s->rdma[i].n_ports;
        }
        for (size_t i = 0; i < s->n_xdp; i++)
                counted += s->xdp[i].counted;
        return ports <= HW_MAX_PORTS_TOTAL && counted <= HW_MAX_INTERFACES;
}

int hw_cache_format(const struct hw_summary *s, const struct hw_netsel *sel, char **ret, size_t *ret_len) {
        _cleanup_free_ char *fp = NULL, *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (!within_bounds(s))
                return -E2BIG;
        r = hw_fingerprint(sel, &fp);
        if (r < 0)
                return r;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\nfingerprint %s\nrdma_status %d\nverbs_status %d\n", HW_CACHE_MAGIC, fp, s->rdma_status,
                s->verbs_status);
        for (size_t i = 0; i < s->n_rdma; i++) {
                const struct hw_rdma_dev *d = &s->rdma[i];
                fprintf(f, "rdma %s %d %d %d %llu %d\n", d->name, d->node_type, -d->query_error, -d->verbs_error,
                        (unsigned long long)d->max_mr_size, d->max_mr);
                for (size_t k = 0; k < d->n_ports; k++)
                        fprintf(f, "port %u %d %d %d\n", d->ports[k].num, d->ports[k].state, d->ports[k].link_layer,
                                -d->ports[k].query_error);
        }
        fprintf(f, "xdp_status %d\n", s->xdp_status);
        for (size_t i = 0; i < s->n_xdp; i++)
                if (s->xdp[i].counted)
                        fprintf(f, "xdp %u %s %llu %u %d\n", s->xdp[i].ifindex, s->xdp[i].name,
                                (unsigned long long)s->xdp[i].xdp_features, s->xdp[i].rx_queues, s->xdp[i].physical);
        fprintf(f, "mem %d %llu\nend\n", s->mem_status, (unsigned long long)s->mem_total);
        if (fclose(f) != 0 || !text)
                return -ENOMEM;
        if (size > HW_CACHE_MAX)
                return -EFBIG;
        *ret = TAKE_PTR(text);
        *ret_len = size;
        return 0;
}

int hw_cache_save_at(const struct hw_summary *s, const struct hw_netsel *sel, int dirfd, const char *name) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = hw_cache_format(s, sel, &text, &len);

        if (r < 0)
                return r;
        return fs_write_atomic(dirfd, name, text, len, 0600);
}

int hw_cache_save(const struct hw_summary *s, const struct hw_netsel *sel, const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        _cleanup_close_ int dfd = -1;
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir || !slash[1])
                return -EINVAL;
        *slash = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return negative_errno();
        return hw_cache_save_at(s, sel, dfd, slash + 1);
}
