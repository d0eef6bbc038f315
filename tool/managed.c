/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files rdmalimits manages: the lock of their directory (with a deadline, naming its
 * holder), reading one it is to take over, and replacing or removing one (atomically, synced).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident.h"
#include "size.h"
#include "procfs.h"
#include "tool.h"

/* The pid's comm as it is (a user names his own processes: log_error() escapes it), or "?"
 * when it is gone. */
static void holder_comm(pid_t pid, char *buf, size_t size) {
        _cleanup_free_ char *comm = NULL;
        snprintf(buf, size, "%s", proc_comm(pid, &comm) >= 0 ? comm : "?");
}

/* Where the locks are: FS_LOCK_DIR for root; a user editing his own --root tree has his
 * runtime directory, else a directory of his in /tmp. */
static char *lock_dir(void) {
        char *s = NULL;
        if (geteuid() == 0)
                return strdup(FS_LOCK_DIR);
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        int r = xdg && xdg[0] == '/' ? asprintf(&s, "%s/rdmalimits-locks", xdg)
                                     : asprintf(&s, "/tmp/rdmalimits-locks-%u", (unsigned)geteuid());
        return r < 0 ? NULL : s;
}

int ctx_dir_error(const struct ctx *c, const char *display, int r) {
        if (r == -ELOOP && fs_root_is_set(c->root))
                log_error("%s: is or passes through a symbolic link that does not resolve inside %s; "
                          "refusing to follow it out of the tree", display, c->root);
        else
                log_error("%s: %s", display, errno_text(r));
        return r;
}

int ctx_dir_trusted(const struct ctx *c, int dirfd, const char *display) {
        struct stat st;
        int r;

        if (fstat(dirfd, &st) < 0) {
                r = negative_errno();
                log_error("%s: %s", display, errno_text(r));
                return r;
        }
        if ((r = fs_check_trusted(&st)) < 0 && !c->force) {
                log_error("%s is %s (uid %u, mode %04o): whoever can write it can change what rdmalimits writes "
                          "there; nothing written (fix its owner and mode, or --force)", display, fs_strerror(r),
                          (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
                return CMD_FINDINGS;
        }
        return 0;
}

int ctx_open_dir_locked(const struct ctx *c, const char *abs, unsigned flags, const char *display, int *ret_dirfd,
                        int *ret_lockfd) {
        int r = fs_open_dir_in_root(c->root, abs, flags, ret_dirfd);
        if (r < 0)
                return ctx_dir_error(c, display, r);
        if ((r = ctx_dir_trusted(c, *ret_dirfd, display))) {
                closep(ret_dirfd);
                return r;
        }
        /* --check reads only: renames are atomic, and it leaves no lock file behind */
        return c->check ? 0 : ctx_lock(*ret_dirfd, display, ret_lockfd);
}

int ctx_lock(int dirfd, const char *dir_display, int *ret_fd) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int ldfd = -1;
        unsigned secs = CTX_LOCK_TIMEOUT_DEFAULT;
        const char *env = getenv("RDMALIMITS_LOCK_TIMEOUT");
        char name[FS_LOCK_NAME_MAX];
        pid_t holder = 0;
        int r;

        if (env && *env && parse_u32(env, &secs) < 0) {
                log_error("RDMALIMITS_LOCK_TIMEOUT='%s': expected a whole number of seconds", env);
                return CMD_USAGE;
        }
        if (secs > 86400)
                secs = 86400;
        if (!(dir = lock_dir()))
                return log_oom();
        r = fs_lock_dir_open(dir, &ldfd);
        if (r < 0) {
                log_error("%s: cannot use it for the lock of %s: %s; nothing written", dir, dir_display,
                          r == -ELOOP ? "a symbolic link" : fs_strerror(r));
                return r;
        }
        r = fs_lock_name(dirfd, name);
        if (r >= 0)
                r = fs_lock_file(ldfd, name, secs * 1000u, ret_fd, &holder);
        if (r == -ETIMEDOUT) {
                char comm[ESCAPE_NAME_MAX];
                if (holder > 0) {
                        holder_comm(holder, comm, sizeof comm);
                        log_error("%s/%s (the lock of %s): still held after %u s by pid %d (%s); "
                                  "another rdmalimits apply or remove? Nothing written",
                                  dir, name, dir_display, secs, (int)holder, comm);
                } else
                        log_error("%s/%s (the lock of %s): still held after %u s (holder not found in /proc/locks); "
                                  "nothing written", dir, name, dir_display, secs);
                return r;
        }
        if (r == FS_ERR_OWNER || r == FS_ERR_LOCKMODE || r == FS_ERR_NOTREG || r == -ELOOP) {
                log_error("%s/%s (the lock of %s): refused: %s (a lock file is a regular file of %s, mode 0600); "
                          "remove it; nothing written", dir, name, dir_display,
                          r == -ELOOP ? "a symbolic link" : fs_strerror(r), geteuid() == 0 ? "root" : "yours");
                return r;
        }
        if (r < 0) {
                log_error("%s/%s (the lock of %s): cannot lock: %s; nothing written", dir, name, dir_display,
                          fs_strerror(r));
                return r;
        }
        return 0;
}

int managed_read(const struct ctx *c, int dirfd, const char *name, const char *display, size_t max, bool trusted,
                 char **ret_text, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        errno = ENOENT;
        if (dirfd >= 0)
                fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT) {
                        *ret_text = strdup("");
                        *ret_len = 0;
                        return *ret_text ? 0 : log_oom();
                }
                r = negative_errno();
                if (r == -ELOOP)
                        log_error("%s is a symbolic link; refusing to write through it", display);
                else
                        log_error("%s: %s", display, errno_text(r));
                return r;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                log_error("%s is not a regular file; refusing to replace it", display);
                return -EBADFD;
        }
        r = trusted ? fs_check_trusted(&st) : 0;
        if (r < 0 && !c->force) {
                log_error("%s is %s: someone else may have changed it; refusing to take its lines over "
                          "(fix its owner and mode, or --force)", display, fs_strerror(r));
                return r;
        }
        r = fs_read_all(fd, max, ret_text, ret_len);
        if (r < 0) {
                log_error("%s: %s", display, fs_strerror(r));
                return r;
        }
        return 1;
}

int managed_write(int dirfd, const char *name, const char *display, const char *text, mode_t mode) {
        int r = text ? fs_write_atomic(dirfd, name, text, strlen(text), mode) : fs_unlink_sync(dirfd, name);
        if (r == FS_ERR_DIRSYNC) {
                log_error("%s: %s, but syncing its directory to disk failed (%s): check the disk", display,
                          text ? "written" : "removed", errno_text(-EIO));
                return r;
        }
        if (r < 0)
                log_error("%s: cannot write: %s; the file is unchanged", display, errno_text(r));
        return r;
}
