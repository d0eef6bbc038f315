/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

uint64_t str_hash(const char *s) {
        uint64_t h = UINT64_C(1469598103934665603);    /* FNV-1a */
        for (; *s; s++) {
                h ^= (unsigned char)*s;
                h *= UINT64_C(1099511628211);
        }
        return h;
}

static struct strmap_entry *find(const struct strmap *m, const char *key, uint64_t h) {
        if (!m->cap)
                return NULL;
        size_t mask = m->cap - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
                struct strmap_entry *e = &m->v[i];
                if (!e->key || (e->hash == h && strcmp(e->key, key) == 0))
                        return e;
        }
}

void *strmap_get(const struct strmap *m, const char *key) {
        struct strmap_entry *e = find(m, key, str_hash(key));
        return e && e->key ? e->value : NULL;
}

static int grow(struct strmap *m) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        struct strmap_entry *old = m->v;
        size_t oldcap = m->cap;

        m->v = calloc(cap, sizeof(*m->v));
        if (!m->v) {
                m->v = old;
                return -ENOMEM;
        }
        m->cap = cap;
        for (size_t i = 0; i < oldcap; i++)
                if (old[i].key)
                        *find(m, old[i].key, old[i].hash) = old[i];
        free(old);
        return 0;
}

int strmap_put(struct strmap *m, const char *key, void *value) {
        struct strmap_entry *e;

        if ((m->n + 1) * 4 > m->cap * 3) {
                int r = grow(m);
                if (r < 0)
                        return r;
        }
        uint64_t h = str_hash(key);
        e = find(m, key, h);
        if (e->key) {
                e->value = value;
                return 0;
        }
        e->key = strdup(key);
        if (!e->key)
                return -ENOMEM;
        e->value = value;
        e->hash = h;
        m->n++;
        return 0;
}

void strmap_clear(struct strmap *m, void (*free_value)(void *)) {
        for (size_t i = 0; i < m->cap; i++) {
                if (!m->v[i].key)
                        continue;
                free(m->v[i].key);
                if (free_value && m->v[i].value)
                        free_value(m->v[i].value);
        }
        free(m->v);
        *m = (struct strmap){};
}
