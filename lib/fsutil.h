/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Files the project trusts or writes: checks on the opened descriptor, bounded reads,
 * atomic replacement in the same directory, a directory lock. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Errors of fs_check_trusted() and fs_open_config(). */
#define FS_ERR_OWNER   (-EPERM)     /* not owned by root */
#define FS_ERR_MODE    (-EACCES)    /* group- or world-writable */
#define FS_ERR_NOTREG  (-EBADFD)    /* not a regular file (FIFO, device, socket) */

/* Owned by root and not writable by group or others? */
int fs_check_trusted(const struct stat *st);
/* Text for the errors above and any other errno. */
const char *fs_strerror(int error);

/*
 * Open a file for reading the way a configuration file should be: O_CLOEXEC|O_NOCTTY|
 * O_NONBLOCK (a FIFO never blocks), O_NOFOLLOW when nofollow, then fstat: only regular
 * files.  With trusted, fs_check_trusted() too.  *ret_st filled when not NULL.
 */
int fs_open_config(int dirfd, const char *path, bool trusted, bool nofollow, int *ret_fd,
                   struct stat *ret_st);

/* Read the whole descriptor, at most max bytes (-EFBIG beyond), NUL-terminated. */
int fs_read_all(int fd, size_t max, char **ret, size_t *ret_len);

/*
 * Replace dirfd/name atomically with data: a temporary ".name.XXXXXX" in the same
 * directory (O_EXCL, O_NOFOLLOW), write, fchmod(mode), fsync, renameat, fsync(dirfd).  On
 * failure before the rename the old file is untouched and the temporary is removed;
 * FS_ERR_DIRSYNC means the file was replaced but the directory could not be synced.
 */
#define FS_ERR_DIRSYNC (-EUCLEAN)
int fs_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* Remove dirfd/name and fsync the directory. */
int fs_unlink_sync(int dirfd, const char *name);

/* Take an exclusive flock(2) on an open directory (blocks until free). */
int fs_lock_dir(int dirfd);

/* Join a root prefix ("" or NULL for none) and an absolute path. */
char *fs_root_path(const char *root, const char *path);
