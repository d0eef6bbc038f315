/* SPDX-License-Identifier: GPL-2.0-or-later */
/* visit.h: the path of an include walk (cycles, not diamonds) and its budget. */
#include "config.h"

#include "unit.h"
#include "visit.h"

static struct stat file(ino_t ino, off_t size) {
        return (struct stat){ .st_dev = 8, .st_ino = ino, .st_size = size };
}

/* A file met again through a bounded edge (a PAM substack: libpam's 16 levels end it) is no
 * cycle; through unbounded edges only it is, however far out the bounded edge lies. */
static void test_bounded(void **state) {
        struct visit v = {};
        struct stat a = file(1, 10), b = file(2, 10);
        (void)state;

        assert_int_equal(visit_enter(&v, &a, "a", NULL, 0), 0);
        for (int i = 0; i < 5; i++)
                assert_int_equal(visit_enter_bounded(&v, &a, "a", "a", 1, true), 0);
        assert_int_equal(visit_enter_bounded(&v, &b, "b", "a", 2, true), 0);
        /* b -> a: from the earlier a's the path runs through a bounded edge (a -> b): no cycle */
        assert_int_equal(visit_enter_bounded(&v, &a, "a", "b", 1, false), 0);
        /* a -> b again, unbounded: since that b, only unbounded edges (b -> a, a -> b): a cycle */
        assert_int_equal(visit_enter_bounded(&v, &b, "b", "a", 2, false), VISIT_ERR_CYCLE);
        visit_done(&v);
}

/* The same file on two paths (common-session from two files, twice in one stack) is legal. */
static void test_diamond(void **state) {
        struct visit v = {};
        struct stat svc = file(1, 10), a = file(2, 10), b = file(3, 10), common = file(4, 10);
        (void)state;

        assert_int_equal(visit_enter(&v, &svc, "svc", NULL, 0), 0);
        assert_int_equal(visit_enter(&v, &a, "a", "svc", 1), 0);
        assert_int_equal(visit_enter(&v, &common, "common", "a", 1), 0);
        visit_leave(&v);
        visit_leave(&v);
        assert_int_equal(visit_enter(&v, &b, "b", "svc", 2), 0);
        assert_int_equal(visit_enter(&v, &common, "common", "b", 1), 0);
        visit_leave(&v);
        visit_leave(&v);
        assert_int_equal(visit_enter(&v, &common, "common", "svc", 3), 0);
        visit_leave(&v);
        visit_leave(&v);
        assert_int_equal(v.error, 0);
        assert_int_equal(v.files, 6);
        assert_int_equal(v.depth, 0);
        visit_done(&v);
}

/* A file on its own path, by device and inode whatever its name: a cycle, and it sticks. */
static void test_cycle(void **state) {
        struct visit v = {};
        struct stat a = file(1, 10), b = file(2, 10), alias = file(1, 10), other = file(3, 10);
        (void)state;

        assert_int_equal(visit_enter(&v, &a, "etc/pam.d/a", NULL, 0), 0);
        assert_int_equal(visit_enter(&v, &b, "etc/pam.d/b", "etc/pam.d/a", 2), 0);
        assert_int_equal(visit_line(&v, "etc/pam.d/b", 1, 20), 0);
        assert_int_equal(visit_enter(&v, &alias, "etc/pam.d/a-link", "etc/pam.d/b", 3), VISIT_ERR_CYCLE);
        assert_int_equal(v.error, VISIT_ERR_CYCLE);
        assert_string_equal(v.where, "etc/pam.d/b:3");
        assert_string_equal(v.file, "etc/pam.d/a-link");
        /* the walk unwinds: nothing more is entered or read, the first problem stays */
        assert_int_equal(visit_enter(&v, &other, "etc/pam.d/c", "etc/pam.d/b", 4), VISIT_ERR_CYCLE);
        assert_int_equal(visit_line(&v, "etc/pam.d/b", 4, 20), VISIT_ERR_CYCLE);
        assert_string_equal(v.where, "etc/pam.d/b:3");
        visit_leave(&v);
        visit_leave(&v);
        assert_int_equal(v.depth, 0);
        assert_string_equal(visit_strerror(VISIT_ERR_CYCLE),
                            "an include cycle: the file includes itself, directly or through the files it includes");
        visit_done(&v);
}

