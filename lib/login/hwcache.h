/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The hardware cache in /run, written by `rdmalimits probe --save` (as root, by systemd with a
 * clean environment: the only place the ibverbs attributes are queried) and read by
 * pam_rdmalimit, so that a login asks neither netlink nor anything else for what the cache
 * holds, and learns the devices' max_mr_size, which sysfs does not show.
 *
 * It holds the hardware summary only, valid for one boot, one set of RDMA devices (sysfs node
 * and port states), one interface selection (the policy's include/exclude patterns) and the
 * interfaces that selection counts (name and sysfs node), and the RX queue counts of the
 * counted interfaces.  Interfaces the selection does not count (containers' veths) are not
 * part of it: they come and go without making it stale.
 *
 *   # rdmalimit hardware cache v4
 *   fingerprint boot=...;sel=...;rdma=...;net=...
 *   rdma_status N
 *   verbs_status N
 *   rdma NAME NODE_TYPE QUERY_ERROR VERBS_ERROR MAX_MR_SIZE MAX_MR        (then its ports)
 *   port NUM STATE LINK_LAYER ERROR
 *   xdp_status N
 *   xdp IFINDEX NAME FEATURES RX_QUEUES PHYSICAL                          (counted ones only)
 *   mem STATUS BYTES
 *   end
 *
 * The reader bounds every count (HW_MAX_* of hw.h) and the size (HW_CACHE_MAX): a larger or
 * longer file is refused (-E2BIG, -EFBIG) before it costs memory.
 */
#include "hw.h"

#define HW_CACHE_DIR "/run/rdmalimit"
#define HW_CACHE_NAME "hw.cache"
#define HW_CACHE_PATH HW_CACHE_DIR "/" HW_CACHE_NAME
#define HW_CACHE_MAX (1024 * 1024)
/* its first line: the version of the format (lib/host/hwcache-write.c writes it) */
#define HW_CACHE_MAGIC "# rdmalimit hardware cache v4"

/* The current fingerprint for this interface selection (sel may be NULL: physical only). */
int hw_fingerprint(const struct hw_netsel *sel, char **ret);

/*
 * Parse a cache's text (no file system access, for tests and fuzzing): *ret the summary,
 * *ret_fingerprint the fingerprint it was written with.  -EBADMSG when it is not a v4 cache
 * this build writes, -E2BIG when a count is over its bound, -EFBIG over HW_CACHE_MAX, -ENOMEM.
 */
int hw_cache_parse(const char *text, size_t len, struct hw_summary **ret, char **ret_fingerprint);

/*
 * Read the cache at path (a root-owned regular file, not writable by group or others, not a
 * symlink), parse it and check it against the current fingerprint for sel and the RX queue
 * counts of the interfaces it counts: -ESTALE when they differ.  Other errors as
 * hw_cache_parse() and fs_open_config().
 */
int hw_cache_load(const char *path, const struct hw_netsel *sel, struct hw_summary **ret);
/* The same from a descriptor the caller opened and checked (fs_open_config()). */
int hw_cache_load_fd(int fd, const struct hw_netsel *sel, struct hw_summary **ret);

/*
 * The cache's summary if it is valid, else a live probe from the kernel (hw_probe(): sysfs,
 * netlink; no ibverbs attributes).  path NULL: probe.  *ret_cache_error: 0 when the cache
 * was used, else why not (-ENOENT: none; see hw_cache_load()).  -ENOMEM only.
 */
int hw_cache_or_probe(const char *path, const struct hw_netsel *sel, struct hw_summary **ret, int *ret_cache_error);
/* The same with what loading a cache gave (0 or a negative errno of hw_cache_load()). */
int hw_cache_else_probe(int loaded, const struct hw_netsel *sel, struct hw_summary **ret, int *ret_cache_error);

/* What a cache error means, in a few words, for a log line or a report. */
const char *hw_cache_strerror(int error);
