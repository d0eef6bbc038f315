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
        if (include_error == PAM_INCLUDE_ERR_DEPTH)
                return PAM_DEPTH_TEXT;
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
        bool typed;          /* the file is read for the phase only (PHASE include, PHASE substack) */
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

/* load_file()'s answers for an included file libpam cannot use: it cannot be opened (or sits
 * at substack level 16), or libpam's reader gives up on it (a continuation at the end of the
 * file); what it read before stays */
#define LOAD_MISSING 1
#define LOAD_LINE 2      /* read_line(): a line */

/*
 * An included file libpam cannot open (libpam/pam_handlers.c, measured with Debian 12's
 * 1.5.2): `include` leaves one handler that always fails, which a jump counts as one module;
 * `substack` leaves its substack handler and, at the same level, one that always fails (a jump
 * counts two): each becomes an entry that fails.  `@include` (Debian's patch) does the same
 * inside a file read for the session only (`session include`, `session substack`); elsewhere
 * (the service file, `other`, a file they @include) it makes pam_start() fail: the stack
 * aborts.
 */
static int push_missing(struct pam_stack *s, const char *display, unsigned lineno, const char *name, struct at at) {
        int r = push(s, display, lineno, false, "required", name, "", at);
        if (r >= 0)
                s->v[s->n - 1].fails = true;
        return r;
}

/* A line libpam makes a handler that always fails (control: its own, "required" for none);
 * no module runs, so its name is none ("") */
static int push_failing(struct pam_stack *s, const char *display, unsigned lineno, const char *control,
                        const char *module, struct at at) {
        int r = push_missing(s, display, lineno, module, at);
        if (r >= 0) {
                struct pam_entry *e = &s->v[s->n - 1];
                e->name[0] = '\0';
                free(e->control);
                if (!(e->control = strdup(control)))
                        return -ENOMEM;
        }
        return r;
}

/* pam_start() fails (or the process dies) because of the line at display:lineno (name: the
 * file it names, NULL: none) */
static int set_abort(struct pam_stack *s, const char *display, unsigned lineno, const char *name) {
        if (s->aborts)
                return 0;
        s->aborts = true;
        if (asprintf(&s->abort_where, "%s:%u", display, lineno) < 0) {
                s->abort_where = NULL;
                return -ENOMEM;
        }
        if (!(s->abort_name = strdup(name ? name : "")))
                return -ENOMEM;
        return 0;
}

/* An include line (at display:lineno) bringing name: the walk's problem ends the reading. */
static int load_include(struct load *L, const char *name, struct at at, const char *display, unsigned lineno) {
        int r = load_file(L, name, at, display, lineno);
        return L->v->error ? L->v->error : r;
}

/*
 * One line as libpam reads it (_pam_assemble_line(), pam_handlers.c): lines that are blank or
 * start with '#' (after blanks) are skipped; a '#' ends the line; a line whose last non-blank
 * byte is a backslash goes on with the next line that is not skipped (the backslash becomes a
 * blank).  *acc holds the line, *ret_first the number of its first physical line.  LOAD_LINE:
 * a line; 0: the end of the file; LOAD_MISSING: the file ends inside a continued line (libpam gives up
 * on the file); negative: an error.
 */
