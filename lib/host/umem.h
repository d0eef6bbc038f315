/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* AF_XDP UMEM registration, as an application does it: how pin-test proves a limit and how
 * status's probe asks the kernel what is charged. */
#include <linux/if_xdp.h>
#include <stdint.h>
#include <sys/socket.h> /* AF_XDP, SOL_XDP (glibc >= 2.27, musl) */

enum umem_step {
        UMEM_SOCKET,             /* socket(AF_XDP) failed: no AF_XDP, or no CAP_NET_RAW */
        UMEM_REG,                /* setsockopt(XDP_UMEM_REG) failed: ENOBUFS over the limit, ... */
};

/* A new AF_XDP socket with the LEN bytes at ADDR registered as its UMEM (chunks of 4 KiB, or
 * of LEN when smaller): the socket (closing it releases the UMEM), or -errno and *ret_step
 * the call that failed. */
int umem_register(void *addr, uint64_t len, enum umem_step *ret_step);
