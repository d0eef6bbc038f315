/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * umem-reg SIZE: register an AF_XDP UMEM of SIZE bytes, as the calling user, and say whether
 * the kernel accepted it.  The e2e tests run it inside real ssh logins to prove that the
 * RLIMIT_MEMLOCK a session got is the one the kernel charges (net/xdp/xdp_umem.c,
 * xdp_umem_account_pages: charged to the user's locked_vm unless CAP_IPC_LOCK; over the
 * limit -> ENOBUFS).
 *
 * socket(AF_XDP) needs CAP_NET_RAW: the tests give a copy of this program the file
 * capability cap_net_raw+ep (never cap_ipc_lock, which would skip the accounting).
 *
 * SIZE: bytes, or a number with K, M or G (powers of 1024); a multiple of 4096.
 * Output, one line on stdout:
 *   ok                       the UMEM was registered (then released on exit)
 *   errno=NAME               XDP_UMEM_REG failed (ENOBUFS: over RLIMIT_MEMLOCK)
 *   socket errno=NAME        socket(AF_XDP) failed (EPERM: no CAP_NET_RAW)
 *   mmap errno=NAME          the buffer could not be mapped
 * Exit status: 0 ok, 1 registration refused, 2 usage or setup error.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define CHUNK 4096u

static const char *errname(int e) {
        const char *n = strerrorname_np(e);
        return n ? n : "unknown";
}

/* A test helper only: digits, then an optional K/M/G; anything else is refused. */
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
        switch (*p) {
        case '\0': break;
        case 'K': mul = 1ull << 10; p++; break;
        case 'M': mul = 1ull << 20; p++; break;
        case 'G': mul = 1ull << 30; p++; break;
        default: return -EINVAL;
        }
        if (*p)
                return -EINVAL;
        if (v > UINT64_MAX / mul)
                return -ERANGE;
        *ret = v * mul;
        return 0;
}

int main(int argc, char **argv) {
        uint64_t size;
        struct rlimit rl;

        if (argc != 2 || parse_size(argv[1], &size) < 0 || size == 0 || size % CHUNK || size > SIZE_MAX) {
                fprintf(stderr, "usage: %s SIZE  (bytes or K/M/G, a multiple of %u)\n", argv[0], CHUNK);
                return 2;
        }
        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
                fprintf(stderr, "umem-reg: RLIMIT_MEMLOCK soft=%" PRIu64 " hard=%" PRIu64 ", registering %" PRIu64
                        " bytes\n", (uint64_t)rl.rlim_cur, (uint64_t)rl.rlim_max, size);

        int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                printf("socket errno=%s\n", errname(errno));
                return 2;
        }
        void *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
                printf("mmap errno=%s\n", errname(errno));
                return 2;
        }
        struct xdp_umem_reg reg = {
                .addr = (uintptr_t)buf,
                .len = size,
                .chunk_size = CHUNK,
                .headroom = 0,
        };
        if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg) < 0) {
                printf("errno=%s\n", errname(errno));
                return 1;
        }
        printf("ok\n");
        close(fd);
        munmap(buf, (size_t)size);
        return 0;
}
