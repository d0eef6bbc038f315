/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "fsutil.h"
#include "macro.h"
#include "size.h"
#include "strv.h"

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
        case FS_ERR_LOCKMODE:
                return "open to group or others";
        case FS_ERR_USERFUSE:
                return "on a FUSE file system a user serves (not read: its server could hold the reader)";
        case -EFBIG:
                return "file too large";
        case FS_ERR_DIRSYNC:
                return "the directory could not be synced to disk";
        default:
                return errno_text(error);
        }
}

const char *errno_text(int error) {
        const char *t = NULL;
#ifdef HAVE_STRERRORDESC_NP
        t = strerrordesc_np(-error);
#else
        /* the C locale's text: gettext is not asked (it reads no LANGUAGE in the C locale) */
        locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        if (c) {
                t = strerror_l(-error, c);
                freelocale(c);
        }
#endif
        return t ? t : "unknown error";
}

/* The checks of fs_open_config() on an opened descriptor; takes fd over. */
static int config_fd(int fd_in, bool trusted, int *ret_fd, struct stat *ret_st) {
        _cleanup_close_ int fd = fd_in;
        struct stat st;
        int r;

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

int fs_open_config(int dirfd, const char *path, bool trusted, bool nofollow, int *ret_fd,
                   struct stat *ret_st) {
        int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
        if (fd < 0)
                return errno == ELOOP && nofollow ? -ELOOP : negative_errno();
        return config_fd(fd, trusted, ret_fd, ret_st);
}

ssize_t fs_getline(char **line, size_t *cap, FILE *f, size_t *budget) {
        size_t len = 0;
        int c;

        while ((c = getc_unlocked(f)) != EOF) {
                if (*budget == 0)
                        return -EFBIG;
                (*budget)--;
                if (len + 2 > *cap) {
                        size_t want = *cap < 128 ? 128 : *cap * 2;
                        char *p = realloc(*line, want);
                        if (!p)
                                return -ENOMEM;
                        *line = p;
                        *cap = want;
                }
                (*line)[len++] = (char)c;
                if (c == '\n')
                        break;
        }
        if (ferror(f))
                return -EIO;
        if (len > 0)
                (*line)[len] = '\0';
        return (ssize_t)len;
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

        if (strchr(name, '/') || strlen(name) > FS_WRITE_NAME_MAX)
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

/* The pid /proc/locks names as holding a lock on the file fd refers to (not a waiter):
 * matched by device and inode, else by the inode alone (btrfs and overlayfs report another
 * st_dev than the superblock's).  0 when none is found. */
static pid_t lock_holder(int fd) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        char full[64], ino[32];
        size_t n = 0;
        struct stat st;
        pid_t by_ino = 0;

        if (fstat(fd, &st) < 0)
                return 0;
        snprintf(full, sizeof full, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
        snprintf(ino, sizeof ino, ":%llu", (unsigned long long)st.st_ino);
        f = fopen("/proc/locks", "re");
        if (!f)
                return 0;
        while (getline(&line, &n, f) > 0) {
                /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->" after the number */
                char *w[6], *save = NULL;
                size_t k = 0;
                for (char *t = strtok_r(line, " \t\n", &save); t && k < ELEMENTSOF(w); t = strtok_r(NULL, " \t\n", &save))
                        w[k++] = t;
                if (k < ELEMENTSOF(w) || streq(w[1], "->"))
                        continue;
                uint32_t pid;
                if (parse_u32(w[4], &pid) < 0 || pid == 0 || pid > INT32_MAX)
                        continue;
                if (streq(w[5], full))
                        return (pid_t)pid;
                size_t a = strlen(w[5]), b = strlen(ino);
                if (!by_ino && a > b && streq(w[5] + a - b, ino))
                        by_ino = (pid_t)pid;
        }
        return by_ino;
}

static int split_last(const char *path, char **ret_parent, char **ret_name);

static int lock_dir_at(int parentfd, const char *name, mode_t mode, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (mkdirat(parentfd, name, mode) < 0 && errno != EEXIST)
                return negative_errno();
        fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return errno == ENOTDIR && fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)
                               ? -ELOOP : negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != geteuid())
                return FS_ERR_OWNER;
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return FS_ERR_MODE;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int fs_lock_dir_open(const char *path, int *ret_fd) {
        _cleanup_free_ char *parent = NULL, *name = NULL;
        _cleanup_close_ int pfd = -1;
        int r;

        if (path[0] != '/')
                return -EINVAL;
        r = split_last(path, &parent, &name);
        if (r < 0)
                return r;
        pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0 && errno == ENOENT) {
                /* a missing parent (/run/rdmalimit before any probe --save) is made as hw_cache_save() makes it */
                _cleanup_free_ char *grand = NULL, *pname = NULL;
                _cleanup_close_ int gfd = -1;
                r = split_last(parent, &grand, &pname);
                if (r < 0)
                        return r;
                gfd = open(grand, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (gfd < 0)
                        return negative_errno();
                r = lock_dir_at(gfd, pname, 0755, &pfd);
                if (r < 0)
                        return r;
        }
        if (pfd < 0)
                return negative_errno();
        return lock_dir_at(pfd, name, 0700, ret_fd);
}

int fs_lock_name(int dirfd, char buf[static FS_LOCK_NAME_MAX]) {
        struct stat st;
        if (fstat(dirfd, &st) < 0)
                return negative_errno();
        snprintf(buf, FS_LOCK_NAME_MAX, "%llx-%llx.lock", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
        return 0;
}

int fs_lock_file(int lockdirfd, const char *name, unsigned timeout_ms, int *ret_fd, pid_t *ret_holder) {
        _cleanup_close_ int fd = -1;
        struct timespec start, now;
        struct stat st;

        if (strchr(name, '/'))
                return -EINVAL;
        fd = openat(lockdirfd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return FS_ERR_NOTREG;
        if (st.st_uid != geteuid())
                return FS_ERR_OWNER;
        if (st.st_mode & (S_IRWXG | S_IRWXO))
                return FS_ERR_LOCKMODE; /* whoever may open it may hold it */
        if (clock_gettime(CLOCK_MONOTONIC, &start) < 0)
                return negative_errno();
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        break;
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK)
                        return negative_errno();
                if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
                        return negative_errno();
                int64_t waited = ((int64_t)now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
                if (waited < 0)
                        waited = 0;
                if ((uint64_t)waited >= timeout_ms) {
                        if (ret_holder)
                                *ret_holder = lock_holder(fd);
                        return -ETIMEDOUT;
                }
                uint64_t left = timeout_ms - (uint64_t)waited, step = left < FS_LOCK_POLL_MS ? left : FS_LOCK_POLL_MS;
                struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step * 1000000L };
                (void)nanosleep(&ts, NULL);
        }
        *ret_fd = TAKE_FD(fd);
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

/* ---- paths inside a root ---- */

bool fs_root_is_set(const char *root) {
        return root && *root && !streq(root, "/");
}

const char *fs_root_shown(const char *root, const char *abs) {
        return fs_root_is_set(root) && abs[0] == '/' ? abs + 1 : abs;
}

int fs_list_in_root(const char *root, const char *dir, const char *pattern, struct strv *ret) {
        DIR *d = NULL;
        struct dirent *de;
        int r = fs_opendir_in_root(root, dir, &d);

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        while ((de = readdir(d)))
                if (fnmatch(pattern, de->d_name, FNM_PERIOD) == 0 &&
                    (r = strv_push(ret, de->d_name)) < 0)
                        break;
        closedir(d);
        strv_sort(ret);
        return r < 0 ? r : 0;
}

static bool has_wildcard(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

int fs_glob_in_root(const char *root, const char *pattern, size_t max, struct strv *ret) {
        _cleanup_(strv_clear) struct strv cur = {};
        _cleanup_free_ char *copy = strdup(pattern);
        char *save = NULL;
        int r;

        if (!copy || strv_push(&cur, "") < 0)
                return -ENOMEM;
        for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
                _cleanup_(strv_clear) struct strv next = {};
                for (size_t i = 0; i < cur.n; i++) {
                        if (!has_wildcard(comp)) {
                                if ((r = strv_consume(&next, strf("%s/%s", cur.v[i], comp))) < 0)
                                        return r;
                        } else {
                                _cleanup_(strv_clear) struct strv names = {};
                                if ((r = fs_list_in_root(root, cur.v[i][0] ? cur.v[i] : "/", comp, &names)) < 0)
                                        return r;
                                for (size_t k = 0; k < names.n; k++)
                                        if ((r = strv_consume(&next, strf("%s/%s", cur.v[i], names.v[k]))) < 0)
                                                return r;
                        }
                        if (next.n > max)
                                return -E2BIG;
                }
                strv_clear(&cur);
                cur = next;
                next = (struct strv){};
        }
        strv_sort(&cur);
        for (size_t i = 0; i < cur.n; i++)
                if (cur.v[i][0] && (r = strv_push(ret, cur.v[i])) < 0)
                        return r;
        return 0;
}

static int check_open_flags(int flags) {
        /* O_PATH with O_CREAT makes no sense, and "create through" is what we refuse */
        if ((flags & O_PATH) && (flags & O_CREAT))
                return -EINVAL;
        return 0;
}

int fs_openat_in_root_walk(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd) {
        _cleanup_free_ char *copy = NULL;
        _cleanup_close_ int cur = -1;
        unsigned depth = 0;
        char *p;
        int r, fd;

        r = check_open_flags(flags);
        if (r < 0)
                return r;
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cur < 0)
                return negative_errno();
        for (p = copy;;) {
                while (*p == '/')
                        p++;
                char *name = p, *next = strchr(p, '/');
                if (next)
                        *next++ = '\0';
                while (next && *next == '/')
                        next++;
                bool last = !next || !*next;
                if (!*name)
                        name = ".";
                if (streq(name, "..") && depth == 0)
                        name = "."; /* never above the root, as RESOLVE_IN_ROOT */
                if (last) {
                        bool want_dir = next != NULL && !(flags & O_CREAT); /* a trailing slash */
                        fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC | (want_dir ? O_DIRECTORY : 0), mode);
                        if (fd < 0)
                                return negative_errno();
                        if ((flags & O_PATH) && !(flags & O_NOFOLLOW)) {
                                struct stat st;
                                if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
                                        r = S_ISLNK(st.st_mode) ? -ELOOP : negative_errno();
                                        close(fd);
                                        return r;
                                }
                        }
                        *ret_fd = fd;
                        return 0;
                }
                p = next;
                if (streq(name, "."))
                        continue;
                struct stat st;
                fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return negative_errno();
                if (fstat(fd, &st) < 0) {
                        r = negative_errno();
                        close(fd);
                        return r;
                }
                if (!S_ISDIR(st.st_mode)) {
                        close(fd);
                        return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
                }
                close(cur);
                cur = fd;
                if (streq(name, ".."))
                        depth--;
                else
                        depth++;
        }
}

