/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paths inside a root (openat2 and the walk that stands in for it) and the lock file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"

static char top[] = "/tmp/test-fsutil-XXXXXX";
static char root[128], host[128];

static void put(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* TOP/host/secret ("host"), TOP/root/etc/{file ("tree"), abs -> /etc/file, out -> TOP/host,
 * up -> ../../../../host/secret, dotdot -> ../../..}, TOP/root/host/secret ("in-tree") */
static int setup(void **state) {
        char p[4096], t[4096];
        (void)state;
        assert_non_null(mkdtemp(top));
        snprintf(root, sizeof root, "%s/root", top);
        snprintf(host, sizeof host, "%s/host", top);
        assert_int_equal(mkdir(root, 0755), 0);
        assert_int_equal(mkdir(host, 0755), 0);
        snprintf(p, sizeof p, "%s/secret", host);
        put(p, "host");
        snprintf(p, sizeof p, "%s/etc", root);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/host", root);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/host/secret", root);
        put(p, "in-tree");
        snprintf(p, sizeof p, "%s/etc/file", root);
        put(p, "tree");
        snprintf(p, sizeof p, "%s/etc/abs", root);
        assert_int_equal(symlink("/etc/file", p), 0);
        snprintf(p, sizeof p, "%s/etc/out", root);
        assert_int_equal(symlink(host, p), 0);
        snprintf(p, sizeof p, "%s/etc/up", root);
        assert_int_equal(symlink("../../../../../../../../host/secret", p), 0);
        snprintf(t, sizeof t, "%s/etc/dotdot", root);
        assert_int_equal(symlink("../../../..", t), 0);
        return 0;
}

static int teardown(void **state) {
        char cmd[4200];
        (void)state;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
        return system(cmd) == 0 ? 0 : -1;
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

static void test_in_root_openat2(void **state) {
        char buf[64];
        int r;
        (void)state;
        assert_string_equal(read_with(fs_openat_in_root, "/etc/file", &r, buf, sizeof buf), "tree");
        assert_string_equal(read_with(fs_openat_in_root, "etc/file", &r, buf, sizeof buf), "tree");
        /* an absolute link resolves inside the tree */
        assert_string_equal(read_with(fs_openat_in_root, "/etc/abs", &r, buf, sizeof buf), "tree");
        /* a link to a host directory, and .. above the root, stay in the tree */
        assert_string_equal(read_with(fs_openat_in_root, "/etc/up", &r, buf, sizeof buf), "in-tree");
        assert_string_equal(read_with(fs_openat_in_root, "/../../../host/secret", &r, buf, sizeof buf), "in-tree");
        assert_string_equal(read_with(fs_openat_in_root, "/etc/dotdot/host/secret", &r, buf, sizeof buf), "in-tree");
        read_with(fs_openat_in_root, "/etc/out/secret", &r, buf, sizeof buf);
        assert_true(r < 0 || strcmp(buf, "host") != 0);
}

static void test_in_root_walk(void **state) {
        char buf[64];
        int r;
        (void)state;
        assert_string_equal(read_with(fs_openat_in_root_walk, "/etc/file", &r, buf, sizeof buf), "tree");
        assert_string_equal(read_with(fs_openat_in_root_walk, "//etc/./file", &r, buf, sizeof buf), "tree");
        assert_string_equal(read_with(fs_openat_in_root_walk, "/../../host/secret", &r, buf, sizeof buf), "in-tree");
        assert_string_equal(read_with(fs_openat_in_root_walk, "/etc/../etc/file", &r, buf, sizeof buf), "tree");
        /* every link is refused, the last component's and a directory's */
        read_with(fs_openat_in_root_walk, "/etc/abs", &r, buf, sizeof buf);
        assert_int_equal(r, -ELOOP);
        read_with(fs_openat_in_root_walk, "/etc/up", &r, buf, sizeof buf);
        assert_int_equal(r, -ELOOP);
        read_with(fs_openat_in_root_walk, "/etc/out/secret", &r, buf, sizeof buf);
        assert_int_equal(r, -ELOOP);
        read_with(fs_openat_in_root_walk, "/etc/dotdot/host/secret", &r, buf, sizeof buf);
        assert_int_equal(r, -ELOOP);
        read_with(fs_openat_in_root_walk, "/etc/file/x", &r, buf, sizeof buf);
        assert_int_equal(r, -ENOTDIR);
        read_with(fs_openat_in_root_walk, "/etc/missing", &r, buf, sizeof buf);
        assert_int_equal(r, -ENOENT);
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
        close(fd);
        assert_int_equal(fs_open_in_root("/", p, O_RDONLY, 0, &fd), 0);
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
        snprintf(p, sizeof p, "%s/m.lock", root);
        put(p, "");
        assert_int_equal(chmod(p, 0644), 0);
        assert_int_equal(fs_lock_file(dfd, "m.lock", 0, &a, NULL), FS_ERR_LOCKMODE);
        assert_int_equal(mkfifoat(dfd, "f.lock", 0600), 0);
        assert_int_equal(fs_lock_file(dfd, "f.lock", 0, &a, NULL), FS_ERR_NOTREG);
        assert_int_equal(fs_lock_file(dfd, "a/b", 0, &a, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_in_root_openat2),
                cmocka_unit_test(test_in_root_walk),
                cmocka_unit_test(test_in_root_paths),
                cmocka_unit_test(test_lock_file),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
