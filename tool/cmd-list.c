/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "escape.h"
#include "size.h"
#include "tool.h"
#include "fsutil.h"

/* Is l a memlock entry, or a "-" line (*ret_stop), which check judges the same way
 * (lc_line_no_limits(): honoured, or never)? */
static bool listed(const struct lc_line *l, bool *ret_stop) {
        bool honoured;
        *ret_stop = lc_line_no_limits(l, &honoured);
        return *ret_stop || (l->nfields == 4 && l->item_kind == LC_ITEM_MEMLOCK);
}

static bool stop_honoured(const struct lc_line *l) {
        bool honoured;
        return lc_line_no_limits(l, &honoured) && honoured;
}

static void list_json_line(struct json *j, const struct lc_file *f, const struct lc_line *l, bool stop) {
        json_obj_begin(j);
        json_kstr(j, "file", f->display);
        json_ku64(j, "line", l->lineno);
        json_kstr(j, "domain", l->domain);
        json_kstr(j, "type", l->type);
        json_kstr(j, "rank", lc_rank_name(lc_line_rank(l)));
        if (!stop) {
                json_kstr(j, "value", l->value);
                json_klimit_opt(j, "bytes", l->value_ok, l->bytes);
        } else {
                json_kbool(j, "no_limits", true);
                if (!stop_honoured(l))
                        json_kbool(j, "ignored", true);
        }
        json_obj_end(j);
}

static void list_json(const struct lc_tree *t) {
        struct json j;
        bool stop;

        json_doc_begin(&j);
        /* the flavour as explain and check name it: the release modelled, and what decided it */
        tool_json_flavour(&j, t);
        json_karr_begin(&j, "entries");
        for (size_t fi = 0; fi < t->n_files; fi++) {
                const struct lc_file *f = &t->files[fi];
                for (size_t li = f->first; li < f->first + f->n; li++)
                        if (listed(&t->lines[li], &stop))
                                list_json_line(&j, f, &t->lines[li], stop);
        }
        json_arr_end(&j);
        json_karr_begin(&j, "ignored_files");
        for (size_t i = 0; i < t->n_skipped; i++)
                json_str(&j, t->skipped[i].display);
        json_arr_end(&j);
        json_doc_end(&j);
}

static void list_text_line(const struct lc_tree *t, const struct lc_line *l, bool stop) {
        char where[4096], w[4096], d[512], ty[128], v[512], buf[SIZE_FMT_MAX];

        lc_line_where(t, l, where, sizeof where);
        if (stop)
                printf("%-48s %-16s %-5s %s\n", str_escape(where, w, sizeof w), str_escape(l->domain, d, sizeof d),
                       str_escape(l->type, ty, sizeof ty),
                       stop_honoured(l) ? "(no limits: stops pam_limits for matching users)"
                                        : "(no effect: pam_limits honours '-' lines only for users, @groups and "
                                          "id ranges)");
        else
                printf("%-48s %-16s %-5s %-12s %s%s\n", str_escape(where, w, sizeof w), str_escape(l->domain, d, sizeof d),
                       str_escape(l->type, ty, sizeof ty), str_escape(l->value ? l->value : "", v, sizeof v),
                       l->value_ok ? size_format(l->bytes, buf) : "(invalid: skipped)",
                       l->value_misread ? " (misread)" : "");
}

static void list_text(const struct lc_tree *t) {
        char fl[LC_FLAVOUR_NAME_MAX];
        bool stop;

        printf("# memlock entries in the order pam_limits (%s, from %s) reads them\n", lc_flavour_to_string(t->release, fl),
               lc_tree_flavour_from(t));
        for (size_t fi = 0; fi < t->n_files; fi++) {
                const struct lc_file *f = &t->files[fi];
                if (f->open_error) {
                        fputs("# ", stdout);
                        str_escape_fputs(f->display, stdout);
                        printf(": %s\n", errno_text(f->open_error));
                }
                for (size_t li = f->first; li < f->first + f->n; li++)
                        if (listed(&t->lines[li], &stop))
                                list_text_line(t, &t->lines[li], stop);
        }
        /* the names are the tree's bytes: through the one escaper, as check shows them */
        for (size_t i = 0; i < t->n_skipped; i++) {
                fputs("# ", stdout);
                str_escape_fputs(t->skipped[i].display, stdout);
                printf(": not read (%s)\n", t->skipped[i].reason);
        }
}

int cmd_list(struct ctx *c) {
        _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
        int r = ctx_load_tree(c, NULL, &t);

        if (r < 0)
                return r;
        if (c->json)
                list_json(t);
        else
                list_text(t);
        return 0;
}
