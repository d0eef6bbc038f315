/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/base: the string vector and the growth helper under it; the escaping of user bytes, and
 * of findings (diag.c) through it. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "array.h"
#include "diag.h"
#include "escape.h"
#include "macro.h"
#include "strv.h"

static void test_push(void **state) {
        struct strv s = {};
        char word[] = "beta";
        (void)state;

        assert_null(s.v);
        assert_false(strv_contains(s.v, "x"));
        assert_int_equal(strv_push(&s, "alpha"), 0);
        assert_int_equal(strv_push(&s, word), 0);
        word[0] = 'Z';                          /* pushed as a copy */
        assert_int_equal(s.n, 2);
        assert_string_equal(s.v[0], "alpha");
        assert_string_equal(s.v[1], "beta");
        assert_null(s.v[2]);
        assert_true(strv_contains(s.v, "beta"));
        assert_false(strv_contains(s.v, "Zeta"));
        assert_false(strv_contains(s.v, ""));
        strv_clear(&s);
        assert_null(s.v);
        assert_int_equal(s.n, 0);
        assert_int_equal(s.cap, 0);
}

static void test_consume(void **state) {
        struct strv s = {};
        (void)state;

        assert_int_equal(strv_consume(&s, strdup("owned")), 0);
        assert_int_equal(strv_consume(&s, NULL), -ENOMEM);   /* a failed allocation */
        assert_int_equal(s.n, 1);
        assert_string_equal(s.v[0], "owned");
        assert_null(s.v[1]);
        strv_clear(&s);
}

static void test_many(void **state) {
        struct strv s = {};
        char buf[32];
        (void)state;

        for (int i = 0; i < 1000; i++) {
                snprintf(buf, sizeof buf, "n%04d", 999 - i);
                assert_int_equal(strv_push(&s, buf), 0);
                assert_true(s.cap >= s.n + 1);
                assert_null(s.v[s.n]);
        }
        strv_sort(&s);
        for (size_t i = 0; i < s.n; i++) {
                snprintf(buf, sizeof buf, "n%04zu", i);
                assert_string_equal(s.v[i], buf);
        }
        assert_null(s.v[s.n]);
        assert_true(strv_contains(s.v, "n0500"));
        strv_clear(&s);
        strv_sort(&s);                          /* empty: nothing to do */
}

static void test_truncate(void **state) {
        struct strv s = {};
        (void)state;

        for (unsigned i = 0; i < 5; i++) {
                char w[8];
                snprintf(w, sizeof w, "w%u", i);
                assert_int_equal(strv_push(&s, w), 0);
        }
        strv_truncate(&s, 5);                   /* nothing after the fifth */
        assert_int_equal(s.n, 5);
        strv_truncate(&s, 2);
        assert_int_equal(s.n, 2);
        assert_string_equal(s.v[1], "w1");
        assert_null(s.v[2]);                    /* still NULL-terminated */
        assert_false(strv_contains(s.v, "w2"));
        assert_int_equal(strv_push(&s, "again"), 0);
        assert_string_equal(s.v[2], "again");
        assert_null(s.v[3]);
        strv_truncate(&s, 0);
        assert_int_equal(s.n, 0);
        assert_null(s.v[0]);
        strv_clear(&s);
}

static void test_sort_cmp(void **state) {
        struct strv s = {};
        const char *in[] = { "b", "B", "a", "", "ab", "a" }, *out[] = { "", "B", "a", "a", "ab", "b" };
        const char *x = "a", *y = "b";
        (void)state;

        assert_true(cmp_str(&x, &y) < 0);
        assert_true(cmp_str(&y, &x) > 0);
        assert_int_equal(cmp_str(&x, &x), 0);
        for (size_t i = 0; i < ELEMENTSOF(in); i++)
                assert_int_equal(strv_push(&s, in[i]), 0);
        strv_sort(&s);
        for (size_t i = 0; i < ELEMENTSOF(out); i++)
                assert_string_equal(s.v[i], out[i]);
        strv_clear(&s);
}

static void test_free_array(void **state) {
        char **v = calloc(3, sizeof(char *));
        (void)state;

        assert_non_null(v);
        v[0] = strdup("x");
        v[1] = strdup("y");
        assert_true(strv_contains(v, "y"));
        strv_free(v);
        strv_free(NULL);
}

static void test_grow(void **state) {
        int *v = NULL;
        size_t cap = 0;
        (void)state;

        assert_int_equal(GROW(v, cap, 1), 0);
        assert_int_equal(cap, 8);
        int *before = v;
        assert_int_equal(GROW(v, cap, 8), 0);   /* room enough: nothing moves */
        assert_ptr_equal(v, before);
        assert_int_equal(cap, 8);
        assert_int_equal(GROW(v, cap, 9), 0);
        assert_int_equal(cap, 16);
        assert_int_equal(GROW(v, cap, 100), 0);
        assert_int_equal(cap, 100);
        for (int i = 0; i < 100; i++)
                v[i] = i;
        assert_int_equal(GROW(v, cap, 50), 0);   /* never shrinks */
        assert_int_equal(cap, 100);
        assert_int_equal(v[99], 99);

        assert_int_equal(GROW_EXACT(v, 3), 0);
        assert_int_equal(v[2], 2);
        assert_int_equal(GROW_EXACT(v, 5), 0);
        assert_int_equal(v[2], 2);
        free(v);
}

/* lib/base/escape.c: every byte of 1 to 255 alone (printable ASCII kept, the backslash doubled,
 * the rest \xHH) and its length; a result that does not fit is cut at an escape
 * boundary and ends in "..." when there is room for it */
