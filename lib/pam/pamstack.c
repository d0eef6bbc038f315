/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "fsutil.h"
#include "macro.h"
#include "pammod.h"
#include "pamedit.h"
#include "pamstack.h"
#include "strmap.h"
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
        bool substack;       /* brought by a substack line: libpam's 16 levels bound a cycle of them */
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
                /* a bracketed control: up to the matching ']'; libpam's _pam_StrTok() ends the
                 * token there, and the next one starts right after it, blank or not
                 * ("[default=bad]\r": the module is "\r"): its byte moves on by one, into the
                 * room the caller leaves, to make way for the word's end */
                while (*s && *s != ']')
                        s++;
                if (*s)
                        s++;
                if (*s && *s != ' ' && *s != '\t') {
                        memmove(s + 1, s, strlen(s) + 1);
                        *s++ = '\0';
                        *p = s;
                        return w;
                }
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
        bool marked;            /* the line being read ends in "# rdmalimits enable" */
        bool gave_up_name;      /* the last file given up on names a module libpam refuses */
        bool shadow;            /* following another type's includes (phase: that type) for
                                 * what makes pam_start() crash or loop there: no entries */
};

/* extract_modulename() (pam_handlers.c) refuses the module: its name, once the directories and
 * the extension are cut, is empty or "?" */
static bool module_name_refused(const char *path) {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        const char *dot = strrchr(b, '.');
        size_t n = dot ? (size_t)(dot - b) : strlen(b);
        return n == 0 || (n == 1 && b[0] == '?');
}

static int load_file(struct load *L, const char *name, struct at at, const char *from, unsigned from_line);

/* load_file()'s answers besides 0 and negative errnos.  LOAD_MISSING: an included file libpam
 * cannot open (or that sits at substack level 16); LOAD_GAVE_UP: libpam's reader gives up on the
 * file (a continuation at its end), what it read before stays; LOAD_HANG: libpam's reader never
 * ends on it (the stack aborts) */
