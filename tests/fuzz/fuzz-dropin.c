/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the drop-in round trip (lib/limits/dropin.c against lib/limits/limits-read.c).
 * Arbitrary text goes to dropin_parse().  When it parses: dropin_render() gives a file with
 * the marker, which parses again to the same entries and renders to the same text; and
 * pam_limits (lc_tree_load_text, in each of a list of releases) reads from the rendered file exactly those
 * entries: domain, type and bytes, nothing misread.  Then dropin_set()/dropin_remove() on
 * the parsed entries keep the rendered file valid.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dropin.h"
#include "fuzz.h"
#include "limitsconf.h"


/* Does the drop-in hold an entry of domain? */
static bool has_domain(const struct dropin *d, const char *domain) {
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->v[i].domain, domain) == 0)
                        return true;
        return false;
}

static bool same_entries(const struct dropin *a, const struct dropin *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->v[i].domain, b->v[i].domain) != 0 || a->v[i].type != b->v[i].type ||
                    a->v[i].bytes != b->v[i].bytes)
                        return false;
        return true;
}

/* the releases the rendered file must read back in: both line readers, Debian's and
 * upstream's value handling */
static const char *const read_back_flavours[] = {
        "upstream-1.5.2", "upstream-1.6.0", "upstream-1.7.2", "debian-1.5.2", "debian-1.7.0",
};
static enum lc_flavour flavours[sizeof read_back_flavours / sizeof read_back_flavours[0]];
static size_t n_flavours;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
        (void)argc;
        (void)argv;
        n_flavours = fuzz_flavours("fuzz-dropin", read_back_flavours,
                                   sizeof read_back_flavours / sizeof read_back_flavours[0], flavours);
        return 0;
}

/* pam_limits must read back exactly the entries, in order, in every flavour of the list */
static void check_read_back(const struct dropin *d, const char *text) {
        CHECK(n_flavours > 0);
        for (size_t k = 0; k < n_flavours; k++) {
                struct lc_tree *t = NULL;
                int r = lc_tree_load_text("90-rdmalimits.conf", text, strlen(text), flavours[k], &t);
                if (r == -ENOMEM)
                        return;
                CHECK(r == 0);
                CHECK(!t->files[0].has_long_lines && !t->files[0].no_final_newline);
                CHECK(t->n_lines == d->n);
                for (size_t i = 0; i < t->n_lines; i++) {
                        const struct lc_line *l = &t->lines[i];
                        CHECK(l->nfields == 4 && !l->extra_words);
                        CHECK(strcmp(l->domain, d->v[i].domain) == 0);
                        CHECK(l->type_mask == d->v[i].type);
                        CHECK(l->item_kind == LC_ITEM_MEMLOCK);
                        CHECK(l->value_ok && !l->value_misread);
                        CHECK(l->bytes == d->v[i].bytes);
                        CHECK(l->range != LC_RANGE_ERR);
                        CHECK(l->lineno == i + 3); /* after the two header lines */
                }
                lc_tree_free(t);
        }
}

static void round_trip(const struct dropin *d) {
        struct diag_list diags = {};
        struct dropin again = {};
        char *text, *text2;
        int r;

        text = dropin_render(d);
        if (!text)
                return;
        CHECK(dropin_has_marker(text, strlen(text)));
        r = dropin_parse(text, strlen(text), "rendered", &again, &diags);
        if (r == -ENOMEM) {
                free(text);
                return;
        }
        CHECK(r == 0);
        CHECK(diags.n == 0);
        CHECK(same_entries(d, &again));
        text2 = dropin_render(&again);
        if (text2) {
                CHECK(strcmp(text, text2) == 0);
                free(text2);
        }
        check_read_back(d, text);
        dropin_clear(&again);
        diag_list_clear(&diags);
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct diag_list diags = {};
        struct dropin d = { .v = (void *)1, .n = 12345 }; /* must stay untouched on error */
        int r;

        if (size > 64 * 1024)
                return 0;
        (void)dropin_has_marker((const char *)data, size);
        r = dropin_parse((const char *)data, size, "fuzz.conf", &d, &diags);
        if (r < 0) {
                CHECK(r == -EBADMSG || r == -ENOMEM);
                CHECK(d.v == (void *)1 && d.n == 12345);
                if (r == -EBADMSG)
                        CHECK(diag_count(&diags, DIAG_ERROR) > 0);
                diag_list_clear(&diags);
                return 0;
        }
        CHECK(diag_count(&diags, DIAG_ERROR) == 0);
        diag_list_clear(&diags);
        for (size_t i = 0; i < d.n; i++) {
                const char *why = NULL;
                CHECK(dropin_check_domain(d.v[i].domain, &why) == 0);
                CHECK(dropin_check_bytes(d.v[i].bytes, &why) == 0);
                CHECK(d.v[i].type == LC_SOFT || d.v[i].type == LC_HARD);
                CHECK(has_domain(&d, d.v[i].domain));
        }
        round_trip(&d);

        /* edits keep the file valid: what apply and remove do */
        if (d.n > 0) {
                char *dom = strdup(d.v[0].domain);
                if (dom) {
                        size_t before = d.n;
                        if (dropin_set(&d, dom, LC_HARD, UINT64_C(1) << 30) == 0 &&
                            dropin_set(&d, dom, LC_SOFT, UINT64_C(1) << 20) == 0) {
                                /* one line of each slot left for the domain (a second line of a
                                 * slot goes: pam_limits would read it last) */
                                size_t soft = 0, hard = 0;
                                for (size_t i = 0; i < d.n; i++)
                                        if (strcmp(d.v[i].domain, dom) == 0) {
                                                soft += d.v[i].type == LC_SOFT;
                                                hard += d.v[i].type == LC_HARD;
                                        }
                                CHECK(soft == 1 && hard == 1 && d.n <= before + 2);
                                round_trip(&d);
                        }
                        size_t n = d.n;
                        size_t removed = dropin_remove(&d, dom);
                        CHECK(removed >= 2 && d.n == n - removed);
                        CHECK(!has_domain(&d, dom));
                        round_trip(&d);
                        free(dom);
                }
        }
        if (dropin_set(&d, "@fuzz_new", LC_SOFT, UINT64_MAX) == 0)
                round_trip(&d);
        dropin_clear(&d);
        return 0;
}
