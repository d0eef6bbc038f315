/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `rdmalimits check` (lc_check): exact or silent, and every finding with its id and fix. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "ident-files.h"
#include "ident.h"
#include "macro.h"
#include "limitsconf.h"

static char root[] = "/tmp/test-check-XXXXXX";

static int setup(void **state) {
        (void)state;
        return unit_tree(root, (const struct unit_file[]){
                { "etc/security/limits.d", NULL },
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\n"
                                "alice:x:1001:1001::/home/alice:/bin/sh\n"
                                "bob:x:1002:1002::/home/bob:/bin/sh\n"
                                "carol:x:1003:2000::/home/carol:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\nbob:x:1002:\nrdma_users:x:2000:alice\n" },
                {},
        });
}

/* limits.conf (text), and limits.d/50-x.conf (dropin) when not NULL, in the root tree */
static void put_conf(const char *conf, const char *dropin) {
        char p[PATH_MAX];
        unit_put(root, "etc/security/limits.conf", conf);
        unlink(unit_path(p, root, "etc/security/limits.d/50-x.conf"));
        if (dropin)
                unit_put(root, "etc/security/limits.d/50-x.conf", dropin);
}

/* check of that tree, flavour f */
static void run(enum lc_flavour f, const char *conf, const char *dropin, struct diag_list *d) {
        struct lc_tree *t;
        struct ident *id;
        put_conf(conf, dropin);
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

/* A finding a check must or must not give: id at line (0: any line).  When it is there: words
 * its message contains, its fix (fix_is: exactly, fix_has: a part of it), its severity. */
struct want {
        const char *id;
        unsigned line;
        bool absent;
        const char *message[2], *fix_is, *fix_has;
        bool check_severity;
        enum diag_severity severity;
};
#define SEVERITY(s) .check_severity = true, .severity = (s)

/* One check: the files, the findings wanted, and a message no finding at line gives. */
struct check_case {
        enum lc_flavour flavour;
        const char *conf, *dropin;
        struct want want[16];
        unsigned unsaid_line;
        const char *unsaid;
};

static void run_cases(const struct check_case *cases, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const struct check_case *c = &cases[i];
                struct diag_list d;
                run(c->flavour, c->conf, c->dropin, &d);
                for (const struct want *w = c->want; w->id; w++) {
                        const struct diag *x = find(&d, w->id, w->line);
                        if (w->absent) {
                                if (x)
                                        fail_msg("case %zu: %s at %u: %s", i, w->id, w->line, x->message);
                                continue;
                        }
                        if (!x)
                                fail_msg("case %zu: no %s at %u", i, w->id, w->line);
                        for (size_t k = 0; k < ELEMENTSOF(w->message) && w->message[k]; k++)
                                if (!strstr(x->message, w->message[k]))
                                        fail_msg("case %zu: %s: '%s' has no '%s'", i, w->id, x->message, w->message[k]);
                        if (w->fix_is) {
                                assert_non_null(x->fix);
                                assert_string_equal(x->fix, w->fix_is);
                        }
                        if (w->fix_has && (!x->fix || !strstr(x->fix, w->fix_has)))
                                fail_msg("case %zu: %s: fix '%s' has no '%s'", i, w->id, x->fix ? x->fix : "",
                                         w->fix_has);
                        if (w->check_severity)
                                assert_int_equal(x->severity, w->severity);
                }
                if (c->unsaid && says(&d, c->unsaid_line, c->unsaid))
                        fail_msg("case %zu: line %u says '%s'", i, c->unsaid_line, c->unsaid);
                assert_ids(&d);
                diag_list_clear(&d);
        }
}

