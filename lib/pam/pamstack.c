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
#include "pammod.h"
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
const char *pam_include_strerror(int include_error) {
        return include_error == VISIT_ERR_CYCLE ? VISIT_CYCLE_TEXT "; " PAM_CYCLE_EFFECT : visit_strerror(include_error);
}

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

/* One walk over a stack's files. */
struct load {
        const char *root;
        const char *phase;      /* "session", or "account" (pam_stack_load_phase()) */
        struct pam_stack *s;
        struct visit *v;
};

static int load_file(struct load *L, const char *name, struct at at, const char *from, unsigned from_line);

/* load_file()'s answer for an included file that cannot be read */
#define LOAD_MISSING 1

/*
 * An included file libpam cannot open (libpam/pam_handlers.c, measured with Debian 12's
 * 1.5.2): `include` leaves one handler that always fails, which a jump counts as one module;
 * `substack` leaves its substack handler and, at the same level, one that always fails (a jump
 * counts two): each becomes an entry that fails.  `@include` makes pam_start() fail: the stack
 * aborts.
 */
static int push_missing(struct pam_stack *s, const char *display, unsigned lineno, const char *name, struct at at) {
        int r = push(s, display, lineno, false, "required", name, "", at);
        if (r >= 0)
                s->v[s->n - 1].fails = true;
        return r;
}

/* An include line (at display:lineno) bringing name: the walk's problem ends the reading. */
static int load_include(struct load *L, const char *name, struct at at, const char *display, unsigned lineno) {
        int r = load_file(L, name, at, display, lineno);
        return L->v->error ? L->v->error : r;
}

/* The lines of one file entered in the walk (display: its name in messages), at `at` (top:
 * taken from each line at depth 0). */
static int load_lines(struct load *L, const char *display, FILE *f, struct at at) {
        _cleanup_free_ char *line = NULL;
        size_t n = 0;
        ssize_t len;
        unsigned lineno = 0;
        int r = 0;

        while (r >= 0 && (len = getline(&line, &n, f)) > 0) {
                char *w[3], *rest;
                /* line continuations are rare in pam.d; treated as separate lines */
                if ((r = visit_line(L->v, display, ++lineno, (size_t)len)) < 0)
                        break;
                unsigned nw = pam_line_split(line, w, &rest);
                bool dash = nw > 0 && w[0][0] == '-';
                if (nw == 0)
                        continue;
                struct at here = at, in = { .depth = at.depth + 1, .level = at.level, .top = at.top };
                if (at.depth == 0)
                        here.top = in.top = lineno;
                const char *inc = NULL;
                if (streq(w[0], "@include"))
                        r = (inc = w[1]) ? load_include(L, w[1], in, display, lineno) : 0;
                else if (strcasecmp(w[0] + dash, L->phase) != 0 || nw < 3)
                        continue;
                else if (strcasecmp(w[1], "include") == 0)   /* libpam: strcasecmp() */
                        r = load_include(L, inc = w[2], in, display, lineno);
                else if (strcasecmp(w[1], "substack") == 0) {
                        /* libpam's substack handler, at this level, ahead of what it brings */
                        in.level++;
                        if ((r = link_add(L->s, at.level, -1)) >= 0)
                                r = load_include(L, inc = w[2], in, display, lineno);
                } else
                        r = push(L->s, display, lineno, dash, w[1], w[2], rest, here);
                if (r == LOAD_MISSING && streq(w[0], "@include")) {
                        r = 0;
                        if (!L->s->aborts) {
                                if (asprintf(&L->s->abort_where, "%s:%u", display, lineno) < 0)
                                        L->s->abort_where = NULL;
                                L->s->abort_name = strdup(w[1]);
                                if (!L->s->abort_where || !L->s->abort_name)
                                        r = -ENOMEM;
                        }
                        L->s->aborts = true;
                } else if (r == LOAD_MISSING)
                        r = push_missing(L->s, display, lineno, inc, here);
        }
        /* getline() also stops on a read or allocation failure: not the end of the file */
        if (r >= 0 && !feof(f))
                r = ferror(f) ? -EIO : -ENOMEM;
        return r < 0 ? r : 0;
}

/* The file of pam.d called name, opened and entered in the walk, its lines read; text (not
 * NULL for the service file only) stands for its content as it would be after an edit. */
