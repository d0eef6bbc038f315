/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The hardware cache of a --root tree (rdmalimits only): path resolves inside root; the
 * fingerprint it is checked against is this host's (hwcache.h). */
#include "hwcache.h"

int hw_cache_load_in_root(const char *root, const char *path, const struct hw_netsel *sel, struct hw_summary **ret);
/* hw_cache_or_probe() with the cache of a root tree (root NULL: the host's). */
int hw_cache_in_root_or_probe(const char *root, const char *path, const struct hw_netsel *sel, struct hw_summary **ret,
                              int *ret_cache_error);
