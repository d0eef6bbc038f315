/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ibverbs side of the hardware summary, for the tool only: the device attributes
 * (max_mr_size, max_mr) that sysfs does not show, and the pin-test's ibv_reg_mr.
 *
 * libibverbs and every provider it loads read environment variables (VERBS_LOG_FILE,
 * RDMAV_DRIVERS, MLX5_DEBUG_FILE, ...) and open files as the effective user: loaded in a
 * setuid PAM program they would act on the caller's environment as root.  pam_rdmalimit
 * never calls anything here (the module's tests check that its binary does not even name
 * libibverbs); `rdmalimits probe --save`, run by systemd with a clean environment, writes
 * these attributes into the cache the module reads.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "macro.h"

#ifndef HAVE_LIBIBVERBS
/* built without libibverbs (--disable-rdma): ports still come from sysfs */
int hw_probe_verbs(struct hw_summary *s) {
        if (!s)
                return -EINVAL;
        s->verbs_status = -ENOPKG;
        return 0;
}

int hw_rdma_reg_mr_test(void *buf, size_t len, int *ret_status, struct hw_mr_result **ret, size_t *ret_n) {
        *ret = NULL;
        *ret_n = 0;
        *ret_status = -ENOPKG;
        return 0;
}
#else
#include <infiniband/verbs.h>

/* The exported symbols are versioned; IBVERBS_1.1 is the default version of every function
 * used below (IBVERBS_1.0 holds the old ABI).  The soname comes from configure (config.h). */
#define IBVERBS_VERSION "IBVERBS_1.1"

struct ibv_fns {
        struct ibv_device **(*get_device_list)(int *num_devices);
        void (*free_device_list)(struct ibv_device **list);
        const char *(*get_device_name)(struct ibv_device *device);
        struct ibv_context *(*open_device)(struct ibv_device *device);
        int (*close_device)(struct ibv_context *context);
        int (*query_device)(struct ibv_context *context, struct ibv_device_attr *attr);
        struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
        int (*dealloc_pd)(struct ibv_pd *pd);
        struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
        int (*dereg_mr)(struct ibv_mr *mr);
};

#define RESOLVE(h, fns, field, name) DL_ASSIGN((fns)->field, dlvsym((h), (name), IBVERBS_VERSION))

static int ibv_resolve(void *h, struct ibv_fns *f) {
        RESOLVE(h, f, get_device_list, "ibv_get_device_list");
        RESOLVE(h, f, free_device_list, "ibv_free_device_list");
        RESOLVE(h, f, get_device_name, "ibv_get_device_name");
        RESOLVE(h, f, open_device, "ibv_open_device");
        RESOLVE(h, f, close_device, "ibv_close_device");
        RESOLVE(h, f, query_device, "ibv_query_device");
        RESOLVE(h, f, alloc_pd, "ibv_alloc_pd");
        RESOLVE(h, f, dealloc_pd, "ibv_dealloc_pd");
        RESOLVE(h, f, reg_mr, "ibv_reg_mr");
        RESOLVE(h, f, dereg_mr, "ibv_dereg_mr");
        return 0;
}

/* libibverbs opened, its functions and its device list; status as hw_summary.verbs_status.
 * verbs_close() (a _cleanup_ function) releases what verbs_open() got, even when it failed. */
struct verbs {
        void *h;
        struct ibv_fns f;
        struct ibv_device **list;
        int n;
};

static int verbs_open(struct verbs *v) {
        int r;

        v->h = dlopen(LIBIBVERBS_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!v->h)
                return -ENOENT;
        r = ibv_resolve(v->h, &v->f);
        if (r < 0)
                return r;
        errno = 0;
        v->list = v->f.get_device_list(&v->n);
        if (!v->list)
                /* ENOSYS: no RDMA support in the kernel; libibverbs sets errno. */
                return errno > 0 ? -errno : -ENODEV;
        return 0;
}

static void verbs_close(struct verbs *v) {
        if (v->list)
                v->f.free_device_list(v->list);
        if (v->h)
                dlclose(v->h);
}

static void query_one(const struct ibv_fns *f, struct ibv_device *dev, struct hw_rdma_dev *d) {
        struct ibv_device_attr attr = {};
        struct ibv_context *ctx;
        int r;

        errno = 0;
        ctx = f->open_device(dev);
        if (!ctx) {
                d->verbs_error = negative_errno();
                return;
        }
        errno = 0;
        r = f->query_device(ctx, &attr);
        if (r != 0)
                d->verbs_error = r > 0 ? -r : negative_errno(); /* older providers: -1 and errno */
        else {
                d->verbs_error = 0;
                d->max_mr_size = attr.max_mr_size;
                d->max_mr = attr.max_mr;
        }
        f->close_device(ctx);
}

int hw_probe_verbs(struct hw_summary *s) {
        _cleanup_(verbs_close) struct verbs v = {};

        if (!s)
                return -EINVAL;
        s->verbs_status = verbs_open(&v);
        if (s->verbs_status < 0)
                return 0;
        /* libibverbs names its devices as sysfs does: match them by name */
        for (int i = 0; i < v.n; i++) {
                const char *name = v.f.get_device_name(v.list[i]);
                for (size_t k = 0; name && k < s->n_rdma; k++)
                        if (streq(s->rdma[k].name, name))
                                query_one(&v.f, v.list[i], &s->rdma[k]);
        }
        return 0;
}

int hw_rdma_reg_mr_test(void *buf, size_t len, int *ret_status, struct hw_mr_result **ret, size_t *ret_n) {
        struct hw_mr_result *res;
        _cleanup_(verbs_close) struct verbs v = {};

        *ret = NULL;
        *ret_n = 0;
        *ret_status = verbs_open(&v);
        if (*ret_status < 0)
                return 0;
        res = calloc(v.n > 0 ? (size_t)v.n : 1, sizeof(*res));
        if (!res)
                return -ENOMEM;
        for (int i = 0; i < v.n; i++) {
                struct hw_mr_result *x = &res[i];
                const char *name = v.f.get_device_name(v.list[i]);
                struct ibv_context *ctx;
                struct ibv_pd *pd;
                struct ibv_mr *mr;

                snprintf(x->name, sizeof x->name, "%s", name ? name : "");
                errno = 0;
                ctx = v.f.open_device(v.list[i]);
                if (!ctx) {
                        x->error = negative_errno();
                        x->step = "open";
                        continue;
                }
                errno = 0;
                pd = v.f.alloc_pd(ctx);
                if (!pd) {
                        x->error = negative_errno();
                        x->step = "alloc_pd";
                        v.f.close_device(ctx);
                        continue;
                }
                errno = 0;
                mr = v.f.reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
                if (!mr) {
                        x->error = negative_errno();
                        x->step = "reg_mr";
                } else
                        v.f.dereg_mr(mr);
                v.f.dealloc_pd(pd);
                v.f.close_device(ctx);
        }
        *ret = res;
        *ret_n = (size_t)v.n;
        return 0;
}
#endif /* HAVE_LIBIBVERBS */
