/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/policy: loading, every error class with its line, evaluation, bounded input. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


#include "unit.h"
#include "cfgparse.h"
#include "diag.h"
#include "fsutil.h"
#include "hw.h"
#include "macro.h"
#include "policy.h"
#include "size.h"
#include "../fault/fault.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)

#define PATH "test.conf"
/* A marker: an output parameter must keep it after a failure. */
#define MARKER ((struct policy *)(uintptr_t)0x5ca1ab1e)

struct expect {
        unsigned line;
        const char *substr;     /* part of the message */
};

static void dump_diags(const struct diag_list *d) {
        for (size_t i = 0; i < d->n; i++)
                print_message("# %s:%u: %s: %s\n", d->v[i].path ? d->v[i].path : "-",
                              d->v[i].line, diag_severity_name(d->v[i].severity),
                              d->v[i].message);
}

/* Load text and compare the errors, in order, with e[0..n). */
static void check_errors(const char *text, int expected_r, const struct expect *e, size_t n) {
        struct diag_list d = {};
        struct policy *p = MARKER;
        size_t k = 0;
        int r;

        r = policy_load_string(text, strlen(text), PATH, &p, &d);
        if (r != expected_r || diag_count(&d, DIAG_ERROR) != n)
                dump_diags(&d);
        assert_int_equal(r, expected_r);
        assert_int_equal(diag_count(&d, DIAG_ERROR), n);
        for (size_t i = 0; i < d.n; i++) {
                if (d.v[i].severity != DIAG_ERROR)
                        continue;
                assert_non_null(d.v[i].path);
                assert_string_equal(d.v[i].path, PATH);
                if (d.v[i].line != e[k].line || !strstr(d.v[i].message, e[k].substr)) {
                        dump_diags(&d);
                        print_message("# expected line %u \"%s\"\n", e[k].line, e[k].substr);
                }
                assert_int_equal(d.v[i].line, e[k].line);
                assert_non_null(strstr(d.v[i].message, e[k].substr));
                k++;
        }
        if (expected_r < 0)
                assert_ptr_equal(p, MARKER);
        else
                policy_free(p);
        diag_list_clear(&d);
}

#define CHECK_ERRORS(text, ...)                                                         \
        do {                                                                            \
                static const struct expect _e[] = { __VA_ARGS__ };                      \
                check_errors((text), -EINVAL, _e, ELEMENTSOF(_e));                       \
        } while (0)

static struct policy *load_ok(const char *text) {
        struct diag_list d = {};
        struct policy *p = NULL;
        int r;

        r = policy_load_string(text, strlen(text), PATH, &p, &d);
        if (r != 0 || diag_count(&d, DIAG_ERROR) != 0)
                dump_diags(&d);
        assert_int_equal(r, 0);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 0);
        assert_non_null(p);
        diag_list_clear(&d);
        return p;
}

/* ---------------------------------------------------------------------------------------- */
/* Good files */

static void test_good_full(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"                                                  /* 1 */
                "lower = true;\n"                                                 /* 2 */
                "hardware = {\n"                                                  /* 3 */
                "  rdma_port = \"2G\";\n"                                         /* 4 */
                "  xsk_queue = \"8MiB\";\n"                                       /* 5 */
                "  xsk_copy_queue = \"0\";\n"                                     /* 6 */
                "  base = \"32M\";\n"                                             /* 7 */
                "  ram_share = 0.25;\n"                                           /* 8 */
                "  fallback = \"8M\";\n"                                          /* 9 */
                "};\n"                                                            /* 10 */
                "rules = (\n"                                                     /* 11 */
                "  { group = \"rdma_users\"; memlock = \"auto\"; },\n"            /* 12 */
                "  { group = \"spdk\";       memlock = \"auto\"; minimum = \"1G\"; },\n" /* 13 */
                "  {\n"                                                           /* 14 */
                "    user  = \"alice\";\n"                                        /* 15 */
                "    memlock = \"4G\"; hard = \"8G\"; maximum = \"16G\";\n"       /* 16 */
                "  },\n"                                                          /* 17 */
                "  { user = \"bob\"; memlock = \"unlimited\"; hard = \"auto\"; }\n" /* 18 */
                ");\n");

        assert_string_equal(p->path, PATH);
        assert_int_equal(p->version, 1);
        assert_true(p->lower);
        assert_int_equal(p->hw.rdma_port, 2 * GiB);
        assert_int_equal(p->hw.xsk_queue, 8 * MiB);
        assert_int_equal(p->hw.xsk_copy_queue, 0);
        assert_int_equal(p->hw.base, 32 * MiB);
        assert_true(p->hw.ram_share == 0.25);
        assert_int_equal(p->hw.fallback.kind, PV_SIZE);
        assert_int_equal(p->hw.fallback.bytes, 8 * MiB);

        assert_int_equal(p->n_rules, 4);
        assert_string_equal(p->rules[0].group, "rdma_users");
        assert_null(p->rules[0].user);
        assert_int_equal(p->rules[0].memlock.kind, PV_AUTO);
        assert_int_equal(p->rules[0].hard.kind, PV_NONE);
        assert_int_equal(p->rules[0].line, 12);

        assert_string_equal(p->rules[1].group, "spdk");
        assert_int_equal(p->rules[1].minimum.kind, PV_SIZE);
        assert_int_equal(p->rules[1].minimum.bytes, GiB);
        assert_int_equal(p->rules[1].maximum.kind, PV_NONE);
        assert_int_equal(p->rules[1].line, 13);

        assert_string_equal(p->rules[2].user, "alice");
        assert_null(p->rules[2].group);
        assert_int_equal(p->rules[2].memlock.kind, PV_SIZE);
        assert_int_equal(p->rules[2].memlock.bytes, 4 * GiB);
        assert_int_equal(p->rules[2].hard.bytes, 8 * GiB);
        assert_int_equal(p->rules[2].maximum.bytes, 16 * GiB);
        assert_int_equal(p->rules[2].line, 14);

        assert_int_equal(p->rules[3].memlock.kind, PV_SIZE);
        assert_int_equal(p->rules[3].memlock.bytes, SIZE_INFINITY);
        assert_int_equal(p->rules[3].hard.kind, PV_AUTO);
        policy_free(p);
}

static void test_good_patterns(void **state) {
        struct policy *p = load_ok("version = 1;\nhardware = { include = [ \"veth*\", \"br-[0-9]\" ]; "
                                   "exclude = ( \"eno3\" ); };\nrules = ();\n");

        assert_non_null(p->hw.sel.include);
        assert_string_equal(p->hw.sel.include[0], "veth*");
        assert_string_equal(p->hw.sel.include[1], "br-[0-9]");
        assert_null(p->hw.sel.include[2]);
        assert_string_equal(p->hw.sel.exclude[0], "eno3");
        assert_null(p->hw.sel.exclude[1]);
        assert_true(hw_netsel_counts(&p->hw.sel, "veth12", false));
        assert_true(hw_netsel_counts(&p->hw.sel, "br-3", false));
        assert_false(hw_netsel_counts(&p->hw.sel, "br-x", false));
        assert_false(hw_netsel_counts(&p->hw.sel, "eno3", true));
        assert_true(hw_netsel_counts(&p->hw.sel, "eno1", true));
        assert_false(hw_netsel_counts(&p->hw.sel, "docker0", false));
        policy_free(p);
}

static void test_good_defaults(void **state) {
        struct policy *p = load_ok("version = 1;\nrules = ();\n");

        assert_false(p->lower);
        assert_int_equal(p->hw.rdma_port, GiB);
        assert_int_equal(p->hw.xsk_queue, 16 * MiB);
        /* a copy-mode UMEM is charged like a zero-copy one */
        assert_int_equal(p->hw.xsk_copy_queue, 16 * MiB);
        assert_int_equal(p->hw.base, 64 * MiB);
        assert_true(p->hw.ram_share == 0.5);
        assert_int_equal(p->hw.fallback.kind, PV_NONE);
        assert_null(p->hw.sel.include);
        assert_null(p->hw.sel.exclude);
        assert_int_equal(p->n_rules, 0);
        policy_free(p);

        /* comments of every kind, an int ram_share of 1, version as a 64-bit integer */
        p = load_ok("// c++\n/* block\n ( ( ( ( ( */ version = 1L; # hash\n"
                    "hardware = { ram_share = 1; base = \"0\"; };\nrules = ();\n");
        assert_true(p->hw.ram_share == 1.0);
        assert_int_equal(p->hw.base, 0);
        policy_free(p);
}

static void test_no_rules_warns(void **state) {
        struct diag_list d = {};
        struct policy *p = NULL;

        assert_int_equal(policy_load_string("version = 1;\n", 13, PATH, &p, &d), 0);
        assert_non_null(p);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 0);
        assert_int_equal(diag_count(&d, DIAG_WARNING), 1);
        assert_non_null(strstr(d.v[0].message, "no rules"));
        policy_free(p);
        diag_list_clear(&d);

        /* the empty file: version is missing */
        p = MARKER;
        assert_int_equal(policy_load_string("", 0, PATH, &p, &d), -EINVAL);
        assert_ptr_equal(p, MARKER);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
        diag_list_clear(&d);
        /* no text at all is the empty file (nothing is copied from NULL) */
        assert_int_equal(policy_load_string(NULL, 0, PATH, &p, &d), -EINVAL);
        assert_ptr_equal(p, MARKER);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
        assert_non_null(strstr(d.v[0].message, "version"));
        diag_list_clear(&d);

        /* a NULL diag list is fine */
        p = MARKER;
        assert_int_equal(policy_load_string("version = 2;", 12, NULL, &p, NULL), -EINVAL);
        assert_ptr_equal(p, MARKER);
}

static void test_duplicate_rules_warn(void **state) {
        struct diag_list d = {};
        struct policy *p = NULL;
        const char *text =
                "version = 1;\n"
                "rules = (\n"
                "  { user = \"alice\"; memlock = \"1G\"; },\n"      /* 3 */
                "  { group = \"alice\"; memlock = \"1G\"; },\n"     /* 4: not the same */
                "  { group = \"g\"; memlock = \"1G\"; },\n"         /* 5 */
                "  { user = \"alice\"; memlock = \"2G\"; },\n"      /* 6 */
                "  { group = \"g\"; memlock = \"2G\"; }\n"          /* 7 */
                ");\n";
        /* two rules are enough for a duplicate */
        const char *two = "version = 1;\nrules = ( { user = \"bob\"; memlock = \"1G\"; },\n"
                          "{ user = \"bob\"; memlock = \"2G\"; } );\n";

        assert_int_equal(policy_load_string(two, strlen(two), PATH, &p, &d), 0);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 0);
        assert_int_equal(diag_count(&d, DIAG_WARNING), 1);
        assert_int_equal(d.v[0].line, 3);
        assert_non_null(strstr(d.v[0].message, "line 2"));
        policy_free(p);
        diag_list_clear(&d);
        p = NULL;

        assert_int_equal(policy_load_string(text, strlen(text), PATH, &p, &d), 0);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 0);
        assert_int_equal(diag_count(&d, DIAG_WARNING), 2);
        /* sorted by kind: users first */
        assert_int_equal(d.v[0].line, 6);
        assert_non_null(strstr(d.v[0].message, "line 3"));
        assert_int_equal(d.v[1].line, 7);
        assert_non_null(strstr(d.v[1].message, "line 5"));
        policy_free(p);
        diag_list_clear(&d);
}

