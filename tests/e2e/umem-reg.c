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
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "../lib/xsk-umem.h"

int main(int argc, char **argv) {
        uint64_t size;
        struct rlimit rl;
        int fd, r;

        if (argc != 2 || xsk_parse_size(argv[1], &size) < 0 || size == 0 || size % XSK_CHUNK || size > SIZE_MAX) {
                fprintf(stderr, "usage: %s SIZE  (bytes or K/M/G, a multiple of %u)\n", argv[0], XSK_CHUNK);
                return 2;
        }
        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
                fprintf(stderr, "umem-reg: RLIMIT_MEMLOCK soft=%" PRIu64 " hard=%" PRIu64 ", registering %" PRIu64
                        " bytes\n", (uint64_t)rl.rlim_cur, (uint64_t)rl.rlim_max, size);

        fd = xsk_socket();
        if (fd < 0) {
                printf("socket errno=%s\n", xsk_errname(-fd));
                return 2;
        }
        void *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
                printf("mmap errno=%s\n", xsk_errname(errno));
                return 2;
        }
        r = xsk_umem_reg(fd, buf, size);
        if (r < 0) {
                printf("errno=%s\n", xsk_errname(-r));
                return 1;
        }
        printf("ok\n");
        close(fd);
        munmap(buf, (size_t)size);
        return 0;
}
