/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* status: memlock limits, what is locked and pinned, and what the kernel charges (status.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/xdp_diag.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "escape.h"
#include "fsutil.h"
#include "ident-backend.h"
#include "macro.h"
#include "netlink.h"
#include "procfs.h"
#include "size.h"
#include "strmap.h"
#include "status.h"
#include "umem.h"
#include "xdpdiag.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

const char *status_method_name(enum status_method m) {
        static const char *const names[] = {
                [STATUS_M_UNKNOWN] = "unknown",     [STATUS_M_SOCK_DIAG] = "sock_diag", [STATUS_M_PROBE] = "probe",
                [STATUS_M_PROC] = "proc",           [STATUS_M_RDMA_NETLINK] = "rdma_netlink",
                [STATUS_M_PIDFD] = "pidfd",
        };
        return (size_t)m < ELEMENTSOF(names) && names[m] ? names[m] : "unknown";
}

/* ---------------------------------------------------------------------------------------
 * /proc */

static int field_kib(const char *text, const char *key, uint64_t *ret) {
        uint64_t kib;
        int r = proc_field_u64(text, key, &kib);
        if (r < 0)
                return r;
        if (kib > UINT64_MAX / 1024)
                return -ERANGE;
        *ret = kib * 1024;
        return 0;
}

/* The last number of "NSpid:\t1234\t5": its pid in its innermost namespace. */
static pid_t field_nspid(const char *text, pid_t fallback) {
        const char *p = proc_field(text, "NSpid", NULL);
        uint64_t v = 0;
        bool any = false;
        while (p && *p && *p != '\n') {
                uint64_t x;
                p += strspn(p, " \t");
                if (parse_u64_prefix(p, &x, &p) < 0)
                        break;
                v = x;
                any = true;
        }
        return any && v <= INT_MAX ? (pid_t)v : fallback;
}

/* The cgroup v2 line "0::PATH", else the name=systemd hierarchy's path (hybrid systems). */
static void parse_cgroup(const char *text, char *buf, size_t size) {
        size_t len = 0;
        const char *path = proc_cgroup_path(text, &len);
        snprintf(buf, size, "%.*s", (int)len, path ? path : "");
}

/*
 * Each process's parent, and whether it is a slurmstepd, read once per run: a Slurm task's
 * slurmstepd is looked for among its ancestors (slurm_task()), which without this cache read
 * the status of every ancestor of every process again.  Values in the map: the parent pid
 * shifted left by 2, bit 1 for a slurmstepd, bit 0 set (never NULL).  Only root's processes
 * named slurmstepd count: slurmstepd runs as root, and a user's process of that name would
 * otherwise get its command line read, whose pages its owner may map from a FUSE file it
 * serves and so hold root's read for ever.
 */
struct ancestry {
        struct strmap map;
};

/* Remember pid's parent (from its status text); the value stored */
static uintptr_t ancestry_put(struct ancestry *an, pid_t pid, const char *status_text) {
        char key[16];
        uint64_t uid = UINT64_MAX, ppid = 0;
        size_t l = 0;
        const char *name = proc_field(status_text, "Name", &l);
        bool stepd = name && l == strlen("slurmstepd") && memcmp(name, "slurmstepd", l) == 0 &&
                     proc_field_u64(status_text, "Uid", &uid) >= 0 && uid == 0;

        if (proc_field_u64(status_text, "PPid", &ppid) < 0 || ppid > INT_MAX)
                ppid = 0;
        uintptr_t v = (uintptr_t)ppid << 2 | (uintptr_t)stepd << 1 | 1;
        snprintf(key, sizeof key, "%d", (int)pid);
        (void)strmap_put(&an->map, key, (void *)v); /* -ENOMEM: read again when asked */
        return v;
}

/* The parent of pid (0: unknown) and whether pid is a slurmstepd */
static pid_t ancestry_get(struct ancestry *an, pid_t pid, bool *ret_stepd) {
        char key[16];
        snprintf(key, sizeof key, "%d", (int)pid);
        uintptr_t v = (uintptr_t)strmap_get(&an->map, key);
        if (!v) {
                _cleanup_free_ char *status = NULL;
                if (proc_read(pid, "status", PROC_TEXT_MAX, &status) < 0)
                        return 0;
                v = ancestry_put(an, pid, status);
        }
        *ret_stepd = v & 2;
        return (pid_t)(v >> 2);
}

/* The inode of a link "PREFIX[INODE]" (socket:[...], net:[...]) at dirfd/path: 0 or -errno. */
static int link_inode(int dirfd, const char *path, const char *prefix, uint64_t *ret) {
        char link[64];
        const char *end;
        size_t n = strlen(prefix);
        ssize_t l = readlinkat(dirfd, path, link, sizeof link - 1);

        if (l <= 0)
                return -ENOENT;
        link[l] = '\0';
        if (strncmp(link, prefix, n) != 0 || parse_u64_prefix(link + n, ret, &end) < 0 || !streq(end, "]"))
                return -EINVAL;
        return 0;
}

/* A socket among a process's descriptors: its inode and the first descriptor that holds it */
struct sock_fd {
        uint32_t ino;
        int fd;
};

static int cmp_sock_fd(const void *a, const void *b) {
        const struct sock_fd *x = a, *y = b;
        return x->ino < y->ino ? -1 : x->ino > y->ino ? 1 : x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* Every this many descriptors the scan looks at the clock: a user has as many as his hard
 * nofile limit in each of his processes. */
#define FD_SCAN_CLOCK_EVERY 1024

/*
 * The sockets among the process's descriptors, each once (a socket a user dup()ed 20,000 times
 * is one socket: asked once), sorted by inode.  -ETIME when deadline (nl_now_ms()) passed
 * first, -ENOMEM, another -errno (the process is gone, no access).
 */
static int socket_inodes(pid_t pid, uint64_t deadline, struct sock_fd **ret, size_t *ret_n) {
        char path[64];
        _cleanup_free_ struct sock_fd *v = NULL;
        size_t n = 0, cap = 0, seen = 0;
        DIR *d;
        struct dirent *de;
        int r = 0;

        snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
        d = opendir(path);
        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                uint64_t ino, fd;
                if (seen++ % FD_SCAN_CLOCK_EVERY == 0 && nl_now_ms() >= deadline) {
                        r = -ETIME;
                        break;
                }
                if (parse_u64(de->d_name, &fd) < 0 || fd > INT_MAX ||
                    link_inode(dirfd(d), de->d_name, "socket:[", &ino) < 0 || ino > UINT32_MAX)
                        continue;
                if (GROW(v, cap, n + 1) < 0) {
                        r = -ENOMEM;
                        break;
                }
                v[n++] = (struct sock_fd){ (uint32_t)ino, (int)fd };
        }
        closedir(d);
        if (r < 0)
                return r;
        if (n > 1)
                qsort(v, n, sizeof(*v), cmp_sock_fd);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (k == 0 || v[k - 1].ino != v[i].ino)
                        v[k++] = v[i];
        *ret = TAKE_PTR(v);
        *ret_n = k;
        return 0;
}

/*
 * Whether descriptor fd of pid, found as socket inode ino, is an AF_XDP socket: 1, 0, -ESTALE
 * (no longer that socket), -errno (-EACCES: no access to the process's descriptors).
 *
 * Never a copy of the descriptor (pidfd_getfd()): once the process closed its own, root's close
 * of the copy would be the last one and run the socket's release as root; and the process can
 * swap the descriptor for a file of a FUSE mount it serves, whose close (flush) and stat it can
 * hold for ever.  An O_PATH open through the /proc link holds the dentry only: no ->open, no
 * flush at close, and the socket is released by whoever closes the last real descriptor.  The
 * link of our O_PATH descriptor then says, without calling into any filesystem, whether it is
 * still that socket, and sockfs's attribute system.sockprotoname names its protocol ("XDP").
 */
static int socket_is_xdp(pid_t pid, int fd, uint32_t ino) {
        char path[64], proto[16];
        uint64_t got;

        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
        _cleanup_close_ int pfd = open(path, O_PATH | O_CLOEXEC);
        if (pfd < 0)
                return negative_errno();
        snprintf(path, sizeof path, "/proc/self/fd/%d", pfd);
        if (link_inode(AT_FDCWD, path, "socket:[", &got) < 0 || got != ino)
                return -ESTALE;
        ssize_t n = getxattr(path, "system.sockprotoname", proto, sizeof proto - 1);
        if (n < 0)
                return negative_errno();
        proto[n] = '\0';
        return streq(proto, "XDP");
}

/* ---------------------------------------------------------------------------------------
 * Netlink (sock_diag, RDMA) through lib/login/netlink.h: the one socket opener and the one
 * reader of replies, which takes only the kernel's datagrams. */

struct xsk_list {
        struct xdpdiag_sock *v;
        size_t n;
};

struct rdma_list {
        struct rdmanl_dev *devs;
        size_t n_devs;
        struct rdmanl_mr *mrs;
        size_t n_mrs;
        bool want_devs;
};

#ifdef ENABLE_XDP
/* The replies of one dump, for nl_recv_dump() */
struct dump_ctx {
        uint32_t seq, portid;
        struct xsk_list *xsk;
        struct rdma_list *rdma;
};

static int dump_batch(const void *buf, size_t len, void *data, enum nl_batch_end *end) {
        struct dump_ctx *c = data;
        struct rdma_list *rdma = c->rdma;
        if (c->xsk)
                return xdpdiag_parse_batch(buf, len, c->seq, c->portid, &c->xsk->v, &c->xsk->n, end);
        return rdmanl_parse_batch(buf, len, c->seq, c->portid, rdma->want_devs ? &rdma->devs : NULL, &rdma->n_devs,
                                  rdma->want_devs ? NULL : &rdma->mrs, &rdma->n_mrs, end);
}

/* An open netlink socket. */
struct nls {
        int fd;
        uint32_t portid;
};

static void nls_close(struct nls *n) {
        if (n->fd >= 0)
                close(n->fd);
        n->fd = -1;
}

/* Send a dump request (len: its length, or -errno from building it) and parse every reply
 * datagram from the kernel into xsk (sock_diag), else into rdma, until the dump ends or the
 * deadline (nl_now_ms()) passes. */
static int nl_dump(const struct nls *nl, const void *req, int len, uint32_t seq, uint64_t deadline,
                   struct xsk_list *xsk, struct rdma_list *rdma) {
        struct dump_ctx c = { .seq = seq, .portid = nl->portid, .xsk = xsk, .rdma = rdma };
        int r;

        if (len < 0)
                return len;
        if ((r = nl_send(nl->fd, req, (size_t)len)) < 0)
                return r;
        return nl_recv_dump(nl->fd, deadline, dump_batch, &c, NULL);
}

/* sock_diag of one network namespace (netns_fd < 0: ours), sockets appended to *l. */
static int xsk_diag_netns(int netns_fd, int orig_fd, uint64_t deadline, struct xsk_list *l) {
        char req[XDPDIAG_REQ_SIZE];
        _cleanup_(nls_close) struct nls nl = { .fd = -1 };
        uint32_t seq = (uint32_t)getpid() ^ 0x5d1a6;
        int r = 0;

        if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) < 0)
                return negative_errno();
        r = nl_open(NETLINK_SOCK_DIAG, &nl.fd, &nl.portid);
        if (netns_fd >= 0 && setns(orig_fd, CLONE_NEWNET) < 0)
                abort(); /* cannot return to our own namespace: nothing after this is right */
        if (r < 0)
                return r;
        return nl_dump(&nl, req, xdpdiag_build_request(req, sizeof req, seq), seq, deadline, l, NULL);
}

