/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paths inside a root (openat2 and the walk that stands in for it) and the lock file. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/random.h>
#include <sys/sysmacros.h>

#include "unit.h"
#include "fsutil.h"
#include "macro.h"
#include "../fault/fault.h"
#include "../fault/fdcheck.h"

static char top[] = "/tmp/test-fsutil-XXXXXX";
static char root[128], host[128];

/* TOP/host/secret ("host"), TOP/root/etc/{file ("tree"), abs -> /etc/file, out -> TOP/host,
 * up -> ../../../../host/secret, dotdot -> ../../..}, TOP/root/host/secret ("in-tree") */
static int setup(void **state) {
        static const struct { const char *path, *target; } links[] = {
                { "etc/abs", "/etc/file" },
                { "etc/out", host },
                { "etc/up", "../../../../../../../../host/secret" },
                { "etc/dotdot", "../../../.." },
        };
        char p[PATH_MAX];
        (void)state;
        assert_int_equal(unit_tree(top, (const struct unit_file[]){
                                 { "host/secret", "host" },
                                 { "root/etc/file", "tree" },
                                 { "root/host/secret", "in-tree" },
                                 {},
                         }),
                         0);
        snprintf(root, sizeof root, "%s/root", top);
        snprintf(host, sizeof host, "%s/host", top);
        for (size_t i = 0; i < ELEMENTSOF(links); i++)
                assert_int_equal(symlink(links[i].target, unit_path(p, root, links[i].path)), 0);
        return 0;
}

