/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "size.h"

static void expect_size(const char *s, int r, uint64_t v) {
        unit_expect_parse(size_parse, s, r, v);
}

static void test_size_units(void **state) {
        expect_size("1G", 0, UINT64_C(1) << 30);
        expect_size("1g", 0, UINT64_C(1) << 30);
        expect_size("1GiB", 0, UINT64_C(1) << 30);
        expect_size("64K", 0, 65536);
        expect_size("64KiB", 0, 65536);
        expect_size("8M", 0, 8388608);
        expect_size("2T", 0, UINT64_C(2) << 40);
        expect_size("4096B", 0, 4096);
        expect_size("unlimited", 0, SIZE_INFINITY);
        expect_size("infinity", 0, SIZE_INFINITY);
        expect_size("0", 0, 0);
        expect_size("0K", 0, 0);
}

static void test_size_refused(void **state) {
        expect_size("", -EINVAL, 0);
        expect_size("-1", -EINVAL, 0);
        expect_size("+1G", -EINVAL, 0);
        expect_size("1Q", -EINVAL, 0);
        expect_size("1 G", -EINVAL, 0);
        expect_size(" 1G", -EINVAL, 0);
        expect_size("1G ", -EINVAL, 0);
        expect_size("0x10", -EINVAL, 0);
        expect_size("1.5G", -EINVAL, 0);
        expect_size("G", -EINVAL, 0);
        expect_size("1KB", -EINVAL, 0);
        expect_size("trout", -EINVAL, 0);
        expect_size("Unlimited", -EINVAL, 0);
        /* no string at all: refused, *ret untouched */
        uint64_t v = 42;
        assert_int_equal(size_parse(NULL, &v), -EINVAL);
        assert_true(v == 42);
        /* a bare number: the unit hint */
        expect_size("1048576", -EDOM, 0);
        expect_size("64", -EDOM, 0);
        assert_non_null(strstr(size_hint(-EDOM), "KiB"));
}

static void test_size_limits(void **state) {
        /* the largest value with a unit, and one past it */
        expect_size("16777215T", 0, UINT64_C(16777215) << 40);
        expect_size("16777216T", -ERANGE, 0);
        expect_size("18446744073709551614B", 0, UINT64_MAX - 1);
        expect_size("18446744073709551615B", -ERANGE, 0); /* == RLIM_INFINITY: say unlimited */
        expect_size("18446744073709551616B", -ERANGE, 0);
        expect_size("99999999999999999999999G", -ERANGE, 0);
        expect_size("17179869183G", 0, UINT64_C(17179869183) << 30);
        expect_size("17179869184G", -ERANGE, 0);
}

static void test_parse_u64(void **state) {
        uint64_t v = UNIT_MARKER;
        uint32_t w = 7;
        assert_int_equal(parse_u64("0", &v), 0);
        assert_true(v == 0);
        assert_int_equal(parse_u64("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
        v = UNIT_MARKER;
        assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("", &v), -EINVAL);
        assert_int_equal(parse_u64("10abc", &v), -EINVAL);
        assert_int_equal(parse_u64(" 1", &v), -EINVAL);
        assert_int_equal(parse_u64("+1", &v), -EINVAL);
        assert_true(v == UNIT_MARKER);
        assert_int_equal(parse_u32("4294967295", &w), 0);
        assert_true(w == UINT32_MAX);
        assert_int_equal(parse_u32("4294967296", &w), -ERANGE);
        assert_int_equal(parse_u32("2147483647", &w), 0);
        assert_true(w == INT32_MAX);
        assert_int_equal(parse_u32("trout", &w), -EINVAL);
}

static void test_format(void **state) {
        char b[SIZE_FMT_MAX];
        assert_string_equal(size_format(UINT64_C(1) << 30, b), "1 GiB");
        assert_string_equal(size_format(65536, b), "64 KiB");
        assert_string_equal(size_format(4097, b), "4097 B");
        assert_string_equal(size_format(0, b), "0 B");
        assert_string_equal(size_format(UINT64_C(1536) << 20, b), "1536 MiB");
        assert_string_equal(size_format(SIZE_INFINITY, b), "unlimited");
        assert_string_equal(size_format_arg(UINT64_C(1) << 30, b), "1G");
        assert_string_equal(size_format_arg(4097, b), "4097B");
        assert_string_equal(size_format_arg(0, b), "0");
        /* round trip */
        uint64_t vals[] = { 1024, 4096, 65536, UINT64_C(3) << 30, UINT64_C(5) << 40, 12345, SIZE_INFINITY };
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
                uint64_t back;
                assert_int_equal(size_parse(size_format_arg(vals[i], b), &back), 0);
                assert_true(back == vals[i]);
        }
}