static int read_line(struct load *L, const char *display, FILE *f, char **buf, size_t *n, char **acc,
                     unsigned *lineno, unsigned *ret_first) {
        size_t used = 0;
        ssize_t len;
        int r;

        free(*acc);
        *acc = NULL;
        while ((len = getline(buf, n, f)) > 0) {
                if ((r = visit_line(L->v, display, ++*lineno, (size_t)len)) < 0)
                        return r;
                char *s = *buf + strspn(*buf, " \n\t");
                if (!*s || *s == '#')
                        continue;
                if (used == 0)
                        *ret_first = *lineno;
                char *hash = strchr(s, '#');
                bool more = false;
                if (hash)
                        *hash = '\0';
                else {
                        size_t e = strlen(s);
                        while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n'))
                                e--;
                        if (e > 0 && s[e - 1] == '\\') {
                                s[e - 1] = ' ';
                                s[e] = '\0';
                                more = true;
                        }
                }
                size_t sl = strlen(s);
                char *t = realloc(*acc, used + sl + 1);
                if (!t)
                        return -ENOMEM;
                memcpy(t + used, s, sl + 1);
                *acc = t;
                used += sl;
                if (!more)
                        return LOAD_LINE;
        }
        /* getline() also stops on a read or allocation failure: not the end of the file */
        if (!feof(f))
                return ferror(f) ? -EIO : -ENOMEM;
        return used ? LOAD_MISSING : 0;
}

static bool known_type(const char *type) {
        static const char *const types[] = { "auth", "account", "password", "session" };
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if (strcasecmp(type, types[i]) == 0)
                        return true;
        return false;
}

/*
 * One line, as _pam_parse_conf_file() (Debian 12's 1.5.2) takes it.  at.typed: the file is
 * read for the phase only (brought by `PHASE include` or `PHASE substack`): there a line of a
 * type libpam does not know becomes a handler of the phase that always fails, elsewhere one of
 * auth.  A line of the phase without a control, or without a module, is a handler that always
 * fails (under its control when it has one); an include or substack without a file name makes
 * the process crash (measured: SIGSEGV in pam_start()).
 */
static int load_line(struct load *L, const char *display, unsigned lineno, char *line, struct at at) {
        char *w[3], *rest;
        unsigned nw = pam_line_split(line, w, &rest);
        int r;

        if (nw == 0)
                return 0;
        bool dash = w[0][0] == '-';
        struct at here = at, in = { .depth = at.depth + 1, .level = at.level, .top = at.top, .typed = at.typed };
        if (at.depth == 0)
                here.top = in.top = lineno;
        if (strcasecmp(w[0], "@include") == 0) {   /* Debian's patch: strcasecmp() */
                if (!w[1])
                        return set_abort(L->s, display, lineno, NULL);
                r = load_include(L, w[1], in, display, lineno);
                if (r != LOAD_MISSING)
                        return r;
                return at.typed ? push_missing(L->s, display, lineno, w[1], here)
                        : set_abort(L->s, display, lineno, w[1]);
        }
        bool bad_type = !known_type(w[0] + dash);
        if (bad_type ? !at.typed : strcasecmp(w[0] + dash, L->phase) != 0)
                return 0;
        if (!w[1])
                return push_failing(L->s, display, lineno, "required", "", here);
        bool substack = strcasecmp(w[1], "substack") == 0;
        if (substack || strcasecmp(w[1], "include") == 0) {   /* libpam: strcasecmp() */
                if (!w[2])
                        return set_abort(L->s, display, lineno, NULL);
                in.typed = true;
                if (substack) {
                        /* libpam's substack handler, at this level, ahead of what it brings */
                        in.level++;
                        if ((r = link_add(L->s, at.level, -1)) < 0)
                                return r;
                }
                r = load_include(L, w[2], in, display, lineno);
                return r == LOAD_MISSING ? push_missing(L->s, display, lineno, w[2], here) : r;
        }
        if (!w[2] || bad_type)
                return push_failing(L->s, display, lineno, w[1], w[2] ? w[2] : "", here);
        return push(L->s, display, lineno, dash, w[1], w[2], rest, here);
}

/* The lines of one file entered in the walk (display: its name in messages), at `at` (top:
 * taken from each line at depth 0).  LOAD_MISSING when libpam gives up on the file. */
static int load_lines(struct load *L, const char *display, FILE *f, struct at at) {
        _cleanup_free_ char *buf = NULL, *line = NULL;
        size_t n = 0;
        unsigned lineno = 0, first = 0;
        int r;

        while ((r = read_line(L, display, f, &buf, &n, &line, &lineno, &first)) == LOAD_LINE)
                if ((r = load_line(L, display, first, line, at)) < 0)
                        return r;
        return r;
}

