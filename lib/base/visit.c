/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fsutil.h"
#include "visit.h"

/* the numbers visit_strerror() and rdmalimits(8) give */
_Static_assert(VISIT_FILES_MAX == 1000 && VISIT_LINES_MAX == 1000000 && VISIT_BYTES_MAX == 64 << 20,
               "visit_strerror() and man/rdmalimits.8.scd name the budget");

/* The walk's first problem (the callers return an earlier one before they get here). */
static int visit_fail(struct visit *v, int error, const char *where, unsigned line, const char *file) {
        v->error = error;
        if (line)
                snprintf(v->where, sizeof v->where, "%s:%u", where, line);
        else
                snprintf(v->where, sizeof v->where, "%s", where);
        snprintf(v->file, sizeof v->file, "%s", file);
        return error;
}

int visit_enter(struct visit *v, const struct stat *st, const char *file, const char *from, unsigned from_line) {
        return visit_enter_bounded(v, st, file, from, from_line, false);
}

int visit_enter_bounded(struct visit *v, const struct stat *st, const char *file, const char *from,
                        unsigned from_line, bool bounded) {
        const char *where = from ? from : file;
        unsigned line = from ? from_line : 0;

        if (v->error)
                return v->error;
        /* from the innermost file out: a bounded edge on the way makes a file met again no cycle */
        bool bound = bounded;
        for (size_t i = v->depth; i-- > 0;) {
                if (v->path[i].dev == st->st_dev && v->path[i].ino == st->st_ino && !bound)
                        return visit_fail(v, VISIT_ERR_CYCLE, where, line, file);
                bound = bound || v->path[i].bounded;
        }
        /* a file larger than what is left is not read at all */
        uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
        if (v->files >= VISIT_FILES_MAX || size > VISIT_BYTES_MAX - v->bytes)
                return visit_fail(v, VISIT_ERR_BUDGET, where, line, file);
        if (GROW_EXACT(v->path, v->depth + 1) < 0)
                return visit_fail(v, -ENOMEM, where, line, file);
        v->path[v->depth++] = (struct visit_id){ st->st_dev, st->st_ino, bounded };
        v->files++;
        return 0;
}

void visit_leave(struct visit *v) {
        if (v->depth > 0)
                v->depth--;
}

int visit_line(struct visit *v, const char *file, unsigned line, size_t len) {
        if (v->error)
                return v->error;
        if (++v->lines > VISIT_LINES_MAX || len > VISIT_BYTES_MAX - v->bytes)
                return visit_fail(v, VISIT_ERR_BUDGET, file, line, file);
        v->bytes += len;
        return 0;
}

int visit_too_many(struct visit *v, const char *where, const char *file) {
        return v->error ? v->error : visit_fail(v, VISIT_ERR_BUDGET, where, 0, file);
}

void visit_done(struct visit *v) {
        free(v->path);
        v->path = NULL;
        v->depth = 0;
}

const char *visit_strerror(int error) {
        switch (error) {
        case VISIT_ERR_CYCLE:
                return VISIT_CYCLE_TEXT;
        case VISIT_ERR_BUDGET:
                return VISIT_BUDGET_TEXT;
        default:
                return errno_text(error);
        }
}