/* The C library emulation must agree with the C library. */
static void test_c_strto(void **state) {
        const char *cases[] = { "0", "1024", "-1", "-2", "+5", "  42", "\t7x", "1024abc", "64M", "abc", "",
                                "-", "+", "18446744073709551615", "18446744073709551616",
                                "99999999999999999999999", "-18446744073709551615", "-18446744073709551616",
                                "0x10", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                "-9223372036854775809", "-9223372036854775807", "-9223372036854775806",
                                "\v\f\r 12" };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const char *s = cases[i], *end;
                char *lend;
                bool erange;

                errno = 0;
                unsigned long long a = strtoull(s, &lend, 10);
                int e = errno;
                erange = e != ERANGE;   /* the opposite: each call must write it */
                unsigned long long b = c_strtoull(s, &end, &erange);
                assert_true(a == b);
                assert_ptr_equal(lend, end);
                assert_int_equal(e == ERANGE, erange);

                errno = 0;
                unsigned long ua = strtoul(s, &lend, 10);
                e = errno;
                erange = e != ERANGE;
                unsigned long ub = c_strtoul(s, &end, &erange);
                assert_true(ua == ub);
                assert_ptr_equal(lend, end);
                assert_int_equal(e == ERANGE, erange);

                errno = 0;
                long la = strtol(s, &lend, 10);
                e = errno;
                erange = e != ERANGE;
                long lb = c_strtol(s, &end, &erange);
                assert_true(la == lb);
                assert_ptr_equal(lend, end);
                assert_int_equal(e == ERANGE, erange);
                /* without a place for the overflow: the same value */
                assert_true(c_strtoull(s, NULL, NULL) == b);
                assert_true(c_strtoul(s, NULL, NULL) == ub);
                assert_true(c_strtol(s, NULL, NULL) == lb);
        }
}

/* systemd's sizes (LimitMEMLOCK=): "infinity", a unit suffix, nothing */
static void test_size_parse_systemd(void **state) {
        (void)state;
        unit_expect_parse(size_parse_systemd, "infinity", 0, SIZE_INFINITY);
        unit_expect_parse(size_parse_systemd, "64K", 0, 64 * 1024);
        unit_expect_parse(size_parse_systemd, "1G", 0, UINT64_C(1) << 30);
        unit_expect_parse(size_parse_systemd, "infinityx", -EINVAL, 0);
        /* every suffix systemd knows, and none other (a suffix not in the table is refused) */
        unit_expect_parse(size_parse_systemd, "3", 0, 3);
        unit_expect_parse(size_parse_systemd, "3B", 0, 3);
        unit_expect_parse(size_parse_systemd, "2T", 0, UINT64_C(2) << 40);
        unit_expect_parse(size_parse_systemd, "2P", 0, UINT64_C(2) << 50);
        unit_expect_parse(size_parse_systemd, "2E", 0, UINT64_C(2) << 60);
        unit_expect_parse(size_parse_systemd, "16E", -ERANGE, 0);
        unit_expect_parse(size_parse_systemd, "64X", -EINVAL, 0);
        unit_expect_parse(size_parse_systemd, "64KiB", -EINVAL, 0);
        unit_expect_parse(size_parse_systemd, "64k", -EINVAL, 0);
        uint64_t v = UNIT_MARKER;
        assert_int_equal(size_parse_systemd(NULL, &v), -EINVAL);
        assert_true(v == UNIT_MARKER);
}

