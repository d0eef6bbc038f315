/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocation failures: each allocation a call makes (malloc, calloc, realloc, and what libc
 * allocates with them: strdup, asprintf, getline, fopen) fails in turn, the Nth for N = 1, 2,
 * ... until the call makes no Nth allocation (tests/fault/fault.c linked in, fault_arm()).
 * Each failure returns -ENOMEM (or NULL) and leaves the outputs as they were; the run past
 * the last allocation gives the normal result.  In a sanitizer build (ASan has its own
 * allocator, fault.c leaves it alone) nothing is failed: each call runs once and gives its
 * normal result.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "diag.h"
#include "cfgparse.h"
#include "hwcache.h"
#include "hwcache-write.h"
#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"
#include "macro.h"
#include "pamedit.h"
#include "pammod.h"
#include "pamstack.h"
#include "policy.h"
#include "session.h"
#include "sshdconf.h"
#include "strmap.h"
#include "strv.h"
#include "../fault/fault.h"
#include "model.h"

static char root[] = "/tmp/test-alloc-XXXXXX";

static int setup(void **state) {
        (void)state;
        return unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
                                "alice:x:1000:1000::/home/alice:/bin/sh\n"
                                "bob:x:1001:1001::/home/bob:/bin/sh\n" },
                { "etc/group", "root:x:0:\n"
                               "alice:x:1000:\n"
                               "rdma:x:2000:alice,bob\n"
                               "spdk:x:2001:bob,alice\n"
                               /* longer than any line before it: getline() grows its buffer */
                               "big:x:2002:member00,member01,member02,member03,member04,member05,member06,"
                               "member07,member08,member09,member10,member11,member12,member13,member14\n" },
                { "etc/pam.d/common-session", "session [default=1] pam_permit.so\n"
                                              "session required pam_unix.so\n" },
                { "etc/pam.d/extra", "session required pam_limits.so\n" },
                /* a stack that aborts: its last line (no newline after it) includes a missing file */
                { "etc/pam.d/aborts", "session required pam_permit.so\n@include no-such-file" },
                /* the session engine: two pam_limits lines reading two files, a module after */
                { "etc/pam.d/two", "session required pam_limits.so conf=/etc/security/limits-alt.conf\n"
                                   "session required pam_limits.so\n"
                                   "session optional pam_rdmalimit.so\n" },
                { "etc/security/limits.conf", "alice soft memlock 2048\nalice hard memlock 4096\n" },
                { "etc/security/limits-alt.conf", "alice - memlock 6144\n" },
                /* for check: nine uid and nine gid ranges (the ninth of each grows the dead-line
                 * index, and covers the eight before it), a no-limits line, lines for everyone,
                 * more ranges, a domain twice */
                { "etc/security/limits-check.conf", "1001:1001 - memlock 1\n1002:1002 - memlock 1\n1003:1003 - memlock 1\n"
                                                    "1004:1004 - memlock 1\n1005:1005 - memlock 1\n1006:1006 - memlock 1\n"
                                                    "1007:1007 - memlock 1\n1008:1008 - memlock 1\n1000:1099 - memlock 2\n"
                                                    "@2001:2001 - memlock 1\n@2002:2002 - memlock 1\n@2003:2003 - memlock 1\n"
                                                    "@2004:2004 - memlock 1\n@2005:2005 - memlock 1\n@2006:2006 - memlock 1\n"
                                                    "@2007:2007 - memlock 1\n@2008:2008 - memlock 1\n@2000:2099 - memlock 2\n"
                                                    "carol -\n0: soft memlock 1\n@0: hard memlock 2\n"
                                                    "1000:1999 - memlock 3\n1000:2999 - memlock 4\n"
                                                    "@2000:2999 - memlock 5\n@1000:2999 - memlock 6\n"
                                                    "bob soft memlock 7\nbob soft memlock 8\n"
                                                    "@rdma soft memlock 9\n" },
                /* a weaker '-' line between (line 1 is not dead: removing it would let line 2
                 * set the hard limit), and a soft line before a '-' line for everyone (line 3
                 * is not dead): what check's lists of '-' and soft lines must hold, each line
                 * the first of its list (its push allocates) */
                { "etc/security/limits-check-dash.conf", "alice soft memlock 64\n* - memlock 100\nalice soft memlock 128\n" },
                { "etc/security/limits-check-soft.conf", "alice soft memlock 1\n@0: - memlock 1024\n* hard memlock 2048\n" },
                /* a module directory only where securedir says (test_pammod) */
                { "opt/pam/security/pam_permit.so", "" },
                /* sshd_config: -o first, includes, an ignored value, a Match block */
                { "etc/ssh/sshd_config", "Include /etc/ssh/sshd_config.d/*.conf\nUsePAM yes\nMatch User bob\n  X 1\n" },
                { "etc/ssh/sshd_config.d/10-a.conf", "# a\nUsePAM no\n" },
                { "etc/ssh/sshd_config.d/20-b.conf", "Port 22\n" },
                /* a service without session lines: libpam runs other's */
                { "etc/pam.d/other", "session required pam_permit.so\nsession include extra\n" },
                { "etc/pam.d/authonly", "auth required pam_permit.so\n" },
                /* a line without a module: libpam's handler that always fails, its control kept */
                { "etc/pam.d/nomodule", "session requisite\nsession required pam_permit.so\n" },
                { "etc/pam.d/svc", "@include common-session\n"
                                   "session include extra\n"
                                   "session substack extra\n"
                                   "session optional pam_rdmalimit.so debug\n" },
                {},
        });
}

