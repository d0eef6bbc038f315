/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Vectors of heap strings, NULL-terminated; and a formatted heap string. */
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

/* A heap string formatted as printf() does, NULL when it cannot be allocated. */
char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* strcmp() for qsort() over an array of char *. */
int cmp_str(const void *a, const void *b);

/* A NULL-terminated array of heap strings (a strv's v, or one built by hand); NULL is an
 * empty array. */
bool strv_contains(char *const *v, const char *x);
void strv_free(char **v);
static inline void strv_freep(char ***v) {
        strv_free(*v);
}

/* Append x itself (a heap string, NULL for a failed allocation): the vector owns it from
 * now on, and frees it on failure.  0 or -ENOMEM. */
int strv_consume(struct strv *s, char *x);

/* Append a copy of x; 0 or -ENOMEM. */
static inline int strv_push(struct strv *s, const char *x) {
        return strv_consume(s, strdup(x));
}

/* Free the strings after the first n (n <= s->n). */
void strv_truncate(struct strv *s, size_t n);

/* Free the strings and the vector; s is empty again. */
static inline void strv_clear(struct strv *s) {
        strv_free(s->v);
        *s = (struct strv){};
}

/* Sort with cmp_str(). */
void strv_sort(struct strv *s);
