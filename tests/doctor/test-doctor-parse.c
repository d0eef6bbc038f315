/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor's parsers: systemd limit sizes (size_parse_systemd, the one doctor uses), LimitMEMLOCK= values
 * and the docker daemon.json memlock entry. */
#include "config.h"

#include "../unit/unit.h"
#include "doctor.h"
#include "size.h"

static void expect_sd(const char *s, int r, uint64_t v) {
        unit_expect_parse(size_parse_systemd, s, r, v);
}

static void test_systemd_size(void **state) {
        expect_sd("infinity", 0, SIZE_INFINITY);
        expect_sd("8388608", 0, 8388608);   /* bytes without a unit, as systemd reads them */
        expect_sd("0", 0, 0);
        expect_sd("64K", 0, 65536);
        expect_sd("64M", 0, UINT64_C(64) << 20);
        expect_sd("1G", 0, UINT64_C(1) << 30);
        expect_sd("2T", 0, UINT64_C(2) << 40);
        expect_sd("1P", 0, UINT64_C(1) << 50);
        expect_sd("4E", 0, UINT64_C(4) << 60);
        expect_sd("16E", -ERANGE, 0);
        expect_sd("18446744073709551615", -ERANGE, 0);   /* equals infinity */
        expect_sd("18446744073709551616", -ERANGE, 0);
        expect_sd("99999999999999999999999999999999", -ERANGE, 0);
        expect_sd("", -EINVAL, 0);
        /* as systemd's parse_size(): strtoull() takes a sign and leading blanks, '-' is refused */
        expect_sd("-1", -ERANGE, 0);
        expect_sd("+1", 0, 1);
        expect_sd(" 1G", 0, UINT64_C(1) << 30);
        expect_sd("1G ", -EINVAL, 0);
        expect_sd("1.5G", 0, UINT64_C(3) << 29);
        expect_sd("1X", -EINVAL, 0);
        expect_sd("unlimited", -EINVAL, 0);   /* systemd says infinity */
        expect_sd("trout", -EINVAL, 0);
        expect_sd(NULL, -EINVAL, 0);
}

static void test_systemd_limit(void **state) {
        uint64_t s = UNIT_MARKER, h = UNIT_MARKER;
        assert_int_equal(doctor_parse_systemd_limit("64M", &s, &h), 0);
        assert_true(s == UINT64_C(64) << 20 && h == UINT64_C(64) << 20);
        assert_int_equal(doctor_parse_systemd_limit("64M:infinity", &s, &h), 0);
        assert_true(s == UINT64_C(64) << 20 && h == SIZE_INFINITY);
        assert_int_equal(doctor_parse_systemd_limit("8388608:1G", &s, &h), 0);
        assert_true(s == 8388608 && h == UINT64_C(1) << 30);
        s = h = UNIT_MARKER;
        assert_int_equal(doctor_parse_systemd_limit("1G:64M", &s, &h), -EINVAL);   /* soft above hard */
        assert_int_equal(doctor_parse_systemd_limit("1G:", &s, &h), -EINVAL);
        assert_int_equal(doctor_parse_systemd_limit(":1G", &s, &h), -EINVAL);
        assert_int_equal(doctor_parse_systemd_limit("1G:2G:3G", &s, &h), -EINVAL);
        assert_int_equal(doctor_parse_systemd_limit("", &s, &h), -EINVAL);   /* no reset: ignored */
        assert_int_equal(doctor_parse_systemd_limit("1\\:2", &s, &h), -EINVAL); /* "\:" is no separator */
        assert_int_equal(doctor_parse_systemd_limit("1G\\", &s, &h), -EINVAL);
        assert_int_equal(doctor_parse_systemd_limit("8M :1G", &s, &h), -EINVAL);
        assert_int_equal(doctor_parse_systemd_limit("infinity:1G", &s, &h), -EINVAL);
        assert_true(s == UNIT_MARKER && h == UNIT_MARKER);
        /* rlimit_parse() (checked against systemd 252): parse_size() on each side of the ':', a
         * backslash taking the next byte, an empty third word */
        assert_int_equal(doctor_parse_systemd_limit("8M:1.5G", &s, &h), 0);
        assert_true(s == UINT64_C(8) << 20 && h == UINT64_C(3) << 29);
        assert_int_equal(doctor_parse_systemd_limit("512 M:1G 512M", &s, &h), 0);
        assert_true(s == UINT64_C(512) << 20 && h == UINT64_C(1610612736));
        assert_int_equal(doctor_parse_systemd_limit("8M: 1G", &s, &h), 0);
        assert_true(s == UINT64_C(8) << 20 && h == UINT64_C(1) << 30);
        assert_int_equal(doctor_parse_systemd_limit("1G:2G:", &s, &h), 0);
        assert_true(s == UINT64_C(1) << 30 && h == UINT64_C(2) << 30);
        assert_int_equal(doctor_parse_systemd_limit("6\\4M", &s, &h), 0);
        assert_true(s == UINT64_C(64) << 20 && h == UINT64_C(64) << 20);
        assert_int_equal(doctor_parse_systemd_limit("1G:infinity", &s, &h), 0);
        assert_true(s == UINT64_C(1) << 30 && h == SIZE_INFINITY);
}

