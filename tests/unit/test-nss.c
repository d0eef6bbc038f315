/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The login path's name service look-ups (lib/login/ident.c's NSS backend, what pam_rdmalimit
 * asks) against passwd and group files of our own, through nss_wrapper (libnss-wrapper): the
 * program writes the files, then runs itself again with LD_PRELOAD=libnss_wrapper.so and
 * NSS_WRAPPER_PASSWD/NSS_WRAPPER_GROUP set.  Entries larger than glibc's first buffer (a user
 * whose gecos is 100 KiB, a group of 5000 members) are read by growing it; one larger than the
 * cap (1 MiB for users) is refused with ERANGE, every time; a user in more groups than the
 * first guess of getgrouplist() gets them all; a name NSS does not know is asked once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "ident.h"
#include "macro.h"

#define BIG_GECOS (100 * 1024)
#define HUGE_GECOS (1536 * 1024)
#define CROWD 5000
#define MANY_GROUPS 100
#define NGROUPS_CAP 65536       /* the most groups ident_user_gids() takes, the kernel's NGROUPS_MAX */
/* nss_wrapper grows its lists one entry at a time: with ASan's realloc(), always a copy, a group
 * file of NGROUPS_CAP lines takes minutes, so a sanitizer build leaves those groups out */
#ifdef __SANITIZE_ADDRESS__
#define CAP_GROUPS false
#else
#define CAP_GROUPS true
#endif

static char dir[] = "/tmp/test-nss-XXXXXX";

static const char *wrapper_path(void) {
        static char found[PATH_MAX];
        static const char *const patterns[] = { "/usr/lib/*/libnss_wrapper.so", "/usr/lib64/libnss_wrapper.so",
                                                "/usr/lib/libnss_wrapper.so", "/usr/local/lib*/libnss_wrapper.so" };
        for (size_t i = 0; i < ELEMENTSOF(patterns); i++) {
                glob_t g;
                if (glob(patterns[i], 0, NULL, &g) == 0 && g.gl_pathc > 0) {
                        snprintf(found, sizeof found, "%s", g.gl_pathv[0]);
                        globfree(&g);
                        return found;
                }
                globfree(&g);
        }
        return NULL;
}

static void write_files(void) {
        char p[PATH_MAX];
        FILE *f = fopen(unit_path(p, dir, "passwd"), "we");
        assert_non_null(f);
        fprintf(f, "root:x:0:0:root:/root:/bin/sh\nalice:x:1001:1001:Alice:/home/alice:/bin/sh\n");
        fprintf(f, "big:x:1002:1002:");
        for (int i = 0; i < BIG_GECOS; i++)
                fputc('b', f);
        fprintf(f, ":/home/big:/bin/sh\nhuge:x:1003:1003:");
        for (int i = 0; i < HUGE_GECOS; i++)
                fputc('h', f);
        fprintf(f, ":/home/huge:/bin/sh\nmany:x:1004:1004::/home/many:/bin/sh\n");
        fprintf(f, "edge:x:1005:1005::/:/bin/sh\nover:x:1006:1006::/:/bin/sh\n");
        assert_int_equal(fclose(f), 0);

        f = fopen(unit_path(p, dir, "group"), "we");
        assert_non_null(f);
        fprintf(f, "root:x:0:\nalice:x:1001:\nmany:x:1004:\ncrowd:x:3000:");
        for (int i = 0; i < CROWD; i++)
                fprintf(f, "m%d,", i);
        fprintf(f, "alice\n");
        for (int i = 0; i < MANY_GROUPS; i++)
                fprintf(f, "g%d:x:%d:many\n", i, 4000 + i);
        /* edge: in NGROUPS_CAP groups with its primary one (not listed), over: in one more */
        for (int i = 0; CAP_GROUPS && i < NGROUPS_CAP; i++)
                fprintf(f, "e%d:x:%d:%s\n", i, 100000 + i, i < NGROUPS_CAP - 1 ? "edge,over" : "over");
        assert_int_equal(fclose(f), 0);
}

