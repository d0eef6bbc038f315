/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Files the project trusts or writes: checks on the opened descriptor, bounded reads,
 * atomic replacement in the same directory, a lock file, paths resolved inside a root. */
#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Errors of fs_check_trusted() and fs_open_config(): errno values no file system call returns,
 * so that a real EPERM or EACCES (an LSM, root_squash, a process without CAP_DAC_OVERRIDE)
 * is never taken for a wrong owner or mode. */
#define FS_ERR_OWNER   (-EBADE)     /* not owned by root */
#define FS_ERR_MODE    (-EBADR)     /* group- or world-writable */
#define FS_ERR_NOTREG  (-EBADFD)    /* not a regular file (FIFO, device, socket) */
#define FS_ERR_LOCKMODE (-ENOTUNIQ) /* a lock file others may open (mode beyond 0600) */
#define FS_ERR_USERFUSE (-EREMOTE)  /* on a FUSE file system a user serves (--root trees) */

/* Owned by root and not writable by group or others? */
int fs_check_trusted(const struct stat *st);
/* Text for the errors above and any other errno. */
const char *fs_strerror(int error);
/* The text of a negative errno, the same whatever the locale and the environment (strerror()
 * translates through the caller's LC_MESSAGES and LANGUAGE: su sets the user's locale before it
 * opens the session).  Never NULL; ASCII. */
const char *errno_text(int error);

/*
 * Open a file for reading the way a configuration file should be: O_CLOEXEC|O_NOCTTY|
 * O_NONBLOCK (a FIFO never blocks), O_NOFOLLOW when nofollow, then fstat: only regular
 * files.  With trusted, fs_check_trusted() too.  *ret_st filled when not NULL.
 */
int fs_open_config(int dirfd, const char *path, bool trusted, bool nofollow, int *ret_fd,
                   struct stat *ret_st);

/* Read the whole descriptor, at most max bytes (-EFBIG beyond), NUL-terminated. */
int fs_read_all(int fd, size_t max, char **ret, size_t *ret_len);

/* The most a line reader (fs_getline()) reads of one file of a tree: root's tools read files
 * of trees from elsewhere, where a sparse file costs its maker nothing. */
#define FS_LINES_MAX (64u * 1024 * 1024)

/*
 * getline(3) within a budget: the next line (its newline kept) in *line (grown as getline
 * grows it, *cap its size), its length; 0 at the end of the file; -EFBIG once the file gave
 * more than *budget bytes in all (counted down: start it at FS_LINES_MAX), -EIO, -ENOMEM.
 * A NUL byte is kept (the line's length says where it ends).
 */
ssize_t fs_getline(char **line, size_t *cap, FILE *f, size_t *budget);

/*
 * Replace dirfd/name atomically with data: a temporary ".name.XXXXXX" in the same
 * directory (O_EXCL, O_NOFOLLOW), write, fchmod(mode), fsync, renameat, fsync(dirfd).  On
 * failure before the rename the old file is untouched and the temporary is removed;
 * FS_ERR_DIRSYNC means the file was replaced but the directory could not be synced.
 */
#define FS_ERR_DIRSYNC (-EUCLEAN)
/* the longest name fs_write_atomic() writes: a longer one is -EINVAL */
#define FS_WRITE_NAME_MAX 200
int fs_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* Remove dirfd/name and fsync the directory. */
int fs_unlink_sync(int dirfd, const char *name);

/*
 * Locks of the directories rdmalimits edits live apart from them, in a directory only the
 * tool's user can write (FS_LOCK_DIR for root): a lock on the edited directory itself, or
 * on a file anyone can open, anyone can hold forever; and a lock file in a --root tree would
 * change the tree.  fs_lock_dir_open() opens (and makes, 0700, its parent 0755 when missing)
 * that directory, refused unless it is a directory owned by the effective uid that group
 * and others cannot write (FS_ERR_OWNER, FS_ERR_MODE, -ELOOP, -ENOTDIR).
 * fs_lock_name() names the lock of the directory dirfd is open on, by device and inode.
 */
#define FS_LOCK_DIR "/run/rdmalimit/locks"
#define FS_LOCK_NAME_MAX 64
int fs_lock_dir_open(const char *path, int *ret_fd);
int fs_lock_name(int dirfd, char buf[static FS_LOCK_NAME_MAX]);
/*
 * Take an exclusive lock on lockdirfd/name, a lock file created 0600 when missing, opened
 * with O_NOFOLLOW, and refused unless it is a regular file owned by the effective uid that
 * nobody else may open (FS_ERR_NOTREG, FS_ERR_OWNER, FS_ERR_LOCKMODE).  flock(LOCK_EX|
 * LOCK_NB) is tried every FS_LOCK_POLL_MS for up to timeout_ms (0: once); then -ETIMEDOUT
 * and, when ret_holder is not NULL, *ret_holder is the pid /proc/locks names as holding it
 * (0 when unknown).  The lock lasts as long as the descriptor in *ret_fd.
 */
