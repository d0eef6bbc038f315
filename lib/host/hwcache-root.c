/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>

#include "fsutil.h"
#include "hwcache-root.h"
#include "macro.h"

int hw_cache_load_in_root(const char *root, const char *path, const struct hw_netsel *sel, struct hw_summary **ret) {
        _cleanup_close_ int fd = -1;
        int r = fs_open_config_in_root(root, path, true, true, &fd, NULL);

        return r < 0 ? r : hw_cache_load_fd(fd, sel, ret);
}

int hw_cache_in_root_or_probe(const char *root, const char *path, const struct hw_netsel *sel, struct hw_summary **ret,
                              int *ret_cache_error) {
        if (!root)
                return hw_cache_or_probe(path, sel, ret, ret_cache_error);
        return hw_cache_else_probe(!path ? -ENOENT : hw_cache_load_in_root(root, path, sel, ret), sel, ret,
                                   ret_cache_error);
}