/* libpam's configuration directories, in the order it looks in them */
static const char *const pam_dirs[] = { "/etc/pam.d", "/usr/lib/pam.d" };

/* Where libpam looks for a file of pam.d (_pam_open_config_file()): a name starting with '/'
 * as it is, else /etc/pam.d/NAME, then /usr/lib/pam.d/NAME. */
static int open_conf(struct load *L, const char *name, char **ret_rel, FILE **ret_f) {
        int r, first = 0;

        for (size_t i = 0; i < (name[0] == '/' ? 1 : ELEMENTSOF(pam_dirs)); i++) {
                _cleanup_free_ char *rel = NULL;
                if (name[0] == '/' ? !(rel = strdup(name)) : asprintf(&rel, "%s/%s", pam_dirs[i], name) < 0)
                        return -ENOMEM;
                r = fs_fopen_in_root(L->root, rel, ret_f);
                if (r >= 0) {
                        *ret_rel = TAKE_PTR(rel);
                        return 0;
                }
                if (r == -ENOMEM)
                        return r;
                /* the first file's own problem is the answer, unless it is missing */
                if (!first || (first == -ENOENT && r != -ENOENT))
                        first = r;
        }
        return first;
}

/* The file of pam.d called name, opened and entered in the walk, its lines read; text (not
 * NULL for the service file only) stands for its content as it would be after an edit. */
