/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paths inside a root (openat2 and the walk that stands in for it) and the lock file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "fsutil.h"
#include "macro.h"

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
        unit_put(root, "m.lock", "");
        snprintf(p, sizeof p, "%s/m.lock", root);
        assert_int_equal(chmod(p, 0644), 0);
        assert_int_equal(fs_lock_file(dfd, "m.lock", 0, &a, NULL), FS_ERR_LOCKMODE);
        assert_int_equal(mkfifoat(dfd, "f.lock", 0600), 0);
        assert_int_equal(fs_lock_file(dfd, "f.lock", 0, &a, NULL), FS_ERR_NOTREG);
        assert_int_equal(fs_lock_file(dfd, "a/b", 0, &a, NULL), -EINVAL);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_in_root_openat2), cmocka_unit_test(test_in_root_walk),
          cmocka_unit_test(test_in_root_paths), cmocka_unit_test(test_lock_file))
