/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ident in root mode: users and groups from a throwaway tree's etc/passwd and etc/group. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "fsutil.h"
#include "ident-backend.h"
#include "ident-files.h"
#include "ident.h"
#include "macro.h"
#include "../fault/fault.h"

static char root[] = "/tmp/test-ident-XXXXXX";

/* a uid and gid no name service of a test host knows */
#define NSS_NO_UID 3999999999u

static int setup(void **state) {
        (void)state;
        return unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "# a comment\n"
                                "\n"                                   /* an empty line is no end */
                                "root:x:0:0:root:/root:/bin/sh\n"
                                "alice:x:1000:1000::/home/alice:/bin/sh\n"
                                "bob:x:1001:1001::/home/bob:/bin/sh\n"
                                "carol:x:1002:2000::/home/carol:/bin/sh\n"
                                "alice:x:4000:4000:second alice:/:/bin/false\n"
                                "+nisuser\n"
                                "#olduser:x:5000:5000::/:/bin/sh\n"
                                "+nisuser2:x:5001:5001::/:/bin/sh\n"
                                "broken:x:notanumber:1\n"
                                "four:x:1013:1013\n"                 /* four fields: enough */
                                "three:x:1014\n"                      /* three: no gid, no user */
                                "many:x:1015:1015:a:b:c:d:e:f\n"      /* more than seven fields */
                                "\n" },
                { "etc/group", "root:x:0:\n"
                               "\n"
                               "alice:x:1000:\n"
                               "bob:x:1001:\n"
                               "rdma:x:2000:alice,bob\n"
                               "video:x:2001:bob\n"
                               "dup:x:3000:alice\n"
                               "dup:x:3001:bob\n"
                               "samegid:x:3000:carol\n"
                               "-netgroup\n"
                               "#oldgroup:x:5000:alice\n"
                               "+nisgroup:x:5001:alice\n"
                               "-netgroup2:x:5002:alice\n"
                               "nomembers:x:6000\n"
                               "bad:x:nogid:alice\n" },
                {},
        });
}

static void test_users(void **state) {
        struct ident *id;
        const struct id_user *u;
        (void)state;

        assert_int_equal(ident_new(root, &id), 0);
        assert_false(ident_uses_nss(id));
        assert_int_equal(ident_user(id, "alice", &u), 0);
        assert_string_equal(u->name, "alice");
        assert_int_equal(u->uid, 1000);   /* the first entry wins */
        assert_int_equal(u->gid, 1000);
        assert_int_equal(ident_user(id, "carol", &u), 0);
        assert_int_equal(u->uid, 1002);
        assert_int_equal(u->gid, 2000);
        assert_int_equal(ident_user(id, "root", &u), 0);
        assert_int_equal(u->uid, 0);
        assert_int_equal(ident_user(id, "four", &u), 0);
        assert_int_equal(u->gid, 1013);
        assert_int_equal(ident_user(id, "many", &u), 0);
        assert_int_equal(u->gid, 1015);

        /* not found, and u untouched on failure */
        static const char *const none[] = { "nobody-here", "nisuser", "+nisuser", "broken", "ALICE", "three",
                                            "#olduser", "olduser", "+nisuser2", "nisuser2" };
        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                u = (const struct id_user *)0x1;
                assert_int_equal(ident_user(id, none[i], &u), -ENOENT);
                assert_ptr_equal(u, (const struct id_user *)0x1);
        }
        ident_free(id);
}

/* By uid (the Slurm plugin's way in: the job's uid, through NSS there): in root mode, among the
 * users by name (the first line of each name), the first with that uid. */
static void test_users_by_uid(void **state) {
        struct ident *id;
        const struct id_user *u;
        (void)state;

        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(ident_user_by_uid(id, 1000, &u), 0);
        assert_string_equal(u->name, "alice");
        assert_int_equal(u->gid, 1000);
        assert_int_equal(ident_user_by_uid(id, 1002, &u), 0);
        assert_string_equal(u->name, "carol");
        assert_int_equal(u->gid, 2000);
        assert_int_equal(ident_user(id, "alice", &u), 0);
        assert_int_equal(u->uid, 1000);   /* by name: still the first line */
        assert_int_equal(ident_user_by_uid(id, 0, &u), 0);
        assert_string_equal(u->name, "root");
        /* no such uid, a "+" line's, a broken line's: not found, u untouched */
        static const uid_t none[] = { 1003, 4000, 5000, 5001, 65534 };   /* 4000: the second alice line */
        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                u = (const struct id_user *)0x1;
                assert_int_equal(ident_user_by_uid(id, none[i], &u), -ENOENT);
                assert_ptr_equal(u, (const struct id_user *)0x1);
        }
        ident_free(id);
}