/* a minimum equal to the maximum, a hard limit or bounds equal to memlock: no contradiction */
static void test_minimum_is_maximum(void **state) {
        (void)state;
        struct policy *p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"auto\"; "
                                   "minimum = \"1G\"; maximum = \"1G\"; } );\n");
        policy_free(p);
        p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"1G\"; hard = \"1G\"; } );\n");
        policy_free(p);
        p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"1G\"; minimum = \"1G\"; "
                    "maximum = \"1G\"; } );\n");
        policy_free(p);
}

/* no text but a length, or nowhere to put the policy: -EINVAL */
static void test_load_string_args(void **state) {
        struct policy *p = MARKER;
        (void)state;

        assert_int_equal(policy_load_string(NULL, 5, PATH, &p, NULL), -EINVAL);
        assert_ptr_equal(p, MARKER);
        assert_int_equal(policy_load_string("version = 1; rules = ();", 24, PATH, NULL, NULL), -EINVAL);
}

/* policy_needs_hw() without a policy or without a user: false, nothing looked up */
static void test_needs_hw_nothing(void **state) {
        const char *const groups[] = { "g" };
        (void)state;
        struct policy *p = load_ok("version = 1;\nrules = ( { group = \"g\"; memlock = \"auto\"; } );\n");

        assert_true(policy_needs_hw(p, "a", groups, 1));
        assert_false(policy_needs_hw(p, NULL, groups, 1));
        assert_false(policy_needs_hw(NULL, "a", groups, 1));
        policy_free(p);
        /* policy_uses_hw(): any rule with auto (the soft value or the hard one), for anyone */
        assert_false(policy_uses_hw(NULL));
        p = load_ok("version = 1;\nrules = ();\n");
        assert_false(policy_uses_hw(p));
        policy_free(p);
        p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"1M\"; }, { group = \"g\"; memlock = \"2M\"; } );\n");
        assert_false(policy_uses_hw(p));
        policy_free(p);
        p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"1M\"; }, { group = \"g\"; memlock = \"auto\"; } );\n");
        assert_true(policy_uses_hw(p));
        policy_free(p);
        p = load_ok("version = 1;\nrules = ( { user = \"a\"; memlock = \"1M\"; hard = \"auto\"; } );\n");
        assert_true(policy_uses_hw(p));
        policy_free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Errors, each with its line */

static void test_err_version(void **state) {
        CHECK_ERRORS("rules = ();\n", { 0, "version = 1; is missing" });
        CHECK_ERRORS("rules = ();\nversion = 2;\n", { 2, "version 2 is not supported" });
        CHECK_ERRORS("\nversion = \"1\";\n", { 2, "version must be an integer, not a string" });
        CHECK_ERRORS("version = 1.0;\n", { 1, "not a float" });
}

static void test_err_top(void **state) {
        CHECK_ERRORS("version = 1;\nlower = 1;\nrules = ();\n",
                     { 2, "lower must be true or false, not an integer" });
        CHECK_ERRORS("version = 1;\nrules = ();\n\nlimit = \"1G\";\n",
                     { 4, "unknown key \"limit\"" });
        CHECK_ERRORS("version = 1;\nhardware = ( );\nrules = ();\n",
                     { 2, "hardware must be a group" });
        CHECK_ERRORS("version = 1;\nrules = { a = 1; };\n", { 2, "rules must be a list" });
        CHECK_ERRORS("version = 1;\nrules = ( 5,\n \"x\" );\n",
                     { 2, "rule 1 must be a group" }, { 3, "rule 2 must be a group" });
}

static void test_err_hardware(void **state) {
        CHECK_ERRORS("version = 1;\n"
                     "hardware = {\n"
                     "  rdma_port = 5;\n"                  /* 3: type */
                     "  xsk_queue = \"1048576\";\n"        /* 4: bare number */
                     "  xsk_copy_queue = \"-1M\";\n"       /* 5: sign */
                     "  base = \"64 M\";\n"                /* 6: junk */
                     "  ram_share = \"0.5\";\n"            /* 7: type */
                     "  fallback = \"0\";\n"               /* 8: zero */
                     "  ports = \"1G\";\n"                 /* 9: unknown */
                     "};\n"
                     "rules = ();\n",
                     { 3, "rdma_port must be a string such as \"1G\" or \"unlimited\", not an integer" },
                     { 4, "needs a unit" },
                     { 5, "xsk_copy_queue = \"-1M\"" },
                     { 6, "base = \"64 M\"" },
                     { 7, "ram_share must be a number such as 0.5, not a string" },
                     { 8, "fallback must not be 0" },
                     { 9, "unknown key \"ports\" in hardware" });

        CHECK_ERRORS("version = 1;\nhardware = { ram_share = 0.0; };\nrules = ();\n",
                     { 2, "ram_share = 0: must be above 0" });
        CHECK_ERRORS("version = 1;\nhardware = {\nram_share = 1.5; };\nrules = ();\n",
                     { 3, "ram_share = 1.5" });
        CHECK_ERRORS("version = 1;\nhardware = { ram_share = -0.5; };\nrules = ();\n",
                     { 2, "ram_share = -0.5" });
        CHECK_ERRORS("version = 1;\nhardware = { ram_share = 1e999; };\nrules = ();\n",
                     { 2, "ram_share = inf" });
        CHECK_ERRORS("version = 1;\nhardware = { fallback = \"auto\"; };\nrules = ();\n",
                     { 2, "fallback = \"auto\"" });
        CHECK_ERRORS("version = 1;\nhardware = { base = \"99999999T\"; };\nrules = ();\n",
                     { 2, "too large" });
        /* interface patterns: a list of strings that could be interface names */
        CHECK_ERRORS("version = 1;\nhardware = {\n include = \"eth*\";\n exclude = [ 1 ];\n};\nrules = ();\n",
                     { 3, "include must be a list of interface name patterns" },
                     { 4, "exclude: each pattern is a string" });
        CHECK_ERRORS("version = 1;\nhardware = { include = [ \"a b\", \"x/y\", \"\", \"ok*\" ]; };\nrules = ();\n",
                     { 2, "include = \"a b\": not an interface name pattern" },
                     { 2, "include = \"x/y\": not an interface name pattern" },
                     { 2, "include = \"\": not an interface name pattern" });
        /* the separators of a list of interfaces (a comma, a colon: eth0:1 is an alias, not an
         * interface) and bytes no name holds */
        CHECK_ERRORS("version = 1;\nhardware = { include = [ \"a,b\", \"a:b\", \"a\\x7fb\", \"\\xc3\\xa9\" ]; };\n"
                     "rules = ();\n",
                     { 2, "include = \"a,b\": not an interface name pattern" },
                     { 2, "include = \"a:b\": not an interface name pattern" },
                     { 2, "not an interface name pattern" },
                     { 2, "not an interface name pattern" });
        /* a pattern is at most 63 bytes */
        policy_free(load_ok("version = 1;\nhardware = { include = [ \"eth*-------------------------------"
                            "---------------------------9\" ]; };\nrules = ();\n"));
        CHECK_ERRORS("version = 1;\nhardware = { include = [ \"eth*-------------------------------"
                     "----------------------------9\" ]; };\nrules = ();\n",
                     { 2, "not an interface name pattern" });
        /* a group inside hardware is just an unknown key: nothing below it is read */
        CHECK_ERRORS("version = 1;\nhardware = {\n  x = { rdma_port = 5; };\n};\nrules = ();\n",
                     { 3, "unknown key \"x\" in hardware" });
}

static void test_err_rules(void **state) {
        CHECK_ERRORS("version = 1;\n"
                     "rules = (\n"
                     "  { memlock = \"1G\"; },\n"                                  /* 3 */
                     "  { user = \"a\"; group = \"b\"; memlock = \"1G\"; },\n"     /* 4 */
                     "  { user = \"a\"; },\n"                                      /* 5 */
                     "  { user = \"a\";\n"                                         /* 6 */
                     "    memlock = 5; },\n"                                       /* 7 */
                     "  { group = \"g\"; memlock = \"0\"; },\n"                    /* 8 */
                     "  { group = \"g\"; memlock = \"64\"; },\n"                   /* 9 */
                     "  { group = \"g\"; memlock = \"lots\"; },\n"                 /* 10 */
                     "  { group = \"g\"; memlock = \"4G\";\n"                      /* 11 */
                     "    hard = \"2G\"; },\n"                                     /* 12 */
                     "  { group = \"g\"; memlock = \"auto\";\n"                    /* 13 */
                     "    minimum = \"2G\"; maximum = \"1G\"; },\n"                /* 14 */
                     "  { group = \"g\"; memlock = \"512M\"; minimum = \"1G\"; },\n" /* 15 */
                     "  { group = \"g\"; memlock = \"auto\"; soft = \"1G\"; },\n"  /* 16 */
                     "  { group = \"g\"; memlock = \"auto\"; x = { y = 1; }; },\n" /* 17 */
                     "  { group = \"@rdma\"; memlock = \"1G\"; },\n"               /* 18 */
                     "  { user = \"\"; memlock = \"1G\"; },\n"                     /* 19 */
                     "  { user = 7; memlock = \"1G\"; },\n"                        /* 20 */
                     "  { group = \"g\"; memlock = \"auto\"; hard = \"0\"; },\n"   /* 21 */
                     "  { group = \"g\"; memlock = \"auto\"; maximum = \"0\"; },\n" /* 22 */
                     "  { group = \"g\"; memlock = \"unlimited\"; hard = \"1T\"; },\n" /* 23 */
                     "  { group = \"g\"; memlock = \"8G\"; maximum = \"4G\"; },\n" /* 24 */
                     "  { group = \"g\"; memlock = \"auto\"; minimum = \"5G\";\n"  /* 25 */
                     "    hard = \"4G\"; }\n"                                       /* 26 */
                     ");\n",
                     { 3, "neither a user nor a group" },
                     { 4, "both a user and a group" },
                     { 5, "no memlock" },
                     { 7, "memlock must be a string such as \"1G\", \"unlimited\" or \"auto\", not an integer" },
                     { 8, "memlock must not be 0: a memlock limit of 0 makes every RDMA memory registration fail" },
                     { 9, "a size needs a unit" },
                     { 10, "memlock = \"lots\": expected a size with a unit" },
                     { 12, "hard 2G is below memlock 4G" },
                     { 14, "minimum 2G is above maximum 1G" },
                     { 15, "memlock 512M is below minimum 1G" },
                     { 16, "unknown key \"soft\" in rule" },
                     { 17, "unknown key \"x\" in rule" },
                     { 18, "without the '@'" },
                     { 19, "not a valid user name" },
                     { 20, "user must be a string" },
                     { 21, "hard must not be 0" },
                     { 22, "maximum must not be 0" },
                     { 23, "hard 1T is below memlock unlimited" },
                     { 24, "memlock 8G is above maximum 4G" },
                     { 26, "hard 4G is below minimum 5G" });
}

