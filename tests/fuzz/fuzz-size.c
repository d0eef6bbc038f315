/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: lib/base/size.c.
 *  - c_strtoull()/c_strtoul()/c_strtol() against the C library's strtoull()/strtoul()/strtol()
 *    in base 10 (value, end pointer, ERANGE): they model how pam_limits reads its files;
 *  - size_parse(): strict (no sign, no blank, no junk), and size_format_arg() of the result
 *    reads back as the same value; size_format() never overflows its buffer;
 *  - parse_u64()/parse_u32(): strict subsets of strtoull().
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"

#define CHECK(cond)                                                                        \
        do {                                                                               \
                if (!(cond)) {                                                             \
                        fprintf(stderr, "%s:%d: check failed: %s (input \"%s\")\n", __FILE__, \
                                __LINE__, #cond, s);                                       \
                        abort();                                                           \
                }                                                                          \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s;
        const char *cend;
        char *lend;
        bool erange;

        if (size > 4096)
                return 0;
        s = malloc(size + 1);
        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';

        /* c_strtoull vs strtoull */
        errno = 0;
        unsigned long long lv = strtoull(s, &lend, 10);
        bool lerange = errno == ERANGE;
        unsigned long long cv = c_strtoull(s, &cend, &erange);
        CHECK(cv == lv);
        CHECK(cend == lend);
        CHECK(erange == lerange);

        /* c_strtoul vs strtoul */
        errno = 0;
        unsigned long lu = strtoul(s, &lend, 10);
        lerange = errno == ERANGE;
        unsigned long cu = c_strtoul(s, &cend, &erange);
        CHECK(cu == lu);
        CHECK(cend == lend);
        CHECK(erange == lerange);

        /* c_strtol vs strtol */
        errno = 0;
        long ll = strtol(s, &lend, 10);
        lerange = errno == ERANGE;
        long cl = c_strtol(s, &cend, &erange);
        CHECK(cl == ll);
        CHECK(cend == lend);
        CHECK(erange == lerange);

        /* NULL out-parameters are allowed */
        (void)c_strtoull(s, NULL, NULL);
        (void)c_strtol(s, NULL, NULL);

        /* size_parse: strict */
        uint64_t v = 0xdeadbeefdeadbeefULL, keep = v;
        int r = size_parse(s, &v);
        CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -EDOM);
        CHECK(size_hint(r) != NULL);
        if (r < 0)
                CHECK(v == keep); /* untouched on error */
        if (r == 0) {
                char buf[SIZE_FMT_MAX], buf2[SIZE_FMT_MAX];
                uint64_t back = 0;

                if (v == SIZE_INFINITY)
                        CHECK(strcmp(s, "unlimited") == 0 || strcmp(s, "infinity") == 0);
                else {
                        CHECK(isdigit((unsigned char)s[0]));
                        /* whatever strtoull makes of the digits, size_parse agrees on them */
                        errno = 0;
                        unsigned long long digits = strtoull(s, &lend, 10);
                        CHECK(errno == 0);
                        size_t ul = strlen(lend);
                        CHECK(ul <= 3);
                        unsigned sh = 0;
                        if (ul) {
                                char u = (char)toupper((unsigned char)lend[0]);
                                sh = u == 'B' ? 0 : u == 'K' ? 10 : u == 'M' ? 20 : u == 'G' ? 30 : u == 'T' ? 40 : 99;
                                CHECK(sh != 99);
                                if (ul > 1)
                                        CHECK(sh != 0 && strcasecmp(lend + 1, "iB") == 0);
                        } else
                                CHECK(digits == 0);
                        CHECK(digits <= (UINT64_MAX >> sh));
                        CHECK((uint64_t)digits << sh == v);
                }
                size_format_arg(v, buf);
                CHECK(strlen(buf) < SIZE_FMT_MAX);
                CHECK(size_parse(buf, &back) == 0);
                CHECK(back == v);
                size_format(v, buf2);
                CHECK(strlen(buf2) < SIZE_FMT_MAX);
        } else if (r == -EDOM) {
                /* a bare number that is not 0 */
                for (const char *p = s; *p; p++)
                        CHECK(isdigit((unsigned char)*p));
        }

        /* parse_u64: digits only, same value as strtoull */
        uint64_t u64 = 7;
        r = parse_u64(s, &u64);
        if (r == 0) {
                CHECK(s[0] != '\0');
                for (const char *p = s; *p; p++)
                        CHECK(isdigit((unsigned char)*p));
                errno = 0;
                CHECK(strtoull(s, &lend, 10) == u64 && errno == 0 && *lend == '\0');
        } else {
                CHECK(u64 == 7);
                CHECK(r == -EINVAL || r == -ERANGE);
        }
        uint32_t u32 = 7;
        r = parse_u32(s, &u32);
        if (r == 0)
                CHECK(parse_u64(s, &u64) == 0 && u64 == u32);
        else
                CHECK(u32 == 7);

        free(s);
        return 0;
}
