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

static int link_add(struct pam_stack *s, unsigned level, long entry) {
        if (GROW_EXACT(s->chain, s->n_chain + 1) < 0)
                return -ENOMEM;
        s->chain[s->n_chain++] = (struct pam_link){ .level = level, .entry = entry };
        return 0;
}

/* Where a line is in the stack being read. */
struct at {
        unsigned depth, level, top;
};

/* -ENOMEM leaves the entry counted, for pam_stack_clear() */
static int push(struct pam_stack *s, const char *file, unsigned line, bool dash, const char *control,
                const char *module, const char *args, struct at at) {
        if (GROW_EXACT(s->v, s->n + 1) < 0)
                return -ENOMEM;
        struct pam_entry *e = &s->v[s->n++];
        *e = (struct pam_entry){ .line = line, .dash = dash, .depth = at.depth, .level = at.level, .top = at.top,
                                 .link = s->n_chain };
        e->file = strdup(file);
        e->control = strdup(control);
        e->module = strdup(module);
        e->name = pam_module_name(module);
        e->args = strdup(args);
        if (!e->file || !e->control || !e->module || !e->name || !e->args)
                return -ENOMEM;
        return link_add(s, at.level, (long)(s->n - 1));
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

static int load_file(const char *root, const char *name, struct pam_stack *s, struct at at);

/* The lines of one file (display: its name in messages), at `at` (top: taken from each line
 * at depth 0). */
static int load_lines(const char *root, const char *display, FILE *f, struct pam_stack *s, struct at at) {
        _cleanup_free_ char *line = NULL;
        size_t n = 0;
        unsigned lineno = 0;
        int r;

        while (getline(&line, &n, f) > 0) {
                char *w[3], *rest;
                /* line continuations are rare in pam.d; treated as separate lines */
                unsigned nw = pam_line_split(line, w, &rest);
                lineno++;
                if (nw == 0)
                        continue;
                struct at here = at, in = { .depth = at.depth + 1, .level = at.level, .top = at.top };
                if (at.depth == 0)
                        here.top = in.top = lineno;
                if (streq(w[0], "@include")) {
                        if (w[1] && (r = load_file(root, w[1], s, in)) < 0)
                                return r;
                        continue;
                }
                bool dash = w[0][0] == '-';
                if (strcasecmp(w[0] + dash, "session") != 0 || nw < 3)
                        continue;
                if (streq(w[1], "substack")) {
                        /* libpam's substack handler, at this level, ahead of what it brings */
                        if ((r = link_add(s, at.level, -1)) < 0)
                                return r;
                        in.level++;
                }
                if (streq(w[1], "include") || streq(w[1], "substack")) {
                        if ((r = load_file(root, w[2], s, in)) < 0)
                                return r;
                        continue;
                }
                r = push(s, display, lineno, dash, w[1], w[2], rest, here);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int load_file(const char *root, const char *name, struct pam_stack *s, struct at at) {
        _cleanup_free_ char *rel = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        int r;

        if (at.depth > MAX_DEPTH || strchr(name, '/'))
                return 0;
        if (asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        r = fs_fopen_in_root(root, rel, &f);
        if (r < 0)
                return at.depth == 0 || r == -ENOMEM ? r : 0;
        return load_lines(root, root ? rel + 1 : rel, f, s, at);
}

/* The stack of service, from its file in the tree (text NULL) or from text. */
static int stack_load(const char *root, const char *service, const char *text, struct pam_stack *ret) {
        struct pam_stack s = {};
        _cleanup_free_ char *rel = NULL;
        int r;

        s.service = strdup(service);
        if (!s.service)
                return -ENOMEM;
        if (!text)
                r = load_file(root, service, &s, (struct at){});
        else if (strchr(service, '/') || asprintf(&rel, "/etc/pam.d/%s", service) < 0)
                r = strchr(service, '/') ? -EINVAL : -ENOMEM;
        else {
                _cleanup_fclose_ FILE *f = *text ? fmemopen((void *)text, strlen(text), "r") : NULL;
                r = !*text ? 0 : !f ? -ENOMEM : load_lines(root, root ? rel + 1 : rel, f, &s, (struct at){});
        }
        if (r == -ENOMEM) {
                pam_stack_clear(&s);
                return r;
        }
        s.error = r < 0 ? r : 0;
        *ret = s;
        return 0;
}

int pam_stack_load(const char *root, const char *service, struct pam_stack *ret) {
        return stack_load(root, service, NULL, ret);
}

int pam_stack_load_text(const char *root, const char *service, const char *text, struct pam_stack *ret) {
        return stack_load(root, service, text, ret);
}

/* The first entry at or after node h of the chain (s->n: none). */
static size_t entry_from(const struct pam_stack *s, size_t h) {
        for (; h < s->n_chain; h++)
                if (s->chain[h].entry >= 0)
                        return (size_t)s->chain[h].entry;
        return s->n;
}

size_t pam_stack_jump(const struct pam_stack *s, size_t i, unsigned jump, bool *ret_bad) {
        size_t h = s->v[i].link;
        unsigned level = s->chain[h].level;

        /* libpam/pam_dispatch.c, _pam_dispatch_aux(): skip `jump` handlers of this level */
        while (h + 1 < s->n_chain && s->chain[h + 1].level >= level && jump > 0) {
                do
                        h++;
                while (h + 1 < s->n_chain && s->chain[h + 1].level > level);
                jump--;
        }
        *ret_bad = jump > 0;
        return entry_from(s, h + 1);
}

size_t pam_stack_level_end(const struct pam_stack *s, size_t i) {
        size_t h = s->v[i].link;
        unsigned level = s->chain[h].level;

        if (level == 0)
                return s->n;
        while (h + 1 < s->n_chain && s->chain[h + 1].level >= level)
                h++;
        return entry_from(s, h + 1);
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
        free(s->chain);
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