/* Run body with allocation n failing for n = 1, 2, ...; hit: whether it failed one. */
#define SWEEP(n, hit)                                                                        \
        for (unsigned long n = 1, hit = 1; hit; n++)

static void arm(unsigned long n) {
        fault_arm("alloc", NULL, n, ENOMEM);
}

static bool disarm(void) {
        bool hit = fault_injected() > 0;
        fault_disarm();
        return hit;
}

static void test_diag(void **state) {
        struct diag_list l = {};
        (void)state;
        /* an empty message is a message, not a failure */
        assert_int_equal(diag_add(&l, DIAG_WARNING, NULL, 0, "%s", ""), 0);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.v[0].message, "");
        SWEEP(n, hit) {
                arm(n);
                int r = diag_addf(&l, DIAG_ERROR, "some-id", "/etc/x.conf", 3, "fix it", "bad %d", 7);
                hit = disarm();
                if (r < 0) {
                        assert_true(hit);
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(l.n, 1);
                        continue;
                }
                /* done all the same (vasprintf() keeps its buffer when shrinking it fails) */
                assert_int_equal(r, 0);
                assert_int_equal(l.n, 2);
                assert_string_equal(l.v[1].message, "bad 7");
                assert_string_equal(l.v[1].path, "/etc/x.conf");
                assert_string_equal(l.v[1].fix, "fix it");
                if (hit) {
                        diag_list_clear(&l);
                        assert_int_equal(diag_add(&l, DIAG_WARNING, NULL, 0, "%s", ""), 0);
                }
        }
        diag_list_clear(&l);
        /* the first finding of a list, its array allocated then: -ENOMEM and the list empty */
        SWEEP(n, hit) {
                struct diag_list e = {};
                arm(n);
                int r = diag_add(&e, DIAG_WARNING, NULL, 0, "x %d", 1);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(e.n, 0);
                } else {
                        assert_int_equal(e.n, 1);
                        assert_string_equal(e.v[0].message, "x 1");
                }
                diag_list_clear(&e);
        }
        /* no list: nothing kept, nothing allocated, no error */
        arm(1);
        assert_int_equal(diag_add(NULL, DIAG_ERROR, "/p", 1, "x"), 0);
        assert_int_equal(diag_addf(NULL, DIAG_ERROR, "id", "/p", 1, "fix", "x"), 0);
        assert_false(disarm());
}

static void test_strmap(void **state) {
        struct strmap m = {};
        static int values[40];
        char key[16];
        (void)state;
        /* each put, its allocations failing in turn: the key is not there after a failure,
         * the keys before it still are */
        for (int i = 0; i < 40; i++) {
                snprintf(key, sizeof key, "key%d", i);
                SWEEP(n, hit) {
                        size_t before = m.n;
                        arm(n);
                        int r = strmap_put(&m, key, &values[i]);
                        hit = disarm();
                        if (hit) {
                                assert_int_equal(r, -ENOMEM);
                                assert_int_equal(m.n, before);
                                assert_null(strmap_get(&m, key));
                        } else {
                                assert_int_equal(r, 0);
                                assert_int_equal(m.n, before + 1);
                        }
                        for (int k = 0; k < i; k++) {
                                char old[16];
                                snprintf(old, sizeof old, "key%d", k);
                                assert_ptr_equal(strmap_get(&m, old), &values[k]);
                        }
                }
                assert_ptr_equal(strmap_get(&m, key), &values[i]);
        }
        strmap_clear(&m, NULL);
}

#define CACHE "# rdmalimit hardware cache v4\n"                                                \
              "fingerprint rdma=mlx5_0,;net=eth0,\n"                                          \
              "rdma_status 0\nverbs_status 0\n"                                                \
              "rdma mlx5_0 1 0 0 0 1\nport 1 4 1 0\n"                                          \
              "xdp_status 0\nxdp 2 eth0 35 8 1\nxdp 3 eth1 35 4 1\n"                           \
              "mem 0 25275953152\nend\n"

static void test_hwcache(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct hw_summary *s = (struct hw_summary *)0x1;
                char *fp = (char *)"marker";
                arm(n);
                int r = hw_cache_parse(CACHE, strlen(CACHE), &s, &fp);
                hit = disarm();
                if (hit) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(s, (struct hw_summary *)0x1);
                        assert_string_equal(fp, "marker");
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(s->n_xdp, 2);
                assert_int_equal(s->n_rdma, 1);
                assert_string_equal(fp, "rdma=mlx5_0,;net=eth0,");
                hw_summary_free(s);
                free(fp);
                assert_true(n > 4 || !fault_alloc_supported());
        }
}

/* the cache written back: its fingerprint (of this machine's sysfs) and its text */
static void test_hwcache_format(void **state) {
        struct hw_summary *s = NULL;
        char *fp = NULL;
        (void)state;
        assert_int_equal(hw_cache_parse(CACHE, strlen(CACHE), &s, &fp), 0);
        free(fp);
        SWEEP(n, hit) {
                char *f = (char *)"marker";
                arm(n);
                int r = hw_fingerprint(NULL, &f);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_string_equal(f, "marker");
                        continue;
                }
                assert_int_equal(r, 0);
                assert_non_null(strstr(f, ";rdma="));
                assert_non_null(strstr(f, ";net="));
                free(f);
        }
        SWEEP(n, hit) {
                char *text = (char *)"marker";
                size_t len = 777;
                arm(n);
                int r = hw_cache_format(s, NULL, &text, &len);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_string_equal(text, "marker");
                        assert_int_equal(len, 777);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(strlen(text), len);
                assert_non_null(strstr(text, "\nxdp 3 eth1 35 4 1\nmem 0 25275953152\nend\n"));
                free(text);
        }
        hw_summary_free(s);
}