static int rdma_mrs(uint64_t deadline, struct rdma_list *l) {
        char req[RDMANL_REQ_SIZE];
        _cleanup_(nls_close) struct nls nl = { .fd = -1 };
        uint32_t seq = (uint32_t)getpid() ^ 0x2d3a;
        int r = 0;

        r = nl_open(NETLINK_RDMA, &nl.fd, &nl.portid);
        if (r < 0)
                return r;
        l->want_devs = true;
        r = nl_dump(&nl, req, rdmanl_build_dev_request(req, sizeof req, seq), seq, deadline, NULL, l);
        l->want_devs = false;
        for (size_t i = 0; r >= 0 && i < l->n_devs; i++) {
                seq++;
                r = nl_dump(&nl, req, rdmanl_build_mr_request(req, sizeof req, seq, l->devs[i].index), seq, deadline,
                            NULL, l);
        }
        return r;
}
#endif /* ENABLE_XDP */

/* ---------------------------------------------------------------------------------------
 * the active probe */

#define STATUS_PROBE_REAP_MS 5000 /* for a killed probe child to go (a loaded machine may take a while) before it is left to init */

struct probe_result {
        int error;               /* negative errno, 0 */
        int step;                /* where it failed: 0 socket, 1 becoming the user, 3 register, 4 rlimit */
        uint64_t pages;
        int at_least;
};

