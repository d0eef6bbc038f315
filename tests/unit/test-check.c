/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `rdmalimits check` (lc_check): exact or silent, and every finding with its id and fix. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ident.h"
#include "limitsconf.h"

static char root[] = "/tmp/test-check-XXXXXX";

static void write_file(const char *rel, const char *text) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", root, rel);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state) {
        char p[512];
        (void)state;
        if (!mkdtemp(root))
                return -1;
        snprintf(p, sizeof p, "%s/etc", root);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/etc/security", root);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/etc/security/limits.d", root);
        mkdir(p, 0755);
        write_file("etc/passwd", "root:x:0:0::/root:/bin/sh\n"
                                 "alice:x:1001:1001::/home/alice:/bin/sh\n"
                                 "bob:x:1002:1002::/home/bob:/bin/sh\n"
                                 "carol:x:1003:2000::/home/carol:/bin/sh\n");
        write_file("etc/group", "root:x:0:\nalice:x:1001:\nbob:x:1002:\nrdma_users:x:2000:alice\n");
        return 0;
}

static int teardown(void **state) {
        char cmd[600];
        (void)state;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        return system(cmd) == 0 ? 0 : -1;
}

/* check of limits.conf (text) alone in the root tree, flavour f */
static void run(enum lc_flavour f, const char *conf, const char *dropin, struct diag_list *d) {
        struct lc_tree *t;
        struct ident *id;
        char p[600];
        write_file("etc/security/limits.conf", conf);
        snprintf(p, sizeof p, "%s/etc/security/limits.d/50-x.conf", root);
        unlink(p);
        if (dropin)
                write_file("etc/security/limits.d/50-x.conf", dropin);
        *d = (struct diag_list){};
        assert_int_equal(lc_tree_load(root, f, NULL, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_check(t, id, d), 0);
        ident_free(id);
        lc_tree_free(t);
}

static const struct diag *find(const struct diag_list *d, const char *id, unsigned line) {
        for (size_t i = 0; i < d->n; i++)
                if (d->v[i].id && strcmp(d->v[i].id, id) == 0 && (line == 0 || d->v[i].line == line))
                        return &d->v[i];
        return NULL;
}

static bool says(const struct diag_list *d, unsigned line, const char *needle) {
        for (size_t i = 0; i < d->n; i++)
                if (d->v[i].line == line && strstr(d->v[i].message, needle))
                        return true;
        return false;
}

/* every finding carries an id and a fix (info without an action excepted) */
static void assert_ids(const struct diag_list *d) {
        for (size_t i = 0; i < d->n; i++) {
                if (!d->v[i].id)
                        fail_msg("finding without an id: %s", d->v[i].message);
                if (d->v[i].severity != DIAG_INFO && !d->v[i].fix)
                        fail_msg("%s without a fix: %s", d->v[i].id, d->v[i].message);
        }
}

static void test_quirk(void **state) {
        struct diag_list d;
        (void)state;
        /* alice (in rdma_users) keeps line 1 as her hard limit: the '-' line is refused in
         * her soft slot and so never reaches the hard one */
        run(LC_FLAVOUR_DEBIAN, "@rdma_users hard memlock 1024\nalice soft memlock 1024\n@rdma_users - memlock 4096\n",
            NULL, &d);
        assert_false(says(&d, 1, "never takes effect"));
        assert_null(find(&d, "shadowed-entry", 1));
        const struct diag *x = find(&d, "shadowed-for-some-users", 1);
        assert_non_null(x);
        assert_non_null(strstr(x->message, "takes effect for alice"));
        assert_non_null(strstr(x->message, "carol"));
        assert_ids(&d);
        diag_list_clear(&d);
        /* bob is in no group today, but may be tomorrow: overridden for the known users only */
        run(LC_FLAVOUR_DEBIAN, "@rdma_users hard memlock 1024\nbob soft memlock 1024\n@rdma_users - memlock 4096\n",
            NULL, &d);
        assert_null(find(&d, "shadowed-entry", 1));
        assert_non_null(find(&d, "shadowed-for-known-users", 1));
        diag_list_clear(&d);
        /* without a user's soft line, line 2 takes both slots for everyone: line 1 is dead */
        run(LC_FLAVOUR_DEBIAN, "@rdma_users hard memlock 1024\n@rdma_users - memlock 4096\n", NULL, &d);
        assert_non_null(find(&d, "shadowed-entry", 1));
        diag_list_clear(&d);
        /* a '-' line after a '-' line of the same domain: the quirk refuses both or neither */
        run(LC_FLAVOUR_DEBIAN, "alice soft memlock 64\n@rdma_users - memlock 100\n@rdma_users - memlock 200\n", NULL, &d);
        assert_non_null(find(&d, "shadowed-entry", 2));
        diag_list_clear(&d);
        /* removing line 1 would let line 2's hard half apply: line 1 is not dead */
        run(LC_FLAVOUR_DEBIAN, "alice soft memlock 64\n* - memlock 100\nalice soft memlock 128\n", NULL, &d);
        assert_null(find(&d, "shadowed-entry", 1));
        diag_list_clear(&d);
}

static void test_stop(void **state) {
        struct diag_list d;
        (void)state;
        run(LC_FLAVOUR_DEBIAN, "alice soft memlock 1024\nalice -\n", "alice hard memlock 2048\n", &d);
        assert_non_null(find(&d, "unreachable-entry", 1));
        assert_non_null(find(&d, "no-limits-line", 2));
        diag_list_clear(&d);
        /* '* -' stops nobody */
        run(LC_FLAVOUR_DEBIAN, "* soft memlock 1024\n* -\n", NULL, &d);
        assert_null(find(&d, "unreachable-entry", 1));
        assert_non_null(find(&d, "no-limits-ignored", 2));
        diag_list_clear(&d);
        /* a range stop covering the line's range */
        run(LC_FLAVOUR_UPSTREAM, "1000:1010 - memlock 1024\n0:2000 -\n", NULL, &d);
        assert_non_null(find(&d, "unreachable-entry", 1));
        diag_list_clear(&d);
}

static void test_prior(void **state) {
        struct diag_list d;
        (void)state;
        run(LC_FLAVOUR_UPSTREAM, "0: - memlock 1024\n* - memlock 2048\n@rdma_users soft memlock 1\n", NULL, &d);
        assert_non_null(find(&d, "shadowed-entry", 2));
        assert_non_null(find(&d, "shadowed-entry", 3));
        diag_list_clear(&d);
        /* Debian's root rule: @ ranges match root by uid, with the USER rank: not refused */
        run(LC_FLAVOUR_DEBIAN, "0: - memlock 1024\n@0:10 - memlock 2048\n", NULL, &d);
        assert_null(find(&d, "shadowed-entry", 2));
        diag_list_clear(&d);
}

static void test_known_users(void **state) {
        struct diag_list d;
        (void)state;
        /* rdma_users: alice (listed) and carol (primary gid); both have their own line */
        run(LC_FLAVOUR_DEBIAN, "@rdma_users - memlock 1024\nalice - memlock 2048\ncarol - memlock 2048\n", NULL, &d);
        assert_null(find(&d, "shadowed-entry", 1));
        const struct diag *x = find(&d, "shadowed-for-known-users", 1);
        assert_non_null(x);
        assert_non_null(strstr(x->message, "alice"));
        assert_non_null(strstr(x->message, "carol"));
        diag_list_clear(&d);
}

static void test_new_findings(void **state) {
        struct diag_list d;
        (void)state;
        run(LC_FLAVOUR_DEBIAN,
            "2000:1000 soft memlock 1024\n"        /* 1 */
            "@3000:2000 soft memlock 1024\n"       /* 2 */
            "@rdma-users soft memlock 1024\n"      /* 3 */
            "Alice soft memlock 1024\n"            /* 4 */
            "@RDMA_USERS soft memlock 1024\n"      /* 5 */
            "* soft nofile 1048576\n"              /* 6 */
            "* hard nofile 65536\n"                /* 7 */
            "bob hard nofile 4000000000\n"         /* 8 */
            "bob soft nofile unlimited\n"          /* 9 */
            "alice soft memlock 4096\n"            /* 10 */
            "alice soft memlock 4096\n"            /* 11 */
            "@rdma_users soft core 0\n"            /* 12 */
            "@rdma_users soft core 0\n",           /* 13 */
            NULL, &d);
        const struct diag *x = find(&d, "inverted-range", 1);
        assert_non_null(x);
        assert_string_equal(x->fix, "write 1000:2000");
        x = find(&d, "inverted-range", 2);
        assert_non_null(x);
        assert_string_equal(x->fix, "write @2000:3000");
        x = find(&d, "unknown-domain", 3);
        assert_non_null(x);
        assert_non_null(strstr(x->fix, "'@rdma_users'"));
        assert_int_equal(x->severity, DIAG_WARNING);
        x = find(&d, "unknown-domain", 4);
        assert_non_null(x);
        assert_non_null(strstr(x->fix, "'alice'"));
        x = find(&d, "unknown-domain", 5);
        assert_non_null(x);
        assert_non_null(strstr(x->fix, "'@rdma_users'"));
        x = find(&d, "soft-above-hard", 6);
        assert_non_null(x);
        assert_non_null(strstr(x->message, "nofile"));
        assert_non_null(find(&d, "nofile-unlimited", 9));
        x = find(&d, "duplicate-entry", 10);
        assert_non_null(x);
        assert_int_equal(x->severity, DIAG_INFO);
        assert_non_null(strstr(x->message, "never takes effect"));
        assert_null(find(&d, "shadowed-entry", 10));
        x = find(&d, "duplicate-entry", 13);
        assert_non_null(x);
        assert_int_equal(x->severity, DIAG_INFO);
        assert_ids(&d);
        diag_list_clear(&d);
}

static void test_crlf(void **state) {
        struct diag_list d;
        (void)state;
        const char *text = "alice soft memlock unlimited\r\nalice hard memlock unlimited\r\n";
        run(LC_FLAVOUR_DEBIAN, text, NULL, &d);
        const struct diag *x = find(&d, "crlf", 0);
        assert_non_null(x);
        assert_non_null(strstr(x->message, "CRLF"));
        assert_ids(&d);
        diag_list_clear(&d);
        run(LC_FLAVOUR_UPSTREAM, text, NULL, &d);
        x = find(&d, "crlf", 0);
        assert_non_null(x);
        assert_int_equal(x->severity, DIAG_ERROR);
        assert_non_null(find(&d, "crlf", 1));
        assert_false(says(&d, 1, "is not a number"));
        assert_ids(&d);
        diag_list_clear(&d);
}

/* A file the checking user cannot read is "permission denied", not a mode problem.  Root
 * reads a mode 000 file, so as root the check runs in a child that became nobody. */
static int eacces_check(void) {
        struct diag_list d = {};
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        if (lc_tree_load(root, LC_FLAVOUR_DEBIAN, NULL, &t) < 0 || ident_new(root, &id) < 0 || lc_check(t, id, &d) < 0)
                return 3;
        ident_free(id);
        lc_tree_free(t);
        const struct diag *x = find(&d, "unreadable-file", 0);
        int ok = x && strstr(x->message, "permission denied") && !strstr(x->message, "writable");
        diag_list_clear(&d);
        return ok ? 0 : 1;
}

static void test_eacces(void **state) {
        char p[600];
        (void)state;
        write_file("etc/security/limits.conf", "");
        snprintf(p, sizeof p, "%s/etc/security/limits.d/50-x.conf", root);
        unlink(p);
        write_file("etc/security/limits.d/60-secret.conf", "* soft memlock 1\n");
        snprintf(p, sizeof p, "%s/etc/security/limits.d/60-secret.conf", root);
        assert_int_equal(chmod(p, 0), 0);
        if (geteuid() != 0)
                assert_int_equal(eacces_check(), 0);
        else {
                /* the tree must be searchable by nobody: mkdtemp made it 0700 */
                assert_int_equal(chmod(root, 0755), 0);
                pid_t pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                            setresuid(65534, 65534, 65534) < 0)
                                _exit(2);
                        _exit(eacces_check());
                }
                int st;
                assert_int_equal(waitpid(pid, &st, 0), pid);
                assert_true(WIFEXITED(st));
                assert_int_equal(WEXITSTATUS(st), 0);
                chmod(root, 0700);
        }
        unlink(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quirk),       cmocka_unit_test(test_stop),
                cmocka_unit_test(test_prior),       cmocka_unit_test(test_known_users),
                cmocka_unit_test(test_new_findings), cmocka_unit_test(test_crlf),
                cmocka_unit_test(test_eacces),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
