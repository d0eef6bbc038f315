/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Hardware summary: RDMA devices and ports (sysfs), AF_XDP capable interfaces (netdev generic
 * netlink family (netlink.h); RX queues from its queue list when the interface is up, else
 * from sysfs; the physical-device link from sysfs) and physical RAM.  Library code: no
 * printing, negative errno, thread-safe, O_CLOEXEC.
 *
 * hw_probe() reads only the kernel: sysfs, sysinfo(2) and netlink (no library, no
 * environment).  It is what a login may run.  The ibverbs device attributes
 * (max_mr_size, max_mr) need libibverbs and its providers, which read the environment and
 * open files as the caller: hw_probe_verbs() in lib/host/hw-verbs.c adds them, for the tool only
 * (`rdmalimits probe --save` writes them to the cache the module reads).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <sys/types.h>

/* netdev family xdp-features bit NETDEV_XDP_ACT_XSK_ZEROCOPY (include/uapi/linux/netdev.h) */
#define HW_XDP_XSK_ZEROCOPY (UINT64_C(1) << 3)

enum hw_what {
        HW_RDMA = 1 << 0,
        HW_XDP = 1 << 1,
        HW_MEM = 1 << 2,
        HW_ALL = HW_RDMA | HW_XDP | HW_MEM,
        /* Only what `auto` counts, for a login: port states without node_type and link_layer,
         * and only the interfaces hw_netsel_counts() counts.  The counts below are the same
         * as without it. */
        HW_COUNTS = 1 << 3,
};

/* Bounds on what a summary holds (the cache reader refuses more). */
#define HW_MAX_RDMA_DEVICES 256
#define HW_MAX_PORTS 255              /* per device: a switch has at most 255 */
#define HW_MAX_PORTS_TOTAL 1024
#define HW_MAX_INTERFACES 1024

#define HW_PORT_ACTIVE 4              /* enum ibv_port_state, sysfs "4: ACTIVE" */

struct hw_port {
        unsigned num;      /* 1-based port number */
        int state;         /* sysfs ports/N/state: 4 = ACTIVE (enum ibv_port_state) */
        int link_layer;    /* 0 unspecified, 1 InfiniBand, 2 Ethernet */
        int query_error;   /* 0, or negative errno reading the port's state */
};

struct hw_rdma_dev {
        char name[64];
        int node_type;         /* sysfs node_type: enum ibv_node_type */
        int query_error;       /* 0, or negative errno reading the device's sysfs node */
        /* ibverbs attributes (hw_probe_verbs(), the tool only): known when verbs_error is 0 */
        int verbs_error;       /* -ENODATA: not queried */
        uint64_t max_mr_size;
        int max_mr;
        size_t n_ports;
        struct hw_port *ports;
};

struct hw_xdp_if {
        unsigned ifindex;
        char name[IF_NAMESIZE];
        uint64_t xdp_features;
        bool zero_copy;        /* xdp_features & HW_XDP_XSK_ZEROCOPY */
        bool physical;         /* sysfs shows a `device` link (never veth, bridge, tun, dummy) */
        bool counted;          /* physical or included, and not excluded (hw_netsel) */
        unsigned rx_queues;    /* real_num_rx_queues: netlink's queue list (up), else sysfs */
};

/*
 * Which network interfaces `auto` counts: physical ones (a `device` link in sysfs), plus
 * those matching an include pattern, less those matching an exclude pattern (fnmatch(3) on
 * the name).  Containers' veths come and go; counting them would change a user's limit and
 * stale the cache each time.
 */
struct hw_netsel {
        char **include;        /* NULL-terminated, or NULL */
        char **exclude;
};
bool hw_netsel_counts(const struct hw_netsel *sel, const char *name, bool physical);
/* /sys/class/net/NAME/device exists (not following it) */
bool hw_if_physical(const char *name);
/*
 * hw_if_physical() for many names at once, with the same answers and fewer path walks.  The
 * walk through the /sys/class/net/NAME link is what costs (sysfs builds the link's target for
 * each one), and every container's veth is one more.  An interface without a parent device is
 * a directory of /sys/devices/virtual/net, where /sys/class/net/NAME points: those are listed
 * once, and their `device` looked up relative to that directory; any other name (a physical
 * device, one created since the listing) is asked hw_if_physical().  Not thread-safe; free
 * with hw_physmap_done().
 */
struct hw_physmap {
        int virt_fd;           /* /sys/devices/virtual/net, or -1 */
        bool listed;           /* listing tried (virt_fd < 0 after it: not readable) */
        char (*virt)[IF_NAMESIZE];  /* its entries, sorted */
        size_t n_virt, allocated;
        signed char here;      /* hw_physmap_is_physical_here(): does sysfs show this network
                                * namespace?  0 not asked yet, 1 yes, -1 no */
};
#define HW_PHYSMAP_INIT { .virt_fd = -1 }
#define HW_PHYSMAP_MAX 16384   /* entries listed at most; the rest ask hw_if_physical() */
bool hw_physmap_is_physical(struct hw_physmap *m, const char *name);
/*
 * Is the interface NAME with ifindex, of the network namespace of the socket fd, physical?
 * sysfs answers for the namespace it was mounted in, which need not be the caller's: after
 * `unshare -n` without mounting sysfs again, the host's eth0 answers for a veth named eth0.
 * The first interface sysfs calls physical is checked against this namespace's kernel: its
 * sysfs ifindex and hardware address must be those SIOCGIFHWADDR and the caller's ifindex
 * give.  When they are not, sysfs shows another namespace (m->here -1) and no interface is
 * called physical: unknown, so not counted unless included.  (An interface of the same name,
 * ifindex and address in both namespaces cannot be told apart this way.)
 */
