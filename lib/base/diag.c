/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "array.h"
#include "diag.h"

static int diag_addv(struct diag_list *l, enum diag_severity sev, const char *id, const char *path, unsigned line,
                     const char *fix, const char *fmt, va_list ap) {
        char *msg = NULL, *p = NULL, *fx = NULL;
        int r;

        if (!l)
                return 0;
        if (GROW(l->v, l->cap, l->n + 1) < 0)
                return -ENOMEM;
        r = vasprintf(&msg, fmt, ap);
        if (r < 0)
                return -ENOMEM;
        if ((path && !(p = strdup(path))) || (fix && !(fx = strdup(fix)))) {
                free(msg);
                free(p);
                return -ENOMEM;
        }
        l->v[l->n++] = (struct diag){ .severity = sev, .path = p, .line = line, .message = msg, .id = id, .fix = fx };
        return 0;
}

int diag_add(struct diag_list *l, enum diag_severity sev, const char *path, unsigned line, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_addv(l, sev, NULL, path, line, NULL, fmt, ap);
        va_end(ap);
        return r;
}

int diag_addf(struct diag_list *l, enum diag_severity sev, const char *id, const char *path, unsigned line,
              const char *fix, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_addv(l, sev, id, path, line, fix, fmt, ap);
        va_end(ap);
        return r;
}

size_t diag_count(const struct diag_list *l, enum diag_severity sev) {
        size_t c = 0;
        for (size_t i = 0; l && i < l->n; i++)
                if (l->v[i].severity == sev)
                        c++;
        return c;
}

void diag_list_clear(struct diag_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].path);
                free(l->v[i].message);
                free(l->v[i].fix);
        }
        free(l->v);
        *l = (struct diag_list){};
}

const char *diag_severity_name(enum diag_severity sev) {
        switch (sev) {
        case DIAG_ERROR:
                return "error";
        case DIAG_WARNING:
                return "warning";
        default:
                return "info";
        }
}