static int drop_to(uid_t uid, gid_t gid, uint64_t ceiling_bytes) {
        struct rlimit rl;
        bool change = geteuid() != uid || getuid() != uid;

        if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                return -errno;
        if (ceiling_bytes && ceiling_bytes != (uint64_t)rl.rlim_max) {
                struct rlimit want = { .rlim_cur = 0, .rlim_max = ceiling_bytes };
                if (setrlimit(RLIMIT_MEMLOCK, &want) < 0 && ceiling_bytes < (uint64_t)rl.rlim_max)
                        return -errno;
        }
        if (change) {
                if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                        return -errno;
                if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                        return -EPERM;
        }
        /* CAP_NET_RAW alone (socket(AF_XDP) needs it); without CAP_IPC_LOCK the kernel charges */
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = {};
        d[0].effective = d[0].permitted = d[0].inheritable = 1u << CAP_NET_RAW;
        if (syscall(SYS_capset, &h, d) < 0)
                return -EPERM;
        (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0);
        (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        return 0;
}

/*
 * Ask the kernel whether one more page fits under soft limit `limit` bytes, without keeping
 * anything charged: a one-page UMEM at an address that cannot be pinned (PROT_NONE).
 * xdp_umem_reg() charges the pages first (ENOBUFS over the limit), then pins them: the pin
 * fails (EFAULT) and the charge is taken back before the call returns.  A registration that
 * succeeded would be uncharged only later, by a work item after an RCU grace period, and meet
 * the next registration of the user.  1: it fits, 0: ENOBUFS, <0: another error.
 */
static int fits_one_page(void *nopage, uint64_t page_size, uint64_t limit) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                return -errno;
        rl.rlim_cur = limit;
        if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                return -errno;
        enum umem_step step;
        int s = umem_register(nopage, page_size, &step);
        if (s >= 0) {
                close(s);
                return -EPROTO; /* pinned a PROT_NONE page: not the kernel this was written for */
        }
        if (step == UMEM_SOCKET)
                return s;
        return s == -ENOBUFS ? 0 : s == -EFAULT || s == -ENOMEM ? 1 : s;
}

/*
 * In the child.  X = the pages already charged to the user.  "X <= t" is asked by setting
 * the soft limit to t + 1 pages: the kernel accepts one more page exactly when X + 1 <= t + 1.
 * Bisection over t finds X exactly, in pages.
 */
static void probe_child(uid_t uid, gid_t gid, uint64_t ceiling, int out) {
        struct probe_result res = { .step = 1 }; /* step: where r < 0 came from */
        struct rlimit rl;
        uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
        int r;

        if ((r = drop_to(uid, gid, ceiling)) < 0)
                goto out;
        res.step = 4;
        void *nopage = mmap(NULL, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (nopage == MAP_FAILED || getrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
                r = -errno;
                goto out;
        }
        uint64_t hard_pages = rl.rlim_max == RLIM_INFINITY ? (UINT64_C(1) << 40) : (uint64_t)rl.rlim_max / ps;
        if (hard_pages < 2) {
                r = -ERANGE;
                goto out;
        }
        uint64_t lo = 0, hi = hard_pages - 1; /* X in [lo, hi] if X <= hi */
        r = fits_one_page(nopage, ps, (hi + 1) * ps);
        res.step = r == -EPERM || r == -EACCES || r == -EAFNOSUPPORT ? 0 : 3;
        if (r < 0)
                goto out;
        if (r == 0) {
                /* not one page more under the hard limit: at least all of it is charged */
                res.pages = hi + 1;
                res.at_least = 1;
                goto out;
        }
        while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                r = fits_one_page(nopage, ps, (mid + 1) * ps);
                if (r < 0)
                        goto out;
                if (r == 1)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        res.pages = lo;
out:
        res.error = r < 0 ? r : 0;
        (void)!write(out, &res, sizeof res);
        _exit(0);
}

/* SIGKILL the probe child (a user may hold it stopped or traced: the kill ends it either way)
 * and reap it.  A child in uninterruptible sleep past the grace is left to init.  0, or the
 * kill's -errno: -ESRCH, it had gone; -EPERM, it is the user's and this process lacks
 * CAP_KILL (a unit's CapabilityBoundingSet= without it). */
static int probe_reap(pid_t pid, int pidfd) {
        int r = (pidfd >= 0 ? syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) : kill(pid, SIGKILL)) < 0
                        ? negative_errno()
                        : 0;
        if (pidfd >= 0) {
                struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
                while (poll(&pfd, 1, STATUS_PROBE_REAP_MS) < 0 && errno == EINTR)
                        ;
        }
        while (waitpid(pid, NULL, pidfd >= 0 ? WNOHANG : 0) < 0 && errno == EINTR)
                ;
        return r;
}

/* The probe's answer into why (the user's name raw, escaped here) */
static int probe_why(const struct probe_result *res, char *why, size_t why_size) {
        const char *what = res->step == 0   ? "socket(AF_XDP)"
                           : res->step == 1 ? "becoming the user without CAP_IPC_LOCK"
                           : res->step == 3 ? "XDP_UMEM_REG"
                                            : "the memlock limit of the probe";
        if (res->error == -EAFNOSUPPORT)
                snprintf(why, why_size, "this kernel has no AF_XDP");
        else if (res->step == 0 && (res->error == -EPERM || res->error == -EACCES))
                snprintf(why, why_size, "socket(AF_XDP) needs CAP_NET_RAW");
        else if (res->error == -ERANGE)
                snprintf(why, why_size, "the hard memlock limit is too small to probe");
        else
                snprintf(why, why_size, "%s: %s", what, errno_text(res->error));
        return res->error;
}

/*
 * The locked_vm of uid (pages x page size), measured by a child with uid/gid, CAP_NET_RAW only,
 * memlock limits set by bisection below `ceiling` bytes (0: the caller's hard limit).  Run as
 * root, or as uid itself with CAP_NET_RAW.  0 and *ret_charged (and *ret_at_least when the
 * charge reaches the ceiling), or -EPERM (no CAP_NET_RAW / cannot become uid), -EAFNOSUPPORT
 * (no AF_XDP), -ETIME (no answer before deadline, a nl_now_ms() time: the child, which runs with
 * the user's uid and which the user can therefore stop, is killed), -errno; why gets a reason.
 */
static int status_probe_user(uid_t uid, gid_t gid, uint64_t ceiling, uint64_t deadline, uint64_t *ret_charged,
                             bool *ret_at_least, char *why, size_t why_size) {
        struct probe_result res = {};
        int p[2];
        uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);

        if (geteuid() != 0 && geteuid() != uid) {
                snprintf(why, why_size, "the probe runs as the user: needs root");
                return -EPERM;
        }
        if (pipe2(p, O_CLOEXEC) < 0)
                return negative_errno();
        _cleanup_close_ int rd = p[0], wr = p[1];
        if (fcntl(rd, F_SETFL, O_NONBLOCK) < 0)
                return negative_errno();
        pid_t pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                close(rd);
                probe_child(uid, gid, ceiling, wr);
        }
        close(TAKE_FD(wr));
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        ssize_t n = fd_read_by(rd, &res, sizeof res, deadline);
        /* killed even after it answered: the user may stop it between its write and its exit,
         * and a stopped child never exits by itself */
        int kr = probe_reap(pid, pidfd);
        if (n == -ETIME) {
                /* why: what follows "did not answer in N s" */
                snprintf(why, why_size, "%s", kr == -EPERM ? "; it could not be killed (EPERM: this process lacks "
                                                             "CAP_KILL) and is left as it is" : "");
                return -ETIME;
        }
        if (n != (ssize_t)sizeof res) {
                snprintf(why, why_size, "the probe process died");
                return -EPROTO;
        }
        if (res.error < 0)
                return probe_why(&res, why, why_size);
        *ret_charged = res.pages * ps;
        *ret_at_least = res.at_least;
        return 0;
}

