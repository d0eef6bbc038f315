/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * status: what every process may lock and pin, what it holds, and where its limit came from;
 * per user and per unit the sum the kernel charges against RLIMIT_MEMLOCK and the headroom.
 * Collection and accounting only (nothing printed): `rdmalimits status`, `pin-test` and
 * `doctor --pid` share it.
 *
 * The kernel keeps three counters, each compared with the soft RLIMIT_MEMLOCK of the process
 * that asks for more (never enforced with CAP_IPC_LOCK):
 *   - mlock(), mmap(MAP_LOCKED): the process's locked_vm (VmLck in /proc/PID/status);
 *     over the limit -> ENOMEM (EAGAIN for mlock2/MCL_ONFAULT).
 *   - RDMA MRs (ib_umem_get), and other pin_user_pages users: the process's pinned_vm (VmPin);
 *     over the limit -> ENOMEM.
 *   - AF_XDP UMEMs (xdp_umem_account_pages): the USER's locked_vm, summed over all the user's
 *     processes (io_uring registered buffers and perf ring buffers count there too); over the
 *     limit -> ENOBUFS.  VmLck/VmPin do not show it.
 *
 * The user's locked_vm comes from sock_diag for AF_XDP where the kernel has it (each UMEM,
 * its size, its socket and, through /proc/PID/fd, its holder), else from an active probe: a
 * child process with the user's uid, without CAP_IPC_LOCK (only CAP_NET_RAW kept), asks the
 * kernel under memlock limits chosen by bisection whether one more page fits: a one-page
 * UMEM at a PROT_NONE address, charged (or refused with ENOBUFS) and, when the pin fails,
 * uncharged again before the call returns, so the probe leaves nothing charged.  The
 * smallest limit under which one page fits is the charge plus one page, exactly.  Each number
 * carries the method that gave it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procfs.h"
#include "rlimit.h"

enum status_method {
        STATUS_M_UNKNOWN,        /* "unknown": no way to know on this kernel or with these privileges */
        STATUS_M_SOCK_DIAG,      /* "sock_diag" */
        STATUS_M_PROBE,          /* "probe" */
        STATUS_M_PROC,           /* "proc": /proc/PID/status, /proc/PID/limits, /proc/net/protocols */
        STATUS_M_RDMA_NETLINK,   /* "rdma_netlink" */
        STATUS_M_PIDFD,          /* "pidfd": each socket descriptor's protocol, through an O_PATH open of
                                  * /proc/PID/fd/N (the name is kept from when pidfd_getfd() copied it) */
};
const char *status_method_name(enum status_method m);

/* Where a process's limits came from, read from its cgroup and its ancestors. */

struct status_proc {
        pid_t pid;
        pid_t nspid;                     /* its pid in its own (innermost) PID namespace */
        uid_t uid;                       /* real uid */
        gid_t gid;
        char comm[64];                   /* raw bytes: escape before printing */
        bool limits_known;
        struct rl_pair memlock;
        bool cap_ipc_lock;               /* in its effective set: the kernel enforces nothing */
        char cgroup[512];                /* the v2 path (or name=systemd's) */
        enum cgroup_origin origin;
        char origin_name[256];
        char origin_owner[64];           /* see proc_cgroup_classify() */
        uint64_t vmlck, vmpin;           /* bytes (VmLck, VmPin) */
        unsigned long long netns;        /* inode of its network namespace, 0: unknown */
        /* AF_XDP sockets among its descriptors, where the method can tell */
        size_t n_xsk;
        uint32_t xsk_ino[16];            /* the first 16 */
        enum status_method xsk_method;   /* sock_diag, pidfd, or unknown */
        uint64_t xsk_umem_bytes;         /* UMEMs registered through its sockets (sock_diag only) */
        /* RDMA MRs it registered */
        enum status_method mr_method;    /* rdma_netlink or unknown */
        size_t n_mr;
        uint64_t mr_bytes;
        bool over_threshold;
};

struct status_umem {                     /* sock_diag only */
        uint32_t ino, uid, id;
        uint64_t size, charged;          /* charged: pages x page size */
        pid_t holder;                    /* first process holding the socket, 0: none found */
        uint32_t ifindex, queue_id;
        bool zerocopy;
        bool shared;                     /* an earlier socket's UMEM: charged there (charged 0) */
};