static void test_ident(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct ident *id = NULL;
                const struct id_user *u = (const struct id_user *)0x1;
                assert_int_equal(ident_new(root, &id), 0);
                arm(n);
                int r = ident_user(id, "bob", &u);
                hit = disarm();
                if (r != 0) {
                        if (r != -ENOMEM)
                                fail_msg("allocation %lu failing: %s", n, strerror(-r));
                        assert_ptr_equal(u, (const struct id_user *)0x1);
                } else {
                        assert_int_equal(r, 0);
                        assert_int_equal(u->uid, 1001);
                }
                ident_free(id);
        }
        /* the context of a tree, and its groups by name and by gid */
        SWEEP(n, hit) {
                struct ident *id = (struct ident *)0x1;
                arm(n);
                int r = ident_new(root, &id);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(id, (struct ident *)0x1);
                } else
                        ident_free(id);
        }
        /* spdk by name and by gid; the last group, big, whose line is read into a buffer grown
         * for it: -ENOMEM or the group, never "no such group" (a read cut short taken for the
         * end of the file) */
        static const struct {
                const char *name;       /* NULL: by gid */
                gid_t gid;
                const char *group;
                size_t members, at;     /* its number of members, and one of them */
                const char *member;
        } groups[] = {
                { "spdk", 2001, "spdk", 2, 0, "bob" },
                { NULL, 2001, "spdk", 2, 0, "bob" },
                { "big", 2002, "big", 15, 14, "member14" },
        };
        for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                SWEEP(n, hit) {
                        struct ident *id = NULL;
                        const struct id_group *g = (const struct id_group *)0x1;
                        assert_int_equal(ident_new(root, &id), 0);
                        arm(n);
                        int r = groups[i].name ? ident_group(id, groups[i].name, &g)
                                               : ident_group_by_gid(id, groups[i].gid, &g);
                        hit = disarm();
                        if (r != 0) {
                                if (r != -ENOMEM)
                                        fail_msg("allocation %lu failing: %s", n, strerror(-r));
                                assert_ptr_equal(g, (const struct id_group *)0x1);
                        } else {
                                size_t k = 0;
                                assert_int_equal(g->gid, groups[i].gid);
                                assert_string_equal(g->name, groups[i].group);
                                assert_non_null(g->members);
                                while (g->members[k])
                                        k++;
                                assert_int_equal(k, groups[i].members);
                                assert_string_equal(g->members[groups[i].at], groups[i].member);
                        }
                        ident_free(id);
                }
        /* a user's groups */
        SWEEP(n, hit) {
                struct ident *id = NULL;
                const struct id_user *u = NULL;
                const gid_t *g = (const gid_t *)0x1;
                size_t ng = 777;
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(ident_user(id, "alice", &u), 0);
                arm(n);
                int r = ident_user_gids(id, u, &g, &ng);
                hit = disarm();
                if (hit) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(g, (const gid_t *)0x1);
                        assert_int_equal(ng, 777);
                } else {
                        assert_int_equal(r, 0);
                        assert_int_equal(ng, 3);
                        assert_int_equal(g[0], 1000);
                }
                ident_free(id);
        }
}

static void test_pamstack(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct pam_stack s;
                arm(n);
                int r = pam_stack_load(root, "svc", &s);
                hit = disarm();
                /* a failure is the result or recorded in the stack, never a short stack that
                 * looks complete */
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        continue;
                }
                if (s.error == 0 && s.n != 5)
                        fail_msg("allocation %lu failing: %zu entries", n, s.n);
                assert_non_null(s.service);
                assert_string_equal(s.service, "svc");
                if (s.error != 0)
                        assert_int_equal(s.error, -ENOMEM);
                pam_stack_clear(&s);
        }
}

/* A service that runs pam.d/other's stack: a failure in reading other is the result, never
 * a stack without other's lines */
static void test_pamstack_other(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct pam_stack s;
                arm(n);
                int r = pam_stack_load(root, "authonly", &s);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        continue;
                }
                if (s.error == 0 && !(s.other && s.n == 2))
                        fail_msg("allocation %lu failing: %zu entries, other %d", n, s.n, s.other);
                if (s.error != 0)
                        assert_int_equal(s.error, -ENOMEM);
                pam_stack_clear(&s);
        }
}

/* A line libpam makes a handler that always fails keeps its control: a failure in copying it
 * is the result, never an entry without one */
static void test_pamstack_failing(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct pam_stack s;
                arm(n);
                int r = pam_stack_load(root, "nomodule", &s);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        continue;
                }
                if (s.error == 0) {
                        if (s.n != 2 || !s.v[0].fails || !s.v[0].control)
                                fail_msg("allocation %lu failing: %zu entries", n, s.n);
                        assert_string_equal(s.v[0].control, "requisite");
                } else
                        assert_int_equal(s.error, -ENOMEM);
                pam_stack_clear(&s);
        }
}