/* read rootfd/path with fn; "" when it fails (r set) */
static const char *read_with(int (*fn)(int, const char *, int, mode_t, int *), const char *path, int *ret_r,
                             char *buf, size_t size) {
        _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int fd = -12345;
        assert_true(rootfd >= 0);
        *ret_r = fn(rootfd, path, O_RDONLY, 0, &fd);
        buf[0] = '\0';
        if (*ret_r < 0) {
                assert_int_equal(fd, -12345); /* untouched on failure */
                return buf;
        }
        ssize_t n = read(fd, buf, size - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

/* What a read of path gives: its text, or with no text the error. */
struct read_case {
        const char *path, *text;
        int r;
};

static void check_reads(int (*fn)(int, const char *, int, mode_t, int *), const struct read_case *cases, size_t n) {
        char buf[64];
        int r;
        for (size_t i = 0; i < n; i++) {
                read_with(fn, cases[i].path, &r, buf, sizeof buf);
                if (cases[i].text)
                        assert_string_equal(buf, cases[i].text);
                else
                        assert_int_equal(r, cases[i].r);
        }
}

static void test_in_root_openat2(void **state) {
        static const struct read_case cases[] = {
                { "/etc/file", "tree" },
                { "etc/file", "tree" },
                /* an absolute link resolves inside the tree */
                { "/etc/abs", "tree" },
                /* a link to a host directory, and .. above the root, stay in the tree */
                { "/etc/up", "in-tree" },
                { "/../../../host/secret", "in-tree" },
                { "/etc/dotdot/host/secret", "in-tree" },
        };
        char buf[64];
        int r;
        (void)state;
        check_reads(fs_openat_in_root, cases, ELEMENTSOF(cases));
        read_with(fs_openat_in_root, "/etc/out/secret", &r, buf, sizeof buf);
        assert_true(r < 0 || strcmp(buf, "host") != 0);
}

static void test_in_root_walk(void **state) {
        static const struct read_case cases[] = {
                { "/etc/file", "tree" },
                { "//etc/./file", "tree" },
                { "/../../host/secret", "in-tree" },
                { "/etc/../etc/file", "tree" },
                /* every link is refused, the last component's and a directory's */
                { "/etc/abs", .r = -ELOOP },
                { "/etc/up", .r = -ELOOP },
                { "/etc/out/secret", .r = -ELOOP },
                { "/etc/dotdot/host/secret", .r = -ELOOP },
                { "/etc/file/x", .r = -ENOTDIR },
                { "/etc/missing", .r = -ENOENT },
        };
        (void)state;
        check_reads(fs_openat_in_root_walk, cases, ELEMENTSOF(cases));
        /* O_PATH|O_NOFOLLOW opens the link itself (for readlink) */
        _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int fd = -1;
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/abs", O_PATH | O_NOFOLLOW, 0, &fd), 0);
        close(fd);
        /* creating through a link is refused */
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/out/new", O_WRONLY | O_CREAT, 0600, &fd), -ELOOP);
        char p[4200];
        snprintf(p, sizeof p, "%s/new", host);
        assert_int_equal(access(p, F_OK), -1);
}

static void test_in_root_paths(void **state) {
        char buf[64], p[4200];
        struct stat st;
        DIR *d = NULL;
        int fd = -1;
        (void)state;
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, sizeof buf), (ssize_t)strlen("/etc/file"));
        assert_string_equal(buf, "/etc/file");
        assert_int_equal(fs_readlink_in_root(root, "/etc/file", buf, sizeof buf), -EINVAL);
        assert_int_equal(fs_stat_in_root(root, "/etc/abs", false, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(fs_stat_in_root(root, "/etc/abs", true, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(fs_opendir_in_root(root, "/etc", &d), 0);
        closedir(d);
        /* a directory made inside the tree, never at a link's host target */
        assert_int_equal(fs_open_dir_in_root(root, "/etc/new.d", FS_DIR_CREATE, &fd), 0);
        close(fd);
        snprintf(p, sizeof p, "%s/etc/new.d", root);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/none/x.d", FS_DIR_CREATE, &fd), -ENOENT);
        snprintf(p, sizeof p, "%s/etc/hostlink", root);
        assert_int_equal(symlink(host, p), 0);
        int r = fs_open_dir_in_root(root, "/etc/hostlink", FS_DIR_CREATE, &fd);
        assert_int_equal(r, -ELOOP);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/hostlink", FS_DIR_NOFOLLOW, &fd) < 0, true);
        /* no root: the path as open(2) takes it */
        snprintf(p, sizeof p, "%s/etc/file", root);
        assert_int_equal(fs_open_in_root(NULL, p, O_RDONLY, 0, &fd), 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
        assert_int_equal(fs_open_in_root("/", p, O_RDONLY, 0, &fd), 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
}

static void test_lock_file(void **state) {
        _cleanup_close_ int dfd = -1, a = -1, b = -12345;
        char p[4200];
        pid_t holder = -1;
        (void)state;
        dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        assert_int_equal(fs_lock_file(dfd, "t.lock", 0, &a, &holder), 0);
        /* another open file description: flock conflicts, even in this process */
        assert_int_equal(fs_lock_file(dfd, "t.lock", 120, &b, &holder), -ETIMEDOUT);
        assert_int_equal(b, -12345);
        assert_int_equal(holder, getpid());
        close(TAKE_FD(a));
        assert_int_equal(fs_lock_file(dfd, "t.lock", 0, &b, NULL), 0);
        /* refused: a link, a file others may open, a FIFO */
        assert_int_equal(symlinkat("t.lock", dfd, "l.lock"), 0);
        assert_int_equal(fs_lock_file(dfd, "l.lock", 0, &a, NULL), -ELOOP);
        unit_put(root, "m.lock", "");
        snprintf(p, sizeof p, "%s/m.lock", root);
        assert_int_equal(chmod(p, 0644), 0);
        assert_int_equal(fs_lock_file(dfd, "m.lock", 0, &a, NULL), FS_ERR_LOCKMODE);
        assert_int_equal(mkfifoat(dfd, "f.lock", 0600), 0);
        assert_int_equal(fs_lock_file(dfd, "f.lock", 0, &a, NULL), FS_ERR_NOTREG);
        assert_int_equal(fs_lock_file(dfd, "a/b", 0, &a, NULL), -EINVAL);
}


/* ---- failures, descriptors, and the edges of each check ---- */

/* what an exec()ed program inherits: before the call, and at the hooked call inside it */
static char fds_before[256], fds_during[256];
static void hook_fds(void) {
        fd_inherited(fds_during, sizeof fds_during);
}
static void arm_fd_check(const char *call, const char *pattern, unsigned long nth) {
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(the hook was not called)");
        fault_arm(call, pattern, nth, 0);
        fault_hook(hook_fds);
}
static void assert_no_fd_leaked_to_exec(void) {
        fault_disarm();
        assert_string_equal(fds_during, fds_before);
}
static void assert_not_inherited(int fd) {
        char buf[256];
        assert_true(fd >= 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        assert_string_equal(fd_inherited(buf, sizeof buf), fds_before);
}

static void test_open_config(void **state) {
        _cleanup_close_ int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st = { .st_size = 12345 };
        int fd = -12345;
        (void)state;
        /* nofollow: a missing file is ENOENT, only a link is ELOOP */
        assert_int_equal(fs_open_config(dfd, "etc/missing", false, true, &fd, &st), -ENOENT);
        assert_int_equal(fs_open_config(dfd, "etc/abs", false, true, &fd, &st), -ELOOP);
        assert_int_equal(fs_open_config_in_root(root, "/etc/abs", false, true, &fd, &st), -ELOOP);
        assert_int_equal(fs_open_config_in_root(root, "/etc/missing", false, false, &fd, &st), -ENOENT);
        assert_int_equal(fd, -12345);
        assert_int_equal(st.st_size, 12345);
        /* without nofollow the link is read, inside the root */
        assert_int_equal(fs_open_config_in_root(root, "/etc/abs", false, false, &fd, &st), 0);
        assert_true(S_ISREG(st.st_mode) && st.st_size == 4);
        close(fd);
        fd = -12345;
        assert_int_equal(fs_open_config_in_root(root, "/etc/file", false, false, &fd, &st), 0);
        char buf[8] = "";
        assert_int_equal(read(fd, buf, sizeof buf - 1), 4);
        assert_string_equal(buf, "tree");
        close(fd);
}

/* a file of n bytes 'a', open for reading */
static int file_of(size_t n) {
        char p[PATH_MAX];
        unit_path(p, top, "sized");
        int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(write(fd, "a", 1), 1);
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        return fd;
}

static void test_read_all(void **state) {
        char *s = (char *)"marker";
        size_t len = 777;
        int fd;
        (void)state;
        /* exactly max bytes is fine, one more is too big */
        fd = file_of(10);
        assert_int_equal(fs_read_all(fd, 10, &s, &len), 0);
        assert_int_equal(len, 10);
        assert_string_equal(s, "aaaaaaaaaa");
        free(s);
        close(fd);
        s = (char *)"marker";
        fd = file_of(11);
        assert_int_equal(fs_read_all(fd, 10, &s, &len), -EFBIG);
        assert_string_equal(s, "marker");
        close(fd);
        fd = file_of(20000);
        assert_int_equal(fs_read_all(fd, 20000, &s, &len), 0);
        assert_int_equal(len, 20000);
        free(s);
        close(fd);
        /* a max where max + 2 wraps: refused, never a buffer of 0 or 1 byte read into */
        s = (char *)"marker";
        fd = file_of(3);
        assert_int_equal(fs_read_all(fd, SIZE_MAX, &s, &len), -EFBIG);
        assert_int_equal(fs_read_all(fd, SIZE_MAX - 1, &s, &len), -EFBIG);
        assert_string_equal(s, "marker");
        /* a failing read is the error, an interrupted one is read again */
        fault_arm("read", "sized", 1, EIO);
        assert_int_equal(fs_read_all(fd, 10, &s, &len), -EIO);
        assert_int_equal(fault_injected(), 1);
        assert_string_equal(s, "marker");
        fault_arm("read", "sized", 1, EINTR);
        assert_int_equal(fs_read_all(fd, 10, &s, &len), 0);
        fault_disarm();
        assert_string_equal(s, "aaa");
        free(s);
        close(fd);
}

/* the name fs_write_atomic() falls back to at attempt k when getrandom() fails */
static void fallback_tmp(char *buf, size_t size, const char *name, int k) {
        uint64_t rnd = (uint64_t)getpid() * 2654435761u + (uint64_t)k;
        snprintf(buf, size, ".%s.%012llx", name, (unsigned long long)(rnd & 0xffffffffffffULL));
}

/* top/name, made when missing, open as a directory; its path in p */
static int open_work_dir(char p[static PATH_MAX], const char *name) {
        unit_mkdir_p(top, name);
        int fd = open(unit_path(p, top, name), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        return fd;
}

static void assert_file(int dfd, const char *name, const char *text) {
        char buf[64] = "";
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        assert_true(n >= 0);
        buf[n] = '\0';
        assert_string_equal(buf, text);
}

/* fs_getline(): lines with their newline, a NUL kept, the last line without one, 0 at the end;
 * past the budget -EFBIG, whatever the line (one endless line of NULs too) */
static void test_getline(void **state) {
        static const char text[] = "one\ntw\0o\nlast";
        char *line = NULL;
        size_t cap = 0, budget = FS_LINES_MAX;
        (void)state;
        FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
        assert_non_null(f);
        assert_int_equal(fs_getline(&line, &cap, f, &budget), 4);
        assert_string_equal(line, "one\n");
        assert_int_equal(fs_getline(&line, &cap, f, &budget), 5);
        assert_memory_equal(line, "tw\0o\n", 5);
        assert_int_equal(fs_getline(&line, &cap, f, &budget), 4);
        assert_string_equal(line, "last");
        assert_int_equal(fs_getline(&line, &cap, f, &budget), 0);
        assert_int_equal(budget, FS_LINES_MAX - (sizeof text - 1));
        fclose(f);

        f = fopen("/dev/zero", "re");
        assert_non_null(f);
        budget = 100000;
        assert_int_equal(fs_getline(&line, &cap, f, &budget), -EFBIG);
        assert_int_equal(budget, 0);
        assert_true(cap <= 2 * 100000 + 256);
        fclose(f);
        free(line);
}

static void test_write_atomic(void **state) {
        char p[PATH_MAX], tmp[256];
        _cleanup_close_ int dfd = open_work_dir(p, "w");
        (void)state;
        /* one byte, and nothing */
        assert_int_equal(fs_write_atomic(dfd, "one", "x", 1, 0640), 0);
        assert_file(dfd, "one", "x");
        struct stat st;
        assert_int_equal(fstatat(dfd, "one", &st, 0), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        assert_int_equal(fs_write_atomic(dfd, "empty", "", 0, 0600), 0);
        assert_file(dfd, "empty", "");
        /* the temporary name is random: files at the names a pid would give are no obstacle */
        for (int k = 0; k < 20; k++) {
                fallback_tmp(tmp, sizeof tmp, "rnd", k);
                unit_put(p, tmp, "planted");
        }
        assert_int_equal(fs_write_atomic(dfd, "rnd", "new", 3, 0600), 0);
        assert_file(dfd, "rnd", "new");
        fallback_tmp(tmp, sizeof tmp, "rnd", 0);
        assert_file(dfd, tmp, "planted");
        /* without getrandom(): the fallback names, the next one when a name is taken, and a
         * file already there is never written to (O_EXCL) */
        fallback_tmp(tmp, sizeof tmp, "pid", 0);
        unit_put(p, tmp, "planted");
        fault_arm_from("getrandom", NULL, 1, ENOSYS);
        assert_int_equal(fs_write_atomic(dfd, "pid", "new", 3, 0600), 0);
        assert_true(fault_injected() >= 2);
        fault_disarm();
        assert_file(dfd, "pid", "new");
        assert_file(dfd, tmp, "planted");
        /* the temporary file is not inherited by a program started meanwhile */
        arm_fd_check("write", ".fd.*", 1);
        assert_int_equal(fs_write_atomic(dfd, "fd", "abc", 3, 0600), 0);
        assert_no_fd_leaked_to_exec();
        assert_file(dfd, "fd", "abc");
        /* a failing step leaves the old file and no temporary one */
        static const struct {
                const char *call;
                int err;
        } steps[] = { { "open", EACCES }, { "write", ENOSPC }, { "fchmod", EPERM }, { "fsync", EIO },
                      { "close", EIO }, { "rename", EROFS } };
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                fault_arm(steps[i].call, ".one.*", 1, steps[i].err);
                assert_int_equal(fs_write_atomic(dfd, "one", "yy", 2, 0600), -steps[i].err);
                assert_int_equal(fault_injected(), 1);
                fault_disarm();
                assert_file(dfd, "one", "x");
        }
        DIR *d = fdopendir(dup(dfd));
        struct dirent *de;
        assert_non_null(d);
        while ((de = readdir(d)))
                assert_true(strncmp(de->d_name, ".one.", 5) != 0);
        closedir(d);
}

static void test_lock_dir(void **state) {
        char p[PATH_MAX], q[PATH_MAX];
        int fd = -12345;
        struct stat st;
        (void)state;
        /* made with its parent, mode 0700 */
        unit_path(p, top, "run/locks");
        assert_int_equal(fs_lock_dir_open(p, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
        assert_int_equal(stat(p, &st), 0);
        /* with descriptor 0 free: the parent's, or (freed after the parent is open) the lock
         * directory's */
        fd = -12345;
        fd0_free();
        int r = fs_lock_dir_open(p, &fd);
        fd0_restore();
        assert_int_equal(r, 0);
        assert_true(fd > 0);
        close(fd);
        fd = -12345;
        fault_arm("mkdirat", "locks", 1, 0);
        fault_hook(fd0_free);
        r = fs_lock_dir_open(p, &fd);
        int moved = r == 0 && fd == 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
        fd0_restore();
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(r, 0);
        assert_int_equal(fd, 0);
        assert_int_equal(fstat(moved, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        close(moved);
        assert_true(fcntl(0, F_GETFD) >= 0);
        /* no last component */
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(q, top, "run/.."), &fd), -EINVAL);
        assert_int_equal(fs_lock_dir_open(unit_path(q, top, "run/."), &fd), -EINVAL);
        assert_int_equal(fs_lock_dir_open("relative/locks", &fd), -EINVAL);
        /* a link, someone else's directory, a writable one */
        unit_mkdir_p(top, "run/real");
        assert_int_equal(symlink("real", unit_path(q, top, "run/link")), 0);
        assert_int_equal(fs_lock_dir_open(q, &fd), -ELOOP);
        unit_mkdir_p(top, "run/theirs");
        assert_int_equal(chown(unit_path(q, top, "run/theirs"), 4242, 4242), 0);
        assert_int_equal(fs_lock_dir_open(q, &fd), geteuid() == 4242 ? 0 : FS_ERR_OWNER);
        unit_mkdir_p(top, "run/open");
        assert_int_equal(chmod(unit_path(q, top, "run/open"), 0777), 0);
        assert_int_equal(fs_lock_dir_open(q, &fd), FS_ERR_MODE);
        assert_int_equal(fd, -12345);
        /* fstat of it fails */
        fault_arm("fstat", "locks", 1, EIO);
        assert_int_equal(fs_lock_dir_open(p, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
}

/* the parent of the lock directory made group-writable by someone else just before */
static char race_dir[PATH_MAX];
static void hook_make_open_dir(void) {
        assert_int_equal(mkdir(race_dir, 0777), 0);
        assert_int_equal(chmod(race_dir, 0777), 0);
}

static void test_lock_dir_parent_race(void **state) {
        char p[PATH_MAX];
        int fd = -12345;
        (void)state;
        unit_path(race_dir, top, "run2");
        fault_arm("mkdirat", "run2", 1, 0);
        fault_hook(hook_make_open_dir);
        int r = fs_lock_dir_open(unit_path(p, top, "run2/locks"), &fd);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(r, FS_ERR_MODE);
        assert_int_equal(fd, -12345);
}

static void test_lock_file_faults(void **state) {
        _cleanup_close_ int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), a = -1;
        int fd = -12345;
        (void)state;
        assert_true(dfd >= 0);
        fault_arm("fstat", "c.lock", 1, EIO);
        assert_int_equal(fs_lock_file(dfd, "c.lock", 0, &fd, NULL), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_arm("clock_gettime", NULL, 1, EINVAL);
        assert_int_equal(fs_lock_file(dfd, "c.lock", 0, &fd, NULL), -EINVAL);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
        /* held: the second clock_gettime() (how long it waited) fails */
        fd_inherited(fds_before, sizeof fds_before);
        assert_int_equal(fs_lock_file(dfd, "c.lock", 0, &a, NULL), 0);
        assert_not_inherited(a);
        fault_arm("clock_gettime", NULL, 2, EINVAL);
        assert_int_equal(fs_lock_file(dfd, "c.lock", 5000, &fd, NULL), -EINVAL);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
}

static void test_in_root_edges(void **state) {
        _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        char buf[64];
        struct stat st = { .st_size = 12345 }, rst;
        int fd = -12345, r;
        (void)state;
        unit_put(root, "a/b/c", "deep");
        /* O_PATH with O_CREAT is refused, whatever resolves the path */
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/new", O_PATH | O_CREAT, 0600, &fd), -EINVAL);
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/new", O_PATH | O_CREAT, 0600, &fd), -EINVAL);
        assert_int_equal(fs_open_in_root(NULL, "/nonexistent/new", O_PATH | O_CREAT, 0600, &fd), -EINVAL);
        assert_int_equal(fd, -12345);
        /* a mode without O_CREAT is ignored, not refused */
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/file", O_RDONLY, 0644, &fd), 0);
        close(fd);
        /* "/" is the root itself */
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/", O_RDONLY | O_DIRECTORY, 0, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(fstat(rootfd, &rst), 0);
        assert_true(st.st_ino == rst.st_ino && st.st_dev == rst.st_dev);
        close(fd);
        /* O_PATH without O_NOFOLLOW: a link at the end is refused, a file is not */
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/abs", O_PATH, 0, &fd), -ELOOP);
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/file", O_PATH, 0, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        close(fd);
        /* the walk's descriptors are never inherited, not even while it walks (the root's
         * and the first directory's, then the first and the second directory's) */
        arm_fd_check("fstat", "a", 1);
        r = fs_openat_in_root_walk(rootfd, "/a/b/c", O_RDONLY, 0, &fd);
        assert_no_fd_leaked_to_exec();
        assert_int_equal(r, 0);
        close(fd);
        arm_fd_check("fstat", "b", 1);
        r = fs_openat_in_root_walk(rootfd, "/a/b/c", O_RDONLY, 0, &fd);
        assert_no_fd_leaked_to_exec();
        assert_int_equal(r, 0);
        assert_not_inherited(fd);
        close(fd);
        assert_int_equal(fs_openat_in_root(rootfd, "/a/b/c", O_RDONLY, 0, &fd), 0);
        assert_not_inherited(fd);
        close(fd);
        /* descriptor 0 free: the walk's descriptors and the root's may get it */
        fd0_free();
        int r1 = fs_openat_in_root_walk(rootfd, "/a/b/c", O_RDONLY, 0, &fd);
        read_with(fs_openat_in_root_walk, "/a/b/c", &r, buf, sizeof buf);
        fd0_restore();
        assert_int_equal(r1, 0);
        close(fd);
        assert_int_equal(r, 0);
        assert_string_equal(buf, "deep");
        fd0_free();
        r1 = fs_open_in_root(root, "/a/b/c", O_RDONLY, 0, &fd);
        fd0_restore();
        assert_int_equal(r1, 0);
        assert_int_equal(read(fd, buf, 4), 4);
        close(fd);
        /* openat2 itself given descriptor 0 */
        fd = -12345;
        fd0_free();
        r1 = fs_openat_in_root(rootfd, "/a/b/c", O_RDONLY, 0, &fd);
        int got = fd;
        char b0[8] = "";
        ssize_t n0 = r1 == 0 ? read(fd, b0, 4) : -1;
        fd0_restore();
        if (r1 == 0 && got != 0)
                close(got);
        assert_int_equal(r1, 0);
        assert_int_equal(n0, 4);
        assert_memory_equal(b0, "deep", 4);
        /* the walk's calls failing */
        fd = -12345;
        fault_arm("open", ".", 1, EIO);
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/a/b/c", O_RDONLY, 0, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_arm("fstat", "a", 1, EIO);
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/a/b/c", O_RDONLY, 0, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
        /* openat2 asks to try again (a rename raced): up to 8 times, then the walk, which
         * refuses the link openat2 follows inside the root */
        fault_arm_first("openat2", "abs", 7, EAGAIN);
        r = fs_openat_in_root(rootfd, "/etc/abs", O_RDONLY, 0, &fd);
        assert_int_equal(fault_injected(), 7);
        fault_disarm();
        assert_int_equal(r, 0);
        assert_int_equal(read(fd, buf, 4), 4);
        close(fd);
        fd = -12345;
        fault_arm_first("openat2", "abs", 8, EAGAIN);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/abs", O_RDONLY, 0, &fd), -ELOOP);
        assert_int_equal(fault_injected(), 8);
        fault_arm_from("openat2", NULL, 1, ENOSYS);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/abs", O_RDONLY, 0, &fd), -ELOOP);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/file", O_RDONLY, 0, &fd), 0);
        close(fd);
        fd = -12345;
        fault_arm("openat2", "abs", 1, EIO);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/abs", O_RDONLY, 0, &fd), -EIO);
        fault_disarm();
        assert_int_equal(fd, -12345);
        /* stat of a missing file */
        st.st_size = 12345;
        assert_int_equal(fs_stat_in_root(root, "/etc/missing", false, &st), -ENOENT);
        assert_int_equal(st.st_size, 12345);
        /* readlink into a buffer of 2: the first byte */
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 2), 1);
        assert_string_equal(buf, "/");
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 1), -EINVAL);
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 0), -EINVAL);
}

static void test_fopen_in_root(void **state) {
        char p[PATH_MAX];
        FILE *f = NULL;
        (void)state;
        assert_int_equal(mkfifo(unit_path(p, root, "etc/fifo"), 0600), 0);
        /* a FIFO is refused without blocking in open(), a directory is EISDIR */
        assert_int_equal(fs_fopen_in_root(root, "/etc/fifo", &f), -EINVAL);
        assert_int_equal(fs_fopen_in_root(root, "/etc", &f), -EISDIR);
        assert_null(f);
        /* a file is read blocking, as stdio expects */
        assert_int_equal(fs_fopen_in_root(root, "/etc/file", &f), 0);
        assert_int_equal(fcntl(fileno(f), F_GETFL) & O_NONBLOCK, 0);
        assert_true(fcntl(fileno(f), F_GETFD) & FD_CLOEXEC);
        fclose(f);
        f = NULL;
        fault_arm("fdopen", NULL, 1, ENOMEM);
        assert_int_equal(fs_fopen_in_root(root, "/etc/file", &f), -ENOMEM);
        fault_disarm();
        assert_null(f);
}

/* someone makes the directory (or a link to one) between our open and our mkdir */
static char race_path[PATH_MAX], race_link[PATH_MAX];
static void hook_mkdir_race(void) {
        if (race_link[0])
                assert_int_equal(symlink(race_link, race_path), 0);
        else
                assert_int_equal(mkdir(race_path, 0755), 0);
}

static void test_open_dir_in_root(void **state) {
        char p[PATH_MAX], q[PATH_MAX];
        struct stat st;
        int fd = -12345;
        (void)state;
        /* without FS_DIR_CREATE nothing is made */
        assert_int_equal(fs_open_dir_in_root(root, "/etc/nocreate.d", 0, &fd), -ENOENT);
        assert_int_equal(stat(unit_path(p, root, "etc/nocreate.d"), &st), -1);
        assert_int_equal(fs_open_dir_in_root(NULL, p, 0, &fd), -ENOENT);
        assert_int_equal(stat(p, &st), -1);
        /* no last component to make */
        assert_int_equal(fs_open_dir_in_root(root, "/missing/..", FS_DIR_CREATE, &fd), -EINVAL);
        assert_int_equal(fd, -12345);
        /* on this system (no root): made, once, then opened */
        assert_int_equal(fs_open_dir_in_root(NULL, unit_path(p, top, "made.d"), FS_DIR_CREATE, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        close(fd);
        assert_int_equal(fs_open_dir_in_root(NULL, p, FS_DIR_CREATE, &fd), 0);
        close(fd);
        assert_int_equal(fs_open_dir_in_root(NULL, unit_path(p, top, "none/x.d"), FS_DIR_CREATE, &fd), -ENOENT);
        /* mkdir(2) failing is the error */
        fault_arm("mkdir", "eio.d", 1, EIO);
        assert_int_equal(fs_open_dir_in_root(NULL, unit_path(p, top, "eio.d"), FS_DIR_CREATE, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        /* ... made by someone else meanwhile: opened; a link to a directory there is followed */
        unit_path(race_path, top, "raced.d");
        race_link[0] = '\0';
        fault_arm("mkdir", "raced.d", 1, 0);
        fault_hook(hook_mkdir_race);
        fd = -12345;
        assert_int_equal(fs_open_dir_in_root(NULL, race_path, FS_DIR_CREATE, &fd), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        close(fd);
        unit_path(race_path, top, "rlink.d");
        unit_path(race_link, top, "made.d");
        fault_arm("mkdir", "rlink.d", 1, 0);
        fault_hook(hook_mkdir_race);
        fd = -12345;
        assert_int_equal(fs_open_dir_in_root(NULL, race_path, FS_DIR_CREATE, &fd), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        close(fd);
        /* in the root: mkdir failing is the error, ENOENT too while /proc is there */
        fd = -12345;
        fault_arm("mkdir", "x.d", 1, EIO);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/x.d", FS_DIR_CREATE, &fd), -EIO);
        fault_arm("mkdir", "x.d", 1, ENOENT);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/x.d", FS_DIR_CREATE, &fd), -ENOENT);
        fault_disarm();
        assert_int_equal(stat(unit_path(q, root, "etc/x.d"), &st), -1);
        /* resolving the parent fails */
        fault_arm("openat2", "none", 1, EIO);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/none/x.d", FS_DIR_CREATE, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        /* opening what was made fails: its error, not ELOOP */
        fault_arm("open", "y.d", 1, EIO);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/y.d", FS_DIR_CREATE, &fd), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
}

/* every allocation of these calls failing in turn: -ENOMEM (or NULL), outputs untouched */
static void test_alloc_failures(void **state) {
        char p[PATH_MAX];
        (void)state;
        unit_path(p, top, "run/locks");
        for (unsigned long n = 1;; n++) {
                int fd = -12345;
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = fs_lock_dir_open(p, &fd);
                unsigned long hit = fault_injected();
                fault_disarm();
                if (!hit) {
                        assert_int_equal(r, 0);
                        close(fd);
                        assert_true(n > 2 || !fault_alloc_supported());
                        break;
                }
                assert_int_equal(r, -ENOMEM);
                assert_int_equal(fd, -12345);
        }
        for (unsigned long n = 1;; n++) {
                int fd = -12345;
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = fs_open_dir_in_root(root, "/etc/alloc.d", FS_DIR_CREATE, &fd);
                unsigned long hit = fault_injected();
                fault_disarm();
                if (!hit) {
                        assert_int_equal(r, 0);
                        close(fd);
                        break;
                }
                /* -ENOMEM, or done all the same (asprintf() keeps its buffer when the
                 * realloc() that shrinks it fails) */
                if (r == 0) {
                        close(fd);
                } else {
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(fd, -12345);
                }
                rmdir(unit_path(p, root, "etc/alloc.d"));
        }
        for (unsigned long n = 1;; n++) {
                _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                int fd = -12345;
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = fs_openat_in_root_walk(rootfd, "/etc/file", O_RDONLY, 0, &fd);
                unsigned long hit = fault_injected();
                fault_disarm();
                if (!hit) {
                        assert_int_equal(r, 0);
                        close(fd);
                        break;
                }
                assert_int_equal(r, -ENOMEM);
                assert_int_equal(fd, -12345);
        }
        char *s;
        if (fault_alloc_supported()) {
                fault_arm("alloc", NULL, 1, ENOMEM);
                s = fs_root_path("/r", "/etc/x");
                fault_disarm();
                assert_null(s);
        }
        s = fs_root_path("/r//", "etc/x");
        assert_string_equal(s, "/r/etc/x");
        free(s);
}

/* Who holds the lock, read from a canned /proc/locks: LINES with %s for the lock file's
 * "MAJ:MIN:INODE", %i for its inode on another device, %n for the inode number alone. */
static pid_t holder_from(const char *lines) {
        _cleanup_close_ int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), a = -1;
        char full[64], ino[32], text[2048], p[PATH_MAX], *o = text;
        struct stat st;
        pid_t holder = -1;
        int fd = -12345;
        assert_int_equal(fs_lock_file(dfd, "h.lock", 0, &a, NULL), 0);
        assert_int_equal(fstat(a, &st), 0);
        snprintf(full, sizeof full, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
        snprintf(ino, sizeof ino, "fe:07:%llu", (unsigned long long)st.st_ino);
        for (const char *s = lines; *s; s++) {
                if (s[0] == '%' && (s[1] == 's' || s[1] == 'i' || s[1] == 'n')) {
                        o += s[1] == 'n' ? sprintf(o, "%llu", (unsigned long long)st.st_ino)
                                         : sprintf(o, "%s", s[1] == 's' ? full : ino);
                        s++;
                } else
                        *o++ = *s;
        }
        *o = '\0';
        unit_write(unit_path(p, top, "canned-locks"), text);
        fault_redirect("/proc/locks", p);
        int r = fs_lock_file(dfd, "h.lock", 0, &fd, &holder);
        fault_redirect(NULL, NULL);
        assert_int_equal(r, -ETIMEDOUT);
        assert_int_equal(fd, -12345);
        return holder;
}

static void test_lock_holder(void **state) {
        (void)state;
        /* the holder, not a waiter; matched by device and inode */
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 1111 08:01:5 0 EOF\n"
                                     "2: FLOCK  ADVISORY  WRITE 2222 %s 0 EOF\n"
                                     "2: -> FLOCK  ADVISORY  WRITE 3333 %s 0 EOF\n"),
                         2222);
        /* an OFD lock (pid -1) on the file is nobody's: its pid is not the line before's */
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 1111 08:01:5 0 EOF\n"
                                     "2: OFDLCK ADVISORY  WRITE -1 %s 0 EOF\n"
                                     "3: FLOCK  ADVISORY  WRITE 2222 %s 0 EOF\n"),
                         2222);
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 0 %s 0 EOF\n"
                                     "2: FLOCK  ADVISORY  WRITE 4294967295 %s 0 EOF\n"
                                     "3: FLOCK  ADVISORY  WRITE 2147483648 %s 0 EOF\n"
                                     "4: FLOCK  ADVISORY  WRITE 2147483647 %s 0 EOF\n"),
                         2147483647);
        /* the device and inode win over an inode alone, wherever it stands */
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 7777 %i 0 EOF\n"
                                     "2: FLOCK  ADVISORY  WRITE 8888 %s 0 EOF\n"),
                         8888);
        /* the inode alone (btrfs, overlayfs): the first such line; none: 0 */
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 6666 %i 0 EOF\n"
                                     "2: FLOCK  ADVISORY  WRITE 5555 08:01:5 0 EOF\n"
                                     "3: FLOCK  ADVISORY  WRITE 4444 %i 0 EOF\n"),
                         6666);
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 5555 08:01:5 0 EOF\n"), 0);
        assert_int_equal(holder_from(""), 0);
        /* an empty line is passed over; an inode without a device is no match */
        assert_int_equal(holder_from("\n1: FLOCK  ADVISORY  WRITE 2222 %s 0 EOF\n"), 2222);
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 2222 :%n 0 EOF\n"), 0);
        /* /proc/locks unreadable: nobody */
        fault_arm("fopen", "locks", 1, EACCES);
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 2222 %s 0 EOF\n"), 0);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
}