static void test_users(void **state) {
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        (void)state;
        assert_int_equal(ident_new_nss(&id), 0);
        assert_int_equal(ident_user(id, "alice", &u), 0);
        assert_string_equal(u->name, "alice");
        assert_int_equal(u->uid, 1001);
        assert_int_equal(u->gid, 1001);
        /* a name NSS does not know, asked twice */
        assert_int_equal(ident_user(id, "nobody-here", &u), -ENOENT);
        assert_int_equal(ident_user(id, "nobody-here", &u), -ENOENT);
        /* an entry larger than the first buffer: the buffer grows */
        assert_int_equal(ident_user(id, "big", &u), 0);
        assert_int_equal(u->uid, 1002);
        assert_int_equal(ident_user_by_uid(id, 1002, &u), 0);
        assert_string_equal(u->name, "big");
        /* larger than the cap: ERANGE, and again (not cached as anything) */
        u = NULL;
        assert_int_equal(ident_user(id, "huge", &u), -ERANGE);
        assert_null(u);
        assert_int_equal(ident_user(id, "huge", &u), -ERANGE);
        assert_null(u);
        assert_int_equal(ident_user_by_uid(id, 1003, &u), -ERANGE);
        assert_int_equal(ident_user_by_uid(id, 77777, &u), -ENOENT);
        assert_int_equal(ident_user_by_uid(id, 1001, &u), 0);
        assert_string_equal(u->name, "alice");
        ident_free(id);
        ident_free(NULL);
}

static void test_groups(void **state) {
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        const struct id_group *g = NULL;
        const gid_t *gids = NULL;
        size_t n = 0;
        (void)state;
        assert_int_equal(ident_new_nss(&id), 0);
        /* a group larger than the first buffer: every member */
        assert_int_equal(ident_group(id, "crowd", &g), 0);
        assert_int_equal(g->gid, 3000);
        size_t k = 0;
        while (g->members[k])
                k++;
        assert_int_equal(k, CROWD + 1);
        assert_string_equal(g->name, "crowd");
        assert_string_equal(g->members[0], "m0");
        assert_string_equal(g->members[CROWD - 1], "m4999");
        assert_string_equal(g->members[CROWD], "alice");
        assert_int_equal(ident_group(id, "no-such-group", &g), -ENOENT);
        /* membership: as a listed member, by the primary group, or not */
        assert_int_equal(ident_user(id, "alice", &u), 0);
        assert_int_equal(ident_group(id, "crowd", &g), 0);
        assert_int_equal(ident_user_member(id, u, g), 1);
        assert_int_equal(ident_group(id, "alice", &g), 0);
        assert_int_equal(ident_user_member(id, u, g), 1);
        assert_int_equal(ident_group(id, "g0", &g), 0);
        assert_int_equal(ident_user_member(id, u, g), 0);
        /* a user in more groups than getgrouplist()'s first guess (64): all of them */
        assert_int_equal(ident_user(id, "many", &u), 0);
        assert_int_equal(ident_user_gids(id, u, &gids, &n), 0);
        assert_int_equal(n, MANY_GROUPS + 1);
        bool seen[MANY_GROUPS] = {};
        for (size_t i = 0; i < n; i++)
                if (gids[i] >= 4000 && gids[i] < 4000 + MANY_GROUPS)
                        seen[gids[i] - 4000] = true;
        for (int i = 0; i < MANY_GROUPS; i++)
                assert_true(seen[i]);
        assert_int_equal(ident_group(id, "g99", &g), 0);
        assert_string_equal(g->name, "g99");
        assert_int_equal(ident_user_member(id, u, g), 1);
        /* not a member: every gid of the list compared, none past it (root's gid is 0) */
        assert_int_equal(ident_group(id, "root", &g), 0);
        assert_string_equal(g->name, "root");
        assert_int_equal(g->gid, 0);
        assert_int_equal(ident_user_member(id, u, g), 0);
        ident_free(id);
}

/* a user in as many groups as the kernel allows (NGROUPS_MAX, 65536) gets them all; in one more,
 * the list is refused (E2BIG), every time, and so is a membership that needs it */
static void test_group_cap(void **state) {
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        const struct id_group *g = NULL;
        const gid_t *gids = NULL;
        size_t n = 0;
        (void)state;
        if (!CAP_GROUPS) {
                print_message("# a sanitizer build: no user in %d groups, not checked\n", NGROUPS_CAP);
                return;
        }
        assert_int_equal(ident_new_nss(&id), 0);
        assert_int_equal(ident_user(id, "edge", &u), 0);
        assert_int_equal(ident_user_gids(id, u, &gids, &n), 0);
        assert_int_equal(n, NGROUPS_CAP);
        assert_int_equal(gids[0], 1005);
        assert_int_equal(gids[1], 100000);
        assert_int_equal(gids[n - 1], 100000 + NGROUPS_CAP - 2);
        assert_int_equal(ident_user(id, "over", &u), 0);
        gids = NULL;
        for (int i = 0; i < 2; i++) {
                assert_int_equal(ident_user_gids(id, u, &gids, &n), -E2BIG);
                assert_null(gids);
        }
        assert_int_equal(ident_group(id, "alice", &g), 0);
        assert_int_equal(ident_user_member(id, u, g), -E2BIG);
        /* listed in the group itself: a member without the list */
        assert_int_equal(ident_group(id, "e65535", &g), 0);
        assert_int_equal(ident_user_member(id, u, g), 1);
        ident_free(id);
}