static void test_err_parse(void **state) {
        /* the reader stops at a syntax error: one finding, its line, what it found */
        CHECK_ERRORS("version = 1;\nrules = (\n  { user = \"a\"; memlock = ; }\n);\n",
                     { 3, "syntax error: ';' where a value was expected" });
        /* a duplicate key is an error of the reader, naming the first one's line */
        CHECK_ERRORS("version = 1;\nhardware = {\n base = \"1M\";\n\n base = \"2M\";\n};\n",
                     { 5, "duplicate key" });
        CHECK_ERRORS("version = 1;\nversion = 1;\n", { 2, "duplicate key \"version\": a key may appear once in a group (line 1" });
        /* in a group of more settings than are searched one by one (cfgparse.c's NAMES_HASHED),
         * the first and the last are still found again */
        {
                char text[2048];
                int k = snprintf(text, sizeof text, "version = 1;\nhardware = {\n");
                for (int i = 0; i < 40; i++)
                        k += snprintf(text + k, sizeof text - (size_t)k, "  k%d = 1;\n", i);   /* lines 3..42 */
                snprintf(text + k, sizeof text - (size_t)k, "  k0 = 2;\n};\n");                  /* 43 */
                CHECK_ERRORS(text, { 43, "duplicate key \"k0\": a key may appear once in a group (line 3 has it)" });
                text[k] = '\0';
                snprintf(text + k, sizeof text - (size_t)k, "  k39 = 2;\n};\n");
                CHECK_ERRORS(text, { 43, "duplicate key \"k39\": a key may appear once in a group (line 42 has it)" });
        }
        /* what was found is named: '=' and ':' as written, a sign that starts no number */
        CHECK_ERRORS("version = 1 = 2;\n", { 1, "syntax error: '=' where a setting's name was expected" });
        CHECK_ERRORS("version = 1 : 2;\n", { 1, "syntax error: ':' where a setting's name was expected" });
        CHECK_ERRORS("version = 1;\nx = -e5;\n", { 2, "syntax error: unexpected '-'" });
        /* a bad byte right after a name: that one finding, the parse stops there */
        CHECK_ERRORS("version @ 1;\n", { 1, "syntax error: unexpected '@'" });
        /* tokens that end the text exactly (no newline, no NUL after them in the buffer) */
        {
                /* the start of an @include, cut: a syntax error, nothing read past the end (a
                 * buffer of exactly its length, for the sanitizer build) */
                static const char cut[] = "version = 1;\n@includ";
                char *exact = malloc(sizeof cut - 1);
                struct diag_list dl = {};
                struct policy *none = MARKER;
                assert_non_null(exact);
                memcpy(exact, cut, sizeof cut - 1);
                assert_int_equal(policy_load_string(exact, sizeof cut - 1, PATH, &none, &dl), -EINVAL);
                assert_ptr_equal(none, MARKER);
                assert_int_equal(diag_count(&dl, DIAG_ERROR), 1);
                assert_non_null(strstr(dl.v[0].message, "syntax error: unexpected '@'"));
                diag_list_clear(&dl);
                free(exact);
        }
        {
                static const char hex[] = "rules = ();\nversion = 0x1";
                struct policy *q = NULL;
                assert_int_equal(policy_load_string(hex, sizeof hex - 1, PATH, &q, NULL), 0);
                assert_int_equal(q->version, 1);
                policy_free(q);
                static const char ll[] = "rules = ();\nversion = 1LL";
                assert_int_equal(policy_load_string(ll, sizeof ll - 1, PATH, &q, NULL), 0);
                assert_int_equal(q->version, 1);
                policy_free(q);
        }
        /* a trailing comma in a list or an array is accepted (libconfig 1.7 does, 1.5 did not) */
        struct policy *p = load_ok("version = 1;\nhardware = { include = [ \"ens*\", ]; };\n"
                                   "rules = (\n { user = \"a\"; memlock = \"1G\"; },\n);\n");
        assert_int_equal(p->n_rules, 1);
        assert_string_equal(p->hw.sel.include[0], "ens*");
        assert_null(p->hw.sel.include[1]);
        policy_free(p);
        /* but not two, nor one alone */
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a\"; memlock = \"1G\"; },, );\n",
                     { 2, "syntax error: ',' where a value was expected" });
        CHECK_ERRORS("version = 1;\nrules = ( , );\n", { 2, "syntax error: ',' where a value was expected" });
        /* an unterminated string names the line it starts on */
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a;\n memlock = 1; } );\n",
                     { 2, "a string that starts here has no closing quote" });
}

static void test_err_include(void **state) {
        /* refused, blanked, and the rest is still checked; not inside strings or comments */
        CHECK_ERRORS("version = 1;\n"
                     "  @include \"/etc/passwd\"\n"                 /* 2 */
                     "# @include \"x\"\n"
                     "/*\n@include \"y\"\n*/\n"
                     "rules = ( { user = \"a\"; memlock = \"0\"; } );\n",    /* 7 */
                     { 2, "@include is not supported" },
                     { 7, "memlock must not be 0" });
        /* control bytes, DEL and bytes above 0x7f of a value are escaped in the message, by the
         * one escaper (they were '?', and bytes above 0x7f went through as they were) */
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a\"; memlock = \"4\\x7f\\x01M\"; } );\n",
                     { 2, "memlock = \"4\\x7f\\x01M\": expected a size" });
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a\"; memlock = \"4M\\x1b]0;x\\x07\\xff\\xfe\"; } );\n",
                     { 2, "memlock = \"4M\\x1b]0;x\\x07\\xff\\xfe\": expected a size" });
        /* an @include that ends the file is refused too */
        CHECK_ERRORS("version = 1;\n@include", { 2, "@include is not supported" });
        /* a comment ends at its newline: an @include on the next line is refused */
        CHECK_ERRORS("version = 1;\n# a comment\n@include \"/etc/passwd\"\n", { 3, "@include is not supported" });
        /* after other text on its line an @include is no directive, for libconfig either: a
         * syntax error (line_start ends at the first byte that is not a blank) */
        CHECK_ERRORS("version = 1; @include \"/etc/passwd\"\n", { 1, "syntax error: unexpected '@'" });
}

static void test_err_nul(void **state) {
        static const char text[] = "version = 1;\nrules = ();\n\0\n";
        struct diag_list d = {};
        struct policy *p = MARKER;

        assert_int_equal(policy_load_string(text, sizeof(text) - 1, PATH, &p, &d), -EINVAL);
        assert_ptr_equal(p, MARKER);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
        assert_int_equal(d.v[0].line, 3);
        assert_non_null(strstr(d.v[0].message, "NUL byte"));
        diag_list_clear(&d);
}

static void test_err_depth(void **state) {
        /* nesting inside strings and comments does not count, a // comment on the first byte too */
        policy_free(load_ok("// ((((((\nversion = 1;\nrules = ();\n"));
        struct policy *p = load_ok("version = 1;\n# ((((((((\n"
                                   "rules = ( { user = \"(((((((\"; memlock = \"1G\"; } );\n");
        policy_free(p);

        CHECK_ERRORS("version = 1;\nrules = ( { a = { b = ( { d = 1; } ) }; } );\n",
                     { 2, "nested deeper than 4 levels" });
        /* arrays count as levels too */
        CHECK_ERRORS("version = 1;\nrules = ( { a = { b = ( [ 1 ] ) }; } );\n",
                     { 2, "nested deeper than 4 levels" });
        /* ... also after a string (its end goes back to counting), one with a backslash at the end
         * of a line among them */
        CHECK_ERRORS("version = 1;\nx = \"a\\\nb\";\nrules = ( { a = { b = ( { d = 1; } ) }; } );\n",
                     { 4, "nested deeper than 4 levels" });
        /* four levels are not too deep: the scanner lets them through, the loader names the key;
         * a group closed at the top level before them leaves no level behind */
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"u\"; memlock = \"1G\"; a = { b = ( 1 ) }; } );\n",
                     { 2, "unknown key \"a\"" });
        CHECK_ERRORS("version = 1;\nhardware = { };\n"
                     "rules = ( { user = \"u\"; memlock = \"1G\"; a = { b = ( 1 ) }; } );\n",
                     { 3, "unknown key \"a\"" });

        /* a deep file is refused at the fifth level, not by running out of stack */
        size_t n = 200000;
        _cleanup_free_ char *deep = malloc(2 * n + 16);
        assert_non_null(deep);
        memcpy(deep, "a = ", 4);
        memset(deep + 4, '(', n);
        memset(deep + 4 + n, ')', n);
        memcpy(deep + 4 + 2 * n, ";\n", 3);
        check_errors(deep, -EINVAL, (const struct expect[]){ { 1, "nested deeper" } }, 1);
}

static void test_err_many_lines(void **state) {
        /* error lines are right far into a big file */
        size_t n = 70000, len = 0;
        _cleanup_free_ char *text = malloc(n * 2 + 64);

        assert_non_null(text);
        len += (size_t)sprintf(text, "version = 1;\n");
        for (size_t i = 0; i < n; i++)
                text[len++] = '\n';
        len += (size_t)sprintf(text + len, "rules = 5;\n");
        check_errors(text, -EINVAL, (const struct expect[]){ { 70002, "rules must be a list" } }, 1);
}

static void test_too_big_string(void **state) {
        struct policy *p = MARKER;
        _cleanup_free_ char *text = calloc(1, POLICY_MAX_BYTES + 1);

        assert_non_null(text);
        memset(text, ' ', POLICY_MAX_BYTES + 1);
        assert_int_equal(policy_load_string(text, POLICY_MAX_BYTES + 1, PATH, &p, NULL), -EFBIG);
        assert_ptr_equal(p, MARKER);

        /* exactly the limit is read (and then refused for its content) */
        memcpy(text, "version = 1; rules = ();", 24);
        assert_int_equal(policy_load_string(text, POLICY_MAX_BYTES, PATH, &p, NULL), 0);
        assert_ptr_not_equal(p, MARKER);
        policy_free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* policy_read_fd + policy_load_string, as the module and the tool read a policy file: FIFO,
 * /dev/zero, oversized files */
static int policy_load_fd(int fd, const char *path, struct policy **ret, struct diag_list *diags) {
        char *text = NULL;
        size_t len = 0;
        int r = policy_read_fd(fd, &text, &len);

        if (r >= 0)
                r = policy_load_string(text, len, path, ret, diags);
        free(text);
        return r;
}

/* A child writes len bytes of text (repeating it) into the FIFO in small pieces. */
static pid_t fifo_writer(const char *fifo, const char *text, size_t len) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                size_t tl = strlen(text), done = 0;
                int fd;

                signal(SIGPIPE, SIG_DFL);
                fd = open(fifo, O_WRONLY | O_CLOEXEC);
                if (fd < 0)
                        _exit(1);
                while (done < len) {
                        size_t off = done % tl, k = tl - off;
                        if (k > 7)
                                k = 7;     /* short writes make short reads */
                        if (k > len - done)
                                k = len - done;
                        ssize_t w = write(fd, text + off, k);
                        if (w < 0)
                                _exit(2);
                        done += (size_t)w;
                }
                _exit(0);
        }
        return pid;
}

