/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* AF_XDP UMEM registration (umem.h). */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "macro.h"
#include "umem.h"

int umem_register(void *addr, uint64_t len, enum umem_step *ret_step) {
        struct xdp_umem_reg reg = {
                .addr = (uintptr_t)addr,
                .len = len,
                .chunk_size = (uint32_t)(len < 4096 ? len : 4096),
        };
        _cleanup_close_ int s = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);

        if (s < 0) {
                *ret_step = UMEM_SOCKET;
                return -errno;
        }
        if (setsockopt(s, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg) < 0) {
                *ret_step = UMEM_REG;
                return -errno;
        }
        return TAKE_FD(s);
}
