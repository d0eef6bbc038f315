/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pam_limits model: grammar, ranks, quirks, baseline, check findings. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"
#include "limits-internal.h"
#include "strmap.h"

#define KiB UINT64_C(1024)
#define INF UINT64_MAX

static char root[] = "/tmp/test-limits-XXXXXX";

static int setup(void **state) {
        (void)state;
        return unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\n"
                                "alice:x:1001:1001::/home/alice:/bin/sh\n"
                                "bob:x:1002:2000::/home/bob:/bin/sh\n"
                                "carol:x:1003:1003::/home/carol:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\ncarol:x:1003:\n"
                               "rdma:x:2000:alice\nspdk:x:2001:carol,alice\nempty:x:2002:\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         131072               6291456              bytes     \n" },
                {},
        });
}

/* ---- lc_resolve_prepared() gives what lc_resolve() gives ---- */

static void assert_slot_equal(const struct lc_slot *a, const struct lc_slot *b, const char *what) {
        if (a->known != b->known || a->value != b->value || a->rank != b->rank || a->src != b->src)
                fail_msg("%s: prepared %d/%llu/%d/%p, plain %d/%llu/%d/%p", what, a->known, (unsigned long long)a->value,
                         a->rank, (const void *)a->src, b->known, (unsigned long long)b->value, b->rank,
                         (const void *)b->src);
}

static void assert_result_equal(const struct lc_result *a, const struct lc_result *b, const char *user) {
        if (a->kind != b->kind || a->stop != b->stop || a->chroot != b->chroot || a->bad_file != b->bad_file ||
            a->root_user_debian != b->root_user_debian || a->soft_clamped != b->soft_clamped ||
            a->login_limit != b->login_limit || a->login_line != b->login_line || a->uid != b->uid ||
            a->n_events != b->n_events)
                fail_msg("%s: prepared kind %d, %zu events; plain kind %d, %zu events", user, a->kind, a->n_events,
                         b->kind, b->n_events);
        assert_slot_equal(&a->soft, &b->soft, user);
        assert_slot_equal(&a->hard, &b->hard, user);
        for (int i = 0; i < RLIM_NLIMITS; i++) {
                assert_slot_equal(&a->rl_soft[i], &b->rl_soft[i], user);
                assert_slot_equal(&a->rl_hard[i], &b->rl_hard[i], user);
        }
        for (size_t i = 0; i < a->n_events; i++) {
                const struct lc_event *x = &a->events[i], *y = &b->events[i];
                if (x->line != y->line || x->slot != y->slot || x->rank != y->rank || x->outcome != y->outcome ||
                    x->held_rank != y->held_rank || x->held != y->held)
                        fail_msg("%s: event %zu differs (line %u against %u)", user, i, x->line ? x->line->lineno : 0,
                                 y->line ? y->line->lineno : 0);
        }
}

/* lc_resolve() into *r, checked against lc_resolve_prepared() on a prepared tree */
static int resolve_both(const struct lc_tree *t, struct ident *id, const char *user, const struct lc_baseline *b,
                        struct lc_result *r) {
        struct lc_prep *prep = NULL;
        struct lc_result pr = {};
        int e = lc_resolve(t, id, user, b, r);
        assert_int_equal(lc_prep_new(t, id, &prep), 0);
        assert_int_equal(lc_resolve_prepared(t, id, prep, user, b, &pr), e);
        /* twice: the second walk takes the groups the first one looked up */
        if (e == 0) {
                assert_result_equal(&pr, r, user);
                lc_result_clear(&pr);
                assert_int_equal(lc_resolve_prepared(t, id, prep, user, b, &pr), 0);
                assert_result_equal(&pr, r, user);
        }
        lc_result_clear(&pr);
        lc_prep_free(prep);
        return e;
}

struct outcome {
        enum lc_result_kind kind;
        uint64_t soft, hard;
        bool soft_known, hard_known;
        unsigned soft_line, hard_line; /* 0: baseline */
        bool clamped;
};

static struct outcome resolve(const char *text, enum lc_flavour fl, const char *user) {
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b;
        struct lc_result r = {};
        struct outcome o = {};
        char p[512];

        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), fl, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(t, p, &b), 0);
        assert_int_equal(resolve_both(t, id, user, &b, &r), 0);
        o.kind = r.kind;
        o.soft = r.soft.value;
        o.hard = r.hard.value;
        o.soft_known = r.soft.known;
        o.hard_known = r.hard.known;
        o.soft_line = r.soft.src ? r.soft.src->lineno : 0;
        o.hard_line = r.hard.src ? r.hard.src->lineno : 0;
        o.clamped = r.soft_clamped;
        lc_result_clear(&r);
        lc_tree_free(t);
        ident_free(id);
        return o;
}

#define D LC_FLAVOUR_DEBIAN
#define U LC_FLAVOUR_UPSTREAM

static void test_baseline(void **state) {
        struct outcome o = resolve("# nothing\n", D, "alice");
        assert_int_equal(o.kind, LC_RES_LIMITS);
        assert_true(o.soft == 131072 && o.hard == 6291456);
        assert_int_equal(o.soft_line, 0);
        /* upstream: the service's own limits */
        o = resolve("# nothing\n", U, "alice");
        assert_false(o.soft_known);
        assert_false(o.hard_known);
        /* a missing /proc/1/limits: pam_limits' own default, max(page size, 64 KiB) */
        struct lc_tree *t;
        struct lc_baseline b;
        assert_int_equal(lc_tree_load_text("x", "", 0, D, &t), 0);
        assert_int_equal(lc_baseline_load(t, "/nonexistent/limits", &b), 0);
        assert_true(b.known);
        assert_int_equal(b.rank, LC_RANK_DEFAULT);
        assert_true(b.soft == (sysconf(_SC_PAGESIZE) > 65536 ? (uint64_t)sysconf(_SC_PAGESIZE) : 65536));
        lc_tree_free(t);
}

static void test_values(void **state) {
        struct outcome o;
        o = resolve("alice soft memlock 1024\n", D, "alice");
        assert_true(o.soft == 1024 * KiB);
        assert_int_equal(o.soft_line, 1);
        assert_true(o.hard == 6291456);
        o = resolve("alice - memlock 64M\n", D, "alice");   /* no units: 64 KiB */
        assert_true(o.soft == 64 * KiB && o.hard == 64 * KiB);
        o = resolve("alice - memlock 1024abc\n", D, "alice");
        assert_true(o.soft == 1024 * KiB);
        o = resolve("alice - memlock -2\n", D, "alice");     /* wraps, saturates */
        assert_true(o.soft == INF);
        o = resolve("alice - memlock UNLIMITED\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice - memlock -\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice - memlock -1\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice - memlock infinity\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice - memlock 99999999999999999999999\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice - memlock 18014398509481984\n", D, "alice"); /* >= INF/1024 */
        assert_true(o.soft == INF);
        o = resolve("alice - memlock 0\n", D, "alice");
        assert_true(o.soft == 0 && o.soft_line == 1);
        o = resolve("alice - memlock abc\n", D, "alice"); /* skipped */
        assert_int_equal(o.soft_line, 0);
        o = resolve("alice - memlock 0x10\n", D, "alice"); /* read as 0 */
        assert_true(o.soft == 0 && o.soft_line == 1);
}