/* On the stack, not the heap: the forked writer leaves without freeing anything. */
static void make_tmpdir(char dir[static PATH_MAX]) {
        const char *t = getenv("TMPDIR");

        assert_true(snprintf(dir, PATH_MAX, "%s/test-policy.XXXXXX", t && *t ? t : "/tmp") <
                    PATH_MAX);
        assert_non_null(mkdtemp(dir));
}

/* The module opens its policy (and the cache) with fs_open_config(): a FIFO put in its place,
 * whose writer never comes, is refused at once, not waited on (alarm(): a wait kills the test) */
static void test_open_config_fifo(void **state) {
        char dir[PATH_MAX], fifo[PATH_MAX + 8];
        int fd = -42;
        (void)state;

        make_tmpdir(dir);
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        alarm(10);
        assert_int_equal(fs_open_config(AT_FDCWD, fifo, true, false, &fd, NULL), FS_ERR_NOTREG);
        assert_int_equal(fs_open_config(AT_FDCWD, fifo, true, true, &fd, NULL), FS_ERR_NOTREG);
        alarm(0);
        assert_int_equal(fd, -42);
        unlink(fifo);
        rmdir(dir);
}

static void test_fd_fifo(void **state) {
        static const char text[] = "version = 1;\nrules = ( { user = \"a\"; memlock = \"1G\"; } );\n";
        char dir[PATH_MAX], fifo[PATH_MAX + 8];
        struct diag_list d = {};
        struct policy *p = NULL;
        int fd, status;
        pid_t pid;

        make_tmpdir(dir);
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);

        pid = fifo_writer(fifo, text, strlen(text));
        fd = open(fifo, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_load_fd(fd, fifo, &p, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(p->n_rules, 1);
        assert_int_equal(p->rules[0].memlock.bytes, GiB);
        policy_free(p);
        close(fd);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        /* an endless writer: refused after POLICY_MAX_BYTES + 1 bytes, without waiting */
        p = MARKER;
        pid = fifo_writer(fifo, "# comment line\n", 4 * (size_t)POLICY_MAX_BYTES);
        fd = open(fifo, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_load_fd(fd, fifo, &p, &d), -EFBIG);
        assert_ptr_equal(p, MARKER);
        close(fd);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 2));

        assert_int_equal(unlink(fifo), 0);
        assert_int_equal(rmdir(dir), 0);
        diag_list_clear(&d);
}

static void test_fd_dev_zero(void **state) {
        struct policy *p = MARKER;
        int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                skip();
        assert_int_equal(policy_load_fd(fd, "/dev/zero", &p, NULL), -EFBIG);
        assert_ptr_equal(p, MARKER);
        close(fd);
}

static void test_fd_files(void **state) {
        char dir[PATH_MAX], file[PATH_MAX + 16];
        struct policy *p = MARKER;
        int fd;

        /* a sparse regular file over the limit is refused from fstat() alone */
        make_tmpdir(dir);
        snprintf(file, sizeof(file), "%s/big.conf", dir);
        fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t)POLICY_MAX_BYTES + 1), 0);
        assert_int_equal(policy_load_fd(fd, file, &p, NULL), -EFBIG);
        assert_ptr_equal(p, MARKER);

        /* a good one, read from the start */
        assert_int_equal(ftruncate(fd, 0), 0);
        assert_int_equal(pwrite(fd, "version = 1;\nrules = ();\n", 25, 0), 25);
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        assert_int_equal(policy_load_fd(fd, file, &p, NULL), 0);
        assert_ptr_not_equal(p, MARKER);
        policy_free(p);
        close(fd);

        /* an empty file: no version */
        p = MARKER;
        assert_int_equal(truncate(file, 0), 0);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_load_fd(fd, file, &p, NULL), -EINVAL);
        assert_ptr_equal(p, MARKER);
        close(fd);

        /* a directory, a bad descriptor */
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_load_fd(fd, dir, &p, NULL), -EISDIR);
        close(fd);
        assert_int_equal(policy_load_fd(-1, "x", &p, NULL), -EINVAL);
        assert_ptr_equal(p, MARKER);

        assert_int_equal(unlink(file), 0);
        assert_int_equal(rmdir(dir), 0);
}

static void test_shipped_conf(void **state) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *path = NULL;
        struct diag_list d = {};
        struct policy *p = NULL;
        int fd;

        if (!top || !*top) {
                print_message("# top_srcdir is not set\n");
                skip();
        }
        assert_true(asprintf(&path, "%s/conf/rdmalimit.conf", top) > 0);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_load_fd(fd, path, &p, &d), 0);
        close(fd);
        dump_diags(&d);
        assert_int_equal(d.n, 0);

        /* the documented defaults, one active rule */
        assert_false(p->lower);
        assert_int_equal(p->hw.rdma_port, GiB);
        assert_int_equal(p->hw.xsk_queue, 16 * MiB);
        assert_int_equal(p->hw.xsk_copy_queue, 16 * MiB);
        assert_int_equal(p->hw.base, 64 * MiB);
        assert_true(p->hw.ram_share == 0.5);
        assert_int_equal(p->hw.fallback.kind, PV_NONE);
        assert_int_equal(p->n_rules, 1);
        assert_string_equal(p->rules[0].group, "rdma_users");
        assert_int_equal(p->rules[0].memlock.kind, PV_AUTO);
        policy_free(p);
        diag_list_clear(&d);
}

/* ---------------------------------------------------------------------------------------- */
/* Evaluation */

/* A hand-built hardware summary. */
struct fake_hw {
        struct hw_port ports[4];
        struct hw_rdma_dev dev[2];
        struct hw_xdp_if xdp[2];
        struct hw_summary s;
};

static void fake_hw_init(struct fake_hw *f) {
        memset(f, 0, sizeof(*f));
        f->s.rdma_status = -ENODEV;
        f->s.xdp_status = 0;
        f->s.mem_status = 0;
        f->s.mem_total = 64 * GiB;
}

/* One RDMA device with `active` ACTIVE ports and `down` DOWN ports. */
static void fake_hw_rdma(struct fake_hw *f, unsigned active, unsigned down, uint64_t max_mr) {
        size_t n = 0;

        for (unsigned i = 0; i < active; i++, n++)
                f->ports[n] = (struct hw_port){ .num = (unsigned)n + 1, .state = 4, .link_layer = 1 };
        for (unsigned i = 0; i < down; i++, n++)
                f->ports[n] = (struct hw_port){ .num = (unsigned)n + 1, .state = 1, .link_layer = 1 };
        f->dev[0] = (struct hw_rdma_dev){ .name = "mlx5_0", .max_mr_size = max_mr,
                                          .verbs_error = max_mr ? 0 : -ENODATA, .n_ports = n, .ports = f->ports };
        f->s.rdma_status = 0;
        f->s.n_rdma = 1;
        f->s.rdma = f->dev;
}

static void fake_hw_xdp(struct fake_hw *f, unsigned zc_queues, unsigned copy_queues) {
        size_t n = 0;

        if (zc_queues)
                f->xdp[n++] = (struct hw_xdp_if){ .ifindex = 2, .name = "eth0",
                        .xdp_features = 0x2b, .zero_copy = true, .physical = true, .counted = true,
                        .rx_queues = zc_queues };
        if (copy_queues)
                f->xdp[n++] = (struct hw_xdp_if){ .ifindex = 3, .name = "va",
                        .xdp_features = 0x23, .zero_copy = false, .counted = true, .rx_queues = copy_queues };
        f->s.n_xdp = n;
        f->s.xdp = f->xdp;
}

static const char *const no_groups[] = { NULL };

static void evaluate(const struct policy *p, const char *user, const char *const *groups,
                     size_t n, const struct hw_summary *hw, struct policy_decision *d) {
        assert_int_equal(policy_evaluate(p, user, n ? groups : no_groups, n, hw, d), 0);
        if (d->matched && !d->untouched) {
                assert_true(d->soft != 0);
                assert_true(d->hard >= d->soft);
        }
}

static void test_eval_precedence(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "rules = (\n"
                "  { group = \"small\"; memlock = \"1G\"; },\n"          /* 3 */
                "  { group = \"big\"; memlock = \"2G\"; },\n"            /* 4 */
                "  { group = \"big2\"; memlock = \"2G\"; hard = \"4G\"; },\n" /* 5 */
                "  { user = \"alice\"; memlock = \"512M\"; },\n"         /* 6 */
                "  { group = \"users\"; memlock = \"unlimited\"; },\n"   /* 7 */
                "  { user = \"alice\"; memlock = \"8G\"; }\n"            /* 8: shadowed */
                ");\n");
        const char *const g_all[] = { "small", "big", "big2" };
        const char *const g_rev[] = { "big2", "big", "small" };
        const char *const g_users[] = { "small", "users" };
        struct policy_decision d;

        /* a user rule beats every group rule, even a larger one; the first user rule wins */
        evaluate(p, "alice", g_users, 2, NULL, &d);
        assert_true(d.matched);
        assert_false(d.untouched);
        assert_int_equal(d.rule->line, 6);
        assert_int_equal(d.soft, 512 * MiB);
        assert_int_equal(d.hard, 512 * MiB);
        assert_false(d.used_auto);

        /* the largest group value wins; a tie goes to the first rule in the file */
        evaluate(p, "bob", g_all, 3, NULL, &d);
        assert_int_equal(d.rule->line, 4);
        assert_int_equal(d.soft, 2 * GiB);
        assert_int_equal(d.hard, 2 * GiB);
        evaluate(p, "bob", g_rev, 3, NULL, &d);
        assert_int_equal(d.rule->line, 4);

        evaluate(p, "bob", g_users, 2, NULL, &d);
        assert_int_equal(d.rule->line, 7);
        assert_int_equal(d.soft, SIZE_INFINITY);
        assert_int_equal(d.hard, SIZE_INFINITY);

        /* no match */
        evaluate(p, "carol", (const char *const[]){ "other" }, 1, NULL, &d);
        assert_false(d.matched);
        assert_null(d.rule);
        evaluate(p, "carol", NULL, 0, NULL, &d);
        assert_false(d.matched);
        assert_false(d.lower);

        /* bad arguments */
        assert_int_equal(policy_evaluate(p, NULL, NULL, 0, NULL, &d), -EINVAL);
        assert_int_equal(policy_evaluate(p, "x", NULL, 1, NULL, &d), -EINVAL);
        policy_free(p);
}

