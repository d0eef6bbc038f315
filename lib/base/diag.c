/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "array.h"
#include "diag.h"

int diag_vadd(struct diag_list *l, enum diag_severity sev, unsigned group, const char *id, const char *path,
              unsigned line, const char *fix, const char *fmt, va_list ap) {
        _cleanup_free_ char *msg = NULL, *p = NULL, *fx = NULL;

        if (!l)
                return 0;
        if (GROW(l->v, l->cap, l->n + 1) < 0)
                return -ENOMEM;
        if (vasprintf(&msg, fmt, ap) < 0) {
                msg = NULL;
                return -ENOMEM;
        }
        if ((path && !(p = strdup(path))) || (fix && !(fx = strdup(fix))))
                return -ENOMEM;
        l->v[l->n++] = (struct diag){ .severity = sev, .group = group, .path = TAKE_PTR(p), .line = line,
                                      .message = TAKE_PTR(msg), .id = id, .fix = TAKE_PTR(fx) };
        return 0;
}

int diag_add(struct diag_list *l, enum diag_severity sev, const char *path, unsigned line, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_vadd(l, sev, 0, NULL, path, line, NULL, fmt, ap);
        va_end(ap);
        return r;
}

int diag_addf(struct diag_list *l, enum diag_severity sev, const char *id, const char *path, unsigned line,
              const char *fix, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = diag_vadd(l, sev, 0, id, path, line, fix, fmt, ap);
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
        case DIAG_INFO:
                return "info";
        case DIAG_OK:
                return "ok";
        }
        return "?";
}
