/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "dropin.h"
#include "limitsconf.h"


/* Does the drop-in hold an entry of domain? */
static bool has_domain(const struct dropin *d, const char *domain) {
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->v[i].domain, domain) == 0)
                        return true;
        return false;
}

static void test_domains(void **state) {
        const char *why;
        const char *good[] = { "alice", "@rdma_users", "*", "@:1000", "@1000:2000", "@1000:", "1000:2000",
                               ":0", "1000:", "svc$", "a.b-c_d" };
        const char *bad[] = { "", "al ice", "al\tice", "a#b", "a/b", "%", "%rdma", "@", "@:", ":", "1:2:3",
                              "2000:1000", "a:b", "-alice", "al$ice", "4294967296:", "\x01x", "é" };
        for (size_t i = 0; i < sizeof good / sizeof *good; i++)
                assert_int_equal(dropin_check_domain(good[i], &why), 0);
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                why = NULL;
                assert_int_equal(dropin_check_domain(bad[i], &why), -EINVAL);
                assert_non_null(why);
        }
        char longname[5001];
        memset(longname, 'a', 5000);
        longname[5000] = '\0';
        assert_int_equal(dropin_check_domain(longname, &why), -EINVAL);
}

static void test_names(void **state) {
        const char *why;
        assert_int_equal(dropin_check_name("90-rdmalimits.conf", &why), 0);
        assert_int_equal(dropin_check_name("x.conf", &why), 0);
        assert_int_equal(dropin_check_name(".x.conf", &why), -EINVAL);
        assert_int_equal(dropin_check_name("x.cfg", &why), -EINVAL);
        assert_int_equal(dropin_check_name("../x.conf", &why), -EINVAL);
        assert_int_equal(dropin_check_name("a/x.conf", &why), -EINVAL);
        assert_int_equal(dropin_check_name(".conf", &why), -EINVAL);
        assert_int_equal(dropin_check_name("", &why), -EINVAL);
        assert_int_equal(dropin_check_name("a b.conf", &why), -EINVAL);
}

static void test_bytes(void **state) {
        const char *why;
        assert_int_equal(dropin_check_bytes(1024, &why), 0);
        assert_int_equal(dropin_check_bytes(UINT64_MAX, &why), 0);
        assert_int_equal(dropin_check_bytes(0, &why), -EINVAL);
        assert_int_equal(dropin_check_bytes(1000, &why), -EINVAL);
}

static void test_roundtrip(void **state) {
        struct dropin d = {};
        assert_int_equal(dropin_set(&d, "@rdma", LC_SOFT, UINT64_C(1) << 30), 0);
        assert_int_equal(dropin_set(&d, "@rdma", LC_HARD, UINT64_C(2) << 30), 0);
        assert_int_equal(dropin_set(&d, "alice", LC_HARD, UINT64_MAX), 0);
        assert_int_equal(dropin_set(&d, "alice", LC_SOFT, 4096), 0);  /* soft goes before hard */
        assert_int_equal(dropin_set(&d, "@rdma", LC_SOFT, UINT64_C(3) << 20), 0); /* replaced in place */
        char *text = dropin_render(&d);
        assert_non_null(text);
        assert_true(dropin_has_marker(text, strlen(text)));
        assert_string_equal(text, DROPIN_MARKER "\n" DROPIN_HEADER2 "\n"
                                  "@rdma\tsoft\tmemlock\t3072\n"
                                  "@rdma\thard\tmemlock\t2097152\n"
                                  "alice\tsoft\tmemlock\t4\n"
                                  "alice\thard\tmemlock\tunlimited\n");
        struct dropin back = {};
        assert_int_equal(dropin_parse(text, strlen(text), "x", &back, NULL), 0);
        assert_int_equal(back.n, d.n);
        for (size_t i = 0; i < d.n; i++) {
                assert_string_equal(back.v[i].domain, d.v[i].domain);
                assert_int_equal(back.v[i].type, d.v[i].type);
                assert_true(back.v[i].bytes == d.v[i].bytes);
        }
        /* pam_limits reads it the same way */
        struct lc_tree *t;
        assert_int_equal(lc_tree_load_text("x", text, strlen(text), LC_FLAVOUR_DEBIAN, &t), 0);
        assert_int_equal(t->n_lines, 4);
        for (size_t i = 0; i < 4; i++) {
                assert_true(t->lines[i].bytes == d.v[i].bytes);
                assert_int_equal(t->lines[i].type_mask, d.v[i].type);
                assert_int_equal(t->lines[i].lineno, i + 3);
        }
        lc_tree_free(t);
        assert_int_equal(dropin_remove(&d, "@rdma"), 2);
        assert_int_equal(dropin_remove(&d, "@rdma"), 0);
        assert_false(has_domain(&d, "@rdma"));
        assert_true(has_domain(&d, "alice"));
        free(text);
        dropin_clear(&d);
        dropin_clear(&back);
}

static void test_parse_refuses(void **state) {
        struct dropin d = {};
        struct diag_list diags = {};
        const char *text = DROPIN_MARKER "\nalice soft nofile 10\n@x hard memlock 12\nbob - memlock 5\n";
        assert_int_equal(dropin_parse(text, strlen(text), "f.conf", &d, &diags), -EBADMSG);
        assert_int_equal(diags.n, 2);
        assert_int_equal(diags.v[0].line, 2);
        assert_int_equal(diags.v[1].line, 4);
        diag_list_clear(&diags);
        assert_false(dropin_has_marker("# hand written\n", 16));
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_domains), cmocka_unit_test(test_names), cmocka_unit_test(test_bytes),
          cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_parse_refuses))