static void test_open_parent_trusted(void **state) {
        char p[PATH_MAX], q[PATH_MAX];
        const char *name = "marker";
        int fd = -12345;
        struct stat st, dst;
        (void)state;
        /* no name, not absolute */
        assert_int_equal(fs_open_parent_trusted("relative/x", &fd, &name), -EINVAL);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, "x/"), &fd, &name), -EINVAL);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, "."), &fd, &name), -EINVAL);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, ".."), &fd, &name), -EINVAL);
        /* a parent that is a link, a file, missing, writable by others (/tmp) */
        unit_mkdir_p(top, "pt/real");
        assert_int_equal(symlink("real", unit_path(q, top, "pt/link")), 0);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, "pt/link/out"), &fd, &name), -ELOOP);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, root, "etc/file/out"), &fd, &name), -ENOTDIR);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, "pt/none/out"), &fd, &name), -ENOENT);
        assert_int_equal(fs_open_parent_trusted("/tmp/out", &fd, &name), FS_ERR_MODE);
        assert_int_equal(fd, -12345);
        assert_string_equal(name, "marker");
        /* the calls failing */
        fault_arm("open", "/", 1, EMFILE);
        assert_int_equal(fs_open_parent_trusted(unit_path(p, top, "pt/real/out"), &fd, &name), -EMFILE);
        fault_arm("fstat", "real", 1, EIO);
        assert_int_equal(fs_open_parent_trusted(p, &fd, &name), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_arm("fstat", "real", 2, EIO);
        assert_int_equal(fs_open_parent_trusted(p, &fd, &name), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
        /* a trusted parent: its directory, and the name in path; no descriptor it holds is
         * inherited, not even meanwhile */
        arm_fd_check("fstat", "real", 1);
        assert_int_equal(fs_open_parent_trusted(p, &fd, &name), 0);
        assert_no_fd_leaked_to_exec();
        close(fd);
        fd0_free();
        fd = -12345;
        int r0 = fs_open_parent_trusted(p, &fd, &name);
        fd0_restore();
        assert_int_equal(r0, 0);
        assert_true(fd > 0);
        close(fd);
        /* descriptor 0 free just when the directory itself is opened: it gets 0 */
        fd = -12345;
        fault_arm("open", ".", 2, 0);      /* the walk opens "." first, then the directory */
        fault_hook(fd0_free);
        r0 = fs_open_parent_trusted(p, &fd, &name);
        int moved0 = r0 == 0 && fd == 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
        bool hooked = fault_injected() > 0;
        fault_hook(NULL);
        fault_disarm();
        fd0_restore();
        assert_true(hooked);
        assert_int_equal(r0, 0);
        assert_int_equal(fd, 0);
        assert_true(moved0 > 0);
        close(moved0);
        fd = -12345;
        assert_int_equal(fs_open_parent_trusted(p, &fd, &name), 0);
        assert_ptr_equal(name, p + strlen(p) - 3);
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(stat(unit_path(q, top, "pt/real"), &dst), 0);
        assert_true(st.st_ino == dst.st_ino);
        assert_not_inherited(fd);
        close(fd);
        if (fault_alloc_supported()) {
                fd = -12345;
                fault_arm("alloc", NULL, 1, ENOMEM);
                int r = fs_open_parent_trusted(p, &fd, &name);
                fault_disarm();
                assert_int_equal(r, -ENOMEM);
                assert_int_equal(fd, -12345);
        }
}

static mode_t current_umask(void) {
        mode_t m = umask(0);
        umask(m);
        return m;
}

/* What the other tests leave out: a directory or a FIFO where a configuration file should be
 * (never blocking), the root "/" and roots with trailing slashes, names fs_write_atomic()
 * refuses, its bound of 17 fallback names, existence, /dev/null, readlink of nothing. */
static void test_fsutil_edges(void **state) {
        char p[PATH_MAX], tmp[256], buf[64];
        int fd = -12345;
        struct stat st;
        (void)state;

        assert_int_equal(fs_open_config(AT_FDCWD, root, false, false, &fd, &st), -EISDIR);
        assert_int_equal(fs_open_config_in_root(root, "/etc", false, false, &fd, &st), -EISDIR);
        assert_int_equal(mkfifo(unit_path(p, root, "etc/cfgfifo"), 0600), 0);
        /* no writer: an open without O_NONBLOCK would wait for one forever */
        assert_int_equal(fs_open_config(AT_FDCWD, p, false, false, &fd, &st), FS_ERR_NOTREG);
        assert_int_equal(fs_open_config_in_root(root, "/etc/cfgfifo", false, false, &fd, &st), FS_ERR_NOTREG);
        assert_int_equal(fs_open_config_in_root(NULL, p, false, false, &fd, &st), FS_ERR_NOTREG);
        assert_int_equal(fd, -12345);
        assert_int_equal(unlink(p), 0);

        static const struct { const char *root, *path, *want; } paths[] = {
                { NULL, "/etc/x", "/etc/x" }, { "", "/etc/x", "/etc/x" }, { "/", "/etc/x", "/etc/x" },
                { "/", "etc/x", "etc/x" }, { "a/", "etc/x", "a/etc/x" }, { "a//", "/etc/x", "a/etc/x" },
                { "/r", "etc/x", "/r/etc/x" }, { "//", "/etc/x", "//etc/x" },
        };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                char *s = fs_root_path(paths[i].root, paths[i].path);
                assert_non_null(s);
                assert_string_equal(s, paths[i].want);
                free(s);
        }

        _cleanup_close_ int dfd = open_work_dir(p, "w2");
        assert_int_equal(fs_write_atomic(dfd, "a/b", "x", 1, 0600), -EINVAL);
        char name[202];
        memset(name, 'n', 201);
        name[201] = '\0';
        assert_int_equal(fs_write_atomic(dfd, name, "x", 1, 0600), -EINVAL);
        assert_int_equal(faccessat(dfd, name, F_OK, 0), -1);
        name[200] = '\0';
        assert_int_equal(fs_write_atomic(dfd, name, "x", 1, 0600), 0);
        assert_file(dfd, name, "x");
        /* without getrandom(): 17 names tried (attempts 0 to 16), then EEXIST */
        for (int k = 0; k < 17; k++) {
                fallback_tmp(tmp, sizeof tmp, "bound", k);
                unit_put(p, tmp, "planted");
        }
        fault_arm_from("getrandom", NULL, 1, ENOSYS);
        assert_int_equal(fs_write_atomic(dfd, "bound", "new", 3, 0600), 0);
        fault_disarm();
        assert_file(dfd, "bound", "new");
        fallback_tmp(tmp, sizeof tmp, "bound", 17);
        unit_put(p, tmp, "planted");
        fault_arm_from("getrandom", NULL, 1, ENOSYS);
        assert_int_equal(fs_write_atomic(dfd, "bound", "newer", 5, 0600), -EEXIST);
        fault_disarm();
        assert_file(dfd, "bound", "new");

        /* existence: a missing path is not there (0), not an error */
        assert_int_equal(fs_exists_in_root(root, "/etc/missing", false), 0);
        assert_int_equal(fs_exists_in_root(root, "/etc/missing", true), 0);
        assert_int_equal(fs_exists_in_root(root, "/etc/file", false), 1);
        assert_int_equal(fs_exists_in_root(root, "/etc", true), 1);
        assert_int_equal(fs_exists_in_root(root, "/etc", false), 0);

        /* /dev/null is the one device fs_fopen_in_root() reads (a masked unit); not others */
        FILE *f = NULL;
        assert_int_equal(fs_fopen_in_root(NULL, "/dev/null", &f), 0);
        assert_non_null(f);
        fclose(f);
        f = NULL;
        assert_int_equal(fs_fopen_in_root(NULL, "/dev/zero", &f), -EINVAL);
        assert_null(f);

        /* readlink of a missing path: its error; of a file: EINVAL; the size it needs */
        assert_int_equal(fs_readlink_in_root(root, "/etc/missing", buf, sizeof buf), -ENOENT);
        assert_int_equal(fs_readlink_in_root(root, "/etc/file", buf, sizeof buf), -EINVAL);
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 1), -EINVAL);
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 0), -EINVAL);
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, sizeof buf), 9);
        assert_string_equal(buf, "/etc/file");
        assert_int_equal(fs_readlink_in_root(root, "/etc/abs", buf, 2), 1);
        assert_string_equal(buf, "/");

        /* a root that does not exist, or is a file: its error */
        assert_int_equal(fs_open_in_root(unit_path(p, top, "no-root"), "/etc/file", O_RDONLY, 0, &fd), -ENOENT);
        assert_int_equal(fs_open_in_root(p, "/etc/passwd", O_RDONLY, 0, &fd), -ENOENT);   /* never the host's */
        assert_int_equal(fs_open_in_root(unit_path(p, root, "etc/file"), "/x", O_RDONLY, 0, &fd), -ENOTDIR);
        assert_int_equal(fd, -12345);

        /* a lock directory whose parent and grandparent are missing, or whose parent is a file */
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "nx1/nx2/lock"), &fd), -ENOENT);
        assert_int_equal(fs_lock_dir_open(unit_path(p, root, "etc/file/lock"), &fd), -ENOTDIR);
        assert_int_equal(fd, -12345);
        assert_int_equal(access(unit_path(p, top, "nx1"), F_OK), -1);

        /* a directory that is missing, or a file */
        DIR *dir = (DIR *)0x1;
        assert_int_equal(fs_opendir_in_root(root, "/etc/missing", &dir), -ENOENT);
        assert_int_equal(fs_opendir_in_root(root, "/etc/file", &dir), -ENOTDIR);
        fault_arm("fdopendir", NULL, 1, ENOMEM);
        assert_int_equal(fs_opendir_in_root(root, "/etc", &dir), -ENOMEM);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_ptr_equal(dir, (DIR *)0x1);
        assert_int_equal(fs_opendir_in_root(root, "/etc", &dir), 0);
        closedir(dir);

        /* a file created inside the root has the mode asked for, with openat2 and without */
        _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(rootfd >= 0);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/made", O_WRONLY | O_CREAT | O_EXCL, 0640, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640 & ~current_umask());
        close(fd);
        fd = -12345;
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/etc/made2", O_WRONLY | O_CREAT | O_EXCL, 0604, &fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0604 & ~current_umask());
        close(fd);

        /* a trailing slash: the directory is made, and a lock directory opened */
        assert_int_equal(fs_open_dir_in_root(root, "/etc/slashed/", FS_DIR_CREATE, &fd), 0);
        close(fd);
        assert_int_equal(fs_exists_in_root(root, "/etc/slashed", true), 1);
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "lockslash//"), &fd), 0);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(access(unit_path(p, top, "lockslash"), F_OK), 0);

        /* no descriptor they hold is inherited by a program started meanwhile, nor the one
         * they return: the lock directory made with its parent, a directory made in a root */
        arm_fd_check("mkdirat", NULL, 2);
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "lockparent/locks"), &fd), 0);
        assert_no_fd_leaked_to_exec();
        assert_not_inherited(fd);
        close(fd);
        arm_fd_check("mkdirat", NULL, 1);
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "lockparent/locks2"), &fd), 0);
        assert_no_fd_leaked_to_exec();
        assert_not_inherited(fd);
        close(fd);
        arm_fd_check("fstat", NULL, 1);
        assert_int_equal(fs_open_dir_in_root(root, "/etc/cloexec.d", FS_DIR_CREATE, &fd), 0);
        fault_disarm();
        assert_not_inherited(fd);
        close(fd);

        /* a FIFO with a writer and nothing in it: nothing to read now, not an error; then
         * what was written */
        {
                char fifo[PATH_MAX];
                unit_path(fifo, top, "rdfifo");
                assert_int_equal(mkfifo(fifo, 0600), 0);
                int rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC), wfd = open(fifo, O_WRONLY | O_CLOEXEC);
                assert_true(rfd >= 0 && wfd >= 0);
                char *text = NULL;
                size_t len = 99;
                assert_int_equal(fs_read_all(rfd, 100, &text, &len), 0);
                assert_int_equal(len, 0);
                assert_string_equal(text, "");
                free(text);
                assert_int_equal(write(wfd, "ab", 2), 2);
                assert_int_equal(fs_read_all(rfd, 100, &text, &len), 0);
                assert_int_equal(len, 2);
                assert_string_equal(text, "ab");
                free(text);
                close(rfd);
                close(wfd);
        }
        /* the lock name of a directory that cannot be stat()ed: the error */
        {
                char lname[FS_LOCK_NAME_MAX] = "marker";
                int lfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(lfd >= 0);
                assert_int_equal(fs_lock_name(lfd, lname), 0);
                assert_non_null(strstr(lname, ".lock"));
                fault_arm("fstat", NULL, 1, EIO);
                assert_int_equal(fs_lock_name(lfd, lname), -EIO);
                fault_disarm();
                close(lfd);
        }

        /* with descriptor 0 free, the temporary file may get it: still written */
        fd0_free();
        int r0 = fs_write_atomic(dfd, "fd0", "zero", 4, 0600);
        fd0_restore();
        assert_int_equal(r0, 0);
        assert_file(dfd, "fd0", "zero");
}

