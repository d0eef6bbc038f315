/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "fsutil.h"
#include "macro.h"
#include "pamstack.h"

#define MAX_DEPTH 8

char *pam_module_name(const char *module) {
        const char *base = strrchr(module, '/');
        base = base ? base + 1 : module;
        size_t bl = strlen(base);
        if (bl > 3 && streq(base + bl - 3, ".so"))
                bl -= 3;
        return strndup(base, bl);
}

/* -ENOMEM leaves the entry counted, for pam_stack_clear() */
static int push(struct pam_stack *s, const char *file, unsigned line, bool dash, const char *control,
                const char *module, const char *args, unsigned depth) {
        if (GROW_EXACT(s->v, s->n + 1) < 0)
                return -ENOMEM;
        struct pam_entry *e = &s->v[s->n++];
        *e = (struct pam_entry){ .line = line, .dash = dash, .depth = depth };
        e->file = strdup(file);
        e->control = strdup(control);
        e->module = strdup(module);
        e->name = pam_module_name(module);
        e->args = strdup(args);
        return e->file && e->control && e->module && e->name && e->args ? 0 : -ENOMEM;
}

static char *next_word(char **p) {
        char *s = *p, *w;
        while (*s == ' ' || *s == '\t')
                s++;
        if (!*s)
                return NULL;
        w = s;
        if (*s == '[') {
                /* a bracketed control: up to the matching ']' */
                while (*s && *s != ']')
                        s++;
                if (*s)
                        s++;
        } else
                while (*s && *s != ' ' && *s != '\t')
                        s++;
        if (*s)
                *s++ = '\0';
        *p = s;
        return w;
}

static int load_file(const char *root, const char *name, struct pam_stack *s, unsigned depth) {
        _cleanup_free_ char *rel = NULL, *line = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t n = 0;
        unsigned lineno = 0;
        int r;

        if (depth > MAX_DEPTH || strchr(name, '/'))
                return 0;
        if (asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        r = fs_fopen_in_root(root, rel, &f);
        if (r < 0)
                return depth == 0 || r == -ENOMEM ? r : 0;
        const char *display = root ? rel + 1 : rel;
        while (getline(&line, &n, f) > 0) {
                char *w[3], *rest;
                /* line continuations are rare in pam.d; treated as separate lines */
                unsigned nw = pam_line_split(line, w, &rest);
                lineno++;
                if (nw == 0)
                        continue;
                if (streq(w[0], "@include")) {
                        if (w[1] && (r = load_file(root, w[1], s, depth + 1)) < 0)
                                return r;
                        continue;
                }
                bool dash = w[0][0] == '-';
                if (strcasecmp(w[0] + dash, "session") != 0 || nw < 3)
                        continue;
                if (streq(w[1], "include") || streq(w[1], "substack")) {
                        if ((r = load_file(root, w[2], s, depth + 1)) < 0)
                                return r;
                        continue;
                }
                r = push(s, display, lineno, dash, w[1], w[2], rest, depth);
                if (r < 0)
                        return r;
        }
        return 0;
}

int pam_stack_load(const char *root, const char *service, struct pam_stack *ret) {
        struct pam_stack s = {};
        int r;

        s.service = strdup(service);
        if (!s.service)
                return -ENOMEM;
        r = load_file(root, service, &s, 0);
        if (r == -ENOMEM) {
                pam_stack_clear(&s);
                return r;
        }
        s.error = r < 0 ? r : 0;
        *ret = s;
        return 0;
}

void pam_stack_clear(struct pam_stack *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->v[i].file);
                free(s->v[i].control);
                free(s->v[i].module);
                free(s->v[i].name);
                free(s->v[i].args);
        }
        free(s->v);
        free(s->service);
        *s = (struct pam_stack){};
}

long pam_stack_find(const struct pam_stack *s, const char *name) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i].name, name))
                        return (long)i;
        return -1;
}

unsigned pam_line_split(char *line, char *words[static 3], char **ret_rest) {
        char *p = line, *c;
        unsigned n = 0;

        if ((c = strchr(p, '#')))
                *c = '\0';
        p[strcspn(p, "\r\n")] = '\0';
        words[0] = words[1] = words[2] = NULL;
        while (n < 3 && (words[n] = next_word(&p)))
                n++;
        while (*p == ' ' || *p == '\t')
                p++;
        *ret_rest = p;
        return n;
}