/* what systemd's parse_size(s, 1024) and rlimit_parse_size() answer (each row checked against
 * rlimit_parse(RLIMIT_MEMLOCK) of systemd 252's libsystemd-shared): fractions, blanks before a
 * number and before its suffix, several numbers added, each suffix smaller than the last */
static void test_size_parse_systemd_parse_size(void **state) {
        static const struct {
                const char *s;
                int r;
                uint64_t v;
        } t[] = {
                { "1.5G", 0, UINT64_C(1610612736) },
                { "512 M", 0, UINT64_C(536870912) },
                { "1G 512M", 0, UINT64_C(1610612736) },
                { " 1G", 0, UINT64_C(1073741824) },
                { "1G ", -EINVAL, 0 },                  /* a blank after a suffix: another number expected */
                { "+1", 0, 1 },
                { "-1", -ERANGE, 0 },
                { "-0", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { "1.", 0, 1 },
                { "10.M", 0, UINT64_C(10485760) },
                { ".5G", -EINVAL, 0 },
                { "1M 1G", -EINVAL, 0 },                /* a larger suffix after a smaller one */
                { "1 2", -EINVAL, 0 },
                { "1K 2", 0, 1026 },
                { "1 B", 0, 1 },
                { "1KB", -EINVAL, 0 },
                { "1g", -EINVAL, 0 },
                { "15E", 0, UINT64_C(17293822569102704640) },
                { "16E", -ERANGE, 0 },
                { "1.5E", 0, UINT64_C(1729382256910270464) },
                { "15.9999E", -ERANGE, 0 },
                { "18446744073709551614", 0, UINT64_C(18446744073709551614) },
                { "18446744073709551615", -ERANGE, 0 },  /* RLIM_INFINITY: only by its name */
                { "0.1K", 0, 102 },                     /* a fraction's bytes truncated */
                { "1.0000000001G", 0, UINT64_C(1073741824) },
                { "1.123456789012345678901G", -ERANGE, 0 }, /* the fraction's digits overflow */
                { "1.99999999999999999999G", -ERANGE, 0 },
                { "3.3", 0, 3 },
                { "0.5", 0, 0 },
                { "1.5B", 0, 1 },
                { " infinity", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "\v-0", 0, 0 },                       /* strtoull() skips a \v, parse_size() does not see the '-' */
        };
        (void)state;
        for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
                uint64_t got = UNIT_MARKER;
                int r = size_parse_systemd(t[i].s, &got);
                if (r != t[i].r || (r == 0 && got != t[i].v) || (r < 0 && got != UNIT_MARKER))
                        fail_msg("size_parse_systemd(\"%s\"): %d %llu, expected %d %llu", t[i].s, r,
                                 (unsigned long long)got, t[i].r, (unsigned long long)t[i].v);
        }
}

/* the largest unit is T: a PiB and above are counted in it */
static void test_format_top_unit(void **state) {
        char buf[SIZE_FMT_MAX];
        (void)state;
        assert_string_equal(size_format(UINT64_C(1) << 40, buf), "1 TiB");
        assert_string_equal(size_format(UINT64_C(1) << 50, buf), "1024 TiB");
        assert_string_equal(size_format(UINT64_C(3) << 60, buf), "3145728 TiB");
        assert_string_equal(size_format_systemd(UINT64_C(1) << 50, buf), "1024T");
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_size_parse_systemd), cmocka_unit_test(test_size_parse_systemd_parse_size),
          cmocka_unit_test(test_size_units), cmocka_unit_test(test_size_refused),
          cmocka_unit_test(test_size_limits), cmocka_unit_test(test_parse_u64),
          cmocka_unit_test(test_format), cmocka_unit_test(test_c_strto), cmocka_unit_test(test_format_top_unit))