static void test_escape(void **state) {
        char buf[64];
        (void)state;

        for (int c = 1; c < 256; c++) {
                char in[2] = { (char)c, 0 }, want[8];
                if (c == '\\')
                        strcpy(want, "\\\\");
                else if (c >= 0x20 && c < 0x7f)
                        snprintf(want, sizeof want, "%c", c);
                else
                        snprintf(want, sizeof want, "\\x%02x", (unsigned)c);
                const char *got = str_escape(in, buf, sizeof buf);
                if (!streq(got, want))
                        fail_msg("byte 0x%02x: \"%s\", want \"%s\"", (unsigned)c, got, want);
                assert_int_equal(str_escaped_len(in), strlen(want));
        }

        assert_string_equal(str_escape("abcdef", buf, 7), "abcdef");
        assert_string_equal(str_escape("abcdef", buf, 6), "ab...");
        assert_string_equal(str_escape("\x01\x02", buf, 9), "\\x01\\x02");
        assert_string_equal(str_escape("\x01\x02", buf, 8), "\\x01...");
        assert_string_equal(str_escape("\x01\x02", buf, 7), "...");    /* no whole escape fits */
        assert_string_equal(str_escape("abcdef", buf, 4), "...");
        assert_string_equal(str_escape("abcdef", buf, 3), "");           /* no room for "..." */
        assert_string_equal(str_escape("", buf, 1), "");
        buf[0] = 'X';
        assert_ptr_equal(str_escape("abc", buf, 0), buf);
        assert_int_equal(buf[0], 'X');                                   /* size 0: untouched */
}

_printf_(4, 5) static int add_finding(struct diag_list *l, const char *path, const char *fix, const char *fmt,
                                      ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_vadd(l, DIAG_WARNING, 0, "id", path, 3, fix, fmt, ap);
        va_end(ap);
        return r;
}

/* diag_vadd(): a finding keeps its bytes raw (every output escapes them where it prints: the
 * one rule of lib/base/escape.c), its NULLs too */
static void test_diag_raw(void **state) {
        struct diag_list d = {};
        (void)state;

        assert_int_equal(add_finding(&d, NULL, NULL, "plain %s", "text"), 0);
        assert_int_equal(add_finding(&d, "dir/\x1b[31m", "run\n rm", "user %s", "ev\nil"), 0);
        assert_int_equal(d.n, 2);
        assert_string_equal(d.v[0].message, "plain text");
        assert_null(d.v[0].path);
        assert_null(d.v[0].fix);
        assert_string_equal(d.v[1].message, "user ev\nil");
        assert_string_equal(d.v[1].path, "dir/\x1b[31m");
        assert_string_equal(d.v[1].fix, "run\n rm");
        diag_list_clear(&d);
}

/* strv_sort(): two elements are sorted too, one or none left as they are */
static void test_sort_two(void **state) {
        struct strv v = {};
        (void)state;
        strv_sort(&v);
        assert_int_equal(strv_push(&v, "b"), 0);
        strv_sort(&v);
        assert_string_equal(v.v[0], "b");
        assert_int_equal(strv_push(&v, "a"), 0);
        strv_sort(&v);
        assert_string_equal(v.v[0], "a");
        assert_string_equal(v.v[1], "b");
        assert_null(v.v[2]);
        strv_clear(&v);
}

/* strf(): a formatted string, an empty one too */
static void test_strf(void **state) {
        (void)state;
        char *x = strf("%s", "");
        assert_non_null(x);
        assert_string_equal(x, "");
        free(x);
        x = strf("%d-%s", 7, "x");
        assert_string_equal(x, "7-x");
        free(x);
}

/* str_escape_fputs(): every byte through the one rule, and a stream that fails: -EIO */
static void test_escape_fputs(void **state) {
        char *buf = NULL;
        size_t len = 0;
        (void)state;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        assert_int_equal(str_escape_fputs("a\x1b[2J\x7f\\\xff", f), 0);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(buf, "a\\x1b[2J\\x7f\\\\\\xff");
        free(buf);
        /* runs of plain bytes and escapes in every order: escapes first, last, back to back */
        static const struct { const char *in, *want; } runs[] = {
                { "\x01", "\\x01" },      { "\x01" "ab", "\\x01ab" }, { "ab\x01", "ab\\x01" },
                { "\x01\x02", "\\x01\\x02" }, { "a\\b", "a\\\\b" },   { "plain", "plain" },
        };
        for (size_t i = 0; i < ELEMENTSOF(runs); i++) {
                buf = NULL;
                f = open_memstream(&buf, &len);
                assert_non_null(f);
                assert_int_equal(str_escape_fputs(runs[i].in, f), 0);
                assert_int_equal(fclose(f), 0);
                assert_string_equal(buf, runs[i].want);
                free(buf);
        }
        f = fopen("/dev/full", "we");
        assert_non_null(f);
        assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
        assert_int_equal(str_escape_fputs("abc", f), -EIO);
        assert_int_equal(str_escape_fputs("\x01", f), -EIO);          /* the escape's write fails */
        assert_int_equal(str_escape_fputs("", f), 0);
        fclose(f);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_push), cmocka_unit_test(test_consume), cmocka_unit_test(test_many), cmocka_unit_test(test_truncate),
          cmocka_unit_test(test_sort_cmp), cmocka_unit_test(test_free_array), cmocka_unit_test(test_grow),
          cmocka_unit_test(test_escape), cmocka_unit_test(test_diag_raw), cmocka_unit_test(test_escape_fputs), cmocka_unit_test(test_strf), cmocka_unit_test(test_sort_two))