/* ---- owners, failing calls, descriptor 0, and a system without /proc ---- */

/* the descriptors this process has open */
static int open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;
        assert_non_null(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

/* A call that returns a descriptor, made with descriptor 0 free: its result in r, the
 * descriptor in fd, and (when it is 0) a copy of it above 2 in moved, -1 otherwise. */
#define WITH_FD0_FREE(r, fd, moved, call)                                                  \
        do {                                                                               \
                (fd) = -12345;                                                             \
                fd0_free();                                                                \
                (r) = (call);                                                              \
                (moved) = (r) == 0 && (fd) == 0 ? fcntl(0, F_DUPFD_CLOEXEC, 3) : -1;       \
                fd0_restore();                                                             \
        } while (0)

/* the call gave descriptor 0 (moved to moved): with text, the file it reads */
static void assert_got_fd0(int r, int fd, int moved, const char *text) {
        assert_int_equal(r, 0);
        assert_int_equal(fd, 0);
        assert_true(moved > 2);
        if (text) {
                char buf[64] = "";
                ssize_t n = read(moved, buf, sizeof buf - 1);
                assert_true(n >= 0);
                buf[n] = '\0';
                assert_string_equal(buf, text);
        }
}

static void test_owners_and_failing_calls(void **state) {
        _cleanup_close_ int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char p[PATH_MAX];
        struct stat st = { .st_uid = 4242, .st_mode = S_IFREG | 0644 };
        int fd = -12345, r, moved;
        (void)state;
        assert_true(dfd >= 0);
        /* someone else's file is refused whatever its mode; root's only when others may write */
        assert_int_equal(fs_check_trusted(&st), FS_ERR_OWNER);
        st.st_mode = S_IFREG | 0600;
        assert_int_equal(fs_check_trusted(&st), FS_ERR_OWNER);
        st.st_uid = 0;
        assert_int_equal(fs_check_trusted(&st), 0);
        st.st_mode = S_IFREG | 0620;
        assert_int_equal(fs_check_trusted(&st), FS_ERR_MODE);

        /* a trusted configuration file: root's, its descriptor not inherited by a program */
        fd_inherited(fds_before, sizeof fds_before);
        assert_int_equal(fs_open_config(dfd, "etc/file", geteuid() == 0, false, &fd, NULL), 0);
        assert_not_inherited(fd);
        close(fd);
        fd = -12345;
        /* ... and with descriptor 0 free, it may be 0 */
        WITH_FD0_FREE(r, fd, moved, fs_open_config(dfd, "etc/file", false, false, &fd, NULL));
        assert_got_fd0(r, fd, moved, "tree");
        close(moved);
        /* fstat() of the opened file failing: its error, nothing returned */
        fd = -12345;
        st.st_size = 12345;
        fault_arm("fstat", "file", 1, EIO);
        assert_int_equal(fs_open_config(dfd, "etc/file", false, false, &fd, &st), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_arm("fstat", "file", 1, EIO);
        assert_int_equal(fs_open_config_in_root(root, "/etc/file", false, false, &fd, &st), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_arm("fstat", "file", 1, EIO);
        assert_int_equal(fs_stat_in_root(root, "/etc/file", false, &st), -EIO);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
        assert_int_equal(st.st_size, 12345);
        /* a real EACCES or EPERM of open() (an LSM, root_squash, no CAP_DAC_OVERRIDE) is said as
         * it is, never taken for a wrong mode or owner (they were -EACCES and -EPERM) */
        fault_arm("open", "file", 1, EACCES);
        assert_int_equal(fs_open_config(dfd, "etc/file", true, false, &fd, NULL), -EACCES);
        assert_int_equal(fault_injected(), 1);
        fault_arm("open", "file", 1, EPERM);
        assert_int_equal(fs_open_config(dfd, "etc/file", true, false, &fd, NULL), -EPERM);
        fault_disarm();
        assert_int_not_equal(-EACCES, FS_ERR_MODE);
        assert_int_not_equal(-EPERM, FS_ERR_OWNER);
        assert_string_equal(fs_strerror(-EACCES), "Permission denied");
        assert_string_equal(fs_strerror(-EPERM), "Operation not permitted");
        assert_string_equal(fs_strerror(FS_ERR_MODE), "writable by group or others");
        assert_int_equal(fd, -12345);

        if (geteuid() == 0) {
                /* a file and a lock file of another user, otherwise fine */
                unit_put(root, "etc/theirs", "x");
                assert_int_equal(chown(unit_path(p, root, "etc/theirs"), 4242, 4242), 0);
                assert_int_equal(chmod(p, 0644), 0);
                assert_int_equal(fs_open_config(dfd, "etc/theirs", true, false, &fd, NULL), FS_ERR_OWNER);
                assert_int_equal(fs_open_config(dfd, "etc/theirs", false, false, &fd, NULL), 0);
                close(fd);
                fd = -12345;
                unit_put(root, "o.lock", "");
                assert_int_equal(chown(unit_path(p, root, "o.lock"), 4242, 4242), 0);
                assert_int_equal(chmod(p, 0600), 0);
                assert_int_equal(fs_lock_file(dfd, "o.lock", 0, &fd, NULL), FS_ERR_OWNER);
                assert_int_equal(fd, -12345);
        } else
                printf("# not root: files of another user not tried\n");

        /* a lock file that gets descriptor 0: locked, and returned */
        WITH_FD0_FREE(r, fd, moved, fs_lock_file(dfd, "zero.lock", 0, &fd, NULL));
        assert_got_fd0(r, fd, moved, NULL);
        fd = -12345;
        assert_int_equal(fs_lock_file(dfd, "zero.lock", 0, &fd, NULL), -ETIMEDOUT);
        close(moved);
        assert_int_equal(fs_lock_file(dfd, "zero.lock", 0, &fd, NULL), 0);
        close(fd);

        /* fs_unlink_sync(): removed and synced is 0; a missing name, or the sync failing */
        _cleanup_close_ int wfd = open_work_dir(p, "w");
        unit_put(p, "gone", "x");
        assert_int_equal(fs_unlink_sync(wfd, "gone"), 0);
        assert_int_equal(faccessat(wfd, "gone", F_OK, 0), -1);
        assert_int_equal(fs_unlink_sync(wfd, "gone"), -ENOENT);
        unit_put(p, "gone", "x");
        fault_arm("fsync", NULL, 1, EIO);
        assert_int_equal(fs_unlink_sync(wfd, "gone"), FS_ERR_DIRSYNC);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(faccessat(wfd, "gone", F_OK, 0), -1);

        /* every allocation of fs_read_all() failing in turn: -ENOMEM, the result untouched */
        if (fault_alloc_supported()) {
                int sfd = file_of(20000);
                for (unsigned long n = 1;; n++) {
                        char *s = (char *)"marker";
                        size_t len = 777;
                        assert_int_equal(lseek(sfd, 0, SEEK_SET), 0);
                        fault_arm("alloc", NULL, n, ENOMEM);
                        r = fs_read_all(sfd, 100000, &s, &len);
                        unsigned long hit = fault_injected();
                        fault_disarm();
                        if (!hit) {
                                assert_int_equal(r, 0);
                                assert_int_equal(len, 20000);
                                free(s);
                                assert_true(n > 2);
                                break;
                        }
                        assert_int_equal(r, -ENOMEM);
                        assert_string_equal(s, "marker");
                        assert_int_equal(len, 777);
                }
                close(sfd);
        }
}

static void test_lock_dir_more(void **state) {
        char p[PATH_MAX], q[PATH_MAX];
        struct stat st;
        int fd = -12345, r, moved;
        (void)state;
        /* mkdir(2) of the lock directory, or of its parent, failing: its error */
        fault_arm("mkdirat", "ld-eacces", 1, EACCES);
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "ld-eacces"), &fd), -EACCES);
        assert_int_equal(fault_injected(), 1);
        fault_arm("mkdirat", "ldp-eacces", 1, EACCES);
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "ldp-eacces/locks"), &fd), -EACCES);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(fd, -12345);
        assert_int_equal(access(unit_path(p, top, "ldp-eacces"), F_OK), -1);
        /* a missing parent with no last component of its own */
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "ldnone/../locks"), &fd), -EINVAL);
        assert_int_equal(fd, -12345);
        assert_int_equal(access(unit_path(p, top, "ldnone"), F_OK), -1);

        /* an existing parent with a stale errno of ENOENT: opened, nothing made again, no
         * descriptor left open (its own, or descriptor 0) */
        unit_mkdir_p(top, "ldrun");
        unit_path(p, top, "ldrun/locks");
        int before = open_fds();
        errno = ENOENT;
        assert_int_equal(fs_lock_dir_open(p, &fd), 0);
        close(fd);
        assert_int_equal(open_fds(), before);
        fd = -12345;
        fd0_free();
        errno = ENOENT;
        r = fs_lock_dir_open(p, &fd);
        bool fd0_open = fcntl(0, F_GETFD) >= 0;
        if (r == 0 && fd > 0)
                close(fd);
        fd0_restore();
        assert_int_equal(r, 0);
        assert_true(fd > 0);
        assert_false(fd0_open);

        /* a missing parent made with descriptor 0 free: the grandparent's may be 0 */
        WITH_FD0_FREE(r, fd, moved, fs_lock_dir_open(unit_path(p, top, "ldzero/locks"), &fd));
        assert_got_fd0(r, fd, moved, NULL);
        assert_int_equal(fstat(moved, &st), 0);
        assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
        close(moved);
        assert_int_equal(stat(unit_path(q, top, "ldzero"), &st), 0);
        assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == (0755 & ~current_umask()));

        /* no descriptor inherited while the missing parent is made (the grandparent's) */
        arm_fd_check("mkdirat", NULL, 1);
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "ldexec/locks"), &fd), 0);
        assert_no_fd_leaked_to_exec();
        assert_not_inherited(fd);
        close(fd);

        /* a file where the lock directory should be: ENOTDIR (only a link is ELOOP) */
        unit_put(top, "ldfile", "x");
        fd = -12345;
        assert_int_equal(fs_lock_dir_open(unit_path(p, top, "ldfile"), &fd), -ENOTDIR);
        assert_int_equal(fd, -12345);
        /* a link refused, and the open of a lock directory failing: its error, not ELOOP */
        unit_mkdir_p(top, "ldl/real");
        assert_int_equal(symlink("real", unit_path(q, top, "ldl/link")), 0);
        fd = -12345;
        fault_arm("open", "ld-eio", 1, EIO);
        r = fs_lock_dir_open(q, &fd);
        int r2 = fs_lock_dir_open(unit_path(p, top, "ldl/ld-eio"), &fd);
        fault_disarm();
        assert_int_equal(r, -ELOOP);
        assert_int_equal(r2, -EIO);
        assert_int_equal(fd, -12345);
}

