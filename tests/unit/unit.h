/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the cmocka unit tests share: cmocka and the headers it needs, a throwaway tree under
 * /tmp made from a table (unit_tree()) and removed again (unit_teardown()), the files written
 * in it, a parser's expected answer (unit_expect_parse()), and main() (UNIT_MAIN()).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

/* Write text to path (created or truncated). */
static inline void unit_write(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        if (!f)
                fail_msg("%s: %s", path, strerror(errno));
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

/* What a number parser leaves in its result when it fails: the value it was given. */
#define UNIT_MARKER UINT64_C(0xdeadbeef)

/* parse(s) returns r, and stores v when r is 0; on failure it leaves the result untouched. */
static inline void unit_expect_parse(int (*parse)(const char *, uint64_t *), const char *s, int r,
                                     uint64_t v) {
        uint64_t got = UNIT_MARKER;
        assert_int_equal(parse(s, &got), r);
        if (r == 0)
                assert_true(got == v);
        else
                assert_true(got == UNIT_MARKER);
}

/* dir/rel, asserted to fit in p[PATH_MAX] */
static inline char *unit_path(char p[static PATH_MAX], const char *dir, const char *rel) {
        assert_true(snprintf(p, PATH_MAX, "%s/%s", dir, rel) < PATH_MAX);
        return p;
}

/* Make the directory dir/rel and those between dir and it; each is made or already there. */
static inline void unit_mkdir_p(const char *dir, const char *rel) {
        char p[PATH_MAX];
        unit_path(p, dir, rel);
        for (char *s = p + strlen(dir) + 1;; s++) {
                s = strchr(s, '/');
                if (s)
                        *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        fail_msg("mkdir %s: %s", p, strerror(errno));
                if (!s)
                        return;
                *s = '/';
        }
}

/* Write text to dir/rel, with the directories above rel made. */
static inline void unit_put(const char *dir, const char *rel, const char *text) {
        char p[PATH_MAX];
        const char *slash = strrchr(rel, '/');
        if (slash) {
                char sub[PATH_MAX];
                assert_true((size_t)(slash - rel) < sizeof sub);
                memcpy(sub, rel, slash - rel);
                sub[slash - rel] = '\0';
                unit_mkdir_p(dir, sub);
        }
        unit_write(unit_path(p, dir, rel), text);
}

/* One entry of a tree: a file and its text, or with no text a directory. */
struct unit_file {
        const char *path, *text;
};

/* the tree unit_tree() made, for unit_teardown() */
static char *unit_dir;

/*
 * A group setup's tree: the directory tmpl (a mkdtemp() template, changed in place) with
 * each entry of files, up to one without a path, and the directories above them.  0, or -1
 * when tmpl cannot be made.
 */
static inline int unit_tree(char *tmpl, const struct unit_file *files) {
        if (!mkdtemp(tmpl))
                return -1;
        unit_dir = tmpl;
        for (; files && files->path; files++)
                if (files->text)
                        unit_put(tmpl, files->path, files->text);
                else
                        unit_mkdir_p(tmpl, files->path);
        return 0;
}

/* rm -rf dir: 0, or -1 */
static inline int unit_rm_rf(const char *dir) {
        char cmd[PATH_MAX + 16];
        assert_true(snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) < (int)sizeof cmd);
        return system(cmd) == 0 ? 0 : -1;
}

/* The group teardown that removes unit_tree()'s tree. */
static inline int unit_teardown(void **state) {
        (void)state;
        return unit_dir ? unit_rm_rf(unit_dir) : 0;
}

/* main(): the group of tests (each a cmocka_unit_test()), with its setup and teardown */
#define UNIT_MAIN(setup, teardown, ...)                                                    \
        int main(void) {                                                                   \
                const struct CMUnitTest tests[] = { __VA_ARGS__ };                         \
                return cmocka_run_group_tests(tests, setup, teardown);                     \
        }