static int load_file_text(struct load *L, const char *name, const char *text, struct at at, const char *from,
                          unsigned from_line) {
        _cleanup_free_ char *rel = NULL;
        _cleanup_fclose_ FILE *f = NULL, *t = NULL;
        struct stat st = {};
        int r;

        if (at.depth == 0 && strchr(name, '/'))
                return -EINVAL;
        if (at.level >= PAM_LEVEL_LIMIT)
                return LOAD_MISSING;
        if (at.depth >= PAM_LEVEL_LIMIT) {
                /* 1.5.x reads it, 1.6 and later fail the line: not known which runs */
                if (!L->s->include_error) {
                        L->s->include_error = PAM_INCLUDE_ERR_DEPTH;
                        if (asprintf(&L->s->include_where, "%s:%u", from, from_line) < 0) {
                                L->s->include_where = NULL;
                                return -ENOMEM;
                        }
                }
                return PAM_INCLUDE_ERR_DEPTH;
        }
        r = open_conf(L, name, &rel, &f);
        if (r >= 0 && fstat(fileno(f), &st) < 0)
                r = negative_errno();
        if (r < 0 && (!text || r == -ENOMEM))
                return at.depth == 0 || r == -ENOMEM ? r : LOAD_MISSING;
        if (!rel && asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
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

/* One file read as a stack of its own (name: the service, or "other"), into *s: 0, or
 * -ENOMEM; the file's own error in s->error, the walk's in s->include_error. */
static int read_stack(const char *root, const char *name, const char *phase, const char *text, struct visit *v,
                      struct pam_stack *s) {
        struct load L = { .root = root, .phase = phase, .s = s, .v = v };
        int r;

        if (!(s->service = strdup(name)))
                return -ENOMEM;
        r = load_file_text(&L, name, text, (struct at){}, NULL, 0);
        if (v->error == -ENOMEM || r == -ENOMEM)
                return -ENOMEM;
        if (v->error) {
                s->include_error = v->error;
                free(s->include_where);
                if (!(s->include_where = strdup(v->where)))
                        return -ENOMEM;
        } else if (r == LOAD_MISSING) {
                /* libpam gives up on the service file itself: pam_start() fails */
                if ((r = set_abort(s, "", 0, NULL)) < 0)
                        return r;
                free(s->abort_where);
                if (asprintf(&s->abort_where, "%s%s", root ? "etc/pam.d/" : "/etc/pam.d/", name) < 0) {
                        s->abort_where = NULL;
                        return -ENOMEM;
                }
        } else if (r < 0 && r != PAM_INCLUDE_ERR_DEPTH)
                s->error = r;
        return 0;
}

static void stack_move(struct pam_stack *to, struct pam_stack *from) {
        free(to->v);
        free(to->chain);
        to->v = TAKE_PTR(from->v);
        to->n = from->n;
        to->chain = TAKE_PTR(from->chain);
        to->n_chain = from->n_chain;
        from->n = from->n_chain = 0;
}

/* Is there a PAM configuration directory in root (/etc/pam.d, /usr/lib/pam.d)? */
static bool pam_dirs_exist(const char *root) {
        struct stat st;
        for (size_t i = 0; i < ELEMENTSOF(pam_dirs); i++)
                if (fs_stat_in_root(root, pam_dirs[i], false, &st) == 0 && S_ISDIR(st.st_mode))
                        return true;
        return false;
}

/*
 * The service's stack as _pam_init_handlers() builds it: the service file, then always `other`
 * (Linux-PAM's PAM_DEFAULT_SERVICE), whose problems fail every service's pam_start() too; a
 * service without a handler of the phase (no file, or none of its lines) runs other's
 * (pam_dispatch.c); with neither file pam_start() fails.  top: only the service file (the
 * reading of one include file for pamedit).
 */
static int stack_load_walk(const char *root, const char *service, const char *phase, const char *text,
                           struct visit *v, bool top, struct pam_stack *ret) {
        _cleanup_(pam_stack_clear) struct pam_stack s = {}, o = {};
        int r;

        if ((r = read_stack(root, service, phase, text, v, &s)) < 0)
                return r;
        /* only a missing file falls back here: one the tool cannot read, libpam (root) may; and
         * only where PAM is configured at all: a tree without /etc/pam.d and /usr/lib/pam.d (limits
         * files alone) says nothing of the stack, which stays unknown (assumed), not "fails" */
        bool missing = (s.error == -ENOENT || s.error == -ENOTDIR) && pam_dirs_exist(root);
        if (top && !s.include_error && !s.aborts && (!s.error || missing) && !streq(service, "other")) {
                if ((r = read_stack(root, "other", phase, NULL, v, &o)) < 0)
                        return r;
                bool use = s.n_chain == 0;
                if (o.include_error) {
                        s.include_error = o.include_error;
                        s.include_where = TAKE_PTR(o.include_where);
                } else if (o.aborts) {
                        s.aborts = true;
                        s.abort_where = TAKE_PTR(o.abort_where);
                        s.abort_name = TAKE_PTR(o.abort_name);
                } else if (missing && o.error) {
                        /* neither file: _pam_init_handlers() read nothing, pam_start() fails */
                        s.aborts = true;
                } else if (use && !o.error)
                        s.other = true;
                if (use && !o.error)
                        stack_move(&s, &o);
        }
        if ((r = check_modules(root, &s)) < 0)
                return r;
        *ret = s;
        s = (struct pam_stack){};
        return 0;
}

int pam_stack_load_walk(const char *root, const char *service, struct visit *v, struct pam_stack *ret) {
        return stack_load_walk(root, service, "session", NULL, v, false, ret);
}

int pam_stack_load_phase(const char *root, const char *service, const char *phase, struct pam_stack *ret) {
        struct visit v = {};
        int r = stack_load_walk(root, service, phase, NULL, &v, true, ret);
        visit_done(&v);
        return r;
}

int pam_stack_load(const char *root, const char *service, struct pam_stack *ret) {
        return pam_stack_load_phase(root, service, "session", ret);
}

int pam_stack_load_text(const char *root, const char *service, const char *text, struct pam_stack *ret) {
        struct visit v = {};
        int r = stack_load_walk(root, service, "session", text, &v, true, ret);
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