static void test_eval_lower(void **state) {
        struct policy *p = load_ok("version = 1;\nlower = true;\n"
                                   "rules = ( { user = \"a\"; memlock = \"1G\"; } );\n");
        struct policy_decision d;

        evaluate(p, "a", NULL, 0, NULL, &d);
        assert_true(d.matched);
        assert_true(d.lower);
        evaluate(p, "b", NULL, 0, NULL, &d);
        assert_false(d.matched);
        assert_true(d.lower);
        policy_free(p);
}

static void test_eval_auto_arithmetic(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "hardware = { rdma_port = \"1G\"; xsk_queue = \"16M\"; xsk_copy_queue = \"1M\";\n"
                "             base = \"64M\"; ram_share = 0.5; };\n"
                "rules = ( { group = \"rdma_users\"; memlock = \"auto\"; } );\n");
        const char *const g[] = { "rdma_users" };
        struct policy_decision d;
        struct fake_hw f;

        fake_hw_init(&f);
        fake_hw_rdma(&f, 2, 1, 0);
        fake_hw_xdp(&f, 4, 3);
        assert_true(policy_needs_hw(p, "u", g, 1));
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_true(d.matched);
        assert_false(d.untouched);
        assert_true(d.used_auto);
        assert_true(d.auto_info.hardware_found);
        assert_false(d.auto_info.xdp_unknown);
        assert_false(d.auto_info.used_fallback);
        assert_int_equal(d.auto_info.active_ports, 2);
        assert_int_equal(d.auto_info.zc_queues, 4);
        assert_int_equal(d.auto_info.copy_queues, 3);
        assert_int_equal(d.auto_info.sum, 64 * MiB + 2 * GiB + 4 * 16 * MiB + 3 * MiB);
        assert_int_equal(d.auto_info.ram_cap, 32 * GiB);
        assert_int_equal(d.auto_info.mr_cap, 0);
        assert_int_equal(d.auto_info.value, d.auto_info.sum);
        assert_int_equal(d.soft, d.auto_info.sum);
        assert_int_equal(d.hard, d.soft);

        /* the RAM share caps it */
        f.s.mem_total = 2 * GiB;
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_int_equal(d.auto_info.ram_cap, GiB);
        assert_int_equal(d.soft, GiB);

        /* MemTotal unknown: no RAM cap */
        f.s.mem_status = -ENOENT;
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_int_equal(d.auto_info.ram_cap, 0);
        assert_int_equal(d.soft, d.auto_info.sum);
        f.s.mem_status = 0;
        f.s.mem_total = 64 * GiB;

        /* the smallest max_mr_size of a device with an active port caps it */
        fake_hw_rdma(&f, 1, 0, 256 * MiB);
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_int_equal(d.auto_info.mr_cap, 256 * MiB);
        assert_int_equal(d.soft, 256 * MiB);

        /* ... but not that of a device without an active port */
        fake_hw_rdma(&f, 0, 2, 256 * MiB);
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_int_equal(d.auto_info.active_ports, 0);
        assert_int_equal(d.auto_info.mr_cap, 0);
        assert_int_equal(d.soft, 64 * MiB + 4 * 16 * MiB + 3 * MiB);

        /* policy_compute_auto() gives the same */
        struct policy_auto a;
        policy_compute_auto(&p->hw, &f.s, &a);
        assert_int_equal(a.value, d.soft);
        policy_free(p);
}

/* Any one queue is hardware: a host with a single copy-mode AF_XDP queue (a veth) and nothing
 * else gets the sum, not the fallback; with none at all the fallback applies */
static void test_eval_auto_one_queue(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "hardware = { xsk_queue = \"16M\"; xsk_copy_queue = \"3M\"; base = \"64M\";\n"
                "             fallback = \"1G\"; };\n"
                "rules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy_decision d;
        struct policy_auto a;
        struct fake_hw f;

        (void)state;
        for (unsigned zc = 0; zc <= 1; zc++)
                for (unsigned copy = 0; copy <= 1; copy++) {
                        fake_hw_init(&f);
                        fake_hw_xdp(&f, zc, copy);
                        evaluate(p, "u", NULL, 0, &f.s, &d);
                        policy_compute_auto(&p->hw, &f.s, &a);
                        assert_int_equal(a.value, d.soft);
                        assert_int_equal(d.auto_info.zc_queues, zc);
                        assert_int_equal(d.auto_info.copy_queues, copy);
                        if (zc + copy == 0) {
                                assert_false(d.auto_info.hardware_found);
                                assert_true(d.auto_info.used_fallback);
                                assert_int_equal(d.soft, 1 * GiB);
                        } else {
                                assert_true(d.auto_info.hardware_found);
                                assert_false(d.auto_info.used_fallback);
                                assert_int_equal(d.soft, 64 * MiB + zc * 16 * MiB + copy * 3 * MiB);
                        }
                }
        /* one active RDMA port alone is hardware too */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 1, 0, 0);
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.auto_info.hardware_found);
        assert_int_equal(d.auto_info.active_ports, 1);
        policy_free(p);
}

static void test_eval_auto_saturates(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "hardware = { rdma_port = \"unlimited\"; xsk_queue = \"16T\"; };\n"
                "rules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy_decision d;
        struct fake_hw f;

        /* 16T x 4G queues overflows: the sum saturates at unlimited, the RAM cap applies */
        fake_hw_init(&f);
        fake_hw_xdp(&f, UINT_MAX, 0);
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.sum, SIZE_INFINITY);
        assert_int_equal(d.soft, 32 * GiB);

        /* unlimited per port, no RAM known: unlimited */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 3, 0, 0);
        f.s.mem_status = -ENODATA;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.sum, SIZE_INFINITY);
        assert_int_equal(d.soft, SIZE_INFINITY);
        assert_int_equal(d.hard, SIZE_INFINITY);

        /* ram_share 1 of an enormous MemTotal does not overflow */
        p->hw.ram_share = 1.0;
        f.s.mem_status = 0;
        f.s.mem_total = UINT64_MAX - 1;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.soft, UINT64_MAX - 1);
        p->hw.ram_share = 0.9999999;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.soft <= UINT64_MAX - 1);
        assert_true(d.soft > (UINT64_MAX / 10) * 9);
        policy_free(p);
}

static void test_eval_fallback_untouched(void **state) {
        struct policy *with = load_ok(
                "version = 1;\nhardware = { fallback = \"8M\"; };\n"
                "rules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy *without = load_ok(
                "version = 1;\nrules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy_decision d;
        struct fake_hw f;

        /* no active port (a DOWN one does not count), no XDP RX queue */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 0, 2, 0);
        evaluate(with, "u", NULL, 0, &f.s, &d);
        assert_true(d.matched);
        assert_false(d.untouched);
        assert_false(d.auto_info.hardware_found);
        assert_true(d.auto_info.used_fallback);
        assert_int_equal(d.soft, 8 * MiB);
        assert_int_equal(d.hard, 8 * MiB);

        /* the fallback respects the RAM share too */
        f.s.mem_total = 8 * MiB;
        evaluate(with, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.soft, 4 * MiB);
        f.s.mem_total = 64 * GiB;

        evaluate(without, "u", NULL, 0, &f.s, &d);
        assert_true(d.matched);
        assert_true(d.untouched);
        assert_false(d.auto_info.hardware_found);
        assert_false(d.auto_info.used_fallback);
        assert_int_equal(d.auto_info.value, 0);

        /* an XDP interface without RX queues counts nothing */
        fake_hw_xdp(&f, 0, 0);
        f.xdp[0] = (struct hw_xdp_if){ .ifindex = 2, .xdp_features = 0x2b, .zero_copy = true, .counted = true };
        f.s.n_xdp = 1;
        evaluate(without, "u", NULL, 0, &f.s, &d);
        assert_true(d.untouched);
        policy_free(with);
        policy_free(without);
}

static void test_eval_xdp_unknown(void **state) {
        struct policy *p = load_ok(
                "version = 1;\nrules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy_decision d;
        struct fake_hw f;

        /* the netdev family is missing: XDP is not counted, RDMA is */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 1, 0, 0);
        fake_hw_xdp(&f, 8, 8);
        f.s.xdp_status = -EOPNOTSUPP;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.auto_info.xdp_unknown);
        assert_int_equal(d.auto_info.zc_queues, 0);
        assert_int_equal(d.auto_info.copy_queues, 0);
        assert_int_equal(d.soft, 64 * MiB + GiB);

        /* and without RDMA, nothing was found */
        fake_hw_init(&f);
        fake_hw_xdp(&f, 8, 0);
        f.s.xdp_status = -EOPNOTSUPP;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.auto_info.xdp_unknown);
        assert_false(d.auto_info.hardware_found);
        assert_true(d.untouched);

        /* a probe that failed is unknown too, not "none": AF_XDP (a refused socket), RDMA (an
         * unreadable /sys/class/infiniband) */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 1, 0, 0);
        f.s.xdp_status = -EAFNOSUPPORT;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.auto_info.xdp_unknown);
        assert_int_equal(d.auto_info.xdp_error, -EAFNOSUPPORT);
        assert_false(d.auto_info.rdma_unknown);
        fake_hw_init(&f);
        f.s.rdma_status = -EACCES;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_true(d.auto_info.rdma_unknown);
        assert_false(d.auto_info.xdp_unknown);
        char text[256] = "x";
        policy_auto_unknown_text(&d.auto_info, text, sizeof text);
        assert_string_equal(text, "x; RDMA unknown: /sys/class/infiniband cannot be read (Permission denied)");
        /* each cause of an unknown AF_XDP part in words, both parts together, and a full buffer */
        static const struct {
                int xdp;
                const char *want;
        } why[] = {
                { -EOPNOTSUPP, "; AF_XDP unknown: the kernel has no netdev netlink family" },
                { -ENOPKG, "; AF_XDP unknown: built without AF_XDP detection (--disable-xdp)" },
                { -ETIME, "; AF_XDP unknown: the netdev netlink probe failed (Timer expired)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(why); i++) {
                struct policy_auto a = { .xdp_unknown = true, .xdp_error = why[i].xdp };
                text[0] = '\0';
                policy_auto_unknown_text(&a, text, sizeof text);
                assert_string_equal(text, why[i].want);
        }
        struct policy_auto both = { .xdp_unknown = true, .xdp_error = -EOPNOTSUPP, .rdma_unknown = true,
                                    .rdma_error = -EIO };
        text[0] = '\0';
        policy_auto_unknown_text(&both, text, sizeof text);
        assert_string_equal(text, "; RDMA unknown: /sys/class/infiniband cannot be read (Input/output error); AF_XDP "
                                  "unknown: the kernel has no netdev netlink family");
        char small[8] = "1234567";
        policy_auto_unknown_text(&both, small, sizeof small);   /* full: nothing more, still terminated */
        assert_string_equal(small, "1234567");
        struct policy_auto none = {};
        text[0] = '\0';
        policy_auto_unknown_text(&none, text, sizeof text);
        assert_string_equal(text, "");
        policy_free(p);
}