static void expect_docker(const char *json, int r, uint64_t soft, uint64_t hard) {
        uint64_t s = UNIT_MARKER, h = UNIT_MARKER;
        assert_int_equal(doctor_docker_memlock(json, &s, &h), r);
        if (r == 1) {
                assert_true(s == soft);
                assert_true(h == hard);
        } else
                assert_true(s == UNIT_MARKER && h == UNIT_MARKER);
}

static void test_docker(void **state) {
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Name\": \"memlock\", \"Hard\": 67108864, \"Soft\": 1024}}}",
                      1, 1024, 67108864);
        expect_docker("{\"default-ulimits\":{\"memlock\":{\"Name\":\"memlock\",\"Hard\":-1,\"Soft\":-1}}}", 1,
                      SIZE_INFINITY, SIZE_INFINITY);
        /* Go's decoder matches keys without regard to case; a missing value is 0 */
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"name\": \"memlock\", \"hard\": 4096}}}", 1, 0, 4096);
        /* memlock elsewhere, or default-ulimits nested somewhere else, does not count */
        expect_docker("{\"log-opts\": {\"memlock\": {\"Hard\": 1, \"Soft\": 1}}, \"default-ulimits\": {}}", 0, 0, 0);
        expect_docker("{\"x\": {\"default-ulimits\": {\"memlock\": {\"Hard\": 1, \"Soft\": 1}}}}", 0, 0, 0);
        expect_docker("{\"x\": \"\\\"default-ulimits\\\": {\", \"y\": 1}", 0, 0, 0);
        expect_docker("{\"default-ulimits\": {\"nofile\": {\"Name\": \"nofile\", \"Hard\": 1, \"Soft\": 1}, "
                      "\"memlock\": {\"Soft\": 10, \"Hard\": 20}}}",
                      1, 10, 20);
        expect_docker("{}", 0, 0, 0);
        expect_docker("", 0, 0, 0);
        expect_docker("not json", 0, 0, 0);
        expect_docker(NULL, 0, 0, 0);
        expect_docker("{\"default-ulimits\": {\"memlock\": 5}}", -EINVAL, 0, 0);
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Hard\": \"lots\", \"Soft\": 1}}}", -EINVAL, 0, 0);
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Hard\": -2, \"Soft\": 1}}}", -EINVAL, 0, 0);
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Hard\": 1.5, \"Soft\": 1}}}", -EINVAL, 0, 0);
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Hard\": 99999999999999999999999, \"Soft\": 1}}}",
                      -EINVAL, 0, 0);
        /* truncated files never read past the end */
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Hard\": 1", 1, 0, 1);
        expect_docker("{\"default-ulimits\": {\"memlock\": {\"Ha", 1, 0, 0);
        expect_docker("{\"default-ulimits\": {\"mem", 0, 0, 0);
        expect_docker("{\"default-ulimits\"", 0, 0, 0);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_systemd_size), cmocka_unit_test(test_systemd_limit),
          cmocka_unit_test(test_docker))
