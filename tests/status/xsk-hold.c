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
 * SIZE: bytes, or a number with K, M or G (powers of 1024), a multiple of the page size.
 * Exit status: 0 ok, 1 refused, 2 usage or setup error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strerrorname_np */
#endif
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../lib/xsk-umem.h"

/* Register len bytes at buf on a new socket: the socket (kept), or -errno. */
static int reg(void *buf, uint64_t len) {
        int fd = xsk_socket(), r;
        if (fd < 0)
                return fd;
        r = xsk_umem_reg(fd, buf, len);
        if (r < 0) {
                close(fd);
                return r;
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
                        printf("mmap errno=%s\n", xsk_errname(errno));
                        return 2;
                }
                for (int k = 15; k >= 0; k--) {
                        int fd = reg(buf, ps << k);
                        if (fd >= 0)
                                total += ps << k;
                        else if (fd != -ENOBUFS) {
                                printf("errno=%s\n", xsk_errname(-fd));
                                return 2;
                        }
                }
                printf("max %" PRIu64 "\n", total);
                return 0;
        }
        if (argc < 3 || xsk_parse_size(argv[2], &size) < 0 || size == 0 || size % ps)
                goto usage;
        if (argc == 4 && (xsk_parse_size(argv[3], &n) < 0 || n == 0 || n > 64))
                goto usage;
        void *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
                printf("mmap errno=%s\n", xsk_errname(errno));
                return 2;
        }
        if (strcmp(argv[1], "try") == 0 && argc == 3) {
                int fd = reg(buf, size);
                if (fd < 0) {
                        printf("errno=%s\n", xsk_errname(-fd));
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
                        printf(" errno=%s\n", xsk_errname(-fd));
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