static void test_case_and_syntax(void **state) {
        struct outcome o;
        o = resolve("alice SOFT MEMLOCK 2048\n", D, "alice");
        assert_true(o.soft == 2048 * KiB);
        o = resolve("Alice soft memlock 2048\n", D, "alice"); /* the domain is case-sensitive */
        assert_int_equal(o.soft_line, 0);
        o = resolve("  \talice\tsoft\tmemlock\t2048 # a comment\n", D, "alice");
        assert_true(o.soft == 2048 * KiB);
        o = resolve("alice soft memlock#2048\n", D, "alice"); /* 3 fields: invalid */
        assert_int_equal(o.soft_line, 0);
        o = resolve("alice soft memlock 2048 extra words\n", D, "alice"); /* Debian: ignored */
        assert_true(o.soft == 2048 * KiB);
        o = resolve("alice soft memlock 2048 extra\n", U, "alice"); /* upstream: value "2048 extra" */
        assert_true(o.soft == 2048 * KiB);
        o = resolve("alice soft memlock unlimited extra\n", D, "alice");
        assert_true(o.soft == INF);
        o = resolve("alice soft memlock unlimited extra\n", U, "alice"); /* not a number upstream */
        assert_false(o.soft_known);
        o = resolve("alice bogus memlock 2048\n", D, "alice");
        assert_int_equal(o.soft_line, 0);
        o = resolve("alice soft memlocks 2048\n", D, "alice");
        assert_int_equal(o.soft_line, 0);
        /* no final newline is fine */
        o = resolve("alice soft memlock 4096", D, "alice");
        assert_true(o.soft == 4096 * KiB);
        /* \r is whitespace for sscanf, part of the value for upstream (and ignored by strtoull) */
        o = resolve("alice soft memlock 4096\r\n", D, "alice");
        assert_true(o.soft == 4096 * KiB);
        o = resolve("alice soft memlock 4096\r\n", U, "alice");
        assert_true(o.soft == 4096 * KiB);
}

static void test_ranks(void **state) {
        struct outcome o;
        /* a user line beats a group line, whatever the order */
        o = resolve("alice - memlock 100\n@rdma - memlock 200\n", D, "alice");
        assert_true(o.soft == 100 * KiB && o.soft_line == 1);
        /* equal ranks: the last wins */
        o = resolve("@rdma - memlock 200\n@spdk - memlock 300\n", D, "alice");
        assert_true(o.soft == 300 * KiB && o.soft_line == 2);
        /* group beats default */
        o = resolve("@rdma - memlock 200\n* - memlock 300\n", D, "alice");
        assert_true(o.soft == 200 * KiB);
        /* bob is in rdma by his primary gid */
        o = resolve("@rdma - memlock 200\n", D, "bob");
        assert_true(o.soft == 200 * KiB);
        /* carol is not in rdma */
        o = resolve("@rdma - memlock 200\n* soft memlock 50\n", D, "carol");
        assert_true(o.soft == 50 * KiB && o.hard == 6291456);
        /* @:gid */
        o = resolve("@:2001 - memlock 222\n", D, "carol");
        assert_true(o.soft == 222 * KiB);
        /* @min:max compares the primary gid only: alice's primary is 1001 */
        o = resolve("@2000:2001 - memlock 333\n", D, "alice");
        assert_int_equal(o.soft_line, 0);
        o = resolve("@2000: - memlock 333\n", D, "bob");
        assert_true(o.soft == 333 * KiB);
        /* uid ranges are USER rank */
        o = resolve("@rdma - memlock 200\n1000:1001 - memlock 444\n", D, "alice");
        assert_true(o.soft == 444 * KiB);
        o = resolve(":1002 - memlock 555\n", D, "bob");
        assert_true(o.soft == 555 * KiB);
        o = resolve("1003: - memlock 556\n", D, "bob");
        assert_int_equal(o.soft_line, 0);
        /* % domains never count for memlock */
        o = resolve("% - memlock 100\n%rdma - memlock 100\n", D, "alice");
        assert_int_equal(o.soft_line, 0);
        /* an invalid range is skipped */
        o = resolve("@a:b - memlock 100\n1:2:3 - memlock 100\n", D, "alice");
        assert_int_equal(o.soft_line, 0);
}

static void test_quirks(void **state) {
        struct outcome o;
        /* '-' after a stronger soft-only line: the hard half is not considered either */
        o = resolve("alice soft memlock 100\n@rdma - memlock 200\n", D, "alice");
        assert_true(o.soft == 100 * KiB);
        assert_true(o.hard == 6291456);
        assert_int_equal(o.hard_line, 0);
        /* but a stronger hard-only line does not stop the soft half */
        o = resolve("alice hard memlock 100\n@rdma - memlock 50\n", D, "alice");
        assert_true(o.soft == 50 * KiB && o.hard == 100 * KiB);
        /* soft above hard: clamped when applied */
        o = resolve("alice soft memlock 400\nalice hard memlock 300\n", D, "alice");
        assert_true(o.clamped);
        /* a 2-field '-' line stops everything, including what was parsed */
        o = resolve("alice - memlock 100\n@rdma -\nalice - memlock 300\n", D, "alice");
        assert_int_equal(o.kind, LC_RES_NO_LIMITS);
        /* not for '*' */
        o = resolve("* -\nalice - memlock 300\n", D, "alice");
        assert_int_equal(o.kind, LC_RES_LIMITS);
        /* only when it matches */
        o = resolve("@rdma -\n", D, "carol");
        assert_int_equal(o.kind, LC_RES_LIMITS);
        /* a 2-field line must start its type with '-' */
        o = resolve("alice soft\n", D, "alice");
        assert_int_equal(o.kind, LC_RES_LIMITS);
}

static void test_root_debian(void **state) {
        struct outcome o;
        o = resolve("* - memlock 100\n@root - memlock 200\n", D, "root");
        assert_int_equal(o.soft_line, 0);
        o = resolve("* - memlock 100\n", U, "root");
        assert_true(o.soft == 100 * KiB);
        o = resolve("root - memlock 300\n", D, "root");
        assert_true(o.soft == 300 * KiB);
        /* for root on Debian, @:0 falls through to the uid-range branch */
        o = resolve("@:0 - memlock 400\n", D, "root");
        assert_true(o.soft == 400 * KiB);
        o = resolve("0: - memlock 500\n", D, "root");
        assert_true(o.soft == 500 * KiB);
}

static void test_long_lines(void **state) {
        /* Debian reads a line in pieces of 1023 bytes: the second piece is a line of its own */
        char text[4096];
        size_t n = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "#");
        memset(text + n, 'x', 1022 - 1);
        n += 1021;
        n += (size_t)snprintf(text + n, sizeof text - n, " alice - memlock 777\n");
        struct outcome o = resolve(text, D, "alice");
        assert_true(o.soft == 777 * KiB);
        o = resolve(text, U, "alice");
        assert_false(o.soft_known); /* the whole line is a comment upstream */
}

