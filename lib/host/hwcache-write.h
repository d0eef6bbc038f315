/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Writing the hardware cache: the tool only (a login reads it, lib/login/hwcache.h). */
#include <stddef.h>

#include "hwcache.h"

/* The cache's text for s, with the current fingerprint for sel. */
int hw_cache_format(const struct hw_summary *s, const struct hw_netsel *sel, char **ret, size_t *ret_len);

/* Write it atomically, mode 0600, as dirfd/name (the caller opened the directory; see
 * hw_cache_save() for a path).  -EFBIG over HW_CACHE_MAX, -E2BIG over a count the reader
 * refuses. */
int hw_cache_save_at(const struct hw_summary *s, const struct hw_netsel *sel, int dirfd, const char *name);
/* The same for a path, creating its last directory (mode 0755) when missing; a directory
 * that is a symlink is refused (-ELOOP). */
int hw_cache_save(const struct hw_summary *s, const struct hw_netsel *sel, const char *path);