/* sshd_config and the answer built on it: -ENOMEM, or the whole answer */
static void test_sshdconf(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct strv opts = {};
                struct sshd_conf c = { .set = true };
                const char *where = NULL;
                int r = strv_push(&opts, "Port=2222");
                assert_int_equal(r, 0);
                arm(n);
                r = sshd_conf_read(root, NULL, &opts, "the command line of sshd (pid 7)", &c);
                hit = disarm();
                strv_clear(&opts);
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_true(c.set);   /* untouched */
                        continue;
                }
                assert_int_equal(sshd_conf_pam(&c, &where), SSHD_PAM_NO);
                assert_string_equal(where, "etc/ssh/sshd_config.d/10-a.conf:2");
                assert_string_equal(c.ignored_where, "etc/ssh/sshd_config:2");
                sshd_conf_clear(&c);
        }
        SWEEP(n, hit) {
                struct session_pam_answer a = { .kind = 99 };
                arm(n);
                int r = session_service_pam(root, "sshd", 0, &a);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(a.kind, 99);
                        continue;
                }
                assert_int_equal(a.kind, SESSION_PAM_NONE);
                assert_string_equal(a.where, "etc/ssh/sshd_config.d/10-a.conf:2");
        }
        SWEEP(n, hit) {
                struct strv args = {};
                arm(n);
                int r = sshd_title_args("sshd: /usr/sbin/sshd -D -o UsePAM no -f /c [listener] 0 of 10", &args);
                hit = disarm();
                if (r < 0)
                        assert_int_equal(r, -ENOMEM);
                else {
                        char *path = NULL;
                        struct strv opts = {};
                        assert_int_equal(args.n, 5);
                        arm(n);
                        r = sshd_args_parse(args.v, args.n, &path, &opts);
                        bool hit2 = disarm();
                        (void)hit2;
                        if (r < 0)
                                assert_int_equal(r, -ENOMEM);
                        else {
                                assert_string_equal(path, "/c");
                                assert_string_equal(opts.v[0], "UsePAM no");
                        }
                        free(path);
                        strv_clear(&opts);
                }
                strv_clear(&args);
        }
        SWEEP(n, hit) {
                size_t k = 99;
                arm(n);
                char *w = pam_args_words("[conf=/a b] quiet", &k);
                hit = disarm();
                if (!w) {
                        assert_int_equal(k, 99);
                        continue;
                }
                assert_int_equal(k, 2);
                assert_string_equal(w, "conf=/a b");
                free(w);
        }
}

/* a stack that aborts (libpam stops at an @include it cannot read): where and what, or -ENOMEM,
 * never an abort without its place or name */
static void test_pamstack_aborts(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct pam_stack s;
                arm(n);
                int r = pam_stack_load(root, "aborts", &s);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        continue;
                }
                if (s.error != 0) {
                        assert_int_equal(s.error, -ENOMEM);
                        pam_stack_clear(&s);
                        continue;
                }
                assert_true(s.aborts);
                if (!s.abort_where || !s.abort_name)
                        fail_msg("allocation %lu failing: an abort at %s of %s", n, s.abort_where ?: "(nowhere)",
                                 s.abort_name ?: "(nothing)");
                assert_non_null(strstr(s.abort_where, "pam.d/aborts:2"));
                assert_string_equal(s.abort_name, "no-such-file");
                pam_stack_clear(&s);
        }
}

/* enable's jump keeping: a line inserted after pam_limits moves the landing of a jump over it */
#define JUMPS "session [success=2 default=ignore] pam_succeed_if.so user = root\n"                \
              "session required pam_unix.so\n"                                                   \
              "session required pam_limits.so\n"                                                 \
              "session optional pam_permit.so\n"

static void test_keep_jumps(void **state) {
        (void)state;
        SWEEP(n, hit) {
                struct pam_file f = {};
                char where[PAMEDIT_WHERE_MAX] = "";
                assert_int_equal(pam_file_parse("jsvc", JUMPS, strlen(JUMPS), &f, NULL), 0);
                assert_int_equal(pam_file_insert_mark(&f, 2), 0);
                arm(n);
                int r = pam_file_keep_jumps(root, "jsvc", JUMPS, &f, where);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_string_equal(f.v[0].control, "[success=2 default=ignore]");
                } else {
                        /* never a jump left landing elsewhere */
                        if (r != 1)
                                fail_msg("allocation %lu failing: %d lines changed", n, r);
                        assert_string_equal(f.v[0].control, "[success=3 default=ignore]");
                        assert_string_equal(f.v[0].text,
                                            "session [success=3 default=ignore] pam_succeed_if.so user = root");
                }
                pam_file_clear(&f);
        }
}

#define POLICY "version = 1;\n"                                                                \
               "hardware = { include = [ \"veth*\" ]; exclude = ( \"eno3\" ); };\n"            \
               "rules = (\n"                                                                   \
               "  { group = \"rdma\"; memlock = \"auto\"; minimum = \"1G\"; },\n"              \
               "  { group = \"spdk\"; memlock = \"2G\"; },\n"                                  \
               "  { user = \"alice\"; memlock = \"4G\"; hard = \"8G\"; maximum = \"16G\"; }\n" \
               ");\n"

#define POLICY_BOB "version = 1;\n"                                                            \
                   "rules = ( { group = \"rdma\"; memlock = \"2G\"; }, { user = \"bob\"; memlock = \"1G\"; } );\n"