static int load_file_text(struct load *L, const char *name, const char *text, struct at at, const char *from,
                          unsigned from_line) {
        _cleanup_free_ char *rel = NULL;
        _cleanup_fclose_ FILE *f = NULL, *t = NULL;
        struct stat st = {};
        int r;

        if (at.depth > MAX_DEPTH || strchr(name, '/'))
                return at.depth == 0 ? -EINVAL : 0;
        if (asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        r = fs_fopen_in_root(L->root, rel, &f);
        if (r >= 0 && fstat(fileno(f), &st) < 0)
                r = negative_errno();
        if (r < 0 && (!text || r == -ENOMEM))
                return at.depth == 0 || r == -ENOMEM ? r : LOAD_MISSING;
        if (text && *text && !(t = fmemopen((void *)text, strlen(text), "r")))
                return -ENOMEM;
        const char *display = L->root ? rel + 1 : rel;
        if ((r = visit_enter(L->v, &st, display, from, from_line)) < 0)
                return r;
        r = text ? (t ? load_lines(L, display, t, at) : 0) : load_lines(L, display, f, at);
        visit_leave(L->v);
        return r;
}

static int load_file(struct load *L, const char *name, struct at at, const char *from, unsigned from_line) {
        return load_file_text(L, name, NULL, at, from, from_line);
}

/* Which lines' module files libpam cannot load (pammod.h: the one answer, doctor's too). */
static int check_modules(const char *root, struct pam_stack *s) {
        struct pam_moddirs m;
        int r = 0;

        if (s->n == 0)
                return 0;
        if ((r = pam_moddirs_load(&m, root, SECUREDIR)) < 0)
                return r;
        for (size_t i = 0; i < s->n && r >= 0; i++) {
                enum pam_mod_state st;
                if (s->v[i].fails)
                        continue;
                r = pam_module_state(&m, root, s->v[i].module, &st, NULL);
                s->v[i].unloadable = r >= 0 && pam_mod_unloadable(st);
                s->modules_unchecked |= r >= 0 && st == PAM_MOD_UNCHECKED;
        }
        pam_moddirs_clear(&m);
        return r;
}

static int stack_load_walk(const char *root, const char *service, const char *phase, const char *text,
                           struct visit *v, struct pam_stack *ret) {
        struct pam_stack s = {};
        struct load L = { .root = root, .phase = phase, .s = &s, .v = v };
        int r;

        s.service = strdup(service);
        if (!s.service)
                return -ENOMEM;
        r = load_file_text(&L, service, text, (struct at){}, NULL, 0);
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
        if ((r = check_modules(root, &s)) < 0) {
                pam_stack_clear(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int pam_stack_load_walk(const char *root, const char *service, struct visit *v, struct pam_stack *ret) {
        return stack_load_walk(root, service, "session", NULL, v, ret);
}

int pam_stack_load_phase(const char *root, const char *service, const char *phase, struct pam_stack *ret) {
        struct visit v = {};
        int r = stack_load_walk(root, service, phase, NULL, &v, ret);
        visit_done(&v);
        return r;
}

int pam_stack_load(const char *root, const char *service, struct pam_stack *ret) {
        return pam_stack_load_phase(root, service, "session", ret);
}

int pam_stack_load_text(const char *root, const char *service, const char *text, struct pam_stack *ret) {
        struct visit v = {};
        int r = stack_load_walk(root, service, "session", text, &v, ret);
        visit_done(&v);
        return r;
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
        free(s->include_where);
        free(s->abort_where);
        free(s->abort_name);
        *s = (struct pam_stack){};
}

long pam_stack_find(const struct pam_stack *s, const char *name) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i].name, name))
                        return (long)i;
        return -1;
}

char *pam_args_words(const char *args, size_t *ret_n) {
        static const char blanks[] = " \t\n";
        const char *p = args ? args : "";
        /* every word is at most as long as its text, plus its NUL, plus the last empty one */
        char *out = malloc(strlen(p) + 2), *o = out;
        size_t n = 0;

        if (!out)
                return NULL;
        for (;;) {
                p += strspn(p, blanks);
                if (!*p)
                        break;
                if (*p == '[') {
                        for (p++; *p && *p != ']'; p++) {
                                if (*p == '\\' && p[1] == ']')
                                        p++;
                                *o++ = *p;
                        }
                        if (*p == ']')
                                p++;
                } else {
                        size_t len = strcspn(p, blanks);
                        memcpy(o, p, len);
                        o += len;
                        p += len;
                }
                *o++ = '\0';
                n++;
        }
        *o = '\0';
        *ret_n = n;
        return out;
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