static void test_tree_files(void **state) {
        char p[600];
        struct lc_tree *t;
        unit_mkdir_p(root, "etc/security/limits.d");
        unit_put(root, "etc/security/limits.conf", "* soft memlock 1\n");
        unit_put(root, "etc/security/limits.d/b.conf", "* soft memlock 3\n");
        unit_put(root, "etc/security/limits.d/a.conf", "* soft memlock 2\n");
        unit_put(root, "etc/security/limits.d/B.conf", "* soft memlock 4\n");
        unit_put(root, "etc/security/limits.d/.hidden.conf", "* soft memlock 5\n");
        unit_put(root, "etc/security/limits.d/c.conf.bak", "* soft memlock 6\n");
        assert_int_equal(lc_tree_load(root, D, NULL, &t), 0);
        assert_int_equal(t->n_files, 4);
        assert_string_equal(t->files[0].display, "etc/security/limits.conf");
        assert_string_equal(t->files[1].display, "etc/security/limits.d/B.conf"); /* byte order */
        assert_string_equal(t->files[2].display, "etc/security/limits.d/a.conf");
        assert_string_equal(t->files[3].display, "etc/security/limits.d/b.conf");
        assert_int_equal(t->n_skipped, 2);
        lc_tree_free(t);
        /* conf= reads that file only */
        assert_int_equal(lc_tree_load(root, D, "/etc/security/limits.d/a.conf", &t), 0);
        assert_int_equal(t->n_files, 1);
        lc_tree_free(t);
        /* a missing limits.conf fails every session on Debian 1.5.2, not upstream */
        snprintf(p, sizeof p, "%s/etc/security/limits.conf", root);
        unlink(p);
        struct ident *id;
        struct lc_baseline b;
        struct lc_result r;
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_tree_load(root, D, NULL, &t), 0);
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_SERVICE_ERR);
        lc_result_clear(&r);
        lc_tree_free(t);
        assert_int_equal(lc_tree_load(root, U, NULL, &t), 0);
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_LIMITS);
        assert_true(r.soft.value == 3 * KiB);
        lc_result_clear(&r);
        lc_tree_free(t);
        /* an unknown user: pam_limits fails the session */
        assert_int_equal(lc_tree_load(root, U, NULL, &t), 0);
        assert_int_equal(resolve_both(t, id, "nobody-here", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_USER_UNKNOWN);
        lc_result_clear(&r);
        lc_tree_free(t);
        ident_free(id);
}

static bool has_finding(const struct diag_list *d, enum diag_severity sev, unsigned line, const char *needle) {
        for (size_t i = 0; i < d->n; i++)
                if (d->v[i].severity == sev && d->v[i].line == line && strstr(d->v[i].message, needle))
                        return true;
        return false;
}

static void test_check(void **state) {
        const char *text = "alice soft memlock 64M\n"            /* 1 misread with units */
                           "alice hard memlock 1024abc\n"        /* 2 misread */
                           "bob soft memlok 100\n"               /* 3 unknown item */
                           "bob maybe memlock 100\n"             /* 4 unknown type */
                           "bob soft memlock lots\n"             /* 5 not a number */
                           "% - memlock 100\n"                   /* 6 % ignored */
                           "carol soft memlock 8000\n"           /* 7 soft above hard */
                           "carol hard memlock 4000\n"           /* 8 */
                           "@rdma - memlock 100\n"               /* 9 overridden by 10 */
                           "@rdma - memlock 200\n"               /* 10 */
                           "* -\n"                               /* 11 no effect */
                           "@a:b soft memlock 1\n"               /* 12 invalid range */
                           "justone\n"                           /* 13 invalid */
                           "dave soft memlock 0\n"               /* 14 memlock 0 */
                           "erin soft memlock 8"                 /* 15 small, no final newline */;
        struct lc_tree *t;
        struct ident *id;
        struct diag_list d = {};
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_check(t, id, &d), 0);
        assert_true(has_finding(&d, DIAG_ERROR, 1, "read as 64 KiB"));
        assert_true(has_finding(&d, DIAG_ERROR, 2, "read as 1024"));
        assert_true(has_finding(&d, DIAG_ERROR, 3, "unknown item"));
        assert_true(has_finding(&d, DIAG_ERROR, 4, "unknown type"));
        assert_true(has_finding(&d, DIAG_ERROR, 5, "not a number"));
        assert_true(has_finding(&d, DIAG_WARNING, 6, "maxlogins"));
        assert_true(has_finding(&d, DIAG_ERROR, 7, "above its hard"));
        assert_true(has_finding(&d, DIAG_WARNING, 9, "never takes effect"));
        assert_false(has_finding(&d, DIAG_WARNING, 10, "never takes effect"));
        assert_true(has_finding(&d, DIAG_WARNING, 11, "no effect"));
        assert_true(has_finding(&d, DIAG_ERROR, 12, "invalid uid/gid range"));
        assert_true(has_finding(&d, DIAG_ERROR, 13, "invalid line"));
        assert_true(has_finding(&d, DIAG_WARNING, 14, "EPERM"));
        assert_true(has_finding(&d, DIAG_WARNING, 15, "KiB"));
        assert_true(has_finding(&d, DIAG_WARNING, 15, "no newline"));
        diag_list_clear(&d);
        lc_tree_free(t);
        /* a uid range covering everyone shadows weaker ranks */
        text = "@rdma - memlock 100\n0: - memlock 200\n";
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, &t), 0);
        assert_int_equal(lc_check(t, id, &d), 0);
        assert_true(has_finding(&d, DIAG_WARNING, 1, "never takes effect"));
        diag_list_clear(&d);
        lc_tree_free(t);
        ident_free(id);
}

/* The whole result of text for user: r (lc_result_clear() it), the tree in *ret_t. */
static void resolve_result(const char *text, const char *user, struct lc_tree **ret_t, struct ident **ret_id,
                           struct lc_result *r) {
        struct lc_baseline b;
        char p[512];
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, ret_t), 0);
        assert_int_equal(ident_new(root, ret_id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(*ret_t, p, &b), 0);
        *r = (struct lc_result){};
        assert_int_equal(resolve_both(*ret_t, *ret_id, user, &b, r), 0);
}

static void done(struct lc_tree *t, struct ident *id, struct lc_result *r) {
        lc_result_clear(r);
        lc_tree_free(t);
        ident_free(id);
}

