/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The session phase of a PAM service's stack, includes followed (/etc/pam.d). */
#include <stdbool.h>
#include <stddef.h>

struct pam_entry {
        char *file;          /* display path of the file the line is in */
        unsigned line;
        bool dash;           /* "-session": a missing module is ignored */
        char *control;       /* "required", "optional", "[success=1 default=ignore]", ... */
        char *module;        /* as written: "pam_limits.so" or an absolute path */
        char *name;          /* basename without ".so": "pam_limits" */
        char *args;          /* the rest of the line, may be "" */
        unsigned depth;      /* include/substack depth (0: the service file) */
};

struct pam_stack {
        char *service;
        int error;           /* negative errno when the service file cannot be read */
        int include_error;   /* visit.h's VISIT_ERR_CYCLE or VISIT_ERR_BUDGET: the entries are
                              * those read before it, the rest of the stack is unknown */
        char *include_where; /* then the include line that closes the cycle, or the line where
                              * the budget ran out ("FILE:LINE") */
        struct pam_entry *v;
        size_t n;
};

/* What a stack's include_error means, for messages: visit_strerror()'s text and, for a cycle,
 * what libpam does with it. */
const char *pam_include_strerror(int include_error);

/* Read ROOT/etc/pam.d/SERVICE (root NULL: /) and what it includes, as one walk of visit.h (a
 * cycle or the budget: include_error, the reading stops there). */
int pam_stack_load(const char *root, const char *service, struct pam_stack *ret);
/* ... as part of the walk v, which counts it against its budget with the other stacks read
 * through it (and fails it at once after an earlier problem). */
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
 * word; words[] NULL past the last), *ret_rest the rest ("" when none).  Returns how many
 * words it found.  A bracket that is not closed stays in words[1] as read, without ']'. */
unsigned pam_line_split(char *line, char *words[static 3], char **ret_rest);
