/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the limits.conf reader (lib/limits/limits-read.c).
 * The input is one limits file.  It is read as each model of a list of releases reads it
 * (both line readers, 1.6.0's untrimmed value, Debian's patches), checked with lc_check(), and resolved for a few users of a small root tree created at
 * start-up (etc/passwd, etc/group), with lc_line_match() on the lines.
 * Invariants: line numbers inside the file, fgets pieces at most 1023 bytes, resolved
 * sources are lines of the tree, the soft value is never reported above a known hard
 * value without soft_clamped.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fuzz.h"
#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

static char root[] = "/tmp/fuzz-limits-root.XXXXXX";
static struct ident *id;

/* one release of each model (lc_flavour_model()) */
static const char *const flavour_names[] = {
        "upstream-1.5.2", "upstream-1.5.3", "upstream-1.6.0", "upstream-1.7.2", "debian-1.5.2", "debian-1.7.0",
};
static enum lc_flavour flavours[sizeof flavour_names / sizeof flavour_names[0]];
static size_t n_flavours;

static void write_file(const char *rel, const char *text) {
        char path[256];
        FILE *f;

        snprintf(path, sizeof path, "%s/%s", root, rel);
        f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
                perror(path);
                abort();
        }
}

static void cleanup(void) {
        char path[256];

        ident_free(id);
        snprintf(path, sizeof path, "%s/etc/passwd", root);
        unlink(path);
        snprintf(path, sizeof path, "%s/etc/group", root);
        unlink(path);
        snprintf(path, sizeof path, "%s/etc", root);
        rmdir(path);
        rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        char path[256];

        if (!mkdtemp(root)) {
                perror("mkdtemp");
                abort();
        }
        snprintf(path, sizeof path, "%s/etc", root);
        if (mkdir(path, 0755) < 0) {
                perror(path);
                abort();
        }
        write_file("etc/passwd",
                   "root:x:0:0:root:/root:/bin/sh\n"
                   "alice:x:1001:1001::/home/alice:/bin/sh\n"
                   "bob:x:1002:1002::/home/bob:/bin/sh\n"
                   "carol:x:1003:2000::/home/carol:/bin/sh\n"
                   "svc$:x:70000:70000::/:/bin/false\n");
        write_file("etc/group",
                   "root:x:0:\n"
                   "alice:x:1001:\n"
                   "bob:x:1002:\n"
                   "rdma_users:x:2000:alice\n"
                   "spdk:x:2001:alice,bob\n");
        /* one context for the whole run, as the tool keeps one: it caches every answer */
        if (ident_new(root, &id) < 0)
                abort();
        atexit(cleanup);
        n_flavours = fuzz_flavours("fuzz-limits", flavour_names, sizeof flavour_names / sizeof flavour_names[0],
                                   flavours);
        return 0;
}

static const char *const users[] = { "root", "alice", "bob", "carol", "svc$", "nosuchuser" };

static void exercise(const uint8_t *data, size_t size, enum lc_flavour fl) {
        struct lc_tree *t = NULL;
        struct diag_list diags = {};
        char where[4096];
        int r;

        r = lc_tree_load_text("etc/security/limits.d/fuzz.conf", (const char *)data, size, fl, &t);
        if (r == -ENOMEM)
                return;
        CHECK(r == 0 && t);
        CHECK(t->n_files == 1);
        const struct lc_file *f = &t->files[0];
        CHECK(f->first == 0 && f->n == t->n_lines);
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                CHECK(l->file == 0);
                CHECK(l->lineno >= 1 && l->lineno <= f->n_physical);
                CHECK(i == 0 || l->lineno >= t->lines[i - 1].lineno);
                CHECK(l->text && l->domain && l->type && l->item && l->value);
                CHECK(l->nfields >= 1 && l->nfields <= 4);
                if (t->beh.fgets_reader)
                        CHECK(strlen(l->text) < LC_LINE_LENGTH);
                else
                        CHECK(l->chunk == 0 && !l->extra_words);
                CHECK(!strchr(l->text, '#') && !strchr(l->text, '\n'));
                if (l->item_kind == LC_ITEM_MEMLOCK && l->value_ok && !l->value_infinity &&
                    l->value_raw < UINT64_MAX / 1024)
                        CHECK(l->bytes == l->value_raw * 1024);
                if (l->range == LC_RANGE_MM || l->range == LC_RANGE_ONE)
                        (void)l->rmax;
                lc_line_where(t, l, where, sizeof where);
                (void)lc_line_rank(l);
        }

        r = lc_check(t, id, &diags);
        CHECK(r == 0 || r == -ENOMEM);
        for (size_t i = 0; i < diags.n; i++)
                CHECK(diags.v[i].message);
        diag_list_clear(&diags);

        struct lc_baseline base = { .known = true, .soft = 64 * 1024, .hard = 8 * 1024 * 1024,
                                    .rank = LC_RANK_KERNEL };
        snprintf(base.source, sizeof base.source, "/proc/1/limits");
        struct lc_baseline inherited = { .known = false, .rank = LC_RANK_NONE };
        snprintf(inherited.source, sizeof inherited.source, "inherited");

        for (size_t u = 0; u < sizeof users / sizeof users[0]; u++) {
                struct lc_result res;
                r = lc_resolve(t, id, users[u], u % 2 ? &base : &inherited, &res);
                if (r == -ENOMEM)
                        continue;
                CHECK(r == 0);
                if (res.kind == LC_RES_LIMITS) {
                        if (res.soft.src)
                                CHECK(res.soft.src >= t->lines && res.soft.src < t->lines + t->n_lines);
                        if (res.hard.src)
                                CHECK(res.hard.src >= t->lines && res.hard.src < t->lines + t->n_lines);
                        if (res.soft.known && res.hard.known && res.soft.value > res.hard.value)
                                CHECK(res.soft_clamped);
                } else if (res.kind == LC_RES_NO_LIMITS)
                        CHECK(res.stop >= t->lines && res.stop < t->lines + t->n_lines);
                /* other kinds (unknown user, unreadable file, logins denied, ...) are outcomes
                 * of their own: nothing more to check on them */
                for (size_t e = 0; e < res.n_events; e++) {
                        CHECK(res.events[e].line >= t->lines && res.events[e].line < t->lines + t->n_lines);
                        if (res.events[e].held)
                                CHECK(res.events[e].held >= t->lines && res.events[e].held < t->lines + t->n_lines);
                }

                const struct id_user *iu;
                if (ident_user(id, users[u], &iu) == 0)
                        for (size_t i = 0; i < t->n_lines && i < 64; i++)
                                (void)lc_line_match(t, id, iu, &t->lines[i]);
                lc_result_clear(&res);
        }
        lc_tree_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > 256 * 1024)
                return 0;
        CHECK(n_flavours > 0);
        for (size_t i = 0; i < n_flavours; i++)
                exercise(data, size, flavours[i]);
        return 0;
}
