/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* A small string-keyed hash map (open addressing), used to cache NSS look-ups per run. */
#include <stddef.h>
#include <stdint.h>

struct strmap {
        struct strmap_entry {
                char *key;      /* owned */
                void *value;    /* owned by the caller */
                uint64_t hash;  /* of key: most probes end on it, without a strcmp */
        } *v;
        size_t n, cap;          /* cap is 0 or a power of two */
};

/* FNV-1a, 64 bits: the hash the map files its keys by, for whoever compares many names */
uint64_t str_hash(const char *s);
/* Returns the value, or NULL when absent (store a non-NULL sentinel for "known absent"). */
void *strmap_get(const struct strmap *m, const char *key);
/* Inserts or replaces; returns 0 or -ENOMEM.  The key is copied. */
int strmap_put(struct strmap *m, const char *key, void *value);
/* Frees the keys, and each value with free_value when it is not NULL. */
void strmap_clear(struct strmap *m, void (*free_value)(void *));
