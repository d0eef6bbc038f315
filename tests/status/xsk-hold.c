/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xsk-hold: AF_XDP UMEMs for the status tests, registered as the calling user (the tests run
 * it with setpriv: the user's uid, CAP_NET_RAW only, never CAP_IPC_LOCK, so the kernel charges
 * the user's locked_vm; net/xdp/xdp_umem.c, xdp_umem_account_pages).
 *
 *   xsk-hold hold SIZE [N]   register N (default 1) UMEMs of SIZE on N sockets, print
 *                            "ok INODE..." (the sockets' inodes) and keep them until stdin
 *                            reaches end of file (or the process is killed)
 *   xsk-hold max             register until the kernel refuses (ENOBUFS): one-page UMEMs in
 *                            halving sizes, each kept, so the sum is exactly what the user may
 *                            still register under this process's soft limit; prints "max BYTES"
 *   xsk-hold try SIZE        register SIZE once: "ok" or "errno=NAME"
 *
 * SIZE: bytes, or a number with K or M (powers of 1024), a multiple of the page size.
 * Exit status: 0 ok, 1 refused, 2 usage or setup error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strerrorname_np */
#endif
#include <errno.h>
#include <inttypes.h>
#include <linux/if_xdp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static const char *errname(int e) {
        const char *n = strerrorname_np(e);
        return n ? n : "unknown";
}

static int parse_size(const char *s, uint64_t *ret) {
        uint64_t v = 0, mul = 1;
        const char *p = s;
        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t)(*p - '0');
        }
        if (*p == 'K')
                mul = 1ull << 10, p++;
        else if (*p == 'M')
                mul = 1ull << 20, p++;
        if (*p || v > UINT64_MAX / mul)
                return -EINVAL;
        *ret = v * mul;
        return 0;
}

/* Register len bytes at buf on a new socket: the socket (kept), or -errno. */
static int reg(void *buf, uint64_t len) {
        int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        struct xdp_umem_reg r = { .addr = (uintptr_t)buf, .len = len, .chunk_size = 4096, .headroom = 0 };
        if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &r, sizeof r) < 0) {
                int e = errno;
                close(fd);
                return -e;
        }
        return fd;
}

int main(int argc, char **argv) {
        uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), size = 0, n = 1;

        if (argc < 2)
                goto usage;
        if (strcmp(argv[1], "max") == 0 && argc == 2) {
                /* descending powers of two pages, each kept when accepted: the binary digits of
                 * the headroom, registered */
                uint64_t total = 0;
                void *buf = mmap(NULL, (size_t)(ps << 15), PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                if (buf == MAP_FAILED) {
                        printf("mmap errno=%s\n", errname(errno));
                        return 2;
                }
                for (int k = 15; k >= 0; k--) {
                        int fd = reg(buf, ps << k);
                        if (fd >= 0)
                                total += ps << k;
                        else if (fd != -ENOBUFS) {
                                printf("errno=%s\n", errname(-fd));
                                return 2;
                        }
                }
                printf("max %" PRIu64 "\n", total);
                return 0;
        }
        if (argc < 3 || parse_size(argv[2], &size) < 0 || size == 0 || size % ps)
                goto usage;
        if (argc == 4 && (parse_size(argv[3], &n) < 0 || n == 0 || n > 64))
                goto usage;
        void *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
                printf("mmap errno=%s\n", errname(errno));
                return 2;
        }
        if (strcmp(argv[1], "try") == 0 && argc == 3) {
                int fd = reg(buf, size);
                if (fd < 0) {
                        printf("errno=%s\n", errname(-fd));
                        return 1;
                }
                printf("ok\n");
                return 0;
        }
        if (strcmp(argv[1], "hold") != 0)
                goto usage;
        printf("ok");
        for (uint64_t i = 0; i < n; i++) {
                struct stat st;
                int fd = reg(buf, size);
                if (fd < 0) {
                        printf(" errno=%s\n", errname(-fd));
                        return 1;
                }
                if (fstat(fd, &st) == 0)
                        printf(" %llu", (unsigned long long)st.st_ino);
        }
        printf("\n");
        fflush(stdout);
        char c;
        while (read(0, &c, 1) > 0)
                ;
        return 0;
usage:
        fprintf(stderr, "usage: xsk-hold hold SIZE [N] | max | try SIZE\n");
        return 2;
}