/* the items other than memlock: ranks, types, bad values, % lines */
static void test_other_items(void **state) {
        struct lc_tree *t;
        struct ident *id;
        struct lc_result r;
        (void)state;
        /* equal rank: the later line wins; a soft line leaves the hard limit */
        resolve_result("alice soft nofile 100\nalice soft nofile 200\n", "alice", &t, &id, &r);
        assert_true(r.rl_soft[RLIMIT_NOFILE].known && r.rl_soft[RLIMIT_NOFILE].value == 200);
        assert_int_equal(r.rl_soft[RLIMIT_NOFILE].src->lineno, 2);
        assert_null(r.rl_hard[RLIMIT_NOFILE].src);
        done(t, id, &r);
        /* a stronger rank stays */
        resolve_result("alice hard nofile 100\n* hard nofile 300\n", "alice", &t, &id, &r);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].value, 100);
        assert_null(r.rl_soft[RLIMIT_NOFILE].src);
        done(t, id, &r);
        /* a bad value, and % lines, are not applied to these items */
        resolve_result("alice soft nofile abc\n% soft nofile 100\n%rdma hard nofile 100\n", "alice", &t, &id, &r);
        assert_null(r.rl_soft[RLIMIT_NOFILE].src);
        assert_null(r.rl_hard[RLIMIT_NOFILE].src);
        done(t, id, &r);
        /* memlock: a soft line leaves the hard limit (the baseline's), one event */
        resolve_result("alice soft memlock 100\n", "alice", &t, &id, &r);
        assert_true(r.soft.known && r.soft.value == 100 * KiB);
        assert_null(r.hard.src);
        assert_int_equal(r.n_events, 1);
        assert_int_equal(r.events[0].slot, LC_SOFT);
        assert_int_equal(r.events[0].outcome, LC_OUT_APPLIED);
        done(t, id, &r);
        /* a weaker soft-only line: one event, for soft (the quirk is for '-' lines) */
        resolve_result("alice soft memlock 100\n* soft memlock 200\n", "alice", &t, &id, &r);
        assert_int_equal(r.soft.value, 100 * KiB);
        assert_int_equal(r.n_events, 2);
        assert_int_equal(r.events[1].slot, LC_SOFT);
        assert_int_equal(r.events[1].outcome, LC_OUT_WEAKER);
        done(t, id, &r);
        resolve_result("alice soft memlock 100\n* - memlock 200\n", "alice", &t, &id, &r);
        assert_int_equal(r.n_events, 3);
        assert_int_equal(r.events[2].slot, LC_HARD);
        assert_int_equal(r.events[2].outcome, LC_OUT_QUIRK);
        assert_int_equal(r.hard.value, 6291456);
        done(t, id, &r);
}

