/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Growing arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make room for need elements of size bytes in *v.  With cap, the array keeps spare room: it
 * is reallocated only when need exceeds *cap, to twice its capacity (at least 8 and need),
 * and *cap is updated.  Without cap (NULL), it is resized to need elements exactly.
 * 0, or -ENOMEM with *v and *cap unchanged.
 */
static inline int grow_array(void **v, size_t *cap, size_t need, size_t size) {
        size_t c = need;
        if (cap) {
                if (need <= *cap)
                        return 0;
                c = *cap > 4 ? *cap * 2 : 8;
                if (c < need)
                        c = need;
        }
        void *n = reallocarray(*v, c, size);
        if (!n)
                return -ENOMEM;
        *v = n;
        if (cap)
                *cap = c;
        return 0;
}

/* Append the element x (size bytes) to the *n elements of *v, making room step elements at a
 * time (*v has room for a multiple of step).  0, or -ENOMEM with *v and *n unchanged. */
static inline int array_append(void **v, size_t *n, size_t size, const void *x, size_t step) {
        if (*n % step == 0 && grow_array(v, NULL, *n + step, size) < 0)
                return -ENOMEM;
        memcpy((char *)*v + *n * size, x, size);
        (*n)++;
        return 0;
}

/* grow_array() for an array p (a typed pointer) with its capacity cap (a size_t) */
#define GROW(p, cap, need) grow_array((void **)&(p), &(cap), (need), sizeof(*(p)))
/* ... and for an array with no spare room: exactly need elements */
#define GROW_EXACT(p, need) grow_array((void **)&(p), NULL, (need), sizeof(*(p)))
