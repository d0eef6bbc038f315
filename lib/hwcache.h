/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * A cache of the hardware summary in /run, written by `rdmalimits probe --save` and read by
 * pam_rdmalimit so a login does not load libibverbs or ask netlink.  It is valid for one
 * boot and one set of RDMA devices, network interfaces and their RX queue counts; anything
 * else makes it stale and the caller probes live.
 */
#include "hw.h"

#define HW_CACHE_PATH "/run/rdmalimit/hw.cache"
#define HW_CACHE_MAX (256 * 1024)

/* The current fingerprint: boot id, RDMA devices (sysfs node) with their port states, network
 * interfaces (name and sysfs node).  The RX queue counts of the interfaces a summary counts
 * are checked by hw_cache_load(). */
int hw_fingerprint(char **ret);

/* Write s with the current fingerprint, atomically, mode 0600, creating the directory. */
int hw_cache_save(const struct hw_summary *s, const char *path);

/*
 * Read a cache: it must be a root-owned regular file not writable by others.  -ENOENT
 * when absent, -ESTALE when the fingerprint differs, -EBADMSG when malformed, or an
 * fs_open_config() error.
 */
int hw_cache_load(const char *path, struct hw_summary **ret);

/* Cached summary if valid, else a live probe.  *ret_cached tells which. */
int hw_probe_cached(const char *path, struct hw_summary **ret, bool *ret_cached);