static int openat_in_root(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd) {
#ifdef SYS_openat2
        struct open_how how = {
                .flags = (uint64_t)(unsigned)(flags | O_CLOEXEC),
                .mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? mode : 0,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        for (int attempt = 0; attempt < 8; attempt++) {
                long fd = syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof how);
                if (fd >= 0) {
                        *ret_fd = (int)fd;
                        return 0;
                }
                if (errno == EAGAIN || errno == EINTR)
                        continue; /* a rename raced with "..": the kernel asks to try again */
                if (errno == ENOSYS || errno == EPERM)
                        break;    /* no openat2 here (or a seccomp filter refusing it) */
                return negative_errno();
        }
#endif
        return fs_openat_in_root_walk(rootfd, path, flags, mode, ret_fd);
}

/* The devices of the FUSE file systems a user serves, from /proc/self/mountinfo: type fuse,
 * fuseblk or fuse.*, with a user_id= other than 0 in the super options (fusermount's mounts;
 * the user's allow_other lets root in).  How many (0: none, or no mountinfo), or -ENOMEM. */
static ssize_t user_fuse_devs(dev_t **ret) {
        _cleanup_close_ int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        _cleanup_free_ char *text = NULL;
        dev_t *v = NULL;
        size_t n = 0;

        *ret = NULL;
        if (fd < 0 || fs_read_all(fd, 16u * 1024 * 1024, &text, NULL) < 0)
                return 0;
        for (char *line = text, *end; line && *line; line = end) {
                uint64_t maj, min, uid;
                const char *p = line;
                if ((end = strchr(line, '\n')))
                        *end++ = '\0';
                /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - TYPE SOURCE SUPER-OPTIONS" */
                for (int field = 0; field < 2 && p; field++)
                        p = (p = strchr(p, ' ')) ? p + 1 : NULL;
                const char *sep = strstr(line, " - "), *type = sep ? sep + 3 : NULL;
                if (!p || !type || parse_u64_prefix(p, &maj, &p) < 0 || *p != ':' ||
                    parse_u64_prefix(p + 1, &min, NULL) < 0 ||
                    !(strncmp(type, "fuse ", 5) == 0 || strncmp(type, "fuseblk ", 8) == 0 ||
                      strncmp(type, "fuse.", 5) == 0))
                        continue;
                const char *opts = strrchr(type, ' '), *u = opts ? strstr(opts, "user_id=") : NULL;
                if (!u || (u[-1] != ',' && u[-1] != ' ') || parse_u64_prefix(u + 8, &uid, NULL) < 0 || uid == 0)
                        continue;
                dev_t *w = realloc(v, (n + 1) * sizeof *v);
                if (!w) {
                        free(v);
                        return -ENOMEM;
                }
                v = w;
                v[n++] = makedev(maj, min);
        }
        *ret = v;
        return (ssize_t)n;
}