static void test_eval_bounds(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "rules = (\n"
                "  { user = \"min\"; memlock = \"auto\"; minimum = \"1G\"; },\n"
                "  { user = \"max\"; memlock = \"auto\"; maximum = \"128M\"; },\n"
                "  { user = \"hard\"; memlock = \"auto\"; hard = \"unlimited\"; maximum = \"128M\"; },\n"
                "  { user = \"hauto\"; memlock = \"1M\"; hard = \"auto\"; maximum = \"2G\"; },\n"
                "  { user = \"hlow\"; memlock = \"auto\"; hard = \"1M\"; }\n"
                ");\n");
        struct policy_decision d;
        struct fake_hw f;

        fake_hw_init(&f);
        fake_hw_xdp(&f, 2, 0);          /* auto = 64M + 2 x 16M = 96M */
        evaluate(p, "min", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.value, 96 * MiB);
        assert_int_equal(d.soft, GiB);
        assert_int_equal(d.hard, GiB);

        fake_hw_xdp(&f, 8, 0);          /* auto = 192M */
        evaluate(p, "max", NULL, 0, &f.s, &d);
        assert_int_equal(d.soft, 128 * MiB);
        assert_int_equal(d.hard, 128 * MiB);

        /* the bounds are for `auto`: a fixed hard stays as written */
        evaluate(p, "hard", NULL, 0, &f.s, &d);
        assert_int_equal(d.soft, 128 * MiB);
        assert_int_equal(d.hard, SIZE_INFINITY);

        /* hard = auto with a fixed soft */
        assert_true(policy_needs_hw(p, "hauto", NULL, 0));
        evaluate(p, "hauto", NULL, 0, &f.s, &d);
        assert_true(d.used_auto);
        assert_int_equal(d.soft, MiB);
        assert_int_equal(d.hard, 192 * MiB);
        fake_hw_xdp(&f, 0, 0);          /* nothing found: hard = soft */
        evaluate(p, "hauto", NULL, 0, &f.s, &d);
        assert_false(d.untouched);
        assert_int_equal(d.soft, MiB);
        assert_int_equal(d.hard, MiB);

        /* an explicit hard is a ceiling: it caps what auto gives */
        fake_hw_xdp(&f, 1, 0);
        evaluate(p, "hlow", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.value, 80 * MiB);
        assert_int_equal(d.soft, MiB);
        assert_int_equal(d.hard, MiB);
        policy_free(p);
}

static void test_eval_never_zero(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "hardware = { rdma_port = \"0\"; xsk_queue = \"0\"; base = \"0\"; };\n"
                "rules = ( { user = \"u\"; memlock = \"auto\"; } );\n");
        struct policy_decision d;
        struct fake_hw f;

        /* hardware found, but every size is 0 */
        fake_hw_init(&f);
        fake_hw_rdma(&f, 2, 0, 0);
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.sum, 0);
        assert_int_equal(d.soft, POLICY_MIN_BYTES);
        assert_int_equal(d.hard, POLICY_MIN_BYTES);

        /* a tiny RAM share: not below the floor either */
        p->hw.base = GiB;
        f.s.mem_total = 64 * KiB;
        evaluate(p, "u", NULL, 0, &f.s, &d);
        assert_int_equal(d.auto_info.ram_cap, 32 * KiB);
        assert_int_equal(d.soft, 64 * KiB);

        /* a hand-built rule of 0 is not handed out either */
        p->rules[0].memlock = (struct policy_value){ .kind = PV_SIZE, .bytes = 0 };
        evaluate(p, "u", NULL, 0, NULL, &d);
        assert_int_equal(d.soft, POLICY_MIN_BYTES);
        policy_free(p);
}

static void test_eval_groups_auto(void **state) {
        struct policy *p = load_ok(
                "version = 1;\n"
                "rules = (\n"
                "  { group = \"a\"; memlock = \"auto\"; },\n"            /* 3 */
                "  { group = \"b\"; memlock = \"32M\"; },\n"             /* 4 */
                "  { group = \"c\"; memlock = \"auto\"; minimum = \"1G\"; },\n" /* 5 */
                "  { user = \"fixed\"; memlock = \"1G\"; }\n"            /* 6 */
                ");\n");
        const char *const ab[] = { "a", "b" }, *const abc[] = { "a", "b", "c" };
        const char *const a_only[] = { "a" };
        struct policy_decision d;
        struct fake_hw f;

        fake_hw_init(&f);

        /* needs_hw: only the rules that can decide */
        assert_true(policy_needs_hw(p, "x", ab, 2));
        assert_false(policy_needs_hw(p, "x", (const char *const[]){ "b" }, 1));
        assert_false(policy_needs_hw(p, "fixed", abc, 3));
        assert_false(policy_needs_hw(p, "x", NULL, 0));

        /* hw may be NULL only when it is not needed */
        assert_int_equal(policy_evaluate(p, "x", ab, 2, NULL, &d), -EINVAL);
        evaluate(p, "fixed", abc, 3, NULL, &d);
        assert_int_equal(d.soft, GiB);

        /* no hardware: `auto` leaves the limits alone, so a fixed value wins */
        evaluate(p, "x", ab, 2, &f.s, &d);
        assert_int_equal(d.rule->line, 4);
        assert_false(d.untouched);
        assert_int_equal(d.soft, 32 * MiB);

        /* only untouched rules match */
        evaluate(p, "x", a_only, 1, &f.s, &d);
        assert_true(d.matched);
        assert_true(d.untouched);
        assert_int_equal(d.rule->line, 3);

        /* with hardware, the larger value wins: 64M + 1G */
        fake_hw_rdma(&f, 1, 0, 0);
        evaluate(p, "x", ab, 2, &f.s, &d);
        assert_int_equal(d.rule->line, 3);
        assert_int_equal(d.soft, 64 * MiB + GiB);
        /* ... and the minimum of c is 1G, below a's value: a (first) keeps it */
        evaluate(p, "x", abc, 3, &f.s, &d);
        assert_int_equal(d.rule->line, 3);
        /* with a smaller port size, c's minimum makes it larger */
        p->hw.rdma_port = MiB;
        evaluate(p, "x", abc, 3, &f.s, &d);
        assert_int_equal(d.rule->line, 5);
        assert_int_equal(d.soft, GiB);
        policy_free(p);
}

/* a '*' inside a block comment does not end it: the @include after it is still comment */
static void test_comment_star(void **state) {
        (void)state;
        struct policy *p = load_ok("/* a * b\n@include \"x\"\n*/\nversion = 1;\nrules = ();\n");
        assert_int_equal(p->n_rules, 0);
        policy_free(p);
}

/* a value in a message: its first 64 bytes, then "..." */
static void test_message_quote_length(void **state) {
        char name[80], want[80];
        (void)state;
        memset(name, 'x', 63);
        strcpy(name + 63, " tail-tail");
        snprintf(want, sizeof want, "\"%.64s...\"", name);
        char text[256];
        snprintf(text, sizeof text, "version = 1;\nrules = ( { group = \"%s\"; memlock = \"1G\"; } );\n", name);
        struct diag_list d = {};
        struct policy *p = MARKER;
        assert_int_equal(policy_load_string(text, strlen(text), PATH, &p, &d), -EINVAL);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
        if (!strstr(d.v[0].message, want))
                fail_msg("%s: no %s", d.v[0].message, want);
        diag_list_clear(&d);
}

/* the smallest fallback, one byte, is a fallback (then raised to the floor) */
static void test_eval_fallback_one_byte(void **state) {
        (void)state;
        struct policy *p = load_ok("version = 1;\nhardware = { fallback = \"1B\"; };\n"
                                   "rules = ( { group = \"g\"; memlock = \"auto\"; } );\n");
        const char *const g[] = { "g" };
        struct policy_decision d;
        struct fake_hw f;
        assert_int_equal(p->hw.fallback.bytes, 1);
        fake_hw_init(&f);
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_true(d.matched);
        assert_false(d.auto_info.hardware_found);
        assert_true(d.auto_info.used_fallback);
        assert_int_equal(d.auto_info.value, POLICY_MIN_BYTES);
        policy_free(p);
}

/* a pattern setting that is no list, or too long a list: one error, its elements not read */
static void test_patterns_one_error(void **state) {
        char text[2048], *o = text;
        (void)state;
        CHECK_ERRORS("version = 1;\nhardware = { include = { a = \"b/c\"; }; };\nrules = ();\n",
                     { 2, "must be a list" });
        /* a group written as in limits.conf: that error alone, even when the rest is bad too */
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"@a b\"; memlock = \"1G\"; } );\n",
                     { 2, "without the '@'" });
        o += sprintf(o, "version = 1;\nhardware = { include = [ \"a/b\"");
        for (int i = 0; i < 64; i++)
                o += sprintf(o, ", \"e%d\"", i);
        sprintf(o, " ]; };\nrules = ();\n");
        struct diag_list d = {};
        struct policy *p = MARKER;
        assert_int_equal(policy_load_string(text, strlen(text), PATH, &p, &d), -EINVAL);
        if (diag_count(&d, DIAG_ERROR) != 1 || !strstr(d.v[0].message, "65 patterns, at most 64"))
                dump_diags(&d);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
        diag_list_clear(&d);
}

/* duplicates are found by name, wherever the rules between them sort */
static void test_duplicate_apart(void **state) {
        const char *text = "version = 1;\nrules = (\n"
                           "  { group = \"a\"; memlock = \"1G\"; },\n"   /* 3 */
                           "  { group = \"b\"; memlock = \"1G\"; },\n"   /* 4 */
                           "  { group = \"a\"; memlock = \"2G\"; }\n"    /* 5 */
                           ");\n";
        struct diag_list d = {};
        struct policy *p = NULL;
        (void)state;
        assert_int_equal(policy_load_string(text, strlen(text), PATH, &p, &d), 0);
        assert_int_equal(diag_count(&d, DIAG_WARNING), 1);
        assert_int_equal(d.v[0].line, 5);
        assert_non_null(strstr(d.v[0].message, "group \"a\" is at line 3"));
        policy_free(p);
        diag_list_clear(&d);
        /* the same with the names the other way round */
        text = "version = 1;\nrules = (\n"
               "  { group = \"b\"; memlock = \"1G\"; },\n"   /* 3 */
               "  { group = \"a\"; memlock = \"1G\"; },\n"   /* 4 */
               "  { group = \"b\"; memlock = \"2G\"; }\n"    /* 5 */
               ");\n";
        p = NULL;
        assert_int_equal(policy_load_string(text, strlen(text), PATH, &p, &d), 0);
        assert_int_equal(diag_count(&d, DIAG_WARNING), 1);
        assert_int_equal(d.v[0].line, 5);
        assert_non_null(strstr(d.v[0].message, "group \"b\" is at line 3"));
        policy_free(p);
        diag_list_clear(&d);
}

