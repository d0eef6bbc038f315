/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"

int fs_check_trusted(const struct stat *st) {
        if (st->st_uid != 0)
                return FS_ERR_OWNER;
        if (st->st_mode & (S_IWGRP | S_IWOTH))
                return FS_ERR_MODE;
        return 0;
}

const char *fs_strerror(int error) {
        switch (error) {
        case FS_ERR_OWNER:
                return "not owned by root";
        case FS_ERR_MODE:
                return "writable by group or others";
        case FS_ERR_NOTREG:
                return "not a regular file";
        case -EFBIG:
                return "file too large";
        case FS_ERR_DIRSYNC:
                return "the directory could not be synced to disk";
        default:
                return strerror(-error);
        }
}

int fs_open_config(int dirfd, const char *path, bool trusted, bool nofollow, int *ret_fd,
                   struct stat *ret_st) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
        if (fd < 0)
                return errno == ELOOP && nofollow ? -ELOOP : negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return FS_ERR_NOTREG;
        if (trusted) {
                r = fs_check_trusted(&st);
                if (r < 0)
                        return r;
        }
        if (ret_st)
                *ret_st = st;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int fs_read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;

        for (;;) {
                if (cap - len < 4096 + 1) {
                        size_t ncap = cap ? cap * 2 : 8192;
                        if (ncap > max + 2)
                                ncap = max + 2;
                        if (ncap <= len + 1)
                                return -EFBIG;
                        char *nb = realloc(buf, ncap);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = ncap;
                }
                ssize_t n = read(fd, buf + len, cap - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                break; /* an empty FIFO: nothing more to read now */
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t)n;
                if (len > max)
                        return -EFBIG;
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

static int write_full(int fd, const char *p, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        return -EIO;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int fs_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode) {
        char tmp[512];
        _cleanup_close_ int fd = -1;
        int r;

        if (strchr(name, '/') || strlen(name) > 200)
                return -EINVAL;
        for (int attempt = 0;; attempt++) {
                uint64_t rnd;
                if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
                        rnd = (uint64_t)getpid() * 2654435761u + (uint64_t)attempt;
                snprintf(tmp, sizeof tmp, ".%s.%012llx", name, (unsigned long long)(rnd & 0xffffffffffffULL));
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
                if (fd >= 0)
                        break;
                if (errno != EEXIST || attempt > 16)
                        return negative_errno();
        }
        r = write_full(fd, data, len);
        if (r < 0)
                goto fail;
        if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (close(TAKE_FD(fd)) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (fsync(dirfd) < 0)
                return FS_ERR_DIRSYNC; /* renamed already: report, nothing to undo */
        return 0;
fail:
        (void)unlinkat(dirfd, tmp, 0);
        return r;
}

int fs_unlink_sync(int dirfd, const char *name) {
        if (unlinkat(dirfd, name, 0) < 0)
                return negative_errno();
        if (fsync(dirfd) < 0)
                return FS_ERR_DIRSYNC;
        return 0;
}

int fs_lock_dir(int dirfd) {
        while (flock(dirfd, LOCK_EX) < 0) {
                if (errno != EINTR)
                        return negative_errno();
        }
        return 0;
}

char *fs_root_path(const char *root, const char *path) {
        char *s;
        if (!root || !*root || streq(root, "/"))
                return strdup(path);
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
                rl--;
        if (asprintf(&s, "%.*s%s%s", (int)rl, root, path[0] == '/' ? "" : "/", path) < 0)
                return NULL;
        return s;
}