/*
 * Where a user serves a FUSE file system (and lets root in with allow_other), a file of a tree
 * is first resolved without being opened: an O_PATH descriptor makes the file system no open
 * and no flush at its close, and a statx() that must not sync asks it nothing.  A file on such
 * a file system (for one to create: its directory) is refused (FS_ERR_USERFUSE): its server
 * could hold root's open, read or close, the close for good.  Otherwise the file is opened
 * again through that descriptor.  0 with *ret_fd (-1: open it the usual way), or -errno.
 */
static int open_unless_user_fuse(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd) {
        _cleanup_free_ dev_t *fuse = NULL;
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int pfd = -1;
        ssize_t n = user_fuse_devs(&fuse);
        const char *probe = path;
        struct statx sx;
        int r;

        *ret_fd = -1;
        if (n <= 0 || (flags & O_PATH))
                return (int)(n < 0 ? n : 0);
        /* a file to create: its directory (O_TMPFILE names the directory itself) */
        bool create = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
        if (flags & O_CREAT) {
                const char *slash = strrchr(path, '/');
                if (!(dir = strndup(path, slash ? (size_t)(slash - path) : 0)))
                        return -ENOMEM;
                probe = dir;
        }
        r = openat_in_root(rootfd, probe, O_PATH | (create ? O_DIRECTORY : flags & O_NOFOLLOW), 0, &pfd);
        if (r < 0)
                return create ? 0 : r;   /* the open below says why */
        if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE, &sx) < 0)
                return negative_errno();
        for (ssize_t i = 0; i < n; i++)
                if (fuse[i] == makedev(sx.stx_dev_major, sx.stx_dev_minor))
                        return FS_ERR_USERFUSE;
        if (create)
                return 0;
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
        int fd = open(proc, (flags & ~O_NOFOLLOW) | O_CLOEXEC, mode);
        if (fd >= 0)
                *ret_fd = fd;
        return 0;
}