static void test_logins_and_stops(void **state) {
        struct lc_tree *t;
        struct ident *id;
        struct lc_result r;
        (void)state;
        /* maxlogins: the later of equal rank; maxsyslogins counts for a user too */
        resolve_result("alice hard maxlogins 3\nalice hard maxlogins 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.login_limit, 5);
        done(t, id, &r);
        resolve_result("alice hard maxsyslogins 7\n", "alice", &t, &id, &r);
        assert_int_equal(r.login_limit, 7);
        done(t, id, &r);
        resolve_result("%rdma hard maxsyslogins 7\n", "alice", &t, &id, &r);
        assert_int_equal(r.login_limit, -2);
        done(t, id, &r);
        /* a 2-field '-' line of a uid range stops pam_limits for the users in it */
        resolve_result("1000:2000 -\nalice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_NO_LIMITS);
        assert_int_equal(r.stop->lineno, 1);
        done(t, id, &r);
        /* the ends of a uid range are in it */
        resolve_result("1001:2000 -\nalice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_NO_LIMITS);
        done(t, id, &r);
        resolve_result("500:1001 -\nalice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_NO_LIMITS);
        done(t, id, &r);
        resolve_result("1002:2000 -\nalice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_LIMITS);
        done(t, id, &r);
        resolve_result("2000:3000 -\nalice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_LIMITS);
        assert_int_equal(r.hard.value, 5 * KiB);
        done(t, id, &r);
}

/* lc_line_match() on its own: a domain that is no range, %group, @:gid of no group */
static void test_line_match(void **state) {
        static const struct {
                const char *line, *user;
                int rank;
        } cases[] = {
                { "abc:5 hard memlock 1\n", "alice", -1 },
                { "%rdma hard memlock 1\n", "alice", LC_RANK_ALLGROUP },
                { "%rdma hard memlock 1\n", "carol", -1 },
                { "%:2000 hard memlock 1\n", "alice", LC_RANK_ALLGROUP },
                { "%:4242 hard memlock 1\n", "alice", -1 },
                { "@:4242 hard memlock 1\n", "alice", -1 },
                { "@:2000 hard memlock 1\n", "alice", LC_RANK_GROUP },
                /* a user line: the whole name, not its first byte or a prefix */
                { "alice hard memlock 1\n", "alice", LC_RANK_USER },
                { "alicia hard memlock 1\n", "alice", -1 },
                { "ali hard memlock 1\n", "alice", -1 },
                { "bob hard memlock 1\n", "alice", -1 },
        };
        (void)state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct lc_tree *t = NULL;
                struct ident *id = NULL;
                const struct id_user *u;
                assert_int_equal(lc_tree_load_text("limits.conf", cases[i].line, strlen(cases[i].line), D, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(ident_user(id, cases[i].user, &u), 0);
                assert_int_equal(t->n_lines, 1);
                if (lc_line_match(t, id, u, &t->lines[0]) != cases[i].rank)
                        fail_msg("%s for %s: %d", cases[i].line, cases[i].user, lc_line_match(t, id, u, &t->lines[0]));
                lc_tree_free(t);
                ident_free(id);
        }
        /* the name's hash only spares a strcmp(): a line whose hash equals the user's (as a
         * collision would) still has to name the user */
        {
                struct lc_tree *t = NULL;
                struct ident *id = NULL;
                const struct id_user *u;
                const char *text = "bob hard memlock 1\n";
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(ident_user(id, "alice", &u), 0);
                t->lines[0].domain_hash = str_hash("alice");
                assert_int_equal(lc_line_match(t, id, u, &t->lines[0]), -1);
                lc_tree_free(t);
                ident_free(id);
        }
}

static void test_session_outcome_args(void **state) {
        struct lc_tree *t;
        struct ident *id;
        struct lc_result r;
        struct lc_service svc = {};
        struct lc_session s;
        (void)state;
        resolve_result("alice hard memlock 5\n", "alice", &t, &id, &r);
        assert_int_equal(lc_session_outcome(t, &r, NULL, &s), -EINVAL);
        assert_int_equal(lc_session_outcome(NULL, &r, &svc, &s), -EINVAL);
        assert_int_equal(lc_session_outcome(t, NULL, &svc, &s), -EINVAL);
        assert_int_equal(lc_session_outcome(t, &r, &svc, NULL), -EINVAL);
        done(t, id, &r);
}

/* which unreadable files fail the session: a blocking or endless one always, a missing one
 * only before 1.5.3 or when conf= named it */
static void test_file_fails_session(void **state) {
        struct lc_file f = { .open_error = -ENOENT };
        struct lc_tree t = { .files = &f, .n_files = 1 };
        (void)state;
        t.beh.enoent_ok = true;
        assert_false(lc_file_fails_session(&t, 0));
        f.would_block = true;
        assert_true(lc_file_fails_session(&t, 0));
        f.would_block = false;
        f.endless = true;
        assert_true(lc_file_fails_session(&t, 0));
        f.endless = false;
        t.conf_override = true;
        assert_true(lc_file_fails_session(&t, 0));
        t.conf_override = false;
        t.beh.enoent_ok = false;
        assert_true(lc_file_fails_session(&t, 0));
        f.open_error = 0;
        assert_false(lc_file_fails_session(&t, 0));
}

/* upstream pam_limits refuses a login whose hard limit the service cannot raise: the cause
 * names the values ("unlimited"); the items after the failing one are still set */
static void test_session_refused(void **state) {
        const char *text = "alice hard nofile 4096\nalice hard memlock unlimited\nalice soft memlock 100\n";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b;
        struct lc_result r = {};
        struct lc_service svc = { .known = true };
        struct lc_session s;
        char p[512];
        (void)state;
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(t, p, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        svc.rl[RLIMIT_NOFILE].known = true;
        svc.rl[RLIMIT_NOFILE].soft = svc.rl[RLIMIT_NOFILE].hard = 1024;
        svc.rl[RLIMIT_MEMLOCK].known = true;
        svc.rl[RLIMIT_MEMLOCK].soft = svc.rl[RLIMIT_MEMLOCK].hard = 65536;
        assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
        assert_int_equal(s.kind, LC_SESSION_REFUSED);
        if (!strstr(s.cause, "hard nofile 4096 is above the service's own hard limit 1024"))
                fail_msg("%s", s.cause);
        assert_true(s.memlock_known);
        assert_int_equal(s.memlock_soft, 65536);   /* memlock's setrlimit fails too: unchanged */
        /* memlock alone */
        lc_result_clear(&r);
        lc_tree_free(t);
        text = "alice hard memlock unlimited\n";
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
        assert_int_equal(lc_baseline_load(t, p, &b), 0);
        r = (struct lc_result){};
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
        assert_int_equal(s.kind, LC_SESSION_REFUSED);
        if (!strstr(s.cause, "hard memlock unlimited is above the service's own hard limit 65536"))
                fail_msg("%s", s.cause);
        /* and a raise the service may make: set, soft and hard */
        lc_result_clear(&r);
        lc_tree_free(t);
        text = "alice hard nofile 4096\nalice soft memlock 32\nalice hard memlock 64\n";
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
        assert_int_equal(lc_baseline_load(t, p, &b), 0);
        r = (struct lc_result){};
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
        assert_int_equal(s.kind, LC_SESSION_REFUSED);
        assert_true(s.memlock_known);
        assert_int_equal(s.memlock_soft, 32 * KiB);
        assert_int_equal(s.memlock_hard, 64 * KiB);
        lc_result_clear(&r);
        lc_tree_free(t);
        ident_free(id);
}

/* a stop line ends the reading: a later file that would hang pam_limits is never opened */
static void test_stop_before_bad_file(void **state) {
        char sub[600], p[700];
        struct lc_tree *t;
        struct ident *id;
        struct lc_baseline b;
        struct lc_result r;
        (void)state;
        snprintf(sub, sizeof sub, "%s/stop", root);
        unit_put(root, "stop/etc/security/limits.conf", "alice -\n");
        unit_mkdir_p(root, "stop/etc/security/limits.d");
        snprintf(p, sizeof p, "%s/etc/security/limits.d/z.conf", sub);
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_tree_load(sub, U, NULL, &t), 0);
        assert_int_equal(t->n_files, 2);
        assert_true(lc_file_fails_session(t, 1));
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_NO_LIMITS);
        lc_result_clear(&r);
        /* for another user the bad file is reached */
        assert_int_equal(resolve_both(t, id, "carol", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_SERVICE_ERR);
        assert_ptr_equal(r.bad_file, &t->files[1]);
        lc_result_clear(&r);
        lc_tree_free(t);
        /* two such files: the session fails at the first, the second is never reached */
        snprintf(p, sizeof p, "%s/etc/security/limits.d/zz.conf", sub);
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(lc_tree_load(sub, U, NULL, &t), 0);
        assert_int_equal(t->n_files, 3);
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "carol", &b, &r), 0);
        assert_int_equal(r.kind, LC_RES_SERVICE_ERR);
        assert_ptr_equal(r.bad_file, &t->files[1]);
        lc_result_clear(&r);
        lc_tree_free(t);
        ident_free(id);
}

/* memlock is known after the session only when both halves are: a soft line over a hard
 * limit nobody knows leaves it unknown */
static void test_session_half_known(void **state) {
        const char *text = "alice soft memlock 100\n";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b;
        struct lc_result r = {};
        struct lc_service svc = {};
        struct lc_session s;
        (void)state;
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        assert_true(r.soft.known);
        assert_false(r.hard.known);
        assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
        assert_int_equal(s.kind, LC_SESSION_LIMITS);
        assert_false(s.memlock_known);
        lc_result_clear(&r);
        lc_tree_free(t);
        ident_free(id);
}

/* What the other tests leave out: what an event says was held before it, per slot; a '-'
 * line whose soft half is weaker does not set its hard half, for any item; Debian's chroot;
 * cpu (resource 0); a soft value equal to the hard one is no clamp; a tree that fails every
 * session; memlock, which neither lines nor the baseline set, is left as the service has it. */
static void test_resolve_edges(void **state) {
        struct lc_tree *t;
        struct ident *id;
        struct lc_result r;
        (void)state;

        resolve_result("alice soft memlock 100\nalice hard memlock 200\n* soft memlock 300\n* hard memlock 400\n",
                       "alice", &t, &id, &r);
        assert_int_equal(r.n_events, 4);
        assert_int_equal(r.events[2].slot, LC_SOFT);
        assert_int_equal(r.events[2].outcome, LC_OUT_WEAKER);
        assert_int_equal(r.events[2].held->lineno, 1);
        assert_int_equal(r.events[2].held_rank, LC_RANK_USER);
        assert_int_equal(r.events[3].slot, LC_HARD);
        assert_int_equal(r.events[3].outcome, LC_OUT_WEAKER);
        assert_int_equal(r.events[3].held->lineno, 2);
        done(t, id, &r);
        resolve_result("alice soft memlock 100\n* hard memlock 400\n* - memlock 500\n", "alice", &t, &id, &r);
        /* the '-' line: its soft half is weaker, and its hard half is not tried (the quirk),
         * though the hard limit is held by a line of its own rank */
        assert_int_equal(r.n_events, 4);
        assert_int_equal(r.events[3].slot, LC_HARD);
        assert_int_equal(r.events[3].outcome, LC_OUT_QUIRK);
        assert_int_equal(r.events[3].held->lineno, 2);
        assert_int_equal(r.events[3].held_rank, LC_RANK_DEFAULT);
        assert_int_equal(r.events[2].held->lineno, 1);
        done(t, id, &r);

        resolve_result("alice soft nofile 100\n* - nofile 200\n", "alice", &t, &id, &r);
        assert_int_equal(r.rl_soft[RLIMIT_NOFILE].value, 100);
        assert_null(r.rl_hard[RLIMIT_NOFILE].src);
        done(t, id, &r);
        resolve_result("* soft nofile 100\nalice - nofile 200\n", "alice", &t, &id, &r);
        assert_int_equal(r.rl_soft[RLIMIT_NOFILE].value, 200);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].value, 200);
        done(t, id, &r);

        resolve_result("alice - chroot /srv/a\n", "alice", &t, &id, &r);
        assert_non_null(r.chroot);
        assert_int_equal(r.chroot->lineno, 1);
        done(t, id, &r);
        resolve_result("alice - chroot /srv/a\n* - chroot /srv/b\nbob - chroot /srv/c\n", "alice", &t, &id, &r);
        assert_int_equal(r.chroot->lineno, 2);
        done(t, id, &r);
        /* a chroot into a file, or into nothing: the session is refused, and why (pam_limits
         * reads the line in lower case: a path of lower case letters) */
        {
                char dir[64], where[160];
                struct lc_service csvc = {};
                struct lc_session cs;
                snprintf(dir, sizeof dir, "/tmp/rdmalimit-chroot-%d", (int)getpid());
                assert_int_equal(mkdir(dir, 0755), 0);
                unit_put(dir, "file", "");
                unit_mkdir_p(dir, "sub");
                snprintf(where, sizeof where, "alice - chroot %s/file\n", dir);
                resolve_result(where, "alice", &t, &id, &r);
                assert_int_equal(lc_session_outcome(t, &r, &csvc, &cs), 0);
                assert_int_equal(cs.kind, LC_SESSION_REFUSED);
                if (!strstr(cs.cause, "(not a directory)"))
                        fail_msg("cause: %s", cs.cause);
                done(t, id, &r);
                snprintf(where, sizeof where, "alice - chroot %s/none\n", dir);
                resolve_result(where, "alice", &t, &id, &r);
                assert_int_equal(lc_session_outcome(t, &r, &csvc, &cs), 0);
                assert_int_equal(cs.kind, LC_SESSION_REFUSED);
                assert_non_null(strstr(cs.cause, "(No such file or directory)"));
                done(t, id, &r);
                snprintf(where, sizeof where, "alice - chroot %s/sub\n", dir);
                resolve_result(where, "alice", &t, &id, &r);
                assert_int_equal(lc_session_outcome(t, &r, &csvc, &cs), 0);
                assert_int_equal(cs.kind, LC_SESSION_LIMITS);
                done(t, id, &r);
                assert_int_equal(unit_rm_rf(dir), 0);
        }

        resolve_result("alice hard cpu 5\n", "alice", &t, &id, &r);
        assert_true(r.rl_hard[RLIMIT_CPU].known);
        assert_non_null(r.rl_hard[RLIMIT_CPU].src);
        assert_int_equal(r.rl_hard[RLIMIT_CPU].src->lineno, 1);
        done(t, id, &r);

        /* only the soft value known (no baseline): nothing to clamp it to */
        {
                const char *half = "alice soft memlock 100\n";
                struct lc_baseline hb;
                assert_int_equal(lc_tree_load_text("limits.conf", half, strlen(half), U, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(lc_baseline_load(t, NULL, &hb), 0);
                r = (struct lc_result){};
                assert_int_equal(resolve_both(t, id, "alice", &hb, &r), 0);
                assert_true(r.soft.known);
                assert_false(r.hard.known);
                assert_false(r.soft_clamped);
                done(t, id, &r);
        }
        resolve_result("alice - memlock 100\n", "alice", &t, &id, &r);
        assert_false(r.soft_clamped);
        done(t, id, &r);
        resolve_result("alice soft memlock 200\nalice hard memlock 100\n", "alice", &t, &id, &r);
        assert_true(r.soft_clamped);
        done(t, id, &r);

        /* a tree of readable files fails no session; one whose limits.conf cannot be read does */
        assert_int_equal(lc_tree_load_text("limits.conf", "", 0, U, &t), 0);
        assert_false(lc_tree_fails_every_session(t));
        lc_tree_free(t);
        struct lc_file f = { .open_error = -EACCES };
        struct lc_tree bad = { .files = &f, .n_files = 1 };
        assert_true(lc_tree_fails_every_session(&bad));
        f.open_error = 0;
        assert_false(lc_tree_fails_every_session(&bad));
        struct lc_tree none = { .files = NULL, .n_files = 0 };
        assert_false(lc_tree_fails_every_session(&none));

        /* no baseline (PID 1's limits unknown) and no memlock line: pam_limits leaves memlock
         * as the service has it, even when the service's is known */
        const char *text = "alice hard nofile 4096\n";
        struct lc_baseline b;
        struct lc_service svc = {};
        struct lc_session sess;
        r = (struct lc_result){};
        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
        assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
        svc.rl[RLIMIT_MEMLOCK].known = true;
        svc.rl[RLIMIT_MEMLOCK].soft = 65536;
        svc.rl[RLIMIT_MEMLOCK].hard = 65536;
        svc.rl[RLIMIT_NOFILE].known = true;
        svc.rl[RLIMIT_NOFILE].soft = 1024;
        svc.rl[RLIMIT_NOFILE].hard = 524288;
        assert_int_equal(lc_session_outcome(t, &r, &svc, &sess), 0);
        assert_int_equal(sess.kind, LC_SESSION_LIMITS);
        assert_true(sess.memlock_known);
        assert_int_equal(sess.memlock_soft, 65536);
        assert_int_equal(sess.memlock_hard, 65536);
        done(t, id, &r);
}

/* What lc_resolve() and lc_session_outcome() do at the edges the other tests leave: a line
 * whose domain is an invalid range never matches, not even a user of that very name
 * (pam_limits skips it before comparing names); % ranges match nobody; equal ranks overwrite
 * the hard half of any item; Debian's PID 1 rows without a memlock row; a user database that
 * cannot be read; an item no line sets is not set; which ranges cover every user. */
static void test_resolve_more_edges(void **state) {
        struct lc_tree *t;
        struct ident *id;
        struct lc_result r;
        (void)state;

        /* an invalid range: "ad:alice" is no uid range (pam_limits: "invalid uid range -
         * skipped"), whoever the user is, even one NSS names so (an LDAP uid may hold ':') */
        {
                const char *text = "ad:alice hard memlock 1\nad:alice -\n";
                struct id_user u = { .name = (char *)"ad:alice", .uid = 4000, .gid = 4000 };
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(t->n_lines, 2);
                assert_int_equal(t->lines[0].range, LC_RANGE_ERR);
                assert_int_equal(lc_line_match(t, id, &u, &t->lines[0]), -1);
                lc_tree_free(t);
                ident_free(id);
        }

        /* % with a range: "range unsupported for %group matching", for every item, maxlogins too */
        {
                static const char *const lines[] = { "%1000: hard memlock 1\n", "%1000:2000 hard memlock 1\n",
                                                     "%0: hard memlock 1\n" };
                for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
                        const struct id_user *u;
                        assert_int_equal(lc_tree_load_text("limits.conf", lines[i], strlen(lines[i]), D, &t), 0);
                        assert_int_equal(ident_new(root, &id), 0);
                        assert_int_equal(ident_user(id, "alice", &u), 0);
                        if (lc_line_match(t, id, u, &t->lines[0]) != -1)
                                fail_msg("%s matches alice: %d", lines[i], lc_line_match(t, id, u, &t->lines[0]));
                        lc_tree_free(t);
                        ident_free(id);
                }
        }
        resolve_result("%1000: - memlock 100\n%1000:2000 hard maxlogins 0\n", "alice", &t, &id, &r);
        assert_int_equal(r.kind, LC_RES_LIMITS);
        assert_null(r.soft.src);
        assert_null(r.hard.src);
        assert_int_equal(r.login_limit, -2);
        done(t, id, &r);

        /* equal ranks: the later line takes the hard half of an item other than memlock too */
        resolve_result("alice hard nofile 100\nalice hard nofile 200\n@rdma hard nproc 10\n@spdk hard nproc 20\n",
                       "alice", &t, &id, &r);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].value, 200);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].src->lineno, 2);
        assert_int_equal(r.rl_hard[RLIMIT_NPROC].value, 20);
        assert_int_equal(r.rl_hard[RLIMIT_NPROC].src->lineno, 4);
        done(t, id, &r);
        resolve_result("alice - nofile 100\nalice - nofile 300\n", "alice", &t, &id, &r);
        assert_int_equal(r.rl_soft[RLIMIT_NOFILE].value, 300);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].value, 300);
        assert_int_equal(r.rl_hard[RLIMIT_NOFILE].src->lineno, 2);
        done(t, id, &r);

        /* Debian: PID 1's limits are the baseline of every item, even when its memlock row is
         * missing (memlock then takes pam_limits' default) */
        {
                char p[600];
                const char *text = "# nothing\n";
                struct lc_baseline b;
                unit_put(root, "nomemlock/limits",
                         "Limit                     Soft Limit           Hard Limit           Units     \n"
                         "Max open files            1024                 524288               files     \n");
                snprintf(p, sizeof p, "%s/nomemlock/limits", root);
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), D, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(lc_baseline_load(t, p, &b), 0);
                assert_int_equal(b.rank, LC_RANK_DEFAULT);
                r = (struct lc_result){};
                assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
                assert_true(r.rl_soft[RLIMIT_NOFILE].known);
                assert_int_equal(r.rl_soft[RLIMIT_NOFILE].value, 1024);
                assert_true(r.rl_hard[RLIMIT_NOFILE].known);
                assert_int_equal(r.rl_hard[RLIMIT_NOFILE].value, 524288);
                assert_int_equal(r.rl_hard[RLIMIT_NOFILE].rank, LC_RANK_KERNEL);
                /* a row PID 1 does not have: set from the service's (initialized, not known) */
                assert_false(r.rl_hard[RLIMIT_NPROC].known);
                assert_int_equal(r.rl_hard[RLIMIT_NPROC].rank, LC_RANK_KERNEL);
                assert_true(r.soft.known);
                assert_int_equal(r.soft.rank, LC_RANK_DEFAULT);
                done(t, id, &r);
        }

        /* a user database that cannot be read (etc/passwd a directory): the error, not an
         * unknown user, and the result untouched */
        {
                char sub[600];
                const char *text = "alice hard memlock 1\n";
                struct lc_baseline b = { .rank = LC_RANK_NONE };
                unit_mkdir_p(root, "baddb/etc/passwd");
                snprintf(sub, sizeof sub, "%s/baddb", root);
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
                assert_int_equal(ident_new(sub, &id), 0);
                r = (struct lc_result){ .kind = 99 };
                int e = resolve_both(t, id, "alice", &b, &r);
                if (e >= 0 || e == -ENOENT)
                        fail_msg("lc_resolve() with etc/passwd a directory: %d", e);
                assert_int_equal(r.kind, 99);
                assert_null(r.events);
                lc_tree_free(t);
                ident_free(id);
        }

        /* an item no line sets is not set (upstream, no set_all): a service whose nofile hard
         * limit is above fs.nr_open (lowered since it started) is not refused for it */
        {
                const char *text = "alice hard nproc 100\n";
                struct lc_baseline b;
                struct lc_service svc = { .known = true, .cap_sys_resource = true, .nr_open = 1048576 };
                struct lc_session s;
                for (int i = 0; i < RLIM_NLIMITS; i++)
                        svc.rl[i] = (__typeof__(svc.rl[0])){ .known = true, .soft = 1024, .hard = 4096 };
                svc.rl[RLIMIT_NOFILE].hard = 2097152;
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
                r = (struct lc_result){};
                assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
                assert_int_equal(r.rl_hard[RLIMIT_NOFILE].rank, LC_RANK_NONE);
                assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
                if (s.kind != LC_SESSION_LIMITS)
                        fail_msg("refused: %s", s.cause);
                assert_true(s.memlock_known);
                assert_int_equal(s.memlock_soft, 1024);
                assert_int_equal(s.memlock_hard, 4096);
                /* a line that sets it: refused */
                done(t, id, &r);
                text = "alice hard nofile unlimited\n";
                assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), U, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                r = (struct lc_result){};
                assert_int_equal(resolve_both(t, id, "alice", &b, &r), 0);
                svc.rl[RLIMIT_NOFILE].hard = 4096;
                svc.nr_open = 0;   /* unknown: unlimited stays unlimited, above the service's */
                assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
                assert_int_equal(s.kind, LC_SESSION_LIMITS);   /* it has CAP_SYS_RESOURCE */
                svc.cap_sys_resource = false;
                assert_int_equal(lc_session_outcome(t, &r, &svc, &s), 0);
                assert_int_equal(s.kind, LC_SESSION_REFUSED);
                done(t, id, &r);
        }

        /* the ranges that cover every uid (or primary gid): 0:, @0:, 0:4294967295; not a
         * range that stops short, nor a % domain (% ranges match nobody) */
        {
                static const struct {
                        const char *line;
                        bool everyone;
                } cases[] = {
                        { "0: - memlock 1\n", true },
                        { "@0: - memlock 1\n", true },
                        { "0:4294967295 - memlock 1\n", true },
                        { "@0:4294967295 - memlock 1\n", true },
                        { "0:4294967294 - memlock 1\n", false },
                        { "0:1000 - memlock 1\n", false },
                        { "1:4294967295 - memlock 1\n", false },
                        { "1: - memlock 1\n", false },
                        { ":0 - memlock 1\n", false },
                        { "%0: - memlock 1\n", false },
                        { "* - memlock 1\n", false },
                };
                for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                        assert_int_equal(lc_tree_load_text("limits.conf", cases[i].line, strlen(cases[i].line), D, &t), 0);
                        assert_int_equal(t->n_lines, 1);
                        if (lc_line_matches_everyone(&t->lines[0]) != cases[i].everyone)
                                fail_msg("%s: everyone %d", cases[i].line, !cases[i].everyone);
                        lc_tree_free(t);
                }
        }
        /* and what check says of it: a line of such a range shadows every weaker rank */
        {
                static const struct {
                        const char *text;
                        bool shadowed;
                } cases[] = {
                        { "@rdma - memlock 100\n0:4294967295 - memlock 200\n", true },
                        { "@rdma - memlock 100\n0:1000 - memlock 200\n", false },
                };
                for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                        struct diag_list d = {};
                        assert_int_equal(lc_tree_load_text("limits.conf", cases[i].text, strlen(cases[i].text), D, &t), 0);
                        assert_int_equal(ident_new(root, &id), 0);
                        assert_int_equal(lc_check(t, id, &d), 0);
                        if (has_finding(&d, DIAG_WARNING, 1, "never takes effect") != cases[i].shadowed)
                                fail_msg("%s: shadowed %d", cases[i].text, !cases[i].shadowed);
                        diag_list_clear(&d);
                        lc_tree_free(t);
                        ident_free(id);
                }
        }
}