/* The XDP sockets of the network namespace of pid (0: ours), the "XDP" row of
 * /proc/PID/net/protocols (none: no AF_XDP in this kernel), added to the report's when known. */
static void add_xdp_sockets(struct status_report *r, pid_t pid) {
        char path[64];
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;

        if (pid > 0)
                snprintf(path, sizeof path, "/proc/%d/net/protocols", (int)pid);
        else
                snprintf(path, sizeof path, "/proc/net/protocols");
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fs_read_all(fd, 256 * 1024, &text, NULL) < 0)
                return;
        /* "protocol  size sockets  memory press maxhdr  slab module ..." */
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                uint64_t size, socks;
                const char *q;
                if (strncmp(p, "XDP", 3) != 0 || (p[3] != ' ' && p[3] != '\t'))
                        continue;
                q = p + 3 + strspn(p + 3, " \t");
                if (parse_u64_prefix(q, &size, &q) >= 0 &&
                    parse_u64_prefix(q + strspn(q, " \t"), &socks, NULL) >= 0) {
                        r->xdp_sockets += socks;
                        r->xdp_sockets_known = true;
                }
                return;
        }
}

/* ---------------------------------------------------------------------------------------
 * collection */

static bool unit_matches(const struct status_proc *p, const char *unit) {
        size_t l = strlen(unit);
        /* a user's unit by its own name too: X.service of user@UID.service/X.service */
        const char *name = p->origin == CGROUP_O_USER_UNIT && strchr(unit, '/') == NULL && strchr(p->origin_name, '/')
                                   ? strchr(p->origin_name, '/') + 1
                                   : p->origin_name;
        if (streq(p->origin_name, unit) || streq(name, unit) || streq(p->origin_owner, unit))
                return true;
        /* "foo" for foo.service */
        return strncmp(name, unit, l) == 0 && streq(name + l, ".service");
}

/* "slurmstepd: [JOB.STEP]" (or [JOB.batch], [JOB.extern]), the title of a step's slurmstepd, as
 * job_JOB/step_STEP in name. */
static void slurm_step_name(pid_t stepd, char *name, size_t name_size) {
        _cleanup_free_ char *cmd = NULL;
        uint64_t job, step;
        const char *q;

        if (proc_read(stepd, "cmdline", 4096, &cmd) < 0 || !(q = strstr(cmd, "[")) ||
            parse_u64_prefix(q + 1, &job, &q) < 0 || *q != '.')
                return;
        size_t l = strcspn(q + 1, "]");
        if (parse_u64_prefix(q + 1, &step, NULL) >= 0)
                snprintf(name, name_size, "job_%llu/step_%llu", (unsigned long long)job, (unsigned long long)step);
        else
                snprintf(name, name_size, "job_%llu/step_%.*s", (unsigned long long)job, (int)(l < 16 ? l : 16), q + 1);
}

/* A Slurm task: its cgroup says so (proctrack/cgroup), or a slurmstepd is among its ancestors
 * (proctrack/linuxproc).  Its limits are slurmstepd's, which are slurmd's, unless
 * PropagateResourceLimits brings the submit shell's, or spank_rdmalimit sets the policy's:
 * which of them, the one answer of explain --slurm's model, is for the tool to say
 * (tool/cmd-status.c slurm_origins()); here only that slurmd's unit owns slurmstepd. */
static void slurm_task(struct ancestry *an, pid_t pid, struct status_proc *p) {
        pid_t a = pid, stepd = 0;

        for (int depth = 0; depth < 8 && a > 1; depth++) {
                bool is_stepd = false;
                pid_t parent = ancestry_get(an, a, &is_stepd);
                if (is_stepd) {
                        stepd = a;
                        break;
                }
                a = parent;
        }
        if (!stepd && p->origin != CGROUP_O_SLURM)
                return;
        if (p->origin != CGROUP_O_SLURM) {
                p->origin = CGROUP_O_SLURM;
                slurm_step_name(stepd, p->origin_name, sizeof p->origin_name);
        }
        snprintf(p->origin_owner, sizeof p->origin_owner, "slurmd.service");
}

/* The process pid into *ret: 0, 1 when the filter (uid) leaves it out, -errno */
static int read_proc_entry(struct ancestry *an, const struct status_filter *f, pid_t pid, struct status_proc *ret) {
        _cleanup_free_ char *st = NULL, *lim = NULL, *cg = NULL;
        struct status_proc p = { .pid = pid };
        uint64_t uid, gid;
        int r;

        if ((r = proc_read(pid, "status", PROC_TEXT_MAX, &st)) < 0)
                return r;
        (void)ancestry_put(an, pid, st);
        if (proc_field_u64(st, "Uid", &uid) < 0 || proc_field_u64(st, "Gid", &gid) < 0)
                return -EBADMSG;
        if (field_kib(st, "VmLck", &p.vmlck) < 0)
                return -ENOEXEC; /* no mm: a kernel thread */
        if (f->by_user && (uid_t)uid != f->uid)
                return 1;
        (void)field_kib(st, "VmPin", &p.vmpin);
        p.uid = (uid_t)uid;
        p.gid = (gid_t)gid;
        p.nspid = field_nspid(st, pid);
        p.cap_ipc_lock = proc_cap_effective(pid, st, CAP_IPC_LOCK);
        /* comm's raw bytes, as doctor --pid reads them (the Name: line of status is escaped by
         * the kernel already: a newline as \n, a backslash as \\) */
        _cleanup_free_ char *comm = NULL;
        if (proc_comm(pid, &comm) >= 0)
                snprintf(p.comm, sizeof p.comm, "%s", comm);
        if (proc_read(pid, "limits", PROC_TEXT_MAX, &lim) >= 0 &&
            proc_limits_row(lim, "Max locked memory", &p.memlock.soft, &p.memlock.hard) >= 0)
                p.limits_known = true;
        if (proc_read(pid, "cgroup", PROC_TEXT_MAX, &cg) >= 0)
                parse_cgroup(cg, p.cgroup, sizeof p.cgroup);
        p.origin = proc_cgroup_classify(p.cgroup, p.origin_name, sizeof p.origin_name, p.origin_owner,
                                          sizeof p.origin_owner);
        slurm_task(an, pid, &p);
        char nspath[64];
        uint64_t ino;
        snprintf(nspath, sizeof nspath, "/proc/%d/ns/net", (int)pid);
        if (link_inode(AT_FDCWD, nspath, "net:[", &ino) >= 0)
                p.netns = ino;
        *ret = p;
        return 0;
}