static void test_groups(void **state) {
        struct ident *id;
        const struct id_group *g;
        (void)state;

        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(ident_group(id, "rdma", &g), 0);
        assert_int_equal(g->gid, 2000);
        assert_non_null(g->members);
        assert_string_equal(g->members[0], "alice");
        assert_string_equal(g->members[1], "bob");
        assert_null(g->members[2]);
        assert_int_equal(ident_group(id, "root", &g), 0);
        assert_non_null(g->members);
        assert_null(g->members[0]);

        /* a name twice: the name gives the first entry, each gid its own first entry */
        assert_int_equal(ident_group(id, "dup", &g), 0);
        assert_int_equal(g->gid, 3000);
        assert_int_equal(ident_group_by_gid(id, 3001, &g), 0);
        assert_string_equal(g->name, "dup");
        assert_string_equal(g->members[0], "bob");
        /* a gid twice: the gid gives the first entry, the later name is still found */
        assert_int_equal(ident_group_by_gid(id, 3000, &g), 0);
        assert_string_equal(g->name, "dup");
        assert_int_equal(ident_group(id, "samegid", &g), 0);
        assert_int_equal(g->gid, 3000);

        assert_int_equal(ident_group_by_gid(id, 2001, &g), 0);
        assert_string_equal(g->name, "video");
        /* three fields: a group without the member list */
        assert_int_equal(ident_group(id, "nomembers", &g), 0);
        assert_int_equal(g->gid, 6000);
        /* not found, and g untouched on failure */
        g = (const struct id_group *)0x1;
        assert_int_equal(ident_group_by_gid(id, 9999, &g), -ENOENT);
        assert_ptr_equal(g, (const struct id_group *)0x1);
        /* commented out, or NIS compat (+/-): not groups of this file */
        for (gid_t gid = 5000; gid <= 5002; gid++)
                assert_int_equal(ident_group_by_gid(id, gid, &g), -ENOENT);
        static const char *const none[] = { "nope", "netgroup", "bad", "#oldgroup", "+nisgroup", "-netgroup2" };
        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                assert_int_equal(ident_group(id, none[i], &g), -ENOENT);
                assert_ptr_equal(g, (const struct id_group *)0x1);
        }
        ident_free(id);
}