bool hw_physmap_is_physical_here(struct hw_physmap *m, int fd, const char *name, unsigned ifindex);
void hw_physmap_done(struct hw_physmap *m);

struct hw_summary {
        /* 0: sysfs read (n_rdma 0 when there is no /sys/class/infiniband: no RDMA device or
         * no RDMA support in the kernel); other negative errno: failure.  Not probed: -ENODATA. */
        int rdma_status;
        /* hw_probe_verbs(): 0 queried; -ENOENT libibverbs not installed; other negative
         * errno: failure.  Not queried (always so in a login): -ENODATA. */
        int verbs_status;
        size_t n_rdma;
        struct hw_rdma_dev *rdma;

        /* 0: probed; -EOPNOTSUPP: the kernel has no netdev family ("unknown");
         * other negative errno: failure.  Not probed: -ENODATA. */
        int xdp_status;
        size_t n_xdp;          /* only interfaces with xdp_features != 0 */
        struct hw_xdp_if *xdp;
        bool sysfs_other_netns; /* sysfs shows another network namespace: whether an
                                 * interface is physical is unknown, none is called so */

        int mem_status;        /* 0 or negative errno; not probed: -ENODATA */
        uint64_t mem_total;    /* bytes: sysinfo(2)'s totalram, MemTotal */
};

/* Probe what `what` asks for, from the kernel only (no libibverbs); sel may be NULL (physical
 * interfaces only).  Partial failures are recorded in the *_status fields; the return value
 * is negative only for -ENOMEM or bad arguments.  *ret set only on success. */
int hw_probe(unsigned what, const struct hw_netsel *sel, struct hw_summary **ret);
void hw_summary_free(struct hw_summary *s);
static inline void hw_summary_freep(struct hw_summary **s) {
        hw_summary_free(*s);
}

/* Add the ibverbs attributes of the devices sysfs showed (lib/host/hw-verbs.c: loads libibverbs,
 * never in a login).  Records the outcome in s->verbs_status; -ENOMEM only. */
int hw_probe_verbs(struct hw_summary *s);

/* Number of /sys/class/net/NAME/queues/rx-* entries; 0 when sysfs shows no interface NAME
 * with this ifindex (a sysfs mounted for another network namespace shows other devices). */
unsigned hw_count_rx_queues(const char *name, unsigned ifindex);
/* The same without the ifindex check: negative errno when the directory cannot be read. */
int hw_rx_queue_entries(const char *name, unsigned *ret);

/* The sysfs and /proc readers of a login.  The first line of a small file, without its
 * newline. */
int hw_read_line(const char *path, char *buf, size_t size);
/* Calls fn for each entry of a directory but "." and "..": one open, getdents64 and close,
 * which is all a login can afford per directory.  -ENOENT when the directory is missing.
 * fn returning a negative errno stops the walk with it, a positive value stops it with 0. */
int hw_for_each_entry(const char *path, int (*fn)(const char *name, ino_t ino, void *data),
                      void *data);

/* Counts used by the policy's `auto` formula (counted interfaces only). */
unsigned hw_active_ports(const struct hw_summary *s);
unsigned hw_zc_queues(const struct hw_summary *s);    /* RX queues of zero-copy interfaces */
unsigned hw_copy_queues(const struct hw_summary *s);  /* RX queues of other counted interfaces */
/* Smallest max_mr_size over devices with an active port whose attributes are known; 0 if
 * none.  *ret_unknown (may be NULL): a device with an active port has no known attributes. */
uint64_t hw_min_max_mr_size(const struct hw_summary *s, bool *ret_unknown);


/* One RDMA device's answer to "register SIZE bytes" (rdmalimits pin-test). */
struct hw_mr_result {
        char name[64];
        int error;             /* 0: registered (and released); else negative errno */
        const char *step;      /* "open", "alloc_pd", "reg_mr" where it failed */
};

/*
 * Register buf/len as a memory region on every RDMA device (ibv_reg_mr with
 * IBV_ACCESS_LOCAL_WRITE), then release it (lib/host/hw-verbs.c, the tool only).  *ret_status as
 * hw_summary.verbs_status, or -ENODEV/-ENOSYS when libibverbs lists no device.
 * *ret is a malloc()ed array of *ret_n results.
 */
int hw_rdma_reg_mr_test(void *buf, size_t len, int *ret_status, struct hw_mr_result **ret, size_t *ret_n);