static void test_in_root_more(void **state) {
        _cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        char p[PATH_MAX], q[PATH_MAX];
        struct stat st;
        int fd = -12345, r, moved;
        (void)state;
        assert_true(rootfd >= 0);
        unit_put(root, "wk/mid/last0", "deep");
        /* a directory on the way missing: ENOENT */
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/missing/x", O_RDONLY, 0, &fd), -ENOENT);
        fault_arm("open", "mid", 1, EACCES);
        assert_int_equal(fs_openat_in_root_walk(rootfd, "/wk/mid/last0", O_RDONLY, 0, &fd), -EACCES);
        assert_int_equal(fault_injected(), 1);
        /* O_PATH with O_CREAT is refused before anything is opened */
        fault_arm("openat2", NULL, 1, EIO);
        assert_int_equal(fs_openat_in_root(rootfd, "/etc/new", O_PATH | O_CREAT, 0600, &fd), -EINVAL);
        assert_int_equal(fault_injected(), 0);
        fault_disarm();
        assert_int_equal(fd, -12345);
        /* the walk's last open given descriptor 0 */
        fault_arm("open", "last0", 1, 0);
        fault_hook(fd0_free);
        fd = -12345;
        r = fs_openat_in_root_walk(rootfd, "/wk/mid/last0", O_RDONLY, 0, &fd);
        moved = r == 0 && fd == 0 ? fcntl(0, F_DUPFD_CLOEXEC, 3) : -1;
        bool hooked = fault_injected() == 1;
        fault_hook(NULL);
        fault_disarm();
        fd0_restore();
        assert_true(hooked);
        assert_got_fd0(r, fd, moved, "deep");
        close(moved);
        /* no root: a file opened as descriptor 0 */
        WITH_FD0_FREE(r, fd, moved, fs_open_in_root(NULL, unit_path(p, root, "etc/file"), O_RDONLY, 0, &fd));
        assert_got_fd0(r, fd, moved, "tree");
        close(moved);
        /* the root's descriptor is not inherited while the path is opened in it */
        arm_fd_check("openat2", NULL, 1);
        fd = -12345;
        assert_int_equal(fs_open_in_root(root, "/etc/file", O_RDONLY, 0, &fd), 0);
        assert_no_fd_leaked_to_exec();
        assert_not_inherited(fd);
        close(fd);
        /* a relative path of one letter with a trailing slash: the directory is made */
        fd = -12345;
        assert_int_equal(fs_open_dir_in_root(root, "q/", FS_DIR_CREATE, &fd), 0);
        close(fd);
        assert_int_equal(stat(unit_path(p, root, "q"), &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        /* FS_DIR_NOFOLLOW: a link to a directory is not followed, in a root or not */
        assert_int_equal(symlink("/etc", unit_path(p, root, "etc/dlink")), 0);
        fd = -12345;
        assert_int_equal(fs_open_dir_in_root(root, "/etc/dlink", 0, &fd), 0);
        close(fd);
        fd = -12345;
        r = fs_open_dir_in_root(root, "/etc/dlink", FS_DIR_NOFOLLOW, &fd);
        assert_true(r == -ELOOP || r == -ENOTDIR);
        r = fs_open_dir_in_root(root, "/etc/dlink", FS_DIR_NOFOLLOW | FS_DIR_CREATE, &fd);
        assert_true(r == -ELOOP || r == -ENOTDIR);
        assert_int_equal(fs_open_dir_in_root(NULL, p, 0, &fd), 0);
        close(fd);
        fd = -12345;
        r = fs_open_dir_in_root(NULL, p, FS_DIR_NOFOLLOW, &fd);
        assert_true(r == -ELOOP || r == -ENOTDIR);
        assert_int_equal(fd, -12345);
        /* the directory made in a root, opened as descriptor 0 */
        fault_arm("mkdir", "zero.d", 1, 0);
        fault_hook(fd0_free);
        fd = -12345;
        r = fs_open_dir_in_root(root, "/etc/zero.d", FS_DIR_CREATE, &fd);
        moved = r == 0 && fd == 0 ? fcntl(0, F_DUPFD_CLOEXEC, 3) : -1;
        hooked = fault_injected() == 1;
        fault_hook(NULL);
        fault_disarm();
        fd0_restore();
        assert_true(hooked);
        assert_got_fd0(r, fd, moved, NULL);
        assert_int_equal(fstat(moved, &st), 0);
        struct stat made;
        assert_int_equal(stat(unit_path(q, root, "etc/zero.d"), &made), 0);
        assert_true(st.st_ino == made.st_ino && st.st_dev == made.st_dev);
        close(moved);
}

static void test_lock_holder_more(void **state) {
        _cleanup_close_ int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), a = -1;
        char p[PATH_MAX];
        pid_t holder = -1;
        int fd = -12345;
        (void)state;
        /* a line cut short is passed over, whatever the line before it said */
        assert_int_equal(holder_from("1: FLOCK  ADVISORY  WRITE 0                          %s 0 EOF\n"
                                     "2: FLOCK ADVISORY WRITE 2222\n"),
                         0);
        /* the lock file cannot be stat()ed when its holder is looked up: nobody, and
         * /proc/locks is not read (nothing to match it with) */
        assert_true(dfd >= 0);
        assert_int_equal(fs_lock_file(dfd, "hs.lock", 0, &a, NULL), 0);
        unit_write(unit_path(p, top, "canned-locks2"), "1: FLOCK  ADVISORY  WRITE 2222 00:00:0 0 EOF\n");
        int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        assert_true(ifd >= 0);
        assert_true(inotify_add_watch(ifd, p, IN_OPEN | IN_ACCESS) >= 0);
        fault_redirect("/proc/locks", p);
        fault_arm("fstat", "hs.lock", 2, EIO); /* fs_lock_file()'s own, then the holder's */
        int r = fs_lock_file(dfd, "hs.lock", 0, &fd, &holder);
        unsigned long hit = fault_injected();
        fault_disarm();
        fault_redirect(NULL, NULL);
        char ev[4096];
        ssize_t n = read(ifd, ev, sizeof ev);
        close(ifd);
        assert_int_equal(r, -ETIMEDOUT);
        assert_int_equal(hit, 1);
        assert_int_equal(holder, 0);
        assert_int_equal(fd, -12345);
        assert_int_equal(n, -1);
}

/* every allocation of two paths made one after the other failing in turn: each NULL or its
 * own path, never the other's */
static void test_root_path_alloc(void **state) {
        (void)state;
        if (!fault_alloc_supported()) {
                printf("# allocations not interposed here\n");
                return;
        }
        for (unsigned long n = 1;; n++) {
                char *s[2];
                fault_arm("alloc", NULL, n, ENOMEM);
                s[0] = fs_root_path("/first", "/x");
                s[1] = fs_root_path("/second", "y");
                unsigned long hit = fault_injected();
                fault_disarm();
                if (s[0])
                        assert_string_equal(s[0], "/first/x");
                if (s[1])
                        assert_string_equal(s[1], "/second/y");
                bool done = s[0] && s[1];
                free(s[0]);
                free(s[1]);
                if (!hit) {
                        assert_true(done);
                        assert_true(n > 2);
                        break;
                }
        }
}

/* Where /proc is missing (a chroot without it): a directory in a root made with mkdirat(2)
 * in the resolved parent.  Run in a child with an empty /proc in its own mount namespace:
 * 0, 100 when that cannot be set up, or the number of the check that failed. */
static char noproc_race[PATH_MAX];
static void hook_noproc_race(void) {
        (void)mkdir(noproc_race, 0755);
}

static int noproc_checks(void) {
        char p[PATH_MAX];
        struct stat st;
        int fd = -12345;
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("none", "/proc", "tmpfs", 0, NULL) < 0)
                return 100;
        if (access("/proc/self/fd", F_OK) == 0)
                return 100;
        /* made, and opened */
        if (fs_open_dir_in_root(root, "/etc/noproc.d", FS_DIR_CREATE, &fd) != 0)
                return 1;
        if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
                return 2;
        close(fd);
        if (stat(unit_path(p, root, "etc/noproc.d"), &st) < 0 || !S_ISDIR(st.st_mode))
                return 3;
        /* there already, or made by someone else meanwhile: opened */
        fd = -12345;
        if (fs_open_dir_in_root(root, "/etc/noproc.d", FS_DIR_CREATE, &fd) != 0)
                return 4;
        close(fd);
        unit_path(noproc_race, root, "etc/noproc-race.d");
        fault_arm("mkdirat", "noproc-race.d", 1, 0);
        fault_hook(hook_noproc_race);
        fd = -12345;
        int r = fs_open_dir_in_root(root, "/etc/noproc-race.d", FS_DIR_CREATE, &fd);
        unsigned long hit = fault_injected();
        fault_hook(NULL);
        fault_disarm();
        if (hit != 1 || r != 0)
                return 5;
        close(fd);
        /* mkdirat(2) failing: its error, nothing made */
        fd = -12345;
        fault_arm("mkdirat", "noproc-eio.d", 1, EIO);
        r = fs_open_dir_in_root(root, "/etc/noproc-eio.d", FS_DIR_CREATE, &fd);
        hit = fault_injected();
        fault_disarm();
        if (hit != 1 || r != -EIO || fd != -12345)
                return 6;
        if (stat(unit_path(p, root, "etc/noproc-eio.d"), &st) == 0)
                return 7;
        /* a missing parent: ENOENT */
        if (fs_open_dir_in_root(root, "/etc/noproc-none/x.d", FS_DIR_CREATE, &fd) != -ENOENT)
                return 8;
        return 0;
}

