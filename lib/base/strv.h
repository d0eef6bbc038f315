/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Vectors of heap strings, NULL-terminated. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* A growing vector: v is NULL while n is 0, else v[n] is NULL. */
struct strv {
        char **v;
        size_t n, cap;
};

/* strcmp() for qsort() over an array of char *. */
static inline int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A NULL-terminated array of heap strings (a strv's v, or one built by hand); NULL is an
 * empty array. */
static inline bool strv_contains(char *const *v, const char *x) {
        for (; v && *v; v++)
                if (strcmp(*v, x) == 0)
                        return true;
        return false;
}

static inline void strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

/* Append x itself (a heap string, NULL for a failed allocation): the vector owns it from
 * now on, and frees it on failure.  0 or -ENOMEM. */
static inline int strv_consume(struct strv *s, char *x) {
        if (!x || GROW(s->v, s->cap, s->n + 2) < 0) {
                free(x);
                return -ENOMEM;
        }
        s->v[s->n++] = x;
        s->v[s->n] = NULL;
        return 0;
}

/* Append a copy of x; 0 or -ENOMEM. */
static inline int strv_push(struct strv *s, const char *x) {
        return strv_consume(s, strdup(x));
}

/* Free the strings and the vector; s is empty again. */
static inline void strv_clear(struct strv *s) {
        strv_free(s->v);
        *s = (struct strv){};
}

/* Sort with cmp_str(). */
static inline void strv_sort(struct strv *s) {
        if (s->n > 1)
                qsort(s->v, s->n, sizeof(char *), cmp_str);
}
