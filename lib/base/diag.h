/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Findings collected by the library: library code never prints. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "macro.h"

/* From the most to the least severe, and a check that passed: doctor records those too, the
 * other lists never. */
enum diag_severity {
        DIAG_ERROR,
        DIAG_WARNING,
        DIAG_INFO,
        DIAG_OK,
};

struct diag {
        enum diag_severity severity;
        unsigned group; /* the list owner's grouping (doctor's path of entry); 0 unless set */
        char *path;     /* may be NULL; doctor: a file:line or an object, with line 0 */
        unsigned line;  /* 0: no line */
        char *message;
        const char *id; /* a stable name of the finding ("shadowed-entry"), a literal; may be NULL */
        char *fix;      /* what to do about it; may be NULL */
};

struct diag_list {
        struct diag *v;
        size_t n, cap;
};

/* Returns 0 or -ENOMEM. A NULL list is accepted and ignored. */
int diag_add(struct diag_list *l, enum diag_severity sev, const char *path, unsigned line,
             const char *fmt, ...) _printf_(5, 6);
/* The same with a stable id (a string literal) and a fix (copied; NULL for none). */
int diag_addf(struct diag_list *l, enum diag_severity sev, const char *id, const char *path, unsigned line,
              const char *fix, const char *fmt, ...) _printf_(7, 8);
/* What both are.  The message, path and fix keep the bytes given: whatever prints them goes
 * through the one escaper (escape.h), as tool/output.c diag_print() and diag_json() do. */
int diag_vadd(struct diag_list *l, enum diag_severity sev, unsigned group, const char *id, const char *path,
              unsigned line, const char *fix, const char *fmt, va_list ap) _printf_(8, 0);
size_t diag_count(const struct diag_list *l, enum diag_severity sev);
void diag_list_clear(struct diag_list *l);
const char *diag_severity_name(enum diag_severity sev); /* "error", "warning", "info", "ok" */