#define LOAD_MISSING 1
#define LOAD_LINE 2      /* read_line(): a line */
#define LOAD_HANG 3
#define LOAD_GAVE_UP 4

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
static int set_abort(struct pam_stack *s, enum pam_abort_why why, const char *display, unsigned lineno,
                     const char *name) {
        if (s->aborts)
                return 0;
        s->aborts = true;
        s->abort_why = why;
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

/* A file read as libpam's fgets() calls see it: physical lines (each entered in the walk's
 * budget once), handed out in pieces no longer than the space left in the line buffer. */
struct line_reader {
        FILE *f;
        char *phys;             /* getline()'s buffer: the physical line being handed out */
        size_t cap, len, off;   /* its size, the line's length, the bytes handed out */
        unsigned lineno;        /* its number */
        const char *comment;    /* the last line's comment (after its '#'), in buf; NULL: none */
        char buf[PAM_LINE_BUF];
};

/* fgets(p, size, f) as glibc answers it (size >= 1; 1: nothing read, an empty string): 1 and
 * *ret_lineno the physical line the bytes come from, 0 at the end of the file, or negative. */
static int reader_fgets(struct load *L, const char *display, struct line_reader *R, char *p, size_t size,
                        unsigned *ret_lineno) {
        int r;

        *p = '\0';
        if (size == 1)
                return 1;
        if (R->off == R->len) {
                ssize_t len = getline(&R->phys, &R->cap, R->f);
                if (len <= 0)
                        /* getline() also stops on a read or allocation failure: not the end */
                        return feof(R->f) ? 0 : ferror(R->f) ? -EIO : -ENOMEM;
                if ((r = visit_line(L->v, display, ++R->lineno, (size_t)len)) < 0)
                        return r;
                R->len = (size_t)len;
                R->off = 0;
        }
        size_t k = R->len - R->off < size - 1 ? R->len - R->off : size - 1;
        memcpy(p, R->phys + R->off, k);
        p[k] = '\0';
        R->off += k;
        *ret_lineno = R->lineno;
        return 1;
}

/*
 * One line as libpam reads it (_pam_assemble_line(), pam_handlers.c, 1.5.2 to 1.7): lines that
 * are blank or start with '#' (after blanks) are skipped; a '#' ends the line; a line whose
 * last non-blank byte is a backslash goes on with the next line that is not skipped (the
 * backslash becomes a blank).  All of it in one buffer of 1024 bytes, which fgets() fills no
 * further than its end: a longer physical line is read in pieces, each a line of its own (a
 * '#' ends only its own piece: the rest of a long comment is read as a line), and a continued
 * line that ends exactly at the buffer's last byte leaves fgets() no room, for ever (libpam
 * loops: measured, pam_start() never returns).  The line is R->buf, *ret_first the number of
 * its first physical line.  LOAD_LINE: a line; 0: the end of the file; LOAD_GAVE_UP: the file
 * ends inside a continued line (libpam gives up on the file); LOAD_HANG; negative: an error.
 */
static int read_line(struct load *L, const char *display, struct line_reader *R, unsigned *ret_first) {
        char *p = R->buf, *endp = R->buf + sizeof R->buf;
        bool used = false;
        unsigned lineno = 0;
        int r;

        R->comment = NULL;

        for (;;) {
                if (p >= endp - 1)
                        return LOAD_HANG;
                if ((r = reader_fgets(L, display, R, p, (size_t)(endp - p), &lineno)) <= 0)
                        return r < 0 ? r : used ? LOAD_GAVE_UP : 0;
                char *s = p + strspn(p, " \n\t");
                if (!*s || *s == '#')
                        continue;                       /* nothing in this line: p stays */
                if (!used)
                        *ret_first = lineno;
                used = true;
                char *os = s;
                s += strcspn(s, "#");
                if (*s == '#') {
                        *s = '\0';
                        R->comment = s + 1;
                        return LOAD_LINE;
                }
                while (s > os && (s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\n'))
                        s--;
                if (s[-1] != '\\')
                        return LOAD_LINE;
                s[-1] = ' ';                            /* more to come, from here on */
                *s = '\0';
                p = s;
        }
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
static int load_line(struct load *L, const char *display, unsigned lineno, const char *text, struct at at) {
        char line[PAM_LINE_BUF + 2], *w[3], *rest;   /* pam_line_split()'s room */
        snprintf(line, sizeof line, "%s", text);
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
                        return set_abort(L->s, PAM_ABORT_NO_NAME, display, lineno, NULL);
                L->gave_up_name = false;
                r = load_include(L, w[1], in, display, lineno);
                if (r != LOAD_MISSING && r != LOAD_GAVE_UP)
                        return r;
                enum pam_abort_why why = r == LOAD_MISSING ? PAM_ABORT_INCLUDE
                                         : L->gave_up_name ? PAM_ABORT_INCLUDE_MODULE_NAME
                                                           : PAM_ABORT_INCLUDE_CONTINUED;
                L->gave_up_name = false;
                if (at.typed)
                        return L->shadow ? 0 : push_missing(L->s, display, lineno, w[1], here);
                return set_abort(L->s, why, display, lineno, w[1]);
        }
        bool bad_type = !known_type(w[0] + dash);
        /* every line libpam makes a handler of names a module it must accept: in a file read
         * for every type (the service file, other), lines of any type; in one read for the
         * phase, its lines and those of a type it does not know */
        bool handler = at.typed ? bad_type || strcasecmp(w[0] + dash, L->phase) == 0 : true;
        if (handler && w[1] && w[2] && strcasecmp(w[1], "include") != 0 && module_name_refused(w[2])) {
                if (at.depth > 0) {
                        L->gave_up_name = true;
                        return LOAD_GAVE_UP;
                }
                if ((r = set_abort(L->s, PAM_ABORT_MODULE_NAME, display, lineno, w[2])) < 0)
                        return r;
                return LOAD_GAVE_UP;
        }
        /* an include or substack without a file name crashes the process, whatever the line's
         * type where libpam reads it (measured: 'auth include' in the service file) */
        if (handler && w[1] && !w[2] && (strcasecmp(w[1], "include") == 0 || strcasecmp(w[1], "substack") == 0))
                return set_abort(L->s, PAM_ABORT_NO_NAME, display, lineno, NULL);
        bool substack = w[1] && strcasecmp(w[1], "substack") == 0;
        bool include = substack || (w[1] && strcasecmp(w[1], "include") == 0);   /* libpam: strcasecmp() */
        if (!bad_type && !at.typed && !L->shadow && include && w[2] && strcasecmp(w[0] + dash, L->phase) != 0) {
                /* libpam follows another type's include too, for that type: what crashes or
                 * loops there (no name, a cycle, a line that fills its buffer) ends pam_start()
                 * for every type; its lines are not the phase's */
                const char *phase = L->phase;
                in.typed = true;
                in.level += substack;
                in.substack = substack;
                L->phase = w[0] + dash;         /* compared with strcasecmp(), as libpam does */
                L->shadow = true;
                r = load_include(L, w[2], in, display, lineno);
                L->phase = phase;
                L->shadow = false;
                return r < 0 || r == LOAD_HANG ? r : 0;
        }
        if (bad_type ? !at.typed : strcasecmp(w[0] + dash, L->phase) != 0)
                return 0;
        if (L->shadow && !(include && w[2]))
                return 0;       /* another type's line: nothing of the phase's */
        if (!w[1])
                return push_failing(L->s, display, lineno, "required", "", here);
        if (include) {
                if (!w[2])
                        return set_abort(L->s, PAM_ABORT_NO_NAME, display, lineno, NULL);
                in.typed = true;
                if (substack) {
                        /* libpam's substack handler, at this level, ahead of what it brings */
                        in.level++;
                        in.substack = true;
                        if (!L->shadow && (r = link_add(L->s, at.level, -1)) < 0)
                                return r;
                }
                r = load_include(L, w[2], in, display, lineno);
                if (L->shadow)
                        return r < 0 || r == LOAD_HANG ? r : 0;
                return r == LOAD_MISSING || r == LOAD_GAVE_UP ? push_missing(L->s, display, lineno, w[2], here) : r;
        }
        if (!w[2] || bad_type)
                return push_failing(L->s, display, lineno, w[1], w[2] ? w[2] : "", here);
        if ((r = push(L->s, display, lineno, dash, w[1], w[2], rest, here)) >= 0)
                L->s->v[L->s->n - 1].marked = L->marked;
        return r;
}

/* The lines of one file entered in the walk (display: its name in messages), at `at` (top:
 * taken from each line at depth 0).  LOAD_GAVE_UP when libpam gives up on the file, LOAD_HANG
 * when its reader never ends on it (the stack then aborts). */
/* A comment (after its '#') that is rdmalimits enable's mark, blanks around it aside */
static bool comment_is_mark(const char *c) {
        c += strspn(c, " \t");
        size_t n = strcspn(c, "\n");
        while (n > 0 && (c[n - 1] == ' ' || c[n - 1] == '\t' || c[n - 1] == '\r'))
                n--;
        return n == strlen(PAMEDIT_MARK) && strncmp(c, PAMEDIT_MARK, n) == 0;
}

static int load_lines(struct load *L, const char *display, FILE *f, struct at at) {
        _cleanup_free_ struct line_reader *R = calloc(1, sizeof(*R));
        unsigned first = 0;
        int r;

        if (!R)
                return -ENOMEM;
        R->f = f;
        while ((r = read_line(L, display, R, &first)) == LOAD_LINE) {
                L->marked = R->comment && comment_is_mark(R->comment);
                if ((r = load_line(L, display, first, R->buf, at)) < 0 || r == LOAD_HANG || r == LOAD_GAVE_UP)
                        break;
        }
        if (r == LOAD_HANG && !L->s->aborts && (r = set_abort(L->s, PAM_ABORT_HANG, display, first, NULL)) >= 0)
                r = LOAD_HANG;
        free(R->phys);
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
                if (r == -EISDIR) {
                        /* libpam's fopen() takes a directory, whose first fgets() ends it: an
                         * empty file (measured) */
                        *ret_f = NULL;
                        r = 0;
                }
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
        if (r >= 0 && !f && !text)
                return 0;       /* a directory: read as an empty file */
        if (r >= 0 && f && fstat(fileno(f), &st) < 0)
                r = negative_errno();
        if (r < 0 && (!text || r == -ENOMEM))
                return at.depth == 0 || r == -ENOMEM ? r : LOAD_MISSING;
        if (!rel && asprintf(&rel, "/etc/pam.d/%s", name) < 0)
                return -ENOMEM;
        if (text && *text && !(t = fmemopen((void *)text, strlen(text), "r")))
                return -ENOMEM;
        const char *display = L->root ? rel + 1 : rel;
        if ((r = visit_enter_bounded(L->v, &st, display, from, from_line, at.substack)) < 0)
                return r;
        r = text ? (t ? load_lines(L, display, t, at) : 0) : load_lines(L, display, f, at);
        visit_leave(L->v);
        return r;
}

static int load_file(struct load *L, const char *name, struct at at, const char *from, unsigned from_line) {
        return load_file_text(L, name, NULL, at, from, from_line);
}

/* Which lines' modules libpam cannot load, or lack the phase's function (pammod.h: the one
 * answer, doctor's too). */
static int check_modules(const char *root, const char *phase, struct pam_stack *s) {
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
                r = pam_module_state(&m, root, s->v[i].module, pam_phase_function(phase), &st, NULL);
                s->v[i].unloadable = r >= 0 && pam_mod_unknown(st);
                s->v[i].no_function = r >= 0 && st == PAM_MOD_NO_FUNCTION;
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
        } else if (r == LOAD_GAVE_UP) {
                /* libpam gives up on the service file itself: pam_start() fails */
                if ((r = set_abort(s, PAM_ABORT_CONTINUED, "", 0, NULL)) < 0)
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

/* from's entries and chain after to's (from's problems are to's already: the same file) */
static int stack_append(struct pam_stack *to, struct pam_stack *from) {
        if (from->n_chain == 0)
                return 0;
        if (GROW_EXACT(to->v, to->n + from->n) < 0 || GROW_EXACT(to->chain, to->n_chain + from->n_chain) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < from->n; i++) {
                to->v[to->n + i] = from->v[i];
                to->v[to->n + i].link += to->n_chain;
        }
        for (size_t i = 0; i < from->n_chain; i++) {
                to->chain[to->n_chain + i] = from->chain[i];
                if (from->chain[i].entry >= 0)
                        to->chain[to->n_chain + i].entry += (long)to->n;
        }
        to->n += from->n;
        to->n_chain += from->n_chain;
        free(from->v);
        free(from->chain);
        from->v = NULL;
        from->chain = NULL;
        from->n = from->n_chain = 0;
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

int pam_for_each_service(const char *root, int (*fn)(const char *service, void *data), void *data) {
        struct strmap done = {};
        int r = 0;

        for (size_t k = 0; k < ELEMENTSOF(pam_dirs) && r >= 0; k++) {
                int fd;
                if (fs_open_dir_in_root(root, pam_dirs[k], 0, &fd) < 0)
                        continue;
                DIR *dir = fdopendir(fd);
                if (!dir) {
                        close(fd);
                        continue;
                }
                struct dirent *de;
                while (r >= 0 && (de = readdir(dir))) {
                        struct stat st;
                        if (de->d_name[0] == '.' || strmap_get(&done, de->d_name) ||
                            fstatat(dirfd(dir), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                                continue;
                        r = strmap_put(&done, de->d_name, (void *)1) < 0 ? -ENOMEM : fn(de->d_name, data);
                }
                closedir(dir);
        }
        strmap_clear(&done, NULL);
        return r;
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
        _cleanup_free_ char *lower = NULL;
        int r;

        /* pam_start() lowercases the service's name: "SU" reads pam.d/su */
        if (top) {
                size_t n = strlen(service) + 1;
                if (!(lower = malloc(n)))
                        return -ENOMEM;
                service = pam_service_name(service, lower, n);
        }

        if ((r = read_stack(root, service, phase, text, v, &s)) < 0)
                return r;
        /* only a missing file falls back here: one the tool cannot read, libpam (root) may; and
         * only where PAM is configured at all: a tree without /etc/pam.d and /usr/lib/pam.d (limits
         * files alone) says nothing of the stack, which stays unknown (assumed), not "fails" */
        bool missing = (s.error == -ENOENT || s.error == -ENOTDIR) && pam_dirs_exist(root);
        if (top && missing && streq(service, "other")) {
                /* the service called other, and no pam.d/other: _pam_init_handlers() read
                 * nothing, pam_start() fails (measured) */
                s.aborts = true;
                s.abort_why = PAM_ABORT_NO_FILE;
        }
        if (top && !s.include_error && !s.aborts && (!s.error || missing) && !streq(service, "other")) {
                if ((r = read_stack(root, "other", phase, NULL, v, &o)) < 0)
                        return r;
                bool use = s.n_chain == 0;
                if (o.include_error) {
                        s.include_error = o.include_error;
                        s.include_where = TAKE_PTR(o.include_where);
                } else if (o.aborts) {
                        s.aborts = true;
                        s.abort_why = o.abort_why;
                        s.abort_where = TAKE_PTR(o.abort_where);
                        s.abort_name = TAKE_PTR(o.abort_name);
                } else if (missing && o.error) {
                        /* neither file: _pam_init_handlers() read nothing, pam_start() fails */
                        s.aborts = true;
                        s.abort_why = PAM_ABORT_NO_FILE;
                } else if (use && !o.error)
                        s.other = true;
                if (use && !o.error)
                        stack_move(&s, &o);
        }
        /* the service called other: _pam_init_handlers() reads pam.d/other as the service's
         * file and then again as `other`, both into other's handlers (pam_handlers.c: a line of
         * the service "other" is one of other's): the stack is the file twice, and a jump past
         * the end of the first copy lands in the second (measured: each line runs twice) */
        if (top && streq(service, "other") && !s.error && !s.include_error && !s.aborts) {
                if ((r = read_stack(root, "other", phase, text, v, &o)) < 0)
                        return r;
                if ((r = stack_append(&s, &o)) < 0)
                        return r;
                s.other = true;
        }
        if ((r = check_modules(root, phase, &s)) < 0)
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

const char *pam_service_name(const char *service, char *buf, size_t size) {
        snprintf(buf, size, "%s", service ? service : "");
        for (char *p = buf; *p; p++)
                *p = c_tolower(*p);
        return buf;
}

const char *pam_abort_text(const struct pam_stack *s, char *what, size_t what_size, char *fix, size_t fix_size) {
        const char *name = s->abort_name ? s->abort_name : "";

        switch (s->abort_why) {
        case PAM_ABORT_INCLUDE:
                snprintf(what, what_size, "'@include %s' names a file that cannot be read: libpam's pam_start() fails",
                         name);
                snprintf(fix, fix_size, "create /etc/pam.d/%s, or remove the line", name);
                break;
        case PAM_ABORT_INCLUDE_CONTINUED:
                snprintf(what, what_size, "'@include %s' brings a file that ends inside a continued line (its last "
                         "line ends in '\\'): libpam gives up on it and pam_start() fails", name);
                snprintf(fix, fix_size, "remove the backslash at the end of the last line of /etc/pam.d/%s", name);
                break;
        case PAM_ABORT_INCLUDE_MODULE_NAME:
                snprintf(what, what_size, "'@include %s' brings a file with a line whose module name is empty (or "
                         "'?') once its directories and extension are cut: libpam refuses it and pam_start() fails",
                         name);
                snprintf(fix, fix_size, "correct the module's name in /etc/pam.d/%s", name);
                break;
        case PAM_ABORT_MODULE_NAME:
                snprintf(what, what_size, "the module name '%s' is empty (or '?') once its directories and extension "
                         "are cut: libpam refuses the line, whatever its type, and pam_start() fails", name);
                snprintf(fix, fix_size, "write the module's file name (pam_NAME.so)");
                break;
        case PAM_ABORT_NO_NAME:
                snprintf(what, what_size, "an include without a file name: the process dies in pam_start()");
                snprintf(fix, fix_size, "name the file to include, or remove the line");
                break;
        case PAM_ABORT_CONTINUED:
                snprintf(what, what_size, "the file ends inside a continued line (its last line ends in '\\'): "
                         "libpam gives up on it and pam_start() fails");
                snprintf(fix, fix_size, "remove the backslash at the end of the last line");
                break;
        case PAM_ABORT_HANG:
                snprintf(what, what_size, "the continued line starting here fills libpam's %d-byte line buffer "
                         "up to a backslash: libpam's reader loops and pam_start() never returns", PAM_LINE_BUF);
                snprintf(fix, fix_size, "join the continued line into one shorter line");
                break;
        case PAM_ABORT_NO_FILE:
                snprintf(what, what_size, "neither pam.d/%s nor pam.d/other exists: pam_start() fails",
                         s->service ? s->service : "");
                snprintf(fix, fix_size, "create /etc/pam.d/other");
                break;
        default:
                snprintf(what, what_size, "pam_start() fails");
                break;
        }
        return what;
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
        /* libpam's words end at blanks and newlines only: a carriage return (a DOS line end) is
         * part of the last word, "pam_limits.so\r", a module libpam cannot load */
        p[strcspn(p, "\n")] = '\0';
        words[0] = words[1] = words[2] = NULL;
        while (n < 3 && (words[n] = next_word(&p)))
                n++;
        while (*p == ' ' || *p == '\t')
                p++;
        *ret_rest = p;
        return n;
}