static void test_policy(void **state) {
        (void)state;
        /* the policy's reader and loader: -ENOMEM and nothing, or the whole policy */
        struct policy *p = NULL;
        SWEEP(n, hit) {
                struct policy *q = (struct policy *)0x1;
                struct diag_list d = {};
                arm(n);
                int r = policy_load_string(POLICY, strlen(POLICY), "/etc/rdmalimit.conf", &q, &d);
                hit = disarm();
                diag_list_clear(&d);
                if (hit && r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(q, (struct policy *)0x1);
                        continue;
                }
                assert_int_equal(r, 0);
                /* the whole policy: every rule and name, the path */
                assert_string_equal(q->path, "/etc/rdmalimit.conf");
                assert_int_equal(q->n_rules, 3);
                assert_string_equal(q->rules[0].group, "rdma");
                assert_int_equal(q->rules[0].memlock.kind, PV_AUTO);
                assert_int_equal(q->rules[0].minimum.kind, PV_SIZE);
                assert_string_equal(q->rules[1].group, "spdk");
                assert_int_equal(q->rules[1].memlock.kind, PV_SIZE);
                assert_string_equal(q->rules[2].user, "alice");
                assert_int_equal(q->rules[2].hard.kind, PV_SIZE);
                assert_int_equal(q->rules[2].maximum.kind, PV_SIZE);
                assert_string_equal(q->hw.sel.include[0], "veth*");
                assert_null(q->hw.sel.include[1]);
                assert_string_equal(q->hw.sel.exclude[0], "eno3");
                assert_null(q->hw.sel.exclude[1]);
                policy_free(q);
        }
        /* the groups of rules a user is in */
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        assert_int_equal(policy_load_string(POLICY, strlen(POLICY), "/etc/rdmalimit.conf", &p, NULL), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(ident_user(id, "bob", &u), 0);
        SWEEP(n, hit) {
                char **v = (char **)0x1;
                size_t nv = 777;
                arm(n);
                int r = policy_user_groups(p, id, u, &v, &nv);
                hit = disarm();
                if (hit) {
                        /* policy.h: NULL and 0 unless the groups were found */
                        assert_int_equal(r, -ENOMEM);
                        assert_null(v);
                        assert_int_equal(nv, 0);
                        continue;
                }
                assert_int_equal(r, 0);
                if (nv != 2)
                        fail_msg("allocation %lu failing: %zu groups", n, nv);
                assert_string_equal(v[0], "rdma");
                assert_string_equal(v[1], "spdk");
                strv_free(v);
        }
        policy_free(p);
        /* a user rule for the user: its groups are not looked up at all */
        assert_int_equal(policy_load_string(POLICY_BOB, strlen(POLICY_BOB), "p", &p, NULL), 0);
        {
                char **v = (char **)0x1;
                size_t nv = 777;
                arm(1);
                assert_int_equal(policy_user_groups(p, id, u, &v, &nv), 0);
                assert_false(disarm());      /* nothing allocated: no lookup */
                assert_null(v);
                assert_int_equal(nv, 0);
        }
        policy_free(p);
        /* no policy, or one without a group rule (only user rules, none for bob): the groups
         * are not looked up either */
        static const char *const no_group_rule[] = {
                "version = 1;\nrules = ( { user = \"alice\"; memlock = \"2G\"; } );\n",
                "version = 1;\nrules = ( { user = \"alice\"; memlock = \"2G\"; }, "
                "{ user = \"carol\"; memlock = \"1G\"; } );\n",
                "version = 1;\nrules = ();\n",
                NULL,
        };
        for (size_t i = 0; i < ELEMENTSOF(no_group_rule); i++) {
                char **v = (char **)0x1;
                size_t nv = 777;
                p = NULL;
                if (no_group_rule[i])
                        assert_int_equal(policy_load_string(no_group_rule[i], strlen(no_group_rule[i]), "p", &p,
                                                            NULL), 0);
                arm(1);
                assert_int_equal(policy_user_groups(p, id, u, &v, &nv), 0);
                assert_false(disarm());
                assert_null(v);
                assert_int_equal(nv, 0);
                policy_free(p);
        }
        p = NULL;
        ident_free(id);
        policy_free(p);
}

/* where libpam finds modules: the directory that holds pam_permit.so, here only the one
 * securedir names; none without it (every module then unchecked); each allocation failing in
 * turn gives -ENOMEM and nothing else */
static void test_pammod(void **state) {
        struct pam_moddirs m;
        enum pam_mod_state st;
        char *found = (char *)0x1;
        (void)state;
        assert_int_equal(pam_moddirs_load(&m, root, "/opt/pam/security"), 0);
        assert_true(m.pamdir >= 0);
        assert_string_equal(m.dirs.v[m.pamdir], "/opt/pam/security");
        assert_int_equal(pam_module_state(&m, root, "pam_permit.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        assert_null(found);
        assert_int_equal(pam_module_state(&m, root, "pam_nothere.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_MISSING);
        assert_int_equal(pam_module_state(&m, root, "/opt/pam/security/pam_permit.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        assert_int_equal(pam_module_state(&m, root, "/opt/pam/security/pam_nothere.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_MISSING);
        SWEEP(n, hit) {
                arm(n);
                int r = pam_module_state(&m, root, "pam_nothere.so", NULL, &st, NULL);
                hit = disarm();
                /* (glibc's asprintf() survives a failed shrinking realloc: then the answer) */
                if (r < 0)
                        assert_int_equal(r, -ENOMEM);
                else
                        assert_int_equal(st, PAM_MOD_MISSING);
        }
        SWEEP(n, hit) {
                arm(n);
                int r = pam_module_state(&m, root, "pam_permit.so", NULL, &st, NULL);
                hit = disarm();
                if (r < 0)
                        assert_int_equal(r, -ENOMEM);
                else
                        assert_int_equal(st, PAM_MOD_FOUND);
        }
        /* the kernel out of memory opening the module (openat2 ENOMEM): the error, not an
         * answer, for a module by path and by name */
        static const char *const mods[] = { "/opt/pam/security/pam_permit.so", "pam_permit.so" };
        for (size_t i = 0; i < ELEMENTSOF(mods); i++) {
                fault_arm("openat2", "*pam_permit.so", 1, ENOMEM);
                int r = pam_module_state(&m, root, mods[i], NULL, &st, NULL);
                bool injected = fault_injected() > 0;
                fault_disarm();
                if (!injected) {
                        print_message("# openat2() is not used here: %s not checked\n", mods[i]);
                        continue;
                }
                assert_int_equal(r, -ENOMEM);
        }
        pam_moddirs_clear(&m);
        /* of two directories holding pam_permit.so, the first of the usual order is libpam's */
        unit_put(root, "lib/x86_64-linux-gnu/security/pam_permit.so", "");
        assert_int_equal(pam_moddirs_load(&m, root, "/opt/pam/security"), 0);
        assert_string_equal(m.dirs.v[m.pamdir], "/lib/x86_64-linux-gnu/security");
        assert_int_equal(pam_module_state(&m, root, "pam_permit.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        pam_moddirs_clear(&m);
        char gone[PATH_MAX];
        assert_int_equal(unlink(unit_path(gone, root, "lib/x86_64-linux-gnu/security/pam_permit.so")), 0);
        /* without it: no module directory in this tree, nothing can be told */
        assert_int_equal(pam_moddirs_load(&m, root, NULL), 0);
        assert_int_equal(m.pamdir, -1);
        assert_int_equal(pam_module_state(&m, root, "pam_nothere.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_UNCHECKED);
        pam_moddirs_clear(&m);
        SWEEP(n, hit) {
                arm(n);
                int r = pam_moddirs_load(&m, root, "/opt/pam/security");
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        continue;
                }
                assert_string_equal(m.dirs.v[m.pamdir], "/opt/pam/security");
                pam_moddirs_clear(&m);
        }
}

/* the policy's reader with a group large enough for its hash of names: -ENOMEM, or the tree */
static void test_cfgparse(void **state) {
        char text[1024];
        int k = snprintf(text, sizeof text, "g = {\n");
        (void)state;
        for (int i = 0; i < 24; i++)
                k += snprintf(text + k, sizeof text - (size_t)k, "  k%d = \"v%d\";\n", i, i);
        snprintf(text + k, sizeof text - (size_t)k, "};\nl = ( 1, [ 2.5 ], { a = true; } );\n");
        SWEEP(n, hit) {
                struct cfg_node *t = (struct cfg_node *)0x1;
                arm(n);
                int r = cfg_parse(text, strlen(text), 4, NULL, NULL, &t);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(t, (struct cfg_node *)0x1);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(t->c.n, 2);
                assert_int_equal(t->c.v[0].c.n, 24);
                for (int i = 0; i < 24; i++) {
                        char want[16];
                        snprintf(want, sizeof want, "v%d", i);
                        assert_string_equal(t->c.v[0].c.v[i].s, want);
                }
                cfg_free(t);
        }
        /* a key twice in a large group (its names hashed): refused, whatever allocation fails;
         * k23 twice in a row: the name the look-up needs is the one being hashed when the
         * allocation fails */
        static const char *const dups[] = { "k20", "k23" };
        for (size_t d = 0; d < ELEMENTSOF(dups); d++) {
                k = snprintf(text, sizeof text, "g = {\n");
                for (int i = 0; i < 24; i++)
                        k += snprintf(text + k, sizeof text - (size_t)k, "  k%d = %d;\n", i, i);
                snprintf(text + k, sizeof text - (size_t)k, "  %s = 0;\n};\n", dups[d]);
                SWEEP(n, hit) {
                        struct cfg_node *t = (struct cfg_node *)0x1;
                        arm(n);
                        int r = cfg_parse(text, strlen(text), 4, NULL, NULL, &t);
                        hit = disarm();
                        if (r != -ENOMEM)
                                assert_int_equal(r, -EINVAL);
                        assert_ptr_equal(t, (struct cfg_node *)0x1);
                }
        }
        /* strings: an empty one first (its buffer allocated for the terminating NUL alone),
         * then one that outgrows it byte by byte: -ENOMEM or every byte */
        static const char strings[] = "e = \"\";\ns = \"0123456789abcdefghijklmnopqrstuvwxyz\";\n";
        SWEEP(n, hit) {
                struct cfg_node *t = (struct cfg_node *)0x1;
                arm(n);
                int r = cfg_parse(strings, strlen(strings), 4, NULL, NULL, &t);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(t, (struct cfg_node *)0x1);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(t->c.n, 2);
                assert_string_equal(t->c.v[0].s, "");
                assert_string_equal(t->c.v[1].s, "0123456789abcdefghijklmnopqrstuvwxyz");
                cfg_free(t);
        }
        /* a float longer than the reader's buffer on the stack: -ENOMEM or its value */
        k = snprintf(text, sizeof text, "f = 2.5");
        for (int i = 0; i < 200; i++)
                k += snprintf(text + k, sizeof text - (size_t)k, "0");
        snprintf(text + k, sizeof text - (size_t)k, ";\n");
        SWEEP(n, hit) {
                struct cfg_node *t = (struct cfg_node *)0x1;
                arm(n);
                int r = cfg_parse(text, strlen(text), 4, NULL, NULL, &t);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_ptr_equal(t, (struct cfg_node *)0x1);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(t->c.n, 1);
                assert_true(t->c.v[0].f == 2.5);
                cfg_free(t);
        }
}

/* The session engine: a trees' resolution, the stack, the walk, each run; every allocation
 * failing in turn gives -ENOMEM or the whole model, never a model of less (a stack read short
 * taken for an unreadable one, a tree left out). */
static void test_session_model(void **state) {
        struct lc_tree *t[2] = {};
        struct lc_args alt;
        struct ident *id = NULL;
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_service svc = { .known = true, .cap_sys_resource = true };
        struct policy *pol = NULL;
        static const char policy_text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"3M\"; } );\n";
        (void)state;

        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_UPSTREAM, NULL, &t[0]), 0);
        assert_int_equal(lc_args_parse("conf=/etc/security/limits-alt.conf", &alt), 0);
        assert_int_equal(lc_tree_load_args(root, LC_FLAVOUR_UPSTREAM, &alt, &t[1]), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(policy_load_string(policy_text, strlen(policy_text), "p", &pol, NULL), 0);
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 8388608 };
        struct session_input in = { .root = root, .service = "two", .tree = t[0], .line_tree = unit_line_tree,
                                    .line_tree_data = t, .id = id, .user = "alice", .base = &b, .svc = &svc,
                                    .policy = pol };
        /* alt's 6 MiB, then limits.conf's 2 MiB / 4 MiB, then the module's 3 MiB (it does not
         * lower the hard 4 MiB) */
        struct session_model want = {};
        assert_int_equal(session_model_build(&in, &want), 0);
        assert_int_equal(want.order, SESSION_MODULE_LAST);
        assert_true(want.tree == t[0] && want.final_known);
        assert_int_equal(want.final.soft, 3 << 20);
        assert_int_equal(want.final.hard, 4 << 20);
        unit_sweep_model(&in, &want);
        session_model_clear(&want);
        /* a stack without pam_limits (and failing: no module's result counts as a success):
         * the input's tree is the one shown */
        in.service = "common-session";
        assert_int_equal(session_model_build(&in, &want), 0);
        assert_true(want.tree == t[0]);
        unit_sweep_model(&in, &want);
        session_model_clear(&want);
        policy_free(pol);
        ident_free(id);
        lc_tree_free(t[0]);
        lc_tree_free(t[1]);
}

/* lc_check() with each allocation failing in turn: -ENOMEM, or the findings of the run
 * without a fault, never fewer (ident is loaded by that first run: the sweep fails check's own
 * allocations) */
static void check_sweep(const char *conf) {
        struct lc_tree *t = NULL;
        struct lc_args args;
        struct ident *id = NULL;
        struct diag_list want = {};

        assert_int_equal(lc_args_parse(conf, &args), 0);
        assert_int_equal(lc_tree_load_args(root, LC_FLAVOUR_UPSTREAM, &args, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(lc_check(t, id, &want), 0);
        assert_true(want.n > 0);
        SWEEP(n, hit) {
                struct diag_list d = {};
                arm(n);
                int r = lc_check(t, id, &d);
                hit = disarm();
                /* a failure libc gets over (asprintf() keeps its own buffer when the exact-size
                 * copy fails) leaves the normal result: never fewer findings */
                if (!hit || r != -ENOMEM) {
                        assert_int_equal(r, 0);
                        assert_int_equal(d.n, want.n);
                        for (size_t i = 0; i < d.n; i++)
                                assert_string_equal(d.v[i].message, want.v[i].message);
                }
                diag_list_clear(&d);
        }
        diag_list_clear(&want);
        ident_free(id);
        lc_tree_free(t);
}

static void test_check(void **state) {
        struct lc_tree *t = NULL;
        struct lc_args args;
        struct ident *id = NULL;
        (void)state;

        check_sweep("conf=/etc/security/limits-check.conf");
        check_sweep("conf=/etc/security/limits-check-dash.conf");
        check_sweep("conf=/etc/security/limits-check-soft.conf");
        assert_int_equal(lc_args_parse("conf=/etc/security/limits-check.conf", &args), 0);
        assert_int_equal(lc_tree_load_args(root, LC_FLAVOUR_UPSTREAM, &args, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        /* the kernel out of memory when check opens a file again to count its CRLF line ends */
        struct diag_list d = {};
        fault_arm("openat2", "*limits-check.conf", 1, ENOMEM);
        int r = lc_check(t, id, &d);
        assert_int_equal(fault_injected(), 1);
        fault_disarm();
        assert_int_equal(r, -ENOMEM);
        diag_list_clear(&d);
        ident_free(id);
        lc_tree_free(t);
}

/* lc_resolve_prepared() with each allocation failing in turn during bob's walk, on a fresh
 * ident (the tree's passwd and group read then): -ENOMEM or bob's result; then alice's walk on
 * the same prepared tree is what lc_resolve() gives her (a group a failure kept from being
 * looked up is asked again, not taken for "no such group") */
static void test_resolve_prepared(void **state) {
        const char *text = "@rdma soft memlock 9\n@spdk hard memlock 10\nbob soft memlock 11\n";
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_tree *t = NULL;
        struct lc_result want = {};
        struct ident *id0 = NULL;
        (void)state;

        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), LC_FLAVOUR_UPSTREAM, &t), 0);
        assert_int_equal(ident_new(root, &id0), 0);
        assert_int_equal(lc_resolve(t, id0, "alice", &b, &want), 0);
        assert_true(want.soft.known && want.hard.known);
        SWEEP(n, hit) {
                struct ident *id = NULL;
                struct lc_prep *prep = NULL;
                struct lc_result r1 = {}, r2 = {};
                assert_int_equal(ident_new(root, &id), 0);
                assert_int_equal(lc_prep_new(t, id, &prep), 0);
                arm(n);
                int r = lc_resolve_prepared(t, id, prep, "bob", &b, &r1);
                hit = disarm();
                if (r < 0)
                        assert_int_equal(r, -ENOMEM);
                lc_result_clear(&r1);
                assert_int_equal(lc_resolve_prepared(t, id, prep, "alice", &b, &r2), 0);
                assert_int_equal(r2.kind, want.kind);
                assert_true(r2.soft.src == want.soft.src && r2.hard.src == want.hard.src);
                assert_true(r2.soft.value == want.soft.value && r2.hard.value == want.hard.value);
                lc_result_clear(&r2);
                lc_prep_free(prep);
                ident_free(id);
        }
        lc_result_clear(&want);
        ident_free(id0);
        lc_tree_free(t);
}

/* session_walks_every_user(), session_walk_users() and session_module_ret() with each
 * allocation failing in turn: -ENOMEM (NULL) and nothing left, or the run without a fault */
static const struct policy *walk_policy(const struct pam_entry *e, const char **ret_name, const char **ret_refused,
                                       void *data) {
        struct policy **p = data;
        (void)ret_refused;
        *ret_name = strstr(e->args, "conf=/b") ? "/b" : "/a";
        return strstr(e->args, "conf=/b") ? p[1] : p[0];
}

static void test_session_walks(void **state) {
        static const char text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"3M\"; } );\n";
        struct policy *p[2] = {};
        struct pam_stack st = {};
        struct session_walks want = {};
        const struct session_lines l = { .policy = walk_policy, .data = p };
        (void)state;

        assert_int_equal(policy_load_string(text, strlen(text), "a", &p[0], NULL), 0);
        assert_int_equal(policy_load_string(text, strlen(text), "b", &p[1], NULL), 0);
        unit_put(root, "etc/pam.d/walks",
                 "session required pam_limits.so\n"
                 "session optional pam_rdmalimit.so conf=/a\n"
                 "session [success=1 default=ignore] pam_rdmalimit.so conf=/b strict\n"
                 "session required pam_limits.so\n");
        assert_int_equal(pam_stack_load(root, "walks", &st), 0);
        assert_int_equal(session_walks_every_user(&st, &l, &want), 0);
        assert_int_equal(want.n, 3);
        SWEEP(n, hit) {
                struct session_walks w = { .n = 99 };
                arm(n);
                int r = session_walks_every_user(&st, &l, &w);
                hit = disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(w.n, 99);
                        continue;
                }
                assert_int_equal(w.n, want.n);
                for (size_t j = 0; j < w.n; j++)
                        if (w.v[j].mask != want.v[j].mask || w.v[j].run.last_limits != want.v[j].run.last_limits ||
                            w.v[j].run.last_module != want.v[j].run.last_module)
                                fail_msg("allocation %lu failing: walk %zu differs", n, j);
                session_walks_clear(&w);
        }
        SWEEP(n, hit) {
                arm(n);
                char *u = session_walk_users(&want, 1);
                hit = disarm();
                if (u)
                        assert_string_equal(u, "that /a has a rule for and /b none");
                free(u);
        }
        SWEEP(n, hit) {
                enum pam_ret r = PAM_RET_UNKNOWN;
                arm(n);
                int k = session_module_ret("strict", NULL, false, &r);
                hit = disarm();
                if (k < 0) {
                        assert_int_equal(k, -ENOMEM);
                        assert_int_equal(r, PAM_RET_UNKNOWN);
                } else
                        assert_int_equal(r, PAM_RET_FAIL);
        }
        session_walks_clear(&want);
        pam_stack_clear(&st);
        policy_free(p[0]);
        policy_free(p[1]);
}

UNIT_MAIN(setup, unit_teardown, cmocka_unit_test(test_diag), cmocka_unit_test(test_strmap),
          cmocka_unit_test(test_hwcache), cmocka_unit_test(test_hwcache_format), cmocka_unit_test(test_ident), cmocka_unit_test(test_pamstack), cmocka_unit_test(test_pamstack_other), cmocka_unit_test(test_pamstack_failing), cmocka_unit_test(test_pamstack_aborts), cmocka_unit_test(test_keep_jumps),
          cmocka_unit_test(test_policy), cmocka_unit_test(test_pammod), cmocka_unit_test(test_cfgparse),
          cmocka_unit_test(test_session_model), cmocka_unit_test(test_session_walks), cmocka_unit_test(test_check), cmocka_unit_test(test_resolve_prepared),
          cmocka_unit_test(test_sshdconf))