/* a RAM share of 1 caps at the whole RAM, however small */
static void test_eval_ram_share_whole(void **state) {
        (void)state;
        struct policy *p = load_ok("version = 1;\nhardware = { rdma_port = \"1G\"; ram_share = 1; };\n"
                                   "rules = ( { group = \"g\"; memlock = \"auto\"; } );\n");
        const char *const g[] = { "g" };
        struct policy_decision d;
        struct fake_hw f;
        fake_hw_init(&f);
        fake_hw_rdma(&f, 1, 0, 0);
        f.s.mem_total = 1;
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_true(d.auto_info.hardware_found);
        assert_int_equal(d.auto_info.ram_cap, 1);
        f.s.mem_total = 0;
        evaluate(p, "u", g, 1, &f.s, &d);
        assert_int_equal(d.auto_info.ram_cap, 0);
        policy_free(p);
}

/* Back to the C locale, LOCPATH unset, the directory removed. */
static void locale_gone(const char *dir) {
        char cmd[64];
        setlocale(LC_ALL, "C");
        unsetenv("LOCPATH");
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
}

/* A locale compiled from its source into a new directory under /tmp, which LOCPATH then names:
 * the test is skipped without localedef or the source (Debian: the locales package). */
static void locale_made(const char *name, char dir[static 32]) {
        char cmd[256];
        snprintf(dir, 32, "/tmp/rdmalimit-locale-XXXXXX");
        assert_non_null(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "localedef -i %.5s -f UTF-8 %s/%.5s.UTF-8 >/dev/null 2>&1", name, dir, name);
        if (system(cmd) != 0) {
                locale_gone(dir);
                skip();
        }
        assert_int_equal(setenv("LOCPATH", dir, 1), 0);
}

/* Numbers are read in the "C" locale whatever the process's: su and login set the user's
 * LC_NUMERIC before the session opens, and a de_DE locale reads "0.5" as 0. */
static void test_float_locale(void **state) {
        char dir[32];
        (void)state;
        locale_made("de_DE", dir);
        assert_non_null(setlocale(LC_NUMERIC, "de_DE.UTF-8"));
        /* the locale is in force: strtod() stops at the '.' */
        assert_true(strtod("0.25", NULL) == 0.0);
        struct policy *p = load_ok("version = 1;\nhardware = { ram_share = 0.25; };\nrules = ();\n");
        locale_gone(dir);
        assert_true(p->hw.ram_share == 0.25);
        policy_free(p);
}

/* Units, booleans and error texts the same in every locale: su sets the user's locale (LC_ALL
 * from the caller's environment) before the session opens.  In tr_TR, strcasecmp() does not
 * take 'I' for 'i': "4MIB" was refused and the whole policy with it; and strerror() speaks
 * the language LANGUAGE names into the log. */
static void test_case_locale(void **state) {
        char dir[32];
        (void)state;
        locale_made("tr_TR", dir);
        assert_int_equal(setenv("LANGUAGE", "tr", 1), 0);
        assert_non_null(setlocale(LC_ALL, "tr_TR.UTF-8"));
        /* the locale is in force: 'I' is upper-case dotless 'ı' there (towlower(): valgrind
         * replaces strcasecmp() with an ASCII one, so that cannot show it) */
        assert_int_equal(towlower(L'I'), 0x131);
        char translated[128];
        snprintf(translated, sizeof translated, "%s", strerror(EPERM));
        struct policy *p = load_ok("version = 1;\nlower = TRUE;\nrules = ( { user = \"u\"; memlock = \"4MIB\"; },\n"
                                   "  { group = \"g\"; memlock = \"1GIB\"; maximum = \"2GiB\"; } );\n");
        const char *text = errno_text(-EPERM);
        unsetenv("LANGUAGE");
        locale_gone(dir);
        assert_int_equal(p->rules[0].memlock.bytes, 4u << 20);
        assert_true(p->lower);
        assert_int_equal(p->rules[1].memlock.bytes, 1u << 30);
        assert_string_equal(text, "Operation not permitted");
        /* proof that strerror() there spoke the user's language, when libc has it */
        if (!streq(translated, "Operation not permitted"))
                assert_true((unsigned char)translated[0] >= 0x80 || strchr(translated, 'i'));
        policy_free(p);
}

/* a message that cannot be made: -ENOMEM, and no empty message in its place */
static void test_message_oom(void **state) {
        const char *text = "version = 1;\nrules = ( { group = \"a b\"; memlock = \"1G\"; } );\n";
        struct diag_list d = {};
        struct policy *p = MARKER;
        (void)state;
        fault_arm("vasprintf", NULL, 1, ENOMEM);
        int r = policy_load_string(text, strlen(text), PATH, &p, &d);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(r, -ENOMEM);
        assert_ptr_equal(p, MARKER);
        assert_int_equal(d.n, 0);
        diag_list_clear(&d);
}

/* cfg_parse()'s edges: arguments it refuses, a text that ends in a number with no NUL after
 * it (an integer64 suffix is looked for inside the text only: an ASan build sees a read past
 * it), the name of a type that is none. */
static void test_cfgparse_edges(void **state) {
        struct cfg_node *root = NULL;
        (void)state;

        assert_int_equal(cfg_parse(NULL, 1, 8, NULL, NULL, &root), -EINVAL);
        assert_int_equal(cfg_parse("a = 1;", 6, 8, NULL, NULL, NULL), -EINVAL);
        assert_null(root);
        assert_int_equal(cfg_parse(NULL, 0, 8, NULL, NULL, &root), 0);
        cfg_free(root);
        root = NULL;
        /* "a = 5" and "a = 0x5" in buffers of exactly their bytes */
        static const char *const texts[] = { "a = 5", "a = 0x5", "a = 5L", "a = 0x5L" };
        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                size_t len = strlen(texts[i]);
                char *exact = malloc(len);
                assert_non_null(exact);
                memcpy(exact, texts[i], len);
                assert_int_equal(cfg_parse(exact, len, 8, NULL, NULL, &root), 0);
                assert_int_equal(root->c.n, 1);
                assert_int_equal(root->c.v[0].type, CFG_INT);
                assert_int_equal(root->c.v[0].i, 5);
                cfg_free(root);
                root = NULL;
                free(exact);
        }
        assert_string_equal(cfg_type_name(CFG_LIST), "a list ( )");
        assert_string_equal(cfg_type_name((enum cfg_type)(CFG_LIST + 1)), "a value of unknown type");
        assert_string_equal(cfg_type_name((enum cfg_type)0), "a value of unknown type");
}

/* A tree and the findings of cfg_parse() as text: "E" for a refusal, then the findings */
static void cfg_collect(void *data, unsigned line, const char *msg) {
        char *out = data;
        size_t l = strlen(out);
        snprintf(out + l, 4096 - l, "%u: %s\n", line, msg);
}

static void cfg_dump(const struct cfg_node *n, char *out, size_t size) {
        size_t l = strlen(out);
        snprintf(out + l, size - l, "[%d %s %u ", (int)n->type, n->name ? n->name : "-", n->line);
        l = strlen(out);
        switch (n->type) {
        case CFG_INT:
                snprintf(out + l, size - l, "%" PRId64, n->i);
                break;
        case CFG_FLOAT:
                snprintf(out + l, size - l, "%a", n->f);
                break;
        case CFG_BOOL:
                snprintf(out + l, size - l, "%d", n->b);
                break;
        case CFG_STRING:
                snprintf(out + l, size - l, "\"%s\"", n->s);
                break;
        default:
                for (size_t i = 0; i < n->c.n; i++)
                        cfg_dump(&n->c.v[i], out, size);
        }
        l = strlen(out);
        snprintf(out + l, size - l, "]");
}

static void cfg_result(const char *text, size_t len, char out[static 4096]) {
        struct cfg_node *root = NULL;
        out[0] = '\0';
        int r = cfg_parse(text, len, 8, cfg_collect, out, &root);
        if (r < 0) {
                size_t l = strlen(out);
                snprintf(out + l, 4096 - l, "E%d", r);
                assert_null(root);
                return;
        }
        cfg_dump(root, out, 4096);
        cfg_free(root);
}

/*
 * Every kind of token, and what is not one, as the last bytes of a buffer that holds exactly
 * the text (no NUL after it: under ASan a read past it fails) reads as it does with a blank
 * and a NUL after it: the same tree, or the same findings.
 */
