/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "strmap.h"

static void test_put_get(void **state) {
        struct strmap m = {};
        int a = 1, b = 2;
        (void)state;

        assert_null(strmap_get(&m, "x"));       /* an empty map has no table */
        assert_int_equal(strmap_put(&m, "alice", &a), 0);
        assert_int_equal(strmap_put(&m, "bob", &b), 0);
        assert_int_equal(m.n, 2);
        assert_ptr_equal(strmap_get(&m, "alice"), &a);
        assert_ptr_equal(strmap_get(&m, "bob"), &b);
        assert_null(strmap_get(&m, "carol"));
        assert_null(strmap_get(&m, "Alice"));
        assert_null(strmap_get(&m, ""));
        assert_int_equal(strmap_put(&m, "", &a), 0);
        assert_ptr_equal(strmap_get(&m, ""), &a);
        strmap_clear(&m, NULL);
}

static void test_key_copied(void **state) {
        struct strmap m = {};
        char key[] = "alice";
        int a = 1;
        (void)state;

        assert_int_equal(strmap_put(&m, key, &a), 0);
        key[0] = 'X';
        assert_ptr_equal(strmap_get(&m, "alice"), &a);
        assert_null(strmap_get(&m, key));
        strmap_clear(&m, NULL);
}

static void test_replace(void **state) {
        struct strmap m = {};
        int a = 1, b = 2;
        (void)state;

        assert_int_equal(strmap_put(&m, "k", &a), 0);
        assert_int_equal(strmap_put(&m, "k", &b), 0);
        assert_int_equal(m.n, 1);
        assert_ptr_equal(strmap_get(&m, "k"), &b);
        assert_int_equal(strmap_put(&m, "k", NULL), 0);
        assert_int_equal(m.n, 1);
        assert_null(strmap_get(&m, "k"));
        strmap_clear(&m, NULL);
}

static void test_growth(void **state) {
        struct strmap m = {};
        enum { N = 5000 };
        static int vals[N];
        char key[32];
        (void)state;

        for (int i = 0; i < N; i++) {
                vals[i] = i;
                snprintf(key, sizeof key, "user%d", i);
                assert_int_equal(strmap_put(&m, key, &vals[i]), 0);
                /* a power of two, never more than three quarters full */
                assert_int_equal(m.cap & (m.cap - 1), 0);
                assert_true(m.n * 4 <= m.cap * 3);
        }
        assert_int_equal(m.n, N);
        for (int i = 0; i < N; i++) {
                snprintf(key, sizeof key, "user%d", i);
                int *v = strmap_get(&m, key);
                assert_non_null(v);
                assert_int_equal(*v, i);
        }
        assert_null(strmap_get(&m, "user5000"));
        strmap_clear(&m, NULL);
}

static int freed;
static void count_free(void *p) {
        freed++;
        free(p);
}

static void test_clear(void **state) {
        struct strmap m = {};
        (void)state;

        for (int i = 0; i < 40; i++) {
                char key[16];
                snprintf(key, sizeof key, "%d", i);
                assert_int_equal(strmap_put(&m, key, i % 4 ? malloc(8) : NULL), 0);
        }
        freed = 0;
        strmap_clear(&m, count_free);
        assert_int_equal(freed, 30);    /* NULL values are not freed */
        assert_int_equal(m.n, 0);
        assert_int_equal(m.cap, 0);
        assert_null(m.v);
        assert_null(strmap_get(&m, "1"));
        /* usable again after a clear */
        assert_int_equal(strmap_put(&m, "again", &freed), 0);
        assert_ptr_equal(strmap_get(&m, "again"), &freed);
        strmap_clear(&m, NULL);
}

/* Two keys with the same 64-bit FNV-1a hash (0xddb96e99126d91c5, found by a Pollard rho search
 * over 16 hex digits): the stored hash only ends a probe early, the key decides. */
static void test_same_hash(void **state) {
        struct strmap m = {};
        int a = 1, b = 2;
        (void)state;

        assert_int_equal(strmap_put(&m, "71d5b7343849854b", &a), 0);
        assert_null(strmap_get(&m, "e8da27a22e62e259"));
        assert_int_equal(strmap_put(&m, "e8da27a22e62e259", &b), 0);
        assert_int_equal(m.n, 2);
        assert_ptr_equal(strmap_get(&m, "71d5b7343849854b"), &a);
        assert_ptr_equal(strmap_get(&m, "e8da27a22e62e259"), &b);
        strmap_clear(&m, NULL);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_put_get), cmocka_unit_test(test_key_copied), cmocka_unit_test(test_replace),
          cmocka_unit_test(test_growth), cmocka_unit_test(test_clear), cmocka_unit_test(test_same_hash))