/* Every visit counts, of the same file too: file VISIT_FILES_MAX + 1 is refused where its
 * include is. */
static void test_files_budget(void **state) {
        struct visit v = {};
        struct stat top = file(1, 0), same = file(2, 0);
        (void)state;

        assert_int_equal(visit_enter(&v, &top, "top", NULL, 0), 0);
        for (unsigned i = 1; i < VISIT_FILES_MAX; i++) {
                assert_int_equal(visit_enter(&v, &same, "same", "top", i), 0);
                visit_leave(&v);
        }
        assert_int_equal(v.files, VISIT_FILES_MAX);
        assert_int_equal(visit_enter(&v, &same, "same", "top", 1000), VISIT_ERR_BUDGET);
        assert_string_equal(v.where, "top:1000");
        assert_string_equal(v.file, "same");
        assert_int_equal(v.depth, 1);
        visit_done(&v);
}

static void test_lines_budget(void **state) {
        struct visit v = {};
        struct stat f = file(1, 0);
        unsigned line = 0;
        (void)state;

        assert_int_equal(visit_enter(&v, &f, "f", NULL, 0), 0);
        while (line < VISIT_LINES_MAX)
                assert_int_equal(visit_line(&v, "f", ++line, 1), 0);
        assert_int_equal(visit_line(&v, "f", ++line, 1), VISIT_ERR_BUDGET);
        assert_string_equal(v.where, "f:1000001");
        visit_done(&v);
}

/* Bytes: a file larger than what is left is not entered; lines count what they bring. */
static void test_bytes_budget(void **state) {
        struct visit v = {};
        struct stat small = file(1, 100), big = file(2, (off_t)VISIT_BYTES_MAX + 1), half = file(3, 0);
        (void)state;

        assert_int_equal(visit_enter(&v, &big, "big", NULL, 0), VISIT_ERR_BUDGET);
        assert_string_equal(v.where, "big");
        visit_done(&v);

        v = (struct visit){};
        assert_int_equal(visit_enter(&v, &small, "small", NULL, 0), 0);
        assert_int_equal(visit_line(&v, "small", 1, VISIT_BYTES_MAX / 2), 0);
        assert_int_equal(visit_enter(&v, &half, "half", "small", 1), 0);
        assert_int_equal(visit_line(&v, "half", 1, VISIT_BYTES_MAX / 2), 0);
        assert_int_equal(visit_line(&v, "half", 2, 1), VISIT_ERR_BUDGET);
        assert_string_equal(v.where, "half:2");
        visit_done(&v);

        /* leaving more often than entering stays at the top: the path is still right */
        v = (struct visit){};
        visit_leave(&v);
        assert_int_equal(v.depth, 0);
        assert_int_equal(visit_enter(&v, &small, "small", NULL, 0), 0);
        assert_int_equal(v.depth, 1);
        visit_leave(&v);
        visit_leave(&v);
        assert_int_equal(v.depth, 0);
        assert_int_equal(visit_enter(&v, &small, "small", NULL, 0), 0);
        visit_done(&v);

        /* the budget spent to the byte: a file of one byte more is not entered, an empty one is */
        struct stat one = file(4, 1), empty = file(5, 0);
        v = (struct visit){};
        assert_int_equal(visit_enter(&v, &small, "small", NULL, 0), 0);
        assert_int_equal(visit_line(&v, "small", 1, VISIT_BYTES_MAX), 0);
        assert_int_equal(visit_enter(&v, &empty, "empty", "small", 1), 0);
        visit_leave(&v);
        assert_int_equal(visit_enter(&v, &one, "one", "small", 2), VISIT_ERR_BUDGET);
        assert_string_equal(v.where, "small:2");
        visit_done(&v);
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_diamond), cmocka_unit_test(test_cycle), cmocka_unit_test(test_bounded),
          cmocka_unit_test(test_files_budget), cmocka_unit_test(test_lines_budget),
          cmocka_unit_test(test_bytes_budget))