static void test_cfgparse_at_end(void **state) {
        static const char *const texts[] = {
                "a=1", "a=-1", "a=+1", "a=-", "a=+", "a=1L", "a=1LL", "a=1LLL", "a=0x1", "a=0x1L", "a=0x1LL",
                "a=0x", "a=0X1f", "a=0", "a=00", "a=1.", "a=.5", "a=.", "a=-.", "a=1.5", "a=1e5", "a=1e",
                "a=1e+", "a=1e+5", "a=1.5e-3", "a=-.5e2", "a=.e5", "a=1E-", "a=x", "a=1;b", "a=1;bc", "a=1;*",
                "a=1;b-", "a=1;b_*", "a=\"x\"", "a=\"x", "a=\"x\\", "a=\"\\x4", "a=\"\\x41", "a=\"\\x41\"",
                "a=\"\\n\"", "a=true", "a=TRUE", "a=tru", "a=false", "a=1;#c", "a=1;//c", "a=1;/*c", "a=1;/*c*",
                "a=1;/*c*/", "a=1;/", "a=(1)", "a=(", "a=[1", "a=[1]", "g={a=1}", "g={", "a=1;@", "a=1;@include",
                "a", "*", "-", "a=", "a=1,", "a=1;", "a=1:", "a:1", "a=1\n@includ", "a=1\n@include",
                "a=1\n@include \"x\"", "a=1\n@",
        };
        char exact_r[4096], blank_r[4096];
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                size_t len = strlen(texts[i]);
                char *exact = malloc(len), *blank = malloc(len + 2);
                assert_non_null(exact);
                assert_non_null(blank);
                memcpy(exact, texts[i], len);
                memcpy(blank, texts[i], len);
                memcpy(blank + len, " ", 2);
                cfg_result(exact, len, exact_r);
                cfg_result(blank, len + 1, blank_r);
                if (!streq(exact_r, blank_r))
                        fail_msg("\"%s\": at the end of the buffer: %s; with a blank after it: %s", texts[i], exact_r, blank_r);
                free(exact);
                free(blank);
        }
        /* a float token around the length of the reader's own buffer (128 bytes): the same
         * value at every length, read without writing past that buffer (ASan) */
        for (size_t n = 120; n <= 136; n++) {
                char text[160] = "a=1.5";
                size_t len = strlen(text);
                while (len < 2 + n)
                        text[len++] = '0';
                text[len] = '\0';
                char *exact = malloc(len);
                assert_non_null(exact);
                memcpy(exact, text, len);
                cfg_result(exact, len, exact_r);
                free(exact);
                cfg_result("a=1.5", 5, blank_r);
                if (!streq(exact_r, blank_r))
                        fail_msg("a float of %zu bytes: %s, not %s", n, exact_r, blank_r);
        }
        /* what these read as: the lexer's rules at their edges */
        static const struct { const char *text, *want; } reads[] = {
                { "a=1", "[1 - 0 [2 a 1 1]]" },
                { "a=-9223372036854775806L", "[1 - 0 [2 a 1 -9223372036854775806]]" },
                { "a=-9223372036854775807L", "[1 - 0 [2 a 1 -9223372036854775807]]" },
                { "a=-9223372036854775808L", "[1 - 0 [2 a 1 -9223372036854775808]]" },
                { "a=0x0FFFFFFFFFFFFFFF", "[1 - 0 [2 a 1 1152921504606846975]]" },
                { "a=0x7FFFFFFFFFFFFFFF", "[1 - 0 [2 a 1 9223372036854775807]]" },
                { "a=\"\\x41\\x4\"", "[1 - 0 [4 a 1 \"A\\x4\"]]" },
                { "a=\"\\x41\"", "[1 - 0 [4 a 1 \"A\"]]" },
                { "a=1;/**/b=2", "[1 - 0 [2 a 1 1][2 b 1 2]]" },
                { "a=1;/***/b=2", "[1 - 0 [2 a 1 1][2 b 1 2]]" },
        };
        for (size_t i = 0; i < ELEMENTSOF(reads); i++) {
                cfg_result(reads[i].text, strlen(reads[i].text), exact_r);
                if (!streq(exact_r, reads[i].want))
                        fail_msg("\"%s\": %s, not %s", reads[i].text, exact_r, reads[i].want);
        }
        /* an unexpected byte: printable ones quoted, others (controls, DEL, above 0x7f) escaped */
        static const struct { const char *text, *want; } bytes[] = {
                { "a=1;$", "1: syntax error: unexpected '$'\nE-22" },
                { "a=1;~", "1: syntax error: unexpected '~'\nE-22" },
                { "a=1;!", "1: syntax error: unexpected '!'\nE-22" },
                { "a=1;\x01", "1: syntax error: unexpected byte \\x01\nE-22" },
                { "a=1;\x7f", "1: syntax error: unexpected byte \\x7f\nE-22" },
                { "a=1;\x80", "1: syntax error: unexpected byte \\x80\nE-22" },
                { "a=1;\xff", "1: syntax error: unexpected byte \\xff\nE-22" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bytes); i++) {
                cfg_result(bytes[i].text, strlen(bytes[i].text), exact_r);
                if (!streq(exact_r, bytes[i].want))
                        fail_msg("\"%s\": %s, not %s", bytes[i].text, exact_r, bytes[i].want);
        }
}

/* What the loader refuses and accepts at its edges: names with DEL, ':' or ','; patterns with
 * '~' (accepted) and 64 or 65 of them; a hardware that is no group; a fallback then other keys;
 * a bad value that, had it been taken, would break a bound too (one error, not two) */
static void test_loader_edges(void **state) {
        (void)state;
        /* no text but a length: refused before anything is read */
        {
                struct policy *q = (struct policy *)0x1;
                assert_int_equal(policy_load_string(NULL, 1, PATH, &q, NULL), -EINVAL);
                assert_int_equal(policy_load_string(NULL, 2, PATH, &q, NULL), -EINVAL);
                assert_ptr_equal(q, (struct policy *)0x1);
        }
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a\x7f" "b\"; memlock = \"1G\"; } );\n",
                     { 2, "not a valid user name" });
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a:b\"; memlock = \"1G\"; } );\n",
                     { 2, "not a valid user name" });
        CHECK_ERRORS("version = 1;\nrules = ( { user = \"a,b\"; memlock = \"1G\"; } );\n",
                     { 2, "not a valid user name" });
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"a,b\"; memlock = \"1G\"; } );\n",
                     { 2, "not a valid group name" });
        policy_free(load_ok("version = 1;\nrules = ( { user = \"a~b.c-d_e$\"; memlock = \"1G\"; } );\n"));
        policy_free(load_ok("version = 1;\nrules = ( { user = \"\xc3\xa9t\xc3\xa9\"; memlock = \"1G\"; } );\n"));

        struct policy *p = load_ok("version = 1;\nhardware = { include = [ \"a~b\", \"!x\" ]; };\nrules = ();\n");
        assert_string_equal(p->hw.sel.include[0], "a~b");
        assert_string_equal(p->hw.sel.include[1], "!x");
        assert_null(p->hw.sel.include[2]);
        policy_free(p);
        CHECK_ERRORS("version = 1;\nhardware = { include = [ \"a\x7f\" ]; };\nrules = ();\n",
                     { 2, "not an interface name pattern" });
        CHECK_ERRORS("version = 1;\nhardware = { include = [ \"\xc3\xa9\" ]; };\nrules = ();\n",
                     { 2, "not an interface name pattern" });
        {
                char text[2048] = "version = 1;\nhardware = { exclude = [ ";
                for (int i = 0; i < 64; i++)
                        snprintf(text + strlen(text), sizeof text - strlen(text), "%s\"e%d\"", i ? ", " : "", i);
                size_t at = strlen(text);
                snprintf(text + at, sizeof text - at, " ]; };\nrules = ();\n");
                p = load_ok(text);
                assert_string_equal(p->hw.sel.exclude[63], "e63");
                assert_null(p->hw.sel.exclude[64]);
                policy_free(p);
                snprintf(text + at, sizeof text - at, ", \"e64\" ]; };\nrules = ();\n");
                CHECK_ERRORS(text, { 2, "exclude: 65 patterns, at most 64" });
        }

        CHECK_ERRORS("version = 1;\nhardware = 5;\nrules = ();\n", { 2, "hardware must be a group { ... }, not an integer" });
        CHECK_ERRORS("version = 1;\nhardware = ( 1, 2 );\nrules = ();\n", { 2, "hardware must be a group" });
        p = load_ok("version = 1;\nhardware = { fallback = \"8M\"; base = \"2M\"; rdma_port = \"3M\"; };\nrules = ();\n");
        assert_int_equal(p->hw.fallback.bytes, 8 * MiB);
        assert_int_equal(p->hw.base, 2 * MiB);
        assert_int_equal(p->hw.rdma_port, 3 * MiB);
        policy_free(p);

        /* a hard limit equal to the minimum is fine */
        policy_free(load_ok("version = 1;\nrules = ( { group = \"g\"; memlock = \"auto\"; minimum = \"1G\"; "
                            "hard = \"1G\"; } );\n"));
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"g\"; memlock = \"auto\"; minimum = \"1G\"; "
                     "hard = \"1023M\"; } );\n", { 2, "hard 1023M is below minimum 1G" });
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"g\"; memlock = \"lots\"; minimum = \"1M\"; } );\n",
                     { 2, "memlock = \"lots\"" });
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"g\"; memlock = \"0\"; minimum = \"1M\"; } );\n",
                     { 2, "memlock must not be 0" });
        CHECK_ERRORS("version = 1;\nrules = ( { group = \"g\"; memlock = \"2M\"; maximum = \"lots\"; hard = \"4M\"; } );\n",
                     { 2, "maximum = \"lots\"" });
}

/* policy_read_fd(): its arguments, descriptor 0 too */
static void test_read_fd_args(void **state) {
        char *text = (char *)"marker";
        size_t len = 7;
        (void)state;
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(policy_read_fd(fd, NULL, &len), -EINVAL);
        assert_int_equal(policy_read_fd(fd, &text, NULL), -EINVAL);
        assert_int_equal(policy_read_fd(-1, &text, &len), -EINVAL);
        assert_string_equal(text, "marker");
        assert_int_equal(len, 7);
        close(fd);
        /* descriptor 0 is a descriptor like another */
        int saved = dup(0);
        assert_true(saved >= 0);
        close(0);
        fd = open("/dev/null", O_RDONLY);
        int r = fd == 0 ? policy_read_fd(0, &text, &len) : -1;
        dup2(saved, 0);
        close(saved);
        assert_int_equal(fd, 0);
        assert_int_equal(r, 0);
        assert_int_equal(len, 0);
        assert_string_equal(text, "");
        free(text);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_good_full), cmocka_unit_test(test_good_defaults),
          cmocka_unit_test(test_good_patterns), cmocka_unit_test(test_no_rules_warns),
          cmocka_unit_test(test_duplicate_rules_warn), cmocka_unit_test(test_minimum_is_maximum),
          cmocka_unit_test(test_load_string_args),
          cmocka_unit_test(test_needs_hw_nothing), cmocka_unit_test(test_err_version),
          cmocka_unit_test(test_err_top), cmocka_unit_test(test_err_hardware),
          cmocka_unit_test(test_err_rules), cmocka_unit_test(test_err_parse),
          cmocka_unit_test(test_err_include), cmocka_unit_test(test_err_nul), cmocka_unit_test(test_err_depth),
          cmocka_unit_test(test_err_many_lines), cmocka_unit_test(test_too_big_string),
          cmocka_unit_test(test_fd_fifo), cmocka_unit_test(test_open_config_fifo),
          cmocka_unit_test(test_fd_dev_zero), cmocka_unit_test(test_fd_files),
          cmocka_unit_test(test_shipped_conf), cmocka_unit_test(test_eval_precedence),
          cmocka_unit_test(test_eval_lower), cmocka_unit_test(test_eval_auto_arithmetic),
          cmocka_unit_test(test_eval_auto_saturates), cmocka_unit_test(test_eval_fallback_untouched),
          cmocka_unit_test(test_eval_xdp_unknown), cmocka_unit_test(test_eval_bounds),
          cmocka_unit_test(test_eval_never_zero), cmocka_unit_test(test_eval_groups_auto),
          cmocka_unit_test(test_comment_star), cmocka_unit_test(test_message_quote_length),
          cmocka_unit_test(test_eval_fallback_one_byte), cmocka_unit_test(test_patterns_one_error),
          cmocka_unit_test(test_duplicate_apart),
          cmocka_unit_test(test_eval_ram_share_whole),
          cmocka_unit_test(test_float_locale),
                cmocka_unit_test(test_case_locale),
          cmocka_unit_test(test_message_oom), cmocka_unit_test(test_cfgparse_edges),
          cmocka_unit_test(test_cfgparse_at_end), cmocka_unit_test(test_loader_edges),
          cmocka_unit_test(test_read_fd_args), cmocka_unit_test(test_eval_auto_one_queue))
