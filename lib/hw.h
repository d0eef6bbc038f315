/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Hardware summary: RDMA devices (libibverbs, dlopen()ed only when asked for), AF_XDP
 * capable interfaces (netdev generic netlink family via libmnl, RX queues from sysfs) and
 * physical RAM.  Library code: no printing, negative errno, thread-safe, O_CLOEXEC.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

/* netdev family xdp-features bits (include/uapi/linux/netdev.h) */
#define HW_XDP_BASIC        (UINT64_C(1) << 0)
#define HW_XDP_REDIRECT     (UINT64_C(1) << 1)
#define HW_XDP_NDO_XMIT     (UINT64_C(1) << 2)
#define HW_XDP_XSK_ZEROCOPY (UINT64_C(1) << 3)
#define HW_XDP_HW_OFFLOAD   (UINT64_C(1) << 4)
#define HW_XDP_RX_SG        (UINT64_C(1) << 5)
#define HW_XDP_NDO_XMIT_SG  (UINT64_C(1) << 6)

enum hw_what {
        HW_RDMA = 1 << 0,
        HW_XDP = 1 << 1,
        HW_MEM = 1 << 2,
        HW_ALL = HW_RDMA | HW_XDP | HW_MEM,
};

struct hw_port {
        unsigned num;      /* 1-based port number */
        int state;         /* enum ibv_port_state: 4 = ACTIVE */
        int link_layer;    /* 0 unspecified, 1 InfiniBand, 2 Ethernet */
        int query_error;   /* 0, or negative errno of ibv_query_port */
};

struct hw_rdma_dev {
        char name[64];
        int node_type;         /* enum ibv_node_type */
        uint64_t max_mr_size;  /* 0 when the device could not be queried */
        int max_mr;
        int query_error;       /* 0, or negative errno of open/query_device */
        size_t n_ports;
        struct hw_port *ports;
};

struct hw_xdp_if {
        unsigned ifindex;
        char name[IF_NAMESIZE];
        uint64_t xdp_features;
        bool zero_copy;        /* xdp_features & HW_XDP_XSK_ZEROCOPY */
        unsigned rx_queues;
};

struct hw_summary {
        /* 0: probed; -ENOENT: libibverbs not installed; -ENOSYS/-ENODEV: no RDMA support or
         * no device; other negative errno: failure.  Not probed: -ENODATA. */
        int rdma_status;
        size_t n_rdma;
        struct hw_rdma_dev *rdma;

        /* 0: probed; -EOPNOTSUPP: the kernel has no netdev family ("unknown");
         * other negative errno: failure.  Not probed: -ENODATA. */
        int xdp_status;
        size_t n_xdp;          /* only interfaces with xdp_features != 0 */
        struct hw_xdp_if *xdp;

        int mem_status;        /* 0 or negative errno; not probed: -ENODATA */
        uint64_t mem_total;    /* bytes, from /proc/meminfo MemTotal */
};

/* Probe what `what` asks for.  Partial failures are recorded in the *_status fields; the
 * return value is negative only for -ENOMEM or bad arguments.  *ret set only on success. */
int hw_probe(unsigned what, struct hw_summary **ret);
void hw_summary_free(struct hw_summary *s);

/* Number of /sys/class/net/NAME/queues/rx-* entries; 0 when sysfs shows no interface NAME
 * with this ifindex (a sysfs mounted for another network namespace shows other devices). */
unsigned hw_count_rx_queues(const char *name, unsigned ifindex);

/* Counts used by the policy's `auto` formula. */
unsigned hw_active_ports(const struct hw_summary *s);
unsigned hw_zc_queues(const struct hw_summary *s);    /* RX queues of zero-copy interfaces */
unsigned hw_copy_queues(const struct hw_summary *s);  /* RX queues of other XDP interfaces */
/* Smallest max_mr_size over devices with an active port that could be queried; 0 if none. */
uint64_t hw_min_max_mr_size(const struct hw_summary *s);

const char *hw_port_state_name(int state);
const char *hw_link_layer_name(int ll);
const char *hw_node_type_name(int nt);

/* One RDMA device's answer to "register SIZE bytes" (rdmalimits pin-test). */
struct hw_mr_result {
        char name[64];
        int error;             /* 0: registered (and released); else negative errno */
        const char *step;      /* "open", "alloc_pd", "reg_mr" where it failed */
};

/*
 * Register buf/len as a memory region on every RDMA device (ibv_reg_mr with
 * IBV_ACCESS_LOCAL_WRITE), then release it.  *ret_status as hw_summary.rdma_status.
 * *ret is a malloc()ed array of *ret_n results.
 */
int hw_rdma_reg_mr_test(void *buf, size_t len, int *ret_status, struct hw_mr_result **ret, size_t *ret_n);