static void test_open_dir_without_proc(void **state) {
        (void)state;
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(noproc_checks());
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) == 100) {
                printf("# no mount namespace of our own here: not tried\n");
                return;
        }
        assert_int_equal(WEXITSTATUS(status), 0);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_in_root_openat2), cmocka_unit_test(test_in_root_walk),
          cmocka_unit_test(test_in_root_paths), cmocka_unit_test(test_lock_file),
          cmocka_unit_test(test_open_config), cmocka_unit_test(test_read_all), cmocka_unit_test(test_getline),
          cmocka_unit_test(test_write_atomic),
          cmocka_unit_test(test_lock_dir), cmocka_unit_test(test_lock_dir_parent_race),
          cmocka_unit_test(test_lock_file_faults), cmocka_unit_test(test_in_root_edges),
          cmocka_unit_test(test_fopen_in_root), cmocka_unit_test(test_open_dir_in_root),
          cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_lock_holder),
          cmocka_unit_test(test_open_parent_trusted), cmocka_unit_test(test_fsutil_edges),
          cmocka_unit_test(test_owners_and_failing_calls), cmocka_unit_test(test_lock_dir_more),
          cmocka_unit_test(test_in_root_more), cmocka_unit_test(test_lock_holder_more),
          cmocka_unit_test(test_root_path_alloc), cmocka_unit_test(test_open_dir_without_proc))