/* What a user's or a unit's processes may lock and what is charged against that. */
struct status_account {
        size_t n_procs;
        bool limit_known;
        struct rl_pair memlock;          /* the largest soft (and hard) of the processes */
        bool limits_differ;              /* the processes do not all have the same soft limit */
        enum status_method charged_method; /* unknown: charged is not known */
        uint64_t charged;
        bool charged_at_least;           /* the probe hit its ceiling: charged is a lower bound */
        bool headroom_known;
        uint64_t headroom;               /* soft limit minus charge (UINT64_MAX: unlimited) */
};

struct status_user {
        uid_t uid;
        gid_t gid;                       /* the probe's: its first process's, else NSS's (0 for root) */
        char name[64];                   /* raw; "" when NSS does not know the uid */
        /* charged: the user's locked_vm, what AF_XDP UMEMs are charged against (sock_diag or
         * probe); headroom: memlock.soft - charged */
        struct status_account a;
        uint64_t vmlck, vmpin;           /* sums over its processes (informational) */
        char charged_why[400];           /* why unknown, or what the probe could not do */
        size_t n_umem;                   /* sock_diag: UMEMs it registered */
        size_t n_xsk;                    /* its AF_XDP sockets found (sock_diag or pidfd) */
        enum status_method xsk_method;   /* unknown when the sockets of one of its processes are */
        bool xsk_partial;                /* some of its processes' sockets could not be asked */
};

struct status_unit {
        enum cgroup_origin origin;
        char name[256];
        /* charged: the largest charge any of its processes has against its own soft limit,
         * max(VmLck, VmPin, its user's locked_vm where known), method proc when only
         * VmLck/VmPin were known; headroom: the smallest soft - charge of its processes
         * (unlimited for one with CAP_IPC_LOCK) */
        struct status_account a;
};

struct status_filter {
        bool by_user;
        uid_t uid;
        pid_t pid;                       /* 0: every process */
        const char *unit;                /* NULL: any */
};

/* The active probe's child runs with the user's uid: the user can stop it.  Each has
 * probe_timeout seconds to answer (then it is killed and the charge is unknown), and all of
 * one run STATUS_PROBE_RUN_FACTOR times that (users not probed by then: unknown). */
#define STATUS_PROBE_TIMEOUT_DEFAULT 5u
#define STATUS_PROBE_RUN_FACTOR 6u

struct status_options {
        struct status_filter filter;
        bool probe;                      /* run the active probe where sock_diag is missing */
        unsigned probe_timeout;          /* seconds, 0: STATUS_PROBE_TIMEOUT_DEFAULT */
        bool probe_exact;                /* the probe measures up to the caller's own hard limit,
                                          * not only up to the user's soft one ("at least the
                                          * limit"): pin-test, whose fix may be to raise the soft
                                          * limit above what is charged */
        uint64_t threshold;              /* status_proc.over_threshold: charge at least this */
        bool procs_only;                 /* the processes alone (their limits, origin): no sockets,
                                          * netlink, users or units */
};

struct status_report {
        struct status_proc *procs;
        size_t n_procs;
        struct status_user *users;
        size_t n_users;
        struct status_unit *units;
        size_t n_units;
        struct status_umem *umems;
        size_t n_umems;
        /* how the kernel could be asked */
        enum status_method xsk_method;   /* sock_diag when the diag answered, else probe/unknown */
        char xsk_why[160];               /* why sock_diag gave nothing ("" when it answered) */
        enum status_method mr_method;
        char mr_why[160];
        bool xdp_sockets_known;
        uint64_t xdp_sockets;            /* /proc/PID/net/protocols, summed over network namespaces seen */
        size_t n_netns;
        bool netns_truncated;            /* more network namespaces than STATUS_NETNS_MAX: the
                                          * sockets of the others are not counted, and sock_diag
                                          * is not used (the probe is) */
        bool descriptors_stopped;        /* the scan of the processes' descriptors passed its
                                          * bound (descriptors_bound_s): the AF_XDP sockets of
                                          * the processes left are unknown */
        unsigned descriptors_bound_s;
        uint64_t page_size;
};
#define STATUS_NETNS_MAX 64

/* Collect.  -ENOMEM and -ESRCH (the pid asked for does not exist) only; what cannot be read
 * is unknown in the report, with the reason. */
int status_collect(const struct status_options *o, struct status_report *ret);
void status_report_clear(struct status_report *r);

/* The user uid in a report (NULL when absent). */
const struct status_user *status_find_user(const struct status_report *r, uid_t uid);

