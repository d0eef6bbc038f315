/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "array.h"
#include "fsutil.h"
#include "macro.h"
#include "pamstack.h"
#include "visit.h"

/* below libpam's own PAM_SUBSTACK_MAX_LEVEL (16): deeper files are not read */
#define MAX_DEPTH 8

/*
 * What libpam does with an include cycle (Linux-PAM libpam/pam_handlers.c,
 * _pam_load_conf_file()): PAM_SUBSTACK_MAX_LEVEL (16, pam_private.h) bounds the nesting; up to
 * 1.5.x only substacks counted, so a cycle of include or @include lines recursed until the
 * process overflowed its stack (Debian 12's 1.5.2-6+deb12u3, measured: pam_start() of such a
 * service, its pam.d bind-mounted over /etc/pam.d in a private mount namespace, dies of
 * SIGSEGV, for @include and for include), and from 1.6.0 on (commit d686b51a, "libpam: avoid
 * infinite recursion with includes") includes count too: the one at level 16 is loaded as a
 * handler that always fails.  A cycle of substacks stops at 16 in every version and fails the
 * session (measured on 1.5.2: pam_open_session() returns PAM_PERM_DENIED).  Either way no
 * session of the service opens.
 */
#define CYCLE_EFFECT                                                                                   \
        "libpam cannot load this stack: Linux-PAM before 1.6 (Debian 12's 1.5.2) follows the include until " \
        "the process crashes, 1.6 and later (and a substack in any version) stop at 16 levels and fail the " \
        "session"

const char *pam_include_strerror(int include_error) {
        return include_error == VISIT_ERR_CYCLE ? VISIT_CYCLE_TEXT "; " CYCLE_EFFECT : visit_strerror(include_error);
}

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

/* One walk over a stack's files. */
struct load {
        const char *root;
        struct pam_stack *s;
        struct visit *v;
};

static int load_file(struct load *L, const char *name, unsigned depth, const char *from, unsigned from_line);

/* An include line (at display:lineno) bringing name: the walk's problem ends the reading. */
static int load_include(struct load *L, const char *name, unsigned depth, const char *display, unsigned lineno) {
        int r = load_file(L, name, depth + 1, display, lineno);
        return L->v->error ? L->v->error : r;
}

static int load_file(struct load *L, const char *name, unsigned depth, const char *from, unsigned from_line) {
        _cleanup_free_ char *rel = NULL, *line = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        struct stat st;
        size_t n = 0;
        ssize_t len;
        unsigned lineno = 0;
        int r;

        if (depth > MAX_DEPTH || strchr(name, '/'))
                return 0;
        if (asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        r = fs_fopen_in_root(L->root, rel, &f);
        if (r >= 0 && fstat(fileno(f), &st) < 0)
                r = negative_errno();
        if (r < 0)
                return depth == 0 || r == -ENOMEM ? r : 0;
        const char *display = L->root ? rel + 1 : rel;
        if ((r = visit_enter(L->v, &st, display, from, from_line)) < 0)
                return r;
        while (r >= 0 && (len = getline(&line, &n, f)) > 0) {
                char *w[3], *rest;
                /* line continuations are rare in pam.d; treated as separate lines */
                if ((r = visit_line(L->v, display, ++lineno, (size_t)len)) < 0)
                        break;
                unsigned nw = pam_line_split(line, w, &rest);
                bool dash = nw > 0 && w[0][0] == '-';
                if (nw == 0)
                        continue;
                if (streq(w[0], "@include"))
                        r = w[1] ? load_include(L, w[1], depth, display, lineno) : 0;
                else if (strcasecmp(w[0] + dash, "session") != 0 || nw < 3)
                        continue;
                else if (streq(w[1], "include") || streq(w[1], "substack"))
                        r = load_include(L, w[2], depth, display, lineno);
                else
                        r = push(L->s, display, lineno, dash, w[1], w[2], rest, depth);
        }
        visit_leave(L->v);
        return r < 0 ? r : 0;
}

int pam_stack_load_walk(const char *root, const char *service, struct visit *v, struct pam_stack *ret) {
        struct pam_stack s = {};
        struct load L = { .root = root, .s = &s, .v = v };
        int r;

        s.service = strdup(service);
        if (!s.service)
                return -ENOMEM;
        r = load_file(&L, service, 0, NULL, 0);
        if (v->error == -ENOMEM)
                r = -ENOMEM;
        else if (v->error) {
                s.include_error = v->error;
                if (!(s.include_where = strdup(v->where)))
                        r = -ENOMEM;
        }
        if (r == -ENOMEM) {
                pam_stack_clear(&s);
                return r;
        }
        s.error = r < 0 && !v->error ? r : 0;
        *ret = s;
        return 0;
}

int pam_stack_load(const char *root, const char *service, struct pam_stack *ret) {
        struct visit v = {};
        int r = pam_stack_load_walk(root, service, &v, ret);
        visit_done(&v);
        return r;
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
        free(s->include_where);
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