static void add_xsk(struct status_proc *p, uint32_t ino) {
        if (p->n_xsk < ELEMENTSOF(p->xsk_ino))
                p->xsk_ino[p->n_xsk] = ino;
        p->n_xsk++;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

/* sock_diag's sockets and UMEMs by inode, for the matching of every process: sorted once, each
 * descriptor then looked up in log time (a user can hold many descriptors and make many
 * sockets). */
struct diag_index {
        uint32_t *inos;          /* the sockets' inodes, sorted */
        size_t n_inos;
        size_t *umems;           /* indexes into r->umems, sorted by the socket's inode */
        size_t n_umems;
};

static int cmp_umem_ino(const void *a, const void *b, void *data) {
        const struct status_report *r = data;
        uint32_t x = r->umems[*(const size_t *)a].ino, y = r->umems[*(const size_t *)b].ino;
        return x < y ? -1 : x > y;
}

static int diag_index_build(const struct status_report *r, const struct xsk_list *diag, struct diag_index *ret) {
        struct diag_index x = {};
        if (diag->n > 0 && !(x.inos = malloc(diag->n * sizeof(*x.inos))))
                return -ENOMEM;
        if (r->n_umems > 0 && !(x.umems = malloc(r->n_umems * sizeof(*x.umems)))) {
                free(x.inos);
                return -ENOMEM;
        }
        for (size_t d = 0; d < diag->n; d++)
                x.inos[x.n_inos++] = diag->v[d].ino;
        if (x.n_inos > 1)
                qsort(x.inos, x.n_inos, sizeof(*x.inos), cmp_u32);
        for (size_t u = 0; u < r->n_umems; u++)
                x.umems[x.n_umems++] = u;
        if (x.n_umems > 1)
                qsort_r(x.umems, x.n_umems, sizeof(*x.umems), cmp_umem_ino, (void *)r);
        *ret = x;
        return 0;
}

static void diag_index_clear(struct diag_index *x) {
        free(x->inos);
        free(x->umems);
        *x = (struct diag_index){};
}

/* The first index into x->umems whose UMEM's socket is ino (x->n_umems: none) */
static size_t umem_lower(const struct status_report *r, const struct diag_index *x, uint32_t ino) {
        size_t lo = 0, hi = x->n_umems;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (r->umems[x->umems[mid]].ino < ino)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* sock_diag's sockets among the n sockets of p (sorted, each once): its AF_XDP sockets, and the
 * bytes of the UMEMs they registered, each UMEM once (sockets may share one); p becomes the
 * holder of the UMEMs that have none yet. */
static void match_diag(struct status_report *r, struct status_proc *p, const struct sock_fd *socks, size_t n,
                       const struct diag_index *x) {
        _cleanup_free_ uint32_t *ids = NULL;      /* the UMEMs counted for p */
        size_t n_ids = 0, cap = 0;

        p->xsk_method = STATUS_M_SOCK_DIAG;
        for (size_t k = 0; k < n; k++) {
                if (!x->n_inos || !bsearch(&socks[k].ino, x->inos, x->n_inos, sizeof(*x->inos), cmp_u32))
                        continue;
                add_xsk(p, socks[k].ino);
                for (size_t i = umem_lower(r, x, socks[k].ino); i < x->n_umems; i++) {
                        struct status_umem *m = &r->umems[x->umems[i]];
                        if (m->ino != socks[k].ino)
                                break;
                        bool counted = false;
                        for (size_t j = 0; j < n_ids && !counted; j++)
                                counted = ids[j] == m->id;
                        if (!counted) {
                                p->xsk_umem_bytes += m->size;
                                if (GROW(ids, cap, n_ids + 1) >= 0)
                                        ids[n_ids++] = m->id;
                        }
                        if (!m->holder)
                                m->holder = p->pid;
                }
        }
}

/* Without sock_diag: each socket inode's protocol, asked once for all the processes that hold
 * it (the run's string map, keyed by the inode's decimal; when it cannot grow, the socket is
 * asked again). */
struct xdp_verdicts {
        struct strmap map;       /* "INODE" -> VERDICT_XDP or VERDICT_OTHER */
        size_t n;
};
#define XDP_VERDICTS_MAX (1u << 20)
#define VERDICT_OTHER ((void *)1)
#define VERDICT_XDP ((void *)2)

static int verdict_get(const struct xdp_verdicts *c, uint32_t ino) {
        char key[11];
        void *v = strmap_get(&c->map, ident_id_key(ino, key));
        return v ? v == VERDICT_XDP : -1;
}

static void verdict_put(struct xdp_verdicts *c, uint32_t ino, bool xdp) {
        char key[11];
        bool known = verdict_get(c, ino) >= 0;
        if (ino == 0 || (!known && c->n >= XDP_VERDICTS_MAX))
                return;         /* no socket has inode 0 */
        if (strmap_put(&c->map, ident_id_key(ino, key), xdp ? VERDICT_XDP : VERDICT_OTHER) >= 0 && !known)
                c->n++;
}

/* Match sock_diag's sockets (or, without it, ask each socket's family) to the processes, until
 * deadline (nl_now_ms()): the processes left then have unknown sockets, and the report says
 * so. */
static void match_sockets(struct status_report *r, const struct xsk_list *diag, uint64_t deadline) {
        struct diag_index x = {};
        struct xdp_verdicts verdicts = {};

        if (r->xsk_method == STATUS_M_SOCK_DIAG && diag_index_build(r, diag, &x) < 0)
                return;   /* out of memory: every process's sockets stay unknown */
        for (size_t i = 0; i < r->n_procs; i++) {
                struct status_proc *p = &r->procs[i];
                _cleanup_free_ struct sock_fd *socks = NULL;
                size_t n = 0;
                bool asked = false, refused = false;

                if (nl_now_ms() >= deadline) {
                        r->descriptors_stopped = true;
                        break;
                }
                int e = socket_inodes(p->pid, deadline, &socks, &n);
                if (e == -ETIME)
                        r->descriptors_stopped = true;
                if (e < 0)
                        continue;
                if (n == 0) {
                        p->xsk_method = STATUS_M_PROC; /* no socket at all: none of them AF_XDP */
                        continue;
                }
                if (r->xsk_method == STATUS_M_SOCK_DIAG) {
                        match_diag(r, p, socks, n, &x);
                        continue;
                }
                bool stopped = false;
                for (size_t k = 0; k < n && !stopped; k++) {
                        /* a user's distinct sockets cost a question each: the bound holds here too */
                        if (k % FD_SCAN_CLOCK_EVERY == FD_SCAN_CLOCK_EVERY - 1 && nl_now_ms() >= deadline) {
                                stopped = r->descriptors_stopped = true;
                                break;
                        }
                        int v = verdict_get(&verdicts, socks[k].ino);
                        if (v < 0) {
                                v = socket_is_xdp(p->pid, socks[k].fd, socks[k].ino);
                                if (v >= 0)
                                        verdict_put(&verdicts, socks[k].ino, v > 0);
                        }
                        if (v > 0)
                                add_xsk(p, socks[k].ino);
                        if (v >= 0)
                                asked = true;
                        else if (v == -EPERM || v == -EACCES)
                                refused = true;
                }
                if (stopped) {
                        p->n_xsk = 0;   /* its sockets are unknown, not those asked so far */
                        break;
                }
                if (asked && !refused)
                        p->xsk_method = STATUS_M_PIDFD;
        }
        diag_index_clear(&x);
        strmap_clear(&verdicts.map, NULL);
}

/* The user uid in the report, added when absent; NULL: -ENOMEM */
static struct status_user *user_slot(struct status_report *r, uid_t uid) {
        for (size_t i = 0; i < r->n_users; i++)
                if (r->users[i].uid == uid)
                        return &r->users[i];
        struct status_user u = { .uid = uid, .a.charged_method = STATUS_M_UNKNOWN, .xsk_method = STATUS_M_UNKNOWN };
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
                snprintf(u.name, sizeof u.name, "%s", res->pw_name);
        u.gid = res && uid != 0 ? res->pw_gid : (gid_t)uid;
        if (array_append((void **)&r->users, &r->n_users, sizeof u, &u, 32) < 0)
                return NULL;
        return &r->users[r->n_users - 1];
}

static uint64_t sub_sat(uint64_t a, uint64_t b) {
        return a == UINT64_MAX ? UINT64_MAX : a > b ? a - b : 0;
}

/* What is left of a soft limit once charge is locked, as the kernel counts it: whole pages of
 * the report's page size (mlock and a UMEM compare pages with rlimit >> PAGE_SHIFT) */
static uint64_t headroom_of(uint64_t soft, uint64_t charge, uint64_t page) {
        return soft == UINT64_MAX ? UINT64_MAX : sub_sat(page ? soft / page * page : soft, charge);
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c) {
        uint64_t m = a > b ? a : b;
        return m > c ? m : c;
}

/* A process into a user's or a unit's account: the largest soft and hard, and whether the
 * soft limits differ. */
static void account_add(struct status_account *a, const struct status_proc *p) {
        a->n_procs++;
        if (!p->limits_known)
                return;
        if (a->limit_known && (a->memlock.soft != p->memlock.soft || a->memlock.hard != p->memlock.hard))
                a->limits_differ = true;
        if (!a->limit_known || p->memlock.soft > a->memlock.soft)
                a->memlock.soft = p->memlock.soft;
        if (!a->limit_known || p->memlock.hard > a->memlock.hard)
                a->memlock.hard = p->memlock.hard;
        a->limit_known = true;
}

/* A user's headroom: what is left of the soft limit once the charge is known. */
static void account_headroom(struct status_account *a, uint64_t page) {
        if (a->charged_method == STATUS_M_UNKNOWN || !a->limit_known)
                return;
        if (!a->charged_at_least) {
                a->headroom_known = true;
                a->headroom = headroom_of(a->memlock.soft, a->charged, page);
        } else if (a->memlock.soft != UINT64_MAX && a->charged >= a->memlock.soft) {
                a->headroom_known = true; /* at least the limit charged: nothing left */
                a->headroom = 0;
        }
}

/* The charge of u by the active probe: its child has timeout seconds, and none starts after
 * run_deadline (nl_now_ms()), the bound on all the probes of one run.  It measures up to u's
 * soft limit ("at least" that much charged is all status needs), or with exact up to our own
 * hard limit. */
static void probe_account(struct status_user *u, unsigned timeout, uint64_t run_deadline, bool exact) {
        uint64_t ceiling = !exact && u->a.limit_known && u->a.memlock.soft != UINT64_MAX ? u->a.memlock.soft : 0;
        uint64_t now = nl_now_ms(), deadline = now + (uint64_t)timeout * 1000;
        char who[ESCAPE_NAME_MAX];
        struct rlimit own;

        if (u->name[0])
                str_escape(u->name, who, sizeof who);
        else
                snprintf(who, sizeof who, "uid %u", (unsigned)u->uid);
        if (now >= run_deadline) {
                snprintf(u->charged_why, sizeof u->charged_why,
                         "the probe of %s did not run: the probes of this run took their %u s (%u x %u s)", who,
                         timeout * STATUS_PROBE_RUN_FACTOR, STATUS_PROBE_RUN_FACTOR, timeout);
                return;
        }
        /* the probe cannot go above our own hard limit without CAP_SYS_RESOURCE */
        if (getrlimit(RLIMIT_MEMLOCK, &own) == 0 && (ceiling == 0 || ceiling > own.rlim_max))
                ceiling = own.rlim_max == RLIM_INFINITY ? 0 : (uint64_t)own.rlim_max;
        int r = status_probe_user(u->uid, u->gid, ceiling, deadline < run_deadline ? deadline : run_deadline,
                                  &u->a.charged, &u->a.charged_at_least, u->charged_why, sizeof u->charged_why);
        if (r >= 0)
                u->a.charged_method = STATUS_M_PROBE;
        else if (r == -ETIME) {
                char tail[128];
                snprintf(tail, sizeof tail, "%.120s", u->charged_why);
                snprintf(u->charged_why, sizeof u->charged_why, "the probe of %.200s did not answer in %u s%s", who,
                         deadline <= run_deadline ? timeout : (unsigned)((run_deadline - now + 999) / 1000), tail);
        }
}

static int gather_users(struct status_report *r, const struct status_options *o) {
        unsigned timeout = o->probe_timeout ? o->probe_timeout : STATUS_PROBE_TIMEOUT_DEFAULT;
        uint64_t run_deadline = 0;

        if (o->filter.by_user && !user_slot(r, o->filter.uid))
                return -ENOMEM;
        for (size_t i = 0; i < r->n_procs; i++) {
                const struct status_proc *p = &r->procs[i];
                struct status_user *u = user_slot(r, p->uid);
                if (!u)
                        return -ENOMEM;
                if (u->a.n_procs == 0 && p->gid != 0)
                        u->gid = p->gid;
                account_add(&u->a, p);
                u->vmlck += p->vmlck;
                u->vmpin += p->vmpin;
                u->n_xsk += p->n_xsk;
                if (p->xsk_method == STATUS_M_UNKNOWN)
                        u->xsk_partial = true;
                else if (u->xsk_method == STATUS_M_UNKNOWN || u->xsk_method == STATUS_M_PROC)
                        u->xsk_method = p->xsk_method;
        }
        for (size_t i = 0; i < r->n_users; i++) {
                struct status_user *u = &r->users[i];
                if (u->xsk_partial)
                        u->xsk_method = STATUS_M_UNKNOWN;
                if (r->xsk_method == STATUS_M_SOCK_DIAG) {
                        u->a.charged_method = STATUS_M_SOCK_DIAG;
                        for (size_t k = 0; k < r->n_umems; k++)
                                if (r->umems[k].uid == u->uid) {
                                        u->a.charged += r->umems[k].charged;
                                        u->n_umem += !r->umems[k].shared;
                                }
                } else if (o->probe) {
                        if (!run_deadline)
                                run_deadline = nl_now_ms() + (uint64_t)timeout * STATUS_PROBE_RUN_FACTOR * 1000;
                        probe_account(u, timeout, run_deadline, o->probe_exact);
                } else
                        snprintf(u->charged_why, sizeof u->charged_why, "%s", r->xsk_why);
                account_headroom(&u->a, r->page_size);
        }
        return 0;
}

static int gather_units(struct status_report *r) {
        for (size_t i = 0; i < r->n_procs; i++) {
                const struct status_proc *p = &r->procs[i];
                struct status_unit *u = NULL;
                if (p->origin == CGROUP_O_UNKNOWN || p->origin == CGROUP_O_CGROUP)
                        continue;
                for (size_t k = 0; k < r->n_units; k++)
                        if (r->units[k].origin == p->origin && streq(r->units[k].name, p->origin_name))
                                u = &r->units[k];
                if (!u) {
                        struct status_unit nu = { .origin = p->origin, .a.charged_method = STATUS_M_PROC };
                        snprintf(nu.name, sizeof nu.name, "%s", p->origin_name);
                        if (array_append((void **)&r->units, &r->n_units, sizeof nu, &nu, 32) < 0)
                                return -ENOMEM;
                        u = &r->units[r->n_units - 1];
                }
                const struct status_user *us = status_find_user(r, p->uid);
                bool xsk_known = us && us->a.charged_method != STATUS_M_UNKNOWN;
                uint64_t charge = max3(p->vmlck, p->vmpin, xsk_known ? us->a.charged : 0);
                struct status_account *a = &u->a;
                account_add(a, p);
                if (charge > a->charged || a->n_procs == 1) {
                        bool users = xsk_known && us->a.charged > p->vmlck && us->a.charged > p->vmpin;
                        a->charged = charge;
                        a->charged_method = users ? us->a.charged_method : STATUS_M_PROC;
                        /* the user's charge, when it is the largest, may be a lower bound */
                        a->charged_at_least = users && us->a.charged_at_least;
                }
                if (p->limits_known) {
                        /* with CAP_IPC_LOCK the kernel neither charges nor limits its pins */
                        uint64_t h = p->cap_ipc_lock ? UINT64_MAX
                                                     : headroom_of(p->memlock.soft, charge, r->page_size);
                        if (!a->headroom_known || h < a->headroom)
                                a->headroom = h;
                        a->headroom_known = true;
                }
        }
        return 0;
}

/* The processes the filter keeps */
static int collect_procs(const struct status_options *o, struct status_report *r) {
        struct dirent *de;
        struct ancestry an = {};
        int e = 0;
        DIR *d = opendir("/proc");

        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                uint64_t v;
                struct status_proc p;
                if (parse_u64(de->d_name, &v) < 0 || v == 0 || v > INT_MAX)
                        continue;
                if (o->filter.pid && (pid_t)v != o->filter.pid)
                        continue;
                if (read_proc_entry(&an, &o->filter, (pid_t)v, &p) != 0)
                        continue;
                if (o->filter.unit && !unit_matches(&p, o->filter.unit))
                        continue;
                if ((e = array_append((void **)&r->procs, &r->n_procs, sizeof p, &p, 32)) < 0)
                        break;
        }
        closedir(d);
        strmap_clear(&an.map, NULL);
        return e;
}

/* The network namespaces of the processes (at most STATUS_NETNS_MAX: in seen, the index of the
 * first process in each; more: r->netns_truncated) and the XDP sockets in each */
static size_t count_xdp_sockets(struct status_report *r, size_t seen[static STATUS_NETNS_MAX]) {
        size_t n_seen = 0;

        for (size_t i = 0; i < r->n_procs; i++) {
                size_t k;
                if (!r->procs[i].netns)
                        continue;
                for (k = 0; k < n_seen; k++)
                        if (r->procs[seen[k]].netns == r->procs[i].netns)
                                break;
                if (k < n_seen)
                        continue;
                if (n_seen >= STATUS_NETNS_MAX) {
                        /* a user can make namespaces: never a silent shortfall */
                        r->netns_truncated = true;
                        continue;
                }
                seen[n_seen++] = i;
                r->n_netns = n_seen;
                add_xdp_sockets(r, r->procs[i].pid);
        }
        if (r->n_netns == 0) {
                add_xdp_sockets(r, 0); /* nothing added yet */
                r->n_netns = 1;
        }
        return n_seen;
}

#ifdef ENABLE_XDP
/* sock_diag in our network namespace, then in each other one of seen through its first process
 * (*ret_pid: the process whose namespace failed, when one did) */
static int diag_all_netns(const struct status_report *r, const size_t *seen,
                          size_t n_seen, uint64_t deadline, struct xsk_list *diag, pid_t *ret_pid) {
        _cleanup_close_ int orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        unsigned long long self_ns = 0;
        struct stat st;
        if (orig >= 0 && fstat(orig, &st) == 0)
                self_ns = (unsigned long long)st.st_ino;
        int dr = xsk_diag_netns(-1, -1, deadline, diag);
        if (dr < 0)
                return dr;
        for (size_t k = 0; k < n_seen && orig >= 0; k++) {
                const struct status_proc *p = &r->procs[seen[k]];
                char path[64];
                if (p->netns == self_ns)
                        continue;
                snprintf(path, sizeof path, "/proc/%d/ns/net", (int)p->pid);
                _cleanup_close_ int nfd = open(path, O_RDONLY | O_CLOEXEC);
                if (nfd < 0)
                        continue; /* gone */
                dr = xsk_diag_netns(nfd, orig, deadline, diag);
                if (dr < 0) { /* part of the sockets unknown: none of the sums would be right */
                        *ret_pid = p->pid;
                        return dr;
                }
        }
        return 0;
}

/* The AF_XDP sockets (sock_diag: xsk_method) and the RDMA memory regions (RDMA netlink:
 * mr_method); why not in xsk_why and mr_why.  0 or -ENOMEM. */
static int collect_netlink(struct status_report *r, const size_t *seen, size_t n_seen, unsigned timeout,
                           struct xsk_list *diag, struct rdma_list *rdma) {
        /* every dump of the run within timeout seconds: a user's namespaces cannot add up */
        uint64_t deadline = nl_now_ms() + (uint64_t)timeout * 1000;
        pid_t fail_pid = 0;
        /* with namespaces left out, the dump would miss their UMEMs: the probe instead */
        int dr = r->netns_truncated ? -E2BIG : diag_all_netns(r, seen, n_seen, deadline, diag, &fail_pid);
        int mr = dr == -ENOMEM ? 0 : rdma_mrs(deadline, rdma);
        if (dr == -ENOMEM || mr == -ENOMEM)
                return -ENOMEM;
        if (dr >= 0)
                r->xsk_method = STATUS_M_SOCK_DIAG;
        else if (dr == -E2BIG)
                snprintf(r->xsk_why, sizeof r->xsk_why, "more than %d network namespaces: sock_diag would miss the "
                         "sockets of the others", STATUS_NETNS_MAX);
        else if (fail_pid)
                snprintf(r->xsk_why, sizeof r->xsk_why, "sock_diag for AF_XDP in the network namespace of pid %d: %s",
                         (int)fail_pid, errno_text(dr));
        else if (dr == -ENOENT)
                snprintf(r->xsk_why, sizeof r->xsk_why,
                         "sock_diag for AF_XDP: ENOENT (the kernel lacks CONFIG_XDP_SOCKETS_DIAG)");
        else
                snprintf(r->xsk_why, sizeof r->xsk_why, "sock_diag for AF_XDP: %s", errno_text(dr));
        if (mr >= 0)
                r->mr_method = STATUS_M_RDMA_NETLINK;
        else if (mr == -EPROTONOSUPPORT || mr == -ENOENT)
                snprintf(r->mr_why, sizeof r->mr_why, "no RDMA netlink in this kernel (no CONFIG_INFINIBAND)");
        else
                snprintf(r->mr_why, sizeof r->mr_why, "RDMA netlink resource dump: %s", errno_text(mr));
        return 0;
}
#else
static int collect_netlink(struct status_report *r, const size_t *seen, size_t n_seen, unsigned timeout,
                           struct xsk_list *diag, struct rdma_list *rdma) {
        (void)seen, (void)n_seen, (void)timeout, (void)diag, (void)rdma;
        snprintf(r->xsk_why, sizeof r->xsk_why, "built without AF_XDP support (--disable-xdp)");
        snprintf(r->mr_why, sizeof r->mr_why, "%s", r->xsk_why);
        return 0;
}
#endif /* ENABLE_XDP */

/* Each UMEM the sockets share, charged once */
static int collect_umems(struct status_report *r, const struct xsk_list *diag) {
        for (size_t i = 0; i < diag->n; i++) {
                const struct xdpdiag_sock *s = &diag->v[i];
                bool dup = false;
                if (!s->has_umem)
                        continue;
                for (size_t k = 0; k < r->n_umems; k++)
                        dup |= r->umems[k].id == s->umem_id;
                struct status_umem u = {
                        .ino = s->ino, .uid = s->has_uid ? s->uid : UINT32_MAX, .id = s->umem_id,
                        .size = s->umem_size,
                        .charged = dup ? 0 : (uint64_t)s->umem_pages * r->page_size, .shared = dup,
                        .ifindex = s->ifindex, .queue_id = s->queue_id,
                        .zerocopy = s->umem_flags & XDP_DU_F_ZEROCOPY,
                };
                if (array_append((void **)&r->umems, &r->n_umems, sizeof u, &u, 32) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The memory regions of each process */
static void attribute_mrs(struct status_report *r, const struct rdma_list *rdma) {
        if (r->mr_method == STATUS_M_RDMA_NETLINK)
                for (size_t i = 0; i < r->n_procs; i++) {
                        r->procs[i].mr_method = STATUS_M_RDMA_NETLINK;
                        for (size_t k = 0; k < rdma->n_mrs; k++)
                                if (rdma->mrs[k].pid == (uint32_t)r->procs[i].pid) {
                                        r->procs[i].n_mr++;
                                        r->procs[i].mr_bytes += rdma->mrs[k].len;
                                }
                }
}

/* Which processes pass the threshold */
static void mark_over_threshold(const struct status_options *o, struct status_report *r) {
        for (size_t i = 0; i < r->n_procs; i++) {
                struct status_proc *p = &r->procs[i];
                uint64_t c = max3(p->vmlck, p->vmpin, p->xsk_umem_bytes > p->mr_bytes ? p->xsk_umem_bytes : p->mr_bytes);
                p->over_threshold = c >= o->threshold && c > 0;
        }
}

int status_collect(const struct status_options *o, struct status_report *ret) {
        struct status_report r = { .xsk_method = STATUS_M_UNKNOWN, .mr_method = STATUS_M_UNKNOWN };
        struct xsk_list diag = {};
        struct rdma_list rdma = {};
        size_t seen[STATUS_NETNS_MAX];
        int e;

        r.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
        e = collect_procs(o, &r);
        if (e >= 0 && o->filter.pid && r.n_procs == 0)
                e = -ESRCH;
        if (e < 0)
                goto out;
        if (o->procs_only) {
                *ret = r;
                r = (struct status_report){};
                goto out;
        }
        size_t n_seen = count_xdp_sockets(&r, seen);
        if ((e = collect_netlink(&r, seen, n_seen, o->probe_timeout ? o->probe_timeout : STATUS_PROBE_TIMEOUT_DEFAULT,
                                 &diag, &rdma)) < 0)
                goto out;
        if (r.xsk_method == STATUS_M_SOCK_DIAG) {
                if ((e = collect_umems(&r, &diag)) < 0)
                        goto out;
        } else if (o->probe)
                r.xsk_method = STATUS_M_PROBE;

        /* the descriptors a user holds have the run's bound too */
        r.descriptors_bound_s = (o->probe_timeout ? o->probe_timeout : STATUS_PROBE_TIMEOUT_DEFAULT) *
                                STATUS_PROBE_RUN_FACTOR;
        match_sockets(&r, &diag, nl_now_ms() + (uint64_t)r.descriptors_bound_s * 1000);
        attribute_mrs(&r, &rdma);
        if ((e = gather_users(&r, o)) < 0 || (e = gather_units(&r)) < 0)
                goto out;
        mark_over_threshold(o, &r);
        *ret = r;
        r = (struct status_report){};
out:
        free(diag.v);
        free(rdma.devs);
        free(rdma.mrs);
        status_report_clear(&r);
        return e;
}

void status_report_clear(struct status_report *r) {
        free(r->procs);
        free(r->users);
        free(r->units);
        free(r->umems);
        *r = (struct status_report){};
}

const struct status_user *status_find_user(const struct status_report *r, uid_t uid) {
        for (size_t i = 0; i < r->n_users; i++)
                if (r->users[i].uid == uid)
                        return &r->users[i];
        return NULL;
}
