/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The session phase of a PAM service's stack (or another phase: pam_stack_load_phase()),
 * includes followed (/etc/pam.d): the one reader of pam.d. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stddef.h>

struct pam_entry {
        char *file;          /* display path of the file the line is in */
        unsigned line;
        bool dash;           /* "-session": libpam does not log a module it cannot load */
        bool unloadable;     /* libpam cannot load its module file, or the module lacks the
                              * phase's function (no_function; pammod.h): the line returns
                              * PAM_MODULE_UNKNOWN, which its control decides, and does nothing */
        bool no_function;    /* the module loads, but has no function for the phase */
        bool fails;          /* a handler that always fails (PAM_PERM_DENIED, under its control):
                              * libpam's stand-in for an included file it cannot read (module: the
                              * file's name), or for a line without a control or a module, or of a
                              * type it does not know in a file read for the phase; name is "" */
        char *control;       /* "required", "optional", "[success=1 default=ignore]", ... */
        char *module;        /* as written: "pam_limits.so" or an absolute path */
        char *name;          /* basename without ".so": "pam_limits" */
        char *args;          /* the rest of the line, may be "" */
        unsigned depth;      /* include/substack depth (0: the service file) */
        unsigned level;      /* libpam's stack level: the substacks it is in (0: none) */
        unsigned top;        /* the line of the service file that brings it (its own at depth 0) */
        size_t link;         /* its node in the stack's chain */
        bool marked;         /* its comment is rdmalimits enable's mark (pamedit.h PAMEDIT_MARK) */
};

/*
 * libpam's handler chain of the session phase (libpam/pam_handlers.c, pam_dispatch.c): a node
 * for every entry, and one for each substack line (entry -1) ahead of the nodes it brings.
 * A jump counts the nodes of its own level, a substack with everything in it as one.
 */
struct pam_link {
        unsigned level;
        long entry;          /* index in v, or -1: a substack line */
};

/* libpam's line buffer (pam_handlers.c BUF_SIZE): _pam_assemble_line() reads into it with
 * fgets(), so a physical line of more than PAM_LINE_BUF - 1 bytes (its newline counted) is read
 * in pieces, each a line of its own */
#define PAM_LINE_BUF 1024

/* Why pam_start() fails for a stack (pam_stack.aborts) */
enum pam_abort_why {
        PAM_ABORT_NONE,
        PAM_ABORT_INCLUDE,   /* an @include of the service file, of `other` or of a file they
                              * @include names a file that cannot be read (abort_name) */
        PAM_ABORT_INCLUDE_CONTINUED, /* such a file ends inside a continued line (abort_name) */
        PAM_ABORT_INCLUDE_MODULE_NAME, /* such a file has a line whose module name libpam refuses */
        PAM_ABORT_MODULE_NAME, /* a line whose module's name is empty or "?" once its directories
                                * and its extension are cut ("pam_permit.so/", ".so"): libpam
                                * refuses it (extract_modulename()), for a line of any type */
        PAM_ABORT_NO_NAME,   /* an include without a file name: the process crashes */
        PAM_ABORT_CONTINUED, /* the service file or `other` ends inside a continued line */
        PAM_ABORT_HANG,      /* a continued line ends at the last byte of libpam's 1024-byte line
                              * buffer: its reader loops, pam_start() never returns */
        PAM_ABORT_NO_FILE,   /* neither the service file nor `other` exists */
};

struct pam_stack {
        char *service;
        int error;           /* negative errno when the service file cannot be read */
        int include_error;   /* visit.h's VISIT_ERR_CYCLE or VISIT_ERR_BUDGET: the entries are
                              * those read before it, the rest of the stack is unknown */
        char *include_where; /* then the include line that closes the cycle, or the line where
                              * the budget ran out ("FILE:LINE") */
        bool aborts;         /* pam_start() fails, or never returns: no session opens (each
                              * measured with Debian 12's libpam); abort_why says why */
        enum pam_abort_why abort_why;
        char *abort_where;   /* then the first such line, "FILE:LINE" (the file alone for a file
                              * libpam gives up on; NULL when neither file exists), and the name it
                              * includes ("" when none) */
        char *abort_name;
        bool other;          /* the entries are those of `other` (pam.d/other): the service has no
                              * line of the phase (its file is missing, error -ENOENT, or has
                              * none), and libpam runs other's (pam_dispatch.c) */
        bool modules_unchecked; /* the tree has no PAM module directory: every module file was
                                 * taken as present (pammod.h) */
        struct pam_entry *v;
        size_t n;
        struct pam_link *chain;
        size_t n_chain;
};

/* Are the entries the stack libpam runs: the service file's, or other's when the service has
 * none (a missing file: error -ENOENT and other)?  False for a file that cannot be read. */
static inline bool pam_stack_entries_known(const struct pam_stack *st) {
        return !st->error || st->other;
}

/*
 * libpam's PAM_SUBSTACK_MAX_LEVEL (pam_private.h): Linux-PAM 1.5.x (Debian 12's 1.5.2) refuses
 * a file brought at substack level 16 (_pam_load_conf_file(): the line becomes a handler that
 * always fails, measured) and follows includes however deep; from 1.6.0 on every include and
 * substack counts.  Entries are at levels below it.
 */
#define PAM_LEVEL_LIMIT 16
/* include_error of a stack whose includes nest 16 deep (substacks less): Linux-PAM before 1.6
 * reads on, 1.6 and later fail the line, so the stack is not known */
