/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "strv.h"

char *strf(const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

bool strv_contains(char *const *v, const char *x) {
        for (; v && *v; v++)
                if (strcmp(*v, x) == 0)
                        return true;
        return false;
}

void strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

int strv_consume(struct strv *s, char *x) {
        if (!x || GROW(s->v, s->cap, s->n + 2) < 0) {
                free(x);
                return -ENOMEM;
        }
        s->v[s->n++] = x;
        s->v[s->n] = NULL;
        return 0;
}

void strv_truncate(struct strv *s, size_t n) {
        while (s->n > n) {
                free(s->v[--s->n]);
                s->v[s->n] = NULL;
        }
}

void strv_sort(struct strv *s) {
        if (s->n > 1)
                qsort(s->v, s->n, sizeof(char *), cmp_str);
}