int fs_openat_in_root(int rootfd, const char *path, int flags, mode_t mode, int *ret_fd) {
        int fd, r = check_open_flags(flags);
        if (r < 0)
                return r;
        if ((r = open_unless_user_fuse(rootfd, *path ? path : ".", flags, mode, &fd)) < 0)
                return r;
        if (fd >= 0) {
                *ret_fd = fd;
                return 0;
        }
        return openat_in_root(rootfd, path, flags, mode, ret_fd);
}

static int open_root(const char *root, int *ret) {
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        *ret = fd;
        return 0;
}

int fs_open_in_root(const char *root, const char *path, int flags, mode_t mode, int *ret_fd) {
        _cleanup_close_ int rootfd = -1;
        int r;

        if (!fs_root_is_set(root)) {
                r = check_open_flags(flags);
                if (r < 0)
                        return r;
                int fd = openat(AT_FDCWD, path, flags | O_CLOEXEC, mode);
                if (fd < 0)
                        return negative_errno();
                *ret_fd = fd;
                return 0;
        }
        r = open_root(root, &rootfd);
        if (r < 0)
                return r;
        return fs_openat_in_root(rootfd, path, flags, mode, ret_fd);
}

int fs_open_config_in_root(const char *root, const char *path, bool trusted, bool nofollow, int *ret_fd,
                           struct stat *ret_st) {
        int fd, r;

        r = fs_open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0), 0, &fd);
        if (r < 0)
                return r;
        return config_fd(fd, trusted, ret_fd, ret_st);
}

int fs_stat_in_root(const char *root, const char *path, bool nofollow, struct stat *ret) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        r = fs_open_in_root(root, path, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0, &fd);
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        *ret = st;
        return 0;
}

int fs_exists_in_root(const char *root, const char *path, bool want_dir) {
        struct stat st;
        int r = fs_stat_in_root(root, path, false, &st);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        return want_dir ? S_ISDIR(st.st_mode) : !S_ISDIR(st.st_mode);
}

int fs_opendir_in_root(const char *root, const char *path, DIR **ret) {
        int fd, r;

        r = fs_open_in_root(root, path, O_RDONLY | O_DIRECTORY | O_NOCTTY, 0, &fd);
        if (r < 0)
                return r;
        DIR *d = fdopendir(fd);
        if (!d) {
                r = negative_errno();
                close(fd);
                return r;
        }
        *ret = d;
        return 0;
}