#define PAM_INCLUDE_ERR_DEPTH (-EMLINK)
#define PAM_DEPTH_TEXT                                                                                      \
        "includes nested 16 deep: Linux-PAM before 1.6 (Debian 12's 1.5.2) reads on, 1.6 and later make the " \
        "line a module that always fails"
/* What a stack's include_error means, for messages: visit_strerror()'s text and, for a cycle,
 * what libpam does with it. */
const char *pam_include_strerror(int include_error);
/* What an include cycle does to a PAM stack (see pamstack.c) */
#define PAM_CYCLE_EFFECT                                                                                   \
        "libpam cannot load this stack: Linux-PAM before 1.6 (Debian 12's 1.5.2) follows the include until " \
        "the process crashes, 1.6 and later (and a substack in any version) stop at 16 levels and fail the " \
        "session"

/* Read ROOT/etc/pam.d/SERVICE (root NULL: /; else /usr/lib/pam.d/SERVICE, as libpam looks)
 * and what it includes, as one walk of visit.h (a cycle or the budget: include_error, the
 * reading stops there), then `other` as libpam does (pam_stack.other, .aborts).  Lines are
 * read as libpam reads them: continued lines joined, '@include' in any case, a line of the
 * phase without a control or module an entry that fails (pam_entry.fails); an include names a
 * file of pam.d or an absolute path. */
int pam_stack_load(const char *root, const char *service, struct pam_stack *ret);
/* fn for each service of ROOT's pam.d, in directory order: each regular file of /etc/pam.d,
 * then those of /usr/lib/pam.d that /etc/pam.d has no file of that name for (libpam's
 * directories, as pam_stack_load() reads them).  Stops at fn's negative return: 0 or that. */
int pam_for_each_service(const char *root, int (*fn)(const char *service, void *data), void *data);
/* The same for another phase: "account" (pam_slurm_adopt's), "auth", "password". */
int pam_stack_load_phase(const char *root, const char *service, const char *phase, struct pam_stack *ret);
/* The same with the text of the service file given (as it would stand after an edit); what it
 * includes is read from the tree. */
int pam_stack_load_text(const char *root, const char *service, const char *text, struct pam_stack *ret);
/*
 * The one answer to "where does libpam go when entry i jumps over `jump` modules": the index
 * of the next entry that runs (s->n: none).  A jump counts the modules of its own level, a
 * substack as one, and cannot leave the substack it is in: a jump past the end of its level
 * sets *ret_bad (libpam logs "bad jump in stack" and fails the stack) and goes on after it.
 */
size_t pam_stack_jump(const struct pam_stack *s, size_t i, unsigned jump, bool *ret_bad);
/* After entry i decides the stack (done, die): the next entry past the end of its level (a
 * substack ends, its parent goes on), s->n when entry i is at the service's own level. */
size_t pam_stack_level_end(const struct pam_stack *s, size_t i);
/* ... as part of the walk v, which counts it against its budget with the other stacks read
 * through it (and fails it at once after an earlier problem); the file alone (an include file
 * read as a stack: no `other`). */
/* What makes pam_start() fail for s (s->aborts), as one sentence, and the fix, into the
 * buffers; what returned, fix not touched when there is none. */
const char *pam_abort_text(const struct pam_stack *s, char *what, size_t what_size, char *fix, size_t fix_size);
/* The service's name as pam_start() keeps it (PAM_SERVICE, the file it opens): lowercased,
 * into buf (cut to size). */
const char *pam_service_name(const char *service, char *buf, size_t size);
struct visit;
int pam_stack_load_walk(const char *root, const char *service, struct visit *v, struct pam_stack *ret);
void pam_stack_clear(struct pam_stack *s);
/* The name of a module as written ("/lib/security/pam_limits.so"): its basename without
 * ".so" ("pam_limits"), malloc()ed; NULL: ENOMEM. */
char *pam_module_name(const char *module);
/* Index of the first entry whose module name is `name` ("pam_limits"), or -1. */
long pam_stack_find(const struct pam_stack *s, const char *name);
/* Split one line of a stack file, in place, as pam_stack_load() reads it: the comment ('#' to
 * the end) and the newline cut, then up to three words (a bracketed control, "[a=b c=d]", is one
 * word, and the next starts right after its ']', blank or not; words[] NULL past the last),
 * *ret_rest the rest ("" when none).  Returns how many words it found.  A bracket that is not
 * closed stays in words[1] as read, without ']'.  line must have room for one more byte. */
unsigned pam_line_split(char *line, char *words[static 3], char **ret_rest);
/*
 * The arguments of a stack line (its rest) as libpam hands them to the module (Linux-PAM's
 * _pam_tokenize()): words between blanks (space, tab, newline); a word that starts with '['
 * runs to the first ']' not after a backslash and loses its brackets, "\]" inside becoming "]"
 * (an argument with blanks: "[conf=/etc/my file.conf]"); an unclosed one runs to the end.  The
 * one reader of module arguments (pam_limits' conf=, pam_rdmalimit's conf= and cache=).
 * Returns the words one after another, each NUL-terminated ("a\0b\0"), malloc()ed, and their
 * number in *ret_n (a word may be empty: "[]"); NULL: ENOMEM.
 */
char *pam_args_words(const char *args, size_t *ret_n);
/* The word after w in such a buffer. */
static inline const char *pam_args_next(const char *w) {
        return w + strlen(w) + 1;
}
