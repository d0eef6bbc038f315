/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A package's version from a tree's rpm database, read by this system's rpm(8) on a private
 * copy.  The formats (sqlite from rpm 4.16, Berkeley DB before, ndb on SUSE) are rpm's to
 * read: rpm picks the backend from the files it finds.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"
#include "netlink.h"
#include "rpmdb.h"

#define NOBODY ((uid_t)65534)

static const char *rpm_binary(void) {
        static const char *const paths[] = { "/usr/bin/rpm", "/bin/rpm" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                if (access(paths[i], X_OK) == 0)
                        return paths[i];
        return NULL;
}

/* Does the directory hold a database rpm reads (sqlite, Berkeley DB, ndb)? */
static bool has_database(int dfd) {
        static const char *const files[] = { "rpmdb.sqlite", "Packages", "Packages.db" };
        struct stat st;
        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                if (fstatat(dfd, files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                        return true;
        return false;
}

/* Copy one regular file of dfd into tfd; *budget is what may still be copied. */
static int copy_file(int dfd, int tfd, const char *name, unsigned long long *budget) {
        _cleanup_close_ int in = -1, out = -1;
        struct stat st;
        char buf[65536];

        in = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (in < 0)
                return errno == ELOOP ? 0 : -errno;
        if (fstat(in, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 0;
        if ((unsigned long long)st.st_size > *budget)
                return -EFBIG;
        out = openat(tfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0)
                return -errno;
        for (;;) {
                ssize_t n = read(in, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                if ((unsigned long long)n > *budget)
                        return -EFBIG;    /* it grew while read */
                *budget -= (unsigned long long)n;
                for (ssize_t w = 0; w < n;) {
                        ssize_t k = write(out, buf + w, (size_t)(n - w));
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k < 0)
                                return -errno;
                        w += k;
                }
        }
        if (geteuid() == 0 && fchown(out, NOBODY, NOBODY) < 0)
                return -errno;
        return 0;
}

/* The database's regular files (not sqlite's -shm index, rebuilt from the -wal log). */
static int copy_database(int dfd, int tfd) {
        unsigned long long budget = RPMDB_MAX_BYTES;
        int fd = dup(dfd), r = 0;
        DIR *d;

        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        rewinddir(d);
        for (struct dirent *e; r == 0 && (errno = 0, e = readdir(d));) {
                if (e->d_name[0] == '.' || endswith(e->d_name, "-shm"))
                        continue;
                r = copy_file(dfd, tfd, e->d_name, &budget);
        }
        if (r == 0 && errno)
                r = -errno;
        closedir(d);
        return r;
}

/* Remove the private directory and what rpm left in it. */
static void remove_copy(const char *dir, int tfd) {
        int fd = dup(tfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d && fd >= 0)
                close(fd);
        for (struct dirent *e; d && (e = readdir(d));)
                if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
                        (void)unlinkat(tfd, e->d_name, 0);
        if (d)
                closedir(d);
        (void)rmdir(dir);
}

static void close_from(int lowest) {
#ifdef SYS_close_range
        if (syscall(SYS_close_range, (unsigned)lowest, ~0u, 0u) == 0)
                return;
#endif
        for (int fd = lowest; fd < 4096; fd++)
                (void)close(fd);
}

/* In the child: nobody when root, stdout to the pipe, nothing else open, a clean environment. */
__attribute__((noreturn)) static void exec_rpm(const char *rpm, const char *dir, const char *name, int out) {
        char env_home[PATH_MAX + 8];
        int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

        (void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (geteuid() == 0 &&
            (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0))
                _exit(126);
        (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            dup2(devnull, STDERR_FILENO) < 0)
                _exit(126);
        close_from(3);
        snprintf(env_home, sizeof env_home, "HOME=%s", dir);
        char *const env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", env_home, NULL };
        char *const argv[] = { (char *)rpm, "--dbpath", (char *)dir, "-q", "--qf", "%{VERSION}\\n", (char *)name, NULL };
        execve(rpm, argv, env);
        _exit(127);
}

/* Reap the child by the deadline: its exit status, or after the deadline SIGKILL (rpm could
 * close its stdout and go on) and -ETIMEDOUT. */
static int reap_by(pid_t pid, uint64_t deadline, int *ret_status) {
        int st = 0;
        for (;;) {
                pid_t k = waitpid(pid, &st, WNOHANG);
                if (k == pid) {
                        *ret_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
                        return 0;
                }
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (nl_now_ms() >= deadline) {
                        (void)kill(pid, SIGKILL);
                        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                                ;
                        return -ETIMEDOUT;
                }
                (void)poll(NULL, 0, 10);
        }
}

/* rpm's answer: at most size - 1 bytes of its stdout within the deadline; its exit status. */
static int run_rpm(const char *rpm, const char *dir, const char *name, unsigned timeout_ms, char *out, size_t size,
                   int *ret_status) {
        int p[2], r = 0;
        size_t len = 0;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                close(p[0]);
                close(p[1]);
                return r;
        }
        if (pid == 0)
                exec_rpm(rpm, dir, name, p[1]);
        close(p[1]);
        uint64_t deadline = nl_now_ms() + timeout_ms;
        while (len < size - 1) {   /* more than a version: the caller refuses it */
                r = fd_wait_in(p[0], deadline);
                if (r < 0)
                        break;
                ssize_t n = read(p[0], out + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        close(p[0]);
        out[len] = '\0';
        int k = reap_by(pid, r < 0 ? 0 : deadline, ret_status);
        return r == -ETIME ? -ETIMEDOUT : r < 0 ? r : k;
}

int rpmdb_package_version(const char *root, const char *name, unsigned timeout_ms, char *buf, size_t size) {
        static const char *const dirs[] = RPMDB_DIRS;
        _cleanup_close_ int dfd = -1, tfd = -1;
        char dir[] = "/tmp/rdmalimits-rpmdb.XXXXXX", out[128];
        const char *rpm;
        int r, status = 0;

        for (size_t i = 0; i < ELEMENTSOF(dirs) && dfd < 0; i++)
                if (fs_open_dir_in_root(root, dirs[i], FS_DIR_NOFOLLOW, &dfd) == 0 && !has_database(dfd)) {
                        close(dfd);
                        dfd = -1;
                }
        if (dfd < 0)
                return -ENOENT;
        rpm = rpm_binary();
        if (!rpm)
                return -ENOEXEC;
        if (!mkdtemp(dir))
                return -errno;
        tfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tfd < 0) {
                r = -errno;
                (void)rmdir(dir);
                return r;
        }
        r = geteuid() == 0 && fchown(tfd, NOBODY, NOBODY) < 0 ? -errno : 0;
        if (r == 0)
                r = copy_database(dfd, tfd);
        if (r == 0)
                r = run_rpm(rpm, dir, name, timeout_ms, out, sizeof out, &status);
        remove_copy(dir, tfd);
        if (r < 0)
                return r;
        if (status != 0)
                return -ENOENT;   /* "package pam is not installed", or rpm could not read it */
        size_t n = strcspn(out, "\n");
        if (n == 0 || n >= size || out[n] != '\n' || strspn(out, "0123456789.") != n || out[0] == '.')
                return -EBADMSG;
        memcpy(buf, out, n);
        buf[n] = '\0';
        return 0;
}
