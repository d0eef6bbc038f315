/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xsk-umem.h: what the test programs that register AF_XDP UMEMs share (tests/e2e/umem-reg.c,
 * tests/status/xsk-hold.c): static inline functions only, so a program that includes it needs
 * no other object (umem-reg is built without the sanitizers, and also compiled alone with $CC
 * inside the e2e sandbox).  The includer defines _GNU_SOURCE (strerrorname_np) before any
 * include.
 */
#ifndef RDMALIMIT_TESTS_XSK_UMEM_H
#define RDMALIMIT_TESTS_XSK_UMEM_H

#include <errno.h>
#include <linux/if_xdp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The chunk size of every UMEM the tests register; sizes are multiples of it. */
#define XSK_CHUNK 4096u

static inline const char *xsk_errname(int e) {
        const char *n = strerrorname_np(e);
        return n ? n : "unknown";
}

/* A test helper only: digits, then an optional K/M/G (powers of 1024); anything else is
 * refused (-EINVAL), as is a value that does not fit (-ERANGE). */
static inline int xsk_parse_size(const char *s, uint64_t *ret) {
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

/* A new AF_XDP socket (needs CAP_NET_RAW): the descriptor, or -errno. */
static inline int xsk_socket(void) {
        int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
        return fd < 0 ? -errno : fd;
}

/* Register len bytes at buf as the UMEM of the AF_XDP socket fd (net/xdp/xdp_umem.c charges
 * them to the user's locked_vm unless CAP_IPC_LOCK): 0, or -errno (ENOBUFS: over
 * RLIMIT_MEMLOCK). */
static inline int xsk_umem_reg(int fd, void *buf, uint64_t len) {
        struct xdp_umem_reg r = {
                .addr = (uintptr_t)buf,
                .len = len,
                .chunk_size = XSK_CHUNK,
                .headroom = 0,
        };

        if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &r, sizeof r) < 0)
                return -errno;
        return 0;
}

#endif