int fs_fopen_in_root(const char *root, const char *path, FILE **ret) {
        int fd, r;

        /* never block in open() or read() on a FIFO, socket or device someone put there:
         * a regular file, or /dev/null (a masked unit) */
        r = fs_open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd);
        if (r < 0)
                return r;
        struct stat st = { 0 };
        if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))) ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
                close(fd);
                return r;
        }
        FILE *f = fdopen(fd, "re");
        if (!f) {
                r = negative_errno();
                close(fd);
                return r;
        }
        *ret = f;
        return 0;
}

ssize_t fs_readlink_in_root(const char *root, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = -1;
        int r;

        if (size < 2)
                return -EINVAL;
        r = fs_open_in_root(root, path, O_PATH | O_NOFOLLOW, 0, &fd);
        if (r < 0)
                return r;
        ssize_t n = readlinkat(fd, "", buf, size - 1);
        if (n < 0)
                return errno == ENOENT ? -EINVAL : negative_errno(); /* "": not a link */
        buf[n] = '\0';
        return n;
}

int fs_open_parent_trusted(const char *path, int *ret_dirfd, const char **ret_name) {
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *parent = NULL;
        _cleanup_close_ int rootfd = -1, pathfd = -1, fd = -1;
        struct stat st;
        int r;

        if (path[0] != '/' || !slash[1] || streq(slash + 1, ".") || streq(slash + 1, ".."))
                return -EINVAL;
        parent = strndup(path, (size_t)(slash - path)); /* "" for a file in "/" */
        if (!parent)
                return -ENOMEM;
        rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return negative_errno();
        /* the last component as it is (a link itself), then the directory through it */
        r = fs_openat_in_root_walk(rootfd, parent, O_PATH | O_NOFOLLOW, 0, &pathfd);
        if (r < 0)
                return r;
        if (fstat(pathfd, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode))
                return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
        fd = openat(pathfd, ".", O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0)
                return negative_errno();
        r = fs_check_trusted(&st);
        if (r < 0)
                return r;
        *ret_dirfd = TAKE_FD(fd);
        *ret_name = slash + 1;
        return 0;
}

/* path split at its last component: *ret_parent malloc()ed ("/" or "." when none), the
 * name pointing into *ret_parent's own copy. */
static int split_last(const char *path, char **ret_parent, char **ret_name) {
        _cleanup_free_ char *p = strdup(path), *name = NULL;
        if (!p)
                return -ENOMEM;
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
                p[--n] = '\0';
        char *slash = strrchr(p, '/');
        const char *base = slash ? slash + 1 : p;
        if (!*base || streq(base, ".") || streq(base, ".."))
                return -EINVAL;
        name = strdup(base);
        if (!name)
                return -ENOMEM;
        if (!slash)
                strcpy(p, ".");
        else if (slash == p)
                p[1] = '\0';
        else
                *slash = '\0';
        *ret_parent = TAKE_PTR(p);
        *ret_name = TAKE_PTR(name);
        return 0;
}

int fs_open_dir_in_root(const char *root, const char *path, unsigned flags, int *ret_fd) {
        _cleanup_free_ char *parent = NULL, *name = NULL;
        _cleanup_close_ int pfd = -1;
        int oflags = O_RDONLY | O_DIRECTORY | O_NOCTTY | ((flags & FS_DIR_NOFOLLOW) ? O_NOFOLLOW : 0);
        struct stat st;
        int r;

        r = fs_open_in_root(root, path, oflags, 0, ret_fd);
        if (r != -ENOENT || !(flags & FS_DIR_CREATE))
                return r;
        if (!fs_root_is_set(root)) {
                /* on this system, as ever: mkdir(2) of the path, parents not made */
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                return fs_open_in_root(root, path, oflags, 0, ret_fd);
        }
        r = split_last(path, &parent, &name);
        if (r < 0)
                return r;
        r = fs_open_in_root(root, parent, O_PATH | O_DIRECTORY, 0, &pfd);
        if (r < 0)
                return r;
        /* mkdir(2) in the parent that was resolved inside the root, named through its descriptor
         * (the path the other calls on this system see); mkdirat(2) where /proc is missing */
        _cleanup_free_ char *via = NULL;
        if (asprintf(&via, "/proc/self/fd/%d/%s", pfd, name) < 0)
                return -ENOMEM;
        if (mkdir(via, 0755) < 0 && errno != EEXIST) {
                r = negative_errno();
                if (r != -ENOENT || access("/proc/self/fd", F_OK) == 0)
                        return r;
                if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
        }
        /* the name as it stands in the (resolved) parent, never through a link */
        int fd = openat(pfd, name, oflags | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                        return -ELOOP;
                return r;
        }
        *ret_fd = fd;
        return 0;
}