/* lc_resolve_prepared() against lc_resolve() on random trees of five files: every kind of
 * domain (a user, a group, @:gid, ranges of uids and gids, %, *, nobody), every type, items
 * pam_limits sets, counts and ignores, no-limits lines, names that are users and groups at
 * once; each user of the tree, root, and one unknown, with either flavour. */
static uint32_t rnd_state;
static uint32_t rnd(uint32_t n) {
        rnd_state = rnd_state * 1103515245u + 12345u;
        return (rnd_state >> 8) % n;
}

static void random_file(char *buf, size_t size) {
        static const char *const domains[] = { "u0", "u1", "u2", "u3", "u4", "u5", "root", "adm", "@adm", "@rdma",
                                               "@u1", "@:3000", "@:3001", "@:1000", "%", "%rdma", "%:3000", "*",
                                               "1000:1002", ":1003", "1004:", "@1000:1001", "@3000:", "2:1",
                                               "nobody-x", "@nosuch", "U0", "u0 " };
        static const char *const types[] = { "soft", "hard", "-", "both" };
        static const char *const items[] = { "memlock", "memlock", "memlock", "nofile", "maxlogins", "chroot",
                                             "nproc", "bogus" };
        static const char *const values[] = { "1", "64", "128", "4096", "unlimited", "-1", "abc", "0", "8192" };
        size_t n = 0, lines = 1 + rnd(12);
        buf[0] = '\0';
        for (size_t i = 0; i < lines && n + 80 < size; i++) {
                const char *d = domains[rnd(ELEMENTSOF(domains))];
                if (rnd(16) == 0)
                        n += (size_t)snprintf(buf + n, size - n, "%s -\n", d);   /* no limits */
                else if (rnd(10) == 0)
                        n += (size_t)snprintf(buf + n, size - n, "# %s soft memlock 1\n", d);
                else
                        n += (size_t)snprintf(buf + n, size - n, "%s %s %s %s\n", d, types[rnd(ELEMENTSOF(types))],
                                              items[rnd(ELEMENTSOF(items))], values[rnd(ELEMENTSOF(values))]);
        }
}