static void test_quirk(void **state) {
        static const struct check_case cases[] = {
                /* alice (in rdma_users) keeps line 1 as her hard limit: the '-' line is refused in
                 * her soft slot and so never reaches the hard one */
                { LC_FLAVOUR_DEBIAN,
                  "@rdma_users hard memlock 1024\nalice soft memlock 1024\n@rdma_users - memlock 4096\n", NULL,
                  { { "shadowed-entry", 1, .absent = true },
                    { "shadowed-for-some-users", 1, .message = { "takes effect for alice", "carol" } } },
                  1, "never takes effect" },
                /* bob is in no group today, but may be tomorrow: overridden for the known users only */
                { LC_FLAVOUR_DEBIAN,
                  "@rdma_users hard memlock 1024\nbob soft memlock 1024\n@rdma_users - memlock 4096\n", NULL,
                  { { "shadowed-entry", 1, .absent = true }, { "shadowed-for-known-users", 1 } } },
                /* without a user's soft line, line 2 takes both slots for everyone: line 1 is dead */
                { LC_FLAVOUR_DEBIAN, "@rdma_users hard memlock 1024\n@rdma_users - memlock 4096\n", NULL,
                  { { "shadowed-entry", 1 } } },
                /* a '-' line after a '-' line of the same domain: the quirk refuses both or neither */
                { LC_FLAVOUR_DEBIAN, "alice soft memlock 64\n@rdma_users - memlock 100\n@rdma_users - memlock 200\n",
                  NULL, { { "shadowed-entry", 2 } } },
                /* removing line 1 would let line 2's hard half apply: line 1 is not dead */
                { LC_FLAVOUR_DEBIAN, "alice soft memlock 64\n* - memlock 100\nalice soft memlock 128\n", NULL,
                  { { "shadowed-entry", 1, .absent = true } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

static void test_stop(void **state) {
        static const struct check_case cases[] = {
                { LC_FLAVOUR_DEBIAN, "alice soft memlock 1024\nalice -\n", "alice hard memlock 2048\n",
                  { { "unreachable-entry", 1 }, { "no-limits-line", 2 } } },
                /* '* -' stops nobody */
                { LC_FLAVOUR_DEBIAN, "* soft memlock 1024\n* -\n", NULL,
                  { { "unreachable-entry", 1, .absent = true }, { "no-limits-ignored", 2 } } },
                /* a range stop covering the line's range */
                { LC_FLAVOUR_UPSTREAM, "1000:1010 - memlock 1024\n0:2000 -\n", NULL, { { "unreachable-entry", 1 } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

static void test_prior(void **state) {
        static const struct check_case cases[] = {
                { LC_FLAVOUR_UPSTREAM, "0: - memlock 1024\n* - memlock 2048\n@rdma_users soft memlock 1\n", NULL,
                  { { "shadowed-entry", 2 }, { "shadowed-entry", 3 } } },
                /* Debian's root rule: @ ranges match root by uid, with the USER rank: not refused */
                { LC_FLAVOUR_DEBIAN, "0: - memlock 1024\n@0:10 - memlock 2048\n", NULL,
                  { { "shadowed-entry", 2, .absent = true } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

/* a later range of the same kind that holds every id of a line's range overrides it; a range
 * of the other kind (uids against primary gids) holds different users and never does */
static void test_ranges(void **state) {
        static const struct check_case cases[] = {
                { LC_FLAVOUR_UPSTREAM, "1000:1999 - memlock 1024\n1000:2999 - memlock 2048\n", NULL,
                  { { "shadowed-entry", 1, .message = { "overridden by" } } } },
                { LC_FLAVOUR_UPSTREAM, "@2000:2999 - memlock 1024\n@1000:2999 - memlock 2048\n", NULL,
                  { { "shadowed-entry", 1, .message = { "overridden by" } } } },
                { LC_FLAVOUR_UPSTREAM, "1000:1999 - memlock 1024\n@1000:2999 - memlock 2048\n", NULL,
                  { { "shadowed-entry", 1, .absent = true } } },
                { LC_FLAVOUR_UPSTREAM, "@1000:1999 - memlock 1024\n0:2999 - memlock 2048\n", NULL,
                  { { "shadowed-entry", 1, .absent = true } } },
                /* a wider range before the line does not override it */
                { LC_FLAVOUR_UPSTREAM, "1000:2999 - memlock 2048\n1000:1999 - memlock 1024\n", NULL,
                  { { "shadowed-entry", 2, .absent = true } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

/*
 * The judgement that a line never takes effect, case by case (each pins one step of line_dead()
 * and the helpers it calls: a weaker claim or a false one both fail here).  U: upstream, D:
 * Debian (its root rule).  A line "dead" here takes effect in no session of any user; "alive"
 * takes effect for some user of some user database.
 */
#define U LC_FLAVOUR_UPSTREAM
#define D LC_FLAVOUR_DEBIAN
#define DEAD(n) { "shadowed-entry", (n) }
#define ALIVE(n) { "shadowed-entry", (n), .absent = true }
#define STOPPED(n) { "unreachable-entry", (n) }
#define NOT_STOPPED(n) { "unreachable-entry", (n), .absent = true }
static void test_dead_lines(void **state) {
        static const struct check_case cases[] = {
                /* a '%' no-limits line never stops anyone, whatever its gid */
                { U, ":1000 soft memlock 1024\n%:1000 -\n", NULL, { NOT_STOPPED(1) } },
                /* two @group lines of different groups: neither covers the other */
                { U, "@rdma_users - memlock 1024\n@other - memlock 2048\n", NULL, { ALIVE(1) } },
                /* a later range that holds only part of the line's ids, or overlaps it */
                { U, "1000:1999 - memlock 1024\n1000:1500 - memlock 2048\n", NULL, { ALIVE(1) } },
                { U, "1000:1999 - memlock 1024\n1500:2999 - memlock 2048\n", NULL, { ALIVE(1) } },
                /* a range of one id (min = max) is no inverted range */
                { U, "1000:1000 - memlock 1024\n1000:1000 - memlock 2048\n", NULL,
                  { DEAD(1), { "inverted-range", 1, .absent = true } } },
                /* a uid range stop does not stop a primary-gid range line */
                { U, "@1000:1999 - memlock 1024\n0:5000 -\n", NULL, { NOT_STOPPED(1) } },
                /* an inverted line (nobody) is reported as such, not as overridden */
                { U, "2000:1000 soft memlock 1\n2000:1000 soft memlock 2\n", NULL,
                  { ALIVE(1), { "inverted-range", 1 } } },
                /* a stronger soft line that matches nobody (inverted) refuses nothing */
                { U, "@rdma_users hard memlock 100\n2000:1000 soft memlock 50\n@rdma_users - memlock 200\n", NULL,
                  { DEAD(1) } },
                /* a stronger soft line (uids) before a group's '-' line: users with both refuse its soft
                 * half and so its hard half; ids of different kinds never prove them apart */
                { U, "@1000:1999 hard memlock 100\n5000:5999 soft memlock 50\n@1000:1999 - memlock 200\n", NULL,
                  { ALIVE(1) } },
                /* a weaker or equally strong soft line in between refuses nothing */
                { U, "@rdma_users hard memlock 1024\n* soft memlock 1024\n@rdma_users - memlock 4096\n", NULL,
                  { DEAD(1) } },
                { U, "@rdma_users hard memlock 1024\n@other soft memlock 1024\n@rdma_users - memlock 4096\n", NULL,
                  { DEAD(1) } },
                /* a hard-only line is tried whatever the soft slot holds */
                { U, "@rdma_users hard memlock 1024\nalice soft memlock 1024\n@rdma_users hard memlock 4096\n", NULL,
                  { DEAD(1) } },
                /* a line for everyone of the same rank later takes both slots */
                { U, "@rdma_users - memlock 1024\n@0: - memlock 2048\n", NULL, { DEAD(1) } },
                /* no-limits lines: for one user only; for everyone */
                { U, "alice soft memlock 1024\nbob -\n", NULL, { NOT_STOPPED(1) } },
                { U, "alice soft memlock 1024\n0: -\n", NULL, { STOPPED(1) } },
                /* a one-letter name is a name (not '*') */
                { U, "a soft memlock 1024\na -\n", NULL, { STOPPED(1) } },
                /* @ ranges: upstream compares the gid on both; Debian's root rule compares root's uid
                 * on the limit line and the gid on the stop: no claim there */
                { U, "@1000:1010 - memlock 1024\n@0:2000 -\n", NULL, { STOPPED(1) } },
                { D, "@1000:1010 - memlock 1024\n@0:2000 -\n", NULL, { NOT_STOPPED(1) } },
                { D, "@0:10 soft memlock 1024\n@0:10 -\n", NULL, { NOT_STOPPED(1) } },
                /* a stronger line for everyone first: its hard half, tried only when its soft half
                 * was taken */
                { U, "@0: - memlock 1024\n* hard memlock 2048\n", NULL, { DEAD(2) } },
                { U, "alice soft memlock 1\n@0: - memlock 1024\n* hard memlock 2048\n", NULL, { ALIVE(3) } },
                { U, "0: soft memlock 1024\n* hard memlock 4096\n", NULL, { ALIVE(2) } },
                { U, "0: hard memlock 1024\n* soft memlock 2\n", NULL, { ALIVE(2) } },
                { U, "0: soft memlock 1024\n@0: hard memlock 2048\n* hard memlock 4096\n", NULL, { DEAD(3) } },
                { U, "@0: hard memlock 1\n0: soft memlock 2\n* - memlock 3\n", NULL, { DEAD(3) } },
                { D, "0: - memlock 1024\n* - memlock 2048\n", NULL, { DEAD(2) } },
                { U, "0: - memlock 1024\n@1000:2000 - memlock 2048\n", NULL, { DEAD(2) } },
                /* the same rank first is no stronger line */
                { U, "0: soft memlock 1\n1000:2000 soft memlock 2\n", NULL, { ALIVE(2) } },
                /* later lines of the line's own domain, after a no-limits line or one for everyone */
                { U, "alice -\nbob soft memlock 1\nbob soft memlock 2\n", NULL, { DEAD(2) } },
                { U, "0: soft memlock 1\nbob soft memlock 1\nbob soft memlock 2\n", NULL, { DEAD(2), ALIVE(1) } },
                /* four lines of one domain: each but the last is overridden by the next */
                { U, "bob soft memlock 1\nbob soft memlock 2\nbob soft memlock 3\nbob soft memlock 4\n", NULL,
                  { DEAD(1), DEAD(2), DEAD(3), ALIVE(4), { "duplicate-entry", 4, .absent = true } } },
                /* the first line that takes the slot is the one named */
                { U, "bob soft memlock 1\n0: soft memlock 2\nbob soft memlock 3\n", NULL,
                  { { "shadowed-entry", 1, .message = { "limits.conf:2" } } } },
                /* a hard-only line later does not take the soft slot */
                { U, "alice soft memlock 64\nalice hard memlock 128\n", NULL, { ALIVE(1) } },
                /* soft and hard from two later lines: both named */
                { U, "alice - memlock 64\nalice hard memlock 128\nalice soft memlock 256\n", NULL,
                  { { "shadowed-entry", 1, .message = { "limits.conf:3", "limits.conf:2 ('alice', USER rank) for the hard" } } } },
                /* one later line takes both: named once */
                { U, "alice - memlock 64\nalice - memlock 128\n", NULL, { DEAD(1) }, 1, "for the hard limit" },
                /* removing a line must change nothing: a weaker soft-only line, or a '-' line of the
                 * same rank, in between is harmless */
                { U, "alice soft memlock 64\n* soft memlock 100\nalice soft memlock 128\n", NULL, { DEAD(1) } },
                { U, "alice soft memlock 64\n1000:2000 - memlock 100\nalice soft memlock 128\n", NULL, { DEAD(1) } },
                /* ... and so is a weaker hard-only line: only a '-' line has a hard half that the
                 * soft slot refuses */
                { U, "alice soft memlock 64\n* hard memlock 100\nalice soft memlock 128\n", NULL, { DEAD(1) } },
                /* the weaker '-' line comes after the line that takes the hard slot: its hard half,
                 * tried once line 1 is gone, is refused there (user rank holds the slot) */
                { U, "alice - memlock 64\nalice hard memlock 80\n* - memlock 100\nalice soft memlock 128\n", NULL,
                  { DEAD(1) } },
                /* ... or comes from a stronger line for everyone before it (here it refuses line 2's
                 * hard half too) */
                { U, "0: hard memlock 1\n@rdma_users - memlock 64\n* - memlock 100\n@rdma_users soft memlock 128\n",
                  NULL, { DEAD(2) } },
                /* ... and without a line that takes the hard slot again it is not harmless */
                { U, "alice - memlock 64\n* - memlock 100\nalice soft memlock 128\n", NULL, { ALIVE(1) } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}
#undef U
#undef D
#undef DEAD
#undef ALIVE
#undef STOPPED
#undef NOT_STOPPED

static void test_known_users(void **state) {
        static const struct check_case cases[] = {
                /* rdma_users: alice (listed) and carol (primary gid); both have their own line */
                { LC_FLAVOUR_DEBIAN, "@rdma_users - memlock 1024\nalice - memlock 2048\ncarol - memlock 2048\n", NULL,
                  { { "shadowed-entry", 1, .absent = true },
                    { "shadowed-for-known-users", 1, .message = { "alice", "carol" } } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

static void test_new_findings(void **state) {
        static const struct check_case cases[] = {
                { LC_FLAVOUR_DEBIAN,
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
                  NULL,
                  { { "inverted-range", 1, .fix_is = "write 1000:2000" },
                    { "inverted-range", 2, .fix_is = "write @2000:3000" },
                    { "unknown-domain", 3, .fix_has = "'@rdma_users'", SEVERITY(DIAG_WARNING) },
                    { "unknown-domain", 4, .fix_has = "'alice'" },
                    { "unknown-domain", 5, .fix_has = "'@rdma_users'" },
                    { "soft-above-hard", 6, .message = { "nofile" } },
                    { "nofile-unlimited", 9 },
                    { "duplicate-entry", 10, .message = { "never takes effect" }, SEVERITY(DIAG_INFO) },
                    { "shadowed-entry", 10, .absent = true },
                    { "duplicate-entry", 13, SEVERITY(DIAG_INFO) } } },
                /* a unit pam_limits ignores: KiB is read as meant (a warning), M is not (an error) */
                { LC_FLAVOUR_DEBIAN,
                  "bob hard memlock 2048k\n"            /* 1 */
                  "bob soft memlock 64m\n"              /* 2 */
                  "carl soft memlock 8KiB\n",           /* 3 */
                  NULL,
                  { { "unit-ignored", 1, .message = { "as meant" }, SEVERITY(DIAG_WARNING) },
                    { "unit-misread", 1, .absent = true },
                    { "unit-misread", 2, SEVERITY(DIAG_ERROR) },
                    { "unit-ignored", 3, SEVERITY(DIAG_WARNING) } } },
        };
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
}

static void test_crlf(void **state) {
#define CRLF_TEXT "alice soft memlock unlimited\r\nalice hard memlock unlimited\r\n"
        static const struct check_case cases[] = {
                { LC_FLAVOUR_DEBIAN, CRLF_TEXT, NULL, { { "crlf", 0, .message = { "CRLF" } } } },
                { LC_FLAVOUR_UPSTREAM, CRLF_TEXT, NULL,
                  { { "crlf", 0, SEVERITY(DIAG_ERROR) }, { "crlf", 1 } }, 1, "is not a number" },
        };
#undef CRLF_TEXT
        (void)state;
        run_cases(cases, ELEMENTSOF(cases));
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
        char p[PATH_MAX];
        (void)state;
        put_conf("", NULL);
        unit_put(root, "etc/security/limits.d/60-secret.conf", "* soft memlock 1\n");
        unit_path(p, root, "etc/security/limits.d/60-secret.conf");
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

/* check of a tree whose users u1..u8 have names of len[i] bytes ("u1" and x's): u1..u5 have
 * lines of their own that override @g's, u6..u8 get @g's.  The message of @g's
 * shadowed-for-some-users finding into msg, the names into name. */
static void shown_case(const unsigned len[8], char name[8][202], char *msg, size_t size) {
        static char tmpl[] = "/tmp/test-check-shown-XXXXXX";
        char tr[sizeof tmpl], *fixture = unit_dir, passwd[4096], conf[2048];
        struct diag_list d = {};
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        size_t np = 0, nc = 0;

        memcpy(tr, tmpl, sizeof tr);
        np += (size_t)snprintf(passwd + np, sizeof passwd - np, "root:x:0:0::/root:/bin/sh\n");
        nc += (size_t)snprintf(conf + nc, sizeof conf - nc, "@g soft memlock 1\n");
        for (int i = 0; i < 8; i++) {
                assert_true(len[i] >= 2 && len[i] <= 201);
                snprintf(name[i], 202, "u%d", i + 1);
                memset(name[i] + 2, 'x', len[i] - 2);
                name[i][len[i]] = '\0';
                np += (size_t)snprintf(passwd + np, sizeof passwd - np, "%s:x:%d:100::/:/bin/sh\n", name[i], 1001 + i);
                if (i < 5)
                        nc += (size_t)snprintf(conf + nc, sizeof conf - nc, "%s soft memlock 2\n", name[i]);
        }
        assert_true(np < sizeof passwd && nc < sizeof conf);
        assert_int_equal(unit_tree(tr, (const struct unit_file[]){
                { "etc/passwd", passwd }, { "etc/group", "root:x:0:\ng:x:100:\n" },
                { "etc/security/limits.conf", conf }, {},
        }), 0);
        unit_dir = fixture;
        assert_int_equal(lc_tree_load(tr, LC_FLAVOUR_UPSTREAM, NULL, &t), 0);
        assert_int_equal(ident_new(tr, &id), 0);
        assert_int_equal(lc_check(t, id, &d), 0);
        const struct diag *x = find(&d, "shadowed-for-some-users", 1);
        assert_non_null(x);
        snprintf(msg, size, "%s", x->message);
        diag_list_clear(&d);
        ident_free(id);
        lc_tree_free(t);
        assert_int_equal(unit_rm_rf(tr), 0);
}

/* The names a finding lists: four at most ("and N more"), cut at 799 bytes for the overridden
 * users' texts and 199 for the others' names, as snprintf() into buffers of 800 and 200 bytes
 * cut them: a list one byte longer than that is cut, one that fits is not */
static void test_shown_bounds(void **state) {
        static const char eff_at[] = "; takes effect for ";
        static const unsigned long_names[8] = { 201, 201, 201, 201, 201, 201, 201, 201 };
        /* u6, u7, u8: 66 + 2 + 66 + 2 + 64 = 200 bytes, one too many; then 199 */
        static const unsigned eff200[8] = { 2, 2, 2, 2, 2, 66, 66, 64 };
        static const unsigned eff199[8] = { 2, 2, 2, 2, 2, 66, 66, 63 };
        char name[8][202], msg[4096];
        (void)state;

        shown_case(long_names, name, msg, sizeof msg);
        const char *mid = strstr(msg, " and 1 more; takes effect for ");
        assert_non_null(mid);
        assert_true(strncmp(msg, "overridden for ", 15) == 0);
        assert_int_equal((size_t)(mid - (msg + 15)), 799);                  /* cut there */
        assert_true(strncmp(msg + 15, name[0], 201) == 0);                    /* the first in full */
        const char *eff = mid + strlen(" and 1 more; takes effect for ");
        assert_int_equal(strlen(eff), 199);                                   /* cut there: no "and more" */
        assert_true(strncmp(eff, name[5], 199) == 0);

        shown_case(eff200, name, msg, sizeof msg);
        eff = strstr(msg, eff_at);
        assert_non_null(eff);
        eff += strlen(eff_at);
        assert_int_equal(strlen(eff), 199);
        assert_true(strncmp(eff + 136, name[7], 63) == 0);

        shown_case(eff199, name, msg, sizeof msg);
        eff = strstr(msg, eff_at);
        assert_non_null(eff);
        eff += strlen(eff_at);
        assert_int_equal(strlen(eff), 199);
        assert_string_equal(eff + 136, name[7]);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_quirk), cmocka_unit_test(test_stop), cmocka_unit_test(test_prior),
          cmocka_unit_test(test_ranges), cmocka_unit_test(test_dead_lines), cmocka_unit_test(test_known_users), cmocka_unit_test(test_new_findings), cmocka_unit_test(test_crlf),
          cmocka_unit_test(test_eacces), cmocka_unit_test(test_shown_bounds))