/* dir/name: text appended, and its mtime moved on (nss_wrapper reloads a file whose mtime changed) */
static void append(const char *name, const char *text) {
        char p[PATH_MAX];
        struct stat st;
        FILE *f = fopen(unit_path(p, dir, name), "ae");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(stat(p, &st), 0);
        const struct timespec t[2] = { st.st_atim, { .tv_sec = st.st_mtim.tv_sec + 10 } };
        assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
}

/* every answer is kept for the life of the context, an absence too: a user or group added after
 * a look-up is not found by that context, a new one finds it */
static void test_cached(void **state) {
        struct ident *id = NULL, *id2 = NULL;
        const struct id_user *u = NULL, *alice = NULL;
        const struct id_group *g = NULL;
        (void)state;
        assert_int_equal(ident_new_nss(&id), 0);
        assert_int_equal(ident_user(id, "alice", &alice), 0);
        assert_int_equal(ident_user(id, "newcomer", &u), -ENOENT);
        assert_int_equal(ident_user_by_uid(id, 1100, &u), -ENOENT);
        assert_int_equal(ident_group(id, "newgroup", &g), -ENOENT);
        append("passwd", "newcomer:x:1100:1100::/:/bin/sh\n");
        append("group", "newgroup:x:1100:newcomer\n");
        assert_int_equal(ident_user(id, "newcomer", &u), -ENOENT);
        assert_int_equal(ident_user_by_uid(id, 1100, &u), -ENOENT);
        assert_int_equal(ident_group(id, "newgroup", &g), -ENOENT);
        assert_int_equal(ident_user(id, "alice", &u), 0);
        assert_ptr_equal(u, alice);
        assert_int_equal(ident_new_nss(&id2), 0);
        assert_int_equal(ident_user(id2, "newcomer", &u), 0);
        assert_int_equal(u->uid, 1100);
        assert_int_equal(ident_user_by_uid(id2, 1100, &u), 0);
        assert_string_equal(u->name, "newcomer");
        assert_int_equal(ident_group(id2, "newgroup", &g), 0);
        assert_string_equal(g->name, "newgroup");
        assert_string_equal(g->members[0], "newcomer");
        ident_free(id2);
        ident_free(id);
}

static int teardown(void **state) {
        (void)state;
        if (getenv("TEST_NSS_OWNER"))
                return unit_rm_rf(dir);
        return 0;
}

int main(int argc, char **argv) {
        (void)argc;
        const char *d = getenv("TEST_NSS_DIR");
        if (!d) {
                const char *lib = wrapper_path();
                if (!lib) {
                        /* ./run installs libnss-wrapper: in CI its absence is a failure */
                        const char *ci = getenv("CI");
                        printf("# libnss_wrapper.so not found (Debian: the libnss-wrapper package)\n");
                        return ci && strcmp(ci, "true") == 0 ? 1 : 77;
                }
                if (!mkdtemp(dir))
                        return 1;
                write_files();
                char pw[PATH_MAX], gr[PATH_MAX], asan[512];
                const char *old = getenv("ASAN_OPTIONS");
                snprintf(pw, sizeof pw, "%s/passwd", dir);
                snprintf(gr, sizeof gr, "%s/group", dir);
                /* an ASan build: libnss_wrapper preloaded before its runtime is fine here */
                snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", old ? old : "", old ? ":" : "");
                if (setenv("NSS_WRAPPER_PASSWD", pw, 1) < 0 || setenv("NSS_WRAPPER_GROUP", gr, 1) < 0 ||
                    setenv("LD_PRELOAD", lib, 1) < 0 || setenv("TEST_NSS_DIR", dir, 1) < 0 ||
                    setenv("TEST_NSS_OWNER", "1", 1) < 0 || setenv("ASAN_OPTIONS", asan, 1) < 0)
                        return 1;
                execv("/proc/self/exe", argv);
                perror("exec /proc/self/exe");
                unit_rm_rf(dir);
                return 1;
        }
        snprintf(dir, sizeof dir, "%s", d);
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_users), cmocka_unit_test(test_groups),
                                            cmocka_unit_test(test_group_cap), cmocka_unit_test(test_cached) };
        return cmocka_run_group_tests(tests, NULL, teardown);
}