static void test_membership(void **state) {
        struct ident *id;
        const struct id_user *alice, *bob, *carol;
        const struct id_group *rdma, *video, *galice, *dup, *dup2, *same;
        const gid_t *gids;
        size_t n;
        (void)state;

        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(ident_user(id, "alice", &alice), 0);
        assert_int_equal(ident_user(id, "bob", &bob), 0);
        assert_int_equal(ident_user(id, "carol", &carol), 0);
        assert_int_equal(ident_group(id, "rdma", &rdma), 0);
        assert_int_equal(ident_group(id, "video", &video), 0);
        assert_int_equal(ident_group(id, "alice", &galice), 0);
        assert_int_equal(ident_group(id, "dup", &dup), 0);
        assert_int_equal(ident_group_by_gid(id, 3001, &dup2), 0);
        assert_int_equal(ident_group(id, "samegid", &same), 0);

        /* primary gid */
        assert_true(ident_user_in_group(id, alice, galice));
        assert_true(ident_user_in_group(id, carol, rdma));
        assert_int_equal(ident_user_member(id, carol, rdma), 1);
        /* gr_mem */
        assert_true(ident_user_in_group(id, alice, rdma));
        assert_true(ident_user_in_group(id, bob, video));
        assert_false(ident_user_in_group(id, alice, video));
        assert_int_equal(ident_user_member(id, alice, video), 0);
        /* the group list: every gr_mem entry's gid, primary first, each once */
        assert_true(ident_user_in_group(id, carol, dup));   /* gid 3000 through samegid's gr_mem */
        assert_false(ident_user_in_group(id, alice, dup2));
        assert_true(ident_user_in_group(id, bob, dup2));
        assert_int_equal(ident_user_gids(id, alice, &gids, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(gids[0], 1000);
        assert_int_equal(gids[1], 2000);
        assert_int_equal(gids[2], 3000);
        assert_int_equal(ident_user_gids(id, carol, &gids, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(gids[0], 2000);
        assert_int_equal(gids[1], 3000);
        /* no group is never a member */
        assert_false(ident_user_in_group(id, alice, NULL));
        assert_int_equal(ident_user_member(id, NULL, rdma), 0);
        ident_free(id);
}

static void test_missing_files(void **state) {
        struct ident *id;
        const struct id_user *u;
        const struct id_group *g;
        (void)state;

        assert_int_equal(ident_new("/nonexistent-root-for-ident", &id), 0);
        assert_int_equal(ident_user(id, "root", &u), -ENOENT);
        assert_int_equal(ident_group(id, "root", &g), -ENOENT);
        ident_free(id);
}

/* Through NSS (no root): a name that is not there is remembered as absent, asked again with
 * the same answer, and freed with the rest */
static void test_nss_absent(void **state) {
        static const char missing[] = "no-such-name-for-test-ident";
        struct ident *id;
        const struct id_user *u = NULL;
        const struct id_group *g = NULL;
        (void)state;

        assert_int_equal(ident_new(NULL, &id), 0);
        assert_true(ident_uses_nss(id));
        for (int i = 0; i < 2; i++) {
                assert_int_equal(ident_user(id, missing, &u), -ENOENT);
                assert_int_equal(ident_group(id, missing, &g), -ENOENT);
        }
        assert_null(u);
        assert_null(g);
        ident_free(id);
}

/* Through NSS (no root): the host's root by name, by uid and its group, whole; a uid NSS does
 * not know, asked twice */
static void test_nss_found(void **state) {
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        const struct id_group *g = NULL;
        (void)state;
        assert_int_equal(ident_new(NULL, &id), 0);
        assert_int_equal(ident_user(id, "root", &u), 0);
        assert_string_equal(u->name, "root");
        assert_int_equal(u->uid, 0);
        assert_int_equal(u->gid, 0);
        assert_int_equal(ident_user_by_uid(id, 0, &u), 0);
        assert_string_equal(u->name, "root");
        assert_int_equal(ident_group(id, "root", &g), 0);
        assert_string_equal(g->name, "root");
        assert_int_equal(g->gid, 0);
        assert_non_null(g->members);
        for (int i = 0; i < 2; i++) {
                u = (const struct id_user *)0x1;
                assert_int_equal(ident_user_by_uid(id, NSS_NO_UID, &u), -ENOENT);
                assert_ptr_equal(u, (const struct id_user *)0x1);
        }
        ident_free(id);
}

/* A name service that fails (fault.c's get*_r: the error number returned, errno not set, as POSIX
 * allows): that error, EPERM's 1 too; not kept: asked again, the entry.  ERANGE every time: the
 * buffer grows, then ERANGE. */
static void test_nss_errors(void **state) {
        static const struct {
                const char *call;
                int err;
        } cases[] = {
                { "getpwnam_r", EPERM }, { "getpwnam_r", EIO },    { "getpwuid_r", EPERM },
                { "getgrnam_r", EPERM }, { "getgrnam_r", EAGAIN }, { "getpwnam_r", ERANGE },
                { "getgrnam_r", ERANGE },
        };
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct ident *id = NULL;
                const struct id_user *u = (const struct id_user *)0x1;
                const struct id_group *g = (const struct id_group *)0x1;
                int r;
                bool group = cases[i].call[3] == 'g';
                assert_int_equal(ident_new(NULL, &id), 0);
                for (int attempt = 0; attempt < 2; attempt++) {
                        if (attempt == 0)
                                fault_arm_from(cases[i].call, NULL, 1, cases[i].err);
                        if (group)
                                r = ident_group(id, "root", &g);
                        else if (streq(cases[i].call, "getpwuid_r"))
                                r = ident_user_by_uid(id, 0, &u);
                        else
                                r = ident_user(id, "root", &u);
                        unsigned long hit = fault_injected();
                        fault_disarm();
                        if (attempt == 1)
                                break;
                        if (r != -cases[i].err)
                                fail_msg("%s failing with %d: %d", cases[i].call, cases[i].err, r);
                        if (cases[i].err == ERANGE)
                                assert_true(hit > 1);
                        else
                                assert_int_equal(hit, 1);
                        assert_ptr_equal(u, (const struct id_user *)0x1);
                        assert_ptr_equal(g, (const struct id_group *)0x1);
                }
                assert_int_equal(r, 0);
                if (group)
                        assert_string_equal(g->name, "root");
                else
                        assert_string_equal(u->name, "root");
                ident_free(id);
        }
}

enum nss_call { NSS_USER, NSS_UID, NSS_GROUP, NSS_GIDS, NSS_MEMBER, NSS_CALLS };

/* One look-up of root's through NSS in a new context, the allocation nth failing (0: none):
 * -ENOMEM with the answer untouched, or the whole answer; after -ENOMEM, the same context
 * answers (nothing kept of the failure).  Whether an allocation was failed. */
static bool nss_root_alloc(enum nss_call call, unsigned long nth, unsigned *failed) {
        static char *no_members[] = { NULL };
        const struct id_group other = { .name = (char *)"other", .gid = NSS_NO_UID, .members = no_members };
        struct ident *id = NULL;
        const struct id_user *ru = NULL;
        unsigned long hit = 0;
        for (int attempt = 0; attempt < 2; attempt++) {
                const void *v = (const void *)0x1;
                const gid_t *gids = (const gid_t *)0x1;
                size_t n = 77;
                int r;
                if (!id) {
                        assert_int_equal(ident_new(NULL, &id), 0);
                        if (call >= NSS_GIDS)
                                assert_int_equal(ident_user(id, "root", &ru), 0);
                }
                if (attempt == 0)
                        fault_arm("alloc", NULL, nth, ENOMEM);
                switch (call) {
                case NSS_USER:
                        r = ident_user(id, "root", (const struct id_user **)&v);
                        break;
                case NSS_UID:
                        r = ident_user_by_uid(id, 0, (const struct id_user **)&v);
                        break;
                case NSS_GROUP:
                        r = ident_group(id, "root", (const struct id_group **)&v);
                        break;
                case NSS_GIDS:
                        r = ident_user_gids(id, ru, &gids, &n);
                        break;
                default:
                        r = ident_user_member(id, ru, &other);
                        break;
                }
                if (attempt == 0)
                        hit = fault_injected();
                fault_disarm();
                if (r == -ENOMEM && hit && attempt == 0) {
                        ++*failed;
                        assert_ptr_equal(v, (const void *)0x1);
                        assert_ptr_equal(gids, (const gid_t *)0x1);
                        assert_int_equal(n, 77);
                        continue;
                }
                if (r != 0)
                        fail_msg("call %d, allocation %lu failing: %d", (int)call, nth, r);
                switch (call) {
                case NSS_USER:
                case NSS_UID:
                        assert_string_equal(((const struct id_user *)v)->name, "root");
                        assert_int_equal(((const struct id_user *)v)->uid, 0);
                        break;
                case NSS_GROUP:
                        assert_string_equal(((const struct id_group *)v)->name, "root");
                        assert_int_equal(((const struct id_group *)v)->gid, 0);
                        break;
                case NSS_GIDS:
                        assert_true(n >= 1);
                        assert_int_equal(gids[0], 0);
                        break;
                default:
                        break;
                }
                ident_free(id);
                return hit > 0;
        }
        fail_msg("call %d: -ENOMEM without an allocation failing", (int)call);
        return false;
}

/* Through NSS, each allocation of a look-up failing in turn */
static void test_nss_alloc(void **state) {
        (void)state;
        if (!fault_alloc_supported()) {
                print_message("# a sanitizer build: ASan owns the allocator, not checked\n");
                return;
        }
        /* NSS's modules loaded once, outside the counted calls */
        nss_root_alloc(NSS_USER, 0, &(unsigned){ 0 });
        for (int call = 0; call < NSS_CALLS; call++) {
                unsigned failed = 0;
                for (unsigned long k = 1; nss_root_alloc(call, k, &failed); k++)
                        ;
                /* ours at least: the buffer, the entry and its name, the cache's slot and key; the
                 * group list */
                assert_true(failed >= (call >= NSS_GIDS ? 1u : 5u));
        }
}

/* passwd or group that cannot be read is an error, not a tree without users or groups */
static void test_files_fail(void **state) {
        static const char *const files[] = { "passwd", "group" };
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                struct ident *id = NULL;
                const struct id_user *u = (const struct id_user *)0x1;
                const struct id_group *g = (const struct id_group *)0x1;
                assert_int_equal(ident_new(root, &id), 0);
                fault_arm_from("openat2", files[i], 1, EIO);
                assert_int_equal(ident_user(id, "alice", &u), -EIO);
                assert_int_equal(ident_group(id, "rdma", &g), -EIO);
                assert_int_equal(ident_user_by_uid(id, 1000, &u), -EIO);
                assert_true(fault_injected() >= 3);
                fault_disarm();
                assert_ptr_equal(u, (const struct id_user *)0x1);
                assert_ptr_equal(g, (const struct id_group *)0x1);
                /* read again once it can be */
                assert_int_equal(ident_user(id, "alice", &u), 0);
                assert_int_equal(u->uid, 1000);
                ident_free(id);
        }
}

/* a group line of two fields is no group, and the lines after it are read */
static void test_short_group_line(void **state) {
        char sub[PATH_MAX];
        struct ident *id = NULL;
        const struct id_group *g = NULL;
        (void)state;
        unit_put(root, "short/etc/passwd", "ann:x:1000:1000::/:/bin/sh\n");
        unit_put(root, "short/etc/group", "long:x:1:ann,bob,carol,dave\ntwo:x\nthree:x:3000\ntwo:x\n"
                                          "four:x:4000:ann\n");
        assert_int_equal(ident_new(unit_path(sub, root, "short"), &id), 0);
        assert_int_equal(ident_group(id, "two", &g), -ENOENT);
        assert_int_equal(ident_group(id, "three", &g), 0);
        assert_int_equal(g->gid, 3000);
        assert_non_null(g->members);
        assert_null(g->members[0]);   /* none: not the member list of a line before */
        assert_int_equal(ident_group(id, "four", &g), 0);
        assert_int_equal(g->gid, 4000);
        ident_free(id);
}

/* a user listed in every group of the tree, root's among them: the primary gid, then each
 * group once, in file order */
static void test_every_group(void **state) {
        char sub[PATH_MAX];
        struct ident *id = NULL;
        const struct id_user *u = NULL;
        const gid_t *g = NULL;
        size_t n = 0;
        (void)state;
        unit_put(root, "every/etc/passwd", "ann:x:1000:1000::/:/bin/sh\n");
        unit_put(root, "every/etc/group", "root:x:0:ann\nwheel:x:10:ann\n");
        assert_int_equal(ident_new(unit_path(sub, root, "every"), &id), 0);
        assert_int_equal(ident_user(id, "ann", &u), 0);
        assert_int_equal(ident_user_gids(id, u, &g, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(g[0], 1000);
        assert_int_equal(g[1], 0);
        assert_int_equal(g[2], 10);
        ident_free(id);
}

/* a group file that opens but cannot be read (a directory): an error, not a tree without groups */
static void test_group_unreadable(void **state) {
        char sub[PATH_MAX];
        struct ident *id = NULL;
        const struct id_group *g = (const struct id_group *)0x1;
        (void)state;
        unit_put(root, "dirgroup/etc/passwd", "ann:x:1000:1000::/:/bin/sh\n");
        unit_put(root, "dirgroup/etc/group/x", "");
        assert_int_equal(ident_new(unit_path(sub, root, "dirgroup"), &id), 0);
        int r = ident_group(id, "ann", &g);
        assert_true(r == -EIO || r == -EISDIR || r == FS_ERR_NOTREG);
        assert_ptr_equal(g, (const struct id_group *)0x1);
        ident_free(id);
}

/* ident_each_name(): the names of the lines the look-ups read, in file order, each line once
 * (a user's later line is no user; a group's later line is a line of its own) */
struct names_seen {
        char all[16384];
        int stop_after;        /* >0: stop (positive) after so many; <0: fail with it */
        int calls;
};

static int name_seen(const char *name, void *data) {
        struct names_seen *n = data;
        n->calls++;
        if (n->stop_after < 0)
                return n->stop_after;
        snprintf(n->all + strlen(n->all), sizeof n->all - strlen(n->all), "%s ", name);
        return n->stop_after > 0 && n->calls >= n->stop_after;
}

static void test_each_name(void **state) {
        struct ident *id = NULL;
        struct names_seen n = {};
        const struct id_user *u = NULL;
        (void)state;
        assert_int_equal(ident_new(root, &id), 0);
        assert_false(ident_uses_nss(id));
        assert_int_equal(ident_each_name(id, false, name_seen, &n), 0);
        assert_string_equal(n.all, "root alice bob carol four many ");
        n = (struct names_seen){};
        assert_int_equal(ident_each_name(id, true, name_seen, &n), 0);
        assert_string_equal(n.all, "root alice bob rdma video dup dup samegid nomembers ");
        /* every name listed is found, every line left out is not */
        assert_int_equal(ident_user(id, "many", &u), 0);
        assert_int_equal(ident_user(id, "broken", &u), -ENOENT);
        assert_int_equal(ident_user(id, "three", &u), -ENOENT);
        /* a positive answer stops with 0, a negative one with it */
        n = (struct names_seen){ .stop_after = 2 };
        assert_int_equal(ident_each_name(id, false, name_seen, &n), 0);
        assert_string_equal(n.all, "root alice ");
        n = (struct names_seen){ .stop_after = -ENOMEM };
        assert_int_equal(ident_each_name(id, true, name_seen, &n), -ENOMEM);
        assert_int_equal(n.calls, 1);
        ident_free(id);

        /* a tree without the files has no names; one whose group file cannot be read fails */
        char sub[PATH_MAX];
        unit_put(root, "nofiles/etc/motd", "");
        assert_int_equal(ident_new(unit_path(sub, root, "nofiles"), &id), 0);
        n = (struct names_seen){};
        assert_int_equal(ident_each_name(id, false, name_seen, &n), 0);
        assert_int_equal(n.calls, 0);
        ident_free(id);
        unit_put(root, "dirgroup2/etc/passwd", "ann:x:1000:1000::/:/bin/sh\n");
        unit_put(root, "dirgroup2/etc/group/x", "");
        assert_int_equal(ident_new(unit_path(sub, root, "dirgroup2"), &id), 0);
        n = (struct names_seen){};
        int r = ident_each_name(id, false, name_seen, &n);
        assert_true(r == -EIO || r == -EISDIR || r == FS_ERR_NOTREG);
        assert_int_equal(n.calls, 0);
        ident_free(id);

        /* NSS: the host's users (root among them), each one getpwnam() knows; its groups, each
         * one getgrnam() knows, one at least no user's name (Debian's tty, disk, ...) */
        assert_int_equal(ident_new(NULL, &id), 0);
        assert_true(ident_uses_nss(id));
        n = (struct names_seen){};
        assert_int_equal(ident_each_name(id, false, name_seen, &n), 0);
        assert_non_null(strstr(n.all, "root "));
        for (char *save = NULL, *w = strtok_r(n.all, " ", &save); w; w = strtok_r(NULL, " ", &save))
                assert_non_null(getpwnam(w));
        n = (struct names_seen){};
        assert_int_equal(ident_each_name(id, true, name_seen, &n), 0);
        bool group_only = false;
        for (char *save = NULL, *w = strtok_r(n.all, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                assert_non_null(getgrnam(w));
                group_only |= !getpwnam(w);
        }
        assert_true(group_only);
        n = (struct names_seen){ .stop_after = 1 };
        assert_int_equal(ident_each_name(id, true, name_seen, &n), 0);
        assert_int_equal(n.calls, 1);
        ident_free(id);
}

/* ident_id_key(): the decimal digits of an id, the key of the uid and gid maps */
static void test_id_key(void **state) {
        static const struct { uint32_t v; const char *want; } cases[] = {
                { 0, "0" }, { 7, "7" }, { 10, "10" }, { 15, "15" }, { 100, "100" }, { 2000, "2000" },
                { 4294967295u, "4294967295" },
        };
        char key[11];
        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_string_equal(ident_id_key(cases[i].v, key), cases[i].want);
        assert_ptr_equal(ident_id_key(1, key), key);
}

UNIT_MAIN(setup, unit_teardown,
          cmocka_unit_test(test_users), cmocka_unit_test(test_users_by_uid), cmocka_unit_test(test_groups), cmocka_unit_test(test_membership),
          cmocka_unit_test(test_missing_files), cmocka_unit_test(test_nss_absent), cmocka_unit_test(test_nss_found), cmocka_unit_test(test_nss_errors), cmocka_unit_test(test_nss_alloc),
          cmocka_unit_test(test_files_fail), cmocka_unit_test(test_short_group_line),
          cmocka_unit_test(test_group_unreadable), cmocka_unit_test(test_every_group), cmocka_unit_test(test_each_name),
          cmocka_unit_test(test_id_key))