static void test_prepared_random(void **state) {
        static char tr[] = "/tmp/test-limits-prep-XXXXXX";
        static const char *const files[] = { "etc/security/limits.conf", "etc/security/limits.d/10-a.conf",
                                             "etc/security/limits.d/20-b.conf", "etc/security/limits.d/30-c.conf",
                                             "etc/security/limits.d/40-d.conf" };
        static const char *const users[] = { "u0", "u1", "u2", "u3", "u4", "u5", "root", "adm", "nobody-x" };
        char text[2048];
        char *fixture = unit_dir;   /* unit_tree() makes tr the teardown's: give it back below */
        (void)state;

        assert_int_equal(unit_tree(tr, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nu0:x:1000:1000::/:/bin/sh\nu1:x:1001:3000::/:/bin/sh\n"
                                "u2:x:1002:3001::/:/bin/sh\nu3:x:1003:1003::/:/bin/sh\nu4:x:1004:3000::/:/bin/sh\n"
                                "u5:x:1005:1005::/:/bin/sh\nadm:x:1006:1006::/:/bin/sh\n" },
                { "etc/group", "root:x:0:\nu0:x:1000:\nadm:x:3000:u0,u3\nrdma:x:3001:u3,u5,adm\n"
                               "samegid:x:3001:u0\nu1:x:3002:u2,u4\nu3:x:1003:\n" },
                {},
        }), 0);
        for (unsigned seed = 1; seed <= 150; seed++) {
                char fifo[PATH_MAX];
                rnd_state = seed;
                /* every third tree: a FIFO between the files, which fails every session there
                 * (pam_limits would block on it): the walk must stop before the next file's lines */
                unit_path(fifo, tr, "etc/security/limits.d/25-fifo.conf");
                (void)unlink(fifo);
                if (seed % 3 == 0)
                        assert_int_equal(mkfifo(fifo, 0644), 0);
                for (size_t f = 0; f < ELEMENTSOF(files); f++) {
                        random_file(text, sizeof text);
                        unit_put(tr, files[f], text);
                }
                for (int fl = 0; fl < 2; fl++) {
                        struct lc_tree *t = NULL;
                        struct ident *id = NULL;
                        struct lc_baseline b;
                        assert_int_equal(lc_tree_load(tr, fl ? U : D, NULL, &t), 0);
                        assert_int_equal(ident_new(tr, &id), 0);
                        assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
                        for (size_t u = 0; u < ELEMENTSOF(users); u++) {
                                struct lc_result r = {};
                                assert_int_equal(resolve_both(t, id, users[u], &b, &r), 0);
                                lc_result_clear(&r);
                        }
                        lc_tree_free(t);
                        ident_free(id);
                }
        }
        /* a prepared tree serves its own tree and ident only */
        {
                struct lc_tree *t = NULL, *t2 = NULL;
                struct ident *id = NULL, *id2 = NULL;
                struct lc_prep *prep = NULL;
                struct lc_baseline b;
                struct lc_result r = { .kind = 99 };
                assert_int_equal(lc_tree_load(tr, D, NULL, &t), 0);
                assert_int_equal(lc_tree_load(tr, D, NULL, &t2), 0);
                assert_int_equal(ident_new(tr, &id), 0);
                assert_int_equal(ident_new(tr, &id2), 0);
                assert_int_equal(lc_baseline_load(t, NULL, &b), 0);
                assert_int_equal(lc_prep_new(t, id, &prep), 0);
                assert_int_equal(lc_resolve_prepared(t2, id, prep, "u0", &b, &r), -EINVAL);
                assert_int_equal(lc_resolve_prepared(t, id2, prep, "u0", &b, &r), -EINVAL);
                assert_int_equal(r.kind, 99);
                lc_prep_free(prep);
                lc_prep_free(NULL);
                lc_tree_free(t);
                lc_tree_free(t2);
                ident_free(id);
                ident_free(id2);
        }
        unit_dir = fixture;
        assert_int_equal(unit_rm_rf(tr), 0);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_baseline), cmocka_unit_test(test_values),
          cmocka_unit_test(test_case_and_syntax), cmocka_unit_test(test_ranks), cmocka_unit_test(test_quirks),
          cmocka_unit_test(test_root_debian), cmocka_unit_test(test_long_lines),
          cmocka_unit_test(test_tree_files), cmocka_unit_test(test_check),
          cmocka_unit_test(test_other_items), cmocka_unit_test(test_logins_and_stops),
          cmocka_unit_test(test_line_match), cmocka_unit_test(test_session_outcome_args),
          cmocka_unit_test(test_file_fails_session), cmocka_unit_test(test_session_refused),
          cmocka_unit_test(test_stop_before_bad_file),
          cmocka_unit_test(test_session_half_known), cmocka_unit_test(test_resolve_edges),
          cmocka_unit_test(test_resolve_more_edges),
          cmocka_unit_test(test_prepared_random))