#define FS_LOCK_POLL_MS 50u
int fs_lock_file(int lockdirfd, const char *name, unsigned timeout_ms, int *ret_fd, pid_t *ret_holder);

/* Join a root prefix ("" or NULL for none) and an absolute path: for messages only, never
 * to open a file under a root (use the fs_*_in_root() functions). */
char *fs_root_path(const char *root, const char *path);

/*
 * Paths inside a root (--root DIR).  root NULL, "" or "/" means none: path is opened as
 * open(2) would, following symbolic links as before.  Under a root, path (absolute or not)
 * is resolved as if root were "/": openat2(2) with RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS,
 * so an absolute symbolic link or ".." in the tree stays in the tree; where the kernel has
 * no openat2 (ENOSYS, or EPERM from a seccomp filter), fs_openat_in_root_walk(), which
 * refuses every symbolic link on the way instead (-ELOOP).  O_CLOEXEC is always added.
 */
bool fs_root_is_set(const char *root);
int fs_openat_in_root(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd);
/* The fallback: one component at a time with O_PATH|O_NOFOLLOW, "." skipped, ".." never
 * above rootfd; a symbolic link as any component, the last one included, is -ELOOP (with
 * O_PATH|O_NOFOLLOW in flags the last one is opened as the link itself). */
int fs_openat_in_root_walk(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd);
int fs_open_in_root(const char *root, const char *path, int flags, mode_t mode, int *ret_fd);

/*
 * A directory inside the root, O_RDONLY|O_DIRECTORY (for fs_write_atomic(), fs_lock_file(),
 * openat()).  FS_DIR_CREATE: when it is missing, mkdir it (0755) in its parent, which must
 * exist (-ENOENT); under a root, a symbolic link there whose target is not in the tree is
 * -ELOOP.  FS_DIR_NOFOLLOW: a symbolic link as the last component is refused, with or
 * without a root.
 */
#define FS_DIR_CREATE   (1u << 0)
#define FS_DIR_NOFOLLOW (1u << 1)
int fs_open_dir_in_root(const char *root, const char *path, unsigned flags, int *ret_fd);

/*
 * The directory of the file path (absolute), for root to write into although others own
 * directories on the way (the textfile directory of node_exporter is root's, its parent the
 * prometheus user's): every component is opened without following a symbolic link (-ELOOP),
 * the directory itself O_RDONLY|O_DIRECTORY and checked on its descriptor: owned by root and
 * not writable by group or others (FS_ERR_OWNER, FS_ERR_MODE), so nobody else can plant a
 * name in it.  *ret_name points at the file's name in path.  -EINVAL: path not absolute, or
 * ending in "/", "." or "..".  With fs_write_atomic(dirfd, name, ...) nothing is ever written
 * through a link.
 */
int fs_open_parent_trusted(const char *path, int *ret_dirfd, const char **ret_name);

/* fs_open_config() of a path inside the root. */
int fs_open_config_in_root(const char *root, const char *path, bool trusted, bool nofollow, int *ret_fd,
                           struct stat *ret_st);
/* stat(2) (lstat(2) with nofollow) of a path inside the root. */
int fs_stat_in_root(const char *root, const char *path, bool nofollow, struct stat *ret);
/* Does path exist under root, following links: a directory when want_dir, else anything but
 * one?  1, 0, or -ENOMEM (any other error is "no"). */
int fs_exists_in_root(const char *root, const char *path, bool want_dir);
/* opendir(3) and fopen(path, "re") of a path inside the root.  fs_fopen_in_root() opens a
 * regular file or /dev/null only (-EINVAL for a FIFO, socket or other device, -EISDIR), and
 * never blocks in open(). */
int fs_opendir_in_root(const char *root, const char *path, DIR **ret);
/* The names in the directory dir (inside root) that match the fnmatch(3) pattern, appended to
 * *ret, which is then sorted.  FNM_PERIOD, as glob(3) matches: a name that starts with '.' only
 * for a pattern that does (".*" gives "." and ".." too).  0 (a directory that cannot be opened
 * lists nothing) or -ENOMEM. */
struct strv;
int fs_list_in_root(const char *root, const char *dir, const char *pattern, struct strv *ret);
/* glob(3) of the absolute pattern inside root, as sshd's Include calls it (no flags):
 * wildcards in any component (each matched as fs_list_in_root() matches), a component without
 * any taken as it is, the paths sorted, appended to *ret.  A path whose last components are
 * literal may not exist: the callers open only the files that do.  0, -ENOMEM, or -E2BIG when
 * a step would give more than max paths (nothing appended then). */
int fs_glob_in_root(const char *root, const char *pattern, size_t max, struct strv *ret);
/* A path inside the root as messages show it: relative to the root (abs without its leading
 * '/') when one is set, else abs itself. */
const char *fs_root_shown(const char *root, const char *abs);
int fs_fopen_in_root(const char *root, const char *path, FILE **ret);
/* readlink(2) of a path inside the root, NUL-terminated in buf (cut to size - 1);
 * -EINVAL when it is not a symbolic link. */
ssize_t fs_readlink_in_root(const char *root, const char *path, char *buf, size_t size);
